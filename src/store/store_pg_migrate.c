/* The PostgreSQL store: migrate-store, an SQLite database copied in. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "rlyeh/store.h"
#include "store_pg.h"

#include "store_pg_int.h"

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
		store_pg_set_err(st, "read %s: %s", copy_tables[t].name, sqlite3_errmsg(src));
		return -1;
	}
	/* Fixed text of our own: the table and its columns. */
	snprintf(sql, sizeof(sql), "COPY %s (%s) FROM STDIN", copy_tables[t].name,
	         copy_tables[t].cols);
	r = PQexec(st->conn, sql);
	if (!r || PQresultStatus(r) != PGRES_COPY_IN) {
		store_pg_set_db_err(st, copy_tables[t].name, r);
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
				store_pg_set_err(st, "%s: a row longer than %d bytes",
				                 copy_tables[t].name, LINE_MAX_BYTES);
				ok = 0;
			}
		}
		line[len++] = '\n';
		if (ok && PQputCopyData(st->conn, line, (int)len) != 1) {
			store_pg_set_db_err(st, copy_tables[t].name, NULL);
			ok = 0;
		}
		(*rows)++;
	}
	if (ok && rc != SQLITE_DONE) {
		store_pg_set_err(st, "read %s: %s", copy_tables[t].name, sqlite3_errmsg(src));
		ok = 0;
	}
	sqlite3_finalize(s);
	if (PQputCopyEnd(st->conn, ok ? NULL : "refused") != 1 && ok) {
		store_pg_set_db_err(st, copy_tables[t].name, NULL);
		ok = 0;
	}
	while ((r = PQgetResult(st->conn))) {
		if (ok && PQresultStatus(r) != PGRES_COMMAND_OK) {
			store_pg_set_db_err(st, copy_tables[t].name, r);
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
		store_pg_set_db_err(st, "count", r);
	PQclear(r);
	return ok ? 0 : -1;
}

/* The copy itself, in the open transaction of st. */
static int copy_all(struct store_pg *st, sqlite3 *src)
{
	struct params ps = { 0 };
	int64_t used, made, sent, here;

	if (store_pg_one_i64(st, ST_COPY_USED, NULL, "check the target", &used))
		return -1;
	if (used) {
		store_pg_set_err(
		    st, "the PostgreSQL database is not empty: migrate-store copies into a new, "
		        "empty database only");
		return -1;
	}
	/* The migration's own 'ratings' = 'build' gives way to the source's. */
	if (store_pg_run(st, ST_COPY_SETTINGS_CLEAR, NULL, "clear settings", NULL))
		return -1;
	for (size_t t = 0; t < COPY_TABLES; t++) {
		if (copy_table(st, src, t, &sent) || pg_count(st, t, &here))
			return -1;
		if (sent != here) {
			store_pg_set_err(st, "%s: %lld rows sent but %lld arrived",
			                 copy_tables[t].name, (long long)sent, (long long)here);
			return -1;
		}
	}
	if (lite_int(src,
	             "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'games'), 0)",
	             &made)) {
		store_pg_set_err(st, "read the game count: %s", sqlite3_errmsg(src));
		return -1;
	}
	store_pg_p_i64(&ps, 1, made);
	return store_pg_run(st, ST_COPY_GAMES_MADE, &ps, "game count", NULL);
}

/* Checks that every table of src has as many rows as its copy. */
static int copy_check(struct store_pg *st, sqlite3 *src)
{
	for (size_t t = 0; t < COPY_TABLES; t++) {
		char sql[128];
		int64_t there, here;

		snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", copy_tables[t].name);
		if (lite_int(src, sql, &there)) {
			store_pg_set_err(st, "count %s: %s", copy_tables[t].name,
			                 sqlite3_errmsg(src));
			return -1;
		}
		if (pg_count(st, t, &here))
			return -1;
		if (there != here) {
			store_pg_set_err(st, "%s: %lld rows in SQLite but %lld copied",
			                 copy_tables[t].name, (long long)there, (long long)here);
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
		store_pg_set_err(st, "%s: %s", from, src ? sqlite3_errmsg(src) : "out of memory");
		goto out;
	}
	sqlite3_busy_timeout(src, 5000);
	if (lite_int(src, "PRAGMA user_version", &version) || version != store_schema_latest()) {
		store_pg_set_err(st, "%s: schema version %lld, not this rlyeh's %d", from,
		                 (long long)version, store_schema_latest());
		goto out;
	}
	/* One read transaction on the source, one write transaction here. */
	if (sqlite3_exec(src, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
	    lite_int(src, "SELECT count(*) FROM games", &version)) {
		store_pg_set_err(st, "%s: %s", from, sqlite3_errmsg(src));
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
