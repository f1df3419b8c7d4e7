/* ctturn: the turn (§7, §9): the cards played (§12.1), the answers to
 * choices, the dice, and the automatic part of the turn as one function per
 * phase (the fights are in ctcombat.c). */
#include "ctgame_int.h"

#include <assert.h>
#include <string.h>

/* ---- the turn ---- */

void ct_play_point(struct ctgame *g, int moment, int then)
{
	g->moment = (uint8_t)moment;
	g->ask_seat = g->seat;
	call(g, PH_PLAY, then);
}

void ct_roll(struct ctgame *g, int purpose)
{
	g->die_for = (uint8_t)purpose;
	g->phase = PH_DIE;
}

int ct_pop(struct ctgame *g)
{
	assert(g->sp > 0);
	return g->stack[--g->sp];
}

/* Plays a card from a hand (§12.1) and carries out its effect. The phase is
 * left at PH_PLAY (the same play point asks again), or set to the card's
 * follow-up with PH_PLAY pushed. */
void ct_play_card(struct ctgame *g, int seat, int kind, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	int c = ct_hand_card(g, seat, kind), cat = ct_cards[kind].category;
	assert(c >= 0);
	p->hand--;
	if (cat == CC_WEAPON || cat == CC_ITEM) {
		g->card_at[c] = (uint8_t)(CW_PLAY + seat);
		g->uses[c] = ct_cards[kind].uses;
	} else {
		g->card_at[c] = CW_DISCARD;
	}
	if (cat != CC_AUTOMATIC)
		p->played = 1;
	emit(ev, CV_CARD, seat, c, g->phase == PH_PLAY ? g->moment : 0);
	switch (kind) {
	case CK_ELDERSIGN:
		g->flags |= F_ELDER;
		break;
	case CK_ROADSTER:
		g->total = (uint8_t)(g->total + 3);
		g->left = (uint8_t)(g->left + 3);
		emit(ev, CV_TOTAL_MOVE, g->seat, 0, g->total);
		break;
	case CK_FOG:
		g->total = (uint8_t)(g->total / 2);
		g->left = g->total;
		emit(ev, CV_TOTAL_MOVE, g->seat, 0, g->total);
		break;
	case CK_BELLS:
		p->sq = CTGAME_CHURCH_SQ;
		emit(ev, CV_RELOCATE, seat, p->sq, 0);
		g->flags |= F_SKIP67;
		break;
	case CK_NERVES:
		g->fflags |= FF_NERVES;
		break;
	case CK_STASH:
		ct_gain_bullets(g, seat, ct_inside(g, seat, 20) ? 6 : 3,
		                ev); /* T21 Police Station */
		break;
	case CK_HYMN:
		for (int s = 0; s < g->n; s++)
			ct_gain_sanity(g, s, 1, ev);
		break;
	case CK_SURVEYOR:
		call(g, PH_TILE_BEGIN, PH_PLAY);
		break;
	case CK_EYE:
		g->rcount = (uint8_t)(ct_inside_named(g, seat) ? 2 : 1);
		call(g, PH_DRAW_RELIC, PH_PLAY);
		break;
	case CK_BANISH:
		ct_pop(g); /* the fight's check is not reached */
		ct_kill_enemy(g, 1, ev);
		break;
	case CK_SCATTER:
		g->fmode = FM_SCATTER;
		g->count = 3;
		memset(g->moved, 0, sizeof g->moved);
		call(g, PH_FIGURE, PH_PLAY);
		break;
	case CK_BRAWL:
	case CK_YELLOW:
	case CK_FINGERS:
	case CK_SENT:
		g->card = (uint8_t)kind;
		call(g, PH_TARGET, PH_PLAY);
		break;
	default:
		break;
	}
}

