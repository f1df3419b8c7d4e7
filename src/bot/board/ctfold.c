#include "rlyeh/ctfold.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rlyeh/ctmap.h"
#include "rlyeh/ctnames.h"
#include "rlyeh/cttext.h"
#include "rlyeh/i18n.h"

#define FOLD_LINE 1024 /* bytes of one folded line, at most */

/* What the line being built is about: the clauses it takes. */
enum topic {
	T_NONE,  /* a line no clause continues (a turn, the end) */
	T_OTHER, /* a seat's line: that seat's clauses continue it */
	T_FIGHT, /* a fight: also the fighter's cards and items */
	T_TILE,  /* a tile drawn: its placing and its arrivals */
	T_CARD,  /* a card played: also the figures and tokens it brings */
	T_WALK,  /* a walk: also the fight on the square it ends on */
	T_ENEMY, /* step 8's roll: also the cultists that move */
};

/* How a clause joins the line (the first after the head takes ": "). */
enum sep {
	SEP_LIST, /* ", " */
	SEP_SEMI, /* "; " */
	SEP_DASH, /* " — " */
	SEP_GLUE, /* nothing */
};

struct fold {
	const struct ctgame *g;
	const char *const *names;
	int lang;
	struct text *out;
	char buf[FOLD_LINE];
	struct text line;
	int seat;  /* whose line it is, -1 for none */
	int topic; /* enum topic */
	int clauses;
	int roll;               /* the combat roll that ends the line, 0 for none */
	int at;                 /* the square a walk's line ends on */
	int weapon[CTGAME_MAX]; /* card id + 1 of the weapon the seat was last told with */
	int armed[CTGAME_MAX];  /* a weapon was declared in the seat's fight */
	int compact;            /* leave out the counts the status shows */
};

static const char *name_of(const struct fold *f, int seat)
{
	return seat >= 0 && seat < f->g->n && f->names && f->names[seat] ? f->names[seat] : "?";
}

static int seat_ok(const struct fold *f, int seat)
{
	return seat >= 0 && seat < f->g->n;
}

/* Writes text `id` with up to three arguments (NULL ends them) to buf[cap]. */
static void say(const struct fold *f, char *buf, size_t cap, int id, const char *a1, const char *a2,
                const char *a3)
{
	struct text t;

	text_init(&t, buf, cap);
	i18n_add(&t, f->lang, id, a1, a2, a3, NULL);
}

/* Ends the line being built, with a period unless it has its own mark. */
static void end_line(struct fold *f)
{
	if (f->line.len) {
		char last = f->buf[f->line.len - 1];
		text_add(f->out, f->buf);
		if (last != '.' && last != '!' && last != '?')
			text_add(f->out, ".");
		text_add(f->out, "\n");
	}
	text_init(&f->line, f->buf, sizeof(f->buf));
	f->seat = -1;
	f->topic = T_NONE;
	f->clauses = 0;
	f->roll = 0;
}

/* say with four arguments. */
static void say4(const struct fold *f, char *buf, size_t cap, int id, const char *a1,
                 const char *a2, const char *a3, const char *a4)
{
	struct text t;

	text_init(&t, buf, cap);
	i18n_add(&t, f->lang, id, a1, a2, a3, a4, NULL);
}

/* Starts a line of `seat` (-1: none) about `topic` with s, its final period
 * left for end_line. */
static void start(struct fold *f, int seat, int topic, const char *s)
{
	end_line(f);
	text_add(&f->line, s);
	if (f->line.len && f->buf[f->line.len - 1] == '.')
		f->buf[--f->line.len] = '\0';
	f->seat = seat;
	f->topic = topic;
}

/* Starts a line "<seat's name> <s>". */
static void start_named(struct fold *f, int seat, const char *s)
{
	char line[FOLD_LINE];
	struct text t;

	text_init(&t, line, sizeof(line));
	text_addf(&t, "%s %s", name_of(f, seat), s);
	start(f, seat, T_OTHER, line);
}

/* 1 when a clause of `seat` continues the line being built. */
static int continues(const struct fold *f, int seat)
{
	return f->line.len && seat_ok(f, seat) && seat == f->seat && f->topic != T_TILE &&
	       f->topic != T_ENEMY;
}

