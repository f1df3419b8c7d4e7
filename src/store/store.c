/* store: the one interface of the database (include/rlyeh/store.h) over
 * two backends: SQLite for a file path (store_sqlite.c) and PostgreSQL for
 * a postgresql:// or postgres:// URI (store_pg.c). A struct store holds the
 * one backend it opened; every call goes to it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rlyeh/store.h"
#include "store_int.h"
#include "store_pg.h"
#include "store_sqlite.h"

/* Up to this size the check at start is PRAGMA integrity_check (about
 * 0.3 s for 40 MB, 10,000 games), past it PRAGMA quick_check (2.3 s for
 * 400 MB, 100,000 games, where integrity_check takes 3.2 s):
 * tests/bench/dbcheck.py. */
#define START_FULL_CHECK_BYTES (64LL << 20)

extern const char *const store_migrations[];
extern const char *const store_pg_migrations[];

struct store {
	struct store_sqlite *lite; /* exactly one of the two is set */
	struct store_pg *pg;
};

int store_open_version(const char *path, int version, struct store **out, char *err, size_t errlen)
{
	struct store *st;
	int rc;

	*out = NULL;
	if (!path) {
		if (errlen)
			snprintf(err, errlen, "no database given");
		return -1;
	}
	if (!(st = calloc(1, sizeof(*st)))) {
		if (errlen)
			snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (store_pg_is_uri(path))
		rc = store_pg_open_version(path, version, &st->pg, err, errlen);
	else
		rc = store_sqlite_open_version(path, version, &st->lite, err, errlen);
	if (rc) {
		free(st);
		return -1;
	}
	*out = st;
	return 0;
}

int store_is_postgresql(const char *database)
{
	return store_pg_is_uri(database);
}

void store_describe(const char *database, char *out, size_t cap)
{
	if (store_pg_is_uri(database))
		store_pg_describe(database, out, cap);
	else if (cap)
		snprintf(out, cap, "%s", database ? database : "");
}

int store_state_dir(char *out, size_t cap)
{
	const char *state = getenv("STATE_DIRECTORY");
	size_t n = state ? strcspn(state, ":") : 0;

	if (n == 0)
		return 1;
	if (n >= cap)
		return -1;
	memcpy(out, state, n);
	out[n] = '\0';
	return 0;
}

int store_folder(const char *database, char *out, size_t cap)
{
	const char *slash;
	int n;

	if (!database)
		return -1;
	slash = strrchr(database, '/');
	if (store_pg_is_uri(database)) {
		int rc = store_state_dir(out, cap);
		if (rc <= 0)
			return rc;
		n = snprintf(out, cap, ".");
	} else if (!slash)
		n = snprintf(out, cap, ".");
	else if (slash == database)
		n = snprintf(out, cap, "/");
	else
		n = snprintf(out, cap, "%.*s", (int)(slash - database), database);
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

int store_open(const char *path, struct store **out, char *err, size_t errlen)
{
	return store_open_version(path, store_schema_latest(), out, err, errlen);
}

void store_close(struct store *st)
{
	if (!st)
		return;
	store_pg_close(st->pg);
	store_sqlite_close(st->lite);
	free(st);
}

int store_set_durability(struct store *st, int durability)
{
	return st->pg ? 0 : store_sqlite_set_durability(st->lite, durability);
}

int store_check(const char *database, int full, char *report, size_t cap)
{
	if (!database) {
		if (cap)
			snprintf(report, cap, "no database given");
		return -1;
	}
	if (store_pg_is_uri(database)) {
		if (cap)
			report[0] = '\0';
		return 2;
	}
	return store_sqlite_check(database, full, report, cap);
}

int store_check_start(const char *database, char *msg, size_t cap)
{
	char report[512];
	struct stat sb;
	int full = !store_pg_is_uri(database) && stat(database, &sb) == 0 &&
	           sb.st_size <= START_FULL_CHECK_BYTES;
	int rc = store_check(database, full, report, sizeof(report));

	if (rc == 1)
		snprintf(msg, cap,
		         "the database %s is damaged (%s). Nothing was written to it. Stop "
		         "everything that uses it, keep a copy of the damaged file for "
		         "inspection, then put the latest backup in its place: rlyeh restore "
		         "BACKUP --db %s (rlyeh check-db --db %s checks a database in full)",
		         database, report, database, database);
	else if (rc < 0)
		snprintf(msg, cap, "cannot check the database: %s", report);
	return rc == 1 ? 1 : rc < 0 ? -1 : 0;
}

/* Both backends have one migration per number: the PostgreSQL files
 * (migrations/pg) match the SQLite ones one for one, as test_store checks. */
int store_schema_latest(void)
{
	int n = 0;

	while (store_migrations[n])
		n++;
	return n;
}

const char *store_errmsg(struct store *st)
{
	if (!st)
		return "no store";
	return st->pg ? store_pg_errmsg(st->pg) : store_sqlite_errmsg(st->lite);
}

/* Refuses a file operation on a PostgreSQL URI, pointing to its tools. */
static int pg_refused(const char *what, const char *tool, char *err, size_t errlen)
{
	if (errlen)
		snprintf(err, errlen,
		         "%s works on SQLite files only; for a PostgreSQL database use %s", what,
		         tool);
	return -1;
}

int store_backup_file(const char *src, const char *dest, char *err, size_t errlen)
{
	if (store_pg_is_uri(src) || store_pg_is_uri(dest))
		return pg_refused("backup", "pg_dump (pg_dump -Fc -f FILE URI)", err, errlen);
	return store_sqlite_backup_file(src, dest, err, errlen);
}

int store_migrate(const char *from, const char *to, char *err, size_t errlen)
{
	struct store *st;
	FILE *probe;

	if (store_pg_is_uri(from) || !store_pg_is_uri(to)) {
		if (errlen)
			snprintf(
			    err, errlen,
			    "copies an SQLite file into a PostgreSQL database: FROM is a path, "
			    "TO a postgresql:// URI");
		return -1;
	}
	if (!(probe = fopen(from, "rb"))) {
		if (errlen)
			snprintf(err, errlen, "%s: no such database file", from);
		return -1;
	}
	fclose(probe);
	if (store_open(from, &st, err, errlen))
		return -1;
	store_close(st);
	return store_pg_copy_from_sqlite(from, to, err, errlen);
}

int store_restore_file(const char *src, const char *dest, char *err, size_t errlen)
{
	if (store_pg_is_uri(src) || store_pg_is_uri(dest))
		return pg_refused("restore", "pg_restore (pg_restore -d URI FILE) or psql", err,
		                  errlen);
	return store_sqlite_restore_file(src, dest, err, errlen);
}

int store_schema_version(struct store *st)
{
	return st->pg ? store_pg_schema_version(st->pg) : store_sqlite_schema_version(st->lite);
}

int store_begin(struct store *st)
{
	return st->pg ? store_pg_begin(st->pg) : store_sqlite_begin(st->lite);
}

int store_commit(struct store *st)
{
	return st->pg ? store_pg_commit(st->pg) : store_sqlite_commit(st->lite);
}

void store_rollback(struct store *st)
{
	if (st->pg)
		store_pg_rollback(st->pg);
	else
		store_sqlite_rollback(st->lite);
}

int store_in_transaction(struct store *st)
{
	return st->pg ? store_pg_in_transaction(st->pg) : store_sqlite_in_transaction(st->lite);
}

int store_mark(struct store *st)
{
	return st->pg ? store_pg_mark(st->pg) : store_sqlite_mark(st->lite);
}

int store_mark_keep(struct store *st)
{
	return st->pg ? store_pg_mark_keep(st->pg) : store_sqlite_mark_keep(st->lite);
}

void store_mark_undo(struct store *st)
{
	if (st->pg)
		store_pg_mark_undo(st->pg);
	else
		store_sqlite_mark_undo(st->lite);
}

int store_checkpoint_background(struct store *st)
{
	return st->pg ? store_pg_checkpoint_background(st->pg)
	              : store_sqlite_checkpoint_background(st->lite);
}

long store_checkpoints_made(struct store *st)
{
	return st->pg ? store_pg_checkpoints_made(st->pg) : store_sqlite_checkpoints_made(st->lite);
}

int store_game_create(struct store *st, struct store_game *g)
{
	return st->pg ? store_pg_game_create(st->pg, g) : store_sqlite_game_create(st->lite, g);
}

int store_game_update(struct store *st, const struct store_game *g)
{
	return st->pg ? store_pg_game_update(st->pg, g) : store_sqlite_game_update(st->lite, g);
}

int store_game_progress(struct store *st, const struct store_game *g)
{
	return st->pg ? store_pg_game_progress(st->pg, g) : store_sqlite_game_progress(st->lite, g);
}

int store_members_put(struct store *st, int64_t game_id, const struct store_member *members, int n)
{
	return st->pg ? store_pg_members_put(st->pg, game_id, members, n)
	              : store_sqlite_members_put(st->lite, game_id, members, n);
}

int store_event_append(struct store *st, int64_t game_id, const struct store_event *e)
{
	return st->pg ? store_pg_event_append(st->pg, game_id, e)
	              : store_sqlite_event_append(st->lite, game_id, e);
}

int store_games_open(struct store *st, store_game_fn fn, void *ctx)
{
	return st->pg ? store_pg_games_open(st->pg, fn, ctx)
	              : store_sqlite_games_open(st->lite, fn, ctx);
}

int store_game_load(struct store *st, int64_t id, store_game_fn fn, void *ctx)
{
	return st->pg ? store_pg_game_load(st->pg, id, fn, ctx)
	              : store_sqlite_game_load(st->lite, id, fn, ctx);
}

int store_results(struct store *st, const char *game, const char *server, int64_t since,
                  int64_t until, store_result_fn fn, void *ctx)
{
	return st->pg ? store_pg_results(st->pg, game, server, since, until, fn, ctx)
	              : store_sqlite_results(st->lite, game, server, since, until, fn, ctx);
}

int store_cache_bulk(struct store *st, int on)
{
	return st->pg ? store_pg_cache_bulk(st->pg, on) : store_sqlite_cache_bulk(st->lite, on);
}

void store_release_memory(struct store *st)
{
	if (!st->pg)
		store_sqlite_release_memory(st->lite);
}

int store_ratings_pending(struct store *st)
{
	return st->pg ? store_pg_ratings_pending(st->pg) : store_sqlite_ratings_pending(st->lite);
}

int store_ratings_built(struct store *st)
{
	return st->pg ? store_pg_ratings_built(st->pg) : store_sqlite_ratings_built(st->lite);
}

int store_ratings_clear(struct store *st)
{
	return st->pg ? store_pg_ratings_clear(st->pg) : store_sqlite_ratings_clear(st->lite);
}

int store_games_rate_all(struct store *st)
{
	return st->pg ? store_pg_games_rate_all(st->pg) : store_sqlite_games_rate_all(st->lite);
}

int store_game_rate(struct store *st, int64_t id)
{
	return st->pg ? store_pg_game_rate(st->pg, id) : store_sqlite_game_rate(st->lite, id);
}

int store_results_rated(struct store *st, store_result_fn fn, void *ctx)
{
	return st->pg ? store_pg_results_rated(st->pg, fn, ctx)
	              : store_sqlite_results_rated(st->lite, fn, ctx);
}

int store_rating_get(struct store *st, const struct store_period *p, const char *player,
                     struct store_rating *out)
{
	return st->pg ? store_pg_rating_get(st->pg, p, player, out)
	              : store_sqlite_rating_get(st->lite, p, player, out);
}

int store_rating_put(struct store *st, const struct store_period *p, const struct store_rating *r,
                     const struct store_rating *old)
{
	return st->pg ? store_pg_rating_put(st->pg, p, r, old)
	              : store_sqlite_rating_put(st->lite, p, r, old);
}

int store_ratings_read(struct store *st, struct store_rating_write *w, int n)
{
	return st->pg ? store_pg_ratings_read(st->pg, w, n)
	              : store_sqlite_ratings_read(st->lite, w, n);
}

int store_ratings_write(struct store *st, const struct store_rating_write *w, int n)
{
	return st->pg ? store_pg_ratings_write(st->pg, w, n)
	              : store_sqlite_ratings_write(st->lite, w, n);
}

int store_ratings_top(struct store *st, const struct store_period *p, int min_games, int limit,
                      store_rating_fn fn, void *ctx)
{
	return st->pg ? store_pg_ratings_top(st->pg, p, min_games, limit, fn, ctx)
	              : store_sqlite_ratings_top(st->lite, p, min_games, limit, fn, ctx);
}

int store_ratings_named(struct store *st, const struct store_period *p, int min_games,
                        const char *player, const char *key1, const char *key2, store_rating_fn fn,
                        void *ctx)
{
	return st->pg ? store_pg_ratings_named(st->pg, p, min_games, player, key1, key2, fn, ctx)
	              : store_sqlite_ratings_named(st->lite, p, min_games, player, key1, key2, fn,
	                                           ctx);
}

int store_rating_rank(struct store *st, const struct store_period *p, int min_games,
                      const struct store_rating *r, int *above)
{
	return st->pg ? store_pg_rating_rank(st->pg, p, min_games, r, above)
	              : store_sqlite_rating_rank(st->lite, p, min_games, r, above);
}

int store_ratings_unranked(struct store *st, const struct store_period *p, int min_games, int *n)
{
	return st->pg ? store_pg_ratings_unranked(st->pg, p, min_games, n)
	              : store_sqlite_ratings_unranked(st->lite, p, min_games, n);
}

int store_player_put(struct store *st, const char *id, const char *name, const char *lang,
                     int64_t now)
{
	return st->pg ? store_pg_player_put(st->pg, id, name, lang, now)
	              : store_sqlite_player_put(st->lite, id, name, lang, now);
}

int store_player_get(struct store *st, const char *id, char name[STORE_NAME_MAX], char lang[8])
{
	return st->pg ? store_pg_player_get(st->pg, id, name, lang)
	              : store_sqlite_player_get(st->lite, id, name, lang);
}

int store_player_notify_put(struct store *st, const char *id, const char *name, int on, int64_t now)
{
	return st->pg ? store_pg_player_notify_put(st->pg, id, name, on, now)
	              : store_sqlite_player_notify_put(st->lite, id, name, on, now);
}

int store_player_notify(struct store *st, const char *id)
{
	return st->pg ? store_pg_player_notify(st->pg, id)
	              : store_sqlite_player_notify(st->lite, id);
}

int store_setting_get(struct store *st, const char *key, char *value, size_t cap)
{
	return st->pg ? store_pg_setting_get(st->pg, key, value, cap)
	              : store_sqlite_setting_get(st->lite, key, value, cap);
}

int store_setting_put(struct store *st, const char *key, const char *value)
{
	return st->pg ? store_pg_setting_put(st->pg, key, value)
	              : store_sqlite_setting_put(st->lite, key, value);
}

int store_checkpoint(struct store *st)
{
	return st->pg ? store_pg_checkpoint(st->pg) : store_sqlite_checkpoint(st->lite);
}

int64_t store_games_made(struct store *st)
{
	return st->pg ? store_pg_games_made(st->pg) : store_sqlite_games_made(st->lite);
}

int store_channel_finished(struct store *st, const char *game, const char *server,
                           const char *channel, int64_t *id)
{
	return st->pg ? store_pg_channel_finished(st->pg, game, server, channel, id)
	              : store_sqlite_channel_finished(st->lite, game, server, channel, id);
}

/* Shard ids and counts outside what Discord allows are refused here, once
 * for both backends. */
static int shard_ok(int count, int shard)
{
	return count >= 1 && count <= 65535 && shard >= 0 && shard < count;
}

int store_shard_lock(struct store *st, int count, int shard)
{
	if (!shard_ok(count, shard))
		return -1;
	return st->pg ? store_pg_shard_lock(st->pg, count, shard) : 1;
}

int store_shard_locked(struct store *st, int count, int shard)
{
	if (!shard_ok(count, shard))
		return -1;
	return st->pg ? store_pg_shard_locked(st->pg, count, shard) : 1;
}

int store_shard_others(struct store *st, int count)
{
	if (!shard_ok(count, 0))
		return -1;
	return st->pg ? store_pg_shard_others(st->pg, count) : 0;
}

int store_shard_unlock(struct store *st, int count, int shard)
{
	if (!shard_ok(count, shard))
		return -1;
	return st->pg ? store_pg_shard_unlock(st->pg, count, shard) : 0;
}

int store_shard_claim(struct store *st, int count, int shard, const char *owner, int64_t now,
                      int64_t *epoch)
{
	if (!shard_ok(count, shard) || !owner)
		return -1;
	return st->pg ? store_pg_shard_claim(st->pg, count, shard, owner, now, epoch)
	              : store_sqlite_shard_claim(st->lite, count, shard, owner, now, epoch);
}

int store_shard_fence(struct store *st, int count, int shard, int64_t epoch)
{
	if (epoch == 0)
		return 1;
	if (!shard_ok(count, shard))
		return -1;
	return st->pg ? store_pg_shard_fence(st->pg, count, shard, epoch)
	              : store_sqlite_shard_fence(st->lite, count, shard, epoch);
}

int store_shard_session_put(struct store *st, int count, int shard, int64_t epoch,
                            const struct store_shard_session *s)
{
	if (!shard_ok(count, shard) || !s)
		return -1;
	return st->pg ? store_pg_shard_session_put(st->pg, count, shard, epoch, s)
	              : store_sqlite_shard_session_put(st->lite, count, shard, epoch, s);
}

int store_shard_session_get(struct store *st, int count, int shard, struct store_shard_session *out)
{
	memset(out, 0, sizeof(*out));
	if (!shard_ok(count, shard))
		return -1;
	return st->pg ? store_pg_shard_session_get(st->pg, count, shard, out)
	              : store_sqlite_shard_session_get(st->lite, count, shard, out);
}

int store_interaction_mark(struct store *st, const char *id, int64_t now)
{
	if (!id || !*id)
		return -1;
	return st->pg ? store_pg_interaction_mark(st->pg, id, now)
	              : store_sqlite_interaction_mark(st->lite, id, now);
}

int store_interactions_forget(struct store *st, int64_t before)
{
	return st->pg ? store_pg_interactions_forget(st->pg, before)
	              : store_sqlite_interactions_forget(st->lite, before);
}

int store_shard_of(const char *server, int count)
{
	uint64_t id = 0;
	const char *p = server;

	if (!server || count < 2 || !*server)
		return 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || id > (UINT64_MAX - 9) / 10)
			return 0;
		id = id * 10 + (uint64_t)(*p - '0');
	}
	return (int)((id >> 22) % (uint64_t)count);
}

