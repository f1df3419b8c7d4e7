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

/* The live table: the events' last lines that fit, the call of the awaited
 * player last with its mention, and allowed_mentions allowing that user
 * alone; a table that calls nobody allows nobody. */
static void test_live_table_calls(void **unused)
{
	static struct msg table, events[3];
	const struct msg *m[4] = { &events[0], &events[1], &events[2], &table };
	cJSON *j, *data, *am, *users;
	const char *content;
	char *json;

	(void)unused;
	table.kind = MSG_TABLE;
	table.audience = MSG_CHANNEL;
	snprintf(table.title, sizeof(table.title), "Cthulhu Dice — turn 2");
	msg_button(&table, 3, 4, "respond", NULL, "Respond", MSG_PRIMARY);
	snprintf(table.call.user, sizeof(table.call.user), "1002");
	snprintf(table.call.name, sizeof(table.call.name), "bob");
	snprintf(table.call.text, sizeof(table.call.text), " — respond: /respond.");
	for (int i = 0; i < 3; i++) {
		events[i].kind = MSG_EVENT;
		events[i].audience = MSG_CHANNEL;
	}
	snprintf(events[0].text, sizeof(events[0].text),
	         "Turn 2: alice curses bob. @everyone <@1003>");
	snprintf(events[1].text, sizeof(events[1].text), "alice rolls: Tentacle.");
	snprintf(events[2].text, sizeof(events[2].text), "alice takes 1 sanity from bob.");

	json = discord_response_json(4, m, 4, 0);
	j = parse(json);
	data = cJSON_GetObjectItem(j, "data");
	content = cJSON_GetObjectItem(data, "content")->valuestring;
	assert_string_equal(content, "Turn 2: alice curses bob. @everyone <@1003>\n"
	                             "alice rolls: Tentacle.\nalice takes 1 sanity from bob.\n"
	                             "<@1002> — respond: /respond.");
	am = cJSON_GetObjectItem(data, "allowed_mentions");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(am, "parse")), 0);
	users = cJSON_GetObjectItem(am, "users");
	assert_int_equal(cJSON_GetArraySize(users), 1);
	assert_string_equal(cJSON_GetArrayItem(users, 0)->valuestring, "1002");
	assert_null(cJSON_GetObjectItem(am, "roles"));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(data, "components")), 1);
	cJSON_Delete(j);
	free(json);

	/* Too much narration: the earliest lines go, an ellipsis and /log (which
	 * tells them) head the rest, the call stays whole and the content within
	 * 2000. */
	memset(events[0].text, 0, sizeof(events[0].text));
	for (int i = 0; i < 40; i++)
		snprintf(events[0].text + strlen(events[0].text),
		         sizeof(events[0].text) - strlen(events[0].text),
		         "line %02d of the first move\n", i);
	memset(events[1].text, 0, sizeof(events[1].text));
	for (int i = 0; i < 40; i++)
		snprintf(events[1].text + strlen(events[1].text),
		         sizeof(events[1].text) - strlen(events[1].text),
		         "line %02d of the other move\n", i);
	json = discord_response_json(4, m, 4, 0);
	j = parse(json);
	content = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "data"), "content")->valuestring;
	assert_true(strlen(content) <= 2000);
	assert_memory_equal(content, "\xe2\x80\xa6 (/log)\n", 11); /* where they are */
	assert_null(strstr(content, "line 00 of the first move"));
	assert_non_null(strstr(content,
	                       "line 39 of the other move\n"
	                       "alice takes 1 sanity from bob.\n<@1002> — respond: /respond."));
	assert_true(strstr(content, "\xe2\x80\xa6 (/log)\nline ") == content); /* whole lines */
	cJSON_Delete(j);
	free(json);

	/* No call (a computer's seat, /notify off), or a private table: nobody. */
	table.call.user[0] = '\0';
	json = discord_response_json(4, m + 3, 1, 0);
	j = parse(json);
	am = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "data"), "allowed_mentions");
	assert_null(cJSON_GetObjectItem(am, "users"));
	assert_null(strstr(json, "<@"));
	cJSON_Delete(j);
	free(json);
	snprintf(table.call.user, sizeof(table.call.user), "1002");
	table.audience = MSG_PRIVATE;
	json = discord_response_json(4, m + 3, 1, 64);
	assert_null(strstr(json, "\"users\""));
	assert_null(strstr(json, "<@1002>"));
	free(json);
	/* A call whose user is not a snowflake names the player instead. */
	table.audience = MSG_CHANNEL;
	snprintf(table.call.user, sizeof(table.call.user), "local-1");
	json = discord_response_json(4, m + 3, 1, 0);
	assert_null(strstr(json, "\"users\""));
	assert_non_null(strstr(json, "bob — respond: /respond."));
	free(json);
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

/* A 2x1 RGB PNG (made with zlib: the signature, IHDR, IDAT, IEND). */
static const unsigned char tiny_png[70] = {
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48,
	0x44, 0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00,
	0x00, 0x7b, 0x40, 0xe8, 0xdd, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78,
	0xda, 0x63, 0xf8, 0xcf, 0x00, 0x04, 0xff, 0x01, 0x07, 0x00, 0x01, 0xff, 0x3d, 0x7d,
	0x8c, 0x49, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};

static void expect_json(char *json, const char *want)
{
	assert_non_null(json);
	if (strcmp(json, want) != 0)
		fail_msg("got\n%s\nwant\n%s", json, want);
	free(json);
}

