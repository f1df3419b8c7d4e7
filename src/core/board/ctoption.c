/* ctoption: the pending decision's options: who decides it, which cards would have an
 * effect (B49), what a weapon is worth (§12.2) and the list ctgame_options
 * offers at each phase. */
#include "ctgame_int.h"

#include <assert.h>

/* ---- options ---- */

static int add(struct ctgame_option *out, int n, int what, int arg)
{
	assert(n < CTGAME_OPTIONS);
	out[n].what = (uint8_t)what;
	out[n].arg = (int16_t)arg;
	return n + 1;
}

/* Who decides the pending choice. */
int ct_chooser(const struct ctgame *g)
{
	switch (g->phase) {
	case PH_RELIC_LOSS:
		return g->defeated;
	case PH_PLAY:
		return g->ask_seat;
	default:
		return g->seat;
	}
}

static int someone_gains_sanity(const struct ctgame *g)
{
	for (int s = 0; s < g->n; s++)
		if (!g->p[s].out && g->p[s].sanity > 0 && g->p[s].sanity < g->p[s].start)
			return 1;
	return 0;
}

static int laudanum_works(const struct ctgame *g, int seat)
{
	const struct ctgame_player *p = &g->p[seat];
	return p->sanity > 0 && p->sanity < p->start;
}

static int satchel_works(const struct ctgame *g, int seat)
{
	return g->p[seat].hearts < 5 && g->hearts > 0;
}

/* Another non-eliminated player on `seat`'s square or a square linked to it. */
static int brawl_target(const struct ctgame *g, int seat, int other)
{
	int a = g->p[seat].sq, b = g->p[other].sq;
	if (other == seat || g->p[other].out || a < 0 || b < 0)
		return 0;
	if (a == b)
		return 1;
	for (int d = 0; d < 4; d++)
		if (ctmap_step(&g->map, a, d) == b)
			return 1;
	return 0;
}

static int fingers_target(const struct ctgame *g, int seat, int other)
{
	return other != seat && !g->p[other].out && g->p[other].sq == g->p[seat].sq &&
	       ct_relic_total(g, other) > 0;
}

/* E32 has an effect against `other` (B49): a byakhee off the sites and
 * not on `other`'s square already. */
static int sent_target(const struct ctgame *g, int seat, int other)
{
	if (other == seat || g->p[other].out)
		return 0;
	for (int q = 0; q < CTMAP_SQUARES; q++)
		if ((g->square[q] & CS_BYAKHEE) && !is_site(tile_of(q)) && q != g->p[other].sq)
			return 1;
	return 0;
}

/* E30 has an effect against `other`. */
static int yellow_target(const struct ctgame *g, int seat, int other)
{
	int16_t f[CTMAP_SQUARES];
	if (other == seat || g->p[other].out)
		return 0;
	return ct_figures_in(g, FM_YELLOW, other, NULL, f) > 0;
}

