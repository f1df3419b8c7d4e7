/* Power loss: every announced move survives a power cut at a random instant.
 *
 * A test VFS (an sqlite3_vfs over the default one, made the default here)
 * keeps, for each database, write-ahead log and journal file, the writes
 * not yet followed by an xSync of that file, with the bytes they replaced.
 * Syncs themselves cost nothing here: what survives is decided by the log.
 * At a random write, truncate or sync the power goes: that operation and
 * every later one fails, so nothing more is announced; the bot and the
 * store are closed, the unsynced writes are undone on the files (the disk
 * after the cut: every one of them, or every other round only a random
 * number of the newest of each file), and the machine "reboots": the store
 * is opened again and a new bot resumes the stored games.
 *
 * The player side is the daemon's: group commit through bot_batch_begin,
 * bot_handle for a few commands, bot_batch_end (what discord_loop.c's discord_loop_flush
 * does each event-loop pass), with the background checkpointer running.
 * A command counts as announced when its batch committed (the daemon sends
 * its replies only then); its game's event log is read back at that moment.
 * After each reboot: PRAGMA integrity_check is ok, every announced event is
 * in the database unchanged, and the bot has resumed every open game.
 *
 * With synchronous = FULL (the default) 200 rounds lose nothing; with
 * NORMAL the same rounds lose announced moves, which shows the check can
 * fail. A batch of several commands costs one sync of the log. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "rlyeh/bot.h"
#include "rlyeh/store.h"
#include "vfsshim.h"

/* ---- the VFS ---- */

struct undo {
	struct undo *prev;
	sqlite3_int64 off, oldsize; /* restore bytes at off, then the size */
	int len;
	unsigned char *bytes;
};

struct tracked {
	char path[512];
	int kind; /* 0 database, 1 write-ahead log, 2 journal */
	struct undo *log;
	long syncs;
};

#define TRACKED_MAX 16

static struct {
	pthread_mutex_t lock;
	struct tracked files[TRACKED_MAX];
	int nfiles;
	long ops;    /* writes, truncates and syncs so far */
	long cut_at; /* the operation at which the power goes; -1 never */
	int dead;
} pv = { .lock = PTHREAD_MUTEX_INITIALIZER, .cut_at = -1 };

static struct tracked *track(const char *path, int kind)
{
	for (int i = 0; i < pv.nfiles; i++)
		if (strcmp(pv.files[i].path, path) == 0)
			return &pv.files[i];
	assert_true(pv.nfiles < TRACKED_MAX);
	struct tracked *t = &pv.files[pv.nfiles++];
	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s", path);
	t->kind = kind;
	return t;
}

static void forget_log(struct tracked *t)
{
	for (struct undo *u = t->log, *prev; u; u = prev) {
		prev = u->prev;
		free(u->bytes);
		free(u);
	}
	t->log = NULL;
}

/* One more operation that reaches the disk: 0 to go on, -1 when the power
 * is (now) off. Called with the lock held. */
static int tick_op(void)
{
	if (pv.dead)
		return -1;
	pv.ops++;
	if (pv.cut_at >= 0 && pv.ops >= pv.cut_at) {
		pv.dead = 1;
		return -1;
	}
	return 0;
}

/* Keeps what [off, off+len) held (within the old size) and the old size. */
static int remember(struct vfsshim_file *f, sqlite3_int64 off, sqlite3_int64 len)
{
	struct tracked *t = f->track;
	struct undo *u = calloc(1, sizeof(*u));

	assert_non_null(u);
	u->off = off;
	if (vfsshim_old_bytes(f, off, len, &u->oldsize, &u->bytes, &u->len)) {
		free(u);
		return -1;
	}
	u->prev = t->log;
	t->log = u;
	return 0;
}

static int pv_write(struct vfsshim_file *f, const void *buf, int n, sqlite3_int64 off)
{
	int rc;

	pthread_mutex_lock(&pv.lock);
	if (tick_op() || remember(f, off, n))
		rc = SQLITE_IOERR_WRITE;
	else
		rc = f->real->pMethods->xWrite(f->real, buf, n, off);
	pthread_mutex_unlock(&pv.lock);
	return rc;
}

