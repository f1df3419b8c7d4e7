#include "rlyeh/bot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/i18n.h"
#include "rlyeh/play.h"
#include "rlyeh/playlog.h"
#include "rlyeh/records.h"
#include "rlyeh/rng.h"
#include "rlyeh/text.h"

#define LOCAL_NAME_MAX 32
#define PASS_GAP_MS    1000 /* from a command to the first later pass of its computer moves */
#define BATCH_MAX      256  /* tables one batch may change */

struct table {
	struct store_game row;
	struct store_member m[STORE_MEMBERS_MAX];
	int nm;
	const struct play_game *game;
	_Alignas(max_align_t) unsigned char state[PLAY_STATE_MAX];
	int64_t seq;     /* last event written */
	int64_t last_at; /* when it was written */
	int64_t remind;  /* when the awaited player is reminded, 0 for never; not stored */
	int pending;     /* computer moves are left for bot_tick (cfg.moves_per_pass); not stored */
};

#define WORK_FOLD_EVENTS 512       /* events gathered for a game's fold, at most */
#define WORK_FOLD_TEXT   (1 << 15) /* bytes of their folded text, at most */

/* The pending writes of one command, made on a copy of the table. */
struct work {
	struct bot *b;
	struct table t;
	int created;            /* the game row is new */
	struct store_game row0; /* the row as loaded */
	int nm0;                /* the members as loaded, to write them only when changed */
	struct store_member m0[STORE_MEMBERS_MAX];
	int64_t now;
	struct store_event *ev;
	int nev, capev;
	struct msg_list out; /* replies, released only after the commit */
	struct text narr;
	char narr_buf[MSG_TEXT_MAX];
	/* events applied and not yet told, for a game that folds them
	 * (play.h: fold) */
	struct game_event fold[WORK_FOLD_EVENTS];
	int nfold;
	int oom;
	int holding; /* a later pass of computer moves (play_pending): its narration is held */
};

/* A table as the bot keeps it between commands, found by a hash of
 * (server, channel): the game row's numbers, and one allocation holding
 * the rest packed. The blob holds the row's server, channel, game, lang and
 * owner, each NUL-terminated (slen bytes); per member its player, name and
 * policy, each NUL-terminated, then strikes, autopilot, place, cthulhu
 * and prefs as five int32_t (mlen bytes in all); then, while the game is under way,
 * game->ops->state_size bytes. */
struct slot {
	struct slot *next; /* in its hash bucket */
	const struct play_game *game;
	int64_t id, seq, last_at, created_at, started_at, finished_at, deadline, series_of;
	int64_t remind; /* struct table's */
	int pending;    /* struct table's */
	char *held;     /* the narration of the passes since the command that left
	                   computer moves pending, told with the table (NUL-ended) */
	uint64_t seed, rng[4];
	int per_player, state, first, moves, winner, note, revision, nm;
	uint32_t slen, mlen;
	int has_state;
	unsigned char *blob;
};

#define MEMBER_INTS 5

/* Bytes the packed form of m[0..nm-1] takes. */
static uint32_t members_size(const struct store_member *m, int nm)
{
	size_t n = 0;

	for (int i = 0; i < nm; i++)
		n += strnlen(m[i].player, sizeof(m[i].player) - 1) +
		     strnlen(m[i].name, sizeof(m[i].name) - 1) +
		     strnlen(m[i].policy, sizeof(m[i].policy) - 1) + 3 +
		     MEMBER_INTS * sizeof(int32_t);
	return (uint32_t)n;
}

