/* The map of CTHULHU!!!: each rule of shared/rules/cthulhu-boardgame.md §3
 * and §4 and each ruling (B3-B10, C10) by id, against hand-built maps, then
 * the map invariants of §16 over many random maps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/ctmap.h"
#include "rlyeh/rng.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char side_names[] = "NESW";

/* ---- building maps ---- */

/* "T05" -> 4. */
static int tile_of(const char *id)
{
	int n = 0;

	if (sscanf(id, "T%d", &n) != 1 || n < 1 || n > CTMAP_TILES)
		fail_msg("bad tile id '%s'", id);
	return n - 1;
}

/* Builds a map from ctmap_init by `script`, words separated by spaces:
 *   T05@2,0/1     place T05 at cell (2,0), one quarter turn, checked strict-legal first
 *   !T26@1,-1/0   place under B9, checked forced-legal first
 *   *T26@-1,-1/2  place without any check
 *   act:T26       activate (B10); sanct:T26, rm:T26 take a site off the map
 *   last:T05      every other unplaced tile leaves, so T05 is the last unplaced tile */
static void build(struct ctmap *m, const char *script)
{
	char word[32];
	int at = 0, len;

	ctmap_init(m);
	while (sscanf(script + at, "%31s%n", word, &len) == 1) {
		char id[8];
		int tx, ty, rot;

		at += len;
		if (sscanf(word, "act:%7s", id) == 1) {
			ctmap_activate(m, tile_of(id));
		} else if (sscanf(word, "sanct:%7s", id) == 1) {
			ctmap_remove(m, tile_of(id), CTMAP_SANCTIFIED);
		} else if (sscanf(word, "rm:%7s", id) == 1) {
			ctmap_remove(m, tile_of(id), CTMAP_REMOVED);
		} else if (sscanf(word, "last:%7s", id) == 1) {
			for (int t = 0; t < CTMAP_TILES; t++)
				if (t != tile_of(id) && m->where[t] == CTMAP_UNPLACED)
					m->where[t] = CTMAP_REMOVED;
		} else {
			const char *w = word + (word[0] == '!' || word[0] == '*');
			enum ctmap_mode mode = word[0] == '!' ? CTMAP_FORCED : CTMAP_STRICT;
			int t;

			if (sscanf(w, "T%d@%d,%d/%d", &t, &tx, &ty, &rot) != 4)
				fail_msg("bad script word '%s'", word);
			t--;
			if (word[0] != '*' && !ctmap_legal(m, t, rot, tx, ty, mode))
				fail_msg("%s: '%s' is not legal", script, word);
			ctmap_place(m, t,
			            (struct ctmap_option){ (int8_t)tx, (int8_t)ty, (uint8_t)rot },
			            mode);
		}
	}
}

/* The square at "gx,gy", or -1. */
static int square_at(const struct ctmap *m, const char *where)
{
	int gx, gy;

	if (sscanf(where, "%d,%d", &gx, &gy) != 2)
		fail_msg("bad square '%s'", where);
	return ctmap_find(m, gx, gy);
}

/* A bitmap of the squares "gx,gy gx,gy ...". */
static void square_set(const struct ctmap *m, const char *list, uint8_t *set)
{
	char word[16];
	int at = 0, len;

	memset(set, 0, CTMAP_BITMAP_BYTES);
	while (sscanf(list + at, "%15s%n", word, &len) == 1) {
		int sq = square_at(m, word);

		at += len;
		assert_true(sq >= 0);
		ctmap_bit_set(set, sq);
	}
}

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

/* Options as "tx,ty/rot ...". */
static void describe_options(const struct ctmap_option *o, int n, char *buf, size_t cap)
{
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		append(buf, cap, "%s%d,%d/%d", i ? " " : "", o[i].tx, o[i].ty, o[i].rot);
}

/* Open streets as "tx,ty:S ...". */
static void describe_streets(const struct ctmap *m, char *buf, size_t cap)
{
	struct ctmap_street st[4 * CTMAP_TILES];
	int n = ctmap_streets(m, st);

	assert_int_equal(ctmap_streets(m, NULL), n);
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		append(buf, cap, "%s%d,%d:%c", i ? " " : "", st[i].tx, st[i].ty,
		       side_names[st[i].side]);
}

/* Every edge of G (§3.3) is symmetric, joins squares one step apart in its
 * direction, and crosses a tile border only between two OPEN facing middles (B3). */
static void check_graph(const struct ctmap *m)
{
	static const int mid[4] = { 1, 5, 7, 3 };
	static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };

	for (int sq = 0; sq < CTMAP_SQUARES; sq++) {
		for (int d = 0; d < 4; d++) {
			int u = ctmap_step(m, sq, d);
			if (u < 0)
				continue;
			assert_true(ctmap_passable(m, sq) && ctmap_passable(m, u));
			assert_int_equal(ctmap_step(m, u, (d + 2) % 4), sq);
			assert_int_equal(ctmap_gx(m, u), ctmap_gx(m, sq) + dx[d]);
			assert_int_equal(ctmap_gy(m, u), ctmap_gy(m, sq) + dy[d]);
			if (u / 9 == sq / 9)
				continue;
			assert_int_equal(sq % 9, mid[d]);
			assert_int_equal(u % 9, mid[(d + 2) % 4]);
			assert_true(strchr(".D", ctmap_square_kind(m, sq)) != NULL);
			assert_true(strchr(".D", ctmap_square_kind(m, u)) != NULL);
		}
	}
}

#define MAP_T6 "T06@0,-1/2" /* a T-junction north of the Church, its wall to the north */
/* One open street left: T02's east side. */
#define MAP_ONE "T12@0,-1/1 T13@1,-1/2 T14@0,1/0 T18@1,1/3 T26@-1,0/3"
/* Two open streets left, both facing cell (1,-1). */
#define MAP_TWO    "T12@0,-1/1 T14@0,1/0 T18@1,1/3 T26@-1,0/3 T27@2,0/1"
#define MAP_CORNER "T12@0,-1/1" /* cell (1,-1) faces two open streets */
#define MAP_SITE   "T26@0,-1/0" /* a site north of the Church, entrance south */

/* ---- §4: the tiles ---- */

