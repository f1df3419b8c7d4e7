/* The SQLite store: games, their members and events, results. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "powervfs.h"
#include "rlyeh/store.h"
#include "store_sqlite.h"

#include "store_sqlite_int.h"

/* Binds parameters ?1 .. ?20, ?22 and ?23 of ST_GAME_INSERT / ST_GAME_UPDATE. */
static int bind_game(struct store_sqlite *st, sqlite3_stmt *s, const struct store_game *g)
{
	if (store_sqlite_bind_id(st, s, 1, g->server, sizeof(g->server), "server id") ||
	    store_sqlite_bind_id(st, s, 2, g->channel, sizeof(g->channel), "channel id") ||
	    store_sqlite_bind_id(st, s, 3, g->game, sizeof(g->game), "game kind") ||
	    store_sqlite_bind_id(st, s, 5, g->lang, sizeof(g->lang), "language") ||
	    store_sqlite_bind_id(st, s, 6, g->owner, sizeof(g->owner), "owner id"))
		return -1;
	sqlite3_bind_int(s, 4, g->per_player);
	sqlite3_bind_int(s, 7, g->state);
	sqlite3_bind_int64(s, 8, store_sqlite_u64_to_db(g->seed));
	for (int i = 0; i < 4; i++)
		sqlite3_bind_int64(s, 9 + i, store_sqlite_u64_to_db(g->rng[i]));
	sqlite3_bind_int(s, 13, g->first);
	sqlite3_bind_int(s, 14, g->moves);
	sqlite3_bind_int(s, 15, g->winner);
	sqlite3_bind_int64(s, 16, g->created_at);
	sqlite3_bind_int64(s, 17, g->started_at);
	sqlite3_bind_int64(s, 18, g->finished_at);
	sqlite3_bind_int64(s, 19, g->deadline);
	sqlite3_bind_int64(s, 20, g->series_of);
	sqlite3_bind_int(s, 22, g->note);
	sqlite3_bind_int(s, 23, g->revision);
	return 0;
}

/* Reads a row of ST_GAME_GET. */
static int col_game(struct store_sqlite *st, sqlite3_stmt *s, struct store_game *g)
{
	memset(g, 0, sizeof(*g));
	g->id = sqlite3_column_int64(s, 0);
	if (store_sqlite_col_id(st, s, 1, g->server, sizeof(g->server), "server id") ||
	    store_sqlite_col_id(st, s, 2, g->channel, sizeof(g->channel), "channel id") ||
	    store_sqlite_col_id(st, s, 3, g->game, sizeof(g->game), "game kind") ||
	    store_sqlite_col_id(st, s, 5, g->lang, sizeof(g->lang), "language") ||
	    store_sqlite_col_id(st, s, 6, g->owner, sizeof(g->owner), "owner id"))
		return -1;
	g->per_player = sqlite3_column_int(s, 4);
	g->state = sqlite3_column_int(s, 7);
	g->seed = store_sqlite_u64_from_db(sqlite3_column_int64(s, 8));
	for (int i = 0; i < 4; i++)
		g->rng[i] = store_sqlite_u64_from_db(sqlite3_column_int64(s, 9 + i));
	g->first = sqlite3_column_int(s, 13);
	g->moves = sqlite3_column_int(s, 14);
	g->winner = sqlite3_column_int(s, 15);
	g->created_at = sqlite3_column_int64(s, 16);
	g->started_at = sqlite3_column_int64(s, 17);
	g->finished_at = sqlite3_column_int64(s, 18);
	g->deadline = sqlite3_column_int64(s, 19);
	g->series_of = sqlite3_column_int64(s, 20);
	g->note = sqlite3_column_int(s, 21);
	g->revision = sqlite3_column_int(s, 22);
	return 0;
}

/* Appends an event slot to l, growing the array; NULL (error set) past
 * EVENTS_MAX or when out of memory. */
static struct store_event *loaded_push_event(struct store_sqlite *st, struct loaded *l)
{
	if (l->nevents == l->cap) {
		int cap = l->cap ? l->cap * 2 : 64;
		struct store_event *bigger;

		if (l->nevents >= EVENTS_MAX) {
			store_sqlite_set_err(st, "game %lld has more than %d events",
			                     (long long)l->game.id, EVENTS_MAX);
			return NULL;
		}
		if (cap > EVENTS_MAX)
			cap = EVENTS_MAX;
		bigger = realloc(l->events, (size_t)cap * sizeof(*bigger));
		if (!bigger) {
			store_sqlite_set_err(st, "out of memory");
			return NULL;
		}
		l->events = bigger;
		l->cap = cap;
	}
	return &l->events[l->nevents++];
}

