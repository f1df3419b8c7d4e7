/* store_sqlite: the store (include/rlyeh/store.h) in SQLite, the backend
 * for a database given as a file path. Each store_sqlite_X does what
 * store_X promises.
 *
 * One connection per struct store_sqlite, used by one thread. Statements are
 * prepared on first use (a database opened at an older schema version lacks
 * some tables) and kept until store_close.
 *
 * The connection runs with journal_mode=WAL and synchronous=FULL: COMMIT
 * returns once the write-ahead log is synced, so neither a killed process
 * nor a power cut loses a committed write. The caller batches the writes of
 * an event-loop pass into one transaction, so that is one fsync per pass.
 * store_set_durability(NORMAL) drops that fsync: a commit has then reached
 * the operating system, and a power cut may lose the last commits (the
 * database stays consistent).
 *
 * Files the store creates (the database, a backup) are created mode 0600
 * whatever the umask; SQLite gives the -wal and -shm files the mode of the
 * database.
 *
 * Unsigned 64-bit values are stored as the INTEGER with the same two's
 * complement bit pattern (see migrations/0001_tables.sql). */
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
#define CKPT_PAGES      1000    /* WAL pages that wake the background checkpointer */
#define CKPT_HARD_PAGES 4000    /* WAL pages past which a commit checkpoints itself */
#define CKPT_PASSES     64      /* checkpoints in a row chasing the writer, at most */
#define WAL_SIZE_LIMIT  "16777216" /* bytes of WAL kept on disk after a reset */
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

/* rating_counts: ordinals in buckets of 1/4, games from 16 on counted as 16. */
#define BUCKETS_PER_POINT 4.0
#define GAMES_CAP         16

#define RATING_COLS  "player, name, name_key, mu, sigma, ordinal, games, wins, cthulhu"
#define RATING_WHERE "game = ?1 AND scope = ?2 AND span = ?3 AND starts = ?4"

/* `write` marks the statements counted and failed by store_fail_after. */
static const struct {
	const char *sql;
	int write;
} stmt_defs[ST_COUNT] = {
	[ST_BEGIN] = { "BEGIN IMMEDIATE", 0 },
	[ST_COMMIT] = { "COMMIT", 1 },
	[ST_ROLLBACK] = { "ROLLBACK", 0 },
	[ST_SAVEPOINT] = { "SAVEPOINT store_call", 0 },
	[ST_RELEASE] = { "RELEASE store_call", 0 },
	[ST_ROLLBACK_TO] = { "ROLLBACK TO store_call", 0 },
	[ST_MARK] = { "SAVEPOINT store_mark", 0 },
	[ST_MARK_RELEASE] = { "RELEASE store_mark", 0 },
	[ST_MARK_UNDO] = { "ROLLBACK TO store_mark", 0 },
	[ST_GAME_INSERT] = { "INSERT INTO games (server, channel, game, per_player, lang, owner, "
	                     "state, seed, rng0, rng1, rng2, rng3, first, moves, winner, "
	                     "created_at, started_at, finished_at, deadline, series_of, note, "
	                     "revision) "
	                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
	                     "?15, ?16, ?17, ?18, ?19, nullif(?20, 0), ?22, ?23)",
	                     1 },
	[ST_GAME_UPDATE] = { "UPDATE games SET server = ?1, channel = ?2, game = ?3, "
	                     "per_player = ?4, lang = ?5, owner = ?6, state = ?7, seed = ?8, "
	                     "rng0 = ?9, rng1 = ?10, rng2 = ?11, rng3 = ?12, first = ?13, "
	                     "moves = ?14, winner = ?15, created_at = ?16, started_at = ?17, "
	                     "finished_at = ?18, deadline = ?19, series_of = nullif(?20, 0), "
	                     "note = ?22, revision = ?23 WHERE id = ?21",
	                     1 },
	/* No indexed column changes, so no index is touched. */
	[ST_GAME_PROGRESS] = { "UPDATE games SET rng0 = ?1, rng1 = ?2, rng2 = ?3, rng3 = ?4, "
	                       "moves = ?5, deadline = ?6, note = ?8 WHERE id = ?7",
	                       1 },
	[ST_GAME_GET] = { "SELECT id, server, channel, game, per_player, lang, owner, state, seed, "
	                  "rng0, rng1, rng2, rng3, first, moves, winner, created_at, started_at, "
	                  "finished_at, deadline, coalesce(series_of, 0), note, revision FROM "
	                  "games "
	                  "WHERE id = ?1",
	                  0 },
	/* "+id": read the open games from their partial index and sort them,
	 * instead of walking every game in id order. */
	[ST_GAMES_OPEN] = { "SELECT id FROM games WHERE state IN (0, 1) ORDER BY +id", 0 },
	[ST_RESULTS_ALL] = { "SELECT id FROM games "
	                     "WHERE state = 2 AND game = ?1 "
	                     "AND finished_at >= ?2 AND finished_at < ?3 "
	                     "ORDER BY rated, finished_at, id",
	                     0 },
	[ST_RESULTS_SERVER] = { "SELECT id FROM games "
	                        "WHERE state = 2 AND game = ?1 AND server = ?4 "
	                        "AND finished_at >= ?2 AND finished_at < ?3 "
	                        "ORDER BY rated, finished_at, id",
	                        0 },
	[ST_MEMBERS_DELETE] = { "DELETE FROM members WHERE game_id = ?1", 1 },
	[ST_MEMBER_INSERT] = { "INSERT INTO members (game_id, idx, player, name, policy, strikes, "
	                       "autopilot, place, cthulhu, prefs) "
	                       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	                       1 },
	[ST_MEMBERS_GET] = { "SELECT idx, player, name, policy, strikes, autopilot, place, "
	                     "cthulhu, "
	                     "prefs FROM members WHERE game_id = ?1 ORDER BY idx",
	                     0 },
	[ST_EVENT_INSERT] = { "INSERT INTO events (game_id, seq, at, kind, actor, value, detail) "
	                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	                      1 },
	[ST_EVENTS_GET] = { "SELECT seq, at, kind, actor, value, detail FROM events "
	                    "WHERE game_id = ?1 ORDER BY seq",
	                    0 },
	[ST_PLAYER_PUT] = { "INSERT INTO players (id, name, lang, created_at, updated_at) "
	                    "VALUES (?1, ?2, ?3, ?4, ?4) "
	                    "ON CONFLICT (id) DO UPDATE SET name = excluded.name, "
	                    "lang = CASE WHEN excluded.lang = '' THEN players.lang "
	                    "ELSE excluded.lang END, updated_at = excluded.updated_at",
	                    1 },
	[ST_PLAYER_GET] = { "SELECT name, lang FROM players WHERE id = ?1", 0 },
	[ST_NOTIFY_PUT] = { "INSERT INTO players (id, name, notify, created_at, updated_at) "
	                    "VALUES (?1, ?2, ?3, ?4, ?4) "
	                    "ON CONFLICT (id) DO UPDATE SET name = excluded.name, "
	                    "notify = excluded.notify, updated_at = excluded.updated_at",
	                    1 },
	[ST_NOTIFY_GET] = { "SELECT notify FROM players WHERE id = ?1", 0 },
	/* games.id is AUTOINCREMENT: sqlite_sequence keeps the highest id ever
	 * given, also once that game is gone. */
	[ST_GAMES_MADE] = { "SELECT coalesce((SELECT seq FROM sqlite_sequence "
	                    "WHERE name = 'games'), 0)",
	                    0 },
	[ST_SETTING_GET] = { "SELECT value FROM settings WHERE key = ?1", 0 },
	[ST_SETTING_PUT] = { "INSERT INTO settings (key, value) VALUES (?1, ?2) "
	                     "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
	                     1 },
	[ST_CHECKPOINT] = { "PRAGMA wal_checkpoint(TRUNCATE)", 0 },
	[ST_SHARD_CLAIM] = { "INSERT INTO shards (count, shard, epoch, owner, owned_at) "
	                     "VALUES (?1, ?2, 1, ?3, ?4) ON CONFLICT (count, shard) DO UPDATE SET "
	                     "epoch = epoch + 1, owner = excluded.owner, owned_at = "
	                     "excluded.owned_at",
	                     1 },
	[ST_SHARD_EPOCH] = { "SELECT epoch FROM shards WHERE count = ?1 AND shard = ?2", 0 },
	[ST_SHARD_SESSION_PUT] = { "INSERT INTO shards (count, shard, session_id, seq, resume_url, "
	                           "saved_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
	                           "ON CONFLICT (count, shard) DO UPDATE SET "
	                           "session_id = excluded.session_id, seq = excluded.seq, "
	                           "resume_url = excluded.resume_url, saved_at = excluded.saved_at "
	                           "WHERE ?7 = 0 OR epoch = ?7",
	                           1 },
	[ST_SHARD_SESSION_GET] = { "SELECT session_id, seq, resume_url, saved_at FROM shards "
	                           "WHERE count = ?1 AND shard = ?2",
	                           0 },
	[ST_INTERACTION_MARK] = { "INSERT INTO interactions (id, at) VALUES (?1, ?2) "
	                          "ON CONFLICT (id) DO NOTHING",
	                          1 },
	[ST_INTERACTIONS_FORGET] = { "DELETE FROM interactions WHERE at < ?1", 1 },
	/* by the games_finished index, then the primary key past that game */
	[ST_CHANNEL_FINISHED] = { "SELECT id FROM (SELECT id FROM games WHERE state = 2 AND game = "
	                          "?1 "
	                          "AND server = ?2 AND channel = ?3 ORDER BY finished_at DESC, id "
	                          "DESC "
	                          "LIMIT 1) AS f WHERE NOT EXISTS (SELECT 1 FROM games h "
	                          "WHERE h.id > f.id AND h.server = ?2 AND h.channel = ?3)",
	                          0 },
	[ST_RATINGS_PENDING] = { "SELECT value FROM settings WHERE key = 'ratings'", 0 },
	[ST_RATINGS_BUILT] = { "UPDATE settings SET value = 'built' WHERE key = 'ratings'", 1 },
	[ST_RATINGS_CLEAR] = { "DELETE FROM ratings", 1 },
	/* The rated games keep their places; the others follow in time order. */
	[ST_GAMES_RATE_ALL] = { "UPDATE games SET rated = o.n FROM "
	                        "(SELECT id, (SELECT coalesce(max(rated), 0) FROM games "
	                        "WHERE rated > 0) + row_number() OVER (ORDER BY finished_at, id) "
	                        "AS n FROM games WHERE state = 2 AND rated = 0) AS o "
	                        "WHERE games.id = o.id",
	                        1 },
	[ST_GAME_RATE] = { "UPDATE games SET rated = (SELECT coalesce(max(rated), 0) + 1 "
	                   "FROM games WHERE rated > 0) WHERE id = ?1 AND state = 2 AND rated = 0",
	                   1 },
	[ST_RESULTS_RATED] = { "SELECT g.id, g.finished_at, g.server, g.game, m.player, m.name, "
	                       "m.place, m.cthulhu FROM games g JOIN members m ON m.game_id = g.id "
	                       "WHERE g.state = 2 AND g.rated > 0 AND m.player <> '' "
	                       "ORDER BY g.rated, m.idx",
	                       0 },
	[ST_RATING_GET] = { "SELECT " RATING_COLS " FROM ratings WHERE " RATING_WHERE
	                    " AND player = ?5",
	                    0 },
	[ST_RATING_PUT] = { "INSERT INTO ratings (game, scope, span, starts, " RATING_COLS ") "
	                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) "
	                    "ON CONFLICT (game, scope, span, starts, player) DO UPDATE SET "
	                    "name = excluded.name, name_key = excluded.name_key, "
	                    "mu = excluded.mu, sigma = excluded.sigma, "
	                    "ordinal = excluded.ordinal, games = excluded.games, "
	                    "wins = excluded.wins, cthulhu = excluded.cthulhu",
	                    1 },
	/* "+games": walk ratings_rank in its order, skipping the unranked,
	 * rather than gather every ranked row by ratings_games and sort. */
	/* Neither name column is set: ratings_name stays as it is. */
	[ST_RATING_UPDATE] = { "UPDATE ratings SET mu = ?6, sigma = ?7, ordinal = ?8, games = ?9, "
	                       "wins = ?10, cthulhu = ?11 WHERE " RATING_WHERE " AND player = ?5",
	                       1 },
	[ST_RATINGS_TOP] = { "SELECT " RATING_COLS " FROM ratings WHERE " RATING_WHERE
	                     " AND +games >= ?5 ORDER BY ordinal DESC, games DESC, player "
	                     "LIMIT ?6",
	                     0 },
	/* The ids first, from ratings_name alone (covering), then their rows
	 * by the primary key: asked for the name's rows directly, the planner
	 * would rather walk the period's primary key. */
	[ST_RATINGS_NAMED] = { "SELECT " RATING_COLS " FROM ratings WHERE " RATING_WHERE
	                       " AND player IN (SELECT ?5 UNION SELECT player FROM ratings "
	                       "WHERE " RATING_WHERE " AND name_key IN (?6, ?7)) "
	                       "ORDER BY CASE WHEN games >= ?8 THEN 0 ELSE 1 END, "
	                       "CASE WHEN games >= ?8 THEN ordinal ELSE 0 END DESC, "
	                       "games DESC, player",
	                       0 },
	/* Two counts, so that the long one tests one column per row. */
	[ST_RATING_RANK] = { "SELECT (SELECT count(*) FROM ratings WHERE " RATING_WHERE
	                     " AND ordinal > ?6 AND +games >= ?5) + "
	                     "(SELECT count(*) FROM ratings WHERE " RATING_WHERE
	                     " AND ordinal = ?6 AND games >= ?5 "
	                     "AND (games > ?7 OR (games = ?7 AND player < ?8)))",
	                     0 },
	/* ratings_new holds the rows of fewer than 16 games. */
	[ST_RATINGS_UNRANKED] = { "SELECT count(*) FROM ratings WHERE " RATING_WHERE
	                          " AND games < ?5 AND games < 16",
	                          0 },
	[ST_RATING_COUNT] = { "INSERT INTO rating_counts (game, scope, span, starts, bucket, "
	                      "games, "
	                      "n) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
	                      "ON CONFLICT (game, scope, span, starts, bucket, games) "
	                      "DO UPDATE SET n = rating_counts.n + excluded.n",
	                      1 },
	/* An insert of n = -1 would fail its CHECK before its conflict. */
	[ST_RATING_UNCOUNT] = { "UPDATE rating_counts SET n = n - 1 WHERE " RATING_WHERE
	                        " AND bucket = ?5 AND games = ?6",
	                        1 },
	/* The buckets above r's, then r's own above r: ordinal in (?6, ?10). */
	[ST_RATING_RANK_BUCKETS] = { "SELECT (SELECT coalesce(sum(n), 0) FROM rating_counts "
	                             "WHERE " RATING_WHERE " AND bucket > ?9 AND games >= ?5) + "
	                             "(SELECT count(*) FROM ratings WHERE " RATING_WHERE
	                             " AND ordinal > ?6 AND ordinal < ?10 AND +games >= ?5) + "
	                             "(SELECT count(*) FROM ratings WHERE " RATING_WHERE
	                             " AND ordinal = ?6 AND games >= ?5 "
	                             "AND (games > ?7 OR (games = ?7 AND player < ?8)))",
	                             0 },
	[ST_RATING_COUNTS_CLEAR] = { "DELETE FROM rating_counts", 1 },
	[ST_RATINGS_UNRANKED_ALL] = { "SELECT count(*) FROM ratings WHERE " RATING_WHERE
	                              " AND games < ?5",
	                              0 },
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

