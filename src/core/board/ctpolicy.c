/* ctpolicy: the computer players (§17, C13: the baseline and the random policy) and
 * the answer given for a player who timed out (C15). */
#include "ctgame_int.h"

/* ---- policies (§17, C13) ---- */

static int find_opt(const struct ctgame_option *o, int n, int what, int arg)
{
	for (int i = 0; i < n; i++)
		if (o[i].what == what && (arg < 0 || o[i].arg == arg))
			return i;
	return -1;
}

/* C13's targets: the other players' pawns, the active player's if none. */
static uint8_t hunt_targets(const struct ctgame *g)
{
	uint8_t t = 0;
	for (int s = 0; s < g->n; s++)
		if (s != g->seat && !g->p[s].out)
			t |= (uint8_t)(1 << s);
	return t ? t : (uint8_t)(1 << g->seat);
}

static int manhattan(const struct ctgame *g, uint8_t targets, int q)
{
	int best = 1 << 20, x = ctmap_gx(&g->map, q), y = ctmap_gy(&g->map, q);
	for (int s = 0; s < g->n; s++) {
		if (!(targets >> s & 1) || g->p[s].sq < 0)
			continue;
		int dx = x - ctmap_gx(&g->map, g->p[s].sq), dy = y - ctmap_gy(&g->map, g->p[s].sq);
		int m = (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
		if (m < best)
			best = m;
	}
	return best;
}

/* D(q) of C13 for a cultist standing on `from`: confined to its site. */
static int hunt_d(const int16_t *free_d, const int16_t *conf_d, int from, int q)
{
	int d = is_site(tile_of(from)) ? conf_d[q] : free_d[q];
	return d < 0 ? 1 << 20 : d;
}

int ctgame_hunt(const struct ctgame *g)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	int n = ctgame_options(g, o), best = 0;
	uint8_t targets = hunt_targets(g);
	if (g->phase == PH_RESEED) {
		int entrance = -1;
		for (int l = 0; l < 9; l++)
			if (ctmap_square_kind(&g->map, g->aux * 9 + l) == CTMAP_ENTRANCE)
				entrance = g->aux * 9 + l;
		int i = find_opt(o, n, CO_FIGURE, entrance);
		if (i < 0)
			i = find_opt(o, n, CO_FIGURE, CTMAP_SQUARES + entrance);
		return i < 0 ? 0 : i;
	}
	if (g->fmode == FM_BYAKHEE) {
		long bkey = -1;
		for (int i = 0; i < n; i++) {
			long key = manhattan(g, targets, o[i].arg);
			if (bkey < 0 || key < bkey) {
				bkey = key;
				best = i;
			}
		}
		return best; /* options come in reading order: ties keep the first */
	}
	if (g->fmode != FM_CULTISTS)
		return 0;
	int16_t free_d[CTMAP_SQUARES], conf_d[CTMAP_SQUARES];
	int site = -1;
	ct_target_distances(g, targets, -1, free_d);
	if (g->phase == PH_DEST && is_site(tile_of(g->figure))) {
		site = tile_of(g->figure);
		ct_target_distances(g, targets, site, conf_d);
	}
	long bkey = -1;
	for (int i = 0; i < n; i++) {
		int q = o[i].arg;
		long key;
		if (o[i].what != CO_SQUARE)
			continue;
		if (g->phase == PH_DEST) {
			key = hunt_d(free_d, conf_d, g->figure, q);
		} else {
			int d;
			if (is_site(tile_of(q))) {
				int here = 0;
				for (int s = 0; s < g->n; s++)
					here |= (targets >> s & 1) && g->p[s].sq >= 0 &&
					        tile_of(g->p[s].sq) == tile_of(q);
				d = 1 << 20;
				if (here) {
					ct_target_distances(g, targets, tile_of(q), conf_d);
					d = conf_d[q] < 0 ? 1 << 20 : conf_d[q];
				}
			} else {
				d = free_d[q] < 0 ? 1 << 20 : free_d[q];
			}
			int group = d == 0 ? 2 : d == 1 << 20 ? 1 : 0;
			key = (long)group << 24 | d;
		}
		if (bkey < 0 || key < bkey) {
			bkey = key;
			best = i;
		}
	}
	return best;
}

/* C11's default weapon order: the highest bonus, free unlimited weapons
 * before limited ones, the Chopper last, then the lowest card id. */
static int weapon_key(const struct ctgame *g, int c)
{
	int k = ct_kind_of[c];
	int cost = k == CK_CHOPPER ? 2 : ct_cards[k].uses ? 1 : 0;
	return (10 - ct_bonus(k, g->enemy)) * 1000 + cost * 100 + c;
}

