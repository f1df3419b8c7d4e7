#include "rlyeh/shards.h"

#include <libwebsockets.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rlyeh/log.h"
#include "rlyeh/shardq.h"

struct slot {
	struct shards *set;
	struct gateway *gw;
	int id;
	int held; /* run here: always, unless managed */
};

struct shards {
	struct lws_context *ctx;
	struct shards_handler h;
	struct slot *slots;
	int n;
	int count;
	struct shardq q;
	lws_sorted_usec_list_t turn;
	int stopping;
	int managed;
};

static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static struct slot *slot_of(struct shards *s, int id)
{
	int i = s->count ? id - s->slots[0].id : 0;

	return i >= 0 && i < s->n ? &s->slots[i] : NULL;
}

/* Gives every turn due now, then waits for the next one. */
static void turn_due(lws_sorted_usec_list_t *sul)
{
	struct shards *s = lws_container_of(sul, struct shards, turn);
	int64_t wait, now;
	int id;

	while ((id = shardq_next(&s->q, now = mono_us(), &wait)) >= 0) {
		struct slot *sl = slot_of(s, id);
		if (sl && sl->held && !s->stopping && s->h.may_identify) {
			int64_t hold = 0;
			int ok = s->h.may_identify(s->h.ctx, id, id % s->q.max_concurrency, &hold);
			if (ok <= 0) {
				if (ok < 0) {
					log_msg(LOG_WARN,
					        "shard %d: cannot ask for the shared identify turn",
					        id);
					hold = 1000000;
				}
				if (hold < 100000)
					hold = 100000;
				if (shardq_refuse(&s->q, id, now, hold) == 0)
					continue;
			}
		}
		if (sl && sl->held && !s->stopping) {
			log_msg(LOG_INFO, "shard %d of %d: identifying (%d waiting)", id,
			        s->count ? s->count : 1, shardq_waiting(&s->q));
			gateway_identify_turn(sl->gw);
		}
	}
	if (wait >= 0)
		lws_sul_schedule(s->ctx, 0, &s->turn, turn_due, (lws_usec_t)wait);
}

static void on_turn(void *ctx)
{
	struct slot *sl = ctx;
	struct shards *s = sl->set;

	if (shardq_push(&s->q, sl->id))
		log_msg(LOG_WARN, "shard %d: the identify queue is full", sl->id);
	lws_sul_schedule(s->ctx, 0, &s->turn, turn_due, 0);
}

static void on_dispatch(void *ctx, const char *t, const cJSON *d, int64_t seq)
{
	struct slot *sl = ctx;

	if (sl->set->h.dispatch)
		sl->set->h.dispatch(sl->set->h.ctx, sl->id, t, d, seq);
}

static void on_state(void *ctx, int state, const char *why)
{
	struct slot *sl = ctx;
	struct shards *s = sl->set;

	if (state == GATEWAY_STOPPED && gateway_fatal(sl->gw) && !s->stopping) {
		log_msg(LOG_ERR, "shard %d was refused for good: stopping every shard", sl->id);
		shards_stop(s);
	}
	if (s->h.state)
		s->h.state(s->h.ctx, sl->id, state, why);
}

struct shards *shards_new(struct lws_context *ctx, const struct shards_config *c,
                          const struct shards_handler *h)
{
	struct shards *s;
	int n = c->count ? c->last - c->first + 1 : 1;

	if (n < 1)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->ctx = ctx;
	s->h = *h;
	s->count = c->count;
	s->managed = c->managed;
	s->slots = calloc((size_t)n, sizeof(*s->slots));
	if (!s->slots || shardq_init(&s->q, c->max_concurrency, SHARDQ_GAP_US, n)) {
		free(s->slots);
		free(s);
		return NULL;
	}
	if (c->remaining >= 0)
		shardq_limit(&s->q, c->remaining, c->total,
		             mono_us() +
		                 (int64_t)(c->reset_after_ms > 0 ? c->reset_after_ms : 0) * 1000);
	for (int i = 0; i < n; i++) {
		struct gateway_config gc = c->gw;
		struct gateway_handler gh = { 0 };
		struct slot *sl = &s->slots[i];
		sl->set = s;
		sl->id = c->count ? c->first + i : 0;
		sl->held = !c->managed;
		gc.shard_id = sl->id;
		gc.shard_count = c->count;
		gh.ctx = sl;
		gh.dispatch = on_dispatch;
		gh.state = on_state;
		gh.identify_turn = on_turn;
		sl->gw = gateway_new(ctx, &gc, &gh);
		s->n = i + 1;
		if (!sl->gw) {
			shards_free(s);
			return NULL;
		}
	}
	return s;
}

