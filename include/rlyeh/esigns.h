/* esigns: the Elder Signs rules engine, the press-your-luck game (rules:
 * shared/rules/press-your-luck.md, rulings P1 and P2 cited below).
 *
 * 2 to 12 players, one per seat (each seat is its own player). A bag holds
 * 15 dice of three kinds (enum esigns_kind); every die is always in exactly
 * one of the bag, the hand of the seat whose turn it is, that seat's stash
 * (Elder Sign dice) or its Tentacle pile.
 *
 * A turn walks these nodes:
 *   DRAW    chance: one die from the bag, drawn without replacement. The
 *           value v is in [0, dice in the bag) and picks a die uniformly:
 *           v below the Library dice in the bag draws a Library die, the
 *           next Museum-count values a Museum die, the rest a Tomb die.
 *           Repeated until the hand holds 3 dice (or the bag is empty).
 *   ROLL    chance: one die of the hand, value in [0, 6) (ESIGNS_DIE); the
 *           hand is rolled Library dice first, then Museum, then Tomb.
 *           Faces by value: Elder Signs first, then Clues, then Tentacles:
 *             Library  0-2 Elder Sign, 3-4 Clue, 5   Tentacle
 *             Museum   0-1 Elder Sign, 2-3 Clue, 4-5 Tentacle
 *             Tomb     0   Elder Sign, 1-2 Clue, 3-5 Tentacle
 *           An Elder Sign goes to the stash (+1 point at stake), a Tentacle
 *           to the pile, a Clue stays in hand. After the last die of the
 *           throw: 3 or more Tentacles this turn and the seat is downed (the
 *           points at stake are lost, the turn ends); otherwise
 *   DECIDE  choice of the seat: ESIGNS_CONTINUE (draw up to 3, roll the whole
 *           hand again) or ESIGNS_RETREAT (bank the points at stake).
 * At the end of a turn every die goes back into the bag.
 *
 * P1: on continuing, when the bag holds fewer dice than the hand lacks, the
 * stash's dice go back into the bag first; their Elder Signs stay counted
 * for the turn. The hand would then roll what it has if the bag were still
 * short, but that cannot happen with 15 dice: at a DECIDE node at most 2
 * dice are Tentacles and at most 3 in hand, so bag and stash hold >= 10.
 *
 * Rounds: `setup->first` is the seat that opens every round; it plays the
 * part of the rules' "seat 0" and play goes up the seats from it, wrapping
 * (first = 0 is exactly the rules' order; any other first only renames the
 * seats, so every round still gives every player one turn). When a round
 * ends with a score of 13 or more, the players under 13 are devoured and
 * the highest score wins. P2: tied highest scores play tie-break rounds,
 * one turn each in the same order, scores adding up; after each such round
 * the players still level with the highest score stay in (the others are
 * out) and, while more than one is, another tie-break round follows — also
 * when every one of them scored the same (or nothing) in it.
 *
 * Termination: every throw rolls 3 dice, and a throw downs with
 * probability >= 1/216 whatever the state, so every turn ends with
 * probability 1. A game ends with probability 1 as long as the seats'
 * choices retreat with positive probability when they hold points (every
 * policy here does): then a turn scores, and a tie-break round has a single
 * leader, with positive probability. A table that never retreats plays
 * forever; the engine does not cap the game, so simulators must not seat
 * such players only. */
#ifndef RLYEH_ESIGNS_H
#define RLYEH_ESIGNS_H

#include <stdint.h>

#include "rlyeh/game.h"

#define ESIGNS_MIN    2
#define ESIGNS_MAX    12
#define ESIGNS_DICE   15 /* in the bag */
#define ESIGNS_HAND   3  /* dice rolled at every throw */
#define ESIGNS_DOWNED 3  /* Tentacles in one turn that down a player */
#define ESIGNS_GOAL   13 /* score that ends the game after the round */
#define ESIGNS_DIE    6

