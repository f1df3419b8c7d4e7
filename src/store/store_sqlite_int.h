/* store_sqlite_int: what the files of the SQLite backend (store_sqlite.h)
 * share: its limits, its prepared statements, its state (struct
 * store_sqlite) and the helpers that run statements and bind and read their
 * values. Private to src/store: store_sqlite.c holds the connection
 * (opening, the schema, checks, checkpoints, transactions, backups) and
 * these helpers, store_sqlite_games.c the games, store_sqlite_ratings.c the
 * ratings, store_sqlite_players.c the players and settings,
 * store_sqlite_shards.c the shards and the interactions seen. */
#ifndef RLYEH_STORE_SQLITE_INT_H
#define RLYEH_STORE_SQLITE_INT_H

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

extern const char *const store_migrations[];
extern const char *const store_migration_names[];

#define SQLITE_NEEDED   3037000 /* STRICT tables */
#define BUSY_TIMEOUT_MS 1000    /* a locked database refuses a move within the 3 s an answer has */
#define EVENTS_MAX      65536   /* events loaded for one game */
#define LIST_MAX        1048576 /* game ids gathered by one walk */
#define LANG_SIZE       8       /* char lang[8] in store.h */
#define CKPT_PAGES      4000    /* WAL pages that wake the background checkpointer */
#define CKPT_HARD_PAGES 12000   /* WAL pages past which a commit checkpoints itself */
#define CKPT_PASSES     64      /* checkpoints in a row chasing the writer, at most */
#define WAL_SIZE_LIMIT  "33554432" /* bytes of WAL kept on disk after a reset (CKPT_PAGES fit) */
/* Page cache in KiB (negative: SQLite's unit). The bot keeps open games in
 * memory; what it reads are the ratings of /leaderboard and /stats and those
 * it updates as a game ends (some 130 pages for four players): 2 MiB keeps
 * them, and the daemon with 10,000 games stays well under 32 MB. */
#define CACHE_SIZE "-2048"

enum stmt_id {
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_SAVEPOINT,
	ST_RELEASE,
	ST_ROLLBACK_TO,
	ST_MARK,
	ST_MARK_RELEASE,
	ST_MARK_UNDO,
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
	ST_CHECKPOINT,
	ST_RATINGS_PENDING,
	ST_RATINGS_BUILT,
	ST_RATINGS_CLEAR,
	ST_GAMES_RATE_ALL,
	ST_GAME_RATE,
	ST_RESULTS_RATED,
	ST_RATING_GET,
	ST_RATING_PUT,
	ST_RATING_UPDATE,
	ST_RATINGS_TOP,
	ST_RATINGS_NAMED,
	ST_RATING_RANK,
	ST_RATINGS_UNRANKED,
	ST_RATINGS_UNRANKED_ALL,
	ST_RATING_COUNT,
	ST_RATING_UNCOUNT,
	ST_RATING_RANK_BUCKETS,
	ST_RATING_COUNTS_CLEAR,
	ST_SHARD_CLAIM,
	ST_SHARD_EPOCH,
	ST_SHARD_SESSION_PUT,
	ST_SHARD_SESSION_GET,
	ST_INTERACTION_MARK,
	ST_INTERACTIONS_FORGET,
	ST_CHANNEL_FINISHED,
	ST_COUNT
};

/* The background checkpointer: its own connection, woken by the main
 * connection's WAL hook. */
struct ckpt {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	sqlite3 *db;
	int due, stop;
	long runs; /* checkpoints made, under lock */
};

/* The statements of a game's end, made for each number of rows. */
enum batch_id { BATCH_READ, BATCH_ROWS, BATCH_UNCOUNT, BATCH_COUNT, BATCH_KINDS };

struct store_sqlite {
	sqlite3 *db;
	sqlite3_stmt *stmt[ST_COUNT];
	sqlite3_stmt *batch[BATCH_KINDS][STORE_RATING_WRITES_MAX + 1]; /* by row count */
	int fail_after; /* successful writes left before injected failures; -1 off */
	char *path;
	struct ckpt *ckpt; /* NULL: SQLite checkpoints inside commits */
	char err[256];
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

/* A growable list of game ids, capped at LIST_MAX. */
struct id_list {
	int64_t *ids;
	int n, cap;
};

#if defined(__GNUC__)
#define PRINTF_LIKE(fmt, first) __attribute__((format(printf, fmt, first)))
#else
#define PRINTF_LIKE(fmt, first)
#endif

/* ---- store_sqlite.c ---- */

/* Sets st's error text (store_sqlite_errmsg) from fmt, cut to fit. */
void store_sqlite_set_err(struct store_sqlite *st, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* Records "<what>: <SQLite's message>", with a plainer text for the
 * constraint failures callers are expected to meet. */
void store_sqlite_set_db_err(struct store_sqlite *st, const char *what);

/* The uint64 with the same two's complement bits as v. */
uint64_t store_sqlite_u64_from_db(int64_t v);

/* The int64 with the same two's complement bits as v, without relying on
 * implementation-defined conversions. */
int64_t store_sqlite_u64_to_db(uint64_t v);

/* The statement `id`, prepared on first use. NULL with the error set when
 * it cannot be prepared. */
sqlite3_stmt *store_sqlite_stmt_get(struct store_sqlite *st, enum stmt_id id);

/* Resets s and clears its bindings, ready for its next use. */
void store_sqlite_stmt_done(sqlite3_stmt *s);

/* Steps s, a statement that returns no rows, then resets it. A write
 * (write set) fails without running while fault injection says so. 0, or
 * -1 with the error set ("<what>: ..."); the transaction, if any, is left
 * as SQLite left it. */
int store_sqlite_step(struct store_sqlite *st, sqlite3_stmt *s, int write, const char *what);

/* store_sqlite_step of the kept statement id. */
int store_sqlite_run(struct store_sqlite *st, enum stmt_id id, const char *what);

/* Prepares and runs a statement without parameters. */
int store_sqlite_run_plain(struct store_sqlite *st, enum stmt_id id, const char *what);

/* Binds text of at most max - 1 bytes found in a buffer of at most max
 * bytes; longer or unterminated text is refused rather than cut. */
int store_sqlite_bind_id(struct store_sqlite *st, sqlite3_stmt *s, int col, const char *v,
                         size_t max, const char *what);

/* Binds display text from a buffer of `size` bytes, cut to size - 1 bytes
 * at a UTF-8 boundary when it is longer or unterminated. */
int store_sqlite_bind_cut(struct store_sqlite *st, sqlite3_stmt *s, int col, const char *v,
                          size_t len, size_t size, const char *what);

/* Reads an id column into dst; refused (not cut) when it does not fit. */
int store_sqlite_col_id(struct store_sqlite *st, sqlite3_stmt *s, int col, char *dst, size_t size,
                        const char *what);

/* Reads a text column into dst, cut at a UTF-8 boundary to fit. */
void store_sqlite_col_text(sqlite3_stmt *s, int col, char *dst, size_t size);

#endif
