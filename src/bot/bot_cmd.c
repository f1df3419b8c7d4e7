/* The bot: the commands (bot_handle). */
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

/* ---- commands ---- */

/* One command being handled. */
struct call {
	struct bot *b;
	const struct bot_req *req;
	int64_t now;
	int lang;        /* of private replies */
	struct table *t; /* the channel's table, or NULL */
	struct msg_list *out;
};

static void deny(struct call *c, int id, const char *a1, const char *a2)
{
	bot_work_refuse(c->out, c->req, c->lang, id, a1, a2);
}

/* A private informational reply; returns its text builder's message. */
static struct msg *inform(struct call *c, struct text *tx)
{
	struct msg *m = msg_add(c->out, MSG_PRIVATE, c->req->user, MSG_INFO);

	if (m)
		text_init(tx, m->text, sizeof(m->text));
	return m;
}

/* The language to answer `req` in privately: the player's choice, else the
 * platform's locale, else the table's, else the default. */
int bot_cmd_user_lang(struct bot *b, const struct bot_req *req, const struct table *t)
{
	char lang[8] = "";

	if (store_player_get(b->st, req->user, NULL, lang) == 0 && lang[0])
		return i18n_lang(lang);
	if (req->locale && req->locale[0])
		return i18n_lang(req->locale);
	return t ? bot_table_lang(t) : i18n_lang(b->lang);
}

static void new_member(struct store_member *m, const char *player, const char *name,
                       const char *policy)
{
	memset(m, 0, sizeof(*m));
	text_copy(m->player, sizeof(m->player), player);
	text_copy(m->name, sizeof(m->name), name);
	text_copy(m->policy, sizeof(m->policy), policy);
	m->place = -1;
}

/* Starts the work of a new table in the requester's channel. */
static void new_table(struct call *c, struct work *w, const struct play_game *game)
{
	struct rng r;
	int per_player = w->t.row.per_player;
	char lang[sizeof(w->t.row.lang)];

	memcpy(lang, w->t.row.lang, sizeof(lang));
	memset(&w->t.row, 0, sizeof(w->t.row));
	w->t.row.per_player = per_player;
	if (game->stamp)
		game->stamp(&w->t.row);
	memcpy(w->t.row.lang, lang, sizeof(lang));
	w->created = 1;
	w->t.game = game;
	text_copy(w->t.row.server, sizeof(w->t.row.server), c->req->server);
	text_copy(w->t.row.channel, sizeof(w->t.row.channel), c->req->channel);
	text_copy(w->t.row.game, sizeof(w->t.row.game), game->ops->name);
	text_copy(w->t.row.owner, sizeof(w->t.row.owner), c->req->user);
	w->t.row.state = STORE_LOBBY;
	w->t.row.first = -1;
	w->t.row.winner = -1;
	w->t.row.created_at = c->now;
	/* The id the store will give it (one writer), known now so that the
	 * buttons of its first message carry it; save() checks it. */
	c->b->games_made = store_games_made(c->b->st);
	if (c->b->games_made < 0)
		w->oom = 1;
	c->b->games_made++;
	w->t.row.id = c->b->games_made;
	/* The seed of game g is a function of the bot's seed and g. */
	w->t.row.seed = rng_mix(c->b->cfg.seed ^ rng_mix((uint64_t)c->b->games_made));
	rng_seed(&r, w->t.row.seed);
	memcpy(w->t.row.rng, r.s, sizeof(r.s));
	w->t.seq = 0;
}

static void cmd_open(struct call *c)
{
	const struct play_game *game = play_games[0];
	struct store_game opts;
	struct work w;
	const char *lang = NULL;
	char langbuf[8];

	if (bot_table_is_open(c->t)) {
		deny(c, S_ERR_TABLE_EXISTS, NULL, NULL);
		return;
	}
	memset(&opts, 0, sizeof(opts));
	/* The game first, wherever it is named: the other words are its options. */
	for (int i = 0; i < c->req->cmd.nargs; i++)
		if (play_find(c->req->cmd.args[i]))
			game = play_find(c->req->cmd.args[i]);
	for (int i = 0; i < c->req->cmd.nargs; i++) {
		/* An argument may hold several words (a platform's one text
		 * option for a game's settings). */
		char words[CMD_ARG_MAX], *bot_work_save = NULL;
		text_copy(words, sizeof(words), c->req->cmd.args[i]);
		for (char *a = strtok_r(words, " ", &bot_work_save); a;
		     a = strtok_r(NULL, " ", &bot_work_save)) {
			if (play_find(a))
				continue;
			if (i18n_known(a))
				lang = text_copy(langbuf, sizeof(langbuf), a) ? NULL : langbuf;
			else if (game->option(a, &opts)) {
				deny(c, S_ERR_OPEN_OPTION, a, NULL);
				return;
			}
		}
	}
	bot_work_init(&w, c->b, NULL, c->now);
	new_table(c, &w, game);
	w.t.row.per_player = opts.per_player;
	text_copy(w.t.row.lang, sizeof(w.t.row.lang), lang ? lang : i18n_code(c->lang));
	new_member(&w.t.m[0], c->req->user, c->req->name, "");
	w.t.nm = 1;
	bot_work_log_event(&w, "open", -1, w.t.row.per_player, game->ops->name);
	bot_work_log_event(&w, "join", 0, -1, c->req->name);
	bot_work_show_table(&w);
	bot_work_commit(&w, c->req, c->lang, c->out);
	bot_work_free(&w);
}

