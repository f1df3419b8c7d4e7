/* text: a bounded string builder. Appends past the capacity are cut at a
 * UTF-8 character boundary and mark the text truncated; the buffer is always
 * NUL-terminated. */
#ifndef RLYEH_TEXT_H
#define RLYEH_TEXT_H

#include <stddef.h>
#include <stdint.h>

struct text {
	char *buf;
	size_t cap; /* bytes, including the NUL */
	size_t len;
	int truncated;
};

/* Starts an empty text in buf[0..cap-1]; cap must be at least 1. */
void text_init(struct text *t, char *buf, size_t cap);

/* Appends s (NULL appends nothing). */
void text_add(struct text *t, const char *s);

/* Appends formatted output. */
void text_addf(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Copies src into dst[0..cap-1], cut at a UTF-8 boundary; returns 1 when cut. */
int text_copy(char *dst, size_t cap, const char *src);

#define TEXT_HASH_SEED 0xcbf29ce484222325ULL /* the FNV-1a offset basis */

/* Continues the 64-bit FNV-1a hash h over the bytes of s; start from
 * TEXT_HASH_SEED. */
uint64_t text_hash(uint64_t h, const char *s);

/* Compares ASCII letters without regard to case (other bytes as they are);
 * <0, 0 or >0 as strcmp. */
int text_casecmp(const char *a, const char *b);

/* 1 when s begins with an escape: a backslash before ASCII punctuation. */
int text_is_escape(const char *s);

/* 1 when the typed text names the stored name: equal as text_casecmp
 * compares, either as stored or with each backslash before ASCII
 * punctuation in it left out (the escapes a platform keeps in a display
 * name, see discord_escape_name). */
int text_name_is(const char *name, const char *typed);

#endif
