/* The bot: the permission and phase matrix of every command, timeouts on a
 * fake clock, stale buttons, languages, durability and restart, and a whole
 * Elder Signs game. Assertions
 * read what the bot answered and what is in the database. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "rlyeh/bot.h"
#include "rlyeh/cdice.h"
#include "rlyeh/cdsolve.h"
#include "rlyeh/cdsolvecache.h"
#include "rlyeh/ctpicture.h"
#include "rlyeh/esigns.h"
#include "rlyeh/i18n.h"
#include "rlyeh/play.h"
#include "rlyeh/playlog.h"
#include "rlyeh/records.h"
#include "rlyeh/text.h"
#include "testdb.h"

#define T0      1700000000000LL
#define TIMEOUT 60000

struct fixture {
	char dir[64];
	char path[TESTDB_MAX];
	struct store *st;
	struct bot *bot;
	struct msg_list out;
	int64_t now;
	uint64_t seed;
	int per_pass; /* cfg.moves_per_pass; -1: the default */
};

static struct fixture *fx;

static void start_bot(struct fixture *f)
{
	struct bot_config cfg;
	char err[256];

	bot_config_default(&cfg);
	cfg.seed = f->seed;
	cfg.turn_timeout_ms = TIMEOUT;
	if (f->per_pass >= 0)
		cfg.moves_per_pass = f->per_pass;
	f->bot = bot_new(f->st, &cfg, err, sizeof(err));
	if (!f->bot)
		fail_msg("bot_new: %s", err);
}

static void open_fixture(uint64_t seed)
{
	char err[256];

	fx = calloc(1, sizeof(*fx));
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/rlyeh-bot-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	testdb_fresh(fx->path, fx->dir, "t.db");
	if (store_open(fx->path, &fx->st, err, sizeof(err)))
		fail_msg("store_open: %s", err);
	fx->now = T0;
	fx->seed = seed;
	fx->per_pass = -1;
	start_bot(fx);
}

