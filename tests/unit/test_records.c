/* records: the ratings kept as games end equal a replay of the games
 * (records_build), in every game kind, scope and calendar period; the
 * answers of /leaderboard and /stats read from them are the replay's. On
 * SQLite, and on PostgreSQL with RLYEH_TEST_DATABASE set (testdb.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rlyeh/cmd.h"
#include "rlyeh/i18n.h"
#include "rlyeh/records.h"
#include "rlyeh/store.h"
#include "testdb.h"

#define NPLAYERS 12
#define NSERVERS 3
#define LIMIT    2000000000 /* min_games above everyone: every row counts as unranked */

static const char *const kinds[] = { "cthulhu-dice", "elder-signs" };
static const char *const servers[NSERVERS] = { "s1", "s2", "s3" };
/* Each player's names over time: case, Markdown escapes, a shared name. */
static const char *const names[NPLAYERS][2] = {
	{ "Ann", "ann" },    { "Bob", "Bob\\_Jr" }, { "Cy", "Cy" },   { "Dee", "Dee" },
	{ "Eve", "Eve" },    { "Fay", "FAY" },      { "Gus", "Gus" }, { "Hal", "Ann" },
	{ "Ivy", "Ivy\\*" }, { "Jo", "Jo" },        { "Kai", "Kai" }, { "Lu", "Lu" },
};

struct fixture {
	char dir[64], path[TESTDB_MAX];
	struct store *st;
	uint64_t rng;
};

static uint32_t next(struct fixture *f)
{
	f->rng ^= f->rng << 13;
	f->rng ^= f->rng >> 7;
	f->rng ^= f->rng << 17;
	return (uint32_t)(f->rng >> 11);
}

static int below(struct fixture *f, int n)
{
	return (int)(next(f) % (uint32_t)n);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_records.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	testdb_fresh(f->path, f->dir, "r.db");
	f->rng = 0x9e3779b97f4a7c15ULL;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char p[TESTDB_MAX + 8];

	store_close(f->st);
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s%s", f->path, i == 0 ? "" : i == 1 ? "-wal" : "-shm");
		unlink(p);
	}
	rmdir(f->dir);
	free(f);
	return 0;
}

static struct store *open_at(const char *path, int version)
{
	struct store *st = NULL;
	char err[256];

	if (store_open_version(path, version, &st, err, sizeof(err)))
		fail_msg("open: %s", err);
	return st;
}

/* Writes one random finished game at time `at` (with `rate`, rated as the
 * bot rates it, in the same transaction). */
static void random_game(struct fixture *f, int64_t at, int rate)
{
	struct store_game g;
	struct store_member m[6];
	int n = 2 + below(f, 4), humans = 0, outcome = below(f, 10);
	int used[NPLAYERS] = { 0 };

	memset(&g, 0, sizeof(g));
	memset(m, 0, sizeof(m));
	snprintf(g.server, sizeof(g.server), "%s", servers[below(f, NSERVERS)]);
	snprintf(g.channel, sizeof(g.channel), "c%d", below(f, 1000000));
	snprintf(g.game, sizeof(g.game), "%s", kinds[below(f, 2)]);
	g.state = STORE_FINISHED;
	g.created_at = at - 1000;
	g.started_at = at - 900;
	g.finished_at = at;
	g.first = 0;
	g.winner = -1;
	for (int i = 0; i < n; i++) {
		int k = below(f, NPLAYERS);
		if (below(f, 6) == 0 || used[k]) {
			snprintf(m[i].policy, sizeof(m[i].policy), "random");
			snprintf(m[i].name, sizeof(m[i].name), "Computer %d", i);
		} else {
			used[k] = 1;
			humans++;
			snprintf(m[i].player, sizeof(m[i].player), "u%d", k);
			snprintf(m[i].name, sizeof(m[i].name), "%s", names[k][below(f, 3) == 0]);
		}
		m[i].place = 1;
	}
	if (outcome < 2) { /* Cthulhu wins */
		for (int i = 0; i < n; i++)
			m[i].cthulhu = 1;
	} else if (outcome == 2 && n > 2) { /* a shared win */
		m[0].place = m[1].place = 0;
	} else {
		g.winner = below(f, n);
		m[g.winner].place = 0;
	}
	(void)humans;
	assert_int_equal(store_begin(f->st), 0);
	assert_int_equal(store_game_create(f->st, &g), 0);
	assert_int_equal(store_members_put(f->st, g.id, m, n), 0);
	if (rate && records_game_end(f->st, &g, m, n))
		fail_msg("%s", store_errmsg(f->st));
	if (store_commit(f->st))
		fail_msg("commit: %s", store_errmsg(f->st));
}

