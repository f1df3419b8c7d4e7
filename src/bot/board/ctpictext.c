/* ctpictext: the map picture as text (its alt text): the whole map as a grid,
 * its legend, the players and the Ritual Sites. */
#include "ctpicture_int.h"

#include <stdio.h>
#include <string.h>

#include "rlyeh/ctnames.h"

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
	put(o, ctpic_word(li, W_H_PLAYERS), strlen(ctpic_word(li, W_H_PLAYERS)));
	for (int s = 0; s < g->n && s < CTGAME_MAX; s++) {
		ctpic_seat_label(mk, li, s, name, sizeof(name));
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

		if (ctpic_site_state(m, t) < 0)
			continue;
		ctpic_site_state_text(g, mk, li, t, state, sizeof(state));
		snprintf(line, sizeof(line), "%s %s (%d,%d): %s\n", ctpic_word(li, W_SITE),
		         ctnames_tile(t, ctpic_names_lang(li)), 3 * m->tx[t] + 1, 3 * m->ty[t] + 1,
		         state);
		put(o, line, strlen(line));
	}
}

/* The square at global (gx, gy) face up on the map, or -1. */
static int square_at(const struct ctgame *g, int gx, int gy)
{
	int tx = ctpic_cell_of(gx), ty = ctpic_cell_of(gy), t = ctmap_at(&g->map, tx, ty);

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
			things = ctpic_pawns_at(g, sq, 0, NULL);
			for (int j = 0; j < 4; j++)
				things += (bits & ctpic_figure_bit(j)) != 0;
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
				         ctpic_word(li, W_ONE_PAWN), s + 1);
				put(o, item, strlen(item));
			}
			for (int j = 0; j < 4; j++) {
				if (!(bits & ctpic_figure_bit(j)))
					continue;
				snprintf(item, sizeof(item), "%s %s", things++ ? "," : "",
				         ctpic_word(li, W_CULTIST + j));
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
		if (ctpic_square_ok(g, mk->reach[i]))
			ctmap_bit_set(reach, mk->reach[i]);
	for (int sq = 0; sq < CTMAP_SQUARES; sq++) {
		int bits = g->square[sq], pawns = 0, seat = 0;
		char *c;

		if (!ctpic_square_ok(g, sq))
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
	int n = ctpic_option_cells(mk, first);

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
	int cols, rows, lw = 0, lh = 0, li = ctpic_lang_index(lang);
	int gx0, gy0;
	size_t n;

	if (cap == 0)
		return -1;
	buf[0] = '\0';
	ctpic_bounds(g, marks, &f);
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

		if ((w == W_REACH && !ctpic_any_reach(g, marks)) ||
		    (w == W_TARGET && !(marks && ctpic_square_ok(g, marks->target))) ||
		    (w == W_OPTION && !ctpic_n_options(marks)) ||
		    (w == W_SHARED && !text_shared(g, &f, NULL, li)))
			continue;
		snprintf(item, sizeof(item), "%s%s %s", w ? ", " : "", ctpic_legend_sym[w],
		         ctpic_word(li, w));
		put(&o, item, strlen(item));
	}
	put(&o, "\n", 1);
	text_players(&o, g, marks, li);
	text_sites(&o, g, marks, li);
	text_shared(g, &f, &o, li);
	return o.over ? -1 : (int)o.len;
}
