/* Statistics of simulated games against exactly computed values
 * (shared/rules/cthulhu-dice.md, "Baseline policy random"). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/cdice.h"
#include "rlyeh/ctgame.h"
#include "rlyeh/rng.h"
#include "rlyeh/sim.h"

/* Exact values for 3 cultists under `random`, seat 0 casting first. */
static const double exact_seats[3] = { 0.3566, 0.2934, 0.2487 };
static const double exact_cthulhu = 0.1013;
static const double exact_turns = 5.50;

static struct sim_config config(int players, const char *const *policy, long long games,
                                int threads)
{
	struct sim_config cfg = {
		.game = &cdice_ops, .games = games, .seed = 20101, .threads = threads
	};

	cfg.setup.players = players;
	for (int s = 0; s < players; s++)
		cfg.policy[s] = game_policy_find(&cdice_ops, policy[s]);
	return cfg;
}

/* |rate - exact| must stay within 4 standard errors plus the rounding of
 * the published value (5e-5). With 2M games that is about 0.0014: R6 or
 * R7 played wrongly moves these rates by several times as much. */
static void check_rate(const char *what, long long hits, long long n, double exact)
{
	double rate = (double)hits / (double)n;
	double se = sqrt(exact * (1 - exact) / (double)n);

	if (fabs(rate - exact) > 4 * se + 5e-5)
		fail_msg("%s: %.5f, exact %.4f, bound %.5f", what, rate, exact, 4 * se + 5e-5);
}

static void test_random_matches_exact_values(void **unused)
{
	static const char *const random3[3] = { "random", "random", "random" };
	struct sim_config cfg = config(3, random3, 2000000, 2);
	struct sim_report r;

	(void)unused;
	assert_int_equal(sim_run(&cfg, &r), 0);
	assert_int_equal(r.games, 2000000);
	check_rate("seat 0", r.wins[0], r.games, exact_seats[0]);
	check_rate("seat 1", r.wins[1], r.games, exact_seats[1]);
	check_rate("seat 2", r.wins[2], r.games, exact_seats[2]);
	check_rate("cthulhu", r.nobody, r.games, exact_cthulhu);
	/* Game length: the published value has two decimals. */
	assert_true(fabs((double)r.turns / (double)r.games - exact_turns) < 0.01);
}

static void test_counts_do_not_depend_on_threads(void **unused)
{
	static const char *const mixed[4] = { "heuristic", "random", "random", "heuristic" };
	struct sim_config one = config(4, mixed, 50000, 1), three = config(4, mixed, 50000, 3);
	struct sim_report a, b;

	(void)unused;
	assert_int_equal(sim_run(&one, &a), 0);
	assert_int_equal(sim_run(&three, &b), 0);
	assert_int_equal(a.games, b.games);
	assert_int_equal(a.nobody, b.nobody);
	assert_int_equal(a.turns, b.turns);
	assert_memory_equal(a.wins, b.wins, sizeof(a.wins));
}

/* The heuristic player, in each seat against two random players, wins
 * clearly more often than a random player in that seat. */
static void test_heuristic_beats_random(void **unused)
{
	(void)unused;
	for (int seat = 0; seat < 3; seat++) {
		const char *policy[3] = { "random", "random", "random" };
		struct sim_config cfg;
		struct sim_report r;
		double rate;

		policy[seat] = "heuristic";
		cfg = config(3, policy, 200000, 2);
		assert_int_equal(sim_run(&cfg, &r), 0);
		rate = (double)r.wins[seat] / (double)r.games;
		if (rate < exact_seats[seat] + 0.05)
			fail_msg("heuristic in seat %d wins %.4f, random %.4f", seat, rate,
			         exact_seats[seat]);
	}
}

static void test_rival_cults_players_share_the_wins(void **unused)
{
	struct sim_config cfg = { .game = &cdice_ops, .games = 100000, .seed = 5, .threads = 1 };
	struct sim_report r;
	long long seat_sum = 0;

	(void)unused;
	cfg.setup = (struct game_setup){ .players = 2, .per_player = 3 };
	for (int s = 0; s < 6; s++)
		cfg.policy[s] = game_policy_find(&cdice_ops, s % 2 ? "random" : "heuristic");
	assert_int_equal(sim_run(&cfg, &r), 0);
	assert_int_equal(r.seats, 6);
	for (int s = 0; s < 6; s++)
		seat_sum += r.wins[s];
	assert_int_equal(seat_sum + r.nobody, r.games);
	assert_int_equal(r.player_wins[0], r.wins[0] + r.wins[2] + r.wins[4]);
	assert_int_equal(r.player_wins[1], r.wins[1] + r.wins[3] + r.wins[5]);
	assert_true(r.player_wins[0] > 2 * r.player_wins[1]);
}

