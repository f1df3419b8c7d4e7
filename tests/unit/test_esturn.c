/* The Elder Signs turn solved exactly and the policy "best": the EV-optimal
 * rule's value against an exact evaluation written here and against a
 * seeded simulation, the reach table likewise, decisions at the end of the
 * game, and "best" against "expect" in seat-rotated games. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/esturn.h"

/* Expected points per turn of the EV-optimal stopping rule. */
#define TURN_VALUE 2.5136

static struct esigns fresh(int players)
{
	struct esigns g;
	struct game_setup setup = { .players = players };

	assert_int_equal(esigns_init(&g, &setup), GAME_OK);
	return g;
}

/* ---- an exact evaluation, independent of esturn's programme ---- */

/* Memo of the value of DECIDE states, by hand, stash, pile and stake, in
 * an open-addressed table. */
#define MEMO_BITS 20
struct memo {
	uint64_t *key; /* 0: empty */
	double *value;
	long used;
};

static uint64_t key_of(const struct esigns *g)
{
	uint64_t k = g->signs + 1;

	for (int i = 0; i < ESIGNS_KINDS; i++)
		k = ((k * 16 + g->hand[i]) * 16 + g->stash[i]) * 16 + g->pile[i];
	return k;
}

static long slot_of(const struct memo *m, uint64_t key)
{
	long mask = (1L << MEMO_BITS) - 1;
	long i = (long)((key * 0x9E3779B97F4A7C15ull) >> (64 - MEMO_BITS));

	while (m->key[i] && m->key[i] != key)
		i = (i + 1) & mask;
	return i;
}

typedef double (*leaf_fn)(struct memo *m, const struct esigns *g, int param);

/* Seat 0 continues from the DECIDE node `g`: the sum over the outcomes of
 * the draws and the throw, by the engine's own moves, of p times leaf()
 * at the next DECIDE node (0 when downed); `self` receives the chance of
 * coming back to g itself. */
static double expand(struct memo *m, const struct esigns *at, uint64_t me, double p, double *self,
                     leaf_fn leaf, int param, int gained, const struct esigns *from)
{
	struct esigns g = *at;
	double sum = 0.0;

	if (g.phase == ESIGNS_DECIDE) {
		if (key_of(&g) == me) {
			*self += p;
			return 0.0;
		}
		return p * leaf(m, &g, param - (int)(g.signs - from->signs) + gained);
	}
	if (g.turn > 0)
		return 0.0; /* downed: the turn ended */
	if (g.phase == ESIGNS_DRAW) {
		for (int k = 0; k < ESIGNS_KINDS; k++) {
			struct esigns h = g;
			double q = (double)g.bag[k] / (g.bag[0] + g.bag[1] + g.bag[2]);
			if (!g.bag[k])
				continue;
			assert_int_equal(esigns_draw(&h, (enum esigns_kind)k, NULL), GAME_OK);
			sum += expand(m, &h, me, p * q, self, leaf, param, gained, from);
		}
		return sum;
	}
	for (int f = 0; f < ESIGNS_FACES; f++) {
		struct esigns h = g;
		int kind = esigns_rolling(&g), faces = 0;
		for (int v = 0; v < ESIGNS_DIE; v++)
			faces += esigns_die_face((enum esigns_kind)kind, v) == (enum esigns_face)f;
		assert_int_equal(esigns_roll(&h, (enum esigns_face)f, NULL), GAME_OK);
		sum += expand(m, &h, me, p * faces / ESIGNS_DIE, self, leaf, param, gained, from);
	}
	return sum;
}

/* The value of seat 0 following esturn_ev_choice from DECIDE node g. */
static double ev_value(struct memo *m, const struct esigns *g, int unused)
{
	uint64_t key = key_of(g);
	long i = slot_of(m, key);
	struct esigns h = *g;
	double self = 0.0, v;

	(void)unused;
	if (m->key[i])
		return m->value[i];
	if (esturn_ev_choice(g) == ESIGNS_RETREAT) {
		v = g->signs;
	} else {
		assert_int_equal(esigns_decide(&h, ESIGNS_CONTINUE, NULL), GAME_OK);
		v = expand(m, &h, key, 1.0, &self, ev_value, 0, 0, g);
		v /= 1.0 - self;
	}
	i = slot_of(m, key);
	m->key[i] = key;
	m->value[i] = v;
	assert_true(++m->used < (1L << MEMO_BITS) / 2);
	return v;
}

static struct memo memo_new(void)
{
	struct memo m = { calloc(1u << MEMO_BITS, sizeof(uint64_t)),
		          calloc(1u << MEMO_BITS, sizeof(double)), 0 };

	assert_non_null(m.key);
	assert_non_null(m.value);
	return m;
}

static void memo_free(struct memo *m)
{
	free(m->key);
	free(m->value);
}

