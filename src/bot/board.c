#include "rlyeh/board.h"

#include <cairo.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define S    BOARD_SQUARE
#define R    CMAP_RADIUS
#define AXL  40.0 /* left and right bands of row labels */
#define AXT  22.0 /* top and bottom bands of column labels */
#define PAD  16.0 /* room for the open-street arrows around the map */
#define FONT "DejaVu Sans"
#define TURN 6.283185307179586 /* a full circle in radians */

/* The colours of board.h. */
#define C_PAPER     0xf4f0e6u
#define C_STREET    0xd9d0bfu
#define C_INTERIOR  0xc48a45u
#define C_ENTRANCE  0x7a3f12u
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
#define C_INK       0x1a1a1au

static const uint32_t seat_rgb[CTHULHU_MAX] = {
	0xd62728u, 0x1f5fbfu, 0x2ca02cu, 0xff8c00u, 0x9c4fd6u, 0x17becfu,
};
/* The seat number is white on dark discs and black on light ones. */
static const uint32_t seat_ink[CTHULHU_MAX] = {
	0xffffffu, 0xffffffu, 0xffffffu, 0x000000u, 0xffffffu, 0x000000u,
};

void board_marks_init(struct board_marks *mk)
{
	memset(mk, 0, sizeof(*mk));
	mk->tile = -1;
	mk->preview = -1;
	mk->target = -1;
}

/* ---- what is shown ---- */

/* The cells shown (inclusive bounds) and the picture's geometry. */
struct frame {
	int cx0, cy0, cx1, cy1;
	double ox, oy; /* unscaled pixel position of the top-left corner of cell (cx0, cy0) */
	double w, h;   /* unscaled size */
	double scale;
	int pw, ph; /* pixel size */
};

static int on_grid(int tx, int ty)
{
	return tx >= -R && tx <= R && ty >= -R && ty <= R;
}

static int n_options(const struct board_marks *mk)
{
	if (!mk || !mk->options || mk->n_options <= 0)
		return 0;
	return mk->n_options < CMAP_OPTIONS_MAX ? mk->n_options : CMAP_OPTIONS_MAX;
}

static int option_ok(const struct board_marks *mk, int i)
{
	return on_grid(mk->options[i].tx, mk->options[i].ty);
}

/* A square of a tile face up on the map. */
static int square_ok(const struct cthulhu *g, int sq)
{
	return sq >= 0 && sq < CMAP_SQUARES && g->map.where[sq / 9] == CMAP_PLACED;
}

