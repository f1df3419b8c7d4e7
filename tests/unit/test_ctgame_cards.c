/* The CTHULHU!!! event cards (§12, E01-E32) and relics (§13), one card at
 * a time: what it does, the moments it is offered at (§6.3, B18), whether
 * it counts as the round's one card (§12.1), B49, and the piles' refills
 * (B50, B52). Positions are built by editing a fresh game's fields and
 * started with ctgame_begin_turn; dice and options are then applied by
 * hand and the state and the events are checked, with the §16 invariants
 * after every transition. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/ctgame.h"

#define ANY INT_MIN

/* Squares of the starting map (B12): the Church at (0,0), T02 at (1,0). */
enum {
	CH_N = 1,  /* 1,0 */
	CH_W = 3,  /* 0,1 */
	CH_IN = 4, /* 1,1: the Church interior */
	CH_E = 5,  /* 2,1 */
	CH_S = 7,  /* 1,2 */
	X_N = 10,  /* 4,0 */
	X_W = 12,  /* 3,1 */
	X_C = 13,  /* 4,1 */
	X_E = 14,  /* 5,1 */
	X_S = 16,  /* 4,2 */
};

/* Tiles (T01 = 0). */
enum {
	T03 = 2,  /* Harbour Crossroads, a plain four-way */
	T15 = 14, /* Pharmacy */
	T17 = 16, /* Congregational Hospital */
	T21 = 20, /* Police Station */
	T26 = 25, /* Central Hill Crypt, a Ritual Site */
};

/* ---- the event log and transitions ---- */

#define LOG_MAX 8192
static struct game_event logv[LOG_MAX];
static int logn;
static int checking = 1; /* ctgame_check after every transition */
static unsigned passed;  /* choice kinds the drivers went through */

static void log_clear(void)
{
	logn = 0;
}

static void take(const struct game_events *ev)
{
	for (int i = 0; i < ev->n; i++) {
		assert_true(logn < LOG_MAX);
		logv[logn++] = ev->ev[i];
	}
}

static int match(int want, int have)
{
	return want == ANY || want == have;
}

/* Events of the log matching (kind, seat, target, value); ANY matches all. */
static int seen(int kind, int seat, int target, int value)
{
	int n = 0;
	for (int i = 0; i < logn; i++)
		n += logv[i].kind == kind && match(seat, logv[i].seat) &&
		     match(target, logv[i].target) && match(value, logv[i].value);
	return n;
}

/* Like seen, from log entry `from` on. */
static int seen_since(int from, int kind, int seat, int target, int value)
{
	int n = 0;
	for (int i = from; i < logn; i++)
		n += logv[i].kind == kind && match(seat, logv[i].seat) &&
		     match(target, logv[i].target) && match(value, logv[i].value);
	return n;
}

/* Cards of `kind` played (CV_CARD) by `seat`. */
static int played_kind(int seat, int kind)
{
	int n = 0;
	for (int i = 0; i < logn; i++)
		n += logv[i].kind == CV_CARD && logv[i].seat == seat &&
		     ctgame_card_kind(logv[i].target) == kind;
	return n;
}

static void check(const struct ctgame *g)
{
	char why[200];
	int bad = ctgame_check(g, why, sizeof why);
	if (bad)
		fail_msg("invariant %d broken: %s", bad, why);
}

static void apply(struct ctgame *g, int value)
{
	static struct game_events ev;
	int rc;
	ev.n = 0;
	rc = ctgame_apply(g, value, &ev);
	if (rc != GAME_OK)
		fail_msg("value %d refused (%d)", value, rc);
	take(&ev);
	if (checking)
		check(g);
}

static void begin(struct ctgame *g, int seat)
{
	static struct game_events ev;
	ev.n = 0;
	assert_int_equal(ctgame_begin_turn(g, seat, &ev), GAME_OK);
	take(&ev);
	if (checking)
		check(g);
}

/* ---- the pending node ---- */

static int is_choice(const struct ctgame *g, int ask)
{
	struct game_step st;
	ctgame_step(g, &st);
	return st.node == GAME_NODE_CHOICE && st.kind == ask;
}

static int is_play(const struct ctgame *g, int moment)
{
	return is_choice(g, CA_PLAY) && ctgame_moment(g) == moment;
}

static int is_die(const struct ctgame *g, int die_for)
{
	struct game_step st;
	ctgame_step(g, &st);
	return st.node == GAME_NODE_CHANCE && st.kind == CTGAME_ROLL_DIE && g->die_for == die_for;
}

static int relic_pending(const struct ctgame *g)
{
	struct game_step st;
	ctgame_step(g, &st);
	return st.node == GAME_NODE_CHANCE && st.kind == CTGAME_ROLL_RELIC;
}

static int chooser(const struct ctgame *g)
{
	struct game_step st;
	ctgame_step(g, &st);
	return st.seat;
}

/* The index of the option (what, arg) of the pending choice, or -1. */
static int opt(const struct ctgame *g, int what, int arg)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	int n = ctgame_options(g, o);
	for (int i = 0; i < n; i++)
		if (o[i].what == what && match(arg, o[i].arg))
			return i;
	return -1;
}

static int options(const struct ctgame *g)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	return ctgame_options(g, o);
}

/* Options (what, *) of the pending choice, their args written to out. */
static int args_of(const struct ctgame *g, int what, int *out)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	int n = ctgame_options(g, o), k = 0;
	for (int i = 0; i < n; i++)
		if (o[i].what == what)
			out[k++] = o[i].arg;
	return k;
}

static void pick(struct ctgame *g, int what, int arg)
{
	int i = opt(g, what, arg);
	if (i < 0) {
		struct game_step st;
		ctgame_step(g, &st);
		fail_msg("option %d/%d not offered (node %d kind %d moment %d)", what, arg, st.node,
		         st.kind, ctgame_moment(g));
	}
	apply(g, i);
}

/* A d6 showing `v` (1..6) for the awaited purpose. */
static void roll(struct ctgame *g, int die_for, int v)
{
	if (!is_die(g, die_for)) {
		struct game_step st;
		ctgame_step(g, &st);
		fail_msg("no die for %d pending (node %d kind %d)", die_for, st.node, st.kind);
	}
	apply(g, v - 1);
}

/* ---- defaults for the nodes a test does not care about ---- */

/* The deck index of the first plain road tile that the step may place. */
static int road_draw(const struct ctgame *g)
{
	int k = 0;
	for (int t = 0; t < CTMAP_TILES; t++) {
		if (g->map.where[t] != CTMAP_UNPLACED || (g->tile_discard >> t & 1))
			continue;
		if ((g->tile_set >> t & 1) && ctmap_tile(t)->cls == CTMAP_CLASS_ROAD)
			return k;
		k++;
	}
	return 0;
}

/* The deck index of tile `tile`. */
static int tile_index(const struct ctgame *g, int tile)
{
	int k = 0;
	for (int t = 0; t < tile; t++)
		k += g->map.where[t] == CTMAP_UNPLACED && !(g->tile_discard >> t & 1);
	return k;
}

/* Passes, stops, kills (a 6), saves (a 6), moves one cultist (a 1), lets
 * the hunt policy move the enemies and draws the first of every pile. */
static int default_value(const struct ctgame *g)
{
	struct game_step st;
	int i;
	ctgame_step(g, &st);
	if (st.node == GAME_NODE_CHANCE) {
		if (st.kind == CTGAME_ROLL_TILE)
			return road_draw(g);
		if (st.kind != CTGAME_ROLL_DIE)
			return 0;
		return g->die_for == CD_COMBAT || g->die_for == CD_SANITY ||
		               g->die_for == CD_BRAWL_A
		           ? 5
		           : 0;
	}
	switch (st.kind) {
	case CA_SITE_BYAKHEE:
		return 4;
	case CA_FAILED:
		i = opt(g, CO_SPEND, ANY);
		return i >= 0 ? i : opt(g, CO_LOSE, ANY);
	case CA_MOVE:
	case CA_DISCARD:
		i = opt(g, CO_STOP, ANY);
		return i >= 0 ? i : 0;
	case CA_FIGURE:
	case CA_DEST:
	case CA_RESEED:
		return ctgame_hunt(g);
	default:
		return 0;
	}
}

static void step_default(struct ctgame *g)
{
	struct game_step st;
	ctgame_step(g, &st);
	if (st.node == GAME_NODE_CHOICE)
		passed |= 1u << (st.kind - CA_AUTOMATIC);
	apply(g, default_value(g));
}

#define PASSED(ask) (passed >> ((ask)-CA_AUTOMATIC) & 1)

/* Runs defaults until the choice `ask` (at `moment` for CA_PLAY, 0 = any)
 * is pending; fails if the turn ends first. */
static void to_choice(struct ctgame *g, int ask, int moment)
{
	uint32_t turns = g->turns;
	for (int guard = 0;; guard++) {
		if (g->turns != turns || g->end != CE_PLAYING || guard > 2000)
			fail_msg("the turn ended before choice %d (moment %d)", ask, moment);
		if (is_choice(g, ask) && (!moment || ctgame_moment(g) == moment))
			return;
		step_default(g);
	}
}

/* Runs defaults until a die for `die_for` is awaited. */
static void to_die(struct ctgame *g, int die_for)
{
	uint32_t turns = g->turns;
	for (int guard = 0;; guard++) {
		if (g->turns != turns || g->end != CE_PLAYING || guard > 2000)
			fail_msg("the turn ended before a die for %d", die_for);
		if (is_die(g, die_for))
			return;
		step_default(g);
	}
}

/* Runs defaults until the turn in progress ends. */
static void finish(struct ctgame *g)
{
	uint32_t turns = g->turns;
	for (int guard = 0; g->turns == turns && g->end == CE_PLAYING; guard++) {
		if (guard > 2000)
			fail_msg("the turn does not end");
		step_default(g);
	}
}

/* ---- building positions ---- */

static void fresh(struct ctgame *g, int players)
{
	struct game_setup setup = { .players = players };
	assert_int_equal(ctgame_init(g, &setup), GAME_OK);
	log_clear();
	checking = 1;
	passed = 0;
}

static int deck_card(const struct ctgame *g, int kind)
{
	for (int c = 0; c < CTGAME_CARDS; c++)
		if (ctgame_card_kind(c) == kind && g->card_at[c] == CW_DECK)
			return c;
	fail_msg("no %s left in the deck", ctgame_card(kind)->id);
	return -1;
}

/* A card of `kind` from the deck to a hand. */
static int give_card(struct ctgame *g, int seat, int kind)
{
	int c = deck_card(g, kind);
	g->card_at[c] = (uint8_t)(CW_HAND + seat);
	g->p[seat].hand++;
	return c;
}

/* A weapon or item of `kind` from the deck into play. */
static int play_in(struct ctgame *g, int seat, int kind)
{
	int c = deck_card(g, kind);
	g->card_at[c] = (uint8_t)(CW_PLAY + seat);
	g->uses[c] = ctgame_card(kind)->uses;
	return c;
}

/* Figures and tokens from the supply onto a square. */
static void put(struct ctgame *g, int sq, int bits)
{
	assert_int_equal(g->square[sq] & bits, 0);
	if (bits & CS_CULTIST)
		g->cultists--;
	if (bits & CS_BYAKHEE)
		g->byakhee--;
	if (bits & CS_HEART)
		g->hearts--;
	if (bits & CS_BULLET)
		g->bullets--;
	g->square[sq] = (uint8_t)(g->square[sq] | bits);
}

static void set_hearts(struct ctgame *g, int seat, int n)
{
	g->hearts = (uint16_t)(g->hearts + g->p[seat].hearts - n);
	g->p[seat].hearts = (uint8_t)n;
}

static void set_bullets(struct ctgame *g, int seat, int n)
{
	g->bullets = (uint16_t)(g->bullets + g->p[seat].bullets - n);
	g->p[seat].bullets = (uint8_t)n;
}

static void set_sanity(struct ctgame *g, int seat, int s, int start)
{
	g->p[seat].sanity = (uint8_t)s;
	g->p[seat].start = (uint8_t)start;
}

/* A relic of `type` from the deck to a seat. */
static int give_relic(struct ctgame *g, int seat, int type)
{
	for (int r = type * 16; r < type * 16 + 16; r++)
		if (g->relic_at[r] == CW_DECK) {
			g->relic_at[r] = (uint8_t)(CW_HAND + seat);
			g->p[seat].relics[type]++;
			return r;
		}
	fail_msg("no relic of type %d left", type);
	return -1;
}

static int relics_of(const struct ctgame *g, int seat)
{
	int n = 0;
	for (int t = 0; t < CTGAME_TYPES; t++)
		n += g->p[seat].relics[t];
	return n;
}

/* Puts `tile` at cell (tx, ty), rotation 0, which must be a strict option. */
static void lay(struct ctgame *g, int tile, int tx, int ty)
{
	struct ctmap_option o[CTMAP_OPTIONS_MAX];
	int n = ctmap_options(&g->map, tile, CTMAP_STRICT, o);
	for (int i = 0; i < n; i++)
		if (o[i].tx == tx && o[i].ty == ty && o[i].rot == 0) {
			ctmap_place(&g->map, tile, o[i], CTMAP_STRICT);
			return;
		}
	fail_msg("%s cannot go to (%d,%d)", ctmap_tile(tile)->id, tx, ty);
}

/* Lays every tile that has a strict option (its first), for positions
 * that need many squares. */
static void lay_all(struct ctgame *g)
{
	static struct ctmap_option o[CTMAP_OPTIONS_MAX];
	for (int t = 0; t < CTMAP_TILES; t++)
		if (g->map.where[t] == CTMAP_UNPLACED &&
		    ctmap_options(&g->map, t, CTMAP_STRICT, o) > 0)
			ctmap_place(&g->map, t, o[0], CTMAP_STRICT);
}

/* Puts figures or tokens of `kind` (one CS_* bit) on squares free of it
 * (but not on `avoid`) until `keep` are left in the supply. */
static void fill(struct ctgame *g, int kind, int keep, const int *avoid, int navoid)
{
	for (int q = 0; q < CTMAP_SQUARES; q++) {
		int skip = !ctmap_passable(&g->map, q) || (g->square[q] & kind);
		int left = kind == CS_CULTIST   ? g->cultists
		           : kind == CS_BYAKHEE ? g->byakhee
		           : kind == CS_HEART   ? g->hearts
		                                : g->bullets;
		if (left <= keep)
			return;
		for (int i = 0; i < navoid; i++)
			skip |= q == avoid[i];
		if (!skip)
			put(g, q, kind);
	}
}

static int sq_at(const struct ctgame *g, int gx, int gy)
{
	int sq = ctmap_find(&g->map, gx, gy);
	assert_true(sq >= 0);
	return sq;
}

/* ---- the tour: one whole turn, recording where a card is offered ---- */

#define B(m) (1u << (m))
#define OWN  (B(CM_PP1) | B(CM_PP2) | B(CM_PP3) | B(CM_PP4) | B(CM_PP4_END) | B(CM_PP5))
enum {
	T_CF = 1 << 10,      /* offered at a failed combat roll (CF) */
	T_DISCARD = 1 << 11, /* an Automatic card offered as a step-11 discard */
	T_AUTO = 1 << 12,    /* played or offered in step 1 */
};

/* The tour's position: seats 0 and 1 on the Church interior, seat 2 on
 * T02's south street; seat 0 with 3 hearts, 10 bullets and sanity 3/5, the
 * others at 4/5 and seat 1 holding an Amulet; a byakhee on the Church
 * interior (step 3), a cultist on the Church's east street (the fight
 * during movement) and one on T02's east street (left for step 8). */
static void tour_pos(struct ctgame *g)
{
	fresh(g, 3);
	set_bullets(g, 0, 10);
	set_sanity(g, 0, 3, 5);
	set_sanity(g, 1, 4, 5);
	set_sanity(g, 2, 4, 5);
	give_relic(g, 1, CT_AMULET);
	g->p[2].sq = X_S;
	put(g, CH_IN, CS_BYAKHEE);
	put(g, CH_E, CS_CULTIST);
	put(g, X_E, CS_CULTIST);
}

