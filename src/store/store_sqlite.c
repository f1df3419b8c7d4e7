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
#include "walbuf.h"

#include "store_int.h"
#include "store_sqlite_int.h"

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

void store_sqlite_set_err(struct store_sqlite *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->err, sizeof(st->err), fmt, ap);
	va_end(ap);
}

/* Records "<what>: <SQLite's message>", with a plainer text for the
 * constraint failures callers are expected to meet. */
void store_sqlite_set_db_err(struct store_sqlite *st, const char *what)
{
	int code = sqlite3_extended_errcode(st->db);

	/* games_open_channel is the schema's only UNIQUE index. */
	if (code == SQLITE_CONSTRAINT_UNIQUE)
		store_sqlite_set_err(
		    st, "%s: the channel already has a game in the lobby or playing", what);
	else if (code == SQLITE_CONSTRAINT_FOREIGNKEY)
		store_sqlite_set_err(st, "%s: the game it refers to does not exist", what);
	else
		store_sqlite_set_err(st, "%s: %s", what, sqlite3_errmsg(st->db));
}

uint64_t store_sqlite_u64_from_db(int64_t v)
{
	return (uint64_t)v;
}

/* The int64 with the same two's complement bits as v, without relying on
 * implementation-defined conversions. */
int64_t store_sqlite_u64_to_db(uint64_t v)
{
	if (v <= (uint64_t)INT64_MAX)
		return (int64_t)v;
	return -(int64_t)(UINT64_MAX - v) - 1;
}

/* Copies n bytes of src into dst of `size` bytes, cut at a UTF-8 boundary
 * when too long; dst is always terminated. */
