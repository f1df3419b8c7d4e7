#include "rlyeh/sim.h"

#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rlyeh/cdice.h"
#include "rlyeh/cdsolve.h"
#include "rlyeh/cli.h"
#include "rlyeh/ctgame.h"

/* Large enough for any game's state; checked against ops->state_size. */
#define SIM_STATE_MAX 8192

struct worker {
	const struct sim_config *cfg;
	long long first, count; /* games [first, first + count) */
	struct sim_report report;
	pthread_t thread;
};

/* The board game's own counts of one finished game. */
static void board_counts(struct sim_report *r, const struct ctgame *g)
{
	r->ends[g->end]++;
	if (g->winners && !(g->winners & (g->winners - 1)))
		r->order_wins[(__builtin_ctz(g->winners) - g->first + g->n) % g->n]++;
	r->rounds += g->round;
	for (int s = 0; s < g->n; s++)
		r->vp[s] += ctgame_vp(g, s);
	r->shared += g->winners && (g->winners & (g->winners - 1));
}

static void play_range(struct worker *w)
{
	const struct sim_config *cfg = w->cfg;
	const struct game_ops *ops = cfg->game;
	_Alignas(max_align_t) unsigned char state[SIM_STATE_MAX];
	_Alignas(max_align_t) unsigned char start[SIM_STATE_MAX];
	struct sim_report *r = &w->report;

	/* init reads nothing but the setup, so every game starts from a copy
	 * of one initialised state. */
	if (ops->init(start, &cfg->setup) != GAME_OK)
		abort(); /* sim_run validated the setup */
	for (long long g = w->first; g < w->first + w->count; g++) {
		struct rng rng;
		struct game_result res;

		rng_seed_stream(&rng, cfg->seed, (uint64_t)g);
		memcpy(state, start, ops->state_size);
		game_play_fast(ops, state, cfg->policy, &rng);
		ops->result(state, &res);
		r->games++;
		r->turns += res.turns;
		r->points += res.points;
		if (res.winner >= 0) {
			r->wins[res.winner]++;
			if (res.player >= 0 && res.player < 2)
				r->player_wins[res.player]++;
		} else {
			r->nobody++;
		}
		if (ops == &ctgame_ops)
			board_counts(r, (const struct ctgame *)(const void *)state);
	}
}

