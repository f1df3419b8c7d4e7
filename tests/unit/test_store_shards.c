/* store shards: who owns a gateway shard and its saved session
 * (migrations/0008_shards.sql, store.h "shards"). On both backends: the
 * shard of a server, the session's round trip, epochs and the fence. On
 * PostgreSQL only: one connection at a time holds a shard's lock, a
 * terminated or SIGKILLed holder loses it (the takeover time is measured
 * and printed), and a claim waits for a write the old owner had fenced,
 * after which the old owner's fence refuses. Every check reads back what
 * the database holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rlyeh/store.h"
#include "testdb.h"

static int tmp_setup(void **state)
{
	struct testdb_tmp *t = testdb_tmp_new("/tmp/rlyeh-shards-XXXXXX");

	if (!t)
		return -1;
	*state = t;
	return 0;
}

static int tmp_teardown(void **state)
{
	testdb_tmp_free(*state);
	return 0;
}

static struct store *open_ok(const char *path)
{
	struct store *st = NULL;
	char err[256];

	if (store_open(path, &st, err, sizeof(err)))
		fail_msg("open %s: %s", path, err);
	return st;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	nanosleep(&(struct timespec){ .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 },
	          NULL);
}

static void pg_only(const char *test)
{
	if (!testdb_pg()) {
		print_message("[  SKIP    ] %s: PostgreSQL only, not run on SQLite\n", test);
		skip();
	}
}

static int64_t make_game_in(struct store *st, const char *channel, int state)
{
	struct store_game g;

	memset(&g, 0, sizeof(g));
	snprintf(g.server, sizeof(g.server), "%s", "175928847299117063");
	snprintf(g.channel, sizeof(g.channel), "%s", channel);
	snprintf(g.game, sizeof(g.game), "%s", "cthulhu-dice");
	snprintf(g.lang, sizeof(g.lang), "%s", "en");
	snprintf(g.owner, sizeof(g.owner), "%s", "u1");
	g.state = state;
	g.finished_at = state == STORE_FINISHED ? 2000 : 0;
	g.seed = 42;
	g.first = -1;
	g.winner = -1;
	g.created_at = 1000;
	if (store_game_create(st, &g))
		fail_msg("create: %s", store_errmsg(st));
	return g.id;
}

static int64_t make_game(struct store *st, const char *channel)
{
	return make_game_in(st, channel, STORE_PLAYING);
}

static struct store_event event(int64_t seq)
{
	struct store_event e;

	memset(&e, 0, sizeof(e));
	e.seq = seq;
	e.at = 1000 + seq;
	snprintf(e.kind, sizeof(e.kind), "%s", "roll");
	e.actor = 0;
	e.value = 1;
	return e;
}

/* Discord's snowflakes: bits 22 and up, modulo the count. */
static void test_shard_of(void **state)
{
	(void)state;
	assert_int_equal(store_shard_of("175928847299117063", 4), 0);
	assert_int_equal(store_shard_of("81384788765712384", 4), 2);
	assert_int_equal(store_shard_of("4194304", 4), 1);
	assert_int_equal(store_shard_of("12582912", 4), 3);
	assert_int_equal(store_shard_of("12582912", 2), 1);
	assert_int_equal(store_shard_of("4194303", 4), 0);
	assert_int_equal(store_shard_of("12582912", 1), 0);
	assert_int_equal(store_shard_of("local", 4), 0);
	assert_int_equal(store_shard_of("", 4), 0);
	assert_int_equal(store_shard_of("99999999999999999999999", 4), 0);
}

/* A session saved is read back by a new connection, as it was; the
 * limits are refused with nothing written. */
