/* store_pg: the PostgreSQL backend of the store (include/rlyeh/store.h),
 * for a database given as a postgresql:// or postgres:// URI. Each
 * store_pg_X(st, ...) keeps the contract of store_X; store.c dispatches to
 * it. What only SQLite has (WAL checkpoints, file backups, the page cache)
 * is a no-op here, as each declaration below says. */
#ifndef RLYEH_STORE_PG_H
#define RLYEH_STORE_PG_H

#include <stddef.h>
#include <stdint.h>

#include "rlyeh/store.h"

struct store_pg;

/* Opens the database as store_open_version promises; on failure *out is
 * NULL and err says why. */
int store_pg_open_version(const char *uri, int version, struct store_pg **out, char *err,
                          size_t errlen);

/* Closes st; NULL is a no-op. */
void store_pg_close(struct store_pg *st);

/* The last error's text, owned by st. */
const char *store_pg_errmsg(struct store_pg *st);

/* 1 when `database` names a PostgreSQL database (a postgresql:// or
 * postgres:// URI), 0 for a file path. */
int store_pg_is_uri(const char *database);

/* The URI `database` without its password (libpq's parse of it), for logs:
 * "postgresql://USER@HOST:PORT/DBNAME" into out (cap bytes, truncated).
 * A URI libpq cannot parse gives "postgresql://(unparsable URI)". */
void store_pg_describe(const char *database, char *out, size_t cap);

/* store_migrate's copy: every row of the SQLite database at `from` (at
 * the newest schema) into the empty PostgreSQL database `to` (migrated to
 * the newest schema here) in one transaction, then the row counts of every
 * table compared. 0, or -1 with the reason in err and nothing left in `to`
 * but the schema. */
int store_pg_copy_from_sqlite(const char *from, const char *to, char *err, size_t errlen);

int store_pg_schema_version(struct store_pg *st);
int store_pg_begin(struct store_pg *st);
int store_pg_commit(struct store_pg *st);
void store_pg_rollback(struct store_pg *st);
int store_pg_in_transaction(struct store_pg *st);
int store_pg_mark(struct store_pg *st);
int store_pg_mark_keep(struct store_pg *st);
void store_pg_mark_undo(struct store_pg *st);
int store_pg_checkpoint_background(struct store_pg *st);
long store_pg_checkpoints_made(struct store_pg *st);
int store_pg_game_create(struct store_pg *st, struct store_game *g);
int store_pg_game_update(struct store_pg *st, const struct store_game *g);
int store_pg_game_progress(struct store_pg *st, const struct store_game *g);
int store_pg_members_put(struct store_pg *st, int64_t game_id, const struct store_member *members,
                         int n);
int store_pg_event_append(struct store_pg *st, int64_t game_id, const struct store_event *e);
int store_pg_games_open(struct store_pg *st, store_game_fn fn, void *ctx);
int store_pg_game_load(struct store_pg *st, int64_t id, store_game_fn fn, void *ctx);
int store_pg_results(struct store_pg *st, const char *game, const char *server, int64_t since,
                     int64_t until, store_result_fn fn, void *ctx);
int store_pg_cache_bulk(struct store_pg *st, int on);
int store_pg_ratings_pending(struct store_pg *st);
int store_pg_ratings_built(struct store_pg *st);
int store_pg_ratings_clear(struct store_pg *st);
int store_pg_games_rate_all(struct store_pg *st);
int store_pg_game_rate(struct store_pg *st, int64_t id);
int store_pg_results_rated(struct store_pg *st, store_result_fn fn, void *ctx);
int store_pg_rating_get(struct store_pg *st, const struct store_period *p, const char *player,
                        struct store_rating *out);
int store_pg_rating_put(struct store_pg *st, const struct store_period *p,
                        const struct store_rating *r, const struct store_rating *old);
int store_pg_ratings_read(struct store_pg *st, struct store_rating_write *w, int n);
int store_pg_ratings_write(struct store_pg *st, const struct store_rating_write *w, int n);
int store_pg_ratings_top(struct store_pg *st, const struct store_period *p, int min_games,
                         int limit, store_rating_fn fn, void *ctx);
int store_pg_ratings_named(struct store_pg *st, const struct store_period *p, int min_games,
                           const char *player, const char *key1, const char *key2,
                           store_rating_fn fn, void *ctx);
int store_pg_rating_rank(struct store_pg *st, const struct store_period *p, int min_games,
                         const struct store_rating *r, int *above);
int store_pg_ratings_unranked(struct store_pg *st, const struct store_period *p, int min_games,
                              int *n);
int store_pg_player_put(struct store_pg *st, const char *id, const char *name, const char *lang,
                        int64_t now);
int store_pg_player_get(struct store_pg *st, const char *id, char name[STORE_NAME_MAX],
                        char lang[8]);
int store_pg_player_notify_put(struct store_pg *st, const char *id, const char *name, int on,
                               int64_t now);
int store_pg_player_notify(struct store_pg *st, const char *id);
int store_pg_setting_get(struct store_pg *st, const char *key, char *value, size_t cap);
int store_pg_setting_put(struct store_pg *st, const char *key, const char *value);
int store_pg_interaction_mark(struct store_pg *st, const char *id, int64_t now);
int store_pg_interactions_forget(struct store_pg *st, int64_t before);
int store_pg_shard_lock(struct store_pg *st, int count, int shard);
int store_pg_shard_locked(struct store_pg *st, int count, int shard);
int store_pg_shard_others(struct store_pg *st, int count);
int store_pg_shard_unlock(struct store_pg *st, int count, int shard);
int store_pg_shard_claim(struct store_pg *st, int count, int shard, const char *owner, int64_t now,
                         int64_t *epoch);
int store_pg_shard_fence(struct store_pg *st, int count, int shard, int64_t epoch);
int store_pg_shard_session_put(struct store_pg *st, int count, int shard, int64_t epoch,
                               const struct store_shard_session *ss);
int store_pg_shard_session_get(struct store_pg *st, int count, int shard,
                               struct store_shard_session *out);
int store_pg_checkpoint(struct store_pg *st);
int64_t store_pg_games_made(struct store_pg *st);
int store_pg_channel_finished(struct store_pg *st, const char *game, const char *server,
                              const char *channel, int64_t *id);
void store_pg_fail_after(struct store_pg *st, int writes);

#endif