static void *worker_main(void *arg)
{
	play_range(arg);
	return NULL;
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int sim_run(const struct sim_config *cfg, struct sim_report *out)
{
	_Alignas(max_align_t) unsigned char probe[SIM_STATE_MAX];
	int threads = cfg->threads < 1 ? 1 : cfg->threads;
	struct worker *w;
	double start;
	int started = 0, rc = 0;

	if (cfg->game->state_size > SIM_STATE_MAX || cfg->game->init(probe, &cfg->setup) != GAME_OK)
		return -1;
	if (threads > SIM_MAX_THREADS)
		threads = SIM_MAX_THREADS;
	w = calloc((size_t)threads, sizeof(*w));
	if (!w)
		return -1;
	start = now_seconds();
	for (int t = 0; t < threads; t++) {
		w[t].cfg = cfg;
		w[t].first = cfg->games * t / threads;
		w[t].count = cfg->games * (t + 1) / threads - w[t].first;
	}
	if (threads == 1) {
		play_range(&w[0]);
		started = 1;
	} else {
		for (; started < threads; started++)
			if (pthread_create(&w[started].thread, NULL, worker_main, &w[started]))
				break;
		for (int t = 0; t < started; t++)
			pthread_join(w[t].thread, NULL);
		if (started < threads)
			rc = -1;
	}
	memset(out, 0, sizeof(*out));
	out->seats = cfg->game->seats(probe);
	for (int t = 0; t < started; t++) {
		const struct sim_report *r = &w[t].report;
		out->games += r->games;
		out->nobody += r->nobody;
		out->turns += r->turns;
		out->points += r->points;
		for (int s = 0; s < GAME_MAX_SEATS; s++)
			out->wins[s] += r->wins[s];
		out->player_wins[0] += r->player_wins[0];
		out->player_wins[1] += r->player_wins[1];
		for (int e = 0; e < 5; e++)
			out->ends[e] += r->ends[e];
		for (int s = 0; s < GAME_MAX_SEATS; s++)
			out->order_wins[s] += r->order_wins[s];
		out->rounds += r->rounds;
		for (int s = 0; s < GAME_MAX_SEATS; s++)
			out->vp[s] += r->vp[s];
		out->shared += r->shared;
	}
	out->seconds = now_seconds() - start;
	free(w);
	return rc;
}

static const char usage[] =
    "Usage: rlyeh sim [OPTIONS]\n"
    "Play computer-only games of Cthulhu Dice, Elder Signs or the CTHULHU!!!\n"
    "board game and print one JSON object.\n"
    "\n"
    "  --game NAME        cthulhu-dice (default), elder-signs or cthulhu\n"
    "  --players N        seats at the table, 2-12 (default 3); 2 for rival-cults;\n"
    "                     cthulhu: 2-6 (default 4)\n"
    "  --rounds N         cthulhu: the round cap of C19, 1-10000 (default 200)\n"
    "  --variant V        classic (default) or rival-cults (cthulhu-dice only)\n"
    "  --cultists C       rival-cults: cultists per player, 2 or 3 (default 2)\n"
    "  --games G          games to play (default 100000)\n"
    "  --seed S           seed of the dice, an unsigned 64-bit integer (default 1)\n"
    "  --policy P[,P...]  one for every seat, or one per seat; rival-cults also\n"
    "                     takes one per player. cthulhu-dice: random (default),\n"
    "                     heuristic or solver (perfect play, up to 6 cultists);\n"
    "                     elder-signs: greedy-2 (default), expect, ev\n"
    "                     (the EV-optimal stopping rule) or best (plays to win);\n"
    "                     cthulhu: baseline (default) or random\n"
    "  --threads T        worker threads, 1-256 (default 1)\n"
    "  --help             this text\n"
    "\n"
    "In cthulhu-dice and elder-signs seat 0 plays first; in cthulhu the first\n"
    "player is drawn for each game (B11). Game g draws its dice from stream g of\n"
    "the seed, so the counts do not depend on --threads.\n"
    "Output keys: game, variant, players, cultists, seed, policies, games, seats\n"
    "(win rate per seat), first_player, second_player, ... (cthulhu: win rate\n"
    "by place in the turn order), player_wins (rival-cults), cthulhu, mean_turns,\n"
    "mean_points_per_turn (elder-signs: points banked per turn), stderr (standard\n"
    "error of one rate at p = 0.5), threads, seconds, games_per_s.\n"
    "cthulhu adds: rounds_cap, saved, summoned, capped, all_eliminated (shares\n"
    "of games ending so), shared_wins, mean_rounds and mean_vp (final VP per\n"
    "seat); its mean_points_per_turn is the winners' VP per turn.\n";

/* Fills cfg->policy from a comma-separated list; 0 or -1 after printing why. */
static int parse_policies(struct sim_config *cfg, const char *list, int seats)
{
	const struct game_policy *given[GAME_MAX_SEATS + 1];
	char buf[256];
	int n = 0;

	if (strlen(list) >= sizeof(buf))
		return cli_usage_error("sim", "--policy: list too long"), -1;
	memcpy(buf, list, strlen(list) + 1);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n > GAME_MAX_SEATS)
			return cli_usage_error("sim", "--policy: too many policies"), -1;
		given[n] = game_policy_find(cfg->game, tok);
		if (!given[n])
			return cli_usage_error("sim", "--policy: unknown policy '%s'", tok), -1;
		n++;
	}
	if (n == 1 || n == seats || (cfg->setup.per_player && n == 2)) {
		for (int s = 0; s < seats; s++)
			cfg->policy[s] = given[n == 1 ? 0 : n == seats ? s : s % 2];
		return 0;
	}
	cli_usage_error("sim", "--policy: %d policies for %d seats (give 1 or %d%s)", n, seats,
	                seats, cfg->setup.per_player ? ", or 2 for the two players" : "");
	return -1;
}

