#include "rlyeh/ctpicture.h"

#include <cairo.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <png.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rlyeh/ctnames.h"
#include "rlyeh/i18n.h"

#define S    CTPICTURE_SQUARE
#define R    CTMAP_RADIUS
#define AXL  40.0 /* left and right bands of row labels */
#define AXT  22.0 /* top and bottom bands of column labels */
#define PAD  16.0 /* room for the open-street arrows around the map */
#define FONT "DejaVu Sans"
#define TURN 6.283185307179586 /* a full circle in radians */

/* The legend below the map, in pixels of the picture (not scaled). */
#define LEG_FONT   13.0
#define LEG_ROW    22.0 /* height of a line */
#define LEG_ICON   16.0 /* side of an item's symbol */
#define LEG_GAP    14.0 /* between two items of a line */
#define LEG_MARGIN 10.0
#define LEG_MIN_W  460.0 /* the legend's width at least (the picture widens for it) */
#define SHOWN_NAME 24    /* bytes of a player's name shown */

/* The colours of ctpicture.h. */
#define C_PAPER      0xf4f0e6u
#define C_STREET     0xd9d0bfu
#define C_INTERIOR   0xc48a45u
#define C_ENTRANCE   0x7a3f12u
#define C_BLOCKED    0x66745au
#define C_ACTIVATED  0x2b2236u
#define C_CULTIST    0x4b1650u
#define C_BYAKHEE    0x0b4f4fu
#define C_HEART      0xe0245eu
#define C_BULLET     0xc9a227u
#define C_REACH      0xffd400u
#define C_TARGET     0xff00ffu
#define C_OPTION     0x2040c0u
#define C_ARROW      0x333333u
#define C_INK        0x1a1a1au
#define C_LABEL      0xffffffu /* a site label's box */
#define C_SITE_OPEN  0x1a1a1au /* label borders by the site's state */
#define C_SITE_ACT   0x8b0000u
#define C_SITE_SANCT 0x1b7f3bu
#define C_SITE_GONE  0x777777u

static const uint32_t seat_rgb[CTGAME_MAX] = {
	0xd62728u, 0x1f5fbfu, 0x2ca02cu, 0xff8c00u, 0x9c4fd6u, 0x8c564bu,
};
/* The seat number is white on dark discs and black on light ones. */
static const uint32_t seat_ink[CTGAME_MAX] = {
	0xffffffu, 0xffffffu, 0xffffffu, 0x000000u, 0xffffffu, 0xffffffu,
};

void ctpicture_marks_init(struct ctpicture_marks *mk)
{
	memset(mk, 0, sizeof(*mk));
	mk->tile = -1;
	mk->preview = -1;
	mk->target = -1;
}

/* ---- words ---- */

enum {
	/* the text map's legend, in its order (legend_sym) */
	W_PAWN,
	W_PAWNS,
	W_CULTIST,
	W_BYAKHEE,
	W_HEART,
	W_BULLET,
	W_STREET,
	W_INTERIOR,
	W_ENTRANCE,
	W_BLOCKED,
	W_ACTIVATED,
	W_OPEN,
	W_REACH,
	W_TARGET,
	W_OPTION,
	W_SHARED,
	W_LEGEND, /* the text legend's items end here */
	W_H_PLAYERS = W_LEGEND,
	W_H_SQUARES,
	W_H_FIGURES,
	W_H_MARKS,
	W_H_SITES,
	W_SEAT,
	W_UNRESOLVED,
	W_SITE_ACTIVATED,
	W_SANCTIFIED,
	W_REMOVED,
	W_BY,
	W_ONE_PAWN,
	W_SITE,
	W_WORDS,
};

static const struct {
	const char *lang;
	const char *word[W_WORDS];
} legends[] = {
	{ "en",
	  { "pawn of seat",
	    "several pawns",
	    "cultist",
	    "byakhee",
	    "heart",
	    "bullet",
	    "street",
	    "building",
	    "entrance",
	    "blocked",
	    "activated site",
	    "open street",
	    "reachable",
	    "target",
	    "option",
	    "a shared square, listed below",
	    "Players:",
	    "Squares:",
	    "Figures and tokens:",
	    "This decision:",
	    "Ritual Sites:",
	    "seat",
	    "unresolved",
	    "activated",
	    "sanctified",
	    "removed",
	    "by",
	    "pawn",
	    "Ritual Site" } },
	{ "nl",
	  { "pion van plaats",
	    "meerdere pionnen",
	    "sektariër",
	    "byakhee",
	    "hart",
	    "kogel",
	    "straat",
	    "gebouw",
	    "ingang",
	    "onbegaanbaar",
	    "geactiveerde ritueelplek",
	    "open straat",
	    "bereikbaar",
	    "doel",
	    "optie",
	    "een gedeeld vakje, hieronder",
	    "Spelers:",
	    "Vakjes:",
	    "Figuren en fiches:",
	    "Deze beslissing:",
	    "Ritueelplekken:",
	    "plaats",
	    "onopgelost",
	    "geactiveerd",
	    "geheiligd",
	    "verwijderd",
	    "door",
	    "pion",
	    "Ritueelplek" } },
};

/* The symbol each text legend word explains. */
static const char *const legend_sym[W_LEGEND] = {
	"1-6", "*", "c", "y", "h", "b", ".", "B", "D", "#", "X", "^>v<", "+", "@", "#n", "x,y:",
};

static int lang_index(const char *lang)
{
	for (size_t i = 0; lang && i < sizeof(legends) / sizeof(legends[0]); i++)
		if (strncmp(lang, legends[i].lang, 2) == 0 &&
		    (lang[2] == '\0' || lang[2] == '-' || lang[2] == '_'))
			return (int)i;
	return 0;
}

static const char *word(int li, int w)
{
	return legends[li].word[w];
}

/* The enum i18n_lang of legend language li, for ctnames. */
static int names_lang(int li)
{
	return li == 1 ? I18N_NL : I18N_EN;
}

/* Seat s's name for the legend: the caller's, cut to SHOWN_NAME bytes at a
 * character boundary (with "…"), or "seat n". */
static void seat_label(const struct ctpicture_marks *mk, int li, int s, char *buf, size_t cap)
{
	const char *name = mk ? mk->names[s] : NULL;
	size_t n;

	if (!name || !name[0]) {
		snprintf(buf, cap, "%s %d", word(li, W_SEAT), s + 1);
		return;
	}
	n = strlen(name);
	if (n <= SHOWN_NAME) {
		snprintf(buf, cap, "%s", name);
		return;
	}
	n = SHOWN_NAME;
	while (n > 0 && ((unsigned char)name[n] & 0xc0) == 0x80)
		n--;
	snprintf(buf, cap, "%.*s\xe2\x80\xa6", (int)n, name);
}

/* The seat that sanctified site `t`, or -1. */
static int sanctifier(const struct ctgame *g, int t)
{
	for (int s = 0; s < g->n && s < CTGAME_MAX; s++)
		if (g->p[s].sites & (1u << (t - CTMAP_SITE_FIRST)))
			return s;
	return -1;
}

/* The state word of site `t` (W_UNRESOLVED..W_REMOVED), or -1 for a site
 * that never was on the map. */
static int site_state(const struct ctmap *m, int t)
{
	switch (m->where[t]) {
	case CTMAP_PLACED:
		return W_UNRESOLVED;
	case CTMAP_ACTIVATED:
		return W_SITE_ACTIVATED;
	case CTMAP_SANCTIFIED:
		return W_SANCTIFIED;
	case CTMAP_REMOVED:
		return W_REMOVED;
	default:
		return -1;
	}
}

static uint32_t site_rgb(int state)
{
	switch (state) {
	case W_SITE_ACTIVATED:
		return C_SITE_ACT;
	case W_SANCTIFIED:
		return C_SITE_SANCT;
	case W_REMOVED:
		return C_SITE_GONE;
	default:
		return C_SITE_OPEN;
	}
}

/* "activated" or "sanctified by Alice". */
static void site_state_text(const struct ctgame *g, const struct ctpicture_marks *mk, int li, int t,
                            char *buf, size_t cap)
{
	int st = site_state(&g->map, t), s = st == W_SANCTIFIED ? sanctifier(g, t) : -1;
	char who[64];

	if (st < 0) {
		buf[0] = '\0';
		return;
	}
	if (s < 0) {
		snprintf(buf, cap, "%s", word(li, st));
		return;
	}
	seat_label(mk, li, s, who, sizeof(who));
	snprintf(buf, cap, "%s %s %s", word(li, st), word(li, W_BY), who);
}

/* ---- what is shown ---- */

/* The cells shown (inclusive bounds) and the picture's geometry: the map
 * (scaled) at the top left, the legend (not scaled) below it. */
struct frame {
	int cx0, cy0, cx1, cy1;
	double ox, oy; /* unscaled pixel position of the top-left corner of cell (cx0, cy0) */
	double w, h;   /* unscaled size of the map part */
	double scale;
	double lw, lh; /* the legend's width and height in pixels */
	int pw, ph;    /* pixel size */
	int full;
};

static int on_grid(int tx, int ty)
{
	return tx >= -R && tx <= R && ty >= -R && ty <= R;
}

static int n_options(const struct ctpicture_marks *mk)
{
	if (!mk || !mk->options || mk->n_options <= 0)
		return 0;
	return mk->n_options < CTMAP_OPTIONS_MAX ? mk->n_options : CTMAP_OPTIONS_MAX;
}

static int option_ok(const struct ctpicture_marks *mk, int i)
{
	return on_grid(mk->options[i].tx, mk->options[i].ty);
}

/* A square of a tile face up on the map. */
static int square_ok(const struct ctgame *g, int sq)
{
	return sq >= 0 && sq < CTMAP_SQUARES && g->map.where[sq / 9] == CTMAP_PLACED;
}

static int any_reach(const struct ctgame *g, const struct ctpicture_marks *mk)
{
	for (int i = 0; mk && mk->reach && i < mk->n_reach && i < CTMAP_SQUARES; i++)
		if (square_ok(g, mk->reach[i]))
			return 1;
	return 0;
}