/* Appends clause s to the line; 0 with nothing added when it has no room. */
static int clause(struct fold *f, int sep, const char *s)
{
	static const char *const first[] = { ": ", ": ", " — ", "" };
	static const char *const next[] = { ", ", "; ", " — ", "" };
	const char *p = f->clauses ? next[sep] : first[sep];

	if (f->line.len + strlen(p) + strlen(s) + 2 >= sizeof(f->buf))
		return 0;
	text_add(&f->line, p);
	text_add(&f->line, s);
	f->clauses++;
	f->roll = 0;
	return 1;
}

/* Event e as cttext tells it, as a line of its own. */
static void long_form(struct fold *f, const struct game_event *e, int seat, int topic)
{
	char s[FOLD_LINE];
	struct text t;

	text_init(&t, s, sizeof(s));
	cttext_event(f->g, e, f->names, f->lang, &t);
	if (s[0])
		start(f, seat, topic, s);
}

/* Clause s of e's seat continuing the line, else e told on a line of its own. */
static void phrase(struct fold *f, const struct game_event *e, int sep, const char *s)
{
	if (continues(f, e->seat) && clause(f, sep, s))
		return;
	long_form(f, e, seat_ok(f, e->seat) ? e->seat : -1, T_OTHER);
}

/* A run of cards dealt: "Everyone draws 3 cards." when every seat in play
 * draws as many, else a line per seat. Returns the events read. */
static int deal(struct fold *f, const struct game_event *ev, int n)
{
	int count[CTGAME_MAX] = { 0 }, order[CTGAME_MAX], seats = 0, k = 0, in_play = 0, same = 1;
	char a[16], s[FOLD_LINE];

	for (; k < n && ev[k].kind == CV_DEAL; k++)
		if (seat_ok(f, ev[k].seat)) {
			if (!count[ev[k].seat])
				order[seats++] = ev[k].seat;
			count[ev[k].seat]++;
		}
	for (int i = 0; i < f->g->n; i++)
		in_play += !f->g->p[i].out;
	for (int i = 1; i < seats; i++)
		same &= count[order[i]] == count[order[0]];
	if (seats >= 2 && seats == in_play && same) {
		snprintf(a, sizeof(a), "%d", count[order[0]]);
		say(f, s, sizeof(s), S_CTF_EVERYONE_DRAWS, a, NULL, NULL);
		start(f, -1, T_NONE, s);
		return k;
	}
	for (int i = 0; i < seats; i++) {
		snprintf(a, sizeof(a), "%d", count[order[i]]);
		say(f, s, sizeof(s), S_CTF_DRAWS, a, NULL, NULL);
		start_named(f, order[i], s);
	}
	return k;
}

/* A run of one pawn's steps: "bob moves 1,0 → 1,-1 (7 left)." */
static int walk(struct fold *f, const struct game_event *ev, int n)
{
	char path[FOLD_LINE / 2], sq[16], left[16], s[FOLD_LINE];
	struct text pt;
	int k = 0;

	text_init(&pt, path, sizeof(path));
	for (; k < n && ev[k].kind == CV_MOVE && ev[k].seat == ev[0].seat; k++) {
		if (pt.len + 40 >= sizeof(path))
			break;
		cttext_square(f->g, ev[k].target, sq, sizeof(sq));
		text_add(&pt, k ? " → " : "");
		text_add(&pt, sq);
	}
	snprintf(left, sizeof(left), "%d", ev[k - 1].value);
	say(f, s, sizeof(s), f->compact ? S_CTF_MOVES_TO : S_CTF_MOVES, name_of(f, ev[0].seat),
	    path, left);
	start(f, seat_ok(f, ev[0].seat) ? ev[0].seat : -1, T_WALK, s);
	f->at = ev[k - 1].target;
	return k;
}

