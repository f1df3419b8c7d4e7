/* The bot: start-up (games resumed), shards and batches. */
#include "rlyeh/bot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/i18n.h"
#include "rlyeh/play.h"
#include "rlyeh/playlog.h"
#include "rlyeh/records.h"
#include "rlyeh/rng.h"
#include "rlyeh/text.h"

#include "bot_int.h"

void bot_config_default(struct bot_config *cfg)
{
	cfg->seed = 1;
	cfg->turn_timeout_ms = 120000;
	cfg->strikes = 3;
	cfg->min_games = 3;
	cfg->lang = "en";
	cfg->shards = 0;
	cfg->lobby_timeout_ms = 24 * 3600 * 1000LL;
	cfg->finished_keep_ms = 3600 * 1000LL;
	cfg->moves_per_pass = 64;
}

/* ---- start-up ---- */

struct resume {
	struct bot *b;
	int shard; /* only this shard's games; -1 every game */
	char *err;
	size_t errlen;
};

/* 1 when the next move of t's game is one advance makes (a computer's, an
 * automatic roll, a decision the table settles). */
static int automatic_next(const struct table *t)
{
	struct play_ctx c = bot_table_ctx_of(t, bot_table_lang(t));
	struct game_step step;
	int member, value;

	t->game->ops->step(t->state, &step);
	if (step.node == GAME_NODE_OVER)
		return 0;
	member = t->game->member_of(t->state, step.seat);
	if (step.node == GAME_NODE_CHANCE)
		return t->game->auto_roll(t->state, &step) || bot_work_computer_controls(t, member);
	return (t->game->settle && t->game->settle(t->state, &c, &step, &value)) ||
	       bot_work_computer_controls(t, member);
}

/* Rebuilds one stored game (open, or finished: its final state) from its
 * row, members and log, and keeps it as its channel's table. */
static int resume_game(void *ctx, const struct store_loaded *g)
{
	struct resume *rs = ctx;
	struct table t;
	int applied = 0;

	if (rs->shard >= 0 && store_shard_of(g->game->server, rs->b->cfg.shards) != rs->shard)
		return 0;
	memset(&t, 0, sizeof(t));
	t.row = *g->game;
	t.game = play_find(t.row.game);
	if (!t.game || g->nmembers > STORE_MEMBERS_MAX) {
		snprintf(rs->err, rs->errlen, "game %lld: unknown game '%s'", (long long)t.row.id,
		         t.row.game);
		return -1;
	}
	t.nm = g->nmembers;
	memcpy(t.m, g->members, (size_t)t.nm * sizeof(t.m[0]));
	t.seq = g->nevents ? g->events[g->nevents - 1].seq : 0;
	t.last_at = g->nevents ? g->events[g->nevents - 1].at : t.row.created_at;
	if (t.row.state == STORE_PLAYING || t.row.state == STORE_FINISHED) {
		if (play_log_init(t.game, &t.row, t.nm, t.state) != GAME_OK) {
			snprintf(rs->err, rs->errlen, "game %lld: bad setup", (long long)t.row.id);
			return -1;
		}
		for (int i = 0; i < g->nevents; i++) {
			const struct store_event *e = &g->events[i];
			int rc = play_log_apply(t.game, t.state, e, NULL);
			if (rc == 0)
				continue;
			if (rc < 0) {
				snprintf(rs->err, rs->errlen,
				         "game %lld: event %lld does not apply",
				         (long long)t.row.id, (long long)e->seq);
				return -1;
			}
			applied++;
		}
		if (applied != t.row.moves) {
			snprintf(rs->err, rs->errlen, "game %lld: %d moves logged, %d expected",
			         (long long)t.row.id, applied, t.row.moves);
			return -1;
		}
		/* a stretch of computer moves cut by a pass goes on */
		t.pending = t.row.state == STORE_PLAYING && automatic_next(&t);
		if (t.row.state == STORE_PLAYING && t.row.deadline > 0 &&
		    rs->b->cfg.turn_timeout_ms > 0 &&
		    bot_work_called_member(&t) >=
		        0) /* the reminder of the awaited move, as advance set it */
			t.remind =
			    t.row.deadline - bot_work_move_wait(&t, rs->b->cfg.turn_timeout_ms) / 4;
	}
	if (bot_table_keep(rs->b, &t)) {
		snprintf(rs->err, rs->errlen, "out of memory");
		return -1;
	}
	if (t.row.id > rs->b->games_made)
		rs->b->games_made = t.row.id;
	return 0;
}

/* Keeps the channel's last game as its table when it is finished (the
 * newest game of the channel, found in the store). Returns 1 when kept, 0
 * when there is none, -1 on a store error or when it does not replay (logged
 * in the store's error message; nothing kept). */