struct store_sqlite {
	sqlite3 *db;
	sqlite3_stmt *stmt[ST_COUNT];
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

static void set_err(struct store_sqlite *st, const char *fmt, ...) PRINTF_LIKE(2, 3);

static void set_err(struct store_sqlite *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->err, sizeof(st->err), fmt, ap);
	va_end(ap);
}

/* Records "<what>: <SQLite's message>", with a plainer text for the
 * constraint failures callers are expected to meet. */
static void set_db_err(struct store_sqlite *st, const char *what)
{
	int code = sqlite3_extended_errcode(st->db);

	/* games_open_channel is the schema's only UNIQUE index. */
	if (code == SQLITE_CONSTRAINT_UNIQUE)
		set_err(st, "%s: the channel already has a game in the lobby or playing", what);
	else if (code == SQLITE_CONSTRAINT_FOREIGNKEY)
		set_err(st, "%s: the game it refers to does not exist", what);
	else
		set_err(st, "%s: %s", what, sqlite3_errmsg(st->db));
}

static uint64_t u64_from_db(int64_t v)
{
	return (uint64_t)v;
}

/* The int64 with the same two's complement bits as v, without relying on
 * implementation-defined conversions. */
static int64_t u64_to_db(uint64_t v)
{
	if (v <= (uint64_t)INT64_MAX)
		return (int64_t)v;
	return -(int64_t)(UINT64_MAX - v) - 1;
}

/* The length of the longest prefix of s[0..n) that fits in max bytes
 * without splitting a UTF-8 sequence. */
