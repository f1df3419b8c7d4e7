/* cdsolve: win chances of Cthulhu Dice positions under a solved strategy
 * profile (rules: shared/rules/cthulhu-dice.md).
 *
 * States. Only turn starts are stored: the sanity of every cultist, with
 * the Caster rotated to seat 0 (the game is the same from every seat, so
 * one table serves every Caster; the pool is 3n minus the sanity). A turn
 * (victim, curse, Eye, response, Eye) is expanded on the fly through the
 * engine itself (cdice_roll, cdice_eye), so the solver and the engine
 * cannot disagree on a rule (the solver is part of the engine library; of
 * the C library's math.h it uses fabs, fmax and sqrt, and its logit weights
 * take an exp of its own). Sanity vectors of n cultists summing to at most
 * 3n: 2 cultists 28, 3: 220, 4: 1,820, 5: 15,504, 6: 134,596.
 *
 * Values. For every state, each seat's probability of winning and
 * Cthulhu's, summing to 1, plus the expected number of complete turns left.
 * A choice made by a seat is valued by its owner's total (in Rival Cults
 * the winner is a player, so the sum over that player's cultists).
 *
 * Solution concept: the logit equilibrium traced towards temperature 0
 * (McKelvey and Palfrey's logit quantal response equilibrium, whose limit
 * as the temperature goes to 0 is a Nash equilibrium; followed here by
 * warm starts along a falling temperature, the homotopy of Turocy 2005).
 * At temperature tau every chooser (victim, Eye face) picks option k with
 * probability proportional to exp((x_k - max x) / tau), x_k being the
 * option's chance for the chooser's owner, and 0 where that exponent is
 * below -CDSOLVE_CUT (cdsolve_choice); chance nodes average over the d12. The
 * table is the fixed point of that stationary profile, found by
 * Gauss-Seidel sweeps (states by rising sum of sanity, within a sum each
 * orbit of the rotation from its end back, so that the start a turn
 * mostly leads to, the same sanity seen from the next Caster, is swept
 * first) under Anderson acceleration (CDSOLVE_AA_DEPTH differences,
 * their inner products kept; Walker and Ni 2011). One sweep in
 * CDSOLVE_MARK_EVERY marks each turn start's victims that weigh 0 with room
 * to spare (below the best by CDSOLVE_CUT temperatures and CDSOLVE_MARGIN
 * times the last residual) and the sweeps between skip them, adding to the
 * marks the victims they find so far below (a full sweep marks anew); only
 * a sweep of every victim ends a temperature, and one that fails to after
 * skipping ends the skipping, so the fixed point is the same. The sweeps go first at
 * CDSOLVE_TAU_START from a guess (each state's chances split as its
 * sanity, Cthulhu CDSOLVE_GUESS; four times warmer, from the guess again,
 * should that not settle), its sweeps over-relaxed by CDSOLVE_OVERRELAX
 * and converged to CDSOLVE_EPS_COLD. Three tables start colder, where from
 * the guess the iteration settles at once: 6 cultists at
 * CDSOLVE_TAU_START6 and Rival Cults 2x3 at CDSOLVE_TAU_COLD, on the branch
 * the path itself reaches there (6: the path from 0.025 to 0.015 ends at
 * the same chances to 1e-9; 2x3: 32 sweeps where the path down takes about
 * 300, the path traced with a budget of 4e7 backups ending at 6.1e-6 with
 * chances from the start within 1.3e-5 of the cold start's at 5e-6), and
 * 5 cultists at CDSOLVE_TAU_START5, on another logit equilibrium than the
 * branch the path from CDSOLVE_TAU_START is on at 0.00625 (followed in short
 * steps it stalls near 0.0057): one that is nearer an equilibrium of the
 * game (exploitability 2.5e-3 against 4.5e-3);
 * then along falling temperatures, each started from the values of the
 * last that converged. A temperature
 * converges when a sweep changes no win chance by more than CDSOLVE_EPS
 * within CDSOLVE_STAGE_SWEEPS sweeps; it fails when CDSOLVE_STALL sweeps pass
 * without a new lowest residual. The next temperature is CDSOLVE_TAU_STEP
 * times the last; when it fails, the values go back and the step's
 * exponent halves (as a homotopy shortens its step), until the step would
 * be nearer 1 than CDSOLVE_STEP_MAX, CDSOLVE_TAU_MIN is reached or
 * CDSOLVE_BUDGET state backups are spent (no temperature is tried with
 * fewer than CDSOLVE_STAGE_MIN sweeps of it left: it could not converge).
 *
 * Polish. Where the path ends before its budget (at a fold, where the
 * iteration stops converging, or at CDSOLVE_TAU_MIN), the profile at its last
 * temperature is made exact, as a support-enumeration step in the manner
 * of Porter, Nudelman and Shoham (2008) seeded by the logit path: at each
 * decision the options of probability at least CDSOLVE_SUPPORT are its
 * support (one option: taken outright). With the supports fixed the path
 * goes on (the logit choice within each support) down to
 * CDSOLVE_POLISH_TAU, where the options a mixed decision keeps are
 * indifferent to their chooser within about that temperature; the mixed
 * probabilities are then frozen and the values of that profile solved
 * exactly (a linear fixed point). Any option worth more than CDSOLVE_GROW
 * above its decision's support joins it, and the round is played again
 * (from CDSOLVE_POLISH_RESTART, warmer if it must). A round that reaches
 * CDSOLVE_POLISH_TAU and finds no better option anywhere is an equilibrium
 * up to those margins (no seat gains more than CDSOLVE_GROW by leaving a
 * support at any one decision, nor more than about CDSOLVE_CUT times
 * CDSOLVE_POLISH_TAU within one, and every game ends), and is kept (cdsolve_stats: polished, mixed,
 * rounds; tau = CDSOLVE_POLISH_TAU); when none does within CDSOLVE_POLISH_ROUNDS rounds and
 * CDSOLVE_POLISH_BUDGET state backups, the path goes on from its last temperature with damped
 * sweeps (each state moves CDSOLVE_DAMP of the way to its backup: the same fixed points, a
 * steadier iteration) as far as it converges within what is left of CDSOLVE_BUDGET, and the
 * table is the logit profile at the last temperature that converged (mixed 0).
 *
 * Tracing (cdsolve_trace; not part of the build). An exact homotopy in
 * the manner of Govindan and Wilson's global Newton method (2003): every
 * decision starts at its likeliest option at the logit path's end, which
 * carries a bonus of lambda times 2 in its chooser's eyes, and the path of
 * exact equilibria is followed as lambda falls from 1 (where the start is
 * the only equilibrium) to 0 (the game itself): a decision switches where
 * another option catches up, and where a switch would not stand the
 * decisions that must mix are followed by pseudo-arclength continuation
 * of their indifferences, an option joining a support when it catches up
 * and leaving it when its probability reaches 0. The supports at lambda 0
 * (the seeds: the decisions whose support is not the start) are then
 * polished as above. Measured (tests/bench/cdtrace.c): 3 cultists reach
 * lambda 0 in 61 events (0.4 s), on the table's equilibrium; 4 cultists
 * follow a path many hours long, which winds near lambda = 0.0058,
 * 0.0054 and 0.0052 (13,775 events, 50 CPU minutes, took it to 0.00427),
 * and 5 cultists take 2,900 events to lambda = 0.029. cdsolve_trace_run
 * lets such a run be stopped and resumed from its state.
 *
 * Measured (rlyeh analyze): 2 and 3 cultists and Rival Cults 2x2 are
 * polished (exploitability below 1e-12); 4 cultists is not (its path meets
 * a fold of the branch at 0.0019, and with its supports fixed the path
 * still stops, near 1.3e-4), 5, 6 and 2x3 end on their first temperature
 * (2x3: exploitability below 1e-8 from the start, 1e-6 at the worst
 * position).
 *
 * The table is the last temperature that converged (cdsolve_stats: tau,
 * stages, failed), its residual at most CDSOLVE_EPS (CDSOLVE_EPS_COLD when
 * that is the first; CDSOLVE_EPS_LAST, a hundredth of the target of 1e-6
 * for exploitability, once so many sweeps are spent that no colder
 * temperature can follow: 6 cultists and Rival Cults 2x3, whose first
 * temperature is their last). The logit profile is
 * mixed wherever options lie within a few tau of each other; the polished
 * one where its decisions are mixed. How far it is from an equilibrium is
 * measured exactly by cdsolve_exploit: each seat's gain from an exact best
 * response to the others' profile. The values are exact win chances of
 * that (mixed) stationary profile: they sum to 1 with Cthulhu, and every
 * game ends with probability 1 (two Cthulhu faces a turn, chance 1/144,
 * take a token from every sane cultist). The policy "solver" (cdice.h)
 * plays exactly this profile: at each choice it draws from the options'
 * probabilities (cdsolve_pick) with the game's own random stream.
 *
 * The same machinery evaluates the uniform "random" policy exactly
 * (CDSOLVE_RANDOM), which checks it against the reference values.
 *
 * Memory: the table keeps (n + 2) doubles per state (6 cultists: 8.6 MB),
 * and a polished profile 2n - 1 bytes per state and 56 bytes per mixed
 * decision (3 cultists: 11 KB); while solving it also holds the
 * transitions (16 int32 per state and victim: 43 MB for 6 cultists), the
 * values of the last temperature that converged (8.6 MB), the sweep order
 * and the acceleration's history (a double and 2 + 2 * CDSOLVE_AA_DEPTH
 * floats a value: 60 MB), a byte per state for the victims marked, and
 * for the polish the values where the path ended, the supports and the
 * ranks after each curse (4 int32 per state and victim), freed before
 * cdsolve_build returns (123 MB at the peak for 6 cultists; cdsolve_exploit
 * needs about 50 MB). cdsolve_stats reports both. Beyond
 * CDSOLVE_MAX_CULTISTS the table is not built (7 cultists would need
 * ~1.2 M states and ~0.5 GB while solving).
 *
 * Thread safety: a built table is read-only; any number of threads may
 * query it. cdsolve_set_provider must be called before threads play. */
