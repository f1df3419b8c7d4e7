/* ctpicture: pictures of the CTHULHU!!! map (shared/rules/cthulhu-boardgame.md
 * §3, §15 C5, C6, C9), as a PNG image (cairo) and as text for a terminal.
 *
 * The picture shows the map square by square, with global square
 * coordinates (gx, gy) on the axes for every column and every row shown;
 * tile borders; open streets as arrows pointing out of the map; pawns as
 * seat-coloured discs numbered by seat from 1 (a lone pawn at the centre of
 * its square, up to six sharing a square in seat order, left to right and
 * top to bottom); cultists, byakhee, hearts and bullets; activated sites
 * face down (dark); sanctified and removed sites leave their cell empty
 * (outlined dashed while it stays empty). On top of that the caller may
 * mark placement options (C6), reachable squares (C9) and one square.
 *
 * By default the picture shows the area in play (ctpicture_marks.full = 0):
 * the whole cells around every pawn, the surroundings (three squares) of
 * the player to move, the reachable squares, the target and the option
 * cells, with a square's margin, three cells a side at least where the map
 * has them; its longer side is at most CTPICTURE_VIEW_PX (scaled down when the
 * area is larger). With full = 1 it shows every tile and option, up to
 * CTPICTURE_MAX_PX. The axes always name global coordinates.
 *
 * Figures and tokens: alone on a square, a cultist stands top left, a
 * byakhee top right, a heart bottom left, a bullet bottom right. On a
 * square shared with pawns they stand in a row along its top (in that
 * order, smaller) and the pawns below them, so everything on a square
 * shows.
 *
 * Every Ritual Site on the map (and every one taken off whose cell is
 * still empty) carries a label: its name (ctnames, in the legend's
 * language) and its state, "unresolved", "activated", "sanctified by
 * <player>" or "removed", in a white box edged by state, about 11 pixels
 * high on the screen. The box is centred across the tile, at the height
 * (the middle of a row, a row boundary or an edge of the tile, within the
 * picture) where it covers the least of the figures, tokens and pawns
 * around; these are drawn over it.
 *
 * Below the map a legend (never scaled: 13-pixel text) explains, in the
 * language of ctpicture_marks.lang: the players (each seat's disc and name,
 * the player to move in bold), the square kinds, the figures and tokens
 * and the open-street arrow, the marks present (reachable, target,
 * options), and every Ritual Site that is or was on the map with its
 * state.
 *
 * Colours (RGB) of the PNG, which the tests check:
 *   paper (no tile) f4f0e6, street d9d0bf, building interior c48a45,
 *   entrance 7a3f12, blocked 66745a, activated site 2b2236;
 *   seats 1..6: d62728 red, 1f5fbf blue, 2ca02c green, ff8c00 orange,
 *   9c4fd6 purple, 8c564b brown (the emoji of the status lines:
 *   red, blue, green, orange, purple and brown circles);
 *   cultist 4b1650 (a hooded triangle), byakhee 0b4f4f (spread wings),
 *   heart e0245e, bullet c9a227; reachable squares tinted yellow; the
 *   marked square outlined in magenta ff00ff; option cells outlined in blue
 *   2040c0 and labelled "#n"; site labels white ffffff, edged 1a1a1a
 *   (unresolved), 8b0000 (activated), 1b7f3b (sanctified) or 777777
 *   (removed).
 *
 * Text is drawn with cairo's toy text API in "DejaVu Sans" (Debian:
 * fonts-dejavu-core) with hinting off, so the same position gives the same
 * pixels on every machine with the same fonts. The only state kept here is
 * the cache of PNGs (ctpicture_png), under its own lock; cairo and fontconfig
 * keep font caches under theirs: every function but ctpicture_cleanup may run
 * on any thread.
 *
 * The PNG is 8-bit RGB, written by libpng (zlib level 3, no row filter). */
#ifndef RLYEH_CTPICTURE_H
#define RLYEH_CTPICTURE_H

#include <stddef.h>
#include <stdint.h>

#include "rlyeh/ctgame.h"
#include "rlyeh/ctmap.h"

/* Pixels per square before any scaling; the longer side of the whole map's
 * PNG at most (larger maps are scaled down); the longer side of the
 * default PNG (the area in play) at most. */
#define CTPICTURE_SQUARE  48
#define CTPICTURE_MAX_PX  4096
#define CTPICTURE_VIEW_PX 1000
#define CTPICTURE_PNG_MAX (8 << 20) /* bytes of one encoded PNG, at most */

/* What the caller marks on the map. ctpicture_marks_init gives "nothing";
 * every function accepts marks == NULL for the same. Values out of range
 * (cells off the grid, squares not on a placed tile, a preview index
 * outside the options) are ignored. */
struct ctpicture_marks {
	/* C6: the drawn tile and its placement options, numbered #1.. in list
	 * order (as ctmap_options writes them); each candidate cell is labelled
	 * with the numbers of its options. */
	int tile; /* the tile the options place, for the preview; -1 none */
	const struct ctmap_option *options;
	int n_options;
	int preview; /* index into options drawn as a translucent tile (PNG only); -1 none */
	/* C9: squares to highlight (e.g. ctgame_reachable's list). */
	const int16_t *reach;
	int n_reach;
	int target; /* one square to outline (e.g. a chosen destination); -1 none */
	/* The legend: the players' names by seat (NULL: "seat n"; a name is
	 * shown up to 24 bytes), its language as ctpicture_text's `lang`. */
	const char *names[CTGAME_MAX];
	const char *lang;
	int full; /* 1: the whole map (up to CTPICTURE_MAX_PX); 0: the area in play */
};