static size_t utf8_cut(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

/* Copies n bytes of src into dst of `size` bytes, cut at a UTF-8 boundary
 * when too long; dst is always terminated. */
static void copy_text(char *dst, size_t size, const char *src, size_t n)
{
	n = utf8_cut(src, n, size - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The statement `id`, prepared on first use. NULL with the error set when
 * it cannot be prepared. */
static sqlite3_stmt *stmt_get(struct store_sqlite *st, enum stmt_id id)
{
	if (!st->stmt[id] && sqlite3_prepare_v3(st->db, stmt_defs[id].sql, -1,
	                                        SQLITE_PREPARE_PERSISTENT, &st->stmt[id], NULL)) {
		set_db_err(st, "prepare");
		st->stmt[id] = NULL;
	}
	return st->stmt[id];
}

static void stmt_done(sqlite3_stmt *s)
{
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
}

/* Runs a statement that returns no rows, then resets it. A write fails
 * without running while fault injection says so. 0, or -1 with the error
 * set ("<what>: ..."); the transaction, if any, is left as SQLite left it. */
static int run(struct store_sqlite *st, enum stmt_id id, const char *what)
{
	sqlite3_stmt *s = st->stmt[id];
	int rc;

	if (stmt_defs[id].write && st->fail_after == 0) {
		set_err(st, "%s: disk full (injected)", what);
		stmt_done(s);
		return -1;
	}
	rc = sqlite3_step(s);
	if (rc != SQLITE_DONE) {
		set_db_err(st, what);
		stmt_done(s);
		return -1;
	}
	stmt_done(s);
	if (stmt_defs[id].write && st->fail_after > 0)
		st->fail_after--;
	return 0;
}

/* Prepares and runs a statement without parameters. */
static int run_plain(struct store_sqlite *st, enum stmt_id id, const char *what)
{
	if (!stmt_get(st, id))
		return -1;
	return run(st, id, what);
}

/* Binds text of at most max - 1 bytes found in a buffer of at most max
 * bytes; longer or unterminated text is refused rather than cut. */
static int bind_id(struct store_sqlite *st, sqlite3_stmt *s, int col, const char *v, size_t max,
                   const char *what)
{
	size_t n = strnlen(v, max);

	if (n >= max) {
		set_err(st, "%s is longer than %zu bytes", what, max - 1);
		return -1;
	}
	if (sqlite3_bind_text(s, col, v, (int)n, SQLITE_STATIC)) {
		set_db_err(st, what);
		return -1;
	}
	return 0;
}

/* Binds display text from a buffer of `size` bytes, cut to size - 1 bytes
 * at a UTF-8 boundary when it is longer or unterminated. */
static int bind_cut(struct store_sqlite *st, sqlite3_stmt *s, int col, const char *v, size_t len,
                    size_t size, const char *what)
{
	size_t n = utf8_cut(v, len, size - 1);

	if (sqlite3_bind_text(s, col, v, (int)n, SQLITE_STATIC)) {
		set_db_err(st, what);
		return -1;
	}
	return 0;
}

/* Reads an id column into dst; refused (not cut) when it does not fit. */
static int col_id(struct store_sqlite *st, sqlite3_stmt *s, int col, char *dst, size_t size,
                  const char *what)
{
	const char *v = (const char *)sqlite3_column_text(s, col);
	size_t n = (size_t)sqlite3_column_bytes(s, col);

	if (n >= size) {
		set_err(st, "stored %s is longer than %zu bytes", what, size - 1);
		return -1;
	}
	memcpy(dst, v ? v : "", n);
	dst[n] = '\0';
	return 0;
}

/* Reads a text column into dst, cut at a UTF-8 boundary to fit. */
static void col_text(sqlite3_stmt *s, int col, char *dst, size_t size)
{
	const char *v = (const char *)sqlite3_column_text(s, col);
	size_t n = (size_t)sqlite3_column_bytes(s, col);

	copy_text(dst, size, v ? v : "", n);
}

/* Binds parameters ?1 .. ?20, ?22 and ?23 of ST_GAME_INSERT / ST_GAME_UPDATE. */
static int bind_game(struct store_sqlite *st, sqlite3_stmt *s, const struct store_game *g)
{
	if (bind_id(st, s, 1, g->server, sizeof(g->server), "server id") ||
	    bind_id(st, s, 2, g->channel, sizeof(g->channel), "channel id") ||
	    bind_id(st, s, 3, g->game, sizeof(g->game), "game kind") ||
	    bind_id(st, s, 5, g->lang, sizeof(g->lang), "language") ||
	    bind_id(st, s, 6, g->owner, sizeof(g->owner), "owner id"))
		return -1;
	sqlite3_bind_int(s, 4, g->per_player);
	sqlite3_bind_int(s, 7, g->state);
	sqlite3_bind_int64(s, 8, u64_to_db(g->seed));
	for (int i = 0; i < 4; i++)
		sqlite3_bind_int64(s, 9 + i, u64_to_db(g->rng[i]));
	sqlite3_bind_int(s, 13, g->first);
	sqlite3_bind_int(s, 14, g->moves);
	sqlite3_bind_int(s, 15, g->winner);
	sqlite3_bind_int64(s, 16, g->created_at);
	sqlite3_bind_int64(s, 17, g->started_at);
	sqlite3_bind_int64(s, 18, g->finished_at);
	sqlite3_bind_int64(s, 19, g->deadline);
	sqlite3_bind_int64(s, 20, g->series_of);
	sqlite3_bind_int(s, 22, g->note);
	sqlite3_bind_int(s, 23, g->revision);
	return 0;
}

/* Reads a row of ST_GAME_GET. */
static int col_game(struct store_sqlite *st, sqlite3_stmt *s, struct store_game *g)
{
	memset(g, 0, sizeof(*g));
	g->id = sqlite3_column_int64(s, 0);
	if (col_id(st, s, 1, g->server, sizeof(g->server), "server id") ||
	    col_id(st, s, 2, g->channel, sizeof(g->channel), "channel id") ||
	    col_id(st, s, 3, g->game, sizeof(g->game), "game kind") ||
	    col_id(st, s, 5, g->lang, sizeof(g->lang), "language") ||
	    col_id(st, s, 6, g->owner, sizeof(g->owner), "owner id"))
		return -1;
	g->per_player = sqlite3_column_int(s, 4);
	g->state = sqlite3_column_int(s, 7);
	g->seed = u64_from_db(sqlite3_column_int64(s, 8));
	for (int i = 0; i < 4; i++)
		g->rng[i] = u64_from_db(sqlite3_column_int64(s, 9 + i));
	g->first = sqlite3_column_int(s, 13);
	g->moves = sqlite3_column_int(s, 14);
	g->winner = sqlite3_column_int(s, 15);
	g->created_at = sqlite3_column_int64(s, 16);
	g->started_at = sqlite3_column_int64(s, 17);
	g->finished_at = sqlite3_column_int64(s, 18);
	g->deadline = sqlite3_column_int64(s, 19);
	g->series_of = sqlite3_column_int64(s, 20);
	g->note = sqlite3_column_int(s, 21);
	g->revision = sqlite3_column_int(s, 22);
	return 0;
}

/* Appends an event slot to l, growing the array; NULL (error set) past
 * EVENTS_MAX or when out of memory. */
static struct store_event *loaded_push_event(struct store_sqlite *st, struct loaded *l)
{
	if (l->nevents == l->cap) {
		int cap = l->cap ? l->cap * 2 : 64;
		struct store_event *bigger;

		if (l->nevents >= EVENTS_MAX) {
			set_err(st, "game %lld has more than %d events", (long long)l->game.id,
			        EVENTS_MAX);
			return NULL;
		}
		if (cap > EVENTS_MAX)
			cap = EVENTS_MAX;
		bigger = realloc(l->events, (size_t)cap * sizeof(*bigger));
		if (!bigger) {
			set_err(st, "out of memory");
			return NULL;
		}
		l->events = bigger;
		l->cap = cap;
	}
	return &l->events[l->nevents++];
}

static void loaded_free(struct loaded *l)
{
	free(l->events);
	l->events = NULL;
	l->nevents = l->cap = 0;
}

/* Reads game `id` into l: the row, its members and, when `events` is set,
 * its event log (l->events is then owned by l; free it with loaded_free,
 * also after a failure). Returns 1 when found, 0 when there is no such
 * game, -1 on error. */
static int load_game(struct store_sqlite *st, int64_t id, int events, struct loaded *l)
{
	sqlite3_stmt *s;
	int rc;

	memset(l, 0, sizeof(*l));
	if (!(s = stmt_get(st, ST_GAME_GET)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE) {
		stmt_done(s);
		return 0;
	}
	if (rc != SQLITE_ROW) {
		set_db_err(st, "load game");
		stmt_done(s);
		return -1;
	}
	rc = col_game(st, s, &l->game);
	stmt_done(s);
	if (rc)
		return -1;

	if (!(s = stmt_get(st, ST_MEMBERS_GET)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_member *m = &l->members[l->nmembers];

		if (l->nmembers == STORE_MEMBERS_MAX || sqlite3_column_int(s, 0) != l->nmembers) {
			set_err(st, "game %lld: members are not seats 0 .. %d", (long long)id,
			        STORE_MEMBERS_MAX - 1);
			stmt_done(s);
			return -1;
		}
		if (col_id(st, s, 1, m->player, sizeof(m->player), "player id") ||
		    col_id(st, s, 3, m->policy, sizeof(m->policy), "policy")) {
			stmt_done(s);
			return -1;
		}
		col_text(s, 2, m->name, sizeof(m->name));
		m->strikes = sqlite3_column_int(s, 4);
		m->autopilot = sqlite3_column_int(s, 5);
		m->place = sqlite3_column_int(s, 6);
		m->cthulhu = sqlite3_column_int(s, 7);
		m->prefs = sqlite3_column_int(s, 8);
		l->nmembers++;
	}
	stmt_done(s);
	if (rc != SQLITE_DONE) {
		set_db_err(st, "load members");
		return -1;
	}
	if (!events)
		return 1;

	if (!(s = stmt_get(st, ST_EVENTS_GET)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_event *e = loaded_push_event(st, l);

		if (!e || col_id(st, s, 2, e->kind, sizeof(e->kind), "event kind")) {
			stmt_done(s);
			return -1;
		}
		e->seq = sqlite3_column_int64(s, 0);
		e->at = sqlite3_column_int64(s, 1);
		e->actor = sqlite3_column_int(s, 3);
		e->value = sqlite3_column_int(s, 4);
		col_text(s, 5, e->detail, sizeof(e->detail));
	}
	stmt_done(s);
	if (rc != SQLITE_DONE) {
		set_db_err(st, "load events");
		return -1;
	}
	return 1;
}

/* Runs the prepared query s (parameters bound) and gathers the ids in its
 * first column into list, which the caller frees. The statement is reset
 * before returning, so callbacks may use the store freely afterwards. */
static int gather_ids(struct store_sqlite *st, sqlite3_stmt *s, struct id_list *list)
{
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (list->n == list->cap) {
			int cap = list->cap ? list->cap * 2 : 64;
			int64_t *bigger;

			if (list->n >= LIST_MAX) {
				set_err(st, "more than %d games to walk", LIST_MAX);
				stmt_done(s);
				return -1;
			}
			bigger = realloc(list->ids, (size_t)cap * sizeof(*bigger));
			if (!bigger) {
				set_err(st, "out of memory");
				stmt_done(s);
				return -1;
			}
			list->ids = bigger;
			list->cap = cap;
		}
		list->ids[list->n++] = sqlite3_column_int64(s, 0);
	}
	stmt_done(s);
	if (rc != SQLITE_DONE) {
		set_db_err(st, "list games");
		return -1;
	}
	return 0;
}

/* Reads PRAGMA user_version into *version. */
static int read_version(struct store_sqlite *st, int *version)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL)) {
		set_db_err(st, "read schema version");
		return -1;
	}
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*version = sqlite3_column_int(s, 0);
	else
		set_db_err(st, "read schema version");
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* Runs a pragma that answers one row and copies its text into out. */
static int pragma_text(struct store_sqlite *st, const char *sql, char *out, size_t size)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL)) {
		set_db_err(st, sql);
		return -1;
	}
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		col_text(s, 0, out, size);
	else if (rc == SQLITE_DONE)
		set_err(st, "%s: no answer", sql);
	else
		set_db_err(st, sql);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* Applies migration `version` (1-based) in its own transaction, unless
 * another connection applied it first. The database is unchanged on
 * failure. */
static int migrate_one(struct store_sqlite *st, int version)
{
	char sql[64];
	int current;

	if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) {
		set_db_err(st, "begin migration");
		return -1;
	}
	if (read_version(st, &current))
		goto fail;
	if (current >= version)
		goto commit;
	if (sqlite3_exec(st->db, store_migrations[version - 1], NULL, NULL, NULL)) {
		set_err(st, "migration %s: %s", store_migration_names[version - 1],
		        sqlite3_errmsg(st->db));
		goto fail;
	}
	/* PRAGMA takes no parameters; the version is our own integer. */
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version);
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL)) {
		set_db_err(st, "set schema version");
		goto fail;
	}