/* Refuses unless the channel has a table in the lobby; returns 1 if so. */
static int need_lobby(struct call *c)
{
	if (!bot_table_is_open(c->t)) {
		deny(c, S_ERR_NO_TABLE, NULL, NULL);
		return 0;
	}
	if (c->t->row.state != STORE_LOBBY) {
		deny(c, S_ERR_ALREADY_STARTED, NULL, NULL);
		return 0;
	}
	return 1;
}

static int is_owner(const struct call *c)
{
	return strcmp(c->t->row.owner, c->req->user) == 0;
}

static int need_owner(struct call *c)
{
	if (!is_owner(c)) {
		deny(c, S_ERR_OWNER_ONLY, cmd_name(c->req->cmd.kind), NULL);
		return 0;
	}
	return 1;
}

static int room_for_one_more(struct call *c)
{
	int min, max;

	c->t->game->members(&c->t->row, &min, &max);
	if (c->t->nm >= max) {
		char n[16];
		snprintf(n, sizeof(n), "%d", max);
		deny(c, S_ERR_TABLE_FULL, n, NULL);
		return 0;
	}
	return 1;
}

static void cmd_join(struct call *c)
{
	struct work w;

	if (!need_lobby(c))
		return;
	if (bot_table_member_index(c->t, c->req->user) >= 0) {
		deny(c, S_ERR_ALREADY_JOINED, NULL, NULL);
		return;
	}
	for (int i = 0; i < c->t->nm; i++) {
		/* a human may not pass for a computer player */
		if (c->t->m[i].policy[0] && text_name_is(c->t->m[i].name, c->req->name)) {
			deny(c, S_ERR_NAME_TAKEN, c->req->name, NULL);
			return;
		}
	}
	if (!room_for_one_more(c))
		return;
	bot_work_init(&w, c->b, c->t, c->now);
	new_member(&w.t.m[w.t.nm], c->req->user, c->req->name, "");
	bot_work_log_event(&w, "join", w.t.nm, -1, c->req->name);
	w.t.nm++;
	bot_work_show_table(&w);
	bot_work_commit(&w, c->req, c->lang, c->out);
	bot_work_free(&w);
}

/* Removes member k from a lobby (the rest move up). */
static void drop_member(struct table *t, int k)
{
	memmove(&t->m[k], &t->m[k + 1], (size_t)(t->nm - k - 1) * sizeof(t->m[0]));
	t->nm--;
}

/* Narrates a line in the table's language with up to two arguments. */
void bot_cmd_say(struct work *w, int id, const char *a1, const char *a2)
{
	char line[512];
	struct text tx;

	text_init(&tx, line, sizeof(line));
	i18n_add(&tx, bot_table_lang(&w->t), id, a1, a2, NULL);
	bot_work_narrate_line(w, line);
}

/* Takes every seat of member k still in play out of w's game for good
 * (play.h: leave), each a move of the log ("leave", value = seat), told
 * to the table, then plays on. Returns the seats taken out; 0 (nothing
 * changed) when none was in play. */
static int take_out(struct work *w, int k, const char *who)
{
	int seats = w->t.game->ops->seats(w->t.state), out = 0;

	for (int s = 0; s < seats; s++) {
		struct game_events ev;
		if (w->t.game->member_of(w->t.state, s) != k)
			continue;
		ev.n = 0;
		if (w->t.game->leave(w->t.state, s, &ev) != GAME_OK)
			continue; /* already out */
		if (!out++)
			bot_cmd_say(w, S_LEFT_GAME, w->t.m[k].name, NULL);
		w->t.row.moves++;
		bot_work_log_event(w, "leave", k, s, who);
		bot_work_tell(w, ev.ev, ev.n);
	}
	if (out)
		bot_work_advance(w);
	return out;
}

