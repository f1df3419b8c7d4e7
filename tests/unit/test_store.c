/* store: round trips through a real database, the schema's rules,
 * migrations from every earlier version, refusal of a newer database, and
 * injected write failures. Every check reads back what is in the database
 * (a reopened store, or the database directly), not what was passed in.
 *
 * The same tests run on SQLite files and, with RLYEH_TEST_DATABASE set
 * (tests/pg/with_cluster.sh), on PostgreSQL (testdb.h); those of what only
 * SQLite has say so and are skipped there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rlyeh/store.h"
#include "testdb.h"

extern const char *const store_migrations[];
extern const char *const store_migration_names[];
extern const char *const store_pg_migrations[];
extern const char *const store_pg_migration_names[];

/* A temporary directory holding one database file (or, on PostgreSQL,
 * a fresh database named by path). */
struct tmp {
	char dir[64];
	char path[TESTDB_MAX];
};

static int tmp_setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	snprintf(t->dir, sizeof(t->dir), "/tmp/rlyeh-store-XXXXXX");
	if (!mkdtemp(t->dir)) {
		free(t);
		return -1;
	}
	testdb_fresh(t->path, t->dir, "rlyeh.db");
	*state = t;
	return 0;
}

/* Removes a database file and its companions. */
static void remove_db(const char *path)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	char file[TESTDB_MAX + 16];

	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(file, sizeof(file), "%s%s", path, suffix[i]);
		unlink(file);
	}
}

/* Empties and removes the directory, also after a failed test left files
 * behind. */
static int tmp_teardown(void **state)
{
	struct tmp *t = *state;
	DIR *d = opendir(t->dir);
	struct dirent *ent;
	char file[384];

	while (d && (ent = readdir(d))) {
		if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
			continue;
		snprintf(file, sizeof(file), "%s/%s", t->dir, ent->d_name);
		unlink(file);
	}
	if (d)
		closedir(d);
	rmdir(t->dir);
	free(t);
	return 0;
}

static struct store *open_ok(const char *path)
{
	struct store *st = NULL;
	char err[256] = "";

	if (store_open(path, &st, err, sizeof(err)))
		fail_msg("store_open: %s", err);
	assert_non_null(st);
	return st;
}

/* A second, plain SQLite connection to look at the file. */
static sqlite3 *raw_open(const char *path)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	sqlite3_busy_timeout(db, 2000);
	return db;
}

/* The single integer answered by `sql`, which takes no parameters. */
static int64_t raw_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	int64_t v;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL))
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* The single text answered by `sql`, copied into out. */
static void raw_text(sqlite3 *db, const char *sql, char *out, size_t size)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL))
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	snprintf(out, size, "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
}

static int64_t file_int(const char *path, const char *sql)
{
	return testdb_int(path, sql);
}

/* The stored schema version's query. */
static const char *version_sql(void)
{
	return testdb_pg() ? "SELECT version FROM schema_version" : "PRAGMA user_version";
}

static void set_text(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src);
}

static struct store_game game_in(const char *server, const char *channel, int state)
{
	struct store_game g;

	memset(&g, 0, sizeof(g));
	set_text(g.server, sizeof(g.server), server);
	set_text(g.channel, sizeof(g.channel), channel);
	set_text(g.game, sizeof(g.game), "cthulhu-dice");
	set_text(g.lang, sizeof(g.lang), "en");
	set_text(g.owner, sizeof(g.owner), "u1");
	g.state = state;
	g.seed = 42;
	g.rng[0] = 1;
	g.first = -1;
	g.winner = -1;
	g.created_at = 1000;
	if (state == STORE_FINISHED)
		g.finished_at = 2000;
	return g;
}

static struct store_member member(const char *player, const char *name, const char *policy)
{
	struct store_member m;

	memset(&m, 0, sizeof(m));
	set_text(m.player, sizeof(m.player), player);
	set_text(m.name, sizeof(m.name), name);
	set_text(m.policy, sizeof(m.policy), policy);
	m.place = -1;
	return m;
}

static struct store_event event(int64_t seq, const char *kind, int actor, int value)
{
	struct store_event e;

	memset(&e, 0, sizeof(e));
	e.seq = seq;
	e.at = 1000 + seq;
	set_text(e.kind, sizeof(e.kind), kind);
	e.actor = actor;
	e.value = value;
	return e;
}

/* A game in `channel` with one member and `nevents` events; its id. */
static int64_t make_game(struct store *st, const char *channel, int state, int nevents)
{
	struct store_game g = game_in("srv", channel, state);
	struct store_member m = member("u1", "One", "");

	if (store_game_create(st, &g))
		fail_msg("create: %s", store_errmsg(st));
	if (store_members_put(st, g.id, &m, 1))
		fail_msg("members: %s", store_errmsg(st));
	for (int i = 1; i <= nevents; i++) {
		struct store_event e = event(i, "roll", 0, i % 6);
		if (store_event_append(st, g.id, &e))
			fail_msg("event: %s", store_errmsg(st));
	}
	return g.id;
}

/* A copy of a loaded game, taken inside the callback. */
struct copy {
	int calls;
	struct store_game game;
	struct store_member members[STORE_MEMBERS_MAX];
	int nmembers;
	struct store_event events[16];
	int nevents;
	int64_t ids[16];
	int stop_after; /* return 7 from this call on; 0 never */
};

static int copy_game(void *ctx, const struct store_loaded *g)
{
	struct copy *c = ctx;

	assert_true(c->calls < 16);
	c->ids[c->calls++] = g->game->id;
	c->game = *g->game;
	assert_true(g->nmembers <= STORE_MEMBERS_MAX);
	assert_true(g->nevents <= 16);
	memcpy(c->members, g->members, (size_t)g->nmembers * sizeof(*g->members));
	c->nmembers = g->nmembers;
	if (g->nevents)
		memcpy(c->events, g->events, (size_t)g->nevents * sizeof(*g->events));
	c->nevents = g->nevents;
	return c->stop_after && c->calls >= c->stop_after ? 7 : 0;
}

static struct copy load(struct store *st, int64_t id)
{
	struct copy c;

	memset(&c, 0, sizeof(c));
	if (store_game_load(st, id, copy_game, &c))
		fail_msg("load %lld: %s", (long long)id, store_errmsg(st));
	assert_int_equal(c.calls, 1);
	return c;
}

static void assert_game_equal(const struct store_game *a, const struct store_game *b)
{
	assert_true(a->id == b->id);
	assert_string_equal(a->server, b->server);
	assert_string_equal(a->channel, b->channel);
	assert_string_equal(a->game, b->game);
	assert_int_equal(a->per_player, b->per_player);
	assert_string_equal(a->lang, b->lang);
	assert_string_equal(a->owner, b->owner);
	assert_int_equal(a->state, b->state);
	assert_true(a->seed == b->seed);
	for (int i = 0; i < 4; i++)
		assert_true(a->rng[i] == b->rng[i]);
	assert_int_equal(a->first, b->first);
	assert_int_equal(a->moves, b->moves);
	assert_int_equal(a->winner, b->winner);
	assert_true(a->created_at == b->created_at);
	assert_true(a->started_at == b->started_at);
	assert_true(a->finished_at == b->finished_at);
	assert_true(a->deadline == b->deadline);
	assert_true(a->series_of == b->series_of);
	assert_int_equal(a->note, b->note);
	assert_int_equal(a->revision, b->revision);
}

