/* store_pg_int: what the files of the PostgreSQL backend (store_pg.h)
 * share: its limits, its prepared statements, its state (struct store_pg)
 * and the helpers that pass parameters, run statements and read their
 * values. Private to src/store: store_pg.c holds the connection (opening,
 * the schema, transactions) and these helpers, store_pg_games.c the games,
 * store_pg_ratings.c the ratings, store_pg_players.c the players and
 * settings, store_pg_migrate.c the copy of an SQLite database
 * (migrate-store), store_pg_shards.c the shards and the interactions seen. */
#ifndef RLYEH_STORE_PG_INT_H
#define RLYEH_STORE_PG_INT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "rlyeh/store.h"
#include "store_pg.h"

extern const char *const store_pg_migrations[];
extern const char *const store_pg_migration_names[];

#define EVENTS_MAX  65536   /* events loaded for one game */
#define LIST_MAX    1048576 /* game ids gathered by one walk */
#define LANG_SIZE   8       /* char lang[8] in store.h */
#define PARAMS_MAX  24      /* parameters of one statement */
#define POOL_SIZE   2048    /* bytes of text parameters copied for one statement */
#define MIGRATE_KEY "7262736c"
enum stmt_id {
	ST_GAME_INSERT,
	ST_GAME_UPDATE,
	ST_GAME_PROGRESS,
	ST_GAME_GET,
	ST_GAMES_OPEN,
	ST_RESULTS_ALL,
	ST_RESULTS_SERVER,
	ST_MEMBERS_DELETE,
	ST_MEMBER_INSERT,
	ST_MEMBERS_GET,
	ST_EVENT_INSERT,
	ST_EVENTS_GET,
	ST_PLAYER_PUT,
	ST_PLAYER_GET,
	ST_NOTIFY_PUT,
	ST_NOTIFY_GET,
	ST_GAMES_MADE,
	ST_SETTING_GET,
	ST_SETTING_PUT,
	ST_RATINGS_PENDING,
	ST_RATINGS_BUILT,
	ST_RATINGS_CLEAR,
	ST_RATING_COUNTS_CLEAR,
	ST_GAMES_RATE_ALL,
	ST_GAME_RATE,
	ST_RESULTS_RATED,
	ST_RATING_GET,
	ST_RATING_PUT,
	ST_RATING_UPDATE,
	ST_RATINGS_TOP,
	ST_RATINGS_NAMED,
	ST_RATING_RANK,
	ST_RATING_RANK_BUCKETS,
	ST_RATINGS_UNRANKED,
	ST_RATINGS_UNRANKED_ALL,
	ST_RATING_COUNT,
	ST_RATING_UNCOUNT,
	ST_RATINGS_READ,
	ST_RATINGS_WRITE,
	ST_RATINGS_UNCOUNT,
	ST_RATINGS_COUNT,
	ST_VERSION_GET,
	ST_VERSION_SET,
	ST_COPY_USED,
	ST_COPY_SETTINGS_CLEAR,
	ST_COPY_GAMES_MADE,
	ST_SHARD_LOCK,
	ST_SHARD_LOCKED,
	ST_SHARD_OTHERS,
	ST_SHARD_UNLOCK,
	ST_SHARD_CLAIM,
	ST_SHARD_FENCE,
	ST_SHARD_SESSION_PUT,
	ST_SHARD_SESSION_GET,
	ST_INTERACTION_MARK,
	ST_INTERACTIONS_FORGET,
	ST_GAMES_MADE_LOCK,
	ST_RATE_LOCK,
	ST_CHANNEL_FINISHED,
	ST_COUNT
};

struct store_pg {
	PGconn *conn;
	unsigned char prepared[ST_COUNT];
	int fail_after; /* successful writes left before injected failures; -1 off */
	int tx;         /* 1 from store_pg_begin to its commit or rollback */
	char err[256];
};

/* The parameters of one statement, as text: v[i] is $i+1, NULL for SQL
 * NULL. Numbers and cut text are kept in num and pool. */
struct params {
	int n;
	const char *v[PARAMS_MAX];
	char num[PARAMS_MAX][32];
	char pool[POOL_SIZE];
	size_t used;
};

/* A game read back with its members and (optionally) events; the events
 * array is owned here and released by loaded_free. */
