#include "rlyeh/cttext.h"

#include <stdio.h>

#include "rlyeh/ctmap.h"
#include "rlyeh/ctnames.h"
#include "rlyeh/i18n.h"

void cttext_square(const struct ctgame *g, int sq, char *buf, size_t cap)
{
	if (sq < 0 || sq >= CTMAP_SQUARES)
		snprintf(buf, cap, "?");
	else
		snprintf(buf, cap, "%d,%d", ctmap_gx(&g->map, sq), ctmap_gy(&g->map, sq));
}

static const char *name_of(const struct ctgame *g, const char *const *names, int seat)
{
	return seat >= 0 && seat < g->n && names && names[seat] ? names[seat] : "?";
}

static const char *card_name(int card, int lang)
{
	return ctnames_card(ctgame_card_kind(card), lang);
}

/* The winners of a finished game, comma separated. */
static void winners(const struct ctgame *g, int mask, const char *const *names, struct text *out)
{
	int any = 0;
	for (int s = 0; s < g->n; s++)
		if (mask >> s & 1) {
			text_add(out, any++ ? ", " : "");
			text_add(out, name_of(g, names, s));
		}
}

void cttext_event(const struct ctgame *g, const struct game_event *e, const char *const *names,
                  int lang, struct text *out)
{
	static const int rolls[] = { S_CT_ROLL_MOVE,     S_CT_ROLL_COMBAT, S_CT_ROLL_SANITY,
		                     S_CT_ROLL_CULTISTS, S_CT_ROLL_BRAWL,  S_CT_ROLL_BRAWL };
	const char *a = name_of(g, names, e->seat);
	char x[32], y[32], z[32], sq[16], list[256];
	struct text lt;

	snprintf(x, sizeof x, "%d", e->target);
	snprintf(y, sizeof y, "%d", e->value);
	cttext_square(g, e->target, sq, sizeof sq);
	switch (e->kind) {
	case CV_DEALER:
		i18n_add(out, lang, S_CT_DEALER, a, name_of(g, names, e->target), NULL);
		break;
	case CV_TURN: {
		int seat = e->seat;
		i18n_add(out, lang, S_CT_TURN, x, y, name_of(g, names, seat), NULL);
		break;
	}
	case CV_DEAL:
		i18n_add(out, lang, S_CT_DRAWS, a, NULL);
		break;
	case CV_ROLL:
		if (e->target >= 0 && e->target < (int)(sizeof rolls / sizeof rolls[0]))
			i18n_add(out, lang, rolls[e->target], a, y, NULL);
		break;
	case CV_TILE_DRAW:
		i18n_add(out, lang, S_CT_TILE_DRAW, a, ctnames_tile(e->target, lang), NULL);
		break;
	case CV_TILE_SKIP:
		i18n_add(out, lang, S_CT_TILE_SKIP, ctnames_tile(e->target, lang), NULL);
		break;
	case CV_TILE_RESHUFFLE:
		i18n_add(out, lang, S_CT_TILE_RESHUFFLE, y, NULL);
		break;
	case CV_PLACE:
		snprintf(y, sizeof y, "%d", (int8_t)(e->value & 0xff));
		snprintf(z, sizeof z, "%d", (int8_t)((e->value >> 8) & 0xff));
		i18n_add(out, lang, S_CT_PLACE, ctnames_tile(e->target, lang), y, z, NULL);
		break;
	case CV_ROTATE:
		snprintf(y, sizeof y, "%d", (e->value & 3) * 90);
		i18n_add(out, lang,
		         (e->value >> 4) == CTMAP_RELIEF   ? S_CT_ROTATE_RELIEF
		         : (e->value >> 4) == CTMAP_FORCED ? S_CT_ROTATE_FORCED
		                                           : S_CT_ROTATE,
		         y, NULL);
		break;
	case CV_ARRIVE:
		i18n_add(out, lang,
		         e->value == CS_CULTIST   ? S_CT_ARRIVE_CULTIST
		         : e->value == CS_BYAKHEE ? S_CT_ARRIVE_BYAKHEE
		         : e->value == CS_HEART   ? S_CT_ARRIVE_HEART
		                                  : S_CT_ARRIVE_BULLET,
		         sq, NULL);
		break;
	case CV_CARD:
		i18n_add(out, lang, S_CT_CARD, a, card_name(e->target, lang), NULL);
		break;
	case CV_ITEM:
		i18n_add(out, lang, S_CT_ITEM, a, card_name(e->target, lang), NULL);
		break;
	case CV_DISCARD:
		i18n_add(out, lang, S_CT_DISCARD, a, card_name(e->target, lang), NULL);
		break;
	case CV_MOVE:
		i18n_add(out, lang, S_CT_MOVE, a, sq, y, NULL);
		break;
	case CV_RELOCATE:
		i18n_add(out, lang, S_CT_RELOCATE, a, sq, NULL);
		break;
	case CV_FIGHT:
		i18n_add(out, lang,
		         e->value == CS_BYAKHEE ? S_CT_FIGHT_BYAKHEE : S_CT_FIGHT_CULTIST, a, sq,
		         NULL);
		break;
	case CV_WEAPON:
		i18n_add(out, lang, S_CT_WEAPON, a, card_name(e->target, lang), NULL);
		break;
	case CV_TOTAL:
		i18n_add(out, lang, S_CT_TOTAL, x, y, NULL);
		break;
	case CV_KILL:
		i18n_add(out, lang, e->value == CS_BYAKHEE ? S_CT_KILL_BYAKHEE : S_CT_KILL_CULTIST,
		         a, NULL);
		break;
	case CV_SPEND:
		i18n_add(out, lang, S_CT_SPEND, a, y, NULL);
		break;
	case CV_HEARTS:
		i18n_add(out, lang, S_CT_HEARTS, a, y, NULL);
		break;
	case CV_BULLETS:
		i18n_add(out, lang, S_CT_BULLETS, a, y, NULL);
		break;
	case CV_SANITY:
		i18n_add(out, lang, S_CT_SANITY, a, y, x, NULL);
		break;
	case CV_INSANE:
		i18n_add(out, lang, S_CT_INSANE, a, x, NULL);
		break;
	case CV_DEFEAT:
		i18n_add(out, lang, S_CT_DEFEAT, a, sq, NULL);
		break;
	case CV_ELIMINATED:
		i18n_add(out, lang, S_CT_ELIMINATED, a, NULL);
		break;
	case CV_RELIC:
	case CV_RELIC_LOST:
		i18n_add(out, lang, e->kind == CV_RELIC ? S_CT_RELIC : S_CT_RELIC_LOST, a,
		         ctnames_type(e->target / 16, lang), ctnames_relic(e->target, lang), NULL);
		break;
	case CV_TOKEN:
		i18n_add(out, lang, e->value == CS_HEART ? S_CT_TOKEN_HEART : S_CT_TOKEN_BULLET, a,
		         sq, NULL);
		break;
	case CV_FIGURE: {
		char to[16];
		cttext_square(g, e->value, to, sizeof to);
		i18n_add(out, lang,
		         e->seat == CS_BYAKHEE ? S_CT_FIGURE_BYAKHEE : S_CT_FIGURE_CULTIST, sq, to,
		         NULL);
		break;
	}
	case CV_SANCTIFY:
		i18n_add(out, lang, S_CT_SANCTIFY, a, ctnames_tile(e->target, lang), y, NULL);
		break;
	case CV_ACTIVATE:
		i18n_add(out, lang, S_CT_ACTIVATE, ctnames_tile(e->target, lang), y, NULL);
		break;
	case CV_REMOVE:
		i18n_add(out, lang, S_CT_REMOVE, ctnames_tile(e->target, lang), NULL);
		break;
	case CV_TOTAL_MOVE:
		i18n_add(out, lang, S_CT_TOTAL_MOVE, a, y, NULL);
		break;
	case CV_END:
		text_init(&lt, list, sizeof list);
		winners(g, e->value, names, &lt);
		i18n_add(out, lang,
		         e->target == CE_SAVED      ? S_CT_END_SAVED
		         : e->target == CE_SUMMONED ? S_CT_END_SUMMONED
		         : e->target == CE_NOBODY   ? S_CT_END_NOBODY
		                                    : S_CT_END_CAPPED,
		         list, NULL);
		break;
	default:
		break;
	}
}

