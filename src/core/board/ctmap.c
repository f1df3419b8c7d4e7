#include "rlyeh/ctmap.h"

#include <assert.h>
#include <string.h>

#define R CTMAP_RADIUS

#define LAYOUT_CHURCH   "#.#.B.#.#"
#define LAYOUT_FOUR_WAY "#.#...#.#"
#define LAYOUT_T        "#.#...###"
#define LAYOUT_STRAIGHT "#.##.##.#"
#define LAYOUT_CORNER   "#.##..###"
#define LAYOUT_SITE     "BBBBBBBDB"

static const struct ctmap_tile_info tiles[CTMAP_TILES] = {
	{ "T01", "The Church", CTMAP_CLASS_CHURCH, LAYOUT_CHURCH },
	{ "T02", "Church Street Crossing", CTMAP_CLASS_ROAD, LAYOUT_FOUR_WAY },
	{ "T03", "Harbour Crossroads", CTMAP_CLASS_ROAD, LAYOUT_FOUR_WAY },
	{ "T04", "Market Crossroads", CTMAP_CLASS_ROAD, LAYOUT_FOUR_WAY },
	{ "T05", "Mist Crossroads (dirt)", CTMAP_CLASS_ROAD, LAYOUT_FOUR_WAY },
	{ "T06", "Fore Street Junction", CTMAP_CLASS_ROAD, LAYOUT_T },
	{ "T07", "Circle Court Junction", CTMAP_CLASS_ROAD, LAYOUT_T },
	{ "T08", "Back Street Junction", CTMAP_CLASS_ROAD, LAYOUT_T },
	{ "T09", "Water Street", CTMAP_CLASS_ROAD, LAYOUT_STRAIGHT },
	{ "T10", "Green Lane (dirt)", CTMAP_CLASS_ROAD, LAYOUT_STRAIGHT },
	{ "T11", "Wharf Row", CTMAP_CLASS_ROAD, LAYOUT_STRAIGHT },
	{ "T12", "Cliff Path Bend (dirt)", CTMAP_CLASS_ROAD, LAYOUT_CORNER },
	{ "T13", "Ship Street Bend", CTMAP_CLASS_ROAD, LAYOUT_CORNER },
	{ "T14", "Lantern Bend", CTMAP_CLASS_ROAD, LAYOUT_CORNER },
	{ "T15", "Pharmacy", CTMAP_CLASS_BUILDING, "#BB...###" },
	{ "T16", "Burial Hill (dirt path)", CTMAP_CLASS_BUILDING, "BBBB..#.#" },
	{ "T17", "Congregational Hospital", CTMAP_CLASS_BUILDING, "BBB...#.#" },
	{ "T18", "Hall School", CTMAP_CLASS_BUILDING, "#.#B..BB#" },
	{ "T19", "The Terrible Old Man's House", CTMAP_CLASS_BUILDING, "#.##.B#.B" },
	{ "T20", "North Point Light", CTMAP_CLASS_BUILDING, "#.#..B##B" },
	{ "T21", "Police Station", CTMAP_CLASS_BUILDING, "B.#...#.#" },
	{ "T22", "Ward's Chandlery", CTMAP_CLASS_BUILDING, "B.#B..B.#" },
	{ "T23", "Historical Society", CTMAP_CLASS_BUILDING, "###...BB#" },
	{ "T24", "Crooked Anchor Tavern", CTMAP_CLASS_BUILDING, "#BB..B#.#" },
	{ "T25", "Strange High House", CTMAP_CLASS_BUILDING, "#.#...BB#" },
	{ "T26", "Central Hill Crypt", CTMAP_CLASS_SITE, LAYOUT_SITE },
	{ "T27", "Carcosa Playhouse", CTMAP_CLASS_SITE, LAYOUT_SITE },
	{ "T28", "Drowned Chapel", CTMAP_CLASS_SITE, LAYOUT_SITE },
	{ "T29", "Standing Stones of Kingsport Head", CTMAP_CLASS_SITE, LAYOUT_SITE },
	{ "T30", "Lamplighter's Vault", CTMAP_CLASS_SITE, LAYOUT_SITE },
};

