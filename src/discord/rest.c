/* rest: the chat platform's HTTP API (include/rlyeh/rest.h).
 *
 * Threads. rest_submit, rest_poll, rest_pending and rest_stats may run on any
 * thread and touch only the fields under `lock`. The worker thread owns the
 * rest: the libcurl multi handle, the requests it has taken, the rate-limit
 * tables and the global window.
 *
 * Rate limits. Every request has a route: its method and path with the major
 * parameters kept (the channel or guild id, a webhook's id and token, an
 * interaction's id and token) and every other all-digit segment replaced by
 * ":id". A route starts with a limit of its own; once a response names its
 * X-RateLimit-Bucket, the route moves to the limit "bucket + major
 * parameter", which every route of that bucket and resource shares. A limit
 * lets one request of its own be in flight at a time, so the requests of a
 * route reach the server in the order they were submitted; it holds requests
 * back while X-RateLimit-Remaining is 0 (until Reset-After has elapsed) and
 * after a 429 (until retry_after has elapsed). Requests that are not exempt
 * also wait for the global window (global_per_second in any second) and for a
 * global 429.
 *
 * Memory. A route that no request uses is forgotten at once unless its limit
 * holds requests back (then the sweep forgets it once the limit has expired):
 * a bot with many channels keeps no record of the idle ones. The route's next
 * request starts on a limit of its own again and learns its bucket anew.
 *
 * Files. A request with files goes as a libcurl MIME form ("payload_json",
 * then the files). The form is built at the first attempt and kept, with its
 * easy handle, until the request is answered: a retry re-adds the same
 * handle, so it sends the same bytes, boundary included. The file parts read
 * the job's own copies through callbacks (no second copy). */
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

#define DEFAULT_TIMEOUT_MS 10000L
#define DEFAULT_RETRIES    3
#define DEFAULT_GLOBAL     50
#define GLOBAL_MAX         100000 /* bounds the window's memory */
#define BACKOFF_FIRST      0.5    /* seconds before the first retry; doubles with each */
#define BACKOFF_LAST       8.0
#define BACKOFF_JITTER     0.25 /* up to this fraction is added at random */
#define RETRY_AFTER_NONE   1.0  /* a 429 that does not say how long to wait */
#define POLL_MAX_MS        1000
#define SWEEP_EVERY        1.0
#define PATH_MAX_LEN       2048
#define BUCKET_MAX_LEN     64
#define CTYPE_MAX_LEN      128
#define FIELD_MAX_LEN      32 /* a file part's form field name */
#define TABLE_FIRST_SLOTS  64
#define EASY_POOL          64  /* finished easy handles kept for reuse */
#define MAX_CONNECTS       256 /* idle connections kept open to the API */
#define EPOLL_BATCH        64  /* socket events taken by one epoll_wait */

static const char *const method_names[] = { "GET", "POST", "PUT", "PATCH", "DELETE" };

struct node {
	struct node *next;
	char *key;
	uint64_t hash;
};

struct table {
	struct node **slots;
	size_t nslots; /* 0 or a power of two */
	size_t count;
};

struct limit {
	struct node node; /* "r:<route>" or "h:<bucket>|<major>" */
	int refs;         /* routes using it */
	int inflight;     /* requests charged to it */
	unsigned scan;    /* the dispatch pass that last met it */
	int has_remaining;
	long remaining;
	double reset_at;      /* when `remaining` stops being true */
	double blocked_until; /* after a 429 */
};

struct route {
	struct node node; /* the route key */
	char *major;
	struct limit *limit;
	int refs; /* requests of this route, waiting or in flight */
};

struct reply_headers {
	char bucket[BUCKET_MAX_LEN + 1];
	int has_remaining;
	long remaining;
	int has_reset_after;
	double reset_after;
	int has_retry_after;
	double retry_after;
	int global;
};

struct done {
	struct done *next;
	struct rest_response resp;
};

/* A file of a job, copied at submit. */
struct job_file {
	char *name, *filename, *content_type;
	char *data;
	size_t len;
	size_t pos; /* where the attempt in flight reads next */
};

struct job {
	struct job *prev, *next;
	int method;
	char *path;
	char *body; /* NULL: none */
	size_t body_len;
	char *content_type; /* NULL: none */
	int exempt_global;
	uint64_t tag;
	struct job_file *files; /* NULL: none (not a form) */
	int nfiles;
	char *route_key;
	char *major;
	struct done *done; /* allocated up front so that answering cannot fail */

	struct route *route;  /* set once the worker has taken the job */
	struct limit *charge; /* the limit counting this job in flight */
	int attempts;
	double not_before; /* backoff */
	int counted_wait;

	CURL *easy;                 /* the attempt in flight (a form's: kept between attempts) */
	struct curl_slist *headers; /* this attempt's own header list, or NULL */
	curl_mime *mime;            /* a form's body, from its first attempt on */
	char *resp;
	size_t resp_len, resp_cap;
	int too_big;
	struct reply_headers hdr;
};

struct jlist {
	struct job *head, *tail;
};

struct rest {
	pthread_mutex_t lock;
	struct jlist incoming; /* submitted, not yet taken by the worker */
	struct done *done_head, *done_tail;
	int pending; /* submitted and not yet answered */
	int stopping;
	double stop_deadline;
	long waits, too_many;
	int share;          /* counted requests per second kept to, <= global_per_second */
	double hold_until;  /* no counted request before (rest_hold_global) */
	long global_429_ms; /* the longest global 429 wait not yet taken */

	void (*wake)(void *);
	void *wake_ctx;
	CURLM *multi;
	int epfd; /* the sockets libcurl asks to watch, and evfd */
	int evfd; /* an eventfd: written to wake the worker */
	pthread_t thread;
	char *base_url, *token, *user_agent, *auth;
	long timeout_ms;
	int max_retries;
	int global_per_second;