/* Sets `mk` to mark nothing. */
void ctpicture_marks_init(struct ctpicture_marks *mk);

/* What the cache of pictures did since the start (ctpicture_png): pictures
 * drawn and encoded, pictures given from the cache, slots given up for
 * newer pictures; and what it holds now. */
struct ctpicture_cache_stats {
	uint64_t renders, hits, evictions;
	int entries;  /* pictures held */
	size_t bytes; /* their PNG bytes */
};

/* Renders the map of `g` with `marks` (may be NULL) to a PNG in memory:
 * about CTPICTURE_SQUARE pixels per square, the legend below, scaled down so
 * that no side exceeds CTPICTURE_VIEW_PX (CTPICTURE_MAX_PX with marks->full). On
 * success returns 0 and sets *png to a malloc'd buffer of *len bytes that
 * the caller frees with free(). On failure (out of memory, cairo error, a
 * PNG larger than CTPICTURE_PNG_MAX) returns -1 with *png = NULL and *len = 0.
 * `g` is not changed.
 *
 * The last few pictures (8, 2 MiB of PNG at most; none over 512 KiB) are kept, each under a
 * key holding exactly what it is drawn from: the map, the squares'
 * figures and tokens, the players' count, squares and sanctified sites,
 * the seat to move and whether the game ended, and the marks' values (the
 * legend's language, names as far as the legend shows them). A picture is
 * drawn from its key, so the same key gives the same bytes, taken from the
 * cache without drawing or encoding again; any change to what the picture
 * shows changes the key. Safe on any thread (one lock around the cache). */
int ctpicture_png(const struct ctgame *g, const struct ctpicture_marks *marks, unsigned char **png,
                  size_t *len);

/* ctpicture_png written to the file `path` (created or truncated). Returns 0,
 * or -1 with errno set (EIO for a rendering failure); after a failure no
 * file is left at `path`. */
int ctpicture_png_file(const struct ctgame *g, const struct ctpicture_marks *marks,
                       const char *path);

/* Where square (gx, gy) lies in the PNG that ctpicture_png draws for the same
 * g and marks: its centre (*x, *y) in pixels and the side *side of a
 * square (all after scaling). Returns 0, or -1 when the square is outside
 * the picture (outputs unchanged then). */
int ctpicture_locate(const struct ctgame *g, const struct ctpicture_marks *marks, int gx, int gy,
                     double *x, double *y, double *side);

/* The squares the PNG of the same g and marks shows, [*gx0, *gx1] x
 * [*gy0, *gy1] (global coordinates, whole cells), and its size in pixels.
 * Returns 1 when that is the whole map, 0 when cropped to the area in play. */
int ctpicture_area(const struct ctgame *g, const struct ctpicture_marks *marks, int *gx0, int *gy0,
                   int *gx1, int *gy1, int *width, int *height);

/* The box of Ritual Site `tile`'s label in the PNG of the same g and marks
 * (top left *x, *y and size *w, *h, in pixels). Returns 0, or -1 when the
 * picture has no label of that tile (not a site, never on the map, its
 * cell not shown or taken by another tile); outputs unchanged then. */
int ctpicture_label(const struct ctgame *g, const struct ctpicture_marks *marks, int tile,
                    double *x, double *y, double *w, double *h);

/* The cache's counters and contents (ctpicture_png) into *out. */
void ctpicture_cache_stats(struct ctpicture_cache_stats *out);

/* Empties the cache of pictures (the counters go on). */
void ctpicture_cache_clear(void);

/* Frees the cache of pictures and the font caches that cairo and
 * fontconfig keep after drawing text, so that leak checkers see a clean
 * exit. Call it once at exit, after the last ctpicture_* call has returned on
 * every thread. */
void ctpicture_cleanup(void);

/* The same map as text, always the whole map: one character per square, a
 * space between tile columns, every column's gx written vertically above
 * it and every row's gy to its left, then one legend line in `lang` ("en"
 * or "nl", a prefix such as "nl-NL" counts; anything else, NULL included,
 * is English). Characters: 1-6 the pawn of that seat, * several pawns, c
 * cultist, y byakhee, h heart, b bullet, . street, B building interior, D
 * entrance, # blocked, X activated site, ^ > v < the square of an open
 * street, + reachable, @ the marked square, "#n" option labels in empty
 * cells (one to three numbers, or the first and last of more). A square
 * shows the first that applies in the order pawns, @, c, y, h, b, +,
 * arrow, kind; the legend names +, @, #n and x,y only when present.
 * After the legend: a line of the players by seat when marks names any
 * ("Players: 1 alice, 2 bob"); a line per Ritual Site that is or was on
 * the map ("Ritual Sites: Drowned Chapel (4,-2): activated", at its
 * middle square); and a line per square holding more than one pawn,
 * figure or token, listing all of them ("1,-2: pawn 2, byakhee"), in the
 * order of ctmap_squares. Writes a NUL-terminated text to buf[0..cap-1] and
 * returns its length, or -1 when it does not fit (buf then holds an
 * unspecified prefix, NUL-terminated when cap > 0). */
int ctpicture_text(const struct ctgame *g, const struct ctpicture_marks *marks, const char *lang,
                   char *buf, size_t cap);

#endif
