/* bot_int: what the files of the bot (include/rlyeh/bot.h) share: its
 * limits, its state (struct bot, the tables it keeps, the work of one
 * command) and the functions one of its files calls in another. Private to
 * src/bot: bot_table.c keeps the tables between commands, bot_work.c does
 * the work of one command (events, narration, the save and the commit),
 * bot_cmd.c runs the commands, bot_timeout.c the timeouts and the computer
 * moves' later passes, and bot.c starts the bot and holds its batches and
 * shards. */
#ifndef RLYEH_BOT_INT_H
#define RLYEH_BOT_INT_H

#include "rlyeh/bot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/i18n.h"
#include "rlyeh/play.h"
#include "rlyeh/playlog.h"
#include "rlyeh/records.h"
#include "rlyeh/rng.h"
#include "rlyeh/text.h"

#define LOCAL_NAME_MAX 32
#define PASS_GAP_MS    1000 /* from a command to the first later pass of its computer moves */
#define BATCH_MAX      256  /* tables one batch may change */

struct table {
	struct store_game row;
	struct store_member m[STORE_MEMBERS_MAX];
	int nm;
	const struct play_game *game;
	_Alignas(max_align_t) unsigned char state[PLAY_STATE_MAX];
	int64_t seq;     /* last event written */
	int64_t last_at; /* when it was written */
	int64_t remind;  /* when the awaited player is reminded, 0 for never; not stored */
	int pending;     /* computer moves are left for bot_tick (cfg.moves_per_pass); not stored */
};

#define WORK_FOLD_EVENTS 512       /* events gathered for a game's fold, at most */
#define WORK_FOLD_TEXT   (1 << 15) /* bytes of their folded text, at most */

/* The pending writes of one command, made on a copy of the table. */
struct work {
	struct bot *b;
	struct table t;
	int created;            /* the game row is new */
	struct store_game row0; /* the row as loaded */
	int nm0;                /* the members as loaded, to write them only when changed */
	struct store_member m0[STORE_MEMBERS_MAX];
	int64_t now;
	struct store_event *ev;
	int nev, capev;
	struct msg_list out; /* replies, released only after the commit */
	struct text narr;
	char narr_buf[MSG_TEXT_MAX];
	/* events applied and not yet told, for a game that folds them
	 * (play.h: fold) */
	struct game_event fold[WORK_FOLD_EVENTS];
	int nfold;
	int oom;
	int holding; /* a later pass of computer moves (play_pending): its narration is held */
};

/* A table as the bot keeps it between commands, found by a hash of
 * (server, channel): the game row's numbers, and one allocation holding
 * the rest packed. The blob holds the row's server, channel, game, lang and
 * owner, each NUL-terminated (slen bytes); per member its player, name and
 * policy, each NUL-terminated, then strikes, autopilot, place, cthulhu
 * and prefs as five int32_t (mlen bytes in all); then, while the game is under way,
 * game->ops->state_size bytes. */
struct slot {
	struct slot *next; /* in its hash bucket */
	const struct play_game *game;
	int64_t id, seq, last_at, created_at, started_at, finished_at, deadline, series_of;
	int64_t remind; /* struct table's */
	int pending;    /* struct table's */
	char *held;     /* the narration of the passes since the command that left
	                   computer moves pending, told with the table (NUL-ended) */
	uint64_t seed, rng[4];
	int per_player, state, first, moves, winner, note, revision, nm;
	uint32_t slen, mlen;
	int has_state;
	unsigned char *blob;
};

/* A table as it was before the open batch changed it, to put back when
 * the batch's commit fails. */
struct undo {
	int existed;      /* 0: the batch created the channel's slot */
	struct slot copy; /* existed: the slot's fields, m and state owned here */
};

