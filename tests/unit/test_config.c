/* The daemon's configuration: the shipped example, refusals with file and
 * line, environment overrides, and where the token may come from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rlyeh/config.h"
#include "rlyeh/log.h"

static char dir[64];

static const char *write_file(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/rlyeh-config-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	unsetenv("RLYEH_TOKEN");
	unsetenv("CREDENTIALS_DIRECTORY");
	unsetenv("RLYEH_TURN_TIMEOUT");
	return 0;
}

static void test_example_parses(void **unused)
{
	struct config c;
	char err[512];

	(void)unused;
	config_default(&c);
	if (config_load(&c, EXAMPLE_CONFIG, err, sizeof(err)))
		fail_msg("the shipped example is refused: %s", err);
	assert_string_equal(c.database, "/var/lib/rlyeh/rlyeh.db");
	assert_string_equal(c.api_url, "https://discord.com/api/v10");
	assert_int_equal(c.turn_timeout, 120);
	assert_int_equal(c.lobby_timeout, 86400);
	assert_int_equal(c.nguilds, 0);
	assert_int_equal(c.compress, 0);
	assert_int_equal(c.log_level, LOG_INFO);
	assert_int_equal(c.durability, 0);
}

static void test_refusals_name_file_and_line(void **unused)
{
	static const struct {
		const char *text, *reason;
	} bad[] = {
		{ "# ok\nspeed = 3\n", ":2: unknown key 'speed'" },
		{ "turn_timeout = soon\n", ":1: turn_timeout: expected 0 to 86400 seconds" },
		{ "lobby_timeout = 2592001\n", ":1: lobby_timeout: expected 0 (never) to 2592000" },
		{ "\n\nlanguage = fr\n", ":3: language: expected en or nl" },
		{ "compress = maybe\n", ":1: expected true or false" },
		{ "api_url = ftp://x\n", ":1: expected an http(s) URL" },
		{ "api_url = https://x/\n", ":1: remove the trailing '/'" },
		{ "guilds = 12, abc\n", ":1: guilds: 'abc' is not a numeric id" },
		{ "token = secret\n", ":1: the token is not read from the configuration file" },
		{ "just words\n", ":1: expected key = value" },
		{ "log_level = loud\n", ":1: log_level: expected" },
		{ "shards = 8\n", ":1: shards: '8': expected auto, A-B/N" },
		{ "shards = 8/8\n", ":1: shards: '8/8': shard ids run from 0 to N-1 (7 here)" },
		{ "shards = 0-8/8\n", ":1: shards: '0-8/8': shard ids run from 0 to N-1" },
		{ "shards = 0/0\n", ":1: shards: '0/0': the count N must be at least 1" },
		{ "shards = 5-3/8\n", ":1: shards: '5-3/8': A must not be above B" },
		{ "shards = -1/8\n", ":1: shards: '-1/8': expected auto" },
		{ "shards = 0-/8\n", ":1: shards: '0-/8': expected auto" },
		{ "shards = 0-1/x\n", ":1: shards: '0-1/x': expected auto" },
		{ "shards = 0-1/8/2\n", ":1: shards: '0-1/8/2': expected auto" },
		{ "shards = Auto\n", ":1: shards: 'Auto': expected auto" },
		{ "durability = fast\n", ":1: durability: expected full or normal" },
		{ "durability = FULL\n", ":1: durability: expected full or normal" },
		{ "shards = 0-199/200\n",
		  ":1: shards: '0-199/200': at most 128 shards in one process" },
	};
	char err[512];

	(void)unused;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct config c;
		const char *path = write_file("bad.conf", bad[i].text);
		config_default(&c);
		assert_int_equal(config_load(&c, path, err, sizeof(err)), -1);
		if (!strstr(err, path) || !strstr(err, bad[i].reason))
			fail_msg("'%s': message '%s' lacks '%s'", bad[i].text, err, bad[i].reason);
		assert_null(strstr(err, "secret"));
	}
}

static void test_shards(void **unused)
{
	static const struct {
		const char *value;
		int first, last, count;
	} good[] = {
		{ "auto", 0, 0, 0 },
		{ "0-7/8", 0, 7, 8 },
		{ "3/8", 3, 3, 8 },
		{ "0/1", 0, 0, 1 },
		{ "4-5/6", 4, 5, 6 },
		{ "0-127/128", 0, 127, 128 },
		{ "128-255/256", 128, 255, 256 },
	};
	struct config c;
	char err[512];

	(void)unused;
	config_default(&c);
	assert_int_equal(c.shard_count, 0); /* auto */
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (config_set_shards(&c, good[i].value, "--shards", err, sizeof(err)))
			fail_msg("'%s' refused: %s", good[i].value, err);
		assert_int_equal(c.shard_first, good[i].first);
		assert_int_equal(c.shard_last, good[i].last);
		assert_int_equal(c.shard_count, good[i].count);
	}
	/* A refusal names its origin and changes nothing. */
	assert_int_equal(config_set_shards(&c, "2-1/4", "--shards", err, sizeof(err)), -1);
	assert_string_equal(err, "--shards: shards: '2-1/4': A must not be above B");
	assert_int_equal(c.shard_first, 128);
	assert_int_equal(c.shard_count, 256);
	setenv("RLYEH_SHARDS", "1-2/4", 1);
	config_default(&c);
	assert_int_equal(config_load(&c, NULL, err, sizeof(err)), 0);
	assert_int_equal(c.shard_first, 1);
	assert_int_equal(c.shard_last, 2);
	assert_int_equal(c.shard_count, 4);
	setenv("RLYEH_SHARDS", "4/4", 1);
	assert_int_equal(config_load(&c, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "RLYEH_SHARDS: shards: '4/4'"));
	unsetenv("RLYEH_SHARDS");
}

