/* Cthulhu Dice engine: every face in every sanity situation, each ruling of
 * shared/rules/cthulhu-dice.md by id, and invariants over many games. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/cdice.h"

enum { CASTER = 0, VICTIM = 1, OTHER = 2, OTHER2 = 3 };

/* A 4-cultist table with the given sanity, Caster 0, Victim 1, in the
 * phase where `roller` (0 Caster, 1 Victim) is about to roll. Tokens are
 * conserved: the pool holds the rest of the 12. */
static struct cdice table(int roller, int s0, int s1, int s2, int s3)
{
	struct cdice g;
	struct game_setup setup = { .players = 4, .first = CASTER };

	assert_int_equal(cdice_init(&g, &setup), GAME_OK);
	g.sanity[0] = (uint8_t)s0;
	g.sanity[1] = (uint8_t)s1;
	g.sanity[2] = (uint8_t)s2;
	g.sanity[3] = (uint8_t)s3;
	g.pool = (uint8_t)(12 - s0 - s1 - s2 - s3);
	g.victim = VICTIM;
	g.phase = roller == 0 ? CDICE_CURSE : CDICE_RESPONSE;
	return g;
}

static void assert_sanity(const struct cdice *g, const int *want, int pool, const char *what)
{
	for (int i = 0; i < 4; i++) {
		if (g->sanity[i] != want[i])
			fail_msg("%s: seat %d has %d sanity, want %d", what, i, g->sanity[i],
			         want[i]);
	}
	if (g->pool != pool)
		fail_msg("%s: pool %d, want %d", what, g->pool, pool);
}

/* ---- named cases, one or more per ruling ---- */

struct face_case {
	const char *what;
	int roller; /* 0: the Caster's curse, 1: the Victim's response */
	int face;
	int eye; /* the chosen face after an Eye, or -1 */
	int before[4];
	int after[4];
	int pool_after;
	int events[8]; /* event kinds in order after the ROLL (and EYE), -1 ends */
};

#define END (-1)

