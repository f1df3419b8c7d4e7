/* play: what the bot needs from a game beyond its engine — table options,
 * who controls which seat, how players' commands become engine values, and
 * how events and the table are told. One implementation per game
 * (cdplay.c for Cthulhu Dice, esplay.c for Elder Signs, ctplay.c for the
 * CTHULHU!!! board game), listed in play_games[]. */
#ifndef RLYEH_PLAY_H
#define RLYEH_PLAY_H

#include <stddef.h>

#include "rlyeh/cmd.h"
#include "rlyeh/game.h"
#include "rlyeh/msg.h"
#include "rlyeh/store.h"
#include "rlyeh/text.h"

#define PLAY_STATE_MAX 8192    /* bytes of a game's state, at most (CTHULHU!!!: 6,964) */
#define PLAY_ROLL      (-1000) /* action value: roll the awaited die */

/* How a platform asks for an action's option. */
enum play_arg {
	PLAY_ARG_TEXT,
	PLAY_ARG_USER,
	PLAY_ARG_NUMBER,
};

/* An option of an action, in English and Dutch. Typed, options are the
 * command's words in this order. */
struct play_option {
	const char *name, *nl_name;
	int type; /* enum play_arg */
	int required;
	const char *desc, *nl_desc;
	/* "a,b,c"; a choice "a=b" is the value a, named b in Dutch; NULL:
	 * any value; "@complete": any value, completed while it is typed by
	 * the game's `complete` */
	const char *choices;
};

#define PLAY_OPTIONS_MAX 2

/* A value an option being typed may take (a platform's autocomplete): the
 * name shown in English and in Dutch, and the value it gives. */
#define PLAY_CHOICE_MAX  101 /* bytes of each, with the NUL */
#define PLAY_CHOICES_MAX 25  /* choices offered at most (Discord's limit) */
struct play_choice {
	char name[PLAY_CHOICE_MAX], nl_name[PLAY_CHOICE_MAX], value[PLAY_CHOICE_MAX];
};
#define PLAY_ACTIONS_MAX 32 /* actions of all games together */

/* A move a game's players make by command or button ("curse", "eye"…). The
 * same name in two games is one command; each game reads it its own way. */
struct play_action {
	const char *name, *nl_name;
	const char *desc, *nl_desc;
	struct play_option opts[PLAY_OPTIONS_MAX];
	int code; /* the game's own number for it */
};

/* A table as a game's bot code sees it. */
struct play_ctx {
	const struct store_game *row;
	const struct store_member *m;
	int nm;
	int lang; /* enum i18n_lang of the text being made */
};

