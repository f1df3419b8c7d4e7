/* ctgame: the rules engine of the CTHULHU!!! tile-laying board game
 * (shared/rules/cthulhu-boardgame.md; rulings B1-B53 and C13, C19 cited
 * below and in src/core/board/, whose files ctgame_int.h lists).
 *
 * The game is a struct game_ops state machine (game.h). Every die, every
 * card, relic and tile drawn is a chance node whose value comes from the
 * game's own stream:
 *   CTGAME_ROLL_DEALER  value in [0, players): the dealer (B11);
 *   CTGAME_ROLL_DIE     value in [0, 6): a d6 showing value + 1;
 *   CTGAME_ROLL_TILE    value in [0, tiles in the map deck): the value-th
 *                        of them in ascending tile id;
 *   CTGAME_ROLL_CARD    likewise over the event deck's card ids;
 *   CTGAME_ROLL_RELIC   likewise over the relic deck's relic ids.
 * Drawing a uniform card from what a pile holds is the same as drawing the
 * top of a shuffled pile, so "shuffle" never needs a value of its own.
 *
 * Every decision the rules give a player is a choice node (enum
 * ctgame_ask) whose legal options ctgame_options lists; the value applied
 * is the index of the option (0..count-1, so count may exceed
 * GAME_MAX_OPTIONS, see game.h). A decision with one legal option is taken
 * without asking, so a choice node offers two or more, except under C14's
 * secret hands (CTGAME_REV_SECRET, below): there a decision that may offer
 * a card from a hand is asked whenever public facts alone leave open that
 * the hand holds one it could play, so it may offer one option (pass, or
 * lose a heart) while the hand holds no such card; whether it is asked then
 * depends on nothing secret.
 *
 * The state is a plain value: memcpy copies it, and ctgame_hash digests
 * its bytes (the state has no padding that is left unset). */
#ifndef RLYEH_CTGAME_H
#define RLYEH_CTGAME_H

#include <stddef.h>
#include <stdint.h>

#include "rlyeh/ctmap.h"
#include "rlyeh/game.h"

#define CTGAME_MIN       2
#define CTGAME_MAX       6
#define CTGAME_CARDS     50
#define CTGAME_KINDS     32 /* event card kinds E01..E32 */
#define CTGAME_RELICS    80
#define CTGAME_TYPES     5 /* relic types */
#define CTGAME_CULTISTS  75
#define CTGAME_BYAKHEE   25
#define CTGAME_HEARTS    85
#define CTGAME_BULLETS   135
#define CTGAME_HAND      3
#define CTGAME_OPTIONS   CTMAP_OPTIONS_MAX      /* options of one decision, at most */
#define CTGAME_CHURCH_SQ (CTMAP_CHURCH * 9 + 4) /* the Church interior 1,1 */

/* Rules revisions (game_setup.revision): 0, the first, takes every
 * decision with one option without asking, so that being asked can tell
 * the table what a hand holds; from CTGAME_REV_SECRET on, hands are kept
 * secret as C14 says (the header's first comment; ctgame_could_play).
 * A game keeps the revision it began with, so that its log replays. */
#define CTGAME_REV_SECRET 1