#ifndef RLYEH_CDSOLVE_H
#define RLYEH_CDSOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "rlyeh/cdice.h"
#include "rlyeh/rng.h"

#define CDSOLVE_MAX_CULTISTS   6
#define CDSOLVE_TAU_START      0.025 /* first logit temperature, in win probability */
#define CDSOLVE_TAU_START5     0.005 /* 5 cultists start there instead */
#define CDSOLVE_TAU_START6     0.015 /* 6 cultists start there instead */
#define CDSOLVE_TAU_COLD       3e-6  /* Rival Cults 2x3 starts there instead */
#define CDSOLVE_EPS_COLD       1e-10 /* convergence of the first temperature */
#define CDSOLVE_EPS_LAST       1e-8  /* or this, when no colder one can follow */
#define CDSOLVE_TAU_STEP       0.5   /* each temperature is this times the last */
#define CDSOLVE_STEP_MAX       0.97  /* no step nearer 1 than this is tried */
#define CDSOLVE_TAU_MIN        1e-6  /* the lowest temperature tried */
#define CDSOLVE_STAGE_SWEEPS   150   /* sweeps a temperature may take to converge */
#define CDSOLVE_BUDGET         2.6e6 /* state backups after which no lower temperature is tried */
#define CDSOLVE_STAGE_MIN      10    /* no temperature is tried with fewer sweeps left */
#define CDSOLVE_STALL          40    /* sweeps without a new lowest residual: not converging */
#define CDSOLVE_AA_DEPTH       5     /* differences kept by the Anderson acceleration */
#define CDSOLVE_MARK_EVERY     8     /* one sweep in so many takes every victim, marking anew */
#define CDSOLVE_MARGIN         0.1   /* a victim is marked cut this many residuals below the cut */
#define CDSOLVE_DAMP           0.7   /* damping of the path's sweeps after a failed polish */
#define CDSOLVE_OVERRELAX      1.1   /* sweeps of the first temperature overshoot so much */
#define CDSOLVE_GUESS          0.15  /* Cthulhu's chance in the first temperature's start */
#define CDSOLVE_CUT            40    /* exponents below -CDSOLVE_CUT weigh 0 */
#define CDSOLVE_SWEEPS         1000 /* sweep cap: uniform profile, polish values, cdsolve_exploit */
#define CDSOLVE_EPS            1e-12 /* convergence: largest change in a sweep */
#define CDSOLVE_TIE            1e-12 /* options closer than this are tied */
#define CDSOLVE_SUPPORT        0.4   /* the polish mixes options this likely at the last tau */
#define CDSOLVE_POLISH_TAU     1e-10 /* the polish's lowest temperature */
#define CDSOLVE_POLISH_BUDGET  1.5e5 /* state backups the polish may spend */
#define CDSOLVE_POLISH_ROUNDS  8     /* rounds of growing the supports */
#define CDSOLVE_GROW           1e-10 /* an option this much better than its support's joins it */
#define CDSOLVE_POLISH_RESTART 1e-6  /* a polish round starts at this temperature or warmer */

