/* The map pictures of CTHULHU!!! (ctpicture.c): positions reached by playing
 * seeded games, drawn as PNG and as text and compared with the golden files
 * in tests/golden/board (BOARD_UPDATE=1 rewrites them), then the things
 * C5, C6 and C9 ask the picture to show, checked on its pixels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <cmocka.h>

#include "rlyeh/ctpicture.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A pixel "differs" when one of its channels is off by more than TOL_CHANNEL,
 * and two pictures match when at most TOL_PERMILLE / 1000 of their pixels
 * differ. The tolerance is for text only: glyphs are rasterised by the
 * machine's FreeType and DejaVu fonts, whose versions move antialiased edge
 * pixels (by more than a few levels, sometimes by a pixel). Fills, lines and
 * marks are drawn by cairo alone and do not move; a square of the wrong kind
 * (48 x 48 = 2304 pixels) or a missing tile already exceeds the tolerance on
 * these pictures, and the pixel checks below catch the small things (a
 * pawn, a mark) that could hide inside it. */
#define TOL_CHANNEL  24
#define TOL_PERMILLE 5

/* Colours of ctpicture.h. */
#define C_STREET    0xd9d0bfu
#define C_INTERIOR  0xc48a45u
#define C_BLOCKED   0x66745au
#define C_ACTIVATED 0x2b2236u
#define C_CULTIST   0x4b1650u
#define C_BYAKHEE   0x0b4f4fu
#define C_HEART     0xe0245eu
#define C_BULLET    0xc9a227u
#define C_REACH     0xffd400u
#define C_TARGET    0xff00ffu
#define C_OPTION    0x2040c0u
#define C_ARROW     0x333333u

static const uint32_t seat_rgb[CTGAME_MAX] = {
	0xd62728u, 0x1f5fbfu, 0x2ca02cu, 0xff8c00u, 0x9c4fd6u, 0x8c564bu,
};

/* ---- positions ---- */

enum marks_kind {
	M_NONE,
	M_OPTIONS, /* the drawn tile's options, the baseline's pick previewed */
	M_REACH,   /* the squares in reach, the last of them as the target */
};

struct position {
	const char *name;
	uint64_t seed;
	int players;
	int values; /* values applied from the start */
	int ask;    /* the choice node expected there (enum ctgame_ask); 0: a chance node */
	enum marks_kind marks;
};

static const struct position positions[] = {
	{ .name = "start", .seed = 1, .players = 6, .values = 0, .marks = M_NONE },
	{ .name = "mid", .seed = 1, .players = 3, .values = 402, .ask = CA_MOVE, .marks = M_NONE },
	{ .name = "place",
	  .seed = 7,
	  .players = 3,
	  .values = 74,
	  .ask = CA_TILE,
	  .marks = M_OPTIONS },
	{ .name = "reach",
	  .seed = 7,
	  .players = 3,
	  .values = 166,
	  .ask = CA_MOVE,
	  .marks = M_REACH },
};

/* The players' names in the legends of the goldens. */
static const char *const golden_names[CTGAME_MAX] = {
	"alice", "bob", "carol", "dave", "eve", "Frank with a name too long for the legend",
};

/* A position and its marks (which point into it). */
struct scene {
	struct ctgame g;
	struct ctpicture_marks mk;
	struct ctmap_option opt[CTMAP_OPTIONS_MAX];
	int16_t reach[CTMAP_SQUARES];
};

/* Plays p->seed: chance values from one stream seeded with it, choices from
 * the baseline policy on the same stream, p->values values in all. */
static void play(const struct position *p, struct scene *sc)
{
	struct game_setup setup = { .players = p->players, .rounds = 200 };
	struct game_step step;
	struct rng rng;

	memset(sc, 0, sizeof(*sc));
	assert_int_equal(ctgame_init(&sc->g, &setup), GAME_OK);
	rng_seed(&rng, p->seed);
	for (int i = 0; i < p->values; i++) {
		int v;

		ctgame_step(&sc->g, &step);
		if (step.node == GAME_NODE_OVER)
			fail_msg("%s: the game ended after %d values", p->name, i);
		if (step.node == GAME_NODE_CHANCE)
			v = (int)rng_below(&rng, (uint32_t)step.count);
		else
			v = ctgame_policy_baseline(&sc->g, &step, &rng);
		assert_int_equal(ctgame_apply(&sc->g, v, NULL), GAME_OK);
	}
	ctgame_step(&sc->g, &step);
	if (p->ask)
		assert_true(step.node == GAME_NODE_CHOICE && step.kind == p->ask);
	else
		assert_int_equal(step.node, GAME_NODE_CHANCE);

	ctpicture_marks_init(&sc->mk);
	for (int s = 0; s < CTGAME_MAX; s++)
		sc->mk.names[s] = golden_names[s];
	if (p->marks == M_OPTIONS) {
		struct ctgame_option o[CTGAME_OPTIONS];
		int v = ctgame_policy_baseline(&sc->g, &step, &rng);

		assert_int_equal(ctgame_options(&sc->g, o), step.count);
		sc->mk.tile = sc->g.aux;
		sc->mk.options = sc->opt;
		sc->mk.n_options =
		    ctmap_options(&sc->g.map, sc->g.aux, (enum ctmap_mode)sc->g.tile_mode, sc->opt);
		assert_int_equal(sc->mk.n_options, step.count);
		assert_int_equal(o[v].what, CO_TILE);
		sc->mk.preview = o[v].arg;
	} else if (p->marks == M_REACH) {
		sc->mk.reach = sc->reach;
		sc->mk.n_reach = ctgame_reachable(&sc->g, sc->reach);
		assert_true(sc->mk.n_reach > 1);
		sc->mk.target = sc->reach[sc->mk.n_reach - 1];
	}
}

/* ---- files ---- */

static int updating(void)
{
	const char *u = getenv("BOARD_UPDATE");

	return u && strcmp(u, "1") == 0;
}

static void golden_path(char *path, size_t n, const char *name)
{
	const char *dir = getenv("GOLDEN_DIR");

	snprintf(path, n, "%s/board/%s", dir ? dir : "tests/golden", name);
}

static char *slurp(const char *name, size_t *len)
{
	char path[1024];
	FILE *f;
	char *buf;
	long size;

	golden_path(path, sizeof(path), name);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s (BOARD_UPDATE=1 writes it)", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	assert_true(size >= 0);
	assert_int_equal(fseek(f, 0, SEEK_SET), 0);
	buf = malloc((size_t)size + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
	buf[size] = '\0';
	fclose(f);
	*len = (size_t)size;
	return buf;
}

static void spill(const char *name, const void *data, size_t len)
{
	char path[1024];
	FILE *f;

	golden_path(path, sizeof(path), name);
	f = fopen(path, "wb");
	if (!f)
		fail_msg("cannot write %s", path);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	print_message("wrote %s\n", path);
}

/* ---- pixels ---- */

struct reader {
	const unsigned char *p;
	size_t len, at;
};

static cairo_status_t read_mem(void *closure, unsigned char *data, unsigned int n)
{
	struct reader *r = closure;

	if (n > r->len - r->at)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(data, r->p + r->at, n);
	r->at += n;
	return CAIRO_STATUS_SUCCESS;
}

static cairo_surface_t *decode(const unsigned char *png, size_t len)
{
	struct reader r = { png, len, 0 };
	cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_mem, &r);

	assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
	return s;
}