commit:
	if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL)) {
		set_db_err(st, "commit migration");
		goto fail;
	}
	return 0;
fail:
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* Sets up the connection: busy timeout, WAL, synchronous, foreign keys.
 * Refuses a database newer than the binary before changing anything in it,
 * then applies migrations up to `version`. */
static int setup(struct store_sqlite *st, int version)
{
	char mode[16];
	int current, latest = store_schema_latest();

	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	if (read_version(st, &current))
		return -1;
	if (current > latest) {
		set_err(st,
		        "database schema version %d is newer than this program's latest version "
		        "%d; use a newer rlyeh",
		        current, latest);
		return -1;
	}
	if (pragma_text(st, "PRAGMA journal_mode = WAL", mode, sizeof(mode)))
		return -1;
	if (strcmp(mode, "wal") != 0 && strcmp(mode, "memory") != 0) {
		set_err(st, "cannot use write-ahead logging (journal_mode is %s)", mode);
		return -1;
	}
	if (sqlite3_exec(st->db,
	                 "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; "
	                 "PRAGMA cache_size = " CACHE_SIZE,
	                 NULL, NULL, NULL)) {
		set_db_err(st, "configure");
		return -1;
	}
	if (pragma_text(st, "PRAGMA foreign_keys", mode, sizeof(mode)))
		return -1;
	if (strcmp(mode, "1") != 0) {
		set_err(st, "this SQLite does not enforce foreign keys");
		return -1;
	}
	for (int v = current + 1; v <= version; v++)
		if (migrate_one(st, v))
			return -1;
	return 0;
}

/* Creates the file at `path`, empty and mode 0600 whatever the umask.
 * With `exclusive`, an existing file is refused (errno EEXIST); without,
 * it is left as it is. 0, or -1 with errno. */
static int create_private(const char *path, int exclusive)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (fd < 0)
		return errno == EEXIST && !exclusive ? 0 : -1;
	if (fchmod(fd, 0600)) {
		int e = errno;
		close(fd);
		unlink(path);
		errno = e;
		return -1;
	}
	return close(fd);
}

int store_sqlite_set_durability(struct store_sqlite *st, int durability)
{
	const char *sql = durability == STORE_DURABLE_NORMAL ? "PRAGMA synchronous = NORMAL"
	                                                     : "PRAGMA synchronous = FULL";

	if (durability != STORE_DURABLE_FULL && durability != STORE_DURABLE_NORMAL) {
		set_err(st, "durability %d is neither full nor normal", durability);
		return -1;
	}
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL)) {
		set_db_err(st, "durability");
		return -1;
	}
	return 0;
}

/* Appends s to report (cap bytes), "; " between parts; cut when full. */
static void report_add(char *report, size_t cap, const char *s)
{
	size_t used = strlen(report);

	if (used + 1 >= cap)
		return;
	snprintf(report + used, cap - used, "%s%s", used ? "; " : "", s);
}

int store_sqlite_check(const char *path, int full, char *report, size_t cap)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	struct stat sb;
	int rc = -1, step;

	if (!cap)
		return -1;
	report[0] = '\0';
	if (stat(path, &sb)) {
		if (errno == ENOENT)
			return 0;
		snprintf(report, cap, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* Read only: a damaged file gets no write, not even a checkpoint. */
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(report, cap, "%s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	sqlite3_busy_timeout(db, 5000);
	if (sqlite3_prepare_v2(db, full ? "PRAGMA integrity_check(20)" : "PRAGMA quick_check(20)",
	                       -1, &s, NULL) != SQLITE_OK) {
		step = sqlite3_errcode(db);
		goto failed;
	}
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		const char *line = (const char *)sqlite3_column_text(s, 0);
		if (!line)
			continue;
		if (strcmp(line, "ok") == 0 && !report[0]) {
			rc = 0;
			continue;
		}
		rc = 1;
		report_add(report, cap, line);
	}
	if (step == SQLITE_DONE && rc >= 0)
		goto out;
failed:
	/* Problems found before an error, or a file too damaged to be read as a
	 * database at all: damaged. */
	if (rc == 1 || (step & 0xff) == SQLITE_CORRUPT || (step & 0xff) == SQLITE_NOTADB) {
		rc = 1;
		report_add(report, cap, sqlite3_errmsg(db));
	} else {
		rc = -1;
		snprintf(report, cap, "%s: %s", path, sqlite3_errmsg(db));
	}
out:
	sqlite3_finalize(s);
	sqlite3_close(db);
	return rc;
}

/* Bytes of a statement journal kept in memory. */
#define STMT_JOURNAL_SPILL (1 << 20)

static pthread_once_t config_once = PTHREAD_ONCE_INIT;

/* Keeps a statement's journal in memory up to STMT_JOURNAL_SPILL bytes (64
 * KiB by default): a transaction of many interactions then needs no
 * temporary file and writes no page twice to disk. Only possible before
 * SQLite is initialised (no connection opened yet in the process); later,
 * SQLite's default stays and nothing else changes. */
static void config_process(void)
{
	(void)sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, (int)STMT_JOURNAL_SPILL);
}

int store_sqlite_open_version(const char *path, int version, struct store_sqlite **out, char *err,
                              size_t errlen)
{
	struct store_sqlite *st;
	const char *undo;
	int latest = store_schema_latest();

	*out = NULL;
	if (version < 0 || version > latest) {
		if (errlen)
			snprintf(err, errlen, "schema version %d is not between 0 and %d", version,
			         latest);
		return -1;
	}
	if (sqlite3_libversion_number() < SQLITE_NEEDED) {
		if (errlen)
			snprintf(err, errlen, "SQLite %s is too old: 3.37.0 or later is needed",
			         sqlite3_libversion());
		return -1;
	}
	(void)pthread_once(&config_once, config_process);
	if (!(st = calloc(1, sizeof(*st)))) {
		if (errlen)
			snprintf(err, errlen, "out of memory");
		return -1;
	}
	st->fail_after = -1;
	if (create_private(path, 0)) {
		set_err(st, "%s: %s", path, strerror(errno));
		goto fail;
	}
	undo = getenv("RLYEH_TEST_POWERLOSS_UNDO");
	if (undo && *undo) {
		const char *us = getenv("RLYEH_TEST_POWERLOSS_SYNC_US");
		char *end = NULL;
		long sync_us = us && *us ? strtol(us, &end, 10) : 0;
		if (us && *us && (*end || sync_us < 0 || sync_us > 1000000)) {
			set_err(st, "RLYEH_TEST_POWERLOSS_SYNC_US: expected 0 to 1000000");
			goto fail;
		}
		if (powervfs_install(undo, sync_us, st->err, sizeof(st->err)))
			goto fail;
	}
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL)) {
		if (st->db)
			set_err(st, "%s: %s", path, sqlite3_errmsg(st->db));
		else
			set_err(st, "%s: out of memory", path);
		goto fail;
	}
	if (!(st->path = strdup(path))) {
		set_err(st, "out of memory");
		goto fail;
	}
	if (setup(st, version))
		goto fail;
	*out = st;
	return 0;
fail:
	if (errlen)
		snprintf(err, errlen, "%s", st->err);
	store_sqlite_close(st);
	return -1;
}

/* Stops and frees the background checkpointer, if any. */
static void ckpt_stop(struct store_sqlite *st)
{
	struct ckpt *c = st->ckpt;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = 1;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	sqlite3_close(c->db);
	pthread_cond_destroy(&c->wake);
	pthread_mutex_destroy(&c->lock);
	free(c);
	st->ckpt = NULL;
	if (st->db)
		sqlite3_wal_autocheckpoint(st->db, CKPT_PAGES);
}

void store_sqlite_close(struct store_sqlite *st)
{
	if (!st)
		return;
	ckpt_stop(st);
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(st->stmt[i]);
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

static void *ckpt_main(void *arg)
{
	struct ckpt *c = arg;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->due && !c->stop)
			pthread_cond_wait(&c->wake, &c->lock);
		if (c->stop)
			break;
		c->due = 0;
		pthread_mutex_unlock(&c->lock);
		/* PASSIVE never waits for the writer. Commits go on meanwhile,
		 * so copy again until one pass finds nothing new: the WAL can
		 * only start over after a checkpoint that copied it all. */
		for (int pass = 0; pass < CKPT_PASSES; pass++) {
			int log = 0, copied = 0;
			int rc = sqlite3_wal_checkpoint_v2(c->db, NULL, SQLITE_CHECKPOINT_PASSIVE,
			                                   &log, &copied);
			if (rc == SQLITE_OK && copied > 0) {
				pthread_mutex_lock(&c->lock);
				c->runs++;
				pthread_mutex_unlock(&c->lock);
			}
			if (rc != SQLITE_OK || log <= copied)
				break;
		}
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* The main connection's WAL hook, called after each commit with the WAL's
 * size in pages. */
static int ckpt_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct ckpt *c = arg;

	if (pages >= CKPT_HARD_PAGES) {
		/* The checkpointer has fallen far behind: bound the WAL here. */
		sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		return SQLITE_OK;
	}
	if (pages >= CKPT_PAGES) {
		pthread_mutex_lock(&c->lock);
		c->due = 1;
		pthread_cond_signal(&c->wake);
		pthread_mutex_unlock(&c->lock);
	}
	return SQLITE_OK;
}

