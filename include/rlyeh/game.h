/* game: the small boundary every game engine implements.
 *
 * A game is a state machine that stops at one of two kinds of node:
 *   - a chance node: a die is rolled (or a tile drawn); the caller supplies a
 *     value in [0, sides) from the game's own random stream;
 *   - a choice node: one seat picks one of the legal options the engine lists.
 * Applying a value moves the state on and appends events that say what
 * happened. Engines never read a clock or a random source, so a game is fully
 * determined by its setup and the sequence of values applied to it: that
 * sequence is its log, and replaying the log rebuilds the state. */
#ifndef RLYEH_GAME_H
#define RLYEH_GAME_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "rlyeh/rng.h"

#define GAME_MAX_SEATS   12
#define GAME_MAX_OPTIONS 16
/* Events one applied value can produce, at most, in any game. */
#define GAME_MAX_EVENTS 48

enum game_err {
	GAME_OK = 0,
	GAME_EARG = -1,     /* a setup or argument out of range */
	GAME_EPHASE = -2,   /* the game is not waiting for this kind of input */
	GAME_EILLEGAL = -3, /* the value is not one of the legal options */
	GAME_EOVER = -4,    /* the game has already ended */
};

/* Returns a static English description of a game_err value. */
const char *game_strerror(int err);

enum game_node {
	GAME_NODE_CHANCE,
	GAME_NODE_CHOICE,
	GAME_NODE_OVER,
};

/* What the game waits for next. */
struct game_step {
	enum game_node node;
	int seat;                      /* who rolls (chance) or decides (choice); -1 when over */
	int kind;                      /* game-specific name of the decision or roll */
	int count;                     /* chance: die sides; choice: number of legal options */
	int options[GAME_MAX_OPTIONS]; /* choice: the legal values; a game whose choice
	                                  values are always 0..count-1 may list more
	                                  than GAME_MAX_OPTIONS, and options[] then
	                                  holds the first of them */
};

/* One thing that happened. Field meanings are game-specific and documented
 * with each game's event kinds. */
struct game_event {
	int16_t kind;
	int16_t seat;
	int16_t target;
	int16_t value;
};

/* Events appended by one apply; `n` never exceeds GAME_MAX_EVENTS. */
struct game_events {
	int n;
	struct game_event ev[GAME_MAX_EVENTS];
};

/* Outcome of a finished game. */
struct game_result {
	int over;    /* 0 while playing */
	int winner;  /* winning seat, or -1 when nobody won (Cthulhu) */
	int player;  /* owning player of the winning seat, or -1 */
	int turns;   /* complete turns played */
	long points; /* points banked in the game; 0 in games without points */
};

/* Generic setup; each game documents which fields it reads. */
struct game_setup {
	int players;    /* human-level players */
	int per_player; /* cultists per player in team variants; 0 otherwise */
	int first;      /* seat that moves first */
	int rounds;     /* round cap of games that have one; 0 = none */
	int revision;   /* the revision of its rules a game follows, for games
	                   whose rules changed while games were played: 0 = the
	                   first; GAME_REVISION_LATEST = the newest; others ignore it */
};

#define GAME_REVISION_LATEST 0x7fff

/* A policy picks a value at a choice node. `rng` is the game's own stream
 * (policies that do not randomise ignore it). Returns one of step->options. */
typedef int (*game_policy_fn)(const void *state, const struct game_step *step, struct rng *rng);

struct game_policy {
	const char *name;
	game_policy_fn choose;
};

/* The operations of one game. `state` points to `state_size` bytes the
 * caller owns; states are plain values and may be copied with memcpy. */
struct game_ops {
	const char *name;
	size_t state_size;
	int seats_max;
	int scores; /* 1 when game_result.points counts points (sim reports them) */
	/* Initialises `state` for a new game; returns GAME_OK or GAME_EARG
	 * (state undefined on error). */
	int (*init)(void *state, const struct game_setup *setup);
	/* Describes the next node. */
	void (*step)(const void *state, struct game_step *out);
	/* Applies `value` at the current node; on error the state is unchanged
	 * and nothing is appended. `ev` may be NULL. */
	int (*apply)(void *state, int value, struct game_events *ev);
	void (*result)(const void *state, struct game_result *out);
	int (*seats)(const void *state);
	const struct game_policy *policies; /* terminated by a NULL name */
	/* Optional (NULL when the game has none): the fast path of game_play
	 * for simulation. Plays `state` to the end with no events, drawing the
	 * same values in the same order as game_play with the same policies
	 * and rng, so it leaves the same state and rng and returns the same
	 * count. */
	long (*play)(void *state, const struct game_policy *const *policy, struct rng *rng);
};

/* Defines, in a game's file, the static functions ops_init, ops_step,
 * ops_apply, ops_result and ops_seats of its struct game_ops from its typed
 * functions P_init, P_step, P_apply, P_result on struct P (whose seat
 * count is its field n). */
/* clang-format off */
#define GAME_OPS_ADAPTERS(P) \
	static int ops_init(void *state, const struct game_setup *setup) \
	{ \
		return P##_init(state, setup); \
	} \
	static void ops_step(const void *state, struct game_step *out) \
	{ \
		P##_step(state, out); \
	} \
	static int ops_apply(void *state, int value, struct game_events *ev) \
	{ \
		return P##_apply(state, value, ev); \
	} \
	static void ops_result(const void *state, struct game_result *out) \
	{ \
		P##_result(state, out); \
	} \
	static int ops_seats(const void *state) \
	{ \
		return ((const struct P *)state)->n; \
	}
/* clang-format on */

/* Finds a registered game by name; NULL when unknown. */
const struct game_ops *game_find(const char *name);

/* Finds a policy of `ops` by name; NULL when unknown. */
const struct game_policy *game_policy_find(const struct game_ops *ops, const char *name);

/* Plays `state` to the end through the generic interface (step, then
 * apply with no events): chance values from `rng`, choices from
 * `policy[seat]`. Returns the number of values applied. */
long game_play(const struct game_ops *ops, void *state, const struct game_policy *const *policy,
               struct rng *rng);

/* The same game as game_play (same draws, same final state and rng, same
 * count), by the game's fast path ops->play where it has one. */
static inline long game_play_fast(const struct game_ops *ops, void *state,
                                  const struct game_policy *const *policy, struct rng *rng)
{
	return ops->play ? ops->play(state, policy, rng) : game_play(ops, state, policy, rng);
}

/* Appends an event; the engine guarantees capacity (asserted). No-op when
 * `ev` is NULL. Inline, so that an engine's code called with a constant
 * NULL drops its events altogether. */
static inline void game_emit(struct game_events *ev, int kind, int seat, int target, int value)
{
	if (!ev)
		return;
	assert(ev->n < GAME_MAX_EVENTS);
	if (ev->n >= GAME_MAX_EVENTS)
		return; /* never past the array, even where asserts are off */
	ev->ev[ev->n++] =
	    (struct game_event){ (int16_t)kind, (int16_t)seat, (int16_t)target, (int16_t)value };
}

#endif