static cairo_surface_t *render(const struct scene *sc, const struct ctpicture_marks *mk)
{
	unsigned char *png;
	size_t len;
	cairo_surface_t *s;

	assert_int_equal(ctpicture_png(&sc->g, mk, &png, &len), 0);
	assert_non_null(png);
	assert_true(len > 8 && memcmp(png, "\x89PNG", 4) == 0);
	s = decode(png, len);
	free(png);
	return s;
}

static uint32_t pixel(cairo_surface_t *s, int x, int y)
{
	const unsigned char *row;

	assert_true(x >= 0 && x < cairo_image_surface_get_width(s));
	assert_true(y >= 0 && y < cairo_image_surface_get_height(s));
	row =
	    cairo_image_surface_get_data(s) + (size_t)y * (size_t)cairo_image_surface_get_stride(s);
	return ((const uint32_t *)(const void *)row)[x] & 0xffffffu;
}

static int channel_off(uint32_t a, uint32_t b, int shift)
{
	int d = (int)((a >> shift) & 0xff) - (int)((b >> shift) & 0xff);

	return d < 0 ? -d : d;
}

static int near(uint32_t a, uint32_t b, int tol)
{
	return channel_off(a, b, 16) <= tol && channel_off(a, b, 8) <= tol &&
	       channel_off(a, b, 0) <= tol;
}

/* Pixels that differ (see TOL_CHANNEL); -1 when the sizes differ. */
static long differing(cairo_surface_t *a, cairo_surface_t *b)
{
	int w = cairo_image_surface_get_width(a), h = cairo_image_surface_get_height(a);
	long n = 0;

	cairo_surface_flush(a);
	cairo_surface_flush(b);
	if (w != cairo_image_surface_get_width(b) || h != cairo_image_surface_get_height(b))
		return -1;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			n += !near(pixel(a, x, y), pixel(b, x, y), TOL_CHANNEL);
	return n;
}

/* 1 when the pictures match within the tolerance. */
static int matches(cairo_surface_t *a, cairo_surface_t *b)
{
	long n = differing(a, b);
	long all = (long)cairo_image_surface_get_width(a) * cairo_image_surface_get_height(a);

	return n >= 0 && n * 1000 <= all * TOL_PERMILLE;
}

/* Where square (gx, gy) is; fails when it is not in the picture. */
struct spot {
	double x, y, side;
};

static struct spot locate(const struct scene *sc, const struct ctpicture_marks *mk, int gx, int gy)
{
	struct spot s;

	assert_int_equal(ctpicture_locate(&sc->g, mk, gx, gy, &s.x, &s.y, &s.side), 0);
	return s;
}

/* The colour at a point given in sides of the square from its centre. */
static uint32_t at(cairo_surface_t *img, struct spot s, double fx, double fy)
{
	return pixel(img, (int)(s.x + fx * s.side), (int)(s.y + fy * s.side));
}

/* Pixels of the square within 8 levels of `c`. */
static int count_colour(cairo_surface_t *img, struct spot s, uint32_t c)
{
	int n = 0, h = (int)(s.side / 2);

	for (int y = (int)s.y - h; y < (int)s.y + h; y++)
		for (int x = (int)s.x - h; x < (int)s.x + h; x++)
			n += near(pixel(img, x, y), c, 8);
	return n;
}

static struct spot square_spot(const struct scene *sc, int sq)
{
	return locate(sc, &sc->mk, ctmap_gx(&sc->g.map, sq), ctmap_gy(&sc->g.map, sq));
}

/* The centre of the pixels of the square within 8 levels of `c`; returns
 * how many there are. */
static int centroid(cairo_surface_t *img, struct spot s, uint32_t c, double *cx, double *cy)
{
	int n = 0, h = (int)(s.side / 2);
	double sx = 0, sy = 0;

	for (int y = (int)s.y - h; y < (int)s.y + h; y++) {
		for (int x = (int)s.x - h; x < (int)s.x + h; x++) {
			if (near(pixel(img, x, y), c, 8)) {
				n++;
				sx += x;
				sy += y;
			}
		}
	}
	*cx = n ? sx / n : 0;
	*cy = n ? sy / n : 0;
	return n;
}

/* Every pawn on the board is a disc of its seat's colour on its square: a
 * lone pawn at the square's centre, pawns sharing a square in seat order,
 * left to right and top to bottom (ctpicture.h). Returns the most pawns
 * sharing a square. */
static int check_pawns(cairo_surface_t *img, const struct scene *sc)
{
	const struct ctgame *g = &sc->g;
	int most = 0;

	for (int s = 0; s < g->n; s++) {
		int sq = g->p[s].sq, n = 0, first = 1;
		double px = 0, py = 0;

		for (int o = 0; o < s; o++)
			first &= g->p[o].sq != sq;
		if (sq < 0 || !first)
			continue;
		for (int o = s; o < g->n; o++) {
			double x, y;

			if (g->p[o].sq != sq)
				continue;
			if (centroid(img, square_spot(sc, sq), seat_rgb[o], &x, &y) < 60)
				fail_msg("seat %d's pawn is not visible", o + 1);
			if (n > 0 && !(y > py + 4 || (y > py - 4 && x > px + 4)))
				fail_msg("seat %d's pawn is not after the one before it", o + 1);
			px = x;
			py = y;
			n++;
		}
		/* a lone pawn without figures: its colour below the seat number,
		 * inside the disc */
		if (n == 1 && !g->square[sq] &&
		    !near(at(img, square_spot(sc, sq), 0, 0.15), seat_rgb[s], 2))
			fail_msg("seat %d's pawn is not at the centre of its square", s + 1);
		most = n > most ? n : most;
	}
	return most;
}

/* C5: an arrow (dark grey) just outside the middle of every open side. */
static void check_streets(cairo_surface_t *img, const struct scene *sc)
{
	static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };
	static const int mid[4] = { 1, 5, 7, 3 }; /* the side's middle square */
	struct ctmap_street st[4 * CTMAP_TILES];
	int n = ctmap_streets(&sc->g.map, st);

	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		int side = st[i].side, l = mid[side];
		struct spot m;
		double out = 0.5 + 8.0 / CTPICTURE_SQUARE; /* 8 pixels past the edge */

		if (ctpicture_locate(&sc->g, &sc->mk, 3 * st[i].tx + l % 3, 3 * st[i].ty + l / 3,
		                     &m.x, &m.y, &m.side) < 0)
			continue; /* cropped away */

		if (!near(at(img, m, dx[side] * out, dy[side] * out), C_ARROW, 2))
			fail_msg("no arrow on side %d of cell %d,%d", side, st[i].tx, st[i].ty);
	}
}

