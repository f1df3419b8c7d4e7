/* owner: shards taken, kept, lost and taken over by processes sharing a
 * database (include/rlyeh/owner.h). Each process is an owner with its own
 * connection; what they report is recorded and checked against the
 * database's shards table. On SQLite one owner has everything; the
 * standby and takeover tests are PostgreSQL's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rlyeh/owner.h"
#include "rlyeh/store.h"
#include "testdb.h"

/* The advisory locks granted on the server, every connection's. */
#define ADVISORY_LOCKS "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"

static int tmp_setup(void **state)
{
	struct testdb_tmp *t = testdb_tmp_new("/tmp/rlyeh-owner-XXXXXX");
	struct store *st = NULL;
	char err[256];

	if (!t)
		return -1;
	if (store_open(t->path, &st, err, sizeof(err)))
		fail_msg("open: %s", err);
	store_close(st);
	*state = t;
	return 0;
}

static int tmp_teardown(void **state)
{
	testdb_tmp_free(*state);
	return 0;
}

/* What one owner reported, as "+2@1 -2 " (gained shard 2 with epoch 1,
 * lost shard 2). */
struct seen {
	char log[512];
};

static void add(struct seen *s, const char *piece)
{
	size_t n = strlen(s->log);

	if (n + strlen(piece) + 1 > sizeof(s->log))
		fail_msg("log full");
	memcpy(s->log + n, piece, strlen(piece) + 1);
}

static void gained(void *ctx, int shard, int64_t epoch)
{
	char piece[48];

	snprintf(piece, sizeof(piece), "+%d@%lld ", shard, (long long)epoch);
	add(ctx, piece);
}

static void lost(void *ctx, int shard)
{
	char piece[24];

	snprintf(piece, sizeof(piece), "-%d ", shard);
	add(ctx, piece);
}

static void waiting(void *ctx, int shard)
{
	char piece[24];

	snprintf(piece, sizeof(piece), "~%d ", shard);
	add(ctx, piece);
}

static struct owner *owner_ok(const char *db, int first, int last, int count, int standby,
                              int grace, const char *name, struct seen *s)
{
	struct owner_config c = { .count = count,
		                  .first = first,
		                  .last = last,
		                  .standby = standby,
		                  .grace = grace,
		                  .name = name };
	struct owner_events h = { .ctx = s, .gained = gained, .lost = lost, .waiting = waiting };
	struct owner *o;
	char err[256];

	memset(s, 0, sizeof(*s));
	if (!(o = owner_new(db, &c, &h, err, sizeof(err))))
		fail_msg("owner %s: %s", name, err);
	return o;
}

static void pg_only(const char *test)
{
	if (!testdb_pg()) {
		print_message("[  SKIP    ] %s: PostgreSQL only, not run on SQLite\n", test);
		skip();
	}
}

static void test_bad_config_refused(void **state)
{
	struct testdb_tmp *t = *state;
	struct owner_events h = { 0 };
	struct owner_config c = { .count = 4, .first = 2, .last = 4, .name = "x" };
	char err[256];

	assert_null(owner_new(t->path, &c, &h, err, sizeof(err)));
	assert_string_equal(err, "shards 2-4 of 4: not a range of at most 128 shards");
	c = (struct owner_config){ .count = 1000, .first = 0, .last = 128, .name = "x" };
	assert_null(owner_new(t->path, &c, &h, err, sizeof(err)));
	c = (struct owner_config){ .count = 4, .first = 0, .last = 3, .name = NULL };
	assert_null(owner_new(t->path, &c, &h, err, sizeof(err)));
	assert_string_equal(err, "owner name missing or longer than 63 bytes");
	c.name = "x";
	c.grace = -1;
	assert_null(owner_new(t->path, &c, &h, err, sizeof(err)));
}

/* One owner takes its shards at the first poll (a standby too, on SQLite),
 * gives them back on release and takes them again with the next epochs. */
static void test_one_owner(void **state)
{
	struct testdb_tmp *t = *state;
	struct seen s;
	struct owner *o = owner_ok(t->path, 1, 2, 4, 1, 2, "solo:1", &s);
	char *rows;

	if (testdb_pg()) { /* the standby waits two free polls there */
		assert_int_equal(owner_poll(o, 10), 0);
		assert_int_equal(owner_poll(o, 20), 0);
		assert_string_equal(s.log, "");
	}
	assert_int_equal(owner_poll(o, 100), 2);
	assert_string_equal(s.log, "+1@1 +2@1 ");
	assert_int_equal(owner_count(o), 2);
	assert_true(owner_epoch(o, 2) == 1);
	assert_true(owner_epoch(o, 3) == 0);
	assert_int_equal(owner_poll(o, 200), 0);
	owner_release(o);
	assert_string_equal(s.log, "+1@1 +2@1 -1 -2 ");
	assert_int_equal(owner_count(o), 0);
	owner_free(o);

	o = owner_ok(t->path, 1, 2, 4, 0, 0, "solo:2", &s);
	assert_int_equal(owner_poll(o, 300), 2);
	assert_string_equal(s.log, "+1@2 +2@2 ");
	owner_free(o);
	rows = testdb_rows(t->path, "SELECT count, shard, epoch, owner, owned_at FROM shards "
	                            "ORDER BY shard");
	assert_string_equal(rows, "4|1|2|solo:2|300|\n4|2|2|solo:2|300|\n");
	free(rows);
}

/* Three processes: A runs 0-1/4, B 2-3/4, S is the standby for 0-3/4.
 * S, polling first, takes nothing while A and B start; when A goes, S
 * takes 0 and 1 after its grace; A started again takes nothing until S
 * gives them back. */