/* turn_src[k][l]: the rotation-0 square shown at local l after k quarter turns. */
static const uint8_t turn_src[4][9] = {
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8 },
	{ 6, 3, 0, 7, 4, 1, 8, 5, 2 },
	{ 8, 7, 6, 5, 4, 3, 2, 1, 0 },
	{ 2, 5, 8, 1, 4, 7, 0, 3, 6 },
};

static const int side_dx[4] = { 0, 1, 0, -1 };
static const int side_dy[4] = { -1, 0, 1, 0 };
static const int side_mid[4] = { 1, 5, 7, 3 };

static int opposite(int side)
{
	return (side + 2) & 3;
}

static int open_char(int ch)
{
	return ch == CTMAP_STREET || ch == CTMAP_ENTRANCE;
}

static int passable_char(int ch)
{
	return ch == CTMAP_STREET || ch == CTMAP_INTERIOR || ch == CTMAP_ENTRANCE;
}

static int in_grid(int tx, int ty)
{
	return tx >= -R && tx <= R && ty >= -R && ty <= R;
}

static int floor_div3(int v)
{
	return v >= 0 ? v / 3 : -((2 - v) / 3);
}

static int cell_key(int tx, int ty)
{
	return (ty + R) * CTMAP_DIM + (tx + R);
}

const struct ctmap_tile_info *ctmap_tile(int tile)
{
	if (tile < 0 || tile >= CTMAP_TILES)
		return NULL;
	return &tiles[tile];
}

void ctmap_layout(int tile, int rot, char out[9])
{
	const char *src = tiles[tile].layout;
	const uint8_t *map = turn_src[rot & 3];

	for (int l = 0; l < 9; l++)
		out[l] = src[map[l]];
}

int ctmap_edge(int tile, int rot, int side)
{
	return open_char(tiles[tile].layout[turn_src[rot & 3][side_mid[side]]]);
}

static void relink(struct ctmap *m, int tile, int tx, int ty);

void ctmap_init(struct ctmap *m)
{
	memset(m, 0, sizeof(*m));
	memset(m->cell, -1, sizeof(m->cell));
	for (int t = 0; t < CTMAP_TILES; t++)
		memcpy(m->kind[t], tiles[t].layout, 9);
	m->where[CTMAP_CHURCH] = CTMAP_PLACED;
	m->cell[R][R] = CTMAP_CHURCH;
	m->where[CTMAP_SETUP] = CTMAP_PLACED;
	m->tx[CTMAP_SETUP] = 1;
	m->cell[R][R + 1] = CTMAP_SETUP;
	memset(m->link, -1, sizeof(m->link));
	relink(m, CTMAP_CHURCH, 0, 0);
	relink(m, CTMAP_SETUP, 1, 0);
}

int ctmap_at(const struct ctmap *m, int tx, int ty)
{
	if (!in_grid(tx, ty))
		return -1;
	return m->cell[ty + R][tx + R];
}

int ctmap_open(const struct ctmap *m, int tile, int side)
{
	return m->where[tile] == CTMAP_PLACED && open_char(m->kind[tile][side_mid[side]]);
}

/* The face-up tiles on the map in reading order of their cells; returns how many. */
static int sorted_tiles(const struct ctmap *m, int8_t *out)
{
	int keys[CTMAP_TILES];
	int n = 0;

	for (int t = 0; t < CTMAP_TILES; t++) {
		if (m->where[t] != CTMAP_PLACED)
			continue;
		int key = cell_key(m->tx[t], m->ty[t]);
		int i = n++;
		for (; i > 0 && keys[i - 1] > key; i--) {
			keys[i] = keys[i - 1];
			out[i] = out[i - 1];
		}
		keys[i] = key;
		out[i] = (int8_t)t;
	}
	return n;
}

static int street_open(const struct ctmap *m, int t, int side)
{
	return open_char(m->kind[t][side_mid[side]]) &&
	       ctmap_at(m, m->tx[t] + side_dx[side], m->ty[t] + side_dy[side]) < 0;
}

