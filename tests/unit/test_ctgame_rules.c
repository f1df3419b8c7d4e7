/* The rulings of shared/rules/cthulhu-boardgame.md one by one (B1-B54, the
 * defeat and elimination of §9, the sites of §11, the scoring of §14, the
 * round cap C19), then the baseline policy's defaults (BP1-BP10) and the
 * hunt policy (C13). Each test builds a small position from a set-up game,
 * drives the engine value by value (dice, draws, option indexes) and checks
 * what really happened: the state it leaves and the events it emits. Every
 * transition is checked against the invariants of §16. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/ctgame.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define T(n)     ((n)-1) /* tile T01..T30 */
#define CHURCH   CTGAME_CHURCH_SQ
#define ANY      (-99999) /* wildcard of the event and option searches */

/* ---- messages ---- */

static const char *row = ""; /* the case being run, for failure messages */

#define EXPECT(c)                                                                                  \
	do {                                                                                       \
		if (!(c))                                                                          \
			fail_msg("%s: line %d: %s", row, __LINE__, #c);                            \
	} while (0)

#define EXPECT_EQ(a, b)                                                                            \
	do {                                                                                       \
		long a_ = (long)(a), b_ = (long)(b);                                               \
		if (a_ != b_)                                                                      \
			fail_msg("%s: line %d: %s is %ld, expected %ld", row, __LINE__, #a, a_,    \
			         b_);                                                              \
	} while (0)

/* ---- the event log and the invariants ---- */

static struct game_event evlog[1 << 15];
static int nlog;
static int plays_seen[CTGAME_MAX]; /* play points the driver passed, per seat */

static void check(const struct ctgame *g)
{
	char why[256];
	int bad = ctgame_check(g, why, sizeof why);

	if (bad)
		fail_msg("%s: invariant %d broken: %s", row, bad, why);
}

static void record(const struct game_events *ev)
{
	for (int i = 0; i < ev->n; i++) {
		if (nlog >= (int)COUNT(evlog))
			fail_msg("%s: the event log is full", row);
		evlog[nlog++] = ev->ev[i];
	}
}

static int ev_match(const struct game_event *e, int kind, int seat, int target, int value)
{
	return e->kind == kind && (seat == ANY || e->seat == seat) &&
	       (target == ANY || e->target == target) && (value == ANY || e->value == value);
}

/* The index of the first event from `from` on that matches, or -1. */
static int find_ev(int from, int kind, int seat, int target, int value)
{
	for (int i = from; i < nlog; i++)
		if (ev_match(&evlog[i], kind, seat, target, value))
			return i;
	return -1;
}

static int count_ev(int from, int kind, int seat, int target, int value)
{
	int n = 0;

	for (int i = from; i < nlog; i++)
		n += ev_match(&evlog[i], kind, seat, target, value);
	return n;
}

static void apply(struct ctgame *g, int v);

/* ---- nodes ---- */

static void describe(const struct ctgame *g, char *buf, size_t cap)
{
	struct game_step st;
	struct ctgame_option o[CTGAME_OPTIONS];
	int n, len;

	ctgame_step(g, &st);
	if (st.node == GAME_NODE_OVER) {
		snprintf(buf, cap, "over (end %d)", g->end);
		return;
	}
	if (st.node == GAME_NODE_CHANCE) {
		snprintf(buf, cap, "chance %d (die for %d) of seat %d, %d values", st.kind,
		         g->die_for, st.seat, st.count);
		return;
	}
	n = ctgame_options(g, o);
	len = snprintf(buf, cap, "choice %d of seat %d (moment %d):", st.kind, st.seat,
	               ctgame_moment(g));
	for (int i = 0; i < n && i < 24 && len > 0 && (size_t)len < cap; i++)
		len += snprintf(buf + len, cap - (size_t)len, " %d/%d", o[i].what, o[i].arg);
}

static int is_choice(const struct ctgame *g, int ask)
{
	struct game_step st;

	ctgame_step(g, &st);
	return st.node == GAME_NODE_CHOICE && st.kind == ask;
}

static int is_die(const struct ctgame *g, int purpose)
{
	struct game_step st;

	ctgame_step(g, &st);
	return st.node == GAME_NODE_CHANCE && st.kind == CTGAME_ROLL_DIE && g->die_for == purpose;
}

static int is_over(const struct ctgame *g)
{
	struct game_step st;

	ctgame_step(g, &st);
	return st.node == GAME_NODE_OVER;
}

/* The index of the option (what, arg) of the pending choice, or -1. */
static int opt_find(const struct ctgame *g, int what, int arg)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	int n = ctgame_options(g, o);

	for (int i = 0; i < n; i++)
		if (o[i].what == what && (arg == ANY || o[i].arg == arg))
			return i;
	return -1;
}

static int opt_count(const struct ctgame *g, int what)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	int n = ctgame_options(g, o), k = 0;

	for (int i = 0; i < n; i++)
		k += what == ANY || o[i].what == what;
	return k;
}

static void expect_choice(const struct ctgame *g, int ask)
{
	char buf[512];

	if (!is_choice(g, ask)) {
		describe(g, buf, sizeof buf);
		fail_msg("%s: expected choice %d, at %s", row, ask, buf);
	}
}

static void expect_die(const struct ctgame *g, int purpose)
{
	char buf[512];

	if (!is_die(g, purpose)) {
		describe(g, buf, sizeof buf);
		fail_msg("%s: expected a die for %d, at %s", row, purpose, buf);
	}
}

/* Applies option (what, arg) at the pending choice `ask`. */
static void pick(struct ctgame *g, int ask, int what, int arg)
{
	char buf[512];
	int i;

	expect_choice(g, ask);
	i = opt_find(g, what, arg);
	if (i < 0) {
		describe(g, buf, sizeof buf);
		fail_msg("%s: no option %d/%d at %s", row, what, arg, buf);
	}
	apply(g, i);
}

/* The die for `purpose` shows `face` (1..6). */
static void roll(struct ctgame *g, int purpose, int face)
{
	expect_die(g, purpose);
	apply(g, face - 1);
}

/* The chance value that draws `id` out of a pile: its index among the
 * pile's ids in ascending order. */
static int pile_index(const uint8_t *at, int id)
{
	int k = 0;

	if (at[id] != CW_DECK)
		fail_msg("%s: %d is not in the deck", row, id);
	for (int i = 0; i < id; i++)
		k += at[i] == CW_DECK;
	return k;
}

static void draw_relic(struct ctgame *g, int relic)
{
	struct game_step st;

	ctgame_step(g, &st);
	EXPECT(st.node == GAME_NODE_CHANCE && st.kind == CTGAME_ROLL_RELIC);
	apply(g, pile_index(g->relic_at, relic));
}

static void draw_card(struct ctgame *g, int card)
{
	struct game_step st;

	ctgame_step(g, &st);
	EXPECT(st.node == GAME_NODE_CHANCE && st.kind == CTGAME_ROLL_CARD);
	apply(g, pile_index(g->card_at, card));
}

static int in_tile_deck(const struct ctgame *g, int t)
{
	return g->map.where[t] == CTMAP_UNPLACED && !(g->tile_discard >> t & 1);
}

static int tile_deck(const struct ctgame *g)
{
	int n = 0;

	for (int t = 0; t < CTMAP_TILES; t++)
		n += in_tile_deck(g, t);
	return n;
}

static void draw_tile(struct ctgame *g, int tile)
{
	struct game_step st;
	int k = 0;

	ctgame_step(g, &st);
	EXPECT(st.node == GAME_NODE_CHANCE && st.kind == CTGAME_ROLL_TILE);
	EXPECT(in_tile_deck(g, tile));
	for (int t = 0; t < tile; t++)
		k += in_tile_deck(g, t);
	apply(g, k);
}

static void apply(struct ctgame *g, int v)
{
	struct game_events ev;
	int rc;

	ev.n = 0;
	rc = ctgame_apply(g, v, &ev);
	if (rc != GAME_OK)
		fail_msg("%s: value %d refused (%d)", row, v, rc);
	record(&ev);
	check(g);
}

static void begin(struct ctgame *g, int seat)
{
	struct game_events ev;

	ev.n = 0;
	check(g);
	EXPECT_EQ(ctgame_begin_turn(g, seat, &ev), GAME_OK);
	record(&ev);
	check(g);
}

/* ---- the driver: default values until a stop condition ---- */

typedef int (*stop_fn)(const struct ctgame *g, int arg);

static int stop_ask(const struct ctgame *g, int ask)
{
	return is_choice(g, ask);
}

static int stop_die(const struct ctgame *g, int purpose)
{
	return is_die(g, purpose);
}

static int stop_moment(const struct ctgame *g, int moment)
{
	return is_choice(g, CA_PLAY) && ctgame_moment(g) == moment;
}

static int turn_mark;

static int stop_turn(const struct ctgame *g, int seat)
{
	(void)g;
	return find_ev(turn_mark, CV_TURN, seat, ANY, ANY) >= 0;
}

static int default_face(int purpose)
{
	switch (purpose) {
	case CD_COMBAT:
	case CD_SANITY:
	case CD_BRAWL_A:
		return 6;
	default:
		return 1;
	}
}

/* Cards drawn by default: Automatic cards, which do nothing before their
 * holder's next step 1. */
static int quiet_card(const struct ctgame *g)
{
	static const int kinds[] = { CK_JAMMED, CK_ANKLE,   CK_POWDER,    CK_WHISPERS,
		                     CK_KNOCK,  CK_WINGS,   CK_OMEN,      CK_FOG,
		                     CK_NERVES, CK_DEADEYE, CK_SECONDWIND };

	for (size_t i = 0; i < COUNT(kinds); i++)
		for (int c = 0; c < CTGAME_CARDS; c++)
			if (ctgame_card_kind(c) == (int)kinds[i] && g->card_at[c] == CW_DECK)
				return pile_index(g->card_at, c);
	return 0;
}

static int default_value(struct ctgame *g, const struct game_step *st)
{
	int i;

	if (st->node == GAME_NODE_CHANCE) {
		switch (st->kind) {
		case CTGAME_ROLL_DIE:
			return default_face(g->die_for) - 1;
		case CTGAME_ROLL_CARD:
			return quiet_card(g);
		default:
			return 0;
		}
	}
	switch (st->kind) {
	case CA_PLAY:
		plays_seen[st->seat]++;
		return opt_find(g, CO_PASS, ANY);
	case CA_MOVE:
		return opt_find(g, CO_STOP, ANY);
	case CA_DISCARD:
		if ((i = opt_find(g, CO_STOP, ANY)) >= 0)
			return i;
		break;
	default:
		break;
	}
	return ctgame_policy_baseline(g, st, NULL);
}

/* Applies default values until `stop` holds (or the game is over, which
 * fails unless `over_ok`). */
static void drive_ex(struct ctgame *g, stop_fn stop, int arg, int over_ok)
{
	turn_mark = nlog;
	for (int i = 0; i < 20000; i++) {
		struct game_step st;

		if (stop(g, arg))
			return;
		ctgame_step(g, &st);
		if (st.node == GAME_NODE_OVER) {
			if (over_ok)
				return;
			fail_msg("%s: the game ended while driving", row);
		}
		apply(g, default_value(g, &st));
	}
	fail_msg("%s: the driver did not reach its stop", row);
}

static void drive(struct ctgame *g, stop_fn stop, int arg)
{
	drive_ex(g, stop, arg, 0);
}

static int never(const struct ctgame *g, int arg)
{
	(void)g;
	(void)arg;
	return 0;
}

static void drive_to_end(struct ctgame *g)
{
	drive_ex(g, never, 0, 1);
	EXPECT(is_over(g));
}

/* ---- positions ---- */

static void fresh(struct ctgame *g, int players)
{
	struct game_setup s = { .players = players };

	assert_int_equal(ctgame_init(g, &s), GAME_OK);
	nlog = 0;
	memset(plays_seen, 0, sizeof plays_seen);
}

/* The square at global (gx, gy); it must exist. */
static int S(const struct ctgame *g, int gx, int gy)
{
	int sq = ctmap_find(&g->map, gx, gy);

	if (sq < 0)
		fail_msg("%s: no square %d,%d", row, gx, gy);
	return sq;
}

static void lay(struct ctgame *g, int tile, int tx, int ty, int rot)
{
	EXPECT_EQ(g->map.where[tile], CTMAP_UNPLACED);
	ctmap_place(&g->map, tile, (struct ctmap_option){ (int8_t)tx, (int8_t)ty, (uint8_t)rot },
	            CTMAP_STRICT);
}

/* A site on the map, face down (B10), activated as the next one. */
static void lay_activated(struct ctgame *g, int tile, int tx, int ty, int rot)
{
	lay(g, tile, tx, ty, rot);
	ctmap_activate(&g->map, tile);
	g->activated++;
	g->act_order[tile - CTMAP_SITE_FIRST] = g->activated;
}

/* An activated site that left the map by B9 (it still counts). */
static void gone_activated(struct ctgame *g, int tile)
{
	g->map.where[tile] = CTMAP_REMOVED;
	g->activated++;
	g->act_order[tile - CTMAP_SITE_FIRST] = g->activated;
}

/* A site sanctified earlier by `seat`. */
static void sanctified_by(struct ctgame *g, int tile, int seat)
{
	g->map.where[tile] = CTMAP_SANCTIFIED;
	g->sanctified++;
	g->p[seat].sites |= (uint8_t)(1 << (tile - CTMAP_SITE_FIRST));
}

static uint16_t *supply_of(struct ctgame *g, int bit)
{
	switch (bit) {
	case CS_CULTIST:
		return &g->cultists;
	case CS_BYAKHEE:
		return &g->byakhee;
	case CS_HEART:
		return &g->hearts;
	default:
		return &g->bullets;
	}
}

/* Puts figures or tokens (CS_* bits) from the supply on a square. */
static void put(struct ctgame *g, int sq, int bits)
{
	for (int bit = 1; bit <= CS_BULLET; bit <<= 1) {
		uint16_t *supply = supply_of(g, bit);

		if (!(bits & bit))
			continue;
		EXPECT(!(g->square[sq] & bit));
		EXPECT(*supply > 0);
		(*supply)--;
		g->square[sq] |= (uint8_t)bit;
	}
}

/* Puts them back in the supply. */
static void take(struct ctgame *g, int sq, int bits)
{
	for (int bit = 1; bit <= CS_BULLET; bit <<= 1)
		if (bits & bit & g->square[sq]) {
			(*supply_of(g, bit))++;
			g->square[sq] &= (uint8_t)~bit;
		}
}

/* Moves a card of `kind` from the event deck to `where`; returns its id. */
static int card_to(struct ctgame *g, int kind, int where)
{
	for (int c = 0; c < CTGAME_CARDS; c++)
		if (ctgame_card_kind(c) == kind && g->card_at[c] == CW_DECK) {
			g->card_at[c] = (uint8_t)where;
			return c;
		}
	fail_msg("%s: no card of kind %d left in the deck", row, kind);
	return -1;
}

static int give(struct ctgame *g, int seat, int kind)
{
	int c = card_to(g, kind, CW_HAND + seat);

	g->p[seat].hand++;
	return c;
}

static int arm(struct ctgame *g, int seat, int kind)
{
	int c = card_to(g, kind, CW_PLAY + seat);

	g->uses[c] = ctgame_card(kind)->uses;
	return c;
}

/* `seat` takes n relics of `type` from the relic deck. */
static void hold(struct ctgame *g, int seat, int type, int n)
{
	for (int r = type * 16; r < type * 16 + 16 && n > 0; r++)
		if (g->relic_at[r] == CW_DECK) {
			g->relic_at[r] = (uint8_t)(CW_HAND + seat);
			g->p[seat].relics[type]++;
			n--;
		}
	EXPECT_EQ(n, 0);
}

static void hold_all_types(struct ctgame *g, int seat)
{
	for (int t = 0; t < CTGAME_TYPES; t++)
		hold(g, seat, t, 1);
}

static void set_hearts(struct ctgame *g, int seat, int h)
{
	g->hearts = (uint16_t)(g->hearts + g->p[seat].hearts - h);
	g->p[seat].hearts = (uint8_t)h;
}

static void set_bullets(struct ctgame *g, int seat, int b)
{
	g->bullets = (uint16_t)(g->bullets + g->p[seat].bullets - b);
	g->p[seat].bullets = (uint8_t)b;
}

static void set_sanity(struct ctgame *g, int seat, int s, int start)
{
	g->p[seat].sanity = (uint8_t)s;
	g->p[seat].start = (uint8_t)start;
}

/* A seat eliminated before the position starts. */
static void knock_out(struct ctgame *g, int seat)
{
	set_hearts(g, seat, 0);
	set_bullets(g, seat, 0);
	g->p[seat].sanity = 0;
	g->p[seat].sq = -1;
	g->p[seat].out = 1;
}

/* The Church and T02 closed into a ring by four corners; with both sites
 * (`flags` RING_T26, RING_T27) every open street is used, so the map-tile
 * step is skipped (§3.6) while a Ritual Site is unresolved. T26 lies west
 * of the Church (cell (-1,0), entrance -1,1 facing 0,1), T27 east of T02
 * (cell (2,0), entrance 6,1 facing 5,1); each holds a byakhee in a far
 * corner (-3,0 and 8,0) that never moves (B41), unless RING_EMPTY. The
 * squares (gx,gy) of the ring:
 *
 *          1,-2 2,-2  3,-2 4,-2            T12 (0,-1)  T13 (1,-1)
 *          1,-1            4,-1
 *   T26    1,0             4,0    T27
 *  -1,1 0,1 1,1 2,1   3,1 4,1 5,1 6,1      Church (0,0) T02 (1,0)
 *          1,2             4,2
 *          1,3             4,3
 *          1,4 2,4   3,4  4,4 5,4          T14 (0,1)   T20 (1,1), 5,4 5,5 inside
 */
enum { RING_T26 = 1, RING_T27 = 2, RING_EMPTY = 4 };

static void ring(struct ctgame *g, int players, int flags)
{
	fresh(g, players);
	lay(g, T(12), 0, -1, 1);
	lay(g, T(13), 1, -1, 2);
	lay(g, T(14), 0, 1, 0);
	lay(g, T(20), 1, 1, 0);
	if (flags & RING_T26) {
		lay(g, T(26), -1, 0, 3);
		if (!(flags & RING_EMPTY))
			put(g, S(g, -3, 0), CS_BYAKHEE);
	}
	if (flags & RING_T27) {
		lay(g, T(27), 2, 0, 1);
		if (!(flags & RING_EMPTY))
			put(g, S(g, 8, 0), CS_BYAKHEE);
	}
}

static void arena(struct ctgame *g, int players)
{
	ring(g, players, RING_T26 | RING_T27);
	EXPECT_EQ(ctmap_streets(&g->map, NULL), 0);
	check(g);
}

/* Every non-site tile but those of `keep` placed (strict options, a middle
 * one each time): a map with room for whole supplies. */
static void big_map(struct ctgame *g, int players, uint32_t keep)
{
	fresh(g, players);
	for (int pass = 0; pass < 4; pass++)
		for (int t = T(3); t < CTMAP_SITE_FIRST; t++) {
			struct ctmap_option o[CTMAP_OPTIONS_MAX];
			int n;

			if (g->map.where[t] != CTMAP_UNPLACED || (keep >> t & 1))
				continue;
			n = ctmap_options(&g->map, t, CTMAP_STRICT, o);
			if (n)
				ctmap_place(&g->map, t, o[n / 2], CTMAP_STRICT);
		}
	for (int t = T(3); t < CTMAP_SITE_FIRST; t++)
		EXPECT_EQ(g->map.where[t], (keep >> t & 1) ? CTMAP_UNPLACED : CTMAP_PLACED);
	check(g);
}

/* Puts `bit` on squares off the Church, T02 and the sites, in reading
 * order, until the supply holds `leave`. */
static void park(struct ctgame *g, int bit, int leave)
{
	int16_t all[CTMAP_SQUARES];
	int n = ctmap_squares(&g->map, all);
	uint16_t *supply = supply_of(g, bit);

	for (int i = 0; i<n && * supply> leave; i++) {
		int t = all[i] / 9;

		if (t <= T(2) || t >= CTMAP_SITE_FIRST || (g->square[all[i]] & bit))
			continue;
		put(g, all[i], bit);
	}
	EXPECT_EQ(*supply, leave);
}

/* ---- B11-B13: setup ---- */

/* B11: the dealer comes from the RNG (a chance node over the seats), the
 * first player is the seat after it, and the cards are dealt one at a time
 * from the first player. */
static void test_b11_dealer_and_first_player(void **unused)
{
	(void)unused;
	for (int n = CTGAME_MIN; n <= CTGAME_MAX; n++)
		for (int d = 0; d < n; d += n - 1) {
			struct ctgame g;
			struct game_step st;
			int first = (d + 1) % n;
			char name[64];

			snprintf(name, sizeof name, "%d players, dealer %d", n, d);
			row = name;
			fresh(&g, n);
			ctgame_step(&g, &st);
			EXPECT_EQ(st.node, GAME_NODE_CHANCE);
			EXPECT_EQ(st.kind, CTGAME_ROLL_DEALER);
			EXPECT_EQ(st.count, n);
			apply(&g, d);
			EXPECT(find_ev(0, CV_DEALER, d, first, ANY) >= 0);
			EXPECT_EQ(g.first, first);
			for (int i = 0; i < 3 * n; i++) {
				int at = nlog, k;

				ctgame_step(&g, &st);
				EXPECT_EQ(st.kind, CTGAME_ROLL_CARD);
				apply(&g, 0);
				k = find_ev(at, CV_DEAL, ANY, ANY, ANY);
				EXPECT(k >= 0);
				EXPECT_EQ(evlog[k].seat, (first + i) % n);
			}
			for (int s = 0; s < n; s++)
				EXPECT_EQ(g.p[s].hand, 3);
			EXPECT_EQ(g.round, 1);
			EXPECT_EQ(g.seat, first);
			EXPECT(find_ev(0, CV_TURN, first, 1, 1) >= 0);
		}
}

