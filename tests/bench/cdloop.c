/* The yardstick of the engine benchmark (tests/bench/engine.sh): classic
 * Cthulhu Dice with the baseline policy `random`, written as one plain
 * loop: no game interface, no events, no policy calls. It draws the same
 * random numbers in the same order as `rlyeh sim --policy random` (game g
 * from rng stream g of the seed; per turn the Victim among the sane
 * others in seat order, the curse's d12, an Eye's face, the response's
 * d12, an Eye's face), so it must print the same seats, cthulhu and
 * mean_turns; engine.sh checks that it does. Not a test: it prints numbers.
 *
 * Usage: bench_cdloop [--players N] [--games G] [--seed S]
 * Prints one JSON line shaped like rlyeh sim's: players, seed, games,
 * seats (win rate per seat), cthulhu, mean_turns, seconds, games_per_s. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rlyeh/rng.h"

#define MAX_SEATS 12

enum { YELLOW, TENTACLE, ELDER, CTHULHU, EYE };

static const uint8_t faces[12] = {
	YELLOW,   YELLOW,   YELLOW,   YELLOW, YELLOW,  TENTACLE,
	TENTACLE, TENTACLE, TENTACLE, ELDER,  CTHULHU, EYE,
};

struct table {
	int n, caster, victim, pool;
	int sanity[MAX_SEATS];
};

/* A face the roller rolled, or chose after an Eye, with its draw. */
static int roll(struct rng *rng)
{
	int face = faces[rng_below(rng, 12)];

	return face == EYE ? (int)rng_below(rng, 4) : face;
}

static void resolve(struct table *t, int roller, int target, int face)
{
	switch (face) {
	case YELLOW:
		if (t->sanity[target] > 0) {
			t->sanity[target]--;
			t->pool++;
		}
		break;
	case TENTACLE:
		if (t->sanity[t->victim] > 0) {
			t->sanity[t->victim]--;
			if (t->sanity[t->caster] > 0)
				t->sanity[t->caster]++;
			else
				t->pool++;
		}
		break;
	case ELDER:
		if (t->pool > 0) {
			t->pool--;
			t->sanity[roller]++;
		}
		break;
	default: /* CTHULHU */
		for (int i = 0; i < t->n; i++) {
			if (t->sanity[i] > 0) {
				t->sanity[i]--;
				t->pool++;
			}
		}
		break;
	}
}

/* Plays one game; returns the winning seat or -1 (Cthulhu), turns in *turns. */
static int play(int n, struct rng *rng, long long *turns)
{
	struct table t = { .n = n };
	int options[MAX_SEATS];

	for (int i = 0; i < n; i++)
		t.sanity[i] = 3;
	for (;;) {
		int k = 0, sane = 0, last = -1;

		for (int i = 0; i < n; i++)
			if (i != t.caster && t.sanity[i] > 0)
				options[k++] = i;
		t.victim = options[rng_below(rng, (uint32_t)k)];
		resolve(&t, t.caster, t.victim, roll(rng));
		resolve(&t, t.victim, t.caster, roll(rng));
		++*turns;
		for (int i = 0; i < n; i++) {
			if (t.sanity[i] > 0) {
				sane++;
				last = i;
			}
		}
		if (sane <= 1)
			return sane == 1 ? last : -1;
		t.caster = t.caster + 1 == n ? 0 : t.caster + 1;
	}
}

static int number(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	long long v;

	if (!*s || *s == '-')
		return -1;
	v = strtoll(s, &end, 10);
	if (*end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	long long players = 3, games = 1000000, seed = 1, wins[MAX_SEATS] = { 0 }, nobody = 0;
	long long turns = 0;
	struct timespec t0, t1;
	double seconds;

	for (int i = 1; i < argc; i++) {
		long long *into = strcmp(argv[i], "--players") == 0 ? &players
		                  : strcmp(argv[i], "--games") == 0 ? &games
		                  : strcmp(argv[i], "--seed") == 0  ? &seed
		                                                    : NULL;
		long long hi = into == &players ? MAX_SEATS
		               : into == &games ? 100000000000LL
		                                : INT64_MAX;

		if (!into || i + 1 >= argc ||
		    number(argv[i + 1], into == &players ? 2 : 0, hi, into)) {
			fputs("usage: bench_cdloop [--players 2-12] [--games G] [--seed S]\n",
			      stderr);
			return 2;
		}
		i++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long long g = 0; g < games; g++) {
		struct rng rng;
		int w;

		rng_seed_stream(&rng, (uint64_t)seed, (uint64_t)g);
		w = play((int)players, &rng, &turns);
		if (w >= 0)
			wins[w]++;
		else
			nobody++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("{\"players\":%lld,\"seed\":%lld,\"games\":%lld,\"seats\":[", players, seed, games);
	for (int s = 0; s < players; s++)
		printf("%s%.6f", s ? "," : "", (double)wins[s] / (double)(games ? games : 1));
	printf("],\"cthulhu\":%.6f,\"mean_turns\":%.4f,\"seconds\":%.3f,\"games_per_s\":%.0f}\n",
	       (double)nobody / (double)(games ? games : 1),
	       (double)turns / (double)(games ? games : 1), seconds,
	       seconds > 0 ? (double)games / seconds : 0.0);
	return 0;
}