enum esigns_kind {
	ESIGNS_LIBRARY = 0, /* 8 dice: 3 Elder Signs, 2 Clues, 1 Tentacle */
	ESIGNS_MUSEUM = 1,  /* 4 dice: 2 / 2 / 2 */
	ESIGNS_TOMB = 2,    /* 3 dice: 1 / 2 / 3 */
	ESIGNS_KINDS = 3,
};

enum esigns_face {
	ESIGNS_ELDER_SIGN = 0,
	ESIGNS_CLUE = 1,
	ESIGNS_TENTACLE = 2,
	ESIGNS_FACES = 3,
};

enum esigns_phase {
	ESIGNS_DRAW,
	ESIGNS_ROLL,
	ESIGNS_DECIDE,
	ESIGNS_OVER,
};

/* The values of a DECIDE node. */
enum esigns_choice {
	ESIGNS_CONTINUE = 0,
	ESIGNS_RETREAT = 1,
};

/* Event kinds (struct game_event fields in brackets; a score or count too
 * large for 16 bits reads INT16_MAX). */
enum esigns_event_kind {
	ESIGNS_EV_TURN,     /* a turn starts, with its first draw [seat, target = round
	                       number from 1, value = turn number from 1] */
	ESIGNS_EV_DRAW,     /* [seat, target = kind drawn, value = dice left in the bag] */
	ESIGNS_EV_ROLL,     /* [seat, target = kind, value = face] */
	ESIGNS_EV_REFILL,   /* P1: the stash's dice went back into the bag
	                       [seat, target = dice in the bag now, value = dice moved] */
	ESIGNS_EV_DOWNED,   /* [seat, target = Tentacles this turn, value = points lost] */
	ESIGNS_EV_CONTINUE, /* [seat, target = Clue dice kept, value = points at stake] */
	ESIGNS_EV_BANK,     /* the seat retreated [seat, target = score now,
	                       value = points banked] */
	ESIGNS_EV_ROUND,    /* a round (or tie-break round) ended [seat = -1,
	                       target = 1 in a tie-break, 0 otherwise, value = round number] */
	ESIGNS_EV_DEVOURED, /* under 13 at the end [seat, target = -1, value = score] */
	ESIGNS_EV_TIEBREAK, /* P2: a tie-break round begins [seat = -1, target = tie-break
	                       round number from 1, value = bit s set for every seat s in it] */
	ESIGNS_EV_END,      /* the game ended [seat = winner, target = winner's score,
	                       value = complete turns] */
};

struct esigns {
	uint32_t score[ESIGNS_MAX];
	uint32_t signs;   /* Elder Signs counted this turn: the points at stake */
	uint32_t round;   /* the round being played, from 1 (tie-break rounds count) */
	uint32_t turn;    /* complete turns played */
	uint32_t points;  /* points banked by everyone */
	uint16_t in;      /* bit s: seat s still plays (cleared when devoured or out of a tie) */
	uint8_t n;        /* players */
	uint8_t first;    /* the seat that opens every round */
	uint8_t phase;    /* enum esigns_phase */
	uint8_t seat;     /* whose turn it is */
	uint8_t started;  /* the turn's TURN event has been sent */
	uint8_t tiebreak; /* tie-break rounds begun (P2), 0 in normal play */
	int8_t winner;    /* seat, or -1 while playing */
	uint8_t bag[ESIGNS_KINDS];
	uint8_t hand[ESIGNS_KINDS];  /* Clue dice kept and dice drawn */
	uint8_t roll[ESIGNS_KINDS];  /* of the hand, the dice still to roll in this throw */
	uint8_t stash[ESIGNS_KINDS]; /* Elder Sign dice (P1 may have put some back) */
	uint8_t pile[ESIGNS_KINDS];  /* Tentacle dice */
};

/* Starts a game: setup->players seats (2..12), per_player 0, first the seat
 * that opens every round (0..players-1). Returns GAME_OK or GAME_EARG (g
 * undefined then). */
int esigns_init(struct esigns *g, const struct game_setup *setup);

/* Describes the next node (see the top of this file); `kind` is the phase.
 * DECIDE lists ESIGNS_CONTINUE and ESIGNS_RETREAT. */
void esigns_step(const struct esigns *g, struct game_step *out);

