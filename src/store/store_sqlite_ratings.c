/* The SQLite store: ratings (built, kept, ranked and listed). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "powervfs.h"
#include "rlyeh/store.h"
#include "store_sqlite.h"

#include "store_int.h"
#include "store_sqlite_int.h"

int store_sqlite_cache_bulk(struct store_sqlite *st, int on)
{
	if (sqlite3_exec(st->db,
	                 on ? "PRAGMA cache_size = -262144" : "PRAGMA cache_size = " CACHE_SIZE,
	                 NULL, NULL, NULL)) {
		store_sqlite_set_db_err(st, "cache size");
		return -1;
	}
	return 0;
}

int store_sqlite_ratings_pending(struct store_sqlite *st)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_RATINGS_PENDING);
	int rc, pending = -1;

	if (!s)
		return -1;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(s, 0);
		pending = v && strcmp(v, "build") == 0;
	} else if (rc == SQLITE_DONE) {
		store_sqlite_set_err(st, "ratings: the database has none (schema older than 7)");
	} else {
		store_sqlite_set_db_err(st, "ratings");
	}
	store_sqlite_stmt_done(s);
	return pending;
}

int store_sqlite_ratings_built(struct store_sqlite *st)
{
	return store_sqlite_run_plain(st, ST_RATINGS_BUILT, "ratings built");
}

int store_sqlite_ratings_clear(struct store_sqlite *st)
{
	if (store_sqlite_run_plain(st, ST_RATINGS_CLEAR, "clear ratings"))
		return -1;
	return store_sqlite_run_plain(st, ST_RATING_COUNTS_CLEAR, "clear ratings");
}

int store_sqlite_games_rate_all(struct store_sqlite *st)
{
	return store_sqlite_run_plain(st, ST_GAMES_RATE_ALL, "rate games");
}

int store_sqlite_game_rate(struct store_sqlite *st, int64_t id)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_GAME_RATE);

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	return store_sqlite_run(st, ST_GAME_RATE, "rate game");
}

int store_sqlite_results_rated(struct store_sqlite *st, store_result_fn fn, void *ctx)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_RESULTS_RATED);
	struct store_member m[STORE_MEMBERS_MAX];
	char server[STORE_ID_MAX], game[STORE_KIND_MAX];
	struct store_result r = { 0, 0, server, 0, m, game };
	int rc, fn_rc = 0;

	if (!s)
		return -1;
	/* The rows of a game come together; a game is handed on when the next
	 * one starts, so the statement runs on meanwhile: fn must not use
	 * the store. */
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);
		struct store_member *x;

		if (r.nmembers > 0 && id != r.game_id) {
			if ((fn_rc = fn(ctx, &r)) != 0)
				break;
			r.nmembers = 0;
		}
		if (r.nmembers == 0) {
			r.game_id = id;
			r.finished_at = sqlite3_column_int64(s, 1);
			if (store_sqlite_col_id(st, s, 2, server, sizeof(server), "server id") ||
			    store_sqlite_col_id(st, s, 3, game, sizeof(game), "game kind")) {
				store_sqlite_stmt_done(s);
				return -1;
			}
		}
		if (r.nmembers == STORE_MEMBERS_MAX) {
			store_sqlite_set_err(st, "game %lld has more than %d members",
			                     (long long)id, STORE_MEMBERS_MAX);
			store_sqlite_stmt_done(s);
			return -1;
		}
		x = &m[r.nmembers++];
		memset(x, 0, sizeof(*x));
		if (store_sqlite_col_id(st, s, 4, x->player, sizeof(x->player), "player id")) {
			store_sqlite_stmt_done(s);
			return -1;
		}
		store_sqlite_col_text(s, 5, x->name, sizeof(x->name));
		x->place = sqlite3_column_int(s, 6);
		x->cthulhu = sqlite3_column_int(s, 7);
	}
	store_sqlite_stmt_done(s);
	if (fn_rc)
		return fn_rc;
	if (rc != SQLITE_DONE) {
		store_sqlite_set_db_err(st, "rated results");
		return -1;
	}
	return r.nmembers > 0 ? fn(ctx, &r) : 0;
}

/* Binds the period and player of a ratings key from parameter k on. */
static int bind_key(struct store_sqlite *st, sqlite3_stmt *s, int k, const struct store_period *p,
                    const char *player)
{
	if (!p->game || !p->scope) {
		store_sqlite_set_err(st, "ratings: no game kind or scope");
		return -1;
	}
	if (store_sqlite_bind_id(st, s, k, p->game, STORE_KIND_MAX, "game kind") ||
	    store_sqlite_bind_id(st, s, k + 1, p->scope, STORE_ID_MAX, "scope"))
		return -1;
	sqlite3_bind_int(s, k + 2, p->span);
	sqlite3_bind_int64(s, k + 3, p->starts);
	return player ? store_sqlite_bind_id(st, s, k + 4, player, STORE_ID_MAX, "player id") : 0;
}

