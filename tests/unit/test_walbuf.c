/* walbuf: a commit reaches the write-ahead log in one write, and every
 * commit is in the file when COMMIT returns.
 *
 * Under the VFS sits a counting one (vfsshim over the default, made the
 * default here), which sees the writes that really reach the files: their
 * number for the WAL, and a write that fails on request. What is checked
 * is what the files hold, read by a second connection that does not go
 * through walbuf, or by a new process after the writer died without
 * closing its database. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "vfsshim.h"
#include "walbuf.h"

static struct {
	long wal_writes, wal_bytes, syncs;
	int fail_wal; /* 1: the next WAL write fails */
} seen;

static void *count_open(const char *path, enum vfsshim_kind kind, int *refuse)
{
	(void)path;
	*refuse = 0;
	return kind == VFSSHIM_WAL ? (void *)&seen : NULL;
}

static int count_write(struct vfsshim_file *f, const void *buf, int n, sqlite3_int64 off)
{
	if (seen.fail_wal) {
		seen.fail_wal = 0;
		return SQLITE_IOERR_WRITE;
	}
	seen.wal_writes++;
	seen.wal_bytes += n;
	return f->real->pMethods->xWrite(f->real, buf, n, off);
}

static int count_truncate(struct vfsshim_file *f, sqlite3_int64 size)
{
	return f->real->pMethods->xTruncate(f->real, size);
}

static int count_sync(struct vfsshim_file *f, int flags)
{
	seen.syncs++;
	return f->real->pMethods->xSync(f->real, flags);
}

static int count_delete(sqlite3_vfs *real, const char *path, int dirsync)
{
	return real->xDelete(real, path, dirsync);
}

static const struct vfsshim_hooks hooks = {
	.open_track = count_open,
	.write = count_write,
	.truncate = count_truncate,
	.sync = count_sync,
	.delete = count_delete,
};

static char dir[64];
static char path[128];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/rlyeh-walbuf-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/w.db", dir);
	return 0;
}

static int teardown(void **state)
{
	char f[160];

	(void)state;
	for (const char *const *s = (const char *const[]){ "", "-wal", "-shm", NULL }; *s; s++) {
		snprintf(f, sizeof(f), "%s%s", path, *s);
		unlink(f);
	}
	rmdir(dir);
	return 0;
}

static void exec_ok(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &err);

	if (rc != SQLITE_OK)
		fail_msg("%s: %s", sql, err ? err : "?");
}

/* A connection through walbuf (vfs WALBUF_NAME) or straight to the
 * counting VFS (NULL), in WAL mode with the given synchronous setting. */
static sqlite3 *open_db(const char *vfs, const char *sync)
{
	sqlite3 *db = NULL;
	char sql[96];

	assert_int_equal(
	    sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs), SQLITE_OK);
	exec_ok(db, "PRAGMA journal_mode = WAL");
	snprintf(sql, sizeof(sql), "PRAGMA synchronous = %s", sync);
	exec_ok(db, sql);
	exec_ok(db, "PRAGMA wal_autocheckpoint = 0");
	exec_ok(db, "CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v BLOB NOT NULL)");
	return db;
}

/* Inserts rows [from, from + n) of `size` bytes each (byte i of row k is
 * (k + i) % 251) in one transaction; the COMMIT's result code. */
static int insert_rows(sqlite3 *db, int from, int n, int size)
{
	sqlite3_stmt *s;
	unsigned char *v = malloc((size_t)size);
	int rc;

	assert_non_null(v);
	exec_ok(db, "BEGIN");
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?, ?)", -1, &s, NULL),
	                 SQLITE_OK);
	for (int k = from; k < from + n; k++) {
		for (int i = 0; i < size; i++)
			v[i] = (unsigned char)((k + i) % 251);
		sqlite3_bind_int(s, 1, k);
		sqlite3_bind_blob(s, 2, v, size, SQLITE_STATIC);
		assert_int_equal(sqlite3_step(s), SQLITE_DONE);
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	free(v);
	rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		(void)sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* Checks, through a new connection to the counting VFS, that t holds
 * exactly rows [0, n) as insert_rows wrote them, and that the database is
 * sound. */
static void check_rows(int n, int size)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s;
	int rows = 0;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT k, v FROM t ORDER BY k", -1, &s, NULL),
	                 SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW) {
		int k = sqlite3_column_int(s, 0);
		const unsigned char *v = sqlite3_column_blob(s, 1);
		assert_int_equal(k, rows);
		assert_int_equal(sqlite3_column_bytes(s, 1), size);
		for (int i = 0; i < size; i++)
			if (v[i] != (unsigned char)((k + i) % 251))
				fail_msg("row %d byte %d", k, i);
		rows++;
	}
	sqlite3_finalize(s);
	assert_int_equal(rows, n);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(s, 0), "ok");
	sqlite3_finalize(s);
	sqlite3_close(db);
}

