/* The PostgreSQL store: shards (advisory locks and epochs) and interactions seen. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "rlyeh/store.h"
#include "store_pg.h"

#include "store_pg_int.h"

/* ---- shards: advisory locks and epochs ---- */

/* The first key of shard locks: "rl" and the count. */
#define SHARD_KEY 0x726c0000L

static void p_shard(struct params *ps, int count, int shard)
{
	store_pg_p_i64(ps, 1, SHARD_KEY | (count & 0xffff));
	store_pg_p_i64(ps, 2, shard);
}

int store_pg_shard_lock(struct store_pg *st, int count, int shard)
{
	struct params ps = { 0 };
	int64_t v;

	p_shard(&ps, count, shard);
	return store_pg_one_i64(st, ST_SHARD_LOCK, &ps, "lock shard", &v) ? -1 : v == 1;
}

int store_pg_shard_locked(struct store_pg *st, int count, int shard)
{
	struct params ps = { 0 };
	int64_t v;

	/* A lost connection has lost its locks: not opened again here. */
	if (PQstatus(st->conn) != CONNECTION_OK)
		return 0;
	p_shard(&ps, count, shard);
	if (store_pg_one_i64(st, ST_SHARD_LOCKED, &ps, "ask shard lock", &v))
		return PQstatus(st->conn) == CONNECTION_OK ? -1 : 0;
	return v > 0;
}

int store_pg_shard_others(struct store_pg *st, int count)
{
	struct params ps = { 0 };
	int64_t v;

	store_pg_p_i64(&ps, 1, SHARD_KEY | (count & 0xffff));
	if (store_pg_one_i64(st, ST_SHARD_OTHERS, &ps, "ask other shard counts", &v))
		return -1;
	return v > 0x7fffffff ? 0x7fffffff : (int)v;
}

int store_pg_shard_unlock(struct store_pg *st, int count, int shard)
{
	struct params ps = { 0 };
	PGresult *r;

	if (PQstatus(st->conn) != CONNECTION_OK)
		return 0;
	p_shard(&ps, count, shard);
	if (!(r = store_pg_exec(st, ST_SHARD_UNLOCK, &ps, "unlock shard")))
		return -1;
	PQclear(r);
	return 0;
}

/* $1 count, $2 shard as stored (not the lock's key). */
static void p_row(struct params *ps, int count, int shard)
{
	store_pg_p_i64(ps, 1, count);
	store_pg_p_i64(ps, 2, shard);
}

int store_pg_shard_claim(struct store_pg *st, int count, int shard, const char *owner, int64_t now,
                         int64_t *epoch)
{
	struct params ps = { 0 };

	p_row(&ps, count, shard);
	if (store_pg_p_id(st, &ps, 3, owner, STORE_ID_MAX, "shard owner"))
		return -1;
	store_pg_p_i64(&ps, 4, now < 0 ? 0 : now);
	return store_pg_one_i64(st, ST_SHARD_CLAIM, &ps, "claim shard", epoch);
}

int store_pg_shard_fence(struct store_pg *st, int count, int shard, int64_t epoch)
{
	struct params ps = { 0 };
	PGresult *r;
	int rc;

	if (epoch == 0)
		return 1;
	p_row(&ps, count, shard);
	if (!(r = store_pg_exec(st, ST_SHARD_FENCE, &ps, "fence shard")))
		return -1;
	rc = PQntuples(r) == 1 && store_pg_v_i64(r, 0, 0) == epoch;
	PQclear(r);
	return rc;
}

int store_pg_shard_session_put(struct store_pg *st, int count, int shard, int64_t epoch,
                               const struct store_shard_session *ss)
{
	struct params ps = { 0 };
	long changed = 0;

	p_row(&ps, count, shard);
	if (store_pg_p_id(st, &ps, 3, ss->session_id, STORE_SESSION_MAX, "session id") ||
	    store_pg_p_id(st, &ps, 5, ss->resume_url, STORE_URL_MAX, "resume url"))
		return -1;
	store_pg_p_i64(&ps, 4, ss->seq < 0 ? 0 : ss->seq);
	store_pg_p_i64(&ps, 6, ss->saved_at < 0 ? 0 : ss->saved_at);
	store_pg_p_i64(&ps, 7, epoch);
	if (store_pg_run(st, ST_SHARD_SESSION_PUT, &ps, "save shard session", &changed))
		return -1;
	return changed == 0;
}

int store_pg_shard_session_get(struct store_pg *st, int count, int shard,
                               struct store_shard_session *out)
{
	struct params ps = { 0 };
	PGresult *r;
	int found = 0;

	memset(out, 0, sizeof(*out));
	p_row(&ps, count, shard);
	if (!(r = store_pg_exec(st, ST_SHARD_SESSION_GET, &ps, "read shard session")))
		return -1;
	if (PQntuples(r) == 1) {
		store_pg_v_text(r, 0, 0, out->session_id, sizeof(out->session_id));
		out->seq = store_pg_v_i64(r, 0, 1);
		store_pg_v_text(r, 0, 2, out->resume_url, sizeof(out->resume_url));
		out->saved_at = store_pg_v_i64(r, 0, 3);
		found = out->session_id[0] != '\0';
	}
	PQclear(r);
	return found;
}

int store_pg_interaction_mark(struct store_pg *st, const char *id, int64_t now)
{
	struct params ps = { 0 };
	long changed = 0;

	if (store_pg_p_id(st, &ps, 1, id, STORE_ID_MAX, "interaction id"))
		return -1;
	store_pg_p_i64(&ps, 2, now < 0 ? 0 : now);
	if (store_pg_run(st, ST_INTERACTION_MARK, &ps, "record interaction", &changed))
		return -1;
	return changed == 1;
}

int store_pg_interactions_forget(struct store_pg *st, int64_t before)
{
	struct params ps = { 0 };

	store_pg_p_i64(&ps, 1, before);
	return store_pg_run(st, ST_INTERACTIONS_FORGET, &ps, "forget interactions", NULL);
}
