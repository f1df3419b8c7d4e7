/* The bot: the work of one command (events, narration, the save, the commit). */
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

/* ---- the work of one command ---- */

void bot_work_init(struct work *w, struct bot *b, const struct table *t, int64_t now)
{
	memset(w, 0, sizeof(*w));
	w->b = b;
	if (t) {
		w->t = *t;
		w->row0 = t->row;
		w->nm0 = t->nm;
		memcpy(w->m0, t->m, (size_t)t->nm * sizeof(t->m[0]));
	}
	w->now = now;
	text_init(&w->narr, w->narr_buf, sizeof(w->narr_buf));
}

void bot_work_free(struct work *w)
{
	free(w->ev);
	msg_free(&w->out);
}

/* Appends an event to the pending log. */
void bot_work_log_event(struct work *w, const char *kind, int actor, int value, const char *detail)
{
	struct store_event *e;

	if (w->nev == w->capev) {
		int cap = w->capev ? w->capev * 2 : 16;
		struct store_event *bigger = realloc(w->ev, (size_t)cap * sizeof(*bigger));
		if (!bigger) {
			w->oom = 1;
			return;
		}
		w->ev = bigger;
		w->capev = cap;
	}
	e = &w->ev[w->nev++];
	memset(e, 0, sizeof(*e));
	e->seq = ++w->t.seq;
	e->at = w->now;
	w->t.last_at = w->now;
	text_copy(e->kind, sizeof(e->kind), kind);
	e->actor = actor;
	e->value = value;
	text_copy(e->detail, sizeof(e->detail), detail ? detail : "");
}

/* Appends a reply to the pending output. */
struct msg *bot_work_reply(struct work *w, int audience, const char *user, int kind)
{
	struct msg *m = msg_add(&w->out, audience, user, kind);

	if (!m) {
		w->oom = 1;
		return NULL;
	}
	m->game = w->t.row.id;
	text_copy(m->channel, sizeof(m->channel), w->t.row.channel);
	return m;
}

static void flush_narration(struct work *w);

/* Adds one line of narration as it is, starting a new message when this
 * one is full. */
static void add_line(struct work *w, const char *line)
{
	if (w->narr.len + strlen(line) + 2 >= sizeof(w->narr_buf))
		flush_narration(w);
	text_add(&w->narr, line);
	text_add(&w->narr, "\n");
}

/* Adds text's lines ("\n" after each) to the narration; text is changed. */
static void add_lines(struct work *w, char *text)
{
	for (char *line = text, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl) {
			add_line(w, line);
			break;
		}
		*nl = '\0';
		add_line(w, line);
	}
}

/* Tells the events gathered for the game's fold (play.h: fold) as lines of
 * the narration; none are left gathered. */
void bot_work_flush_events(struct work *w)
{
	struct play_ctx c;
	struct text tx;
	char *lines;
	int n = w->nfold;

	if (n == 0)
		return;
	w->nfold = 0;
	lines = malloc(WORK_FOLD_TEXT);
	if (!lines) {
		w->oom = 1;
		return;
	}
	c = bot_table_ctx_of(&w->t, bot_table_lang(&w->t));
	text_init(&tx, lines, WORK_FOLD_TEXT);
	w->t.game->fold(w->t.state, w->fold, n, &c, &tx);
	add_lines(w, lines);
	free(lines);
}

/* Moves the narration gathered so far into a public event message. */
static void flush_narration(struct work *w)
{
	struct msg *m;

	bot_work_flush_events(w);
	if (w->narr.len == 0)
		return;
	m = bot_work_reply(w, MSG_CHANNEL, NULL, MSG_EVENT);
	if (m)
		text_copy(m->text, sizeof(m->text), w->narr_buf);
	text_init(&w->narr, w->narr_buf, sizeof(w->narr_buf));
}

/* Adds one line of narration after the events still to be told. */
void bot_work_narrate_line(struct work *w, const char *line)
{
	bot_work_flush_events(w);
	add_line(w, line);
}

int bot_work_computer_controls(const struct table *t, int member)
{
	return t->m[member].policy[0] || t->m[member].autopilot;
}

/* The member whom the table waits for and may call: a human playing their
 * own seat, whose roll or own decision (play.h: calls) is awaited; -1 for
 * none (a lobby, a game over, a computer seat, a reaction window). */