/* Step 1's Automatic card (§12.1, B47). */
void ct_automatic(struct ctgame *g, int kind, struct game_events *ev)
{
	int seat = g->seat;
	struct ctgame_player *p = &g->p[seat];
	ct_play_card(g, seat, kind, ev);
	g->phase = PH_STEP1_DONE;
	switch (kind) {
	case CK_WHISPERS:
		ct_lose_sanity(g, seat, ev);
		break;
	case CK_KNOCK:
		g->fmode = FM_KNOCK;
		g->count = 2;
		call(g, PH_SQUARE, PH_STEP1_DONE);
		break;
	case CK_WINGS:
		ct_card_figure(g, p->sq, CS_BYAKHEE, ev);
		break;
	case CK_ANKLE:
		g->flags |= F_SKIP67;
		break;
	case CK_JAMMED:
		g->flags |= F_JAMMED;
		break;
	case CK_POWDER:
		if (p->bullets / 2)
			ct_pay_bullets(g, seat, p->bullets / 2, ev);
		break;
	case CK_OMEN:
		ct_lose_heart(g, seat, PH_STEP1_DONE, ev);
		break;
	default:
		break;
	}
}

/* Handles a choice; `o` is one of ctgame_options. */
void ct_choose(struct ctgame *g, const struct ctgame_option *o, struct game_events *ev)
{
	int seat = g->seat;
	struct ctgame_player *p = &g->p[seat];
	switch (g->phase) {
	case PH_AUTOMATIC:
		ct_automatic(g, o->arg, ev);
		return;
	case PH_PLAY: {
		int rw = g->moment == CM_RW;
		switch (o->what) {
		case CO_PASS:
			ret(g);
			return;
		case CO_SANCTIFY:
			ct_sanctify(g, ev);
			return;
		case CO_ITEM: {
			int c = ctgame_in_play(g, g->ask_seat, o->arg);
			emit(ev, CV_ITEM, g->ask_seat, c, g->moment);
			ct_discard_card(g, g->ask_seat, c, ev);
			if (o->arg == CK_LAUDANUM) {
				struct ctgame_player *q = &g->p[g->ask_seat];
				ct_gain_sanity(g, g->ask_seat,
				               ct_inside(g, g->ask_seat, 14) ? q->start : 2,
				               ev); /* T15 */
			} else if (o->arg == CK_SATCHEL) {
				ct_gain_hearts(g, g->ask_seat,
				               ct_inside(g, g->ask_seat, 16) ? 5 : 2, ev); /* T17 */
			} else {
				g->fflags |= FF_CANDLE;
				g->kill = 4;
			}
			break;
		}
		case CO_CARD:
			ct_play_card(g, g->ask_seat, o->arg, ev);
			break;
		}
		if (rw && !halted(g) && g->phase == PH_PLAY)
			ret(g);
		return;
	}
	case PH_TILE: {
		struct ctmap_option opt[CTMAP_OPTIONS_MAX];
		ctmap_options(&g->map, g->aux, (enum ctmap_mode)g->tile_mode, opt);
		ctmap_place(&g->map, g->aux, opt[o->arg], (enum ctmap_mode)g->tile_mode);
		emit(ev, CV_PLACE, seat, g->aux,
		     (uint8_t)opt[o->arg].tx | (int)(uint8_t)opt[o->arg].ty << 8);
		emit(ev, CV_ROTATE, seat, g->aux, opt[o->arg].rot | g->tile_mode << 4);
		g->phase = PH_TILE_PLACED;
		return;
	}
	case PH_REMOVE:
		ctmap_remove(&g->map, o->arg, CTMAP_REMOVED);
		emit(ev, CV_REMOVE, seat, o->arg, 0);
		g->phase = PH_TILE;
		return;
	case PH_TOKENS: {
		int16_t sq[9];
		int k = ct_interiors(g, g->aux, sq);
		for (int i = 0; i < k; i++) {
			int bullet = o->arg >> i & 1;
			if (bullet ? !g->bullets : !g->hearts)
				bullet = !bullet; /* B38 */
			if (bullet ? !g->bullets : !g->hearts)
				continue;
			if (bullet)
				g->bullets--;
			else
				g->hearts--;
			g->square[sq[i]] |= (uint8_t)(bullet ? CS_BULLET : CS_HEART);
			emit(ev, CV_ARRIVE, -1, sq[i], bullet ? CS_BULLET : CS_HEART);
		}
		ret(g);
		return;
	}
	case PH_SITE_BYAKHEE:
		ct_place_figure(g, o->arg, CS_BYAKHEE, ev); /* B42: the byakhee first */
		for (int l = 0; l < 9; l++)
			if (g->aux * 9 + l != o->arg)
				ct_place_figure(g, g->aux * 9 + l, CS_CULTIST, ev);
		ret(g);
		return;
	case PH_WEAPON:
		ct_fight_weapon(g, o, ev);
		return;
	case PH_FAILED:
		ct_fight_failed(g, o, ev);
		return;
	case PH_MOVE:
		if (o->what == CO_STOP) {
			g->phase = PH_MOVE_END;
			return;
		}
		p->sq = (int16_t)ctmap_step(&g->map, p->sq, o->arg);
		g->left--;
		emit(ev, CV_MOVE, seat, p->sq, g->left);
		g->phase = PH_MOVE_ENTER;
		return;
	case PH_FIGURE:
		if (o->what == CO_STOP) {
			ret(g);
			return;
		}
		if (g->fmode == FM_SENT) {
			int to = g->p[g->target].sq;
			int deny = CS_BYAKHEE | ((g->square[o->arg] & CS_CULTIST) ? CS_CULTIST : 0);
			if (to != o->arg && (g->square[to] & deny))
				to = ct_nearest_free(g, to, deny); /* B43 */
			if (to >= 0 && to != o->arg)
				ct_move_figure(g, o->arg, to, CS_BYAKHEE, ev);
			ret(g);
			return;
		}
		g->figure = o->arg;
		g->phase = PH_DEST;
		return;
	case PH_DEST:
		ct_move_figure(g, g->figure, o->arg,
		               g->fmode == FM_BYAKHEE ? CS_BYAKHEE : CS_CULTIST, ev);
		ctmap_bit_set(g->moved, o->arg);
		if (g->count)
			g->count--;
		g->phase = PH_FIGURE;
		return;
	case PH_RESEED: {
		int kind = o->arg >= CTMAP_SQUARES ? CS_BYAKHEE : CS_CULTIST;
		ct_place_figure(g, o->arg % CTMAP_SQUARES, kind, ev);
		g->phase = PH_STEP10_NEXT;
		return;
	}
	case PH_RELIC_LOSS:
		ct_lose_relic(g, g->defeated, o->arg, ev);
		if (--g->loss == 0)
			ret(g);
		return;
	case PH_DISCARD: {
		int over = p->hand > CTGAME_HAND;
		if (o->what == CO_STOP) {
			g->phase = PH_END_TURN;
			return;
		}
		ct_discard_card(g, seat, ct_hand_card(g, seat, o->arg), ev);
		if (!over || p->hand <= CTGAME_HAND)
			g->phase = PH_END_TURN; /* B16 */
		return;
	}
	case PH_TARGET:
		g->target = (uint8_t)o->arg;
		switch (g->card) {
		case CK_BRAWL:
			ct_roll(g, CD_BRAWL_A);
			return;
		case CK_FINGERS:
			g->phase = PH_RELIC_TAKE;
			return;
		default:
			g->fmode = g->card == CK_YELLOW ? FM_YELLOW : FM_SENT;
			g->count = g->card == CK_YELLOW ? 2 : 1;
			memset(g->moved, 0, sizeof g->moved);
			g->phase = PH_FIGURE;
			return;
		}
	case PH_SQUARE:
		ct_place_figure(g, o->arg, CS_CULTIST, ev);
		g->count--;
		return;
	case PH_RELIC_TAKE: {
		int other = g->target;
		for (int r = o->arg * 16; r < o->arg * 16 + 16; r++)
			if (g->relic_at[r] == CW_HAND + other) {
				g->relic_at[r] = CW_DISCARD;
				g->p[other].relics[o->arg]--;
				emit(ev, CV_RELIC_LOST, other, r, 0);
				ct_give_relic(g, seat, r, ev);
				break;
			}
		ret(g);
		return;
	}
	default:
		assert(0);
	}
}