	/* the worker's own */
	struct jlist waiting, inflight;
	struct table routes, limits;
	double *sent; /* times of the last global_per_second counted requests */
	int sent_next;
	int window; /* the share, as the worker last read it */
	double global_until;
	unsigned scan;
	uint64_t prng;
	double next_sweep;
	CURL *pool[EASY_POOL]; /* reset easy handles */
	int npool;
	struct curl_slist *hdr_none, *hdr_json, *hdr_form; /* the common header lists, shared */
	double curl_due; /* when libcurl wants its timeout action; < 0: never */
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_result = CURLE_FAILED_INIT;

static void curl_init_once(void)
{
	curl_init_result = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* Wakes the worker from epoll_wait (any thread). */
static void wake_worker(struct rest *r)
{
	uint64_t one = 1;

	/* EAGAIN: the counter is full, a wake-up is pending anyway */
	(void)!write(r->evfd, &one, sizeof one);
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double max_d(double a, double b)
{
	return a > b ? a : b;
}

/* splitmix64: only the backoff jitter uses it. */
static double prng_unit(struct rest *r)
{
	uint64_t z = (r->prng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

static char *dup_mem(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		if (n)
			memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

static char *dup_str(const char *s)
{
	return dup_mem(s, strlen(s));
}

/* Concatenates a and b into a new string; NULL when out of memory. */
static char *join2(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *d = malloc(la + lb + 1);

	if (d) {
		memcpy(d, a, la);
		memcpy(d + la, b, lb + 1);
	}
	return d;
}

/* Whether s has no control characters (it goes into a header line or a URL). */
static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* Whether s has 1 to max characters, each a letter, a digit or one of
 * `extra`. */
static int made_of(const char *s, size_t max, const char *extra)
{
	size_t n = 0;

	for (; s[n]; n++) {
		char c = s[n];

		if (n == max || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		                  (c >= '0' && c <= '9') || strchr(extra, c)))
			return 0;
	}
	return n > 0;
}

/* Whether the files of req keep the rules of struct rest_file and, with the
 * body, the size caps. */
static int files_ok(const struct rest_request *req)
{
	size_t total = req->body_len;

	if (req->nfiles == 0)
		return 1;
	if (req->nfiles < 0 || req->nfiles > REST_MAX_FILES || !req->files ||
	    (req->method != REST_POST && req->method != REST_PUT && req->method != REST_PATCH) ||
	    (req->content_type && strcmp(req->content_type, "application/json") != 0))
		return 0;
	for (int i = 0; i < req->nfiles; i++) {
		const struct rest_file *f = &req->files[i];

		if (!f->name || !made_of(f->name, FIELD_MAX_LEN, "_[]") ||
		    strcmp(f->name, "payload_json") == 0 || !f->filename ||
		    !made_of(f->filename, REST_FILENAME_MAX, "._-") || f->filename[0] == '.' ||
		    !f->data || f->len == 0 || f->len > REST_MAX_REQUEST - total)
			return 0;
		if (f->content_type &&
		    (f->content_type[0] == '\0' || strlen(f->content_type) > CTYPE_MAX_LEN ||
		     !printable(f->content_type)))
			return 0;
		for (int k = 0; k < i; k++)
			if (strcmp(req->files[k].name, f->name) == 0)
				return 0;
		total += f->len;
	}
	return 1;
}

static void jlist_append(struct jlist *l, struct job *j)
{
	j->next = NULL;
	j->prev = l->tail;
	if (l->tail)
		l->tail->next = j;
	else
		l->head = j;
	l->tail = j;
}

static void jlist_prepend(struct jlist *l, struct job *j)
{
	j->prev = NULL;
	j->next = l->head;
	if (l->head)
		l->head->prev = j;
	else
		l->tail = j;
	l->head = j;
}

static void jlist_remove(struct jlist *l, struct job *j)
{
	if (j->prev)
		j->prev->next = j->next;
	else
		l->head = j->next;
	if (j->next)
		j->next->prev = j->prev;
	else
		l->tail = j->prev;
	j->prev = j->next = NULL;
}

/* Moves every job of src to the end of dst; src is left empty. */
static void jlist_splice(struct jlist *dst, struct jlist *src)
{
	if (!src->head)
		return;
	if (dst->tail) {
		dst->tail->next = src->head;
		src->head->prev = dst->tail;
	} else {
		dst->head = src->head;
	}
	dst->tail = src->tail;
	src->head = src->tail = NULL;
}

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
static void table_remove(struct table *t, struct node *n)
{
	struct node **p = &t->slots[n->hash & (t->nslots - 1)];

	while (*p != n)
		p = &(*p)->next;
	*p = n->next;
	t->count--;
}

/* Frees every node of t (each a struct route or a struct limit: `extra`
 * frees what the node owns besides its key), then the slots. */
static void table_free(struct table *t, void (*extra)(struct node *))
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

static void route_extra_free(struct node *n)
{
	free(((struct route *)(void *)n)->major);
}

/* Finds the limit named key, creating it (without refs) when missing.
 * Returns NULL when out of memory. */
static struct limit *limit_get(struct rest *r, const char *key)
{
	struct node *n = table_find(&r->limits, key);
	struct limit *l;

	if (n)
		return (struct limit *)(void *)n;
	l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	l->node.key = dup_str(key);
	if (!l->node.key || table_add(&r->limits, &l->node) != 0) {
		free(l->node.key);
		free(l);
		return NULL;
	}
	return l;
}

/* Finds the route named key, creating it with a limit of its own when
 * missing. Returns NULL when out of memory (nothing created then). */
static struct route *route_get(struct rest *r, const char *key, const char *major)
{
	struct node *n = table_find(&r->routes, key);
	struct route *rt;
	char *lkey;

	if (n)
		return (struct route *)(void *)n;
	rt = calloc(1, sizeof *rt);
	lkey = join2("r:", key);
	if (!rt || !lkey)
		goto fail;
	rt->node.key = dup_str(key);
	rt->major = dup_str(major);
	if (!rt->node.key || !rt->major)
		goto fail;
	rt->limit = limit_get(r, lkey);
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
static int limit_holds(const struct limit *l, double now)
{
	return now < l->blocked_until ||
	       (l->has_remaining && l->remaining <= 0 && now < l->reset_at);
}

/* Forgets the routes that no request uses and whose limit no longer holds
 * requests back, then the limits that no route uses and no request in
 * flight is charged to. */
static void sweep(struct rest *r, double now)
{
	for (size_t i = 0; i < r->routes.nslots; i++) {
		struct node **p = &r->routes.slots[i];

		while (*p) {
			struct route *rt = (struct route *)(void *)*p;

			if (rt->refs == 0 && !limit_holds(rt->limit, now)) {
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
static int route_of(int method, const char *path, char **route_out, char **major_out)
{
	const char *mname = method_names[method];
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

static size_t json_ws(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* s[i] is '"': returns the index after the closing quote, n when there is
 * none. */
static size_t json_string_end(const char *s, size_t n, size_t i)
{
	for (i++; i < n; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i + 1;
	}
	return n;
}

/* Returns the index after the JSON value starting at s[i] (objects and
 * arrays with everything in them), n when it does not end. */
static size_t json_value_end(const char *s, size_t n, size_t i)
{
	int depth = 0;

	if (i >= n)
		return n;
	if (s[i] == '"')
		return json_string_end(s, n, i);
	if (s[i] != '{' && s[i] != '[') {
		while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' &&
		       s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			i++;
		return i;
	}
	while (i < n) {
		if (s[i] == '"') {
			i = json_string_end(s, n, i);
			continue;
		}
		if (s[i] == '{' || s[i] == '[') {
			depth++;
		} else if (s[i] == '}' || s[i] == ']') {
			if (--depth == 0)
				return i + 1;
		}
		i++;
	}
	return n;
}

/* Parses a non-negative decimal number ("64.57", "1", "2e-1") filling
 * exactly [s, s+n), independently of the locale. Returns 0, or -1 when it
 * is not one (*out unchanged). */
static int parse_seconds(const char *s, size_t n, double *out)
{
	double v = 0, scale = 0.1;
	size_t i = 0;
	int digits = 0;

	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++)
		v = v * 10 + (s[i] - '0');
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++, scale /= 10)
			v += (s[i] - '0') * scale;
	if (!digits)
		return -1;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		int neg = 0, e = 0, edigits = 0;

		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			neg = s[i++] == '-';
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, edigits++)
			if (e < 400)
				e = e * 10 + (s[i] - '0');
		if (!edigits)
			return -1;
		for (; e > 0; e--)
			v = neg ? v / 10 : v * 10;
	}
	if (i != n)
		return -1;
	*out = v;
	return 0;
}

/* Parses a non-negative decimal integer filling exactly [s, s+n). Returns 0,
 * or -1 (*out unchanged). */
static int parse_count(const char *s, size_t n, long *out)
{
	long v = 0;

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (0x7fffffffL - 9) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Reads "retry_after" (seconds) and "global" from the top level of a 429
 * body ({"message", "retry_after", "global"}). Members that are missing or
 * malformed leave the outputs as they were. */
static void parse_429_body(const char *s, size_t n, int *has_retry, double *retry, int *global)
{
	size_t i = json_ws(s, n, 0);

	if (i >= n || s[i] != '{')
		return;
	i = json_ws(s, n, i + 1);
	while (i < n && s[i] == '"') {
		size_t key = i + 1, key_end = json_string_end(s, n, i), klen, vend;

		if (key_end >= n)
			return;
		klen = key_end - 1 - key;
		i = json_ws(s, n, key_end);
		if (i >= n || s[i] != ':')
			return;
		i = json_ws(s, n, i + 1);
		vend = json_value_end(s, n, i);
		if (vend >= n)
			return;
		if (klen == 11 && memcmp(s + key, "retry_after", 11) == 0) {
			if (parse_seconds(s + i, vend - i, retry) == 0)
				*has_retry = 1;
		} else if (klen == 6 && memcmp(s + key, "global", 6) == 0) {
			if (vend - i == 4 && memcmp(s + i, "true", 4) == 0)
				*global = 1;
		}
		i = json_ws(s, n, vend);
		if (i >= n || s[i] != ',')
			return;
		i = json_ws(s, n, i + 1);
	}
}

/* CURLOPT_WRITEFUNCTION: keeps the body, NUL-terminated, up to
 * REST_MAX_RESPONSE bytes; past that, marks the job and fails the transfer. */
static size_t on_body(char *data, size_t size, size_t nmemb, void *ud)
{
	struct job *j = ud;
	size_t n = size * nmemb;

	if (n > REST_MAX_RESPONSE - j->resp_len) {
		j->too_big = 1;
		return 0;
	}
	if (j->resp_len + n + 1 > j->resp_cap) {
		size_t cap = j->resp_cap ? j->resp_cap : 4096;
		char *p;

		while (cap < j->resp_len + n + 1)
			cap *= 2;
		if (cap > REST_MAX_RESPONSE + 1)
			cap = REST_MAX_RESPONSE + 1;
		p = realloc(j->resp, cap);
		if (!p)
			return 0;
		j->resp = p;
		j->resp_cap = cap;
	}
	memcpy(j->resp + j->resp_len, data, n);
	j->resp_len += n;
	j->resp[j->resp_len] = '\0';
	return n;
}

static int header_is(const char *line, size_t name_len, const char *name)
{
	return strlen(name) == name_len && strncasecmp(line, name, name_len) == 0;
}

/* CURLOPT_HEADERFUNCTION: records the rate-limit headers of the last
 * response (a status line starts a new response). */
static size_t on_header(char *data, size_t size, size_t nitems, void *ud)
{
	struct job *j = ud;
	struct reply_headers *h = &j->hdr;
	size_t n = size * nitems, name_len, v, end;
	const char *colon;

	if (n >= 5 && memcmp(data, "HTTP/", 5) == 0) {
		memset(h, 0, sizeof *h);
		return n;
	}
	colon = memchr(data, ':', n);
	if (!colon)
		return n;
	name_len = (size_t)(colon - data);
	v = name_len + 1;
	end = n;
	while (v < end && (data[v] == ' ' || data[v] == '\t'))
		v++;
	while (end > v && (data[end - 1] == '\r' || data[end - 1] == '\n' || data[end - 1] == ' ' ||
	                   data[end - 1] == '\t'))
		end--;
	if (header_is(data, name_len, "x-ratelimit-bucket")) {
		if (end - v <= BUCKET_MAX_LEN) {
			memcpy(h->bucket, data + v, end - v);
			h->bucket[end - v] = '\0';
		}
	} else if (header_is(data, name_len, "x-ratelimit-remaining")) {
		h->has_remaining = parse_count(data + v, end - v, &h->remaining) == 0;
	} else if (header_is(data, name_len, "x-ratelimit-reset-after")) {
		h->has_reset_after = parse_seconds(data + v, end - v, &h->reset_after) == 0;
	} else if (header_is(data, name_len, "retry-after")) {
		h->has_retry_after = parse_seconds(data + v, end - v, &h->retry_after) == 0;
	} else if (header_is(data, name_len, "x-ratelimit-global")) {
		if (end - v == 4 && strncasecmp(data + v, "true", 4) == 0)
			h->global = 1;
	} else if (header_is(data, name_len, "x-ratelimit-scope")) {
		if (end - v == 6 && strncasecmp(data + v, "global", 6) == 0)
			h->global = 1;
	}
	return n;
}

/* Releases what j's attempts hold: the easy handle (reset into the pool
 * when it has room), the header list and the form. The response body stays
 * with the job. The handle must not be in the multi handle. */
static void handles_free(struct rest *r, struct job *j)
{
	if (j->easy && r->npool < EASY_POOL) {
		curl_easy_reset(j->easy);
		r->pool[r->npool++] = j->easy;
	} else if (j->easy) {
		curl_easy_cleanup(j->easy);
	}
	j->easy = NULL;
	curl_slist_free_all(j->headers);
	j->headers = NULL;
	curl_mime_free(j->mime);
	j->mime = NULL;
}

/* Ends j's attempt. A form keeps its handle and body for the next attempt,
 * so that a retry sends the same bytes; other requests give them back. */
static void attempt_release(struct rest *r, struct job *j)
{
	if (!j->mime)
		handles_free(r, j);
}

/* Forgets rt when no request uses it, and its limit when nothing else
 * does; both stay while the limit holds requests back (the sweep forgets
 * them later). */
static void route_forget(struct rest *r, struct route *rt, double now)
{
	struct limit *l = rt->limit;

	if (rt->refs > 0 || limit_holds(l, now))
		return;
	table_remove(&r->routes, &rt->node);
	free(rt->node.key);
	free(rt->major);
	free(rt);
	if (--l->refs == 0 && l->inflight == 0) {
		table_remove(&r->limits, &l->node);
		free(l->node.key);
		free(l);
	}
}

/* Frees j and everything it owns, and lets go of its route. */
static void job_free(struct rest *r, struct job *j, double now)
{
	if (!j)
		return;
	handles_free(r, j);
	if (j->route) {
		j->route->refs--;
		route_forget(r, j->route, now);
	}
	free(j->path);
	free(j->body);
	free(j->content_type);
	for (int i = 0; j->files && i < j->nfiles; i++) {
		free(j->files[i].name);
		free(j->files[i].filename);
		free(j->files[i].content_type);
		free(j->files[i].data);
	}
	free(j->files);
	free(j->route_key);
	free(j->major);
	free(j->resp);
	free(j->done);
	free(j);
}

/* Frees j without answering it (the worker is stopping). */
static void drop(struct rest *r, struct job *j, double now)
{
	pthread_mutex_lock(&r->lock);
	r->pending--;
	pthread_mutex_unlock(&r->lock);
	job_free(r, j, now);
}

/* Answers j: its response (the body kept so far, `status`, and the error
 * text built from fmt, never containing the token) goes to the responses
 * queue, `wake` is called when that queue was empty, and j is freed. */
static void deliver(struct rest *r, struct job *j, long status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void deliver(struct rest *r, struct job *j, long status, const char *fmt, ...)
{
	struct done *d = j->done;
	va_list ap;
	int wake;

	j->done = NULL;
	d->next = NULL;
	d->resp.tag = j->tag;
	d->resp.status = status;
	d->resp.attempts = j->attempts;
	d->resp.body = j->resp;
	d->resp.len = j->resp ? j->resp_len : 0;
	j->resp = NULL;
	va_start(ap, fmt);
	vsnprintf(d->resp.error, sizeof d->resp.error, fmt, ap);
	va_end(ap);
	if (r->token[0] && strstr(d->resp.error, r->token))
		snprintf(d->resp.error, sizeof d->resp.error, "request failed");

	pthread_mutex_lock(&r->lock);
	/* A non-empty queue has a wake-up on its way, which takes this one too. */
	wake = !r->done_head;
	if (r->done_tail)
		r->done_tail->next = d;
	else
		r->done_head = d;
	r->done_tail = d;
	r->pending--;
	pthread_mutex_unlock(&r->lock);
	if (wake && r->wake)
		r->wake(r->wake_ctx);
	job_free(r, j, mono_now());
}

/* A header list: the authorization, the content type ("Content-Type:"
 * with no value keeps libcurl from adding its form type) and "Expect:"
 * (no waiting for a 100 Continue). A form's list (`form`) has no content
 * type: libcurl sends its own, which names the boundary. NULL when memory is
 * short. */
static struct curl_slist *header_list(const struct rest *r, const char *content_type, int form)
{
	struct curl_slist *h = NULL, *t;
	char *ctype = content_type ? join2("Content-Type: ", content_type) : NULL;
	const char *lines[] = { r->auth, content_type ? ctype : "Content-Type:", "Expect:" };

	if (content_type && !ctype)
		return NULL;
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		if (form && i == 1)
			continue;
		t = curl_slist_append(h, lines[i]);
		if (!t) {
			curl_slist_free_all(h);
			h = NULL;
			break;
		}
		h = t;
	}
	free(ctype);
	return h;
}

/* CURLOPT_READFUNCTION of a file part: reads the job's copy. */
static size_t part_read(char *buf, size_t size, size_t nitems, void *arg)
{
	struct job_file *f = arg;
	size_t n = size * nitems, left = f->len - f->pos;

	if (n > left)
		n = left;
	memcpy(buf, f->data + f->pos, n);
	f->pos += n;
	return n;
}

/* CURLOPT_SEEKFUNCTION of a file part: libcurl rewinds the parts before each
 * attempt (and when it sends a request again on a new connection). */
static int part_seek(void *arg, curl_off_t offset, int origin)
{
	struct job_file *f = arg;
	curl_off_t base;

	if (origin == SEEK_SET)
		base = 0;
	else if (origin == SEEK_CUR)
		base = (curl_off_t)f->pos;
	else if (origin == SEEK_END)
		base = (curl_off_t)f->len;
	else
		return CURL_SEEKFUNC_FAIL;
	if (offset < -base || offset > (curl_off_t)f->len - base)
		return CURL_SEEKFUNC_FAIL;
	f->pos = (size_t)(base + offset);
	return CURL_SEEKFUNC_OK;
}

/* Builds j's form for the easy handle e: "payload_json" (the body, when
 * there is one), then the files. Returns NULL when memory is short. */
static curl_mime *form_build(struct job *j, CURL *e)
{
	curl_mime *m = curl_mime_init(e);
	curl_mimepart *p;
	int bad = !m;

	if (!bad && j->body) {
		p = curl_mime_addpart(m);
		bad = !p || curl_mime_name(p, "payload_json") != CURLE_OK ||
		      curl_mime_type(p, "application/json") != CURLE_OK ||
		      curl_mime_data(p, j->body, j->body_len) != CURLE_OK;
	}
	for (int i = 0; !bad && i < j->nfiles; i++) {
		struct job_file *f = &j->files[i];

		f->pos = 0;
		p = curl_mime_addpart(m);
		bad = !p || curl_mime_name(p, f->name) != CURLE_OK ||
		      curl_mime_filename(p, f->filename) != CURLE_OK ||
		      curl_mime_type(p, f->content_type) != CURLE_OK ||
		      curl_mime_data_cb(p, (curl_off_t)f->len, part_read, part_seek, NULL, f) !=
		          CURLE_OK;
	}
	if (bad) {
		curl_mime_free(m);
		return NULL;
	}
	return m;
}

/* Readies j for the attempt that e is about to make. */
static void attempt_begin(struct job *j, CURL *e)
{
	free(j->resp);
	j->resp = NULL;
	j->resp_len = j->resp_cap = 0;
	j->too_big = 0;
	memset(&j->hdr, 0, sizeof j->hdr);
	j->easy = e;
}

/* Starts one attempt of j: an easy handle (from the pool, or new; a form's
 * retry reuses its own) added to the multi handle. Returns 0, or -1 with
 * the attempt's resources released (a form's kept ones stay with j). */
static int start(struct rest *r, struct job *j)
{
	CURL *e;
	struct curl_slist *h = NULL, *own = NULL;
	curl_mime *mime = NULL;
	char *url = NULL;
	int bad = 0;

	if (j->mime) {
		/* the options and the form are still set: the same bytes go again */
		if (curl_multi_add_handle(r->multi, j->easy) != CURLM_OK)
			return -1;
		attempt_begin(j, j->easy);
		return 0;
	}
	e = r->npool ? r->pool[--r->npool] : curl_easy_init();
	if (!e)
		return -1;
	url = join2(r->base_url, j->path);
	if (j->files)
		h = r->hdr_form;
	else if (!j->content_type)
		h = r->hdr_none;
	else if (strcmp(j->content_type, "application/json") == 0)
		h = r->hdr_json;
	else
		h = own = header_list(r, j->content_type, 0);
	if (j->files)
		mime = form_build(j, e);
	if (!url || !h || (j->files && !mime))
		goto fail;

	bad |= curl_easy_setopt(e, CURLOPT_URL, url) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, r->timeout_ms) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_USERAGENT, r->user_agent) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_HTTPHEADER, h) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_WRITEDATA, (void *)j) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_HEADERDATA, (void *)j) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_PRIVATE, (void *)j) != CURLE_OK;
	if (j->method == REST_GET) {
		bad |= curl_easy_setopt(e, CURLOPT_HTTPGET, 1L) != CURLE_OK;
	} else if (mime) {
		if (j->method != REST_POST)
			bad |= curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST,
			                        method_names[j->method]) != CURLE_OK;
		bad |= curl_easy_setopt(e, CURLOPT_MIMEPOST, mime) != CURLE_OK;
	} else {
		if (j->method != REST_POST)
			bad |= curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST,
			                        method_names[j->method]) != CURLE_OK;
		/* POST, PUT and PATCH always carry a Content-Length, 0 when empty */
		if (j->body || j->method != REST_DELETE) {
			bad |= curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
			                        (curl_off_t)j->body_len) != CURLE_OK;
			bad |= curl_easy_setopt(e, CURLOPT_POSTFIELDS, j->body ? j->body : "") !=
			       CURLE_OK;
		}
	}
	if (bad || curl_multi_add_handle(r->multi, e) != CURLM_OK)
		goto fail;
	/* libcurl copies the URL; the header list and the form must outlive the
	 * transfer */
	free(url);
	attempt_begin(j, e);
	j->headers = own;
	j->mime = mime;
	return 0;
fail:
	curl_easy_cleanup(e);
	curl_slist_free_all(own);
	curl_mime_free(mime);
	free(url);
	return -1;
}

