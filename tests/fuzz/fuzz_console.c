/* Fuzzes the console's line splitting: each input, made a NUL-terminated
 * string, goes through console_parse_line. A name, when given, must be a
 * valid one (1-32 bytes, no blank, ':' or control character); an accepted
 * command must be known, with bounded, NUL-terminated arguments. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/console.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define INPUT_MAX 4096

static void check(int rc, const char *name, const struct cmd *c)
{
	size_t n;

	if (!memchr(name, '\0', CONSOLE_NAME_MAX + 1))
		abort();
	n = strlen(name);
	if ((rc == CONSOLE_LINE_EMPTY || rc == CONSOLE_LINE_BADNAME) && n)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)name[i] <= ' ' || name[i] == ':' || name[i] == '/')
			abort();
	if (rc != CMD_OK)
		return;
	if (!cmd_word(c) || c->nargs < 0 || c->nargs > CMD_ARGS_MAX || c->game != 0 ||
	    c->move != -1)
		abort();
	for (int i = 0; i < c->nargs; i++)
		if (!memchr(c->args[i], '\0', sizeof(c->args[i])))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[CONSOLE_NAME_MAX + 1];
	struct cmd c;
	char *s;
	int rc;

	if (size > INPUT_MAX)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	rc = console_parse_line(s, name, &c);
	if (rc != CONSOLE_LINE_EMPTY && rc != CONSOLE_LINE_BADNAME && rc != CMD_OK &&
	    rc != CMD_ENOTCMD && rc != CMD_EUNKNOWN && rc != CMD_EARGS)
		abort();
	check(rc, name, &c);
	free(s);
	return 0;
}