/* The stored rows of a period are the replay's, to the bit. */
static void rows_equal_replay(struct store *st, const char *kind, const char *server, int span,
                              int64_t t)
{
	struct store_period p = { kind, server ? server : "", span, 0 };
	struct records r;
	int64_t end;
	int rows = -1;

	records_period(span, t, &p.starts, &end);
	assert_int_equal(records_build(st, kind, server, p.starts, end, &r), 0);
	assert_int_equal(store_ratings_unranked(st, &p, LIMIT, &rows), 0);
	assert_int_equal(rows, r.n);
	for (int i = 0; i < r.n; i++) {
		struct store_rating row;
		assert_int_equal(store_rating_get(st, &p, r.p[i].id, &row), 1);
		assert_string_equal(row.name, r.p[i].name);
		assert_int_equal(row.games, r.p[i].games);
		assert_int_equal(row.wins, r.p[i].wins);
		assert_int_equal(row.cthulhu, r.p[i].cthulhu);
		assert_memory_equal(&row.mu, &r.p[i].mu, sizeof(double));
		assert_memory_equal(&row.sigma, &r.p[i].sigma, sizeof(double));
	}
	records_free(&r);
}

/* The answer to `line` by `user` at `now`, from `source`. */
static void answer(struct store *st, const char *server, const char *user, const char *line,
                   int64_t now, int min_games, int lang, enum records_source source, char *buf,
                   size_t cap)
{
	struct bot_req req;
	struct text tx;

	memset(&req, 0, sizeof(req));
	req.server = server;
	req.channel = "c";
	req.user = user;
	req.name = user;
	assert_int_equal(cmd_parse(line, &req.cmd), CMD_OK);
	text_init(&tx, buf, cap);
	assert_int_equal(
	    records_answer(st, &req, now, min_games, lang, "cthulhu-dice", NULL, 0, source, &tx),
	    0);
}

/* Every answer from the rows equals the replay's, with 1, 3 and 20 games
 * to be ranked (20: past the counts by bucket, rated from 16 games up);
 * returns how many had a ranked line. */
static int answers_equal_replay(struct store *st, int64_t now)
{
	static const char *const periods[] = { "", " week", " month", " year" };
	static const char *const asks[] = { "u0",     "u1",  "u7",       "Ann",    "ann",
		                            "ANN",    "Bob", "Bob\\_Jr", "bob_jr", "Ivy*",
		                            "Ivy\\*", "Kai", "nobody" };
	char line[128], stored[4096], replay[4096];
	int ranked = 0;

	for (int k = 0; k < 2; k++)
		for (int s = 0; s <= NSERVERS; s++)
			for (int p = 0; p < 4; p++)
				for (int mi = 0; mi < 3; mi++) {
					const int min = mi == 0 ? 1 : mi == 1 ? 3 : 20;
					const char *server = s < NSERVERS ? servers[s] : "s1";
					const char *all = s < NSERVERS ? "" : " all";
					snprintf(line, sizeof(line), "/leaderboard %s%s%s",
					         kinds[k], all, periods[p]);
					answer(st, server, "u3", line, now, min, I18N_EN,
					       RECORDS_STORED, stored, sizeof(stored));
					answer(st, server, "u3", line, now, min, I18N_EN,
					       RECORDS_REBUILD, replay, sizeof(replay));
					assert_string_equal(stored, replay);
					ranked += strstr(stored, "\n1. ") != NULL;
					for (size_t a = 0; a < sizeof(asks) / sizeof(asks[0]);
					     a++) {
						snprintf(line, sizeof(line), "/stats %s %s%s%s",
						         asks[a], kinds[k], all, periods[p]);
						answer(st, server, "u3", line, now, min, I18N_NL,
						       RECORDS_STORED, stored, sizeof(stored));
						answer(st, server, "u3", line, now, min, I18N_NL,
						       RECORDS_REBUILD, replay, sizeof(replay));
						assert_string_equal(stored, replay);
					}
				}
	return ranked;
}

