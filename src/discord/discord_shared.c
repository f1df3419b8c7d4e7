/* The Discord adapter: what processes running one bot share through
 * PostgreSQL (rate limits, IDENTIFY buckets, shard ownership). */
#include "rlyeh/discord.h"

#include <errno.h>
#include <getopt.h>
#include <libwebsockets.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "rlyeh/cdsolvecache.h"
#include "rlyeh/cli.h"
#include "rlyeh/cmd.h"
#include "rlyeh/config.h"
#include "rlyeh/console.h"
#include "rlyeh/gateway.h"
#include "rlyeh/i18n.h"
#include "rlyeh/limits.h"
#include "rlyeh/log.h"
#include "rlyeh/metrics.h"
#include "rlyeh/owner.h"
#include "rlyeh/play.h"
#include "rlyeh/rest.h"
#include "rlyeh/rng.h"
#include "rlyeh/shards.h"
#include "rlyeh/store.h"
#include "rlyeh/text.h"

#include "discord_int.h"

/* Beats and resets this process's share of the global limit. */
void discord_shared_beat(struct app *a)
{
	int live = a->live;

	if (limits_beat(a->limits, &live)) {
		log_msg(LOG_WARN, "shared limits: %s; keeping a share of %d/s",
		        limits_errmsg(a->limits), rest_share(a->rest));
		return;
	}
	if (live != a->live)
		log_msg(LOG_INFO, "shared limits: %d processes, %d requests/s each", live,
		        limits_share(a->global_total, live));
	a->live = live;
	rest_set_share(a->rest, limits_share(a->global_total, live));
}

/* Every SHARED_POLL_MS: holds the requests when another process got a
 * global 429, announces this one's, and beats every LIMITS_BEAT_MS and when
 * another process started. */
void discord_shared_due(lws_sorted_usec_list_t *sul)
{
	struct app *a = lws_container_of(sul, struct app, shared);
	int joined = 0;
	long theirs = limits_poll(a->limits, &joined), ours = rest_global_429_take(a->rest);
	int64_t now = discord_loop_now_ms();

	if (theirs > 0) {
		log_msg(LOG_WARN, "another process got a global 429: holding requests %ld ms",
		        theirs);
		rest_hold_global(a->rest, theirs);
	}
	if (ours > 0 && limits_global_429(a->limits, ours))
		log_msg(LOG_WARN, "shared limits: %s", limits_errmsg(a->limits));
	/* a lost connection is opened again by the next beat, not sooner */
	if (joined || now >= a->next_beat) {
		a->next_beat = now + LIMITS_BEAT_MS;
		discord_shared_beat(a);
	}
	lws_sul_schedule(a->ctx, 0, &a->shared, discord_shared_due, SHARED_POLL_MS * LWS_US_PER_MS);
}

/* shards' may_identify: the IDENTIFY bucket shared by the processes. */
int discord_shared_identify(void *ctx, int shard, int bucket, int64_t *wait_us)
{
	struct app *a = ctx;
	long ms = 0;
	int rc;

	if (!a->limits)
		return 1;
	rc = limits_identify(a->limits, bucket, LIMITS_GAP_MS, &ms);
	if (rc == 0)
		log_msg(LOG_INFO,
		        "shard %d: bucket %d was taken by another process; %ld ms to wait", shard,
		        bucket, ms);
	else if (rc < 0)
		log_msg(LOG_WARN, "shared limits: %s", limits_errmsg(a->limits));
	*wait_us = (int64_t)ms * 1000;
	return rc;
}

/* ---- shard ownership (owner.h), with PostgreSQL ---- */

#define OWN_POLL_MS 1000 /* ownership asked and sessions saved this often */
/* Interactions recorded are kept this long (Discord answers an interaction
 * within 15 minutes at most). */
#define INTERACTIONS_KEPT_MS (60LL * 60 * 1000)

/* Saves shard `shard`'s gateway session when its seq moved (fenced by its
 * epoch: a process that lost the shard writes nothing). */