/* A die showed `v` (1..6). */
static void on_die(struct ctgame *g, int v, struct game_events *ev)
{
	int seat = g->seat;
	struct ctgame_player *p = &g->p[seat];
	switch (g->die_for) {
	case CD_MOVE:
		g->total = (uint8_t)(v + p->hearts); /* B19 */
		g->left = g->total;
		emit(ev, CV_TOTAL_MOVE, seat, v, g->total);
		g->rw = 0;
		for (int s = 0; s < g->n; s++)
			if (s != seat && !g->p[s].out)
				g->rw |= (uint8_t)(1 << s);
		g->phase = PH_RW;
		return;
	case CD_SANITY: {
		int lose = ctgame_in_play(g, seat, CK_SWORDCANE) >= 0 ? v == 1 : v <= 2;
		if (lose)
			ct_lose_sanity(g, seat, ev);
		if (!halted(g))
			ret(g);
		return;
	}
	case CD_COMBAT:
		ct_fight_roll(g, v, ev);
		return;
	case CD_CULTISTS:
		g->count = (uint8_t)v;
		g->fmode = FM_CULTISTS;
		memset(g->moved, 0, sizeof g->moved);
		call(g, PH_FIGURE, PH_STEP9);
		return;
	case CD_BRAWL_A:
		g->brawl[0] = (uint8_t)v;
		ct_roll(g, CD_BRAWL_B);
		return;
	case CD_BRAWL_B: {
		g->brawl[1] = (uint8_t)v;
		if (g->brawl[0] == g->brawl[1]) {
			ct_roll(g, CD_BRAWL_A);
			return;
		}
		int loser = g->brawl[0] < g->brawl[1] ? seat : g->target;
		int then = ct_pop(g);
		if (!ct_lose_heart(g, loser, then, ev))
			g->phase = (uint8_t)then;
		return;
	}
	default:
		assert(0);
	}
}

