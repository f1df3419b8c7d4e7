/* ctpicture: the map picture's words in both languages and what it shows:
 * the cells in view, the frame and the squares' positions (the drawing, the
 * PNG and the text are in ctpicdraw.c, ctpicpng.c and ctpictext.c). */
#include "ctpicture_int.h"

#include <stdio.h>
#include <string.h>

#include "rlyeh/i18n.h"

const uint32_t ctpic_seat_rgb[CTGAME_MAX] = {
	0xd62728u, 0x1f5fbfu, 0x2ca02cu, 0xff8c00u, 0x9c4fd6u, 0x8c564bu,
};
/* The seat number is white on dark discs and black on light ones. */
const uint32_t ctpic_seat_ink[CTGAME_MAX] = {
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
const char *const ctpic_legend_sym[W_LEGEND] = {
	"1-6", "*", "c", "y", "h", "b", ".", "B", "D", "#", "X", "^>v<", "+", "@", "#n", "x,y:",
};

int ctpic_lang_index(const char *lang)
{
	for (size_t i = 0; lang && i < sizeof(legends) / sizeof(legends[0]); i++)
		if (strncmp(lang, legends[i].lang, 2) == 0 &&
		    (lang[2] == '\0' || lang[2] == '-' || lang[2] == '_'))
			return (int)i;
	return 0;
}

const char *ctpic_word(int li, int w)
{
	return legends[li].word[w];
}

/* The language code of legend language li ("en", "nl"). */
const char *ctpic_lang_code(int li)
{
	return legends[li].lang;
}

/* The enum i18n_lang of legend language li, for ctnames. */
int ctpic_names_lang(int li)
{
	return li == 1 ? I18N_NL : I18N_EN;
}

/* Seat s's name for the legend: the caller's, cut to SHOWN_NAME bytes at a
 * character boundary (with "…"), or "seat n". */
void ctpic_seat_label(const struct ctpicture_marks *mk, int li, int s, char *buf, size_t cap)
{
	const char *name = mk ? mk->names[s] : NULL;
	size_t n;

	if (!name || !name[0]) {
		snprintf(buf, cap, "%s %d", ctpic_word(li, W_SEAT), s + 1);
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
int ctpic_site_state(const struct ctmap *m, int t)
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

uint32_t ctpic_site_rgb(int state)
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
void ctpic_site_state_text(const struct ctgame *g, const struct ctpicture_marks *mk, int li, int t,
                           char *buf, size_t cap)
{
	int st = ctpic_site_state(&g->map, t), s = st == W_SANCTIFIED ? sanctifier(g, t) : -1;
	char who[64];

	if (st < 0) {
		buf[0] = '\0';
		return;
	}
	if (s < 0) {
		snprintf(buf, cap, "%s", ctpic_word(li, st));
		return;
	}
	ctpic_seat_label(mk, li, s, who, sizeof(who));
	snprintf(buf, cap, "%s %s %s", ctpic_word(li, st), ctpic_word(li, W_BY), who);
}

/* ---- what is shown ---- */

static int on_grid(int tx, int ty)
{
	return tx >= -R && tx <= R && ty >= -R && ty <= R;
}

int ctpic_n_options(const struct ctpicture_marks *mk)
{
	if (!mk || !mk->options || mk->n_options <= 0)
		return 0;
	return mk->n_options < CTMAP_OPTIONS_MAX ? mk->n_options : CTMAP_OPTIONS_MAX;
}

int ctpic_option_ok(const struct ctpicture_marks *mk, int i)
{
	return on_grid(mk->options[i].tx, mk->options[i].ty);
}

/* A square of a tile face up on the map. */
int ctpic_square_ok(const struct ctgame *g, int sq)
{
	return sq >= 0 && sq < CTMAP_SQUARES && g->map.where[sq / 9] == CTMAP_PLACED;
}

int ctpic_any_reach(const struct ctgame *g, const struct ctpicture_marks *mk)
{
	for (int i = 0; mk && mk->reach && i < mk->n_reach && i < CTMAP_SQUARES; i++)
		if (ctpic_square_ok(g, mk->reach[i]))
			return 1;
	return 0;
}

/* The pawns on square sq, and seat s's place among them (in seat order). */
int ctpic_pawns_at(const struct ctgame *g, int sq, int s, int *index)
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
void ctpic_bounds(const struct ctgame *g, const struct ctpicture_marks *mk, struct frame *f)
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
	for (int i = 0; i < ctpic_n_options(mk); i++) {
		int tx = mk->options[i].tx, ty = mk->options[i].ty;

		if (!ctpic_option_ok(mk, i))
			continue;
		f->cx0 = tx < f->cx0 ? tx : f->cx0;
		f->cx1 = tx > f->cx1 ? tx : f->cx1;
		f->cy0 = ty < f->cy0 ? ty : f->cy0;
		f->cy1 = ty > f->cy1 ? ty : f->cy1;
	}
	f->full = 1;
}

/* The cell of global square coordinate v (floor division by 3). */
int ctpic_cell_of(int v)
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

	if (!ctpic_square_ok(g, sq))
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
	for (int i = 0; i < ctpic_n_options(mk); i++)
		if (ctpic_option_ok(mk, i))
			box_add(&b, 3 * mk->options[i].tx, 3 * mk->options[i].ty,
			        3 * mk->options[i].tx + 2, 3 * mk->options[i].ty + 2);
	if (!b.any)
		return;
	cx0 = ctpic_cell_of(b.x0);
	cy0 = ctpic_cell_of(b.y0);
	cx1 = ctpic_cell_of(b.x1);
	cy1 = ctpic_cell_of(b.y1);
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

/* The legend's height for a width, measured on a scratch surface; a
 * generous guess when cairo fails (the picture then fails to draw). */
static double legend_height(const struct ctgame *g, const struct ctpicture_marks *mk, double width)
{
	cairo_surface_t *s;
	cairo_t *cr;
	double h = 8 * LEG_ROW;

	if (ctcairo_load())
		return h;
	s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	cr = cairo_create(s);
	if (cairo_status(cr) == CAIRO_STATUS_SUCCESS)
		h = ctpic_legend(cr, g, mk, 0, 0, width, 0);
	cairo_destroy(cr);
	cairo_surface_destroy(s);
	return h;
}

/* The whole geometry of the picture for g and mk. */
void ctpic_frame_of(const struct ctgame *g, const struct ctpicture_marks *mk, struct frame *f)
{
	double limit, s, longer;

	ctpic_bounds(g, mk, f);
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
double ctpic_sq_x(const struct frame *f, int gx)
{
	return f->ox + (double)(gx - 3 * f->cx0) * S;
}

double ctpic_sq_y(const struct frame *f, int gy)
{
	return f->oy + (double)(gy - 3 * f->cy0) * S;
}

static int shown(const struct frame *f, int gx, int gy)
{
	return gx >= 3 * f->cx0 && gx <= 3 * f->cx1 + 2 && gy >= 3 * f->cy0 && gy <= 3 * f->cy1 + 2;
}

/* A square on the map within the picture. */
int ctpic_square_shown(const struct frame *f, const struct ctgame *g, int sq)
{
	return ctpic_square_ok(g, sq) && shown(f, ctmap_gx(&g->map, sq), ctmap_gy(&g->map, sq));
}

int ctpicture_locate(const struct ctgame *g, const struct ctpicture_marks *marks, int gx, int gy,
                     double *x, double *y, double *side)
{
	struct frame f;

	ctpic_frame_of(g, marks, &f);
	if (!shown(&f, gx, gy))
		return -1;
	*x = (ctpic_sq_x(&f, gx) + S / 2.0) * f.scale;
	*y = (ctpic_sq_y(&f, gy) + S / 2.0) * f.scale;
	*side = S * f.scale;
	return 0;
}

int ctpicture_area(const struct ctgame *g, const struct ctpicture_marks *marks, int *gx0, int *gy0,
                   int *gx1, int *gy1, int *width, int *height)
{
	struct frame f;

	ctpic_frame_of(g, marks, &f);
	*gx0 = 3 * f.cx0;
	*gy0 = 3 * f.cy0;
	*gx1 = 3 * f.cx1 + 2;
	*gy1 = 3 * f.cy1 + 2;
	*width = f.pw;
	*height = f.ph;
	return f.full;
}
