/* store_pg: the store (include/rlyeh/store.h) in PostgreSQL, the backend
 * for a database given as a postgresql:// or postgres:// URI.
 *
 * One connection per struct store_pg, used by one thread. Every statement
 * that takes a value is prepared (PQprepare) on first use and run with its
 * parameters apart from the SQL (PQexecPrepared); values travel as text.
 * The schema is migrations/pg/NNNN_name.sql, the twin of migrations/, its
 * version kept in the table schema_version.
 *
 * SQLite undoes only the failed statement inside a transaction; PostgreSQL
 * would spoil the whole transaction. So that a refused write leaves the
 * caller's transaction as SQLite does, a write inside a transaction runs
 * under a savepoint of its own.
 *
 * Unsigned 64-bit values are stored as the BIGINT with the same two's
 * complement bits, as in SQLite. */
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
/* rating_counts: ordinals in buckets of 1/4, games from 16 on counted as 16. */
#define BUCKETS_PER_POINT 4.0
#define GAMES_CAP         16

#define RATING_COLS  "player, name, name_key, mu, sigma, ordinal, games, wins, cthulhu"
#define RATING_WHERE "game = $1 AND scope = $2 AND span = $3 AND starts = $4"
#define GAME_COLS                                                                                  \
	"server, channel, game, per_player, lang, owner, state, seed, rng0, rng1, rng2, rng3, "    \
	"first, moves, winner, created_at, started_at, finished_at, deadline, series_of, note, "   \
	"revision"

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

/* `write` marks the statements counted and failed by store_fail_after. */
static const struct {
	const char *sql;
	int write;
} stmt_defs[ST_COUNT] = {
	[ST_GAME_INSERT] = { "INSERT INTO games (" GAME_COLS
	                     ") VALUES ($1, $2, $3, $4, $5, $6, $7, "
	                     "$8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, "
	                     "nullif($20::bigint, 0), $21, $22) RETURNING id",
	                     1 },
	[ST_GAME_UPDATE] = { "UPDATE games SET server = $1, channel = $2, game = $3, "
	                     "per_player = $4, lang = $5, owner = $6, state = $7, seed = $8, "
	                     "rng0 = $9, rng1 = $10, rng2 = $11, rng3 = $12, first = $13, "
	                     "moves = $14, winner = $15, created_at = $16, started_at = $17, "
	                     "finished_at = $18, deadline = $19, series_of = nullif($20::bigint, "
	                     "0), "
	                     "note = $21, revision = $22 WHERE id = $23",
	                     1 },
	[ST_GAME_PROGRESS] = { "UPDATE games SET rng0 = $1, rng1 = $2, rng2 = $3, rng3 = $4, "
	                       "moves = $5, deadline = $6, note = $7 WHERE id = $8",
	                       1 },
	[ST_GAME_GET] = { "SELECT id, server, channel, game, per_player, lang, owner, state, seed, "
	                  "rng0, rng1, rng2, rng3, first, moves, winner, created_at, started_at, "
	                  "finished_at, deadline, coalesce(series_of, 0), note, revision "
	                  "FROM games WHERE id = $1",
	                  0 },
	[ST_GAMES_OPEN] = { "SELECT id FROM games WHERE state IN (0, 1) ORDER BY id", 0 },
	[ST_RESULTS_ALL] = { "SELECT id FROM games WHERE state = 2 AND game = $1 "
	                     "AND finished_at >= $2 AND finished_at < $3 "
	                     "ORDER BY rated, finished_at, id",
	                     0 },
	[ST_RESULTS_SERVER] = { "SELECT id FROM games WHERE state = 2 AND game = $1 AND server = "
	                        "$4 "
	                        "AND finished_at >= $2 AND finished_at < $3 "
	                        "ORDER BY rated, finished_at, id",
	                        0 },
	[ST_MEMBERS_DELETE] = { "DELETE FROM members WHERE game_id = $1", 1 },
	[ST_MEMBER_INSERT] = { "INSERT INTO members (game_id, idx, player, name, policy, strikes, "
	                       "autopilot, place, cthulhu, prefs) "
	                       "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
	                       1 },
	[ST_MEMBERS_GET] = { "SELECT idx, player, name, policy, strikes, autopilot, place, "
	                     "cthulhu, prefs FROM members WHERE game_id = $1 ORDER BY idx",
	                     0 },
	[ST_EVENT_INSERT] = { "INSERT INTO events (game_id, seq, at, kind, actor, value, detail) "
	                      "VALUES ($1, $2, $3, $4, $5, $6, $7)",
	                      1 },
	[ST_EVENTS_GET] = { "SELECT seq, at, kind, actor, value, detail FROM events "
	                    "WHERE game_id = $1 ORDER BY seq",
	                    0 },
	[ST_PLAYER_PUT] = { "INSERT INTO players (id, name, lang, created_at, updated_at) "
	                    "VALUES ($1, $2, $3, $4, $4) "
	                    "ON CONFLICT (id) DO UPDATE SET name = excluded.name, "
	                    "lang = CASE WHEN excluded.lang = '' THEN players.lang "
	                    "ELSE excluded.lang END, updated_at = excluded.updated_at",
	                    1 },
	[ST_PLAYER_GET] = { "SELECT name, lang FROM players WHERE id = $1", 0 },
	[ST_NOTIFY_PUT] = { "INSERT INTO players (id, name, notify, created_at, updated_at) "
	                    "VALUES ($1, $2, $3, $4, $4) "
	                    "ON CONFLICT (id) DO UPDATE SET name = excluded.name, "
	                    "notify = excluded.notify, updated_at = excluded.updated_at",
	                    1 },
	[ST_NOTIFY_GET] = { "SELECT notify FROM players WHERE id = $1", 0 },
	/* game_ids keeps the highest id ever given (migrations/pg/0001). */
	[ST_GAMES_MADE] = { "SELECT last FROM game_ids", 0 },
	[ST_SETTING_GET] = { "SELECT value FROM settings WHERE key = $1", 0 },
	[ST_SETTING_PUT] = { "INSERT INTO settings (key, value) VALUES ($1, $2) "
	                     "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
	                     1 },
	[ST_RATINGS_PENDING] = { "SELECT value FROM settings WHERE key = 'ratings'", 0 },
	[ST_RATINGS_BUILT] = { "UPDATE settings SET value = 'built' WHERE key = 'ratings'", 1 },
	[ST_RATINGS_CLEAR] = { "DELETE FROM ratings", 1 },
	[ST_RATING_COUNTS_CLEAR] = { "DELETE FROM rating_counts", 1 },
	/* The rated games keep their places; the others follow in time order. */
	[ST_GAMES_RATE_ALL] = { "UPDATE games SET rated = o.n FROM "
	                        "(SELECT id, (SELECT coalesce(max(rated), 0) FROM games "
	                        "WHERE rated > 0) + row_number() OVER (ORDER BY finished_at, id) "
	                        "AS n FROM games WHERE state = 2 AND rated = 0) AS o "
	                        "WHERE games.id = o.id",
	                        1 },
	[ST_GAME_RATE] = { "UPDATE games SET rated = (SELECT coalesce(max(rated), 0) + 1 "
	                   "FROM games WHERE rated > 0) WHERE id = $1 AND state = 2 AND rated = 0",
	                   1 },
	[ST_RESULTS_RATED] = { "SELECT g.id, g.finished_at, g.server, g.game, m.player, m.name, "
	                       "m.place, m.cthulhu FROM games g JOIN members m ON m.game_id = g.id "
	                       "WHERE g.state = 2 AND g.rated > 0 AND m.player <> '' "
	                       "ORDER BY g.rated, m.idx",
	                       0 },
	[ST_RATING_GET] = { "SELECT " RATING_COLS " FROM ratings WHERE " RATING_WHERE
	                    " AND player = $5",
	                    0 },
	[ST_RATING_PUT] = { "INSERT INTO ratings (game, scope, span, starts, " RATING_COLS ") "
	                    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) "
	                    "ON CONFLICT (game, scope, span, starts, player) DO UPDATE SET "
	                    "name = excluded.name, name_key = excluded.name_key, "
	                    "mu = excluded.mu, sigma = excluded.sigma, "
	                    "ordinal = excluded.ordinal, games = excluded.games, "
	                    "wins = excluded.wins, cthulhu = excluded.cthulhu",
	                    1 },
	[ST_RATING_UPDATE] = { "UPDATE ratings SET mu = $6, sigma = $7, ordinal = $8, games = $9, "
	                       "wins = $10, cthulhu = $11 WHERE " RATING_WHERE " AND player = $5",
	                       1 },
	[ST_RATINGS_TOP] = { "SELECT " RATING_COLS " FROM ratings WHERE " RATING_WHERE
	                     " AND games >= $5 ORDER BY ordinal DESC, games DESC, player "
	                     "LIMIT $6",
	                     0 },
	[ST_RATINGS_NAMED] = { "SELECT " RATING_COLS " FROM ratings WHERE " RATING_WHERE
	                       " AND player IN (SELECT $5::text UNION SELECT player FROM ratings "
	                       "WHERE " RATING_WHERE " AND name_key IN ($6, $7)) "
	                       "ORDER BY CASE WHEN games >= $8 THEN 0 ELSE 1 END, "
	                       "CASE WHEN games >= $8 THEN ordinal ELSE 0 END DESC, "
	                       "games DESC, player",
	                       0 },
	[ST_RATING_RANK] = { "SELECT (SELECT count(*) FROM ratings WHERE " RATING_WHERE
	                     " AND ordinal > $6 AND games >= $5) + "
	                     "(SELECT count(*) FROM ratings WHERE " RATING_WHERE
	                     " AND ordinal = $6 AND games >= $5 "
	                     "AND (games > $7 OR (games = $7 AND player < $8)))",
	                     0 },
	/* The buckets above r's, then r's own above r: ordinal in ($6, $10). */
	[ST_RATING_RANK_BUCKETS] = { "SELECT (SELECT coalesce(sum(n), 0) FROM rating_counts "
	                             "WHERE " RATING_WHERE " AND bucket > $9 AND games >= $5) + "
	                             "(SELECT count(*) FROM ratings WHERE " RATING_WHERE
	                             " AND ordinal > $6 AND ordinal < $10 AND games >= $5) + "
	                             "(SELECT count(*) FROM ratings WHERE " RATING_WHERE
	                             " AND ordinal = $6 AND games >= $5 "
	                             "AND (games > $7 OR (games = $7 AND player < $8)))",
	                             0 },
	[ST_RATINGS_UNRANKED] = { "SELECT count(*) FROM ratings WHERE " RATING_WHERE
	                          " AND games < $5 AND games < 16",
	                          0 },
	[ST_RATINGS_UNRANKED_ALL] = { "SELECT count(*) FROM ratings WHERE " RATING_WHERE
	                              " AND games < $5",
	                              0 },
	[ST_RATING_COUNT] = { "INSERT INTO rating_counts (game, scope, span, starts, bucket, "
	                      "games, "
	                      "n) VALUES ($1, $2, $3, $4, $5, $6, $7) "
	                      "ON CONFLICT (game, scope, span, starts, bucket, games) "
	                      "DO UPDATE SET n = rating_counts.n + excluded.n",
	                      1 },
	[ST_RATING_UNCOUNT] = { "UPDATE rating_counts SET n = n - 1 WHERE " RATING_WHERE
	                        " AND bucket = $5 AND games = $6",
	                        1 },
	[ST_VERSION_GET] = { "SELECT version FROM schema_version", 0 },
	[ST_VERSION_SET] = { "UPDATE schema_version SET version = $1", 0 },
	/* Anything but the migrations' own setting, or a game id ever given. */
	[ST_COPY_USED] = { "SELECT (SELECT count(*) FROM games) + (SELECT count(*) FROM members) + "
	                   "(SELECT count(*) FROM events) + (SELECT count(*) FROM players) + "
	                   "(SELECT count(*) FROM settings WHERE key <> 'ratings') + "
	                   "(SELECT count(*) FROM ratings) + (SELECT count(*) FROM rating_counts) "
	                   "+ "
	                   "(SELECT last FROM game_ids)",
	                   0 },
	[ST_COPY_SETTINGS_CLEAR] = { "DELETE FROM settings", 0 },
	[ST_COPY_GAMES_MADE] = { "UPDATE game_ids SET last = greatest(last, $1)", 0 },
	/* Advisory locks of two int4 keys: pg_locks shows them with objsubid 2. */
	[ST_SHARD_LOCK] = { "SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_locks WHERE locktype = "
	                    "'advisory' AND classid = $1::bigint::oid AND objid = $2::bigint::oid "
	                    "AND objsubid = 2 AND pid = pg_backend_pid() AND granted) THEN 1 "
	                    "WHEN pg_try_advisory_lock($1::int, $2::int) THEN 1 ELSE 0 END",
	                    0 },
	[ST_SHARD_LOCKED] = { "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
	                      "AND classid = $1::bigint::oid AND objid = $2::bigint::oid "
	                      "AND objsubid = 2 AND pid = pg_backend_pid() AND granted",
	                      0 },
	/* Shard locks of another count (the first key's low 16 bits) held by
	 * other connections: 0x726c0000 is SHARD_KEY, 0xffff0000 its mask. */
	[ST_SHARD_OTHERS] = { "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
	                      "AND objsubid = 2 AND granted AND pid <> pg_backend_pid() "
	                      "AND (classid::bigint & 4294901760) = 1919680512 "
	                      "AND classid::bigint <> $1",
	                      0 },
	[ST_SHARD_UNLOCK] = { "SELECT pg_advisory_unlock($1::int, $2::int)", 0 },
	[ST_SHARD_CLAIM] = { "INSERT INTO shards (count, shard, epoch, owner, owned_at) "
	                     "VALUES ($1, $2, 1, $3, $4) ON CONFLICT (count, shard) DO UPDATE SET "
	                     "epoch = shards.epoch + 1, owner = excluded.owner, "
	                     "owned_at = excluded.owned_at RETURNING epoch",
	                     1 },
	[ST_SHARD_FENCE] = { "SELECT epoch FROM shards WHERE count = $1 AND shard = $2 FOR SHARE",
	                     0 },
	[ST_SHARD_SESSION_PUT] = { "INSERT INTO shards (count, shard, session_id, seq, resume_url, "
	                           "saved_at) VALUES ($1, $2, $3, $4, $5, $6) "
	                           "ON CONFLICT (count, shard) DO UPDATE SET "
	                           "session_id = excluded.session_id, seq = excluded.seq, "
	                           "resume_url = excluded.resume_url, saved_at = excluded.saved_at "
	                           "WHERE $7::bigint = 0 OR shards.epoch = $7::bigint",
	                           1 },
	[ST_SHARD_SESSION_GET] = { "SELECT session_id, seq, resume_url, saved_at FROM shards "
	                           "WHERE count = $1 AND shard = $2",
	                           0 },
	[ST_INTERACTION_MARK] = { "INSERT INTO interactions (id, at) VALUES ($1, $2) "
	                          "ON CONFLICT (id) DO NOTHING",
	                          1 },
	[ST_INTERACTIONS_FORGET] = { "DELETE FROM interactions WHERE at < $1", 1 },
	/* In a transaction: the next game's id stays ours until it ends. */
	[ST_GAMES_MADE_LOCK] = { "SELECT last FROM game_ids FOR UPDATE", 0 },
	/* Game ends are rated one transaction at a time ("rl" "ra"); a
	 * transaction takes it before the game_ids row (ids_lock). */
	[ST_RATE_LOCK] = { "SELECT pg_advisory_xact_lock(1919709793)", 0 },
	/* by the games_finished index, then the primary key past that game */
	[ST_CHANNEL_FINISHED] = { "SELECT id FROM (SELECT id FROM games WHERE state = 2 AND game = "
	                          "$1 "
	                          "AND server = $2 AND channel = $3 ORDER BY finished_at DESC, id "
	                          "DESC "
	                          "LIMIT 1) AS f WHERE NOT EXISTS (SELECT 1 FROM games h "
	                          "WHERE h.id > f.id AND h.server = $2 AND h.channel = $3)",
	                          0 },
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

