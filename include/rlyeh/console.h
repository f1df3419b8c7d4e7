/* console: the terminal adapter. One local channel; each input line is
 * "name: /command args" (a line without "name:" acts as the last named
 * player); the bot's messages are printed as text. */
#ifndef RLYEH_CONSOLE_H
#define RLYEH_CONSOLE_H

#include <stdio.h>

#include "rlyeh/msg.h"

/* Prints one message as terminal text to f, in language `lang` for the
 * adapter's own words. */
void console_print(FILE *f, const struct msg *m, int lang);

/* `rlyeh console`: returns the process exit status. */
int console_main(int argc, char **argv);

#endif
