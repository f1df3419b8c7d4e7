/* Elder Signs engine: each rule and ruling of shared/rules/press-your-luck.md
 * by id, invariants over many games, replay, errors and the policies.
 *
 * Rule ids: "Turn 1" to "Turn 5" are the numbered steps of "A turn", "End 1"
 * and "End 2" the two bullets of "End of the game"; P1 and P2 the rulings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/esigns.h"
#include "rlyeh/esturn.h"

static const int kind_dice[ESIGNS_KINDS] = { 8, 4, 3 };

static struct esigns fresh(int players, int first)
{
	struct esigns g;
	struct game_setup setup = { .players = players, .first = first };

	assert_int_equal(esigns_init(&g, &setup), GAME_OK);
	return g;
}

/* ---- scripted play ---- */

static const char *const phase_names[] = { "draw", "roll", "decide", "over" };
static const char *const event_names[] = {
	"turn", "draw",  "roll",     "refill",   "downed", "continue",
	"bank", "round", "devoured", "tiebreak", "end",
};

/* Appends `fmt` to buf (capacity cap, always terminated). */
static void append(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t cap, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + len, cap - len, fmt, ap);
	va_end(ap);
}

/* The state, in one line: "seat S PHASE bag L/M/T hand L/M/T stash L/M/T
 * pile L/M/T signs N scores A/B/C round R tiebreak K in SEATS". */
static void describe(const struct esigns *g, char *buf, size_t cap)
{
	buf[0] = '\0';
	append(buf, cap, "seat %d %s", esigns_turn_seat(g), phase_names[g->phase]);
	append(buf, cap, " bag %d/%d/%d", g->bag[0], g->bag[1], g->bag[2]);
	append(buf, cap, " hand %d/%d/%d", g->hand[0], g->hand[1], g->hand[2]);
	append(buf, cap, " stash %d/%d/%d", g->stash[0], g->stash[1], g->stash[2]);
	append(buf, cap, " pile %d/%d/%d", g->pile[0], g->pile[1], g->pile[2]);
	append(buf, cap, " signs %d scores", esigns_stash(g));
	for (int s = 0; s < g->n; s++)
		append(buf, cap, "%s%ld", s ? "/" : " ", esigns_score(g, s));
	append(buf, cap, " round %d tiebreak %d in", esigns_round(g), esigns_tiebreak(g));
	for (int s = 0; s < g->n; s++)
		if (esigns_in(g, s))
			append(buf, cap, " %d", s);
}

/* Events as "name seat target value; ...". */
static void describe_events(const struct game_events *ev, char *buf, size_t cap)
{
	buf[0] = '\0';
	for (int k = 0; k < ev->n; k++)
		append(buf, cap, "%s%s %d %d %d", k ? "; " : "", event_names[ev->ev[k].kind],
		       ev->ev[k].seat, ev->ev[k].target, ev->ev[k].value);
}

/* Plays `script`: words separated by spaces, "L", "M", "T" draw that kind,
 * "e", "c", "x" roll an Elder Sign, a Clue, a Tentacle, "go" continues and
 * "bank" retreats. `last` receives the events of the last word. */
static void play(struct esigns *g, const char *what, const char *script, struct game_events *last)
{
	char word[8];
	int at = 0, len;

	while (sscanf(script + at, "%7s%n", word, &len) == 1) {
		int rc = GAME_EARG;

		at += len;
		memset(last, 0, sizeof(*last));
		if (strcmp(word, "go") == 0)
			rc = esigns_decide(g, ESIGNS_CONTINUE, last);
		else if (strcmp(word, "bank") == 0)
			rc = esigns_decide(g, ESIGNS_RETREAT, last);
		else if (strchr("LMT", word[0]) && !word[1])
			rc = esigns_draw(g, (enum esigns_kind)(strchr("LMT", word[0]) - "LMT"),
			                 last);
		else if (strchr("ecx", word[0]) && !word[1])
			rc = esigns_roll(g, (enum esigns_face)(strchr("ecx", word[0]) - "ecx"),
			                 last);
		else
			fail_msg("%s: bad script word '%s'", what, word);
		if (rc != GAME_OK)
			fail_msg("%s: '%s' at %d: %s", what, word, at, game_strerror(rc));
	}
}

/* Shorthands for whole turns. */
#define DOWN  "T T T x x x "      /* downed at once, nothing banked */
#define BANK1 "L L L e c c bank " /* banks 1 */
#define BANK2 "L L L e e c bank " /* banks 2 */
#define BANK3 "L L L e e e bank " /* banks 3 */

struct rule_case {
	const char *what;
	int players, first;
	int score[3]; /* scores before the script */
	const char *script;
	const char *state;  /* describe() after it */
	const char *events; /* describe_events() of its last word */
};

