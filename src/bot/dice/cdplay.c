/* cdplay: Cthulhu Dice at the table — options, seats, actions, narration and
 * the table message. */
#include <stdio.h>
#include <string.h>

#include "rlyeh/cdice.h"
#include "rlyeh/cdsolve.h"
#include "rlyeh/cdsolvecache.h"
#include "rlyeh/i18n.h"
#include "rlyeh/play.h"

enum { ACT_CURSE, ACT_EYE, ACT_RESPOND };

static const struct play_action actions[] = {
	{ "curse",
	  "vervloek",
	  "As Caster, curse a Victim and roll",
	  "Vervloek als Vervloeker een Slachtoffer en werp",
	  { { "victim", "slachtoffer", PLAY_ARG_USER, 1, "The Victim", "Het Slachtoffer", NULL },
	    { "cultist", "sektarier", PLAY_ARG_NUMBER, 0, "Rival Cults: which of their cultists",
	      "Rivaliserende Sektes: welke sektariër", "1,2,3" } },
	  ACT_CURSE },
	{ "eye",
	  "oog",
	  "Choose what your Eye becomes",
	  "Maak een keuze voor je Boze Oog",
	  { { "face", "kant", PLAY_ARG_TEXT, 1, "The face", "De kant",
	      "Yellow Sign=Het Gele Teken,Tentacle=Tentakel,Elder Sign=Teken van de Oude "
	      "Goden,Cthulhu" } },
	  ACT_EYE },
	{ "respond",
	  "reageren",
	  "As Victim, roll back at the Caster",
	  "Werp als Slachtoffer terug naar de Vervloeker (de reactie)",
	  { { 0 } },
	  ACT_RESPOND },
};

static const int face_ids[CDICE_FACES] = {
	S_CD_YELLOW_SIGN, S_CD_TENTACLE, S_CD_ELDER_SIGN, S_CD_CTHULHU, S_CD_EYE,
};

static const char *face(int lang, int f)
{
	return i18n_get(lang, face_ids[f]);
}

static int option(const char *word, struct store_game *row)
{
	if (strcmp(word, "classic") == 0) {
		row->per_player = 0;
		return 0;
	}
	if (strcmp(word, "rival-cults") == 0 || strcmp(word, "rival") == 0) {
		if (!row->per_player)
			row->per_player = 2;
		return 0;
	}
	if (strcmp(word, "2") == 0 || strcmp(word, "3") == 0) {
		row->per_player = word[0] - '0';
		return 0;
	}
	return -1;
}

static void lobby_name(const struct store_game *row, int lang, struct text *out)
{
	char each[16];

	if (!row->per_player) {
		text_add(out, cdice_ops.name);
		return;
	}
	snprintf(each, sizeof(each), "%d", row->per_player);
	i18n_add(out, lang, S_CD_LOBBY_RIVAL, cdice_ops.name, each, NULL);
}

/* Rival Cults names each cultist "<name>-<k>": a computer player's name
 * ends without a number of its own there ("heuristic-bot-2" is cultist 2
 * of heuristic-bot), its number joined to "bot" from the second on. */
static void bot_name(const struct store_game *row, const char *policy, int same, char *buf,
                     size_t cap)
{
	if (!row->per_player)
		snprintf(buf, cap, "%s-bot-%d", policy, same);
	else if (same == 1)
		snprintf(buf, cap, "%s-bot", policy);
	else
		snprintf(buf, cap, "%s-bot%d", policy, same);
}

static void members(const struct store_game *row, int *min, int *max)
{
	*min = 2;
	*max = row->per_player ? 2 : CDICE_MAX;
}

static void setup(const struct store_game *row, int nm, struct game_setup *out)
{
	out->players = row->per_player ? 2 : nm;
	out->per_player = row->per_player;
	out->first = 0;
}

static int member_of(const void *state, int seat)
{
	return cdice_owner(state, seat);
}

static void seat_name(const void *state, const struct play_ctx *c, int seat, char *buf, size_t cap)
{
	const struct cdice *g = state;
	const char *name = c->m[cdice_owner(g, seat)].name;

	if (g->per_player)
		snprintf(buf, cap, "%s-%d", name, seat / 2 + 1);
	else
		snprintf(buf, cap, "%s", name);
}