static void assert_member_equal(const struct store_member *a, const struct store_member *b)
{
	assert_string_equal(a->player, b->player);
	assert_string_equal(a->name, b->name);
	assert_string_equal(a->policy, b->policy);
	assert_int_equal(a->strikes, b->strikes);
	assert_int_equal(a->autopilot, b->autopilot);
	assert_int_equal(a->place, b->place);
	assert_int_equal(a->cthulhu, b->cthulhu);
	assert_int_equal(a->prefs, b->prefs);
}

static void assert_event_equal(const struct store_event *a, const struct store_event *b)
{
	assert_true(a->seq == b->seq);
	assert_true(a->at == b->at);
	assert_string_equal(a->kind, b->kind);
	assert_int_equal(a->actor, b->actor);
	assert_int_equal(a->value, b->value);
	assert_string_equal(a->detail, b->detail);
}

/* SQLite: its integrity check and foreign key check. PostgreSQL checks
 * both as it writes; no member or event may lack its game there either. */
static void assert_integrity(const char *path)
{
	sqlite3 *db;
	char ok[32];

	if (testdb_pg()) {
		assert_int_equal(testdb_int(path, "SELECT count(*) FROM members WHERE game_id "
		                                  "NOT IN (SELECT id FROM games)"),
		                 0);
		assert_int_equal(testdb_int(path, "SELECT count(*) FROM events WHERE game_id "
		                                  "NOT IN (SELECT id FROM games)"),
		                 0);
		return;
	}
	db = raw_open(path);

	raw_text(db, "PRAGMA integrity_check", ok, sizeof(ok));
	assert_string_equal(ok, "ok");
	assert_int_equal(raw_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	sqlite3_close(db);
}

/* Every dir/NNNN_*.sql is embedded as sql[] and names[], in NNNN order,
 * byte for byte, as many as store_schema_latest says. */
static void check_embedded(const char *dir, const char *const *sql, const char *const *names)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	int files = 0, latest = store_schema_latest();

	assert_non_null(d);
	while ((ent = readdir(d))) {
		size_t n = strlen(ent->d_name);
		files += n > 4 && strcmp(ent->d_name + n - 4, ".sql") == 0;
	}
	closedir(d);
	assert_true(latest >= 2);
	assert_int_equal(latest, files);
	assert_string_equal(names[0], "0001_tables");
	assert_string_equal(names[1], "0002_players");
	assert_null(sql[latest]);
	assert_null(names[latest]);
	for (int i = 0; i < store_schema_latest(); i++) {
		char path[512], *text;
		FILE *f;
		long n;

		snprintf(path, sizeof(path), "%s/%s.sql", dir, names[i]);
		assert_int_equal(strtol(names[i], NULL, 10), i + 1);
		f = fopen(path, "rb");
		assert_non_null(f);
		assert_int_equal(fseek(f, 0, SEEK_END), 0);
		n = ftell(f);
		assert_true(n > 0);
		rewind(f);
		text = malloc((size_t)n + 1);
		assert_non_null(text);
		assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
		text[n] = '\0';
		fclose(f);
		assert_int_equal(strlen(sql[i]), (size_t)n);
		assert_string_equal(sql[i], text);
		free(text);
	}
}

/* Both backends' migrations: migrations/ for SQLite, migrations/pg for
 * PostgreSQL, one for one. */
static void test_embedded_migrations(void **state)
{
	(void)state;
	check_embedded(MIGRATIONS_DIR, store_migrations, store_migration_names);
	check_embedded(MIGRATIONS_DIR "/pg", store_pg_migrations, store_pg_migration_names);
	for (int i = 0; i < store_schema_latest(); i++)
		assert_string_equal(store_pg_migration_names[i], store_migration_names[i]);
}

static void test_open_settings(void **state)
{
	struct tmp *t = *state;
	struct store *st = open_ok(t->path);
	sqlite3 *db;
	char mode[16];

	assert_int_equal(store_schema_version(st), store_schema_latest());
	store_close(st);
	store_close(NULL);
	assert_int_equal(file_int(t->path, version_sql()), store_schema_latest());
	if (testdb_pg())
		return; /* the rest are SQLite's settings */
	db = raw_open(t->path);
	raw_text(db, "PRAGMA journal_mode", mode, sizeof(mode));
	assert_string_equal(mode, "wal");
	assert_int_equal(raw_int(db, "PRAGMA user_version"), store_schema_latest());
	sqlite3_close(db);
}

/* Every field survives create, update and reopen, including 64-bit
 * unsigned values above 2^63 and UTF-8 names. */