static const struct rule_case rule_cases[] = {
	{ "Turn 1: the first draw starts the turn",
	  3,
	  0,
	  { 0 },
	  "L",
	  "seat 0 draw bag 7/4/3 hand 1/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 0/0/0 round 1 "
	  "tiebreak 0 in 0 1 2",
	  "turn 0 1 1; draw 0 0 14" },
	{ "Turn 1: three dice in hand, then they are rolled",
	  3,
	  0,
	  { 0 },
	  "M T L",
	  "seat 0 roll bag 7/3/2 hand 1/1/1 stash 0/0/0 pile 0/0/0 signs 0 scores 0/0/0 round 1 "
	  "tiebreak 0 in 0 1 2",
	  "draw 0 0 12" },
	{ "Turn 1: the hand rolls Library, then Museum, then Tomb dice",
	  3,
	  0,
	  { 0 },
	  "T M L e x",
	  "seat 0 roll bag 7/3/2 hand 0/0/1 stash 1/0/0 pile 0/1/0 signs 1 scores 0/0/0 round 1 "
	  "tiebreak 0 in 0 1 2",
	  "roll 0 1 2" },
	{ "Turn 2: Elder Signs to the stash, Tentacles to the pile, Clues stay in hand",
	  3,
	  0,
	  { 0 },
	  "L M T e c x",
	  "seat 0 decide bag 7/3/2 hand 0/1/0 stash 1/0/0 pile 0/0/1 signs 1 scores 0/0/0 round 1 "
	  "tiebreak 0 in 0 1 2",
	  "roll 0 2 2" },
	{ "Turn 4: continue keeps the Clue dice and draws up to 3",
	  3,
	  0,
	  { 0 },
	  "L M T e c x go",
	  "seat 0 draw bag 7/3/2 hand 0/1/0 stash 1/0/0 pile 0/0/1 signs 1 scores 0/0/0 round 1 "
	  "tiebreak 0 in 0 1 2",
	  "continue 0 1 1" },
	{ "Turn 4: after continuing, the Clue dice are rolled again with the new ones",
	  3,
	  0,
	  { 0 },
	  "L M T e c x go L L e e c",
	  "seat 0 decide bag 5/3/2 hand 0/1/0 stash 3/0/0 pile 0/0/1 signs 3 scores 0/0/0 round 1 "
	  "tiebreak 0 in 0 1 2",
	  "roll 0 1 1" },
	{ "Turn 4: three Clues kept are rolled again without a draw",
	  3,
	  0,
	  { 0 },
	  "L L L c c c go",
	  "seat 0 roll bag 5/4/3 hand 3/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 0/0/0 round 1 "
	  "tiebreak 0 in 0 1 2",
	  "continue 0 3 0" },
	{ "Turn 4, Turn 5: retreat banks the stash; the dice go back, the next seat plays",
	  3,
	  0,
	  { 0 },
	  "L L L e e x bank",
	  "seat 1 draw bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 2/0/0 round 1 "
	  "tiebreak 0 in 0 1 2",
	  "bank 0 2 2" },
	{ "Turn 3: three Tentacles in one throw down the player",
	  3,
	  0,
	  { 0 },
	  DOWN,
	  "seat 1 draw bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 0/0/0 round 1 "
	  "tiebreak 0 in 0 1 2",
	  "roll 0 2 2; downed 0 3 0" },
	{ "Turn 3: Tentacles add up over the throws; the stash is lost",
	  3,
	  0,
	  { 4 },
	  "L L L e x x go L L L e e x",
	  "seat 1 draw bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 4/0/0 round 1 "
	  "tiebreak 0 in 0 1 2",
	  "roll 0 0 2; downed 0 3 3" },
	{ "Turn 3: two Tentacles do not down",
	  3,
	  0,
	  { 0 },
	  "L L L x x e",
	  "seat 0 decide bag 5/4/3 hand 0/0/0 stash 1/0/0 pile 2/0/0 signs 1 scores 0/0/0 round 1 "
	  "tiebreak 0 in 0 1 2",
	  "roll 0 0 0" },
	{ "Turn 5: after the last seat, seat 0 opens the next round",
	  3,
	  0,
	  { 0 },
	  DOWN BANK1 DOWN,
	  "seat 0 draw bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 0/1/0 round 2 "
	  "tiebreak 0 in 0 1 2",
	  "roll 2 2 2; downed 2 3 0; round -1 0 1" },
	{ "Turn 5: the next turn is numbered on",
	  3,
	  0,
	  { 0 },
	  DOWN DOWN DOWN "L",
	  "seat 0 draw bag 7/4/3 hand 1/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 0/0/0 round 2 "
	  "tiebreak 0 in 0 1 2",
	  "turn 0 2 4; draw 0 0 14" },
	{ "first: setup.first opens every round and play wraps to seat 0",
	  3,
	  2,
	  { 0 },
	  DOWN DOWN DOWN,
	  "seat 2 draw bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 0/0/0 round 2 "
	  "tiebreak 0 in 0 1 2",
	  "roll 1 2 2; downed 1 3 0; round -1 0 1" },
	{ "End 1: reaching 13 does not end the game before the round is over",
	  3,
	  0,
	  { 12 },
	  BANK1,
	  "seat 1 draw bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 13/0/0 round 1 "
	  "tiebreak 0 in 0 1 2",
	  "bank 0 13 1" },
	{ "End 1, End 2: the round is finished, then those under 13 are devoured",
	  3,
	  0,
	  { 12, 5, 9 },
	  BANK1 BANK1 DOWN,
	  "seat -1 over bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 13/6/9 round 1 "
	  "tiebreak 0 in 0",
	  "roll 2 2 2; downed 2 3 0; round -1 0 1; devoured 1 -1 6; devoured 2 -1 9; end 0 13 3" },
	{ "End 1: the last seat of the round reaching 13 ends the game at once",
	  3,
	  0,
	  { 0, 0, 12 },
	  DOWN DOWN BANK1,
	  "seat -1 over bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 0/0/13 round 1 "
	  "tiebreak 0 in 2",
	  "bank 2 13 1; round -1 0 1; devoured 0 -1 0; devoured 1 -1 0; end 2 13 3" },
	{ "End 1: with first 1 the round closes after seat 0",
	  3,
	  1,
	  { 12 },
	  DOWN DOWN BANK1,
	  "seat -1 over bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 13/0/0 round 1 "
	  "tiebreak 0 in 0",
	  "bank 0 13 1; round -1 0 1; devoured 1 -1 0; devoured 2 -1 0; end 0 13 3" },
	{ "End 2: a later seat passing the first to 13 wins",
	  3,
	  0,
	  { 12, 11 },
	  BANK1 BANK3 DOWN,
	  "seat -1 over bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 13/14/0 round 1 "
	  "tiebreak 0 in 1",
	  "roll 2 2 2; downed 2 3 0; round -1 0 1; devoured 2 -1 0; end 1 14 3" },
	{ "P2: tied highest scores play a tie-break round, the devoured not",
	  3,
	  0,
	  { 12, 12, 12 },
	  BANK1 BANK1 DOWN,
	  "seat 0 draw bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 13/13/12 round 2 "
	  "tiebreak 1 in 0 1",
	  "roll 2 2 2; downed 2 3 0; round -1 0 1; devoured 2 -1 12; tiebreak -1 1 3" },
	{ "P2: the tie-break round skips the seats not in it",
	  3,
	  0,
	  { 12, 0, 12 },
	  BANK1 DOWN BANK1 DOWN,
	  "seat 2 draw bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 13/0/13 round 2 "
	  "tiebreak 1 in 0 2",
	  "roll 0 2 2; downed 0 3 0" },
	{ "P2: the leader after a full tie-break round wins",
	  3,
	  0,
	  { 12, 0, 12 },
	  BANK1 DOWN BANK1 BANK2 BANK1,
	  "seat -1 over bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 15/0/14 round 2 "
	  "tiebreak 1 in 0",
	  "bank 2 14 1; round -1 1 2; end 0 15 5" },
	{ "P2: the second tied seat can overtake in the tie-break round",
	  3,
	  0,
	  { 12, 0, 12 },
	  BANK1 DOWN BANK1 BANK1 BANK3,
	  "seat -1 over bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 14/0/16 round 2 "
	  "tiebreak 1 in 2",
	  "bank 2 16 3; round -1 1 2; end 2 16 5" },
	{ "P2: everyone downed in a tie-break round: another tie-break round",
	  3,
	  0,
	  { 12, 0, 12 },
	  BANK1 DOWN BANK1 DOWN DOWN,
	  "seat 0 draw bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 13/0/13 round 3 "
	  "tiebreak 2 in 0 2",
	  "roll 2 2 2; downed 2 3 0; round -1 1 2; tiebreak -1 2 5" },
	{ "P2: equal points in a tie-break round: another tie-break round",
	  3,
	  0,
	  { 12, 0, 12 },
	  BANK1 DOWN BANK1 BANK2 BANK2,
	  "seat 0 draw bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 15/0/15 round 3 "
	  "tiebreak 2 in 0 2",
	  "bank 2 15 2; round -1 1 2; tiebreak -1 2 5" },
	{ "P2: of three tied, one falling behind leaves; the other two play on",
	  3,
	  0,
	  { 12, 12, 12 },
	  BANK1 BANK1 BANK1 BANK2 BANK2 BANK1,
	  "seat 0 draw bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 15/15/14 round 3 "
	  "tiebreak 2 in 0 1",
	  "bank 2 14 1; round -1 1 2; tiebreak -1 2 3" },
	{ "P2: a third tie-break round decides",
	  3,
	  0,
	  { 12, 12, 12 },
	  BANK1 BANK1 BANK1 BANK2 BANK2 BANK1 DOWN BANK1,
	  "seat -1 over bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 15/16/14 round "
	  "3 "
	  "tiebreak 2 in 1",
	  "bank 1 16 1; round -1 1 3; end 1 16 8" },
	{ "P1: a short bag takes the stash's dice back; their Elder Signs still count",
	  3,
	  0,
	  { 0 },
	  "L L L e e e go L L L e e e go L L M e e e go M M M e e e go T T T e c c go",
	  "seat 0 draw bag 8/4/1 hand 0/0/2 stash 0/0/0 pile 0/0/0 signs 13 scores 0/0/0 round 1 "
	  "tiebreak 0 in 0 1 2",
	  "continue 0 2 13; refill 0 13 13" },
	{ "P1: the dice put back are drawn again and the whole stash banks",
	  3,
	  0,
	  { 0 },
	  "L L L e e e go L L L e e e go L L M e e e go M M M e e e go T T T e c c go L e c x bank",
	  "seat 1 draw bag 8/4/3 hand 0/0/0 stash 0/0/0 pile 0/0/0 signs 0 scores 14/0/0 round 1 "
	  "tiebreak 0 in 0 1 2",
	  "bank 0 14 14" },
	{ "P1: no refill while the bag can fill the hand",
	  3,
	  0,
	  { 0 },
	  "L L L e e e go L L L e e e go L L M e e e go M M M e e e go",
	  "seat 0 draw bag 0/0/3 hand 0/0/0 stash 8/4/0 pile 0/0/0 signs 12 scores 0/0/0 round 1 "
	  "tiebreak 0 in 0 1 2",
	  "continue 0 0 12" },
};

