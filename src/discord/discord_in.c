/* The Discord adapter: interactions in (names, options, clicks, modals). */
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

/* ---- interactions in ---- */

const char *discord_in_str(const cJSON *obj, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(it) ? it->valuestring : NULL;
}

/* Bytes of the UTF-8 sequence that s begins (1 for a stray byte), never past
 * its NUL. */
static size_t utf8_len(const char *s)
{
	unsigned char c = (unsigned char)s[0];
	size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;

	for (size_t k = 1; k < n; k++)
		if (!s[k])
			return k;
	return n;
}

int discord_escape_name(char *dst, size_t cap, const char *src)
{
	/* lead: 0 only blanks so far, 1 blanks then digits, 2 past the start */
	int lead = 0;
	size_t len = 0;

	for (const char *s = src; *s;) {
		size_t n = utf8_len(s);
		int c = (unsigned char)*s,
		    esc = n == 1 && (strchr("\\*_~`|<>[]@", c) || (lead == 0 && strchr("#-+", c)) ||
		                     (lead == 1 && strchr(".)", c)));
		if (len + esc + n > cap - 1) {
			dst[len] = '\0';
			return 1;
		}
		if (esc)
			dst[len++] = '\\';
		if (n == 1 && (c < 0x20 || c == 0x7f)) {
			dst[len++] = ' ';
		} else {
			memcpy(dst + len, s, n);
			len += n;
		}
		if (c >= '0' && c <= '9' && lead < 2)
			lead = 1;
		else if (c != ' ' || lead == 1)
			lead = 2;
		s += n;
	}
	dst[len] = '\0';
	return 0;
}

int discord_plain(char *dst, size_t cap, const char *src)
{
	size_t len = 0;

	for (const char *s = src; *s;) {
		size_t n;
		if (text_is_escape(s))
			s++;
		n = utf8_len(s);
		if (len + n > cap - 1) {
			dst[len] = '\0';
			return 1;
		}
		memcpy(dst + len, s, n);
		len += n;
		s += n;
	}
	dst[len] = '\0';
	return 0;
}

/* Copies an optional string member; -1 when present but too long. */
static int copy_member(char *dst, size_t cap, const cJSON *obj, const char *key)
{
	const char *s = discord_in_str(obj, key);

	dst[0] = '\0';
	if (!s)
		return 0;
	if (strlen(s) >= cap)
		return -1;
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

/* Appends an option's value to the command's arguments. */
static int add_arg(struct cmd *c, const cJSON *opt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(opt, "value");
	char buf[CMD_ARG_MAX];

	if (c->nargs == CMD_ARGS_MAX)
		return -1;
	if (cJSON_IsString(v)) {
		if (strlen(v->valuestring) >= sizeof(buf) || !v->valuestring[0])
			return -1;
		snprintf(buf, sizeof(buf), "%s", v->valuestring);
	} else if (cJSON_IsNumber(v) && v->valuedouble > -9007199254740992.0 &&
	           v->valuedouble < 9007199254740992.0) {
		snprintf(buf, sizeof(buf), "%lld", (long long)v->valuedouble);
	} else if (cJSON_IsBool(v)) {
		snprintf(buf, sizeof(buf), "%s", cJSON_IsTrue(v) ? "true" : "false");
	} else {
		return -1;
	}
	memcpy(c->args[c->nargs++], buf, strlen(buf) + 1);
	return 0;
}

/* Options of a slash command in the order the bot's parser expects: the
 * victim with its cultist number as "<user>-<k>", everything else as words. */
static int read_options(const cJSON *data, struct cmd *c, char *err, size_t errlen)
{
	const cJSON *opts = cJSON_GetObjectItemCaseSensitive(data, "options"), *o;
	const cJSON *victim = NULL, *cultist = NULL;
	int n = 0;

	if (opts && !cJSON_IsArray(opts))
		return snprintf(err, errlen, "options is not an array"), -1;
	cJSON_ArrayForEach(o, opts)
	{
		const char *name = discord_in_str(o, "name");
		if (++n > 25 || !name)
			return snprintf(err, errlen, "bad options"), -1;
		if (strcmp(name, "victim") == 0)
			victim = o;
		else if (strcmp(name, "cultist") == 0)
			cultist = o;
		else if (add_arg(c, o))
			return snprintf(err, errlen, "bad option %.32s", name), -1;
	}
	if (victim) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(victim, "value");
		const cJSON *k =
		    cultist ? cJSON_GetObjectItemCaseSensitive(cultist, "value") : NULL;
		if (!cJSON_IsString(v) || strlen(v->valuestring) > 40 || c->nargs == CMD_ARGS_MAX)
			return snprintf(err, errlen, "bad victim"), -1;
		if (k && (!cJSON_IsNumber(k) || k->valuedouble < 1 || k->valuedouble > 3))
			return snprintf(err, errlen, "bad cultist"), -1;
		if (k)
			snprintf(c->args[c->nargs++], CMD_ARG_MAX, "%s-%d", v->valuestring,
			         (int)k->valuedouble);
		else
			snprintf(c->args[c->nargs++], CMD_ARG_MAX, "%s", v->valuestring);
	}
	return 0;
}