static int pv_truncate(struct vfsshim_file *f, sqlite3_int64 size)
{
	sqlite3_int64 old = 0;
	int rc;

	pthread_mutex_lock(&pv.lock);
	if (tick_op() || f->real->pMethods->xFileSize(f->real, &old) != SQLITE_OK ||
	    (old > size && remember(f, size, old - size)))
		rc = SQLITE_IOERR_TRUNCATE;
	else
		rc = f->real->pMethods->xTruncate(f->real, size);
	pthread_mutex_unlock(&pv.lock);
	return rc;
}

/* A sync makes the file's writes so far survive: its undo log goes. The
 * real fsync is left out (the log decides what a power cut keeps). */
static int pv_sync(struct vfsshim_file *f, int flags)
{
	struct tracked *t = f->track;
	int rc = SQLITE_OK;

	(void)flags;
	pthread_mutex_lock(&pv.lock);
	if (tick_op()) {
		rc = SQLITE_IOERR_FSYNC;
	} else {
		forget_log(t);
		t->syncs++;
	}
	pthread_mutex_unlock(&pv.lock);
	return rc;
}

static void *pv_open_track(const char *path, enum vfsshim_kind kind, int *refuse)
{
	struct tracked *t;

	*refuse = 0;
	pthread_mutex_lock(&pv.lock);
	t = track(path, kind);
	pthread_mutex_unlock(&pv.lock);
	return t;
}

static int pv_delete(sqlite3_vfs *real, const char *name, int dirsync)
{
	pthread_mutex_lock(&pv.lock);
	if (pv.dead) {
		pthread_mutex_unlock(&pv.lock);
		return SQLITE_IOERR_DELETE;
	}
	for (int i = 0; i < pv.nfiles; i++)
		if (strcmp(pv.files[i].path, name) == 0)
			forget_log(&pv.files[i]);
	pthread_mutex_unlock(&pv.lock);
	return real->xDelete(real, name, dirsync);
}

static const struct vfsshim_hooks pv_hooks = {
	.open_track = pv_open_track,
	.write = pv_write,
	.truncate = pv_truncate,
	.sync = pv_sync,
	.delete = pv_delete,
};

static void pv_install(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	assert_int_equal(vfsshim_install("powerloss", &pv_hooks), SQLITE_OK);
}

/* The disk after the power cut: the writes not followed by a sync of their
 * file are undone, newest first: all of them, or with `partial` a random
 * number of the newest of each file (the disk had written the older ones
 * on its own). Every connection is closed by then. */
static void pv_power_loss(int partial, uint64_t *rng)
{
	pthread_mutex_lock(&pv.lock);
	for (int i = 0; i < pv.nfiles; i++) {
		struct tracked *t = &pv.files[i];
		int fd, n = 0, undo;
		if (!t->log)
			continue;
		for (struct undo *u = t->log; u; u = u->prev)
			n++;
		undo = n;
		if (partial) {
			*rng ^= *rng << 13;
			*rng ^= *rng >> 7;
			*rng ^= *rng << 17;
			undo = (int)(*rng % (uint64_t)(n + 1));
		}
		fd = open(t->path, O_WRONLY);
		if (fd >= 0) {
			for (struct undo *u = t->log; u && undo-- > 0; u = u->prev) {
				if (u->len)
					assert_int_equal(
					    pwrite(fd, u->bytes, (size_t)u->len, u->off), u->len);
				assert_int_equal(ftruncate(fd, u->oldsize), 0);
			}
			close(fd);
		}
		forget_log(t);
	}
	pv.dead = 0;
	pv.cut_at = -1;
	pthread_mutex_unlock(&pv.lock);
}

static long pv_syncs(int kind)
{
	long n = 0;

	pthread_mutex_lock(&pv.lock);
	for (int i = 0; i < pv.nfiles; i++)
		if (pv.files[i].kind == kind)
			n += pv.files[i].syncs;
	pthread_mutex_unlock(&pv.lock);
	return n;
}

/* ---- the players ---- */

#define CHANNELS   4
#define GAMES_MAX  4096
#define EVENTS_MAX 512
#define T0         1700000000000LL