static void test_rules(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < sizeof(rule_cases) / sizeof(rule_cases[0]); i++) {
		const struct rule_case *c = &rule_cases[i];
		struct esigns g = fresh(c->players, c->first);
		struct game_events last = { 0 };
		char got[512];

		for (int s = 0; s < 3; s++)
			g.score[s] = (uint32_t)c->score[s];
		play(&g, c->what, c->script, &last);
		describe(&g, got, sizeof(got));
		if (strcmp(got, c->state) != 0)
			fail_msg("%s:\n  state %s\n  want  %s", c->what, got, c->state);
		describe_events(&last, got, sizeof(got));
		if (strcmp(got, c->events) != 0)
			fail_msg("%s:\n  events %s\n  want   %s", c->what, got, c->events);
	}
}

static void test_result(void **unused)
{
	struct esigns g = fresh(2, 1);
	struct game_events last;
	struct game_result r;

	(void)unused;
	esigns_result(&g, &r);
	assert_false(r.over);
	assert_int_equal(r.winner, -1);
	assert_int_equal(r.player, -1);
	g.score[0] = 12;
	play(&g, "result", BANK3 BANK1, &last);
	esigns_result(&g, &r);
	assert_true(r.over);
	assert_int_equal(r.winner, 0);
	assert_int_equal(r.player, 0);
	assert_int_equal(r.turns, 2);
	assert_int_equal(r.points, 4); /* banked in play, not the preset */
	assert_int_equal(esigns_turn_seat(&g), -1);
}