static void test_session_round_trip(void **state)
{
	struct testdb_tmp *t = *state;
	struct store *st = open_ok(t->path);
	struct store_shard_session s, got;
	char *rows;

	assert_int_equal(store_shard_session_get(st, 4, 1, &got), 0);
	assert_string_equal(got.session_id, "");
	memset(&s, 0, sizeof(s));
	snprintf(s.session_id, sizeof(s.session_id), "%s", "sess-1");
	snprintf(s.resume_url, sizeof(s.resume_url), "%s", "ws://127.0.0.1:9/resume");
	s.seq = 41;
	s.saved_at = 5000;
	assert_int_equal(store_shard_session_put(st, 4, 1, 0, &s), 0);
	s.seq = 42;
	assert_int_equal(store_shard_session_put(st, 4, 1, 0, &s), 0);
	memset(s.session_id, 'x', sizeof(s.session_id)); /* unterminated: refused */
	assert_int_equal(store_shard_session_put(st, 4, 1, 0, &s), -1);
	assert_int_equal(store_shard_session_put(st, 4, 4, 0, &s), -1);
	assert_int_equal(store_shard_session_get(st, 0, 0, &got), -1);
	store_close(st);

	rows = testdb_rows(t->path, "SELECT count, shard, epoch, session_id, seq, resume_url, "
	                            "saved_at FROM shards ORDER BY count, shard");
	assert_string_equal(rows, "4|1|0|sess-1|42|ws://127.0.0.1:9/resume|5000|\n");
	free(rows);
	st = open_ok(t->path);
	assert_int_equal(store_shard_session_get(st, 4, 1, &got), 1);
	assert_string_equal(got.session_id, "sess-1");
	assert_true(got.seq == 42);
	assert_string_equal(got.resume_url, "ws://127.0.0.1:9/resume");
	assert_true(got.saved_at == 5000);
	assert_int_equal(store_shard_session_get(st, 4, 2, &got), 0);
	store_close(st);
}

/* Each claim is the next epoch; the fence and the session's save accept
 * only the newest, and a game write fenced by an old epoch is rolled back
 * by its caller, leaving nothing. */
static void test_claim_and_fence(void **state)
{
	struct testdb_tmp *t = *state;
	struct store *a = open_ok(t->path), *b = open_ok(t->path);
	struct store_shard_session s;
	struct store_event e1 = event(1), e2 = event(2);
	int64_t ea = 0, eb = 0, id;
	char *rows;

	id = make_game(a, "c1");
	assert_int_equal(store_shard_claim(a, 4, 0, "hostA:1", 100, &ea), 0);
	assert_true(ea == 1);
	assert_int_equal(store_begin(a), 0);
	assert_int_equal(store_shard_fence(a, 4, 0, ea), 1);
	assert_int_equal(store_event_append(a, id, &e1), 0);
	assert_int_equal(store_commit(a), 0);

	assert_int_equal(store_shard_claim(b, 4, 0, "hostB:2", 200, &eb), 0);
	assert_true(eb == 2);
	assert_int_equal(store_begin(a), 0);
	assert_int_equal(store_shard_fence(a, 4, 0, ea), 0);
	store_rollback(a);
	assert_int_equal(store_begin(b), 0);
	assert_int_equal(store_shard_fence(b, 4, 0, eb), 1);
	assert_int_equal(store_event_append(b, id, &e2), 0);
	assert_int_equal(store_commit(b), 0);
	assert_int_equal(store_shard_fence(a, 4, 0, 0), 1); /* unfenced */

	memset(&s, 0, sizeof(s));
	snprintf(s.session_id, sizeof(s.session_id), "%s", "old");
	assert_int_equal(store_shard_session_put(a, 4, 0, ea, &s), 1);
	snprintf(s.session_id, sizeof(s.session_id), "%s", "new");
	s.seq = 7;
	assert_int_equal(store_shard_session_put(b, 4, 0, eb, &s), 0);
	assert_int_equal(store_shard_claim(a, 4, 0, "", 300, &ea), 0);
	assert_int_equal(store_shard_claim(a, 4, 9, "x", 300, &ea), -1);
	store_close(a);
	store_close(b);

	rows = testdb_rows(t->path, "SELECT count, shard, epoch, owner, owned_at, session_id, seq "
	                            "FROM shards ORDER BY count, shard");
	assert_string_equal(rows, "4|0|3||300|new|7|\n");
	free(rows);
	rows = testdb_rows(t->path, "SELECT seq FROM events ORDER BY seq");
	assert_string_equal(rows, "1|\n2|\n");
	free(rows);
}

/* SQLite: one process owns every shard. */
static void test_sqlite_owns_all(void **state)
{
	struct testdb_tmp *t = *state;
	struct store *a, *b;

	TESTDB_SQLITE_ONLY();
	a = open_ok(t->path);
	b = open_ok(t->path);
	assert_int_equal(store_shard_lock(a, 4, 0), 1);
	assert_int_equal(store_shard_lock(b, 4, 0), 1);
	assert_int_equal(store_shard_locked(a, 4, 0), 1);
	assert_int_equal(store_shard_unlock(a, 4, 0), 0);
	store_close(a);
	store_close(b);
}

