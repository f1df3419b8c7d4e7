#include "rlyeh/cdsolve.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Tokens in play for n cultists: the most any one sanity can reach. */
#define TOKENS(n) (CDICE_SANITY * (n))
#define TMAX      (CDICE_SANITY * CDSOLVE_MAX_CULTISTS)
/* Values per state: n seats, Cthulhu, expected turns left. */
#define WIDTH_MAX (CDSOLVE_MAX_CULTISTS + 2)
/* Faces a roll resolves to without the Eye. */
#define PLAIN 4

/* Chance of each face of the d12 (cdice_die_face): 5, 4, 1, 1, 1 in 12. */
static const double face_p[CDICE_FACES] = {
	5.0 / 12, 4.0 / 12, 1.0 / 12, 1.0 / 12, 1.0 / 12,
};

struct cdsolve_table {
	struct cdsolve_stats stats;
	int n, per_player, width;
	/* cnt[k][r]: vectors of k sanities summing to at most r, C(r + k, k);
	 * below[k][r][v]: those whose first entry is below v (ranking). */
	long cnt[CDSOLVE_MAX_CULTISTS + 1][TMAX + 1];
	long below[CDSOLVE_MAX_CULTISTS + 1][TMAX + 1][TMAX + 2];
	int uniform; /* the "random" profile instead of the logit one */
	double damp; /* a sweep moves each state this part of the way */
	/* the sweeps' use of work.dead (enum skip): whether they skip the
	 * victim slots marked cut and add to the marks, or mark anew; cut are
	 * those worth less than the best by more than gap */
	int skip;
	double gap;
	double tau; /* the logit profile's temperature */
	/* The polished profile (NULL before it, and for the uniform one):
	 * per rank, dec = 2n - 1 decisions (the victim; the Caster's Eye after
	 * victim slot k at 1 + k; the Victim's Eye, victim slot k, at n + k,
	 * the rank being then the sanity after the curse), each the option
	 * taken (victim slot or face) or MIXED; the mixed ones in mix[],
	 * sorted by key rank * dec + decision. */
	int dec;
	uint8_t *pol;
	struct mixed *mix;
	long mixes;
	int frozen; /* mix[].p are the probabilities (else logit over support) */
	/* width values per state, Caster at seat 0; then the rows of the
	 * ends of a game (rows_of) */
	double *w;
};

#define MIXED 0xff

/* What a sweep does with work.dead (cdsolve_table.skip). */
enum skip { SKIP_NONE, SKIP_MARK, SKIP_USE };

/* A mixed decision of the polished profile. */
struct mixed {
	int64_t key;                        /* rank * dec + decision */
	uint32_t support;                   /* options that may be taken, a bit each */
	uint32_t pad;                       /* 0 */
	double p[CDSOLVE_MAX_CULTISTS - 1]; /* by option (victim slot or face) */
};

struct work;
struct turn_mix;
/* One backup of a state (backup_of). */
typedef void backup_fn(const struct work *wk, long idx, double *out, struct turn_mix *m);

/* Builder-only data: the transitions. */
struct work {
	const struct cdsolve_table *t;
	backup_fn *backup; /* the copy of backup_of this processor runs */
	int32_t *next;     /* [state][victim slot][curse face][response face] */
	uint8_t *playing;  /* [state]: at least two cultists sane */
	uint8_t *sum;      /* [state]: the sanity sum */
	int32_t *order;    /* the playing states by rising sanity sum */
	int32_t *pos;      /* [state]: its row while solving (work_permute), or
	                      NULL when rows are in rank order */
	int32_t *rank;     /* [row]: the rank of the state in it */
	int32_t *mid;      /* [row][victim slot][curse face]: rank of the sanity
	                      after the curse */
	uint8_t *dead;     /* [row]: victim slots (a bit each) the last marking
	                      sweep found cut and the sweeps since added, or
	                      NULL */
	long playing_count;
};

static const struct cdsolve_table *provider_table(int n, int per_player);
static cdsolve_provider_fn provider;

/* The "solver" policy's hook (cdice_set_solver): the provided table's
 * profile, or -1 when there is no table for g. */
static int solver_choice(const struct cdice *g, const struct game_step *step, struct rng *rng)
{
	const struct cdsolve_table *t = provider_table(g->n, g->per_player);

	if (!t)
		return -1;
	return step->options[cdsolve_pick(t, g, step, rng)];
}

void cdsolve_set_provider(cdsolve_provider_fn fn)
{
	provider = fn;
	cdice_set_solver(fn ? solver_choice : NULL);
}

const struct cdsolve_table *cdsolve_provided(int n, int per_player)
{
	return provider_table(n, per_player);
}

static const struct cdsolve_table *provider_table(int n, int per_player)
{
	if (!provider || n < CDICE_MIN || n > CDSOLVE_MAX_CULTISTS)
		return NULL;
	return provider(n, per_player);
}

/* Rank of the sanity vector s[0..n-1] (sum at most 3n) among all such
 * vectors in lexicographic order. */
static long rank_of(const struct cdsolve_table *t, const uint8_t *s)
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
static long rank_from(const struct cdsolve_table *t, const struct cdice *g, int caster)
{
	long r = 0;
	int n = t->n, left = TOKENS(n);

	for (int j = 0, i = caster; j < n; j++, i = i + 1 == n ? 0 : i + 1) {
		assert(g->sanity[i] <= left);
		r += t->below[n - 1 - j][left][g->sanity[i]];
		left -= g->sanity[i];
	}
	return r;
}

/* Value to the owner of seat q of the value vector v (n seats). */
static double owner_value(const struct cdsolve_table *t, const double *v, int q)
{
	double sum = 0;

	if (!t->per_player)
		return v[q];
	for (int j = q % 2; j < t->n; j += 2)
		sum += v[j];
	return sum;
}

/* ---- building ---- */