int ctmap_streets(const struct ctmap *m, struct ctmap_street *out)
{
	int8_t order[CTMAP_TILES];
	int n = sorted_tiles(m, order);
	int count = 0;

	for (int i = 0; i < n; i++) {
		int t = order[i];
		for (int s = 0; s < 4; s++) {
			if (!street_open(m, t, s))
				continue;
			if (out)
				out[count] =
				    (struct ctmap_street){ m->tx[t], m->ty[t], (uint8_t)s };
			count++;
		}
	}
	return count;
}

static int count_streets(const struct ctmap *m)
{
	int count = 0;

	for (int t = 0; t < CTMAP_TILES; t++)
		if (m->where[t] == CTMAP_PLACED)
			for (int s = 0; s < 4; s++)
				count += street_open(m, t, s);
	return count;
}

static int is_last(const struct ctmap *m, int tile)
{
	if (m->where[tile] != CTMAP_UNPLACED)
		return 0;
	for (int t = 0; t < CTMAP_TILES; t++)
		if (t != tile && m->where[t] == CTMAP_UNPLACED)
			return 0;
	return 1;
}

/* legal() of §3.5 for the rotated layout `lay`; `streets` is |open(M)|, or
 * -1 to count it when needed. */
static int legal_layout(const struct ctmap *m, const char *lay, int tx, int ty, int strict,
                        int last, int streets)
{
	int connected = 0, closed = 0, added = 0;

	if (!in_grid(tx, ty) || m->cell[ty + R][tx + R] >= 0)
		return 0;
	for (int s = 0; s < 4; s++) {
		int n = ctmap_at(m, tx + side_dx[s], ty + side_dy[s]);
		int a = open_char(lay[side_mid[s]]);
		if (n < 0) {
			added += a;
			continue;
		}
		if (a != ctmap_open(m, n, opposite(s)))
			return 0;
		if (a) {
			if (lay[side_mid[s]] == CTMAP_ENTRANCE &&
			    m->kind[n][side_mid[opposite(s)]] == CTMAP_ENTRANCE)
				return 0;
			connected = 1;
			closed++;
		}
	}
	if (!connected)
		return 0;
	/* |open(M + new tile)| = streets - closed + added. */
	if (strict && !last && added == 0) {
		if (streets < 0)
			streets = count_streets(m);
		if (streets == closed)
			return 0;
	}
	return 1;
}

/* B9: the entrance of the rotated layout faces a street whose middle is '.'. */
static int legal_forced(const struct ctmap *m, const char *lay, int tx, int ty)
{
	if (!in_grid(tx, ty) || m->cell[ty + R][tx + R] >= 0)
		return 0;
	for (int s = 0; s < 4; s++) {
		if (lay[side_mid[s]] != CTMAP_ENTRANCE)
			continue;
		int n = ctmap_at(m, tx + side_dx[s], ty + side_dy[s]);
		return n >= 0 && m->where[n] == CTMAP_PLACED &&
		       m->kind[n][side_mid[opposite(s)]] == CTMAP_STREET;
	}
	return 0;
}

int ctmap_legal(const struct ctmap *m, int tile, int rot, int tx, int ty, enum ctmap_mode mode)
{
	char lay[9];

	ctmap_layout(tile, rot, lay);
	if (mode == CTMAP_FORCED)
		return legal_forced(m, lay, tx, ty);
	return legal_layout(m, lay, tx, ty, mode == CTMAP_STRICT, is_last(m, tile), -1);
}

/* Inserts `key` into the ascending keys[0..n) unless present; returns the new n. */
static int insert_key(int *keys, int n, int key)
{
	int i = n;

	while (i > 0 && keys[i - 1] > key)
		i--;
	if (i > 0 && keys[i - 1] == key)
		return n;
	memmove(keys + i + 1, keys + i, (size_t)(n - i) * sizeof(*keys));
	keys[i] = key;
	return n + 1;
}

static struct ctmap_option option_of(int key)
{
	int cell = key >> 2;

	return (struct ctmap_option){ (int8_t)(cell % CTMAP_DIM - R),
		                      (int8_t)(cell / CTMAP_DIM - R), (uint8_t)(key & 3) };
}

/* ctmap_options with the open streets of m given (ctmap_streets: ns of
 * them), stopping after `max` options (at most CTMAP_OPTIONS_MAX). */