/* Event card kinds, E01..E32 as 0..31 (§12.2). */
enum ctgame_kind {
	CK_KNIFE,      /* E01 Trench Knife */
	CK_HARPOON,    /* E02 Whaler's Harpoon */
	CK_CHOPPER,    /* E03 Gangland Chopper */
	CK_COACHGUN,   /* E04 Coach Gun */
	CK_SWORDCANE,  /* E05 Silvered Sword-Cane */
	CK_LAUDANUM,   /* E06 Laudanum Flask */
	CK_SATCHEL,    /* E07 Surgeon's Satchel */
	CK_CANDLE,     /* E08 Blessed Candle */
	CK_ELDERSIGN,  /* E09 Elder Sign */
	CK_ROADSTER,   /* E10 Borrowed Roadster */
	CK_FOG,        /* E11 Harbour Fog */
	CK_BELLS,      /* E12 Sanctuary Bells */
	CK_SECONDWIND, /* E13 Second Wind */
	CK_NERVES,     /* E14 Steady Nerves */
	CK_DEADEYE,    /* E15 Deadeye */
	CK_STASH,      /* E16 Cartridge Stash */
	CK_HYMN,       /* E17 Hymn at Dawn */
	CK_SURVEYOR,   /* E18 Surveyor's Notes */
	CK_BANISH,     /* E19 Banishing Rite */
	CK_EYE,        /* E20 Antiquarian's Eye */
	CK_SCATTER,    /* E21 Scatter the Faithful */
	CK_WHISPERS,   /* E22 Whispers in the Walls (automatic) */
	CK_KNOCK,      /* E23 Knock at the Door (automatic) */
	CK_WINGS,      /* E24 Wings Overhead (automatic) */
	CK_ANKLE,      /* E25 Twisted Ankle (automatic) */
	CK_JAMMED,     /* E26 Jammed Action (automatic) */
	CK_POWDER,     /* E27 Wet Powder (automatic) */
	CK_OMEN,       /* E28 Bad Omen (automatic) */
	CK_BRAWL,      /* E29 Back-Alley Brawl */
	CK_YELLOW,     /* E30 Call of the Yellow Sign */
	CK_FINGERS,    /* E31 Light Fingers */
	CK_SENT,       /* E32 Sent Your Way */
};

enum ctgame_category {
	CC_WEAPON,
	CC_ITEM,
	CC_MOVEMENT,
	CC_INSTANT,
	CC_AUTOMATIC,
	CC_PVP,
};

struct ctgame_card_info {
	const char *id;   /* "E01".."E32" */
	const char *name; /* English name */
	uint8_t count;    /* copies in the deck */
	uint8_t category; /* enum ctgame_category */
	uint8_t severity; /* Automatic cards: §12.2 severity; 0 otherwise */
	uint8_t uses;     /* limited weapons: uses; 0 = unlimited or not a weapon */
};

/* The card table; `kind` in [0, CTGAME_KINDS). */
const struct ctgame_card_info *ctgame_card(int kind);

/* The kind of card id `card` in [0, CTGAME_CARDS) (ids run kind by kind). */
int ctgame_card_kind(int card);

/* Relic types, in the order of BP9's ties. Relic id r has type r / 16. */
enum ctgame_type {
	CT_AMULET,
	CT_DAGGER,
	CT_IDOL,
	CT_MEAD,
	CT_TOME,
};
const char *ctgame_type_name(int type);      /* "Amulet" .. "Tome" */
const char *ctgame_relic_variant(int relic); /* cosmetic name of relic id (§13) */

/* Chance nodes (game_step.kind while node == GAME_NODE_CHANCE). */
enum ctgame_roll {
	CTGAME_ROLL_DEALER,
	CTGAME_ROLL_DIE,
	CTGAME_ROLL_TILE,
	CTGAME_ROLL_CARD,
	CTGAME_ROLL_RELIC,
};

/* What a CTGAME_ROLL_DIE is for. */
enum ctgame_die {
	CD_MOVE,     /* step 6 */
	CD_COMBAT,   /* a combat roll */
	CD_SANITY,   /* a sanity check */
	CD_CULTISTS, /* step 8: how many cultists move */
	CD_BRAWL_A,  /* E29: the player who played it */
	CD_BRAWL_B,  /* E29: the other player */
};

/* Choice nodes (game_step.kind while node == GAME_NODE_CHOICE). */
enum ctgame_ask {
	CA_AUTOMATIC = 16, /* step 1: which Automatic card (options: CO_CARD) */
	CA_PLAY,           /* a play point, CS, a due sanity check or the reaction
	                      window (ctgame_moment): CO_PASS, CO_CARD, CO_ITEM, CO_SANCTIFY */
	CA_TILE,           /* where the drawn tile goes: CO_TILE */
	CA_REMOVE,         /* B9: the activated site to take off: CO_TILE (arg = tile) */
	CA_TOKENS,         /* a named building's tokens: CO_MASK (bit i: bullet on interior i) */
	CA_SITE_BYAKHEE,   /* a new site's byakhee: CO_SQUARE */
	CA_WEAPON,         /* the weapon for the next combat roll: CO_PASS, CO_WEAPON */
	CA_FAILED,         /* a failed combat roll: CO_SPEND, CO_LOSE, CO_CARD (E13, E15) */
	CA_MOVE,           /* step 7: CO_DIR, CO_STOP */
	CA_FIGURE,         /* the cultist or byakhee to move next: CO_SQUARE, CO_STOP (cards) */
	CA_DEST,           /* where the chosen figure goes: CO_SQUARE */
	CA_RESEED,         /* step 10: CO_FIGURE for the site being re-seeded */
	CA_RELIC_LOSS,     /* defeat: the type of the next relic to discard: CO_TYPE */
	CA_DISCARD,        /* step 11: CO_STOP (end the turn), CO_CARD */
	CA_TARGET,         /* a card's player: CO_SEAT */
	CA_SQUARE,         /* a card's square (E23): CO_SQUARE */
	CA_RELIC_TAKE,     /* E31: the type to take: CO_TYPE */
};