/* The earliest time the global window lets one more counted request go:
 * a second after the window-th most recent one. */
static double global_window_free_at(const struct rest *r)
{
	int cap = r->global_per_second;

	return r->sent[(r->sent_next - r->window + cap) % cap] + 1.0;
}

static void count_wait(struct rest *r, struct job *j)
{
	if (j->counted_wait)
		return;
	j->counted_wait = 1;
	pthread_mutex_lock(&r->lock);
	r->waits++;
	pthread_mutex_unlock(&r->lock);
}

/* Starts the waiting requests that nothing holds back, oldest first, with
 * at most one in flight per limit so that each route keeps its order. A
 * request that cannot be started is answered with an error. Returns how
 * many milliseconds the worker may sleep before another might go. */
static int dispatch(struct rest *r, double now)
{
	double wake_at = now + POLL_MAX_MS / 1000.0, until;
	struct job *j, *next;

	pthread_mutex_lock(&r->lock);
	r->window = r->share;
	r->global_until = max_d(r->global_until, r->hold_until);
	pthread_mutex_unlock(&r->lock);
	r->scan++;
	for (j = r->waiting.head; j; j = next) {
		struct limit *l = j->route->limit;

		next = j->next;
		if (l->scan == r->scan)
			continue;
		l->scan = r->scan;
		if (l->inflight > 0)
			continue;
		if (j->not_before > now) {
			wake_at = j->not_before < wake_at ? j->not_before : wake_at;
			continue;
		}
		if (l->has_remaining && now >= l->reset_at)
			l->has_remaining = 0;
		until = l->blocked_until;
		if (l->has_remaining && l->remaining <= 0)
			until = max_d(until, l->reset_at);
		if (!j->exempt_global) {
			until = max_d(until, r->global_until);
			until = max_d(until, global_window_free_at(r));
		}
		if (until > now) {
			count_wait(r, j);
			wake_at = until < wake_at ? until : wake_at;
			continue;
		}
		jlist_remove(&r->waiting, j);
		j->attempts++;
		if (start(r, j) != 0) {
			deliver(r, j, 0, "cannot start the request");
			continue;
		}
		j->counted_wait = 0;
		j->charge = l;
		l->inflight++;
		if (l->has_remaining)
			l->remaining--;
		if (!j->exempt_global) {
			r->sent[r->sent_next] = now;
			r->sent_next = (r->sent_next + 1) % r->global_per_second;
		}
		jlist_append(&r->inflight, j);
	}
	if (wake_at <= now)
		return 0;
	return (int)((wake_at - now) * 1000.0) + 1;
}