/* A run of enemy figures of one kind moved: "Cultists move: a → b · c → d." */
static int figures(struct fold *f, const struct game_event *ev, int n)
{
	char list[FOLD_LINE / 2], from[16], to[16], s[FOLD_LINE];
	struct text lt;
	int k = 0;

	text_init(&lt, list, sizeof(list));
	for (; k < n && ev[k].kind == CV_FIGURE && ev[k].seat == ev[0].seat; k++) {
		if (lt.len + 48 >= sizeof(list))
			break;
		cttext_square(f->g, ev[k].target, from, sizeof(from));
		cttext_square(f->g, ev[k].value, to, sizeof(to));
		text_addf(&lt, "%s%s → %s", k ? " · " : "", from, to);
	}
	if (f->topic == T_ENEMY && ev[0].seat == CS_CULTIST && clause(f, SEP_LIST, list)) {
		f->topic = T_NONE;
		f->seat = -1;
		return k;
	}
	say(f, s, sizeof(s), ev[0].seat == CS_BYAKHEE ? S_CTF_BYAKHEE_MOVE : S_CTF_CULTISTS_MOVE,
	    list, NULL, NULL);
	start(f, -1, T_NONE, s);
	return k;
}

/* 1 when the cultists arriving in ev[0..k-1] stand on the 8 squares around
 * one square, written to centre[cap] ("gx,gy"). */
static int around(const struct fold *f, const struct game_event *ev, int k, char *centre,
                  size_t cap)
{
	int xs[24], ys[24], n = 0, x0 = 0, y0 = 0, x1 = 0, y1 = 0;

	for (int i = 0; i < k && n < 24; i++)
		if (ev[i].value == CS_CULTIST) {
			xs[n] = ctmap_gx(&f->g->map, ev[i].target);
			ys[n] = ctmap_gy(&f->g->map, ev[i].target);
			if (!n || xs[n] < x0)
				x0 = xs[n];
			if (!n || xs[n] > x1)
				x1 = xs[n];
			if (!n || ys[n] < y0)
				y0 = ys[n];
			if (!n || ys[n] > y1)
				y1 = ys[n];
			n++;
		}
	if (n != 8 || x1 - x0 != 2 || y1 - y0 != 2)
		return 0;
	for (int i = 0; i < n; i++) {
		if (xs[i] == x0 + 1 && ys[i] == y0 + 1)
			return 0;
		for (int j = 0; j < i; j++)
			if (xs[i] == xs[j] && ys[i] == ys[j])
				return 0;
	}
	{
		struct text t;
		text_init(&t, centre, cap);
		text_addf(&t, "%d,%d", x0 + 1, y0 + 1);
	}
	return 1;
}

/* A run of figures and tokens put on the map, by kind: "cultists on a, b;
 * a heart on c", continuing a tile's or a card's line, else "New on the
 * map: …". */
static int arrivals(struct fold *f, const struct game_event *ev, int n)
{
	static const int kinds[4] = { CS_CULTIST, CS_BYAKHEE, CS_HEART, CS_BULLET };
	static const int one[4] = { S_CTF_CULTIST, S_CTF_BYAKHEE, S_CTF_HEART, S_CTF_BULLET };
	static const int many[4] = { S_CTF_CULTISTS, S_CTF_BYAKHEES, S_CTF_HEARTS_ON,
		                     S_CTF_BULLETS_ON };
	char all[FOLD_LINE / 2], list[FOLD_LINE / 2], sq[16], part[FOLD_LINE / 2], s[FOLD_LINE];
	struct text at, lt;
	int k = 0, order[4], seen = 0;

	while (k < n && ev[k].kind == CV_ARRIVE && k < 24)
		k++;
	for (int i = 0; i < k; i++) {
		int j = 0;
		while (j < seen && kinds[order[j]] != ev[i].value)
			j++;
		if (j == seen)
			for (int t = 0; t < 4; t++)
				if (kinds[t] == ev[i].value)
					order[seen++] = t;
	}
	text_init(&at, all, sizeof(all));
	for (int j = 0; j < seen; j++) {
		int count = 0;
		text_init(&lt, list, sizeof(list));
		for (int i = 0; i < k; i++)
			if (ev[i].value == kinds[order[j]]) {
				cttext_square(f->g, ev[i].target, sq, sizeof(sq));
				text_add(&lt, count++ ? ", " : "");
				text_add(&lt, sq);
			}
		if (kinds[order[j]] == CS_CULTIST && around(f, ev, k, sq, sizeof(sq)))
			say(f, part, sizeof(part), S_CTF_CULTISTS_AROUND, sq, NULL, NULL);
		else
			say(f, part, sizeof(part), count == 1 ? one[order[j]] : many[order[j]],
			    list, NULL, NULL);
		text_add(&at, j ? "; " : "");
		text_add(&at, part);
	}
	if ((f->topic == T_TILE || f->topic == T_CARD) && clause(f, SEP_SEMI, all))
		return k;
	say(f, s, sizeof(s), S_CTF_NEW, all, NULL, NULL);
	start(f, -1, T_NONE, s);
	return k;
}