/* Dark pixels (text) in the rectangle [x0, x1) x [y0, y1). */
static int ink(cairo_surface_t *img, int x0, int y0, int x1, int y1)
{
	int n = 0;

	for (int y = y0; y < y1; y++)
		for (int x = x0; x < x1; x++)
			n += (pixel(img, x, y) & 0x808080u) == 0;
	return n;
}

/* C5: a label above and below every column, left and right of every row
 * shown (in the bands outside the arrows' reach: above the map 19 pixels
 * high, beside it 38 wide, scaled), nothing beyond them; ctpicture_area names
 * the same squares. */
static void check_axes(cairo_surface_t *img, const struct scene *sc, int gx0, int gx1, int gy0,
                       int gy1)
{
	int w, h, ax0, ay0, ax1, ay1;
	struct spot first = locate(sc, &sc->mk, gx0, gy0), last = locate(sc, &sc->mk, gx1, gy1);
	double k = first.side / CTPICTURE_SQUARE;
	int bottom = (int)(last.y + last.side / 2 + 16 * k),
	    right = (int)(last.x + last.side / 2 + 16 * k);

	ctpicture_area(&sc->g, &sc->mk, &ax0, &ay0, &ax1, &ay1, &w, &h);
	assert_int_equal(w, cairo_image_surface_get_width(img));
	assert_int_equal(h, cairo_image_surface_get_height(img));
	assert_true(ax0 == gx0 && ax1 == gx1 && ay0 == gy0 && ay1 == gy1);
	for (int gx = gx0; gx <= gx1; gx++) {
		struct spot s = locate(sc, &sc->mk, gx, gy0);
		int x0 = (int)(s.x - s.side / 2), x1 = (int)(s.x + s.side / 2);

		if (ink(img, x0, 0, x1, (int)(19 * k)) < 4 ||
		    ink(img, x0, bottom, x1, bottom + (int)(19 * k)) < 4)
			fail_msg("column %d has no label", gx);
	}
	for (int gy = gy0; gy <= gy1; gy++) {
		struct spot s = locate(sc, &sc->mk, gx0, gy);
		int y0 = (int)(s.y - s.side / 2), y1 = (int)(s.y + s.side / 2);

		if (ink(img, 0, y0, (int)(38 * k), y1) < 4 ||
		    ink(img, right, y0, right + (int)(38 * k), y1) < 4)
			fail_msg("row %d has no label", gy);
	}
	/* and nothing beyond them */
	assert_int_equal(ctpicture_locate(&sc->g, &sc->mk, gx1 + 1, gy0, &(double){ 0 },
	                                  &(double){ 0 }, &(double){ 0 }),
	                 -1);
	assert_int_equal(ctpicture_locate(&sc->g, &sc->mk, gx0, gy0 - 1, &(double){ 0 },
	                                  &(double){ 0 }, &(double){ 0 }),
	                 -1);
}

/* check_axes over what ctpicture_area says the picture shows. */
static void check_area_axes(cairo_surface_t *img, const struct scene *sc)
{
	int gx0, gy0, gx1, gy1, w, h;

	ctpicture_area(&sc->g, &sc->mk, &gx0, &gy0, &gx1, &gy1, &w, &h);
	check_axes(img, sc, gx0, gx1, gy0, gy1);
}

/* ---- the goldens ---- */

static void check_png(const struct position *p, const struct scene *sc)
{
	char name[64];
	unsigned char *png, *want;
	size_t len, wantlen;
	cairo_surface_t *got, *golden;

	snprintf(name, sizeof(name), "%s.png", p->name);
	assert_int_equal(ctpicture_png(&sc->g, &sc->mk, &png, &len), 0);
	if (updating())
		spill(name, png, len);
	want = (unsigned char *)slurp(name, &wantlen);
	got = decode(png, len);
	golden = decode(want, wantlen);
	if (!matches(got, golden))
		fail_msg("%s: %ld pixels differ from the golden (tolerance %d per mille)", name,
		         differing(got, golden), TOL_PERMILLE);
	cairo_surface_destroy(got);
	cairo_surface_destroy(golden);
	free(want);
	free(png);
}

static void check_text(const struct position *p, const struct scene *sc, const char *lang)
{
	char name[64], buf[1 << 16];
	char *want;
	size_t wantlen;
	int n = ctpicture_text(&sc->g, &sc->mk, lang, buf, sizeof(buf));

	assert_true(n > 0);
	assert_int_equal((size_t)n, strlen(buf));
	snprintf(name, sizeof(name), "%s.%s.txt", p->name, lang);
	if (updating())
		spill(name, buf, (size_t)n);
	want = slurp(name, &wantlen);
	assert_string_equal(buf, want);
	free(want);
}

static void goldens(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < COUNT(positions); i++) {
		struct scene *sc = malloc(sizeof(*sc));

		assert_non_null(sc);
		play(&positions[i], sc);
		check_png(&positions[i], sc);
		check_text(&positions[i], sc, "en");
		check_text(&positions[i], sc, "nl");
		free(sc);
	}
}

/* A golden of another position, or of the same position with other marks,
 * must not match: the comparison can fail. */
static void goldens_can_fail(void **unused)
{
	struct scene *mid = malloc(sizeof(*mid)), *reach = malloc(sizeof(*reach));
	cairo_surface_t *a, *b, *c;
	struct ctpicture_marks none;
	char buf[1 << 16];
	char *want;
	size_t len;

	(void)unused;
	assert_non_null(mid);
	assert_non_null(reach);
	play(&positions[1], mid);
	play(&positions[3], reach);
	ctpicture_marks_init(&none);
	a = render(mid, &mid->mk);
	b = render(reach, &reach->mk);
	c = render(reach, &none);
	assert_true(matches(a, a));
	assert_false(matches(a, b));
	assert_false(matches(b, c)); /* the same map without its reach marks */

	want = slurp("mid.en.txt", &len);
	assert_true(ctpicture_text(&reach->g, &reach->mk, "en", buf, sizeof(buf)) > 0);
	assert_string_not_equal(buf, want);
	free(want);
	want = slurp("reach.nl.txt", &len);
	assert_true(ctpicture_text(&reach->g, &reach->mk, "en", buf, sizeof(buf)) > 0);
	assert_string_not_equal(buf, want); /* the legend's language counts */
	free(want);

	cairo_surface_destroy(a);
	cairo_surface_destroy(b);
	cairo_surface_destroy(c);
	free(mid);
	free(reach);
}

/* ---- what the pixels must show ---- */

/* B13: all six pawns start in the Church interior 1,1, each disc in its
 * seat's colour; the square around them is interior, its neighbours a
 * street (the Church's north exit 1,0) and a yard (0,0). */
