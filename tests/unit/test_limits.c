/* The limits shared by processes: the share of the global limit, and, on a
 * PostgreSQL database (RLYEH_TEST_DATABASE, set by tests/pg/with_cluster.sh;
 * without it those tests are skipped), the process count, the IDENTIFY
 * buckets and the announced global 429s, between separate connections as
 * separate processes would hold them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "rlyeh/limits.h"

static void test_share(void **unused)
{
	(void)unused;
	/* alone: the whole limit, as before */
	assert_int_equal(limits_share(50, 1), 50);
	assert_int_equal(limits_share(50, 0), 50);
	assert_int_equal(limits_share(50, -2), 50);
	/* several: 40 of the 50 shared */
	assert_int_equal(limits_share(50, 2), 20);
	assert_int_equal(limits_share(50, 3), 13);
	assert_int_equal(limits_share(50, 7), 5);
	assert_int_equal(limits_share(50, 45), 1);
	/* more processes than requests: each keeps one (an overshoot) */
	assert_int_equal(limits_share(50, 60), 1);
	assert_int_equal(limits_share(0, 1), 1);
	assert_int_equal(limits_share(-5, 3), 1);
}

/* Together the live processes keep the headroom while each can send, and
 * little more is lost: one more each would eat into it. */
static void test_share_sum(void **unused)
{
	(void)unused;
	for (int total = 10; total <= 120; total++) {
		int room = total * (100 - LIMITS_HEADROOM) / 100;
		for (int live = 2; live <= room; live++) {
			int s = limits_share(total, live);
			assert_true(s >= 1);
			assert_true(s * live <= room);
			assert_true((s + 1) * live > room);
		}
	}
}

static const char *db(void)
{
	const char *uri = getenv("RLYEH_TEST_DATABASE");
	return uri && *uri ? uri : NULL;
}

