/* cttable: the table message: the map picture and its marks, the public
 * choices and the text of a game over. */
#include "ctplay_int.h"

#include <stdio.h>
#include <string.h>

#include "rlyeh/ctgame.h"
#include "rlyeh/ctpicture.h"
#include "rlyeh/cttext.h"
#include "rlyeh/i18n.h"

/* ---- the table message ---- */

/* The squares of a decision's CO_SQUARE options, for the picture. */
static int option_squares(const struct ctgame_option *o, int n, int16_t *sq)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (o[i].what == CO_SQUARE)
			sq[k++] = o[i].arg;
	return k;
}

/* The marks of the picture for the awaited decision: tile options (C6),
 * reachable squares (C9), a decision's squares. options and reach are
 * the caller's arrays (CTMAP_OPTIONS_MAX, CTMAP_SQUARES). */
void ctp_marks_for(const struct ctgame *g, struct ctpicture_marks *mk, struct ctmap_option *options,
                   int16_t *reach)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	int n = ctp_pending(g, &st, o), tile;

	ctpicture_marks_init(mk);
	if (!n)
		return;
	if (st.kind == CA_TILE) {
		mk->n_options = ctgame_tile_options(g, &tile, options);
		mk->options = options;
		mk->tile = tile;
	} else if (st.kind == CA_MOVE) {
		mk->n_reach = ctgame_reachable(g, reach);
		mk->reach = reach;
	} else {
		mk->n_reach = option_squares(o, n, reach);
		mk->reach = reach;
	}
}

int ctp_picture(const void *state, const struct play_ctx *c, unsigned char **png, size_t *len,
                char *alt, size_t altcap)
{
	struct ctmap_option options[CTMAP_OPTIONS_MAX];
	int16_t reach[CTMAP_SQUARES];
	struct ctpicture_marks mk;

	ctp_marks_for(state, &mk, options, reach);
	ctp_names_of(c, mk.names);
	mk.lang = i18n_code(c->lang);
	if (ctpicture_text(state, &mk, i18n_code(c->lang), alt, altcap) < 0)
		alt[0] = '\0';
	return ctpicture_png(state, &mk, png, len);
}

/* The buttons of the awaited decision on the public table message. */
static void public_choices(const struct ctgame *g, const struct game_step *st,
                           const struct ctgame_option *o, int n, const struct play_ctx *c,
                           struct msg *m)
{
	int64_t id = c->row->id;
	int move = c->row->moves;
	struct msg_button *b;

	switch (st->kind) {
	case CA_TILE: {
		struct ctplay_settings s;
		ctplay_settings(c->row->per_player, &s);
		ctp_menu(g, st, o, n, 0, s.confirm ? "place" : "confirm", c, m);
		return;
	}
	case CA_TOKENS: {
		static const char *const patterns[] = { "hearts", "bullets", "alternate" };
		static const int labels[] = { S_CTP_ALL_HEARTS, S_CTP_ALL_BULLETS,
			                      S_CTP_ALTERNATE };
		char hint[16];
		int k = __builtin_ctz((unsigned)n);
		for (int i = 0; i < 3; i++)
			msg_button(m, id, move, "tokens", patterns[i], i18n_get(c->lang, labels[i]),
			           MSG_PRIMARY);
		b = msg_button(m, id, move, "tokens", NULL, i18n_get(c->lang, S_CTP_CUSTOM),
		               MSG_SECONDARY);
		memset(hint, 0, sizeof(hint));
		for (int i = 0; i < k && i < 15; i++)
			hint[i] = i % 2 ? (c->lang == I18N_NL ? 'K' : 'B') : 'H'; /* K: kogel */
		if (b)
			msg_ask(m, b, i18n_get(c->lang, S_CTP_CUSTOM),
			        i18n_get(c->lang, S_CTP_PATTERN), hint, k);
		return;
	}
	case CA_RELIC_LOSS: /* C8: a private picker */
		msg_button(m, id, move, "relics", "0,0,0,0,0",
		           i18n_get(c->lang, S_CTP_RELICS_BUTTON), MSG_PRIMARY);
		return;
	case CA_MOVE: {
		char dest[32], lab[MSG_BUTTON_LABEL];
		int gx, gy;
		struct text lt;
		if (ctp_noted_walk(g, c->row->note, &gx, &gy) >= 0) {
			snprintf(dest, sizeof(dest), "%d,%d", gx, gy);
			text_init(&lt, lab, sizeof(lab));
			i18n_add(&lt, c->lang, S_CTP_CONTINUE, dest, NULL);
			msg_button(m, id, move, "move", dest, lab, MSG_PRIMARY);
		}
		for (int i = 0; i < n; i++)
			if (o[i].what == CO_DIR)
				ctp_pick_button(g, st, o, i, c, m);
		b = msg_button(m, id, move, "move", NULL, i18n_get(c->lang, S_CTP_MOVE_BUTTON),
		               MSG_PRIMARY);
		if (b)
			msg_ask(m, b, i18n_get(c->lang, S_CTP_MOVE_BUTTON),
			        i18n_get(c->lang, S_CTP_DESTINATION), "gx,gy", 16);
		for (int i = 0; i < n; i++)
			if (o[i].what == CO_STOP)
				ctp_pick_button(g, st, o, i, c, m);
		return;
	}
	case CA_FAILED: { /* C11: "Spend n bullets" is shown, disabled without them */
		struct ctgame_option spend = { .what = CO_SPEND,
			                       .arg = (int16_t)(g->kill - g->ctotal) };
		char lab[MSG_BUTTON_LABEL];
		int i = 0;
		while (i < n && o[i].what != CO_SPEND)
			i++;
		if (i == n) { /* its id picks no option: a forged click is refused */
			ctp_label(g, st, &spend, c, lab, sizeof(lab));
			msg_disable(msg_button(m, id, move, "pick", "0", lab, MSG_PRIMARY));
		}
		break;
	}
	default:
		break;
	}
	if (!ctp_hidden(g, st, o, n)) {
		ctp_all_options(g, st, o, n, c, m);
		return;
	}
	/* C4, C14: what shows no card is public; the cards are behind a
	 * private menu (its id set apart from My hand's: ids are unique on a
	 * message). */
	for (int i = 0; i < n; i++)
		if (o[i].what != CO_CARD)
			ctp_pick_button(g, st, o, i, c, m);
	msg_button(
	    m, id, move, "hand", st->kind == CA_DISCARD ? "discard" : "play",
	    i18n_get(c->lang, st->kind == CA_DISCARD ? S_CTP_DISCARD_BUTTON : S_CTP_PLAY_BUTTON),
	    MSG_PRIMARY);
}