static void start_pixels(void **unused)
{
	struct scene *sc = malloc(sizeof(*sc));
	cairo_surface_t *img;
	struct spot church;

	(void)unused;
	assert_non_null(sc);
	play(&positions[0], sc);
	img = render(sc, &sc->mk);
	church = locate(sc, &sc->mk, 1, 1);
	assert_true(church.side == CTPICTURE_SQUARE);
	assert_true(near(at(img, church, -0.4, -0.4), C_INTERIOR, 2));
	assert_true(near(at(img, church, 0.4, 0.4), C_INTERIOR, 2));
	assert_int_equal(check_pawns(img, sc), 6);
	assert_true(near(at(img, locate(sc, &sc->mk, 1, 0), 0, 0), C_STREET, 2));
	assert_true(near(at(img, locate(sc, &sc->mk, 0, 0), 0, 0), C_BLOCKED, 2));
	/* T02 east of the Church: its centre 4,1 is a street; 5,1 its open east side */
	assert_true(near(at(img, locate(sc, &sc->mk, 4, 1), 0, 0), C_STREET, 2));
	/* the map is the two tiles: six columns and three rows of squares */
	check_axes(img, sc, 0, 5, 0, 2);
	check_streets(img, sc);
	cairo_surface_destroy(img);
	free(sc);
}

/* Mid-game: every pawn in its seat's colour on its square, every figure and
 * token in its colour on its square, activated sites dark. */
static void mid_pixels(void **unused)
{
	struct scene *sc = malloc(sizeof(*sc));
	const struct ctgame *g;
	cairo_surface_t *img;
	int marks = 0;

	(void)unused;
	assert_non_null(sc);
	play(&positions[1], sc);
	g = &sc->g;
	/* the area in play: the pawns, without the map's north */
	img = render(sc, &sc->mk);
	assert_int_equal(check_pawns(img, sc), 2);
	check_streets(img, sc);
	check_area_axes(img, sc);
	assert_int_equal(ctpicture_locate(&sc->g, &sc->mk, 0, -6, &(double){ 0 }, &(double){ 0 },
	                                  &(double){ 0 }),
	                 -1);
	cairo_surface_destroy(img);
	/* the whole map */
	sc->mk.full = 1;
	img = render(sc, &sc->mk);
	for (int s = 0; s < g->n; s++)
		assert_true(g->p[s].sq >= 0);
	assert_int_equal(check_pawns(img, sc), 2); /* the position was chosen for it */
	check_streets(img, sc);
	check_axes(img, sc, -6, 8, -6, 8);
	for (int sq = 0; sq < CTMAP_SQUARES; sq++) {
		static const struct {
			int bit;
			uint32_t rgb;
		} kinds[] = { { CS_CULTIST, C_CULTIST },
			      { CS_BYAKHEE, C_BYAKHEE },
			      { CS_HEART, C_HEART },
			      { CS_BULLET, C_BULLET } };

		if (g->map.where[sq / 9] != CTMAP_PLACED)
			continue;
		for (size_t k = 0; k < COUNT(kinds); k++) {
			if (!(g->square[sq] & kinds[k].bit))
				continue;
			if (count_colour(img, square_spot(sc, sq), kinds[k].rgb) < 25)
				fail_msg("mark %d of square %d,%d is not visible", kinds[k].bit,
				         ctmap_gx(&g->map, sq), ctmap_gy(&g->map, sq));
			marks++;
		}
	}
	assert_true(marks > 10);
	assert_true(g->activated > 0);
	for (int t = CTMAP_SITE_FIRST; t < CTMAP_TILES; t++) {
		int dark = 0;

		if (g->map.where[t] != CTMAP_ACTIVATED)
			continue;
		/* face down; the label covers some of it */
		for (int l = 0; l < 9; l++)
			dark += count_colour(img, square_spot(sc, t * 9 + l), C_ACTIVATED);
		assert_true(dark > 9 * CTPICTURE_SQUARE * CTPICTURE_SQUARE / 2);
	}
	cairo_surface_destroy(img);
	free(sc);
}

/* C6: every candidate cell carries its option numbers, in the option colour;
 * the previewed option's cell shows the tile; cells with no option are plain. */
static void place_pixels(void **unused)
{
	struct scene *sc = malloc(sizeof(*sc));
	const struct ctpicture_marks *mk;
	cairo_surface_t *img;
	char text[1 << 16];

	(void)unused;
	assert_non_null(sc);
	play(&positions[2], sc);
	mk = &sc->mk;
	assert_true(mk->n_options >= 3);
	img = render(sc, mk);
	assert_true(check_pawns(img, sc) >= 1);
	assert_true(ctpicture_text(&sc->g, mk, "en", text, sizeof(text)) > 0);
	for (int i = 0; i < mk->n_options; i++) {
		const struct ctmap_option *o = &mk->options[i];
		/* the cell's centre square carries the label */
		struct spot c = locate(sc, mk, 3 * o->tx + 1, 3 * o->ty + 1);
		char label[16];

		if (count_colour(img, c, C_OPTION) < 20)
			fail_msg("option #%d has no label", i + 1);
		if (i > 0 && o[-1].tx == o->tx && o[-1].ty == o->ty)
			continue;
		/* the text names the first option of every cell */
		snprintf(label, sizeof(label), "#%d", i + 1);
		assert_non_null(strstr(text, label));
	}
	/* the preview's layout: its squares, blended with the paper, differ from
	 * a cell left empty */
	{
		const struct ctmap_option *o = &mk->options[mk->preview];
		char kind[9];
		int blocked = 0;

		ctmap_layout(mk->tile, o->rot, kind);
		for (int l = 0; l < 9; l++) {
			struct spot s;
			uint32_t c;

			if (kind[l] != CTMAP_BLOCKED || l == 4)
				continue;
			s = locate(sc, mk, 3 * o->tx + l % 3, 3 * o->ty + l / 3);
			c = at(img, s, 0, 0);
			/* 60 % blocked over the option tint: greener and darker than paper */
			assert_true(((c >> 16) & 0xff) < 0xc0 &&
			            ((c >> 8) & 0xff) > (c >> 16 & 0xff));
			blocked++;
		}
		assert_true(blocked > 0);
	}
	cairo_surface_destroy(img);
	free(sc);
}

/* C9: every square in reach carries the yellow frame, the target the
 * magenta one; squares out of reach carry neither. */