/* "N E S" (Dutch "N O Z") for the open sides of `tile` turned `rot`. */
static void exits(int tile, int rot, int lang, struct text *out)
{
	static const char *const sides[I18N_LANGS][4] = { { "N", "E", "S", "W" },
		                                          { "N", "O", "Z", "W" } };
	int any = 0;
	for (int s = 0; s < 4; s++)
		if (ctmap_edge(tile, rot, s)) {
			text_add(out, any++ ? " " : "");
			text_add(out, sides[lang == I18N_NL][s]);
		}
}

/* The label of passing at a CA_PLAY node of `moment`: where the turn goes
 * on to. */
static int pass_label(int moment)
{
	switch (moment) {
	case CM_PP1:
		return S_CTW_PASS_PP1;
	case CM_PP2:
		return S_CTW_PASS_PP2;
	case CM_PP3:
		return S_CTW_PASS_PP3;
	case CM_PP4:
		return S_CTW_PASS_PP4;
	case CM_PP4_END:
		return S_CTW_PASS_PP4_END;
	case CM_PP5:
		return S_CTW_PASS_PP5;
	case CM_CS:
		return S_CTW_PASS_CS;
	case CM_CHECK:
		return S_CTW_PASS_CHECK;
	case CM_RW:
		return S_CTW_PASS_RW;
	default:
		return S_CT_OPT_PASS;
	}
}

