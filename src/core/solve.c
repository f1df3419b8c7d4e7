#include "rlyeh/solve.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Tokens in play for n cultists: the most any one sanity can reach. */
#define TOKENS(n) (CDICE_SANITY * (n))
#define TMAX      (CDICE_SANITY * SOLVE_MAX_CULTISTS)
/* Values per state: n seats, Cthulhu, expected turns left. */
#define WIDTH_MAX (SOLVE_MAX_CULTISTS + 2)
/* Faces a roll resolves to without the Eye. */
#define PLAIN 4

/* Chance of each face of the d12 (cdice_die_face): 5, 4, 1, 1, 1 in 12. */
static const double face_p[CDICE_FACES] = {
	5.0 / 12, 4.0 / 12, 1.0 / 12, 1.0 / 12, 1.0 / 12,
};

struct solve_table {
	struct solve_stats stats;
	int n, per_player, width;
	/* cnt[k][r]: vectors of k sanities summing to at most r, C(r + k, k);
	 * below[k][r][v]: those whose first entry is below v (ranking). */
	long cnt[SOLVE_MAX_CULTISTS + 1][TMAX + 1];
	long below[SOLVE_MAX_CULTISTS + 1][TMAX + 1][TMAX + 2];
	double *w; /* width values per state, Caster at seat 0 */
};

/* Builder-only data: the transitions. */
struct work {
	struct solve_table *t;
	int32_t *next;    /* [state][victim slot][curse face][response face] */
	uint8_t *playing; /* [state]: at least two cultists sane */
};

enum mode {
	MODE_LOGIT,   /* logit responses at temperature SOLVE_TAU */
	MODE_UNIFORM, /* uniform choices */
};

static const struct solve_table *provider_table(int n, int per_player);
static solve_provider_fn provider;

void solve_set_provider(solve_provider_fn fn)
{
	provider = fn;
}

const struct solve_table *solve_provided(int n, int per_player)
{
	return provider_table(n, per_player);
}

static const struct solve_table *provider_table(int n, int per_player)
{
	if (!provider || n < CDICE_MIN || n > SOLVE_MAX_CULTISTS)
		return NULL;
	return provider(n, per_player);
}

/* Rank of the sanity vector s[0..n-1] (sum at most 3n) among all such
 * vectors in lexicographic order. */
static long rank_of(const struct solve_table *t, const uint8_t *s)
{
	long r = 0;
	int left = TOKENS(t->n);

	for (int i = 0; i < t->n; i++) {
		assert(s[i] <= left);
		r += t->below[t->n - 1 - i][left][s[i]];
		left -= s[i];
	}
	return r;
}

/* Rank of g's sanity seen from `caster`: seat (caster + j) % n goes to j. */
static long rank_from(const struct solve_table *t, const struct cdice *g, int caster)
{
	uint8_t s[SOLVE_MAX_CULTISTS];

	for (int j = 0; j < t->n; j++)
		s[j] = g->sanity[(caster + j) % t->n];
	return rank_of(t, s);
}

/* Value to the owner of seat q of the value vector v (n seats). */
static double owner_value(const struct solve_table *t, const double *v, int q)
{
	double sum = 0;

	if (!t->per_player)
		return v[q];
	for (int j = q % 2; j < t->n; j += 2)
		sum += v[j];
	return sum;
}

/* ---- building ---- */

static void init_ranks(struct solve_table *t)
{
	for (int k = 0; k <= SOLVE_MAX_CULTISTS; k++) {
		for (int r = 0; r <= TMAX; r++) {
			/* C(r + k, k) */
			long c = 1;
			for (int i = 1; i <= k; i++)
				c = c * (r + i) / i;
			t->cnt[k][r] = c;
		}
	}
	for (int k = 0; k <= SOLVE_MAX_CULTISTS; k++) {
		for (int r = 0; r <= TMAX; r++) {
			long acc = 0;
			for (int v = 0; v <= r + 1 && v <= TMAX + 1; v++) {
				t->below[k][r][v] = acc;
				if (v <= r)
					acc += t->cnt[k][r - v];
			}
		}
	}
}

