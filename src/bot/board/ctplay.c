/* ctplay: the CTHULHU!!! board game at the table (§15). Every die and draw
 * is made by the bot; players answer the engine's decisions by buttons,
 * select menus and typed commands. Choices that would show a hand card are
 * only ever listed in private replies (C4). */
#include "rlyeh/ctplay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/ctcards.h"
#include "rlyeh/ctfold.h"
#include "rlyeh/ctgame.h"
#include "rlyeh/ctnames.h"
#include "rlyeh/ctpicture.h"
#include "rlyeh/cttext.h"
#include "rlyeh/i18n.h"

enum {
	ACT_PICK,
	ACT_PLACE,
	ACT_CONFIRM,
	ACT_TOKENS,
	ACT_MOVE,
	ACT_HAND,
	ACT_PAGE,
	ACT_AUTOPASS,
	ACT_WEAPON,
	ACT_RELICS,
	ACT_LOSE,
	ACT_MAP,
	ACT_CARD,
	ACT_DISCARDS,
};

static const struct play_action actions[] = {
	{ "pick",
	  "kies",
	  "CTHULHU!!!: choose option n of the decision awaited from you",
	  "CTHULHU!!!: kies optie n van de beslissing die op jou wacht",
	  { { "option", "optie", PLAY_ARG_NUMBER, 1, "The option's number",
	      "Het nummer van de optie", NULL } },
	  ACT_PICK },
	{ "place",
	  "plaats",
	  "CTHULHU!!!: place the drawn tile by its option number (a preview first)",
	  "CTHULHU!!!: leg de getrokken tegel volgens optienummer (eerst een voorbeeld)",
	  { { "option", "optie", PLAY_ARG_NUMBER, 1, "The option's number",
	      "Het nummer van de optie", NULL } },
	  ACT_PLACE },
	{ "confirm",
	  "bevestig",
	  "CTHULHU!!!: place the drawn tile by its option number, without a preview",
	  "CTHULHU!!!: leg de getrokken tegel volgens optienummer, zonder voorbeeld",
	  { { "option", "optie", PLAY_ARG_NUMBER, 1, "The option's number",
	      "Het nummer van de optie", NULL } },
	  ACT_CONFIRM },
	{ "tokens",
	  "fiches",
	  "CTHULHU!!!: a building's tokens: hearts, bullets, alternate, or H/B per square",
	  "CTHULHU!!!: de fiches van een gebouw: harten, kogels, afwisselend, of H/K per vakje",
	  { { "pattern", "patroon", PLAY_ARG_TEXT, 1, "hearts, bullets, alternate or e.g. HBBH",
	      "harten, kogels, afwisselend of bijv. HKKH", NULL } },
	  ACT_TOKENS },
	{ "move",
	  "ga",
	  "CTHULHU!!!: walk to square gx,gy, optionally through waypoints",
	  "CTHULHU!!!: loop naar vakje gx,gy, eventueel via tussenpunten",
	  { { "to", "naar", PLAY_ARG_TEXT, 1, "The destination gx,gy", "De bestemming gx,gy",
	      NULL },
	    { "via", "via", PLAY_ARG_TEXT, 0, "Waypoints gx,gy in order, space separated",
	      "Tussenpunten gx,gy op volgorde, gescheiden door spaties", NULL } },
	  ACT_MOVE },
	{ "hand",
	  "hand",
	  "CTHULHU!!!: your cards and the choices they give you (only you see them)",
	  "CTHULHU!!!: je kaarten en de keuzes die ze je geven (alleen jij ziet ze)",
	  { { 0 } },
	  ACT_HAND },
	{ "page",
	  "pagina",
	  "CTHULHU!!!: another page of a long list of options (only you see it)",
	  "CTHULHU!!!: een andere pagina van een lange lijst opties (alleen jij ziet hem)",
	  { { "page", "pagina", PLAY_ARG_NUMBER, 1, "The page", "De pagina", NULL } },
	  ACT_PAGE },
	{ "autopass",
	  "autopas",
	  "CTHULHU!!!: pass other players' reaction windows without being asked (on/off)",
	  "CTHULHU!!!: pas bij reactievensters van anderen zonder vraag (aan/uit)",
	  { { "state", "stand", PLAY_ARG_TEXT, 1, "on or off", "aan of uit", "on,off" } },
	  ACT_AUTOPASS },
	{ "weapon",
	  "wapen",
	  "CTHULHU!!!: the weapon of a combat roll: ask every roll, or auto (standing preference)",
	  "CTHULHU!!!: het wapen van een gevechtsworp: vragen bij elke worp, of automatisch",
	  { { "choice", "keuze", PLAY_ARG_TEXT, 1, "ask or auto", "vragen of automatisch",
	      "ask,auto" } },
	  ACT_WEAPON },
	{ "relics",
	  "relikwieen",
	  "CTHULHU!!!: after a defeat, choose the relics to lose (only you see it)",
	  "CTHULHU!!!: kies na een nederlaag de relikwieën die je verliest (alleen jij ziet het)",
	  { { "lose", "verlies", PLAY_ARG_TEXT, 0, "Relics to lose per type, e.g. 1,0,1,0,0",
	      "Te verliezen relikwieën per soort, bijv. 1,0,1,0,0", NULL } },
	  ACT_RELICS },
	{ "lose",
	  "verlies",
	  "CTHULHU!!!: after a defeat, lose relics down to these counts per type",
	  "CTHULHU!!!: verlies na een nederlaag relikwieën tot deze aantallen per soort",
	  { { "keep", "houd", PLAY_ARG_TEXT, 1, "Relics kept per type, e.g. 1,0,2,0,0",
	      "Relikwieën die je houdt per soort, bijv. 1,0,2,0,0", NULL } },
	  ACT_LOSE },
	{ "map",
	  "plattegrond",
	  "CTHULHU!!!: the whole map as a picture (only you see it)",
	  "CTHULHU!!!: de hele kaart als afbeelding (alleen jij ziet hem)",
	  { { 0 } },
	  ACT_MAP },
	{ "card",
	  "kaart",
	  "CTHULHU!!!: what a card, tile, relic type or square says (only you see it)",
	  "CTHULHU!!!: wat een kaart, tegel, relikwiesoort of vakje zegt (alleen jij ziet het)",
	  { { "name", "naam", PLAY_ARG_TEXT, 1, "Its name, in English or Dutch",
	      "De naam, in het Engels of Nederlands", "@complete" } },
	  ACT_CARD },
	{ "discards",
	  "aflegstapel",
	  "CTHULHU!!!: the discard piles: event cards, relics, map tiles (only you see it)",
	  "CTHULHU!!!: de aflegstapels: kaarten, relikwieën, kaarttegels (alleen jij ziet het)",
	  { { 0 } },
	  ACT_DISCARDS },
};