/* Binds ?1 .. ?4 of a ratings statement: the period. */
static int bind_period(struct store_sqlite *st, sqlite3_stmt *s, const struct store_period *p)
{
	return bind_key(st, s, 1, p, NULL);
}

/* Binds the rating_counts key of r in period p from parameter k on. */
static int bind_count(struct store_sqlite *st, sqlite3_stmt *s, int k, const struct store_period *p,
                      const struct store_rating *r)
{
	if (bind_key(st, s, k, p, NULL))
		return -1;
	sqlite3_bind_int64(s, k + 4, store_rating_bucket(r->ordinal));
	sqlite3_bind_int(s, k + 5, store_rating_games(r->games));
	return 0;
}

/* Adds delta (1 or -1) to the count of r's bucket and games in period p. */
static int count_add(struct store_sqlite *st, const struct store_period *p,
                     const struct store_rating *r, int delta)
{
	enum stmt_id id = delta > 0 ? ST_RATING_COUNT : ST_RATING_UNCOUNT;
	sqlite3_stmt *s = store_sqlite_stmt_get(st, id);

	if (!s)
		return -1;
	if (bind_count(st, s, 1, p, r)) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	if (delta > 0)
		sqlite3_bind_int(s, 7, delta);
	if (store_sqlite_run(st, id, "count rating"))
		return -1;
	if (delta < 0 && sqlite3_changes(st->db) != 1) {
		store_sqlite_set_err(st, "count rating of %s: not counted", r->player);
		return -1;
	}
	return 0;
}

/* Reads a row of RATING_COLS. */
static int col_rating(struct store_sqlite *st, sqlite3_stmt *s, struct store_rating *r)
{
	memset(r, 0, sizeof(*r));
	if (store_sqlite_col_id(st, s, 0, r->player, sizeof(r->player), "player id"))
		return -1;
	store_sqlite_col_text(s, 1, r->name, sizeof(r->name));
	store_sqlite_col_text(s, 2, r->name_key, sizeof(r->name_key));
	r->mu = sqlite3_column_double(s, 3);
	r->sigma = sqlite3_column_double(s, 4);
	r->ordinal = sqlite3_column_double(s, 5);
	r->games = sqlite3_column_int(s, 6);
	r->wins = sqlite3_column_int(s, 7);
	r->cthulhu = sqlite3_column_int(s, 8);
	return 0;
}

/* Steps the bound statement s and calls fn for each row; resets s. */
static int walk_ratings(struct store_sqlite *st, sqlite3_stmt *s, store_rating_fn fn, void *ctx)
{
	struct store_rating r;
	int rc, fn_rc = 0;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (col_rating(st, s, &r)) {
			store_sqlite_stmt_done(s);
			return -1;
		}
		if ((fn_rc = fn(ctx, &r)) != 0)
			break;
	}
	store_sqlite_stmt_done(s);
	if (fn_rc)
		return fn_rc;
	if (rc != SQLITE_DONE) {
		store_sqlite_set_db_err(st, "ratings");
		return -1;
	}
	return 0;
}

/* Steps the bound statement s, which answers one count, into *n. */
static int count_of(struct store_sqlite *st, sqlite3_stmt *s, int *n)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_ROW)
		*n = sqlite3_column_int(s, 0);
	else
		store_sqlite_set_db_err(st, "count ratings");
	store_sqlite_stmt_done(s);
	return rc == SQLITE_ROW ? 0 : -1;
}

int store_sqlite_rating_get(struct store_sqlite *st, const struct store_period *p,
                            const char *player, struct store_rating *out)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_RATING_GET);
	int rc;

	if (!s)
		return -1;
	if (bind_period(st, s, p) ||
	    store_sqlite_bind_id(st, s, 5, player, STORE_ID_MAX, "player id")) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		rc = col_rating(st, s, out) ? -1 : 1;
	} else if (rc == SQLITE_DONE) {
		rc = 0;
	} else {
		store_sqlite_set_db_err(st, "get rating");
		rc = -1;
	}
	store_sqlite_stmt_done(s);
	return rc;
}