/* Plays seat 0's turn: the step-2 tile north of the Church, the byakhee
 * fight of step 3 (sanity roll 6, combat roll 1, bullets spent), a movement
 * roll of 1 and one step east into the cultist's fight (roll 1, bullets),
 * then a stop; defaults otherwise, and nothing played except (play_what,
 * play_kind) by `seat` at its first chance. Returns the moments (bit
 * CM_*, T_*) at which `seat` was offered (what, kind) — after that play,
 * when there is one. */
static unsigned tour(struct ctgame *g, int seat, int what, int kind, int play_what, int play_kind)
{
	uint32_t turns = g->turns;
	unsigned mask = 0;
	int recording = play_kind < 0, moved = 0, from = logn, fights_rolled;
	begin(g, 0);
	fights_rolled = seen_since(from, CV_FIGHT, ANY, ANY, ANY);
	for (int i = from; i < logn; i++)
		if (logv[i].kind == CV_CARD && logv[i].seat == seat &&
		    ctgame_card_kind(logv[i].target) == kind &&
		    ctgame_card(kind)->category == CC_AUTOMATIC)
			mask |= T_AUTO;
	for (int guard = 0; g->turns == turns && g->end == CE_PLAYING; guard++) {
		struct game_step st;
		int i;
		if (guard > 3000)
			fail_msg("the tour does not end");
		ctgame_step(g, &st);
		if (st.node == GAME_NODE_CHANCE) {
			int v = default_value(g);
			if (st.kind == CTGAME_ROLL_DIE && g->die_for == CD_COMBAT) {
				int fights = seen_since(from, CV_FIGHT, ANY, ANY, ANY);
				v = fights > fights_rolled ? 0 : 5;
				fights_rolled = fights;
			}
			apply(g, v);
			continue;
		}
		if (recording && st.seat == seat && opt(g, what, kind) >= 0) {
			if (st.kind == CA_PLAY)
				mask |= B(ctgame_moment(g));
			else if (st.kind == CA_FAILED)
				mask |= T_CF;
			else if (st.kind == CA_DISCARD &&
			         ctgame_card(kind)->category == CC_AUTOMATIC)
				mask |= T_DISCARD;
			else if (st.kind == CA_AUTOMATIC)
				mask |= T_AUTO;
		}
		if (!recording && st.seat == seat && (i = opt(g, play_what, play_kind)) >= 0) {
			apply(g, i);
			recording = 1;
			continue;
		}
		if (st.kind == CA_MOVE && !moved && (i = opt(g, CO_DIR, CTMAP_E)) >= 0) {
			moved = 1;
			apply(g, i);
			continue;
		}
		apply(g, default_value(g));
	}
	return mask;
}

/* The moments `seat` is offered card `kind` in the tour, the card in hand. */
static unsigned tour_card(int seat, int kind)
{
	struct ctgame g;
	tour_pos(&g);
	give_card(&g, seat, kind);
	return tour(&g, seat, CO_CARD, kind, -1, -1);
}

/* Whether playing (what, kind) in the tour spends seat 0's card of the
 * round: the moments a Cartridge Stash (a Hymn at Dawn for the Stash
 * itself) is still offered afterwards. */
static unsigned tour_after(int what, int kind)
{
	struct ctgame g;
	int probe = kind == CK_STASH ? CK_HYMN : CK_STASH;
	unsigned mask;
	tour_pos(&g);
	if (what == CO_ITEM)
		play_in(&g, 0, kind);
	else
		give_card(&g, 0, kind);
	give_card(&g, 0, probe);
	mask = tour(&g, 0, CO_CARD, probe, what, kind);
	if (what == CO_CARD)
		assert_int_equal(played_kind(0, kind), 1);
	else
		assert_int_equal(seen(CV_ITEM, 0, ANY, ANY), 1);
	return mask;
}

/* ---- the tables ---- */

static void test_card_table(void **state)
{
	static const char *const names[CTGAME_KINDS] = {
		"Trench Knife",
		"Whaler's Harpoon",
		"Gangland Chopper",
		"Coach Gun",
		"Silvered Sword-Cane",
		"Laudanum Flask",
		"Surgeon's Satchel",
		"Blessed Candle",
		"Elder Sign",
		"Borrowed Roadster",
		"Harbour Fog",
		"Sanctuary Bells",
		"Second Wind",
		"Steady Nerves",
		"Deadeye",
		"Cartridge Stash",
		"Hymn at Dawn",
		"Surveyor's Notes",
		"Banishing Rite",
		"Antiquarian's Eye",
		"Scatter the Faithful",
		"Whispers in the Walls",
		"Knock at the Door",
		"Wings Overhead",
		"Twisted Ankle",
		"Jammed Action",
		"Wet Powder",
		"Bad Omen",
		"Back-Alley Brawl",
		"Call of the Yellow Sign",
		"Light Fingers",
		"Sent Your Way",
	};
	static const int counts[CTGAME_KINDS] = { 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2,
		                                  1, 2, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1 };
	static const int severity[7] = { 3, 5, 6, 4, 1, 2, 7 }; /* E22..E28 */
	int per_cat[6] = { 0 }, total = 0, id = 0;
	(void)state;
	for (int k = 0; k < CTGAME_KINDS; k++) {
		const struct ctgame_card_info *c = ctgame_card(k);
		char want[8];
		snprintf(want, sizeof want, "E%02d", k + 1);
		assert_non_null(c);
		assert_string_equal(c->id, want);
		assert_string_equal(c->name, names[k]);
		assert_int_equal(c->count, counts[k]);
		per_cat[c->category] += c->count;
		total += c->count;
		assert_int_equal(c->severity,
		                 k >= CK_WHISPERS && k <= CK_OMEN ? severity[k - CK_WHISPERS] : 0);
		assert_int_equal(c->uses, k == CK_HARPOON ? 3 : k == CK_COACHGUN ? 4 : 0);
		/* card ids run kind by kind */
		for (int n = 0; n < c->count; n++)
			assert_int_equal(ctgame_card_kind(id++), k);
	}
	assert_int_equal(total, CTGAME_CARDS);
	assert_int_equal(id, CTGAME_CARDS);
	assert_int_equal(per_cat[CC_WEAPON], 9);
	assert_int_equal(per_cat[CC_ITEM], 6);
	assert_int_equal(per_cat[CC_MOVEMENT], 7);
	assert_int_equal(per_cat[CC_INSTANT], 14);
	assert_int_equal(per_cat[CC_AUTOMATIC], 10);
	assert_int_equal(per_cat[CC_PVP], 4);
	for (int k = CK_KNIFE; k <= CK_SWORDCANE; k++)
		assert_int_equal(ctgame_card(k)->category, CC_WEAPON);
	for (int k = CK_LAUDANUM; k <= CK_CANDLE; k++)
		assert_int_equal(ctgame_card(k)->category, CC_ITEM);
	for (int k = CK_ELDERSIGN; k <= CK_BELLS; k++)
		assert_int_equal(ctgame_card(k)->category, CC_MOVEMENT);
	for (int k = CK_SECONDWIND; k <= CK_SCATTER; k++)
		assert_int_equal(ctgame_card(k)->category, CC_INSTANT);
	for (int k = CK_WHISPERS; k <= CK_OMEN; k++)
		assert_int_equal(ctgame_card(k)->category, CC_AUTOMATIC);
	for (int k = CK_BRAWL; k <= CK_SENT; k++)
		assert_int_equal(ctgame_card(k)->category, CC_PVP);
	assert_null(ctgame_card(-1));
	assert_null(ctgame_card(CTGAME_KINDS));
	assert_int_equal(ctgame_card_kind(-1), -1);
	assert_int_equal(ctgame_card_kind(CTGAME_CARDS), -1);
}

/* §13: 16 relics per type; copy k of a type shows variant ⌊(k−1)/4⌋. */
static void test_relic_variants(void **state)
{
	static const char *const variants[CTGAME_TYPES][4] = {
		{ "Jade Scarab", "Tarnished Locket", "Bone Medallion", "Star-Stone Pendant" },
		{ "Obsidian Athame", "Wavy Kris", "Rusted Dirk", "Hooked Blade" },
		{ "Squatting Toad", "Pallid Mask", "Coral Figurine", "Winged Effigy" },
		{ "Golden Flask", "Stoppered Vial", "Amber Phial", "Honeyed Draught" },
		{ "Unbound Folio", "Annotated Grimoire", "Sailor's Codex",
		  "Play-Script in Yellow" },
	};
	static const char *const types[CTGAME_TYPES] = { "Amulet", "Dagger", "Idol", "Space Mead",
		                                         "Tome" };
	(void)state;
	for (int t = 0; t < CTGAME_TYPES; t++) {
		assert_string_equal(ctgame_type_name(t), types[t]);
		for (int k = 1; k <= 16; k++)
			assert_string_equal(ctgame_relic_variant(t * 16 + k - 1),
			                    variants[t][(k - 1) / 4]);
	}
	assert_string_equal(ctgame_relic_variant(0), "Jade Scarab");            /* RA01 */
	assert_string_equal(ctgame_relic_variant(4), "Tarnished Locket");       /* RA05 */
	assert_string_equal(ctgame_relic_variant(31), "Hooked Blade");          /* RD16 */
	assert_string_equal(ctgame_relic_variant(76), "Play-Script in Yellow"); /* RT13 */
	assert_string_equal(ctgame_relic_variant(-1), "?");
	assert_string_equal(ctgame_relic_variant(CTGAME_RELICS), "?");
	assert_string_equal(ctgame_type_name(CTGAME_TYPES), "?");
}

/* The tour itself reaches every moment: a Cartridge Stash is offered at
 * all five play points (PP4 twice), and to the others in the window. */
static void test_tour_reaches_every_moment(void **state)
{
	struct ctgame g;
	(void)state;
	assert_int_equal(tour_card(0, CK_STASH), OWN);
	assert_int_equal(tour_card(1, CK_STASH), B(CM_RW));
	assert_int_equal(tour_card(2, CK_STASH), B(CM_RW));
	tour_pos(&g);
	tour(&g, 0, CO_PASS, 0, -1, -1);
	assert_int_equal(seen(CV_FIGHT, 0, CH_IN, CS_BYAKHEE), 1);
	assert_int_equal(seen(CV_FIGHT, 0, CH_E, CS_CULTIST), 1);
	assert_int_equal(seen(CV_TOTAL, 0, 5, 1), 1);
	assert_int_equal(seen(CV_TOTAL, 0, 4, 1), 1);
	assert_int_equal(seen(CV_SPEND, 0, 0, 4), 1);
	assert_int_equal(seen(CV_SPEND, 0, 0, 3), 1);
	assert_int_equal(seen(CV_TOTAL_MOVE, 0, 1, 4), 1);
	assert_int_equal(seen(CV_MOVE, 0, CH_E, 3), 1);
	assert_int_equal(g.seat, 1);
	check(&g);
}

/* ---- weapons ---- */

static void test_e01_trench_knife(void **state)
{
	struct ctgame g;
	int knife;
	(void)state;
	/* Own: PP1-PP5 only; never in another player's window */
	assert_int_equal(tour_card(0, CK_KNIFE), OWN);
	assert_int_equal(tour_card(1, CK_KNIFE), 0);
	/* it counts as the round's card */
	assert_int_equal(tour_after(CO_CARD, CK_KNIFE), 0);
	/* no two copies of one weapon kind in play */
	tour_pos(&g);
	play_in(&g, 0, CK_KNIFE);
	give_card(&g, 0, CK_KNIFE);
	assert_int_equal(tour(&g, 0, CO_CARD, CK_KNIFE, -1, -1), 0);
	check(&g);

	/* played from the hand at PP1 it goes into play */
	fresh(&g, 2);
	knife = give_card(&g, 0, CK_KNIFE);
	put(&g, CH_IN, CS_BYAKHEE | CS_CULTIST);
	begin(&g, 0);
	assert_true(is_play(&g, CM_PP1));
	pick(&g, CO_CARD, CK_KNIFE);
	assert_int_equal(g.card_at[knife], CW_PLAY + 0);
	assert_int_equal(g.p[0].hand, 0);
	assert_int_equal(g.p[0].played, 1);
	assert_int_equal(seen(CV_CARD, 0, knife, CM_PP1), 1);
	/* no bonus against the byakhee: no declaration is offered */
	passed = 0;
	to_die(&g, CD_COMBAT);
	assert_false(PASSED(CA_WEAPON));
	roll(&g, CD_COMBAT, 5);
	assert_int_equal(seen(CV_TOTAL, 0, 5, 5), 1);
	assert_int_equal(seen(CV_WEAPON, ANY, ANY, ANY), 0);
	/* +1 against the cultist (step 4), no use limit */
	to_choice(&g, CA_WEAPON, 0);
	assert_int_equal(options(&g), 2);
	pick(&g, CO_WEAPON, knife);
	assert_int_equal(seen(CV_WEAPON, 0, knife, ANY), 1);
	roll(&g, CD_COMBAT, 3);
	assert_int_equal(seen(CV_TOTAL, 0, 4, 4), 1);
	assert_int_equal(seen(CV_KILL, 0, CH_IN, CS_CULTIST), 1);
	assert_int_equal(g.card_at[knife], CW_PLAY + 0);
	assert_int_equal(g.uses[knife], 0);
	finish(&g);
	assert_int_equal(g.card_at[knife], CW_PLAY + 0);
	check(&g);
}

static void test_e02_whalers_harpoon(void **state)
{
	struct ctgame g;
	int h;
	(void)state;
	assert_int_equal(tour_card(0, CK_HARPOON), OWN);
	assert_int_equal(tour_card(1, CK_HARPOON), 0);
	assert_int_equal(tour_after(CO_CARD, CK_HARPOON), 0);

	/* +2 against byakhee; a use is spent on every roll it is applied to
	 * (B24), and the third use discards it */
	fresh(&g, 2);
	set_hearts(&g, 0, 5);
	h = play_in(&g, 0, CK_HARPOON);
	assert_int_equal(g.uses[h], 3);
	put(&g, CH_IN, CS_BYAKHEE);
	begin(&g, 0);
	to_choice(&g, CA_WEAPON, 0);
	pick(&g, CO_WEAPON, h);
	roll(&g, CD_COMBAT, 1);
	assert_int_equal(seen(CV_TOTAL, 0, 5, 3), 1);
	assert_int_equal(g.uses[h], 2);
	pick(&g, CO_LOSE, ANY);
	assert_int_equal(g.p[0].hearts, 4);
	pick(&g, CO_WEAPON, h);
	roll(&g, CD_COMBAT, 2);
	assert_int_equal(seen(CV_TOTAL, 0, 5, 4), 1);
	assert_int_equal(g.uses[h], 1);
	pick(&g, CO_LOSE, ANY);
	pick(&g, CO_WEAPON, h);
	roll(&g, CD_COMBAT, 3);
	assert_int_equal(seen(CV_TOTAL, 0, 5, 5), 1);
	assert_int_equal(seen(CV_KILL, 0, CH_IN, CS_BYAKHEE), 1);
	assert_int_equal(g.card_at[h], CW_DISCARD);
	assert_int_equal(g.uses[h], 0);
	assert_int_equal(seen(CV_DISCARD, 0, h, ANY), 1);
	assert_int_equal(seen(CV_WEAPON, 0, h, ANY), 3);
	check(&g);

	/* no bonus against a cultist: not declared, no use spent */
	fresh(&g, 2);
	h = play_in(&g, 0, CK_HARPOON);
	put(&g, CH_IN, CS_CULTIST);
	begin(&g, 0);
	to_die(&g, CD_COMBAT);
	assert_false(PASSED(CA_WEAPON));
	roll(&g, CD_COMBAT, 4);
	assert_int_equal(seen(CV_TOTAL, 0, 4, 4), 1);
	assert_int_equal(g.uses[h], 3);
	assert_int_equal(g.card_at[h], CW_PLAY + 0);
	check(&g);
}