/* The option being typed in an autocomplete interaction: the one with
 * "focused": true among at most 25 (its value is partial, possibly empty;
 * a number is written in decimal). */
static int read_focus(const cJSON *data, struct discord_req *out, char *err, size_t errlen)
{
	const cJSON *opts = cJSON_GetObjectItemCaseSensitive(data, "options"), *o;
	int n = 0;

	if (!cJSON_IsArray(opts))
		return snprintf(err, errlen, "no options to complete"), -1;
	cJSON_ArrayForEach(o, opts)
	{
		const char *name = discord_in_str(o, "name");
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "value");
		if (++n > 25)
			break;
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "focused")))
			continue;
		if (!name || !name[0] || strlen(name) >= sizeof(out->focus_option))
			break;
		text_copy(out->focus_option, sizeof(out->focus_option), name);
		if (cJSON_IsString(v))
			text_copy(out->focus, sizeof(out->focus), v->valuestring);
		else if (cJSON_IsNumber(v) && v->valuedouble > -9007199254740992.0 &&
		         v->valuedouble < 9007199254740992.0)
			snprintf(out->focus, sizeof(out->focus), "%lld", (long long)v->valuedouble);
		return 0;
	}
	return snprintf(err, errlen, "no focused option"), -1;
}

/* A message component interaction: a button (custom_id "<game>:<move>:..."),
 * a button that asks for text ("?" + that), or a select menu's choice (the
 * same id and data.values holding one value). */
static int read_component(const cJSON *data, struct discord_req *out, char *err, size_t errlen)
{
	const char *custom = discord_in_str(data, "custom_id");
	const cJSON *ctype = cJSON_GetObjectItemCaseSensitive(data, "component_type");
	const cJSON *values = cJSON_GetObjectItemCaseSensitive(data, "values");
	int type = 2;

	if (ctype) {
		if (!cJSON_IsNumber(ctype) || (ctype->valuedouble != 2 && ctype->valuedouble != 3))
			return snprintf(err, errlen, "unknown component type"), -1;
		type = (int)ctype->valuedouble;
	} else if (values) {
		type = 3;
	}
	if (!custom || strlen(custom) > 100)
		return snprintf(err, errlen, "unknown button"), -1;
	if (custom[0] == '?') {
		if (type != 2 || values || cmd_parse_button(custom + 1, &out->req.cmd) != CMD_OK)
			return snprintf(err, errlen, "unknown button"), -1;
		out->prompt = 1;
		text_copy(out->button, sizeof(out->button), custom + 1);
		return 0;
	}
	if (cmd_parse_button(custom, &out->req.cmd) != CMD_OK)
		return snprintf(err, errlen, "unknown button"), -1;
	if (type == 2) {
		if (values)
			return snprintf(err, errlen, "values from a button"), -1;
		return 0;
	}
	if (!cJSON_IsArray(values) || cJSON_GetArraySize(values) != 1 ||
	    !cJSON_IsString(values->child) || !msg_value_ok(values->child->valuestring) ||
	    cmd_append_arg(&out->req.cmd, values->child->valuestring) != CMD_OK)
		return snprintf(err, errlen, "bad select values"), -1;
	return 0;
}