static void set_err(struct store_pg *st, const char *fmt, ...) PRINTF_LIKE(2, 3);

static void set_err(struct store_pg *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->err, sizeof(st->err), fmt, ap);
	va_end(ap);
}

/* The server's message without its trailing newline, bounded. */
static void server_text(const char *msg, char *out, size_t size)
{
	size_t n = msg ? strnlen(msg, size - 1) : 0;

	memcpy(out, msg ? msg : "", n);
	out[n] = '\0';
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
}

/* Records "<what>: <the server's message>" for a failed result r (or the
 * connection's error when r is NULL), with the plainer texts of the
 * SQLite backend for the constraint failures callers are expected to
 * meet. */
static void set_db_err(struct store_pg *st, const char *what, const PGresult *r)
{
	const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	const char *constraint = r ? PQresultErrorField(r, PG_DIAG_CONSTRAINT_NAME) : NULL;
	char msg[200];

	server_text(r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL, msg, sizeof(msg));
	if (!msg[0])
		server_text(PQerrorMessage(st->conn), msg, sizeof(msg));
	if (state && strcmp(state, "23505") == 0 && constraint &&
	    strcmp(constraint, "games_open_channel") == 0)
		set_err(st, "%s: the channel already has a game in the lobby or playing", what);
	else if (state && strcmp(state, "23503") == 0)
		set_err(st, "%s: the game it refers to does not exist", what);
	else
		set_err(st, "%s: %s", what, msg);
}

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
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

/* Counts $i as used; an index past PARAMS_MAX is a bug in this file. */
static void p_use(struct params *ps, int i)
{
	if (i < 1 || i > PARAMS_MAX)
		abort();
	if (i > ps->n)
		ps->n = i;
}

/* Sets $i to v, refused (not cut) when it has max bytes or more. */
static int p_id(struct store_pg *st, struct params *ps, int i, const char *v, size_t max,
                const char *what)
{
	size_t n = strnlen(v, max);

	p_use(ps, i);
	if (n >= max) {
		set_err(st, "%s is longer than %zu bytes", what, max - 1);
		return -1;
	}
	ps->v[i - 1] = v;
	return 0;
}

/* Sets $i to display text v[0..len), cut to size - 1 bytes at a UTF-8
 * boundary. */
static int p_cut(struct store_pg *st, struct params *ps, int i, const char *v, size_t len,
                 size_t size)
{
	size_t n = utf8_cut(v, len, size - 1);

	p_use(ps, i);
	if (ps->used + n + 1 > sizeof(ps->pool)) {
		set_err(st, "parameters too long");
		return -1;
	}
	memcpy(ps->pool + ps->used, v, n);
	ps->pool[ps->used + n] = '\0';
	ps->v[i - 1] = ps->pool + ps->used;
	ps->used += n + 1;
	return 0;
}

static void p_i64(struct params *ps, int i, int64_t v)
{
	p_use(ps, i);
	snprintf(ps->num[i - 1], sizeof(ps->num[i - 1]), "%lld", (long long)v);
	ps->v[i - 1] = ps->num[i - 1];
}

static void p_dbl(struct params *ps, int i, double v)
{
	p_use(ps, i);
	snprintf(ps->num[i - 1], sizeof(ps->num[i - 1]), "%.17g", v);
	ps->v[i - 1] = ps->num[i - 1];
}