static void test_s4_tile_table(void **unused)
{
	static const struct {
		const char *exits; /* OPEN sides at 0° */
		int interior;      /* B and D squares */
		enum ctmap_class cls;
		const char *name;
	} want[CTMAP_TILES] = {
		{ "NESW", 1, CTMAP_CLASS_CHURCH, "The Church" },
		{ "NESW", 0, CTMAP_CLASS_ROAD, "Church Street Crossing" },
		{ "NESW", 0, CTMAP_CLASS_ROAD, "Harbour Crossroads" },
		{ "NESW", 0, CTMAP_CLASS_ROAD, "Market Crossroads" },
		{ "NESW", 0, CTMAP_CLASS_ROAD, "Mist Crossroads (dirt)" },
		{ "NEW", 0, CTMAP_CLASS_ROAD, "Fore Street Junction" },
		{ "NEW", 0, CTMAP_CLASS_ROAD, "Circle Court Junction" },
		{ "NEW", 0, CTMAP_CLASS_ROAD, "Back Street Junction" },
		{ "NS", 0, CTMAP_CLASS_ROAD, "Water Street" },
		{ "NS", 0, CTMAP_CLASS_ROAD, "Green Lane (dirt)" },
		{ "NS", 0, CTMAP_CLASS_ROAD, "Wharf Row" },
		{ "NE", 0, CTMAP_CLASS_ROAD, "Cliff Path Bend (dirt)" },
		{ "NE", 0, CTMAP_CLASS_ROAD, "Ship Street Bend" },
		{ "NE", 0, CTMAP_CLASS_ROAD, "Lantern Bend" },
		{ "EW", 2, CTMAP_CLASS_BUILDING, "Pharmacy" },
		{ "ES", 4, CTMAP_CLASS_BUILDING, "Burial Hill (dirt path)" },
		{ "ESW", 3, CTMAP_CLASS_BUILDING, "Congregational Hospital" },
		{ "NE", 3, CTMAP_CLASS_BUILDING, "Hall School" },
		{ "NS", 2, CTMAP_CLASS_BUILDING, "The Terrible Old Man's House" },
		{ "NW", 2, CTMAP_CLASS_BUILDING, "North Point Light" },
		{ "NESW", 1, CTMAP_CLASS_BUILDING, "Police Station" },
		{ "NES", 3, CTMAP_CLASS_BUILDING, "Ward's Chandlery" },
		{ "EW", 2, CTMAP_CLASS_BUILDING, "Historical Society" },
		{ "SW", 3, CTMAP_CLASS_BUILDING, "Crooked Anchor Tavern" },
		{ "NEW", 2, CTMAP_CLASS_BUILDING, "Strange High House" },
		{ "S", 9, CTMAP_CLASS_SITE, "Central Hill Crypt" },
		{ "S", 9, CTMAP_CLASS_SITE, "Carcosa Playhouse" },
		{ "S", 9, CTMAP_CLASS_SITE, "Drowned Chapel" },
		{ "S", 9, CTMAP_CLASS_SITE, "Standing Stones of Kingsport Head" },
		{ "S", 9, CTMAP_CLASS_SITE, "Lamplighter's Vault" },
	};
	int interiors = 0;

	(void)unused;
	assert_null(ctmap_tile(-1));
	assert_null(ctmap_tile(CTMAP_TILES));
	for (int t = 0; t < CTMAP_TILES; t++) {
		const struct ctmap_tile_info *info = ctmap_tile(t);
		char id[8], exits[5] = "";
		int interior = 0, n = 0, entrances = 0;

		snprintf(id, sizeof(id), "T%02d", t + 1);
		assert_string_equal(info->id, id);
		assert_string_equal(info->name, want[t].name);
		assert_int_equal(info->cls, want[t].cls);
		assert_int_equal(strlen(info->layout), 9);
		assert_int_equal(strspn(info->layout, ".BD#"), 9);
		for (int s = 0; s < 4; s++)
			if (ctmap_edge(t, 0, s))
				exits[n++] = side_names[s];
		for (int l = 0; l < 9; l++) {
			interior += info->layout[l] == 'B' || info->layout[l] == 'D';
			entrances += info->layout[l] == 'D';
		}
		if (strcmp(exits, want[t].exits) != 0)
			fail_msg("%s: exits %s, want %s", id, exits, want[t].exits);
		assert_int_equal(interior, want[t].interior);
		/* Only Ritual Sites have an entrance, the middle of the south side. */
		assert_int_equal(entrances, want[t].cls == CTMAP_CLASS_SITE);
		if (want[t].cls == CTMAP_CLASS_SITE)
			assert_int_equal(info->layout[7], 'D');
		if (want[t].cls == CTMAP_CLASS_BUILDING)
			interiors += interior;
	}
	/* §4: named interiors hold 27 squares. */
	assert_int_equal(interiors, 27);
	/* Shared layouts. */
	for (int t = 2; t <= 4; t++)
		assert_string_equal(ctmap_tile(t)->layout, ctmap_tile(1)->layout);
	assert_string_equal(ctmap_tile(6)->layout, ctmap_tile(5)->layout);
	assert_string_equal(ctmap_tile(10)->layout, ctmap_tile(8)->layout);
	assert_string_equal(ctmap_tile(13)->layout, ctmap_tile(11)->layout);
	for (int t = CTMAP_SITE_FIRST + 1; t < CTMAP_SITE_FIRST + CTMAP_SITES; t++)
		assert_string_equal(ctmap_tile(t)->layout, ctmap_tile(CTMAP_SITE_FIRST)->layout);
}

/* ---- §3.2: rotation and coordinates ---- */

static void test_s32_rotation(void **unused)
{
	static const struct {
		const char *what, *tile;
		int rot;
		const char *layout;
	} cases[] = {
		{ "corner: N E at 0°", "T12", 0, "#.##..###" },
		{ "corner: E S at 90°", "T12", 1, "####..#.#" },
		{ "corner: S W at 180°", "T12", 2, "###..##.#" },
		{ "corner: W N at 270°", "T12", 3, "#.#..####" },
		{ "T: N E S at 90°", "T06", 1, "#.##..#.#" },
		{ "site: entrance S at 0°", "T26", 0, "BBBBBBBDB" },
		{ "site: entrance W at 90°", "T26", 1, "BBBDBBBBB" },
		{ "site: entrance N at 180°", "T26", 2, "BDBBBBBBB" },
		{ "site: entrance E at 270°", "T30", 3, "BBBBBDBBB" },
		{ "straight: identical at 180°", "T09", 2, "#.##.##.#" },
		{ "named straight: E W at 90°", "T19", 1, "###...BB#" },
	};

	(void)unused;
	for (size_t i = 0; i < COUNT(cases); i++) {
		char got[10] = "";

		ctmap_layout(tile_of(cases[i].tile), cases[i].rot, got);
		if (memcmp(got, cases[i].layout, 9) != 0)
			fail_msg("%s: %s, want %s", cases[i].what, got, cases[i].layout);
	}
	/* R[r][c] = L[2-c][r] per turn; side s at 0° is side s + rot. */
	for (int t = 0; t < CTMAP_TILES; t++) {
		for (int rot = 0; rot < 4; rot++) {
			char a[9], b[9];

			ctmap_layout(t, rot, a);
			ctmap_layout(t, (rot + 1) % 4, b);
			for (int r = 0; r < 3; r++)
				for (int c = 0; c < 3; c++)
					assert_int_equal(b[r * 3 + c], a[(2 - c) * 3 + r]);
			for (int s = 0; s < 4; s++)
				assert_int_equal(ctmap_edge(t, rot, (s + rot) % 4),
				                 ctmap_edge(t, 0, s));
		}
	}
}

