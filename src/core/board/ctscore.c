/* ctscore: events and resources (hearts, bullets, sanity, relics, the figures a
 * card puts down, the tokens collected) and their consequences: insanity,
 * defeat, elimination, sanctification, the victory points and the end of
 * the game (§9, §11, §14). */
#include "ctgame_int.h"

#include <assert.h>
#include <string.h>

/* ---- events and resources ---- */

/* B27: gains come from the supply, as far as it goes; hearts stop at 5. */
void ct_gain_hearts(struct ctgame *g, int seat, int n, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	if (n > 5 - p->hearts)
		n = 5 - p->hearts;
	if (n > g->hearts)
		n = g->hearts;
	if (n <= 0)
		return;
	p->hearts = (uint8_t)(p->hearts + n);
	g->hearts = (uint16_t)(g->hearts - n);
	emit(ev, CV_HEARTS, seat, 0, p->hearts);
}

void ct_gain_bullets(struct ctgame *g, int seat, int n, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	if (n > g->bullets)
		n = g->bullets;
	if (n <= 0)
		return;
	p->bullets = (uint8_t)(p->bullets + n);
	g->bullets = (uint16_t)(g->bullets - n);
	emit(ev, CV_BULLETS, seat, 0, p->bullets);
}

void ct_pay_bullets(struct ctgame *g, int seat, int n, struct game_events *ev)
{
	g->p[seat].bullets = (uint8_t)(g->p[seat].bullets - n);
	g->bullets = (uint16_t)(g->bullets + n);
	emit(ev, CV_BULLETS, seat, 0, g->p[seat].bullets);
}

/* B28, B29: sanity gains stop at S and do nothing at 0. */
void ct_gain_sanity(struct ctgame *g, int seat, int n, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	if (p->out || p->sanity == 0 || p->sanity >= p->start)
		return;
	p->sanity = (uint8_t)(p->sanity + n > p->start ? p->start : p->sanity + n);
	emit(ev, CV_SANITY, seat, p->start, p->sanity);
}

void ct_discard_card(struct ctgame *g, int seat, int card, struct game_events *ev)
{
	if (g->card_at[card] == CW_HAND + seat)
		g->p[seat].hand--;
	g->card_at[card] = CW_DISCARD;
	g->uses[card] = 0;
	emit(ev, CV_DISCARD, seat, card, 0);
}

void ct_give_relic(struct ctgame *g, int seat, int relic, struct game_events *ev)
{
	g->relic_at[relic] = (uint8_t)(CW_HAND + seat);
	g->p[seat].relics[relic / 16]++;
	emit(ev, CV_RELIC, seat, relic, 0);
}

/* Moves one relic of `type` (the lowest id) from a seat to the discard. */
void ct_lose_relic(struct ctgame *g, int seat, int type, struct game_events *ev)
{
	for (int r = type * 16; r < type * 16 + 16; r++)
		if (g->relic_at[r] == CW_HAND + seat) {
			g->relic_at[r] = CW_DISCARD;
			g->p[seat].relics[type]--;
			emit(ev, CV_RELIC_LOST, seat, r, 0);
			return;
		}
	assert(0);
}

/* Tokens of the squares of a tile leaving the board go back to the supply;
 * so do its figures. */
static void clear_tile(struct ctgame *g, int tile)
{
	for (int l = 0; l < 9; l++) {
		uint8_t *s = &g->square[tile * 9 + l];
		g->cultists = (uint16_t)(g->cultists + !!(*s & CS_CULTIST));
		g->byakhee = (uint16_t)(g->byakhee + !!(*s & CS_BYAKHEE));
		g->hearts = (uint16_t)(g->hearts + !!(*s & CS_HEART));
		g->bullets = (uint16_t)(g->bullets + !!(*s & CS_BULLET));
		*s = 0;
	}
}

/* Puts a figure (CS_CULTIST or CS_BYAKHEE) from the supply on a square; B42:
 * nothing when the supply is empty. Returns 1 when placed. */
int ct_place_figure(struct ctgame *g, int sq, int kind, struct game_events *ev)
{
	uint16_t *supply = kind == CS_CULTIST ? &g->cultists : &g->byakhee;
	if (*supply == 0 || (g->square[sq] & kind))
		return 0;
	(*supply)--;
	g->square[sq] |= (uint8_t)kind;
	emit(ev, CV_ARRIVE, -1, sq, kind);
	return 1;
}

