/* The PostgreSQL store: ratings (built, kept, ranked and listed). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "rlyeh/store.h"
#include "store_pg.h"

#include "store_int.h"
#include "store_pg_int.h"

int store_pg_ratings_pending(struct store_pg *st)
{
	PGresult *r = store_pg_exec(st, ST_RATINGS_PENDING, NULL, "ratings");
	int pending = -1;

	if (!r)
		return -1;
	if (PQntuples(r) == 1)
		pending = strcmp(PQgetvalue(r, 0, 0), "build") == 0;
	else
		store_pg_set_err(st, "ratings: the database has none (schema older than 7)");
	PQclear(r);
	return pending;
}

int store_pg_ratings_built(struct store_pg *st)
{
	return store_pg_run(st, ST_RATINGS_BUILT, NULL, "ratings built", NULL);
}

int store_pg_ratings_clear(struct store_pg *st)
{
	if (store_pg_run(st, ST_RATINGS_CLEAR, NULL, "clear ratings", NULL))
		return -1;
	return store_pg_run(st, ST_RATING_COUNTS_CLEAR, NULL, "clear ratings", NULL);
}

int store_pg_games_rate_all(struct store_pg *st)
{
	return store_pg_run(st, ST_GAMES_RATE_ALL, NULL, "rate games", NULL);
}

int store_pg_game_rate(struct store_pg *st, int64_t id)
{
	struct params ps = { 0 };

	/* Several processes may end games at once: each takes the next place
	 * and reads and writes the ratings alone, until its transaction ends. */
	if (st->tx && store_pg_run(st, ST_RATE_LOCK, NULL, "lock ratings", NULL))
		return -1;
	store_pg_p_i64(&ps, 1, id);
	return store_pg_run(st, ST_GAME_RATE, &ps, "rate game", NULL);
}

/* Drains what is left of a query sent with PQsendQueryPrepared. */
static void drain(struct store_pg *st)
{
	PGresult *r;

	while ((r = PQgetResult(st->conn)))
		PQclear(r);
}

/* The rows come one at a time (single-row mode), so that the walk over
 * every finished game holds one row in memory; the query runs on
 * meanwhile, so fn must not use the store. */
int store_pg_results_rated(struct store_pg *st, store_result_fn fn, void *ctx)
{
	struct store_member m[STORE_MEMBERS_MAX];
	char server[STORE_ID_MAX], game[STORE_KIND_MAX], name[16];
	struct store_result res = { 0, 0, server, 0, m, game };
	PGresult *r;
	int fn_rc = 0, failed = 0;

	if (store_pg_alive(st) || store_pg_prepare(st, ST_RESULTS_RATED))
		return -1;
	snprintf(name, sizeof(name), "s%d", (int)ST_RESULTS_RATED);
	if (!PQsendQueryPrepared(st->conn, name, 0, NULL, NULL, NULL, 0) ||
	    !PQsetSingleRowMode(st->conn)) {
		store_pg_set_db_err(st, "rated results", NULL);
		drain(st);
		return -1;
	}
	while ((r = PQgetResult(st->conn))) {
		ExecStatusType status = PQresultStatus(r);
		int64_t id;
		struct store_member *x;

		if (status == PGRES_TUPLES_OK || fn_rc || failed) {
			PQclear(r);
			continue;
		}
		if (status != PGRES_SINGLE_TUPLE) {
			store_pg_set_db_err(st, "rated results", r);
			failed = 1;
			PQclear(r);
			continue;
		}
		id = store_pg_v_i64(r, 0, 0);
		if (res.nmembers > 0 && id != res.game_id) {
			if ((fn_rc = fn(ctx, &res)) != 0) {
				PQclear(r);
				continue;
			}
			res.nmembers = 0;
		}
		if (res.nmembers == 0) {
			res.game_id = id;
			res.finished_at = store_pg_v_i64(r, 0, 1);
			if (store_pg_v_id(st, r, 0, 2, server, sizeof(server), "server id") ||
			    store_pg_v_id(st, r, 0, 3, game, sizeof(game), "game kind"))
				failed = 1;
		}
		if (!failed && res.nmembers == STORE_MEMBERS_MAX) {
			store_pg_set_err(st, "game %lld has more than %d members", (long long)id,
			                 STORE_MEMBERS_MAX);
			failed = 1;
		}
		if (!failed) {
			x = &m[res.nmembers++];
			memset(x, 0, sizeof(*x));
			if (store_pg_v_id(st, r, 0, 4, x->player, sizeof(x->player), "player id"))
				failed = 1;
			store_pg_v_text(r, 0, 5, x->name, sizeof(x->name));
			x->place = store_pg_v_int(r, 0, 6);
			x->cthulhu = store_pg_v_int(r, 0, 7);
		}
		PQclear(r);
	}
	if (fn_rc)
		return fn_rc;
	if (failed)
		return -1;
	return res.nmembers > 0 ? fn(ctx, &res) : 0;
}