/* store_shard_lock, asked again for up to 5 s while it answers 0: a backend
 * whose connection ended lets its locks go only once it has exited, which a
 * loaded machine may take a while to do. */
static int lock_soon(struct store *st, int count, int shard)
{
	int rc = 0;

	for (int i = 0; i < 100 && (rc = store_shard_lock(st, count, shard)) == 0; i++)
		sleep_ms(50);
	return rc;
}

/* PostgreSQL: one connection holds a shard's lock; taking it again there
 * is a no-op; another gets it once given back or once the holder's
 * connection is gone (the holder then knows it lost it). Shards of
 * another count are other locks. */
static void test_lock_exclusive(void **state)
{
	struct testdb_tmp *t = *state;
	struct store *a, *b;

	pg_only(__func__);
	a = open_ok(t->path);
	b = open_ok(t->path);
	assert_int_equal(store_shard_lock(a, 4, 0), 1);
	assert_int_equal(store_shard_lock(a, 4, 0), 1);
	assert_int_equal(store_shard_lock(b, 4, 0), 0);
	assert_int_equal(store_shard_lock(b, 4, 1), 1);
	assert_int_equal(store_shard_lock(b, 8, 0), 1);
	assert_int_equal(store_shard_locked(a, 4, 0), 1);
	assert_int_equal(store_shard_locked(b, 4, 0), 0);
	assert_int_equal(testdb_int(t->path, "SELECT count(*) FROM pg_locks WHERE locktype = "
	                                     "'advisory' AND objsubid = 2 AND granted"),
	                 3);
	/* one unlock gives it back, though taken twice */
	assert_int_equal(store_shard_unlock(a, 4, 0), 0);
	assert_int_equal(store_shard_locked(a, 4, 0), 0);
	assert_int_equal(store_shard_lock(b, 4, 0), 1);
	assert_int_equal(store_shard_lock(a, 4, 0), 0);
	assert_int_equal(store_shard_unlock(a, 4, 0), 0); /* not held: nothing */
	assert_int_equal(store_shard_locked(b, 4, 0), 1);

	/* the server ends every connection: the locks go with them */
	assert_true(testdb_int(t->path, "SELECT count(pg_terminate_backend(pid)) FROM "
	                                "pg_stat_activity WHERE datname = current_database() "
	                                "AND pid <> pg_backend_pid()") >= 2);
	sleep_ms(100);
	assert_int_equal(store_shard_locked(b, 4, 0), 0);
	/* a terminated backend lets its locks go when it has exited, which a
	 * loaded machine may take a while to do */
	assert_int_equal(lock_soon(a, 4, 0), 1);
	assert_int_equal(store_shard_lock(b, 4, 0), 0);
	store_close(a);
	assert_int_equal(lock_soon(b, 4, 0), 1);
	store_close(b);
}

/* PostgreSQL: a process holding shard 1 is killed with SIGKILL; a standby
 * polling every 10 ms gets the lock once the server sees the connection
 * close. The time is printed; it must stay under 5 s. */
