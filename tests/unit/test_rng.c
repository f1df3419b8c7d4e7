/* rng: reproducible streams and unbiased bounded draws. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rlyeh/rng.h"

static void test_same_seed_same_stream(void **unused)
{
	struct rng a, b, c;

	(void)unused;
	rng_seed_stream(&a, 7, 3);
	rng_seed_stream(&b, 7, 3);
	rng_seed_stream(&c, 7, 4);
	int differ = 0;
	for (int i = 0; i < 1000; i++) {
		uint64_t x = rng_next(&a);
		assert_true(x == rng_next(&b));
		differ += x != rng_next(&c);
	}
	assert_true(differ > 990);
}

/* The reference output of xoshiro256** for the state {1, 2, 3, 4}. */
static void test_reference_vector(void **unused)
{
	struct rng r = { { 1, 2, 3, 4 } };

	(void)unused;
	assert_true(rng_next(&r) == 11520ULL);
	assert_true(rng_next(&r) == 0ULL);
	assert_true(rng_next(&r) == 1509978240ULL);
	assert_true(rng_next(&r) == 1215971899390074240ULL);
}

static void test_seed_zero_is_valid(void **unused)
{
	struct rng r;

	(void)unused;
	rng_seed(&r, 0);
	assert_true((r.s[0] | r.s[1] | r.s[2] | r.s[3]) != 0);
}

/* A d12 over 1.2M draws: every face within 5 standard deviations, and a
 * chi-square with 11 degrees of freedom below its 0.999 quantile (31.26). */
static void test_below_uniform(void **unused)
{
	enum { N = 1200000, SIDES = 12 };
	long count[SIDES] = { 0 };
	double chi = 0, expect = (double)N / SIDES;
	struct rng r;

	(void)unused;
	rng_seed(&r, 2024);
	for (int i = 0; i < N; i++) {
		uint32_t v = rng_below(&r, SIDES);
		assert_true(v < SIDES);
		count[v]++;
	}
	for (int s = 0; s < SIDES; s++)
		chi += (count[s] - expect) * (count[s] - expect) / expect;
	assert_true(chi < 31.26);
	assert_true(rng_below(&r, 1) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_seed_same_stream),
		cmocka_unit_test(test_reference_vector),
		cmocka_unit_test(test_seed_zero_is_valid),
		cmocka_unit_test(test_below_uniform),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