static const struct face_case face_cases[] = {
	{ "yellow sign on a sane victim",
	  0,
	  CDICE_YELLOW_SIGN,
	  -1,
	  { 3, 3, 3, 3 },
	  { 3, 2, 3, 3 },
	  1,
	  { CDICE_EV_MOVE, END } },
	{ "yellow sign drives a victim at 1 mad",
	  0,
	  CDICE_YELLOW_SIGN,
	  -1,
	  { 3, 1, 3, 3 },
	  { 3, 0, 3, 3 },
	  3,
	  { CDICE_EV_MOVE, CDICE_EV_MAD, END } },
	{ "R10: response yellow sign at a mad caster does nothing",
	  1,
	  CDICE_YELLOW_SIGN,
	  -1,
	  { 0, 3, 3, 3 },
	  { 0, 3, 3, 3 },
	  3,
	  { CDICE_EV_NOTHING, END } },
	{ "response yellow sign targets the caster",
	  1,
	  CDICE_YELLOW_SIGN,
	  -1,
	  { 2, 3, 3, 3 },
	  { 1, 3, 3, 3 },
	  2,
	  { CDICE_EV_MOVE, END } },
	{ "tentacle rolled by caster takes from victim",
	  0,
	  CDICE_TENTACLE,
	  -1,
	  { 3, 3, 3, 3 },
	  { 4, 2, 3, 3 },
	  0,
	  { CDICE_EV_MOVE, END } },
	{ "R5: tentacle rolled by victim still goes to the caster",
	  1,
	  CDICE_TENTACLE,
	  -1,
	  { 3, 3, 3, 3 },
	  { 4, 2, 3, 3 },
	  0,
	  { CDICE_EV_MOVE, END } },
	{ "R5: tentacle on a victim at 0 does nothing",
	  1,
	  CDICE_TENTACLE,
	  -1,
	  { 3, 0, 3, 3 },
	  { 3, 0, 3, 3 },
	  3,
	  { CDICE_EV_NOTHING, END } },
	{ "R6: mad caster's tentacle goes to the pool",
	  0,
	  CDICE_TENTACLE,
	  -1,
	  { 0, 3, 3, 3 },
	  { 0, 2, 3, 3 },
	  4,
	  { CDICE_EV_MOVE, END } },
	{ "R6: victim's tentacle with a mad caster goes to the pool",
	  1,
	  CDICE_TENTACLE,
	  -1,
	  { 0, 2, 3, 3 },
	  { 0, 1, 3, 3 },
	  5,
	  { CDICE_EV_MOVE, END } },
	{ "R6: tentacle from a sane caster restores nobody, victim goes mad",
	  0,
	  CDICE_TENTACLE,
	  -1,
	  { 1, 1, 3, 3 },
	  { 2, 0, 3, 3 },
	  4,
	  { CDICE_EV_MOVE, CDICE_EV_MAD, END } },
	{ "elder sign with an empty pool does nothing",
	  0,
	  CDICE_ELDER_SIGN,
	  -1,
	  { 3, 3, 3, 3 },
	  { 3, 3, 3, 3 },
	  0,
	  { CDICE_EV_NOTHING, END } },
	{ "R1: elder sign has no cap on sanity",
	  0,
	  CDICE_ELDER_SIGN,
	  -1,
	  { 3, 3, 3, 2 },
	  { 4, 3, 3, 2 },
	  0,
	  { CDICE_EV_MOVE, END } },
	{ "elder sign makes a mad caster sane",
	  0,
	  CDICE_ELDER_SIGN,
	  -1,
	  { 0, 3, 3, 3 },
	  { 1, 3, 3, 3 },
	  2,
	  { CDICE_EV_MOVE, CDICE_EV_SANE, END } },
	{ "R9: a victim driven mad responds with an elder sign and is sane",
	  1,
	  CDICE_ELDER_SIGN,
	  -1,
	  { 3, 0, 3, 3 },
	  { 3, 1, 3, 3 },
	  2,
	  { CDICE_EV_MOVE, CDICE_EV_SANE, END } },
	{ "R7: cthulhu takes one from everyone sane, roller included",
	  0,
	  CDICE_CTHULHU,
	  -1,
	  { 3, 2, 1, 0 },
	  { 2, 1, 0, 0 },
	  9,
	  { CDICE_EV_MOVE, CDICE_EV_MOVE, CDICE_EV_MOVE, CDICE_EV_MAD, END } },
	{ "R7: cthulhu with everyone mad does nothing",
	  1,
	  CDICE_CTHULHU,
	  -1,
	  { 0, 0, 0, 0 },
	  { 0, 0, 0, 0 },
	  12,
	  { CDICE_EV_NOTHING, END } },
	{ "R8: eye chosen as yellow sign",
	  0,
	  CDICE_EYE,
	  CDICE_YELLOW_SIGN,
	  { 3, 3, 3, 3 },
	  { 3, 2, 3, 3 },
	  1,
	  { CDICE_EV_MOVE, END } },
	{ "R8: eye chosen as tentacle by the victim",
	  1,
	  CDICE_EYE,
	  CDICE_TENTACLE,
	  { 3, 3, 3, 3 },
	  { 4, 2, 3, 3 },
	  0,
	  { CDICE_EV_MOVE, END } },
	{ "R8: eye chosen as elder sign by the victim",
	  1,
	  CDICE_EYE,
	  CDICE_ELDER_SIGN,
	  { 3, 2, 3, 3 },
	  { 3, 3, 3, 3 },
	  0,
	  { CDICE_EV_MOVE, END } },
	{ "R8: eye chosen as cthulhu",
	  0,
	  CDICE_EYE,
	  CDICE_CTHULHU,
	  { 1, 1, 1, 1 },
	  { 0, 0, 0, 0 },
	  12,
	  { CDICE_EV_MOVE, CDICE_EV_MAD, CDICE_EV_MOVE, CDICE_EV_MAD, CDICE_EV_MOVE, CDICE_EV_MAD,
	    CDICE_EV_MOVE, CDICE_EV_MAD } },
};

static void test_faces(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < sizeof(face_cases) / sizeof(face_cases[0]); i++) {
		const struct face_case *c = &face_cases[i];
		const int *b = c->before;
		struct cdice g = table(c->roller, b[0], b[1], b[2], b[3]);
		struct game_events ev = { 0 };
		int k = 0;

		assert_int_equal(cdice_roll(&g, (enum cdice_face)c->face, &ev), GAME_OK);
		if (c->face == CDICE_EYE) {
			assert_int_equal(g.phase, c->roller ? CDICE_RESPONSE_EYE : CDICE_CURSE_EYE);
			assert_int_equal(cdice_eye(&g, (enum cdice_face)c->eye, &ev), GAME_OK);
		}
		assert_sanity(&g, c->after, c->pool_after, c->what);
		if (ev.ev[k].kind != (c->roller ? CDICE_EV_RESPONSE : CDICE_EV_ROLL) ||
		    ev.ev[k].seat != (c->roller ? VICTIM : CASTER) ||
		    ev.ev[k].target != (c->roller ? CASTER : VICTIM) || ev.ev[k].value != c->face)
			fail_msg("%s: first event is not the roll", c->what);
		k++;
		if (c->face == CDICE_EYE) {
			if (ev.ev[k].kind != CDICE_EV_EYE || ev.ev[k].value != c->eye)
				fail_msg("%s: no eye event", c->what);
			k++;
		}
		for (int j = 0; j < 8 && c->events[j] != END; j++, k++)
			if (k >= ev.n || ev.ev[k].kind != c->events[j])
				fail_msg("%s: event %d is %d, want %d", c->what, k,
				         k < ev.n ? ev.ev[k].kind : -1, c->events[j]);
		/* The response ends the turn and appends the end-of-turn check. */
		if (c->roller == 0 && k != ev.n)
			fail_msg("%s: %d unexpected events", c->what, ev.n - k);
	}
}

