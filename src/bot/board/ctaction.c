/* ctaction: the players' commands read into the engine's values: picks, placing,
 * tokens, walking by destination (C9, C10), relics to lose, the checks that
 * it is the player's turn and decision, and the walk a command follows. */
#include "ctplay_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/ctgame.h"
#include "rlyeh/cttext.h"
#include "rlyeh/i18n.h"

/* ---- actions ---- */

/* Reads "gx,gy" at *p (blanks around allowed), advancing *p past it. */
static int read_xy(const char **p, int *gx, int *gy)
{
	char *end;
	long x, y;

	while (**p == ' ')
		(*p)++;
	x = strtol(*p, &end, 10);
	if (end == *p || *end != ',' || x < -99 || x > 99)
		return -1;
	*p = end + 1;
	y = strtol(*p, &end, 10);
	if (end == *p || y < -99 || y > 99 || (*end && *end != ' '))
		return -1;
	*p = end;
	*gx = (int)x;
	*gy = (int)y;
	return 0;
}

/* The square at "gx,gy" text s, alone; -1 when s is not that or no square. */
static int square_at(const struct ctgame *g, const char *s)
{
	int gx, gy;

	if (read_xy(&s, &gx, &gy))
		return -1;
	while (*s == ' ')
		s++;
	return *s ? -1 : ctmap_find(&g->map, gx, gy);
}

/* The walk's next target: the first waypoint of `via` not yet reached
 * (reached ones are dropped from via, which is rewritten; NULL for none),
 * else `to`. -1 when some point is not a square of the map. */
static int next_target(const struct ctgame *g, int here, const char *to, char *via)
{
	const char *p = via ? via : "";
	int gx, gy, sq;

	while (*p == ' ')
		p++;
	while (*p) {
		const char *start = p;
		if (read_xy(&p, &gx, &gy) || (sq = ctmap_find(&g->map, gx, gy)) < 0)
			return -1;
		if (sq != here) {
			memmove(via, start, strlen(start) + 1);
			return sq;
		}
		while (*p == ' ')
			p++;
	}
	if (via)
		via[0] = '\0';
	return square_at(g, to);
}

/* Checks a walk before its first step: every waypoint of `via` (NULL for
 * none) and `to` must be a square of the map. 0 when they are; else -1,
 * with the first point that is not one copied to bad. */
static int walk_points(const struct ctgame *g, const char *to, const char *via, char *bad,
                       size_t badcap)
{
	const char *p = via ? via : "";
	int gx, gy;

	while (*p == ' ')
		p++;
	while (*p) {
		const char *start = p;
		if (read_xy(&p, &gx, &gy) || ctmap_find(&g->map, gx, gy) < 0) {
			snprintf(bad, badcap, "%.*s", (int)strcspn(start, " "), start);
			return -1;
		}
		while (*p == ' ')
			p++;
	}
	if (square_at(g, to) < 0) {
		snprintf(bad, badcap, "%s", to);
		return -1;
	}
	return 0;
}

/* The waypoints of a walk command: its arguments after the destination
 * (typed one by one, or one argument of several), blank separated, in
 * via[0..cap-1] (cut to fit). */
static void join_via(const struct cmd *cmd, char *via, size_t cap)
{
	struct text tx;

	text_init(&tx, via, cap);
	for (int i = 1; i < cmd->nargs; i++) {
		if (i > 1)
			text_add(&tx, " ");
		text_add(&tx, cmd->args[i]);
	}
}

/* C10 for a whole walk: each waypoint of `via` (NULL for none) in order,
 * then `to`, on C10's routes within the points left, the figures as they
 * stand. Returns -1 when it fits, else the first point out of reach. All
 * points must be squares (walk_points). */