/* B12: the Church at (0,0) and T02 at (1,0), both at rotation 0 and both
 * empty; every other tile in the map deck. */
static void test_b12_church_and_t02_setup(void **unused)
{
	struct ctgame g;

	(void)unused;
	row = "B12";
	fresh(&g, 4);
	apply(&g, 2);
	drive(&g, stop_die, CD_MOVE); /* dealt, and the first turn under way */
	EXPECT_EQ(ctmap_at(&g.map, 0, 0), T(1));
	EXPECT_EQ(ctmap_at(&g.map, 1, 0), T(2));
	EXPECT_EQ(g.map.rot[T(1)], 0);
	EXPECT_EQ(g.map.rot[T(2)], 0);
	for (int l = 0; l < 18; l++)
		EXPECT_EQ(g.square[l], 0);
	EXPECT_EQ(g.map.where[T(1)], CTMAP_PLACED);
	EXPECT_EQ(g.map.where[T(2)], CTMAP_PLACED);
	/* the first turn's map-tile step drew from the other 28 */
	EXPECT_EQ(count_ev(0, CV_PLACE, ANY, ANY, ANY), 1);
	EXPECT_EQ(tile_deck(&g) + 1 + __builtin_popcount(g.tile_discard), 28);
	check(&g);
}

/* B13: every pawn starts on the Church interior 1,1. */
static void test_b13_pawns_start_in_church(void **unused)
{
	(void)unused;
	for (int n = CTGAME_MIN; n <= CTGAME_MAX; n++) {
		struct ctgame g;

		row = "B13";
		fresh(&g, n);
		EXPECT_EQ(ctmap_gx(&g.map, CHURCH), 1);
		EXPECT_EQ(ctmap_gy(&g.map, CHURCH), 1);
		EXPECT_EQ(ctmap_square_kind(&g.map, CHURCH), CTMAP_INTERIOR);
		for (int s = 0; s < CTGAME_MAX; s++)
			EXPECT_EQ(g.p[s].sq, s < n ? CHURCH : -1);
		check(&g);
	}
}

static int stop_chance(const struct ctgame *g, int kind)
{
	struct game_step st;

	ctgame_step(g, &st);
	return st.node == GAME_NODE_CHANCE && st.kind == kind;
}

static void draw_any_relic(struct ctgame *g)
{
	EXPECT(stop_chance(g, CTGAME_ROLL_RELIC));
	apply(g, 0);
}

/* The option arguments of the pending choice that are squares, as global
 * coordinates, compared with the list `want` ({gx, gy} pairs). */
static void expect_squares(const struct ctgame *g, const int (*want)[2], int n)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	int k = ctgame_options(g, o);
	char buf[512];

	describe(g, buf, sizeof buf);
	if (k != n)
		fail_msg("%s: %d options, expected %d: %s", row, k, n, buf);
	for (int i = 0; i < n; i++) {
		int sq = S(g, want[i][0], want[i][1]), found = 0;

		for (int j = 0; j < k; j++)
			found |= o[j].what == CO_SQUARE && o[j].arg == sq;
		if (!found)
			fail_msg("%s: no option for %d,%d: %s", row, want[i][0], want[i][1], buf);
	}
}

/* ---- B14-B17: the turn ---- */

/* B14: steps 3-4 fight what stands on the pawn's square then, figures
 * placed in step 1 included. */
static void test_b14_fights_after_step_one(void **unused)
{
	struct ctgame g;
	int card, arrive, fight;

	(void)unused;
	row = "B14: E24 puts a byakhee on the pawn in step 1, step 3 fights it";
	arena(&g, 2);
	give(&g, 0, CK_WINGS);
	begin(&g, 0);
	card = find_ev(0, CV_CARD, 0, ANY, ANY);
	arrive = find_ev(0, CV_ARRIVE, ANY, CHURCH, CS_BYAKHEE);
	fight = find_ev(0, CV_FIGHT, 0, CHURCH, CS_BYAKHEE);
	EXPECT(card >= 0 && arrive > card && fight > arrive);
	roll(&g, CD_SANITY, 6);
	roll(&g, CD_COMBAT, 6);
	EXPECT(find_ev(fight, CV_KILL, 0, CHURCH, CS_BYAKHEE) > fight);
	drive(&g, stop_die, CD_MOVE);
	EXPECT(!(g.square[CHURCH] & CS_BYAKHEE));

	row = "B14: E23 with every linked square taken puts a cultist on the pawn (B43), step 4 "
	      "fights it";
	arena(&g, 2);
	give(&g, 0, CK_KNOCK);
	put(&g, S(&g, 1, 0), CS_CULTIST);
	put(&g, S(&g, 0, 1), CS_CULTIST);
	put(&g, S(&g, 2, 1), CS_CULTIST);
	put(&g, S(&g, 1, 2), CS_CULTIST);
	begin(&g, 0);
	arrive = find_ev(0, CV_ARRIVE, ANY, CHURCH, CS_CULTIST);
	EXPECT(arrive >= 0);
	EXPECT(find_ev(arrive + 1, CV_ARRIVE, ANY, S(&g, 1, -1), CS_CULTIST) > arrive);
	EXPECT(find_ev(0, CV_FIGHT, 0, CHURCH, CS_CULTIST) > arrive);
	expect_die(&g, CD_COMBAT);
	roll(&g, CD_COMBAT, 6);
	drive(&g, stop_die, CD_MOVE);
	EXPECT(!(g.square[CHURCH] & CS_CULTIST));
}

/* B15: step 5 refills the hand to three, never beyond. */
static void test_b15_step5_refills_to_three(void **unused)
{
	static const struct {
		const char *name;
		int hand, draws;
	} rows[] = {
		{ "B15: three cards, no draw", 3, 0 },
		{ "B15: two cards, one draw", 2, 1 },
		{ "B15: no card, three draws", 0, 3 },
	};
	static const int kinds[3] = { CK_SECONDWIND, CK_DEADEYE, CK_FOG };

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;

		row = rows[r].name;
		arena(&g, 2);
		for (int i = 0; i < rows[r].hand; i++)
			give(&g, 0, kinds[i]);
		begin(&g, 0);
		drive(&g, stop_die, CD_MOVE);
		EXPECT_EQ(count_ev(0, CV_DEAL, 0, ANY, ANY), rows[r].draws);
		EXPECT_EQ(g.p[0].hand, 3);
	}
}

/* B16: the step-11 discard is the turn's last act. */
static void test_b16_discard_is_last_act(void **unused)
{
	struct ctgame g;
	int at, discard, turn;

	(void)unused;
	row = "B16";
	arena(&g, 2);
	give(&g, 0, CK_SECONDWIND);
	give(&g, 0, CK_DEADEYE);
	give(&g, 0, CK_FOG);
	begin(&g, 0);
	drive(&g, stop_ask, CA_DISCARD);
	EXPECT_EQ(opt_count(&g, ANY), 4); /* end the turn, or discard one of three */
	EXPECT(opt_find(&g, CO_STOP, ANY) >= 0);
	at = nlog;
	pick(&g, CA_DISCARD, CO_CARD, CK_FOG);
	discard = find_ev(at, CV_DISCARD, 0, ANY, ANY);
	turn = find_ev(at, CV_TURN, 1, ANY, ANY);
	EXPECT(discard >= 0);
	EXPECT_EQ(turn, discard + 1);
	EXPECT_EQ(count_ev(at, CV_DISCARD, 0, ANY, ANY), 1);
	EXPECT_EQ(g.seat, 1);
	EXPECT_EQ(g.p[0].hand, 2);
}

/* B17: a player eliminated in their own turn ends it at once: no step 8,
 * 9 or 10, and the next seat plays. */
static void test_b17_eliminated_turn_ends(void **unused)
{
	enum { WHISPERS, OMEN, FIGHT };
	static const struct {
		const char *name;
		int cause;
	} rows[] = {
		{ "B17: insanity at S = 1 (E22)", WHISPERS },
		{ "B17: a defeat at S = 1 (E28)", OMEN },
		{ "B17: a defeat at S = 1 in a step-4 fight", FIGHT },
	};

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;
		int elim;

		row = rows[r].name;
		arena(&g, 3);
		set_sanity(&g, 0, 1, 1);
		set_hearts(&g, 0, 1);
		set_bullets(&g, 0, 0);
		give(&g, 0, CK_FOG);
		put(&g, S(&g, 4, 1), CS_CULTIST); /* a cultist step 8 would move */
		if (rows[r].cause == WHISPERS)
			give(&g, 0, CK_WHISPERS);
		else if (rows[r].cause == OMEN)
			give(&g, 0, CK_OMEN);
		else
			put(&g, CHURCH, CS_CULTIST);
		begin(&g, 0);
		if (rows[r].cause == FIGHT)
			roll(&g, CD_COMBAT, 1); /* no bullets: the heart goes */
		elim = find_ev(0, CV_ELIMINATED, 0, ANY, ANY);
		EXPECT(elim >= 0);
		EXPECT(find_ev(elim, CV_TURN, 1, ANY, ANY) > elim);
		EXPECT_EQ(count_ev(0, CV_ROLL, ANY, CD_CULTISTS, ANY), 0);
		EXPECT_EQ(count_ev(0, CV_FIGURE, ANY, ANY, ANY), 0);
		EXPECT_EQ(g.seat, 1);
		EXPECT(g.p[0].out);
		EXPECT_EQ(g.p[0].sq, -1);
		EXPECT_EQ(g.p[0].hand, 0);
	}
}

/* ---- B18: playing cards out of turn and once a round ---- */

static void test_b18_one_card_per_round_and_reaction_window(void **unused)
{
	struct ctgame g;
	struct game_step st;
	int at;

	(void)unused;
	row = "B18: after a counted card nothing more is offered this round";
	arena(&g, 2);
	set_bullets(&g, 0, 2);
	set_sanity(&g, 0, 4, 5);
	give(&g, 0, CK_STASH);
	give(&g, 0, CK_HYMN);
	begin(&g, 0);
	EXPECT_EQ(ctgame_moment(&g), CM_PP1);
	EXPECT(opt_find(&g, CO_CARD, CK_HYMN) >= 0);
	pick(&g, CA_PLAY, CO_CARD, CK_STASH);
	EXPECT_EQ(g.p[0].bullets, 5);
	drive(&g, stop_ask, CA_DISCARD);
	EXPECT_EQ(plays_seen[0], 0); /* Hymn at Dawn stayed in hand at PP2-PP5 */
	EXPECT_EQ(ctgame_in_hand(&g, 0, CK_HYMN), 1);

	row = "B18: React and Any cards in another player's reaction window, not at one's own "
	      "play points";
	arena(&g, 2);
	give(&g, 0, CK_FOG);
	give(&g, 1, CK_FOG);
	give(&g, 1, CK_STASH);
	begin(&g, 0);
	drive(&g, stop_die, CD_MOVE);
	roll(&g, CD_MOVE, 4); /* 4 + 3 hearts */
	EXPECT_EQ(plays_seen[0], 0);
	expect_choice(&g, CA_PLAY);
	ctgame_step(&g, &st);
	EXPECT_EQ(st.seat, 1);
	EXPECT_EQ(ctgame_moment(&g), CM_RW);
	EXPECT_EQ(opt_count(&g, ANY), 3); /* pass, Fog, Stash */
	EXPECT(opt_find(&g, CO_CARD, CK_STASH) >= 0);
	at = nlog;
	pick(&g, CA_PLAY, CO_CARD, CK_FOG);
	EXPECT(find_ev(at, CV_CARD, 1, ANY, CM_RW) >= 0);
	EXPECT_EQ(g.total, 3);
	EXPECT_EQ(g.p[1].played, 1);
	expect_choice(&g, CA_MOVE); /* Fog is React only: nothing for seat 0 at PP3 */
	drive(&g, stop_turn, 1);
	/* seat 1's own turn starts a new round for it: the Stash is offered */
	EXPECT_EQ(g.p[1].played, 0);
	expect_choice(&g, CA_PLAY);
	EXPECT_EQ(ctgame_moment(&g), CM_PP1);
	EXPECT(opt_find(&g, CO_CARD, CK_STASH) >= 0);

	row = "B18: a player who played in their own turn has no reaction window before it comes "
	      "again";
	arena(&g, 2);
	give(&g, 1, CK_STASH);
	g.p[1].played = 1;
	begin(&g, 0);
	drive(&g, stop_die, CD_MOVE);
	roll(&g, CD_MOVE, 4);
	expect_choice(&g, CA_MOVE);
	EXPECT_EQ(plays_seen[1], 0);
}

/* ---- B19-B22: movement ---- */

/* B19: the movement total is the die plus the hearts held when it is rolled;
 * hearts lost or gained later do not change it. */
static void test_b19_movement_total_fixed(void **unused)
{
	struct ctgame g;
	int at;

	(void)unused;
	row = "B19";
	arena(&g, 2);
	put(&g, S(&g, 2, 1), CS_CULTIST);
	put(&g, S(&g, 3, 1), CS_HEART);
	begin(&g, 0);
	drive(&g, stop_die, CD_MOVE);
	at = nlog;
	roll(&g, CD_MOVE, 4);
	EXPECT(find_ev(at, CV_TOTAL_MOVE, 0, 4, 7) >= 0);
	EXPECT_EQ(g.total, 7);
	pick(&g, CA_MOVE, CO_DIR, CTMAP_E);
	roll(&g, CD_COMBAT, 1);
	pick(&g, CA_FAILED, CO_LOSE, ANY);
	EXPECT_EQ(g.p[0].hearts, 2);
	roll(&g, CD_COMBAT, 6);
	draw_any_relic(&g);
	expect_choice(&g, CA_MOVE);
	EXPECT_EQ(g.total, 7);
	EXPECT_EQ(g.left, 6);
	pick(&g, CA_MOVE, CO_DIR, CTMAP_E);
	EXPECT_EQ(g.p[0].hearts, 3); /* the heart token */
	EXPECT_EQ(g.total, 7);
	EXPECT_EQ(g.left, 5);
}

/* B20: a token is collected on entering a square without enemies, or on
 * killing the last enemy of the pawn's square; a sixth heart stays. */
static void test_b20_token_collection(void **unused)
{
	static const struct {
		const char *name;
		int here;   /* what the square holds */
		int own;    /* 1: the pawn's own square, fought in step 4; 0: entered east */
		int hearts; /* hearts before */
		int hearts_after, bullets_after, token_left;
	} rows[] = {
		{ "B20: a heart on a square without enemies", CS_HEART, 0, 3, 4, 3, 0 },
		{ "B20: a heart at five hearts stays", CS_HEART, 0, 5, 5, 3, CS_HEART },
		{ "B20: a bullet at five hearts", CS_BULLET, 0, 5, 5, 4, 0 },
		{ "B20: a bullet under a cultist, after the kill", CS_CULTIST | CS_BULLET, 0, 3, 3,
		  4, 0 },
		{ "B20: a heart under a byakhee and a cultist, after the last kill",
		  CS_BYAKHEE | CS_CULTIST | CS_HEART, 0, 3, 4, 3, 0 },
		{ "B20: the last enemy of the pawn's own square killed in step 4",
		  CS_CULTIST | CS_HEART, 1, 3, 4, 3, 0 },
	};

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;
		int sq, kills, last_kill = -1, token;

		row = rows[r].name;
		arena(&g, 2);
		set_hearts(&g, 0, rows[r].hearts);
		sq = rows[r].own ? CHURCH : S(&g, 2, 1);
		put(&g, sq, rows[r].here);
		begin(&g, 0);
		drive(&g, stop_die, CD_MOVE);
		if (!rows[r].own) {
			roll(&g, CD_MOVE, 1);
			pick(&g, CA_MOVE, CO_DIR, CTMAP_E);
			drive(&g, stop_ask, CA_MOVE);
		}
		EXPECT_EQ(g.p[0].hearts, rows[r].hearts_after);
		EXPECT_EQ(g.p[0].bullets, rows[r].bullets_after);
		EXPECT_EQ(g.square[sq] & (CS_HEART | CS_BULLET), rows[r].token_left);
		kills = count_ev(0, CV_KILL, 0, sq, ANY);
		for (int i = 0; i < nlog; i++)
			if (ev_match(&evlog[i], CV_KILL, 0, sq, ANY))
				last_kill = i;
		token = find_ev(0, CV_TOKEN, 0, sq, ANY);
		EXPECT_EQ(kills, __builtin_popcount(rows[r].here & (CS_CULTIST | CS_BYAKHEE)));
		EXPECT_EQ(token >= 0, !rows[r].token_left);
		if (kills)
			EXPECT(token > last_kill);
	}
}

/* B21: under the Elder Sign enemies neither stop the pawn nor fight it, a
 * byakhee's square costs a sanity check, tokens under enemies stay, and
 * steps 3-4 still fight. */
static void test_b21_elder_sign(void **unused)
{
	struct ctgame g;
	int at;

	(void)unused;
	row = "B21";
	arena(&g, 2);
	give(&g, 0, CK_ELDERSIGN);
	give(&g, 0, CK_NERVES);
	put(&g, CHURCH, CS_CULTIST);
	put(&g, S(&g, 2, 1), CS_CULTIST | CS_BULLET);
	put(&g, S(&g, 3, 1), CS_BYAKHEE | CS_HEART);
	begin(&g, 0);
	pick(&g, CA_PLAY, CO_CARD, CK_ELDERSIGN);
	EXPECT(find_ev(0, CV_FIGHT, 0, CHURCH, CS_CULTIST) >= 0); /* step 4 still fights */
	roll(&g, CD_COMBAT, 6);
	drive(&g, stop_die, CD_MOVE);
	roll(&g, CD_MOVE, 1);
	at = nlog;
	pick(&g, CA_MOVE, CO_DIR, CTMAP_E);
	expect_choice(&g, CA_MOVE); /* not stopped by the cultist */
	EXPECT_EQ(count_ev(at, CV_FIGHT, ANY, ANY, ANY), 0);
	EXPECT_EQ(g.left, 3);
	EXPECT(g.square[S(&g, 2, 1)] & CS_BULLET);
	EXPECT_EQ(g.p[0].bullets, 3);
	pick(&g, CA_MOVE, CO_DIR, CTMAP_E);
	roll(&g, CD_SANITY, 1); /* the byakhee's square: a check, lost */
	expect_choice(&g, CA_MOVE);
	EXPECT_EQ(count_ev(at, CV_FIGHT, ANY, ANY, ANY), 0);
	EXPECT_EQ(g.p[0].sanity, 4);
	EXPECT(g.square[S(&g, 3, 1)] & CS_HEART);
	EXPECT_EQ(g.p[0].hearts, 3);
	pick(&g, CA_MOVE, CO_DIR, CTMAP_E);
	EXPECT_EQ(g.p[0].sq, S(&g, 4, 1));
	EXPECT_EQ(count_ev(0, CV_ROLL, 0, CD_SANITY, ANY), 1);
}

/* B22: movement ends at once on a defeat, insanity, a sanctification or an
 * elimination. */
