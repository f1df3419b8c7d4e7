/* store: games, their members and event logs, players and finished-game
 * records, in SQLite or in PostgreSQL.
 *
 * The database is a file path (SQLite) or a postgresql:// or postgres://
 * URI (PostgreSQL); both keep the same promises below, except where a
 * function says it is SQLite's alone.
 *
 * The schema lives in migrations/NNNN_name.sql (PostgreSQL:
 * migrations/pg/NNNN_name.sql, one for one), compiled into the binary and
 * applied in order at open, each in its own transaction, the version kept in
 * PRAGMA user_version (PostgreSQL: the table schema_version). SQLite runs in
 * WAL mode with foreign keys on; every statement is prepared. All times are
 * milliseconds since the Unix epoch, passed in by the caller (the store never
 * reads the clock).
 *
 * Every function returns 0 on success and -1 on failure; store_errmsg() then
 * says why. A failed write inside store_begin()/store_commit() undoes itself
 * alone and leaves the transaction to the caller, who commits what else it
 * wrote or rolls back (store_rollback).
 *
 * On PostgreSQL a connection the server closed (a restart) is opened again
 * by the next call outside a transaction; a read is asked again at once,
 * a write fails once. Inside a transaction the calls fail until the caller
 * rolls back. */
#ifndef RLYEH_STORE_H
#define RLYEH_STORE_H

#include <stddef.h>
#include <stdint.h>

#define STORE_ID_MAX      64 /* platform ids (server, channel, user), bytes incl. NUL */
#define STORE_NAME_MAX    64 /* display names, bytes incl. NUL (UTF-8, may be cut) */
#define STORE_KIND_MAX    16
#define STORE_DETAIL_MAX  128
#define STORE_MEMBERS_MAX 12

struct store;

enum store_state {
	STORE_LOBBY = 0,
	STORE_PLAYING = 1,
	STORE_FINISHED = 2,
	STORE_ABORTED = 3,
};

struct store_game {
	int64_t id;                /* set by store_game_create */
	char server[STORE_ID_MAX]; /* "local" for the terminal */
	char channel[STORE_ID_MAX];
	char game[STORE_KIND_MAX]; /* "cthulhu-dice" */
	int per_player;            /* Rival Cults: cultists per player; 0 classic */
	char lang[8];              /* language of the table's public messages */
	char owner[STORE_ID_MAX];  /* player id of whoever opened it */
	int state;                 /* enum store_state */
	uint64_t seed;
	uint64_t rng[4];                             /* the dice stream after the last move */
	int first;                                   /* first Caster's seat; -1 before the start */
	int moves;                                   /* engine values applied so far */
	int winner;                                  /* winning seat; -1 for none or Cthulhu */
	int64_t created_at, started_at, finished_at; /* 0 when not yet */
	int64_t deadline;                            /* when the awaited move times out; 0 none */
	int64_t series_of;                           /* the previous game of a series; 0 none */
	int note;     /* the game's own number between moves (play.h: follow); 0 none */
	int revision; /* the revision of its rules the table plays by (play.h:
	                 stamp); 0 for tables opened before rules changed */
};

/* A player at a table, in seat order (classic: member i is seat i; Rival
 * Cults: member k owns seats k, k + 2, k + 4). */
struct store_member {
	char player[STORE_ID_MAX]; /* "" for a computer player */
	char name[STORE_NAME_MAX];
	char policy[STORE_KIND_MAX]; /* computer player's policy; "" for humans */
	int strikes;                 /* timeouts in a row */
	int autopilot;               /* 1 after 3 strikes, until the player acts */
	int place;                   /* after the end: 0 winner, 1 loser; -1 before */
	int cthulhu;                 /* after the end: 1 when Cthulhu won */
	int prefs; /* the player's preferences at this table, the game's bits (ctplay.h); 0 none */
};

/* One entry of a game's event log; seq counts from 1 within the game. */
struct store_event {
	int64_t seq;
	int64_t at;
	char kind[STORE_KIND_MAX]; /* "join", "victim", "roll", "eye", "timeout" … */
	int actor;                 /* member index, or -1 */
	int value;                 /* the engine value applied, or -1 */
	char detail[STORE_DETAIL_MAX];
};

