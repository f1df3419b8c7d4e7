/* Weng-Lin Plackett-Luce rating: OpenSkill's published reference values,
 * ties, refused arguments, and invariants over many random games. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/rating.h"

/* OpenSkill's fixtures are compared with exact equality; here the order of a
 * few floating-point operations differs, so a few ulps of slack are allowed. */
#define REF_TOL 1e-12

#define NEW                                                                                        \
	{                                                                                          \
		RATING_MU, RATING_SIGMA                                                            \
	}

static void assert_close(double got, double want, double tol, const char *what, int i)
{
	if (!(fabs(got - want) <= tol * fmax(1.0, fabs(want))))
		fail_msg("%s: player %d: got %.17g, want %.17g", what, i, got, want);
}

struct reference {
	const char *what;
	int n;
	struct rating before[4];
	int rank[4];
	struct rating after[4];
};

/* Single-player teams from philihp/openskill.js, src/__tests__/rate.test.ts
 * (describe 'rate'), whose rate() uses the Plackett-Luce model and the
 * default tau = 25/300. The four-way free-for-all is also asserted, as parity
 * with openskill.py, in src/__tests__/parity-plackett-luce.test.ts. Ranks are
 * copied as written there (1 = first). */
static const struct reference references[] = {
	{ "reverses rank",
	  2,
	  { NEW, NEW },
	  { 2, 1 },
	  { { 22.364610506859503, 8.06590141354368 }, { 27.635389493140497, 8.06590141354368 } } },
	{ "keeps rank",
	  2,
	  { NEW, NEW },
	  { 1, 2 },
	  { { 27.635389493140497, 8.06590141354368 }, { 22.364610506859503, 8.06590141354368 } } },
	{ "plackett-luce by default, four-way free-for-all",
	  4,
	  { { 29.182, 4.782 }, { 27.174, 4.922 }, { 16.672, 6.217 }, NEW },
	  { 1, 2, 3, 4 },
	  { { 30.210227447000438, 4.765617924939384 },
	    { 27.644725221915632, 4.883479590134575 },
	    { 17.4036218889969, 6.101259408259549 },
	    { 19.21460876538932, 7.854669920480409 } } },
	{ "accepts a misordered rank ordering",
	  4,
	  { NEW, NEW, NEW, NEW },
	  { 2, 1, 4, 3 },
	  { { 26.55291815138952, 8.17961798837266 },
	    { 27.795252672501135, 8.263571791259416 },
	    { 20.962412806387245, 8.084127880168786 },
	    { 24.689416369722096, 8.084127880168786 } } },
	{ "accepts a rate ordering",
	  4,
	  { { 15, 25.0 / 3.0 }, { 20, 25.0 / 3.0 }, { 25, 25.0 / 3.0 }, { 30, 25.0 / 3.0 } },
	  { 1, 3, 4, 2 },
	  { { 18.131120980297805, 8.283536573151807 },
	    { 20.405169039419135, 8.107860440531121 },
	    { 20.65583040714804, 8.082574596348321 },
	    { 30.80787957313502, 8.155100416275928 } } },
	{ "allows ties",
	  3,
	  { { 10, 8 }, { 5, 10 }, { 0, 12 } },
	  { 1, 2, 2 },
	  { { 11.942996666741225, 7.926888197620324 },
	    { 2.9381178546315034, 9.653804487570165 },
	    { -1.4024317012198733, 11.323641575516767 } } },
	{ "fixes orders of ties",
	  4,
	  { { 15, 25.0 / 3.0 }, { 20, 25.0 / 3.0 }, { 25, 25.0 / 3.0 }, { 30, 25.0 / 3.0 } },
	  { 2, 4, 2, 1 },
	  { { 15.340043358359136, 8.213141619804967 },
	    { 18.007678675484204, 8.189033933813437 },
	    { 24.25801928251219, 8.166918055585525 },
	    { 32.39425868364447, 8.247687230833794 } } },
	{ "four-way-tie with newbies",
	  4,
	  { NEW, NEW, NEW, NEW },
	  { 1, 1, 1, 1 },
	  { { 25, 8.263571791259416 },
	    { 25, 8.263571791259416 },
	    { 25, 8.263571791259416 },
	    { 25, 8.263571791259416 } } },
	/* score [1, 1, 1]: a three-way tie */
	{ "accepts a score instead of rank",
	  3,
	  { NEW, NEW, NEW },
	  { 0, 0, 0 },
	  { { 25, 8.205243377397993 }, { 25, 8.205243377397993 }, { 25, 8.205243377397993 } } },
};

