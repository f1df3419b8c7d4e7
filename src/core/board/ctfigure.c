/* ctfigure: the enemy figures (§10): where a cultist or byakhee may go, which ones a
 * figure choice offers, moving them; the map-tile step's candidates (§3.6);
 * and the squares a pawn reaches by destination (C9, C10). */
#include "ctgame_int.h"

#include <string.h>

/* ---- figures (§10) ---- */

/* B39, B40 and confinement: the squares a cultist on `from` may end on
 * within `reach` steps, never entering another cultist's square, never
 * leaving a site once on it. Returns how many, written to out in reading
 * order of index (callers sort when order matters). */
static int cultist_dests(const struct ctgame *g, int from, int reach, int16_t *out)
{
	int16_t queue[CTMAP_SQUARES], depth[CTMAP_SQUARES];
	uint8_t seen[CTMAP_BITMAP_BYTES] = { 0 };
	int head = 0, tail = 0, n = 0;
	queue[tail] = (int16_t)from;
	depth[tail++] = 0;
	ctmap_bit_set(seen, from);
	while (head < tail) {
		int q = queue[head], d = depth[head++];
		if (d == reach)
			continue;
		int confine = is_site(tile_of(q)) ? tile_of(q) : -1;
		for (int dir = 0; dir < 4; dir++) {
			int r = ctmap_step(&g->map, q, dir);
			if (r < 0 || ctmap_bit(seen, r) || (g->square[r] & CS_CULTIST))
				continue;
			if (confine >= 0 && tile_of(r) != confine)
				continue;
			ctmap_bit_set(seen, r);
			queue[tail] = (int16_t)r;
			depth[tail++] = (int16_t)(d + 1);
			out[n++] = (int16_t)r;
		}
	}
	return n;
}

/* §10.3: where a byakhee on `from` may go. */
static int byakhee_dests(const struct ctgame *g, int from, int16_t *out)
{
	static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };
	int tile = tile_of(from), n = 0;
	int deny = CS_BYAKHEE | ((g->square[from] & CS_CULTIST) ? CS_CULTIST : 0);
	for (int s = 0; s < 4; s++) {
		int t = ctmap_at(&g->map, g->map.tx[tile] + dx[s], g->map.ty[tile] + dy[s]);
		if (t < 0 || g->map.where[t] != CTMAP_PLACED)
			continue;
		for (int l = 0; l < 9; l++) {
			int q = t * 9 + l;
			if (ctmap_passable(&g->map, q) && !(g->square[q] & deny))
				out[n++] = (int16_t)q;
		}
	}
	return n;
}

/* G distance from every square to the nearest of the targets' pawns (C13),
 * -1 when unreachable; with confine >= 0 only pawns on that tile count and
 * the search stays on it. */
void ct_target_distances(const struct ctgame *g, uint8_t targets, int confine, int16_t *dist)
{
	int16_t from[CTGAME_MAX];
	int n = 0;
	for (int s = 0; s < g->n; s++) {
		int sq = g->p[s].sq;
		if ((targets >> s & 1) && sq >= 0 && (confine < 0 || tile_of(sq) == confine))
			from[n++] = (int16_t)sq;
	}
	ctmap_distances_from(&g->map, from, n, NULL, confine, dist);
}

/* E30: destinations within 3 squares ending strictly closer to the target;
 * `dist` holds the G distances from the target's pawn. */
static int yellow_dests(const struct ctgame *g, int from, const int16_t *dist, int16_t *out)
{
	int16_t all[CTMAP_SQUARES];
	int n = cultist_dests(g, from, 3, all), k = 0;
	if (dist[from] == 0)
		return 0;
	for (int i = 0; i < n; i++)
		if (dist[all[i]] >= 0 && (dist[from] < 0 || dist[all[i]] < dist[from]))
			out[k++] = all[i];
	return k;
}

/* Whether the cultist on `sq` may be chosen for E21: on the player's tile
 * or an orthogonally adjacent one. */