static void copy_text(char *dst, size_t size, const char *src, size_t n)
{
	n = store_utf8_cut(src, n, size - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The statement `id`, prepared on first use. NULL with the error set when
 * it cannot be prepared. */
sqlite3_stmt *store_sqlite_stmt_get(struct store_sqlite *st, enum stmt_id id)
{
	if (!st->stmt[id] && sqlite3_prepare_v3(st->db, stmt_defs[id].sql, -1,
	                                        SQLITE_PREPARE_PERSISTENT, &st->stmt[id], NULL)) {
		store_sqlite_set_db_err(st, "prepare");
		st->stmt[id] = NULL;
	}
	return st->stmt[id];
}

void store_sqlite_stmt_done(sqlite3_stmt *s)
{
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
}

int store_sqlite_step(struct store_sqlite *st, sqlite3_stmt *s, int write, const char *what)
{
	int rc;

	if (write && st->fail_after == 0) {
		store_sqlite_set_err(st, "%s: disk full (injected)", what);
		store_sqlite_stmt_done(s);
		return -1;
	}
	rc = sqlite3_step(s);
	if (rc != SQLITE_DONE) {
		store_sqlite_set_db_err(st, what);
		store_sqlite_stmt_done(s);
		return -1;
	}
	store_sqlite_stmt_done(s);
	if (write && st->fail_after > 0)
		st->fail_after--;
	return 0;
}

int store_sqlite_run(struct store_sqlite *st, enum stmt_id id, const char *what)
{
	return store_sqlite_step(st, st->stmt[id], stmt_defs[id].write, what);
}

/* Prepares and runs a statement without parameters. */
int store_sqlite_run_plain(struct store_sqlite *st, enum stmt_id id, const char *what)
{
	if (!store_sqlite_stmt_get(st, id))
		return -1;
	return store_sqlite_run(st, id, what);
}

/* Binds text of at most max - 1 bytes found in a buffer of at most max
 * bytes; longer or unterminated text is refused rather than cut. */
int store_sqlite_bind_id(struct store_sqlite *st, sqlite3_stmt *s, int col, const char *v,
                         size_t max, const char *what)
{
	size_t n = strnlen(v, max);

	if (n >= max) {
		store_sqlite_set_err(st, "%s is longer than %zu bytes", what, max - 1);
		return -1;
	}
	if (sqlite3_bind_text(s, col, v, (int)n, SQLITE_STATIC)) {
		store_sqlite_set_db_err(st, what);
		return -1;
	}
	return 0;
}

/* Binds display text from a buffer of `size` bytes, cut to size - 1 bytes
 * at a UTF-8 boundary when it is longer or unterminated. */
int store_sqlite_bind_cut(struct store_sqlite *st, sqlite3_stmt *s, int col, const char *v,
                          size_t len, size_t size, const char *what)
{
	size_t n = store_utf8_cut(v, len, size - 1);

	if (sqlite3_bind_text(s, col, v, (int)n, SQLITE_STATIC)) {
		store_sqlite_set_db_err(st, what);
		return -1;
	}
	return 0;
}

/* Reads an id column into dst; refused (not cut) when it does not fit. */
int store_sqlite_col_id(struct store_sqlite *st, sqlite3_stmt *s, int col, char *dst, size_t size,
                        const char *what)
{
	const char *v = (const char *)sqlite3_column_text(s, col);
	size_t n = (size_t)sqlite3_column_bytes(s, col);

	if (n >= size) {
		store_sqlite_set_err(st, "stored %s is longer than %zu bytes", what, size - 1);
		return -1;
	}
	memcpy(dst, v ? v : "", n);
	dst[n] = '\0';
	return 0;
}

/* Reads a text column into dst, cut at a UTF-8 boundary to fit. */
void store_sqlite_col_text(sqlite3_stmt *s, int col, char *dst, size_t size)
{
	const char *v = (const char *)sqlite3_column_text(s, col);
	size_t n = (size_t)sqlite3_column_bytes(s, col);

	copy_text(dst, size, v ? v : "", n);
}

/* Reads PRAGMA user_version into *version. */
static int read_version(struct store_sqlite *st, int *version)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL)) {
		store_sqlite_set_db_err(st, "read schema version");
		return -1;
	}
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*version = sqlite3_column_int(s, 0);
	else
		store_sqlite_set_db_err(st, "read schema version");
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* Runs a pragma that answers one row and copies its text into out. */
static int pragma_text(struct store_sqlite *st, const char *sql, char *out, size_t size)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL)) {
		store_sqlite_set_db_err(st, sql);
		return -1;
	}
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		store_sqlite_col_text(s, 0, out, size);
	else if (rc == SQLITE_DONE)
		store_sqlite_set_err(st, "%s: no answer", sql);
	else
		store_sqlite_set_db_err(st, sql);
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
		store_sqlite_set_db_err(st, "begin migration");
		return -1;
	}
	if (read_version(st, &current))
		goto fail;
	if (current >= version)
		goto commit;
	if (sqlite3_exec(st->db, store_migrations[version - 1], NULL, NULL, NULL)) {
		store_sqlite_set_err(st, "migration %s: %s", store_migration_names[version - 1],
		                     sqlite3_errmsg(st->db));
		goto fail;
	}
	/* PRAGMA takes no parameters; the version is our own integer. */
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version);
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL)) {
		store_sqlite_set_db_err(st, "set schema version");
		goto fail;
	}