static unsigned char *put_str(unsigned char *p, const char *s, size_t size)
{
	size_t n = strnlen(s, size - 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p + n + 1;
}

static const unsigned char *get_str(const unsigned char *p, char *s, size_t size)
{
	size_t n = strnlen((const char *)p, size - 1);

	memcpy(s, p, n);
	s[n] = '\0';
	return p + strlen((const char *)p) + 1;
}

/* Writes the packed form of m[0..nm-1] at p (members_size bytes). */
static void pack_members(const struct store_member *m, int nm, unsigned char *p)
{
	for (int i = 0; i < nm; i++) {
		int32_t v[MEMBER_INTS] = { m[i].strikes, m[i].autopilot, m[i].place, m[i].cthulhu,
			                   m[i].prefs };
		p = put_str(p, m[i].player, sizeof(m[i].player));
		p = put_str(p, m[i].name, sizeof(m[i].name));
		p = put_str(p, m[i].policy, sizeof(m[i].policy));
		memcpy(p, v, sizeof(v));
		p += sizeof(v);
	}
}

/* Reads nm packed members at p into m (zero-filled past each string). */
static void unpack_members(const unsigned char *p, int nm, struct store_member *m)
{
	for (int i = 0; i < nm; i++) {
		int32_t v[MEMBER_INTS];
		memset(&m[i], 0, sizeof(m[i]));
		p = get_str(p, m[i].player, sizeof(m[i].player));
		p = get_str(p, m[i].name, sizeof(m[i].name));
		p = get_str(p, m[i].policy, sizeof(m[i].policy));
		memcpy(v, p, sizeof(v));
		p += sizeof(v);
		m[i].strikes = v[0];
		m[i].autopilot = v[1];
		m[i].place = v[2];
		m[i].cthulhu = v[3];
		m[i].prefs = v[4];
	}
}

static size_t blob_size(const struct slot *s)
{
	return s->slen + s->mlen + (s->has_state ? s->game->ops->state_size : 0);
}

static const char *slot_server(const struct slot *s)
{
	return (const char *)s->blob;
}

static const char *slot_channel(const struct slot *s)
{
	return slot_server(s) + strlen(slot_server(s)) + 1;
}

/* Bytes the packed strings of row take. */
static uint32_t row_strings_size(const struct store_game *r)
{
	return (uint32_t)(strnlen(r->server, sizeof(r->server) - 1) +
	                  strnlen(r->channel, sizeof(r->channel) - 1) +
	                  strnlen(r->game, sizeof(r->game) - 1) +
	                  strnlen(r->lang, sizeof(r->lang) - 1) +
	                  strnlen(r->owner, sizeof(r->owner) - 1) + 5);
}

/* The numbers of a game row, kept as they are in struct slot. */
/* clang-format off */
#define ROW_NUMBERS(X) \
	X(id) X(per_player) X(state) X(seed) X(rng[0]) X(rng[1]) X(rng[2]) X(rng[3]) \
	X(first) X(moves) X(winner) X(created_at) X(started_at) X(finished_at) \
	X(deadline) X(series_of) X(note) X(revision)
/* clang-format on */

/* Keeps row in s: its numbers in the fields, its strings at s->blob. */
static void pack_row(const struct store_game *r, struct slot *s)
{
	unsigned char *p = s->blob;

#define TO_SLOT(f) s->f = r->f;
	ROW_NUMBERS(TO_SLOT)
#undef TO_SLOT
	p = put_str(p, r->server, sizeof(r->server));
	p = put_str(p, r->channel, sizeof(r->channel));
	p = put_str(p, r->game, sizeof(r->game));
	p = put_str(p, r->lang, sizeof(r->lang));
	put_str(p, r->owner, sizeof(r->owner));
}

/* The row kept in s. */
static void unpack_row(const struct slot *s, struct store_game *r)
{
	const unsigned char *p = s->blob;

	memset(r, 0, sizeof(*r));
#define TO_ROW(f) r->f = s->f;
	ROW_NUMBERS(TO_ROW)
#undef TO_ROW
	p = get_str(p, r->server, sizeof(r->server));
	p = get_str(p, r->channel, sizeof(r->channel));
	p = get_str(p, r->game, sizeof(r->game));
	p = get_str(p, r->lang, sizeof(r->lang));
	get_str(p, r->owner, sizeof(r->owner));
}

/* A table as it was before the open batch changed it, to put back when
 * the batch's commit fails. */
struct undo {
	int existed;      /* 0: the batch created the channel's slot */
	struct slot copy; /* existed: the slot's fields, m and state owned here */
};

struct bot {
	struct store *st;
	struct bot_config cfg;
	char lang[8];
	struct slot **buckets; /* open tables, and the last finished one per channel */
	size_t nbuckets;       /* a power of two */
	size_t nslots;
	struct table view; /* the expanded table find_table returns */
	int64_t earliest;  /* cached earliest deadline; -1 when unknown */
	int64_t games_made;
	long store_errors;
	int batch; /* inside bot_batch_begin / bot_batch_end */
	int nundo;
	struct undo undo[BATCH_MAX];
	int64_t *epochs; /* cfg.shards > 0: each shard's epoch here; 0 not held */
	long fenced_out;
};

void bot_config_default(struct bot_config *cfg)
{
	cfg->seed = 1;
	cfg->turn_timeout_ms = 120000;
	cfg->strikes = 3;
	cfg->min_games = 3;
	cfg->lang = "en";
	cfg->shards = 0;
	cfg->lobby_timeout_ms = 24 * 3600 * 1000LL;
	cfg->finished_keep_ms = 3600 * 1000LL;
	cfg->moves_per_pass = 64;
}

/* ---- tables ---- */

static uint64_t channel_hash(const char *server, const char *channel)
{
	return text_hash(text_hash(text_hash(TEXT_HASH_SEED, server), "\xff"), channel);
}

static struct slot *find_slot(const struct bot *b, const char *server, const char *channel)
{
	struct slot *s;

	if (!b->nbuckets)
		return NULL;
	s = b->buckets[channel_hash(server, channel) & (b->nbuckets - 1)];
	for (; s; s = s->next)
		if (strcmp(slot_channel(s), channel) == 0 && strcmp(slot_server(s), server) == 0)
			return s;
	return NULL;
}

/* Copies a kept table into its full working form. */
static void expand(const struct slot *s, struct table *t)
{
	unpack_row(s, &t->row);
	t->game = s->game;
	t->seq = s->seq;
	t->last_at = s->last_at;
	t->remind = s->remind;
	t->pending = s->pending;
	t->nm = s->nm;
	if (s->nm)
		unpack_members(s->blob + s->slen, s->nm, t->m);
	if (s->has_state)
		memcpy(t->state, s->blob + s->slen + s->mlen, s->game->ops->state_size);
}

/* The channel's table, expanded into the bot's view (valid until the next
 * call), or NULL. */
static struct table *find_table(struct bot *b, const char *server, const char *channel)
{
	struct slot *s = find_slot(b, server, channel);

	if (!s)
		return NULL;
	expand(s, &b->view);
	return &b->view;
}

static int is_open(const struct table *t)
{
	return t && (t->row.state == STORE_LOBBY || t->row.state == STORE_PLAYING);
}

/* Doubles the hash table; -1 when memory is short (nothing changed). */
static int grow(struct bot *b)
{
	size_t n = b->nbuckets ? b->nbuckets * 2 : 64;
	struct slot **nb = calloc(n, sizeof(*nb));

	if (!nb)
		return -1;
	for (size_t i = 0; i < b->nbuckets; i++) {
		for (struct slot *s = b->buckets[i], *next; s; s = next) {
			size_t k = channel_hash(slot_server(s), slot_channel(s)) & (n - 1);
			next = s->next;
			s->next = nb[k];
			nb[k] = s;
		}
	}
	free(b->buckets);
	b->buckets = nb;
	b->nbuckets = n;
	return 0;
}

/* When a kept table next wants bot_tick (0: never): a game's reminder, when
 * one is due before its deadline, else its deadline; a lobby's expiry; when
 * a finished or aborted table is let go of (cfg: lobby_timeout_ms,
 * finished_keep_ms; 0 never). */
static int64_t slot_wake(const struct bot *b, const struct slot *s)
{
	if (s->state == STORE_LOBBY)
		return b->cfg.lobby_timeout_ms > 0 ? s->last_at + b->cfg.lobby_timeout_ms : 0;
	if (s->state != STORE_PLAYING)
		return b->cfg.finished_keep_ms > 0 ? s->last_at + b->cfg.finished_keep_ms : 0;
	if (s->pending) /* the first later pass after a pause for the command's
	                   own answer to go out first, the next ones at once */
		return (s->last_at > 0 ? s->last_at : 1) + (s->held ? 0 : PASS_GAP_MS);
	return s->remind > 0 && s->remind < s->deadline ? s->remind : s->deadline;
}

/* Notes that a table's deadline changed from `before` to `after`. */
static void deadline_moved(struct bot *b, int64_t before, int64_t after)
{
	if (b->earliest < 0)
		return;
	if (before && before == b->earliest)
		b->earliest = -1; /* recomputed when asked */
	else if (after && (b->earliest == 0 || after < b->earliest))
		b->earliest = after;
}

/* Inside a batch, keeps the channel's table as it is now so that a failed
 * commit can put it back (once per channel and batch). Returns 0, or -1
 * when memory is short or the batch is full (nothing kept). */
static int remember(struct bot *b, const char *server, const char *channel)
{
	struct slot *s = find_slot(b, server, channel);
	struct undo *u;

	if (!b->batch)
		return 0;
	for (int i = 0; i < b->nundo; i++)
		if (strcmp(slot_channel(&b->undo[i].copy), channel) == 0 &&
		    strcmp(slot_server(&b->undo[i].copy), server) == 0)
			return 0;
	if (b->nundo == BATCH_MAX)
		return -1;
	u = &b->undo[b->nundo];
	memset(u, 0, sizeof(*u));
	if (!s) {
		/* only the names, to find the slot the batch creates */
		size_t ls = strlen(server) + 1, lc = strlen(channel) + 1;
		if (!(u->copy.blob = malloc(ls + lc)))
			return -1;
		memcpy(u->copy.blob, server, ls);
		memcpy(u->copy.blob + ls, channel, lc);
		u->copy.slen = (uint32_t)(ls + lc);
		b->nundo++;
		return 0;
	}
	u->existed = 1;
	u->copy = *s;
	u->copy.next = NULL;
	u->copy.held = NULL; /* the slot's own: an undo keeps it */
	if (!(u->copy.blob = malloc(blob_size(s))))
		return -1;
	memcpy(u->copy.blob, s->blob, blob_size(s));
	b->nundo++;
	return 0;
}

/* Removes the channel's slot from the hash and frees it. */
static void drop_slot(struct bot *b, const char *server, const char *channel)
{
	struct slot **p;

	if (!b->nbuckets)
		return;
	p = &b->buckets[channel_hash(server, channel) & (b->nbuckets - 1)];
	for (; *p; p = &(*p)->next) {
		struct slot *s = *p;
		if (strcmp(slot_channel(s), channel) == 0 && strcmp(slot_server(s), server) == 0) {
			*p = s->next;
			free(s->blob);
			free(s->held);
			free(s);
			b->nslots--;
			return;
		}
	}
}

/* Puts back, newest first, every table the batch changed, and forgets
 * the batch's copies. */
static void undo_batch(struct bot *b)
{
	for (int i = b->nundo - 1; i >= 0; i--) {
		struct undo *u = &b->undo[i];
		struct slot *s = find_slot(b, slot_server(&u->copy), slot_channel(&u->copy));
		if (!u->existed) {
			drop_slot(b, slot_server(&u->copy), slot_channel(&u->copy));
			free(u->copy.blob);
			continue;
		}
		if (!s) { /* cannot happen: slots are only dropped here */
			free(u->copy.blob);
			continue;
		}
		free(s->blob);
		u->copy.next = s->next;
		u->copy.held = s->held;
		*s = u->copy;
	}
	b->nundo = 0;
	b->earliest = -1;
}

/* Forgets the batch's copies after its commit. */
static void forget_batch(struct bot *b)
{
	for (int i = 0; i < b->nundo; i++)
		free(b->undo[i].copy.blob);
	b->nundo = 0;
}

/* Puts a copy of t in the bot, replacing the channel's previous table.
 * Returns 0, or -1 when memory is short (nothing changed). */
static int keep_table(struct bot *b, const struct table *t)
{
	struct slot *s = find_slot(b, t->row.server, t->row.channel);
	size_t state_size = t->game && t->row.state != STORE_LOBBY ? t->game->ops->state_size : 0;
	uint32_t slen = row_strings_size(&t->row), mlen = members_size(t->m, t->nm);
	unsigned char *blob = malloc(slen + mlen + state_size);
	int64_t before = 0;

	if (!blob)
		return -1;
	if (!s) {
		if ((b->nslots + 1 > b->nbuckets && grow(b)) || !(s = calloc(1, sizeof(*s)))) {
			free(blob);
			return -1;
		}
		size_t k = channel_hash(t->row.server, t->row.channel) & (b->nbuckets - 1);
		s->next = b->buckets[k];
		b->buckets[k] = s;
		b->nslots++;
	} else {
		before = slot_wake(b, s);
	}
	free(s->blob);
	s->blob = blob;
	s->game = t->game;
	s->seq = t->seq;
	s->last_at = t->last_at;
	s->remind = t->row.state == STORE_PLAYING ? t->remind : 0;
	s->pending = t->row.state == STORE_PLAYING ? t->pending : 0;
	s->nm = t->nm;
	s->slen = slen;
	s->mlen = mlen;
	s->has_state = state_size > 0;
	pack_row(&t->row, s);
	pack_members(t->m, t->nm, blob + slen);
	if (state_size)
		memcpy(blob + slen + mlen, t->state, state_size);
	deadline_moved(b, before, slot_wake(b, s));
	return 0;
}

static int member_index(const struct table *t, const char *user)
{
	for (int i = 0; i < t->nm; i++)
		if (t->m[i].player[0] && strcmp(t->m[i].player, user) == 0)
			return i;
	return -1;
}

static int humans(const struct table *t)
{
	int n = 0;

	for (int i = 0; i < t->nm; i++)
		n += t->m[i].player[0] != '\0';
	return n;
}

static struct play_ctx ctx_of(const struct table *t, int lang)
{
	return (struct play_ctx){ .row = &t->row, .m = t->m, .nm = t->nm, .lang = lang };
}

static int table_lang(const struct table *t)
{
	return i18n_lang(t->row.lang);
}

/* ---- the work of one command ---- */

static void work_init(struct work *w, struct bot *b, const struct table *t, int64_t now)
{
	memset(w, 0, sizeof(*w));
	w->b = b;
	if (t) {
		w->t = *t;
		w->row0 = t->row;
		w->nm0 = t->nm;
		memcpy(w->m0, t->m, (size_t)t->nm * sizeof(t->m[0]));
	}
	w->now = now;
	text_init(&w->narr, w->narr_buf, sizeof(w->narr_buf));
}

static void work_free(struct work *w)
{
	free(w->ev);
	msg_free(&w->out);
}

/* Appends an event to the pending log. */
static void log_event(struct work *w, const char *kind, int actor, int value, const char *detail)
{
	struct store_event *e;

	if (w->nev == w->capev) {
		int cap = w->capev ? w->capev * 2 : 16;
		struct store_event *bigger = realloc(w->ev, (size_t)cap * sizeof(*bigger));
		if (!bigger) {
			w->oom = 1;
			return;
		}
		w->ev = bigger;
		w->capev = cap;
	}
	e = &w->ev[w->nev++];
	memset(e, 0, sizeof(*e));
	e->seq = ++w->t.seq;
	e->at = w->now;
	w->t.last_at = w->now;
	text_copy(e->kind, sizeof(e->kind), kind);
	e->actor = actor;
	e->value = value;
	text_copy(e->detail, sizeof(e->detail), detail ? detail : "");
}

/* Appends a reply to the pending output. */
static struct msg *reply(struct work *w, int audience, const char *user, int kind)
{
	struct msg *m = msg_add(&w->out, audience, user, kind);

	if (!m) {
		w->oom = 1;
		return NULL;
	}
	m->game = w->t.row.id;
	text_copy(m->channel, sizeof(m->channel), w->t.row.channel);
	return m;
}

static void flush_narration(struct work *w);

/* Adds one line of narration as it is, starting a new message when this
 * one is full. */
static void add_line(struct work *w, const char *line)
{
	if (w->narr.len + strlen(line) + 2 >= sizeof(w->narr_buf))
		flush_narration(w);
	text_add(&w->narr, line);
	text_add(&w->narr, "\n");
}

/* Adds text's lines ("\n" after each) to the narration; text is changed. */
static void add_lines(struct work *w, char *text)
{
	for (char *line = text, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl) {
			add_line(w, line);
			break;
		}
		*nl = '\0';
		add_line(w, line);
	}
}

/* Tells the events gathered for the game's fold (play.h: fold) as lines of
 * the narration; none are left gathered. */
static void flush_events(struct work *w)
{
	struct play_ctx c;
	struct text tx;
	char *lines;
	int n = w->nfold;

	if (n == 0)
		return;
	w->nfold = 0;
	lines = malloc(WORK_FOLD_TEXT);
	if (!lines) {
		w->oom = 1;
		return;
	}
	c = ctx_of(&w->t, table_lang(&w->t));
	text_init(&tx, lines, WORK_FOLD_TEXT);
	w->t.game->fold(w->t.state, w->fold, n, &c, &tx);
	add_lines(w, lines);
	free(lines);
}

/* Moves the narration gathered so far into a public event message. */
static void flush_narration(struct work *w)
{
	struct msg *m;

	flush_events(w);
	if (w->narr.len == 0)
		return;
	m = reply(w, MSG_CHANNEL, NULL, MSG_EVENT);
	if (m)
		text_copy(m->text, sizeof(m->text), w->narr_buf);
	text_init(&w->narr, w->narr_buf, sizeof(w->narr_buf));
}

/* Adds one line of narration after the events still to be told. */
static void narrate_line(struct work *w, const char *line)
{
	flush_events(w);
	add_line(w, line);
}

static int computer_controls(const struct table *t, int member)
{
	return t->m[member].policy[0] || t->m[member].autopilot;
}

/* The member whom the table waits for and may call: a human playing their
 * own seat, whose roll or own decision (play.h: calls) is awaited; -1 for
 * none (a lobby, a game over, a computer seat, a reaction window). */
static int called_member(const struct table *t)
{
	struct game_step step;
	int member;

	if (t->row.state != STORE_PLAYING)
		return -1;
	t->game->ops->step(t->state, &step);
	if (step.node == GAME_NODE_OVER ||
	    (step.node == GAME_NODE_CHANCE && t->game->auto_roll(t->state, &step)))
		return -1;
	member = t->game->member_of(t->state, step.seat);
	if (member < 0 || member >= t->nm || !t->m[member].player[0] ||
	    computer_controls(t, member))
		return -1;
	if (step.node == GAME_NODE_CHOICE && t->game->calls) {
		struct play_ctx c = ctx_of(t, table_lang(t));
		if (!t->game->calls(t->state, &c, &step))
			return -1;
	}
	return member;
}

/* Milliseconds the awaited move of t waits before it times out, for a
 * configured turn timeout base_ms > 0 (play.h: wait_ms). */
static int64_t move_wait(const struct table *t, int64_t base_ms)
{
	struct play_ctx c = ctx_of(t, table_lang(t));
	int64_t ms = t->game->wait_ms ? t->game->wait_ms(t->state, &c, base_ms) : base_ms;

	return ms > 0 ? ms : base_ms;
}

/* Makes table message m call member k of t with the text `id` ({1}: a1). */
static void set_call(struct msg *m, const struct table *t, int k, int id, const char *a1)
{
	struct text tx;

	text_copy(m->call.user, sizeof(m->call.user), t->m[k].player);
	text_copy(m->call.name, sizeof(m->call.name), t->m[k].name);
	text_init(&tx, m->call.text, sizeof(m->call.text));
	i18n_add(&tx, table_lang(t), id, a1, NULL);
}