static void loaded_free(struct loaded *l)
{
	free(l->events);
	l->events = NULL;
	l->nevents = l->cap = 0;
}

/* Reads game `id` into l: the row, its members and, when `events` is set,
 * its event log (l->events is then owned by l; free it with loaded_free,
 * also after a failure). Returns 1 when found, 0 when there is no such
 * game, -1 on error. */
static int load_game(struct store_sqlite *st, int64_t id, int events, struct loaded *l)
{
	sqlite3_stmt *s;
	int rc;

	memset(l, 0, sizeof(*l));
	if (!(s = store_sqlite_stmt_get(st, ST_GAME_GET)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE) {
		store_sqlite_stmt_done(s);
		return 0;
	}
	if (rc != SQLITE_ROW) {
		store_sqlite_set_db_err(st, "load game");
		store_sqlite_stmt_done(s);
		return -1;
	}
	rc = col_game(st, s, &l->game);
	store_sqlite_stmt_done(s);
	if (rc)
		return -1;

	if (!(s = store_sqlite_stmt_get(st, ST_MEMBERS_GET)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_member *m = &l->members[l->nmembers];

		if (l->nmembers == STORE_MEMBERS_MAX || sqlite3_column_int(s, 0) != l->nmembers) {
			store_sqlite_set_err(st, "game %lld: members are not seats 0 .. %d",
			                     (long long)id, STORE_MEMBERS_MAX - 1);
			store_sqlite_stmt_done(s);
			return -1;
		}
		if (store_sqlite_col_id(st, s, 1, m->player, sizeof(m->player), "player id") ||
		    store_sqlite_col_id(st, s, 3, m->policy, sizeof(m->policy), "policy")) {
			store_sqlite_stmt_done(s);
			return -1;
		}
		store_sqlite_col_text(s, 2, m->name, sizeof(m->name));
		m->strikes = sqlite3_column_int(s, 4);
		m->autopilot = sqlite3_column_int(s, 5);
		m->place = sqlite3_column_int(s, 6);
		m->cthulhu = sqlite3_column_int(s, 7);
		m->prefs = sqlite3_column_int(s, 8);
		l->nmembers++;
	}
	store_sqlite_stmt_done(s);
	if (rc != SQLITE_DONE) {
		store_sqlite_set_db_err(st, "load members");
		return -1;
	}
	if (!events)
		return 1;

	if (!(s = store_sqlite_stmt_get(st, ST_EVENTS_GET)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_event *e = loaded_push_event(st, l);

		if (!e || store_sqlite_col_id(st, s, 2, e->kind, sizeof(e->kind), "event kind")) {
			store_sqlite_stmt_done(s);
			return -1;
		}
		e->seq = sqlite3_column_int64(s, 0);
		e->at = sqlite3_column_int64(s, 1);
		e->actor = sqlite3_column_int(s, 3);
		e->value = sqlite3_column_int(s, 4);
		store_sqlite_col_text(s, 5, e->detail, sizeof(e->detail));
	}
	store_sqlite_stmt_done(s);
	if (rc != SQLITE_DONE) {
		store_sqlite_set_db_err(st, "load events");
		return -1;
	}
	return 1;
}

/* Runs the prepared query s (parameters bound) and gathers the ids in its
 * first column into list, which the caller frees. The statement is reset
 * before returning, so callbacks may use the store freely afterwards. */
static int gather_ids(struct store_sqlite *st, sqlite3_stmt *s, struct id_list *list)
{
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (list->n == list->cap) {
			int cap = list->cap ? list->cap * 2 : 64;
			int64_t *bigger;

			if (list->n >= LIST_MAX) {
				store_sqlite_set_err(st, "more than %d games to walk", LIST_MAX);
				store_sqlite_stmt_done(s);
				return -1;
			}
			bigger = realloc(list->ids, (size_t)cap * sizeof(*bigger));
			if (!bigger) {
				store_sqlite_set_err(st, "out of memory");
				store_sqlite_stmt_done(s);
				return -1;
			}
			list->ids = bigger;
			list->cap = cap;
		}
		list->ids[list->n++] = sqlite3_column_int64(s, 0);
	}
	store_sqlite_stmt_done(s);
	if (rc != SQLITE_DONE) {
		store_sqlite_set_db_err(st, "list games");
		return -1;
	}
	return 0;
}

int store_sqlite_game_create(struct store_sqlite *st, struct store_game *g)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_GAME_INSERT);

	if (!s)
		return -1;
	if (bind_game(st, s, g)) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	if (store_sqlite_run(st, ST_GAME_INSERT, "create game"))
		return -1;
	g->id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

int store_sqlite_game_update(struct store_sqlite *st, const struct store_game *g)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_GAME_UPDATE);

	if (!s)
		return -1;
	if (bind_game(st, s, g)) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	sqlite3_bind_int64(s, 21, g->id);
	if (store_sqlite_run(st, ST_GAME_UPDATE, "update game"))
		return -1;
	if (sqlite3_changes(st->db) == 0) {
		store_sqlite_set_err(st, "update game %lld: no such game", (long long)g->id);
		return -1;
	}
	return 0;
}

