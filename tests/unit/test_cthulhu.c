/* The CTHULHU!!! engine as a whole: seeded games checked against the
 * invariants of §16 after every transition, and replayed from their logs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/cthulhu.h"

/* Games of each property run; CTHULHU_GAMES in the environment overrides. */
static int games_to_play(int fallback)
{
	const char *e = getenv("CTHULHU_GAMES");
	return e && atoi(e) > 0 ? atoi(e) : fallback;
}

/* Counted cards played per seat since the start of that seat's turn (§16.7). */
struct round_count {
	int played[CTHULHU_MAX];
};

/* Checks the invariants that need the transition's events: 4 (figures on a
 * site stay there), 7 (one counted card per round) and 9's strict
 * placement clause. Returns 0 or the invariant number. */
static int check_events(const struct cthulhu *before, const struct cthulhu *after,
                        const struct game_events *ev, struct round_count *rc, char *why, size_t n)
{
	for (int i = 0; i < ev->n; i++) {
		const struct game_event *e = &ev->ev[i];
		switch (e->kind) {
		case CV_TURN:
			rc->played[e->seat] = 0;
			break;
		case CV_CARD: {
			int kind = cthulhu_card_kind(e->target);
			if (cthulhu_card(kind)->category != CC_AUTOMATIC &&
			    ++rc->played[e->seat] > 1) {
				snprintf(why, n, "seat %d played a second counted card (%s)",
				         e->seat, cthulhu_card(kind)->id);
				return 7;
			}
			break;
		}
		case CV_FIGURE: {
			int from = e->target / 9, to = e->value / 9;
			if (from >= CMAP_SITE_FIRST && to != from) {
				snprintf(why, n, "a figure left site %s", cmap_tile(from)->id);
				return 4;
			}
			break;
		}
		case CV_ROTATE:
			if ((e->value >> 4) == CMAP_STRICT) {
				int unplaced = 0;
				for (int t = 0; t < CMAP_TILES; t++)
					unplaced += after->map.where[t] == CMAP_UNPLACED;
				if (unplaced && cmap_streets(&after->map, NULL) == 0) {
					snprintf(why, n,
					         "a strict placement closed the last open street");
					return 9;
				}
			}
			break;
		default:
			break;
		}
	}
	(void)before;
	return 0;
}

/* Plays one seeded game with the given policy for every seat, checking
 * after every transition; fails with the seed and the transition number. */
static long play_checked(uint64_t seed, int players, const struct game_policy *pol, int cap,
                         uint64_t *hashes, int *values, long max)
{
	struct cthulhu g, prev;
	struct game_setup setup = { .players = players, .rounds = cap };
	struct rng rng;
	struct game_step st;
	struct game_events ev;
	struct round_count rc = { { 0 } };
	char why[200];
	long t = 0;

	rng_seed(&rng, seed);
	assert_int_equal(cthulhu_init(&g, &setup), GAME_OK);
	for (;;) {
		int v, bad;
		cthulhu_step(&g, &st);
		if (st.node == GAME_NODE_OVER)
			break;
		v = st.node == GAME_NODE_CHANCE ? (int)rng_below(&rng, (uint32_t)st.count)
		                                : pol->choose(&g, &st, &rng);
		if (st.node == GAME_NODE_CHOICE && st.count < 2)
			fail_msg("seed %llu transition %ld: a choice with %d options",
			         (unsigned long long)seed, t, st.count);
		prev = g;
		ev.n = 0;
		if (cthulhu_apply(&g, v, &ev) != GAME_OK)
			fail_msg("seed %llu transition %ld: value %d refused",
			         (unsigned long long)seed, t, v);
		bad = cthulhu_check(&g, why, sizeof why);
		if (!bad)
			bad = check_events(&prev, &g, &ev, &rc, why, sizeof why);
		if (bad)
			fail_msg("seed %llu transition %ld (%s): invariant %d broken: %s",
			         (unsigned long long)seed, t, pol->name, bad, why);
		if (values && t < max) {
			values[t] = v;
			hashes[t] = cthulhu_hash(&g);
		}
		t++;
		if (t > 2000000)
			fail_msg("seed %llu: no end after %ld transitions",
			         (unsigned long long)seed, t);
	}
	return t;
}

/* §16 after every transition: thousands of seeded games, computer players
 * of both kinds, 2 to 6 seats, the C19 cap on. */
static void test_invariants_property(void **state)
{
	(void)state;
	const struct game_policy *base = game_policy_find(&cthulhu_ops, "baseline");
	const struct game_policy *rnd = game_policy_find(&cthulhu_ops, "random");
	int games = games_to_play(400);
	for (int i = 0; i < games; i++) {
		int players = 2 + i % 5;
		play_checked(1000 + (uint64_t)i, players, i % 2 ? rnd : base, 200, NULL, NULL, 0);
	}
}

/* §16.13: replaying the log reproduces the state after every transition. */
static void test_replay_hash(void **state)
{
	(void)state;
	enum { MAX = 400000 };
	uint64_t *hashes = malloc(sizeof *hashes * MAX);
	int *values = malloc(sizeof *values * MAX);
	const struct game_policy *pol[2] = { game_policy_find(&cthulhu_ops, "baseline"),
		                             game_policy_find(&cthulhu_ops, "random") };
	assert_non_null(hashes);
	assert_non_null(values);
	for (int i = 0; i < games_to_play(40); i++) {
		struct cthulhu g;
		struct game_setup setup = { .players = 2 + i % 5, .rounds = 200 };
		long n = play_checked(77 + (uint64_t)i, setup.players, pol[i % 2], 200, hashes,
		                      values, MAX);
		assert_true(n <= MAX);
		assert_int_equal(cthulhu_init(&g, &setup), GAME_OK);
		for (long t = 0; t < n; t++) {
			assert_int_equal(cthulhu_apply(&g, values[t], NULL), GAME_OK);
			if (cthulhu_hash(&g) != hashes[t])
				fail_msg("seed %d transition %ld: replay differs", 77 + i, t);
		}
	}
	free(hashes);
	free(values);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invariants_property),
		cmocka_unit_test(test_replay_hash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
