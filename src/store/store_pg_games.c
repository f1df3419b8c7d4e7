/* The PostgreSQL store: games, their members and events, results. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "rlyeh/store.h"
#include "store_pg.h"

#include "store_pg_int.h"

/* Sets $1 .. $22 of ST_GAME_INSERT / ST_GAME_UPDATE. */
static int p_game(struct store_pg *st, struct params *ps, const struct store_game *g)
{
	if (store_pg_p_id(st, ps, 1, g->server, sizeof(g->server), "server id") ||
	    store_pg_p_id(st, ps, 2, g->channel, sizeof(g->channel), "channel id") ||
	    store_pg_p_id(st, ps, 3, g->game, sizeof(g->game), "game kind") ||
	    store_pg_p_id(st, ps, 5, g->lang, sizeof(g->lang), "language") ||
	    store_pg_p_id(st, ps, 6, g->owner, sizeof(g->owner), "owner id"))
		return -1;
	store_pg_p_i64(ps, 4, g->per_player);
	store_pg_p_i64(ps, 7, g->state);
	store_pg_p_i64(ps, 8, store_pg_u64_to_db(g->seed));
	for (int i = 0; i < 4; i++)
		store_pg_p_i64(ps, 9 + i, store_pg_u64_to_db(g->rng[i]));
	store_pg_p_i64(ps, 13, g->first);
	store_pg_p_i64(ps, 14, g->moves);
	store_pg_p_i64(ps, 15, g->winner);
	store_pg_p_i64(ps, 16, g->created_at);
	store_pg_p_i64(ps, 17, g->started_at);
	store_pg_p_i64(ps, 18, g->finished_at);
	store_pg_p_i64(ps, 19, g->deadline);
	store_pg_p_i64(ps, 20, g->series_of);
	store_pg_p_i64(ps, 21, g->note);
	store_pg_p_i64(ps, 22, g->revision);
	return 0;
}

/* In a transaction, takes the ratings lock (ST_RATE_LOCK) before the
 * game_ids row: a transaction that both picks a game id and rates a game
 * ended, in either order, then takes the two in one order, as every other
 * does, so that two processes never wait for each other (a deadlock, which
 * PostgreSQL breaks by failing one of them). 0, or -1 with the error set. */
static int ids_lock(struct store_pg *st)
{
	return st->tx ? store_pg_run(st, ST_RATE_LOCK, NULL, "lock game ids", NULL) : 0;
}

int store_pg_game_create(struct store_pg *st, struct store_game *g)
{
	struct params ps = { 0 };
	int64_t id;

	/* The insert's trigger writes the game_ids row. */
	if (ids_lock(st) || p_game(st, &ps, g) ||
	    store_pg_one_i64(st, ST_GAME_INSERT, &ps, "create game", &id))
		return -1;
	g->id = id;
	return 0;
}

int store_pg_game_update(struct store_pg *st, const struct store_game *g)
{
	struct params ps = { 0 };
	long changed = 0;

	if (p_game(st, &ps, g))
		return -1;
	store_pg_p_i64(&ps, 23, g->id);
	if (store_pg_run(st, ST_GAME_UPDATE, &ps, "update game", &changed))
		return -1;
	if (changed == 0) {
		store_pg_set_err(st, "update game %lld: no such game", (long long)g->id);
		return -1;
	}
	return 0;
}

int store_pg_game_progress(struct store_pg *st, const struct store_game *g)
{
	struct params ps = { 0 };
	long changed = 0;

	for (int i = 0; i < 4; i++)
		store_pg_p_i64(&ps, 1 + i, store_pg_u64_to_db(g->rng[i]));
	store_pg_p_i64(&ps, 5, g->moves);
	store_pg_p_i64(&ps, 6, g->deadline);
	store_pg_p_i64(&ps, 7, g->note);
	store_pg_p_i64(&ps, 8, g->id);
	if (store_pg_run(st, ST_GAME_PROGRESS, &ps, "update game", &changed))
		return -1;
	if (changed == 0) {
		store_pg_set_err(st, "update game %lld: no such game", (long long)g->id);
		return -1;
	}
	return 0;
}

