/* cmd: the bot's commands, the same set on every platform, and the parsing
 * of their typed form ("/curse bob") and of button ids ("12:5:curse:1"). */
#ifndef RLYEH_CMD_H
#define RLYEH_CMD_H

#include <stdint.h>

#define CMD_ARGS_MAX 4
#define CMD_ARG_MAX  65 /* bytes incl. NUL */
#define CMD_LINE_MAX 512

enum cmd_kind {
	CMD_OPEN,
	CMD_JOIN,
	CMD_LEAVE,
	CMD_ADDBOT,
	CMD_REMOVE,
	CMD_START,
	CMD_STATUS,
	CMD_RULES,
	CMD_HELP,
	CMD_ABORT,
	CMD_REMATCH,
	CMD_CURSE,
	CMD_EYE,
	CMD_RESPOND,
	CMD_LEADERBOARD,
	CMD_STATS,
	CMD_LANGUAGE,
	CMD_COUNT,
};

struct cmd {
	int kind; /* enum cmd_kind */
	int nargs;
	char args[CMD_ARGS_MAX][CMD_ARG_MAX];
	int64_t game; /* from a button: the game it was made for; 0 when typed */
	int move;     /* from a button: the move it was made for; -1 when typed */
};

enum cmd_err {
	CMD_OK = 0,
	CMD_ENOTCMD = -1,  /* does not start with '/' */
	CMD_EUNKNOWN = -2, /* no such command */
	CMD_EARGS = -3,    /* too many or too long arguments, or an open quote */
	CMD_EBUTTON = -4,  /* a malformed button id */
};

/* Parses a typed command line: "/name arg…", arguments separated by blanks,
 * a double-quoted argument may hold blanks. Returns CMD_OK or an error (out
 * undefined then). */
int cmd_parse(const char *line, struct cmd *out);

/* Parses a button id as made by msg_button ("<game>:<move>:<name>[:<arg>]"). */
int cmd_parse_button(const char *id, struct cmd *out);

/* The command's name without the slash ("curse"); NULL for an unknown kind. */
const char *cmd_name(int kind);

/* The kind of a command name (without the slash), or -1. */
int cmd_lookup(const char *name);

#endif
