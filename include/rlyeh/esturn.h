/* esturn: the Elder Signs turn solved exactly, and the policy "best" built
 * on it (rules: shared/rules/press-your-luck.md).
 *
 * A DECIDE node of a turn is a configuration — per kind of die the Clue
 * dice in hand, the stash's Elder Sign dice and the Tentacle pile (the bag
 * holds the rest) — plus the points at stake. Continuing moves to another
 * configuration by the draws and the throw (ruling P1 included) and adds
 * the Elder Signs rolled; the only cycle is a hand of three Clue dice
 * rolling three Clues again, solved in closed form. Three dynamic
 * programmes run over every configuration, in an order that puts each after
 * those it moves to:
 *   - the EV-optimal stopping rule: V(x, s) = max(s, E[V(x', s + e)]), with
 *     points at stake up to ESTURN_STAKE (above it the rule retreats; the
 *     expectation changes by less than 1e-12 from a cap of 48 to 64). The
 *     rule is a threshold: continue at x while s < stop(x).
 *   - the reach table: W(x, k), the chance of adding k or more points
 *     before being downed (to reach a number of points, continue until it is
 *     reached: stopping earlier cannot reach it), for k = 1..ESTURN_REACH.
 *   - where that first crossing of k lands: k, k + 1 or k + 2.
 * On these, a game of two seats under 13 is solved exactly for turns that
 * each play for a chosen number of points (see esturn.c, solve_duel).
 * The tables (about 10 MB) are built once, on first use, in 0.13-0.34 s
 * (Release, on a loaded 2-core machine); the build is safe from several threads at once (the first
 * finished build is kept, the others are freed) and the tables are never
 * freed. No clock, no random source. */
#ifndef RLYEH_ESTURN_H
#define RLYEH_ESTURN_H

#include "rlyeh/esigns.h"

#define ESTURN_STAKE 64 /* points at stake the EV programme covers */
#define ESTURN_REACH 40 /* points the reach table covers */

/* Figures of the solved turn. */
struct esturn_info {
	double value; /* expected points banked per turn, EV-optimal rule */
	long configs; /* DECIDE configurations */
	long moves;   /* (configuration, outcome of continuing) pairs */
	long kinks;   /* (configuration, stake) where the rule is not a threshold: 0 */
	int built;    /* 0: the tables could not be allocated (all else is 0) */
};

/* Fills *out, building the tables first if needed. */
void esturn_info(struct esturn_info *out);

/* The EV-optimal choice (enum esigns_choice) at g's DECIDE node; -1 when the
 * tables cannot be built or g is not at a DECIDE node. */
int esturn_ev_choice(const struct esigns *g);

/* The chance of banking k or more points in a fresh turn, playing to reach
 * them: 1 for k <= 0, 0 above ESTURN_REACH (or without tables). */
double esturn_reach(int k);

/* The chance, from g's DECIDE node, of adding k or more points to those at
 * stake before being downed (continuing until they are added). */
double esturn_reach_from(const struct esigns *g, int k);

/* Policies:
 *   "ev":   the EV-optimal stopping rule (most points per turn).
 *   "best": plays to win. At every decision it values ending the turn on
 *           F points by the chance to win then — from a two-seat game
 *           solved over the whole score range (each turn played for a
 *           fixed number of points, chosen to win), multiplied over the
 *           other seats at larger tables, and in the last round (End 1,
 *           End 2, P2) from the seats still to play chasing the leader
 *           with the reach table — and compares retreating with the best
 *           plan after the next throw. See esturn.c.
 * Without tables (out of memory) both play "expect". */
int esturn_policy_ev(const void *state, const struct game_step *step, struct rng *rng);
int esturn_policy_best(const void *state, const struct game_step *step, struct rng *rng);

#endif