static void reach_pixels(void **unused)
{
	struct scene *sc = malloc(sizeof(*sc));
	const struct ctpicture_marks *mk;
	cairo_surface_t *img;
	uint8_t in[CTMAP_BITMAP_BYTES] = { 0 };
	int16_t all[CTMAP_SQUARES];
	int n;

	(void)unused;
	assert_non_null(sc);
	play(&positions[3], sc);
	mk = &sc->mk;
	img = render(sc, mk);
	assert_int_equal(check_pawns(img, sc), 2);
	for (int i = 0; i < mk->n_reach; i++) {
		struct spot s = square_spot(sc, mk->reach[i]);

		ctmap_bit_set(in, mk->reach[i]);
		if (mk->reach[i] == mk->target)
			continue;
		/* the top middle of the frame, clear of pawns and corner marks */
		if (!near(at(img, s, 0, -21.0 / 48), C_REACH, 2))
			fail_msg("square %d,%d is not marked in reach",
			         ctmap_gx(&sc->g.map, mk->reach[i]),
			         ctmap_gy(&sc->g.map, mk->reach[i]));
	}
	assert_true(near(at(img, square_spot(sc, mk->target), 0, -22.0 / 48), C_TARGET, 2));
	n = ctmap_squares(&sc->g.map, all);
	for (int i = 0; i < n; i++) {
		struct spot sp;
		uint32_t c;

		if (ctmap_bit(in, all[i]) ||
		    ctpicture_locate(&sc->g, mk, ctmap_gx(&sc->g.map, all[i]),
		                     ctmap_gy(&sc->g.map, all[i]), &sp.x, &sp.y, &sp.side) < 0)
			continue;
		c = at(img, sp, 0, -21.0 / 48);
		assert_false(near(c, C_REACH, 24));
		assert_false(near(c, C_TARGET, 24));
	}
	cairo_surface_destroy(img);
	free(sc);
}

/* Ritual Sites: each labelled with its name and state in the picture and
 * the text, a sanctified one by whom, in its empty cell while it stays
 * empty; a site never on the map has no label. */
static void site_states(void **unused)
{
	struct scene *sc = malloc(sizeof(*sc));
	cairo_surface_t *img;
	char text[1 << 16];
	int site = -1, active = -1;
	double x, y, w, h;

	(void)unused;
	assert_non_null(sc);
	play(&positions[1], sc);
	sc->mk.full = 1;
	for (int t = CTMAP_SITE_FIRST; t < CTMAP_TILES; t++) {
		if (sc->g.map.where[t] == CTMAP_PLACED && site < 0)
			site = t;
		if (sc->g.map.where[t] == CTMAP_ACTIVATED)
			active = t;
	}
	assert_true(site >= 0 && active >= 0);
	assert_int_equal(ctpicture_text(&sc->g, &sc->mk, "en", text, sizeof(text)) > 0, 1);
	assert_non_null(strstr(text, "Ritual Site Carcosa Playhouse (-5,7): unresolved\n"));
	assert_non_null(strstr(text, "(-5,1): activated\n"));
	/* bob sanctifies the unresolved one: its cell empties, its label stays */
	ctmap_remove(&sc->g.map, site, CTMAP_SANCTIFIED);
	sc->g.p[1].sites |= (uint8_t)(1u << (site - CTMAP_SITE_FIRST));
	assert_int_equal(ctpicture_text(&sc->g, &sc->mk, "nl", text, sizeof(text)) > 0, 1);
	assert_non_null(
	    strstr(text, "Ritueelplek Schouwburg Carcosa (-5,7): geheiligd door bob\n"));
	img = render(sc, &sc->mk);
	assert_int_equal(ctpicture_label(&sc->g, &sc->mk, site, &x, &y, &w, &h), 0);
	assert_true(ink(img, (int)x, (int)y, (int)(x + w), (int)(y + h)) > 20);
	assert_true(near(pixel(img, (int)(x + 2), (int)(y + h / 2)), 0xffffffu, 24));
	assert_int_equal(ctpicture_label(&sc->g, &sc->mk, active, &x, &y, &w, &h), 0);
	/* not sites, or never on the map */
	assert_int_equal(ctpicture_label(&sc->g, &sc->mk, 3, &x, &y, &w, &h), -1);
	for (int t = CTMAP_SITE_FIRST; t < CTMAP_TILES; t++)
		if (sc->g.map.where[t] == CTMAP_UNPLACED)
			assert_int_equal(ctpicture_label(&sc->g, &sc->mk, t, &x, &y, &w, &h), -1);
	cairo_surface_destroy(img);
	free(sc);
}

/* ---- the API's edges ---- */

static void text_cap(void **unused)
{
	struct scene *sc = malloc(sizeof(*sc));
	char buf[1 << 14], small[1 << 14];
	int n;

	(void)unused;
	assert_non_null(sc);
	play(&positions[0], sc);
	n = ctpicture_text(&sc->g, NULL, "en", buf, sizeof(buf));
	assert_true(n > 0);
	ctpicture_marks_init(&sc->mk);
	assert_int_equal(ctpicture_text(&sc->g, &sc->mk, "en", small, sizeof(small)), n);
	assert_string_equal(small, buf); /* NULL marks are no marks */
	assert_int_equal(ctpicture_text(&sc->g, NULL, "en", small, (size_t)n + 1), n);
	assert_int_equal(ctpicture_text(&sc->g, NULL, "en", small, (size_t)n), -1);
	assert_true(strlen(small) < (size_t)n);
	assert_int_equal(ctpicture_text(&sc->g, NULL, "en", small, 1), -1);
	assert_int_equal(ctpicture_text(&sc->g, NULL, "en", small, 0), -1);
	/* languages: a region suffix counts, anything else is English */
	n = ctpicture_text(&sc->g, NULL, "nl-NL", small, sizeof(small));
	assert_int_equal(n, (int)strlen(small));
	assert_non_null(strstr(small, "sektariër"));
	n = (int)strlen(buf);
	assert_int_equal(ctpicture_text(&sc->g, NULL, "xx", small, sizeof(small)), n);
	assert_string_equal(small, buf);
	assert_int_equal(ctpicture_text(&sc->g, NULL, NULL, small, sizeof(small)), n);
	assert_non_null(strstr(buf, "cultist"));
	free(sc);
}

/* The file holds the same PNG; a path that cannot be written fails. */
static void png_file(void **unused)
{
	struct scene *sc = malloc(sizeof(*sc));
	char path[] = "/tmp/test_board_XXXXXX";
	unsigned char *png, file[1 << 16];
	size_t len;
	FILE *f;
	int fd;

	(void)unused;
	assert_non_null(sc);
	play(&positions[0], sc);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ctpicture_png_file(&sc->g, NULL, path), 0);
	assert_int_equal(ctpicture_png(&sc->g, NULL, &png, &len), 0);
	f = fdopen(fd, "rb");
	assert_non_null(f);
	assert_true(len < sizeof(file));
	assert_int_equal(fread(file, 1, sizeof(file), f), len);
	assert_memory_equal(file, png, len);
	fclose(f);
	remove(path);
	free(png);
	assert_int_equal(ctpicture_png_file(&sc->g, NULL, "/nonexistent/dir/map.png"), -1);
	free(sc);
}

/* A map wider than CTPICTURE_MAX_PX is scaled down to it; marks out of range
 * are ignored. */
