/* rating: the Weng-Lin Bayesian skill rating with the Plackett-Luce model
 * (Weng & Lin, JMLR 12, 2011, Algorithm 4), computed as the OpenSkill
 * libraries (openskill.py, openskill.js) do with their default parameters:
 *
 *   mu = 25, sigma = 25/3, beta = 25/6, kappa = 0.0001, tau = 25/300,
 *   gamma = sigma_i / c, limit_sigma off.
 *
 * Every player is a team of one (free-for-all); several players may share a
 * place. Like OpenSkill's rate(), each update first widens every sigma to
 * sqrt(sigma^2 + tau^2), so a player's uncertainty never shrinks to nothing;
 * the update itself can only shrink that widened sigma. */
#ifndef RLYEH_RATING_H
#define RLYEH_RATING_H

#define RATING_MAX_PLAYERS 16

#define RATING_MU    25.0
#define RATING_SIGMA (25.0 / 3.0)
#define RATING_BETA  (25.0 / 6.0)
#define RATING_KAPPA 0.0001
#define RATING_TAU   (25.0 / 300.0)

/* A player's skill belief: a normal distribution of mean mu and standard
 * deviation sigma. */
struct rating {
	double mu;
	double sigma;
};

/* Sets *r to the rating of a player who has never played: mu 25, sigma 25/3. */
void rating_default(struct rating *r);

/* Returns the conservative skill estimate mu - 3 * sigma, the value to sort a
 * leaderboard by (0 for a new player). */
double rating_ordinal(const struct rating *r);

/* Updates the ratings r[0..n-1] of the n players of one finished game, in
 * place. rank[i] is player i's place: 0 is the best, a larger value a worse
 * place, and players with equal values tied. Only the order of the values
 * matters, so gaps are allowed ({ 0, 2, 2 } is the same game as { 0, 1, 1 }).
 * When everybody ties, ratings still move: equal players keep their mu,
 * unequal ones are drawn towards each other, and sigma changes as in any game.
 *
 * Returns 0 on success. Returns -1 and leaves every rating unchanged when r or
 * rank is NULL, n is outside [2, RATING_MAX_PLAYERS], a rank is negative, a
 * mu or sigma is not finite or a sigma is negative, or the result would not
 * be finite. The caller keeps ownership of both arrays; nothing is kept. */
int rating_update(struct rating *r, const int *rank, int n);

#endif