/* ---- dice and names ---- */

static void test_die_faces(void **unused)
{
	static const int want[ESIGNS_KINDS][ESIGNS_FACES] = { { 3, 2, 1 },
		                                              { 2, 2, 2 },
		                                              { 1, 2, 3 } };

	(void)unused;
	for (int k = 0; k < ESIGNS_KINDS; k++) {
		int count[ESIGNS_FACES] = { 0 };
		for (int v = 0; v < ESIGNS_DIE; v++) {
			enum esigns_face f = esigns_die_face((enum esigns_kind)k, v);
			count[f]++;
			/* Elder Signs first, then Clues, then Tentacles. */
			if (v > 0)
				assert_true(f >= esigns_die_face((enum esigns_kind)k, v - 1));
		}
		assert_memory_equal(count, want[k], sizeof(count));
		for (int f = 0; f < ESIGNS_FACES; f++)
			assert_int_equal(esigns_die_face((enum esigns_kind)k,
			                                 esigns_face_die((enum esigns_kind)k,
			                                                 (enum esigns_face)f)),
			                 f);
		assert_int_equal(esigns_kind_parse(esigns_kind_name((enum esigns_kind)k)), k);
	}
	for (int f = 0; f < ESIGNS_FACES; f++)
		assert_int_equal(esigns_face_parse(esigns_face_name((enum esigns_face)f)), f);
	assert_int_equal(esigns_face_parse("tentacles"), -1);
	assert_int_equal(esigns_kind_parse("crypt"), -1);
	assert_string_equal(esigns_kind_name(ESIGNS_KINDS), "?");
}

/* A draw value maps through the bag's counts, Library, Museum, Tomb. */
static void test_draw_values(void **unused)
{
	struct esigns g = fresh(2, 0);
	struct game_step step;
	struct game_events ev = { 0 };

	(void)unused;
	esigns_step(&g, &step);
	assert_int_equal(step.node, GAME_NODE_CHANCE);
	assert_int_equal(step.count, 15);
	assert_int_equal(esigns_kind_draw(&g, ESIGNS_LIBRARY), 0);
	assert_int_equal(esigns_kind_draw(&g, ESIGNS_MUSEUM), 8);
	assert_int_equal(esigns_kind_draw(&g, ESIGNS_TOMB), 12);
	assert_int_equal(esigns_apply(&g, 7, &ev), GAME_OK);  /* the last Library value */
	assert_int_equal(esigns_apply(&g, 11, &ev), GAME_OK); /* 7 Library left: Tomb */
	assert_int_equal(esigns_apply(&g, 7, &ev), GAME_OK);  /* the first Museum value */
	assert_int_equal(ev.ev[1].target, ESIGNS_LIBRARY);
	assert_int_equal(ev.ev[2].target, ESIGNS_TOMB);
	assert_int_equal(ev.ev[3].target, ESIGNS_MUSEUM);
	assert_int_equal(g.hand[0] + g.hand[1] + g.hand[2], 3);
	esigns_step(&g, &step);
	assert_int_equal(step.node, GAME_NODE_CHANCE);
	assert_int_equal(step.kind, ESIGNS_ROLL);
	assert_int_equal(step.count, ESIGNS_DIE);
	assert_int_equal(esigns_rolling(&g), ESIGNS_LIBRARY);
	/* Library value 5 is its Tentacle, Museum 2 a Clue, Tomb 0 an Elder Sign. */
	assert_int_equal(esigns_apply(&g, 5, &ev), GAME_OK);
	assert_int_equal(esigns_rolling(&g), ESIGNS_MUSEUM);
	assert_int_equal(esigns_apply(&g, 2, &ev), GAME_OK);
	assert_int_equal(esigns_rolling(&g), ESIGNS_TOMB);
	assert_int_equal(esigns_apply(&g, 0, &ev), GAME_OK);
	assert_int_equal(esigns_rolling(&g), -1);
	assert_int_equal(esigns_tentacles(&g), 1);
	assert_int_equal(esigns_pile(&g, ESIGNS_LIBRARY), 1);
	assert_int_equal(esigns_hand(&g, ESIGNS_MUSEUM), 1);
	assert_int_equal(esigns_stash_dice(&g, ESIGNS_TOMB), 1);
	assert_int_equal(esigns_stash(&g), 1);
	assert_int_equal(esigns_bag(&g, ESIGNS_TOMB), 2);
	esigns_step(&g, &step);
	assert_int_equal(step.node, GAME_NODE_CHOICE);
	assert_int_equal(step.seat, 0);
	assert_int_equal(step.count, 2);
	assert_int_equal(step.options[0], ESIGNS_CONTINUE);
	assert_int_equal(step.options[1], ESIGNS_RETREAT);
	/* No value draws a kind the bag has run out of. */
	g = fresh(2, 0);
	play(&g, "draw values", "T T T", &ev);
	assert_int_equal(esigns_kind_draw(&g, ESIGNS_TOMB), -1);
	assert_int_equal(esigns_kind_draw(&g, ESIGNS_MUSEUM), 8);
}

