/* ctplay: the CTHULHU!!! board game at the table (§15). Every die and draw
 * is made by the bot; players answer the engine's decisions by buttons,
 * select menus and typed commands. Choices that would show a hand card are
 * only ever listed in private replies (C4). */
#include "ctplay_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/ctcards.h"
#include "rlyeh/ctfold.h"
#include "rlyeh/ctgame.h"
#include "rlyeh/cttext.h"
#include "rlyeh/i18n.h"

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
int ctp_whole(const char *s, int lo, int hi, int *out)
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
int ctp_is(const char *word, const char *en, const char *nl)
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
	if (ctp_is(key, "cap", "rondes")) {
		if (ctp_is(val, "off", "uit"))
			n = 0;
		else if (ctp_whole(val, 1, CTPLAY_CAP_MAX, &n))
			return -1;
		v = (v & ~1023u) | (unsigned)n;
	} else if (ctp_is(key, "enemies", "vijanden")) {
		if (!ctp_is(val, "auto", "automatisch") && !ctp_is(val, "manual", "handmatig"))
			return -1;
		v = (v & ~(1u << 10)) | (ctp_is(val, "manual", "handmatig") ? 1u << 10 : 0);
	} else if (ctp_is(key, "confirm", "bevestigen")) {
		if (!ctp_is(val, "on", "aan") && !ctp_is(val, "off", "uit"))
			return -1;
		v = (v & ~(1u << 11)) | (ctp_is(val, "off", "uit") ? 1u << 11 : 0);
	} else if (ctp_is(key, "window", "venster")) {
		if (ctp_is(val, "off", "uit"))
			n = 0;
		else if (ctp_whole(val, 0, CTPLAY_WINDOW_MAX, &n))
			return -1;
		v = (v & ~(63u << 12)) | (unsigned)(n + 1) << 12;
	} else if (ctp_is(key, "quick", "snel")) {
		if (ctp_whole(val, 5, CTPLAY_QUICK_MAX, &n) || n % 5)
			return -1;
		v = (v & ~(127u << 18)) | (unsigned)(n / 5) << 18;
	} else if (ctp_is(key, "decision", "beslissing")) {
		if (ctp_whole(val, 10, CTPLAY_DECISION_MAX, &n) || n % 10)
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

int ctp_member_of(const void *state, int seat)
{
	(void)state;
	return seat >= 0 ? seat : -1;
}

void ctp_seat_name(const void *state, const struct play_ctx *c, int seat, char *buf, size_t cap)
{
	(void)state;
	snprintf(buf, cap, "%s", seat >= 0 && seat < c->nm ? c->m[seat].name : "?");
}

/* The seats' names for cttext. */
void ctp_names_of(const struct play_ctx *c, const char *names[CTGAME_MAX])
{
	for (int i = 0; i < CTGAME_MAX; i++)
		names[i] = i < c->nm ? c->m[i].name : "?";
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
		if (!ctgame_enemy_move(g) || (s.manual && c->row->note != ctp_hunt_note(g)))
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
	int gx, gy, to = ctp_noted_walk(g, c->row->note, &gx, &gy), n, k;

	(void)step;
	if (ctgame_enemy_move(g)) {
		*note = ctp_hunt_note(g);
		return ctgame_hunt(g);
	}
	if (to >= 0 && (n = ctgame_options(g, o)) > 0 && (k = ctp_first_step(g, o, n, to)) >= 0 &&
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
		return ctp_noted_walk(g, c->row->note, &gx, &gy) >= 0 ? quick : decision;
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

	ctp_names_of(c, names);
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

	ctp_names_of(c, names);
	ctfold_tell(state, ev, n, names, c->lang, out);
}

/* ---- preferences, completion and the game's table ---- */

/* C11, C14: /autopass on|off, /weapon ask|auto. */
static int prefer(const struct play_ctx *c, int who, const struct cmd *cmd, int *prefs,
                  struct text *reply)
{
	int code = play_action_code(&ctplay, cmd), bit, on;
	const char *a = cmd->nargs == 1 ? cmd->args[0] : "";

	if (code != ACT_AUTOPASS && code != ACT_WEAPON)
		return 0;
	bit = code == ACT_AUTOPASS ? CTPLAY_PREF_AUTOPASS : CTPLAY_PREF_ASK_WEAPON;
	if (code == ACT_AUTOPASS && (ctp_is(a, "on", "aan") || ctp_is(a, "off", "uit")))
		on = ctp_is(a, "on", "aan");
	else if (code == ACT_WEAPON &&
	         (ctp_is(a, "ask", "vragen") || ctp_is(a, "auto", "automatisch")))
		on = ctp_is(a, "ask", "vragen");
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
	.member_of = ctp_member_of,
	.seat_name = ctp_seat_name,
	.actions = actions,
	.nactions = sizeof(actions) / sizeof(actions[0]),
	.action = ctp_action,
	.auto_roll = ctp_auto_roll,
	.narrate = narrate,
	.fold = fold,
	.render = ctp_render,
	.awaits = ctp_awaits,
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
	.view = ctp_view,
	.follow = ctp_follow,
	.leave = leave,
	.complete = complete,
	.picture = ctp_picture,
	.unfinished = unfinished,
	.prefer = prefer,
	.winners = winners,
	.idle_ms = 48LL * 3600 * 1000,
};