static void cmd_leave(struct call *c)
{
	struct work w;
	int k;

	if (!bot_table_is_open(c->t)) {
		deny(c, S_ERR_NO_TABLE, NULL, NULL);
		return;
	}
	k = bot_table_member_index(c->t, c->req->user);
	if (k < 0) {
		deny(c, S_ERR_NOT_MEMBER, NULL, NULL);
		return;
	}
	bot_work_init(&w, c->b, c->t, c->now);
	if (w.t.row.state == STORE_LOBBY) {
		bot_work_log_event(&w, "leave", k, -1, c->req->name);
		bot_cmd_say(&w, S_LEFT, w.t.m[k].name, NULL);
		drop_member(&w.t, k);
		if (bot_table_humans(&w.t) == 0) {
			bot_work_close_unrated(&w, "abort", -1, "empty");
			bot_cmd_say(&w, S_LOBBY_CLOSED, NULL, NULL);
		} else if (strcmp(w.t.row.owner, c->req->user) == 0) {
			for (int i = 0; i < w.t.nm; i++) {
				if (w.t.m[i].player[0]) {
					text_copy(w.t.row.owner, sizeof(w.t.row.owner),
					          w.t.m[i].player);
					bot_cmd_say(&w, S_NEW_OWNER, w.t.m[i].name, NULL);
					break;
				}
			}
		}
	} else if (w.t.game->leave) {
		if (!take_out(&w, k, c->req->name)) {
			deny(c, S_ERR_ALREADY_OUT, c->t->m[k].name, NULL);
			bot_work_free(&w);
			return;
		}
	} else {
		/* Playing: the seat is played by the computer to the end; the
		 * player can take it back by acting again. */
		w.t.m[k].autopilot = 1;
		bot_work_log_event(&w, "leave", k, -1, c->req->name);
		bot_cmd_say(&w, S_RESIGNED, w.t.m[k].name, NULL);
		bot_work_advance(&w);
	}
	if (w.t.row.state != STORE_ABORTED)
		bot_work_show_table(&w);
	bot_work_commit(&w, c->req, c->lang, c->out);
	bot_work_free(&w);
}

static int find_member(const struct table *t, const char *who);

static void cmd_addbot(struct call *c)
{
	const struct game_policy *p;
	const char *policy;
	char name[STORE_NAME_MAX];
	struct work w;
	int same = 1;

	if (!need_lobby(c) || !need_owner(c) || !room_for_one_more(c))
		return;
	policy = c->req->cmd.nargs ? c->req->cmd.args[0] : c->t->game->policy;
	p = game_policy_find(c->t->game->ops, policy);
	if (!p) {
		char list[256];
		struct text tx;
		text_init(&tx, list, sizeof(list));
		for (const struct game_policy *q = c->t->game->ops->policies; q->name; q++) {
			if (q != c->t->game->ops->policies)
				i18n_add(&tx, c->lang, S_OR, NULL);
			text_add(&tx, q->name);
		}
		deny(c, S_ERR_POLICY, policy, list);
		return;
	}
	for (int i = 0; i < c->t->nm; i++)
		same += strcmp(c->t->m[i].policy, p->name) == 0;
	/* the next number whose name no member has (a human may have joined
	 * under it) */
	for (int tries = 0; tries <= STORE_MEMBERS_MAX; tries++, same++) {
		if (c->t->game->bot_name)
			c->t->game->bot_name(&c->t->row, p->name, same, name, sizeof(name));
		else
			snprintf(name, sizeof(name), "%s-bot-%d", p->name, same);
		if (find_member(c->t, name) < 0)
			break;
	}
	bot_work_init(&w, c->b, c->t, c->now);
	new_member(&w.t.m[w.t.nm], "", name, p->name);
	bot_work_log_event(&w, "addbot", w.t.nm, -1, p->name);
	w.t.nm++;
	bot_work_show_table(&w);
	bot_work_commit(&w, c->req, c->lang, c->out);
	bot_work_free(&w);
}

/* Finds a member by player id or name (case-insensitive); -1 if none. */
static int find_member(const struct table *t, const char *who)
{
	for (int i = 0; i < t->nm; i++)
		if ((t->m[i].player[0] && strcmp(t->m[i].player, who) == 0) ||
		    text_name_is(t->m[i].name, who))
			return i;
	return -1;
}

/* The member /remove names, or -1 after refusing (usage, no such member). */
static int member_to_remove(struct call *c)
{
	int k;

	if (c->req->cmd.nargs != 1) {
		deny(c, S_ERR_USAGE, "/remove <player>", NULL);
		return -1;
	}
	k = find_member(c->t, c->req->cmd.args[0]);
	if (k < 0)
		deny(c, S_ERR_NO_SUCH_MEMBER, c->req->cmd.args[0], NULL);
	return k;
}

/* C17: the owner removes a player from a game under way that can lose a
 * seat (play.h: leave); as if the player had left. */