/* ---- errors ---- */

enum op { APPLY, DRAW, ROLL, DECIDE };

struct refusal {
	const char *what;
	int score0;         /* seat 0's score before the script */
	const char *script; /* from a new 3-seat game, to the state refused in */
	enum op op;
	int value;
	int want;
};

static const struct refusal refusals[] = {
	{ "draw value 15 of 15", 0, "", APPLY, 15, GAME_EILLEGAL },
	{ "draw value -1", 0, "", APPLY, -1, GAME_EILLEGAL },
	{ "draw value 13 of 13", 0, "T T", APPLY, 13, GAME_EILLEGAL },
	{ "draw kind 3", 0, "", DRAW, ESIGNS_KINDS, GAME_EILLEGAL },
	{ "draw a kind the bag has none of", 0, "T T T e x x go", DRAW, ESIGNS_TOMB,
	  GAME_EILLEGAL },
	{ "roll while drawing", 0, "", ROLL, ESIGNS_CLUE, GAME_EPHASE },
	{ "decide while drawing", 0, "", DECIDE, ESIGNS_RETREAT, GAME_EPHASE },
	{ "roll value 6", 0, "L L L", APPLY, 6, GAME_EILLEGAL },
	{ "roll value -1", 0, "L L L", APPLY, -1, GAME_EILLEGAL },
	{ "face 3", 0, "L L L", ROLL, ESIGNS_FACES, GAME_EILLEGAL },
	{ "draw while rolling", 0, "L L L", DRAW, ESIGNS_LIBRARY, GAME_EPHASE },
	{ "decide while rolling", 0, "L L L c", DECIDE, ESIGNS_CONTINUE, GAME_EPHASE },
	{ "choice 2", 0, "L L L c c c", APPLY, 2, GAME_EILLEGAL },
	{ "choice -1", 0, "L L L c c c", DECIDE, -1, GAME_EILLEGAL },
	{ "roll while deciding", 0, "L L L c c c", ROLL, ESIGNS_CLUE, GAME_EPHASE },
	{ "draw while deciding", 0, "L L L c c c", DRAW, ESIGNS_LIBRARY, GAME_EPHASE },
	{ "apply when over", 12, BANK1 DOWN DOWN, APPLY, 0, GAME_EOVER },
	{ "draw when over", 12, BANK1 DOWN DOWN, DRAW, ESIGNS_LIBRARY, GAME_EOVER },
	{ "roll when over", 12, BANK1 DOWN DOWN, ROLL, ESIGNS_CLUE, GAME_EOVER },
	{ "decide when over", 12, BANK1 DOWN DOWN, DECIDE, ESIGNS_RETREAT, GAME_EOVER },
};

/* Every refused value returns its error and leaves the state, byte for
 * byte, and the events as they were. */
static void test_errors_change_nothing(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct refusal *c = &refusals[i];
		struct esigns g = fresh(3, 0), before;
		struct game_events ev = { 0 }, last;
		int rc = GAME_OK;

		g.score[0] = (uint32_t)c->score0;
		play(&g, c->what, c->script, &last);
		before = g;
		switch (c->op) {
		case APPLY:
			rc = esigns_apply(&g, c->value, &ev);
			break;
		case DRAW:
			rc = esigns_draw(&g, (enum esigns_kind)c->value, &ev);
			break;
		case ROLL:
			rc = esigns_roll(&g, (enum esigns_face)c->value, &ev);
			break;
		case DECIDE:
			rc = esigns_decide(&g, c->value, &ev);
			break;
		default:
			fail_msg("%s: bad op", c->what);
		}
		if (rc != c->want)
			fail_msg("%s: returned %d, want %d", c->what, rc, c->want);
		if (memcmp(&g, &before, sizeof(g)) != 0)
			fail_msg("%s: the state changed", c->what);
		if (ev.n != 0)
			fail_msg("%s: %d events", c->what, ev.n);
	}
}