/* An independent statement of the face rules, for the exhaustive sweep. */
static void reference(int *s, int *pool, int roller, int face)
{
	int target = roller == CASTER ? VICTIM : CASTER;

	switch (face) {
	case CDICE_YELLOW_SIGN:
		if (s[target]) {
			s[target]--;
			(*pool)++;
		}
		break;
	case CDICE_TENTACLE:
		if (s[VICTIM]) {
			s[VICTIM]--;
			if (s[CASTER])
				s[CASTER]++;
			else
				(*pool)++;
		}
		break;
	case CDICE_ELDER_SIGN:
		if (*pool) {
			(*pool)--;
			s[roller]++;
		}
		break;
	default:
		for (int i = 0; i < 4; i++) {
			if (s[i]) {
				s[i]--;
				(*pool)++;
			}
		}
		break;
	}
}

/* Every face (the Eye as each of its four choices) x caster 3/1/0 x victim
 * 3/1/0 (0 only for the response, R4) x rolled by caster/victim x
 * bystanders sane/mad. */
static void test_faces_exhaustive(void **unused)
{
	static const int levels[3] = { 3, 1, 0 };
	int checked = 0;

	(void)unused;
	for (int roller = 0; roller < 2; roller++)
		for (int c = 0; c < 3; c++)
			for (int v = 0; v < 3; v++)
				for (int by = 0; by < 2; by++)
					for (int f = 0; f < 8; f++) {
						int face = f < 4 ? f : CDICE_EYE,
						    chosen = f < 4 ? f : f - 4;
						int s[4] = { levels[c], levels[v], by ? 0 : 2, 1 };
						int pool = 12 - s[0] - s[1] - s[2] - s[3];
						struct cdice g;
						char what[128];

						if (roller == 0 && levels[v] == 0)
							continue;
						g = table(roller, s[0], s[1], s[2], s[3]);
						snprintf(
						    what, sizeof(what),
						    "%s%s%s by %s, caster %d, victim %d, bystander "
						    "%d",
						    cdice_face_name((enum cdice_face)face),
						    face == CDICE_EYE ? " as " : "",
						    face == CDICE_EYE
						        ? cdice_face_name((enum cdice_face)chosen)
						        : "",
						    roller ? "victim" : "caster", s[0], s[1], s[2]);
						assert_int_equal(
						    cdice_roll(&g, (enum cdice_face)face, NULL),
						    GAME_OK);
						if (face == CDICE_EYE)
							assert_int_equal(
							    cdice_eye(&g, (enum cdice_face)chosen,
							              NULL),
							    GAME_OK);
						reference(s, &pool, roller ? VICTIM : CASTER,
						          chosen);
						assert_sanity(&g, s, pool, what);
						checked++;
					}
	assert_int_equal(checked, 2 * 3 * 3 * 2 * 8 - 3 * 2 * 8);
}

/* ---- the turn ---- */

static struct cdice fresh(int players, int first)
{
	struct cdice g;
	struct game_setup setup = { .players = players, .first = first };

	assert_int_equal(cdice_init(&g, &setup), GAME_OK);
	return g;
}

static void test_r4_victim_choice(void **unused)
{
	struct cdice g = fresh(4, 0), before;
	struct game_step step;

	(void)unused;
	g.sanity[2] = 0;
	g.pool = 3;
	before = g;
	assert_int_equal(cdice_victim(&g, 0, NULL), GAME_EILLEGAL);  /* the Caster */
	assert_int_equal(cdice_victim(&g, 2, NULL), GAME_EILLEGAL);  /* mad */
	assert_int_equal(cdice_victim(&g, 4, NULL), GAME_EILLEGAL);  /* absent */
	assert_int_equal(cdice_victim(&g, -1, NULL), GAME_EILLEGAL); /* absent */
	assert_memory_equal(&g, &before, sizeof(g));
	cdice_step(&g, &step);
	assert_int_equal(step.node, GAME_NODE_CHOICE);
	assert_int_equal(step.seat, 0);
	assert_int_equal(step.count, 2);
	assert_int_equal(step.options[0], 1);
	assert_int_equal(step.options[1], 3);
}