/* The game position at a turn start with sanity s, Caster 0. */
static void position(const struct solve_table *t, const uint8_t *s, struct cdice *g)
{
	struct game_setup setup = { .players = t->per_player ? 2 : t->n,
		                    .per_player = t->per_player,
		                    .first = 0 };
	int sum = 0;

	cdice_init(g, &setup);
	for (int i = 0; i < t->n; i++) {
		g->sanity[i] = s[i];
		sum += s[i];
	}
	g->pool = (uint8_t)(TOKENS(t->n) - sum);
}

/* Code of the position after a complete turn: the next state's index (seen
 * from the next Caster, seat 1), or -1 - winner, or -1 - n for Cthulhu. */
static int32_t turn_code(const struct solve_table *t, const struct cdice *g)
{
	if (g->phase == CDICE_OVER)
		return g->winner >= 0 ? -1 - g->winner : -1 - t->n;
	assert(g->phase == CDICE_VICTIM && g->caster == 1);
	return (int32_t)rank_from(t, g, 1);
}

/* Fills the transitions of state `idx` (sanity s). */
static void build_state(struct work *wk, long idx, const uint8_t *s)
{
	const struct solve_table *t = wk->t;
	int slots = t->n - 1, sane = 0;
	struct cdice g;

	for (int i = 0; i < t->n; i++)
		sane += s[i] > 0;
	wk->playing[idx] = sane >= 2;
	position(t, s, &g);
	for (int k = 0; k < slots; k++) {
		int32_t *nx = wk->next + ((size_t)idx * slots + k) * PLAIN * PLAIN;
		struct cdice a = g;

		if (!wk->playing[idx] || cdice_victim(&a, k + 1, NULL) != GAME_OK) {
			for (int i = 0; i < PLAIN * PLAIN; i++)
				nx[i] = INT32_MIN;
			continue;
		}
		for (int cf = 0; cf < PLAIN; cf++) {
			struct cdice b = a;
			cdice_roll(&b, (enum cdice_face)cf, NULL);
			for (int rf = 0; rf < PLAIN; rf++) {
				struct cdice c = b;
				cdice_roll(&c, (enum cdice_face)rf, NULL);
				nx[cf * PLAIN + rf] = turn_code(t, &c);
			}
		}
	}
}

/* Enumerates every sanity vector in rank order, filling transitions. */
static void build_all(struct work *wk)
{
	const struct solve_table *t = wk->t;
	uint8_t s[CDICE_MAX] = { 0 };
	long idx = 0;
	int n = t->n, sum = 0, i;

	do {
		assert(rank_of(t, s) == idx);
		build_state(wk, idx++, s);
		/* Lexicographic successor: the last entry that can grow grows,
		 * the entries after it restart at 0. */
		for (i = n - 1; i >= 0; i--) {
			if (sum < TOKENS(n)) {
				s[i]++;
				sum++;
				break;
			}
			sum -= s[i];
			s[i] = 0;
		}
	} while (i >= 0);
	assert(idx == t->stats.states);
}

/* The value vector (n seats, Cthulhu, turns left) at transition `code`,
 * seen from the Caster of the turn just played (seat 0). */
static void code_value(const struct solve_table *t, int32_t code, double *out)
{
	int n = t->n;

	if (code < 0) {
		memset(out, 0, sizeof(double) * (size_t)t->width);
		out[-1 - code] = 1;
		return;
	}
	const double *v = t->w + (size_t)code * t->width;
	out[0] = v[n - 1];
	memcpy(out + 1, v, sizeof(double) * (size_t)(n - 1));
	out[n] = v[n];
	out[n + 1] = v[n + 1];
}

static void axpy(int width, double a, const double *x, double *y)
{
	for (int i = 0; i < width; i++)
		y[i] += a * x[i];
}

/* Index of the option among `count` vectors (stride WIDTH_MAX) best for the
 * owner of seat q; ties within SOLVE_TIE go to the first. */
static int best_of(const struct solve_table *t, double (*v)[WIDTH_MAX], int count, int q)
{
	int best = 0;
	double bv = owner_value(t, v[0], q);

	for (int k = 1; k < count; k++) {
		double x = owner_value(t, v[k], q);
		if (x > bv + SOLVE_TIE) {
			best = k;
			bv = x;
		}
	}
	return best;
}