/* Learns from the headers of j's response: the bucket its route belongs to
 * and what the bucket has left. */
static void learn(struct rest *r, struct job *j, double now)
{
	struct route *rt = j->route;
	const struct reply_headers *h = &j->hdr;
	struct limit *l;

	if (h->bucket[0]) {
		size_t lb = strlen(h->bucket), lm = strlen(rt->major);
		char *key = malloc(2 + lb + 1 + lm + 1);

		if (key) {
			memcpy(key, "h:", 2);
			memcpy(key + 2, h->bucket, lb);
			key[2 + lb] = '|';
			memcpy(key + 3 + lb, rt->major, lm + 1);
			if (strcmp(key, rt->limit->node.key) != 0) {
				l = limit_get(r, key);
				if (l) {
					rt->limit->refs--;
					rt->limit = l;
					l->refs++;
				}
			}
			free(key);
		}
	}
	l = rt->limit;
	if (h->has_remaining && h->has_reset_after) {
		l->has_remaining = 1;
		l->remaining = h->remaining;
		l->reset_at = now + h->reset_after;
	}
}

/* Puts j back at the head of the waiting list (ahead of the later requests
 * of its route), not to start before `not_before`. */
static void requeue(struct rest *r, struct job *j, double not_before)
{
	j->not_before = not_before;
	jlist_prepend(&r->waiting, j);
}