/* The places in the turn order, as the JSON keys name them. */
static const char *const order_names[CTGAME_MAX] = { "first",  "second", "third",
	                                             "fourth", "fifth",  "sixth" };

/* Prints the report as one JSON object on one line of stdout. */
static void print_report(const struct sim_config *cfg, const struct sim_report *r)
{
	double g = r->games > 0 ? (double)r->games : 1.0;

	printf("{\"game\":\"%s\",\"variant\":\"%s\",\"players\":%d,", cfg->game->name,
	       cfg->setup.per_player ? "rival-cults" : "classic", cfg->setup.players);
	if (cfg->setup.per_player)
		printf("\"cultists\":%d,", cfg->setup.per_player);
	printf("\"seed\":%llu,\"policies\":[", (unsigned long long)cfg->seed);
	for (int s = 0; s < r->seats; s++)
		printf("%s\"%s\"", s ? "," : "", cfg->policy[s]->name);
	printf("],\"games\":%lld,\"seats\":[", r->games);
	for (int s = 0; s < r->seats; s++)
		printf("%s%.6f", s ? "," : "", (double)r->wins[s] / g);
	printf("],");
	if (cfg->game == &ctgame_ops)
		for (int s = 0; s < r->seats; s++)
			printf("\"%s_player\":%.6f,", order_names[s], (double)r->order_wins[s] / g);
	if (cfg->setup.per_player)
		printf("\"player_wins\":[%.6f,%.6f],", (double)r->player_wins[0] / g,
		       (double)r->player_wins[1] / g);
	printf("\"cthulhu\":%.6f,\"mean_turns\":%.4f,", (double)r->nobody / g,
	       (double)r->turns / g);
	if (cfg->game->scores)
		printf("\"mean_points_per_turn\":%.4f,",
		       r->turns > 0 ? (double)r->points / (double)r->turns : 0.0);
	if (cfg->game == &ctgame_ops) {
		printf("\"rounds_cap\":%d,\"saved\":%.6f,\"summoned\":%.6f,\"capped\":%.6f,"
		       "\"all_eliminated\":%.6f,\"shared_wins\":%.6f,\"mean_rounds\":%.4f,"
		       "\"mean_vp\":[",
		       cfg->setup.rounds, (double)r->ends[CE_SAVED] / g,
		       (double)r->ends[CE_SUMMONED] / g, (double)r->ends[CE_CAPPED] / g,
		       (double)r->ends[CE_NOBODY] / g, (double)r->shared / g,
		       (double)r->rounds / g);
		for (int s = 0; s < r->seats; s++)
			printf("%s%.4f", s ? "," : "", (double)r->vp[s] / g);
		printf("],");
	}
	printf("\"stderr\":%.6f,\"threads\":%d,\"seconds\":%.3f,\"games_per_s\":%.0f}\n",
	       0.5 / sqrt(g), cfg->threads, r->seconds,
	       r->seconds > 0 ? (double)r->games / r->seconds : 0.0);
}

