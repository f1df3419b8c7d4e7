/* The Discord adapter's pure parts: interactions in, bodies out, command
 * definitions — against the documented limits (shared/design/discord.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/discord.h"
#include "rlyeh/gateway.h"
#include "rlyeh/play.h"

static cJSON *parse(const char *json)
{
	cJSON *j = cJSON_Parse(json);

	assert_non_null(j);
	return j;
}

static void test_slash_command(void **unused)
{
	cJSON *d =
	    parse("{\"id\":\"11\",\"token\":\"tok\",\"type\":2,\"guild_id\":\"5\","
	          "\"channel_id\":\"6\",\"locale\":\"nl\",\"member\":{\"permissions\":\"16\","
	          "\"user\":{\"id\":\"42\",\"username\":\"al\",\"global_name\":\"Alice\"}},"
	          "\"data\":{\"name\":\"curse\",\"options\":[{\"name\":\"victim\",\"type\":6,"
	          "\"value\":\"43\"},{\"name\":\"cultist\",\"type\":4,\"value\":2}]}}");
	struct discord_req r;
	char err[128];

	(void)unused;
	assert_int_equal(discord_parse_interaction(d, &r, err, sizeof(err)), 0);
	assert_int_equal(r.req.cmd.kind, CMD_ACTION);
	assert_string_equal(cmd_word(&r.req.cmd), "curse");
	assert_int_equal(r.req.cmd.nargs, 1);
	assert_string_equal(r.req.cmd.args[0], "43-2");
	assert_string_equal(r.req.user, "42");
	assert_string_equal(r.req.name, "Alice");
	assert_string_equal(r.req.server, "5");
	assert_string_equal(r.req.channel, "6");
	assert_string_equal(r.req.locale, "nl");
	assert_int_equal(r.req.moderator, 1); /* MANAGE_CHANNELS */
	assert_int_equal(r.req.cmd.game, 0);
	cJSON_Delete(d);
}

static void test_button_and_refusals(void **unused)
{
	static const char *const bad[] = {
		"{}",
		"{\"id\":\"1\",\"token\":\"t\",\"type\":2,\"channel_id\":\"6\",\"user\":{\"id\":"
		"\"4\"},"
		"\"data\":{\"name\":\"fly\"}}",
		"{\"id\":\"1\",\"token\":\"t\",\"type\":3,\"channel_id\":\"6\",\"user\":{\"id\":"
		"\"4\"},"
		"\"data\":{\"custom_id\":\"0:1:curse\"}}",
		"{\"id\":\"1\",\"token\":\"t\",\"type\":3,\"channel_id\":\"6\",\"user\":{\"id\":"
		"\"4\"},"
		"\"data\":{\"custom_id\":\"x\"}}",
		"{\"id\":\"1\",\"type\":2,\"channel_id\":\"6\",\"user\":{\"id\":\"4\"},"
		"\"data\":{\"name\":\"join\"}}",
		"{\"id\":\"1\",\"token\":\"t\",\"type\":2,\"channel_id\":\"6\",\"user\":{\"id\":"
		"\"4\"},"
		"\"data\":{\"name\":\"eye\",\"options\":[{\"name\":\"face\",\"value\":[1]}]}}",
		"{\"id\":\"1\",\"token\":\"t\",\"type\":4,\"channel_id\":\"6\",\"user\":{\"id\":"
		"\"4\"},"
		"\"data\":{\"name\":\"join\"}}",
	};
	cJSON *d =
	    parse("{\"id\":\"12\",\"token\":\"t\",\"type\":3,\"channel_id\":\"6\","
	          "\"user\":{\"id\":\"4\",\"username\":\"dm-user\"},\"guild_locale\":\"en-US\","
	          "\"message\":{\"id\":\"777\"},\"data\":{\"custom_id\":\"9:14:eye:tentacle\"}}");
	struct discord_req r;
	char err[128];

	(void)unused;
	assert_int_equal(discord_parse_interaction(d, &r, err, sizeof(err)), 0);
	assert_int_equal(r.req.cmd.kind, CMD_ACTION);
	assert_string_equal(cmd_word(&r.req.cmd), "eye");
	assert_int_equal(r.req.cmd.game, 9);
	assert_int_equal(r.req.cmd.move, 14);
	assert_string_equal(r.req.cmd.args[0], "tentacle");
	assert_string_equal(r.req.server, "dm");
	assert_string_equal(r.req.locale, "en-US");
	assert_string_equal(r.message_id, "777");
	assert_int_equal(r.req.moderator, 0);
	cJSON_Delete(d);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		d = parse(bad[i]);
		if (discord_parse_interaction(d, &r, err, sizeof(err)) == 0)
			fail_msg("accepted: %s", bad[i]);
		cJSON_Delete(d);
	}
}