/* The moment of a CA_PLAY node (§6.3). */
enum ctgame_moment {
	CM_PP1 = 1,
	CM_PP2,
	CM_PP3,
	CM_PP4,     /* movement paused after a fight */
	CM_PP4_END, /* movement ended */
	CM_PP5,
	CM_CS,    /* start of a fight, before the sanity check */
	CM_CHECK, /* a sanity check is due outside a fight's start (B21) */
	CM_RW,    /* another player's reaction window */
};

enum ctgame_opt {
	CO_PASS,     /* do nothing here */
	CO_STOP,     /* end this part (movement, figure choices, the turn) */
	CO_CARD,     /* arg = card kind: play it (or discard it at CA_DISCARD) */
	CO_ITEM,     /* arg = card kind of an item in play: use it */
	CO_SANCTIFY, /* sanctify the site the pawn stands on */
	CO_TILE,     /* arg = option number (CA_TILE) or tile (CA_REMOVE) */
	CO_MASK,     /* arg = token mask */
	CO_SQUARE,   /* arg = square */
	CO_WEAPON,   /* arg = card id of the weapon in play */
	CO_SPEND,    /* arg = bullets */
	CO_LOSE,     /* lose a heart and roll again */
	CO_DIR,      /* arg = enum ctmap_side */
	CO_FIGURE,   /* arg = kind * CTMAP_SQUARES + square, kind 0 cultist, 1 byakhee */
	CO_TYPE,     /* arg = relic type */
	CO_SEAT,     /* arg = seat */
};

struct ctgame_option {
	uint8_t what; /* enum ctgame_opt */
	int16_t arg;
};

/* Square contents (cthulhu.square[]). */
enum {
	CS_CULTIST = 1,
	CS_BYAKHEE = 2,
	CS_HEART = 4,
	CS_BULLET = 8,
};

/* Where a card or a relic is: deck, discard, or with a seat. */
enum {
	CW_DECK = 0,
	CW_DISCARD = 1,
	CW_HAND = 0x10, /* + seat: in the hand (cards) or held (relics) */
	CW_PLAY = 0x20, /* + seat: a card in play */
};

/* How the game ended. */
enum ctgame_end {
	CE_PLAYING,
	CE_SAVED,    /* three sites sanctified */
	CE_SUMMONED, /* three sites activated */
	CE_NOBODY,   /* B37: every player eliminated */
	CE_CAPPED,   /* C19: the round cap was reached */
};