int sim_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "game", required_argument, NULL, 'G' },
		{ "players", required_argument, NULL, 'p' },
		{ "variant", required_argument, NULL, 'v' },
		{ "cultists", required_argument, NULL, 'c' },
		{ "games", required_argument, NULL, 'g' },
		{ "seed", required_argument, NULL, 's' },
		{ "policy", required_argument, NULL, 'P' },
		{ "threads", required_argument, NULL, 't' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sim_config cfg = { .game = &cdice_ops, .games = 100000, .seed = 1, .threads = 1 };
	struct sim_report report;
	const char *policy = NULL;
	long long players = 3, cultists = 2, v;
	long long rounds = 200; /* C19: simulators cap games at 200 rounds */
	int rival = 0, players_given = 0, cultists_given = 0, rounds_given = 0, opt, seats;
	_Alignas(max_align_t) unsigned char probe[SIM_STATE_MAX];

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'G':
			cfg.game = game_find(optarg);
			if (!cfg.game)
				return cli_usage_error("sim",
				                       "--game: expected cthulhu-dice, "
				                       "elder-signs or cthulhu, got '%s'",
				                       optarg);
			break;
		case 'p':
			if (cli_parse_ll(optarg, 2, GAME_MAX_SEATS, &players))
				return cli_usage_error(
				    "sim", "--players: expected 2 to 12, got '%s'", optarg);
			players_given = 1;
			break;
		case 'v':
			if (strcmp(optarg, "classic") == 0)
				rival = 0;
			else if (strcmp(optarg, "rival-cults") == 0)
				rival = 1;
			else
				return cli_usage_error("sim",
				                       "--variant: expected classic or "
				                       "rival-cults, got '%s'",
				                       optarg);
			break;
		case 'c':
			if (cli_parse_ll(optarg, 2, 3, &cultists))
				return cli_usage_error(
				    "sim", "--cultists: expected 2 or 3, got '%s'", optarg);
			cultists_given = 1;
			break;
		case 'g':
			if (cli_parse_ll(optarg, 1, 100000000000LL, &cfg.games))
				return cli_usage_error(
				    "sim", "--games: expected 1 to 10^11, got '%s'", optarg);
			break;
		case 's':
			if (cli_parse_u64(optarg, &cfg.seed))
				return cli_usage_error("sim",
				                       "--seed: expected an unsigned integer, "
				                       "got '%s'",
				                       optarg);
			break;
		case 'P':
			policy = optarg;
			break;
		case 't':
			if (cli_parse_ll(optarg, 1, SIM_MAX_THREADS, &v))
				return cli_usage_error("sim",
				                       "--threads: expected 1 to %d, got '%s'",
				                       SIM_MAX_THREADS, optarg);
			cfg.threads = (int)v;
			break;
		case 'r':
			if (cli_parse_ll(optarg, 1, 10000, &rounds))
				return cli_usage_error(
				    "sim", "--rounds: expected 1 to 10000, got '%s'", optarg);
			rounds_given = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return cli_usage_error("sim", "unknown option");
		}
	}
	if (optind < argc)
		return cli_usage_error("sim", "unexpected argument '%s'", argv[optind]);
	if (rival && cfg.game != &cdice_ops)
		return cli_usage_error("sim", "rival-cults is a variant of cthulhu-dice");
	if (rival) {
		if (players_given && players != 2)
			return cli_usage_error("sim", "rival-cults is for 2 players, not %lld",
			                       players);
		cfg.setup = (struct game_setup){ .players = 2, .per_player = (int)cultists };
	} else {
		if (cultists_given)
			return cli_usage_error("sim", "--cultists is for --variant rival-cults");
		cfg.setup = (struct game_setup){ .players = (int)players,
			                         .revision = GAME_REVISION_LATEST };
	}
	if (rounds_given && cfg.game != &ctgame_ops)
		return cli_usage_error("sim", "--rounds is for --game cthulhu");
	if (cfg.game == &ctgame_ops) {
		if (!players_given)
			cfg.setup.players = 4;
		cfg.setup.rounds = (int)rounds;
	}
	if (cfg.game->init(probe, &cfg.setup) != GAME_OK)
		return cli_usage_error("sim", "invalid table");
	seats = cfg.game->seats(probe);
	if (parse_policies(&cfg, policy ? policy : cfg.game->policies[0].name, seats))
		return 2;
	for (int s = 0; s < seats; s++) {
		if (cfg.policy[s]->choose == cdice_policy_solver && seats > CDSOLVE_MAX_CULTISTS) {
			fprintf(stderr,
			        "rlyeh sim: no solved table beyond %d cultists; "
			        "solver plays as heuristic\n",
			        CDSOLVE_MAX_CULTISTS);
			break;
		}
	}
	if (sim_run(&cfg, &report)) {
		fprintf(stderr, "rlyeh sim: could not start the worker threads\n");
		return 1;
	}
	print_report(&cfg, &report);
	return 0;
}
