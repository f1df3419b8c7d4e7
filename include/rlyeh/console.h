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
	CONSOLE_LINE_BADNAME = 2, /* "name:" is not 1-32 ASCII letters, digits, '_', '-', '.' */
};

/* Prints one message as terminal text to f, in language `lang` for the
 * adapter's own words: its title, fields and text; its picture as the line
 * "  picture: <name>" ("afbeelding" in Dutch; no file is written: see
 * console_show), after the picture's text form when it has one; its select
 * menu as its placeholder "  ? <placeholder>" (when it has one) and one
 * numbered line per option "    <i>. <label> — <description> [/<command>
 * <value>]"; its buttons on one line "  > [<label>: /<command> <arg>] ...",
 * a button that asks for text with its prompt as the last argument
 * ("[Move: /move <Destination (gx,gy)>]"). Every line carries the prefix of
 * a private message. */
void console_print(FILE *f, const struct msg *m, int lang);

/* As console_print, but a picture is first written to a file in the
 * directory `dir` (console_save_picture) and its line gives the path, or
 * "  picture not saved: <why>" when that failed; the game goes on either
 * way. dir NULL: as console_print. */
void console_show(FILE *f, const struct msg *m, int lang, const char *dir);

/* Writes m's picture to <dir>/<picture_name> (made, with its parents, mode
 * 0700, when missing), through a temporary file renamed into place, so a
 * viewer never sees half a picture; the next picture of that name replaces
 * it, and once it is written the earlier pictures of its table and kind
 * ("map-<game>-<move>.png": every other map-<game>-*.png in dir) are
 * removed, so a game leaves its latest picture of each kind. Returns 0 with the path in
 * path[0..cap-1], 1 when m has no picture, or -1 with the reason in err (no file left behind). */
int console_save_picture(const char *dir, const struct msg *m, char *path, size_t cap, char *err,
                         size_t errlen);

/* The directory pictures go to: `option` (--pictures) when given, else
 * $RLYEH_PICTURES when set and not empty, else "pictures" in the directory of
 * the database `db` (the data directory by default: $XDG_DATA_HOME/rlyeh or
 * ~/.local/share/rlyeh; "." for a database path without a directory; for
 * PostgreSQL store_folder's state directory).
 * Writes it to out[0..cap-1]; returns 0, or -1 when it does not fit. */
int console_picture_dir(const char *option, const char *db, char *out, size_t cap);

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
