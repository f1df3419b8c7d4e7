/* The Discord adapter: messages out (response, follow-up and modal bodies). */
#include "rlyeh/discord.h"

#include <errno.h>
#include <getopt.h>
#include <libwebsockets.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "rlyeh/cdsolvecache.h"
#include "rlyeh/cli.h"
#include "rlyeh/cmd.h"
#include "rlyeh/config.h"
#include "rlyeh/console.h"
#include "rlyeh/gateway.h"
#include "rlyeh/i18n.h"
#include "rlyeh/jsonarena.h"
#include "rlyeh/limits.h"
#include "rlyeh/log.h"
#include "rlyeh/metrics.h"
#include "rlyeh/owner.h"
#include "rlyeh/play.h"
#include "rlyeh/rest.h"
#include "rlyeh/rng.h"
#include "rlyeh/shards.h"
#include "rlyeh/store.h"
#include "rlyeh/text.h"

#include "discord_int.h"

/* ---- messages out ---- */

static const int button_styles[] = { [MSG_PRIMARY] = 1, [MSG_SECONDARY] = 2, [MSG_DANGER] = 4 };

/* The form fields of files, by placeholder id. */
static const char *const file_fields[REST_MAX_FILES] = {
	"files[0]", "files[1]", "files[2]", "files[3]", "files[4]",
	"files[5]", "files[6]", "files[7]", "files[8]", "files[9]",
};

static int has_picture(const struct msg *m)
{
	return m->picture && m->picture_len > 0 && m->picture_name[0];
}

/* The messages whose pictures a body for m[0..n-1] carries, in the order of
 * their files: the shown table's (the last table), then the others' in
 * order (tables not shown left out), a name already taken left out; at most
 * REST_MAX_FILES. */
static int pick_pictures(const struct msg *const *m, int n, const struct msg **out)
{
	const struct msg *table = NULL;
	int k = 0;

	for (int i = 0; i < n; i++)
		if (m[i]->kind == MSG_TABLE)
			table = m[i];
	if (table && has_picture(table))
		out[k++] = table;
	for (int i = 0; i < n && k < REST_MAX_FILES; i++) {
		int taken = 0;
		if (m[i]->kind == MSG_TABLE || !has_picture(m[i]))
			continue;
		for (int j = 0; j < k && !taken; j++)
			taken = strcmp(out[j]->picture_name, m[i]->picture_name) == 0;
		if (!taken)
			out[k++] = m[i];
	}
	return k;
}

int discord_response_files(const struct msg *const *m, int n, struct rest_file *files)
{
	const struct msg *pics[REST_MAX_FILES] = { 0 };
	int k = pick_pictures(m, n, pics);

	for (int j = 0; j < k; j++) {
		files[j].name = file_fields[j];
		files[j].filename = pics[j]->picture_name;
		files[j].content_type = "image/png";
		files[j].data = pics[j]->picture;
		files[j].len = pics[j]->picture_len;
	}
	return k;
}

/* Adds an action row to rows and returns its components array. */
static cJSON *add_row(cJSON *rows)
{
	cJSON *row = cJSON_CreateObject();

	cJSON_AddNumberToObject(row, "type", 1);
	cJSON_AddItemToArray(rows, row);
	return cJSON_AddArrayToObject(row, "components");
}

/* Adds the string member key: text in its plain form (discord_plain), for
 * the places Discord does not render as markdown. */
static void add_plain(cJSON *obj, const char *key, const char *text)
{
	char buf[MSG_TEXT_MAX];

	discord_plain(buf, sizeof(buf), text);
	cJSON_AddStringToObject(obj, key, buf);
}

/* The select menu of t, a string select alone in its row. */
static void add_select(cJSON *rows, const struct msg_select *sel)
{
	cJSON *s = cJSON_CreateObject(), *opts;

	cJSON_AddNumberToObject(s, "type", 3);
	cJSON_AddStringToObject(s, "custom_id", sel->id);
	if (sel->placeholder[0])
		add_plain(s, "placeholder", sel->placeholder);
	cJSON_AddNumberToObject(s, "min_values", 1);
	cJSON_AddNumberToObject(s, "max_values", 1);
	opts = cJSON_AddArrayToObject(s, "options");
	for (int i = 0; i < sel->noptions && i < MSG_OPTIONS_MAX; i++) {
		const struct msg_option *o = &sel->options[i];
		cJSON *oj = cJSON_CreateObject();
		add_plain(oj, "label", o->label);
		cJSON_AddStringToObject(oj, "value", o->value);
		if (o->description[0])
			add_plain(oj, "description", o->description);
		cJSON_AddItemToArray(opts, oj);
	}
	cJSON_AddItemToArray(add_row(rows), s);
}

