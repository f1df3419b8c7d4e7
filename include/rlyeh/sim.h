/* sim: plays many computer-only games of one game and counts the outcomes. */
#ifndef RLYEH_SIM_H
#define RLYEH_SIM_H

#include <stdint.h>

#include "rlyeh/game.h"

#define SIM_MAX_THREADS 256

struct sim_config {
	const struct game_ops *game;
	struct game_setup setup;
	const struct game_policy *policy[GAME_MAX_SEATS]; /* one per seat */
	long long games;
	uint64_t seed;
	int threads;
};

struct sim_report {
	int seats;
	long long games;
	long long wins[GAME_MAX_SEATS];
	long long player_wins[2];
	long long nobody; /* games nobody won (Cthulhu) */
	long long turns;
	long long points; /* points banked (games with points) */
	/* the CTHULHU!!! board game: games per enum ctgame_end, sole wins by
	 * place in the turn order (0 = the drawn first player, B11), rounds
	 * played, final VP per seat summed, games whose win was shared (B53) */
	long long ends[5];
	long long order_wins[GAME_MAX_SEATS];
	long long rounds;
	long long vp[GAME_MAX_SEATS];
	long long shared;
	double seconds;
};

/* Plays cfg->games games, game g with dice from rng stream g of cfg->seed,
 * so the counts do not depend on the number of threads. Returns 0, or -1
 * when a thread cannot be started (out is then undefined). */
int sim_run(const struct sim_config *cfg, struct sim_report *out);

/* `rlyeh sim` command line: prints one JSON object to stdout. Returns the
 * process exit status (2 for a usage error, reported on stderr). */
int sim_main(int argc, char **argv);

#endif
