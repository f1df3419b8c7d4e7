/* cdice: the Cthulhu Dice rules engine (rules: shared/rules/cthulhu-dice.md,
 * rulings R1-R13 cited below).
 *
 * Classic play: 2 to 12 cultists, one per seat. Rival Cults (R12, R13): two
 * players with 2 or 3 cultists each, seats alternating owners, so seat s
 * belongs to player s % 2.
 *
 * A turn walks these nodes, in order:
 *   VICTIM        choice of the Caster: a sane seat other than the Caster (R4)
 *   CURSE         chance: the Caster's d12
 *   CURSE_EYE     choice of the Caster, only after an Eye: one of four faces (R8)
 *   RESPONSE      chance: the Victim's d12, against the Caster (R9, R10)
 *   RESPONSE_EYE  choice of the Victim, only after an Eye
 * then the end of turn is checked (R11) and the next seat casts. */
#ifndef RLYEH_CDICE_H
#define RLYEH_CDICE_H

#include <stdint.h>

#include "rlyeh/game.h"

#define CDICE_MIN    2
#define CDICE_MAX    12
#define CDICE_SANITY 3 /* sanity each cultist starts with */
#define CDICE_DIE    12

enum cdice_face {
	CDICE_YELLOW_SIGN = 0,
	CDICE_TENTACLE = 1,
	CDICE_ELDER_SIGN = 2,
	CDICE_CTHULHU = 3,
	CDICE_EYE = 4,
	CDICE_FACES = 5,
};

enum cdice_phase {
	CDICE_VICTIM,
	CDICE_CURSE,
	CDICE_CURSE_EYE,
	CDICE_RESPONSE,
	CDICE_RESPONSE_EYE,
	CDICE_OVER,
};

/* Event kinds (struct game_event fields in brackets). */
enum cdice_event_kind {
	CDICE_EV_TURN,     /* a turn starts [seat = Caster, value = turn number from 1] */
	CDICE_EV_VICTIM,   /* [seat = Caster, target = Victim] */
	CDICE_EV_ROLL,     /* the curse [seat = Caster, target = Victim, value = face] */
	CDICE_EV_RESPONSE, /* the response [seat = Victim, target = Caster, value = face] */
	CDICE_EV_EYE,      /* an Eye resolved as [seat = roller, value = chosen face] */
	CDICE_EV_MOVE,     /* one token moves [seat = from, target = to; -1 is the pool] */
	CDICE_EV_NOTHING,  /* the roll changed nothing [seat = roller, target, value = face] */
	CDICE_EV_MAD,      /* [seat] went mad */
	CDICE_EV_SANE,     /* [seat] is sane again */
	CDICE_EV_END,      /* the game ended [seat = winner or -1 for Cthulhu,
	                      target = winning player (Rival Cults) or -1, value = turns] */
};

#define CDICE_POOL         (-1)
#define CDICE_CTHULHU_WINS (-1)

struct cdice {
	uint8_t n;          /* cultists */
	uint8_t per_player; /* Rival Cults: cultists per player; 0 in classic play */
	uint8_t phase;      /* enum cdice_phase */
	uint8_t caster;
	uint8_t victim;
	uint8_t pool;
	int8_t winner; /* seat, CDICE_CTHULHU_WINS, or -2 while playing */
	uint8_t sanity[CDICE_MAX];
	uint32_t turn; /* complete turns played */
};

/* Starts a game. Classic: setup->players cultists (2..12), per_player 0.
 * Rival Cults: players 2, per_player 2 or 3. setup->first casts first.
 * Returns GAME_OK or GAME_EARG (g undefined then). */
int cdice_init(struct cdice *g, const struct game_setup *setup);

/* Describes the next node (see the top of this file). Choice options:
 * VICTIM lists seats, the Eye nodes list the four faces 0..3. */
void cdice_step(const struct cdice *g, struct game_step *out);

/* The Caster names `victim`. GAME_EPHASE when no victim is awaited,
 * GAME_EILLEGAL for the Caster, a mad or absent seat (R4). */
int cdice_victim(struct cdice *g, int victim, struct game_events *ev);

/* The awaited roll (curse or response) shows `face`; any face incl. Eye. */
int cdice_roll(struct cdice *g, enum cdice_face face, struct game_events *ev);

/* The roller of an Eye picks `face` (not the Eye itself, R8). */
int cdice_eye(struct cdice *g, enum cdice_face face, struct game_events *ev);

/* The generic apply: at chance nodes `value` is the die in [0, 12), at
 * choice nodes the victim seat or the face. State unchanged on error. */
int cdice_apply(struct cdice *g, int value, struct game_events *ev);

void cdice_result(const struct cdice *g, struct game_result *out);

/* The face a d12 value in [0, 12) shows: Yellow Sign x5, Tentacle x4,
 * Elder Sign, Cthulhu, Eye. */
enum cdice_face cdice_die_face(int value);

/* A d12 value showing `face` (the lowest). */
int cdice_face_die(enum cdice_face face);

/* Owning player of `seat`: seat % 2 in Rival Cults, the seat itself otherwise. */
int cdice_owner(const struct cdice *g, int seat);

/* Series play (R2): the first Caster of the next game. Returns the previous
 * winner, or `chosen` when Cthulhu won or there was no previous game. */
int cdice_series_first(const struct game_result *previous, int chosen);

/* Stable lowercase names ("yellow-sign", "tentacle", "elder-sign",
 * "cthulhu", "eye"); cdice_face_parse returns -1 for an unknown name. */
const char *cdice_face_name(enum cdice_face face);
int cdice_face_parse(const char *name);

/* A solver's choice at g's choice node `step`: one of step->options, or -1
 * when it has nothing for g (then rng must be untouched). */
typedef int (*cdice_solver_fn)(const struct cdice *g, const struct game_step *step,
                               struct rng *rng);

/* Installs the process-wide solver the "solver" policy asks (NULL removes
 * it); the engine itself knows no solver. Not thread-safe: call before any
 * thread plays. */
void cdice_set_solver(cdice_solver_fn fn);

/* Policies (shared/rules/cthulhu-dice.md): "random" and "heuristic";
 * "solver" plays what the installed solver (cdice_set_solver) chooses and
 * falls back to "heuristic" where it has nothing (no solver installed, or
 * no table for the game's size). */
int cdice_policy_random(const void *state, const struct game_step *step, struct rng *rng);
int cdice_policy_heuristic(const void *state, const struct game_step *step, struct rng *rng);
int cdice_policy_solver(const void *state, const struct game_step *step, struct rng *rng);

/* The fast path of game_play (game.h, cdice_ops.play): plays `g` to the
 * end, from any node, with no events: the same draws from `rng` in the same
 * order, the same final state and the same count of applied values as
 * game_play(&cdice_ops, g, policy, rng). The random policy's draws are made
 * here without a call; other policies are called as game_play calls them. */
long cdice_play(struct cdice *g, const struct game_policy *const *policy, struct rng *rng);

extern const struct game_ops cdice_ops;

#endif