static void test_s32_coordinates(void **unused)
{
	static const struct {
		int gx, gy;
		const char *tile; /* NULL: no square there */
		int local;
	} cases[] = {
		{ 1, 1, "T01", 4 }, /* the Church interior */
		{ 0, 0, "T01", 0 },  { 2, 2, "T01", 8 },  { 3, 0, "T02", 0 },
		{ 5, 2, "T02", 8 },  { 6, 1, NULL, 0 }, /* east of T02: empty */
		{ -1, 1, "T03", 5 },                    /* gx = -1: tx = -1, c = 2 */
		{ -3, 1, "T03", 3 },                    /* gx = -3: tx = -1, c = 0 */
		{ -4, 1, NULL, 0 },                     /* gx = -4: tx = -2 */
		{ -1, -1, NULL, 0 },                    /* cell (-1,-1) */
		{ 1, -1, "T09", 7 }, { 1, -3, "T09", 1 }, { 0, -3, "T09", 0 },
		{ 1, -4, NULL, 0 },  { 91, 0, NULL, 0 },  { -92, -92, NULL, 0 },
	};
	struct ctmap m;

	(void)unused;
	build(&m, "T03@-1,0/0 T09@0,-1/0");
	for (size_t i = 0; i < COUNT(cases); i++) {
		int want = cases[i].tile ? tile_of(cases[i].tile) * 9 + cases[i].local : -1;
		int got = ctmap_find(&m, cases[i].gx, cases[i].gy);

		if (got != want)
			fail_msg("%d,%d: square %d, want %d", cases[i].gx, cases[i].gy, got, want);
	}
	/* Round trip over every square of the map. */
	for (int sq = 0; sq < CTMAP_SQUARES; sq++) {
		if (m.where[sq / 9] != CTMAP_PLACED)
			continue;
		assert_int_equal(ctmap_find(&m, ctmap_gx(&m, sq), ctmap_gy(&m, sq)), sq);
	}
	assert_int_equal(ctmap_gx(&m, 2 * 9 + 3), -3);
	assert_int_equal(ctmap_gy(&m, 8 * 9 + 1), -3);
	/* Reading order: gy, then gx. */
	assert_true(ctmap_cmp_reading(&m, square_at(&m, "1,-1"), square_at(&m, "-1,1")) < 0);
	assert_true(ctmap_cmp_reading(&m, square_at(&m, "-1,1"), square_at(&m, "0,1")) < 0);
	assert_true(ctmap_cmp_reading(&m, square_at(&m, "5,1"), square_at(&m, "0,1")) > 0);
	assert_int_equal(ctmap_cmp_reading(&m, 4, 4), 0);
	/* The cell grid. */
	assert_int_equal(ctmap_at(&m, 0, 0), CTMAP_CHURCH);
	assert_int_equal(ctmap_at(&m, 1, 0), CTMAP_SETUP);
	assert_int_equal(ctmap_at(&m, -1, 0), tile_of("T03"));
	assert_int_equal(ctmap_at(&m, 5, 5), -1);
	assert_int_equal(ctmap_at(&m, CTMAP_RADIUS + 1, 0), -1);
	assert_int_equal(ctmap_at(&m, 0, -CTMAP_RADIUS - 1), -1);
}

/* ---- §3.4: open streets ---- */

static void test_s34_open_streets(void **unused)
{
	static const struct {
		const char *what, *map, *streets;
	} cases[] = {
		{ "B12: the initial map has 6 open streets", "",
		  "0,0:N 0,0:S 0,0:W 1,0:N 1,0:E 1,0:S" },
		{ "reading order of cells, then N E S W", "T03@-1,0/0 T09@0,-1/0",
		  "0,-1:N -1,0:N -1,0:S -1,0:W 0,0:S 1,0:N 1,0:E 1,0:S" },
		{ "a corner joining two streets closes both", "T12@0,-1/1 T13@1,-1/2",
		  "0,0:S 0,0:W 1,0:E 1,0:S" },
		{ "a site closes the street its entrance faces", MAP_SITE,
		  "0,0:S 0,0:W 1,0:N 1,0:E 1,0:S" },
		{ "one street left", MAP_ONE, "1,0:E" },
		{ "two streets left", MAP_TWO, "0,-1:E 1,0:N" },
		{ "B9: a forced site's walls close the streets they face",
		  MAP_CORNER " !T26@1,-1/0", "0,0:S 0,0:W 1,0:E 1,0:S" },
		{ "B10: the street facing an activated site is a dead end", MAP_SITE " act:T26",
		  "0,0:S 0,0:W 1,0:N 1,0:E 1,0:S" },
		{ "§3.7: a sanctified site's street opens again", MAP_SITE " sanct:T26",
		  "0,0:N 0,0:S 0,0:W 1,0:N 1,0:E 1,0:S" },
		{ "B9: removing an activated site opens its street again",
		  MAP_SITE " act:T26 rm:T26", "0,0:N 0,0:S 0,0:W 1,0:N 1,0:E 1,0:S" },
	};

	(void)unused;
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct ctmap m;
		char got[512];

		build(&m, cases[i].map);
		describe_streets(&m, got, sizeof(got));
		if (strcmp(got, cases[i].streets) != 0)
			fail_msg("%s:\n  streets %s\n  want    %s", cases[i].what, got,
			         cases[i].streets);
	}
}

/* ---- §3.3: the movement graph ---- */

static void test_b3_movement_graph(void **unused)
{
	/* Two sites stacked west of two four-ways: their interiors touch along
	 * a wall, corners included. */
	static const char *const sites = "T03@0,-1/0 T04@0,-2/0 T26@-1,-1/3 T27@-1,-2/3";
	static const struct {
		const char *what, *map, *from;
		int dir;
		const char *to; /* NULL: no edge */
	} cases[] = {
		{ "facing middles of two OPEN sides are linked", "", "2,1", CTMAP_E, "3,1" },
		{ "and back", "", "3,1", CTMAP_W, "2,1" },
		{ "squares of one tile are linked", "", "1,1", CTMAP_N, "1,0" },
		{ "no edge into a blocked square", "", "1,0", CTMAP_E, NULL },
		{ "no edge out of a blocked square", "", "0,0", CTMAP_E, NULL },
		{ "an OPEN side facing an empty cell", "", "1,0", CTMAP_N, NULL },
		{ "B3: corner squares of neighbouring tiles are never linked", sites, "-3,-4",
		  CTMAP_S, NULL },
		{ "B3: the other corner", sites, "-1,-4", CTMAP_S, NULL },
		{ "B3: middles of two CLOSED sides are not linked", sites, "-2,-4", CTMAP_S, NULL },
		{ "interior squares of one site are linked", sites, "-3,-4", CTMAP_N, "-3,-5" },
		{ "an entrance is linked to the street it faces", sites, "-1,-2", CTMAP_E, "0,-2" },
		{ "street middles across a border", sites, "1,-4", CTMAP_S, "1,-3" },
		{ "B9: a forced site's wall middle is not linked to the street it faces",
		  MAP_CORNER " !T26@1,-1/0", "2,-2", CTMAP_E, NULL },
		{ "B9: ... seen from the site", MAP_CORNER " !T26@1,-1/0", "3,-2", CTMAP_W, NULL },
		{ "B9: a forced site's entrance is linked", MAP_CORNER " !T26@1,-1/0", "4,-1",
		  CTMAP_S, "4,0" },
	};

	(void)unused;
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct ctmap m;

		build(&m, cases[i].map);
		int from = square_at(&m, cases[i].from);
		int want = cases[i].to ? square_at(&m, cases[i].to) : -1;
		assert_true(from >= 0);
		int got = ctmap_step(&m, from, cases[i].dir);
		if (got != want)
			fail_msg("%s: step %s %c gives %d, want %d", cases[i].what, cases[i].from,
			         side_names[cases[i].dir], got, want);
		check_graph(&m);
	}
}