static void frame_of(const struct cthulhu *g, const struct board_marks *mk, struct frame *f)
{
	int any = 0;

	f->cx0 = f->cy0 = f->cx1 = f->cy1 = 0;
	for (int ty = -R; ty <= R; ty++) {
		for (int tx = -R; tx <= R; tx++) {
			if (cmap_at(&g->map, tx, ty) < 0)
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
	f->ox = AXL + PAD;
	f->oy = AXT + PAD;
	f->w = 2 * (AXL + PAD) + 3.0 * S * (f->cx1 - f->cx0 + 1);
	f->h = 2 * (AXT + PAD) + 3.0 * S * (f->cy1 - f->cy0 + 1);
	f->scale = 1.0;
	if (f->w > BOARD_MAX_PX || f->h > BOARD_MAX_PX)
		f->scale = BOARD_MAX_PX / (f->w > f->h ? f->w : f->h);
	f->pw = (int)(f->w * f->scale + 0.5);
	f->ph = (int)(f->h * f->scale + 0.5);
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

int board_locate(const struct cthulhu *g, const struct board_marks *marks, int gx, int gy,
                 double *x, double *y, double *side)
{
	struct frame f;

	frame_of(g, marks, &f);
	if (gx < 3 * f.cx0 || gx > 3 * f.cx1 + 2 || gy < 3 * f.cy0 || gy > 3 * f.cy1 + 2)
		return -1;
	*x = (sq_x(&f, gx) + S / 2.0) * f.scale;
	*y = (sq_y(&f, gy) + S / 2.0) * f.scale;
	*side = S * f.scale;
	return 0;
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
	case CMAP_STREET:
		return C_STREET;
	case CMAP_INTERIOR:
		return C_INTERIOR;
	case CMAP_ENTRANCE:
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

static void draw_tiles(cairo_t *cr, const struct frame *f, const struct cmap *m)
{
	for (int ty = f->cy0; ty <= f->cy1; ty++) {
		for (int tx = f->cx0; tx <= f->cx1; tx++) {
			int t = cmap_at(m, tx, ty);

			if (t < 0)
				continue;
			if (m->where[t] == CMAP_ACTIVATED) {
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
			if (cmap_at(m, tx, ty) >= 0)
				cairo_rectangle(cr, sq_x(f, 3 * tx), sq_y(f, 3 * ty), 3 * S, 3 * S);
	cairo_stroke(cr);
}

/* C5: a small arrow just outside each open side, pointing away from the map. */
static void draw_streets(cairo_t *cr, const struct frame *f, const struct cmap *m)
{
	static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };
	struct cmap_street st[4 * CMAP_TILES];
	int n = cmap_streets(m, st);

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

static void draw_reach(cairo_t *cr, const struct frame *f, const struct cthulhu *g,
                       const struct board_marks *mk)
{
	if (!mk || !mk->reach)
		return;
	for (int i = 0; i < mk->n_reach && i < CMAP_SQUARES; i++) {
		int sq = mk->reach[i];
		double x, y;

		if (!square_ok(g, sq))
			continue;
		x = sq_x(f, cmap_gx(&g->map, sq));
		y = sq_y(f, cmap_gy(&g->map, sq));
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

/* Draws the 15-unit figure `path` in a MARK-pixel box at (x, y), filled
 * with `fill` and edged with `edge`. */
#define MARK 18.0
static void mark(cairo_t *cr, void (*path)(cairo_t *, double, double), double x, double y,
                 uint32_t fill, uint32_t edge)
{
	cairo_save(cr);
	cairo_translate(cr, x, y);
	cairo_scale(cr, MARK / 15, MARK / 15);
	path(cr, 0, 0);
	cairo_restore(cr);
	rgb(cr, fill, 1);
	cairo_fill_preserve(cr);
	rgb(cr, edge, 1);
	cairo_set_line_width(cr, 1);
	cairo_stroke(cr);
}

static void draw_figures(cairo_t *cr, const struct frame *f, const struct cthulhu *g)
{
	for (int sq = 0; sq < CMAP_SQUARES; sq++) {
		int bits = g->square[sq];
		double x, y;

		if (!bits || !square_ok(g, sq))
			continue;
		x = sq_x(f, cmap_gx(&g->map, sq));
		y = sq_y(f, cmap_gy(&g->map, sq));
		if (bits & CS_CULTIST)
			mark(cr, cultist_path, x + 2, y + 2, C_CULTIST, 0xffffffu);
		if (bits & CS_BYAKHEE)
			mark(cr, byakhee_path, x + S - 2 - MARK, y + 2, C_BYAKHEE, 0xffffffu);
		if (bits & CS_HEART)
			mark(cr, heart_path, x + 2, y + S - 2 - MARK, C_HEART, 0xffffffu);
		if (bits & CS_BULLET)
			mark(cr, bullet_path, x + S - 2 - MARK, y + S - 2 - MARK, C_BULLET,
			     0x5a4500u);
	}
}

/* Disc centres (relative to the square's centre) and radius for n pawns
 * sharing a square, n = 1..6, in seat order. */
static void pawn_spot(int n, int i, double *dx, double *dy, double *r)
{
	static const double two[2][2] = { { -10, 0 }, { 10, 0 } };
	static const double three[3][2] = { { -9.5, -8 }, { 9.5, -8 }, { 0, 8.5 } };
	static const double four[4][2] = {
		{ -9.5, -9.5 }, { 9.5, -9.5 }, { -9.5, 9.5 }, { 9.5, 9.5 }
	};
	static const double six[6][2] = { { -15.5, -8 }, { 0, -8 }, { 15.5, -8 },
		                          { -15.5, 8 },  { 0, 8 },  { 15.5, 8 } };

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

static void draw_pawns(cairo_t *cr, const struct frame *f, const struct cthulhu *g)
{
	for (int s = 0; s < g->n && s < CTHULHU_MAX; s++) {
		int sq = g->p[s].sq, n = 0, i = 0;
		double cx, cy, dx, dy, r;
		char num[4];

		if (!square_ok(g, sq))
			continue;
		for (int o = 0; o < g->n && o < CTHULHU_MAX; o++) {
			if (g->p[o].sq == sq) {
				n++;
				i += o < s;
			}
		}
		pawn_spot(n, i, &dx, &dy, &r);
		cx = sq_x(f, cmap_gx(&g->map, sq)) + S / 2.0 + dx;
		cy = sq_y(f, cmap_gy(&g->map, sq)) + S / 2.0 + dy;
		cairo_new_sub_path(cr);
		cairo_arc(cr, cx, cy, r, 0, TURN);
		rgb(cr, seat_rgb[s], 1);
		cairo_fill_preserve(cr);
		rgb(cr, 0xffffffu, 1);
		cairo_set_line_width(cr, 1.5);
		cairo_stroke(cr);
		snprintf(num, sizeof(num), "%d", s + 1);
		font(cr, 1, r * 1.3);
		rgb(cr, seat_ink[s], 1);
		text_at(cr, num, cx, cy);
	}
}

static void draw_target(cairo_t *cr, const struct frame *f, const struct cthulhu *g,
                        const struct board_marks *mk)
{
	double x, y;

	if (!mk || !square_ok(g, mk->target))
		return;
	x = sq_x(f, cmap_gx(&g->map, mk->target));
	y = sq_y(f, cmap_gy(&g->map, mk->target));
	rgb(cr, C_TARGET, 1);
	cairo_set_line_width(cr, 4);
	cairo_rectangle(cr, x + 2, y + 2, S - 4, S - 4);
	cairo_stroke(cr);
}

/* first[i]: the first option at the cell of option i (i itself for the
 * first), or -1 for an option off the grid. Returns n_options(mk). */
static int option_cells(const struct board_marks *mk, int16_t first[CMAP_OPTIONS_MAX])
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
static void draw_option_cells(cairo_t *cr, const struct frame *f, const struct board_marks *mk)
{
	static const double dash[1] = { 6 };
	int16_t first[CMAP_OPTIONS_MAX];
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

static void draw_preview(cairo_t *cr, const struct frame *f, const struct board_marks *mk)
{
	const struct cmap_option *o;
	char kind[9];

	if (!mk || mk->preview < 0 || mk->preview >= n_options(mk) || mk->tile < 0 ||
	    mk->tile >= CMAP_TILES || !option_ok(mk, mk->preview))
		return;
	o = &mk->options[mk->preview];
	cmap_layout(mk->tile, o->rot & 3, kind);
	draw_layout(cr, f, kind, o->tx, o->ty, 0.6);
	rgb(cr, C_OPTION, 1);
	cairo_set_line_width(cr, 3);
	cairo_rectangle(cr, sq_x(f, 3 * o->tx), sq_y(f, 3 * o->ty), 3 * S, 3 * S);
	cairo_stroke(cr);
}

/* The labels "#n #m" of each candidate cell, two numbers a line (the
 * first eight: cmap_options gives a cell four at most). */
static void draw_option_labels(cairo_t *cr, const struct frame *f, const struct board_marks *mk)
{
	enum { PER_LINE = 2, LINES = 4 };
	int16_t first[CMAP_OPTIONS_MAX];
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

static void draw(cairo_t *cr, const struct frame *f, const struct cthulhu *g,
                 const struct board_marks *mk)
{
	cairo_font_options_t *fo = cairo_font_options_create();

	/* the same glyphs whatever the machine's font configuration says */
	cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	cairo_set_font_options(cr, fo);
	cairo_font_options_destroy(fo);

	cairo_scale(cr, f->scale, f->scale);
	rgb(cr, C_PAPER, 1);
	cairo_paint(cr);
	draw_option_cells(cr, f, mk);
	draw_tiles(cr, f, &g->map);
	draw_reach(cr, f, g, mk);
	draw_streets(cr, f, &g->map);
	draw_preview(cr, f, mk);
	draw_figures(cr, f, g);
	draw_pawns(cr, f, g);
	draw_target(cr, f, g, mk);
	draw_option_labels(cr, f, mk);
	draw_axes(cr, f);
}

/* ---- PNG ---- */

/* A growing buffer capped at BOARD_PNG_MAX. */
struct sink {
	unsigned char *buf;
	size_t len, cap;
};

static cairo_status_t sink_write(void *closure, const unsigned char *data, unsigned int n)
{
	struct sink *k = closure;

	if (n > BOARD_PNG_MAX - k->len)
		return CAIRO_STATUS_WRITE_ERROR;
	if (k->len + n > k->cap) {
		size_t cap = k->cap ? k->cap : 64 * 1024;
		unsigned char *p;

		while (cap < k->len + n)
			cap *= 2;
		cap = cap < BOARD_PNG_MAX ? cap : BOARD_PNG_MAX;
		p = realloc(k->buf, cap);
		if (!p)
			return CAIRO_STATUS_NO_MEMORY;
		k->buf = p;
		k->cap = cap;
	}
	memcpy(k->buf + k->len, data, n);
	k->len += n;
	return CAIRO_STATUS_SUCCESS;
}

int board_png(const struct cthulhu *g, const struct board_marks *marks, unsigned char **png,
              size_t *len)
{
	struct sink k = { NULL, 0, 0 };
	cairo_surface_t *surface;
	cairo_t *cr = NULL;
	struct frame f;
	int result = -1;

	*png = NULL;
	*len = 0;
	frame_of(g, marks, &f);
	surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, f.pw, f.ph);
	if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS)
		goto out;
	cr = cairo_create(surface);
	if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
		goto out;
	draw(cr, &f, g, marks);
	if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
		goto out;
	cairo_surface_flush(surface);
	if (cairo_surface_write_to_png_stream(surface, sink_write, &k) != CAIRO_STATUS_SUCCESS)
		goto out;
	*png = k.buf;
	*len = k.len;
	k.buf = NULL;
	result = 0;
out:
	free(k.buf);
	cairo_destroy(cr);
	cairo_surface_destroy(surface);
	return result;
}

int board_png_file(const struct cthulhu *g, const struct board_marks *marks, const char *path)
{
	unsigned char *png;
	size_t len;
	FILE *fp;
	int saved;

	if (board_png(g, marks, &png, &len) < 0) {
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

void board_cleanup(void)
{
	cairo_debug_reset_static_data();
	FcFini();
}

/* ---- text ---- */

enum {
	L_PAWN,
	L_PAWNS,
	L_CULTIST,
	L_BYAKHEE,
	L_HEART,
	L_BULLET,
	L_STREET,
	L_INTERIOR,
	L_ENTRANCE,
	L_BLOCKED,
	L_ACTIVATED,
	L_OPEN,
	L_REACH,
	L_TARGET,
	L_OPTION,
	L_WORDS,
};

static const struct {
	const char *lang;
	const char *word[L_WORDS];
} legends[] = {
	{ "en",
	  { "pawn of seat", "several pawns", "cultist", "byakhee", "heart", "bullet", "street",
	    "building", "entrance", "blocked", "activated site", "open street", "reachable",
	    "target", "option" } },
	{ "nl",
	  { "pion van plaats", "meerdere pionnen", "sektariër", "byakhee", "hart", "kogel",
	    "straat", "gebouw", "ingang", "onbegaanbaar", "geactiveerde ritueelplek", "open straat",
	    "bereikbaar", "doel", "optie" } },
};

/* The symbol each legend word explains. */
static const char *const legend_sym[L_WORDS] = {
	"1-6", "*", "c", "y", "h", "b", ".", "B", "D", "#", "X", "^>v<", "+", "@", "#n",
};

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

#define TW (3 * CMAP_DIM) /* squares across the grid */

/* The character of every square of the frame, [gy - 3 cy0][gx - 3 cx0]. */
static void text_grid(const struct cthulhu *g, const struct board_marks *mk, const struct frame *f,
                      char grid[TW][TW])
{
	static const char arrow[4] = { '^', '>', 'v', '<' };
	static const int mid[4] = { 1, 5, 7, 3 };
	const struct cmap *m = &g->map;
	struct cmap_street st[4 * CMAP_TILES];
	int gx0 = 3 * f->cx0, gy0 = 3 * f->cy0, n;
	uint8_t reach[CMAP_BITMAP_BYTES] = { 0 };

	memset(grid, ' ', sizeof(char[TW][TW]));
	for (int ty = f->cy0; ty <= f->cy1; ty++) {
		for (int tx = f->cx0; tx <= f->cx1; tx++) {
			int t = cmap_at(m, tx, ty);

			for (int l = 0; t >= 0 && l < 9; l++)
				grid[3 * ty + l / 3 - gy0][3 * tx + l % 3 - gx0] =
				    m->where[t] == CMAP_ACTIVATED ? 'X' : m->kind[t][l];
		}
	}
	n = cmap_streets(m, st);
	for (int i = 0; i < n; i++) {
		int l = mid[st[i].side];

		grid[3 * st[i].ty + l / 3 - gy0][3 * st[i].tx + l % 3 - gx0] = arrow[st[i].side];
	}
	for (int i = 0; mk && mk->reach && i < mk->n_reach && i < CMAP_SQUARES; i++)
		if (square_ok(g, mk->reach[i]))
			cmap_bit_set(reach, mk->reach[i]);
	for (int sq = 0; sq < CMAP_SQUARES; sq++) {
		int bits = g->square[sq], pawns = 0, seat = 0;
		char *c;

		if (!square_ok(g, sq))
			continue;
		c = &grid[cmap_gy(m, sq) - gy0][cmap_gx(m, sq) - gx0];
		for (int s = g->n - 1; s >= 0; s--) {
			if (s < CTHULHU_MAX && g->p[s].sq == sq) {
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
		else if (cmap_bit(reach, sq))
			*c = '+';
	}
}

/* Option labels: one to three numbers a row, or the first and last of more. */
static void text_options(const struct board_marks *mk, const struct frame *f, char grid[TW][TW])
{
	int16_t first[CMAP_OPTIONS_MAX];
	int n = option_cells(mk, first);

	for (int i = 0; i < n; i++) {
		int num[CMAP_OPTIONS_MAX], k = 0, row0;
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

static int lang_index(const char *lang)
{
	for (size_t i = 0; lang && i < sizeof(legends) / sizeof(legends[0]); i++)
		if (strncmp(lang, legends[i].lang, 2) == 0 &&
		    (lang[2] == '\0' || lang[2] == '-' || lang[2] == '_'))
			return (int)i;
	return 0;
}

int board_text(const struct cthulhu *g, const struct board_marks *marks, const char *lang,
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
	frame_of(g, marks, &f);
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
	for (int w = 0; w < L_WORDS; w++) {
		char item[96];

		if ((w == L_REACH && !(marks && marks->reach && marks->n_reach > 0)) ||
		    (w == L_TARGET && !(marks && square_ok(g, marks->target))) ||
		    (w == L_OPTION && !n_options(marks)))
			continue;
		snprintf(item, sizeof(item), "%s%s %s", w ? ", " : "", legend_sym[w],
		         legends[li].word[w]);
		put(&o, item, strlen(item));
	}
	put(&o, "\n", 1);
	return o.over ? -1 : (int)o.len;
}
