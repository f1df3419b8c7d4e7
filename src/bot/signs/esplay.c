/* esplay: Elder Signs at the table — seats, the two actions (roll again,
 * retreat), narration and the table message. Every draw and roll is made
 * by the bot; a player only decides at the DECIDE node. */
#include <stdio.h>
#include <string.h>

#include "rlyeh/esigns.h"
#include "rlyeh/i18n.h"
#include "rlyeh/play.h"

enum { ACT_ROLL, ACT_RETREAT };

static const struct play_action actions[] = {
	{ "roll",
	  "werpen",
	  "Elder Signs: keep the Clue dice, draw up to 3 and roll again",
	  "Elder Signs: houd de Aanwijzingen, trek tot 3 en werp opnieuw",
	  { { 0 } },
	  ACT_ROLL },
	{ "retreat",
	  "terugtrekken",
	  "Elder Signs: stop and bank the Elder Signs at stake",
	  "Elder Signs: stop en bewaar de Tekens op het spel",
	  { { 0 } },
	  ACT_RETREAT },
};

static const int kind_ids[ESIGNS_KINDS] = { S_ES_LIBRARY, S_ES_MUSEUM, S_ES_TOMB };
static const int face_ids[ESIGNS_FACES] = { S_ES_ELDER_SIGN, S_ES_CLUE, S_ES_TENTACLE };

static const char *kind(int lang, int k)
{
	return k >= 0 && k < ESIGNS_KINDS ? i18n_get(lang, kind_ids[k]) : "?";
}

static const char *face(int lang, int f)
{
	return f >= 0 && f < ESIGNS_FACES ? i18n_get(lang, face_ids[f]) : "?";
}

static int option(const char *word, struct store_game *row)
{
	(void)word;
	(void)row;
	return -1;
}

static void members(const struct store_game *row, int *min, int *max)
{
	(void)row;
	*min = ESIGNS_MIN;
	*max = ESIGNS_MAX;
}

static void setup(const struct store_game *row, int nm, struct game_setup *out)
{
	(void)row;
	out->players = nm;
	out->per_player = 0;
	out->first = 0;
}

static int member_of(const void *state, int seat)
{
	(void)state;
	return seat;
}

static void seat_name(const void *state, const struct play_ctx *c, int seat, char *buf, size_t cap)
{
	(void)state;
	snprintf(buf, cap, "%s", seat >= 0 && seat < c->nm ? c->m[seat].name : "?");
}

static void number(char *buf, size_t cap, long n)
{
	snprintf(buf, cap, "%ld", n);
}

/* "Library 2, Tomb 1" for the dice counts of each kind, or "none". */
static void dice(const int *count, int lang, struct text *out)
{
	char n[16];
	int any = 0;

	for (int k = 0; k < ESIGNS_KINDS; k++) {
		if (!count[k])
			continue;
		number(n, sizeof(n), count[k]);
		text_add(out, any++ ? ", " : "");
		i18n_add(out, lang, S_ES_COUNT, kind(lang, k), n, NULL);
	}
	if (!any)
		i18n_add(out, lang, S_ES_NONE, NULL);
}

/* The counts of one place (esigns_bag, esigns_hand…) by kind. */
static void counts(const struct esigns *g, int (*of)(const struct esigns *, enum esigns_kind),
                   int *out)
{
	for (int k = 0; k < ESIGNS_KINDS; k++)
		out[k] = of(g, (enum esigns_kind)k);
}

/* The numbers of the decision awaited: the chance in percent that the
 * next throw downs the seat, and the Elder Signs at stake. */
static void decision(const struct esigns *g, char pct[16], char stake[16])
{
	struct esigns_odds o;

	esigns_odds(g, &o);
	snprintf(pct, 16, "%.0f", 100.0 * o.down);
	number(stake, 16, esigns_stash(g));
}

/* What the table waits for, as one line in c->lang. */
static void waiting(const struct esigns *g, const struct play_ctx *c, struct text *out)
{
	char name[80], pct[16], stake[16];

	seat_name(g, c, g->seat, name, sizeof(name));
	if (g->phase != ESIGNS_DECIDE) {
		text_add(out, name);
		return;
	}
	decision(g, pct, stake);
	i18n_add(out, c->lang, S_ES_WAIT, name, pct, stake, NULL);
}

