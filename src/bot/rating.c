/* Weng-Lin Plackett-Luce update, following OpenSkill's PlackettLuce model
 * (openskill.py openskill/models/weng_lin/plackett_luce.py, openskill.js
 * src/models/plackett-luce.ts and src/rate.ts) for teams of one player.
 *
 * With s_i = sqrt(sigma_i^2 + tau^2) (the additive dynamics step OpenSkill's
 * rate() applies before the model) and v_i = s_i^2:
 *
 *   c     = sqrt(sum_i (v_i + beta^2))
 *   S_q   = sum over s with rank_s >= rank_q of exp(mu_s / c)
 *   A_q   = number of players with rank_q
 *   p_iq  = exp(mu_i / c) / S_q
 *   Omega = v_i / c   * sum over q with rank_q <= rank_i of ([q = i] - p_iq) / A_q
 *   Delta = gamma_i * v_i / c^2 * sum over the same q of p_iq (1 - p_iq) / A_q
 *   gamma_i = s_i / c
 *
 *   mu'    = mu_i + Omega
 *   sigma' = s_i * sqrt(max(1 - Delta, kappa))
 *
 * p_iq is evaluated as exp(mu_i / c - log S_q), with log S_q computed around
 * its largest term: the same value, but no overflow or 0/0 for far-apart mu
 * (and p_iq, mathematically at most 1, is held there against rounding). */
#include "rlyeh/rating.h"

#include <math.h>
#include <stddef.h>

void rating_default(struct rating *r)
{
	r->mu = RATING_MU;
	r->sigma = RATING_SIGMA;
}

double rating_ordinal(const struct rating *r)
{
	return r->mu - 3.0 * r->sigma;
}

static int arguments_valid(const struct rating *r, const int *rank, int n)
{
	if (r == NULL || rank == NULL || n < 2 || n > RATING_MAX_PLAYERS)
		return 0;
	for (int i = 0; i < n; i++) {
		if (rank[i] < 0 || !isfinite(r[i].mu) || !isfinite(r[i].sigma) || r[i].sigma < 0.0)
			return 0;
	}
	return 1;
}

/* log of the sum of exp(x[s]) over the players s placed at rank_q or worse. */
static double log_sum_from(const double *x, const int *rank, int n, int rank_q)
{
	double max = -INFINITY;
	double sum = 0.0;

	for (int s = 0; s < n; s++) {
		if (rank[s] >= rank_q && x[s] > max)
			max = x[s];
	}
	for (int s = 0; s < n; s++) {
		if (rank[s] >= rank_q)
			sum += exp(x[s] - max);
	}
	return max + log(sum);
}

int rating_update(struct rating *r, const int *rank, int n)
{
	double s[RATING_MAX_PLAYERS];
	double v[RATING_MAX_PLAYERS];
	double x[RATING_MAX_PLAYERS];
	double log_sum[RATING_MAX_PLAYERS];
	int tied[RATING_MAX_PLAYERS];
	struct rating out[RATING_MAX_PLAYERS];
	const double beta_sq = RATING_BETA * RATING_BETA;
	const double tau_sq = RATING_TAU * RATING_TAU;
	double c_sq = 0.0;
	double c;

	if (!arguments_valid(r, rank, n))
		return -1;

	for (int i = 0; i < n; i++) {
		s[i] = sqrt(r[i].sigma * r[i].sigma + tau_sq);
		v[i] = s[i] * s[i];
		c_sq += v[i] + beta_sq;
	}
	c = sqrt(c_sq);

	for (int i = 0; i < n; i++)
		x[i] = r[i].mu / c;
	for (int q = 0; q < n; q++) {
		log_sum[q] = log_sum_from(x, rank, n, rank[q]);
		tied[q] = 0;
		for (int j = 0; j < n; j++)
			tied[q] += rank[j] == rank[q];
	}

	for (int i = 0; i < n; i++) {
		double omega = 0.0;
		double delta = 0.0;
		double gamma = s[i] / c;

		for (int q = 0; q < n; q++) {
			double p;

			if (rank[q] > rank[i])
				continue;
			p = fmin(exp(x[i] - log_sum[q]), 1.0);
			delta += p * (1.0 - p) / tied[q];
			if (q == i)
				omega += (1.0 - p) / tied[q];
			else
				omega -= p / tied[q];
		}
		omega *= v[i] / c;
		delta *= v[i] / (c * c);
		delta *= gamma;

		out[i].mu = r[i].mu + omega;
		out[i].sigma = s[i] * sqrt(fmax(1.0 - delta, RATING_KAPPA));
		if (!isfinite(out[i].mu) || !isfinite(out[i].sigma))
			return -1;
	}

	for (int i = 0; i < n; i++)
		r[i] = out[i];
	return 0;
}
