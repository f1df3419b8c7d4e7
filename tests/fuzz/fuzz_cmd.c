/* Fuzzes the command parsers: each input, made a NUL-terminated string, is
 * parsed as a button id (cmd_parse_button) and as a typed command
 * (cmd_parse). What either accepts must be a known command with bounded,
 * NUL-terminated arguments, and must parse again to the same command when
 * written back in canonical form. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define INPUT_MAX 4096

static void check(const struct cmd *c)
{
	if (!cmd_word(c) || c->nargs < 0 || c->nargs > CMD_ARGS_MAX)
		abort();
	for (int i = 0; i < c->nargs; i++)
		if (!memchr(c->args[i], '\0', sizeof(c->args[i])))
			abort();
}

static int same(const struct cmd *a, const struct cmd *b)
{
	if (a->kind != b->kind || a->nargs != b->nargs || a->game != b->game || a->move != b->move)
		return 0;
	for (int i = 0; i < a->nargs; i++)
		if (strcmp(a->args[i], b->args[i]) != 0)
			return 0;
	return 1;
}

static void button(const char *id)
{
	struct cmd c, again;
	char back[160];

	if (cmd_parse_button(id, &c) != CMD_OK)
		return;
	check(&c);
	if (c.game <= 0 || c.move < 0 || c.nargs > 1)
		abort();
	snprintf(back, sizeof(back), "%lld:%d:%s%s%s", (long long)c.game, c.move, cmd_word(&c),
	         c.nargs ? ":" : "", c.nargs ? c.args[0] : "");
	if (cmd_parse_button(back, &again) != CMD_OK || !same(&c, &again))
		abort();
}

static void typed(const char *line)
{
	struct cmd c, again;
	char back[CMD_LINE_MAX + 1];
	size_t n;

	if (cmd_parse(line, &c) != CMD_OK)
		return;
	check(&c);
	if (c.game != 0 || c.move != -1)
		abort();
	n = (size_t)snprintf(back, sizeof(back), "/%s", cmd_word(&c));
	for (int i = 0; i < c.nargs; i++) {
		int quote = !c.args[i][0] || strpbrk(c.args[i], " \t\r\n") != NULL;
		n += (size_t)snprintf(back + n, sizeof(back) - n, quote ? " \"%s\"" : " %s",
		                      c.args[i]);
		if (n >= sizeof(back))
			abort();
	}
	if (cmd_parse(back, &again) != CMD_OK || !same(&c, &again))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size > INPUT_MAX)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	button(s);
	typed(s);
	free(s);
	return 0;
}