/* ---- §3.5: legal placement ---- */

struct legal_case {
	const char *what, *map, *tile;
	int rot, tx, ty;
	enum ctmap_mode mode;
	int want;
};

static void run_legal(const struct legal_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct legal_case *c = &cases[i];
		struct ctmap m;

		build(&m, c->map);
		int got = ctmap_legal(&m, tile_of(c->tile), c->rot, c->tx, c->ty, c->mode);
		if (got != c->want)
			fail_msg("%s: legal %d, want %d", c->what, got, c->want);
	}
}

static void test_b4_join_an_open_side(void **unused)
{
	static const struct legal_case cases[] = {
		{ "B4: a street joining an open street", "", "T03", 0, 0, -1, CTMAP_STRICT, 1 },
		{ "a street may not run into a wall", "", "T09", 1, 0, -1, CTMAP_STRICT, 0 },
		{ "a wall may not face an open street", "", "T06", 0, 0, -1, CTMAP_STRICT, 0 },
		{ "a street into T06's wall", MAP_T6, "T09", 0, 0, -2, CTMAP_STRICT, 0 },
		{ "B4: a tile touching only walls", MAP_T6, "T07", 0, 0, -2, CTMAP_STRICT, 0 },
		{ "B4: ... in relief mode too", MAP_T6, "T07", 0, 0, -2, CTMAP_RELIEF, 0 },
		{ "B4: joined on two sides (S W E)", MAP_T6, "T07", 2, 1, -1, CTMAP_STRICT, 1 },
		{ "B4: joined on two sides (W N S)", MAP_T6, "T07", 3, 1, -1, CTMAP_STRICT, 1 },
		{ "wall against T02's north street", MAP_T6, "T07", 0, 1, -1, CTMAP_STRICT, 0 },
		{ "wall against T06's east street", MAP_T6, "T07", 1, 1, -1, CTMAP_STRICT, 0 },
		{ "an occupied cell", "", "T03", 0, 1, 0, CTMAP_STRICT, 0 },
		{ "an empty cell far from the map", "", "T03", 0, 5, 5, CTMAP_STRICT, 0 },
		{ "a cell outside the grid", "", "T03", 0, CTMAP_RADIUS + 1, 0, CTMAP_RELIEF, 0 },
		{ "a cell outside the grid (negative)", "", "T03", 0, 0, -CTMAP_RADIUS - 1,
		  CTMAP_RELIEF, 0 },
	};

	(void)unused;
	run_legal(cases, COUNT(cases));
}

static void test_b5_site_entrance(void **unused)
{
	/* A site whose entrance faces the empty cell (-1,-2): not reachable in
	 * play, built without checks to reach the entrance-to-entrance test. */
	static const char *const open_entrance = "*T26@-1,-1/2";
	static const struct legal_case cases[] = {
		{ "B5: an entrance facing a street", "", "T26", 0, 0, -1, CTMAP_STRICT, 1 },
		{ "B5: an entrance facing a wall", MAP_T6, "T26", 0, 0, -2, CTMAP_STRICT, 0 },
		{ "B5: an entrance facing nothing, walls against walls", MAP_T6, "T26", 2, 0, -2,
		  CTMAP_STRICT, 0 },
		{ "B5: an entrance facing another site's entrance", open_entrance, "T27", 0, -1, -2,
		  CTMAP_STRICT, 0 },
		{ "B5: ... in relief mode too", open_entrance, "T27", 0, -1, -2, CTMAP_RELIEF, 0 },
		{ "a street facing a site's entrance", open_entrance, "T03", 0, -1, -2,
		  CTMAP_STRICT, 1 },
		{ "a site's wall facing an open street", "", "T26", 1, 0, -1, CTMAP_STRICT, 0 },
	};

	(void)unused;
	run_legal(cases, COUNT(cases));
}

static void test_b6_last_open_street(void **unused)
{
	static const struct legal_case cases[] = {
		{ "B6: a site closing the last open street", MAP_ONE, "T27", 1, 2, 0, CTMAP_STRICT,
		  0 },
		{ "B6: ... when it is the last unplaced tile", MAP_ONE " last:T27", "T27", 1, 2, 0,
		  CTMAP_STRICT, 1 },
		{ "B6: ... when another tile is the last unplaced one", MAP_ONE " last:T05", "T27",
		  1, 2, 0, CTMAP_STRICT, 0 },
		{ "a corner there opens a new street", MAP_ONE, "T20", 0, 2, 0, CTMAP_STRICT, 1 },
		{ "a straight there opens a new street", MAP_ONE, "T09", 1, 2, 0, CTMAP_STRICT, 1 },
		{ "B6: a corner closing the last two open streets", MAP_TWO, "T13", 2, 1, -1,
		  CTMAP_STRICT, 0 },
		{ "B6: ... when it is the last unplaced tile", MAP_TWO " last:T13", "T13", 2, 1, -1,
		  CTMAP_STRICT, 1 },
		{ "a T-junction there keeps a street open", MAP_TWO, "T06", 2, 1, -1, CTMAP_STRICT,
		  1 },
		{ "a site closing one of several open streets", "", "T26", 0, 0, -1, CTMAP_STRICT,
		  1 },
	};

	(void)unused;
	run_legal(cases, COUNT(cases));
}

static void test_b8_relief(void **unused)
{
	static const struct legal_case cases[] = {
		{ "B8: a site may close the last open street", MAP_ONE, "T27", 1, 2, 0,
		  CTMAP_RELIEF, 1 },
		{ "B8: relief mode is strict without the last-street test", MAP_TWO, "T13", 2, 1,
		  -1, CTMAP_RELIEF, 1 },
		{ "B8: the sides must still match", MAP_ONE, "T27", 0, 2, 0, CTMAP_RELIEF, 0 },
		{ "B8: the tile must still join a street", MAP_ONE, "T27", 1, 3, 0, CTMAP_RELIEF,
		  0 },
	};

	(void)unused;
	run_legal(cases, COUNT(cases));
}

