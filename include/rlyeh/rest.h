/* rest: the chat platform's HTTP API, asynchronously. A worker thread runs a
 * libcurl multi handle; the thread that owns the bot submits requests and
 * collects responses without ever blocking on the network.
 *
 * Discord's rules are honoured here (shared/design/discord.md): per-route
 * buckets learnt from X-RateLimit-* headers, the global limit of 50
 * requests per second (interaction callbacks are exempt), 429 with
 * retry_after for a bucket or globally, bounded retries with backoff for 5xx
 * and transport errors, never a retry of 401/403, capped request and
 * response sizes, and the documented User-Agent.
 *
 * Files go as Discord's reference ("Uploading Files") describes: a
 * multipart/form-data body whose "payload_json" part holds the JSON and whose
 * "files[n]" parts hold the files. Discord's limits stay at or above ours:
 * each file up to the default upload limit (20 MiB, 10 MiB in earlier
 * versions of the reference), a message request up to 25 MiB, 10 files and
 * attachments a message (files[0] to files[9] and "attachments" maxItems 10
 * in Discord's OpenAPI description). */
#ifndef RLYEH_REST_H
#define RLYEH_REST_H

#include <stddef.h>
#include <stdint.h>

#define REST_MAX_REQUEST   (8u << 20) /* bytes of a request body, files included */
#define REST_MAX_RESPONSE  (1u << 20) /* bytes of a response body kept */
#define REST_MAX_FILES     10         /* file parts of one request */
#define REST_FILENAME_MAX  100        /* bytes of a file part's filename */
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

/* A file sent with a request, as one part of a multipart/form-data body:
 *
 *   Content-Disposition: form-data; name="<name>"; filename="<filename>"
 *   Content-Type: <content_type>
 *
 *   <the len bytes at data>
 *
 * Discord takes the files of a message as parts named "files[n]", n being the
 * placeholder id that the JSON's "attachments" array ([{"id": n, "filename":
 * ...}]) and an embed's "attachment://<filename>" refer to. */
struct rest_file {
	const char *name;     /* the form field: 1 to 32 of A-Z a-z 0-9 _ [ ], e.g. "files[0]" */
	const char *filename; /* 1 to REST_FILENAME_MAX of A-Z a-z 0-9 . _ -, not starting '.' */
	const char *content_type; /* e.g. "image/png"; NULL: "application/octet-stream" */
	const void *data;         /* len bytes, at least one */
	size_t len;
};

struct rest_request {
	int method;       /* enum rest_method */
	const char *path; /* below base_url, starting with '/' */
	const char *body; /* may be NULL; copied */
	size_t body_len;
	const char *content_type; /* NULL: "application/json" when there is a body */
	int exempt_global;        /* 1 for interaction callbacks */
	uint64_t tag;             /* returned with the response */
	/* Files (nfiles 0: none, files may be NULL). With files the request
	 * goes as multipart/form-data: first the body, if any, as the part
	 * "payload_json" with Content-Type application/json, then one part per
	 * file in this order. Only POST, PUT and PATCH carry files, and the body
	 * must then be JSON (content_type NULL or "application/json"). */
	const struct rest_file *files;
	int nfiles;
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
 * called from the worker thread when a response is ready and none was
 * waiting to be taken, so an event loop can be woken (it must be
 * thread-safe, e.g. lws_cancel_service); one call stands for every response
 * ready until rest_poll has returned 0, so the woken side takes them all.
 * Returns NULL when the worker cannot start. */
struct rest *rest_start(const struct rest_config *cfg, void (*wake)(void *), void *wake_ctx);

/* Queues a request. Everything it points to is copied, files included: the
 * caller may free or reuse it all once this returns. Every attempt (a retry
 * after a 5xx, a 429 or a transport error) sends the same bytes again, the
 * multipart boundary included. Returns 0, or -1 when the queue holds
 * REST_QUEUE_MAX requests (REST_QUEUE_MAX + REST_QUEUE_RESERVE for exempt
 * ones), the body and the files together exceed REST_MAX_REQUEST, there are
 * more than REST_MAX_FILES files, a file breaks the rules of struct
 * rest_file (two with one name, an empty one…), the request is malformed
 * (path not starting with '/', control characters, a GET with a body…) or
 * rest_stop has begun; nothing is queued then. Thread-safe. */
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

/* Keeps counted (not exempt) requests to `per_second` in any second from
 * now on: this process's share of the global limit when several share one
 * token (limits.h). Clamped to 1..global_per_second. Thread-safe. */
void rest_set_share(struct rest *r, int per_second);

/* The share in force (global_per_second until rest_set_share). */
int rest_share(struct rest *r);

/* Holds counted requests for `ms` from now, as a global 429 would: another
 * process got one. Requests in flight go on. Thread-safe. */
void rest_hold_global(struct rest *r, long ms);

/* The longest wait (ms, rounded up) asked by global 429s received since the
 * last call, 0 when none. Thread-safe. */
long rest_global_429_take(struct rest *r);

/* Stops the worker after the requests in flight have finished or
 * `grace_ms` passed, frees everything; unfinished requests are dropped.
 * NULL is a no-op. */
void rest_stop(struct rest *r, long grace_ms);

/* Frees a response's body and clears it. */
void rest_response_free(struct rest_response *resp);

#endif