/* Inserts member i of game_id. */
static int member_insert(struct store_pg *st, int64_t game_id, int i, const struct store_member *m)
{
	struct params ps = { 0 };

	store_pg_p_i64(&ps, 1, game_id);
	store_pg_p_i64(&ps, 2, i);
	if (store_pg_p_id(st, &ps, 3, m->player, sizeof(m->player), "player id") ||
	    store_pg_p_cut(st, &ps, 4, m->name, strnlen(m->name, sizeof(m->name)),
	                   sizeof(m->name)) ||
	    store_pg_p_id(st, &ps, 5, m->policy, sizeof(m->policy), "policy"))
		return -1;
	store_pg_p_i64(&ps, 6, m->strikes);
	store_pg_p_i64(&ps, 7, m->autopilot);
	store_pg_p_i64(&ps, 8, m->place);
	store_pg_p_i64(&ps, 9, m->cthulhu);
	store_pg_p_i64(&ps, 10, m->prefs);
	return store_pg_run(st, ST_MEMBER_INSERT, &ps, "put members", NULL);
}

/* All or nothing, as in SQLite: outside a transaction in its own; inside
 * the caller's, under a savepoint. */
int store_pg_members_put(struct store_pg *st, int64_t game_id, const struct store_member *members,
                         int n)
{
	struct params ps = { 0 };
	int own = !store_pg_in_tx(st);

	if (n < 0 || n > STORE_MEMBERS_MAX || (n > 0 && !members)) {
		store_pg_set_err(st, "put members: %d members (at most %d)", n, STORE_MEMBERS_MAX);
		return -1;
	}
	if (own ? store_pg_begin(st) : store_pg_command(st, "SAVEPOINT store_call", "put members"))
		return -1;
	store_pg_p_i64(&ps, 1, game_id);
	if (store_pg_run(st, ST_MEMBERS_DELETE, &ps, "put members", NULL))
		goto fail;
	for (int i = 0; i < n; i++)
		if (member_insert(st, game_id, i, &members[i]))
			goto fail;
	if (own ? store_pg_commit(st) : store_pg_command(st, "RELEASE store_call", "put members"))
		goto fail;
	return 0;
fail:
	if (!store_pg_in_tx(st))
		return -1;
	if (own) {
		store_pg_rollback(st);
	} else {
		PQclear(PQexec(st->conn, "ROLLBACK TO store_call"));
		PQclear(PQexec(st->conn, "RELEASE store_call"));
	}
	return -1;
}

int store_pg_event_append(struct store_pg *st, int64_t game_id, const struct store_event *e)
{
	struct params ps = { 0 };

	store_pg_p_i64(&ps, 1, game_id);
	store_pg_p_i64(&ps, 2, e->seq);
	store_pg_p_i64(&ps, 3, e->at);
	if (store_pg_p_id(st, &ps, 4, e->kind, sizeof(e->kind), "event kind") ||
	    store_pg_p_cut(st, &ps, 7, e->detail, strnlen(e->detail, sizeof(e->detail)),
	                   sizeof(e->detail)))
		return -1;
	store_pg_p_i64(&ps, 5, e->actor);
	store_pg_p_i64(&ps, 6, e->value);
	return store_pg_run(st, ST_EVENT_INSERT, &ps, "append event", NULL);
}

/* Reads row `row` of ST_GAME_GET. */
static int v_game(struct store_pg *st, const PGresult *r, int row, struct store_game *g)
{
	memset(g, 0, sizeof(*g));
	g->id = store_pg_v_i64(r, row, 0);
	if (store_pg_v_id(st, r, row, 1, g->server, sizeof(g->server), "server id") ||
	    store_pg_v_id(st, r, row, 2, g->channel, sizeof(g->channel), "channel id") ||
	    store_pg_v_id(st, r, row, 3, g->game, sizeof(g->game), "game kind") ||
	    store_pg_v_id(st, r, row, 5, g->lang, sizeof(g->lang), "language") ||
	    store_pg_v_id(st, r, row, 6, g->owner, sizeof(g->owner), "owner id"))
		return -1;
	g->per_player = store_pg_v_int(r, row, 4);
	g->state = store_pg_v_int(r, row, 7);
	g->seed = store_pg_u64_from_db(store_pg_v_i64(r, row, 8));
	for (int i = 0; i < 4; i++)
		g->rng[i] = store_pg_u64_from_db(store_pg_v_i64(r, row, 9 + i));
	g->first = store_pg_v_int(r, row, 13);
	g->moves = store_pg_v_int(r, row, 14);
	g->winner = store_pg_v_int(r, row, 15);
	g->created_at = store_pg_v_i64(r, row, 16);
	g->started_at = store_pg_v_i64(r, row, 17);
	g->finished_at = store_pg_v_i64(r, row, 18);
	g->deadline = store_pg_v_i64(r, row, 19);
	g->series_of = store_pg_v_i64(r, row, 20);
	g->note = store_pg_v_int(r, row, 21);
	g->revision = store_pg_v_int(r, row, 22);
	return 0;
}