int store_sqlite_checkpoint_background(struct store_sqlite *st)
{
	struct ckpt *c;
	sigset_t all, old;
	int rc;

	if (st->ckpt)
		return 0;
	if (!(c = calloc(1, sizeof(*c)))) {
		set_err(st, "checkpointer: out of memory");
		return -1;
	}
	if (sqlite3_open_v2(st->path, &c->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		set_err(st, "checkpointer: %s", c->db ? sqlite3_errmsg(c->db) : "out of memory");
		sqlite3_close(c->db);
		free(c);
		return -1;
	}
	sqlite3_busy_timeout(c->db, BUSY_TIMEOUT_MS);
	/* A connection learns that the database is in WAL mode when it first
	 * reads it; until then it has no WAL to checkpoint. Checkpoints copy
	 * pages without its page cache, so a small one does. */
	if (sqlite3_exec(c->db, "PRAGMA cache_size = 16; PRAGMA journal_mode", NULL, NULL, NULL) !=
	    SQLITE_OK) {
		set_err(st, "checkpointer: %s", sqlite3_errmsg(c->db));
		sqlite3_close(c->db);
		free(c);
		return -1;
	}
	if (sqlite3_exec(st->db, "PRAGMA journal_size_limit = " WAL_SIZE_LIMIT, NULL, NULL, NULL) !=
	    SQLITE_OK) {
		set_db_err(st, "checkpointer");
		sqlite3_close(c->db);
		free(c);
		return -1;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	/* signals go to the caller's threads */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&c->thread, NULL, ckpt_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		set_err(st, "checkpointer: cannot start a thread");
		pthread_cond_destroy(&c->wake);
		pthread_mutex_destroy(&c->lock);
		sqlite3_close(c->db);
		free(c);
		return -1;
	}
	st->ckpt = c;
	sqlite3_wal_hook(st->db, ckpt_hook, c);
	return 0;
}

long store_sqlite_checkpoints_made(struct store_sqlite *st)
{
	long n = 0;

	if (st->ckpt) {
		pthread_mutex_lock(&st->ckpt->lock);
		n = st->ckpt->runs;
		pthread_mutex_unlock(&st->ckpt->lock);
	}
	return n;
}

int store_sqlite_schema_version(struct store_sqlite *st)
{
	int version;

	return read_version(st, &version) ? -1 : version;
}

const char *store_sqlite_errmsg(struct store_sqlite *st)
{
	return st->err;
}

int store_sqlite_begin(struct store_sqlite *st)
{
	if (!sqlite3_get_autocommit(st->db)) {
		set_err(st, "begin: a transaction is already open");
		return -1;
	}
	return run_plain(st, ST_BEGIN, "begin");
}

int store_sqlite_commit(struct store_sqlite *st)
{
	return run_plain(st, ST_COMMIT, "commit");
}

void store_sqlite_rollback(struct store_sqlite *st)
{
	if (!sqlite3_get_autocommit(st->db))
		run_plain(st, ST_ROLLBACK, "rollback");
}

int store_sqlite_in_transaction(struct store_sqlite *st)
{
	return !sqlite3_get_autocommit(st->db);
}

int store_sqlite_mark(struct store_sqlite *st)
{
	return run_plain(st, ST_MARK, "mark");
}

int store_sqlite_mark_keep(struct store_sqlite *st)
{
	return run_plain(st, ST_MARK_RELEASE, "mark");
}

void store_sqlite_mark_undo(struct store_sqlite *st)
{
	if (sqlite3_get_autocommit(st->db) || !stmt_get(st, ST_MARK_UNDO) ||
	    !stmt_get(st, ST_MARK_RELEASE))
		return;
	sqlite3_step(st->stmt[ST_MARK_UNDO]);
	stmt_done(st->stmt[ST_MARK_UNDO]);
	sqlite3_step(st->stmt[ST_MARK_RELEASE]);
	stmt_done(st->stmt[ST_MARK_RELEASE]);
}

int store_sqlite_game_create(struct store_sqlite *st, struct store_game *g)
{
	sqlite3_stmt *s = stmt_get(st, ST_GAME_INSERT);

	if (!s)
		return -1;
	if (bind_game(st, s, g)) {
		stmt_done(s);
		return -1;
	}
	if (run(st, ST_GAME_INSERT, "create game"))
		return -1;
	g->id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

int store_sqlite_game_update(struct store_sqlite *st, const struct store_game *g)
{
	sqlite3_stmt *s = stmt_get(st, ST_GAME_UPDATE);

	if (!s)
		return -1;
	if (bind_game(st, s, g)) {
		stmt_done(s);
		return -1;
	}
	sqlite3_bind_int64(s, 21, g->id);
	if (run(st, ST_GAME_UPDATE, "update game"))
		return -1;
	if (sqlite3_changes(st->db) == 0) {
		set_err(st, "update game %lld: no such game", (long long)g->id);
		return -1;
	}
	return 0;
}

int store_sqlite_game_progress(struct store_sqlite *st, const struct store_game *g)
{
	sqlite3_stmt *s = stmt_get(st, ST_GAME_PROGRESS);

	if (!s)
		return -1;
	for (int i = 0; i < 4; i++)
		sqlite3_bind_int64(s, 1 + i, u64_to_db(g->rng[i]));
	sqlite3_bind_int(s, 5, g->moves);
	sqlite3_bind_int64(s, 6, g->deadline);
	sqlite3_bind_int64(s, 7, g->id);
	sqlite3_bind_int(s, 8, g->note);
	if (run(st, ST_GAME_PROGRESS, "update game"))
		return -1;
	if (sqlite3_changes(st->db) == 0) {
		set_err(st, "update game %lld: no such game", (long long)g->id);
		return -1;
	}
	return 0;
}

/* Inserts member i of game_id. */
static int member_insert(struct store_sqlite *st, int64_t game_id, int i,
                         const struct store_member *m)
{
	sqlite3_stmt *s = stmt_get(st, ST_MEMBER_INSERT);

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, game_id);
	sqlite3_bind_int(s, 2, i);
	if (bind_id(st, s, 3, m->player, sizeof(m->player), "player id") ||
	    bind_cut(st, s, 4, m->name, strnlen(m->name, sizeof(m->name)), sizeof(m->name),
	             "member name") ||
	    bind_id(st, s, 5, m->policy, sizeof(m->policy), "policy")) {
		stmt_done(s);
		return -1;
	}
	sqlite3_bind_int(s, 6, m->strikes);
	sqlite3_bind_int(s, 7, m->autopilot);
	sqlite3_bind_int(s, 8, m->place);
	sqlite3_bind_int(s, 9, m->cthulhu);
	sqlite3_bind_int(s, 10, m->prefs);
	return run(st, ST_MEMBER_INSERT, "put members");
}

/* The call is all or nothing: outside a transaction it runs in its own;
 * inside the caller's, under a savepoint, so that a failure undoes only
 * this call and leaves the transaction open for the caller to roll back. */
int store_sqlite_members_put(struct store_sqlite *st, int64_t game_id,
                             const struct store_member *members, int n)
{
	int own = sqlite3_get_autocommit(st->db);

	if (n < 0 || n > STORE_MEMBERS_MAX || (n > 0 && !members)) {
		set_err(st, "put members: %d members (at most %d)", n, STORE_MEMBERS_MAX);
		return -1;
	}
	if (!stmt_get(st, ST_MEMBERS_DELETE) || !stmt_get(st, ST_ROLLBACK) ||
	    !stmt_get(st, ST_ROLLBACK_TO) || !stmt_get(st, ST_RELEASE))
		return -1;
	if (run_plain(st, own ? ST_BEGIN : ST_SAVEPOINT, "put members"))
		return -1;
	sqlite3_bind_int64(st->stmt[ST_MEMBERS_DELETE], 1, game_id);
	if (run(st, ST_MEMBERS_DELETE, "put members"))
		goto fail;
	for (int i = 0; i < n; i++)
		if (member_insert(st, game_id, i, &members[i]))
			goto fail;
	if (run_plain(st, own ? ST_COMMIT : ST_RELEASE, "put members"))
		goto fail;
	return 0;
fail:
	if (sqlite3_get_autocommit(st->db))
		return -1;
	if (own) {
		sqlite3_step(st->stmt[ST_ROLLBACK]);
		stmt_done(st->stmt[ST_ROLLBACK]);
	} else {
		sqlite3_step(st->stmt[ST_ROLLBACK_TO]);
		stmt_done(st->stmt[ST_ROLLBACK_TO]);
		sqlite3_step(st->stmt[ST_RELEASE]);
		stmt_done(st->stmt[ST_RELEASE]);
	}
	return -1;
}

int store_sqlite_event_append(struct store_sqlite *st, int64_t game_id, const struct store_event *e)
{
	sqlite3_stmt *s = stmt_get(st, ST_EVENT_INSERT);

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, game_id);
	sqlite3_bind_int64(s, 2, e->seq);
	sqlite3_bind_int64(s, 3, e->at);
	if (bind_id(st, s, 4, e->kind, sizeof(e->kind), "event kind") ||
	    bind_cut(st, s, 7, e->detail, strnlen(e->detail, sizeof(e->detail)), sizeof(e->detail),
	             "event detail")) {
		stmt_done(s);
		return -1;
	}
	sqlite3_bind_int(s, 5, e->actor);
	sqlite3_bind_int(s, 6, e->value);
	return run(st, ST_EVENT_INSERT, "append event");
}