/* What the table waits for, as one line in c->lang. */
static void waiting(const struct cdice *g, const struct play_ctx *c, struct text *out)
{
	char a[80], b[80];

	seat_name(g, c, g->caster, a, sizeof(a));
	seat_name(g, c, g->victim, b, sizeof(b));
	switch (g->phase) {
	case CDICE_VICTIM:
		i18n_add(out, c->lang, S_CD_WAIT_CURSE, a, NULL);
		break;
	case CDICE_CURSE_EYE:
		i18n_add(out, c->lang, S_CD_WAIT_EYE, a, NULL);
		break;
	case CDICE_RESPONSE:
		i18n_add(out, c->lang, S_CD_WAIT_RESPOND, b, a, NULL);
		break;
	case CDICE_RESPONSE_EYE:
		i18n_add(out, c->lang, S_CD_WAIT_EYE, b, NULL);
		break;
	default:
		break;
	}
}

/* Resolves a victim argument: "#seat", a seat's name, or a member (by id
 * or name) with exactly one cultist that can be cursed. Returns the seat,
 * or -1 with the reason in err. */
static int find_victim(const struct cdice *g, const struct play_ctx *c, const char *arg,
                       struct text *err)
{
	char name[80], list[256];
	int member = -1, found = -1, count = 0;

	if (arg[0] == '#' && arg[1] >= '0' && arg[1] <= '9' && strlen(arg) <= 3) {
		int seat = arg[1] - '0';
		if (arg[2])
			seat = seat * 10 + (arg[2] - '0');
		if (arg[2] && (arg[2] < '0' || arg[2] > '9'))
			seat = -1;
		if (seat >= 0 && seat < g->n)
			found = seat;
	}
	for (int s = 0; s < g->n && found < 0; s++) {
		seat_name(g, c, s, name, sizeof(name));
		if (text_name_is(name, arg))
			found = s;
	}
	{
		/* "<player id>-<k>": the k-th cultist of that member (a platform
		 * names the victim by the user and the cultist's number). */
		const char *dash = strrchr(arg, '-');
		int k = dash && dash[1] >= '1' && dash[1] <= '9' && !dash[2] ? dash[1] - '0' : 0;
		for (int i = 0; i < c->nm && found < 0 && k; i++) {
			size_t len = (size_t)(dash - arg);
			if (!c->m[i].player[0] || strlen(c->m[i].player) != len ||
			    strncmp(c->m[i].player, arg, len) != 0)
				continue;
			for (int s = 0, nth = 0; s < g->n && found < 0; s++)
				if (cdice_owner(g, s) == i && ++nth == k)
					found = s;
		}
	}
	for (int i = 0; i < c->nm && found < 0 && member < 0; i++)
		if ((c->m[i].player[0] && strcmp(c->m[i].player, arg) == 0) ||
		    text_name_is(c->m[i].name, arg))
			member = i;
	if (found < 0 && member >= 0) {
		struct text lt;
		text_init(&lt, list, sizeof(list));
		for (int s = 0; s < g->n; s++) {
			if (cdice_owner(g, s) != member || s == g->caster || g->sanity[s] == 0)
				continue;
			seat_name(g, c, s, name, sizeof(name));
			text_add(&lt, count ? ", " : "");
			text_add(&lt, name);
			found = s;
			count++;
		}
		if (count > 1) {
			i18n_add(err, c->lang, S_CD_ERR_WHICH, c->m[member].name, list, NULL);
			return -1;
		}
		if (count == 0) {
			/* Point at the seat itself so the reason below is exact. */
			for (int s = 0; s < g->n && found < 0; s++)
				if (cdice_owner(g, s) == member)
					found = s;
		}
	}
	if (found < 0) {
		i18n_add(err, c->lang, S_CD_ERR_NO_VICTIM, arg, NULL);
		return -1;
	}
	seat_name(g, c, found, name, sizeof(name));
	if (found == g->caster) {
		i18n_add(err, c->lang, S_CD_ERR_SELF, NULL);
		return -1;
	}
	if (g->sanity[found] == 0) {
		i18n_add(err, c->lang, S_CD_ERR_MAD, name, NULL);
		return -1;
	}
	return found;
}

/* 1 when arg names face text, without regard to case, spaces typed as
 * hyphens or not ("het-gele-teken", "Het Gele Teken"). */
static int face_is(const char *arg, const char *text)
{
	for (; *arg && *text; arg++, text++) {
		char x = *arg == '-' ? ' ' : *arg, y = *text;
		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (char)(y - 'A' + 'a');
		if (x != y)
			return 0;
	}
	return *arg == *text;
}

/* Parses an Eye face from a command's words (joined by spaces): the
 * stable names, short forms, or the face names of either language. */
