#include "rlyeh/metrics.h"

#include "rlyeh/gateway.h"

static const double bounds[METRICS_BUCKETS] = {
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
};

void metrics_count(struct metrics *m, const struct cmd *c)
{
	if (c->kind == CMD_ACTION && c->action >= 0 && c->action < PLAY_ACTIONS_MAX)
		m->actions[c->action]++;
	else if (c->kind >= 0 && c->kind < CMD_COUNT)
		m->interactions[c->kind]++;
}

void metrics_latency(struct metrics *m, double seconds)
{
	for (int i = 0; i < METRICS_BUCKETS; i++)
		if (seconds <= bounds[i])
			m->latency[i]++;
	m->latency_sum += seconds;
	m->latency_count++;
}

void metrics_render(const struct metrics *m, const struct metrics_gauges *g, struct text *out)
{
	text_add(out, "# HELP rlyeh_gateway_ready 1 when the gateway session is ready.\n"
	              "# TYPE rlyeh_gateway_ready gauge\n");
	text_addf(out, "rlyeh_gateway_ready %d\n", g->gateway_ready);
	text_add(out, "# HELP rlyeh_shards_owned The gateway shards this process runs now.\n"
	              "# TYPE rlyeh_shards_owned gauge\n");
	text_addf(out, "rlyeh_shards_owned %d\n", g->shards_owned);
	text_add(out, "# HELP rlyeh_standby 1 when this process owns no shard and waits to take "
	              "one over.\n# TYPE rlyeh_standby gauge\n");
	text_addf(out, "rlyeh_standby %d\n", g->standby);
	text_add(out, "# HELP rlyeh_gateway_state The gateway client's state (0 idle .. 7 "
	              "stopped).\n# TYPE rlyeh_gateway_state gauge\n");
	text_addf(out, "rlyeh_gateway_state %d\n", g->gateway_state);
	text_add(out, "# HELP rlyeh_gateway_reconnects_total Gateway reconnections.\n"
	              "# TYPE rlyeh_gateway_reconnects_total counter\n");
	text_addf(out, "rlyeh_gateway_reconnects_total %ld\n", g->reconnects);
	if (g->nshards > 0) {
		text_add(out,
		         "# HELP rlyeh_shard_ready 1 when the shard's gateway session is ready.\n"
		         "# TYPE rlyeh_shard_ready gauge\n");
		for (int i = 0; i < g->nshards; i++)
			text_addf(out, "rlyeh_shard_ready{shard=\"%d\"} %d\n", g->shards[i].id,
			          g->shards[i].state == GATEWAY_READY);
		text_add(out,
		         "# HELP rlyeh_shard_state The shard's gateway client state (0 idle .. "
		         "7 stopped).\n# TYPE rlyeh_shard_state gauge\n");
		for (int i = 0; i < g->nshards; i++)
			text_addf(out, "rlyeh_shard_state{shard=\"%d\"} %d\n", g->shards[i].id,
			          g->shards[i].state);
		text_add(out, "# HELP rlyeh_shard_reconnects_total The shard's gateway "
		              "reconnections.\n# TYPE rlyeh_shard_reconnects_total counter\n");
		for (int i = 0; i < g->nshards; i++)
			text_addf(out, "rlyeh_shard_reconnects_total{shard=\"%d\"} %ld\n",
			          g->shards[i].id, g->shards[i].reconnects);
		text_add(out, "# HELP rlyeh_shard_heartbeat_latency_seconds The shard's last "
		              "heartbeat to its ACK.\n"
		              "# TYPE rlyeh_shard_heartbeat_latency_seconds gauge\n");
		for (int i = 0; i < g->nshards; i++)
			if (g->shards[i].latency >= 0)
				text_addf(
				    out,
				    "rlyeh_shard_heartbeat_latency_seconds{shard=\"%d\"} %.6f\n",
				    g->shards[i].id, g->shards[i].latency);
	}
	text_add(out, "# HELP rlyeh_interactions_total Interactions handled, by command.\n"
	              "# TYPE rlyeh_interactions_total counter\n");
	for (int k = 0; k < CMD_COUNT; k++)
		if (k != CMD_ACTION)
			text_addf(out, "rlyeh_interactions_total{command=\"%s\"} %ld\n",
			          cmd_name(k), m->interactions[k]);
	for (int i = 0; play_action_at(i); i++)
		text_addf(out, "rlyeh_interactions_total{command=\"%s\"} %ld\n",
		          play_action_at(i)->name, m->actions[i]);
	text_addf(out, "rlyeh_interactions_total{command=\"unreadable\"} %ld\n", m->unreadable);
	text_add(out, "# HELP rlyeh_response_seconds From an interaction's arrival to its "
	              "accepted callback.\n# TYPE rlyeh_response_seconds histogram\n");
	for (int i = 0; i < METRICS_BUCKETS; i++)
		text_addf(out, "rlyeh_response_seconds_bucket{le=\"%g\"} %ld\n", bounds[i],
		          m->latency[i]);
	text_addf(out, "rlyeh_response_seconds_bucket{le=\"+Inf\"} %ld\n", m->latency_count);
	text_addf(out, "rlyeh_response_seconds_sum %.6f\n", m->latency_sum);
	text_addf(out, "rlyeh_response_seconds_count %ld\n", m->latency_count);
	text_add(out, "# HELP rlyeh_commits_total Database commits of handled interactions (one "
	              "per batch).\n# TYPE rlyeh_commits_total counter\n");
	text_addf(out, "rlyeh_commits_total %ld\n", m->commits);
	text_add(out, "# HELP rlyeh_http_rate_limited_total HTTP requests held back by a rate "
	              "limit.\n# TYPE rlyeh_http_rate_limited_total counter\n");
	text_addf(out, "rlyeh_http_rate_limited_total %ld\n", g->rate_limited_waits);
	text_add(out, "# HELP rlyeh_http_429_total 429 responses received.\n"
	              "# TYPE rlyeh_http_429_total counter\n");
	text_addf(out, "rlyeh_http_429_total %ld\n", g->too_many);
	text_add(out, "# HELP rlyeh_games_in_progress Games in a lobby or being played.\n"
	              "# TYPE rlyeh_games_in_progress gauge\n");
	text_addf(out, "rlyeh_games_in_progress %d\n", g->games);
	text_add(out, "# HELP rlyeh_database_errors_total Moves refused because the database "
	              "failed.\n# TYPE rlyeh_database_errors_total counter\n");
	text_addf(out, "rlyeh_database_errors_total %ld\n", g->db_errors);
}