int bot_work_called_member(const struct table *t)
{
	struct game_step step;
	int member;

	if (t->row.state != STORE_PLAYING)
		return -1;
	t->game->ops->step(t->state, &step);
	if (step.node == GAME_NODE_OVER ||
	    (step.node == GAME_NODE_CHANCE && t->game->auto_roll(t->state, &step)))
		return -1;
	member = t->game->member_of(t->state, step.seat);
	if (member < 0 || member >= t->nm || !t->m[member].player[0] ||
	    bot_work_computer_controls(t, member))
		return -1;
	if (step.node == GAME_NODE_CHOICE && t->game->calls) {
		struct play_ctx c = bot_table_ctx_of(t, bot_table_lang(t));
		if (!t->game->calls(t->state, &c, &step))
			return -1;
	}
	return member;
}

/* Milliseconds the awaited move of t waits before it times out, for a
 * configured turn timeout base_ms > 0 (play.h: wait_ms). */
int64_t bot_work_move_wait(const struct table *t, int64_t base_ms)
{
	struct play_ctx c = bot_table_ctx_of(t, bot_table_lang(t));
	int64_t ms = t->game->wait_ms ? t->game->wait_ms(t->state, &c, base_ms) : base_ms;

	return ms > 0 ? ms : base_ms;
}

/* Makes table message m call member k of t with the text `id` ({1}: a1). */
void bot_work_set_call(struct msg *m, const struct table *t, int k, int id, const char *a1)
{
	struct text tx;

	text_copy(m->call.user, sizeof(m->call.user), t->m[k].player);
	text_copy(m->call.name, sizeof(m->call.name), t->m[k].name);
	text_init(&tx, m->call.text, sizeof(m->call.text));
	i18n_add(&tx, bot_table_lang(t), id, a1, NULL);
}

/* Appends the public table message (not while computer moves wait for a
 * later pass: only the narration then); while a human's move is awaited, it
 * calls that player unless they turned calls off (/notify off). */
void bot_work_show_table(struct work *w)
{
	struct play_ctx c = bot_table_ctx_of(&w->t, bot_table_lang(&w->t));
	struct msg *m;

	flush_narration(w);
	if (w->t.pending)
		return; /* shown once the computer moves left for later passes are made */
	m = bot_work_reply(w, MSG_CHANNEL, NULL, MSG_TABLE);
	if (!m)
		return;
	if (w->t.row.state == STORE_LOBBY) {
		int lang = c.lang, min, max;
		struct text tx;
		char count[16], game[128];

		w->t.game->members(&w->t.row, &min, &max);
		text_copy(m->title, sizeof(m->title), i18n_get(lang, S_LOBBY_TITLE));
		text_init(&tx, game, sizeof(game));
		if (w->t.game->lobby_name)
			w->t.game->lobby_name(&w->t.row, lang, &tx);
		else
			text_add(&tx, w->t.game->ops->name);
		text_init(&tx, m->text, sizeof(m->text));
		snprintf(count, sizeof(count), "%d", w->t.nm);
		i18n_add(&tx, lang, S_LOBBY_TEXT, game, count, NULL);
		for (int i = 0; i < w->t.nm; i++) {
			text_add(&tx, "\n• ");
			text_add(&tx, w->t.m[i].name);
			if (w->t.m[i].policy[0])
				i18n_add(&tx, lang, S_COMPUTER_TAG, w->t.m[i].policy, NULL);
			if (strcmp(w->t.m[i].player, w->t.row.owner) == 0)
				i18n_add(&tx, lang, S_OWNER_TAG, NULL);
		}
		msg_button(m, w->t.row.id, 0, "join", NULL, i18n_get(lang, S_BUTTON_JOIN),
		           MSG_PRIMARY);
		msg_button(m, w->t.row.id, 0, "addbot", NULL, i18n_get(lang, S_BUTTON_ADDBOT),
		           MSG_SECONDARY);
		msg_button(m, w->t.row.id, 0, "start", NULL, i18n_get(lang, S_BUTTON_START),
		           MSG_PRIMARY);
		msg_button(m, w->t.row.id, 0, "leave", NULL, i18n_get(lang, S_BUTTON_LEAVE),
		           MSG_DANGER);
		return;
	}
	w->t.game->render(w->t.state, &c, m);
	{
		int k = bot_work_called_member(&w->t);
		if (k >= 0 && store_player_notify(w->b->st, w->t.m[k].player)) {
			/* The call says what the table waits for ("@alice — The
			 * table waits for you to respond: /respond."), else that
			 * it is their move. */
			char awaited[MSG_CALL_TEXT];
			struct text tx;
			bot_work_set_call(m, &w->t, k, S_CALL, NULL);
			text_init(&tx, awaited, sizeof(awaited));
			text_add(&tx, " \xe2\x80\x94 ");
			if (w->t.game->awaits && w->t.game->awaits(w->t.state, &c, k, &tx))
				text_copy(m->call.text, sizeof(m->call.text), awaited);
		}
	}
	if (w->t.game->picture) {
		unsigned char *png = NULL;
		size_t len = 0;
		char name[MSG_PICTURE_NAME], *alt = malloc(MSG_PICTURE_ALT_MAX + 1);
		snprintf(name, sizeof(name), "map-%lld-%d.png", (long long)w->t.row.id,
		         w->t.row.moves);
		if (alt && w->t.game->picture(w->t.state, &c, &png, &len, alt,
		                              MSG_PICTURE_ALT_MAX + 1) == 0) {
			if (msg_picture_take(&w->out, m, name, &png, len))
				free(png); /* the message goes without its picture */
			else if (alt[0])
				msg_picture_alt(&w->out, m, alt);
		}
		free(alt);
	}
}