/* The pawns on square sq, and seat s's place among them (in seat order). */
static int pawns_at(const struct ctgame *g, int sq, int s, int *index)
{
	int n = 0, i = 0;

	for (int o = 0; o < g->n && o < CTGAME_MAX; o++) {
		if (g->p[o].sq == sq) {
			n++;
			i += o < s;
		}
	}
	if (index)
		*index = i;
	return n;
}

/* The cells of every tile on the map and every option. */
static void bounds(const struct ctgame *g, const struct ctpicture_marks *mk, struct frame *f)
{
	int any = 0;

	memset(f, 0, sizeof(*f));
	for (int ty = -R; ty <= R; ty++) {
		for (int tx = -R; tx <= R; tx++) {
			if (ctmap_at(&g->map, tx, ty) < 0)
				continue;
			if (!any || tx < f->cx0)
				f->cx0 = tx;
			if (!any || tx > f->cx1)
				f->cx1 = tx;
			if (!any || ty < f->cy0)
				f->cy0 = ty;
			if (!any || ty > f->cy1)
				f->cy1 = ty;
			any = 1;
		}
	}
	for (int i = 0; i < n_options(mk); i++) {
		int tx = mk->options[i].tx, ty = mk->options[i].ty;

		if (!option_ok(mk, i))
			continue;
		f->cx0 = tx < f->cx0 ? tx : f->cx0;
		f->cx1 = tx > f->cx1 ? tx : f->cx1;
		f->cy0 = ty < f->cy0 ? ty : f->cy0;
		f->cy1 = ty > f->cy1 ? ty : f->cy1;
	}
	f->full = 1;
}

/* The cell of global square coordinate v (floor division by 3). */
static int cell_of(int v)
{
	return v >= 0 ? v / 3 : -((-v + 2) / 3);
}

/* Squares of interest, as a box of global square coordinates. */
struct box {
	int any, x0, y0, x1, y1;
};

static void box_add(struct box *b, int x0, int y0, int x1, int y1)
{
	if (!b->any || x0 < b->x0)
		b->x0 = x0;
	if (!b->any || y0 < b->y0)
		b->y0 = y0;
	if (!b->any || x1 > b->x1)
		b->x1 = x1;
	if (!b->any || y1 > b->y1)
		b->y1 = y1;
	b->any = 1;
}

static void box_square(const struct ctgame *g, struct box *b, int sq, int margin)
{
	int gx, gy;

	if (!square_ok(g, sq))
		return;
	gx = ctmap_gx(&g->map, sq);
	gy = ctmap_gy(&g->map, sq);
	box_add(b, gx - margin, gy - margin, gx + margin, gy + margin);
}

/* Narrows f (the bounds) to the area in play: the pawns, the surroundings
 * of the player to move, the reachable squares, the target and the option
 * cells, with a square's margin, in whole cells, three cells a side at
 * least where the map has them. */
static void crop(const struct ctgame *g, const struct ctpicture_marks *mk, struct frame *f)
{
	struct box b = { 0 };
	int cx0, cy0, cx1, cy1;

	for (int s = 0; s < g->n && s < CTGAME_MAX; s++)
		box_square(g, &b, g->p[s].sq, 1);
	if (g->seat < g->n && g->seat < CTGAME_MAX)
		box_square(g, &b, g->p[g->seat].sq, 3);
	for (int i = 0; mk && mk->reach && i < mk->n_reach && i < CTMAP_SQUARES; i++)
		box_square(g, &b, mk->reach[i], 1);
	if (mk)
		box_square(g, &b, mk->target, 1);
	for (int i = 0; i < n_options(mk); i++)
		if (option_ok(mk, i))
			box_add(&b, 3 * mk->options[i].tx, 3 * mk->options[i].ty,
			        3 * mk->options[i].tx + 2, 3 * mk->options[i].ty + 2);
	if (!b.any)
		return;
	cx0 = cell_of(b.x0);
	cy0 = cell_of(b.y0);
	cx1 = cell_of(b.x1);
	cy1 = cell_of(b.y1);
	cx0 = cx0 < f->cx0 ? f->cx0 : cx0;
	cy0 = cy0 < f->cy0 ? f->cy0 : cy0;
	cx1 = cx1 > f->cx1 ? f->cx1 : cx1;
	cy1 = cy1 > f->cy1 ? f->cy1 : cy1;
	if (cx0 > cx1 || cy0 > cy1)
		return;
	while (cx1 - cx0 < 2 && (cx0 > f->cx0 || cx1 < f->cx1)) {
		if (cx1 < f->cx1)
			cx1++;
		if (cx1 - cx0 < 2 && cx0 > f->cx0)
			cx0--;
	}
	while (cy1 - cy0 < 2 && (cy0 > f->cy0 || cy1 < f->cy1)) {
		if (cy1 < f->cy1)
			cy1++;
		if (cy1 - cy0 < 2 && cy0 > f->cy0)
			cy0--;
	}
	f->cx0 = cx0;
	f->cy0 = cy0;
	f->cx1 = cx1;
	f->cy1 = cy1;
	f->full = 0;
}

static double legend(cairo_t *cr, const struct ctgame *g, const struct ctpicture_marks *mk,
                     double x0, double y0, double width, int paint);

/* The legend's height for a width, measured on a scratch surface; a
 * generous guess when cairo fails (the picture then fails to draw). */
static double legend_height(const struct ctgame *g, const struct ctpicture_marks *mk, double width)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	cairo_t *cr = cairo_create(s);
	double h = 8 * LEG_ROW;

	if (cairo_status(cr) == CAIRO_STATUS_SUCCESS)
		h = legend(cr, g, mk, 0, 0, width, 0);
	cairo_destroy(cr);
	cairo_surface_destroy(s);
	return h;
}

/* The whole geometry of the picture for g and mk. */
static void frame_of(const struct ctgame *g, const struct ctpicture_marks *mk, struct frame *f)
{
	double limit, s, longer;

	bounds(g, mk, f);
	if (!(mk && mk->full))
		crop(g, mk, f);
	limit = f->full ? CTPICTURE_MAX_PX : CTPICTURE_VIEW_PX;
	f->ox = AXL + PAD;
	f->oy = AXT + PAD;
	f->w = 2 * (AXL + PAD) + 3.0 * S * (f->cx1 - f->cx0 + 1);
	f->h = 2 * (AXT + PAD) + 3.0 * S * (f->cy1 - f->cy0 + 1);
	longer = f->w > f->h ? f->w : f->h;
	s = longer > limit ? limit / longer : 1.0;
	/* the legend takes height from the map: shrink the map until both fit */
	for (int round = 0; round < 4; round++) {
		f->lw = f->w * s > LEG_MIN_W ? f->w * s : LEG_MIN_W;
		f->lw = f->lw > limit ? limit : f->lw;
		f->lh = legend_height(g, mk, f->lw - 2 * LEG_MARGIN);
		if (f->h * s + f->lh <= limit)
			break;
		s = (limit - f->lh) / f->h;
		s = s < 0.05 ? 0.05 : s;
	}
	f->scale = s;
	f->pw = (int)(f->lw > f->w * s ? f->lw + 0.5 : f->w * s + 0.5);
	f->ph = (int)(f->h * s + f->lh + 0.5);
	f->pw = f->pw < 1 ? 1 : f->pw;
	f->ph = f->ph < 1 ? 1 : f->ph;
}

/* Unscaled top-left corner of global square (gx, gy). */
static double sq_x(const struct frame *f, int gx)
{
	return f->ox + (double)(gx - 3 * f->cx0) * S;
}

static double sq_y(const struct frame *f, int gy)
{
	return f->oy + (double)(gy - 3 * f->cy0) * S;
}

static int shown(const struct frame *f, int gx, int gy)
{
	return gx >= 3 * f->cx0 && gx <= 3 * f->cx1 + 2 && gy >= 3 * f->cy0 && gy <= 3 * f->cy1 + 2;
}

/* A square on the map within the picture. */
static int square_shown(const struct frame *f, const struct ctgame *g, int sq)
{
	return square_ok(g, sq) && shown(f, ctmap_gx(&g->map, sq), ctmap_gy(&g->map, sq));
}

int ctpicture_locate(const struct ctgame *g, const struct ctpicture_marks *marks, int gx, int gy,
                     double *x, double *y, double *side)
{
	struct frame f;

	frame_of(g, marks, &f);
	if (!shown(&f, gx, gy))
		return -1;
	*x = (sq_x(&f, gx) + S / 2.0) * f.scale;
	*y = (sq_y(&f, gy) + S / 2.0) * f.scale;
	*side = S * f.scale;
	return 0;
}

int ctpicture_area(const struct ctgame *g, const struct ctpicture_marks *marks, int *gx0, int *gy0,
                   int *gx1, int *gy1, int *width, int *height)
{
	struct frame f;

	frame_of(g, marks, &f);
	*gx0 = 3 * f.cx0;
	*gy0 = 3 * f.cy0;
	*gx1 = 3 * f.cx1 + 2;
	*gy1 = 3 * f.cy1 + 2;
	*width = f.pw;
	*height = f.ph;
	return f.full;
}
/* ---- drawing ---- */

static void rgb(cairo_t *cr, uint32_t c, double a)
{
	cairo_set_source_rgba(cr, ((c >> 16) & 0xff) / 255.0, ((c >> 8) & 0xff) / 255.0,
	                      (c & 0xff) / 255.0, a);
}

static uint32_t kind_rgb(int kind)
{
	switch (kind) {
	case CTMAP_STREET:
		return C_STREET;
	case CTMAP_INTERIOR:
		return C_INTERIOR;
	case CTMAP_ENTRANCE:
		return C_ENTRANCE;
	default:
		return C_BLOCKED;
	}
}

/* Writes `s` centred on (x, y) in the current font and source. */
static void text_at(cairo_t *cr, const char *s, double x, double y)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, s, &e);
	cairo_move_to(cr, x - (e.x_bearing + e.width / 2), y - (e.y_bearing + e.height / 2));
	cairo_show_text(cr, s);
}