static void test_b22_movement_ends_at_once(void **unused)
{
	struct ctgame g;
	int at;

	(void)unused;
	row = "B22: a defeat";
	arena(&g, 2);
	set_hearts(&g, 0, 1);
	set_bullets(&g, 0, 0);
	put(&g, S(&g, 2, 1), CS_CULTIST);
	begin(&g, 0);
	drive(&g, stop_die, CD_MOVE);
	roll(&g, CD_MOVE, 6);
	pick(&g, CA_MOVE, CO_DIR, CTMAP_E);
	roll(&g, CD_COMBAT, 1); /* no bullets: the last heart goes */
	EXPECT(find_ev(0, CV_DEFEAT, 0, ANY, ANY) >= 0);
	expect_die(&g, CD_CULTISTS);
	EXPECT_EQ(g.left, 0);
	EXPECT_EQ(g.p[0].sq, CHURCH);
	EXPECT_EQ(count_ev(0, CV_MOVE, 0, ANY, ANY), 1);

	row = "B22: insanity (the fight in progress goes on)";
	arena(&g, 2);
	set_sanity(&g, 0, 1, 5);
	put(&g, S(&g, 2, 1), CS_BYAKHEE);
	begin(&g, 0);
	drive(&g, stop_die, CD_MOVE);
	roll(&g, CD_MOVE, 6);
	pick(&g, CA_MOVE, CO_DIR, CTMAP_E);
	roll(&g, CD_SANITY, 1);
	EXPECT(find_ev(0, CV_INSANE, 0, 4, ANY) >= 0);
	roll(&g, CD_COMBAT, 6);
	draw_any_relic(&g);
	draw_any_relic(&g);
	expect_die(&g, CD_CULTISTS);
	EXPECT_EQ(g.left, 0);
	EXPECT_EQ(g.p[0].sq, S(&g, 2, 1));

	row = "B22: a sanctification at PP4";
	arena(&g, 2);
	take(&g, S(&g, 8, 0), CS_BYAKHEE);
	put(&g, S(&g, 6, 1), CS_CULTIST);
	hold_all_types(&g, 0);
	g.p[0].sq = (int16_t)S(&g, 5, 1);
	begin(&g, 0);
	drive(&g, stop_die, CD_MOVE);
	roll(&g, CD_MOVE, 1);
	pick(&g, CA_MOVE, CO_DIR, CTMAP_E);
	roll(&g, CD_COMBAT, 6);
	draw_any_relic(&g);
	expect_choice(&g, CA_PLAY);
	EXPECT_EQ(ctgame_moment(&g), CM_PP4);
	EXPECT_EQ(g.left, 3);
	at = nlog;
	pick(&g, CA_PLAY, CO_SANCTIFY, ANY);
	EXPECT(find_ev(at, CV_SANCTIFY, 0, T(27), 1) >= 0);
	expect_die(&g, CD_CULTISTS);
	EXPECT_EQ(g.left, 0);
	EXPECT_EQ(g.p[0].sq, S(&g, 5, 1));
	EXPECT_EQ(count_ev(0, CV_MOVE, 0, ANY, ANY), 1);

	row = "B22: an elimination";
	arena(&g, 2);
	set_hearts(&g, 0, 1);
	set_bullets(&g, 0, 0);
	set_sanity(&g, 0, 1, 1);
	put(&g, S(&g, 2, 1), CS_CULTIST);
	begin(&g, 0);
	drive(&g, stop_die, CD_MOVE);
	roll(&g, CD_MOVE, 6);
	pick(&g, CA_MOVE, CO_DIR, CTMAP_E);
	at = nlog;
	roll(&g, CD_COMBAT, 1);
	EXPECT(find_ev(at, CV_ELIMINATED, 0, ANY, ANY) >= 0);
	EXPECT(find_ev(at, CV_TURN, 1, ANY, ANY) >= 0);
	EXPECT_EQ(count_ev(at, CV_MOVE, 0, ANY, ANY), 0);
	EXPECT_EQ(g.seat, 1);
}

/* ---- B23-B26: combat ---- */

/* B23: bullets pay exactly the kill number minus the total, in one
 * payment; with too few bullets there is no payment at all. */
static void test_b23_bullets_exact_payment(void **unused)
{
	static const struct {
		const char *name;
		int enemy, bullets, face, spend; /* spend 0: no payment offered */
	} rows[] = {
		{ "B23: a cultist, 2 rolled: exactly 2 bullets", CS_CULTIST, 3, 2, 2 },
		{ "B23: a byakhee, 2 rolled: exactly 3 bullets", CS_BYAKHEE, 3, 2, 3 },
		{ "B23: a cultist, 1 rolled with 2 bullets: no partial payment", CS_CULTIST, 2, 1,
		  0 },
	};

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;
		int at, supply;

		row = rows[r].name;
		arena(&g, 2);
		set_bullets(&g, 0, rows[r].bullets);
		put(&g, CHURCH, rows[r].enemy);
		begin(&g, 0);
		if (rows[r].enemy == CS_BYAKHEE)
			roll(&g, CD_SANITY, 6);
		roll(&g, CD_COMBAT, rows[r].face);
		supply = g.bullets;
		at = nlog;
		if (rows[r].spend) {
			expect_choice(&g, CA_FAILED);
			EXPECT_EQ(opt_count(&g, CO_SPEND), 1);
			pick(&g, CA_FAILED, CO_SPEND, rows[r].spend);
			EXPECT(find_ev(at, CV_SPEND, 0, ANY, rows[r].spend) >= 0);
			EXPECT(find_ev(at, CV_KILL, 0, CHURCH, rows[r].enemy) >= 0);
			EXPECT_EQ(g.p[0].bullets, rows[r].bullets - rows[r].spend);
			EXPECT_EQ(g.bullets, supply + rows[r].spend);
			EXPECT_EQ(g.p[0].hearts, 3);
		} else {
			/* losing a heart was the only option, taken without asking */
			expect_die(&g, CD_COMBAT);
			EXPECT_EQ(g.p[0].hearts, 2);
			EXPECT_EQ(g.p[0].bullets, rows[r].bullets);
		}
	}
}

/* B24: the weapon is declared before every roll, and a limited weapon
 * spends a use on every roll it is applied to. */
static void test_b24_weapon_declared_each_roll(void **unused)
{
	/* clang-format off */
	static const struct {
		const char *name;
		int weapon, enemy, faces[3], rolls, uses_left, discarded;
	} rows[] = {
		{ "B24: the Harpoon spends a use on failed and successful rolls",
		  CK_HARPOON, CS_BYAKHEE, { 1, 1, 6 }, 3, 0, 1 },
		{ "B24: the Coach Gun spends a use on a successful roll",
		  CK_COACHGUN, CS_CULTIST, { 6 }, 1, 3, 0 },
		{ "B24: the Trench Knife has no limit",
		  CK_KNIFE, CS_CULTIST, { 1, 6 }, 2, 0, 0 },
	};
	/* clang-format on */

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;
		int card;

		row = rows[r].name;
		arena(&g, 2);
		set_hearts(&g, 0, 5);
		card = arm(&g, 0, rows[r].weapon);
		put(&g, CHURCH, rows[r].enemy);
		begin(&g, 0);
		if (rows[r].enemy == CS_BYAKHEE)
			roll(&g, CD_SANITY, 6);
		for (int i = 0; i < rows[r].rolls; i++) {
			if (i)
				pick(&g, CA_FAILED, CO_LOSE, ANY);
			pick(&g, CA_WEAPON, CO_WEAPON, card);
			roll(&g, CD_COMBAT, rows[r].faces[i]);
		}
		EXPECT_EQ(count_ev(0, CV_WEAPON, 0, card, ANY), rows[r].rolls);
		EXPECT_EQ(count_ev(0, CV_KILL, 0, CHURCH, rows[r].enemy), 1);
		EXPECT_EQ(g.uses[card], rows[r].uses_left);
		EXPECT_EQ(g.card_at[card], rows[r].discarded ? CW_DISCARD : CW_PLAY + 0);
	}
}

/* B25: one sanity check per fight with a byakhee, before its first roll. */
static void test_b25_one_sanity_check_per_fight(void **unused)
{
	struct ctgame g;
	int check1, combat1;

	(void)unused;
	row = "B25";
	arena(&g, 2);
	set_hearts(&g, 0, 5);
	set_bullets(&g, 0, 9);
	put(&g, CHURCH, CS_BYAKHEE);
	put(&g, S(&g, 2, 1), CS_BYAKHEE);
	begin(&g, 0);
	roll(&g, CD_SANITY, 6);
	roll(&g, CD_COMBAT, 1);
	pick(&g, CA_FAILED, CO_LOSE, ANY);
	roll(&g, CD_COMBAT, 1);
	pick(&g, CA_FAILED, CO_LOSE, ANY);
	roll(&g, CD_COMBAT, 6);
	check1 = find_ev(0, CV_ROLL, 0, CD_SANITY, ANY);
	combat1 = find_ev(0, CV_ROLL, 0, CD_COMBAT, ANY);
	EXPECT(check1 >= 0 && check1 < combat1);
	EXPECT_EQ(count_ev(0, CV_ROLL, 0, CD_SANITY, ANY), 1);
	EXPECT_EQ(count_ev(0, CV_ROLL, 0, CD_COMBAT, ANY), 3);
	/* another fight, another check */
	drive(&g, stop_die, CD_MOVE);
	roll(&g, CD_MOVE, 1);
	pick(&g, CA_MOVE, CO_DIR, CTMAP_E);
	roll(&g, CD_SANITY, 6);
	EXPECT_EQ(count_ev(0, CV_ROLL, 0, CD_SANITY, ANY), 2);
}

/* B26: a fight ends only with the figure killed, the player defeated or
 * eliminated: a failed roll offers no way out. */
static void test_b26_no_leaving_a_fight(void **unused)
{
	struct ctgame g;
	struct ctgame_option o[CTGAME_OPTIONS];
	int n;

	(void)unused;
	row = "B26";
	arena(&g, 2);
	set_hearts(&g, 0, 2);
	set_bullets(&g, 0, 1);
	give(&g, 0, CK_DEADEYE);
	g.p[0].sq = (int16_t)S(&g, 4, 1);
	put(&g, S(&g, 4, 1), CS_CULTIST);
	begin(&g, 0);
	roll(&g, CD_COMBAT, 1);
	n = ctgame_options(&g, o);
	EXPECT_EQ(n, 2); /* a heart or Deadeye; too few bullets; no way out */
	for (int i = 0; i < n; i++)
		EXPECT(o[i].what == CO_LOSE || o[i].what == CO_CARD);
	pick(&g, CA_FAILED, CO_LOSE, ANY);
	roll(&g, CD_COMBAT, 3); /* the same fight goes on */
	n = ctgame_options(&g, o);
	EXPECT_EQ(n, 3);
	for (int i = 0; i < n; i++)
		EXPECT(o[i].what == CO_SPEND || o[i].what == CO_LOSE || o[i].what == CO_CARD);
	pick(&g, CA_FAILED, CO_LOSE, ANY);
	EXPECT(find_ev(0, CV_DEFEAT, 0, ANY, ANY) >= 0);
	EXPECT_EQ(count_ev(0, CV_KILL, ANY, ANY, ANY), 0);
	EXPECT(g.square[S(&g, 4, 1)] & CS_CULTIST); /* the defeat ended it */
	EXPECT_EQ(g.enemy, 0);
	EXPECT_EQ(g.p[0].sq, CHURCH);
}

/* ---- B27-B31: hearts, bullets and sanity ---- */

/* B27: a gain larger than the supply gives what is left. */
static void test_b27_gain_limited_by_supply(void **unused)
{
	struct ctgame g;

	(void)unused;
	row = "B27: bullets (E16 with 2 bullets in the supply)";
	arena(&g, 2);
	set_bullets(&g, 1, g.p[1].bullets + g.bullets - 2);
	give(&g, 0, CK_STASH);
	begin(&g, 0);
	pick(&g, CA_PLAY, CO_CARD, CK_STASH);
	EXPECT_EQ(g.p[0].bullets, 5);
	EXPECT_EQ(g.bullets, 0);
	EXPECT(find_ev(0, CV_BULLETS, 0, ANY, 5) >= 0);

	row = "B27: hearts (E07 with 1 heart in the supply)";
	big_map(&g, 2, 0);
	set_hearts(&g, 0, 2);
	park(&g, CS_HEART, 1);
	arm(&g, 0, CK_SATCHEL);
	begin(&g, 0);
	pick(&g, CA_PLAY, CO_ITEM, CK_SATCHEL);
	EXPECT_EQ(g.p[0].hearts, 3);
	EXPECT_EQ(g.hearts, 0);
}

/* B28: no effect raises s above S, and S never increases. */
static void test_b28_sanity_capped_at_start(void **unused)
{
	struct ctgame g;

	(void)unused;
	row = "B28: E17 raises s up to S only";
	arena(&g, 2);
	set_sanity(&g, 0, 3, 4);
	give(&g, 0, CK_HYMN);
	begin(&g, 0);
	pick(&g, CA_PLAY, CO_CARD, CK_HYMN);
	EXPECT_EQ(g.p[0].sanity, 4);
	EXPECT_EQ(g.p[0].start, 4);
	EXPECT_EQ(g.p[1].sanity, 5);
	EXPECT_EQ(count_ev(0, CV_SANITY, 1, ANY, ANY), 0);

	row = "B28: E06's 2 sanity stop at S";
	arena(&g, 2);
	set_sanity(&g, 0, 3, 4);
	arm(&g, 0, CK_LAUDANUM);
	begin(&g, 0);
	pick(&g, CA_PLAY, CO_ITEM, CK_LAUDANUM);
	EXPECT_EQ(g.p[0].sanity, 4);
	EXPECT_EQ(g.p[0].start, 4);
}

/* B29: at 0 sanity there are no sanity checks, losses or gains. */
static void test_b29_zero_sanity_skips_checks(void **unused)
{
	struct ctgame g;

	(void)unused;
	row = "B29: no gain at 0 (E17)";
	arena(&g, 2);
	set_sanity(&g, 0, 2, 5);
	set_sanity(&g, 1, 0, 3);
	give(&g, 0, CK_HYMN);
	begin(&g, 0);
	pick(&g, CA_PLAY, CO_CARD, CK_HYMN);
	EXPECT_EQ(g.p[0].sanity, 3);
	EXPECT_EQ(g.p[1].sanity, 0);
	EXPECT_EQ(count_ev(0, CV_SANITY, 1, ANY, ANY), 0);

	row = "B29: no sanity check at 0 (insane in step 1, byakhee in step 3)";
	arena(&g, 2);
	set_sanity(&g, 0, 1, 5);
	give(&g, 0, CK_WHISPERS);
	put(&g, CHURCH, CS_BYAKHEE);
	begin(&g, 0);
	EXPECT(find_ev(0, CV_INSANE, 0, 4, ANY) >= 0);
	EXPECT(find_ev(0, CV_FIGHT, 0, CHURCH, CS_BYAKHEE) >= 0);
	expect_die(&g, CD_COMBAT);
	EXPECT_EQ(count_ev(0, CV_ROLL, 0, CD_SANITY, ANY), 0);
}

/* B30: insanity in one's own turn leaves only the fight in progress, steps
 * 3-4 on the current square, steps 8-10 and the step-11 discard. */
static void test_b30_insane_in_own_turn(void **unused)
{
	struct ctgame g;

	(void)unused;
	row = "B30";
	fresh(&g, 2); /* the open map of setup: the map-tile step has work */
	set_sanity(&g, 0, 1, 5);
	give(&g, 0, CK_WHISPERS);
	give(&g, 0, CK_STASH);
	put(&g, CHURCH, CS_CULTIST);
	begin(&g, 0);
	EXPECT(find_ev(0, CV_INSANE, 0, 4, ANY) >= 0);
	EXPECT_EQ(g.p[0].start, 4);
	expect_die(&g, CD_COMBAT); /* step 4 */
	roll(&g, CD_COMBAT, 6);
	drive(&g, stop_die, CD_CULTISTS);
	EXPECT_EQ(count_ev(0, CV_TILE_DRAW, ANY, ANY, ANY), 0);
	EXPECT_EQ(count_ev(0, CV_DEAL, 0, ANY, ANY), 0);
	EXPECT_EQ(count_ev(0, CV_ROLL, 0, CD_MOVE, ANY), 0);
	EXPECT_EQ(plays_seen[0], 0); /* the Stash was never offered */
	roll(&g, CD_CULTISTS, 1);
	drive(&g, stop_ask, CA_DISCARD);
	EXPECT_EQ(plays_seen[0], 0);
	EXPECT(opt_find(&g, CO_CARD, CK_STASH) >= 0);
	pick(&g, CA_DISCARD, CO_CARD, CK_STASH);
	EXPECT_EQ(g.seat, 1);

	/* Insane in the byakhee's fight on a square entered in step 7: that
	 * fight goes on, the cultist's fight on the same square is not the
	 * fight in progress, nor steps 3-4, so it is skipped (like B35's). */
	row = "B30: insane in step 7, the square's second fight is skipped";
	arena(&g, 2);
	set_sanity(&g, 0, 1, 5);
	put(&g, S(&g, 2, 1), CS_BYAKHEE | CS_CULTIST);
	begin(&g, 0);
	drive(&g, stop_die, CD_MOVE);
	roll(&g, CD_MOVE, 6);
	pick(&g, CA_MOVE, CO_DIR, CTMAP_E);
	roll(&g, CD_SANITY, 1);
	EXPECT(find_ev(0, CV_INSANE, 0, 4, ANY) >= 0);
	roll(&g, CD_COMBAT, 6);
	draw_any_relic(&g);
	draw_any_relic(&g);
	expect_die(&g, CD_CULTISTS);
	EXPECT_EQ(count_ev(0, CV_FIGHT, 0, ANY, ANY), 1);
	EXPECT_EQ(g.square[S(&g, 2, 1)], CS_CULTIST);
	EXPECT_EQ(g.left, 0);
}

/* B31: insanity outside one's own turn skips nothing, and s is restored
 * to S when the turn comes. */
static void test_b31_insane_outside_own_turn(void **unused)
{
	struct ctgame g;
	int turn;

	(void)unused;
	row = "B31";
	arena(&g, 2);
	set_sanity(&g, 1, 0, 4);
	give(&g, 1, CK_STASH);
	begin(&g, 0);
	drive(&g, stop_die, CD_MOVE);
	roll(&g, CD_MOVE, 1);
	expect_choice(&g, CA_PLAY);
	EXPECT_EQ(ctgame_moment(&g), CM_RW);
	pick(&g, CA_PLAY, CO_CARD, CK_STASH);
	EXPECT_EQ(g.p[1].bullets, 6);
	drive(&g, stop_turn, 1);
	turn = find_ev(0, CV_TURN, 1, ANY, ANY);
	EXPECT(find_ev(0, CV_SANITY, 1, 4, 4) >= 0);
	EXPECT(find_ev(0, CV_SANITY, 1, 4, 4) < turn);
	EXPECT_EQ(g.p[1].sanity, 4);
}

/* ---- B32-B37: defeat and elimination ---- */

/* B32: a defeat sets hearts and bullets to three, extra bullets going back
 * to the supply (B27 when the supply runs short). */
static void test_b32_defeat_sets_three_and_three(void **unused)
{
	static const struct {
		const char *name;
		int bullets, supply, after; /* supply -1: as it is */
	} rows[] = {
		{ "B32: seven bullets become three", 7, -1, 3 },
		{ "B32: no bullet becomes three", 0, -1, 3 },
		{ "B32 with B27: one bullet left in the supply", 0, 1, 1 },
	};

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;
		int supply;

		row = rows[r].name;
		arena(&g, 2);
		set_hearts(&g, 0, 1);
		set_bullets(&g, 0, rows[r].bullets);
		if (rows[r].supply >= 0)
			set_bullets(&g, 1, g.p[1].bullets + g.bullets - rows[r].supply);
		give(&g, 0, CK_OMEN);
		supply = g.bullets;
		begin(&g, 0);
		EXPECT(find_ev(0, CV_DEFEAT, 0, ANY, ANY) >= 0);
		EXPECT_EQ(g.p[0].hearts, 3);
		EXPECT_EQ(g.p[0].bullets, rows[r].after);
		EXPECT_EQ(g.bullets, supply + rows[r].bullets - rows[r].after);
	}
}

/* B33: insanity and a defeat in the same turn each lower S. */
static void test_b33_insanity_and_defeat_both_lower_start(void **unused)
{
	struct ctgame g;
	int insane, defeat;

	(void)unused;
	row = "B33";
	arena(&g, 2);
	set_sanity(&g, 0, 1, 5);
	set_hearts(&g, 0, 1);
	set_bullets(&g, 0, 0);
	put(&g, CHURCH, CS_BYAKHEE);
	begin(&g, 0);
	roll(&g, CD_SANITY, 1);
	roll(&g, CD_COMBAT, 1);
	insane = find_ev(0, CV_INSANE, 0, 4, ANY);
	defeat = find_ev(0, CV_DEFEAT, 0, ANY, ANY);
	EXPECT(insane >= 0 && defeat > insane);
	EXPECT(find_ev(defeat, CV_SANITY, 0, 3, 3) > defeat);
	EXPECT_EQ(g.p[0].start, 3);
	EXPECT_EQ(g.p[0].sanity, 3);
}

/* B34: a defeat on a Ritual Site activates it, whatever the cause. */
static void test_b34_defeat_on_site_activates(void **unused)
{
	enum { FIGHT, OMEN, BRAWL };
	static const struct {
		const char *name;
		int cause, loser;
	} rows[] = {
		{ "B34: a fight", FIGHT, 0 },
		{ "B34: a card (E28)", OMEN, 0 },
		{ "B34: a brawl lost out of turn (E29)", BRAWL, 1 },
	};

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;
		int loser = rows[r].loser, byakhee;

		row = rows[r].name;
		arena(&g, 2);
		set_hearts(&g, loser, 1);
		set_bullets(&g, loser, 0);
		if (rows[r].cause == BRAWL) {
			g.p[0].sq = (int16_t)S(&g, 5, 1);
			g.p[1].sq = (int16_t)S(&g, 6, 1);
			give(&g, 0, CK_BRAWL);
		} else {
			g.p[0].sq = (int16_t)S(&g, 7, 1);
			if (rows[r].cause == OMEN)
				give(&g, 0, CK_OMEN);
			else
				put(&g, S(&g, 7, 1), CS_CULTIST);
		}
		byakhee = g.byakhee;
		begin(&g, 0);
		if (rows[r].cause == FIGHT)
			roll(&g, CD_COMBAT, 1);
		if (rows[r].cause == BRAWL) {
			pick(&g, CA_PLAY, CO_CARD, CK_BRAWL);
			roll(&g, CD_BRAWL_A, 6);
			roll(&g, CD_BRAWL_B, 1);
		}
		EXPECT(find_ev(0, CV_ACTIVATE, loser, T(27), 1) >= 0);
		EXPECT_EQ(g.map.where[T(27)], CTMAP_ACTIVATED);
		EXPECT_EQ(g.activated, 1);
		EXPECT_EQ(g.byakhee, byakhee + 1);
		EXPECT_EQ(g.p[loser].sq, CHURCH);
	}
}