/* Loads game `id` with its members and events and, when found (and, with
 * `open_only`, still in the lobby or playing), calls fn with it and stores
 * fn's return in *fn_rc. Returns 1 when fn was called, 0 when not, -1 on
 * error. The arrays fn sees are freed before returning. */
static int deliver(struct store_sqlite *st, int64_t id, int open_only, store_game_fn fn, void *ctx,
                   int *fn_rc)
{
	struct loaded l;
	struct store_loaded view;
	int rc = load_game(st, id, 1, &l);

	if (rc > 0 && open_only && l.game.state != STORE_LOBBY && l.game.state != STORE_PLAYING)
		rc = 0;
	if (rc > 0) {
		view = (struct store_loaded){ &l.game, l.members, l.nmembers, l.events, l.nevents };
		*fn_rc = fn(ctx, &view);
	}
	loaded_free(&l);
	return rc;
}

int store_sqlite_games_open(struct store_sqlite *st, store_game_fn fn, void *ctx)
{
	struct id_list ids = { NULL, 0, 0 };
	sqlite3_stmt *s = stmt_get(st, ST_GAMES_OPEN);
	int rc = 0;

	if (!s || gather_ids(st, s, &ids)) {
		free(ids.ids);
		return -1;
	}
	for (int i = 0; i < ids.n && rc == 0; i++)
		if (deliver(st, ids.ids[i], 1, fn, ctx, &rc) < 0)
			rc = -1;
	free(ids.ids);
	return rc;
}

int store_sqlite_game_load(struct store_sqlite *st, int64_t id, store_game_fn fn, void *ctx)
{
	int fn_rc = 0;
	int rc = deliver(st, id, 0, fn, ctx, &fn_rc);

	if (rc == 0)
		set_err(st, "game %lld: no such game", (long long)id);
	return rc > 0 ? fn_rc : -1;
}

int store_sqlite_results(struct store_sqlite *st, const char *game, const char *server,
                         int64_t since, int64_t until, store_result_fn fn, void *ctx)
{
	enum stmt_id id = server ? ST_RESULTS_SERVER : ST_RESULTS_ALL;
	struct id_list ids = { NULL, 0, 0 };
	sqlite3_stmt *s = stmt_get(st, id);
	int rc = 0;

	if (!s)
		return -1;
	if (!game) {
		set_err(st, "results: no game kind");
		return -1;
	}
	sqlite3_bind_text(s, 1, game, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, since);
	sqlite3_bind_int64(s, 3, until ? until : INT64_MAX);
	if (server)
		sqlite3_bind_text(s, 4, server, -1, SQLITE_STATIC);
	if (gather_ids(st, s, &ids)) {
		free(ids.ids);
		return -1;
	}
	for (int i = 0; i < ids.n && rc == 0; i++) {
		struct loaded l;
		struct store_result r;
		int found = load_game(st, ids.ids[i], 0, &l);

		if (found < 0) {
			rc = -1;
		} else if (found > 0 && l.game.state == STORE_FINISHED) {
			r = (struct store_result){ l.game.id,  l.game.finished_at, l.game.server,
				                   l.nmembers, l.members,          l.game.game };
			rc = fn(ctx, &r);
		}
		loaded_free(&l);
	}
	free(ids.ids);
	return rc;
}

int store_sqlite_cache_bulk(struct store_sqlite *st, int on)
{
	if (sqlite3_exec(st->db,
	                 on ? "PRAGMA cache_size = -262144" : "PRAGMA cache_size = " CACHE_SIZE,
	                 NULL, NULL, NULL)) {
		set_db_err(st, "cache size");
		return -1;
	}
	return 0;
}

int store_sqlite_ratings_pending(struct store_sqlite *st)
{
	sqlite3_stmt *s = stmt_get(st, ST_RATINGS_PENDING);
	int rc, pending = -1;

	if (!s)
		return -1;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(s, 0);
		pending = v && strcmp(v, "build") == 0;
	} else if (rc == SQLITE_DONE) {
		set_err(st, "ratings: the database has none (schema older than 7)");
	} else {
		set_db_err(st, "ratings");
	}
	stmt_done(s);
	return pending;
}

int store_sqlite_ratings_built(struct store_sqlite *st)
{
	return run_plain(st, ST_RATINGS_BUILT, "ratings built");
}

int store_sqlite_ratings_clear(struct store_sqlite *st)
{
	if (run_plain(st, ST_RATINGS_CLEAR, "clear ratings"))
		return -1;
	return run_plain(st, ST_RATING_COUNTS_CLEAR, "clear ratings");
}

int store_sqlite_games_rate_all(struct store_sqlite *st)
{
	return run_plain(st, ST_GAMES_RATE_ALL, "rate games");
}

int store_sqlite_game_rate(struct store_sqlite *st, int64_t id)
{
	sqlite3_stmt *s = stmt_get(st, ST_GAME_RATE);

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	return run(st, ST_GAME_RATE, "rate game");
}

int store_sqlite_results_rated(struct store_sqlite *st, store_result_fn fn, void *ctx)
{
	sqlite3_stmt *s = stmt_get(st, ST_RESULTS_RATED);
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
			if (col_id(st, s, 2, server, sizeof(server), "server id") ||
			    col_id(st, s, 3, game, sizeof(game), "game kind")) {
				stmt_done(s);
				return -1;
			}
		}
		if (r.nmembers == STORE_MEMBERS_MAX) {
			set_err(st, "game %lld has more than %d members", (long long)id,
			        STORE_MEMBERS_MAX);
			stmt_done(s);
			return -1;
		}
		x = &m[r.nmembers++];
		memset(x, 0, sizeof(*x));
		if (col_id(st, s, 4, x->player, sizeof(x->player), "player id")) {
			stmt_done(s);
			return -1;
		}
		col_text(s, 5, x->name, sizeof(x->name));
		x->place = sqlite3_column_int(s, 6);
		x->cthulhu = sqlite3_column_int(s, 7);
	}
	stmt_done(s);
	if (fn_rc)
		return fn_rc;
	if (rc != SQLITE_DONE) {
		set_db_err(st, "rated results");
		return -1;
	}
	return r.nmembers > 0 ? fn(ctx, &r) : 0;
}

/* Binds ?1 .. ?4 of a ratings statement: the period. */
static int bind_period(struct store_sqlite *st, sqlite3_stmt *s, const struct store_period *p)
{
	if (!p->game || !p->scope) {
		set_err(st, "ratings: no game kind or scope");
		return -1;
	}
	if (bind_id(st, s, 1, p->game, STORE_KIND_MAX, "game kind") ||
	    bind_id(st, s, 2, p->scope, STORE_ID_MAX, "scope"))
		return -1;
	sqlite3_bind_int(s, 3, p->span);
	sqlite3_bind_int64(s, 4, p->starts);
	return 0;
}

/* The rating_counts bucket of an ordinal: floor(4 ordinal), exact (a
 * product by 4 is), so that bucket(x) <= b exactly when
 * x < (b + 1) / 4. */
static int64_t bucket_of(double ordinal)
{
	double x = ordinal * BUCKETS_PER_POINT;
	int64_t b;

	if (!(x > -1e15)) /* also NaN */
		return -1000000000000000LL;
	if (x > 1e15)
		return 1000000000000000LL;
	b = (int64_t)x;
	return (double)b > x ? b - 1 : b;
}

/* Adds delta (1 or -1) to the count of r's bucket and games in period p. */
static int count_add(struct store_sqlite *st, const struct store_period *p,
                     const struct store_rating *r, int delta)
{
	enum stmt_id id = delta > 0 ? ST_RATING_COUNT : ST_RATING_UNCOUNT;
	sqlite3_stmt *s = stmt_get(st, id);

	if (!s)
		return -1;
	if (bind_period(st, s, p)) {
		stmt_done(s);
		return -1;
	}
	sqlite3_bind_int64(s, 5, bucket_of(r->ordinal));
	sqlite3_bind_int(s, 6, r->games < GAMES_CAP ? r->games : GAMES_CAP);
	if (delta > 0)
		sqlite3_bind_int(s, 7, delta);
	if (run(st, id, "count rating"))
		return -1;
	if (delta < 0 && sqlite3_changes(st->db) != 1) {
		set_err(st, "count rating of %s: not counted", r->player);
		return -1;
	}
	return 0;
}

/* Reads a row of RATING_COLS. */
static int col_rating(struct store_sqlite *st, sqlite3_stmt *s, struct store_rating *r)
{
	memset(r, 0, sizeof(*r));
	if (col_id(st, s, 0, r->player, sizeof(r->player), "player id"))
		return -1;
	col_text(s, 1, r->name, sizeof(r->name));
	col_text(s, 2, r->name_key, sizeof(r->name_key));
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
			stmt_done(s);
			return -1;
		}
		if ((fn_rc = fn(ctx, &r)) != 0)
			break;
	}
	stmt_done(s);
	if (fn_rc)
		return fn_rc;
	if (rc != SQLITE_DONE) {
		set_db_err(st, "ratings");
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
		set_db_err(st, "count ratings");
	stmt_done(s);
	return rc == SQLITE_ROW ? 0 : -1;
}