/* Appends the public table message (not while computer moves wait for a
 * later pass: only the narration then); while a human's move is awaited, it
 * calls that player unless they turned calls off (/notify off). */
static void show_table(struct work *w)
{
	struct play_ctx c = ctx_of(&w->t, table_lang(&w->t));
	struct msg *m;

	flush_narration(w);
	if (w->t.pending)
		return; /* shown once the computer moves left for later passes are made */
	m = reply(w, MSG_CHANNEL, NULL, MSG_TABLE);
	if (!m)
		return;
	if (w->t.row.state == STORE_LOBBY) {
		int lang = c.lang, min, max;
		struct text tx;
		char count[16], game[128];

		w->t.game->members(&w->t.row, &min, &max);
		text_copy(m->title, sizeof(m->title), i18n_get(lang, S_LOBBY_TITLE));
		text_init(&tx, game, sizeof(game));
		if (w->t.game->lobby_name)
			w->t.game->lobby_name(&w->t.row, lang, &tx);
		else
			text_add(&tx, w->t.game->ops->name);
		text_init(&tx, m->text, sizeof(m->text));
		snprintf(count, sizeof(count), "%d", w->t.nm);
		i18n_add(&tx, lang, S_LOBBY_TEXT, game, count, NULL);
		for (int i = 0; i < w->t.nm; i++) {
			text_add(&tx, "\n• ");
			text_add(&tx, w->t.m[i].name);
			if (w->t.m[i].policy[0])
				i18n_add(&tx, lang, S_COMPUTER_TAG, w->t.m[i].policy, NULL);
			if (strcmp(w->t.m[i].player, w->t.row.owner) == 0)
				i18n_add(&tx, lang, S_OWNER_TAG, NULL);
		}
		msg_button(m, w->t.row.id, 0, "join", NULL, i18n_get(lang, S_BUTTON_JOIN),
		           MSG_PRIMARY);
		msg_button(m, w->t.row.id, 0, "addbot", NULL, i18n_get(lang, S_BUTTON_ADDBOT),
		           MSG_SECONDARY);
		msg_button(m, w->t.row.id, 0, "start", NULL, i18n_get(lang, S_BUTTON_START),
		           MSG_PRIMARY);
		msg_button(m, w->t.row.id, 0, "leave", NULL, i18n_get(lang, S_BUTTON_LEAVE),
		           MSG_DANGER);
		return;
	}
	w->t.game->render(w->t.state, &c, m);
	{
		int k = called_member(&w->t);
		if (k >= 0 && store_player_notify(w->b->st, w->t.m[k].player)) {
			/* The call says what the table waits for ("@alice — The
			 * table waits for you to respond: /respond."), else that
			 * it is their move. */
			char awaited[MSG_CALL_TEXT];
			struct text tx;
			set_call(m, &w->t, k, S_CALL, NULL);
			text_init(&tx, awaited, sizeof(awaited));
			text_add(&tx, " \xe2\x80\x94 ");
			if (w->t.game->awaits && w->t.game->awaits(w->t.state, &c, k, &tx))
				text_copy(m->call.text, sizeof(m->call.text), awaited);
		}
	}
	if (w->t.game->picture) {
		unsigned char *png = NULL;
		size_t len = 0;
		char name[MSG_PICTURE_NAME], *alt = malloc(MSG_PICTURE_ALT_MAX + 1);
		snprintf(name, sizeof(name), "map-%lld-%d.png", (long long)w->t.row.id,
		         w->t.row.moves);
		if (alt && w->t.game->picture(w->t.state, &c, &png, &len, alt,
		                              MSG_PICTURE_ALT_MAX + 1) == 0) {
			if (msg_picture_take(&w->out, m, name, &png, len))
				free(png); /* the message goes without its picture */
			else if (alt[0])
				msg_picture_alt(&w->out, m, alt);
		}
		free(alt);
	}
}

/* Narrates events ev[0..n-1], which led to the table's state: at once, or,
 * for a game that folds them, gathered until the narration is flushed or
 * another line is told. */
static void tell(struct work *w, const struct game_event *ev, int n)
{
	struct play_ctx c = ctx_of(&w->t, table_lang(&w->t));
	struct text tx;
	char lines[MSG_TEXT_MAX];

	if (w->t.game->fold) {
		for (int i = 0; i < n; i++) {
			if (w->nfold == WORK_FOLD_EVENTS)
				flush_events(w);
			w->fold[w->nfold++] = ev[i];
		}
		return;
	}
	text_init(&tx, lines, sizeof(lines));
	w->t.game->narrate(w->t.state, ev, n, &c, &tx);
	flush_events(w);
	add_lines(w, lines);
}

/* Applies one engine value for member `actor` (-1: nobody), logs and
 * narrates it; the events it made go to evout when not NULL. Returns
 * GAME_OK, or the engine's error with nothing changed. */
static int apply_ev(struct work *w, int actor, int value, const char *kind,
                    struct game_events *evout)
{
	struct game_events local, *ev = evout ? evout : &local;
	int rc;

	ev->n = 0;
	rc = w->t.game->ops->apply(w->t.state, value, ev);
	if (rc != GAME_OK)
		return rc;
	w->t.row.moves++;
	log_event(w, kind, actor, value, NULL);
	tell(w, ev->ev, ev->n);
	return GAME_OK;
}

static int apply(struct work *w, int actor, int value, const char *kind)
{
	return apply_ev(w, actor, value, kind, NULL);
}

/* Rolls the awaited die from the game's own stream. */
static void roll(struct work *w, int actor, const struct game_step *step)
{
	struct rng r;
	int value;

	memcpy(r.s, w->t.row.rng, sizeof(r.s));
	value = (int)rng_below(&r, (uint32_t)step->count);
	memcpy(w->t.row.rng, r.s, sizeof(r.s));
	apply(w, actor, value, "roll");
}

/* Lets a policy choose for the member controlling step->seat. */
static void choose(struct work *w, int member, const struct game_step *step, const char *policy)
{
	const struct game_policy *p = game_policy_find(w->t.game->ops, policy);
	struct rng r;
	int value;

	if (!p)
		p = &w->t.game->ops->policies[0];
	memcpy(r.s, w->t.row.rng, sizeof(r.s));
	value = p->choose(w->t.state, step, &r);
	memcpy(w->t.row.rng, r.s, sizeof(r.s));
	apply(w, member, value, "choice");
}

static const char *policy_of(const struct table *t, int member)
{
	return t->m[member].policy[0] ? t->m[member].policy : t->game->policy;
}

/* Closes w's table without a result (kept aborted, unrated, no deadline)
 * and logs why: an event of `kind` by member `actor` (-1: nobody). */
static void close_unrated(struct work *w, const char *kind, int actor, const char *detail)
{
	w->t.row.state = STORE_ABORTED;
	w->t.row.finished_at = w->now;
	w->t.row.deadline = 0;
	log_event(w, kind, actor, -1, detail);
}

/* Ends a finished game: result, places, the end event. A game that
 * stopped without an ending (play.h: unfinished) is kept aborted instead,
 * with no places. */
static void finish(struct work *w)
{
	struct game_result r;
	int winner_member;

	w->t.game->ops->result(w->t.state, &r);
	if (w->t.game->unfinished && w->t.game->unfinished(w->t.state)) {
		close_unrated(w, "end", -1, "unfinished");
		return;
	}
	winner_member = r.winner >= 0 ? w->t.game->member_of(w->t.state, r.winner) : -1;
	w->t.row.state = STORE_FINISHED;
	w->t.row.finished_at = w->now;
	w->t.row.winner = r.winner;
	w->t.row.deadline = 0;
	for (int i = 0; i < w->t.nm; i++) {
		w->t.m[i].place = i == winner_member ? 0 : 1;
		w->t.m[i].cthulhu = r.winner < 0;
	}
	if (w->t.game->winners) {
		/* Several may win (a shared win): each wins, nobody lost to
		 * Cthulhu; the row's winner stays the engine's (-1 when shared). */
		unsigned mask = w->t.game->winners(w->t.state);
		int seats = w->t.game->ops->seats(w->t.state);
		for (int i = 0; i < w->t.nm; i++) {
			w->t.m[i].place = 1;
			w->t.m[i].cthulhu = mask == 0;
		}
		for (int s = 0; s < seats; s++) {
			int k = w->t.game->member_of(w->t.state, s);
			if (mask >> s & 1 && k >= 0 && k < w->t.nm)
				w->t.m[k].place = 0;
		}
	}
	log_event(w, "end", winner_member, r.winner, NULL);
}

/* Plays computer seats, automatic rolls and the decisions the table
 * settles (play.h: settle) until a human must act or the game ends; then
 * sets the deadline of the awaited move (with timeouts off, the game's idle
 * limit, if it has one). */
/* 1 when w has applied the moves one pass may (cfg.moves_per_pass): the
 * next automatic move waits for bot_tick, with no deadline meanwhile. */
static int pass_spent(struct work *w)
{
	int per = w->b->cfg.moves_per_pass;

	if (per <= 0 || w->t.row.moves - w->row0.moves < per)
		return 0;
	w->t.pending = 1;
	w->t.row.deadline = 0;
	return 1;
}

static void advance(struct work *w)
{
	struct game_step step;

	w->t.remind = 0;
	w->t.pending = 0;
	for (int guard = 0; guard < 100000 && !w->oom; guard++) {
		int member;

		w->t.game->ops->step(w->t.state, &step);
		if (step.node == GAME_NODE_OVER) {
			finish(w);
			return;
		}
		member = w->t.game->member_of(w->t.state, step.seat);
		if (step.node == GAME_NODE_CHANCE) {
			if (!w->t.game->auto_roll(w->t.state, &step) &&
			    !computer_controls(&w->t, member))
				break;
			if (pass_spent(w))
				return;
			roll(w, member, &step);
		} else {
			struct play_ctx c = ctx_of(&w->t, table_lang(&w->t));
			int value;
			if (w->t.game->settle && w->t.game->settle(w->t.state, &c, &step, &value)) {
				if (pass_spent(w))
					return;
				if (apply(w, member, value, "choice") != GAME_OK)
					w->oom = 1; /* a game's own error: nothing is kept */
				continue;
			}
			if (!computer_controls(&w->t, member))
				break;
			if (pass_spent(w))
				return;
			choose(w, member, &step, policy_of(&w->t, member));
		}
	}
	w->t.row.deadline = 0;
	if (w->b->cfg.turn_timeout_ms <= 0 && w->t.game->idle_ms > 0)
		w->t.row.deadline = w->now + w->t.game->idle_ms; /* closed if nobody moves */
	if (w->b->cfg.turn_timeout_ms > 0) {
		int64_t ms = move_wait(&w->t, w->b->cfg.turn_timeout_ms);
		w->t.row.deadline = w->now + ms;
		/* The called player is reminded when a quarter of the wait is left. */
		w->t.remind = called_member(&w->t) >= 0 ? w->t.row.deadline - ms / 4 : 0;
	}
}

/* Goes on with member who's command `more` after its value made the
 * events *ev, while the game's follow hook says it goes on (a walk, step
 * by step, each step a move of its own in the log); the automatic part
 * after each step (a fight) belongs to it. */
static void go_on(struct work *w, int who, struct cmd *more, struct game_events *ev)
{
	struct play_ctx c = ctx_of(&w->t, table_lang(&w->t));
	int value;

	if (!w->t.game->follow)
		return;
	for (int guard = 0; guard < 1000 && !w->oom; guard++) {
		advance(w);
		if (w->t.row.state != STORE_PLAYING || w->t.pending ||
		    !w->t.game->follow(w->t.state, &c, who, more, ev->ev, ev->n, &value,
		                       &w->t.row.note) ||
		    apply_ev(w, who, value, "choice", ev) != GAME_OK)
			break;
	}
}