/* A message without picture, select menu or prompt keeps its old bytes. */
static void test_plain_bytes(void **unused)
{
	static struct msg table;
	const struct msg *t[1] = { &table };

	(void)unused;
	table.kind = MSG_TABLE;
	snprintf(table.title, sizeof(table.title), "Turn 1");
	msg_field(&table, "alice", "3");
	msg_button(&table, 9, 14, "eye", "tentacle", "Tentacle", MSG_PRIMARY);
	expect_json(discord_response_json(7, t, 1, 0),
	            "{\"data\":{\"content\":\"\",\"embeds\":[{\"title\":\"Turn 1\","
	            "\"color\":3050327,\"fields\":[{\"name\":\"alice\",\"value\":\"3\","
	            "\"inline\":true}]}],\"components\":[{\"type\":1,\"components\":[{\"type\":"
	            "2,\"style\":1,\"label\":\"Tentacle\",\"custom_id\":\"9:14:eye:tentacle\"}]}],"
	            "\"allowed_mentions\":{\"parse\":[]}},\"type\":7}");
	assert_int_equal(discord_response_files(t, 1, NULL), 0);
}

/* A button shown but not open now carries "disabled": true (Discord's
 * button object); the others carry no such key. */
static void test_disabled_button(void **unused)
{
	static struct msg table;
	const struct msg *t[1] = { &table };

	(void)unused;
	table.kind = MSG_TABLE;
	snprintf(table.title, sizeof(table.title), "Round 2");
	msg_disable(msg_button(&table, 9, 14, "pick", "0", "Spend 3 bullets", MSG_PRIMARY));
	msg_button(&table, 9, 14, "pick", "1", "Lose a heart & reroll", MSG_PRIMARY);
	msg_disable(NULL); /* nothing to disable: nothing happens */
	expect_json(discord_response_json(7, t, 1, 0),
	            "{\"data\":{\"content\":\"\",\"embeds\":[{\"title\":\"Round 2\","
	            "\"color\":3050327}],\"components\":[{\"type\":1,\"components\":[{\"type\":"
	            "2,\"style\":1,\"label\":\"Spend 3 bullets\",\"disabled\":true,"
	            "\"custom_id\":\"9:14:pick:0\"},{\"type\":2,\"style\":1,\"label\":\"Lose a "
	            "heart & reroll\",\"custom_id\":\"9:14:pick:1\"}]}],"
	            "\"allowed_mentions\":{\"parse\":[]}},\"type\":7}");
}

/* The table of the board game: its map as the embed's image, uploaded as
 * files[0] ("Uploading Files"), a select menu above the buttons, a button
 * that asks for text. */
static void test_picture_select_prompt(void **unused)
{
	struct msg_list l = { 0 };
	struct msg *t, *e;
	struct msg_button *b;
	struct rest_file files[REST_MAX_FILES];
	const struct msg *both[2];

	(void)unused;
	t = msg_add(&l, MSG_CHANNEL, NULL, MSG_TABLE);
	e = msg_add(&l, MSG_CHANNEL, NULL, MSG_EVENT);
	assert_non_null(t);
	assert_non_null(e);
	snprintf(t->title, sizeof(t->title), "Round 2");
	assert_int_equal(msg_picture(&l, t, "map.png", tiny_png, sizeof(tiny_png)), 0);
	assert_int_equal(msg_select(t, 9, 14, "eye", NULL, "Choose a face"), 0);
	assert_int_equal(msg_option(t, "Tentacle", "tentacle", "steal one sanity"), 0);
	assert_int_equal(msg_option(t, "Elder Sign", "elder-sign", NULL), 0);
	b = msg_button(t, 9, 14, "curse", NULL, "Curse", MSG_PRIMARY);
	assert_non_null(b);
	assert_int_equal(msg_ask(t, b, "Curse", "Victim", "user-k", 20), 0);
	assert_non_null(msg_button(t, 9, 14, "respond", NULL, "Respond", MSG_SECONDARY));
	snprintf(e->text, sizeof(e->text), "alice rolls");
	both[0] = e;
	both[1] = t;

	expect_json(
	    discord_response_json(7, both + 1, 1, 0),
	    "{\"data\":{\"content\":\"\",\"embeds\":[{\"title\":\"Round 2\",\"color\":"
	    "3050327,\"image\":{\"url\":\"attachment://map.png\"}}],\"components\":[{\"type\":1,"
	    "\"components\":[{\"type\":3,\"custom_id\":\"9:14:eye\",\"placeholder\":\"Choose a "
	    "face\",\"min_values\":1,\"max_values\":1,\"options\":[{\"label\":\"Tentacle\","
	    "\"value\":\"tentacle\",\"description\":\"steal one sanity\"},{\"label\":\"Elder "
	    "Sign\",\"value\":\"elder-sign\"}]}]},{\"type\":1,\"components\":[{\"type\":2,"
	    "\"style\":1,\"label\":\"Curse\",\"custom_id\":\"?9:14:curse\"},{\"type\":2,\"style\":"
	    "2,\"label\":\"Respond\",\"custom_id\":\"9:14:respond\"}]}],\"allowed_mentions\":{"
	    "\"parse\":[]},\"attachments\":[{\"id\":0,\"filename\":\"map.png\"}]},\"type\":7}");
	/* The part files[0]: the message's bytes as they are. */
	assert_int_equal(discord_response_files(both + 1, 1, files), 1);
	assert_string_equal(files[0].name, "files[0]");
	assert_string_equal(files[0].filename, "map.png");
	assert_string_equal(files[0].content_type, "image/png");
	assert_int_equal(files[0].len, sizeof(tiny_png));
	assert_memory_equal(files[0].data, tiny_png, sizeof(tiny_png));

	/* An event's picture is attached after the table's, without an embed;
	 * a second picture of the same name is left out. */
	assert_int_equal(msg_picture(&l, e, "roll.png", tiny_png, sizeof(tiny_png)), 0);
	assert_int_equal(discord_response_files(both, 2, files), 2);
	assert_string_equal(files[0].filename, "map.png");
	assert_string_equal(files[1].name, "files[1]");
	assert_string_equal(files[1].filename, "roll.png");
	{
		char *json = discord_response_json(4, both, 2, DISCORD_EPHEMERAL);
		const char *tail =
		    "\"flags\":64,\"allowed_mentions\":{\"parse\":[]},\"attachments\":"
		    "[{\"id\":0,\"filename\":\"map.png\"},{\"id\":1,\"filename\":"
		    "\"roll.png\"}]},\"type\":4}";
		assert_non_null(json);
		assert_non_null(strstr(json, "{\"data\":{\"content\":\"alice rolls\","));
		assert_string_equal(json + strlen(json) - strlen(tail), tail);
		free(json);
	}
	assert_int_equal(msg_picture(&l, e, "map.png", tiny_png, sizeof(tiny_png)), 0);
	assert_int_equal(discord_response_files(both, 2, files), 1);
	expect_json(discord_response_json(0, both, 1, 0),
	            "{\"content\":\"alice rolls\",\"allowed_mentions\":{\"parse\":[]},"
	            "\"attachments\":[{\"id\":0,\"filename\":\"map.png\"}]}");
	msg_free(&l);
}

