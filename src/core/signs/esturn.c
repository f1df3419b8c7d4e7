#include "rlyeh/esturn.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Packed configuration: per kind hand 0..3, stash 0..8 / 0..4 / 0..3 and
 * pile 0..2, in the radix order of code_of. */
#define CODES (4 * 4 * 4 * 9 * 5 * 4 * 3 * 3 * 3)

static const int kind_dice[ESIGNS_KINDS] = { 8, 4, 3 };
static const int stash_radix[ESIGNS_KINDS] = { 9, 5, 4 };
/* Faces out of 6 per kind: Elder Signs, Tentacles (the rest are Clues). */
static const int sign_faces[ESIGNS_KINDS] = { 3, 2, 1 };
static const int tentacle_faces[ESIGNS_KINDS] = { 1, 2, 3 };

struct config {
	int hand[ESIGNS_KINDS], stash[ESIGNS_KINDS], pile[ESIGNS_KINDS];
};

struct tables {
	long n;        /* configurations */
	int32_t *rank; /* CODES entries: the configuration's index, -1 if none */
	long *first;   /* n + 1: moves of configuration r in [first[r], first[r + 1]) */
	int32_t *to;   /* the configuration a move leads to */
	uint8_t *gain; /* Elder Signs it adds */
	double *p;     /* its probability */
	double *self;  /* n: the chance continuing comes back to the same node */
	uint8_t *stop; /* n: the EV rule retreats at a stake of stop[r] or more */
	double *reach; /* n * ESTURN_REACH: W(r, k) at [r * ESTURN_REACH + k - 1] */
	long kinks;
	double value;
	/* First crossing of k points from a fresh turn, continuing until k are
	 * at stake: over[k][o] the chance it lands on k + o. */
	double over[ESTURN_REACH + 1][ESIGNS_HAND];
	/* Two seats, both under 13, seat 0 opening the round: opens[a][b] is
	 * seat 0's chance to win with scores a and b at the start of the round,
	 * answers[a][b] after seat 0's turn (see solve_duel). */
	double opens[ESIGNS_GOAL][ESIGNS_GOAL], answers[ESIGNS_GOAL][ESIGNS_GOAL];
};

static int code_of(const struct config *c)
{
	int v = 0;

	for (int k = 0; k < ESIGNS_KINDS; k++)
		v = v * 4 + c->hand[k];
	for (int k = 0; k < ESIGNS_KINDS; k++)
		v = v * stash_radix[k] + c->stash[k];
	for (int k = 0; k < ESIGNS_KINDS; k++)
		v = v * 3 + c->pile[k];
	return v;
}

static int total(const int *a)
{
	return a[0] + a[1] + a[2];
}

/* Whether c can stand at a DECIDE node (or is the empty start). */
static int config_valid(const struct config *c)
{
	if (total(c->hand) > ESIGNS_HAND || total(c->pile) >= ESIGNS_DOWNED)
		return 0;
	for (int k = 0; k < ESIGNS_KINDS; k++)
		if (c->hand[k] + c->stash[k] + c->pile[k] > kind_dice[k])
			return 0;
	return 1;
}

static double choose(int n, int k)
{
	double v = 1.0;

	if (k < 0 || k > n)
		return 0.0;
	for (int i = 1; i <= k; i++)
		v = v * (n - k + i) / i;
	return v;
}

static double power(double x, int n)
{
	double v = 1.0;

	while (n-- > 0)
		v *= x;
	return v;
}

/* The chance a throw of n dice of `kind` shows e Elder Signs, t Tentacles
 * and the rest Clues. */
static double throw_chance(int kind, int n, int e, int t)
{
	int c = n - e - t;
	double pe = sign_faces[kind] / 6.0, pt = tentacle_faces[kind] / 6.0;

	return choose(n, e) * choose(n - e, t) * power(pe, e) * power(pt, t) *
	       power(1.0 - pe - pt, c);
}

/* A visitor of the outcomes of continuing: called once per outcome that
 * does not down the seat. */