static struct limits *open_or_fail(void)
{
	char err[256];
	struct limits *l = limits_open(db(), "test", err, sizeof(err));
	if (!l)
		fail_msg("limits_open: %s", err);
	return l;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static void exec_sql(const char *sql)
{
	PGconn *c = PQconnectdb(db());
	PGresult *r;

	assert_int_equal(PQstatus(c), CONNECTION_OK);
	r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		fail_msg("%s: %s", sql, PQerrorMessage(c));
	PQclear(r);
	PQfinish(c);
}

/* 1 when l hears within `ms` that another process started. */
static int joined_within(struct limits *l, long ms)
{
	int joined = 0;

	for (long t = 0; t < ms && !joined; t += 10) {
		assert_true(limits_poll(l, &joined) >= 0);
		if (!joined)
			sleep_ms(10);
	}
	return joined;
}

static void test_live(void **unused)
{
	struct limits *a, *b;
	int live = -1;

	(void)unused;
	if (!db())
		skip();
	a = open_or_fail();
	exec_sql("DELETE FROM rlyeh_process");
	assert_int_equal(limits_beat(a, &live), 0);
	assert_int_equal(live, 1);
	b = open_or_fail();
	assert_int_equal(limits_beat(b, &live), 0);
	assert_int_equal(live, 2);
	/* a hears that b started, b does not hear itself */
	assert_int_equal(joined_within(a, 500), 1);
	assert_int_equal(joined_within(b, 100), 0);
	assert_int_equal(limits_beat(a, &live), 0);
	assert_int_equal(live, 2);
	/* a process silent for longer than LIMITS_DEAD_MS counts no more and
	 * its row goes */
	exec_sql("INSERT INTO rlyeh_process VALUES ('gone', now() - interval '11 seconds')");
	exec_sql("INSERT INTO rlyeh_process VALUES ('late', now() - interval '9 seconds')");
	assert_int_equal(limits_beat(a, &live), 0);
	assert_int_equal(live, 3);
	exec_sql(
	    "UPDATE rlyeh_process SET beat_at = beat_at - interval '2 seconds' WHERE id = 'late'");
	assert_int_equal(limits_beat(a, &live), 0);
	assert_int_equal(live, 2);
	/* one that stops leaves at once */
	limits_close(b);
	assert_int_equal(limits_beat(a, &live), 0);
	assert_int_equal(live, 1);
	limits_close(a);
}

static void test_identify_two(void **unused)
{
	struct limits *a, *b;
	long wait = -1;

	(void)unused;
	if (!db())
		skip();
	a = open_or_fail();
	b = open_or_fail();
	exec_sql("DELETE FROM rlyeh_identify");
	assert_int_equal(limits_identify(a, 0, 5500, &wait), 1);
	assert_int_equal(wait, 0);
	assert_int_equal(limits_identify(b, 0, 5500, &wait), 0);
	assert_true(wait > 5000 && wait <= 5500);
	/* another bucket is free */
	assert_int_equal(limits_identify(b, 1, 5500, &wait), 1);
	/* a short gap frees the bucket once it has passed, not before */
	assert_int_equal(limits_identify(a, 2, 400, &wait), 1);
	assert_int_equal(limits_identify(b, 2, 400, &wait), 0);
	assert_true(wait > 0 && wait <= 400);
	sleep_ms(wait + 20);
	assert_int_equal(limits_identify(b, 2, 400, &wait), 1);
	assert_int_equal(limits_identify(a, 2, 400, &wait), 0);
	limits_close(a);
	limits_close(b);
}

#define RACERS 8

struct racer {
	struct limits *l;
	pthread_barrier_t *go;
	int got;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	pthread_barrier_wait(r->go);
	r->got = limits_identify(r->l, 7, 5500, NULL);
	return NULL;
}

/* Many processes asking for one bucket at once: exactly one gets it. */
static void test_identify_race(void **unused)
{
	struct racer rs[RACERS];
	pthread_t th[RACERS];
	pthread_barrier_t go;
	int winners = 0;

	(void)unused;
	if (!db())
		skip();
	for (int round = 0; round < 5; round++) {
		exec_sql("DELETE FROM rlyeh_identify");
		pthread_barrier_init(&go, NULL, RACERS);
		for (int i = 0; i < RACERS; i++) {
			rs[i].l = open_or_fail();
			rs[i].go = &go;
			rs[i].got = -1;
		}
		for (int i = 0; i < RACERS; i++)
			assert_int_equal(pthread_create(&th[i], NULL, race, &rs[i]), 0);
		winners = 0;
		for (int i = 0; i < RACERS; i++) {
			pthread_join(th[i], NULL);
			assert_true(rs[i].got == 0 || rs[i].got == 1);
			winners += rs[i].got;
			limits_close(rs[i].l);
		}
		pthread_barrier_destroy(&go);
		assert_int_equal(winners, 1);
	}
}

/* The longest wait announced to l within `ms`. */
static long gather(struct limits *l, long ms)
{
	long most = 0;

	for (long t = 0; t < ms; t += 10) {
		long got = limits_poll(l, NULL);
		assert_true(got >= 0);
		most = got > most ? got : most;
		sleep_ms(10);
	}
	return most;
}

static void test_global_429(void **unused)
{
	struct limits *a, *b, *c;

	(void)unused;
	if (!db())
		skip();
	a = open_or_fail();
	b = open_or_fail();
	c = open_or_fail();
	assert_int_equal(limits_poll(b, NULL), 0);
	assert_int_equal(limits_global_429(a, 1234), 0);
	assert_int_equal(limits_global_429(a, 800), 0);
	/* every other process hears it, the longest wait counts */
	assert_int_equal(gather(b, 500), 1234);
	assert_int_equal(gather(c, 500), 1234);
	/* once only, and never one's own */
	assert_int_equal(gather(b, 100), 0);
	assert_int_equal(gather(a, 100), 0);
	/* a process that announces hears the others */
	assert_int_equal(limits_global_429(c, 70), 0);
	assert_int_equal(gather(a, 300), 70);
	limits_close(a);
	limits_close(b);
	limits_close(c);
}

static void test_bad_database(void **unused)
{
	char err[256] = "";

	(void)unused;
	assert_null(limits_open("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2", NULL, err,
	                        sizeof(err)));
	assert_true(err[0] != '\0');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_share),         cmocka_unit_test(test_share_sum),
		cmocka_unit_test(test_live),          cmocka_unit_test(test_identify_two),
		cmocka_unit_test(test_identify_race), cmocka_unit_test(test_global_429),
		cmocka_unit_test(test_bad_database),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