static int options_upto(const struct ctmap *m, const struct ctmap_street *streets, int ns, int tile,
                        enum ctmap_mode mode, struct ctmap_option *out, int max)
{
	int keys[4 * CTMAP_TILES];
	int nk = 0, count = 0;

	if (mode == CTMAP_FORCED) {
		if (tiles[tile].cls != CTMAP_CLASS_SITE)
			return 0;
		for (int i = 0; i < ns; i++) {
			const struct ctmap_street *st = &streets[i];
			int t = ctmap_at(m, st->tx, st->ty);
			int tx = st->tx + side_dx[st->side], ty = st->ty + side_dy[st->side];
			if (m->kind[t][side_mid[st->side]] != CTMAP_STREET || !in_grid(tx, ty))
				continue;
			nk = insert_key(keys, nk, cell_key(tx, ty) * 4 + st->side);
		}
		for (int i = 0; i < nk && count < max; i++) {
			if (out)
				out[count] = option_of(keys[i]);
			count++;
		}
		return count;
	}

	char lay[4][9];
	int distinct[4], nd = 0;
	for (int rot = 0; rot < 4; rot++) {
		ctmap_layout(tile, rot, lay[rot]);
		int same = 0;
		for (int j = 0; j < nd && !same; j++)
			same = memcmp(lay[distinct[j]], lay[rot], 9) == 0;
		if (!same)
			distinct[nd++] = rot;
	}
	for (int i = 0; i < ns; i++) {
		int tx = streets[i].tx + side_dx[streets[i].side];
		int ty = streets[i].ty + side_dy[streets[i].side];
		if (in_grid(tx, ty))
			nk = insert_key(keys, nk, cell_key(tx, ty));
	}
	int strict = mode == CTMAP_STRICT, last = is_last(m, tile);
	for (int i = 0; i < nk; i++) {
		int tx = keys[i] % CTMAP_DIM - R, ty = keys[i] / CTMAP_DIM - R;
		for (int j = 0; j < nd; j++) {
			int rot = distinct[j];
			if (!legal_layout(m, lay[rot], tx, ty, strict, last, ns))
				continue;
			if (count == max)
				return count;
			if (out)
				out[count] =
				    (struct ctmap_option){ (int8_t)tx, (int8_t)ty, (uint8_t)rot };
			count++;
		}
	}
	return count;
}

int ctmap_options(const struct ctmap *m, int tile, enum ctmap_mode mode, struct ctmap_option *out)
{
	struct ctmap_street streets[4 * CTMAP_TILES];
	int ns = ctmap_streets(m, streets);

	return options_upto(m, streets, ns, tile, mode, out, CTMAP_OPTIONS_MAX);
}

uint32_t ctmap_placeable(const struct ctmap *m, uint32_t set, enum ctmap_mode mode)
{
	struct ctmap_street streets[4 * CTMAP_TILES];
	int ns = ctmap_streets(m, streets), nseen = 0;
	/* The verdict depends on the tile only through its layout, its class
	 * and whether it is the last one unplaced: tiles alike share it. */
	struct {
		const char *layout;
		int cls, last, verdict;
	} seen[CTMAP_TILES];
	uint32_t out = 0;

	for (int t = 0; t < CTMAP_TILES; t++) {
		int v = -1, last;
		if (!(set >> t & 1))
			continue;
		last = is_last(m, t);
		for (int i = 0; i < nseen && v < 0; i++)
			if (seen[i].layout == tiles[t].layout && seen[i].cls == (int)tiles[t].cls &&
			    seen[i].last == last)
				v = seen[i].verdict;
		if (v < 0) {
			v = options_upto(m, streets, ns, t, mode, NULL, 1) > 0;
			seen[nseen].layout = tiles[t].layout;
			seen[nseen].cls = (int)tiles[t].cls;
			seen[nseen].last = last;
			seen[nseen++].verdict = v;
		}
		if (v)
			out |= 1u << t;
	}
	return out;
}