/* Writes `s` with its right end (align 1), left end (0) or centre (0.5) at
 * x, vertically centred on the height of a digit at y. */
static void label_at(cairo_t *cr, const char *s, double x, double y, double align)
{
	cairo_text_extents_t e, d;

	cairo_text_extents(cr, s, &e);
	cairo_text_extents(cr, "0", &d);
	cairo_move_to(cr, x - align * e.x_advance, y - (d.y_bearing + d.height / 2));
	cairo_show_text(cr, s);
}

static void font(cairo_t *cr, int bold, double size)
{
	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
	                       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
}

/* The nine squares of a tile with layout `kind` at cell (tx, ty), alpha a. */
static void draw_layout(cairo_t *cr, const struct frame *f, const char *kind, int tx, int ty,
                        double a)
{
	for (int l = 0; l < 9; l++) {
		double x = sq_x(f, 3 * tx + l % 3), y = sq_y(f, 3 * ty + l / 3);

		rgb(cr, kind_rgb(kind[l]), a);
		cairo_rectangle(cr, x, y, S, S);
		cairo_fill(cr);
	}
	rgb(cr, 0x000000u, 0.25 * a);
	cairo_set_line_width(cr, 1);
	for (int i = 1; i < 3; i++) {
		double x = sq_x(f, 3 * tx + i), y = sq_y(f, 3 * ty + i);

		cairo_move_to(cr, x, sq_y(f, 3 * ty));
		cairo_rel_line_to(cr, 0, 3 * S);
		cairo_move_to(cr, sq_x(f, 3 * tx), y);
		cairo_rel_line_to(cr, 3 * S, 0);
	}
	cairo_stroke(cr);
}

static void draw_tiles(cairo_t *cr, const struct frame *f, const struct ctmap *m)
{
	for (int ty = f->cy0; ty <= f->cy1; ty++) {
		for (int tx = f->cx0; tx <= f->cx1; tx++) {
			int t = ctmap_at(m, tx, ty);

			if (t < 0)
				continue;
			if (m->where[t] == CTMAP_ACTIVATED) {
				rgb(cr, C_ACTIVATED, 1);
				cairo_rectangle(cr, sq_x(f, 3 * tx), sq_y(f, 3 * ty), 3 * S, 3 * S);
				cairo_fill(cr);
			} else {
				draw_layout(cr, f, m->kind[t], tx, ty, 1);
			}
		}
	}
	rgb(cr, C_INK, 1);
	cairo_set_line_width(cr, 2);
	for (int ty = f->cy0; ty <= f->cy1; ty++)
		for (int tx = f->cx0; tx <= f->cx1; tx++)
			if (ctmap_at(m, tx, ty) >= 0)
				cairo_rectangle(cr, sq_x(f, 3 * tx), sq_y(f, 3 * ty), 3 * S, 3 * S);
	cairo_stroke(cr);
}

/* C5: a small arrow just outside each open side, pointing away from the map. */
static void draw_streets(cairo_t *cr, const struct frame *f, const struct ctmap *m)
{
	static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };
	struct ctmap_street st[4 * CTMAP_TILES];
	int n = ctmap_streets(m, st);

	rgb(cr, C_ARROW, 1);
	for (int i = 0; i < n; i++) {
		int s = st[i].side;
		/* the middle of the tile's side, then along and across it */
		double cx = sq_x(f, 3 * st[i].tx) + 1.5 * S * (1 + dx[s]);
		double cy = sq_y(f, 3 * st[i].ty) + 1.5 * S * (1 + dy[s]);
		double ax = -dy[s], ay = dx[s];

		cairo_move_to(cr, cx + 3 * dx[s] + 7 * ax, cy + 3 * dy[s] + 7 * ay);
		cairo_line_to(cr, cx + 14 * dx[s], cy + 14 * dy[s]);
		cairo_line_to(cr, cx + 3 * dx[s] - 7 * ax, cy + 3 * dy[s] - 7 * ay);
		cairo_close_path(cr);
	}
	cairo_fill(cr);
}

static void draw_reach(cairo_t *cr, const struct frame *f, const struct ctgame *g,
                       const struct ctpicture_marks *mk)
{
	if (!mk || !mk->reach)
		return;
	for (int i = 0; i < mk->n_reach && i < CTMAP_SQUARES; i++) {
		int sq = mk->reach[i];
		double x, y;

		if (!square_shown(f, g, sq))
			continue;
		x = sq_x(f, ctmap_gx(&g->map, sq));
		y = sq_y(f, ctmap_gy(&g->map, sq));
		rgb(cr, C_REACH, 0.5);
		cairo_rectangle(cr, x, y, S, S);
		cairo_fill(cr);
		rgb(cr, C_REACH, 1);
		cairo_set_line_width(cr, 2);
		cairo_rectangle(cr, x + 3, y + 3, S - 6, S - 6);
		cairo_stroke(cr);
	}
}

/* The outline of a hooded figure in the 15-pixel box at (x, y). */
static void cultist_path(cairo_t *cr, double x, double y)
{
	cairo_new_sub_path(cr);
	cairo_arc(cr, x + 7.5, y + 4, 3.5, 0, TURN);
	cairo_close_path(cr);
	cairo_move_to(cr, x + 7.5, y + 5.5);
	cairo_line_to(cr, x + 14, y + 15);
	cairo_line_to(cr, x + 1, y + 15);
	cairo_close_path(cr);
}

/* Spread wings and a head. */
static void byakhee_path(cairo_t *cr, double x, double y)
{
	cairo_move_to(cr, x, y + 3);
	cairo_line_to(cr, x + 7.5, y + 8);
	cairo_line_to(cr, x + 15, y + 3);
	cairo_line_to(cr, x + 12.5, y + 14);
	cairo_line_to(cr, x + 7.5, y + 11);
	cairo_line_to(cr, x + 2.5, y + 14);
	cairo_close_path(cr);
	cairo_new_sub_path(cr);
	cairo_arc(cr, x + 7.5, y + 6, 2.5, 0, TURN);
	cairo_close_path(cr);
}

static void heart_path(cairo_t *cr, double x, double y)
{
	cairo_move_to(cr, x + 7.5, y + 14.5);
	cairo_curve_to(cr, x - 2, y + 7, x + 1, y - 1.5, x + 7.5, y + 3.5);
	cairo_curve_to(cr, x + 14, y - 1.5, x + 17, y + 7, x + 7.5, y + 14.5);
	cairo_close_path(cr);
}

/* A cartridge standing upright. */
static void bullet_path(cairo_t *cr, double x, double y)
{
	cairo_move_to(cr, x + 4, y + 15);
	cairo_line_to(cr, x + 4, y + 6);
	cairo_curve_to(cr, x + 4, y + 2, x + 7.5, y, x + 7.5, y);
	cairo_curve_to(cr, x + 7.5, y, x + 11, y + 2, x + 11, y + 6);
	cairo_line_to(cr, x + 11, y + 15);
	cairo_close_path(cr);
}

/* Draws the 15-unit figure `path` in a size-pixel box at (x, y), filled
 * with `fill` and edged with `edge`. */
#define MARK 18.0
static void mark(cairo_t *cr, void (*path)(cairo_t *, double, double), double x, double y,
                 double size, uint32_t fill, uint32_t edge)
{
	cairo_save(cr);
	cairo_translate(cr, x, y);
	cairo_scale(cr, size / 15, size / 15);
	path(cr, 0, 0);
	cairo_restore(cr);
	rgb(cr, fill, 1);
	cairo_fill_preserve(cr);
	rgb(cr, edge, 1);
	cairo_set_line_width(cr, size < MARK ? 0.75 : 1);
	cairo_stroke(cr);
}

static const struct {
	int bit;
	void (*path)(cairo_t *, double, double);
	uint32_t fill, edge;
} figure_kinds[4] = {
	{ CS_CULTIST, cultist_path, C_CULTIST, 0xffffffu },
	{ CS_BYAKHEE, byakhee_path, C_BYAKHEE, 0xffffffu },
	{ CS_HEART, heart_path, C_HEART, 0xffffffu },
	{ CS_BULLET, bullet_path, C_BULLET, 0x5a4500u },
};

/* On a square shared with pawns, the k figures and tokens stand in a row
 * along the top: the i-th at x, size pixels wide, 1.5 from the top. */
static void strip_spot(int k, int i, double *x, double *size)
{
	double m = k <= 2 ? 16 : k == 3 ? 14 : 11.5;
	double gap = (S - k * m) / (k + 1);

	*x = gap + i * (m + gap);
	*size = m;
}

static void draw_figures(cairo_t *cr, const struct frame *f, const struct ctgame *g)
{
	for (int sq = 0; sq < CTMAP_SQUARES; sq++) {
		int bits = g->square[sq], k = 0, i = 0;
		double x, y;

		if (!bits || !square_shown(f, g, sq))
			continue;
		x = sq_x(f, ctmap_gx(&g->map, sq));
		y = sq_y(f, ctmap_gy(&g->map, sq));
		if (!pawns_at(g, sq, 0, NULL)) {
			/* alone: cultist top left, byakhee top right, heart bottom
			 * left, bullet bottom right */
			for (int j = 0; j < 4; j++)
				if (bits & figure_kinds[j].bit)
					mark(cr, figure_kinds[j].path,
					     x + (j % 2 ? S - 2 - MARK : 2),
					     y + (j / 2 ? S - 2 - MARK : 2), MARK,
					     figure_kinds[j].fill, figure_kinds[j].edge);
			continue;
		}
		for (int j = 0; j < 4; j++)
			k += (bits & figure_kinds[j].bit) != 0;
		for (int j = 0; j < 4; j++) {
			double dx, size;

			if (!(bits & figure_kinds[j].bit))
				continue;
			strip_spot(k, i++, &dx, &size);
			mark(cr, figure_kinds[j].path, x + dx, y + 1.5, size, figure_kinds[j].fill,
			     figure_kinds[j].edge);
		}
	}
}