/* 1 when row b differs from a at most in what store_game_progress writes. */
static int progress_only(const struct store_game *a, const struct store_game *b)
{
	return a->id == b->id && strcmp(a->server, b->server) == 0 &&
	       strcmp(a->channel, b->channel) == 0 && strcmp(a->game, b->game) == 0 &&
	       a->per_player == b->per_player && strcmp(a->lang, b->lang) == 0 &&
	       strcmp(a->owner, b->owner) == 0 && a->state == b->state && a->seed == b->seed &&
	       a->first == b->first && a->winner == b->winner && a->created_at == b->created_at &&
	       a->started_at == b->started_at && a->finished_at == b->finished_at &&
	       a->series_of == b->series_of && a->revision == b->revision;
}

/* Writes the pending work in one transaction. Returns 0, or -1 (rolled
 * back, nothing written). */
static int save(struct work *w)
{
	struct store *st = w->b->st;

	if (w->oom)
		return -1;
	if (w->b->batch) {
		/* One transaction for the batch, a mark for this command. */
		if (!store_in_transaction(st) && store_begin(st))
			return -1;
		if (store_mark(st))
			return -1;
	} else if (store_begin(st)) {
		return -1;
	}
	if (w->b->cfg.shards > 0) {
		int shard = store_shard_of(w->t.row.server, w->b->cfg.shards);
		int64_t epoch = w->b->epochs[shard];
		if (!epoch || store_shard_fence(st, w->b->cfg.shards, shard, epoch) != 1) {
			w->b->fenced_out++;
			goto fail;
		}
	}
	if (w->created) {
		int64_t expected = w->t.row.id;
		if (store_game_create(st, &w->t.row) || w->t.row.id != expected)
			goto fail;
	} else if (progress_only(&w->row0, &w->t.row) ? store_game_progress(st, &w->t.row)
	                                              : store_game_update(st, &w->t.row)) {
		goto fail;
	}
	if ((w->created || w->t.nm != w->nm0 ||
	     memcmp(w->t.m, w->m0, (size_t)w->t.nm * sizeof(w->t.m[0])) != 0) &&
	    store_members_put(st, w->t.row.id, w->t.m, w->t.nm))
		goto fail;
	for (int i = 0; i < w->nev; i++)
		if (store_event_append(st, w->t.row.id, &w->ev[i]))
			goto fail;
	/* The game's end and its ratings are written together or not at all. */
	if (w->t.row.state == STORE_FINISHED && (w->created || w->row0.state != STORE_FINISHED) &&
	    records_game_end(st, &w->t.row, w->t.m, w->t.nm))
		goto fail;
	if (w->b->batch) {
		if (store_mark_keep(st))
			goto fail;
		return 0;
	}
	if (store_commit(st))
		goto fail;
	return 0;
fail:
	if (w->b->batch)
		store_mark_undo(st);
	else
		store_rollback(st);
	return -1;
}

/* The private reply of a refused command. */
static void refuse(struct msg_list *out, const struct bot_req *req, int lang, int id,
                   const char *a1, const char *a2)
{
	struct msg *m = msg_add(out, MSG_PRIVATE, req->user, MSG_ERROR);
	struct text tx;

	if (!m)
		return;
	text_init(&tx, m->text, sizeof(m->text));
	i18n_add(&tx, lang, id, a1, a2, NULL);
}

#define HELD_MAX (1 << 16) /* bytes of narration held for a table, at most */

/* Appends text to out as narration of game `game` in `channel`: one channel
 * message per MSG_TEXT_MAX - 1 bytes at most, cut at line ends. */
static void tell_held(struct msg_list *out, const char *channel, int64_t game, const char *text)
{
	while (*text) {
		size_t n = strlen(text);
		struct msg *m;
		if (n > MSG_TEXT_MAX - 1) {
			n = MSG_TEXT_MAX - 1;
			while (n > 1 && text[n - 1] != '\n')
				n--;
		}
		m = msg_add(out, MSG_CHANNEL, NULL, MSG_EVENT);
		if (!m)
			return;
		text_copy(m->channel, sizeof(m->channel), channel);
		m->game = game;
		memcpy(m->text, text, n);
		m->text[n] = '\0';
		text += n;
	}
}

/* Adds narration text to what s holds while computer moves are pending,
 * telling what it held at once (to out) when HELD_MAX would be passed or
 * memory is short. */
static void hold(struct slot *s, struct msg_list *out, const char *text)
{
	size_t len = s->held ? strlen(s->held) : 0, n = strlen(text);
	char *more;

	if (len + n + 1 > HELD_MAX && s->held) {
		tell_held(out, slot_channel(s), s->id, s->held);
		s->held[0] = '\0';
		len = 0;
	}
	if (!(more = realloc(s->held, len + n + 1))) {
		tell_held(out, slot_channel(s), s->id, text);
		return;
	}
	memcpy(more + len, text, n + 1);
	s->held = more;
}

/* Writes w and keeps its table; then appends its messages to out (after
 * what the table held, when its stretch of computer moves is over), or, in
 * a later pass while computer moves are still pending, holds its narration
 * in the table's slot. On failure, a refusal for req (when given) and
 * nothing kept. */
static void commit(struct work *w, const struct bot_req *req, int lang, struct msg_list *out)
{
	struct slot *s;

	flush_narration(w);
	if (remember(w->b, w->t.row.server, w->t.row.channel)) {
		if (req)
			refuse(out, req, lang, S_ERR_MEMORY, NULL, NULL);
		return;
	}
	if (save(w)) {
		w->b->store_errors++;
		if (req)
			refuse(out, req, lang, S_ERR_STORAGE, NULL, NULL);
		return;
	}
	if (keep_table(w->b, &w->t)) {
		/* The move is stored: it resumes at the next start. */
		if (req)
			refuse(out, req, lang, S_ERR_MEMORY, NULL, NULL);
		return;
	}
	s = find_slot(w->b, w->t.row.server, w->t.row.channel);
	if (s && s->held && !s->pending) {
		/* the stretch is over: what it held is told first */
		tell_held(out, w->t.row.channel, w->t.row.id, s->held);
		free(s->held);
		s->held = NULL;
	}
	/* Copies: the pictures go with them, w->out's own are freed with it. */
	for (int i = 0; i < w->out.n; i++) {
		const struct msg *m = &w->out.m[i];
		if (w->holding && s && s->pending && m->audience == MSG_CHANNEL &&
		    m->kind == MSG_EVENT)
			hold(s, out, m->text);
		else
			msg_add_copy(out, m);
	}
}

/* ---- commands ---- */

/* One command being handled. */
struct call {
	struct bot *b;
	const struct bot_req *req;
	int64_t now;
	int lang;        /* of private replies */
	struct table *t; /* the channel's table, or NULL */
	struct msg_list *out;
};

static void deny(struct call *c, int id, const char *a1, const char *a2)
{
	refuse(c->out, c->req, c->lang, id, a1, a2);
}

/* A private informational reply; returns its text builder's message. */
static struct msg *inform(struct call *c, struct text *tx)
{
	struct msg *m = msg_add(c->out, MSG_PRIVATE, c->req->user, MSG_INFO);

	if (m)
		text_init(tx, m->text, sizeof(m->text));
	return m;
}

/* The language to answer `req` in privately: the player's choice, else the
 * platform's locale, else the table's, else the default. */
static int user_lang(struct bot *b, const struct bot_req *req, const struct table *t)
{
	char lang[8] = "";

	if (store_player_get(b->st, req->user, NULL, lang) == 0 && lang[0])
		return i18n_lang(lang);
	if (req->locale && req->locale[0])
		return i18n_lang(req->locale);
	return t ? table_lang(t) : i18n_lang(b->lang);
}

static void new_member(struct store_member *m, const char *player, const char *name,
                       const char *policy)
{
	memset(m, 0, sizeof(*m));
	text_copy(m->player, sizeof(m->player), player);
	text_copy(m->name, sizeof(m->name), name);
	text_copy(m->policy, sizeof(m->policy), policy);
	m->place = -1;
}

/* Starts the work of a new table in the requester's channel. */
static void new_table(struct call *c, struct work *w, const struct play_game *game)
{
	struct rng r;
	int per_player = w->t.row.per_player;
	char lang[sizeof(w->t.row.lang)];

	memcpy(lang, w->t.row.lang, sizeof(lang));
	memset(&w->t.row, 0, sizeof(w->t.row));
	w->t.row.per_player = per_player;
	if (game->stamp)
		game->stamp(&w->t.row);
	memcpy(w->t.row.lang, lang, sizeof(lang));
	w->created = 1;
	w->t.game = game;
	text_copy(w->t.row.server, sizeof(w->t.row.server), c->req->server);
	text_copy(w->t.row.channel, sizeof(w->t.row.channel), c->req->channel);
	text_copy(w->t.row.game, sizeof(w->t.row.game), game->ops->name);
	text_copy(w->t.row.owner, sizeof(w->t.row.owner), c->req->user);
	w->t.row.state = STORE_LOBBY;
	w->t.row.first = -1;
	w->t.row.winner = -1;
	w->t.row.created_at = c->now;
	/* The id the store will give it (one writer), known now so that the
	 * buttons of its first message carry it; save() checks it. */
	c->b->games_made = store_games_made(c->b->st);
	if (c->b->games_made < 0)
		w->oom = 1;
	c->b->games_made++;
	w->t.row.id = c->b->games_made;
	/* The seed of game g is a function of the bot's seed and g. */
	w->t.row.seed = rng_mix(c->b->cfg.seed ^ rng_mix((uint64_t)c->b->games_made));
	rng_seed(&r, w->t.row.seed);
	memcpy(w->t.row.rng, r.s, sizeof(r.s));
	w->t.seq = 0;
}

static void cmd_open(struct call *c)
{
	const struct play_game *game = play_games[0];
	struct store_game opts;
	struct work w;
	const char *lang = NULL;
	char langbuf[8];

	if (is_open(c->t)) {
		deny(c, S_ERR_TABLE_EXISTS, NULL, NULL);
		return;
	}
	memset(&opts, 0, sizeof(opts));
	/* The game first, wherever it is named: the other words are its options. */
	for (int i = 0; i < c->req->cmd.nargs; i++)
		if (play_find(c->req->cmd.args[i]))
			game = play_find(c->req->cmd.args[i]);
	for (int i = 0; i < c->req->cmd.nargs; i++) {
		/* An argument may hold several words (a platform's one text
		 * option for a game's settings). */
		char words[CMD_ARG_MAX], *save = NULL;
		text_copy(words, sizeof(words), c->req->cmd.args[i]);
		for (char *a = strtok_r(words, " ", &save); a; a = strtok_r(NULL, " ", &save)) {
			if (play_find(a))
				continue;
			if (i18n_known(a))
				lang = text_copy(langbuf, sizeof(langbuf), a) ? NULL : langbuf;
			else if (game->option(a, &opts)) {
				deny(c, S_ERR_OPEN_OPTION, a, NULL);
				return;
			}
		}
	}
	work_init(&w, c->b, NULL, c->now);
	new_table(c, &w, game);
	w.t.row.per_player = opts.per_player;
	text_copy(w.t.row.lang, sizeof(w.t.row.lang), lang ? lang : i18n_code(c->lang));
	new_member(&w.t.m[0], c->req->user, c->req->name, "");
	w.t.nm = 1;
	log_event(&w, "open", -1, w.t.row.per_player, game->ops->name);
	log_event(&w, "join", 0, -1, c->req->name);
	show_table(&w);
	commit(&w, c->req, c->lang, c->out);
	work_free(&w);
}

/* Refuses unless the channel has a table in the lobby; returns 1 if so. */
static int need_lobby(struct call *c)
{
	if (!is_open(c->t)) {
		deny(c, S_ERR_NO_TABLE, NULL, NULL);
		return 0;
	}
	if (c->t->row.state != STORE_LOBBY) {
		deny(c, S_ERR_ALREADY_STARTED, NULL, NULL);
		return 0;
	}
	return 1;
}