static void test_setup_refused(void **unused)
{
	struct esigns g;
	static const struct game_setup bad[] = {
		{ .players = 1 },
		{ .players = 13 },
		{ .players = 3, .first = 3 },
		{ .players = 3, .first = -1 },
		{ .players = 2, .per_player = 2 },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(esigns_init(&g, &bad[i]), GAME_EARG);
	g = fresh(12, 11);
	assert_int_equal(g.n, 12);
	assert_int_equal(esigns_turn_seat(&g), 11);
	for (int s = 0; s < 12; s++)
		assert_true(esigns_in(&g, s));
	assert_false(esigns_in(&g, 12));
	assert_false(esigns_in(&g, -1));
	assert_int_equal(esigns_score(&g, 12), 0);
}

/* ---- odds ---- */

static void test_odds(void **unused)
{
	struct esigns g = fresh(2, 0);
	struct esigns_odds o;
	struct game_events last;

	(void)unused;
	play(&g, "odds", "L L T x c c", &last);
	esigns_odds(&g, &o);
	/* One Tentacle: hand Library (Clue) + Tomb (Clue) + one draw from 6 L,
	 * 4 M, 2 T. Downed needs two more: Library 1/6, Tomb 1/2, and the drawn
	 * die's Tentacle chance. */
	{
		double pl = 1.0 / 6, pt = 0.5, pm = 1.0 / 3;
		double pd = (6 * pl + 4 * pm + 2 * pt) / 12;
		/* P(at least 2 of 3 independent Tentacles) */
		double want = pl * pt + pl * pd + pt * pd - 2 * pl * pt * pd;
		assert_true(o.down > want - 1e-12 && o.down < want + 1e-12);
	}
	assert_true(o.signs > 0.0 && o.signs < 3.0);
	/* P1 in the odds: with a short bag the stash's dice count as drawable. */
	g = fresh(2, 0);
	play(&g, "odds", "L L L e e e go L L L e e e go L L M e e e go M M M e e e go T T T e c c",
	     &last);
	esigns_odds(&g, &o);
	/* The refilled bag holds 8 L, 4 M, 1 T; no Tentacle yet: down needs
	 * all three, two Tomb Clues (1/2 each) and the draw. */
	{
		double pd = (8.0 / 6 + 4.0 / 3 + 0.5) / 13;
		double want = 0.25 * pd;
		assert_true(o.down > want - 1e-12 && o.down < want + 1e-12);
	}
}

/* ---- invariants over many games ---- */

/* Test-only policies: a coin, and a bold one that often continues at two
 * Tentacles, to reach P1 and long turns. Both retreat with positive
 * probability, so games end. */
static int policy_coin(const void *state, const struct game_step *step, struct rng *rng)
{
	(void)state;
	(void)step;
	return (int)rng_below(rng, 2);
}

static int policy_bold(const void *state, const struct game_step *step, struct rng *rng)
{
	(void)step;
	if (esigns_tentacles(state) < 2)
		return ESIGNS_CONTINUE;
	return rng_below(rng, 10) < 3 ? ESIGNS_CONTINUE : ESIGNS_RETREAT;
}

struct tally {
	long refills, tiebreaks, repeated_ties, games;
};

/* Checks one applied value: every die in exactly one place per kind, the
 * phase's shape, monotone scores and counters, events within bounds, equal
 * turns at the end of the normal rounds. */
static void check_apply(const struct esigns *g, const struct esigns *prev,
                        const struct game_events *ev, long *turns_of, struct tally *t)
{
	int hand = 0, pile = 0, stash = 0, bag = 0;
	uint32_t sum = 0;

	assert_true(ev->n > 0 && ev->n <= GAME_MAX_EVENTS);
	for (int k = 0; k < ESIGNS_KINDS; k++) {
		assert_int_equal(g->bag[k] + g->hand[k] + g->stash[k] + g->pile[k], kind_dice[k]);
		assert_true(g->roll[k] <= g->hand[k]);
		hand += g->hand[k];
		pile += g->pile[k];
		stash += g->stash[k];
		bag += g->bag[k];
	}
	assert_true(hand <= ESIGNS_HAND);
	/* Downed only after the last die of a throw. */
	assert_true(pile < ESIGNS_DOWNED || (g->phase == ESIGNS_ROLL && pile < ESIGNS_DOWNED + 3));
	assert_true(g->signs >= (uint32_t)stash);
	for (int s = 0; s < g->n; s++) {
		assert_true(g->score[s] >= prev->score[s]);
		sum += g->score[s];
	}
	assert_int_equal(sum, g->points);
	assert_true(g->turn == prev->turn || g->turn == prev->turn + 1);
	assert_true(g->round >= prev->round);
	assert_true((g->in & prev->in) == g->in); /* nobody comes back */
	switch (g->phase) {
	case ESIGNS_DRAW:
		assert_true(hand < ESIGNS_HAND && bag > 0);
		if (g->turn != prev->turn)
			assert_int_equal(bag, ESIGNS_DICE);
		break;
	case ESIGNS_ROLL:
		assert_true(g->roll[0] + g->roll[1] + g->roll[2] > 0);
		/* P1's second clause never arises: every throw rolls 3 dice. */
		if (prev->phase != ESIGNS_ROLL)
			assert_int_equal(hand, ESIGNS_HAND);
		break;
	case ESIGNS_DECIDE:
		assert_int_equal(g->roll[0] + g->roll[1] + g->roll[2], 0);
		break;
	case ESIGNS_OVER:
		for (int s = 0; s < g->n; s++)
			if (s != g->winner)
				assert_true(g->score[s] < g->score[g->winner]);
		assert_true(g->score[g->winner] >= ESIGNS_GOAL);
		assert_int_equal(g->in, 1u << g->winner);
		break;
	default:
		fail_msg("bad phase %d", g->phase);
	}
	if (g->phase != ESIGNS_OVER)
		assert_true(esigns_in(g, g->seat));
	for (int k = 0; k < ev->n; k++) {
		const struct game_event *e = &ev->ev[k];
		switch (e->kind) {
		case ESIGNS_EV_DOWNED:
		case ESIGNS_EV_BANK:
			turns_of[e->seat]++;
			break;
		case ESIGNS_EV_REFILL:
			t->refills++;
			assert_true(prev->bag[0] + prev->bag[1] + prev->bag[2] < ESIGNS_HAND);
			break;
		case ESIGNS_EV_TIEBREAK:
			t->tiebreaks++;
			t->repeated_ties += e->target > 1;
			break;
		default:
			break;
		}
		/* The normal rounds end with a tie-break or the end: everyone
		 * has had the same number of turns (End 1). */
		if ((e->kind == ESIGNS_EV_TIEBREAK || e->kind == ESIGNS_EV_END) && !prev->tiebreak)
			for (int s = 1; s < g->n; s++)
				assert_int_equal(turns_of[s], turns_of[0]);
	}
}

static void test_invariants_many_games(void **unused)
{
	static const struct game_setup setups[] = {
		{ .players = 2 },
		{ .players = 3, .first = 1 },
		{ .players = 4 },
		{ .players = 5, .first = 4 },
		{ .players = 12, .first = 7 },
	};
	static const game_policy_fn fns[4] = { esigns_policy_greedy2, esigns_policy_expect,
		                               policy_coin, policy_bold };
	struct tally t = { 0 };

	(void)unused;
	for (size_t si = 0; si < sizeof(setups) / sizeof(setups[0]); si++) {
		for (int n = 0; n < 1000; n++, t.games++) {
			struct esigns g;
			struct rng rng;
			long turns_of[ESIGNS_MAX] = { 0 }, applied = 0;

			rng_seed_stream(&rng, 77, (uint64_t)t.games);
			assert_int_equal(esigns_init(&g, &setups[si]), GAME_OK);
			for (;;) {
				struct game_step step;
				struct game_events ev = { 0 };
				struct esigns prev = g;
				int value;

				esigns_step(&g, &step);
				if (step.node == GAME_NODE_OVER)
					break;
				value = step.node == GAME_NODE_CHANCE
				            ? (int)rng_below(&rng, (uint32_t)step.count)
				            : fns[(step.seat + n) % 4](&g, &step, &rng);
				assert_int_equal(esigns_apply(&g, value, &ev), GAME_OK);
				check_apply(&g, &prev, &ev, turns_of, &t);
				assert_true(++applied < 1000000);
			}
		}
	}
	/* The rare paths were walked. */
	assert_true(t.refills > 0);
	assert_true(t.tiebreaks > 0);
	assert_true(t.repeated_ties > 0);
}

/* ---- replay ---- */

static void test_replay_identical(void **unused)
{
	static const game_policy_fn fns[3] = { esigns_policy_greedy2, esigns_policy_expect,
		                               policy_coin };

	(void)unused;
	for (int n = 0; n < 300; n++) {
		struct game_setup setup = { .players = 2 + n % 11, .first = n % (2 + n % 11) };
		struct esigns a, b;
		struct rng rng;
		static int log[200000];
		int len = 0;

		rng_seed_stream(&rng, 99, (uint64_t)n);
		assert_int_equal(esigns_init(&a, &setup), GAME_OK);
		for (;;) {
			struct game_step step;
			esigns_step(&a, &step);
			if (step.node == GAME_NODE_OVER)
				break;
			log[len] = step.node == GAME_NODE_CHANCE
			               ? (int)rng_below(&rng, (uint32_t)step.count)
			               : fns[(step.seat + n) % 3](&a, &step, &rng);
			assert_int_equal(esigns_apply(&a, log[len], NULL), GAME_OK);
			assert_true(++len < 200000);
		}
		/* The values alone rebuild the game, byte for byte, with the same
		 * events at every step. */
		assert_int_equal(esigns_init(&b, &setup), GAME_OK);
		{
			struct esigns c;
			assert_int_equal(esigns_init(&c, &setup), GAME_OK);
			for (int i = 0; i < len; i++) {
				struct game_events e1 = { 0 }, e2 = { 0 };
				assert_int_equal(esigns_apply(&b, log[i], &e1), GAME_OK);
				assert_int_equal(esigns_apply(&c, log[i], &e2), GAME_OK);
				assert_int_equal(e1.n, e2.n);
				assert_memory_equal(e1.ev, e2.ev, sizeof(e1.ev[0]) * (size_t)e1.n);
				assert_memory_equal(&b, &c, sizeof(b));
			}
		}
		assert_memory_equal(&a, &b, sizeof(a));
	}
}

/* ---- the generic boundary ---- */

static void test_registered(void **unused)
{
	const struct game_ops *ops = game_find("elder-signs");
	_Alignas(max_align_t) unsigned char state[sizeof(struct esigns)];
	struct game_setup setup = { .players = 4 };
	const struct game_policy *p[4];
	struct game_result r;
	struct rng rng;

	(void)unused;
	assert_non_null(ops);
	assert_ptr_equal(ops, &esigns_ops);
	assert_int_equal(ops->state_size, sizeof(struct esigns));
	assert_int_equal(ops->seats_max, GAME_MAX_SEATS);
	assert_true(ops->scores);
	assert_non_null(game_policy_find(ops, "greedy-2"));
	assert_non_null(game_policy_find(ops, "expect"));
	assert_ptr_equal(game_policy_find(ops, "ev")->choose, esturn_policy_ev);
	assert_ptr_equal(game_policy_find(ops, "best")->choose, esturn_policy_best);
	assert_null(game_policy_find(ops, "random"));
	assert_string_equal(ops->policies[0].name, "greedy-2");
	assert_int_equal(ops->init(state, &setup), GAME_OK);
	assert_int_equal(ops->seats(state), 4);
	for (int s = 0; s < 4; s++)
		p[s] = game_policy_find(ops, s ? "greedy-2" : "expect");
	rng_seed(&rng, 3);
	assert_true(game_play(ops, state, p, &rng) > 0);
	ops->result(state, &r);
	assert_true(r.over);
	assert_int_equal(r.player, r.winner);
	assert_true(r.points >= ESIGNS_GOAL);
	assert_true(r.turns >= 4);
}

/* ---- policies ---- */

struct decision {
	const char *what;
	game_policy_fn policy;
	int score[3];
	const char *script; /* from a new 3-seat game to a DECIDE node */
	int want;
};

static const struct decision decisions[] = {
	{ "greedy-2: no Tentacle, continue",
	  esigns_policy_greedy2,
	  { 0 },
	  "L L L c c c",
	  ESIGNS_CONTINUE },
	{ "greedy-2: one Tentacle, continue",
	  esigns_policy_greedy2,
	  { 0 },
	  "L L L c c c go x c c",
	  ESIGNS_CONTINUE },
	{ "greedy-2: two Tentacles, retreat",
	  esigns_policy_greedy2,
	  { 0 },
	  "L L L c c c go x c c go L x c c",
	  ESIGNS_RETREAT },
	{ "greedy-2: two Tentacles with nothing at stake, retreat all the same",
	  esigns_policy_greedy2,
	  { 0 },
	  "L L L x x c",
	  ESIGNS_RETREAT },
	{ "expect: nothing at stake and no Tentacle, throw again",
	  esigns_policy_expect,
	  { 0 },
	  "L L L c c c",
	  ESIGNS_CONTINUE },
	{ "expect: last round and banking stays behind the leader: continue at two Tentacles",
	  esigns_policy_expect,
	  { 14, 3 },
	  DOWN DOWN "L L L e x x",
	  ESIGNS_CONTINUE },
	{ "expect: last round and banking passes the leader: retreat",
	  esigns_policy_expect,
	  { 14, 0, 12 },
	  DOWN DOWN "L L L e e e",
	  ESIGNS_RETREAT },
	{ "expect: banking reaches 13 first, two Tentacles: retreat",
	  esigns_policy_expect,
	  { 12 },
	  "L L L e x x",
	  ESIGNS_RETREAT },
	{ "expect: banking reaches 13 first, safe, two seats to answer: widen the lead",
	  esigns_policy_expect,
	  { 11 },
	  "L L L e e c",
	  ESIGNS_CONTINUE },
	{ "expect: banking reaches 13 as the round's last seat: retreat",
	  esigns_policy_expect,
	  { 0, 0, 11 },
	  DOWN DOWN "L L L e e c",
	  ESIGNS_RETREAT },
	{ "expect: many points at stake and two Tentacles: retreat",
	  esigns_policy_expect,
	  { 0 },
	  "L L L e e x go L L L e x c",
	  ESIGNS_RETREAT },
};

static void test_policy_decisions(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < sizeof(decisions) / sizeof(decisions[0]); i++) {
		const struct decision *c = &decisions[i];
		struct esigns g = fresh(3, 0);
		struct game_step step;
		struct game_events last;
		int got;

		for (int s = 0; s < 3; s++)
			g.score[s] = (uint32_t)c->score[s];
		play(&g, c->what, c->script, &last);
		esigns_step(&g, &step);
		assert_int_equal(step.node, GAME_NODE_CHOICE);
		got = c->policy(&g, &step, NULL);
		if (got != c->want)
			fail_msg("%s: chose %d, want %d", c->what, got, c->want);
	}
}