/* B43: the nearest square to `sq` (G distance, ties in reading order)
 * holding none of `deny`, or -1. */
int ct_nearest_free(const struct ctgame *g, int sq, int deny)
{
	int16_t dist[CTMAP_SQUARES];
	int best = -1;
	ctmap_distances(&g->map, sq, NULL, -1, dist);
	for (int q = 0; q < CTMAP_SQUARES; q++) {
		if (dist[q] < 0 || (g->square[q] & deny))
			continue;
		if (best < 0 || dist[q] < dist[best] ||
		    (dist[q] == dist[best] && ctmap_cmp_reading(&g->map, q, best) < 0))
			best = q;
	}
	return best;
}

/* A card puts a figure on `sq`, or by B43 on the nearest square that can
 * take it. */
void ct_card_figure(struct ctgame *g, int sq, int kind, struct game_events *ev)
{
	if ((kind == CS_CULTIST ? g->cultists : g->byakhee) == 0)
		return;
	if (g->square[sq] & kind)
		sq = ct_nearest_free(g, sq, kind);
	if (sq >= 0)
		ct_place_figure(g, sq, kind, ev);
}

/* B20: collect the token of the pawn's square if it holds no enemy. */
void ct_collect(struct ctgame *g, int seat, struct game_events *ev)
{
	int sq = g->p[seat].sq;
	uint8_t *s = &g->square[sq];
	if (*s & (CS_CULTIST | CS_BYAKHEE))
		return;
	if ((*s & CS_HEART) && g->p[seat].hearts < 5) {
		*s &= (uint8_t)~CS_HEART;
		g->p[seat].hearts++;
		emit(ev, CV_TOKEN, seat, sq, CS_HEART);
		emit(ev, CV_HEARTS, seat, 0, g->p[seat].hearts);
	} else if (*s & CS_BULLET) {
		*s &= (uint8_t)~CS_BULLET;
		g->p[seat].bullets++;
		emit(ev, CV_TOKEN, seat, sq, CS_BULLET);
		emit(ev, CV_BULLETS, seat, 0, g->p[seat].bullets);
	}
}

/* ---- scoring and the end (§14) ---- */

int ctgame_vp(const struct ctgame *g, int seat)
{
	const struct ctgame_player *p = &g->p[seat];
	int vp = 0;
	if (seat < 0 || seat >= g->n || p->out)
		return 0;
	for (int t = 0; t < CTGAME_TYPES; t++)
		if (p->relics[t])
			vp += 2 * p->relics[t] - 1;
	for (int i = 0; i < CTMAP_SITES; i++)
		vp += 12 * (p->sites >> i & 1);
	return vp;
}

int ct_site_count(uint8_t sites)
{
	int n = 0;
	for (; sites; sites &= (uint8_t)(sites - 1))
		n++;
	return n;
}

/* B1, B53: the eligible players with the most VP, then the most sites, then
 * the most relics. */
int ct_winner_set(const struct ctgame *g)
{
	int best = -1, set = 0;
	long bkey = -1;
	for (int s = 0; s < g->n; s++) {
		if (g->p[s].out)
			continue;
		long key = (long)ctgame_vp(g, s) * 10000 + ct_site_count(g->p[s].sites) * 1000 +
		           ct_relic_total(g, s);
		if (best < 0 || key > bkey) {
			best = s;
			bkey = key;
			set = 1 << s;
		} else if (key == bkey) {
			set |= 1 << s;
		}
	}
	return set;
}

void ct_end_game(struct ctgame *g, int how, struct game_events *ev)
{
	g->end = (uint8_t)how;
	g->winners = (uint8_t)(how == CE_SAVED || how == CE_SUMMONED ? ct_winner_set(g) : 0);
	g->phase = PH_OVER;
	g->sp = 0;
	emit(ev, CV_END, -1, how, g->winners);
}

/* §14: checked right after each sanctification or activation. */
void ct_check_end(struct ctgame *g, struct game_events *ev)
{
	if (g->sanctified >= 3)
		ct_end_game(g, CE_SAVED, ev);
	else if (g->activated >= 3)
		ct_end_game(g, CE_SUMMONED, ev);
}

