/* console: the terminal adapter. One local channel; each input line is
 * "name: /command args" (a line without "name:" acts as the last named
 * player); the bot's messages are printed as text. */
#ifndef RLYEH_CONSOLE_H
#define RLYEH_CONSOLE_H

#include <stdio.h>

#include "rlyeh/cmd.h"
#include "rlyeh/msg.h"

#define CONSOLE_NAME_MAX 32 /* bytes of a player's name, without the NUL */

/* What console_parse_line returns besides the cmd_parse results. */
enum console_line {
	CONSOLE_LINE_EMPTY = 1,   /* blank, or a '#' comment: nothing to do */
	CONSOLE_LINE_BADNAME = 2, /* "name:" is not 1-32 letters, digits, '_', '-', '.' */
};

/* Prints one message as terminal text to f, in language `lang` for the
 * adapter's own words. */
void console_print(FILE *f, const struct msg *m, int lang);

/* Splits one input line "name: /command args" (NUL-terminated; it ends at
 * its first CR or LF) into the name and the command. name gets the name when
 * the line has one and "" otherwise; out is filled as by cmd_parse. Returns
 * CONSOLE_LINE_EMPTY, CONSOLE_LINE_BADNAME, CMD_EARGS for a line longer than
 * CMD_LINE_MAX bytes, or what cmd_parse returned for the part after the name
 * (name is set then, even when that is an error). */
int console_parse_line(const char *text, char name[CONSOLE_NAME_MAX + 1], struct cmd *out);

/* `rlyeh console`: returns the process exit status. */
int console_main(int argc, char **argv);

#endif