void ct_chance(struct ctgame *g, int value, struct game_events *ev)
{
	int seat = g->seat;
	switch (g->phase) {
	case PH_DEALER:
		g->first = (uint8_t)((value + 1) % g->n); /* B11 */
		g->seat = g->first;
		emit(ev, CV_DEALER, value, g->first, 0);
		g->count = (uint8_t)(CTGAME_HAND * g->n);
		g->phase = PH_DEAL;
		return;
	case PH_DEAL: {
		int c = ct_nth_in(g->card_at, CTGAME_CARDS, CW_DECK, value);
		int to = (g->first + (CTGAME_HAND * g->n - g->count)) % g->n;
		g->card_at[c] = (uint8_t)(CW_HAND + to);
		g->p[to].hand++;
		emit(ev, CV_DEAL, to, c, 0);
		if (--g->count == 0) {
			g->round = 1;
			g->phase = PH_TURN;
		}
		return;
	}
	case PH_DRAW_CARD: {
		int c = ct_nth_in(g->card_at, CTGAME_CARDS, CW_DECK, value);
		g->card_at[c] = (uint8_t)(CW_HAND + seat);
		g->p[seat].hand++;
		emit(ev, CV_DEAL, seat, c, 0);
		g->count--;
		return;
	}
	case PH_DRAW_RELIC:
		ct_give_relic(g, seat, ct_nth_in(g->relic_at, CTGAME_RELICS, CW_DECK, value), ev);
		g->rcount--;
		return;
	case PH_DRAW_TILE: {
		int t = -1;
		for (int i = 0, k = value; i < CTMAP_TILES; i++)
			if (g->map.where[i] == CTMAP_UNPLACED && !(g->tile_discard >> i & 1) &&
			    k-- == 0) {
				t = i;
				break;
			}
		emit(ev, CV_TILE_DRAW, seat, t, 0);
		if (g->tile_set >> t & 1) {
			g->aux = (int16_t)t;
			g->phase = PH_TILE;
		} else {
			g->tile_discard |= 1u << t; /* B7 */
			emit(ev, CV_TILE_SKIP, seat, t, 0);
		}
		return;
	}
	case PH_DIE:
		emit(ev, CV_ROLL, g->die_for == CD_BRAWL_B ? g->target : seat, g->die_for,
		     value + 1);
		on_die(g, value + 1, ev);
		return;
	default:
		assert(0);
	}
}

static int next_seat(const struct ctgame *g, int s)
{
	do
		s = (s + 1) % g->n;
	while (g->p[s].out);
	return s;
}

