/* ctawait: the decision the table awaits, as the table shows it: the pending
 * options, which of them stay hidden (C4), their labels, buttons and menus,
 * and the line saying who is awaited. */
#include "ctplay_int.h"

#include <stdio.h>

#include "rlyeh/ctcards.h"
#include "rlyeh/ctgame.h"
#include "rlyeh/ctnames.h"
#include "rlyeh/cttext.h"
#include "rlyeh/i18n.h"

/* ---- the awaited decision ---- */

/* The decision awaited, its options (o[] of CTGAME_OPTIONS) and their
 * number; 0 when the game waits for no decision. */
int ctp_pending(const struct ctgame *g, struct game_step *st, struct ctgame_option *o)
{
	ctgame_step(g, st);
	if (st->node != GAME_NODE_CHOICE)
		return 0;
	return ctgame_options(g, o);
}

/* 1 when the decision's cards are listed only privately, behind the
 * "Play a card" (or "Discard") button (C4). Under secret hands (C14) that
 * rests on public facts alone (ctgame_could_play: hand size, card-played
 * flag, insanity, the moment), so that the table's buttons are the same
 * whatever the hand holds, and step 1's Automatic card is chosen privately
 * too (ctoption.c: ct_ask_anyway). A game begun before then keeps its first
 * rules: hidden when some option names a card, Automatic cards public. */
int ctp_hidden(const struct ctgame *g, const struct game_step *st, const struct ctgame_option *o,
               int n)
{
	if (g->secret && st->kind != CA_DISCARD)
		return ctgame_could_play(g);
	if (st->kind == CA_AUTOMATIC)
		return 0;
	for (int i = 0; i < n; i++)
		if (o[i].what == CO_CARD)
			return 1;
	return 0;
}

void ctp_label(const struct ctgame *g, const struct game_step *st, const struct ctgame_option *o,
               const struct play_ctx *c, char *buf, size_t cap)
{
	const char *names[CTGAME_MAX];
	struct text tx;

	ctp_names_of(c, names);
	text_init(&tx, buf, cap);
	cttext_option(g, st, o, names, c->lang, &tx);
}

void ctp_number(char *buf, size_t cap, long n)
{
	snprintf(buf, cap, "%ld", n);
}

/* The short text (ctcards) of the card, item, weapon or tile option o
 * names, into buf; "" for any other option. */
void ctp_describe(const struct game_step *st, const struct ctgame_option *o, int lang, char *buf,
                  size_t cap)
{
	struct text tx;

	text_init(&tx, buf, cap);
	switch (o->what) {
	case CO_CARD:
	case CO_ITEM:
		ctcards_short(CTCARDS_CARD, o->arg, lang, &tx);
		break;
	case CO_WEAPON:
		ctcards_short(CTCARDS_CARD, ctgame_card_kind(o->arg), lang, &tx);
		break;
	case CO_TILE:
		if (st->kind == CA_REMOVE)
			ctcards_short(CTCARDS_TILE, o->arg, lang, &tx);
		break;
	default:
		break;
	}
}

/* Adds to m a select menu of options [from, from + PAGE) for `command`
 * ("place" or "pick"), labelled; with buttons ◀ ▶ to the pages beside it
 * when there are more. */
void ctp_menu(const struct ctgame *g, const struct game_step *st, const struct ctgame_option *o,
              int n, int from, const char *command, const struct play_ctx *c, struct msg *m)
{
	char lab[MSG_OPTION_LABEL], val[16], page[16], desc[MSG_OPTION_DESC];
	int pages = (n + PAGE - 1) / PAGE, p = from / PAGE;
	struct text tx;

	if (msg_select(m, c->row->id, c->row->moves, command, NULL, NULL))
		return;
	text_init(&tx, m->select.placeholder, sizeof(m->select.placeholder));
	ctp_number(page, sizeof(page), p + 1);
	ctp_number(val, sizeof(val), pages);
	i18n_add(&tx, c->lang, S_CTP_MENU, page, val, NULL);
	for (int i = from; i < n && i < from + PAGE; i++) {
		ctp_label(g, st, &o[i], c, lab, sizeof(lab));
		ctp_number(val, sizeof(val), i + 1);
		ctp_describe(st, &o[i], c->lang, desc, sizeof(desc));
		msg_option(m, lab, val, desc);
	}
	if (p > 0) {
		ctp_number(page, sizeof(page), p);
		msg_button(m, c->row->id, c->row->moves, "page", page, "◀", MSG_SECONDARY);
	}
	if (p + 1 < pages) {
		ctp_number(page, sizeof(page), p + 2);
		msg_button(m, c->row->id, c->row->moves, "page", page, "▶", MSG_SECONDARY);
	}
}