struct play_game {
	const struct game_ops *ops;
	/* Reads one /open option word into row (variant, team size…).
	 * Returns 0 when it is this game's, -1 when not. */
	int (*option)(const char *word, struct store_game *row);
	/* Optional: marks the row of a table being opened or rematched with
	 * what its game fixes once for good when a table begins (CTHULHU!!!:
	 * the revision of the rules its game follows). A row not marked so is
	 * an older table's, played by the older rules. NULL: nothing. */
	void (*stamp)(struct store_game *row);
	/* Fewest and most members a table may start with. */
	void (*members)(const struct store_game *row, int *min, int *max);
	/* The engine setup for a table of nm members. */
	void (*setup)(const struct store_game *row, int nm, struct game_setup *out);
	/* Index of the member who controls `seat`. */
	int (*member_of)(const void *state, int seat);
	/* Name of a seat for messages. */
	void (*seat_name)(const void *state, const struct play_ctx *c, int seat, char *buf,
	                  size_t cap);
	/* The game's actions, `nactions` of them. */
	const struct play_action *actions;
	int nactions;
	/* Maps an action command of member `who` (cmd->kind is CMD_ACTION;
	 * play_action_code gives the game's own code for it) to an engine value
	 * or PLAY_ROLL. Returns 0, or -1 with the refusal written to err. */
	int (*action)(const void *state, const struct play_ctx *c, int who, const struct cmd *cmd,
	              int *value, struct text *err);
	/* 1 when this chance node is rolled as part of the decision before it
	 * (no command awaited), 0 when its roller must act. */
	int (*auto_roll)(const void *state, const struct game_step *step);
	/* Tells events ev[0..n-1], which led to `state`, line by line. */
	void (*narrate)(const void *state, const struct game_event *ev, int n,
	                const struct play_ctx *c, struct text *out);
	/* Fills the table message: state, whose move, and the choices as
	 * buttons for the move `moves` of game `id`. */
	void (*render)(const void *state, const struct play_ctx *c, struct msg *m);
	/* The rules text id (enum i18n_id). */
	int rules;
	/* Optional: further pages of the rules (enum i18n_id), each sent as a
	 * message of its own after `rules`, ended by 0. NULL: none. */
	const int *rules_more;
	/* 1 when a game can end with nobody winning (Cthulhu wins): records
	 * then count those losses. */
	int nobody_wins;
	/* Optional: writes to out, for member `who`, each option of the move
	 * awaited from them with their chance of winning. Returns 0, or -1
	 * with the refusal written instead (not their move, no analysis). */
	int (*hint)(const void *state, const struct play_ctx *c, int who, struct text *out);
	/* Optional: writes to out what the table awaits from member `who` now,
	 * one sentence in c->lang naming the move and its command ("The table
	 * waits for you to respond: /respond."), and returns 1; returns 0 with
	 * nothing written when nothing is awaited from them (another's move,
	 * a roll, the game over). A move refused because it is not the awaited
	 * one says this. NULL: the bot cannot tell. */
	int (*awaits)(const void *state, const struct play_ctx *c, int who, struct text *out);
	/* Optional: the game as the lobby names it, with the options that
	 * change how it is played (Rival Cults and its cultists each), in
	 * lang. NULL: the engine's name. */
	void (*lobby_name)(const struct store_game *row, int lang, struct text *out);
	/* Optional: the name of the same-th computer player of `policy` at a
	 * table with row's options (same from 1). NULL: "<policy>-bot-<same>". */
	void (*bot_name)(const struct store_game *row, const char *policy, int same, char *buf,
	                 size_t cap);
	/* Optional: at the start, what the table is told about a computer
	 * player's policy at this table (enum i18n_id, one {1} for its name),
	 * or 0 for nothing. */
	int (*policy_note)(const void *state, const char *policy);
	/* Texts (enum i18n_id) of the start of a game, {1} the seat that goes
	 * first, of a rematch, and of a rematch after a game nobody won, whose
	 * first seat is drawn (0: the rematch text). */
	int started, rematch, rematch_drawn;
	/* The policy of a computer player added without one, and of a seat
	 * the computer plays for an absent or idle player. */
	const char *policy;

	/* Optional hooks of games whose turns hold many decisions (CTHULHU!!!).
	 * NULL gives the dice games' behaviour, noted with each. */