/* The automatic phases, one function each (and the input phases that may
 * move on without asking). Each leaves g->phase at the next one. */

/* The values of chance come from outside (ctgame_apply); a game over waits
 * for nothing. */
static int ph_wait(struct ctgame *g, struct game_events *ev)
{
	(void)g;
	(void)ev;
	return RUN_WAIT;
}

static int ph_draw_card(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	if (g->count && !ct_pile_count(g->card_at, CTGAME_CARDS, CW_DECK))
		for (int c = 0; c < CTGAME_CARDS; c++)
			if (g->card_at[c] == CW_DISCARD)
				g->card_at[c] = CW_DECK;
	if (g->count && ct_pile_count(g->card_at, CTGAME_CARDS, CW_DECK))
		return RUN_WAIT;
	ret(g); /* B50 */
	return RUN_NEXT;
}

static int ph_draw_relic(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	if (g->rcount && !ct_pile_count(g->relic_at, CTGAME_RELICS, CW_DECK))
		for (int r = 0; r < CTGAME_RELICS; r++)
			if (g->relic_at[r] == CW_DISCARD)
				g->relic_at[r] = CW_DECK; /* B52 */
	if (g->rcount && ct_pile_count(g->relic_at, CTGAME_RELICS, CW_DECK))
		return RUN_WAIT;
	g->rcount = 0;
	ret(g);
	return RUN_NEXT;
}

static int ph_draw_tile(struct ctgame *g, struct game_events *ev)
{
	int seat = g->seat;
	if (!ct_deck_tiles(g)) {
		emit(ev, CV_TILE_RESHUFFLE, seat, 0, __builtin_popcount(g->tile_discard));
		g->tile_discard = 0;
	}
	return RUN_WAIT;
}

static int ph_tile(struct ctgame *g, struct game_events *ev)
{
	struct ctgame_option opt[CTGAME_OPTIONS];
	(void)ev;
	if (ctgame_options(g, opt) == 0) {
		g->phase = PH_REMOVE; /* B9 */
		return RUN_NEXT;
	}
	return RUN_ASK;
}

static int ph_figure(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	if (g->count == 0) {
		ret(g);
		return RUN_NEXT;
	}
	return RUN_ASK;
}

static int ph_square(struct ctgame *g, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[g->seat];
	struct ctgame_option opt[CTGAME_OPTIONS];
	if (g->count == 0 || !g->cultists) {
		ret(g);
		return RUN_NEXT;
	}
	if (ctgame_options(g, opt) == 0) {
		ct_card_figure(g, p->sq, CS_CULTIST, ev); /* B43 */
		g->count--;
		return RUN_NEXT;
	}
	return RUN_ASK;
}

static int ph_move(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	if ((g->flags & (F_MOVE_OVER | F_SKIP67 | F_DEFEATED | F_INSANE)) || g->left == 0) {
		g->phase = PH_MOVE_END;
		return RUN_NEXT;
	}
	return RUN_ASK;
}

static int ph_turn(struct ctgame *g, struct game_events *ev)
{
	int seat = g->seat;
	struct ctgame_player *p = &g->p[seat];
	p->played = 0;
	if (p->sanity == 0) {
		p->sanity = p->start;
		emit(ev, CV_SANITY, seat, p->start, p->sanity);
	}
	g->flags = 0;
	g->fflags = 0;
	g->total = g->left = 0;
	g->enemy = 0;
	g->sp = 0;
	emit(ev, CV_TURN, seat, g->round, (int)(g->turns + 1 > 32767 ? 32767 : g->turns + 1));
	g->phase = PH_AUTOMATIC;
	for (int k = CK_WHISPERS; k <= CK_OMEN; k++)
		if (ctgame_in_hand(g, seat, k))
			return RUN_ASK;
	g->phase = PH_STEP1_DONE;
	return RUN_NEXT;
}

static int ph_step1_done(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	ct_play_point(g, CM_PP1, PH_STEP2);
	return RUN_NEXT;
}