/* Whether playing card `kind` now would have an effect (B49) at the moment. */
static int playable(const struct ctgame *g, int seat, int kind, int m)
{
	const struct ctgame_player *p = &g->p[seat];
	int own = m >= CM_PP1 && m <= CM_PP5;
	int moving_ahead = !(g->flags & (F_SKIP67 | F_DEFEATED | F_MOVE_OVER));
	switch (kind) {
	case CK_KNIFE:
	case CK_HARPOON:
	case CK_CHOPPER:
	case CK_COACHGUN:
	case CK_SWORDCANE:
		return own && ctgame_in_play(g, seat, kind) < 0;
	case CK_LAUDANUM:
	case CK_SATCHEL:
	case CK_CANDLE:
		return own;
	case CK_ELDERSIGN:
		return (m == CM_PP1 || m == CM_PP2 || m == CM_PP3 || m == CM_PP4) && moving_ahead &&
		       !(g->flags & F_ELDER);
	case CK_ROADSTER:
		return (m == CM_PP3 || m == CM_PP4) && moving_ahead;
	case CK_FOG:
		return m == CM_RW && g->total > 0;
	case CK_BELLS: /* B49: nothing to do in the Church with steps 6-7 skipped */
		return (m == CM_PP1 || m == CM_PP2 || m == CM_PP3) &&
		       (p->sq != CTGAME_CHURCH_SQ || moving_ahead);
	case CK_NERVES:
		return (m == CM_CS || m == CM_CHECK) && !(g->fflags & (FF_NERVES | FF_CHECKED)) &&
		       p->sanity > 0;
	case CK_STASH:
		return (own || m == CM_RW) && g->bullets > 0;
	case CK_HYMN:
		return (own || m == CM_RW) && someone_gains_sanity(g);
	case CK_SURVEYOR: {
		int mode;
		return (m == CM_PP2 || m == CM_PP3 || m == CM_PP4 || m == CM_PP4_END) &&
		       ct_tile_candidates(g, &mode) != 0;
	}
	case CK_BANISH:
		return m == CM_CS && g->enemy == CS_BYAKHEE;
	case CK_EYE:
		return own && (ct_pile_count(g->relic_at, CTGAME_RELICS, CW_DECK) +
		                   ct_pile_count(g->relic_at, CTGAME_RELICS, CW_DISCARD) >
		               0);
	case CK_SCATTER: {
		int16_t f[CTMAP_SQUARES];
		return own && ct_figures_in(g, FM_SCATTER, 0, NULL, f) > 0;
	}
	case CK_BRAWL:
	case CK_YELLOW:
	case CK_FINGERS:
	case CK_SENT:
		if (!own)
			return 0;
		for (int o = 0; o < g->n; o++) {
			if (kind == CK_BRAWL && brawl_target(g, seat, o))
				return 1;
			if (kind == CK_FINGERS && fingers_target(g, seat, o))
				return 1;
			if (kind == CK_SENT && sent_target(g, seat, o))
				return 1;
			if (kind == CK_YELLOW && yellow_target(g, seat, o))
				return 1;
		}
		return 0;
	default:
		return 0; /* Automatic cards, and CF cards (offered at CA_FAILED) */
	}
}

/* The hand's cards playable at a CA_PLAY node, as options. */
static int hand_plays(const struct ctgame *g, struct ctgame_option *out, int n)
{
	int seat = g->ask_seat;
	uint32_t held = 0; /* bit k: a card of kind k in the hand */
	if (g->p[seat].played)
		return n;
	ct_tables();
	for (int c = 0; c < CTGAME_CARDS; c++)
		if (g->card_at[c] == CW_HAND + seat)
			held |= 1u << ct_kind_of[c];
	for (int k = 0; k < CTGAME_KINDS; k++)
		if ((held >> k & 1) && playable(g, seat, k, g->moment))
			n = add(out, n, CO_CARD, k);
	return n;
}

/* The options of a CA_PLAY node. Under secret hands the items in play come
 * before the hand's cards, so that an item's option number tells nothing
 * of the hand. */
static int plays(const struct ctgame *g, struct ctgame_option *out)
{
	int seat = g->ask_seat, m = g->moment, n = 0;
	n = add(out, n, CO_PASS, 0);
	if (m != CM_RW && (g->flags & F_INSANE))
		return n; /* B30 */
	if ((m == CM_PP2 || m == CM_PP4 || m == CM_PP4_END) && ct_can_sanctify(g))
		n = add(out, n, CO_SANCTIFY, 0);
	if (!g->secret)
		n = hand_plays(g, out, n);
	int items = m == CM_RW || (m >= CM_PP1 && m <= CM_PP5);
	if (items && ctgame_in_play(g, seat, CK_LAUDANUM) >= 0 && laudanum_works(g, seat))
		n = add(out, n, CO_ITEM, CK_LAUDANUM);
	if (items && ctgame_in_play(g, seat, CK_SATCHEL) >= 0 && satchel_works(g, seat))
		n = add(out, n, CO_ITEM, CK_SATCHEL);
	if (m == CM_CS && g->enemy == CS_BYAKHEE && !(g->fflags & FF_CANDLE) &&
	    ctgame_in_play(g, seat, CK_CANDLE) >= 0)
		n = add(out, n, CO_ITEM, CK_CANDLE);
	if (g->secret)
		n = hand_plays(g, out, n);
	return n;
}