/* The start of seat 0's turn, as a DECIDE node that must continue. */
static double turn_start(struct memo *m, leaf_fn leaf, int param)
{
	struct esigns g = fresh(2);
	double self = 0.0;

	return expand(m, &g, 0, 1.0, &self, leaf, param, 0, &g);
}

/* The EV-optimal rule is a threshold in the stake, its value is 2.5136 and
 * an exact evaluation of its choices, by the engine's moves and a memo
 * written here, gives the same to 1e-9. */
static void test_turn_value_exact(void **unused)
{
	struct esturn_info info;
	struct memo m = memo_new();
	double v;

	(void)unused;
	esturn_info(&info);
	assert_true(info.built);
	assert_int_equal(info.kinks, 0);
	assert_true(info.configs > 1000);
	print_message("EV-optimal rule: %.10f points per turn (%ld configurations, %ld moves)\n",
	              info.value, info.configs, info.moves);
	assert_true(fabs(info.value - TURN_VALUE) < 5e-5);
	v = turn_start(&m, ev_value, 0);
	print_message("evaluated here: %.10f over %ld DECIDE states\n", v, m.used);
	assert_true(fabs(v - info.value) < 1e-9);
	memo_free(&m);
}

/* Plays seat 0's first turn of a 2-seat game with `policy` from `rng`;
 * returns the points it banked. */
static long one_turn(game_policy_fn policy, struct rng *rng)
{
	struct esigns g = fresh(2);

	while (g.turn == 0) {
		struct game_step step;
		int value;
		esigns_step(&g, &step);
		value = step.node == GAME_NODE_CHANCE ? (int)rng_below(rng, (uint32_t)step.count)
		                                      : policy(&g, &step, rng);
		assert_int_equal(esigns_apply(&g, value, NULL), GAME_OK);
	}
	return (long)g.score[0];
}

/* A seeded simulation of the rule's turns agrees with its exact value
 * within 4 standard errors. */
static void test_turn_value_simulated(void **unused)
{
	const long turns = 200000;
	double sum = 0.0, sq = 0.0, mean, se;
	struct esturn_info info;
	struct rng rng;

	(void)unused;
	esturn_info(&info);
	rng_seed(&rng, 2026);
	for (long i = 0; i < turns; i++) {
		long x = one_turn(esturn_policy_ev, &rng);
		sum += (double)x;
		sq += (double)x * (double)x;
	}
	mean = sum / turns;
	se = sqrt((sq / turns - mean * mean) / turns);
	print_message("simulated: %.4f +- %.4f points per turn over %ld turns\n", mean, se, turns);
	if (fabs(mean - info.value) > 4 * se)
		fail_msg("simulated %.4f, exact %.4f, %.1f standard errors apart", mean, info.value,
		         fabs(mean - info.value) / se);
}

/* ---- the reach table ---- */

/* The chance of adding k points or more, continuing until they are added,
 * by the engine's moves (the stake at the leaf is counted from the start). */
static double reach_value(struct memo *m, const struct esigns *g, int k)
{
	uint64_t key = key_of(g) * 64 + (uint64_t)(k > 0 ? k : 0);
	long i;
	struct esigns h = *g;
	double self = 0.0, v;

	if (k <= 0)
		return 1.0;
	i = slot_of(m, key);
	if (m->key[i])
		return m->value[i];
	assert_int_equal(esigns_decide(&h, ESIGNS_CONTINUE, NULL), GAME_OK);
	v = expand(m, &h, key_of(g), 1.0, &self, reach_value, k, 0, g);
	v /= 1.0 - self;
	i = slot_of(m, key);
	m->key[i] = key;
	m->value[i] = v;
	assert_true(++m->used < (1L << MEMO_BITS) / 2);
	return v;
}

static void test_reach_exact(void **unused)
{
	struct memo m = memo_new();

	(void)unused;
	assert_true(esturn_reach(0) == 1.0);
	assert_true(esturn_reach(ESTURN_REACH + 1) == 0.0);
	for (int k = 1; k <= 8; k++) {
		double want = turn_start(&m, reach_value, k);
		if (fabs(esturn_reach(k) - want) > 1e-9)
			fail_msg("reach %d: table %.12f, evaluated %.12f", k, esturn_reach(k),
			         want);
		if (k > 1)
			assert_true(esturn_reach(k) < esturn_reach(k - 1));
	}
	memo_free(&m);
}

/* ---- "best" ---- */

/* Plays `script` (draws L M T, rolls e c x, "go" and "bank") on g. */
static void play(struct esigns *g, const char *script)
{
	char word[8];
	int at = 0, len;

	while (sscanf(script + at, "%7s%n", word, &len) == 1) {
		int rc = GAME_EARG;
		at += len;
		if (strcmp(word, "go") == 0)
			rc = esigns_decide(g, ESIGNS_CONTINUE, NULL);
		else if (strcmp(word, "bank") == 0)
			rc = esigns_decide(g, ESIGNS_RETREAT, NULL);
		else if (strchr("LMT", word[0]))
			rc = esigns_draw(g, (enum esigns_kind)(strchr("LMT", word[0]) - "LMT"),
			                 NULL);
		else if (strchr("ecx", word[0]))
			rc = esigns_roll(g, (enum esigns_face)(strchr("ecx", word[0]) - "ecx"),
			                 NULL);
		if (rc != GAME_OK)
			fail_msg("'%s' at %d: %s", word, at, game_strerror(rc));
	}
}