static double backoff(struct rest *r, int attempts)
{
	double d = BACKOFF_FIRST;

	for (int i = 1; i < attempts && d < BACKOFF_LAST; i++)
		d *= 2;
	if (d > BACKOFF_LAST)
		d = BACKOFF_LAST;
	return d * (1.0 + BACKOFF_JITTER * prng_unit(r));
}

/* Settles an attempt of j that libcurl has finished with `rc`: retries it or
 * answers it (drops it when stopping). */
static void finish(struct rest *r, struct job *j, CURLcode rc, int stopping)
{
	double now = mono_now();
	int retry_left;
	long status = 0;

	jlist_remove(&r->inflight, j);
	j->charge->inflight--;
	j->charge = NULL;
	curl_easy_getinfo(j->easy, CURLINFO_RESPONSE_CODE, &status);
	attempt_release(r, j);
	if (stopping) {
		drop(r, j, now);
		return;
	}
	retry_left = j->attempts <= r->max_retries;
	if (status > 0)
		learn(r, j, now);
	if (j->too_big) {
		free(j->resp);
		j->resp = NULL;
		deliver(r, j, 0, "response body over %u bytes", (unsigned)REST_MAX_RESPONSE);
	} else if (rc != CURLE_OK) {
		if (retry_left)
			requeue(r, j, now + backoff(r, j->attempts));
		else
			deliver(r, j, 0, "%s (%d attempts)", curl_easy_strerror(rc), j->attempts);
	} else if (status == 429) {
		int has = j->hdr.has_retry_after, global = j->hdr.global;
		double wait = has ? j->hdr.retry_after : RETRY_AFTER_NONE;

		if (j->resp)
			parse_429_body(j->resp, j->resp_len, &has, &wait, &global);
		if (!has && j->hdr.has_reset_after)
			wait = j->hdr.reset_after;
		pthread_mutex_lock(&r->lock);
		r->too_many++;
		if (global && (long)(wait * 1000.0) + 1 > r->global_429_ms)
			r->global_429_ms = (long)(wait * 1000.0) + 1;
		pthread_mutex_unlock(&r->lock);
		if (global)
			r->global_until = max_d(r->global_until, now + wait);
		else
			j->route->limit->blocked_until =
			    max_d(j->route->limit->blocked_until, now + wait);
		if (retry_left) {
			count_wait(r, j);
			requeue(r, j, now + wait);
		} else {
			deliver(r, j, status, "HTTP 429: rate limited (%d attempts)", j->attempts);
		}
	} else if (status >= 500) {
		if (retry_left)
			requeue(r, j, now + backoff(r, j->attempts));
		else
			deliver(r, j, status, "HTTP %ld (%d attempts)", status, j->attempts);
	} else if (status >= 200 && status < 300) {
		deliver(r, j, status, "%s", "");
	} else {
		deliver(r, j, status, "HTTP %ld", status);
	}
}

