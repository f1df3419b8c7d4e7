/* CTHULHU!!! at the table (rules §15): the table's settings (C1), every
 * timeout with its default and its class (C15), autopilot (C16), stale and
 * forged clicks (C18), private hands (C4), walks to a destination (C9,
 * C10), leaving (C17), the round cap (C19), restart, and Dutch. The bot
 * runs on a fake clock over a real store; the engine state a test reasons
 * about is rebuilt from the store's log, so every assertion reads what the
 * bot wrote and answered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "rlyeh/bot.h"
#include "rlyeh/ctcards.h"
#include "rlyeh/ctgame.h"
#include "rlyeh/ctnames.h"
#include "rlyeh/ctpicture.h"
#include "rlyeh/ctplay.h"
#include "rlyeh/i18n.h"
#include "rlyeh/playlog.h"
#include "rlyeh/rng.h"

#define T0       1700000000000LL
#define DECISION 120000

struct fixture {
	char dir[64];
	char path[96];
	struct store *st;
	struct bot *bot;
	struct msg_list out;
	int64_t now;
	int strikes;
	int64_t timeout_ms; /* the turn timeout; 0 none */
};

static struct fixture *fx;

static void start_bot(void)
{
	struct bot_config cfg;
	char err[256];

	bot_config_default(&cfg);
	cfg.seed = 11;
	cfg.turn_timeout_ms = fx->timeout_ms;
	cfg.strikes = fx->strikes;
	fx->bot = bot_new(fx->st, &cfg, err, sizeof(err));
	if (!fx->bot)
		fail_msg("bot_new: %s", err);
}

static void restart_bot(void)
{
	bot_free(fx->bot);
	start_bot();
}

static int open_fixture(int strikes)
{
	char err[256];

	fx = calloc(1, sizeof(*fx));
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/rlyeh-ctplay-XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	snprintf(fx->path, sizeof(fx->path), "%s/t.db", fx->dir);
	if (store_open(fx->path, &fx->st, err, sizeof(err)))
		return -1;
	fx->now = T0;
	fx->strikes = strikes;
	fx->timeout_ms = DECISION;
	start_bot();
	return 0;
}

static int setup(void **state)
{
	(void)state;
	return open_fixture(3);
}

/* Timeouts never turn into autopilot: every decision waits for its timeout. */
static int setup_patient(void **state)
{
	(void)state;
	return open_fixture(100000);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	bot_free(fx->bot);
	store_close(fx->st);
	msg_free(&fx->out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fx->dir);
	if (system(cmd) != 0)
		return -1;
	free(fx);
	return 0;
}

/* Runs "/command args" as `user` with a button's game and move (0, -1:
 * typed). */
static void click(const char *user, const char *line, int64_t game, int move)
{
	struct bot_req req = { .server = "s1",
		               .channel = "c1",
		               .user = user,
		               .name = user,
		               .locale = strcmp(user, "nora") == 0 ? "nl" : "en" };

	msg_clear(&fx->out);
	if (cmd_parse(line, &req.cmd) != CMD_OK)
		fail_msg("test command does not parse: %s", line);
	req.cmd.game = game;
	req.cmd.move = move;
	bot_handle(fx->bot, &req, fx->now, &fx->out);
}

static void as(const char *user, const char *line)
{
	click(user, line, 0, -1);
}

static void tick_to(int64_t t)
{
	fx->now = t;
	msg_clear(&fx->out);
	bot_tick(fx->bot, fx->now, &fx->out);
}

static long long query(const char *sql);

/* The deadline of the newest game's awaited move (the bot's next wake-up
 * may be the reminder before it). */
static int64_t stored_deadline(void)
{
	long long d = query("SELECT deadline FROM games ORDER BY id DESC LIMIT 1");

	return d > 0 ? d : 0;
}