/* Adds `scale` times the mix of the `count` option vectors into out: the
 * logit (softmax) response of the owner of seat q at temperature
 * SOLVE_TAU, or the uniform mix. */
static void mix(const struct solve_table *t, double (*v)[WIDTH_MAX], int count, int q,
                enum mode mode, double scale, double *out)
{
	double x[GAME_MAX_OPTIONS], top = 0, z = 0;

	for (int k = 0; k < count; k++) {
		x[k] = owner_value(t, v[k], q);
		if (k == 0 || x[k] > top)
			top = x[k];
	}
	for (int k = 0; k < count; k++) {
		x[k] = mode == MODE_UNIFORM ? 1 : exp((x[k] - top) / SOLVE_TAU);
		z += x[k];
	}
	for (int k = 0; k < count; k++)
		axpy(t->width, scale * x[k] / z, v[k], out);
}

/* One backup of state idx under `mode` into out (width values). */
static void backup(struct work *wk, long idx, enum mode mode, double *out)
{
	const struct solve_table *t = wk->t;
	int width = t->width, slots = t->n - 1, legal = 0;
	double cv[SOLVE_MAX_CULTISTS][WIDTH_MAX];

	memset(out, 0, sizeof(double) * (size_t)width);
	for (int k = 0; k < slots; k++) {
		const int32_t *nx = wk->next + ((size_t)idx * slots + k) * PLAIN * PLAIN;
		double rv[PLAIN][WIDTH_MAX];

		if (nx[0] == INT32_MIN)
			continue;
		for (int cf = 0; cf < PLAIN; cf++) {
			double fv[PLAIN][WIDTH_MAX];
			memset(rv[cf], 0, sizeof(rv[cf]));
			for (int rf = 0; rf < PLAIN; rf++) {
				code_value(t, nx[cf * PLAIN + rf], fv[rf]);
				axpy(width, face_p[rf], fv[rf], rv[cf]);
			}
			/* The Victim's Eye. */
			mix(t, fv, PLAIN, k + 1, mode, face_p[CDICE_EYE], rv[cf]);
		}
		memset(cv[legal], 0, sizeof(cv[legal]));
		for (int cf = 0; cf < PLAIN; cf++)
			axpy(width, face_p[cf], rv[cf], cv[legal]);
		/* The Caster's Eye. */
		mix(t, rv, PLAIN, 0, mode, face_p[CDICE_EYE], cv[legal]);
		legal++;
	}
	assert(legal > 0);
	mix(t, cv, legal, 0, mode, 1, out);
	out[t->n + 1] += 1; /* the turn just played */
}

/* One Gauss-Seidel sweep; returns the largest change of a win chance. */
static double sweep(struct work *wk, enum mode mode)
{
	struct solve_table *t = wk->t;
	double res = 0, v[WIDTH_MAX];

	for (long idx = 0; idx < t->stats.states; idx++) {
		double *w = t->w + (size_t)idx * t->width;
		if (!wk->playing[idx])
			continue;
		backup(wk, idx, mode, v);
		for (int i = 0; i <= t->n + 1; i++) {
			double d = v[i] > w[i] ? v[i] - w[i] : w[i] - v[i];
			if (d > res && i <= t->n)
				res = d;
		}
		memcpy(w, v, sizeof(double) * (size_t)t->width);
	}
	return res;
}

static void work_free(struct work *wk)
{
	free(wk->next);
	free(wk->playing);
}

/* A table for n cultists and variant per_player with its ranks and no
 * values yet, or NULL for a size there is no table of (or no memory). */
static struct solve_table *table_new(int n, int per_player)
{
	struct solve_table *t;

	if (per_player ? (per_player < 2 || per_player > 3 || n != 2 * per_player)
	               : (n < CDICE_MIN || n > SOLVE_MAX_CULTISTS))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->n = n;
	t->per_player = per_player;
	t->width = n + 2;
	init_ranks(t);
	return t;
}

struct solve_table *solve_build(int n, int per_player, enum solve_profile profile)
{
	struct solve_table *t;
	struct work wk = { 0 };
	size_t states, slots;