/* Narrates events ev[0..n-1], which led to the table's state: at once, or,
 * for a game that folds them, gathered until the narration is flushed or
 * another line is told. */
void bot_work_tell(struct work *w, const struct game_event *ev, int n)
{
	struct play_ctx c = bot_table_ctx_of(&w->t, bot_table_lang(&w->t));
	struct text tx;
	char lines[MSG_TEXT_MAX];

	if (w->t.game->fold) {
		for (int i = 0; i < n; i++) {
			if (w->nfold == WORK_FOLD_EVENTS)
				bot_work_flush_events(w);
			w->fold[w->nfold++] = ev[i];
		}
		return;
	}
	text_init(&tx, lines, sizeof(lines));
	w->t.game->narrate(w->t.state, ev, n, &c, &tx);
	bot_work_flush_events(w);
	add_lines(w, lines);
}

/* Applies one engine value for member `actor` (-1: nobody), logs and
 * narrates it; the events it made go to evout when not NULL. Returns
 * GAME_OK, or the engine's error with nothing changed. */
int bot_work_apply_ev(struct work *w, int actor, int value, const char *kind,
                      struct game_events *evout)
{
	struct game_events local, *ev = evout ? evout : &local;
	int rc;

	ev->n = 0;
	rc = w->t.game->ops->apply(w->t.state, value, ev);
	if (rc != GAME_OK)
		return rc;
	w->t.row.moves++;
	bot_work_log_event(w, kind, actor, value, NULL);
	bot_work_tell(w, ev->ev, ev->n);
	return GAME_OK;
}

static int apply(struct work *w, int actor, int value, const char *kind)
{
	return bot_work_apply_ev(w, actor, value, kind, NULL);
}

/* Rolls the awaited die from the game's own stream. */
void bot_work_roll(struct work *w, int actor, const struct game_step *step)
{
	struct rng r;
	int value;

	memcpy(r.s, w->t.row.rng, sizeof(r.s));
	value = (int)rng_below(&r, (uint32_t)step->count);
	memcpy(w->t.row.rng, r.s, sizeof(r.s));
	apply(w, actor, value, "roll");
}

/* Lets a policy choose for the member controlling step->seat. */
void bot_work_choose(struct work *w, int member, const struct game_step *step, const char *policy)
{
	const struct game_policy *p = game_policy_find(w->t.game->ops, policy);
	struct rng r;
	int value;

	if (!p)
		p = &w->t.game->ops->policies[0];
	memcpy(r.s, w->t.row.rng, sizeof(r.s));
	value = p->choose(w->t.state, step, &r);
	memcpy(w->t.row.rng, r.s, sizeof(r.s));
	apply(w, member, value, "choice");
}

