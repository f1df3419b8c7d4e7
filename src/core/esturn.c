#include "rlyeh/esturn.h"

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
 * stakes a throw can reach are kept. */
static void solve_ev(struct tables *t, const int *codes, const int32_t *order)
{
	double *v = malloc(sizeof(double) * (size_t)t->n * 4);

	if (!v)
		return;
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
	solve_ev(t, codes, order);
	solve_reach(t, order);
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

/* The best plan from configuration r with `s` points at stake over the
 * banked score: retreat now (u[s]) or continue until `j` more points are
 * at stake, then retreat (down: u_down). */
static double plan_value(const struct tables *t, long r, int s, const double *u, double u_down)
{
	double best = u[s];

	for (int j = 1; j <= ESTURN_REACH && s + j < SPAN; j++) {
		double w = reach_at(t, r, j);
		double v = w * u[s + j] + (1.0 - w) * u_down;
		if (v > best)
			best = v;
	}
	return best;
}

/* "best":
 * - Before any score can reach 13 (no score has, and banking now would
 *   not): the EV-optimal rule, which maximises the points per turn.
 * - Otherwise the end is near: with u(F) the chance to win when this turn
 *   ends on F points (win_chance; when no score has reached 13 yet, a
 *   downed seat goes on to the next round, valued at an equal share
 *   1 / seats still in), compare retreating, u(score + stake), with
 *   continuing: the expectation over the next throw (draws, rolls, P1) of
 *   the best plan afterwards, where a plan retreats at once or continues
 *   until a number of points is added (its chance is the reach table's,
 *   exact). This is one step of policy improvement over the best fixed
 *   target, recomputed at every decision. */
int esturn_policy_best(const void *state, const struct game_step *step, struct rng *rng)
{
	const struct esigns *g = state;
	const struct tables *t = tables_get();
	int me = step->seat, last = g->tiebreak > 0, in = 0;
	uint32_t base = g->score[me], s = g->signs;
	double u[SPAN], u_down, cont, self_plan;
	long r;

	if (!t)
		return esigns_policy_expect(state, step, rng);
	for (int q = 0; q < g->n; q++) {
		last |= g->score[q] >= ESIGNS_GOAL;
		in += g->in >> q & 1;
	}
	r = rank_of(t, g);
	if (!last && base + s < ESIGNS_GOAL)
		return s < t->stop[r] ? ESIGNS_CONTINUE : ESIGNS_RETREAT;
	if (s + ESIGNS_HAND >= SPAN)
		return ESIGNS_RETREAT;
	for (int j = 0; j < SPAN; j++)
		u[j] = win_chance(t, g, me, base + (uint32_t)j);
	u_down = last ? u[0] : 1.0 / in;
	cont = 0.0;
	for (long m = t->first[r]; m < t->first[r + 1]; m++)
		cont += t->p[m] * plan_value(t, t->to[m], (int)s + t->gain[m], u, u_down);
	self_plan = plan_value(t, r, (int)s, u, u_down);
	cont += t->self[r] * self_plan;
	{
		double moved = 0.0;
		for (long m = t->first[r]; m < t->first[r + 1]; m++)
			moved += t->p[m];
		cont += (1.0 - moved - t->self[r]) * u_down;
	}
	return cont > u[s] ? ESIGNS_CONTINUE : ESIGNS_RETREAT;
}