static long long query(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	long long v = -1;

	assert_int_equal(sqlite3_open_v2(fx->path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

static int table_moves(void)
{
	return (int)query("SELECT moves FROM games ORDER BY id DESC LIMIT 1");
}

static long long events(void)
{
	return query("SELECT count(*) FROM events");
}

/* The engine state of the channel's last game, rebuilt from its stored
 * row and log (the bot's own replay is not used) by the rules of
 * `revision`; returns the number of log entries that did not apply. */
static int log_state(struct ctgame *g, int revision)
{
	struct game_setup setup = { 0 };
	struct ctplay_settings s;
	sqlite3 *db;
	sqlite3_stmt *q;
	long long id = query("SELECT max(id) FROM games");
	int bad = 0;

	ctplay_settings((int)query("SELECT per_player FROM games ORDER BY id DESC LIMIT 1"), &s);
	setup.players = (int)query("SELECT count(*) FROM members WHERE game_id = "
	                           "(SELECT max(id) FROM games)");
	setup.rounds = s.cap;
	setup.revision = revision;
	assert_int_equal(ctgame_init(g, &setup), GAME_OK);
	assert_int_equal(sqlite3_open_v2(fx->path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
	                                    "SELECT kind, value FROM events WHERE game_id = ? "
	                                    "ORDER BY seq",
	                                    -1, &q, NULL),
	                 SQLITE_OK);
	sqlite3_bind_int64(q, 1, id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(q, 0);
		int v = sqlite3_column_int(q, 1);
		if (strcmp(kind, "roll") == 0 || strcmp(kind, "choice") == 0)
			bad += ctgame_apply(g, v, NULL) != GAME_OK;
		else if (strcmp(kind, "leave") == 0 && v >= 0)
			bad += ctgame_leave(g, v, NULL) != GAME_OK;
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	return bad;
}

/* As log_state, by the rules the game's row names; every entry applies. */
static void stored_state(struct ctgame *g)
{
	int revision = (int)query("SELECT revision FROM games ORDER BY id DESC LIMIT 1");

	assert_int_equal(log_state(g, revision), 0);
}

/* Runs one SQL statement that writes, behind the bot's back. */
static void exec_sql(const char *sql)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(fx->path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* The English text of `id` up to its first placeholder. */
static const char *prefix(int id)
{
	static char buf[256];
	const char *s = i18n_get(I18N_EN, id);
	size_t n = strcspn(s, "{");

	snprintf(buf, sizeof(buf), "%.*s", (int)n, s);
	return buf;
}

static const struct msg *find_msg(int audience, int kind)
{
	for (int i = fx->out.n - 1; i >= 0; i--)
		if (fx->out.m[i].audience == audience && fx->out.m[i].kind == kind)
			return &fx->out.m[i];
	return NULL;
}

/* 1 when text holds English text `id` with anything in place of its
 * placeholders: each literal piece of the template, in order. */
static int matches(const char *text, int id)
{
	const char *t = i18n_get(I18N_EN, id);
	char piece[512];

	while (*t) {
		size_t n = strcspn(t, "{");
		const char *hit;
		snprintf(piece, sizeof(piece), "%.*s", (int)n, t);
		if (n && !(hit = strstr(text, piece)))
			return 0;
		if (n)
			text = hit + n;
		t += n;
		if (*t == '{')
			t += strcspn(t, "}") + (t[strcspn(t, "}")] ? 1 : 0);
	}
	return 1;
}

/* 1 when some message of fx->out says text `id` (see matches). */
static int said(int id)
{
	for (int i = 0; i < fx->out.n; i++)
		if (matches(fx->out.m[i].text, id))
			return 1;
	return 0;
}

/* 1 when some message tells a fight: on its own line, or after a walk. */
static int fight_told(void)
{
	return said(S_CT_FIGHT_CULTIST) || said(S_CT_FIGHT_BYAKHEE) || said(S_CTF_FIGHTS_CULTIST) ||
	       said(S_CTF_FIGHTS_BYAKHEE);
}

/* As find_msg, failing the test when there is none. */
static const struct msg *need_msg(int audience, int kind)
{
	const struct msg *m = find_msg(audience, kind);

	if (!m) {
		fail_msg("no message of audience %d and kind %d", audience, kind);
		abort();
	}
	return m;
}

static int any_text(const char *needle)
{
	for (int i = 0; i < fx->out.n; i++)
		if (strstr(fx->out.m[i].text, needle) || strstr(fx->out.m[i].title, needle))
			return 1;
	return 0;
}

/* Opens a table of alice with the given /open words, joins the humans
 * (NULL-terminated) and adds `bots` computer players, then starts. */
static void table(const char *open, const char *const *humans, int bots)
{
	char line[128];

	snprintf(line, sizeof(line), "/open cthulhu %s", open);
	as("alice", line);
	assert_null(find_msg(MSG_PRIVATE, MSG_ERROR));
	for (int i = 0; humans && humans[i]; i++)
		as(humans[i], "/join");
	for (int i = 0; i < bots; i++)
		as("alice", "/addbot");
	as("alice", "/start");
	assert_null(find_msg(MSG_PRIVATE, MSG_ERROR));
}

/* ---- settings (C1) ---- */

static void test_settings(void **state)
{
	struct ctplay_settings s;
	int v = 0;

	(void)state;
	ctplay_settings(0, &s);
	assert_int_equal(s.decision_s, -1);
	assert_int_equal(s.quick_s, -1);
	assert_int_equal(s.window_s, -1);
	assert_int_equal(s.manual, 0);
	assert_int_equal(s.confirm, 1);
	assert_int_equal(s.cap, 0);
	assert_int_equal(ctplay_setting("decision:300", &v), 0);
	assert_int_equal(ctplay_setting("snel=30", &v), 0);
	assert_int_equal(ctplay_setting("window:off", &v), 0);
	assert_int_equal(ctplay_setting("vijanden:handmatig", &v), 0);
	assert_int_equal(ctplay_setting("confirm:off", &v), 0);
	assert_int_equal(ctplay_setting("cap:200", &v), 0);
	ctplay_settings(v, &s);
	assert_int_equal(s.decision_s, 300);
	assert_int_equal(s.quick_s, 30);
	assert_int_equal(s.window_s, 0);
	assert_int_equal(s.manual, 1);
	assert_int_equal(s.confirm, 0);
	assert_int_equal(s.cap, 200);
	assert_int_equal(ctplay_setting("window:15", &v), 0);
	assert_int_equal(ctplay_setting("enemies:auto", &v), 0);
	assert_int_equal(ctplay_setting("cap:off", &v), 0);
	ctplay_settings(v, &s);
	assert_int_equal(s.window_s, 15);
	assert_int_equal(s.manual, 0);
	assert_int_equal(s.cap, 0);
	/* Refused words leave the value as it was. */
	{
		static const char *const bad[] = {
			"decision:125", "decision:5", "quick:7",      "quick:1000",
			"window:61",    "window:-1",  "enemies:some", "confirm:yes",
			"cap:0",        "cap:1001",   "cap:1x",       "speed:3",
			"cap",          "",           "quick:",       ":30"
		};
		int before = v;
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			assert_int_equal(ctplay_setting(bad[i], &v), -1);
			assert_int_equal(v, before);
		}
	}
}

static void test_open_refuses_bad_setting(void **state)
{
	(void)state;
	as("alice", "/open cthulhu quick:7");
	assert_non_null(find_msg(MSG_PRIVATE, MSG_ERROR));
	assert_true(any_text("quick:7"));
	assert_int_equal(query("SELECT count(*) FROM games"), 0);
	/* The settings of a good /open are kept on the row. */
	as("alice", "/open cthulhu \"quick:30 window:off\" cap:9");
	assert_null(find_msg(MSG_PRIVATE, MSG_ERROR));
	{
		struct ctplay_settings s;
		ctplay_settings((int)query("SELECT per_player FROM games"), &s);
		assert_int_equal(s.quick_s, 30);
		assert_int_equal(s.window_s, 0);
		assert_int_equal(s.cap, 9);
	}
}

/* ---- timeouts (C15, C16) ---- */

/* The wait C1 gives the awaited decision at default settings. */
static int64_t expected_wait(const struct ctgame *g, const struct game_step *st)
{
	switch (st->kind) {
	case CA_TILE:
	case CA_MOVE:
		return DECISION;
	case CA_FIGURE:
	case CA_DEST:
	case CA_RESEED:
		return ctgame_enemy_move(g) ? DECISION : 45000;
	case CA_PLAY:
		return ctgame_moment(g) == CM_RW ? 20000 : 45000;
	default:
		return 45000;
	}
}

static void test_every_timeout_takes_its_default(void **state)
{
	static const char *const bob[] = { "bob", NULL };
	struct ctgame g;
	struct game_step st;
	int seen[CA_RELIC_TAKE + 1] = { 0 }, rw = 0, ticks = 0;

	(void)state;
	table("cap:4", bob, 0); /* timeouts alone never end a game: stop it */
	for (; ticks < 3000; ticks++) {
		int64_t deadline = stored_deadline();
		int expect, moves;
		stored_state(&g);
		ctgame_step(&g, &st);
		if (st.node == GAME_NODE_OVER)
			break;
		assert_int_equal(st.node, GAME_NODE_CHOICE);
		/* Settled by the table, never asked: weapons, auto enemies. */
		assert_int_not_equal(st.kind, CA_WEAPON);
		assert_false((st.kind == CA_FIGURE || st.kind == CA_DEST || st.kind == CA_RESEED) &&
		             ctgame_enemy_move(&g));
		assert_int_not_equal(st.kind, CA_SITE_BYAKHEE);
		if (deadline - fx->now != expected_wait(&g, &st))
			fail_msg("tick %d: decision %d waits %lld ms, expected %lld", ticks,
			         st.kind, (long long)(deadline - fx->now),
			         (long long)expected_wait(&g, &st));
		expect = ctgame_default(&g);
		seen[st.kind] = 1;
		rw += st.kind == CA_PLAY && ctgame_moment(&g) == CM_RW;
		moves = table_moves();
		tick_to(deadline - 1);
		assert_int_equal(table_moves(), moves); /* not yet */
		/* A player's own decision reminds its player when a quarter of its
		 * wait is left; a reaction window calls nobody. */
		if (st.kind == CA_PLAY && ctgame_moment(&g) == CM_RW) {
			assert_int_equal(fx->out.n, 0);
		} else {
			assert_int_equal(fx->out.n, 1);
			assert_int_equal(fx->out.m[0].call.reminder, 1);
			assert_string_equal(fx->out.m[0].call.user, st.seat == 0 ? "alice" : "bob");
		}
		tick_to(deadline);
		assert_true(said(S_TIMED_OUT));
		/* The first value after the timeout is the default. */
		assert_int_equal(query("SELECT value FROM events WHERE kind = 'choice' AND seq > "
		                       "(SELECT max(seq) FROM events WHERE kind = 'timeout') "
		                       "ORDER BY seq LIMIT 1"),
		                 expect);
	}
	assert_true(ticks < 3000);
	assert_true(seen[CA_TILE] && seen[CA_MOVE] && seen[CA_DISCARD] + seen[CA_PLAY] > 0);
	assert_true(rw > 0);
	/* Nobody went on autopilot: strikes are counted but the limit is high. */
	assert_int_equal(query("SELECT count(*) FROM events WHERE kind = 'autopilot'"), 0);
	assert_int_equal(query("SELECT state FROM games"), STORE_ABORTED); /* capped */
}

static void test_three_strikes_autopilot_and_back(void **state)
{
	static const char *const bob[] = { "bob", NULL };
	int ticks = 0;

	(void)state;
	table("", bob, 0);
	while (query("SELECT count(*) FROM events WHERE kind = 'autopilot'") < 1 && ticks++ < 50)
		tick_to(stored_deadline());
	assert_true(ticks < 50);
	assert_true(said(S_AUTOPILOT));
	/* The seat on autopilot had three timeouts in a row. */
	assert_int_equal(query("SELECT strikes FROM members WHERE idx = "
	                       "(SELECT actor FROM events WHERE kind = 'autopilot')"),
	                 3);
	{
		long long who = query("SELECT actor FROM events WHERE kind = 'autopilot'");
		as(who == 0 ? "alice" : "bob", "/hand");
		assert_int_equal(query("SELECT count(*) FROM events WHERE kind = 'back'"), 1);
		assert_int_equal(query("SELECT autopilot FROM members WHERE autopilot = 1"), -1);
	}
}

/* C12: under manual control the active player is asked each enemy move
 * (the decision timeout); a timeout hands the rest of the turn's enemy
 * moves to the hunt policy. */
static void test_manual_enemies(void **state)
{
	static const char *const bob[] = { "bob", NULL };
	struct ctgame g;
	struct game_step st;
	int asked = 0, typed = 0;

	(void)state;
	table("enemies:manual cap:3", bob, 0);
	for (int ticks = 0; ticks < 3000; ticks++) {
		stored_state(&g);
		ctgame_step(&g, &st);
		if (st.node == GAME_NODE_OVER)
			break;
		if (!ctgame_enemy_move(&g)) {
			tick_to(stored_deadline());
			continue;
		}
		uint32_t turn = g.turns;
		asked++;
		assert_int_equal(stored_deadline() - fx->now, DECISION);
		assert_int_equal(st.seat, g.seat); /* the active player moves them */
		if (asked == 1 && st.kind != CA_RESEED) {
			/* The first one picked by its square's coordinates. */
			struct ctgame_option o[CTGAME_OPTIONS];
			const char *who = st.seat == 0 ? "alice" : "bob";
			char line[128];
			int n = ctgame_options(&g, o), k = n - 1;
			long long before = events();
			as(who, "/move 99,99");
			assert_true(said(S_CTP_ERR_NOT_OFFERED));
			assert_int_equal(events(), before);
			snprintf(line, sizeof(line), "/move %d,%d", ctmap_gx(&g.map, o[k].arg),
			         ctmap_gy(&g.map, o[k].arg));
			as(who, line);
			assert_null(find_msg(MSG_PRIVATE, MSG_ERROR));
			snprintf(line, sizeof(line),
			         "SELECT value FROM events WHERE kind = 'choice' AND seq = %lld",
			         before + 1);
			assert_int_equal(query(line), k); /* the option of that square */
			typed++;
			continue;
		}
		{
			int expect = ctgame_hunt(&g);
			tick_to(stored_deadline());
			assert_int_equal(
			    query("SELECT value FROM events WHERE kind = 'choice' AND seq > "
			          "(SELECT max(seq) FROM events WHERE kind = 'timeout') "
			          "ORDER BY seq LIMIT 1"),
			    expect);
		}
		stored_state(&g);
		ctgame_step(&g, &st);
		assert_false(st.node == GAME_NODE_CHOICE && ctgame_enemy_move(&g) &&
		             g.turns == turn);
	}
	assert_true(asked > 0);
	assert_int_equal(typed, 1);
}

/* C11, C14: a player's preferences at the table. */
static void test_preferences(void **state)
{
	static const char *const bob[] = { "bob", NULL };
	struct ctgame g;
	struct game_step st;
	int rw[2] = { 0, 0 };
	long long before;

	(void)state;
	table("cap:4", bob, 0);
	before = events();
	as("bob", "/autopass maybe");
	assert_non_null(find_msg(MSG_PRIVATE, MSG_ERROR));
	as("bob", "/weapon sometimes");
	assert_non_null(find_msg(MSG_PRIVATE, MSG_ERROR));
	assert_int_equal(events(), before);
	as("bob", "/autopass on");
	assert_true(said(S_CTP_AUTOPASS_ON));
	{
		/* Said again, it changes nothing: no event, the deadline kept. */
		int64_t deadline = stored_deadline();
		fx->now += 1000;
		as("bob", "/autopass on");
		assert_true(said(S_CTP_AUTOPASS_ON));
		assert_int_equal(stored_deadline(), deadline);
		fx->now -= 1000;
	}
	as("alice", "/weapon ask");
	assert_true(said(S_CTP_WEAPON_ASK));
	assert_int_equal(query("SELECT prefs FROM members WHERE idx = 1"), CTPLAY_PREF_AUTOPASS);
	assert_int_equal(query("SELECT prefs FROM members WHERE idx = 0"), CTPLAY_PREF_ASK_WEAPON);
	assert_int_equal(query("SELECT count(*) FROM events WHERE kind = 'prefs'"), 2);
	restart_bot(); /* kept with the members */
	for (int ticks = 0; ticks < 3000; ticks++) {
		stored_state(&g);
		ctgame_step(&g, &st);
		if (st.node == GAME_NODE_OVER)
			break;
		if (st.kind == CA_PLAY && ctgame_moment(&g) == CM_RW)
			rw[st.seat]++;
		if (st.kind == CA_WEAPON)
			assert_int_equal(st.seat, 0); /* only alice is asked her weapon */
		tick_to(stored_deadline());
	}
	assert_int_equal(rw[1], 0); /* bob passes every window unasked */
	assert_true(rw[0] > 0);     /* alice is asked hers */
}

/* C17: with turn timeouts off, a game nobody moves in for 48 h is closed
 * without a result; a move puts the limit off. */
static void test_idle_game_closed(void **state)
{
	const int64_t idle = 48LL * 3600 * 1000;
	struct ctgame g;
	struct game_step st;

	(void)state;
	fx->timeout_ms = 0;
	restart_bot();
	table("", NULL, 1);
	assert_int_equal(stored_deadline() - fx->now, idle);
	fx->now += 3600 * 1000;
	stored_state(&g);
	ctgame_step(&g, &st);
	assert_int_equal(st.seat, 0);
	as("alice", "/pick 1");
	assert_null(find_msg(MSG_PRIVATE, MSG_ERROR));
	assert_int_equal(stored_deadline(), fx->now + idle);
	tick_to(fx->now + idle - 1);
	assert_int_equal(query("SELECT state FROM games"), STORE_PLAYING);
	tick_to(fx->now + 1);
	assert_int_equal(query("SELECT state FROM games"), STORE_ABORTED);
	assert_int_equal(query("SELECT count(*) FROM events WHERE kind = 'abort' AND detail = "
	                       "'idle'"),
	                 1);
	assert_true(said(S_IDLE_CLOSED));
	assert_int_equal(query("SELECT count(*) FROM members WHERE place >= 0"), 0);
}

/* ---- stale and forged clicks (C18) ---- */

static void test_stale_and_forged_clicks(void **state)
{
	static const char *const bob[] = { "bob", NULL };
	struct ctgame g;
	struct game_step st;
	const char *decider, *other;
	long long before;
	int moves;
	int64_t id;

	(void)state;
	table("", bob, 0);
	stored_state(&g);
	ctgame_step(&g, &st);
	decider = st.seat == 0 ? "alice" : "bob";
	other = st.seat == 0 ? "bob" : "alice";
	moves = table_moves();
	id = query("SELECT max(id) FROM games");
	before = events();
	/* Not theirs to decide. */
	click(other, "/pick 1", id, moves);
	assert_true(said(S_CTP_ERR_NOT_YOURS));
	/* An option that does not exist. */
	click(decider, "/pick 99", id, moves);
	assert_true(said(S_CTP_ERR_OPTION));
	as(decider, "/pick 0");
	assert_true(said(S_CTP_ERR_OPTION));
	as(decider, "/pick x");
	assert_true(said(S_CTP_ERR_OPTION));
	/* Another game's button, and a move the table never had. */
	click(decider, "/pick 1", id + 1, moves);
	assert_true(said(S_ERR_STALE_GAME));
	click(decider, "/pick 1", id, moves + 7);
	assert_true(said(S_ERR_STALE_MOVE));
	/* A command that does not fit the decision. */
	as(decider, st.kind == CA_MOVE ? "/tokens hearts" : "/move 0,0");
	assert_true(said(S_CTP_AWAITS));
	assert_non_null(strstr(need_msg(MSG_PRIVATE, MSG_ERROR)->text,
	                       st.kind == CA_TILE ? "The table waits for you to decide (/place n, "
	                                            "/confirm n): "
	                                          : "The table waits for you to decide (/"));
	/* ... and another game's command, from the decider and from the other. */
	as(decider, "/respond");
	assert_true(said(S_CTP_AWAITS));
	as(other, "/respond");
	assert_true(said(S_CTP_ERR_NOT_YOURS));
	assert_int_equal(events(), before);
	assert_int_equal(table_moves(), moves);
	/* The current click acts; the same click again is stale. */
	click(decider, "/pick 1", id, moves);
	assert_null(find_msg(MSG_PRIVATE, MSG_ERROR));
	assert_true(table_moves() > moves);
	before = events();
	click(decider, "/pick 1", id, moves);
	assert_true(said(S_ERR_STALE_MOVE));
	assert_int_equal(events(), before);
	/* Someone not at the table. */
	as("mallory", "/pick 1");
	assert_true(said(S_ERR_NOT_MEMBER));
	assert_int_equal(events(), before);
}

/* ---- private hands (C4) ---- */

/* 1 when a public message of fx->out offers a hand card: a button or menu
 * entry "Play X" / "Discard X" (step 1's Automatic cards are played
 * whatever is chosen and are public). */
static int public_card_offer(void)
{
	char play[256], discard[256];

	snprintf(play, sizeof(play), "%s", prefix(S_CT_OPT_PLAY));
	snprintf(discard, sizeof(discard), "%s", prefix(S_CT_OPT_DISCARD));
	for (int i = 0; i < fx->out.n; i++) {
		const struct msg *m = &fx->out.m[i];
		if (m->audience != MSG_CHANNEL || matches(m->text, S_CTP_ASK_AUTOMATIC))
			continue;
		for (int b = 0; b < m->nbuttons; b++) {
			const char *l = m->buttons[b].label;
			if (strcmp(l, i18n_get(I18N_EN, S_CTP_PLAY_BUTTON)) == 0 ||
			    strcmp(l, i18n_get(I18N_EN, S_CTP_DISCARD_BUTTON)) == 0)
				continue; /* the way to the private menu */
			if (strncmp(l, play, strlen(play)) == 0 ||
			    strncmp(l, discard, strlen(discard)) == 0)
				return 1;
		}
		for (int o = 0; o < m->select.noptions; o++)
			if (strncmp(m->select.options[o].label, play, strlen(play)) == 0 ||
			    strncmp(m->select.options[o].label, discard, strlen(discard)) == 0)
				return 1;
	}
	return 0;
}

static void test_hands_are_private(void **state)
{
	static const char *const bob[] = { "bob", NULL };
	struct ctgame g;
	struct game_step st;
	int ticks = 0, private_cards = 0;

	(void)state;
	table("window:20 cap:3", bob, 0);
	for (; ticks < 3000; ticks++) {
		stored_state(&g);
		ctgame_step(&g, &st);
		if (st.node == GAME_NODE_OVER)
			break;
		/* The hand: every card the store says the seat holds, by name. */
		for (int seat = 0; seat < 2; seat++) {
			as(seat == 0 ? "alice" : "bob", "/hand");
			const struct msg *m = find_msg(MSG_PRIVATE, MSG_INFO);
			assert_non_null(m);
			for (int card = 0; card < CTGAME_CARDS; card++)
				if (g.card_at[card] == CW_HAND + seat)
					assert_non_null(
					    strstr(m->text,
					           ctnames_card(ctgame_card_kind(card), I18N_EN)));
			if (seat == st.seat && st.kind != CA_AUTOMATIC) {
				struct ctgame_option o[CTGAME_OPTIONS];
				int n = ctgame_options(&g, o);
				for (int i = 0; i < n; i++)
					private_cards += o[i].what == CO_CARD;
			}
		}
		tick_to(stored_deadline());
		assert_false(public_card_offer());
	}
	assert_true(ticks < 3000);
	assert_true(private_cards > 0); /* the game did offer cards, privately */
}

/* The call of a player at a play point names the moment, as the table's
 * line does ("@alice — The table waits for you to decide (…): the turn
 * begins (PP1, before the map tile): …"). */
static void test_call_names_the_moment(void **state)
{
	static const char *const bob[] = { "bob", NULL };
	struct ctgame g;
	struct game_step st;
	int calls = 0;

	(void)state;
	table("cap:3", bob, 0);
	for (int ticks = 0; ticks < 3000; ticks++) {
		const struct msg *t = find_msg(MSG_CHANNEL, MSG_TABLE);
		stored_state(&g);
		ctgame_step(&g, &st);
		if (st.node == GAME_NODE_OVER)
			break;
		if (t && st.node == GAME_NODE_CHOICE && st.kind == CA_PLAY &&
		    ctgame_moment(&g) != CM_RW && t->call.user[0]) {
			static const char *const marks[] = { "",     "(PP1", "(PP2",
				                             "(PP3", "(PP4", "(PP4",
				                             "(PP5", "(CS",  "sanity check" };
			assert_string_equal(t->call.user, st.seat == 0 ? "alice" : "bob");
			if (!strstr(t->call.text, marks[ctgame_moment(&g)]) ||
			    !strstr(t->text, marks[ctgame_moment(&g)]))
				fail_msg("moment %d: call \"%s\"", ctgame_moment(&g), t->call.text);
			calls++;
		}
		tick_to(stored_deadline());
	}
	assert_true(calls >= 5);
}

/* ---- walking (C9, C10) ---- */

/* Lets every decision time out until `seat` is to move with 3 points or
 * more; 0 when the game ends or the seat is out first. */
static int try_move(int seat, struct ctgame *g)
{
	struct game_step st;

	for (int i = 0; i < 3000; i++) {
		stored_state(g);
		ctgame_step(g, &st);
		if (st.node == GAME_NODE_OVER || g->p[seat].out)
			return 0;
		if (st.kind == CA_MOVE && st.seat == seat && g->left >= 3)
			return 1;
		tick_to(stored_deadline());
	}
	return 0;
}

static void until_move(int seat, struct ctgame *g)
{
	if (!try_move(seat, g))
		fail_msg("seat %d never moved (out %d, round %d)", seat, g->p[seat].out, g->round);
}

static void test_walk_to_destination(void **state)
{
	static const char *const bob[] = { "bob", NULL };
	int16_t reach[CTMAP_SQUARES];
	uint8_t dirs[CTMAP_SQUARES];
	struct ctgame g, after;
	char line[64];
	int n, best = -1, len = 0, moves;
	long long before;

	(void)state;
	table("", bob, 0);
	until_move(0, &g);
	/* Refused, nothing written: not a square, out of reach. */
	moves = table_moves();
	before = events();
	as("alice", "/move 99,99");
	assert_true(said(S_CTP_ERR_SQUARE));
	as("alice", "/move 1;2");
	assert_true(said(S_CTP_ERR_SQUARE));
	snprintf(line, sizeof(line), "/move %d,%d", ctmap_gx(&g.map, g.p[0].sq),
	         ctmap_gy(&g.map, g.p[0].sq));
	as("alice", line);
	assert_true(said(S_CTP_ERR_HERE));
	n = ctgame_reachable(&g, reach);
	{
		int16_t all[CTMAP_SQUARES];
		int na = ctmap_squares(&g.map, all), far = -1;
		for (int i = 0; i < na && far < 0; i++) {
			int in = 0;
			for (int k = 0; k < n; k++)
				in |= reach[k] == all[i];
			if (!in && ctmap_passable(&g.map, all[i]) && all[i] != g.p[0].sq)
				far = all[i];
		}
		if (far >= 0) {
			snprintf(line, sizeof(line), "/move %d,%d", ctmap_gx(&g.map, far),
			         ctmap_gy(&g.map, far));
			as("alice", line);
			assert_true(said(S_CTP_ERR_UNREACHABLE));
			/* through a reachable waypoint: still refused before a step */
			snprintf(line, sizeof(line), "/move %d,%d %d,%d", ctmap_gx(&g.map, far),
			         ctmap_gy(&g.map, far), ctmap_gx(&g.map, reach[0]),
			         ctmap_gy(&g.map, reach[0]));
			as("alice", line);
			assert_true(said(S_CTP_ERR_UNREACHABLE));
		}
	}
	assert_int_equal(events(), before);
	assert_int_equal(table_moves(), moves);
	/* The farthest reachable square, walked in one command. */
	for (int k = 0; k < n; k++) {
		int l = ctgame_route(&g, reach[k], dirs);
		if (l > len) {
			len = l;
			best = reach[k];
		}
	}
	assert_true(best >= 0 && len >= 2);
	snprintf(line, sizeof(line), "/move %d,%d", ctmap_gx(&g.map, best), ctmap_gy(&g.map, best));
	as("alice", line);
	assert_null(find_msg(MSG_PRIVATE, MSG_ERROR));
	stored_state(&after);
	if (fight_told()) {
		/* C10: the walk stops at the first enemy square for the fight. */
		assert_true(
		    query("SELECT count(*) FROM events WHERE kind = 'choice' AND actor = 0 "
		          "AND seq > (SELECT max(seq) FROM events WHERE kind = 'timeout')") <= len);
	} else {
		/* Arrived (or defeated on the way there), one logged step a square. */
		assert_true(after.p[0].sq == best || after.p[0].hearts == 3);
		assert_int_equal(table_moves() - moves >= len, 1);
	}
	/* The picture of a movement decision marks the reachable squares. */
	{
		const struct msg *t = find_msg(MSG_CHANNEL, MSG_TABLE);
		assert_non_null(t);
		assert_non_null(t->picture);
		assert_true(t->picture_len > 1000);
		assert_memory_equal(t->picture, "\x89PNG", 4);
	}
}

/* A reachable destination whose C10 route enters an enemy square before
 * it; -1 when there is none. */
static int walk_through_enemy(const struct ctgame *g)
{
	int16_t reach[CTMAP_SQUARES];
	uint8_t dirs[CTMAP_SQUARES];
	int n = ctgame_reachable(g, reach);

	for (int k = 0; k < n; k++) {
		int len = ctgame_route(g, reach[k], dirs), sq = g->p[0].sq;
		for (int i = 0; i + 1 < len; i++) {
			sq = ctmap_step(&g->map, sq, dirs[i]);
			if (sq >= 0 && g->square[sq] & (CS_CULTIST | CS_BYAKHEE))
				return reach[k];
		}
	}
	return -1;
}

static void test_fight_stops_walk_then_continue(void **state)
{
	static const char *const bob[] = { "bob", NULL };
	struct ctgame g, mid, after;
	struct game_step st;
	char line[64], dest[32];
	int found = 0;

	(void)state;
	table("", bob, 0);
	for (int attempt = 0; attempt < 200 && !found; attempt++) {
		int to;
		if (!try_move(0, &g)) { /* alice is out: another game */
			as("alice", "/abort");
			table("", bob, 0);
			continue;
		}
		to = walk_through_enemy(&g);
		if (to < 0) { /* explore: the farthest square */
			int16_t reach[CTMAP_SQUARES];
			uint8_t dirs[CTMAP_SQUARES];
			int n = ctgame_reachable(&g, reach), far = -1, len = 0;
			for (int k = 0; k < n; k++) {
				int l = ctgame_route(&g, reach[k], dirs);
				if (l > len) {
					len = l;
					far = reach[k];
				}
			}
			snprintf(line, sizeof(line), "/move %d,%d", ctmap_gx(&g.map, far),
			         ctmap_gy(&g.map, far));
			as("alice", line);
			if (!fight_told())
				continue;
			to = far; /* the route met an enemy that moved there meanwhile */
			snprintf(dest, sizeof(dest), "%d,%d", ctmap_gx(&g.map, to),
			         ctmap_gy(&g.map, to));
			goto fought;
		}
		snprintf(dest, sizeof(dest), "%d,%d", ctmap_gx(&g.map, to), ctmap_gy(&g.map, to));
		snprintf(line, sizeof(line), "/move %s", dest);
		as("alice", line);
		assert_null(find_msg(MSG_PRIVATE, MSG_ERROR));
		assert_true(fight_told());
	fought:
		stored_state(&mid);
		ctgame_step(&mid, &st);
		/* The fight's own decisions (a card, a failed roll) come first. */
		while (st.node == GAME_NODE_CHOICE && st.seat == 0 && st.kind != CA_MOVE &&
		       mid.p[0].sq != to && stored_deadline() - fx->now == 45000) {
			tick_to(stored_deadline());
			stored_state(&mid);
			ctgame_step(&mid, &st);
		}
		if (st.kind != CA_MOVE || st.seat != 0 || mid.p[0].sq == to)
			continue; /* the fight ended the walk (defeat, no points) */
		/* C10: Continue, New destination (Move) and Stop are offered. */
		{
			const struct msg *t = need_msg(MSG_CHANNEL, MSG_TABLE);
			char want[64], label[64];
			int has = 0;
			snprintf(want, sizeof(want), ":move:%s", dest);
			snprintf(label, sizeof(label), "Continue to %s", dest);
			for (int b = 0; b < t->nbuttons; b++)
				has |= strstr(t->buttons[b].id, want) &&
				       strcmp(t->buttons[b].label, label) == 0;
			assert_true(has);
		}
		/* C15: "continue after a fight" is a quick decision whose default
		 * is Continue: the walk goes on toward the same destination. */
		assert_int_equal(stored_deadline() - fx->now, 45000);
		tick_to(stored_deadline());
		stored_state(&after);
		assert_int_not_equal(after.p[0].sq, mid.p[0].sq);
		found = 1;
	}
	assert_true(found);
}

/* ---- placement with a preview (C6) ---- */

static void test_placement_preview_then_confirm(void **state)
{
	static const char *const bob[] = { "bob", NULL };
	struct ctgame g;
	struct game_step st;
	long long before;
	int i;

	(void)state;
	table("", bob, 0);
	for (i = 0; i < 3000; i++) {
		stored_state(&g);
		ctgame_step(&g, &st);
		if (st.kind == CA_TILE)
			break;
		tick_to(stored_deadline());
	}
	assert_int_equal(st.kind, CA_TILE);
	{
		const char *who = st.seat == 0 ? "alice" : "bob";
		int tile, moves = table_moves();
		struct ctmap_option opts[CTMAP_OPTIONS_MAX];
		int n = ctgame_tile_options(&g, &tile, opts);
		before = events();
		as(who, "/place 1");
		/* A private preview with its picture; nothing written. */
		const struct msg *m = find_msg(MSG_PRIVATE, MSG_INFO);
		assert_non_null(m);
		assert_non_null(m->picture);
		assert_non_null(strstr(m->picture_name, "preview-"));
		assert_int_equal(m->nbuttons, 2);
		assert_non_null(strstr(m->buttons[0].id, ":confirm:1"));
		assert_null(find_msg(MSG_CHANNEL, MSG_TABLE));
		assert_int_equal(events(), before);
		/* Pages: one menu per 25 options. */
		as(who, "/page 1");
		m = find_msg(MSG_PRIVATE, MSG_INFO);
		assert_non_null(m);
		assert_int_equal(m->select.noptions, n < 25 ? n : 25);
		as(who, "/page 9");
		assert_true(said(S_CTP_ERR_PAGE));
		/* Confirmed, the tile is placed where option 1 says. */
		click(who, "/confirm 1", query("SELECT max(id) FROM games"), moves);
		assert_null(find_msg(MSG_PRIVATE, MSG_ERROR));
		stored_state(&g);
		assert_int_equal(g.map.tx[tile], opts[0].tx);
		assert_int_equal(g.map.ty[tile], opts[0].ty);
	}
}

/* ---- leaving (C17), restart ---- */

static void test_leave_and_restart(void **state)
{
	static const char *const bob[] = { "bob", NULL };
	char before_text[MSG_TEXT_MAX];
	unsigned char *pic;
	size_t pic_len;
	struct ctgame g;

	(void)state;
	table("", bob, 1);
	for (int i = 0; i < 12; i++)
		tick_to(stored_deadline());
	as("alice", "/status");
	{
		const struct msg *m = find_msg(MSG_PRIVATE, MSG_TABLE);
		assert_non_null(m);
		assert_non_null(m->picture);
		snprintf(before_text, sizeof(before_text), "%s", m->text);
		pic_len = m->picture_len;
		pic = malloc(pic_len);
		memcpy(pic, m->picture, pic_len);
	}
	restart_bot();
	as("alice", "/status");
	{
		const struct msg *m = find_msg(MSG_PRIVATE, MSG_TABLE);
		assert_non_null(m);
		assert_string_equal(m->text, before_text);
		assert_int_equal(m->picture_len, pic_len);
		assert_memory_equal(m->picture, pic, pic_len);
	}
	free(pic);
	/* bob leaves: his seat is out for good, logged as a move. */
	as("bob", "/leave");
	assert_true(said(S_LEFT_GAME));
	assert_int_equal(query("SELECT value FROM events WHERE kind = 'leave'"), 1);
	stored_state(&g);
	assert_int_equal(g.p[1].out, 1);
	/* Out already: refused, nothing written. */
	{
		long long n = events();
		as("bob", "/leave");
		assert_true(said(S_ERR_ALREADY_OUT));
		assert_int_equal(events(), n);
		as("alice", "/remove bob");
		assert_true(said(S_ERR_ALREADY_OUT));
		assert_int_equal(events(), n);
	}
	/* A restart rebuilds the same table, the leave included. */
	as("alice", "/status");
	snprintf(before_text, sizeof(before_text), "%s", find_msg(MSG_PRIVATE, MSG_TABLE)->text);
	restart_bot();
	as("alice", "/status");
	assert_string_equal(find_msg(MSG_PRIVATE, MSG_TABLE)->text, before_text);
	/* bob is asked nothing more. */
	for (int i = 0; i < 40 && query("SELECT state FROM games") == STORE_PLAYING; i++) {
		struct game_step st;
		stored_state(&g);
		ctgame_step(&g, &st);
		assert_int_not_equal(st.seat, 1);
		tick_to(stored_deadline());
	}
}

/* A table opened before hands were kept secret (C14: its row's revision
 * 0) is played and rebuilt at a restart by the first rules, which its log
 * follows; a table opened now is stamped with the secret hands. */
static void test_first_rules_table_resumes(void **state)
{
	char before[MSG_TEXT_MAX];
	struct ctgame g, secret;

	(void)state;
	as("alice", "/open cthulhu");
	assert_int_equal(query("SELECT revision FROM games"), CTGAME_REV_SECRET);
	exec_sql("UPDATE games SET revision = 0");
	restart_bot(); /* the row as an older bot left it */
	as("bob", "/join");
	as("alice", "/addbot");
	as("alice", "/start");
	assert_null(find_msg(MSG_PRIVATE, MSG_ERROR));
	for (int i = 0; i < 16; i++)
		tick_to(stored_deadline());
	stored_state(&g);
	assert_int_equal(g.secret, 0);
	assert_true(g.turns >= 2);
	/* the same log read by the secret hands' rules goes elsewhere */
	assert_true(log_state(&secret, CTGAME_REV_SECRET) > 0 ||
	            ctgame_hash(&secret) != ctgame_hash(&g));
	as("alice", "/status");
	snprintf(before, sizeof(before), "%s", need_msg(MSG_PRIVATE, MSG_TABLE)->text);
	restart_bot();
	as("alice", "/status");
	assert_string_equal(need_msg(MSG_PRIVATE, MSG_TABLE)->text, before);
	tick_to(stored_deadline());
	stored_state(&g);
	assert_int_equal(query("SELECT revision FROM games"), 0);
}

/* C17: the owner removes a player from a game under way (a host kick). */
static void test_owner_removes_a_player(void **state)
{
	static const char *const bob[] = { "bob", "carol", NULL };
	struct ctgame g;

	(void)state;
	table("", bob, 0);
	as("bob", "/remove carol");
	assert_true(said(S_ERR_OWNER_ONLY));
	as("alice", "/remove carol");
	assert_null(find_msg(MSG_PRIVATE, MSG_ERROR));
	assert_true(said(S_LEFT_GAME));
	assert_int_equal(query("SELECT value FROM events WHERE kind = 'leave'"), 2);
	stored_state(&g);
	assert_int_equal(g.p[2].out, 1);
	assert_int_equal(g.p[1].out, 0);
}

/* §14: a shared win makes every winner a winner in the records. */
static void test_shared_win_recorded(void **state)
{
	struct ctgame g;
	int found = 0;

	(void)state;
	for (int game = 0; game < 400 && !found; game++) {
		as("alice", "/open cthulhu");
		for (int i = 0; i < 3; i++)
			as("alice", "/addbot");
		as("alice", "/start");
		as("alice", "/leave");       /* the computers play it to its end, */
		while (bot_pending(fx->bot)) /* 64 moves a pass */
			tick_to(bot_next_deadline(fx->bot));
		assert_int_equal(query("SELECT state FROM games ORDER BY id DESC LIMIT 1"),
		                 STORE_FINISHED);
		stored_state(&g);
		if (__builtin_popcount(g.winners) < 2)
			continue;
		found = 1;
		assert_int_equal(query("SELECT winner FROM games ORDER BY id DESC LIMIT 1"), -1);
		for (int s = 0; s < 4; s++) {
			char sql[160];
			snprintf(sql, sizeof(sql),
			         "SELECT place FROM members WHERE idx = %d AND game_id = "
			         "(SELECT max(id) FROM games)",
			         s);
			assert_int_equal(query(sql), g.winners >> s & 1 ? 0 : 1);
		}
		assert_int_equal(
		    query("SELECT count(*) FROM members WHERE cthulhu = 1 AND game_id = "
		          "(SELECT max(id) FROM games)"),
		    0);
	}
	assert_true(found);
}

/* C8: after a defeat, the defeated player picks the relics to lose
 * privately, one stepper per type, and Confirm loses them all. alice plays
 * the baseline policy by /pick until she is asked. */
static void test_relic_picker(void **state)
{
	struct ctgame g;
	struct game_step st;
	struct rng r;
	int found = 0;

	(void)state;
	rng_seed(&r, 5);
	for (int game = 0; game < 40 && !found; game++) {
		as("alice", "/open cthulhu cap:30");
		as("alice", "/addbot");
		as("alice", "/addbot");
		as("alice", "/start");
		for (int i = 0; i < 4000; i++) {
			char line[64];
			stored_state(&g);
			ctgame_step(&g, &st);
			if (st.node == GAME_NODE_OVER)
				break;
			assert_int_equal(st.seat, 0);
			if (st.kind == CA_RELIC_LOSS && st.count >= 2) {
				found = 1;
				break;
			}
			snprintf(line, sizeof(line), "/pick %d",
			         ctgame_policy_baseline(&g, &st, &r) + 1);
			as("alice", line);
			assert_null(find_msg(MSG_PRIVATE, MSG_ERROR));
		}
		if (!found)
			as("alice", "/abort");
	}
	assert_true(found);
	{
		const struct msg *t;
		const struct ctgame_player *p = &g.p[0];
		int keep[CTGAME_TYPES], loss = g.loss, types = 0;
		char line[160], sel[80];
		long long before;
		as("alice", "/status");
		t = need_msg(MSG_PRIVATE, MSG_TABLE);
		/* Publicly, only the way to the private picker. */
		assert_non_null(strstr(t->buttons[0].id, ":relics:0,0,0,0,0"));
		for (int b = 0; b < t->nbuttons; b++)
			assert_null(strstr(t->buttons[b].id, ":pick:"));
		before = events();
		as("alice", "/relics 0,0,0,0,0");
		t = need_msg(MSG_PRIVATE, MSG_INFO);
		for (int ty = 0; ty < CTGAME_TYPES; ty++)
			types += p->relics[ty] > 0;
		assert_int_equal(t->nbuttons, types); /* a + per type held, no Confirm yet */
		/* Choose the loss from the last types held. */
		for (int ty = CTGAME_TYPES - 1, left = loss; ty >= 0; ty--) {
			int l = p->relics[ty] < left ? p->relics[ty] : left;
			keep[ty] = p->relics[ty] - l;
			left -= l;
		}
		snprintf(sel, sizeof(sel), "%d,%d,%d,%d,%d", p->relics[0] - keep[0],
		         p->relics[1] - keep[1], p->relics[2] - keep[2], p->relics[3] - keep[3],
		         p->relics[4] - keep[4]);
		snprintf(line, sizeof(line), "/relics %s", sel);
		as("alice", line);
		t = need_msg(MSG_PRIVATE, MSG_INFO);
		snprintf(sel, sizeof(sel), ":lose:%d,%d,%d,%d,%d", keep[0], keep[1], keep[2],
		         keep[3], keep[4]);
		assert_non_null(strstr(t->buttons[t->nbuttons - 1].id, sel));
		assert_int_equal(events(), before); /* looking writes nothing */
		/* A choice that does not lose exactly the loss is refused. */
		as("alice", "/lose 9,9,9,9,9");
		assert_true(said(S_CTP_ERR_LOSE));
		assert_int_equal(events(), before);
		snprintf(line, sizeof(line), "/lose %d,%d,%d,%d,%d", keep[0], keep[1], keep[2],
		         keep[3], keep[4]);
		as("alice", line);
		assert_null(find_msg(MSG_PRIVATE, MSG_ERROR));
		/* Every relic of the choice lost in one command, one move each. */
		snprintf(line, sizeof(line),
		         "SELECT count(*) FROM events WHERE kind = 'choice' AND actor = 0 AND "
		         "seq > %lld",
		         before);
		assert_true(query(line) >= loss);
		{
			struct ctgame after;
			stored_state(&after);
			for (int ty = 0; ty < CTGAME_TYPES; ty++)
				assert_int_equal(after.p[0].relics[ty], keep[ty]);
		}
	}
}

/* ---- the round cap (C19) ---- */

static void test_round_cap_leaves_it_unfinished(void **state)
{
	int i;

	(void)state;
	table("cap:1", NULL, 1);
	for (i = 0; i < 500 && query("SELECT state FROM games") == STORE_PLAYING; i++)
		tick_to(stored_deadline());
	assert_int_equal(query("SELECT state FROM games"), STORE_ABORTED);
	assert_int_equal(query("SELECT winner FROM games"), -1);
	assert_int_equal(query("SELECT count(*) FROM events WHERE kind = 'end' AND detail = "
	                       "'unfinished'"),
	                 1);
	{
		const struct msg *m = need_msg(MSG_CHANNEL, MSG_TABLE);
		assert_non_null(strstr(m->text, i18n_get(I18N_EN, S_CTP_OVER_CAPPED)));
		assert_int_equal(m->nbuttons, 0); /* no rematch of an unfinished game */
	}
	/* Nobody won or lost it: records leave it out. */
	assert_int_equal(query("SELECT count(*) FROM members WHERE place >= 0 OR cthulhu = 1"), 0);
}

/* ---- /log ---- */

/* Appends the narration the channel was shown (public event messages) to
 * buf. */
static void keep_narration(char *buf, size_t cap)
{
	for (int i = 0; i < fx->out.n; i++) {
		const struct msg *m = &fx->out.m[i];
		size_t len = strlen(buf);
		if (m->audience == MSG_CHANNEL && m->kind == MSG_EVENT && m->text[0])
			snprintf(buf + len, cap - len, "%s%s", m->text,
			         m->text[strlen(m->text) - 1] != '\n' ? "\n" : "");
	}
}

/* A board game's log runs over several pages, each within a page's bytes;
 * read back newest first, its lines are the moves the channel saw, in
 * order (the channel saw the bot's own lines too: timeouts); in Dutch for
 * a Dutch player. */
static void test_log_pages(void **state)
{
	enum { CAP = 1 << 20 };
	char *shown = calloc(1, CAP), *told = calloc(1, CAP), want[64];
	int pages = 0, lines = 0;

	(void)state;
	assert_non_null(shown);
	assert_non_null(told);
	table("cap:4", NULL, 1);
	keep_narration(shown, CAP);
	for (int i = 0; i < 500 && query("SELECT state FROM games") == STORE_PLAYING; i++) {
		tick_to(stored_deadline());
		keep_narration(shown, CAP);
	}
	as("bob", "/log");
	assert_null(find_msg(MSG_PRIVATE, MSG_ERROR));
	assert_int_equal(sscanf(fx->out.m[0].title, "The game so far — page 1 of %d", &pages), 1);
	assert_true(pages >= 2);
	for (int p = pages; p >= 1; p--) {
		char line[32], *text, *at;
		size_t len = strlen(told);
		snprintf(line, sizeof(line), "/log %d", p);
		as("bob", line);
		assert_int_equal(fx->out.n, 1);
		assert_int_equal(fx->out.m[0].audience, MSG_PRIVATE);
		text = fx->out.m[0].text;
		if ((at = strstr(text, "\n\nEarlier: /log ")))
			*at = '\0';
		assert_true(p == pages || at);
		assert_true(strlen(text) <= PLAYLOG_PAGE);
		snprintf(told + len, CAP - len, "%s\n", text);
	}
	/* told's lines, in order, among shown's; the last the same. */
	{
		const char *from = shown;
		for (char *l = told, *nl; (nl = strchr(l, '\n')); l = nl + 1) {
			const char *hit;
			*nl = '\0';
			hit = strstr(from, l);
			if (!hit)
				fail_msg("told but not shown (in order): %s", l);
			from = hit + strlen(l);
			lines++;
		}
		assert_string_equal(from, "\n");
	}
	assert_true(lines > 30);
	as("nora", "/log");
	snprintf(want, sizeof(want), "Het spel tot nu toe — pagina 1 van %d", pages);
	assert_string_equal(fx->out.m[0].title, want);
	free(shown);
	free(told);
}

/* ---- the whole map ---- */

/* The longer side of a PNG, from its IHDR chunk. */
static int png_long_side(const unsigned char *png, size_t len)
{
	int w, h;

	assert_true(len > 24 && memcmp(png, "\x89PNG", 4) == 0 && memcmp(png + 12, "IHDR", 4) == 0);
	w = png[16] << 24 | png[17] << 16 | png[18] << 8 | png[19];
	h = png[20] << 24 | png[21] << 16 | png[22] << 8 | png[23];
	return w > h ? w : h;
}

/* The table's picture shows the area in play (at most CTPICTURE_VIEW_PX) with
 * a Full map button; /map (Dutch /plattegrond) answers privately with the
 * whole map, the marks of the awaited decision and the players' names. */
static void test_full_map(void **state)
{
	static const char *const bob[] = { "bob", NULL };
	const struct msg *m;
	struct ctgame g;
	int found = 0;

	(void)state;
	table("", bob, 0);
	for (int i = 0; i < 400; i++) {
		stored_state(&g);
		if (g.round >= 4)
			break;
		tick_to(stored_deadline());
	}
	as("alice", "/map");
	m = find_msg(MSG_PRIVATE, MSG_INFO);
	assert_non_null(m);
	assert_non_null(m->picture);
	assert_non_null(strstr(m->picture_name, "fullmap-"));
	assert_true(png_long_side(m->picture, m->picture_len) <= CTPICTURE_MAX_PX);
	assert_non_null(m->picture_alt);
	assert_non_null(strstr(m->picture_alt, "Players: 1 alice, 2 bob"));
	assert_non_null(strstr(m->text, "The whole map"));
	assert_null(find_msg(MSG_CHANNEL, MSG_TABLE)); /* nothing played */
	/* a move shows the table: the area in play, and the button */
	tick_to(stored_deadline());
	stored_state(&g);
	m = find_msg(MSG_CHANNEL, MSG_TABLE);
	assert_non_null(m);
	assert_non_null(m->picture);
	assert_true(png_long_side(m->picture, m->picture_len) <= CTPICTURE_VIEW_PX);
	for (int i = 0; i < m->nbuttons; i++)
		found |= strstr(m->buttons[i].id, ":map") != NULL &&
		         strcmp(m->buttons[i].label, "Full map") == 0;
	assert_true(found || g.end);
}

/* A Dutch table's button; a private view speaks the language of whoever
 * asks (nora's is Dutch). */
static void test_full_map_dutch(void **state)
{
	const struct msg *m;

	(void)state;
	as("alice", "/open cthulhu nl");
	as("nora", "/join");
	as("alice", "/start");
	m = need_msg(MSG_CHANNEL, MSG_TABLE);
	assert_true(m->nbuttons > 0);
	assert_string_equal(m->buttons[m->nbuttons - 1].label, "Hele kaart");
	as("nora", "/map"); /* Discord names it /plattegrond in Dutch */
	m = find_msg(MSG_PRIVATE, MSG_INFO);
	assert_non_null(m);
	assert_non_null(m->picture);
	assert_non_null(strstr(m->text, "De hele kaart"));
	assert_non_null(strstr(m->picture_alt, "Spelers: 1 alice, 2 nora"));
	assert_non_null(strstr(m->picture_alt, "sektariër"));
}

/* ---- Dutch ---- */

static void test_dutch_table(void **state)
{
	(void)state;
	as("alice", "/open cthulhu nl");
	as("alice", "/addbot");
	as("alice", "/start");
	{
		const struct msg *m = need_msg(MSG_CHANNEL, MSG_TABLE);
		assert_non_null(strstr(m->title, "ronde"));
		assert_non_null(strstr(m->text, "harten"));
		assert_non_null(m->picture_alt);
		assert_non_null(strstr(m->picture_alt, "pion"));
	}
	as("nora", "/hand"); /* not at the table, answered in her language */
	assert_true(any_text("Je speelt niet mee"));
}

/* ---- printed texts and discards (ctcards) ---- */

/* The short or long text of a thing in lang. */
static const char *thing_text(int kind, int id, int lang, int lng)
{
	static char buf[2][1024];
	struct text tx;

	text_init(&tx, buf[lng], sizeof(buf[lng]));
	if (lng)
		ctcards_long(kind, id, lang, &tx);
	else
		ctcards_short(kind, id, lang, &tx);
	return buf[lng];
}

static void test_card_texts(void **state)
{
	static const char *const bob[] = { "bob", NULL };
	const struct msg *m;
	struct ctgame g;
	struct game_step st;
	long long before;
	int moves, menus = 0, discards = 0, in_play = 0;

	(void)state;
	table("window:20 cap:8", bob, 0);
	/* /card in English and Dutch, by either name; one without a seat too */
	as("alice", "/card Trench Knife");
	m = need_msg(MSG_PRIVATE, MSG_INFO);
	assert_int_equal(fx->out.n, 1);
	assert_non_null(strstr(m->title, "Trench Knife"));
	assert_non_null(strstr(m->title, "E01"));
	assert_string_equal(m->text, thing_text(CTCARDS_CARD, CK_KNIFE, I18N_EN, 1));
	assert_non_null(strstr(m->text, "against a cultist: +1"));
	as("bob", "/card loopgraafmes");
	m = need_msg(MSG_PRIVATE, MSG_INFO);
	assert_string_equal(m->text, thing_text(CTCARDS_CARD, CK_KNIFE, I18N_EN, 1));
	as("nora", "/card Loopgraafmes"); /* no seat, Dutch */
	m = need_msg(MSG_PRIVATE, MSG_INFO);
	assert_string_equal(m->user, "nora");
	assert_non_null(strstr(m->title, "Loopgraafmes"));
	assert_string_equal(m->text, thing_text(CTCARDS_CARD, CK_KNIFE, I18N_NL, 1));
	assert_non_null(strstr(m->text, "tegen een sektariër: +1"));
	as("nora", "/card Schouwburg Carcosa");
	m = need_msg(MSG_PRIVATE, MSG_INFO);
	assert_string_equal(m->text, thing_text(CTCARDS_TILE, 26, I18N_NL, 1));
	as("alice", "/card harpoon");
	assert_string_equal(need_msg(MSG_PRIVATE, MSG_INFO)->text,
	                    thing_text(CTCARDS_CARD, CK_HARPOON, I18N_EN, 1));
	/* an unknown or unclear name: refused with suggestions, nothing changes */
	before = events();
	moves = table_moves();
	as("alice", "/card Trensh Knif");
	m = need_msg(MSG_PRIVATE, MSG_ERROR);
	assert_int_equal(fx->out.n, 1);
	assert_true(matches(m->text, S_CTP_CARD_UNKNOWN));
	assert_non_null(strstr(m->text, "Did you mean: Trench Knife"));
	as("nora", "/card Splitsing");
	m = need_msg(MSG_PRIVATE, MSG_ERROR);
	assert_non_null(strstr(m->text, "past bij meerdere"));
	assert_non_null(strstr(m->text, "Splitsing Voorstraat"));
	as("alice", "/card");
	assert_non_null(find_msg(MSG_PRIVATE, MSG_ERROR));
	assert_int_equal(events(), before);
	assert_int_equal(table_moves(), moves);
	/* the hand with its texts; a private menu of cards with theirs;
	 * the discard piles with what was discarded */
	for (int ticks = 0; ticks < 3000 && (!menus || !discards || !in_play); ticks++) {
		stored_state(&g);
		ctgame_step(&g, &st);
		if (st.node == GAME_NODE_OVER)
			break;
		as("alice", "/hand");
		m = need_msg(MSG_PRIVATE, MSG_INFO);
		for (int card = 0; card < CTGAME_CARDS; card++) {
			char line[512];
			struct text lt;
			int kind = ctgame_card_kind(card);
			if (g.card_at[card] != CW_HAND + 0)
				continue;
			text_init(&lt, line, sizeof(line));
			text_addf(&lt, "• %s — %s", ctnames_card(kind, I18N_EN),
			          thing_text(CTCARDS_CARD, kind, I18N_EN, 0));
			if (!strstr(m->text, line))
				fail_msg("'%s' not in the hand: %s", line, m->text);
		}
		for (int card = 0; card < CTGAME_CARDS; card++) {
			int kind = ctgame_card_kind(card);
			const char *at;
			if (g.card_at[card] != CW_PLAY + 0)
				continue;
			at = strstr(m->text, "In play:");
			assert_non_null(at);
			assert_non_null(strstr(at, ctnames_card(kind, I18N_EN)));
			assert_non_null(strstr(at, thing_text(CTCARDS_CARD, kind, I18N_EN, 0)));
			in_play++;
		}
		for (int o = 0; o < m->select.noptions; o++) {
			const struct msg_option *op = &m->select.options[o];
			for (int kind = 0; kind < CTGAME_KINDS; kind++)
				if (strstr(op->label, ctnames_card(kind, I18N_EN)) &&
				    strcmp(op->description,
				           thing_text(CTCARDS_CARD, kind, I18N_EN, 0)) == 0)
					menus++;
		}
		if (st.node == GAME_NODE_CHOICE && st.seat == 0 &&
		    (st.kind == CA_DISCARD || st.kind == CA_PLAY)) {
			/* alice discards a card, or puts a weapon or an item in
			 * play, from the menu of her hand */
			char line[64] = "";
			for (int o = 0; o < m->select.noptions && !line[0]; o++) {
				const char *l = m->select.options[o].label;
				int put = 0;
				for (int k = 0; k < CTGAME_KINDS; k++)
					put |= ctgame_card(k)->category <= CC_ITEM &&
					       strncmp(l, "Play ", 5) == 0 &&
					       strcmp(l + 5, ctnames_card(k, I18N_EN)) == 0;
				if (put || strncmp(l, "Discard ", 8) == 0)
					snprintf(line, sizeof(line), "/pick %s",
					         m->select.options[o].value);
			}
			if (line[0]) {
				as("alice", line);
				assert_null(find_msg(MSG_PRIVATE, MSG_ERROR));
				continue;
			}
		}
		for (int card = 0; card < CTGAME_CARDS && !discards; card++)
			if (g.card_at[card] == CW_DISCARD) {
				const char *name = ctnames_card(ctgame_card_kind(card), I18N_NL);
				as("nora", "/discards");
				m = need_msg(MSG_PRIVATE, MSG_INFO);
				assert_non_null(strstr(m->text, "Gebeurteniskaarten ("));
				if (!strstr(m->text, name))
					fail_msg("'%s' not in the discards: %s", name, m->text);
				discards++;
			}
		tick_to(stored_deadline());
	}
	assert_true(menus > 0);
	assert_true(discards > 0);
	assert_true(in_play > 0);
}

/* /rules: the board game's pages, each within a message's caps, covering
 * the turn, combat, sanity, relics, sites and scoring, and the commands. */
static void test_rules_pages(void **state)
{
	static const char *const en[] = {
		"step",    "PP1",          "PP5",    "Kill number",       "cultist 4", "byakhee 5",
		"bullets", "sanity check", "insane", "one relic of each", "sanctify",  "activates",
		"2n−1 VP", "12 VP",        "/card",  "/discards",         "/hand",     NULL
	};
	static const char *const nl[] = { "stap",          "PP1",         "PP5",
		                          "sektariër 4",   "byakhee 5",   "kogels",
		                          "verstandsworp", "krankzinnig", "één relikwie van elk",
		                          "heiligen",      "activeert",   "2n−1 OP",
		                          "12 OP",         "/kaart",      "/aflegstapel",
		                          "/hand",         NULL };
	char all[16384];

	(void)state;
	for (int lang = 0; lang < I18N_LANGS; lang++) {
		struct text tx;
		text_init(&tx, all, sizeof(all));
		as(lang ? "nora" : "alice", "/rules cthulhu");
		assert_true(fx->out.n >= 2);
		for (int i = 0; i < fx->out.n; i++) {
			const struct msg *m = &fx->out.m[i];
			assert_int_equal(m->audience, MSG_PRIVATE);
			assert_int_equal(m->kind, MSG_INFO);
			assert_true(strlen(m->text) > 200);
			assert_true(strlen(m->text) < MSG_TEXT_MAX - 1); /* not cut */
			text_add(&tx, m->text);
		}
		for (const char *const *k = lang ? nl : en; *k; k++)
			if (!strstr(all, *k))
				fail_msg("/rules (%s) does not say \"%s\"", i18n_code(lang), *k);
	}
	/* the pages are the game's own: Cthulhu Dice's rules are one page */
	as("alice", "/rules cthulhu-dice");
	assert_int_equal(fx->out.n, 1);
	assert_true(said(S_CD_RULES));
}

/* ---- pictures ---- */

/* Pictures among fx->out's messages; *table: the last table's, or NULL. */
static int pictures_out(const struct msg **table)
{
	int n = 0;

	*table = NULL;
	for (int i = 0; i < fx->out.n; i++) {
		n += fx->out.m[i].picture != NULL;
		if (fx->out.m[i].kind == MSG_TABLE && fx->out.m[i].picture)
			*table = &fx->out.m[i];
	}
	return n;
}

/* Maps drawn or taken from the cache since `before`. */
static uint64_t pictures_made(const struct ctpicture_cache_stats *before)
{
	struct ctpicture_cache_stats now;

	ctpicture_cache_stats(&now);
	return now.renders - before->renders + now.hits - before->hits;
}

/* A map is drawn for a message that carries it and for no other: replies
 * without a picture (a hand, a refusal, a lobby) cost no drawing; the
 * table shown again over an unchanged map gives the same PNG bytes from
 * the cache; a move that changes the map draws it anew. */
static void test_pictures_only_where_shown(void **state)
{
	struct ctpicture_cache_stats before, after;
	const struct msg *t;
	unsigned char *first;
	size_t first_len;
	struct ctgame g, h;

	(void)state;
	ctpicture_cache_stats(&before);
	as("alice", "/open cthulhu");
	as("bob", "/join");
	assert_non_null(find_msg(MSG_CHANNEL, MSG_TABLE)); /* the lobby: no map */
	assert_int_equal(pictures_out(&t), 0);
	assert_int_equal(pictures_made(&before), 0);
	as("alice", "/start");
	assert_int_equal(pictures_out(&t), 1);
	assert_non_null(t);
	assert_int_equal(pictures_made(&before), 1);
	first_len = t->picture_len;
	first = malloc(first_len);
	assert_non_null(first);
	memcpy(first, t->picture, first_len);

	ctpicture_cache_stats(&before);
	as("alice", "/hand");
	assert_non_null(find_msg(MSG_PRIVATE, MSG_INFO));
	as("carol", "/hand"); /* not at the table: refused */
	assert_true(fx->out.n > 0);
	as("alice", "/rules");
	assert_true(fx->out.n > 0);
	assert_int_equal(pictures_out(&t), 0);
	assert_int_equal(pictures_made(&before), 0);

	/* The table again: the same map, its PNG bytes from the cache. */
	ctpicture_cache_stats(&before);
	as("bob", "/status");
	assert_int_equal(pictures_out(&t), 1);
	assert_non_null(t);
	ctpicture_cache_stats(&after);
	assert_int_equal(after.hits - before.hits, 1);
	assert_int_equal(after.renders - before.renders, 0);
	assert_int_equal(t->picture_len, first_len);
	assert_memory_equal(t->picture, first, first_len);

	/* Moves until a figure or token is placed: drawn anew, other bytes. */
	stored_state(&g);
	for (int i = 0; i < 400; i++) {
		ctpicture_cache_stats(&before);
		tick_to(stored_deadline());
		stored_state(&h);
		assert_int_equal(pictures_made(&before), (uint64_t)pictures_out(&t));
		if (memcmp(h.square, g.square, sizeof(g.square)) != 0)
			break;
	}
	assert_memory_not_equal(h.square, g.square, sizeof(g.square));
	assert_non_null(t);
	ctpicture_cache_stats(&after);
	assert_true(after.renders > before.renders);
	assert_false(t->picture_len == first_len && memcmp(t->picture, first, first_len) == 0);
	free(first);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settings),
		cmocka_unit_test_setup_teardown(test_open_refuses_bad_setting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_timeout_takes_its_default, setup_patient,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_three_strikes_autopilot_and_back, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_manual_enemies, setup_patient, teardown),
		cmocka_unit_test_setup_teardown(test_preferences, setup_patient, teardown),
		cmocka_unit_test_setup_teardown(test_idle_game_closed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_and_forged_clicks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hands_are_private, setup_patient, teardown),
		cmocka_unit_test_setup_teardown(test_call_names_the_moment, setup_patient,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_card_texts, setup_patient, teardown),
		cmocka_unit_test_setup_teardown(test_rules_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_to_destination, setup_patient, teardown),
		cmocka_unit_test_setup_teardown(test_fight_stops_walk_then_continue, setup_patient,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_placement_preview_then_confirm, setup_patient,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_leave_and_restart, setup_patient, teardown),
		cmocka_unit_test_setup_teardown(test_first_rules_table_resumes, setup_patient,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_owner_removes_a_player, setup, teardown),
		cmocka_unit_test_setup_teardown(test_relic_picker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_win_recorded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_cap_leaves_it_unfinished, setup_patient,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_dutch_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_pages, setup_patient, teardown),
		cmocka_unit_test_setup_teardown(test_full_map, setup_patient, teardown),
		cmocka_unit_test_setup_teardown(test_full_map_dutch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pictures_only_where_shown, setup_patient,
		                                teardown),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	ctpicture_cleanup(); /* the font caches of the pictures, for the leak checker */
	return rc;
}
