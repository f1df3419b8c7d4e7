/* ctpicdraw: the map picture drawn with cairo: tiles, streets, figures, pawns,
 * the marks of a decision, the Ritual Site labels and the legend. */
#include "ctpicture_int.h"

#include <stdio.h>
#include <string.h>

#include "rlyeh/ctnames.h"

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
		double x = ctpic_sq_x(f, 3 * tx + l % 3), y = ctpic_sq_y(f, 3 * ty + l / 3);

		rgb(cr, kind_rgb(kind[l]), a);
		cairo_rectangle(cr, x, y, S, S);
		cairo_fill(cr);
	}
	rgb(cr, 0x000000u, 0.25 * a);
	cairo_set_line_width(cr, 1);
	for (int i = 1; i < 3; i++) {
		double x = ctpic_sq_x(f, 3 * tx + i), y = ctpic_sq_y(f, 3 * ty + i);

		cairo_move_to(cr, x, ctpic_sq_y(f, 3 * ty));
		cairo_rel_line_to(cr, 0, 3 * S);
		cairo_move_to(cr, ctpic_sq_x(f, 3 * tx), y);
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
				cairo_rectangle(cr, ctpic_sq_x(f, 3 * tx), ctpic_sq_y(f, 3 * ty),
				                3 * S, 3 * S);
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
				cairo_rectangle(cr, ctpic_sq_x(f, 3 * tx), ctpic_sq_y(f, 3 * ty),
				                3 * S, 3 * S);
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
		double cx = ctpic_sq_x(f, 3 * st[i].tx) + 1.5 * S * (1 + dx[s]);
		double cy = ctpic_sq_y(f, 3 * st[i].ty) + 1.5 * S * (1 + dy[s]);
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

		if (!ctpic_square_shown(f, g, sq))
			continue;
		x = ctpic_sq_x(f, ctmap_gx(&g->map, sq));
		y = ctpic_sq_y(f, ctmap_gy(&g->map, sq));
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

/* The square bit (CS_*) of the j-th of the four figures and tokens drawn. */
int ctpic_figure_bit(int j)
{
	return figure_kinds[j].bit;
}

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

		if (!bits || !ctpic_square_shown(f, g, sq))
			continue;
		x = ctpic_sq_x(f, ctmap_gx(&g->map, sq));
		y = ctpic_sq_y(f, ctmap_gy(&g->map, sq));
		if (!ctpic_pawns_at(g, sq, 0, NULL)) {
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
	rgb(cr, ctpic_seat_rgb[s], 1);
	cairo_fill_preserve(cr);
	rgb(cr, 0xffffffu, 1);
	cairo_set_line_width(cr, r < 8 ? 1 : 1.5);
	cairo_stroke(cr);
	snprintf(num, sizeof(num), "%d", s + 1);
	font(cr, 1, r * 1.3);
	rgb(cr, ctpic_seat_ink[s], 1);
	text_at(cr, num, cx, cy);
}

static void draw_pawns(cairo_t *cr, const struct frame *f, const struct ctgame *g)
{
	for (int s = 0; s < g->n && s < CTGAME_MAX; s++) {
		int sq = g->p[s].sq, n, i;
		double dx, dy, r;

		if (!ctpic_square_ok(g, sq))
			continue;
		if (!ctpic_square_shown(f, g, sq))
			continue;
		n = ctpic_pawns_at(g, sq, s, &i);
		pawn_spot(n, i, g->square[sq] != 0, &dx, &dy, &r);
		disc(cr, s, ctpic_sq_x(f, ctmap_gx(&g->map, sq)) + S / 2.0 + dx,
		     ctpic_sq_y(f, ctmap_gy(&g->map, sq)) + S / 2.0 + dy, r);
	}
}

static void draw_target(cairo_t *cr, const struct frame *f, const struct ctgame *g,
                        const struct ctpicture_marks *mk)
{
	double x, y;

	if (!mk || !ctpic_square_shown(f, g, mk->target))
		return;
	x = ctpic_sq_x(f, ctmap_gx(&g->map, mk->target));
	y = ctpic_sq_y(f, ctmap_gy(&g->map, mk->target));
	rgb(cr, C_TARGET, 1);
	cairo_set_line_width(cr, 4);
	cairo_rectangle(cr, x + 2, y + 2, S - 4, S - 4);
	cairo_stroke(cr);
}

/* first[i]: the first option at the cell of option i (i itself for the
 * first), or -1 for an option off the grid. Returns n_options(mk). */
int ctpic_option_cells(const struct ctpicture_marks *mk, int16_t first[CTMAP_OPTIONS_MAX])
{
	int n = ctpic_n_options(mk);

	for (int i = 0; i < n; i++) {
		first[i] = ctpic_option_ok(mk, i) ? (int16_t)i : -1;
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
	int n = ctpic_option_cells(mk, first);

	for (int i = 0; i < n; i++) {
		double x, y;

		if (first[i] != i)
			continue;
		x = ctpic_sq_x(f, 3 * mk->options[i].tx);
		y = ctpic_sq_y(f, 3 * mk->options[i].ty);
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

	if (!mk || mk->preview < 0 || mk->preview >= ctpic_n_options(mk) || mk->tile < 0 ||
	    mk->tile >= CTMAP_TILES || !ctpic_option_ok(mk, mk->preview))
		return;
	o = &mk->options[mk->preview];
	ctmap_layout(mk->tile, o->rot & 3, kind);
	draw_layout(cr, f, kind, o->tx, o->ty, 0.6);
	rgb(cr, C_OPTION, 1);
	cairo_set_line_width(cr, 3);
	cairo_rectangle(cr, ctpic_sq_x(f, 3 * o->tx), ctpic_sq_y(f, 3 * o->ty), 3 * S, 3 * S);
	cairo_stroke(cr);
}

/* The labels "#n #m" of each candidate cell, two numbers a line (the
 * first eight: ctmap_options gives a cell four at most). */
static void draw_option_labels(cairo_t *cr, const struct frame *f, const struct ctpicture_marks *mk)
{
	enum { PER_LINE = 2, LINES = 4 };
	int16_t first[CTMAP_OPTIONS_MAX];
	int n = ctpic_option_cells(mk, first);

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
		cx = ctpic_sq_x(f, 3 * mk->options[i].tx) + 1.5 * S;
		cy = ctpic_sq_y(f, 3 * mk->options[i].ty) + 1.5 * S;
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
		double x = ctpic_sq_x(f, gx) + S / 2.0;

		snprintf(s, sizeof(s), "%d", gx);
		label_at(cr, s, x, AXT / 2 + 2, 0.5);
		label_at(cr, s, x, f->h - AXT / 2 - 2, 0.5);
	}
	for (int gy = 3 * f->cy0; gy <= 3 * f->cy1 + 2; gy++) {
		double y = ctpic_sq_y(f, gy) + S / 2.0;

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
			int tx = ctpic_cell_of(gx), ty = ctpic_cell_of(gy), t = ctmap_at(m, tx, ty),
			    sq, bits;
			double sx = ctpic_sq_x(f, gx), sy = ctpic_sq_y(f, gy);

			if (t < 0 || m->where[t] != CTMAP_PLACED)
				continue;
			sq = t * 9 + (gy - 3 * ty) * 3 + (gx - 3 * tx);
			bits = g->square[sq];
			if (ctpic_pawns_at(g, sq, 0, NULL)) {
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
	int st = ctpic_site_state(m, t), tx = m->tx[t], ty = m->ty[t];
	const char *name = ctnames_tile(t, ctpic_names_lang(li));
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
	ctpic_site_state_text(g, mk, li, t, lb->line[lb->lines], sizeof(lb->line[0]));
	for (int i = 0; i <= lb->lines; i++) {
		font(cr, i < lb->lines, lb->fs);
		cairo_text_extents(cr, lb->line[i], &e);
		wide = e.x_advance > wide ? e.x_advance : wide;
	}
	lb->w = wide + 8;
	lb->h = (lb->lines + 1) * lb->lh + 5;
	lb->x = ctpic_sq_x(f, 3 * tx) + 1.5 * S - lb->w / 2;
	lb->x = lb->x < f->ox - PAD ? f->ox - PAD : lb->x;
	if (lb->x + lb->w > f->ox + 3.0 * S * (f->cx1 - f->cx0 + 1) + PAD)
		lb->x = f->ox + 3.0 * S * (f->cx1 - f->cx0 + 1) + PAD - lb->w;
	/* the height on the tile where it hides the least */
	for (int i = 0, best = -1; i < 7; i++) {
		static const double at[7] = { 1.5, 1, 2, 0.5, 2.5, 0, 3 };
		double y = ctpic_sq_y(f, 3 * ty) + at[i] * S - lb->h / 2;
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
	lb->border = ctpic_site_rgb(st);
	return 0;
}

/* The dashed outline of the cells of sites taken off the map. */
static void draw_site_cells(cairo_t *cr, const struct frame *f, const struct ctgame *g)
{
	static const double dash[1] = { 5 };
	const struct ctmap *m = &g->map;

	for (int t = CTMAP_SITE_FIRST; t < CTMAP_TILES; t++) {
		int st = ctpic_site_state(m, t);

		if ((st != W_SANCTIFIED && st != W_REMOVED) || ctmap_at(m, m->tx[t], m->ty[t]) >= 0)
			continue;
		rgb(cr, ctpic_site_rgb(st), 1);
		cairo_set_line_width(cr, 2);
		cairo_set_dash(cr, dash, 1, 0);
		cairo_rectangle(cr, ctpic_sq_x(f, 3 * m->tx[t]) + 2,
		                ctpic_sq_y(f, 3 * m->ty[t]) + 2, 3 * S - 4, 3 * S - 4);
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

	if (tile < CTMAP_SITE_FIRST || tile >= CTMAP_TILES || ctcairo_load())
		return -1;
	ctpic_frame_of(g, marks, &f);
	s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	cr = cairo_create(s);
	if (cairo_status(cr) == CAIRO_STATUS_SUCCESS &&
	    site_label(cr, &f, g, marks, ctpic_lang_index(marks ? marks->lang : NULL), tile, &lb) ==
	        0) {
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
double ctpic_legend(cairo_t *cr, const struct ctgame *g, const struct ctpicture_marks *mk,
                    double x0, double y0, double width, int paint)
{
	static const int kinds[5] = { W_STREET, W_INTERIOR, W_ENTRANCE, W_BLOCKED, W_ACTIVATED };
	static const uint32_t kind_c[5] = { C_STREET, C_INTERIOR, C_ENTRANCE, C_BLOCKED,
		                            C_ACTIVATED };
	int li = ctpic_lang_index(mk ? mk->lang : NULL), sites = 0;
	struct flow fl = { cr, x0, width, x0, y0 + 6, paint };
	char buf[256], name[64];

	if (paint) {
		rgb(cr, 0x000000u, 0.3);
		cairo_set_line_width(cr, 1);
		cairo_move_to(cr, 0, y0 + 0.5);
		cairo_rel_line_to(cr, x0 + width + LEG_MARGIN, 0);
		cairo_stroke(cr);
	}
	flow_item(&fl, I_NONE, 0, ctpic_word(li, W_H_PLAYERS), 1);
	for (int s = 0; s < g->n && s < CTGAME_MAX; s++) {
		ctpic_seat_label(mk, li, s, name, sizeof(name));
		flow_item(&fl, I_DISC, (uint32_t)s, name, s == g->seat && !g->end);
	}
	flow_break(&fl);
	flow_item(&fl, I_NONE, 0, ctpic_word(li, W_H_SQUARES), 1);
	for (int k = 0; k < 5; k++)
		flow_item(&fl, I_SWATCH, kind_c[k], ctpic_word(li, kinds[k]), 0);
	flow_break(&fl);
	flow_item(&fl, I_NONE, 0, ctpic_word(li, W_H_FIGURES), 1);
	for (int k = 0; k < 4; k++)
		flow_item(&fl, I_FIGURE, (uint32_t)k, ctpic_word(li, W_CULTIST + k), 0);
	flow_item(&fl, I_ARROW, 0, ctpic_word(li, W_OPEN), 0);
	if (ctpic_any_reach(g, mk) || (mk && ctpic_square_ok(g, mk->target)) ||
	    ctpic_n_options(mk)) {
		flow_break(&fl);
		flow_item(&fl, I_NONE, 0, ctpic_word(li, W_H_MARKS), 1);
		if (ctpic_any_reach(g, mk))
			flow_item(&fl, I_REACH, 0, ctpic_word(li, W_REACH), 0);
		if (mk && ctpic_square_ok(g, mk->target))
			flow_item(&fl, I_TARGET, 0, ctpic_word(li, W_TARGET), 0);
		if (ctpic_n_options(mk)) {
			snprintf(buf, sizeof(buf), "#n %s", ctpic_word(li, W_OPTION));
			flow_item(&fl, I_OPTION, 0, buf, 0);
		}
	}
	for (int t = CTMAP_SITE_FIRST; t < CTMAP_TILES; t++) {
		int st = ctpic_site_state(&g->map, t);

		if (st < 0)
			continue;
		if (!sites++) {
			flow_break(&fl);
			flow_item(&fl, I_NONE, 0, ctpic_word(li, W_H_SITES), 1);
		}
		ctpic_site_state_text(g, mk, li, t, name, sizeof(name));
		snprintf(buf, sizeof(buf), "%s: %s", ctnames_tile(t, ctpic_names_lang(li)), name);
		flow_item(&fl, I_SITE, ctpic_site_rgb(st), buf, 0);
	}
	return fl.y + LEG_ROW + LEG_MARGIN / 2 - y0;
}

void ctpic_draw(cairo_t *cr, const struct frame *f, const struct ctgame *g,
                const struct ctpicture_marks *mk)
{
	cairo_font_options_t *fo = cairo_font_options_create();
	int li = ctpic_lang_index(mk ? mk->lang : NULL);

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
	ctpic_legend(cr, g, mk, LEG_MARGIN, f->h * f->scale, f->lw - 2 * LEG_MARGIN, 1);
}
