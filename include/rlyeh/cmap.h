/* cmap: the map of the CTHULHU!!! board game (shared/rules/cthulhu-boardgame.md
 * §3, §4): the 30 tiles and their layouts, rotations, the cell grid,
 * squares, the movement graph G, open streets, legal placement (B3-B10)
 * and the paths of C10.
 *
 * Tiles are numbered 0..29 for T01..T30 (CMAP_CHURCH = T01, CMAP_SETUP =
 * T02, CMAP_SITE_FIRST.. = the five Ritual Sites T26..T30). A placed tile's
 * nine squares are numbered tile * 9 + local, local = r * 3 + c in the map's
 * frame (after rotation), so every square of the game has a fixed index in
 * [0, CMAP_SQUARES) whatever the tile's cell.
 *
 * A struct cmap is a plain value (memcpy copies it); nothing here allocates,
 * reads a clock or draws a random number. */
#ifndef RLYEH_CMAP_H
#define RLYEH_CMAP_H

#include <stdint.h>

#define CMAP_TILES      30
#define CMAP_SQUARES    (CMAP_TILES * 9)
#define CMAP_CHURCH     0  /* T01 */
#define CMAP_SETUP      1  /* T02, placed east of the Church at setup (B12) */
#define CMAP_SITE_FIRST 25 /* T26..T30 are the Ritual Sites */
#define CMAP_SITES      5
/* Cells span [-CMAP_RADIUS, CMAP_RADIUS] on both axes: 29 tiles placed in a
 * line from the Church reach 29 cells at most. */
#define CMAP_RADIUS 30
#define CMAP_DIM    (2 * CMAP_RADIUS + 1)
/* Options of one tile, at most: every empty cell next to the map (at most
 * 2 * 30 + 2 of them) times four rotations. */
#define CMAP_OPTIONS_MAX 256

/* Sides and directions, in the order of C10's tie-break (N < E < S < W). */
enum cmap_side {
	CMAP_N = 0,
	CMAP_E = 1,
	CMAP_S = 2,
	CMAP_W = 3,
};

/* Square kinds, the layout characters of §3.1. */
enum cmap_kind {
	CMAP_BLOCKED = '#',
	CMAP_STREET = '.',
	CMAP_INTERIOR = 'B',
	CMAP_ENTRANCE = 'D',
};

/* What a tile is (§4). */
enum cmap_class {
	CMAP_CLASS_CHURCH,
	CMAP_CLASS_ROAD,     /* plain road: a byakhee on arrival */
	CMAP_CLASS_BUILDING, /* named building: cultist + token per interior square */
	CMAP_CLASS_SITE,     /* Ritual Site */
};

/* Where a tile is. */
enum cmap_where {
	CMAP_UNPLACED = 0,   /* in the map deck or the map discard pile */
	CMAP_PLACED = 1,     /* on the map, face up */
	CMAP_ACTIVATED = 2,  /* a Ritual Site on the map, face down (B10) */
	CMAP_SANCTIFIED = 3, /* a Ritual Site taken off the map by a player (§3.7) */
	CMAP_REMOVED = 4,    /* an activated site taken off the map by B9 */
};

/* Placement modes of §3.5 and §3.6. */
enum cmap_mode {
	CMAP_STRICT = 0,
	CMAP_RELIEF = 1, /* B8: strict without the last-open-street test */
	CMAP_FORCED = 2, /* B9: a site whose entrance faces an open street with a '.' middle */
};

struct cmap_tile_info {
	const char *id;   /* "T01".."T30" */
	const char *name; /* English name of §4 */
	enum cmap_class cls;
	const char *layout; /* 9 layout characters at rotation 0, row by row */
};

/* The tile table of §4; `tile` in [0, CMAP_TILES). */
const struct cmap_tile_info *cmap_tile(int tile);

/* A placement option: the cell and the rotation in quarter turns clockwise
 * (0..3 for 0, 90, 180, 270 degrees). */
struct cmap_option {
	int8_t tx, ty;
	uint8_t rot;
};

/* An open street (§3.4): the placed tile's cell and the open side. */
struct cmap_street {
	int8_t tx, ty;
	uint8_t side; /* enum cmap_side */
};

struct cmap {
	/* [ty + CMAP_RADIUS][tx + CMAP_RADIUS]: the tile on the map there, or -1 */
	int8_t cell[CMAP_DIM][CMAP_DIM];
	int8_t tx[CMAP_TILES], ty[CMAP_TILES]; /* cell of a tile that is or was on the map */
	uint8_t rot[CMAP_TILES];               /* quarter turns of a placed tile */
	uint8_t where[CMAP_TILES];             /* enum cmap_where */
	uint8_t forced[CMAP_TILES];            /* placed under B9 (its walls may face streets) */
	char kind[CMAP_TILES][9];              /* a placed tile's layout after rotation */
	int16_t link[CMAP_SQUARES][4];         /* cmap_step of every square, kept up to date */
};

/* Sets up the map of B12: the Church at (0,0) and T02 at (1,0), both at
 * rotation 0; every other tile unplaced. */
void cmap_init(struct cmap *m);

/* Writes the 9 layout characters of `tile` turned `rot` quarter turns
 * clockwise (R[r][c] = L[2-c][r] per turn). */
void cmap_layout(int tile, int rot, char out[9]);