void discord_shared_own_save_session(struct app *a, int shard)
{
	struct store_shard_session ss;
	int i = shard - a->own_first;

	memset(&ss, 0, sizeof(ss));
	if (!a->own_epoch[i] ||
	    shards_session(a->shards, shard, ss.session_id, sizeof(ss.session_id), &ss.seq,
	                   ss.resume_url, sizeof(ss.resume_url)) ||
	    !ss.session_id[0] || ss.seq == a->own_saved_seq[i])
		return;
	ss.saved_at = discord_loop_now_ms();
	if (store_shard_session_put(a->st, a->own_count, shard, a->own_epoch[i], &ss) == 0)
		a->own_saved_seq[i] = ss.seq;
	else
		log_msg(LOG_WARN, "shard %d: session not saved: %s", shard, store_errmsg(a->st));
}

void discord_shared_own_gained(void *ctx, int shard, int64_t epoch)
{
	struct app *a = ctx;
	struct store_shard_session ss;
	char err[256];
	int i = shard - a->own_first;

	if (bot_shard_gain(a->bot, shard, epoch, err, sizeof(err))) {
		log_msg(LOG_ERR, "shard %d: its games could not be loaded: %s", shard, err);
		return;
	}
	a->own_epoch[i] = epoch;
	a->own_saved_seq[i] = -1;
	if (a->own_waiting[i]) {
		/* its session, started while the old count ran, goes on */
		a->own_waiting[i] = 0;
		log_msg(LOG_NOTICE,
		        "shard %d of %d: owned here (epoch %lld); the other shard count has "
		        "stopped, its games are served here now",
		        shard, a->own_count, (long long)epoch);
		discord_loop_schedule_tick(a);
		return;
	}
	if (store_shard_session_get(a->st, a->own_count, shard, &ss) < 0)
		memset(&ss, 0, sizeof(ss));
	log_msg(LOG_NOTICE, "shard %d of %d: owned here (epoch %lld), %s", shard, a->own_count,
	        (long long)epoch, ss.session_id[0] ? "resuming its session" : "identifying");
	shards_take(a->shards, shard, ss.session_id, ss.seq, ss.resume_url);
	discord_loop_schedule_tick(a);
}

/* Resharding: the shard's lock is had, but processes of another shard count
 * still run it; its connection starts (a new session) so that the switch is
 * quick, and its interactions are left to them until own_gained. */
void discord_shared_own_waits(void *ctx, int shard)
{
	struct app *a = ctx;

	log_msg(LOG_NOTICE,
	        "shard %d of %d: processes of another shard count still run; connecting, and "
	        "serving once they have stopped",
	        shard, a->own_count);
	a->own_waiting[shard - a->own_first] = 1;
	shards_take(a->shards, shard, "", 0, "");
	discord_loop_schedule_tick(a);
}

void discord_shared_own_lost(void *ctx, int shard)
{
	struct app *a = ctx;

	log_msg(LOG_WARN, "shard %d of %d: no longer owned here", shard, a->own_count);
	a->own_waiting[shard - a->own_first] = 0;
	a->own_epoch[shard - a->own_first] = 0;
	shards_give(a->shards, shard);
	bot_shard_drop(a->bot, shard);
	discord_loop_schedule_tick(a);
}

void discord_shared_own_due(lws_sorted_usec_list_t *sul)
{
	struct app *a = lws_container_of(sul, struct app, own);

	discord_loop_flush(a);
	if (!a->stopping) {
		for (int i = 0; i < CONFIG_SHARDS_MAX && a->own_first + i < a->own_count; i++)
			discord_shared_own_save_session(a, a->own_first + i);
		if (store_interactions_forget(a->st, discord_loop_now_ms() - INTERACTIONS_KEPT_MS))
			log_msg(LOG_WARN, "interactions not forgotten: %s", store_errmsg(a->st));
		if (owner_poll(a->owner, discord_loop_now_ms()) < 0)
			log_msg(LOG_WARN, "shard ownership: the database did not answer");
	}
	lws_sul_schedule(a->ctx, 0, &a->own, discord_shared_own_due, OWN_POLL_MS * LWS_US_PER_MS);
}
