/* ctgame_int.h: what the files of the board game's engine share and nothing
 * outside them sees (the public interface is rlyeh/ctgame.h). The files:
 *   ctgame.c   tables, shared small queries, the game_ops boundary, front-end queries
 *   ctscore.c  resources, insanity, defeat, sanctification, scoring and the end
 *   ctfigure.c enemy figures, the map-tile step, movement by destination
 *   ctoption.c who decides, which cards would act, the options of each phase
 *   ctturn.c   the turn: cards played, choices, dice, the phase functions
 *   ctcombat.c the fights: start, sanity check, weapon, roll, failure, death
 *   ctcheck.c  the invariants (ctgame_check)
 *   ctpolicy.c the computer players and the timeout answers
 * Names: ctgame_* is public (rlyeh/ctgame.h); ct_* is shared between these
 * files only, declared below under the file that defines it; PH_, F_, FF_ and
 * FM_ are the phases and flags kept in the state; the static inline helpers
 * here keep their short names. Everything else is static to its file. */
#ifndef RLYEH_CTGAME_INT_H
#define RLYEH_CTGAME_INT_H

#include "rlyeh/ctgame.h"

#include <assert.h>

/* ---- phases ---- */

/* The internal program counter. Phases up to PH_LAST_INPUT wait for input;
 * the others run on their own. */
enum phase {
	PH_OVER,
	/* chance */
	PH_DEALER,
	PH_DEAL,
	PH_DRAW_CARD,
	PH_DRAW_RELIC,
	PH_DRAW_TILE,
	PH_DIE,
	/* choices */
	PH_AUTOMATIC,
	PH_PLAY,
	PH_TILE,
	PH_REMOVE,
	PH_TOKENS,
	PH_SITE_BYAKHEE,
	PH_WEAPON,
	PH_FAILED,
	PH_MOVE,
	PH_FIGURE,
	PH_DEST,
	PH_RESEED,
	PH_RELIC_LOSS,
	PH_DISCARD,
	PH_TARGET,
	PH_SQUARE,
	PH_RELIC_TAKE,
	PH_LAST_INPUT = PH_RELIC_TAKE,
	/* automatic */
	PH_TURN,
	PH_STEP1_DONE,
	PH_STEP2,
	PH_STEP3,
	PH_STEP4,
	PH_STEP4_DONE,
	PH_STEP5,
	PH_STEP6,
	PH_RW,
	PH_RW_DONE,
	PH_MOVE_ENTER,
	PH_MOVE_ENTER2,
	PH_MOVE_FOUGHT,
	PH_MOVE_END,
	PH_STEP8,
	PH_STEP9,
	PH_STEP10,
	PH_STEP10_NEXT,
	PH_STEP11,
	PH_END_TURN,
	PH_TILE_BEGIN,
	PH_TILE_PLACED,
	PH_FIGHT_CHECK,
	PH_FIGHT_WON,
	PH_DEFEAT_END,
	PH_ELDER_CHECK,
	PH_ELDER_DONE,
	PH_SUMMONED,
};

/* Turn flags (g->flags). */
enum {
	F_INSANE = 1,     /* B30 */
	F_DEFEATED = 2,   /* B35 */
	F_SKIP67 = 4,     /* E12, E25 */
	F_JAMMED = 8,     /* E26 */
	F_ELDER = 16,     /* E09, B21 */
	F_MOVE_OVER = 32, /* movement ended (B22) */
	F_ABORT = 64,     /* the active player was eliminated: the turn ends (B17) */
	F_MOVING = 128,   /* step 7 is in progress */
};

/* Fight flags (g->fflags). */
enum {
	FF_NERVES = 1,  /* E14: skip the sanity check that is due */
	FF_CANDLE = 2,  /* E08 used in this fight */
	FF_CHECKED = 4, /* the fight's sanity check is done (B25) */
	FF_FOUGHT = 8,  /* a fight happened on the square just entered */
	FF_CS = 16,     /* the CS moment of this fight is past */
};

/* What figure choices are for (g->fmode). */
enum {
	FM_CULTISTS, /* step 8 */
	FM_BYAKHEE,  /* step 9 */
	FM_SCATTER,  /* E21 */
	FM_YELLOW,   /* E30 */
	FM_SENT,     /* E32 */
	FM_KNOCK,    /* E23 (squares) */
};

static inline void push(struct ctgame *g, int phase)
{
	assert(g->sp < CTGAME_STACK);
	g->stack[g->sp++] = (uint8_t)phase;
}

static inline void call(struct ctgame *g, int phase, int ret)
{
	push(g, ret);
	g->phase = (uint8_t)phase;
}

static inline void ret(struct ctgame *g)
{
	assert(g->sp > 0);
	g->phase = g->stack[--g->sp];
}

static inline int halted(const struct ctgame *g)
{
	return g->end != CE_PLAYING || (g->flags & F_ABORT);
}

/* ---- small queries and events ---- */

static inline void emit(struct game_events *ev, int kind, int seat, int target, int value)
{
	game_emit(ev, kind, seat, target, value);
}

static inline int tile_of(int sq)
{
	return sq / 9;
}

static inline int is_site(int tile)
{
	return tile >= CTMAP_SITE_FIRST && tile < CTMAP_SITE_FIRST + CTMAP_SITES;
}

