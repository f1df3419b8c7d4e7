/* The HTTP API client: routes and their rate limits (see rest.c). */
#include "rlyeh/rest.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "rest_int.h"

/* FNV-1a. */
static uint64_t hash_key(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static struct node *table_find(const struct table *t, const char *key)
{
	uint64_t h;

	if (t->nslots == 0)
		return NULL;
	h = hash_key(key);
	for (struct node *n = t->slots[h & (t->nslots - 1)]; n; n = n->next)
		if (n->hash == h && strcmp(n->key, key) == 0)
			return n;
	return NULL;
}

/* Adds n, whose key is set and not yet in t, growing t as needed. Returns 0,
 * or -1 when out of memory (t unchanged). */
static int table_add(struct table *t, struct node *n)
{
	size_t k;

	if (t->count >= t->nslots) {
		size_t ns = t->nslots ? t->nslots * 2 : TABLE_FIRST_SLOTS;
		struct node **s = calloc(ns, sizeof *s);

		if (!s)
			return -1;
		for (size_t i = 0; i < t->nslots; i++) {
			struct node *m = t->slots[i], *next;

			for (; m; m = next) {
				next = m->next;
				k = m->hash & (ns - 1);
				m->next = s[k];
				s[k] = m;
			}
		}
		free(t->slots);
		t->slots = s;
		t->nslots = ns;
	}
	n->hash = hash_key(n->key);
	k = n->hash & (t->nslots - 1);
	n->next = t->slots[k];
	t->slots[k] = n;
	t->count++;
	return 0;
}

/* Unlinks n from t (n must be in t). */
void rest_limits_table_remove(struct table *t, struct node *n)
{
	struct node **p = &t->slots[n->hash & (t->nslots - 1)];

	while (*p != n)
		p = &(*p)->next;
	*p = n->next;
	t->count--;
}

/* Frees every node of t (each a struct route or a struct limit: `extra`
 * frees what the node owns besides its key), then the slots. */
void rest_limits_table_free(struct table *t, void (*extra)(struct node *))
{
	for (size_t i = 0; i < t->nslots; i++) {
		struct node *n = t->slots[i], *next;

		for (; n; n = next) {
			next = n->next;
			if (extra)
				extra(n);
			free(n->key);
			free(n);
		}
	}
	free(t->slots);
	t->slots = NULL;
	t->nslots = t->count = 0;
}

void rest_limits_route_extra_free(struct node *n)
{
	free(((struct route *)(void *)n)->major);
}

/* Finds the limit named key, creating it (without refs) when missing.
 * Returns NULL when out of memory. */
struct limit *rest_limits_limit_get(struct rest *r, const char *key)
{
	struct node *n = table_find(&r->limits, key);
	struct limit *l;

	if (n)
		return (struct limit *)(void *)n;
	l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	l->node.key = rest_dup_str(key);
	if (!l->node.key || table_add(&r->limits, &l->node) != 0) {
		free(l->node.key);
		free(l);
		return NULL;
	}
	return l;
}

/* Finds the route named key, creating it with a limit of its own when
 * missing. Returns NULL when out of memory (nothing created then). */
struct route *rest_limits_route_get(struct rest *r, const char *key, const char *major)
{
	struct node *n = table_find(&r->routes, key);
	struct route *rt;
	char *lkey;

	if (n)
		return (struct route *)(void *)n;
	rt = calloc(1, sizeof *rt);
	lkey = rest_join2("r:", key);
	if (!rt || !lkey)
		goto fail;
	rt->node.key = rest_dup_str(key);
	rt->major = rest_dup_str(major);
	if (!rt->node.key || !rt->major)
		goto fail;
	rt->limit = rest_limits_limit_get(r, lkey);
	if (!rt->limit || table_add(&r->routes, &rt->node) != 0)
		goto fail;
	rt->limit->refs++;
	free(lkey);
	return rt;
fail:
	/* a limit created above stays, unreferenced, until the next sweep */
	if (rt) {
		free(rt->node.key);
		free(rt->major);
	}
	free(rt);
	free(lkey);
	return NULL;
}

/* Whether l holds its requests back at `now`. */
int rest_limits_limit_holds(const struct limit *l, double now)
{
	return now < l->blocked_until ||
	       (l->has_remaining && l->remaining <= 0 && now < l->reset_at);
}

/* Forgets the routes that no request uses and whose limit no longer holds
 * requests back, then the limits that no route uses and no request in
 * flight is charged to. */
void rest_limits_sweep(struct rest *r, double now)
{
	for (size_t i = 0; i < r->routes.nslots; i++) {
		struct node **p = &r->routes.slots[i];

		while (*p) {
			struct route *rt = (struct route *)(void *)*p;

			if (rt->refs == 0 && !rest_limits_limit_holds(rt->limit, now)) {
				*p = rt->node.next;
				r->routes.count--;
				rt->limit->refs--;
				free(rt->node.key);
				free(rt->major);
				free(rt);
			} else {
				p = &(*p)->next;
			}
		}
	}
	for (size_t i = 0; i < r->limits.nslots; i++) {
		struct node **p = &r->limits.slots[i];

		while (*p) {
			struct limit *l = (struct limit *)(void *)*p;

			if (l->refs == 0 && l->inflight == 0) {
				*p = l->node.next;
				r->limits.count--;
				free(l->node.key);
				free(l);
			} else {
				p = &(*p)->next;
			}
		}
	}
	r->next_sweep = now + SWEEP_EVERY;
}

/* Whether a segment names a major parameter's resource, and how many of the
 * segments after it belong to the parameter. */
static int major_width(const char *seg, size_t len)
{
	static const struct {
		const char *name;
		int width;
	} majors[] = {
		{ "channels", 1 },
		{ "guilds", 1 },
		{ "webhooks", 2 },     /* id and token */
		{ "interactions", 2 }, /* id and token: each interaction apart */
	};

	for (size_t i = 0; i < sizeof majors / sizeof majors[0]; i++)
		if (strlen(majors[i].name) == len && memcmp(majors[i].name, seg, len) == 0)
			return majors[i].width;
	return 0;
}

static int all_digits(const char *s, size_t len)
{
	if (len == 0)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* Computes the route of `method path` ("PATCH /channels/1/messages/:id") and
 * its major parameter ("channels/1"; "" when there is none): the first
 * channels/, guilds/, webhooks/ or interactions/ segment followed by another
 * keeps the segments of its parameter, every other all-digit segment becomes
 * ":id", and the query string is ignored. Returns 0, or -1 when out of
 * memory (nothing allocated then). */
int rest_limits_route_of(int method, const char *path, char **route_out, char **major_out)
{
	const char *mname = rest_method_names[method];
	size_t mlen = strlen(mname), plen = strcspn(path, "?#");
	char *route = malloc(mlen + 1 + 3 * plen + 1);
	char *major = malloc(plen + 1);
	size_t rn = 0, mn = 0, i = 0;
	int keep = 0, have_major = 0;

	if (!route || !major) {
		free(route);
		free(major);
		return -1;
	}
	memcpy(route, mname, mlen);
	rn = mlen;
	route[rn++] = ' ';
	while (i < plen) {
		const char *seg;
		size_t len;
		int width;

		route[rn++] = path[i++]; /* '/' */
		seg = path + i;
		while (i < plen && path[i] != '/')
			i++;
		len = (size_t)(path + i - seg);
		width = have_major ? 0 : major_width(seg, len);
		if (keep > 0) {
			keep--;
			major[mn++] = '/';
			memcpy(major + mn, seg, len);
			mn += len;
		} else if (width > 0 && i + 1 < plen) {
			have_major = 1;
			keep = width;
			memcpy(major, seg, len);
			mn = len;
		} else if (all_digits(seg, len)) {
			memcpy(route + rn, ":id", 3);
			rn += 3;
			continue;
		}
		memcpy(route + rn, seg, len);
		rn += len;
	}
	route[rn] = '\0';
	major[mn] = '\0';
	*route_out = route;
	*major_out = major;
	return 0;
}