/* A full select menu leaves 4 rows of buttons: 5 rows in all. */
static void test_select_rows(void **unused)
{
	static struct msg t;
	const struct msg *tp[1] = { &t };
	char *json;
	cJSON *j, *rows;

	(void)unused;
	t.kind = MSG_TABLE;
	for (int i = 0; i < 21; i++)
		msg_button(&t, 3, 1, "eye", NULL, "x", MSG_PRIMARY);
	assert_int_equal(msg_select(&t, 3, 1, "eye", NULL, NULL), -1); /* 21 buttons */
	t.nbuttons = 20;
	assert_int_equal(msg_select(&t, 3, 1, "eye", NULL, NULL), 0);
	assert_null(msg_button(&t, 3, 1, "eye", NULL, "x", MSG_PRIMARY));
	for (int i = 0; i < 25; i++) {
		char v[8];
		snprintf(v, sizeof(v), "%d", i + 1);
		assert_int_equal(msg_option(&t, v, v, NULL), 0);
	}
	assert_int_equal(msg_option(&t, "26", "26", NULL), -1);
	json = discord_response_json(0, tp, 1, 0);
	j = parse(json);
	rows = cJSON_GetObjectItem(j, "components");
	assert_int_equal(cJSON_GetArraySize(rows), 5);
	assert_int_equal(
	    cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "components")), 1);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(
	                     cJSON_GetArrayItem(
	                         cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "components"), 0),
	                     "options")),
	                 25);
	assert_null(cJSON_GetObjectItem(
	    cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "components"), 0),
	    "placeholder"));
	for (int r = 1; r < 5; r++)
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, r),
		                                                        "components")),
		                 5);
	cJSON_Delete(j);
	free(json);
}

/* A click on a button that asks for text is answered with a modal: type 9,
 * custom_id, title, one action row holding a short text input. */
static void test_modal_response(void **unused)
{
	struct msg_prompt p = {
		.title = "Curse", .label = "Victim", .placeholder = "user-k", .max_len = 20
	};
	char long_id[101];

	(void)unused;
	expect_json(discord_modal_json("9:14:curse", &p, "ignored"),
	            "{\"type\":9,\"data\":{\"custom_id\":\"?9:14:curse\",\"title\":\"Curse\","
	            "\"components\":[{\"type\":1,\"components\":[{\"type\":4,\"custom_id\":"
	            "\"text\",\"style\":1,\"label\":\"Victim\",\"placeholder\":\"user-k\","
	            "\"min_length\":1,\"max_length\":20,\"required\":true}]}]}}");
	/* Without the prompt (a restart forgot it): the button's label, or its
	 * command, cut to Discord's 45 characters. */
	expect_json(
	    discord_modal_json("9:14:curse", NULL,
	                       "A label much longer than forty-five characters, "
	                       "surely"),
	    "{\"type\":9,\"data\":{\"custom_id\":\"?9:14:curse\",\"title\":\"A label much "
	    "longer than forty-five character\",\"components\":[{\"type\":1,\"components\":[{"
	    "\"type\":4,\"custom_id\":\"text\",\"style\":1,\"label\":\"A label much "
	    "longer than forty-five character\",\"min_length\":1,\"max_length\":64,"
	    "\"required\":true}]}]}}");
	expect_json(discord_modal_json("9:14:curse", NULL, ""),
	            "{\"type\":9,\"data\":{\"custom_id\":\"?9:14:curse\",\"title\":\"curse\","
	            "\"components\":[{\"type\":1,\"components\":[{\"type\":4,\"custom_id\":"
	            "\"text\",\"style\":1,\"label\":\"curse\",\"min_length\":1,\"max_length\":64,"
	            "\"required\":true}]}]}}");
	memset(long_id, '1', 100);
	long_id[100] = '\0';
	assert_null(discord_modal_json(long_id, &p, NULL)); /* "?" + 100 bytes */
}

static int parse_one(const char *json, struct discord_req *r)
{
	cJSON *d = parse(json);
	char err[128];
	int rc = discord_parse_interaction(d, r, err, sizeof(err));

	cJSON_Delete(d);
	return rc;
}

#define HEAD(type)                                                                                 \
	"{\"id\":\"21\",\"token\":\"t\",\"type\":" #type                                           \
	",\"channel_id\":\"6\",\"user\":{\"id\":\"4\"},"

/* Interaction data (Discord's "Receiving and Responding": Message Component
 * and Modal Submit Data Structures) to commands. */