	/* Settles, without asking anyone, a choice node that the table decides
	 * by its settings, its note or its members' preferences (enemies moved
	 * by the computer, a weapon taken by standing preference, a reaction
	 * window that is off or passed): returns 1 with *value set, 0 when the
	 * seat is asked. NULL: every node is asked. */
	int (*settle)(const void *state, const struct play_ctx *c, const struct game_step *step,
	              int *value);
	/* The value a timed-out choice node takes. It may also fill *more with
	 * a command that value begins (a walk that goes on) and return with
	 * *go = 1: the command then goes on through `follow` as a player's
	 * would; and it may change the table's note (see follow). NULL: the
	 * game's `policy` chooses. */
	int (*timeout_value)(const void *state, const struct play_ctx *c,
	                     const struct game_step *step, struct cmd *more, int *go, int *note);
	/* Milliseconds the awaited node waits before it times out, given the
	 * bot's configured turn timeout base_ms (> 0). NULL: base_ms. */
	int64_t (*wait_ms)(const void *state, const struct play_ctx *c, int64_t base_ms);
	/* Answers an action of member `who` that only looks (a hand, a page of
	 * a menu, a preview): returns 1 after adding private replies for
	 * `user` to out (pictures owned by out), 0 when cmd is a move for
	 * `action`. Nothing is written either way. NULL: every action moves.
	 * It is also asked with who = -1 for one without a seat at a game
	 * under way: 1 then answers them, 0 refuses (not a member). */
	int (*view)(const void *state, const struct play_ctx *c, int who, const struct cmd *cmd,
	            const char *user, struct msg_list *out);
	/* After a value of member who's command applied, with the events
	 * ev[0..n-1] it made: returns 1 with the next value the same command
	 * goes on with (a walk to a destination), 0 when the command is done.
	 * It may rewrite cmd (a waypoint reached) and the table's note (kept
	 * with the game between moves, 0 for none: where an interrupted walk
	 * was going). NULL: one value a command. */
	int (*follow)(const void *state, const struct play_ctx *c, int who, struct cmd *cmd,
	              const struct game_event *ev, int n, int *value, int *note);
	/* Takes `seat` out of the game for good when its player leaves or is
	 * removed: GAME_OK with the events in ev (may be NULL), or an error
	 * with the state unchanged (a seat already out). NULL: the computer
	 * plays a leaving player's seat to the end instead. */
	int (*leave)(void *state, int seat, struct game_events *ev);
	/* The table's picture: on success 0 with *png a malloc'd PNG of *len
	 * bytes that the caller frees, and its text form for terminals in
	 * alt[0..altcap-1] ("" for none); -1 for no picture. NULL: no picture. */
	int (*picture)(const void *state, const struct play_ctx *c, unsigned char **png,
	               size_t *len, char *alt, size_t altcap);
	/* A command of member `who` that sets their own preference at this
	 * table, no engine value (CTHULHU!!!: pass reaction windows, be asked
	 * for every weapon): returns 1 with *prefs (the member's prefs)
	 * changed and the confirmation written to reply, -1 with a refusal
	 * written to reply (*prefs unchanged), 0 when cmd is not one. NULL:
	 * no preferences. */
	int (*prefer)(const struct play_ctx *c, int who, const struct cmd *cmd, int *prefs,
	              struct text *reply);
	/* 1 when the game, over, stopped without an ending (a round cap): it
	 * is then kept as aborted, with no winner, and records leave it out.
	 * NULL: every game that is over has ended. */
	int (*unfinished)(const void *state);
	/* The seats that won a game that is over, as a bit mask (several when
	 * a win is shared; 0 when nobody won). NULL: only game_result.winner. */
	unsigned (*winners)(const void *state);
	/* 1 when the awaited node is a player's own decision, for which the
	 * table calls that player (a mention, a reminder); 0 for one the table
	 * asks of anyone in passing (CTHULHU!!!: a reaction window). NULL:
	 * every awaited node calls its player. */
	int (*calls)(const void *state, const struct play_ctx *c, const struct game_step *step);
	/* Optional: tells events ev[0..n-1] of one or more applies in a row,
	 * which led to `state`, folded into few lines (CTHULHU!!!: ctfold.h).
	 * When set, the bot gathers the events of a command's applies and
	 * tells them through fold when it flushes its narration or tells
	 * another line, and narrate is not used. NULL: narrate each apply. */
	void (*fold)(const void *state, const struct game_event *ev, int n,
	             const struct play_ctx *c, struct text *out);
	/* Optional: for option `option` of action `action` (its names in
	 * English), marked "@complete", the values `typed` (may be "") may
	 * become: writes up to max to out and returns their number (0 for an
	 * option it does not complete). NULL: none. */
	int (*complete)(const char *action, const char *option, const char *typed,
	                struct play_choice *out, int max);
	/* Milliseconds without a move after which a game whose turn timeouts
	 * are off is closed without a result (CTHULHU!!! C17: 48 h); 0 never. */
	int64_t idle_ms;
};

/* The games the bot offers; the first is the default of /open. */
extern const struct play_game *const play_games[];

/* Finds a game by its engine name; NULL when unknown. */
const struct play_game *play_find(const char *name);

/* The actions of every game, in registry order, each name once: the i-th
 * (NULL past the end), and the index of a name (-1 when no game has it). */
const struct play_action *play_action_at(int i);
int play_action_index(const char *name);

/* Sets `state` to stored game `row` (nm members) as it began: the game's
 * setup with the stored first player, then its engine's init. Returns
 * GAME_OK, or the engine's error (state undefined then). The log's events
 * then go through play_log_apply. */
int play_log_init(const struct play_game *game, const struct store_game *row, int nm, void *state);

/* Applies one event of a stored log to `state`: a "roll" or "choice"
 * value through the engine, a "leave" of a seat (value >= 0) through
 * game->leave. Returns 1 when it applied (events to ev, which may be
 * NULL), 0 when the event is not a move (nothing changed), -1 when it does
 * not apply (the state unchanged). */
int play_log_apply(const struct play_game *game, void *state, const struct store_event *e,
                   struct game_events *ev);

/* The code `game` gives the action of cmd, or -1 when it has no such
 * action (or cmd is not an action). */
int play_action_code(const struct play_game *game, const struct cmd *cmd);

extern const struct play_game cdplay;
extern const struct play_game esplay;
extern const struct play_game ctplay;

#endif
