/* ctview: the private views a player asks for (only that player sees them):
 * the hand, the rules pages, a card's preview, the whole map, relics, a
 * card by name and the discard piles. */
#include "ctplay_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/ctcards.h"
#include "rlyeh/ctgame.h"
#include "rlyeh/ctnames.h"
#include "rlyeh/ctpicture.h"
#include "rlyeh/i18n.h"

/* ---- private views ---- */

/* A private reply for `user`; NULL when the list is full. */
static struct msg *private_msg(struct msg_list *out, const char *user, const struct play_ctx *c,
                               int kind)
{
	struct msg *m = msg_add(out, MSG_PRIVATE, user, kind);

	if (m) {
		m->game = c->row->id;
		text_copy(m->channel, sizeof(m->channel), c->row->channel);
	}
	return m;
}

static void refuse(struct msg_list *out, const char *user, const struct play_ctx *c,
                   const char *text)
{
	struct msg *m = private_msg(out, user, c, MSG_ERROR);

	if (m)
		text_copy(m->text, sizeof(m->text), text);
}

/* Appends "• name — short text" of card id `card` on a line of its own,
 * with the uses a limited weapon in play has left. */
static void card_line(const struct ctgame *g, int card, int lang, struct text *tx)
{
	int kind = ctgame_card_kind(card);
	char uses[16];

	text_addf(tx, "\n• %s", ctnames_card(kind, lang));
	if (g->card_at[card] >= CW_PLAY && ctgame_card(kind)->uses) {
		ctp_number(uses, sizeof(uses), g->uses[card]);
		text_add(tx, " (");
		i18n_add(tx, lang, S_CTP_HAND_USES, uses, NULL);
		text_add(tx, ")");
	}
	text_add(tx, " — ");
	ctcards_short(CTCARDS_CARD, kind, lang, tx);
}

/* A decision that names hand cards, in a private reply: the cards and
 * items in a select menu, each with its short text, the other options as
 * buttons. */
static void card_choices(const struct ctgame *g, const struct game_step *st,
                         const struct ctgame_option *o, int n, const struct play_ctx *c,
                         struct msg *m)
{
	char lab[MSG_OPTION_LABEL], val[16], desc[MSG_OPTION_DESC];

	for (int i = 0; i < n; i++)
		if (o[i].what != CO_CARD && o[i].what != CO_ITEM)
			ctp_pick_button(g, st, o, i, c, m);
	if (msg_select(m, c->row->id, c->row->moves, "pick", NULL,
	               i18n_get(c->lang, S_CTP_HAND_MENU)))
		return;
	for (int i = 0; i < n; i++) {
		if (o[i].what != CO_CARD && o[i].what != CO_ITEM)
			continue;
		ctp_label(g, st, &o[i], c, lab, sizeof(lab));
		ctp_number(val, sizeof(val), i + 1);
		ctp_describe(st, &o[i], c->lang, desc, sizeof(desc));
		msg_option(m, lab, val, desc);
	}
}

/* C4: the hand, what is in play, and when the awaited decision is the
 * member's own, every option of it (cards included). */
static void hand_view(const struct ctgame *g, const struct play_ctx *c, int who, const char *user,
                      struct msg_list *out)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	struct msg *m = private_msg(out, user, c, MSG_INFO);
	struct text tx;
	int n = ctp_pending(g, &st, o), any = 0;

	if (!m)
		return;
	text_copy(m->title, sizeof(m->title), i18n_get(c->lang, S_CTP_HAND_TITLE));
	text_init(&tx, m->text, sizeof(m->text));
	if (who < 0 || who >= g->n) {
		i18n_add(&tx, c->lang, S_CTP_NO_HAND, NULL);
		return;
	}
	for (int card = 0; card < CTGAME_CARDS; card++) {
		if (g->card_at[card] != CW_HAND + who)
			continue;
		text_add(&tx, any++ ? ", " : "");
		text_add(&tx, ctnames_card(ctgame_card_kind(card), c->lang));
	}
	if (!any)
		i18n_add(&tx, c->lang, S_CTP_HAND_EMPTY, NULL);
	for (int card = 0; card < CTGAME_CARDS; card++)
		if (g->card_at[card] == CW_HAND + who)
			card_line(g, card, c->lang, &tx);
	any = 0;
	for (int card = 0; card < CTGAME_CARDS; card++) {
		if (g->card_at[card] != CW_PLAY + who)
			continue;
		if (!any++) {
			text_add(&tx, "\n");
			i18n_add(&tx, c->lang, S_CTP_HAND_IN_PLAY, NULL);
		}
		card_line(g, card, c->lang, &tx);
	}
	if (n && ctp_member_of(g, st.seat) == who) {
		int cards = 0;
		for (int i = 0; i < n; i++)
			cards += o[i].what == CO_CARD;
		text_add(&tx, "\n");
		ctp_waiting(g, &st, c, &tx);
		if (st.kind == CA_TILE)
			ctp_menu(g, &st, o, n, 0, "place", c, m);
		else if (ctp_hidden(g, &st, o, n) && cards)
			card_choices(g, &st, o, n, c, m);
		else
			ctp_all_options(g, &st, o, n, c, m);
		if (ctp_hidden(g, &st, o, n) && !cards) { /* C14: asked whatever the hand holds */
			text_add(&tx, "\n");
			i18n_add(&tx, c->lang, S_CTP_NO_PLAYABLE, NULL);
		}
	}
}