static void test_select_and_modal_in(void **unused)
{
	struct discord_req r, slash;

	(void)unused;
	/* A choice in a select menu: its command, the value appended. */
	assert_int_equal(parse_one(HEAD(3) "\"message\":{\"id\":\"777\"},\"data\":{\"custom_id\":"
	                                   "\"9:14:eye\",\"component_type\":3,\"values\":["
	                                   "\"elder-sign\"]}}",
	                           &r),
	                 0);
	assert_string_equal(cmd_word(&r.req.cmd), "eye");
	assert_int_equal(r.req.cmd.nargs, 1);
	assert_string_equal(r.req.cmd.args[0], "elder-sign");
	assert_int_equal(r.req.cmd.game, 9);
	assert_int_equal(r.req.cmd.move, 14);
	assert_int_equal(r.prompt, 0);
	assert_string_equal(r.message_id, "777");

	/* A click on a button that asks for text: the modal is wanted, with the
	 * button's label as the message shows it. */
	assert_int_equal(
	    parse_one(HEAD(3) "\"message\":{\"id\":\"778\",\"embeds\":[{\"image\":{\"url\":"
	                      "\"attachment://map.png\"}}],\"components\":[{\"type\":1,"
	                      "\"components\":[{\"type\":2,\"custom_id\":\"9:14:roll\",\"label\":"
	                      "\"Roll\"},{\"type\":2,\"custom_id\":\"?9:14:eye\",\"label\":\"Pick "
	                      "a face\"}]}]},\"data\":{\"custom_id\":\"?9:14:eye\","
	                      "\"component_type\":2}}",
	              &r),
	    0);
	assert_int_equal(r.prompt, 1);
	assert_string_equal(r.button, "9:14:eye");
	assert_string_equal(r.button_label, "Pick a face");
	assert_string_equal(cmd_word(&r.req.cmd), "eye");
	assert_int_equal(r.req.cmd.nargs, 0);

	/* Its modal's submission is the button's command with the text (blanks
	 * trimmed) as last argument: the same command as the slash command. */
	assert_int_equal(
	    parse_one(HEAD(5) "\"message\":{\"id\":\"778\",\"attachments\":[{\"id\":"
	                      "\"1\"}]},\"data\":{\"custom_id\":\"?9:14:eye\","
	                      "\"components\":[{\"type\":1,\"components\":[{\"type\":"
	                      "4,\"custom_id\":\"text\",\"value\":\" tentacle \"}]}]}}",
	              &r),
	    0);
	assert_int_equal(
	    parse_one(
	        HEAD(2) "\"data\":{\"name\":\"eye\",\"options\":[{\"name\":\"face\",\"type\":3,"
	                "\"value\":\"tentacle\"}]}}",
	        &slash),
	    0);
	assert_int_equal(r.type, 5);
	assert_int_equal(r.prompt, 0);
	assert_int_equal(r.req.cmd.kind, slash.req.cmd.kind);
	assert_int_equal(r.req.cmd.action, slash.req.cmd.action);
	assert_int_equal(r.req.cmd.nargs, slash.req.cmd.nargs);
	assert_string_equal(r.req.cmd.args[0], slash.req.cmd.args[0]);
	assert_int_equal(r.req.cmd.game, 9);
	assert_int_equal(r.req.cmd.move, 14);
	assert_string_equal(r.message_id, "778");

	/* A button with an argument keeps it first; a text input in a label
	 * component (the newer modal layout) is read too. */
	assert_int_equal(parse_one(HEAD(5) "\"data\":{\"custom_id\":\"?9:14:curse:43\","
	                                   "\"components\":[{\"type\":18,\"id\":1,\"component\":{"
	                                   "\"type\":4,\"id\":2,\"custom_id\":\"text\",\"value\":"
	                                   "\"2\"}}]}}",
	                           &r),
	                 0);
	assert_string_equal(cmd_word(&r.req.cmd), "curse");
	assert_int_equal(r.req.cmd.nargs, 2);
	assert_string_equal(r.req.cmd.args[0], "43");
	assert_string_equal(r.req.cmd.args[1], "2");
	assert_string_equal(r.message_id, "");
}

