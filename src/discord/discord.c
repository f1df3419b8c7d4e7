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
#include "rlyeh/solvecache.h"
#include "rlyeh/store.h"
#include "rlyeh/text.h"

#define USER_AGENT      "DiscordBot (https://github.com/rlyeh-bot/rlyeh, " RLYEH_VERSION ")"
#define PROTOCOL        "rlyeh-gateway"
#define DEDUP_SLOTS     8192
#define CHANNELS_MAX    65536
#define PENDING_SLOTS   8192
#define MANAGE_CHANNELS (1ULL << 4)
#define ADMINISTRATOR   (1ULL << 3)
#define TOKEN_LIFE_MS   (14LL * 60 * 1000) /* interaction tokens last 15 minutes */
#define CONTENT_MAX     2000
#define TRIM_MS         2000  /* between two returns of free heap pages to the system */
#define BATCH_MAX       32    /* interactions committed together at most */
#define BATCH_MSGS      64    /* replies (~20 KB each) held for a commit at most, about */
#define GATHER_US       20000 /* time spent gathering readable interactions into a batch */
#define SNOWFLAKE_MAX   21    /* Discord ids are 64-bit integers: 20 digits at most */

_Static_assert(MSG_PROMPT_TEXT <= CMD_ARG_MAX - 1, "a prompt's text is one command argument");

/* ---- interactions in ---- */

static const char *str(const cJSON *obj, const char *key)
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
	const char *s = str(obj, key);

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
		const char *name = str(o, "name");
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
		const char *name = str(o, "name");
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
	const char *custom = str(data, "custom_id");
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
			const char *id = str(c, "custom_id");
			if (cJSON_IsNumber(type) && type->valuedouble == 4 && id &&
			    strcmp(id, DISCORD_TEXT_INPUT) == 0)
				return str(c, "value");
		}
	}
	return NULL;
}

/* A modal's submission: custom_id "?" + the button's id, and the text typed,
 * which becomes the command's last argument. */
static int read_modal(const cJSON *data, struct discord_req *out, char *err, size_t errlen)
{
	const char *custom = str(data, "custom_id");
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
			const char *id = str(c, "custom_id"), *label = str(c, "label");
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
	const char *perms = member ? str(member, "permissions") : NULL;
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
	name = str(user, "global_name");
	if (!name || !*name)
		name = str(user, "username");
	discord_escape_name(out->name, sizeof(out->name), name ? name : out->user);
	if (copy_member(out->locale, sizeof(out->locale), d, "locale") || !out->locale[0])
		if (copy_member(out->locale, sizeof(out->locale), d, "guild_locale"))
			out->locale[0] = '\0';
	if (perms) {
		unsigned long long bits = strtoull(perms, NULL, 10);
		out->req.moderator = (bits & (MANAGE_CHANNELS | ADMINISTRATOR)) != 0;
	}
	if (out->type == 2 || out->type == 4) {
		const char *cname = str(data, "name");
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

/* ---- command definitions ---- */

/* The table commands; each game's actions come from play_action_at(). The
 * choices "@games" stand for every game's name; "@policies" makes the
 * option an autocomplete one, answered with the computer policies of the
 * channel's game (discord_autocomplete_json). */
struct cmd_def {
	int kind;
	const char *nl_name;
	const char *desc, *nl_desc;
	struct play_option opts[5];
};

static const struct cmd_def defs[] = {
	{ CMD_OPEN,
	  "openen",
	  "Open a game in this channel",
	  "Open een spel in dit kanaal",
	  { { "game", "spel", PLAY_ARG_TEXT, 0, "The game", "Het spel", "@games" },
	    { "variant", "variant", PLAY_ARG_TEXT, 0, "Cthulhu Dice: classic or Rival Cults",
	      "Cthulhu Dice: klassiek of Rivaliserende Sektes", "classic,rival-cults" },
	    { "cultists", "sektariers", PLAY_ARG_NUMBER, 0,
	      "Cthulhu Dice, Rival Cults: cultists per player",
	      "Cthulhu Dice, Rivaliserende Sektes: sektariërs per speler", "2,3" },
	    { "language", "taal", PLAY_ARG_TEXT, 0, "Language of the table", "Taal van de tafel",
	      "en,nl" },
	    { "settings", "instellingen", PLAY_ARG_TEXT, 0,
	      "CTHULHU!!!: table settings, e.g. quick:30 window:off enemies:manual confirm:off "
	      "cap:20",
	      "CTHULHU!!!: tafelinstellingen, bijv. snel:30 venster:uit vijanden:handmatig "
	      "bevestigen:uit rondes:20",
	      NULL } } },
	{ CMD_JOIN, "meedoen", "Take a seat at the table", "Neem plaats aan de tafel", { { 0 } } },
	{ CMD_LEAVE, "vertrekken", "Leave the table", "Verlaat de tafel", { { 0 } } },
	{ CMD_ADDBOT,
	  "computer",
	  "Add a computer player (owner)",
	  "Voeg een computerspeler toe (eigenaar)",
	  { { "policy", "strategie", PLAY_ARG_TEXT, 0, "How it plays", "Hoe hij speelt",
	      "@policies" } } },
	{ CMD_REMOVE,
	  "verwijderen",
	  "Remove a player before the start (owner)",
	  "Verwijder een speler voor het begin (eigenaar)",
	  { { "player", "speler", PLAY_ARG_USER, 1, "The player", "De speler", NULL } } },
	{ CMD_START,
	  "beginnen",
	  "Start the game (owner)",
	  "Begin het spel (eigenaar)",
	  { { "first", "eerste", PLAY_ARG_USER, 0, "Who casts first", "Wie als eerste vervloekt",
	      NULL } } },
	{ CMD_STATUS, "stand", "Show the table", "Toon de tafel", { { 0 } } },
	{ CMD_HINT,
	  "tip",
	  "Your chance of winning with each choice (only you see it)",
	  "Je kans om te winnen bij elke keuze (alleen jij ziet het)",
	  { { 0 } } },
	{ CMD_RULES,
	  "regels",
	  "The rules",
	  "De regels",
	  { { "game", "spel", PLAY_ARG_TEXT, 0, "The game (the table's by default)",
	      "Het spel (standaard dat van de tafel)", "@games" } } },
	{ CMD_HELP, "hulp", "All commands", "Alle commando's", { { 0 } } },
	{ CMD_ABORT,
	  "stoppen",
	  "Stop the game (owner or moderator)",
	  "Stop het spel (eigenaar of moderator)",
	  { { 0 } } },
	{ CMD_REMATCH,
	  "revanche",
	  "Play again: the winner casts first",
	  "Speel opnieuw: de winnaar begint",
	  { { 0 } } },
	{ CMD_LEADERBOARD,
	  "ranglijst",
	  "The ranking of this server",
	  "De ranglijst van deze server",
	  { { "scope", "bereik", PLAY_ARG_TEXT, 0, "This server or all", "Deze server of alle",
	      "all" },
	    { "period", "periode", PLAY_ARG_TEXT, 0, "A period", "Een periode", "week,month,year" },
	    { "game", "spel", PLAY_ARG_TEXT, 0, "The game (the table's by default)",
	      "Het spel (standaard dat van de tafel)", "@games" } } },
	{ CMD_STATS,
	  "statistieken",
	  "A player's record",
	  "De resultaten van een speler",
	  { { "player", "speler", PLAY_ARG_USER, 0, "The player", "De speler", NULL },
	    { "scope", "bereik", PLAY_ARG_TEXT, 0, "This server or all", "Deze server of alle",
	      "all" },
	    { "period", "periode", PLAY_ARG_TEXT, 0, "A period", "Een periode", "week,month,year" },
	    { "game", "spel", PLAY_ARG_TEXT, 0, "The game (the table's by default)",
	      "Het spel (standaard dat van de tafel)", "@games" } } },
	{ CMD_LANGUAGE,
	  "taal",
	  "The language I answer you in",
	  "De taal waarin ik je antwoord",
	  { { "language", "taal", PLAY_ARG_TEXT, 1, "Language", "Taal", "en,nl" } } },
	{ CMD_LOG,
	  "logboek",
	  "What happened at the table (only you see it)",
	  "Wat er aan tafel gebeurde (alleen jij ziet het)",
	  { { "page", "pagina", PLAY_ARG_NUMBER, 0, "Page 1 is the latest",
	      "Pagina 1 is het laatste", NULL } } },
	{ CMD_NOTIFY,
	  "melding",
	  "Be called (mentioned) when a table waits for your move",
	  "Word geroepen (vermeld) wanneer een tafel op jouw zet wacht",
	  { { "calls", "roepen", PLAY_ARG_TEXT, 1, "On or off", "Aan (on) of uit (off)",
	      "on,off" } } },
};

static void localized(cJSON *obj, const char *key, const char *nl)
{
	cJSON *loc = cJSON_AddObjectToObject(obj, key);

	cJSON_AddStringToObject(loc, "nl", nl);
}

/* Discord's option types for enum play_arg. */
static const int option_types[] = {
	[PLAY_ARG_TEXT] = 3, [PLAY_ARG_USER] = 6, [PLAY_ARG_NUMBER] = 4
};

/* Writes the choices "@games" stands for (every game's name) into buf. */
static const char *expand_choices(const char *choices, char *buf, size_t cap)
{
	struct text tx;

	if (strcmp(choices, "@games") != 0)
		return choices;
	text_init(&tx, buf, cap);
	for (int g = 0; play_games[g]; g++)
		text_addf(&tx, "%s%s", g ? "," : "", play_games[g]->ops->name);
	return buf;
}

/* Appends one slash command to arr. */
static void add_command(cJSON *arr, const char *name, const char *nl_name, const char *desc,
                        const char *nl_desc, const struct play_option *opt, int nopt)
{
	cJSON *c = cJSON_CreateObject(), *opts = NULL;

	cJSON_AddStringToObject(c, "name", name);
	localized(c, "name_localizations", nl_name);
	cJSON_AddStringToObject(c, "description", desc);
	localized(c, "description_localizations", nl_desc);
	cJSON_AddNumberToObject(c, "type", 1);
	for (int k = 0; k < nopt && opt[k].name; k++) {
		const struct play_option *o = &opt[k];
		cJSON *oj = cJSON_CreateObject();
		int autocomplete = o->choices && (strcmp(o->choices, "@policies") == 0 ||
		                                  strcmp(o->choices, "@complete") == 0);
		if (!opts)
			opts = cJSON_AddArrayToObject(c, "options");
		cJSON_AddNumberToObject(oj, "type", option_types[o->type]);
		cJSON_AddStringToObject(oj, "name", o->name);
		localized(oj, "name_localizations", o->nl_name);
		cJSON_AddStringToObject(oj, "description", o->desc);
		localized(oj, "description_localizations", o->nl_desc);
		if (o->required)
			cJSON_AddTrueToObject(oj, "required");
		if (o->type == PLAY_ARG_TEXT && (!o->choices || autocomplete))
			/* a longer value is not read (add_arg): Discord keeps it short */
			cJSON_AddNumberToObject(oj, "max_length", CMD_ARG_MAX - 1);
		if (autocomplete) {
			/* "autocomplete may not be set to true if choices are
			 * present" (Application Commands: Option Structure) */
			cJSON_AddTrueToObject(oj, "autocomplete");
		} else if (o->choices) {
			cJSON *ch = cJSON_AddArrayToObject(oj, "choices");
			char all[256], buf[256];
			text_copy(buf, sizeof(buf), expand_choices(o->choices, all, sizeof(all)));
			for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				cJSON *cj = cJSON_CreateObject();
				char *nl = strchr(t, '=');
				if (nl)
					*nl++ = '\0'; /* "value=Dutch name" */
				cJSON_AddStringToObject(cj, "name", t);
				if (nl)
					localized(cj, "name_localizations", nl);
				if (o->type == PLAY_ARG_NUMBER)
					cJSON_AddNumberToObject(cj, "value", strtol(t, NULL, 10));
				else
					cJSON_AddStringToObject(cj, "value", t);
				cJSON_AddItemToArray(ch, cj);
			}
		}
		cJSON_AddItemToArray(opts, oj);
	}
	cJSON_AddItemToArray(arr, c);
}

char *discord_commands_json(void)
{
	cJSON *arr = cJSON_CreateArray();
	const struct play_action *a;
	char *json;

	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
		add_command(arr, cmd_name(defs[i].kind), defs[i].nl_name, defs[i].desc,
		            defs[i].nl_desc, defs[i].opts,
		            (int)(sizeof(defs[i].opts) / sizeof(defs[i].opts[0])));
	for (int i = 0; (a = play_action_at(i)); i++)
		add_command(arr, a->name, a->nl_name, a->desc, a->nl_desc, a->opts,
		            PLAY_OPTIONS_MAX);
	json = cJSON_PrintUnformatted(arr);
	cJSON_Delete(arr);
	return json;
}

static int ascii_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* 1 when s contains part ("" is in every s), ASCII letters compared without
 * case. */
static int contains_nocase(const char *s, const char *part)
{
	size_t n = strlen(part);

	for (const char *p = s;; p++) {
		size_t k = 0;
		while (k < n && p[k] && ascii_lower(p[k]) == ascii_lower(part[k]))
			k++;
		if (k == n)
			return 1;
		if (!*p)
			return 0;
	}
}

/* Adds to choices what the game that completes the focused option of
 * r's action ("@complete") offers for the text typed. */
static void complete_action(const struct discord_req *r, int lang, cJSON *choices)
{
	const struct play_action *a = play_action_at(r->req.cmd.action);
	struct play_choice out[PLAY_CHOICES_MAX];
	int n = 0;

	if (!a)
		return;
	for (int k = 0; k < PLAY_OPTIONS_MAX && a->opts[k].name; k++)
		if (strcmp(a->opts[k].name, r->focus_option) == 0 && a->opts[k].choices &&
		    strcmp(a->opts[k].choices, "@complete") == 0)
			for (int g = 0; play_games[g] && !n; g++)
				if (play_games[g]->complete)
					n = play_games[g]->complete(a->name, a->opts[k].name,
					                            r->focus, out,
					                            PLAY_CHOICES_MAX);
	for (int i = 0; i < n; i++) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", lang == I18N_NL ? out[i].nl_name : out[i].name);
		cJSON_AddStringToObject(c, "value", out[i].value);
		localized(c, "name_localizations", out[i].nl_name);
		cJSON_AddItemToArray(choices, c);
	}
}

