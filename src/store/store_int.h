/* store_int: what store.c gives both backends (store_sqlite*.c,
 * store_pg*.c) besides dispatching to them: text cut to a column's size,
 * and the keys of the rating_counts table. Private to src/store. */
#ifndef RLYEH_STORE_INT_H
#define RLYEH_STORE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "rlyeh/store.h"

/* rating_counts: ordinals in buckets of 1/4, games from 16 on counted as 16. */
#define STORE_BUCKETS_PER_POINT 4.0
#define STORE_GAMES_CAP         16

/* The length of the longest prefix of s[0..n) that fits in max bytes
 * without splitting a UTF-8 sequence. */
size_t store_utf8_cut(const char *s, size_t n, size_t max);

/* The rating_counts bucket of an ordinal: floor(4 ordinal), exact (a
 * product by 4 is), so that bucket(x) <= b exactly when x < (b + 1) / 4;
 * clamped to +-1e15 (NaN to the bottom). */
int64_t store_rating_bucket(double ordinal);

/* The rating_counts games key of a row: its games, at most
 * STORE_GAMES_CAP. */
int store_rating_games(int games);

/* How many different rating_counts rows the rows as read (w[i].old where
 * w[i].had) count in: what a game's end takes off. */
int store_ratings_olds(const struct store_rating_write *w, int n);

#endif