/* B35: after a defeat in one's own turn the remaining fights and steps 6-7
 * are skipped; the other steps go on and a card may still be played. */
static void test_b35_after_defeat_skip_fights_and_movement(void **unused)
{
	struct ctgame g;

	(void)unused;
	row = "B35";
	fresh(&g, 2); /* the open map of setup */
	set_hearts(&g, 0, 1);
	give(&g, 0, CK_OMEN);
	give(&g, 0, CK_STASH);
	put(&g, CHURCH, CS_BYAKHEE | CS_CULTIST);
	begin(&g, 0);
	EXPECT(find_ev(0, CV_DEFEAT, 0, ANY, ANY) >= 0);
	drive(&g, stop_moment, CM_PP2);
	EXPECT(find_ev(0, CV_TILE_DRAW, 0, ANY, ANY) >= 0); /* step 2 went on */
	EXPECT_EQ(count_ev(0, CV_FIGHT, ANY, ANY, ANY), 0);
	pick(&g, CA_PLAY, CO_CARD, CK_STASH);
	EXPECT_EQ(g.p[0].bullets, 6);
	drive(&g, stop_die, CD_CULTISTS);
	EXPECT_EQ(count_ev(0, CV_DEAL, 0, ANY, ANY), 3);
	EXPECT_EQ(count_ev(0, CV_ROLL, 0, CD_MOVE, ANY), 0);
	EXPECT_EQ(count_ev(0, CV_FIGHT, ANY, ANY, ANY), 0);
}

/* B36: sites sanctified by an eliminated player score for nobody but still
 * count toward the three. */
static void test_b36_eliminated_sites_still_count(void **unused)
{
	struct ctgame g;

	(void)unused;
	row = "B36";
	arena(&g, 2);
	sanctified_by(&g, T(28), 1);
	sanctified_by(&g, T(29), 0);
	hold(&g, 1, CT_TOME, 3);
	set_hearts(&g, 1, 1);
	set_sanity(&g, 1, 1, 1);
	give(&g, 1, CK_OMEN);
	take(&g, S(&g, 8, 0), CS_BYAKHEE);
	hold_all_types(&g, 0);
	g.p[0].sq = (int16_t)S(&g, 7, 1);
	EXPECT_EQ(ctgame_vp(&g, 1), 12 + 5);
	begin(&g, 1);
	EXPECT(find_ev(0, CV_ELIMINATED, 1, ANY, ANY) >= 0);
	EXPECT_EQ(ctgame_vp(&g, 1), 0);
	EXPECT_EQ(g.sanctified, 2);
	EXPECT(g.p[1].sites >> (T(28) - CTMAP_SITE_FIRST) & 1);
	/* seat 0's turn follows: the third site saves Kingsport */
	EXPECT_EQ(g.seat, 0);
	drive(&g, stop_moment, CM_PP2);
	pick(&g, CA_PLAY, CO_SANCTIFY, ANY);
	EXPECT_EQ(g.end, CE_SAVED);
	EXPECT_EQ(g.sanctified, 3);
	EXPECT_EQ(g.winners, 1);
	EXPECT(find_ev(0, CV_END, -1, CE_SAVED, 1) >= 0);
}

/* B37: when every player is eliminated the game ends with no winner. */
static void test_b37_everyone_eliminated(void **unused)
{
	struct ctgame g;
	struct game_result res;

	(void)unused;
	row = "B37";
	arena(&g, 2);
	knock_out(&g, 1);
	set_hearts(&g, 0, 1);
	set_sanity(&g, 0, 1, 1);
	give(&g, 0, CK_OMEN);
	hold(&g, 0, CT_IDOL, 4);
	begin(&g, 0);
	EXPECT_EQ(g.end, CE_NOBODY);
	EXPECT_EQ(g.winners, 0);
	EXPECT(find_ev(0, CV_END, -1, CE_NOBODY, 0) >= 0);
	EXPECT(is_over(&g));
	ctgame_result(&g, &res);
	EXPECT_EQ(res.over, 1);
	EXPECT_EQ(res.winner, -1);
}

/* ---- B38: tokens on a new named building ---- */

static void test_b38_token_kind_exhausted(void **unused)
{
	/* clang-format off */
	static const struct {
		const char *name;
		int hearts, bullets; /* supplies; -1: as they are */
		int mask;            /* bit i: a bullet asked on interior i */
		int want[2];
	} rows[] = {
		{ "B38: all hearts with no heart left: bullets", 0, -1, 0, { CS_BULLET, CS_BULLET } },
		{ "B38: hearts running out half way",            1, -1, 0, { CS_HEART, CS_BULLET } },
		{ "B38: all bullets with no bullet left: hearts", -1, 0, 3, { CS_HEART, CS_HEART } },
		{ "B38: neither kind left: no token",             0,  0, 1, { 0, 0 } },
	};
	/* clang-format on */

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;
		int16_t in[9];
		int k = 0;

		row = rows[r].name;
		big_map(&g, 2, 1u << T(23));
		if (rows[r].hearts >= 0)
			park(&g, CS_HEART, rows[r].hearts);
		if (rows[r].bullets >= 0)
			set_bullets(&g, 1, g.p[1].bullets + g.bullets - rows[r].bullets);
		begin(&g, 0);
		draw_tile(&g, T(23));
		if (is_choice(&g, CA_TILE))
			apply(&g, 0);
		expect_choice(&g, CA_TOKENS);
		EXPECT_EQ(opt_count(&g, CO_MASK), 4);
		pick(&g, CA_TOKENS, CO_MASK, rows[r].mask);
		for (int l = 0; l < 9; l++) {
			int kind = ctmap_square_kind(&g.map, T(23) * 9 + l);

			if (kind == CTMAP_INTERIOR || kind == CTMAP_ENTRANCE)
				in[k++] = (int16_t)(T(23) * 9 + l);
		}
		EXPECT_EQ(k, 2);
		for (int i = 0; i < 2; i++) {
			EXPECT(g.square[in[i]] & CS_CULTIST);
			EXPECT_EQ(g.square[in[i]] & (CS_HEART | CS_BULLET), rows[r].want[i]);
		}
	}
}

/* ---- B39-B43: enemies ---- */

/* Gets to step 8 with the cultist die showing `k`. */
static void to_step8(struct ctgame *g, int k)
{
	drive(g, stop_die, CD_CULTISTS);
	roll(g, CD_CULTISTS, k);
}

/* B39: k different cultists move, each 1 or 2 squares, never ending where
 * it started, until k have moved or none can. */
static void test_b39_cultists_move_one_or_two(void **unused)
{
	static const int from_t02[][2] = { { 4, 0 },  { 3, 1 }, { 5, 1 }, { 4, 2 },
		                           { 4, -1 }, { 2, 1 }, { 6, 1 }, { 4, 3 } };
	struct ctgame g;

	(void)unused;
	row = "B39: k = 2 of three cultists";
	arena(&g, 2);
	put(&g, S(&g, 1, -2), CS_CULTIST);
	put(&g, S(&g, 4, 1), CS_CULTIST);
	put(&g, S(&g, 1, 4), CS_CULTIST);
	begin(&g, 0);
	to_step8(&g, 2);
	expect_choice(&g, CA_FIGURE);
	EXPECT_EQ(opt_count(&g, CO_SQUARE), 3);
	EXPECT_EQ(opt_count(&g, CO_STOP), 0);
	pick(&g, CA_FIGURE, CO_SQUARE, S(&g, 4, 1));
	expect_choice(&g, CA_DEST);
	expect_squares(&g, from_t02, (int)COUNT(from_t02)); /* 1 or 2 squares, not 4,1 */
	pick(&g, CA_DEST, CO_SQUARE, S(&g, 4, -1));
	expect_choice(&g, CA_FIGURE);
	EXPECT_EQ(opt_count(&g, CO_SQUARE), 2); /* the moved cultist cannot move again */
	EXPECT(opt_find(&g, CO_SQUARE, S(&g, 4, -1)) < 0);
	pick(&g, CA_FIGURE, CO_SQUARE, S(&g, 1, 4));
	pick(&g, CA_DEST, CO_SQUARE, S(&g, 1, 3));
	EXPECT(!is_choice(&g, CA_FIGURE) && !is_choice(&g, CA_DEST));
	EXPECT_EQ(count_ev(0, CV_FIGURE, CS_CULTIST, ANY, ANY), 2);
	EXPECT(g.square[S(&g, 1, -2)] & CS_CULTIST);

	row = "B39: k = 6 with three cultists: each moves once";
	arena(&g, 2);
	put(&g, S(&g, 1, -2), CS_CULTIST);
	put(&g, S(&g, 4, 1), CS_CULTIST);
	put(&g, S(&g, 1, 4), CS_CULTIST);
	begin(&g, 0);
	to_step8(&g, 6);
	for (int i = 0; i < 3; i++) {
		if (i < 2) { /* the last one is the only choice left: taken without asking */
			expect_choice(&g, CA_FIGURE);
			EXPECT_EQ(opt_count(&g, CO_SQUARE), 3 - i);
			apply(&g, 0);
		}
		expect_choice(&g, CA_DEST);
		apply(&g, 0);
	}
	EXPECT(!is_choice(&g, CA_FIGURE) && !is_choice(&g, CA_DEST));
	EXPECT_EQ(count_ev(0, CV_FIGURE, CS_CULTIST, ANY, ANY), 3);
}

/* B40 and §10.2: a cultist never enters another cultist's square, even in
 * passing; byakhee, pawns and tokens do not block; a cultist on a site
 * stays on it; cultists may enter a site by its entrance. */
static void test_b40_cultists_never_pass_cultists(void **unused)
{
	static const int west[][2] = { { 2, 1 }, { 1, 1 } };
	static const int east[][2] = {
		{ 4, 0 }, { 5, 1 }, { 4, 2 }, { 4, -1 }, { 6, 1 }, { 4, 3 }
	};
	static const int site[][2] = { { 6, 0 }, { 6, 2 }, { 7, 1 }, { 7, 0 }, { 7, 2 }, { 8, 1 } };
	static const int enter[][2] = { { 4, 1 }, { 6, 1 }, { 4, 0 }, { 3, 1 },
		                        { 4, 2 }, { 7, 1 }, { 6, 0 }, { 6, 2 } };
	/* clang-format off */
	static const struct {
		const char *name;
		int cultists[2][2], n, figure;
		const int (*dest)[2];
		int ndest;
	} rows[] = {
		{ "B40: west of T02 the cultist there blocks the way",
		  { { 3, 1 }, { 4, 1 } }, 2, 0, west, (int)COUNT(west) },
		{ "B40: ... and the other way round",
		  { { 3, 1 }, { 4, 1 } }, 2, 1, east, (int)COUNT(east) },
		{ "§10.2: confined to the site",
		  { { 6, 1 } }, 1, 0, site, (int)COUNT(site) },
		{ "§10.2: into a site by its entrance",
		  { { 5, 1 } }, 1, 0, enter, (int)COUNT(enter) },
	};
	/* clang-format on */

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;
		int from;

		row = rows[r].name;
		arena(&g, 2);
		put(&g, S(&g, 2, 1), CS_BYAKHEE);
		put(&g, CHURCH, CS_HEART);
		for (int i = 0; i < rows[r].n; i++)
			put(&g, S(&g, rows[r].cultists[i][0], rows[r].cultists[i][1]), CS_CULTIST);
		from =
		    S(&g, rows[r].cultists[rows[r].figure][0], rows[r].cultists[rows[r].figure][1]);
		begin(&g, 0);
		/* the byakhee on 2,1 would be fought on the way: stay put */
		to_step8(&g, 1);
		if (is_choice(&g, CA_FIGURE))
			pick(&g, CA_FIGURE, CO_SQUARE, from);
		expect_choice(&g, CA_DEST);
		EXPECT_EQ(g.figure, from);
		expect_squares(&g, rows[r].dest, rows[r].ndest);
	}
}

/* B41 and §10.3: every byakhee off the sites moves once, to a square of a
 * tile in an orthogonally adjacent cell (placed, not activated) holding no
 * byakhee, and no enemy at all when it carries a cultist; byakhee on sites
 * never move. */
static void test_b41_byakhee_move_to_adjacent_tiles(void **unused)
{
	static const int around_t02[][2] = {
		{ 1, 0 },  { 0, 1 },  { 1, 1 },  { 2, 1 }, { 1, 2 }, /* Church */
		{ 3, -2 }, { 4, -2 }, { 4, -1 },                     /* T13 */
		{ 4, 3 },  { 3, 4 },  { 4, 4 },  { 5, 4 }, { 5, 5 }, /* T20 */
		{ 6, 0 },  { 7, 0 },  { 6, 1 },  { 7, 1 }, { 8, 1 },
		{ 6, 2 },  { 7, 2 },  { 8, 2 } /* T27 */
	};
	static const int rider[][2] = {
		{ 1, 0 }, { 0, 1 }, { 1, 1 }, { 1, 2 }, { 3, -2 }, { 4, -2 }, { 4, -1 },
		{ 4, 3 }, { 3, 4 }, { 4, 4 }, { 5, 4 }, { 5, 5 },  { 6, 0 },  { 7, 0 },
		{ 6, 1 }, { 7, 1 }, { 8, 1 }, { 6, 2 }, { 7, 2 },  { 8, 2 },
	};
	static const int beside_activated[][2] = {
		{ 1, -2 }, { 2, -2 }, { 1, -1 },                     /* T12 */
		{ 4, 0 },  { 3, 1 },  { 4, 1 },  { 5, 1 }, { 4, 2 }, /* T02 */
		{ 1, 3 },  { 1, 4 },  { 2, 4 },                      /* T14 */
	};
	struct ctgame g;

	(void)unused;
	row = "B41: the tiles of orthogonally adjacent cells";
	arena(&g, 2);
	put(&g, S(&g, 4, 1), CS_BYAKHEE);
	begin(&g, 0);
	to_step8(&g, 1);
	expect_choice(&g, CA_DEST); /* the only byakhee off the sites */
	expect_squares(&g, around_t02, (int)COUNT(around_t02));
	pick(&g, CA_DEST, CO_SQUARE, S(&g, 1, 0));
	EXPECT_EQ(count_ev(0, CV_FIGURE, CS_BYAKHEE, ANY, ANY), 1);
	EXPECT(g.square[S(&g, -3, 0)] & CS_BYAKHEE);
	EXPECT(g.square[S(&g, 8, 0)] & CS_BYAKHEE);

	row = "§10.3: a rider's destination holds no enemy at all";
	arena(&g, 2);
	put(&g, S(&g, 4, 1), CS_BYAKHEE | CS_CULTIST);
	put(&g, S(&g, 2, 1), CS_CULTIST);
	put(&g, S(&g, 1, 4), CS_CULTIST); /* moved in step 8 instead of the others */
	begin(&g, 0);
	to_step8(&g, 1);
	pick(&g, CA_FIGURE, CO_SQUARE, S(&g, 1, 4));
	pick(&g, CA_DEST, CO_SQUARE, S(&g, 2, 4));
	expect_choice(&g, CA_DEST);
	expect_squares(&g, rider, (int)COUNT(rider));
	pick(&g, CA_DEST, CO_SQUARE, S(&g, 4, -1));
	EXPECT_EQ(g.square[S(&g, 4, -1)], CS_BYAKHEE | CS_CULTIST);
	EXPECT_EQ(g.square[S(&g, 4, 1)], 0);

	row = "B41: an activated site is not a tile to go to";
	ring(&g, 2, RING_T27);
	lay_activated(&g, T(26), -1, 0, 3);
	put(&g, S(&g, 1, 0), CS_BYAKHEE);
	check(&g);
	begin(&g, 0);
	to_step8(&g, 1);
	expect_choice(&g, CA_DEST);
	expect_squares(&g, beside_activated, (int)COUNT(beside_activated));

	row = "B41: byakhee must move; no stopping";
	arena(&g, 2);
	put(&g, S(&g, 4, 1), CS_BYAKHEE);
	put(&g, S(&g, 1, 4), CS_BYAKHEE);
	begin(&g, 0);
	to_step8(&g, 1);
	expect_choice(&g, CA_FIGURE);
	EXPECT_EQ(opt_count(&g, ANY), 2);
	EXPECT_EQ(opt_count(&g, CO_SQUARE), 2);
	apply(&g, 0);
	apply(&g, 0);
	expect_choice(&g, CA_DEST); /* the second one must go too */
	apply(&g, 0);
	EXPECT_EQ(count_ev(0, CV_FIGURE, CS_BYAKHEE, ANY, ANY), 2);

	row = "B41: byakhee on sites never move";
	arena(&g, 2);
	begin(&g, 0);
	drive(&g, stop_turn, 1);
	EXPECT_EQ(count_ev(0, CV_FIGURE, ANY, ANY, ANY), 0);
	EXPECT(g.square[S(&g, -3, 0)] & CS_BYAKHEE);
	EXPECT(g.square[S(&g, 8, 0)] & CS_BYAKHEE);
}

/* The squares of `tile` holding `bit`, as a bitmask of local indexes. */
static int tile_mask(const struct ctgame *g, int tile, int bit)
{
	int m = 0;

	for (int l = 0; l < 9; l++)
		if (g->square[tile * 9 + l] & bit)
			m |= 1 << l;
	return m;
}

/* B42: a figure whose supply is empty is not placed; multi-figure
 * placements go in reading order (a site's byakhee first) until the supply
 * runs out. */
static void test_b42_supply_exhausted(void **unused)
{
	struct ctgame g;

	(void)unused;
	row = "B42: a site with no byakhee left: its cultists only";
	big_map(&g, 2, 0);
	park(&g, CS_BYAKHEE, 0);
	begin(&g, 0);
	draw_tile(&g, T(26));
	if (is_choice(&g, CA_TILE))
		apply(&g, 0);
	pick(&g, CA_SITE_BYAKHEE, CO_SQUARE, T(26) * 9 + 4);
	EXPECT_EQ(tile_mask(&g, T(26), CS_BYAKHEE), 0);
	EXPECT_EQ(tile_mask(&g, T(26), CS_CULTIST), 0x1ef); /* all but the centre */

	row = "B42: three cultists left: the byakhee first, then reading order";
	big_map(&g, 2, 0);
	park(&g, CS_CULTIST, 3);
	begin(&g, 0);
	draw_tile(&g, T(26));
	if (is_choice(&g, CA_TILE))
		apply(&g, 0);
	pick(&g, CA_SITE_BYAKHEE, CO_SQUARE, T(26) * 9 + 1);
	EXPECT_EQ(tile_mask(&g, T(26), CS_BYAKHEE), 1 << 1);
	EXPECT_EQ(tile_mask(&g, T(26), CS_CULTIST), 1 << 0 | 1 << 2 | 1 << 3);
	EXPECT_EQ(g.cultists, 0);

	row = "B42: a road tile with no byakhee left gets nothing";
	big_map(&g, 2, 1u << T(3));
	park(&g, CS_BYAKHEE, 0);
	begin(&g, 0);
	draw_tile(&g, T(3));
	if (is_choice(&g, CA_TILE))
		apply(&g, 0);
	EXPECT_EQ(g.map.where[T(3)], CTMAP_PLACED);
	EXPECT_EQ(count_ev(find_ev(0, CV_PLACE, 0, T(3), ANY), CV_ARRIVE, ANY, ANY, ANY), 0);
	EXPECT_EQ(g.square[T(3) * 9 + 4], 0);

	row = "B42: a building's cultists in reading order until the supply runs out";
	big_map(&g, 2, 1u << T(16));
	park(&g, CS_CULTIST, 2);
	begin(&g, 0);
	draw_tile(&g, T(16));
	if (is_choice(&g, CA_TILE))
		apply(&g, 0);
	expect_choice(&g, CA_TOKENS);
	{
		int in = 0, seen = 0;

		for (int l = 0; l < 9; l++) {
			int kind = ctmap_square_kind(&g.map, T(16) * 9 + l);

			if (kind != CTMAP_INTERIOR)
				continue;
			EXPECT_EQ(!!(g.square[T(16) * 9 + l] & CS_CULTIST), seen < 2);
			in |= 1 << l;
			seen++;
		}
		EXPECT_EQ(seen, 4);
		EXPECT_EQ(tile_mask(&g, T(16), CS_CULTIST) & ~in, 0);
	}
	EXPECT_EQ(g.cultists, 0);

	row = "B42: E24 with no byakhee left places nothing";
	big_map(&g, 2, 0);
	park(&g, CS_BYAKHEE, 0);
	give(&g, 0, CK_WINGS);
	begin(&g, 0);
	EXPECT(find_ev(0, CV_CARD, 0, ANY, ANY) >= 0);
	EXPECT_EQ(count_ev(0, CV_ARRIVE, ANY, ANY, ANY), 0);
	EXPECT_EQ(g.square[CHURCH] & CS_BYAKHEE, 0);
}

/* B43: a figure a card puts on a square that cannot take it goes to the
 * nearest square that can (G distance, ties in reading order), or nowhere. */