struct seen_event {
	int64_t seq;
	char kind[STORE_KIND_MAX];
	int actor, value;
};

/* What was announced of one game: its event log when last announced. */
struct announced {
	int64_t id;
	int nevents;
	struct seen_event ev[EVENTS_MAX];
};

struct world {
	char dir[64], path[256];
	struct store *st;
	struct bot *bot;
	int durability;
	uint64_t rng;
	int64_t now;
	struct announced *games;
	int ngames;
	int step[CHANNELS];    /* the opening command a channel's new table is at */
	int refused[CHANNELS]; /* commands refused there in a row */
	long announced_cmds, lost_events, lost_games, rounds;
};

static uint64_t next_rand(struct world *w)
{
	uint64_t x = w->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return w->rng = x;
}

static struct announced *announced_of(struct world *w, int64_t id)
{
	for (int i = 0; i < w->ngames; i++)
		if (w->games[i].id == id)
			return &w->games[i];
	assert_true(w->ngames < GAMES_MAX);
	w->games[w->ngames].id = id;
	w->games[w->ngames].nevents = 0;
	return &w->games[w->ngames++];
}

static int copy_log(void *ctx, const struct store_loaded *g)
{
	struct announced *a = ctx;

	assert_true(g->nevents <= EVENTS_MAX);
	a->nevents = g->nevents;
	for (int i = 0; i < g->nevents; i++) {
		a->ev[i].seq = g->events[i].seq;
		snprintf(a->ev[i].kind, sizeof(a->ev[i].kind), "%s", g->events[i].kind);
		a->ev[i].actor = g->events[i].actor;
		a->ev[i].value = g->events[i].value;
	}
	return 0;
}

struct compare {
	const struct announced *want;
	int missing;
};

static int compare_log(void *ctx, const struct store_loaded *g)
{
	struct compare *c = ctx;

	for (int i = 0; i < c->want->nevents; i++) {
		const struct seen_event *e = &c->want->ev[i];
		if (i >= g->nevents || g->events[i].seq != e->seq ||
		    strcmp(g->events[i].kind, e->kind) != 0 || g->events[i].actor != e->actor ||
		    g->events[i].value != e->value)
			c->missing++;
	}
	return 0;
}

static void open_world(struct world *w)
{
	struct bot_config cfg;
	char err[256];

	if (store_open(w->path, &w->st, err, sizeof(err)))
		fail_msg("store_open after reboot: %s", err);
	assert_int_equal(store_set_durability(w->st, w->durability), 0);
	assert_int_equal(store_checkpoint_background(w->st), 0);
	bot_config_default(&cfg);
	cfg.seed = 99;
	cfg.turn_timeout_ms = 0;
	w->bot = bot_new(w->st, &cfg, err, sizeof(err));
	if (!w->bot)
		fail_msg("a stored game does not resume: %s", err);
}

static int count_open(void *ctx, const struct store_loaded *g)
{
	(void)g;
	(*(int *)ctx)++;
	return 0;
}

/* The next command for channel c: the opening of a new table when it has
 * none (a opens, b joins, a computer player, the start), else a move one
 * of its two people may make (refused ones change nothing), and an /abort
 * when nothing has been accepted there for a while. */
static void next_command(struct world *w, int c, char *line, size_t cap, char *user, size_t ucap)
{
	static const char *const opening[] = { "/open", "/join", "/addbot heuristic", "/start" };
	int pick = (int)(next_rand(w) % 2);
	char ch[8];

	snprintf(ch, sizeof(ch), "c%d", c);
	if (!bot_has_game(w->bot, "g", ch) && w->step[c] >= 4)
		w->step[c] = 0;
	if (w->refused[c] > 40) {
		w->refused[c] = 0;
		snprintf(user, ucap, "a%d", c);
		snprintf(line, cap, "/abort");
		return;
	}
	if (w->step[c] < 4) {
		snprintf(user, ucap, "%c%d", w->step[c] == 1 ? 'b' : 'a', c);
		snprintf(line, cap, "%s", opening[w->step[c]++]);
		return;
	}
	snprintf(user, ucap, "%c%d", pick ? 'b' : 'a', c);
	switch (next_rand(w) % 3) {
	case 0:
		snprintf(line, cap, "/curse %c%d", pick ? 'a' : 'b', c);
		break;
	case 1:
		snprintf(line, cap, "/respond");
		break;
	default:
		snprintf(line, cap, "/curse heuristic-bot-1");
		break;
	}
}