static int near_tile(const struct ctgame *g, int seat, int sq)
{
	int a = tile_of(g->p[seat].sq), b = tile_of(sq);
	int dx = g->map.tx[a] - g->map.tx[b], dy = g->map.ty[a] - g->map.ty[b];
	return (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy) <= 1;
}

/* The destinations of the figure on `from` in the current figure mode. */
int ct_dests(const struct ctgame *g, int from, int16_t *out)
{
	switch (g->fmode) {
	case FM_BYAKHEE:
		return byakhee_dests(g, from, out);
	case FM_YELLOW: {
		int16_t dist[CTMAP_SQUARES];
		ctmap_distances(&g->map, g->p[g->target].sq, NULL, -1, dist);
		return yellow_dests(g, from, dist, out);
	}
	default:
		return cultist_dests(g, from, 2, out);
	}
}

/* Sorts squares into reading order (insertion sort: lists are short). */
void ct_sort_reading(const struct ctgame *g, int16_t *q, int n)
{
	int32_t key[CTMAP_SQUARES]; /* the order of ctmap_cmp_reading, one number a square */

	for (int i = 0; i < n; i++)
		key[i] = ctmap_gy(&g->map, q[i]) * 4096 + ctmap_gx(&g->map, q[i]);
	for (int i = 1; i < n; i++) {
		int16_t v = q[i];
		int32_t k = key[i];
		int j = i;
		while (j > 0 && key[j - 1] > k) {
			q[j] = q[j - 1];
			key[j] = key[j - 1];
			j--;
		}
		q[j] = v;
		key[j] = k;
	}
}

/* A cultist on `q` has a legal move of §10.2: a first step exists. */
static int cultist_can_move(const struct ctgame *g, int q)
{
	int confine = is_site(tile_of(q)) ? tile_of(q) : -1;
	for (int d = 0; d < 4; d++) {
		int r = ctmap_step(&g->map, q, d);
		if (r >= 0 && !(g->square[r] & CS_CULTIST) &&
		    (confine < 0 || tile_of(r) == confine))
			return 1;
	}
	return 0;
}

/* The figures that may be chosen next in figure mode `fmode` against seat
 * `target`, those in `moved` (may be NULL) left out, in reading order. */
int ct_figures_in(const struct ctgame *g, int fmode, int target, const uint8_t *moved, int16_t *out)
{
	int16_t tmp[CTMAP_SQUARES], dist[CTMAP_SQUARES];
	int k = 0;
	int kind = fmode == FM_BYAKHEE || fmode == FM_SENT ? CS_BYAKHEE : CS_CULTIST;
	if (fmode == FM_YELLOW)
		ctmap_distances(&g->map, g->p[target].sq, NULL, -1, dist);
	for (int q = 0; q < CTMAP_SQUARES; q++) {
		uint64_t eight;
		if (q % 8 == 0 && q + 8 <= CTMAP_SQUARES) {
			memcpy(&eight, &g->square[q], 8);
			if (!(eight & (0x0101010101010101ull * (uint8_t)kind))) {
				q += 7; /* no figure of the kind on these eight squares */
				continue;
			}
		}
		if (!(g->square[q] & kind) || ctmap_bit(moved, q))
			continue;
		if (kind == CS_BYAKHEE && is_site(tile_of(q)))
			continue; /* B41 */
		if (fmode == FM_SENT) {
			if (q != g->p[target].sq) /* B49: it must go somewhere */
				out[k++] = (int16_t)q;
			continue;
		}
		if (fmode == FM_SCATTER && !near_tile(g, g->seat, q))
			continue;
		if (fmode == FM_YELLOW    ? yellow_dests(g, q, dist, tmp) > 0
		    : fmode == FM_BYAKHEE ? byakhee_dests(g, q, tmp) > 0
		                          : cultist_can_move(g, q))
			out[k++] = (int16_t)q;
	}
	ct_sort_reading(g, out, k);
	return k;
}