static void test_round_trip(void **state)
{
	struct tmp *t = *state;
	struct store *st = open_ok(t->path);
	struct store_game prev = game_in("srv", "old", STORE_FINISHED);
	struct store_game g = game_in("guild-1", "chan-1", STORE_LOBBY);
	struct store_member m[3];
	struct store_event e[3];
	struct copy c;

	assert_int_equal(store_game_create(st, &prev), 0);
	g.per_player = 3;
	set_text(g.lang, sizeof(g.lang), "nl");
	set_text(g.owner, sizeof(g.owner), "owner-77");
	g.seed = UINT64_MAX;
	g.rng[0] = 0x8000000000000000ULL;
	g.rng[1] = 0xDEADBEEFCAFEBABEULL;
	g.rng[2] = 0;
	g.rng[3] = 0x7FFFFFFFFFFFFFFFULL;
	g.first = 2;
	g.moves = 17;
	g.winner = 1;
	g.created_at = 1700000000123LL;
	g.started_at = 1700000000456LL;
	g.finished_at = 0;
	g.deadline = 1700000060456LL;
	g.series_of = prev.id;
	g.note = 0x7fff8080;
	g.revision = 1;
	assert_int_equal(store_game_create(st, &g), 0);
	assert_true(g.id > prev.id);

	m[0] = member("u1", "Ærwyn Þórsdóttir", "");
	m[0].strikes = 2;
	m[1] = member("", "Nyarlathotep", "heuristic");
	m[1].autopilot = 1;
	m[1].place = 0;
	m[1].cthulhu = 1;
	m[1].prefs = 3;
	m[2] = member("u3", "Third", "");
	m[2].place = 1;
	assert_int_equal(store_members_put(st, g.id, m, 3), 0);
	e[0] = event(1, "join", 0, -1);
	set_text(e[0].detail, sizeof(e[0].detail), "Ærwyn joined \"the\" table");
	e[1] = event(2, "roll", -1, 5);
	e[2] = event(3, "victim", 2, 1);
	for (int i = 0; i < 3; i++)
		assert_int_equal(store_event_append(st, g.id, &e[i]), 0);
	store_close(st);

	st = open_ok(t->path);
	c = load(st, g.id);
	assert_game_equal(&c.game, &g);
	assert_int_equal(c.nmembers, 3);
	for (int i = 0; i < 3; i++)
		assert_member_equal(&c.members[i], &m[i]);
	assert_int_equal(c.nevents, 3);
	for (int i = 0; i < 3; i++)
		assert_event_equal(&c.events[i], &e[i]);

	/* Change every field, and replace the members with fewer. */
	set_text(g.server, sizeof(g.server), "guild-2");
	set_text(g.channel, sizeof(g.channel), "chan-2");
	set_text(g.game, sizeof(g.game), "elder-signs");
	g.per_player = 2;
	set_text(g.lang, sizeof(g.lang), "en");
	set_text(g.owner, sizeof(g.owner), "owner-78");
	g.state = STORE_FINISHED;
	g.seed = 0x8000000000000001ULL;
	for (int i = 0; i < 4; i++)
		g.rng[i] = UINT64_MAX - (uint64_t)i;
	g.first = 0;
	g.moves = 18;
	g.winner = -1;
	g.created_at++;
	g.started_at++;
	g.finished_at = 1700000099999LL;
	g.deadline = 0;
	g.series_of = 0;
	g.note = -5;
	assert_int_equal(store_game_update(st, &g), 0);
	m[0].strikes = 3;
	m[0].autopilot = 1;
	m[0].prefs = 2;
	set_text(m[0].name, sizeof(m[0].name), "Renamed");
	assert_int_equal(store_members_put(st, g.id, m, 2), 0);
	store_close(st);

	st = open_ok(t->path);
	c = load(st, g.id);
	assert_game_equal(&c.game, &g);
	assert_int_equal(c.nmembers, 2);
	for (int i = 0; i < 2; i++)
		assert_member_equal(&c.members[i], &m[i]);
	assert_int_equal(c.nevents, 3);
	store_close(st);

	/* The documented encoding: the same 64 bits as a signed INTEGER. */
	assert_true(file_int(t->path, "SELECT seed FROM games WHERE id = 2") == INT64_MIN + 1);
	assert_true(file_int(t->path, "SELECT rng0 FROM games WHERE id = 2") == -1);
	assert_true(file_int(t->path, "SELECT series_of IS NULL FROM games WHERE id = 2") == 1);
	assert_true(file_int(t->path, "SELECT count(*) FROM members WHERE game_id = 2") == 2);
	assert_integrity(t->path);
}

static void test_load_missing(void **state)
{
	struct tmp *t = *state;
	struct store *st = open_ok(t->path);
	struct store_game g = game_in("srv", "c", STORE_LOBBY);
	struct store_member m = member("u1", "One", "");
	struct store_event e = event(1, "join", 0, -1);
	struct copy c;

	memset(&c, 0, sizeof(c));
	assert_int_equal(store_game_load(st, 99, copy_game, &c), -1);
	assert_int_equal(c.calls, 0);
	assert_non_null(strstr(store_errmsg(st), "no such game"));
	g.id = 99;
	assert_int_equal(store_game_update(st, &g), -1);
	assert_non_null(strstr(store_errmsg(st), "no such game"));
	assert_int_equal(store_members_put(st, 99, &m, 1), -1);
	assert_int_equal(store_event_append(st, 99, &e), -1);
	store_close(st);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM games"), 0);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM members"), 0);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM events"), 0);
}

static void test_one_open_game_per_channel(void **state)
{
	struct tmp *t = *state;
	struct store *st = open_ok(t->path);
	struct store_game a = game_in("s1", "c1", STORE_LOBBY);
	struct store_game b = game_in("s1", "c1", STORE_PLAYING);
	struct store_game other_channel = game_in("s1", "c2", STORE_LOBBY);
	struct store_game other_server = game_in("s2", "c1", STORE_PLAYING);
	struct store_game done = game_in("s1", "c1", STORE_FINISHED);

	assert_int_equal(store_game_create(st, &a), 0);
	assert_int_equal(store_game_create(st, &b), -1);
	assert_non_null(strstr(store_errmsg(st), "already has a game"));
	assert_int_equal(store_game_create(st, &other_channel), 0);
	assert_int_equal(store_game_create(st, &other_server), 0);
	assert_int_equal(store_game_create(st, &done), 0);

	/* Once the first game is over, the channel can open another. */
	a.state = STORE_ABORTED;
	a.finished_at = 5000;
	assert_int_equal(store_game_update(st, &a), 0);
	assert_int_equal(store_game_create(st, &b), 0);
	/* ... and the old one cannot come back while that one is open. */
	a.state = STORE_PLAYING;
	assert_int_equal(store_game_update(st, &a), -1);
	assert_non_null(strstr(store_errmsg(st), "already has a game"));
	store_close(st);

	assert_int_equal(file_int(t->path, "SELECT count(*) FROM games"), 5);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM games WHERE server = 's1' AND "
	                                   "channel = 'c1' AND state IN (0, 1)"),
	                 1);
	assert_int_equal(file_int(t->path, "SELECT state FROM games WHERE id = 1"), STORE_ABORTED);
}

static void test_events_consecutive(void **state)
{
	struct tmp *t = *state;
	struct store *st = open_ok(t->path);
	int64_t g1 = make_game(st, "c1", STORE_PLAYING, 0);
	int64_t g2 = make_game(st, "c2", STORE_PLAYING, 0);
	struct store_event e;

	e = event(0, "roll", 0, 1);
	assert_int_equal(store_event_append(st, g1, &e), -1);
	e = event(2, "roll", 0, 1);
	assert_int_equal(store_event_append(st, g1, &e), -1);
	assert_non_null(strstr(store_errmsg(st), "seq"));
	e = event(1, "roll", 0, 1);
	assert_int_equal(store_event_append(st, g1, &e), 0);
	assert_int_equal(store_event_append(st, g1, &e), -1);
	e = event(3, "roll", 0, 1);
	assert_int_equal(store_event_append(st, g1, &e), -1);
	e = event(2, "eye", 1, 4);
	assert_int_equal(store_event_append(st, g1, &e), 0);
	/* Each game counts from 1. */
	e = event(1, "join", 0, -1);
	assert_int_equal(store_event_append(st, g2, &e), 0);
	e = event(3, "roll", 0, 1);
	assert_int_equal(store_event_append(st, g1, &e), 0);
	store_close(st);

	assert_int_equal(file_int(t->path, "SELECT count(*) FROM events WHERE game_id = 1"), 3);
	assert_int_equal(
	    file_int(t->path, testdb_pg()
	                          ? "SELECT string_agg(seq::text, ',' ORDER BY seq) = '1,2,3' "
	                            "FROM events WHERE game_id = 1"
	                          : "SELECT group_concat(seq, ',') = '1,2,3' FROM "
	                            "(SELECT seq FROM events WHERE game_id = 1 ORDER BY seq)"),
	    1);
	assert_int_equal(file_int(t->path, "SELECT kind = 'eye' AND value = 4 FROM events "
	                                   "WHERE game_id = 1 AND seq = 2"),
	                 1);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM events WHERE game_id = 2"), 1);
}