/* The select menu and buttons of t as data's components. */
static void add_components(cJSON *data, const struct msg *t)
{
	cJSON *rows = cJSON_AddArrayToObject(data, "components"), *row = NULL;
	int select = msg_has_select(t);
	int nbuttons =
	    select && t->nbuttons > MSG_BUTTONS_SELECT ? MSG_BUTTONS_SELECT : t->nbuttons;

	/* The select menu alone in the first row, then rows of 5 buttons: 5
	 * rows at most, as msg_button and msg_select keep it. */
	if (select)
		add_select(rows, &t->select);
	for (int i = 0; i < nbuttons; i++) {
		const struct msg_button *mb = &t->buttons[i];
		cJSON *b = cJSON_CreateObject();
		if (i % 5 == 0)
			row = add_row(rows);
		cJSON_AddNumberToObject(b, "type", 2);
		cJSON_AddNumberToObject(b, "style", button_styles[mb->style % 3]);
		add_plain(b, "label", mb->label);
		if (mb->disabled)
			cJSON_AddBoolToObject(b, "disabled", 1);
		if (mb->prompt) {
			/* A click is answered with a modal (discord_modal_json). */
			char id[MSG_BUTTON_ID + 1];
			snprintf(id, sizeof(id), "?%s", mb->id);
			cJSON_AddStringToObject(b, "custom_id", id);
		} else {
			cJSON_AddStringToObject(b, "custom_id", mb->id);
		}
		cJSON_AddItemToArray(row, b);
	}
}

static void add_table(cJSON *data, const struct msg *t)
{
	cJSON *embeds = cJSON_AddArrayToObject(data, "embeds");
	cJSON *e = cJSON_CreateObject(), *fields;

	if (t->title[0])
		cJSON_AddStringToObject(e, "title", t->title);
	if (t->text[0])
		cJSON_AddStringToObject(e, "description", t->text);
	cJSON_AddNumberToObject(e, "color", 0x2e8b57);
	if (t->nfields) {
		fields = cJSON_AddArrayToObject(e, "fields");
		for (int i = 0; i < t->nfields; i++) {
			cJSON *f = cJSON_CreateObject();
			cJSON_AddStringToObject(f, "name",
			                        t->fields[i].name[0] ? t->fields[i].name : "-");
			cJSON_AddStringToObject(f, "value",
			                        t->fields[i].value[0] ? t->fields[i].value : "-");
			cJSON_AddTrueToObject(f, "inline");
			cJSON_AddItemToArray(fields, f);
		}
	}
	if (has_picture(t)) {
		char url[MSG_PICTURE_NAME + 16];
		snprintf(url, sizeof(url), "attachment://%s", t->picture_name);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(e, "image"), "url", url);
	}
	cJSON_AddItemToArray(embeds, e);
	add_components(data, t);
}

/* 1 when s is a snowflake: 1 to 20 digits. */
int discord_out_is_snowflake(const char *s)
{
	size_t n = strspn(s, "0123456789");

	return n >= 1 && n < SNOWFLAKE_MAX && s[n] == '\0';
}

/* The user a table message calls by a mention, or NULL: a public table
 * whose call names a snowflake. */
static const char *called_user(const struct msg *t)
{
	return t && t->audience == MSG_CHANNEL && discord_out_is_snowflake(t->call.user)
	           ? t->call.user
	           : NULL;
}

/* What stands for the earliest lines of a narration too long for one
 * message: they are left out, and /log tells them (in either language). */
#define LEFT_OUT "\xe2\x80\xa6 (/log)\n"

/* Writes to content (CONTENT_MAX + 1 bytes) the texts of m[0..n-1] but
 * tables (a title in bold heading its text), then the call of `table` (NULL:
 * none), each on its own line. When they do not fit, the texts' earliest
 * lines are left out, LEFT_OUT in their place: the last lines and the
 * call are what a live table must show. */
static void compose_content(const struct msg *const *m, int n, const struct msg *table,
                            char *content)
{
	char call[MSG_CALL_TEXT + MSG_USER_MAX + 8] = "";
	size_t total = 0, budget, start = 0;
	const char *user = called_user(table);
	struct text tx;
	char *all;

	if (user)
		snprintf(call, sizeof(call), "<@%s>%s", user, table->call.text);
	else if (table && table->call.user[0])
		snprintf(call, sizeof(call), "%s%s", table->call.name, table->call.text);
	for (int i = 0; i < n; i++)
		if (m[i]->kind != MSG_TABLE)
			total += strlen(m[i]->title) + strlen(m[i]->text) + 8;
	all = malloc(total + 1);
	text_init(&tx, content, CONTENT_MAX + 1);
	if (all) {
		struct text at;
		text_init(&at, all, total + 1);
		for (int i = 0; i < n; i++) {
			if (m[i]->kind == MSG_TABLE)
				continue;
			if (at.len)
				text_add(&at, "\n");
			if (m[i]->title[0]) { /* a reply's title ("Your hand") heads its text */
				text_add(&at, "**");
				text_add(&at, m[i]->title);
				text_add(&at, "**\n");
			}
			text_add(&at, m[i]->text);
			while (at.len && all[at.len - 1] == '\n') /* one line break between */
				all[--at.len] = '\0';
		}
		budget = CONTENT_MAX - (call[0] ? strlen(call) + 1 : 0);
		if (at.len > budget) {
			const char *cut;
			budget -= sizeof(LEFT_OUT) - 1;
			start = at.len - budget;
			cut = strchr(all + start, '\n');
			start = cut ? (size_t)(cut + 1 - all) : at.len;
			text_add(&tx, LEFT_OUT);
		}
		text_add(&tx, all + start);
		free(all);
	}
	if (call[0]) {
		if (tx.len)
			text_add(&tx, "\n");
		text_add(&tx, call);
	}
}