/* Malformed or oversized select and modal data is refused. */
static void test_select_and_modal_refusals(void **unused)
{
	static const char *const bad[] = {
		/* select menus */
		HEAD(3) "\"data\":{\"custom_id\":\"9:14:eye\",\"component_type\":3}}",
		HEAD(3) "\"data\":{\"custom_id\":\"9:14:eye\",\"component_type\":3,\"values\":[]}}",
		HEAD(3) "\"data\":{\"custom_id\":\"9:14:eye\",\"values\":\"tentacle\"}}",
		HEAD(3) "\"data\":{\"custom_id\":\"9:14:eye\",\"values\":[\"a\",\"b\"]}}",
		HEAD(3) "\"data\":{\"custom_id\":\"9:14:eye\",\"values\":[\"\"]}}",
		HEAD(3) "\"data\":{\"custom_id\":\"9:14:eye\",\"values\":[\"two words\"]}}",
		HEAD(3) "\"data\":{\"custom_id\":\"9:14:eye\",\"values\":[\"a\\\"b\"]}}",
		HEAD(3) "\"data\":{\"custom_id\":\"9:14:eye\",\"values\":[7]}}",
		HEAD(3) "\"data\":{\"custom_id\":\"9:14:eye\",\"values\":["
		        "\"123456789012345678901234567890123\"]}}",
		HEAD(3) "\"data\":{\"custom_id\":\"9:14:eye\",\"component_type\":2,\"values\":["
		        "\"a\"]}}",
		HEAD(3) "\"data\":{\"custom_id\":\"9:14:eye\",\"component_type\":5,\"values\":["
		        "\"1\"]}}",
		HEAD(3) "\"data\":{\"custom_id\":\"9:14:eye\",\"component_type\":\"3\"}}",
		HEAD(3) "\"data\":{\"custom_id\":\"?9:14:eye\",\"values\":[\"tentacle\"]}}",
		/* prompt buttons */
		HEAD(3) "\"data\":{\"custom_id\":\"?\"}}",
		HEAD(3) "\"data\":{\"custom_id\":\"?x\"}}",
		HEAD(3) "\"data\":{\"custom_id\":\"??9:14:eye\"}}",
		/* modal submissions */
		HEAD(5) "\"data\":{\"custom_id\":\"9:14:eye\",\"components\":[{\"type\":1,"
		        "\"components\":[{\"type\":4,\"custom_id\":\"text\",\"value\":\"x\"}]}]}}",
		HEAD(5) "\"data\":{\"custom_id\":\"?9:14:fly\",\"components\":[{\"type\":1,"
		        "\"components\":[{\"type\":4,\"custom_id\":\"text\",\"value\":\"x\"}]}]}}",
		HEAD(5) "\"data\":{\"custom_id\":\"?9:14:eye\"}}",
		HEAD(5) "\"data\":{\"custom_id\":\"?9:14:eye\",\"components\":{}}}",
		HEAD(5) "\"data\":{\"custom_id\":\"?9:14:eye\",\"components\":[]}}",
		HEAD(
		    5) "\"data\":{\"custom_id\":\"?9:14:eye\",\"components\":[{},{},{},{},{},{"
		       "\"type\":"
		       "1,\"components\":[{\"type\":4,\"custom_id\":\"text\",\"value\":\"x\"}]}]}}",
		HEAD(5) "\"data\":{\"custom_id\":\"?9:14:eye\",\"components\":[{\"type\":1,"
		        "\"components\":[{\"type\":4,\"custom_id\":\"other\",\"value\":\"x\"}]}]}}",
		HEAD(5) "\"data\":{\"custom_id\":\"?9:14:eye\",\"components\":[{\"type\":1,"
		        "\"components\":[{\"type\":3,\"custom_id\":\"text\",\"value\":\"x\"}]}]}}",
		HEAD(5) "\"data\":{\"custom_id\":\"?9:14:eye\",\"components\":[{\"type\":1,"
		        "\"components\":[{\"type\":4,\"custom_id\":\"text\",\"value\":\"  \"}]}]}}",
		HEAD(5) "\"data\":{\"custom_id\":\"?9:14:eye\",\"components\":[{\"type\":1,"
		        "\"components\":[{\"type\":4,\"custom_id\":\"text\",\"value\":7}]}]}}",
		HEAD(5) "\"data\":{\"custom_id\":\"?9:14:eye\",\"components\":[{\"type\":1,"
		        "\"components\":[{\"type\":4,\"custom_id\":\"text\",\"value\":\"a\\nb\"}]}]"
		        "}}",
		HEAD(5) "\"data\":{\"custom_id\":\"?9:14:eye\",\"components\":[{\"type\":1,"
		        "\"components\":[{\"type\":4,\"custom_id\":\"text\",\"value\":"
		        "\"12345678901234567890123456789012345678901234567890123456789012345\"}]}]}"
		        "}",
		HEAD(6) "\"data\":{\"custom_id\":\"9:14:eye\"}}",
	};
	struct discord_req r;
	char big[8192];
	int n;

	(void)unused;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse_one(bad[i], &r) == 0)
			fail_msg("accepted: %s", bad[i]);
	/* A text of more than 4000 bytes, and a custom_id of more than 100. */
	n = snprintf(big, sizeof(big),
	             HEAD(5) "\"data\":{\"custom_id\":\"?9:14:eye\",\"components\":[{\"type\":1,"
	                     "\"components\":[{\"type\":4,\"custom_id\":\"text\",\"value\":\"");
	memset(big + n, 'a', 4001);
	snprintf(big + n + 4001, sizeof(big) - (size_t)n - 4001, "\"}]}]}}");
	assert_int_not_equal(parse_one(big, &r), 0);
	n = snprintf(big, sizeof(big), HEAD(3) "\"data\":{\"custom_id\":\"?9:14:eye:");
	memset(big + n, 'a', 95);
	snprintf(big + n + 95, sizeof(big) - (size_t)n - 95, "\"}}");
	assert_int_not_equal(parse_one(big, &r), 0);
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
			assert_true(
			    strlen(cJSON_GetObjectItem(
			               cJSON_GetObjectItem(o, "description_localizations"), "nl")
			               ->valuestring) <= 100);
		}
		if (strcmp(name, "eye") == 0) {
			/* the faces by name, their Dutch names as Discord shows them */
			static const char *const en[] = { "Yellow Sign", "Tentacle", "Elder Sign",
				                          "Cthulhu" };
			static const char *const dutch[] = { "Het Gele Teken", "Tentakel",
				                             "Teken van de Oude Goden", NULL };
			cJSON *ch = cJSON_GetObjectItem(
			    cJSON_GetArrayItem(cJSON_GetObjectItem(c, "options"), 0), "choices");
			assert_int_equal(cJSON_GetArraySize(ch), 4);
			for (int k = 0; k < 4; k++) {
				cJSON *one = cJSON_GetArrayItem(ch, k);
				cJSON *loc = cJSON_GetObjectItem(
				    cJSON_GetObjectItem(one, "name_localizations"), "nl");
				assert_string_equal(cJSON_GetObjectItem(one, "name")->valuestring,
				                    en[k]);
				assert_string_equal(cJSON_GetObjectItem(one, "value")->valuestring,
				                    en[k]);
				if (dutch[k])
					assert_string_equal(loc->valuestring, dutch[k]);
				else
					assert_null(loc); /* the same in both languages */
			}
		}
		if (strcmp(name, "card") == 0) {
			/* the name of a card, tile, relic or square, by autocomplete */
			cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(c, "options"), 0);
			assert_string_equal(cJSON_GetObjectItem(p, "name")->valuestring, "name");
			assert_true(cJSON_IsTrue(cJSON_GetObjectItem(p, "autocomplete")));
			assert_null(cJSON_GetObjectItem(p, "choices"));
		}
		if (strcmp(name, "addbot") == 0) {
			/* the policies of the channel's game, by autocomplete */
			cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(c, "options"), 0);
			assert_string_equal(cJSON_GetObjectItem(p, "name")->valuestring, "policy");
			assert_true(cJSON_IsTrue(cJSON_GetObjectItem(p, "autocomplete")));
			assert_null(cJSON_GetObjectItem(p, "choices"));
		}
		if (strcmp(name, "open") == 0) {
			/* the game, the dice games' options, the language, and the
			 * board game's settings as one text of words */
			static const char *const want[] = { "game", "variant", "cultists",
				                            "language", "settings" };
			cJSON *opts = cJSON_GetObjectItem(c, "options"), *s;
			assert_int_equal(cJSON_GetArraySize(opts), 5);
			for (int k = 0; k < 5; k++)
				assert_string_equal(
				    cJSON_GetObjectItem(cJSON_GetArrayItem(opts, k), "name")
				        ->valuestring,
				    want[k]);
			s = cJSON_GetArrayItem(opts, 4);
			assert_int_equal(cJSON_GetObjectItem(s, "type")->valueint, 3);
			assert_null(cJSON_GetObjectItem(s, "required"));
			assert_null(cJSON_GetObjectItem(s, "choices"));
			assert_int_equal(cJSON_GetObjectItem(s, "max_length")->valueint, 128);
			assert_string_equal(
			    cJSON_GetObjectItem(cJSON_GetObjectItem(s, "name_localizations"), "nl")
			        ->valuestring,
			    "instellingen");
			assert_non_null(
			    strstr(cJSON_GetObjectItem(s, "description")->valuestring,
			           "quick:30 window:off enemies:manual confirm:off cap:20"));
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

/* An autocomplete interaction (type 4) of /name with option `option` being
 * typed, holding `typed` so far, from a user of `locale`. */
static void autocomplete_req(const char *name, const char *option, const char *typed,
                             const char *locale, struct discord_req *r)
{
	char json[512], err[128];
	cJSON *d;

	snprintf(json, sizeof(json),
	         "{\"id\":\"12\",\"token\":\"tok\",\"type\":4,\"guild_id\":\"5\","
	         "\"channel_id\":\"6\",\"locale\":\"%s\",\"member\":{\"user\":{\"id\":"
	         "\"42\"}},\"data\":{\"id\":\"77\",\"name\":\"%s\",\"type\":1,"
	         "\"options\":[{\"type\":3,\"name\":\"%s\",\"value\":\"%s\","
	         "\"focused\":true}]}}",
	         locale, name, option, typed);
	d = parse(json);
	assert_int_equal(discord_parse_interaction(d, r, err, sizeof(err)), 0);
	cJSON_Delete(d);
}

/* The names and values of an autocomplete answer's choices, "name=value"
 * joined by "|", after checking its shape. */
static void choices_of(const char *json, char *out, size_t cap)
{
	cJSON *root = parse(json), *c;
	cJSON *choices = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "data"), "choices");
	size_t len = 0;

	assert_int_equal(cJSON_GetObjectItem(root, "type")->valueint, 8);
	assert_true(cJSON_IsArray(choices));
	assert_true(cJSON_GetArraySize(choices) <= 25);
	out[0] = '\0';
	cJSON_ArrayForEach(c, choices)
	{
		const char *nl =
		    cJSON_GetObjectItem(cJSON_GetObjectItem(c, "name_localizations"), "nl")
		        ->valuestring;
		assert_true(strlen(nl) >= 1 && strlen(nl) <= 100);
		len += (size_t)snprintf(out + len, cap - len, "%s%s=%s", len ? "|" : "",
		                        cJSON_GetObjectItem(c, "name")->valuestring,
		                        cJSON_GetObjectItem(c, "value")->valuestring);
		assert_true(len < cap);
	}
	cJSON_Delete(root);
}