/* Upserts row r of period p, names and all. */
static int rating_upsert(struct store_sqlite *st, const struct store_period *p,
                         const struct store_rating *r)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_RATING_PUT);

	if (!s)
		return -1;
	if (bind_period(st, s, p) ||
	    store_sqlite_bind_id(st, s, 5, r->player, sizeof(r->player), "player id") ||
	    store_sqlite_bind_cut(st, s, 6, r->name, strnlen(r->name, sizeof(r->name)),
	                          sizeof(r->name), "player name") ||
	    store_sqlite_bind_cut(st, s, 7, r->name_key, strnlen(r->name_key, sizeof(r->name_key)),
	                          sizeof(r->name_key), "name key")) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	sqlite3_bind_double(s, 8, r->mu);
	sqlite3_bind_double(s, 9, r->sigma);
	sqlite3_bind_double(s, 10, r->ordinal);
	sqlite3_bind_int(s, 11, r->games);
	sqlite3_bind_int(s, 12, r->wins);
	sqlite3_bind_int(s, 13, r->cthulhu);
	return store_sqlite_run(st, ST_RATING_PUT, "put rating");
}

/* Writes the numbers of r into its existing row of period p. */
static int rating_update(struct store_sqlite *st, const struct store_period *p,
                         const struct store_rating *r)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_RATING_UPDATE);

	if (!s)
		return -1;
	if (bind_period(st, s, p) ||
	    store_sqlite_bind_id(st, s, 5, r->player, sizeof(r->player), "player id")) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	sqlite3_bind_double(s, 6, r->mu);
	sqlite3_bind_double(s, 7, r->sigma);
	sqlite3_bind_double(s, 8, r->ordinal);
	sqlite3_bind_int(s, 9, r->games);
	sqlite3_bind_int(s, 10, r->wins);
	sqlite3_bind_int(s, 11, r->cthulhu);
	if (store_sqlite_run(st, ST_RATING_UPDATE, "update rating"))
		return -1;
	if (sqlite3_changes(st->db) != 1) {
		store_sqlite_set_err(st, "update rating of %s: no such row", r->player);
		return -1;
	}
	return 0;
}

int store_sqlite_rating_put(struct store_sqlite *st, const struct store_period *p,
                            const struct store_rating *r, const struct store_rating *old)
{
	if (old && strcmp(old->player, r->player) != 0) {
		store_sqlite_set_err(st, "put rating: %s is not %s", r->player, old->player);
		return -1;
	}
	if (old && (count_add(st, p, old, -1) ||
	            (strcmp(old->name, r->name) == 0 && strcmp(old->name_key, r->name_key) == 0
	                 ? rating_update(st, p, r)
	                 : rating_upsert(st, p, r))))
		return -1;
	if (!old && rating_upsert(st, p, r))
		return -1;
	return count_add(st, p, r, 1);
}

/* The SQL of batch statement `id` for n rows: the head, n copies of the
 * row's parameters separated by commas, the tail. */
static const struct {
	const char *head, *row, *tail;
} batch_defs[BATCH_KINDS] = {
	[BATCH_READ] = { "SELECT r.player, r.name, r.name_key, r.mu, r.sigma, r.ordinal, r.games, "
	                 "r.wins, r.cthulhu, d.column1 FROM (VALUES ",
	                 "(?,?,?,?,?,?)",
	                 ") AS d CROSS JOIN ratings AS r WHERE r.game = d.column2 AND "
	                 "r.scope = d.column3 AND r.span = d.column4 AND r.starts = d.column5 AND "
	                 "r.player = d.column6" },
	/* Names as they were: ratings_name stays as it is (store_ratings_write
	 * writes a changed name apart). */
	[BATCH_ROWS] = { "INSERT INTO ratings (game, scope, span, starts, player, name, name_key, "
	                 "mu, "
	                 "sigma, ordinal, games, wins, cthulhu) VALUES ",
	                 "(?,?,?,?,?,?,?,?,?,?,?,?,?)",
	                 " ON CONFLICT (game, scope, span, starts, player) DO UPDATE SET "
	                 "mu = excluded.mu, sigma = excluded.sigma, ordinal = excluded.ordinal, "
	                 "games = excluded.games, wins = excluded.wins, cthulhu = "
	                 "excluded.cthulhu" },
	/* A key given twice takes off two; a row of NULLs takes off nothing. */
	[BATCH_UNCOUNT] = { "WITH d (game, scope, span, starts, bucket, games) AS (VALUES ",
	                    "(?,?,?,?,?,?)",
	                    ") UPDATE rating_counts SET n = n - u.k FROM (SELECT game, scope, "
	                    "span, "
	                    "starts, bucket, games, count(*) AS k FROM d GROUP BY game, scope, "
	                    "span, "
	                    "starts, bucket, games) AS u WHERE rating_counts.game = u.game AND "
	                    "rating_counts.scope = u.scope AND rating_counts.span = u.span AND "
	                    "rating_counts.starts = u.starts AND rating_counts.bucket = u.bucket "
	                    "AND "
	                    "rating_counts.games = u.games" },
	[BATCH_COUNT] = { "INSERT INTO rating_counts (game, scope, span, starts, bucket, games, n) "
	                  "VALUES ",
	                  "(?,?,?,?,?,?,1)",
	                  " ON CONFLICT (game, scope, span, starts, bucket, games) "
	                  "DO UPDATE SET n = rating_counts.n + excluded.n" },
};