static int walk_short(const struct ctgame *g, const char *to, const char *via)
{
	uint8_t enemy[CTMAP_BITMAP_BYTES] = { 0 }, dirs[CTMAP_SQUARES];
	const char *p = via ? via : "";
	int from = g->p[g->seat].sq, left = g->left, gx, gy, sq, len;

	for (int q = 0; q < CTMAP_SQUARES; q++)
		if (g->square[q] & (CS_CULTIST | CS_BYAKHEE))
			ctmap_bit_set(enemy, q);
	for (;;) {
		while (*p == ' ')
			p++;
		if (*p) {
			if (read_xy(&p, &gx, &gy))
				return -1;
			sq = ctmap_find(&g->map, gx, gy);
		} else {
			sq = square_at(g, to);
		}
		if (sq < 0)
			return -1;
		len = sq == from ? 0 : ctmap_route(&g->map, from, sq, enemy, left, dirs);
		if (len < 0)
			return sq;
		from = sq;
		left -= len;
		if (!*p)
			return -1;
	}
}

/* The option index of the first step from the pawn to `to`; -1 when
 * `to` is out of reach (or is where the pawn stands). */
int ctp_first_step(const struct ctgame *g, const struct ctgame_option *o, int n, int to)
{
	uint8_t dirs[CTMAP_SQUARES];
	int len = ctgame_route(g, to, dirs);

	if (len <= 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (o[i].what == CO_DIR && o[i].arg == dirs[0])
			return i;
	return -1;
}

/* The token mask a pattern gives over k interior squares; -1 if none. */
static int token_mask(const char *s, int k)
{
	int full = (1 << k) - 1, mask = 0, n = 0;

	if (ctp_is(s, "hearts", "harten"))
		return 0;
	if (ctp_is(s, "bullets", "kogels"))
		return full;
	if (ctp_is(s, "alternate", "afwisselend"))
		return 0xa & full;
	for (; *s; s++) {
		char ch = *s >= 'a' ? (char)(*s - 32) : *s;
		if (n >= k || (ch != 'H' && ch != 'B' && ch != 'K'))
			return -1;
		if (ch != 'H')
			mask |= 1 << n;
		n++;
	}
	return n == k ? mask : -1;
}

/* Reads CTGAME_TYPES counts "a,b,c,d,e" (each 0..99) into n; -1 when s
 * is not that (n undefined then). */
int ctp_read_counts(const char *s, int *n)
{
	for (int t = 0; t < CTGAME_TYPES; t++) {
		int d = 0;
		while (d < 2 && s[d] >= '0' && s[d] <= '9')
			d++;
		if (!d || s[d] != (t + 1 < CTGAME_TYPES ? ',' : '\0'))
			return -1;
		n[t] = d == 1 ? s[0] - '0' : (s[0] - '0') * 10 + s[1] - '0';
		s += d + 1;
	}
	return 0;
}

_Static_assert(CTGAME_TYPES == 5, "write_counts writes five counts");

/* Writes five counts as read_counts reads them; buf has room for any
 * five ints (64 bytes). */
void ctp_write_counts(const int *n, char *buf, size_t cap)
{
	snprintf(buf, cap, "%d,%d,%d,%d,%d", n[0], n[1], n[2], n[3], n[4]);
}

/* C8: the option that brings the defeated seat's relics down toward
 * `keep` (counts per type); -1 when none does (nothing more to lose). */
static int lose_step(const struct ctgame *g, const struct ctgame_option *o, int n, const int *keep)
{
	for (int i = 0; i < n; i++)
		if (o[i].what == CO_TYPE && g->p[g->defeated].relics[o[i].arg] > keep[o[i].arg])
			return i;
	return -1;
}

/* Refuses unless the awaited decision is member who's; 0 when it is. */
int ctp_need_turn(const struct ctgame *g, const struct game_step *st, const struct play_ctx *c,
                  int who, struct text *err)
{
	char name[80];

	if (st->node != GAME_NODE_CHOICE) {
		i18n_add(err, c->lang, S_CTP_ERR_NOTHING, NULL);
		return -1;
	}
	if (ctp_member_of(g, st->seat) != who) {
		ctp_seat_name(g, c, st->seat, name, sizeof(name));
		i18n_add(err, c->lang, S_CTP_ERR_NOT_YOURS, name, NULL);
		return -1;
	}
	return 0;
}

/* What the table awaits from member who (play.h: awaits): the decision
 * and the commands that answer it. */
int ctp_awaits(const void *state, const struct play_ctx *c, int who, struct text *out)
{
	const struct ctgame *g = state;
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	char line[256], name[80];
	const char *typed, *ask;
	struct text lt;
	int n = ctp_pending(g, &st, o);

	if (st.node != GAME_NODE_CHOICE || ctp_member_of(g, st.seat) != who)
		return 0;
	if (st.kind == CA_TILE)
		typed = "/place n, /confirm n";
	else if (st.kind == CA_TOKENS)
		typed = "/tokens hearts|bullets|alternate|HBBH";
	else if (st.kind == CA_MOVE)
		typed = "/move gx,gy";
	else if (st.kind == CA_RELIC_LOSS)
		typed = "/relics, /lose a,b,c,d,e";
	else if (n > 0 && o[0].what == CO_SQUARE)
		typed = "/pick n, /move gx,gy";
	else if (ctp_hidden(g, &st, o, n))
		typed = "/hand, /pick n";
	else
		typed = "/pick n";
	text_init(&lt, line, sizeof(line));
	ctp_waiting(g, &st, c, &lt);
	ctp_seat_name(g, c, st.seat, name, sizeof(name));
	ask = line;
	if (strncmp(ask, name, strlen(name)) == 0 && strncmp(ask + strlen(name), ": ", 2) == 0)
		ask += strlen(name) + 2; /* the question without "<name>: " */
	i18n_add(out, c->lang, S_CTP_AWAITS, ask, typed, NULL);
	return 1;
}

/* Refuses a command that does not answer the awaited decision: what the
 * table waits for from member who, or, when nothing is, whose decision it
 * is. */
static int wrong_step(const struct ctgame *g, const struct game_step *st, const struct play_ctx *c,
                      int who, struct text *err)
{
	if (!ctp_awaits(g, c, who, err))
		ctp_need_turn(g, st, c, who, err);
	return -1;
}

/* Option number arg (1..n) as an index; -1 after refusing. */
int ctp_option_number(const struct cmd *cmd, int n, const struct play_ctx *c, struct text *err)
{
	char max[16];
	int k;

	ctp_number(max, sizeof(max), n);
	if (cmd->nargs != 1 || ctp_whole(cmd->args[0], 1, n, &k)) {
		i18n_add(err, c->lang, S_CTP_ERR_OPTION, cmd->nargs ? cmd->args[0] : "", max, NULL);
		return -1;
	}
	return k - 1;
}

int ctp_action(const void *state, const struct play_ctx *c, int who, const struct cmd *cmd,
               int *value, struct text *err)
{
	const struct ctgame *g = state;
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	int code = play_action_code(&ctplay, cmd), n = ctp_pending(g, &st, o), k;

	if (code < 0 || code == ACT_HAND || code == ACT_PAGE || code == ACT_RELICS)
		return wrong_step(g, &st, c, who, err);
	if (ctp_need_turn(g, &st, c, who, err))
		return -1;
	switch (code) {
	case ACT_PICK:
		k = ctp_option_number(cmd, n, c, err);
		break;
	case ACT_PLACE:
	case ACT_CONFIRM:
		if (st.kind != CA_TILE) {
			return wrong_step(g, &st, c, who, err);
		}
		k = ctp_option_number(cmd, n, c, err);
		break;
	case ACT_LOSE: {
		int keep[CTGAME_TYPES], lose = 0;
		const struct ctgame_player *p = &g->p[g->defeated];
		if (st.kind != CA_RELIC_LOSS) {
			return wrong_step(g, &st, c, who, err);
		}
		if (cmd->nargs != 1 || ctp_read_counts(cmd->args[0], keep)) {
			i18n_add(err, c->lang, S_ERR_USAGE, "/lose <a,b,c,d,e>", NULL);
			return -1;
		}
		for (int t = 0; t < CTGAME_TYPES; t++)
			lose += keep[t] <= p->relics[t] ? p->relics[t] - keep[t] : 100;
		if (lose != g->loss) {
			char want[8];
			ctp_number(want, sizeof(want), g->loss);
			i18n_add(err, c->lang, S_CTP_ERR_LOSE, cmd->args[0], want, NULL);
			return -1;
		}
		k = lose_step(g, o, n, keep);
		break;
	}
	case ACT_TOKENS:
		if (st.kind != CA_TOKENS) {
			return wrong_step(g, &st, c, who, err);
		}
		k = cmd->nargs == 1 ? token_mask(cmd->args[0], __builtin_ctz((unsigned)n)) : -1;
		if (k < 0 || k >= n) {
			char squares[8];
			ctp_number(squares, sizeof(squares), __builtin_ctz((unsigned)n));
			i18n_add(err, c->lang, S_CTP_ERR_TOKENS, cmd->nargs ? cmd->args[0] : "",
			         squares, NULL);
			return -1;
		}
		break;
	case ACT_MOVE: {
		char via[CMD_ARG_MAX] = "", bad[CMD_ARG_MAX];
		int to;
		if (st.kind != CA_MOVE && cmd->nargs == 1 && n > 0 && o[0].what == CO_SQUARE) {
			/* A square picked by its coordinates (C12: an enemy's
			 * destination; a card's square; a site's byakhee). */
			to = square_at(g, cmd->args[0]);
			for (k = 0; to >= 0 && k < n && (o[k].what != CO_SQUARE || o[k].arg != to);
			     k++)
				;
			if (to < 0 || k == n) {
				i18n_add(err, c->lang, S_CTP_ERR_NOT_OFFERED, cmd->args[0], NULL);
				return -1;
			}
			break;
		}
		if (st.kind != CA_MOVE) {
			return wrong_step(g, &st, c, who, err);
		}
		if (cmd->nargs < 1) {
			i18n_add(err, c->lang, S_ERR_USAGE, "/move <to gx,gy> [<via gx,gy> …]",
			         NULL);
			return -1;
		}
		join_via(cmd, via, sizeof(via));
		/* Every point is checked before the first step, and a refusal
		 * names the point at fault, not the whole list. */
		if (walk_points(g, cmd->args[0], via, bad, sizeof(bad))) {
			i18n_add(err, c->lang, S_CTP_ERR_SQUARE, bad, NULL);
			return -1;
		}
		if (!via[0] && square_at(g, cmd->args[0]) == g->p[st.seat].sq) {
			cttext_square(g, g->p[st.seat].sq, bad, sizeof(bad));
			i18n_add(err, c->lang, S_CTP_ERR_HERE, bad, NULL);
			return -1;
		}
		to = walk_short(g, cmd->args[0], via);
		if (to >= 0) {
			char left[16];
			ctp_number(left, sizeof(left), g->left);
			cttext_square(g, to, bad, sizeof(bad));
			i18n_add(err, c->lang, S_CTP_ERR_UNREACHABLE, bad, left, NULL);
			return -1;
		}
		to = next_target(g, g->p[st.seat].sq, cmd->args[0], via);
		k = to < 0 ? -1 : ctp_first_step(g, o, n, to);
		if (k < 0) {
			i18n_add(err, c->lang, S_CTP_ERR_NOTHING,
			         NULL); /* cannot happen: it fits */
			return -1;
		}
		break;
	}
	default:
		k = -1;
		break;
	}
	if (k < 0)
		return -1;
	*value = k;
	return 0;
}

/* The table's note while a walk interrupted by a fight can go on (C10):
 * the turn it belongs to and its destination. */
static int walk_note(const struct ctgame *g, int gx, int gy)
{
	return (int)((g->turns + 1) % 32768) << 16 | (gx + 128) << 8 | (gy + 128);
}

/* The note that hands the rest of the turn's enemy moves to the hunt
 * policy (C12: a manual enemy move timed out). */
int ctp_hunt_note(const struct ctgame *g)
{
	return (int)((g->turns + 1) % 32768) << 16 | 0xffff;
}

/* The destination square of a note that belongs to g's turn in progress
 * and its movement, while the pawn is not there; -1 otherwise. */
int ctp_noted_walk(const struct ctgame *g, int note, int *gx, int *gy)
{
	struct game_step st;
	int sq;

	ctgame_step(g, &st);
	if (!note || st.node != GAME_NODE_CHOICE || st.kind != CA_MOVE ||
	    (note >> 16) != (int)((g->turns + 1) % 32768))
		return -1;
	*gx = (note >> 8 & 255) - 128;
	*gy = (note & 255) - 128;
	sq = ctmap_find(&g->map, *gx, *gy);
	return sq == g->p[st.seat].sq ? -1 : sq;
}

/* C10: a walk goes on step by step until it arrives, a fight stops it (the
 * note then keeps its destination for Continue), or the game asks
 * something else. */
int ctp_follow(const void *state, const struct play_ctx *c, int who, struct cmd *cmd,
               const struct game_event *ev, int nev, int *value, int *note)
{
	const struct ctgame *g = state;
	struct ctgame_option o[CTGAME_OPTIONS];
	struct game_step st;
	int n = ctp_pending(g, &st, o), to, k, gx, gy, fight = 0;
	const char *p;

	(void)c;
	if (play_action_code(&ctplay, cmd) == ACT_LOSE) { /* C8: every relic of the choice */
		int keep[CTGAME_TYPES];
		(void)ev;
		(void)nev;
		if (n == 0 || st.kind != CA_RELIC_LOSS || ctp_member_of(g, st.seat) != who ||
		    ctp_read_counts(cmd->args[0], keep) || (k = lose_step(g, o, n, keep)) < 0)
			return 0;
		*value = k;
		return 1;
	}
	if (play_action_code(&ctplay, cmd) != ACT_MOVE || cmd->nargs < 1)
		return 0;
	if (cmd->nargs > 2) { /* the waypoints as one argument, which next_target rewrites */
		char via[CMD_ARG_MAX];
		join_via(cmd, via, sizeof(via));
		text_copy(cmd->args[1], sizeof(cmd->args[1]), via);
		cmd->nargs = 2;
	}
	*note = 0;
	for (int i = 0; i < nev; i++)
		fight |= ev[i].kind == CV_FIGHT;
	p = cmd->args[0];
	if (fight) {
		/* Whatever the fight asks first (a card, a roll's choice), the
		 * walk can go on after it while this turn's movement lasts. */
		if (!g->end && read_xy(&p, &gx, &gy) == 0 &&
		    ctmap_find(&g->map, gx, gy) != g->p[who].sq)
			*note = walk_note(g, gx, gy);
		return 0;
	}
	if (n == 0 || st.kind != CA_MOVE || ctp_member_of(g, st.seat) != who)
		return 0;
	to = next_target(g, g->p[st.seat].sq, cmd->args[0], cmd->nargs == 2 ? cmd->args[1] : NULL);
	if (to < 0 || to == g->p[st.seat].sq || (k = ctp_first_step(g, o, n, to)) < 0)
		return 0;
	*value = k;
	return 1;
}

int ctp_auto_roll(const void *state, const struct game_step *step)
{
	(void)state;
	(void)step;
	return 1; /* every die and draw belongs to what came before it */
}