enum cdsolve_profile {
	CDSOLVE_PERFECT, /* the logit equilibrium above */
	CDSOLVE_RANDOM,  /* uniform victims and Eye faces (the "random" policy) */
};

struct cdsolve_stats {
	int n, per_player;
	long states;       /* stored turn-start states */
	int sweeps;        /* sweeps run, over every temperature */
	int stages;        /* temperatures that converged */
	int failed;        /* sweeps spent on temperatures that did not */
	double tau;        /* the profile's temperature (0: uniform) */
	double residual;   /* largest change of a win chance in the last sweep */
	long mixed;        /* decisions the profile mixes */
	int rounds;        /* polish rounds */
	int polished;      /* 1: the polished profile; 0: the logit one at tau */
	size_t bytes_kept; /* memory the table keeps */
	size_t bytes_peak; /* memory held while solving */
};

struct cdsolve_table;

/* Builds the table for `n` cultists (2..CDSOLVE_MAX_CULTISTS); `per_player`
 * is 0 for classic play or 2/3 for Rival Cults (then n = 2 * per_player).
 * Returns NULL for other sizes or when memory runs out. Free with
 * cdsolve_free. */
struct cdsolve_table *cdsolve_build(int n, int per_player, enum cdsolve_profile profile);

/* A seed of the polish: at decision key (rank * (2n - 1) + decision, as
 * in the polished profile) the options (a bit each) the equilibrium the
 * tracing homotopy found takes, where they are not just the likeliest
 * option of the logit path's end. */
