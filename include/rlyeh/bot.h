/* bot: the platform-neutral bot. It keeps the tables of every channel
 * (lobby -> playing -> finished), decides who may do what, plays the computer
 * seats, times out idle players, stores every move before announcing it, and
 * answers in the neutral message model.
 *
 * The bot never reads the clock or a random source: the current time comes
 * with each call, and the dice of game g come from stream g of cfg.seed. */
#ifndef RLYEH_BOT_H
#define RLYEH_BOT_H

#include <stdint.h>

#include "rlyeh/cmd.h"
#include "rlyeh/msg.h"
#include "rlyeh/store.h"

struct bot;

struct bot_config {
	uint64_t seed;            /* dice seed source */
	int64_t turn_timeout_ms;  /* an awaited human move times out after this (0: never) */
	int strikes;              /* timeouts in a row that put a seat on autopilot (3) */
	int min_games;            /* games needed to be ranked on the leaderboard (3) */
	const char *lang;         /* default language of new tables ("en") */
	int shards;               /* N > 0: only the games of the shards given to the bot
	                             (bot_shard_gain), each write fenced; 0: every game */
	int64_t lobby_timeout_ms; /* a lobby nobody touched for this long is closed (0: never) */
	int64_t finished_keep_ms; /* a finished or aborted table is let go of from memory
	                             this long after its last event (0: kept) */
	int moves_per_pass;       /* computer moves one command or tick makes at most; the
	                             rest wait for the next bot_tick (0: no bound) */
};

/* Sets the defaults: timeout 120 s, 3 strikes, 3 games, English, lobbies
 * closed after 24 h, finished tables kept in memory for 1 h, 64 computer
 * moves per pass. */
void bot_config_default(struct bot_config *cfg);

/* One command from one user in one channel. Strings are borrowed for the call. */
struct bot_req {
	const char *server; /* a guild id, or "local" */
	const char *channel;
	const char *user;   /* stable platform id */
	const char *name;   /* display name */
	const char *locale; /* the user's locale ("nl", "en-US"…) or NULL */
	int moderator;      /* the user may manage this channel */
	struct cmd cmd;
};

/* Creates a bot on an open store (borrowed, must outlive the bot) and
 * resumes every unfinished game in it exactly where its log ends. Returns
 * NULL when memory is short or a stored game cannot be rebuilt (err says
 * which). */
struct bot *bot_new(struct store *st, const struct bot_config *cfg, char *err, size_t errlen);

/* Sharded bots (cfg.shards = N > 0), for several processes on one
 * database (store.h "shards", owner.h): bot_new loads no game; the bot
 * keeps the games of the servers of the shards it was given, where a server
 * is on shard store_shard_of(server, N). Every write checks, in its
 * transaction, that the epoch it was given for the server's shard is still
 * the shard's (store_shard_fence): a command or timeout of a server whose
 * shard is not given here, or was claimed by another process since, is
 * refused as a storage failure and changes nothing.
 *
 * bot_shard_gain loads every unfinished game of shard `shard` from its log
 * (as bot_new does) with the shard's epoch; 0, or -1 (err says why; the
 * shard is then not held). A shard given again is loaded anew. Not inside a
 * batch. */
int bot_shard_gain(struct bot *b, int shard, int64_t epoch, char *err, size_t errlen);

/* Forgets the games of shard `shard` without writing anything (another
 * process owns them now). 0, or -1 inside a batch (nothing dropped). */
int bot_shard_drop(struct bot *b, int shard);

/* Writes refused because the shard was not held or had been claimed by
 * another process. */
long bot_fenced_out(const struct bot *b);

/* Frees the bot; NULL is a no-op. The store stays open. */
void bot_free(struct bot *b);

/* Handles one command at time `now` (ms since the epoch) and appends the
 * replies to out. A refused command changes nothing and answers privately;
 * an accepted one is committed to the store before its replies are made. */
void bot_handle(struct bot *b, const struct bot_req *req, int64_t now, struct msg_list *out);

/* Group commit. Between bot_batch_begin and bot_batch_end, bot_handle and
 * bot_tick write to one transaction, each command under its own mark (a
 * refused or failed command still changes nothing), and bot_batch_end
 * commits it. The caller must hold back every reply made in the batch until
 * bot_batch_end returns 0. On -1 the commit failed: the database and the
 * bot's tables are as they were at bot_batch_begin, and each command's
 * replies must be replaced by bot_batch_refusal's. A batch changes at most
 * 256 tables; past that, commands are refused privately. */
void bot_batch_begin(struct bot *b);
int bot_batch_end(struct bot *b);

/* Appends to out the private refusal of a command whose batch failed. */
void bot_batch_refusal(struct bot *b, const struct bot_req *req, struct msg_list *out);

/* Plays every awaited move whose deadline is at or before `now` for its idle
 * player, plays on the computer moves a table left for a later pass (at most
 * cfg.moves_per_pass per table and call), closes the lobbies untouched for
 * cfg.lobby_timeout_ms, lets go of the finished tables kept for
 * cfg.finished_keep_ms, and appends what the tables are told. */
void bot_tick(struct bot *b, int64_t now, struct msg_list *out);

/* The tables whose computer moves wait for the next bot_tick. */
int bot_pending(const struct bot *b);

/* The earliest pending deadline, or 0 when none. */
int64_t bot_next_deadline(struct bot *b);

/* Changes the turn timeout for moves awaited from now on (0: none). */
void bot_set_turn_timeout(struct bot *b, int64_t ms);

/* 1 when the channel has a game in the lobby or playing. */
int bot_has_game(struct bot *b, const char *server, const char *channel);

/* The engine name of the game of the channel's table in the lobby or
 * playing ("cthulhu-dice", "elder-signs"…), else of the game /open opens
 * by default. Borrowed, static. */
const char *bot_channel_game(const struct bot *b, const char *server, const char *channel);

/* Commands refused because the store failed, since the start. */
long bot_store_errors(const struct bot *b);

/* Number of games in the lobby or playing. */
int bot_open_games(const struct bot *b);

/* Tables kept in memory: the open ones and the finished or aborted ones
 * not let go of yet. */
size_t bot_tables_kept(const struct bot *b);

#endif