struct moves {
	const struct tables *t;
	long count;
	int32_t *to;
	uint8_t *gain;
	double *p;
	double self;
	int from;
};

static void add_move(struct moves *m, const struct config *x, int gain, double p)
{
	int r = m->t->rank[code_of(x)];

	if (r == m->from && gain == 0) {
		m->self += p;
		return;
	}
	if (m->to) {
		m->to[m->count] = r;
		m->gain[m->count] = (uint8_t)gain;
		m->p[m->count] = p;
	}
	m->count++;
}

/* The throw of `hand` (after the draws), reached with probability p from
 * configuration `c` whose stash is now `stash`. */
static void throw_outcomes(struct moves *m, const struct config *c, const int *stash,
                           const int *hand, double p)
{
	for (int e0 = 0; e0 <= hand[0]; e0++)
		for (int t0 = 0; e0 + t0 <= hand[0]; t0++)
			for (int e1 = 0; e1 <= hand[1]; e1++)
				for (int t1 = 0; e1 + t1 <= hand[1]; t1++)
					for (int e2 = 0; e2 <= hand[2]; e2++)
						for (int t2 = 0; e2 + t2 <= hand[2]; t2++) {
							int e[3] = { e0, e1, e2 },
							    t[3] = { t0, t1, t2 };
							struct config x;
							double q = p;
							if (total(c->pile) + total(t) >=
							    ESIGNS_DOWNED)
								continue;
							for (int k = 0; k < ESIGNS_KINDS; k++) {
								q *= throw_chance(k, hand[k], e[k],
								                  t[k]);
								x.hand[k] = hand[k] - e[k] - t[k];
								x.stash[k] = stash[k] + e[k];
								x.pile[k] = c->pile[k] + t[k];
							}
							add_move(m, &x, total(e), q);
						}
}

/* Every outcome of continuing from configuration c (P1 included). */
static void continue_outcomes(struct moves *m, const struct config *c)
{
	int bag[ESIGNS_KINDS], stash[ESIGNS_KINDS], need = ESIGNS_HAND - total(c->hand);
	int n;

	for (int k = 0; k < ESIGNS_KINDS; k++) {
		bag[k] = kind_dice[k] - c->hand[k] - c->stash[k] - c->pile[k];
		stash[k] = c->stash[k];
	}
	if (total(bag) < need) {
		for (int k = 0; k < ESIGNS_KINDS; k++) {
			bag[k] += stash[k];
			stash[k] = 0;
		}
	}
	n = total(bag);
	/* With 15 dice the bag cannot stay short (esigns.h). */
	for (int d0 = 0; d0 <= need && d0 <= bag[0]; d0++) {
		for (int d1 = 0; d0 + d1 <= need && d1 <= bag[1]; d1++) {
			int d2 = need - d0 - d1, hand[ESIGNS_KINDS];
			double p;
			if (d2 > bag[2])
				continue;
			p = choose(bag[0], d0) * choose(bag[1], d1) * choose(bag[2], d2) /
			    choose(n, need);
			hand[0] = c->hand[0] + d0;
			hand[1] = c->hand[1] + d1;
			hand[2] = c->hand[2] + d2;
			throw_outcomes(m, c, stash, hand, p);
		}
	}
}

static void config_decode(int code, struct config *c)
{
	for (int k = ESIGNS_KINDS - 1; k >= 0; k--) {
		c->pile[k] = code % 3;
		code /= 3;
	}
	for (int k = ESIGNS_KINDS - 1; k >= 0; k--) {
		c->stash[k] = code % stash_radix[k];
		code /= stash_radix[k];
	}
	for (int k = ESIGNS_KINDS - 1; k >= 0; k--) {
		c->hand[k] = code % 4;
		code /= 4;
	}
}

static void tables_free(struct tables *t)
{
	if (!t)
		return;
	free(t->rank);
	free(t->first);
	free(t->to);
	free(t->gain);
	free(t->p);
	free(t->self);
	free(t->stop);
	free(t->reach);
	free(t);
}