int bot_restore_finished(struct bot *b, const char *server, const char *channel)
{
	char err[256];
	struct resume rs = { .b = b, .shard = -1, .err = err, .errlen = sizeof(err) };
	int64_t id = 0;

	for (int i = 0; play_games[i] && !id; i++)
		if (store_channel_finished(b->st, play_games[i]->ops->name, server, channel, &id))
			return -1;
	if (!id)
		return 0;
	err[0] = '\0';
	if (store_game_load(b->st, id, resume_game, &rs))
		return -1;
	return bot_table_find_slot(b, server, channel) ? 1 : 0;
}

struct bot *bot_new(struct store *st, const struct bot_config *cfg, char *err, size_t errlen)
{
	struct bot *b = calloc(1, sizeof(*b));
	struct resume rs = { .b = b, .shard = -1, .err = err, .errlen = errlen };

	if (!b) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	b->st = st;
	b->cfg = *cfg;
	text_copy(b->lang, sizeof(b->lang), cfg->lang ? cfg->lang : "en");
	b->cfg.lang = b->lang;
	if (b->cfg.strikes < 1)
		b->cfg.strikes = 3;
	err[0] = '\0';
	/* After an upgrade, the ratings are built once from the finished games. */
	if (records_prepare(st)) {
		snprintf(err, errlen, "building the ratings: %s", store_errmsg(st));
		bot_free(b);
		return NULL;
	}
	if (cfg->shards > 0) {
		if (cfg->shards > 65535 || !(b->epochs = calloc((size_t)cfg->shards, 8))) {
			snprintf(err, errlen, "shards: %d is not a shard count", cfg->shards);
			bot_free(b);
			return NULL;
		}
	} else if (store_games_open(st, resume_game, &rs)) {
		if (!err[0])
			snprintf(err, errlen, "%s", store_errmsg(st));
		bot_free(b);
		return NULL;
	}
	b->games_made = store_games_made(st);
	return b;
}

/* Frees every slot of shard `shard`. */
static void drop_slots(struct bot *b, int shard)
{
	for (size_t i = 0; i < b->nbuckets; i++) {
		for (struct slot **at = &b->buckets[i]; *at;) {
			struct slot *s = *at;
			if (store_shard_of(bot_table_slot_server(s), b->cfg.shards) != shard) {
				at = &s->next;
				continue;
			}
			*at = s->next;
			free(s->blob);
			free(s->held);
			free(s);
			b->nslots--;
		}
	}
	b->earliest = -1;
}

int bot_shard_gain(struct bot *b, int shard, int64_t epoch, char *err, size_t errlen)
{
	struct resume rs = { .b = b, .shard = shard, .err = err, .errlen = errlen };
	int64_t made;

	err[0] = '\0';
	if (b->cfg.shards <= 0 || shard < 0 || shard >= b->cfg.shards || epoch <= 0 || b->batch) {
		snprintf(err, errlen, "shard %d of %d with epoch %lld cannot be given here", shard,
		         b->cfg.shards, (long long)epoch);
		return -1;
	}
	drop_slots(b, shard);
	b->epochs[shard] = 0;
	if (store_games_open(b->st, resume_game, &rs)) {
		if (!err[0])
			snprintf(err, errlen, "%s", store_errmsg(b->st));
		drop_slots(b, shard);
		return -1;
	}
	made = store_games_made(b->st);
	if (made > b->games_made)
		b->games_made = made;
	b->epochs[shard] = epoch;
	return 0;
}

int bot_shard_drop(struct bot *b, int shard)
{
	if (b->batch)
		return -1;
	if (b->cfg.shards <= 0 || shard < 0 || shard >= b->cfg.shards)
		return 0;
	b->epochs[shard] = 0;
	drop_slots(b, shard);
	return 0;
}

long bot_fenced_out(const struct bot *b)
{
	return b->fenced_out;
}

void bot_batch_begin(struct bot *b)
{
	b->batch = 1;
}

int bot_batch_end(struct bot *b)
{
	int rc = 0;

	b->batch = 0;
	if (store_in_transaction(b->st) && store_commit(b->st)) {
		store_rollback(b->st);
		bot_table_undo_batch(b);
		b->store_errors++;
		rc = -1;
	}
	bot_table_forget_batch(b);
	return rc;
}

void bot_batch_refusal(struct bot *b, const struct bot_req *req, struct msg_list *out)
{
	bot_work_refuse(out, req,
	                bot_cmd_user_lang(b, req, bot_table_find(b, req->server, req->channel)),
	                S_ERR_STORAGE, NULL, NULL);
}

void bot_free(struct bot *b)
{
	if (!b)
		return;
	if (b->batch) {
		b->batch = 0;
		store_rollback(b->st);
		bot_table_undo_batch(b);
	}
	for (size_t i = 0; i < b->nbuckets; i++) {
		for (struct slot *s = b->buckets[i], *next; s; s = next) {
			next = s->next;
			free(s->blob);
			free(s->held);
			free(s);
		}
	}
	free(b->buckets);
	free(b->epochs);
	free(b);
}