struct cdsolve_seed {
	uint32_t key;
	uint8_t support;
};

/* Progress of cdsolve_trace: lambda on its way from 1 to 0, events
 * (switches and supports changed) so far, decisions mixed now; state
 * (len bytes, valid during the call) is where the path is, to resume it
 * from, or NULL (len 0) between two states (cdsolve_trace_run). */
typedef void cdsolve_trace_fn(void *arg, double lambda, long events, long mixed, const void *state,
                              size_t len);

/* How cdsolve_trace reports and where it starts. */
struct cdsolve_trace_run {
	cdsolve_trace_fn *progress; /* called with arg after each step; may be NULL */
	void *arg;
	long save_every;    /* events between two states handed to progress; 0: none */
	const void *resume; /* a state progress was handed, to go on from; or NULL */
	size_t resume_len;
};

/* cdsolve_build with the tracing homotopy (Tracing, above) before the
 * polish, which then starts from its seeds instead of the logit profile's
 * supports. Takes as long as the path is: seconds to days. run (may be
 * NULL) reports progress and may resume the path from a state this build
 * handed out for the same table; a state that is not one starts the path
 * from its start. When the path reaches lambda 0, *seeds (caller frees;
 * sorted by key) and *count are its seeds, and the table is the polish
 * from them; else *seeds is NULL, *count 0 and the table what
 * cdsolve_build gives. NULL when memory runs out. */
struct cdsolve_table *cdsolve_trace(int n, int per_player, const struct cdsolve_trace_run *run,
                                    struct cdsolve_seed **seeds, long *count);

/* Frees a table; NULL is a no-op. */
void cdsolve_free(struct cdsolve_table *t);