/* A loaded game. Arrays are owned by the store and valid only during the
 * callback that receives them. */
struct store_loaded {
	const struct store_game *game;
	const struct store_member *members;
	int nmembers;
	const struct store_event *events; /* in seq order */
	int nevents;
};

typedef int (*store_game_fn)(void *ctx, const struct store_loaded *g);

/* A finished game for the records, members with their final places. */
struct store_result {
	int64_t game_id;
	int64_t finished_at;
	const char *server;
	int nmembers;
	const struct store_member *members;
	const char *game; /* the game kind */
};

typedef int (*store_result_fn)(void *ctx, const struct store_result *r);

/* 1 when `database` names a PostgreSQL database (a postgresql:// or
 * postgres:// URI) rather than an SQLite file: there is no folder beside it
 * to keep other files in. */
int store_is_postgresql(const char *database);

/* `database` as logs and messages may show it: an SQLite path as it is, a
 * PostgreSQL URI without its password. Into out (cap bytes, truncated). */
void store_describe(const char *database, char *out, size_t cap);

/* The service's state directory: the first of the colon-separated folders
 * systemd names in $STATE_DIRECTORY. Into out: 0; 1 when it is unset or
 * empty, -1 when it does not fit in cap bytes (out untouched in both). */
int store_state_dir(char *out, size_t cap);

/* The folder where files that go with `database` are kept (solved tables,
 * pictures): an SQLite file's own folder; for PostgreSQL, which has none,
 * store_state_dir or else the current directory. Into out; -1 when it does
 * not fit in cap bytes or database is NULL. */
int store_folder(const char *database, char *out, size_t cap);

/* Opens (creating if needed) the database at `path` and applies the pending
 * migrations. A database whose user_version is newer than the binary's
 * newest migration is refused. On failure *out is NULL and err says why. */
int store_open(const char *path, struct store **out, char *err, size_t errlen);

/* As store_open, but applies migrations only up to `version` (tests). */
int store_open_version(const char *path, int version, struct store **out, char *err, size_t errlen);

/* Closes the database; NULL is a no-op. */
void store_close(struct store *st);

/* How a commit survives the machine failing (SQLite; on PostgreSQL that is
 * the server's synchronous_commit, and this returns 0 and does nothing).
 * STORE_DURABLE_FULL, what store_open sets: COMMIT returns once the
 * write-ahead log is synced to the disk (one fsync per commit), so neither a
 * killed process nor a power cut loses a committed write.
 * STORE_DURABLE_NORMAL: COMMIT returns once the write reached the operating
 * system; a killed process loses nothing, a power cut may lose the last
 * commits (the database stays consistent). 0, or -1 (store_errmsg). */
enum store_durability {
	STORE_DURABLE_FULL = 0,
	STORE_DURABLE_NORMAL = 1,
};
int store_set_durability(struct store *st, int durability);

/* Test hook (SQLite): when the environment has RLYEH_TEST_POWERLOSS_UNDO=path
 * at the first store_open of the process, every SQLite connection of the
 * process runs over a VFS that appends to that file, before each write to a
 * database, write-ahead log or journal, the bytes the write replaces, and
 * forgets a file's records when the file is synced (src/store/powervfs.h has
 * the layout). A harness that kills the process and applies the records
 * newest first gets the disk a power cut would have left.
 * RLYEH_TEST_POWERLOSS_SYNC_US (0 to 1000000) makes each sync of those files
 * that much slower, a slow disk. Not for hosts. */

/* Checks the SQLite database at `database` without writing to its file:
 * PRAGMA quick_check (full 0: the pages, records and free list; no index
 * contents) or PRAGMA integrity_check (full 1: also every index against its
 * table). A file that does not exist yet is intact (store_open creates it).
 * Returns 0 intact, 1 damaged (report says the first problems), -1 not
 * checked (report says why: unreadable file, out of memory). On PostgreSQL
 * returns 2 and checks nothing: the server keeps its own pages (amcheck,
 * pg_dump). */
int store_check(const char *database, int full, char *report, size_t cap);

