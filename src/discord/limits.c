#include "rlyeh/limits.h"

#include <libpq-fe.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rlyeh/text.h"

#define KEY_MAX 160

struct limits {
	PGconn *conn;
	char uri[1024];
	char key[KEY_MAX];
	char err[256];
};

/* The tables, made once under an advisory lock so that processes starting
 * together do not race on CREATE. */
static const char *const setup_sql = "BEGIN;"
                                     "SELECT pg_advisory_xact_lock(727279001);"
                                     "CREATE TABLE IF NOT EXISTS rlyeh_process ("
                                     " id text PRIMARY KEY, beat_at timestamptz NOT NULL);"
                                     "CREATE TABLE IF NOT EXISTS rlyeh_identify ("
                                     " bucket integer PRIMARY KEY, at timestamptz NOT NULL);"
                                     "COMMIT;"
                                     "LISTEN rlyeh_global_429;"
                                     "LISTEN rlyeh_joined;"
                                     "NOTIFY rlyeh_joined;";

static const char *const beat_sql =
    "WITH up AS (INSERT INTO rlyeh_process (id, beat_at) VALUES ($1, clock_timestamp())"
    " ON CONFLICT (id) DO UPDATE SET beat_at = excluded.beat_at),"
    " gone AS (DELETE FROM rlyeh_process WHERE id <> $1"
    " AND beat_at < clock_timestamp() - $2::integer * interval '1 millisecond')"
    " SELECT count(*) + 1 FROM rlyeh_process WHERE id <> $1"
    " AND beat_at >= clock_timestamp() - $2::integer * interval '1 millisecond'";

/* The row lock taken by ON CONFLICT makes the test and the update one step:
 * of two processes asking at once, the second sees the first's time. */
static const char *const take_sql =
    "INSERT INTO rlyeh_identify (bucket, at) VALUES ($1::integer, clock_timestamp())"
    " ON CONFLICT (bucket) DO UPDATE SET at = excluded.at"
    " WHERE rlyeh_identify.at <= excluded.at - $2::integer * interval '1 millisecond'"
    " RETURNING bucket";

static const char *const wait_sql =
    "SELECT GREATEST(0, ceil(extract(epoch FROM (at + $2::integer * interval '1 millisecond'"
    " - clock_timestamp())) * 1000))::bigint FROM rlyeh_identify WHERE bucket = $1::integer";

int limits_share(int total, int live)
{
	if (total < 1)
		return 1;
	if (live <= 1)
		return total;
	total = (int)((long)total * (100 - LIMITS_HEADROOM) / 100);
	return total / live > 0 ? total / live : 1;
}

static void set_err(struct limits *l, const char *what)
{
	const char *msg = l->conn ? PQerrorMessage(l->conn) : "no connection";
	size_t n = strcspn(msg, "\n");

	snprintf(l->err, sizeof(l->err), "%s: %.*s", what, (int)(n < 200 ? n : 200), msg);
}

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* Runs the setup on a fresh connection. 0, or -1 with err set and the
 * connection closed. */
static int setup(struct limits *l)
{
	PGresult *r;
	int ok;

	PQsetNoticeProcessor(l->conn, quiet, NULL);
	PQclear(PQexec(l->conn, "SET application_name = 'rlyeh limits'"));
	r = PQexec(l->conn, setup_sql);
	/* PQexec returns the last result; a failure earlier stops the batch */
	ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
	PQclear(r);
	if (!ok) {
		/* dropped, so that the next call sets it up again */
		set_err(l, "cannot set up the shared limits");
		PQfinish(l->conn);
		l->conn = NULL;
		return -1;
	}
	return 0;
}

static int connect_db(struct limits *l)
{
	if (l->conn && PQstatus(l->conn) == CONNECTION_OK)
		return 0;
	if (l->conn)
		PQfinish(l->conn);
	l->conn = PQconnectdb(l->uri);
	if (!l->conn || PQstatus(l->conn) != CONNECTION_OK) {
		set_err(l, "cannot connect");
		return -1;
	}
	return setup(l);
}

struct limits *limits_open(const char *uri, const char *name, char *err, size_t errlen)
{
	struct limits *l = calloc(1, sizeof(*l));
	struct timespec ts;
	char host[64] = "";