/* Batch statement `id` for n rows (1 to STORE_RATING_WRITES_MAX), made on
 * first use and kept. NULL with the error set when it cannot be made. */
static sqlite3_stmt *batch_get(struct store_sqlite *st, enum batch_id id, int n)
{
	size_t head = strlen(batch_defs[id].head), row = strlen(batch_defs[id].row);
	size_t tail = strlen(batch_defs[id].tail), len;
	char *sql, *at;

	if (n < 1 || n > STORE_RATING_WRITES_MAX) {
		store_sqlite_set_err(st, "ratings: %d rows at once", n);
		return NULL;
	}
	if (st->batch[id][n])
		return st->batch[id][n];
	len = head + (size_t)n * (row + 1) + tail + 1;
	if (!(sql = malloc(len))) {
		store_sqlite_set_err(st, "ratings: out of memory");
		return NULL;
	}
	memcpy(sql, batch_defs[id].head, head);
	at = sql + head;
	for (int i = 0; i < n; i++) {
		if (i)
			*at++ = ',';
		memcpy(at, batch_defs[id].row, row);
		at += row;
	}
	memcpy(at, batch_defs[id].tail, tail + 1);
	if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st->batch[id][n],
	                       NULL)) {
		store_sqlite_set_db_err(st, "prepare ratings");
		st->batch[id][n] = NULL;
	}
	free(sql);
	return st->batch[id][n];
}

int store_sqlite_ratings_read(struct store_sqlite *st, struct store_rating_write *w, int n)
{
	sqlite3_stmt *s;
	struct store_rating r;
	int rc;

	if (n == 0)
		return 0;
	if (!(s = batch_get(st, BATCH_READ, n)))
		return -1;
	for (int i = 0; i < n; i++) {
		w[i].had = 0;
		sqlite3_bind_int(s, 6 * i + 1, i);
		if (bind_key(st, s, 6 * i + 2, &w[i].p, w[i].r.player)) {
			store_sqlite_stmt_done(s);
			return -1;
		}
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int i = sqlite3_column_int(s, 9);
		if (i < 0 || i >= n || col_rating(st, s, &r)) {
			if (i < 0 || i >= n)
				store_sqlite_set_err(st, "get ratings: row %d of %d", i, n);
			store_sqlite_stmt_done(s);
			return -1;
		}
		w[i].old = r;
		w[i].had = 1;
	}
	store_sqlite_stmt_done(s);
	if (rc != SQLITE_DONE) {
		store_sqlite_set_db_err(st, "get ratings");
		return -1;
	}
	return 0;
}

