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

#include "rlyeh/ctgame.h"

/* Games of each property run; CTHULHU_GAMES in the environment overrides. */
static int games_to_play(int fallback)
{
	const char *e = getenv("CTHULHU_GAMES");
	return e && atoi(e) > 0 ? atoi(e) : fallback;
}

/* Counted cards played per seat since the start of that seat's turn (§16.7). */
struct round_count {
	int played[CTGAME_MAX];
};

/* Checks the invariants that need the transition's events: 4 (figures on a
 * site stay there), 7 (one counted card per round) and 9's strict
 * placement clause. Returns 0 or the invariant number. */
static int check_events(const struct ctgame *before, const struct ctgame *after,
                        const struct game_events *ev, struct round_count *rc, char *why, size_t n)
{
	for (int i = 0; i < ev->n; i++) {
		const struct game_event *e = &ev->ev[i];
		switch (e->kind) {
		case CV_TURN:
			rc->played[e->seat] = 0;
			break;
		case CV_CARD: {
			int kind = ctgame_card_kind(e->target);
			if (ctgame_card(kind)->category != CC_AUTOMATIC &&
			    ++rc->played[e->seat] > 1) {
				snprintf(why, n, "seat %d played a second counted card (%s)",
				         e->seat, ctgame_card(kind)->id);
				return 7;
			}
			break;
		}
		case CV_FIGURE: {
			int from = e->target / 9, to = e->value / 9;
			if (from >= CTMAP_SITE_FIRST && to != from) {
				snprintf(why, n, "a figure left site %s", ctmap_tile(from)->id);
				return 4;
			}
			break;
		}
		case CV_ROTATE:
			if ((e->value >> 4) == CTMAP_STRICT) {
				int unplaced = 0;
				for (int t = 0; t < CTMAP_TILES; t++)
					unplaced += after->map.where[t] == CTMAP_UNPLACED;
				if (unplaced && ctmap_streets(&after->map, NULL) == 0) {
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

/* Plays one seeded game with policy pol[seat] for each seat, checking
 * after every transition; fails with the seed and the transition number.
 * With `values`, records up to `max` applied values and the state's digest
 * after each. Returns the number of transitions. */
static long play_checked(uint64_t seed, int players, const struct game_policy *const *pol, int cap,
                         uint64_t *hashes, int *values, long max)
{
	struct ctgame g, prev;
	struct game_setup setup = { .players = players, .rounds = cap };
	struct rng rng;
	struct game_step st;
	struct game_events ev;
	struct round_count rc = { { 0 } };
	char why[200];
	long t = 0;

	rng_seed(&rng, seed);
	assert_int_equal(ctgame_init(&g, &setup), GAME_OK);
	for (;;) {
		int v, bad;
		ctgame_step(&g, &st);
		if (st.node == GAME_NODE_OVER)
			break;
		v = st.node == GAME_NODE_CHANCE ? (int)rng_below(&rng, (uint32_t)st.count)
		                                : pol[st.seat]->choose(&g, &st, &rng);
		if (st.node == GAME_NODE_CHOICE && st.count < 2)
			fail_msg("seed %llu transition %ld: a choice with %d options",
			         (unsigned long long)seed, t, st.count);
		prev = g;
		ev.n = 0;
		if (ctgame_apply(&g, v, &ev) != GAME_OK)
			fail_msg("seed %llu transition %ld: value %d refused",
			         (unsigned long long)seed, t, v);
		if (ev.n >= GAME_MAX_EVENTS)
			fail_msg("seed %llu transition %ld: %d events fill the buffer",
			         (unsigned long long)seed, t, ev.n);
		bad = ctgame_check(&g, why, sizeof why);
		if (!bad)
			bad = check_events(&prev, &g, &ev, &rc, why, sizeof why);
		if (bad)
			fail_msg("seed %llu, %d players, cap %d, transition %ld: invariant %d "
			         "broken: %s",
			         (unsigned long long)seed, players, cap, t, bad, why);
		if (values && t < max) {
			values[t] = v;
			hashes[t] = ctgame_hash(&g);
		}
		t++;
		if (t > 2000000)
			fail_msg("seed %llu: no end after %ld transitions",
			         (unsigned long long)seed, t);
	}
	return t;
}

/* The seats of game i: baseline everywhere, random everywhere, or the two
 * alternating (random takes every kind of decision at some point, baseline
 * plays games to their real ends). */
static void seat_policies(int i, const struct game_policy **pol)
{
	const struct game_policy *base = game_policy_find(&ctgame_ops, "baseline");
	const struct game_policy *rnd = game_policy_find(&ctgame_ops, "random");
	for (int s = 0; s < CTGAME_MAX; s++)
		pol[s] = i % 4 == 0 ? rnd : i % 4 == 1 && s % 2 ? rnd : base;
}

/* The C19 cap of game i: 30 rounds for the all-random tables, which rarely
 * end before, 200 otherwise. */
static int cap_of(int i)
{
	return i % 4 == 0 ? 30 : 200;
}

/* §16 after every transition of thousands of seeded games, 2 to 6 seats. */
static void test_invariants_property(void **state)
{
	(void)state;
	int games = games_to_play(2000);
	for (int i = 0; i < games; i++) {
		const struct game_policy *pol[CTGAME_MAX];
		seat_policies(i, pol);
		play_checked(1000 + (uint64_t)i, 2 + i % 5, pol, cap_of(i), NULL, NULL, 0);
	}
}

/* §16.13: replaying the log reproduces the state after every transition. */
static void test_replay_hash(void **state)
{
	(void)state;
	enum { MAX = 400000 };
	uint64_t *hashes = malloc(sizeof *hashes * MAX);
	int *values = malloc(sizeof *values * MAX);
	assert_non_null(hashes);
	assert_non_null(values);
	for (int i = 0; i < games_to_play(60); i++) {
		struct ctgame g;
		const struct game_policy *pol[CTGAME_MAX];
		struct game_setup setup = { .players = 2 + i % 5, .rounds = cap_of(i) };
		seat_policies(i, pol);
		long n = play_checked(77 + (uint64_t)i, setup.players, pol, setup.rounds, hashes,
		                      values, MAX);
		assert_true(n <= MAX);
		assert_int_equal(ctgame_init(&g, &setup), GAME_OK);
		for (long t = 0; t < n; t++) {
			assert_int_equal(ctgame_apply(&g, values[t], NULL), GAME_OK);
			if (ctgame_hash(&g) != hashes[t])
				fail_msg("seed %d transition %ld: replay differs", 77 + i, t);
		}
	}
	free(hashes);
	free(values);
}

/* C15: games in which every decision times out still end, keep the
 * invariants, and each default is the one the table prescribes. */
static void test_timeout_defaults(void **state)
{
	(void)state;
	long seen[CA_RELIC_TAKE + 1] = { 0 };
	for (int i = 0; i < games_to_play(2000) / 20; i++) {
		struct ctgame g;
		struct game_setup setup = { .players = 2 + i % 5, .rounds = 60 };
		struct rng rng;
		struct game_step st;
		struct ctgame_option o[CTGAME_OPTIONS];
		rng_seed(&rng, 4000 + (uint64_t)i);
		assert_int_equal(ctgame_init(&g, &setup), GAME_OK);
		for (;;) {
			int v;
			ctgame_step(&g, &st);
			if (st.node == GAME_NODE_OVER)
				break;
			if (st.node == GAME_NODE_CHANCE) {
				v = (int)rng_below(&rng, (uint32_t)st.count);
			} else {
				int n = ctgame_options(&g, o);
				v = ctgame_default(&g);
				assert_true(v >= 0 && v < n);
				seen[st.kind]++;
				switch (st.kind) {
				case CA_PLAY: {
					int sanctify = 0;
					for (int k = 0; k < n; k++)
						sanctify |= o[k].what == CO_SANCTIFY;
					assert_int_equal(o[v].what,
					                 sanctify ? CO_SANCTIFY : CO_PASS);
					break;
				}
				case CA_FAILED:
					assert_true(o[v].what == CO_SPEND || o[v].what == CO_LOSE);
					break;
				case CA_MOVE:
					assert_int_equal(o[v].what, CO_STOP);
					break;
				case CA_DISCARD:
					if (g.p[g.seat].hand <= CTGAME_HAND)
						assert_int_equal(o[v].what, CO_STOP);
					break;
				case CA_FIGURE:
				case CA_DEST:
				case CA_RESEED:
					assert_int_equal(v, ctgame_hunt(&g));
					break;
				default:
					break;
				}
			}
			assert_int_equal(ctgame_apply(&g, v, NULL), GAME_OK);
		}
		assert_int_equal(ctgame_check(&g, NULL, 0), 0);
	}
	assert_true(seen[CA_PLAY] > 0 && seen[CA_FAILED] > 0 && seen[CA_FIGURE] > 0 &&
	            seen[CA_TILE] > 0 && seen[CA_TOKENS] > 0);
}

/* C17: a seat may leave at any moment after the deal; the game goes on
 * without it, never asks it anything again, keeps every invariant and
 * ends. Refusals of leave change nothing. */
static void test_leave_anytime(void **state)
{
	(void)state;
	for (int i = 0; i < games_to_play(2000) / 10; i++) {
		const struct game_policy *pol[CTGAME_MAX];
		struct game_setup setup = { .players = 2 + i % 5, .rounds = 40 };
		struct ctgame g, before;
		struct rng rng;
		struct game_step st;
		char why[200];
		long t = 0;
		uint8_t gone = 0;
		seat_policies(i, pol);
		rng_seed(&rng, 9000 + (uint64_t)i);
		assert_int_equal(ctgame_init(&g, &setup), GAME_OK);
		before = g;
		assert_int_equal(ctgame_leave(&g, 0, NULL), GAME_EPHASE);
		assert_memory_equal(&before, &g, sizeof g);
		for (;; t++) {
			int v;
			ctgame_step(&g, &st);
			if (st.node == GAME_NODE_OVER)
				break;
			if (st.seat >= 0 && (gone >> st.seat & 1))
				fail_msg("seed %d transition %ld: seat %d left but is asked",
				         9000 + i, t, st.seat);
			if (g.round > 0 && rng_below(&rng, 150) == 0) {
				int s = (int)rng_below(&rng, (uint32_t)setup.players);
				before = g;
				if (g.p[s].out) {
					assert_int_equal(ctgame_leave(&g, s, NULL), GAME_EARG);
					assert_memory_equal(&before, &g, sizeof g);
				} else {
					assert_int_equal(ctgame_leave(&g, s, NULL), GAME_OK);
					gone |= (uint8_t)(1 << s);
					assert_true(g.p[s].out);
				}
				if (ctgame_check(&g, why, sizeof why))
					fail_msg("seed %d transition %ld: after seat %d left: %s",
					         9000 + i, t, s, why);
				continue;
			}
			v = st.node == GAME_NODE_CHANCE ? (int)rng_below(&rng, (uint32_t)st.count)
			                                : pol[st.seat]->choose(&g, &st, &rng);
			assert_int_equal(ctgame_apply(&g, v, NULL), GAME_OK);
			if (ctgame_check(&g, why, sizeof why))
				fail_msg("seed %d transition %ld: %s", 9000 + i, t, why);
		}
		before = g;
		assert_int_equal(ctgame_leave(&g, 0, NULL), GAME_EOVER);
		assert_memory_equal(&before, &g, sizeof g);
	}
}

/* The digest sees every field: changing one byte of a position changes it. */
static void test_hash_sees_changes(void **state)
{
	(void)state;
	struct ctgame g, h;
	struct game_setup setup = { .players = 3 };
	assert_int_equal(ctgame_init(&g, &setup), GAME_OK);
	for (size_t i = 0; i < sizeof g; i += 97) {
		h = g;
		((unsigned char *)&h)[i] ^= 1;
		assert_true(ctgame_hash(&h) != ctgame_hash(&g));
	}
}

/* The checker fails a broken position, naming the invariant. */
static void test_check_catches(void **state)
{
	(void)state;
	struct ctgame g, h;
	struct game_setup setup = { .players = 3 };
	char why[200];
	assert_int_equal(ctgame_init(&g, &setup), GAME_OK);
	assert_int_equal(ctgame_check(&g, why, sizeof why), 0);
	h = g;
	h.hearts++;
	assert_int_equal(ctgame_check(&h, why, sizeof why), 1);
	h = g;
	h.square[CTGAME_CHURCH_SQ] |= CS_CULTIST;
	assert_int_equal(ctgame_check(&h, why, sizeof why), 2);
	h = g;
	h.square[0] |= CS_HEART; /* a blocked corner of the Church */
	h.hearts--;
	assert_int_equal(ctgame_check(&h, why, sizeof why), 3);
	h = g;
	h.p[1].hearts = 0;
	h.hearts++;
	assert_int_equal(ctgame_check(&h, why, sizeof why), 5);
	h = g;
	h.card_at[0] = CW_PLAY + 1;
	h.card_at[1] = CW_PLAY + 1; /* two Trench Knives */
	assert_int_equal(ctgame_check(&h, why, sizeof why), 6);
	h = g;
	h.sanctified = 1;
	assert_int_equal(ctgame_check(&h, why, sizeof why), 8);
	h = g;
	h.end = CE_SAVED;
	assert_int_equal(ctgame_check(&h, why, sizeof why), 11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invariants_property), cmocka_unit_test(test_replay_hash),
		cmocka_unit_test(test_timeout_defaults),    cmocka_unit_test(test_leave_anytime),
		cmocka_unit_test(test_hash_sees_changes),   cmocka_unit_test(test_check_catches),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