/* The check before a command that writes starts (run, console): PRAGMA
 * integrity_check for a database file up to 64 MiB, quick_check past that
 * (its cost grows with the file: 2.3 s at 400 MB). 0 when the database may be opened (intact, new,
 * or PostgreSQL's); 1 when it is damaged, with msg naming the file, what is wrong and how to put a
 * backup back (rlyeh restore); -1 when it could not be checked (msg says why). The command must
 * refuse to start on 1 or -1. Nothing is written. */
int store_check_start(const char *database, char *msg, size_t cap);

/* The newest schema version this binary knows, and the open database's. */
int store_schema_latest(void);
int store_schema_version(struct store *st);

/* The last error's text (static or owned by st, valid until the next call). */
const char *store_errmsg(struct store *st);

/* Transactions (BEGIN IMMEDIATE / COMMIT / ROLLBACK); not nested. */
int store_begin(struct store *st);
int store_commit(struct store *st);
void store_rollback(struct store *st);

/* 1 while a transaction is open. */
int store_in_transaction(struct store *st);

/* A mark inside an open transaction, so that one caller's writes can be
 * undone without the others' (SAVEPOINT): store_mark sets it, store_mark_keep
 * keeps the writes since and drops the mark, store_mark_undo undoes them and
 * drops the mark (the transaction stays open). Marks do not nest. */
int store_mark(struct store *st);
int store_mark_keep(struct store *st);
void store_mark_undo(struct store *st);

/* SQLite only (PostgreSQL checkpoints on its own: returns 0, does nothing).
 * Moves WAL checkpoints off the calling thread: from now on a thread with
 * its own connection copies the WAL into the database once it holds 1000
 * pages, so a commit does not wait for that copy and its fsyncs. Commits go
 * on meanwhile, so it copies again until a pass finds nothing new; the next
 * commit then starts the WAL over. Should it still fall behind, a commit
 * past 4000 pages finishes the copy itself. The WAL file is cut back to
 * 16 MiB after a reset. Stopped by store_close. Returns 0, or -1 (with the
 * reason; checkpoints then stay in commits). */
int store_checkpoint_background(struct store *st);

/* Checkpoint passes of the background thread that copied pages (0 without
 * one). */
long store_checkpoints_made(struct store *st);

/* Inserts a game (g->id is ignored and then set). Refused while the channel
 * already has a game in the lobby or playing. */
int store_game_create(struct store *st, struct store_game *g);

/* Writes every field of an existing game. */
int store_game_update(struct store *st, const struct store_game *g);

/* As store_game_update, for a move that changed only the dice stream,
 * moves, deadline and note of g (the other fields are not written). */
int store_game_progress(struct store *st, const struct store_game *g);

/* Replaces the members of a game with members[0..n-1]. */
int store_members_put(struct store *st, int64_t game_id, const struct store_member *members, int n);

/* Appends an event; e->seq must be one more than the last (first is 1). */
int store_event_append(struct store *st, int64_t game_id, const struct store_event *e);

/* Calls fn for every game in the lobby or playing, by id. A non-zero return
 * from fn stops the walk and is returned. */
int store_games_open(struct store *st, store_game_fn fn, void *ctx);

/* Calls fn once for game `id` and returns what fn returns; -1 with "no such
 * game" when absent. */
int store_game_load(struct store *st, int64_t id, store_game_fn fn, void *ctx);

/* Calls fn for every finished game of kind `game`, oldest first, on
 * `server` (NULL: every server) finished in [since, until) (0: unbounded).
 * Oldest first is the order the ratings took the games in (store_game_rate),
 * then, for games not rated yet, by finished_at and id. */
int store_results(struct store *st, const char *game, const char *server, int64_t since,
                  int64_t until, store_result_fn fn, void *ctx);

/* ---- ratings kept as games end (migrations/0007_ratings.sql) ---- */

/* A player's rating and record in one game kind, scope and period. */
struct store_rating {
	char player[STORE_ID_MAX];
	char name[STORE_NAME_MAX];
	char name_key[STORE_NAME_MAX]; /* the name as a lookup finds it */
	double mu, sigma;
	double ordinal; /* the ranking key, mu - 3 sigma */
	int games, wins, cthulhu;
};