static int find_face(const struct cmd *cmd)
{
	static const struct {
		const char *word;
		int face;
	} aliases[] = {
		{ "yellow", CDICE_YELLOW_SIGN },     { "elder", CDICE_ELDER_SIGN },
		{ "gele-teken", CDICE_YELLOW_SIGN }, { "geel", CDICE_YELLOW_SIGN },
		{ "oude-goden", CDICE_ELDER_SIGN },
	};
	char arg[CMD_ARG_MAX];
	struct text t;
	int f;

	text_init(&t, arg, sizeof(arg));
	for (int i = 0; i < cmd->nargs; i++) {
		text_add(&t, i ? " " : "");
		text_add(&t, cmd->args[i]);
	}
	if (!cmd->nargs || t.truncated)
		return -1;
	f = cdice_face_parse(arg);
	if (f >= 0)
		return f;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (face_is(arg, aliases[i].word))
			return aliases[i].face;
	for (int l = 0; l < I18N_LANGS; l++)
		for (f = 0; f < CDICE_FACES; f++)
			if (face_is(arg, face(l, f)))
				return f;
	return -1;
}

/* The word a button gives for face f in lang: its name, lower case,
 * hyphens for spaces ("het-gele-teken"), which find_face reads back. */
static void face_word(int lang, int f, char *buf, size_t cap)
{
	size_t i = 0;

	for (const char *p = face(lang, f); *p && i + 1 < cap; p++, i++)
		buf[i] = *p == ' ' ? '-' : (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p;
	buf[i] = '\0';
}

/* The four faces an Eye may become, by name in lang, between sep and,
 * before the last, last ("Yellow Sign|Tentacle|…", "…, Elder Sign or
 * Cthulhu"). */
static void face_list(int lang, const char *sep, const char *last, struct text *out)
{
	for (int f = 0; f < CDICE_EYE; f++) {
		text_add(out, f == 0 ? "" : f == CDICE_EYE - 1 ? last : sep);
		text_add(out, face(lang, f));
	}
}

/* What the table awaits from member who (play.h: awaits). */
static int awaits(const void *state, const struct play_ctx *c, int who, struct text *out)
{
	const struct cdice *g = state;
	char list[160], name[80];
	struct text lt;

	switch (g->phase) {
	case CDICE_VICTIM:
		if (cdice_owner(g, g->caster) != who)
			return 0;
		seat_name(g, c, g->caster, name, sizeof(name));
		i18n_add(out, c->lang, g->per_player ? S_CD_AWAITS_CURSE_AS : S_CD_AWAITS_CURSE,
		         name, NULL);
		return 1;
	case CDICE_CURSE_EYE:
	case CDICE_RESPONSE_EYE:
		if (cdice_owner(g, g->phase == CDICE_CURSE_EYE ? g->caster : g->victim) != who)
			return 0;
		text_init(&lt, list, sizeof(list));
		face_list(c->lang, "|", "|", &lt);
		i18n_add(out, c->lang, S_CD_AWAITS_EYE, list, NULL);
		return 1;
	case CDICE_RESPONSE:
		if (cdice_owner(g, g->victim) != who)
			return 0;
		i18n_add(out, c->lang, S_CD_AWAITS_RESPOND, NULL);
		return 1;
	default:
		return 0;
	}
}

/* Refuses a move out of turn, saying what the table waits for. */
static int not_your_move(const struct cdice *g, const struct play_ctx *c, struct text *err)
{
	char line[256];
	struct text w;

	text_init(&w, line, sizeof(line));
	waiting(g, c, &w);
	i18n_add(err, c->lang, S_CD_ERR_NOT_YOUR_MOVE, line, NULL);
	return -1;
}

/* Refuses a command that is not the awaited move: what the table waits
 * for from member who, or, when nothing is, whose move it is. */
static int wrong_step(const struct cdice *g, const struct play_ctx *c, int who, struct text *err)
{
	return awaits(g, c, who, err) ? -1 : not_your_move(g, c, err);
}

/* Member who's chance in a value vector: the sum over their cultists. */
static double owner_chance(const struct cdice *g, const double *v, int who)
{
	double p = 0;

	for (int s = 0; s < g->n; s++)
		if (cdice_owner(g, s) == who)
			p += v[s];
	return p;
}

static void percent(char *buf, size_t cap, double p)
{
	snprintf(buf, cap, "%.0f%%", 100 * p);
}

/* The label of option `value` at a choice of kind `kind`. */
static void option_label(const struct cdice *g, const struct play_ctx *c, int kind, int value,
                         char *buf, size_t cap)
{
	if (kind == CDICE_VICTIM)
		seat_name(g, c, value, buf, cap);
	else
		snprintf(buf, cap, "%s", face(c->lang, value));
}

/* solver has no table beyond 6 cultists: the table is told it plays as
 * heuristic. */
static int policy_note(const void *state, const char *policy)
{
	const struct cdice *g = state;

	return strcmp(policy, "solver") == 0 && g->n > CDSOLVE_MAX_CULTISTS ? S_SOLVER_FALLBACK : 0;
}

static int hint(const void *state, const struct play_ctx *c, int who, struct text *out)
{
	const struct cdice *g = state;
	const struct cdsolve_table *t;
	struct game_step step;
	double v[GAME_MAX_OPTIONS * (CDICE_MAX + 1)], p[GAME_MAX_OPTIONS];
	char name[80], label[80], list[768], mix[768], pct[16];
	struct text lt, mt;
	int best, used = 0, exact;

	cdice_step(g, &step);
	if (step.node == GAME_NODE_OVER || cdice_owner(g, step.seat) != who)
		return not_your_move(g, c, out);
	if (g->n > CDSOLVE_MAX_CULTISTS) {
		i18n_add(out, c->lang, S_HINT_TOO_MANY, NULL);
		return -1;
	}
	t = cdsolve_provided(g->n, g->per_player);
	if (!t || !cdsolve_fits(t, g)) {
		i18n_add(out, c->lang,
		         cdsolvecache_pending(g->n, g->per_player) ? S_HINT_NOT_READY
		                                                   : S_HINT_UNAVAILABLE,
		         NULL);
		return -1;
	}
	seat_name(g, c, step.seat, name, sizeof(name));
	if (step.node != GAME_NODE_CHOICE) {
		cdsolve_value(t, g, v);
		percent(pct, sizeof(pct), owner_chance(g, v, who));
		i18n_add(out, c->lang, S_HINT_NOW, name, pct, NULL);
		return 0;
	}
	best = cdsolve_options(t, g, &step, v, p);
	text_init(&lt, list, sizeof(list));
	for (int k = 0; k < step.count; k++) {
		option_label(g, c, step.kind, step.options[k], label, sizeof(label));
		percent(pct, sizeof(pct), owner_chance(g, v + k * (CDICE_MAX + 1), who));
		text_addf(&lt, "%s%s %s", k ? " · " : "", label, pct);
	}
	if (best >= 0) {
		option_label(g, c, step.kind, step.options[best], label, sizeof(label));
		text_add(&lt, " (");
		i18n_add(&lt, c->lang, S_HINT_BEST, label, NULL);
		text_add(&lt, ")");
	}
	i18n_add(out, c->lang, S_HINT_CHOICES, name, list, NULL);
	/* the options the profile uses, with their probabilities (those it
	 * plays less than once in 2,000 times are left out); called the
	 * equilibrium's only where the table is an exact one */
	exact = cdsolve_stats(t)->polished;
	text_init(&mt, mix, sizeof(mix));
	for (int k = 0; k < step.count; k++) {
		if (p[k] < 0.0005)
			continue;
		option_label(g, c, step.kind, step.options[k], label, sizeof(label));
		snprintf(pct, sizeof(pct), "%.1f%%", 100 * p[k]);
		text_addf(&mt, "%s%s %s", used++ ? " · " : "", label, pct);
	}
	if (used == 1) {
		for (int k = 0; k < step.count; k++)
			if (p[k] >= 0.0005)
				option_label(g, c, step.kind, step.options[k], label,
				             sizeof(label));
		i18n_add(out, c->lang, exact ? S_HINT_MIX_PURE : S_HINT_MIX_SOLVER_PURE, label,
		         NULL);
	} else {
		i18n_add(out, c->lang, exact ? S_HINT_MIX : S_HINT_MIX_SOLVER, mix, NULL);
	}
	return 0;
}

static int action(const void *state, const struct play_ctx *c, int who, const struct cmd *cmd,
                  int *value, struct text *err)
{
	const struct cdice *g = state;
	int roller;

	switch (play_action_code(&cdplay, cmd)) {
	case ACT_CURSE:
		if (g->phase != CDICE_VICTIM || cdice_owner(g, g->caster) != who)
			return wrong_step(g, c, who, err);
		if (cmd->nargs != 1) {
			i18n_add(err, c->lang, S_ERR_USAGE, "/curse <victim>", NULL);
			return -1;
		}
		*value = find_victim(g, c, cmd->args[0], err);
		return *value < 0 ? -1 : 0;
	case ACT_EYE:
		roller = g->phase == CDICE_CURSE_EYE ? g->caster : g->victim;
		if ((g->phase != CDICE_CURSE_EYE && g->phase != CDICE_RESPONSE_EYE) ||
		    cdice_owner(g, roller) != who)
			return wrong_step(g, c, who, err);
		*value = find_face(cmd);
		if (*value < 0 || *value == CDICE_EYE) {
			char list[160];
			struct text lt;
			text_init(&lt, list, sizeof(list));
			face_list(c->lang, ", ", i18n_get(c->lang, S_OR), &lt);
			i18n_add(err, c->lang, *value < 0 ? S_CD_ERR_FACE : S_CD_ERR_EYE_EYE, list,
			         NULL);
			return -1;
		}
		return 0;
	case ACT_RESPOND:
		if (g->phase != CDICE_RESPONSE || cdice_owner(g, g->victim) != who)
			return wrong_step(g, c, who, err);
		*value = PLAY_ROLL;
		return 0;
	default:
		return wrong_step(g, c, who, err);
	}
}

static int auto_roll(const void *state, const struct game_step *step)
{
	(void)state;
	return step->kind == CDICE_CURSE;
}

static void narrate(const void *state, const struct game_event *ev, int n, const struct play_ctx *c,
                    struct text *out)
{
	const struct cdice *g = state;
	char a[80], b[80], num[16];
	int turn = 0, face_now = -1, caster = g->caster;

	for (int i = 0; i < n; i++) {
		const struct game_event *e = &ev[i];
		if (e->seat >= 0 && e->seat < g->n)
			seat_name(g, c, e->seat, a, sizeof(a));
		if (e->target >= 0 && e->target < g->n)
			seat_name(g, c, e->target, b, sizeof(b));
		switch (e->kind) {
		case CDICE_EV_TURN:
			turn = e->value;
			continue;
		case CDICE_EV_VICTIM:
			caster = e->seat;
			snprintf(num, sizeof(num), "%d", turn);
			i18n_add(out, c->lang, S_CD_N_CURSE, num, a, b, NULL);
			break;
		case CDICE_EV_ROLL:
			caster = e->seat;
			face_now = e->value;
			i18n_add(out, c->lang, S_CD_N_ROLL, a, face(c->lang, e->value), NULL);
			break;
		case CDICE_EV_RESPONSE:
			caster = e->target;
			face_now = e->value;
			i18n_add(out, c->lang, S_CD_N_RESPOND, a, face(c->lang, e->value), NULL);
			break;
		case CDICE_EV_EYE:
			face_now = e->value;
			i18n_add(out, c->lang, S_CD_N_EYE, face(c->lang, e->value), NULL);
			break;
		case CDICE_EV_MOVE:
			if (e->target == CDICE_POOL && face_now == CDICE_TENTACLE) {
				/* R6: a mad Caster's Tentacle token goes to the pool. */
				seat_name(g, c, caster, b, sizeof(b));
				i18n_add(out, c->lang, S_CD_N_LOSE_MAD_CASTER, a, b, NULL);
			} else if (e->target == CDICE_POOL)
				i18n_add(out, c->lang, S_CD_N_LOSE, a, NULL);
			else if (e->seat == CDICE_POOL)
				i18n_add(out, c->lang, S_CD_N_GAIN, b, NULL);
			else
				i18n_add(out, c->lang, S_CD_N_TAKE, b, a, NULL);
			break;
		case CDICE_EV_NOTHING:
			i18n_add(out, c->lang, S_CD_N_NOTHING, NULL);
			break;
		case CDICE_EV_MAD:
			i18n_add(out, c->lang, S_CD_N_MAD, a, NULL);
			break;
		case CDICE_EV_SANE:
			i18n_add(out, c->lang, S_CD_N_SANE, a, NULL);
			break;
		case CDICE_EV_END:
			if (e->seat < 0)
				i18n_add(out, c->lang, S_CD_N_CTHULHU, NULL);
			else if (g->per_player)
				i18n_add(out, c->lang, S_CD_N_WIN_RIVAL,
				         c->m[cdice_owner(g, e->seat)].name, a, NULL);
			else
				i18n_add(out, c->lang, S_CD_N_WIN, a, NULL);
			break;
		default:
			continue;
		}
		text_add(out, "\n");
	}
}

static void render(const void *state, const struct play_ctx *c, struct msg *m)
{
	const struct cdice *g = state;
	char name[80], value[128], num[16];
	struct text tx;
	int64_t id = c->row->id;
	int move = c->row->moves;

	snprintf(num, sizeof(num), "%u", g->phase == CDICE_OVER ? g->turn : g->turn + 1);
	text_init(&tx, m->title, sizeof(m->title));
	i18n_add(&tx, c->lang, g->per_player ? S_CD_TITLE_RIVAL : S_CD_TITLE, num, NULL);
	for (int s = 0; s < g->n; s++) {
		struct text vt;
		seat_name(g, c, s, name, sizeof(name));
		text_init(&vt, value, sizeof(value));
		if (g->sanity[s] == 0)
			i18n_add(&vt, c->lang, S_CD_MAD, NULL);
		else {
			snprintf(num, sizeof(num), "%d", g->sanity[s]);
			i18n_add(&vt, c->lang, S_CD_SANITY, num, NULL);
		}
		if (g->phase != CDICE_OVER && s == g->caster)
			i18n_add(&vt, c->lang, S_CD_CASTER_TAG, NULL);
		if (g->phase != CDICE_OVER && g->phase != CDICE_VICTIM && s == g->victim)
			i18n_add(&vt, c->lang, S_CD_VICTIM_TAG, NULL);
		msg_field(m, name, value);
	}
	snprintf(num, sizeof(num), "%d", g->pool);
	text_init(&tx, value, sizeof(value));
	i18n_add(&tx, c->lang, S_CD_SANITY, num, NULL);
	msg_field(m, i18n_get(c->lang, S_CD_POOL), value);
	text_init(&tx, m->text, sizeof(m->text));
	switch (g->phase) {
	case CDICE_VICTIM:
		waiting(g, c, &tx);
		for (int s = 0; s < g->n; s++) {
			char arg[8];
			if (s == g->caster || g->sanity[s] == 0)
				continue;
			seat_name(g, c, s, name, sizeof(name));
			snprintf(arg, sizeof(arg), "#%d", s);
			msg_button(m, id, move, "curse", arg, name, MSG_DANGER);
		}
		break;
	case CDICE_CURSE_EYE:
	case CDICE_RESPONSE_EYE:
		waiting(g, c, &tx);
		for (int f = 0; f < CDICE_EYE; f++) {
			char word[64];
			face_word(c->lang, f, word, sizeof(word));
			msg_button(m, id, move, "eye", word, face(c->lang, f), MSG_PRIMARY);
		}
		break;
	case CDICE_RESPONSE:
		waiting(g, c, &tx);
		msg_button(m, id, move, "respond", NULL, i18n_get(c->lang, S_CD_BUTTON_RESPOND),
		           MSG_PRIMARY);
		break;
	case CDICE_OVER:
	default:
		if (g->winner >= 0 && g->per_player) {
			seat_name(g, c, g->winner, name, sizeof(name));
			i18n_add(&tx, c->lang, S_CD_OVER_WIN_RIVAL,
			         c->m[cdice_owner(g, g->winner)].name, name, NULL);
		} else if (g->winner >= 0) {
			seat_name(g, c, g->winner, name, sizeof(name));
			i18n_add(&tx, c->lang, S_CD_OVER_WIN, name, NULL);
		} else {
			i18n_add(&tx, c->lang, S_CD_OVER_CTHULHU, NULL);
		}
		msg_button(m, id, move, "rematch", NULL, i18n_get(c->lang, S_BUTTON_REMATCH),
		           MSG_PRIMARY);
		break;
	}
}

const struct play_game cdplay = {
	.ops = &cdice_ops,
	.option = option,
	.members = members,
	.setup = setup,
	.member_of = member_of,
	.seat_name = seat_name,
	.actions = actions,
	.nactions = sizeof(actions) / sizeof(actions[0]),
	.action = action,
	.auto_roll = auto_roll,
	.narrate = narrate,
	.render = render,
	.rules = S_CD_RULES,
	.nobody_wins = 1,
	.hint = hint,
	.awaits = awaits,
	.policy_note = policy_note,
	.started = S_STARTED,
	.rematch = S_REMATCH,
	.rematch_drawn = S_CD_REMATCH_DRAWN,
	.lobby_name = lobby_name,
	.bot_name = bot_name,
	.policy = "heuristic",
};