/* The value of the text input DISCORD_TEXT_INPUT among a modal submission's
 * components (action rows holding components, or labels holding one), or
 * NULL. At most 5 of each are looked at. */
static const char *modal_text(const cJSON *rows)
{
	const cJSON *row;
	int r = 0;

	cJSON_ArrayForEach(row, rows)
	{
		const cJSON *items = cJSON_GetObjectItemCaseSensitive(row, "components");
		const cJSON *one = cJSON_GetObjectItemCaseSensitive(row, "component");
		const cJSON *c;
		int k = 0;
		if (++r > 5)
			break;
		if (cJSON_IsObject(one))
			items = NULL;
		else if (!cJSON_IsArray(items))
			continue;
		for (c = items ? items->child : one; c && k < 5; c = items ? c->next : NULL, k++) {
			const cJSON *type = cJSON_GetObjectItemCaseSensitive(c, "type");
			const char *id = discord_in_str(c, "custom_id");
			if (cJSON_IsNumber(type) && type->valuedouble == 4 && id &&
			    strcmp(id, DISCORD_TEXT_INPUT) == 0)
				return discord_in_str(c, "value");
		}
	}
	return NULL;
}

/* A modal's submission: custom_id "?" + the button's id, and the text typed,
 * which becomes the command's last argument. */