/* Plays batches of one to three commands, as the daemon's event-loop
 * passes do, until the power goes or `batches` have passed. */
static void play_until_cut(struct world *w, int batches)
{
	struct msg_list outs[3] = { 0 };

	for (int b = 0; b < batches && !pv.dead; b++) {
		struct bot_req reqs[3];
		char lines[3][64], channels[3][8], users[3][16];
		int chan[3], n = 1 + (int)(next_rand(w) % 3);

		bot_batch_begin(w->bot);
		for (int i = 0; i < n; i++) {
			struct bot_req *r = &reqs[i];
			chan[i] = (int)(next_rand(w) % CHANNELS);
			snprintf(channels[i], sizeof(channels[i]), "c%d", chan[i]);
			next_command(w, chan[i], lines[i], sizeof(lines[i]), users[i],
			             sizeof(users[i]));
			memset(r, 0, sizeof(*r));
			r->server = "g";
			r->channel = channels[i];
			r->user = users[i];
			r->name = users[i];
			r->moderator = 1;
			if (cmd_parse(lines[i], &r->cmd) != CMD_OK)
				fail_msg("cannot parse %s", lines[i]);
			w->now += 1000;
			msg_clear(&outs[i]);
			bot_handle(w->bot, r, w->now, &outs[i]);
		}
		if (bot_batch_end(w->bot) != 0)
			continue; /* the commit failed: nothing is announced */
		for (int i = 0; i < n; i++) {
			int64_t game = 0;
			if (!outs[i].n || outs[i].m[0].kind == MSG_ERROR) {
				w->refused[chan[i]]++;
				continue;
			}
			w->refused[chan[i]] = 0;
			for (int k = 0; k < outs[i].n && !game; k++)
				game = outs[i].m[k].game;
			w->announced_cmds++;
			if (game)
				assert_int_equal(
				    store_game_load(w->st, game, copy_log, announced_of(w, game)),
				    0);
		}
	}
	for (int i = 0; i < 3; i++)
		msg_free(&outs[i]);
}

/* One round: the power goes at a random operation, then the reboot and the
 * checks. */
static void round_once(struct world *w)
{
	int opened = 0;
	char *check;

	pthread_mutex_lock(&pv.lock);
	pv.cut_at = pv.ops + 1 + (long)(next_rand(w) % 400);
	pthread_mutex_unlock(&pv.lock);
	play_until_cut(w, 100000);
	assert_true(pv.dead);
	/* The machine stops: nothing is closed cleanly, then the disk keeps
	 * only what was synced. */
	bot_free(w->bot);
	store_close(w->st);
	w->bot = NULL;
	w->st = NULL;
	/* Every other cut, the disk had written some of the unsynced writes. */
	pv_power_loss(w->rounds % 2, &w->rng);
	/* The reboot. */
	{
		sqlite3 *db;
		sqlite3_stmt *s;
		assert_int_equal(sqlite3_open_v2(w->path, &db, SQLITE_OPEN_READONLY, NULL),
		                 SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL),
		                 SQLITE_OK);
		assert_int_equal(sqlite3_step(s), SQLITE_ROW);
		check = strdup((const char *)sqlite3_column_text(s, 0));
		sqlite3_finalize(s);
		sqlite3_close(db);
	}
	if (strcmp(check, "ok") != 0)
		fail_msg("round %ld: integrity_check: %s", w->rounds, check);
	free(check);
	open_world(w);
	for (int i = 0; i < w->ngames; i++) {
		struct compare c = { &w->games[i], 0 };
		if (store_game_load(w->st, w->games[i].id, compare_log, &c)) {
			w->lost_games++;
			w->lost_events += w->games[i].nevents;
			w->games[i--] = w->games[--w->ngames];
			continue;
		}
		w->lost_events += c.missing;
		/* What is lost is counted once: the record starts again from
		 * what the database has. */
		if (c.missing)
			assert_int_equal(
			    store_game_load(w->st, w->games[i].id, copy_log, &w->games[i]), 0);
	}
	assert_int_equal(store_games_open(w->st, count_open, &opened), 0);
	assert_int_equal(bot_open_games(w->bot), opened);
	w->rounds++;
}