void shards_start(struct shards *s)
{
	for (int i = 0; i < s->n; i++)
		if (s->slots[i].held)
			gateway_start(s->slots[i].gw);
}

void shards_take(struct shards *s, int id, const char *session_id, int64_t seq,
                 const char *resume_url)
{
	struct slot *sl = slot_of(s, id);

	if (!sl || sl->held || s->stopping)
		return;
	sl->held = 1;
	gateway_set_session(sl->gw, session_id, seq, resume_url);
	gateway_start(sl->gw);
}

void shards_give(struct shards *s, int id)
{
	struct slot *sl = slot_of(s, id);

	if (!sl || !sl->held)
		return;
	sl->held = 0;
	shardq_cancel(&s->q, sl->id);
	if (gateway_state(sl->gw) != GATEWAY_STOPPED)
		gateway_stop(sl->gw);
}

int shards_session(const struct shards *s, int id, char *session_id, size_t sid_cap, int64_t *seq,
                   char *resume_url, size_t url_cap)
{
	int i = s->count ? id - s->slots[0].id : 0;
	const struct slot *sl = i >= 0 && i < s->n ? &s->slots[i] : NULL;

	if (!sl || !sl->held)
		return -1;
	gateway_get_session(sl->gw, session_id, sid_cap, seq, resume_url, url_cap);
	return 0;
}

void shards_stop(struct shards *s)
{
	s->stopping = 1;
	lws_sul_cancel(&s->turn);
	for (int i = 0; i < s->n; i++) {
		shardq_cancel(&s->q, s->slots[i].id);
		if (gateway_state(s->slots[i].gw) != GATEWAY_STOPPED)
			gateway_stop(s->slots[i].gw);
	}
}

int shards_callback(struct shards *s, void *user, struct lws *wsi, int reason, void *in, size_t len,
                    int *rc)
{
	if (!s || !user)
		return 0;
	for (int i = 0; i < s->n; i++)
		if (user == (void *)s->slots[i].gw) {
			*rc = gateway_callback(s->slots[i].gw, wsi, reason, in, len);
			return 1;
		}
	return 0;
}

int shards_running(const struct shards *s)
{
	if (s->managed && !s->stopping)
		return 1;
	for (int i = 0; i < s->n; i++)
		if (gateway_state(s->slots[i].gw) != GATEWAY_STOPPED)
			return 1;
	return 0;
}

int shards_fatal(const struct shards *s)
{
	for (int i = 0; s && i < s->n; i++)
		if (gateway_fatal(s->slots[i].gw))
			return gateway_fatal(s->slots[i].gw);
	return 0;
}

int shards_owned(const struct shards *s)
{
	int k = 0;

	for (int i = 0; s && i < s->n; i++)
		k += s->slots[i].held;
	return k;
}

int shards_ready(const struct shards *s)
{
	if (!s)
		return 0;
	for (int i = 0; i < s->n; i++)
		if (s->slots[i].held && gateway_state(s->slots[i].gw) != GATEWAY_READY)
			return 0;
	return 1;
}

void shards_not_ready_json(const struct shards *s, struct text *out)
{
	int first = 1;

	text_add(out, "[");
	for (int i = 0; s && i < s->n; i++)
		if (s->slots[i].held && gateway_state(s->slots[i].gw) != GATEWAY_READY) {
			text_addf(out, "%s%d", first ? "" : ",", s->slots[i].id);
			first = 0;
		}
	text_add(out, "]");
}

int shards_gauges(const struct shards *s, struct metrics_shard *out, int max)
{
	int n = 0;

	for (int i = 0; s && i < s->n && n < max; i++) {
		if (!s->slots[i].held)
			continue;
		out[n].id = s->slots[i].id;
		out[n].state = gateway_state(s->slots[i].gw);
		out[n].reconnects = gateway_reconnects(s->slots[i].gw);
		out[n].latency = gateway_latency(s->slots[i].gw);
		n++;
	}
	return n;
}

void shards_free(struct shards *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++)
		gateway_free(s->slots[i].gw);
	shardq_free(&s->q);
	free(s->slots);
	free(s);
}
