/* solve: win chances of Cthulhu Dice positions under a solved strategy
 * profile (rules: shared/rules/cthulhu-dice.md).
 *
 * States. Only turn starts are stored: the sanity of every cultist, with
 * the Caster rotated to seat 0 (the game is the same from every seat, so
 * one table serves every Caster; the pool is 3n minus the sanity). A turn
 * (victim, curse, Eye, response, Eye) is expanded on the fly through the
 * engine itself (cdice_roll, cdice_eye), so the solver and the engine
 * cannot disagree on a rule. Sanity vectors of n cultists summing to at
 * most 3n: 2 cultists 28, 3: 220, 4: 1,820, 5: 15,504, 6: 134,596.
 *
 * Values. For every state, each seat's probability of winning and
 * Cthulhu's, summing to 1, plus the expected number of complete turns left.
 * A choice made by a seat maximises its owner's total (in Rival Cults the
 * winner is a player, so the sum over that player's cultists).
 *
 * Solution concept ("max^n, K sweeps, then exact evaluation"):
 *  1. max^n value iteration, Gauss-Seidel, no damping: every chooser takes
 *     the option best for its owner under the current values. Ties within
 *     SOLVE_TIE are broken deterministically: the first victim to the
 *     Caster's left, the lowest face (Yellow Sign, Tentacle, Elder Sign,
 *     Cthulhu). It stops when a sweep changes no value by more than
 *     SOLVE_EPS, or after SOLVE_SWEEPS sweeps. With 2 cultists it converges
 *     (a true equilibrium); with 3 or more it may cycle (best-response
 *     cycles, see the rules file), and then it stops at the cap; the final
 *     residual is reported in solve_stats.
 *  2. The pure stationary profile pi that is greedy on those values is
 *     extracted (same tie rule) and evaluated exactly: iterative policy
 *     evaluation of a fixed Markov chain, which converges because every
 *     game ends with probability 1 under any profile (two Cthulhu faces a
 *     turn, chance >= 1/144, take a token from every sane cultist, so from
 *     any state the game ends within 3n turns with positive probability).
 *     It stops at a residual below SOLVE_EVAL_EPS. The stored values are
 *     pi's exact values: true probabilities of a real profile, not an
 *     iterate of a cycling process.
 * The policy "solver" (cdice.h) then looks one turn ahead on those values:
 * each option is scored by the chance it gives when the rest of the turn
 * is played the same way and later turns by pi; it plays the best. Where pi
 * is an equilibrium (2 cultists) this is pi itself.
 *
 * The same machinery evaluates the uniform "random" policy exactly
 * (SOLVE_RANDOM), which checks it against the reference values.
 *
 * Memory: the table keeps (n + 2) doubles per state (6 cultists: 8.6 MB);
 * while solving it also holds the transitions (16 int32 per state and
 * victim: 43 MB for 6 cultists) and the profile, freed before solve_build
 * returns. solve_stats reports both. Beyond SOLVE_MAX_CULTISTS the table is
 * not built (7 cultists would need ~1.2 M states and ~0.5 GB while solving).
 *
 * Thread safety: a built table is read-only; any number of threads may
 * query it. solve_set_provider must be called before threads play. */
#ifndef RLYEH_SOLVE_H
#define RLYEH_SOLVE_H

#include <stddef.h>

#include "rlyeh/cdice.h"

#define SOLVE_MAX_CULTISTS 6
#define SOLVE_SWEEPS       60     /* cap on max^n sweeps */
#define SOLVE_EPS          1e-10  /* max^n convergence */
#define SOLVE_EVAL_EPS     1e-13  /* policy evaluation convergence */
#define SOLVE_EVAL_SWEEPS  100000 /* cap on evaluation sweeps (never reached in practice) */
#define SOLVE_TIE          1e-12  /* options closer than this are tied */

enum solve_profile {
	SOLVE_PERFECT, /* the max^n profile above */
	SOLVE_RANDOM,  /* uniform victims and Eye faces (the "random" policy) */
};

struct solve_stats {
	int n, per_player;
	long states;          /* stored turn-start states */
	int sweeps;           /* max^n sweeps run (0 for SOLVE_RANDOM) */
	double residual;      /* largest change in the last max^n sweep */
	int eval_sweeps;      /* evaluation sweeps run */
	double eval_residual; /* largest change in the last evaluation sweep */
	size_t bytes_kept;    /* memory the table keeps */
	size_t bytes_peak;    /* memory held while solving */
};

struct solve_table;

/* Builds the table for `n` cultists (2..SOLVE_MAX_CULTISTS); `per_player`
 * is 0 for classic play or 2/3 for Rival Cults (then n = 2 * per_player).
 * Returns NULL for other sizes or when memory runs out. Free with
 * solve_free. */
struct solve_table *solve_build(int n, int per_player, enum solve_profile profile);

/* Frees a table; NULL is a no-op. */
void solve_free(struct solve_table *t);

const struct solve_stats *solve_stats(const struct solve_table *t);

/* 1 when `t` was built for g's cultists and variant. */
int solve_fits(const struct solve_table *t, const struct cdice *g);

/* Each seat's chance of winning from `g` (any phase; a finished game gives
 * 1 to its winner) into out[0..n-1], Cthulhu's into out[n]. `t` must fit g. */
void solve_value(const struct solve_table *t, const struct cdice *g, double *out);

/* Expected complete turns still to play from `g`, which must be at the start
 * of a turn (phase CDICE_VICTIM) or over (0). */
double solve_length(const struct solve_table *t, const struct cdice *g);

/* At a choice node of g (`step` from cdice_step), the value vector of each
 * option, in step->options order: out[k * (CDICE_MAX + 1) + i] is seat i's
 * chance (i = n for Cthulhu) after option k. Returns the index of the
 * option best for the chooser's owner (ties: the first), or -1 when `step`
 * is not a choice. */
int solve_options(const struct solve_table *t, const struct cdice *g, const struct game_step *step,
                  double *out);

/* Finds the table for n cultists and variant; NULL when none (too many
 * cultists, no provider, or out of memory). Used by the "solver" policy. */
typedef const struct solve_table *(*solve_provider_fn)(int n, int per_player);

/* Installs the process-wide provider (NULL removes it). Not thread-safe:
 * call before any thread plays. */
void solve_set_provider(solve_provider_fn fn);

/* The table from the installed provider, or NULL. */
const struct solve_table *solve_provided(int n, int per_player);

#endif