char *discord_autocomplete_json(const struct discord_req *r, const char *game)
{
	/* the mark of a game's default policy, in English and Dutch */
	static const char *const default_mark[] = { " (default)", " (standaard)" };
	const struct play_game *g = game ? play_find(game) : NULL;
	cJSON *root = cJSON_CreateObject(), *choices;
	int lang = i18n_lang(r->locale), n = 0;
	char *json;

	if (!g)
		g = play_games[0];
	cJSON_AddNumberToObject(root, "type", 8);
	choices = cJSON_AddArrayToObject(cJSON_AddObjectToObject(root, "data"), "choices");
	if (r->req.cmd.kind == CMD_ADDBOT && strcmp(r->focus_option, "policy") == 0) {
		for (const struct game_policy *p = g->ops->policies; p->name && n < 25; p++) {
			int mark = g->policy && strcmp(g->policy, p->name) == 0;
			char name[2][64];
			cJSON *c;
			if (!contains_nocase(p->name, r->focus))
				continue;
			for (int l = 0; l < 2; l++)
				snprintf(name[l], sizeof(name[l]), "%s%s", p->name,
				         mark ? default_mark[l] : "");
			c = cJSON_CreateObject();
			cJSON_AddStringToObject(c, "name", name[lang == I18N_NL]);
			cJSON_AddStringToObject(c, "value", p->name);
			localized(c, "name_localizations", name[1]);
			cJSON_AddItemToArray(choices, c);
			n++;
		}
	}
	if (r->req.cmd.kind == CMD_ACTION)
		complete_action(r, lang, choices);
	json = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return json;
}

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
static int is_snowflake(const char *s)
{
	size_t n = strspn(s, "0123456789");

	return n >= 1 && n < SNOWFLAKE_MAX && s[n] == '\0';
}

/* The user a table message calls by a mention, or NULL: a public table
 * whose call names a snowflake. */