const struct cdsolve_stats *cdsolve_stats(const struct cdsolve_table *t);

/* A solved table as bytes, to keep on disk: cdsolve_image_size bytes written
 * by cdsolve_image_write into buf (caller's). cdsolve_image_read rebuilds the
 * table for n cultists and variant per_player from such bytes (caller frees
 * it with cdsolve_free), or returns NULL when they are not a table of this
 * program's solver for that size (another version, another machine's byte
 * order, truncated, or values that are not chances summing to 1). */
size_t cdsolve_image_size(const struct cdsolve_table *t);
void cdsolve_image_write(const struct cdsolve_table *t, void *buf);
struct cdsolve_table *cdsolve_image_read(const void *buf, size_t len, int n, int per_player);

/* 1 when `t` was built for g's cultists and variant. */
int cdsolve_fits(const struct cdsolve_table *t, const struct cdice *g);

/* Each seat's chance of winning from `g` (any phase; a finished game gives
 * 1 to its winner) into out[0..n-1], Cthulhu's into out[n]. `t` must fit g. */
void cdsolve_value(const struct cdsolve_table *t, const struct cdice *g, double *out);

/* Expected complete turns still to play from `g`, which must be at the start
 * of a turn (phase CDICE_VICTIM) or over (0). */
double cdsolve_length(const struct cdsolve_table *t, const struct cdice *g);

/* At a choice node of g (`step` from cdice_step), the value vector of each
 * option, in step->options order: out[k * (CDICE_MAX + 1) + i] is seat i's
 * chance (i = n for Cthulhu) after option k (out may be NULL), and the
 * profile's probability of each option into prob[k] (may be NULL).
 * Returns the index of the option best for the chooser's owner (ties
 * within CDSOLVE_TIE: the first), or -1 when `step` is not a choice. */
int cdsolve_options(const struct cdsolve_table *t, const struct cdice *g,
                    const struct game_step *step, double *out, double *prob);

/* The profile's choice at g's choice node `step`: an index into
 * step->options drawn with cdsolve_options' probabilities from one value of
 * rng (taken at every choice, pure or mixed, so a game replays from its
 * seed). -1 when `step` is not a choice (rng untouched then). */
int cdsolve_pick(const struct cdsolve_table *t, const struct cdice *g, const struct game_step *step,
                 struct rng *rng);

/* The logit choice among count options (count <= GAME_MAX_OPTIONS) worth
 * x[k] to the chooser, at temperature tau (0: uniform): probabilities
 * into p (see "Solution concept" above). */
void cdsolve_choice(double tau, const double *x, int count, double *p);

/* How far the table's profile is from an equilibrium: for each group (a
 * seat, or a player in Rival Cults) the best response to the others'
 * profile, solved exactly as a one-agent decision problem (value
 * iteration until no value moves by more than CDSOLVE_EPS), minus the
 * group's value under the profile. */
struct cdsolve_exploit {
	int groups;                 /* seats, or 2 players in Rival Cults */
	double at_start[CDICE_MAX]; /* from the start, seat 0 casting first, by seat or player */
	double worst;               /* the largest over every turn start and group */
	int sweeps;                 /* value-iteration sweeps */
	double residual;            /* largest change in the last one */
};

/* Fills *out for table t; 0, or -1 when memory runs out (out zeroed).
 * Takes about as long as solving a few temperatures. */
int cdsolve_exploit(const struct cdsolve_table *t, struct cdsolve_exploit *out);

/* Finds the table for n cultists and variant; NULL when none (too many
 * cultists, no provider, or out of memory). Used by the "solver" policy. */
typedef const struct cdsolve_table *(*cdsolve_provider_fn)(int n, int per_player);

/* Installs the process-wide provider (NULL removes it) and hands the
 * "solver" policy (cdice.h) the provided tables' profile through
 * cdice_set_solver. Not thread-safe: call before any thread plays. */
void cdsolve_set_provider(cdsolve_provider_fn fn);

/* The table from the installed provider, or NULL. */
const struct cdsolve_table *cdsolve_provided(int n, int per_player);

#endif