/* §9.4. The active player's turn ends at once (B17); B37 when nobody is left. */
void ct_eliminate(struct ctgame *g, int seat, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	int left = 0;
	for (int c = 0; c < CTGAME_CARDS; c++)
		if (g->card_at[c] == CW_HAND + seat || g->card_at[c] == CW_PLAY + seat)
			ct_discard_card(g, seat, c, ev);
	for (int r = 0; r < CTGAME_RELICS; r++)
		if (g->relic_at[r] == CW_HAND + seat)
			g->relic_at[r] = CW_DISCARD;
	memset(p->relics, 0, sizeof p->relics);
	g->hearts = (uint16_t)(g->hearts + p->hearts);
	g->bullets = (uint16_t)(g->bullets + p->bullets);
	p->hearts = p->bullets = 0;
	p->sanity = 0;
	p->sq = -1;
	p->out = 1;
	p->hand = 0;
	emit(ev, CV_ELIMINATED, seat, 0, 0);
	for (int s = 0; s < g->n; s++)
		left += !g->p[s].out;
	if (!left) {
		ct_end_game(g, CE_NOBODY, ev);
		return;
	}
	if (seat == g->seat)
		g->flags |= F_ABORT;
}

/* §9.2: sanity reached 0. */
void ct_insanity(struct ctgame *g, int seat, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	p->start--;
	emit(ev, CV_INSANE, seat, p->start, 0);
	if (p->start < 1) {
		ct_eliminate(g, seat, ev);
		return;
	}
	if (seat == g->seat) {
		g->flags |= F_INSANE; /* B30 */
		if (g->flags & F_MOVING)
			g->flags |= F_MOVE_OVER; /* B22 */
	}
}

/* B29: a player at 0 ignores sanity losses. */
void ct_lose_sanity(struct ctgame *g, int seat, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	if (p->out || p->sanity == 0)
		return;
	p->sanity--;
	emit(ev, CV_SANITY, seat, p->start, p->sanity);
	if (p->sanity == 0)
		ct_insanity(g, seat, ev);
}

/* The square of the street that faces a site's entrance, or -1. */
static int facing_street(const struct ctgame *g, int tile)
{
	static const int middle[4] = { 1, 5, 7, 3 };
	for (int s = 0; s < 4; s++) {
		int sq = tile * 9 + middle[s];
		if (ctmap_square_kind(&g->map, sq) == CTMAP_ENTRANCE)
			return ctmap_step(&g->map, sq, s);
	}
	return -1;
}

/* B46: pawns on a site that leaves play go to the street facing it. */
static void evacuate(struct ctgame *g, int tile, int street, struct game_events *ev)
{
	for (int s = 0; s < g->n; s++) {
		if (g->p[s].out || g->p[s].sq < 0 || tile_of(g->p[s].sq) != tile)
			continue;
		g->p[s].sq = (int16_t)(street >= 0 ? street : CTGAME_CHURCH_SQ);
		emit(ev, CV_RELOCATE, s, g->p[s].sq, 0);
	}
}

/* §11.5 and B10: the pawn of `seat` was defeated on an unresolved site. */
static void activate(struct ctgame *g, int tile, int seat, struct game_events *ev)
{
	int street = facing_street(g, tile);
	clear_tile(g, tile);
	g->p[seat].sq = CTGAME_CHURCH_SQ;
	evacuate(g, tile, street, ev);
	ctmap_activate(&g->map, tile);
	g->activated++;
	g->act_order[tile - CTMAP_SITE_FIRST] = g->activated;
	emit(ev, CV_ACTIVATE, seat, tile, g->activated);
}

/* §11.4: the active player sanctifies the site under the pawn. */
void ct_sanctify(struct ctgame *g, struct game_events *ev)
{
	int seat = g->seat, tile = tile_of(g->p[seat].sq);
	int street = facing_street(g, tile);
	for (int t = 0; t < CTGAME_TYPES; t++)
		ct_lose_relic(g, seat, t, ev);
	clear_tile(g, tile);
	evacuate(g, tile, street, ev);
	ctmap_remove(&g->map, tile, CTMAP_SANCTIFIED);
	g->p[seat].sites |= (uint8_t)(1 << (tile - CTMAP_SITE_FIRST));
	g->sanctified++;
	emit(ev, CV_SANCTIFY, seat, tile, g->sanctified);
	if (g->flags & F_MOVING)
		g->flags |= F_MOVE_OVER; /* B45 */
	ct_check_end(g, ev);
}