static void test_e03_gangland_chopper(void **state)
{
	struct ctgame g;
	int c, knife;
	(void)state;
	assert_int_equal(tour_card(0, CK_CHOPPER), OWN);
	assert_int_equal(tour_card(1, CK_CHOPPER), 0);
	assert_int_equal(tour_after(CO_CARD, CK_CHOPPER), 0);

	/* +2 against a cultist; declaring costs 1 bullet, paid before the roll */
	fresh(&g, 2);
	c = play_in(&g, 0, CK_CHOPPER);
	put(&g, CH_IN, CS_CULTIST);
	begin(&g, 0);
	to_choice(&g, CA_WEAPON, 0);
	{
		int supply = g.bullets;
		pick(&g, CO_WEAPON, c);
		assert_true(is_die(&g, CD_COMBAT));
		assert_int_equal(g.p[0].bullets, 2);
		assert_int_equal(g.bullets, supply + 1);
		assert_int_equal(seen(CV_BULLETS, 0, 0, 2), 1);
	}
	roll(&g, CD_COMBAT, 2);
	assert_int_equal(seen(CV_TOTAL, 0, 4, 4), 1);
	assert_int_equal(seen(CV_KILL, 0, CH_IN, CS_CULTIST), 1);
	assert_int_equal(g.card_at[c], CW_PLAY + 0); /* no use limit */
	check(&g);

	/* +2 against a byakhee too */
	fresh(&g, 2);
	c = play_in(&g, 0, CK_CHOPPER);
	put(&g, CH_IN, CS_BYAKHEE);
	begin(&g, 0);
	to_choice(&g, CA_WEAPON, 0);
	pick(&g, CO_WEAPON, c);
	roll(&g, CD_COMBAT, 3);
	assert_int_equal(seen(CV_TOTAL, 0, 5, 5), 1);
	assert_int_equal(g.p[0].bullets, 2);
	check(&g);

	/* without a bullet it cannot be declared */
	fresh(&g, 2);
	c = play_in(&g, 0, CK_CHOPPER);
	knife = play_in(&g, 0, CK_KNIFE);
	set_bullets(&g, 0, 0);
	put(&g, CH_IN, CS_CULTIST);
	begin(&g, 0);
	to_choice(&g, CA_WEAPON, 0);
	assert_int_equal(opt(&g, CO_WEAPON, c), -1);
	assert_true(opt(&g, CO_WEAPON, knife) >= 0);
	assert_int_equal(options(&g), 2);
	check(&g);
}

static void test_e04_coach_gun(void **state)
{
	struct ctgame g;
	int c;
	(void)state;
	assert_int_equal(tour_card(0, CK_COACHGUN), OWN);
	assert_int_equal(tour_card(1, CK_COACHGUN), 0);
	assert_int_equal(tour_after(CO_CARD, CK_COACHGUN), 0);

	/* +1 against a cultist, 4 uses spent roll by roll, then discarded */
	fresh(&g, 2);
	set_hearts(&g, 0, 5);
	c = play_in(&g, 0, CK_COACHGUN);
	assert_int_equal(g.uses[c], 4);
	put(&g, CH_IN, CS_CULTIST);
	begin(&g, 0);
	for (int i = 0; i < 3; i++) {
		to_choice(&g, CA_WEAPON, 0);
		pick(&g, CO_WEAPON, c);
		roll(&g, CD_COMBAT, 1);
		assert_int_equal(g.uses[c], 3 - i);
		pick(&g, CO_LOSE, ANY);
	}
	assert_int_equal(seen(CV_TOTAL, 0, 4, 2), 3);
	assert_int_equal(g.p[0].hearts, 2);
	pick(&g, CO_WEAPON, c);
	roll(&g, CD_COMBAT, 3);
	assert_int_equal(seen(CV_TOTAL, 0, 4, 4), 1);
	assert_int_equal(g.card_at[c], CW_DISCARD);
	assert_int_equal(seen(CV_DISCARD, 0, c, ANY), 1);
	check(&g);

	/* +1 against a byakhee; a use is spent on a successful roll too */
	fresh(&g, 2);
	c = play_in(&g, 0, CK_COACHGUN);
	put(&g, CH_IN, CS_BYAKHEE);
	begin(&g, 0);
	to_choice(&g, CA_WEAPON, 0);
	pick(&g, CO_WEAPON, c);
	roll(&g, CD_COMBAT, 4);
	assert_int_equal(seen(CV_TOTAL, 0, 5, 5), 1);
	assert_int_equal(seen(CV_KILL, 0, CH_IN, CS_BYAKHEE), 1);
	assert_int_equal(g.uses[c], 3);
	assert_int_equal(g.card_at[c], CW_PLAY + 0);
	check(&g);
}

static void test_e05_silvered_sword_cane(void **state)
{
	struct ctgame g;
	int c;
	(void)state;
	assert_int_equal(tour_card(0, CK_SWORDCANE), OWN);
	assert_int_equal(tour_card(1, CK_SWORDCANE), 0);
	assert_int_equal(tour_after(CO_CARD, CK_SWORDCANE), 0);

	/* in play, declared or not, a sanity check costs sanity only on a 1 */
	fresh(&g, 2);
	c = play_in(&g, 0, CK_SWORDCANE);
	put(&g, CH_IN, CS_BYAKHEE | CS_CULTIST);
	put(&g, CH_E, CS_BYAKHEE);
	begin(&g, 0);
	to_die(&g, CD_SANITY);
	roll(&g, CD_SANITY, 2);
	assert_int_equal(g.p[0].sanity, 5);
	assert_int_equal(seen(CV_SANITY, ANY, ANY, ANY), 0);
	/* +1 against the byakhee, not declared here */
	assert_true(is_choice(&g, CA_WEAPON));
	assert_true(opt(&g, CO_WEAPON, c) >= 0);
	pick(&g, CO_PASS, ANY);
	roll(&g, CD_COMBAT, 5);
	assert_int_equal(seen(CV_TOTAL, 0, 5, 5), 1);
	/* no bonus against the cultist of step 4 */
	passed = 0;
	to_die(&g, CD_COMBAT);
	assert_false(PASSED(CA_WEAPON));
	roll(&g, CD_COMBAT, 6);
	/* the second byakhee, entered in step 7: declared, +1; a 1 costs sanity */
	to_die(&g, CD_MOVE);
	roll(&g, CD_MOVE, 1);
	to_choice(&g, CA_MOVE, 0);
	pick(&g, CO_DIR, CTMAP_E);
	roll(&g, CD_SANITY, 1);
	assert_int_equal(g.p[0].sanity, 4);
	pick(&g, CO_WEAPON, c);
	roll(&g, CD_COMBAT, 4);
	assert_int_equal(seen(CV_TOTAL, 0, 5, 5), 2);
	assert_int_equal(g.card_at[c], CW_PLAY + 0);
	finish(&g);

	/* without it a 2 costs sanity */
	fresh(&g, 2);
	put(&g, CH_IN, CS_BYAKHEE);
	begin(&g, 0);
	to_die(&g, CD_SANITY);
	roll(&g, CD_SANITY, 2);
	assert_int_equal(g.p[0].sanity, 4);
	assert_int_equal(seen(CV_SANITY, 0, 5, 4), 1);
	check(&g);
}

/* Weapons are discarded on defeat; items are kept (§9.3, §12.1). */
static void test_defeat_discards_weapons_keeps_items(void **state)
{
	struct ctgame g;
	int knife, gun, satchel, candle;
	(void)state;
	fresh(&g, 2);
	set_hearts(&g, 0, 1);
	knife = play_in(&g, 0, CK_KNIFE);
	gun = play_in(&g, 0, CK_COACHGUN);
	satchel = play_in(&g, 0, CK_SATCHEL);
	candle = play_in(&g, 0, CK_CANDLE);
	give_relic(&g, 0, CT_IDOL);
	give_relic(&g, 0, CT_IDOL);
	give_relic(&g, 0, CT_TOME);
	put(&g, CH_IN, CS_CULTIST);
	begin(&g, 0);
	/* the Satchel is not used: hearts 1 */
	to_choice(&g, CA_WEAPON, 0);
	pick(&g, CO_WEAPON, knife);
	roll(&g, CD_COMBAT, 1);
	pick(&g, CO_LOSE, ANY);
	assert_int_equal(seen(CV_DEFEAT, 0, CH_IN, ANY), 1);
	assert_int_equal(g.card_at[knife], CW_DISCARD);
	assert_int_equal(g.card_at[gun], CW_DISCARD);
	assert_int_equal(g.card_at[satchel], CW_PLAY + 0);
	assert_int_equal(g.card_at[candle], CW_PLAY + 0);
	/* ⌊3/2⌋ = 1 relic lost, chosen by the defeated player */
	assert_true(is_choice(&g, CA_RELIC_LOSS));
	assert_int_equal(chooser(&g), 0);
	pick(&g, CO_TYPE, CT_TOME);
	assert_int_equal(g.p[0].relics[CT_TOME], 0);
	assert_int_equal(g.p[0].relics[CT_IDOL], 2);
	assert_int_equal(g.p[0].hearts, 3);
	assert_int_equal(g.p[0].bullets, 3);
	assert_int_equal(g.p[0].start, 4);
	assert_int_equal(g.p[0].sanity, 4);
	assert_int_equal(g.p[0].sq, CTGAME_CHURCH_SQ);
	finish(&g);
	check(&g);
}

/* ---- items ---- */

static void test_e06_laudanum_flask(void **state)
{
	struct ctgame g;
	int c;
	(void)state;
	/* played at the own play points; used at them or in a window */
	assert_int_equal(tour_card(0, CK_LAUDANUM), OWN);
	assert_int_equal(tour_card(1, CK_LAUDANUM), 0);
	tour_pos(&g);
	play_in(&g, 0, CK_LAUDANUM);
	assert_int_equal(tour(&g, 0, CO_ITEM, CK_LAUDANUM, -1, -1), OWN);
	tour_pos(&g);
	play_in(&g, 1, CK_LAUDANUM);
	assert_int_equal(tour(&g, 1, CO_ITEM, CK_LAUDANUM, -1, -1), B(CM_RW));
	/* B29, B49: not used at sanity 0 or at S */
	tour_pos(&g);
	play_in(&g, 1, CK_LAUDANUM);
	set_sanity(&g, 1, 0, 4);
	assert_int_equal(tour(&g, 1, CO_ITEM, CK_LAUDANUM, -1, -1), 0);
	tour_pos(&g);
	play_in(&g, 1, CK_LAUDANUM);
	set_sanity(&g, 1, 3, 3);
	assert_int_equal(tour(&g, 1, CO_ITEM, CK_LAUDANUM, -1, -1), 0);
	/* playing it counts, using it does not */
	assert_int_equal(tour_after(CO_CARD, CK_LAUDANUM), 0);
	assert_int_equal(tour_after(CO_ITEM, CK_LAUDANUM), OWN);

	/* played at PP1, used later in the round: 2 sanity */
	fresh(&g, 2);
	set_sanity(&g, 0, 2, 5);
	c = give_card(&g, 0, CK_LAUDANUM);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_LAUDANUM);
	assert_int_equal(g.card_at[c], CW_PLAY + 0);
	assert_int_equal(g.p[0].played, 1);
	pick(&g, CO_PASS, ANY);
	to_choice(&g, CA_PLAY, CM_PP2);
	pick(&g, CO_ITEM, CK_LAUDANUM);
	assert_int_equal(g.p[0].sanity, 4);
	assert_int_equal(seen(CV_ITEM, 0, c, CM_PP2), 1);
	assert_int_equal(seen(CV_SANITY, 0, 5, 4), 1);
	assert_int_equal(g.card_at[c], CW_DISCARD);
	finish(&g);
	check(&g);

	/* another seat uses it in the window */
	fresh(&g, 2);
	set_sanity(&g, 1, 1, 4);
	c = play_in(&g, 1, CK_LAUDANUM);
	begin(&g, 0);
	to_choice(&g, CA_PLAY, CM_RW);
	assert_int_equal(chooser(&g), 1);
	pick(&g, CO_ITEM, CK_LAUDANUM);
	assert_int_equal(g.p[1].sanity, 3);
	assert_int_equal(g.p[1].played, 0);
	assert_int_equal(g.card_at[c], CW_DISCARD);
	check(&g);

	/* inside the Pharmacy (T15): up to S */
	fresh(&g, 2);
	lay(&g, T15, -1, 0);
	g.p[0].sq = (int16_t)sq_at(&g, -2, 0); /* an interior square */
	set_sanity(&g, 0, 1, 4);
	play_in(&g, 0, CK_LAUDANUM);
	begin(&g, 0);
	pick(&g, CO_ITEM, CK_LAUDANUM);
	assert_int_equal(g.p[0].sanity, 4);
	check(&g);
	/* on the Pharmacy's street: 2 */
	fresh(&g, 2);
	lay(&g, T15, -1, 0);
	g.p[0].sq = (int16_t)sq_at(&g, -2, 1);
	set_sanity(&g, 0, 1, 5);
	play_in(&g, 0, CK_LAUDANUM);
	begin(&g, 0);
	pick(&g, CO_ITEM, CK_LAUDANUM);
	assert_int_equal(g.p[0].sanity, 3);
	check(&g);
}

static void test_e07_surgeons_satchel(void **state)
{
	struct ctgame g;
	int c;
	(void)state;
	assert_int_equal(tour_card(0, CK_SATCHEL), OWN);
	assert_int_equal(tour_card(1, CK_SATCHEL), 0);
	tour_pos(&g);
	play_in(&g, 0, CK_SATCHEL);
	assert_int_equal(tour(&g, 0, CO_ITEM, CK_SATCHEL, -1, -1), OWN);
	tour_pos(&g);
	play_in(&g, 1, CK_SATCHEL);
	assert_int_equal(tour(&g, 1, CO_ITEM, CK_SATCHEL, -1, -1), B(CM_RW));
	/* B49: not used at 5 hearts */
	tour_pos(&g);
	play_in(&g, 1, CK_SATCHEL);
	set_hearts(&g, 1, 5);
	assert_int_equal(tour(&g, 1, CO_ITEM, CK_SATCHEL, -1, -1), 0);
	assert_int_equal(tour_after(CO_CARD, CK_SATCHEL), 0);
	assert_int_equal(tour_after(CO_ITEM, CK_SATCHEL), OWN);

	/* played at PP1, used at PP2: 2 hearts, from the supply */
	fresh(&g, 2);
	set_hearts(&g, 0, 1);
	c = give_card(&g, 0, CK_SATCHEL);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_SATCHEL);
	assert_int_equal(g.card_at[c], CW_PLAY + 0);
	pick(&g, CO_PASS, ANY);
	to_choice(&g, CA_PLAY, CM_PP2);
	{
		int supply = g.hearts;
		pick(&g, CO_ITEM, CK_SATCHEL);
		assert_int_equal(g.p[0].hearts, 3);
		assert_int_equal(g.hearts, supply - 2);
	}
	assert_int_equal(g.card_at[c], CW_DISCARD);
	assert_int_equal(seen(CV_HEARTS, 0, 0, 3), 1);
	finish(&g);
	check(&g);

	/* 4 hearts: gains above 5 are lost */
	fresh(&g, 2);
	set_hearts(&g, 0, 4);
	play_in(&g, 0, CK_SATCHEL);
	begin(&g, 0);
	pick(&g, CO_ITEM, CK_SATCHEL);
	assert_int_equal(g.p[0].hearts, 5);
	check(&g);

	/* B27: one heart left in the supply; B49: none left, no use */
	fresh(&g, 2);
	lay_all(&g);
	set_hearts(&g, 0, 1);
	fill(&g, CS_HEART, 1, NULL, 0);
	assert_int_equal(g.hearts, 1);
	play_in(&g, 0, CK_SATCHEL);
	begin(&g, 0);
	pick(&g, CO_ITEM, CK_SATCHEL);
	assert_int_equal(g.p[0].hearts, 2);
	assert_int_equal(g.hearts, 0);
	check(&g);
	fresh(&g, 2);
	lay_all(&g);
	set_hearts(&g, 0, 1);
	fill(&g, CS_HEART, 0, NULL, 0);
	play_in(&g, 0, CK_SATCHEL);
	begin(&g, 0);
	assert_false(is_choice(&g, CA_PLAY));
	check(&g);

	/* inside the Congregational Hospital (T17): up to 5 */
	fresh(&g, 2);
	lay(&g, T17, -1, 0);
	g.p[0].sq = (int16_t)sq_at(&g, -3, 0);
	set_hearts(&g, 0, 1);
	play_in(&g, 0, CK_SATCHEL);
	begin(&g, 0);
	pick(&g, CO_ITEM, CK_SATCHEL);
	assert_int_equal(g.p[0].hearts, 5);
	check(&g);
	/* on its street: 2 */
	fresh(&g, 2);
	lay(&g, T17, -1, 0);
	g.p[0].sq = (int16_t)sq_at(&g, -2, 1);
	set_hearts(&g, 0, 1);
	play_in(&g, 0, CK_SATCHEL);
	begin(&g, 0);
	pick(&g, CO_ITEM, CK_SATCHEL);
	assert_int_equal(g.p[0].hearts, 3);
	check(&g);
}