static void all_rows_equal_replay(struct store *st, int64_t t)
{
	for (int k = 0; k < 2; k++)
		for (int s = 0; s <= NSERVERS; s++)
			for (int span = 0; span < RECORDS_SPANS; span++)
				rows_equal_replay(st, kinds[k], s < NSERVERS ? servers[s] : NULL,
				                  span, t);
}

static void test_periods(void **unused)
{
	int64_t s, e;

	(void)unused;
	/* Tuesday 2024-12-31 23:59:59.999 UTC and the next millisecond. */
	records_period(RECORDS_WEEK, 1735689599999LL, &s, &e);
	assert_int_equal(s, 1735516800000LL); /* Monday 2024-12-30 */
	assert_int_equal(e, 1735516800000LL + 7 * 86400000LL);
	records_period(RECORDS_MONTH, 1735689599999LL, &s, &e);
	assert_int_equal(s, 1733011200000LL);
	assert_int_equal(e, 1735689600000LL);
	records_period(RECORDS_YEAR, 1735689599999LL, &s, &e);
	assert_int_equal(s, 1704067200000LL);
	assert_int_equal(e, 1735689600000LL);
	records_period(RECORDS_WEEK, 1735689600000LL, &s, &e);
	assert_int_equal(s, 1735516800000LL); /* the week goes on into 2025 */
	records_period(RECORDS_MONTH, 1735689600000LL, &s, &e);
	assert_int_equal(s, 1735689600000LL);
	assert_int_equal(e, 1738368000000LL);
	records_period(RECORDS_YEAR, 1735689600000LL, &s, &e);
	assert_int_equal(s, 1735689600000LL);
	/* A leap day; Monday 00:00 starts its own week. */
	records_period(RECORDS_MONTH, 1709208000000LL, &s, &e);
	assert_int_equal(e, 1709251200000LL);
	records_period(RECORDS_WEEK, 1709208000000LL, &s, &e);
	assert_int_equal(s, 1708905600000LL);
	records_period(RECORDS_WEEK, 1708905600000LL, &s, &e);
	assert_int_equal(s, 1708905600000LL);
	records_period(RECORDS_ALL_TIME, 1708905600000LL, &s, &e);
	assert_int_equal(s, 0);
	/* The first days of 1970 belong to a week that began before it. */
	records_period(RECORDS_WEEK, 1000, &s, &e);
	assert_int_equal(s, 0);
	assert_int_equal(e, 4 * 86400000LL);
}

/* Random histories over 14 months, across a year's end, with games in
 * the same millisecond and a clock set back: after every stretch, every
 * stored row is the replay's and every answer the replay's. */
static void test_stored_equals_replay(void **state)
{
	struct fixture *f = *state;
	int64_t t = 1761955200000LL; /* 2025-11-01 */
	int ranked = 0;

	f->st = open_at(f->path, store_schema_latest());
	assert_int_equal(records_prepare(f->st), 0);
	assert_int_equal(store_ratings_pending(f->st), 0);
	for (int stretch = 0; stretch < 8; stretch++) {
		for (int i = 0; i < 120; i++) {
			int step = below(f, 20);
			if (step == 0)
				t -= below(f, 3 * 86400000); /* the clock set back */
			else if (step > 2)                   /* 1, 2: the same millisecond */
				t += below(f, 86400000);
			random_game(f, t, 1);
		}
		all_rows_equal_replay(f->st, t);
		/* Earlier periods too: a week, a month and a year back. */
		all_rows_equal_replay(f->st, t - 7 * 86400000LL);
		all_rows_equal_replay(f->st, t - 31 * 86400000LL);
		all_rows_equal_replay(f->st, t - 366 * 86400000LL);
		if (stretch % 2)
			ranked += answers_equal_replay(f->st, t);
	}
	/* The answers were not all empty. */
	assert_true(ranked > 50);
}