	if (!(t = table_new(n, per_player)))
		return NULL;
	states = (size_t)t->cnt[n][TOKENS(n)];
	slots = (size_t)n - 1;
	t->stats.n = n;
	t->stats.per_player = per_player;
	t->stats.states = (long)states;
	t->w = calloc(states * (size_t)t->width, sizeof(double));
	wk.t = t;
	wk.next = malloc(states * slots * PLAIN * PLAIN * sizeof(int32_t));
	wk.playing = malloc(states);
	if (!t->w || !wk.next || !wk.playing) {
		work_free(&wk);
		solve_free(t);
		return NULL;
	}
	t->stats.bytes_kept = sizeof(*t) + states * (size_t)t->width * sizeof(double);
	t->stats.bytes_peak =
	    t->stats.bytes_kept + states * slots * PLAIN * PLAIN * sizeof(int32_t) + states;
	build_all(&wk);
	do {
		t->stats.residual =
		    sweep(&wk, profile == SOLVE_PERFECT ? MODE_LOGIT : MODE_UNIFORM);
		t->stats.sweeps++;
	} while (t->stats.residual > SOLVE_EPS && t->stats.sweeps < SOLVE_SWEEPS);
	work_free(&wk);
	return t;
}

/* The serialized table: this header, then states * width doubles. */
struct image_head {
	char magic[8];      /* "rlyehsv1" */
	uint32_t byteorder; /* 0x01020304 as written */
	int32_t n, per_player, width, sweeps;
	int64_t states;
	double tau, eps, residual;
};

static const char image_magic[8] = { 'r', 'l', 'y', 'e', 'h', 's', 'v', '1' };

size_t solve_image_size(const struct solve_table *t)
{
	return sizeof(struct image_head) +
	       (size_t)t->stats.states * (size_t)t->width * sizeof(double);
}

void solve_image_write(const struct solve_table *t, void *buf)
{
	struct image_head h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, image_magic, sizeof(h.magic));
	h.byteorder = 0x01020304u;
	h.n = t->n;
	h.per_player = t->per_player;
	h.width = t->width;
	h.sweeps = t->stats.sweeps;
	h.states = t->stats.states;
	h.tau = SOLVE_TAU;
	h.eps = SOLVE_EPS;
	h.residual = t->stats.residual;
	memcpy(buf, &h, sizeof(h));
	memcpy((char *)buf + sizeof(h), t->w,
	       (size_t)t->stats.states * (size_t)t->width * sizeof(double));
}

struct solve_table *solve_image_read(const void *buf, size_t len, int n, int per_player)
{
	struct image_head h;
	struct solve_table *t;
	size_t values;

	if (len < sizeof(h))
		return NULL;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, image_magic, sizeof(h.magic)) != 0 || h.byteorder != 0x01020304u ||
	    h.n != n || h.per_player != per_player || h.tau != SOLVE_TAU || h.eps != SOLVE_EPS)
		return NULL;
	if (!(t = table_new(n, per_player)))
		return NULL;
	values = (size_t)t->cnt[n][TOKENS(n)] * (size_t)t->width;
	if (h.width != t->width || h.states != t->cnt[n][TOKENS(n)] ||
	    len != sizeof(h) + values * sizeof(double) ||
	    !(t->w = malloc(values * sizeof(double)))) {
		solve_free(t);
		return NULL;
	}
	memcpy(t->w, (const char *)buf + sizeof(h), values * sizeof(double));
	/* chances in [0, 1] summing to 1, then a length that is not negative;
	 * or, for a turn start that cannot be played, all zero */
	for (size_t i = 0; i < values; i += (size_t)t->width) {
		double sum = 0;
		for (int k = 0; k <= n; k++) {
			double v = t->w[i + (size_t)k];
			if (!(v >= 0 && v <= 1)) {
				solve_free(t);
				return NULL;
			}
			sum += v;
		}
		if (!(fabs(sum - 1) < 1e-6 || (sum == 0 && t->w[i + (size_t)n + 1] == 0)) ||
		    !(t->w[i + (size_t)n + 1] >= 0) || !isfinite(t->w[i + (size_t)n + 1])) {
			solve_free(t);
			return NULL;
		}
	}
	t->stats.n = n;
	t->stats.per_player = per_player;
	t->stats.states = h.states;
	t->stats.sweeps = h.sweeps;
	t->stats.residual = h.residual;
	t->stats.bytes_kept = sizeof(*t) + values * sizeof(double);
	t->stats.bytes_peak = t->stats.bytes_kept;
	return t;
}