static void test_e08_blessed_candle(void **state)
{
	struct ctgame g;
	int c;
	(void)state;
	assert_int_equal(tour_card(0, CK_CANDLE), OWN);
	assert_int_equal(tour_card(1, CK_CANDLE), 0);
	/* used only at the start of a fight with a byakhee (CS) */
	tour_pos(&g);
	play_in(&g, 0, CK_CANDLE);
	assert_int_equal(tour(&g, 0, CO_ITEM, CK_CANDLE, -1, -1), B(CM_CS));
	tour_pos(&g);
	play_in(&g, 1, CK_CANDLE);
	assert_int_equal(tour(&g, 1, CO_ITEM, CK_CANDLE, -1, -1), 0);
	assert_int_equal(tour_after(CO_CARD, CK_CANDLE), 0);
	/* the use does not count: the Stash is still offered after CS */
	assert_int_equal(tour_after(CO_ITEM, CK_CANDLE), OWN & ~B(CM_PP1));

	/* the byakhee dies on 4+ */
	fresh(&g, 2);
	c = play_in(&g, 0, CK_CANDLE);
	put(&g, CH_IN, CS_BYAKHEE);
	begin(&g, 0);
	to_choice(&g, CA_PLAY, CM_CS);
	pick(&g, CO_ITEM, CK_CANDLE);
	assert_int_equal(seen(CV_ITEM, 0, c, CM_CS), 1);
	assert_int_equal(g.card_at[c], CW_DISCARD);
	/* the sanity check still follows */
	roll(&g, CD_SANITY, 6);
	roll(&g, CD_COMBAT, 4);
	assert_int_equal(seen(CV_TOTAL, 0, 4, 4), 1);
	assert_int_equal(seen(CV_KILL, 0, CH_IN, CS_BYAKHEE), 1);
	/* two relics for a byakhee */
	apply(&g, 0);
	apply(&g, 0);
	assert_int_equal(relics_of(&g, 0), 2);
	check(&g);

	/* a failed roll needs bullets up to 4 */
	fresh(&g, 2);
	play_in(&g, 0, CK_CANDLE);
	put(&g, CH_IN, CS_BYAKHEE);
	begin(&g, 0);
	to_choice(&g, CA_PLAY, CM_CS);
	pick(&g, CO_ITEM, CK_CANDLE);
	roll(&g, CD_SANITY, 6);
	roll(&g, CD_COMBAT, 2);
	assert_true(opt(&g, CO_SPEND, 2) >= 0);
	check(&g);
}

/* ---- movement cards ---- */

static void test_e09_elder_sign(void **state)
{
	struct ctgame g;
	(void)state;
	assert_int_equal(tour_card(0, CK_ELDERSIGN), B(CM_PP1) | B(CM_PP2) | B(CM_PP3) | B(CM_PP4));
	assert_int_equal(tour_card(1, CK_ELDERSIGN), 0);
	assert_int_equal(tour_after(CO_CARD, CK_ELDERSIGN), 0);

	/* B21 during step 7 */
	fresh(&g, 2);
	give_card(&g, 0, CK_ELDERSIGN);
	put(&g, CH_E, CS_CULTIST | CS_HEART);
	put(&g, X_W, CS_BYAKHEE | CS_BULLET);
	put(&g, X_C, CS_BULLET);
	put(&g, X_E, CS_BYAKHEE | CS_CULTIST);
	set_hearts(&g, 0, 3);
	begin(&g, 0);
	to_die(&g, CD_MOVE);
	roll(&g, CD_MOVE, 3);
	to_choice(&g, CA_PLAY, CM_PP3);
	pick(&g, CO_CARD, CK_ELDERSIGN);
	assert_true(is_choice(&g, CA_MOVE));
	/* a cultist's square neither stops the pawn nor starts a fight; its
	 * token stays */
	pick(&g, CO_DIR, CTMAP_E);
	assert_true(is_choice(&g, CA_MOVE));
	assert_int_equal(g.left, 5);
	assert_int_equal(g.square[CH_E], CS_CULTIST | CS_HEART);
	/* a byakhee's square costs a sanity check, no fight */
	pick(&g, CO_DIR, CTMAP_E);
	roll(&g, CD_SANITY, 1);
	assert_int_equal(g.p[0].sanity, 4);
	assert_true(is_choice(&g, CA_MOVE));
	assert_int_equal(g.square[X_W], CS_BYAKHEE | CS_BULLET);
	/* a square without enemies gives its token */
	pick(&g, CO_DIR, CTMAP_E);
	assert_int_equal(seen(CV_TOKEN, 0, X_C, CS_BULLET), 1);
	assert_int_equal(g.p[0].bullets, 4);
	/* and every byakhee square entered costs its own check */
	pick(&g, CO_DIR, CTMAP_E);
	roll(&g, CD_SANITY, 6);
	assert_true(is_choice(&g, CA_MOVE));
	assert_int_equal(g.left, 2);
	assert_int_equal(seen(CV_ROLL, 0, CD_SANITY, ANY), 2);
	assert_int_equal(seen(CV_FIGHT, ANY, ANY, ANY), 0);
	pick(&g, CO_STOP, ANY);
	finish(&g);
	assert_int_equal(seen(CV_FIGHT, ANY, ANY, ANY), 0);
	check(&g);

	/* it does not cancel steps 3-4 */
	fresh(&g, 2);
	give_card(&g, 0, CK_ELDERSIGN);
	put(&g, CH_IN, CS_CULTIST);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_ELDERSIGN);
	to_die(&g, CD_COMBAT);
	assert_int_equal(seen(CV_FIGHT, 0, CH_IN, CS_CULTIST), 1);
	check(&g);

	/* B49: not with steps 6-7 skipped (Twisted Ankle) */
	tour_pos(&g);
	give_card(&g, 0, CK_ANKLE);
	give_card(&g, 0, CK_ELDERSIGN);
	assert_int_equal(tour(&g, 0, CO_CARD, CK_ELDERSIGN, -1, -1), 0);
}

static void test_e10_borrowed_roadster(void **state)
{
	struct ctgame g;
	(void)state;
	assert_int_equal(tour_card(0, CK_ROADSTER), B(CM_PP3) | B(CM_PP4));
	assert_int_equal(tour_card(1, CK_ROADSTER), 0);
	assert_int_equal(tour_after(CO_CARD, CK_ROADSTER), 0);
	/* B49: not with steps 6-7 skipped */
	tour_pos(&g);
	give_card(&g, 0, CK_ANKLE);
	give_card(&g, 0, CK_ROADSTER);
	assert_int_equal(tour(&g, 0, CO_CARD, CK_ROADSTER, -1, -1), 0);

	/* +3 at PP3 */
	fresh(&g, 2);
	give_card(&g, 0, CK_ROADSTER);
	begin(&g, 0);
	to_die(&g, CD_MOVE);
	roll(&g, CD_MOVE, 2);
	assert_int_equal(g.total, 5);
	to_choice(&g, CA_PLAY, CM_PP3);
	pick(&g, CO_CARD, CK_ROADSTER);
	assert_int_equal(g.total, 8);
	assert_int_equal(g.left, 8);
	assert_int_equal(seen(CV_TOTAL_MOVE, 0, 0, 8), 1);
	finish(&g);
	check(&g);

	/* +3 at PP4, after a fight */
	fresh(&g, 2);
	give_card(&g, 0, CK_ROADSTER);
	put(&g, CH_E, CS_CULTIST);
	begin(&g, 0);
	to_die(&g, CD_MOVE);
	roll(&g, CD_MOVE, 2);
	to_choice(&g, CA_MOVE, 0);
	pick(&g, CO_DIR, CTMAP_E);
	to_choice(&g, CA_PLAY, CM_PP4);
	assert_int_equal(g.left, 4);
	pick(&g, CO_CARD, CK_ROADSTER);
	assert_int_equal(g.total, 8);
	assert_int_equal(g.left, 7);
	finish(&g);
	check(&g);
}

static void test_e11_harbour_fog(void **state)
{
	struct ctgame g;
	int c;
	(void)state;
	/* React: another player's window only */
	assert_int_equal(tour_card(0, CK_FOG), 0);
	assert_int_equal(tour_card(1, CK_FOG), B(CM_RW));
	assert_int_equal(tour_card(2, CK_FOG), B(CM_RW));
	/* not after the seat's own card of the round */
	tour_pos(&g);
	give_card(&g, 1, CK_FOG);
	g.p[1].played = 1;
	assert_int_equal(tour(&g, 1, CO_CARD, CK_FOG, -1, -1), 0);

	/* halves the total, rounding down; counts for the seat that plays it */
	fresh(&g, 3);
	set_hearts(&g, 0, 4);
	c = give_card(&g, 1, CK_FOG);
	give_card(&g, 2, CK_FOG);
	begin(&g, 0);
	to_die(&g, CD_MOVE);
	roll(&g, CD_MOVE, 1);
	assert_int_equal(g.total, 5);
	assert_true(is_play(&g, CM_RW));
	assert_int_equal(chooser(&g), 1);
	pick(&g, CO_CARD, CK_FOG);
	assert_int_equal(seen(CV_CARD, 1, c, CM_RW), 1);
	assert_int_equal(g.total, 2);
	assert_int_equal(g.left, 2);
	assert_int_equal(seen(CV_TOTAL_MOVE, 0, 0, 2), 1);
	assert_int_equal(g.p[1].played, 1);
	assert_int_equal(g.p[0].played, 0);
	assert_int_equal(g.card_at[c], CW_DISCARD);
	/* seat 2 is asked next and passes */
	assert_true(is_play(&g, CM_RW));
	assert_int_equal(chooser(&g), 2);
	pick(&g, CO_PASS, ANY);
	to_choice(&g, CA_MOVE, 0);
	pick(&g, CO_DIR, CTMAP_E);
	pick(&g, CO_DIR, CTMAP_E);
	assert_false(is_choice(&g, CA_MOVE));
	assert_int_equal(g.p[0].sq, X_W);
	finish(&g);
	/* seat 1's round starts again with its turn */
	assert_int_equal(g.seat, 1);
	assert_int_equal(g.p[1].played, 0);
	check(&g);

	/* odd totals round down: 7 -> 3 */
	fresh(&g, 2);
	set_hearts(&g, 0, 5);
	give_card(&g, 1, CK_FOG);
	begin(&g, 0);
	to_die(&g, CD_MOVE);
	roll(&g, CD_MOVE, 2);
	pick(&g, CO_CARD, CK_FOG);
	assert_int_equal(g.total, 3);
	check(&g);
}

static void test_e12_sanctuary_bells(void **state)
{
	struct ctgame g;
	(void)state;
	assert_int_equal(tour_card(0, CK_BELLS), B(CM_PP1) | B(CM_PP2) | B(CM_PP3));
	assert_int_equal(tour_card(1, CK_BELLS), 0);
	assert_int_equal(tour_after(CO_CARD, CK_BELLS), 0);

	/* to the Church interior, not movement (no token); no steps 6-7 */
	fresh(&g, 2);
	set_hearts(&g, 0, 2);
	g.p[0].sq = X_C;
	put(&g, CH_IN, CS_HEART);
	give_card(&g, 0, CK_BELLS);
	give_card(&g, 1, CK_FOG);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_BELLS);
	assert_int_equal(g.p[0].sq, CH_IN);
	assert_int_equal(seen(CV_RELOCATE, 0, CH_IN, ANY), 1);
	assert_int_equal(seen(CV_MOVE, ANY, ANY, ANY), 0);
	assert_int_equal(g.square[CH_IN], CS_HEART);
	assert_int_equal(g.p[0].hearts, 2);
	finish(&g);
	assert_int_equal(seen(CV_ROLL, 0, CD_MOVE, ANY), 0);
	assert_int_equal(seen(CV_TOTAL_MOVE, ANY, ANY, ANY), 0);
	assert_int_equal(seen(CV_ROLL, 0, CD_CULTISTS, ANY), 1); /* step 8 still */
	check(&g);

	/* at PP3, after the total: movement is skipped */
	fresh(&g, 2);
	g.p[0].sq = X_C;
	give_card(&g, 0, CK_BELLS);
	begin(&g, 0);
	to_die(&g, CD_MOVE);
	roll(&g, CD_MOVE, 4);
	to_choice(&g, CA_PLAY, CM_PP3);
	pick(&g, CO_CARD, CK_BELLS);
	assert_int_equal(g.p[0].sq, CH_IN);
	finish(&g);
	assert_int_equal(seen(CV_MOVE, ANY, ANY, ANY), 0);
	check(&g);

	/* B49: in the Church with steps 6-7 skipped already (Twisted Ankle),
	 * it would do nothing */
	fresh(&g, 2);
	give_card(&g, 0, CK_ANKLE);
	give_card(&g, 0, CK_BELLS);
	begin(&g, 0);
	assert_false(is_choice(&g, CA_PLAY));
	check(&g);
	/* elsewhere it still moves the pawn */
	fresh(&g, 2);
	g.p[0].sq = X_C;
	give_card(&g, 0, CK_ANKLE);
	give_card(&g, 0, CK_BELLS);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_BELLS);
	assert_int_equal(g.p[0].sq, CH_IN);
	check(&g);
	/* nor after a defeat, which puts the pawn there and skips 6-7 (B35) */
	fresh(&g, 2);
	set_hearts(&g, 0, 1);
	g.p[0].sq = X_C;
	give_card(&g, 0, CK_OMEN);
	give_card(&g, 0, CK_BELLS);
	begin(&g, 0);
	assert_int_equal(seen(CV_DEFEAT, 0, X_C, ANY), 1);
	assert_false(is_choice(&g, CA_PLAY));
	check(&g);
}

/* ---- instants ---- */

static void test_e13_second_wind(void **state)
{
	struct ctgame g;
	int h, c;
	(void)state;
	assert_int_equal(tour_card(0, CK_SECONDWIND), T_CF);
	assert_int_equal(tour_card(1, CK_SECONDWIND), 0);
	assert_int_equal(tour_after(CO_CARD, CK_SECONDWIND), 0);
	/* a second copy is not offered at the next failure of the round */
	{
		tour_pos(&g);
		give_card(&g, 0, CK_SECONDWIND);
		give_card(&g, 0, CK_SECONDWIND);
		assert_int_equal(tour(&g, 0, CO_CARD, CK_SECONDWIND, CO_CARD, CK_SECONDWIND), 0);
		assert_int_equal(played_kind(0, CK_SECONDWIND), 1);
	}

	/* roll again without losing a heart, declaring a weapon again */
	fresh(&g, 2);
	set_hearts(&g, 0, 2);
	h = play_in(&g, 0, CK_HARPOON);
	c = give_card(&g, 0, CK_SECONDWIND);
	put(&g, CH_IN, CS_BYAKHEE);
	begin(&g, 0);
	to_choice(&g, CA_WEAPON, 0);
	pick(&g, CO_WEAPON, h);
	roll(&g, CD_COMBAT, 1);
	assert_true(is_choice(&g, CA_FAILED));
	pick(&g, CO_CARD, CK_SECONDWIND);
	assert_int_equal(seen(CV_CARD, 0, c, ANY), 1);
	assert_int_equal(g.p[0].hearts, 2);
	assert_int_equal(seen(CV_HEARTS, ANY, ANY, ANY), 0);
	assert_int_equal(g.p[0].played, 1);
	assert_int_equal(g.card_at[c], CW_DISCARD);
	assert_true(is_choice(&g, CA_WEAPON));
	pick(&g, CO_WEAPON, h);
	assert_int_equal(seen(CV_ROLL, 0, CD_SANITY, ANY), 1); /* no second check */
	roll(&g, CD_COMBAT, 3);
	assert_int_equal(seen(CV_TOTAL, 0, 5, 5), 1);
	assert_int_equal(seen(CV_KILL, 0, CH_IN, CS_BYAKHEE), 1);
	assert_int_equal(g.uses[h], 1); /* both rolls spent a use (B24) */
	check(&g);

	/* never offered at a play point or after a successful roll */
	fresh(&g, 2);
	give_card(&g, 0, CK_SECONDWIND);
	put(&g, CH_IN, CS_CULTIST);
	begin(&g, 0);
	to_die(&g, CD_COMBAT);
	assert_false(PASSED(CA_PLAY));
	roll(&g, CD_COMBAT, 4);
	assert_false(is_choice(&g, CA_FAILED));
	check(&g);
}

