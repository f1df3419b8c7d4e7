/* ctmap: the map of the CTHULHU!!! board game (shared/rules/cthulhu-boardgame.md
 * §3, §4): the 30 tiles and their layouts, rotations, the cell grid,
 * squares, the movement graph G, open streets, legal placement (B3-B10)
 * and the paths of C10.
 *
 * Tiles are numbered 0..29 for T01..T30 (CTMAP_CHURCH = T01, CTMAP_SETUP =
 * T02, CTMAP_SITE_FIRST.. = the five Ritual Sites T26..T30). A placed tile's
 * nine squares are numbered tile * 9 + local, local = r * 3 + c in the map's
 * frame (after rotation), so every square of the game has a fixed index in
 * [0, CTMAP_SQUARES) whatever the tile's cell.
 *
 * A struct ctmap is a plain value (memcpy copies it); nothing here allocates,
 * reads a clock or draws a random number. */
#ifndef RLYEH_CTMAP_H
#define RLYEH_CTMAP_H

#include <stdint.h>

#define CTMAP_TILES      30
#define CTMAP_SQUARES    (CTMAP_TILES * 9)
#define CTMAP_CHURCH     0  /* T01 */
#define CTMAP_SETUP      1  /* T02, placed east of the Church at setup (B12) */
#define CTMAP_SITE_FIRST 25 /* T26..T30 are the Ritual Sites */
#define CTMAP_SITES      5
/* Cells span [-CTMAP_RADIUS, CTMAP_RADIUS] on both axes: 29 tiles placed in a
 * line from the Church reach 29 cells at most. */
#define CTMAP_RADIUS 30
#define CTMAP_DIM    (2 * CTMAP_RADIUS + 1)
/* Options of one tile, at most: every empty cell next to the map (at most
 * 2 * 30 + 2 of them) times four rotations. */
#define CTMAP_OPTIONS_MAX 256

/* Sides and directions, in the order of C10's tie-break (N < E < S < W). */
enum ctmap_side {
	CTMAP_N = 0,
	CTMAP_E = 1,
	CTMAP_S = 2,
	CTMAP_W = 3,
};

/* Square kinds, the layout characters of §3.1. */
enum ctmap_kind {
	CTMAP_BLOCKED = '#',
	CTMAP_STREET = '.',
	CTMAP_INTERIOR = 'B',
	CTMAP_ENTRANCE = 'D',
};

/* What a tile is (§4). */
enum ctmap_class {
	CTMAP_CLASS_CHURCH,
	CTMAP_CLASS_ROAD,     /* plain road: a byakhee on arrival */
	CTMAP_CLASS_BUILDING, /* named building: cultist + token per interior square */
	CTMAP_CLASS_SITE,     /* Ritual Site */
};

/* Where a tile is. */
enum ctmap_where {
	CTMAP_UNPLACED = 0,   /* in the map deck or the map discard pile */
	CTMAP_PLACED = 1,     /* on the map, face up */
	CTMAP_ACTIVATED = 2,  /* a Ritual Site on the map, face down (B10) */
	CTMAP_SANCTIFIED = 3, /* a Ritual Site taken off the map by a player (§3.7) */
	CTMAP_REMOVED = 4,    /* an activated site taken off the map by B9 */
};

/* Placement modes of §3.5 and §3.6. */
enum ctmap_mode {
	CTMAP_STRICT = 0,
	CTMAP_RELIEF = 1, /* B8: strict without the last-open-street test */
	CTMAP_FORCED = 2, /* B9: a site whose entrance faces an open street with a '.' middle */
};

struct ctmap_tile_info {
	const char *id;   /* "T01".."T30" */
	const char *name; /* English name of §4 */
	enum ctmap_class cls;
	const char *layout; /* 9 layout characters at rotation 0, row by row */
};

/* The tile table of §4; `tile` in [0, CTMAP_TILES). */
const struct ctmap_tile_info *ctmap_tile(int tile);

/* A placement option: the cell and the rotation in quarter turns clockwise
 * (0..3 for 0, 90, 180, 270 degrees). */
struct ctmap_option {
	int8_t tx, ty;
	uint8_t rot;
};

/* An open street (§3.4): the placed tile's cell and the open side. */
struct ctmap_street {
	int8_t tx, ty;
	uint8_t side; /* enum ctmap_side */
};

struct ctmap {
	/* [ty + CTMAP_RADIUS][tx + CTMAP_RADIUS]: the tile on the map there, or -1 */
	int8_t cell[CTMAP_DIM][CTMAP_DIM];
	int8_t tx[CTMAP_TILES], ty[CTMAP_TILES]; /* cell of a tile that is or was on the map */
	uint8_t rot[CTMAP_TILES];                /* quarter turns of a placed tile */
	uint8_t where[CTMAP_TILES];              /* enum ctmap_where */
	uint8_t forced[CTMAP_TILES];             /* placed under B9 (its walls may face streets) */
	char kind[CTMAP_TILES][9];               /* a placed tile's layout after rotation */
	int16_t link[CTMAP_SQUARES][4];          /* ctmap_step of every square, kept up to date */
};

/* Sets up the map of B12: the Church at (0,0) and T02 at (1,0), both at
 * rotation 0; every other tile unplaced. */
void ctmap_init(struct ctmap *m);

/* Writes the 9 layout characters of `tile` turned `rot` quarter turns
 * clockwise (R[r][c] = L[2-c][r] per turn). */
void ctmap_layout(int tile, int rot, char out[9]);