static int is_owner(const struct call *c)
{
	return strcmp(c->t->row.owner, c->req->user) == 0;
}

static int need_owner(struct call *c)
{
	if (!is_owner(c)) {
		deny(c, S_ERR_OWNER_ONLY, cmd_name(c->req->cmd.kind), NULL);
		return 0;
	}
	return 1;
}

static int room_for_one_more(struct call *c)
{
	int min, max;

	c->t->game->members(&c->t->row, &min, &max);
	if (c->t->nm >= max) {
		char n[16];
		snprintf(n, sizeof(n), "%d", max);
		deny(c, S_ERR_TABLE_FULL, n, NULL);
		return 0;
	}
	return 1;
}

static void cmd_join(struct call *c)
{
	struct work w;

	if (!need_lobby(c))
		return;
	if (member_index(c->t, c->req->user) >= 0) {
		deny(c, S_ERR_ALREADY_JOINED, NULL, NULL);
		return;
	}
	for (int i = 0; i < c->t->nm; i++) {
		/* a human may not pass for a computer player */
		if (c->t->m[i].policy[0] && text_name_is(c->t->m[i].name, c->req->name)) {
			deny(c, S_ERR_NAME_TAKEN, c->req->name, NULL);
			return;
		}
	}
	if (!room_for_one_more(c))
		return;
	work_init(&w, c->b, c->t, c->now);
	new_member(&w.t.m[w.t.nm], c->req->user, c->req->name, "");
	log_event(&w, "join", w.t.nm, -1, c->req->name);
	w.t.nm++;
	show_table(&w);
	commit(&w, c->req, c->lang, c->out);
	work_free(&w);
}

/* Removes member k from a lobby (the rest move up). */
static void drop_member(struct table *t, int k)
{
	memmove(&t->m[k], &t->m[k + 1], (size_t)(t->nm - k - 1) * sizeof(t->m[0]));
	t->nm--;
}

/* Narrates a line in the table's language with up to two arguments. */
static void say(struct work *w, int id, const char *a1, const char *a2)
{
	char line[512];
	struct text tx;

	text_init(&tx, line, sizeof(line));
	i18n_add(&tx, table_lang(&w->t), id, a1, a2, NULL);
	narrate_line(w, line);
}

/* Takes every seat of member k still in play out of w's game for good
 * (play.h: leave), each a move of the log ("leave", value = seat), told
 * to the table, then plays on. Returns the seats taken out; 0 (nothing
 * changed) when none was in play. */
static int take_out(struct work *w, int k, const char *who)
{
	int seats = w->t.game->ops->seats(w->t.state), out = 0;

	for (int s = 0; s < seats; s++) {
		struct game_events ev;
		if (w->t.game->member_of(w->t.state, s) != k)
			continue;
		ev.n = 0;
		if (w->t.game->leave(w->t.state, s, &ev) != GAME_OK)
			continue; /* already out */
		if (!out++)
			say(w, S_LEFT_GAME, w->t.m[k].name, NULL);
		w->t.row.moves++;
		log_event(w, "leave", k, s, who);
		tell(w, ev.ev, ev.n);
	}
	if (out)
		advance(w);
	return out;
}

static void cmd_leave(struct call *c)
{
	struct work w;
	int k;

	if (!is_open(c->t)) {
		deny(c, S_ERR_NO_TABLE, NULL, NULL);
		return;
	}
	k = member_index(c->t, c->req->user);
	if (k < 0) {
		deny(c, S_ERR_NOT_MEMBER, NULL, NULL);
		return;
	}
	work_init(&w, c->b, c->t, c->now);
	if (w.t.row.state == STORE_LOBBY) {
		log_event(&w, "leave", k, -1, c->req->name);
		say(&w, S_LEFT, w.t.m[k].name, NULL);
		drop_member(&w.t, k);
		if (humans(&w.t) == 0) {
			close_unrated(&w, "abort", -1, "empty");
			say(&w, S_LOBBY_CLOSED, NULL, NULL);
		} else if (strcmp(w.t.row.owner, c->req->user) == 0) {
			for (int i = 0; i < w.t.nm; i++) {
				if (w.t.m[i].player[0]) {
					text_copy(w.t.row.owner, sizeof(w.t.row.owner),
					          w.t.m[i].player);
					say(&w, S_NEW_OWNER, w.t.m[i].name, NULL);
					break;
				}
			}
		}
	} else if (w.t.game->leave) {
		if (!take_out(&w, k, c->req->name)) {
			deny(c, S_ERR_ALREADY_OUT, c->t->m[k].name, NULL);
			work_free(&w);
			return;
		}
	} else {
		/* Playing: the seat is played by the computer to the end; the
		 * player can take it back by acting again. */
		w.t.m[k].autopilot = 1;
		log_event(&w, "leave", k, -1, c->req->name);
		say(&w, S_RESIGNED, w.t.m[k].name, NULL);
		advance(&w);
	}
	if (w.t.row.state != STORE_ABORTED)
		show_table(&w);
	commit(&w, c->req, c->lang, c->out);
	work_free(&w);
}

static int find_member(const struct table *t, const char *who);

static void cmd_addbot(struct call *c)
{
	const struct game_policy *p;
	const char *policy;
	char name[STORE_NAME_MAX];
	struct work w;
	int same = 1;

	if (!need_lobby(c) || !need_owner(c) || !room_for_one_more(c))
		return;
	policy = c->req->cmd.nargs ? c->req->cmd.args[0] : c->t->game->policy;
	p = game_policy_find(c->t->game->ops, policy);
	if (!p) {
		char list[256];
		struct text tx;
		text_init(&tx, list, sizeof(list));
		for (const struct game_policy *q = c->t->game->ops->policies; q->name; q++) {
			if (q != c->t->game->ops->policies)
				i18n_add(&tx, c->lang, S_OR, NULL);
			text_add(&tx, q->name);
		}
		deny(c, S_ERR_POLICY, policy, list);
		return;
	}
	for (int i = 0; i < c->t->nm; i++)
		same += strcmp(c->t->m[i].policy, p->name) == 0;
	/* the next number whose name no member has (a human may have joined
	 * under it) */
	for (int tries = 0; tries <= STORE_MEMBERS_MAX; tries++, same++) {
		if (c->t->game->bot_name)
			c->t->game->bot_name(&c->t->row, p->name, same, name, sizeof(name));
		else
			snprintf(name, sizeof(name), "%s-bot-%d", p->name, same);
		if (find_member(c->t, name) < 0)
			break;
	}
	work_init(&w, c->b, c->t, c->now);
	new_member(&w.t.m[w.t.nm], "", name, p->name);
	log_event(&w, "addbot", w.t.nm, -1, p->name);
	w.t.nm++;
	show_table(&w);
	commit(&w, c->req, c->lang, c->out);
	work_free(&w);
}

/* Finds a member by player id or name (case-insensitive); -1 if none. */
static int find_member(const struct table *t, const char *who)
{
	for (int i = 0; i < t->nm; i++)
		if ((t->m[i].player[0] && strcmp(t->m[i].player, who) == 0) ||
		    text_name_is(t->m[i].name, who))
			return i;
	return -1;
}

/* The member /remove names, or -1 after refusing (usage, no such member). */
static int member_to_remove(struct call *c)
{
	int k;

	if (c->req->cmd.nargs != 1) {
		deny(c, S_ERR_USAGE, "/remove <player>", NULL);
		return -1;
	}
	k = find_member(c->t, c->req->cmd.args[0]);
	if (k < 0)
		deny(c, S_ERR_NO_SUCH_MEMBER, c->req->cmd.args[0], NULL);
	return k;
}

/* C17: the owner removes a player from a game under way that can lose a
 * seat (play.h: leave); as if the player had left. */
static void remove_playing(struct call *c)
{
	struct work w;
	int k;

	if (!need_owner(c) || (k = member_to_remove(c)) < 0)
		return;
	work_init(&w, c->b, c->t, c->now);
	if (!take_out(&w, k, c->req->name)) {
		deny(c, S_ERR_ALREADY_OUT, c->t->m[k].name, NULL);
		work_free(&w);
		return;
	}
	show_table(&w);
	commit(&w, c->req, c->lang, c->out);
	work_free(&w);
}

static void cmd_remove(struct call *c)
{
	struct work w;
	int k;

	if (c->t && c->t->row.state == STORE_PLAYING && c->t->game->leave) {
		remove_playing(c);
		return;
	}
	if (!need_lobby(c) || !need_owner(c) || (k = member_to_remove(c)) < 0)
		return;
	if (strcmp(c->t->m[k].player, c->t->row.owner) == 0) {
		deny(c, S_ERR_REMOVE_OWNER, NULL, NULL);
		return;
	}
	work_init(&w, c->b, c->t, c->now);
	log_event(&w, "remove", k, -1, w.t.m[k].name);
	say(&w, S_REMOVED, w.t.m[k].name, NULL);
	drop_member(&w.t, k);
	show_table(&w);
	commit(&w, c->req, c->lang, c->out);
	work_free(&w);
}

/* Starts the engine of w's table with `first` casting first (-1: drawn
 * from the game's stream), then plays up to the first human move. */
static void begin_play(struct work *w, int first)
{
	struct game_setup setup;
	char name[STORE_NAME_MAX];
	struct play_ctx c;
	int seats;

	flush_events(w); /* told with the state they led to, before it goes */
	w->t.game->setup(&w->t.row, w->t.nm, &setup);
	setup.first = 0;
	w->t.game->ops->init(w->t.state, &setup);
	seats = w->t.game->ops->seats(w->t.state);
	if (first < 0) {
		struct rng r;
		memcpy(r.s, w->t.row.rng, sizeof(r.s));
		first = (int)rng_below(&r, (uint32_t)seats);
		memcpy(w->t.row.rng, r.s, sizeof(r.s));
	}
	setup.first = first;
	w->t.game->ops->init(w->t.state, &setup);
	w->t.row.first = first;
	w->t.row.state = STORE_PLAYING;
	w->t.row.started_at = w->now;
	w->t.row.moves = 0;
	for (int i = 0; i < w->t.nm; i++) {
		w->t.m[i].strikes = 0;
		w->t.m[i].autopilot = 0;
		w->t.m[i].place = -1;
		w->t.m[i].cthulhu = 0;
	}
	log_event(w, "start", -1, first, NULL);
	c = ctx_of(&w->t, table_lang(&w->t));
	w->t.game->seat_name(w->t.state, &c, first, name, sizeof(name));
	say(w, w->t.game->started, name, NULL);
	for (int i = 0; i < w->t.nm && w->t.game->policy_note; i++) {
		int note =
		    w->t.m[i].policy[0] ? w->t.game->policy_note(w->t.state, w->t.m[i].policy) : 0;
		if (note)
			say(w, note, w->t.m[i].name, NULL);
	}
	advance(w);
	show_table(w);
}

static void cmd_start(struct call *c)
{
	struct work w;
	int min, max, first = -1;

	if (!need_lobby(c) || !need_owner(c))
		return;
	c->t->game->members(&c->t->row, &min, &max);
	if (c->t->nm < min) {
		char n[16];
		snprintf(n, sizeof(n), "%d", min);
		deny(c, S_ERR_TOO_FEW, n, NULL);
		return;
	}
	if (c->req->cmd.nargs > 1) {
		deny(c, S_ERR_USAGE, "/start [player|random]", NULL);
		return;
	}
	if (c->req->cmd.nargs == 1 && strcmp(c->req->cmd.args[0], "random") != 0) {
		first = find_member(c->t, c->req->cmd.args[0]);
		if (first < 0) {
			deny(c, S_ERR_NO_SUCH_MEMBER, c->req->cmd.args[0], NULL);
			return;
		}
		/* Member k sits in seat k (Rival Cults: also owns k + 2, k + 4). */
	}
	work_init(&w, c->b, c->t, c->now);
	begin_play(&w, first);
	commit(&w, c->req, c->lang, c->out);
	work_free(&w);
}