static void test_e14_steady_nerves(void **state)
{
	struct ctgame g;
	int c;
	(void)state;
	assert_int_equal(tour_card(0, CK_NERVES), B(CM_CS));
	assert_int_equal(tour_card(1, CK_NERVES), 0);
	assert_int_equal(tour_after(CO_CARD, CK_NERVES), 0);

	/* the check due at CS is skipped */
	fresh(&g, 2);
	set_sanity(&g, 0, 1, 5);
	c = give_card(&g, 0, CK_NERVES);
	put(&g, CH_IN, CS_BYAKHEE);
	begin(&g, 0);
	to_choice(&g, CA_PLAY, CM_CS);
	pick(&g, CO_CARD, CK_NERVES);
	assert_int_equal(seen(CV_CARD, 0, c, CM_CS), 1);
	assert_true(is_die(&g, CD_COMBAT));
	roll(&g, CD_COMBAT, 6);
	assert_int_equal(seen(CV_ROLL, 0, CD_SANITY, ANY), 0);
	assert_int_equal(g.p[0].sanity, 1);
	check(&g);

	/* a fight with a cultist has no check and no CS */
	fresh(&g, 2);
	give_card(&g, 0, CK_NERVES);
	put(&g, CH_IN, CS_CULTIST);
	begin(&g, 0);
	to_die(&g, CD_COMBAT);
	assert_false(PASSED(CA_PLAY));
	check(&g);
}

static void test_e15_deadeye(void **state)
{
	struct ctgame g;
	int c;
	(void)state;
	assert_int_equal(tour_card(0, CK_DEADEYE), T_CF);
	assert_int_equal(tour_card(1, CK_DEADEYE), 0);
	assert_int_equal(tour_after(CO_CARD, CK_DEADEYE), 0);

	/* +2 turns a 2 into a kill of the cultist */
	fresh(&g, 2);
	c = give_card(&g, 0, CK_DEADEYE);
	put(&g, CH_IN, CS_CULTIST);
	begin(&g, 0);
	to_die(&g, CD_COMBAT);
	roll(&g, CD_COMBAT, 2);
	assert_int_equal(seen(CV_TOTAL, 0, 4, 2), 1);
	pick(&g, CO_CARD, CK_DEADEYE);
	assert_int_equal(seen(CV_CARD, 0, c, ANY), 1);
	assert_int_equal(seen(CV_TOTAL, 0, 4, 4), 1);
	assert_int_equal(seen(CV_KILL, 0, CH_IN, CS_CULTIST), 1);
	assert_int_equal(g.p[0].bullets, 3);
	check(&g);

	/* not enough: the failure stays, with a smaller need; the round's card
	 * is spent (no second Deadeye, no Second Wind) */
	fresh(&g, 2);
	give_card(&g, 0, CK_DEADEYE);
	give_card(&g, 0, CK_DEADEYE);
	give_card(&g, 0, CK_SECONDWIND);
	put(&g, CH_IN, CS_BYAKHEE);
	begin(&g, 0);
	to_die(&g, CD_COMBAT);
	roll(&g, CD_COMBAT, 1);
	pick(&g, CO_CARD, CK_DEADEYE);
	assert_int_equal(seen(CV_TOTAL, 0, 5, 3), 1);
	assert_true(is_choice(&g, CA_FAILED));
	assert_int_equal(options(&g), 2);
	assert_true(opt(&g, CO_SPEND, 2) >= 0);
	assert_true(opt(&g, CO_LOSE, ANY) >= 0);
	pick(&g, CO_SPEND, 2);
	assert_int_equal(g.p[0].bullets, 1);
	assert_int_equal(seen(CV_KILL, 0, CH_IN, CS_BYAKHEE), 1);
	check(&g);
}

static void test_e16_cartridge_stash(void **state)
{
	struct ctgame g;
	(void)state;
	/* Any: the own play points and another player's window */
	assert_int_equal(tour_card(0, CK_STASH), OWN);
	assert_int_equal(tour_card(1, CK_STASH), B(CM_RW));
	assert_int_equal(tour_after(CO_CARD, CK_STASH), 0);

	/* 3 bullets */
	fresh(&g, 2);
	give_card(&g, 0, CK_STASH);
	begin(&g, 0);
	{
		int supply = g.bullets;
		pick(&g, CO_CARD, CK_STASH);
		assert_int_equal(g.p[0].bullets, 6);
		assert_int_equal(g.bullets, supply - 3);
	}
	assert_int_equal(g.p[0].played, 1);
	check(&g);

	/* 6 inside the Police Station (T21) */
	fresh(&g, 2);
	lay(&g, T21, -1, 0);
	g.p[0].sq = (int16_t)sq_at(&g, -3, 0);
	give_card(&g, 0, CK_STASH);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_STASH);
	assert_int_equal(g.p[0].bullets, 9);
	check(&g);
	/* 3 on its streets */
	fresh(&g, 2);
	lay(&g, T21, -1, 0);
	g.p[0].sq = (int16_t)sq_at(&g, -2, 1);
	give_card(&g, 0, CK_STASH);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_STASH);
	assert_int_equal(g.p[0].bullets, 6);
	check(&g);

	/* B27: what the supply holds */
	fresh(&g, 2);
	set_bullets(&g, 1, g.p[1].bullets + g.bullets - 2);
	give_card(&g, 0, CK_STASH);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_STASH);
	assert_int_equal(g.p[0].bullets, 5);
	assert_int_equal(g.bullets, 0);
	check(&g);
	/* B49: an empty supply, not offered */
	fresh(&g, 2);
	set_bullets(&g, 1, g.p[1].bullets + g.bullets);
	give_card(&g, 0, CK_STASH);
	begin(&g, 0);
	assert_false(is_choice(&g, CA_PLAY));
	check(&g);

	/* in the window, by another seat */
	fresh(&g, 2);
	give_card(&g, 1, CK_STASH);
	begin(&g, 0);
	to_choice(&g, CA_PLAY, CM_RW);
	pick(&g, CO_CARD, CK_STASH);
	assert_int_equal(g.p[1].bullets, 6);
	assert_int_equal(g.p[1].played, 1);
	assert_false(is_play(&g, CM_RW)); /* one act per window */
	assert_int_equal(g.ask_seat, 0);
	check(&g);
}

static void test_e17_hymn_at_dawn(void **state)
{
	struct ctgame g;
	(void)state;
	assert_int_equal(tour_card(0, CK_HYMN), OWN);
	assert_int_equal(tour_card(1, CK_HYMN), B(CM_RW));
	assert_int_equal(tour_after(CO_CARD, CK_HYMN), 0);

	/* every non-eliminated player gains 1, never above S (B28), never
	 * from 0 (B29) */
	fresh(&g, 5);
	set_sanity(&g, 0, 3, 5);
	set_sanity(&g, 1, 5, 5);
	set_sanity(&g, 2, 0, 4);
	set_sanity(&g, 3, 4, 4);
	set_sanity(&g, 4, 1, 2);
	give_card(&g, 0, CK_HYMN);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_HYMN);
	assert_int_equal(g.p[0].sanity, 4);
	assert_int_equal(g.p[1].sanity, 5);
	assert_int_equal(g.p[2].sanity, 0);
	assert_int_equal(g.p[3].sanity, 4);
	assert_int_equal(g.p[4].sanity, 2);
	assert_int_equal(seen(CV_SANITY, ANY, ANY, ANY), 2);
	check(&g);

	/* B49: nobody can gain */
	fresh(&g, 3);
	set_sanity(&g, 1, 0, 3);
	give_card(&g, 0, CK_HYMN);
	begin(&g, 0);
	assert_false(is_choice(&g, CA_PLAY));
	check(&g);

	/* in another player's window */
	fresh(&g, 2);
	set_sanity(&g, 0, 2, 5);
	give_card(&g, 1, CK_HYMN);
	begin(&g, 0);
	to_choice(&g, CA_PLAY, CM_RW);
	pick(&g, CO_CARD, CK_HYMN);
	assert_int_equal(g.p[0].sanity, 3);
	assert_int_equal(g.p[1].played, 1);
	check(&g);
}

static void test_e18_surveyors_notes(void **state)
{
	struct ctgame g;
	int cultists = 0, tokens = 0;
	(void)state;
	assert_int_equal(tour_card(0, CK_SURVEYOR),
	                 B(CM_PP2) | B(CM_PP3) | B(CM_PP4) | B(CM_PP4_END));
	assert_int_equal(tour_card(1, CK_SURVEYOR), 0);
	assert_int_equal(tour_after(CO_CARD, CK_SURVEYOR), 0);

	/* a second map-tile step, with arrivals */
	fresh(&g, 2);
	give_card(&g, 0, CK_SURVEYOR);
	begin(&g, 0);
	to_choice(&g, CA_PLAY, CM_PP2);
	assert_int_equal(seen(CV_PLACE, ANY, ANY, ANY), 1);
	pick(&g, CO_CARD, CK_SURVEYOR);
	apply(&g, tile_index(&g, T15));
	assert_int_equal(seen(CV_TILE_DRAW, 0, T15, ANY), 1);
	assert_true(is_choice(&g, CA_TILE));
	apply(&g, 0);
	assert_int_equal(g.map.where[T15], CTMAP_PLACED);
	assert_int_equal(seen(CV_PLACE, 0, T15, ANY), 1);
	/* the Pharmacy's two interior squares: a cultist and a token each */
	assert_true(is_choice(&g, CA_TOKENS));
	assert_int_equal(chooser(&g), 0);
	pick(&g, CO_MASK, 1); /* a bullet first, then a heart */
	for (int l = 0; l < 9; l++) {
		int q = T15 * 9 + l;
		cultists += !!(g.square[q] & CS_CULTIST);
		tokens += !!(g.square[q] & (CS_HEART | CS_BULLET));
	}
	assert_int_equal(cultists, 2);
	assert_int_equal(tokens, 2);
	assert_int_equal(seen(CV_ARRIVE, ANY, ANY, CS_CULTIST), 2);
	assert_int_equal(seen(CV_ARRIVE, ANY, ANY, CS_BULLET), 1);
	assert_int_equal(seen(CV_ARRIVE, ANY, ANY, CS_HEART), 1);
	/* back at PP2, where nothing more may be played */
	assert_int_equal(g.p[0].played, 1);
	finish(&g);
	check(&g);
}

static void test_e19_banishing_rite(void **state)
{
	struct ctgame g;
	int supply, from;
	(void)state;
	assert_int_equal(tour_card(0, CK_BANISH), B(CM_CS));
	assert_int_equal(tour_card(1, CK_BANISH), 0);
	assert_int_equal(tour_after(CO_CARD, CK_BANISH), 0);

	/* killed with no sanity check and no roll; 1 relic */
	fresh(&g, 2);
	give_card(&g, 0, CK_BANISH);
	put(&g, CH_IN, CS_BYAKHEE | CS_CULTIST);
	begin(&g, 0);
	to_choice(&g, CA_PLAY, CM_CS);
	supply = g.byakhee;
	from = logn;
	pick(&g, CO_CARD, CK_BANISH);
	assert_int_equal(seen(CV_KILL, 0, CH_IN, CS_BYAKHEE), 1);
	assert_int_equal(g.byakhee, supply + 1);
	assert_int_equal(g.square[CH_IN], CS_CULTIST);
	apply(&g, 0); /* the relic */
	assert_int_equal(relics_of(&g, 0), 1);
	/* then the cultist of step 4 */
	to_die(&g, CD_COMBAT);
	assert_int_equal(seen_since(from, CV_ROLL, ANY, ANY, ANY), 0);
	assert_int_equal(seen(CV_FIGHT, 0, CH_IN, CS_CULTIST), 1);
	roll(&g, CD_COMBAT, 6);
	apply(&g, 0);
	assert_int_equal(relics_of(&g, 0), 2);
	check(&g);
}

static void test_e20_antiquarians_eye(void **state)
{
	struct ctgame g;
	struct game_step st;
	(void)state;
	assert_int_equal(tour_card(0, CK_EYE), OWN);
	assert_int_equal(tour_card(1, CK_EYE), 0);
	assert_int_equal(tour_after(CO_CARD, CK_EYE), 0);

	/* 1 relic in the Church (B48) */
	fresh(&g, 2);
	give_card(&g, 0, CK_EYE);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_EYE);
	apply(&g, 5);
	assert_false(relic_pending(&g));
	assert_int_equal(relics_of(&g, 0), 1);
	assert_int_equal(g.relic_at[5], CW_HAND + 0);
	check(&g);

	/* 2 inside a named building */
	fresh(&g, 2);
	lay(&g, T15, -1, 0);
	g.p[0].sq = (int16_t)sq_at(&g, -1, 0);
	give_card(&g, 0, CK_EYE);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_EYE);
	apply(&g, 0);
	apply(&g, 0);
	assert_int_equal(relics_of(&g, 0), 2);
	assert_int_equal(seen(CV_RELIC, 0, ANY, ANY), 2);
	check(&g);
	/* 1 on the building's street */
	fresh(&g, 2);
	lay(&g, T15, -1, 0);
	g.p[0].sq = (int16_t)sq_at(&g, -1, 1);
	give_card(&g, 0, CK_EYE);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_EYE);
	apply(&g, 0);
	assert_int_equal(relics_of(&g, 0), 1);
	assert_false(relic_pending(&g));
	check(&g);
	/* 1 inside a Ritual Site (B48) */
	fresh(&g, 2);
	lay(&g, T26, 0, -1);
	g.p[0].sq = (int16_t)sq_at(&g, 1, -2);
	put(&g, sq_at(&g, 0, -3), CS_CULTIST);
	give_card(&g, 0, CK_EYE);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_EYE);
	apply(&g, 0);
	assert_int_equal(relics_of(&g, 0), 1);
	assert_false(relic_pending(&g));
	check(&g);

	/* B52: an empty relic deck is refilled from the discard */
	fresh(&g, 2);
	for (int r = 0; r < CTGAME_RELICS; r++)
		g.relic_at[r] = (uint8_t)(r < 3 ? CW_DISCARD : CW_HAND + 1);
	for (int t = 0; t < CTGAME_TYPES; t++)
		g.p[1].relics[t] = (uint8_t)(t == 0 ? 13 : 16);
	give_card(&g, 0, CK_EYE);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_EYE);
	ctgame_step(&g, &st);
	assert_int_equal(st.node, GAME_NODE_CHANCE);
	assert_int_equal(st.kind, CTGAME_ROLL_RELIC);
	assert_int_equal(st.count, 3);
	apply(&g, 2);
	assert_int_equal(g.relic_at[2], CW_HAND + 0);
	assert_int_equal(g.relic_at[0], CW_DECK);
	check(&g);
	/* B49: both relic piles empty, not offered */
	fresh(&g, 2);
	for (int r = 0; r < CTGAME_RELICS; r++)
		g.relic_at[r] = CW_HAND + 1;
	for (int t = 0; t < CTGAME_TYPES; t++)
		g.p[1].relics[t] = 16;
	give_card(&g, 0, CK_EYE);
	begin(&g, 0);
	assert_false(is_choice(&g, CA_PLAY));
	check(&g);
}