/* Event kinds (struct game_event: kind, seat, target, value). */
enum ctgame_event_kind {
	CV_DEALER,         /* [seat = dealer, target = first player] */
	CV_TURN,           /* [seat, target = round, value = turn number] */
	CV_DEAL,           /* a card to a hand [seat, target = card id] */
	CV_ROLL,           /* [seat, target = enum ctgame_die, value = 1..6] */
	CV_TILE_DRAW,      /* [seat, target = tile] */
	CV_TILE_SKIP,      /* drawn tile to the map discard [seat, target = tile] */
	CV_TILE_RESHUFFLE, /* map discard became the deck [value = tiles] */
	CV_PLACE,          /* [seat, target = tile, value = tx & 0xff | ty << 8 (int8 each) ] */
	CV_ROTATE,         /* follows CV_PLACE [target = tile, value = rot | mode << 4] */
	CV_ARRIVE,         /* a figure or token on a square [target = square, value = CS_* bit] */
	CV_CARD,           /* a card played [seat, target = card id, value = moment] */
	CV_ITEM,           /* an item used [seat, target = card id] */
	CV_DISCARD,        /* a card discarded from hand or play [seat, target = card id] */
	CV_MOVE,           /* a pawn moved a step [seat, target = square, value = points left] */
	CV_RELOCATE,       /* a pawn put somewhere, not movement [seat, target = square] */
	CV_FIGHT,          /* [seat, target = square, value = CS_CULTIST / CS_BYAKHEE] */
	CV_WEAPON,         /* [seat, target = card id] */
	CV_TOTAL,          /* combat total [seat, target = kill number, value = total] */
	CV_KILL,           /* [seat, target = square, value = CS_ kind] */
	CV_SPEND,          /* bullets spent [seat, value] */
	CV_HEARTS,         /* hearts now [seat, value] */
	CV_BULLETS,        /* bullets now [seat, value] */
	CV_SANITY,         /* current sanity now [seat, target = starting sanity, value] */
	CV_INSANE,         /* [seat, target = starting sanity now] */
	CV_DEFEAT,         /* [seat, target = square] */
	CV_ELIMINATED,     /* [seat] */
	CV_RELIC,          /* relic gained [seat, target = relic id] */
	CV_RELIC_LOST,     /* [seat, target = relic id] */
	CV_TOKEN,      /* token collected [seat, target = square, value = CS_HEART / CS_BULLET] */
	CV_FIGURE,     /* figure moved [target = from square, value = to square; seat = CS_ kind] */
	CV_SANCTIFY,   /* [seat, target = tile] */
	CV_ACTIVATE,   /* [seat = defeated seat, target = tile] */
	CV_REMOVE,     /* B9: activated site off the map [target = tile] */
	CV_TOTAL_MOVE, /* movement total [seat, value] */
	CV_END,        /* [seat = -1, target = enum ctgame_end, value = winners bitmask] */
};

struct ctgame_player {
	uint8_t hearts, bullets, sanity, start; /* start = starting sanity S */
	uint8_t out;                            /* eliminated */
	uint8_t played;                         /* a counted card played this round */
	uint8_t sites;                /* bit i: site CTMAP_SITE_FIRST + i sanctified by it */
	uint8_t pad;                  /* always 0: sq aligned without hidden bytes */
	int16_t sq;                   /* pawn square, -1 when off the board */
	uint8_t relics[CTGAME_TYPES]; /* count per type (mirrors relic_at) */
	uint8_t hand;                 /* cards in hand (mirrors card_at) */
};

/* Continuations (internal to the engine, in the state so that it stays a value). */
#define CTGAME_STACK 12

struct ctgame {
	struct ctmap map;
	uint8_t square[CTMAP_SQUARES]; /* CS_* bits */
	uint8_t card_at[CTGAME_CARDS];
	uint8_t uses[CTGAME_CARDS]; /* uses left of a limited weapon in play */
	uint8_t relic_at[CTGAME_RELICS];
	struct ctgame_player p[CTGAME_MAX];
	uint32_t tile_discard;             /* bit t: tile t lies on the map discard pile */
	uint8_t moved[CTMAP_BITMAP_BYTES]; /* figures that moved this step */
	uint8_t n;                         /* players */
	uint8_t first;                     /* first player (the seat after the dealer) */
	uint8_t seat;                      /* whose turn it is */
	uint8_t phase;                     /* internal */
	uint8_t end;                       /* enum ctgame_end */
	uint8_t winners;                   /* bitmask, after the end */
	uint8_t sanctified, activated;     /* sites so far */
	uint16_t cultists, byakhee, hearts, bullets; /* supplies */
	uint16_t round, cap;                         /* round from 1; C19 cap (0 = none) */
	uint32_t turns;                              /* complete turns */
	/* the turn in progress */
	uint8_t flags;       /* internal turn flags */
	uint8_t die_for;     /* enum ctgame_die of an awaited die */
	uint8_t total, left; /* movement total and points left */
	uint8_t rw;          /* reaction window: seats still to ask (bitmask) */
	uint8_t ask_seat;    /* who decides a choice node */
	uint8_t count;       /* a counter of the current part (cards to draw, figures to move…) */
	uint8_t card;        /* the card kind being resolved */
	uint8_t target;      /* its target seat */
	int16_t figure;      /* the figure chosen to move, or a square in use */
	int16_t aux;         /* the part's extra value (tile drawn, site being re-seeded…) */
	uint8_t tile_mode;   /* enum ctmap_mode of the map-tile step */
	uint8_t fmode;       /* what the figure choices are for (internal) */
	uint32_t tile_set;   /* the tiles that may be placed in this map-tile step */
	/* the fight in progress */
	uint8_t enemy;    /* CS_CULTIST or CS_BYAKHEE, 0 when none */
	uint8_t kill;     /* kill number */
	uint8_t ctotal;   /* combat total */
	uint8_t weapon;   /* card id + 1 of the weapon declared, 0 = none */
	uint8_t fflags;   /* internal fight flags */
	uint8_t defeated; /* seat whose defeat is resolving */
	uint8_t loss;     /* relics still to discard in that defeat */
	uint8_t sp;
	uint8_t stack[CTGAME_STACK];
	uint8_t brawl[2];
	uint8_t moment;                 /* enum ctgame_moment of a CA_PLAY node */
	uint8_t act_order[CTMAP_SITES]; /* activation number from 1, 0 = not activated */
	uint8_t rcount;                 /* relics still to draw */
	uint8_t secret;                 /* 1: C14's secret hands (CTGAME_REV_SECRET) */
	uint8_t pad1;
};

