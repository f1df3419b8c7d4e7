/* cmd: the bot's commands, the same set on every platform, and the parsing
 * of their typed form ("/curse bob") and of button ids ("12:5:curse:1").
 * The table commands are listed here; the moves of each game ("curse",
 * "eye"…) are CMD_ACTION, named by the games themselves (play.h). */
#ifndef RLYEH_CMD_H
#define RLYEH_CMD_H

#include <stdint.h>

#define CMD_ARGS_MAX 5   /* /open's game, variant, cultists, language, settings */
#define CMD_ARG_MAX  129 /* bytes incl. NUL: all six board-game settings fit */
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
	CMD_ACTION, /* a move of a game: struct cmd.action says which */
	CMD_HINT,
	CMD_LEADERBOARD,
	CMD_STATS,
	CMD_LANGUAGE,
	CMD_NOTIFY,
	CMD_LOG,
	CMD_COUNT,
};

struct cmd {
	int kind;   /* enum cmd_kind */
	int action; /* CMD_ACTION: the action's index in play_action_at() */
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

/* Appends arg as the command's last argument: the text typed into a
 * button's prompt, or the value chosen in a select menu. Returns CMD_OK, or
 * CMD_EARGS with c unchanged when c has CMD_ARGS_MAX arguments already or arg
 * is empty or CMD_ARG_MAX bytes or longer. */
int cmd_append_arg(struct cmd *c, const char *arg);

/* The name of a table command's kind without the slash ("open"; "action"
 * for CMD_ACTION); NULL for an unknown kind. */
const char *cmd_name(int kind);

/* The command's own name without the slash: its kind's, or its action's
 * ("curse"). */
const char *cmd_word(const struct cmd *c);

/* Sets c->kind (and c->action) from a command name without the slash: a
 * table command or any game's action. Returns 0, or -1 when unknown (c
 * unchanged then). */
int cmd_set_name(struct cmd *c, const char *name);

#endif