static void test_e21_scatter_the_faithful(void **state)
{
	struct ctgame g;
	int far, figs[16], dests[32], n;
	(void)state;
	assert_int_equal(tour_card(0, CK_SCATTER), OWN);
	assert_int_equal(tour_card(1, CK_SCATTER), 0);
	assert_int_equal(tour_after(CO_CARD, CK_SCATTER), 0);

	/* cultists on the own tile and the adjacent T02; T03 two cells east */
	fresh(&g, 2);
	lay(&g, T03, 2, 0);
	far = sq_at(&g, 7, 1);
	put(&g, CH_N, CS_CULTIST);
	put(&g, CH_S, CS_CULTIST);
	put(&g, X_W, CS_CULTIST);
	put(&g, X_E, CS_CULTIST);
	put(&g, far, CS_CULTIST);
	give_card(&g, 0, CK_SCATTER);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_SCATTER);
	assert_true(is_choice(&g, CA_FIGURE));
	n = args_of(&g, CO_SQUARE, figs);
	assert_int_equal(n, 4); /* reading order */
	assert_int_equal(figs[0], CH_N);
	assert_int_equal(figs[1], X_W);
	assert_int_equal(figs[2], X_E);
	assert_int_equal(figs[3], CH_S);
	assert_true(opt(&g, CO_STOP, ANY) >= 0);
	/* §10.2: 1 or 2 squares, never through another cultist (B40) */
	pick(&g, CO_SQUARE, CH_N);
	n = args_of(&g, CO_SQUARE, dests);
	assert_int_equal(n, 3);
	assert_int_equal(dests[0], CH_W);
	assert_int_equal(dests[1], CH_IN);
	assert_int_equal(dests[2], CH_E);
	pick(&g, CO_SQUARE, CH_E);
	assert_int_equal(seen(CV_FIGURE, CS_CULTIST, CH_N, CH_E), 1);
	/* a moved cultist is not offered again */
	assert_int_equal(opt(&g, CO_SQUARE, CH_E), -1);
	pick(&g, CO_SQUARE, X_W);
	n = args_of(&g, CO_SQUARE, dests);
	for (int i = 0; i < n; i++)
		assert_true(dests[i] != CH_E && dests[i] != CH_IN && dests[i] != X_E);
	pick(&g, CO_SQUARE, X_C);
	/* its only destination, T03's west street, is taken without asking */
	pick(&g, CO_SQUARE, X_E);
	assert_int_equal(seen(CV_FIGURE, CS_CULTIST, X_E, sq_at(&g, 6, 1)), 1);
	/* three moved: back at PP1 */
	assert_false(is_choice(&g, CA_FIGURE));
	assert_int_equal(seen(CV_FIGURE, ANY, ANY, ANY), 3);
	assert_true(g.square[far] & CS_CULTIST);
	assert_true(g.square[CH_S] & CS_CULTIST);
	finish(&g);
	check(&g);

	/* it may stop early */
	fresh(&g, 2);
	put(&g, CH_N, CS_CULTIST);
	put(&g, CH_S, CS_CULTIST);
	give_card(&g, 0, CK_SCATTER);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_SCATTER);
	pick(&g, CO_SQUARE, CH_S);
	pick(&g, CO_SQUARE, CH_W);
	pick(&g, CO_STOP, ANY);
	assert_int_equal(seen(CV_FIGURE, ANY, ANY, ANY), 1);
	assert_true(g.square[CH_N] & CS_CULTIST);
	check(&g);

	/* a cultist on a site stays on it */
	fresh(&g, 2);
	lay(&g, T26, 0, -1);
	put(&g, sq_at(&g, 1, -1), CS_CULTIST); /* the entrance */
	give_card(&g, 0, CK_SCATTER);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_SCATTER);
	pick(&g, CO_SQUARE, sq_at(&g, 1, -1));
	n = args_of(&g, CO_SQUARE, dests);
	assert_true(n > 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(dests[i] / 9, T26);
	check(&g);

	/* B49: no cultist on the own or an adjacent tile */
	fresh(&g, 2);
	lay(&g, T03, 2, 0);
	put(&g, sq_at(&g, 7, 1), CS_CULTIST);
	give_card(&g, 0, CK_SCATTER);
	begin(&g, 0);
	assert_false(is_choice(&g, CA_PLAY));
	check(&g);
}

/* ---- automatic cards ---- */

/* Automatic cards are played in step 1 only, and do not count. */
static void automatic_timing(int kind)
{
	struct ctgame g;
	/* Twisted Ankle takes PP3 and PP4 away with steps 6-7 */
	unsigned own = kind == CK_ANKLE ? B(CM_PP1) | B(CM_PP2) | B(CM_PP5) : OWN;
	assert_int_equal(tour_card(0, kind), T_AUTO);
	tour_pos(&g);
	give_card(&g, 0, kind);
	give_card(&g, 0, CK_STASH);
	assert_int_equal(tour(&g, 0, CO_CARD, CK_STASH, -1, -1), own);
	assert_int_equal(played_kind(0, kind), 1);
	/* a second copy stays in the hand, to be discarded in step 11 */
	if (ctgame_card(kind)->count == 2) {
		tour_pos(&g);
		give_card(&g, 0, kind);
		give_card(&g, 0, kind);
		assert_int_equal(tour(&g, 0, CO_CARD, kind, -1, -1), T_AUTO | T_DISCARD);
		assert_int_equal(played_kind(0, kind), 1);
	}
	/* never out of turn */
	assert_int_equal(tour_card(1, kind), 0);
}

static void test_e22_whispers_in_the_walls(void **state)
{
	struct ctgame g;
	int c;
	(void)state;
	automatic_timing(CK_WHISPERS);

	/* alone in the hand it is played without a choice */
	fresh(&g, 2);
	set_sanity(&g, 0, 3, 5);
	c = give_card(&g, 0, CK_WHISPERS);
	give_card(&g, 0, CK_STASH);
	begin(&g, 0);
	assert_int_equal(seen(CV_CARD, 0, c, 0), 1);
	assert_int_equal(g.p[0].sanity, 2);
	assert_int_equal(g.card_at[c], CW_DISCARD);
	assert_int_equal(g.p[0].played, 0);
	assert_true(is_play(&g, CM_PP1));
	assert_true(opt(&g, CO_CARD, CK_STASH) >= 0);
	check(&g);

	/* at 1 sanity: insane (B30): no tile, no draw, no movement */
	fresh(&g, 2);
	set_sanity(&g, 0, 1, 5);
	give_card(&g, 0, CK_WHISPERS);
	give_card(&g, 0, CK_STASH);
	begin(&g, 0);
	assert_int_equal(seen(CV_INSANE, 0, 4, ANY), 1);
	assert_true(is_die(&g, CD_CULTISTS));
	finish(&g);
	assert_int_equal(seen(CV_TILE_DRAW, ANY, ANY, ANY), 0);
	assert_int_equal(seen(CV_DEAL, ANY, ANY, ANY), 0);
	assert_int_equal(played_kind(0, CK_STASH), 0);
	check(&g);
}

static void test_e23_knock_at_the_door(void **state)
{
	struct ctgame g;
	int sq[8];
	(void)state;
	automatic_timing(CK_KNOCK);

	/* two cultists on linked squares of the player's choice */
	fresh(&g, 2);
	g.p[0].sq = X_C;
	put(&g, X_N, CS_CULTIST);
	give_card(&g, 0, CK_KNOCK);
	begin(&g, 0);
	assert_true(is_choice(&g, CA_SQUARE));
	assert_int_equal(chooser(&g), 0);
	assert_int_equal(args_of(&g, CO_SQUARE, sq), 3);
	assert_int_equal(sq[0], X_W);
	assert_int_equal(sq[1], X_E);
	assert_int_equal(sq[2], X_S);
	pick(&g, CO_SQUARE, X_S);
	assert_int_equal(args_of(&g, CO_SQUARE, sq), 2);
	pick(&g, CO_SQUARE, X_W);
	assert_true(g.square[X_S] & CS_CULTIST);
	assert_true(g.square[X_W] & CS_CULTIST);
	assert_false(g.square[X_E] & CS_CULTIST);
	assert_int_equal(seen(CV_ARRIVE, -1, ANY, CS_CULTIST), 2);
	check(&g);

	/* B43: one linked square free; the second cultist goes to the nearest
	 * square that can take it (here the pawn's own, fought in step 4) */
	fresh(&g, 2);
	g.p[0].sq = CH_N;
	give_card(&g, 0, CK_KNOCK);
	begin(&g, 0);
	assert_true(g.square[CH_IN] & CS_CULTIST);
	assert_true(g.square[CH_N] & CS_CULTIST);
	to_die(&g, CD_COMBAT);
	assert_int_equal(seen(CV_FIGHT, 0, CH_N, CS_CULTIST), 1);
	check(&g);

	/* B43 when the pawn's square is taken too: reading order */
	fresh(&g, 2);
	g.p[0].sq = CH_N;
	put(&g, CH_N, CS_CULTIST);
	give_card(&g, 0, CK_KNOCK);
	begin(&g, 0);
	assert_true(g.square[CH_IN] & CS_CULTIST);
	assert_true(g.square[CH_W] & CS_CULTIST);
	assert_false(g.square[CH_E] & CS_CULTIST);
	check(&g);

	/* B42: one cultist left in the supply */
	fresh(&g, 2);
	g.p[0].sq = X_C;
	lay_all(&g);
	{
		static const int keep_free[] = { X_N, X_W, X_C, X_E, X_S };
		fill(&g, CS_CULTIST, 1, keep_free, 5);
	}
	assert_int_equal(g.cultists, 1);
	give_card(&g, 0, CK_KNOCK);
	begin(&g, 0);
	assert_true(is_choice(&g, CA_SQUARE));
	assert_int_equal(options(&g), 4);
	pick(&g, CO_SQUARE, X_E);
	assert_int_equal(g.cultists, 0);
	assert_false(is_choice(&g, CA_SQUARE));
	assert_int_equal(seen(CV_ARRIVE, -1, ANY, CS_CULTIST), 1);
	check(&g);
}

static void test_e24_wings_overhead(void **state)
{
	struct ctgame g;
	(void)state;
	automatic_timing(CK_WINGS);

	/* a byakhee on the pawn's square, fought in step 3 (B14) */
	fresh(&g, 2);
	give_card(&g, 0, CK_WINGS);
	begin(&g, 0);
	assert_int_equal(seen(CV_ARRIVE, -1, CH_IN, CS_BYAKHEE), 1);
	to_die(&g, CD_SANITY);
	assert_int_equal(seen(CV_FIGHT, 0, CH_IN, CS_BYAKHEE), 1);
	check(&g);

	/* B43: the square holds one; the nearest free square, reading order */
	fresh(&g, 2);
	put(&g, CH_IN, CS_BYAKHEE);
	give_card(&g, 0, CK_WINGS);
	begin(&g, 0);
	assert_int_equal(seen(CV_ARRIVE, -1, CH_N, CS_BYAKHEE), 1);
	assert_true(g.square[CH_N] & CS_BYAKHEE);
	check(&g);

	/* B42: an empty supply places nothing */
	fresh(&g, 2);
	lay_all(&g);
	{
		static const int keep_free[] = { CH_IN };
		fill(&g, CS_BYAKHEE, 0, keep_free, 1);
	}
	assert_int_equal(g.byakhee, 0);
	give_card(&g, 0, CK_WINGS);
	begin(&g, 0);
	assert_int_equal(seen(CV_CARD, 0, ANY, 0), 1);
	assert_int_equal(seen(CV_ARRIVE, ANY, ANY, ANY), 0);
	assert_false(g.square[CH_IN] & CS_BYAKHEE);
	check(&g);
}

static void test_e25_twisted_ankle(void **state)
{
	struct ctgame g;
	int fog;
	(void)state;
	automatic_timing(CK_ANKLE);

	/* steps 6 and 7 are skipped: no roll, no window, no movement */
	fresh(&g, 2);
	give_card(&g, 0, CK_ANKLE);
	give_card(&g, 0, CK_ROADSTER);
	fog = give_card(&g, 1, CK_FOG);
	begin(&g, 0);
	finish(&g);
	assert_int_equal(seen(CV_ROLL, 0, CD_MOVE, ANY), 0);
	assert_int_equal(seen(CV_TOTAL_MOVE, ANY, ANY, ANY), 0);
	assert_false(PASSED(CA_MOVE));
	assert_int_equal(seen(CV_ROLL, 0, CD_CULTISTS, ANY), 1);
	assert_int_equal(played_kind(1, CK_FOG), 0);
	assert_int_equal(g.card_at[fog], CW_HAND + 1);
	check(&g);
}

static void test_e26_jammed_action(void **state)
{
	struct ctgame g;
	int knife;
	(void)state;
	automatic_timing(CK_JAMMED);

	/* no weapon may be declared this turn */
	fresh(&g, 2);
	knife = play_in(&g, 0, CK_KNIFE);
	give_card(&g, 0, CK_JAMMED);
	put(&g, CH_IN, CS_CULTIST);
	put(&g, CH_E, CS_CULTIST);
	begin(&g, 0);
	to_die(&g, CD_COMBAT);
	assert_false(PASSED(CA_WEAPON));
	roll(&g, CD_COMBAT, 3);
	assert_int_equal(seen(CV_TOTAL, 0, 4, 3), 1);
	pick(&g, CO_SPEND, 1);
	/* nor in step 7 */
	to_die(&g, CD_MOVE);
	roll(&g, CD_MOVE, 1);
	to_choice(&g, CA_MOVE, 0);
	pick(&g, CO_DIR, CTMAP_E);
	assert_true(is_die(&g, CD_COMBAT));
	roll(&g, CD_COMBAT, 6);
	assert_int_equal(seen(CV_WEAPON, ANY, ANY, ANY), 0);
	finish(&g);
	/* the next turn, weapons again */
	put(&g, g.p[0].sq, CS_CULTIST);
	begin(&g, 0);
	to_choice(&g, CA_WEAPON, 0);
	pick(&g, CO_WEAPON, knife);
	check(&g);
}

static void test_e27_wet_powder(void **state)
{
	struct ctgame g;
	int supply;
	(void)state;
	automatic_timing(CK_POWDER);

	/* ⌊7/2⌋ = 3 bullets back to the supply */
	fresh(&g, 2);
	set_bullets(&g, 0, 7);
	supply = g.bullets;
	give_card(&g, 0, CK_POWDER);
	begin(&g, 0);
	assert_int_equal(g.p[0].bullets, 4);
	assert_int_equal(g.bullets, supply + 3);
	assert_int_equal(seen(CV_BULLETS, 0, 0, 4), 1);
	check(&g);

	/* ⌊1/2⌋ = 0 */
	fresh(&g, 2);
	set_bullets(&g, 0, 1);
	give_card(&g, 0, CK_POWDER);
	begin(&g, 0);
	assert_int_equal(g.p[0].bullets, 1);
	assert_int_equal(seen(CV_BULLETS, ANY, ANY, ANY), 0);
	check(&g);
}

