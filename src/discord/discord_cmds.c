/* The Discord adapter: the slash commands' definitions and autocompletion. */
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