void cttext_option(const struct ctgame *g, const struct game_step *st,
                   const struct ctgame_option *o, const char *const *names, int lang,
                   struct text *out)
{
	static const int dirs[4] = { S_CT_OPT_NORTH, S_CT_OPT_EAST, S_CT_OPT_SOUTH, S_CT_OPT_WEST };
	char a[32], b[32], c[32], d[32], e[64], sq[16];
	struct text et;

	cttext_square(g, o->arg, sq, sizeof sq);
	switch (o->what) {
	case CO_PASS:
		i18n_add(out, lang,
		         st->kind == CA_WEAPON ? S_CT_OPT_NO_WEAPON
		         : st->kind == CA_PLAY ? pass_label(ctgame_moment(g))
		                               : S_CT_OPT_PASS,
		         NULL);
		break;
	case CO_STOP:
		i18n_add(out, lang, st->kind == CA_DISCARD ? S_CT_OPT_END_TURN : S_CT_OPT_STOP,
		         NULL);
		break;
	case CO_CARD:
		i18n_add(out, lang, st->kind == CA_DISCARD ? S_CT_OPT_DISCARD : S_CT_OPT_PLAY,
		         ctnames_card(o->arg, lang), NULL);
		break;
	case CO_ITEM:
		i18n_add(out, lang, S_CT_OPT_USE, ctnames_card(o->arg, lang), NULL);
		break;
	case CO_SANCTIFY:
		i18n_add(out, lang, S_CT_OPT_SANCTIFY, NULL);
		break;
	case CO_TILE:
		if (st->kind == CA_TILE) {
			struct ctmap_option opt[CTMAP_OPTIONS_MAX];
			int tile, n = ctgame_tile_options(g, &tile, opt);
			if (o->arg < 0 || o->arg >= n)
				break;
			snprintf(a, sizeof a, "%d", o->arg + 1);
			snprintf(b, sizeof b, "%d", opt[o->arg].tx);
			snprintf(c, sizeof c, "%d", opt[o->arg].ty);
			snprintf(d, sizeof d, "%d", opt[o->arg].rot * 90);
			text_init(&et, e, sizeof e);
			exits(tile, opt[o->arg].rot, lang, &et);
			i18n_add(out, lang, S_CT_OPT_TILE, a, b, c, d, e, NULL);
		} else {
			i18n_add(out, lang, S_CT_OPT_REMOVE, ctnames_tile(o->arg, lang), NULL);
		}
		break;
	case CO_MASK: {
		int n = 0;
		while (1 << n < st->count)
			n++;
		for (int i = 0; i < n && i < (int)sizeof a - 1; i++)
			a[i] = (o->arg >> i & 1) ? (lang == I18N_NL ? 'K' : 'B') : 'H'; /* kogel */
		a[n < (int)sizeof a - 1 ? n : (int)sizeof a - 1] = '\0';
		i18n_add(out, lang, S_CT_OPT_TOKENS, a, NULL);
		break;
	}
	case CO_SQUARE:
		if (st->kind == CA_FIGURE)
			i18n_add(out, lang,
			         ctgame_figure_kind(g) == CS_BYAKHEE ? S_CT_OPT_BYAKHEE
			                                             : S_CT_OPT_CULTIST,
			         sq, NULL);
		else if (st->kind == CA_DEST)
			i18n_add(out, lang, S_CT_OPT_TO, sq, NULL);
		else
			i18n_add(out, lang, S_CT_OPT_SQUARE, sq, NULL);
		break;
	case CO_WEAPON:
		i18n_add(out, lang, S_CT_OPT_WEAPON, ctnames_card(ctgame_card_kind(o->arg), lang),
		         NULL);
		break;
	case CO_SPEND:
		snprintf(a, sizeof a, "%d", o->arg);
		i18n_add(out, lang, S_CT_OPT_SPEND, a, NULL);
		break;
	case CO_LOSE:
		i18n_add(out, lang, S_CT_OPT_LOSE, NULL);
		break;
	case CO_DIR:
		if (o->arg >= 0 && o->arg < 4)
			i18n_add(out, lang, dirs[o->arg], NULL);
		break;
	case CO_FIGURE:
		cttext_square(g, o->arg % CTMAP_SQUARES, sq, sizeof sq);
		i18n_add(out, lang, o->arg >= CTMAP_SQUARES ? S_CT_OPT_BYAKHEE : S_CT_OPT_CULTIST,
		         sq, NULL);
		break;
	case CO_TYPE:
		text_add(out, ctnames_type(o->arg, lang));
		break;
	case CO_SEAT:
		text_add(out, name_of(g, names, o->arg));
		break;
	default:
		break;
	}
}