/* Configurations in an order where every move leads to one earlier (or
 * back to itself): more Tentacles first, then fuller hands. A move keeps
 * the stake and the Tentacles only when every die shows a Clue, and then
 * the hand ends full. Fills order[t->n]. */
static void solve_order(const struct tables *t, const int *codes, int32_t *order)
{
	long k = 0;

	for (int pile = ESIGNS_DOWNED - 1; pile >= 0; pile--) {
		for (int hand = ESIGNS_HAND; hand >= 0; hand--) {
			for (long r = 0; r < t->n; r++) {
				struct config c;
				config_decode(codes[r], &c);
				if (total(c.pile) == pile && total(c.hand) == hand)
					order[k++] = (int32_t)r;
			}
		}
	}
}

/* The EV programme, stake by stake from ESTURN_STAKE down; only the four
 * stakes a throw can reach are kept. Returns -1 when out of memory. */
static int solve_ev(struct tables *t, const int *codes, const int32_t *order)
{
	double *v = malloc(sizeof(double) * (size_t)t->n * 4);

	if (!v)
		return -1;
	for (int s = ESTURN_STAKE; s >= 0; s--) {
		double *layer = v + (size_t)(s % 4) * (size_t)t->n;
		for (long i = 0; i < t->n; i++) {
			long r = order[i];
			struct config c;
			double cont = 0.0;
			config_decode(codes[r], &c);
			for (long m = t->first[r]; m < t->first[r + 1]; m++) {
				int s2 = s + t->gain[m];
				double w =
				    s2 > ESTURN_STAKE
				        ? (double)s2
				        : v[(size_t)(s2 % 4) * (size_t)t->n + (size_t)t->to[m]];
				cont += t->p[m] * w;
			}
			cont /= 1.0 - t->self[r];
			layer[r] = cont > s ? cont : (double)s;
			if (s < total(c.stash) || cont > s)
				continue;
			if (t->stop[r] == s + 1)
				t->stop[r] = (uint8_t)s;
			else
				t->kinks++;
		}
		if (s == 0)
			t->value = layer[t->rank[0]];
	}
	free(v);
	return 0;
}

/* The reach programme, k from 1 up. */
static void solve_reach(struct tables *t, const int32_t *order)
{
	for (int k = 1; k <= ESTURN_REACH; k++) {
		for (long i = 0; i < t->n; i++) {
			long r = order[i];
			double w = 0.0;
			for (long m = t->first[r]; m < t->first[r + 1]; m++) {
				int left = k - t->gain[m];
				w += t->p[m] * (left <= 0
				                    ? 1.0
				                    : t->reach[(size_t)t->to[m] * ESTURN_REACH +
				                               (size_t)left - 1]);
			}
			t->reach[(size_t)r * ESTURN_REACH + (size_t)k - 1] = w / (1.0 - t->self[r]);
		}
	}
}

/* The landing of the first crossing (tables.over), k from 1 up, four
 * layers kept. Returns -1 when out of memory. */
static int solve_over(struct tables *t, const int32_t *order)
{
	size_t n = (size_t)t->n, o;
	double *f = malloc(sizeof(double) * n * 4 * ESIGNS_HAND);

	if (!f)
		return -1;
	for (int k = 1; k <= ESTURN_REACH; k++) {
		double *layer = f + (size_t)(k % 4) * n * ESIGNS_HAND;
		for (long i = 0; i < t->n; i++) {
			long r = order[i];
			double w[ESIGNS_HAND] = { 0.0 };
			for (long m = t->first[r]; m < t->first[r + 1]; m++) {
				int left = k - t->gain[m];
				if (left <= 0) {
					w[-left] += t->p[m];
					continue;
				}
				for (o = 0; o < ESIGNS_HAND; o++)
					w[o] += t->p[m] *
					        f[((size_t)(left % 4) * n + (size_t)t->to[m]) *
					              ESIGNS_HAND +
					          o];
			}
			for (o = 0; o < ESIGNS_HAND; o++)
				layer[(size_t)r * ESIGNS_HAND + o] = w[o] / (1.0 - t->self[r]);
		}
		for (o = 0; o < ESIGNS_HAND; o++)
			t->over[k][o] = layer[(size_t)t->rank[0] * ESIGNS_HAND + o];
	}
	free(f);
	return 0;
}