static void large_map(void **unused)
{
	struct scene *sc = malloc(sizeof(*sc));
	struct ctmap_option far[2] = { { 30, 0, 0 }, { 31, 0, 0 } };
	int16_t bad[2] = { -1, CTMAP_SQUARES };
	cairo_surface_t *img;
	struct spot s;

	(void)unused;
	assert_non_null(sc);
	play(&positions[0], sc);
	/* straights and four-ways in a row east of T02, without the placement rules */
	for (int t = 2, x = 2; t < CTMAP_TILES; t++, x++)
		ctmap_place(&sc->g.map, t, (struct ctmap_option){ (int8_t)x, 0, 1 }, CTMAP_STRICT);
	sc->mk.options = far;
	sc->mk.n_options = 2; /* (31, 0) is off the grid */
	sc->mk.preview = 5;
	sc->mk.tile = 3;
	sc->mk.reach = bad;
	sc->mk.n_reach = 2;
	sc->mk.target = CTMAP_SQUARES;
	sc->mk.full = 1;
	img = render(sc, &sc->mk);
	assert_int_equal(cairo_image_surface_get_width(img), CTPICTURE_MAX_PX);
	assert_true(cairo_image_surface_get_height(img) < CTPICTURE_MAX_PX / 8);
	s = locate(sc, &sc->mk, 1, 1);
	assert_true(s.side < CTPICTURE_SQUARE);
	assert_true(count_colour(img, s, seat_rgb[0]) > 0);
	assert_int_equal(ctpicture_locate(&sc->g, &sc->mk, 93, 1, &s.x, &s.y, &s.side), -1);
	assert_int_equal(ctpicture_locate(&sc->g, &sc->mk, 92, 1, &s.x, &s.y, &s.side), 0);
	cairo_surface_destroy(img);
	free(sc);
}

/* ---- many positions ---- */

/* Positions drawn, and every how many the whole map is checked too (fewer
 * under a sanitizer, which is slow on cairo's pixels). */
#if defined(__SANITIZE_ADDRESS__)
#define POSITIONS 50
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POSITIONS 50
#endif
#endif
#ifndef POSITIONS
#define POSITIONS 200
#endif
#define FULL_EVERY 4

/* Plays seed `seed` with `players` like play() for up to `values` values
 * (fewer when the game ends) and marks what the table's picture marks:
 * the tile's options at a placement, the squares in reach (the last as the
 * target) at a move; names and language for the legend. */
static void play_some(struct scene *sc, uint64_t seed, int players, int values)
{
	static const char *const names[CTGAME_MAX] = {
		"alice", "bob", "Carol with a rather long display name", "dave", "eve", "frank",
	};
	struct game_setup setup = { .players = players, .rounds = 200 };
	struct game_step step;
	struct rng rng;

	memset(sc, 0, sizeof(*sc));
	assert_int_equal(ctgame_init(&sc->g, &setup), GAME_OK);
	rng_seed(&rng, seed);
	for (int i = 0; i < values; i++) {
		int v;

		ctgame_step(&sc->g, &step);
		if (step.node == GAME_NODE_OVER)
			break;
		if (step.node == GAME_NODE_CHANCE)
			v = (int)rng_below(&rng, (uint32_t)step.count);
		else
			v = ctgame_policy_baseline(&sc->g, &step, &rng);
		assert_int_equal(ctgame_apply(&sc->g, v, NULL), GAME_OK);
	}
	ctgame_step(&sc->g, &step);
	ctpicture_marks_init(&sc->mk);
	for (int s = 0; s < CTGAME_MAX; s++)
		sc->mk.names[s] = names[s];
	sc->mk.lang = seed % 2 ? "en" : "nl";
	if (step.node != GAME_NODE_CHOICE)
		return;
	if (step.kind == CA_TILE) {
		int tile;

		sc->mk.n_options = ctgame_tile_options(&sc->g, &tile, sc->opt);
		sc->mk.options = sc->opt;
		sc->mk.tile = tile;
	} else if (step.kind == CA_MOVE) {
		sc->mk.reach = sc->reach;
		sc->mk.n_reach = ctgame_reachable(&sc->g, sc->reach);
		sc->mk.target = sc->mk.n_reach > 0 ? sc->reach[sc->mk.n_reach - 1] : -1;
	}
}

static int missing(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	print_message("not drawn: %s\n", msg);
	return -1;
}

/* Pixels of square (gx, gy) near colour c (8 levels), or -1 when the
 * picture does not show the square. */
static int colour_at(cairo_surface_t *img, const struct scene *sc, int gx, int gy, uint32_t c)
{
	struct spot s;

	if (ctpicture_locate(&sc->g, &sc->mk, gx, gy, &s.x, &s.y, &s.side) < 0)
		return -1;
	return count_colour(img, s, c);
}

/* Every pawn (all of them shown), every figure and token and every Ritual
 * Site's label of the area the picture shows is drawn: the pawn's or the
 * figure's colour on its square, the label's white box with text in it.
 * Returns how many things were checked, or -1 (saying what) at the first
 * that is not drawn. */
static int check_everything(cairo_surface_t *img, const struct scene *sc)
{
	static const struct {
		int bit;
		uint32_t rgb;
	} kinds[] = { { CS_CULTIST, C_CULTIST },
		      { CS_BYAKHEE, C_BYAKHEE },
		      { CS_HEART, C_HEART },
		      { CS_BULLET, C_BULLET } };
	const struct ctgame *g = &sc->g;
	struct spot s = { 0, 0, 0 };
	int checked = 0, gx0, gy0, gx1, gy1, w, h;
	double k2;

	ctpicture_area(g, &sc->mk, &gx0, &gy0, &gx1, &gy1, &w, &h);
	assert_int_equal(ctpicture_locate(g, &sc->mk, gx0, gy0, &s.x, &s.y, &s.side), 0);
	k2 = (s.side / CTPICTURE_SQUARE) * (s.side / CTPICTURE_SQUARE);
	for (int p = 0; p < g->n; p++) {
		int sq = g->p[p].sq, n;

		if (sq < 0 || g->map.where[sq / 9] != CTMAP_PLACED)
			continue;
		n = colour_at(img, sc, ctmap_gx(&g->map, sq), ctmap_gy(&g->map, sq), seat_rgb[p]);
		if (n < 40 * k2)
			return missing("seat %d's pawn at %d,%d: %d pixels", p + 1,
			               ctmap_gx(&g->map, sq), ctmap_gy(&g->map, sq), n);
		checked++;
	}
	for (int sq = 0; sq < CTMAP_SQUARES; sq++) {
		if (g->map.where[sq / 9] != CTMAP_PLACED)
			continue;
		for (size_t i = 0; i < COUNT(kinds); i++) {
			int n;

			if (!(g->square[sq] & kinds[i].bit))
				continue;
			n = colour_at(img, sc, ctmap_gx(&g->map, sq), ctmap_gy(&g->map, sq),
			              kinds[i].rgb);
			if (n < 0)
				continue; /* cropped away */
			if (n < 10 * k2 || n < 2)
				return missing("figure %d at %d,%d: %d pixels", kinds[i].bit,
				               ctmap_gx(&g->map, sq), ctmap_gy(&g->map, sq), n);
			checked++;
		}
	}
	for (int t = CTMAP_SITE_FIRST; t < CTMAP_TILES; t++) {
		int tx = g->map.tx[t], ty = g->map.ty[t], white = 0, dark;
		double x, y, lw, lh;

		if ((g->map.where[t] != CTMAP_PLACED && g->map.where[t] != CTMAP_ACTIVATED) ||
		    3 * tx < gx0 || 3 * tx > gx1 || 3 * ty < gy0 || 3 * ty > gy1)
			continue;
		if (ctpicture_label(g, &sc->mk, t, &x, &y, &lw, &lh) < 0)
			return missing("site %d has no label", t + 1);
		assert_true(lw > 0 && lh > 0 && x >= 0 && y >= 0 && x + lw <= w && y + lh <= h);
		for (int py = (int)y; py < (int)(y + lh); py++)
			for (int px = (int)x; px < (int)(x + lw); px++)
				white += near(pixel(img, px, py), 0xffffffu, 24);
		dark = ink(img, (int)x, (int)y, (int)(x + lw), (int)(y + lh));
		if (white < lw * lh / 4 || dark < 8)
			return missing("site %d's label: %d white, %d dark pixels", t + 1, white,
			               dark);
		checked++;
	}
	return checked;
}