/* A run of relics one seat takes or loses: "takes 2 relics: Amulet, Tome". */
static int relics(struct fold *f, const struct game_event *ev, int n)
{
	char list[FOLD_LINE / 2], s[FOLD_LINE];
	struct text lt;
	int k = 0;

	int count[CTGAME_TYPES] = { 0 }, order[CTGAME_TYPES], types = 0;

	for (; k < n && ev[k].kind == ev[0].kind && ev[k].seat == ev[0].seat; k++) {
		int t = ev[k].target / 16;
		if (t < 0 || t >= CTGAME_TYPES)
			continue;
		if (!count[t])
			order[types++] = t;
		count[t]++;
	}
	text_init(&lt, list, sizeof(list));
	for (int i = 0; i < types; i++) {
		text_add(&lt, i ? ", " : "");
		if (count[order[i]] > 1)
			text_addf(&lt, "%d ", count[order[i]]);
		text_add(&lt, ctnames_type(order[i], f->lang));
	}
	say(f, s, sizeof(s), ev[0].kind == CV_RELIC ? S_CTF_RELICS : S_CTF_RELICS_LOST, list, NULL,
	    NULL);
	if (continues(f, ev[0].seat) && clause(f, SEP_LIST, s))
		return k;
	start_named(f, ev[0].seat, s);
	return k;
}

static const char *card_name(const struct fold *f, int card)
{
	return ctnames_card(ctgame_card_kind(card), f->lang);
}

/* Tells the events that begin at ev (n of them left); returns how many it
 * told. */