/* The awaited draw takes a die of `kind`. GAME_EPHASE when no draw is
 * awaited, GAME_EILLEGAL when the bag has no die of that kind. */
int esigns_draw(struct esigns *g, enum esigns_kind kind, struct game_events *ev);

/* The awaited roll (of the die esigns_rolling names) shows `face`. */
int esigns_roll(struct esigns *g, enum esigns_face face, struct game_events *ev);

/* The seat whose turn it is continues or retreats (enum esigns_choice). */
int esigns_decide(struct esigns *g, int choice, struct game_events *ev);

/* The generic apply: the draw value in [0, dice in the bag), the die in
 * [0, 6), or the choice. GAME_EILLEGAL out of range, GAME_EOVER after the
 * end; the state is unchanged on error. */
int esigns_apply(struct esigns *g, int value, struct game_events *ev);

/* Over, winner, player (= the winning seat), complete turns and the points
 * banked in the game. */
void esigns_result(const struct esigns *g, struct game_result *out);

/* ---- queries, for the table ---- */

/* Dice of `kind` in the bag, in the hand (Clues kept and dice drawn), in the
 * stash and in the Tentacle pile. */
int esigns_bag(const struct esigns *g, enum esigns_kind kind);
int esigns_hand(const struct esigns *g, enum esigns_kind kind);
int esigns_stash_dice(const struct esigns *g, enum esigns_kind kind);
int esigns_pile(const struct esigns *g, enum esigns_kind kind);

/* Points at stake this turn (Elder Signs rolled, P1 included). */
int esigns_stash(const struct esigns *g);

/* Tentacles rolled this turn. */
int esigns_tentacles(const struct esigns *g);

/* A seat's banked score (0 for a seat not at the table). */
long esigns_score(const struct esigns *g, int seat);

/* Whose turn it is; -1 once the game is over. */
int esigns_turn_seat(const struct esigns *g);

/* The round being played, from 1; tie-break rounds count on. */
int esigns_round(const struct esigns *g);

/* The tie-break round being played (P2), from 1; 0 in normal play. */
int esigns_tiebreak(const struct esigns *g);

/* Whether `seat` still plays: not devoured and, in a tie-break, one of the
 * tied. After the end, only the winner. */
int esigns_in(const struct esigns *g, int seat);

/* The kind of the die the awaited roll is for; -1 when no roll is awaited. */
int esigns_rolling(const struct esigns *g);

/* The odds of continuing now, at a DECIDE node: exact over the draws from
 * the bag (after P1 when it applies) and the rolls of the next throw. */
struct esigns_odds {
	double down;  /* the next throw downs the seat */
	double signs; /* Elder Signs it adds, counted as 0 when it downs */
};
void esigns_odds(const struct esigns *g, struct esigns_odds *out);

/* The face a die of `kind` shows for value in [0, 6) (see the top). */
enum esigns_face esigns_die_face(enum esigns_kind kind, int value);

/* The lowest die value of `kind` showing `face`. */
int esigns_face_die(enum esigns_kind kind, enum esigns_face face);

/* The lowest draw value that draws `kind` from g's bag; -1 when it has none. */
int esigns_kind_draw(const struct esigns *g, enum esigns_kind kind);

/* Stable lowercase names ("library", "museum", "tomb"; "elder-sign",
 * "clue", "tentacle"); the parsers return -1 for an unknown name. */
const char *esigns_kind_name(enum esigns_kind kind);
int esigns_kind_parse(const char *name);
const char *esigns_face_name(enum esigns_face face);
int esigns_face_parse(const char *name);

/* Policies (shared/rules/press-your-luck.md):
 *   "greedy-2": continue while the turn's Tentacles are at most 1.
 *   "expect":   weighs esigns_odds against the points at stake and the
 *               scores at the table (see esigns.c).
 * esigns_ops also lists "ev" and "best", built on the solved turn
 * (esturn.h). */
int esigns_policy_greedy2(const void *state, const struct game_step *step, struct rng *rng);
int esigns_policy_expect(const void *state, const struct game_step *step, struct rng *rng);

extern const struct game_ops esigns_ops;

#endif