static int64_t v_i64(const PGresult *r, int row, int col)
{
	return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static int v_int(const PGresult *r, int row, int col)
{
	return (int)v_i64(r, row, col);
}

static double v_dbl(const PGresult *r, int row, int col)
{
	return strtod(PQgetvalue(r, row, col), NULL);
}

/* Reads an id column into dst; refused (not cut) when it does not fit. */
static int v_id(struct store_pg *st, const PGresult *r, int row, int col, char *dst, size_t size,
                const char *what)
{
	size_t n = (size_t)PQgetlength(r, row, col);

	if (n >= size) {
		set_err(st, "stored %s is longer than %zu bytes", what, size - 1);
		return -1;
	}
	memcpy(dst, PQgetvalue(r, row, col), n);
	dst[n] = '\0';
	return 0;
}

/* Reads a text column into dst, cut at a UTF-8 boundary to fit. */
static void v_text(const PGresult *r, int row, int col, char *dst, size_t size)
{
	copy_text(dst, size, PQgetvalue(r, row, col), (size_t)PQgetlength(r, row, col));
}

/* Runs a fixed command without parameters (transaction control; rows
 * answered are dropped). 0, or -1 with the error set. */
static int command(struct store_pg *st, const char *sql, const char *what)
{
	PGresult *r = PQexec(st->conn, sql);
	int ok =
	    r && (PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK);

	if (!ok)
		set_db_err(st, what, r);
	PQclear(r);
	return ok ? 0 : -1;
}

/* Prepares statement `id` on first use. */
static int prepare(struct store_pg *st, enum stmt_id id)
{
	char name[16];
	PGresult *r;
	int ok;

	if (st->prepared[id])
		return 0;
	snprintf(name, sizeof(name), "s%d", (int)id);
	r = PQprepare(st->conn, name, stmt_defs[id].sql, 0, NULL);
	ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
	if (!ok)
		set_db_err(st, "prepare", r);
	PQclear(r);
	st->prepared[id] = (unsigned char)ok;
	return ok ? 0 : -1;
}

static int in_tx(struct store_pg *st)
{
	return st->tx;
}

/* Reconnects when the server has closed the connection (a restart, a
 * failover), outside a transaction only: inside one, its writes are lost,
 * which the caller must learn (it rolls back). The statements are prepared
 * anew on the new connection. 0 when the connection is usable. */
static int alive(struct store_pg *st)
{
	char msg[200];

	if (PQstatus(st->conn) == CONNECTION_OK)
		return 0;
	if (st->tx) {
		set_err(st, "the connection to PostgreSQL was lost in a transaction");
		return -1;
	}
	PQreset(st->conn);
	if (PQstatus(st->conn) != CONNECTION_OK) {
		server_text(PQerrorMessage(st->conn), msg, sizeof(msg));
		set_err(st, "cannot reconnect to PostgreSQL: %s", msg);
		return -1;
	}
	memset(st->prepared, 0, sizeof(st->prepared));
	return 0;
}

/* Runs prepared statement `name` under its own savepoint, in one round
 * trip: SAVEPOINT, the statement and RELEASE go out together (pipeline
 * mode). Returns the statement's result, failed or not (NULL when it could
 * not be sent); after a failure the savepoint is rolled back to, which
 * leaves the transaction as it was before. */
static PGresult *exec_guarded(struct store_pg *st, const char *name, const struct params *ps)
{
	PGconn *c = st->conn;
	PGresult *x, *mine = NULL;
	int q = 0, sent, ok;

	if (!PQenterPipelineMode(c))
		return NULL;
	sent = PQsendQueryParams(c, "SAVEPOINT store_stmt", 0, NULL, NULL, NULL, NULL, 0) &&
	       PQsendQueryPrepared(c, name, ps ? ps->n : 0, ps ? ps->v : NULL, NULL, NULL, 0) &&
	       PQsendQueryParams(c, "RELEASE store_stmt", 0, NULL, NULL, NULL, NULL, 0);
	if (!PQpipelineSync(c))
		sent = 0;
	/* Each query's results end with NULL; the sync point ends them all. */
	while (sent || q < 3) {
		if (!(x = PQgetResult(c))) {
			if (++q > 3)
				break;
			continue;
		}
		if (PQresultStatus(x) == PGRES_PIPELINE_SYNC) {
			PQclear(x);
			break;
		}
		if (q == 1 && !mine)
			mine = x;
		else
			PQclear(x);
	}
	PQexitPipelineMode(c);
	ok = mine &&
	     (PQresultStatus(mine) == PGRES_COMMAND_OK || PQresultStatus(mine) == PGRES_TUPLES_OK);
	if (!ok && PQtransactionStatus(c) == PQTRANS_INERROR)
		PQclear(PQexec(c, "ROLLBACK TO store_stmt; RELEASE store_stmt"));
	return mine;
}

/* Prepares statement `id` when needed and runs it (a write inside a
 * transaction under its own savepoint). *sent says whether it reached the
 * point of running. Returns its result, failed or not, or NULL. */
static PGresult *attempt(struct store_pg *st, enum stmt_id id, const struct params *ps, int *sent)
{
	char name[16];

	*sent = 0;
	if (prepare(st, id))
		return NULL;
	*sent = 1;
	snprintf(name, sizeof(name), "s%d", (int)id);
	if (stmt_defs[id].write && in_tx(st))
		return exec_guarded(st, name, ps);
	return PQexecPrepared(st->conn, name, ps ? ps->n : 0, ps ? ps->v : NULL, NULL, NULL, 0);
}

/* Runs statement `id` with parameters ps (NULL: none). A write fails
 * without running while fault injection says so; inside a transaction it
 * runs under its own savepoint, so that its failure undoes it alone.
 * Outside a transaction, a connection the server closed is opened again
 * and the statement asked again, unless it was a write that may have been
 * done. Returns the result (the caller clears it), or NULL with the error
 * set ("<what>: ..."). */
static PGresult *exec(struct store_pg *st, enum stmt_id id, const struct params *ps,
                      const char *what)
{
	PGresult *r;
	int write = stmt_defs[id].write, status, sent;

	if (write && st->fail_after == 0) {
		set_err(st, "%s: disk full (injected)", what);
		return NULL;
	}
	if (alive(st))
		return NULL;
	r = attempt(st, id, ps, &sent);
	status = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
	if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && !in_tx(st) &&
	    (!write || !sent) && PQstatus(st->conn) == CONNECTION_BAD && !alive(st)) {
		PQclear(r);
		r = attempt(st, id, ps, &sent);
		status = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
	}
	if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
		set_db_err(st, what, r);
		PQclear(r);
		return NULL;
	}
	if (write && st->fail_after > 0)
		st->fail_after--;
	return r;
}

/* exec for a statement whose rows are not wanted: 0 or -1; *changed (when
 * not NULL) gets the number of rows written. */
static int run(struct store_pg *st, enum stmt_id id, const struct params *ps, const char *what,
               long *changed)
{
	PGresult *r = exec(st, id, ps, what);

	if (!r)
		return -1;
	if (changed)
		*changed = strtol(PQcmdTuples(r), NULL, 10);
	PQclear(r);
	return 0;
}

/* Runs a query answering one number into *out. */
static int one_i64(struct store_pg *st, enum stmt_id id, const struct params *ps, const char *what,
                   int64_t *out)
{
	PGresult *r = exec(st, id, ps, what);

	if (!r)
		return -1;
	if (PQntuples(r) != 1 || PQgetisnull(r, 0, 0)) {
		set_err(st, "%s: no answer", what);
		PQclear(r);
		return -1;
	}
	*out = v_i64(r, 0, 0);
	PQclear(r);
	return 0;
}

int store_pg_is_uri(const char *database)
{
	return database && (strncmp(database, "postgresql://", 13) == 0 ||
	                    strncmp(database, "postgres://", 11) == 0);
}

void store_pg_describe(const char *database, char *out, size_t cap)
{
	const char *user = "", *host = "", *port = "", *db = "";
	PQconninfoOption *opts = PQconninfoParse(database, NULL);

	if (!cap)
		return;
	if (!opts) {
		snprintf(out, cap, "postgresql://(unparsable URI)");
		return;
	}
	for (PQconninfoOption *o = opts; o->keyword; o++) {
		if (!o->val)
			continue;
		if (strcmp(o->keyword, "user") == 0)
			user = o->val;
		else if (strcmp(o->keyword, "host") == 0)
			host = o->val;
		else if (strcmp(o->keyword, "port") == 0)
			port = o->val;
		else if (strcmp(o->keyword, "dbname") == 0)
			db = o->val;
	}
	snprintf(out, cap, "postgresql://%s%s%s%s%s/%s", user, user[0] ? "@" : "", host,
	         port[0] ? ":" : "", port, db);
	PQconninfoFree(opts);
}

/* Reads schema_version into *version. */
static int read_version(struct store_pg *st, int *version)
{
	int64_t v;

	if (one_i64(st, ST_VERSION_GET, NULL, "read schema version", &v))
		return -1;
	*version = (int)v;
	return 0;
}

/* Takes the migration lock of this transaction: two processes opening the
 * same database migrate one after the other. */
static int migration_lock(struct store_pg *st)
{
	return command(st, "SELECT pg_advisory_xact_lock(x'" MIGRATE_KEY "'::int)", "lock");
}

/* Makes the schema_version table (version 0) unless it is there. */
static int version_table(struct store_pg *st)
{
	if (command(st, "BEGIN", "begin migration") || migration_lock(st) ||
	    command(st,
	            "CREATE TABLE IF NOT EXISTS schema_version (one BOOLEAN NOT NULL PRIMARY KEY "
	            "DEFAULT TRUE CHECK (one), version BIGINT NOT NULL CHECK (version >= 0)); "
	            "INSERT INTO schema_version (version) VALUES (0) ON CONFLICT DO NOTHING",
	            "schema version") ||
	    command(st, "COMMIT", "commit migration")) {
		PQclear(PQexec(st->conn, "ROLLBACK"));
		return -1;
	}
	return 0;
}

/* Applies migration `version` (1-based) in its own transaction, unless
 * another connection applied it first. The database is unchanged on
 * failure. */