static void test_openskill_reference_values(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof references / sizeof references[0]; k++) {
		const struct reference *ref = &references[k];
		struct rating r[4];

		memcpy(r, ref->before, sizeof r);
		assert_int_equal(rating_update(r, ref->rank, ref->n), 0);
		for (int i = 0; i < ref->n; i++) {
			assert_close(r[i].mu, ref->after[i].mu, REF_TOL, ref->what, i);
			assert_close(r[i].sigma, ref->after[i].sigma, REF_TOL, ref->what, i);
		}
	}
}

static void test_defaults(void **state)
{
	struct rating r;

	(void)state;
	rating_default(&r);
	assert_true(r.mu == 25.0);
	assert_true(r.sigma == 25.0 / 3.0);
	assert_close(rating_ordinal(&r), 0.0, 1e-12, "new player ordinal", 0);
	r.mu = 30.0;
	r.sigma = 2.0;
	assert_true(rating_ordinal(&r) == 24.0);
}

static void test_two_player_win(void **state)
{
	struct rating r[2];
	const int rank[2] = { 1, 0 };

	(void)state;
	rating_default(&r[0]);
	rating_default(&r[1]);
	assert_int_equal(rating_update(r, rank, 2), 0);
	assert_true(r[1].mu > RATING_MU);
	assert_true(r[0].mu < RATING_MU);
	assert_close(r[0].mu + r[1].mu, 2 * RATING_MU, 1e-12, "mu is conserved", 0);
	assert_true(r[0].sigma == r[1].sigma);
	assert_true(r[0].sigma < RATING_SIGMA);
	assert_true(rating_ordinal(&r[1]) > rating_ordinal(&r[0]));
}

static void test_free_for_all(void **state)
{
	struct rating r[6];
	const int rank[6] = { 3, 0, 5, 1, 4, 2 };
	const int order[6] = { 1, 3, 5, 0, 4, 2 }; /* players from first to last */

	(void)state;
	for (int i = 0; i < 6; i++)
		rating_default(&r[i]);
	assert_int_equal(rating_update(r, rank, 6), 0);
	assert_true(r[order[0]].mu > RATING_MU);
	assert_true(r[order[5]].mu < RATING_MU);
	for (int k = 1; k < 6; k++)
		assert_true(r[order[k]].mu < r[order[k - 1]].mu);
}

/* Cthulhu Dice: one winner, everybody else tied last. */
static void test_one_winner_rest_tied(void **state)
{
	struct rating r[5];
	const int rank[5] = { 1, 1, 0, 1, 1 };

	(void)state;
	for (int i = 0; i < 5; i++)
		rating_default(&r[i]);
	assert_int_equal(rating_update(r, rank, 5), 0);
	assert_true(r[2].mu > RATING_MU);
	for (int i = 0; i < 5; i++) {
		if (i == 2)
			continue;
		assert_true(r[i].mu < RATING_MU);
		assert_true(r[i].mu == r[0].mu);
		assert_true(r[i].sigma == r[0].sigma);
	}
}

/* Cthulhu wins: everybody ties. Equal players keep their mu; unequal ones are
 * drawn towards each other. */