/* Checks that the answer to r at a table of `game` offers exactly `want`
 * (as choices_of writes them). */
static void expect_choices(const struct discord_req *r, const char *game, const char *want)
{
	char got[512], *json = discord_autocomplete_json(r, game);

	choices_of(json, got, sizeof(got));
	assert_string_equal(got, want);
	free(json);
}

/* /addbot's policy is completed with the policies of the channel's game
 * only, filtered by what was typed, the default marked in the user's
 * language; other options get no choices. */
static void test_autocomplete(void **unused)
{
	struct discord_req r;
	char got[512], *json;

	(void)unused;
	autocomplete_req("addbot", "policy", "", "en-US", &r);
	assert_int_equal(r.type, 4);
	assert_int_equal(r.req.cmd.kind, CMD_ADDBOT);
	assert_int_equal(r.req.cmd.nargs, 0);
	assert_string_equal(r.focus_option, "policy");
	assert_string_equal(r.focus, "");
	expect_choices(&r, "cthulhu-dice",
	               "random=random|heuristic (default)=heuristic|solver=solver");
	expect_choices(&r, "elder-signs",
	               "greedy-2=greedy-2|expect (default)=expect|ev=ev|best=best");
	expect_choices(&r, "cthulhu", "baseline (default)=baseline|random=random");
	/* no table (or an unknown game): the default game's */
	expect_choices(&r, NULL, "random=random|heuristic (default)=heuristic|solver=solver");
	expect_choices(&r, "chess", "random=random|heuristic (default)=heuristic|solver=solver");

	autocomplete_req("addbot", "policy", "HE", "nl", &r);
	assert_string_equal(r.focus, "HE");
	json = discord_autocomplete_json(&r, "cthulhu-dice");
	choices_of(json, got, sizeof(got));
	assert_string_equal(got, "heuristic (standaard)=heuristic");
	assert_non_null(strstr(json, "\"name_localizations\":{\"nl\":\"heuristic (standaard)\"}"));
	free(json);
	autocomplete_req("addbot", "policy", "e", "en-GB", &r);
	expect_choices(&r, "elder-signs",
	               "greedy-2=greedy-2|expect (default)=expect|ev=ev|best=best");
	autocomplete_req("addbot", "policy", "ex", "en-GB", &r);
	expect_choices(&r, "elder-signs", "expect (default)=expect");
	autocomplete_req("addbot", "policy", "xyz", "en-US", &r);
	expect_choices(&r, "elder-signs", "");
	autocomplete_req("open", "game", "", "en-US", &r);
	expect_choices(&r, "cthulhu-dice", "");
	/* /card's name: the board game's things, in the user's language,
	 * the English name as the value (whatever the channel's game) */
	autocomplete_req("card", "name", "harp", "en-US", &r);
	assert_int_equal(r.req.cmd.kind, CMD_ACTION);
	expect_choices(&r, "cthulhu", "Whaler's Harpoon=Whaler's Harpoon");
	autocomplete_req("card", "name", "loopgraaf", "nl", &r);
	expect_choices(&r, NULL, "Loopgraafmes=Trench Knife");
	autocomplete_req("card", "name", "splitsing", "nl", &r);
	expect_choices(&r, "cthulhu",
	               "Splitsing Voorstraat=Fore Street Junction|Splitsing Kringhof=Circle Court "
	               "Junction|Splitsing Achterstraat=Back Street Junction");
	autocomplete_req("card", "name", "", "en-US", &r);
	json = discord_autocomplete_json(&r, "cthulhu");
	{
		char all[4096];
		int n = 1;
		choices_of(json, all, sizeof(all));
		for (const char *p = all; *p; p++)
			n += *p == '|';
		assert_int_equal(n, 25); /* Discord's most */
		assert_int_equal(strncmp(all, "Trench Knife=Trench Knife|", 26), 0);
	}
	free(json);

	/* no focused option: refused */
	{
		cJSON *d = parse("{\"id\":\"12\",\"token\":\"tok\",\"type\":4,\"channel_id\":"
		                 "\"6\",\"user\":{\"id\":\"42\"},\"data\":{\"name\":"
		                 "\"addbot\",\"options\":[{\"type\":3,\"name\":\"policy\","
		                 "\"value\":\"x\"}]}}");
		char err[128];
		assert_int_equal(discord_parse_interaction(d, &r, err, sizeof(err)), -1);
		cJSON_Delete(d);
	}
}