static void test_e28_bad_omen(void **state)
{
	struct ctgame g;
	int knife, candle;
	(void)state;
	automatic_timing(CK_OMEN);

	/* 1 heart lost */
	fresh(&g, 2);
	give_card(&g, 0, CK_OMEN);
	begin(&g, 0);
	assert_int_equal(g.p[0].hearts, 2);
	assert_int_equal(seen(CV_HEARTS, 0, 0, 2), 1);
	check(&g);

	/* at 0: defeated (§9.3), then no fights and no steps 6-7 (B35) */
	fresh(&g, 2);
	set_hearts(&g, 0, 1);
	set_bullets(&g, 0, 6);
	g.p[0].sq = X_C;
	put(&g, CH_IN, CS_CULTIST);
	knife = play_in(&g, 0, CK_KNIFE);
	candle = play_in(&g, 0, CK_CANDLE);
	give_relic(&g, 0, CT_DAGGER);
	give_relic(&g, 0, CT_DAGGER);
	give_card(&g, 0, CK_OMEN);
	give_card(&g, 0, CK_STASH);
	begin(&g, 0);
	assert_int_equal(seen(CV_DEFEAT, 0, X_C, ANY), 1);
	assert_int_equal(g.p[0].sq, CTGAME_CHURCH_SQ);
	assert_int_equal(g.card_at[knife], CW_DISCARD);
	assert_int_equal(g.card_at[candle], CW_PLAY + 0);
	assert_int_equal(g.p[0].relics[CT_DAGGER], 1); /* ⌊2/2⌋ lost, one type */
	assert_int_equal(g.p[0].hearts, 3);
	assert_int_equal(g.p[0].bullets, 3);
	assert_int_equal(g.p[0].start, 4);
	/* the right to a card of the round is kept */
	assert_true(is_play(&g, CM_PP1));
	pick(&g, CO_CARD, CK_STASH);
	finish(&g);
	assert_int_equal(seen(CV_FIGHT, ANY, ANY, ANY), 0);
	assert_int_equal(seen(CV_ROLL, 0, CD_MOVE, ANY), 0);
	check(&g);

	/* B34: a defeat by the card on a Ritual Site activates it */
	fresh(&g, 2);
	set_hearts(&g, 0, 1);
	lay(&g, T26, 0, -1);
	g.p[0].sq = (int16_t)sq_at(&g, 1, -2);
	g.p[1].sq = (int16_t)sq_at(&g, 1, -1);
	put(&g, sq_at(&g, 0, -3), CS_CULTIST);
	put(&g, sq_at(&g, 2, -3), CS_BYAKHEE);
	give_card(&g, 0, CK_OMEN);
	begin(&g, 0);
	assert_int_equal(seen(CV_ACTIVATE, 0, T26, 1), 1);
	assert_int_equal(g.activated, 1);
	assert_int_equal(g.map.where[T26], CTMAP_ACTIVATED);
	assert_int_equal(g.p[0].sq, CTGAME_CHURCH_SQ);
	assert_int_equal(g.p[1].sq, CH_N); /* B46 */
	assert_int_equal(g.cultists, CTGAME_CULTISTS);
	assert_int_equal(g.byakhee, CTGAME_BYAKHEE);
	check(&g);
}

/* Several Automatic kinds: exactly one is played, the player's choice; the
 * baseline takes the lowest severity (BP2). */
static void test_automatic_one_per_turn(void **state)
{
	struct ctgame g;
	struct game_step st;
	int v;
	(void)state;
	fresh(&g, 2);
	give_card(&g, 0, CK_OMEN);
	give_card(&g, 0, CK_WHISPERS);
	give_card(&g, 0, CK_JAMMED);
	begin(&g, 0);
	assert_true(is_choice(&g, CA_AUTOMATIC));
	assert_int_equal(options(&g), 3);
	ctgame_step(&g, &st);
	v = ctgame_policy_baseline(&g, &st, NULL);
	assert_int_equal(v, opt(&g, CO_CARD, CK_JAMMED));
	apply(&g, v);
	assert_int_equal(played_kind(0, CK_JAMMED), 1);
	assert_int_equal(ctgame_in_hand(&g, 0, CK_OMEN), 1);
	assert_int_equal(ctgame_in_hand(&g, 0, CK_WHISPERS), 1);
	assert_int_equal(g.p[0].hearts, 3);
	assert_int_equal(g.p[0].sanity, 5);
	finish(&g);
	assert_int_equal(played_kind(0, CK_OMEN) + played_kind(0, CK_WHISPERS), 0);
	check(&g);

	/* the player may choose another */
	fresh(&g, 2);
	give_card(&g, 0, CK_WINGS);
	give_card(&g, 0, CK_POWDER);
	begin(&g, 0);
	ctgame_step(&g, &st);
	assert_int_equal(ctgame_policy_baseline(&g, &st, NULL), opt(&g, CO_CARD, CK_POWDER));
	pick(&g, CO_CARD, CK_WINGS);
	assert_true(g.square[CH_IN] & CS_BYAKHEE);
	assert_int_equal(g.p[0].bullets, 3);
	check(&g);
}

/* ---- PvP cards ---- */

static void test_e29_back_alley_brawl(void **state)
{
	struct ctgame g;
	int seats[8];
	(void)state;
	assert_int_equal(tour_card(0, CK_BRAWL), OWN);
	assert_int_equal(tour_card(1, CK_BRAWL), 0);
	assert_int_equal(tour_after(CO_CARD, CK_BRAWL), 0);

	/* targets: the same square or a linked one; ties rolled again; the
	 * lower roller loses a heart */
	fresh(&g, 4);
	g.p[0].sq = CH_E;
	g.p[1].sq = X_W; /* linked across the border */
	g.p[2].sq = CH_E;
	g.p[3].sq = CH_N; /* two steps away */
	give_card(&g, 0, CK_BRAWL);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_BRAWL);
	assert_true(is_choice(&g, CA_TARGET));
	assert_int_equal(args_of(&g, CO_SEAT, seats), 2);
	assert_int_equal(seats[0], 1);
	assert_int_equal(seats[1], 2);
	pick(&g, CO_SEAT, 1);
	roll(&g, CD_BRAWL_A, 4);
	{
		struct game_step st;
		ctgame_step(&g, &st);
		assert_int_equal(st.seat, 1); /* the target rolls */
	}
	roll(&g, CD_BRAWL_B, 4);
	roll(&g, CD_BRAWL_A, 2);
	roll(&g, CD_BRAWL_B, 5);
	assert_int_equal(seen(CV_ROLL, 1, CD_BRAWL_B, 4), 1);
	assert_int_equal(g.p[0].hearts, 2);
	assert_int_equal(g.p[1].hearts, 3);
	assert_int_equal(seen(CV_HEARTS, 0, 0, 2), 1);
	assert_int_equal(g.p[0].played, 1);
	finish(&g);
	check(&g);

	/* the other player at 1 heart: defeated out of turn */
	fresh(&g, 2);
	set_hearts(&g, 1, 1);
	play_in(&g, 1, CK_KNIFE);
	give_relic(&g, 1, CT_MEAD);
	give_relic(&g, 1, CT_TOME);
	g.p[1].sq = CH_E;
	give_card(&g, 0, CK_BRAWL);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_BRAWL); /* one target: chosen without asking */
	roll(&g, CD_BRAWL_A, 6);
	roll(&g, CD_BRAWL_B, 1);
	assert_int_equal(seen(CV_DEFEAT, 1, CH_E, ANY), 1);
	assert_true(is_choice(&g, CA_RELIC_LOSS));
	assert_int_equal(chooser(&g), 1);
	pick(&g, CO_TYPE, CT_TOME);
	assert_int_equal(g.p[1].relics[CT_TOME], 0);
	assert_int_equal(g.p[1].relics[CT_MEAD], 1);
	assert_int_equal(g.p[1].sq, CTGAME_CHURCH_SQ);
	assert_int_equal(g.p[1].hearts, 3);
	assert_int_equal(g.p[1].start, 4);
	assert_int_equal(ctgame_in_play(&g, 1, CK_KNIFE), -1);
	/* seat 0's turn goes on */
	assert_int_equal(g.seat, 0);
	assert_true(g.p[0].hearts == 3);
	finish(&g);
	check(&g);

	/* B49: nobody on the square or a linked one */
	fresh(&g, 2);
	g.p[1].sq = X_C;
	give_card(&g, 0, CK_BRAWL);
	begin(&g, 0);
	assert_false(is_choice(&g, CA_PLAY));
	check(&g);
}

static void test_e30_call_of_the_yellow_sign(void **state)
{
	struct ctgame g;
	int figs[16], dests[32], n;
	int16_t dist[CTMAP_SQUARES];
	(void)state;
	assert_int_equal(tour_card(0, CK_YELLOW), OWN);
	assert_int_equal(tour_card(1, CK_YELLOW), 0);
	assert_int_equal(tour_after(CO_CARD, CK_YELLOW), 0);

	/* seat 1 on the Church interior; cultists east of it */
	fresh(&g, 3);
	g.p[0].sq = X_S;
	g.p[2].sq = X_S;
	lay(&g, T03, 2, 0);
	put(&g, X_E, CS_CULTIST);
	put(&g, X_N, CS_CULTIST);
	put(&g, sq_at(&g, 8, 1), CS_CULTIST); /* T03's east street */
	give_card(&g, 0, CK_YELLOW);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_YELLOW);
	assert_true(is_choice(&g, CA_TARGET));
	pick(&g, CO_SEAT, 1);
	assert_true(is_choice(&g, CA_FIGURE));
	n = args_of(&g, CO_SQUARE, figs);
	assert_int_equal(n, 3);
	assert_true(opt(&g, CO_STOP, ANY) >= 0);
	/* up to 3 squares, strictly closer, never through a cultist (B40) */
	pick(&g, CO_SQUARE, X_E);
	n = args_of(&g, CO_SQUARE, dests);
	ctmap_distances(&g.map, CH_IN, NULL, -1, dist);
	assert_true(n > 0);
	for (int i = 0; i < n; i++)
		assert_true(dist[dests[i]] < dist[X_E]);
	assert_true(opt(&g, CO_SQUARE, CH_E) >= 0);      /* 3 squares */
	assert_true(opt(&g, CO_SQUARE, X_C) >= 0);       /* 1 square */
	assert_int_equal(opt(&g, CO_SQUARE, CH_IN), -1); /* 4 squares */
	assert_int_equal(opt(&g, CO_SQUARE, X_N), -1);
	pick(&g, CO_SQUARE, CH_E);
	assert_int_equal(seen(CV_FIGURE, CS_CULTIST, X_E, CH_E), 1);
	/* the second: T03's, 3 squares west at most */
	pick(&g, CO_SQUARE, sq_at(&g, 8, 1));
	n = args_of(&g, CO_SQUARE, dests);
	assert_int_equal(n, 3);
	pick(&g, CO_SQUARE, sq_at(&g, 5, 1));
	/* two moved: done */
	assert_false(is_choice(&g, CA_FIGURE));
	assert_false(is_choice(&g, CA_DEST));
	assert_true(g.square[X_N] & CS_CULTIST);
	assert_int_equal(seen(CV_FIGURE, ANY, ANY, ANY), 2);
	finish(&g);
	check(&g);

	/* confinement: a cultist on a site stays on it; it may stop early */
	fresh(&g, 2);
	lay(&g, T26, 0, -1);
	put(&g, sq_at(&g, 1, -3), CS_CULTIST); /* the site's north middle */
	put(&g, X_E, CS_CULTIST);
	g.p[0].sq = X_C;
	give_card(&g, 0, CK_YELLOW);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_YELLOW);
	pick(&g, CO_SQUARE, sq_at(&g, 1, -3));
	n = args_of(&g, CO_SQUARE, dests);
	assert_int_equal(n, 4); /* centre, entrance, the entrance's neighbours */
	for (int i = 0; i < n; i++)
		assert_int_equal(dests[i] / 9, T26);
	assert_int_equal(opt(&g, CO_SQUARE, CH_N), -1);
	pick(&g, CO_SQUARE, sq_at(&g, 1, -1));
	assert_true(is_choice(&g, CA_FIGURE));
	pick(&g, CO_STOP, ANY);
	assert_int_equal(seen(CV_FIGURE, ANY, ANY, ANY), 1);
	assert_true(g.square[X_E] & CS_CULTIST);
	check(&g);

	/* B49: no cultist can get closer */
	fresh(&g, 2);
	put(&g, CH_E, CS_CULTIST);
	g.p[1].sq = CH_E;
	g.p[0].sq = X_C;
	give_card(&g, 0, CK_YELLOW);
	begin(&g, 0);
	assert_false(is_choice(&g, CA_PLAY));
	check(&g);
}

static void test_e31_light_fingers(void **state)
{
	struct ctgame g;
	int types[8], tome;
	(void)state;
	assert_int_equal(tour_card(0, CK_FINGERS), B(CM_PP1) | B(CM_PP2) | B(CM_PP3));
	assert_int_equal(tour_card(1, CK_FINGERS), 0);
	assert_int_equal(tour_after(CO_CARD, CK_FINGERS), 0);

	/* a relic of the chosen type from a player on the same square */
	fresh(&g, 3);
	give_relic(&g, 1, CT_AMULET);
	give_relic(&g, 1, CT_TOME);
	tome = give_relic(&g, 1, CT_TOME);
	give_card(&g, 0, CK_FINGERS);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_FINGERS);
	/* seat 2 holds nothing: seat 1 is the only target */
	assert_true(is_choice(&g, CA_RELIC_TAKE));
	assert_int_equal(args_of(&g, CO_TYPE, types), 2);
	assert_int_equal(types[0], CT_AMULET);
	assert_int_equal(types[1], CT_TOME);
	pick(&g, CO_TYPE, CT_TOME);
	assert_int_equal(g.p[0].relics[CT_TOME], 1);
	assert_int_equal(g.p[1].relics[CT_TOME], 1);
	assert_int_equal(g.p[1].relics[CT_AMULET], 1);
	assert_int_equal(seen(CV_RELIC_LOST, 1, tome - 1, ANY), 1);
	assert_int_equal(seen(CV_RELIC, 0, tome - 1, ANY), 1);
	assert_int_equal(g.relic_at[tome - 1], CW_HAND + 0);
	assert_int_equal(g.relic_at[tome], CW_HAND + 1);
	check(&g);

	/* two targets: the player picks */
	fresh(&g, 3);
	give_relic(&g, 1, CT_IDOL);
	give_relic(&g, 2, CT_MEAD);
	give_card(&g, 0, CK_FINGERS);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_FINGERS);
	assert_true(is_choice(&g, CA_TARGET));
	pick(&g, CO_SEAT, 2);
	assert_int_equal(g.p[0].relics[CT_MEAD], 1);
	assert_int_equal(g.p[2].relics[CT_MEAD], 0);
	check(&g);

	/* B49: a linked square is not the same square */
	fresh(&g, 2);
	give_relic(&g, 1, CT_IDOL);
	g.p[1].sq = CH_E;
	give_card(&g, 0, CK_FINGERS);
	begin(&g, 0);
	assert_false(is_choice(&g, CA_PLAY));
	check(&g);
}