static void cmd_status(struct call *c)
{
	struct work w;
	struct msg *m;

	if (!c->t || c->t->row.state == STORE_ABORTED) {
		deny(c, S_ERR_NO_TABLE, NULL, NULL);
		return;
	}
	/* The table as it stands, privately (nothing is written). */
	work_init(&w, c->b, c->t, c->now);
	show_table(&w);
	if (w.out.n) {
		m = msg_add_copy(c->out, &w.out.m[w.out.n - 1]);
		if (m) {
			m->audience = MSG_PRIVATE;
			text_copy(m->user, sizeof(m->user), c->req->user);
			memset(&m->call, 0, sizeof(m->call)); /* a private view calls nobody */
		}
	}
	work_free(&w);
}

/* The asker's member index at a game under way, or -1 after refusing
 * (no table, not started, not a player). */
static int playing_member(struct call *c)
{
	int who;

	if (!is_open(c->t)) {
		deny(c, S_ERR_NO_TABLE, NULL, NULL);
		return -1;
	}
	if (c->t->row.state != STORE_PLAYING) {
		deny(c, S_ERR_NOT_STARTED, NULL, NULL);
		return -1;
	}
	who = member_index(c->t, c->req->user);
	if (who < 0)
		deny(c, S_ERR_NOT_MEMBER, NULL, NULL);
	return who;
}

/* Privately, the chances of each option of the asker's awaited move;
 * nothing is written. */
static void cmd_hint(struct call *c)
{
	struct play_ctx pc;
	struct text tx;
	struct msg *m;
	char buf[MSG_TEXT_MAX];
	int who, rc;

	who = playing_member(c);
	if (who < 0)
		return;
	if (!c->t->game->hint) {
		deny(c, S_HINT_NONE, NULL, NULL);
		return;
	}
	pc = ctx_of(c->t, c->lang);
	text_init(&tx, buf, sizeof(buf));
	rc = c->t->game->hint(c->t->state, &pc, who, &tx);
	m = msg_add(c->out, MSG_PRIVATE, c->req->user, rc ? MSG_ERROR : MSG_INFO);
	if (m)
		text_copy(m->text, sizeof(m->text), buf);
}

static void cmd_help(struct call *c, int id)
{
	struct text tx;

	if (inform(c, &tx))
		i18n_add(&tx, c->lang, id, NULL);
}

/* The rules of the game named (/rules <game>), else of the table's, else
 * of the default game: each page a private message. */
static void cmd_rules(struct call *c)
{
	const struct play_game *g = c->t ? c->t->game : play_games[0];

	if (c->req->cmd.nargs >= 1 && play_find(c->req->cmd.args[0]))
		g = play_find(c->req->cmd.args[0]);
	cmd_help(c, g->rules);
	for (const int *page = g->rules_more; page && *page; page++)
		cmd_help(c, *page);
}

static void cmd_abort(struct call *c)
{
	struct work w;

	if (!is_open(c->t)) {
		deny(c, S_ERR_NO_TABLE, NULL, NULL);
		return;
	}
	if (!is_owner(c) && !c->req->moderator) {
		deny(c, S_ERR_ABORT_RIGHTS, NULL, NULL);
		return;
	}
	work_init(&w, c->b, c->t, c->now);
	close_unrated(&w, "abort", member_index(c->t, c->req->user), c->req->name);
	say(&w, S_ABORTED, c->req->name, NULL);
	commit(&w, c->req, c->lang, c->out);
	work_free(&w);
}

static void cmd_rematch(struct call *c)
{
	struct game_result r;
	struct work w;
	int first;

	if (is_open(c->t)) {
		deny(c, S_ERR_TABLE_EXISTS, NULL, NULL);
		return;
	}
	if (!c->t || c->t->row.state != STORE_FINISHED) {
		deny(c, S_ERR_NO_FINISHED, NULL, NULL);
		return;
	}
	if (member_index(c->t, c->req->user) < 0 && !c->req->moderator) {
		deny(c, S_ERR_NOT_MEMBER, NULL, NULL);
		return;
	}
	c->t->game->ops->result(c->t->state, &r);
	/* Series play (R2): the previous winner casts first; after a Cthulhu
	 * win the first Caster is drawn as for a new game. */
	first = r.winner >= 0 ? r.winner : -1;
	work_init(&w, c->b, c->t, c->now);
	new_table(c, &w, c->t->game);
	text_copy(w.t.row.owner, sizeof(w.t.row.owner), c->t->row.owner);
	w.t.row.series_of = c->t->row.id;
	log_event(&w, "open", -1, w.t.row.per_player, w.t.game->ops->name);
	for (int i = 0; i < w.t.nm; i++)
		log_event(&w, w.t.m[i].policy[0] ? "addbot" : "join", i, -1,
		          w.t.m[i].policy[0] ? w.t.m[i].policy : w.t.m[i].name);
	say(&w, first < 0 && w.t.game->rematch_drawn ? w.t.game->rematch_drawn : w.t.game->rematch,
	    NULL, NULL);
	begin_play(&w, first);
	commit(&w, c->req, c->lang, c->out);
	work_free(&w);
}

/* A member's own preference at the table (play.h: prefer); 1 when cmd was
 * one (set and written, or refused), 0 when it is a move. */
static int prefer(struct call *c, int who)
{
	struct play_ctx pc = ctx_of(c->t, c->lang);
	char buf[512];
	struct text tx;
	struct work w;
	struct msg *m;
	int prefs = c->t->m[who].prefs, rc, moves;

	text_init(&tx, buf, sizeof(buf));
	rc = c->t->game->prefer(&pc, who, &c->req->cmd, &prefs, &tx);
	if (rc == 0)
		return 0;
	if (rc < 0) {
		if ((m = msg_add(c->out, MSG_PRIVATE, c->req->user, MSG_ERROR)))
			text_copy(m->text, sizeof(m->text), buf);
		return 1;
	}
	if (prefs == c->t->m[who].prefs) { /* as it was: nothing to write */
		if ((m = msg_add(c->out, MSG_PRIVATE, c->req->user, MSG_INFO)))
			text_copy(m->text, sizeof(m->text), buf);
		return 1;
	}
	work_init(&w, c->b, c->t, c->now);
	w.t.m[who].prefs = prefs;
	log_event(&w, "prefs", who, prefs, NULL);
	moves = w.t.row.moves;
	advance(&w); /* what the preference now settles (a window passed) */
	if (w.t.row.moves != moves)
		show_table(&w);
	else {
		/* the awaited move waits as before */
		w.t.row.deadline = c->t->row.deadline;
		w.t.remind = c->t->remind;
	}
	if ((m = reply(&w, MSG_PRIVATE, c->req->user, MSG_INFO)))
		text_copy(m->text, sizeof(m->text), buf);
	commit(&w, c->req, c->lang, c->out);
	work_free(&w);
	return 1;
}

/* A player's game action (curse, eye, respond). */
static void cmd_action(struct call *c)
{
	struct play_ctx pc;
	struct game_step step;
	struct game_events ev;
	struct work w;
	char err[512];
	struct text etx;
	int who, value;

	/* one without a seat may still look (the game's views of who = -1) */
	if (is_open(c->t) && c->t->row.state == STORE_PLAYING &&
	    member_index(c->t, c->req->user) < 0 && c->t->game->view) {
		pc = ctx_of(c->t, c->lang);
		if (c->t->game->view(c->t->state, &pc, -1, &c->req->cmd, c->req->user, c->out))
			return;
	}
	who = playing_member(c);
	if (who < 0)
		return;
	pc = ctx_of(c->t, c->lang);
	if (c->t->game->prefer && prefer(c, who))
		return;
	if (c->t->game->view &&
	    c->t->game->view(c->t->state, &pc, who, &c->req->cmd, c->req->user, c->out))
		return;
	text_init(&etx, err, sizeof(err));
	if (c->t->game->action(c->t->state, &pc, who, &c->req->cmd, &value, &etx)) {
		struct msg *m = msg_add(c->out, MSG_PRIVATE, c->req->user, MSG_ERROR);
		if (m)
			text_copy(m->text, sizeof(m->text), err);
		return;
	}
	work_init(&w, c->b, c->t, c->now);
	w.t.m[who].strikes = 0;
	w.t.game->ops->step(w.t.state, &step);
	if (value == PLAY_ROLL)
		roll(&w, who, &step);
	else if (apply_ev(&w, who, value, "choice", &ev) != GAME_OK) {
		deny(c, S_ERR_ILLEGAL, NULL, NULL);
		work_free(&w);
		return;
	} else {
		struct cmd more = c->req->cmd;
		go_on(&w, who, &more, &ev);
	}
	if (w.t.row.state == STORE_PLAYING)
		advance(&w);
	show_table(&w);
	commit(&w, c->req, c->lang, c->out);
	work_free(&w);
}

static void cmd_language(struct call *c)
{
	struct text tx;

	if (c->req->cmd.nargs != 1 || !i18n_known(c->req->cmd.args[0])) {
		deny(c, S_ERR_LANGUAGE, NULL, NULL);
		return;
	}
	if (store_player_put(c->b->st, c->req->user, c->req->name, c->req->cmd.args[0], c->now)) {
		deny(c, S_ERR_STORAGE, NULL, NULL);
		return;
	}
	c->lang = i18n_lang(c->req->cmd.args[0]);
	if (inform(c, &tx))
		i18n_add(&tx, c->lang, S_LANGUAGE_SET, NULL);
}

/* /notify on|off: whether tables call the player (a mention when their move
 * is awaited, a reminder before it times out); kept with the player. */
static void cmd_notify(struct call *c)
{
	const char *a = c->req->cmd.nargs == 1 ? c->req->cmd.args[0] : "";
	int on = strcmp(a, "on") == 0 || strcmp(a, "aan") == 0    ? 1
	         : strcmp(a, "off") == 0 || strcmp(a, "uit") == 0 ? 0
	                                                          : -1;
	struct text tx;

	if (on < 0) {
		deny(c, S_ERR_NOTIFY, NULL, NULL);
		return;
	}
	if (store_player_notify_put(c->b->st, c->req->user, c->req->name, on, c->now)) {
		deny(c, S_ERR_STORAGE, NULL, NULL);
		return;
	}
	if (inform(c, &tx))
		i18n_add(&tx, c->lang, on ? S_NOTIFY_ON : S_NOTIFY_OFF, NULL);
}

/* What store_game_load hands cmd_log's replay. */
struct log_view {
	const struct play_game *game;
	int lang, page, pages, dropped, rc;
	struct text *out;
};

static int log_loaded(void *ctx, const struct store_loaded *g)
{
	struct log_view *v = ctx;

	v->rc = playlog_page(v->game, g, v->lang, v->page, v->out, &v->pages, &v->dropped);
	return 0;
}

/* /log [page]: the table's narration told again from its stored log,
 * privately, a page at a time (1 the latest). Nothing is written. */