/* Whose ratings: a game kind, a scope (a server id, or "" for all
 * servers) and a period: span 0 all time, 1 a year, 2 a month, 3 a week,
 * starting at `starts` (ms; 0 for all time). */
struct store_period {
	const char *game;
	const char *scope;
	int span;
	int64_t starts;
};

typedef int (*store_rating_fn)(void *ctx, const struct store_rating *r);

/* With `on`, gives the connection a 256 MiB page cache for a job that
 * writes much (building the ratings); without, the usual 2 MiB. SQLite
 * only: a no-op on PostgreSQL. */
int store_cache_bulk(struct store *st, int on);

/* Frees the pages the connection keeps cached and is not using (they are
 * read again when needed): for a daemon gone quiet. Never fails; SQLite
 * only, a no-op on PostgreSQL. */
void store_release_memory(struct store *st);

/* 1 while the ratings are still to be built from the finished games
 * (after migration 0007), 0 once built; -1 on error. */
int store_ratings_pending(struct store *st);

/* Says that the ratings are built (inside the building transaction). */
int store_ratings_built(struct store *st);

/* Deletes every rating row. */
int store_ratings_clear(struct store *st);

/* Gives every finished game not rated yet its place in the rating order,
 * after the rated ones, by finished_at then id. */
int store_games_rate_all(struct store *st);

/* Gives finished game `id` the next place in the rating order, unless it
 * has one. On PostgreSQL, inside a transaction, it first waits for any
 * other transaction that rated a game, and keeps others waiting until this
 * one ends: the rating rows read and written after it are this caller's
 * alone (several processes on one database). */
int store_game_rate(struct store *st, int64_t id);

/* Calls fn for every finished game of every kind in rating order (rated
 * games only), with only its human members (in seat order). The walk's
 * query is still running meanwhile: fn must not call the store. A non-zero
 * return from fn stops the walk and is returned. */
int store_results_rated(struct store *st, store_result_fn fn, void *ctx);

/* Reads player's row of period p into *out: 1 found, 0 none, -1 error. */
int store_rating_get(struct store *st, const struct store_period *p, const char *player,
                     struct store_rating *out);

/* Writes row r of period p: a new row when old is NULL, else over the
 * row `old` as read (store_rating_get) in this transaction. Also keeps
 * the counts that store_rating_rank adds up. */
int store_rating_put(struct store *st, const struct store_period *p, const struct store_rating *r,
                     const struct store_rating *old);

/* One player's row of one period at a game's end: the key (p and
 * r.player), the row as read before the game (old, when had is 1) and as
 * the game leaves it (r). */
struct store_rating_write {
	struct store_period p;
	struct store_rating r;
	struct store_rating old;
	int had;
};

/* The rows of one game's end at most: 4 spans, 2 scopes, every member. */
#define STORE_RATING_WRITES_MAX (8 * STORE_MEMBERS_MAX)

/* Reads the rows of w[0..n) (n at most STORE_RATING_WRITES_MAX) in one
 * statement: for each w[i], the row of period w[i].p and player
 * w[i].r.player into w[i].old with had 1, or had 0 when it has none. The
 * keys must differ. 0, or -1 with the error set (had and old undefined). */
int store_ratings_read(struct store *st, struct store_rating_write *w, int n);

/* Writes w[0..n) as n store_rating_put calls would (each w[i].r over
 * w[i].old when had, else a new row; the counts that store_rating_rank
 * adds up kept), with a statement for the rows, one for the counts taken
 * off and one for the counts added, plus one for each row whose name
 * changed. The keys must differ. Inside the caller's transaction: 0, or
 * -1 with the error set, some rows written (roll the transaction back). */
int store_ratings_write(struct store *st, const struct store_rating_write *w, int n);

/* Calls fn for the first `limit` rows of p with at least min_games games,
 * best first: ordinal down, then games down, then player id. A non-zero
 * return from fn stops the walk and is returned. */
int store_ratings_top(struct store *st, const struct store_period *p, int min_games, int limit,
                      store_rating_fn fn, void *ctx);