/* A page of the awaited decision's long list. */
static void page_view(const struct ctgame *g, const struct play_ctx *c, int who,
                      const struct cmd *cmd, const char *user, struct msg_list *out)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	struct ctplay_settings s;
	char err[256], max[16];
	struct text tx;
	struct msg *m;
	int n = ctp_pending(g, &st, o), pages = (n + PAGE - 1) / PAGE, p;

	text_init(&tx, err, sizeof(err));
	if (!n || (ctp_hidden(g, &st, o, n) && ctp_member_of(g, st.seat) != who)) {
		i18n_add(&tx, c->lang, S_CTP_ERR_NOTHING, NULL);
		refuse(out, user, c, err);
		return;
	}
	ctp_number(max, sizeof(max), pages);
	if (cmd->nargs != 1 || ctp_whole(cmd->args[0], 1, pages, &p)) {
		i18n_add(&tx, c->lang, S_CTP_ERR_PAGE, cmd->nargs ? cmd->args[0] : "", max, NULL);
		refuse(out, user, c, err);
		return;
	}
	if (!(m = private_msg(out, user, c, MSG_INFO)))
		return;
	ctplay_settings(c->row->per_player, &s);
	text_init(&tx, m->text, sizeof(m->text));
	ctp_waiting(g, &st, c, &tx);
	ctp_menu(g, &st, o, n, (p - 1) * PAGE,
	         st.kind == CA_TILE ? (s.confirm ? "place" : "confirm") : "pick", c, m);
}

/* C6: the chosen placement drawn as a preview, with Confirm and Back. */
static void preview_view(const struct ctgame *g, const struct play_ctx *c, int k, const char *user,
                         struct msg_list *out)
{
	struct ctmap_option options[CTMAP_OPTIONS_MAX];
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	struct ctpicture_marks mk;
	char lab[MSG_TEXT_MAX / 4], val[16], name[MSG_PICTURE_NAME];
	unsigned char *png = NULL;
	size_t len = 0;
	struct text tx;
	struct msg *m;
	int n = ctp_pending(g, &st, o), tile;

	if (!(m = private_msg(out, user, c, MSG_INFO)))
		return;
	ctp_label(g, &st, &o[k], c, lab, sizeof(lab));
	text_init(&tx, m->text, sizeof(m->text));
	i18n_add(&tx, c->lang, S_CTP_PREVIEW, lab, NULL);
	ctp_number(val, sizeof(val), k + 1);
	msg_button(m, c->row->id, c->row->moves, "confirm", val, i18n_get(c->lang, S_CTP_CONFIRM),
	           MSG_PRIMARY);
	ctp_number(val, sizeof(val), k / PAGE + 1);
	msg_button(m, c->row->id, c->row->moves, "page", val, i18n_get(c->lang, S_CTP_BACK),
	           MSG_SECONDARY);
	ctpicture_marks_init(&mk);
	ctp_names_of(c, mk.names);
	mk.lang = i18n_code(c->lang);
	mk.n_options = ctgame_tile_options(g, &tile, options);
	mk.options = options;
	mk.tile = tile;
	mk.preview = k;
	(void)n;
	snprintf(name, sizeof(name), "preview-%lld-%d-%d.png", (long long)c->row->id, c->row->moves,
	         k + 1);
	if (ctpicture_png(g, &mk, &png, &len) == 0 && msg_picture_take(out, m, name, &png, len))
		free(png);
}