/* What the table awaits from member who (play.h: awaits). */
static int awaits(const void *state, const struct play_ctx *c, int who, struct text *out)
{
	const struct esigns *g = state;
	char pct[16], stake[16];

	if (g->phase != ESIGNS_DECIDE || esigns_turn_seat(g) != who)
		return 0;
	decision(g, pct, stake);
	i18n_add(out, c->lang, S_ES_AWAITS, pct, stake, NULL);
	return 1;
}

static int action(const void *state, const struct play_ctx *c, int who, const struct cmd *cmd,
                  int *value, struct text *err)
{
	const struct esigns *g = state;
	int code = play_action_code(&esplay, cmd);
	char name[80];

	if ((code != ACT_ROLL && code != ACT_RETREAT) && awaits(g, c, who, err))
		return -1;
	if (esigns_turn_seat(g) != who) {
		seat_name(g, c, g->seat, name, sizeof(name));
		i18n_add(err, c->lang, S_ES_ERR_NOT_YOUR_TURN, name, NULL);
		return -1;
	}
	if (g->phase != ESIGNS_DECIDE || (code != ACT_ROLL && code != ACT_RETREAT)) {
		i18n_add(err, c->lang, S_ES_ERR_PHASE, NULL);
		return -1;
	}
	if (cmd->nargs) {
		i18n_add(err, c->lang, S_ERR_USAGE, code == ACT_ROLL ? "/roll" : "/retreat", NULL);
		return -1;
	}
	*value = code == ACT_ROLL ? ESIGNS_CONTINUE : ESIGNS_RETREAT;
	return 0;
}

static int auto_roll(const void *state, const struct game_step *step)
{
	(void)state;
	(void)step;
	return 1; /* draws and rolls belong to the decision before them */
}

/* The names of the seats whose bits are set in mask, comma separated. */
static void seat_list(const struct esigns *g, const struct play_ctx *c, int mask, struct text *out)
{
	char name[80];
	int any = 0;

	for (int s = 0; s < g->n; s++) {
		if (!(mask >> s & 1))
			continue;
		seat_name(g, c, s, name, sizeof(name));
		text_add(out, any++ ? ", " : "");
		text_add(out, name);
	}
}

static void narrate(const void *state, const struct game_event *ev, int n, const struct play_ctx *c,
                    struct text *out)
{
	const struct esigns *g = state;
	char a[80], x[16], y[16], list[512];
	struct text lt;

	for (int i = 0; i < n; i++) {
		const struct game_event *e = &ev[i];
		seat_name(g, c, e->seat, a, sizeof(a));
		number(x, sizeof(x), e->target);
		number(y, sizeof(y), e->value);
		switch (e->kind) {
		case ESIGNS_EV_TURN:
			i18n_add(out, c->lang, S_ES_N_TURN, x, y, a, NULL);
			break;
		case ESIGNS_EV_DRAW:
			i18n_add(out, c->lang, S_ES_N_DRAW, a, kind(c->lang, e->target), y, NULL);
			break;
		case ESIGNS_EV_ROLL:
			i18n_add(out, c->lang, S_ES_N_ROLL, kind(c->lang, e->target),
			         face(c->lang, e->value), NULL);
			break;
		case ESIGNS_EV_REFILL:
			i18n_add(out, c->lang, S_ES_N_REFILL, y, x, NULL);
			break;
		case ESIGNS_EV_DOWNED:
			i18n_add(out, c->lang, S_ES_N_DOWNED, a, x, y, NULL);
			break;
		case ESIGNS_EV_CONTINUE:
			i18n_add(out, c->lang, S_ES_N_CONTINUE, a, x, y, NULL);
			break;
		case ESIGNS_EV_BANK:
			i18n_add(out, c->lang, S_ES_N_BANK, a, y, x, NULL);
			break;
		case ESIGNS_EV_ROUND:
			i18n_add(out, c->lang, S_ES_N_ROUND, y, NULL);
			break;
		case ESIGNS_EV_DEVOURED:
			i18n_add(out, c->lang, S_ES_N_DEVOURED, a, y, NULL);
			break;
		case ESIGNS_EV_TIEBREAK:
			text_init(&lt, list, sizeof(list));
			seat_list(g, c, e->value, &lt);
			i18n_add(out, c->lang, S_ES_N_TIEBREAK, x, list, NULL);
			break;
		case ESIGNS_EV_END:
			i18n_add(out, c->lang, S_ES_N_WIN, a, x, y, NULL);
			break;
		default:
			continue;
		}
		text_add(out, "\n");
	}
}