static int baseline_play(const struct ctgame *g, const struct ctgame_option *o, int n)
{
	int seat = g->ask_seat, m = g->moment, i;
	const struct ctgame_player *p = &g->p[seat];
	if (m == CM_RW)
		return 0;
	if (m == CM_CS || m == CM_CHECK) {
		if ((i = find_opt(o, n, CO_ITEM, CK_CANDLE)) >= 0)
			return i;
		if (p->hearts <= 2 && (i = find_opt(o, n, CO_CARD, CK_BANISH)) >= 0)
			return i;
		if (p->sanity <= 2 && (i = find_opt(o, n, CO_CARD, CK_NERVES)) >= 0)
			return i;
		return 0;
	}
	if ((i = find_opt(o, n, CO_SANCTIFY, -1)) >= 0)
		return i; /* BP6 */
	if (m == CM_PP1) {
		if (p->hearts == 1 && (i = find_opt(o, n, CO_CARD, CK_BELLS)) >= 0)
			return i;
		for (int k = CK_KNIFE; k <= CK_SWORDCANE; k++)
			if ((i = find_opt(o, n, CO_CARD, k)) >= 0)
				return i;
		for (int k = CK_LAUDANUM; k <= CK_CANDLE; k++)
			if ((i = find_opt(o, n, CO_CARD, k)) >= 0)
				return i;
	}
	if (m == CM_PP2) {
		if (p->bullets <= 2 && (i = find_opt(o, n, CO_CARD, CK_STASH)) >= 0)
			return i;
		if (p->sanity < p->start && (i = find_opt(o, n, CO_CARD, CK_HYMN)) >= 0)
			return i;
		if ((i = find_opt(o, n, CO_CARD, CK_SURVEYOR)) >= 0)
			return i;
		if ((i = find_opt(o, n, CO_CARD, CK_EYE)) >= 0)
			return i;
	}
	if (p->hearts <= 2 && (i = find_opt(o, n, CO_ITEM, CK_SATCHEL)) >= 0)
		return i;
	if (p->sanity >= 1 && p->sanity <= 2 && (i = find_opt(o, n, CO_ITEM, CK_LAUDANUM)) >= 0)
		return i;
	return 0;
}

/* BP5's target square, or -1 to stay. */
static int baseline_target(const struct ctgame *g)
{
	const struct ctgame_player *p = &g->p[g->seat];
	int16_t dist[CTMAP_SQUARES];
	int best = -1;
	ctmap_distances(&g->map, p->sq, NULL, -1, dist);
#define NEARER(q)                                                                                  \
	(best < 0 || dist[q] < dist[best] ||                                                       \
	 (dist[q] == dist[best] && ctmap_cmp_reading(&g->map, q, best) < 0))
	int all = 1;
	for (int t = 0; t < CTGAME_TYPES; t++)
		all &= p->relics[t] > 0;
	if (all) {
		int site = -1, entrance = -1;
		for (int t = CTMAP_SITE_FIRST; t < CTMAP_SITE_FIRST + CTMAP_SITES; t++) {
			if (!unresolved(g, t))
				continue;
			for (int l = 0; l < 9; l++) {
				int q = t * 9 + l;
				if (ctmap_square_kind(&g->map, q) != CTMAP_ENTRANCE || dist[q] < 0)
					continue;
				if (entrance < 0 || dist[q] < dist[entrance] ||
				    (dist[q] == dist[entrance] &&
				     ctmap_cmp_reading(&g->map, q, entrance) < 0)) {
					entrance = q;
					site = t;
				}
			}
		}
		if (site >= 0) {
			for (int l = 0; l < 9; l++) {
				int q = site * 9 + l;
				if ((g->square[q] & (CS_CULTIST | CS_BYAKHEE)) && dist[q] >= 0 &&
				    NEARER(q))
					best = q;
			}
			return best >= 0 ? best : entrance;
		}
	}
	if (p->hearts <= 2) {
		for (int q = 0; q < CTMAP_SQUARES; q++)
			if ((g->square[q] & CS_HEART) && dist[q] >= 0 && NEARER(q))
				best = q;
		if (best >= 0)
			return best;
	}
	for (int q = 0; q < CTMAP_SQUARES; q++)
		if ((g->square[q] & (CS_CULTIST | CS_BYAKHEE)) && dist[q] >= 0 && NEARER(q))
			best = q;
#undef NEARER
	return best;
}

static int baseline_move(const struct ctgame *g, const struct ctgame_option *o, int n)
{
	uint8_t enemy[CTMAP_BITMAP_BYTES] = { 0 }, dirs[CTMAP_SQUARES];
	int to = baseline_target(g), from = g->p[g->seat].sq, i;
	if (to < 0 || to == from)
		return find_opt(o, n, CO_STOP, -1);
	for (int q = 0; q < CTMAP_SQUARES; q++)
		if (g->square[q] & (CS_CULTIST | CS_BYAKHEE))
			ctmap_bit_set(enemy, q);
	if (ctmap_route(&g->map, from, to, enemy, -1, dirs) <= 0)
		return find_opt(o, n, CO_STOP, -1);
	i = find_opt(o, n, CO_DIR, dirs[0]);
	return i >= 0 ? i : find_opt(o, n, CO_STOP, -1);
}