static void test_environment_overrides(void **unused)
{
	struct config c;
	char err[512];
	const char *path = write_file("a.conf", "turn_timeout = 30\nguilds = 1, 2\n");

	(void)unused;
	setenv("RLYEH_TURN_TIMEOUT", "45", 1);
	config_default(&c);
	assert_int_equal(config_load(&c, path, err, sizeof(err)), 0);
	assert_int_equal(c.turn_timeout, 45);
	assert_int_equal(c.nguilds, 2);
	assert_string_equal(c.guilds[1], "2");
	setenv("RLYEH_HEALTH_PORT", "9464", 1);
	assert_int_equal(config_load(&c, path, err, sizeof(err)), 0);
	assert_int_equal(c.health_port, 9464);
	unsetenv("RLYEH_HEALTH_PORT");
	setenv("RLYEH_TURN_TIMEOUT", "-1", 1);
	assert_int_equal(config_load(&c, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "RLYEH_TURN_TIMEOUT"));
	unsetenv("RLYEH_TURN_TIMEOUT");
}

/* The units set no RLYEH_DATABASE: a database key in the file must win, and
 * without one the database goes to systemd's state directory. */
static void test_database_defaults_to_state_directory(void **unused)
{
	struct config c;
	char err[512];
	const char *path;

	(void)unused;
	unsetenv("RLYEH_DATABASE");
	setenv("STATE_DIRECTORY", "/var/lib/rlyeh/main:/var/lib/other", 1);
	path = write_file("s.conf", "turn_timeout = 30\n");
	config_default(&c);
	assert_int_equal(config_load(&c, path, err, sizeof(err)), 0);
	assert_string_equal(c.database, "/var/lib/rlyeh/main/rlyeh.db");
	path = write_file("p.conf", "database = postgresql://rlyeh@/rlyeh\n");
	config_default(&c);
	assert_int_equal(config_load(&c, path, err, sizeof(err)), 0);
	assert_string_equal(c.database, "postgresql://rlyeh@/rlyeh");
	setenv("STATE_DIRECTORY", "", 1);
	config_default(&c);
	assert_string_equal(c.database, "rlyeh.db");
	unsetenv("STATE_DIRECTORY");
	config_default(&c);
	assert_string_equal(c.database, "rlyeh.db");
}

