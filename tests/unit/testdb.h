/* testdb: the database a store test runs against, SQLite or PostgreSQL.
 *
 * Without RLYEH_TEST_DATABASE the tests use SQLite files, as always. With
 * it set to a PostgreSQL URI (tests/pg/with_cluster.sh sets it to its
 * throwaway cluster), each fresh database is a new PostgreSQL database on
 * that server, and the looks into the database go there. A test of
 * something only SQLite has calls TESTDB_SQLITE_ONLY(), which skips it
 * visibly on PostgreSQL. */
#ifndef RLYEH_TESTDB_H
#define RLYEH_TESTDB_H

#include <stddef.h>
#include <stdint.h>

#define TESTDB_MAX 256 /* bytes of a database name, path or URI, incl. NUL */

/* 1 when the tests run against PostgreSQL. */
int testdb_pg(void);

/* Writes into out (TESTDB_MAX bytes) a new, empty database: the path
 * dir/file for SQLite (dir exists; the file does not yet), or the URI of
 * a new PostgreSQL database. Fails the test when it cannot. */
void testdb_fresh(char *out, const char *dir, const char *file);

/* The integer answered by `sql` (one row, one column, no parameters) on
 * database db (a path or a URI); fails the test on an error. */
int64_t testdb_int(const char *db, const char *sql);

/* Runs `sql` (no parameters, no rows wanted) on db; fails the test on an
 * error. */
void testdb_exec(const char *db, const char *sql);

/* Every row answered by `sql` on db as text, a line per row with each
 * value followed by '|' (NULL as "NULL"), in a string the caller frees.
 * Fails the test on an error. */
char *testdb_rows(const char *db, const char *sql);

/* As testdb_exec, but answers 0 when sql ran and -1 when the database
 * refused it. */
int testdb_try(const char *db, const char *sql);

/* Skips the calling test on PostgreSQL, saying so (cmocka's skip). */
void testdb_sqlite_only(const char *test);
#define TESTDB_SQLITE_ONLY() testdb_sqlite_only(__func__)

/* A temporary folder holding a fresh database (testdb_fresh's "rlyeh.db"),
 * for a test's setup: testdb_tmp_new makes the folder from `pattern` (a
 * mkdtemp pattern, under 64 bytes) and returns NULL when it cannot;
 * testdb_tmp_free removes the SQLite files, the folder, and t. */
struct testdb_tmp {
	char dir[64];
	char path[TESTDB_MAX];
};
struct testdb_tmp *testdb_tmp_new(const char *pattern);
void testdb_tmp_free(struct testdb_tmp *t);

/* Asks `sql` (as testdb_int) on db every 50 ms, for up to 5 s, until it
 * answers at most `most`; returns the last answer. For the server's side
 * of an ended connection, which a loaded machine may take a while to end. */
int64_t testdb_wait_at_most(const char *db, const char *sql, int64_t most);

#endif
