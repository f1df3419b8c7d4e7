#include "rlyeh/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void text_init(struct text *t, char *buf, size_t cap)
{
	t->buf = buf;
	t->cap = cap;
	t->len = 0;
	t->truncated = 0;
	buf[0] = '\0';
}

/* Length of the longest prefix of s[0..n-1] that ends on a UTF-8 boundary. */
static size_t utf8_cut(const char *s, size_t n)
{
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

static void append(struct text *t, const char *s, size_t n)
{
	size_t room = t->cap - 1 - t->len;

	if (n > room) {
		n = utf8_cut(s, room);
		t->truncated = 1;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

void text_add(struct text *t, const char *s)
{
	if (s)
		append(t, s, strlen(s));
}

void text_addf(struct text *t, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(tmp)) {
		t->truncated = 1;
		n = (int)utf8_cut(tmp, sizeof(tmp) - 1);
	}
	append(t, tmp, (size_t)n);
}

int text_copy(char *dst, size_t cap, const char *src)
{
	struct text t;

	text_init(&t, dst, cap);
	text_add(&t, src);
	return t.truncated;
}

/* The ASCII letter c in lower case; other bytes as they are. */
static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

int text_casecmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int x = lower((unsigned char)*a), y = lower((unsigned char)*b);
		if (x != y || !x)
			return x - y;
	}
}

int text_is_escape(const char *s)
{
	return s[0] == '\\' && s[1] > ' ' && s[1] < 0x7f && !(s[1] >= '0' && s[1] <= '9') &&
	       !(lower(s[1]) >= 'a' && lower(s[1]) <= 'z');
}

int text_name_is(const char *name, const char *typed)
{
	if (text_casecmp(name, typed) == 0)
		return 1;
	for (;; name++, typed++) {
		if (text_is_escape(name))
			name++;
		if (lower((unsigned char)*name) != lower((unsigned char)*typed))
			return 0;
		if (!*name)
			return 1;
	}
}

uint64_t text_hash(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}
