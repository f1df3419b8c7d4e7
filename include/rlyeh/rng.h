/* rng: xoshiro256** (Blackman & Vigna), seeded through splitmix64.
 *
 * Every game draws its dice from its own stream, so a game is reproducible
 * from its seed. Not for cryptography. */
#ifndef RLYEH_RNG_H
#define RLYEH_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

/* Seeds the generator from a 64-bit seed. Any seed, 0 included, gives a
 * valid, non-zero state. */
void rng_seed(struct rng *r, uint64_t seed);

/* Seeds stream number `stream` derived from `seed`: streams of one seed are
 * independent for practical purposes (game g of a simulation uses stream g). */
void rng_seed_stream(struct rng *r, uint64_t seed, uint64_t stream);

/* Returns the next 64 random bits. */
uint64_t rng_next(struct rng *r);

/* Returns a uniform integer in [0, n) without modulo bias; n must be in
 * [1, 2^32). */
uint32_t rng_below(struct rng *r, uint32_t n);

/* The splitmix64 mixing function: a bijection on 64-bit values, used to
 * derive seeds. */
uint64_t rng_mix(uint64_t x);

#endif