/* Disc centres (relative to the square's centre) and radius for n pawns
 * sharing a square, n = 1..6, in seat order; below the row of figures
 * when the square has any (`low`). */
static void pawn_spot(int n, int i, int low, double *dx, double *dy, double *r)
{
	static const double two[2][2] = { { -10, 0 }, { 10, 0 } };
	static const double three[3][2] = { { -9.5, -8 }, { 9.5, -8 }, { 0, 8.5 } };
	static const double four[4][2] = {
		{ -9.5, -9.5 }, { 9.5, -9.5 }, { -9.5, 9.5 }, { 9.5, 9.5 }
	};
	static const double six[6][2] = { { -15.5, -8 }, { 0, -8 }, { 15.5, -8 },
		                          { -15.5, 8 },  { 0, 8 },  { 15.5, 8 } };
	static const double low6[6][2] = { { -15, 2.5 },  { 0, 2.5 },  { 15, 2.5 },
		                           { -15, 16.5 }, { 0, 16.5 }, { 15, 16.5 } };

	if (low) {
		if (n <= 3) {
			*dx = n == 1 ? 0 : n == 2 ? -10 + 20 * i : -15 + 15 * i;
			*dy = 9;
			*r = n == 1 ? 10 : n == 2 ? 9 : 7.5;
		} else {
			*dx = low6[i][0], *dy = low6[i][1], *r = 6.5;
		}
		return;
	}
	switch (n) {
	case 1:
		*dx = *dy = 0;
		*r = 11;
		break;
	case 2:
		*dx = two[i][0], *dy = two[i][1], *r = 9;
		break;
	case 3:
		*dx = three[i][0], *dy = three[i][1], *r = 8.5;
		break;
	case 4:
		*dx = four[i][0], *dy = four[i][1], *r = 8.5;
		break;
	default:
		*dx = six[i][0], *dy = six[i][1], *r = 7.5;
		break;
	}
}

/* A seat-coloured disc numbered by seat, centred on (cx, cy). */
static void disc(cairo_t *cr, int s, double cx, double cy, double r)
{
	char num[12];

	cairo_new_sub_path(cr);
	cairo_arc(cr, cx, cy, r, 0, TURN);
	rgb(cr, seat_rgb[s], 1);
	cairo_fill_preserve(cr);
	rgb(cr, 0xffffffu, 1);
	cairo_set_line_width(cr, r < 8 ? 1 : 1.5);
	cairo_stroke(cr);
	snprintf(num, sizeof(num), "%d", s + 1);
	font(cr, 1, r * 1.3);
	rgb(cr, seat_ink[s], 1);
	text_at(cr, num, cx, cy);
}

static void draw_pawns(cairo_t *cr, const struct frame *f, const struct ctgame *g)
{
	for (int s = 0; s < g->n && s < CTGAME_MAX; s++) {
		int sq = g->p[s].sq, n, i;
		double dx, dy, r;

		if (!square_ok(g, sq))
			continue;
		if (!square_shown(f, g, sq))
			continue;
		n = pawns_at(g, sq, s, &i);
		pawn_spot(n, i, g->square[sq] != 0, &dx, &dy, &r);
		disc(cr, s, sq_x(f, ctmap_gx(&g->map, sq)) + S / 2.0 + dx,
		     sq_y(f, ctmap_gy(&g->map, sq)) + S / 2.0 + dy, r);
	}
}

static void draw_target(cairo_t *cr, const struct frame *f, const struct ctgame *g,
                        const struct ctpicture_marks *mk)
{
	double x, y;

	if (!mk || !square_shown(f, g, mk->target))
		return;
	x = sq_x(f, ctmap_gx(&g->map, mk->target));
	y = sq_y(f, ctmap_gy(&g->map, mk->target));
	rgb(cr, C_TARGET, 1);
	cairo_set_line_width(cr, 4);
	cairo_rectangle(cr, x + 2, y + 2, S - 4, S - 4);
	cairo_stroke(cr);
}

/* first[i]: the first option at the cell of option i (i itself for the
 * first), or -1 for an option off the grid. Returns n_options(mk). */
static int option_cells(const struct ctpicture_marks *mk, int16_t first[CTMAP_OPTIONS_MAX])
{
	int n = n_options(mk);

	for (int i = 0; i < n; i++) {
		first[i] = option_ok(mk, i) ? (int16_t)i : -1;
		for (int j = 0; j < i && first[i] == i; j++)
			if (first[j] == j && mk->options[j].tx == mk->options[i].tx &&
			    mk->options[j].ty == mk->options[i].ty)
				first[i] = (int16_t)j;
	}
	return n;
}

/* C6: every candidate cell outlined; the preview as a translucent tile. */
static void draw_option_cells(cairo_t *cr, const struct frame *f, const struct ctpicture_marks *mk)
{
	static const double dash[1] = { 6 };
	int16_t first[CTMAP_OPTIONS_MAX];
	int n = option_cells(mk, first);

	for (int i = 0; i < n; i++) {
		double x, y;

		if (first[i] != i)
			continue;
		x = sq_x(f, 3 * mk->options[i].tx);
		y = sq_y(f, 3 * mk->options[i].ty);
		rgb(cr, C_OPTION, 0.1);
		cairo_rectangle(cr, x, y, 3 * S, 3 * S);
		cairo_fill(cr);
		rgb(cr, C_OPTION, 1);
		cairo_set_line_width(cr, 2);
		cairo_set_dash(cr, dash, 1, 0);
		cairo_rectangle(cr, x + 3, y + 3, 3 * S - 6, 3 * S - 6);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
	}
}

static void draw_preview(cairo_t *cr, const struct frame *f, const struct ctpicture_marks *mk)
{
	const struct ctmap_option *o;
	char kind[9];

	if (!mk || mk->preview < 0 || mk->preview >= n_options(mk) || mk->tile < 0 ||
	    mk->tile >= CTMAP_TILES || !option_ok(mk, mk->preview))
		return;
	o = &mk->options[mk->preview];
	ctmap_layout(mk->tile, o->rot & 3, kind);
	draw_layout(cr, f, kind, o->tx, o->ty, 0.6);
	rgb(cr, C_OPTION, 1);
	cairo_set_line_width(cr, 3);
	cairo_rectangle(cr, sq_x(f, 3 * o->tx), sq_y(f, 3 * o->ty), 3 * S, 3 * S);
	cairo_stroke(cr);
}

/* The labels "#n #m" of each candidate cell, two numbers a line (the
 * first eight: ctmap_options gives a cell four at most). */
static void draw_option_labels(cairo_t *cr, const struct frame *f, const struct ctpicture_marks *mk)
{
	enum { PER_LINE = 2, LINES = 4 };
	int16_t first[CTMAP_OPTIONS_MAX];
	int n = option_cells(mk, first);

	font(cr, 1, 15);
	for (int i = 0; i < n; i++) {
		char line[LINES][32];
		int k = 0;
		double cx, cy;

		if (first[i] != i)
			continue;
		memset(line, 0, sizeof(line));
		for (int j = i; j < n && k < PER_LINE * LINES; j++) {
			char *l = line[k / PER_LINE];
			size_t used = strlen(l);

			if (first[j] != i)
				continue;
			snprintf(l + used, sizeof(line[0]) - used, "%s#%d", used ? " " : "", j + 1);
			k++;
		}
		cx = sq_x(f, 3 * mk->options[i].tx) + 1.5 * S;
		cy = sq_y(f, 3 * mk->options[i].ty) + 1.5 * S;
		for (int l = 0, lines = (k + PER_LINE - 1) / PER_LINE; l < lines; l++) {
			double y = cy + 20 * (l - (lines - 1) / 2.0);
			cairo_text_extents_t e;

			cairo_text_extents(cr, line[l], &e);
			rgb(cr, 0xffffffu, 0.85);
			cairo_rectangle(cr, cx - e.x_advance / 2 - 3, y - 9, e.x_advance + 6, 18);
			cairo_fill(cr);
			rgb(cr, C_OPTION, 1);
			text_at(cr, line[l], cx, y);
		}
	}
}

/* C5: every column's gx above and below the map, every row's gy left and right. */
static void draw_axes(cairo_t *cr, const struct frame *f)
{
	char s[16];

	font(cr, 0, 12);
	rgb(cr, 0x333333u, 1);
	for (int gx = 3 * f->cx0; gx <= 3 * f->cx1 + 2; gx++) {
		double x = sq_x(f, gx) + S / 2.0;

		snprintf(s, sizeof(s), "%d", gx);
		label_at(cr, s, x, AXT / 2 + 2, 0.5);
		label_at(cr, s, x, f->h - AXT / 2 - 2, 0.5);
	}
	for (int gy = 3 * f->cy0; gy <= 3 * f->cy1 + 2; gy++) {
		double y = sq_y(f, gy) + S / 2.0;

		snprintf(s, sizeof(s), "%d", gy);
		label_at(cr, s, AXL - 4, y, 1);
		label_at(cr, s, f->w - AXL + 4, y, 0);
	}
}

/* ---- Ritual Site labels ---- */

#define LABEL_LINES 5

/* A site's label: its name in up to four lines, then its state, in a box
 * centred on the tile (unscaled pixels). */
struct label {
	double x, y, w, h; /* the box */
	double fs, lh;     /* font size, line height */
	int lines;         /* the name's lines; the state is one more */
	char line[LABEL_LINES][128];
	uint32_t border;
};

static double overlap(double ax, double ay, double aw, double ah, double bx, double by, double bw,
                      double bh)
{
	double w = (ax + aw < bx + bw ? ax + aw : bx + bw) - (ax > bx ? ax : bx);
	double h = (ay + ah < by + bh ? ay + ah : by + bh) - (ay > by ? ay : by);

	return w > 0 && h > 0 ? w * h : 0;
}