static void remove_playing(struct call *c)
{
	struct work w;
	int k;

	if (!need_owner(c) || (k = member_to_remove(c)) < 0)
		return;
	bot_work_init(&w, c->b, c->t, c->now);
	if (!take_out(&w, k, c->req->name)) {
		deny(c, S_ERR_ALREADY_OUT, c->t->m[k].name, NULL);
		bot_work_free(&w);
		return;
	}
	bot_work_show_table(&w);
	bot_work_commit(&w, c->req, c->lang, c->out);
	bot_work_free(&w);
}

static void cmd_remove(struct call *c)
{
	struct work w;
	int k;

	if (c->t && c->t->row.state == STORE_PLAYING && c->t->game->leave) {
		remove_playing(c);
		return;
	}
	if (!need_lobby(c) || !need_owner(c) || (k = member_to_remove(c)) < 0)
		return;
	if (strcmp(c->t->m[k].player, c->t->row.owner) == 0) {
		deny(c, S_ERR_REMOVE_OWNER, NULL, NULL);
		return;
	}
	bot_work_init(&w, c->b, c->t, c->now);
	bot_work_log_event(&w, "remove", k, -1, w.t.m[k].name);
	bot_cmd_say(&w, S_REMOVED, w.t.m[k].name, NULL);
	drop_member(&w.t, k);
	bot_work_show_table(&w);
	bot_work_commit(&w, c->req, c->lang, c->out);
	bot_work_free(&w);
}

/* Starts the engine of w's table with `first` casting first (-1: drawn
 * from the game's stream), then plays up to the first human move. */
static void begin_play(struct work *w, int first)
{
	struct game_setup setup;
	char name[STORE_NAME_MAX];
	struct play_ctx c;
	int seats;

	bot_work_flush_events(w); /* told with the state they led to, before it goes */
	w->t.game->setup(&w->t.row, w->t.nm, &setup);
	setup.first = 0;
	w->t.game->ops->init(w->t.state, &setup);
	seats = w->t.game->ops->seats(w->t.state);
	if (first < 0) {
		struct rng r;
		memcpy(r.s, w->t.row.rng, sizeof(r.s));
		first = (int)rng_below(&r, (uint32_t)seats);
		memcpy(w->t.row.rng, r.s, sizeof(r.s));
	}
	setup.first = first;
	w->t.game->ops->init(w->t.state, &setup);
	w->t.row.first = first;
	w->t.row.state = STORE_PLAYING;
	w->t.row.started_at = w->now;
	w->t.row.moves = 0;
	for (int i = 0; i < w->t.nm; i++) {
		w->t.m[i].strikes = 0;
		w->t.m[i].autopilot = 0;
		w->t.m[i].place = -1;
		w->t.m[i].cthulhu = 0;
	}
	bot_work_log_event(w, "start", -1, first, NULL);
	c = bot_table_ctx_of(&w->t, bot_table_lang(&w->t));
	w->t.game->seat_name(w->t.state, &c, first, name, sizeof(name));
	bot_cmd_say(w, w->t.game->started, name, NULL);
	for (int i = 0; i < w->t.nm && w->t.game->policy_note; i++) {
		int note =
		    w->t.m[i].policy[0] ? w->t.game->policy_note(w->t.state, w->t.m[i].policy) : 0;
		if (note)
			bot_cmd_say(w, note, w->t.m[i].name, NULL);
	}
	bot_work_advance(w);
	bot_work_show_table(w);
}

static void cmd_start(struct call *c)
{
	struct work w;
	int min, max, first = -1;

	if (!need_lobby(c) || !need_owner(c))
		return;
	c->t->game->members(&c->t->row, &min, &max);
	if (c->t->nm < min) {
		char n[16];
		snprintf(n, sizeof(n), "%d", min);
		deny(c, S_ERR_TOO_FEW, n, NULL);
		return;
	}
	if (c->req->cmd.nargs > 1) {
		deny(c, S_ERR_USAGE, "/start [player|random]", NULL);
		return;
	}
	if (c->req->cmd.nargs == 1 && strcmp(c->req->cmd.args[0], "random") != 0) {
		first = find_member(c->t, c->req->cmd.args[0]);
		if (first < 0) {
			deny(c, S_ERR_NO_SUCH_MEMBER, c->req->cmd.args[0], NULL);
			return;
		}
		/* Member k sits in seat k (Rival Cults: also owns k + 2, k + 4). */
	}
	bot_work_init(&w, c->b, c->t, c->now);
	begin_play(&w, first);
	bot_work_commit(&w, c->req, c->lang, c->out);
	bot_work_free(&w);
}