static void test_b9_forced(void **unused)
{
	static const struct legal_case legal[] = {
		{ "B9: entrance towards T02's north street, wall against T12's street", MAP_CORNER,
		  "T26", 0, 1, -1, CTMAP_FORCED, 1 },
		{ "B9: ... not legal in strict mode", MAP_CORNER, "T26", 0, 1, -1, CTMAP_STRICT,
		  0 },
		{ "B9: ... nor in relief mode", MAP_CORNER, "T26", 0, 1, -1, CTMAP_RELIEF, 0 },
		{ "B9: entrance towards T12's east street", MAP_CORNER, "T26", 1, 1, -1,
		  CTMAP_FORCED, 1 },
		{ "B9: entrance towards an empty cell", MAP_CORNER, "T26", 2, 1, -1, CTMAP_FORCED,
		  0 },
		{ "B9: an occupied cell", MAP_CORNER, "T26", 0, 0, -1, CTMAP_FORCED, 0 },
		{ "B9: entrance towards an activated site", MAP_SITE " act:T26", "T27", 0, 0, -2,
		  CTMAP_FORCED, 0 },
	};
	static const struct {
		const char *what, *map, *options;
	} cases[] = {
		{ "B9: one option per open street", "", "0,-1/0 1,-1/0 -1,0/3 2,0/1 0,1/2 1,1/2" },
		{ "B9: other sides ignored; two options at one cell", MAP_CORNER,
		  "1,-1/0 1,-1/1 -1,0/3 2,0/1 0,1/2 1,1/2" },
		{ "B9: the last open street", MAP_ONE, "2,0/1" },
		{ "B9: a dead end facing an activated site offers nothing", MAP_SITE " act:T26",
		  "1,-1/0 -1,0/3 2,0/1 0,1/2 1,1/2" },
		{ "B9: an open street whose middle is an entrance offers nothing", "*T26@-1,-1/2",
		  "0,-1/0 1,-1/0 -1,0/3 2,0/1 0,1/2 1,1/2" },
		{ "B9: no open street, no option", MAP_ONE " !T27@2,0/1", "" },
	};

	(void)unused;
	run_legal(legal, COUNT(legal));
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct ctmap m;
		struct ctmap_option o[CTMAP_OPTIONS_MAX];
		char got[512];

		build(&m, cases[i].map);
		int n = ctmap_options(&m, tile_of("T28"), CTMAP_FORCED, o);
		assert_int_equal(ctmap_options(&m, tile_of("T28"), CTMAP_FORCED, NULL), n);
		describe_options(o, n, got, sizeof(got));
		if (strcmp(got, cases[i].options) != 0)
			fail_msg("%s:\n  options %s\n  want    %s", cases[i].what, got,
			         cases[i].options);
		for (int k = 0; k < n; k++)
			assert_true(ctmap_legal(&m, tile_of("T28"), o[k].rot, o[k].tx, o[k].ty,
			                        CTMAP_FORCED));
	}

	/* A forced placement is recorded as such. */
	struct ctmap m;
	build(&m, MAP_CORNER " !T26@1,-1/0");
	assert_int_equal(m.forced[tile_of("T26")], 1);
	assert_int_equal(m.forced[tile_of("T12")], 0);
	assert_int_equal(m.where[tile_of("T26")], CTMAP_PLACED);
}

static void test_b10_activated_site(void **unused)
{
	const int site = tile_of("T26");
	struct ctmap m;
	int16_t sq[CTMAP_SQUARES], dist[CTMAP_SQUARES];

	(void)unused;
	build(&m, MAP_SITE);
	int north = square_at(&m, "1,0");
	int entrance = square_at(&m, "1,-1");
	assert_int_equal(entrance, site * 9 + 7);
	assert_int_equal(ctmap_step(&m, north, CTMAP_N), entrance);
	assert_int_equal(ctmap_squares(&m, sq), 19);
	assert_int_equal(ctmap_open(&m, site, CTMAP_S), 1);
	assert_int_equal(ctmap_open(&m, site, CTMAP_N), 0);
	assert_int_equal(ctmap_square_kind(&m, entrance), 'D');

	ctmap_activate(&m, site);
	assert_int_equal(m.where[site], CTMAP_ACTIVATED);
	/* B10: closed on every side, no passable squares, the street a dead end. */
	for (int s = 0; s < 4; s++)
		assert_int_equal(ctmap_open(&m, site, s), 0);
	for (int l = 0; l < 9; l++) {
		assert_int_equal(ctmap_square_kind(&m, site * 9 + l), CTMAP_BLOCKED);
		assert_int_equal(ctmap_passable(&m, site * 9 + l), 0);
		for (int d = 0; d < 4; d++)
			assert_int_equal(ctmap_step(&m, site * 9 + l, d), -1);
	}
	assert_int_equal(ctmap_step(&m, north, CTMAP_N), -1);
	assert_int_equal(ctmap_find(&m, 1, -1), -1);
	assert_int_equal(ctmap_squares(&m, sq), 10);
	assert_int_equal(ctmap_streets(&m, NULL), 5);
	ctmap_distances(&m, 4, NULL, -1, dist);
	for (int l = 0; l < 9; l++)
		assert_int_equal(dist[site * 9 + l], -1);
	/* The cell stays occupied. */
	assert_int_equal(ctmap_at(&m, 0, -1), site);
	assert_int_equal(ctmap_legal(&m, tile_of("T03"), 0, 0, -1, CTMAP_RELIEF), 0);
	struct ctmap_option o[CTMAP_OPTIONS_MAX];
	int n = ctmap_options(&m, tile_of("T03"), CTMAP_STRICT, o);
	char got[512];
	describe_options(o, n, got, sizeof(got));
	assert_string_equal(got, "-1,0/0 2,0/0 0,1/0 1,1/0");
	check_graph(&m);

	/* An OPEN side facing an activated site does not match (built without
	 * checks: an activated entrance facing an empty cell). */
	build(&m, "*T26@-1,-1/2");
	assert_int_equal(ctmap_legal(&m, tile_of("T03"), 0, -1, -2, CTMAP_STRICT), 1);
	ctmap_activate(&m, site);
	assert_int_equal(ctmap_legal(&m, tile_of("T03"), 0, -1, -2, CTMAP_STRICT), 0);
	assert_int_equal(ctmap_legal(&m, tile_of("T03"), 0, -1, -2, CTMAP_RELIEF), 0);
}

static void test_s37_site_leaves_the_map(void **unused)
{
	static const enum ctmap_where leave[] = { CTMAP_SANCTIFIED, CTMAP_REMOVED };
	const int site = tile_of("T26");

	(void)unused;
	for (size_t i = 0; i < COUNT(leave); i++) {
		struct ctmap m;
		struct ctmap_option o[CTMAP_OPTIONS_MAX];
		char got[512];

		build(&m, MAP_SITE);
		if (leave[i] == CTMAP_REMOVED)
			ctmap_activate(&m, site);
		ctmap_remove(&m, site, leave[i]);
		assert_int_equal(m.where[site], leave[i]);
		assert_int_equal(ctmap_at(&m, 0, -1), -1);
		assert_int_equal(m.tx[site], 0);
		assert_int_equal(m.ty[site], -1);
		assert_int_equal(ctmap_find(&m, 1, -1), -1);
		assert_int_equal(ctmap_step(&m, square_at(&m, "1,0"), CTMAP_N), -1);
		assert_int_equal(ctmap_streets(&m, NULL), 6);
		/* Any unplaced tile may be placed there again. */
		int n = ctmap_options(&m, tile_of("T03"), CTMAP_STRICT, o);
		describe_options(o, n, got, sizeof(got));
		assert_string_equal(got, "0,-1/0 1,-1/0 -1,0/0 2,0/0 0,1/0 1,1/0");
		assert_int_equal(ctmap_legal(&m, tile_of("T27"), 0, 0, -1, CTMAP_STRICT), 1);
	}
}