/* A walk whose callback ends the other open game before reaching it. */
struct ender {
	struct store *st;
	int64_t other;
	int calls;
};

static int end_other(void *ctx, const struct store_loaded *g)
{
	struct ender *en = ctx;
	struct copy c = load(en->st, en->other);

	en->calls++;
	assert_true(g->game->id != en->other);
	c.game.state = STORE_ABORTED;
	c.game.finished_at = 9000;
	if (store_game_update(en->st, &c.game))
		fail_msg("update: %s", store_errmsg(en->st));
	return 0;
}

static void test_games_open(void **state)
{
	struct tmp *t = *state;
	struct store *st = open_ok(t->path);
	int64_t lobby, playing;
	struct copy c;

	make_game(st, "c-done", STORE_FINISHED, 2);
	lobby = make_game(st, "c-lobby", STORE_LOBBY, 1);
	make_game(st, "c-aborted", STORE_ABORTED, 0);
	playing = make_game(st, "c-playing", STORE_PLAYING, 3);
	store_close(st);

	st = open_ok(t->path);
	memset(&c, 0, sizeof(c));
	assert_int_equal(store_games_open(st, copy_game, &c), 0);
	assert_int_equal(c.calls, 2);
	assert_true(c.ids[0] == lobby);
	assert_true(c.ids[1] == playing);
	assert_int_equal(c.game.state, STORE_PLAYING);
	assert_string_equal(c.game.channel, "c-playing");
	assert_int_equal(c.nmembers, 1);
	assert_string_equal(c.members[0].player, "u1");
	assert_int_equal(c.nevents, 3);
	for (int i = 0; i < 3; i++)
		assert_true(c.events[i].seq == i + 1);

	/* A non-zero return stops the walk and is returned. */
	memset(&c, 0, sizeof(c));
	c.stop_after = 1;
	assert_int_equal(store_games_open(st, copy_game, &c), 7);
	assert_int_equal(c.calls, 1);

	/* A game the callback takes out of play is not delivered after. */
	{
		struct ender en = { st, playing, 0 };
		assert_int_equal(store_games_open(st, end_other, &en), 0);
		assert_int_equal(en.calls, 1);
	}
	store_close(st);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM games WHERE state IN (0, 1)"), 1);
}

struct results {
	int n;
	int64_t ids[16];
	int64_t finished[16];
	char server[16][STORE_ID_MAX];
	int nmembers[16];
	int place0[16];
};

static int collect_result(void *ctx, const struct store_result *r)
{
	struct results *rs = ctx;

	assert_true(rs->n < 16);
	rs->ids[rs->n] = r->game_id;
	rs->finished[rs->n] = r->finished_at;
	set_text(rs->server[rs->n], STORE_ID_MAX, r->server);
	rs->nmembers[rs->n] = r->nmembers;
	rs->place0[rs->n] = r->nmembers ? r->members[0].place : -2;
	rs->n++;
	return 0;
}

static struct results results(struct store *st, const char *game, const char *server, int64_t since,
                              int64_t until)
{
	struct results rs;

	memset(&rs, 0, sizeof(rs));
	if (store_results(st, game, server, since, until, collect_result, &rs))
		fail_msg("results: %s", store_errmsg(st));
	return rs;
}

/* A finished game of `kind` on `server`, finished at `at`, with two members
 * placed 0 and 1; its id. */
static int64_t finished(struct store *st, const char *kind, const char *server, int64_t at,
                        int state)
{
	static int n;
	char channel[16];
	struct store_game g;
	struct store_member m[2] = { member("w", "Winner", ""), member("", "Bot", "random") };

	snprintf(channel, sizeof(channel), "ch%d", n++);
	g = game_in(server, channel, state);
	set_text(g.game, sizeof(g.game), kind);
	g.finished_at = at;
	m[0].place = 0;
	m[1].place = 1;
	if (store_game_create(st, &g) || store_members_put(st, g.id, m, 2))
		fail_msg("finished: %s", store_errmsg(st));
	return g.id;
}

static void test_results(void **state)
{
	struct tmp *t = *state;
	struct store *st = open_ok(t->path);
	/* Created out of finishing order. */
	int64_t a300 = finished(st, "cthulhu-dice", "s1", 300, STORE_FINISHED);
	int64_t a100 = finished(st, "cthulhu-dice", "s1", 100, STORE_FINISHED);
	int64_t b200 = finished(st, "cthulhu-dice", "s2", 200, STORE_FINISHED);
	int64_t a400 = finished(st, "cthulhu-dice", "s1", 400, STORE_FINISHED);
	struct results rs;

	finished(st, "elder-signs", "s1", 150, STORE_FINISHED);
	finished(st, "cthulhu-dice", "s1", 250, STORE_ABORTED);
	finished(st, "cthulhu-dice", "s1", 0, STORE_PLAYING);
	store_close(st);

	st = open_ok(t->path);
	rs = results(st, "cthulhu-dice", NULL, 0, 0);
	assert_int_equal(rs.n, 4);
	assert_true(rs.ids[0] == a100 && rs.ids[1] == b200 && rs.ids[2] == a300 &&
	            rs.ids[3] == a400);
	assert_true(rs.finished[0] == 100 && rs.finished[3] == 400);
	assert_string_equal(rs.server[1], "s2");
	assert_int_equal(rs.nmembers[0], 2);
	assert_int_equal(rs.place0[0], 0);

	rs = results(st, "cthulhu-dice", "s1", 0, 0);
	assert_int_equal(rs.n, 3);
	assert_true(rs.ids[0] == a100 && rs.ids[1] == a300 && rs.ids[2] == a400);

	/* since is inclusive, until exclusive. */
	rs = results(st, "cthulhu-dice", "s1", 300, 400);
	assert_int_equal(rs.n, 1);
	assert_true(rs.ids[0] == a300);
	rs = results(st, "cthulhu-dice", NULL, 200, 0);
	assert_int_equal(rs.n, 3);
	assert_true(rs.ids[0] == b200);
	rs = results(st, "cthulhu-dice", NULL, 0, 200);
	assert_int_equal(rs.n, 1);
	assert_true(rs.ids[0] == a100);

	rs = results(st, "elder-signs", NULL, 0, 0);
	assert_int_equal(rs.n, 1);
	assert_true(rs.finished[0] == 150);
	rs = results(st, "elder-signs", "s2", 0, 0);
	assert_int_equal(rs.n, 0);
	rs = results(st, "cthulhu-dice", "nowhere", 0, 0);
	assert_int_equal(rs.n, 0);
	store_close(st);
}

