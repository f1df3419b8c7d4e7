/* testdb: SQLite files or fresh PostgreSQL databases for the store tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testdb.h"

static const char *server(void)
{
	const char *e = getenv("RLYEH_TEST_DATABASE");

	return e && *e ? e : NULL;
}

int testdb_pg(void)
{
	return server() != NULL;
}

static int is_uri(const char *db)
{
	return strncmp(db, "postgresql://", 13) == 0 || strncmp(db, "postgres://", 11) == 0;
}

/* A connection to db; fails the test when there is none. */
static PGconn *pg_connect(const char *db)
{
	PGconn *c = PQconnectdb(db);

	if (!c || PQstatus(c) != CONNECTION_OK)
		fail_msg("PostgreSQL %s: %s", db, c ? PQerrorMessage(c) : "out of memory");
	return c;
}

/* Runs sql on c, expecting `status`; returns the result. */
static PGresult *pg_run(PGconn *c, const char *sql, ExecStatusType status)
{
	PGresult *r = PQexec(c, sql);

	if (!r || PQresultStatus(r) != status)
		fail_msg("%s: %s", sql, PQerrorMessage(c));
	return r;
}

void testdb_fresh(char *out, const char *dir, const char *file)
{
	static int made;
	const char *uri = server(), *query;
	char name[64], sql[128];
	PGconn *c;

	if (!uri) {
		if (snprintf(out, TESTDB_MAX, "%s/%s", dir, file) >= TESTDB_MAX)
			fail_msg("database path too long: %s/%s", dir, file);
		return;
	}
	/* Names are ours: the process id and a count. */
	snprintf(name, sizeof(name), "t%ld_%d", (long)getpid(), ++made);
	snprintf(sql, sizeof(sql), "CREATE DATABASE %s", name);
	c = pg_connect(uri);
	PQclear(pg_run(c, sql, PGRES_COMMAND_OK));
	PQfinish(c);
	query = strchr(uri, '?');
	if (snprintf(out, TESTDB_MAX, "postgresql:///%s%s", name, query ? query : "") >= TESTDB_MAX)
		fail_msg("database URI too long");
}