#define DOWN "T T T x x x "

static const struct decision {
	const char *what;
	int players;
	int score[4];
	const char *script; /* from a new game to a DECIDE node */
	int want;
} decisions[] = {
	{ "last round, banking stays behind the leader: continue at two Tentacles",
	  3,
	  { 14, 3 },
	  DOWN DOWN "L L L e x x",
	  ESIGNS_CONTINUE },
	{ "last seat of the last round, banking passes the leader: retreat",
	  3,
	  { 14, 0, 12 },
	  DOWN DOWN "L L L e e e",
	  ESIGNS_RETREAT },
	{ "last seat, banking reaches 13 alone: retreat",
	  3,
	  { 0, 0, 11 },
	  DOWN DOWN "L L L e e c",
	  ESIGNS_RETREAT },
	{ "tie-break, one point at stake behind the 2 the other seat banked: continue",
	  2,
	  { 13, 13 },
	  "L L L e e c bank L L L e c c",
	  ESIGNS_CONTINUE },
	{ "13 reached first, the other seat on 12 needs 2: widen the lead when safe",
	  2,
	  { 11, 12 },
	  "L L L e e c",
	  ESIGNS_CONTINUE },
	{ "13 reached first with two Tentacles, the other seat on 0: retreat",
	  2,
	  { 11, 0 },
	  "L L L e e x go L L L c c x",
	  ESIGNS_RETREAT },
	{ "early, four at stake and two Tentacles: retreat (as the EV rule)",
	  4,
	  { 0 },
	  "L L L e e x go L L L e e x",
	  ESIGNS_RETREAT },
};

static void test_best_decisions(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < sizeof(decisions) / sizeof(decisions[0]); i++) {
		const struct decision *c = &decisions[i];
		struct esigns g = fresh(c->players);
		struct game_step step;
		int got;

		for (int s = 0; s < c->players; s++)
			g.score[s] = (uint32_t)c->score[s];
		if (c->score[0] == 13 && c->score[1] == 13) {
			/* Into the tie-break of P2: both bank nothing in a last round. */
			g.score[0] = 13;
			g.score[1] = 13;
			play(&g, DOWN);
			play(&g, DOWN);
			assert_int_equal(esigns_tiebreak(&g), 1);
		}
		play(&g, c->script);
		esigns_step(&g, &step);
		assert_int_equal(step.node, GAME_NODE_CHOICE);
		got = esturn_policy_best(&g, &step, NULL);
		if (got != c->want)
			fail_msg("%s: chose %d, want %d", c->what, got, c->want);
	}
}

/* Wins of seat `seat` playing `a` among `b` in `games` 2-seat games. */
static long duel(game_policy_fn a, game_policy_fn b, int seat, long games, uint64_t seed)
{
	struct game_policy pa = { "a", a }, pb = { "b", b };
	const struct game_policy *p[2] = { seat ? &pb : &pa, seat ? &pa : &pb };
	long wins = 0;

	for (long i = 0; i < games; i++) {
		struct esigns g = fresh(2);
		struct game_result r;
		struct rng rng;

		rng_seed_stream(&rng, seed, (uint64_t)i);
		game_play(&esigns_ops, &g, p, &rng);
		esigns_result(&g, &r);
		wins += r.winner == seat;
	}
	return wins;
}

/* Seat-rotated 2-seat games: "best" in each seat against "expect" wins
 * more than half by over 3 standard errors (its edge is about 0.013, 5
 * standard errors at this count). */
static void test_best_beats_expect(void **unused)
{
	const long games = 20000; /* per seat */
	double rate, se;
	long wins = 0;

	(void)unused;
	for (int seat = 0; seat < 2; seat++)
		wins += duel(esturn_policy_best, esigns_policy_expect, seat, games, 700);
	rate = (double)wins / (2.0 * games);
	se = sqrt(rate * (1.0 - rate) / (2.0 * games));
	print_message("best against expect: %.4f +- %.4f\n", rate, se);
	if (rate - 0.5 < 3 * se)
		fail_msg("best wins %.4f against expect, %.1f standard errors over 1/2", rate,
		         (rate - 0.5) / se);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_turn_value_exact),
		cmocka_unit_test(test_turn_value_simulated),
		cmocka_unit_test(test_reach_exact),
		cmocka_unit_test(test_best_decisions),
		cmocka_unit_test(test_best_beats_expect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
