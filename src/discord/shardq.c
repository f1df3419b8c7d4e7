#include "rlyeh/shardq.h"

#include <stdlib.h>
#include <string.h>

int shardq_init(struct shardq *q, int max_concurrency, int64_t gap_us, int cap)
{
	memset(q, 0, sizeof(*q));
	if (max_concurrency < 1)
		max_concurrency = 1;
	if (cap < 1)
		cap = 1;
	q->bucket_at = calloc((size_t)max_concurrency, sizeof(*q->bucket_at));
	q->given = calloc((size_t)max_concurrency, sizeof(*q->given));
	q->wait = calloc((size_t)cap, sizeof(*q->wait));
	if (!q->bucket_at || !q->given || !q->wait) {
		shardq_free(q);
		return -1;
	}
	q->max_concurrency = max_concurrency;
	q->gap_us = gap_us;
	q->cap = cap;
	q->remaining = -1;
	q->total = -1;
	return 0;
}

void shardq_free(struct shardq *q)
{
	free(q->bucket_at);
	free(q->given);
	free(q->wait);
	memset(q, 0, sizeof(*q));
}

void shardq_limit(struct shardq *q, long remaining, long total, int64_t reset_at)
{
	q->remaining = remaining < 0 ? -1 : remaining;
	q->total = total < 0 ? -1 : total;
	q->reset_at = reset_at;
}

int shardq_push(struct shardq *q, int id)
{
	for (int i = 0; i < q->nwait; i++)
		if (q->wait[i] == id)
			return 0;
	if (q->nwait == q->cap || id < 0)
		return -1;
	q->wait[q->nwait++] = id;
	return 0;
}

static void take(struct shardq *q, int at)
{
	memmove(&q->wait[at], &q->wait[at + 1], (size_t)(q->nwait - at - 1) * sizeof(q->wait[0]));
	q->nwait--;
}

void shardq_cancel(struct shardq *q, int id)
{
	for (int i = 0; i < q->nwait; i++)
		if (q->wait[i] == id) {
			take(q, i);
			return;
		}
}

int shardq_next(struct shardq *q, int64_t now, int64_t *wait_us)
{
	int64_t soonest = -1;

	if (wait_us)
		*wait_us = q->nwait ? 0 : -1;
	if (!q->nwait)
		return -1;
	if (q->remaining == 0) {
		if (now < q->reset_at) {
			if (wait_us)
				*wait_us = q->reset_at - now;
			return -1;
		}
		q->remaining = q->total;
	}
	for (int i = 0; i < q->nwait; i++) {
		int id = q->wait[i], b = id % q->max_concurrency;
		int64_t free_at = q->given[b] ? q->bucket_at[b] + q->gap_us : now;
		if (free_at <= now) {
			take(q, i);
			q->given[b] = 1;
			q->bucket_at[b] = now;
			if (q->remaining > 0)
				q->remaining--;
			return id;
		}
		if (soonest < 0 || free_at - now < soonest)
			soonest = free_at - now;
	}
	if (wait_us)
		*wait_us = soonest;
	return -1;
}

int shardq_refuse(struct shardq *q, int id, int64_t now, int64_t hold_us)
{
	int b;

	if (q->nwait == q->cap || id < 0)
		return -1;
	memmove(&q->wait[1], &q->wait[0], (size_t)q->nwait * sizeof(q->wait[0]));
	q->wait[0] = id;
	q->nwait++;
	if (q->remaining >= 0)
		q->remaining++;
	b = id % q->max_concurrency;
	q->given[b] = 1;
	q->bucket_at[b] = now + (hold_us > 0 ? hold_us : 0) - q->gap_us;
	return 0;
}

int shardq_waiting(const struct shardq *q)
{
	return q->nwait;
}