static int ph_step2(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	if (g->flags & F_INSANE)
		g->phase = PH_STEP3;
	else
		call(g, PH_TILE_BEGIN, PH_STEP3);
	return RUN_NEXT;
}

static int ph_tile_begin(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	int mode = CTMAP_STRICT;
	g->tile_set = ct_tile_candidates(g, &mode);
	g->tile_mode = (uint8_t)mode;
	if (!g->tile_set)
		ret(g);
	else
		g->phase = PH_DRAW_TILE;
	return RUN_NEXT;
}

static int ph_tile_placed(struct ctgame *g, struct game_events *ev)
{
	int t = g->aux;
	switch (ctmap_tile(t)->cls) {
	case CTMAP_CLASS_ROAD:
		ct_place_figure(g, t * 9 + 4, CS_BYAKHEE, ev);
		ret(g);
		break;
	case CTMAP_CLASS_BUILDING: {
		int16_t sq[9];
		int k = ct_interiors(g, t, sq);
		for (int i = 0; i < k; i++)
			ct_place_figure(g, sq[i], CS_CULTIST, ev);
		g->phase = PH_TOKENS;
		break;
	}
	default:
		g->phase = PH_SITE_BYAKHEE;
		break;
	}
	return RUN_NEXT;
}

static int ph_step3(struct ctgame *g, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[g->seat];
	if (!(g->flags & F_DEFEATED) && (g->square[p->sq] & CS_BYAKHEE))
		ct_start_fight(g, CS_BYAKHEE, PH_STEP4, ev);
	else
		g->phase = PH_STEP4;
	return RUN_NEXT;
}

static int ph_step4(struct ctgame *g, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[g->seat];
	if (!(g->flags & F_DEFEATED) && (g->square[p->sq] & CS_CULTIST))
		ct_start_fight(g, CS_CULTIST, PH_STEP4_DONE, ev);
	else
		g->phase = PH_STEP4_DONE;
	return RUN_NEXT;
}

static int ph_step4_done(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	ct_play_point(g, CM_PP2, PH_STEP5);
	return RUN_NEXT;
}

static int ph_step5(struct ctgame *g, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[g->seat];
	(void)ev;
	g->phase = PH_STEP6;
	if (!(g->flags & F_INSANE) && p->hand < CTGAME_HAND) {
		g->count = (uint8_t)(CTGAME_HAND - p->hand); /* B15 */
		call(g, PH_DRAW_CARD, PH_STEP6);
	}
	return RUN_NEXT;
}

static int ph_step6(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	if (g->flags & (F_SKIP67 | F_INSANE | F_DEFEATED))
		g->phase = PH_STEP8;
	else
		ct_roll(g, CD_MOVE);
	return RUN_NEXT;
}

static int ph_rw(struct ctgame *g, struct game_events *ev)
{
	int seat = g->seat;
	(void)ev;
	int s = seat;
	g->phase = PH_RW_DONE;
	for (int i = 1; i < g->n; i++) {
		s = (seat + i) % g->n;
		if (g->rw >> s & 1) {
			g->rw &= (uint8_t) ~(1 << s);
			if (g->p[s].out)
				continue;
			g->moment = CM_RW;
			g->ask_seat = (uint8_t)s;
			call(g, PH_PLAY, PH_RW);
			break;
		}
	}
	return RUN_NEXT;
}

static int ph_rw_done(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	g->flags |= F_MOVING;
	ct_play_point(g, CM_PP3, PH_MOVE);
	return RUN_NEXT;
}

static int ph_move_enter(struct ctgame *g, struct game_events *ev)
{
	int seat = g->seat;
	struct ctgame_player *p = &g->p[seat];
	uint8_t here = g->square[p->sq];
	g->fflags = 0;
	if (g->flags & F_ELDER) { /* B21 */
		if (here & CS_BYAKHEE) {
			g->moment = CM_CHECK;
			g->ask_seat = (uint8_t)seat;
			call(g, PH_PLAY, PH_ELDER_CHECK);
		} else {
			g->phase = PH_ELDER_DONE;
		}
		return RUN_NEXT;
	}
	if (here & CS_BYAKHEE) {
		ct_start_fight(g, CS_BYAKHEE, PH_MOVE_ENTER2, ev);
	} else if (here & CS_CULTIST) {
		g->phase = PH_MOVE_ENTER2;
	} else {
		ct_collect(g, seat, ev);
		g->phase = PH_MOVE;
	}
	return RUN_NEXT;
}

