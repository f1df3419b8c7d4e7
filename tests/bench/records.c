/* Benchmark of /leaderboard and /stats: the answer from the stored
 * ratings against the replay of every game (records_build) it replaced,
 * at several numbers of finished games, and the cost the stored ratings
 * add to a game's end. Not a test: it prints numbers.
 *
 * Usage: bench_records DIR [GAMES...]   (default 10000 100000 1000000)
 *
 * The table goes to stdout; the times of generation and build, the cost
 * of a game's end and the load average go to stderr.
 *
 * For each size, a database in DIR gets GAMES finished 4-player
 * Cthulhu Dice games (SQL, one transaction) on 50 servers of 200 players
 * each, spread over 400 days across a year's end; the ratings are then
 * built as after an upgrade (records_prepare, timed). Each answer is
 * timed as the bot calls it (records_answer: the store's reads and the
 * text), a random server and player each call. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "rlyeh/cmd.h"
#include "rlyeh/i18n.h"
#include "rlyeh/records.h"
#include "rlyeh/store.h"

#define SERVERS   100
#define PLAYERS   200 /* per server, a multiple of 4 */
#define DAY       86400000LL
#define T0        1735689600000LL /* 2025-01-01 */
#define SPAN_DAYS 400
#define MIN_GAMES 3

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static unsigned below(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)((rng >> 11) % n);
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench_records: %s: %s\n", what, why);
	exit(1);
}

static void exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		die(sql, err ? err : "?");
}