static void test_e32_sent_your_way(void **state)
{
	struct ctgame g;
	int figs[16], t03c, site_sq;
	(void)state;
	assert_int_equal(tour_card(0, CK_SENT), OWN);
	assert_int_equal(tour_card(1, CK_SENT), 0);
	assert_int_equal(tour_after(CO_CARD, CK_SENT), 0);

	/* a byakhee with its rider onto the target's square; byakhee on a
	 * site are not offered */
	fresh(&g, 3);
	lay(&g, T03, 2, 0);
	lay(&g, T26, 0, -1);
	t03c = sq_at(&g, 7, 1);
	site_sq = sq_at(&g, 1, -2);
	put(&g, t03c, CS_BYAKHEE | CS_CULTIST);
	put(&g, CH_N, CS_BYAKHEE);
	put(&g, site_sq, CS_BYAKHEE);
	put(&g, sq_at(&g, 0, -3), CS_CULTIST);
	g.p[1].sq = X_S;
	give_card(&g, 0, CK_SENT);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_SENT);
	assert_true(is_choice(&g, CA_TARGET));
	pick(&g, CO_SEAT, 1);
	assert_true(is_choice(&g, CA_FIGURE));
	assert_int_equal(args_of(&g, CO_SQUARE, figs), 2);
	assert_int_equal(figs[0], CH_N);
	assert_int_equal(figs[1], t03c);
	assert_int_equal(opt(&g, CO_STOP, ANY), -1);
	pick(&g, CO_SQUARE, t03c);
	assert_int_equal(g.square[X_S], CS_BYAKHEE | CS_CULTIST);
	assert_int_equal(g.square[t03c], 0);
	assert_int_equal(seen(CV_FIGURE, CS_BYAKHEE, t03c, X_S), 1);
	assert_int_equal(seen(CV_FIGURE, CS_CULTIST, t03c, X_S), 1);
	assert_true(g.square[site_sq] & CS_BYAKHEE);
	assert_int_equal(g.p[0].played, 1);
	check(&g);

	/* B43: the target's square holds a byakhee: the nearest free square */
	fresh(&g, 2);
	lay(&g, T03, 2, 0);
	t03c = sq_at(&g, 7, 1);
	put(&g, t03c, CS_BYAKHEE);
	put(&g, X_C, CS_BYAKHEE);
	put(&g, CH_N, CS_BYAKHEE);
	g.p[1].sq = X_C;
	give_card(&g, 0, CK_SENT);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_SENT);
	/* B49: the byakhee already there is no choice */
	assert_int_equal(args_of(&g, CO_SQUARE, figs), 2);
	assert_int_equal(figs[0], CH_N);
	assert_int_equal(figs[1], t03c);
	pick(&g, CO_SQUARE, t03c);
	assert_true(g.square[X_N] & CS_BYAKHEE); /* distance 1, first in reading order */
	assert_int_equal(g.square[X_C], CS_BYAKHEE);
	check(&g);

	/* B43 for the rider: a cultist on the target's square */
	fresh(&g, 2);
	lay(&g, T03, 2, 0);
	t03c = sq_at(&g, 7, 1);
	put(&g, t03c, CS_BYAKHEE | CS_CULTIST);
	put(&g, X_C, CS_CULTIST);
	g.p[1].sq = X_C;
	give_card(&g, 0, CK_SENT);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_SENT);
	assert_int_equal(g.square[X_N], CS_BYAKHEE | CS_CULTIST);
	assert_int_equal(g.square[X_C], CS_CULTIST);
	check(&g);
	/* without a rider the cultist's square takes it */
	fresh(&g, 2);
	lay(&g, T03, 2, 0);
	t03c = sq_at(&g, 7, 1);
	put(&g, t03c, CS_BYAKHEE);
	put(&g, X_C, CS_CULTIST);
	g.p[1].sq = X_C;
	give_card(&g, 0, CK_SENT);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_SENT);
	assert_int_equal(g.square[X_C], CS_CULTIST | CS_BYAKHEE);
	check(&g);

	/* B49: a byakhee already on the target's square is no choice */
	fresh(&g, 2);
	lay(&g, T03, 2, 0);
	t03c = sq_at(&g, 7, 1);
	put(&g, X_C, CS_BYAKHEE);
	put(&g, t03c, CS_BYAKHEE);
	g.p[1].sq = X_C;
	give_card(&g, 0, CK_SENT);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_SENT);
	/* the only byakhee that can go is taken without asking */
	assert_int_equal(seen(CV_FIGURE, CS_BYAKHEE, t03c, X_N), 1);
	check(&g);
	/* and with no other byakhee the card does nothing: not offered */
	fresh(&g, 2);
	put(&g, X_C, CS_BYAKHEE);
	g.p[1].sq = X_C;
	give_card(&g, 0, CK_SENT);
	begin(&g, 0);
	assert_false(is_choice(&g, CA_PLAY));
	check(&g);
	/* a target is offered only if some byakhee can come to it */
	fresh(&g, 3);
	put(&g, X_C, CS_BYAKHEE);
	g.p[1].sq = X_C;
	g.p[2].sq = CH_E;
	give_card(&g, 0, CK_SENT);
	begin(&g, 0);
	pick(&g, CO_CARD, CK_SENT);
	assert_int_equal(seen(CV_FIGURE, CS_BYAKHEE, X_C, CH_E), 1);
	check(&g);

	/* B49: only byakhee on sites */
	fresh(&g, 2);
	lay(&g, T26, 0, -1);
	put(&g, sq_at(&g, 1, -2), CS_BYAKHEE);
	give_card(&g, 0, CK_SENT);
	begin(&g, 0);
	assert_false(is_choice(&g, CA_PLAY));
	check(&g);
}

/* ---- counting, discards and piles ---- */

/* §12.1, B18: every counted card spends the round's card; item uses and
 * Automatic cards do not. */
static void test_one_counted_card_per_round(void **state)
{
	static const int counted[] = {
		CK_KNIFE,   CK_HARPOON, CK_CHOPPER,   CK_COACHGUN, CK_SWORDCANE, CK_LAUDANUM,
		CK_SATCHEL, CK_CANDLE,  CK_ELDERSIGN, CK_ROADSTER, CK_BELLS,     CK_SECONDWIND,
		CK_NERVES,  CK_DEADEYE, CK_STASH,     CK_HYMN,     CK_SURVEYOR,  CK_BANISH,
		CK_EYE,     CK_SCATTER, CK_BRAWL,     CK_YELLOW,   CK_FINGERS,   CK_SENT,
	};
	struct ctgame g;
	(void)state;
	for (size_t i = 0; i < sizeof counted / sizeof *counted; i++)
		if (tour_after(CO_CARD, counted[i]) != 0)
			fail_msg("%s does not count", ctgame_card(counted[i])->id);
	/* a card played in another player's window counts for that seat */
	fresh(&g, 3);
	give_card(&g, 1, CK_STASH);
	give_card(&g, 1, CK_HYMN);
	set_sanity(&g, 2, 3, 5);
	begin(&g, 0);
	to_choice(&g, CA_PLAY, CM_RW);
	assert_int_equal(chooser(&g), 1);
	pick(&g, CO_CARD, CK_STASH);
	assert_int_equal(g.p[1].played, 1);
	finish(&g);
	/* seat 1's own turn starts its next round */
	assert_int_equal(g.seat, 1);
	assert_int_equal(g.p[1].played, 0);
	check(&g);

	/* seat 2 plays in seat 0's window: in seat 1's window it may not play
	 * again, its round runs until its own turn */
	fresh(&g, 3);
	give_card(&g, 2, CK_STASH);
	give_card(&g, 2, CK_STASH);
	begin(&g, 0);
	to_choice(&g, CA_PLAY, CM_RW);
	assert_int_equal(chooser(&g), 2);
	pick(&g, CO_CARD, CK_STASH);
	finish(&g);
	assert_int_equal(g.seat, 1);
	to_die(&g, CD_MOVE);
	roll(&g, CD_MOVE, 1);
	assert_false(is_play(&g, CM_RW));
	finish(&g);
	assert_int_equal(g.seat, 2);
	assert_int_equal(g.p[2].played, 0);
	assert_true(is_play(&g, CM_PP1));
	assert_true(opt(&g, CO_CARD, CK_STASH) >= 0);
	check(&g);
}

/* Step 11 (B16, B47, BP10). */
static void test_step11_discards(void **state)
{
	struct ctgame g;
	struct game_step st;
	int omen, knife;
	(void)state;
	/* hand ≤ 3: stop or one discard; the baseline drops the Automatic */
	fresh(&g, 2);
	give_card(&g, 0, CK_KNIFE);
	give_card(&g, 0, CK_STASH);
	give_card(&g, 0, CK_SENT);
	g.p[1].sq = X_C;
	begin(&g, 0);
	to_choice(&g, CA_DISCARD, 0);
	assert_true(opt(&g, CO_STOP, ANY) >= 0);
	assert_int_equal(options(&g), 4);
	ctgame_step(&g, &st);
	assert_int_equal(ctgame_policy_baseline(&g, &st, NULL), opt(&g, CO_STOP, ANY));
	pick(&g, CO_CARD, CK_STASH);
	/* B16: the discard ends the turn */
	assert_int_equal(g.seat, 1);
	assert_int_equal(g.p[0].hand, 2);
	assert_int_equal(seen(CV_TURN, 1, ANY, ANY), 1);
	check(&g);

	/* B47: an unwanted Automatic drawn in step 5 is discarded in step 11,
	 * by the baseline too */
	fresh(&g, 2);
	give_card(&g, 0, CK_KNIFE);
	give_card(&g, 0, CK_STASH);
	g.p[1].sq = X_C;
	begin(&g, 0);
	/* draw the Bad Omen in step 5 */
	to_choice(&g, CA_PLAY, CM_PP2);
	pick(&g, CO_PASS, ANY);
	omen = deck_card(&g, CK_OMEN);
	{
		int k = 0;
		for (int c = 0; c < omen; c++)
			k += g.card_at[c] == CW_DECK;
		apply(&g, k);
	}
	assert_int_equal(g.card_at[omen], CW_HAND + 0);
	to_choice(&g, CA_DISCARD, 0);
	ctgame_step(&g, &st);
	assert_int_equal(ctgame_policy_baseline(&g, &st, NULL), opt(&g, CO_CARD, CK_OMEN));
	pick(&g, CO_CARD, CK_OMEN);
	assert_int_equal(g.card_at[omen], CW_DISCARD);
	assert_int_equal(g.seat, 1);
	check(&g);

	/* above 3: discard until 3, no stop; Automatics first (highest
	 * severity), then the highest card id */
	fresh(&g, 2);
	checking = 0; /* the hand is above 3 until the discards (§16.5) */
	knife = give_card(&g, 0, CK_KNIFE);
	give_card(&g, 0, CK_STASH);
	give_card(&g, 0, CK_SENT);
	give_card(&g, 0, CK_HYMN);
	give_card(&g, 0, CK_WHISPERS);
	omen = give_card(&g, 0, CK_OMEN);
	g.p[1].sq = X_C;
	begin(&g, 0);
	pick(&g, CO_CARD, CK_WHISPERS); /* step 1 */
	to_choice(&g, CA_DISCARD, 0);
	assert_int_equal(g.p[0].hand, 5);
	assert_int_equal(opt(&g, CO_STOP, ANY), -1);
	ctgame_step(&g, &st);
	assert_int_equal(ctgame_policy_baseline(&g, &st, NULL), opt(&g, CO_CARD, CK_OMEN));
	apply(&g, ctgame_policy_baseline(&g, &st, NULL));
	assert_int_equal(g.card_at[omen], CW_DISCARD);
	assert_true(is_choice(&g, CA_DISCARD));
	assert_int_equal(opt(&g, CO_STOP, ANY), -1);
	ctgame_step(&g, &st);
	assert_int_equal(ctgame_policy_baseline(&g, &st, NULL), opt(&g, CO_CARD, CK_SENT));
	pick(&g, CO_CARD, CK_SENT);
	/* down to 3: the turn ends */
	assert_int_equal(g.p[0].hand, 3);
	assert_int_equal(g.card_at[knife], CW_HAND + 0);
	assert_int_equal(g.seat, 1);
	checking = 1;
	check(&g);
}

/* Step 5 with an empty deck: the discard pile is shuffled into a new one.
 * (B50, both piles empty, cannot arise within §16: at most 18 cards in
 * hands and 15 weapons and items in play.) */
static void test_event_deck_refill(void **state)
{
	struct ctgame g;
	struct game_step st;
	(void)state;
	fresh(&g, 2);
	for (int c = 0; c < CTGAME_CARDS; c++)
		g.card_at[c] = CW_DISCARD;
	g.card_at[0] = CW_HAND + 0;
	g.p[0].hand = 1;
	g.card_at[2] = CW_PLAY + 0; /* a harpoon */
	g.uses[2] = 3;
	begin(&g, 0);
	to_choice(&g, CA_PLAY, CM_PP2);
	pick(&g, CO_PASS, ANY);
	ctgame_step(&g, &st);
	assert_int_equal(st.node, GAME_NODE_CHANCE);
	assert_int_equal(st.kind, CTGAME_ROLL_CARD);
	assert_int_equal(st.count, 48);
	apply(&g, 0); /* card 1, the lowest in the new deck */
	assert_int_equal(g.card_at[1], CW_HAND + 0);
	apply(&g, 46); /* card 49 */
	assert_int_equal(g.card_at[49], CW_HAND + 0);
	assert_int_equal(g.p[0].hand, 3);
	for (int c = 3; c < 49; c++)
		assert_int_equal(g.card_at[c], CW_DECK);
	finish(&g);
	check(&g);

	/* B50, outside §16: another hand holds every other card, so both piles
	 * are empty and nothing is drawn */
	fresh(&g, 2);
	checking = 0;
	for (int c = 0; c < CTGAME_CARDS; c++)
		g.card_at[c] = CW_HAND + 1;
	g.card_at[0] = CW_HAND + 0;
	g.p[0].hand = 1;
	g.p[1].hand = CTGAME_CARDS - 1;
	begin(&g, 0);
	to_choice(&g, CA_PLAY, CM_PP2);
	pick(&g, CO_PASS, ANY);
	assert_false(relic_pending(&g));
	assert_true(is_die(&g, CD_MOVE));
	assert_int_equal(g.p[0].hand, 1);
	assert_int_equal(seen(CV_DEAL, ANY, ANY, ANY), 0);
	for (int c = 1; c < CTGAME_CARDS; c++)
		g.card_at[c] = CW_DISCARD;
	g.p[1].hand = 0;
	checking = 1;
	check(&g);
}

/* B52 for kills: an empty relic deck is refilled from the discard; with
 * both empty the draw is lost. */
static void test_relic_deck_refill(void **state)
{
	struct ctgame g;
	struct game_step st;
	(void)state;
	fresh(&g, 2);
	for (int r = 0; r < CTGAME_RELICS; r++)
		g.relic_at[r] = (uint8_t)(r == 40 ? CW_DISCARD : CW_HAND + 1);
	for (int t = 0; t < CTGAME_TYPES; t++)
		g.p[1].relics[t] = (uint8_t)(t == CT_IDOL ? 15 : 16);
	put(&g, CH_IN, CS_BYAKHEE);
	begin(&g, 0);
	to_die(&g, CD_COMBAT);
	roll(&g, CD_COMBAT, 6);
	ctgame_step(&g, &st);
	assert_int_equal(st.kind, CTGAME_ROLL_RELIC);
	assert_int_equal(st.count, 1);
	apply(&g, 0);
	assert_int_equal(g.relic_at[40], CW_HAND + 0);
	/* the second relic of the byakhee is lost */
	assert_false(relic_pending(&g));
	assert_int_equal(relics_of(&g, 0), 1);
	finish(&g);
	check(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_card_table),
		cmocka_unit_test(test_relic_variants),
		cmocka_unit_test(test_tour_reaches_every_moment),
		cmocka_unit_test(test_e01_trench_knife),
		cmocka_unit_test(test_e02_whalers_harpoon),
		cmocka_unit_test(test_e03_gangland_chopper),
		cmocka_unit_test(test_e04_coach_gun),
		cmocka_unit_test(test_e05_silvered_sword_cane),
		cmocka_unit_test(test_defeat_discards_weapons_keeps_items),
		cmocka_unit_test(test_e06_laudanum_flask),
		cmocka_unit_test(test_e07_surgeons_satchel),
		cmocka_unit_test(test_e08_blessed_candle),
		cmocka_unit_test(test_e09_elder_sign),
		cmocka_unit_test(test_e10_borrowed_roadster),
		cmocka_unit_test(test_e11_harbour_fog),
		cmocka_unit_test(test_e12_sanctuary_bells),
		cmocka_unit_test(test_e13_second_wind),
		cmocka_unit_test(test_e14_steady_nerves),
		cmocka_unit_test(test_e15_deadeye),
		cmocka_unit_test(test_e16_cartridge_stash),
		cmocka_unit_test(test_e17_hymn_at_dawn),
		cmocka_unit_test(test_e18_surveyors_notes),
		cmocka_unit_test(test_e19_banishing_rite),
		cmocka_unit_test(test_e20_antiquarians_eye),
		cmocka_unit_test(test_e21_scatter_the_faithful),
		cmocka_unit_test(test_e22_whispers_in_the_walls),
		cmocka_unit_test(test_e23_knock_at_the_door),
		cmocka_unit_test(test_e24_wings_overhead),
		cmocka_unit_test(test_e25_twisted_ankle),
		cmocka_unit_test(test_e26_jammed_action),
		cmocka_unit_test(test_e27_wet_powder),
		cmocka_unit_test(test_e28_bad_omen),
		cmocka_unit_test(test_automatic_one_per_turn),
		cmocka_unit_test(test_e29_back_alley_brawl),
		cmocka_unit_test(test_e30_call_of_the_yellow_sign),
		cmocka_unit_test(test_e31_light_fingers),
		cmocka_unit_test(test_e32_sent_your_way),
		cmocka_unit_test(test_one_counted_card_per_round),
		cmocka_unit_test(test_step11_discards),
		cmocka_unit_test(test_event_deck_refill),
		cmocka_unit_test(test_relic_deck_refill),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
