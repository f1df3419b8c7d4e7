#include "rlyeh/cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/play.h"

static const char *const names[CMD_COUNT] = {
	[CMD_OPEN] = "open",       [CMD_JOIN] = "join",
	[CMD_LEAVE] = "leave",     [CMD_ADDBOT] = "addbot",
	[CMD_REMOVE] = "remove",   [CMD_START] = "start",
	[CMD_STATUS] = "status",   [CMD_RULES] = "rules",
	[CMD_HELP] = "help",       [CMD_ABORT] = "abort",
	[CMD_REMATCH] = "rematch", [CMD_ACTION] = "action",
	[CMD_HINT] = "hint",       [CMD_LEADERBOARD] = "leaderboard",
	[CMD_STATS] = "stats",     [CMD_LANGUAGE] = "language",
	[CMD_NOTIFY] = "notify",   [CMD_LOG] = "log",
};

const char *cmd_name(int kind)
{
	return kind >= 0 && kind < CMD_COUNT ? names[kind] : NULL;
}

const char *cmd_word(const struct cmd *c)
{
	const struct play_action *a;

	if (c->kind != CMD_ACTION)
		return cmd_name(c->kind);
	a = play_action_at(c->action);
	return a ? a->name : NULL;
}

int cmd_set_name(struct cmd *c, const char *name)
{
	int action;

	for (int k = 0; k < CMD_COUNT; k++) {
		if (k != CMD_ACTION && strcmp(name, names[k]) == 0) {
			c->kind = k;
			return 0;
		}
	}
	action = play_action_index(name);
	if (action < 0)
		return -1;
	c->kind = CMD_ACTION;
	c->action = action;
	return 0;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Copies the next word (or "quoted words") at *p into dst and advances *p.
 * Returns 1 for a word, 0 at the end, -1 for a word too long or an open
 * quote. */
static int next_word(const char **p, char *dst, size_t cap)
{
	const char *s = *p;
	size_t n = 0;
	int quoted;

	while (is_blank(*s))
		s++;
	if (!*s)
		return 0;
	quoted = *s == '"';
	if (quoted)
		s++;
	while (*s && (quoted ? *s != '"' : !is_blank(*s))) {
		if (n + 1 >= cap)
			return -1;
		dst[n++] = *s++;
	}
	if (quoted) {
		if (*s != '"')
			return -1;
		s++;
	}
	dst[n] = '\0';
	*p = s;
	return 1;
}

int cmd_parse(const char *line, struct cmd *out)
{
	char name[CMD_ARG_MAX];
	const char *p = line;
	int rc;

	memset(out, 0, sizeof(*out));
	out->move = -1;
	while (is_blank(*p))
		p++;
	if (*p != '/')
		return CMD_ENOTCMD;
	p++;
	if (strlen(line) >= CMD_LINE_MAX)
		return CMD_EARGS;
	if (next_word(&p, name, sizeof(name)) != 1)
		return CMD_EUNKNOWN;
	for (char *c = name; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	if (cmd_set_name(out, name))
		return CMD_EUNKNOWN;
	while ((rc = next_word(&p, out->args[out->nargs], CMD_ARG_MAX)) == 1)
		if (++out->nargs == CMD_ARGS_MAX)
			break;
	if (rc < 0)
		return CMD_EARGS;
	while (is_blank(*p))
		p++;
	return *p ? CMD_EARGS : CMD_OK;
}

/* Parses a decimal field ending at ':' into [0, max]; advances *p past ':'. */
static int field(const char **p, long long max, long long *out)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	*out = strtoll(*p, &end, 10);
	if (errno || *end != ':' || *out > max)
		return -1;
	*p = end + 1;
	return 0;
}

int cmd_parse_button(const char *id, struct cmd *out)
{
	char name[CMD_ARG_MAX];
	const char *p = id, *colon;
	long long game, move;
	size_t n;

	memset(out, 0, sizeof(*out));
	out->move = -1;
	if (strlen(id) > 100 || field(&p, INT64_MAX, &game) || field(&p, 1000000000, &move) ||
	    game == 0)
		return CMD_EBUTTON;
	colon = strchr(p, ':');
	n = colon ? (size_t)(colon - p) : strlen(p);
	if (n == 0 || n >= sizeof(name))
		return CMD_EBUTTON;
	memcpy(name, p, n);
	name[n] = '\0';
	if (cmd_set_name(out, name))
		return CMD_EBUTTON;
	if (colon) {
		if (strlen(colon + 1) >= CMD_ARG_MAX || !colon[1])
			return CMD_EBUTTON;
		memcpy(out->args[0], colon + 1, strlen(colon + 1) + 1);
		out->nargs = 1;
	}
	out->game = game;
	out->move = (int)move;
	return CMD_OK;
}

int cmd_append_arg(struct cmd *c, const char *arg)
{
	size_t n = strlen(arg);

	if (c->nargs >= CMD_ARGS_MAX || n == 0 || n >= CMD_ARG_MAX)
		return CMD_EARGS;
	memcpy(c->args[c->nargs++], arg, n + 1);
	return CMD_OK;
}