/* Plays `games` games of `players` seats: seat `seat_of_a` uses `a`, the
 * others `b`; returns a's wins. */
static long duel(int players, game_policy_fn a, game_policy_fn b, int seat_of_a, long games,
                 uint64_t seed)
{
	struct game_policy pa = { "a", a }, pb = { "b", b };
	const struct game_policy *p[ESIGNS_MAX];
	long wins = 0;

	for (int s = 0; s < players; s++)
		p[s] = s == seat_of_a ? &pa : &pb;
	for (long i = 0; i < games; i++) {
		struct esigns g;
		struct game_setup setup = { .players = players };
		struct game_result r;
		struct rng rng;

		rng_seed_stream(&rng, seed, (uint64_t)i);
		assert_int_equal(esigns_init(&g, &setup), GAME_OK);
		game_play(&esigns_ops, &g, p, &rng);
		esigns_result(&g, &r);
		wins += r.winner == seat_of_a;
	}
	return wins;
}

/* Seat-rotated tournaments: "expect" in every seat in turn against
 * "greedy-2" in all the others, on the same dice streams as greedy-2 alone
 * in that seat. Over all seats the fair share is 1/players; "expect" must
 * clear it by a wide margin (at 4 x 3000 games per table size the standard
 * error of a rate is under 0.005). */