/* The whole map with the marks of the awaited decision, privately (the
 * table's picture shows the area in play); the map as text for terminals. */
static void map_view(const struct ctgame *g, const struct play_ctx *c, const char *user,
                     struct msg_list *out)
{
	struct ctmap_option options[CTMAP_OPTIONS_MAX];
	int16_t reach[CTMAP_SQUARES];
	struct ctpicture_marks mk;
	char name[MSG_PICTURE_NAME], round[16];
	unsigned char *png = NULL;
	size_t len = 0;
	char *alt;
	struct text tx;
	struct msg *m;

	if (!(m = private_msg(out, user, c, MSG_INFO)))
		return;
	ctp_number(round, sizeof(round), g->round);
	text_init(&tx, m->text, sizeof(m->text));
	i18n_add(&tx, c->lang, S_CTP_MAP_TEXT, round, NULL);
	ctp_marks_for(g, &mk, options, reach);
	ctp_names_of(c, mk.names);
	mk.lang = i18n_code(c->lang);
	mk.full = 1;
	snprintf(name, sizeof(name), "fullmap-%lld-%d.png", (long long)c->row->id, c->row->moves);
	if (ctpicture_png(g, &mk, &png, &len) < 0)
		return;
	if (msg_picture_take(out, m, name, &png, len)) {
		free(png);
		return;
	}
	alt = malloc(MSG_PICTURE_ALT_MAX + 1);
	if (alt && ctpicture_text(g, &mk, mk.lang, alt, MSG_PICTURE_ALT_MAX + 1) > 0)
		msg_picture_alt(out, m, alt);
	free(alt);
}

/* C8: the defeated player's picker: per relic type held, how many are
 * chosen to be lost so far (the command's argument), with + and −
 * buttons, and Confirm once they total the loss. */
static void relics_view(const struct ctgame *g, const struct play_ctx *c, int who,
                        const struct cmd *cmd, const char *user, struct msg_list *out)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	int n = ctp_pending(g, &st, o), lose[CTGAME_TYPES] = { 0 }, total = 0;
	char err[256], arg[64], lab[MSG_BUTTON_LABEL], num[8], line[512];
	const struct ctgame_player *p = &g->p[g->defeated];
	struct text tx, lt;
	struct msg *m;

	text_init(&tx, err, sizeof(err));
	if (!n || st.kind != CA_RELIC_LOSS) {
		i18n_add(&tx, c->lang, S_CTP_ERR_NOTHING, NULL);
		refuse(out, user, c, err);
		return;
	}
	if (ctp_need_turn(g, &st, c, who, &tx)) {
		refuse(out, user, c, err);
		return;
	}
	if (cmd->nargs == 1 && ctp_read_counts(cmd->args[0], lose)) {
		i18n_add(&tx, c->lang, S_ERR_USAGE, "/relics <a,b,c,d,e>", NULL);
		refuse(out, user, c, err);
		return;
	}
	for (int t = 0; t < CTGAME_TYPES; t++) {
		if (lose[t] > p->relics[t])
			lose[t] = p->relics[t];
		total += lose[t];
	}
	if (!(m = private_msg(out, user, c, MSG_INFO)))
		return;
	text_init(&tx, m->text, sizeof(m->text));
	text_init(&lt, line, sizeof(line));
	for (int t = 0; t < CTGAME_TYPES; t++) {
		if (!p->relics[t])
			continue;
		if (lt.len)
			text_add(&lt, " · ");
		text_addf(&lt, "%s %d/%d", ctnames_type(t, c->lang), lose[t], p->relics[t]);
	}
	ctp_number(num, sizeof(num), g->loss);
	ctp_number(arg, sizeof(arg), total);
	i18n_add(&tx, c->lang, S_CTP_RELICS_TEXT, num, line, arg, NULL);
	for (int t = 0; t < CTGAME_TYPES; t++) {
		struct text bt;
		if (!p->relics[t])
			continue;
		if (lose[t] < p->relics[t] && total < g->loss) {
			lose[t]++;
			ctp_write_counts(lose, arg, sizeof(arg));
			lose[t]--;
			text_init(&bt, lab, sizeof(lab));
			text_add(&bt, "+ ");
			text_add(&bt, ctnames_type(t, c->lang));
			msg_button(m, c->row->id, c->row->moves, "relics", arg, lab, MSG_SECONDARY);
		}
		if (lose[t] > 0) {
			lose[t]--;
			ctp_write_counts(lose, arg, sizeof(arg));
			lose[t]++;
			text_init(&bt, lab, sizeof(lab));
			text_add(&bt, "− ");
			text_add(&bt, ctnames_type(t, c->lang));
			msg_button(m, c->row->id, c->row->moves, "relics", arg, lab, MSG_SECONDARY);
		}
	}
	if (total == g->loss) {
		int keep[CTGAME_TYPES];
		for (int t = 0; t < CTGAME_TYPES; t++)
			keep[t] = p->relics[t] - lose[t];
		ctp_write_counts(keep, arg, sizeof(arg));
		msg_button(m, c->row->id, c->row->moves, "lose", arg,
		           i18n_get(c->lang, S_CTP_CONFIRM), MSG_PRIMARY);
	}
}