static const char *policy_of(const struct table *t, int member)
{
	return t->m[member].policy[0] ? t->m[member].policy : t->game->policy;
}

/* Closes w's table without a result (kept aborted, unrated, no deadline)
 * and logs why: an event of `kind` by member `actor` (-1: nobody). */
void bot_work_close_unrated(struct work *w, const char *kind, int actor, const char *detail)
{
	w->t.row.state = STORE_ABORTED;
	w->t.row.finished_at = w->now;
	w->t.row.deadline = 0;
	bot_work_log_event(w, kind, actor, -1, detail);
}

/* Ends a finished game: result, places, the end event. A game that
 * stopped without an ending (play.h: unfinished) is kept aborted instead,
 * with no places. */
static void finish(struct work *w)
{
	struct game_result r;
	int winner_member;

	w->t.game->ops->result(w->t.state, &r);
	if (w->t.game->unfinished && w->t.game->unfinished(w->t.state)) {
		bot_work_close_unrated(w, "end", -1, "unfinished");
		return;
	}
	winner_member = r.winner >= 0 ? w->t.game->member_of(w->t.state, r.winner) : -1;
	w->t.row.state = STORE_FINISHED;
	w->t.row.finished_at = w->now;
	w->t.row.winner = r.winner;
	w->t.row.deadline = 0;
	for (int i = 0; i < w->t.nm; i++) {
		w->t.m[i].place = i == winner_member ? 0 : 1;
		w->t.m[i].cthulhu = r.winner < 0;
	}
	if (w->t.game->winners) {
		/* Several may win (a shared win): each wins, nobody lost to
		 * Cthulhu; the row's winner stays the engine's (-1 when shared). */
		unsigned mask = w->t.game->winners(w->t.state);
		int seats = w->t.game->ops->seats(w->t.state);
		for (int i = 0; i < w->t.nm; i++) {
			w->t.m[i].place = 1;
			w->t.m[i].cthulhu = mask == 0;
		}
		for (int s = 0; s < seats; s++) {
			int k = w->t.game->member_of(w->t.state, s);
			if (mask >> s & 1 && k >= 0 && k < w->t.nm)
				w->t.m[k].place = 0;
		}
	}
	bot_work_log_event(w, "end", winner_member, r.winner, NULL);
}

/* Plays computer seats, automatic rolls and the decisions the table
 * settles (play.h: settle) until a human must act or the game ends; then
 * sets the deadline of the awaited move (with timeouts off, the game's idle
 * limit, if it has one). */
/* 1 when w has applied the moves one pass may (cfg.moves_per_pass): the
 * next automatic move waits for bot_tick, with no deadline meanwhile. */
static int pass_spent(struct work *w)
{
	int per = w->b->cfg.moves_per_pass;

	if (per <= 0 || w->t.row.moves - w->row0.moves < per)
		return 0;
	w->t.pending = 1;
	w->t.row.deadline = 0;
	return 1;
}

void bot_work_advance(struct work *w)
{
	struct game_step step;

	w->t.remind = 0;
	w->t.pending = 0;
	for (int guard = 0; guard < 100000 && !w->oom; guard++) {
		int member;

		w->t.game->ops->step(w->t.state, &step);
		if (step.node == GAME_NODE_OVER) {
			finish(w);
			return;
		}
		member = w->t.game->member_of(w->t.state, step.seat);
		if (step.node == GAME_NODE_CHANCE) {
			if (!w->t.game->auto_roll(w->t.state, &step) &&
			    !bot_work_computer_controls(&w->t, member))
				break;
			if (pass_spent(w))
				return;
			bot_work_roll(w, member, &step);
		} else {
			struct play_ctx c = bot_table_ctx_of(&w->t, bot_table_lang(&w->t));
			int value;
			if (w->t.game->settle && w->t.game->settle(w->t.state, &c, &step, &value)) {
				if (pass_spent(w))
					return;
				if (apply(w, member, value, "choice") != GAME_OK)
					w->oom = 1; /* a game's own error: nothing is kept */
				continue;
			}
			if (!bot_work_computer_controls(&w->t, member))
				break;
			if (pass_spent(w))
				return;
			bot_work_choose(w, member, &step, policy_of(&w->t, member));
		}
	}
	w->t.row.deadline = 0;
	if (w->b->cfg.turn_timeout_ms <= 0 && w->t.game->idle_ms > 0)
		w->t.row.deadline = w->now + w->t.game->idle_ms; /* closed if nobody moves */
	if (w->b->cfg.turn_timeout_ms > 0) {
		int64_t ms = bot_work_move_wait(&w->t, w->b->cfg.turn_timeout_ms);
		w->t.row.deadline = w->now + ms;
		/* The called player is reminded when a quarter of the wait is left. */
		w->t.remind = bot_work_called_member(&w->t) >= 0 ? w->t.row.deadline - ms / 4 : 0;
	}
}