/* The rules pages after S_CTP_RULES. */
static const int rules_more[] = { S_CTP_RULES_TURN, S_CTP_RULES_COMBAT, S_CTP_RULES_SITES,
	                          S_CTP_RULES_COMMANDS, 0 };

#define PAGE MSG_OPTIONS_MAX /* options on one page of a select menu */

/* ---- settings ---- */

void ctplay_settings(int packed, struct ctplay_settings *out)
{
	unsigned v = (unsigned)packed;
	unsigned w = v >> 12 & 63, q = v >> 18 & 127, d = v >> 25 & 63;

	out->cap = (int)(v & 1023);
	out->manual = (int)(v >> 10 & 1);
	out->confirm = !(v >> 11 & 1);
	out->window_s = w ? (int)w - 1 : -1;
	out->quick_s = q ? (int)q * 5 : -1;
	out->decision_s = d ? (int)d * 10 : -1;
}

/* Reads a whole number in [lo, hi]; -1 when s is not one. */
static int whole(const char *s, int lo, int hi, int *out)
{
	char *end;
	long n;

	if (!s[0] || s[0] == '-' || s[0] == '+')
		return -1;
	n = strtol(s, &end, 10);
	if (*end || n < lo || n > hi)
		return -1;
	*out = (int)n;
	return 0;
}

/* 1 when word is `en` or `nl`, in any case. */
static int is(const char *word, const char *en, const char *nl)
{
	return text_casecmp(word, en) == 0 || text_casecmp(word, nl) == 0;
}

int ctplay_setting(const char *word, int *packed)
{
	char key[32];
	const char *val = strpbrk(word, ":=");
	unsigned v = (unsigned)*packed;
	int n;

	if (!val || (size_t)(val - word) >= sizeof(key))
		return -1;
	memcpy(key, word, (size_t)(val - word));
	key[val - word] = '\0';
	val++;
	if (is(key, "cap", "rondes")) {
		if (is(val, "off", "uit"))
			n = 0;
		else if (whole(val, 1, CTPLAY_CAP_MAX, &n))
			return -1;
		v = (v & ~1023u) | (unsigned)n;
	} else if (is(key, "enemies", "vijanden")) {
		if (!is(val, "auto", "automatisch") && !is(val, "manual", "handmatig"))
			return -1;
		v = (v & ~(1u << 10)) | (is(val, "manual", "handmatig") ? 1u << 10 : 0);
	} else if (is(key, "confirm", "bevestigen")) {
		if (!is(val, "on", "aan") && !is(val, "off", "uit"))
			return -1;
		v = (v & ~(1u << 11)) | (is(val, "off", "uit") ? 1u << 11 : 0);
	} else if (is(key, "window", "venster")) {
		if (is(val, "off", "uit"))
			n = 0;
		else if (whole(val, 0, CTPLAY_WINDOW_MAX, &n))
			return -1;
		v = (v & ~(63u << 12)) | (unsigned)(n + 1) << 12;
	} else if (is(key, "quick", "snel")) {
		if (whole(val, 5, CTPLAY_QUICK_MAX, &n) || n % 5)
			return -1;
		v = (v & ~(127u << 18)) | (unsigned)(n / 5) << 18;
	} else if (is(key, "decision", "beslissing")) {
		if (whole(val, 10, CTPLAY_DECISION_MAX, &n) || n % 10)
			return -1;
		v = (v & ~(63u << 25)) | (unsigned)(n / 10) << 25;
	} else {
		return -1;
	}
	*packed = (int)v;
	return 0;
}

static int option(const char *word, struct store_game *row)
{
	return ctplay_setting(word, &row->per_player);
}

/* C14: every table opened from now on keeps hands secret. */
static void stamp(struct store_game *row)
{
	row->revision = CTGAME_REV_SECRET;
}

static void members(const struct store_game *row, int *min, int *max)
{
	(void)row;
	*min = CTGAME_MIN;
	*max = CTGAME_MAX;
}

static void setup(const struct store_game *row, int nm, struct game_setup *out)
{
	struct ctplay_settings s;

	ctplay_settings(row->per_player, &s);
	memset(out, 0, sizeof(*out));
	out->players = nm;
	out->rounds = s.cap;
	out->revision = row->revision; /* 0 for a table opened before C14's secrecy */
}

static int member_of(const void *state, int seat)
{
	(void)state;
	return seat >= 0 ? seat : -1;
}

static void seat_name(const void *state, const struct play_ctx *c, int seat, char *buf, size_t cap)
{
	(void)state;
	snprintf(buf, cap, "%s", seat >= 0 && seat < c->nm ? c->m[seat].name : "?");
}

/* The seats' names for cttext. */
static void names_of(const struct play_ctx *c, const char *names[CTGAME_MAX])
{
	for (int i = 0; i < CTGAME_MAX; i++)
		names[i] = i < c->nm ? c->m[i].name : "?";
}

/* ---- the awaited decision ---- */

/* The decision awaited, its options (o[] of CTGAME_OPTIONS) and their
 * number; 0 when the game waits for no decision. */
static int pending(const struct ctgame *g, struct game_step *st, struct ctgame_option *o)
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
 * too (ctgame.c: ask_anyway). A game begun before then keeps its first
 * rules: hidden when some option names a card, Automatic cards public. */