static void test_killed_owner_taken_over(void **state)
{
	struct testdb_tmp *t = *state;
	struct store *b;
	int fds[2], got = 0;
	int64_t killed, took = -1;
	pid_t pid;
	char c;

	pg_only(__func__);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct store *a = NULL;
		char err[256];

		close(fds[0]);
		if (store_open(t->path, &a, err, sizeof(err)) || store_shard_lock(a, 2, 1) != 1)
			_exit(1);
		if (write(fds[1], "L", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	b = open_ok(t->path);
	assert_int_equal(store_shard_lock(b, 2, 1), 0);
	killed = now_ms();
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	while (now_ms() - killed < 10000) {
		if ((got = store_shard_lock(b, 2, 1)) != 0)
			break;
		sleep_ms(10);
	}
	took = now_ms() - killed;
	assert_int_equal(got, 1);
	print_message("[  INFO    ] shard taken over %lld ms after SIGKILL\n", (long long)took);
	assert_true(took < 5000);
	store_close(b);
}

/* The child pid writes one byte to fd once it got past what a's open
 * transaction holds: asserts that nothing comes for 500 ms, commits a, then
 * that the byte comes and the child exits 0. Closes fd. */
static void waits_for_commit(struct store *a, int fd, pid_t pid)
{
	int fl = fcntl(fd, F_GETFL), status;
	char c;

	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	sleep_ms(500);
	assert_int_equal(read(fd, &c, 1), -1); /* still waiting */
	assert_int_equal(store_commit(a), 0);
	fcntl(fd, F_SETFL, fl);
	assert_int_equal(read(fd, &c, 1), 1);
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* PostgreSQL: a claim waits for the old owner's write that was already
 * fenced, so the new owner loads it; the old owner's next fence refuses. */
static void test_claim_waits_for_fenced_write(void **state)
{
	struct testdb_tmp *t = *state;
	struct store *a;
	struct store_event e1 = event(1), e2 = event(2);
	int64_t ea, id;
	int fds[2];
	pid_t pid;
	char *rows;

	pg_only(__func__);
	a = open_ok(t->path);
	id = make_game(a, "c1");
	assert_int_equal(store_shard_claim(a, 4, 0, "A", 100, &ea), 0);
	assert_int_equal(store_begin(a), 0);
	assert_int_equal(store_shard_fence(a, 4, 0, ea), 1);
	assert_int_equal(store_event_append(a, id, &e1), 0);

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct store *b = NULL;
		int64_t eb = 0;
		char err[256], n;

		close(fds[0]);
		if (store_open(t->path, &b, err, sizeof(err)) ||
		    store_shard_claim(b, 4, 0, "B", 200, &eb))
			_exit(1);
		/* what the new owner loads: the old owner's event */
		n = (char)('0' + (int)store_games_made(b));
		if (write(fds[1], &n, 1) != 1)
			_exit(1);
		store_close(b);
		_exit(eb == 2 ? 0 : 2);
	}
	close(fds[1]);
	waits_for_commit(a, fds[0], pid);

	assert_int_equal(store_begin(a), 0);
	assert_int_equal(store_shard_fence(a, 4, 0, ea), 0);
	store_rollback(a);
	(void)e2;
	store_close(a);
	rows = testdb_rows(t->path, "SELECT epoch, owner FROM shards");
	assert_string_equal(rows, "2|B|\n");
	free(rows);
	assert_int_equal(testdb_int(t->path, "SELECT count(*) FROM events"), 1);
}

/* PostgreSQL: a transaction that rated a game keeps another process's
 * rating waiting until it ends, so that each reads the other's rows. */
static void test_rating_one_at_a_time(void **state)
{
	struct testdb_tmp *t = *state;
	struct store *a;
	int64_t g1, g2;
	int fds[2];
	pid_t pid;
	char *rows;

	pg_only(__func__);
	a = open_ok(t->path);
	g1 = make_game_in(a, "c1", STORE_FINISHED);
	g2 = make_game_in(a, "c2", STORE_FINISHED);
	assert_int_equal(store_begin(a), 0);
	assert_int_equal(store_game_rate(a, g1), 0);

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct store *b = NULL;
		char err[256];

		close(fds[0]);
		if (store_open(t->path, &b, err, sizeof(err)) || store_begin(b) ||
		    store_game_rate(b, g2) || store_commit(b))
			_exit(1);
		if (write(fds[1], "R", 1) != 1)
			_exit(1);
		store_close(b);
		_exit(0);
	}
	close(fds[1]);
	waits_for_commit(a, fds[0], pid);
	store_close(a);
	rows = testdb_rows(t->path, "SELECT id, rated FROM games ORDER BY id");
	assert_string_equal(rows, "1|1|\n2|2|\n");
	free(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shard_of),
		cmocka_unit_test_setup_teardown(test_session_round_trip, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_claim_and_fence, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_sqlite_owns_all, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_lock_exclusive, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_killed_owner_taken_over, tmp_setup,
		                                tmp_teardown),
		cmocka_unit_test_setup_teardown(test_claim_waits_for_fenced_write, tmp_setup,
		                                tmp_teardown),
		cmocka_unit_test_setup_teardown(test_rating_one_at_a_time, tmp_setup, tmp_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