/* Shared squares: every square with more than one pawn, figure or token has
 * its line under the text map. */
static void check_shared_text(const struct scene *sc)
{
	static char buf[1 << 16];
	const struct ctgame *g = &sc->g;

	assert_true(ctpicture_text(g, &sc->mk, sc->mk.lang, buf, sizeof(buf)) > 0);
	for (int sq = 0; sq < CTMAP_SQUARES; sq++) {
		int things = 0;
		char line[32];

		if (g->map.where[sq / 9] != CTMAP_PLACED)
			continue;
		for (int p = 0; p < g->n; p++)
			things += g->p[p].sq == sq;
		for (int b = 1; b <= CS_BULLET; b <<= 1)
			things += (g->square[sq] & b) != 0;
		if (things < 2)
			continue;
		snprintf(line, sizeof(line), "\n%d,%d: ", ctmap_gx(&g->map, sq),
		         ctmap_gy(&g->map, sq));
		if (!strstr(buf, line))
			fail_msg("no line for the shared square %s", line + 1);
	}
}

/* Positions of 200 seeded games (fewer under a sanitizer): the picture
 * the table shows at most CTPICTURE_VIEW_PX on its longer side, with squares
 * of 20 pixels at least, the whole map at most CTPICTURE_MAX_PX, and each with
 * everything drawn. */
static void many_positions(void **unused)
{
	struct scene *sc = malloc(sizeof(*sc));
	int n = POSITIONS, checked = 0, cropped = 0, k;
	double smallest = CTPICTURE_SQUARE;

	(void)unused;
	assert_non_null(sc);
	for (int i = 0; i < n; i++) {
		int players = 2 + i % 5, values = 10 + (i * 97) % 640, gx0, gy0, gx1, gy1, w, h;
		cairo_surface_t *img;
		struct spot s;

		play_some(sc, (uint64_t)(1000 + i), players, values);
		sc->mk.full = 1;
		ctpicture_area(&sc->g, &sc->mk, &gx0, &gy0, &gx1, &gy1, &w, &h);
		k = (gx1 - gx0 + 1) * (gy1 - gy0 + 1);
		sc->mk.full = 0;
		ctpicture_area(&sc->g, &sc->mk, &gx0, &gy0, &gx1, &gy1, &w, &h);
		cropped += (gx1 - gx0 + 1) * (gy1 - gy0 + 1) < k;
		img = render(sc, &sc->mk);
		w = cairo_image_surface_get_width(img);
		h = cairo_image_surface_get_height(img);
		if ((w > h ? w : h) > CTPICTURE_VIEW_PX || w < 300 || h < 200)
			fail_msg("position %d: %d x %d pixels", i, w, h);
		assert_int_equal(ctpicture_locate(&sc->g, &sc->mk, gx0, gy0, &s.x, &s.y, &s.side),
		                 0);
		smallest = s.side < smallest ? s.side : smallest;
		k = check_everything(img, sc);
		if (k < 0)
			fail_msg("position %d (seed %d)", i, 1000 + i);
		checked += k;
		cairo_surface_destroy(img);
		if (i % FULL_EVERY == 0) {
			sc->mk.full = 1;
			img = render(sc, &sc->mk);
			w = cairo_image_surface_get_width(img);
			h = cairo_image_surface_get_height(img);
			assert_true(w <= CTPICTURE_MAX_PX && h <= CTPICTURE_MAX_PX);
			k = check_everything(img, sc);
			if (k < 0)
				fail_msg("position %d (seed %d), the whole map", i, 1000 + i);
			checked += k;
			cairo_surface_destroy(img);
			check_shared_text(sc);
		}
	}
	print_message("%d positions, %d cropped, %d things checked, squares %.1f px at least\n", n,
	              cropped, checked, smallest);
	assert_true(smallest >= 20);
	assert_true(cropped > n / 4 && checked > 20 * n);
	free(sc);
}

/* check_everything can fail: a cultist added to the state on an empty
 * street the picture shows, or a pawn moved there, is not in the picture
 * of the position without it. */
static void everything_can_fail(void **unused)
{
	struct scene *sc = malloc(sizeof(*sc)), *other = malloc(sizeof(*other));
	cairo_surface_t *img;
	int16_t all[CTMAP_SQUARES];
	int n, empty = -1;

	(void)unused;
	assert_non_null(sc);
	assert_non_null(other);
	play_some(sc, 1001, 3, 300);
	img = render(sc, &sc->mk);
	assert_true(check_everything(img, sc) > 0);
	n = ctmap_squares(&sc->g.map, all);
	for (int i = 0; i < n && empty < 0; i++) {
		int sq = all[i], taken = sc->g.square[sq] != 0;

		for (int p = 0; p < sc->g.n; p++)
			taken |= sc->g.p[p].sq == sq;
		if (!taken && sc->g.map.kind[sq / 9][sq % 9] == CTMAP_STREET &&
		    colour_at(img, sc, ctmap_gx(&sc->g.map, sq), ctmap_gy(&sc->g.map, sq), 0) >= 0)
			empty = sq;
	}
	assert_true(empty >= 0);
	memcpy(other, sc, sizeof(*sc));
	other->g.square[empty] |= CS_CULTIST;
	assert_int_equal(check_everything(img, other), -1);
	memcpy(other, sc, sizeof(*sc));
	other->g.p[0].sq = (int16_t)empty;
	assert_int_equal(check_everything(img, other), -1);
	cairo_surface_destroy(img);
	free(sc);
	free(other);
}

/* ctpicture_png's bytes with the cache's counters before and after. */
struct drawn {
	unsigned char *png;
	size_t len;
	uint64_t renders, hits; /* what this call added */
};

static struct drawn draw_counted(const struct ctgame *g, const struct ctpicture_marks *mk)
{
	struct ctpicture_cache_stats a, b;
	struct drawn d;

