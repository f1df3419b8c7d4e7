/* rest_int: what the files of the HTTP API client (include/rlyeh/rest.h)
 * share: its limits, the client's state (struct rest, its jobs, routes and
 * rate limits) and the functions one of its files calls in another. Private
 * to src/discord: rest.c holds the API and small helpers, rest_limits.c the
 * routes and their rate limits, rest_http.c one request's HTTP (its form,
 * headers and attempts, its response read), rest_worker.c the worker thread.
 * rest.c's opening comment tells how threads, limits, memory and files
 * work. */
#ifndef RLYEH_REST_INT_H
#define RLYEH_REST_INT_H

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
#define EASY_POOL          16  /* finished easy handles kept for reuse (some 20 KB each) */
#define MAX_CONNECTS       256 /* idle connections kept open to the API */
#define EPOLL_BATCH        64  /* socket events taken by one epoll_wait */

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
	int unsent;        /* counted by the global window, started, not yet sent */
	struct rest *rest; /* the client it was submitted to (for on_prereq) */

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
	double *sent; /* times the last global_per_second counted requests were sent */
	int sent_next;
	int unsent;        /* counted requests started and not yet sent */
	int rescan;        /* one was sent while the window held another back */
	int window_waiter; /* the window holds a request back until one is sent */
	int window;        /* the share, as the worker last read it */
	double global_until;
	unsigned scan;
	uint64_t prng;
	double next_sweep;
	CURL *pool[EASY_POOL]; /* reset easy handles */
	int npool;
	struct curl_slist *hdr_none, *hdr_json, *hdr_form; /* the common header lists, shared */
	double curl_due; /* when libcurl wants its timeout action; < 0: never */
};

/* ---- rest.c ---- */

/* The names of enum rest_method's values, for request lines and routes. */
extern const char *const rest_method_names[];

/* The monotonic clock, in seconds. */
double rest_mono_now(void);

/* The larger of a and b. */
double rest_max_d(double a, double b);

/* splitmix64: only the backoff jitter uses it. */
double rest_prng_unit(struct rest *r);

/* A copy of s (malloc'd, the caller frees it); NULL when out of memory. */
char *rest_dup_str(const char *s);

/* Concatenates a and b into a new string; NULL when out of memory. */
char *rest_join2(const char *a, const char *b);

/* Appends j, in no list, to the end of l. */
void rest_jlist_append(struct jlist *l, struct job *j);

/* Puts j, in no list, at the head of l. */
void rest_jlist_prepend(struct jlist *l, struct job *j);

/* Unlinks j from l (j must be in l). */
void rest_jlist_remove(struct jlist *l, struct job *j);

/* Moves every job of src to the end of dst; src is left empty. */
void rest_jlist_splice(struct jlist *dst, struct jlist *src);

/* ---- rest_limits.c ---- */

/* Unlinks n from t (n must be in t). */
void rest_limits_table_remove(struct table *t, struct node *n);

/* Frees every node of t (each a struct route or a struct limit: `extra`
 * frees what the node owns besides its key), then the slots. */
void rest_limits_table_free(struct table *t, void (*extra)(struct node *));

/* rest_limits_table_free's `extra` for the routes table: frees a route's
 * major parameter (table_free frees its key and the node). */
void rest_limits_route_extra_free(struct node *n);

/* Finds the limit named key, creating it (without refs) when missing.
 * Returns NULL when out of memory. */
struct limit *rest_limits_limit_get(struct rest *r, const char *key);

/* Finds the route named key, creating it with a limit of its own when
 * missing. Returns NULL when out of memory (nothing created then). */
struct route *rest_limits_route_get(struct rest *r, const char *key, const char *major);

/* Whether l holds its requests back at `now`. */
int rest_limits_limit_holds(const struct limit *l, double now);

/* Forgets the routes that no request uses and whose limit no longer holds
 * requests back, then the limits that no route uses and no request in
 * flight is charged to. */
void rest_limits_sweep(struct rest *r, double now);

/* Computes the route of `method path` ("PATCH /channels/1/messages/:id") and
 * its major parameter ("channels/1"; "" when there is none): the first
 * channels/, guilds/, webhooks/ or interactions/ segment followed by another
 * keeps the segments of its parameter, every other all-digit segment becomes
 * ":id", and the query string is ignored. Returns 0, or -1 when out of
 * memory (nothing allocated then). */
int rest_limits_route_of(int method, const char *path, char **route_out, char **major_out);

/* ---- rest_http.c ---- */

/* Reads "retry_after" (seconds) and "global" from the top level of a 429
 * body ({"message", "retry_after", "global"}). Members that are missing or
 * malformed leave the outputs as they were. */
void rest_http_parse_429_body(const char *s, size_t n, int *has_retry, double *retry, int *global);

/* Ends j's attempt. A form keeps its handle and body for the next attempt,
 * so that a retry sends the same bytes; other requests give them back. */
void rest_http_attempt_release(struct rest *r, struct job *j);

/* Frees j and everything it owns, and lets go of its route. */
void rest_http_job_free(struct rest *r, struct job *j, double now);

/* Frees j without answering it (the worker is stopping). */
void rest_http_drop(struct rest *r, struct job *j, double now);

/* Answers j: its response (the body kept so far, `status`, and the error
 * text built from fmt, never containing the token) goes to the responses
 * queue, `wake` is called when that queue was empty, and j is freed. */
void rest_http_deliver(struct rest *r, struct job *j, long status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A header list: the authorization, the content type ("Content-Type:"
 * with no value keeps libcurl from adding its form type) and "Expect:"
 * (no waiting for a 100 Continue). A form's list (`form`) has no content
 * type: libcurl sends its own, which names the boundary. NULL when memory is
 * short. */
struct curl_slist *rest_http_header_list(const struct rest *r, const char *content_type, int form);

/* Starts one attempt of j: an easy handle (from the pool, or new; a form's
 * retry reuses its own) added to the multi handle. Returns 0, or -1 with
 * the attempt's resources released (a form's kept ones stay with j). */
int rest_http_start(struct rest *r, struct job *j);

/* ---- rest_worker.c ---- */

/* CURLMOPT_SOCKETFUNCTION: keeps epfd watching socket s for what libcurl
 * asks. */
int rest_worker_on_socket(CURL *e, curl_socket_t s, int what, void *userp, void *socketp);

/* CURLMOPT_TIMERFUNCTION: notes when libcurl wants its timeout action. */
int rest_worker_on_timer(CURLM *m, long timeout_ms, void *userp);
/* Notes that j's attempt is being sent now: a counted request takes its
 * place in the global window at this time (once an attempt). */
void rest_worker_sent(struct rest *r, struct job *j);

/* The worker thread's body (arg: the struct rest): takes, dispatches and
 * settles the requests until asked to stop, then drops what is left. */
void *rest_worker(void *arg);

#endif