struct bot {
	struct store *st;
	struct bot_config cfg;
	char lang[8];
	struct slot **buckets; /* open tables, and the last finished one per channel */
	size_t nbuckets;       /* a power of two */
	size_t nslots;
	struct table view; /* the expanded table find_table returns */
	int64_t earliest;  /* cached earliest deadline; -1 when unknown */
	int64_t games_made;
	long store_errors;
	int batch; /* inside bot_batch_begin / bot_batch_end */
	int nundo;
	struct undo undo[BATCH_MAX];
	int64_t *epochs; /* cfg.shards > 0: each shard's epoch here; 0 not held */
	long fenced_out;
};

/* ---- bot_table.c ---- */

/* The server of slot s, in its blob (owned by s). */
const char *bot_table_slot_server(const struct slot *s);

/* The channel of slot s, in its blob (owned by s). */
const char *bot_table_slot_channel(const struct slot *s);

/* The slot of (server, channel), or NULL when the bot keeps none. */
struct slot *bot_table_find_slot(const struct bot *b, const char *server, const char *channel);

/* Copies a kept table into its full working form. */
void bot_table_expand(const struct slot *s, struct table *t);

/* The channel's table, expanded into the bot's view (valid until the next
 * call), or NULL. */
struct table *bot_table_find(struct bot *b, const char *server, const char *channel);

/* 1 when t is a table in its lobby or playing; 0 for NULL or a finished
 * one. */
int bot_table_is_open(const struct table *t);

/* When a kept table next wants bot_tick (0: never): a game's reminder, when
 * one is due before its deadline, else its deadline; a lobby's expiry; when
 * a finished or aborted table is let go of (cfg: lobby_timeout_ms,
 * finished_keep_ms; 0 never). */
int64_t bot_table_slot_wake(const struct bot *b, const struct slot *s);

/* Notes that a table's deadline changed from `before` to `after`. */
void bot_table_deadline_moved(struct bot *b, int64_t before, int64_t after);

/* Inside a batch, keeps the channel's table as it is now so that a failed
 * commit can put it back (once per channel and batch). Returns 0, or -1
 * when memory is short or the batch is full (nothing kept). */
int bot_table_remember(struct bot *b, const char *server, const char *channel);

/* Puts back, newest first, every table the batch changed, and forgets
 * the batch's copies. */
void bot_table_undo_batch(struct bot *b);

/* Forgets the batch's copies after its commit. */
void bot_table_forget_batch(struct bot *b);

/* Puts a copy of t in the bot, replacing the channel's previous table.
 * Returns 0, or -1 when memory is short (nothing changed). */
int bot_table_keep(struct bot *b, const struct table *t);

/* The index of user's seat at t, or -1 when user holds none. */
int bot_table_member_index(const struct table *t, const char *user);

/* How many of t's seats a person holds. */
int bot_table_humans(const struct table *t);

/* The play context of t (pointing into t) in language lang. */
struct play_ctx bot_table_ctx_of(const struct table *t, int lang);

/* The language of t's row (enum of i18n.h). */
int bot_table_lang(const struct table *t);

/* ---- bot_work.c ---- */

/* Starts w, the work of one command on a copy of t (NULL: a new table) at
 * `now`; bot_work_free releases it. */
void bot_work_init(struct work *w, struct bot *b, const struct table *t, int64_t now);

/* Frees what w holds (its events and its replies not handed out). */
void bot_work_free(struct work *w);

/* Appends an event to the pending log. */
void bot_work_log_event(struct work *w, const char *kind, int actor, int value, const char *detail);

/* Appends a reply to the pending output. */
struct msg *bot_work_reply(struct work *w, int audience, const char *user, int kind);

/* Tells the events gathered for the game's fold (play.h: fold) as lines of
 * the narration; none are left gathered. */
void bot_work_flush_events(struct work *w);

/* Adds one line of narration after the events still to be told. */
void bot_work_narrate_line(struct work *w, const char *line);

/* 1 when the computer plays member's seat (a policy or the autopilot). */
int bot_work_computer_controls(const struct table *t, int member);