/* Starts a game: setup->players seats (2..6), setup->rounds the round cap
 * (C19; 0 = none), setup->revision the rules revision (CTGAME_REV_SECRET
 * or later: secret hands; 0: the first rules). Returns GAME_OK or GAME_EARG (g undefined then). */
int ctgame_init(struct ctgame *g, const struct game_setup *setup);

/* Describes the next node. A choice node's count is the number of options
 * (values 0..count-1), options[] holding the first GAME_MAX_OPTIONS. */
void ctgame_step(const struct ctgame *g, struct game_step *out);

/* The options of the pending choice, in order; returns how many (0 at a
 * chance node or the end). `out` has room for CTGAME_OPTIONS. */
int ctgame_options(const struct ctgame *g, struct ctgame_option *out);

/* At a CA_AUTOMATIC, CA_PLAY or CA_FAILED node: 1 when public facts
 * alone (hand size, the card-played flag, B30 insanity, the moment) leave
 * open that the decider holds a card it could play now, so the decision's
 * cards are to be offered privately whatever the hand holds; 0 when they
 * rule it out, and at any other node. At CA_AUTOMATIC (asked under secret
 * hands whenever an Automatic card is held with another card) it is 1. */
int ctgame_could_play(const struct ctgame *g);

/* The moment of a CA_PLAY node (enum ctgame_moment), 0 otherwise. */
int ctgame_moment(const struct ctgame *g);

/* Applies a value: a chance value, or the index of an option. GAME_EOVER,
 * GAME_EILLEGAL out of range; the state is unchanged on error. Automatic
 * resolution runs on until the next node. */
int ctgame_apply(struct ctgame *g, int value, struct game_events *ev);

/* C17: `seat` leaves the game (or is removed by the host) at any point
 * after the deal: it is eliminated as in §9.4. Its own turn ends (B17); a
 * reaction-window decision of its passes; a relic choice of its defeat is
 * dropped; a card aimed at it ends (a brawl is not rolled, the figure
 * choices and the relic taking stop). GAME_EOVER after the end, GAME_EPHASE
 * before the deal is done, GAME_EARG for a seat not in play; nothing
 * changes then. */
int ctgame_leave(struct ctgame *g, int seat, struct game_events *ev);

/* Starts `seat`'s turn from the position `g` holds now, with the turn's
 * automatic part run up to the first node (§6.1). For tests and tools that
 * build a position by editing a dealt game's fields. GAME_EOVER after the
 * end, GAME_EARG for a seat not in play. */
int ctgame_begin_turn(struct ctgame *g, int seat, struct game_events *ev);

/* Over (any ending, the cap included), winner (the lowest winning seat, or
 * -1 when nobody won, the cap was reached, or the win is shared), player =
 * winner, complete turns, and points = the winners' VP. */
void ctgame_result(const struct ctgame *g, struct game_result *out);

/* §14 victory points of a seat (0 for an eliminated seat). */
int ctgame_vp(const struct ctgame *g, int seat);