int store_sqlite_rating_get(struct store_sqlite *st, const struct store_period *p,
                            const char *player, struct store_rating *out)
{
	sqlite3_stmt *s = stmt_get(st, ST_RATING_GET);
	int rc;

	if (!s)
		return -1;
	if (bind_period(st, s, p) || bind_id(st, s, 5, player, STORE_ID_MAX, "player id")) {
		stmt_done(s);
		return -1;
	}
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		rc = col_rating(st, s, out) ? -1 : 1;
	} else if (rc == SQLITE_DONE) {
		rc = 0;
	} else {
		set_db_err(st, "get rating");
		rc = -1;
	}
	stmt_done(s);
	return rc;
}

/* Upserts row r of period p, names and all. */
static int rating_upsert(struct store_sqlite *st, const struct store_period *p,
                         const struct store_rating *r)
{
	sqlite3_stmt *s = stmt_get(st, ST_RATING_PUT);

	if (!s)
		return -1;
	if (bind_period(st, s, p) || bind_id(st, s, 5, r->player, sizeof(r->player), "player id") ||
	    bind_cut(st, s, 6, r->name, strnlen(r->name, sizeof(r->name)), sizeof(r->name),
	             "player name") ||
	    bind_cut(st, s, 7, r->name_key, strnlen(r->name_key, sizeof(r->name_key)),
	             sizeof(r->name_key), "name key")) {
		stmt_done(s);
		return -1;
	}
	sqlite3_bind_double(s, 8, r->mu);
	sqlite3_bind_double(s, 9, r->sigma);
	sqlite3_bind_double(s, 10, r->ordinal);
	sqlite3_bind_int(s, 11, r->games);
	sqlite3_bind_int(s, 12, r->wins);
	sqlite3_bind_int(s, 13, r->cthulhu);
	return run(st, ST_RATING_PUT, "put rating");
}

/* Writes the numbers of r into its existing row of period p. */
static int rating_update(struct store_sqlite *st, const struct store_period *p,
                         const struct store_rating *r)
{
	sqlite3_stmt *s = stmt_get(st, ST_RATING_UPDATE);

	if (!s)
		return -1;
	if (bind_period(st, s, p) || bind_id(st, s, 5, r->player, sizeof(r->player), "player id")) {
		stmt_done(s);
		return -1;
	}
	sqlite3_bind_double(s, 6, r->mu);
	sqlite3_bind_double(s, 7, r->sigma);
	sqlite3_bind_double(s, 8, r->ordinal);
	sqlite3_bind_int(s, 9, r->games);
	sqlite3_bind_int(s, 10, r->wins);
	sqlite3_bind_int(s, 11, r->cthulhu);
	if (run(st, ST_RATING_UPDATE, "update rating"))
		return -1;
	if (sqlite3_changes(st->db) != 1) {
		set_err(st, "update rating of %s: no such row", r->player);
		return -1;
	}
	return 0;
}

int store_sqlite_rating_put(struct store_sqlite *st, const struct store_period *p,
                            const struct store_rating *r, const struct store_rating *old)
{
	if (old && strcmp(old->player, r->player) != 0) {
		set_err(st, "put rating: %s is not %s", r->player, old->player);
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

int store_sqlite_ratings_top(struct store_sqlite *st, const struct store_period *p, int min_games,
                             int limit, store_rating_fn fn, void *ctx)
{
	sqlite3_stmt *s = stmt_get(st, ST_RATINGS_TOP);

	if (!s)
		return -1;
	if (bind_period(st, s, p)) {
		stmt_done(s);
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
	sqlite3_stmt *s = stmt_get(st, ST_RATINGS_NAMED);

	if (!s)
		return -1;
	/* Longer text than a stored value can match nothing: bound cut,
	 * it could match the wrong row, so it is refused instead. */
	if (strlen(player) >= STORE_ID_MAX || strlen(key1) >= STORE_NAME_MAX ||
	    strlen(key2) >= STORE_NAME_MAX)
		return 0;
	if (bind_period(st, s, p) || bind_id(st, s, 5, player, STORE_ID_MAX, "player id") ||
	    bind_id(st, s, 6, key1, STORE_NAME_MAX, "name key") ||
	    bind_id(st, s, 7, key2, STORE_NAME_MAX, "name key")) {
		stmt_done(s);
		return -1;
	}
	sqlite3_bind_int(s, 8, min_games);
	return walk_ratings(st, s, fn, ctx);
}

int store_sqlite_rating_rank(struct store_sqlite *st, const struct store_period *p, int min_games,
                             const struct store_rating *r, int *above)
{
	int buckets = min_games <= GAMES_CAP;
	sqlite3_stmt *s = stmt_get(st, buckets ? ST_RATING_RANK_BUCKETS : ST_RATING_RANK);

	if (!s)
		return -1;
	if (bind_period(st, s, p) || bind_id(st, s, 8, r->player, sizeof(r->player), "player id")) {
		stmt_done(s);
		return -1;
	}
	sqlite3_bind_int(s, 5, min_games);
	sqlite3_bind_double(s, 6, r->ordinal);
	sqlite3_bind_int(s, 7, r->games);
	if (buckets) {
		int64_t b = bucket_of(r->ordinal);
		sqlite3_bind_int64(s, 9, b);
		sqlite3_bind_double(s, 10, (double)(b + 1) / BUCKETS_PER_POINT);
	}
	return count_of(st, s, above);
}

int store_sqlite_ratings_unranked(struct store_sqlite *st, const struct store_period *p,
                                  int min_games, int *n)
{
	sqlite3_stmt *s =
	    stmt_get(st, min_games <= 16 ? ST_RATINGS_UNRANKED : ST_RATINGS_UNRANKED_ALL);

	if (!s)
		return -1;
	if (bind_period(st, s, p)) {
		stmt_done(s);
		return -1;
	}
	sqlite3_bind_int(s, 5, min_games);
	return count_of(st, s, n);
}

int store_sqlite_player_put(struct store_sqlite *st, const char *id, const char *name,
                            const char *lang, int64_t now)
{
	sqlite3_stmt *s = stmt_get(st, ST_PLAYER_PUT);

	if (!s)
		return -1;
	if (!id || !name) {
		set_err(st, "put player: no %s", id ? "name" : "id");
		return -1;
	}
	if (!lang)
		lang = "";
	if (bind_id(st, s, 1, id, STORE_ID_MAX, "player id") ||
	    bind_cut(st, s, 2, name, strlen(name), STORE_NAME_MAX, "player name") ||
	    bind_id(st, s, 3, lang, LANG_SIZE, "language") ||
	    sqlite3_bind_int64(s, 4, now < 0 ? 0 : now) != SQLITE_OK) {
		stmt_done(s);
		return -1;
	}
	return run(st, ST_PLAYER_PUT, "put player");
}

int store_sqlite_player_notify_put(struct store_sqlite *st, const char *id, const char *name,
                                   int on, int64_t now)
{
	sqlite3_stmt *s = stmt_get(st, ST_NOTIFY_PUT);

	if (!s)
		return -1;
	if (!id || !name) {
		set_err(st, "put notify: no %s", id ? "name" : "id");
		return -1;
	}
	if (bind_id(st, s, 1, id, STORE_ID_MAX, "player id") ||
	    bind_cut(st, s, 2, name, strlen(name), STORE_NAME_MAX, "player name") ||
	    sqlite3_bind_int(s, 3, on != 0) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 4, now < 0 ? 0 : now) != SQLITE_OK) {
		stmt_done(s);
		return -1;
	}
	return run(st, ST_NOTIFY_PUT, "put notify");
}

int store_sqlite_player_notify(struct store_sqlite *st, const char *id)
{
	sqlite3_stmt *s = id ? stmt_get(st, ST_NOTIFY_GET) : NULL;
	int on = 1;

	if (!s)
		return 1;
	if (bind_id(st, s, 1, id, STORE_ID_MAX, "player id")) {
		stmt_done(s);
		return 1;
	}
	if (sqlite3_step(s) == SQLITE_ROW)
		on = sqlite3_column_int(s, 0) != 0;
	stmt_done(s);
	return on;
}

int store_sqlite_player_get(struct store_sqlite *st, const char *id, char name[STORE_NAME_MAX],
                            char lang[8])
{
	sqlite3_stmt *s = stmt_get(st, ST_PLAYER_GET);
	int rc;

	if (!s)
		return -1;
	if (!id) {
		set_err(st, "get player: no id");
		return -1;
	}
	if (bind_id(st, s, 1, id, STORE_ID_MAX, "player id")) {
		stmt_done(s);
		return -1;
	}
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		if (name)
			col_text(s, 0, name, STORE_NAME_MAX);
		if (lang && col_id(st, s, 1, lang, LANG_SIZE, "language"))
			rc = SQLITE_ERROR;
	} else if (rc == SQLITE_DONE) {
		set_err(st, "player %s: unknown", id);
	} else {
		set_db_err(st, "get player");
	}
	stmt_done(s);
	return rc == SQLITE_ROW ? 0 : -1;
}

int64_t store_sqlite_games_made(struct store_sqlite *st)
{
	sqlite3_stmt *s = stmt_get(st, ST_GAMES_MADE);
	int64_t made = -1;

	if (!s)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		made = sqlite3_column_int64(s, 0);
	else
		set_db_err(st, "games made");
	stmt_done(s);
	return made;
}

void store_sqlite_fail_after(struct store_sqlite *st, int writes)
{
	st->fail_after = writes < 0 ? -1 : writes;
}

int store_sqlite_setting_get(struct store_sqlite *st, const char *key, char *value, size_t cap)
{
	sqlite3_stmt *s = stmt_get(st, ST_SETTING_GET);
	int rc;

	if (!s)
		return -1;
	if (bind_id(st, s, 1, key, 64, "setting key")) {
		stmt_done(s);
		return -1;
	}
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		col_text(s, 0, value, cap);
	else if (rc == SQLITE_DONE)
		set_err(st, "setting %s: unknown", key);
	else
		set_db_err(st, "get setting");
	stmt_done(s);
	return rc == SQLITE_ROW ? 0 : -1;
}

int store_sqlite_setting_put(struct store_sqlite *st, const char *key, const char *value)
{
	sqlite3_stmt *s = stmt_get(st, ST_SETTING_PUT);

	if (!s)
		return -1;
	if (bind_id(st, s, 1, key, 64, "setting key") ||
	    bind_id(st, s, 2, value, 1024, "setting value")) {
		stmt_done(s);
		return -1;
	}
	return run(st, ST_SETTING_PUT, "put setting");
}

int store_sqlite_checkpoint(struct store_sqlite *st)
{
	sqlite3_stmt *s = stmt_get(st, ST_CHECKPOINT);
	int rc;

	if (!s)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		;
	stmt_done(s);
	if (rc != SQLITE_DONE) {
		set_db_err(st, "checkpoint");
		return -1;
	}
	return 0;
}

/* Runs PRAGMA integrity_check and PRAGMA user_version on db. Returns 0 when
 * intact, with the version in *version; -1 with the reason in err. */
static int check_copy(sqlite3 *db, int *version, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int rc = -1;

	if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_step(s) != SQLITE_ROW) {
		snprintf(err, errlen, "integrity check failed: %s", sqlite3_errmsg(db));
		goto out;
	}
	if (strcmp((const char *)sqlite3_column_text(s, 0), "ok") != 0) {
		snprintf(err, errlen, "integrity check: %.200s", sqlite3_column_text(s, 0));
		goto out;
	}
	sqlite3_finalize(s);
	s = NULL;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_step(s) != SQLITE_ROW) {
		snprintf(err, errlen, "cannot read the schema version: %s", sqlite3_errmsg(db));
		goto out;
	}
	*version = sqlite3_column_int(s, 0);
	rc = 0;