int store_sqlite_game_progress(struct store_sqlite *st, const struct store_game *g)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_GAME_PROGRESS);

	if (!s)
		return -1;
	for (int i = 0; i < 4; i++)
		sqlite3_bind_int64(s, 1 + i, store_sqlite_u64_to_db(g->rng[i]));
	sqlite3_bind_int(s, 5, g->moves);
	sqlite3_bind_int64(s, 6, g->deadline);
	sqlite3_bind_int64(s, 7, g->id);
	sqlite3_bind_int(s, 8, g->note);
	if (store_sqlite_run(st, ST_GAME_PROGRESS, "update game"))
		return -1;
	if (sqlite3_changes(st->db) == 0) {
		store_sqlite_set_err(st, "update game %lld: no such game", (long long)g->id);
		return -1;
	}
	return 0;
}

/* Inserts member i of game_id. */
static int member_insert(struct store_sqlite *st, int64_t game_id, int i,
                         const struct store_member *m)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_MEMBER_INSERT);

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, game_id);
	sqlite3_bind_int(s, 2, i);
	if (store_sqlite_bind_id(st, s, 3, m->player, sizeof(m->player), "player id") ||
	    store_sqlite_bind_cut(st, s, 4, m->name, strnlen(m->name, sizeof(m->name)),
	                          sizeof(m->name), "member name") ||
	    store_sqlite_bind_id(st, s, 5, m->policy, sizeof(m->policy), "policy")) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	sqlite3_bind_int(s, 6, m->strikes);
	sqlite3_bind_int(s, 7, m->autopilot);
	sqlite3_bind_int(s, 8, m->place);
	sqlite3_bind_int(s, 9, m->cthulhu);
	sqlite3_bind_int(s, 10, m->prefs);
	return store_sqlite_run(st, ST_MEMBER_INSERT, "put members");
}

/* The call is all or nothing: outside a transaction it runs in its own;
 * inside the caller's, under a savepoint, so that a failure undoes only
 * this call and leaves the transaction open for the caller to roll back. */
int store_sqlite_members_put(struct store_sqlite *st, int64_t game_id,
                             const struct store_member *members, int n)
{
	int own = sqlite3_get_autocommit(st->db);

	if (n < 0 || n > STORE_MEMBERS_MAX || (n > 0 && !members)) {
		store_sqlite_set_err(st, "put members: %d members (at most %d)", n,
		                     STORE_MEMBERS_MAX);
		return -1;
	}
	if (!store_sqlite_stmt_get(st, ST_MEMBERS_DELETE) ||
	    !store_sqlite_stmt_get(st, ST_ROLLBACK) || !store_sqlite_stmt_get(st, ST_ROLLBACK_TO) ||
	    !store_sqlite_stmt_get(st, ST_RELEASE))
		return -1;
	if (store_sqlite_run_plain(st, own ? ST_BEGIN : ST_SAVEPOINT, "put members"))
		return -1;
	sqlite3_bind_int64(st->stmt[ST_MEMBERS_DELETE], 1, game_id);
	if (store_sqlite_run(st, ST_MEMBERS_DELETE, "put members"))
		goto fail;
	for (int i = 0; i < n; i++)
		if (member_insert(st, game_id, i, &members[i]))
			goto fail;
	if (store_sqlite_run_plain(st, own ? ST_COMMIT : ST_RELEASE, "put members"))
		goto fail;
	return 0;
fail:
	if (sqlite3_get_autocommit(st->db))
		return -1;
	if (own) {
		sqlite3_step(st->stmt[ST_ROLLBACK]);
		store_sqlite_stmt_done(st->stmt[ST_ROLLBACK]);
	} else {
		sqlite3_step(st->stmt[ST_ROLLBACK_TO]);
		store_sqlite_stmt_done(st->stmt[ST_ROLLBACK_TO]);
		sqlite3_step(st->stmt[ST_RELEASE]);
		store_sqlite_stmt_done(st->stmt[ST_RELEASE]);
	}
	return -1;
}