static int read_modal(const cJSON *data, struct discord_req *out, char *err, size_t errlen)
{
	const char *custom = discord_in_str(data, "custom_id");
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(data, "components");
	const char *text, *end;
	char arg[MSG_PROMPT_TEXT + 1];
	size_t n;

	if (!custom || strlen(custom) > 100 || custom[0] != '?' ||
	    cmd_parse_button(custom + 1, &out->req.cmd) != CMD_OK)
		return snprintf(err, errlen, "unknown modal"), -1;
	if (!cJSON_IsArray(rows) || cJSON_GetArraySize(rows) > 5)
		return snprintf(err, errlen, "bad modal components"), -1;
	text = modal_text(rows);
	if (!text || strlen(text) > 4000)
		return snprintf(err, errlen, "no text in the modal"), -1;
	while (*text == ' ' || *text == '\t')
		text++;
	end = text + strlen(text);
	while (end > text && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	n = (size_t)(end - text);
	if (n == 0 || n > MSG_PROMPT_TEXT)
		return snprintf(err, errlen, "the text is empty or too long"), -1;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
			return snprintf(err, errlen, "control characters in the text"), -1;
	memcpy(arg, text, n);
	arg[n] = '\0';
	if (cmd_append_arg(&out->req.cmd, arg) != CMD_OK)
		return snprintf(err, errlen, "too many arguments"), -1;
	return 0;
}

/* Finds the label of the button "?" + out->button in a message's components
 * (5 rows of 5 at most looked at); leaves "" when it is not there. */
static void find_label(const cJSON *msg, struct discord_req *out)
{
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(msg, "components"), *row;
	int r = 0;

	if (!cJSON_IsArray(rows))
		return;
	cJSON_ArrayForEach(row, rows)
	{
		const cJSON *items = cJSON_GetObjectItemCaseSensitive(row, "components"), *c;
		int k = 0;
		if (++r > 5)
			break;
		if (!cJSON_IsArray(items))
			continue;
		cJSON_ArrayForEach(c, items)
		{
			const char *id = discord_in_str(c, "custom_id"),
			           *label = discord_in_str(c, "label");
			if (++k > 5)
				break;
			if (id && label && id[0] == '?' && strcmp(id + 1, out->button) == 0) {
				text_copy(out->button_label, sizeof(out->button_label), label);
				return;
			}
		}
	}
}

int discord_parse_interaction(const cJSON *d, struct discord_req *out, char *err, size_t errlen)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(d, "type");
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(d, "data");
	const cJSON *member = cJSON_GetObjectItemCaseSensitive(d, "member");
	const cJSON *user = cJSON_GetObjectItemCaseSensitive(member ? member : d, "user");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(d, "message");
	const char *perms = member ? discord_in_str(member, "permissions") : NULL;
	const char *name;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(d) || !cJSON_IsNumber(type) || !cJSON_IsObject(data) ||
	    !cJSON_IsObject(user))
		return snprintf(err, errlen, "not an interaction"), -1;
	out->type = type->valueint;
	if (copy_member(out->id, sizeof(out->id), d, "id") || !out->id[0] ||
	    copy_member(out->token, sizeof(out->token), d, "token") || !out->token[0] ||
	    copy_member(out->channel, sizeof(out->channel), d, "channel_id") || !out->channel[0] ||
	    copy_member(out->server, sizeof(out->server), d, "guild_id") ||
	    copy_member(out->user, sizeof(out->user), user, "id") || !out->user[0])
		return snprintf(err, errlen, "missing or oversized ids"), -1;
	if (!out->server[0])
		snprintf(out->server, sizeof(out->server), "dm");
	name = discord_in_str(user, "global_name");
	if (!name || !*name)
		name = discord_in_str(user, "username");
	discord_escape_name(out->name, sizeof(out->name), name ? name : out->user);
	if (copy_member(out->locale, sizeof(out->locale), d, "locale") || !out->locale[0])
		if (copy_member(out->locale, sizeof(out->locale), d, "guild_locale"))
			out->locale[0] = '\0';
	if (perms) {
		unsigned long long bits = strtoull(perms, NULL, 10);
		out->req.moderator = (bits & (MANAGE_CHANNELS | ADMINISTRATOR)) != 0;
	}
	if (out->type == 2 || out->type == 4) {
		const char *cname = discord_in_str(data, "name");
		memset(&out->req.cmd, 0, sizeof(out->req.cmd));
		out->req.cmd.move = -1;
		if (!cname || cmd_set_name(&out->req.cmd, cname))
			return snprintf(err, errlen, "unknown command"), -1;
		if (out->type == 2 ? read_options(data, &out->req.cmd, err, errlen)
		                   : read_focus(data, out, err, errlen))
			return -1;
	} else if (out->type == 3) {
		if (read_component(data, out, err, errlen))
			return -1;
	} else if (out->type == 5) {
		if (read_modal(data, out, err, errlen))
			return -1;
	} else {
		return snprintf(err, errlen, "interaction type %d not handled", out->type), -1;
	}
	if ((out->type == 3 || out->type == 5) && msg) {
		const cJSON *flags = cJSON_GetObjectItemCaseSensitive(msg, "flags");
		if (copy_member(out->message_id, sizeof(out->message_id), msg, "id"))
			return snprintf(err, errlen, "bad message id"), -1;
		out->message_private = cJSON_IsNumber(flags) && flags->valuedouble >= 0 &&
		                       flags->valuedouble < 9007199254740992.0 &&
		                       ((uint64_t)flags->valuedouble & 64) != 0;
		if (out->prompt)
			find_label(msg, out);
	}
	out->req.server = out->server;
	out->req.channel = out->channel;
	out->req.user = out->user;
	out->req.name = out->name;
	out->req.locale = out->locale[0] ? out->locale : NULL;
	return 0;
}