static int ph_elder_check(struct ctgame *g, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[g->seat];
	(void)ev;
	g->phase = PH_ELDER_DONE;
	if (!(g->fflags & FF_NERVES) && p->sanity > 0) {
		push(g, PH_ELDER_DONE);
		ct_roll(g, CD_SANITY);
	}
	return RUN_NEXT;
}

static int ph_elder_done(struct ctgame *g, struct game_events *ev)
{
	int seat = g->seat;
	ct_collect(g, seat, ev);
	g->phase = PH_MOVE;
	return RUN_NEXT;
}

static int ph_move_enter2(struct ctgame *g, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[g->seat];
	/* B35, B30: no further fight after a defeat or insanity */
	if (!(g->flags & (F_DEFEATED | F_INSANE)) && (g->square[p->sq] & CS_CULTIST)) {
		uint8_t keep = g->fflags & FF_FOUGHT;
		ct_start_fight(g, CS_CULTIST, PH_MOVE_FOUGHT, ev);
		g->fflags |= keep;
	} else {
		g->phase = PH_MOVE_FOUGHT;
	}
	return RUN_NEXT;
}

static int ph_move_fought(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	if ((g->fflags & FF_FOUGHT) && !(g->flags & (F_MOVE_OVER | F_DEFEATED | F_INSANE)) &&
	    g->left > 0)
		ct_play_point(g, CM_PP4, PH_MOVE);
	else
		g->phase = PH_MOVE;
	return RUN_NEXT;
}

static int ph_move_end(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	g->flags |= F_MOVE_OVER;
	g->left = 0;
	if (g->flags & F_SKIP67)
		g->phase = PH_STEP8;
	else
		ct_play_point(g, CM_PP4_END, PH_STEP8);
	return RUN_NEXT;
}

static int ph_step8(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	g->flags &= (uint8_t) ~(F_MOVING | F_ELDER);
	ct_roll(g, CD_CULTISTS);
	return RUN_NEXT;
}

static int ph_step9(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	g->fmode = FM_BYAKHEE;
	g->count = 255;
	memset(g->moved, 0, sizeof g->moved);
	call(g, PH_FIGURE, PH_STEP10);
	return RUN_NEXT;
}

static int ph_step10(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	g->count = 0;
	for (int i = 0; i < CTMAP_SITES; i++)
		if (unresolved(g, CTMAP_SITE_FIRST + i))
			g->count |= (uint8_t)(1 << i);
	g->phase = PH_STEP10_NEXT;
	return RUN_NEXT;
}

static int ph_step10_next(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	int best = -1;
	for (int i = 0; i < CTMAP_SITES; i++) {
		int t = CTMAP_SITE_FIRST + i;
		if (!(g->count >> i & 1))
			continue;
		if (best < 0 || g->map.ty[t] < g->map.ty[best] ||
		    (g->map.ty[t] == g->map.ty[best] && g->map.tx[t] < g->map.tx[best]))
			best = t;
	}
	if (best < 0) {
		ct_play_point(g, CM_PP5, PH_STEP11);
		return RUN_NEXT;
	}
	g->count &= (uint8_t) ~(1 << (best - CTMAP_SITE_FIRST));
	if (!ct_enemies_on_tile(g, best) && (g->cultists || g->byakhee)) {
		g->aux = (int16_t)best; /* B44 */
		g->phase = PH_RESEED;
		return RUN_ASK;
	}
	return RUN_NEXT;
}

static int ph_step11(struct ctgame *g, struct game_events *ev)
{
	(void)ev;
	g->phase = PH_DISCARD;
	return RUN_NEXT;
}