static void test_phase_errors_change_nothing(void **unused)
{
	struct cdice g = fresh(3, 0), before;

	(void)unused;
	before = g;
	assert_int_equal(cdice_roll(&g, CDICE_TENTACLE, NULL), GAME_EPHASE);
	assert_int_equal(cdice_eye(&g, CDICE_TENTACLE, NULL), GAME_EPHASE);
	assert_memory_equal(&g, &before, sizeof(g));
	assert_int_equal(cdice_victim(&g, 1, NULL), GAME_OK);
	before = g;
	assert_int_equal(cdice_victim(&g, 2, NULL), GAME_EPHASE);
	assert_int_equal(cdice_eye(&g, CDICE_TENTACLE, NULL), GAME_EPHASE);
	assert_int_equal(cdice_roll(&g, (enum cdice_face)7, NULL), GAME_EILLEGAL);
	assert_int_equal(cdice_apply(&g, 12, NULL), GAME_EILLEGAL);
	assert_int_equal(cdice_apply(&g, -1, NULL), GAME_EILLEGAL);
	assert_memory_equal(&g, &before, sizeof(g));
	assert_int_equal(cdice_roll(&g, CDICE_EYE, NULL), GAME_OK);
	before = g;
	/* R8: the Eye is not a choice for itself. */
	assert_int_equal(cdice_eye(&g, CDICE_EYE, NULL), GAME_EILLEGAL);
	assert_int_equal(cdice_apply(&g, CDICE_EYE, NULL), GAME_EILLEGAL);
	assert_int_equal(cdice_roll(&g, CDICE_TENTACLE, NULL), GAME_EPHASE);
	assert_memory_equal(&g, &before, sizeof(g));
}