/* The names of refs r[0..n-1] in lang, comma separated, into tx. */
static void ref_names(const struct ctcards_ref *r, int n, int lang, struct text *tx)
{
	for (int i = 0; i < n; i++) {
		text_add(tx, i ? ", " : "");
		text_add(tx, ctcards_name(r[i].kind, r[i].id, lang));
	}
}

/* /card <name>: the printed text of what the name finds, privately; a name
 * that finds nothing, or several things, is refused with suggestions. */
static void card_view(const struct play_ctx *c, const struct cmd *cmd, const char *user,
                      struct msg_list *out)
{
	static const int kinds[CTCARDS_KINDS] = { S_CTP_CARD_KIND_CARD, S_CTP_CARD_KIND_TILE,
		                                  S_CTP_CARD_KIND_TYPE, S_CTP_CARD_KIND_SQUARE };
	struct ctcards_ref f, sg[4];
	char typed[CMD_ARGS_MAX * CMD_ARG_MAX], err[1024], names[512], what[256];
	struct text tx, nt, wt;
	struct msg *m;
	int ns, rc, other = c->lang == I18N_NL ? I18N_EN : I18N_NL;

	text_init(&tx, typed, sizeof(typed));
	for (int i = 0; i < cmd->nargs; i++) {
		text_add(&tx, i ? " " : "");
		text_add(&tx, cmd->args[i]);
	}
	text_init(&tx, err, sizeof(err));
	text_init(&nt, names, sizeof(names));
	rc = ctcards_find(typed, &f, sg, 4, &ns);
	if (rc != 1) {
		ref_names(sg, ns, c->lang, &nt);
		if (!typed[0])
			i18n_add(&tx, c->lang, S_CTP_CARD_USAGE, NULL);
		else if (rc < 0)
			i18n_add(&tx, c->lang, S_CTP_CARD_SEVERAL, typed, names, NULL);
		else {
			i18n_add(&tx, c->lang, S_CTP_CARD_UNKNOWN, typed, NULL);
			if (ns)
				i18n_add(&tx, c->lang, S_CTP_CARD_NEAREST, names, NULL);
		}
		refuse(out, user, c, err);
		return;
	}
	if (!(m = private_msg(out, user, c, MSG_INFO)))
		return;
	text_init(&wt, what, sizeof(what));
	if (f.kind == CTCARDS_CARD)
		text_addf(&wt, "%s · ", ctgame_card(f.id)->id);
	else if (f.kind == CTCARDS_TILE)
		text_addf(&wt, "%s · ", ctmap_tile(f.id)->id);
	text_add(&wt, i18n_get(c->lang, kinds[f.kind]));
	if (strcmp(ctcards_name(f.kind, f.id, c->lang), ctcards_name(f.kind, f.id, other)) != 0)
		text_addf(&wt, " · %s", ctcards_name(f.kind, f.id, other));
	text_init(&tx, m->title, sizeof(m->title));
	i18n_add(&tx, c->lang, S_CTP_CARD_TITLE, ctcards_name(f.kind, f.id, c->lang), what, NULL);
	text_init(&tx, m->text, sizeof(m->text));
	ctcards_long(f.kind, f.id, c->lang, &tx);
}

/* Appends "name ×k" to tx (just the name for one), comma separated. */
static void counted(struct text *tx, const char *name, int k)
{
	text_add(tx, tx->len ? ", " : "");
	text_add(tx, name);
	if (k > 1)
		text_addf(tx, " ×%d", k);
}

