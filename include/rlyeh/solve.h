/* solve: win chances of Cthulhu Dice positions under a solved strategy
 * profile (rules: shared/rules/cthulhu-dice.md).
 *
 * States. Only turn starts are stored: the sanity of every cultist, with
 * the Caster rotated to seat 0 (the game is the same from every seat, so
 * one table serves every Caster; the pool is 3n minus the sanity). A turn
 * (victim, curse, Eye, response, Eye) is expanded on the fly through the
 * engine itself (cdice_roll, cdice_eye), so the solver and the engine
 * cannot disagree on a rule (the solver is part of the engine library and
 * uses exp() from the C library's math.h). Sanity vectors of n cultists summing to at
 * most 3n: 2 cultists 28, 3: 220, 4: 1,820, 5: 15,504, 6: 134,596.
 *
 * Values. For every state, each seat's probability of winning and
 * Cthulhu's, summing to 1, plus the expected number of complete turns left.
 * A choice made by a seat maximises its owner's total (in Rival Cults the
 * winner is a player, so the sum over that player's cultists).
 *
 * Solution concept: a logit (quantal response) equilibrium at the fixed
 * temperature SOLVE_TAU. Every chooser (victim, Eye face) picks option k
 * with probability proportional to exp(x_k / SOLVE_TAU), x_k being the
 * option's chance for the chooser's owner; chance nodes average over the
 * d12. The table holds the fixed point of that profile, found by
 * Gauss-Seidel value iteration from all-zero values; it stops when a sweep
 * changes no win chance by more than SOLVE_EPS (residual and sweeps in
 * solve_stats), with SOLVE_SWEEPS as a cap that is reported, never hit
 * silently. Why not max^n: with 3 or more cultists the "everyone for
 * themselves" iteration with a pure best response cycles (best-response
 * cycles, see the rules file; measured here: residual 0.2-0.7 after 200
 * sweeps), so its values depend on where it is stopped. The logit profile
 * is smooth, converges for every size solved here in 20-40 sweeps, and
 * its values are exact win chances of a real (mixed) stationary profile:
 * they sum to 1 with Cthulhu and every game ends with probability 1 under
 * it (two Cthulhu faces a turn, chance 1/144, take a token from every sane
 * cultist, so from any state the game ends within 3n turns with positive
 * probability). With 2 cultists the only choices are Eye faces and the
 * logit values are within a few thousandths of the pure equilibrium.
 * The policy "solver" (cdice.h) plays purely: it looks one turn ahead on
 * the table, scoring each option by the chance it gives when the rest of
 * the turn's Eye choices are also the best ones and later turns follow the
 * table, and plays the best; ties within SOLVE_TIE go to the first option
 * in cdice_step order (lowest seat, then Yellow Sign, Tentacle, Elder
 * Sign, Cthulhu).
 *
 * The same machinery evaluates the uniform "random" policy exactly
 * (SOLVE_RANDOM), which checks it against the reference values.
 *
 * Memory: the table keeps (n + 2) doubles per state (6 cultists: 8.6 MB);
 * while solving it also holds the transitions (16 int32 per state and
 * victim: 43 MB for 6 cultists), freed before solve_build returns. solve_stats reports both. Beyond
 * SOLVE_MAX_CULTISTS the table is not built (7 cultists would need ~1.2 M states and ~0.5 GB while
 * solving).
 *
 * Thread safety: a built table is read-only; any number of threads may
 * query it. solve_set_provider must be called before threads play. */
#ifndef RLYEH_SOLVE_H
#define RLYEH_SOLVE_H

#include <stddef.h>

#include "rlyeh/cdice.h"

#define SOLVE_MAX_CULTISTS 6
#define SOLVE_TAU          0.1   /* logit temperature, in win probability */
#define SOLVE_SWEEPS       1000  /* cap on sweeps (reported in solve_stats) */
#define SOLVE_EPS          1e-12 /* convergence: largest change in a sweep */
#define SOLVE_TIE          1e-12 /* options closer than this are tied */

enum solve_profile {
	SOLVE_PERFECT, /* the logit equilibrium above */
	SOLVE_RANDOM,  /* uniform victims and Eye faces (the "random" policy) */
};

struct solve_stats {
	int n, per_player;
	long states;       /* stored turn-start states */
	int sweeps;        /* sweeps run */
	double residual;   /* largest change of a win chance in the last sweep */
	size_t bytes_kept; /* memory the table keeps */
	size_t bytes_peak; /* memory held while solving */
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

/* A solved table as bytes, to keep on disk: solve_image_size bytes written
 * by solve_image_write into buf (caller's). solve_image_read rebuilds the
 * table for n cultists and variant per_player from such bytes (caller frees
 * it with solve_free), or returns NULL when they are not a table of this
 * program's solver for that size (another version, another machine's byte
 * order, truncated, or values that are not chances summing to 1). */
size_t solve_image_size(const struct solve_table *t);
void solve_image_write(const struct solve_table *t, void *buf);
struct solve_table *solve_image_read(const void *buf, size_t len, int n, int per_player);

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