int ctgame_could_play(const struct ctgame *g)
{
	const struct ctgame_player *p;
	switch (g->phase) {
	case PH_AUTOMATIC:
		return 1;
	case PH_FAILED: /* E13, E15 */
		p = &g->p[g->seat];
		return p->hand > 0 && !p->played && !(g->flags & F_INSANE);
	case PH_PLAY:
		p = &g->p[g->ask_seat];
		if (p->hand == 0 || p->played || (g->moment != CM_RW && (g->flags & F_INSANE)))
			return 0;
		/* playable() reads public facts only: whether some card, if
		 * held, could be played now. */
		for (int k = 0; k < CTGAME_KINDS; k++)
			if (playable(g, g->ask_seat, k, g->moment))
				return 1;
		return 0;
	default:
		return 0;
	}
}

/* Under secret hands, whether a decision with a single option is asked
 * all the same, because being skipped would tell the table something of
 * the hand: an own play point, CS, a due check or a reaction window, and
 * a failed roll, whenever ctgame_could_play; step 1's choice of Automatic
 * card whenever one is held with another card. B47 plays exactly one of
 * them, so the others stay in the hand unseen: asking only when two kinds
 * are held would show that the hand holds a second Automatic card, while
 * asking whenever another card is held shows no more than the card played
 * and the hand size (the choice itself is listed privately, C4). */
int ct_ask_anyway(const struct ctgame *g)
{
	if (!g->secret)
		return 0;
	if (g->phase == PH_AUTOMATIC)
		return g->p[g->seat].hand >= 2;
	return ctgame_could_play(g);
}

/* A weapon's bonus against an enemy kind (§12.2). */
int ct_bonus(int kind, int enemy)
{
	switch (kind) {
	case CK_KNIFE:
		return enemy == CS_CULTIST ? 1 : 0;
	case CK_HARPOON:
		return enemy == CS_BYAKHEE ? 2 : 0;
	case CK_CHOPPER:
		return 2;
	case CK_COACHGUN:
		return 1;
	case CK_SWORDCANE:
		return enemy == CS_BYAKHEE ? 1 : 0;
	default:
		return 0;
	}
}