static int hidden(const struct ctgame *g, const struct game_step *st, const struct ctgame_option *o,
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

static void label(const struct ctgame *g, const struct game_step *st, const struct ctgame_option *o,
                  const struct play_ctx *c, char *buf, size_t cap)
{
	const char *names[CTGAME_MAX];
	struct text tx;

	names_of(c, names);
	text_init(&tx, buf, cap);
	cttext_option(g, st, o, names, c->lang, &tx);
}

static void number(char *buf, size_t cap, long n)
{
	snprintf(buf, cap, "%ld", n);
}

/* The short text (ctcards) of the card, item, weapon or tile option o
 * names, into buf; "" for any other option. */
static void describe(const struct game_step *st, const struct ctgame_option *o, int lang, char *buf,
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
static void menu(const struct ctgame *g, const struct game_step *st, const struct ctgame_option *o,
                 int n, int from, const char *command, const struct play_ctx *c, struct msg *m)
{
	char lab[MSG_OPTION_LABEL], val[16], page[16], desc[MSG_OPTION_DESC];
	int pages = (n + PAGE - 1) / PAGE, p = from / PAGE;
	struct text tx;

	if (msg_select(m, c->row->id, c->row->moves, command, NULL, NULL))
		return;
	text_init(&tx, m->select.placeholder, sizeof(m->select.placeholder));
	number(page, sizeof(page), p + 1);
	number(val, sizeof(val), pages);
	i18n_add(&tx, c->lang, S_CTP_MENU, page, val, NULL);
	for (int i = from; i < n && i < from + PAGE; i++) {
		label(g, st, &o[i], c, lab, sizeof(lab));
		number(val, sizeof(val), i + 1);
		describe(st, &o[i], c->lang, desc, sizeof(desc));
		msg_option(m, lab, val, desc);
	}
	if (p > 0) {
		number(page, sizeof(page), p);
		msg_button(m, c->row->id, c->row->moves, "page", page, "◀", MSG_SECONDARY);
	}
	if (p + 1 < pages) {
		number(page, sizeof(page), p + 2);
		msg_button(m, c->row->id, c->row->moves, "page", page, "▶", MSG_SECONDARY);
	}
}

/* Adds one "pick" button for option i. */
static void pick_button(const struct ctgame *g, const struct game_step *st,
                        const struct ctgame_option *o, int i, const struct play_ctx *c,
                        struct msg *m)
{
	char lab[MSG_BUTTON_LABEL], val[16];

	label(g, st, &o[i], c, lab, sizeof(lab));
	number(val, sizeof(val), i + 1);
	msg_button(m, c->row->id, c->row->moves, "pick", val, lab,
	           o[i].what == CO_PASS || o[i].what == CO_STOP ? MSG_SECONDARY : MSG_PRIMARY);
}

/* Every option as a button, or a menu when they are too many. */
static void all_options(const struct ctgame *g, const struct game_step *st,
                        const struct ctgame_option *o, int n, const struct play_ctx *c,
                        struct msg *m)
{
	if (n > MSG_BUTTONS_SELECT - 2) {
		menu(g, st, o, n, 0, "pick", c, m);
		return;
	}
	for (int i = 0; i < n; i++)
		pick_button(g, st, o, i, c, m);
}

/* The line asking `name` (the seat asked) to play at a CA_PLAY node, naming
 * the moment (§6.3): the play point, the fight's start, a sanity check due
 * or another's reaction window. */
static void play_point(const struct ctgame *g, const struct play_ctx *c, const char *name,
                       struct text *out)
{
	char sq[16], who[80], n[16];

	cttext_square(g, g->p[g->seat].sq, sq, sizeof(sq));
	number(n, sizeof(n), g->left);
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
		seat_name(g, c, g->seat, who, sizeof(who));
		number(n, sizeof(n), g->total);
		i18n_add(out, c->lang, S_CTW_RW, name, who, n, NULL);
		break;
	default:
		i18n_add(out, c->lang, S_CTP_ASK_PLAY, name, NULL);
		break;
	}
}

/* The line saying what the table waits for. */
static void waiting(const struct ctgame *g, const struct game_step *st, const struct play_ctx *c,
                    struct text *out)
{
	char name[80], left[16], tile[96];
	int id;

	seat_name(g, c, st->seat, name, sizeof(name));
	number(left, sizeof(left), g->left);
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

/* ---- actions ---- */

/* Reads "gx,gy" at *p (blanks around allowed), advancing *p past it. */
static int read_xy(const char **p, int *gx, int *gy)
{
	char *end;
	long x, y;

	while (**p == ' ')
		(*p)++;
	x = strtol(*p, &end, 10);
	if (end == *p || *end != ',' || x < -99 || x > 99)
		return -1;
	*p = end + 1;
	y = strtol(*p, &end, 10);
	if (end == *p || y < -99 || y > 99 || (*end && *end != ' '))
		return -1;
	*p = end;
	*gx = (int)x;
	*gy = (int)y;
	return 0;
}

/* The square at "gx,gy" text s, alone; -1 when s is not that or no square. */
static int square_at(const struct ctgame *g, const char *s)
{
	int gx, gy;

	if (read_xy(&s, &gx, &gy))
		return -1;
	while (*s == ' ')
		s++;
	return *s ? -1 : ctmap_find(&g->map, gx, gy);
}

/* The walk's next target: the first waypoint of `via` not yet reached
 * (reached ones are dropped from via, which is rewritten; NULL for none),
 * else `to`. -1 when some point is not a square of the map. */
static int next_target(const struct ctgame *g, int here, const char *to, char *via)
{
	const char *p = via ? via : "";
	int gx, gy, sq;

	while (*p == ' ')
		p++;
	while (*p) {
		const char *start = p;
		if (read_xy(&p, &gx, &gy) || (sq = ctmap_find(&g->map, gx, gy)) < 0)
			return -1;
		if (sq != here) {
			memmove(via, start, strlen(start) + 1);
			return sq;
		}
		while (*p == ' ')
			p++;
	}
	if (via)
		via[0] = '\0';
	return square_at(g, to);
}

/* Checks a walk before its first step: every waypoint of `via` (NULL for
 * none) and `to` must be a square of the map. 0 when they are; else -1,
 * with the first point that is not one copied to bad. */
static int walk_points(const struct ctgame *g, const char *to, const char *via, char *bad,
                       size_t badcap)
{
	const char *p = via ? via : "";
	int gx, gy;

	while (*p == ' ')
		p++;
	while (*p) {
		const char *start = p;
		if (read_xy(&p, &gx, &gy) || ctmap_find(&g->map, gx, gy) < 0) {
			snprintf(bad, badcap, "%.*s", (int)strcspn(start, " "), start);
			return -1;
		}
		while (*p == ' ')
			p++;
	}
	if (square_at(g, to) < 0) {
		snprintf(bad, badcap, "%s", to);
		return -1;
	}
	return 0;
}

/* The waypoints of a walk command: its arguments after the destination
 * (typed one by one, or one argument of several), blank separated, in
 * via[0..cap-1] (cut to fit). */
static void join_via(const struct cmd *cmd, char *via, size_t cap)
{
	struct text tx;

	text_init(&tx, via, cap);
	for (int i = 1; i < cmd->nargs; i++) {
		if (i > 1)
			text_add(&tx, " ");
		text_add(&tx, cmd->args[i]);
	}
}

/* C10 for a whole walk: each waypoint of `via` (NULL for none) in order,
 * then `to`, on C10's routes within the points left, the figures as they
 * stand. Returns -1 when it fits, else the first point out of reach. All
 * points must be squares (walk_points). */
static int walk_short(const struct ctgame *g, const char *to, const char *via)
{
	uint8_t enemy[CTMAP_BITMAP_BYTES] = { 0 }, dirs[CTMAP_SQUARES];
	const char *p = via ? via : "";
	int from = g->p[g->seat].sq, left = g->left, gx, gy, sq, len;

	for (int q = 0; q < CTMAP_SQUARES; q++)
		if (g->square[q] & (CS_CULTIST | CS_BYAKHEE))
			ctmap_bit_set(enemy, q);
	for (;;) {
		while (*p == ' ')
			p++;
		if (*p) {
			if (read_xy(&p, &gx, &gy))
				return -1;
			sq = ctmap_find(&g->map, gx, gy);
		} else {
			sq = square_at(g, to);
		}
		if (sq < 0)
			return -1;
		len = sq == from ? 0 : ctmap_route(&g->map, from, sq, enemy, left, dirs);
		if (len < 0)
			return sq;
		from = sq;
		left -= len;
		if (!*p)
			return -1;
	}
}

/* The option index of the first step from the pawn to `to`; -1 when
 * `to` is out of reach (or is where the pawn stands). */
static int first_step(const struct ctgame *g, const struct ctgame_option *o, int n, int to)
{
	uint8_t dirs[CTMAP_SQUARES];
	int len = ctgame_route(g, to, dirs);

	if (len <= 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (o[i].what == CO_DIR && o[i].arg == dirs[0])
			return i;
	return -1;
}

/* The token mask a pattern gives over k interior squares; -1 if none. */
static int token_mask(const char *s, int k)
{
	int full = (1 << k) - 1, mask = 0, n = 0;

	if (is(s, "hearts", "harten"))
		return 0;
	if (is(s, "bullets", "kogels"))
		return full;
	if (is(s, "alternate", "afwisselend"))
		return 0xa & full;
	for (; *s; s++) {
		char ch = *s >= 'a' ? (char)(*s - 32) : *s;
		if (n >= k || (ch != 'H' && ch != 'B' && ch != 'K'))
			return -1;
		if (ch != 'H')
			mask |= 1 << n;
		n++;
	}
	return n == k ? mask : -1;
}

/* Reads CTGAME_TYPES counts "a,b,c,d,e" (each 0..99) into n; -1 when s
 * is not that (n undefined then). */
static int read_counts(const char *s, int *n)
{
	for (int t = 0; t < CTGAME_TYPES; t++) {
		int d = 0;
		while (d < 2 && s[d] >= '0' && s[d] <= '9')
			d++;
		if (!d || s[d] != (t + 1 < CTGAME_TYPES ? ',' : '\0'))
			return -1;
		n[t] = d == 1 ? s[0] - '0' : (s[0] - '0') * 10 + s[1] - '0';
		s += d + 1;
	}
	return 0;
}

_Static_assert(CTGAME_TYPES == 5, "write_counts writes five counts");

/* Writes five counts as read_counts reads them; buf has room for any
 * five ints (64 bytes). */
static void write_counts(const int *n, char *buf, size_t cap)
{
	snprintf(buf, cap, "%d,%d,%d,%d,%d", n[0], n[1], n[2], n[3], n[4]);
}

/* C8: the option that brings the defeated seat's relics down toward
 * `keep` (counts per type); -1 when none does (nothing more to lose). */
static int lose_step(const struct ctgame *g, const struct ctgame_option *o, int n, const int *keep)
{
	for (int i = 0; i < n; i++)
		if (o[i].what == CO_TYPE && g->p[g->defeated].relics[o[i].arg] > keep[o[i].arg])
			return i;
	return -1;
}

/* Refuses unless the awaited decision is member who's; 0 when it is. */
static int need_turn(const struct ctgame *g, const struct game_step *st, const struct play_ctx *c,
                     int who, struct text *err)
{
	char name[80];

	if (st->node != GAME_NODE_CHOICE) {
		i18n_add(err, c->lang, S_CTP_ERR_NOTHING, NULL);
		return -1;
	}
	if (member_of(g, st->seat) != who) {
		seat_name(g, c, st->seat, name, sizeof(name));
		i18n_add(err, c->lang, S_CTP_ERR_NOT_YOURS, name, NULL);
		return -1;
	}
	return 0;
}

/* What the table awaits from member who (play.h: awaits): the decision
 * and the commands that answer it. */
static int awaits(const void *state, const struct play_ctx *c, int who, struct text *out)
{
	const struct ctgame *g = state;
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	char line[256], name[80];
	const char *typed, *ask;
	struct text lt;
	int n = pending(g, &st, o);

	if (st.node != GAME_NODE_CHOICE || member_of(g, st.seat) != who)
		return 0;
	if (st.kind == CA_TILE)
		typed = "/place n, /confirm n";
	else if (st.kind == CA_TOKENS)
		typed = "/tokens hearts|bullets|alternate|HBBH";
	else if (st.kind == CA_MOVE)
		typed = "/move gx,gy";
	else if (st.kind == CA_RELIC_LOSS)
		typed = "/relics, /lose a,b,c,d,e";
	else if (n > 0 && o[0].what == CO_SQUARE)
		typed = "/pick n, /move gx,gy";
	else if (hidden(g, &st, o, n))
		typed = "/hand, /pick n";
	else
		typed = "/pick n";
	text_init(&lt, line, sizeof(line));
	waiting(g, &st, c, &lt);
	seat_name(g, c, st.seat, name, sizeof(name));
	ask = line;
	if (strncmp(ask, name, strlen(name)) == 0 && strncmp(ask + strlen(name), ": ", 2) == 0)
		ask += strlen(name) + 2; /* the question without "<name>: " */
	i18n_add(out, c->lang, S_CTP_AWAITS, ask, typed, NULL);
	return 1;
}

/* Refuses a command that does not answer the awaited decision: what the
 * table waits for from member who, or, when nothing is, whose decision it
 * is. */
static int wrong_step(const struct ctgame *g, const struct game_step *st, const struct play_ctx *c,
                      int who, struct text *err)
{
	if (!awaits(g, c, who, err))
		need_turn(g, st, c, who, err);
	return -1;
}

/* Option number arg (1..n) as an index; -1 after refusing. */
static int option_number(const struct cmd *cmd, int n, const struct play_ctx *c, struct text *err)
{
	char max[16];
	int k;

	number(max, sizeof(max), n);
	if (cmd->nargs != 1 || whole(cmd->args[0], 1, n, &k)) {
		i18n_add(err, c->lang, S_CTP_ERR_OPTION, cmd->nargs ? cmd->args[0] : "", max, NULL);
		return -1;
	}
	return k - 1;
}

static int action(const void *state, const struct play_ctx *c, int who, const struct cmd *cmd,
                  int *value, struct text *err)
{
	const struct ctgame *g = state;
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	int code = play_action_code(&ctplay, cmd), n = pending(g, &st, o), k;

	if (code < 0 || code == ACT_HAND || code == ACT_PAGE || code == ACT_RELICS)
		return wrong_step(g, &st, c, who, err);
	if (need_turn(g, &st, c, who, err))
		return -1;
	switch (code) {
	case ACT_PICK:
		k = option_number(cmd, n, c, err);
		break;
	case ACT_PLACE:
	case ACT_CONFIRM:
		if (st.kind != CA_TILE) {
			return wrong_step(g, &st, c, who, err);
		}
		k = option_number(cmd, n, c, err);
		break;
	case ACT_LOSE: {
		int keep[CTGAME_TYPES], lose = 0;
		const struct ctgame_player *p = &g->p[g->defeated];
		if (st.kind != CA_RELIC_LOSS) {
			return wrong_step(g, &st, c, who, err);
		}
		if (cmd->nargs != 1 || read_counts(cmd->args[0], keep)) {
			i18n_add(err, c->lang, S_ERR_USAGE, "/lose <a,b,c,d,e>", NULL);
			return -1;
		}
		for (int t = 0; t < CTGAME_TYPES; t++)
			lose += keep[t] <= p->relics[t] ? p->relics[t] - keep[t] : 100;
		if (lose != g->loss) {
			char want[8];
			number(want, sizeof(want), g->loss);
			i18n_add(err, c->lang, S_CTP_ERR_LOSE, cmd->args[0], want, NULL);
			return -1;
		}
		k = lose_step(g, o, n, keep);
		break;
	}
	case ACT_TOKENS:
		if (st.kind != CA_TOKENS) {
			return wrong_step(g, &st, c, who, err);
		}
		k = cmd->nargs == 1 ? token_mask(cmd->args[0], __builtin_ctz((unsigned)n)) : -1;
		if (k < 0 || k >= n) {
			char squares[8];
			number(squares, sizeof(squares), __builtin_ctz((unsigned)n));
			i18n_add(err, c->lang, S_CTP_ERR_TOKENS, cmd->nargs ? cmd->args[0] : "",
			         squares, NULL);
			return -1;
		}
		break;
	case ACT_MOVE: {
		char via[CMD_ARG_MAX] = "", bad[CMD_ARG_MAX];
		int to;
		if (st.kind != CA_MOVE && cmd->nargs == 1 && n > 0 && o[0].what == CO_SQUARE) {
			/* A square picked by its coordinates (C12: an enemy's
			 * destination; a card's square; a site's byakhee). */
			to = square_at(g, cmd->args[0]);
			for (k = 0; to >= 0 && k < n && (o[k].what != CO_SQUARE || o[k].arg != to);
			     k++)
				;
			if (to < 0 || k == n) {
				i18n_add(err, c->lang, S_CTP_ERR_NOT_OFFERED, cmd->args[0], NULL);
				return -1;
			}
			break;
		}
		if (st.kind != CA_MOVE) {
			return wrong_step(g, &st, c, who, err);
		}
		if (cmd->nargs < 1) {
			i18n_add(err, c->lang, S_ERR_USAGE, "/move <to gx,gy> [<via gx,gy> …]",
			         NULL);
			return -1;
		}
		join_via(cmd, via, sizeof(via));
		/* Every point is checked before the first step, and a refusal
		 * names the point at fault, not the whole list. */
		if (walk_points(g, cmd->args[0], via, bad, sizeof(bad))) {
			i18n_add(err, c->lang, S_CTP_ERR_SQUARE, bad, NULL);
			return -1;
		}
		if (!via[0] && square_at(g, cmd->args[0]) == g->p[st.seat].sq) {
			cttext_square(g, g->p[st.seat].sq, bad, sizeof(bad));
			i18n_add(err, c->lang, S_CTP_ERR_HERE, bad, NULL);
			return -1;
		}
		to = walk_short(g, cmd->args[0], via);
		if (to >= 0) {
			char left[16];
			number(left, sizeof(left), g->left);
			cttext_square(g, to, bad, sizeof(bad));
			i18n_add(err, c->lang, S_CTP_ERR_UNREACHABLE, bad, left, NULL);
			return -1;
		}
		to = next_target(g, g->p[st.seat].sq, cmd->args[0], via);
		k = to < 0 ? -1 : first_step(g, o, n, to);
		if (k < 0) {
			i18n_add(err, c->lang, S_CTP_ERR_NOTHING,
			         NULL); /* cannot happen: it fits */
			return -1;
		}
		break;
	}
	default:
		k = -1;
		break;
	}
	if (k < 0)
		return -1;
	*value = k;
	return 0;
}

/* The table's note while a walk interrupted by a fight can go on (C10):
 * the turn it belongs to and its destination. */
static int walk_note(const struct ctgame *g, int gx, int gy)
{
	return (int)((g->turns + 1) % 32768) << 16 | (gx + 128) << 8 | (gy + 128);
}

/* The note that hands the rest of the turn's enemy moves to the hunt
 * policy (C12: a manual enemy move timed out). */
static int hunt_note(const struct ctgame *g)
{
	return (int)((g->turns + 1) % 32768) << 16 | 0xffff;
}

/* The destination square of a note that belongs to g's turn in progress
 * and its movement, while the pawn is not there; -1 otherwise. */
static int noted_walk(const struct ctgame *g, int note, int *gx, int *gy)
{
	struct game_step st;
	int sq;

	ctgame_step(g, &st);
	if (!note || st.node != GAME_NODE_CHOICE || st.kind != CA_MOVE ||
	    (note >> 16) != (int)((g->turns + 1) % 32768))
		return -1;
	*gx = (note >> 8 & 255) - 128;
	*gy = (note & 255) - 128;
	sq = ctmap_find(&g->map, *gx, *gy);
	return sq == g->p[st.seat].sq ? -1 : sq;
}

/* C10: a walk goes on step by step until it arrives, a fight stops it (the
 * note then keeps its destination for Continue), or the game asks
 * something else. */
static int follow(const void *state, const struct play_ctx *c, int who, struct cmd *cmd,
                  const struct game_event *ev, int nev, int *value, int *note)
{
	const struct ctgame *g = state;
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	int n = pending(g, &st, o), to, k, gx, gy, fight = 0;
	const char *p;

	(void)c;
	if (play_action_code(&ctplay, cmd) == ACT_LOSE) { /* C8: every relic of the choice */
		int keep[CTGAME_TYPES];
		(void)ev;
		(void)nev;
		if (n == 0 || st.kind != CA_RELIC_LOSS || member_of(g, st.seat) != who ||
		    read_counts(cmd->args[0], keep) || (k = lose_step(g, o, n, keep)) < 0)
			return 0;
		*value = k;
		return 1;
	}
	if (play_action_code(&ctplay, cmd) != ACT_MOVE || cmd->nargs < 1)
		return 0;
	if (cmd->nargs > 2) { /* the waypoints as one argument, which next_target rewrites */
		char via[CMD_ARG_MAX];
		join_via(cmd, via, sizeof(via));
		text_copy(cmd->args[1], sizeof(cmd->args[1]), via);
		cmd->nargs = 2;
	}
	*note = 0;
	for (int i = 0; i < nev; i++)
		fight |= ev[i].kind == CV_FIGHT;
	p = cmd->args[0];
	if (fight) {
		/* Whatever the fight asks first (a card, a roll's choice), the
		 * walk can go on after it while this turn's movement lasts. */
		if (!g->end && read_xy(&p, &gx, &gy) == 0 &&
		    ctmap_find(&g->map, gx, gy) != g->p[who].sq)
			*note = walk_note(g, gx, gy);
		return 0;
	}
	if (n == 0 || st.kind != CA_MOVE || member_of(g, st.seat) != who)
		return 0;
	to = next_target(g, g->p[st.seat].sq, cmd->args[0], cmd->nargs == 2 ? cmd->args[1] : NULL);
	if (to < 0 || to == g->p[st.seat].sq || (k = first_step(g, o, n, to)) < 0)
		return 0;
	*value = k;
	return 1;
}

static int auto_roll(const void *state, const struct game_step *step)
{
	(void)state;
	(void)step;
	return 1; /* every die and draw belongs to what came before it */
}

/* ---- timing and what the table settles itself ---- */

static int settle(const void *state, const struct play_ctx *c, const struct game_step *step,
                  int *value)
{
	const struct ctgame *g = state;
	struct ctplay_settings s;

	ctplay_settings(c->row->per_player, &s);
	switch (step->kind) {
	case CA_WEAPON: /* C11: the standing preference, unless asked for */
		if (step->seat >= 0 && step->seat < c->nm &&
		    c->m[step->seat].prefs & CTPLAY_PREF_ASK_WEAPON)
			return 0;
		*value = ctgame_default(g);
		return 1;
	case CA_SITE_BYAKHEE: /* C7: asked only under manual control */
		if (s.manual)
			return 0;
		*value = ctgame_default(g);
		return 1;
	case CA_FIGURE:
	case CA_DEST:
	case CA_RESEED: /* C12 */
		if (!ctgame_enemy_move(g) || (s.manual && c->row->note != hunt_note(g)))
			return 0;
		*value = ctgame_hunt(g);
		return 1;
	case CA_PLAY: /* a reaction window that is off, or that the player passes */
		if (ctgame_moment(g) != CM_RW ||
		    (s.window_s != 0 && !(step->seat >= 0 && step->seat < c->nm &&
		                          c->m[step->seat].prefs & CTPLAY_PREF_AUTOPASS)))
			return 0;
		*value = ctgame_default(g);
		return 1;
	default:
		return 0;
	}
}

/* C15: the default of the decision; after a fight that stopped a walk,
 * the walk goes on ("Continue"); under manual enemy control the hunt
 * policy takes over the rest of the turn's enemy moves (C12). */
static int timeout_value(const void *state, const struct play_ctx *c, const struct game_step *step,
                         struct cmd *more, int *go, int *note)
{
	const struct ctgame *g = state;
	struct ctgame_option o[CTGAME_OPTIONS];
	int gx, gy, to = noted_walk(g, c->row->note, &gx, &gy), n, k;

	(void)step;
	if (ctgame_enemy_move(g)) {
		*note = hunt_note(g);
		return ctgame_hunt(g);
	}
	if (to >= 0 && (n = ctgame_options(g, o)) > 0 && (k = first_step(g, o, n, to)) >= 0 &&
	    cmd_set_name(more, "move") == 0) {
		snprintf(more->args[0], sizeof(more->args[0]), "%d,%d", gx, gy);
		more->nargs = 1;
		*go = 1;
		return k;
	}
	return ctgame_default(g);
}

/* C1, C15: decisions wait the decision timeout, quick ones the quick
 * timeout, a reaction window the window. */
static int64_t wait_ms(const void *state, const struct play_ctx *c, int64_t base_ms)
{
	const struct ctgame *g = state;
	struct ctplay_settings s;
	struct game_step st;
	int64_t decision, quick, window;

	ctplay_settings(c->row->per_player, &s);
	ctgame_step(g, &st);
	decision = s.decision_s > 0 ? s.decision_s * 1000LL : base_ms;
	quick = s.quick_s > 0 ? s.quick_s * 1000LL : (decision < 45000 ? decision : 45000);
	window = s.window_s > 0 ? s.window_s * 1000LL : (decision < 20000 ? decision : 20000);
	switch (st.kind) {
	case CA_MOVE: {
		int gx, gy;
		return noted_walk(g, c->row->note, &gx, &gy) >= 0 ? quick : decision;
	}
	case CA_TILE:
		return decision;
	case CA_FIGURE:
	case CA_DEST:
	case CA_RESEED:
		return ctgame_enemy_move(g) ? decision : quick;
	case CA_PLAY:
		return ctgame_moment(g) == CM_RW ? window : quick;
	default:
		return quick;
	}
}

/* The table calls the player of every decision of their own; a reaction
 * window is offered to everyone in passing and calls nobody. */
static int calls(const void *state, const struct play_ctx *c, const struct game_step *step)
{
	(void)c;
	return !(step->kind == CA_PLAY && ctgame_moment(state) == CM_RW);
}

/* ---- narration ---- */

static void narrate(const void *state, const struct game_event *ev, int n, const struct play_ctx *c,
                    struct text *out)
{
	const char *names[CTGAME_MAX];
	char line[512];
	struct text lt;

	names_of(c, names);
	for (int i = 0; i < n; i++) {
		/* Bullets spent are told before the count they leave. */
		int k = i + 1 < n && ev[i].kind == CV_BULLETS && ev[i + 1].kind == CV_SPEND &&
		                ev[i].seat == ev[i + 1].seat
		            ? i + 1
		        : i > 0 && ev[i].kind == CV_SPEND && ev[i - 1].kind == CV_BULLETS &&
		                ev[i - 1].seat == ev[i].seat
		            ? i - 1
		            : i;
		text_init(&lt, line, sizeof(line));
		cttext_event(state, &ev[k], names, c->lang, &lt);
		if (!line[0])
			continue;
		text_add(out, line);
		text_add(out, "\n");
	}
}

/* The events of a command, or of a computer's turns, folded (ctfold.h). */
static void fold(const void *state, const struct game_event *ev, int n, const struct play_ctx *c,
                 struct text *out)
{
	const char *names[CTGAME_MAX];

	names_of(c, names);
	ctfold_tell(state, ev, n, names, c->lang, out);
}

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
static void marks_for(const struct ctgame *g, struct ctpicture_marks *mk,
                      struct ctmap_option *options, int16_t *reach)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	int n = pending(g, &st, o), tile;

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

static int picture(const void *state, const struct play_ctx *c, unsigned char **png, size_t *len,
                   char *alt, size_t altcap)
{
	struct ctmap_option options[CTMAP_OPTIONS_MAX];
	int16_t reach[CTMAP_SQUARES];
	struct ctpicture_marks mk;

	marks_for(state, &mk, options, reach);
	names_of(c, mk.names);
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
		menu(g, st, o, n, 0, s.confirm ? "place" : "confirm", c, m);
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
		if (noted_walk(g, c->row->note, &gx, &gy) >= 0) {
			snprintf(dest, sizeof(dest), "%d,%d", gx, gy);
			text_init(&lt, lab, sizeof(lab));
			i18n_add(&lt, c->lang, S_CTP_CONTINUE, dest, NULL);
			msg_button(m, id, move, "move", dest, lab, MSG_PRIMARY);
		}
		for (int i = 0; i < n; i++)
			if (o[i].what == CO_DIR)
				pick_button(g, st, o, i, c, m);
		b = msg_button(m, id, move, "move", NULL, i18n_get(c->lang, S_CTP_MOVE_BUTTON),
		               MSG_PRIMARY);
		if (b)
			msg_ask(m, b, i18n_get(c->lang, S_CTP_MOVE_BUTTON),
			        i18n_get(c->lang, S_CTP_DESTINATION), "gx,gy", 16);
		for (int i = 0; i < n; i++)
			if (o[i].what == CO_STOP)
				pick_button(g, st, o, i, c, m);
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
			label(g, st, &spend, c, lab, sizeof(lab));
			msg_disable(msg_button(m, id, move, "pick", "0", lab, MSG_PRIMARY));
		}
		break;
	}
	default:
		break;
	}
	if (!hidden(g, st, o, n)) {
		all_options(g, st, o, n, c, m);
		return;
	}
	/* C4, C14: what shows no card is public; the cards are behind a
	 * private menu (its id set apart from My hand's: ids are unique on a
	 * message). */
	for (int i = 0; i < n; i++)
		if (o[i].what != CO_CARD)
			pick_button(g, st, o, i, c, m);
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
		seat_name(g, c, s, name, sizeof(name));
		number(vp, sizeof(vp), ctgame_vp(g, s));
		text_add(tx, "\n");
		i18n_add(tx, c->lang, g->winners >> s & 1 ? S_CTP_VP_WINNER : S_CTP_VP, name, vp,
		         NULL);
	}
}

