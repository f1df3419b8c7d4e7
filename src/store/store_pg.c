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

#include "store_int.h"
#include "store_pg_int.h"

#define RATING_COLS  "player, name, name_key, mu, sigma, ordinal, games, wins, cthulhu"
#define RATING_WHERE "game = $1 AND scope = $2 AND span = $3 AND starts = $4"
#define GAME_COLS                                                                                  \
	"server, channel, game, per_player, lang, owner, state, seed, rng0, rng1, rng2, rng3, "    \
	"first, moves, winner, created_at, started_at, finished_at, deadline, series_of, note, "   \
	"revision"

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
	/* A game's end: its rows as arrays, one element a row. */
	[ST_RATINGS_READ] = { "SELECT r.player, r.name, r.name_key, r.mu, r.sigma, r.ordinal, "
	                      "r.games, r.wins, r.cthulhu, d.i FROM unnest($1::bigint[], "
	                      "$2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[]) "
	                      "AS d (i, game, scope, span, starts, player) JOIN ratings r ON "
	                      "r.game = d.game AND r.scope = d.scope AND r.span = d.span AND "
	                      "r.starts = d.starts AND r.player = d.player",
	                      0 },
	/* Names as they were: ratings_name stays as it is. */
	[ST_RATINGS_WRITE] = { "INSERT INTO ratings (game, scope, span, starts, " RATING_COLS ") "
	                       "SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], "
	                       "$4::bigint[], $5::text[], $6::text[], $7::text[], $8::float8[], "
	                       "$9::float8[], $10::float8[], $11::bigint[], $12::bigint[], "
	                       "$13::bigint[]) "
	                       "ON CONFLICT (game, scope, span, starts, player) DO UPDATE SET "
	                       "mu = excluded.mu, sigma = excluded.sigma, ordinal = "
	                       "excluded.ordinal, "
	                       "games = excluded.games, wins = excluded.wins, "
	                       "cthulhu = excluded.cthulhu",
	                       1 },
	[ST_RATINGS_UNCOUNT] = { "UPDATE rating_counts c SET n = c.n - d.k FROM (SELECT game, "
	                         "scope, "
	                         "span, starts, bucket, games, count(*) AS k FROM unnest("
	                         "$1::text[], $2::text[], $3::bigint[], $4::bigint[], "
	                         "$5::bigint[], "
	                         "$6::bigint[]) AS u (game, scope, span, starts, bucket, games) "
	                         "GROUP BY 1, 2, 3, 4, 5, 6) d WHERE c.game = d.game AND "
	                         "c.scope = d.scope AND c.span = d.span AND c.starts = d.starts "
	                         "AND "
	                         "c.bucket = d.bucket AND c.games = d.games",
	                         1 },
	[ST_RATINGS_COUNT] = { "INSERT INTO rating_counts (game, scope, span, starts, bucket, "
	                       "games, "
	                       "n) SELECT game, scope, span, starts, bucket, games, count(*) FROM "
	                       "unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], "
	                       "$5::bigint[], $6::bigint[]) AS u (game, scope, span, starts, "
	                       "bucket, "
	                       "games) GROUP BY 1, 2, 3, 4, 5, 6 "
	                       "ON CONFLICT (game, scope, span, starts, bucket, games) "
	                       "DO UPDATE SET n = rating_counts.n + excluded.n",
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

void store_pg_set_err(struct store_pg *st, const char *fmt, ...)
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
void store_pg_set_db_err(struct store_pg *st, const char *what, const PGresult *r)
{
	const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	const char *constraint = r ? PQresultErrorField(r, PG_DIAG_CONSTRAINT_NAME) : NULL;
	char msg[200];

	server_text(r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL, msg, sizeof(msg));
	if (!msg[0])
		server_text(PQerrorMessage(st->conn), msg, sizeof(msg));
	if (state && strcmp(state, "23505") == 0 && constraint &&
	    strcmp(constraint, "games_open_channel") == 0)
		store_pg_set_err(st, "%s: the channel already has a game in the lobby or playing",
		                 what);
	else if (state && strcmp(state, "23503") == 0)
		store_pg_set_err(st, "%s: the game it refers to does not exist", what);
	else
		store_pg_set_err(st, "%s: %s", what, msg);
}

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

uint64_t store_pg_u64_from_db(int64_t v)
{
	return (uint64_t)v;
}

/* The int64 with the same two's complement bits as v, without relying on
 * implementation-defined conversions. */
int64_t store_pg_u64_to_db(uint64_t v)
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

/* Counts $i as used; an index past PARAMS_MAX is a bug in this file. */
void store_pg_p_use(struct params *ps, int i)
{
	if (i < 1 || i > PARAMS_MAX)
		abort();
	if (i > ps->n)
		ps->n = i;
}

/* Sets $i to v, refused (not cut) when it has max bytes or more. */
int store_pg_p_id(struct store_pg *st, struct params *ps, int i, const char *v, size_t max,
                  const char *what)
{
	size_t n = strnlen(v, max);

	store_pg_p_use(ps, i);
	if (n >= max) {
		store_pg_set_err(st, "%s is longer than %zu bytes", what, max - 1);
		return -1;
	}
	ps->v[i - 1] = v;
	return 0;
}

/* Sets $i to display text v[0..len), cut to size - 1 bytes at a UTF-8
 * boundary. */
int store_pg_p_cut(struct store_pg *st, struct params *ps, int i, const char *v, size_t len,
                   size_t size)
{
	size_t n = store_utf8_cut(v, len, size - 1);

	store_pg_p_use(ps, i);
	if (ps->used + n + 1 > sizeof(ps->pool)) {
		store_pg_set_err(st, "parameters too long");
		return -1;
	}
	memcpy(ps->pool + ps->used, v, n);
	ps->pool[ps->used + n] = '\0';
	ps->v[i - 1] = ps->pool + ps->used;
	ps->used += n + 1;
	return 0;
}

void store_pg_p_i64(struct params *ps, int i, int64_t v)
{
	store_pg_p_use(ps, i);
	snprintf(ps->num[i - 1], sizeof(ps->num[i - 1]), "%lld", (long long)v);
	ps->v[i - 1] = ps->num[i - 1];
}

void store_pg_p_dbl(struct params *ps, int i, double v)
{
	store_pg_p_use(ps, i);
	snprintf(ps->num[i - 1], sizeof(ps->num[i - 1]), "%.17g", v);
	ps->v[i - 1] = ps->num[i - 1];
}

int64_t store_pg_v_i64(const PGresult *r, int row, int col)
{
	return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

int store_pg_v_int(const PGresult *r, int row, int col)
{
	return (int)store_pg_v_i64(r, row, col);
}

double store_pg_v_dbl(const PGresult *r, int row, int col)
{
	return strtod(PQgetvalue(r, row, col), NULL);
}

/* Reads an id column into dst; refused (not cut) when it does not fit. */
int store_pg_v_id(struct store_pg *st, const PGresult *r, int row, int col, char *dst, size_t size,
                  const char *what)
{
	size_t n = (size_t)PQgetlength(r, row, col);

	if (n >= size) {
		store_pg_set_err(st, "stored %s is longer than %zu bytes", what, size - 1);
		return -1;
	}
	memcpy(dst, PQgetvalue(r, row, col), n);
	dst[n] = '\0';
	return 0;
}

/* Reads a text column into dst, cut at a UTF-8 boundary to fit. */
void store_pg_v_text(const PGresult *r, int row, int col, char *dst, size_t size)
{
	copy_text(dst, size, PQgetvalue(r, row, col), (size_t)PQgetlength(r, row, col));
}

/* Runs a fixed command without parameters (transaction control; rows
 * answered are dropped). 0, or -1 with the error set. */
int store_pg_command(struct store_pg *st, const char *sql, const char *what)
{
	PGresult *r = PQexec(st->conn, sql);
	int ok =
	    r && (PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK);

	if (!ok)
		store_pg_set_db_err(st, what, r);
	PQclear(r);
	return ok ? 0 : -1;
}

/* Prepares statement `id` on first use. */
int store_pg_prepare(struct store_pg *st, enum stmt_id id)
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
		store_pg_set_db_err(st, "prepare", r);
	PQclear(r);
	st->prepared[id] = (unsigned char)ok;
	return ok ? 0 : -1;
}

int store_pg_in_tx(struct store_pg *st)
{
	return st->tx;
}

/* Reconnects when the server has closed the connection (a restart, a
 * failover), outside a transaction only: inside one, its writes are lost,
 * which the caller must learn (it rolls back). The statements are prepared
 * anew on the new connection. 0 when the connection is usable. */
int store_pg_alive(struct store_pg *st)
{
	char msg[200];

	if (PQstatus(st->conn) == CONNECTION_OK)
		return 0;
	if (st->tx) {
		store_pg_set_err(st, "the connection to PostgreSQL was lost in a transaction");
		return -1;
	}
	PQreset(st->conn);
	if (PQstatus(st->conn) != CONNECTION_OK) {
		server_text(PQerrorMessage(st->conn), msg, sizeof(msg));
		store_pg_set_err(st, "cannot reconnect to PostgreSQL: %s", msg);
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
	if (store_pg_prepare(st, id))
		return NULL;
	*sent = 1;
	snprintf(name, sizeof(name), "s%d", (int)id);
	if (stmt_defs[id].write && store_pg_in_tx(st))
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
PGresult *store_pg_exec(struct store_pg *st, enum stmt_id id, const struct params *ps,
                        const char *what)
{
	PGresult *r;
	int write = stmt_defs[id].write, status, sent;

	if (write && st->fail_after == 0) {
		store_pg_set_err(st, "%s: disk full (injected)", what);
		return NULL;
	}
	if (store_pg_alive(st))
		return NULL;
	r = attempt(st, id, ps, &sent);
	status = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
	if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && !store_pg_in_tx(st) &&
	    (!write || !sent) && PQstatus(st->conn) == CONNECTION_BAD && !store_pg_alive(st)) {
		PQclear(r);
		r = attempt(st, id, ps, &sent);
		status = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
	}
	if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
		store_pg_set_db_err(st, what, r);
		PQclear(r);
		return NULL;
	}
	if (write && st->fail_after > 0)
		st->fail_after--;
	return r;
}

/* exec for a statement whose rows are not wanted: 0 or -1; *changed (when
 * not NULL) gets the number of rows written. */
int store_pg_run(struct store_pg *st, enum stmt_id id, const struct params *ps, const char *what,
                 long *changed)
{
	PGresult *r = store_pg_exec(st, id, ps, what);

	if (!r)
		return -1;
	if (changed)
		*changed = strtol(PQcmdTuples(r), NULL, 10);
	PQclear(r);
	return 0;
}

/* Runs a query answering one number into *out. */
int store_pg_one_i64(struct store_pg *st, enum stmt_id id, const struct params *ps,
                     const char *what, int64_t *out)
{
	PGresult *r = store_pg_exec(st, id, ps, what);

	if (!r)
		return -1;
	if (PQntuples(r) != 1 || PQgetisnull(r, 0, 0)) {
		store_pg_set_err(st, "%s: no answer", what);
		PQclear(r);
		return -1;
	}
	*out = store_pg_v_i64(r, 0, 0);
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

	if (store_pg_one_i64(st, ST_VERSION_GET, NULL, "read schema version", &v))
		return -1;
	*version = (int)v;
	return 0;
}

/* Takes the migration lock of this transaction: two processes opening the
 * same database migrate one after the other. */
static int migration_lock(struct store_pg *st)
{
	return store_pg_command(st, "SELECT pg_advisory_xact_lock(x'" MIGRATE_KEY "'::int)",
	                        "lock");
}

/* Makes the schema_version table (version 0) unless it is there. */
static int version_table(struct store_pg *st)
{
	if (store_pg_command(st, "BEGIN", "begin migration") || migration_lock(st) ||
	    store_pg_command(
	        st,
	        "CREATE TABLE IF NOT EXISTS schema_version (one BOOLEAN NOT NULL PRIMARY KEY "
	        "DEFAULT TRUE CHECK (one), version BIGINT NOT NULL CHECK (version >= 0)); "
	        "INSERT INTO schema_version (version) VALUES (0) ON CONFLICT DO NOTHING",
	        "schema version") ||
	    store_pg_command(st, "COMMIT", "commit migration")) {
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

	if (store_pg_command(st, "BEGIN", "begin migration") || migration_lock(st) ||
	    read_version(st, &current))
		goto fail;
	if (current < version) {
		/* Our own SQL, without parameters: several statements in one. */
		r = PQexec(st->conn, store_pg_migrations[version - 1]);
		if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
			char what[64];
			snprintf(what, sizeof(what), "migration %s",
			         store_pg_migration_names[version - 1]);
			store_pg_set_db_err(st, what, r);
			PQclear(r);
			goto fail;
		}
		PQclear(r);
		store_pg_p_i64(&ps, 1, version);
		if (store_pg_run(st, ST_VERSION_SET, &ps, "set schema version", NULL))
			goto fail;
	}
	if (store_pg_command(st, "COMMIT", "commit migration"))
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
		store_pg_set_err(st, "this rlyeh has %d SQLite migrations but %d PostgreSQL ones",
		                 latest, pg_latest);
		return -1;
	}
	if (version_table(st) || read_version(st, &current))
		return -1;
	if (current > latest) {
		store_pg_set_err(
		    st,
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
		store_pg_set_err(st, "cannot connect to PostgreSQL: %s", msg);
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
	if (store_pg_in_tx(st)) {
		store_pg_set_err(st, "begin: a transaction is already open");
		return -1;
	}
	if (store_pg_alive(st) || store_pg_command(st, "BEGIN", "begin"))
		return -1;
	st->tx = 1;
	return 0;
}

int store_pg_commit(struct store_pg *st)
{
	PGresult *r;
	int ok;

	if (st->fail_after == 0) {
		store_pg_set_err(st, "commit: disk full (injected)");
		return -1;
	}
	if (PQtransactionStatus(st->conn) == PQTRANS_INERROR) {
		store_pg_set_err(st, "commit: the transaction failed; roll it back");
		return -1;
	}
	r = PQexec(st->conn, "COMMIT");
	ok = r && PQresultStatus(r) == PGRES_COMMAND_OK && strcmp(PQcmdStatus(r), "COMMIT") == 0;
	if (!ok)
		store_pg_set_db_err(st, "commit", r);
	PQclear(r);
	if (ok && st->fail_after > 0)
		st->fail_after--;
	if (ok)
		st->tx = 0;
	return ok ? 0 : -1;
}

void store_pg_rollback(struct store_pg *st)
{
	if (!store_pg_in_tx(st))
		return;
	if (PQstatus(st->conn) == CONNECTION_OK)
		PQclear(PQexec(st->conn, "ROLLBACK"));
	st->tx = 0;
}

int store_pg_in_transaction(struct store_pg *st)
{
	return store_pg_in_tx(st);
}

int store_pg_mark(struct store_pg *st)
{
	if (!store_pg_in_tx(st)) {
		store_pg_set_err(st, "mark: no transaction is open");
		return -1;
	}
	return store_pg_command(st, "SAVEPOINT store_mark", "mark");
}

int store_pg_mark_keep(struct store_pg *st)
{
	return store_pg_command(st, "RELEASE store_mark", "mark");
}

void store_pg_mark_undo(struct store_pg *st)
{
	if (!store_pg_in_tx(st))
		return;
	PQclear(PQexec(st->conn, "ROLLBACK TO store_mark"));
	PQclear(PQexec(st->conn, "RELEASE store_mark"));
}

void store_pg_fail_after(struct store_pg *st, int writes)
{
	st->fail_after = writes < 0 ? -1 : writes;
}