int ctgame_options(const struct ctgame *g, struct ctgame_option *out)
{
	int n = 0, seat = g->seat;
	const struct ctgame_player *p = &g->p[seat];
	int16_t sq[CTMAP_SQUARES];
	ct_tables();
	switch (g->phase) {
	case PH_AUTOMATIC:
		for (int k = CK_WHISPERS; k <= CK_OMEN; k++)
			if (ctgame_in_hand(g, seat, k))
				n = add(out, n, CO_CARD, k);
		return n;
	case PH_PLAY:
		return plays(g, out);
	case PH_TILE: {
		struct ctmap_option o[CTMAP_OPTIONS_MAX];
		int k = ctmap_options(&g->map, g->aux, (enum ctmap_mode)g->tile_mode, o);
		for (int i = 0; i < k; i++)
			n = add(out, n, CO_TILE, i);
		return n;
	}
	case PH_REMOVE:
		for (int a = 1; a <= CTMAP_SITES; a++)
			for (int i = 0; i < CTMAP_SITES; i++)
				if (g->act_order[i] == a &&
				    g->map.where[CTMAP_SITE_FIRST + i] == CTMAP_ACTIVATED)
					n = add(out, n, CO_TILE, CTMAP_SITE_FIRST + i);
		return n;
	case PH_TOKENS: {
		int k = ct_interiors(g, g->aux, sq);
		for (int m = 0; m < 1 << k; m++)
			n = add(out, n, CO_MASK, m);
		return n;
	}
	case PH_SITE_BYAKHEE:
		for (int l = 0; l < 9; l++)
			n = add(out, n, CO_SQUARE, g->aux * 9 + l);
		return n;
	case PH_WEAPON:
		n = add(out, n, CO_PASS, 0);
		if (g->flags & F_JAMMED)
			return n;
		for (int c = 0; c < CTGAME_CARDS; c++) {
			int k = ct_kind_of[c];
			if (g->card_at[c] != CW_PLAY + seat || ct_cards[k].category != CC_WEAPON ||
			    !ct_bonus(k, g->enemy))
				continue;
			if (k == CK_CHOPPER && p->bullets < 1)
				continue;
			n = add(out, n, CO_WEAPON, c);
		}
		return n;
	case PH_FAILED: {
		int need = g->kill - g->ctotal;
		if (p->bullets >= need)
			n = add(out, n, CO_SPEND, need);
		n = add(out, n, CO_LOSE, 0);
		if (!p->played && !(g->flags & F_INSANE)) {
			if (ctgame_in_hand(g, seat, CK_DEADEYE))
				n = add(out, n, CO_CARD, CK_DEADEYE);
			if (ctgame_in_hand(g, seat, CK_SECONDWIND))
				n = add(out, n, CO_CARD, CK_SECONDWIND);
		}
		return n;
	}
	case PH_MOVE:
		if (g->left > 0)
			for (int d = 0; d < 4; d++)
				if (ctmap_step(&g->map, p->sq, d) >= 0)
					n = add(out, n, CO_DIR, d);
		return add(out, n, CO_STOP, 0);
	case PH_FIGURE: {
		int k = ct_figures(g, sq);
		for (int i = 0; i < k; i++)
			n = add(out, n, CO_SQUARE, sq[i]);
		if (g->fmode == FM_SCATTER || g->fmode == FM_YELLOW)
			n = add(out, n, CO_STOP, 0);
		return n;
	}
	case PH_DEST: {
		int k = ct_dests(g, g->figure, sq);
		ct_sort_reading(g, sq, k);
		for (int i = 0; i < k; i++)
			n = add(out, n, CO_SQUARE, sq[i]);
		return n;
	}
	case PH_RESEED:
		for (int l = 0; l < 9; l++) {
			int q = g->aux * 9 + l;
			if (g->cultists)
				n = add(out, n, CO_FIGURE, q);
			if (g->byakhee)
				n = add(out, n, CO_FIGURE, CTMAP_SQUARES + q);
		}
		return n;
	case PH_RELIC_LOSS:
		for (int t = 0; t < CTGAME_TYPES; t++)
			if (g->p[g->defeated].relics[t])
				n = add(out, n, CO_TYPE, t);
		return n;
	case PH_DISCARD:
		if (p->hand <= CTGAME_HAND)
			n = add(out, n, CO_STOP, 0);
		for (int k = 0; k < CTGAME_KINDS; k++)
			if (ctgame_in_hand(g, seat, k))
				n = add(out, n, CO_CARD, k);
		return n;
	case PH_TARGET:
		for (int o = 0; o < g->n; o++) {
			int ok = 0;
			switch (g->card) {
			case CK_BRAWL:
				ok = brawl_target(g, seat, o);
				break;
			case CK_FINGERS:
				ok = fingers_target(g, seat, o);
				break;
			case CK_YELLOW:
				ok = yellow_target(g, seat, o);
				break;
			default:
				ok = sent_target(g, seat, o);
				break;
			}
			if (ok)
				n = add(out, n, CO_SEAT, o);
		}
		return n;
	case PH_SQUARE: {
		int k = 0;
		for (int d = 0; d < 4; d++) {
			int q = ctmap_step(&g->map, p->sq, d);
			if (q >= 0 && !(g->square[q] & CS_CULTIST))
				sq[k++] = (int16_t)q;
		}
		ct_sort_reading(g, sq, k);
		for (int i = 0; i < k; i++)
			n = add(out, n, CO_SQUARE, sq[i]);
		return n;
	}
	case PH_RELIC_TAKE:
		for (int t = 0; t < CTGAME_TYPES; t++)
			if (g->p[g->target].relics[t])
				n = add(out, n, CO_TYPE, t);
		return n;
	default:
		return 0;
	}
}