/* Seat 0's chance when seat 0 ends the round's first turn on f points
 * (f >= 13) and seat 1, on b, plays to pass it. */
static double duel_chased(const struct tables *t, int f, int b)
{
	int k = f + 1 - b;

	return 1.0 - (k > ESTURN_REACH
	                  ? 0.0
	                  : t->reach[(size_t)t->rank[0] * ESTURN_REACH + (size_t)k - 1]);
}

/* Two seats: each turn the seat picks the number of points to play for
 * (continue until that many are at stake, then retreat: the chances of
 * landing on it or one or two above are tables.over) that maximises its
 * own chance to win, seat 0 with the first turn of every round; a score
 * of 13 ends the game after the round, and in that last round seat 1
 * plays to pass seat 0. Scores only grow, so the states are solved from
 * the highest down, the pair opens/answers of one state (both seats
 * downed) by iteration to a fixed point. */
static void solve_duel(struct tables *t)
{
	for (int a = ESIGNS_GOAL - 1; a >= 0; a--) {
		for (int b = ESIGNS_GOAL - 1; b >= 0; b--) {
			double v0 = 0.5, v1 = 0.5;
			for (int it = 0; it < 10000; it++) {
				double n0 = 0.0, n1 = 1.0;
				for (int j = 1; j <= ESTURN_REACH; j++) {
					double x = 0.0, y = 0.0, hit = 0.0;
					for (int o = 0; o < ESIGNS_HAND; o++) {
						int f = a + j + o, g = b + j + o;
						hit += t->over[j][o];
						x += t->over[j][o] * (f < ESIGNS_GOAL
						                          ? t->answers[f][b]
						                          : duel_chased(t, f, b));
						y += t->over[j][o] *
						     (g < ESIGNS_GOAL ? t->opens[a][g] : 0.0);
					}
					x += (1.0 - hit) * v1;
					y += (1.0 - hit) * v0;
					if (x > n0)
						n0 = x;
					if (y < n1)
						n1 = y;
				}
				if (fabs(n0 - v0) < 1e-14 && fabs(n1 - v1) < 1e-14) {
					v0 = n0;
					v1 = n1;
					break;
				}
				v0 = n0;
				v1 = n1;
			}
			t->opens[a][b] = v0;
			t->answers[a][b] = v1;
		}
	}
}

/* Builds every table; NULL when out of memory. */
static struct tables *tables_build(void)
{
	struct tables *t = calloc(1, sizeof(*t));
	int *codes = NULL;
	int32_t *order = NULL;
	struct moves m = { 0 };

	if (!t || !(t->rank = malloc(sizeof(int32_t) * CODES)) ||
	    !(codes = malloc(sizeof(int) * CODES)))
		goto fail;
	for (int code = 0; code < CODES; code++) {
		struct config c;
		config_decode(code, &c);
		t->rank[code] = -1;
		if (config_valid(&c)) {
			codes[t->n] = code;
			t->rank[code] = (int32_t)t->n++;
		}
	}
	t->first = malloc(sizeof(long) * (size_t)(t->n + 1));
	t->self = calloc((size_t)t->n, sizeof(double));
	t->stop = malloc((size_t)t->n);
	t->reach = malloc(sizeof(double) * (size_t)t->n * ESTURN_REACH);
	order = malloc(sizeof(int32_t) * (size_t)t->n);
	if (!t->first || !t->self || !t->stop || !t->reach || !order)
		goto fail;
	m.t = t;
	for (long r = 0; r < t->n; r++) {
		struct config c;
		config_decode(codes[r], &c);
		t->first[r] = m.count;
		m.from = (int)r;
		continue_outcomes(&m, &c);
	}
	t->first[t->n] = m.count;
	t->to = malloc(sizeof(int32_t) * (size_t)m.count);
	t->gain = malloc((size_t)m.count);
	t->p = malloc(sizeof(double) * (size_t)m.count);
	if (!t->to || !t->gain || !t->p)
		goto fail;
	m.to = t->to;
	m.gain = t->gain;
	m.p = t->p;
	m.count = 0;
	for (long r = 0; r < t->n; r++) {
		struct config c;
		config_decode(codes[r], &c);
		m.from = (int)r;
		m.self = 0.0;
		continue_outcomes(&m, &c);
		t->self[r] = m.self;
	}
	memset(t->stop, ESTURN_STAKE + 1, (size_t)t->n);
	solve_order(t, codes, order);
	if (solve_ev(t, codes, order))
		goto fail;
	solve_reach(t, order);
	if (solve_over(t, order))
		goto fail;
	solve_duel(t);
	free(codes);
	free(order);
	return t;
fail:
	free(codes);
	free(order);
	tables_free(t);
	return NULL;
}