void ctmap_place(struct ctmap *m, int tile, struct ctmap_option at, enum ctmap_mode mode)
{
	assert(in_grid(at.tx, at.ty) && m->cell[at.ty + R][at.tx + R] < 0);
	m->cell[at.ty + R][at.tx + R] = (int8_t)tile;
	m->tx[tile] = at.tx;
	m->ty[tile] = at.ty;
	m->rot[tile] = (uint8_t)(at.rot & 3);
	m->where[tile] = CTMAP_PLACED;
	m->forced[tile] = mode == CTMAP_FORCED;
	ctmap_layout(tile, at.rot, m->kind[tile]);
	relink(m, tile, at.tx, at.ty);
}

void ctmap_activate(struct ctmap *m, int tile)
{
	assert(m->where[tile] == CTMAP_PLACED);
	m->where[tile] = CTMAP_ACTIVATED;
	relink(m, tile, m->tx[tile], m->ty[tile]);
}

void ctmap_remove(struct ctmap *m, int tile, enum ctmap_where to)
{
	int tx = m->tx[tile], ty = m->ty[tile];

	assert(to == CTMAP_SANCTIFIED || to == CTMAP_REMOVED);
	if (ctmap_at(m, tx, ty) == tile)
		m->cell[ty + R][tx + R] = -1;
	m->where[tile] = (uint8_t)to;
	relink(m, tile, tx, ty);
}

/* ---- squares ---- */

int ctmap_gx(const struct ctmap *m, int sq)
{
	return 3 * m->tx[sq / 9] + sq % 3;
}

int ctmap_gy(const struct ctmap *m, int sq)
{
	return 3 * m->ty[sq / 9] + sq % 9 / 3;
}

int ctmap_find(const struct ctmap *m, int gx, int gy)
{
	int tx = floor_div3(gx), ty = floor_div3(gy);
	int t = ctmap_at(m, tx, ty);

	if (t < 0 || m->where[t] != CTMAP_PLACED)
		return -1;
	return t * 9 + (gy - 3 * ty) * 3 + (gx - 3 * tx);
}

int ctmap_square_kind(const struct ctmap *m, int sq)
{
	int t = sq / 9;

	return m->where[t] == CTMAP_PLACED ? m->kind[t][sq % 9] : CTMAP_BLOCKED;
}

int ctmap_passable(const struct ctmap *m, int sq)
{
	int t = sq / 9;

	return m->where[t] == CTMAP_PLACED && passable_char(m->kind[t][sq % 9]);
}

/* ctmap_step worked out from the layouts and the grid. */
static int compute_step(const struct ctmap *m, int sq, int dir)
{
	int t = sq / 9, l = sq % 9;

	if (m->where[t] != CTMAP_PLACED || !passable_char(m->kind[t][l]))
		return -1;
	int r = l / 3 + side_dy[dir], c = l % 3 + side_dx[dir];
	if (r >= 0 && r < 3 && c >= 0 && c < 3) {
		int nl = r * 3 + c;
		return passable_char(m->kind[t][nl]) ? t * 9 + nl : -1;
	}
	if (l != side_mid[dir] || !open_char(m->kind[t][l]))
		return -1;
	int n = ctmap_at(m, m->tx[t] + side_dx[dir], m->ty[t] + side_dy[dir]);
	if (n < 0 || m->where[n] != CTMAP_PLACED)
		return -1;
	int nl = side_mid[opposite(dir)];
	return open_char(m->kind[n][nl]) ? n * 9 + nl : -1;
}

/* Recomputes the links of the squares of `tile` and of the tiles in the
 * cells next to (tx, ty). */
static void relink(struct ctmap *m, int tile, int tx, int ty)
{
	int touched[5], n = 0;
	touched[n++] = tile;
	for (int d = 0; d < 4; d++) {
		int t = ctmap_at(m, tx + side_dx[d], ty + side_dy[d]);
		if (t >= 0)
			touched[n++] = t;
	}
	for (int i = 0; i < n; i++)
		for (int l = 0; l < 9; l++)
			for (int d = 0; d < 4; d++)
				m->link[touched[i] * 9 + l][d] =
				    (int16_t)compute_step(m, touched[i] * 9 + l, d);
}