static void test_token_sources(void **unused)
{
	struct config c;
	char err[512], creds[128];

	(void)unused;
	config_default(&c);
	assert_int_equal(config_load_token(&c, err, sizeof(err)), 1);
	setenv("RLYEH_TOKEN", "env-token", 1);
	assert_int_equal(config_load_token(&c, err, sizeof(err)), 0);
	assert_string_equal(c.token, "env-token");
	unsetenv("RLYEH_TOKEN");
	snprintf(c.token_file, sizeof(c.token_file), "%s", write_file("tok", "file-token\n"));
	assert_int_equal(config_load_token(&c, err, sizeof(err)), 0);
	assert_string_equal(c.token, "file-token");
	/* A systemd credential: $CREDENTIALS_DIRECTORY/token. */
	c.token_file[0] = '\0';
	snprintf(creds, sizeof(creds), "%s/creds", dir);
	assert_int_equal(mkdir(creds, 0700), 0);
	write_file("creds/token", "credential-token\n");
	setenv("CREDENTIALS_DIRECTORY", creds, 1);
	assert_int_equal(config_load_token(&c, err, sizeof(err)), 0);
	assert_string_equal(c.token, "credential-token");
	unsetenv("CREDENTIALS_DIRECTORY");
	snprintf(c.token_file, sizeof(c.token_file), "%s/missing", dir);
	assert_int_equal(config_load_token(&c, err, sizeof(err)), -1);
	assert_null(strstr(err, "credential-token"));
}

/* The durability key: full (the default) or normal, from the file or the
 * environment. */
static void test_durability(void **unused)
{
	struct config c;
	char err[512];

	(void)unused;
	config_default(&c);
	assert_int_equal(c.durability, 0);
	assert_int_equal(
	    config_load(&c, write_file("d.conf", "durability = normal\n"), err, sizeof(err)), 0);
	assert_int_equal(c.durability, 1);
	setenv("RLYEH_DURABILITY", "full", 1);
	assert_int_equal(
	    config_load(&c, write_file("d.conf", "durability = normal\n"), err, sizeof(err)), 0);
	assert_int_equal(c.durability, 0);
	unsetenv("RLYEH_DURABILITY");
}

/* A token that could not go into an HTTP header is refused from every
 * source, with the reason and without the token. */
static void test_token_bytes(void **unused)
{
	static const struct {
		const char *token, *reason;
	} bad[] = {
		{ "secret\001token", "a control character (byte 0x01 at position 7)" },
		{ "secret\033[2Jtoken", "a control character (byte 0x1b at position 7)" },
		{ "secret token", "a space (byte 0x20 at position 7)" },
		{ "secret\ttoken", "a control character (byte 0x09 at position 7)" },
		{ "secret\xc3\xa9token", "a non-ASCII byte (byte 0xc3 at position 7)" },
		{ "secret\x7ftoken", "a control character (byte 0x7f at position 7)" },
	};
	struct config c;
	char err[512], line[64];

	(void)unused;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		config_default(&c);
		setenv("RLYEH_TOKEN", bad[i].token, 1);
		assert_int_equal(config_load_token(&c, err, sizeof(err)), -1);
		if (!strstr(err, "RLYEH_TOKEN") || !strstr(err, bad[i].reason))
			fail_msg("'%s': message '%s' lacks '%s'", bad[i].token, err, bad[i].reason);
		assert_null(strstr(err, "secret"));
		assert_string_equal(c.token, "");
		unsetenv("RLYEH_TOKEN");
		snprintf(line, sizeof(line), "%s\n", bad[i].token);
		snprintf(c.token_file, sizeof(c.token_file), "%s", write_file("badtok", line));
		assert_int_equal(config_load_token(&c, err, sizeof(err)), -1);
		if (!strstr(err, c.token_file) || !strstr(err, bad[i].reason))
			fail_msg("'%s' in a file: message '%s' lacks '%s'", bad[i].token, err,
			         bad[i].reason);
		assert_null(strstr(err, "secret"));
	}
	/* A token file's line end (\r\n too) is not part of the token. */
	config_default(&c);
	snprintf(c.token_file, sizeof(c.token_file), "%s", write_file("tok2", "MTIz.abc_-\r\n"));
	assert_int_equal(config_load_token(&c, err, sizeof(err)), 0);
	assert_string_equal(c.token, "MTIz.abc_-");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example_parses),
		cmocka_unit_test(test_refusals_name_file_and_line),
		cmocka_unit_test(test_environment_overrides),
		cmocka_unit_test(test_shards),
		cmocka_unit_test(test_database_defaults_to_state_directory),
		cmocka_unit_test(test_token_sources),
		cmocka_unit_test(test_durability),
		cmocka_unit_test(test_token_bytes),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