static void test_b43_card_figure_fallback(void **unused)
{
	/* clang-format off */
	static const struct {
		const char *name;
		int taken[5][2], n;
		int want[2]; /* {0, 0}: not placed (the open map of setup, all taken) */
	} rows[] = {
		{ "B43: the nearest square", { { 1, 1 } }, 1, { 1, 0 } },
		{ "B43: ties in reading order", { { 1, 1 }, { 1, 0 } }, 2, { 0, 1 } },
		{ "B43: G distance (across the tile border)",
		  { { 1, 1 }, { 1, 0 }, { 0, 1 }, { 2, 1 }, { 1, 2 } }, 5, { 1, -1 } },
		{ "B43: no square can take it", { { 0, 0 } }, 0, { 0, 0 } },
	};
	/* clang-format on */

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;
		int byakhee;

		row = rows[r].name;
		if (rows[r].n) {
			arena(&g, 2);
			for (int i = 0; i < rows[r].n; i++)
				put(&g, S(&g, rows[r].taken[i][0], rows[r].taken[i][1]),
				    CS_BYAKHEE);
		} else {
			int16_t all[CTMAP_SQUARES];
			int k;

			fresh(&g, 2);
			k = ctmap_squares(&g.map, all);
			EXPECT_EQ(k, 10);
			for (int i = 0; i < k; i++)
				put(&g, all[i], CS_BYAKHEE);
		}
		give(&g, 0, CK_WINGS);
		byakhee = g.byakhee;
		begin(&g, 0);
		EXPECT(find_ev(0, CV_CARD, 0, ANY, ANY) >= 0);
		if (rows[r].n) {
			int want = S(&g, rows[r].want[0], rows[r].want[1]);

			EXPECT_EQ(count_ev(0, CV_ARRIVE, ANY, ANY, CS_BYAKHEE), 1);
			EXPECT(find_ev(0, CV_ARRIVE, -1, want, CS_BYAKHEE) >= 0);
			EXPECT_EQ(g.byakhee, byakhee - 1);
		} else {
			EXPECT_EQ(count_ev(0, CV_ARRIVE, ANY, ANY, ANY), 0);
			EXPECT_EQ(g.byakhee, byakhee);
		}
	}
}

/* ---- B44-B46: Ritual Sites ---- */

/* The options of the pending CA_RESEED all belong to `tile`; returns how
 * many offer a cultist. */
static int reseed_cultists(const struct ctgame *g, int tile)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	int n = ctgame_options(g, o), k = 0;

	for (int i = 0; i < n; i++) {
		EXPECT_EQ(o[i].what, CO_FIGURE);
		EXPECT_EQ(o[i].arg % CTMAP_SQUARES / 9, tile);
		k += o[i].arg < CTMAP_SQUARES;
	}
	return k;
}

/* B44: in step 10 every unresolved site holding no enemy gets 1 cultist or
 * 1 byakhee from the supply, on any of its squares. */
static void test_b44_reseeding_in_step_10(void **unused)
{
	struct ctgame g;
	struct ctmap_option o[CTMAP_OPTIONS_MAX];
	int at, byakhee;

	(void)unused;
	row = "B44: an empty site";
	arena(&g, 2);
	take(&g, S(&g, 8, 0), CS_BYAKHEE);
	begin(&g, 0);
	drive(&g, stop_ask, CA_RESEED);
	EXPECT(find_ev(0, CV_ROLL, 0, CD_CULTISTS, ANY) >= 0); /* after steps 8 and 9 */
	EXPECT_EQ(opt_count(&g, CO_FIGURE), 18);
	EXPECT_EQ(reseed_cultists(&g, T(27)), 9);
	byakhee = g.byakhee;
	at = nlog;
	pick(&g, CA_RESEED, CO_FIGURE, CTMAP_SQUARES + S(&g, 8, 2));
	EXPECT(find_ev(at, CV_ARRIVE, -1, S(&g, 8, 2), CS_BYAKHEE) >= 0);
	EXPECT_EQ(g.byakhee, byakhee - 1);
	expect_choice(&g, CA_DISCARD);

	row = "B44: every empty site, cells in reading order";
	ring(&g, 2, RING_T26 | RING_T27 | RING_EMPTY);
	begin(&g, 0);
	drive(&g, stop_ask, CA_RESEED);
	EXPECT_EQ(reseed_cultists(&g, T(26)), 9);
	pick(&g, CA_RESEED, CO_FIGURE, S(&g, -3, 2));
	expect_choice(&g, CA_RESEED);
	EXPECT_EQ(reseed_cultists(&g, T(27)), 9);
	pick(&g, CA_RESEED, CO_FIGURE, S(&g, 8, 2));
	expect_choice(&g, CA_DISCARD);
	EXPECT(g.square[S(&g, -3, 2)] & CS_CULTIST);
	EXPECT(g.square[S(&g, 8, 2)] & CS_CULTIST);

	row = "B44: no cultist left: a byakhee";
	big_map(&g, 2, 0);
	EXPECT(ctmap_options(&g.map, T(26), CTMAP_STRICT, o) > 0);
	ctmap_place(&g.map, T(26), o[0], CTMAP_STRICT);
	park(&g, CS_CULTIST, 0);
	begin(&g, 0);
	drive(&g, stop_ask, CA_RESEED);
	EXPECT_EQ(opt_count(&g, CO_FIGURE), 9);
	EXPECT_EQ(reseed_cultists(&g, T(26)), 0);

	row = "B44: both supplies empty: nothing to re-seed with";
	big_map(&g, 2, 0);
	ctmap_place(&g.map, T(26), o[0], CTMAP_STRICT);
	park(&g, CS_CULTIST, 0);
	park(&g, CS_BYAKHEE, 0);
	begin(&g, 0);
	drive(&g, stop_ask, CA_DISCARD);
	EXPECT_EQ(count_ev(0, CV_ARRIVE, ANY, ANY, ANY), 0);
	EXPECT_EQ(tile_mask(&g, T(26), CS_CULTIST | CS_BYAKHEE), 0);
	check(&g); /* §16.10 holds: both supplies are empty */
}

/* The sites of the arena with T27 emptied and seat 0 on its centre, able to
 * sanctify it. */
static void sanctify_position(struct ctgame *g, int players)
{
	arena(g, players);
	take(g, S(g, 8, 0), CS_BYAKHEE);
	hold_all_types(g, 0);
	g->p[0].sq = (int16_t)S(g, 7, 1);
	check(g);
}

/* B45: sanctifying at PP2 leaves steps 6-7 to be played from the square the
 * pawn was moved to; during step 7 it ends the movement (B22). */
static void test_b45_sanctify_at_pp2_then_move(void **unused)
{
	struct ctgame g;
	int at;

	(void)unused;
	row = "B45: at PP2";
	sanctify_position(&g, 2);
	begin(&g, 0);
	expect_choice(&g, CA_PLAY);
	EXPECT_EQ(ctgame_moment(&g), CM_PP2);
	at = nlog;
	pick(&g, CA_PLAY, CO_SANCTIFY, ANY);
	EXPECT(find_ev(at, CV_SANCTIFY, 0, T(27), 1) >= 0);
	EXPECT_EQ(g.map.where[T(27)], CTMAP_SANCTIFIED);
	EXPECT_EQ(g.p[0].sites, 1 << (T(27) - CTMAP_SITE_FIRST));
	for (int t = 0; t < CTGAME_TYPES; t++)
		EXPECT_EQ(g.p[0].relics[t], 0);
	EXPECT_EQ(g.p[0].sq, S(&g, 5, 1));
	drive(&g, stop_die, CD_MOVE);
	roll(&g, CD_MOVE, 1);
	expect_choice(&g, CA_MOVE);
	EXPECT(opt_find(&g, CO_DIR, CTMAP_E) < 0); /* the site is gone: an open street */
	at = nlog;
	pick(&g, CA_MOVE, CO_DIR, CTMAP_W);
	EXPECT(find_ev(at, CV_MOVE, 0, S(&g, 4, 1), 3) >= 0);

	row = "B45: during step 7 (after a fight on the site)";
	sanctify_position(&g, 2);
	g.p[0].sq = (int16_t)S(&g, 5, 1);
	put(&g, S(&g, 8, 1), CS_CULTIST);
	begin(&g, 0);
	drive(&g, stop_die, CD_MOVE);
	roll(&g, CD_MOVE, 6);
	pick(&g, CA_MOVE, CO_DIR, CTMAP_E);
	pick(&g, CA_MOVE, CO_DIR, CTMAP_E);
	pick(&g, CA_MOVE, CO_DIR, CTMAP_E);
	roll(&g, CD_COMBAT, 6);
	draw_any_relic(&g);
	expect_choice(&g, CA_PLAY);
	EXPECT_EQ(ctgame_moment(&g), CM_PP4);
	EXPECT_EQ(g.left, 6);
	pick(&g, CA_PLAY, CO_SANCTIFY, ANY);
	expect_die(&g, CD_CULTISTS);
	EXPECT_EQ(g.left, 0);
}

/* B46: pawns on a site that is sanctified or activated go to the street
 * facing its entrance; that is not movement. */
static void test_b46_pawns_evacuated(void **unused)
{
	struct ctgame g;
	int street;

	(void)unused;
	row = "B46: sanctified";
	sanctify_position(&g, 3);
	g.p[1].sq = (int16_t)S(&g, 8, 2);
	g.p[2].sq = (int16_t)S(&g, 6, 1);
	begin(&g, 0);
	pick(&g, CA_PLAY, CO_SANCTIFY, ANY);
	street = S(&g, 5, 1);
	for (int s = 0; s < 3; s++) {
		EXPECT_EQ(g.p[s].sq, street);
		EXPECT(find_ev(0, CV_RELOCATE, s, street, ANY) >= 0);
	}

	row = "B46: activated (the defeated pawn to the Church)";
	arena(&g, 2);
	g.p[0].sq = (int16_t)S(&g, 7, 1);
	g.p[1].sq = (int16_t)S(&g, 8, 2);
	set_hearts(&g, 0, 1);
	give(&g, 0, CK_OMEN);
	street = S(&g, 5, 1);
	put(&g, street, CS_CULTIST | CS_HEART);
	set_hearts(&g, 1, 2);
	begin(&g, 0);
	EXPECT_EQ(g.p[0].sq, CHURCH);
	EXPECT_EQ(g.p[1].sq, street);
	EXPECT(find_ev(0, CV_RELOCATE, 1, street, ANY) >= 0);
	/* not movement: no token, no fight */
	EXPECT_EQ(g.p[1].hearts, 2);
	EXPECT_EQ(g.square[street], CS_CULTIST | CS_HEART);
	EXPECT_EQ(count_ev(0, CV_FIGHT, ANY, ANY, ANY), 0);
}

/* ---- B7-B10: the map-tile step and activated sites ---- */

/* B7: drawn tiles that cannot be placed go to the map discard, which
 * becomes the deck only when a draw finds the deck empty; nothing is drawn
 * when no unplaced tile can be placed. */
static void test_b07_map_discard_and_reshuffle(void **unused)
{
	struct ctgame g;
	int at, discard;

	(void)unused;
	row = "B7: nothing to place, nothing drawn";
	arena(&g, 2);
	begin(&g, 0);
	drive(&g, stop_die, CD_MOVE);
	EXPECT_EQ(count_ev(0, CV_TILE_DRAW, ANY, ANY, ANY), 0);
	EXPECT_EQ(g.tile_discard, 0);
	EXPECT_EQ(tile_deck(&g), 22);

	/* One open street (the Church's west side): a site there would close
	 * it, so no site has a strict option (B6); the deck holds only sites. */
	row = "B7: unplaceable draws to the discard, reshuffled when the deck is empty";
	ring(&g, 2, RING_T27);
	EXPECT_EQ(ctmap_streets(&g.map, NULL), 1);
	for (int t = T(3); t < CTMAP_SITE_FIRST; t++)
		if (g.map.where[t] == CTMAP_UNPLACED)
			g.tile_discard |= 1u << t;
	discard = __builtin_popcount(g.tile_discard);
	EXPECT_EQ(tile_deck(&g), 4);
	begin(&g, 0);
	for (int t = T(26); t <= T(30); t++) {
		if (t == T(27))
			continue;
		at = nlog;
		draw_tile(&g, t);
		EXPECT(find_ev(at, CV_TILE_DRAW, 0, t, ANY) >= 0);
		EXPECT(find_ev(at, CV_TILE_SKIP, 0, t, ANY) >= 0);
	}
	/* the fourth site made the deck empty: the next draw reshuffled */
	EXPECT(find_ev(0, CV_TILE_RESHUFFLE, 0, ANY, discard + 4) >= 0);
	EXPECT_EQ(g.tile_discard, 0);
	EXPECT_EQ(tile_deck(&g), discard + 4);
	draw_tile(&g, T(9));
	if (is_choice(&g, CA_TILE))
		apply(&g, 0);
	EXPECT_EQ(g.map.where[T(9)], CTMAP_PLACED);
	EXPECT_EQ(ctmap_at(&g.map, -1, 0), T(9));
}

/* B8: when no unplaced tile has a strict option a Ritual Site may close the
 * last open street (relief mode). Cell (-1,-1) faces the only open street
 * (T06's west side) and walls on its three other sides: only a site fits. */
static void test_b08_relief_placement(void **unused)
{
	struct ctgame g;
	int at, place;

	(void)unused;
	row = "B8";
	fresh(&g, 2);
	lay(&g, T(6), 0, -1, 2); /* exits S, W, E */
	lay(&g, T(13), 1, -1, 2);
	lay(&g, T(14), 0, 1, 0);
	lay(&g, T(20), 1, 1, 0);
	lay(&g, T(26), -1, 0, 3);
	lay(&g, T(27), 2, 0, 1);
	put(&g, S(&g, -3, 0), CS_BYAKHEE);
	put(&g, S(&g, 8, 0), CS_BYAKHEE);
	lay_activated(&g, T(28), -2, -1, 0);
	lay_activated(&g, T(29), -1, -2, 0);
	EXPECT_EQ(ctmap_streets(&g.map, NULL), 1);
	check(&g);
	begin(&g, 0);
	at = nlog;
	draw_tile(&g, T(3)); /* no strict option: to the discard */
	EXPECT(find_ev(at, CV_TILE_SKIP, 0, T(3), ANY) >= 0);
	at = nlog;
	draw_tile(&g, T(30));
	place = find_ev(at, CV_PLACE, 0, T(30), ANY);
	EXPECT(place >= 0);
	EXPECT_EQ((int8_t)(evlog[place].value & 0xff), -1); /* cell (-1,-1) */
	EXPECT_EQ((int8_t)(evlog[place].value >> 8 & 0xff), -1);
	EXPECT(find_ev(at, CV_ROTATE, 0, T(30), 3 | CTMAP_RELIEF << 4) >= 0);
	EXPECT_EQ(ctmap_at(&g.map, -1, -1), T(30));
	EXPECT_EQ(ctmap_streets(&g.map, NULL), 0);
	pick(&g, CA_SITE_BYAKHEE, CO_SQUARE, T(30) * 9 + 4);
	EXPECT_EQ(tile_mask(&g, T(30), CS_CULTIST), 0x1ef);
	EXPECT_EQ(tile_mask(&g, T(30), CS_BYAKHEE), 1 << 4);
}

/* The Church and T02 ringed by T-junctions and corners with no site at all
 * and no open street, save for the hole at (1,1) when `hole`: T02's south
 * street and T24's east street both face it. */
static void site_free_ring(struct ctgame *g, int hole)
{
	fresh(g, 2);
	lay(g, T(6), 0, -1, 2);   /* S, W, E */
	lay(g, T(7), 1, -1, 2);   /* S, W, E */
	lay(g, T(12), -1, -1, 1); /* E, S */
	lay(g, T(13), -1, 0, 0);  /* N, E */
	lay(g, T(14), 2, -1, 2);  /* S, W */
	lay(g, T(18), 2, 0, 3);   /* W, N */
	lay(g, T(24), 0, 1, 2);   /* N, E */
	if (!hole)
		lay(g, T(20), 1, 1, 0); /* N, W */
}

/* B9: with no tile placeable even in relief mode, no unresolved site on the
 * map and a site unplaced, a site is placed with its entrance facing any
 * open street whose middle is '.', its other sides ignored; with no open
 * street an activated site is first taken off the map (it still counts);
 * with neither the step is skipped. */
static void test_b09_forced_placement(void **unused)
{
	struct ctgame g;
	struct game_step st;
	int at;

	(void)unused;
	/* the hole at (1,1): walls east and south are activated sites, so only
	 * a corner (closing both streets, not the last tile) or nothing fits */
	row = "B9: forced, the other sides ignored";
	site_free_ring(&g, 1);
	lay_activated(&g, T(26), 2, 1, 0);
	lay_activated(&g, T(27), 1, 2, 0);
	EXPECT_EQ(ctmap_streets(&g.map, NULL), 2);
	check(&g);
	begin(&g, 0);
	draw_tile(&g, T(20)); /* a corner: to the discard */
	EXPECT(find_ev(0, CV_TILE_SKIP, 0, T(20), ANY) >= 0);
	draw_tile(&g, T(28));
	expect_choice(&g, CA_TILE);
	EXPECT_EQ(opt_count(&g, CO_TILE), 2); /* entrance north or west */
	at = nlog;
	apply(&g, 0);
	EXPECT(find_ev(at, CV_ROTATE, 0, T(28), ANY) >= 0);
	EXPECT_EQ(evlog[find_ev(at, CV_ROTATE, 0, T(28), ANY)].value >> 4, CTMAP_FORCED);
	EXPECT_EQ(ctmap_at(&g.map, 1, 1), T(28));
	EXPECT_EQ(g.map.forced[T(28)], 1);
	EXPECT_EQ(ctmap_streets(&g.map, NULL), 0); /* its wall closed the other street */
	expect_choice(&g, CA_SITE_BYAKHEE);

	row = "B9: no open street: an activated site comes off first";
	ring(&g, 2, 0);
	lay_activated(&g, T(27), 2, 0, 1);
	lay_activated(&g, T(26), -1, 0, 3);
	check(&g);
	begin(&g, 0);
	draw_tile(&g, T(29));
	expect_choice(&g, CA_REMOVE);
	EXPECT_EQ(opt_count(&g, CO_TILE), 2);
	EXPECT_EQ(opt_find(&g, CO_TILE, T(27)), 0); /* in activation order */
	EXPECT_EQ(opt_find(&g, CO_TILE, T(26)), 1);
	ctgame_step(&g, &st);
	EXPECT_EQ(ctgame_policy_baseline(&g, &st, NULL), 0); /* BP7: the earliest */
	at = nlog;
	pick(&g, CA_REMOVE, CO_TILE, T(26));
	EXPECT(find_ev(at, CV_REMOVE, 0, T(26), ANY) >= 0);
	EXPECT_EQ(g.map.where[T(26)], CTMAP_REMOVED);
	EXPECT_EQ(g.activated, 2);                 /* still counts */
	EXPECT_EQ(ctmap_at(&g.map, -1, 0), T(29)); /* facing the reopened street */
	EXPECT(find_ev(at, CV_ROTATE, 0, T(29), 3 | CTMAP_FORCED << 4) >= 0);
	expect_choice(&g, CA_SITE_BYAKHEE);

	row = "B9: neither an open street nor an activated site: skipped";
	site_free_ring(&g, 0);
	EXPECT_EQ(ctmap_streets(&g.map, NULL), 0);
	check(&g);
	begin(&g, 0);
	drive(&g, stop_die, CD_MOVE);
	EXPECT_EQ(count_ev(0, CV_TILE_DRAW, ANY, ANY, ANY), 0);
}

/* B10: an activated site stays in its cell face down: no squares, no
 * enemies, and the street that faced it is a dead end. */
static void test_b10_activated_site_face_down(void **unused)
{
	struct ctgame g;
	int street, byakhee;

	(void)unused;
	row = "B10";
	arena(&g, 2);
	g.p[0].sq = (int16_t)S(&g, 7, 1);
	g.p[1].sq = (int16_t)S(&g, 8, 1);
	put(&g, S(&g, 6, 2), CS_CULTIST);
	set_hearts(&g, 0, 1);
	give(&g, 0, CK_OMEN);
	byakhee = g.byakhee;
	begin(&g, 0);
	street = S(&g, 5, 1);
	EXPECT_EQ(g.map.where[T(27)], CTMAP_ACTIVATED);
	EXPECT_EQ(ctmap_at(&g.map, 2, 0), T(27));
	for (int l = 0; l < 9; l++) {
		EXPECT(!ctmap_passable(&g.map, T(27) * 9 + l));
		EXPECT_EQ(g.square[T(27) * 9 + l], 0);
	}
	EXPECT_EQ(g.byakhee, byakhee + 1);
	EXPECT_EQ(g.p[1].sq, street);
	EXPECT_EQ(ctmap_step(&g.map, street, CTMAP_E), -1);
	EXPECT_EQ(ctmap_streets(&g.map, NULL), 0);
	drive(&g, stop_die, CD_MOVE);
	EXPECT_EQ(count_ev(0, CV_TILE_DRAW, ANY, ANY, ANY), 0);
}

/* ---- B47-B52: cards and relics ---- */

static int automatic_cards_played(int from)
{
	int n = 0;

	for (int i = from; i < nlog; i++)
		if (evlog[i].kind == CV_CARD &&
		    ctgame_card(ctgame_card_kind(evlog[i].target))->category == CC_AUTOMATIC)
			n++;
	return n;
}

/* B47: Automatic cards are played only in step 1, exactly one a turn, they
 * do not count as the round's card, and step 11 may discard one. */