/* ---- §3.5: options ---- */

static void test_s35_options(void **unused)
{
	static const struct {
		const char *what, *map, *tile;
		enum ctmap_mode mode;
		const char *options;
	} cases[] = {
		{ "a four-way has one option per cell", "", "T03", CTMAP_STRICT,
		  "0,-1/0 1,-1/0 -1,0/0 2,0/0 0,1/0 1,1/0" },
		{ "a straight at 0 and 180 is one option", "", "T09", CTMAP_STRICT,
		  "0,-1/0 1,-1/0 -1,0/1 2,0/1 0,1/0 1,1/0" },
		{ "order (ty, tx, rot)", "", "T06", CTMAP_STRICT,
		  "0,-1/1 0,-1/2 0,-1/3 1,-1/1 1,-1/2 1,-1/3 -1,0/0 -1,0/1 -1,0/2 "
		  "2,0/0 2,0/2 2,0/3 0,1/0 0,1/1 0,1/3 1,1/0 1,1/1 1,1/3" },
		{ "a corner joining one street: two options", MAP_ONE, "T12", CTMAP_STRICT,
		  "2,0/2 2,0/3" },
		{ "a T joining one street: three options", MAP_ONE, "T08", CTMAP_STRICT,
		  "2,0/0 2,0/2 2,0/3" },
		{ "a straight joining one street: one option", MAP_ONE, "T11", CTMAP_STRICT,
		  "2,0/1" },
		{ "a named straight is not symmetric: two options", MAP_ONE, "T19", CTMAP_STRICT,
		  "2,0/1 2,0/3" },
		{ "the Police Station is not symmetric: four options", MAP_ONE, "T21", CTMAP_STRICT,
		  "2,0/0 2,0/1 2,0/2 2,0/3" },
		{ "B6: no strict option for a site closing the last street", MAP_ONE, "T28",
		  CTMAP_STRICT, "" },
		{ "B6: ... unless it is the last unplaced tile", MAP_ONE " last:T28", "T28",
		  CTMAP_STRICT, "2,0/1" },
		{ "B8: a relief option", MAP_ONE, "T28", CTMAP_RELIEF, "2,0/1" },
		{ "B6: the corner closing both streets is no strict option", MAP_TWO, "T14",
		  CTMAP_STRICT, "" },
		{ "B8: it is a relief option", MAP_TWO, "T14", CTMAP_RELIEF, "1,-1/2" },
		{ "a site at every street", "", "T29", CTMAP_STRICT,
		  "0,-1/0 1,-1/0 -1,0/3 2,0/1 0,1/2 1,1/2" },
		{ "a cell faced by two streets is listed once", MAP_TWO, "T03", CTMAP_STRICT,
		  "1,-1/0" },
	};

	(void)unused;
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct ctmap m;
		struct ctmap_option o[CTMAP_OPTIONS_MAX];
		char got[1024];
		int t = tile_of(cases[i].tile);

		build(&m, cases[i].map);
		int n = ctmap_options(&m, t, cases[i].mode, o);
		assert_int_equal(ctmap_options(&m, t, cases[i].mode, NULL), n);
		describe_options(o, n, got, sizeof(got));
		if (strcmp(got, cases[i].options) != 0)
			fail_msg("%s:\n  options %s\n  want    %s", cases[i].what, got,
			         cases[i].options);
		for (int k = 0; k < n; k++)
			assert_true(ctmap_legal(&m, t, o[k].rot, o[k].tx, o[k].ty, cases[i].mode));
	}
}

/* ---- squares, distances and C10 ---- */

static void test_s33_squares(void **unused)
{
	static const struct {
		const char *map, *squares;
	} cases[] = {
		{ "", "1,0 4,0 0,1 1,1 2,1 3,1 4,1 5,1 1,2 4,2" },
		{ "T03@-1,0/0 T12@0,-1/1",
		  "1,-2 2,-2 1,-1 -2,0 1,0 4,0 -3,1 -2,1 -1,1 0,1 1,1 2,1 3,1 4,1 5,1 -2,2 1,2 "
		  "4,2" },
	};

	(void)unused;
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct ctmap m;
		int16_t sq[CTMAP_SQUARES];
		char got[1024] = "";

		build(&m, cases[i].map);
		int n = ctmap_squares(&m, sq);
		for (int k = 0; k < n; k++)
			append(got, sizeof(got), "%s%d,%d", k ? " " : "", ctmap_gx(&m, sq[k]),
			       ctmap_gy(&m, sq[k]));
		if (strcmp(got, cases[i].squares) != 0)
			fail_msg("squares %s\n  want %s", got, cases[i].squares);
	}
}

static void test_s33_distances(void **unused)
{
	static const struct {
		const char *what, *from, *walls, *confine, *to;
		int want;
	} cases[] = {
		{ "along G", "1,1", "", NULL, "5,1", 4 },
		{ "into a site", "1,1", "", NULL, "0,-3", 5 },
		{ "a blocked square", "1,1", "", NULL, "0,0", -1 },
		{ "the start", "1,1", "", NULL, "1,1", 0 },
		{ "a wall cuts the only way", "1,1", "2,1", NULL, "5,1", -1 },
		{ "a wall elsewhere", "1,1", "2,1", NULL, "0,-3", 5 },
		{ "a detour around a wall", "1,-1", "1,-2", NULL, "1,-3", 4 },
		{ "the start may be in the wall", "2,1", "2,1", NULL, "5,1", 3 },
		{ "confined to the site", "1,-1", "", "T26", "0,-3", 3 },
		{ "confined: the street outside", "1,-1", "", "T26", "1,0", -1 },
		{ "confined to the Church", "1,1", "", "T01", "2,1", 1 },
		{ "confined: T02 is out", "1,1", "", "T01", "3,1", -1 },
	};

	(void)unused;
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct ctmap m;
		uint8_t wall[CTMAP_BITMAP_BYTES];
		int16_t dist[CTMAP_SQUARES];

		build(&m, MAP_SITE);
		square_set(&m, cases[i].walls, wall);
		int confine = cases[i].confine ? tile_of(cases[i].confine) : -1;
		ctmap_distances(&m, square_at(&m, cases[i].from), wall, confine, dist);
		int got = dist[square_at(&m, cases[i].to)];
		if (got != cases[i].want)
			fail_msg("%s: distance %d, want %d", cases[i].what, got, cases[i].want);
		/* Walls are never entered. */
		for (int sq = 0; sq < CTMAP_SQUARES; sq++)
			if (ctmap_bit(wall, sq) && sq != square_at(&m, cases[i].from))
				assert_int_equal(dist[sq], -1);
	}

	/* From a square outside G, nothing is reachable. */
	struct ctmap m;
	int16_t dist[CTMAP_SQUARES];
	build(&m, "");
	ctmap_distances(&m, 0, NULL, -1, dist);
	for (int sq = 0; sq < CTMAP_SQUARES; sq++)
		assert_int_equal(dist[sq], -1);
	ctmap_distances(&m, tile_of("T03") * 9 + 4, NULL, -1, dist);
	for (int sq = 0; sq < CTMAP_SQUARES; sq++)
		assert_int_equal(dist[sq], -1);
}