out:
	sqlite3_finalize(s);
	return rc;
}

/* Copies all of `from` into `to` with the online backup API, retrying while
 * the source is busy. 0 or -1 with err. */
static int copy_db(sqlite3 *to, sqlite3 *from, char *err, size_t errlen)
{
	sqlite3_backup *b = sqlite3_backup_init(to, "main", from, "main");
	int rc;

	if (!b) {
		snprintf(err, errlen, "backup: %s", sqlite3_errmsg(to));
		return -1;
	}
	do {
		rc = sqlite3_backup_step(b, 256);
		if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
			sqlite3_sleep(20);
	} while (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED);
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "backup: %s", sqlite3_errstr(rc));
		return -1;
	}
	return 0;
}

int store_sqlite_backup_file(const char *src, const char *dest, char *err, size_t errlen)
{
	sqlite3 *from = NULL, *to = NULL;
	int version, rc = -1;

	if (create_private(dest, 1)) {
		if (errno == EEXIST)
			snprintf(err, errlen, "%s already exists", dest);
		else
			snprintf(err, errlen, "%s: %s", dest, strerror(errno));
		return -1;
	}
	if (sqlite3_open_v2(src, &from, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", src, from ? sqlite3_errmsg(from) : "out of memory");
		goto out;
	}
	sqlite3_busy_timeout(from, 5000);
	if (sqlite3_open_v2(dest, &to, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", dest, to ? sqlite3_errmsg(to) : "out of memory");
		goto out;
	}
	if (copy_db(to, from, err, errlen) || check_copy(to, &version, err, errlen))
		goto out;
	rc = 0;
out:
	sqlite3_close(from);
	sqlite3_close(to);
	if (rc)
		remove(dest);
	return rc;
}

int store_sqlite_restore_file(const char *src, const char *dest, char *err, size_t errlen)
{
	sqlite3 *from = NULL, *to = NULL;
	int version, rc = -1;

	if (sqlite3_open_v2(src, &from, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", src, from ? sqlite3_errmsg(from) : "out of memory");
		goto out;
	}
	if (check_copy(from, &version, err, errlen))
		goto out;
	if (version < 1 || version > store_schema_latest()) {
		snprintf(err, errlen,
		         "%s: schema version %d is not a database of this rlyeh (1-%d)", src,
		         version, store_schema_latest());
		goto out;
	}
	if (create_private(dest, 0)) {
		snprintf(err, errlen, "%s: %s", dest, strerror(errno));
		goto out;
	}
	if (sqlite3_open_v2(dest, &to, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", dest, to ? sqlite3_errmsg(to) : "out of memory");
		goto out;
	}
	/* Nobody else may be using it: an exclusive lock or nothing. */
	if (sqlite3_exec(to, "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT", NULL, NULL,
	                 NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s is in use: stop the daemon first", dest);
		goto out;
	}
	if (copy_db(to, from, err, errlen))
		goto out;
	rc = 0;
out:
	sqlite3_close(from);
	sqlite3_close(to);
	return rc;
}

/* ---- shards: one process owns them all ---- */

/* The shard's epoch into *epoch (0 when it has no row). */
static int shard_epoch(struct store_sqlite *st, int count, int shard, int64_t *epoch)
{
	sqlite3_stmt *s = stmt_get(st, ST_SHARD_EPOCH);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_int(s, 1, count);
	sqlite3_bind_int(s, 2, shard);
	rc = sqlite3_step(s);
	*epoch = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		set_db_err(st, "read shard epoch");
	stmt_done(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

int store_sqlite_shard_claim(struct store_sqlite *st, int count, int shard, const char *owner,
                             int64_t now, int64_t *epoch)
{
	sqlite3_stmt *s = stmt_get(st, ST_SHARD_CLAIM);

	if (!s)
		return -1;
	sqlite3_bind_int(s, 1, count);
	sqlite3_bind_int(s, 2, shard);
	if (bind_id(st, s, 3, owner, STORE_ID_MAX, "shard owner")) {
		stmt_done(s);
		return -1;
	}
	sqlite3_bind_int64(s, 4, now < 0 ? 0 : now);
	if (run(st, ST_SHARD_CLAIM, "claim shard"))
		return -1;
	return shard_epoch(st, count, shard, epoch);
}

int store_sqlite_shard_fence(struct store_sqlite *st, int count, int shard, int64_t epoch)
{
	int64_t now;

	if (epoch == 0)
		return 1;
	if (shard_epoch(st, count, shard, &now))
		return -1;
	return now == epoch;
}

int store_sqlite_shard_session_put(struct store_sqlite *st, int count, int shard, int64_t epoch,
                                   const struct store_shard_session *ss)
{
	sqlite3_stmt *s = stmt_get(st, ST_SHARD_SESSION_PUT);

	if (!s)
		return -1;
	sqlite3_bind_int(s, 1, count);
	sqlite3_bind_int(s, 2, shard);
	if (bind_id(st, s, 3, ss->session_id, STORE_SESSION_MAX, "session id") ||
	    bind_id(st, s, 5, ss->resume_url, STORE_URL_MAX, "resume url")) {
		stmt_done(s);
		return -1;
	}
	sqlite3_bind_int64(s, 4, ss->seq < 0 ? 0 : ss->seq);
	sqlite3_bind_int64(s, 6, ss->saved_at < 0 ? 0 : ss->saved_at);
	sqlite3_bind_int64(s, 7, epoch);
	if (run(st, ST_SHARD_SESSION_PUT, "save shard session"))
		return -1;
	return sqlite3_changes(st->db) == 0;
}

int store_sqlite_shard_session_get(struct store_sqlite *st, int count, int shard,
                                   struct store_shard_session *out)
{
	sqlite3_stmt *s = stmt_get(st, ST_SHARD_SESSION_GET);
	int rc, found = 0;

	memset(out, 0, sizeof(*out));
	if (!s)
		return -1;
	sqlite3_bind_int(s, 1, count);
	sqlite3_bind_int(s, 2, shard);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		col_text(s, 0, out->session_id, sizeof(out->session_id));
		out->seq = sqlite3_column_int64(s, 1);
		col_text(s, 2, out->resume_url, sizeof(out->resume_url));
		out->saved_at = sqlite3_column_int64(s, 3);
		found = out->session_id[0] != '\0';
	} else if (rc != SQLITE_DONE) {
		set_db_err(st, "read shard session");
		found = -1;
	}
	stmt_done(s);
	return found;
}

int store_sqlite_interaction_mark(struct store_sqlite *st, const char *id, int64_t now)
{
	sqlite3_stmt *s = stmt_get(st, ST_INTERACTION_MARK);

	if (!s)
		return -1;
	if (bind_id(st, s, 1, id, STORE_ID_MAX, "interaction id")) {
		stmt_done(s);
		return -1;
	}
	sqlite3_bind_int64(s, 2, now < 0 ? 0 : now);
	if (run(st, ST_INTERACTION_MARK, "record interaction"))
		return -1;
	return sqlite3_changes(st->db) == 1;
}

int store_sqlite_interactions_forget(struct store_sqlite *st, int64_t before)
{
	sqlite3_stmt *s = stmt_get(st, ST_INTERACTIONS_FORGET);

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, before);
	return run(st, ST_INTERACTIONS_FORGET, "forget interactions");
}

int store_sqlite_channel_finished(struct store_sqlite *st, const char *game, const char *server,
                                  const char *channel, int64_t *id)
{
	sqlite3_stmt *s = stmt_get(st, ST_CHANNEL_FINISHED);
	int rc;

	*id = 0;
	if (!s)
		return -1;
	if (bind_id(st, s, 1, game, STORE_KIND_MAX, "game") ||
	    bind_id(st, s, 2, server, STORE_ID_MAX, "server id") ||
	    bind_id(st, s, 3, channel, STORE_ID_MAX, "channel id")) {
		stmt_done(s);
		return -1;
	}
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(s, 0);
	else if (rc != SQLITE_DONE)
		set_db_err(st, "find the channel's finished game");
	stmt_done(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}