static void loaded_free(struct loaded *l)
{
	free(l->events);
	l->events = NULL;
	l->nevents = l->cap = 0;
}

/* Reads the members of game `id` into l. */
static int load_members(struct store_pg *st, int64_t id, struct loaded *l)
{
	struct params ps = { 0 };
	PGresult *r;
	int rc = 0;

	store_pg_p_i64(&ps, 1, id);
	if (!(r = store_pg_exec(st, ST_MEMBERS_GET, &ps, "load members")))
		return -1;
	for (int row = 0; row < PQntuples(r) && rc == 0; row++) {
		struct store_member *m = &l->members[l->nmembers];

		if (l->nmembers == STORE_MEMBERS_MAX || store_pg_v_int(r, row, 0) != l->nmembers) {
			store_pg_set_err(st, "game %lld: members are not seats 0 .. %d",
			                 (long long)id, STORE_MEMBERS_MAX - 1);
			rc = -1;
			break;
		}
		if (store_pg_v_id(st, r, row, 1, m->player, sizeof(m->player), "player id") ||
		    store_pg_v_id(st, r, row, 3, m->policy, sizeof(m->policy), "policy")) {
			rc = -1;
			break;
		}
		store_pg_v_text(r, row, 2, m->name, sizeof(m->name));
		m->strikes = store_pg_v_int(r, row, 4);
		m->autopilot = store_pg_v_int(r, row, 5);
		m->place = store_pg_v_int(r, row, 6);
		m->cthulhu = store_pg_v_int(r, row, 7);
		m->prefs = store_pg_v_int(r, row, 8);
		l->nmembers++;
	}
	PQclear(r);
	return rc;
}

/* Reads the event log of game `id` into l (l->events owned by l). */
static int load_events(struct store_pg *st, int64_t id, struct loaded *l)
{
	struct params ps = { 0 };
	PGresult *r;
	int n, rc = 0;

	store_pg_p_i64(&ps, 1, id);
	if (!(r = store_pg_exec(st, ST_EVENTS_GET, &ps, "load events")))
		return -1;
	n = PQntuples(r);
	if (n > EVENTS_MAX) {
		store_pg_set_err(st, "game %lld has more than %d events", (long long)id,
		                 EVENTS_MAX);
		PQclear(r);
		return -1;
	}
	if (n > 0 && !(l->events = calloc((size_t)n, sizeof(*l->events)))) {
		store_pg_set_err(st, "out of memory");
		PQclear(r);
		return -1;
	}
	l->cap = n;
	for (int row = 0; row < n; row++) {
		struct store_event *e = &l->events[row];

		if (store_pg_v_id(st, r, row, 2, e->kind, sizeof(e->kind), "event kind")) {
			rc = -1;
			break;
		}
		e->seq = store_pg_v_i64(r, row, 0);
		e->at = store_pg_v_i64(r, row, 1);
		e->actor = store_pg_v_int(r, row, 3);
		e->value = store_pg_v_int(r, row, 4);
		store_pg_v_text(r, row, 5, e->detail, sizeof(e->detail));
		l->nevents++;
	}
	PQclear(r);
	return rc;
}

/* Reads game `id` into l: the row, its members and, with `events`, its
 * event log (free l with loaded_free, also after a failure). 1 found, 0
 * no such game, -1 error. */
static int load_game(struct store_pg *st, int64_t id, int events, struct loaded *l)
{
	struct params ps = { 0 };
	PGresult *r;
	int rc;

	memset(l, 0, sizeof(*l));
	store_pg_p_i64(&ps, 1, id);
	if (!(r = store_pg_exec(st, ST_GAME_GET, &ps, "load game")))
		return -1;
	if (PQntuples(r) == 0) {
		PQclear(r);
		return 0;
	}
	rc = v_game(st, r, 0, &l->game);
	PQclear(r);
	if (rc || load_members(st, id, l))
		return -1;
	if (events && load_events(st, id, l))
		return -1;
	return 1;
}

/* Loads game `id` and, when found (and, with `open_only`, in the lobby or
 * playing), calls fn with it and stores fn's return in *fn_rc. 1 when fn
 * was called, 0 when not, -1 on error. */
