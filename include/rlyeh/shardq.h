/* shardq: when each of a process's gateway shards may start a new session
 * (IDENTIFY), as a pure function of the times it is given. Discord allows
 * max_concurrency session starts per 5 s, one per rate-limit bucket
 * (shard_id % max_concurrency), and a daily number of them
 * (session_start_limit: remaining, reset_after). Shards ask for a turn; a
 * turn goes to the longest-waiting shard whose bucket has been quiet for the
 * gap, so the first shard of every bucket may start at once, and the shards
 * of one bucket start one gap apart, in the order they asked. A RESUME needs
 * no turn. */
#ifndef RLYEH_SHARDQ_H
#define RLYEH_SHARDQ_H

#include <stdint.h>

/* 5 s between two starts in one bucket, with room for the way there. */
#define SHARDQ_GAP_US 5500000

struct shardq {
	int max_concurrency;
	int64_t gap_us;
	int64_t *bucket_at; /* per bucket: when its last turn was given */
	int *given;         /* per bucket: 1 once a turn was given */
	int *wait;          /* shard ids waiting, oldest first */
	int nwait, cap;
	long remaining; /* session starts left; -1 unknown (no limit applied) */
	long total;     /* what remaining becomes at reset_at; -1 unknown */
	int64_t reset_at;
};

/* Sets up a queue for at most `cap` waiting shards (cap >= 1), with
 * max_concurrency buckets (< 1 is taken as 1) and gap_us between two turns of
 * a bucket. Returns 0, or -1 when memory is short (q then holds nothing to
 * free). */
int shardq_init(struct shardq *q, int max_concurrency, int64_t gap_us, int cap);

/* Frees what q holds; q may be zeroed or failed. */
void shardq_free(struct shardq *q);

/* Applies the session start limit: `remaining` starts left (< 0 unknown),
 * `total` once the limit resets at `reset_at` (same clock as shardq_next). */
void shardq_limit(struct shardq *q, long remaining, long total, int64_t reset_at);

/* Adds shard `id` (>= 0) to the queue. Returns 0 (also when it already
 * waits: it keeps its place), or -1 when the queue is full. */
int shardq_push(struct shardq *q, int id);

/* Drops shard `id` from the queue if it waits there. */
void shardq_cancel(struct shardq *q, int id);

/* At time `now` (microseconds, any monotonic origin): the shard whose turn it
 * is, taken off the queue and counted against its bucket and the start limit,
 * or -1 when none may start now. *wait_us (may be NULL) is then the time
 * until one may, or -1 when none waits; after a turn it is 0. Call again
 * until -1: several buckets may start at once. */
int shardq_next(struct shardq *q, int64_t now, int64_t *wait_us);

/* Takes back the turn shardq_next just gave shard `id` at `now` (someone
 * else, e.g. another process, holds its bucket): the shard waits again,
 * first in line, the start is not counted, and its bucket stays closed
 * until now + hold_us. Returns 0, or -1 when the queue is full (nothing
 * changed). */
int shardq_refuse(struct shardq *q, int id, int64_t now, int64_t hold_us);

/* Shards waiting. */
int shardq_waiting(const struct shardq *q);

#endif