/* Settles every finished transfer. Returns how many there were. */
static int collect(struct rest *r, int stopping)
{
	CURLMsg *msg;
	int left, n = 0;

	while ((msg = curl_multi_info_read(r->multi, &left))) {
		CURL *e = msg->easy_handle;
		CURLcode rc = msg->data.result;
		char *p = NULL;

		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(e, CURLINFO_PRIVATE, &p);
		curl_multi_remove_handle(r->multi, e);
		finish(r, (struct job *)(void *)p, rc, stopping);
		n++;
	}
	return n;
}

/* Moves the submitted requests to the waiting list with their routes
 * resolved; one whose route cannot be allocated is answered with an error. */
static void take_submitted(struct rest *r)
{
	struct jlist fresh = { 0 };
	struct job *j;

	pthread_mutex_lock(&r->lock);
	jlist_splice(&fresh, &r->incoming);
	pthread_mutex_unlock(&r->lock);
	while ((j = fresh.head)) {
		jlist_remove(&fresh, j);
		j->route = route_get(r, j->route_key, j->major);
		if (!j->route) {
			deliver(r, j, 0, "out of memory");
			continue;
		}
		j->route->refs++;
		jlist_append(&r->waiting, j);
	}
}

static void drop_waiting(struct rest *r, double now)
{
	struct job *j;

	pthread_mutex_lock(&r->lock);
	jlist_splice(&r->waiting, &r->incoming);
	pthread_mutex_unlock(&r->lock);
	while ((j = r->waiting.head)) {
		jlist_remove(&r->waiting, j);
		drop(r, j, now);
	}
}

static int ms_until(double now, double t)
{
	double ms = (t - now) * 1000.0;

	if (ms <= 0)
		return 0;
	return ms > POLL_MAX_MS ? POLL_MAX_MS : (int)ms + 1;
}

/* CURLMOPT_SOCKETFUNCTION: keeps epfd watching socket s for what libcurl
 * asks. */
static int on_socket(CURL *e, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct rest *r = userp;
	struct epoll_event ev = { 0 };

	(void)e;
	if (what == CURL_POLL_REMOVE) {
		/* fails harmlessly when libcurl has closed s already */
		epoll_ctl(r->epfd, EPOLL_CTL_DEL, s, NULL);
		return 0;
	}
	ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
	ev.data.fd = s;
	/* socketp (set by curl_multi_assign, dropped by libcurl at REMOVE): s is
	 * in the set already */
	if (socketp && epoll_ctl(r->epfd, EPOLL_CTL_MOD, s, &ev) == 0)
		return 0;
	if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, s, &ev) != 0 &&
	    (errno != EEXIST || epoll_ctl(r->epfd, EPOLL_CTL_MOD, s, &ev) != 0))
		return -1;
	curl_multi_assign(r->multi, s, r);
	return 0;
}