static int deliver(struct store_pg *st, int64_t id, int open_only, store_game_fn fn, void *ctx,
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

/* Runs query `id` and copies the ids of its first column into *ids (the
 * caller frees it), so that callbacks may use the store afterwards. */
static int gather_ids(struct store_pg *st, enum stmt_id id, const struct params *ps, int64_t **ids,
                      int *n)
{
	PGresult *r = store_pg_exec(st, id, ps, "list games");

	*ids = NULL;
	*n = 0;
	if (!r)
		return -1;
	if (PQntuples(r) > LIST_MAX) {
		store_pg_set_err(st, "more than %d games to walk", LIST_MAX);
		PQclear(r);
		return -1;
	}
	if (PQntuples(r) > 0 && !(*ids = calloc((size_t)PQntuples(r), sizeof(**ids)))) {
		store_pg_set_err(st, "out of memory");
		PQclear(r);
		return -1;
	}
	for (int row = 0; row < PQntuples(r); row++)
		(*ids)[row] = store_pg_v_i64(r, row, 0);
	*n = PQntuples(r);
	PQclear(r);
	return 0;
}

int store_pg_games_open(struct store_pg *st, store_game_fn fn, void *ctx)
{
	int64_t *ids;
	int n, rc = 0;

	if (gather_ids(st, ST_GAMES_OPEN, NULL, &ids, &n))
		return -1;
	for (int i = 0; i < n && rc == 0; i++)
		if (deliver(st, ids[i], 1, fn, ctx, &rc) < 0)
			rc = -1;
	free(ids);
	return rc;
}

int store_pg_game_load(struct store_pg *st, int64_t id, store_game_fn fn, void *ctx)
{
	int fn_rc = 0;
	int rc = deliver(st, id, 0, fn, ctx, &fn_rc);

	if (rc == 0)
		store_pg_set_err(st, "game %lld: no such game", (long long)id);
	return rc > 0 ? fn_rc : -1;
}

int store_pg_results(struct store_pg *st, const char *game, const char *server, int64_t since,
                     int64_t until, store_result_fn fn, void *ctx)
{
	struct params ps = { 0 };
	int64_t *ids;
	int n, rc = 0;

	if (!game) {
		store_pg_set_err(st, "results: no game kind");
		return -1;
	}
	/* Longer text than a stored value matches nothing. */
	if (strlen(game) >= STORE_KIND_MAX || (server && strlen(server) >= STORE_ID_MAX))
		return 0;
	ps.v[0] = game;
	store_pg_p_i64(&ps, 2, since);
	store_pg_p_i64(&ps, 3, until ? until : INT64_MAX);
	if (server) {
		ps.v[3] = server;
		store_pg_p_use(&ps, 4);
	}
	if (gather_ids(st, server ? ST_RESULTS_SERVER : ST_RESULTS_ALL, &ps, &ids, &n))
		return -1;
	for (int i = 0; i < n && rc == 0; i++) {
		struct loaded l;
		struct store_result res;
		int found = load_game(st, ids[i], 0, &l);

		if (found < 0) {
			rc = -1;
		} else if (found > 0 && l.game.state == STORE_FINISHED) {
			res = (struct store_result){ l.game.id,  l.game.finished_at, l.game.server,
				                     l.nmembers, l.members,          l.game.game };
			rc = fn(ctx, &res);
		}
		loaded_free(&l);
	}
	free(ids);
	return rc;
}

int64_t store_pg_games_made(struct store_pg *st)
{
	int64_t made;

	return ids_lock(st) || store_pg_one_i64(st, st->tx ? ST_GAMES_MADE_LOCK : ST_GAMES_MADE,
	                                        NULL, "games made", &made)
	           ? -1
	           : made;
}

int store_pg_channel_finished(struct store_pg *st, const char *game, const char *server,
                              const char *channel, int64_t *id)
{
	struct params ps = { 0 };
	PGresult *r;

	*id = 0;
	if (store_pg_p_id(st, &ps, 1, game, STORE_KIND_MAX, "game") ||
	    store_pg_p_id(st, &ps, 2, server, STORE_ID_MAX, "server id") ||
	    store_pg_p_id(st, &ps, 3, channel, STORE_ID_MAX, "channel id"))
		return -1;
	if (!(r = store_pg_exec(st, ST_CHANNEL_FINISHED, &ps, "find the channel's finished game")))
		return -1;
	if (PQntuples(r) == 1)
		*id = store_pg_v_i64(r, 0, 0);
	PQclear(r);
	return 0;
}