/* 1 when side `side` of `tile` at rotation `rot` is OPEN ('.' or 'D' middle). */
int ctmap_edge(int tile, int rot, int side);

/* The tile at cell (tx, ty), or -1 (also outside the grid). */
int ctmap_at(const struct ctmap *m, int tx, int ty);

/* 1 when side `side` of the tile on the map at `tile` is OPEN; an activated
 * site is CLOSED on every side (B10); 0 for a tile not on the map. */
int ctmap_open(const struct ctmap *m, int tile, int side);

/* The open streets of the map in reading order of their cells, then side
 * N, E, S, W; returns how many (at most 4 * CTMAP_TILES). `out` may be NULL. */
int ctmap_streets(const struct ctmap *m, struct ctmap_street *out);

/* legal() of §3.5 for strict and relief modes (B4, B5, B6, B8). Cells
 * outside the grid are never legal. */
int ctmap_legal(const struct ctmap *m, int tile, int rot, int tx, int ty, enum ctmap_mode mode);

/* The options of `tile` in `mode`, numbered in order (ty, tx, rot), options
 * at one cell giving an identical rotated layout merged into the smallest
 * rotation (§3.5). In CTMAP_FORCED mode (B9) the options are, for every
 * open street whose middle square is '.', the empty cell it faces with the
 * rotation that turns the site's entrance towards it. Returns how many
 * (at most CTMAP_OPTIONS_MAX); `out` may be NULL. */
int ctmap_options(const struct ctmap *m, int tile, enum ctmap_mode mode, struct ctmap_option *out);

/* The tiles of `set` (bit t: tile t) that have an option in `mode`: bit t
 * set when ctmap_options(m, t, mode, NULL) > 0, found without counting the
 * options past the first. */
uint32_t ctmap_placeable(const struct ctmap *m, uint32_t set, enum ctmap_mode mode);

/* Puts `tile` on the map (no legality check: callers pass an option). */
void ctmap_place(struct ctmap *m, int tile, struct ctmap_option at, enum ctmap_mode mode);

/* Turns a placed site face down (B10). */
void ctmap_activate(struct ctmap *m, int tile);

/* Takes a site off the map: `to` is CTMAP_SANCTIFIED or CTMAP_REMOVED. */
void ctmap_remove(struct ctmap *m, int tile, enum ctmap_where to);

/* ---- squares ---- */

/* Global coordinates of square `sq` (§3.2: gx = 3 tx + c, gy = 3 ty + r). */
int ctmap_gx(const struct ctmap *m, int sq);
int ctmap_gy(const struct ctmap *m, int sq);

/* The square at global (gx, gy) on a placed, non-activated tile, or -1. */
int ctmap_find(const struct ctmap *m, int gx, int gy);

/* The kind character of a square on the map (CTMAP_BLOCKED for a square of
 * a tile not on the map or activated). */
int ctmap_square_kind(const struct ctmap *m, int sq);

/* 1 when `sq` is a vertex of G: passable and on a placed, non-activated tile. */
int ctmap_passable(const struct ctmap *m, int sq);

/* The square G links to `sq` in direction `dir`, or -1 (§3.3, B3). */
static inline int ctmap_step(const struct ctmap *m, int sq, int dir)
{
	return m->link[sq][dir];
}

/* Reading order of squares (ascending gy, then gx): negative, zero or
 * positive like strcmp. */
int ctmap_cmp_reading(const struct ctmap *m, int a, int b);

/* Squares of the map in reading order: writes every vertex of G to `out`
 * (capacity CTMAP_SQUARES) and returns how many. */
int ctmap_squares(const struct ctmap *m, int16_t *out);

/* Shortest-path lengths in G from `from` to every square, written to
 * dist[CTMAP_SQUARES] (-1 for unreachable, and for `from` not in G every
 * entry is -1). Squares in `wall` (a bitmap of CTMAP_SQUARES bits, may be
 * NULL) are never entered; when `confine` >= 0 the search stays on the
 * squares of tile `confine`. */
void ctmap_distances(const struct ctmap *m, int from, const uint8_t *wall, int confine,
                     int16_t *dist);

/* ctmap_distances from the nearest of n squares at once (squares not in G
 * are left out): a multi-source search, so dist[q] is the length of the
 * shortest path from any of them. */
void ctmap_distances_from(const struct ctmap *m, const int16_t *from, int n, const uint8_t *wall,
                          int confine, int16_t *dist);

/* C10's path from `from` to `to`: among paths of G at most `limit` steps
 * long (limit < 0: no limit), the shortest, then the one entering the
 * fewest squares of `enemy` (a bitmap, may be NULL) before `to`, then the
 * lexicographically smallest sequence of directions (N < E < S < W).
 * Writes the directions to dirs (capacity CTMAP_SQUARES) and returns the
 * length, 0 when from == to, or -1 when no such path exists. */
int ctmap_route(const struct ctmap *m, int from, int to, const uint8_t *enemy, int limit,
                uint8_t *dirs);

/* Bitmap helpers for the sets above (CTMAP_SQUARES bits). */
#define CTMAP_BITMAP_BYTES ((CTMAP_SQUARES + 7) / 8)
static inline int ctmap_bit(const uint8_t *set, int sq)
{
	return set && ((set[sq >> 3] >> (sq & 7)) & 1);
}
static inline void ctmap_bit_set(uint8_t *set, int sq)
{
	set[sq >> 3] = (uint8_t)(set[sq >> 3] | (1u << (sq & 7)));
}

#endif