/* Goes on with member who's command `more` after its value made the
 * events *ev, while the game's follow hook says it goes on (a walk, step
 * by step, each step a move of its own in the log); the automatic part
 * after each step (a fight) belongs to it. */
void bot_work_go_on(struct work *w, int who, struct cmd *more, struct game_events *ev)
{
	struct play_ctx c = bot_table_ctx_of(&w->t, bot_table_lang(&w->t));
	int value;

	if (!w->t.game->follow)
		return;
	for (int guard = 0; guard < 1000 && !w->oom; guard++) {
		bot_work_advance(w);
		if (w->t.row.state != STORE_PLAYING || w->t.pending ||
		    !w->t.game->follow(w->t.state, &c, who, more, ev->ev, ev->n, &value,
		                       &w->t.row.note) ||
		    bot_work_apply_ev(w, who, value, "choice", ev) != GAME_OK)
			break;
	}
}

/* 1 when row b differs from a at most in what store_game_progress writes. */
static int progress_only(const struct store_game *a, const struct store_game *b)
{
	return a->id == b->id && strcmp(a->server, b->server) == 0 &&
	       strcmp(a->channel, b->channel) == 0 && strcmp(a->game, b->game) == 0 &&
	       a->per_player == b->per_player && strcmp(a->lang, b->lang) == 0 &&
	       strcmp(a->owner, b->owner) == 0 && a->state == b->state && a->seed == b->seed &&
	       a->first == b->first && a->winner == b->winner && a->created_at == b->created_at &&
	       a->started_at == b->started_at && a->finished_at == b->finished_at &&
	       a->series_of == b->series_of && a->revision == b->revision;
}

/* Writes the pending work in one transaction. Returns 0, or -1 (rolled
 * back, nothing written). */
int bot_work_save(struct work *w)
{
	struct store *st = w->b->st;

	if (w->oom)
		return -1;
	if (w->b->batch) {
		/* One transaction for the batch, a mark for this command. */
		if (!store_in_transaction(st) && store_begin(st))
			return -1;
		if (store_mark(st))
			return -1;
	} else if (store_begin(st)) {
		return -1;
	}
	if (w->b->cfg.shards > 0) {
		int shard = store_shard_of(w->t.row.server, w->b->cfg.shards);
		int64_t epoch = w->b->epochs[shard];
		if (!epoch || store_shard_fence(st, w->b->cfg.shards, shard, epoch) != 1) {
			w->b->fenced_out++;
			goto fail;
		}
	}
	if (w->created) {
		int64_t expected = w->t.row.id;
		if (store_game_create(st, &w->t.row) || w->t.row.id != expected)
			goto fail;
	} else if (progress_only(&w->row0, &w->t.row) ? store_game_progress(st, &w->t.row)
	                                              : store_game_update(st, &w->t.row)) {
		goto fail;
	}
	if ((w->created || w->t.nm != w->nm0 ||
	     memcmp(w->t.m, w->m0, (size_t)w->t.nm * sizeof(w->t.m[0])) != 0) &&
	    store_members_put(st, w->t.row.id, w->t.m, w->t.nm))
		goto fail;
	for (int i = 0; i < w->nev; i++)
		if (store_event_append(st, w->t.row.id, &w->ev[i]))
			goto fail;
	/* The game's end and its ratings are written together or not at all. */
	if (w->t.row.state == STORE_FINISHED && (w->created || w->row0.state != STORE_FINISHED) &&
	    records_game_end(st, &w->t.row, w->t.m, w->t.nm))
		goto fail;
	if (w->b->batch) {
		if (store_mark_keep(st))
			goto fail;
		return 0;
	}
	if (store_commit(st))
		goto fail;
	return 0;
fail:
	if (w->b->batch)
		store_mark_undo(st);
	else
		store_rollback(st);
	return -1;
}