/* A game's end whose ratings cannot be written is not written either. */
static void test_failed_rating_rolls_back(void **state)
{
	struct fixture *f = *state;
	struct store_game g;
	struct store_member m[2];
	struct store_period p = { "cthulhu-dice", "", RECORDS_ALL_TIME, 0 };
	struct store_rating row;
	char sql_before[4096], after[4096];

	f->st = open_at(f->path, store_schema_latest());
	assert_int_equal(records_prepare(f->st), 0);
	for (int i = 0; i < 40; i++)
		random_game(f, 1761955200000LL + i * 3600000LL, 1);
	answer(f->st, "s1", "u0", "/leaderboard all", 1761955200000LL + 86400000LL, 1, I18N_EN,
	       RECORDS_STORED, sql_before, sizeof(sql_before));
	memset(&g, 0, sizeof(g));
	memset(m, 0, sizeof(m));
	snprintf(g.server, sizeof(g.server), "s1");
	snprintf(g.channel, sizeof(g.channel), "c");
	snprintf(g.game, sizeof(g.game), "cthulhu-dice");
	g.state = STORE_FINISHED;
	g.created_at = g.finished_at = 1761955200000LL + 50 * 3600000LL;
	snprintf(m[0].player, sizeof(m[0].player), "u0");
	snprintf(m[1].player, sizeof(m[1].player), "u1");
	snprintf(m[0].name, sizeof(m[0].name), "Ann");
	snprintf(m[1].name, sizeof(m[1].name), "Bob");
	m[0].place = 0;
	m[1].place = 1;
	/* Every write of the game's end fails in turn, until none is left. */
	for (int writes = 1, rc = -1; rc != 0; writes++) {
		assert_true(writes < 40);
		assert_int_equal(store_begin(f->st), 0);
		assert_int_equal(store_game_create(f->st, &g), 0);
		assert_int_equal(store_members_put(f->st, g.id, m, 2), 0);
		store_fail_after(f->st, writes);
		rc = records_game_end(f->st, &g, m, 2);
		store_fail_after(f->st, -1);
		store_rollback(f->st);
		answer(f->st, "s1", "u0", "/leaderboard all", 1761955200000LL + 86400000LL, 1,
		       I18N_EN, RECORDS_STORED, after, sizeof(after));
		assert_string_equal(after, sql_before);
	}
	assert_int_equal(store_rating_get(f->st, &p, "u0", &row), 1);
	all_rows_equal_replay(f->st, 1761955200000LL + 86400000LL);
}

/* Ends a game of `n` humans u0.. (names[i][rename] each, u0 the winner)
 * in its own transaction, with the store failing after `writes` writes
 * of the game's end (-1: never); returns what records_game_end did. */
static int end_game(struct store *st, int64_t at, int n, int rename, int writes)
{
	struct store_game g;
	struct store_member m[4];
	int rc;

	memset(&g, 0, sizeof(g));
	memset(m, 0, sizeof(m));
	snprintf(g.server, sizeof(g.server), "%s", servers[0]);
	snprintf(g.channel, sizeof(g.channel), "c");
	snprintf(g.game, sizeof(g.game), "%s", kinds[0]);
	g.state = STORE_FINISHED;
	g.created_at = g.finished_at = at;
	for (int i = 0; i < n; i++) {
		snprintf(m[i].player, sizeof(m[i].player), "u%d", i);
		snprintf(m[i].name, sizeof(m[i].name), "%s", names[i][i == 0 ? rename : 0]);
		m[i].place = i == 0 ? 0 : 1;
	}
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_game_create(st, &g), 0);
	assert_int_equal(store_members_put(st, g.id, m, n), 0);
	store_fail_after(st, writes);
	rc = records_game_end(st, &g, m, n);
	store_fail_after(st, -1);
	if (rc == 0)
		assert_int_equal(store_commit(st), 0);
	else
		store_rollback(st);
	return rc;
}

/* A game's end writes its ratings with four statements: the game's place
 * in the rating order, the counts taken off, every row of every period
 * at once, the counts added; and one more for each row whose name
 * changed. The rows and counts are those of the replay. */