static void cmd_status(struct call *c)
{
	struct work w;
	struct msg *m;

	if (!c->t || c->t->row.state == STORE_ABORTED) {
		deny(c, S_ERR_NO_TABLE, NULL, NULL);
		return;
	}
	/* The table as it stands, privately (nothing is written). */
	bot_work_init(&w, c->b, c->t, c->now);
	bot_work_show_table(&w);
	if (w.out.n) {
		m = msg_add_copy(c->out, &w.out.m[w.out.n - 1]);
		if (m) {
			m->audience = MSG_PRIVATE;
			text_copy(m->user, sizeof(m->user), c->req->user);
			memset(&m->call, 0, sizeof(m->call)); /* a private view calls nobody */
		}
	}
	bot_work_free(&w);
}

/* The asker's member index at a game under way, or -1 after refusing
 * (no table, not started, not a player). */
static int playing_member(struct call *c)
{
	int who;

	if (!bot_table_is_open(c->t)) {
		deny(c, S_ERR_NO_TABLE, NULL, NULL);
		return -1;
	}
	if (c->t->row.state != STORE_PLAYING) {
		deny(c, S_ERR_NOT_STARTED, NULL, NULL);
		return -1;
	}
	who = bot_table_member_index(c->t, c->req->user);
	if (who < 0)
		deny(c, S_ERR_NOT_MEMBER, NULL, NULL);
	return who;
}

/* Privately, the chances of each option of the asker's awaited move;
 * nothing is written. */
static void cmd_hint(struct call *c)
{
	struct play_ctx pc;
	struct text tx;
	struct msg *m;
	char buf[MSG_TEXT_MAX];
	int who, rc;

	who = playing_member(c);
	if (who < 0)
		return;
	if (!c->t->game->hint) {
		deny(c, S_HINT_NONE, NULL, NULL);
		return;
	}
	pc = bot_table_ctx_of(c->t, c->lang);
	text_init(&tx, buf, sizeof(buf));
	rc = c->t->game->hint(c->t->state, &pc, who, &tx);
	m = msg_add(c->out, MSG_PRIVATE, c->req->user, rc ? MSG_ERROR : MSG_INFO);
	if (m)
		text_copy(m->text, sizeof(m->text), buf);
}

static void cmd_help(struct call *c, int id)
{
	struct text tx;

	if (inform(c, &tx))
		i18n_add(&tx, c->lang, id, NULL);
}

/* The rules of the game named (/rules <game>), else of the table's, else
 * of the default game: each page a private message. */
static void cmd_rules(struct call *c)
{
	const struct play_game *g = c->t ? c->t->game : play_games[0];

	if (c->req->cmd.nargs >= 1 && play_find(c->req->cmd.args[0]))
		g = play_find(c->req->cmd.args[0]);
	cmd_help(c, g->rules);
	for (const int *page = g->rules_more; page && *page; page++)
		cmd_help(c, *page);
}

static void cmd_abort(struct call *c)
{
	struct work w;

	if (!bot_table_is_open(c->t)) {
		deny(c, S_ERR_NO_TABLE, NULL, NULL);
		return;
	}
	if (!is_owner(c) && !c->req->moderator) {
		deny(c, S_ERR_ABORT_RIGHTS, NULL, NULL);
		return;
	}
	bot_work_init(&w, c->b, c->t, c->now);
	bot_work_close_unrated(&w, "abort", bot_table_member_index(c->t, c->req->user),
	                       c->req->name);
	bot_cmd_say(&w, S_ABORTED, c->req->name, NULL);
	bot_work_commit(&w, c->req, c->lang, c->out);
	bot_work_free(&w);
}

static void cmd_rematch(struct call *c)
{
	struct game_result r;
	struct work w;
	int first;

	if (bot_table_is_open(c->t)) {
		deny(c, S_ERR_TABLE_EXISTS, NULL, NULL);
		return;
	}
	if (!c->t || c->t->row.state != STORE_FINISHED) {
		deny(c, S_ERR_NO_FINISHED, NULL, NULL);
		return;
	}
	if (bot_table_member_index(c->t, c->req->user) < 0 && !c->req->moderator) {
		deny(c, S_ERR_NOT_MEMBER, NULL, NULL);
		return;
	}
	c->t->game->ops->result(c->t->state, &r);
	/* Series play (R2): the previous winner casts first; after a Cthulhu
	 * win the first Caster is drawn as for a new game. */
	first = r.winner >= 0 ? r.winner : -1;
	bot_work_init(&w, c->b, c->t, c->now);
	new_table(c, &w, c->t->game);
	text_copy(w.t.row.owner, sizeof(w.t.row.owner), c->t->row.owner);
	w.t.row.series_of = c->t->row.id;
	bot_work_log_event(&w, "open", -1, w.t.row.per_player, w.t.game->ops->name);
	for (int i = 0; i < w.t.nm; i++)
		bot_work_log_event(&w, w.t.m[i].policy[0] ? "addbot" : "join", i, -1,
		                   w.t.m[i].policy[0] ? w.t.m[i].policy : w.t.m[i].name);
	bot_cmd_say(
	    &w, first < 0 && w.t.game->rematch_drawn ? w.t.game->rematch_drawn : w.t.game->rematch,
	    NULL, NULL);
	begin_play(&w, first);
	bot_work_commit(&w, c->req, c->lang, c->out);
	bot_work_free(&w);
}

