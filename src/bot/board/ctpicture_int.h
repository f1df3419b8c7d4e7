/* ctpicture_int.h: what the files of the map picture share and nothing
 * outside them sees (the public interface is rlyeh/ctpicture.h):
 *   ctpicture.c the words, what is shown (frame, crop), positions of squares
 *   ctpicdraw.c drawing with cairo: the map, marks, site labels, legend
 *   ctpicpng.c  PNG encoding and the cache of pictures
 *   ctpictext.c the text picture (alt text)
 *   ctcairo.c   cairo, loaded at the first picture (ctcairo.h)
 * Names: ctpicture_* is public; ctpic_* is shared between these files only,
 * declared below under the file that defines it; the W_ words, the colours
 * (C_) and the sizes are the picture's constants. Everything else is static
 * to its file. */
#ifndef RLYEH_CTPICTURE_INT_H
#define RLYEH_CTPICTURE_INT_H

#include "rlyeh/ctpicture.h"

#include <stddef.h>
#include <stdint.h>

#include "rlyeh/ctgame.h"
#include "rlyeh/ctmap.h"

#include "ctcairo.h"

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

/* ctpicture.c */
int ctpic_lang_index(const char *lang);
const char *ctpic_word(int li, int w);
const char *ctpic_lang_code(int li);
int ctpic_names_lang(int li);
void ctpic_seat_label(const struct ctpicture_marks *mk, int li, int s, char *buf, size_t cap);
int ctpic_site_state(const struct ctmap *m, int t);
uint32_t ctpic_site_rgb(int state);
void ctpic_site_state_text(const struct ctgame *g, const struct ctpicture_marks *mk, int li, int t,
                           char *buf, size_t cap);
int ctpic_n_options(const struct ctpicture_marks *mk);
int ctpic_option_ok(const struct ctpicture_marks *mk, int i);
int ctpic_square_ok(const struct ctgame *g, int sq);
int ctpic_any_reach(const struct ctgame *g, const struct ctpicture_marks *mk);
int ctpic_pawns_at(const struct ctgame *g, int sq, int s, int *index);
void ctpic_bounds(const struct ctgame *g, const struct ctpicture_marks *mk, struct frame *f);
int ctpic_cell_of(int v);
void ctpic_frame_of(const struct ctgame *g, const struct ctpicture_marks *mk, struct frame *f);
double ctpic_sq_x(const struct frame *f, int gx);
double ctpic_sq_y(const struct frame *f, int gy);
int ctpic_square_shown(const struct frame *f, const struct ctgame *g, int sq);
extern const uint32_t ctpic_seat_rgb[CTGAME_MAX];
extern const uint32_t ctpic_seat_ink[CTGAME_MAX];
extern const char *const ctpic_legend_sym[W_LEGEND];

/* ctpicdraw.c */
int ctpic_figure_bit(int j);
double ctpic_legend(cairo_t *cr, const struct ctgame *g, const struct ctpicture_marks *mk,
                    double x0, double y0, double width, int paint);
int ctpic_option_cells(const struct ctpicture_marks *mk, int16_t first[CTMAP_OPTIONS_MAX]);
void ctpic_draw(cairo_t *cr, const struct frame *f, const struct ctgame *g,
                const struct ctpicture_marks *mk);

#endif
