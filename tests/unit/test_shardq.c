/* The IDENTIFY queue: turns per rate-limit bucket, the gap between two
 * turns of a bucket, the order of asking, and the session start limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rlyeh/shardq.h"

#define GAP 5000

/* Every turn given at `now`, in order, written to out; returns how many. */
static int turns(struct shardq *q, int64_t now, int *out, int max, int64_t *wait)
{
	int n = 0, id;

	while (n < max && (id = shardq_next(q, now, wait)) >= 0)
		out[n++] = id;
	return n;
}

static void test_one_bucket_spaced(void **unused)
{
	struct shardq q;
	int got[8];
	int64_t wait;

	(void)unused;
	assert_int_equal(shardq_init(&q, 1, GAP, 8), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(shardq_push(&q, i), 0);
	for (int k = 0; k < 4; k++) {
		assert_int_equal(turns(&q, (int64_t)k * GAP, got, 8, &wait), 1);
		assert_int_equal(got[0], k);
		if (k < 3) {
			assert_int_equal(wait, GAP);
			/* Not a moment early. */
			assert_int_equal(turns(&q, (int64_t)(k + 1) * GAP - 1, got, 8, &wait), 0);
			assert_int_equal(wait, 1);
		}
	}
	assert_int_equal(turns(&q, 100 * GAP, got, 8, &wait), 0);
	assert_int_equal(wait, -1);
	shardq_free(&q);
}

static void test_buckets_together(void **unused)
{
	struct shardq q;
	int got[8];
	int64_t wait;

	(void)unused;
	assert_int_equal(shardq_init(&q, 4, GAP, 8), 0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(shardq_push(&q, i), 0);
	assert_int_equal(turns(&q, 0, got, 8, &wait), 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(got[i], i);
	assert_int_equal(wait, GAP);
	assert_int_equal(turns(&q, GAP, got, 8, &wait), 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(got[i], 4 + i);
	assert_int_equal(shardq_waiting(&q), 0);
	shardq_free(&q);
}

static void test_order_of_asking_and_reidentify(void **unused)
{
	struct shardq q;
	int got[8];
	int64_t wait;

	(void)unused;
	assert_int_equal(shardq_init(&q, 2, GAP, 4), 0);
	/* Shards 3 and 1 share bucket 1: 3 asked first, so it goes first. */
	assert_int_equal(shardq_push(&q, 3), 0);
	assert_int_equal(shardq_push(&q, 1), 0);
	assert_int_equal(shardq_push(&q, 3), 0); /* already waiting: keeps its place */
	assert_int_equal(shardq_waiting(&q), 2);
	assert_int_equal(turns(&q, 1000, got, 8, &wait), 1);
	assert_int_equal(got[0], 3);
	assert_int_equal(wait, GAP);
	/* Bucket 0 is free meanwhile: shard 0 starts at once. */
	assert_int_equal(shardq_push(&q, 0), 0);
	assert_int_equal(turns(&q, 2000, got, 8, &wait), 1);
	assert_int_equal(got[0], 0);
	assert_int_equal(wait, GAP - 1000);
	assert_int_equal(turns(&q, 1000 + GAP, got, 8, &wait), 1);
	assert_int_equal(got[0], 1);
	/* Long after, shard 0 identifies anew (an invalid session): no wait. */
	assert_int_equal(shardq_push(&q, 0), 0);
	assert_int_equal(turns(&q, 50 * GAP, got, 8, &wait), 1);
	assert_int_equal(got[0], 0);
	/* A cancelled shard gets no turn. */
	assert_int_equal(shardq_push(&q, 2), 0);
	shardq_cancel(&q, 2);
	assert_int_equal(turns(&q, 100 * GAP, got, 8, &wait), 0);
	assert_int_equal(wait, -1);
	/* Full. */
	for (int i = 0; i < 4; i++)
		assert_int_equal(shardq_push(&q, 10 + i), 0);
	assert_int_equal(shardq_push(&q, 20), -1);
	shardq_free(&q);
}

static void test_start_limit(void **unused)
{
	struct shardq q;
	int got[8];
	int64_t wait;

	(void)unused;
	assert_int_equal(shardq_init(&q, 4, GAP, 8), 0);
	/* Two starts left; 1000 again at 60 * GAP. */
	shardq_limit(&q, 2, 1000, 60 * GAP);
	for (int i = 0; i < 4; i++)
		assert_int_equal(shardq_push(&q, i), 0);
	assert_int_equal(turns(&q, 0, got, 8, &wait), 2);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 1);
	assert_int_equal(wait, 60 * GAP);
	assert_int_equal(turns(&q, 60 * GAP - 1, got, 8, &wait), 0);
	assert_int_equal(wait, 1);
	assert_int_equal(turns(&q, 60 * GAP, got, 8, &wait), 2);
	assert_int_equal(got[0], 2);
	assert_int_equal(got[1], 3);
	assert_int_equal(q.remaining, 998);
	/* None left from the start: the whole reset is waited. */
	shardq_limit(&q, 0, 1000, 70 * GAP);
	assert_int_equal(shardq_push(&q, 0), 0);
	assert_int_equal(turns(&q, 61 * GAP, got, 8, &wait), 0);
	assert_int_equal(wait, 9 * GAP);
	shardq_free(&q);
}

/* A turn refused by another process: the shard is first in line again, the
 * start is given back, and its bucket stays closed for the hold only. */
static void test_refuse(void **unused)
{
	struct shardq q;
	int got[8];
	int64_t wait;

	(void)unused;
	assert_int_equal(shardq_init(&q, 2, GAP, 8), 0);
	shardq_limit(&q, 10, 10, 1000000);
	assert_int_equal(shardq_push(&q, 0), 0);
	assert_int_equal(shardq_push(&q, 2), 0);
	assert_int_equal(shardq_push(&q, 1), 0);
	assert_int_equal(shardq_next(&q, 0, &wait), 0);
	assert_int_equal(q.remaining, 9);
	assert_int_equal(shardq_refuse(&q, 0, 0, 300), 0);
	assert_int_equal(q.remaining, 10);
	assert_int_equal(shardq_waiting(&q), 3);
	/* bucket 0 is held: bucket 1 goes, then nothing until the hold ends */
	assert_int_equal(turns(&q, 0, got, 8, &wait), 1);
	assert_int_equal(got[0], 1);
	assert_int_equal(wait, 300);
	assert_int_equal(turns(&q, 299, got, 8, &wait), 0);
	/* shard 0 first, as it asked first; shard 2 one gap later */
	assert_int_equal(turns(&q, 300, got, 8, &wait), 1);
	assert_int_equal(got[0], 0);
	assert_int_equal(wait, GAP);
	assert_int_equal(turns(&q, 300 + GAP, got, 8, &wait), 1);
	assert_int_equal(got[0], 2);
	assert_int_equal(q.remaining, 7);
	/* a full queue refuses the refusal */
	shardq_free(&q);
	assert_int_equal(shardq_init(&q, 1, GAP, 1), 0);
	assert_int_equal(shardq_push(&q, 0), 0);
	assert_int_equal(shardq_next(&q, 0, &wait), 0);
	assert_int_equal(shardq_push(&q, 1), 0);
	assert_int_equal(shardq_refuse(&q, 0, 0, 300), -1);
	shardq_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_bucket_spaced),
		cmocka_unit_test(test_buckets_together),
		cmocka_unit_test(test_order_of_asking_and_reidentify),
		cmocka_unit_test(test_start_limit),
		cmocka_unit_test(test_refuse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
