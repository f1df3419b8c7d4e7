/* The /metrics exposition: the gateway as a whole, and each shard's gauges
 * labelled with its id. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/gateway.h"
#include "rlyeh/metrics.h"

static void test_shard_gauges(void **unused)
{
	static char buf[65536];
	struct metrics m;
	struct metrics_shard sh[2] = {
		{ .id = 4, .state = GATEWAY_READY, .reconnects = 0, .latency = 0.0425 },
		{ .id = 5, .state = GATEWAY_WAITING, .reconnects = 3, .latency = -1 },
	};
	struct metrics_gauges g = { .gateway_state = GATEWAY_WAITING,
		                    .reconnects = 3,
		                    .shards = sh,
		                    .nshards = 2,
		                    .shards_owned = 2 };
	struct text t;

	(void)unused;
	memset(&m, 0, sizeof(m));
	text_init(&t, buf, sizeof(buf));
	metrics_render(&m, &g, &t);
	assert_false(t.truncated);
	assert_non_null(strstr(buf, "\nrlyeh_gateway_ready 0\n"));
	assert_non_null(strstr(buf, "\nrlyeh_gateway_reconnects_total 3\n"));
	assert_non_null(strstr(buf, "# TYPE rlyeh_shards_owned gauge\nrlyeh_shards_owned 2\n"));
	assert_non_null(strstr(buf, "# TYPE rlyeh_standby gauge\nrlyeh_standby 0\n"));
	assert_non_null(strstr(buf, "# TYPE rlyeh_shard_ready gauge\n"
	                            "rlyeh_shard_ready{shard=\"4\"} 1\n"
	                            "rlyeh_shard_ready{shard=\"5\"} 0\n"));
	assert_non_null(strstr(buf, "rlyeh_shard_state{shard=\"5\"} 6\n"));
	assert_non_null(strstr(buf, "rlyeh_shard_reconnects_total{shard=\"4\"} 0\n"
	                            "rlyeh_shard_reconnects_total{shard=\"5\"} 3\n"));
	assert_non_null(
	    strstr(buf, "rlyeh_shard_heartbeat_latency_seconds{shard=\"4\"} 0.042500\n"));
	/* No ACK yet: no sample rather than a made-up one. */
	assert_null(strstr(buf, "rlyeh_shard_heartbeat_latency_seconds{shard=\"5\"}"));
}

static void test_no_shards(void **unused)
{
	static char buf[65536];
	struct metrics m;
	struct metrics_gauges g = { .gateway_state = GATEWAY_READY, .gateway_ready = 1 };
	struct text t;

	(void)unused;
	memset(&m, 0, sizeof(m));
	text_init(&t, buf, sizeof(buf));
	metrics_render(&m, &g, &t);
	assert_non_null(strstr(buf, "\nrlyeh_gateway_ready 1\n"));
	assert_null(strstr(buf, "rlyeh_shard_"));
}

/* A process waiting to take a shard over owns none and says so. */
static void test_standby(void **unused)
{
	static char buf[65536];
	struct metrics m;
	struct metrics_gauges g = { .gateway_state = 0, .standby = 1 };
	struct text t;

	(void)unused;
	memset(&m, 0, sizeof(m));
	text_init(&t, buf, sizeof(buf));
	metrics_render(&m, &g, &t);
	assert_non_null(strstr(buf, "\nrlyeh_gateway_ready 0\n"));
	assert_non_null(strstr(buf, "\nrlyeh_shards_owned 0\n"));
	assert_non_null(strstr(buf, "\nrlyeh_standby 1\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shard_gauges),
		cmocka_unit_test(test_no_shards),
		cmocka_unit_test(test_standby),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