int64_t testdb_int(const char *db, const char *sql)
{
	int64_t v;

	if (is_uri(db)) {
		PGconn *c = pg_connect(db);
		PGresult *r = pg_run(c, sql, PGRES_TUPLES_OK);

		if (PQntuples(r) != 1 || PQgetisnull(r, 0, 0))
			fail_msg("%s: not one value", sql);
		/* a boolean reads as 1 or 0, as SQLite answers */
		if (strcmp(PQgetvalue(r, 0, 0), "t") == 0)
			v = 1;
		else if (strcmp(PQgetvalue(r, 0, 0), "f") == 0)
			v = 0;
		else
			v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
		PQclear(r);
		PQfinish(c);
	} else {
		sqlite3 *d = NULL;
		sqlite3_stmt *s;

		if (sqlite3_open_v2(db, &d, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
			fail_msg("%s: %s", db, d ? sqlite3_errmsg(d) : "out of memory");
		sqlite3_busy_timeout(d, 2000);
		if (sqlite3_prepare_v2(d, sql, -1, &s, NULL))
			fail_msg("%s: %s", sql, sqlite3_errmsg(d));
		if (sqlite3_step(s) != SQLITE_ROW)
			fail_msg("%s: no row", sql);
		v = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
		sqlite3_close(d);
	}
	return v;
}

int testdb_try(const char *db, const char *sql)
{
	int rc;

	if (is_uri(db)) {
		PGconn *c = pg_connect(db);
		PGresult *r = PQexec(c, sql);

		rc = r && PQresultStatus(r) == PGRES_COMMAND_OK ? 0 : -1;
		PQclear(r);
		PQfinish(c);
	} else {
		sqlite3 *d = NULL;

		if (sqlite3_open_v2(db, &d, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
			fail_msg("%s: %s", db, d ? sqlite3_errmsg(d) : "out of memory");
		sqlite3_busy_timeout(d, 2000);
		rc = sqlite3_exec(d, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
		sqlite3_close(d);
	}
	return rc;
}

void testdb_exec(const char *db, const char *sql)
{
	if (testdb_try(db, sql))
		fail_msg("%s: refused", sql);
}

void testdb_sqlite_only(const char *test)
{
	if (!testdb_pg())
		return;
	print_message("[  SKIP    ] %s: SQLite only, not run on PostgreSQL\n", test);
	skip();
}

/* Appends v and '|' to the growing text *buf (length *len, capacity *cap). */
static void append(char **buf, size_t *len, size_t *cap, const char *v)
{
	size_t n = strlen(v);

	if (*len + n + 3 > *cap) {
		*cap = (*len + n + 3) * 2;
		*buf = realloc(*buf, *cap);
		if (!*buf)
			fail_msg("out of memory");
	}
	memcpy(*buf + *len, v, n);
	*len += n;
	(*buf)[(*len)++] = '|';
	(*buf)[*len] = '\0';
}

/* Ends a row; append left room for it. */
static void newline(char **buf, size_t *len)
{
	(*buf)[(*len)++] = '\n';
	(*buf)[*len] = '\0';
}

char *testdb_rows(const char *db, const char *sql)
{
	size_t cap = 4096, len = 0;
	char *buf = calloc(1, cap);

	if (!buf)
		fail_msg("out of memory");
	if (is_uri(db)) {
		PGconn *c = pg_connect(db);
		PGresult *r = pg_run(c, sql, PGRES_TUPLES_OK);

		for (int row = 0; row < PQntuples(r); row++) {
			for (int col = 0; col < PQnfields(r); col++)
				append(&buf, &len, &cap,
				       PQgetisnull(r, row, col) ? "NULL" : PQgetvalue(r, row, col));
			newline(&buf, &len);
		}
		PQclear(r);
		PQfinish(c);
	} else {
		sqlite3 *d = NULL;
		sqlite3_stmt *s;

		if (sqlite3_open_v2(db, &d, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
			fail_msg("%s: %s", db, d ? sqlite3_errmsg(d) : "out of memory");
		if (sqlite3_prepare_v2(d, sql, -1, &s, NULL))
			fail_msg("%s: %s", sql, sqlite3_errmsg(d));
		while (sqlite3_step(s) == SQLITE_ROW) {
			for (int col = 0; col < sqlite3_column_count(s); col++) {
				const unsigned char *v = sqlite3_column_text(s, col);
				append(&buf, &len, &cap, v ? (const char *)v : "NULL");
			}
			newline(&buf, &len);
		}
		sqlite3_finalize(s);
		sqlite3_close(d);
	}
	return buf;
}

struct testdb_tmp *testdb_tmp_new(const char *pattern)
{
	struct testdb_tmp *t = calloc(1, sizeof(*t));

	if (!t || strlen(pattern) >= sizeof(t->dir)) {
		free(t);
		return NULL;
	}
	memcpy(t->dir, pattern, strlen(pattern) + 1);
	if (!mkdtemp(t->dir)) {
		free(t);
		return NULL;
	}
	testdb_fresh(t->path, t->dir, "rlyeh.db");
	return t;
}

void testdb_tmp_free(struct testdb_tmp *t)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	char file[TESTDB_MAX + 16];

	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(file, sizeof(file), "%s%s", t->path, suffix[i]);
		unlink(file);
	}
	rmdir(t->dir);
	free(t);
}

int64_t testdb_wait_at_most(const char *db, const char *sql, int64_t most)
{
	int64_t v = testdb_int(db, sql);

	for (int i = 0; i < 100 && v > most; i++) {
		nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
		v = testdb_int(db, sql);
	}
	return v;
}