int ct_can_sanctify(const struct ctgame *g)
{
	const struct ctgame_player *p = &g->p[g->seat];
	if (p->sq < 0 || !unresolved(g, tile_of(p->sq)) || ct_enemies_on_tile(g, tile_of(p->sq)))
		return 0;
	for (int t = 0; t < CTGAME_TYPES; t++)
		if (!p->relics[t])
			return 0;
	return 1;
}

/* §9.3 steps 1-3, then the relic choice; steps 5-6 in PH_DEFEAT_END, after
 * which the phase `then` follows. A defeat that activates the third site
 * ends the game after the relic choice alone (B54). */
void ct_defeat(struct ctgame *g, int seat, int then, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	int sq = p->sq;
	g->defeated = (uint8_t)seat;
	emit(ev, CV_DEFEAT, seat, sq, 0);
	if (sq >= 0 && unresolved(g, tile_of(sq))) {
		activate(g, tile_of(sq), seat, ev); /* B34 */
		g->loss = (uint8_t)(ct_relic_total(g, seat) / 2);
		if (g->activated >= 3 && g->loss) {
			push(g, PH_SUMMONED);
			g->phase = PH_RELIC_LOSS;
			return;
		}
		ct_check_end(g, ev);
		if (halted(g))
			return;
	}
	p->sq = CTGAME_CHURCH_SQ;
	emit(ev, CV_RELOCATE, seat, p->sq, 0);
	if (seat == g->seat) {
		g->left = 0;
		g->flags |= F_DEFEATED;
		if (g->flags & F_MOVING)
			g->flags |= F_MOVE_OVER;
	}
	for (int c = 0; c < CTGAME_CARDS; c++)
		if (g->card_at[c] == CW_PLAY + seat &&
		    ct_cards[ct_kind_of[c]].category == CC_WEAPON)
			ct_discard_card(g, seat, c, ev);
	g->defeated = (uint8_t)seat;
	g->loss = (uint8_t)(ct_relic_total(g, seat) / 2);
	push(g, then);
	if (g->loss) {
		push(g, PH_DEFEAT_END);
		g->phase = PH_RELIC_LOSS;
	} else {
		g->phase = PH_DEFEAT_END;
	}
}

/* §9.3 steps 5-6 (B32, B33). */
void ct_defeat_end(struct ctgame *g, struct game_events *ev)
{
	int seat = g->defeated;
	struct ctgame_player *p = &g->p[seat];
	int h = 3 - p->hearts;
	if (p->out)
		return; /* left the game during the defeat (ctgame_leave) */
	if (h > g->hearts)
		h = g->hearts;
	p->hearts = (uint8_t)(p->hearts + h);
	g->hearts = (uint16_t)(g->hearts - h);
	if (p->bullets > 3) {
		g->bullets = (uint16_t)(g->bullets + p->bullets - 3);
		p->bullets = 3;
	} else {
		int b = 3 - p->bullets;
		if (b > g->bullets)
			b = g->bullets;
		p->bullets = (uint8_t)(p->bullets + b);
		g->bullets = (uint16_t)(g->bullets - b);
	}
	emit(ev, CV_HEARTS, seat, 0, p->hearts);
	emit(ev, CV_BULLETS, seat, 0, p->bullets);
	p->start--;
	if (p->start < 1) {
		ct_eliminate(g, seat, ev);
		return;
	}
	p->sanity = p->start;
	emit(ev, CV_SANITY, seat, p->start, p->sanity);
}

/* Loses one heart; a defeat at 0 follows, then phase `then`. Returns 1
 * when the defeat began. */
int ct_lose_heart(struct ctgame *g, int seat, int then, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	p->hearts--;
	g->hearts++;
	emit(ev, CV_HEARTS, seat, 0, p->hearts);
	if (p->hearts > 0)
		return 0;
	ct_defeat(g, seat, then, ev);
	return 1;
}