static void test_players(void **state)
{
	struct tmp *t = *state;
	struct store *st = open_ok(t->path);
	char name[STORE_NAME_MAX], lang[8], id63[64], id64[65], longname[80];

	assert_int_equal(store_player_get(st, "u1", name, lang), -1);
	assert_int_equal(store_player_put(st, "u1", "Wilbur", "en", 1000), 0);
	assert_int_equal(store_player_put(st, "u2", "Lavinia", "", 1000), 0);
	/* "" keeps the stored language; a new one replaces it. */
	assert_int_equal(store_player_put(st, "u1", "Wilbur W.", "", 1000), 0);
	assert_int_equal(store_player_put(st, "u2", "Lavinia", "nl", 1000), 0);

	/* 62 ASCII bytes, then a 2-byte é: the name is cut before the é. */
	memset(longname, 'a', 62);
	memcpy(longname + 62, "\xc3\xa9zz", 5);
	assert_int_equal(store_player_put(st, "u3", longname, NULL, 1000), 0);

	memset(id63, 'x', 63);
	id63[63] = '\0';
	memset(id64, 'y', 64);
	id64[64] = '\0';
	assert_int_equal(store_player_put(st, id63, "Max", "en", 1000), 0);
	assert_int_equal(store_player_put(st, id64, "Over", "en", 1000), -1);
	assert_non_null(strstr(store_errmsg(st), "longer than 63"));
	assert_int_equal(store_player_put(st, "u4", "Bad lang", "en-GB-oxendict", 1000), -1);
	store_close(st);

	st = open_ok(t->path);
	assert_int_equal(store_player_get(st, "u1", name, lang), 0);
	assert_string_equal(name, "Wilbur W.");
	assert_string_equal(lang, "en");
	assert_int_equal(store_player_get(st, "u2", NULL, lang), 0);
	assert_string_equal(lang, "nl");
	assert_int_equal(store_player_get(st, "u3", name, NULL), 0);
	assert_int_equal(strlen(name), 62);
	assert_int_equal(strspn(name, "a"), 62);
	assert_int_equal(store_player_get(st, "u3", NULL, lang), 0);
	assert_string_equal(lang, "");
	assert_int_equal(store_player_get(st, id63, name, lang), 0);
	assert_string_equal(name, "Max");
	assert_int_equal(store_player_get(st, id64, name, lang), -1);
	assert_int_equal(store_player_get(st, "u4", name, lang), -1);
	assert_int_equal(store_player_get(st, "nobody", name, lang), -1);
	store_close(st);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM players"), 4);
	assert_int_equal(file_int(t->path, testdb_pg()
	                                       ? "SELECT octet_length(name) FROM players "
	                                         "WHERE id = 'u3'"
	                                       : "SELECT length(CAST(name AS BLOB)) FROM players "
	                                         "WHERE id = 'u3'"),
	                 62);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM players WHERE created_at <= 0 "
	                                   "OR updated_at < created_at"),
	                 0);
}

/* Ids that do not fit are refused, never cut; nothing is written. */
static void test_long_ids_refused(void **state)
{
	struct tmp *t = *state;
	struct store *st = open_ok(t->path);
	struct store_game g = game_in("srv", "c1", STORE_LOBBY);
	struct store_member m = member("u1", "One", "");
	struct store_event e = event(1, "join", 0, -1);
	int64_t id;

	memset(g.server, 's', sizeof(g.server));
	assert_int_equal(store_game_create(st, &g), -1);
	assert_non_null(strstr(store_errmsg(st), "server id"));
	g = game_in("srv", "c1", STORE_LOBBY);
	memset(g.channel, 'c', sizeof(g.channel));
	assert_int_equal(store_game_create(st, &g), -1);
	g = game_in("srv", "c1", STORE_LOBBY);
	memset(g.owner, 'o', sizeof(g.owner));
	assert_int_equal(store_game_create(st, &g), -1);

	id = make_game(st, "c1", STORE_LOBBY, 0);
	memset(m.player, 'p', sizeof(m.player));
	assert_int_equal(store_members_put(st, id, &m, 1), -1);
	assert_non_null(strstr(store_errmsg(st), "player id"));
	memset(e.kind, 'k', sizeof(e.kind));
	assert_int_equal(store_event_append(st, id, &e), -1);

	/* An unterminated display name is cut, not refused. */
	m = member("u1", "", "");
	memset(m.name, 'n', sizeof(m.name));
	assert_int_equal(store_members_put(st, id, &m, 1), 0);
	store_close(st);

	assert_int_equal(file_int(t->path, "SELECT count(*) FROM games"), 1);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM events"), 0);
	assert_int_equal(file_int(t->path, "SELECT length(name) FROM members"), 63);
}

static void test_migrate_from_empty(void **state)
{
	struct tmp *t = *state;
	struct store *st = NULL;
	char err[128];
	sqlite3 *db;

	assert_int_equal(store_open_version(t->path, 0, &st, err, sizeof(err)), 0);
	assert_int_equal(store_schema_version(st), 0);
	store_close(st);
	if (testdb_pg()) {
		assert_int_equal(file_int(t->path,
		                          "SELECT count(*) FROM pg_tables WHERE schemaname "
		                          "= current_schema() AND tablename <> "
		                          "'schema_version'"),
		                 0);
		st = open_ok(t->path);
		assert_int_equal(store_schema_version(st), store_schema_latest());
		store_close(st);
		assert_int_equal(file_int(t->path, version_sql()), store_schema_latest());
		assert_int_equal(file_int(t->path,
		                          "SELECT count(*) FROM pg_tables WHERE schemaname "
		                          "= current_schema() AND tablename IN ('games', "
		                          "'members', 'events', 'players')"),
		                 4);
		assert_int_equal(file_int(t->path,
		                          "SELECT count(*) FROM pg_indexes WHERE schemaname "
		                          "= current_schema() AND indexname IN "
		                          "('games_open_channel', 'games_finished')"),
		                 2);
		assert_int_equal(
		    store_open_version(t->path, store_schema_latest() + 1, &st, err, sizeof(err)),
		    -1);
		assert_null(st);
		return;
	}
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM sqlite_schema"), 0);

	st = open_ok(t->path);
	assert_int_equal(store_schema_version(st), store_schema_latest());
	store_close(st);
	db = raw_open(t->path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), store_schema_latest());
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' "
	                             "AND name IN ('games', 'members', 'events', 'players')"),
	                 4);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' "
	                             "AND name IN ('games_open_channel', 'games_finished')"),
	                 2);
	sqlite3_close(db);

	assert_int_equal(
	    store_open_version(t->path, store_schema_latest() + 1, &st, err, sizeof(err)), -1);
	assert_null(st);
}