static void test_standby_takes_over(void **state)
{
	struct testdb_tmp *t = *state;
	struct seen sa, sb, ss;
	struct owner *a, *b, *s;
	char *rows;

	pg_only(__func__);
	s = owner_ok(t->path, 0, 3, 4, 1, 2, "S", &ss);
	a = owner_ok(t->path, 0, 1, 4, 0, 0, "A", &sa);
	b = owner_ok(t->path, 2, 3, 4, 0, 0, "B", &sb);
	assert_int_equal(owner_poll(s, 1), 0);
	assert_int_equal(owner_poll(a, 1), 2);
	assert_int_equal(owner_poll(b, 1), 2);
	for (int i = 0; i < 5; i++)
		assert_int_equal(owner_poll(s, 2 + i), 0);
	assert_string_equal(ss.log, "");

	owner_free(a); /* its connection closes: as a killed process's does */
	/* the server lets the locks go once that backend has exited, which a
	 * loaded machine may take a while to do */
	testdb_wait_at_most(t->path, ADVISORY_LOCKS, 2);
	assert_int_equal(owner_poll(s, 10), 0);
	assert_int_equal(owner_poll(s, 11), 0);
	assert_int_equal(owner_poll(s, 12), 2);
	assert_string_equal(ss.log, "+0@2 +1@2 ");
	assert_int_equal(owner_poll(b, 13), 0);

	a = owner_ok(t->path, 0, 1, 4, 0, 0, "A2", &sa);
	assert_int_equal(owner_poll(a, 20), 0);
	owner_release(s);
	assert_string_equal(ss.log, "+0@2 +1@2 -0 -1 ");
	assert_int_equal(owner_poll(a, 21), 2);
	assert_string_equal(sa.log, "+0@3 +1@3 ");
	assert_string_equal(sb.log, "+2@1 +3@1 ");
	rows = testdb_rows(t->path, "SELECT shard, epoch, owner FROM shards ORDER BY shard");
	assert_string_equal(rows, "0|3|A2|\n1|3|A2|\n2|1|B|\n3|1|B|\n");
	free(rows);
	owner_free(a);
	owner_free(b);
	owner_free(s);
}

/* The server ends the lock connection: the owner reports its shards lost
 * at the next poll and, nobody else asking, takes them again with new
 * epochs (the bot reloads their games). */
static void test_lost_connection(void **state)
{
	struct testdb_tmp *t = *state;
	struct seen s;
	struct owner *o;

	pg_only(__func__);
	o = owner_ok(t->path, 0, 1, 2, 0, 0, "O", &s);
	assert_int_equal(owner_poll(o, 1), 2);
	assert_true(testdb_int(t->path, "SELECT count(pg_terminate_backend(pid)) FROM "
	                                "pg_stat_activity WHERE datname = current_database() "
	                                "AND pid <> pg_backend_pid()") >= 1);
	nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	testdb_wait_at_most(t->path, ADVISORY_LOCKS, 0);
	assert_int_equal(owner_poll(o, 2), 4);
	assert_string_equal(s.log, "+0@1 +1@1 -0 -1 +0@2 +1@2 ");
	owner_free(o);
}

/* Resharding: O runs 0-1/2; the new set N runs 0-3/4 and S is its standby
 * for 0-1/4. While O runs, N locks its shards but serves none (waiting,
 * once each); when O stops, N gains all four at its next poll, and S never
 * gets anything. A process of the old count started again meanwhile waits
 * for the new one in turn. */
static void test_resharding_waits_for_the_old_count(void **state)
{
	struct testdb_tmp *t = *state;
	struct seen so, sn, ss, s2;
	struct owner *o, *n, *sb, *o2;

	pg_only(__func__);
	o = owner_ok(t->path, 0, 1, 2, 0, 0, "O", &so);
	assert_int_equal(owner_poll(o, 1), 2);
	n = owner_ok(t->path, 0, 3, 4, 0, 0, "N", &sn);
	sb = owner_ok(t->path, 0, 1, 4, 1, 2, "S", &ss);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(owner_poll(n, 2 + i), 0);
		assert_int_equal(owner_poll(sb, 2 + i), 0);
	}
	assert_string_equal(sn.log, "~0 ~1 ~2 ~3 ");
	assert_int_equal(owner_waiting(n), 4);
	assert_int_equal(owner_count(n), 0);
	assert_string_equal(ss.log, "");
	assert_string_equal(so.log, "+0@1 +1@1 ");

	owner_free(o);
	testdb_wait_at_most(t->path, ADVISORY_LOCKS, 4);
	assert_int_equal(owner_poll(n, 10), 4);
	assert_string_equal(sn.log, "~0 ~1 ~2 ~3 +0@1 +1@1 +2@1 +3@1 ");
	assert_int_equal(owner_waiting(n), 0);
	assert_int_equal(owner_count(n), 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(owner_poll(sb, 11 + i), 0);
	assert_string_equal(ss.log, "");

	o2 = owner_ok(t->path, 0, 1, 2, 0, 0, "O2", &s2);
	assert_int_equal(owner_poll(o2, 20), 0);
	assert_string_equal(s2.log, "~0 ~1 ");
	owner_release(o2);
	assert_string_equal(s2.log, "~0 ~1 -0 -1 ");
	owner_free(o2);
	owner_free(sb);
	owner_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_config_refused, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_one_owner, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_standby_takes_over, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_lost_connection, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_resharding_waits_for_the_old_count, tmp_setup,
		                                tmp_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