/* 20 rows of 3,000 bytes are about 20 pages: about 40 writes without
 * walbuf, one with it (the log's header, written when a log starts, is
 * written by a first commit before); the sync of synchronous=FULL comes
 * after it. */
static void test_one_write_per_commit(void **state)
{
	sqlite3 *db;
	long before, plain, buffered, syncs;

	(void)state;
	db = open_db(NULL, "FULL");
	assert_int_equal(insert_rows(db, 0, 1, 3000), SQLITE_OK);
	before = seen.wal_writes;
	assert_int_equal(insert_rows(db, 1, 20, 3000), SQLITE_OK);
	plain = seen.wal_writes - before;
	sqlite3_close(db);

	db = open_db(WALBUF_NAME, "FULL");
	assert_int_equal(insert_rows(db, 21, 1, 3000), SQLITE_OK);
	before = seen.wal_writes;
	syncs = seen.syncs;
	assert_int_equal(insert_rows(db, 22, 20, 3000), SQLITE_OK);
	buffered = seen.wal_writes - before;
	assert_true(seen.syncs > syncs);
	check_rows(42, 3000); /* while the writer is still open */
	sqlite3_close(db);

	assert_true(plain >= 40);
	assert_int_equal(buffered, 1);
	check_rows(42, 3000);
}

/* With synchronous=OFF no sync comes after a commit: the commit frame
 * itself sends what is held. A transaction larger than WALBUF_CAP goes out
 * in several writes of at most 120 KiB. */
static void test_commit_without_sync(void **state)
{
	sqlite3 *db = open_db(WALBUF_NAME, "OFF");
	long before = seen.wal_writes, syncs = seen.syncs, bytes;

	(void)state;
	assert_int_equal(insert_rows(db, 0, 1, 3000), SQLITE_OK);
	before = seen.wal_writes;
	assert_int_equal(insert_rows(db, 1, 4, 3000), SQLITE_OK);
	assert_int_equal(seen.wal_writes - before, 1);
	check_rows(5, 3000);

	before = seen.wal_writes;
	bytes = seen.wal_bytes;
	assert_int_equal(insert_rows(db, 5, 200, 3000), SQLITE_OK);
	bytes = seen.wal_bytes - bytes;
	assert_true(bytes > 2 * WALBUF_CAP);
	assert_true(seen.wal_writes - before >= bytes / WALBUF_WRITE_MAX);
	assert_true(seen.wal_writes - before <= bytes / WALBUF_WRITE_MAX + 4);
	assert_int_equal(seen.syncs, syncs);
	check_rows(205, 3000);
	sqlite3_close(db);
}

/* A writer killed right after its commits, without closing the database,
 * has left every commit in the files. */
static void test_killed_after_commit(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		sqlite3 *db = open_db(WALBUF_NAME, "NORMAL");
		int ok = insert_rows(db, 0, 20, 3000) == SQLITE_OK &&
		         insert_rows(db, 20, 3, 3000) == SQLITE_OK;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	check_rows(23, 3000);
}

/* A transaction bigger than the page cache spills pages into the log
 * before its commit and reads them back: what is held goes out first. */
static void test_spill_reads_back(void **state)
{
	sqlite3 *db = open_db(WALBUF_NAME, "FULL");
	long before = seen.wal_writes;

	(void)state;
	exec_ok(db, "PRAGMA cache_size = 2");
	assert_int_equal(insert_rows(db, 0, 120, 3000), SQLITE_OK);
	assert_true(seen.wal_writes - before > 1);
	check_rows(120, 3000);
	exec_ok(db, "UPDATE t SET v = v WHERE k % 2 = 0");
	check_rows(120, 3000);
	sqlite3_close(db);
}

/* A write of what was held that fails fails the COMMIT: nothing of that
 * transaction is kept, the commits before it are whole, and the next
 * transaction commits. */
static void test_failed_write_fails_commit(void **state)
{
	sqlite3 *db = open_db(WALBUF_NAME, "FULL");

	(void)state;
	assert_int_equal(insert_rows(db, 0, 10, 3000), SQLITE_OK);
	seen.fail_wal = 1;
	assert_int_not_equal(insert_rows(db, 10, 10, 3000), SQLITE_OK);
	assert_int_equal(seen.fail_wal, 0);
	check_rows(10, 3000);
	assert_int_equal(insert_rows(db, 10, 10, 3000), SQLITE_OK);
	check_rows(20, 3000);
	sqlite3_close(db);
	check_rows(20, 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_write_per_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_without_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_after_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spill_reads_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_fails_commit, setup, teardown),
	};

	if (vfsshim_install("rlyeh-count", &hooks) != SQLITE_OK || walbuf_register() != SQLITE_OK)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