void cttext_seat(const struct ctgame *g, int seat, int lang, struct text *out)
{
	const struct ctgame_player *p = &g->p[seat];
	char a[16], b[16], c[16], d[16], e[16], list[512], one[128];
	struct text lt, ot;
	int any = 0;

	if (p->out) {
		i18n_add(out, lang, S_CT_SEAT_OUT, NULL);
		return;
	}
	snprintf(a, sizeof a, "%d", p->hearts);
	snprintf(b, sizeof b, "%d", p->bullets);
	snprintf(c, sizeof c, "%d", p->sanity);
	snprintf(d, sizeof d, "%d", p->start);
	snprintf(e, sizeof e, "%d", p->hand);
	i18n_add(out, lang, S_CT_SEAT, a, b, c, d, e, NULL);
	snprintf(a, sizeof a, "%d", ctgame_vp(g, seat));
	i18n_add(out, lang, S_CT_SEAT_VP, a, NULL);
	text_init(&lt, list, sizeof list);
	for (int t = 0; t < CTGAME_TYPES; t++)
		if (p->relics[t]) {
			text_add(&lt, any++ ? ", " : "");
			text_addf(&lt, "%s %d", ctnames_type(t, lang), p->relics[t]);
		}
	if (!any)
		text_add(&lt, i18n_get(lang, S_CT_NONE));
	i18n_add(out, lang, S_CT_SEAT_RELICS, list, NULL);
	text_init(&lt, list, sizeof list);
	any = 0;
	for (int card = 0; card < CTGAME_CARDS; card++) {
		if (g->card_at[card] != CW_PLAY + seat)
			continue;
		text_add(&lt, any++ ? ", " : "");
		if (g->uses[card]) {
			text_init(&ot, one, sizeof one);
			snprintf(a, sizeof a, "%d", g->uses[card]);
			i18n_add(&ot, lang, S_CT_USES, ctnames_card(ctgame_card_kind(card), lang),
			         a, NULL);
			text_add(&lt, one);
		} else {
			text_add(&lt, ctnames_card(ctgame_card_kind(card), lang));
		}
	}
	if (any)
		i18n_add(out, lang, S_CT_SEAT_PLAY, list, NULL);
	text_init(&lt, list, sizeof list);
	any = 0;
	for (int i = 0; i < CTMAP_SITES; i++)
		if (p->sites >> i & 1) {
			text_add(&lt, any++ ? ", " : "");
			text_add(&lt, ctnames_tile(CTMAP_SITE_FIRST + i, lang));
		}
	if (any)
		i18n_add(out, lang, S_CT_SEAT_SITES, list, NULL);
	if (p->played)
		i18n_add(out, lang, S_CT_SEAT_PLAYED, NULL);
}