static void test_b47_automatic_only_in_step1_not_counted(void **unused)
{
	struct ctgame g;

	(void)unused;
	row = "B47";
	arena(&g, 2);
	give(&g, 0, CK_JAMMED);
	give(&g, 0, CK_WHISPERS);
	give(&g, 0, CK_STASH);
	begin(&g, 0);
	expect_choice(&g, CA_AUTOMATIC);
	EXPECT_EQ(opt_count(&g, ANY), 2); /* one of the two, no passing */
	EXPECT_EQ(opt_count(&g, CO_CARD), 2);
	pick(&g, CA_AUTOMATIC, CO_CARD, CK_WHISPERS);
	EXPECT_EQ(g.p[0].sanity, 4);
	EXPECT_EQ(g.p[0].played, 0);
	expect_choice(&g, CA_PLAY);
	EXPECT_EQ(ctgame_moment(&g), CM_PP1);
	EXPECT(opt_find(&g, CO_CARD, CK_JAMMED) < 0);
	pick(&g, CA_PLAY, CO_CARD, CK_STASH); /* the round's card, after an Automatic */
	EXPECT_EQ(g.p[0].played, 1);
	drive(&g, stop_ask, CA_DISCARD);
	EXPECT_EQ(automatic_cards_played(0), 1);
	EXPECT_EQ(ctgame_in_hand(&g, 0, CK_JAMMED), 1);
	pick(&g, CA_DISCARD, CO_CARD, CK_JAMMED);
	EXPECT_EQ(ctgame_in_hand(&g, 0, CK_JAMMED), 0);
	EXPECT(find_ev(0, CV_DISCARD, 0, ANY, ANY) >= 0);
}

/* B48: the Church and the sites are never named buildings for cards (E20
 * draws 2 relics only inside a named building). */
static void test_b48_church_and_sites_not_named_buildings(void **unused)
{
	static const struct {
		const char *name;
		int at[2], relics;
	} rows[] = {
		{ "B48: inside the Church", { 1, 1 }, 1 },
		{ "B48: inside a Ritual Site", { 7, 1 }, 1 },
		{ "B48: inside North Point Light", { 5, 4 }, 2 },
		{ "B48: on North Point Light's street", { 4, 4 }, 1 },
	};

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;

		row = rows[r].name;
		arena(&g, 2);
		g.p[0].sq = (int16_t)S(&g, rows[r].at[0], rows[r].at[1]);
		give(&g, 0, CK_EYE);
		begin(&g, 0);
		pick(&g, CA_PLAY, CO_CARD, CK_EYE);
		drive(&g, stop_die, CD_MOVE);
		EXPECT_EQ(count_ev(0, CV_RELIC, 0, ANY, ANY), rows[r].relics);
	}
}

/* B49: a card with no legal effect is not offered (nor an item use). A
 * Gangland Chopper in hand keeps the play point open in every case. */
static void test_b49_no_legal_effect_not_offered(void **unused)
{
	enum {
		NONE,
		FULL_SANITY,
		LOW_SANITY,
		NO_BULLETS,
		NO_RELICS,
		OTHER_FAR,
		OTHER_HERE,
		OTHER_HERE_NO_RELIC,
		OTHER_NEXT,
		BYAKHEE_OFF_SITE,
		CULTIST_FAR,
		CULTIST_NEAR,
		OPEN_MAP,
		KNIFE_IN_PLAY,
		FIVE_HEARTS,
		DEFEATED,
	};
	static const struct {
		const char *name;
		int kind, item, setup, moment, offered;
	} rows[] = {
		{ "E17 when nobody can gain", CK_HYMN, 0, FULL_SANITY, CM_PP1, 0 },
		{ "E17 when someone can", CK_HYMN, 0, LOW_SANITY, CM_PP1, 1 },
		{ "E16 with the bullet supply empty", CK_STASH, 0, NO_BULLETS, CM_PP1, 0 },
		{ "E16", CK_STASH, 0, NONE, CM_PP1, 1 },
		{ "E20 with both relic piles empty", CK_EYE, 0, NO_RELICS, CM_PP1, 0 },
		{ "E20", CK_EYE, 0, NONE, CM_PP1, 1 },
		{ "E31 with nobody on the square", CK_FINGERS, 0, OTHER_FAR, CM_PP1, 0 },
		{ "E31 with someone holding relics there", CK_FINGERS, 0, OTHER_HERE, CM_PP1, 1 },
		{ "E31 with someone holding none there", CK_FINGERS, 0, OTHER_HERE_NO_RELIC, CM_PP1,
		  0 },
		{ "E29 with nobody on or next to the square", CK_BRAWL, 0, OTHER_FAR, CM_PP1, 0 },
		{ "E29 with someone on a linked square", CK_BRAWL, 0, OTHER_NEXT, CM_PP1, 1 },
		{ "E32 with byakhee only on sites", CK_SENT, 0, NONE, CM_PP1, 0 },
		{ "E32 with a byakhee off the sites", CK_SENT, 0, BYAKHEE_OFF_SITE, CM_PP1, 1 },
		{ "E21 with no cultist", CK_SCATTER, 0, NONE, CM_PP1, 0 },
		{ "E21 with a cultist on a diagonal tile only", CK_SCATTER, 0, CULTIST_FAR, CM_PP1,
		  0 },
		{ "E21 with a cultist on an adjacent tile", CK_SCATTER, 0, CULTIST_NEAR, CM_PP1,
		  1 },
		{ "E30 with no cultist", CK_YELLOW, 0, NONE, CM_PP1, 0 },
		{ "E30 with a cultist that can get closer", CK_YELLOW, 0, CULTIST_NEAR, CM_PP1, 1 },
		{ "E18 with no tile to place", CK_SURVEYOR, 0, NONE, CM_PP2, 0 },
		{ "E18 with a tile to place", CK_SURVEYOR, 0, OPEN_MAP, CM_PP2, 1 },
		{ "E01 with an E01 in play", CK_KNIFE, 0, KNIFE_IN_PLAY, CM_PP1, 0 },
		{ "E07 use at five hearts", CK_SATCHEL, 1, FIVE_HEARTS, CM_PP1, 0 },
		{ "E07 use", CK_SATCHEL, 1, NONE, CM_PP1, 1 },
		{ "E06 use at full sanity", CK_LAUDANUM, 1, NONE, CM_PP1, 0 },
		{ "E06 use", CK_LAUDANUM, 1, LOW_SANITY, CM_PP1, 1 },
		{ "E19 outside a byakhee fight", CK_BANISH, 0, NONE, CM_PP1, 0 },
		{ "E10 before PP3", CK_ROADSTER, 0, NONE, CM_PP1, 0 },
		{ "E09 after a defeat (no movement ahead)", CK_ELDERSIGN, 0, DEFEATED, CM_PP1, 0 },
		{ "E09", CK_ELDERSIGN, 0, NONE, CM_PP1, 1 },
	};

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;
		char name[128];
		int seen;

		snprintf(name, sizeof name, "B49: %s", rows[r].name);
		row = name;
		if (rows[r].setup == OPEN_MAP)
			ring(&g, 2, RING_T27);
		else
			arena(&g, 2);
		switch (rows[r].setup) {
		case FULL_SANITY:
			set_sanity(&g, 1, 3, 3);
			break;
		case LOW_SANITY:
			set_sanity(&g, rows[r].item ? 0 : 1, 3, 5);
			break;
		case NO_BULLETS:
			set_bullets(&g, 1, g.p[1].bullets + g.bullets);
			break;
		case NO_RELICS:
			for (int t = 0; t < CTGAME_TYPES; t++)
				hold(&g, 1, t, 16);
			break;
		case OTHER_FAR:
			g.p[1].sq = (int16_t)S(&g, 4, 1);
			hold(&g, 1, CT_IDOL, 1);
			break;
		case OTHER_HERE:
			hold(&g, 1, CT_IDOL, 1);
			break;
		case OTHER_NEXT:
			g.p[1].sq = (int16_t)S(&g, 1, 0);
			break;
		case BYAKHEE_OFF_SITE:
			put(&g, S(&g, 4, 1), CS_BYAKHEE);
			break;
		case CULTIST_FAR:
			put(&g, S(&g, 4, -2), CS_CULTIST);
			break;
		case CULTIST_NEAR:
			put(&g, S(&g, 4, 1), CS_CULTIST);
			break;
		case KNIFE_IN_PLAY:
			arm(&g, 0, CK_KNIFE);
			break;
		case FIVE_HEARTS:
			set_hearts(&g, 0, 5);
			break;
		case DEFEATED:
			set_hearts(&g, 0, 1);
			give(&g, 0, CK_OMEN);
			break;
		default:
			break;
		}
		if (rows[r].item)
			arm(&g, 0, rows[r].kind);
		else
			give(&g, 0, rows[r].kind);
		give(&g, 0, CK_CHOPPER);
		check(&g);
		begin(&g, 0);
		drive(&g, stop_moment, rows[r].moment);
		EXPECT(opt_find(&g, CO_CARD, CK_CHOPPER) >= 0);
		seen = opt_find(&g, rows[r].item ? CO_ITEM : CO_CARD, rows[r].kind) >= 0;
		EXPECT_EQ(seen, rows[r].offered);
	}
}

/* B50: an empty event deck is refilled from the discard pile. */
static void test_b50_event_deck_refilled(void **unused)
{
	struct ctgame g;
	struct game_step st;

	(void)unused;
	row = "B50";
	arena(&g, 2);
	for (int c = 0; c < CTGAME_CARDS; c++)
		if (g.card_at[c] == CW_DECK)
			g.card_at[c] = CW_DISCARD;
	begin(&g, 0);
	ctgame_step(&g, &st);
	EXPECT_EQ(st.node, GAME_NODE_CHANCE);
	EXPECT_EQ(st.kind, CTGAME_ROLL_CARD);
	EXPECT_EQ(st.count, CTGAME_CARDS); /* the discard became the deck */
	drive(&g, stop_die, CD_MOVE);
	EXPECT_EQ(count_ev(0, CV_DEAL, 0, ANY, ANY), 3);
	EXPECT_EQ(g.p[0].hand, 3);
	for (int c = 0; c < CTGAME_CARDS; c++)
		EXPECT(g.card_at[c] != CW_DISCARD);
}

/* B52: an empty relic deck is refilled from the relic discard; with both
 * empty the draw is lost. */
static void test_b52_relic_deck_refilled_or_lost(void **unused)
{
	struct ctgame g;
	struct game_step st;

	(void)unused;
	row = "B52: refilled";
	arena(&g, 2);
	for (int r = 0; r < CTGAME_RELICS; r++)
		g.relic_at[r] = CW_DISCARD;
	put(&g, CHURCH, CS_CULTIST);
	begin(&g, 0);
	roll(&g, CD_COMBAT, 6);
	ctgame_step(&g, &st);
	EXPECT_EQ(st.kind, CTGAME_ROLL_RELIC);
	EXPECT_EQ(st.count, CTGAME_RELICS);
	draw_relic(&g, 17);
	EXPECT(find_ev(0, CV_RELIC, 0, 17, ANY) >= 0);
	EXPECT_EQ(g.p[0].relics[CT_DAGGER], 1);

	row = "B52: both piles empty: the draw is lost";
	arena(&g, 2);
	for (int t = 0; t < CTGAME_TYPES; t++)
		hold(&g, 1, t, 16);
	put(&g, CHURCH, CS_CULTIST);
	begin(&g, 0);
	roll(&g, CD_COMBAT, 6);
	EXPECT(find_ev(0, CV_KILL, 0, CHURCH, CS_CULTIST) >= 0);
	EXPECT(!stop_chance(&g, CTGAME_ROLL_RELIC));
	EXPECT_EQ(count_ev(0, CV_RELIC, ANY, ANY, ANY), 0);
	drive(&g, stop_die, CD_MOVE);
	EXPECT_EQ(count_ev(0, CV_RELIC, ANY, ANY, ANY), 0);
}

/* ---- B1, B53, §14: scoring and the winner ---- */

/* The arena with two sites already activated (taken off by B9) and seat 0
 * about to be defeated on T27 by E28: the third activation. */
static void summon_position(struct ctgame *g, int players)
{
	arena(g, players);
	gone_activated(g, T(28));
	gone_activated(g, T(29));
	g->p[0].sq = (int16_t)S(g, 7, 1);
	set_hearts(g, 0, 1);
	give(g, 0, CK_OMEN);
}

/* B1: in both endings the winner is the eligible player with the most VP. */
static void test_b01_winner_most_vp_both_endings(void **unused)
{
	struct ctgame g;
	struct game_result res;

	(void)unused;
	row = "B1: Kingsport saved";
	sanctify_position(&g, 3);
	hold(&g, 0, CT_AMULET, 1); /* 13 VP after spending five */
	sanctified_by(&g, T(28), 1);
	hold(&g, 1, CT_DAGGER, 2);   /* 12 + 3 */
	sanctified_by(&g, T(29), 2); /* 12 */
	check(&g);
	begin(&g, 0);
	pick(&g, CA_PLAY, CO_SANCTIFY, ANY);
	EXPECT_EQ(g.end, CE_SAVED);
	EXPECT_EQ(ctgame_vp(&g, 0), 13);
	EXPECT_EQ(ctgame_vp(&g, 1), 15);
	EXPECT_EQ(ctgame_vp(&g, 2), 12);
	EXPECT_EQ(g.winners, 1 << 1);
	ctgame_result(&g, &res);
	EXPECT_EQ(res.winner, 1);
	EXPECT_EQ(res.points, 15);

	row = "B1: the King in Yellow";
	summon_position(&g, 3);
	hold(&g, 0, CT_AMULET, 3); /* 5 */
	hold(&g, 1, CT_AMULET, 1); /* 2 */
	hold(&g, 1, CT_DAGGER, 1);
	hold(&g, 2, CT_IDOL, 2); /* 6 */
	hold(&g, 2, CT_TOME, 2);
	begin(&g, 0);
	EXPECT_EQ(g.end, CE_SUMMONED);
	EXPECT_EQ(g.winners, 1 << 2);
	ctgame_result(&g, &res);
	EXPECT_EQ(res.winner, 2);
	EXPECT_EQ(res.points, 6);
}

/* B53: ties go to more sanctified sites, then more relics; players still
 * tied share the win. */
static void test_b53_tie_breaks(void **unused)
{
	/* clang-format off */
	static const struct {
		const char *name;
		int relics[3][CTGAME_TYPES];
		int site_of; /* seat holding T30, or -1 */
		int winners;
	} rows[] = {
		{ "B53: equal VP, more sites",
		  { { 1 }, { 1 },       { 3, 3, 2 } },       1,  1 << 1 },
		{ "B53: equal VP and sites, more relics",
		  { { 1 }, { 2 },       { 1, 1, 1 } },       -1, 1 << 2 },
		{ "B53: still tied: shared",
		  { { 1 }, { 1, 1, 1 }, { 0, 0, 1, 1, 1 } }, -1, 1 << 1 | 1 << 2 },
	};
	/* clang-format on */

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;
		struct game_result res;

		row = rows[r].name;
		summon_position(&g, 3);
		for (int s = 0; s < 3; s++)
			for (int t = 0; t < CTGAME_TYPES; t++)
				hold(&g, s, t, rows[r].relics[s][t]);
		if (rows[r].site_of >= 0)
			sanctified_by(&g, T(30), rows[r].site_of);
		begin(&g, 0);
		EXPECT_EQ(g.end, CE_SUMMONED);
		EXPECT_EQ(ctgame_vp(&g, 1), ctgame_vp(&g, 2));
		EXPECT_EQ(g.winners, rows[r].winners);
		EXPECT(find_ev(0, CV_END, -1, CE_SUMMONED, rows[r].winners) >= 0);
		ctgame_result(&g, &res);
		EXPECT_EQ(res.winner, __builtin_popcount(rows[r].winners) == 1
		                          ? __builtin_ctz(rows[r].winners)
		                          : -1);
	}
}

/* B54: a defeat that activates the third site still costs the defeated
 * player half their relics, chosen by them, before anyone scores; the other
 * steps of §9.3 are not carried out. Leaving during the choice ends the game
 * too. */
static void test_b54_relics_lost_before_summoned_scoring(void **unused)
{
	static const struct {
		const char *name;
		int leave;
	} rows[] = {
		{ "B54: the relics lost, then the scoring", 0 },
		{ "B54: the defeated player leaves during the choice", 1 },
	};

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;
		struct game_events ev;
		int mark;

		row = rows[r].name;
		summon_position(&g, 3);
		hold(&g, 0, CT_AMULET, 3); /* 8 VP before the defeat */
		hold(&g, 0, CT_DAGGER, 2);
		hold(&g, 1, CT_IDOL, 2); /* 6 VP */
		hold(&g, 1, CT_TOME, 2);
		mark = nlog;
		begin(&g, 0);
		EXPECT(find_ev(mark, CV_ACTIVATE, 0, T(27), 3) >= 0);
		expect_choice(&g, CA_RELIC_LOSS);
		EXPECT_EQ(g.end, CE_PLAYING);
		EXPECT_EQ(find_ev(mark, CV_END, ANY, ANY, ANY), -1);
		if (rows[r].leave) {
			ev.n = 0;
			EXPECT_EQ(ctgame_leave(&g, 0, &ev), GAME_OK);
			record(&ev);
			check(&g);
			EXPECT_EQ(g.end, CE_SUMMONED);
			EXPECT_EQ(g.winners, 1 << 1);
			continue;
		}
		pick(&g, CA_RELIC_LOSS, CO_TYPE, CT_DAGGER);
		EXPECT_EQ(g.end, CE_PLAYING);
		pick(&g, CA_RELIC_LOSS, CO_TYPE, CT_DAGGER);
		EXPECT_EQ(g.end, CE_SUMMONED);
		EXPECT_EQ(count_ev(mark, CV_RELIC_LOST, 0, ANY, ANY), 2);
		EXPECT(find_ev(mark, CV_RELIC_LOST, 0, ANY, ANY) <
		       find_ev(mark, CV_END, -1, CE_SUMMONED, ANY));
		EXPECT_EQ(g.p[0].relics[CT_AMULET], 3);
		EXPECT_EQ(g.p[0].relics[CT_DAGGER], 0);
		EXPECT_EQ(ctgame_vp(&g, 0), 5);
		EXPECT_EQ(g.winners, 1 << 1);
		EXPECT_EQ(g.p[0].hearts, 0); /* no step 5 */
		EXPECT_EQ(g.p[0].start, 5);  /* no step 6 */
	}
}

/* §14: 2n - 1 VP per relic type held n >= 1, 12 per sanctified site held,
 * nothing for an eliminated player. */
static void test_s14_scoring(void **unused)
{
	static const struct {
		const char *name;
		int relics[CTGAME_TYPES], sites, vp;
	} rows[] = {
		{ "§14: nothing", { 0 }, 0, 0 },
		{ "§14: one relic", { 1 }, 0, 1 },
		{ "§14: two of a type", { 0, 2 }, 0, 3 },
		{ "§14: three of a type", { 0, 0, 3 }, 0, 5 },
		{ "§14: sixteen of a type", { 16 }, 0, 31 },
		{ "§14: one of each type", { 1, 1, 1, 1, 1 }, 0, 5 },
		{ "§14: mixed", { 2, 3, 0, 0, 1 }, 0, 9 },
		{ "§14: a site", { 0 }, 1, 12 },
		{ "§14: two sites and a pair", { 2 }, 2, 27 },
	};

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;

		row = rows[r].name;
		arena(&g, 2);
		for (int t = 0; t < CTGAME_TYPES; t++)
			hold(&g, 0, t, rows[r].relics[t]);
		for (int i = 0; i < rows[r].sites; i++)
			sanctified_by(&g, T(28) + i, 0);
		check(&g);
		EXPECT_EQ(ctgame_vp(&g, 0), rows[r].vp);
		EXPECT_EQ(ctgame_vp(&g, 1), 0);
	}
	row = "§14: an eliminated player scores nothing";
	{
		struct ctgame g;

		arena(&g, 2);
		sanctified_by(&g, T(28), 1);
		knock_out(&g, 1);
		check(&g);
		EXPECT_EQ(ctgame_vp(&g, 1), 0);
	}
}

/* ---- §9: defeat and elimination ---- */

/* §9.3: (1) the site is activated, (2) the pawn goes to the Church, (3)
 * weapons are discarded (items kept), (4) floor(n/2) relics of the player's
 * choice are discarded, (5) hearts and bullets are set to three, (6) S
 * drops by one and s = S. */