static int one(struct fold *f, const struct game_event *ev, int n)
{
	const struct game_event *e = &ev[0];
	char s[FOLD_LINE], a[16], b[16], sq[16];

	snprintf(a, sizeof(a), "%d", e->value);
	snprintf(b, sizeof(b), "%d", e->target);
	cttext_square(f->g, e->target, sq, sizeof(sq));
	switch (e->kind) {
	case CV_DEAL:
		return deal(f, ev, n);
	case CV_MOVE:
		return walk(f, ev, n);
	case CV_FIGURE:
		return figures(f, ev, n);
	case CV_ARRIVE:
		return arrivals(f, ev, n);
	case CV_RELIC_LOST: {
		/* a sanctifying's cost and its pawns put on the Church are told
		 * after the site it sanctifies */
		int j = 0;
		while (j < n && (ev[j].kind == CV_RELIC_LOST || ev[j].kind == CV_RELOCATE))
			j++;
		if (j < n && ev[j].kind == CV_SANCTIFY && ev[j].seat == e->seat) {
			long_form(f, &ev[j], seat_ok(f, e->seat) ? e->seat : -1, T_OTHER);
			for (int k = 0; k < j;)
				k += one(f, ev + k, j - k);
			return j + 1;
		}
		return relics(f, ev, n);
	}
	case CV_RELIC:
		return relics(f, ev, n);
	case CV_BULLETS:
		if (n > 1 && ev[1].kind == CV_SPEND && ev[1].seat == e->seat) {
			/* bullets spent, told with the count they leave */
			snprintf(b, sizeof(b), "%d", ev[1].value);
			say(f, s, sizeof(s), S_CTF_SPENDS, b, a, NULL);
			if (continues(f, e->seat) && clause(f, SEP_LIST, s))
				return 2;
			long_form(f, &ev[1], e->seat, T_OTHER);
			say(f, s, sizeof(s), S_CTF_BULLETS, a, NULL, NULL);
			clause(f, SEP_LIST, s);
			return 2;
		}
		if (f->compact)
			break;
		say(f, s, sizeof(s), S_CTF_BULLETS, a, NULL, NULL);
		phrase(f, e, SEP_LIST, s);
		break;
	case CV_HEARTS:
		if (f->compact)
			break;
		say(f, s, sizeof(s), S_CTF_HEARTS, a, NULL, NULL);
		phrase(f, e, SEP_LIST, s);
		break;
	case CV_SPEND: /* without the count it leaves */
		long_form(f, e, seat_ok(f, e->seat) ? e->seat : -1, T_OTHER);
		break;
	case CV_SANITY:
		if (f->compact)
			break;
		say(f, s, sizeof(s), S_CTF_SANITY, a, b, NULL);
		phrase(f, e, SEP_LIST, s);
		break;
	case CV_INSANE:
		say(f, s, sizeof(s), S_CTF_INSANE, b, NULL, NULL);
		phrase(f, e, SEP_LIST, s);
		break;
	case CV_DEFEAT:
		say(f, s, sizeof(s), S_CTF_DEFEAT, sq, NULL, NULL);
		phrase(f, e, SEP_DASH, s);
		break;
	case CV_ELIMINATED:
		say(f, s, sizeof(s), S_CTF_OUT, NULL, NULL, NULL);
		phrase(f, e, SEP_LIST, s);
		break;
	case CV_TOKEN:
		say(f, s, sizeof(s), e->value == CS_HEART ? S_CTF_TOKEN_HEART : S_CTF_TOKEN_BULLET,
		    sq, NULL, NULL);
		phrase(f, e, SEP_LIST, s);
		break;
	case CV_DISCARD:
		say(f, s, sizeof(s), S_CTF_DISCARDS, card_name(f, e->target), NULL, NULL);
		phrase(f, e, SEP_LIST, s);
		break;
	case CV_RELOCATE:
		say(f, s, sizeof(s), S_CTF_PUT, sq, NULL, NULL);
		phrase(f, e, SEP_LIST, s);
		break;
	case CV_TOTAL_MOVE:
		if (f->compact && f->topic == T_OTHER && f->clauses == 0 && continues(f, e->seat))
			break; /* right after the movement roll */
		say(f, s, sizeof(s), S_CTF_MAY_MOVE, a, NULL, NULL);
		phrase(f, e, SEP_LIST, s);
		break;
	case CV_CARD:
	case CV_ITEM:
		say(f, s, sizeof(s), e->kind == CV_CARD ? S_CTF_PLAYS : S_CTF_USES,
		    card_name(f, e->target), NULL, NULL);
		if (f->topic == T_FIGHT && continues(f, e->seat) && clause(f, SEP_SEMI, s))
			break;
		long_form(f, e, seat_ok(f, e->seat) ? e->seat : -1, T_CARD);
		break;
	case CV_FIGHT:
		if (seat_ok(f, e->seat)) {
			/* a weapon is told when it changes: after a fight without
			 * one, it is told again */
			if (!f->armed[e->seat])
				f->weapon[e->seat] = 0;
			f->armed[e->seat] = 0;
		}
		if (f->topic == T_WALK && f->at == e->target && continues(f, e->seat)) {
			say(f, s, sizeof(s),
			    e->value == CS_BYAKHEE ? S_CTF_FIGHTS_BYAKHEE : S_CTF_FIGHTS_CULTIST,
			    NULL, NULL, NULL);
			f->clauses = 1;
			if (clause(f, SEP_LIST, s)) {
				f->topic = T_FIGHT;
				f->clauses = 0; /* the fight's clauses follow ": " */
				break;
			}
		}
		long_form(f, e, seat_ok(f, e->seat) ? e->seat : -1, T_FIGHT);
		break;
	case CV_WEAPON:
		if (seat_ok(f, e->seat)) {
			f->armed[e->seat] = 1;
			if (f->weapon[e->seat] == e->target + 1)
				break; /* told when it changes */
			f->weapon[e->seat] = e->target + 1;
		}
		say(f, s, sizeof(s), S_CTF_WITH, card_name(f, e->target), NULL, NULL);
		phrase(f, e, SEP_LIST, s);
		break;
	case CV_ROLL:
		if (e->target == CD_COMBAT || e->target == CD_SANITY) {
			say(f, s, sizeof(s),
			    e->target == CD_COMBAT ? S_CTF_COMBAT_ROLL : S_CTF_SANITY_ROLL, a, NULL,
			    NULL);
			if (!continues(f, e->seat) || !clause(f, SEP_LIST, s))
				long_form(f, e, seat_ok(f, e->seat) ? e->seat : -1, T_FIGHT);
			f->roll = e->target == CD_COMBAT ? e->value : 0;
			break;
		}
		if (e->target == CD_CULTISTS) {
			say(f, s, sizeof(s), S_CTF_ROLL_CULTISTS, name_of(f, e->seat), a, NULL);
			start(f, seat_ok(f, e->seat) ? e->seat : -1, T_ENEMY, s);
			break;
		}
		long_form(f, e, seat_ok(f, e->seat) ? e->seat : -1, T_OTHER);
		break;
	case CV_TOTAL:
		if (continues(f, e->seat)) {
			if (f->roll == e->value) {
				say(f, s, sizeof(s), S_CTF_AGAINST, b, NULL, NULL);
				if (clause(f, SEP_GLUE, s))
					break;
			}
			say(f, s, sizeof(s), S_CTF_TOTAL, a, b, NULL);
			if (clause(f, SEP_LIST, s))
				break;
		}
		long_form(f, e, seat_ok(f, e->seat) ? e->seat : -1, T_FIGHT);
		break;
	case CV_KILL:
		say(f, s, sizeof(s), S_CTF_KILLS, NULL, NULL, NULL);
		phrase(f, e, SEP_DASH, s);
		break;
	case CV_TILE_DRAW:
		if (n > 1 && ev[1].kind == CV_PLACE && ev[1].target == e->target) {
			char x[16], y[16];
			snprintf(x, sizeof(x), "%d", (int8_t)(ev[1].value & 0xff));
			snprintf(y, sizeof(y), "%d", (int8_t)((ev[1].value >> 8) & 0xff));
			say4(f, s, sizeof(s), S_CTF_LAYS, name_of(f, e->seat),
			     ctnames_tile(e->target, f->lang), x, y);
			start(f, seat_ok(f, e->seat) ? e->seat : -1, T_TILE, s);
			f->clauses = 1; /* ", turned 90°" */
			return 2;
		}
		long_form(f, e, seat_ok(f, e->seat) ? e->seat : -1, T_TILE);
		break;
	case CV_PLACE:
		if (f->topic == T_TILE) {
			char x[16], y[16];
			snprintf(x, sizeof(x), "%d", (int8_t)(e->value & 0xff));
			snprintf(y, sizeof(y), "%d", (int8_t)((e->value >> 8) & 0xff));
			say(f, s, sizeof(s), S_CTF_PLACED, x, y, NULL);
			if (clause(f, SEP_LIST, s))
				break;
		}
		long_form(f, e, seat_ok(f, e->seat) ? e->seat : -1, T_TILE);
		f->clauses = 1; /* ", turned 90°" */
		break;
	case CV_ROTATE:
		if (f->topic == T_TILE) {
			int mode = e->value >> 4;
			snprintf(a, sizeof(a), "%d", (e->value & 3) * 90);
			say(f, s, sizeof(s),
			    mode == CTMAP_RELIEF   ? S_CTF_TURNED_RELIEF
			    : mode == CTMAP_FORCED ? S_CTF_TURNED_FORCED
			                           : S_CTF_TURNED,
			    a, NULL, NULL);
			if (clause(f, SEP_LIST, s))
				break;
		}
		long_form(f, e, -1, T_NONE);
		break;
	case CV_DEALER:
	case CV_TURN:
	case CV_END:
	case CV_TILE_RESHUFFLE:
	case CV_REMOVE:
		long_form(f, e, -1, T_NONE);
		break;
	default:
		long_form(f, e, seat_ok(f, e->seat) ? e->seat : -1, T_OTHER);
		break;
	}
	return 1;
}

/* Tells ev[0..n-1] to out, compact or not. */
static void tell(const struct ctgame *g, const struct game_event *ev, int n,
                 const char *const *names, int lang, int compact, struct text *out)
{
	struct fold f;

	memset(&f, 0, sizeof(f));
	f.g = g;
	f.names = names;
	f.lang = lang;
	f.out = out;
	f.compact = compact;
	end_line(&f);
	for (int i = 0; i < n;)
		i += one(&f, ev + i, n - i);
	end_line(&f);
}

void ctfold_tell(const struct ctgame *g, const struct game_event *ev, int n,
                 const char *const *names, int lang, struct text *out)
{
	size_t before = out->len;
	int truncated = out->truncated;

	tell(g, ev, n, names, lang, 0, out);
	if (out->len - before <= CTFOLD_BUDGET)
		return;
	out->len = before;
	out->buf[before] = '\0';
	out->truncated = truncated;
	tell(g, ev, n, names, lang, 1, out);
}