/* From each version k: data valid at k survives the upgrade to the latest. */
static void test_migrate_from_each_version(void **state)
{
	struct tmp *t = *state;

	for (int k = 0; k < store_schema_latest(); k++) {
		struct store *st = NULL;
		char err[128], name[STORE_NAME_MAX], lang[8], path[TESTDB_MAX], file[16];
		int64_t id = 0;

		snprintf(file, sizeof(file), "v%d.db", k);
		testdb_fresh(path, t->dir, file);
		assert_int_equal(store_open_version(path, k, &st, err, sizeof(err)), 0);
		assert_int_equal(store_schema_version(st), k);
		if (k >= 6) {
			id = make_game(st, "c1", STORE_PLAYING, 2);
		} else if (k >= 1) {
			/* The store speaks the latest schema: a game of an older one
			 * is written as that schema's code wrote it. */
			testdb_exec(
			    path, "INSERT INTO games (server, channel, game, state, seed, "
			          "rng0, rng1, rng2, rng3, first, moves, winner, created_at) "
			          "VALUES ('srv', 'c1', 'cthulhu-dice', 1, 1, 1, 2, 3, 4, 0, 2, "
			          "-1, 1000);"
			          "INSERT INTO members (game_id, idx, player, name) "
			          "VALUES (1, 0, 'u1', 'One');"
			          "INSERT INTO events (game_id, seq, at, kind, actor, value) "
			          "VALUES (1, 1, 1001, 'roll', 0, 1), (1, 2, 1002, 'roll', 0, 2);");
			id = 1;
		} else {
			assert_int_equal(store_game_create(st, &(struct store_game){ 0 }), -1);
		}
		if (k >= 2)
			assert_int_equal(store_player_put(st, "u1", "Wilbur", "nl", 1000), 0);
		else
			assert_int_equal(store_player_put(st, "u1", "Wilbur", "nl", 1000), -1);
		store_close(st);
		assert_int_equal(file_int(path, version_sql()), k);

		st = open_ok(path);
		assert_int_equal(store_schema_version(st), store_schema_latest());
		if (k >= 1) {
			struct copy c = load(st, id);
			assert_string_equal(c.game.channel, "c1");
			assert_int_equal(c.nmembers, 1);
			assert_int_equal(c.nevents, 2);
			/* a table of an older schema plays by the first rules */
			assert_int_equal(c.game.revision, 0);
		}
		if (k >= 2) {
			assert_int_equal(store_player_get(st, "u1", name, lang), 0);
			assert_string_equal(lang, "nl");
		}
		/* Everything the latest schema has now works. */
		assert_int_equal(store_player_put(st, "u1", "Wilbur", "", 1000), 0);
		make_game(st, "c2", STORE_LOBBY, 1);
		store_close(st);
		assert_int_equal(file_int(path, "SELECT count(*) FROM games"), k >= 1 ? 2 : 1);
		assert_int_equal(file_int(path, "SELECT lang = 'nl' FROM players WHERE id = 'u1'"),
		                 k >= 2);
		assert_integrity(path);
		remove_db(path);
	}
}

static void test_newer_database_refused(void **state)
{
	struct tmp *t = *state;
	struct store *st = open_ok(t->path);
	int newer = store_schema_latest() + 3;
	char err[256], sql[64], want[32];

	store_close(st);
	snprintf(sql, sizeof(sql),
	         testdb_pg() ? "UPDATE schema_version SET version = %d"
	                     : "PRAGMA user_version = %d",
	         newer);
	testdb_exec(t->path, sql);

	st = (struct store *)1;
	assert_int_equal(store_open(t->path, &st, err, sizeof(err)), -1);
	assert_null(st);
	snprintf(want, sizeof(want), "version %d", newer);
	assert_non_null(strstr(err, want));
	snprintf(want, sizeof(want), "%d", store_schema_latest());
	assert_non_null(strstr(err, want));
	assert_int_equal(file_int(t->path, version_sql()), newer);
}

/* The state the fault-injection test checks after each failed attempt. */
static void assert_unchanged(const char *path, int64_t id)
{
	struct store *st = open_ok(path);
	struct copy c = load(st, id);

	store_close(st);
	assert_int_equal(c.game.moves, 0);
	assert_int_equal(c.game.state, STORE_PLAYING);
	assert_int_equal(c.nevents, 2);
	assert_int_equal(c.nmembers, 1);
	assert_string_equal(c.members[0].name, "One");
}

static void test_fault_injection(void **state)
{
	struct tmp *t = *state;
	struct store *st = open_ok(t->path);
	int64_t id = make_game(st, "c1", STORE_PLAYING, 2);
	struct store_member two[2] = { member("u1", "Changed", ""), member("u2", "Two", "") };
	struct store_event e3 = event(3, "roll", 0, 2), e4 = event(4, "roll", 0, 3);
	struct store_game g;
	struct copy c = load(st, id);

	g = c.game;
	g.moves = 5;

	/* The very next write fails. */
	store_fail_after(st, 0);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_game_update(st, &g), -1);
	assert_non_null(strstr(store_errmsg(st), "disk full (injected)"));
	store_rollback(st);
	assert_unchanged(t->path, id);

	/* Two writes succeed inside the transaction, the third fails. */
	store_fail_after(st, 2);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_game_update(st, &g), 0);
	assert_int_equal(store_event_append(st, id, &e3), 0);
	assert_int_equal(store_event_append(st, id, &e4), -1);
	assert_non_null(strstr(store_errmsg(st), "disk full (injected)"));
	store_rollback(st);
	assert_unchanged(t->path, id);

	/* The commit itself fails (after 1 + 1 + 3 writes): the caller rolls
	 * back. */
	store_fail_after(st, 5);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_game_update(st, &g), 0);
	assert_int_equal(store_event_append(st, id, &e3), 0);
	assert_int_equal(store_members_put(st, id, two, 2), 0);
	assert_int_equal(store_commit(st), -1);
	store_rollback(st);
	assert_unchanged(t->path, id);

	/* Outside a transaction, replacing members is all or nothing. */
	store_fail_after(st, 1);
	assert_int_equal(store_members_put(st, id, two, 2), -1);
	assert_unchanged(t->path, id);
	store_fail_after(st, 3);
	assert_int_equal(store_members_put(st, id, two, 2), -1);
	assert_unchanged(t->path, id);

	/* Inside one, a failed call undoes only itself and leaves the
	 * transaction open: the caller may still commit the rest. */
	store_fail_after(st, 2);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_event_append(st, id, &e3), 0);
	assert_int_equal(store_members_put(st, id, two, 2), -1);
	assert_int_equal(store_begin(st), -1);
	store_fail_after(st, -1);
	assert_int_equal(store_game_update(st, &g), 0);
	assert_int_equal(store_event_append(st, id, &e4), 0);
	assert_int_equal(store_commit(st), 0);
	store_close(st);

	st = open_ok(t->path);
	c = load(st, id);
	assert_int_equal(c.game.moves, 5);
	assert_int_equal(c.nevents, 4);
	assert_true(c.events[2].seq == 3 && c.events[3].seq == 4);
	assert_int_equal(c.nmembers, 1);
	assert_string_equal(c.members[0].name, "One");

	/* Writes work again. */
	assert_int_equal(store_members_put(st, id, two, 2), 0);
	store_close(st);
	st = open_ok(t->path);
	c = load(st, id);
	store_close(st);
	assert_int_equal(c.nmembers, 2);
	assert_string_equal(c.members[0].name, "Changed");
	assert_string_equal(c.members[1].player, "u2");
	assert_integrity(t->path);
}

/* The highest id ever given survives refused inserts, deletion and
 * reopening. */
/* store_game_progress writes the dice stream, moves, deadline and note,
 * and nothing else. */