int store_sqlite_ratings_write(struct store_sqlite *st, const struct store_rating_write *w, int n)
{
	sqlite3_stmt *s;
	int olds;

	if (n == 0)
		return 0;
	for (int i = 0; i < n; i++)
		if (w[i].had && strcmp(w[i].old.player, w[i].r.player) != 0) {
			store_sqlite_set_err(st, "put rating: %s is not %s", w[i].r.player,
			                     w[i].old.player);
			return -1;
		}
	/* The counts of the rows as read, each rating_counts row once. */
	if (!(s = batch_get(st, BATCH_UNCOUNT, n)))
		return -1;
	for (int i = 0; i < n; i++) {
		if (!w[i].had)
			continue; /* its parameters stay NULL */
		if (bind_count(st, s, 6 * i + 1, &w[i].p, &w[i].old)) {
			store_sqlite_stmt_done(s);
			return -1;
		}
	}
	olds = store_ratings_olds(w, n);
	if (olds) {
		if (store_sqlite_step(st, s, 1, "count ratings"))
			return -1;
		if (sqlite3_changes(st->db) != olds) {
			store_sqlite_set_err(st, "count ratings: %d of %d counts found",
			                     sqlite3_changes(st->db), olds);
			return -1;
		}
	} else {
		store_sqlite_stmt_done(s);
	}
	if (!(s = batch_get(st, BATCH_ROWS, n)))
		return -1;
	for (int i = 0; i < n; i++) {
		const struct store_rating *r = &w[i].r;
		int k = 13 * i + 1;
		if (bind_key(st, s, k, &w[i].p, r->player) ||
		    store_sqlite_bind_cut(st, s, k + 5, r->name, strnlen(r->name, sizeof(r->name)),
		                          sizeof(r->name), "player name") ||
		    store_sqlite_bind_cut(st, s, k + 6, r->name_key,
		                          strnlen(r->name_key, sizeof(r->name_key)),
		                          sizeof(r->name_key), "name key")) {
			store_sqlite_stmt_done(s);
			return -1;
		}
		sqlite3_bind_double(s, k + 7, r->mu);
		sqlite3_bind_double(s, k + 8, r->sigma);
		sqlite3_bind_double(s, k + 9, r->ordinal);
		sqlite3_bind_int(s, k + 10, r->games);
		sqlite3_bind_int(s, k + 11, r->wins);
		sqlite3_bind_int(s, k + 12, r->cthulhu);
	}
	if (store_sqlite_step(st, s, 1, "put ratings"))
		return -1;
	for (int i = 0; i < n; i++)
		if (w[i].had &&
		    (strcmp(w[i].old.name, w[i].r.name) != 0 ||
		     strcmp(w[i].old.name_key, w[i].r.name_key) != 0) &&
		    rating_upsert(st, &w[i].p, &w[i].r))
			return -1;
	if (!(s = batch_get(st, BATCH_COUNT, n)))
		return -1;
	for (int i = 0; i < n; i++)
		if (bind_count(st, s, 6 * i + 1, &w[i].p, &w[i].r)) {
			store_sqlite_stmt_done(s);
			return -1;
		}
	return store_sqlite_step(st, s, 1, "count ratings");
}

int store_sqlite_ratings_top(struct store_sqlite *st, const struct store_period *p, int min_games,
                             int limit, store_rating_fn fn, void *ctx)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_RATINGS_TOP);

	if (!s)
		return -1;
	if (bind_period(st, s, p)) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	sqlite3_bind_int(s, 5, min_games);
	sqlite3_bind_int(s, 6, limit);
	return walk_ratings(st, s, fn, ctx);
}

int store_sqlite_ratings_named(struct store_sqlite *st, const struct store_period *p, int min_games,
                               const char *player, const char *key1, const char *key2,
                               store_rating_fn fn, void *ctx)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_RATINGS_NAMED);

	if (!s)
		return -1;
	/* Longer text than a stored value can match nothing: bound cut,
	 * it could match the wrong row, so it is refused instead. */
	if (strlen(player) >= STORE_ID_MAX || strlen(key1) >= STORE_NAME_MAX ||
	    strlen(key2) >= STORE_NAME_MAX)
		return 0;
	if (bind_period(st, s, p) ||
	    store_sqlite_bind_id(st, s, 5, player, STORE_ID_MAX, "player id") ||
	    store_sqlite_bind_id(st, s, 6, key1, STORE_NAME_MAX, "name key") ||
	    store_sqlite_bind_id(st, s, 7, key2, STORE_NAME_MAX, "name key")) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	sqlite3_bind_int(s, 8, min_games);
	return walk_ratings(st, s, fn, ctx);
}

int store_sqlite_rating_rank(struct store_sqlite *st, const struct store_period *p, int min_games,
                             const struct store_rating *r, int *above)
{
	int buckets = min_games <= STORE_GAMES_CAP;
	sqlite3_stmt *s =
	    store_sqlite_stmt_get(st, buckets ? ST_RATING_RANK_BUCKETS : ST_RATING_RANK);

	if (!s)
		return -1;
	if (bind_period(st, s, p) ||
	    store_sqlite_bind_id(st, s, 8, r->player, sizeof(r->player), "player id")) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	sqlite3_bind_int(s, 5, min_games);
	sqlite3_bind_double(s, 6, r->ordinal);
	sqlite3_bind_int(s, 7, r->games);
	if (buckets) {
		int64_t b = store_rating_bucket(r->ordinal);
		sqlite3_bind_int64(s, 9, b);
		sqlite3_bind_double(s, 10, (double)(b + 1) / STORE_BUCKETS_PER_POINT);
	}
	return count_of(st, s, above);
}

int store_sqlite_ratings_unranked(struct store_sqlite *st, const struct store_period *p,
                                  int min_games, int *n)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, min_games <= 16 ? ST_RATINGS_UNRANKED
	                                                            : ST_RATINGS_UNRANKED_ALL);

	if (!s)
		return -1;
	if (bind_period(st, s, p)) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	sqlite3_bind_int(s, 5, min_games);
	return count_of(st, s, n);
}