/* Display names are escaped for Discord's markdown: every construct a name
 * could start shows as typed (the backslashes render nothing), and labels
 * get their plain form back. */
static void test_names_escaped(void **unused)
{
	static const char *const cases[][2] = {
		{ "**bold**", "\\*\\*bold\\*\\*" },
		{ "__under__", "\\_\\_under\\_\\_" },
		{ "*it*", "\\*it\\*" },
		{ "_it_", "\\_it\\_" },
		{ "~~gone~~", "\\~\\~gone\\~\\~" },
		{ "[t](https://u.example)", "\\[t\\](https://u.example)" },
		{ "`code`", "\\`code\\`" },
		{ "||spoiler||", "\\|\\|spoiler\\|\\|" },
		{ "> quote", "\\> quote" },
		{ "a>b", "a\\>b" },
		{ "# heading", "\\# heading" },
		{ "-# small", "\\-# small" },
		{ "- item", "\\- item" },
		{ "  + item", "  \\+ item" },
		{ "1. first", "1\\. first" },
		{ "12) x", "12\\) x" },
		{ "<@1001>", "\\<\\@1001\\>" },
		{ "<#600> <t:0>", "\\<#600\\> \\<t:0\\>" },
		{ "@everyone", "\\@everyone" },
		{ "a\\b", "a\\\\b" },
		{ "Jean-Luc #1 4.5", "Jean-Luc #1 4.5" },
		{ "Zoë 🐙", "Zoë 🐙" },
		{ "tab\there", "tab here" },
	};
	char esc[STORE_NAME_MAX], back[STORE_NAME_MAX], err[128];
	struct discord_req r;
	cJSON *d;

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(discord_escape_name(esc, sizeof(esc), cases[i][0]), 0);
		if (strcmp(esc, cases[i][1]) != 0)
			fail_msg("%s: got %s, want %s", cases[i][0], esc, cases[i][1]);
		discord_plain(back, sizeof(back), esc);
		if (strcmp(back, cases[i][0]) != 0 && strcmp(cases[i][0], "tab\there") != 0)
			fail_msg("%s: plain form %s", cases[i][0], back);
	}
	/* the cap: never half an escape... */
	{
		char stars[41];
		memset(stars, '*', 40);
		stars[40] = '\0';
		assert_int_equal(discord_escape_name(esc, sizeof(esc), stars), 1);
		assert_int_equal(strlen(esc), 62); /* 31 whole escapes; a 32nd needs 64 bytes */
		for (size_t k = 0; k < 62; k += 2)
			assert_true(esc[k] == '\\' && esc[k + 1] == '*');
	}
	/* ...nor half a UTF-8 sequence */
	assert_int_equal(discord_escape_name(esc, 8, "éééé"), 1);
	assert_string_equal(esc, "ééé");
	assert_int_equal(discord_escape_name(esc, 4, "é*é"), 1);
	assert_string_equal(esc, "é");
	assert_int_equal(discord_escape_name(esc, 5, "é*é"), 1);
	assert_string_equal(esc, "é\\*");
	assert_int_equal(discord_escape_name(esc, 4, "🐙"), 1);
	assert_string_equal(esc, "");

	/* where a Discord name enters */
	d = parse("{\"id\":\"11\",\"token\":\"tok\",\"type\":2,\"channel_id\":\"6\","
	          "\"member\":{\"user\":{\"id\":\"42\",\"username\":\"al\","
	          "\"global_name\":\"**Al** @everyone\"}},\"data\":{\"name\":\"join\"}}");
	assert_int_equal(discord_parse_interaction(d, &r, err, sizeof(err)), 0);
	assert_string_equal(r.req.name, "\\*\\*Al\\*\\* \\@everyone");
	cJSON_Delete(d);

	/* labels, which Discord shows as they are, in their plain form; the
	 * table's text escaped */
	{
		static struct msg table;
		const struct msg *one[1] = { &table };
		char *json;
		cJSON *j, *data, *b, *e;
		table.kind = MSG_TABLE;
		snprintf(table.text, sizeof(table.text), "\\_x\\_ is the Caster");
		msg_field(&table, "\\_x\\_", "3 sanity");
		msg_button(&table, 3, 0, "curse", "#1", "\\*\\*Al\\*\\*", MSG_DANGER);
		json = discord_response_json(4, one, 1, 0);
		j = parse(json);
		data = cJSON_GetObjectItem(j, "data");
		b = cJSON_GetArrayItem(
		    cJSON_GetObjectItem(
		        cJSON_GetArrayItem(cJSON_GetObjectItem(data, "components"), 0),
		        "components"),
		    0);
		assert_string_equal(cJSON_GetObjectItem(b, "label")->valuestring, "**Al**");
		e = cJSON_GetArrayItem(cJSON_GetObjectItem(data, "embeds"), 0);
		assert_string_equal(cJSON_GetObjectItem(e, "description")->valuestring,
		                    "\\_x\\_ is the Caster");
		assert_string_equal(
		    cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(e, "fields"), 0),
		                        "name")
		        ->valuestring,
		    "\\_x\\_");
		cJSON_Delete(j);
		free(json);
	}
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