static void test_c10_route(void **unused)
{
	static const struct {
		const char *what, *from, *to, *enemies;
		int limit;
		const char *want; /* directions, or "-" for none */
	} cases[] = {
		{ "C10: the shortest path", "1,1", "5,1", "", -1, "EEEE" },
		{ "C10: within the points", "1,1", "5,1", "", 4, "EEEE" },
		{ "C10: beyond the points", "1,1", "5,1", "", 3, "-" },
		{ "C10: N < E < S < W among equal paths", "1,1", "0,-3", "", -1, "NNNNW" },
		{ "C10: fewest enemy squares entered", "1,1", "0,-3", "1,-2", -1, "NNWNN" },
		{ "C10: equal enemies fall back to N < E < S < W", "1,1", "0,-3", "1,-2 0,-2", -1,
		  "NNNNW" },
		{ "C10: the destination does not count", "1,1", "0,-3", "0,-3", -1, "NNNNW" },
		{ "C10: unavoidable enemies", "1,1", "0,-3", "1,0 1,-1", -1, "NNNNW" },
		{ "C10: the start does not count", "1,-1", "0,-3", "1,-1", -1, "NNW" },
		{ "C10: the shortest before the fewest enemies", "1,-1", "1,-3", "1,-2", -1, "NN" },
		{ "C10: ... even when a longer path is within the points", "1,-1", "1,-3", "1,-2",
		  10, "NN" },
		{ "C10: fewest enemies, then E before S", "1,-3", "2,-1", "2,-3", -1, "SES" },
		{ "C10: E before S", "1,-3", "2,-2", "", -1, "ES" },
		{ "C10: S before W", "2,-3", "1,-2", "", -1, "SW" },
		{ "no move", "1,1", "1,1", "", 0, "" },
		{ "a blocked destination", "1,1", "0,0", "", -1, "-" },
		{ "a blocked start", "0,0", "1,1", "", -1, "-" },
	};

	(void)unused;
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct ctmap m;
		uint8_t enemy[CTMAP_BITMAP_BYTES], dirs[CTMAP_SQUARES];
		char got[64] = "";

		build(&m, MAP_SITE);
		square_set(&m, cases[i].enemies, enemy);
		int from = square_at(&m, cases[i].from), to = square_at(&m, cases[i].to);
		int n = ctmap_route(&m, from, to, enemy, cases[i].limit, dirs);
		if (n < 0)
			strcpy(got, "-");
		for (int k = 0; k < n; k++) {
			got[k] = side_names[dirs[k]];
			got[k + 1] = '\0';
		}
		if (strcmp(got, cases[i].want) != 0)
			fail_msg("%s: route %s, want %s", cases[i].what, got, cases[i].want);
		/* The directions lead there along G. */
		for (int k = 0, sq = from; k < n; k++) {
			sq = ctmap_step(&m, sq, dirs[k]);
			assert_true(sq >= 0);
			if (k == n - 1)
				assert_int_equal(sq, to);
		}
	}

	/* Squares of an activated site are unreachable. */
	struct ctmap m;
	uint8_t dirs[CTMAP_SQUARES];
	build(&m, MAP_SITE " act:T26");
	assert_int_equal(ctmap_route(&m, 4, tile_of("T26") * 9 + 7, NULL, -1, dirs), -1);
	/* Without enemies the bitmap may be NULL. */
	assert_int_equal(ctmap_route(&m, 4, square_at(&m, "4,2"), NULL, 5, dirs), 4);
}

/* ---- §16 invariant 9 over random maps ---- */

static int count_placed(const struct ctmap *m)
{
	int n = 0;

	for (int t = 0; t < CTMAP_TILES; t++)
		n += m->where[t] == CTMAP_PLACED;
	return n;
}

/* §16.9: G connected; adjacent tiles match, except walls of activated
 * sites and of sites placed under B9; every option is legal and every
 * legal (cell, rotation) near the map is an option or merged into one. */
static void check_map(const struct ctmap *m, struct rng *rng)
{
	static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };
	int16_t sq[CTMAP_SQUARES], dist[CTMAP_SQUARES];
	int n = ctmap_squares(m, sq), passable = 0;

	check_graph(m);
	for (int s = 0; s < CTMAP_SQUARES; s++) {
		passable += ctmap_passable(m, s);
		if (m->where[s / 9] == CTMAP_PLACED)
			assert_int_equal(ctmap_find(m, ctmap_gx(m, s), ctmap_gy(m, s)), s);
	}
	assert_int_equal(n, passable);
	for (int k = 1; k < n; k++)
		assert_true(ctmap_cmp_reading(m, sq[k - 1], sq[k]) < 0);
	ctmap_distances(m, 4, NULL, -1, dist);
	for (int k = 0; k < n; k++)
		assert_true(dist[sq[k]] >= 0);

	for (int t = 0; t < CTMAP_TILES; t++) {
		if (m->where[t] != CTMAP_PLACED && m->where[t] != CTMAP_ACTIVATED)
			continue;
		assert_int_equal(ctmap_at(m, m->tx[t], m->ty[t]), t);
		for (int s = 0; s < 4; s++) {
			int u = ctmap_at(m, m->tx[t] + dx[s], m->ty[t] + dy[s]);
			if (u < 0 || m->where[t] == CTMAP_ACTIVATED ||
			    m->where[u] == CTMAP_ACTIVATED || m->forced[t] || m->forced[u])
				continue;
			assert_int_equal(ctmap_open(m, t, s), ctmap_open(m, u, (s + 2) % 4));
		}
	}

	/* A route between two random squares is as long as their distance. */
	int a = sq[rng_below(rng, (uint32_t)n)], b = sq[rng_below(rng, (uint32_t)n)];
	uint8_t dirs[CTMAP_SQUARES];
	ctmap_distances(m, a, NULL, -1, dist);
	assert_int_equal(ctmap_route(m, a, b, NULL, -1, dirs), dist[b]);

	int lo_x = 0, hi_x = 0, lo_y = 0, hi_y = 0;
	for (int t = 0; t < CTMAP_TILES; t++) {
		if (m->where[t] != CTMAP_PLACED && m->where[t] != CTMAP_ACTIVATED)
			continue;
		lo_x = m->tx[t] < lo_x ? m->tx[t] : lo_x;
		hi_x = m->tx[t] > hi_x ? m->tx[t] : hi_x;
		lo_y = m->ty[t] < lo_y ? m->ty[t] : lo_y;
		hi_y = m->ty[t] > hi_y ? m->ty[t] : hi_y;
	}
	int tile = (int)rng_below(rng, CTMAP_TILES);
	for (enum ctmap_mode mode = CTMAP_STRICT; mode <= CTMAP_FORCED; mode++) {
		struct ctmap_option o[CTMAP_OPTIONS_MAX];
		int no = ctmap_options(m, tile, mode, o), legal = 0;
		for (int k = 0; k < no; k++) {
			assert_true(ctmap_legal(m, tile, o[k].rot, o[k].tx, o[k].ty, mode));
			if (k > 0)
				assert_true(o[k - 1].ty < o[k].ty ||
				            (o[k - 1].ty == o[k].ty && o[k - 1].tx < o[k].tx) ||
				            (o[k - 1].ty == o[k].ty && o[k - 1].tx == o[k].tx &&
				             o[k - 1].rot < o[k].rot));
		}
		for (int ty = lo_y - 1; ty <= hi_y + 1; ty++) {
			for (int tx = lo_x - 1; tx <= hi_x + 1; tx++) {
				for (int rot = 0; rot < 4; rot++) {
					char lay[9], prev[9];
					int merged = 0;
					ctmap_layout(tile, rot, lay);
					for (int r = 0; r < rot && !merged; r++) {
						ctmap_layout(tile, r, prev);
						merged = memcmp(lay, prev, 9) == 0;
					}
					if (!merged && ctmap_legal(m, tile, rot, tx, ty, mode))
						legal++;
				}
			}
		}
		assert_int_equal(legal, no);
	}
}

