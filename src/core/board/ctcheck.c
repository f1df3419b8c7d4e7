/* ctcheck: the invariants of a state (§16), checked by ctgame_check. */
#include "ctgame_int.h"

#include <stdio.h>
#include <string.h>

/* ---- invariants (§16) ---- */

#define FAIL(k, ...)                                                                               \
	do {                                                                                       \
		snprintf(why, n, __VA_ARGS__);                                                     \
		return k;                                                                          \
	} while (0)

int ctgame_check(const struct ctgame *g, char *why, size_t n)
{
	int hearts = g->hearts, bullets = g->bullets, cultists = g->cultists, byakhee = g->byakhee;
	int hand[CTGAME_MAX] = { 0 }, relics[CTGAME_MAX][CTGAME_TYPES] = { { 0 } };
	ct_tables();
	for (int q = 0; q < CTMAP_SQUARES; q++) {
		uint8_t s = g->square[q];
		if (s && !ctmap_passable(&g->map, q))
			FAIL(3, "square %d holds %#x but is not on the board", q, s);
		hearts += !!(s & CS_HEART);
		bullets += !!(s & CS_BULLET);
		cultists += !!(s & CS_CULTIST);
		byakhee += !!(s & CS_BYAKHEE);
	}
	for (int s = 0; s < g->n; s++) {
		const struct ctgame_player *p = &g->p[s];
		hearts += p->hearts;
		bullets += p->bullets;
		if (p->out) {
			if (p->sq != -1 || p->hearts || p->bullets)
				FAIL(3, "eliminated seat %d still has a pawn or tokens", s);
			continue;
		}
		int defeating = (g->phase == PH_RELIC_LOSS || g->phase == PH_DEFEAT_END ||
		                 g->end != CE_PLAYING) &&
		                g->defeated == s;
		if (p->hearts > 5 || (p->hearts < 1 && !defeating))
			FAIL(5, "seat %d has %d hearts", s, p->hearts);
		if (p->start < 1 || p->start > 5 || p->sanity > p->start)
			FAIL(5, "seat %d sanity %d/%d", s, p->sanity, p->start);
		if (p->sq < 0 || !ctmap_passable(&g->map, p->sq))
			FAIL(3, "seat %d pawn on square %d", s, p->sq);
	}
	if (hearts != CTGAME_HEARTS || bullets != CTGAME_BULLETS)
		FAIL(1, "tokens: %d hearts, %d bullets", hearts, bullets);
	if (cultists != CTGAME_CULTISTS || byakhee != CTGAME_BYAKHEE)
		FAIL(2, "figures: %d cultists, %d byakhee", cultists, byakhee);
	for (int c = 0; c < CTGAME_CARDS; c++) {
		int w = g->card_at[c], s = w & 0x0f;
		if (w == CW_DECK || w == CW_DISCARD)
			continue;
		if ((w & 0xf0) != CW_HAND && (w & 0xf0) != CW_PLAY)
			FAIL(6, "card %d is nowhere (%#x)", c, w);
		if (s >= g->n || g->p[s].out)
			FAIL(6, "card %d with seat %d", c, s);
		if ((w & 0xf0) == CW_HAND)
			hand[s]++;
		else if (ct_cards[ct_kind_of[c]].category == CC_WEAPON) {
			for (int d = ct_first_card[ct_kind_of[c]]; d < c; d++)
				if (g->card_at[d] == w)
					FAIL(6, "seat %d has two %s in play", s,
					     ct_cards[ct_kind_of[c]].id);
		} else if (ct_cards[ct_kind_of[c]].category != CC_ITEM) {
			FAIL(6, "card %d (%s) in play", c, ct_cards[ct_kind_of[c]].id);
		}
	}
	for (int r = 0; r < CTGAME_RELICS; r++) {
		int w = g->relic_at[r];
		if (w == CW_DECK || w == CW_DISCARD)
			continue;
		if ((w & 0xf0) != CW_HAND || (w & 0x0f) >= g->n)
			FAIL(6, "relic %d is nowhere (%#x)", r, w);
		relics[w & 0x0f][r / 16]++;
	}
	for (int s = 0; s < g->n; s++) {
		if (hand[s] != g->p[s].hand || hand[s] > CTGAME_HAND)
			FAIL(5, "seat %d hand %d (counted %d)", s, hand[s], g->p[s].hand);
		if (memcmp(relics[s],
		           (int[CTGAME_TYPES]){ g->p[s].relics[0], g->p[s].relics[1],
		                                g->p[s].relics[2], g->p[s].relics[3],
		                                g->p[s].relics[4] },
		           sizeof relics[s]))
			FAIL(6, "seat %d relic counts disagree", s);
	}
	int sanct = 0, act = 0, owned = 0;
	for (int t = 0; t < CTMAP_TILES; t++) {
		int w = g->map.where[t];
		if (w == CTMAP_PLACED || w == CTMAP_ACTIVATED) {
			if (ctmap_at(&g->map, g->map.tx[t], g->map.ty[t]) != t)
				FAIL(8, "tile %d is not in its cell", t);
		}
		if (w == CTMAP_SANCTIFIED)
			sanct++;
		if (w == CTMAP_ACTIVATED || w == CTMAP_REMOVED)
			act++;
		if ((w == CTMAP_ACTIVATED || w == CTMAP_REMOVED || w == CTMAP_SANCTIFIED) &&
		    !is_site(t))
			FAIL(8, "tile %d resolved but not a site", t);
		if ((g->tile_discard >> t & 1) && w != CTMAP_UNPLACED)
			FAIL(8, "tile %d on the map discard and the map", t);
	}
	for (int s = 0; s < g->n; s++)
		owned += ct_site_count(g->p[s].sites);
	if (sanct != g->sanctified || act != g->activated || owned != sanct)
		FAIL(8, "sites: %d sanctified (%d held, counter %d), %d activated (counter %d)",
		     sanct, owned, g->sanctified, act, g->activated);
	/* 9: matching sides, except activated sites' walls and sites placed by B9 */
	for (int t = 0; t < CTMAP_TILES; t++) {
		static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };
		if (g->map.where[t] != CTMAP_PLACED || g->map.forced[t])
			continue;
		for (int d = 0; d < 4; d++) {
			int u = ctmap_at(&g->map, g->map.tx[t] + dx[d], g->map.ty[t] + dy[d]);
			if (u < 0 || g->map.where[u] != CTMAP_PLACED || g->map.forced[u])
				continue;
			if (ctmap_open(&g->map, t, d) != ctmap_open(&g->map, u, (d + 2) % 4))
				FAIL(9, "tiles %s and %s do not match", ctmap_tile(t)->id,
				     ctmap_tile(u)->id);
		}
	}
	/* 9: G is connected */
	{
		int16_t dist[CTMAP_SQUARES], all[CTMAP_SQUARES];
		int k = ctmap_squares(&g->map, all);
		ctmap_distances(&g->map, CTGAME_CHURCH_SQ, NULL, -1, dist);
		for (int i = 0; i < k; i++)
			if (dist[all[i]] < 0)
				FAIL(9, "square %d,%d cannot be reached from the Church",
				     ctmap_gx(&g->map, all[i]), ctmap_gy(&g->map, all[i]));
	}
	if ((g->phase == PH_DISCARD || (g->phase == PH_PLAY && g->moment == CM_PP5)) &&
	    (g->cultists || g->byakhee))
		for (int t = CTMAP_SITE_FIRST; t < CTMAP_SITE_FIRST + CTMAP_SITES; t++)
			if (unresolved(g, t) && !ct_enemies_on_tile(g, t))
				FAIL(10, "site %s holds no enemy after step 10", ctmap_tile(t)->id);
	switch (g->end) {
	case CE_PLAYING:
		if (g->sanctified >= 3 || (g->activated >= 3 && g->phase != PH_RELIC_LOSS))
			FAIL(11, "three sites resolved but the game goes on");
		break;
	case CE_SAVED:
		if (g->sanctified != 3 || g->activated > 2)
			FAIL(11, "saved with %d/%d", g->sanctified, g->activated);
		break;
	case CE_SUMMONED:
		if (g->activated != 3 || g->sanctified > 2)
			FAIL(11, "summoned with %d/%d", g->sanctified, g->activated);
		break;
	default:
		break;
	}
	if ((g->end == CE_SAVED || g->end == CE_SUMMONED) && g->winners != ct_winner_set(g))
		FAIL(12, "winners %#x, expected %#x", g->winners, ct_winner_set(g));
	if (g->end == CE_PLAYING && g->winners)
		FAIL(12, "winners before the end");
	return 0;
}