static void run_rounds(int durability, int rounds, long *lost, long *announced)
{
	struct world *w = calloc(1, sizeof(*w));

	assert_non_null(w);
	pv_install();
	w->games = calloc(GAMES_MAX, sizeof(*w->games));
	assert_non_null(w->games);
	w->durability = durability;
	w->rng = 0x9E3779B97F4A7C15ULL ^ (uint64_t)durability;
	w->now = T0;
	snprintf(w->dir, sizeof(w->dir), "/tmp/rlyeh-power-XXXXXX");
	assert_non_null(mkdtemp(w->dir));
	snprintf(w->path, sizeof(w->path), "%s/p.db", w->dir);
	open_world(w);
	for (int r = 0; r < rounds; r++) {
		round_once(w);
		if (durability == STORE_DURABLE_FULL && w->lost_events + w->lost_games)
			fail_msg("round %d: %ld announced events and %ld games lost", r,
			         w->lost_events, w->lost_games);
	}
	printf("# %s: %d power cuts, %ld commands announced, %d games, %ld announced "
	       "events lost, %ld games lost; syncs: %ld of the log, %ld of the database\n",
	       durability == STORE_DURABLE_FULL ? "full" : "normal", rounds, w->announced_cmds,
	       w->ngames, w->lost_events, w->lost_games, pv_syncs(1), pv_syncs(0));
	*lost = w->lost_events + w->lost_games;
	*announced = w->announced_cmds;
	bot_free(w->bot);
	store_close(w->st);
	{
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", w->dir);
		assert_int_equal(system(cmd), 0);
	}
	free(w->games);
	free(w);
}

static void full_loses_nothing(void **state)
{
	long lost, announced;

	(void)state;
	run_rounds(STORE_DURABLE_FULL, 200, &lost, &announced);
	assert_int_equal(lost, 0);
	assert_true(announced > 2000);
}

static void normal_loses_announced_moves(void **state)
{
	long lost, announced;

	(void)state;
	run_rounds(STORE_DURABLE_NORMAL, 30, &lost, &announced);
	assert_true(lost > 0);
}

/* Group commit: a batch of several commands is one transaction and one
 * sync of the write-ahead log (FULL), none with NORMAL. */
static void one_sync_per_batch(void **state)
{
	for (int d = 0; d < 2; d++) {
		struct world *w = calloc(1, sizeof(*w));
		long before;

		(void)state;
		assert_non_null(w);
		pv_install();
		w->games = calloc(GAMES_MAX, sizeof(*w->games));
		w->durability = d ? STORE_DURABLE_NORMAL : STORE_DURABLE_FULL;
		w->rng = 5;
		w->now = T0;
		snprintf(w->dir, sizeof(w->dir), "/tmp/rlyeh-power-XXXXXX");
		assert_non_null(mkdtemp(w->dir));
		snprintf(w->path, sizeof(w->path), "%s/p.db", w->dir);
		open_world(w);
		play_until_cut(w, 20); /* tables open, games under way */
		for (int b = 0; b < 50; b++) {
			long announced = w->announced_cmds;
			before = pv_syncs(1);
			play_until_cut(w, 1);
			if (w->announced_cmds > announced)
				assert_int_equal(pv_syncs(1) - before, d ? 0 : 1);
		}
		bot_free(w->bot);
		store_close(w->st);
		{
			char cmd[128];
			snprintf(cmd, sizeof(cmd), "rm -rf %s", w->dir);
			assert_int_equal(system(cmd), 0);
		}
		free(w->games);
		free(w);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_sync_per_batch),
		cmocka_unit_test(normal_loses_announced_moves),
		cmocka_unit_test(full_loses_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