/* CURLMOPT_TIMERFUNCTION: notes when libcurl wants its timeout action. */
static int on_timer(CURLM *m, long timeout_ms, void *userp)
{
	struct rest *r = userp;

	(void)m;
	r->curl_due = timeout_ms < 0 ? -1.0 : mono_now() + (double)timeout_ms / 1000.0;
	return 0;
}

/* Runs libcurl's timeout action when it is due. */
static void curl_timers(struct rest *r)
{
	int running;

	if (r->curl_due >= 0 && r->curl_due <= mono_now()) {
		r->curl_due = -1.0;
		curl_multi_socket_action(r->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	}
}

/* Waits up to timeout ms (or until libcurl's timeout action is due) for a
 * socket event or a wake-up, and hands the socket events to libcurl. */
static void wait_events(struct rest *r, int timeout)
{
	struct epoll_event evs[EPOLL_BATCH];
	int n, running;

	if (r->curl_due >= 0) {
		int t = ms_until(mono_now(), r->curl_due);
		if (t < timeout)
			timeout = t;
	}
	n = epoll_wait(r->epfd, evs, EPOLL_BATCH, timeout);
	for (int i = 0; i < n; i++) {
		int fd = evs[i].data.fd, how = 0;

		if (fd == r->evfd) {
			uint64_t count;
			(void)!read(r->evfd, &count, sizeof count);
			continue;
		}
		if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
			how |= CURL_CSELECT_IN;
		if (evs[i].events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
			how |= CURL_CSELECT_OUT;
		curl_multi_socket_action(r->multi, fd, how, &running);
	}
}

static void *worker(void *arg)
{
	struct rest *r = arg;
	struct job *j;

	for (;;) {
		double now = mono_now(), deadline;
		int stopping, timeout;

		pthread_mutex_lock(&r->lock);
		stopping = r->stopping;
		deadline = r->stop_deadline;
		pthread_mutex_unlock(&r->lock);
		if (stopping) {
			drop_waiting(r, now);
			if (!r->inflight.head || now >= deadline)
				break;
			timeout = ms_until(now, deadline);
		} else {
			take_submitted(r);
			if (now >= r->next_sweep)
				sweep(r, now);
			timeout = dispatch(r, now);
		}
		curl_timers(r);
		if (collect(r, stopping) > 0)
			timeout = 0;
		wait_events(r, timeout);
	}
	while ((j = r->inflight.head)) {
		jlist_remove(&r->inflight, j);
		curl_multi_remove_handle(r->multi, j->easy);
		j->charge->inflight--;
		drop(r, j, mono_now());
	}
	return NULL;
}

/* Frees r and everything it holds; the worker must not be running. */
static void rest_free(struct rest *r)
{
	struct job *j;

	while ((j = r->incoming.head)) {
		jlist_remove(&r->incoming, j);
		job_free(r, j, 0);
	}
	while (r->done_head) {
		struct done *d = r->done_head;

		r->done_head = d->next;
		free(d->resp.body);
		free(d);
	}
	table_free(&r->routes, route_extra_free);
	table_free(&r->limits, NULL);
	if (r->multi)
		curl_multi_cleanup(r->multi);
	if (r->epfd >= 0)
		close(r->epfd);
	if (r->evfd >= 0)
		close(r->evfd);
	while (r->npool > 0)
		curl_easy_cleanup(r->pool[--r->npool]);
	curl_slist_free_all(r->hdr_none);
	curl_slist_free_all(r->hdr_json);
	curl_slist_free_all(r->hdr_form);
	pthread_mutex_destroy(&r->lock);
	free(r->sent);
	free(r->base_url);
	free(r->token);
	free(r->user_agent);
	free(r->auth);
	free(r);
}

struct rest *rest_start(const struct rest_config *cfg, void (*wake)(void *), void *wake_ctx)
{
	struct rest *r;
	struct timespec ts;
	sigset_t all, old;
	int rc;

	if (!cfg || !cfg->base_url || !cfg->token || !cfg->user_agent || !printable(cfg->token) ||
	    !printable(cfg->user_agent) || !printable(cfg->base_url))
		return NULL;
	if (pthread_once(&curl_once, curl_init_once) != 0 || curl_init_result != CURLE_OK)
		return NULL;
	r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	if (pthread_mutex_init(&r->lock, NULL) != 0) {
		free(r);
		return NULL;
	}
	r->wake = wake;
	r->wake_ctx = wake_ctx;
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	r->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r->curl_due = -1.0;
	r->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : DEFAULT_TIMEOUT_MS;
	/* 0 takes the default, a negative count means no retries */
	r->max_retries = cfg->max_retries == 0 ? DEFAULT_RETRIES : cfg->max_retries;
	if (r->max_retries < 0)
		r->max_retries = 0;
	r->global_per_second = cfg->global_per_second > 0 ? cfg->global_per_second : DEFAULT_GLOBAL;
	if (r->global_per_second > GLOBAL_MAX)
		r->global_per_second = GLOBAL_MAX;
	r->share = r->window = r->global_per_second;
	r->hold_until = -1e9;
	r->base_url = dup_str(cfg->base_url);
	r->token = dup_str(cfg->token);
	r->user_agent = dup_str(cfg->user_agent);
	r->auth = join2("Authorization: Bot ", cfg->token);
	r->sent = malloc((size_t)r->global_per_second * sizeof *r->sent);
	r->multi = curl_multi_init();
	if (r->auth) {
		r->hdr_none = header_list(r, NULL, 0);
		r->hdr_json = header_list(r, "application/json", 0);
		r->hdr_form = header_list(r, NULL, 1);
	}
	if (r->epfd >= 0 && r->evfd >= 0) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = r->evfd };
		if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->evfd, &ev) != 0) {
			close(r->evfd);
			r->evfd = -1;
		}
	}
	if (!r->base_url || !r->token || !r->user_agent || !r->auth || !r->sent || !r->multi ||
	    !r->hdr_none || !r->hdr_json || !r->hdr_form || r->epfd < 0 || r->evfd < 0 ||
	    curl_multi_setopt(r->multi, CURLMOPT_MAXCONNECTS, (long)MAX_CONNECTS) != CURLM_OK ||
	    curl_multi_setopt(r->multi, CURLMOPT_SOCKETFUNCTION, on_socket) != CURLM_OK ||
	    curl_multi_setopt(r->multi, CURLMOPT_SOCKETDATA, (void *)r) != CURLM_OK ||
	    curl_multi_setopt(r->multi, CURLMOPT_TIMERFUNCTION, on_timer) != CURLM_OK ||
	    curl_multi_setopt(r->multi, CURLMOPT_TIMERDATA, (void *)r) != CURLM_OK) {
		rest_free(r);
		return NULL;
	}
	for (int i = 0; i < r->global_per_second; i++)
		r->sent[i] = -1e9;
	r->global_until = -1e9;
	clock_gettime(CLOCK_REALTIME, &ts);
	r->prng = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	r->next_sweep = mono_now() + SWEEP_EVERY;

	/* signals go to the caller's threads, never to the worker */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&r->thread, NULL, worker, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		rest_free(r);
		return NULL;
	}
	return r;
}

