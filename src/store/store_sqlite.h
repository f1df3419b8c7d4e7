/* store_sqlite: the SQLite backend of the store (include/rlyeh/store.h),
 * for a database given as a file path. Each store_sqlite_X(st, ...) keeps
 * the contract of store_X; store.c dispatches to it. */
#ifndef RLYEH_STORE_SQLITE_H
#define RLYEH_STORE_SQLITE_H

#include <stddef.h>
#include <stdint.h>

#include "rlyeh/store.h"

struct store_sqlite;

/* Opens the database as store_open_version promises; on failure *out is
 * NULL and err says why. */
int store_sqlite_open_version(const char *path, int version, struct store_sqlite **out, char *err,
                              size_t errlen);

/* Closes st; NULL is a no-op. */
void store_sqlite_close(struct store_sqlite *st);

/* store_set_durability and store_check for SQLite. */
int store_sqlite_set_durability(struct store_sqlite *st, int durability);
int store_sqlite_check(const char *path, int full, char *report, size_t cap);

/* The last error's text, owned by st. */
const char *store_sqlite_errmsg(struct store_sqlite *st);

/* store_backup_file and store_restore_file for SQLite files. */
int store_sqlite_backup_file(const char *src, const char *dest, char *err, size_t errlen);
int store_sqlite_restore_file(const char *src, const char *dest, char *err, size_t errlen);

int store_sqlite_schema_version(struct store_sqlite *st);
int store_sqlite_begin(struct store_sqlite *st);
int store_sqlite_commit(struct store_sqlite *st);
void store_sqlite_rollback(struct store_sqlite *st);
int store_sqlite_in_transaction(struct store_sqlite *st);
int store_sqlite_mark(struct store_sqlite *st);
int store_sqlite_mark_keep(struct store_sqlite *st);
void store_sqlite_mark_undo(struct store_sqlite *st);
int store_sqlite_checkpoint_background(struct store_sqlite *st);
long store_sqlite_checkpoints_made(struct store_sqlite *st);
int store_sqlite_game_create(struct store_sqlite *st, struct store_game *g);
int store_sqlite_game_update(struct store_sqlite *st, const struct store_game *g);
int store_sqlite_game_progress(struct store_sqlite *st, const struct store_game *g);
int store_sqlite_members_put(struct store_sqlite *st, int64_t game_id,
                             const struct store_member *members, int n);
int store_sqlite_event_append(struct store_sqlite *st, int64_t game_id,
                              const struct store_event *e);
int store_sqlite_games_open(struct store_sqlite *st, store_game_fn fn, void *ctx);
int store_sqlite_game_load(struct store_sqlite *st, int64_t id, store_game_fn fn, void *ctx);
int store_sqlite_results(struct store_sqlite *st, const char *game, const char *server,
                         int64_t since, int64_t until, store_result_fn fn, void *ctx);
int store_sqlite_cache_bulk(struct store_sqlite *st, int on);
int store_sqlite_ratings_pending(struct store_sqlite *st);
int store_sqlite_ratings_built(struct store_sqlite *st);
int store_sqlite_ratings_clear(struct store_sqlite *st);
int store_sqlite_games_rate_all(struct store_sqlite *st);
int store_sqlite_game_rate(struct store_sqlite *st, int64_t id);
int store_sqlite_results_rated(struct store_sqlite *st, store_result_fn fn, void *ctx);
int store_sqlite_rating_get(struct store_sqlite *st, const struct store_period *p,
                            const char *player, struct store_rating *out);
int store_sqlite_rating_put(struct store_sqlite *st, const struct store_period *p,
                            const struct store_rating *r, const struct store_rating *old);
int store_sqlite_ratings_read(struct store_sqlite *st, struct store_rating_write *w, int n);
int store_sqlite_ratings_write(struct store_sqlite *st, const struct store_rating_write *w, int n);
int store_sqlite_ratings_top(struct store_sqlite *st, const struct store_period *p, int min_games,
                             int limit, store_rating_fn fn, void *ctx);
int store_sqlite_ratings_named(struct store_sqlite *st, const struct store_period *p, int min_games,
                               const char *player, const char *key1, const char *key2,
                               store_rating_fn fn, void *ctx);
int store_sqlite_rating_rank(struct store_sqlite *st, const struct store_period *p, int min_games,
                             const struct store_rating *r, int *above);
int store_sqlite_ratings_unranked(struct store_sqlite *st, const struct store_period *p,
                                  int min_games, int *n);
int store_sqlite_player_put(struct store_sqlite *st, const char *id, const char *name,
                            const char *lang, int64_t now);
int store_sqlite_player_get(struct store_sqlite *st, const char *id, char name[STORE_NAME_MAX],
                            char lang[8]);
int store_sqlite_player_notify_put(struct store_sqlite *st, const char *id, const char *name,
                                   int on, int64_t now);
int store_sqlite_player_notify(struct store_sqlite *st, const char *id);
int store_sqlite_setting_get(struct store_sqlite *st, const char *key, char *value, size_t cap);
int store_sqlite_setting_put(struct store_sqlite *st, const char *key, const char *value);
int store_sqlite_interaction_mark(struct store_sqlite *st, const char *id, int64_t now);
int store_sqlite_interactions_forget(struct store_sqlite *st, int64_t before);
int store_sqlite_shard_claim(struct store_sqlite *st, int count, int shard, const char *owner,
                             int64_t now, int64_t *epoch);
int store_sqlite_shard_fence(struct store_sqlite *st, int count, int shard, int64_t epoch);
int store_sqlite_shard_session_put(struct store_sqlite *st, int count, int shard, int64_t epoch,
                                   const struct store_shard_session *ss);
int store_sqlite_shard_session_get(struct store_sqlite *st, int count, int shard,
                                   struct store_shard_session *out);
int store_sqlite_checkpoint(struct store_sqlite *st);
void store_sqlite_release_memory(struct store_sqlite *st);
int64_t store_sqlite_games_made(struct store_sqlite *st);
int store_sqlite_channel_finished(struct store_sqlite *st, const char *game, const char *server,
                                  const char *channel, int64_t *id);
void store_sqlite_fail_after(struct store_sqlite *st, int writes);

#endif