static int migrate_one(struct store_pg *st, int version)
{
	struct params ps = { 0 };
	PGresult *r;
	int current;

	if (command(st, "BEGIN", "begin migration") || migration_lock(st) ||
	    read_version(st, &current))
		goto fail;
	if (current < version) {
		/* Our own SQL, without parameters: several statements in one. */
		r = PQexec(st->conn, store_pg_migrations[version - 1]);
		if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
			char what[64];
			snprintf(what, sizeof(what), "migration %s",
			         store_pg_migration_names[version - 1]);
			set_db_err(st, what, r);
			PQclear(r);
			goto fail;
		}
		PQclear(r);
		p_i64(&ps, 1, version);
		if (run(st, ST_VERSION_SET, &ps, "set schema version", NULL))
			goto fail;
	}
	if (command(st, "COMMIT", "commit migration"))
		goto fail;
	return 0;
fail:
	if (PQtransactionStatus(st->conn) != PQTRANS_IDLE)
		PQclear(PQexec(st->conn, "ROLLBACK"));
	return -1;
}

/* Refuses a database newer than the binary before changing anything in
 * it, then applies migrations up to `version`. */
static int setup(struct store_pg *st, int version)
{
	int current, latest = store_schema_latest(), pg_latest = 0;

	while (store_pg_migrations[pg_latest])
		pg_latest++;
	if (pg_latest != latest) {
		set_err(st, "this rlyeh has %d SQLite migrations but %d PostgreSQL ones", latest,
		        pg_latest);
		return -1;
	}
	if (version_table(st) || read_version(st, &current))
		return -1;
	if (current > latest) {
		set_err(st,
		        "database schema version %d is newer than this program's latest version "
		        "%d; use a newer rlyeh",
		        current, latest);
		return -1;
	}
	for (int v = current + 1; v <= version; v++)
		if (migrate_one(st, v))
			return -1;
	return 0;
}

int store_pg_open_version(const char *uri, int version, struct store_pg **out, char *err,
                          size_t errlen)
{
	struct store_pg *st;
	int latest = store_schema_latest();

	*out = NULL;
	if (version < 0 || version > latest) {
		if (errlen)
			snprintf(err, errlen, "schema version %d is not between 0 and %d", version,
			         latest);
		return -1;
	}
	if (!(st = calloc(1, sizeof(*st)))) {
		if (errlen)
			snprintf(err, errlen, "out of memory");
		return -1;
	}
	st->fail_after = -1;
	{
		/* After the URI, so that it wins; kept by PQreset. */
		/* Keepalives before the URI, which may change them: a peer lost
		 * without a word is noticed within about 11 s (store.h: shards). */
		const char *const keys[] = { "keepalives",
			                     "keepalives_idle",
			                     "keepalives_interval",
			                     "keepalives_count",
			                     "dbname",
			                     "client_encoding",
			                     NULL };
		const char *const values[] = { "1", "5", "2", "3", uri, "UTF8", NULL };
		st->conn = PQconnectdbParams(keys, values, 1);
	}
	if (!st->conn || PQstatus(st->conn) != CONNECTION_OK) {
		char msg[200];
		server_text(st->conn ? PQerrorMessage(st->conn) : "out of memory", msg,
		            sizeof(msg));
		set_err(st, "cannot connect to PostgreSQL: %s", msg);
		goto fail;
	}
	PQsetNoticeProcessor(st->conn, quiet, NULL);
	if (setup(st, version))
		goto fail;
	*out = st;
	return 0;
fail:
	if (errlen)
		snprintf(err, errlen, "%s", st->err);
	store_pg_close(st);
	return -1;
}

void store_pg_close(struct store_pg *st)
{
	if (!st)
		return;
	PQfinish(st->conn);
	free(st);
}

const char *store_pg_errmsg(struct store_pg *st)
{
	return st->err;
}

int store_pg_schema_version(struct store_pg *st)
{
	int version;

	return read_version(st, &version) ? -1 : version;
}

/* PostgreSQL checkpoints on its own. */
int store_pg_checkpoint_background(struct store_pg *st)
{
	(void)st;
	return 0;
}

long store_pg_checkpoints_made(struct store_pg *st)
{
	(void)st;
	return 0;
}

int store_pg_checkpoint(struct store_pg *st)
{
	(void)st;
	return 0;
}

/* The server's memory settings are its own. */
int store_pg_cache_bulk(struct store_pg *st, int on)
{
	(void)st;
	(void)on;
	return 0;
}

int store_pg_begin(struct store_pg *st)
{
	if (in_tx(st)) {
		set_err(st, "begin: a transaction is already open");
		return -1;
	}
	if (alive(st) || command(st, "BEGIN", "begin"))
		return -1;
	st->tx = 1;
	return 0;
}

int store_pg_commit(struct store_pg *st)
{
	PGresult *r;
	int ok;

	if (st->fail_after == 0) {
		set_err(st, "commit: disk full (injected)");
		return -1;
	}
	if (PQtransactionStatus(st->conn) == PQTRANS_INERROR) {
		set_err(st, "commit: the transaction failed; roll it back");
		return -1;
	}
	r = PQexec(st->conn, "COMMIT");
	ok = r && PQresultStatus(r) == PGRES_COMMAND_OK && strcmp(PQcmdStatus(r), "COMMIT") == 0;
	if (!ok)
		set_db_err(st, "commit", r);
	PQclear(r);
	if (ok && st->fail_after > 0)
		st->fail_after--;
	if (ok)
		st->tx = 0;
	return ok ? 0 : -1;
}

void store_pg_rollback(struct store_pg *st)
{
	if (!in_tx(st))
		return;
	if (PQstatus(st->conn) == CONNECTION_OK)
		PQclear(PQexec(st->conn, "ROLLBACK"));
	st->tx = 0;
}

int store_pg_in_transaction(struct store_pg *st)
{
	return in_tx(st);
}

int store_pg_mark(struct store_pg *st)
{
	if (!in_tx(st)) {
		set_err(st, "mark: no transaction is open");
		return -1;
	}
	return command(st, "SAVEPOINT store_mark", "mark");
}

int store_pg_mark_keep(struct store_pg *st)
{
	return command(st, "RELEASE store_mark", "mark");
}

void store_pg_mark_undo(struct store_pg *st)
{
	if (!in_tx(st))
		return;
	PQclear(PQexec(st->conn, "ROLLBACK TO store_mark"));
	PQclear(PQexec(st->conn, "RELEASE store_mark"));
}

/* Sets $1 .. $22 of ST_GAME_INSERT / ST_GAME_UPDATE. */
static int p_game(struct store_pg *st, struct params *ps, const struct store_game *g)
{
	if (p_id(st, ps, 1, g->server, sizeof(g->server), "server id") ||
	    p_id(st, ps, 2, g->channel, sizeof(g->channel), "channel id") ||
	    p_id(st, ps, 3, g->game, sizeof(g->game), "game kind") ||
	    p_id(st, ps, 5, g->lang, sizeof(g->lang), "language") ||
	    p_id(st, ps, 6, g->owner, sizeof(g->owner), "owner id"))
		return -1;
	p_i64(ps, 4, g->per_player);
	p_i64(ps, 7, g->state);
	p_i64(ps, 8, u64_to_db(g->seed));
	for (int i = 0; i < 4; i++)
		p_i64(ps, 9 + i, u64_to_db(g->rng[i]));
	p_i64(ps, 13, g->first);
	p_i64(ps, 14, g->moves);
	p_i64(ps, 15, g->winner);
	p_i64(ps, 16, g->created_at);
	p_i64(ps, 17, g->started_at);
	p_i64(ps, 18, g->finished_at);
	p_i64(ps, 19, g->deadline);
	p_i64(ps, 20, g->series_of);
	p_i64(ps, 21, g->note);
	p_i64(ps, 22, g->revision);
	return 0;
}

/* In a transaction, takes the ratings lock (ST_RATE_LOCK) before the
 * game_ids row: a transaction that both picks a game id and rates a game
 * ended, in either order, then takes the two in one order, as every other
 * does, so that two processes never wait for each other (a deadlock, which
 * PostgreSQL breaks by failing one of them). 0, or -1 with the error set. */
static int ids_lock(struct store_pg *st)
{
	return st->tx ? run(st, ST_RATE_LOCK, NULL, "lock game ids", NULL) : 0;
}

int store_pg_game_create(struct store_pg *st, struct store_game *g)
{
	struct params ps = { 0 };
	int64_t id;

	/* The insert's trigger writes the game_ids row. */
	if (ids_lock(st) || p_game(st, &ps, g) ||
	    one_i64(st, ST_GAME_INSERT, &ps, "create game", &id))
		return -1;
	g->id = id;
	return 0;
}

int store_pg_game_update(struct store_pg *st, const struct store_game *g)
{
	struct params ps = { 0 };
	long changed = 0;

	if (p_game(st, &ps, g))
		return -1;
	p_i64(&ps, 23, g->id);
	if (run(st, ST_GAME_UPDATE, &ps, "update game", &changed))
		return -1;
	if (changed == 0) {
		set_err(st, "update game %lld: no such game", (long long)g->id);
		return -1;
	}
	return 0;
}

int store_pg_game_progress(struct store_pg *st, const struct store_game *g)
{
	struct params ps = { 0 };
	long changed = 0;

	for (int i = 0; i < 4; i++)
		p_i64(&ps, 1 + i, u64_to_db(g->rng[i]));
	p_i64(&ps, 5, g->moves);
	p_i64(&ps, 6, g->deadline);
	p_i64(&ps, 7, g->note);
	p_i64(&ps, 8, g->id);
	if (run(st, ST_GAME_PROGRESS, &ps, "update game", &changed))
		return -1;
	if (changed == 0) {
		set_err(st, "update game %lld: no such game", (long long)g->id);
		return -1;
	}
	return 0;
}

/* Inserts member i of game_id. */
static int member_insert(struct store_pg *st, int64_t game_id, int i, const struct store_member *m)
{
	struct params ps = { 0 };

	p_i64(&ps, 1, game_id);
	p_i64(&ps, 2, i);
	if (p_id(st, &ps, 3, m->player, sizeof(m->player), "player id") ||
	    p_cut(st, &ps, 4, m->name, strnlen(m->name, sizeof(m->name)), sizeof(m->name)) ||
	    p_id(st, &ps, 5, m->policy, sizeof(m->policy), "policy"))
		return -1;
	p_i64(&ps, 6, m->strikes);
	p_i64(&ps, 7, m->autopilot);
	p_i64(&ps, 8, m->place);
	p_i64(&ps, 9, m->cthulhu);
	p_i64(&ps, 10, m->prefs);
	return run(st, ST_MEMBER_INSERT, &ps, "put members", NULL);
}

