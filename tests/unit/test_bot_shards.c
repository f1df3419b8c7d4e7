/* The bot with shards (bot.h "Sharded bots"): two bots on two connections
 * to one database stand for two processes. A bot keeps only the games of
 * the shards it was given; once another process has claimed a shard, the
 * old owner's commands there are refused and write nothing, while its other
 * shard plays on; the new owner resumes the game from its log and plays it
 * on. Checks read the bots' answers and the database. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rlyeh/bot.h"
#include "rlyeh/store.h"
#include "testdb.h"

#define T0 1700000000000LL
#define S0 "8388608" /* shard 0 of 2: (8388608 >> 22) % 2 */
#define S1 "4194304" /* shard 1 of 2 */

struct proc {
	struct store *st;
	struct bot *bot;
	struct msg_list out;
};

static char dir[64], path[TESTDB_MAX];

static void proc_open(struct proc *p)
{
	struct bot_config cfg;
	char err[256];

	memset(p, 0, sizeof(*p));
	if (store_open(path, &p->st, err, sizeof(err)))
		fail_msg("store_open: %s", err);
	bot_config_default(&cfg);
	cfg.seed = 7;
	cfg.shards = 2;
	if (!(p->bot = bot_new(p->st, &cfg, err, sizeof(err))))
		fail_msg("bot_new: %s", err);
}

static void proc_close(struct proc *p)
{
	bot_free(p->bot);
	store_close(p->st);
	msg_free(&p->out);
}

/* Claims shard `shard` for p (as its owner would) and gives it to the bot. */
static int64_t give(struct proc *p, int shard)
{
	int64_t epoch = 0;
	char err[256];

	assert_int_equal(store_shard_claim(p->st, 2, shard, "t", T0, &epoch), 0);
	if (bot_shard_gain(p->bot, shard, epoch, err, sizeof(err)))
		fail_msg("gain %d: %s", shard, err);
	return epoch;
}

/* 1 when `line` from `user` on `server` was answered without an error. */
static int run(struct proc *p, const char *server, const char *user, const char *line)
{
	struct bot_req req = {
		.server = server, .channel = "c1", .user = user, .name = user, .locale = "en"
	};

	msg_clear(&p->out);
	assert_int_equal(cmd_parse(line, &req.cmd), CMD_OK);
	bot_handle(p->bot, &req, T0, &p->out);
	for (int i = 0; i < p->out.n; i++)
		if (p->out.m[i].kind == MSG_ERROR)
			return 0;
	return p->out.n > 0;
}

/* Some move of alice's or bob's on `server`: 1 when one was accepted. */
static int some_move(struct proc *p, const char *server)
{
	static const char *const tries[] = { "/curse #0", "/curse #1", "/curse #2", "/respond",
		                             "/eye cthulhu" };

	for (int u = 0; u < 2; u++)
		for (size_t k = 0; k < sizeof(tries) / sizeof(tries[0]); k++)
			if (run(p, server, u ? "bob" : "alice", tries[k]))
				return 1;
	return 0;
}

static void start_game(struct proc *p, const char *server)
{
	assert_true(run(p, server, "alice", "/open"));
	assert_true(run(p, server, "bob", "/join"));
	assert_true(run(p, server, "alice", "/start alice"));
}

static long events_of(const char *server)
{
	char sql[160];

	snprintf(sql, sizeof(sql),
	         "SELECT count(*) FROM events e JOIN games g ON g.id = e.game_id "
	         "WHERE g.server = '%s'",
	         server);
	return (long)testdb_int(path, sql);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/rlyeh-botsh-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	testdb_fresh(path, dir, "t.db");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) != 0 ? -1 : 0;
}

static void test_takeover(void **state)
{
	struct proc a, b;
	long before;

	(void)state;
	proc_open(&a);
	/* nothing given: nothing may be written */
	assert_false(run(&a, S0, "alice", "/open"));
	assert_true(bot_fenced_out(a.bot) == 1);
	assert_int_equal(testdb_int(path, "SELECT count(*) FROM games"), 0);
	give(&a, 0);
	give(&a, 1);
	start_game(&a, S0);
	start_game(&a, S1);
	assert_true(some_move(&a, S1));

	/* another process claims shard 1 and resumes its game from the log */
	proc_open(&b);
	assert_int_equal(bot_has_game(b.bot, S1, "c1"), 0);
	give(&b, 1);
	assert_int_equal(bot_has_game(b.bot, S1, "c1"), 1);
	assert_int_equal(bot_has_game(b.bot, S0, "c1"), 0);

	/* the old owner can no longer write there; its shard 0 plays on */
	before = events_of(S1);
	assert_false(some_move(&a, S1));
	assert_int_equal(events_of(S1), before);
	assert_true(bot_fenced_out(a.bot) > 1);
	before = events_of(S0);
	assert_true(some_move(&a, S0));
	assert_true(events_of(S0) > before);

	/* the new owner moves on from where the log ended */
	before = events_of(S1);
	assert_true(some_move(&b, S1));
	assert_true(events_of(S1) > before);

	/* the old owner forgets shard 1; shard 0 stays */
	assert_int_equal(bot_shard_drop(a.bot, 1), 0);
	assert_int_equal(bot_has_game(a.bot, S1, "c1"), 0);
	assert_int_equal(bot_has_game(a.bot, S0, "c1"), 1);
	proc_close(&a);
	proc_close(&b);
}

static void test_gain_refused(void **state)
{
	struct proc a;
	char err[256];

	(void)state;
	proc_open(&a);
	assert_int_equal(bot_shard_gain(a.bot, 2, 1, err, sizeof(err)), -1);
	assert_string_equal(err, "shard 2 of 2 with epoch 1 cannot be given here");
	assert_int_equal(bot_shard_gain(a.bot, 0, 0, err, sizeof(err)), -1);
	proc_close(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_takeover, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gain_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