static void test_game_progress(void **state)
{
	struct tmp *t = *state;
	struct store *st = open_ok(t->path);
	int64_t id = make_game(st, "c1", STORE_PLAYING, 0);
	struct copy before = load(st, id), after;
	struct store_game g = before.game;

	g.rng[0] = 0xfedcba9876543210ULL;
	g.rng[3] = 42;
	g.moves = 17;
	g.deadline = 123456;
	g.note = 99;
	set_text(g.owner, sizeof(g.owner), "someone-else");
	g.state = STORE_FINISHED;
	assert_int_equal(store_game_progress(st, &g), 0);
	store_close(st);
	st = open_ok(t->path);
	after = load(st, id);
	assert_true(after.game.rng[0] == 0xfedcba9876543210ULL);
	assert_true(after.game.rng[3] == 42);
	assert_int_equal(after.game.moves, 17);
	assert_int_equal(after.game.deadline, 123456);
	assert_int_equal(after.game.note, 99);
	assert_string_equal(after.game.owner, before.game.owner);
	assert_int_equal(after.game.state, STORE_PLAYING);
	g.id = id + 100;
	assert_int_equal(store_game_progress(st, &g), -1);
	store_close(st);
}

/* Marks undo one caller's writes inside a transaction and keep the rest. */
static void test_marks(void **state)
{
	struct tmp *t = *state;
	struct store *st = open_ok(t->path);
	int64_t id = make_game(st, "c1", STORE_PLAYING, 1);
	struct store_event e2 = event(2, "roll", 0, 1), e3 = event(3, "roll", 0, 2);

	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_in_transaction(st), 1);
	assert_int_equal(store_mark(st), 0);
	assert_int_equal(store_event_append(st, id, &e2), 0);
	assert_int_equal(store_mark_keep(st), 0);
	assert_int_equal(store_mark(st), 0);
	assert_int_equal(store_event_append(st, id, &e3), 0);
	store_mark_undo(st);
	assert_int_equal(store_in_transaction(st), 1);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(store_in_transaction(st), 0);
	store_close(st);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM events"), 2);
	assert_int_equal(file_int(t->path, "SELECT max(seq) FROM events"), 2);
}

static off_t wal_size(const char *path)
{
	char wal[TESTDB_MAX + 8];
	struct stat sb;

	snprintf(wal, sizeof(wal), "%s-wal", path);
	return stat(wal, &sb) == 0 ? sb.st_size : 0;
}

/* A refused write inside a transaction undoes itself alone: the
 * transaction goes on, and what was written before and after commits (as
 * SQLite does it, so PostgreSQL must too). */
static void test_refused_write_in_transaction(void **state)
{
	struct tmp *t = *state;
	struct store *st = open_ok(t->path);
	int64_t id = make_game(st, "c1", STORE_PLAYING, 1);
	struct store_game dup = game_in("srv", "c1", STORE_LOBBY);
	struct store_event e2 = event(2, "roll", 0, 1), e3 = event(3, "roll", 0, 2);
	struct store_event gap = event(9, "roll", 0, 3);

	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_event_append(st, id, &e2), 0);
	assert_int_equal(store_game_create(st, &dup), -1);
	assert_non_null(strstr(store_errmsg(st), "already has a game"));
	assert_int_equal(store_event_append(st, id, &gap), -1);
	assert_non_null(strstr(store_errmsg(st), "seq"));
	assert_int_equal(store_in_transaction(st), 1);
	assert_int_equal(store_event_append(st, id, &e3), 0);
	assert_int_equal(store_player_put(st, "u1", "Wilbur", "en", 1000), 0);
	assert_int_equal(store_commit(st), 0);
	assert_true(store_games_made(st) == id);
	store_close(st);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM events"), 3);
	assert_int_equal(file_int(t->path, "SELECT max(seq) FROM events"), 3);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM games"), 1);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM players"), 1);
}

/* Ends every other session on the store's PostgreSQL database, as a
 * server restart would. */
static void kill_sessions(const char *uri)
{
	assert_true(testdb_int(uri, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
	                            "WHERE datname = current_database() "
	                            "AND pid <> pg_backend_pid()") >= 1);
}

/* PostgreSQL: a connection the server closed is opened again. A read
 * outside a transaction is asked again at once; a write there fails once
 * (it may have been done) and the next call reconnects; inside a
 * transaction the writes are lost, which the call says, and after the
 * rollback the store goes on. */
static void test_reconnect(void **state)
{
	struct tmp *t = *state;
	struct store *st;
	struct store_event e2 = event(2, "roll", 0, 1);
	struct copy c;
	int64_t id;

	if (!testdb_pg()) {
		print_message("[  SKIP    ] %s: PostgreSQL only, not run on SQLite\n", __func__);
		skip();
	}
	st = open_ok(t->path);
	id = make_game(st, "c1", STORE_PLAYING, 1);
	kill_sessions(t->path);
	c = load(st, id);
	assert_int_equal(c.nevents, 1);

	kill_sessions(t->path);
	if (store_player_put(st, "u1", "Wilbur", "en", 1000))
		assert_int_equal(store_player_put(st, "u1", "Wilbur", "en", 1000), 0);

	assert_int_equal(store_begin(st), 0);
	kill_sessions(t->path);
	assert_int_equal(store_event_append(st, id, &e2), -1);
	assert_int_equal(store_in_transaction(st), 1);
	assert_int_equal(store_commit(st), -1);
	store_rollback(st);
	assert_int_equal(store_in_transaction(st), 0);
	assert_int_equal(store_event_append(st, id, &e2), 0);
	store_close(st);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM events"), 2);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM players"), 1);
}

/* A transaction that picked a game id holds the ratings lock as well: a game
 * end in another transaction waits for it (here: gives up at lock_timeout)
 * instead of taking the ratings lock first and then waiting for the game id,
 * which deadlocked two processes, one creating a game and rating another in
 * one transaction, the other the same in the other order. */
static void test_ids_lock_order(void **state)
{
	struct tmp *t = *state;
	struct store *a, *b;
	char impatient[TESTDB_MAX + 64], err[256];
	int64_t id;

	if (!testdb_pg()) {
		print_message("[  SKIP    ] %s: PostgreSQL only, not run on SQLite\n", __func__);
		skip();
	}
	snprintf(impatient, sizeof(impatient), "%s&options=-c%%20lock_timeout%%3D300", t->path);
	a = open_ok(t->path);
	id = make_game(a, "c1", STORE_FINISHED, 0);
	assert_int_equal(store_open(impatient, &b, err, sizeof(err)), 0);

	assert_int_equal(store_begin(a), 0);
	assert_int_equal(store_games_made(a), id);
	assert_int_equal(store_begin(b), 0);
	assert_int_equal(store_game_rate(b, id), -1);
	assert_non_null(strstr(store_errmsg(b), "lock"));
	store_rollback(b);
	store_rollback(a);

	/* Once a's transaction is over, b rates the game. */
	assert_int_equal(store_begin(b), 0);
	assert_int_equal(store_game_rate(b, id), 0);
	assert_int_equal(store_commit(b), 0);
	store_close(b);
	store_close(a);
	assert_int_equal(file_int(t->path, "SELECT rated FROM games"), 1);
}

/* The background checkpointer copies the WAL while commits go on, and the
 * WAL stays bounded. */