/* Sets $1 .. $4 of a ratings statement: the period. */
static int p_period(struct store_pg *st, struct params *ps, const struct store_period *p)
{
	if (!p->game || !p->scope) {
		store_pg_set_err(st, "ratings: no game kind or scope");
		return -1;
	}
	if (store_pg_p_id(st, ps, 1, p->game, STORE_KIND_MAX, "game kind") ||
	    store_pg_p_id(st, ps, 2, p->scope, STORE_ID_MAX, "scope"))
		return -1;
	store_pg_p_i64(ps, 3, p->span);
	store_pg_p_i64(ps, 4, p->starts);
	return 0;
}

/* Adds delta (1 or -1) to the count of r's bucket and games in period p. */
static int count_add(struct store_pg *st, const struct store_period *p,
                     const struct store_rating *r, int delta)
{
	struct params ps = { 0 };
	long changed = 0;

	if (p_period(st, &ps, p))
		return -1;
	store_pg_p_i64(&ps, 5, store_rating_bucket(r->ordinal));
	store_pg_p_i64(&ps, 6, store_rating_games(r->games));
	if (delta > 0)
		store_pg_p_i64(&ps, 7, delta);
	if (store_pg_run(st, delta > 0 ? ST_RATING_COUNT : ST_RATING_UNCOUNT, &ps, "count rating",
	                 &changed))
		return -1;
	if (delta < 0 && changed != 1) {
		store_pg_set_err(st, "count rating of %s: not counted", r->player);
		return -1;
	}
	return 0;
}

/* Reads row `row` of RATING_COLS. */
static int v_rating(struct store_pg *st, const PGresult *res, int row, struct store_rating *r)
{
	memset(r, 0, sizeof(*r));
	if (store_pg_v_id(st, res, row, 0, r->player, sizeof(r->player), "player id"))
		return -1;
	store_pg_v_text(res, row, 1, r->name, sizeof(r->name));
	store_pg_v_text(res, row, 2, r->name_key, sizeof(r->name_key));
	r->mu = store_pg_v_dbl(res, row, 3);
	r->sigma = store_pg_v_dbl(res, row, 4);
	r->ordinal = store_pg_v_dbl(res, row, 5);
	r->games = store_pg_v_int(res, row, 6);
	r->wins = store_pg_v_int(res, row, 7);
	r->cthulhu = store_pg_v_int(res, row, 8);
	return 0;
}

/* Runs ratings query `id` and calls fn for each row. */
static int walk_ratings(struct store_pg *st, enum stmt_id id, const struct params *ps,
                        store_rating_fn fn, void *ctx)
{
	PGresult *res = store_pg_exec(st, id, ps, "ratings");
	struct store_rating r;
	int rc = 0;

	if (!res)
		return -1;
	for (int row = 0; row < PQntuples(res) && rc == 0; row++) {
		if (v_rating(st, res, row, &r))
			rc = -1;
		else
			rc = fn(ctx, &r);
	}
	PQclear(res);
	return rc;
}

int store_pg_rating_get(struct store_pg *st, const struct store_period *p, const char *player,
                        struct store_rating *out)
{
	struct params ps = { 0 };
	PGresult *r;
	int rc;

	if (p_period(st, &ps, p) || store_pg_p_id(st, &ps, 5, player, STORE_ID_MAX, "player id"))
		return -1;
	if (!(r = store_pg_exec(st, ST_RATING_GET, &ps, "get rating")))
		return -1;
	rc = PQntuples(r) == 0 ? 0 : v_rating(st, r, 0, out) ? -1 : 1;
	PQclear(r);
	return rc;
}

/* Upserts row r of period p, names and all. */
static int rating_upsert(struct store_pg *st, const struct store_period *p,
                         const struct store_rating *r)
{
	struct params ps = { 0 };

	if (p_period(st, &ps, p) ||
	    store_pg_p_id(st, &ps, 5, r->player, sizeof(r->player), "player id") ||
	    store_pg_p_cut(st, &ps, 6, r->name, strnlen(r->name, sizeof(r->name)),
	                   sizeof(r->name)) ||
	    store_pg_p_cut(st, &ps, 7, r->name_key, strnlen(r->name_key, sizeof(r->name_key)),
	                   sizeof(r->name_key)))
		return -1;
	store_pg_p_dbl(&ps, 8, r->mu);
	store_pg_p_dbl(&ps, 9, r->sigma);
	store_pg_p_dbl(&ps, 10, r->ordinal);
	store_pg_p_i64(&ps, 11, r->games);
	store_pg_p_i64(&ps, 12, r->wins);
	store_pg_p_i64(&ps, 13, r->cthulhu);
	return store_pg_run(st, ST_RATING_PUT, &ps, "put rating", NULL);
}