static void render(const void *state, const struct play_ctx *c, struct msg *m)
{
	const struct ctgame *g = state;
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	char round[16], name[80];
	struct text tx;
	int n = pending(g, &st, o);

	number(round, sizeof(round), g->round);
	text_init(&tx, m->title, sizeof(m->title));
	i18n_add(&tx, c->lang, g->end ? S_CTP_TITLE_OVER : S_CTP_TITLE, round, NULL);
	text_init(&tx, m->text, sizeof(m->text));
	for (int s = 0; s < g->n; s++) {
		seat_name(g, c, s, name, sizeof(name));
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
		waiting(g, &st, c, &tx);
		public_choices(g, &st, o, n, c, m);
	}
	msg_button(m, c->row->id, c->row->moves, "hand", NULL, i18n_get(c->lang, S_CTP_HAND_BUTTON),
	           MSG_SECONDARY);
	msg_button(m, c->row->id, c->row->moves, "map", NULL, i18n_get(c->lang, S_CTP_MAP_BUTTON),
	           MSG_SECONDARY);
}

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
		number(uses, sizeof(uses), g->uses[card]);
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
			pick_button(g, st, o, i, c, m);
	if (msg_select(m, c->row->id, c->row->moves, "pick", NULL,
	               i18n_get(c->lang, S_CTP_HAND_MENU)))
		return;
	for (int i = 0; i < n; i++) {
		if (o[i].what != CO_CARD && o[i].what != CO_ITEM)
			continue;
		label(g, st, &o[i], c, lab, sizeof(lab));
		number(val, sizeof(val), i + 1);
		describe(st, &o[i], c->lang, desc, sizeof(desc));
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
	int n = pending(g, &st, o), any = 0;

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
	if (n && member_of(g, st.seat) == who) {
		int cards = 0;
		for (int i = 0; i < n; i++)
			cards += o[i].what == CO_CARD;
		text_add(&tx, "\n");
		waiting(g, &st, c, &tx);
		if (st.kind == CA_TILE)
			menu(g, &st, o, n, 0, "place", c, m);
		else if (hidden(g, &st, o, n) && cards)
			card_choices(g, &st, o, n, c, m);
		else
			all_options(g, &st, o, n, c, m);
		if (hidden(g, &st, o, n) && !cards) { /* C14: asked whatever the hand holds */
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
	int n = pending(g, &st, o), pages = (n + PAGE - 1) / PAGE, p;

	text_init(&tx, err, sizeof(err));
	if (!n || (hidden(g, &st, o, n) && member_of(g, st.seat) != who)) {
		i18n_add(&tx, c->lang, S_CTP_ERR_NOTHING, NULL);
		refuse(out, user, c, err);
		return;
	}
	number(max, sizeof(max), pages);
	if (cmd->nargs != 1 || whole(cmd->args[0], 1, pages, &p)) {
		i18n_add(&tx, c->lang, S_CTP_ERR_PAGE, cmd->nargs ? cmd->args[0] : "", max, NULL);
		refuse(out, user, c, err);
		return;
	}
	if (!(m = private_msg(out, user, c, MSG_INFO)))
		return;
	ctplay_settings(c->row->per_player, &s);
	text_init(&tx, m->text, sizeof(m->text));
	waiting(g, &st, c, &tx);
	menu(g, &st, o, n, (p - 1) * PAGE,
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
	int n = pending(g, &st, o), tile;

	if (!(m = private_msg(out, user, c, MSG_INFO)))
		return;
	label(g, &st, &o[k], c, lab, sizeof(lab));
	text_init(&tx, m->text, sizeof(m->text));
	i18n_add(&tx, c->lang, S_CTP_PREVIEW, lab, NULL);
	number(val, sizeof(val), k + 1);
	msg_button(m, c->row->id, c->row->moves, "confirm", val, i18n_get(c->lang, S_CTP_CONFIRM),
	           MSG_PRIMARY);
	number(val, sizeof(val), k / PAGE + 1);
	msg_button(m, c->row->id, c->row->moves, "page", val, i18n_get(c->lang, S_CTP_BACK),
	           MSG_SECONDARY);
	ctpicture_marks_init(&mk);
	names_of(c, mk.names);
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
	number(round, sizeof(round), g->round);
	text_init(&tx, m->text, sizeof(m->text));
	i18n_add(&tx, c->lang, S_CTP_MAP_TEXT, round, NULL);
	marks_for(g, &mk, options, reach);
	names_of(c, mk.names);
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
	int n = pending(g, &st, o), lose[CTGAME_TYPES] = { 0 }, total = 0;
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
	if (need_turn(g, &st, c, who, &tx)) {
		refuse(out, user, c, err);
		return;
	}
	if (cmd->nargs == 1 && read_counts(cmd->args[0], lose)) {
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
	number(num, sizeof(num), g->loss);
	number(arg, sizeof(arg), total);
	i18n_add(&tx, c->lang, S_CTP_RELICS_TEXT, num, line, arg, NULL);
	for (int t = 0; t < CTGAME_TYPES; t++) {
		struct text bt;
		if (!p->relics[t])
			continue;
		if (lose[t] < p->relics[t] && total < g->loss) {
			lose[t]++;
			write_counts(lose, arg, sizeof(arg));
			lose[t]--;
			text_init(&bt, lab, sizeof(lab));
			text_add(&bt, "+ ");
			text_add(&bt, ctnames_type(t, c->lang));
			msg_button(m, c->row->id, c->row->moves, "relics", arg, lab, MSG_SECONDARY);
		}
		if (lose[t] > 0) {
			lose[t]--;
			write_counts(lose, arg, sizeof(arg));
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
		write_counts(keep, arg, sizeof(arg));
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
	number(num, sizeof(num), ncards);
	i18n_add(&tx, c->lang, S_CTP_DISCARDS_EVENTS, num,
	         ncards ? list : i18n_get(c->lang, S_CTP_DISCARDS_EMPTY), NULL);
	text_init(&lt, list, sizeof(list));
	for (int t = 0; t < CTGAME_TYPES; t++)
		if (types[t])
			counted(&lt, ctnames_type(t, c->lang), types[t]);
	number(num, sizeof(num), nrelics);
	text_add(&tx, "\n");
	i18n_add(&tx, c->lang, S_CTP_DISCARDS_RELICS, num,
	         nrelics ? list : i18n_get(c->lang, S_CTP_DISCARDS_EMPTY), NULL);
	text_init(&lt, list, sizeof(list));
	for (int t = 0; t < CTMAP_TILES; t++)
		if (g->tile_discard >> t & 1) {
			counted(&lt, ctnames_tile(t, c->lang), 1);
			ntiles++;
		}
	number(num, sizeof(num), ntiles);
	text_add(&tx, "\n");
	i18n_add(&tx, c->lang, S_CTP_DISCARDS_TILES, num,
	         ntiles ? list : i18n_get(c->lang, S_CTP_DISCARDS_EMPTY), NULL);
}

/* Of the views, the printed texts and the discards also answer who = -1,
 * one who has no seat at the table. */
static int view(const void *state, const struct play_ctx *c, int who, const struct cmd *cmd,
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
		n = pending(g, &st, o);
		if (!s.confirm || !n || st.kind != CA_TILE)
			return 0; /* placed at once, or refused by action */
		text_init(&tx, err, sizeof(err));
		if (need_turn(g, &st, c, who, &tx) || (k = option_number(cmd, n, c, &tx)) < 0) {
			refuse(out, user, c, err);
			return 1;
		}
		preview_view(g, c, k, user, out);
		return 1;
	default:
		return 0;
	}
}

/* C11, C14: /autopass on|off, /weapon ask|auto. */
static int prefer(const struct play_ctx *c, int who, const struct cmd *cmd, int *prefs,
                  struct text *reply)
{
	int code = play_action_code(&ctplay, cmd), bit, on;
	const char *a = cmd->nargs == 1 ? cmd->args[0] : "";

	if (code != ACT_AUTOPASS && code != ACT_WEAPON)
		return 0;
	bit = code == ACT_AUTOPASS ? CTPLAY_PREF_AUTOPASS : CTPLAY_PREF_ASK_WEAPON;
	if (code == ACT_AUTOPASS && (is(a, "on", "aan") || is(a, "off", "uit")))
		on = is(a, "on", "aan");
	else if (code == ACT_WEAPON && (is(a, "ask", "vragen") || is(a, "auto", "automatisch")))
		on = is(a, "ask", "vragen");
	else {
		i18n_add(reply, c->lang, S_ERR_USAGE,
		         code == ACT_AUTOPASS ? "/autopass on|off" : "/weapon ask|auto", NULL);
		return -1;
	}
	(void)who;
	*prefs = on ? *prefs | bit : *prefs & ~bit;
	i18n_add(reply, c->lang,
	         code == ACT_AUTOPASS ? (on ? S_CTP_AUTOPASS_ON : S_CTP_AUTOPASS_OFF)
	                              : (on ? S_CTP_WEAPON_ASK : S_CTP_WEAPON_AUTO),
	         NULL);
	return 1;
}

/* /card's name as it is typed: the things it may become, by their names;
 * the value is the English name, which /card finds. */
static int complete(const char *action, const char *option, const char *typed,
                    struct play_choice *out, int max)
{
	struct ctcards_ref r[PLAY_CHOICES_MAX];
	int n;

	if (strcmp(action, "card") != 0 || strcmp(option, "name") != 0)
		return 0;
	n = ctcards_complete(typed, r, max < PLAY_CHOICES_MAX ? max : PLAY_CHOICES_MAX);
	for (int i = 0; i < n; i++) {
		text_copy(out[i].name, sizeof(out[i].name),
		          ctcards_name(r[i].kind, r[i].id, I18N_EN));
		text_copy(out[i].nl_name, sizeof(out[i].nl_name),
		          ctcards_name(r[i].kind, r[i].id, I18N_NL));
		text_copy(out[i].value, sizeof(out[i].value), out[i].name);
	}
	return n;
}

static int leave(void *state, int seat, struct game_events *ev)
{
	return ctgame_leave(state, seat, ev);
}

/* §14: every seat with the most VP wins (a shared win is several). */
static unsigned winners(const void *state)
{
	return ((const struct ctgame *)state)->winners;
}

/* C19: a game stopped by the round cap is recorded unfinished. */
static int unfinished(const void *state)
{
	return ((const struct ctgame *)state)->end == CE_CAPPED;
}

const struct play_game ctplay = {
	.ops = &ctgame_ops,
	.option = option,
	.stamp = stamp,
	.members = members,
	.setup = setup,
	.member_of = member_of,
	.seat_name = seat_name,
	.actions = actions,
	.nactions = sizeof(actions) / sizeof(actions[0]),
	.action = action,
	.auto_roll = auto_roll,
	.narrate = narrate,
	.fold = fold,
	.render = render,
	.awaits = awaits,
	.rules = S_CTP_RULES,
	.rules_more = rules_more,
	.nobody_wins = 1,
	.started = S_CTP_STARTED,
	.rematch = S_CTP_REMATCH,
	.policy = "baseline",
	.settle = settle,
	.timeout_value = timeout_value,
	.wait_ms = wait_ms,
	.calls = calls,
	.view = view,
	.follow = follow,
	.leave = leave,
	.complete = complete,
	.picture = picture,
	.unfinished = unfinished,
	.prefer = prefer,
	.winners = winners,
	.idle_ms = 48LL * 3600 * 1000,
};