int store_sqlite_event_append(struct store_sqlite *st, int64_t game_id, const struct store_event *e)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_EVENT_INSERT);

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, game_id);
	sqlite3_bind_int64(s, 2, e->seq);
	sqlite3_bind_int64(s, 3, e->at);
	if (store_sqlite_bind_id(st, s, 4, e->kind, sizeof(e->kind), "event kind") ||
	    store_sqlite_bind_cut(st, s, 7, e->detail, strnlen(e->detail, sizeof(e->detail)),
	                          sizeof(e->detail), "event detail")) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	sqlite3_bind_int(s, 5, e->actor);
	sqlite3_bind_int(s, 6, e->value);
	return store_sqlite_run(st, ST_EVENT_INSERT, "append event");
}

/* Loads game `id` with its members and events and, when found (and, with
 * `open_only`, still in the lobby or playing), calls fn with it and stores
 * fn's return in *fn_rc. Returns 1 when fn was called, 0 when not, -1 on
 * error. The arrays fn sees are freed before returning. */
static int deliver(struct store_sqlite *st, int64_t id, int open_only, store_game_fn fn, void *ctx,
                   int *fn_rc)
{
	struct loaded l;
	struct store_loaded view;
	int rc = load_game(st, id, 1, &l);

	if (rc > 0 && open_only && l.game.state != STORE_LOBBY && l.game.state != STORE_PLAYING)
		rc = 0;
	if (rc > 0) {
		view = (struct store_loaded){ &l.game, l.members, l.nmembers, l.events, l.nevents };
		*fn_rc = fn(ctx, &view);
	}
	loaded_free(&l);
	return rc;
}

int store_sqlite_games_open(struct store_sqlite *st, store_game_fn fn, void *ctx)
{
	struct id_list ids = { NULL, 0, 0 };
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_GAMES_OPEN);
	int rc = 0;

	if (!s || gather_ids(st, s, &ids)) {
		free(ids.ids);
		return -1;
	}
	for (int i = 0; i < ids.n && rc == 0; i++)
		if (deliver(st, ids.ids[i], 1, fn, ctx, &rc) < 0)
			rc = -1;
	free(ids.ids);
	return rc;
}

int store_sqlite_game_load(struct store_sqlite *st, int64_t id, store_game_fn fn, void *ctx)
{
	int fn_rc = 0;
	int rc = deliver(st, id, 0, fn, ctx, &fn_rc);

	if (rc == 0)
		store_sqlite_set_err(st, "game %lld: no such game", (long long)id);
	return rc > 0 ? fn_rc : -1;
}

int store_sqlite_results(struct store_sqlite *st, const char *game, const char *server,
                         int64_t since, int64_t until, store_result_fn fn, void *ctx)
{
	enum stmt_id id = server ? ST_RESULTS_SERVER : ST_RESULTS_ALL;
	struct id_list ids = { NULL, 0, 0 };
	sqlite3_stmt *s = store_sqlite_stmt_get(st, id);
	int rc = 0;

	if (!s)
		return -1;
	if (!game) {
		store_sqlite_set_err(st, "results: no game kind");
		return -1;
	}
	sqlite3_bind_text(s, 1, game, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, since);
	sqlite3_bind_int64(s, 3, until ? until : INT64_MAX);
	if (server)
		sqlite3_bind_text(s, 4, server, -1, SQLITE_STATIC);
	if (gather_ids(st, s, &ids)) {
		free(ids.ids);
		return -1;
	}
	for (int i = 0; i < ids.n && rc == 0; i++) {
		struct loaded l;
		struct store_result r;
		int found = load_game(st, ids.ids[i], 0, &l);

		if (found < 0) {
			rc = -1;
		} else if (found > 0 && l.game.state == STORE_FINISHED) {
			r = (struct store_result){ l.game.id,  l.game.finished_at, l.game.server,
				                   l.nmembers, l.members,          l.game.game };
			rc = fn(ctx, &r);
		}
		loaded_free(&l);
	}
	free(ids.ids);
	return rc;
}

int64_t store_sqlite_games_made(struct store_sqlite *st)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_GAMES_MADE);
	int64_t made = -1;

	if (!s)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		made = sqlite3_column_int64(s, 0);
	else
		store_sqlite_set_db_err(st, "games made");
	store_sqlite_stmt_done(s);
	return made;
}

int store_sqlite_channel_finished(struct store_sqlite *st, const char *game, const char *server,
                                  const char *channel, int64_t *id)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_CHANNEL_FINISHED);
	int rc;

	*id = 0;
	if (!s)
		return -1;
	if (store_sqlite_bind_id(st, s, 1, game, STORE_KIND_MAX, "game") ||
	    store_sqlite_bind_id(st, s, 2, server, STORE_ID_MAX, "server id") ||
	    store_sqlite_bind_id(st, s, 3, channel, STORE_ID_MAX, "channel id")) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(s, 0);
	else if (rc != SQLITE_DONE)
		store_sqlite_set_db_err(st, "find the channel's finished game");
	store_sqlite_stmt_done(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}