/* All or nothing, as in SQLite: outside a transaction in its own; inside
 * the caller's, under a savepoint. */
int store_pg_members_put(struct store_pg *st, int64_t game_id, const struct store_member *members,
                         int n)
{
	struct params ps = { 0 };
	int own = !in_tx(st);

	if (n < 0 || n > STORE_MEMBERS_MAX || (n > 0 && !members)) {
		set_err(st, "put members: %d members (at most %d)", n, STORE_MEMBERS_MAX);
		return -1;
	}
	if (own ? store_pg_begin(st) : command(st, "SAVEPOINT store_call", "put members"))
		return -1;
	p_i64(&ps, 1, game_id);
	if (run(st, ST_MEMBERS_DELETE, &ps, "put members", NULL))
		goto fail;
	for (int i = 0; i < n; i++)
		if (member_insert(st, game_id, i, &members[i]))
			goto fail;
	if (own ? store_pg_commit(st) : command(st, "RELEASE store_call", "put members"))
		goto fail;
	return 0;
fail:
	if (!in_tx(st))
		return -1;
	if (own) {
		store_pg_rollback(st);
	} else {
		PQclear(PQexec(st->conn, "ROLLBACK TO store_call"));
		PQclear(PQexec(st->conn, "RELEASE store_call"));
	}
	return -1;
}

int store_pg_event_append(struct store_pg *st, int64_t game_id, const struct store_event *e)
{
	struct params ps = { 0 };

	p_i64(&ps, 1, game_id);
	p_i64(&ps, 2, e->seq);
	p_i64(&ps, 3, e->at);
	if (p_id(st, &ps, 4, e->kind, sizeof(e->kind), "event kind") ||
	    p_cut(st, &ps, 7, e->detail, strnlen(e->detail, sizeof(e->detail)), sizeof(e->detail)))
		return -1;
	p_i64(&ps, 5, e->actor);
	p_i64(&ps, 6, e->value);
	return run(st, ST_EVENT_INSERT, &ps, "append event", NULL);
}

/* Reads row `row` of ST_GAME_GET. */
static int v_game(struct store_pg *st, const PGresult *r, int row, struct store_game *g)
{
	memset(g, 0, sizeof(*g));
	g->id = v_i64(r, row, 0);
	if (v_id(st, r, row, 1, g->server, sizeof(g->server), "server id") ||
	    v_id(st, r, row, 2, g->channel, sizeof(g->channel), "channel id") ||
	    v_id(st, r, row, 3, g->game, sizeof(g->game), "game kind") ||
	    v_id(st, r, row, 5, g->lang, sizeof(g->lang), "language") ||
	    v_id(st, r, row, 6, g->owner, sizeof(g->owner), "owner id"))
		return -1;
	g->per_player = v_int(r, row, 4);
	g->state = v_int(r, row, 7);
	g->seed = u64_from_db(v_i64(r, row, 8));
	for (int i = 0; i < 4; i++)
		g->rng[i] = u64_from_db(v_i64(r, row, 9 + i));
	g->first = v_int(r, row, 13);
	g->moves = v_int(r, row, 14);
	g->winner = v_int(r, row, 15);
	g->created_at = v_i64(r, row, 16);
	g->started_at = v_i64(r, row, 17);
	g->finished_at = v_i64(r, row, 18);
	g->deadline = v_i64(r, row, 19);
	g->series_of = v_i64(r, row, 20);
	g->note = v_int(r, row, 21);
	g->revision = v_int(r, row, 22);
	return 0;
}

static void loaded_free(struct loaded *l)
{
	free(l->events);
	l->events = NULL;
	l->nevents = l->cap = 0;
}

/* Reads the members of game `id` into l. */
static int load_members(struct store_pg *st, int64_t id, struct loaded *l)
{
	struct params ps = { 0 };
	PGresult *r;
	int rc = 0;

	p_i64(&ps, 1, id);
	if (!(r = exec(st, ST_MEMBERS_GET, &ps, "load members")))
		return -1;
	for (int row = 0; row < PQntuples(r) && rc == 0; row++) {
		struct store_member *m = &l->members[l->nmembers];

		if (l->nmembers == STORE_MEMBERS_MAX || v_int(r, row, 0) != l->nmembers) {
			set_err(st, "game %lld: members are not seats 0 .. %d", (long long)id,
			        STORE_MEMBERS_MAX - 1);
			rc = -1;
			break;
		}
		if (v_id(st, r, row, 1, m->player, sizeof(m->player), "player id") ||
		    v_id(st, r, row, 3, m->policy, sizeof(m->policy), "policy")) {
			rc = -1;
			break;
		}
		v_text(r, row, 2, m->name, sizeof(m->name));
		m->strikes = v_int(r, row, 4);
		m->autopilot = v_int(r, row, 5);
		m->place = v_int(r, row, 6);
		m->cthulhu = v_int(r, row, 7);
		m->prefs = v_int(r, row, 8);
		l->nmembers++;
	}
	PQclear(r);
	return rc;
}

/* Reads the event log of game `id` into l (l->events owned by l). */
static int load_events(struct store_pg *st, int64_t id, struct loaded *l)
{
	struct params ps = { 0 };
	PGresult *r;
	int n, rc = 0;

	p_i64(&ps, 1, id);
	if (!(r = exec(st, ST_EVENTS_GET, &ps, "load events")))
		return -1;
	n = PQntuples(r);
	if (n > EVENTS_MAX) {
		set_err(st, "game %lld has more than %d events", (long long)id, EVENTS_MAX);
		PQclear(r);
		return -1;
	}
	if (n > 0 && !(l->events = calloc((size_t)n, sizeof(*l->events)))) {
		set_err(st, "out of memory");
		PQclear(r);
		return -1;
	}
	l->cap = n;
	for (int row = 0; row < n; row++) {
		struct store_event *e = &l->events[row];

		if (v_id(st, r, row, 2, e->kind, sizeof(e->kind), "event kind")) {
			rc = -1;
			break;
		}
		e->seq = v_i64(r, row, 0);
		e->at = v_i64(r, row, 1);
		e->actor = v_int(r, row, 3);
		e->value = v_int(r, row, 4);
		v_text(r, row, 5, e->detail, sizeof(e->detail));
		l->nevents++;
	}
	PQclear(r);
	return rc;
}

/* Reads game `id` into l: the row, its members and, with `events`, its
 * event log (free l with loaded_free, also after a failure). 1 found, 0
 * no such game, -1 error. */
static int load_game(struct store_pg *st, int64_t id, int events, struct loaded *l)
{
	struct params ps = { 0 };
	PGresult *r;
	int rc;

	memset(l, 0, sizeof(*l));
	p_i64(&ps, 1, id);
	if (!(r = exec(st, ST_GAME_GET, &ps, "load game")))
		return -1;
	if (PQntuples(r) == 0) {
		PQclear(r);
		return 0;
	}
	rc = v_game(st, r, 0, &l->game);
	PQclear(r);
	if (rc || load_members(st, id, l))
		return -1;
	if (events && load_events(st, id, l))
		return -1;
	return 1;
}

/* Loads game `id` and, when found (and, with `open_only`, in the lobby or
 * playing), calls fn with it and stores fn's return in *fn_rc. 1 when fn
 * was called, 0 when not, -1 on error. */