/* Adds one "pick" button for option i. */
void ctp_pick_button(const struct ctgame *g, const struct game_step *st,
                     const struct ctgame_option *o, int i, const struct play_ctx *c, struct msg *m)
{
	char lab[MSG_BUTTON_LABEL], val[16];

	ctp_label(g, st, &o[i], c, lab, sizeof(lab));
	ctp_number(val, sizeof(val), i + 1);
	msg_button(m, c->row->id, c->row->moves, "pick", val, lab,
	           o[i].what == CO_PASS || o[i].what == CO_STOP ? MSG_SECONDARY : MSG_PRIMARY);
}

/* Every option as a button, or a menu when they are too many. */
void ctp_all_options(const struct ctgame *g, const struct game_step *st,
                     const struct ctgame_option *o, int n, const struct play_ctx *c, struct msg *m)
{
	if (n > MSG_BUTTONS_SELECT - 2) {
		ctp_menu(g, st, o, n, 0, "pick", c, m);
		return;
	}
	for (int i = 0; i < n; i++)
		ctp_pick_button(g, st, o, i, c, m);
}

/* The line asking `name` (the seat asked) to play at a CA_PLAY node, naming
 * the moment (§6.3): the play point, the fight's start, a sanity check due
 * or another's reaction window. */
static void play_point(const struct ctgame *g, const struct play_ctx *c, const char *name,
                       struct text *out)
{
	char sq[16], who[80], n[16];

	cttext_square(g, g->p[g->seat].sq, sq, sizeof(sq));
	ctp_number(n, sizeof(n), g->left);
	switch (ctgame_moment(g)) {
	case CM_PP1:
		i18n_add(out, c->lang, S_CTW_PP1, name, NULL);
		break;
	case CM_PP2:
		i18n_add(out, c->lang, S_CTW_PP2, name, NULL);
		break;
	case CM_PP3:
		i18n_add(out, c->lang, S_CTW_PP3, name, n, NULL);
		break;
	case CM_PP4:
		i18n_add(out, c->lang, S_CTW_PP4, name, n, NULL);
		break;
	case CM_PP4_END:
		i18n_add(out, c->lang, S_CTW_PP4_END, name, NULL);
		break;
	case CM_PP5:
		i18n_add(out, c->lang, S_CTW_PP5, name, NULL);
		break;
	case CM_CS:
		i18n_add(out, c->lang, g->enemy == CS_BYAKHEE ? S_CTW_CS_BYAKHEE : S_CTW_CS_CULTIST,
		         name, sq, NULL);
		break;
	case CM_CHECK:
		i18n_add(out, c->lang, S_CTW_CHECK, name, sq, NULL);
		break;
	case CM_RW:
		ctp_seat_name(g, c, g->seat, who, sizeof(who));
		ctp_number(n, sizeof(n), g->total);
		i18n_add(out, c->lang, S_CTW_RW, name, who, n, NULL);
		break;
	default:
		i18n_add(out, c->lang, S_CTP_ASK_PLAY, name, NULL);
		break;
	}
}

/* The line saying what the table waits for. */
void ctp_waiting(const struct ctgame *g, const struct game_step *st, const struct play_ctx *c,
                 struct text *out)
{
	char name[80], left[16], tile[96];
	int id;

	ctp_seat_name(g, c, st->seat, name, sizeof(name));
	ctp_number(left, sizeof(left), g->left);
	tile[0] = '\0';
	if (st->kind == CA_TILE)
		text_copy(tile, sizeof(tile), ctnames_tile(g->aux, c->lang));
	switch (st->kind) {
	case CA_AUTOMATIC:
		id = S_CTP_ASK_AUTOMATIC;
		break;
	case CA_PLAY:
		play_point(g, c, name, out);
		return;
	case CA_TILE:
		id = S_CTP_ASK_TILE;
		break;
	case CA_REMOVE:
		id = S_CTP_ASK_REMOVE;
		break;
	case CA_TOKENS:
		id = S_CTP_ASK_TOKENS;
		break;
	case CA_SITE_BYAKHEE:
		id = S_CTP_ASK_SITE_BYAKHEE;
		break;
	case CA_WEAPON:
		id = S_CTP_ASK_WEAPON;
		break;
	case CA_FAILED:
		id = S_CTP_ASK_FAILED;
		break;
	case CA_MOVE:
		id = S_CTP_ASK_MOVE;
		break;
	case CA_FIGURE:
		id = S_CTP_ASK_FIGURE;
		break;
	case CA_DEST:
		id = S_CTP_ASK_DEST;
		break;
	case CA_RESEED:
		id = S_CTP_ASK_RESEED;
		break;
	case CA_RELIC_LOSS:
		id = S_CTP_ASK_RELIC_LOSS;
		break;
	case CA_DISCARD:
		id = S_CTP_ASK_DISCARD;
		break;
	case CA_TARGET:
		id = S_CTP_ASK_TARGET;
		break;
	case CA_SQUARE:
		id = S_CTP_ASK_SQUARE;
		break;
	default:
		id = S_CTP_ASK_RELIC_TAKE;
		break;
	}
	i18n_add(out, c->lang, id, name, st->kind == CA_TILE ? tile : left, NULL);
}