	if (!l) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (strlen(uri) >= sizeof(l->uri)) {
		snprintf(err, errlen, "the database URI is longer than %zu bytes",
		         sizeof(l->uri) - 1);
		free(l);
		return NULL;
	}
	text_copy(l->uri, sizeof(l->uri), uri);
	gethostname(host, sizeof(host) - 1);
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(l->key, sizeof(l->key), "%.40s %.60s/%ld/%lld.%09ld", name ? name : "rlyeh", host,
	         (long)getpid(), (long long)ts.tv_sec, (long)ts.tv_nsec);
	if (connect_db(l)) {
		snprintf(err, errlen, "%s", l->err);
		limits_close(l);
		return NULL;
	}
	return l;
}

void limits_close(struct limits *l)
{
	if (!l)
		return;
	if (l->conn && PQstatus(l->conn) == CONNECTION_OK) {
		const char *v[1] = { l->key };
		PQclear(PQexecParams(l->conn, "DELETE FROM rlyeh_process WHERE id = $1", 1, NULL, v,
		                     NULL, NULL, 0));
	}
	if (l->conn)
		PQfinish(l->conn);
	free(l);
}

/* Runs sql with up to 2 parameters; the result (tuples expected), or NULL
 * with err set and the connection dropped when it is gone. */
static PGresult *query(struct limits *l, const char *sql, int n, const char *const *v,
                       const char *what)
{
	PGresult *r;

	if (connect_db(l))
		return NULL;
	r = PQexecParams(l->conn, sql, n, NULL, v, NULL, NULL, 0);
	if (r && PQresultStatus(r) == PGRES_TUPLES_OK)
		return r;
	set_err(l, what);
	PQclear(r);
	if (PQstatus(l->conn) != CONNECTION_OK) {
		PQfinish(l->conn);
		l->conn = NULL;
	}
	return NULL;
}

int limits_beat(struct limits *l, int *live)
{
	char dead[24];
	const char *v[2] = { l->key, dead };
	PGresult *r;

	snprintf(dead, sizeof(dead), "%d", LIMITS_DEAD_MS);
	r = query(l, beat_sql, 2, v, "cannot beat");
	if (!r)
		return -1;
	if (PQntuples(r) == 1)
		*live = (int)strtol(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return 0;
}

int limits_global_429(struct limits *l, long retry_after_ms)
{
	char ms[24];
	const char *v[1] = { ms };
	PGresult *r;

	snprintf(ms, sizeof(ms), "%ld", retry_after_ms < 0 ? 0 : retry_after_ms);
	r = query(l, "SELECT pg_notify('rlyeh_global_429', $1)", 1, v, "cannot announce a 429");
	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

long limits_poll(struct limits *l, int *joined)
{
	PGnotify *n;
	long longest = 0;
	int self;

	if (!l->conn || PQstatus(l->conn) != CONNECTION_OK)
		return -1;
	if (!PQconsumeInput(l->conn)) {
		set_err(l, "connection lost");
		return -1;
	}
	self = PQbackendPID(l->conn);
	while ((n = PQnotifies(l->conn))) {
		if (n->be_pid != self && joined && strcmp(n->relname, "rlyeh_joined") == 0)
			*joined = 1;
		if (n->be_pid != self && strcmp(n->relname, "rlyeh_global_429") == 0) {
			char *end;
			long ms = strtol(n->extra, &end, 10);
			if (end != n->extra && *end == '\0' && ms > longest)
				longest = ms > 600000 ? 600000 : ms;
		}
		PQfreemem(n);
	}
	return longest;
}

int limits_identify(struct limits *l, int bucket, long gap_ms, long *wait_ms)
{
	char b[24], g[24];
	const char *v[2] = { b, g };
	PGresult *r;
	int got;

	snprintf(b, sizeof(b), "%d", bucket);
	snprintf(g, sizeof(g), "%ld", gap_ms);
	r = query(l, take_sql, 2, v, "cannot take an identify turn");
	if (!r)
		return -1;
	got = PQntuples(r) == 1;
	PQclear(r);
	if (got) {
		if (wait_ms)
			*wait_ms = 0;
		return 1;
	}
	r = query(l, wait_sql, 2, v, "cannot read an identify turn");
	if (!r)
		return -1;
	if (wait_ms)
		*wait_ms = PQntuples(r) == 1 ? strtol(PQgetvalue(r, 0, 0), NULL, 10) : gap_ms;
	PQclear(r);
	return 0;
}

const char *limits_errmsg(const struct limits *l)
{
	return l->err;
}
