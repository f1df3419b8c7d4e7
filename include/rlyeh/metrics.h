/* metrics: the daemon's counters, and their Prometheus text exposition
 * (format 0.0.4) for /metrics. */
#ifndef RLYEH_METRICS_H
#define RLYEH_METRICS_H

#include "rlyeh/cmd.h"
#include "rlyeh/play.h"
#include "rlyeh/text.h"

#define METRICS_BUCKETS 12

struct metrics {
	long interactions[CMD_COUNT];   /* by table command */
	long actions[PLAY_ACTIONS_MAX]; /* by action (play_action_at) */
	long unreadable;                /* interactions that could not be read */
	long latency[METRICS_BUCKETS];  /* cumulative counts per upper bound */
	double latency_sum;
	long latency_count;
	long commits; /* group commits of handled interactions */
};

/* One gateway shard's gauges. */
struct metrics_shard {
	int id;
	int state; /* enum gateway_state */
	long reconnects;
	double latency; /* last heartbeat to its ACK, seconds; < 0 none yet */
};

/* Values read at the time of rendering. */
struct metrics_gauges {
	int gateway_state; /* enum gateway_state */
	int gateway_ready;
	int shards_owned; /* the shards this process runs now */
	int standby;      /* 1: owns none now and waits to take one over */
	long reconnects;
	int games;
	long rate_limited_waits;
	long too_many;
	long db_errors;
	const struct metrics_shard *shards; /* the shards run here, labelled shard="id" */
	int nshards;
};

/* Counts one interaction. */
void metrics_count(struct metrics *m, const struct cmd *c);

/* Records one response latency, from the interaction's arrival to its
 * callback being accepted, in seconds. */
void metrics_latency(struct metrics *m, double seconds);

/* Appends the exposition to out. */
void metrics_render(const struct metrics *m, const struct metrics_gauges *g, struct text *out);

#endif