static _Atomic(struct tables *) built;

/* The tables, built on first use; NULL when they cannot be. */
static const struct tables *tables_get(void)
{
	struct tables *t = atomic_load(&built), *expected = NULL;

	if (t)
		return t;
	t = tables_build();
	if (!t)
		return NULL;
	if (!atomic_compare_exchange_strong(&built, &expected, t)) {
		tables_free(t);
		return expected;
	}
	return t;
}

void esturn_info(struct esturn_info *out)
{
	const struct tables *t = tables_get();

	memset(out, 0, sizeof(*out));
	if (!t)
		return;
	out->value = t->value;
	out->configs = t->n;
	out->moves = t->first[t->n];
	out->kinks = t->kinks;
	out->built = 1;
}

/* The configuration of g's DECIDE node. */
static int rank_of(const struct tables *t, const struct esigns *g)
{
	struct config c;

	for (int k = 0; k < ESIGNS_KINDS; k++) {
		c.hand[k] = g->hand[k];
		c.stash[k] = g->stash[k];
		c.pile[k] = g->pile[k];
	}
	return t->rank[code_of(&c)];
}

int esturn_ev_choice(const struct esigns *g)
{
	const struct tables *t = tables_get();

	if (!t || g->phase != ESIGNS_DECIDE)
		return -1;
	return g->signs < t->stop[rank_of(t, g)] ? ESIGNS_CONTINUE : ESIGNS_RETREAT;
}

static double reach_at(const struct tables *t, long r, int k)
{
	if (k <= 0)
		return 1.0;
	return k > ESTURN_REACH ? 0.0 : t->reach[(size_t)r * ESTURN_REACH + (size_t)k - 1];
}

double esturn_reach(int k)
{
	const struct tables *t = tables_get();

	if (k <= 0)
		return 1.0;
	return t ? reach_at(t, t->rank[0], k) : 0.0;
}

double esturn_reach_from(const struct esigns *g, int k)
{
	const struct tables *t = tables_get();

	if (k <= 0)
		return 1.0;
	return t && g->phase == ESIGNS_DECIDE ? reach_at(t, rank_of(t, g), k) : 0.0;
}

int esturn_policy_ev(const void *state, const struct game_step *step, struct rng *rng)
{
	int c = esturn_ev_choice(state);

	return c >= 0 ? c : esigns_policy_expect(state, step, rng);
}

/* ---- "best": the chance to win at the end of the game ---- */

/* Final scores the win chances are tabled for, from the seat's banked
 * score up. */
#define SPAN 160

/* The seat's place in the round's order (0 opens it). */
static int place_of(const struct esigns *g, int seat)
{
	return (seat - g->first + g->n) % g->n;
}

/* The chance that `me` wins when it ends its turn on `f` points and this
 * round is the last (or a tie-break round). The model: a seat still to
 * play in the round plays to pass the highest score with the best chance
 * there is (esturn_reach); the first to pass beats `me`; when none does,
 * the seats level with `me` share the tie-break rounds of P2 equally. A
 * seat under 13 after the last round is devoured (End 2). */