/* Calls fn, in rank order (those with min_games first, as
 * store_ratings_top orders them, then the others by games down and player
 * id), for the rows of p whose player id is `player` or whose name_key is
 * key1 or key2. A non-zero return from fn stops the walk and is returned. */
int store_ratings_named(struct store *st, const struct store_period *p, int min_games,
                        const char *player, const char *key1, const char *key2, store_rating_fn fn,
                        void *ctx);

/* Sets *above to the number of rows of p with at least min_games games
 * that rank above r (as store_ratings_top orders them): with min_games up
 * to 16, from the counts of the buckets above r's and the rows of its own. */
int store_rating_rank(struct store *st, const struct store_period *p, int min_games,
                      const struct store_rating *r, int *above);

/* Sets *n to the number of rows of p with fewer than min_games games. */
int store_ratings_unranked(struct store *st, const struct store_period *p, int min_games, int *n);

/* Records a player's display name and language ("" keeps the stored one)
 * at time `now`. */
int store_player_put(struct store *st, const char *id, const char *name, const char *lang,
                     int64_t now);

/* Reads a player's name and language; -1 when unknown. Either out may be NULL. */
int store_player_get(struct store *st, const char *id, char name[STORE_NAME_MAX], char lang[8]);

/* Records whether a player wants to be called when a table waits for
 * their move (on: 1, off: 0), with their display name, at time `now`.
 * Returns 0, or -1 with nothing written. */
int store_player_notify_put(struct store *st, const char *id, const char *name, int on,
                            int64_t now);

/* 1 when the player wants to be called: also when the player is unknown
 * (the default is on) or the read fails; 0 after /notify off. */
int store_player_notify(struct store *st, const char *id);

/* Reads a setting into value[0..cap-1]; -1 when unknown. */
int store_setting_get(struct store *st, const char *key, char *value, size_t cap);

/* Writes a setting (key up to 63 bytes, value up to 1023). */
int store_setting_put(struct store *st, const char *key, const char *value);

/* Copies the write-ahead log into the database and truncates it (SQLite;
 * a no-op on PostgreSQL). */
int store_checkpoint(struct store *st);

/* Copies the database at `src` into a new file `dest` (refused when dest
 * exists) with SQLite's online backup, consistent even while another
 * process writes to src; then checks the copy's integrity. 0, or -1 with
 * the reason in err (a partial dest is removed). SQLite files only: a
 * PostgreSQL URI is refused with a pointer to pg_dump. */
int store_backup_file(const char *src, const char *dest, char *err, size_t errlen);

/* Replaces the database at `dest` with the backup at `src` after checking
 * that src is an intact rlyeh database no newer than this binary and that
 * nobody is using dest (it is refused while the daemon runs). 0, or -1 with
 * the reason in err (dest is then unchanged). SQLite files only: a
 * PostgreSQL URI is refused with a pointer to pg_restore. */
int store_restore_file(const char *src, const char *dest, char *err, size_t errlen);

/* Copies the SQLite database `from` (an existing file, first brought to
 * this binary's schema as any open would) into the PostgreSQL database
 * `to` (a URI), which must be empty (new, or holding only the schema):
 * every table, in one transaction, then checks that each has as many rows
 * as its source. 0, or -1 with the reason in err (`to` then holds at most
 * the schema). */
int store_migrate(const char *from, const char *to, char *err, size_t errlen);

/* The highest game id ever given (0 for none): the next game's id is
 * normally one more. Inside a transaction on PostgreSQL it is locked until
 * the transaction ends, so that the next id is this caller's even with
 * other processes creating games. */
int64_t store_games_made(struct store *st);

/* Sets *id to the channel's newest finished game of kind `game`, or to 0
 * when it has none or a later game of any kind (aborted, open) follows it.
 * Returns 0, or -1 (*id 0) on a store error. */
int store_channel_finished(struct store *st, const char *game, const char *server,
                           const char *channel, int64_t *id);