/* Writes n finished games into the database at path (schema latest). */
static void generate(const char *path, long n)
{
	sqlite3 *db;
	char sql[2048];
	long step = SPAN_DAYS * DAY / n;

	if (sqlite3_open(path, &db) != SQLITE_OK)
		die(path, sqlite3_errmsg(db));
	exec(db, "PRAGMA synchronous = OFF; PRAGMA cache_size = -262144; BEGIN");
	snprintf(sql, sizeof(sql),
	         "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %ld) "
	         "INSERT INTO games (id, server, channel, game, state, seed, rng0, rng1, rng2, "
	         "rng3, first, moves, winner, created_at, started_at, finished_at) "
	         "SELECT i, 'g' || (i %% %d), 'c' || (i %% %d), 'cthulhu-dice', 2, i, 1, 2, 3, 4, "
	         "0, 10, -1, %lld + i * %ld - 600000, %lld + i * %ld - 500000, %lld + i * %ld "
	         "FROM n",
	         n, SERVERS, SERVERS, T0, step, T0, step, T0, step);
	exec(db, sql);
	/* h: a hash of the game; players h, h + P/4, h + P/2, h + 3P/4 of
	 * the server; the winner h/7 mod 4, or Cthulhu one game in ten. */
	snprintf(sql, sizeof(sql),
	         "WITH k(idx) AS (VALUES (0), (1), (2), (3)), "
	         "g(id, s, h) AS (SELECT id, id %% %d, (id * 2654435761) %% 1000003 FROM games) "
	         "INSERT INTO members (game_id, idx, player, name, place, cthulhu) "
	         "SELECT g.id, k.idx, 'p' || (g.s * %d + (g.h + k.idx * %d) %% %d), "
	         "'Player ' || (g.s * %d + (g.h + k.idx * %d) %% %d), "
	         "CASE WHEN (g.h / 29) %% 10 = 0 THEN 1 WHEN (g.h / 7) %% 4 = k.idx THEN 0 "
	         "ELSE 1 END, (g.h / 29) %% 10 = 0 FROM g, k ORDER BY g.id, k.idx",
	         SERVERS, PLAYERS, PLAYERS / 4, PLAYERS, PLAYERS, PLAYERS / 4, PLAYERS);
	exec(db, sql);
	exec(db, "COMMIT");
	sqlite3_close(db);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Times `calls` answers of kind q (0 leaderboard of a server, 1 of all
 * servers, 2 stats on a server, 3 on all servers) from source; sets the
 * median and p99 in ms. */
static void measure(struct store *st, int q, enum records_source source, int calls, int64_t now,
                    double *median, double *p99)
{
	double *t = malloc((size_t)calls * sizeof(*t));
	char server[16], user[16], line[64], buf[4096];

	if (!t)
		die("measure", "out of memory");
	for (int i = 0; i < calls; i++) {
		struct bot_req req;
		struct text tx;
		unsigned s = below(SERVERS);
		double t0;

		snprintf(server, sizeof(server), "g%u", s);
		snprintf(user, sizeof(user), "p%u", s * PLAYERS + below(PLAYERS));
		snprintf(line, sizeof(line), "%s%s", q < 2 ? "/leaderboard" : "/stats",
		         q % 2 ? " all" : "");
		memset(&req, 0, sizeof(req));
		req.server = server;
		req.channel = "c";
		req.user = user;
		req.name = user;
		if (cmd_parse(line, &req.cmd) != CMD_OK)
			die(line, "does not parse");
		text_init(&tx, buf, sizeof(buf));
		t0 = now_s();
		if (records_answer(st, &req, now, MIN_GAMES, I18N_EN, "cthulhu-dice", NULL, 0,
		                   source, &tx))
			die("answer", store_errmsg(st));
		t[i] = (now_s() - t0) * 1e3;
		if (q >= 2 && strstr(buf, "No finished games"))
			die("stats without games", buf);
	}
	qsort(t, (size_t)calls, sizeof(*t), cmp_double);
	*median = calls % 2 ? t[calls / 2] : (t[calls / 2 - 1] + t[calls / 2]) / 2;
	*p99 = t[(calls * 99 + 99) / 100 - 1];
	free(t);
}

/* The cost of a game's end with and without its ratings: `n` games each
 * way, alternating, each in its own transaction as the bot writes it.
 * Prints the mean ms of each, and of records_game_end and the commit. */
static void game_end_cost(struct store *st, int64_t at, int n)
{
	double with = 0, without = 0, rate = 0, commit_with = 0, commit_without = 0;

	for (int i = 0; i < 2 * n; i++) {
		struct store_game g;
		struct store_member m[4];
		unsigned s = below(SERVERS);
		double t0 = now_s(), t1, t2;

		memset(&g, 0, sizeof(g));
		memset(m, 0, sizeof(m));
		snprintf(g.server, sizeof(g.server), "g%u", s);
		snprintf(g.channel, sizeof(g.channel), "end%d", i);
		snprintf(g.game, sizeof(g.game), "cthulhu-dice");
		g.state = STORE_FINISHED;
		g.created_at = g.finished_at = at + i;
		g.winner = 0;
		for (int k = 0; k < 4; k++) {
			snprintf(m[k].player, sizeof(m[k].player), "p%u",
			         s * PLAYERS + (unsigned)(i * 7 + k * PLAYERS / 4) % PLAYERS);
			snprintf(m[k].name, sizeof(m[k].name), "Player %u",
			         s * PLAYERS + (unsigned)(i * 7 + k * PLAYERS / 4) % PLAYERS);
			m[k].place = k != 0;
		}
		if (store_begin(st) || store_game_create(st, &g) ||
		    store_members_put(st, g.id, m, 4))
			die("game end", store_errmsg(st));
		t1 = now_s();
		if (i % 2 == 0 && records_game_end(st, &g, m, 4))
			die("game end", store_errmsg(st));
		t2 = now_s();
		if (store_commit(st))
			die("game end", store_errmsg(st));
		if (i % 2 == 0) {
			with += now_s() - t0;
			rate += t2 - t1;
			commit_with += now_s() - t2;
		} else {
			without += now_s() - t0;
			commit_without += now_s() - t2;
		}
	}
	fflush(stdout);
	fprintf(stderr,
	        "game end (create, members, commit): %.3f ms without ratings, %.3f ms with; "
	        "added %.3f ms per game (records_game_end %.3f ms, commit %.3f ms against "
	        "%.3f ms; %d games each)\n",
	        without * 1e3 / n, with * 1e3 / n, (with - without) * 1e3 / n, rate * 1e3 / n,
	        commit_with * 1e3 / n, commit_without * 1e3 / n, n);
}

static void loadavg(char *buf, size_t cap)
{
	FILE *f = fopen("/proc/loadavg", "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)cap, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

int main(int argc, char **argv)
{
	static const char *const qname[] = { "/leaderboard", "/leaderboard all", "/stats",
		                             "/stats all" };
	long sizes[8] = { 10000, 100000, 1000000 };
	int nsizes = 3;
	char la[128];

	if (argc < 2) {
		fprintf(stderr, "usage: bench_records DIR [GAMES...]\n");
		return 2;
	}
	if (argc > 2) {
		nsizes = 0;
		for (int i = 2; i < argc && nsizes < 8; i++)
			sizes[nsizes++] = strtol(argv[i], NULL, 10);
	}
	printf("| games | answer | replay median (ms) | replay p99 (ms) | replay runs | stored "
	       "median (ms) | stored p99 (ms) | stored runs | replay / stored |\n");
	printf("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (int z = 0; z < nsizes; z++) {
		long n = sizes[z];
		char path[512], err[256];
		struct store *st;
		double t0, gen, build;
		int64_t now = T0 + SPAN_DAYS * DAY;

		snprintf(path, sizeof(path), "%s/records-%ld.db", argv[1], n);
		unlink(path);
		if (store_open(path, &st, err, sizeof(err)))
			die(path, err);
		store_close(st);
		t0 = now_s();
		generate(path, n);
		gen = now_s() - t0;
		if (store_open(path, &st, err, sizeof(err)))
			die(path, err);
		t0 = now_s();
		if (records_prepare(st))
			die("build", store_errmsg(st));
		build = now_s() - t0;
		loadavg(la, sizeof(la));
		fflush(stdout);
		fprintf(stderr,
		        "%ld games: generated in %.1f s, ratings built in %.1f s; load %s\n", n,
		        gen, build, la);
		for (int q = 0; q < 4; q++) {
			/* The replay of all servers reads every game: few runs. */
			int slow = q % 2 ? (n >= 1000000  ? 2
			                    : n >= 100000 ? 5
			                                  : 20)
			                 : (n >= 1000000 ? 5 : 20);
			double rm, rp, sm, sp;
			measure(st, q, RECORDS_STORED, 50, now, &sm, &sp); /* warm */
			measure(st, q, RECORDS_REBUILD, slow, now, &rm, &rp);
			measure(st, q, RECORDS_STORED, 2000, now, &sm, &sp);
			printf("| %ld | `%s` | %.1f | %.1f | %d | %.3f | %.3f | %d | %.0f |\n", n,
			       qname[q], rm, rp, slow, sm, sp, 2000, rm / sm);
			fflush(stdout);
		}
		/* As the daemon does: WAL checkpoints off the writing thread. */
		if (store_checkpoint_background(st))
			die("checkpointer", store_errmsg(st));
		game_end_cost(st, now + DAY, 300);
		loadavg(la, sizeof(la));
		fprintf(stderr, "load average after %ld games: %s\n", n, la);
		store_close(st);
		unlink(path);
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "-wal");
		unlink(path);
		path[strlen(path) - 4] = '\0';
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "-shm");
		unlink(path);
	}
	return 0;
}