int ctmap_cmp_reading(const struct ctmap *m, int a, int b)
{
	int ya = ctmap_gy(m, a), yb = ctmap_gy(m, b);

	if (ya != yb)
		return ya < yb ? -1 : 1;
	int xa = ctmap_gx(m, a), xb = ctmap_gx(m, b);
	return (xa > xb) - (xa < xb);
}

int ctmap_squares(const struct ctmap *m, int16_t *out)
{
	int8_t order[CTMAP_TILES];
	int n = sorted_tiles(m, order);
	int count = 0;

	for (int i = 0; i < n;) {
		int j = i;
		while (j < n && m->ty[order[j]] == m->ty[order[i]])
			j++;
		for (int r = 0; r < 3; r++)
			for (int k = i; k < j; k++)
				for (int c = 0; c < 3; c++) {
					int sq = order[k] * 9 + r * 3 + c;
					if (passable_char(m->kind[order[k]][r * 3 + c]))
						out[count++] = (int16_t)sq;
				}
		i = j;
	}
	return count;
}

void ctmap_distances(const struct ctmap *m, int from, const uint8_t *wall, int confine,
                     int16_t *dist)
{
	int16_t one = (int16_t)from;

	ctmap_distances_from(m, &one, 1, wall, confine, dist);
}

void ctmap_distances_from(const struct ctmap *m, const int16_t *from, int n, const uint8_t *wall,
                          int confine, int16_t *dist)
{
	int16_t queue[CTMAP_SQUARES];
	int head = 0, tail = 0;

	for (int i = 0; i < CTMAP_SQUARES; i++)
		dist[i] = -1;
	for (int i = 0; i < n; i++) {
		if (from[i] < 0 || from[i] >= CTMAP_SQUARES || !ctmap_passable(m, from[i]) ||
		    dist[from[i]] == 0)
			continue;
		dist[from[i]] = 0;
		queue[tail++] = from[i];
	}
	while (head < tail) {
		int v = queue[head++];
		for (int d = 0; d < 4; d++) {
			int u = ctmap_step(m, v, d);
			if (u < 0 || dist[u] >= 0 || ctmap_bit(wall, u) ||
			    (confine >= 0 && u / 9 != confine))
				continue;
			dist[u] = (int16_t)(dist[v] + 1);
			queue[tail++] = (int16_t)u;
		}
	}
}

int ctmap_route(const struct ctmap *m, int from, int to, const uint8_t *enemy, int limit,
                uint8_t *dirs)
{
	int16_t dist[CTMAP_SQUARES], cost[CTMAP_SQUARES], queue[CTMAP_SQUARES];
	int head = 0, tail = 0;

	if (!ctmap_passable(m, from) || !ctmap_passable(m, to))
		return -1;
	if (from == to)
		return 0;
	for (int i = 0; i < CTMAP_SQUARES; i++)
		dist[i] = -1;
	dist[to] = 0;
	cost[to] = 0;
	queue[tail++] = (int16_t)to;
	while (head < tail && (dist[from] < 0 || dist[queue[head]] < dist[from])) {
		int v = queue[head++];
		int enter = v != to && ctmap_bit(enemy, v);
		for (int d = 0; d < 4; d++) {
			int u = ctmap_step(m, v, d);
			if (u < 0)
				continue;
			if (dist[u] < 0) {
				dist[u] = (int16_t)(dist[v] + 1);
				cost[u] = (int16_t)(cost[v] + enter);
				queue[tail++] = (int16_t)u;
			} else if (dist[u] == dist[v] + 1 && cost[v] + enter < cost[u]) {
				cost[u] = (int16_t)(cost[v] + enter);
			}
		}
	}
	int len = dist[from];
	if (len < 0 || (limit >= 0 && len > limit))
		return -1;
	for (int v = from, k = 0; k < len; k++) {
		for (int d = 0; d < 4; d++) {
			int u = ctmap_step(m, v, d);
			if (u < 0 || dist[u] != dist[v] - 1 ||
			    cost[u] + (u != to && ctmap_bit(enemy, u)) != cost[v])
				continue;
			dirs[k] = (uint8_t)d;
			v = u;
			break;
		}
	}
	return len;
}