/* 1 when side `side` of `tile` at rotation `rot` is OPEN ('.' or 'D' middle). */
int cmap_edge(int tile, int rot, int side);

/* The tile at cell (tx, ty), or -1 (also outside the grid). */
int cmap_at(const struct cmap *m, int tx, int ty);

/* 1 when side `side` of the tile on the map at `tile` is OPEN; an activated
 * site is CLOSED on every side (B10); 0 for a tile not on the map. */
int cmap_open(const struct cmap *m, int tile, int side);

/* The open streets of the map in reading order of their cells, then side
 * N, E, S, W; returns how many (at most 4 * CMAP_TILES). `out` may be NULL. */
int cmap_streets(const struct cmap *m, struct cmap_street *out);

/* legal() of §3.5 for strict and relief modes (B4, B5, B6, B8). Cells
 * outside the grid are never legal. */
int cmap_legal(const struct cmap *m, int tile, int rot, int tx, int ty, enum cmap_mode mode);

/* The options of `tile` in `mode`, numbered in order (ty, tx, rot), options
 * at one cell giving an identical rotated layout merged into the smallest
 * rotation (§3.5). In CMAP_FORCED mode (B9) the options are, for every
 * open street whose middle square is '.', the empty cell it faces with the
 * rotation that turns the site's entrance towards it. Returns how many
 * (at most CMAP_OPTIONS_MAX); `out` may be NULL. */
int cmap_options(const struct cmap *m, int tile, enum cmap_mode mode, struct cmap_option *out);

/* The tiles of `set` (bit t: tile t) that have an option in `mode`: bit t
 * set when cmap_options(m, t, mode, NULL) > 0, found without counting the
 * options past the first. */
uint32_t cmap_placeable(const struct cmap *m, uint32_t set, enum cmap_mode mode);

/* Puts `tile` on the map (no legality check: callers pass an option). */
void cmap_place(struct cmap *m, int tile, struct cmap_option at, enum cmap_mode mode);

/* Turns a placed site face down (B10). */
void cmap_activate(struct cmap *m, int tile);

/* Takes a site off the map: `to` is CMAP_SANCTIFIED or CMAP_REMOVED. */
void cmap_remove(struct cmap *m, int tile, enum cmap_where to);

/* ---- squares ---- */

/* Global coordinates of square `sq` (§3.2: gx = 3 tx + c, gy = 3 ty + r). */
int cmap_gx(const struct cmap *m, int sq);
int cmap_gy(const struct cmap *m, int sq);

/* The square at global (gx, gy) on a placed, non-activated tile, or -1. */
int cmap_find(const struct cmap *m, int gx, int gy);

/* The kind character of a square on the map (CMAP_BLOCKED for a square of
 * a tile not on the map or activated). */
int cmap_square_kind(const struct cmap *m, int sq);

/* 1 when `sq` is a vertex of G: passable and on a placed, non-activated tile. */
int cmap_passable(const struct cmap *m, int sq);

/* The square G links to `sq` in direction `dir`, or -1 (§3.3, B3). */
static inline int cmap_step(const struct cmap *m, int sq, int dir)
{
	return m->link[sq][dir];
}

/* Reading order of squares (ascending gy, then gx): negative, zero or
 * positive like strcmp. */
int cmap_cmp_reading(const struct cmap *m, int a, int b);

/* Squares of the map in reading order: writes every vertex of G to `out`
 * (capacity CMAP_SQUARES) and returns how many. */
int cmap_squares(const struct cmap *m, int16_t *out);

/* Shortest-path lengths in G from `from` to every square, written to
 * dist[CMAP_SQUARES] (-1 for unreachable, and for `from` not in G every
 * entry is -1). Squares in `wall` (a bitmap of CMAP_SQUARES bits, may be
 * NULL) are never entered; when `confine` >= 0 the search stays on the
 * squares of tile `confine`. */
void cmap_distances(const struct cmap *m, int from, const uint8_t *wall, int confine,
                    int16_t *dist);

/* cmap_distances from the nearest of n squares at once (squares not in G
 * are left out): a multi-source search, so dist[q] is the length of the
 * shortest path from any of them. */
void cmap_distances_from(const struct cmap *m, const int16_t *from, int n, const uint8_t *wall,
                         int confine, int16_t *dist);

/* C10's path from `from` to `to`: among paths of G at most `limit` steps
 * long (limit < 0: no limit), the shortest, then the one entering the
 * fewest squares of `enemy` (a bitmap, may be NULL) before `to`, then the
 * lexicographically smallest sequence of directions (N < E < S < W).
 * Writes the directions to dirs (capacity CMAP_SQUARES) and returns the
 * length, 0 when from == to, or -1 when no such path exists. */
int cmap_route(const struct cmap *m, int from, int to, const uint8_t *enemy, int limit,
               uint8_t *dirs);

/* Bitmap helpers for the sets above (CMAP_SQUARES bits). */
#define CMAP_BITMAP_BYTES ((CMAP_SQUARES + 7) / 8)
static inline int cmap_bit(const uint8_t *set, int sq)
{
	return set && ((set[sq >> 3] >> (sq & 7)) & 1);
}
static inline void cmap_bit_set(uint8_t *set, int sq)
{
	set[sq >> 3] = (uint8_t)(set[sq >> 3] | (1u << (sq & 7)));
}

#endif