/* The figures the pending figure choice offers. */
int ct_figures(const struct ctgame *g, int16_t *out)
{
	return ct_figures_in(g, g->fmode, g->target, g->moved, out);
}

/* Moves the figure(s) on `from` to `to`: a cultist, or a byakhee with its
 * rider (§10.3). */
void ct_move_figure(struct ctgame *g, int from, int to, int kind, struct game_events *ev)
{
	int moving = kind;
	if (kind == CS_BYAKHEE && (g->square[from] & CS_CULTIST))
		moving |= CS_CULTIST;
	g->square[from] &= (uint8_t)~moving;
	g->square[to] |= (uint8_t)moving;
	if (moving & CS_BYAKHEE)
		emit(ev, CV_FIGURE, CS_BYAKHEE, from, to);
	if (moving & CS_CULTIST)
		emit(ev, CV_FIGURE, CS_CULTIST, from, to);
}

/* ---- the map-tile step (§3.6) ---- */

/* The set A of §3.6 and its mode; 0 when the step is skipped (B7-B9). */
uint32_t ct_tile_candidates(const struct ctgame *g, int *mode)
{
	uint32_t u = 0, a, sites = 0;
	for (int t = 0; t < CTMAP_TILES; t++)
		if (g->map.where[t] == CTMAP_UNPLACED) {
			u |= 1u << t;
			if (is_site(t))
				sites |= 1u << t;
		}
	if (!u)
		return 0;
	if ((a = ctmap_placeable(&g->map, u, CTMAP_STRICT))) {
		*mode = CTMAP_STRICT;
		return a;
	}
	if ((a = ctmap_placeable(&g->map, sites, CTMAP_RELIEF))) {
		*mode = CTMAP_RELIEF;
		return a;
	}
	if (!sites)
		return 0;
	int activated = 0;
	for (int t = CTMAP_SITE_FIRST; t < CTMAP_SITE_FIRST + CTMAP_SITES; t++) {
		if (unresolved(g, t))
			return 0; /* B9 needs no unresolved site on the map */
		activated |= g->map.where[t] == CTMAP_ACTIVATED;
	}
	int first = 0;
	while (!(sites >> first & 1))
		first++;
	if (!activated && !ctmap_placeable(&g->map, 1u << first, CTMAP_FORCED))
		return 0;
	*mode = CTMAP_FORCED;
	return sites;
}

/* Interior squares of a tile on the map, in reading order. */
int ct_interiors(const struct ctgame *g, int tile, int16_t *out)
{
	int n = 0;
	for (int l = 0; l < 9; l++)
		if (interior(g, tile * 9 + l))
			out[n++] = (int16_t)(tile * 9 + l);
	return n;
}

/* ---- movement by destination (C9, C10) ---- */

int ctgame_reachable(const struct ctgame *g, int16_t *out)
{
	int16_t dist[CTMAP_SQUARES];
	int n = 0, from;
	if (g->phase != PH_MOVE)
		return 0;
	from = g->p[g->seat].sq;
	ctmap_distances(&g->map, from, NULL, -1, dist);
	for (int q = 0; q < CTMAP_SQUARES; q++)
		if (dist[q] > 0 && dist[q] <= g->left)
			out[n++] = (int16_t)q;
	ct_sort_reading(g, out, n);
	return n;
}

int ctgame_route(const struct ctgame *g, int to, uint8_t *dirs)
{
	uint8_t enemy[CTMAP_BITMAP_BYTES] = { 0 };
	if (g->phase != PH_MOVE || to < 0 || to >= CTMAP_SQUARES)
		return -1;
	for (int q = 0; q < CTMAP_SQUARES; q++)
		if (g->square[q] & (CS_CULTIST | CS_BYAKHEE))
			ctmap_bit_set(enemy, q);
	return ctmap_route(&g->map, g->p[g->seat].sq, to, enemy, g->left, dirs);
}