void cttext_piles(const struct ctgame *g, int lang, struct text *out)
{
	char v[10][16];
	struct ctgame_piles pl;
	ctgame_piles(g, &pl);
	snprintf(v[0], sizeof v[0], "%d", pl.tiles);
	snprintf(v[1], sizeof v[1], "%d", pl.tile_discard);
	snprintf(v[2], sizeof v[2], "%d", pl.cards);
	snprintf(v[3], sizeof v[3], "%d", pl.card_discard);
	snprintf(v[4], sizeof v[4], "%d", pl.relics);
	snprintf(v[5], sizeof v[5], "%d", pl.relic_discard);
	snprintf(v[6], sizeof v[6], "%d", g->sanctified);
	snprintf(v[7], sizeof v[7], "%d", g->activated);
	i18n_add(out, lang, S_CT_PILES, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], NULL);
	text_add(out, "\n");
	snprintf(v[0], sizeof v[0], "%d", g->cultists);
	snprintf(v[1], sizeof v[1], "%d", g->byakhee);
	snprintf(v[2], sizeof v[2], "%d", g->hearts);
	snprintf(v[3], sizeof v[3], "%d", g->bullets);
	i18n_add(out, lang, S_CT_SUPPLY, v[0], v[1], v[2], v[3], NULL);
}

void cttext_pawn(int seat, struct text *out)
{
	static const char *const discs[CTGAME_MAX] = { "🔴", "🔵", "🟢", "🟠", "🟣", "🟤" };
	if (seat >= 0 && seat < CTGAME_MAX)
		text_addf(out, "%s %d", discs[seat], seat + 1);
}

int cttext_effects(const struct ctgame *g, int lang, struct text *out)
{
	char list[512], one[256];
	struct text lt, ot;
	int fx = ctgame_effects(g), any = 0;
	static const struct {
		int bit, id, kind;
	} shown[] = {
		{ CX_ELDER, S_CT_EFFECT_ELDERSIGN, CK_ELDERSIGN },
		{ CX_NERVES, S_CT_EFFECT_NERVES, CK_NERVES },
		{ CX_JAMMED, S_CT_EFFECT_JAMMED, CK_JAMMED },
		{ CX_NO_MOVE, S_CT_EFFECT_NO_MOVE, -1 },
	};

	text_init(&lt, list, sizeof list);
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
		if (!(fx & shown[i].bit))
			continue;
		text_init(&ot, one, sizeof one);
		i18n_add(&ot, lang, shown[i].id,
		         shown[i].kind >= 0 ? ctnames_card(shown[i].kind, lang) : NULL, NULL);
		text_add(&lt, any++ ? "; " : "");
		text_add(&lt, one);
	}
	if (any)
		i18n_add(out, lang, S_CT_EFFECTS, list, NULL);
	return any;
}