static void cmd_log(struct call *c)
{
	char buf[PLAYLOG_PAGE + 1] = "", num[16], of[16];
	struct text page, tx;
	struct log_view v = { .lang = c->lang, .page = 1, .out = &page };
	const char *a = c->req->cmd.nargs >= 1 ? c->req->cmd.args[0] : NULL;
	struct msg *m;

	if (!c->t) {
		deny(c, S_ERR_NO_TABLE, NULL, NULL);
		return;
	}
	if (a) {
		char *end;
		long n;
		errno = 0;
		n = strtol(a, &end, 10);
		v.page = errno || end == a || *end || n < 1 || n > 1000000 ? -1 : (int)n;
	}
	v.game = c->t->game;
	text_init(&page, buf, sizeof(buf));
	if (c->t->row.state == STORE_LOBBY) {
		v.rc = v.page == 1 ? 0 : -3;
	} else if (store_game_load(c->b->st, c->t->row.id, log_loaded, &v)) {
		deny(c, S_ERR_STORAGE, NULL, NULL);
		return;
	}
	if (v.rc == -3) {
		snprintf(of, sizeof(of), "%d", v.pages);
		deny(c, S_ERR_LOG_PAGE, a ? a : "1", of);
		return;
	}
	if (v.rc == -2) {
		deny(c, S_ERR_MEMORY, NULL, NULL);
		return;
	}
	if (v.rc < 0) {
		deny(c, S_ERR_LOG, NULL, NULL);
		return;
	}
	if (!(m = inform(c, &tx)))
		return;
	m->game = c->t->row.id;
	text_copy(m->channel, sizeof(m->channel), c->t->row.channel);
	if (v.pages == 0) {
		i18n_add(&tx, c->lang, S_LOG_EMPTY, NULL);
		return;
	}
	snprintf(num, sizeof(num), "%d", v.page);
	snprintf(of, sizeof(of), "%d", v.pages);
	text_init(&page, m->title, sizeof(m->title));
	i18n_add(&page, c->lang, S_LOG_TITLE, num, of, NULL);
	text_add(&tx, buf);
	if (v.page < v.pages) {
		snprintf(num, sizeof(num), "%d", v.page + 1);
		text_add(&tx, "\n\n");
		i18n_add(&tx, c->lang, S_LOG_MORE, num, NULL);
	} else if (v.dropped) {
		text_add(&tx, "\n\n");
		i18n_add(&tx, c->lang, S_LOG_DROPPED, NULL);
	}
}

/* A player whose seat the computer plays (after timeouts or /leave) takes
 * it back with any command; the table is told. */
static void take_seat_back(struct call *c)
{
	struct work w;
	int who = member_index(c->t, c->req->user);

	if (who < 0 || !c->t->m[who].autopilot)
		return;
	work_init(&w, c->b, c->t, c->now);
	w.t.m[who].autopilot = 0;
	w.t.m[who].strikes = 0;
	log_event(&w, "back", who, -1, NULL);
	say(&w, S_BACK, w.t.m[who].name, NULL);
	commit(&w, c->req, c->lang, c->out);
	work_free(&w);
	c->t = find_table(c->b, c->req->server, c->req->channel);
}

/* Checks a button's game and move against the table; 1 when current. */
static int button_current(struct call *c)
{
	const struct cmd *cmd = &c->req->cmd;

	if (cmd->game == 0)
		return 1;
	if (cmd->kind == CMD_REMATCH && c->t && cmd->game == c->t->row.id)
		return 1;
	if (!c->t || cmd->game != c->t->row.id || !is_open(c->t)) {
		deny(c, S_ERR_STALE_GAME, NULL, NULL);
		return 0;
	}
	if (cmd->kind == CMD_ACTION && cmd->move != c->t->row.moves) {
		deny(c, S_ERR_STALE_MOVE, NULL, NULL);
		return 0;
	}
	return 1;
}

static int restore_finished(struct bot *b, const char *server, const char *channel);

void bot_handle(struct bot *b, const struct bot_req *req, int64_t now, struct msg_list *out)
{
	struct call c = { .b = b, .req = req, .now = now, .out = out };

	c.t = find_table(b, req->server, req->channel);
	c.lang = user_lang(b, req, c.t);
	if (strlen(req->user) >= STORE_ID_MAX || strlen(req->server) >= STORE_ID_MAX ||
	    strlen(req->channel) >= STORE_ID_MAX || !req->user[0]) {
		deny(&c, S_ERR_IDENTITY, NULL, NULL);
		return;
	}
	if (!c.t &&
	    (req->cmd.kind == CMD_REMATCH || req->cmd.kind == CMD_STATUS || req->cmd.game != 0)) {
		/* The finished table is not kept after a restart (or once dropped):
		 * a rematch, /status or a click on one of its buttons brings it
		 * back from the store. */
		int kept = restore_finished(b, req->server, req->channel);

		if (kept < 0) {
			b->store_errors++;
			deny(&c, S_ERR_STORAGE, NULL, NULL);
			return;
		}
		c.t = find_table(b, req->server, req->channel);
		c.lang = user_lang(b, req, c.t);
		if (kept && c.t && req->cmd.kind != CMD_REMATCH && req->cmd.game == c.t->row.id) {
			/* A click on a table of the game, which ended while the
			 * channel still showed it: the process may have stopped
			 * between the commit of the last move and its announcement,
			 * so the end is shown now, as the channel's table. */
			struct work w;

			work_init(&w, b, c.t, now);
			show_table(&w);
			if (w.out.n)
				msg_add_copy(out, &w.out.m[w.out.n - 1]);
			work_free(&w);
			return;
		}
	}
	if (!button_current(&c))
		return;
	if (c.t && c.t->row.state == STORE_PLAYING && req->cmd.kind != CMD_LEAVE)
		take_seat_back(&c);
	switch (req->cmd.kind) {
	case CMD_OPEN:
		cmd_open(&c);
		break;
	case CMD_JOIN:
		cmd_join(&c);
		break;
	case CMD_LEAVE:
		cmd_leave(&c);
		break;
	case CMD_ADDBOT:
		cmd_addbot(&c);
		break;
	case CMD_REMOVE:
		cmd_remove(&c);
		break;
	case CMD_START:
		cmd_start(&c);
		break;
	case CMD_STATUS:
		cmd_status(&c);
		break;
	case CMD_HINT:
		cmd_hint(&c);
		break;
	case CMD_RULES:
		cmd_rules(&c);
		break;
	case CMD_HELP:
		cmd_help(&c, S_HELP);
		break;
	case CMD_ABORT:
		cmd_abort(&c);
		break;
	case CMD_REMATCH:
		cmd_rematch(&c);
		break;
	case CMD_ACTION:
		cmd_action(&c);
		break;
	case CMD_LEADERBOARD:
	case CMD_STATS: {
		struct text tx;
		if (inform(&c, &tx) && records_reply(b->st, req, now, b->cfg.min_games, c.lang,
		                                     c.t ? c.t->row.game : play_games[0]->ops->name,
		                                     c.t ? c.t->m : NULL, c.t ? c.t->nm : 0, &tx))
			deny(&c, S_ERR_STORAGE, NULL, NULL);
		break;
	}
	case CMD_LANGUAGE:
		cmd_language(&c);
		break;
	case CMD_NOTIFY:
		cmd_notify(&c);
		break;
	case CMD_LOG:
		cmd_log(&c);
		break;
	default:
		deny(&c, S_ERR_UNKNOWN_COMMAND, NULL, NULL);
		break;
	}
}

/* ---- timeouts ---- */

/* Plays the awaited move of t for its idle player; with timeouts off,
 * closes a game idle past its limit (play.h: idle_ms) without a result,
 * or moves its deadline to that limit. */
static void time_out(struct bot *b, struct table *t, int64_t now, struct msg_list *out)
{
	struct game_step step;
	struct play_ctx pc = ctx_of(t, table_lang(t));
	char name[STORE_NAME_MAX];
	struct work w;
	int member;

	work_init(&w, b, t, now);
	w.t.game->ops->step(w.t.state, &step);
	if (step.node == GAME_NODE_OVER) {
		work_free(&w);
		return;
	}
	if (b->cfg.turn_timeout_ms <= 0 && w.t.game->idle_ms > 0) {
		/* Timeouts are off: the deadline is the game's idle limit, counted
		 * from its last event (one set while they were on moves to it). */
		if (now - w.t.last_at < w.t.game->idle_ms) {
			w.t.row.deadline = w.t.last_at + w.t.game->idle_ms;
			commit(&w, NULL, 0, out);
			work_free(&w);
			return;
		}
		close_unrated(&w, "abort", -1, "idle");
		say(&w, S_IDLE_CLOSED, NULL, NULL);
		commit(&w, NULL, 0, out);
		work_free(&w);
		return;
	}
	member = w.t.game->member_of(w.t.state, step.seat);
	w.t.game->seat_name(w.t.state, &pc, step.seat, name, sizeof(name));
	w.t.m[member].strikes++;
	log_event(&w, "timeout", member, w.t.m[member].strikes, NULL);
	say(&w, S_TIMED_OUT, name, NULL);
	if (w.t.m[member].strikes >= b->cfg.strikes && !w.t.m[member].autopilot) {
		w.t.m[member].autopilot = 1;
		log_event(&w, "autopilot", member, -1, NULL);
		say(&w, S_AUTOPILOT, w.t.m[member].name, NULL);
	}
	if (step.node == GAME_NODE_CHANCE)
		roll(&w, member, &step);
	else if (w.t.game->timeout_value) {
		struct game_events ev;
		struct cmd more;
		int go = 0, value;
		memset(&more, 0, sizeof(more));
		value = w.t.game->timeout_value(w.t.state, &pc, &step, &more, &go, &w.t.row.note);
		if (apply_ev(&w, member, value, "choice", &ev) == GAME_OK && go)
			go_on(&w, member, &more, &ev);
	} else
		choose(&w, member, &step, w.t.game->policy);
	if (w.t.row.state == STORE_PLAYING)
		advance(&w);
	show_table(&w);
	commit(&w, NULL, 0, out);
	work_free(&w);
}

/* Reminds the player called at s's table that the time for their move
 * runs out: the table again, calling them with the seconds left. Nothing is
 * written; the reminder is not repeated for this move. */
static void remind(struct bot *b, struct slot *s, int64_t now, struct msg_list *out)
{
	int64_t before = slot_wake(b, s);
	struct table t;
	struct work w;
	char left[24];
	int k;

	s->remind = 0;
	deadline_moved(b, before, slot_wake(b, s));
	expand(s, &t);
	k = called_member(&t);
	if (k < 0)
		return;
	work_init(&w, b, &t, now);
	show_table(&w); /* calls k unless they turned calls off */
	if (w.out.n && w.out.m[w.out.n - 1].call.user[0]) {
		struct msg *m = &w.out.m[w.out.n - 1];
		snprintf(left, sizeof(left), "%lld",
		         (long long)((t.row.deadline - now + 999) / 1000));
		set_call(m, &t, k, S_REMIND, left);
		m->call.reminder = 1;
		msg_add_copy(out, m);
	}
	work_free(&w);
}

/* Closes the lobby of s, untouched since s->last_at, without a game and
 * tells the channel. */
static void expire_lobby(struct bot *b, struct slot *s, int64_t now, struct msg_list *out)
{
	struct table t;
	struct work w;

	expand(s, &t);
	work_init(&w, b, &t, now);
	close_unrated(&w, "abort", -1, "expired");
	say(&w, S_LOBBY_EXPIRED, NULL, NULL);
	commit(&w, NULL, 0, out);
	work_free(&w);
}

/* Lets go of the finished or aborted tables kept longer than
 * cfg.finished_keep_ms (a rematch brings a finished one back from the
 * store). Not inside a batch, whose undo may hold them. */
static void let_go(struct bot *b, int64_t now)
{
	if (b->batch || b->cfg.finished_keep_ms <= 0)
		return;
	for (size_t i = 0; i < b->nbuckets; i++) {
		for (struct slot **at = &b->buckets[i]; *at;) {
			struct slot *s = *at;
			if (s->state == STORE_LOBBY || s->state == STORE_PLAYING ||
			    s->last_at + b->cfg.finished_keep_ms > now) {
				at = &s->next;
				continue;
			}
			*at = s->next;
			free(s->blob);
			free(s->held);
			free(s);
			b->nslots--;
			b->earliest = -1;
		}
	}
}

/* Plays on the computer moves s's table left for a later pass (at most
 * cfg.moves_per_pass of them); what they tell is held until the last pass,
 * which tells it with the table (commit): the channel gets the narration of
 * the command's own pass at once and one message for the rest. */
