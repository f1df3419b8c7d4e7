/* Fuzzes interaction data and options: each input is the "d" of an
 * INTERACTION_CREATE as raw JSON (not NUL-terminated), parsed with
 * cJSON_ParseWithLength and mapped by discord_parse_interaction. An accepted
 * interaction must give a known command, at most CMD_ARGS_MAX arguments and
 * NUL-terminated strings (a component or a modal submission: its game and
 * move; a modal submission: its text as the last argument; an autocomplete:
 * no arguments, the option typed, and an answer that is a JSON object); a
 * refused one a NUL-terminated reason. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/discord.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_string(const char *s, size_t cap)
{
	if (!s || !memchr(s, '\0', cap))
		abort();
}

static void check(const struct discord_req *r)
{
	const struct cmd *c = &r->req.cmd;

	if (c->kind < 0 || c->kind >= CMD_COUNT || c->nargs < 0 || c->nargs > CMD_ARGS_MAX)
		abort();
	for (int i = 0; i < c->nargs; i++)
		check_string(c->args[i], sizeof(c->args[i]));
	if (r->type < 2 || r->type > 5)
		abort();
	if ((r->type == 3 || r->type == 5) && (c->game <= 0 || c->move < 0))
		abort();
	/* Autocomplete: the command without arguments, the option typed. */
	if (r->type == 4 && (c->nargs != 0 || !r->focus_option[0]))
		abort();
	check_string(r->focus_option, sizeof(r->focus_option));
	check_string(r->focus, sizeof(r->focus));
	/* A modal's text or a menu's choice is the last argument. */
	if (r->type == 5 && (c->nargs < 1 || strlen(c->args[c->nargs - 1]) > MSG_PROMPT_TEXT))
		abort();
	if (r->prompt && (r->type != 3 || !r->button[0]))
		abort();
	check_string(r->button, sizeof(r->button));
	check_string(r->button_label, sizeof(r->button_label));
	check_string(r->req.server, sizeof(r->server));
	check_string(r->req.channel, sizeof(r->channel));
	check_string(r->req.user, sizeof(r->user));
	check_string(r->req.name, sizeof(r->name));
	check_string(r->id, sizeof(r->id));
	check_string(r->token, sizeof(r->token));
	check_string(r->message_id, sizeof(r->message_id));
	if (r->req.locale)
		check_string(r->req.locale, sizeof(r->locale));
	if (!r->req.server[0] || !r->req.channel[0] || !r->req.user[0] || !r->id[0] || !r->token[0])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *d = cJSON_ParseWithLength((const char *)data, size);
	struct discord_req r;
	char err[128];

	if (discord_parse_interaction(d, &r, err, sizeof(err)) == 0) {
		check(&r);
		if (r.type == 4) {
			/* its answer is a JSON object, for any game */
			char *json = discord_autocomplete_json(&r, r.focus);
			cJSON *answer = json ? cJSON_Parse(json) : NULL;
			if (json && !cJSON_IsObject(answer))
				abort();
			cJSON_Delete(answer);
			free(json);
		}
	} else
		check_string(err, sizeof(err));
	cJSON_Delete(d);
	return 0;
}