char *discord_response_json(int type, const struct msg *const *m, int n, int flags)
{
	cJSON *root = jsonarena_object(), *data, *mentions;
	char content[CONTENT_MAX + 1];
	const struct msg *table = NULL, *panel = NULL, *pics[REST_MAX_FILES] = { 0 };
	int npics = pick_pictures(m, n, pics);
	const char *user;
	char *json;

	if (!root)
		return NULL;
	data = type ? cJSON_AddObjectToObject(root, "data") : root;
	for (int i = 0; i < n; i++) {
		if (m[i]->kind == MSG_TABLE)
			table = m[i];
		else if (m[i]->nbuttons || msg_has_select(m[i]))
			panel = m[i];
	}
	compose_content(m, n, table, content);
	user = called_user(table);
	if (type)
		cJSON_AddNumberToObject(root, "type", type);
	cJSON_AddStringToObject(data, "content", content);
	if (table) {
		add_table(data, table);
	} else if (panel) {
		/* A reply's own choices (a private hand, a preview): its
		 * buttons and menu under the text. */
		if (type == 7)
			cJSON_AddArrayToObject(data, "embeds");
		add_components(data, panel);
	} else if (type == 7) {
		cJSON_AddArrayToObject(data, "embeds");
		cJSON_AddArrayToObject(data, "components");
	}
	if (flags & DISCORD_EPHEMERAL)
		cJSON_AddNumberToObject(data, "flags", 64);
	/* Nobody is pinged but the player called, whatever the text holds. */
	mentions = cJSON_AddObjectToObject(data, "allowed_mentions");
	cJSON_AddArrayToObject(mentions, "parse");
	if (user)
		cJSON_AddItemToArray(cJSON_AddArrayToObject(mentions, "users"),
		                     cJSON_CreateString(user));
	if (npics) {
		/* The files the message keeps: these, as files[0..]. */
		cJSON *list = cJSON_AddArrayToObject(data, "attachments");
		for (int j = 0; j < npics; j++) {
			cJSON *a = cJSON_CreateObject();
			cJSON_AddNumberToObject(a, "id", j);
			cJSON_AddStringToObject(a, "filename", pics[j]->picture_name);
			cJSON_AddItemToArray(list, a);
		}
	}
	jsonarena_built();
	json = cJSON_PrintUnformatted(root);
	jsonarena_delete(root);
	return json;
}

char *discord_modal_json(const char *button, const struct msg_prompt *p, const char *label)
{
	char id[MSG_BUTTON_ID + 1], title[MSG_PROMPT_TITLE], *json;
	struct cmd c;
	cJSON *root, *data, *input;

	if (strlen(button) > 99)
		return NULL;
	snprintf(id, sizeof(id), "?%s", button);
	if (p && p->title[0]) {
		discord_plain(title, sizeof(title), p->title);
	} else if (label && label[0]) {
		text_copy(title, sizeof(title), label);
	} else {
		const char *word = cmd_parse_button(button, &c) == CMD_OK ? cmd_word(&c) : NULL;
		text_copy(title, sizeof(title), word ? word : "?");
	}
	root = cJSON_CreateObject();
	cJSON_AddNumberToObject(root, "type", 9);
	data = cJSON_AddObjectToObject(root, "data");
	cJSON_AddStringToObject(data, "custom_id", id);
	cJSON_AddStringToObject(data, "title", title);
	input = cJSON_CreateObject();
	cJSON_AddNumberToObject(input, "type", 4);
	cJSON_AddStringToObject(input, "custom_id", DISCORD_TEXT_INPUT);
	cJSON_AddNumberToObject(input, "style", 1);
	if (p && p->label[0])
		add_plain(input, "label", p->label);
	else
		cJSON_AddStringToObject(input, "label", title);
	if (p && p->placeholder[0])
		add_plain(input, "placeholder", p->placeholder);
	cJSON_AddNumberToObject(input, "min_length", 1);
	cJSON_AddNumberToObject(
	    input, "max_length",
	    p && p->max_len >= 1 && p->max_len <= MSG_PROMPT_TEXT ? p->max_len : MSG_PROMPT_TEXT);
	cJSON_AddTrueToObject(input, "required");
	cJSON_AddItemToArray(add_row(cJSON_AddArrayToObject(data, "components")), input);
	json = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return json;
}