commit:
	if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL)) {
		store_sqlite_set_db_err(st, "commit migration");
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
		store_sqlite_set_err(
		    st,
		    "database schema version %d is newer than this program's latest version "
		    "%d; use a newer rlyeh",
		    current, latest);
		return -1;
	}
	if (pragma_text(st, "PRAGMA journal_mode = WAL", mode, sizeof(mode)))
		return -1;
	if (strcmp(mode, "wal") != 0 && strcmp(mode, "memory") != 0) {
		store_sqlite_set_err(st, "cannot use write-ahead logging (journal_mode is %s)",
		                     mode);
		return -1;
	}
	if (sqlite3_exec(st->db,
	                 "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; "
	                 "PRAGMA cache_size = " CACHE_SIZE,
	                 NULL, NULL, NULL)) {
		store_sqlite_set_db_err(st, "configure");
		return -1;
	}
	if (pragma_text(st, "PRAGMA foreign_keys", mode, sizeof(mode)))
		return -1;
	if (strcmp(mode, "1") != 0) {
		store_sqlite_set_err(st, "this SQLite does not enforce foreign keys");
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
		store_sqlite_set_err(st, "durability %d is neither full nor normal", durability);
		return -1;
	}
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL)) {
		store_sqlite_set_db_err(st, "durability");
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
		store_sqlite_set_err(st, "%s: %s", path, strerror(errno));
		goto fail;
	}
	undo = getenv("RLYEH_TEST_POWERLOSS_UNDO");
	if (undo && *undo) {
		const char *us = getenv("RLYEH_TEST_POWERLOSS_SYNC_US");
		char *end = NULL;
		long sync_us = us && *us ? strtol(us, &end, 10) : 0;
		if (us && *us && (*end || sync_us < 0 || sync_us > 1000000)) {
			store_sqlite_set_err(st,
			                     "RLYEH_TEST_POWERLOSS_SYNC_US: expected 0 to 1000000");
			goto fail;
		}
		if (powervfs_install(undo, sync_us, st->err, sizeof(st->err)))
			goto fail;
	}
	if (walbuf_register() != SQLITE_OK) {
		store_sqlite_set_err(st, "%s: cannot register the WAL writer", path);
		goto fail;
	}
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
	                    WALBUF_NAME)) {
		if (st->db)
			store_sqlite_set_err(st, "%s: %s", path, sqlite3_errmsg(st->db));
		else
			store_sqlite_set_err(st, "%s: out of memory", path);
		goto fail;
	}
	if (!(st->path = strdup(path))) {
		store_sqlite_set_err(st, "out of memory");
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
	for (int k = 0; k < BATCH_KINDS; k++)
		for (int n = 0; n <= STORE_RATING_WRITES_MAX; n++)
			sqlite3_finalize(st->batch[k][n]);
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
		store_sqlite_set_err(st, "checkpointer: out of memory");
		return -1;
	}
	if (sqlite3_open_v2(st->path, &c->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		store_sqlite_set_err(st, "checkpointer: %s",
		                     c->db ? sqlite3_errmsg(c->db) : "out of memory");
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
		store_sqlite_set_err(st, "checkpointer: %s", sqlite3_errmsg(c->db));
		sqlite3_close(c->db);
		free(c);
		return -1;
	}
	if (sqlite3_exec(st->db, "PRAGMA journal_size_limit = " WAL_SIZE_LIMIT, NULL, NULL, NULL) !=
	    SQLITE_OK) {
		store_sqlite_set_db_err(st, "checkpointer");
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
		store_sqlite_set_err(st, "checkpointer: cannot start a thread");
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
		store_sqlite_set_err(st, "begin: a transaction is already open");
		return -1;
	}
	return store_sqlite_run_plain(st, ST_BEGIN, "begin");
}

int store_sqlite_commit(struct store_sqlite *st)
{
	return store_sqlite_run_plain(st, ST_COMMIT, "commit");
}

void store_sqlite_rollback(struct store_sqlite *st)
{
	if (!sqlite3_get_autocommit(st->db))
		store_sqlite_run_plain(st, ST_ROLLBACK, "rollback");
}

int store_sqlite_in_transaction(struct store_sqlite *st)
{
	return !sqlite3_get_autocommit(st->db);
}

int store_sqlite_mark(struct store_sqlite *st)
{
	return store_sqlite_run_plain(st, ST_MARK, "mark");
}

int store_sqlite_mark_keep(struct store_sqlite *st)
{
	return store_sqlite_run_plain(st, ST_MARK_RELEASE, "mark");
}

void store_sqlite_mark_undo(struct store_sqlite *st)
{
	if (sqlite3_get_autocommit(st->db) || !store_sqlite_stmt_get(st, ST_MARK_UNDO) ||
	    !store_sqlite_stmt_get(st, ST_MARK_RELEASE))
		return;
	sqlite3_step(st->stmt[ST_MARK_UNDO]);
	store_sqlite_stmt_done(st->stmt[ST_MARK_UNDO]);
	sqlite3_step(st->stmt[ST_MARK_RELEASE]);
	store_sqlite_stmt_done(st->stmt[ST_MARK_RELEASE]);
}

void store_sqlite_fail_after(struct store_sqlite *st, int writes)
{
	st->fail_after = writes < 0 ? -1 : writes;
}

void store_sqlite_release_memory(struct store_sqlite *st)
{
	sqlite3_db_release_memory(st->db);
}

int store_sqlite_checkpoint(struct store_sqlite *st)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_CHECKPOINT);
	int rc;

	if (!s)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		;
	store_sqlite_stmt_done(s);
	if (rc != SQLITE_DONE) {
		store_sqlite_set_db_err(st, "checkpoint");
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