/* A site on the map, face up. */
static inline int unresolved(const struct ctgame *g, int tile)
{
	return is_site(tile) && g->map.where[tile] == CTMAP_PLACED;
}

static inline int interior(const struct ctgame *g, int sq)
{
	int k = ctmap_square_kind(&g->map, sq);
	return k == CTMAP_INTERIOR || k == CTMAP_ENTRANCE;
}

/* What a phase function asks of ct_run: run the next phase, ask for the
 * pending decision (or take its only option), or wait for input. */
enum { RUN_NEXT, RUN_ASK, RUN_WAIT };

/* ctgame.c */
void ct_tables(void);
int ct_inside(const struct ctgame *g, int seat, int tile);
int ct_inside_named(const struct ctgame *g, int seat);
int ct_enemies_on_tile(const struct ctgame *g, int tile);
int ct_hand_card(const struct ctgame *g, int seat, int kind);
int ct_relic_total(const struct ctgame *g, int seat);
int ct_pile_count(const uint8_t *at, int n, int where);
int ct_nth_in(const uint8_t *at, int n, int where, int index);
int ct_deck_tiles(const struct ctgame *g);
extern const struct ctgame_card_info ct_cards[CTGAME_KINDS];
extern int8_t ct_first_card[CTGAME_KINDS + 1];
extern int8_t ct_kind_of[CTGAME_CARDS];

/* ctscore.c */
void ct_gain_hearts(struct ctgame *g, int seat, int n, struct game_events *ev);
void ct_gain_bullets(struct ctgame *g, int seat, int n, struct game_events *ev);
void ct_pay_bullets(struct ctgame *g, int seat, int n, struct game_events *ev);
void ct_gain_sanity(struct ctgame *g, int seat, int n, struct game_events *ev);
void ct_discard_card(struct ctgame *g, int seat, int card, struct game_events *ev);
void ct_give_relic(struct ctgame *g, int seat, int relic, struct game_events *ev);
void ct_lose_relic(struct ctgame *g, int seat, int type, struct game_events *ev);
int ct_place_figure(struct ctgame *g, int sq, int kind, struct game_events *ev);
int ct_nearest_free(const struct ctgame *g, int sq, int deny);
void ct_card_figure(struct ctgame *g, int sq, int kind, struct game_events *ev);
void ct_collect(struct ctgame *g, int seat, struct game_events *ev);
int ct_site_count(uint8_t sites);
int ct_winner_set(const struct ctgame *g);
void ct_end_game(struct ctgame *g, int how, struct game_events *ev);
void ct_check_end(struct ctgame *g, struct game_events *ev);
void ct_eliminate(struct ctgame *g, int seat, struct game_events *ev);
void ct_insanity(struct ctgame *g, int seat, struct game_events *ev);
void ct_lose_sanity(struct ctgame *g, int seat, struct game_events *ev);
void ct_sanctify(struct ctgame *g, struct game_events *ev);
int ct_can_sanctify(const struct ctgame *g);
void ct_defeat(struct ctgame *g, int seat, int then, struct game_events *ev);
void ct_defeat_end(struct ctgame *g, struct game_events *ev);
int ct_lose_heart(struct ctgame *g, int seat, int then, struct game_events *ev);

/* ctfigure.c */
void ct_target_distances(const struct ctgame *g, uint8_t targets, int confine, int16_t *dist);
int ct_dests(const struct ctgame *g, int from, int16_t *out);
void ct_sort_reading(const struct ctgame *g, int16_t *q, int n);
int ct_figures_in(const struct ctgame *g, int fmode, int target, const uint8_t *moved,
                  int16_t *out);
int ct_figures(const struct ctgame *g, int16_t *out);
void ct_move_figure(struct ctgame *g, int from, int to, int kind, struct game_events *ev);
uint32_t ct_tile_candidates(const struct ctgame *g, int *mode);
int ct_interiors(const struct ctgame *g, int tile, int16_t *out);

/* ctoption.c */
int ct_chooser(const struct ctgame *g);
int ct_ask_anyway(const struct ctgame *g);
int ct_bonus(int kind, int enemy);

/* ctturn.c */
void ct_play_point(struct ctgame *g, int moment, int then);
void ct_play_card(struct ctgame *g, int seat, int kind, struct game_events *ev);
void ct_roll(struct ctgame *g, int purpose);
int ct_pop(struct ctgame *g);
void ct_automatic(struct ctgame *g, int kind, struct game_events *ev);
void ct_choose(struct ctgame *g, const struct ctgame_option *o, struct game_events *ev);
void ct_chance(struct ctgame *g, int value, struct game_events *ev);
void ct_run(struct ctgame *g, struct game_events *ev);

/* ctcombat.c */
void ct_start_fight(struct ctgame *g, int kind, int then, struct game_events *ev);
void ct_kill_enemy(struct ctgame *g, int relics, struct game_events *ev);
void ct_fight_weapon(struct ctgame *g, const struct ctgame_option *o, struct game_events *ev);
void ct_fight_failed(struct ctgame *g, const struct ctgame_option *o, struct game_events *ev);
void ct_fight_roll(struct ctgame *g, int v, struct game_events *ev);
int ct_ph_fight_check(struct ctgame *g, struct game_events *ev);
int ct_ph_fight_won(struct ctgame *g, struct game_events *ev);

/* ctpolicy.c */
extern const struct game_policy ct_policies[];

#endif