static int setup(void **state)
{
	(void)state;
	open_fixture(7);
	return 0;
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

/* Runs "/command args" as `user` (ids and names are the same here). */
static void as(const char *user, const char *line)
{
	struct bot_req req = { .server = "s1",
		               .channel = "c1",
		               .user = user,
		               .name = user,
		               .locale = "en",
		               .moderator = strcmp(user, "mod") == 0 };

	msg_clear(&fx->out);
	if (cmd_parse(line, &req.cmd) != CMD_OK)
		fail_msg("test command does not parse: %s", line);
	bot_handle(fx->bot, &req, fx->now, &fx->out);
}

/* As `as`, with a button's game and move. */
static void click(const char *user, const char *line, int64_t game, int move)
{
	struct bot_req req = {
		.server = "s1", .channel = "c1", .user = user, .name = user, .locale = "en"
	};

	msg_clear(&fx->out);
	assert_int_equal(cmd_parse(line, &req.cmd), CMD_OK);
	req.cmd.game = game;
	req.cmd.move = move;
	bot_handle(fx->bot, &req, fx->now, &fx->out);
}

/* The English text of `id` up to its first placeholder. */
static void template_prefix(int id, char *buf, size_t cap)
{
	const char *s = i18n_get(I18N_EN, id);
	size_t n = strcspn(s, "{");

	if (n >= cap)
		n = cap - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

static int any_text(const char *needle)
{
	for (int i = 0; i < fx->out.n; i++) {
		if (strstr(fx->out.m[i].text, needle) || strstr(fx->out.m[i].title, needle))
			return 1;
		for (int k = 0; k < fx->out.m[i].nfields; k++)
			if (strstr(fx->out.m[i].fields[k].value, needle) ||
			    strstr(fx->out.m[i].fields[k].name, needle))
				return 1;
	}
	return 0;
}

/* A text dump of the database: every game, member and event. */
static char *dump(void)
{
	static const char *const queries[] = {
		"SELECT id, server, channel, state, owner, moves, winner, deadline, rng0, first "
		"FROM games ORDER BY id",
		"SELECT game_id, idx, player, name, policy, strikes, autopilot, place FROM members "
		"ORDER BY game_id, idx",
		"SELECT game_id, seq, kind, actor, value FROM events ORDER BY game_id, seq",
		"SELECT id, lang FROM players ORDER BY id",
	};
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);

	assert_non_null(buf);
	buf[0] = '\0';
	for (size_t q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
		char *rows = testdb_rows(fx->path, queries[q]);
		size_t n = strlen(rows);

		assert_true(len + n < cap);
		memcpy(buf + len, rows, n + 1);
		len += n;
		free(rows);
	}
	return buf;
}

static long count(const char *sql)
{
	return (long)testdb_int(fx->path, sql);
}

/* Asserts that `line` from `user` is refused with `id`, privately, and that
 * the database is byte for byte as before. */
static void refused(const char *user, const char *line, int id)
{
	char *before = dump(), *after, prefix[128];

	as(user, line);
	template_prefix(id, prefix, sizeof(prefix));
	if (fx->out.n != 1 || fx->out.m[0].kind != MSG_ERROR ||
	    fx->out.m[0].audience != MSG_PRIVATE || strcmp(fx->out.m[0].user, user) != 0 ||
	    !strstr(fx->out.m[0].text, prefix))
		fail_msg("%s %s: want a private error \"%s\", got %d messages, first \"%s\"", user,
		         line, prefix, fx->out.n, fx->out.n ? fx->out.m[0].text : "");
	after = dump();
	if (strcmp(before, after) != 0)
		fail_msg("%s %s: refused but the database changed", user, line);
	free(before);
	free(after);
}

/* Asserts that `line` from `user` is accepted (no error message). */
static void accepted(const char *user, const char *line)
{
	as(user, line);
	for (int i = 0; i < fx->out.n; i++)
		if (fx->out.m[i].kind == MSG_ERROR)
			fail_msg("%s %s: refused: %s", user, line, fx->out.m[i].text);
	assert_true(fx->out.n > 0);
}

static int64_t game_id(void)
{
	return count("SELECT max(id) FROM games");
}

static int moves(void)
{
	return (int)count("SELECT moves FROM games ORDER BY id DESC LIMIT 1");
}

/* A lobby: alice owns it, bob sits. */
static void lobby(void)
{
	accepted("alice", "/open");
	accepted("bob", "/join");
}

/* Playing: alice, bob and a heuristic computer; alice casts first. */
static void playing(void)
{
	lobby();
	accepted("alice", "/addbot heuristic");
	accepted("alice", "/start alice");
}

/* Plays the current game to its end as alice and bob, taking whatever move
 * is theirs; returns the number of commands sent. */
static int play_out(void)
{
	static const char *const moves_to_try[] = { "/curse #0", "/curse #1", "/curse #2",
		                                    "/respond", "/eye cthulhu" };
	int sent = 0;

	for (int round = 0; round < 2000; round++) {
		int acted = 0;
		if (count("SELECT state FROM games ORDER BY id DESC LIMIT 1") != 1)
			return sent;
		for (int u = 0; u < 2 && !acted; u++)
			for (size_t k = 0; k < 5 && !acted; k++) {
				as(u ? "bob" : "alice", moves_to_try[k]);
				sent++;
				acted = fx->out.n && fx->out.m[0].kind != MSG_ERROR;
			}
		assert_true(acted);
	}
	fail_msg("the game did not end");
	return sent;
}

/* The narration the channel was shown by the last command, appended to
 * buf: every public event message's text. */
static void keep_narration(char *buf, size_t cap)
{
	for (int i = 0; i < fx->out.n; i++) {
		const struct msg *m = &fx->out.m[i];
		size_t len = strlen(buf);
		if (m->audience == MSG_CHANNEL && m->kind == MSG_EVENT)
			snprintf(buf + len, cap - len, "%s%s", m->text,
			         m->text[0] && m->text[strlen(m->text) - 1] != '\n' ? "\n" : "");
	}
}

/* /log tells again what the channel was shown, a page at a time from the
 * newest; a bad page is refused with the number of pages and nothing
 * written; a lobby has nothing to tell. */
static void test_log(void **unused)
{
	static const char *const moves_to_try[] = { "/curse #0", "/curse #1", "/curse #2",
		                                    "/respond", "/eye cthulhu" };
	enum { CAP = 1 << 16 };
	char *shown = calloc(1, CAP), *told = calloc(1, CAP), want[64], prefix[64];
	int pages = 0;

	(void)unused;
	assert_non_null(shown);
	assert_non_null(told);
	refused("carol", "/log", S_ERR_NO_TABLE);
	lobby();
	accepted("carol", "/log");
	assert_true(any_text(i18n_get(I18N_EN, S_LOG_EMPTY)));
	accepted("alice", "/addbot heuristic");
	as("alice", "/start alice");
	keep_narration(shown, CAP);
	for (int round = 0; round < 2000; round++) {
		int acted = 0;
		if (count("SELECT state FROM games ORDER BY id DESC LIMIT 1") != 1)
			break;
		for (int u = 0; u < 2 && !acted; u++)
			for (size_t k = 0; k < 5 && !acted; k++) {
				as(u ? "bob" : "alice", moves_to_try[k]);
				acted = fx->out.n && fx->out.m[0].kind != MSG_ERROR;
				if (acted)
					keep_narration(shown, CAP);
			}
		assert_true(acted);
	}
	/* The pages, newest first, put back in order. */
	accepted("carol", "/log");
	assert_int_equal(fx->out.n, 1);
	assert_int_equal(fx->out.m[0].audience, MSG_PRIVATE);
	assert_string_equal(fx->out.m[0].user, "carol");
	assert_int_equal(sscanf(fx->out.m[0].title, "The game so far — page 1 of %d", &pages), 1);
	assert_true(pages >= 1);
	for (int p = pages; p >= 1; p--) {
		char line[32], *text;
		size_t len = strlen(told);
		snprintf(line, sizeof(line), "/log %d", p);
		accepted("carol", line);
		assert_int_equal(fx->out.n, 1);
		text = fx->out.m[0].text;
		snprintf(want, sizeof(want), "The game so far — page %d of %d", p, pages);
		assert_string_equal(fx->out.m[0].title, want);
		if (p < pages) { /* the way back to earlier pages */
			snprintf(want, sizeof(want), "\n\nEarlier: /log %d", p + 1);
			assert_non_null(strstr(text, want));
			*strstr(text, want) = '\0';
		}
		assert_true(strlen(text) <= PLAYLOG_PAGE);
		snprintf(told + len, CAP - len, "%s\n", text);
	}
	/* Every move as the channel saw it; the bot's own opening line is no move. */
	assert_non_null(strstr(shown, "The game begins"));
	assert_string_equal(told, strchr(shown, '\n') + 1);
	/* Bad pages: refused, nothing written. */
	template_prefix(S_ERR_LOG_PAGE, prefix, sizeof(prefix));
	refused("carol", "/log 0", S_ERR_LOG_PAGE);
	refused("carol", "/log two", S_ERR_LOG_PAGE);
	snprintf(want, sizeof(want), "/log %d", pages + 1);
	refused("carol", want, S_ERR_LOG_PAGE);
	snprintf(want, sizeof(want), "the log has %d.", pages);
	assert_true(any_text(want));
	free(shown);
	free(told);
}

static void test_matrix_no_table(void **unused)
{
	(void)unused;
	refused("carol", "/join", S_ERR_NO_TABLE);
	refused("carol", "/leave", S_ERR_NO_TABLE);
	refused("carol", "/addbot", S_ERR_NO_TABLE);
	refused("carol", "/remove bob", S_ERR_NO_TABLE);
	refused("carol", "/start", S_ERR_NO_TABLE);
	refused("carol", "/status", S_ERR_NO_TABLE);
	refused("carol", "/abort", S_ERR_NO_TABLE);
	refused("mod", "/abort", S_ERR_NO_TABLE);
	refused("carol", "/rematch", S_ERR_NO_FINISHED);
	refused("carol", "/curse bob", S_ERR_NO_TABLE);
	refused("carol", "/eye tentacle", S_ERR_NO_TABLE);
	refused("carol", "/respond", S_ERR_NO_TABLE);
	refused("carol", "/open chess", S_ERR_OPEN_OPTION);
	refused("carol", "/language klingon", S_ERR_LANGUAGE);
	accepted("carol", "/help");
	accepted("carol", "/rules");
	accepted("carol", "/leaderboard");
	accepted("carol", "/stats");
	accepted("carol", "/open rival-cults 3 nl");
	assert_int_equal(count("SELECT per_player FROM games"), 3);
	assert_int_equal(count("SELECT count(*) FROM games WHERE lang = 'nl'"), 1);
}

/* One game per channel, many channels at once. */
static void test_channels_are_independent(void **unused)
{
	struct bot_req req = { .server = "s1", .channel = "c2", .user = "bob", .name = "bob" };

	(void)unused;
	lobby();
	msg_clear(&fx->out);
	assert_int_equal(cmd_parse("/open", &req.cmd), CMD_OK);
	bot_handle(fx->bot, &req, fx->now, &fx->out);
	assert_int_equal(fx->out.m[0].kind, MSG_TABLE);
	req.server = "s2";
	req.channel = "c1";
	msg_clear(&fx->out);
	bot_handle(fx->bot, &req, fx->now, &fx->out);
	assert_int_equal(fx->out.m[0].kind, MSG_TABLE);
	assert_int_equal(bot_open_games(fx->bot), 3);
	assert_int_equal(count("SELECT count(*) FROM games WHERE state = 0"), 3);
	refused("carol", "/open", S_ERR_TABLE_EXISTS);
}

static void test_matrix_lobby(void **unused)
{
	(void)unused;
	lobby();
	refused("carol", "/open", S_ERR_TABLE_EXISTS);
	refused("bob", "/join", S_ERR_ALREADY_JOINED);
	refused("carol", "/leave", S_ERR_NOT_MEMBER);
	refused("bob", "/addbot", S_ERR_OWNER_ONLY);
	refused("alice", "/addbot clever", S_ERR_POLICY);
	refused("bob", "/remove alice", S_ERR_OWNER_ONLY);
	refused("alice", "/remove alice", S_ERR_REMOVE_OWNER);
	refused("alice", "/remove zed", S_ERR_NO_SUCH_MEMBER);
	refused("alice", "/remove", S_ERR_USAGE);
	refused("bob", "/start", S_ERR_OWNER_ONLY);
	refused("alice", "/start zed", S_ERR_NO_SUCH_MEMBER);
	refused("bob", "/abort", S_ERR_ABORT_RIGHTS);
	refused("carol", "/abort", S_ERR_ABORT_RIGHTS);
	refused("alice", "/rematch", S_ERR_TABLE_EXISTS);
	refused("alice", "/curse bob", S_ERR_NOT_STARTED);
	refused("bob", "/eye tentacle", S_ERR_NOT_STARTED);
	refused("bob", "/respond", S_ERR_NOT_STARTED);
	accepted("carol", "/status");
	accepted("carol", "/join");
	accepted("carol", "/leave");
	accepted("alice", "/addbot random");
	accepted("alice", "/remove random-bot-1");
	/* Without a policy, a Cthulhu Dice computer plays "heuristic". */
	accepted("alice", "/addbot");
	assert_true(any_text("heuristic-bot-1 (computer, heuristic)"));
	accepted("alice", "/remove heuristic-bot-1");
	accepted("alice", "/remove bob");
	refused("alice", "/start", S_ERR_TOO_FEW);
	assert_int_equal(count("SELECT count(*) FROM members"), 1);
	/* The owner leaves: nobody is left, the lobby closes. */
	accepted("alice", "/leave");
	assert_int_equal(count("SELECT state FROM games"), 3);
	refused("alice", "/status", S_ERR_NO_TABLE);
}

static void test_matrix_lobby_owner_and_moderator(void **unused)
{
	(void)unused;
	lobby();
	/* The owner leaves: ownership passes to the next person. */
	accepted("alice", "/leave");
	assert_int_equal(count("SELECT count(*) FROM games WHERE owner = 'bob'"), 1);
	refused("alice", "/abort", S_ERR_ABORT_RIGHTS);
	accepted("mod", "/abort");
	assert_int_equal(count("SELECT state FROM games"), 3);
	accepted("carol", "/open");
	accepted("carol", "/abort");
	assert_int_equal(count("SELECT count(*) FROM games WHERE state = 3"), 2);
}

static void test_matrix_rival_cults_size(void **unused)
{
	(void)unused;
	accepted("alice", "/open rival-cults");
	accepted("bob", "/join");
	refused("carol", "/join", S_ERR_TABLE_FULL);
	refused("alice", "/addbot", S_ERR_TABLE_FULL);
	accepted("alice", "/start bob");
	/* Seats alternate owners: bob-1 casts first (seat 1). */
	assert_int_equal(count("SELECT first FROM games"), 1);
	assert_true(any_text("bob-1 is the Caster"));
	refused("bob", "/curse bob-1", S_CD_ERR_SELF);
	refused("bob", "/curse alice", S_CD_ERR_WHICH);
	accepted("bob", "/curse bob-2"); /* one's own cultist is a legal victim */
}

static void test_matrix_playing(void **unused)
{
	int64_t id;

	(void)unused;
	playing();
	id = game_id();
	refused("carol", "/join", S_ERR_ALREADY_STARTED);
	refused("alice", "/addbot", S_ERR_ALREADY_STARTED);
	refused("alice", "/remove bob", S_ERR_ALREADY_STARTED);
	refused("alice", "/start", S_ERR_ALREADY_STARTED);
	refused("carol", "/open", S_ERR_TABLE_EXISTS);
	refused("alice", "/rematch", S_ERR_TABLE_EXISTS);
	refused("carol", "/curse bob", S_ERR_NOT_MEMBER);
	refused("bob", "/curse alice", S_CD_ERR_NOT_YOUR_MOVE);
	refused("alice", "/curse alice", S_CD_ERR_SELF);
	refused("alice", "/curse zed", S_CD_ERR_NO_VICTIM);
	refused("alice", "/curse", S_ERR_USAGE);
	refused("alice", "/curse #12", S_CD_ERR_NO_VICTIM);
	refused("alice", "/eye tentacle", S_CD_AWAITS_CURSE);
	refused("alice", "/respond", S_CD_AWAITS_CURSE);
	refused("bob", "/respond", S_CD_ERR_NOT_YOUR_MOVE);
	/* Stale buttons: an old move, another game. */
	click("alice", "/curse #1", id, moves() - 1);
	assert_true(fx->out.n == 1 && fx->out.m[0].kind == MSG_ERROR);
	assert_non_null(strstr(fx->out.m[0].text, i18n_get(I18N_EN, S_ERR_STALE_MOVE)));
	click("alice", "/curse #1", id + 1, moves());
	assert_true(fx->out.n == 1 && fx->out.m[0].kind == MSG_ERROR);
	assert_non_null(strstr(fx->out.m[0].text, i18n_get(I18N_EN, S_ERR_STALE_GAME)));
	/* The current button works. */
	click("alice", "/curse #1", id, moves());
	assert_true(fx->out.n > 0 && fx->out.m[0].kind != MSG_ERROR);
	if (any_text("rolled the Eye"))
		accepted("alice", "/eye cthulhu");
	refused("alice", "/respond", S_CD_ERR_NOT_YOUR_MOVE);
	refused("bob", "/curse alice", S_CD_AWAITS_RESPOND);
	refused("bob", "/eye tentacle", S_CD_AWAITS_RESPOND);
	refused("bob", "/roll", S_CD_AWAITS_RESPOND);
	accepted("bob", "/respond");
	assert_true(any_text("bob responds"));
	accepted("carol", "/status");
}

static void test_matrix_finished_and_rematch(void **unused)
{
	int64_t first_game;
	long winner;

	(void)unused;
	lobby();
	accepted("alice", "/start");
	play_out();
	first_game = game_id();
	assert_int_equal(count("SELECT state FROM games"), 2);
	refused("carol", "/rematch", S_ERR_NOT_MEMBER);
	refused("alice", "/curse bob", S_ERR_NO_TABLE);
	refused("alice", "/abort", S_ERR_NO_TABLE);
	accepted("carol", "/status");
	assert_true(any_text("Game over"));
	winner = count("SELECT winner FROM games");
	accepted("bob", "/rematch");
	assert_true(game_id() == first_game + 1);
	assert_int_equal(count("SELECT series_of FROM games WHERE id = 2"), first_game);
	assert_int_equal(count("SELECT count(*) FROM members WHERE game_id = 2"), 2);
	/* Series play (R2): the previous winner casts first. */
	if (winner >= 0)
		assert_int_equal(count("SELECT first FROM games WHERE id = 2"), winner);
	/* An old game's button is stale now. */
	click("alice", "/curse #1", first_game, 3);
	assert_true(fx->out.n == 1 && fx->out.m[0].kind == MSG_ERROR);
}

/* A restart keeps only the open games: /rematch and the Rematch button bring
 * the channel's finished table back from the store, with its players (the
 * computer one too) and its winner; a channel whose last game was aborted
 * has nothing to rematch. */
static void test_rematch_after_restart(void **unused)
{
	int64_t first_game;
	long winner;

	(void)unused;
	lobby();
	accepted("alice", "/addbot heuristic");
	accepted("alice", "/start");
	play_out();
	first_game = game_id();
	winner = count("SELECT winner FROM games");
	bot_free(fx->bot);
	start_bot(fx);
	refused("carol", "/rematch", S_ERR_NOT_MEMBER);
	accepted("carol", "/status");
	assert_true(any_text("Game over"));
	/* The process stopped between the commit of the last move and its
	 * announcement: the channel still shows a move's buttons. A click on
	 * one shows the end, publicly, as the channel's table; nothing is
	 * written. */
	bot_free(fx->bot);
	start_bot(fx);
	{
		long events = count("SELECT count(*) FROM events");
		int shown = 0;

		click("bob", "/eye tentacle", first_game, 3);
		for (int i = 0; i < fx->out.n; i++)
			shown +=
			    fx->out.m[i].audience == MSG_CHANNEL && fx->out.m[i].kind != MSG_ERROR;
		assert_int_equal(shown, 1);
		assert_true(any_text("Game over"));
		assert_int_equal(count("SELECT count(*) FROM events"), events);
		assert_int_equal(count("SELECT count(*) FROM games"), 1);
	}
	bot_free(fx->bot);
	start_bot(fx);
	click("bob", "/rematch", first_game, 0);
	for (int i = 0; i < fx->out.n; i++)
		if (fx->out.m[i].kind == MSG_ERROR)
			fail_msg("rematch button refused: %s", fx->out.m[i].text);
	assert_true(game_id() == first_game + 1);
	assert_int_equal(count("SELECT series_of FROM games ORDER BY id DESC LIMIT 1"), first_game);
	assert_int_equal(count("SELECT count(*) FROM members WHERE game_id = (SELECT max(id) FROM "
	                       "games) AND policy = 'heuristic'"),
	                 1);
	assert_int_equal(count("SELECT count(*) FROM members WHERE game_id = (SELECT max(id) FROM "
	                       "games)"),
	                 3);
	if (winner >= 0)
		assert_int_equal(count("SELECT first FROM games ORDER BY id DESC LIMIT 1"), winner);
	assert_true(any_text(winner >= 0 ? "the previous winner casts first" : "drawn"));
	/* The rematch is aborted: after a restart there is nothing to rematch. */
	accepted("alice", "/abort");
	bot_free(fx->bot);
	start_bot(fx);
	refused("alice", "/rematch", S_ERR_NO_FINISHED);
	click("alice", "/rematch", first_game, 0);
	assert_true(fx->out.n == 1 && fx->out.m[0].kind == MSG_ERROR);
	assert_int_equal(count("SELECT count(*) FROM games"), 2);
}

/* A lobby nobody touches for 24 hours is closed without a game and the
 * channel told; a finished or aborted table is let go of from memory an
 * hour after its last event, and a rematch brings a finished one back. */
static void test_lobby_expires_and_tables_let_go(void **unused)
{
	char said[128];
	int told = 0;

	(void)unused;
	lobby();
	fx->now += 24 * 3600 * 1000LL - 1;
	msg_clear(&fx->out);
	bot_tick(fx->bot, fx->now, &fx->out);
	assert_int_equal(fx->out.n, 0);
	assert_int_equal(count("SELECT state FROM games"), 0);
	fx->now += 1;
	bot_tick(fx->bot, fx->now, &fx->out);
	assert_int_equal(count("SELECT state FROM games"), 3);
	template_prefix(S_LOBBY_EXPIRED, said, sizeof(said));
	for (int i = 0; i < fx->out.n; i++)
		told += fx->out.m[i].audience == MSG_CHANNEL && strstr(fx->out.m[i].text, said);
	assert_int_equal(told, 1);
	assert_true(bot_tables_kept(fx->bot) == 1);
	refused("alice", "/start", S_ERR_NO_TABLE);
	fx->now += 3600 * 1000LL;
	msg_clear(&fx->out);
	bot_tick(fx->bot, fx->now, &fx->out);
	assert_int_equal(fx->out.n, 0);
	assert_true(bot_tables_kept(fx->bot) == 0);
	/* A finished game: let go of after an hour, back for the rematch. */
	lobby();
	accepted("alice", "/start");
	play_out();
	assert_true(bot_tables_kept(fx->bot) == 1);
	fx->now += 3600 * 1000LL;
	bot_tick(fx->bot, fx->now, &fx->out);
	assert_true(bot_tables_kept(fx->bot) == 0);
	assert_int_equal(bot_next_deadline(fx->bot), 0);
	accepted("bob", "/rematch");
	assert_int_equal(count("SELECT count(*) FROM games WHERE state = 1"), 1);
	assert_true(bot_tables_kept(fx->bot) == 1);
}

/* A human may not join under the name of a computer player at the table;
 * a computer added after a human took its name gets the next number. */
static void test_computer_names_kept_apart(void **unused)
{
	char *name;

	(void)unused;
	accepted("alice", "/open");
	accepted("alice", "/addbot heuristic");
	name = testdb_rows(fx->path, "SELECT name FROM members WHERE policy <> ''");
	assert_string_equal(name, "heuristic-bot-1|\n");
	free(name);
	refused("heuristic-bot-1", "/join", S_ERR_NAME_TAKEN);
	refused("HEURISTIC-BOT-1", "/join", S_ERR_NAME_TAKEN);
	accepted("heuristic-bot-2", "/join");
	accepted("alice", "/addbot heuristic");
	name = testdb_rows(fx->path, "SELECT name FROM members WHERE policy <> '' ORDER BY idx");
	assert_string_equal(name, "heuristic-bot-1|\nheuristic-bot-3|\n");
	free(name);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* A CTHULHU!!! game of three computer players that alice leaves at once,
 * with `per_pass` moves per pass (0: no bound): the stored log, what the
 * channel was told (every public text, the tables' too), the most moves
 * and milliseconds one call took, and the calls. */
struct computer_run {
	char *log, *told, last_table[MSG_TEXT_MAX];
	int tables;
	int most_moves, calls;
	double most_ms;
	char times[512]; /* each call's ms */
};

static void computer_game(int per_pass, struct computer_run *r)
{
	size_t cap = 1 << 22, len = 0;
	int before = 0;

	teardown(NULL);
	open_fixture(7);
	bot_free(fx->bot);
	fx->per_pass = per_pass;
	start_bot(fx);
	memset(r, 0, sizeof(*r));
	r->told = calloc(1, cap);
	assert_non_null(r->told);
	accepted("alice", "/open cthulhu");
	for (int i = 0; i < 3; i++)
		accepted("alice", "/addbot");
	accepted("alice", "/start");
	before = moves();
	for (int call = 0; call < 1000; call++) {
		struct timespec t0;
		double ms;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (call == 0) {
			as("alice", "/leave");
		} else {
			msg_clear(&fx->out);
			fx->now = bot_next_deadline(fx->bot);
			bot_tick(fx->bot, fx->now, &fx->out);
		}
		ms = ms_since(&t0);
		r->calls++;
		if (strlen(r->times) + 16 < sizeof(r->times))
			snprintf(r->times + strlen(r->times), 16, " %.1f", ms);
		if (ms > r->most_ms)
			r->most_ms = ms;
		if (moves() - before > r->most_moves)
			r->most_moves = moves() - before;
		/* committed before it is told: the store holds what was shown */
		if (fx->out.n)
			assert_true(moves() > before || count("SELECT state FROM games") != 1);
		before = moves();
		for (int i = 0; i < fx->out.n; i++) {
			const struct msg *m = &fx->out.m[i];
			if (m->audience != MSG_CHANNEL)
				continue;
			if (m->kind == MSG_TABLE) {
				r->tables++;
				snprintf(r->last_table, sizeof(r->last_table), "%s", m->text);
			}
			len += (size_t)snprintf(r->told + len, cap - len, "%s\n", m->text);
			assert_true(len < cap);
		}
		if (!bot_pending(fx->bot))
			break;
	}
	assert_int_equal(count("SELECT state FROM games"), 2);
	assert_int_equal(bot_pending(fx->bot), 0);
	r->log = testdb_rows(fx->path, "SELECT seq, kind, actor, value FROM events ORDER BY seq");
}

/* One command cannot run a whole game of computer players on the caller's
 * pass: it makes at most moves_per_pass moves and bot_tick plays on, pass
 * by pass, to the same game, every move told, each pass committed before it
 * is told. The longest pass is printed against the unbounded one. */
static void test_computer_moves_bounded_per_pass(void **unused)
{
	struct computer_run whole, bounded;

	(void)unused;
	computer_game(0, &whole);
	computer_game(64, &bounded);
	assert_int_equal(whole.calls, 1);
	assert_true(whole.most_moves > 200);
	assert_true(bounded.most_moves <= 64);
	assert_true(bounded.calls >= whole.most_moves / 64);
	assert_string_equal(whole.log, bounded.log);
	/* The same end shown once; every turn told (the narration of a pass
	 * folds fewer events, so its words may say more than the whole's). */
	assert_int_equal(bounded.tables, 1);
	assert_string_equal(whole.last_table, bounded.last_table);
	assert_true(strlen(bounded.told) >= strlen(whole.told));
	for (const char *p = whole.told; (p = strstr(p, "\nRound ")); p++) {
		char head[64];
		size_t n = strcspn(p + 1, ":\n");
		snprintf(head, sizeof(head), "\n%.*s:", (int)(n < 40 ? n : 40), p + 1);
		if (!strstr(bounded.told, head))
			fail_msg("not told with passes: %s", head + 1);
	}
	print_message("computer game of %d moves: longest pass %.2f ms in one call, %.2f ms in "
	              "%d calls of at most 64 moves (ms:%s)\n",
	              whole.most_moves, whole.most_ms, bounded.most_ms, bounded.calls,
	              bounded.times);
	free(whole.log);
	free(whole.told);
	free(bounded.log);
	free(bounded.told);
}

/* Opens games until alice's opening curse rolls the Eye. */
static void until_alice_rolls_eye(void)
{
	for (int tries = 0; tries < 200; tries++) {
		accepted("alice", "/open");
		accepted("bob", "/join");
		accepted("alice", "/start alice");
		accepted("alice", "/curse bob");
		if (any_text("alice rolled the Eye"))
			return;
		accepted("alice", "/abort");
	}
	fail_msg("no Eye in 200 games");
}

static void test_eye_choice(void **unused)
{
	(void)unused;
	until_alice_rolls_eye();
	refused("alice", "/eye eye", S_CD_ERR_EYE_EYE);
	refused("alice", "/eye purple", S_CD_ERR_FACE);
	refused("alice", "/eye", S_CD_ERR_FACE);
	refused("bob", "/eye tentacle", S_CD_ERR_NOT_YOUR_MOVE);
	refused("bob", "/respond", S_CD_ERR_NOT_YOUR_MOVE);
	accepted("alice", "/eye Tentakel"); /* Dutch face names work too */
	assert_true(any_text("The Eye becomes: Tentacle."));
	assert_true(any_text("alice takes 1 sanity from bob."));
}

/* R4 at the table: a mad cultist is not a legal victim. */
static void test_mad_victim_refused(void **unused)
{
	(void)unused;
	for (int game = 0; game < 50; game++) {
		accepted("alice", "/open");
		accepted("bob", "/join");
		accepted("alice", "/addbot random");
		accepted("alice", "/start alice");
		for (int step = 0; step < 400; step++) {
			if (count("SELECT state FROM games ORDER BY id DESC LIMIT 1") != 1)
				break;
			as("alice", "/status");
			if (any_text("alice is the Caster") &&
			    (strstr(fx->out.m[0].fields[1].value, "mad") ||
			     strstr(fx->out.m[0].fields[2].value, "mad"))) {
				const char *mad = strstr(fx->out.m[0].fields[1].value, "mad")
				                      ? "bob"
				                      : "random-bot-1";
				refused("alice",
				        strcmp(mad, "bob") ? "/curse random-bot-1" : "/curse bob",
				        S_CD_ERR_MAD);
				return;
			}
			as("alice", "/curse #1");
			if (fx->out.m[0].kind == MSG_ERROR)
				as("alice", "/curse #2");
			if (fx->out.m[0].kind == MSG_ERROR)
				as("alice", "/eye yellow-sign");
			if (fx->out.m[0].kind == MSG_ERROR)
				as("bob", "/respond");
			if (fx->out.m[0].kind == MSG_ERROR)
				as("bob", "/eye yellow-sign");
			if (fx->out.m[0].kind == MSG_ERROR)
				as("bob", "/curse #2");
			if (fx->out.m[0].kind == MSG_ERROR)
				as("bob", "/curse #0");
		}
		if (count("SELECT state FROM games ORDER BY id DESC LIMIT 1") == 1)
			accepted("alice", "/abort");
	}
	fail_msg("never saw a mad cultist at alice's turn");
}

/* Ticks the clock to the next deadline, past the reminder before it;
 * returns the messages' count. */
static int tick_to_deadline(struct msg_list *out)
{
	for (int i = 0; i < 3; i++) {
		fx->now = bot_next_deadline(fx->bot);
		assert_true(fx->now > 0);
		msg_clear(out);
		bot_tick(fx->bot, fx->now, out);
		if (!(out->n == 1 && out->m[0].call.reminder))
			return out->n;
	}
	fail_msg("only reminders, no timeout");
	return 0;
}

static long last_game_count(const char *what)
{
	char sql[256];

	snprintf(sql, sizeof(sql), "%s AND game_id = (SELECT max(id) FROM games)", what);
	return count(sql);
}

#define STRIKES                                                                                    \
	"SELECT strikes FROM members WHERE idx = 0 AND game_id = (SELECT max(id) FROM games)"

static void test_timeouts(void **unused)
{
	struct msg_list out = { 0 };
	long before, strikes;

	(void)unused;
	lobby();
	accepted("alice", "/start alice");
	/* Alice is reminded when a quarter of the timeout is left. */
	assert_int_equal(bot_next_deadline(fx->bot), T0 + TIMEOUT - TIMEOUT / 4);
	assert_int_equal(count("SELECT deadline FROM games"), T0 + TIMEOUT);
	bot_tick(fx->bot, T0 + TIMEOUT - 1, &out);
	assert_int_equal(out.n, 1);
	assert_int_equal(out.m[0].call.reminder, 1);
	assert_int_equal(moves(), 0);
	/* Alice idles: the computer curses for her and the table is told. */
	assert_true(tick_to_deadline(&out) > 0);
	assert_non_null(strstr(out.m[0].text, "alice took too long"));
	assert_true(moves() >= 2); /* the victim and the curse's roll */
	assert_int_equal(count("SELECT strikes FROM members WHERE idx = 0"), 1);
	assert_int_equal(count("SELECT count(*) FROM events WHERE kind = 'timeout'"), 1);
	/* When she next acts herself, her strikes start again from 0. */
	for (int i = 0; i < 20 && count("SELECT state FROM games") == 1; i++) {
		as("alice", "/respond");
		if (fx->out.m[0].kind == MSG_ERROR)
			as("alice", "/eye yellow-sign");
		if (fx->out.m[0].kind == MSG_ERROR)
			as("alice", "/curse bob");
		if (fx->out.m[0].kind != MSG_ERROR)
			break;
		tick_to_deadline(&out);
	}
	assert_int_equal(count("SELECT strikes FROM members WHERE idx = 0"), 0);
	/* Nobody acts any more: three timeouts of alice's in a row put her
	 * seat on autopilot (a finished game is played again). */
	for (int i = 0; i < 200 && last_game_count("SELECT count(*) FROM events WHERE kind = "
	                                           "'autopilot' AND actor = 0") == 0;
	     i++) {
		if (count("SELECT state FROM games ORDER BY id DESC LIMIT 1") != 1) {
			accepted("alice", "/rematch");
			continue;
		}
		before = last_game_count("SELECT count(*) FROM events WHERE kind = 'timeout' AND "
		                         "actor = 0");
		strikes = count(STRIKES);
		tick_to_deadline(&out);
		if (last_game_count("SELECT count(*) FROM events WHERE kind = 'timeout' AND "
		                    "actor = 0") == before + 1)
			assert_int_equal(count(STRIKES), strikes + 1);
	}
	assert_int_equal(last_game_count("SELECT count(*) FROM events WHERE kind = 'autopilot' "
	                                 "AND actor = 0"),
	                 1);
	assert_int_equal(last_game_count("SELECT count(*) FROM events WHERE kind = 'timeout' "
	                                 "AND actor = 0"),
	                 3);
	for (int i = 0; i < out.n; i++)
		if (strstr(out.m[i].text, "alice timed out three times in a row"))
			before = -100;
	assert_int_equal(before, -100);
	if (count("SELECT state FROM games ORDER BY id DESC LIMIT 1") == 1) {
		assert_int_equal(count("SELECT autopilot FROM members WHERE idx = 0 AND game_id = "
		                       "(SELECT max(id) FROM games)"),
		                 1);
		/* Any command of hers takes the seat back. */
		as("alice", "/status");
		assert_true(any_text("alice is back"));
		assert_int_equal(count("SELECT autopilot FROM members WHERE idx = 0 AND game_id = "
		                       "(SELECT max(id) FROM games)"),
		                 0);
	}
	msg_free(&out);
}

/* The table message of out (the last), or NULL. */
static const struct msg *table_of(const struct msg_list *out)
{
	for (int i = out->n - 1; i >= 0; i--)
		if (out->m[i].kind == MSG_TABLE && out->m[i].audience == MSG_CHANNEL)
			return &out->m[i];
	return NULL;
}

/* Calling the player: the table calls the human it waits for, never a
 * computer seat or a player on autopilot; one reminder per move when a
 * quarter of the timeout is left, nothing written; /notify off stops both,
 * is kept with the player and refused with a clear message for a bad word. */
static void test_calls(void **unused)
{
	struct msg_list out = { 0 };
	const struct msg *t;
	char *before, *after;

	(void)unused;
	lobby();
	t = table_of(&fx->out);
	assert_non_null(t);
	assert_string_equal(t->call.user, ""); /* a lobby calls nobody */
	accepted("alice", "/addbot heuristic");
	accepted("alice", "/start alice");
	t = table_of(&fx->out);
	assert_non_null(t);
	assert_string_equal(t->call.user, "alice");
	assert_string_equal(t->call.name, "alice");
	assert_string_equal(
	    t->call.text,
	    " \xe2\x80\x94 The table waits for you to curse a Victim: /curse <victim>.");
	assert_int_equal(t->call.reminder, 0);
	/* /status is private and calls nobody. */
	as("bob", "/status");
	assert_int_equal(fx->out.n, 1);
	assert_string_equal(fx->out.m[0].call.user, "");
	/* The reminder: the table again, calling alice, with the time left. */
	before = dump();
	fx->now = bot_next_deadline(fx->bot);
	assert_int_equal(fx->now, T0 + TIMEOUT - TIMEOUT / 4);
	bot_tick(fx->bot, fx->now, &out);
	assert_int_equal(out.n, 1);
	assert_int_equal(out.m[0].kind, MSG_TABLE);
	assert_int_equal(out.m[0].audience, MSG_CHANNEL);
	assert_string_equal(out.m[0].call.user, "alice");
	assert_int_equal(out.m[0].call.reminder, 1);
	assert_non_null(strstr(out.m[0].call.text, "15 s left"));
	assert_true(out.m[0].nbuttons > 0);
	after = dump();
	assert_string_equal(before, after); /* nothing written */
	free(before);
	free(after);
	/* Once per move: the next wake-up is the deadline itself. */
	assert_int_equal(bot_next_deadline(fx->bot), T0 + TIMEOUT);
	msg_clear(&out);
	bot_tick(fx->bot, T0 + TIMEOUT - 1, &out);
	assert_int_equal(out.n, 0);
	/* A refused /notify changes nothing; off is kept with the player. */
	refused("alice", "/notify maybe", S_ERR_NOTIFY);
	refused("alice", "/notify", S_ERR_NOTIFY);
	accepted("alice", "/notify off");
	assert_int_equal(count("SELECT notify FROM players WHERE id = 'alice'"), 0);
	assert_int_equal(fx->out.m[0].audience, MSG_PRIVATE);
	/* Her move (whichever it is) is made by a timeout: she is not called. */
	fx->now = T0 + TIMEOUT;
	msg_clear(&out);
	bot_tick(fx->bot, fx->now, &out);
	assert_true(out.n > 0);
	for (int i = 0; i < out.n; i++)
		assert_string_not_equal(out.m[i].call.user, "alice");
	/* Nor reminded: whatever is awaited next, no reminder comes for her. */
	for (int i = 0; i < 10 && count("SELECT state FROM games") == 1; i++) {
		int64_t next = bot_next_deadline(fx->bot);
		if (!next)
			break;
		fx->now = next;
		msg_clear(&out);
		bot_tick(fx->bot, fx->now, &out);
		for (int k = 0; k < out.n; k++) {
			/* bob, who did not turn calls off, is called and reminded */
			assert_string_not_equal(out.m[k].call.user, "alice");
		}
	}
	accepted("alice", "/notify aan");
	assert_int_equal(count("SELECT notify FROM players WHERE id = 'alice'"), 1);
	msg_free(&out);
}

/* Bob on autopilot and computer seats are never called. */
static void test_calls_skip_computers(void **unused)
{
	const struct msg *t;

	(void)unused;
	lobby();
	accepted("alice", "/addbot heuristic");
	accepted("alice", "/start bob");
	accepted("bob", "/leave"); /* his seat is played by the computer now */
	for (int i = 0; i < 40 && count("SELECT state FROM games") == 1; i++) {
		t = table_of(&fx->out);
		assert_non_null(t);
		assert_string_not_equal(t->call.user, "bob");
		assert_string_not_equal(t->call.user, "heuristic-bot-1");
		if (t->call.user[0])
			assert_string_equal(t->call.user, "alice");
		as("alice", "/curse #1");
		if (fx->out.m[0].kind == MSG_ERROR)
			as("alice", "/respond");
		if (fx->out.m[0].kind == MSG_ERROR)
			as("alice", "/eye yellow-sign");
		if (fx->out.m[0].kind == MSG_ERROR)
			as("alice", "/curse #2");
		if (fx->out.m[0].kind == MSG_ERROR)
			break;
	}
	assert_true(count("SELECT moves FROM games") > 0);
}

/* /hint: privately, to the player whose move it is, each option with its
 * chance of winning (from the solved table); refused to the others;
 * nothing is written. */
static void test_hint(void **unused)
{
	char *before, *after;

	(void)unused;
	cdsolvecache_install();
	playing();
	before = dump();
	as("alice", "/hint");
	assert_int_equal(fx->out.n, 1);
	assert_int_equal(fx->out.m[0].kind, MSG_INFO);
	assert_int_equal(fx->out.m[0].audience, MSG_PRIVATE);
	assert_string_equal(fx->out.m[0].user, "alice");
	/* alice casts: the victims, bob among them, each with a chance */
	assert_non_null(strstr(fx->out.m[0].text, "bob "));
	assert_non_null(strstr(fx->out.m[0].text, "%"));
	assert_non_null(strstr(fx->out.m[0].text, "best: "));
	/* and the options the equilibrium plays: with their probabilities
	 * when it mixes at this position (3 cultists, the opening cast, the
	 * same from every seat), else the one it always plays */
	{
		const struct cdsolve_table *t = cdsolve_provided(3, 0);
		struct game_setup setup = { .players = 3 };
		struct game_step step;
		double p[GAME_MAX_OPTIONS];
		struct cdice g;
		int used = 0;
		assert_non_null(t);
		assert_int_equal(cdice_init(&g, &setup), GAME_OK);
		cdice_step(&g, &step);
		assert_true(cdsolve_options(t, &g, &step, NULL, p) >= 0);
		for (int k = 0; k < step.count; k++)
			used += p[k] >= 0.0005;
		if (used == 1) {
			assert_non_null(
			    strstr(fx->out.m[0].text, " The equilibrium always plays "));
		} else {
			const char *mix = strstr(fx->out.m[0].text, " The equilibrium plays ");
			assert_non_null(mix);
			assert_non_null(strstr(mix, "%."));
		}
		print_message("%s\n", fx->out.m[0].text);
	}
	refused("bob", "/hint", S_CD_ERR_NOT_YOUR_MOVE);
	refused("carol", "/hint", S_ERR_NOT_MEMBER);
	after = dump();
	assert_string_equal(before, after);
	/* bob as the Victim (unless alice rolled an Eye): the chance now */
	accepted("alice", "/curse bob");
	as("bob", "/hint");
	if (fx->out.m[0].kind == MSG_INFO)
		assert_non_null(strstr(fx->out.m[0].text, "chance of winning now"));
	cdsolve_set_provider(NULL);
	free(before);
	free(after);
}

static struct cdsolve_table *hint_four;

/* Hands out hint_four for 4 cultists, nothing else. */
static const struct cdsolve_table *four_provider(int n, int per_player)
{
	return n == 4 && !per_player ? hint_four : NULL;
}

/* /hint where the table is not an exact equilibrium (4 cultists: the logit
 * profile, docs/cli.md) calls the mix the solver's, never the
 * equilibrium's; the chances and the best option are there as at 3. */
static void test_hint_solver(void **unused)
{
	const char *text;

	(void)unused;
	hint_four = cdsolve_build(4, 0, CDSOLVE_PERFECT);
	assert_non_null(hint_four);
	assert_int_equal(cdsolve_stats(hint_four)->polished, 0);
	cdsolve_set_provider(four_provider);
	lobby();
	accepted("alice", "/addbot heuristic");
	accepted("alice", "/addbot heuristic");
	accepted("alice", "/start alice");
	as("alice", "/hint");
	assert_int_equal(fx->out.n, 1);
	assert_int_equal(fx->out.m[0].kind, MSG_INFO);
	text = fx->out.m[0].text;
	print_message("%s\n", text);
	assert_non_null(strstr(text, "bob "));
	assert_non_null(strstr(text, "best: "));
	assert_true(strstr(text, " The solver plays ") ||
	            strstr(text, " The solver always plays "));
	assert_null(strstr(text, "equilibrium"));
	cdsolve_set_provider(NULL);
	cdsolve_free(hint_four);
	hint_four = NULL;
}

/* The game of a channel's table, for /addbot's choices: the default game
 * without a table (or after it closed), else the table's. */
static void test_channel_game(void **unused)
{
	(void)unused;
	assert_string_equal(bot_channel_game(fx->bot, "s1", "c1"), "cthulhu-dice");
	accepted("alice", "/open elder-signs");
	assert_string_equal(bot_channel_game(fx->bot, "s1", "c1"), "elder-signs");
	assert_string_equal(bot_channel_game(fx->bot, "s1", "c2"), "cthulhu-dice");
	assert_string_equal(bot_channel_game(fx->bot, "s2", "c1"), "cthulhu-dice");
	accepted("alice", "/abort");
	assert_string_equal(bot_channel_game(fx->bot, "s1", "c1"), "cthulhu-dice");
}

/* A name kept with a platform's escapes (Discord's "\_x\_" for "_x_") is
 * named by typing it as it shows, or as kept. */
static void test_escaped_name_typed(void **unused)
{
	struct bot_req req = {
		.server = "s1", .channel = "c1", .user = "u9", .name = "\\_x\\_", .locale = "en"
	};

	(void)unused;
	assert_true(text_name_is("\\*A\\*", "*a*"));
	assert_true(text_name_is("\\*A\\*", "\\*a\\*"));
	assert_false(text_name_is("\\*A\\*", "*a"));
	assert_false(text_name_is("a\\b", "ab")); /* before a letter: not an escape */
	assert_false(text_name_is("ab", "a\\b"));
	accepted("alice", "/open");
	assert_int_equal(cmd_parse("/join", &req.cmd), CMD_OK);
	msg_clear(&fx->out);
	bot_handle(fx->bot, &req, fx->now, &fx->out);
	assert_true(fx->out.n > 0 && fx->out.m[0].kind != MSG_ERROR);
	accepted("alice", "/start alice");
	accepted("alice", "/curse _X_");
	assert_true(any_text("\\_x\\_"));
}

/* A server (background mode) answers the first /hint at a 3-cultist table
 * with the analysis: a table that small is solved at once, never left to a
 * thread while the player is told to wait. */
static void test_first_hint_at_once(void **unused)
{
	(void)unused;
	cdsolvecache_clear();
	cdsolvecache_install();
	cdsolvecache_background();
	playing();
	as("alice", "/hint");
	assert_int_equal(fx->out.n, 1);
	assert_int_equal(fx->out.m[0].kind, MSG_INFO);
	assert_non_null(strstr(fx->out.m[0].text, "best: "));
	assert_null(strstr(fx->out.m[0].text, i18n_get(I18N_EN, S_HINT_NOT_READY)));
	assert_int_equal(cdsolvecache_pending(3, 0), 0);
	cdsolve_set_provider(NULL);
	cdsolvecache_clear();
}

/* Beyond 6 cultists solver has no table: the table is told at the start
 * that it plays as heuristic; at 6 it is not. */
static void test_solver_fallback_said(void **unused)
{
	(void)unused;
	accepted("alice", "/open");
	for (int i = 0; i < 5; i++)
		accepted("alice", "/addbot solver");
	accepted("alice", "/start alice");
	assert_false(any_text("plays as heuristic: the solver has no analysis"));
	accepted("alice", "/abort");
	accepted("alice", "/open");
	for (int i = 0; i < 6; i++)
		accepted("alice", "/addbot solver");
	accepted("alice", "/start alice");
	assert_true(any_text("solver-bot-1 plays as heuristic: the solver has no analysis"));
}

static long file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n = -1;

	if (f && fseek(f, 0, SEEK_END) == 0)
		n = ftell(f);
	if (f)
		fclose(f);
	return n;
}

/* Solved tables are kept as files in the cache directory: written when
 * solved, read back as the same table, and a file that is not a table is
 * replaced by a good one. */
static void test_solver_tables_kept_on_disk(void **unused)
{
	char path[160];
	const struct cdsolve_table *t;
	struct cdsolve_table *back;
	FILE *f;
	char *buf;
	long len;

	(void)unused;
	cdsolvecache_set_dir(fx->dir);
	t = cdsolvecache_get(2, 0);
	assert_non_null(t);
	snprintf(path, sizeof(path), "%s/solve-2-0.bin", fx->dir);
	len = file_size(path);
	assert_true(len > 0);
	assert_int_equal((size_t)len, cdsolve_image_size(t));
	buf = malloc((size_t)len);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	back = cdsolve_image_read(buf, (size_t)len, 2, 0);
	assert_non_null(back);
	assert_int_equal(cdsolve_stats(back)->states, cdsolve_stats(t)->states);
	cdsolve_free(back);
	free(buf);

	snprintf(path, sizeof(path), "%s/solve-4-2.bin", fx->dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	fputs("not a table", f);
	fclose(f);
	t = cdsolvecache_get(4, 2);
	assert_non_null(t);
	assert_int_equal((size_t)file_size(path), cdsolve_image_size(t));
	cdsolvecache_set_dir(NULL);
}

/* A server solves a large table (5 cultists) off its event loop: until it
 * is ready the cache answers NULL and says it is under way (the solver
 * policy plays heuristic, /hint asks to wait). Once kept on disk, the
 * table is read at once, with nothing under way. */
static void test_solver_table_in_background(void **unused)
{
	const struct cdsolve_table *t;

	(void)unused;
	cdsolvecache_clear();
	cdsolvecache_set_dir(fx->dir);
	cdsolvecache_install();
	cdsolvecache_background();
	lobby();
	for (int i = 0; i < 3; i++)
		accepted("alice", "/addbot heuristic");
	accepted("alice", "/start alice");
	as("alice", "/hint");
	assert_int_equal(fx->out.n, 1);
	assert_non_null(strstr(fx->out.m[0].text, i18n_get(I18N_EN, S_HINT_NOT_READY)));
	assert_int_equal(cdsolvecache_pending(5, 0), 1);
	t = cdsolvecache_get(5, 0);
	for (int i = 0; i < 6000 && !t; i++) {
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
		t = cdsolvecache_get(5, 0);
	}
	assert_non_null(t);
	assert_int_equal(cdsolvecache_pending(5, 0), 0);
	cdsolvecache_clear();
	cdsolvecache_background();
	assert_non_null(cdsolvecache_get(5, 0));
	assert_int_equal(cdsolvecache_pending(5, 0), 0);
	as("alice", "/hint");
	assert_non_null(strstr(fx->out.m[0].text, "best: "));
	cdsolve_set_provider(NULL);
	cdsolvecache_set_dir(NULL);
	cdsolvecache_clear();
}

static void test_storage_failure_changes_nothing(void **unused)
{
	char *before, *after, status_before[MSG_TEXT_MAX];

	(void)unused;
	playing();
	as("alice", "/status");
	snprintf(status_before, sizeof(status_before), "%s", fx->out.m[0].text);
	before = dump();
	store_fail_after(fx->st, 0);
	as("alice", "/curse bob");
	assert_int_equal(fx->out.n, 1);
	assert_int_equal(fx->out.m[0].kind, MSG_ERROR);
	assert_non_null(strstr(fx->out.m[0].text, i18n_get(I18N_EN, S_ERR_STORAGE)));
	store_fail_after(fx->st, -1);
	after = dump();
	assert_string_equal(before, after);
	/* Nothing was announced and the table is as it was. */
	as("alice", "/status");
	assert_string_equal(fx->out.m[0].text, status_before);
	accepted("alice", "/curse bob");
	assert_true(moves() > 0);
	free(before);
	free(after);
}

/* Group commit: a batch's commands are committed together; when the commit
 * fails, the database and every table, changed or created in the batch,
 * are as they were before it, and each command gets the storage refusal. */
static void test_batch_commit_failure_undoes_the_batch(void **unused)
{
	struct bot_req req = {
		.server = "s1", .channel = "c2", .user = "bob", .name = "bob", .locale = "en"
	};
	char *before, *after, status_before[MSG_TEXT_MAX];
	int moves_before;

	(void)unused;
	playing();
	as("alice", "/status");
	snprintf(status_before, sizeof(status_before), "%s", fx->out.m[0].text);
	moves_before = moves();
	before = dump();
	assert_int_equal(cmd_parse("/open", &req.cmd), CMD_OK);

	bot_batch_begin(fx->bot);
	as("alice", "/curse bob");
	assert_true(fx->out.n > 0);
	assert_int_not_equal(fx->out.m[0].kind, MSG_ERROR);
	msg_clear(&fx->out);
	bot_handle(fx->bot, &req, fx->now, &fx->out);
	assert_int_equal(fx->out.m[0].kind, MSG_TABLE);
	assert_int_equal(bot_open_games(fx->bot), 2);
	store_fail_after(fx->st, 0);
	assert_int_equal(bot_batch_end(fx->bot), -1);
	store_fail_after(fx->st, -1);

	after = dump();
	assert_string_equal(before, after);
	assert_int_equal(bot_open_games(fx->bot), 1);
	assert_int_equal(bot_store_errors(fx->bot), 1);
	as("alice", "/status");
	assert_string_equal(fx->out.m[0].text, status_before);
	msg_clear(&fx->out);
	bot_batch_refusal(fx->bot, &req, &fx->out);
	assert_int_equal(fx->out.n, 1);
	assert_int_equal(fx->out.m[0].kind, MSG_ERROR);
	assert_int_equal(fx->out.m[0].audience, MSG_PRIVATE);
	assert_non_null(strstr(fx->out.m[0].text, i18n_get(I18N_EN, S_ERR_STORAGE)));

	/* The same batch, committed: both commands are stored. */
	bot_batch_begin(fx->bot);
	as("alice", "/curse bob");
	msg_clear(&fx->out);
	bot_handle(fx->bot, &req, fx->now, &fx->out);
	assert_int_equal(bot_batch_end(fx->bot), 0);
	assert_true(count("SELECT moves FROM games WHERE channel = 'c1'") > moves_before);
	assert_int_equal(count("SELECT count(*) FROM games WHERE state IN (0, 1)"), 2);
	assert_int_equal(bot_open_games(fx->bot), 2);
	free(before);
	free(after);
}

/* A command refused inside a batch leaves the batch's other writes alone. */
static void test_batch_refusal_keeps_the_others(void **unused)
{
	(void)unused;
	playing();
	bot_batch_begin(fx->bot);
	as("alice", "/curse bob");
	assert_int_not_equal(fx->out.m[0].kind, MSG_ERROR);
	store_fail_after(fx->st, 0);
	as("alice", "/leave");
	assert_int_equal(fx->out.m[0].kind, MSG_ERROR);
	store_fail_after(fx->st, -1);
	assert_int_equal(bot_batch_end(fx->bot), 0);
	assert_true(moves() > 0);
	assert_int_equal(count("SELECT count(*) FROM games WHERE state = 1"), 1);
}

/* Drops the bot and the store as a killed process would (everything said
 * was committed) and starts again from the database. */
static void restart(void)
{
	char err[128];

	bot_free(fx->bot);
	store_close(fx->st);
	if (store_open(fx->path, &fx->st, err, sizeof(err)))
		fail_msg("reopen: %s", err);
	start_bot(fx);
}

/* The same commands give the same game whether or not the bot restarts in
 * the middle. */
static void restart_scenario(int restart_at, char **result)
{
	static const char *const script[][2] = {
		{ "alice", "/open" },          { "bob", "/join" },
		{ "alice", "/addbot random" }, { "alice", "/start alice" },
		{ "alice", "/curse bob" },
	};
	int step = 0;

	open_fixture(99);
	for (size_t i = 0; i < sizeof(script) / sizeof(script[0]); i++, step++) {
		if (step == restart_at)
			restart();
		as(script[i][0], script[i][1]);
	}
	for (int round = 0; round < 300; round++, step++) {
		if (step == restart_at)
			restart();
		if (count("SELECT state FROM games") != 1)
			break;
		as("alice", "/eye cthulhu");
		as("bob", "/eye cthulhu");
		as("bob", "/respond");
		as("alice", "/respond");
		as("alice", "/curse #1");
		as("alice", "/curse #2");
		as("bob", "/curse #2");
		as("bob", "/curse #0");
	}
	assert_int_equal(count("SELECT state FROM games"), 2);
	*result = dump();
	teardown(NULL);
}

static void test_restart_mid_game_same_result(void **unused)
{
	char *straight, *restarted;

	(void)unused;
	teardown(NULL);
	restart_scenario(-1, &straight);
	for (int at = 3; at < 12; at += 4) {
		restart_scenario(at, &restarted);
		assert_string_equal(straight, restarted);
		free(restarted);
	}
	free(straight);
	setup(NULL);
}

static void test_languages(void **unused)
{
	struct bot_req req = {
		.server = "s1", .channel = "c1", .user = "bob", .name = "bob", .locale = "nl-NL"
	};

	(void)unused;
	/* A chosen language wins over the platform's locale. */
	accepted("alice", "/language nl");
	assert_true(any_text("Nederlands"));
	as("alice", "/join");
	assert_non_null(strstr(fx->out.m[0].text, i18n_get(I18N_NL, S_ERR_NO_TABLE)));
	/* A table opened in Dutch tells its events in Dutch... */
	accepted("alice", "/open nl");
	assert_true(any_text("Er is een tafel geopend"));
	accepted("carol", "/join");
	accepted("alice", "/start alice");
	accepted("alice", "/curse carol");
	assert_true(any_text("Beurt 1: alice vervloekt carol."));
	/* ...while carol's private errors follow her locale (English here). */
	refused("carol", "/curse alice", S_CD_AWAITS_RESPOND);
	/* A platform locale of nl-NL answers in Dutch. */
	msg_clear(&fx->out);
	assert_int_equal(cmd_parse("/join", &req.cmd), CMD_OK);
	bot_handle(fx->bot, &req, fx->now, &fx->out);
	assert_non_null(strstr(fx->out.m[0].text, i18n_get(I18N_NL, S_ERR_ALREADY_STARTED)));
}

static void test_leaderboard_and_stats(void **unused)
{
	(void)unused;
	for (int game = 0; game < 3; game++) {
		if (game == 0)
			lobby();
		else
			accepted("alice", "/rematch");
		if (game == 0)
			accepted("alice", "/start");
		if (game == 1) {
			accepted("alice", "/leaderboard");
			assert_true(any_text("Nobody is ranked yet: it takes 3 finished games."));
			assert_true(any_text("Not ranked yet (fewer than 3 games): 2 players."));
		}
		play_out();
	}
	assert_int_equal(count("SELECT count(*) FROM games WHERE state = 2"), 3);
	/* Each end rated its game: alice's and bob's rows in 2 scopes and 4
	 * periods, equal to a replay of the games. */
	assert_int_equal(count("SELECT count(*) FROM games WHERE rated > 0"), 3);
	assert_int_equal(count("SELECT count(*) FROM ratings WHERE games = 3"), 16);
	{
		struct bot_req req = {
			.server = "s1", .channel = "c1", .user = "carol", .name = "carol"
		};
		char stored[2048], replay[2048];
		struct text a, b;
		assert_int_equal(cmd_parse("/leaderboard", &req.cmd), CMD_OK);
		text_init(&a, stored, sizeof(stored));
		text_init(&b, replay, sizeof(replay));
		assert_int_equal(records_answer(fx->st, &req, fx->now, 3, I18N_EN, "cthulhu-dice",
		                                NULL, 0, RECORDS_STORED, &a),
		                 0);
		assert_int_equal(records_answer(fx->st, &req, fx->now, 3, I18N_EN, "cthulhu-dice",
		                                NULL, 0, RECORDS_REBUILD, &b),
		                 0);
		assert_non_null(strstr(stored, "2. "));
		assert_string_equal(stored, replay);
	}
	accepted("carol", "/leaderboard");
	assert_true(any_text("Leaderboard of this server, all time (cthulhu-dice):"));
	assert_true(any_text("1. "));
	assert_true(any_text("2. "));
	assert_true(any_text("3 games ·"));
	accepted("carol", "/leaderboard all week");
	assert_true(
	    any_text("Leaderboard of all servers, this week (since Monday, UTC) (cthulhu-dice):"));
	accepted("carol", "/stats alice");
	assert_true(any_text("alice on this server, all time (cthulhu-dice):"));
	assert_true(any_text("rank "));
	accepted("alice", "/stats");
	assert_true(any_text("alice on this server"));
	accepted("carol", "/stats");
	assert_true(any_text("No finished games for \"carol\"."));
	accepted("carol", "/leaderboard sideways");
	assert_true(any_text("Usage: /leaderboard"));
}

/* ---- Elder Signs ---- */

/* The table message among the replies; NULL when none. */
static const struct msg *table_msg(void)
{
	for (int i = fx->out.n - 1; i >= 0; i--)
		if (fx->out.m[i].kind == MSG_TABLE)
			return &fx->out.m[i];
	return NULL;
}

/* Asserts that the table offers exactly the buttons ids[0..n-1] (after
 * "<game>:<move>:") for the current move. */
static void buttons_are(const char *const *ids, int n)
{
	const struct msg *t = table_msg();
	char want[MSG_BUTTON_ID];

	assert_non_null(t);
	assert_int_equal(t->nbuttons, n);
	for (int i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "%lld:%d:%s", (long long)game_id(), moves(), ids[i]);
		assert_string_equal(t->buttons[i].id, want);
	}
}

static void test_elder_signs_game(void **unused)
{
	static const char *const decide[] = { "roll", "retreat" };
	static const char *const over[] = { "rematch" };
	int sent = 0;

	(void)unused;
	accepted("alice", "/open elder-signs");
	assert_true(any_text("Game: elder-signs"));
	refused("alice", "/addbot heuristic", S_ERR_POLICY);
	as("alice", "/addbot heuristic");
	assert_non_null(strstr(fx->out.m[0].text, "Choose greedy-2 or expect or ev or best."));
	accepted("alice", "/addbot");
	assert_int_equal(count("SELECT count(*) FROM members WHERE policy = 'expect'"), 1);
	refused("bob", "/roll", S_ERR_NOT_STARTED);
	accepted("alice", "/start alice");
	assert_true(any_text("The game begins: alice opens every round."));
	assert_true(any_text("Round 1, turn 1: alice plays."));
	assert_true(any_text("alice: /roll to roll again ("));
	assert_string_equal(table_msg()->fields[2].name, "Clue dice in hand");
	assert_string_equal(table_msg()->fields[5].name, "The bag");
	buttons_are(decide, 2);
	refused("bob", "/roll", S_ERR_NOT_MEMBER);
	refused("alice", "/curse expect-bot-1", S_ES_AWAITS);
	assert_true(any_text("The table waits for you to roll again or retreat: /roll ("));
	refused("alice", "/retreat now", S_ERR_USAGE);
	/* A button of the move before is stale; the current one plays. */
	click("alice", "/roll", game_id(), moves() - 1);
	assert_int_equal(fx->out.m[0].kind, MSG_ERROR);
	assert_true(any_text("That button belongs to an earlier move."));
	while (count("SELECT state FROM games") == 1) {
		assert_true(sent < 500);
		click("alice", sent % 3 == 2 ? "/retreat" : "/roll", game_id(), moves());
		assert_int_not_equal(fx->out.m[0].kind, MSG_ERROR);
		sent++;
		if (count("SELECT state FROM games") == 1)
			buttons_are(decide, 2);
	}
	buttons_are(over, 1);
	assert_true(any_text("Game over: "));
	refused("alice", "/roll", S_ERR_NO_TABLE);
	/* The store has the finished game, its moves and its end. */
	assert_int_equal(
	    count("SELECT count(*) FROM games WHERE game = 'elder-signs' AND state = 2 "
	          "AND winner >= 0"),
	    1);
	assert_int_equal(count("SELECT count(*) FROM events WHERE kind = 'end'"), 1);
	assert_int_equal(count("SELECT count(*) FROM events WHERE kind = 'choice' AND actor = 0"),
	                 sent);
	assert_true(count("SELECT count(*) FROM events WHERE kind = 'choice' AND actor = 1") > 0);
	assert_true(count("SELECT count(*) FROM events WHERE kind = 'roll'") > 6 * sent);
	assert_int_equal(count("SELECT count(*) FROM events WHERE kind IN ('roll', 'choice')"),
	                 moves());
	assert_int_equal(count("SELECT count(*) FROM members WHERE place = 0"), 1);
	/* The leaderboard is the table's game unless another is named. */
	accepted("carol", "/leaderboard");
	assert_true(any_text("Leaderboard of this server, all time (elder-signs):"));
	assert_true(any_text("Not ranked yet (fewer than 3 games): 1 player."));
	accepted("carol", "/leaderboard cthulhu-dice");
	assert_true(any_text("Leaderboard of this server, all time (cthulhu-dice):"));
	assert_false(any_text("Not ranked yet"));
	accepted("carol", "/stats alice elder-signs");
	assert_true(any_text("1 game ·"));
	accepted("alice", "/rematch");
	assert_true(any_text("Rematch! Same table, the previous winner opens every round."));
}

/* An idle player's turn is played with the game's own policy ("expect"). */
static void test_elder_signs_timeout(void **unused)
{
	struct msg_list out = { 0 };
	unsigned char state[PLAY_STATE_MAX];
	struct game_setup setup = { .players = 2, .first = 0 };
	struct game_step step;
	char *rows;
	int timed_out = 0, checked = 0;

	(void)unused;
	accepted("alice", "/open elder-signs");
	accepted("bob", "/join");
	accepted("alice", "/start alice");
	/* once on autopilot, the computer plays on 64 moves a pass, told
	 * with the table at the end */
	for (int i = 0; i < 60 && count("SELECT state FROM games") == 1; i++)
		assert_true(tick_to_deadline(&out) > 0 || bot_pending(fx->bot));
	assert_true(count("SELECT count(*) FROM events WHERE kind = 'timeout'") > 0);
	/* Rebuild the game from its log: each move after a timeout is the one
	 * "expect" makes in that state. */
	assert_int_equal(esplay.ops->init(state, &setup), GAME_OK);
	rows = testdb_rows(fx->path, "SELECT kind, value FROM events WHERE kind IN "
	                             "('timeout', 'roll', 'choice') ORDER BY seq");
	/* a line per event: "kind|value|" */
	for (char *line = rows, *next; *line; line = next) {
		char *bar = strchr(line, '|'), *end;
		const char *kind = line;
		int value;

		assert_non_null(bar);
		*bar = '\0';
		value = (int)strtol(bar + 1, &end, 10);
		next = strchr(end, '\n');
		assert_non_null(next);
		next++;
		if (strcmp(kind, "timeout") == 0) {
			timed_out = 1;
			continue;
		}
		esplay.ops->step(state, &step);
		if (strcmp(kind, "choice") == 0 && timed_out) {
			assert_int_equal(value, esigns_policy_expect(state, &step, NULL));
			timed_out = 0;
			checked++;
		}
		assert_int_equal(esplay.ops->apply(state, value, NULL), GAME_OK);
	}
	free(rows);
	assert_true(checked > 0);
	msg_free(&out);
}

/* ---- what players are told ---- */

/* As `as`, with a display name other than the id and a locale. */
static void as_named(const char *user, const char *name, const char *locale, const char *line)
{
	struct bot_req req = {
		.server = "s1", .channel = "c1", .user = user, .name = name, .locale = locale
	};

	msg_clear(&fx->out);
	assert_int_equal(cmd_parse(line, &req.cmd), CMD_OK);
	bot_handle(fx->bot, &req, fx->now, &fx->out);
}

/* /stats of a player without a finished game names them, never their id. */
static void test_stats_names_the_player(void **unused)
{
	static const struct {
		const char *user, *name, *locale, *line, *want;
	} cases[] = {
		{ "u42", "Dora", "en", "/stats", "No finished games for \"Dora\"." },
		{ "u42", "Dora", "nl", "/stats", "Geen uitgespeelde spellen voor \"Dora\"." },
		{ "u7", "Eve", "en", "/stats u42", "No finished games for \"Dora\"." },
		{ "u7", "Eve", "en", "/stats nobody", "No finished games for \"nobody\"." },
	};

	(void)unused;
	as_named("u42", "Dora", "en", "/open");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		as_named(cases[i].user, cases[i].name, cases[i].locale, cases[i].line);
		if (!any_text(cases[i].want) || any_text("\"u42\""))
			fail_msg("%s %s: got \"%s\"", cases[i].user, cases[i].line,
			         fx->out.n ? fx->out.m[0].text : "");
	}
}

/* Plays games from seed 1 up until one ends as `cthulhu` says (1: nobody
 * won), then asks for the rematch and returns its replies' first text. */
static void rematch_after(int cthulhu)
{
	for (uint64_t seed = 1; seed < 200; seed++) {
		teardown(NULL);
		open_fixture(seed);
		lobby();
		accepted("alice", "/start");
		play_out();
		if ((count("SELECT winner FROM games WHERE id = 1") < 0) == cthulhu) {
			accepted("bob", "/rematch");
			return;
		}
	}
	fail_msg("no game ended that way");
}

/* After Cthulhu won, the rematch says the first Caster is drawn (R2);
 * after a win, that the winner casts first. */
static void test_rematch_after_cthulhu(void **unused)
{
	(void)unused;
	rematch_after(1);
	assert_true(any_text("Rematch! Same table; Cthulhu won the last game, so the first Caster "
	                     "is drawn."));
	assert_false(any_text("previous winner"));
	rematch_after(0);
	assert_true(any_text("Rematch! Same table, the previous winner casts first."));
}

/* Rival Cults: the lobby says so, a computer player's cultists read as
 * "<name>-<k>", and the end names the winning player with their cultist. */
static void test_rival_cults_words(void **unused)
{
	static const char *const moves_to_try[] = { "/curse #0", "/curse #1",    "/curse #2",
		                                    "/curse #3", "/curse #4",    "/curse #5",
		                                    "/respond",  "/eye tentacle" };
	char want[128];
	const char *owner;
	uint64_t seed = 1;

	(void)unused;
	do {
		teardown(NULL);
		open_fixture(seed++);
		accepted("alice", "/open rival-cults 3");
		assert_true(any_text("Game: cthulhu-dice, Rival Cults with 3 cultists each — 1 at "
		                     "the table."));
		accepted("alice", "/addbot heuristic");
		assert_true(any_text("• heuristic-bot (computer, heuristic)"));
		accepted("alice", "/start alice");
		assert_true(any_text("heuristic-bot-1"));
		assert_true(any_text("heuristic-bot-3"));
		assert_true(any_text("alice-3"));
		while (count("SELECT state FROM games WHERE id = 1") == 1) {
			int acted = 0;
			for (size_t k = 0; k < 8 && !acted; k++) {
				as("alice", moves_to_try[k]);
				acted = fx->out.n && fx->out.m[0].kind != MSG_ERROR;
			}
			assert_true(acted);
		}
	} while (count("SELECT winner FROM games WHERE id = 1") < 0 && seed < 50);
	owner = count("SELECT place FROM members WHERE game_id = 1 AND idx = 0") == 0
	            ? "alice"
	            : "heuristic-bot";
	snprintf(want, sizeof(want), "Game over: %s wins with %s-", owner, owner);
	assert_true(any_text(want));
	snprintf(want, sizeof(want), "%s wins with %s-", owner, owner);
	assert_true(any_text(want));
	assert_true(any_text(", the last sane cultist!"));
}

/* R6 told: a mad Caster's Tentacle sends the Victim's token to Cthulhu and
 * the narration says why, in both languages. */
static void test_mad_caster_tentacle(void **unused)
{
	static const struct {
		int lang;
		const char *want;
	} cases[] = {
		{ I18N_EN,
		  "bob loses 1 sanity to Cthulhu: the Caster, alice, is mad and may not keep "
		  "the Tentacle's token (R6).\n" },
		{ I18N_NL, "bob verliest 1 Verstandsfiche aan Cthulhu: de Vervloeker, alice, is "
		           "waanzinnig en mag het gestolen Verstandsfiche niet houden (R6).\n" },
	};
	struct store_member m[2] = { { .player = "alice", .name = "alice" },
		                     { .player = "bob", .name = "bob" } };
	struct store_game row = { .id = 1 };
	struct game_setup setup = { .players = 2 };
	struct game_events ev;
	struct cdice g;
	char buf[1024];
	struct text t;

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct play_ctx c = { .row = &row, .m = m, .nm = 2, .lang = cases[i].lang };
		assert_int_equal(cdice_init(&g, &setup), GAME_OK);
		g.pool += g.sanity[0];
		g.sanity[0] = 0;
		ev.n = 0;
		assert_int_equal(cdplay.ops->apply(&g, 1, &ev), GAME_OK);
		ev.n = 0;
		assert_int_equal(cdplay.ops->apply(&g, cdice_face_die(CDICE_TENTACLE), &ev),
		                 GAME_OK);
		text_init(&t, buf, sizeof(buf));
		cdplay.narrate(&g, ev.ev, ev.n, &c, &t);
		if (!strstr(buf, cases[i].want))
			fail_msg("got \"%s\", want \"%s\"", buf, cases[i].want);
	}
}