static int baseline(const struct ctgame *g)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	int n = ctgame_options(g, o), seat = g->seat, best = 0;
	const struct ctgame_player *p = &g->p[seat];
	switch (g->phase) {
	case PH_AUTOMATIC:
		for (int i = 1; i < n; i++)
			if (ct_cards[o[i].arg].severity < ct_cards[o[best].arg].severity)
				best = i;
		return best; /* BP2 */
	case PH_PLAY:
		return baseline_play(g, o, n);
	case PH_TILE: { /* BP1 */
		struct ctmap_option c[CTMAP_OPTIONS_MAX];
		int t = tile_of(p->sq), bd = -1;
		ctmap_options(&g->map, g->aux, (enum ctmap_mode)g->tile_mode, c);
		for (int i = 0; i < n; i++) {
			int dx = c[i].tx - g->map.tx[t], dy = c[i].ty - g->map.ty[t];
			int d = (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
			if (bd < 0 || d < bd) {
				bd = d;
				best = i;
			}
		}
		return best;
	}
	case PH_TOKENS:
		return 0xa & (n - 1); /* Alternate, hearts first */
	case PH_SITE_BYAKHEE:
		return 4; /* the centre */
	case PH_WEAPON:
		for (int i = 1; i < n; i++)
			if (best == 0 || weapon_key(g, o[i].arg) < weapon_key(g, o[best].arg))
				best = i;
		return best;
	case PH_FAILED: { /* BP3 */
		int need = g->kill - g->ctotal, i;
		if (need <= 2 && (i = find_opt(o, n, CO_CARD, CK_DEADEYE)) >= 0)
			return i;
		if (p->hearts == 1 && p->bullets < need &&
		    (i = find_opt(o, n, CO_CARD, CK_SECONDWIND)) >= 0)
			return i;
		if ((i = find_opt(o, n, CO_SPEND, -1)) >= 0 && (need <= 2 || p->hearts == 1))
			return i;
		return find_opt(o, n, CO_LOSE, -1);
	}
	case PH_MOVE:
		return baseline_move(g, o, n);
	case PH_FIGURE:
	case PH_DEST:
	case PH_RESEED:
		return ctgame_hunt(g); /* BP7 */
	case PH_RELIC_LOSS:            /* BP9 */
		for (int i = 1; i < n; i++)
			if (g->p[g->defeated].relics[o[i].arg] >
			    g->p[g->defeated].relics[o[best].arg])
				best = i;
		return best;
	case PH_DISCARD: { /* BP10 */
		int over = p->hand > CTGAME_HAND, pick = -1;
		for (int i = 0; i < n; i++) {
			if (o[i].what != CO_CARD)
				continue;
			int sev = ct_cards[o[i].arg].severity;
			if (pick < 0 || sev > ct_cards[o[pick].arg].severity ||
			    (sev == ct_cards[o[pick].arg].severity && o[i].arg > o[pick].arg))
				pick = i;
		}
		if (over)
			return pick;
		if (pick >= 0 && ct_cards[o[pick].arg].severity)
			return pick;
		return find_opt(o, n, CO_STOP, -1);
	}
	default:
		return 0; /* B9 removal: the earliest activated; targets: the lowest seat */
	}
}

int ctgame_policy_baseline(const void *state, const struct game_step *step, struct rng *rng)
{
	(void)step;
	(void)rng;
	return baseline(state);
}

int ctgame_policy_random(const void *state, const struct game_step *step, struct rng *rng)
{
	(void)state;
	return (int)rng_below(rng, (uint32_t)step->count);
}

const struct game_policy ct_policies[] = {
	{ "baseline", ctgame_policy_baseline },
	{ "random", ctgame_policy_random },
	{ NULL, NULL },
};

/* ---- timeouts (C15) ---- */

int ctgame_default(const struct ctgame *g)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	int n = ctgame_options(g, o), i;
	const struct ctgame_player *p = &g->p[g->seat];
	if (n == 0)
		return 0;
	switch (g->phase) {
	case PH_PLAY:
		i = find_opt(o, n, CO_SANCTIFY, -1);
		return i >= 0 ? i : find_opt(o, n, CO_PASS, -1);
	case PH_FAILED: {
		int need = g->kill - g->ctotal;
		if ((i = find_opt(o, n, CO_SPEND, -1)) >= 0 && (need <= 2 || p->hearts == 1))
			return i;
		return find_opt(o, n, CO_LOSE, -1);
	}
	case PH_MOVE:
		return find_opt(o, n, CO_STOP, -1);
	case PH_DISCARD:
		if (p->hand > CTGAME_HAND)
			return baseline(g);
		return find_opt(o, n, CO_STOP, -1);
	case PH_SQUARE:
	case PH_TARGET:
	case PH_RELIC_TAKE:
		return 0;
	case PH_FIGURE:
	case PH_DEST:
		if (g->fmode != FM_CULTISTS && g->fmode != FM_BYAKHEE)
			return 0;
		return baseline(g);
	default:
		return baseline(g);
	}
}
