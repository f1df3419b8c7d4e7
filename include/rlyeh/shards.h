/* shards: the gateway connections of one process, one per shard it runs
 * (shards A..B of N), on the caller's lws context. New sessions (IDENTIFY)
 * take turns through a shardq: one per rate-limit bucket (shard_id %
 * max_concurrency) per 5 s, and none while the session start limit is spent
 * until it resets; RESUMEs need no turn. With several processes on one
 * token, a turn is also asked of them all (shards_handler.may_identify). A
 * shard that drops resumes on its own; the others keep going. A shard closed
 * for good (4004, 4010-4014) stops them all. */
#ifndef RLYEH_SHARDS_H
#define RLYEH_SHARDS_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "rlyeh/gateway.h"
#include "rlyeh/metrics.h"
#include "rlyeh/text.h"

struct lws;
struct lws_context;
struct shards;

struct shards_config {
	int first, last; /* the shard ids run here */
	int count;       /* N; 0: one connection without "shard" in IDENTIFY */
	int max_concurrency;
	long remaining;           /* session starts left; < 0 unknown */
	long total;               /* after the reset; < 0 unknown */
	long reset_after_ms;      /* until remaining is total again */
	struct gateway_config gw; /* url, token, compress, protocol (shard set here) */
	int managed; /* 1: shards run only once given (shards_take), as owner.h decides */
};

struct shards_handler {
	void *ctx;
	/* A dispatch on shard `shard`. */
	void (*dispatch)(void *ctx, int shard, const char *t, const cJSON *d, int64_t seq);
	/* Shard `shard` changed state (enum gateway_state). */
	void (*state)(void *ctx, int shard, int state, const char *why);
	/* May be NULL. Asked when shard `shard` got its local turn to
	 * identify in rate-limit bucket `bucket`: 1 to go, 0 when another
	 * process holds the bucket for *wait_us more, -1 when it cannot be
	 * told (asked again in a second). */
	int (*may_identify)(void *ctx, int shard, int bucket, int64_t *wait_us);
};

/* Makes the connections (none started) on `ctx` (borrowed). NULL when
 * memory is short or the range is empty. */
struct shards *shards_new(struct lws_context *ctx, const struct shards_config *c,
                          const struct shards_handler *h);

/* Starts every shard: each asks for its turn to identify. */
void shards_start(struct shards *s);

/* Managed shards: starts shard `id` (one of first..last), resuming the
 * session given when session_id is not "" (another owner's, from the
 * store), else identifying in turn. A shard already run here is left. */
void shards_take(struct shards *s, int id, const char *session_id, int64_t seq,
                 const char *resume_url);

/* Managed shards: closes shard `id` (resumable, for its next owner) and
 * stops reconnecting it. */
void shards_give(struct shards *s, int id);

/* Shard id's session now (gateway_get_session); 0, or -1 when the shard is
 * not run here. */
int shards_session(const struct shards *s, int id, char *session_id, size_t sid_cap, int64_t *seq,
                   char *resume_url, size_t url_cap);

/* Closes every shard (resumable) and stops reconnecting. */
void shards_stop(struct shards *s);

/* When `user` is the connection data of one of the shards, passes the lws
 * callback to it, sets *rc to its result and returns 1; else 0. */
int shards_callback(struct shards *s, void *user, struct lws *wsi, int reason, void *in, size_t len,
                    int *rc);

/* 1 while some shard is not stopped; managed shards: also until
 * shards_stop, though none is run. */
int shards_running(const struct shards *s);

/* 0, or the exit status of the first shard closed for good (gateway_fatal). */
int shards_fatal(const struct shards *s);

/* Shards run here (managed: those taken and not given back). */
int shards_owned(const struct shards *s);

/* 1 when every shard run here is READY. */
int shards_ready(const struct shards *s);

/* Appends the ids of the shards not READY as a JSON array, e.g. [2,3]. */
void shards_not_ready_json(const struct shards *s, struct text *out);

/* Fills out[0..max) with each shard's gauges; returns how many. */
int shards_gauges(const struct shards *s, struct metrics_shard *out, int max);

/* Frees everything (call after the lws context is destroyed). NULL: no-op. */
void shards_free(struct shards *s);

#endif