/* ---- shards: who owns each, and its gateway session (migrations/0008) ----
 *
 * Several processes may share one PostgreSQL database, each running some of
 * the bot's gateway shards. A shard (shard of count) is owned by the process
 * whose connection holds PostgreSQL's session-level advisory lock for it
 * (store_shard_lock): the lock ends with the connection, so a killed
 * process loses its shards as soon as the server sees its connection close
 * (TCP keepalives bound a network loss: idle 5 s, then 3 probes 2 s apart).
 * The owner then takes the shard's next epoch (store_shard_claim), and
 * every game write of that shard checks, inside its transaction, that the
 * epoch is still its own (store_shard_fence): the check locks the shard's
 * row until the transaction ends, so the next owner's claim waits for a
 * write already checked, and a write after that claim is refused.
 *
 * On SQLite one process owns everything: the lock is always had. */

#define STORE_SESSION_MAX 128 /* a gateway session id, bytes incl. NUL */
#define STORE_URL_MAX     256 /* a resume_gateway_url, bytes incl. NUL */

/* A shard's gateway session as last saved; "" and 0 when none. */
struct store_shard_session {
	char session_id[STORE_SESSION_MAX];
	int64_t seq;
	char resume_url[STORE_URL_MAX];
	int64_t saved_at;
};

/* Tries to take the advisory lock of shard `shard` of `count` on this
 * connection, without waiting: 1 taken (or already held here), 0 held by
 * another connection, -1 error. A connection lost and opened again has
 * lost its locks: see store_shard_locked. SQLite: always 1. */
int store_shard_lock(struct store *st, int count, int shard);

/* 1 when this very connection holds the lock of the shard, 0 when not (also
 * when the connection was lost: it is not opened again for this), -1 on an
 * error. Meant to be asked regularly by an owner. SQLite: always 1. */
int store_shard_locked(struct store *st, int count, int shard);

/* How many shard locks of a count other than `count` other connections
 * hold: while the processes of an old shard count still run (resharding),
 * those of the new count wait to serve. -1 on error. SQLite: 0. */
int store_shard_others(struct store *st, int count);

/* Gives the lock of the shard back (held or not: 0). SQLite: 0. */
int store_shard_unlock(struct store *st, int count, int shard);

/* Records that `owner` (at most 63 bytes) took the shard at `now` and sets
 * *epoch to the shard's new epoch (one more than the last; 1 the first
 * time). Call it only while holding the lock, outside a transaction; it
 * waits for the game writes already fenced by the previous owner. */
int store_shard_claim(struct store *st, int count, int shard, const char *owner, int64_t now,
                      int64_t *epoch);

/* Inside a transaction: 1 when the shard's epoch is still `epoch` (and then
 * the shard's row stays locked until the transaction ends), 0 when another
 * process has claimed it since (the caller rolls back and drops the
 * shard), -1 on error. `epoch` 0 means unfenced (one process): 1. */
int store_shard_fence(struct store *st, int count, int shard, int64_t epoch);

/* Saves the shard's gateway session (session_id up to 127 bytes, resume_url
 * up to 255; others refused). Writes nothing unless the epoch is still
 * `epoch` (0: unfenced); returns 0 written, 1 not written (another owner),
 * -1 error. */
int store_shard_session_put(struct store *st, int count, int shard, int64_t epoch,
                            const struct store_shard_session *s);

/* Reads the shard's gateway session into *out: 1 found (a session_id
 * saved), 0 none (out emptied), -1 error. */
int store_shard_session_get(struct store *st, int count, int shard,
                            struct store_shard_session *out);

/* Records that interaction `id` (1 to 63 bytes) is taken up here at `now`:
 * 1 when it was new, 0 when some process had already recorded it (it must
 * not be answered again), -1 on error. Inside the transaction of the
 * command's writes, it is undone with them. */
int store_interaction_mark(struct store *st, const char *id, int64_t now);

/* Forgets the interactions recorded before `before` (ms). */
int store_interactions_forget(struct store *st, int64_t before);

/* The shard a server belongs to: (id >> 22) % count for a numeric id
 * (Discord's snowflakes); 0 for anything else or count < 2. */
int store_shard_of(const char *server, int count);

/* Fault injection for tests: after `writes` more successful write
 * statements (INSERT, UPDATE, DELETE, COMMIT), every write fails (as a full disk would) until
 * called again with -1. The same on both backends. */
void store_fail_after(struct store *st, int writes);

#endif