static void test_all_tied(void **state)
{
	struct rating r[4];
	struct rating u[3] = { { 30, 5 }, { 25, 6 }, { 20, 7 } };
	const int rank[4] = { 0, 0, 0, 0 };

	(void)state;
	for (int i = 0; i < 4; i++)
		rating_default(&r[i]);
	assert_int_equal(rating_update(r, rank, 4), 0);
	for (int i = 0; i < 4; i++) {
		assert_close(r[i].mu, RATING_MU, 1e-12, "all tied, mu", i);
		assert_true(r[i].sigma < RATING_SIGMA);
	}

	assert_int_equal(rating_update(u, rank, 3), 0);
	assert_true(u[0].mu < 30.0);
	assert_true(u[2].mu > 20.0);
	assert_true(u[0].mu > u[1].mu && u[1].mu > u[2].mu);
}

/* Only the order of the ranks matters, and so does not the order of the
 * players. */
static void test_rank_values_and_player_order(void **state)
{
	const struct rating start[4] = { { 31, 4 }, { 22, 7 }, { 25, 25.0 / 3.0 }, { 18, 6 } };
	const int dense[4] = { 1, 0, 2, 1 };
	const int sparse[4] = { 7, 3, 12, 7 };
	const int perm[4] = { 2, 0, 3, 1 };
	struct rating a[4], b[4], c[4];
	int rank_c[4];

	(void)state;
	memcpy(a, start, sizeof a);
	memcpy(b, start, sizeof b);
	for (int k = 0; k < 4; k++) {
		c[k] = start[perm[k]];
		rank_c[k] = dense[perm[k]];
	}
	assert_int_equal(rating_update(a, dense, 4), 0);
	assert_int_equal(rating_update(b, sparse, 4), 0);
	assert_int_equal(rating_update(c, rank_c, 4), 0);
	for (int i = 0; i < 4; i++) {
		assert_true(a[i].mu == b[i].mu && a[i].sigma == b[i].sigma);
		assert_close(c[i].mu, a[perm[i]].mu, 1e-13, "permuted mu", i);
		assert_close(c[i].sigma, a[perm[i]].sigma, 1e-13, "permuted sigma", i);
	}
}

static void expect_refused(struct rating *r, const int *rank, int n, const char *what)
{
	struct rating before[RATING_MAX_PLAYERS + 1];

	memcpy(before, r, sizeof before);
	if (rating_update(r, rank, n) != -1)
		fail_msg("%s: not refused", what);
	if (memcmp(before, r, sizeof before) != 0)
		fail_msg("%s: ratings changed", what);
}

static void test_bad_arguments(void **state)
{
	struct rating r[RATING_MAX_PLAYERS + 1];
	int rank[RATING_MAX_PLAYERS + 1];

	(void)state;
	for (int i = 0; i <= RATING_MAX_PLAYERS; i++) {
		rating_default(&r[i]);
		r[i].mu += i;
		rank[i] = i;
	}
	assert_int_equal(rating_update(NULL, rank, 2), -1);
	expect_refused(r, NULL, 2, "NULL rank");
	expect_refused(r, rank, -1, "n = -1");
	expect_refused(r, rank, 0, "n = 0");
	expect_refused(r, rank, 1, "n = 1");
	expect_refused(r, rank, RATING_MAX_PLAYERS + 1, "n too large");

	rank[1] = -1;
	expect_refused(r, rank, 3, "negative rank");
	rank[1] = 1;

	r[2].mu = NAN;
	expect_refused(r, rank, 3, "NaN mu");
	r[2].mu = INFINITY;
	expect_refused(r, rank, 3, "infinite mu");
	r[2].mu = 25.0;
	r[2].sigma = -1.0;
	expect_refused(r, rank, 3, "negative sigma");
	r[2].sigma = NAN;
	expect_refused(r, rank, 3, "NaN sigma");
	r[2].sigma = INFINITY;
	expect_refused(r, rank, 3, "infinite sigma");
	r[2].sigma = 1e300;
	expect_refused(r, rank, 3, "sigma whose square overflows");
	r[2].sigma = RATING_SIGMA;

	assert_int_equal(rating_update(r, rank, RATING_MAX_PLAYERS), 0);
	assert_int_equal(rating_update(r, rank, 2), 0);
}