/* The area of the box (unscaled) over figures, tokens and pawns. */
static double covered(const struct frame *f, const struct ctgame *g, double x, double y, double w,
                      double h)
{
	const struct ctmap *m = &g->map;
	double area = 0;
	int gx0 = 3 * f->cx0 + (int)((x - f->ox) / S) - 1,
	    gy0 = 3 * f->cy0 + (int)((y - f->oy) / S) - 1;

	for (int gy = gy0; gy <= gy0 + (int)(h / S) + 2; gy++) {
		for (int gx = gx0; gx <= gx0 + (int)(w / S) + 2; gx++) {
			int tx = cell_of(gx), ty = cell_of(gy), t = ctmap_at(m, tx, ty), sq, bits;
			double sx = sq_x(f, gx), sy = sq_y(f, gy);

			if (t < 0 || m->where[t] != CTMAP_PLACED)
				continue;
			sq = t * 9 + (gy - 3 * ty) * 3 + (gx - 3 * tx);
			bits = g->square[sq];
			if (pawns_at(g, sq, 0, NULL)) {
				area += overlap(x, y, w, h, sx, sy + (bits ? 0 : 8), S,
				                bits ? S : S - 16);
				continue;
			}
			for (int j = 0; j < 4; j++)
				if (bits & figure_kinds[j].bit)
					area +=
					    overlap(x, y, w, h, sx + (j % 2 ? S - 2 - MARK : 2),
					            sy + (j / 2 ? S - 2 - MARK : 2), MARK, MARK);
		}
	}
	return area;
}

/* Lays out the label of site `t` when the picture shows it: a site on the
 * map, or a site taken off whose cell is still empty. Returns 0, or -1
 * when the picture shows no label of t. */
static int site_label(cairo_t *cr, const struct frame *f, const struct ctgame *g,
                      const struct ctpicture_marks *mk, int li, int t, struct label *lb)
{
	const struct ctmap *m = &g->map;
	int st = site_state(m, t), tx = m->tx[t], ty = m->ty[t];
	const char *name = ctnames_tile(t, names_lang(li));
	double maxw = 3 * S + 16, wide = 0;
	cairo_text_extents_t e;

	if (st < 0 || tx < f->cx0 || tx > f->cx1 || ty < f->cy0 || ty > f->cy1)
		return -1;
	if ((st == W_SANCTIFIED || st == W_REMOVED) ? ctmap_at(m, tx, ty) >= 0
	                                            : ctmap_at(m, tx, ty) != t)
		return -1;
	memset(lb, 0, sizeof(*lb));
	/* about 11 pixels on the screen, within 11..17 unscaled */
	lb->fs = 11.0 / f->scale;
	lb->fs = lb->fs < 11 ? 11 : lb->fs > 17 ? 17 : lb->fs;
	lb->lh = lb->fs * 1.25;
	font(cr, 1, lb->fs);
	/* the name's words, as many a line as fit in maxw */
	for (const char *p = name; *p && lb->lines < LABEL_LINES - 1;) {
		char *l = lb->line[lb->lines];
		size_t used = strlen(l), n = strcspn(p, " ");
		char try[2 * sizeof(lb->line[0]) + 2];

		snprintf(try, sizeof(try), "%s%s%.*s", l, used ? " " : "", (int)(n % 128), p);
		cairo_text_extents(cr, try, &e);
		if (used && (e.x_advance > maxw || strlen(try) >= sizeof(lb->line[0]))) {
			lb->lines++;
			continue;
		}
		snprintf(l, sizeof(lb->line[0]), "%.127s", try);
		p += n;
		p += *p == ' ';
	}
	if (lb->line[lb->lines][0])
		lb->lines++;
	site_state_text(g, mk, li, t, lb->line[lb->lines], sizeof(lb->line[0]));
	for (int i = 0; i <= lb->lines; i++) {
		font(cr, i < lb->lines, lb->fs);
		cairo_text_extents(cr, lb->line[i], &e);
		wide = e.x_advance > wide ? e.x_advance : wide;
	}
	lb->w = wide + 8;
	lb->h = (lb->lines + 1) * lb->lh + 5;
	lb->x = sq_x(f, 3 * tx) + 1.5 * S - lb->w / 2;
	lb->x = lb->x < f->ox - PAD ? f->ox - PAD : lb->x;
	if (lb->x + lb->w > f->ox + 3.0 * S * (f->cx1 - f->cx0 + 1) + PAD)
		lb->x = f->ox + 3.0 * S * (f->cx1 - f->cx0 + 1) + PAD - lb->w;
	/* the height on the tile where it hides the least */
	for (int i = 0, best = -1; i < 7; i++) {
		static const double at[7] = { 1.5, 1, 2, 0.5, 2.5, 0, 3 };
		double y = sq_y(f, 3 * ty) + at[i] * S - lb->h / 2;
		double top = f->oy - PAD / 2,
		       bottom = f->oy + 3.0 * S * (f->cy1 - f->cy0 + 1) + PAD / 2;
		double c;

		y = y + lb->h > bottom ? bottom - lb->h : y;
		y = y < top ? top : y;
		c = covered(f, g, lb->x, y, lb->w, lb->h);

		if (best < 0 || c < best) {
			best = (int)c;
			lb->y = y;
		}
	}
	lb->border = site_rgb(st);
	return 0;
}

/* The dashed outline of the cells of sites taken off the map. */
static void draw_site_cells(cairo_t *cr, const struct frame *f, const struct ctgame *g)
{
	static const double dash[1] = { 5 };
	const struct ctmap *m = &g->map;

	for (int t = CTMAP_SITE_FIRST; t < CTMAP_TILES; t++) {
		int st = site_state(m, t);

		if ((st != W_SANCTIFIED && st != W_REMOVED) || ctmap_at(m, m->tx[t], m->ty[t]) >= 0)
			continue;
		rgb(cr, site_rgb(st), 1);
		cairo_set_line_width(cr, 2);
		cairo_set_dash(cr, dash, 1, 0);
		cairo_rectangle(cr, sq_x(f, 3 * m->tx[t]) + 2, sq_y(f, 3 * m->ty[t]) + 2, 3 * S - 4,
		                3 * S - 4);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
	}
}

static void draw_site_labels(cairo_t *cr, const struct frame *f, const struct ctgame *g,
                             const struct ctpicture_marks *mk, int li)
{
	struct label lb;

	for (int t = CTMAP_SITE_FIRST; t < CTMAP_TILES; t++) {
		if (site_label(cr, f, g, mk, li, t, &lb) < 0)
			continue;
		rgb(cr, C_LABEL, 0.92);
		cairo_rectangle(cr, lb.x, lb.y, lb.w, lb.h);
		cairo_fill_preserve(cr);
		rgb(cr, lb.border, 1);
		cairo_set_line_width(cr, 2);
		cairo_stroke(cr);
		for (int i = 0; i <= lb.lines; i++) {
			font(cr, i < lb.lines, lb.fs);
			rgb(cr, i < lb.lines ? C_INK : lb.border, 1);
			label_at(cr, lb.line[i], lb.x + lb.w / 2, lb.y + 2.5 + lb.lh * (i + 0.5),
			         0.5);
		}
	}
}

int ctpicture_label(const struct ctgame *g, const struct ctpicture_marks *marks, int tile,
                    double *x, double *y, double *w, double *h)
{
	cairo_surface_t *s;
	cairo_t *cr;
	struct frame f;
	struct label lb;
	int r = -1;

	if (tile < CTMAP_SITE_FIRST || tile >= CTMAP_TILES)
		return -1;
	frame_of(g, marks, &f);
	s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	cr = cairo_create(s);
	if (cairo_status(cr) == CAIRO_STATUS_SUCCESS &&
	    site_label(cr, &f, g, marks, lang_index(marks ? marks->lang : NULL), tile, &lb) == 0) {
		*x = lb.x * f.scale;
		*y = lb.y * f.scale;
		*w = lb.w * f.scale;
		*h = lb.h * f.scale;
		r = 0;
	}
	cairo_destroy(cr);
	cairo_surface_destroy(s);
	return r;
}

/* ---- the legend ---- */

enum icon {
	I_NONE,
	I_SWATCH,
	I_FIGURE, /* figure_kinds[arg] */
	I_ARROW,
	I_REACH,
	I_TARGET,
	I_OPTION,
	I_DISC, /* seat arg */
	I_SITE, /* a label box edged in colour arg */
};

/* Items laid out left to right in lines of a width. */
struct flow {
	cairo_t *cr;
	double x0, w, x, y; /* y: the top of the current line */
	int paint;
};

static void icon(cairo_t *cr, enum icon ic, uint32_t arg, double x, double y)
{
	static const double dash[1] = { 3 };
	const double k = LEG_ICON;

	switch (ic) {
	case I_SWATCH:
		rgb(cr, arg, 1);
		cairo_rectangle(cr, x, y, k, k);
		cairo_fill_preserve(cr);
		rgb(cr, 0x000000u, 0.35);
		cairo_set_line_width(cr, 1);
		cairo_stroke(cr);
		break;
	case I_FIGURE:
		mark(cr, figure_kinds[arg].path, x, y, k, figure_kinds[arg].fill,
		     figure_kinds[arg].edge);
		break;
	case I_ARROW:
		rgb(cr, C_ARROW, 1);
		cairo_move_to(cr, x + 3, y + 1);
		cairo_line_to(cr, x + 14, y + k / 2);
		cairo_line_to(cr, x + 3, y + k - 1);
		cairo_close_path(cr);
		cairo_fill(cr);
		break;
	case I_REACH:
		rgb(cr, C_STREET, 1);
		cairo_rectangle(cr, x, y, k, k);
		cairo_fill(cr);
		rgb(cr, C_REACH, 0.5);
		cairo_rectangle(cr, x, y, k, k);
		cairo_fill(cr);
		rgb(cr, C_REACH, 1);
		cairo_set_line_width(cr, 2);
		cairo_rectangle(cr, x + 2, y + 2, k - 4, k - 4);
		cairo_stroke(cr);
		break;
	case I_TARGET:
		rgb(cr, C_TARGET, 1);
		cairo_set_line_width(cr, 3);
		cairo_rectangle(cr, x + 1.5, y + 1.5, k - 3, k - 3);
		cairo_stroke(cr);
		break;
	case I_OPTION:
		rgb(cr, C_OPTION, 1);
		cairo_set_line_width(cr, 2);
		cairo_set_dash(cr, dash, 1, 0);
		cairo_rectangle(cr, x + 1, y + 1, k - 2, k - 2);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
		break;
	case I_DISC:
		disc(cr, (int)arg, x + k / 2, y + k / 2, k / 2);
		break;
	case I_SITE:
		rgb(cr, C_LABEL, 1);
		cairo_rectangle(cr, x + 1, y + 2, k - 2, k - 4);
		cairo_fill_preserve(cr);
		rgb(cr, arg, 1);
		cairo_set_line_width(cr, 2);
		cairo_stroke(cr);
		break;
	default:
		break;
	}
}