/* A command that is not the awaited move tells its sender what the table
 * waits for from them; one from whom nothing is awaited hears whose move
 * it is (rendered text, both languages, classic and Rival Cults). */
static void test_awaited_move_told(void **unused)
{
	static const struct {
		int lang, per_player, phase, who;
		const char *line, *want;
	} cases[] = {
		{ I18N_EN, 0, CDICE_VICTIM, 0, "/respond",
		  "The table waits for you to curse a Victim: /curse <victim>." },
		{ I18N_NL, 0, CDICE_VICTIM, 0, "/eye tentacle",
		  "De tafel wacht tot je een Slachtoffer vervloekt: /curse <slachtoffer>." },
		{ I18N_EN, 0, CDICE_RESPONSE, 1, "/eye tentacle",
		  "The table waits for you to respond: /respond." },
		{ I18N_NL, 0, CDICE_RESPONSE, 1, "/curse alice",
		  "De tafel wacht op je reactie: /respond." },
		{ I18N_EN, 0, CDICE_CURSE_EYE, 0, "/respond",
		  "The table waits for you to choose what the Eye becomes: /eye <Yellow "
		  "Sign|Tentacle|Elder Sign|Cthulhu>." },
		{ I18N_NL, 0, CDICE_RESPONSE_EYE, 1, "/curse alice",
		  "De tafel wacht tot je kiest wat het Boze Oog wordt: /eye <Het Gele "
		  "Teken|Tentakel|Teken van de Oude Goden|Cthulhu>." },
		{ I18N_EN, 0, CDICE_RESPONSE, 2, "/respond",
		  "Not your move: bob, the Victim, responds to alice: /respond." },
		{ I18N_EN, 0, CDICE_VICTIM, 1, "/curse carol",
		  "Not your move: alice is the Caster: choose a Victim with /curse <victim>." },
		{ I18N_EN, 2, CDICE_VICTIM, 0, "/respond",
		  "The table waits for you to curse a Victim with alice-1: /curse <victim>." },
		{ I18N_EN, 2, CDICE_RESPONSE, 1, "/curse alice-2",
		  "The table waits for you to respond: /respond." },
	};
	struct store_member m[3] = { { .player = "alice", .name = "alice" },
		                     { .player = "bob", .name = "bob" },
		                     { .player = "carol", .name = "carol" } };
	struct store_game row = { .id = 1 };

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct game_setup setup = { .players = cases[i].per_player ? 2 : 3,
			                    .per_player = cases[i].per_player };
		struct play_ctx c = { .row = &row, .m = m, .nm = 3, .lang = cases[i].lang };
		char err[512], aw[512];
		struct text et, at;
		struct cmd cmd;
		struct cdice g;
		int value, awaited;

		assert_int_equal(cdice_init(&g, &setup), GAME_OK);
		g.phase = (uint8_t)cases[i].phase;
		g.victim = 1;
		assert_int_equal(cmd_parse(cases[i].line, &cmd), CMD_OK);
		text_init(&et, err, sizeof(err));
		assert_int_equal(cdplay.action(&g, &c, cases[i].who, &cmd, &value, &et), -1);
		if (strcmp(err, cases[i].want) != 0)
			fail_msg("case %zu: \"%s\", want \"%s\"", i, err, cases[i].want);
		text_init(&at, aw, sizeof(aw));
		awaited = cdplay.awaits(&g, &c, cases[i].who, &at);
		assert_int_equal(awaited, strncmp(err, "Not your move", 13) != 0);
		if (awaited)
			assert_string_equal(aw, err);
		else
			assert_string_equal(aw, "");
	}
}