/* A member's own preference at the table (play.h: prefer); 1 when cmd was
 * one (set and written, or refused), 0 when it is a move. */
static int prefer(struct call *c, int who)
{
	struct play_ctx pc = bot_table_ctx_of(c->t, c->lang);
	char buf[512];
	struct text tx;
	struct work w;
	struct msg *m;
	int prefs = c->t->m[who].prefs, rc, moves;

	text_init(&tx, buf, sizeof(buf));
	rc = c->t->game->prefer(&pc, who, &c->req->cmd, &prefs, &tx);
	if (rc == 0)
		return 0;
	if (rc < 0) {
		if ((m = msg_add(c->out, MSG_PRIVATE, c->req->user, MSG_ERROR)))
			text_copy(m->text, sizeof(m->text), buf);
		return 1;
	}
	if (prefs == c->t->m[who].prefs) { /* as it was: nothing to write */
		if ((m = msg_add(c->out, MSG_PRIVATE, c->req->user, MSG_INFO)))
			text_copy(m->text, sizeof(m->text), buf);
		return 1;
	}
	bot_work_init(&w, c->b, c->t, c->now);
	w.t.m[who].prefs = prefs;
	bot_work_log_event(&w, "prefs", who, prefs, NULL);
	moves = w.t.row.moves;
	bot_work_advance(&w); /* what the preference now settles (a window passed) */
	if (w.t.row.moves != moves)
		bot_work_show_table(&w);
	else {
		/* the awaited move waits as before */
		w.t.row.deadline = c->t->row.deadline;
		w.t.remind = c->t->remind;
	}
	if ((m = bot_work_reply(&w, MSG_PRIVATE, c->req->user, MSG_INFO)))
		text_copy(m->text, sizeof(m->text), buf);
	bot_work_commit(&w, c->req, c->lang, c->out);
	bot_work_free(&w);
	return 1;
}

/* A player's game action (curse, eye, respond). */
static void cmd_action(struct call *c)
{
	struct play_ctx pc;
	struct game_step step;
	struct game_events ev;
	struct work w;
	char err[512];
	struct text etx;
	int who, value;

	/* one without a seat may still look (the game's views of who = -1) */
	if (bot_table_is_open(c->t) && c->t->row.state == STORE_PLAYING &&
	    bot_table_member_index(c->t, c->req->user) < 0 && c->t->game->view) {
		pc = bot_table_ctx_of(c->t, c->lang);
		if (c->t->game->view(c->t->state, &pc, -1, &c->req->cmd, c->req->user, c->out))
			return;
	}
	who = playing_member(c);
	if (who < 0)
		return;
	pc = bot_table_ctx_of(c->t, c->lang);
	if (c->t->game->prefer && prefer(c, who))
		return;
	if (c->t->game->view &&
	    c->t->game->view(c->t->state, &pc, who, &c->req->cmd, c->req->user, c->out))
		return;
	text_init(&etx, err, sizeof(err));
	if (c->t->game->action(c->t->state, &pc, who, &c->req->cmd, &value, &etx)) {
		struct msg *m = msg_add(c->out, MSG_PRIVATE, c->req->user, MSG_ERROR);
		if (m)
			text_copy(m->text, sizeof(m->text), err);
		return;
	}
	bot_work_init(&w, c->b, c->t, c->now);
	w.t.m[who].strikes = 0;
	w.t.game->ops->step(w.t.state, &step);
	if (value == PLAY_ROLL)
		bot_work_roll(&w, who, &step);
	else if (bot_work_apply_ev(&w, who, value, "choice", &ev) != GAME_OK) {
		deny(c, S_ERR_ILLEGAL, NULL, NULL);
		bot_work_free(&w);
		return;
	} else {
		struct cmd more = c->req->cmd;
		bot_work_go_on(&w, who, &more, &ev);
	}
	if (w.t.row.state == STORE_PLAYING)
		bot_work_advance(&w);
	bot_work_show_table(&w);
	bot_work_commit(&w, c->req, c->lang, c->out);
	bot_work_free(&w);
}

static void cmd_language(struct call *c)
{
	struct text tx;

	if (c->req->cmd.nargs != 1 || !i18n_known(c->req->cmd.args[0])) {
		deny(c, S_ERR_LANGUAGE, NULL, NULL);
		return;
	}
	if (store_player_put(c->b->st, c->req->user, c->req->name, c->req->cmd.args[0], c->now)) {
		deny(c, S_ERR_STORAGE, NULL, NULL);
		return;
	}
	c->lang = i18n_lang(c->req->cmd.args[0]);
	if (inform(c, &tx))
		i18n_add(&tx, c->lang, S_LANGUAGE_SET, NULL);
}