/* The ending, the VP and the winners. */
static void over_text(const struct ctgame *g, const struct play_ctx *c, struct text *tx)
{
	char name[80], vp[16];
	int id = g->end == CE_SAVED      ? S_CTP_OVER_SAVED
	         : g->end == CE_SUMMONED ? S_CTP_OVER_SUMMONED
	         : g->end == CE_NOBODY   ? S_CTP_OVER_NOBODY
	                                 : S_CTP_OVER_CAPPED;

	i18n_add(tx, c->lang, id, NULL);
	for (int s = 0; s < g->n; s++) {
		ctp_seat_name(g, c, s, name, sizeof(name));
		ctp_number(vp, sizeof(vp), ctgame_vp(g, s));
		text_add(tx, "\n");
		i18n_add(tx, c->lang, g->winners >> s & 1 ? S_CTP_VP_WINNER : S_CTP_VP, name, vp,
		         NULL);
	}
}

void ctp_render(const void *state, const struct play_ctx *c, struct msg *m)
{
	const struct ctgame *g = state;
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	char round[16], name[80];
	struct text tx;
	int n = ctp_pending(g, &st, o);

	ctp_number(round, sizeof(round), g->round);
	text_init(&tx, m->title, sizeof(m->title));
	i18n_add(&tx, c->lang, g->end ? S_CTP_TITLE_OVER : S_CTP_TITLE, round, NULL);
	text_init(&tx, m->text, sizeof(m->text));
	for (int s = 0; s < g->n; s++) {
		ctp_seat_name(g, c, s, name, sizeof(name));
		text_add(&tx, !g->end && s == g->seat ? "▶ " : "• ");
		cttext_pawn(s, &tx);
		text_add(&tx, " ");
		text_add(&tx, name);
		text_add(&tx, ": ");
		cttext_seat(g, s, c->lang, &tx);
		text_add(&tx, "\n");
	}
	cttext_piles(g, c->lang, &tx);
	text_add(&tx, "\n");
	if (cttext_effects(g, c->lang, &tx))
		text_add(&tx, "\n");
	if (g->end) {
		over_text(g, c, &tx);
		if (g->end != CE_CAPPED) /* an unfinished game has no rematch */
			msg_button(m, c->row->id, c->row->moves, "rematch", NULL,
			           i18n_get(c->lang, S_BUTTON_REMATCH), MSG_PRIMARY);
		return;
	}
	if (n) {
		ctp_waiting(g, &st, c, &tx);
		public_choices(g, &st, o, n, c, m);
	}
	msg_button(m, c->row->id, c->row->moves, "hand", NULL, i18n_get(c->lang, S_CTP_HAND_BUTTON),
	           MSG_SECONDARY);
	msg_button(m, c->row->id, c->row->moves, "map", NULL, i18n_get(c->lang, S_CTP_MAP_BUTTON),
	           MSG_SECONDARY);
}