static int ph_end_turn(struct ctgame *g, struct game_events *ev)
{
	int seat = g->seat;
	int s = next_seat(g, seat);
	int at = (seat - g->first + g->n) % g->n, to = (s - g->first + g->n) % g->n;
	g->flags = 0;
	g->sp = 0;
	g->turns++;
	if (to <= at) {
		if (g->cap && g->round >= g->cap) {
			ct_end_game(g, CE_CAPPED, ev); /* C19 */
			return RUN_NEXT;
		}
		g->round++;
	}
	g->seat = (uint8_t)s;
	g->phase = PH_TURN;
	return RUN_NEXT;
}

static int ph_defeat_end(struct ctgame *g, struct game_events *ev)
{
	ct_defeat_end(g, ev);
	if (!halted(g))
		ret(g);
	return RUN_NEXT;
}

static int ph_summoned(struct ctgame *g, struct game_events *ev)
{
	ct_check_end(g, ev);
	return RUN_NEXT;
}

/* The phase functions by phase; an input phase without one is asked at once. */
static int (*const phases[])(struct ctgame *, struct game_events *) = {
	[PH_DEALER] = ph_wait,
	[PH_DEAL] = ph_wait,
	[PH_DIE] = ph_wait,
	[PH_DRAW_CARD] = ph_draw_card,
	[PH_DRAW_RELIC] = ph_draw_relic,
	[PH_DRAW_TILE] = ph_draw_tile,
	[PH_TILE] = ph_tile,
	[PH_FIGURE] = ph_figure,
	[PH_SQUARE] = ph_square,
	[PH_MOVE] = ph_move,
	[PH_OVER] = ph_wait,
	[PH_TURN] = ph_turn,
	[PH_STEP1_DONE] = ph_step1_done,
	[PH_STEP2] = ph_step2,
	[PH_TILE_BEGIN] = ph_tile_begin,
	[PH_TILE_PLACED] = ph_tile_placed,
	[PH_STEP3] = ph_step3,
	[PH_STEP4] = ph_step4,
	[PH_STEP4_DONE] = ph_step4_done,
	[PH_STEP5] = ph_step5,
	[PH_STEP6] = ph_step6,
	[PH_RW] = ph_rw,
	[PH_RW_DONE] = ph_rw_done,
	[PH_MOVE_ENTER] = ph_move_enter,
	[PH_ELDER_CHECK] = ph_elder_check,
	[PH_ELDER_DONE] = ph_elder_done,
	[PH_MOVE_ENTER2] = ph_move_enter2,
	[PH_MOVE_FOUGHT] = ph_move_fought,
	[PH_MOVE_END] = ph_move_end,
	[PH_STEP8] = ph_step8,
	[PH_STEP9] = ph_step9,
	[PH_STEP10] = ph_step10,
	[PH_STEP10_NEXT] = ph_step10_next,
	[PH_STEP11] = ph_step11,
	[PH_END_TURN] = ph_end_turn,
	[PH_FIGHT_CHECK] = ct_ph_fight_check,
	[PH_FIGHT_WON] = ct_ph_fight_won,
	[PH_DEFEAT_END] = ph_defeat_end,
	[PH_SUMMONED] = ph_summoned,
};

/* Runs the automatic part of the game until it waits for input. */
void ct_run(struct ctgame *g, struct game_events *ev)
{
	struct ctgame_option opt[CTGAME_OPTIONS];
	for (;;) {
		if (g->end != CE_PLAYING) {
			g->phase = PH_OVER;
			return;
		}
		if (g->flags & F_ABORT) {
			g->sp = 0;
			g->flags = 0;
			g->phase = PH_END_TURN;
		}
		int (*fn)(struct ctgame *, struct game_events *) =
		    g->phase < sizeof phases / sizeof phases[0] ? phases[g->phase] : NULL;
		switch (fn ? fn(g, ev) : RUN_ASK) {
		case RUN_WAIT:
			return;
		case RUN_NEXT:
			continue;
		default:
			break;
		}
		if (g->phase > PH_LAST_INPUT)
			continue;
		int n = ctgame_options(g, opt);
		if (n >= 2 || (n == 1 && ct_ask_anyway(g)))
			return;
		if (n == 0) {
			/* a figure or reseed list that ran dry */
			if (g->phase == PH_FIGURE) {
				ret(g);
				continue;
			}
			assert(0);
			return;
		}
		ct_choose(g, &opt[0], ev);
	}
}