int rest_submit(struct rest *r, const struct rest_request *req)
{
	struct job *j;
	int refused, wake;

	if (!r || !req || req->method < REST_GET || req->method > REST_DELETE || !req->path ||
	    req->path[0] != '/' || strlen(req->path) > PATH_MAX_LEN || !printable(req->path) ||
	    strchr(req->path, ' ') || (!req->body && req->body_len > 0) ||
	    req->body_len > REST_MAX_REQUEST || (req->body && req->method == REST_GET))
		return -1;
	if (req->content_type &&
	    (strlen(req->content_type) > CTYPE_MAX_LEN || !printable(req->content_type)))
		return -1;
	if (!files_ok(req))
		return -1;

	pthread_mutex_lock(&r->lock);
	/* Interaction answers keep a reserve of their own: a queue full of other
	 * requests never stops the bot from answering within its 3 s. */
	refused = r->stopping ||
	          r->pending >=
	              (req->exempt_global ? REST_QUEUE_MAX + REST_QUEUE_RESERVE : REST_QUEUE_MAX);
	if (!refused)
		r->pending++;
	pthread_mutex_unlock(&r->lock);
	if (refused)
		return -1;

	j = calloc(1, sizeof *j);
	if (!j)
		goto fail;
	j->method = req->method;
	j->body_len = req->body_len;
	j->exempt_global = req->exempt_global != 0;
	j->tag = req->tag;
	j->path = dup_str(req->path);
	j->done = calloc(1, sizeof *j->done);
	if (!j->path || !j->done || route_of(j->method, j->path, &j->route_key, &j->major) != 0)
		goto fail;
	if (req->body) {
		j->body = dup_mem(req->body, req->body_len);
		j->content_type =
		    dup_str(req->content_type ? req->content_type : "application/json");
		if (!j->body || !j->content_type)
			goto fail;
	}
	if (req->nfiles > 0) {
		j->files = calloc((size_t)req->nfiles, sizeof *j->files);
		if (!j->files)
			goto fail;
		j->nfiles = req->nfiles;
		for (int i = 0; i < req->nfiles; i++) {
			const struct rest_file *f = &req->files[i];
			struct job_file *c = &j->files[i];

			c->name = dup_str(f->name);
			c->filename = dup_str(f->filename);
			c->content_type =
			    dup_str(f->content_type ? f->content_type : "application/octet-stream");
			c->data = dup_mem(f->data, f->len);
			c->len = f->len;
			if (!c->name || !c->filename || !c->content_type || !c->data)
				goto fail;
		}
	}

	pthread_mutex_lock(&r->lock);
	/* A non-empty list has a wake-up on its way, which takes this job too. */
	wake = !r->incoming.head;
	jlist_append(&r->incoming, j);
	pthread_mutex_unlock(&r->lock);
	if (wake)
		wake_worker(r);
	return 0;
fail:
	job_free(r, j, 0);
	pthread_mutex_lock(&r->lock);
	r->pending--;
	pthread_mutex_unlock(&r->lock);
	return -1;
}

int rest_poll(struct rest *r, struct rest_response *out)
{
	struct done *d;

	if (!r || !out)
		return 0;
	pthread_mutex_lock(&r->lock);
	d = r->done_head;
	if (d) {
		r->done_head = d->next;
		if (!r->done_head)
			r->done_tail = NULL;
	}
	pthread_mutex_unlock(&r->lock);
	if (!d)
		return 0;
	*out = d->resp;
	free(d);
	return 1;
}

int rest_pending(struct rest *r)
{
	int n;

	if (!r)
		return 0;
	pthread_mutex_lock(&r->lock);
	n = r->pending;
	pthread_mutex_unlock(&r->lock);
	return n;
}

void rest_set_share(struct rest *r, int per_second)
{
	pthread_mutex_lock(&r->lock);
	r->share = per_second < 1                      ? 1
	           : per_second > r->global_per_second ? r->global_per_second
	                                               : per_second;
	pthread_mutex_unlock(&r->lock);
	wake_worker(r);
}

int rest_share(struct rest *r)
{
	int n;

	pthread_mutex_lock(&r->lock);
	n = r->share;
	pthread_mutex_unlock(&r->lock);
	return n;
}

void rest_hold_global(struct rest *r, long ms)
{
	double until = mono_now() + (double)(ms > 0 ? ms : 0) / 1000.0;

	pthread_mutex_lock(&r->lock);
	r->hold_until = max_d(r->hold_until, until);
	pthread_mutex_unlock(&r->lock);
	wake_worker(r);
}

long rest_global_429_take(struct rest *r)
{
	long ms;

	pthread_mutex_lock(&r->lock);
	ms = r->global_429_ms;
	r->global_429_ms = 0;
	pthread_mutex_unlock(&r->lock);
	return ms;
}

void rest_stats(struct rest *r, long *rate_limited_waits, long *too_many)
{
	long w = 0, t = 0;

	if (r) {
		pthread_mutex_lock(&r->lock);
		w = r->waits;
		t = r->too_many;
		pthread_mutex_unlock(&r->lock);
	}
	if (rate_limited_waits)
		*rate_limited_waits = w;
	if (too_many)
		*too_many = t;
}

void rest_stop(struct rest *r, long grace_ms)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stopping = 1;
	r->stop_deadline = mono_now() + (grace_ms > 0 ? (double)grace_ms / 1000.0 : 0.0);
	pthread_mutex_unlock(&r->lock);
	wake_worker(r);
	pthread_join(r->thread, NULL);
	rest_free(r);
}

void rest_response_free(struct rest_response *resp)
{
	if (!resp)
		return;
	free(resp->body);
	resp->body = NULL;
	resp->len = 0;
}