/* The Eye's choices by face name wherever they are listed, in the asker's
 * language, and the Dutch rule sheet's words in Dutch narration. */
static void test_eye_words(void **unused)
{
	static const struct {
		const char *locale, *line, *want;
	} cases[] = {
		{ "en", "/eye purple",
		  "Choose a face: Yellow Sign, Tentacle, Elder Sign or Cthulhu." },
		{ "nl", "/eye paars",
		  "Maak een keuze: Het Gele Teken, Tentakel, Teken van de Oude Goden of Cthulhu." },
		{ "nl", "/eye boze oog",
		  "Het Boze Oog kan geen Boze Oog worden: kies Het Gele Teken, Tentakel, Teken van "
		  "de Oude Goden of Cthulhu." },
		{ "en", "/help", "/eye <Yellow Sign|Tentacle|Elder Sign|Cthulhu> — choose" },
		{ "nl", "/help",
		  "/eye <Het Gele Teken|Tentakel|Teken van de Oude Goden|Cthulhu> — maak een "
		  "keuze" },
		{ "nl", "/help",
		  "/respond — werp als Slachtoffer terug naar de Vervloeker (de "
		  "reactie)" },
	};
	static const char *const buttons[] = { "eye:het-gele-teken", "eye:tentakel",
		                               "eye:teken-van-de-oude-goden", "eye:cthulhu" };
	const struct msg *t = NULL;
	int tries = 0;

	(void)unused;
	for (; tries < 200 && !t; tries++) {
		accepted("alice", "/open nl");
		accepted("bob", "/join");
		accepted("alice", "/start alice");
		accepted("alice", "/curse bob");
		assert_true(any_text("Beurt 1: alice vervloekt bob."));
		assert_true(any_text("alice werpt: "));
		if (any_text("alice wierp het Boze Oog: maak een keuze met /eye <kant>."))
			t = table_msg();
		else
			accepted("alice", "/abort");
	}
	assert_non_null(t);
	for (int f = 0; f < 4; f++) {
		assert_true(f < t->nbuttons);
		if (!strstr(t->buttons[f].id, buttons[f]))
			fail_msg("button %d: %s, want %s", f, t->buttons[f].id, buttons[f]);
	}
	assert_string_equal(t->buttons[0].label, "Het Gele Teken");
	assert_string_equal(t->buttons[2].label, "Teken van de Oude Goden");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		as_named("alice", "alice", cases[i].locale, cases[i].line);
		if (!any_text(cases[i].want))
			fail_msg("%s %s: got \"%s\"", cases[i].locale, cases[i].line,
			         fx->out.n ? fx->out.m[0].text : "");
	}
	accepted("alice", "/eye het gele teken");
	assert_true(any_text("Het Boze Oog wordt: Het Gele Teken."));
	assert_true(any_text("bob verliest 1 Verstandsfiche aan Cthulhu."));
	assert_true(any_text("bob, het Slachtoffer, werpt terug met alice als doel (de reactie): "
	                     "/respond."));
	assert_string_equal(table_msg()->buttons[0].label, "Reageren");
	accepted("bob", "/respond");
	assert_true(any_text("bob werpt als reactie: "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_matrix_no_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_channels_are_independent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_matrix_lobby, setup, teardown),
		cmocka_unit_test_setup_teardown(test_matrix_lobby_owner_and_moderator, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_matrix_rival_cults_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_matrix_playing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_matrix_finished_and_rematch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rematch_after_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lobby_expires_and_tables_let_go, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_computer_names_kept_apart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_computer_moves_bounded_per_pass, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_eye_choice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mad_victim_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeouts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_calls_skip_computers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_storage_failure_changes_nothing, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_channel_game, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escaped_name_typed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_first_hint_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hint_solver, setup, teardown),
		cmocka_unit_test_setup_teardown(test_solver_fallback_said, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch_commit_failure_undoes_the_batch, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_batch_refusal_keeps_the_others, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_restart_mid_game_same_result, setup, teardown),
		cmocka_unit_test_setup_teardown(test_languages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leaderboard_and_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_elder_signs_game, setup, teardown),
		cmocka_unit_test_setup_teardown(test_elder_signs_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stats_names_the_player, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rematch_after_cthulhu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rival_cults_words, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mad_caster_tentacle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log, setup, teardown),
		cmocka_unit_test_setup_teardown(test_awaited_move_told, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eye_words, setup, teardown),
		cmocka_unit_test_setup_teardown(test_solver_tables_kept_on_disk, setup, teardown),
		/* last: it leaves the solver cache building in the background */
		cmocka_unit_test_setup_teardown(test_solver_table_in_background, setup, teardown),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	ctpicture_cleanup(); /* the font caches of the pictures, for the leak checker */
	return failed;
}