/* Writes the numbers of r into its existing row of period p. */
static int rating_update(struct store_pg *st, const struct store_period *p,
                         const struct store_rating *r)
{
	struct params ps = { 0 };
	long changed = 0;

	if (p_period(st, &ps, p) ||
	    store_pg_p_id(st, &ps, 5, r->player, sizeof(r->player), "player id"))
		return -1;
	store_pg_p_dbl(&ps, 6, r->mu);
	store_pg_p_dbl(&ps, 7, r->sigma);
	store_pg_p_dbl(&ps, 8, r->ordinal);
	store_pg_p_i64(&ps, 9, r->games);
	store_pg_p_i64(&ps, 10, r->wins);
	store_pg_p_i64(&ps, 11, r->cthulhu);
	if (store_pg_run(st, ST_RATING_UPDATE, &ps, "update rating", &changed))
		return -1;
	if (changed != 1) {
		store_pg_set_err(st, "update rating of %s: no such row", r->player);
		return -1;
	}
	return 0;
}

int store_pg_rating_put(struct store_pg *st, const struct store_period *p,
                        const struct store_rating *r, const struct store_rating *old)
{
	if (old && strcmp(old->player, r->player) != 0) {
		store_pg_set_err(st, "put rating: %s is not %s", r->player, old->player);
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

/* Array parameters of a game's end: cols[c] is column c as an array
 * literal, every element quoted. */
#define ARR_COLS 13
struct arrays {
	char *s[ARR_COLS];
	size_t len[ARR_COLS], cap[ARR_COLS];
	int bad; /* memory ran short */
};

/* Makes room for `more` bytes in column c; 0, or -1 (a->bad set). */
static int arr_room(struct arrays *a, int c, size_t more)
{
	size_t need = a->len[c] + more;

	if (a->bad)
		return -1;
	if (need > a->cap[c]) {
		size_t cap = a->cap[c] ? a->cap[c] : 256;
		char *bigger;
		while (cap < need)
			cap *= 2;
		if (!(bigger = realloc(a->s[c], cap))) {
			a->bad = 1;
			return -1;
		}
		a->s[c] = bigger;
		a->cap[c] = cap;
	}
	return 0;
}

/* Appends element v[0..n) to column c. */
static void arr_add(struct arrays *a, int c, const char *v, size_t n)
{
	char *d;

	if (arr_room(a, c, 2 * n + 3))
		return;
	d = a->s[c] + a->len[c];
	*d++ = a->len[c] ? ',' : '{';
	*d++ = '"';
	for (size_t i = 0; i < n; i++) {
		if (v[i] == '"' || v[i] == '\\')
			*d++ = '\\';
		*d++ = v[i];
	}
	*d++ = '"';
	a->len[c] = (size_t)(d - a->s[c]);
}

static void arr_i64(struct arrays *a, int c, int64_t v)
{
	char num[32];
	int n = snprintf(num, sizeof(num), "%lld", (long long)v);
	arr_add(a, c, num, (size_t)n);
}

static void arr_dbl(struct arrays *a, int c, double v)
{
	char num[32];
	int n = snprintf(num, sizeof(num), "%.17g", v);
	arr_add(a, c, num, (size_t)n);
}

/* Ends columns 0..ncols-1 and points ps's $1.. at them; -1 with the error
 * set when memory ran short. */
static int arr_params(struct store_pg *st, struct arrays *a, int ncols, struct params *ps)
{
	for (int c = 0; c < ncols; c++) {
		if (arr_room(a, c, 3))
			break;
		if (a->len[c] == 0)
			a->s[c][a->len[c]++] = '{';
		a->s[c][a->len[c]++] = '}';
		a->s[c][a->len[c]] = '\0';
		store_pg_p_use(ps, c + 1);
		ps->v[c] = a->s[c];
	}
	if (a->bad) {
		store_pg_set_err(st, "ratings: out of memory");
		return -1;
	}
	return 0;
}

static void arr_clear(struct arrays *a)
{
	for (int c = 0; c < ARR_COLS; c++) {
		free(a->s[c]);
		a->s[c] = NULL;
		a->len[c] = a->cap[c] = 0;
	}
	a->bad = 0;
}

/* Appends a ratings key (period and, unless NULL, player) from column c
 * on; -1 with the error set when a part is too long. */
static int arr_key(struct store_pg *st, struct arrays *a, int c, const struct store_period *p,
                   const char *player)
{
	size_t game, scope;

	if (!p->game || !p->scope) {
		store_pg_set_err(st, "ratings: no game kind or scope");
		return -1;
	}
	game = strnlen(p->game, STORE_KIND_MAX);
	scope = strnlen(p->scope, STORE_ID_MAX);
	if (game >= STORE_KIND_MAX || scope >= STORE_ID_MAX ||
	    (player && strnlen(player, STORE_ID_MAX) >= STORE_ID_MAX)) {
		store_pg_set_err(st, "ratings: a key is too long");
		return -1;
	}
	arr_add(a, c, p->game, game);
	arr_add(a, c + 1, p->scope, scope);
	arr_i64(a, c + 2, p->span);
	arr_i64(a, c + 3, p->starts);
	if (player)
		arr_add(a, c + 4, player, strlen(player));
	return 0;
}

/* Appends the rating_counts key of r in period p from column 0 on. */
static int arr_count(struct store_pg *st, struct arrays *a, const struct store_period *p,
                     const struct store_rating *r)
{
	if (arr_key(st, a, 0, p, NULL))
		return -1;
	arr_i64(a, 4, store_rating_bucket(r->ordinal));
	arr_i64(a, 5, store_rating_games(r->games));
	return 0;
}

int store_pg_ratings_read(struct store_pg *st, struct store_rating_write *w, int n)
{
	struct arrays a = { 0 };
	struct params ps = { 0 };
	struct store_rating r;
	PGresult *res = NULL;
	int rc = 0;

	if (n == 0)
		return 0;
	for (int i = 0; i < n && rc == 0; i++) {
		w[i].had = 0;
		arr_i64(&a, 0, i);
		rc = arr_key(st, &a, 1, &w[i].p, w[i].r.player);
	}
	if (rc == 0 && arr_params(st, &a, 6, &ps) == 0 &&
	    (res = store_pg_exec(st, ST_RATINGS_READ, &ps, "get ratings"))) {
		for (int row = 0; row < PQntuples(res) && rc == 0; row++) {
			int i = store_pg_v_int(res, row, 9);
			if (i < 0 || i >= n) {
				store_pg_set_err(st, "get ratings: row %d of %d", i, n);
				rc = -1;
			} else if (v_rating(st, res, row, &r)) {
				rc = -1;
			} else {
				w[i].old = r;
				w[i].had = 1;
			}
		}
		PQclear(res);
	} else {
		rc = -1;
	}
	arr_clear(&a);
	return rc;
}

/* The rows of a game's end, as store_pg_ratings_write says, but the
 * names changed; a holds no columns on entry and is cleared by the
 * caller. */
static int ratings_write(struct store_pg *st, const struct store_rating_write *w, int n,
                         struct arrays *a)
{
	struct params ps = { 0 };
	long changed = 0;
	int olds = store_ratings_olds(w, n);

	for (int i = 0; i < n; i++) {
		if (!w[i].had)
			continue;
		if (strcmp(w[i].old.player, w[i].r.player) != 0) {
			store_pg_set_err(st, "put rating: %s is not %s", w[i].r.player,
			                 w[i].old.player);
			return -1;
		}
		if (arr_count(st, a, &w[i].p, &w[i].old))
			return -1;
	}
	if (olds) {
		if (arr_params(st, a, 6, &ps) ||
		    store_pg_run(st, ST_RATINGS_UNCOUNT, &ps, "count ratings", &changed))
			return -1;
		if (changed != olds) {
			store_pg_set_err(st, "count ratings: %ld of %d counts found", changed,
			                 olds);
			return -1;
		}
	}
	arr_clear(a);
	memset(&ps, 0, sizeof(ps));
	for (int i = 0; i < n; i++) {
		const struct store_rating *r = &w[i].r;
		if (arr_key(st, a, 0, &w[i].p, r->player))
			return -1;
		arr_add(a, 5, r->name,
		        store_utf8_cut(r->name, strnlen(r->name, sizeof(r->name)),
		                       sizeof(r->name) - 1));
		arr_add(a, 6, r->name_key,
		        store_utf8_cut(r->name_key, strnlen(r->name_key, sizeof(r->name_key)),
		                       sizeof(r->name_key) - 1));
		arr_dbl(a, 7, r->mu);
		arr_dbl(a, 8, r->sigma);
		arr_dbl(a, 9, r->ordinal);
		arr_i64(a, 10, r->games);
		arr_i64(a, 11, r->wins);
		arr_i64(a, 12, r->cthulhu);
	}
	if (arr_params(st, a, 13, &ps) ||
	    store_pg_run(st, ST_RATINGS_WRITE, &ps, "put ratings", NULL))
		return -1;
	for (int i = 0; i < n; i++)
		if (w[i].had &&
		    (strcmp(w[i].old.name, w[i].r.name) != 0 ||
		     strcmp(w[i].old.name_key, w[i].r.name_key) != 0) &&
		    rating_upsert(st, &w[i].p, &w[i].r))
			return -1;
	arr_clear(a);
	memset(&ps, 0, sizeof(ps));
	for (int i = 0; i < n; i++)
		if (arr_count(st, a, &w[i].p, &w[i].r))
			return -1;
	if (arr_params(st, a, 6, &ps))
		return -1;
	return store_pg_run(st, ST_RATINGS_COUNT, &ps, "count ratings", NULL);
}

int store_pg_ratings_write(struct store_pg *st, const struct store_rating_write *w, int n)
{
	struct arrays a = { 0 };
	int rc;

	if (n == 0)
		return 0;
	rc = ratings_write(st, w, n, &a);
	arr_clear(&a);
	return rc;
}

int store_pg_ratings_top(struct store_pg *st, const struct store_period *p, int min_games,
                         int limit, store_rating_fn fn, void *ctx)
{
	struct params ps = { 0 };

	if (p_period(st, &ps, p))
		return -1;
	store_pg_p_i64(&ps, 5, min_games);
	store_pg_p_i64(&ps, 6, limit);
	return walk_ratings(st, ST_RATINGS_TOP, &ps, fn, ctx);
}

int store_pg_ratings_named(struct store_pg *st, const struct store_period *p, int min_games,
                           const char *player, const char *key1, const char *key2,
                           store_rating_fn fn, void *ctx)
{
	struct params ps = { 0 };

	/* Longer text than a stored value can match nothing. */
	if (strlen(player) >= STORE_ID_MAX || strlen(key1) >= STORE_NAME_MAX ||
	    strlen(key2) >= STORE_NAME_MAX)
		return 0;
	if (p_period(st, &ps, p) || store_pg_p_id(st, &ps, 5, player, STORE_ID_MAX, "player id") ||
	    store_pg_p_id(st, &ps, 6, key1, STORE_NAME_MAX, "name key") ||
	    store_pg_p_id(st, &ps, 7, key2, STORE_NAME_MAX, "name key"))
		return -1;
	store_pg_p_i64(&ps, 8, min_games);
	return walk_ratings(st, ST_RATINGS_NAMED, &ps, fn, ctx);
}

int store_pg_rating_rank(struct store_pg *st, const struct store_period *p, int min_games,
                         const struct store_rating *r, int *above)
{
	int buckets = min_games <= STORE_GAMES_CAP;
	struct params ps = { 0 };
	int64_t n;

	if (p_period(st, &ps, p) ||
	    store_pg_p_id(st, &ps, 8, r->player, sizeof(r->player), "player id"))
		return -1;
	store_pg_p_i64(&ps, 5, min_games);
	store_pg_p_dbl(&ps, 6, r->ordinal);
	store_pg_p_i64(&ps, 7, r->games);
	if (buckets) {
		int64_t b = store_rating_bucket(r->ordinal);
		store_pg_p_i64(&ps, 9, b);
		store_pg_p_dbl(&ps, 10, (double)(b + 1) / STORE_BUCKETS_PER_POINT);
	}
	if (store_pg_one_i64(st, buckets ? ST_RATING_RANK_BUCKETS : ST_RATING_RANK, &ps,
	                     "count ratings", &n))
		return -1;
	*above = (int)n;
	return 0;
}

int store_pg_ratings_unranked(struct store_pg *st, const struct store_period *p, int min_games,
                              int *n)
{
	struct params ps = { 0 };
	int64_t v;

	if (p_period(st, &ps, p))
		return -1;
	store_pg_p_i64(&ps, 5, min_games);
	if (store_pg_one_i64(st, min_games <= 16 ? ST_RATINGS_UNRANKED : ST_RATINGS_UNRANKED_ALL,
	                     &ps, "count ratings", &v))
		return -1;
	*n = (int)v;
	return 0;
}