static void test_response_shapes(void **unused)
{
	static struct msg table, event, error;
	const struct msg *both[2] = { &event, &table }, *err1[1] = { &error };
	cJSON *j, *data, *rows, *row;
	char *json;
	int buttons = 0;

	(void)unused;
	table.kind = MSG_TABLE;
	snprintf(table.title, sizeof(table.title), "Cthulhu Dice — turn 1");
	snprintf(table.text, sizeof(table.text), "alice is the Caster");
	msg_field(&table, "alice", "3 sanity");
	for (int i = 0; i < 7; i++)
		msg_button(&table, 3, 0, "curse", "#1", "bob", MSG_DANGER);
	event.kind = MSG_EVENT;
	memset(event.text, 'x', 1999);
	error.kind = MSG_ERROR;
	snprintf(error.text, sizeof(error.text), "Not your move");

	json = discord_response_json(4, both, 2, 0);
	j = parse(json);
	assert_int_equal(cJSON_GetObjectItem(j, "type")->valueint, 4);
	data = cJSON_GetObjectItem(j, "data");
	assert_true(strlen(cJSON_GetObjectItem(data, "content")->valuestring) <= 2000);
	assert_null(cJSON_GetObjectItem(data, "flags"));
	assert_string_equal(
	    cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(data, "embeds"), 0), "title")
	        ->valuestring,
	    "Cthulhu Dice — turn 1");
	rows = cJSON_GetObjectItem(data, "components");
	assert_int_equal(cJSON_GetArraySize(rows), 2); /* 7 buttons: rows of 5 and 2 */
	cJSON_ArrayForEach(row, rows)
	{
		cJSON *b;
		assert_int_equal(cJSON_GetObjectItem(row, "type")->valueint, 1);
		assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(row, "components")) <= 5);
		cJSON_ArrayForEach(b, cJSON_GetObjectItem(row, "components"))
		{
			assert_int_equal(cJSON_GetObjectItem(b, "type")->valueint, 2);
			assert_int_equal(cJSON_GetObjectItem(b, "style")->valueint, 4);
			assert_true(strlen(cJSON_GetObjectItem(b, "custom_id")->valuestring) <=
			            100);
			buttons++;
		}
	}
	assert_int_equal(buttons, 7);
	cJSON_Delete(j);
	free(json);

	json = discord_response_json(4, err1, 1, 1);
	j = parse(json);
	data = cJSON_GetObjectItem(j, "data");
	assert_int_equal(cJSON_GetObjectItem(data, "flags")->valueint, 64);
	assert_string_equal(cJSON_GetObjectItem(data, "content")->valuestring, "Not your move");
	cJSON_Delete(j);
	free(json);

	/* A followup or channel message is the bare message object. */
	json = discord_response_json(0, err1, 1, 0);
	j = parse(json);
	assert_null(cJSON_GetObjectItem(j, "type"));
	assert_null(cJSON_GetObjectItem(j, "data"));
	assert_string_equal(cJSON_GetObjectItem(j, "content")->valuestring, "Not your move");
	cJSON_Delete(j);
	free(json);
}

static int lowercase_name(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > 32)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' ||
		      *s == '_'))
			return 0;
	return 1;
}

static void test_command_definitions(void **unused)
{
	char *json = discord_commands_json();
	cJSON *arr = parse(json), *c;
	int n = 0;

	(void)unused;
	cJSON_ArrayForEach(c, arr)
	{
		cJSON *o;
		const char *name = cJSON_GetObjectItem(c, "name")->valuestring;
		const char *desc = cJSON_GetObjectItem(c, "description")->valuestring;
		cJSON *nl = cJSON_GetObjectItem(cJSON_GetObjectItem(c, "name_localizations"), "nl");
		if (!lowercase_name(name) || !nl || !lowercase_name(nl->valuestring))
			fail_msg("bad command name %s", name);
		assert_true(strlen(desc) >= 1 && strlen(desc) <= 100);
		assert_non_null(
		    cJSON_GetObjectItem(cJSON_GetObjectItem(c, "description_localizations"), "nl"));
		assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(c, "options")) <= 25);
		cJSON_ArrayForEach(o, cJSON_GetObjectItem(c, "options"))
		{
			int type = cJSON_GetObjectItem(o, "type")->valueint;
			if (!lowercase_name(cJSON_GetObjectItem(o, "name")->valuestring))
				fail_msg("%s: bad option name", name);
			assert_true(type == 3 || type == 4 || type == 6);
			assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(o, "choices")) <= 25);
			assert_true(strlen(cJSON_GetObjectItem(o, "description")->valuestring) <=
			            100);
		}
		n++;
	}
	/* every table command (CMD_ACTION is not one) and every game's action */
	{
		int actions = 0;
		while (play_action_at(actions))
			actions++;
		assert_int_equal(n, CMD_COUNT - 1 + actions);
	}
	cJSON_Delete(arr);
	free(json);
}

/* The documented reaction to every close code (discord.md). */
static void test_close_codes(void **unused)
{
	static const int resume[] = { 4000, 4001, 4002, 4003, 4005, 4008, 1000, 1001, 1006 };
	static const int fresh[] = { 4007, 4009 };
	static const int stop[] = { 4004, 4010, 4011, 4012, 4013, 4014 };

	(void)unused;
	for (size_t i = 0; i < sizeof(resume) / sizeof(resume[0]); i++)
		assert_int_equal(gateway_close_action(resume[i]), 0);
	for (size_t i = 0; i < sizeof(fresh) / sizeof(fresh[0]); i++)
		assert_int_equal(gateway_close_action(fresh[i]), 1);
	for (size_t i = 0; i < sizeof(stop) / sizeof(stop[0]); i++)
		assert_int_equal(gateway_close_action(stop[i]), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slash_command),   cmocka_unit_test(test_button_and_refusals),
		cmocka_unit_test(test_response_shapes), cmocka_unit_test(test_command_definitions),
		cmocka_unit_test(test_close_codes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
