/* The bot: timeouts, reminders, later passes of computer moves (bot_tick),
 * and what the bot tells of its tables. */
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

/* ---- timeouts ---- */

/* Plays the awaited move of t for its idle player; with timeouts off,
 * closes a game idle past its limit (play.h: idle_ms) without a result,
 * or moves its deadline to that limit. */
static void time_out(struct bot *b, struct table *t, int64_t now, struct msg_list *out)
{
	struct game_step step;
	struct play_ctx pc = bot_table_ctx_of(t, bot_table_lang(t));
	char name[STORE_NAME_MAX];
	struct work w;
	int member;

	bot_work_init(&w, b, t, now);
	w.t.game->ops->step(w.t.state, &step);
	if (step.node == GAME_NODE_OVER) {
		bot_work_free(&w);
		return;
	}
	if (b->cfg.turn_timeout_ms <= 0 && w.t.game->idle_ms > 0) {
		/* Timeouts are off: the deadline is the game's idle limit, counted
		 * from its last event (one set while they were on moves to it). */
		if (now - w.t.last_at < w.t.game->idle_ms) {
			w.t.row.deadline = w.t.last_at + w.t.game->idle_ms;
			bot_work_commit(&w, NULL, 0, out);
			bot_work_free(&w);
			return;
		}
		bot_work_close_unrated(&w, "abort", -1, "idle");
		bot_cmd_say(&w, S_IDLE_CLOSED, NULL, NULL);
		bot_work_commit(&w, NULL, 0, out);
		bot_work_free(&w);
		return;
	}
	member = w.t.game->member_of(w.t.state, step.seat);
	w.t.game->seat_name(w.t.state, &pc, step.seat, name, sizeof(name));
	w.t.m[member].strikes++;
	bot_work_log_event(&w, "timeout", member, w.t.m[member].strikes, NULL);
	bot_cmd_say(&w, S_TIMED_OUT, name, NULL);
	if (w.t.m[member].strikes >= b->cfg.strikes && !w.t.m[member].autopilot) {
		w.t.m[member].autopilot = 1;
		bot_work_log_event(&w, "autopilot", member, -1, NULL);
		bot_cmd_say(&w, S_AUTOPILOT, w.t.m[member].name, NULL);
	}
	if (step.node == GAME_NODE_CHANCE)
		bot_work_roll(&w, member, &step);
	else if (w.t.game->timeout_value) {
		struct game_events ev;
		struct cmd more;
		int go = 0, value;
		memset(&more, 0, sizeof(more));
		value = w.t.game->timeout_value(w.t.state, &pc, &step, &more, &go, &w.t.row.note);
		if (bot_work_apply_ev(&w, member, value, "choice", &ev) == GAME_OK && go)
			bot_work_go_on(&w, member, &more, &ev);
	} else
		bot_work_choose(&w, member, &step, w.t.game->policy);
	if (w.t.row.state == STORE_PLAYING)
		bot_work_advance(&w);
	bot_work_show_table(&w);
	bot_work_commit(&w, NULL, 0, out);
	bot_work_free(&w);
}

/* Reminds the player called at s's table that the time for their move
 * runs out: the table again, calling them with the seconds left. Nothing is
 * written; the reminder is not repeated for this move. */
static void remind(struct bot *b, struct slot *s, int64_t now, struct msg_list *out)
{
	int64_t before = bot_table_slot_wake(b, s);
	struct table t;
	struct work w;
	char left[24];
	int k;

	s->remind = 0;
	bot_table_deadline_moved(b, before, bot_table_slot_wake(b, s));
	bot_table_expand(s, &t);
	k = bot_work_called_member(&t);
	if (k < 0)
		return;
	bot_work_init(&w, b, &t, now);
	bot_work_show_table(&w); /* calls k unless they turned calls off */
	if (w.out.n && w.out.m[w.out.n - 1].call.user[0]) {
		struct msg *m = &w.out.m[w.out.n - 1];
		snprintf(left, sizeof(left), "%lld",
		         (long long)((t.row.deadline - now + 999) / 1000));
		bot_work_set_call(m, &t, k, S_REMIND, left);
		m->call.reminder = 1;
		msg_add_copy(out, m);
	}
	bot_work_free(&w);
}

/* Closes the lobby of s, untouched since s->last_at, without a game and
 * tells the channel. */
static void expire_lobby(struct bot *b, struct slot *s, int64_t now, struct msg_list *out)
{
	struct table t;
	struct work w;

	bot_table_expand(s, &t);
	bot_work_init(&w, b, &t, now);
	bot_work_close_unrated(&w, "abort", -1, "expired");
	bot_cmd_say(&w, S_LOBBY_EXPIRED, NULL, NULL);
	bot_work_commit(&w, NULL, 0, out);
	bot_work_free(&w);
}