static double win_chance(const struct tables *t, const struct esigns *g, int me, uint32_t f)
{
	double p = 1.0;
	int level = 1;

	if (!g->tiebreak && f < ESIGNS_GOAL)
		return 0.0;
	for (int s = 0; s < g->n; s++) {
		if (s == me || !(g->in >> s & 1))
			continue;
		if (g->score[s] > f)
			return 0.0;
		level += g->score[s] == f;
	}
	for (int q = place_of(g, me) + 1; q < g->n; q++) {
		int s = (g->first + q) % g->n;
		if (g->in >> s & 1)
			p *= 1.0 - reach_at(t, t->rank[0], (int)(f + 1 - g->score[s]));
	}
	return p / level;
}

/* The value for `me` of ending its turn on f points: win_chance when the
 * round is the last (a score reached 13, or f does, or a tie-break);
 * otherwise, for every other seat, the two-seat chance (solve_duel) of
 * `me` against it, in their order of play, multiplied as if independent.
 * At two seats this is the two-seat game's value. */
static double end_value(const struct tables *t, const struct esigns *g, int me, uint32_t f)
{
	double v = 1.0;
	int last = g->tiebreak > 0 || f >= ESIGNS_GOAL;

	for (int s = 0; s < g->n; s++)
		last |= g->score[s] >= ESIGNS_GOAL;
	if (last)
		return win_chance(t, g, me, f);
	for (int s = 0; s < g->n; s++) {
		if (s == me)
			continue;
		if (place_of(g, s) > place_of(g, me))
			v *= t->answers[f][g->score[s]];
		else
			v *= 1.0 - t->opens[g->score[s]][f];
	}
	return v;
}

/* The best plan from configuration r with `s` points at stake over the
 * banked score: retreat now (u[s]) or continue until `j` more points are
 * at stake, then retreat (down: u_down). */
static double plan_value(const struct tables *t, long r, int s, const double *u, double u_down)
{
	const double *w = t->reach + (size_t)r * ESTURN_REACH;
	double best = u[s];

	for (int j = 1; j <= ESTURN_REACH && s + j < SPAN; j++) {
		double v = u_down + w[j - 1] * (u[s + j] - u_down);
		if (v > best)
			best = v;
		if (u[s + j] >= u[SPAN - 1])
			break; /* further targets are no likelier and worth no more */
	}
	return best;
}

/* "best": at every decision, the value u(F) of ending the turn on F
 * points (end_value: the chance to win, exact in the model of solve_duel
 * at two seats and in the last round) is compared between retreating,
 * u(score + stake), and continuing: the expectation over the next throw
 * (draws, rolls, P1) of the best plan afterwards, where a plan retreats at
 * once or continues until a number of points is added (its chance is the
 * reach table's, exact) — one step of policy improvement over the best
 * fixed target, recomputed at every decision. */
int esturn_policy_best(const void *state, const struct game_step *step, struct rng *rng)
{
	const struct esigns *g = state;
	const struct tables *t = tables_get();
	int me = step->seat;
	uint32_t base = g->score[me], s = g->signs;
	double u[SPAN], u_down, cont, moved = 0.0;
	long r;

	if (!t)
		return esigns_policy_expect(state, step, rng);
	if (s + ESIGNS_HAND >= SPAN)
		return ESIGNS_RETREAT;
	r = rank_of(t, g);
	for (int j = 0; j < SPAN; j++)
		u[j] = j <= (int)s + ESIGNS_HAND + ESTURN_REACH
		           ? end_value(t, g, me, base + (uint32_t)j)
		           : u[j - 1];
	u_down = u[0];
	cont = t->self[r] * plan_value(t, r, (int)s, u, u_down);
	for (long m = t->first[r]; m < t->first[r + 1]; m++) {
		cont += t->p[m] * plan_value(t, t->to[m], (int)s + t->gain[m], u, u_down);
		moved += t->p[m];
	}
	cont += (1.0 - moved - t->self[r]) * u_down;
	return cont > u[s] ? ESIGNS_CONTINUE : ESIGNS_RETREAT;
}