/* The member whom the table waits for and may call: a human playing their
 * own seat, whose roll or own decision (play.h: calls) is awaited; -1 for
 * none (a lobby, a game over, a computer seat, a reaction window). */
int bot_work_called_member(const struct table *t);

/* Milliseconds the awaited move of t waits before it times out, for a
 * configured turn timeout base_ms > 0 (play.h: wait_ms). */
int64_t bot_work_move_wait(const struct table *t, int64_t base_ms);

/* Makes table message m call member k of t with the text `id` ({1}: a1). */
void bot_work_set_call(struct msg *m, const struct table *t, int k, int id, const char *a1);

/* Appends the public table message (not while computer moves wait for a
 * later pass: only the narration then); while a human's move is awaited, it
 * calls that player unless they turned calls off (/notify off). */
void bot_work_show_table(struct work *w);

/* Narrates events ev[0..n-1], which led to the table's state: at once, or,
 * for a game that folds them, gathered until the narration is flushed or
 * another line is told. */
void bot_work_tell(struct work *w, const struct game_event *ev, int n);

/* Applies one engine value for member `actor` (-1: nobody), logs and
 * narrates it; the events it made go to evout when not NULL. Returns
 * GAME_OK, or the engine's error with nothing changed. */
int bot_work_apply_ev(struct work *w, int actor, int value, const char *kind,
                      struct game_events *evout);

/* Rolls the awaited die from the game's own stream. */
void bot_work_roll(struct work *w, int actor, const struct game_step *step);

/* Lets a policy choose for the member controlling step->seat. */
void bot_work_choose(struct work *w, int member, const struct game_step *step, const char *policy);

/* Closes w's table without a result (kept aborted, unrated, no deadline)
 * and logs why: an event of `kind` by member `actor` (-1: nobody). */
void bot_work_close_unrated(struct work *w, const char *kind, int actor, const char *detail);

/* Plays computer seats, automatic rolls and the decisions the table
 * settles (play.h: settle) until a human must act or the game ends, or a
 * pass has made its moves (cfg.moves_per_pass); then sets the deadline of
 * the awaited move (with timeouts off, the game's idle limit, if it has one)
 * and when its player is reminded. */
void bot_work_advance(struct work *w);

/* Goes on with member who's command `more` after its value made the
 * events *ev, while the game's follow hook says it goes on (a walk, step
 * by step, each step a move of its own in the log); the automatic part
 * after each step (a fight) belongs to it. */
void bot_work_go_on(struct work *w, int who, struct cmd *more, struct game_events *ev);

/* Writes the pending work in one transaction. Returns 0, or -1 (rolled
 * back, nothing written). */
int bot_work_save(struct work *w);

/* The private reply of a refused command. */
void bot_work_refuse(struct msg_list *out, const struct bot_req *req, int lang, int id,
                     const char *a1, const char *a2);

/* Writes w and keeps its table; then appends its messages to out (after
 * what the table held, when its stretch of computer moves is over), or, in
 * a later pass while computer moves are still pending, holds its narration
 * in the table's slot. On failure, a refusal for req (when given) and
 * nothing kept. */
void bot_work_commit(struct work *w, const struct bot_req *req, int lang, struct msg_list *out);

/* ---- bot_cmd.c ---- */

/* The language to answer `req` in privately: the player's choice, else the
 * platform's locale, else the table's, else the default. */
int bot_cmd_user_lang(struct bot *b, const struct bot_req *req, const struct table *t);

/* Narrates a line in the table's language with up to two arguments. */
void bot_cmd_say(struct work *w, int id, const char *a1, const char *a2);

/* ---- bot.c ---- */

/* Keeps the channel's last game as its table when it is finished (the
 * newest game of the channel, found in the store). Returns 1 when kept, 0
 * when there is none, -1 on a store error or when it does not replay (logged
 * in the store's error message; nothing kept). */
int bot_restore_finished(struct bot *b, const char *server, const char *channel);

#endif