void solve_free(struct solve_table *t)
{
	if (!t)
		return;
	free(t->w);
	free(t);
}

const struct solve_stats *solve_stats(const struct solve_table *t)
{
	return &t->stats;
}

int solve_fits(const struct solve_table *t, const struct cdice *g)
{
	return t && t->n == g->n && t->per_player == g->per_player;
}

/* ---- queries ---- */

/* Values (width) of any position g, looking ahead to the end of the turn:
 * chance nodes average, Eye choices take the best for the roller's owner. */
static void node_value(const struct solve_table *t, const struct cdice *g, double *out)
{
	int n = t->n;

	switch (g->phase) {
	case CDICE_OVER:
		memset(out, 0, sizeof(double) * (size_t)t->width);
		out[g->winner >= 0 ? g->winner : n] = 1;
		return;
	case CDICE_VICTIM: {
		const double *v = t->w + (size_t)rank_from(t, g, g->caster) * t->width;
		for (int i = 0; i < n; i++)
			out[i] = v[(i - g->caster + n) % n];
		out[n] = v[n];
		out[n + 1] = v[n + 1];
		return;
	}
	case CDICE_CURSE:
	case CDICE_RESPONSE:
		memset(out, 0, sizeof(double) * (size_t)t->width);
		for (int f = 0; f < CDICE_FACES; f++) {
			struct cdice c = *g;
			double v[WIDTH_MAX];
			cdice_roll(&c, (enum cdice_face)f, NULL);
			node_value(t, &c, v);
			if (c.phase == CDICE_VICTIM || c.phase == CDICE_OVER)
				v[n + 1] += 1;
			axpy(t->width, face_p[f], v, out);
		}
		return;
	case CDICE_CURSE_EYE:
	case CDICE_RESPONSE_EYE: {
		double v[PLAIN][WIDTH_MAX];
		int seat = g->phase == CDICE_CURSE_EYE ? g->caster : g->victim;
		for (int f = 0; f < PLAIN; f++) {
			struct cdice c = *g;
			cdice_eye(&c, (enum cdice_face)f, NULL);
			node_value(t, &c, v[f]);
			if (c.phase == CDICE_VICTIM || c.phase == CDICE_OVER)
				v[f][n + 1] += 1;
		}
		memcpy(out, v[best_of(t, v, PLAIN, seat)], sizeof(double) * (size_t)t->width);
		return;
	}
	default:
		assert(!"node_value: bad phase");
	}
}

void solve_value(const struct solve_table *t, const struct cdice *g, double *out)
{
	double v[WIDTH_MAX];

	assert(solve_fits(t, g));
	node_value(t, g, v);
	memcpy(out, v, sizeof(double) * (size_t)(t->n + 1));
}

double solve_length(const struct solve_table *t, const struct cdice *g)
{
	double v[WIDTH_MAX];

	assert(solve_fits(t, g) && (g->phase == CDICE_VICTIM || g->phase == CDICE_OVER));
	if (g->phase == CDICE_OVER)
		return 0;
	node_value(t, g, v);
	return v[t->n + 1];
}

int solve_options(const struct solve_table *t, const struct cdice *g, const struct game_step *step,
                  double *out)
{
	double v[GAME_MAX_OPTIONS][WIDTH_MAX];
	int n = t->n;

	assert(solve_fits(t, g));
	if (step->node != GAME_NODE_CHOICE)
		return -1;
	for (int k = 0; k < step->count; k++) {
		struct cdice c = *g;
		int rc = cdice_apply(&c, step->options[k], NULL);
		assert(rc == GAME_OK);
		(void)rc;
		node_value(t, &c, v[k]);
		for (int i = 0; i <= n; i++)
			out[k * (CDICE_MAX + 1) + i] = v[k][i];
	}
	return best_of(t, v, step->count, step->seat);
}