static void test_background_checkpoints(void **state)
{
	struct tmp *t = *state;
	struct store *st;
	int64_t id;
	off_t biggest = 0;
	char detail[128];

	TESTDB_SQLITE_ONLY(); /* PostgreSQL checkpoints on its own */
	st = open_ok(t->path);
	id = make_game(st, "c1", STORE_PLAYING, 0);
	memset(detail, 'x', sizeof(detail) - 1);
	detail[sizeof(detail) - 1] = '\0';
	assert_int_equal(store_checkpoint_background(st), 0);
	for (int i = 1; i <= 20000; i++) {
		struct store_event e = event(i, "roll", 0, i % 6);
		set_text(e.detail, sizeof(e.detail), detail);
		assert_int_equal(store_begin(st), 0);
		if (store_event_append(st, id, &e))
			fail_msg("event %d: %s", i, store_errmsg(st));
		assert_int_equal(store_commit(st), 0);
		if (wal_size(t->path) > biggest)
			biggest = wal_size(t->path);
	}
	for (int i = 0; i < 500 && store_checkpoints_made(st) == 0; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	assert_true(store_checkpoints_made(st) > 0);
	/* CKPT_HARD_PAGES (12000) pages of 4 KiB and their frame headers,
	 * with room for the commits made while a background pass kept the
	 * commit's own checkpoint out (half as much again: at a bound of 4000
	 * a loaded machine, the whole suite running two tests at once,
	 * reached 6000); without the bound, 20000 commits need ~40000 */
	assert_true(biggest < (off_t)18000 * 4120);
	store_close(st);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM events"), 20000);
	assert_integrity(t->path);
}

static void test_games_made(void **state)
{
	struct tmp *t = *state;
	struct store *st = open_ok(t->path);
	struct store_game dup = game_in("srv", "c1", STORE_LOBBY);

	assert_true(store_games_made(st) == 0);
	make_game(st, "c1", STORE_LOBBY, 0);
	make_game(st, "c2", STORE_LOBBY, 0);
	make_game(st, "c3", STORE_LOBBY, 0);
	assert_int_equal(store_game_create(st, &dup), -1);
	assert_true(store_games_made(st) == 3);
	store_close(st);

	testdb_exec(t->path, testdb_pg()
	                         ? "DELETE FROM games WHERE id = 3"
	                         : "PRAGMA foreign_keys = ON; DELETE FROM games WHERE id = 3");
	assert_int_equal(file_int(t->path, "SELECT max(id) FROM games"), 2);

	st = open_ok(t->path);
	assert_true(store_games_made(st) == 3);
	assert_true(make_game(st, "c3", STORE_LOBBY, 0) == 4);
	assert_true(store_games_made(st) == 4);
	store_close(st);
}

/* The schema's own rules, seen by a plain connection: deleting a game
 * takes its members and events, and the log cannot be edited. */
static void test_schema_rules(void **state)
{
	struct tmp *t = *state;
	struct store *st = open_ok(t->path);
	int64_t id = make_game(st, "c1", STORE_FINISHED, 3);
	struct store_game g = game_in("srv", "c2", STORE_FINISHED);
	const char *fk = testdb_pg() ? "" : "PRAGMA foreign_keys = ON; ";
	char sql[256];

	assert_true(id > 0);
	g.finished_at = 0;
	assert_int_equal(store_game_create(st, &g), -1);
	g = game_in("srv", "c2", 7);
	assert_int_equal(store_game_create(st, &g), -1);
	store_close(st);

	assert_int_equal(file_int(t->path, "SELECT count(*) FROM members"), 1);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM events"), 3);
	assert_int_not_equal(testdb_try(t->path, "UPDATE events SET value = 6"), 0);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM events WHERE value = 6"), 0);
	assert_int_not_equal(testdb_try(t->path, "INSERT INTO games (server, channel, game, state, "
	                                         "seed, rng0, rng1, rng2, rng3, created_at) VALUES "
	                                         "('s', 'c', 'g', 0, 'text', 0, 0, 0, 0, 0)"),
	                     0);
	snprintf(sql, sizeof(sql), "%sDELETE FROM games", fk);
	testdb_exec(t->path, sql);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM members"), 0);
	assert_int_equal(file_int(t->path, "SELECT count(*) FROM events"), 0);
}

/* Logs show a PostgreSQL URI without its password; files that go with a
 * database live beside an SQLite file, in the state directory for a URI. */
static void test_describe_and_folder(void **state)
{
	char out[256];

	(void)state;
	store_describe("postgresql://bob:s3cret@db.example:5433/rlyeh?sslmode=require", out,
	               sizeof(out));
	assert_string_equal(out, "postgresql://bob@db.example:5433/rlyeh");
	store_describe("postgres:///rlyeh?host=/tmp/pg&password=s3cret", out, sizeof(out));
	assert_null(strstr(out, "s3cret"));
	assert_string_equal(out, "postgresql:///tmp/pg/rlyeh");
	store_describe("/var/lib/rlyeh/rlyeh.db", out, sizeof(out));
	assert_string_equal(out, "/var/lib/rlyeh/rlyeh.db");

	assert_int_equal(store_folder("/var/lib/rlyeh/rlyeh.db", out, sizeof(out)), 0);
	assert_string_equal(out, "/var/lib/rlyeh");
	assert_int_equal(store_folder("rlyeh.db", out, sizeof(out)), 0);
	assert_string_equal(out, ".");
	assert_int_equal(store_folder("/rlyeh.db", out, sizeof(out)), 0);
	assert_string_equal(out, "/");
	setenv("STATE_DIRECTORY", "/var/lib/rlyeh/a", 1);
	assert_int_equal(store_folder("postgresql://bob@db.example/rlyeh", out, sizeof(out)), 0);
	assert_string_equal(out, "/var/lib/rlyeh/a");
	unsetenv("STATE_DIRECTORY");
	assert_int_equal(store_folder("postgresql://bob@db.example/rlyeh", out, sizeof(out)), 0);
	assert_string_equal(out, ".");
	assert_int_equal(store_folder("/var/lib/rlyeh/rlyeh.db", out, 8), -1);
	assert_int_equal(store_folder(NULL, out, sizeof(out)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_embedded_migrations),
		cmocka_unit_test(test_describe_and_folder),
		cmocka_unit_test_setup_teardown(test_open_settings, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_game_progress, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_marks, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_refused_write_in_transaction, tmp_setup,
		                                tmp_teardown),
		cmocka_unit_test_setup_teardown(test_reconnect, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_ids_lock_order, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_background_checkpoints, tmp_setup,
		                                tmp_teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_load_missing, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_one_open_game_per_channel, tmp_setup,
		                                tmp_teardown),
		cmocka_unit_test_setup_teardown(test_events_consecutive, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_games_open, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_results, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_players, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_long_ids_refused, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_from_empty, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_from_each_version, tmp_setup,
		                                tmp_teardown),
		cmocka_unit_test_setup_teardown(test_newer_database_refused, tmp_setup,
		                                tmp_teardown),
		cmocka_unit_test_setup_teardown(test_fault_injection, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_games_made, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_schema_rules, tmp_setup, tmp_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