	ctpicture_cache_stats(&a);
	assert_int_equal(ctpicture_png(g, mk, &d.png, &d.len), 0);
	ctpicture_cache_stats(&b);
	d.renders = b.renders - a.renders;
	d.hits = b.hits - a.hits;
	assert_true(d.len > 8 && memcmp(d.png, "\x89PNG", 4) == 0);
	return d;
}

static int same_bytes(const struct drawn *a, const struct drawn *b)
{
	return a->len == b->len && memcmp(a->png, b->png, a->len) == 0;
}

/* The cache of pictures: the same map gives the same PNG bytes without a
 * drawing (also when fields the picture does not show moved); a figure, a
 * pawn, a mark, a name or the legend's language drawn differently is a
 * miss, whose new bytes show the change; the cache stays within its bounds
 * and an emptied cache draws the same bytes again. */
static void picture_cache(void **unused)
{
	struct scene *sc = malloc(sizeof(*sc)), *other = malloc(sizeof(*other));
	struct drawn first, again, d;
	struct ctpicture_cache_stats st;
	cairo_surface_t *img;
	int16_t all[CTMAP_SQUARES];
	int n, empty = -1;

	(void)unused;
	assert_non_null(sc);
	assert_non_null(other);
	ctpicture_cache_clear();
	play_some(sc, 1001, 3, 300);
	first = draw_counted(&sc->g, &sc->mk);
	assert_int_equal(first.renders, 1);
	assert_int_equal(first.hits, 0);
	again = draw_counted(&sc->g, &sc->mk);
	assert_int_equal(again.renders, 0);
	assert_int_equal(again.hits, 1);
	assert_true(same_bytes(&first, &again));
	assert_ptr_not_equal(first.png, again.png); /* each caller owns its copy */
	free(again.png);

	/* Fields the picture does not show: still a hit. */
	memcpy(other, sc, sizeof(*sc));
	other->g.turns += 7;
	other->g.round++;
	other->g.cultists--;
	other->g.p[0].hand++;
	other->g.p[1].sanity--;
	other->mk.lang = "en-GB";
	d = draw_counted(&other->g, &other->mk);
	assert_int_equal(d.renders, 0);
	assert_int_equal(d.hits, 1);
	assert_true(same_bytes(&first, &d));
	free(d.png);

	/* A cultist on an empty street square shown: drawn anew, with it. */
	img = decode(first.png, first.len);
	n = ctmap_squares(&sc->g.map, all);
	for (int i = 0; i < n && empty < 0; i++) {
		int sq = all[i], taken = sc->g.square[sq] != 0;
		for (int p = 0; p < sc->g.n; p++)
			taken |= sc->g.p[p].sq == sq;
		if (!taken && sc->g.map.kind[sq / 9][sq % 9] == CTMAP_STREET &&
		    colour_at(img, sc, ctmap_gx(&sc->g.map, sq), ctmap_gy(&sc->g.map, sq), 0) >= 0)
			empty = sq;
	}
	cairo_surface_destroy(img);
	assert_true(empty >= 0);
	memcpy(other, sc, sizeof(*sc));
	other->g.square[empty] |= CS_CULTIST;
	d = draw_counted(&other->g, &other->mk);
	assert_int_equal(d.renders, 1);
	assert_int_equal(d.hits, 0);
	assert_false(same_bytes(&first, &d));
	img = decode(d.png, d.len);
	assert_true(check_everything(img, other) > 0);
	cairo_surface_destroy(img);
	img = decode(first.png, first.len); /* the old bytes would not do */
	assert_int_equal(check_everything(img, other), -1);
	cairo_surface_destroy(img);
	free(d.png);

	/* A pawn moved there: drawn anew, with the pawn on its new square. */
	memcpy(other, sc, sizeof(*sc));
	other->g.p[0].sq = (int16_t)empty;
	d = draw_counted(&other->g, &other->mk);
	assert_int_equal(d.renders, 1);
	assert_false(same_bytes(&first, &d));
	img = decode(d.png, d.len);
	assert_true(check_everything(img, other) > 0);
	cairo_surface_destroy(img);
	free(d.png);

	/* The marks, a name, the language: each a miss with other bytes. */
	memcpy(other, sc, sizeof(*sc));
	other->mk.target = (int)empty;
	d = draw_counted(&other->g, &other->mk);
	assert_int_equal(d.renders, 1);
	assert_false(same_bytes(&first, &d));
	free(d.png);
	memcpy(other, sc, sizeof(*sc));
	other->mk.names[1] = "mallory";
	d = draw_counted(&other->g, &other->mk);
	assert_int_equal(d.renders, 1);
	assert_false(same_bytes(&first, &d));
	free(d.png);
	memcpy(other, sc, sizeof(*sc));
	other->mk.lang = "nl";
	d = draw_counted(&other->g, &other->mk);
	assert_int_equal(d.renders, 1);
	assert_false(same_bytes(&first, &d));
	free(d.png);
	other->mk.lang = "nl-NL"; /* the same legend */
	d = draw_counted(&other->g, &other->mk);
	assert_int_equal(d.renders, 0);
	assert_int_equal(d.hits, 1);
	free(d.png);

	/* The original map is still held: a hit with its first bytes. */
	d = draw_counted(&sc->g, &sc->mk);
	assert_int_equal(d.hits, 1);
	assert_true(same_bytes(&first, &d));
	free(d.png);

	/* Bounded: twelve more maps keep at most 8 pictures, the oldest gone. */
	for (int i = 0; i < 12; i++) {
		memcpy(other, sc, sizeof(*sc));
		other->g.square[empty] |= i & 1 ? CS_HEART : CS_BULLET;
		other->g.p[0].sq = i < 6 ? sc->g.p[0].sq : (int16_t)empty;
		other->g.seat = (uint8_t)(i % sc->g.n);
		d = draw_counted(&other->g, &other->mk);
		free(d.png);
	}
	ctpicture_cache_stats(&st);
	assert_true(st.entries <= 8 && st.entries > 0);
	assert_true(st.evictions > 0);
	assert_true(st.bytes <= (size_t)2 << 20);

	/* Emptied, the cache draws again, and the same bytes. */
	ctpicture_cache_clear();
	ctpicture_cache_stats(&st);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.bytes, 0);
	d = draw_counted(&sc->g, &sc->mk);
	assert_int_equal(d.renders, 1);
	assert_true(same_bytes(&first, &d));
	free(d.png);
	free(first.png);
	free(sc);
	free(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(goldens),
		cmocka_unit_test(goldens_can_fail),
		cmocka_unit_test(start_pixels),
		cmocka_unit_test(mid_pixels),
		cmocka_unit_test(place_pixels),
		cmocka_unit_test(reach_pixels),
		cmocka_unit_test(text_cap),
		cmocka_unit_test(png_file),
		cmocka_unit_test(large_map),
		cmocka_unit_test(many_positions),
		cmocka_unit_test(everything_can_fail),
		cmocka_unit_test(site_states),
		cmocka_unit_test(picture_cache),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	ctpicture_cleanup();
	return rc;
}