/* Starts a new line unless the current one is empty. */
static void flow_break(struct flow *fl)
{
	if (fl->x > fl->x0) {
		fl->x = fl->x0;
		fl->y += LEG_ROW;
	}
}

/* One item: a symbol (none for I_NONE) and its words, on the current line
 * when it fits. */
static void flow_item(struct flow *fl, enum icon ic, uint32_t arg, const char *s, int bold)
{
	cairo_text_extents_t e;
	double iw = ic == I_NONE ? 0 : LEG_ICON + 5, wd;

	font(fl->cr, bold, LEG_FONT);
	cairo_text_extents(fl->cr, s, &e);
	wd = iw + e.x_advance;
	if (fl->x > fl->x0 && fl->x + wd > fl->x0 + fl->w)
		flow_break(fl);
	if (fl->paint) {
		if (ic != I_NONE)
			icon(fl->cr, ic, arg, fl->x, fl->y + (LEG_ROW - LEG_ICON) / 2);
		font(fl->cr, bold, LEG_FONT);
		rgb(fl->cr, C_INK, 1);
		label_at(fl->cr, s, fl->x + iw, fl->y + LEG_ROW / 2, 0);
	}
	fl->x += wd + LEG_GAP;
}

/* Lays out (and with `paint` draws) the legend at (x0, y0) in `width`
 * pixels; returns its height. */
static double legend(cairo_t *cr, const struct ctgame *g, const struct ctpicture_marks *mk,
                     double x0, double y0, double width, int paint)
{
	static const int kinds[5] = { W_STREET, W_INTERIOR, W_ENTRANCE, W_BLOCKED, W_ACTIVATED };
	static const uint32_t kind_c[5] = { C_STREET, C_INTERIOR, C_ENTRANCE, C_BLOCKED,
		                            C_ACTIVATED };
	int li = lang_index(mk ? mk->lang : NULL), sites = 0;
	struct flow fl = { cr, x0, width, x0, y0 + 6, paint };
	char buf[256], name[64];

	if (paint) {
		rgb(cr, 0x000000u, 0.3);
		cairo_set_line_width(cr, 1);
		cairo_move_to(cr, 0, y0 + 0.5);
		cairo_rel_line_to(cr, x0 + width + LEG_MARGIN, 0);
		cairo_stroke(cr);
	}
	flow_item(&fl, I_NONE, 0, word(li, W_H_PLAYERS), 1);
	for (int s = 0; s < g->n && s < CTGAME_MAX; s++) {
		seat_label(mk, li, s, name, sizeof(name));
		flow_item(&fl, I_DISC, (uint32_t)s, name, s == g->seat && !g->end);
	}
	flow_break(&fl);
	flow_item(&fl, I_NONE, 0, word(li, W_H_SQUARES), 1);
	for (int k = 0; k < 5; k++)
		flow_item(&fl, I_SWATCH, kind_c[k], word(li, kinds[k]), 0);
	flow_break(&fl);
	flow_item(&fl, I_NONE, 0, word(li, W_H_FIGURES), 1);
	for (int k = 0; k < 4; k++)
		flow_item(&fl, I_FIGURE, (uint32_t)k, word(li, W_CULTIST + k), 0);
	flow_item(&fl, I_ARROW, 0, word(li, W_OPEN), 0);
	if (any_reach(g, mk) || (mk && square_ok(g, mk->target)) || n_options(mk)) {
		flow_break(&fl);
		flow_item(&fl, I_NONE, 0, word(li, W_H_MARKS), 1);
		if (any_reach(g, mk))
			flow_item(&fl, I_REACH, 0, word(li, W_REACH), 0);
		if (mk && square_ok(g, mk->target))
			flow_item(&fl, I_TARGET, 0, word(li, W_TARGET), 0);
		if (n_options(mk)) {
			snprintf(buf, sizeof(buf), "#n %s", word(li, W_OPTION));
			flow_item(&fl, I_OPTION, 0, buf, 0);
		}
	}
	for (int t = CTMAP_SITE_FIRST; t < CTMAP_TILES; t++) {
		int st = site_state(&g->map, t);

		if (st < 0)
			continue;
		if (!sites++) {
			flow_break(&fl);
			flow_item(&fl, I_NONE, 0, word(li, W_H_SITES), 1);
		}
		site_state_text(g, mk, li, t, name, sizeof(name));
		snprintf(buf, sizeof(buf), "%s: %s", ctnames_tile(t, names_lang(li)), name);
		flow_item(&fl, I_SITE, site_rgb(st), buf, 0);
	}
	return fl.y + LEG_ROW + LEG_MARGIN / 2 - y0;
}

static void draw(cairo_t *cr, const struct frame *f, const struct ctgame *g,
                 const struct ctpicture_marks *mk)
{
	cairo_font_options_t *fo = cairo_font_options_create();
	int li = lang_index(mk ? mk->lang : NULL);

	/* the same glyphs whatever the machine's font configuration says */
	cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	cairo_set_font_options(cr, fo);
	cairo_font_options_destroy(fo);

	rgb(cr, C_PAPER, 1);
	cairo_paint(cr);
	cairo_save(cr);
	cairo_scale(cr, f->scale, f->scale);
	cairo_save(cr);
	/* a cropped map ends at the arrows' band */
	cairo_rectangle(cr, f->ox - PAD, f->oy - PAD, 3.0 * S * (f->cx1 - f->cx0 + 1) + 2 * PAD,
	                3.0 * S * (f->cy1 - f->cy0 + 1) + 2 * PAD);
	cairo_clip(cr);
	draw_option_cells(cr, f, mk);
	draw_tiles(cr, f, &g->map);
	draw_site_cells(cr, f, g);
	draw_reach(cr, f, g, mk);
	draw_streets(cr, f, &g->map);
	draw_preview(cr, f, mk);
	draw_site_labels(cr, f, g, mk, li);
	draw_figures(cr, f, g);
	draw_pawns(cr, f, g);
	draw_target(cr, f, g, mk);
	draw_option_labels(cr, f, mk);
	cairo_restore(cr);
	draw_axes(cr, f);
	cairo_restore(cr);
	legend(cr, g, mk, LEG_MARGIN, f->h * f->scale, f->lw - 2 * LEG_MARGIN, 1);
}

/* ---- PNG ---- */

/* The encoder's settings: on these flat-coloured maps, zlib level 3 with no
 * row filter gives files as small as cairo's (level 6, every filter tried
 * on every row) in a quarter of the time. */
#define PNG_LEVEL 3

/* A growing buffer capped at CTPICTURE_PNG_MAX; over = 1 once a write did not
 * fit or memory ran out. */
struct sink {
	unsigned char *buf;
	size_t len, cap;
	int over;
};

static void sink_write(png_structp pp, png_bytep data, size_t n)
{
	struct sink *k = png_get_io_ptr(pp);

	if (k->over || n > CTPICTURE_PNG_MAX - k->len) {
		k->over = 1;
		return;
	}
	if (k->len + n > k->cap) {
		size_t cap = k->cap ? k->cap : 64 * 1024;
		unsigned char *p;

		while (cap < k->len + n)
			cap *= 2;
		cap = cap < CTPICTURE_PNG_MAX ? cap : CTPICTURE_PNG_MAX;
		p = realloc(k->buf, cap);
		if (!p) {
			k->over = 1;
			return;
		}
		k->buf = p;
		k->cap = cap;
	}
	memcpy(k->buf + k->len, data, n);
	k->len += n;
}

static void sink_flush(png_structp pp)
{
	(void)pp;
}

/* Writes the rows of an RGB24 surface as an 8-bit RGB PNG into k, through
 * `row` (3 * width bytes). Returns 0, or -1 (k's bytes then unspecified). */
static int encode(cairo_surface_t *s, unsigned char *row, struct sink *k)
{
	png_structp pp = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop ip = pp ? png_create_info_struct(pp) : NULL;
	int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
	int stride = cairo_image_surface_get_stride(s);
	const unsigned char *data = cairo_image_surface_get_data(s);

	if (!ip || !data || setjmp(png_jmpbuf(pp))) {
		png_destroy_write_struct(&pp, &ip);
		return -1;
	}
	png_set_write_fn(pp, k, sink_write, sink_flush);
	png_set_compression_level(pp, PNG_LEVEL);
	png_set_filter(pp, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
	png_set_IHDR(pp, ip, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
	             PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
	png_write_info(pp, ip);
	for (int y = 0; y < h && !k->over; y++) {
		const uint32_t *px =
		    (const uint32_t *)(const void *)(data + (size_t)y * (size_t)stride);
		for (int x = 0; x < w; x++) {
			row[3 * x] = (unsigned char)(px[x] >> 16);
			row[3 * x + 1] = (unsigned char)(px[x] >> 8);
			row[3 * x + 2] = (unsigned char)px[x];
		}
		png_write_row(pp, row);
	}
	if (!k->over)
		png_write_end(pp, ip);
	png_destroy_write_struct(&pp, &ip);
	return k->over ? -1 : 0;
}

/* Draws the picture of g with mk and encodes it (ctpicture_png's contract). */
static int render(const struct ctgame *g, const struct ctpicture_marks *mk, unsigned char **png,
                  size_t *len)
{
	struct sink k = { NULL, 0, 0, 0 };
	cairo_surface_t *surface;
	cairo_t *cr = NULL;
	unsigned char *row = NULL;
	struct frame f;
	int result = -1;

	frame_of(g, mk, &f);
	surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, f.pw, f.ph);
	if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS)
		goto out;
	cr = cairo_create(surface);
	if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
		goto out;
	draw(cr, &f, g, mk);
	if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
		goto out;
	cairo_surface_flush(surface);
	row = malloc(3 * (size_t)f.pw);
	if (!row || encode(surface, row, &k) < 0)
		goto out;
	*png = k.buf;
	*len = k.len;
	k.buf = NULL;
	result = 0;
out:
	free(row);
	free(k.buf);
	cairo_destroy(cr);
	cairo_surface_destroy(surface);
	return result;
}

