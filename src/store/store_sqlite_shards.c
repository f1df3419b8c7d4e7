/* The SQLite store: shards (one process owns them all) and interactions seen. */
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

/* ---- shards: one process owns them all ---- */

/* The shard's epoch into *epoch (0 when it has no row). */
static int shard_epoch(struct store_sqlite *st, int count, int shard, int64_t *epoch)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_SHARD_EPOCH);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_int(s, 1, count);
	sqlite3_bind_int(s, 2, shard);
	rc = sqlite3_step(s);
	*epoch = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		store_sqlite_set_db_err(st, "read shard epoch");
	store_sqlite_stmt_done(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

int store_sqlite_shard_claim(struct store_sqlite *st, int count, int shard, const char *owner,
                             int64_t now, int64_t *epoch)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_SHARD_CLAIM);

	if (!s)
		return -1;
	sqlite3_bind_int(s, 1, count);
	sqlite3_bind_int(s, 2, shard);
	if (store_sqlite_bind_id(st, s, 3, owner, STORE_ID_MAX, "shard owner")) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	sqlite3_bind_int64(s, 4, now < 0 ? 0 : now);
	if (store_sqlite_run(st, ST_SHARD_CLAIM, "claim shard"))
		return -1;
	return shard_epoch(st, count, shard, epoch);
}

int store_sqlite_shard_fence(struct store_sqlite *st, int count, int shard, int64_t epoch)
{
	int64_t now;

	if (epoch == 0)
		return 1;
	if (shard_epoch(st, count, shard, &now))
		return -1;
	return now == epoch;
}

int store_sqlite_shard_session_put(struct store_sqlite *st, int count, int shard, int64_t epoch,
                                   const struct store_shard_session *ss)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_SHARD_SESSION_PUT);

	if (!s)
		return -1;
	sqlite3_bind_int(s, 1, count);
	sqlite3_bind_int(s, 2, shard);
	if (store_sqlite_bind_id(st, s, 3, ss->session_id, STORE_SESSION_MAX, "session id") ||
	    store_sqlite_bind_id(st, s, 5, ss->resume_url, STORE_URL_MAX, "resume url")) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	sqlite3_bind_int64(s, 4, ss->seq < 0 ? 0 : ss->seq);
	sqlite3_bind_int64(s, 6, ss->saved_at < 0 ? 0 : ss->saved_at);
	sqlite3_bind_int64(s, 7, epoch);
	if (store_sqlite_run(st, ST_SHARD_SESSION_PUT, "save shard session"))
		return -1;
	return sqlite3_changes(st->db) == 0;
}

int store_sqlite_shard_session_get(struct store_sqlite *st, int count, int shard,
                                   struct store_shard_session *out)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_SHARD_SESSION_GET);
	int rc, found = 0;

	memset(out, 0, sizeof(*out));
	if (!s)
		return -1;
	sqlite3_bind_int(s, 1, count);
	sqlite3_bind_int(s, 2, shard);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		store_sqlite_col_text(s, 0, out->session_id, sizeof(out->session_id));
		out->seq = sqlite3_column_int64(s, 1);
		store_sqlite_col_text(s, 2, out->resume_url, sizeof(out->resume_url));
		out->saved_at = sqlite3_column_int64(s, 3);
		found = out->session_id[0] != '\0';
	} else if (rc != SQLITE_DONE) {
		store_sqlite_set_db_err(st, "read shard session");
		found = -1;
	}
	store_sqlite_stmt_done(s);
	return found;
}

int store_sqlite_interaction_mark(struct store_sqlite *st, const char *id, int64_t now)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_INTERACTION_MARK);

	if (!s)
		return -1;
	if (store_sqlite_bind_id(st, s, 1, id, STORE_ID_MAX, "interaction id")) {
		store_sqlite_stmt_done(s);
		return -1;
	}
	sqlite3_bind_int64(s, 2, now < 0 ? 0 : now);
	if (store_sqlite_run(st, ST_INTERACTION_MARK, "record interaction"))
		return -1;
	return sqlite3_changes(st->db) == 1;
}

int store_sqlite_interactions_forget(struct store_sqlite *st, int64_t before)
{
	sqlite3_stmt *s = store_sqlite_stmt_get(st, ST_INTERACTIONS_FORGET);

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, before);
	return store_sqlite_run(st, ST_INTERACTIONS_FORGET, "forget interactions");
}