static void test_s9_3_defeat_order(void **unused)
{
	struct ctgame g;
	int knife, coach, satchel, defeat, act, reloc, lost1, lost2, hearts, sanity, bullets, on;

	(void)unused;
	row = "§9.3";
	arena(&g, 2);
	on = S(&g, 7, 1);
	g.p[0].sq = (int16_t)on;
	g.p[1].sq = (int16_t)S(&g, 7, 2);
	put(&g, S(&g, 7, 1), CS_CULTIST);
	set_hearts(&g, 0, 1);
	set_bullets(&g, 0, 6);
	knife = arm(&g, 0, CK_KNIFE);
	coach = arm(&g, 0, CK_COACHGUN);
	satchel = arm(&g, 0, CK_SATCHEL);
	hold(&g, 0, CT_AMULET, 2);
	hold(&g, 0, CT_DAGGER, 1);
	hold(&g, 0, CT_IDOL, 1);
	hold(&g, 0, CT_MEAD, 1);
	begin(&g, 0);
	pick(&g, CA_PLAY, CO_PASS, ANY); /* PP1: the Satchel could be used */
	pick(&g, CA_WEAPON, CO_PASS, ANY);
	roll(&g, CD_COMBAT, 1);
	bullets = g.bullets;
	pick(&g, CA_FAILED, CO_LOSE, ANY);
	expect_choice(&g, CA_RELIC_LOSS); /* 5 relics: 2 to discard */
	EXPECT_EQ(opt_count(&g, CO_TYPE), 4);
	EXPECT_EQ(g.p[0].hearts, 0); /* steps 5-6 still to come */
	EXPECT_EQ(g.p[0].bullets, 6);
	EXPECT_EQ(g.p[0].start, 5);
	pick(&g, CA_RELIC_LOSS, CO_TYPE, CT_DAGGER);
	expect_choice(&g, CA_RELIC_LOSS);
	EXPECT(opt_find(&g, CO_TYPE, CT_DAGGER) < 0);
	pick(&g, CA_RELIC_LOSS, CO_TYPE, CT_AMULET);
	defeat = find_ev(0, CV_DEFEAT, 0, on, ANY);
	act = find_ev(0, CV_ACTIVATE, 0, T(27), ANY);
	reloc = find_ev(act, CV_RELOCATE, 0, CHURCH, ANY);
	lost1 = find_ev(0, CV_RELIC_LOST, 0, ANY, ANY);
	lost2 = find_ev(lost1 + 1, CV_RELIC_LOST, 0, ANY, ANY);
	hearts = find_ev(0, CV_HEARTS, 0, ANY, 3);
	sanity = find_ev(0, CV_SANITY, 0, 4, 4);
	EXPECT(defeat >= 0 && act > defeat && reloc > act);
	EXPECT(find_ev(reloc, CV_DISCARD, 0, knife, ANY) > reloc);
	EXPECT(find_ev(reloc, CV_DISCARD, 0, coach, ANY) > reloc);
	EXPECT(lost1 > find_ev(reloc, CV_DISCARD, 0, coach, ANY));
	EXPECT(lost2 > lost1 && hearts > lost2 && sanity > hearts);
	EXPECT_EQ(evlog[lost1].target / 16, CT_DAGGER);
	EXPECT_EQ(evlog[lost2].target / 16, CT_AMULET);
	EXPECT(find_ev(0, CV_RELOCATE, 1, S(&g, 5, 1), ANY) < act); /* B46 */
	EXPECT_EQ(g.card_at[knife], CW_DISCARD);
	EXPECT_EQ(g.card_at[coach], CW_DISCARD);
	EXPECT_EQ(g.card_at[satchel], CW_PLAY + 0);
	EXPECT_EQ(g.p[0].relics[CT_AMULET], 1);
	EXPECT_EQ(g.p[0].relics[CT_DAGGER], 0);
	EXPECT_EQ(g.p[0].relics[CT_IDOL], 1);
	EXPECT_EQ(g.p[0].relics[CT_MEAD], 1);
	EXPECT_EQ(g.p[0].hearts, 3);
	EXPECT_EQ(g.p[0].bullets, 3);
	EXPECT_EQ(g.bullets, bullets + 3);
	EXPECT_EQ(g.p[0].start, 4);
	EXPECT_EQ(g.p[0].sanity, 4);
	EXPECT_EQ(g.p[0].sq, CHURCH);
}

/* §9.4: an eliminated player's pawn leaves, hand and cards in play go to
 * the event discard, relics to the relic discard, tokens to the supply, and
 * the player takes no more turns. */
static void test_s9_4_elimination_returns_everything(void **unused)
{
	struct ctgame g;
	int fog, stash, satchel, hearts, bullets, elim;

	(void)unused;
	row = "§9.4";
	arena(&g, 3);
	set_hearts(&g, 0, 1);
	set_bullets(&g, 0, 5);
	set_sanity(&g, 0, 1, 1);
	give(&g, 0, CK_OMEN);
	fog = give(&g, 0, CK_FOG);
	stash = give(&g, 0, CK_STASH);
	arm(&g, 0, CK_KNIFE);
	satchel = arm(&g, 0, CK_SATCHEL);
	hold(&g, 0, CT_AMULET, 1);
	hold(&g, 0, CT_TOME, 2);
	hearts = g.hearts;
	bullets = g.bullets;
	begin(&g, 0);
	pick(&g, CA_RELIC_LOSS, CO_TYPE, CT_TOME);
	elim = find_ev(0, CV_ELIMINATED, 0, ANY, ANY);
	EXPECT(elim >= 0);
	EXPECT(g.p[0].out);
	EXPECT_EQ(g.p[0].sq, -1);
	EXPECT_EQ(g.p[0].hand, 0);
	EXPECT_EQ(g.card_at[fog], CW_DISCARD);
	EXPECT_EQ(g.card_at[stash], CW_DISCARD);
	EXPECT_EQ(g.card_at[satchel], CW_DISCARD);
	for (int r = 0; r < CTGAME_RELICS; r++)
		EXPECT(g.relic_at[r] != CW_HAND + 0);
	for (int t = 0; t < CTGAME_TYPES; t++)
		EXPECT_EQ(g.p[0].relics[t], 0);
	EXPECT_EQ(g.hearts, hearts + 1);   /* the heart of E28, then three and three back */
	EXPECT_EQ(g.bullets, bullets + 5); /* two at the defeat, then three */
	EXPECT_EQ(g.seat, 1);
	drive(&g, stop_turn, 2);
	drive(&g, stop_turn, 1);
	EXPECT_EQ(count_ev(elim, CV_TURN, 0, ANY, ANY), 0);
	EXPECT_EQ(g.round, 2);
}

/* ---- §11: sanctifying and the end ---- */

/* §11.4: at PP2 or PP4 of one's own turn, on an unresolved site holding no
 * enemy, with a relic of each type. */
static void test_s11_4_sanctify_conditions(void **unused)
{
	enum { NONE, ENEMY, MISSING, STREET };
	static const struct {
		const char *name;
		int setup, moment, offered;
	} rows[] = {
		{ "§11.4: at PP2", NONE, CM_PP2, 1 },
		{ "§11.4: at PP4 when movement ends", NONE, CM_PP4_END, 1 },
		{ "§11.4: not at PP1", NONE, CM_PP1, 0 },
		{ "§11.4: not at PP3", NONE, CM_PP3, 0 },
		{ "§11.4: not at PP5", NONE, CM_PP5, 0 },
		{ "§11.4: not with an enemy on the site", ENEMY, CM_PP2, 0 },
		{ "§11.4: not without a Tome", MISSING, CM_PP2, 0 },
		{ "§11.4: not from the street facing it", STREET, CM_PP2, 0 },
	};

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;

		row = rows[r].name;
		arena(&g, 2);
		take(&g, S(&g, 8, 0), CS_BYAKHEE);
		g.p[0].sq = (int16_t)S(&g, 7, 1);
		for (int t = 0; t < CTGAME_TYPES; t++)
			if (t != CT_TOME || rows[r].setup != MISSING)
				hold(&g, 0, t, 1);
		if (rows[r].setup == ENEMY)
			put(&g, S(&g, 6, 0), CS_CULTIST);
		if (rows[r].setup == STREET)
			g.p[0].sq = (int16_t)S(&g, 5, 1);
		give(&g, 0, CK_CHOPPER);
		if (rows[r].moment == CM_PP5)
			put(&g, S(&g, 8, 2), CS_CULTIST); /* §16.10 at PP5 */
		begin(&g, 0);
		drive(&g, stop_moment, rows[r].moment);
		EXPECT_EQ(opt_find(&g, CO_SANCTIFY, ANY) >= 0, rows[r].offered);
	}
}

/* §14 and §11.5: the game ends the instant the third site is sanctified or
 * activated; nothing further is resolved but the relics a defeat costs (B54). */
static void test_s11_third_site_ends_game_at_once(void **unused)
{
	struct ctgame g;
	int at;

	(void)unused;
	row = "§11: the third sanctification";
	sanctify_position(&g, 2);
	sanctified_by(&g, T(28), 1);
	sanctified_by(&g, T(29), 0);
	check(&g);
	begin(&g, 0);
	at = nlog;
	pick(&g, CA_PLAY, CO_SANCTIFY, ANY);
	EXPECT_EQ(nlog - 1, find_ev(at, CV_END, -1, CE_SAVED, ANY));
	EXPECT(find_ev(at, CV_SANCTIFY, 0, T(27), 3) >= 0);
	EXPECT(is_over(&g));
	EXPECT_EQ(g.end, CE_SAVED);
	EXPECT_EQ(ctgame_apply(&g, 0, NULL), GAME_EOVER);

	row = "§11: the third activation";
	summon_position(&g, 2);
	hold(&g, 0, CT_IDOL, 2);
	hold(&g, 0, CT_MEAD, 2);
	begin(&g, 0);
	EXPECT(find_ev(0, CV_ACTIVATE, 0, T(27), 3) == nlog - 1);
	pick(&g, CA_RELIC_LOSS, CO_TYPE, CT_IDOL); /* B54 */
	pick(&g, CA_RELIC_LOSS, CO_TYPE, CT_MEAD);
	EXPECT_EQ(nlog - 1, find_ev(0, CV_END, -1, CE_SUMMONED, ANY));
	EXPECT_EQ(g.end, CE_SUMMONED);
	EXPECT_EQ(g.activated, 3);
	EXPECT_EQ(count_ev(0, CV_RELIC_LOST, ANY, ANY, ANY), 2);
	EXPECT_EQ(g.p[0].relics[CT_IDOL] + g.p[0].relics[CT_MEAD], 2);
	EXPECT_EQ(g.p[0].start, 5);
	EXPECT(is_over(&g));
}

/* ---- C19: the round cap ---- */

static void test_c19_round_cap(void **unused)
{
	static const struct {
		int players, cap;
	} rows[] = { { 2, 1 }, { 3, 2 }, { 6, 1 } };

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;
		struct game_setup s = { .players = rows[r].players, .rounds = rows[r].cap };
		struct game_result res;

		row = "C19";
		assert_int_equal(ctgame_init(&g, &s), GAME_OK);
		nlog = 0;
		drive_to_end(&g);
		EXPECT_EQ(g.end, CE_CAPPED);
		EXPECT_EQ(g.round, rows[r].cap);
		EXPECT_EQ(g.turns, rows[r].players * rows[r].cap);
		EXPECT_EQ(count_ev(0, CV_TURN, ANY, ANY, ANY), rows[r].players * rows[r].cap);
		EXPECT_EQ(g.winners, 0);
		EXPECT(find_ev(0, CV_END, -1, CE_CAPPED, 0) == nlog - 1);
		ctgame_result(&g, &res);
		EXPECT_EQ(res.over, 1);
		EXPECT_EQ(res.winner, -1);
	}
}

/* ---- §17: the baseline policy ---- */

/* The option the baseline policy picks at the pending choice. */
static struct ctgame_option baseline_option(const struct ctgame *g)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	int n = ctgame_options(g, o), i;

	ctgame_step(g, &st);
	EXPECT_EQ(st.node, GAME_NODE_CHOICE);
	i = ctgame_policy_baseline(g, &st, NULL);
	EXPECT(i >= 0 && i < n);
	return o[i];
}

static void expect_baseline(const struct ctgame *g, int what, int arg)
{
	struct ctgame_option o = baseline_option(g);
	char buf[512];

	if (o.what != what || (arg != ANY && o.arg != arg)) {
		describe(g, buf, sizeof buf);
		fail_msg("%s: baseline chose %d/%d, expected %d/%d at %s", row, o.what, o.arg, what,
		         arg, buf);
	}
}

static void apply_baseline(struct ctgame *g)
{
	struct game_step st;

	ctgame_step(g, &st);
	apply(g, ctgame_policy_baseline(g, &st, NULL));
}

/* BP1: the tile option whose cell is nearest (Manhattan, in cells) the
 * pawn's cell, ties to the lowest number; tokens Alternate, hearts first;
 * a site's byakhee on its centre. */
static void test_bp1_tiles_tokens_site_byakhee(void **unused)
{
	struct ctgame g;
	struct ctmap_option o[CTMAP_OPTIONS_MAX];
	struct game_step st;
	int i, n;

	(void)unused;
	row = "BP1: the option nearest the pawn's cell";
	fresh(&g, 2);
	g.p[0].sq = (int16_t)S(&g, 4, 1); /* on T02, cell (1,0) */
	begin(&g, 0);
	draw_tile(&g, T(3));
	expect_choice(&g, CA_TILE);
	n = ctmap_options(&g.map, T(3), CTMAP_STRICT, o);
	EXPECT(n >= 2);
	EXPECT_EQ(o[0].tx, 0); /* (0,-1) comes first but is two cells away */
	EXPECT_EQ(o[0].ty, -1);
	ctgame_step(&g, &st);
	i = ctgame_policy_baseline(&g, &st, NULL);
	EXPECT_EQ(o[i].tx, 1);
	EXPECT_EQ(o[i].ty, -1);
	for (int j = 0; j < i; j++)
		EXPECT(!(o[j].tx == 1 && o[j].ty == -1));
	apply(&g, i);
	EXPECT_EQ(ctmap_at(&g.map, 1, -1), T(3));

	row = "BP1: tokens Alternate, hearts first";
	fresh(&g, 2);
	begin(&g, 0);
	draw_tile(&g, T(16));
	if (is_choice(&g, CA_TILE))
		apply_baseline(&g);
	expect_choice(&g, CA_TOKENS);
	apply_baseline(&g);
	{
		int k = 0;

		for (int l = 0; l < 9; l++) {
			int sq = T(16) * 9 + l;

			if (ctmap_square_kind(&g.map, sq) != CTMAP_INTERIOR)
				continue;
			EXPECT_EQ(g.square[sq] & (CS_HEART | CS_BULLET),
			          k % 2 ? CS_BULLET : CS_HEART);
			k++;
		}
		EXPECT_EQ(k, 4);
	}

	row = "BP1: a site's byakhee on the centre";
	fresh(&g, 2);
	begin(&g, 0);
	draw_tile(&g, T(26));
	if (is_choice(&g, CA_TILE))
		apply_baseline(&g);
	expect_choice(&g, CA_SITE_BYAKHEE);
	apply_baseline(&g);
	EXPECT_EQ(tile_mask(&g, T(26), CS_BYAKHEE), 1 << 4);
}

/* BP2: the Automatic card of lowest severity. */
static void test_bp2_automatic_lowest_severity(void **unused)
{
	struct ctgame g;

	(void)unused;
	row = "BP2";
	arena(&g, 2);
	give(&g, 0, CK_OMEN);     /* 7 */
	give(&g, 0, CK_JAMMED);   /* 1 */
	give(&g, 0, CK_WHISPERS); /* 3 */
	begin(&g, 0);
	expect_choice(&g, CA_AUTOMATIC);
	expect_baseline(&g, CO_CARD, CK_JAMMED);
}

/* BP3: the failed roll (Deadeye if it alone kills; Second Wind at one heart
 * short of bullets; bullets when enough and need <= 2 or one heart; else a
 * heart), the weapon (C11), and CS (Candle, Banishing Rite at <= 2 hearts,
 * Steady Nerves at s <= 2). */
static void test_bp3_combat_defaults(void **unused)
{
	static const struct {
		const char *name;
		int enemy, hearts, bullets, face, hand, first, what, arg;
	} failed[] = {
		{ "BP3: Deadeye when it alone kills", CS_CULTIST, 3, 3, 2, CK_DEADEYE, -1, CO_CARD,
		  CK_DEADEYE },
		{ "BP3: no Deadeye when 2 is not enough: a heart", CS_CULTIST, 3, 3, 1, CK_DEADEYE,
		  -1, CO_LOSE, 0 },
		{ "BP3: Second Wind at one heart without the bullets", CS_CULTIST, 1, 2, 1,
		  CK_SECONDWIND, -1, CO_CARD, CK_SECONDWIND },
		{ "BP3: bullets at one heart", CS_CULTIST, 1, 3, 1, CK_SECONDWIND, -1, CO_SPEND,
		  3 },
		{ "BP3: bullets when the need is 2", CS_CULTIST, 3, 2, 2, -1, -1, CO_SPEND, 2 },
		{ "BP3: a heart when the need is 3", CS_CULTIST, 3, 3, 1, -1, -1, CO_LOSE, 0 },
		{ "BP3: a heart against a byakhee, need 3", CS_BYAKHEE, 2, 3, 2, -1, -1, CO_LOSE,
		  0 },
		{ "BP3: a card already played this round: bullets", CS_CULTIST, 3, 3, 2, CK_DEADEYE,
		  CK_STASH, CO_SPEND, 2 },
	};
	/* clang-format off */
	static const struct {
		const char *name;
		int enemy, weapons[2], want;
	} weapons[] = {
		{ "C11: free and unlimited before limited",
		  CS_CULTIST, { CK_COACHGUN, CK_KNIFE },   CK_KNIFE },
		{ "C11: the Chopper last among equals",
		  CS_BYAKHEE, { CK_CHOPPER, CK_HARPOON },  CK_HARPOON },
		{ "C11: the highest bonus first",
		  CS_CULTIST, { CK_COACHGUN, CK_CHOPPER }, CK_CHOPPER },
		{ "C11: a weapon without bonus is not offered",
		  CS_BYAKHEE, { CK_KNIFE, CK_SWORDCANE },  CK_SWORDCANE },
	};
	/* clang-format on */
	static const struct {
		const char *name;
		int hearts, sanity, card, item, what, arg;
	} cs[] = {
		{ "BP3: CS, the Blessed Candle", 3, 5, -1, CK_CANDLE, CO_ITEM, CK_CANDLE },
		{ "BP3: CS, Banishing Rite at 2 hearts", 2, 5, CK_BANISH, -1, CO_CARD, CK_BANISH },
		{ "BP3: CS, no Banishing Rite at 3 hearts", 3, 5, CK_BANISH, -1, CO_PASS, 0 },
		{ "BP3: CS, Steady Nerves at s = 2", 3, 2, CK_NERVES, -1, CO_CARD, CK_NERVES },
		{ "BP3: CS, no Steady Nerves at s = 3", 3, 3, CK_NERVES, -1, CO_PASS, 0 },
	};

	(void)unused;
	for (size_t r = 0; r < COUNT(failed); r++) {
		struct ctgame g;

		row = failed[r].name;
		arena(&g, 2);
		set_hearts(&g, 0, failed[r].hearts);
		set_bullets(&g, 0, failed[r].bullets);
		if (failed[r].hand >= 0)
			give(&g, 0, failed[r].hand);
		if (failed[r].first >= 0)
			give(&g, 0, failed[r].first);
		put(&g, CHURCH, failed[r].enemy);
		begin(&g, 0);
		if (failed[r].first >= 0)
			pick(&g, CA_PLAY, CO_CARD, failed[r].first);
		if (failed[r].enemy == CS_BYAKHEE)
			roll(&g, CD_SANITY, 6);
		roll(&g, CD_COMBAT, failed[r].face);
		expect_choice(&g, CA_FAILED);
		expect_baseline(&g, failed[r].what,
		                failed[r].what == CO_LOSE ? ANY : failed[r].arg);
	}
	for (size_t r = 0; r < COUNT(weapons); r++) {
		struct ctgame g;
		int want = -1;

		row = weapons[r].name;
		arena(&g, 2);
		for (int i = 0; i < 2; i++) {
			int c = arm(&g, 0, weapons[r].weapons[i]);

			if (weapons[r].weapons[i] == weapons[r].want)
				want = c;
		}
		put(&g, CHURCH, weapons[r].enemy);
		begin(&g, 0);
		if (weapons[r].enemy == CS_BYAKHEE)
			roll(&g, CD_SANITY, 6);
		expect_choice(&g, CA_WEAPON);
		expect_baseline(&g, CO_WEAPON, want);
	}
	for (size_t r = 0; r < COUNT(cs); r++) {
		struct ctgame g;

		row = cs[r].name;
		arena(&g, 2);
		set_hearts(&g, 0, cs[r].hearts);
		set_sanity(&g, 0, cs[r].sanity, 5);
		if (cs[r].card >= 0)
			give(&g, 0, cs[r].card);
		if (cs[r].item >= 0)
			arm(&g, 0, cs[r].item);
		put(&g, CHURCH, CS_BYAKHEE);
		begin(&g, 0);
		expect_choice(&g, CA_PLAY);
		EXPECT_EQ(ctgame_moment(&g), CM_CS);
		expect_baseline(&g, cs[r].what, cs[r].what == CO_PASS ? ANY : cs[r].arg);
	}
}