/* /notify on|off: whether tables call the player (a mention when their move
 * is awaited, a reminder before it times out); kept with the player. */
static void cmd_notify(struct call *c)
{
	const char *a = c->req->cmd.nargs == 1 ? c->req->cmd.args[0] : "";
	int on = strcmp(a, "on") == 0 || strcmp(a, "aan") == 0    ? 1
	         : strcmp(a, "off") == 0 || strcmp(a, "uit") == 0 ? 0
	                                                          : -1;
	struct text tx;

	if (on < 0) {
		deny(c, S_ERR_NOTIFY, NULL, NULL);
		return;
	}
	if (store_player_notify_put(c->b->st, c->req->user, c->req->name, on, c->now)) {
		deny(c, S_ERR_STORAGE, NULL, NULL);
		return;
	}
	if (inform(c, &tx))
		i18n_add(&tx, c->lang, on ? S_NOTIFY_ON : S_NOTIFY_OFF, NULL);
}

/* What store_game_load hands cmd_log's replay. */
struct log_view {
	const struct play_game *game;
	int lang, page, pages, dropped, rc;
	struct text *out;
};

static int log_loaded(void *ctx, const struct store_loaded *g)
{
	struct log_view *v = ctx;

	v->rc = playlog_page(v->game, g, v->lang, v->page, v->out, &v->pages, &v->dropped);
	return 0;
}

/* /log [page]: the table's narration told again from its stored log,
 * privately, a page at a time (1 the latest). Nothing is written. */
static void cmd_log(struct call *c)
{
	char buf[PLAYLOG_PAGE + 1] = "", num[16], of[16];
	struct text page, tx;
	struct log_view v = { .lang = c->lang, .page = 1, .out = &page };
	const char *a = c->req->cmd.nargs >= 1 ? c->req->cmd.args[0] : NULL;
	struct msg *m;

	if (!c->t) {
		deny(c, S_ERR_NO_TABLE, NULL, NULL);
		return;
	}
	if (a) {
		char *end;
		long n;
		errno = 0;
		n = strtol(a, &end, 10);
		v.page = errno || end == a || *end || n < 1 || n > 1000000 ? -1 : (int)n;
	}
	v.game = c->t->game;
	text_init(&page, buf, sizeof(buf));
	if (c->t->row.state == STORE_LOBBY) {
		v.rc = v.page == 1 ? 0 : -3;
	} else if (store_game_load(c->b->st, c->t->row.id, log_loaded, &v)) {
		deny(c, S_ERR_STORAGE, NULL, NULL);
		return;
	}
	if (v.rc == -3) {
		snprintf(of, sizeof(of), "%d", v.pages);
		deny(c, S_ERR_LOG_PAGE, a ? a : "1", of);
		return;
	}
	if (v.rc == -2) {
		deny(c, S_ERR_MEMORY, NULL, NULL);
		return;
	}
	if (v.rc < 0) {
		deny(c, S_ERR_LOG, NULL, NULL);
		return;
	}
	if (!(m = inform(c, &tx)))
		return;
	m->game = c->t->row.id;
	text_copy(m->channel, sizeof(m->channel), c->t->row.channel);
	if (v.pages == 0) {
		i18n_add(&tx, c->lang, S_LOG_EMPTY, NULL);
		return;
	}
	snprintf(num, sizeof(num), "%d", v.page);
	snprintf(of, sizeof(of), "%d", v.pages);
	text_init(&page, m->title, sizeof(m->title));
	i18n_add(&page, c->lang, S_LOG_TITLE, num, of, NULL);
	text_add(&tx, buf);
	if (v.page < v.pages) {
		snprintf(num, sizeof(num), "%d", v.page + 1);
		text_add(&tx, "\n\n");
		i18n_add(&tx, c->lang, S_LOG_MORE, num, NULL);
	} else if (v.dropped) {
		text_add(&tx, "\n\n");
		i18n_add(&tx, c->lang, S_LOG_DROPPED, NULL);
	}
}

/* A player whose seat the computer plays (after timeouts or /leave) takes
 * it back with any command; the table is told. */
static void take_seat_back(struct call *c)
{
	struct work w;
	int who = bot_table_member_index(c->t, c->req->user);

	if (who < 0 || !c->t->m[who].autopilot)
		return;
	bot_work_init(&w, c->b, c->t, c->now);
	w.t.m[who].autopilot = 0;
	w.t.m[who].strikes = 0;
	bot_work_log_event(&w, "back", who, -1, NULL);
	bot_cmd_say(&w, S_BACK, w.t.m[who].name, NULL);
	bot_work_commit(&w, c->req, c->lang, c->out);
	bot_work_free(&w);
	c->t = bot_table_find(c->b, c->req->server, c->req->channel);
}