static void test_expect_beats_greedy2(void **unused)
{
	static const struct {
		int players;
		double margin; /* over the fair share */
	} tables[] = { { 2, 0.05 }, { 4, 0.045 } };

	(void)unused;
	for (size_t ti = 0; ti < sizeof(tables) / sizeof(tables[0]); ti++) {
		int n = tables[ti].players;
		long games = 12000 / n, wins = 0, base = 0, total = 0;
		double rate, base_rate;

		for (int seat = 0; seat < n; seat++) {
			wins += duel(n, esigns_policy_expect, esigns_policy_greedy2, seat, games,
			             500 + (uint64_t)seat);
			base += duel(n, esigns_policy_greedy2, esigns_policy_greedy2, seat, games,
			             500 + (uint64_t)seat);
			total += games;
		}
		rate = (double)wins / (double)total;
		base_rate = (double)base / (double)total;
		print_message("%d players: expect wins %.4f, greedy-2 in its seats %.4f\n", n, rate,
		              base_rate);
		if (rate < 1.0 / n + tables[ti].margin)
			fail_msg("%d players: expect wins %.4f, want at least %.4f", n, rate,
			         1.0 / n + tables[ti].margin);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_result),
		cmocka_unit_test(test_die_faces),
		cmocka_unit_test(test_draw_values),
		cmocka_unit_test(test_errors_change_nothing),
		cmocka_unit_test(test_setup_refused),
		cmocka_unit_test(test_odds),
		cmocka_unit_test(test_invariants_many_games),
		cmocka_unit_test(test_replay_identical),
		cmocka_unit_test(test_registered),
		cmocka_unit_test(test_policy_decisions),
		cmocka_unit_test(test_expect_beats_greedy2),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