/* Effects lasting through the turn in progress (ctgame_effects), each
 * from a card played face up. */
enum ctgame_effect {
	CX_ELDER = 1,   /* E09 Elder Sign: B21 for the rest of step 7 */
	CX_JAMMED = 2,  /* E26 Jammed Action: no weapons this turn */
	CX_NO_MOVE = 4, /* E12 Sanctuary Bells, E25 Twisted Ankle: steps 6-7 skipped */
	CX_NERVES = 8,  /* E14 Steady Nerves: the sanity check due is skipped */
};

/* The effects (enum ctgame_effect, a bit mask) in force now; 0 after the
 * end. */
int ctgame_effects(const struct ctgame *g);

/* Checks the invariants of §16 (1-12); returns 0, or the number of the
 * first one broken with a description in why[n]. */
int ctgame_check(const struct ctgame *g, char *why, size_t n);

/* A 64-bit digest of every byte of the state, 8 at a time (§16.13): equal
 * states give equal digests, and any change of a byte changes it with
 * overwhelming odds. */
uint64_t ctgame_hash(const struct ctgame *g);

/* Cards of `kind` in a seat's hand. */
int ctgame_in_hand(const struct ctgame *g, int seat, int kind);

/* The card id of a seat's card of `kind` in play, or -1. */
int ctgame_in_play(const struct ctgame *g, int seat, int kind);

/* Movement by destination (C9, C10), for front ends at a CA_MOVE node:
 * ctgame_reachable writes to out (capacity CTMAP_SQUARES), in reading order,
 * every square within the points left and returns how many;
 * ctgame_route writes C10's directions from the pawn to `to` within the
 * points left (enemy squares entered before `to` counted by the current
 * figures) and returns the path length, or -1 when `to` is out of reach.
 * The front end then applies the CO_DIR options one by one, stopping when
 * a fight or anything else interrupts the walk. */
int ctgame_reachable(const struct ctgame *g, int16_t *out);
int ctgame_route(const struct ctgame *g, int to, uint8_t *dirs);

/* The option index a timed-out decision takes (C15): the baseline policy's
 * choice for tiles, tokens, the site's byakhee, the Automatic card, the
 * weapon, enemy moves and re-seeding (the hunt policy), a B9 removal and the
 * relics lost on defeat; a failed roll by BP3 without playing a card;
 * sanctifying when offered, otherwise no card or item at a play point, at
 * CS or in a reaction window; stopping the movement; the first option in
 * reading order for card squares, figures, targets and relic types; at step
 * 11 BP10's forced discard, otherwise ending the turn. */
int ctgame_default(const struct ctgame *g);

/* The sizes of the piles (C3): map deck and map discard, event deck and
 * discard, relic deck and discard. */
struct ctgame_piles {
	int tiles, tile_discard, cards, card_discard, relics, relic_discard;
};
void ctgame_piles(const struct ctgame *g, struct ctgame_piles *out);

/* At a CA_TILE node: the tile being placed and its options (as
 * ctmap_options; option i is the choice value i), written to out (capacity
 * CTMAP_OPTIONS_MAX); returns how many, or -1 at any other node. */
int ctgame_tile_options(const struct ctgame *g, int *tile, struct ctmap_option *out);

/* At a CA_FIGURE or CA_DEST node: the kind of figure being moved
 * (CS_CULTIST or CS_BYAKHEE); 0 at any other node. */
int ctgame_figure_kind(const struct ctgame *g);

/* 1 at a decision of the enemy phase (C12): a CA_FIGURE or CA_DEST node
 * of steps 8 and 9, or a CA_RESEED node; 0 elsewhere (figure choices of
 * cards included). */
int ctgame_enemy_move(const struct ctgame *g);

/* Policies: "baseline" (§17, the hunt policy C13 for enemies) and "random"
 * (uniform over the options, for tests). */
int ctgame_policy_baseline(const void *state, const struct game_step *step, struct rng *rng);
int ctgame_policy_random(const void *state, const struct game_step *step, struct rng *rng);

/* The hunt policy's pick (C13) at a CA_FIGURE, CA_DEST or CA_RESEED node
 * of the enemy phase: the option index. */
int ctgame_hunt(const struct ctgame *g);

extern const struct game_ops ctgame_ops;

#endif