/* Lets go of the finished or aborted tables kept longer than
 * cfg.finished_keep_ms (a rematch brings a finished one back from the
 * store). Not inside a batch, whose undo may hold them. */
static void let_go(struct bot *b, int64_t now)
{
	if (b->batch || b->cfg.finished_keep_ms <= 0)
		return;
	for (size_t i = 0; i < b->nbuckets; i++) {
		for (struct slot **at = &b->buckets[i]; *at;) {
			struct slot *s = *at;
			if (s->state == STORE_LOBBY || s->state == STORE_PLAYING ||
			    s->last_at + b->cfg.finished_keep_ms > now) {
				at = &s->next;
				continue;
			}
			*at = s->next;
			free(s->blob);
			free(s->held);
			free(s);
			b->nslots--;
			b->earliest = -1;
		}
	}
}

/* Plays on the computer moves s's table left for a later pass (at most
 * cfg.moves_per_pass of them); what they tell is held until the last pass,
 * which tells it with the table (commit): the channel gets the narration of
 * the command's own pass at once and one message for the rest. */
static void play_pending(struct bot *b, struct slot *s, int64_t now, struct msg_list *out)
{
	struct table t;
	struct work w;

	bot_table_expand(s, &t);
	bot_work_init(&w, b, &t, now);
	w.holding = 1;
	bot_work_advance(&w);
	if (!w.t.pending)
		bot_work_show_table(&w);
	bot_work_commit(&w, NULL, 0, out);
	bot_work_free(&w);
}

void bot_tick(struct bot *b, int64_t now, struct msg_list *out)
{
	int64_t next = bot_next_deadline(b);

	if (!next || next > now)
		return;
	let_go(b, now);
	for (size_t i = 0; i < b->nbuckets; i++) {
		for (struct slot *s = b->buckets[i]; s; s = s->next) {
			if (s->state == STORE_LOBBY && b->cfg.lobby_timeout_ms > 0 &&
			    s->last_at + b->cfg.lobby_timeout_ms <= now) {
				expire_lobby(b, s, now, out);
				continue;
			}
			if (s->state == STORE_PLAYING && s->pending) {
				play_pending(b, s, now, out);
				continue;
			}
			if (s->state != STORE_PLAYING || s->deadline <= 0)
				continue;
			if (s->deadline <= now) {
				struct table t;
				bot_table_expand(s, &t);
				time_out(b, &t, now, out);
			} else if (s->remind > 0 && s->remind <= now) {
				remind(b, s, now, out);
			}
		}
	}
}

int64_t bot_next_deadline(struct bot *b)
{
	int64_t next = 0;

	if (b->earliest >= 0)
		return b->earliest;
	for (size_t i = 0; i < b->nbuckets; i++) {
		for (const struct slot *s = b->buckets[i]; s; s = s->next) {
			int64_t wake = bot_table_slot_wake(b, s);
			if (wake > 0 && (next == 0 || wake < next))
				next = wake;
		}
	}
	b->earliest = next;
	return next;
}

void bot_set_turn_timeout(struct bot *b, int64_t ms)
{
	b->cfg.turn_timeout_ms = ms < 0 ? 0 : ms;
}

int bot_has_game(struct bot *b, const char *server, const char *channel)
{
	return bot_table_is_open(bot_table_find(b, server, channel));
}

const char *bot_channel_game(const struct bot *b, const char *server, const char *channel)
{
	const struct slot *s = bot_table_find_slot(b, server, channel);
	int open = s && (s->state == STORE_LOBBY || s->state == STORE_PLAYING);

	return (open ? s->game : play_games[0])->ops->name;
}

int bot_pending(const struct bot *b)
{
	int n = 0;

	for (size_t i = 0; i < b->nbuckets; i++)
		for (const struct slot *s = b->buckets[i]; s; s = s->next)
			n += s->state == STORE_PLAYING && s->pending;
	return n;
}

size_t bot_tables_kept(const struct bot *b)
{
	return b->nslots;
}

long bot_store_errors(const struct bot *b)
{
	return b->store_errors;
}

int bot_open_games(const struct bot *b)
{
	int n = 0;

	for (size_t i = 0; i < b->nbuckets; i++)
		for (const struct slot *s = b->buckets[i]; s; s = s->next)
			n += s->state == STORE_LOBBY || s->state == STORE_PLAYING;
	return n;
}