static void test_game_end_in_four_writes(void **state)
{
	struct fixture *f = *state;
	int64_t t = 1761955200000LL; /* 2025-11-01 */
	struct store_period p = { "cthulhu-dice", "s1", RECORDS_WEEK, 0 };
	struct store_rating row;
	int64_t end;

	f->st = open_at(f->path, store_schema_latest());
	assert_int_equal(records_prepare(f->st), 0);
	/* New rows only: no count to take off. */
	assert_int_equal(end_game(f->st, t, 2, 0, 2), -1);
	assert_int_equal(end_game(f->st, t, 2, 0, 3), 0);
	/* Two players' rows over those read, a third player's new. */
	assert_int_equal(end_game(f->st, t + 1000, 3, 0, 3), -1);
	assert_int_equal(end_game(f->st, t + 1000, 3, 0, 4), 0);
	records_period(RECORDS_WEEK, t, &p.starts, &end);
	assert_int_equal(store_rating_get(f->st, &p, "u0", &row), 1);
	assert_int_equal(row.games, 2);
	assert_int_equal(row.wins, 2);
	assert_int_equal(store_rating_get(f->st, &p, "u2", &row), 1);
	assert_int_equal(row.games, 1);
	/* u0 now under another name: its 8 rows again with the name. */
	assert_int_equal(end_game(f->st, t + 2000, 3, 1, 4 + 7), -1);
	assert_int_equal(end_game(f->st, t + 2000, 3, 1, 4 + 8), 0);
	assert_int_equal(store_rating_get(f->st, &p, "u0", &row), 1);
	assert_string_equal(row.name, names[0][1]);
	assert_int_equal(row.games, 3);
	all_rows_equal_replay(f->st, t);
	answers_equal_replay(f->st, t + 3000);
}

/* A database of schema 6, the one before the ratings (0007), with
 * finished games: after the upgrade, the bot's preparation builds every
 * row, equal to the replay; later games go on from there. */
static void test_upgrade_builds_rows(void **state)
{
	struct fixture *f = *state;
	int64_t t = 1733011200000LL; /* 2024-12-01 */

	f->st = open_at(f->path, 6);
	for (int i = 0; i < 400; i++) {
		t += below(f, 3) == 0 ? 0 : below(f, 2 * 86400000);
		random_game(f, t, 0);
	}
	{
		/* An unfinished game is not rated. */
		struct store_game g;
		memset(&g, 0, sizeof(g));
		snprintf(g.server, sizeof(g.server), "s1");
		snprintf(g.channel, sizeof(g.channel), "open");
		snprintf(g.game, sizeof(g.game), "cthulhu-dice");
		g.state = STORE_PLAYING;
		g.created_at = t;
		assert_int_equal(store_game_create(f->st, &g), 0);
	}
	store_close(f->st);
	f->st = open_at(f->path, store_schema_latest());
	assert_int_equal(store_ratings_pending(f->st), 1);
	/* Before the build, answers replay the games. */
	{
		char a[4096], b[4096];
		answer(f->st, "s1", "u0", "/leaderboard", t, 1, I18N_EN, RECORDS_STORED, a,
		       sizeof(a));
		answer(f->st, "s1", "u0", "/leaderboard", t, 1, I18N_EN, RECORDS_REBUILD, b,
		       sizeof(b));
		assert_string_equal(a, b);
		assert_non_null(strstr(a, "\n1. "));
	}
	assert_int_equal(records_prepare(f->st), 0);
	assert_int_equal(store_ratings_pending(f->st), 0);
	assert_int_equal(records_prepare(f->st), 0); /* once */
	all_rows_equal_replay(f->st, t);
	all_rows_equal_replay(f->st, t - 40 * 86400000LL);
	all_rows_equal_replay(f->st, t - 400 * 86400000LL);
	assert_true(answers_equal_replay(f->st, t) > 10);
	for (int i = 0; i < 100; i++) {
		t += below(f, 3) == 0 ? 0 : below(f, 86400000);
		random_game(f, t, 1);
	}
	all_rows_equal_replay(f->st, t);
	answers_equal_replay(f->st, t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_periods),
		cmocka_unit_test_setup_teardown(test_stored_equals_replay, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_rating_rolls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upgrade_builds_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_game_end_in_four_writes, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