struct loaded {
	struct store_game game;
	struct store_member members[STORE_MEMBERS_MAX];
	int nmembers;
	struct store_event *events;
	int nevents, cap;
};

#if defined(__GNUC__)
#define PRINTF_LIKE(fmt, first) __attribute__((format(printf, fmt, first)))
#else
#define PRINTF_LIKE(fmt, first)
#endif

/* ---- store_pg.c ---- */

/* Sets st's error text (store_pg_errmsg) from fmt, cut to fit. */
void store_pg_set_err(struct store_pg *st, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* Records "<what>: <the server's message>" for a failed result r (or the
 * connection's error when r is NULL), with the plainer texts of the
 * SQLite backend for the constraint failures callers are expected to
 * meet. */
void store_pg_set_db_err(struct store_pg *st, const char *what, const PGresult *r);

/* The uint64 with the same two's complement bits as v. */
uint64_t store_pg_u64_from_db(int64_t v);

/* The int64 with the same two's complement bits as v, without relying on
 * implementation-defined conversions. */
int64_t store_pg_u64_to_db(uint64_t v);

/* Counts $i as used; an index past PARAMS_MAX is a bug in this file. */
void store_pg_p_use(struct params *ps, int i);

/* Sets $i to v, refused (not cut) when it has max bytes or more. */
int store_pg_p_id(struct store_pg *st, struct params *ps, int i, const char *v, size_t max,
                  const char *what);

/* Sets $i to display text v[0..len), cut to size - 1 bytes at a UTF-8
 * boundary. */
int store_pg_p_cut(struct store_pg *st, struct params *ps, int i, const char *v, size_t len,
                   size_t size);

/* Sets $i to the decimal text of v (kept in ps). */
void store_pg_p_i64(struct params *ps, int i, int64_t v);

/* Sets $i to v's text, exact to the last bit (%.17g, kept in ps). */
void store_pg_p_dbl(struct params *ps, int i, double v);

/* The value at (row, col) of r read as a decimal integer (0 for NULL). */
int64_t store_pg_v_i64(const PGresult *r, int row, int col);

/* store_pg_v_i64 as an int. */
int store_pg_v_int(const PGresult *r, int row, int col);

/* The value at (row, col) of r read as a double (0 for NULL). */
double store_pg_v_dbl(const PGresult *r, int row, int col);

/* Reads an id column into dst; refused (not cut) when it does not fit. */
int store_pg_v_id(struct store_pg *st, const PGresult *r, int row, int col, char *dst, size_t size,
                  const char *what);

/* Reads a text column into dst, cut at a UTF-8 boundary to fit. */
void store_pg_v_text(const PGresult *r, int row, int col, char *dst, size_t size);

/* Runs a fixed command without parameters (transaction control; rows
 * answered are dropped). 0, or -1 with the error set. */
int store_pg_command(struct store_pg *st, const char *sql, const char *what);

/* Prepares statement `id` on first use. */
int store_pg_prepare(struct store_pg *st, enum stmt_id id);

/* 1 while st has a transaction open (store_pg_begin), else 0. */
int store_pg_in_tx(struct store_pg *st);

/* Reconnects when the server has closed the connection (a restart, a
 * failover), outside a transaction only: inside one, its writes are lost,
 * which the caller must learn (it rolls back). The statements are prepared
 * anew on the new connection. 0 when the connection is usable. */
int store_pg_alive(struct store_pg *st);

/* Runs statement `id` with parameters ps (NULL: none). A write fails
 * without running while fault injection says so; inside a transaction it
 * runs under its own savepoint, so that its failure undoes it alone.
 * Outside a transaction, a connection the server closed is opened again
 * and the statement asked again, unless it was a write that may have been
 * done. Returns the result (the caller clears it), or NULL with the error
 * set ("<what>: ..."). */
PGresult *store_pg_exec(struct store_pg *st, enum stmt_id id, const struct params *ps,
                        const char *what);

/* exec for a statement whose rows are not wanted: 0 or -1; *changed (when
 * not NULL) gets the number of rows written. */
int store_pg_run(struct store_pg *st, enum stmt_id id, const struct params *ps, const char *what,
                 long *changed);

/* Runs a query answering one number into *out. */
int store_pg_one_i64(struct store_pg *st, enum stmt_id id, const struct params *ps,
                     const char *what, int64_t *out);

#endif