static void test_far_apart_ratings_stay_finite(void **state)
{
	struct rating r[3] = { { 1e5, 1 }, { -1e5, 1 }, { 0, 0 } };
	const int rank[3] = { 2, 0, 1 };

	(void)state;
	assert_int_equal(rating_update(r, rank, 3), 0);
	for (int i = 0; i < 3; i++) {
		assert_true(isfinite(r[i].mu));
		assert_true(isfinite(r[i].sigma) && r[i].sigma > 0.0);
	}
	assert_true(r[1].mu > -1e5);
	assert_true(r[0].mu < 1e5);
}

static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

/* Random tables of 2 to 16 drawn from 40 players, with random places and
 * frequent ties: values stay finite, sigma stays positive and never exceeds
 * sqrt(sigma^2 + tau^2), the sole winner never loses mu and the sole loser
 * never gains it. */
static void test_random_games(void **state)
{
	enum { PLAYERS = 40, GAMES = 20000 };
	struct rating pool[PLAYERS];
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	(void)state;
	for (int p = 0; p < PLAYERS; p++)
		rating_default(&pool[p]);

	for (int g = 0; g < GAMES; g++) {
		int n = 2 + (int)(next_random(&seed) % (RATING_MAX_PLAYERS - 1));
		int places = 1 + (int)(next_random(&seed) % (uint64_t)n);
		int seat[RATING_MAX_PLAYERS];
		int rank[RATING_MAX_PLAYERS];
		struct rating r[RATING_MAX_PLAYERS];
		struct rating before[RATING_MAX_PLAYERS];
		int best = places, worst = -1, n_best = 0, n_worst = 0;

		for (int i = 0; i < n; i++) {
			int p;
			int taken;

			do {
				p = (int)(next_random(&seed) % PLAYERS);
				taken = 0;
				for (int j = 0; j < i; j++)
					taken |= seat[j] == p;
			} while (taken);
			seat[i] = p;
			rank[i] = (int)(next_random(&seed) % (uint64_t)places);
			r[i] = pool[p];
			before[i] = r[i];
			if (rank[i] < best)
				best = rank[i];
			if (rank[i] > worst)
				worst = rank[i];
		}
		for (int i = 0; i < n; i++) {
			n_best += rank[i] == best;
			n_worst += rank[i] == worst;
		}

		assert_int_equal(rating_update(r, rank, n), 0);
		for (int i = 0; i < n; i++) {
			double widened =
			    sqrt(before[i].sigma * before[i].sigma + RATING_TAU * RATING_TAU);

			if (!isfinite(r[i].mu) || !isfinite(r[i].sigma))
				fail_msg("game %d: player %d is not finite", g, seat[i]);
			if (!(r[i].sigma > 0.0 && r[i].sigma <= widened))
				fail_msg("game %d: sigma %.17g outside (0, %.17g]", g, r[i].sigma,
				         widened);
			if (best != worst && n_best == 1 && rank[i] == best)
				assert_true(r[i].mu >= before[i].mu);
			if (best != worst && n_worst == 1 && rank[i] == worst)
				assert_true(r[i].mu <= before[i].mu);
			pool[seat[i]] = r[i];
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openskill_reference_values),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_two_player_win),
		cmocka_unit_test(test_free_for_all),
		cmocka_unit_test(test_one_winner_rest_tied),
		cmocka_unit_test(test_all_tied),
		cmocka_unit_test(test_rank_values_and_player_order),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_far_apart_ratings_stay_finite),
		cmocka_unit_test(test_random_games),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