void store_fail_after(struct store *st, int writes)
{
	if (st->pg)
		store_pg_fail_after(st->pg, writes);
	else
		store_sqlite_fail_after(st->lite, writes);
}

size_t store_utf8_cut(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

int64_t store_rating_bucket(double ordinal)
{
	double x = ordinal * STORE_BUCKETS_PER_POINT;
	int64_t b;

	if (!(x > -1e15)) /* also NaN */
		return -1000000000000000LL;
	if (x > 1e15)
		return 1000000000000000LL;
	b = (int64_t)x;
	return (double)b > x ? b - 1 : b;
}

int store_rating_games(int games)
{
	return games < STORE_GAMES_CAP ? games : STORE_GAMES_CAP;
}

/* 1 when rows a and b (of periods pa and pb) count in the same
 * rating_counts row. */
static int same_count(const struct store_period *pa, const struct store_rating *a,
                      const struct store_period *pb, const struct store_rating *b)
{
	return pa->span == pb->span && pa->starts == pb->starts &&
	       strcmp(pa->game, pb->game) == 0 && strcmp(pa->scope, pb->scope) == 0 &&
	       store_rating_bucket(a->ordinal) == store_rating_bucket(b->ordinal) &&
	       store_rating_games(a->games) == store_rating_games(b->games);
}

int store_ratings_olds(const struct store_rating_write *w, int n)
{
	int olds = 0;

	for (int i = 0; i < n; i++) {
		int first = w[i].had;
		for (int j = 0; j < i && first; j++)
			if (w[j].had && same_count(&w[i].p, &w[i].old, &w[j].p, &w[j].old))
				first = 0;
		olds += first;
	}
	return olds;
}