static void test_setup_refused(void **unused)
{
	struct cdice g;
	static const struct game_setup bad[] = {
		{ .players = 1 },
		{ .players = 13 },
		{ .players = 3, .first = 3 },
		{ .players = 3, .first = -1 },
		{ .players = 3, .per_player = 2 },
		{ .players = 2, .per_player = 1 },
		{ .players = 2, .per_player = 4 },
		{ .players = 2, .per_player = 2, .first = 4 },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(cdice_init(&g, &bad[i]), GAME_EARG);
	g = fresh(12, 11);
	assert_int_equal(g.n, 12);
	assert_int_equal(g.caster, 11);
}

/* Plays one turn with the given faces (Eye choices follow an Eye). */
static void turn(struct cdice *g, int victim, int curse, int curse_eye, int response,
                 int response_eye)
{
	assert_int_equal(cdice_victim(g, victim, NULL), GAME_OK);
	assert_int_equal(cdice_roll(g, (enum cdice_face)curse, NULL), GAME_OK);
	if (curse == CDICE_EYE)
		assert_int_equal(cdice_eye(g, (enum cdice_face)curse_eye, NULL), GAME_OK);
	assert_int_equal(cdice_roll(g, (enum cdice_face)response, NULL), GAME_OK);
	if (response == CDICE_EYE)
		assert_int_equal(cdice_eye(g, (enum cdice_face)response_eye, NULL), GAME_OK);
}

static void test_r11_no_end_mid_turn_and_mad_and_back(void **unused)
{
	struct cdice g = fresh(2, 0);
	struct game_result r;

	(void)unused;
	g.sanity[1] = 1;
	g.pool = 2;
	/* The curse drives the only other cultist mad: one sane cultist, but
	 * the turn is not over (R11) and the Victim responds (R9)... */
	assert_int_equal(cdice_victim(&g, 1, NULL), GAME_OK);
	assert_int_equal(cdice_roll(&g, CDICE_YELLOW_SIGN, NULL), GAME_OK);
	assert_int_equal(g.sanity[1], 0);
	assert_int_equal(g.phase, CDICE_RESPONSE);
	cdice_result(&g, &r);
	assert_false(r.over);
	/* ...with an Elder Sign: sane again before the check, so play goes on. */
	assert_int_equal(cdice_roll(&g, CDICE_ELDER_SIGN, NULL), GAME_OK);
	assert_int_equal(g.sanity[1], 1);
	cdice_result(&g, &r);
	assert_false(r.over);
	assert_int_equal(g.phase, CDICE_VICTIM);
	assert_int_equal(g.caster, 1);
	assert_int_equal(g.turn, 1);
}

static void test_r11_end_of_turn_outcomes(void **unused)
{
	struct cdice g = fresh(3, 0);
	struct game_result r;
	struct game_events ev = { 0 };

	(void)unused;
	/* Exactly one sane at the end of the turn: that cultist wins. */
	g.sanity[1] = 1;
	g.sanity[2] = 0;
	g.pool = 5;
	assert_int_equal(cdice_victim(&g, 1, NULL), GAME_OK);
	assert_int_equal(cdice_roll(&g, CDICE_TENTACLE, NULL), GAME_OK);
	assert_int_equal(cdice_roll(&g, CDICE_YELLOW_SIGN, &ev), GAME_OK);
	cdice_result(&g, &r);
	assert_true(r.over);
	assert_int_equal(r.winner, 0);
	assert_int_equal(r.turns, 1);
	assert_int_equal(ev.ev[ev.n - 1].kind, CDICE_EV_END);
	assert_int_equal(ev.ev[ev.n - 1].seat, 0);
	assert_int_equal(cdice_victim(&g, 1, NULL), GAME_EOVER);
	assert_int_equal(cdice_apply(&g, 0, NULL), GAME_EOVER);

	/* Nobody sane: Cthulhu wins. */
	g = fresh(3, 1);
	g.sanity[0] = 1;
	g.sanity[1] = 1;
	g.sanity[2] = 0;
	g.pool = 7;
	turn(&g, 0, CDICE_CTHULHU, -1, CDICE_YELLOW_SIGN, -1);
	cdice_result(&g, &r);
	assert_true(r.over);
	assert_int_equal(r.winner, CDICE_CTHULHU_WINS);
	assert_int_equal(r.player, -1);
}

static void test_r3_mad_caster_casts(void **unused)
{
	struct cdice g = fresh(3, 0);
	struct game_step step;

	(void)unused;
	g.sanity[1] = 0;
	g.pool = 3;
	turn(&g, 2, CDICE_YELLOW_SIGN, -1, CDICE_YELLOW_SIGN, -1);
	cdice_step(&g, &step);
	assert_int_equal(step.node, GAME_NODE_CHOICE);
	assert_int_equal(step.seat, 1); /* mad, still the Caster */
	assert_int_equal(step.count, 2);
	/* R6 at the moment of resolution: a Caster driven mad by the curse's
	 * Cthulhu gets nothing from the Victim's Tentacle. */
	g = fresh(3, 0);
	g.sanity[0] = 1;
	g.pool = 2;
	turn(&g, 1, CDICE_CTHULHU, -1, CDICE_TENTACLE, -1);
	assert_int_equal(g.sanity[0], 0);
	assert_int_equal(g.sanity[1], 1);
	assert_int_equal(g.pool, 6);
}

static void test_turn_order_wraps(void **unused)
{
	struct cdice g = fresh(3, 1);

	(void)unused;
	turn(&g, 2, CDICE_ELDER_SIGN, -1, CDICE_ELDER_SIGN, -1);
	assert_int_equal(g.caster, 2);
	turn(&g, 0, CDICE_ELDER_SIGN, -1, CDICE_ELDER_SIGN, -1);
	assert_int_equal(g.caster, 0);
	turn(&g, 1, CDICE_ELDER_SIGN, -1, CDICE_ELDER_SIGN, -1);
	assert_int_equal(g.caster, 1);
	assert_int_equal(g.turn, 3);
}

static void test_r12_r13_rival_cults(void **unused)
{
	struct cdice g;
	struct game_setup setup = { .players = 2, .per_player = 3, .first = 0 };
	struct game_result r;

	(void)unused;
	assert_int_equal(cdice_init(&g, &setup), GAME_OK);
	assert_int_equal(g.n, 6);
	for (int s = 0; s < 6; s++)
		assert_int_equal(cdice_owner(&g, s), s % 2); /* A1 B1 A2 B2 A3 B3 (R12) */
	/* Cursing one's own cultist is legal. */
	assert_int_equal(cdice_victim(&g, 2, NULL), GAME_OK);
	assert_int_equal(cdice_roll(&g, CDICE_TENTACLE, NULL), GAME_OK);
	assert_int_equal(cdice_roll(&g, CDICE_ELDER_SIGN, NULL), GAME_OK);
	assert_int_equal(g.caster, 1); /* player B's first cultist */

	/* Last sane cultist belongs to player B: B wins (R13). */
	assert_int_equal(cdice_init(&g, &setup), GAME_OK);
	memset(g.sanity, 0, sizeof(g.sanity));
	g.sanity[1] = 1;
	g.sanity[3] = 2;
	g.pool = 15;
	g.caster = 3;
	turn(&g, 1, CDICE_YELLOW_SIGN, -1, CDICE_YELLOW_SIGN, -1);
	cdice_result(&g, &r);
	assert_true(r.over);
	assert_int_equal(r.winner, 3);
	assert_int_equal(r.player, 1);

	/* Two sane cultists of one player: not over yet (per cultist, R13). */
	assert_int_equal(cdice_init(&g, &setup), GAME_OK);
	memset(g.sanity, 0, sizeof(g.sanity));
	g.sanity[0] = 2;
	g.sanity[2] = 2;
	g.pool = 14;
	turn(&g, 2, CDICE_ELDER_SIGN, -1, CDICE_ELDER_SIGN, -1);
	cdice_result(&g, &r);
	assert_false(r.over);
}

static void test_r2_series_first_caster(void **unused)
{
	struct game_result won = { .over = 1, .winner = 2, .player = 2 };
	struct game_result cthulhu = { .over = 1, .winner = -1, .player = -1 };

	(void)unused;
	assert_int_equal(cdice_series_first(&won, 0), 2);
	assert_int_equal(cdice_series_first(&cthulhu, 1), 1);
	assert_int_equal(cdice_series_first(NULL, 1), 1);
}

static void test_die_faces(void **unused)
{
	int count[CDICE_FACES] = { 0 };

	(void)unused;
	for (int v = 0; v < CDICE_DIE; v++)
		count[cdice_die_face(v)]++;
	assert_int_equal(count[CDICE_YELLOW_SIGN], 5);
	assert_int_equal(count[CDICE_TENTACLE], 4);
	assert_int_equal(count[CDICE_ELDER_SIGN], 1);
	assert_int_equal(count[CDICE_CTHULHU], 1);
	assert_int_equal(count[CDICE_EYE], 1);
	for (int f = 0; f < CDICE_FACES; f++) {
		assert_int_equal(cdice_die_face(cdice_face_die((enum cdice_face)f)), f);
		assert_int_equal(cdice_face_parse(cdice_face_name((enum cdice_face)f)), f);
	}
	assert_int_equal(cdice_face_parse("tentacles"), -1);
}

/* Rebuilds sanity and pool from MOVE events and checks the engine's own
 * state, conservation, and that END comes only from a response. */
static void check_invariants(const struct cdice *g, const struct game_events *ev, int *sane,
                             int *pool, int phase_before)
{
	int sum = g->pool;

	for (int k = 0; k < ev->n; k++) {
		const struct game_event *e = &ev->ev[k];
		if (e->kind == CDICE_EV_MOVE) {
			if (e->seat == CDICE_POOL)
				(*pool)--;
			else
				sane[e->seat]--;
			if (e->target == CDICE_POOL)
				(*pool)++;
			else
				sane[e->target]++;
		}
		if (e->kind == CDICE_EV_END)
			assert_true(phase_before == CDICE_RESPONSE ||
			            phase_before == CDICE_RESPONSE_EYE);
	}
	for (int i = 0; i < g->n; i++) {
		assert_true(g->sanity[i] <= 3 * g->n); /* never below 0 (no wrap) */
		assert_int_equal(sane[i], g->sanity[i]);
		sum += g->sanity[i];
	}
	assert_int_equal(*pool, g->pool);
	assert_int_equal(sum, 3 * g->n);
	if (g->phase == CDICE_OVER) {
		assert_true(phase_before == CDICE_RESPONSE || phase_before == CDICE_RESPONSE_EYE);
	}
}

static void test_invariants_many_games(void **unused)
{
	static const struct game_setup setups[] = {
		{ .players = 2 },
		{ .players = 3 },
		{ .players = 5, .first = 4 },
		{ .players = 12, .first = 7 },
		{ .players = 2, .per_player = 2 },
		{ .players = 2, .per_player = 3, .first = 1 },
	};
	long games = 0;

	(void)unused;
	for (size_t si = 0; si < sizeof(setups) / sizeof(setups[0]); si++) {
		for (int n = 0; n < 3000; n++, games++) {
			struct cdice g;
			struct rng rng;
			int sane[CDICE_MAX], pool = 0;

			rng_seed_stream(&rng, 42, (uint64_t)games);
			assert_int_equal(cdice_init(&g, &setups[si]), GAME_OK);
			for (int i = 0; i < g.n; i++)
				sane[i] = 3;
			for (;;) {
				struct game_step step;
				struct game_events ev = { 0 };
				int phase = g.phase, value;

				cdice_step(&g, &step);
				if (step.node == GAME_NODE_OVER)
					break;
				value = step.node == GAME_NODE_CHANCE
				            ? (int)rng_below(&rng, CDICE_DIE)
				            : (n & 1 ? cdice_policy_heuristic
				                     : cdice_policy_random)(&g, &step, &rng);
				assert_int_equal(cdice_apply(&g, value, &ev), GAME_OK);
				check_invariants(&g, &ev, sane, &pool, phase);
			}
		}
	}
}

/* Every field of two states (the padding aside) is the same. */
static void assert_same_state(const struct cdice *a, const struct cdice *b, const char *what)
{
	if (a->n != b->n || a->per_player != b->per_player || a->phase != b->phase ||
	    a->caster != b->caster || a->victim != b->victim || a->pool != b->pool ||
	    a->winner != b->winner || a->turn != b->turn ||
	    memcmp(a->sanity, b->sanity, sizeof(a->sanity)) != 0)
		fail_msg("%s: states differ (phase %d/%d, turn %u/%u, winner %d/%d, pool %d/%d)",
		         what, a->phase, b->phase, a->turn, b->turn, a->winner, b->winner, a->pool,
		         b->pool);
}

/* A finished game's state keeps the tokens and ends by R11. */
static void assert_finished(const struct cdice *g)
{
	int sum = g->pool, sane = 0, last = -1;

	assert_int_equal(g->phase, CDICE_OVER);
	for (int i = 0; i < g->n; i++) {
		sum += g->sanity[i];
		if (g->sanity[i] > 0) {
			sane++;
			last = i;
		}
	}
	assert_int_equal(sum, 3 * g->n);
	assert_true(sane <= 1);
	assert_int_equal(g->winner, sane == 1 ? last : CDICE_CTHULHU_WINS);
}

/* The fast path (cdice_play, cdice_ops.play, game_play_fast) plays the same
 * games as the generic one (game_play) and as the event path (step, apply
 * with events, whose log of values replays to the same state): the same
 * final state, the same rng state after (so the same draws), the same count
 * of values, from the start and from every kind of node mid-game. */
static void test_fast_path_same_games(void **unused)
{
	static const struct game_setup setups[] = {
		{ .players = 2 },
		{ .players = 3 },
		{ .players = 4, .first = 2 },
		{ .players = 5, .first = 4 },
		{ .players = 12, .first = 7 },
		{ .players = 2, .per_player = 2 },
		{ .players = 2, .per_player = 3, .first = 1 },
	};
	const struct game_policy *random = game_policy_find(&cdice_ops, "random");
	const struct game_policy *heuristic = game_policy_find(&cdice_ops, "heuristic");
	const struct game_policy *solver = game_policy_find(&cdice_ops, "solver");
	long games = 0, resumed[CDICE_OVER + 1] = { 0 };

	(void)unused;
	assert_non_null(random);
	assert_non_null(heuristic);
	assert_non_null(solver);
	assert_ptr_equal(cdice_ops.play != NULL, 1);
	for (size_t si = 0; si < sizeof(setups) / sizeof(setups[0]); si++) {
		for (int n = 0; n < 2000; n++, games++) {
			const struct game_policy *pol[CDICE_MAX];
			struct cdice start, ev_path, generic, fast, via_ops, replayed;
			struct rng rng, r_ev, r_generic, r_fast, r_ops;
			int log[4096], logged = 0, skip = n % 9;
			long count_generic, count_fast, count_ops;

			for (int s = 0; s < CDICE_MAX; s++)
				pol[s] = n % 4 == 0   ? random
				         : n % 4 == 1 ? heuristic
				         : n % 4 == 2 ? (s % 2 ? heuristic : random)
				                      : (s % 3 ? random : solver);
			rng_seed_stream(&rng, 7, (uint64_t)games);
			assert_int_equal(cdice_init(&start, &setups[si]), GAME_OK);
			/* Some values first, so that both paths also start mid-game. */
			for (int k = 0; k < skip; k++) {
				struct game_step step;
				struct game_events ev = { 0 };
				int value;

				cdice_step(&start, &step);
				if (step.node == GAME_NODE_OVER)
					break;
				value = step.node == GAME_NODE_CHANCE
				            ? (int)rng_below(&rng, CDICE_DIE)
				            : pol[step.seat]->choose(&start, &step, &rng);
				assert_int_equal(cdice_apply(&start, value, &ev), GAME_OK);
				log[logged++] = value;
			}
			skip = logged;
			resumed[start.phase]++;
			ev_path = generic = fast = via_ops = start;
			r_ev = r_generic = r_fast = r_ops = rng;

			for (;;) {
				struct game_step step;
				struct game_events ev = { 0 };
				int value;

				cdice_step(&ev_path, &step);
				if (step.node == GAME_NODE_OVER)
					break;
				value = step.node == GAME_NODE_CHANCE
				            ? (int)rng_below(&r_ev, CDICE_DIE)
				            : pol[step.seat]->choose(&ev_path, &step, &r_ev);
				assert_int_equal(cdice_apply(&ev_path, value, &ev), GAME_OK);
				assert_true(ev.n > 0);
				assert_true(logged < (int)(sizeof(log) / sizeof(log[0])));
				log[logged++] = value;
			}
			count_generic = game_play(&cdice_ops, &generic, pol, &r_generic);
			count_fast = cdice_play(&fast, pol, &r_fast);
			count_ops = game_play_fast(&cdice_ops, &via_ops, pol, &r_ops);

			assert_finished(&ev_path);
			assert_finished(&fast);
			assert_same_state(&ev_path, &generic, "generic");
			assert_same_state(&ev_path, &fast, "cdice_play");
			assert_same_state(&ev_path, &via_ops, "game_play_fast");
			assert_memory_equal(&r_ev, &r_generic, sizeof(rng));
			assert_memory_equal(&r_ev, &r_fast, sizeof(rng));
			assert_memory_equal(&r_ev, &r_ops, sizeof(rng));
			assert_int_equal(count_fast, count_generic);
			assert_int_equal(count_ops, count_generic);
			assert_int_equal(count_generic + skip, logged);

			/* The log replays to the state both paths reached. */
			assert_int_equal(cdice_init(&replayed, &setups[si]), GAME_OK);
			for (int k = 0; k < logged; k++) {
				struct game_events ev = { 0 };
				assert_int_equal(cdice_apply(&replayed, log[k], &ev), GAME_OK);
			}
			assert_same_state(&replayed, &fast, "replayed log");

			/* A finished game stays finished on both paths. */
			assert_int_equal(cdice_play(&fast, pol, &r_fast), 0);
			assert_int_equal(game_play(&cdice_ops, &generic, pol, &r_generic), 0);
			assert_memory_equal(&r_fast, &r_ev, sizeof(rng));
		}
	}
	/* The games resumed at every kind of node. */
	for (int phase = CDICE_VICTIM; phase <= CDICE_RESPONSE_EYE; phase++)
		if (resumed[phase] == 0)
			fail_msg("no game resumed at phase %d", phase);
}

/* The sim's numbers for a seed are the same by either path: 3-player
 * random games, counted as sim.c counts them. */
static void test_fast_path_counts(void **unused)
{
	const struct game_policy *random = game_policy_find(&cdice_ops, "random");
	const struct game_policy *pol[3] = { random, random, random };
	const struct game_setup setup = { .players = 3 };
	long long wins[2][4] = { { 0 } }, turns[2] = { 0 }, values[2] = { 0 };

	(void)unused;
	for (int path = 0; path < 2; path++) {
		for (uint64_t g = 0; g < 20000; g++) {
			struct cdice game;
			struct rng rng;
			struct game_result res;

			rng_seed_stream(&rng, 1, g);
			assert_int_equal(cdice_init(&game, &setup), GAME_OK);
			values[path] += path ? game_play_fast(&cdice_ops, &game, pol, &rng)
			                     : game_play(&cdice_ops, &game, pol, &rng);
			cdice_result(&game, &res);
			assert_true(res.over);
			wins[path][res.winner + 1]++;
			turns[path] += res.turns;
		}
	}
	assert_memory_equal(wins[0], wins[1], sizeof(wins[0]));
	assert_int_equal(turns[0], turns[1]);
	assert_int_equal(values[0], values[1]);
	/* Seat 0 wins most often, about 0.357 of the games (the rules' figure). */
	assert_true(wins[0][1] > 6800 && wins[0][1] < 7500);
}

/* A solver hook for test_solver_hook: the last option where g's caster is
 * seat 1, nothing (-1) elsewhere; counts its calls. */
static int hook_calls;

static int last_option_for_seat1(const struct cdice *g, const struct game_step *step,
                                 struct rng *rng)
{
	(void)rng;
	hook_calls++;
	return g->caster == 1 ? step->options[step->count - 1] : -1;
}

/* The "solver" policy plays what the installed hook chooses, and plays as
 * "heuristic" where the hook has nothing or none is installed. */
static void test_solver_hook(void **unused)
{
	const struct game_setup setup = { .players = 4 };
	struct cdice g;
	struct game_step step;
	struct rng rng;
	int heuristic;

	(void)unused;
	rng_seed_stream(&rng, 3, 0);
	assert_int_equal(cdice_init(&g, &setup), GAME_OK);
	g.sanity[1] = 5; /* the heuristic curses the sanest rival: seat 1 */
	g.pool = (uint8_t)(g.pool - 2);
	cdice_step(&g, &step);
	assert_int_equal(step.node, GAME_NODE_CHOICE);
	heuristic = cdice_policy_heuristic(&g, &step, &rng);
	assert_int_equal(heuristic, 1);
	assert_int_equal(cdice_policy_solver(&g, &step, &rng), heuristic); /* no hook */
	cdice_set_solver(last_option_for_seat1);
	assert_int_equal(cdice_policy_solver(&g, &step, &rng), heuristic); /* caster 0: -1 */
	assert_int_equal(hook_calls, 1);
	g.caster = 1;
	cdice_step(&g, &step);
	assert_int_equal(cdice_policy_solver(&g, &step, &rng), 3);
	assert_int_equal(hook_calls, 2);
	cdice_set_solver(NULL);
	assert_int_equal(cdice_policy_solver(&g, &step, &rng),
	                 cdice_policy_heuristic(&g, &step, &rng));
	assert_int_equal(hook_calls, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_faces),
		cmocka_unit_test(test_faces_exhaustive),
		cmocka_unit_test(test_r4_victim_choice),
		cmocka_unit_test(test_phase_errors_change_nothing),
		cmocka_unit_test(test_setup_refused),
		cmocka_unit_test(test_r11_no_end_mid_turn_and_mad_and_back),
		cmocka_unit_test(test_r11_end_of_turn_outcomes),
		cmocka_unit_test(test_r3_mad_caster_casts),
		cmocka_unit_test(test_turn_order_wraps),
		cmocka_unit_test(test_r12_r13_rival_cults),
		cmocka_unit_test(test_r2_series_first_caster),
		cmocka_unit_test(test_die_faces),
		cmocka_unit_test(test_invariants_many_games),
		cmocka_unit_test(test_fast_path_same_games),
		cmocka_unit_test(test_fast_path_counts),
		cmocka_unit_test(test_solver_hook),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