/* ---- the cache of pictures ---- */

/* Everything the PNG is drawn from, in a canonical form: the part of the
 * state the picture shows (every other field zero) and the marks' values
 * (arrays copied, counts clamped, names cut one byte past what the legend
 * shows, the language as its legend index). A miss draws from the key
 * itself (key_marks), so two equal keys give the same bytes whatever else
 * differs between the states they were taken from. */
struct key {
	struct ctgame g;
	int32_t tile, preview, target, full, lang, n_options, n_reach;
	char names[CTGAME_MAX][SHOWN_NAME + 2];
	struct ctmap_option options[CTMAP_OPTIONS_MAX];
	int16_t reach[CTMAP_SQUARES];
};

#define CACHE_SLOTS 8
#define CACHE_BYTES (2 << 20) /* PNG bytes kept at most, all slots together */

struct slot {
	struct key *key; /* NULL: empty */
	unsigned char *png;
	size_t len;
	uint64_t used; /* the cache's clock at the last hit or store */
};

static struct {
	pthread_mutex_t lock;
	struct slot slot[CACHE_SLOTS];
	size_t bytes;
	uint64_t clock;
	struct ctpicture_cache_stats stats;
} cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Sets *k to the key of g and mk (mk may be NULL). */
static void key_of(const struct ctgame *g, const struct ctpicture_marks *mk, struct key *k)
{
	int n = g->n < CTGAME_MAX ? g->n : CTGAME_MAX;

	memset(k, 0, sizeof(*k));
	k->g.map = g->map;
	memcpy(k->g.square, g->square, sizeof(g->square));
	k->g.n = g->n;
	k->g.seat = g->seat;
	k->g.end = g->end;
	for (int s = 0; s < n; s++) {
		k->g.p[s].sq = g->p[s].sq;
		k->g.p[s].sites = g->p[s].sites;
	}
	k->tile = mk ? mk->tile : -1;
	k->preview = mk ? mk->preview : -1;
	k->target = mk ? mk->target : -1;
	k->full = mk ? mk->full != 0 : 0;
	k->lang = lang_index(mk ? mk->lang : NULL);
	k->n_options = n_options(mk);
	if (k->n_options)
		memcpy(k->options, mk->options, (size_t)k->n_options * sizeof(k->options[0]));
	if (mk && mk->reach && mk->n_reach > 0) {
		k->n_reach = mk->n_reach < CTMAP_SQUARES ? mk->n_reach : CTMAP_SQUARES;
		memcpy(k->reach, mk->reach, (size_t)k->n_reach * sizeof(k->reach[0]));
	}
	for (int s = 0; mk && s < CTGAME_MAX; s++)
		if (mk->names[s])
			snprintf(k->names[s], sizeof(k->names[s]), "%s", mk->names[s]);
}

/* The marks a key stands for, pointing into k. */
static void key_marks(const struct key *k, struct ctpicture_marks *mk)
{
	ctpicture_marks_init(mk);
	mk->tile = k->tile;
	mk->preview = k->preview;
	mk->target = k->target;
	mk->full = k->full;
	mk->lang = legends[k->lang].lang;
	mk->options = k->options;
	mk->n_options = k->n_options;
	mk->reach = k->reach;
	mk->n_reach = k->n_reach;
	for (int s = 0; s < CTGAME_MAX; s++)
		mk->names[s] = k->names[s];
}

/* A malloc'd copy of the cached PNG of k into *png, *len (0), or -1 when
 * there is none (or no memory for the copy). Called with the lock held. */
static int cache_get(const struct key *k, unsigned char **png, size_t *len)
{
	for (int i = 0; i < CACHE_SLOTS; i++) {
		struct slot *sl = &cache.slot[i];
		if (!sl->key || memcmp(sl->key, k, sizeof(*k)) != 0)
			continue;
		if (!(*png = malloc(sl->len)))
			return -1;
		memcpy(*png, sl->png, sl->len);
		*len = sl->len;
		sl->used = ++cache.clock;
		return 0;
	}
	return -1;
}

static void slot_free(struct slot *sl)
{
	cache.bytes -= sl->key ? sl->len : 0;
	free(sl->key);
	free(sl->png);
	memset(sl, 0, sizeof(*sl));
}

/* Keeps copies of k and png[0..len-1], in place of the least recently used
 * slots as the bounds require. Nothing is kept when memory is short or
 * the PNG alone passes a quarter of CACHE_BYTES. Called with the lock held. */
static void cache_put(const struct key *k, const unsigned char *png, size_t len)
{
	struct slot *sl = NULL;
	struct key *kc;
	unsigned char *pc;

	if (len > CACHE_BYTES / 4)
		return;
	for (;;) {
		struct slot *lru = NULL;
		int empty = 0;
		for (int i = 0; i < CACHE_SLOTS; i++) {
			if (!cache.slot[i].key) {
				empty = 1;
				sl = sl ? sl : &cache.slot[i];
			} else if (!lru || cache.slot[i].used < lru->used)
				lru = &cache.slot[i];
		}
		if (empty && cache.bytes + len <= CACHE_BYTES)
			break;
		slot_free(lru);
		cache.stats.evictions++;
		sl = NULL;
	}
	kc = malloc(sizeof(*kc));
	pc = malloc(len);
	if (!kc || !pc) {
		free(kc);
		free(pc);
		return;
	}
	memcpy(kc, k, sizeof(*k));
	memcpy(pc, png, len);
	sl->key = kc;
	sl->png = pc;
	sl->len = len;
	sl->used = ++cache.clock;
	cache.bytes += len;
}

int ctpicture_png(const struct ctgame *g, const struct ctpicture_marks *marks, unsigned char **png,
                  size_t *len)
{
	struct ctpicture_marks mk;
	struct key *k = malloc(sizeof(*k));
	int rc;

	*png = NULL;
	*len = 0;
	if (!k)
		return -1;
	key_of(g, marks, k);
	pthread_mutex_lock(&cache.lock);
	rc = cache_get(k, png, len);
	if (rc == 0)
		cache.stats.hits++;
	pthread_mutex_unlock(&cache.lock);
	if (rc == 0) {
		free(k);
		return 0;
	}
	key_marks(k, &mk);
	rc = render(&k->g, &mk, png, len);
	pthread_mutex_lock(&cache.lock);
	cache.stats.renders++;
	if (rc == 0)
		cache_put(k, *png, *len);
	pthread_mutex_unlock(&cache.lock);
	free(k);
	if (rc < 0) {
		*png = NULL;
		*len = 0;
	}
	return rc;
}

void ctpicture_cache_stats(struct ctpicture_cache_stats *out)
{
	pthread_mutex_lock(&cache.lock);
	*out = cache.stats;
	out->entries = 0;
	for (int i = 0; i < CACHE_SLOTS; i++)
		out->entries += cache.slot[i].key != NULL;
	out->bytes = cache.bytes;
	pthread_mutex_unlock(&cache.lock);
}

void ctpicture_cache_clear(void)
{
	pthread_mutex_lock(&cache.lock);
	for (int i = 0; i < CACHE_SLOTS; i++)
		slot_free(&cache.slot[i]);
	cache.bytes = 0;
	pthread_mutex_unlock(&cache.lock);
}

int ctpicture_png_file(const struct ctgame *g, const struct ctpicture_marks *marks,
                       const char *path)
{
	unsigned char *png;
	size_t len;
	FILE *fp;
	int saved;

	if (ctpicture_png(g, marks, &png, &len) < 0) {
		errno = EIO;
		return -1;
	}
	fp = fopen(path, "wb");
	if (!fp) {
		saved = errno;
		free(png);
		errno = saved;
		return -1;
	}
	if (fwrite(png, 1, len, fp) != len) {
		saved = errno ? errno : EIO;
		fclose(fp);
		goto fail;
	}
	free(png);
	png = NULL;
	if (fclose(fp) != 0) {
		saved = errno;
		goto fail;
	}
	return 0;
fail:
	free(png);
	unlink(path);
	errno = saved;
	return -1;
}

void ctpicture_cleanup(void)
{
	ctpicture_cache_clear();
	cairo_debug_reset_static_data();
	FcFini();
}

/* ---- text ---- */