/* The board game draws its first player (B11): the sole wins by place in
 * the turn order are those of each game replayed from its stream, counted
 * from its drawn first player, and they add up to the sole wins by seat. */
static void test_board_wins_by_turn_order(void **unused)
{
	struct sim_config cfg = { .game = &ctgame_ops, .games = 300, .seed = 11, .threads = 2 };
	struct sim_report r;
	long long want[CTGAME_MAX] = { 0 }, by_seat = 0, by_order = 0;
	int firsts = 0;

	(void)unused;
	cfg.setup = (struct game_setup){ .players = 3, .rounds = 200 };
	for (int s = 0; s < 3; s++)
		cfg.policy[s] = game_policy_find(&ctgame_ops, "baseline");
	assert_int_equal(sim_run(&cfg, &r), 0);
	for (long long i = 0; i < cfg.games; i++) {
		struct ctgame g;
		struct rng rng;

		rng_seed_stream(&rng, cfg.seed, (uint64_t)i);
		assert_int_equal(ctgame_init(&g, &cfg.setup), GAME_OK);
		game_play(&ctgame_ops, &g, cfg.policy, &rng);
		firsts |= 1 << g.first;
		if (g.winners && !(g.winners & (g.winners - 1)))
			want[(__builtin_ctz(g.winners) - g.first + 3) % 3]++;
	}
	assert_int_equal(firsts, 7); /* every seat went first in some game */
	for (int s = 0; s < 3; s++) {
		assert_int_equal(r.order_wins[s], want[s]);
		by_seat += r.wins[s];
		by_order += r.order_wins[s];
	}
	assert_int_equal(by_order, by_seat);
	assert_int_equal(r.order_wins[3], 0);
}

/* sim_run (the fast path, each game from a copy of one initialised state)
 * counts exactly what the generic path gives game by game: init, then
 * game_play, for Cthulhu Dice (all random, and mixed policies, which the
 * fast path calls) and Elder Signs (no fast path). */
static void test_sim_counts_the_generic_games(void **unused)
{
	static const struct {
		const char *game;
		struct game_setup setup;
		const char *policy[4];
		long long games;
	} cases[] = {
		{ "cthulhu-dice", { .players = 3 }, { "random", "random", "random" }, 30000 },
		{ "cthulhu-dice",
		  { .players = 4 },
		  { "heuristic", "random", "solver", "random" },
		  10000 },
		{ "cthulhu-dice",
		  { .players = 2, .per_player = 2 },
		  { "random", "heuristic", "random", "heuristic" },
		  10000 },
		{ "elder-signs",
		  { .players = 3, .revision = GAME_REVISION_LATEST },
		  { "greedy-2", "expect", "greedy-2" },
		  3000 },
	};

	(void)unused;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct game_ops *ops = game_find(cases[c].game);
		struct sim_config cfg = {
			.game = ops, .games = cases[c].games, .seed = 77, .threads = 1
		};
		struct sim_report r;
		long long wins[GAME_MAX_SEATS] = { 0 }, nobody = 0, turns = 0, points = 0;
		_Alignas(max_align_t) unsigned char state[256];
		int seats;

		assert_non_null(ops);
		assert_true(ops->state_size <= sizeof(state));
		cfg.setup = cases[c].setup;
		assert_int_equal(ops->init(state, &cfg.setup), GAME_OK);
		seats = ops->seats(state);
		for (int s = 0; s < seats; s++) {
			cfg.policy[s] = game_policy_find(ops, cases[c].policy[s]);
			assert_non_null(cfg.policy[s]);
		}
		assert_int_equal(sim_run(&cfg, &r), 0);
		for (long long g = 0; g < cfg.games; g++) {
			struct rng rng;
			struct game_result res;

			rng_seed_stream(&rng, cfg.seed, (uint64_t)g);
			assert_int_equal(ops->init(state, &cfg.setup), GAME_OK);
			game_play(ops, state, cfg.policy, &rng);
			ops->result(state, &res);
			turns += res.turns;
			points += res.points;
			if (res.winner >= 0)
				wins[res.winner]++;
			else
				nobody++;
		}
		assert_int_equal(r.games, cfg.games);
		assert_memory_equal(r.wins, wins, sizeof(wins));
		assert_int_equal(r.nobody, nobody);
		assert_int_equal(r.turns, turns);
		assert_int_equal(r.points, points);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_matches_exact_values),
		cmocka_unit_test(test_counts_do_not_depend_on_threads),
		cmocka_unit_test(test_heuristic_beats_random),
		cmocka_unit_test(test_rival_cults_players_share_the_wins),
		cmocka_unit_test(test_board_wins_by_turn_order),
		cmocka_unit_test(test_sim_counts_the_generic_games),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