/* A private reply's own choices (a hand, a tile preview) go with it, and a
 * click on one is known to come from a private reply (message flags 64). */
static void test_private_choices(void **unused)
{
	struct msg_list l = { 0 };
	struct msg *m;
	const struct msg *one[1];
	struct discord_req r;

	(void)unused;
	m = msg_add(&l, MSG_PRIVATE, "4", MSG_INFO);
	assert_non_null(m);
	snprintf(m->text, sizeof(m->text), "Preview");
	assert_int_equal(msg_picture(&l, m, "preview.png", tiny_png, sizeof(tiny_png)), 0);
	assert_non_null(msg_button(m, 9, 14, "confirm", "3", "Confirm", MSG_PRIMARY));
	one[0] = m;
	expect_json(discord_response_json(4, one, 1, DISCORD_EPHEMERAL),
	            "{\"data\":{\"content\":\"Preview\",\"components\":[{\"type\":1,"
	            "\"components\":[{\"type\":2,\"style\":1,\"label\":\"Confirm\",\"custom_id\":"
	            "\"9:14:confirm:3\"}]}],\"flags\":64,\"allowed_mentions\":{\"parse\":[]},"
	            "\"attachments\":[{\"id\":0,\"filename\":\"preview.png\"}]},\"type\":4}");
	msg_free(&l);

	/* A reply's title heads its text, in bold. */
	m = msg_add(&l, MSG_PRIVATE, "4", MSG_INFO);
	assert_non_null(m);
	snprintf(m->title, sizeof(m->title), "Your hand");
	snprintf(m->text, sizeof(m->text), "Deadeye");
	one[0] = m;
	expect_json(discord_response_json(4, one, 1, DISCORD_EPHEMERAL),
	            "{\"data\":{\"content\":\"**Your hand**\\nDeadeye\",\"flags\":64,"
	            "\"allowed_mentions\":{\"parse\":[]}},\"type\":4}");
	msg_free(&l);

	assert_int_equal(
	    parse_one(HEAD(3) "\"message\":{\"id\":\"779\",\"flags\":64},\"data\":"
	                      "{\"custom_id\":\"9:14:confirm:3\",\"component_type\":2}}",
	              &r),
	    0);
	assert_int_equal(r.message_private, 1);
	assert_string_equal(r.message_id, "779");
	assert_int_equal(
	    parse_one(HEAD(3) "\"message\":{\"id\":\"780\",\"flags\":4},\"data\":"
	                      "{\"custom_id\":\"9:14:confirm:3\",\"component_type\":2}}",
	              &r),
	    0);
	assert_int_equal(r.message_private, 0);
}

/* The id of the message an answer tells of: the top level's "id", not
 * one inside the message or a string; a callback's
 * response_message_id, else its resource's message id; "" for none. */
static void test_response_message_id(void **unused)
{
	static const struct {
		const char *body, *id;
	} cases[] = {
		{ "{\"type\":0,\"embeds\":[{\"id\":\"999\",\"fields\":[{\"name\":\"a\\\"}\","
		  "\"value\":\"{\\\"id\\\":\\\"5\\\"}\"}]}],\"components\":[],"
		  "\"id\":\"1234567890123456789\",\"channel_id\":\"42\"}",
		  "1234567890123456789" },
		{ " {\n \"id\" : \"12\" , \"x\": null}", "12" },
		{ "{\"interaction\":{\"id\":\"77\",\"response_message_id\":\"88\"},"
		  "\"resource\":{\"type\":4,\"message\":{\"id\":\"99\"}}}",
		  "88" },
		{ "{\"interaction\":{\"id\":\"77\"},\"resource\":{\"message\":{\"id\":\"99\"}}}",
		  "99" },
		{ "{\"message\":\"Unknown interaction\",\"code\":10062}", "" },
		{ "{\"note\":\"\\\"id\\\":\\\"5\\\"\",\"n\":[1,2,{\"id\":\"6\"}]}", "" },
		{ "{\"id\":\"abc\"}", "" },
		{ "{\"id\":\"123456789012345678901\"}", "" }, /* 21 digits */
		{ "{\"id\":", "" },
		{ "{\"a\":\"unended", "" },
		{ "[{\"id\":\"1\"}]", "" },
		{ "", "" },
	};
	char id[DISCORD_SNOWFLAKE_MAX];

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(id, 'x', sizeof(id));
		discord_response_message_id(cases[i].body, id);
		assert_string_equal(id, cases[i].id);
	}
	discord_response_message_id(NULL, id);
	assert_string_equal(id, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slash_command),
		cmocka_unit_test(test_button_and_refusals),
		cmocka_unit_test(test_response_shapes),
		cmocka_unit_test(test_live_table_calls),
		cmocka_unit_test(test_command_definitions),
		cmocka_unit_test(test_close_codes),
		cmocka_unit_test(test_plain_bytes),
		cmocka_unit_test(test_picture_select_prompt),
		cmocka_unit_test(test_select_rows),
		cmocka_unit_test(test_modal_response),
		cmocka_unit_test(test_select_and_modal_in),
		cmocka_unit_test(test_select_and_modal_refusals),
		cmocka_unit_test(test_private_choices),
		cmocka_unit_test(test_autocomplete),
		cmocka_unit_test(test_names_escaped),
		cmocka_unit_test(test_disabled_button),
		cmocka_unit_test(test_response_message_id),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