/* A capped writer into the caller's buffer. */
struct out {
	char *buf;
	size_t cap, len;
	int over;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->over || n >= o->cap - o->len) {
		o->over = 1;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

/* Appends `line` without its trailing spaces, then a newline. */
static void put_line(struct out *o, const char *line, size_t n)
{
	while (n > 0 && line[n - 1] == ' ')
		n--;
	put(o, line, n);
	put(o, "\n", 1);
}

/* The players by seat, when the caller names any. */
static void text_players(struct out *o, const struct ctgame *g, const struct ctpicture_marks *mk,
                         int li)
{
	char item[96], name[64];
	int any = 0;

	for (int s = 0; mk && s < CTGAME_MAX; s++)
		any |= mk->names[s] != NULL;
	if (!any)
		return;
	put(o, word(li, W_H_PLAYERS), strlen(word(li, W_H_PLAYERS)));
	for (int s = 0; s < g->n && s < CTGAME_MAX; s++) {
		seat_label(mk, li, s, name, sizeof(name));
		snprintf(item, sizeof(item), "%s %d %s", s ? "," : "", s + 1, name);
		put(o, item, strlen(item));
	}
	put(o, "\n", 1);
}

/* A line per Ritual Site that is or was on the map: its name, its middle
 * square and its state. */
static void text_sites(struct out *o, const struct ctgame *g, const struct ctpicture_marks *mk,
                       int li)
{
	const struct ctmap *m = &g->map;

	for (int t = CTMAP_SITE_FIRST; t < CTMAP_TILES; t++) {
		char line[256], state[96];

		if (site_state(m, t) < 0)
			continue;
		site_state_text(g, mk, li, t, state, sizeof(state));
		snprintf(line, sizeof(line), "%s %s (%d,%d): %s\n", word(li, W_SITE),
		         ctnames_tile(t, names_lang(li)), 3 * m->tx[t] + 1, 3 * m->ty[t] + 1,
		         state);
		put(o, line, strlen(line));
	}
}

/* The square at global (gx, gy) face up on the map, or -1. */
static int square_at(const struct ctgame *g, int gx, int gy)
{
	int tx = cell_of(gx), ty = cell_of(gy), t = ctmap_at(&g->map, tx, ty);

	if (t < 0 || g->map.where[t] != CTMAP_PLACED)
		return -1;
	return t * 9 + (gy - 3 * ty) * 3 + (gx - 3 * tx);
}

/* A line "gx,gy: pawn 1, pawn 3, cultist" per square of f that holds more
 * than one thing, in reading order, written to o (when not NULL) in
 * language li; returns how many such squares there are. */
static int text_shared(const struct ctgame *g, const struct frame *f, struct out *o, int li)
{
	int count = 0;

	for (int gy = 3 * f->cy0; gy <= 3 * f->cy1 + 2; gy++) {
		for (int gx = 3 * f->cx0; gx <= 3 * f->cx1 + 2; gx++) {
			int sq = square_at(g, gx, gy), bits, things;
			char item[64];

			if (sq < 0)
				continue;
			bits = g->square[sq];
			things = pawns_at(g, sq, 0, NULL);
			for (int j = 0; j < 4; j++)
				things += (bits & figure_kinds[j].bit) != 0;
			if (things < 2)
				continue;
			count++;
			if (!o)
				continue;
			snprintf(item, sizeof(item), "%d,%d:", gx, gy);
			put(o, item, strlen(item));
			things = 0;
			for (int s = 0; s < g->n && s < CTGAME_MAX; s++) {
				if (g->p[s].sq != sq)
					continue;
				snprintf(item, sizeof(item), "%s %s %d", things++ ? "," : "",
				         word(li, W_ONE_PAWN), s + 1);
				put(o, item, strlen(item));
			}
			for (int j = 0; j < 4; j++) {
				if (!(bits & figure_kinds[j].bit))
					continue;
				snprintf(item, sizeof(item), "%s %s", things++ ? "," : "",
				         word(li, W_CULTIST + j));
				put(o, item, strlen(item));
			}
			put(o, "\n", 1);
		}
	}
	return count;
}

#define TW (3 * CTMAP_DIM) /* squares across the grid */

/* The character of every square of the frame, [gy - 3 cy0][gx - 3 cx0]. */
static void text_grid(const struct ctgame *g, const struct ctpicture_marks *mk,
                      const struct frame *f, char grid[TW][TW])
{
	static const char arrow[4] = { '^', '>', 'v', '<' };
	static const int mid[4] = { 1, 5, 7, 3 };
	const struct ctmap *m = &g->map;
	struct ctmap_street st[4 * CTMAP_TILES];
	int gx0 = 3 * f->cx0, gy0 = 3 * f->cy0, n;
	uint8_t reach[CTMAP_BITMAP_BYTES] = { 0 };

	memset(grid, ' ', sizeof(char[TW][TW]));
	for (int ty = f->cy0; ty <= f->cy1; ty++) {
		for (int tx = f->cx0; tx <= f->cx1; tx++) {
			int t = ctmap_at(m, tx, ty);

			for (int l = 0; t >= 0 && l < 9; l++)
				grid[3 * ty + l / 3 - gy0][3 * tx + l % 3 - gx0] =
				    m->where[t] == CTMAP_ACTIVATED ? 'X' : m->kind[t][l];
		}
	}
	n = ctmap_streets(m, st);
	for (int i = 0; i < n; i++) {
		int l = mid[st[i].side];

		grid[3 * st[i].ty + l / 3 - gy0][3 * st[i].tx + l % 3 - gx0] = arrow[st[i].side];
	}
	for (int i = 0; mk && mk->reach && i < mk->n_reach && i < CTMAP_SQUARES; i++)
		if (square_ok(g, mk->reach[i]))
			ctmap_bit_set(reach, mk->reach[i]);
	for (int sq = 0; sq < CTMAP_SQUARES; sq++) {
		int bits = g->square[sq], pawns = 0, seat = 0;
		char *c;

		if (!square_ok(g, sq))
			continue;
		c = &grid[ctmap_gy(m, sq) - gy0][ctmap_gx(m, sq) - gx0];
		for (int s = g->n - 1; s >= 0; s--) {
			if (s < CTGAME_MAX && g->p[s].sq == sq) {
				pawns++;
				seat = s;
			}
		}
		if (pawns)
			*c = pawns > 1 ? '*' : (char)('1' + seat);
		else if (mk && sq == mk->target)
			*c = '@';
		else if (bits & CS_CULTIST)
			*c = 'c';
		else if (bits & CS_BYAKHEE)
			*c = 'y';
		else if (bits & CS_HEART)
			*c = 'h';
		else if (bits & CS_BULLET)
			*c = 'b';
		else if (ctmap_bit(reach, sq))
			*c = '+';
	}
}

/* Option labels: one to three numbers a row, or the first and last of more. */
static void text_options(const struct ctpicture_marks *mk, const struct frame *f, char grid[TW][TW])
{
	int16_t first[CTMAP_OPTIONS_MAX];
	int n = option_cells(mk, first);

	for (int i = 0; i < n; i++) {
		int num[CTMAP_OPTIONS_MAX], k = 0, row0;
		char lab[3][16];

		if (first[i] != i)
			continue;
		for (int j = i; j < n; j++)
			if (first[j] == i)
				num[k++] = j + 1;
		for (int r = 0; r < 3; r++)
			lab[r][0] = '\0';
		if (k <= 3) {
			for (int r = 0; r < k; r++)
				snprintf(lab[r], sizeof(lab[r]), num[r] < 100 ? "#%d" : "%d",
				         num[r]);
		} else {
			snprintf(lab[0], sizeof(lab[0]), num[0] < 100 ? "#%d" : "%d", num[0]);
			snprintf(lab[1], sizeof(lab[1]), " -");
			snprintf(lab[2], sizeof(lab[2]), num[k - 1] < 100 ? "#%d" : "%d",
			         num[k - 1]);
			k = 3;
		}
		row0 = k == 1 ? 1 : 0;
		for (int r = 0; r < k; r++) {
			int y = 3 * (mk->options[i].ty - f->cy0) + row0 + r;
			int x = 3 * (mk->options[i].tx - f->cx0);

			for (int c = 0; c < 3 && lab[r][c]; c++)
				grid[y][x + c] = lab[r][c];
		}
	}
}

int ctpicture_text(const struct ctgame *g, const struct ctpicture_marks *marks, const char *lang,
                   char *buf, size_t cap)
{
	char line[8 + 2 * TW], num[16];
	struct out o = { buf, cap, 0, 0 };
	struct frame f;
	int cols, rows, lw = 0, lh = 0, li = lang_index(lang);
	int gx0, gy0;
	size_t n;

	if (cap == 0)
		return -1;
	buf[0] = '\0';
	bounds(g, marks, &f);
	gx0 = 3 * f.cx0;
	gy0 = 3 * f.cy0;
	cols = 3 * (f.cx1 - f.cx0 + 1);
	rows = 3 * (f.cy1 - f.cy0 + 1);
	{
		char cells[TW][TW];

		text_grid(g, marks, &f, cells);
		text_options(marks, &f, cells);
		for (int y = 0; y < rows; y++) {
			int w = snprintf(num, sizeof(num), "%d", gy0 + y);
			lw = w > lw ? w : lw;
		}
		for (int x = 0; x < cols; x++) {
			int w = snprintf(num, sizeof(num), "%d", gx0 + x);
			lh = w > lh ? w : lh;
		}
		/* the column labels, written downwards and aligned at the bottom */
		for (int k = 0; k < lh; k++) {
			n = 0;
			memset(line, ' ', (size_t)lw + 1);
			n = (size_t)lw + 1;
			for (int x = 0; x < cols; x++) {
				int w = snprintf(num, sizeof(num), "%d", gx0 + x);
				int at = k - (lh - w);

				if (x > 0 && x % 3 == 0)
					line[n++] = ' ';
				line[n++] = at >= 0 ? num[at] : ' ';
			}
			put_line(&o, line, n);
		}
		for (int y = 0; y < rows; y++) {
			snprintf(line, sizeof(line), "%*d ", lw, gy0 + y);
			n = strlen(line);
			for (int x = 0; x < cols; x++) {
				if (x > 0 && x % 3 == 0)
					line[n++] = ' ';
				line[n++] = cells[y][x];
			}
			put_line(&o, line, n);
		}
	}
	for (int w = 0; w < W_LEGEND; w++) {
		char item[96];

		if ((w == W_REACH && !any_reach(g, marks)) ||
		    (w == W_TARGET && !(marks && square_ok(g, marks->target))) ||
		    (w == W_OPTION && !n_options(marks)) ||
		    (w == W_SHARED && !text_shared(g, &f, NULL, li)))
			continue;
		snprintf(item, sizeof(item), "%s%s %s", w ? ", " : "", legend_sym[w], word(li, w));
		put(&o, item, strlen(item));
	}
	put(&o, "\n", 1);
	text_players(&o, g, marks, li);
	text_sites(&o, g, marks, li);
	text_shared(g, &f, &o, li);
	return o.over ? -1 : (int)o.len;
}