/* The private reply of a refused command. */
void bot_work_refuse(struct msg_list *out, const struct bot_req *req, int lang, int id,
                     const char *a1, const char *a2)
{
	struct msg *m = msg_add(out, MSG_PRIVATE, req->user, MSG_ERROR);
	struct text tx;

	if (!m)
		return;
	text_init(&tx, m->text, sizeof(m->text));
	i18n_add(&tx, lang, id, a1, a2, NULL);
}

#define HELD_MAX (1 << 16) /* bytes of narration held for a table, at most */

/* Appends text to out as narration of game `game` in `channel`: one channel
 * message per MSG_TEXT_MAX - 1 bytes at most, cut at line ends. */
static void tell_held(struct msg_list *out, const char *channel, int64_t game, const char *text)
{
	while (*text) {
		size_t n = strlen(text);
		struct msg *m;
		if (n > MSG_TEXT_MAX - 1) {
			n = MSG_TEXT_MAX - 1;
			while (n > 1 && text[n - 1] != '\n')
				n--;
		}
		m = msg_add(out, MSG_CHANNEL, NULL, MSG_EVENT);
		if (!m)
			return;
		text_copy(m->channel, sizeof(m->channel), channel);
		m->game = game;
		memcpy(m->text, text, n);
		m->text[n] = '\0';
		text += n;
	}
}

/* Adds narration text to what s holds while computer moves are pending,
 * telling what it held at once (to out) when HELD_MAX would be passed or
 * memory is short. */
static void hold(struct slot *s, struct msg_list *out, const char *text)
{
	size_t len = s->held ? strlen(s->held) : 0, n = strlen(text);
	char *more;

	if (len + n + 1 > HELD_MAX && s->held) {
		tell_held(out, bot_table_slot_channel(s), s->id, s->held);
		s->held[0] = '\0';
		len = 0;
	}
	if (!(more = realloc(s->held, len + n + 1))) {
		tell_held(out, bot_table_slot_channel(s), s->id, text);
		return;
	}
	memcpy(more + len, text, n + 1);
	s->held = more;
}

/* Writes w and keeps its table; then appends its messages to out (after
 * what the table held, when its stretch of computer moves is over), or, in
 * a later pass while computer moves are still pending, holds its narration
 * in the table's slot. On failure, a refusal for req (when given) and
 * nothing kept. */
void bot_work_commit(struct work *w, const struct bot_req *req, int lang, struct msg_list *out)
{
	struct slot *s;

	flush_narration(w);
	if (bot_table_remember(w->b, w->t.row.server, w->t.row.channel)) {
		if (req)
			bot_work_refuse(out, req, lang, S_ERR_MEMORY, NULL, NULL);
		return;
	}
	if (bot_work_save(w)) {
		w->b->store_errors++;
		if (req)
			bot_work_refuse(out, req, lang, S_ERR_STORAGE, NULL, NULL);
		return;
	}
	if (bot_table_keep(w->b, &w->t)) {
		/* The move is stored: it resumes at the next start. */
		if (req)
			bot_work_refuse(out, req, lang, S_ERR_MEMORY, NULL, NULL);
		return;
	}
	s = bot_table_find_slot(w->b, w->t.row.server, w->t.row.channel);
	if (s && s->held && !s->pending) {
		/* the stretch is over: what it held is told first */
		tell_held(out, w->t.row.channel, w->t.row.id, s->held);
		free(s->held);
		s->held = NULL;
	}
	if (!(w->holding && s && s->pending)) {
		msg_take(out, &w->out);
		return;
	}
	/* Copies: the pictures go with them, w->out's own are freed with it. */
	for (int i = 0; i < w->out.n; i++) {
		const struct msg *m = &w->out.m[i];
		if (m->audience == MSG_CHANNEL && m->kind == MSG_EVENT)
			hold(s, out, m->text);
		else
			msg_add_copy(out, m);
	}
}