/* /discards: the face-up discard piles (§12.1, §13, B7), privately. */
static void discards_view(const struct ctgame *g, const struct play_ctx *c, const char *user,
                          struct msg_list *out)
{
	int kinds[CTGAME_KINDS] = { 0 }, types[CTGAME_TYPES] = { 0 }, ncards = 0, nrelics = 0,
	    ntiles = 0;
	char list[MSG_TEXT_MAX], num[16];
	struct text tx, lt;
	struct msg *m = private_msg(out, user, c, MSG_INFO);

	if (!m)
		return;
	for (int card = 0; card < CTGAME_CARDS; card++)
		if (g->card_at[card] == CW_DISCARD) {
			kinds[ctgame_card_kind(card)]++;
			ncards++;
		}
	for (int r = 0; r < CTGAME_RELICS; r++)
		if (g->relic_at[r] == CW_DISCARD) {
			types[r / 16]++;
			nrelics++;
		}
	text_copy(m->title, sizeof(m->title), i18n_get(c->lang, S_CTP_DISCARDS_TITLE));
	text_init(&tx, m->text, sizeof(m->text));
	text_init(&lt, list, sizeof(list));
	for (int k = 0; k < CTGAME_KINDS; k++)
		if (kinds[k])
			counted(&lt, ctnames_card(k, c->lang), kinds[k]);
	ctp_number(num, sizeof(num), ncards);
	i18n_add(&tx, c->lang, S_CTP_DISCARDS_EVENTS, num,
	         ncards ? list : i18n_get(c->lang, S_CTP_DISCARDS_EMPTY), NULL);
	text_init(&lt, list, sizeof(list));
	for (int t = 0; t < CTGAME_TYPES; t++)
		if (types[t])
			counted(&lt, ctnames_type(t, c->lang), types[t]);
	ctp_number(num, sizeof(num), nrelics);
	text_add(&tx, "\n");
	i18n_add(&tx, c->lang, S_CTP_DISCARDS_RELICS, num,
	         nrelics ? list : i18n_get(c->lang, S_CTP_DISCARDS_EMPTY), NULL);
	text_init(&lt, list, sizeof(list));
	for (int t = 0; t < CTMAP_TILES; t++)
		if (g->tile_discard >> t & 1) {
			counted(&lt, ctnames_tile(t, c->lang), 1);
			ntiles++;
		}
	ctp_number(num, sizeof(num), ntiles);
	text_add(&tx, "\n");
	i18n_add(&tx, c->lang, S_CTP_DISCARDS_TILES, num,
	         ntiles ? list : i18n_get(c->lang, S_CTP_DISCARDS_EMPTY), NULL);
}

/* Of the views, the printed texts and the discards also answer who = -1,
 * one who has no seat at the table. */
int ctp_view(const void *state, const struct play_ctx *c, int who, const struct cmd *cmd,
             const char *user, struct msg_list *out)
{
	const struct ctgame *g = state;
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	struct ctplay_settings s;
	char err[256];
	struct text tx;
	int code = play_action_code(&ctplay, cmd), n, k;

	if (who < 0 && code != ACT_CARD && code != ACT_DISCARDS)
		return 0;
	switch (code) {
	case ACT_CARD:
		card_view(c, cmd, user, out);
		return 1;
	case ACT_DISCARDS:
		discards_view(g, c, user, out);
		return 1;
	case ACT_HAND:
		hand_view(g, c, who, user, out);
		return 1;
	case ACT_PAGE:
		page_view(g, c, who, cmd, user, out);
		return 1;
	case ACT_RELICS:
		relics_view(g, c, who, cmd, user, out);
		return 1;
	case ACT_MAP:
		map_view(g, c, user, out);
		return 1;
	case ACT_PLACE:
		ctplay_settings(c->row->per_player, &s);
		n = ctp_pending(g, &st, o);
		if (!s.confirm || !n || st.kind != CA_TILE)
			return 0; /* placed at once, or refused by action */
		text_init(&tx, err, sizeof(err));
		if (ctp_need_turn(g, &st, c, who, &tx) ||
		    (k = ctp_option_number(cmd, n, c, &tx)) < 0) {
			refuse(out, user, c, err);
			return 1;
		}
		preview_view(g, c, k, user, out);
		return 1;
	default:
		return 0;
	}
}