/* Checks a button's game and move against the table; 1 when current. */
static int button_current(struct call *c)
{
	const struct cmd *cmd = &c->req->cmd;

	if (cmd->game == 0)
		return 1;
	if (cmd->kind == CMD_REMATCH && c->t && cmd->game == c->t->row.id)
		return 1;
	if (!c->t || cmd->game != c->t->row.id || !bot_table_is_open(c->t)) {
		deny(c, S_ERR_STALE_GAME, NULL, NULL);
		return 0;
	}
	if (cmd->kind == CMD_ACTION && cmd->move != c->t->row.moves) {
		deny(c, S_ERR_STALE_MOVE, NULL, NULL);
		return 0;
	}
	return 1;
}

void bot_handle(struct bot *b, const struct bot_req *req, int64_t now, struct msg_list *out)
{
	struct call c = { .b = b, .req = req, .now = now, .out = out };

	c.t = bot_table_find(b, req->server, req->channel);
	c.lang = bot_cmd_user_lang(b, req, c.t);
	if (strlen(req->user) >= STORE_ID_MAX || strlen(req->server) >= STORE_ID_MAX ||
	    strlen(req->channel) >= STORE_ID_MAX || !req->user[0]) {
		deny(&c, S_ERR_IDENTITY, NULL, NULL);
		return;
	}
	if (!c.t &&
	    (req->cmd.kind == CMD_REMATCH || req->cmd.kind == CMD_STATUS || req->cmd.game != 0)) {
		/* The finished table is not kept after a restart (or once dropped):
		 * a rematch, /status or a click on one of its buttons brings it
		 * back from the store. */
		int kept = bot_restore_finished(b, req->server, req->channel);

		if (kept < 0) {
			b->store_errors++;
			deny(&c, S_ERR_STORAGE, NULL, NULL);
			return;
		}
		c.t = bot_table_find(b, req->server, req->channel);
		c.lang = bot_cmd_user_lang(b, req, c.t);
		if (kept && c.t && req->cmd.kind != CMD_REMATCH && req->cmd.game == c.t->row.id) {
			/* A click on a table of the game, which ended while the
			 * channel still showed it: the process may have stopped
			 * between the commit of the last move and its announcement,
			 * so the end is shown now, as the channel's table. */
			struct work w;

			bot_work_init(&w, b, c.t, now);
			bot_work_show_table(&w);
			if (w.out.n)
				msg_add_copy(out, &w.out.m[w.out.n - 1]);
			bot_work_free(&w);
			return;
		}
	}
	if (!button_current(&c))
		return;
	if (c.t && c.t->row.state == STORE_PLAYING && req->cmd.kind != CMD_LEAVE)
		take_seat_back(&c);
	switch (req->cmd.kind) {
	case CMD_OPEN:
		cmd_open(&c);
		break;
	case CMD_JOIN:
		cmd_join(&c);
		break;
	case CMD_LEAVE:
		cmd_leave(&c);
		break;
	case CMD_ADDBOT:
		cmd_addbot(&c);
		break;
	case CMD_REMOVE:
		cmd_remove(&c);
		break;
	case CMD_START:
		cmd_start(&c);
		break;
	case CMD_STATUS:
		cmd_status(&c);
		break;
	case CMD_HINT:
		cmd_hint(&c);
		break;
	case CMD_RULES:
		cmd_rules(&c);
		break;
	case CMD_HELP:
		cmd_help(&c, S_HELP);
		break;
	case CMD_ABORT:
		cmd_abort(&c);
		break;
	case CMD_REMATCH:
		cmd_rematch(&c);
		break;
	case CMD_ACTION:
		cmd_action(&c);
		break;
	case CMD_LEADERBOARD:
	case CMD_STATS: {
		struct text tx;
		if (inform(&c, &tx) && records_reply(b->st, req, now, b->cfg.min_games, c.lang,
		                                     c.t ? c.t->row.game : play_games[0]->ops->name,
		                                     c.t ? c.t->m : NULL, c.t ? c.t->nm : 0, &tx))
			deny(&c, S_ERR_STORAGE, NULL, NULL);
		break;
	}
	case CMD_LANGUAGE:
		cmd_language(&c);
		break;
	case CMD_NOTIFY:
		cmd_notify(&c);
		break;
	case CMD_LOG:
		cmd_log(&c);
		break;
	default:
		deny(&c, S_ERR_UNKNOWN_COMMAND, NULL, NULL);
		break;
	}
}