/* BP4: play points and item uses. */
static void test_bp4_card_plays(void **unused)
{
	enum { ARENA, OPEN_MAP, COMPANY };
	/* clang-format off */
	static const struct {
		const char *name;
		int hand[3], inplay, hearts, bullets, sanity, map, moment, what, arg;
	} rows[] = {
		/* name, hand, in play, hearts, bullets, s, map, moment, choice */
		{ "BP4: PP1 Sanctuary Bells at 1 heart", { CK_BELLS, CK_KNIFE, -1 }, -1,
		  1, 3, 5, ARENA, CM_PP1, CO_CARD, CK_BELLS },
		{ "BP4: PP1 a weapon at 2 hearts", { CK_BELLS, CK_KNIFE, -1 }, -1,
		  2, 3, 5, ARENA, CM_PP1, CO_CARD, CK_KNIFE },
		{ "BP4: PP1 the lowest weapon kind not in play", { CK_COACHGUN, CK_KNIFE, -1 }, CK_KNIFE,
		  3, 3, 5, ARENA, CM_PP1, CO_CARD, CK_COACHGUN },
		{ "BP4: PP1 the lowest item", { CK_CANDLE, CK_SATCHEL, -1 }, -1,
		  5, 3, 5, ARENA, CM_PP1, CO_CARD, CK_SATCHEL },
		{ "BP4: PP2 Cartridge Stash at 2 bullets", { CK_STASH, CK_HYMN, CK_EYE }, -1,
		  3, 2, 4, ARENA, CM_PP2, CO_CARD, CK_STASH },
		{ "BP4: PP2 Hymn at Dawn below S", { CK_STASH, CK_HYMN, CK_EYE }, -1,
		  3, 3, 4, ARENA, CM_PP2, CO_CARD, CK_HYMN },
		{ "BP4: PP2 Surveyor's Notes with tiles to place", { CK_SURVEYOR, CK_EYE, -1 }, -1,
		  3, 3, 5, OPEN_MAP, CM_PP2, CO_CARD, CK_SURVEYOR },
		{ "BP4: PP2 Antiquarian's Eye", { CK_SURVEYOR, CK_EYE, -1 }, -1,
		  3, 3, 5, ARENA, CM_PP2, CO_CARD, CK_EYE },
		{ "BP4: never Elder Sign, Scatter or PvP", { CK_ELDERSIGN, CK_SCATTER, CK_BRAWL }, -1,
		  3, 3, 5, COMPANY, CM_PP1, CO_PASS, 0 },
		{ "BP4: never Borrowed Roadster", { CK_ROADSTER, -1, -1 }, -1,
		  3, 3, 5, ARENA, CM_PP3, CO_PASS, 0 },
		{ "BP4: Surgeon's Satchel at 2 hearts", { -1, -1, -1 }, CK_SATCHEL,
		  2, 3, 5, ARENA, CM_PP1, CO_ITEM, CK_SATCHEL },
		{ "BP4: no Satchel at 3 hearts", { -1, -1, -1 }, CK_SATCHEL,
		  3, 3, 5, ARENA, CM_PP1, CO_PASS, 0 },
		{ "BP4: Laudanum at s = 2", { -1, -1, -1 }, CK_LAUDANUM,
		  3, 3, 2, ARENA, CM_PP1, CO_ITEM, CK_LAUDANUM },
		{ "BP4: no Laudanum at s = 3", { -1, -1, -1 }, CK_LAUDANUM,
		  3, 3, 3, ARENA, CM_PP1, CO_PASS, 0 },
	};
	/* clang-format on */
	struct ctgame g;

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		row = rows[r].name;
		if (rows[r].map == OPEN_MAP)
			ring(&g, 2, RING_T27);
		else
			arena(&g, 2);
		if (rows[r].map == COMPANY)
			put(&g, S(&g, 1, 0), CS_CULTIST); /* Scatter is playable; seat 1 is here */
		set_hearts(&g, 0, rows[r].hearts);
		set_bullets(&g, 0, rows[r].bullets);
		set_sanity(&g, 0, rows[r].sanity, 5);
		for (int i = 0; i < 3; i++)
			if (rows[r].hand[i] >= 0)
				give(&g, 0, rows[r].hand[i]);
		if (rows[r].inplay >= 0)
			arm(&g, 0, rows[r].inplay);
		check(&g);
		begin(&g, 0);
		drive(&g, stop_moment, rows[r].moment);
		expect_baseline(&g, rows[r].what, rows[r].what == CO_PASS ? ANY : rows[r].arg);
	}

	row = "BP4: reaction windows: pass";
	arena(&g, 2);
	set_bullets(&g, 1, 0);
	give(&g, 1, CK_STASH);
	begin(&g, 0);
	drive(&g, stop_moment, CM_RW);
	EXPECT(opt_find(&g, CO_CARD, CK_STASH) >= 0);
	expect_baseline(&g, CO_PASS, ANY);
}

/* BP5: the movement target: (a) with all five types, the nearest
 * unresolved site's enemies or entrance; (b) at <= 2 hearts the nearest
 * heart token; (c) the nearest enemy; (d) stay. From T02's centre: T27's
 * entrance is 2 squares east, T26's 5 west, a cultist 2 north, a heart 2
 * south. */
static void test_bp5_movement_target(void **unused)
{
	enum { ALL_TYPES = 1, CULTIST = 2, HEART = 4, NO_SITE_ENEMIES = 8 };
	static const struct {
		const char *name;
		int flags, hearts, what, dir;
	} rows[] = {
		{ "BP5 (a): all five types: the nearest site", ALL_TYPES | CULTIST | HEART, 2,
		  CO_DIR, CTMAP_E },
		{ "BP5 (a): an empty site: its entrance", ALL_TYPES | NO_SITE_ENEMIES, 3, CO_DIR,
		  CTMAP_E },
		{ "BP5 (b): 2 hearts: the nearest heart", CULTIST | HEART, 2, CO_DIR, CTMAP_S },
		{ "BP5 (b): no heart token: (c)", CULTIST, 2, CO_DIR, CTMAP_N },
		{ "BP5 (c): the nearest enemy", CULTIST | HEART, 3, CO_DIR, CTMAP_N },
		{ "BP5 (d): nothing to go to: stay", NO_SITE_ENEMIES, 3, CO_STOP, 0 },
	};

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;
		int f = rows[r].flags;

		row = rows[r].name;
		arena(&g, 2);
		g.p[0].sq = (int16_t)S(&g, 4, 1);
		set_hearts(&g, 0, rows[r].hearts);
		if (f & ALL_TYPES)
			hold_all_types(&g, 0);
		if (f & CULTIST)
			put(&g, S(&g, 4, -1), CS_CULTIST);
		if (f & HEART)
			put(&g, S(&g, 4, 3), CS_HEART);
		if (f & NO_SITE_ENEMIES) {
			take(&g, S(&g, -3, 0), CS_BYAKHEE);
			take(&g, S(&g, 8, 0), CS_BYAKHEE);
		}
		begin(&g, 0);
		drive(&g, stop_die, CD_MOVE);
		roll(&g, CD_MOVE, 1);
		expect_choice(&g, CA_MOVE);
		expect_baseline(&g, rows[r].what, rows[r].what == CO_DIR ? rows[r].dir : ANY);
	}
}

/* BP6: sanctify whenever allowed. */
static void test_bp6_sanctify_whenever_allowed(void **unused)
{
	struct ctgame g;

	(void)unused;
	row = "BP6";
	sanctify_position(&g, 2);
	set_bullets(&g, 0, 2);
	give(&g, 0, CK_STASH); /* BP4 would play it at PP2 */
	begin(&g, 0);
	drive(&g, stop_moment, CM_PP2);
	expect_baseline(&g, CO_SANCTIFY, ANY);
}

/* BP7: enemies by the hunt policy (C13), B9's removal the earliest
 * activated site (see test_b09_forced_placement). */
static void test_bp7_enemies_by_hunt(void **unused)
{
	struct ctgame g;
	int nodes = 0;

	(void)unused;
	row = "BP7";
	arena(&g, 2);
	take(&g, S(&g, 8, 0), CS_BYAKHEE);
	g.p[1].sq = (int16_t)S(&g, 4, -2);
	put(&g, S(&g, 1, 3), CS_CULTIST);
	put(&g, S(&g, 4, 3), CS_CULTIST);
	put(&g, S(&g, 1, 0), CS_BYAKHEE);
	put(&g, S(&g, 4, 4), CS_BYAKHEE);
	begin(&g, 0);
	to_step8(&g, 6);
	while (is_choice(&g, CA_FIGURE) || is_choice(&g, CA_DEST) || is_choice(&g, CA_RESEED)) {
		struct game_step st;

		ctgame_step(&g, &st);
		EXPECT_EQ(ctgame_policy_baseline(&g, &st, NULL), ctgame_hunt(&g));
		apply(&g, ctgame_hunt(&g));
		nodes++;
	}
	EXPECT(nodes >= 7); /* two cultists, two byakhee, the re-seeding */
	EXPECT(find_ev(0, CV_ARRIVE, -1, S(&g, 6, 1), CS_CULTIST) >= 0);
}

/* BP8: card targets: the lowest seat. */
static void test_bp8_lowest_seat_target(void **unused)
{
	struct ctgame g;

	(void)unused;
	row = "BP8";
	arena(&g, 3);
	put(&g, S(&g, 4, 1), CS_BYAKHEE);
	give(&g, 0, CK_SENT);
	begin(&g, 0);
	pick(&g, CA_PLAY, CO_CARD, CK_SENT);
	expect_choice(&g, CA_TARGET);
	EXPECT_EQ(opt_count(&g, CO_SEAT), 2);
	expect_baseline(&g, CO_SEAT, 1);
}

/* BP9: relics lost on defeat one at a time from the type with the most
 * copies, ties in the order Amulet, Dagger, Idol, Space Mead, Tome. */
static void test_bp9_relics_lost_on_defeat(void **unused)
{
	static const int held[CTGAME_TYPES] = { 1, 3, 3, 0, 2 };
	static const int lost[4] = { CT_DAGGER, CT_IDOL, CT_DAGGER, CT_IDOL };
	struct ctgame g;
	int at = 0;

	(void)unused;
	row = "BP9";
	arena(&g, 2);
	for (int t = 0; t < CTGAME_TYPES; t++)
		hold(&g, 0, t, held[t]);
	set_hearts(&g, 0, 1);
	give(&g, 0, CK_OMEN);
	begin(&g, 0);
	for (int i = 0; i < 4; i++) {
		expect_choice(&g, CA_RELIC_LOSS);
		expect_baseline(&g, CO_TYPE, lost[i]);
		apply_baseline(&g);
		at = find_ev(at, CV_RELIC_LOST, 0, ANY, ANY);
		EXPECT(at >= 0);
		EXPECT_EQ(evlog[at].target / 16, lost[i]);
		at++;
	}
	EXPECT(!is_choice(&g, CA_RELIC_LOSS));
	EXPECT_EQ(g.p[0].relics[CT_AMULET], 1);
	EXPECT_EQ(g.p[0].relics[CT_DAGGER], 1);
	EXPECT_EQ(g.p[0].relics[CT_IDOL], 1);
	EXPECT_EQ(g.p[0].relics[CT_TOME], 2);
}

/* BP10: in step 11, with three cards or fewer, discard the Automatic of
 * highest severity if any, else nothing. */
static void test_bp10_step11_discard(void **unused)
{
	/* clang-format off */
	static const struct {
		const char *name;
		int kept, drawn[2], what, arg;
	} rows[] = {
		{ "BP10: no Automatic: nothing",    CK_KNIFE, { CK_STASH, CK_FOG },     CO_STOP, 0 },
		{ "BP10: the highest severity",     CK_KNIFE, { CK_WHISPERS, CK_OMEN }, CO_CARD, CK_OMEN },
		{ "BP10: a lone Automatic",         CK_KNIFE, { CK_JAMMED, CK_FOG },    CO_CARD, CK_JAMMED },
		{ "BP10: Wings (6) over Knock (5)", CK_FOG,   { CK_KNOCK, CK_WINGS },   CO_CARD, CK_WINGS },
	};
	/* clang-format on */

	(void)unused;
	for (size_t r = 0; r < COUNT(rows); r++) {
		struct ctgame g;

		row = rows[r].name;
		arena(&g, 2);
		give(&g, 0, rows[r].kept);
		begin(&g, 0);
		drive(&g, stop_chance, CTGAME_ROLL_CARD);
		for (int i = 0; i < 2; i++)
			draw_card(&g, card_to(&g, rows[r].drawn[i], CW_DECK));
		drive(&g, stop_ask, CA_DISCARD);
		EXPECT_EQ(g.p[0].hand, 3);
		expect_baseline(&g, rows[r].what, rows[r].what == CO_STOP ? ANY : rows[r].arg);
	}
}

/* ---- C13: the hunt policy ---- */

/* Applies the hunt policy's pick and returns the option it took. */
static struct ctgame_option hunt_apply(struct ctgame *g)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	int n = ctgame_options(g, o), i = ctgame_hunt(g);

	EXPECT(i >= 0 && i < n);
	apply(g, i);
	return o[i];
}

/* C13, cultists: the smallest (group, D, reading order), group 0 for
 * 0 < D < inf, 1 for D = inf (a cultist confined to a site), 2 for D = 0;
 * then the destination with the smallest (D, reading order). The target
 * is seat 1 on 4,-2. */
static void test_c13_hunt_cultists(void **unused)
{
	static const struct {
		int from[2], to[2];
	} moves[] = {
		{ { 4, 3 }, { 4, 1 } },   /* D 5 */
		{ { 1, 3 }, { 1, 1 } },   /* D 8 */
		{ { -2, 1 }, { -3, 0 } }, /* on T26: D infinite, reading order */
		{ { 4, -2 }, { 3, -2 } }, /* D 0 last */
	};
	struct ctgame g;

	(void)unused;
	row = "C13: cultists";
	arena(&g, 2);
	g.p[1].sq = (int16_t)S(&g, 4, -2);
	for (size_t i = 0; i < COUNT(moves); i++)
		put(&g, S(&g, moves[i].from[0], moves[i].from[1]), CS_CULTIST);
	begin(&g, 0);
	to_step8(&g, 4);
	for (size_t i = 0; i < COUNT(moves); i++) {
		struct ctgame_option o;

		if (i < COUNT(moves) - 1) {
			expect_choice(&g, CA_FIGURE);
			o = hunt_apply(&g);
			EXPECT_EQ(o.arg, S(&g, moves[i].from[0], moves[i].from[1]));
		}
		expect_choice(&g, CA_DEST);
		EXPECT_EQ(g.figure, S(&g, moves[i].from[0], moves[i].from[1]));
		o = hunt_apply(&g);
		EXPECT_EQ(o.arg, S(&g, moves[i].to[0], moves[i].to[1]));
	}

	row = "C13: with no other player left, the active player's pawn";
	arena(&g, 2);
	knock_out(&g, 1);
	put(&g, S(&g, 4, 1), CS_CULTIST);
	begin(&g, 0);
	to_step8(&g, 1);
	expect_choice(&g, CA_DEST);
	EXPECT_EQ(hunt_apply(&g).arg, S(&g, 2, 1));

	row = "C13: ... otherwise the others' pawns";
	arena(&g, 2);
	g.p[1].sq = (int16_t)S(&g, 4, -2);
	put(&g, S(&g, 4, 1), CS_CULTIST);
	begin(&g, 0);
	to_step8(&g, 1);
	expect_choice(&g, CA_DEST);
	EXPECT_EQ(hunt_apply(&g).arg, S(&g, 4, -1));
}

/* C13, byakhee: by (M, reading order), M the Manhattan distance to the
 * nearest target; each to the destination with the smallest (M, reading
 * order). */
static void test_c13_hunt_byakhee(void **unused)
{
	struct ctgame g;

	(void)unused;
	row = "C13: byakhee";
	arena(&g, 2);
	g.p[1].sq = (int16_t)S(&g, 4, -2);
	put(&g, S(&g, 4, 4), CS_BYAKHEE); /* M 6 */
	put(&g, S(&g, 1, 0), CS_BYAKHEE); /* M 5 */
	begin(&g, 0);
	to_step8(&g, 1);
	expect_choice(&g, CA_FIGURE);
	EXPECT_EQ(hunt_apply(&g).arg, S(&g, 1, 0));
	expect_choice(&g, CA_DEST);
	EXPECT_EQ(hunt_apply(&g).arg, S(&g, 2, -2)); /* M 2, before 4,0 in reading order */
	expect_choice(&g, CA_DEST);
	EXPECT_EQ(g.figure, S(&g, 4, 4));
	EXPECT_EQ(hunt_apply(&g).arg, S(&g, 4, 0));
}

/* C13, re-seeding: a cultist on the entrance, a byakhee there when no
 * cultist is left. */
static void test_c13_hunt_reseed(void **unused)
{
	struct ctgame g;
	struct ctmap_option o[CTMAP_OPTIONS_MAX];
	int entrance = -1;

	(void)unused;
	row = "C13: re-seeding with a cultist";
	arena(&g, 2);
	take(&g, S(&g, 8, 0), CS_BYAKHEE);
	begin(&g, 0);
	drive(&g, stop_ask, CA_RESEED);
	EXPECT_EQ(hunt_apply(&g).arg, S(&g, 6, 1));

	row = "C13: re-seeding with a byakhee";
	big_map(&g, 2, 0);
	EXPECT(ctmap_options(&g.map, T(26), CTMAP_STRICT, o) > 0);
	ctmap_place(&g.map, T(26), o[0], CTMAP_STRICT);
	for (int l = 0; l < 9; l++)
		if (ctmap_square_kind(&g.map, T(26) * 9 + l) == CTMAP_ENTRANCE)
			entrance = T(26) * 9 + l;
	park(&g, CS_CULTIST, 0);
	begin(&g, 0);
	drive(&g, stop_ask, CA_RESEED);
	EXPECT_EQ(hunt_apply(&g).arg, CTMAP_SQUARES + entrance);
	EXPECT(g.square[entrance] & CS_BYAKHEE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_b01_winner_most_vp_both_endings),
		cmocka_unit_test(test_b07_map_discard_and_reshuffle),
		cmocka_unit_test(test_b08_relief_placement),
		cmocka_unit_test(test_b09_forced_placement),
		cmocka_unit_test(test_b10_activated_site_face_down),
		cmocka_unit_test(test_b11_dealer_and_first_player),
		cmocka_unit_test(test_b12_church_and_t02_setup),
		cmocka_unit_test(test_b13_pawns_start_in_church),
		cmocka_unit_test(test_b14_fights_after_step_one),
		cmocka_unit_test(test_b15_step5_refills_to_three),
		cmocka_unit_test(test_b16_discard_is_last_act),
		cmocka_unit_test(test_b17_eliminated_turn_ends),
		cmocka_unit_test(test_b18_one_card_per_round_and_reaction_window),
		cmocka_unit_test(test_b19_movement_total_fixed),
		cmocka_unit_test(test_b20_token_collection),
		cmocka_unit_test(test_b21_elder_sign),
		cmocka_unit_test(test_b22_movement_ends_at_once),
		cmocka_unit_test(test_b23_bullets_exact_payment),
		cmocka_unit_test(test_b24_weapon_declared_each_roll),
		cmocka_unit_test(test_b25_one_sanity_check_per_fight),
		cmocka_unit_test(test_b26_no_leaving_a_fight),
		cmocka_unit_test(test_b27_gain_limited_by_supply),
		cmocka_unit_test(test_b28_sanity_capped_at_start),
		cmocka_unit_test(test_b29_zero_sanity_skips_checks),
		cmocka_unit_test(test_b30_insane_in_own_turn),
		cmocka_unit_test(test_b31_insane_outside_own_turn),
		cmocka_unit_test(test_b32_defeat_sets_three_and_three),
		cmocka_unit_test(test_b33_insanity_and_defeat_both_lower_start),
		cmocka_unit_test(test_b34_defeat_on_site_activates),
		cmocka_unit_test(test_b35_after_defeat_skip_fights_and_movement),
		cmocka_unit_test(test_b36_eliminated_sites_still_count),
		cmocka_unit_test(test_b37_everyone_eliminated),
		cmocka_unit_test(test_b38_token_kind_exhausted),
		cmocka_unit_test(test_b39_cultists_move_one_or_two),
		cmocka_unit_test(test_b40_cultists_never_pass_cultists),
		cmocka_unit_test(test_b41_byakhee_move_to_adjacent_tiles),
		cmocka_unit_test(test_b42_supply_exhausted),
		cmocka_unit_test(test_b43_card_figure_fallback),
		cmocka_unit_test(test_b44_reseeding_in_step_10),
		cmocka_unit_test(test_b45_sanctify_at_pp2_then_move),
		cmocka_unit_test(test_b46_pawns_evacuated),
		cmocka_unit_test(test_b47_automatic_only_in_step1_not_counted),
		cmocka_unit_test(test_b48_church_and_sites_not_named_buildings),
		cmocka_unit_test(test_b49_no_legal_effect_not_offered),
		cmocka_unit_test(test_b50_event_deck_refilled),
		cmocka_unit_test(test_b52_relic_deck_refilled_or_lost),
		cmocka_unit_test(test_b53_tie_breaks),
		cmocka_unit_test(test_b54_relics_lost_before_summoned_scoring),
		cmocka_unit_test(test_s14_scoring),
		cmocka_unit_test(test_s9_3_defeat_order),
		cmocka_unit_test(test_s9_4_elimination_returns_everything),
		cmocka_unit_test(test_s11_4_sanctify_conditions),
		cmocka_unit_test(test_s11_third_site_ends_game_at_once),
		cmocka_unit_test(test_c19_round_cap),
		cmocka_unit_test(test_bp1_tiles_tokens_site_byakhee),
		cmocka_unit_test(test_bp2_automatic_lowest_severity),
		cmocka_unit_test(test_bp3_combat_defaults),
		cmocka_unit_test(test_bp4_card_plays),
		cmocka_unit_test(test_bp5_movement_target),
		cmocka_unit_test(test_bp6_sanctify_whenever_allowed),
		cmocka_unit_test(test_bp7_enemies_by_hunt),
		cmocka_unit_test(test_bp8_lowest_seat_target),
		cmocka_unit_test(test_bp9_relics_lost_on_defeat),
		cmocka_unit_test(test_bp10_step11_discard),
		cmocka_unit_test(test_c13_hunt_cultists),
		cmocka_unit_test(test_c13_hunt_byakhee),
		cmocka_unit_test(test_c13_hunt_reseed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
