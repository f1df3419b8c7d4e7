/* rest: the chat platform's HTTP API, asynchronously. A worker thread runs a
 * libcurl multi handle; the thread that owns the bot submits requests and
 * collects responses without ever blocking on the network.
 *
 * Discord's rules are honoured here (shared/design/discord.md): per-route
 * buckets learnt from X-RateLimit-* headers, the global limit of 50
 * requests per second (interaction callbacks are exempt), 429 with
 * retry_after for a bucket or globally, bounded retries with backoff for 5xx
 * and transport errors, never a retry of 401/403, capped request and
 * response sizes, and the documented User-Agent. */
#ifndef RLYEH_REST_H
#define RLYEH_REST_H

#include <stddef.h>
#include <stdint.h>

#define REST_MAX_REQUEST   (8u << 20) /* bytes of a request body */
#define REST_MAX_RESPONSE  (1u << 20) /* bytes of a response body kept */
#define REST_QUEUE_MAX     4096       /* requests waiting or in flight */
#define REST_QUEUE_RESERVE 1024       /* more, for exempt (interaction) requests only */

struct rest;

struct rest_config {
	const char *base_url;   /* e.g. "https://discord.com/api/v10" (no trailing slash) */
	const char *token;      /* sent as "Authorization: Bot <token>"; never logged */
	const char *user_agent; /* "DiscordBot (<url>, <version>)" */
	long timeout_ms;        /* per attempt (default 10000) */
	int max_retries;        /* for 5xx, 429 and transport errors (0: 3; negative: none) */
	int global_per_second;  /* global limit (default 50) */
};

enum rest_method {
	REST_GET,
	REST_POST,
	REST_PUT,
	REST_PATCH,
	REST_DELETE,
};

struct rest_request {
	int method;       /* enum rest_method */
	const char *path; /* below base_url, starting with '/' */
	const char *body; /* may be NULL; copied */
	size_t body_len;
	const char *content_type; /* NULL: "application/json" when there is a body */
	int exempt_global;        /* 1 for interaction callbacks */
	uint64_t tag;             /* returned with the response */
};

struct rest_response {
	uint64_t tag;
	long status; /* HTTP status; 0 when no response came */
	char *body;  /* NUL-terminated, owned by the caller (free); may be NULL */
	size_t len;
	int attempts;
	char error[128]; /* why it failed, when status is not 2xx */
};

/* Starts the worker. Strings in cfg are copied. `wake` (may be NULL) is
 * called from the worker thread whenever a response is ready, so an event
 * loop can be woken (it must be thread-safe, e.g. lws_cancel_service).
 * Returns NULL when the worker cannot start. */
struct rest *rest_start(const struct rest_config *cfg, void (*wake)(void *), void *wake_ctx);

/* Queues a request (copied). Returns 0, or -1 when the queue holds
 * REST_QUEUE_MAX requests (REST_QUEUE_MAX + REST_QUEUE_RESERVE for exempt
 * ones), the body exceeds REST_MAX_REQUEST, the request is
 * malformed (path not starting with '/', control characters, a GET with a
 * body…) or rest_stop has begun; nothing is queued then. Thread-safe. */
int rest_submit(struct rest *r, const struct rest_request *req);

/* Takes one finished response; returns 1 with *out filled, 0 when none is
 * ready. Thread-safe. */
int rest_poll(struct rest *r, struct rest_response *out);

/* Requests waiting or in flight. */
int rest_pending(struct rest *r);

/* Counters since the start (for metrics): attempts held back by a rate
 * limit or a 429 (once per attempt), 429s received. Exempt requests skip the
 * global limit and a global 429 hold. */
void rest_stats(struct rest *r, long *rate_limited_waits, long *too_many);

/* Stops the worker after the requests in flight have finished or
 * `grace_ms` passed, frees everything; unfinished requests are dropped.
 * NULL is a no-op. */
void rest_stop(struct rest *r, long grace_ms);

/* Frees a response's body and clears it. */
void rest_response_free(struct rest_response *resp);

#endif