static int deliver(struct store_pg *st, int64_t id, int open_only, store_game_fn fn, void *ctx,
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

/* Runs query `id` and copies the ids of its first column into *ids (the
 * caller frees it), so that callbacks may use the store afterwards. */
static int gather_ids(struct store_pg *st, enum stmt_id id, const struct params *ps, int64_t **ids,
                      int *n)
{
	PGresult *r = exec(st, id, ps, "list games");

	*ids = NULL;
	*n = 0;
	if (!r)
		return -1;
	if (PQntuples(r) > LIST_MAX) {
		set_err(st, "more than %d games to walk", LIST_MAX);
		PQclear(r);
		return -1;
	}
	if (PQntuples(r) > 0 && !(*ids = calloc((size_t)PQntuples(r), sizeof(**ids)))) {
		set_err(st, "out of memory");
		PQclear(r);
		return -1;
	}
	for (int row = 0; row < PQntuples(r); row++)
		(*ids)[row] = v_i64(r, row, 0);
	*n = PQntuples(r);
	PQclear(r);
	return 0;
}

int store_pg_games_open(struct store_pg *st, store_game_fn fn, void *ctx)
{
	int64_t *ids;
	int n, rc = 0;

	if (gather_ids(st, ST_GAMES_OPEN, NULL, &ids, &n))
		return -1;
	for (int i = 0; i < n && rc == 0; i++)
		if (deliver(st, ids[i], 1, fn, ctx, &rc) < 0)
			rc = -1;
	free(ids);
	return rc;
}

int store_pg_game_load(struct store_pg *st, int64_t id, store_game_fn fn, void *ctx)
{
	int fn_rc = 0;
	int rc = deliver(st, id, 0, fn, ctx, &fn_rc);

	if (rc == 0)
		set_err(st, "game %lld: no such game", (long long)id);
	return rc > 0 ? fn_rc : -1;
}

int store_pg_results(struct store_pg *st, const char *game, const char *server, int64_t since,
                     int64_t until, store_result_fn fn, void *ctx)
{
	struct params ps = { 0 };
	int64_t *ids;
	int n, rc = 0;

	if (!game) {
		set_err(st, "results: no game kind");
		return -1;
	}
	/* Longer text than a stored value matches nothing. */
	if (strlen(game) >= STORE_KIND_MAX || (server && strlen(server) >= STORE_ID_MAX))
		return 0;
	ps.v[0] = game;
	p_i64(&ps, 2, since);
	p_i64(&ps, 3, until ? until : INT64_MAX);
	if (server) {
		ps.v[3] = server;
		p_use(&ps, 4);
	}
	if (gather_ids(st, server ? ST_RESULTS_SERVER : ST_RESULTS_ALL, &ps, &ids, &n))
		return -1;
	for (int i = 0; i < n && rc == 0; i++) {
		struct loaded l;
		struct store_result res;
		int found = load_game(st, ids[i], 0, &l);

		if (found < 0) {
			rc = -1;
		} else if (found > 0 && l.game.state == STORE_FINISHED) {
			res = (struct store_result){ l.game.id,  l.game.finished_at, l.game.server,
				                     l.nmembers, l.members,          l.game.game };
			rc = fn(ctx, &res);
		}
		loaded_free(&l);
	}
	free(ids);
	return rc;
}

int store_pg_ratings_pending(struct store_pg *st)
{
	PGresult *r = exec(st, ST_RATINGS_PENDING, NULL, "ratings");
	int pending = -1;

	if (!r)
		return -1;
	if (PQntuples(r) == 1)
		pending = strcmp(PQgetvalue(r, 0, 0), "build") == 0;
	else
		set_err(st, "ratings: the database has none (schema older than 7)");
	PQclear(r);
	return pending;
}

int store_pg_ratings_built(struct store_pg *st)
{
	return run(st, ST_RATINGS_BUILT, NULL, "ratings built", NULL);
}

int store_pg_ratings_clear(struct store_pg *st)
{
	if (run(st, ST_RATINGS_CLEAR, NULL, "clear ratings", NULL))
		return -1;
	return run(st, ST_RATING_COUNTS_CLEAR, NULL, "clear ratings", NULL);
}

int store_pg_games_rate_all(struct store_pg *st)
{
	return run(st, ST_GAMES_RATE_ALL, NULL, "rate games", NULL);
}

int store_pg_game_rate(struct store_pg *st, int64_t id)
{
	struct params ps = { 0 };

	/* Several processes may end games at once: each takes the next place
	 * and reads and writes the ratings alone, until its transaction ends. */
	if (st->tx && run(st, ST_RATE_LOCK, NULL, "lock ratings", NULL))
		return -1;
	p_i64(&ps, 1, id);
	return run(st, ST_GAME_RATE, &ps, "rate game", NULL);
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

	if (alive(st) || prepare(st, ST_RESULTS_RATED))
		return -1;
	snprintf(name, sizeof(name), "s%d", (int)ST_RESULTS_RATED);
	if (!PQsendQueryPrepared(st->conn, name, 0, NULL, NULL, NULL, 0) ||
	    !PQsetSingleRowMode(st->conn)) {
		set_db_err(st, "rated results", NULL);
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
			set_db_err(st, "rated results", r);
			failed = 1;
			PQclear(r);
			continue;
		}
		id = v_i64(r, 0, 0);
		if (res.nmembers > 0 && id != res.game_id) {
			if ((fn_rc = fn(ctx, &res)) != 0) {
				PQclear(r);
				continue;
			}
			res.nmembers = 0;
		}
		if (res.nmembers == 0) {
			res.game_id = id;
			res.finished_at = v_i64(r, 0, 1);
			if (v_id(st, r, 0, 2, server, sizeof(server), "server id") ||
			    v_id(st, r, 0, 3, game, sizeof(game), "game kind"))
				failed = 1;
		}
		if (!failed && res.nmembers == STORE_MEMBERS_MAX) {
			set_err(st, "game %lld has more than %d members", (long long)id,
			        STORE_MEMBERS_MAX);
			failed = 1;
		}
		if (!failed) {
			x = &m[res.nmembers++];
			memset(x, 0, sizeof(*x));
			if (v_id(st, r, 0, 4, x->player, sizeof(x->player), "player id"))
				failed = 1;
			v_text(r, 0, 5, x->name, sizeof(x->name));
			x->place = v_int(r, 0, 6);
			x->cthulhu = v_int(r, 0, 7);
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
		set_err(st, "ratings: no game kind or scope");
		return -1;
	}
	if (p_id(st, ps, 1, p->game, STORE_KIND_MAX, "game kind") ||
	    p_id(st, ps, 2, p->scope, STORE_ID_MAX, "scope"))
		return -1;
	p_i64(ps, 3, p->span);
	p_i64(ps, 4, p->starts);
	return 0;
}

/* The rating_counts bucket of an ordinal: floor(4 ordinal), as in the
 * SQLite backend, so that both count the same. */
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
static int count_add(struct store_pg *st, const struct store_period *p,
                     const struct store_rating *r, int delta)
{
	struct params ps = { 0 };
	long changed = 0;

	if (p_period(st, &ps, p))
		return -1;
	p_i64(&ps, 5, bucket_of(r->ordinal));
	p_i64(&ps, 6, r->games < GAMES_CAP ? r->games : GAMES_CAP);
	if (delta > 0)
		p_i64(&ps, 7, delta);
	if (run(st, delta > 0 ? ST_RATING_COUNT : ST_RATING_UNCOUNT, &ps, "count rating", &changed))
		return -1;
	if (delta < 0 && changed != 1) {
		set_err(st, "count rating of %s: not counted", r->player);
		return -1;
	}
	return 0;
}

/* Reads row `row` of RATING_COLS. */
static int v_rating(struct store_pg *st, const PGresult *res, int row, struct store_rating *r)
{
	memset(r, 0, sizeof(*r));
	if (v_id(st, res, row, 0, r->player, sizeof(r->player), "player id"))
		return -1;
	v_text(res, row, 1, r->name, sizeof(r->name));
	v_text(res, row, 2, r->name_key, sizeof(r->name_key));
	r->mu = v_dbl(res, row, 3);
	r->sigma = v_dbl(res, row, 4);
	r->ordinal = v_dbl(res, row, 5);
	r->games = v_int(res, row, 6);
	r->wins = v_int(res, row, 7);
	r->cthulhu = v_int(res, row, 8);
	return 0;
}

/* Runs ratings query `id` and calls fn for each row. */
static int walk_ratings(struct store_pg *st, enum stmt_id id, const struct params *ps,
                        store_rating_fn fn, void *ctx)
{
	PGresult *res = exec(st, id, ps, "ratings");
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

	if (p_period(st, &ps, p) || p_id(st, &ps, 5, player, STORE_ID_MAX, "player id"))
		return -1;
	if (!(r = exec(st, ST_RATING_GET, &ps, "get rating")))
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

	if (p_period(st, &ps, p) || p_id(st, &ps, 5, r->player, sizeof(r->player), "player id") ||
	    p_cut(st, &ps, 6, r->name, strnlen(r->name, sizeof(r->name)), sizeof(r->name)) ||
	    p_cut(st, &ps, 7, r->name_key, strnlen(r->name_key, sizeof(r->name_key)),
	          sizeof(r->name_key)))
		return -1;
	p_dbl(&ps, 8, r->mu);
	p_dbl(&ps, 9, r->sigma);
	p_dbl(&ps, 10, r->ordinal);
	p_i64(&ps, 11, r->games);
	p_i64(&ps, 12, r->wins);
	p_i64(&ps, 13, r->cthulhu);
	return run(st, ST_RATING_PUT, &ps, "put rating", NULL);
}

/* Writes the numbers of r into its existing row of period p. */
static int rating_update(struct store_pg *st, const struct store_period *p,
                         const struct store_rating *r)
{
	struct params ps = { 0 };
	long changed = 0;

	if (p_period(st, &ps, p) || p_id(st, &ps, 5, r->player, sizeof(r->player), "player id"))
		return -1;
	p_dbl(&ps, 6, r->mu);
	p_dbl(&ps, 7, r->sigma);
	p_dbl(&ps, 8, r->ordinal);
	p_i64(&ps, 9, r->games);
	p_i64(&ps, 10, r->wins);
	p_i64(&ps, 11, r->cthulhu);
	if (run(st, ST_RATING_UPDATE, &ps, "update rating", &changed))
		return -1;
	if (changed != 1) {
		set_err(st, "update rating of %s: no such row", r->player);
		return -1;
	}
	return 0;
}

int store_pg_rating_put(struct store_pg *st, const struct store_period *p,
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

int store_pg_ratings_top(struct store_pg *st, const struct store_period *p, int min_games,
                         int limit, store_rating_fn fn, void *ctx)
{
	struct params ps = { 0 };

	if (p_period(st, &ps, p))
		return -1;
	p_i64(&ps, 5, min_games);
	p_i64(&ps, 6, limit);
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
	if (p_period(st, &ps, p) || p_id(st, &ps, 5, player, STORE_ID_MAX, "player id") ||
	    p_id(st, &ps, 6, key1, STORE_NAME_MAX, "name key") ||
	    p_id(st, &ps, 7, key2, STORE_NAME_MAX, "name key"))
		return -1;
	p_i64(&ps, 8, min_games);
	return walk_ratings(st, ST_RATINGS_NAMED, &ps, fn, ctx);
}

int store_pg_rating_rank(struct store_pg *st, const struct store_period *p, int min_games,
                         const struct store_rating *r, int *above)
{
	int buckets = min_games <= GAMES_CAP;
	struct params ps = { 0 };
	int64_t n;

	if (p_period(st, &ps, p) || p_id(st, &ps, 8, r->player, sizeof(r->player), "player id"))
		return -1;
	p_i64(&ps, 5, min_games);
	p_dbl(&ps, 6, r->ordinal);
	p_i64(&ps, 7, r->games);
	if (buckets) {
		int64_t b = bucket_of(r->ordinal);
		p_i64(&ps, 9, b);
		p_dbl(&ps, 10, (double)(b + 1) / BUCKETS_PER_POINT);
	}
	if (one_i64(st, buckets ? ST_RATING_RANK_BUCKETS : ST_RATING_RANK, &ps, "count ratings",
	            &n))
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
	p_i64(&ps, 5, min_games);
	if (one_i64(st, min_games <= 16 ? ST_RATINGS_UNRANKED : ST_RATINGS_UNRANKED_ALL, &ps,
	            "count ratings", &v))
		return -1;
	*n = (int)v;
	return 0;
}

int store_pg_player_put(struct store_pg *st, const char *id, const char *name, const char *lang,
                        int64_t now)
{
	struct params ps = { 0 };

	if (!id || !name) {
		set_err(st, "put player: no %s", id ? "name" : "id");
		return -1;
	}
	if (!lang)
		lang = "";
	if (p_id(st, &ps, 1, id, STORE_ID_MAX, "player id") ||
	    p_cut(st, &ps, 2, name, strlen(name), STORE_NAME_MAX) ||
	    p_id(st, &ps, 3, lang, LANG_SIZE, "language"))
		return -1;
	p_i64(&ps, 4, now < 0 ? 0 : now);
	return run(st, ST_PLAYER_PUT, &ps, "put player", NULL);
}

int store_pg_player_notify_put(struct store_pg *st, const char *id, const char *name, int on,
                               int64_t now)
{
	struct params ps = { 0 };

	if (!id || !name) {
		set_err(st, "put notify: no %s", id ? "name" : "id");
		return -1;
	}
	if (p_id(st, &ps, 1, id, STORE_ID_MAX, "player id") ||
	    p_cut(st, &ps, 2, name, strlen(name), STORE_NAME_MAX))
		return -1;
	p_i64(&ps, 3, on != 0);
	p_i64(&ps, 4, now < 0 ? 0 : now);
	return run(st, ST_NOTIFY_PUT, &ps, "put notify", NULL);
}

int store_pg_player_notify(struct store_pg *st, const char *id)
{
	struct params ps = { 0 };
	PGresult *r;
	int on = 1;

	if (!id || p_id(st, &ps, 1, id, STORE_ID_MAX, "player id"))
		return 1;
	if (!(r = exec(st, ST_NOTIFY_GET, &ps, "get notify")))
		return 1;
	if (PQntuples(r) == 1)
		on = v_i64(r, 0, 0) != 0;
	PQclear(r);
	return on;
}

int store_pg_player_get(struct store_pg *st, const char *id, char name[STORE_NAME_MAX],
                        char lang[8])
{
	struct params ps = { 0 };
	PGresult *r;
	int rc = 0;

	if (!id) {
		set_err(st, "get player: no id");
		return -1;
	}
	if (p_id(st, &ps, 1, id, STORE_ID_MAX, "player id"))
		return -1;
	if (!(r = exec(st, ST_PLAYER_GET, &ps, "get player")))
		return -1;
	if (PQntuples(r) == 0) {
		set_err(st, "player %s: unknown", id);
		rc = -1;
	} else {
		if (name)
			v_text(r, 0, 0, name, STORE_NAME_MAX);
		if (lang && v_id(st, r, 0, 1, lang, LANG_SIZE, "language"))
			rc = -1;
	}
	PQclear(r);
	return rc;
}

int64_t store_pg_games_made(struct store_pg *st)
{
	int64_t made;

	return ids_lock(st) || one_i64(st, st->tx ? ST_GAMES_MADE_LOCK : ST_GAMES_MADE, NULL,
	                               "games made", &made)
	           ? -1
	           : made;
}

void store_pg_fail_after(struct store_pg *st, int writes)
{
	st->fail_after = writes < 0 ? -1 : writes;
}

int store_pg_setting_get(struct store_pg *st, const char *key, char *value, size_t cap)
{
	struct params ps = { 0 };
	PGresult *r;
	int rc = 0;

	if (p_id(st, &ps, 1, key, 64, "setting key"))
		return -1;
	if (!(r = exec(st, ST_SETTING_GET, &ps, "get setting")))
		return -1;
	if (PQntuples(r) == 0) {
		set_err(st, "setting %s: unknown", key);
		rc = -1;
	} else {
		v_text(r, 0, 0, value, cap);
	}
	PQclear(r);
	return rc;
}

int store_pg_setting_put(struct store_pg *st, const char *key, const char *value)
{
	struct params ps = { 0 };

	if (p_id(st, &ps, 1, key, 64, "setting key") ||
	    p_id(st, &ps, 2, value, 1024, "setting value"))
		return -1;
	return run(st, ST_SETTING_PUT, &ps, "put setting", NULL);
}

/* ---- migrate-store: an SQLite database copied into PostgreSQL ---- */

#define LINE_MAX_BYTES 8192 /* one row of COPY text; the widest is a setting */

/* The tables of the newest schema in the order they are copied (games
 * before the rows that refer to them), with their columns and the order
 * of their rows (events in seq order, as their trigger wants). */
static const struct {
	const char *name, *cols, *order;
} copy_tables[] = {
	{ "games",
	  "id, server, channel, game, per_player, lang, owner, state, seed, rng0, rng1, rng2, "
	  "rng3, first, moves, winner, created_at, started_at, finished_at, deadline, series_of, "
	  "note, revision, rated",
	  "id" },
	{ "members",
	  "game_id, idx, player, name, policy, strikes, autopilot, place, cthulhu, prefs",
	  "game_id, idx" },
	{ "events", "game_id, seq, at, kind, actor, value, detail", "game_id, seq" },
	{ "players", "id, name, lang, created_at, updated_at, notify", "id" },
	{ "settings", "key, value", "key" },
	{ "ratings",
	  "game, scope, span, starts, player, name, name_key, mu, sigma, ordinal, games, wins, "
	  "cthulhu",
	  "game, scope, span, starts, player" },
	{ "rating_counts", "game, scope, span, starts, bucket, games, n",
	  "game, scope, span, starts, bucket, games" },
};

#define COPY_TABLES (sizeof(copy_tables) / sizeof(copy_tables[0]))

/* Appends column c of the current row of s to line[*len] in COPY's text
 * format (\N for NULL; backslash, tab, newline and CR escaped). */
static int copy_value(sqlite3_stmt *s, int c, char *line, size_t *len)
{
	char num[40];
	const char *v = num;
	size_t n;

	switch (sqlite3_column_type(s, c)) {
	case SQLITE_NULL:
		v = "\\N";
		break;
	case SQLITE_INTEGER:
		snprintf(num, sizeof(num), "%lld", (long long)sqlite3_column_int64(s, c));
		break;
	case SQLITE_FLOAT:
		snprintf(num, sizeof(num), "%.17g", sqlite3_column_double(s, c));
		break;
	default: {
		const char *t = (const char *)sqlite3_column_text(s, c);
		n = (size_t)sqlite3_column_bytes(s, c);
		for (size_t i = 0; i < n; i++) {
			char e = t[i] == '\\'   ? '\\'
			         : t[i] == '\t' ? 't'
			         : t[i] == '\n' ? 'n'
			         : t[i] == '\r' ? 'r'
			                        : 0;
			if (*len + 3 >= LINE_MAX_BYTES)
				return -1;
			if (e) {
				line[(*len)++] = '\\';
				line[(*len)++] = e;
			} else {
				line[(*len)++] = t[i];
			}
		}
		return 0;
	}
	}
	n = strlen(v);
	if (*len + n + 2 >= LINE_MAX_BYTES)
		return -1;
	memcpy(line + *len, v, n);
	*len += n;
	return 0;
}

/* Copies table t of src into PostgreSQL with COPY; *rows gets the number
 * of rows sent. */
static int copy_table(struct store_pg *st, sqlite3 *src, size_t t, int64_t *rows)
{
	char sql[512], line[LINE_MAX_BYTES];
	sqlite3_stmt *s = NULL;
	PGresult *r;
	int rc, ok = 1;

	*rows = 0;
	snprintf(sql, sizeof(sql), "SELECT %s FROM %s ORDER BY %s", copy_tables[t].cols,
	         copy_tables[t].name, copy_tables[t].order);
	if (sqlite3_prepare_v2(src, sql, -1, &s, NULL) != SQLITE_OK) {
		set_err(st, "read %s: %s", copy_tables[t].name, sqlite3_errmsg(src));
		return -1;
	}
	/* Fixed text of our own: the table and its columns. */
	snprintf(sql, sizeof(sql), "COPY %s (%s) FROM STDIN", copy_tables[t].name,
	         copy_tables[t].cols);
	r = PQexec(st->conn, sql);
	if (!r || PQresultStatus(r) != PGRES_COPY_IN) {
		set_db_err(st, copy_tables[t].name, r);
		PQclear(r);
		sqlite3_finalize(s);
		return -1;
	}
	PQclear(r);
	while (ok && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		size_t len = 0;

		for (int c = 0; ok && c < sqlite3_column_count(s); c++) {
			if (c > 0)
				line[len++] = '\t';
			if (copy_value(s, c, line, &len)) {
				set_err(st, "%s: a row longer than %d bytes", copy_tables[t].name,
				        LINE_MAX_BYTES);
				ok = 0;
			}
		}
		line[len++] = '\n';
		if (ok && PQputCopyData(st->conn, line, (int)len) != 1) {
			set_db_err(st, copy_tables[t].name, NULL);
			ok = 0;
		}
		(*rows)++;
	}
	if (ok && rc != SQLITE_DONE) {
		set_err(st, "read %s: %s", copy_tables[t].name, sqlite3_errmsg(src));
		ok = 0;
	}
	sqlite3_finalize(s);
	if (PQputCopyEnd(st->conn, ok ? NULL : "refused") != 1 && ok) {
		set_db_err(st, copy_tables[t].name, NULL);
		ok = 0;
	}
	while ((r = PQgetResult(st->conn))) {
		if (ok && PQresultStatus(r) != PGRES_COMMAND_OK) {
			set_db_err(st, copy_tables[t].name, r);
			ok = 0;
		}
		PQclear(r);
	}
	return ok ? 0 : -1;
}

/* The integer answered by `sql` on the SQLite database src. */
static int lite_int(sqlite3 *src, const char *sql, int64_t *v)
{
	sqlite3_stmt *s = NULL;
	int rc = -1;

	if (sqlite3_prepare_v2(src, sql, -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW) {
		*v = sqlite3_column_int64(s, 0);
		rc = 0;
	}
	sqlite3_finalize(s);
	return rc;
}

/* Counts the rows of table t in PostgreSQL. */
static int pg_count(struct store_pg *st, size_t t, int64_t *n)
{
	char sql[128];
	PGresult *r;
	int ok;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", copy_tables[t].name);
	r = PQexec(st->conn, sql);
	ok = r && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
	if (ok)
		*n = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	else
		set_db_err(st, "count", r);
	PQclear(r);
	return ok ? 0 : -1;
}

/* The copy itself, in the open transaction of st. */
static int copy_all(struct store_pg *st, sqlite3 *src)
{
	struct params ps = { 0 };
	int64_t used, made, sent, here;

	if (one_i64(st, ST_COPY_USED, NULL, "check the target", &used))
		return -1;
	if (used) {
		set_err(st,
		        "the PostgreSQL database is not empty: migrate-store copies into a new, "
		        "empty database only");
		return -1;
	}
	/* The migration's own 'ratings' = 'build' gives way to the source's. */
	if (run(st, ST_COPY_SETTINGS_CLEAR, NULL, "clear settings", NULL))
		return -1;
	for (size_t t = 0; t < COPY_TABLES; t++) {
		if (copy_table(st, src, t, &sent) || pg_count(st, t, &here))
			return -1;
		if (sent != here) {
			set_err(st, "%s: %lld rows sent but %lld arrived", copy_tables[t].name,
			        (long long)sent, (long long)here);
			return -1;
		}
	}
	if (lite_int(src,
	             "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'games'), 0)",
	             &made)) {
		set_err(st, "read the game count: %s", sqlite3_errmsg(src));
		return -1;
	}
	p_i64(&ps, 1, made);
	return run(st, ST_COPY_GAMES_MADE, &ps, "game count", NULL);
}

/* Checks that every table of src has as many rows as its copy. */
static int copy_check(struct store_pg *st, sqlite3 *src)
{
	for (size_t t = 0; t < COPY_TABLES; t++) {
		char sql[128];
		int64_t there, here;

		snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", copy_tables[t].name);
		if (lite_int(src, sql, &there)) {
			set_err(st, "count %s: %s", copy_tables[t].name, sqlite3_errmsg(src));
			return -1;
		}
		if (pg_count(st, t, &here))
			return -1;
		if (there != here) {
			set_err(st, "%s: %lld rows in SQLite but %lld copied", copy_tables[t].name,
			        (long long)there, (long long)here);
			return -1;
		}
	}
	return 0;
}

int store_pg_copy_from_sqlite(const char *from, const char *to, char *err, size_t errlen)
{
	struct store_pg *st = NULL;
	sqlite3 *src = NULL;
	int64_t version = -1;
	int rc = -1;

	if (store_pg_open_version(to, store_schema_latest(), &st, err, errlen))
		return -1;
	if (sqlite3_open_v2(from, &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		set_err(st, "%s: %s", from, src ? sqlite3_errmsg(src) : "out of memory");
		goto out;
	}
	sqlite3_busy_timeout(src, 5000);
	if (lite_int(src, "PRAGMA user_version", &version) || version != store_schema_latest()) {
		set_err(st, "%s: schema version %lld, not this rlyeh's %d", from,
		        (long long)version, store_schema_latest());
		goto out;
	}
	/* One read transaction on the source, one write transaction here. */
	if (sqlite3_exec(src, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
	    lite_int(src, "SELECT count(*) FROM games", &version)) {
		set_err(st, "%s: %s", from, sqlite3_errmsg(src));
		goto out;
	}
	if (store_pg_begin(st))
		goto out;
	if (copy_all(st, src) || copy_check(st, src) || store_pg_commit(st)) {
		store_pg_rollback(st);
		goto out;
	}
	rc = 0;
out:
	if (rc && errlen)
		snprintf(err, errlen, "%s", st->err);
	sqlite3_close(src);
	store_pg_close(st);
	return rc;
}

/* ---- shards: advisory locks and epochs ---- */

/* The first key of shard locks: "rl" and the count. */
#define SHARD_KEY 0x726c0000L

static void p_shard(struct params *ps, int count, int shard)
{
	p_i64(ps, 1, SHARD_KEY | (count & 0xffff));
	p_i64(ps, 2, shard);
}

int store_pg_shard_lock(struct store_pg *st, int count, int shard)
{
	struct params ps = { 0 };
	int64_t v;

	p_shard(&ps, count, shard);
	return one_i64(st, ST_SHARD_LOCK, &ps, "lock shard", &v) ? -1 : v == 1;
}

int store_pg_shard_locked(struct store_pg *st, int count, int shard)
{
	struct params ps = { 0 };
	int64_t v;

	/* A lost connection has lost its locks: not opened again here. */
	if (PQstatus(st->conn) != CONNECTION_OK)
		return 0;
	p_shard(&ps, count, shard);
	if (one_i64(st, ST_SHARD_LOCKED, &ps, "ask shard lock", &v))
		return PQstatus(st->conn) == CONNECTION_OK ? -1 : 0;
	return v > 0;
}

int store_pg_shard_others(struct store_pg *st, int count)
{
	struct params ps = { 0 };
	int64_t v;

	p_i64(&ps, 1, SHARD_KEY | (count & 0xffff));
	if (one_i64(st, ST_SHARD_OTHERS, &ps, "ask other shard counts", &v))
		return -1;
	return v > 0x7fffffff ? 0x7fffffff : (int)v;
}

int store_pg_shard_unlock(struct store_pg *st, int count, int shard)
{
	struct params ps = { 0 };
	PGresult *r;

	if (PQstatus(st->conn) != CONNECTION_OK)
		return 0;
	p_shard(&ps, count, shard);
	if (!(r = exec(st, ST_SHARD_UNLOCK, &ps, "unlock shard")))
		return -1;
	PQclear(r);
	return 0;
}

/* $1 count, $2 shard as stored (not the lock's key). */
static void p_row(struct params *ps, int count, int shard)
{
	p_i64(ps, 1, count);
	p_i64(ps, 2, shard);
}

int store_pg_shard_claim(struct store_pg *st, int count, int shard, const char *owner, int64_t now,
                         int64_t *epoch)
{
	struct params ps = { 0 };

	p_row(&ps, count, shard);
	if (p_id(st, &ps, 3, owner, STORE_ID_MAX, "shard owner"))
		return -1;
	p_i64(&ps, 4, now < 0 ? 0 : now);
	return one_i64(st, ST_SHARD_CLAIM, &ps, "claim shard", epoch);
}

int store_pg_shard_fence(struct store_pg *st, int count, int shard, int64_t epoch)
{
	struct params ps = { 0 };
	PGresult *r;
	int rc;

	if (epoch == 0)
		return 1;
	p_row(&ps, count, shard);
	if (!(r = exec(st, ST_SHARD_FENCE, &ps, "fence shard")))
		return -1;
	rc = PQntuples(r) == 1 && v_i64(r, 0, 0) == epoch;
	PQclear(r);
	return rc;
}

int store_pg_shard_session_put(struct store_pg *st, int count, int shard, int64_t epoch,
                               const struct store_shard_session *ss)
{
	struct params ps = { 0 };
	long changed = 0;

	p_row(&ps, count, shard);
	if (p_id(st, &ps, 3, ss->session_id, STORE_SESSION_MAX, "session id") ||
	    p_id(st, &ps, 5, ss->resume_url, STORE_URL_MAX, "resume url"))
		return -1;
	p_i64(&ps, 4, ss->seq < 0 ? 0 : ss->seq);
	p_i64(&ps, 6, ss->saved_at < 0 ? 0 : ss->saved_at);
	p_i64(&ps, 7, epoch);
	if (run(st, ST_SHARD_SESSION_PUT, &ps, "save shard session", &changed))
		return -1;
	return changed == 0;
}

int store_pg_shard_session_get(struct store_pg *st, int count, int shard,
                               struct store_shard_session *out)
{
	struct params ps = { 0 };
	PGresult *r;
	int found = 0;

	memset(out, 0, sizeof(*out));
	p_row(&ps, count, shard);
	if (!(r = exec(st, ST_SHARD_SESSION_GET, &ps, "read shard session")))
		return -1;
	if (PQntuples(r) == 1) {
		v_text(r, 0, 0, out->session_id, sizeof(out->session_id));
		out->seq = v_i64(r, 0, 1);
		v_text(r, 0, 2, out->resume_url, sizeof(out->resume_url));
		out->saved_at = v_i64(r, 0, 3);
		found = out->session_id[0] != '\0';
	}
	PQclear(r);
	return found;
}

int store_pg_interaction_mark(struct store_pg *st, const char *id, int64_t now)
{
	struct params ps = { 0 };
	long changed = 0;

	if (p_id(st, &ps, 1, id, STORE_ID_MAX, "interaction id"))
		return -1;
	p_i64(&ps, 2, now < 0 ? 0 : now);
	if (run(st, ST_INTERACTION_MARK, &ps, "record interaction", &changed))
		return -1;
	return changed == 1;
}

int store_pg_interactions_forget(struct store_pg *st, int64_t before)
{
	struct params ps = { 0 };

	p_i64(&ps, 1, before);
	return run(st, ST_INTERACTIONS_FORGET, &ps, "forget interactions", NULL);
}

int store_pg_channel_finished(struct store_pg *st, const char *game, const char *server,
                              const char *channel, int64_t *id)
{
	struct params ps = { 0 };
	PGresult *r;

	*id = 0;
	if (p_id(st, &ps, 1, game, STORE_KIND_MAX, "game") ||
	    p_id(st, &ps, 2, server, STORE_ID_MAX, "server id") ||
	    p_id(st, &ps, 3, channel, STORE_ID_MAX, "channel id"))
		return -1;
	if (!(r = exec(st, ST_CHANNEL_FINISHED, &ps, "find the channel's finished game")))
		return -1;
	if (PQntuples(r) == 1)
		*id = v_i64(r, 0, 0);
	PQclear(r);
	return 0;
}