static void play_pending(struct bot *b, struct slot *s, int64_t now, struct msg_list *out)
{
	struct table t;
	struct work w;

	expand(s, &t);
	work_init(&w, b, &t, now);
	w.holding = 1;
	advance(&w);
	if (!w.t.pending)
		show_table(&w);
	commit(&w, NULL, 0, out);
	work_free(&w);
}

void bot_tick(struct bot *b, int64_t now, struct msg_list *out)
{
	int64_t next = bot_next_deadline(b);

	if (!next || next > now)
		return;
	let_go(b, now);
	for (size_t i = 0; i < b->nbuckets; i++) {
		for (struct slot *s = b->buckets[i]; s; s = s->next) {
			if (s->state == STORE_LOBBY && b->cfg.lobby_timeout_ms > 0 &&
			    s->last_at + b->cfg.lobby_timeout_ms <= now) {
				expire_lobby(b, s, now, out);
				continue;
			}
			if (s->state == STORE_PLAYING && s->pending) {
				play_pending(b, s, now, out);
				continue;
			}
			if (s->state != STORE_PLAYING || s->deadline <= 0)
				continue;
			if (s->deadline <= now) {
				struct table t;
				expand(s, &t);
				time_out(b, &t, now, out);
			} else if (s->remind > 0 && s->remind <= now) {
				remind(b, s, now, out);
			}
		}
	}
}

int64_t bot_next_deadline(struct bot *b)
{
	int64_t next = 0;

	if (b->earliest >= 0)
		return b->earliest;
	for (size_t i = 0; i < b->nbuckets; i++) {
		for (const struct slot *s = b->buckets[i]; s; s = s->next) {
			int64_t wake = slot_wake(b, s);
			if (wake > 0 && (next == 0 || wake < next))
				next = wake;
		}
	}
	b->earliest = next;
	return next;
}

void bot_set_turn_timeout(struct bot *b, int64_t ms)
{
	b->cfg.turn_timeout_ms = ms < 0 ? 0 : ms;
}

int bot_has_game(struct bot *b, const char *server, const char *channel)
{
	return is_open(find_table(b, server, channel));
}

const char *bot_channel_game(const struct bot *b, const char *server, const char *channel)
{
	const struct slot *s = find_slot(b, server, channel);
	int open = s && (s->state == STORE_LOBBY || s->state == STORE_PLAYING);

	return (open ? s->game : play_games[0])->ops->name;
}

int bot_pending(const struct bot *b)
{
	int n = 0;

	for (size_t i = 0; i < b->nbuckets; i++)
		for (const struct slot *s = b->buckets[i]; s; s = s->next)
			n += s->state == STORE_PLAYING && s->pending;
	return n;
}

size_t bot_tables_kept(const struct bot *b)
{
	return b->nslots;
}

long bot_store_errors(const struct bot *b)
{
	return b->store_errors;
}

int bot_open_games(const struct bot *b)
{
	int n = 0;

	for (size_t i = 0; i < b->nbuckets; i++)
		for (const struct slot *s = b->buckets[i]; s; s = s->next)
			n += s->state == STORE_LOBBY || s->state == STORE_PLAYING;
	return n;
}

/* ---- start-up ---- */

struct resume {
	struct bot *b;
	int shard; /* only this shard's games; -1 every game */
	char *err;
	size_t errlen;
};

/* 1 when the next move of t's game is one advance makes (a computer's, an
 * automatic roll, a decision the table settles). */
static int automatic_next(const struct table *t)
{
	struct play_ctx c = ctx_of(t, table_lang(t));
	struct game_step step;
	int member, value;

	t->game->ops->step(t->state, &step);
	if (step.node == GAME_NODE_OVER)
		return 0;
	member = t->game->member_of(t->state, step.seat);
	if (step.node == GAME_NODE_CHANCE)
		return t->game->auto_roll(t->state, &step) || computer_controls(t, member);
	return (t->game->settle && t->game->settle(t->state, &c, &step, &value)) ||
	       computer_controls(t, member);
}

/* Rebuilds one stored game (open, or finished: its final state) from its
 * row, members and log, and keeps it as its channel's table. */
static int resume_game(void *ctx, const struct store_loaded *g)
{
	struct resume *rs = ctx;
	struct table t;
	int applied = 0;

	if (rs->shard >= 0 && store_shard_of(g->game->server, rs->b->cfg.shards) != rs->shard)
		return 0;
	memset(&t, 0, sizeof(t));
	t.row = *g->game;
	t.game = play_find(t.row.game);
	if (!t.game || g->nmembers > STORE_MEMBERS_MAX) {
		snprintf(rs->err, rs->errlen, "game %lld: unknown game '%s'", (long long)t.row.id,
		         t.row.game);
		return -1;
	}
	t.nm = g->nmembers;
	memcpy(t.m, g->members, (size_t)t.nm * sizeof(t.m[0]));
	t.seq = g->nevents ? g->events[g->nevents - 1].seq : 0;
	t.last_at = g->nevents ? g->events[g->nevents - 1].at : t.row.created_at;
	if (t.row.state == STORE_PLAYING || t.row.state == STORE_FINISHED) {
		if (play_log_init(t.game, &t.row, t.nm, t.state) != GAME_OK) {
			snprintf(rs->err, rs->errlen, "game %lld: bad setup", (long long)t.row.id);
			return -1;
		}
		for (int i = 0; i < g->nevents; i++) {
			const struct store_event *e = &g->events[i];
			int rc = play_log_apply(t.game, t.state, e, NULL);
			if (rc == 0)
				continue;
			if (rc < 0) {
				snprintf(rs->err, rs->errlen,
				         "game %lld: event %lld does not apply",
				         (long long)t.row.id, (long long)e->seq);
				return -1;
			}
			applied++;
		}
		if (applied != t.row.moves) {
			snprintf(rs->err, rs->errlen, "game %lld: %d moves logged, %d expected",
			         (long long)t.row.id, applied, t.row.moves);
			return -1;
		}
		/* a stretch of computer moves cut by a pass goes on */
		t.pending = t.row.state == STORE_PLAYING && automatic_next(&t);
		if (t.row.state == STORE_PLAYING && t.row.deadline > 0 &&
		    rs->b->cfg.turn_timeout_ms > 0 &&
		    called_member(&t) >=
		        0) /* the reminder of the awaited move, as advance set it */
			t.remind = t.row.deadline - move_wait(&t, rs->b->cfg.turn_timeout_ms) / 4;
	}
	if (keep_table(rs->b, &t)) {
		snprintf(rs->err, rs->errlen, "out of memory");
		return -1;
	}
	if (t.row.id > rs->b->games_made)
		rs->b->games_made = t.row.id;
	return 0;
}

/* Keeps the channel's last game as its table when it is finished (the
 * newest game of the channel, found in the store). Returns 1 when kept, 0
 * when there is none, -1 on a store error or when it does not replay (logged
 * in the store's error message; nothing kept). */
static int restore_finished(struct bot *b, const char *server, const char *channel)
{
	char err[256];
	struct resume rs = { .b = b, .shard = -1, .err = err, .errlen = sizeof(err) };
	int64_t id = 0;

	for (int i = 0; play_games[i] && !id; i++)
		if (store_channel_finished(b->st, play_games[i]->ops->name, server, channel, &id))
			return -1;
	if (!id)
		return 0;
	err[0] = '\0';
	if (store_game_load(b->st, id, resume_game, &rs))
		return -1;
	return find_slot(b, server, channel) ? 1 : 0;
}

struct bot *bot_new(struct store *st, const struct bot_config *cfg, char *err, size_t errlen)
{
	struct bot *b = calloc(1, sizeof(*b));
	struct resume rs = { .b = b, .shard = -1, .err = err, .errlen = errlen };

	if (!b) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	b->st = st;
	b->cfg = *cfg;
	text_copy(b->lang, sizeof(b->lang), cfg->lang ? cfg->lang : "en");
	b->cfg.lang = b->lang;
	if (b->cfg.strikes < 1)
		b->cfg.strikes = 3;
	err[0] = '\0';
	/* After an upgrade, the ratings are built once from the finished games. */
	if (records_prepare(st)) {
		snprintf(err, errlen, "building the ratings: %s", store_errmsg(st));
		bot_free(b);
		return NULL;
	}
	if (cfg->shards > 0) {
		if (cfg->shards > 65535 || !(b->epochs = calloc((size_t)cfg->shards, 8))) {
			snprintf(err, errlen, "shards: %d is not a shard count", cfg->shards);
			bot_free(b);
			return NULL;
		}
	} else if (store_games_open(st, resume_game, &rs)) {
		if (!err[0])
			snprintf(err, errlen, "%s", store_errmsg(st));
		bot_free(b);
		return NULL;
	}
	b->games_made = store_games_made(st);
	return b;
}

/* Frees every slot of shard `shard`. */
static void drop_slots(struct bot *b, int shard)
{
	for (size_t i = 0; i < b->nbuckets; i++) {
		for (struct slot **at = &b->buckets[i]; *at;) {
			struct slot *s = *at;
			if (store_shard_of(slot_server(s), b->cfg.shards) != shard) {
				at = &s->next;
				continue;
			}
			*at = s->next;
			free(s->blob);
			free(s->held);
			free(s);
			b->nslots--;
		}
	}
	b->earliest = -1;
}

int bot_shard_gain(struct bot *b, int shard, int64_t epoch, char *err, size_t errlen)
{
	struct resume rs = { .b = b, .shard = shard, .err = err, .errlen = errlen };
	int64_t made;

	err[0] = '\0';
	if (b->cfg.shards <= 0 || shard < 0 || shard >= b->cfg.shards || epoch <= 0 || b->batch) {
		snprintf(err, errlen, "shard %d of %d with epoch %lld cannot be given here", shard,
		         b->cfg.shards, (long long)epoch);
		return -1;
	}
	drop_slots(b, shard);
	b->epochs[shard] = 0;
	if (store_games_open(b->st, resume_game, &rs)) {
		if (!err[0])
			snprintf(err, errlen, "%s", store_errmsg(b->st));
		drop_slots(b, shard);
		return -1;
	}
	made = store_games_made(b->st);
	if (made > b->games_made)
		b->games_made = made;
	b->epochs[shard] = epoch;
	return 0;
}

int bot_shard_drop(struct bot *b, int shard)
{
	if (b->batch)
		return -1;
	if (b->cfg.shards <= 0 || shard < 0 || shard >= b->cfg.shards)
		return 0;
	b->epochs[shard] = 0;
	drop_slots(b, shard);
	return 0;
}

long bot_fenced_out(const struct bot *b)
{
	return b->fenced_out;
}

void bot_batch_begin(struct bot *b)
{
	b->batch = 1;
}

int bot_batch_end(struct bot *b)
{
	int rc = 0;

	b->batch = 0;
	if (store_in_transaction(b->st) && store_commit(b->st)) {
		store_rollback(b->st);
		undo_batch(b);
		b->store_errors++;
		rc = -1;
	}
	forget_batch(b);
	return rc;
}

void bot_batch_refusal(struct bot *b, const struct bot_req *req, struct msg_list *out)
{
	refuse(out, req, user_lang(b, req, find_table(b, req->server, req->channel)), S_ERR_STORAGE,
	       NULL, NULL);
}

void bot_free(struct bot *b)
{
	if (!b)
		return;
	if (b->batch) {
		b->batch = 0;
		store_rollback(b->st);
		undo_batch(b);
	}
	for (size_t i = 0; i < b->nbuckets; i++) {
		for (struct slot *s = b->buckets[i], *next; s; s = next) {
			next = s->next;
			free(s->blob);
			free(s->held);
			free(s);
		}
	}
	free(b->buckets);
	free(b->epochs);
	free(b);
}