static const char *called_user(const struct msg *t)
{
	return t && t->audience == MSG_CHANNEL && is_snowflake(t->call.user) ? t->call.user : NULL;
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
	cJSON *root = cJSON_CreateObject(),
	      *data = type ? cJSON_AddObjectToObject(root, "data") : root, *mentions;
	char content[CONTENT_MAX + 1];
	const struct msg *table = NULL, *panel = NULL, *pics[REST_MAX_FILES] = { 0 };
	int npics = pick_pictures(m, n, pics);
	const char *user;
	char *json;

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
	json = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
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

/* ---- the daemon ---- */

enum tag_kind {
	TAG_GATEWAY_BOT = 1,
	TAG_REGISTER,
	TAG_CALLBACK,
	TAG_FOLLOWUP,
	TAG_OTHER,
};

/* What a request is for, kept with it until it is answered. */
struct purpose {
	int kind;            /* enum tag_kind */
	const char *channel; /* the channel it is about, or NULL */
	/* TAG_REGISTER: the fingerprint of the definitions; a live message
	 * made by an interaction: its token (to take the buttons off later) */
	const char *token;
	uint64_t live; /* it makes the channel's live message number `live`; 0: not one */
	int original;  /* that message is the interaction's original response */
};

#define DIRTY_MAX 256 /* channels whose live message waits to be kept */

/* What the adapter knows of a channel's live message: the newest public
 * message the bot posted there, holding the table, the last moves and the
 * buttons of the moment. Every new one takes the buttons off the one
 * before (it keeps its text). */
struct chan {
	char channel[SNOWFLAKE_MAX];
	uint64_t live;               /* the number of the newest live message, 0: none yet */
	int open;                    /* it has buttons or a menu to take off */
	int made;                    /* the request making it was answered: it exists */
	char msg_id[SNOWFLAKE_MAX];  /* its id once known, else "" */
	char *token;                 /* the interaction that made it, or NULL (a channel post) */
	int64_t token_at;            /* when */
	int original;                /* it is that interaction's original response */
	char clicked[SNOWFLAKE_MAX]; /* the message a click's answer took the buttons off last */
	int stored;                  /* the store holds a value for it (restore_live, keep_live) */
	int dirty;                   /* in app.dirty: to be kept (keep_dirty) */
	struct chan *next;           /* in its hash bucket */
};

/* A follow-up held until its interaction's callback is accepted, with copies
 * of its files (names and bytes in one block) and of its purpose. */
struct later {
	char *path;
	char *body;
	struct rest_file *files;
	int nfiles;
	struct purpose pu;
	char channel[SNOWFLAKE_MAX]; /* pu.channel's copy */
	char *token;                 /* pu.token's copy */
};

/* The prompt of a button sent, remembered to answer a click on it with its
 * modal (direct-mapped by the button's id; an entry overwritten, or lost in a
 * restart, gives the modal discord_modal_json makes without one). */
#define PROMPT_SLOTS 1024
struct prompt_slot {
	char id[MSG_BUTTON_ID];
	struct msg_prompt p;
};

struct pending {
	uint64_t tag;
	struct later *later; /* callbacks: follow-ups to send once accepted */
	int nlater;
	int kind;
	int64_t started_us; /* callbacks: when the interaction arrived */
	char channel[64];
	char *token;   /* as struct purpose's */
	int64_t sent;  /* when it was submitted (ms): how old its token is */
	uint64_t live; /* as struct purpose's */
	int original;  /* as struct purpose's */
};

/* An interaction whose replies wait for its batch's commit. */
struct held {
	struct discord_req r;
	int64_t arrived_us;
	struct msg_list out;
};

struct app {
	struct config cfg;
	struct store *st;
	struct bot *bot;
	struct rest *rest;
	struct shards *shards;
	struct lws_context *ctx;
	char app_id[32];
	char gateway_url[CONFIG_URL_MAX];
	int recommended_shards;         /* GET /gateway/bot's shards; 0 unknown */
	int max_concurrency;            /* session starts per 5 s (buckets) */
	long starts_left, starts_total; /* session_start_limit; < 0 unknown */
	long starts_reset_ms;           /* its reset_after */
	int registered;
	int stopping;
	uint64_t next_tag;
	struct msg_list out;
	lws_sorted_usec_list_t tick;
	lws_sorted_usec_list_t watchdog;
	uint64_t watchdog_us;
	lws_sorted_usec_list_t trim;
	/* With PostgreSQL: the limits shared with the other processes. */
	struct limits *limits;
	lws_sorted_usec_list_t shared;
	int64_t next_beat;
	int global_total; /* the whole global limit, shared by the live processes */
	int live;         /* processes running, as the last beat saw */
	const char *config_path;
	int notified_ready;
	uint64_t seen[2][DEDUP_SLOTS]; /* recent interaction ids: newer, older */
	int seen_n;
	struct chan **chans; /* hash buckets */
	size_t nchans, nbuckets;
	struct pending pend[PENDING_SLOTS];
	struct metrics metrics;
	int64_t arrived_us; /* the interaction being handled */
	struct held *batch; /* interactions handled, replies held until the commit */
	int nbatch;
	int batch_msgs;              /* the replies the batch holds */
	int batching;                /* a bot batch is open */
	uint64_t hold;               /* the callback that follow-ups wait for, or 0 */
	struct prompt_slot *prompts; /* PROMPT_SLOTS, made when a prompt is first sent */
	/* With PostgreSQL and shards = A-B/N: the shards owned here (owner.h),
	 * each shard's epoch (0 not owned) and the seq of its saved session. */
	struct owner *owner;
	lws_sorted_usec_list_t own;
	int own_first, own_count;
	int64_t own_epoch[CONFIG_SHARDS_MAX];
	int64_t own_saved_seq[CONFIG_SHARDS_MAX];
	/* connected while processes of another shard count still run */
	unsigned char own_waiting[CONFIG_SHARDS_MAX];
	/* Channels whose new live message is still to be kept (keep_dirty). */
	struct chan *dirty[DIRTY_MAX];
	int ndirty;
};

static void keep_live(struct app *a, struct chan *c);
static void keep_dirty(struct app *a);

/* A /healthz or /metrics answer being written. */
struct http_session {
	char *body;
	size_t len;
};

static volatile sig_atomic_t stop_signal, reload_signal;
static struct lws_context *signal_ctx;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_signal = 1;
	else
		stop_signal = 1;
	if (signal_ctx)
		lws_cancel_service(signal_ctx);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int in_set(const uint64_t *set, uint64_t v)
{
	for (uint64_t h = rng_mix(v);; h++) {
		uint64_t slot = set[h % DEDUP_SLOTS];
		if (slot == v)
			return 1;
		if (slot == 0)
			return 0;
	}
}

/* 1 when interaction id was seen before (then it is not applied again);
 * otherwise remembers it. Two generations of DEDUP_SLOTS / 2 ids each: when
 * the newer fills, it becomes the older and the oldest is forgotten, so the
 * last DEDUP_SLOTS / 2 to DEDUP_SLOTS ids are always remembered. */
static int seen_before(struct app *a, const char *id)
{
	uint64_t v = strtoull(id, NULL, 10), h;

	if (v == 0)
		return 0;
	if (in_set(a->seen[0], v) || in_set(a->seen[1], v))
		return 1;
	if (a->seen_n == DEDUP_SLOTS / 2) {
		memcpy(a->seen[1], a->seen[0], sizeof(a->seen[0]));
		memset(a->seen[0], 0, sizeof(a->seen[0]));
		a->seen_n = 0;
	}
	for (h = rng_mix(v); a->seen[0][h % DEDUP_SLOTS]; h++)
		;
	a->seen[0][h % DEDUP_SLOTS] = v;
	a->seen_n++;
	return 0;
}

static size_t chan_hash(const char *channel, size_t nbuckets)
{
	return (size_t)(text_hash(TEXT_HASH_SEED, channel) & (nbuckets - 1));
}

/* The key under which a channel's live message outlives a restart. */
static void live_key(const char *channel, char *key, size_t cap)
{
	snprintf(key, cap, "live:%s", channel);
}

/* Reads back what the daemon knew of c's live message when it last stopped
 * (persist_live), so that the next one takes that one's buttons off too;
 * nothing when none was kept or the value does not read. */
static void restore_live(struct app *a, struct chan *c)
{
	char key[64], value[1024], id[SNOWFLAKE_MAX], token[512];
	long long at;
	int original;

	live_key(c->channel, key, sizeof(key));
	if (!a->st || store_setting_get(a->st, key, value, sizeof(value)) || !value[0])
		return;
	token[0] = '\0';
	if (sscanf(value, "%20s %lld %d %511s", id, &at, &original, token) < 3 ||
	    (!is_snowflake(id) && strcmp(id, "-") != 0))
		return;
	c->stored = 1;
	c->open = c->made = 1;
	text_copy(c->msg_id, sizeof(c->msg_id), is_snowflake(id) ? id : "");
	c->original = original != 0;
	c->token_at = at;
	c->token = token[0] ? strdup(token) : NULL;
}

/* The channel's record, made when new (at most CHANNELS_MAX); NULL when
 * memory is short or there are too many. Records never move. */
static struct chan *chan_get(struct app *a, const char *channel)
{
	struct chan *c;

	if (a->nbuckets) {
		for (c = a->chans[chan_hash(channel, a->nbuckets)]; c; c = c->next)
			if (strcmp(c->channel, channel) == 0)
				return c;
	}
	if (a->nchans >= CHANNELS_MAX || strlen(channel) >= SNOWFLAKE_MAX)
		return NULL;
	if (a->nchans + 1 > a->nbuckets) {
		size_t n = a->nbuckets ? a->nbuckets * 2 : 64;
		struct chan **nb = calloc(n, sizeof(*nb));
		if (!nb)
			return NULL;
		for (size_t i = 0; i < a->nbuckets; i++) {
			for (struct chan *x = a->chans[i], *next; x; x = next) {
				size_t k = chan_hash(x->channel, n);
				next = x->next;
				x->next = nb[k];
				nb[k] = x;
			}
		}
		free(a->chans);
		a->chans = nb;
		a->nbuckets = n;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	text_copy(c->channel, sizeof(c->channel), channel);
	c->next = a->chans[chan_hash(channel, a->nbuckets)];
	a->chans[chan_hash(channel, a->nbuckets)] = c;
	a->nchans++;
	restore_live(a, c);
	return c;
}

/* Replaces *dst with a copy of src (NULL clears it); keeps the old one
 * when memory is short. */
static void set_str(char **dst, const char *src)
{
	char *copy = src ? strdup(src) : NULL;

	if (src && !copy)
		return;
	free(*dst);
	*dst = copy;
}

/* Frees a held follow-up's copies. */
static void later_free(struct later *l)
{
	free(l->path);
	free(l->body);
	free(l->files);
	free(l->token);
}

/* Frees a pending entry's held follow-ups. */
static void release_later(struct pending *p)
{
	for (int i = 0; i < p->nlater; i++)
		later_free(&p->later[i]);
	free(p->later);
	p->later = NULL;
	p->nlater = 0;
}

/* Copies files[0..n-1] into one block: the array, then each file's name,
 * content type, filename and bytes. NULL when n is 0 or memory is short. */
static struct rest_file *copy_files(const struct rest_file *files, int n)
{
	size_t size = (size_t)n * sizeof(*files);
	struct rest_file *out;
	char *at;

	for (int i = 0; i < n; i++)
		size += strlen(files[i].name) + 1 + strlen(files[i].filename) + 1 +
		        (files[i].content_type ? strlen(files[i].content_type) + 1 : 0) +
		        files[i].len;
	if (n == 0 || !(out = malloc(size)))
		return NULL;
	at = (char *)(out + n);
	for (int i = 0; i < n; i++) {
		const char *strs[3] = { files[i].name, files[i].filename, files[i].content_type };
		const char **dst[3] = { &out[i].name, &out[i].filename, &out[i].content_type };
		for (int k = 0; k < 3; k++) {
			*dst[k] = NULL;
			if (!strs[k])
				continue;
			memcpy(at, strs[k], strlen(strs[k]) + 1);
			*dst[k] = at;
			at += strlen(strs[k]) + 1;
		}
		memcpy(at, files[i].data, files[i].len);
		out[i].data = at;
		out[i].len = files[i].len;
		at += files[i].len;
	}
	return out;
}

/* Submits a request with files[0..nfiles-1] (none: a JSON body as before)
 * for purpose pu; the body, the files and pu's strings are borrowed. A
 * follow-up made while its interaction's callback is still unanswered is
 * held (copied) and submitted once the callback is accepted. */
static void submit_files(struct app *a, int method, const char *path, const char *body,
                         const struct rest_file *files, int nfiles, const struct purpose *pu)
{
	/* Interaction endpoints (the callback, and the webhook of the
	 * interaction's token: follow-ups, @original) are not bound by the
	 * global limit. */
	struct rest_request rq = { .method = method,
		                   .path = path,
		                   .body = body,
		                   .body_len = body ? strlen(body) : 0,
		                   .exempt_global = pu->kind == TAG_CALLBACK ||
		                                    strncmp(path, "/webhooks/", 10) == 0,
		                   .files = nfiles ? files : NULL,
		                   .nfiles = nfiles };
	struct pending *p;

	if (pu->kind == TAG_FOLLOWUP && a->hold &&
	    a->pend[a->hold % PENDING_SLOTS].tag == a->hold) {
		/* Discord wants the initial response first: send it after. */
		struct pending *cb = &a->pend[a->hold % PENDING_SLOTS];
		struct later *more = realloc(cb->later, (size_t)(cb->nlater + 1) * sizeof(*more));
		if (more) {
			struct later *l = &more[cb->nlater];
			cb->later = more;
			memset(l, 0, sizeof(*l));
			l->path = strdup(path);
			l->body = body ? strdup(body) : NULL;
			l->files = copy_files(files, nfiles);
			l->nfiles = l->files ? nfiles : 0;
			l->pu = *pu;
			text_copy(l->channel, sizeof(l->channel), pu->channel ? pu->channel : "");
			l->pu.channel = l->channel;
			l->token = pu->token ? strdup(pu->token) : NULL;
			l->pu.token = l->token;
			if (l->path && (!body || l->body) && l->nfiles == nfiles &&
			    (!pu->token || l->token))
				cb->nlater++;
			else
				later_free(l);
		}
		return;
	}
	rq.tag = ++a->next_tag;
	p = &a->pend[rq.tag % PENDING_SLOTS];
	release_later(p);
	free(p->token);
	memset(p, 0, sizeof(*p));
	p->tag = rq.tag;
	p->kind = pu->kind;
	p->started_us = pu->kind == TAG_CALLBACK ? a->arrived_us : 0;
	p->sent = now_ms();
	p->live = pu->live;
	p->original = pu->original;
	text_copy(p->channel, sizeof(p->channel), pu->channel ? pu->channel : "");
	p->token = pu->token ? strdup(pu->token) : NULL;
	if (pu->kind == TAG_CALLBACK)
		a->hold = rq.tag;
	if (rest_submit(a->rest, &rq))
		log_msg(LOG_WARN, "http: queue full, a request to %s was dropped",
		        pu->kind == TAG_CALLBACK ? "/interactions/…" : "the API");
}

/* Submits a request without files; the body is borrowed. */
static void submit(struct app *a, int method, const char *path, const char *body,
                   const struct purpose *pu)
{
	submit_files(a, method, path, body, NULL, 0, pu);
}

static size_t prompt_slot(const char *id)
{
	return (size_t)(text_hash(TEXT_HASH_SEED, id) % PROMPT_SLOTS);
}

/* Remembers the prompts of m's buttons (nothing when memory is short). */
static void remember_prompts(struct app *a, const struct msg *m)
{
	for (int i = 0; i < m->nbuttons; i++) {
		const struct msg_button *b = &m->buttons[i];
		struct prompt_slot *slot;
		if (b->prompt < 1 || b->prompt > m->nprompts || b->prompt > MSG_PROMPTS_MAX)
			continue;
		if (!a->prompts && !(a->prompts = calloc(PROMPT_SLOTS, sizeof(*a->prompts))))
			return;
		slot = &a->prompts[prompt_slot(b->id)];
		text_copy(slot->id, sizeof(slot->id), b->id);
		slot->p = m->prompts[b->prompt - 1];
	}
}

/* The prompt remembered for the button `id`, or NULL. */
static const struct msg_prompt *recall_prompt(struct app *a, const char *id)
{
	const struct prompt_slot *slot = a->prompts ? &a->prompts[prompt_slot(id)] : NULL;

	return slot && strcmp(slot->id, id) == 0 ? &slot->p : NULL;
}

/* Sends the messages m[0..n-1] as one body of `type` (discord_response_json
 * with `flags`) with their pictures, for purpose pu, and remembers their
 * prompts. */
static void send_msgs(struct app *a, int method, const char *path, int type,
                      const struct msg *const *m, int n, int flags, const struct purpose *pu)
{
	struct rest_file files[REST_MAX_FILES];
	char *body = discord_response_json(type, m, n, flags);
	int nfiles = discord_response_files(m, n, files);

	if (!body)
		return;
	for (int i = 0; i < n; i++)
		remember_prompts(a, m[i]);
	submit_files(a, method, path, body, files, nfiles, pu);
	free(body);
}

/* An edit that takes a message's buttons and menus off; its text, embeds and
 * files stay (an edit leaves out what it does not name). */
static const char freeze_body[] = "{\"components\":[]}";

/* Takes the buttons off message `id` of `channel`, through the webhook of
 * the interaction `token` made it with while that token lasts (no global
 * limit) and the application id is known (a process that took a shard over
 * by RESUME learns it from its first interaction), else through the channel. */
static void freeze_message(struct app *a, const char *channel, const char *id, const char *token,
                           int64_t token_at, int original, int64_t now)
{
	struct purpose pu = { .kind = TAG_OTHER, .channel = channel };
	char path[768];

	if (token && a->app_id[0] && now - token_at < TOKEN_LIFE_MS &&
	    (original || is_snowflake(id)))
		snprintf(path, sizeof(path), "/webhooks/%s/%s/messages/%s", a->app_id, token,
		         original ? "@original" : id);
	else if (is_snowflake(id))
		snprintf(path, sizeof(path), "/channels/%s/messages/%s", channel, id);
	else
		return;
	submit(a, REST_PATCH, path, freeze_body, &pu);
}

/* Begins the channel's next live message: takes the buttons off the one
 * before (at once when it exists; else on_response does once the request
 * that makes it is answered), unless the message `clicked` has just lost
 * them by the answer to a click. Returns the new one's number. */
static uint64_t next_live(struct app *a, struct chan *c, const char *clicked, int64_t now)
{
	if (clicked) {
		text_copy(c->clicked, sizeof(c->clicked), clicked);
		if (c->msg_id[0] && strcmp(c->msg_id, clicked) == 0)
			c->open = 0;
	}
	if (c->open && c->made)
		freeze_message(a, c->channel, c->msg_id, c->token, c->token_at, c->original, now);
	c->open = 0;
	c->made = 0;
	c->msg_id[0] = '\0';
	set_str(&c->token, NULL);
	c->original = 0;
	return ++c->live;
}

/* Notes that the channel's live message number `live` is being made from
 * m[0..n-1] by the interaction `token` (NULL: a channel post). */
static void made_live(struct chan *c, const struct msg *const *m, int n, const char *token,
                      int original, int64_t now)
{
	c->open = 0;
	for (int i = 0; i < n; i++)
		c->open |= m[i]->nbuttons > 0 || msg_has_select(m[i]);
	set_str(&c->token, token);
	c->token_at = now;
	c->original = original;
}

/* Posts public messages m[0..n-1] of one channel (a timeout, a reminder) as
 * its new live message, taking the buttons off the one before. */
static void post_live(struct app *a, const char *channel, const struct msg *const *m, int n,
                      int64_t now)
{
	struct chan *c = chan_get(a, channel);
	struct purpose pu = { .kind = TAG_OTHER, .channel = channel };
	char path[128];

	if (!is_snowflake(channel))
		return;
	if (c) {
		pu.live = next_live(a, c, NULL, now);
		made_live(c, m, n, NULL, 0, now);
	}
	snprintf(path, sizeof(path), "/channels/%s/messages", channel);
	send_msgs(a, REST_POST, path, 0, m, n, 0, &pu);
}

/* Answers one interaction with the bot's messages. Whatever the channel is
 * told becomes one new live message (the table last), and the live message
 * before it loses its buttons: two requests. For a click on a channel
 * message, the callback (type 7) takes that message's buttons off and a
 * follow-up posts the new one; otherwise the callback (type 4) is the new
 * one and an edit freezes the old. Private replies follow, ephemeral. */
static void respond(struct app *a, const struct discord_req *r, struct msg_list *out)
{
	const struct msg *pub[MSG_LIST_MAX];
	char path[768];
	int npub = 0, answered = 0;
	int64_t now = now_ms();

	for (int i = 0; i < out->n; i++)
		if (out->m[i].audience == MSG_CHANNEL)
			pub[npub++] = &out->m[i];
	if (npub) {
		struct chan *c = chan_get(a, r->channel);
		int click = (r->type == 3 || (r->type == 5 && r->message_id[0])) &&
		            !r->message_private && r->message_id[0];
		struct purpose pu = { .kind = TAG_CALLBACK,
			              .channel = r->channel,
			              .token = r->token };
		if (c)
			pu.live = next_live(a, c, click ? r->message_id : NULL, now);
		if (click) {
			struct purpose cb = { .kind = TAG_CALLBACK, .channel = r->channel };
			snprintf(path, sizeof(path), "/interactions/%s/%s/callback", r->id,
			         r->token);
			submit(a, REST_POST, path, "{\"type\":7,\"data\":{\"components\":[]}}",
			       &cb);
			snprintf(path, sizeof(path), "/webhooks/%s/%s", a->app_id, r->token);
			pu.kind = TAG_FOLLOWUP;
			send_msgs(a, REST_POST, path, 0, pub, npub, 0, &pu);
		} else {
			snprintf(path, sizeof(path),
			         "/interactions/%s/%s/callback?with_response=true", r->id,
			         r->token);
			pu.original = 1;
			send_msgs(a, REST_POST, path, 4, pub, npub, 0, &pu);
		}
		if (c)
			made_live(c, pub, npub, r->token, pu.original, now);
		answered = 1;
	}
	for (int i = 0; i < out->n; i++) {
		const struct msg *m = &out->m[i];
		struct purpose pu = { .kind = answered ? TAG_FOLLOWUP : TAG_CALLBACK,
			              .channel = r->channel };
		if (m->audience != MSG_PRIVATE || strcmp(m->user, r->user) != 0)
			continue;
		if (!answered)
			snprintf(path, sizeof(path), "/interactions/%s/%s/callback", r->id,
			         r->token);
		else
			snprintf(path, sizeof(path), "/webhooks/%s/%s", a->app_id, r->token);
		send_msgs(a, REST_POST, path, answered ? 0 : 4, &m, 1, DISCORD_EPHEMERAL, &pu);
		answered = 1;
	}
	if (!answered) {
		static struct msg ok = { .kind = MSG_INFO, .text = "\xe2\x9c\x93" };
		const struct msg *okp = &ok;
		struct purpose pu = { .kind = TAG_CALLBACK, .channel = r->channel };
		snprintf(path, sizeof(path), "/interactions/%s/%s/callback", r->id, r->token);
		send_msgs(a, REST_POST, path, 4, &okp, 1, DISCORD_EPHEMERAL, &pu);
	}
}

/* Posts body as r's whole answer (its callback, with no follow-ups); body
 * is freed here, NULL (memory short) sends nothing. */
static void answer_alone(struct app *a, const struct discord_req *r, char *body)
{
	struct purpose pu = { .kind = TAG_CALLBACK, .channel = r->channel };
	char path[768];

	if (!body)
		return;
	snprintf(path, sizeof(path), "/interactions/%s/%s/callback", r->id, r->token);
	submit(a, REST_POST, path, body, &pu);
	a->hold = 0;
	free(body);
}

/* Answers a click on a button that asks for text with its modal. */
static void ask(struct app *a, const struct discord_req *r)
{
	answer_alone(a, r,
	             discord_modal_json(r->button, recall_prompt(a, r->button), r->button_label));
}

/* Answers an autocomplete interaction with the choices for the channel's
 * table; nothing is written. */
static void complete(struct app *a, const struct discord_req *r)
{
	answer_alone(a, r,
	             discord_autocomplete_json(r, bot_channel_game(a->bot, r->server, r->channel)));
}

/* Answers an interaction that could not be read or came while stopping. */
static void respond_error(struct app *a, const cJSON *d, const char *text)
{
	const char *id = str(d, "id"), *token = str(d, "token");
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(d, "type");
	char path[768], *body;
	static struct msg m;
	const struct msg *mp = &m;

	if (!id || !token || strlen(id) > 32 || strlen(token) > 500)
		return;
	snprintf(path, sizeof(path), "/interactions/%s/%s/callback", id, token);
	if (cJSON_IsNumber(type) && type->valuedouble == 4) {
		/* autocomplete is answered with choices only: none */
		submit(a, REST_POST, path, "{\"type\":8,\"data\":{\"choices\":[]}}",
		       &(struct purpose){ .kind = TAG_CALLBACK });
		return;
	}
	memset(&m, 0, sizeof(m));
	m.kind = MSG_ERROR;
	text_copy(m.text, sizeof(m.text), text);
	body = discord_response_json(4, &mp, 1, 1);
	submit(a, REST_POST, path, body, &(struct purpose){ .kind = TAG_CALLBACK });
	free(body);
}

static void tick_due(lws_sorted_usec_list_t *sul);

/* Schedules bot_tick at the bot's next deadline. */
static void schedule_tick(struct app *a)
{
	int64_t at = bot_next_deadline(a->bot), wait;

	lws_sul_cancel(&a->tick);
	if (!at)
		return;
	wait = at - now_ms();
	if (wait < 0)
		wait = 0;
	lws_sul_schedule(a->ctx, 0, &a->tick, tick_due, wait * LWS_US_PER_MS);
}

/* Commits the open batch, then sends every held reply in arrival order (or,
 * when the commit failed, a private refusal instead of each). */
static void flush(struct app *a)
{
	int ok;

	if (!a->batching)
		return;
	a->batching = 0;
	ok = bot_batch_end(a->bot) == 0;
	if (!ok)
		log_msg(LOG_ERR, "the commit of %d interactions failed: %s", a->nbatch,
		        store_errmsg(a->st));
	a->metrics.commits++;
	for (int i = 0; i < a->nbatch; i++) {
		struct held *h = &a->batch[i];
		if (!ok) {
			log_msg(LOG_ERR, "interaction %s: the commit failed; refused", h->r.id);
			msg_clear(&h->out);
			bot_batch_refusal(a->bot, &h->r.req, &h->out);
		}
		a->arrived_us = h->arrived_us;
		a->hold = 0;
		respond(a, &h->r, &h->out);
		a->hold = 0;
		/* A message is some 20 KiB: 32 slots keeping theirs would hold
		 * megabytes between batches. */
		msg_free(&h->out);
	}
	a->nbatch = 0;
	a->batch_msgs = 0;
	keep_dirty(a);
	schedule_tick(a);
}

/* With a batch open, services what is already readable (no waiting) as long
 * as each pass adds interactions to it, so that the interactions that came
 * together are committed together (up to BATCH_MAX interactions or
 * BATCH_MSGS replies, for GATHER_US at most). Returns 0, or -1 when the
 * event loop failed. */
static int gather(struct app *a)
{
	lws_usec_t until = lws_now_usecs() + GATHER_US;

	for (int pass = 0;
	     pass < BATCH_MAX && a->batching && a->nbatch < BATCH_MAX && a->batch_msgs < BATCH_MSGS;
	     pass++) {
		int before = a->nbatch;

		if (lws_service(a->ctx, -1) < 0)
			return -1;
		if (a->nbatch <= before || lws_now_usecs() >= until)
			break;
	}
	return 0;
}

static void tick_due(lws_sorted_usec_list_t *sul)
{
	struct app *a = lws_container_of(sul, struct app, tick);
	int64_t now = now_ms();

	flush(a);
	msg_clear(&a->out);
	bot_tick(a->bot, now, &a->out);
	for (int i = 0; i < a->out.n; i++)
		if (a->out.m[i].kind == MSG_TABLE)
			log_msg(LOG_INFO, "timeout: game %lld, channel %s: the computer moved",
			        (long long)a->out.m[i].game, a->out.m[i].channel);
	/* Each table's public messages, its table last, as one live message. */
	for (int i = 0; i < a->out.n;) {
		const struct msg *run[MSG_LIST_MAX];
		const char *channel = a->out.m[i].channel;
		int n = 0;
		for (; i < a->out.n && strcmp(a->out.m[i].channel, channel) == 0; i++) {
			if (a->out.m[i].audience == MSG_CHANNEL)
				run[n++] = &a->out.m[i];
			if (a->out.m[i].kind == MSG_TABLE) {
				i++;
				break;
			}
		}
		if (n && channel[0])
			post_live(a, channel, run, n, now);
	}
	schedule_tick(a);
}

static void on_interaction(struct app *a, const cJSON *d)
{
	struct discord_req r;
	struct held *h;
	long errors;
	char err[128];
	const char *id = str(d, "id");

	if (id && seen_before(a, id)) {
		log_msg(LOG_INFO, "interaction %s: seen before, not applied again", id);
		return;
	}
	if (a->owner && id) {
		/* Recorded with the command's writes: the next owner of the shard,
		 * sent it again after a RESUME, leaves it alone. */
		int fresh;
		if (!a->batching) {
			bot_batch_begin(a->bot);
			a->batching = 1;
		}
		fresh = store_in_transaction(a->st) || !store_begin(a->st)
		            ? store_interaction_mark(a->st, id, now_ms())
		            : -1;
		if (fresh == 0) {
			log_msg(LOG_INFO, "interaction %s: taken up before, not applied again", id);
			return;
		}
		if (fresh < 0)
			log_msg(LOG_WARN, "interaction %s: not recorded: %s", id,
			        store_errmsg(a->st));
	}
	if (!a->app_id[0]) {
		const char *app = str(d, "application_id");
		if (app && strlen(app) < sizeof(a->app_id))
			text_copy(a->app_id, sizeof(a->app_id), app);
	}
	a->arrived_us = lws_now_usecs();
	if (discord_parse_interaction(d, &r, err, sizeof(err))) {
		a->metrics.unreadable++;
		log_msg(LOG_WARN, "interaction %s refused: %s", id ? id : "?", err);
		respond_error(a, d, "That could not be read; nothing changed.");
		return;
	}
	if (r.type == 4) {
		complete(a, &r);
		log_msg(LOG_DEBUG, "interaction %s: /%s %s completed for user %s", r.id,
		        cmd_word(&r.req.cmd), r.focus_option, r.user);
		return;
	}
	if (a->stopping) {
		respond_error(a, d, "The bot is restarting; try again in a moment.");
		return;
	}
	if (r.prompt) {
		/* Nothing happens before the text comes (a modal submission). */
		ask(a, &r);
		log_msg(LOG_INFO, "interaction %s: /%s by user %s asks for its text", r.id,
		        cmd_word(&r.req.cmd), r.user);
		return;
	}
	metrics_count(&a->metrics, &r.req.cmd);
	if (!a->batching) {
		bot_batch_begin(a->bot);
		a->batching = 1;
	}
	h = &a->batch[a->nbatch++];
	h->r = r;
	h->r.req.server = h->r.server;
	h->r.req.channel = h->r.channel;
	h->r.req.user = h->r.user;
	h->r.req.name = h->r.name;
	h->r.req.locale = h->r.locale[0] ? h->r.locale : NULL;
	h->arrived_us = a->arrived_us;
	msg_clear(&h->out);
	errors = bot_store_errors(a->bot);
	bot_handle(a->bot, &h->r.req, now_ms(), &h->out);
	if (bot_store_errors(a->bot) != errors)
		log_msg(LOG_WARN, "interaction %s: not stored, refused: %s", r.id,
		        store_errmsg(a->st));
	{
		int64_t game = 0;
		for (int i = 0; i < h->out.n && !game; i++)
			game = h->out.m[i].game;
		log_msg(LOG_INFO,
		        "interaction %s: /%s by user %s, guild %s, channel %s, game %lld%s", r.id,
		        cmd_word(&r.req.cmd), r.user, r.server, r.channel, (long long)game,
		        h->out.n && h->out.m[0].kind == MSG_ERROR ? ", refused" : "");
	}
	a->batch_msgs += h->out.n;
	if (a->nbatch == BATCH_MAX || a->batch_msgs >= BATCH_MSGS)
		flush(a);
}

/* A 64-bit FNV-1a fingerprint, in hex. */
static void fingerprint(const char *s, char out[17])
{
	snprintf(out, 17, "%016llx", (unsigned long long)text_hash(TEXT_HASH_SEED, s));
}

/* Registers the slash commands by bulk overwrite, globally or for the
 * configured guilds, when their definitions changed since the last time. */
static void register_commands(struct app *a)
{
	char *json = discord_commands_json(), fp[17], stored[64], key[64], path[256];

	if (!json)
		return;
	fingerprint(json, fp);
	for (int i = 0; i <= a->cfg.nguilds; i++) {
		if (i == a->cfg.nguilds && a->cfg.nguilds > 0)
			break;
		if (a->cfg.nguilds) {
			snprintf(key, sizeof(key), "commands:%s", a->cfg.guilds[i]);
			snprintf(path, sizeof(path), "/applications/%s/guilds/%s/commands",
			         a->app_id, a->cfg.guilds[i]);
		} else {
			snprintf(key, sizeof(key), "commands:global");
			snprintf(path, sizeof(path), "/applications/%s/commands", a->app_id);
		}
		if (store_setting_get(a->st, key, stored, sizeof(stored)) == 0 &&
		    strcmp(stored, fp) == 0) {
			log_msg(LOG_INFO, "commands: %s unchanged, not registered again", key);
			continue;
		}
		submit(a, REST_PUT, path, json,
		       &(struct purpose){ .kind = TAG_REGISTER, .channel = key, .token = fp });
		log_msg(LOG_INFO, "commands: registering (%s)", key);
	}
	free(json);
}

static void on_dispatch(void *ctx, int shard, const char *t, const cJSON *d, int64_t seq)
{
	struct app *a = ctx;

	(void)seq;
	if (strcmp(t, "READY") == 0) {
		const cJSON *app = cJSON_GetObjectItemCaseSensitive(d, "application");
		const char *id = app ? str(app, "id") : NULL;
		if (!a->app_id[0] && id && strlen(id) < sizeof(a->app_id))
			text_copy(a->app_id, sizeof(a->app_id), id);
		log_msg(LOG_NOTICE, "gateway: shard %d ready (application %s)", shard, a->app_id);
		if (!a->registered && a->app_id[0]) {
			a->registered = 1;
			register_commands(a);
		}
	} else if (strcmp(t, "INTERACTION_CREATE") == 0) {
		/* a shard still waiting for the old shard count is theirs to answer */
		if (a->owner && shard >= a->own_first && shard - a->own_first < CONFIG_SHARDS_MAX &&
		    !a->own_epoch[shard - a->own_first])
			return;
		on_interaction(a, d);
	}
}

static void on_state(void *ctx, int shard, int state, const char *why)
{
	struct app *a = ctx;

	log_msg(state == GATEWAY_STOPPED ? LOG_NOTICE : LOG_INFO, "gateway: shard %d %s", shard,
	        why);
	if (state == GATEWAY_READY && !a->notified_ready && shards_ready(a->shards)) {
		a->notified_ready = 1;
		sd_notifyf(0, "READY=1\nSTATUS=gateway %s, %d games in progress", why,
		           bot_open_games(a->bot));
	} else {
		sd_notifyf(0, "STATUS=gateway %s, %d games in progress", why,
		           bot_open_games(a->bot));
	}
}

/* Re-reads what can change without a restart: the log level and the turn
 * timeout. A bad file is refused and everything stays as it was. */
static void reload(struct app *a)
{
	struct config c;
	char err[512];

	sd_notify(0, "RELOADING=1");
	config_default(&c);
	if (config_load(&c, a->config_path, err, sizeof(err))) {
		log_msg(LOG_ERR, "reload refused: %s", err);
		log_set_level(a->cfg.log_level);
	} else {
		a->cfg.log_level = c.log_level;
		a->cfg.turn_timeout = c.turn_timeout;
		bot_set_turn_timeout(a->bot, (int64_t)c.turn_timeout * 1000);
		log_msg(LOG_NOTICE, "reloaded: log level %d, turn timeout %d s", c.log_level,
		        c.turn_timeout);
	}
	sd_notify(0, "READY=1");
}

#define SHARED_POLL_MS 100

/* Beats and resets this process's share of the global limit. */
static void shared_beat(struct app *a)
{
	int live = a->live;

	if (limits_beat(a->limits, &live)) {
		log_msg(LOG_WARN, "shared limits: %s; keeping a share of %d/s",
		        limits_errmsg(a->limits), rest_share(a->rest));
		return;
	}
	if (live != a->live)
		log_msg(LOG_INFO, "shared limits: %d processes, %d requests/s each", live,
		        limits_share(a->global_total, live));
	a->live = live;
	rest_set_share(a->rest, limits_share(a->global_total, live));
}

/* Every SHARED_POLL_MS: holds the requests when another process got a
 * global 429, announces this one's, and beats every LIMITS_BEAT_MS and when
 * another process started. */
static void shared_due(lws_sorted_usec_list_t *sul)
{
	struct app *a = lws_container_of(sul, struct app, shared);
	int joined = 0;
	long theirs = limits_poll(a->limits, &joined), ours = rest_global_429_take(a->rest);
	int64_t now = now_ms();

	if (theirs > 0) {
		log_msg(LOG_WARN, "another process got a global 429: holding requests %ld ms",
		        theirs);
		rest_hold_global(a->rest, theirs);
	}
	if (ours > 0 && limits_global_429(a->limits, ours))
		log_msg(LOG_WARN, "shared limits: %s", limits_errmsg(a->limits));
	/* a lost connection is opened again by the next beat, not sooner */
	if (joined || now >= a->next_beat) {
		a->next_beat = now + LIMITS_BEAT_MS;
		shared_beat(a);
	}
	lws_sul_schedule(a->ctx, 0, &a->shared, shared_due, SHARED_POLL_MS * LWS_US_PER_MS);
}

/* shards' may_identify: the IDENTIFY bucket shared by the processes. */
static int shared_identify(void *ctx, int shard, int bucket, int64_t *wait_us)
{
	struct app *a = ctx;
	long ms = 0;
	int rc;

	if (!a->limits)
		return 1;
	rc = limits_identify(a->limits, bucket, LIMITS_GAP_MS, &ms);
	if (rc == 0)
		log_msg(LOG_INFO,
		        "shard %d: bucket %d was taken by another process; %ld ms to wait", shard,
		        bucket, ms);
	else if (rc < 0)
		log_msg(LOG_WARN, "shared limits: %s", limits_errmsg(a->limits));
	*wait_us = (int64_t)ms * 1000;
	return rc;
}

/* ---- shard ownership (owner.h), with PostgreSQL ---- */

#define OWN_POLL_MS 1000 /* ownership asked and sessions saved this often */
/* Interactions recorded are kept this long (Discord answers an interaction
 * within 15 minutes at most). */
#define INTERACTIONS_KEPT_MS (60LL * 60 * 1000)

/* Saves shard `shard`'s gateway session when its seq moved (fenced by its
 * epoch: a process that lost the shard writes nothing). */
static void own_save_session(struct app *a, int shard)
{
	struct store_shard_session ss;
	int i = shard - a->own_first;

	memset(&ss, 0, sizeof(ss));
	if (!a->own_epoch[i] ||
	    shards_session(a->shards, shard, ss.session_id, sizeof(ss.session_id), &ss.seq,
	                   ss.resume_url, sizeof(ss.resume_url)) ||
	    !ss.session_id[0] || ss.seq == a->own_saved_seq[i])
		return;
	ss.saved_at = now_ms();
	if (store_shard_session_put(a->st, a->own_count, shard, a->own_epoch[i], &ss) == 0)
		a->own_saved_seq[i] = ss.seq;
	else
		log_msg(LOG_WARN, "shard %d: session not saved: %s", shard, store_errmsg(a->st));
}

static void own_gained(void *ctx, int shard, int64_t epoch)
{
	struct app *a = ctx;
	struct store_shard_session ss;
	char err[256];
	int i = shard - a->own_first;

	if (bot_shard_gain(a->bot, shard, epoch, err, sizeof(err))) {
		log_msg(LOG_ERR, "shard %d: its games could not be loaded: %s", shard, err);
		return;
	}
	a->own_epoch[i] = epoch;
	a->own_saved_seq[i] = -1;
	if (a->own_waiting[i]) {
		/* its session, started while the old count ran, goes on */
		a->own_waiting[i] = 0;
		log_msg(LOG_NOTICE,
		        "shard %d of %d: owned here (epoch %lld); the other shard count has "
		        "stopped, its games are served here now",
		        shard, a->own_count, (long long)epoch);
		schedule_tick(a);
		return;
	}
	if (store_shard_session_get(a->st, a->own_count, shard, &ss) < 0)
		memset(&ss, 0, sizeof(ss));
	log_msg(LOG_NOTICE, "shard %d of %d: owned here (epoch %lld), %s", shard, a->own_count,
	        (long long)epoch, ss.session_id[0] ? "resuming its session" : "identifying");
	shards_take(a->shards, shard, ss.session_id, ss.seq, ss.resume_url);
	schedule_tick(a);
}

/* Resharding: the shard's lock is had, but processes of another shard count
 * still run it; its connection starts (a new session) so that the switch is
 * quick, and its interactions are left to them until own_gained. */
static void own_waits(void *ctx, int shard)
{
	struct app *a = ctx;

	log_msg(LOG_NOTICE,
	        "shard %d of %d: processes of another shard count still run; connecting, and "
	        "serving once they have stopped",
	        shard, a->own_count);
	a->own_waiting[shard - a->own_first] = 1;
	shards_take(a->shards, shard, "", 0, "");
	schedule_tick(a);
}

static void own_lost(void *ctx, int shard)
{
	struct app *a = ctx;

	log_msg(LOG_WARN, "shard %d of %d: no longer owned here", shard, a->own_count);
	a->own_waiting[shard - a->own_first] = 0;
	a->own_epoch[shard - a->own_first] = 0;
	shards_give(a->shards, shard);
	bot_shard_drop(a->bot, shard);
	schedule_tick(a);
}

static void own_due(lws_sorted_usec_list_t *sul)
{
	struct app *a = lws_container_of(sul, struct app, own);

	flush(a);
	if (!a->stopping) {
		for (int i = 0; i < CONFIG_SHARDS_MAX && a->own_first + i < a->own_count; i++)
			own_save_session(a, a->own_first + i);
		if (store_interactions_forget(a->st, now_ms() - INTERACTIONS_KEPT_MS))
			log_msg(LOG_WARN, "interactions not forgotten: %s", store_errmsg(a->st));
		if (owner_poll(a->owner, now_ms()) < 0)
			log_msg(LOG_WARN, "shard ownership: the database did not answer");
	}
	lws_sul_schedule(a->ctx, 0, &a->own, own_due, OWN_POLL_MS * LWS_US_PER_MS);
}

/* Gives the free pages of the heap back to the system every TRIM_MS: a burst
 * of interactions (their replies held until a commit, requests in flight)
 * leaves megabytes free that a long quiet afterwards would keep resident. */
static void trim_due(lws_sorted_usec_list_t *sul)
{
	struct app *a = lws_container_of(sul, struct app, trim);

	malloc_trim(0);
	lws_sul_schedule(a->ctx, 0, &a->trim, trim_due, TRIM_MS * LWS_US_PER_MS);
}

/* Tells systemd the loop is alive, at half the watchdog period. */
static void watchdog_due(lws_sorted_usec_list_t *sul)
{
	struct app *a = lws_container_of(sul, struct app, watchdog);

	sd_notify(0, "WATCHDOG=1");
	lws_sul_schedule(a->ctx, 0, &a->watchdog, watchdog_due, (lws_usec_t)a->watchdog_us / 2);
}

/* The id of the message a response's body tells of: a message object's
 * (a follow-up, a channel post), or an interaction callback's with
 * ?with_response=true (interaction.response_message_id, else
 * resource.message.id). Copied to id (SNOWFLAKE_MAX bytes); "" when none. */
static void response_message_id(const char *body, char *id)
{
	cJSON *root = body ? cJSON_Parse(body) : NULL;
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(root, "interaction"),
	            *res = cJSON_GetObjectItemCaseSensitive(root, "resource");
	const char *s = in ? str(in, "response_message_id") : str(root, "id");

	if (!s && res)
		s = str(cJSON_GetObjectItemCaseSensitive(res, "message"), "id");
	id[0] = '\0';
	if (s && is_snowflake(s))
		text_copy(id, SNOWFLAKE_MAX, s);
	cJSON_Delete(root);
}

/* The request p making a live message was answered: while that message is
 * the channel's newest, the channel notes that it exists (and its id, when
 * the body tells it); one already replaced loses its buttons now (the answer
 * to a click took them off the clicked one already). */
static void live_made(struct app *a, const struct pending *p, const char *body)
{
	struct chan *c = chan_get(a, p->channel);
	char id[SNOWFLAKE_MAX];

	response_message_id(body, id);
	if (!c)
		return;
	if (c->live == p->live) {
		c->made = 1;
		text_copy(c->msg_id, sizeof(c->msg_id), id);
		if (a->owner && !c->dirty) {
			if (a->ndirty == DIRTY_MAX)
				keep_dirty(a);
			if (a->ndirty < DIRTY_MAX) {
				c->dirty = 1;
				a->dirty[a->ndirty++] = c;
			}
		}
	} else if (!id[0] || strcmp(c->clicked, id) != 0) {
		freeze_message(a, p->channel, id, p->token, p->sent, p->original, now_ms());
	}
}

/* Handles one finished HTTP request. */
static void on_response(struct app *a, struct rest_response *resp)
{
	struct pending *p = &a->pend[resp->tag % PENDING_SLOTS];
	int ok = resp->status >= 200 && resp->status < 300;

	if (p->tag != resp->tag) {
		rest_response_free(resp);
		return;
	}
	if (!ok)
		log_msg(resp->status >= 500 || resp->status == 0 ? LOG_ERR : LOG_WARN,
		        "http: request %llu (kind %d) failed: %ld %s",
		        (unsigned long long)resp->tag, p->kind, resp->status, resp->error);
	if (p->kind == TAG_CALLBACK && p->nlater) {
		struct later *later = p->later;
		int n = p->nlater;
		p->later = NULL;
		p->nlater = 0;
		uint64_t hold = a->hold;
		a->hold = 0;
		for (int i = 0; i < n; i++) {
			if (ok)
				submit_files(a, REST_POST, later[i].path, later[i].body,
				             later[i].files, later[i].nfiles, &later[i].pu);
			later_free(&later[i]);
		}
		a->hold = hold;
		free(later);
		if (!ok)
			log_msg(LOG_WARN, "http: %d follow-ups dropped with their failed callback",
			        n);
	}
	if (ok && p->kind == TAG_CALLBACK && p->started_us)
		metrics_latency(&a->metrics, (double)(lws_now_usecs() - p->started_us) / 1e6);
	if (ok && p->kind == TAG_REGISTER) {
		store_setting_put(a->st, p->channel, p->token ? p->token : "");
		log_msg(LOG_INFO, "commands: registered (%s)", p->channel);
	}
	if (ok && p->live)
		live_made(a, p, resp->body);
	p->tag = 0;
	free(p->token);
	p->token = NULL;
	rest_response_free(resp);
}

static void drain(struct app *a)
{
	struct rest_response resp;

	while (rest_poll(a->rest, &resp))
		on_response(a, &resp);
	keep_dirty(a);
}

/* Keeps, for channel c whose live message still has buttons, what it takes
 * to freeze it from another process or after a restart: "<id or -> <token_at>
 * <original> [<token>]" under "live:<channel>" (restore_live); clears a value
 * kept before once the live message has none. A write that fails is logged
 * and leaves the stored value as it was. */
static void keep_live(struct app *a, struct chan *c)
{
	char key[64], value[1024];
	int keep = c->open && c->made && (c->msg_id[0] || (c->original && c->token));

	if (!a->st || (!keep && !c->stored))
		return;
	value[0] = '\0';
	if (keep)
		snprintf(value, sizeof(value), "%s %lld %d %s", c->msg_id[0] ? c->msg_id : "-",
		         (long long)c->token_at, c->original,
		         c->token && strlen(c->token) < 512 ? c->token : "");
	live_key(c->channel, key, sizeof(key));
	if (store_setting_put(a->st, key, value)) {
		log_msg(LOG_WARN, "the live table of channel %s could not be kept", c->channel);
		return;
	}
	c->stored = keep;
}

/* Keeps the live messages made since the last call (live_made), in one
 * transaction, outside the bot's batch: a failed write must not refuse its
 * moves. Inside that batch it does nothing (flush calls it again after the
 * commit). */
static void keep_dirty(struct app *a)
{
	int own;

	if (!a->ndirty || store_in_transaction(a->st))
		return;
	own = store_begin(a->st) == 0;
	for (int i = 0; i < a->ndirty; i++) {
		a->dirty[i]->dirty = 0;
		keep_live(a, a->dirty[i]);
	}
	a->ndirty = 0;
	if (own && store_commit(a->st)) {
		log_msg(LOG_WARN, "live tables not kept: %s", store_errmsg(a->st));
		store_rollback(a->st);
	}
}

/* Keeps the live message of every channel (keep_live) at a clean stop. A
 * single process stopped by SIGKILL keeps none (the buttons of those
 * messages are refused as stale); a process owning its shards through the
 * database keeps each one as it is made (live_made), so that the process
 * taking a shard over takes those buttons off. */
static void persist_live(struct app *a)
{
	for (size_t i = 0; i < a->nbuckets; i++)
		for (struct chan *c = a->chans[i]; c; c = c->next)
			keep_live(a, c);
}

/* Answers GET /healthz (gateway state, database writable) and /metrics on
 * the local health port. */
static int health_request(struct app *a, struct lws *wsi, struct http_session *hs, const char *uri)
{
	unsigned char head[LWS_PRE + 1024], *start = head + LWS_PRE, *p = start,
	                                    *end = head + sizeof(head) - 1;
	const char *type = "application/json";
	unsigned status = 200;
	struct text tx;
	long w = 0, tm = 0;
	/* Room for the counters, and each shard's lines. */
	size_t cap = 16384 + (size_t)shards_owned(a->shards) * 384;

	hs->body = malloc(cap);
	if (!hs->body)
		return -1;
	text_init(&tx, hs->body, cap);
	if (strcmp(uri, "/healthz") == 0) {
		char stamp[32];
		int ready = shards_ready(a->shards);
		int writable, owned = shards_owned(a->shards);
		/* A process owning its shards through the database that owns none
		 * now waits to take one over: healthy, but not serving. */
		int standby = a->owner && owned == 0;
		snprintf(stamp, sizeof(stamp), "%lld", (long long)now_ms());
		writable = store_setting_put(a->st, "health", stamp) == 0;
		status = (ready || standby) && writable ? 200 : 503;
		text_addf(&tx, "{\"gateway\":\"%s\",\"shards\":%d,\"shards_not_ready\":",
		          standby ? "standby"
		          : ready ? "ready"
		                  : "not ready",
		          owned);
		shards_not_ready_json(a->shards, &tx);
		text_addf(&tx, ",\"database\":\"%s\",\"games\":%d}\n",
		          writable ? "writable" : "failing", bot_open_games(a->bot));
	} else if (strcmp(uri, "/metrics") == 0) {
		struct metrics_gauges g = { 0 };
		struct metrics_shard sh[CONFIG_SHARDS_MAX];
		rest_stats(a->rest, &w, &tm);
		g.nshards = shards_gauges(a->shards, sh, CONFIG_SHARDS_MAX);
		g.shards = sh;
		g.shards_owned = shards_owned(a->shards);
		g.standby = a->owner && g.shards_owned == 0;
		g.gateway_ready = shards_ready(a->shards) && !g.standby;
		g.gateway_state = GATEWAY_READY;
		for (int i = 0; i < g.nshards; i++) {
			if (g.gateway_state == GATEWAY_READY)
				g.gateway_state = sh[i].state;
			g.reconnects += sh[i].reconnects;
		}
		if (!g.nshards)
			g.gateway_state = 0;
		g.games = bot_open_games(a->bot);
		g.rate_limited_waits = w;
		g.too_many = tm;
		g.db_errors = bot_store_errors(a->bot);
		metrics_render(&a->metrics, &g, &tx);
		type = "text/plain; version=0.0.4";
	} else {
		status = 404;
		text_add(&tx, "{\"error\":\"not found\"}\n");
	}
	hs->len = tx.len;
	if (lws_add_http_common_headers(wsi, status, type, hs->len, &p, end) ||
	    lws_finalize_write_http_header(wsi, start, &p, end))
		return 1;
	lws_callback_on_writable(wsi);
	return 0;
}

static int health_write(struct lws *wsi, struct http_session *hs)
{
	unsigned char *buf;
	int rc;

	if (!hs || !hs->body)
		return -1;
	buf = malloc(LWS_PRE + hs->len + 1);
	if (!buf)
		return -1;
	memcpy(buf + LWS_PRE, hs->body, hs->len);
	rc = lws_write(wsi, buf + LWS_PRE, hs->len, LWS_WRITE_HTTP_FINAL);
	free(buf);
	free(hs->body);
	hs->body = NULL;
	if (rc < (int)hs->len)
		return -1;
	return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
	struct lws_context *ctx = wsi ? lws_get_context(wsi) : signal_ctx;
	struct app *a = ctx ? lws_context_user(ctx) : NULL;
	int rc;

	if (reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED) {
		if (a) {
			drain(a);
			if (reload_signal) {
				reload_signal = 0;
				reload(a);
			}
			if (stop_signal && !a->stopping) {
				a->stopping = 1;
				log_msg(LOG_NOTICE, "stopping: closing the gateway");
				shards_stop(a->shards);
			}
		}
		return 0;
	}
	if (a && shards_callback(a->shards, user, wsi, (int)reason, in, len, &rc))
		return rc;
	if (a && reason == LWS_CALLBACK_HTTP)
		return health_request(a, wsi, user, in);
	if (a && reason == LWS_CALLBACK_HTTP_WRITEABLE)
		return health_write(wsi, user);
	if (reason == LWS_CALLBACK_HTTP_DROP_PROTOCOL || reason == LWS_CALLBACK_CLOSED_HTTP) {
		struct http_session *hs = user;
		if (hs) {
			free(hs->body);
			hs->body = NULL;
		}
	}
	return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static void wake(void *ctx)
{
	lws_cancel_service(ctx);
}

static const struct lws_protocols protocols[] = {
	{ PROTOCOL, callback, sizeof(struct http_session), 65536, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

/* Asks GET /gateway/bot for the URL, waiting for the answer (before the
 * event loop runs). Returns 0, or an exit status. */
static int find_gateway(struct app *a)
{
	for (int attempt = 0; attempt < 5; attempt++) {
		struct rest_response resp;
		struct rest_request rq = { .method = REST_GET, .path = "/gateway/bot", .tag = 1 };
		int got = 0;

		if (rest_submit(a->rest, &rq))
			return 1;
		for (int i = 0; i < 3000 && !(got = rest_poll(a->rest, &resp)); i++)
			sleep_ms(10);
		if (!got)
			continue;
		if (resp.status == 401 || resp.status == 403) {
			log_msg(LOG_ERR, "the API refused the token (HTTP %ld): check it",
			        resp.status);
			rest_response_free(&resp);
			return GATEWAY_EXIT_AUTH;
		}
		if (resp.status == 200 && resp.body) {
			cJSON *j = cJSON_Parse(resp.body);
			const char *url = j ? str(j, "url") : NULL;
			const cJSON *lim =
			    j ? cJSON_GetObjectItemCaseSensitive(j, "session_start_limit") : NULL;
			const cJSON *rem =
			    lim ? cJSON_GetObjectItemCaseSensitive(lim, "remaining") : NULL;
			const cJSON *reset =
			    lim ? cJSON_GetObjectItemCaseSensitive(lim, "reset_after") : NULL;
			const cJSON *total =
			    lim ? cJSON_GetObjectItemCaseSensitive(lim, "total") : NULL;
			const cJSON *mc =
			    lim ? cJSON_GetObjectItemCaseSensitive(lim, "max_concurrency") : NULL;
			const cJSON *shards =
			    j ? cJSON_GetObjectItemCaseSensitive(j, "shards") : NULL;
			if (url && strlen(url) < sizeof(a->gateway_url) && !a->cfg.gateway_url[0])
				text_copy(a->gateway_url, sizeof(a->gateway_url), url);
			if (cJSON_IsNumber(shards) && shards->valuedouble >= 1 &&
			    shards->valuedouble <= CONFIG_SHARD_COUNT_MAX)
				a->recommended_shards = (int)shards->valuedouble;
			if (cJSON_IsNumber(mc) && mc->valuedouble >= 1 && mc->valuedouble <= 1024)
				a->max_concurrency = (int)mc->valuedouble;
			if (cJSON_IsNumber(rem) && rem->valuedouble >= 0 && cJSON_IsNumber(reset) &&
			    reset->valuedouble >= 0) {
				a->starts_left =
				    rem->valuedouble < 1e9 ? (long)rem->valuedouble : -1;
				a->starts_total = cJSON_IsNumber(total) &&
				                          total->valuedouble >= 1 &&
				                          total->valuedouble < 1e9
				                      ? (long)total->valuedouble
				                      : -1;
				/* A day at most: a longer wait is not believed. */
				a->starts_reset_ms = reset->valuedouble < 86400000
				                         ? (long)reset->valuedouble
				                         : 86400000;
			}
			if (a->starts_left == 0)
				log_msg(LOG_WARN, "no session starts left; waiting %.0f s",
				        (double)a->starts_reset_ms / 1000);
			cJSON_Delete(j);
			rest_response_free(&resp);
			if (a->gateway_url[0])
				return 0;
		} else {
			log_msg(LOG_WARN, "GET /gateway/bot: %ld %s", resp.status, resp.error);
			rest_response_free(&resp);
		}
		sleep_ms(1000L << attempt);
	}
	log_msg(LOG_ERR, "cannot reach the API to find the gateway");
	return 1;
}

/* Decides the shards run here: the configured range, or (auto) all of
 * those GET /gateway/bot recommends. Returns 0, or an exit status after
 * saying why. */
static int plan_shards(struct app *a, struct shards_config *sc)
{
	int count = a->cfg.shard_count ? a->cfg.shard_count
	                               : (a->recommended_shards ? a->recommended_shards : 1);

	if (a->cfg.shard_count) {
		sc->first = a->cfg.shard_first;
		sc->last = a->cfg.shard_last;
	} else if (count > CONFIG_SHARDS_MAX) {
		log_msg(LOG_ERR,
		        "shards = auto: Discord recommends %d shards, more than one process runs "
		        "(%d): run several processes, each with shards = A-B/%d",
		        count, CONFIG_SHARDS_MAX, count);
		return 1;
	} else {
		sc->first = 0;
		sc->last = count - 1;
	}
	sc->count = count;
	sc->max_concurrency = a->max_concurrency;
	sc->remaining = a->starts_left;
	sc->total = a->starts_total;
	sc->reset_after_ms = a->starts_reset_ms;
	if (a->recommended_shards > count)
		log_msg(
		    LOG_WARN,
		    "Discord recommends %d shards; %d are configured (shards = auto follows the "
		    "recommendation)",
		    a->recommended_shards, count);
	log_msg(LOG_NOTICE, "shards %d-%d of %d here (%d session starts per 5 s)", sc->first,
	        sc->last, count, sc->max_concurrency);
	return 0;
}

static const char usage[] =
    "Usage: rlyeh run [--config FILE] [--shards auto|A-B/N]\n"
    "Run the bot on Discord: connect to the gateway, answer slash commands and\n"
    "buttons, keep games in the database. Stops cleanly on SIGTERM or SIGINT.\n"
    "\n"
    "  --config FILE   configuration (see config/rlyeh.conf); RLYEH_<KEY> variables\n"
    "                  override it\n"
    "  --shards SPEC   gateway shards run here (key shards): auto, as many as\n"
    "                  Discord recommends; A-B/N, shards A to B of N; A/N, one.\n"
    "                  With PostgreSQL each shard is owned by one process at a\n"
    "                  time: the others wait and take it over if its owner dies\n"
    "  --help          this text\n"
    "\n"
    "The token comes from $RLYEH_TOKEN, the file named by token_file, or\n"
    "$CREDENTIALS_DIRECTORY/token — never from the command line. Without a\n"
    "token, in a terminal, the game is played there instead (as rlyeh console).\n"
    "Exit status: 0 stopped cleanly, 1 error, 2 usage or no token (not in a\n"
    "terminal),\n"
    "3 the token was refused (gateway close 4004), 4 the gateway refused the\n"
    "client (close 4010-4014: 4010 a shard id not below the count, 4011 too\n"
    "many guilds for the shard count), 5 the database is damaged (nothing\n"
    "written; put a backup back with rlyeh restore).\n";

static const char no_token[] =
    "rlyeh run: no bot token.\n"
    "Create an application at https://discord.com/developers/applications, add a bot,\n"
    "copy its token, and give it to rlyeh as RLYEH_TOKEN in the environment or in a file\n"
    "named by token_file in the configuration (with systemd: LoadCredential=token:...).\n"
    "Without a token, rlyeh run in a terminal plays there instead (as rlyeh console).\n";

int discord_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "shards", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lws_context_creation_info info;
	struct rest_config rc = { 0 };
	struct shards_config sc = { 0 };
	struct shards_handler sh = { 0 };
	struct bot_config bc;
	struct app *a;
	const char *config_path = NULL, *shards_opt = NULL;
	char err[512], shown[512];
	int opt, status = 0, rcode;
	uint64_t seed;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			config_path = optarg;
			break;
		case 's':
			shards_opt = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return cli_usage_error("run", "unknown option");
		}
	}
	if (optind < argc)
		return cli_usage_error("run", "unexpected argument '%s'", argv[optind]);
	a = calloc(1, sizeof(*a));
	if (!a)
		return 1;
	config_default(&a->cfg);
	if (config_load(&a->cfg, config_path, err, sizeof(err)) ||
	    (shards_opt && config_set_shards(&a->cfg, shards_opt, "--shards", err, sizeof(err)))) {
		fprintf(stderr, "rlyeh run: %s\n", err);
		free(a);
		return 2;
	}
	/* No core file, no ptrace by the same user: the token is in memory. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	rcode = config_load_token(&a->cfg, err, sizeof(err));
	if (rcode > 0 && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
		/* Someone trying it out: the same bot, in this terminal. */
		static char *console_argv[] = { "console", NULL };
		fputs("rlyeh run: no bot token, so the game is played here, in this terminal (a "
		      "local channel).\nGive rlyeh a token to run it on Discord (rlyeh run "
		      "--help).\n",
		      stderr);
		free(a);
		return console_main(1, console_argv);
	}
	if (rcode) {
		if (rcode < 0)
			fprintf(stderr, "rlyeh run: %s\n", err);
		else
			fputs(no_token, stderr);
		free(a);
		return 2;
	}
	/* The event loop must not stop while a solver table is built; tables
	 * solved once are kept beside the database. */
	solvecache_background();
	solvecache_beside(a->cfg.database);
	store_describe(a->cfg.database, shown, sizeof(shown));
	{
		char why[2048];
		int damaged = store_check_start(a->cfg.database, why, sizeof(why));
		if (damaged) {
			log_msg(LOG_ERR, "%s", why);
			free(a);
			return damaged > 0 ? 5 : 1;
		}
	}
	if (store_open(a->cfg.database, &a->st, err, sizeof(err)) ||
	    store_set_durability(a->st, a->cfg.durability)) {
		log_msg(LOG_ERR, "database %s: %s", shown, a->st ? store_errmsg(a->st) : err);
		store_close(a->st);
		free(a);
		return 1;
	}
	if (store_checkpoint_background(a->st))
		log_msg(LOG_WARN, "database %s: %s; checkpoints stay in commits", shown,
		        store_errmsg(a->st));
	a->batch = calloc(BATCH_MAX, sizeof(*a->batch));
	if (!a->batch) {
		log_msg(LOG_ERR, "out of memory");
		store_close(a->st);
		free(a);
		return 1;
	}
	bot_config_default(&bc);
	if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = (uint64_t)now_ms() ^ (uint64_t)getpid();
	bc.seed = seed;
	bc.turn_timeout_ms = (int64_t)a->cfg.turn_timeout * 1000;
	bc.lobby_timeout_ms = (int64_t)a->cfg.lobby_timeout * 1000;
	bc.lang = a->cfg.lang;
	text_copy(a->app_id, sizeof(a->app_id), a->cfg.application_id);
	memset(&info, 0, sizeof(info));
	info.port = a->cfg.health_port ? a->cfg.health_port : CONTEXT_PORT_NO_LISTEN;
	info.iface = a->cfg.health_port ? "127.0.0.1" : NULL;
	info.protocols = protocols;
	info.options = LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
	info.user = a;
	lws_set_log_level(LLL_ERR, NULL);
	a->ctx = lws_create_context(&info);
	if (!a->ctx) {
		log_msg(LOG_ERR, "cannot create the event loop");
		status = 1;
		goto out;
	}
	rc.base_url = a->cfg.api_url;
	rc.token = a->cfg.token;
	rc.user_agent = USER_AGENT;
	a->rest = rest_start(&rc, wake, a->ctx);
	if (!a->rest) {
		status = 1;
		goto out;
	}
	a->global_total = rest_share(a->rest);
	if (store_is_postgresql(a->cfg.database)) {
		a->limits = limits_open(a->cfg.database, "rlyeh", err, sizeof(err));
		if (!a->limits) {
			log_msg(LOG_ERR, "shared limits: %s", err);
			status = 1;
			goto out;
		}
		a->live = 1;
		shared_beat(a);
		a->next_beat = now_ms() + LIMITS_BEAT_MS;
		lws_sul_schedule(a->ctx, 0, &a->shared, shared_due, SHARED_POLL_MS * LWS_US_PER_MS);
	}
	a->max_concurrency = 1;
	a->starts_left = a->starts_total = -1;
	if (a->cfg.gateway_url[0])
		text_copy(a->gateway_url, sizeof(a->gateway_url), a->cfg.gateway_url);
	if ((!a->cfg.gateway_url[0] || a->cfg.shard_count == 0) && (status = find_gateway(a)) != 0)
		goto out;
	if ((status = plan_shards(a, &sc)) != 0)
		goto out;
	/* On PostgreSQL every process owns its shards through the database,
	 * shards = auto too (then all of them are wanted here). */
	if (store_is_postgresql(a->cfg.database))
		bc.shards = sc.count;
	a->bot = bot_new(a->st, &bc, err, sizeof(err));
	if (!a->bot) {
		log_msg(LOG_ERR, "cannot resume the stored games: %s", err);
		status = 1;
		goto out;
	}
	sc.gw.url = a->gateway_url;
	sc.gw.token = a->cfg.token;
	sc.gw.compress = a->cfg.compress;
	sc.gw.protocol_name = PROTOCOL;
	sh.ctx = a;
	sh.dispatch = on_dispatch;
	sh.state = on_state;
	sc.managed = bc.shards > 0;
	sh.may_identify = a->limits ? shared_identify : NULL;
	a->shards = shards_new(a->ctx, &sc, &sh);
	if (!a->shards) {
		status = 1;
		goto out;
	}
	if (sc.managed) {
		struct owner_config oc = { .count = sc.count,
			                   .first = sc.first,
			                   .last = sc.last,
			                   .standby = a->cfg.standby,
			                   .grace = 2 };
		struct owner_events oe = {
			.ctx = a, .gained = own_gained, .lost = own_lost, .waiting = own_waits
		};
		char host[32] = "", name[STORE_ID_MAX];
		if (gethostname(host, sizeof(host) - 1))
			host[0] = '\0';
		snprintf(name, sizeof(name), "%s:%ld", host, (long)getpid());
		oc.name = name;
		a->own_first = sc.first;
		a->own_count = sc.count;
		a->owner = owner_new(a->cfg.database, &oc, &oe, err, sizeof(err));
		if (!a->owner) {
			log_msg(LOG_ERR, "shard ownership: %s", err);
			status = 1;
			goto out;
		}
		log_msg(LOG_NOTICE, "shards %d-%d of %d: owned through the database%s", sc.first,
		        sc.last, sc.count, a->cfg.standby ? " (standby)" : "");
	}
	signal_ctx = a->ctx;
	{
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sa.sa_handler = SIG_IGN;
		sigaction(SIGPIPE, &sa, NULL);
	}
	a->config_path = config_path;
	if (sd_watchdog_enabled(0, &a->watchdog_us) > 0 && a->watchdog_us > 0)
		lws_sul_schedule(a->ctx, 0, &a->watchdog, watchdog_due,
		                 (lws_usec_t)a->watchdog_us / 2);
	log_msg(LOG_NOTICE, "rlyeh %s: %d games resumed; connecting", RLYEH_VERSION,
	        bot_open_games(a->bot));
	shards_start(a->shards);
	if (a->owner)
		own_due(&a->own);
	lws_sul_schedule(a->ctx, 0, &a->trim, trim_due, TRIM_MS * LWS_US_PER_MS);
	schedule_tick(a);
	while (shards_running(a->shards)) {
		if (lws_service(a->ctx, 0) < 0 || gather(a) < 0)
			break;
		flush(a);
		if (reload_signal) {
			reload_signal = 0;
			reload(a);
		}
		if (stop_signal && !a->stopping) {
			a->stopping = 1;
			sd_notify(0, "STOPPING=1");
			lws_sul_cancel(&a->own);
			for (int i = 0;
			     a->owner && a->own_first + i < a->own_count && i < CONFIG_SHARDS_MAX;
			     i++)
				own_save_session(a, a->own_first + i);
			shards_stop(a->shards);
		}
	}
	flush(a);
	status = shards_fatal(a->shards);
	/* Finish the replies in flight, then leave. */
	/* The gateway is closed: only the HTTP worker is left, polled here
	 * (the event loop could block until its next timer), 5 s at most. */
	for (int i = 0; i < 500 && rest_pending(a->rest) > 0; i++) {
		drain(a);
		sleep_ms(10);
	}
	drain(a);
out:
	signal_ctx = NULL;
	lws_sul_cancel(&a->tick);
	lws_sul_cancel(&a->own);
	owner_free(a->owner); /* its connection closes: the standbys take over */
	lws_sul_cancel(&a->watchdog);
	lws_sul_cancel(&a->trim);
	lws_sul_cancel(&a->shared);
	limits_close(a->limits);
	rest_stop(a->rest, 2000);
	if (a->ctx)
		lws_context_destroy(a->ctx);
	shards_free(a->shards);
	bot_free(a->bot);
	if (!bc.shards)
		persist_live(a); /* else each was kept as made, and may be another's now */
	store_checkpoint(a->st);
	store_close(a->st);
	msg_free(&a->out);
	for (int i = 0; a->batch && i < BATCH_MAX; i++)
		msg_free(&a->batch[i].out);
	free(a->batch);
	for (int i = 0; i < PENDING_SLOTS; i++) {
		release_later(&a->pend[i]);
		free(a->pend[i].token);
	}
	for (size_t i = 0; i < a->nbuckets; i++) {
		for (struct chan *c = a->chans[i], *next; c; c = next) {
			next = c->next;
			free(c->token);
			free(c);
		}
	}
	free(a->chans);
	free(a->prompts);
	log_msg(LOG_NOTICE, "stopped (exit status %d)", status);
	free(a);
	return status;
}