/* One seat's field: score and tags. */
static void seat_field(const struct esigns *g, const struct play_ctx *c, int s, struct msg *m)
{
	char name[80], value[128], num[16];
	int over = g->phase == ESIGNS_OVER, decided = over || g->tiebreak;
	struct text vt;

	seat_name(g, c, s, name, sizeof(name));
	number(num, sizeof(num), esigns_score(g, s));
	text_init(&vt, value, sizeof(value));
	i18n_add(&vt, c->lang, S_ES_SCORE, num, NULL);
	if (!over && s == g->seat)
		i18n_add(&vt, c->lang, S_ES_TURN_TAG, NULL);
	if (!over && g->tiebreak && esigns_in(g, s))
		i18n_add(&vt, c->lang, S_ES_TIEBREAK_TAG, NULL);
	if (decided && esigns_score(g, s) < ESIGNS_GOAL)
		i18n_add(&vt, c->lang, S_ES_DEVOURED_TAG, NULL);
	if (over && s == g->winner)
		i18n_add(&vt, c->lang, S_ES_WINNER_TAG, NULL);
	msg_field(m, name, value);
}

/* A field of dice: `head` then the dice by kind in brackets, or without a
 * head the dice alone ("none" when there are none). */
static void dice_field(struct msg *m, const struct play_ctx *c, int name, const char *head,
                       const int *count)
{
	char value[128];
	struct text vt;

	text_init(&vt, value, sizeof(value));
	if (head)
		text_add(&vt, head);
	if (head && count[0] + count[1] + count[2])
		text_add(&vt, " (");
	if (!head || count[0] + count[1] + count[2])
		dice(count, c->lang, &vt);
	if (head && count[0] + count[1] + count[2])
		text_add(&vt, ")");
	msg_field(m, i18n_get(c->lang, name), value);
}

/* The fields of the turn under way: Clue dice, stash, Tentacles, bag. */
static void turn_fields(const struct esigns *g, const struct play_ctx *c, struct msg *m)
{
	char head[32];
	int count[ESIGNS_KINDS];

	counts(g, esigns_hand, count);
	dice_field(m, c, S_ES_HAND, NULL, count);
	counts(g, esigns_stash_dice, count);
	snprintf(head, sizeof(head), "%d", esigns_stash(g));
	dice_field(m, c, S_ES_STASH, head, count);
	counts(g, esigns_pile, count);
	snprintf(head, sizeof(head), "%d/%d", esigns_tentacles(g), ESIGNS_DOWNED);
	dice_field(m, c, S_ES_TENTACLES, head, count);
	counts(g, esigns_bag, count);
	snprintf(head, sizeof(head), "%d", count[0] + count[1] + count[2]);
	dice_field(m, c, S_ES_BAG, head, count);
}

static void render(const void *state, const struct play_ctx *c, struct msg *m)
{
	const struct esigns *g = state;
	char name[80], round[16], tie[16];
	struct text tx;
	int64_t id = c->row->id;
	int move = c->row->moves;

	number(round, sizeof(round), esigns_round(g));
	number(tie, sizeof(tie), esigns_tiebreak(g));
	text_init(&tx, m->title, sizeof(m->title));
	i18n_add(&tx, c->lang, g->tiebreak ? S_ES_TITLE_TIEBREAK : S_ES_TITLE, round, tie, NULL);
	for (int s = 0; s < g->n; s++)
		seat_field(g, c, s, m);
	text_init(&tx, m->text, sizeof(m->text));
	if (g->phase != ESIGNS_OVER) {
		turn_fields(g, c, m);
		waiting(g, c, &tx);
		if (g->phase == ESIGNS_DECIDE) {
			msg_button(m, id, move, "roll", NULL, i18n_get(c->lang, S_ES_BUTTON_ROLL),
			           MSG_PRIMARY);
			msg_button(m, id, move, "retreat", NULL,
			           i18n_get(c->lang, S_ES_BUTTON_RETREAT), MSG_SECONDARY);
		}
		return;
	}
	seat_name(g, c, g->winner, name, sizeof(name));
	number(round, sizeof(round), esigns_score(g, g->winner));
	i18n_add(&tx, c->lang, S_ES_OVER_WIN, name, round, NULL);
	msg_button(m, id, move, "rematch", NULL, i18n_get(c->lang, S_BUTTON_REMATCH), MSG_PRIMARY);
}

const struct play_game esplay = {
	.ops = &esigns_ops,
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
	.rules = S_ES_RULES,
	.awaits = awaits,
	.started = S_ES_STARTED,
	.rematch = S_ES_REMATCH,
	.policy = "expect",
};