/* A random option of `tile`, or with `tight` the one leaving the fewest open
 * streets (the first of those), to drive maps into B8 and B9. */
static struct ctmap_option pick_option(const struct ctmap *m, int tile, enum ctmap_mode mode,
                                       const struct ctmap_option *o, int n, int tight,
                                       struct rng *rng)
{
	int best = (int)rng_below(rng, (uint32_t)n), fewest = 1 << 30;

	for (int k = 0; tight && k < n; k++) {
		struct ctmap after = *m;
		ctmap_place(&after, tile, o[k], mode);
		int streets = ctmap_streets(&after, NULL);
		if (streets < fewest) {
			fewest = streets;
			best = k;
		}
	}
	return o[best];
}

/* §3.6 with random choices: strict options, then relief sites (B8), then
 * forced sites (B9, removing an activated site first when no street is
 * left); sites on the map are activated or sanctified now and then. Odd
 * games are tight: a short deck, sites last, options closing streets. */
static void test_s16_random_maps(void **unused)
{
	int relief = 0, forced = 0, removed = 0;

	(void)unused;
	for (int game = 0; game < 300; game++) {
		struct ctmap m;
		struct rng rng;

		rng_seed_stream(&rng, 2024, (uint64_t)game);
		ctmap_init(&m);
		/* Tight games play a short deck: few streets are left for the sites. */
		for (int t = CTMAP_SETUP + 1; t < CTMAP_SITE_FIRST && game & 1; t++)
			if (rng_below(&rng, 8) != 0)
				m.where[t] = CTMAP_REMOVED;
		for (;;) {
			struct ctmap_option o[CTMAP_OPTIONS_MAX];
			int cand[CTMAP_TILES], nc = 0, t, n;
			enum ctmap_mode mode = CTMAP_STRICT;
			int unplaced = 0;

			for (t = 0; t < CTMAP_TILES; t++)
				unplaced += m.where[t] == CTMAP_UNPLACED;
			if (unplaced == 0)
				break;
			for (t = 0; t < CTMAP_TILES; t++)
				if (m.where[t] == CTMAP_UNPLACED &&
				    ctmap_options(&m, t, mode, NULL) > 0)
					cand[nc++] = t;
			if (nc == 0) {
				mode = CTMAP_RELIEF;
				for (t = CTMAP_SITE_FIRST; t < CTMAP_TILES; t++)
					if (m.where[t] == CTMAP_UNPLACED &&
					    ctmap_options(&m, t, mode, NULL) > 0)
						cand[nc++] = t;
			}
			if (nc == 0) {
				mode = CTMAP_FORCED;
				for (t = CTMAP_SITE_FIRST; t < CTMAP_TILES; t++)
					if (m.where[t] == CTMAP_UNPLACED)
						cand[nc++] = t;
				if (nc > 0 && ctmap_options(&m, cand[0], mode, NULL) == 0) {
					for (t = CTMAP_SITE_FIRST; t < CTMAP_TILES; t++)
						if (m.where[t] == CTMAP_ACTIVATED)
							break;
					if (t == CTMAP_TILES)
						break;
					ctmap_remove(&m, t, CTMAP_REMOVED);
					removed++;
				}
			}
			if (nc == 0)
				break;
			/* Tight games keep the sites for last. */
			int plain = 0;
			while (game & 1 && plain < nc && cand[plain] < CTMAP_SITE_FIRST)
				plain++;
			t = cand[rng_below(&rng, (uint32_t)(plain ? plain : nc))];
			n = ctmap_options(&m, t, mode, o);
			if (n == 0)
				break;
			int last = unplaced == 1;
			ctmap_place(&m, t, pick_option(&m, t, mode, o, n, game & 1, &rng), mode);
			relief += mode == CTMAP_RELIEF;
			forced += mode == CTMAP_FORCED;
			/* §16.9: a strict placement leaves a street open unless it was the last
			 * tile. */
			if (mode == CTMAP_STRICT && !last)
				assert_true(ctmap_streets(&m, NULL) > 0);
			for (int s = CTMAP_SITE_FIRST; s < CTMAP_TILES; s++) {
				if (m.where[s] != CTMAP_PLACED)
					continue;
				uint32_t roll = rng_below(&rng, game & 1 ? 8 : 4);
				if (roll == 0)
					ctmap_activate(&m, s);
				else if (roll == 1)
					ctmap_remove(&m, s, CTMAP_SANCTIFIED);
			}
			check_map(&m, &rng);
		}
		assert_true(count_placed(&m) >= 2);
	}
	/* The rare paths were walked. */
	assert_true(relief > 0);
	assert_true(forced > 0);
	assert_true(removed > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_s4_tile_table),
		cmocka_unit_test(test_s32_rotation),
		cmocka_unit_test(test_s32_coordinates),
		cmocka_unit_test(test_s34_open_streets),
		cmocka_unit_test(test_b3_movement_graph),
		cmocka_unit_test(test_b4_join_an_open_side),
		cmocka_unit_test(test_b5_site_entrance),
		cmocka_unit_test(test_b6_last_open_street),
		cmocka_unit_test(test_b8_relief),
		cmocka_unit_test(test_b9_forced),
		cmocka_unit_test(test_b10_activated_site),
		cmocka_unit_test(test_s37_site_leaves_the_map),
		cmocka_unit_test(test_s35_options),
		cmocka_unit_test(test_s33_squares),
		cmocka_unit_test(test_s33_distances),
		cmocka_unit_test(test_c10_route),
		cmocka_unit_test(test_s16_random_maps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