static void init_ranks(struct cdsolve_table *t)
{
	for (int k = 0; k <= CDSOLVE_MAX_CULTISTS; k++) {
		for (int r = 0; r <= TMAX; r++) {
			/* C(r + k, k) */
			long c = 1;
			for (int i = 1; i <= k; i++)
				c = c * (r + i) / i;
			t->cnt[k][r] = c;
		}
	}
	for (int k = 0; k <= CDSOLVE_MAX_CULTISTS; k++) {
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
static void position(const struct cdsolve_table *t, const uint8_t *s, struct cdice *g)
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

/* Code of the position after a complete turn: the next state's row (seen
 * from the next Caster, seat 1), or the row of its end. */
static int32_t turn_code(const struct cdsolve_table *t, const struct cdice *g)
{
	int n = t->n;

	if (g->phase == CDICE_OVER)
		return (int32_t)(t->stats.states + (g->winner >= 0 ? (g->winner - 1 + n) % n : n));
	assert(g->phase == CDICE_VICTIM && g->caster == 1);
	return (int32_t)rank_from(t, g, 1);
}

/* Fills the transitions of state `idx` (sanity s). */
static void build_state(struct work *wk, long idx, const uint8_t *s)
{
	const struct cdsolve_table *t = wk->t;
	int slots = t->n - 1, sane = 0, sum = 0;
	struct cdice g;

	for (int i = 0; i < t->n; i++) {
		sane += s[i] > 0;
		sum += s[i];
	}
	wk->playing[idx] = sane >= 2;
	wk->sum[idx] = (uint8_t)sum;
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

/* The lexicographic successor of the sanity vector s (sum *sum): the last
 * entry that can grow grows, the entries after it restart at 0. 0 after
 * the last vector. */
static int successor(const struct cdsolve_table *t, uint8_t *s, int *sum)
{
	for (int i = t->n - 1; i >= 0; i--) {
		if (*sum < TOKENS(t->n)) {
			s[i]++;
			(*sum)++;
			return 1;
		}
		*sum -= s[i];
		s[i] = 0;
	}
	return 0;
}

/* Fills wk->mid (allocated here; once) for the rows as they lie now:
 * the rank of the sanity after each curse face, for the polished
 * profile's Victim's Eye. 0, or -1 when memory runs out. */
static int work_mid(struct work *wk)
{
	const struct cdsolve_table *t = wk->t;
	size_t slots = (size_t)t->n - 1;
	uint8_t s[CDICE_MAX] = { 0 };
	long idx = 0;
	int sum = 0;

	if (wk->mid)
		return 0;
	wk->mid = calloc((size_t)t->stats.states * slots * PLAIN, sizeof(int32_t));
	if (!wk->mid)
		return -1;
	do {
		if (wk->playing[idx]) {
			size_t row = wk->pos ? (size_t)wk->pos[idx] : (size_t)idx;
			int32_t *md = wk->mid + row * slots * PLAIN;
			struct cdice g;
			position(t, s, &g);
			for (size_t k = 0; k < slots; k++) {
				struct cdice a = g;
				if (cdice_victim(&a, (int)k + 1, NULL) != GAME_OK)
					continue;
				for (int cf = 0; cf < PLAIN; cf++) {
					struct cdice b = a;
					cdice_roll(&b, (enum cdice_face)cf, NULL);
					md[k * PLAIN + (size_t)cf] = (int32_t)rank_from(t, &b, 0);
				}
			}
		}
		idx++;
	} while (successor(t, s, &sum));
	return 0;
}

/* A mark in work.sum while build_all orders the states (no sum is this
 * large). */
#define PLACED 0xff

/* Enumerates every sanity vector in rank order, filling transitions. */
static void build_all(struct work *wk)
{
	const struct cdsolve_table *t = wk->t;
	uint8_t s[CDICE_MAX] = { 0 };
	long idx = 0;
	int n = t->n, sum = 0;

	do {
		assert(rank_of(t, s) == idx);
		build_state(wk, idx++, s);
	} while (successor(t, s, &sum));
	assert(idx == t->stats.states);
	/* Sweep order: positions with fewer tokens in the cultists' hands
	 * first. They are nearer the end, so a sweep carries the values of
	 * the ends further back than in rank order. Within a sum, by orbits
	 * of the rotation: most turns that keep the sum (Tentacle against
	 * Tentacle, a Yellow Sign undone by an Elder Sign) leave every sanity
	 * as it was and pass the cup, so the next turn starts at rot(s), the
	 * vector seen from seat 1; an orbit s, rot(s), rot(rot(s)), ... is
	 * swept from its end back to s, each state after the one its turn
	 * mostly leads to. One pass in rank order puts each orbit at the end
	 * of its sum's part of wk->order (at[sum]), marking its states in
	 * wk->sum. */
	{
		long at[TMAX + 2] = { 0 };
		for (long k = 0; k < idx; k++)
			at[wk->sum[k] + 1] += wk->playing[k];
		for (int total = 1; total <= TOKENS(n) + 1; total++)
			at[total] += at[total - 1];
		wk->playing_count = at[TOKENS(n) + 1];
		sum = 0;
		memset(s, 0, sizeof(s));
		for (long k = 0; k < idx; k++, successor(t, s, &sum)) {
			int total = wk->sum[k];
			long from;
			uint8_t r[CDICE_MAX];
			if (!wk->playing[k] || total == PLACED)
				continue;
			from = at[total];
			memcpy(r, s, sizeof(r));
			for (;;) {
				long rk = rank_of(t, r);
				uint8_t first = r[0];
				if (wk->sum[rk] == PLACED)
					break;
				wk->sum[rk] = PLACED;
				wk->order[at[total]++] = (int32_t)rk;
				memmove(r, r + 1, (size_t)n - 1);
				r[n - 1] = first;
			}
			for (long lo = from, hi = at[total] - 1; lo < hi; lo++, hi--) {
				int32_t x = wk->order[lo];
				wk->order[lo] = wk->order[hi];
				wk->order[hi] = x;
			}
		}
		/* each placed state's sum back: its layer in order */
		for (int total = 0, o = 0; total <= TOKENS(n); total++)
			for (; o < at[total]; o++)
				wk->sum[wk->order[o]] = (uint8_t)total;
	}
}

/* The rows of the ends of a game, after the turn starts in `rows` (width
 * values a row, next-Caster coordinates): seat j wins, then Cthulhu. */
static void set_ends(const struct cdsolve_table *t, double *rows, int width, int groups)
{
	double *e = rows + (size_t)t->stats.states * (size_t)width;

	memset(e, 0, sizeof(double) * (size_t)width * (size_t)(t->n + 1));
	for (int j = 0; j < t->n; j++)
		e[(size_t)j * (size_t)width + (size_t)(groups == 2 && t->per_player ? j % 2 : j)] =
		    1;
	if (groups == 0) /* the value rows: Cthulhu's column */
		e[(size_t)t->n * (size_t)width + (size_t)t->n] = 1;
}

static void axpy(int width, double a, const double *x, double *y)
{
	for (int i = 0; i < width; i++)
		y[i] += a * x[i];
}

/* Value to the owner of next-coordinate seat q of the row v. */
static inline double own(const struct cdsolve_table *t, const double *v, int q)
{
	int j = q % 2;

	if (!t->per_player)
		return v[q];
	/* the same sum as owner_value's loop, unrolled (2 or 3 cultists) */
	return t->per_player == 2 ? v[j] + v[j + 2] : v[j] + v[j + 2] + v[j + 4];
}

/* 2^(j/32), j = 0..31. */
static const double exp2_32[32] = {
	0x1.0000000000000p+0, 0x1.059b0d3158574p+0, 0x1.0b5586cf9890fp+0, 0x1.11301d0125b51p+0,
	0x1.172b83c7d517bp+0, 0x1.1d4873168b9aap+0, 0x1.2387a6e756238p+0, 0x1.29e9df51fdee1p+0,
	0x1.306fe0a31b715p+0, 0x1.371a7373aa9cbp+0, 0x1.3dea64c123422p+0, 0x1.44e086061892dp+0,
	0x1.4bfdad5362a27p+0, 0x1.5342b569d4f82p+0, 0x1.5ab07dd485429p+0, 0x1.6247eb03a5585p+0,
	0x1.6a09e667f3bcdp+0, 0x1.71f75e8ec5f74p+0, 0x1.7a11473eb0187p+0, 0x1.82589994cce13p+0,
	0x1.8ace5422aa0dbp+0, 0x1.93737b0cdc5e5p+0, 0x1.9c49182a3f090p+0, 0x1.a5503b23e255dp+0,
	0x1.ae89f995ad3adp+0, 0x1.b7f76f2fb5e47p+0, 0x1.c199bdd85529cp+0, 0x1.cb720dcef9069p+0,
	0x1.d5818dcfba487p+0, 0x1.dfc97337b9b5fp+0, 0x1.ea4afa2a490dap+0, 0x1.f50765b6e4540p+0,
};

/* exp(y) for y in [-CDSOLVE_CUT, 0] (the logit weights), within about an
 * ulp, in plain arithmetic so that it inlines: y = (32 m + j) ln 2 / 32 + r
 * with |r| <= ln 2 / 64, exp(y) = 2^m 2^(j/32) exp(r), exp(r) by its Taylor
 * polynomial to r^6 (the rest below 1e-17 of it), 2^m built from its bits
 * (m >= -58: a normal number). */
#define EXP_SHIFT  0x1.8p52                     /* rounds to an integer when added */
#define EXP_32LN2  (32 / 0x1.62e42fefa39efp-1)  /* 32 / ln 2 */
#define EXP_LN2_HI (0x1.62e42feep-1 / 32)       /* ln 2 / 32, its high bits */
#define EXP_LN2_LO (0x1.a39ef35793c76p-33 / 32) /* and the rest */
/* exp(r) by its Taylor polynomial to r^6; r a double or a vector of them. */
#define EXP_POLY(r)                                                                                \
	(1 +                                                                                       \
	 (r) * (1 + (r) * (0.5 + (r) * (1.0 / 6 + (r) * (1.0 / 24 + (r) * (1.0 / 120 +             \
	                                                                   (r) * (1.0 / 720)))))))

static inline double exp_cut(double y)
{
	double kf = (y * EXP_32LN2 + EXP_SHIFT) - EXP_SHIFT;
	double r = (y - kf * EXP_LN2_HI) - kf * EXP_LN2_LO, p, scale;
	int k = (int)kf, j = k & 31;
	uint64_t bits = (uint64_t)((k - j) / 32 + 1023) << 52;

	p = EXP_POLY(r);
	memcpy(&scale, &bits, sizeof(scale));
	return scale * (exp2_32[j] * p);
}

/* The logit weights of count options worth x[k] at 1 / tau = inv (see
 * cdsolve_choice), normalised into p. */
static inline void logit(double inv, const double *x, int count, double *p)
{
	double top = x[0], z = 0;

	for (int k = 1; k < count; k++)
		top = x[k] > top ? x[k] : top;
	for (int k = 0; k < count; k++) {
		double y = (x[k] - top) * inv;
		p[k] = y < -CDSOLVE_CUT ? 0 : y == 0 ? 1 : exp_cut(y);
		z += p[k];
	}
	z = 1 / z;
	for (int k = 0; k < count; k++)
		p[k] *= z;
}

void cdsolve_choice(double tau, const double *x, int count, double *p)
{
	if (tau <= 0) {
		for (int k = 0; k < count; k++)
			p[k] = 1.0 / count;
		return;
	}
	logit(1 / tau, x, count, p);
}

/* The profile's choices in one turn start: victim slot probabilities
 * (0 for an illegal victim), the Caster's Eye after each victim, the
 * Victim's Eye after each victim and curse face. */
struct turn_mix {
	double victim[CDSOLVE_MAX_CULTISTS];
	double caster_eye[CDSOLVE_MAX_CULTISTS][PLAIN];
	double victim_eye[CDSOLVE_MAX_CULTISTS][PLAIN][PLAIN];
	/* each option's worth to its chooser, the same way */
	double q_victim[CDSOLVE_MAX_CULTISTS];
	double q_caster_eye[CDSOLVE_MAX_CULTISTS][PLAIN];
	double q_victim_eye[CDSOLVE_MAX_CULTISTS][PLAIN][PLAIN];
};

/* Chooses among count options worth x[k]: cdsolve_choice at the table's
 * temperature. */
static inline void choose(const struct cdsolve_table *t, double inv, const double *x, int count,
                          double *p)
{
	if (t->uniform) {
		for (int k = 0; k < count; k++)
			p[k] = 1.0 / count;
		return;
	}
	logit(inv, x, count, p);
}

static const int faces_ids[PLAIN] = { 0, 1, 2, 3 };

/* The index in t->mix of the mixed decision `key`, or -1 when there is
 * none. */
static long mixed_at(const struct cdsolve_table *t, int64_t key)
{
	long lo = 0, hi = t->mixes;

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		if (t->mix[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->mixes && t->mix[lo].key == key ? lo : -1;
}

/* The profile at decision d of rank r: probabilities into p of the count
 * options ids[l] (victim slots or faces) worth x[l] to the chooser. Before
 * the polish the logit choice at 1 / tau = inv (or the uniform one); then
 * the option taken, or for a mixed decision its probabilities (frozen) or
 * the logit choice over its support. */
static inline void decide(const struct cdsolve_table *t, double inv, long r, int d, const double *x,
                          const int *ids, int count, double *p)
{
	const struct mixed *e;
	double z = 0;
	uint8_t code;
	long at;

	if (!t->pol) {
		choose(t, inv, x, count, p);
		return;
	}
	code = t->pol[(size_t)r * (size_t)t->dec + (size_t)d];
	at = code == MIXED ? mixed_at(t, (int64_t)r * t->dec + d) : -1;
	e = at >= 0 ? &t->mix[at] : NULL;
	if (!e) {
		for (int l = 0; l < count; l++)
			z += p[l] = ids[l] == code;
	} else if (t->frozen) {
		for (int l = 0; l < count; l++)
			z += p[l] = e->p[ids[l]];
	} else {
		double top = -HUGE_VAL;
		for (int l = 0; l < count; l++)
			if (e->support >> ids[l] & 1 && x[l] > top)
				top = x[l];
		for (int l = 0; l < count; l++) {
			double y = (x[l] - top) * inv;
			p[l] = !(e->support >> ids[l] & 1) || y < -CDSOLVE_CUT ? 0
			       : y == 0                                        ? 1
			                                                       : exp_cut(y);
			z += p[l];
		}
	}
	/* a profile read from bytes that names no option here (only a
	 * damaged file can): the first */
	if (!(z > 0)) {
		for (int l = 0; l < count; l++)
			p[l] = l == 0;
		return;
	}
	if (z != 1)
		for (int l = 0; l < count; l++)
			p[l] /= z;
}

/* GCC and Clang: the logit profile's sweeps take the victim slots four
 * faces (and four victims) to a vector (their vector types: a 256-bit
 * register in backup()'s AVX2 copy, two 128-bit ones otherwise), with the
 * same operations in the same order as the scalar code in backup(), so
 * the same bits in the default copy ("the same bits" below); the AVX2
 * copy fuses products with sums where the compiler finds them, in the
 * vector and the scalar code alike, so there the two agree to about an
 * ulp of each sum. Elsewhere backup() takes the slots one by one. */
#if (defined(__clang__) && __clang_major__ >= 10) ||                                               \
    (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 7)
_Static_assert(PLAIN == 4 && WIDTH_MAX == 8, "a face to a lane, a row in two vectors");
typedef double v4d __attribute__((vector_size(4 * sizeof(double))));
typedef int64_t v4i __attribute__((vector_size(4 * sizeof(double))));
typedef uint64_t v4u __attribute__((vector_size(4 * sizeof(double))));

/* logit()'s weights of four options worth x to the chooser, the best of
 * them (and of any others) worth top, lane by lane (the same bits) into
 * *e, unnormalised: an exponent below -CDSOLVE_CUT is taken at 0 and its
 * weight masked to 0. */
__attribute__((always_inline)) static inline void weights4(double inv, double top, const v4d *x,
                                                           v4d *e)
{
	v4d y, big, kf, r, poly, scale, tab;
	v4i cut, k, j;
	v4u bits;

	y = (*x - top) * inv;
	cut = y < -CDSOLVE_CUT;
	y = (v4d)((v4i)y & ~cut);
	/* every weight 1 (the best) or 0 (cut), as at low temperatures: no
	 * exp to take (exp_cut(0) is 1 exactly) */
	k = cut | (y == 0);
	if (k[0] & k[1] & k[2] & k[3]) {
		*e = (v4d)((v4i)(v4d){ 1, 1, 1, 1 } & ~cut);
		return;
	}
	/* exp_cut, lane by lane */
	big = y * EXP_32LN2 + EXP_SHIFT;
	kf = big - EXP_SHIFT;
	r = (y - kf * EXP_LN2_HI) - kf * EXP_LN2_LO;
	k = (v4i)big - (int64_t)0x4338000000000000;
	j = k & 31;
	bits = ((v4u)(k - j) << 47) + ((uint64_t)1023 << 52);
	scale = (v4d)bits;
	tab = (v4d){ exp2_32[j[0]], exp2_32[j[1]], exp2_32[j[2]], exp2_32[j[3]] };
	poly = EXP_POLY(r);
	*e = scale * (tab * poly);
	*e = (v4d)((v4i)*e & ~cut);
}

/* The logit choice among the PLAIN faces worth x to the chooser
 * (logit(), the same bits), then each face's chance, rolled or chosen
 * after an Eye, into *p. */
__attribute__((always_inline)) static inline void faces4(double inv, const v4d *x, v4d *p)
{
	double top = (*x)[0], z;
	v4d e;

	for (int l = 1; l < PLAIN; l++)
		top = (*x)[l] > top ? (*x)[l] : top;
	weights4(inv, top, x, &e);
	z = 1 / (((e[0] + e[1]) + e[2]) + e[3]);
	*p = (v4d){ face_p[0], face_p[1], face_p[2], face_p[3] } + face_p[CDICE_EYE] * (e * z);
}

/* logit(inv, x, count, p) for count (1..CDSOLVE_MAX_CULTISTS - 1) victims,
 * the same bits: the first four side by side, a fifth alone. */
_Static_assert(CDSOLVE_MAX_CULTISTS - 1 <= 5, "victims_plain takes at most five victims");
__attribute__((always_inline)) static inline void victims_plain(double inv, const double *x,
                                                                int count, double *p)
{
	double top = x[0], z, e4 = 0;
	v4d xs, e;

	for (int l = 1; l < count; l++)
		top = x[l] > top ? x[l] : top;
	xs = (v4d){ x[0], count > 1 ? x[1] : top, count > 2 ? x[2] : top, count > 3 ? x[3] : top };
	weights4(inv, top, &xs, &e);
	for (int l = count; l < 4; l++)
		e[l] = 0;
	if (count > 4) {
		double y = (x[4] - top) * inv;
		e4 = y < -CDSOLVE_CUT ? 0 : y == 0 ? 1 : exp_cut(y);
	}
	z = 1 / ((((e[0] + e[1]) + e[2]) + e[3]) + e4);
	e *= z;
	for (int l = 0; l < count && l < 4; l++)
		p[l] = e[l];
	if (count > 4)
		p[4] = e4 * z;
}

/* The victim slots of one turn start under the logit profile at
 * 1 / tau = inv, the rows of its turns' ends at nx (as wk->next): what
 * backup() computes for them, the same bits, four faces to a vector, each
 * stage over every legal slot before the next (so that their rows are
 * fetched together and their weights computed side by side). Slots with
 * their bit set in skip are left out as if illegal (their weight taken to
 * be 0). Each legal slot's value vector into cv[l] (WIDTH_MAX), its worth
 * to the Caster into xv[l], the slot into slot_of[l]; returns the number
 * of legal slots. */
__attribute__((always_inline)) static inline int slots_plain(const struct cdsolve_table *t,
                                                             const int32_t *nx, double inv,
                                                             double (*cv)[WIDTH_MAX], double *xv,
                                                             int *slot_of, unsigned skip)
{
	const int n = t->n, slots = n - 1;
	const double *rows[CDSOLVE_MAX_CULTISTS][PLAIN][PLAIN];
	v4d xs[CDSOLVE_MAX_CULTISTS][PLAIN], ps[CDSOLVE_MAX_CULTISTS][PLAIN];
	v4d lo[CDSOLVE_MAX_CULTISTS][PLAIN], hi[CDSOLVE_MAX_CULTISTS][PLAIN];
	v4d xc[CDSOLVE_MAX_CULTISTS], qs[CDSOLVE_MAX_CULTISTS], a, b;
	double rv[WIDTH_MAX];
	int legal = 0;

	for (int k = 0; k < slots; k++) {
		const int32_t *nk = nx + (size_t)k * PLAIN * PLAIN;
		if (skip >> k & 1 || nk[0] == INT32_MIN)
			continue;
		for (int cf = 0; cf < PLAIN; cf++) {
			const double **row = rows[legal][cf];
			for (int rf = 0; rf < PLAIN; rf++)
				row[rf] = t->w + (size_t)nk[cf * PLAIN + rf] * WIDTH_MAX;
			xs[legal][cf] = (v4d){ own(t, row[0], k), own(t, row[1], k),
				               own(t, row[2], k), own(t, row[3], k) };
		}
		slot_of[legal++] = k;
	}
	for (int l = 0; l < legal; l++)
		for (int cf = 0; cf < PLAIN; cf++)
			faces4(inv, &xs[l][cf], &ps[l][cf]);
	for (int l = 0; l < legal; l++) {
		for (int cf = 0; cf < PLAIN; cf++) {
			const double **row = rows[l][cf];
			v4d p = ps[l][cf];
			memcpy(&a, row[0], sizeof(a));
			memcpy(&b, row[0] + 4, sizeof(b));
			lo[l][cf] = p[0] * a;
			hi[l][cf] = p[0] * b;
			for (int rf = 1; rf < PLAIN; rf++) {
				memcpy(&a, row[rf], sizeof(a));
				memcpy(&b, row[rf] + 4, sizeof(b));
				lo[l][cf] += p[rf] * a;
				hi[l][cf] += p[rf] * b;
			}
		}
		for (int cf = 0; cf < PLAIN; cf++) {
			memcpy(rv, &lo[l][cf], sizeof(a));
			memcpy(rv + 4, &hi[l][cf], sizeof(b));
			xc[l][cf] = own(t, rv, n - 1);
		}
	}
	for (int l = 0; l < legal; l++)
		faces4(inv, &xc[l], &qs[l]);
	for (int l = 0; l < legal; l++) {
		v4d q = qs[l];
		a = q[0] * lo[l][0];
		b = q[0] * hi[l][0];
		for (int cf = 1; cf < PLAIN; cf++) {
			a += q[cf] * lo[l][cf];
			b += q[cf] * hi[l][cf];
		}
		memcpy(cv[l], &a, sizeof(a));
		memcpy(cv[l] + 4, &b, sizeof(b));
		xv[l] = own(t, cv[l], n - 1);
	}
	return legal;
}
#else
/* Elsewhere backup() takes the slots one by one (slots_plain: none). */
static inline int slots_plain(const struct cdsolve_table *t, const int32_t *nx, double inv,
                              double (*cv)[WIDTH_MAX], double *xv, int *slot_of, unsigned skip)
{
	(void)t, (void)nx, (void)inv, (void)cv, (void)xv, (void)slot_of, (void)skip;
	return 0;
}

static inline void victims_plain(double inv, const double *x, int count, double *p)
{
	logit(inv, x, count, p);
}
#endif

/* On x86-64 with GCC or Clang and glibc, backup() is compiled twice: for
 * processors with AVX2 and FMA (four doubles to a register: its rows
 * summed, and in the sweeps the logit weights of four faces, slots_plain;
 * a product and a sum rounded once where the file's -ffp-contract=fast
 * lets the compiler fuse them) and for any other; work_new picks the one
 * the processor runs. The two round differently, so a table
 * solved on one kind of processor may differ from one solved on the other
 * in the last bits of its values, each as near the logit profile. */
#if defined(__x86_64__) && defined(__GLIBC__) &&                                                   \
    ((defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 6) || __clang_major__ >= 14)
#define BACKUP_DISPATCH 1
#define BACKUP_INLINE   __attribute__((always_inline)) inline
#else
#define BACKUP_DISPATCH 0
#define BACKUP_INLINE
#endif

/* One backup of state idx under the table's profile: its values (width,
 * the state's own coordinates) into out, the choices into mix (NULL: not
 * wanted). Rows are read from t->w. In the logit profile's sweeps (mix
 * NULL), t->skip says whether the victim slots marked in wk->dead[idx] are
 * left out and the mark added to (SKIP_USE) or the mark is made anew
 * (SKIP_MARK): marked are the slots worth less to the Caster than the best
 * by more than t->gap. */
static BACKUP_INLINE void backup_of(const struct work *wk, long idx, double *out,
                                    struct turn_mix *m)
{
	const struct cdsolve_table *t = wk->t;
	int n = t->n, slots = n - 1, legal = 0, slot_of[CDSOLVE_MAX_CULTISTS] = { 0 };
	double cv[CDSOLVE_MAX_CULTISTS][WIDTH_MAX], xv[CDSOLVE_MAX_CULTISTS] = { 0 },
	                                            pv[CDSOLVE_MAX_CULTISTS];
	double acc[WIDTH_MAX] = { 0 };
	double inv = t->uniform ? 0 : 1 / t->tau;
	const double eye = face_p[CDICE_EYE];
	long r = wk->rank ? wk->rank[idx] : idx;
	int plain = !t->pol && !t->uniform; /* the logit profile: decide() inlined */
	/* victim slots whose weight is taken to be 0 */
	unsigned skip = plain && !m && t->skip == SKIP_USE ? wk->dead[idx] : 0;

	/* a sweep under a profile whose victim here is one slot: that slot's
	 * values alone (the others' weights are 0: the same sums) */
	if (t->pol && !m) {
		uint8_t code = t->pol[(size_t)r * (size_t)t->dec];
		if (code < slots &&
		    wk->next[((size_t)idx * slots + code) * PLAIN * PLAIN] != INT32_MIN)
			skip = ((1u << slots) - 1) & ~(1u << code);
	}

	if (plain && !m) /* the sweeps: every victim slot at once */
		legal = slots_plain(t, wk->next + (size_t)idx * slots * PLAIN * PLAIN, inv, cv, xv,
		                    slot_of, skip);
	for (int k = legal ? slots : 0; k < slots; k++) {
		const int32_t *nx = wk->next + ((size_t)idx * slots + k) * PLAIN * PLAIN;
		double rv[PLAIN][WIDTH_MAX], x[PLAIN], xc[PLAIN], p[PLAIN], q[PLAIN];

		if (m)
			m->victim[k] = 0;
		if (skip >> k & 1 || nx[0] == INT32_MIN)
			continue;
		for (int cf = 0; cf < PLAIN; cf++) {
			const double *row[PLAIN];
			for (int rf = 0; rf < PLAIN; rf++) {
				row[rf] = t->w + (size_t)nx[cf * PLAIN + rf] * WIDTH_MAX;
				x[rf] = own(t, row[rf], k);
			}
			if (plain)
				logit(inv, x, PLAIN, p);
			else
				decide(t, inv,
				       t->pol ? wk->mid[((size_t)idx * slots + k) * PLAIN + cf] : 0,
				       n + k, x, faces_ids, PLAIN, p);
			if (m)
				for (int rf = 0; rf < PLAIN; rf++) {
					m->victim_eye[k][cf][rf] = p[rf];
					m->q_victim_eye[k][cf][rf] = x[rf];
				}
			/* each face's chance: rolled, or chosen after an Eye */
			for (int rf = 0; rf < PLAIN; rf++)
				p[rf] = face_p[rf] + eye * p[rf];
			for (int i = 0; i < WIDTH_MAX; i++)
				rv[cf][i] = p[0] * row[0][i] + p[1] * row[1][i] + p[2] * row[2][i] +
				            p[3] * row[3][i];
			xc[cf] = own(t, rv[cf], n - 1);
		}
		if (plain)
			logit(inv, xc, PLAIN, q);
		else
			decide(t, inv, r, 1 + k, xc, faces_ids, PLAIN, q);
		if (m)
			for (int cf = 0; cf < PLAIN; cf++) {
				m->caster_eye[k][cf] = q[cf];
				m->q_caster_eye[k][cf] = xc[cf];
			}
		for (int cf = 0; cf < PLAIN; cf++)
			q[cf] = face_p[cf] + eye * q[cf];
		for (int i = 0; i < WIDTH_MAX; i++)
			cv[legal][i] =
			    q[0] * rv[0][i] + q[1] * rv[1][i] + q[2] * rv[2][i] + q[3] * rv[3][i];
		xv[legal] = own(t, cv[legal], n - 1);
		if (m)
			m->q_victim[k] = xv[legal];
		slot_of[legal++] = k;
	}
	assert(legal > 0);
	if (plain && !m && t->skip != SKIP_NONE) {
		double top = xv[0];
		unsigned cut = 0;
		for (int l = 1; l < legal; l++)
			top = xv[l] > top ? xv[l] : top;
		for (int l = 0; l < legal; l++)
			if (xv[l] < top - t->gap)
				cut |= 1u << slot_of[l];
		wk->dead[idx] = (uint8_t)(cut | skip);
	}
	if (plain && !m)
		victims_plain(inv, xv, legal, pv);
	else if (plain)
		logit(inv, xv, legal, pv);
	else
		decide(t, inv, r, 0, xv, slot_of, legal, pv);
	for (int l = 0; l < legal; l++) {
		for (int i = 0; i < WIDTH_MAX; i++)
			acc[i] += pv[l] * cv[l][i];
		if (m)
			m->victim[slot_of[l]] = pv[l];
	}
	/* next-Caster coordinates to this state's own */
	out[0] = acc[n - 1];
	for (int i = 1; i < n; i++)
		out[i] = acc[i - 1];
	out[n] = acc[n];
	out[n + 1] = acc[n + 1] + 1; /* the turn just played */
}

#if BACKUP_DISPATCH
__attribute__((target("avx2,fma"))) static void backup_avx2(const struct work *wk, long idx,
                                                            double *out, struct turn_mix *m)
{
	backup_of(wk, idx, out, m);
}
#endif

static void backup_base(const struct work *wk, long idx, double *out, struct turn_mix *m)
{
	backup_of(wk, idx, out, m);
}

/* The copy of backup() this processor runs. */
static backup_fn *backup_pick(void)
{
#if BACKUP_DISPATCH
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return backup_avx2;
#endif
	return backup_base;
}

/* backup_of() in the copy work_new picked for this processor. */
static inline void backup(const struct work *wk, long idx, double *out, struct turn_mix *m)
{
	wk->backup(wk, idx, out, m);
}

/* One Gauss-Seidel sweep (states by rising sum of sanity), each state
 * taking its backup; returns the largest change it made to a win chance.
 * What each value of a playing state moved goes into moved (NULL: not
 * wanted; the other entries untouched). */
static double sweep(struct cdsolve_table *t, const struct work *wk, float *moved)
{
	double res = 0, v[WIDTH_MAX];

	for (long o = 0; o < wk->playing_count; o++) {
		long idx = wk->order[o];
		double *w = t->w + (size_t)idx * WIDTH_MAX;
		backup(wk, idx, v, NULL);
		for (int i = 0; i <= t->n + 1; i++) {
			double d = fabs(v[i] - w[i]), was = w[i];
			if (d > res && i <= t->n)
				res = d;
			w[i] += t->damp * (v[i] - w[i]);
			if (moved)
				moved[(size_t)idx * WIDTH_MAX + (size_t)i] = (float)(w[i] - was);
		}
	}
	return res;
}

/* Plain Gauss-Seidel sweeps (the uniform profile, a linear map that
 * contracts) until the residual is at most eps or `cap` sweeps are spent.
 * Returns 1 when converged. */
static int converge_plain(struct cdsolve_table *t, const struct work *wk, double eps, int cap)
{
	for (int s = 0; s < cap; s++) {
		double res = sweep(t, wk, NULL);
		t->stats.sweeps++;
		t->stats.residual = res;
		if (res <= eps)
			return 1;
	}
	return 0;
}

/* Anderson acceleration (Walker and Ni 2011, "type II", the last
 * CDSOLVE_AA_DEPTH differences) of the sweeps: g is the table after a
 * sweep, f what the sweep moved it by; the next sweep starts from
 * g - dG gamma, gamma minimising |f - dF gamma| (least squares over every
 * value). What a sweep moved and the differences are kept as float: they
 * only steer the next start, the sweeps themselves stay in double. x and
 * f take turns as the f of the last sweep and of the one before (0 where
 * no sweep moves). */
struct accel {
	size_t len; /* values accelerated: states * width */
	float *x, *f;
	double *g;
	float *df[CDSOLVE_AA_DEPTH], *dg[CDSOLVE_AA_DEPTH];
	/* by slot: the differences' inner products, and each with f */
	double gram[CDSOLVE_AA_DEPTH][CDSOLVE_AA_DEPTH], rhs[CDSOLVE_AA_DEPTH];
};

static void accel_free(struct accel *a)
{
	free(a->x);
	free(a->f);
	free(a->g);
	for (int i = 0; i < CDSOLVE_AA_DEPTH; i++) {
		free(a->df[i]);
		free(a->dg[i]);
	}
}

/* 0, or -1 when memory runs out (a freed then). */
static int accel_new(struct accel *a, const struct cdsolve_table *t)
{
	int ok;

	memset(a, 0, sizeof(*a));
	a->len = (size_t)t->stats.states * (size_t)t->width;
	a->x = calloc(a->len, sizeof(float));
	a->f = calloc(a->len, sizeof(float));
	a->g = malloc(a->len * sizeof(double));
	ok = a->x && a->f && a->g;
	for (int i = 0; i < CDSOLVE_AA_DEPTH; i++) {
		a->df[i] = malloc(a->len * sizeof(float));
		a->dg[i] = malloc(a->len * sizeof(float));
		ok = ok && a->df[i] && a->dg[i];
	}
	if (!ok) {
		accel_free(a);
		return -1;
	}
	return 0;
}

static size_t accel_bytes(const struct cdsolve_table *t)
{
	return (size_t)t->stats.states * (size_t)t->width *
	       (sizeof(double) + (2 + 2 * CDSOLVE_AA_DEPTH) * sizeof(float));
}

/* gamma[0..m-1] solving the m x m normal equations in A (augmented with
 * the right-hand side in column m), Tikhonov-regularised; A is spoilt. */
static void least_squares(double (*A)[CDSOLVE_AA_DEPTH + 1], int m, double *gamma)
{
	double tr = 0;

	for (int i = 0; i < m; i++)
		tr += A[i][i];
	for (int i = 0; i < m; i++)
		A[i][i] += 1e-10 * tr + 1e-300;
	for (int c = 0; c < m; c++) {
		int piv = c;
		for (int r = c + 1; r < m; r++)
			if (fabs(A[r][c]) > fabs(A[piv][c]))
				piv = r;
		for (int q = 0; q <= m; q++) {
			double tmp = A[c][q];
			A[c][q] = A[piv][q];
			A[piv][q] = tmp;
		}
		for (int r = c + 1; r < m; r++) {
			double k = A[r][c] / A[c][c];
			for (int q = c; q <= m; q++)
				A[r][q] -= k * A[c][q];
		}
	}
	for (int c = m - 1; c >= 0; c--) {
		double v = A[c][m];
		for (int q = c + 1; q < m; q++)
			v -= A[c][q] * gamma[q];
		gamma[c] = v / A[c][c];
	}
}

/* Whether any victim slot is marked (else a sweep that skips the marked
 * ones is a sweep of every slot). */
static int any_marked(const struct work *wk)
{
	for (long o = 0; o < wk->playing_count; o++)
		if (wk->dead[wk->order[o]])
			return 1;
	return 0;
}

/* Accelerated sweeps at the table's temperature until the residual is at
 * most eps (returns 1), `cap` sweeps are spent, or CDSOLVE_STALL sweeps
 * pass without a new lowest residual (returns 0; the values are then
 * wherever the sweeps left them). Once the table has spent `last_from`
 * sweeps, no colder temperature can follow this one, and a residual of
 * CDSOLVE_EPS_LAST is enough when that is more than eps.
 *
 * With work.dead (the logit profile's sweeps), every CDSOLVE_MARK_EVERY-th
 * sweep takes every victim slot and marks those worth less to the Caster
 * than the best by more than CDSOLVE_CUT temperatures (weight 0) and
 * CDSOLVE_MARGIN times the last residual; the sweeps between skip them,
 * which at a low temperature saves most of a sweep (a Caster's victims are
 * seldom near each other), and mark the victims they took that are now so
 * far below the best (a mark goes only at the next marking sweep). The
 * iteration ends only at a sweep that took every slot: when a skipping
 * sweep would end it, a marking one follows; if that one does not end it,
 * skipping stops for the rest of the call, so that the sweeps are then
 * exactly the plain ones. t->skip is SKIP_NONE again on return. */
static int converge(struct cdsolve_table *t, const struct work *wk, struct accel *a, double eps,
                    int cap, int last_from)
{
	const double loose = fmax(eps, CDSOLVE_EPS_LAST);
	size_t len = a->len;
	int mk = 0, head = 0, fresh = 1, best_at = 0, certify = 0, marked = 0;
	int skipping = wk->dead && !t->pol && !t->uniform;
	double prev = HUGE_VAL, best = HUGE_VAL;

	for (int s = 0; s < cap; s++) {
		double res;
		float *f;
		t->skip = !skipping                                ? SKIP_NONE
		          : s % CDSOLVE_MARK_EVERY == 0 || certify ? SKIP_MARK
		                                                   : SKIP_USE;
		t->gap = CDSOLVE_CUT * t->tau + CDSOLVE_MARGIN * prev;
		res = sweep(t, wk, a->x);
		t->stats.sweeps++;
		t->stats.residual = res;
		if (t->skip != SKIP_NONE)
			marked = any_marked(wk);
		if (t->stats.sweeps >= last_from)
			eps = loose;
		if (res <= eps && (t->skip != SKIP_USE || !marked)) {
			t->skip = SKIP_NONE;
			return 1;
		}
		if (certify)
			skipping = 0;
		certify = res <= eps;
		if (res < best) {
			best = res;
			best_at = s;
		} else if (s - best_at >= CDSOLVE_STALL) {
			t->skip = SKIP_NONE;
			return 0;
		}
		if (res > 4 * prev) { /* the history misleads: start it again */
			mk = 0;
			fresh = 1;
		}
		prev = res;
		/* f: what the sweep moved (a->x), now a->f; in one pass the
		 * newest differences, g, the newest row of the differences'
		 * Gram matrix (the older rows kept) and dF' f */
		f = a->x;
		a->x = a->f;
		a->f = f;
		if (!fresh) {
			float *ndf = a->df[head], *ndg = a->dg[head];
			const float *df[CDSOLVE_AA_DEPTH];
			double gram[CDSOLVE_AA_DEPTH] = { 0 }, rhs[CDSOLVE_AA_DEPTH] = { 0 };
			int old = mk < CDSOLVE_AA_DEPTH ? mk : CDSOLVE_AA_DEPTH - 1;
			for (int i = 0; i < old; i++)
				df[i] = a->df[(head - 1 - i + CDSOLVE_AA_DEPTH) % CDSOLVE_AA_DEPTH];
			for (size_t q = 0; q < len; q++) {
				double w = t->w[q];
				float d = (float)(f[q] - a->x[q]);
				ndf[q] = d;
				ndg[q] = (float)(w - a->g[q]);
				a->g[q] = w;
				gram[0] += (double)d * d;
				rhs[0] += (double)d * f[q];
				for (int i = 0; i < old; i++) {
					gram[1 + i] += (double)d * df[i][q];
					rhs[1 + i] += (double)df[i][q] * f[q];
				}
			}
			/* gram[i], rhs[i]: the slot i back from the newest */
			for (int i = 0; i <= old; i++) {
				int at = (head - i + CDSOLVE_AA_DEPTH) % CDSOLVE_AA_DEPTH;
				a->gram[head][at] = a->gram[at][head] = gram[i];
				a->rhs[at] = rhs[i];
			}
			head = (head + 1) % CDSOLVE_AA_DEPTH;
			mk = old + 1;
		} else {
			memcpy(a->g, t->w, len * sizeof(double));
		}
		fresh = 0;
		if (mk > 0) {
			double A[CDSOLVE_AA_DEPTH][CDSOLVE_AA_DEPTH + 1], gamma[CDSOLVE_AA_DEPTH];
			const float *dg[CDSOLVE_AA_DEPTH];
			int at[CDSOLVE_AA_DEPTH];
			for (int i = 0; i < mk; i++) {
				at[i] = (head - mk + i + CDSOLVE_AA_DEPTH) % CDSOLVE_AA_DEPTH;
				dg[i] = a->dg[at[i]];
			}
			for (int i = 0; i < mk; i++) {
				for (int j = 0; j < mk; j++)
					A[i][j] = a->gram[at[i]][at[j]];
				A[i][mk] = a->rhs[at[i]];
			}
			least_squares(A, mk, gamma);
			for (size_t q = 0; q < len; q++) {
				double d = 0;
				for (int i = 0; i < mk; i++)
					d += gamma[i] * dg[i][q];
				t->w[q] -= d;
			}
		}
	}
	t->skip = SKIP_NONE;
	return 0;
}

static void work_free(struct work *wk)
{
	free(wk->next);
	free(wk->pos);
	free(wk->playing);
	free(wk->sum);
	free(wk->order);
	free(wk->rank);
	free(wk->mid);
	free(wk->dead);
}

/* A table for n cultists and variant per_player with its ranks and no
 * values yet, or NULL for a size there is no table of (or no memory). */
static struct cdsolve_table *table_new(int n, int per_player)
{
	struct cdsolve_table *t;

	if (per_player ? (per_player < 2 || per_player > 3 || n != 2 * per_player)
	               : (n < CDICE_MIN || n > CDSOLVE_MAX_CULTISTS))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->n = n;
	t->per_player = per_player;
	/* every row one 64-byte cache line, whatever n */
	t->width = WIDTH_MAX;
	t->dec = 2 * n - 1;
	t->damp = 1;
	init_ranks(t);
	t->stats.n = n;
	t->stats.per_player = per_player;
	t->stats.states = t->cnt[n][TOKENS(n)];
	return t;
}

/* The transitions of t's states into wk; 0, or -1 when memory runs out
 * (wk freed then). */
static int work_new(struct work *wk, const struct cdsolve_table *t)
{
	size_t states = (size_t)t->stats.states, slots = (size_t)t->n - 1;

	memset(wk, 0, sizeof(*wk));
	wk->t = t;
	wk->backup = backup_pick();
	wk->next = malloc(states * slots * PLAIN * PLAIN * sizeof(int32_t));
	wk->playing = malloc(states);
	wk->sum = malloc(states);
	wk->order = malloc(states * sizeof(int32_t));
	if (!wk->next || !wk->playing || !wk->sum || !wk->order) {
		work_free(wk);
		return -1;
	}
	build_all(wk);
	if (t->pol && work_mid(wk) != 0) {
		work_free(wk);
		return -1;
	}
	return 0;
}

/* Renumbers the rows for solving: the playing states in sweep order
 * (rising sum of sanity, so that the rows a sweep reads next to each
 * other lie near each other in memory), then the others; wk->next is
 * rewritten in that numbering and wk->order becomes 0, 1, ... The rows
 * of the ends keep their place. 0, or -1 when memory runs out (wk as it
 * was then). */
static int work_permute(struct work *wk)
{
	const struct cdsolve_table *t = wk->t;
	size_t states = (size_t)t->stats.states, block = (size_t)(t->n - 1) * PLAIN * PLAIN;
	int32_t *pos = malloc(states * sizeof(int32_t)),
	        *nx = malloc(states * block * sizeof(int32_t)),
	        *rank = malloc(states * sizeof(int32_t));
	int32_t p = 0;

	assert(!wk->mid); /* work_mid follows the rows' places */
	if (!pos || !nx || !rank) {
		free(pos);
		free(nx);
		free(rank);
		return -1;
	}
	for (long o = 0; o < wk->playing_count; o++)
		pos[wk->order[o]] = p++;
	for (size_t r = 0; r < states; r++)
		if (!wk->playing[r])
			pos[r] = p++;
	for (size_t r = 0; r < states; r++) {
		const int32_t *src = wk->next + r * block;
		int32_t *dst = nx + (size_t)pos[r] * block;
		for (size_t j = 0; j < block; j++)
			dst[j] = src[j] >= 0 && (size_t)src[j] < states ? pos[src[j]] : src[j];
		rank[pos[r]] = (int32_t)r;
	}
	for (long o = 0; o < wk->playing_count; o++)
		wk->order[o] = (int32_t)o;
	free(wk->next);
	wk->next = nx;
	wk->rank = rank;
	wk->pos = pos;
	return 0;
}

/* Memory work_new takes. */
static size_t work_bytes(const struct cdsolve_table *t)
{
	size_t states = (size_t)t->stats.states, slots = (size_t)t->n - 1;

	return states * (2 + 3 * sizeof(int32_t)) +
	       states * slots * PLAIN * PLAIN * sizeof(int32_t);
}

/* `bytes` of memory on a 64-byte boundary (rows on cache lines), for
 * free(); NULL when it runs out. */
static double *rows_alloc(size_t bytes)
{
	return aligned_alloc(64, (bytes + 63) / 64 * 64);
}

/* Rows of the values: the turn starts, then the n + 1 ends. */
static size_t rows_of(const struct cdsolve_table *t)
{
	return (size_t)t->stats.states + (size_t)t->n + 1;
}

/* The values the first temperature starts from: every playing state's
 * chances split as its sanity is, Cthulhu taking CDSOLVE_GUESS of them
 * (nearer the solution than nothing, which saves sweeps), no turns left. */
static void guess(struct cdsolve_table *t, const struct work *wk)
{
	uint8_t s[CDICE_MAX] = { 0 };
	long idx = 0;
	int n = t->n, sum = 0;

	do {
		double *w = t->w + (size_t)wk->pos[idx] * WIDTH_MAX;
		memset(w, 0, WIDTH_MAX * sizeof(double));
		if (wk->playing[idx]) {
			for (int i = 0; i < n; i++)
				w[i] = (1 - CDSOLVE_GUESS) * s[i] / sum;
			w[n] = CDSOLVE_GUESS;
		}
		idx++;
	} while (successor(t, s, &sum));
}

/* Follows the path along falling temperatures from t->tau, whose values
 * converged (a copy of them, `bytes`, in save): each temperature starts
 * from the values of the last that converged. When one does not, the
 * values go back and the next try lies nearer (the step's exponent
 * halves), as a homotopy shortens its step; until the step would be
 * nearer 1 than CDSOLVE_STEP_MAX, tau_min is reached or `budget` state
 * backups are spent. Leaves the last temperature that converged, its
 * values in t->w and in save; returns 0 when the budget ran out, else 1. */
static int descend(struct cdsolve_table *t, const struct work *wk, struct accel *acc, double *save,
                   size_t bytes, double tau_min, double budget)
{
	double step = CDSOLVE_TAU_STEP, kept = t->stats.residual;
	double spent0 = (double)t->stats.sweeps * (double)wk->playing_count;

	while (t->tau > tau_min * (1 + 1e-9) && step < CDSOLVE_STEP_MAX) {
		double spent = (double)t->stats.sweeps * (double)wk->playing_count - spent0;
		int cap = (int)((budget - spent) / (double)wk->playing_count),
		    last = t->stats.sweeps;
		double from = t->tau;
		if (cap < CDSOLVE_STAGE_MIN) {
			t->stats.residual = kept;
			return 0;
		}
		t->tau = fmax(from * step, tau_min);
		if (converge(t, wk, acc, CDSOLVE_EPS,
		             cap < CDSOLVE_STAGE_SWEEPS ? cap : CDSOLVE_STAGE_SWEEPS, INT_MAX)) {
			t->stats.stages++;
			memcpy(save, t->w, bytes);
			kept = t->stats.residual;
		} else {
			memcpy(t->w, save, bytes);
			t->tau = from;
			step = sqrt(step);
			t->stats.failed += t->stats.sweeps - last;
		}
	}
	t->stats.residual = kept;
	return 1;
}

/* Options (a bit each) of probability at least CDSOLVE_SUPPORT among p. */
static uint8_t support_of(const double *p, int count)
{
	uint8_t mask = 0;

	for (int l = 0; l < count; l++)
		if (p[l] >= CDSOLVE_SUPPORT)
			mask |= (uint8_t)(1u << l);
	return mask;
}

/* Memory of the polished profile. */
static size_t policy_bytes(const struct cdsolve_table *t)
{
	if (!t->pol)
		return 0;
	return (size_t)t->stats.states * (size_t)t->dec + (size_t)t->mixes * sizeof(struct mixed);
}

/* Replaces t's profile by the one of supports sup[] (a mask a decision):
 * one option taken outright, several mixed (by the logit choice over
 * them, until polish_freeze). 0, or -1 when memory runs out (t as it
 * was). */
static int policy_from(struct cdsolve_table *t, const uint8_t *sup)
{
	size_t all = (size_t)t->stats.states * (size_t)t->dec;
	uint8_t *pol = malloc(all);
	struct mixed *mix;
	long mixes = 0;

	for (size_t i = 0; i < all; i++)
		mixes += sup[i] & (sup[i] - 1) ? 1 : 0;
	mix = calloc(mixes ? (size_t)mixes : 1, sizeof(struct mixed));
	if (!pol || !mix) {
		free(pol);
		free(mix);
		return -1;
	}
	mixes = 0;
	for (size_t i = 0; i < all; i++) {
		if (sup[i] & (sup[i] - 1)) {
			mix[mixes].key = (int64_t)i;
			mix[mixes++].support = sup[i];
			pol[i] = MIXED;
		} else {
			pol[i] = sup[i] ? (uint8_t)__builtin_ctz(sup[i]) : 0;
		}
	}
	free(t->pol);
	free(t->mix);
	t->pol = pol;
	t->mix = mix;
	t->mixes = t->stats.mixed = mixes;
	t->frozen = 0;
	return 0;
}

/* The support of decision i of t's profile. */
static uint8_t support_at(const struct cdsolve_table *t, size_t i)
{
	long at;

	if (t->pol[i] != MIXED)
		return (uint8_t)(1u << t->pol[i]);
	at = mixed_at(t, (int64_t)i);
	return (uint8_t)t->mix[at].support;
}

/* Grows sup[i] by the best option outside it when that is worth more than
 * CDSOLVE_GROW above the best inside (q: the options' worth); 1 when it grew. */
static int grow(uint8_t *sup, size_t i, const double *q, int count, int legal_mask)
{
	double in = -HUGE_VAL, out = -HUGE_VAL;
	int best = -1, added = 0;

	for (int l = 0; l < count; l++) {
		if (!(legal_mask >> l & 1))
			continue;
		if (sup[i] >> l & 1) {
			in = fmax(in, q[l]);
		} else if (q[l] > out) {
			out = q[l];
			best = l;
		}
	}
	if (best >= 0 && out > in + CDSOLVE_GROW) {
		sup[i] |= (uint8_t)(1u << best);
		added = 1;
	}
	return added;
}

/* A decision met by each_decision: count options, taken with
 * probabilities p[] by the current profile and worth q[] to the chooser,
 * the legal ones a bit each in legal. */
typedef void decision_fn(void *arg, int64_t key, const double *p, const double *q, int count,
                         int legal);

/* Calls visit with arg for every decision of every playing turn start at
 * the current values (t->w; wk->mid built): the victim, then for each
 * legal victim the Caster's Eye and the Victim's Eye after each curse
 * face. A decision several turns lead to (the Victim's Eye) is met once
 * from each. */
static void each_decision(const struct cdsolve_table *t, const struct work *wk, decision_fn *visit,
                          void *arg)
{
	int n = t->n, slots = n - 1, dec = t->dec;

	for (long o = 0; o < wk->playing_count; o++) {
		long idx = wk->order[o], r = wk->rank ? wk->rank[idx] : idx;
		struct turn_mix m;
		double v[WIDTH_MAX];
		int legal = 0;
		backup(wk, idx, v, &m);
		for (int k = 0; k < slots; k++)
			if (wk->next[((size_t)idx * slots + k) * PLAIN * PLAIN] != INT32_MIN)
				legal |= 1 << k;
		visit(arg, (int64_t)r * dec, m.victim, m.q_victim, slots, legal);
		for (int k = 0; k < slots; k++) {
			const int32_t *md = wk->mid + ((size_t)idx * slots + k) * PLAIN;
			if (!(legal >> k & 1))
				continue;
			visit(arg, (int64_t)r * dec + 1 + k, m.caster_eye[k], m.q_caster_eye[k],
			      PLAIN, 0xf);
			for (int cf = 0; cf < PLAIN; cf++)
				visit(arg, (int64_t)md[cf] * dec + n + k, m.victim_eye[k][cf],
				      m.q_victim_eye[k][cf], PLAIN, 0xf);
		}
	}
}

/* polish_grow's visitor: grows the supports sup by a decision's better
 * option. */
struct grow_walk {
	uint8_t *sup;
	long added;
};

static void grow_visit(void *arg, int64_t key, const double *p, const double *q, int count,
                       int legal)
{
	struct grow_walk *gw = arg;

	(void)p;
	gw->added += grow(gw->sup, (size_t)key, q, count, legal);
}

/* Adds to the supports of t's profile every option better than the
 * support's best at the current values (t->w); the number added, or -1
 * when memory runs out. */
static long polish_grow(struct cdsolve_table *t, const struct work *wk)
{
	size_t all = (size_t)t->stats.states * (size_t)t->dec;
	struct grow_walk gw = { malloc(all), 0 };

	if (!gw.sup)
		return -1;
	for (size_t i = 0; i < all; i++)
		gw.sup[i] = support_at(t, i);
	each_decision(t, wk, grow_visit, &gw);
	if (gw.added && policy_from(t, gw.sup) != 0)
		gw.added = -1;
	free(gw.sup);
	return gw.added;
}

/* Options (a bit) of the likeliest of count options of probabilities p
 * (the first of equals). */
static uint8_t likeliest(const double *p, int count)
{
	int best = 0;

	for (int l = 1; l < count; l++)
		if (p[l] > p[best])
			best = l;
	return (uint8_t)(1u << best);
}

/* The key's seed among count sorted by key, or NULL. */
static const struct cdsolve_seed *seed_at(const struct cdsolve_seed *seeds, long count, size_t key)
{
	long lo = 0, hi = count;

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		if (seeds[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < count && seeds[lo].key == key ? &seeds[lo] : NULL;
}

/* polish_start's visitor: a decision's options chosen by pick from their
 * probabilities, added to its support in sup. */
struct start_walk {
	uint8_t *sup;
	uint8_t (*pick)(const double *p, int count);
};

static void start_visit(void *arg, int64_t key, const double *p, const double *q, int count,
                        int legal)
{
	struct start_walk *sw = arg;

	(void)q;
	(void)legal;
	sw->sup[key] |= sw->pick(p, count);
}

/* Starts the polish from the logit profile at t->tau: at each decision the
 * options of probability at least CDSOLVE_SUPPORT are its support, or,
 * when pure, its likeliest option (the lowest of those a decision's visits
 * name) unless count seeds (sorted by key) give its support; one option
 * is taken outright, several are mixed (t->pol, t->mix; a mixed decision
 * is the logit choice over its support until polish_freeze). 0, or -1
 * when memory runs out. */
static int polish_start(struct cdsolve_table *t, const struct work *wk,
                        const struct cdsolve_seed *seeds, long count, int pure)
{
	size_t all = (size_t)t->stats.states * (size_t)t->dec;
	struct start_walk sw = { calloc(all, 1), pure ? likeliest : support_of };

	if (!sw.sup)
		return -1;
	each_decision(t, wk, start_visit, &sw);
	for (size_t i = 0; pure && i < all; i++) {
		const struct cdsolve_seed *seed = seed_at(seeds, count, i);
		sw.sup[i] = seed ? seed->support : sw.sup[i] & (uint8_t)-sw.sup[i];
	}
	if (policy_from(t, sw.sup) != 0) {
		free(sw.sup);
		return -1;
	}
	free(sw.sup);
	return 0;
}

/* polish_freeze's visitor (arg: the table): a mixed decision's
 * probabilities kept. */
static void freeze_visit(void *arg, int64_t key, const double *p, const double *q, int count,
                         int legal)
{
	struct cdsolve_table *t = arg;
	long at = mixed_at(t, key);

	(void)q;
	(void)legal;
	if (at >= 0)
		memcpy(t->mix[at].p, p, sizeof(double) * (size_t)count);
}

/* Freezes the mixed decisions' probabilities at what the logit choice over
 * their support gives at the current values and temperature. */
static void polish_freeze(struct cdsolve_table *t, const struct work *wk)
{
	each_decision(t, wk, freeze_visit, t);
	t->frozen = 1;
}

/* The polish of the logit profile at t->tau (values converged, in t->w
 * and save): supports from it (polish_start; with count seeds, sorted by
 * key, each decision's likeliest option or its seed's support), then
 * rounds of: the path
 * on down to CDSOLVE_POLISH_TAU with those supports, the mixed decisions
 * frozen and the profile's values solved exactly, the supports grown by
 * every better option (polish_grow). It is kept when a round reaches
 * CDSOLVE_POLISH_TAU and finds no better option anywhere, within
 * CDSOLVE_POLISH_ROUNDS rounds and CDSOLVE_POLISH_BUDGET state backups;
 * otherwise t is the logit profile again (t->pol NULL, values and
 * temperature as they were). Returns 1 when kept, 0 when not, -1 when
 * memory runs out (t is then the logit profile). */
static int polish(struct cdsolve_table *t, struct work *wk, struct accel *acc, double *save,
                  size_t bytes, const struct cdsolve_seed *seeds, long count)
{
	double *base = malloc(bytes), from = t->tau;
	double spent0 = (double)t->stats.sweeps * (double)wk->playing_count;
	double residual = t->stats.residual;
	int kept = 0;

	if (!base || work_mid(wk) != 0 || polish_start(t, wk, seeds, count, seeds != NULL) != 0) {
		free(base);
		return -1;
	}
	memcpy(base, t->w, bytes);
	for (int round = 0; round < CDSOLVE_POLISH_ROUNDS; round++) {
		double left = CDSOLVE_POLISH_BUDGET -
		              ((double)t->stats.sweeps * (double)wk->playing_count - spent0);
		long added;
		int reached;
		if (left < (double)wk->playing_count)
			break;
		descend(t, wk, acc, save, bytes, CDSOLVE_POLISH_TAU, left);
		reached = t->tau <= CDSOLVE_POLISH_TAU * (1 + 1e-9);
		polish_freeze(t, wk);
		if (!converge(t, wk, acc, CDSOLVE_EPS, CDSOLVE_SWEEPS, INT_MAX))
			break;
		t->stats.rounds++;
		if ((added = polish_grow(t, wk)) < 0) {
			kept = -1;
			break;
		}
		if (added == 0) {
			kept = reached;
			break;
		}
		/* on from the values reached, at the lowest temperature (from
		 * CDSOLVE_POLISH_RESTART, warming) at which the grown supports
		 * converge; else again from the logit path's end */
		memcpy(save, t->w, bytes);
		for (t->tau = CDSOLVE_POLISH_RESTART;; t->tau *= 4) {
			int cap =
			    (int)((CDSOLVE_POLISH_BUDGET -
			           ((double)t->stats.sweeps * (double)wk->playing_count - spent0)) /
			          (double)wk->playing_count);
			if (t->tau >= from || cap < 1) {
				memcpy(t->w, base, bytes);
				memcpy(save, base, bytes);
				t->tau = from;
				break;
			}
			if (converge(t, wk, acc, CDSOLVE_EPS,
			             cap < CDSOLVE_STAGE_SWEEPS ? cap : CDSOLVE_STAGE_SWEEPS,
			             INT_MAX)) {
				memcpy(save, t->w, bytes);
				break;
			}
			memcpy(t->w, save, bytes);
		}
	}
	if (kept != 1) {
		memcpy(t->w, base, bytes);
		memcpy(save, base, bytes);
		t->tau = from;
		free(t->pol);
		free(t->mix);
		t->pol = NULL;
		t->mix = NULL;
		t->mixes = t->stats.mixed = 0;
		t->frozen = 0;
		t->stats.residual = residual;
	}
	t->stats.polished = kept == 1;
	free(base);
	return kept;
}

/* ---- the tracing homotopy ----
 *
 * An exact equilibrium from the logit path's end, by way of supports for
 * the polish where the logit profile's do not lead it to one
 * (cdsolve_trace; docs/cli.md, "rlyeh analyze", for how far it gets).
 * Every decision starts at its likeliest option there (the start), and
 * that option carries a bonus of lambda * TRACE_BONUS in its chooser's
 * eyes: at lambda = 1 the start is a strict equilibrium of that game, at
 * lambda = 0 the game is the real one. The path of equilibria between is
 * followed exactly from lambda = 1 to 0 (lambda may turn on the way).
 * While the profile is pure, the worths do not depend on lambda except
 * through the bonus, so the next lambda at which an option catches up is
 * computed directly and the decision switches to it when that keeps an
 * equilibrium; otherwise the decisions that must mix are followed by
 * pseudo-arclength continuation of their indifferences (Newton on finite
 * differences), an option joining a support when it catches up and leaving
 * it when its probability reaches 0, as in Lemke and Howson's method. It
 * is the homotopy of Govindan and Wilson's global Newton method (2003:
 * every player's payoff perturbed by lambda times a bonus on one pure
 * strategy, followed as lambda goes to 0), applied to each decision of the
 * stationary profile. Ties between options are broken by shifting every
 * worth by a fixed amount below TRACE_TIE. */

#define TRACE_BONUS 2.0   /* more than any two options' worths differ */
#define TRACE_TIE   1e-9  /* the largest shift of a worth */
#define TRACE_EPS   1e-14 /* evaluation: the largest change in a sweep */
#define TRACE_CAP   20000 /* sweeps an evaluation may take */
#define TRACE_FD    1e-7  /* finite-difference step of a probability */
#define TRACE_FD_L  1e-6  /* and of lambda */
#define TRACE_RES   1e-12 /* the corrector's target residual */
#define TRACE_KEEP  1e-8  /* gain a switch may leave and still stand */
#define TRACE_NONE  1e-10 /* a violation below this is none */
#define TRACE_AT    1e-9  /* a step within this of an event is at it */
#define TRACE_H0    0.01  /* the first step along the path */
#define TRACE_HMAX  0.5   /* the longest */
#define TRACE_TRIES 60    /* step sizes tried before the trace gives up */

/* What cdsolve_trace asks of the build: progress reports, and where the
 * seeds go. */
struct trace_req {
	struct cdsolve_trace_run run;
	struct cdsolve_seed **seeds;
	long *count;
};

/* An option outside its decision's support, and what it gains there. */
struct trace_opt {
	int64_t key;
	int opt;
	double gain;
};

/* The homotopy's state. */
struct trace {
	struct cdsolve_table *t;
	struct work *wk;
	struct accel *acc;
	size_t bytes;
	uint8_t *start; /* per decision: the start's option */
	double lam;
	int up;                /* while the profile is pure: lambda rises along the path */
	struct trace_opt *out; /* the last scan's outside options */
	long outs, out_cap;
	struct trace_opt best; /* the one of them that gains most */
	double *worth;         /* [mixed decision][option]: the last scan's worths */
	double *landed;        /* values where a corrector last landed */
	double *last;          /* values where the last step started */
	double last_h;         /* its length; 0 when it changed a support */
	double *jac;           /* its Jacobian, updated along it (jac_d free variables) */
	long jac_d, jac_cap;
	long events, switches;
	cdsolve_trace_fn *progress;
	void *arg;
	long save_every, saved; /* events between states, and at the last */
};

/* The fixed shift of option opt's worth at decision key, in
 * [-TRACE_TIE, TRACE_TIE] (a hash of the two). */
static double trace_shift(int64_t key, int opt)
{
	uint64_t h =
	    (uint64_t)key * 0x9E3779B97F4A7C15ull ^ (uint64_t)(opt + 1) * 0xC2B2AE3D27D4EB4Full;

	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 32;
	return TRACE_TIE * ((double)(h >> 11) / 9007199254740992.0 * 2 - 1);
}

/* Worth x of option opt at decision key in the game at tr->lam. */
static double trace_worth(const struct trace *tr, int64_t key, int opt, double x)
{
	return x + trace_shift(key, opt) + (tr->start[key] == opt ? tr->lam * TRACE_BONUS : 0);
}

/* The values of t's (frozen) profile from the current ones; 0 when they
 * do not settle. */
static int trace_eval(struct trace *tr)
{
	return converge(tr->t, tr->wk, tr->acc, TRACE_EPS, TRACE_CAP, INT_MAX);
}

/* trace_scan's visitor (arg: the trace): the decision's worths at
 * tr->lam, kept when it mixes; its options outside the support. */
static void trace_visit(void *arg, int64_t key, const double *p, const double *x, int count,
                        int legal)
{
	struct trace *tr = arg;
	uint32_t sup = support_at(tr->t, (size_t)key);
	double w[PLAIN], in = -HUGE_VAL;
	long at;

	(void)p;
	for (int l = 0; l < count; l++)
		w[l] = trace_worth(tr, key, l, x[l]);
	if (tr->t->pol[key] == MIXED && (at = mixed_at(tr->t, key)) >= 0)
		memcpy(tr->worth + at * PLAIN, w, sizeof(double) * (size_t)count);
	for (int l = 0; l < count; l++)
		if ((legal >> l & 1) && (sup >> l & 1))
			in = fmax(in, w[l]);
	for (int l = 0; l < count; l++) {
		if (!(legal >> l & 1) || (sup >> l & 1))
			continue;
		if (w[l] - in > tr->best.gain)
			tr->best = (struct trace_opt){ key, l, w[l] - in };
		if (tr->outs < tr->out_cap)
			tr->out[tr->outs++] = (struct trace_opt){ key, l, w[l] - in };
	}
}

/* Walks every decision at the current values: tr->worth of the mixed ones,
 * tr->out of every option outside a support. Returns the option outside
 * that gains most (gain -HUGE_VAL when there is none). */
static struct trace_opt trace_scan(struct trace *tr)
{
	tr->outs = 0;
	tr->best = (struct trace_opt){ -1, -1, -HUGE_VAL };
	each_decision(tr->t, tr->wk, trace_visit, tr);
	return tr->best;
}

/* The highest option of support s. */
static int trace_last(uint32_t s)
{
	return 31 - __builtin_clz(s);
}

/* The free variables: each mixed decision's options but its highest, as
 * (index in t->mix, option) into vj, vl when not NULL; their number. */
static long trace_vars(const struct cdsolve_table *t, long *vj, int *vl)
{
	long d = 0;

	for (long j = 0; j < t->mixes; j++) {
		int last = trace_last(t->mix[j].support);
		for (int l = 0; l < last; l++)
			if (t->mix[j].support >> l & 1) {
				if (vj) {
					vj[d] = j;
					vl[d] = l;
				}
				d++;
			}
	}
	return d;
}

/* Sets the d free probabilities to x (each highest option takes the
 * rest). */
static void trace_set(struct cdsolve_table *t, const long *vj, const int *vl, long d,
                      const double *x)
{
	for (long c = 0; c < d; c++)
		t->mix[vj[c]].p[vl[c]] = x[c];
	for (long j = 0; j < t->mixes; j++) {
		int last = trace_last(t->mix[j].support);
		double z = 0;
		for (int l = 0; l < last; l++)
			if (t->mix[j].support >> l & 1)
				z += t->mix[j].p[l];
		t->mix[j].p[last] = 1 - z;
	}
}

/* The indifferences at (x, lambda = x[d]) into g (each free option's worth
 * minus its decision's highest option's), the values solved from base (or
 * from the current ones when base is NULL); returns the largest |g|, or
 * HUGE_VAL when the values do not settle. */
static double trace_g(struct trace *tr, const double *base, const long *vj, const int *vl, long d,
                      const double *x, double *g)
{
	double mx = 0;

	trace_set(tr->t, vj, vl, d, x);
	tr->lam = x[d];
	if (base)
		memcpy(tr->t->w, base, tr->bytes);
	if (!trace_eval(tr))
		return HUGE_VAL;
	trace_scan(tr);
	for (long c = 0; c < d; c++) {
		long j = vj[c];
		g[c] = tr->worth[j * PLAIN + vl[c]] -
		       tr->worth[j * PLAIN + trace_last(tr->t->mix[j].support)];
		mx = fmax(mx, fabs(g[c]));
	}
	return mx;
}

/* Replaces t's supports by sup[], each mixed decision keeping its
 * probabilities (one newly mixed: its old option 1, the others 0); 0, or
 * -1 when memory runs out (t as it was). */
static int trace_resupport(struct trace *tr, const uint8_t *sup)
{
	struct cdsolve_table *t = tr->t;
	size_t all = (size_t)t->stats.states * (size_t)t->dec;
	long om = t->mixes, o = 0;
	uint8_t *opol = malloc(all);
	struct mixed *omix = malloc(sizeof(struct mixed) * (size_t)(om + 1));
	double *worth;

	if (!opol || !omix)
		goto fail;
	memcpy(opol, t->pol, all);
	memcpy(omix, t->mix, sizeof(struct mixed) * (size_t)om);
	if (policy_from(t, sup) != 0)
		goto fail;
	t->frozen = 1;
	for (long j = 0; j < t->mixes; j++) {
		int64_t key = t->mix[j].key;
		while (o < om && omix[o].key < key)
			o++;
		memset(t->mix[j].p, 0, sizeof(t->mix[j].p));
		if (o < om && omix[o].key == key)
			memcpy(t->mix[j].p, omix[o].p, sizeof(t->mix[j].p));
		else
			t->mix[j].p[opol[key]] = 1;
	}
	free(opol);
	free(omix);
	if (!(worth = realloc(tr->worth, sizeof(double) * PLAIN * (size_t)(t->mixes + 1))))
		return -1;
	tr->worth = worth;
	return 0;
fail:
	free(opol);
	free(omix);
	return -1;
}

/* sup[] of t's profile, with option opt of decision key added (add) or
 * taken away; trace_resupport of it. */
static int trace_change(struct trace *tr, int64_t key, int opt, int add)
{
	size_t all = (size_t)tr->t->stats.states * (size_t)tr->t->dec;
	uint8_t *sup = malloc(all);
	int rc;

	if (!sup)
		return -1;
	for (size_t i = 0; i < all; i++)
		sup[i] = support_at(tr->t, i);
	if (add)
		sup[key] |= (uint8_t)(1u << opt);
	else
		sup[key] &= (uint8_t) ~(1u << opt);
	rc = trace_resupport(tr, sup);
	free(sup);
	return rc;
}

/* A unit null vector of the d x D matrix J (row-major; rank at most d <
 * D) into out: Gauss-Jordan with full pivoting, the free components taken
 * from pref (or the one free component 1). 0, or -1 when memory runs
 * out. */
static int trace_null(const double *J, long d, long D, const double *pref, double *out)
{
	double *M = malloc(sizeof(double) * (size_t)(d * D + 1)), nn = 0, any = 0;
	long *pc = malloc(sizeof(long) * (size_t)(d + 1)), rank = 0;
	char *piv = calloc((size_t)D, 1);

	if (!M || !pc || !piv) {
		free(M);
		free(pc);
		free(piv);
		return -1;
	}
	memcpy(M, J, sizeof(double) * (size_t)(d * D));
	for (long k = 0; k < d; k++) {
		long bi = -1, bj = -1;
		double bv = 1e-12, pv;
		for (long i = k; i < d; i++)
			for (long j = 0; j < D; j++)
				if (!piv[j] && fabs(M[i * D + j]) > bv) {
					bv = fabs(M[i * D + j]);
					bi = i;
					bj = j;
				}
		if (bi < 0)
			break;
		for (long j = 0; bi != k && j < D; j++) {
			double x = M[k * D + j];
			M[k * D + j] = M[bi * D + j];
			M[bi * D + j] = x;
		}
		pv = M[k * D + bj];
		for (long j = 0; j < D; j++)
			M[k * D + j] /= pv;
		for (long i = 0; i < d; i++)
			if (i != k && M[i * D + bj] != 0) {
				double f = M[i * D + bj];
				for (long j = 0; j < D; j++)
					M[i * D + j] -= f * M[k * D + j];
			}
		pc[k] = bj;
		piv[bj] = 1;
		rank++;
	}
	for (long j = 0; j < D; j++) {
		out[j] = piv[j] ? 0 : D - rank == 1 ? 1 : pref[j];
		any += fabs(out[j]);
	}
	for (long j = 0; any == 0 && j < D; j++)
		if (!piv[j]) {
			out[j] = 1;
			any = 1;
		}
	for (long k = 0; k < rank; k++) {
		double v = 0;
		for (long j = 0; j < D; j++)
			if (!piv[j])
				v -= M[k * D + j] * out[j];
		out[pc[k]] = v;
	}
	for (long j = 0; j < D; j++)
		nn += out[j] * out[j];
	for (long j = 0; j < D; j++)
		out[j] /= sqrt(nn);
	free(M);
	free(pc);
	free(piv);
	return 0;
}

/* Solves the dense d x d system A x = b in place (x into b) by Gaussian
 * elimination with partial pivoting; 0, or -1 when A is singular. */
static int trace_solve(double *A, double *b, long d)
{
	for (long k = 0; k < d; k++) {
		long p = k;
		for (long i = k + 1; i < d; i++)
			if (fabs(A[i * d + k]) > fabs(A[p * d + k]))
				p = i;
		if (fabs(A[p * d + k]) < 1e-300)
			return -1;
		for (long c = 0; p != k && c < d; c++) {
			double x = A[k * d + c];
			A[k * d + c] = A[p * d + c];
			A[p * d + c] = x;
		}
		if (p != k) {
			double x = b[k];
			b[k] = b[p];
			b[p] = x;
		}
		for (long i = k + 1; i < d; i++) {
			double f = A[i * d + k] / A[k * d + k];
			for (long c = k; c < d; c++)
				A[i * d + c] -= f * A[k * d + c];
			b[i] -= f * b[k];
		}
	}
	for (long k = d - 1; k >= 0; k--) {
		double s = b[k];
		for (long c = k + 1; c < d; c++)
			s -= A[k * d + c] * b[c];
		b[k] = s / A[k * d + k];
	}
	return 0;
}

/* The last tangent, by (decision, option) of each free variable, lambda's
 * component last. */
struct trace_dir {
	double *tan;
	int64_t *key;
	int *opt;
	long d; /* free variables (tan has d + 1 components) */
};

static void trace_dir_free(struct trace_dir *dir)
{
	free(dir->tan);
	free(dir->key);
	free(dir->opt);
	*dir = (struct trace_dir){ 0 };
}

/* Adds (key, opt) to dir with component c before lambda's; 0 or -1 (out
 * of memory; dir as it was). */
static int trace_dir_add(struct trace_dir *dir, int64_t key, int opt, double c)
{
	double *tan = realloc(dir->tan, sizeof(double) * (size_t)(dir->d + 2));
	int64_t *k;
	int *o;

	if (!tan)
		return -1;
	dir->tan = tan;
	if (!(k = realloc(dir->key, sizeof(int64_t) * (size_t)(dir->d + 1))))
		return -1;
	dir->key = k;
	if (!(o = realloc(dir->opt, sizeof(int) * (size_t)(dir->d + 1))))
		return -1;
	dir->opt = o;
	tan[dir->d + 1] = tan[dir->d];
	tan[dir->d] = c;
	k[dir->d] = key;
	o[dir->d] = opt;
	dir->d++;
	return 0;
}

/* What the path does next: TRACE_GO on along it, TRACE_END at lambda 0,
 * TRACE_FAIL when a step finds no point of it or memory runs out. */
enum trace_next { TRACE_GO, TRACE_END, TRACE_FAIL };

/* The pure profile's next event as lambda moves along the path (down,
 * or up when tr->up): going down, a decision at its start option whose
 * best other option catches up as the bonus shrinks; going up, a decision
 * away from its start whose start option catches up as the bonus grows.
 * The first such lambda is the event. Switches that decision outright
 * when that keeps an equilibrium (the path goes on the same way), else
 * mixes it (its new option at probability 0) and records it in *enter.
 * TRACE_END when going down meets no event above lambda 0. */
static enum trace_next trace_pure(struct trace *tr, struct trace_opt *enter, double *base)
{
	struct cdsolve_table *t = tr->t;
	struct trace_opt best = { -1, -1, -HUGE_VAL }, after;
	double next = tr->up ? HUGE_VAL : -HUGE_VAL;
	uint8_t was;

	memcpy(base, t->w, tr->bytes);
	trace_scan(tr);
	for (long i = 0; i < tr->outs; i++) {
		const struct trace_opt *o = &tr->out[i];
		int at_start = t->pol[o->key] == tr->start[o->key];
		if (!tr->up && at_start) {
			double at = tr->lam + o->gain / TRACE_BONUS;
			if (at < tr->lam + 1e-12 && at > next) {
				next = at;
				best = *o;
			}
		} else if (tr->up && !at_start && o->opt == tr->start[o->key]) {
			double at = tr->lam - o->gain / TRACE_BONUS;
			if (at > tr->lam - 1e-12 && at < next) {
				next = at;
				best = *o;
			}
		}
	}
	if (tr->up && (best.key < 0 || next > 1))
		return TRACE_FAIL;
	if (best.key < 0 || next < 0) {
		tr->lam = 0;
		return TRACE_END;
	}
	tr->lam = next;
	tr->events++;
	was = t->pol[best.key];
	t->pol[best.key] = (uint8_t)best.opt;
	after = trace_eval(tr) ? trace_scan(tr) : (struct trace_opt){ -1, -1, HUGE_VAL };
	if (after.gain <= TRACE_KEEP) {
		tr->switches++;
		return TRACE_GO;
	}
	t->pol[best.key] = was;
	memcpy(t->w, base, tr->bytes);
	if (trace_change(tr, best.key, best.opt, 1) != 0 || !trace_eval(tr))
		return TRACE_FAIL;
	*enter = best;
	return TRACE_GO;
}

/* Buffers of one mixed step: d free variables, D = d + 1 unknowns. */
struct trace_step {
	long d, D, *vj;
	int *vl;
	double *x, *y, *yp, *g, *g2, *J, *A, *tg, *rhs, *pref, *p0;
	struct trace_opt *st0;
	long st0n;
};

static void trace_step_free(struct trace_step *s)
{
	free(s->vj);
	free(s->vl);
	free(s->x);
	free(s->y);
	free(s->yp);
	free(s->g);
	free(s->g2);
	free(s->J);
	free(s->A);
	free(s->tg);
	free(s->rhs);
	free(s->pref);
	free(s->p0);
	free(s->st0);
}

static int trace_step_new(struct trace_step *s, const struct trace *tr)
{
	long d = trace_vars(tr->t, NULL, NULL), D = d + 1;
	size_t v = sizeof(double) * (size_t)(D + 1), m = v * (size_t)(D + 1);

	*s = (struct trace_step){ .d = d, .D = D };
	s->vj = malloc(sizeof(long) * (size_t)D);
	s->vl = malloc(sizeof(int) * (size_t)D);
	s->x = malloc(v);
	s->y = malloc(v);
	s->yp = malloc(v);
	s->g = malloc(v);
	s->g2 = malloc(v);
	s->J = malloc(m);
	s->A = malloc(m);
	s->tg = malloc(v);
	s->rhs = malloc(v);
	s->pref = malloc(v);
	s->p0 = malloc(sizeof(double) * PLAIN * (size_t)(tr->t->mixes + 1));
	s->st0 = malloc(sizeof(struct trace_opt) * (size_t)(tr->out_cap + 1));
	if (!s->vj || !s->vl || !s->x || !s->y || !s->yp || !s->g || !s->g2 || !s->J || !s->A ||
	    !s->tg || !s->rhs || !s->pref || !s->p0 || !s->st0) {
		trace_step_free(s);
		return -1;
	}
	trace_vars(tr->t, s->vj, s->vl);
	return 0;
}

/* The gain of option opt at decision key outside its support, as the last
 * scan found it (-HUGE_VAL when it is not there). */
static double trace_gain_of(const struct trace *tr, int64_t key, int opt)
{
	double gain = -HUGE_VAL;

	for (long i = 0; i < tr->outs; i++)
		if (tr->out[i].key == key && tr->out[i].opt == opt)
			gain = fmax(gain, tr->out[i].gain);
	return gain;
}

/* The path's tangent at s->x into s->tg: the null vector of the
 * indifferences' Jacobian s->J nearest the last tangent dir (lambda
 * falling at first), turned so that an option that just joined a support
 * (*enter) gains probability and one that just left (*leave) falls
 * behind. dir becomes the new tangent. 0, or -1 when memory runs out. */
static int trace_tangent(struct trace *tr, struct trace_step *s, const double *base,
                         struct trace_dir *dir, struct trace_opt *enter, struct trace_opt *leave)
{
	struct cdsolve_table *t = tr->t;
	long d = s->d, D = s->D;
	double dot = 0;

	for (long c = 0; c < D; c++)
		s->pref[c] = 0;
	if (dir->tan) {
		for (long c = 0; c < d; c++)
			for (long e = 0; e < dir->d; e++)
				if (t->mix[s->vj[c]].key == dir->key[e] && s->vl[c] == dir->opt[e])
					s->pref[c] = dir->tan[e];
		s->pref[d] = dir->tan[dir->d];
	} else {
		s->pref[d] = -1;
	}
	if (trace_null(s->J, d, D, s->pref, s->tg) != 0)
		return -1;
	for (long c = 0; c < D; c++)
		dot += s->tg[c] * s->pref[c];
	if (dot < 0)
		for (long c = 0; c < D; c++)
			s->tg[c] = -s->tg[c];
	if (leave->key >= 0 && d > 0) {
		double g0, g1;
		trace_g(tr, base, s->vj, s->vl, d, s->x, s->g2);
		g0 = trace_gain_of(tr, leave->key, leave->opt);
		for (long c = 0; c < D; c++)
			s->y[c] = s->x[c] + 1e-5 * s->tg[c];
		trace_g(tr, base, s->vj, s->vl, d, s->y, s->g2);
		g1 = trace_gain_of(tr, leave->key, leave->opt);
		if (g1 > g0)
			for (long c = 0; c < D; c++)
				s->tg[c] = -s->tg[c];
	}
	leave->key = -1;
	if (enter->key >= 0) {
		long at = mixed_at(t, enter->key);
		int last = at >= 0 ? trace_last(t->mix[at].support) : -1;
		double dp = 0;
		for (long c = 0; c < d; c++)
			if (t->mix[s->vj[c]].key == enter->key) {
				if (enter->opt == last)
					dp -= s->tg[c];
				else if (s->vl[c] == enter->opt)
					dp += s->tg[c];
			}
		if (dp < 0)
			for (long c = 0; c < D; c++)
				s->tg[c] = -s->tg[c];
		enter->key = -1;
	}
	trace_dir_free(dir);
	dir->tan = malloc(sizeof(double) * (size_t)D);
	dir->key = malloc(sizeof(int64_t) * (size_t)(d + 1));
	dir->opt = malloc(sizeof(int) * (size_t)(d + 1));
	if (!dir->tan || !dir->key || !dir->opt)
		return -1;
	memcpy(dir->tan, s->tg, sizeof(double) * (size_t)D);
	for (long c = 0; c < d; c++) {
		dir->key[c] = t->mix[s->vj[c]].key;
		dir->opt[c] = s->vl[c];
	}
	dir->d = d;
	return 0;
}

/* The smallest probability in a support (*at: its decision * PLAIN +
 * option), 0 when every one is at least 0. */
static double trace_lowest(const struct cdsolve_table *t, long *at)
{
	double worst = 0;

	for (long j = 0; j < t->mixes; j++)
		for (int l = 0; l < PLAIN; l++)
			if ((t->mix[j].support >> l & 1) && t->mix[j].p[l] < worst) {
				worst = t->mix[j].p[l];
				*at = j * PLAIN + l;
			}
	return worst;
}

/* s->J by finite differences at s->x, whose indifferences are s->g and
 * values base; 0, or -1 when the values do not settle. */
static int trace_jacobian(struct trace *tr, struct trace_step *s, const double *base)
{
	long d = s->d, D = s->D;

	for (long c = 0; c < D; c++) {
		double keep = s->x[c], step = c == d ? TRACE_FD_L : TRACE_FD;
		s->x[c] = keep + step;
		if (trace_g(tr, base, s->vj, s->vl, d, s->x, s->g2) == HUGE_VAL)
			return -1;
		for (long r = 0; r < d; r++)
			s->J[r * D + c] = (s->g2[r] - s->g[r]) / step;
		s->x[c] = keep;
	}
	return 0;
}

/* Keeps s->J, updated by Broyden's rule for the step from s->x (where the
 * indifferences are s->g) to s->y (s->g2), for the next step, which has
 * the same free variables; tr->jac_d -1 when memory runs out. */
static void trace_keep_jacobian(struct trace *tr, struct trace_step *s)
{
	long d = s->d, D = s->D;
	double dd = 0;

	tr->jac_d = -1;
	if (d * D > tr->jac_cap) {
		double *jac = realloc(tr->jac, sizeof(double) * (size_t)(d * D));
		if (!jac)
			return;
		tr->jac = jac;
		tr->jac_cap = d * D;
	}
	for (long c = 0; c < D; c++)
		dd += (s->y[c] - s->x[c]) * (s->y[c] - s->x[c]);
	for (long r = 0; r < d && dd > 0; r++) {
		double jy = 0, u;
		for (long c = 0; c < D; c++)
			jy += s->J[r * D + c] * (s->y[c] - s->x[c]);
		u = (s->g2[r] - s->g[r] - jy) / dd;
		for (long c = 0; c < D; c++)
			tr->jac[r * D + c] = s->J[r * D + c] + u * (s->y[c] - s->x[c]);
	}
	if (dd > 0)
		tr->jac_d = d;
}

/* One step along the path from the current mixed profile: the tangent,
 * then a predictor of length *h and Newton's corrector (the chord: J kept)
 * on the indifferences and the step's arclength, shortened until it lands
 * before the first event or at it (a probability of a support reaching
 * 0, an option outside one catching up, lambda reaching 0). Applies the
 * event: the option leaves (*leave) or joins (*enter) its support. */
static enum trace_next trace_mixed(struct trace *tr, double *base, struct trace_dir *dir,
                                   double *hstep, struct trace_opt *enter, struct trace_opt *leave)
{
	struct cdsolve_table *t = tr->t;
	struct trace_step s;
	struct trace_opt ev = { -1, -1, 0 };
	enum { NONE, LEAVES, JOINS, ENDS } kind = NONE;
	size_t nv = tr->bytes / sizeof(double);
	double h = *hstep, margin, worst;
	double hl = 0; /* tr->landed is where a step of length hl landed */
	long d, D, wc = -1;
	int accepted = 0, rising, at_y = 0; /* at_y: t->w holds the values at s.y */
	int kept;                           /* s.J is the last step's, updated */

	if (trace_step_new(&s, tr) != 0)
		return TRACE_FAIL;
	d = s.d;
	D = s.D;
	for (long c = 0; c < d; c++)
		s.x[c] = t->mix[s.vj[c]].p[s.vl[c]];
	s.x[d] = tr->lam;
	memcpy(base, t->w, tr->bytes);
	if (trace_g(tr, base, s.vj, s.vl, d, s.x, s.g) == HUGE_VAL)
		goto fail;
	memcpy(base, t->w, tr->bytes);
	/* where the step starts: how far inside every bound it is */
	margin = -HUGE_VAL;
	for (long i = 0; i < tr->outs; i++)
		margin = fmax(margin, tr->out[i].gain);
	for (long j = 0; j < t->mixes; j++)
		for (int l = 0; l < PLAIN; l++)
			if (t->mix[j].support >> l & 1)
				margin = fmax(margin, -t->mix[j].p[l]);
	margin = fmin(margin, -1e-12);
	memcpy(s.st0, tr->out, sizeof(struct trace_opt) * (size_t)tr->outs);
	s.st0n = tr->outs;
	for (long j = 0; j < t->mixes; j++)
		memcpy(s.p0 + j * PLAIN, t->mix[j].p, sizeof(double) * PLAIN);
	/* after a step that changed no support: its Jacobian, and the values
	 * guessed on along it */
	kept = tr->jac_d == d && d > 0 && enter->key < 0 && leave->key < 0;
	if (kept)
		memcpy(s.J, tr->jac, sizeof(double) * (size_t)(d * D));
	if (tr->last_h > 0) {
		for (size_t i = 0; i < nv; i++)
			tr->landed[i] = 2 * base[i] - tr->last[i];
		hl = tr->last_h;
	}
	if (!kept && trace_jacobian(tr, &s, base) != 0)
		goto fail;
	if (trace_tangent(tr, &s, base, dir, enter, leave) != 0)
		goto fail;
	for (int tries = 0; tries < TRACE_TRIES && !accepted; tries++) {
		double res = HUGE_VAL, over, frac;
		struct trace_opt best = { -1, -1, -HUGE_VAL };
		for (long c = 0; c < D; c++)
			s.yp[c] = s.y[c] = s.x[c] + h * s.tg[c];
		for (int it = 0;; it++) {
			/* the values start from the last iterate's, or (the
			 * first) from where the last landing points */
			if (!it && hl > 0)
				for (size_t i = 0; i < nv; i++)
					t->w[i] = base[i] + h / hl * (tr->landed[i] - base[i]);
			res = trace_g(tr, it || hl > 0 ? NULL : base, s.vj, s.vl, d, s.y, s.g2);
			if (res < TRACE_RES || it == 8)
				break;
			for (long r = 0; r < d; r++) {
				memcpy(s.A + r * D, s.J + r * D, sizeof(double) * (size_t)D);
				s.rhs[r] = -s.g2[r];
			}
			memcpy(s.A + d * D, s.tg, sizeof(double) * (size_t)D);
			s.rhs[d] = 0;
			for (long c = 0; c < D; c++)
				s.rhs[d] -= s.tg[c] * (s.y[c] - s.yp[c]);
			if (trace_solve(s.A, s.rhs, D) != 0) {
				res = HUGE_VAL;
				break;
			}
			for (long c = 0; c < D; c++)
				s.y[c] += s.rhs[c];
		}
		at_y = 1;
		if (!(res < 10 * TRACE_RES) && kept) {
			/* the kept Jacobian misled the corrector: a fresh one */
			kept = 0;
			memcpy(t->w, base, tr->bytes);
			if (trace_jacobian(tr, &s, base) != 0 ||
			    trace_tangent(tr, &s, base, dir, enter, leave) != 0)
				goto fail;
			tries--;
			continue;
		}
		if (res < 10 * TRACE_RES) {
			memcpy(tr->landed, t->w, tr->bytes);
			hl = h;
		}
		if (!(res < 10 * TRACE_RES)) {
			if ((h /= 2) < 1e-12)
				break;
			continue;
		}
		worst = -trace_lowest(t, &wc);
		for (long i = 0; i < tr->outs; i++)
			if (tr->out[i].gain > best.gain)
				best = tr->out[i];
		over = fmax(fmax(worst, best.gain), -s.y[d]);
		if (over <= TRACE_NONE) {
			accepted = 1;
			break;
		}
		if (over > TRACE_AT && tries >= 8) {
			/* a bound at 0 where the step starts: the event is there */
			memcpy(s.y, s.x, sizeof(double) * (size_t)D);
			at_y = 0;
			kind = worst >= best.gain ? LEAVES : JOINS;
		} else if (over <= TRACE_AT || h < 1e-14) {
			kind = worst >= best.gain && worst >= -s.y[d] ? LEAVES
			       : best.gain >= -s.y[d]                 ? JOINS
			                                              : ENDS;
		}
		if (kind != NONE) {
			if (kind == LEAVES)
				ev = (struct trace_opt){ t->mix[wc / PLAIN].key, (int)(wc % PLAIN),
					                 0 };
			else if (kind == JOINS)
				ev = best;
			accepted = 1;
			break;
		}
		/* the first bound to cross, each taken as linear along the step */
		frac = margin < 0 ? -margin / (over - margin) : 0.5;
		if (s.st0n == tr->outs) {
			frac = 1;
			for (long i = 0; i < s.st0n; i++) {
				double a = s.st0[i].gain, b = tr->out[i].gain;
				if (a <= TRACE_NONE && b > TRACE_NONE)
					frac =
					    fmin(frac, (TRACE_NONE - a) / (b - a) +
					                   0.3 * (TRACE_AT - TRACE_NONE) / (b - a));
			}
			for (long j = 0; j < t->mixes; j++)
				for (int l = 0; l < PLAIN; l++) {
					double a = s.p0[j * PLAIN + l], b = t->mix[j].p[l];
					if ((t->mix[j].support >> l & 1) && a >= -TRACE_AT &&
					    b < -TRACE_NONE)
						frac = fmin(frac, (a + 3 * TRACE_NONE) / (a - b));
				}
			if (s.x[d] > 0 && s.y[d] < -TRACE_NONE)
				frac = fmin(frac, (s.x[d] + 5 * TRACE_NONE) / (s.x[d] - s.y[d]));
		}
		h *= fmin(fmax(frac, 1e-3), 0.95);
	}
	if (!accepted)
		goto fail;
	trace_set(t, s.vj, s.vl, d, s.y);
	tr->lam = s.y[d];
	if (!at_y)
		memcpy(t->w, base, tr->bytes);
	if (!trace_eval(tr))
		goto fail;
	tr->last_h = 0;
	tr->jac_d = -1;
	if (kind == NONE && at_y) {
		memcpy(tr->last, base, tr->bytes);
		tr->last_h = h;
		trace_keep_jacobian(tr, &s);
	}
	if (kind == NONE && h == *hstep)
		*hstep = fmin(*hstep * 2, TRACE_HMAX);
	rising = s.tg[d] > 0;
	trace_step_free(&s);
	if (kind == ENDS || (kind == NONE && tr->lam <= 0)) {
		tr->lam = 0;
		return TRACE_END;
	}
	if (kind == NONE)
		return TRACE_GO;
	tr->events++;
	if (kind == LEAVES) {
		t->mix[mixed_at(t, ev.key)].p[ev.opt] = 0;
		if (trace_change(tr, ev.key, ev.opt, 0) != 0)
			return TRACE_FAIL;
		*leave = ev;
		/* a pure profile goes on the way the option that left falls
		 * behind: down if it was the start option (its bonus shrinks),
		 * up if the decision is back at its start (the bonus grows) */
		tr->up = ev.opt == tr->start[ev.key]           ? 0
		         : t->pol[ev.key] == tr->start[ev.key] ? 1
		                                               : rising;
	} else {
		if (trace_change(tr, ev.key, ev.opt, 1) != 0 ||
		    trace_dir_add(dir, ev.key, ev.opt, 1e-3) != 0)
			return TRACE_FAIL;
		*enter = ev;
	}
	return trace_eval(tr) ? TRACE_GO : TRACE_FAIL;
fail:
	trace_step_free(&s);
	return TRACE_FAIL;
}

/* What a step hands the next besides the trace's own fields: the tangent,
 * the step length to try, the option that last joined or left a support
 * (key -1: none). */
struct trace_at {
	struct trace_dir dir;
	double hstep;
	struct trace_opt enter, leave;
};

static const char trace_magic[8] = { 'r', 'l', 'y', 'e', 'h', 't', 'r', '1' };

/* The fixed part of a state. */
struct trace_head {
	char magic[8];
	int32_t n, per_player, up, pad;
	uint64_t all, mixes, dir_d, has_tan;
	int64_t events, switches, enter_key, leave_key;
	int32_t enter_opt, leave_opt;
	double lam, hstep;
};

static void trace_put(uint8_t **at, const void *src, size_t len)
{
	memcpy(*at, src, len);
	*at += len;
}

/* The path's state at *at as bytes (caller frees) and their length into
 * *len: the head, then the tangent, the start, t->pol and t->mix. NULL when
 * memory runs out. */
static uint8_t *trace_save(const struct trace *tr, const struct trace_at *at, size_t *len)
{
	const struct cdsolve_table *t = tr->t;
	size_t all = (size_t)t->stats.states * (size_t)t->dec,
	       d = at->dir.tan ? (size_t)at->dir.d : 0;
	struct trace_head h = { .n = t->n,
		                .per_player = t->per_player,
		                .up = tr->up,
		                .all = all,
		                .mixes = (uint64_t)t->mixes,
		                .dir_d = d,
		                .has_tan = at->dir.tan != NULL,
		                .events = tr->events,
		                .switches = tr->switches,
		                .enter_key = at->enter.key,
		                .leave_key = at->leave.key,
		                .enter_opt = at->enter.opt,
		                .leave_opt = at->leave.opt,
		                .lam = tr->lam,
		                .hstep = at->hstep };
	uint8_t *buf, *p;

	memcpy(h.magic, trace_magic, sizeof(h.magic));
	*len = sizeof(h) +
	       (h.has_tan ? (d + 1) * sizeof(double) + d * (sizeof(int64_t) + sizeof(int)) : 0) +
	       2 * all + (size_t)t->mixes * sizeof(struct mixed);
	if (!(buf = p = malloc(*len)))
		return NULL;
	trace_put(&p, &h, sizeof(h));
	if (h.has_tan) {
		trace_put(&p, at->dir.tan, (d + 1) * sizeof(double));
		trace_put(&p, at->dir.key, d * sizeof(int64_t));
		trace_put(&p, at->dir.opt, d * sizeof(int));
	}
	trace_put(&p, tr->start, all);
	trace_put(&p, t->pol, all);
	trace_put(&p, t->mix, (size_t)t->mixes * sizeof(struct mixed));
	return buf;
}

/* Puts the path where state (len bytes, from trace_save) says, on the same
 * table and start: t's profile and values, tr's lambda and counts, *at.
 * 1 when done, 0 when the state is not one of this trace (nothing
 * changed), -1 when memory runs out or the values do not settle (t's
 * profile then unknown). */
static int trace_load(struct trace *tr, struct trace_at *at, const uint8_t *state, size_t len)
{
	struct cdsolve_table *t = tr->t;
	size_t all = (size_t)t->stats.states * (size_t)t->dec, d, need;
	const uint8_t *p = state + sizeof(struct trace_head), *pol, *start, *mix;
	int rc;
	struct trace_head h;
	uint8_t *sup;
	long j = 0;

	if (len < sizeof(h))
		return 0;
	memcpy(&h, state, sizeof(h));
	d = (size_t)h.dir_d;
	if (memcmp(h.magic, trace_magic, sizeof(h.magic)) != 0 || h.n != t->n ||
	    h.per_player != t->per_player || h.all != all || h.mixes > all || d > all ||
	    !(h.lam >= 0 && h.lam <= 1) || !(h.hstep > 0 && h.hstep <= TRACE_HMAX) ||
	    (h.up != 0 && h.up != 1) || h.events < 0 || h.switches < 0 || h.enter_key < -1 ||
	    h.enter_key >= (int64_t)all || h.leave_key < -1 || h.leave_key >= (int64_t)all ||
	    h.enter_opt < -1 || h.enter_opt >= PLAIN || h.leave_opt < -1 || h.leave_opt >= PLAIN)
		return 0;
	need = sizeof(h) +
	       (h.has_tan ? (d + 1) * sizeof(double) + d * (sizeof(int64_t) + sizeof(int)) : 0) +
	       2 * all + (size_t)h.mixes * sizeof(struct mixed);
	if (len != need)
		return 0;
	if (h.has_tan) {
		at->dir.tan = malloc((d + 1) * sizeof(double));
		at->dir.key = malloc((d + 1) * sizeof(int64_t));
		at->dir.opt = malloc((d + 1) * sizeof(int));
		if (!at->dir.tan || !at->dir.key || !at->dir.opt) {
			trace_dir_free(&at->dir);
			return -1;
		}
		memcpy(at->dir.tan, p, (d + 1) * sizeof(double));
		p += (d + 1) * sizeof(double);
		memcpy(at->dir.key, p, d * sizeof(int64_t));
		p += d * sizeof(int64_t);
		memcpy(at->dir.opt, p, d * sizeof(int));
		p += d * sizeof(int);
		at->dir.d = (long)d;
	}
	start = p;
	pol = p + all;
	mix = p + 2 * all; /* struct mixed each, not aligned */
	if (memcmp(start, tr->start, all) != 0 || !(sup = malloc(all))) {
		trace_dir_free(&at->dir);
		return memcmp(start, tr->start, all) != 0 ? 0 : -1;
	}
	for (size_t i = 0; i < all && sup; i++) {
		struct mixed m = { .key = -1 };
		if (pol[i] < PLAIN) {
			sup[i] = (uint8_t)(1u << pol[i]);
			continue;
		}
		if (pol[i] == MIXED && (uint64_t)j < h.mixes)
			memcpy(&m, mix + sizeof(m) * (size_t)j++, sizeof(m));
		if (pol[i] != MIXED || m.key != (int64_t)i || m.support == 0 ||
		    m.support >= 1u << PLAIN) {
			free(sup);
			sup = NULL;
		} else {
			sup[i] = (uint8_t)m.support;
		}
	}
	if (!sup || (uint64_t)j != h.mixes) {
		free(sup);
		trace_dir_free(&at->dir);
		return 0;
	}
	rc = trace_resupport(tr, sup);
	free(sup);
	if (rc != 0 || t->mixes != (long)h.mixes) {
		trace_dir_free(&at->dir);
		return -1;
	}
	for (j = 0; j < t->mixes; j++)
		memcpy(t->mix[j].p,
		       mix + sizeof(struct mixed) * (size_t)j + offsetof(struct mixed, p),
		       sizeof(t->mix[j].p));
	tr->lam = h.lam;
	tr->up = h.up;
	tr->events = tr->saved = h.events;
	tr->switches = h.switches;
	at->hstep = h.hstep;
	at->enter = (struct trace_opt){ h.enter_key, h.enter_opt, 0 };
	at->leave = (struct trace_opt){ h.leave_key, h.leave_opt, 0 };
	return trace_eval(tr) ? 1 : -1;
}

/* Reports progress, with the path's state once every tr->save_every
 * events (none when memory runs out for it). */
static void trace_report(struct trace *tr, const struct trace_at *at)
{
	uint8_t *state = NULL;
	size_t len = 0;

	if (!tr->progress)
		return;
	if (tr->save_every > 0 && tr->events / tr->save_every != tr->saved / tr->save_every &&
	    (state = trace_save(tr, at, &len)) != NULL)
		tr->saved = tr->events;
	tr->progress(tr->arg, tr->lam, tr->events, tr->t->mixes, state, len);
	free(state);
}

/* Follows the path from *at (t's profile, its values current) to lambda
 * 0. 1 when it gets there, 0 when a step finds no point of it or memory
 * runs out (t's profile then where the path stopped). */
static int trace_run(struct trace *tr, struct trace_at *at)
{
	double *base = malloc(tr->bytes);
	enum trace_next next = base ? TRACE_GO : TRACE_FAIL;

	while (next == TRACE_GO) {
		if (trace_vars(tr->t, NULL, NULL) == 0) {
			at->leave.key = -1;
			next = trace_pure(tr, &at->enter, base);
			trace_report(tr, at);
			if (next != TRACE_GO || at->enter.key < 0)
				continue;
			trace_dir_free(&at->dir);
		}
		next = trace_mixed(tr, base, &at->dir, &at->hstep, &at->enter, &at->leave);
		trace_report(tr, at);
	}
	trace_dir_free(&at->dir);
	free(base);
	return next == TRACE_END;
}

/* The tracing homotopy from the logit profile at t's values (wk.mid
 * built): the start is each decision's likeliest option there; on return
 * *seeds (caller frees) holds the decisions whose support at lambda 0
 * differs from the start, and t is the logit profile again (values and
 * temperature as they were). 1 when the path reached lambda 0, 0 when it
 * did not (no seeds), -1 when memory runs out. */
static int trace(struct cdsolve_table *t, struct work *wk, struct accel *acc, size_t bytes,
                 const struct trace_req *req)
{
	size_t all = (size_t)t->stats.states * (size_t)t->dec;
	double *logit_w = malloc(bytes);
	struct trace tr = { .t = t,
		            .wk = wk,
		            .acc = acc,
		            .bytes = bytes,
		            .lam = 1,
		            .progress = req->run.progress,
		            .arg = req->run.arg,
		            .save_every = req->run.save_every };
	struct trace_at at = { .hstep = TRACE_H0, .enter = { -1, -1, 0 }, .leave = { -1, -1, 0 } };
	struct cdsolve_seed *seeds = NULL;
	long count = 0;
	int reached = -1;

	tr.out_cap = wk->playing_count * (1 + 2 * (long)(t->n - 1) * PLAIN) * (PLAIN - 1);
	tr.out = malloc(sizeof(struct trace_opt) * (size_t)tr.out_cap);
	tr.worth = malloc(sizeof(double) * PLAIN);
	tr.start = malloc(all);
	tr.landed = malloc(bytes);
	tr.last = malloc(bytes);
	tr.jac_d = -1;
	if (!logit_w || !tr.out || !tr.worth || !tr.start || !tr.landed || !tr.last ||
	    polish_start(t, wk, NULL, 0, 1) != 0)
		goto done;
	memcpy(logit_w, t->w, bytes);
	for (size_t i = 0; i < all; i++)
		tr.start[i] = t->pol[i];
	t->frozen = 1;
	reached = trace_eval(&tr) ? 1 : 0;
	if (reached && req->run.resume &&
	    (reached = trace_load(&tr, &at, req->run.resume, req->run.resume_len)) == 0)
		reached = 1; /* not this trace's state: from the start */
	reached = reached == 1 ? trace_run(&tr, &at) : 0;
	trace_dir_free(&at.dir);
	memcpy(t->w, logit_w, bytes);
	if (reached == 1) {
		for (size_t i = 0; i < all; i++)
			count += support_at(t, i) != 1u << tr.start[i];
		if (!(seeds = malloc(sizeof(*seeds) * (size_t)(count + 1))))
			reached = -1;
		count = 0;
		for (size_t i = 0; seeds && i < all; i++)
			if (support_at(t, i) != 1u << tr.start[i])
				seeds[count++] =
				    (struct cdsolve_seed){ (uint32_t)i, support_at(t, i) };
	}
	*req->seeds = seeds;
	*req->count = count;
done:
	free(t->pol);
	free(t->mix);
	t->pol = NULL;
	t->mix = NULL;
	t->mixes = t->stats.mixed = 0;
	t->frozen = 0;
	free(logit_w);
	free(tr.out);
	free(tr.worth);
	free(tr.start);
	free(tr.landed);
	free(tr.last);
	free(tr.jac);
	return reached;
}

/* The first temperature of the logit path for n cultists (per_player a
 * player in Rival Cults): colder where the 2-s budget would end the path
 * at its first temperature (6 cultists, Rival Cults 2x3; from the guess
 * the iteration settles on the same branch the path reaches there), and
 * at 5 cultists, where the branch the path from CDSOLVE_TAU_START is on
 * stalls near 0.0057 but the iteration settles at once at
 * CDSOLVE_TAU_START5 on another logit equilibrium, nearer an equilibrium
 * of the game (docs/cli.md). */
static double first_tau(int n, int per_player)
{
	if (per_player == 3)
		return CDSOLVE_TAU_COLD;
	if (!per_player && n == 5)
		return CDSOLVE_TAU_START5;
	if (!per_player && n == 6)
		return CDSOLVE_TAU_START6;
	return CDSOLVE_TAU_START;
}

/* cdsolve_build, or with req cdsolve_trace: the tracing homotopy between
 * the logit path and the polish, whose seeds the polish then starts from. */
static struct cdsolve_table *build(int n, int per_player, enum cdsolve_profile profile,
                                   const struct trace_req *req)
{
	struct cdsolve_table *t;
	struct work wk = { 0 };
	size_t bytes;
	double *save;

	if (!(t = table_new(n, per_player)))
		return NULL;
	bytes = rows_of(t) * (size_t)t->width * sizeof(double);
	t->w = rows_alloc(bytes);
	if (t->w)
		memset(t->w, 0, bytes);
	save = malloc(bytes);
	if (!t->w || !save || work_new(&wk, t) != 0) {
		free(save);
		cdsolve_free(t);
		return NULL;
	}
	if (work_permute(&wk) != 0) {
		free(save);
		work_free(&wk);
		cdsolve_free(t);
		return NULL;
	}
	set_ends(t, t->w, t->width, 0);
	t->stats.bytes_kept = sizeof(*t) + bytes;
	t->stats.bytes_peak = t->stats.bytes_kept + bytes + work_bytes(t);
	if (profile == CDSOLVE_RANDOM) {
		t->uniform = 1;
		converge_plain(t, &wk, CDSOLVE_EPS, CDSOLVE_SWEEPS);
	} else {
		/* The logit path: each temperature starts from the values of
		 * the last that converged. When one does not, the values go
		 * back and the next try lies nearer (the step's exponent
		 * halves), as a homotopy shortens its step. */
		struct accel acc;
		int ok, kept = 0, last_from;
		if (accel_new(&acc, t) != 0) {
			free(save);
			work_free(&wk);
			cdsolve_free(t);
			return NULL;
		}
		t->stats.bytes_peak += accel_bytes(t);
		t->tau = first_tau(n, per_player);
		wk.dead = calloc((size_t)t->stats.states, 1);
		if (!wk.dead) {
			accel_free(&acc);
			free(save);
			work_free(&wk);
			cdsolve_free(t);
			return NULL;
		}
		t->stats.bytes_peak += (size_t)t->stats.states;
		/* from this many sweeps on, descend() would find fewer than
		 * CDSOLVE_STAGE_MIN sweeps left in the budget: the first
		 * temperature is the last */
		last_from =
		    (int)(CDSOLVE_BUDGET / (double)wk.playing_count) - CDSOLVE_STAGE_MIN + 1;
		/* a start too cold for the iteration to settle from the first
		 * guess starts again four times warmer */
		guess(t, &wk);
		t->damp = CDSOLVE_OVERRELAX;
		while (!(ok = converge(t, &wk, &acc, CDSOLVE_EPS_COLD, CDSOLVE_STAGE_SWEEPS,
		                       last_from)) &&
		       t->tau < 1) {
			t->stats.failed = t->stats.sweeps;
			guess(t, &wk);
			t->tau *= 4;
		}
		t->stats.stages = ok;
		t->damp = 1;
		memcpy(save, t->w, bytes);
		/* the polish (from the trace's seeds when there are any),
		 * unless the path ran out of its budget (the trace runs
		 * regardless); when the polish fails, the path goes on with
		 * damped sweeps */
		if (ok &&
		    (descend(t, &wk, &acc, save, bytes, CDSOLVE_TAU_MIN,
		             CDSOLVE_BUDGET - (double)t->stats.sweeps * (double)wk.playing_count) ||
		     req)) {
			const struct cdsolve_seed *seeds = NULL;
			long count = 0;
			if (req)
				kept = work_mid(&wk) != 0 ? -1 : trace(t, &wk, &acc, bytes, req);
			if (req && kept >= 0) {
				seeds = *req->seeds;
				count = *req->count;
			}
			if (kept >= 0)
				kept = polish(t, &wk, &acc, save, bytes, seeds, count);
			if (kept == 0) {
				t->damp = CDSOLVE_DAMP;
				descend(t, &wk, &acc, save, bytes, CDSOLVE_TAU_MIN,
				        CDSOLVE_BUDGET -
				            (double)t->stats.sweeps * (double)wk.playing_count);
			}
		}
		if (kept < 0) {
			accel_free(&acc);
			free(save);
			work_free(&wk);
			cdsolve_free(t);
			return NULL;
		}
		t->stats.bytes_kept += policy_bytes(t);
		if (wk.mid) /* the polish ran: its values, profile, supports, wk.mid */
			t->stats.bytes_peak +=
			    bytes + policy_bytes(t) + 2 * (size_t)t->stats.states * (size_t)t->dec +
			    (size_t)t->stats.states * (size_t)(n - 1) * PLAIN * sizeof(int32_t);
		accel_free(&acc);
	}

	/* the rows back in rank order */
	for (long r = 0; r < t->stats.states; r++)
		memcpy(save + (size_t)r * (size_t)t->width,
		       t->w + (size_t)wk.pos[r] * (size_t)t->width,
		       sizeof(double) * (size_t)t->width);
	memcpy(t->w, save, sizeof(double) * (size_t)t->stats.states * (size_t)t->width);
	t->stats.tau = t->uniform ? 0 : t->tau;
	free(save);
	work_free(&wk);
	return t;
}

struct cdsolve_table *cdsolve_build(int n, int per_player, enum cdsolve_profile profile)
{
	return build(n, per_player, profile, NULL);
}

struct cdsolve_table *cdsolve_trace(int n, int per_player, const struct cdsolve_trace_run *run,
                                    struct cdsolve_seed **seeds, long *count)
{
	struct trace_req req = { .seeds = seeds, .count = count };
	struct cdsolve_table *t;

	if (run)
		req.run = *run;
	*seeds = NULL;
	*count = 0;
	t = build(n, per_player, CDSOLVE_PERFECT, &req);
	if (!t) {
		free(*seeds);
		*seeds = NULL;
		*count = 0;
	}
	return t;
}

int cdsolve_exploit(const struct cdsolve_table *t, struct cdsolve_exploit *out)
{
	struct work wk = { 0 };
	int n = t->n, groups = t->per_player ? 2 : n, slots = n - 1;
	double *br;
	uint8_t start[CDSOLVE_MAX_CULTISTS];
	long init;

	memset(out, 0, sizeof(*out));
	br = calloc(rows_of(t) * (size_t)groups, sizeof(double));
	if (!br || work_new(&wk, t) != 0) {
		free(br);
		return -1;
	}
	set_ends(t, br, groups, groups);
	out->groups = groups;
	do {
		double res = 0;
		for (long o = 0; o < wk.playing_count; o++) {
			long idx = wk.order[o];
			struct turn_mix m;
			double v[WIDTH_MAX], *b = br + (size_t)idx * (size_t)groups;
			backup(&wk, idx, v, &m);
			for (int d = 0; d < groups; d++) {
				/* group d (this state's coordinates) is dn in the next
				 * Caster's; seat q (own coordinates) is in it when */
				int dn = t->per_player ? d ^ 1 : (d - 1 + n) % n;
				int caster_in = d == 0; /* the Caster is seat 0 */
				double best = -1, mixed = 0, nv;
				for (int k = 0; k < slots; k++) {
					const int32_t *nx =
					    wk.next + ((size_t)idx * slots + k) * PLAIN * PLAIN;
					int victim_in =
					    t->per_player ? (k + 1) % 2 == d : k + 1 == d;
					double cv = 0, ctop = -1, rvs[PLAIN];
					if (nx[0] == INT32_MIN)
						continue;
					for (int cf = 0; cf < PLAIN; cf++) {
						double rv = 0, top = -1, ev = 0;
						for (int rf = 0; rf < PLAIN; rf++) {
							double y = br[(size_t)nx[cf * PLAIN + rf] *
							                  (size_t)groups +
							              (size_t)dn];
							rv += face_p[rf] * y;
							ev += m.victim_eye[k][cf][rf] * y;
							if (y > top)
								top = y;
						}
						rv += face_p[CDICE_EYE] * (victim_in ? top : ev);
						rvs[cf] = rv;
						cv += face_p[cf] * rv;
						if (rv > ctop)
							ctop = rv;
					}
					if (caster_in) {
						cv += face_p[CDICE_EYE] * ctop;
					} else {
						double ev = 0;
						for (int cf = 0; cf < PLAIN; cf++)
							ev += m.caster_eye[k][cf] * rvs[cf];
						cv += face_p[CDICE_EYE] * ev;
					}
					if (cv > best)
						best = cv;
					mixed += m.victim[k] * cv;
				}
				nv = caster_in ? best : mixed;
				if (fabs(nv - b[d]) > res)
					res = fabs(nv - b[d]);
				b[d] = nv;
			}
		}
		out->sweeps++;
		out->residual = res;
	} while (out->residual > CDSOLVE_EPS && out->sweeps < CDSOLVE_SWEEPS);
	for (int i = 0; i < n; i++)
		start[i] = CDICE_SANITY;
	init = rank_of(t, start);
	for (long idx = 0; idx < t->stats.states; idx++) {
		const double *w = t->w + (size_t)idx * (size_t)t->width;
		if (!wk.playing[idx])
			continue;
		for (int d = 0; d < groups; d++) {
			double gap = br[(size_t)idx * (size_t)groups + (size_t)d] - own(t, w, d);
			if (idx == init)
				out->at_start[d] = gap;
			if (gap > out->worst)
				out->worst = gap;
		}
	}
	free(br);
	work_free(&wk);
	return 0;
}

/* The serialized table: this header, then states * width doubles, the
 * profile's states * dec decisions (bytes), and its mixes mixed decisions
 * (struct mixed). */
struct image_head {
	char magic[8];      /* "rlyehsv7" */
	uint32_t byteorder; /* 0x01020304 as written */
	int32_t n, per_player, width, sweeps;
	int64_t states;
	double tau, eps, residual, cut;
	int32_t stages, uniform;
	int64_t mixes;
	int32_t dec, polished; /* 1: the profile's decisions follow */
};

static const char image_magic[8] = { 'r', 'l', 'y', 'e', 'h', 's', 'v', '7' };

size_t cdsolve_image_size(const struct cdsolve_table *t)
{
	return sizeof(struct image_head) +
	       (size_t)t->stats.states * (size_t)t->width * sizeof(double) + policy_bytes(t);
}

void cdsolve_image_write(const struct cdsolve_table *t, void *buf)
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
	h.tau = t->tau;
	h.eps = CDSOLVE_EPS;
	h.residual = t->stats.residual;
	h.cut = CDSOLVE_CUT;
	h.stages = t->stats.stages;
	h.uniform = t->uniform;
	h.mixes = t->mixes;
	h.dec = t->dec;
	h.polished = t->pol != NULL;
	memcpy(buf, &h, sizeof(h));
	buf = (char *)buf + sizeof(h);
	memcpy(buf, t->w, (size_t)t->stats.states * (size_t)t->width * sizeof(double));
	buf = (char *)buf + (size_t)t->stats.states * (size_t)t->width * sizeof(double);
	if (t->pol) {
		memcpy(buf, t->pol, (size_t)t->stats.states * (size_t)t->dec);
		buf = (char *)buf + (size_t)t->stats.states * (size_t)t->dec;
		memcpy(buf, t->mix, (size_t)t->mixes * sizeof(struct mixed));
	}
}

/* 1 when the profile read into t (pol, mix) is one: every decision an
 * option there is or MIXED, the mixed ones in key order, each with
 * probabilities on its support summing to 1. */
static int policy_valid(const struct cdsolve_table *t)
{
	size_t all = (size_t)t->stats.states * (size_t)t->dec;
	long e = 0;

	for (size_t i = 0; i < all; i++) {
		int d = (int)(i % (size_t)t->dec), count = d == 0 ? t->n - 1 : PLAIN;
		const struct mixed *m;
		double sum = 0;
		if (t->pol[i] != MIXED) {
			if (t->pol[i] >= count)
				return 0;
			continue;
		}
		if (e >= t->mixes || t->mix[e].key != (int64_t)i)
			return 0;
		m = &t->mix[e++];
		for (int l = 0; l < CDSOLVE_MAX_CULTISTS - 1; l++) {
			if (!(m->p[l] >= 0 && m->p[l] <= 1) ||
			    (m->p[l] > 0 && (l >= count || !(m->support >> l & 1))))
				return 0;
			sum += m->p[l];
		}
		if (!(fabs(sum - 1) < 1e-9))
			return 0;
	}
	return e == t->mixes;
}

struct cdsolve_table *cdsolve_image_read(const void *buf, size_t len, int n, int per_player)
{
	struct image_head h;
	struct cdsolve_table *t;
	size_t values, decisions = 0;

	if (len < sizeof(h))
		return NULL;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, image_magic, sizeof(h.magic)) != 0 || h.byteorder != 0x01020304u ||
	    h.n != n || h.per_player != per_player || h.eps != CDSOLVE_EPS ||
	    h.cut != CDSOLVE_CUT || h.uniform != 0 || !(h.tau > 0 && h.tau <= 2))
		return NULL;
	if (!(t = table_new(n, per_player)))
		return NULL;
	values = (size_t)t->stats.states * (size_t)t->width;
	if (h.polished == 1)
		decisions = (size_t)t->stats.states * (size_t)t->dec;
	if (h.width != t->width || h.states != t->stats.states || h.dec != t->dec ||
	    (h.polished != 0 && h.polished != 1) || h.mixes < 0 || h.mixes > (int64_t)decisions ||
	    len != sizeof(h) + values * sizeof(double) + decisions +
	               (size_t)h.mixes * sizeof(struct mixed) ||
	    !(t->w = rows_alloc(rows_of(t) * (size_t)t->width * sizeof(double))) ||
	    !(t->pol = malloc(decisions ? decisions : 1)) ||
	    !(t->mix = malloc(h.mixes ? (size_t)h.mixes * sizeof(struct mixed) : 1))) {
		cdsolve_free(t);
		return NULL;
	}
	memcpy(t->w, (const char *)buf + sizeof(h), values * sizeof(double));
	memcpy(t->pol, (const char *)buf + sizeof(h) + values * sizeof(double), decisions);
	memcpy(t->mix, (const char *)buf + sizeof(h) + values * sizeof(double) + decisions,
	       (size_t)h.mixes * sizeof(struct mixed));
	t->mixes = (long)h.mixes;
	t->stats.mixed = t->mixes;
	t->frozen = 1;
	t->stats.polished = h.polished;
	if (!h.polished) {
		free(t->pol);
		free(t->mix);
		t->pol = NULL;
		t->mix = NULL;
	} else if (!policy_valid(t)) {
		cdsolve_free(t);
		return NULL;
	}
	set_ends(t, t->w, t->width, 0);
	/* chances in [0, 1] summing to 1, then a length that is not negative;
	 * or, for a turn start that cannot be played, all zero */
	for (size_t i = 0; i < values; i += (size_t)t->width) {
		double sum = 0;
		for (int k = 0; k <= n; k++) {
			double v = t->w[i + (size_t)k];
			if (!(v >= 0 && v <= 1)) {
				cdsolve_free(t);
				return NULL;
			}
			sum += v;
		}
		if (!(fabs(sum - 1) < 1e-6 || (sum == 0 && t->w[i + (size_t)n + 1] == 0)) ||
		    !(t->w[i + (size_t)n + 1] >= 0) || !isfinite(t->w[i + (size_t)n + 1])) {
			cdsolve_free(t);
			return NULL;
		}
	}
	t->tau = h.tau;
	t->stats.tau = h.tau;
	t->stats.stages = h.stages;
	t->stats.sweeps = h.sweeps;
	t->stats.residual = h.residual;
	t->stats.bytes_kept =
	    sizeof(*t) + rows_of(t) * (size_t)t->width * sizeof(double) + policy_bytes(t);
	t->stats.bytes_peak = t->stats.bytes_kept;
	return t;
}

void cdsolve_free(struct cdsolve_table *t)
{
	if (!t)
		return;
	free(t->w);
	free(t->pol);
	free(t->mix);
	free(t);
}

const struct cdsolve_stats *cdsolve_stats(const struct cdsolve_table *t)
{
	return &t->stats;
}

int cdsolve_fits(const struct cdsolve_table *t, const struct cdice *g)
{
	return t && t->n == g->n && t->per_player == g->per_player;
}

/* ---- queries ---- */

/* The profile's probabilities at g's choice node among the count options
 * opt[] (seats for a victim, faces for an Eye) worth x[] to the chooser. */
static void profile_at(const struct cdsolve_table *t, const struct cdice *g, const int *opt,
                       const double *x, int count, double *p)
{
	int n = t->n, ids[GAME_MAX_OPTIONS], d;
	int slot = (g->victim - g->caster + n) % n - 1;

	if (t->uniform) {
		cdsolve_choice(0, x, count, p);
		return;
	}
	if (g->phase == CDICE_VICTIM) {
		d = 0;
		for (int l = 0; l < count; l++)
			ids[l] = (opt[l] - g->caster + n) % n - 1;
	} else {
		d = g->phase == CDICE_CURSE_EYE ? 1 + slot : n + slot;
		for (int l = 0; l < count; l++)
			ids[l] = opt[l];
	}
	decide(t, 1 / t->tau, rank_from(t, g, g->caster), d, x, ids, count, p);
}

/* Values (width) of any position g, looking ahead to the end of the turn:
 * chance nodes average, Eye choices follow the profile. */
static void node_value(const struct cdsolve_table *t, const struct cdice *g, double *out)
{
	int n = t->n;

	switch (g->phase) {
	case CDICE_OVER:
		memset(out, 0, sizeof(double) * (size_t)t->width);
		out[g->winner >= 0 ? g->winner : n] = 1;
		return;
	case CDICE_VICTIM: {
		const double *v = t->w + (size_t)rank_from(t, g, g->caster) * (size_t)t->width;
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
		double v[PLAIN][WIDTH_MAX], x[PLAIN], p[PLAIN];
		int seat = g->phase == CDICE_CURSE_EYE ? g->caster : g->victim;
		for (int f = 0; f < PLAIN; f++) {
			struct cdice c = *g;
			cdice_eye(&c, (enum cdice_face)f, NULL);
			node_value(t, &c, v[f]);
			if (c.phase == CDICE_VICTIM || c.phase == CDICE_OVER)
				v[f][n + 1] += 1;
			x[f] = owner_value(t, v[f], seat);
		}
		profile_at(t, g, faces_ids, x, PLAIN, p);
		memset(out, 0, sizeof(double) * (size_t)t->width);
		for (int f = 0; f < PLAIN; f++)
			axpy(t->width, p[f], v[f], out);
		return;
	}
	default:
		assert(!"node_value: bad phase");
	}
}

void cdsolve_value(const struct cdsolve_table *t, const struct cdice *g, double *out)
{
	double v[WIDTH_MAX];

	assert(cdsolve_fits(t, g));
	node_value(t, g, v);
	memcpy(out, v, sizeof(double) * (size_t)(t->n + 1));
}

double cdsolve_length(const struct cdsolve_table *t, const struct cdice *g)
{
	double v[WIDTH_MAX];

	assert(cdsolve_fits(t, g) && (g->phase == CDICE_VICTIM || g->phase == CDICE_OVER));
	if (g->phase == CDICE_OVER)
		return 0;
	node_value(t, g, v);
	return v[t->n + 1];
}

int cdsolve_options(const struct cdsolve_table *t, const struct cdice *g,
                    const struct game_step *step, double *out, double *prob)
{
	double v[GAME_MAX_OPTIONS][WIDTH_MAX], x[GAME_MAX_OPTIONS] = { 0 }, p[GAME_MAX_OPTIONS];
	int n = t->n, best = 0;

	assert(cdsolve_fits(t, g));
	if (step->node != GAME_NODE_CHOICE)
		return -1;
	for (int k = 0; k < step->count; k++) {
		struct cdice c = *g;
		int rc = cdice_apply(&c, step->options[k], NULL);
		assert(rc == GAME_OK);
		(void)rc;
		node_value(t, &c, v[k]);
		if (c.phase == CDICE_VICTIM || c.phase == CDICE_OVER)
			v[k][n + 1] += 1;
		x[k] = owner_value(t, v[k], step->seat);
		if (x[k] > x[best] + CDSOLVE_TIE)
			best = k;
		if (out)
			for (int i = 0; i <= n; i++)
				out[k * (CDICE_MAX + 1) + i] = v[k][i];
	}
	profile_at(t, g, step->options, x, step->count, p);
	if (prob)
		memcpy(prob, p, sizeof(double) * (size_t)step->count);
	return best;
}

int cdsolve_pick(const struct cdsolve_table *t, const struct cdice *g, const struct game_step *step,
                 struct rng *rng)
{
	double p[GAME_MAX_OPTIONS], u, acc = 0;
	int k;

	if (cdsolve_options(t, g, step, NULL, p) < 0)
		return -1;
	/* one draw a choice, pure or not, 53 bits in [0, 1) */
	u = (double)(rng_next(rng) >> 11) * 0x1p-53;
	for (k = 0; k < step->count - 1; k++) {
		acc += p[k];
		if (u < acc)
			break;
	}
	while (p[k] == 0) /* rounding left u past the last option in use */
		k--;
	return k;
}
