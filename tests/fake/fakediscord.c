/*
 * fakediscord: a fake Discord for tests. Serves the gateway (websocket) and the HTTP API on one
 * port bound to 127.0.0.1, records everything it sees, and injects faults on request through
 * control endpoints under /_fake/.
 *
 * Sharding: a guild's events (GUILD_CREATE after READY, INTERACTION_CREATE) go to the session of
 * its shard, (guild_id >> 22) % num_shards; an unsharded session gets them all. IDENTIFY with a
 * bad shard is closed with 4010; a session that would hold more than --guilds-per-shard guilds
 * (default 2500) with 4011. Session starts: one per 5 s per rate-limit bucket
 * (shard_id % --max-concurrency, default 1); a faster one is a violation, and with
 * --strict-starts 1 is refused (op 9). GET /gateway/bot answers shards (ceil(guilds /
 * guilds-per-shard)) and session_start_limit with that max_concurrency.
 *
 * Gateway: HELLO, IDENTIFY -> READY (v, user, guilds: the guilds seen in dispatches as
 * unavailable guilds, session_id, resume_gateway_url, shard when IDENTIFY gave one,
 * application {id, flags}), heartbeats, RESUME with replay, zlib-stream, close codes.
 * Dispatches are what Discord sends: an INTERACTION_CREATE (posted by a test, or made by the
 * load generator) gets every field of the Interaction object that it lacks (what it gives stays):
 * application_id, version 1, guild {id, locale, features} and guild_locale, a partial channel, the
 * member completed (user object, roles, joined_at, deaf, mute, flags, pending, permissions,
 * nick, avatar...) or in a DM (no guild_id) the user, a component's message as the fake stores
 * it, app_permissions, locale, entitlements [], authorizing_integration_owners {"0": guild id},
 * context (0 guild, 1 DM), attachment_size_limit. The users seen so are remembered for mentions.
 *
 * HTTP API (/api/v10): every route wants "Authorization: Bot <token>" except those an
 * interaction's token authorizes (POST /interactions/{id}/{token}/callback and
 * /webhooks/{app}/{token}[/messages/{id|@original}]), which take it or nothing; a wrong token is
 * a 401 everywhere. Requests are checked against Discord's rules (a violation each, 400 as
 * Discord would answer). The callback answers 204, or with ?with_response=true 200 and an
 * InteractionCallbackResponse: {"interaction": {id, type, response_message_id,
 * response_message_loading, response_message_ephemeral}, "resource": {"type", "message"}} (the
 * message for types 4 and 7; type 5 has no message yet, other types no resource). Messages are
 * created by type 4 callbacks, followups and channel POSTs; edits (PATCH, type 7) change only the
 * fields they give ("components": [] removes the buttons and keeps content, embeds and files).
 * A created message's mentions, mention_roles and mention_everyone come from its content
 * (<@id>, <@!id>, <@&id>, @everyone, @here) and its allowed_mentions; an edit keeps them and
 * notifies no one (but a deferred response's first edit, which is its real message, does).
 * Files: multipart/form-data (see "Files" below).
 *
 * Control endpoints (no Authorization):
 *   GET  /_fake/log?since=N     {"next", "entries"}: the log from entry N. Entries have "n" and
 *                               "kind": http (method, path, query, headers with the token
 *                               redacted, body, files, status; a request that creates or edits
 *                               a message also "pinged": the user ids it notified,
 *                               "pinged_roles", "pinged_everyone"), http_fault, gw_open, gw_in,
 *                               gw_out, gw_close, violation ("what").
 *   GET  /_fake/state           sessions, connected, identifies, resumes, seq, violations...
 *                               and "global": {"requests", "peak_per_s", "peak_at_ms", "now_ms",
 *                               "fault_429_at_ms"}: the requests under the global rate limit
 *                               (every /api/v10 request but /interactions/... and
 *                               /webhooks/..., from every client together), the most seen
 *                               within one second (sliding, by arrival; saturates at
 *                               GLOBAL_MAX) and when, the time now and of the last global 429
 *                               fault answered (ms on the fake's monotonic clock; 0: none).
 *   POST /_fake/global_reset    peak counts from the last second on (requests keep counting).
 *   GET  /_fake/message?id=ID   a stored message and its files' bytes described.
 *   POST /_fake/dispatch        {"t", "d"}: a dispatch on the session of d's guild ({"s"}).
 *   POST /_fake/guilds          {"ids": [...]}: guilds the bot is in.
 *   POST /_fake/fault           a gateway or HTTP fault (ctl_fault); with "shard": i, only
 *                               on that shard's connection; with "hello_delay_ms": N, the
 *                               connections made in the next N ms get HELLO only then.
 *   POST /_fake/load, GET /_fake/load   the load generator (its section below).
 *   POST /_fake/shutdown        exits once answered.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <libwebsockets.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define MAX_FRAME_IN 4096       /* gateway payload limit (close 4002 above) */
#define MAX_BODY     (8u << 20) /* HTTP request body limit (413 above) */
/* multipart/form-data: Discord's "maximum request size when sending a message is 25 MiB" */
#define MAX_FORM_BODY (25u << 20)
/* One file: "The file upload size limit applies to each file in a request"; the reference gives
 * a default of 20 MiB today, 10 MiB before: the fake holds the bot to the lower. */
#define MAX_FILE_BYTES (10u << 20)
#define MAX_FILES      10   /* files[n] parts, and attachments of a message */
#define MAX_FORM_PARTS 32   /* parts of one form (more: 400) */
#define MAX_PART_HEAD  8192 /* bytes of one part's headers */
#define MAX_FILENAME   1024 /* bytes of a filename (the attachment request's maxLength) */
#define MAX_PATH       1024
#define MAX_QUERY      1024
#ifndef LOG_MAX_ENTRIES
#define LOG_MAX_ENTRIES 200000
#endif
#ifndef LOG_MAX_BYTES
#define LOG_MAX_BYTES ((size_t)256 << 20)
#endif
#define MAX_EVENTS     100000 /* dispatches kept per session for RESUME */
#define RATE_FRAMES    120
#define RATE_WINDOW_US (60 * LWS_US_PER_SEC)
#define OUT_MAX_ITEMS  20000
#define OUT_MAX_BYTES  ((size_t)64 << 20)
#define FRAGMENT       65536
#define TICK_US        (100 * LWS_US_PER_MS)

/* ---------------------------------------------------------------------------------------- */
/* Small helpers */

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_add(struct buf *b, const void *data, size_t n, size_t limit)
{
	if (!n && b->p)
		return 0;
	if (b->len + n > limit)
		return -1;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static int buf_str(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s), SIZE_MAX / 2);
}

static void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * LWS_US_PER_SEC + ts.tv_nsec / 1000;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);
	if (!p) {
		fprintf(stderr, "fakediscord: out of memory\n");
		exit(2);
	}
	return p;
}

/* arr (n elements of size, room for *cap) with room for one more: the same
 * or a reallocated array twice as large (64 at first); exits when memory is
 * out. */
static void *room_for_one(void *arr, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return arr;
	size_t more = *cap ? *cap * 2 : 64;
	void *p = realloc(arr, more * size);
	if (!p) {
		fprintf(stderr, "fakediscord: out of memory\n");
		exit(2);
	}
	*cap = more;
	return p;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = xcalloc(1, n);
	memcpy(p, s, n);
	return p;
}

static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Length of the valid UTF-8 sequence at s (NUL excluded), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t left)
{
	unsigned char c = s[0];
	size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
	if (!n || n > left || !c)
		return 0;
	for (size_t k = 1; k < n; k++)
		if ((s[k] & 0xc0) != 0x80)
			return 0;
	if (n == 2 && c < 0xc2)
		return 0;
	if (n == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0)))
		return 0;
	if (n == 4 && (c > 0xf4 || (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90)))
		return 0;
	return n;
}

static int utf8_valid(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0, n; i < len; i += n)
		if (!(n = utf8_seq(u + i, len - i)))
			return 0;
	return 1;
}

/* Replaces invalid UTF-8 with U+FFFD so that the text can go into JSON. */
static char *utf8_clean(const char *s, size_t len)
{
	struct buf b = { 0 };
	const unsigned char *u = (const unsigned char *)s;
	buf_add(&b, "", 0, SIZE_MAX);
	for (size_t i = 0; i < len;) {
		size_t n = utf8_seq(u + i, len - i);
		if (n) {
			buf_add(&b, s + i, n, SIZE_MAX);
			i += n;
		} else {
			buf_add(&b, "\xef\xbf\xbd", 3, SIZE_MAX);
			i++;
		}
	}
	return b.p;
}

/* Replaces each byte of invalid UTF-8 with '?' in place (for headers and paths we log). */
static void utf8_fix(char *s)
{
	size_t len = strlen(s);
	for (size_t i = 0; i < len;) {
		size_t n = utf8_seq((const unsigned char *)s + i, len - i);
		if (n) {
			i += n;
		} else {
			s[i++] = '?';
		}
	}
}

/* Number of code points in a UTF-8 string. */
static size_t utf8_len(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/* ---------------------------------------------------------------------------------------- */
/* State */

struct qitem {
	struct qitem *next;
	int kind; /* Q_FRAME, Q_CLOSE, Q_ABRUPT */
	int binary;
	int code;
	unsigned char *data; /* LWS_PRE bytes of headroom, then the payload */
	size_t len, off;
	uint32_t load;     /* a load generator dispatch: its channel + 1, or 0 */
	uint64_t load_iid; /* and its interaction */
};

enum { Q_FRAME, Q_CLOSE, Q_ABRUPT };

struct session;

struct conn {
	struct conn *next;
	struct lws *wsi;
	int id;
	struct session *sess;
	int authed;
	int closing;
	int close_logged;
	char path[256];
	char query[512];
	int zlib;
	z_stream zs;
	struct qitem *qhead, *qtail;
	size_t qcount, qbytes;
	struct buf rx;
	int rx_bad;
	int64_t frames[RATE_FRAMES];
	int nframes, frame_head;
	int64_t last_beat;
	int64_t beat_request_due;
	int64_t hello_due; /* HELLO held back until then; 0 when sent */
};

struct event {
	int64_t s;
	char *json;
	size_t len;
	char iid[32]; /* interaction id carried, if any */
};

struct session {
	struct session *next;
	char id[33];
	int64_t seq;
	struct event *ev;
	size_t nev, cap;
	struct conn *conn;
	int valid;
	int dropped; /* the oldest dispatches were dropped */
	char why_invalid[64];
	int shard[2];    /* [shard_id, num_shards] from IDENTIFY; num_shards 0 without */
	uint64_t active; /* F.active_clock when last identified or resumed */
};

/* An HTTP fault: answer the next count requests under prefix with status, or late. */
struct hfault {
	int status;
	double retry_after;
	int global;
	int count;
	int delay_ms;
	char prefix[256];
};

#define MAX_HFAULTS 64

struct entry {
	char *json;
	size_t len;
	int has_body;
};

static struct {
	int port;
	const char *portfile;
	const char *token;
	char app_id[32];
	int heartbeat_ms;

	struct lws_context *ctx;
	volatile sig_atomic_t stop;
	lws_sorted_usec_list_t tick;
	lws_sorted_usec_list_t stop_sul;

	/* log */
	struct entry *ring;
	size_t head, count, bytes, body_cursor;
	uint64_t first_n;

	/* gateway */
	struct conn *conns;
	int next_conn;
	struct session *sessions;
	struct session *current;
	int nsessions;
	int identifies, resumes, heartbeats, violations, acks_withheld;
	int violations_unprinted;
	int withhold_acks;
	int remaining_starts;
	int64_t starts_reset_at; /* when remaining_starts is 0: when it is 1000 again (us) */
	int64_t last_identify;
	/* Sharding: guilds per shard before 4011, session starts per 5 s (one per rate-limit
	 * bucket shard_id % max_concurrency), and whether a start too soon is refused. */
	int guilds_per_shard;
	int max_concurrency;
	int strict_starts;
	int64_t bucket_last[64]; /* per bucket: the last IDENTIFY (us), 0 none */
	uint64_t active_clock;
	int64_t hello_hold_until; /* new connections get HELLO no sooner */

	struct hfault hfaults[MAX_HFAULTS];
	int nhfaults;
} F;

/* The load generator (below) watches tables and quiets the log while it runs. */
static int load_quiet(void);
static void load_table(const char *channel, const char *mid, const cJSON *body);
static void load_written(uint32_t load, uint64_t iid);

/* ---------------------------------------------------------------------------------------- */
/* Log */

static cJSON *entry_new(const char *kind)
{
	cJSON *e = cJSON_CreateObject();
	cJSON_AddNumberToObject(e, "n", (double)(F.first_n + F.count));
	cJSON_AddStringToObject(e, "kind", kind);
	return e;
}

static struct entry *entry_at(size_t i)
{
	return &F.ring[(F.head + i) % LOG_MAX_ENTRIES];
}

/* Keeps the log under LOG_MAX_BYTES by dropping the bodies of the oldest entries. */
static void log_trim_bodies(void)
{
	while (F.bytes > LOG_MAX_BYTES && F.body_cursor < F.count) {
		struct entry *en = entry_at(F.body_cursor++);
		if (!en->has_body)
			continue;
		cJSON *e = cJSON_ParseWithLength(en->json, en->len);
		if (!e)
			continue;
		cJSON_ReplaceItemInObject(e, "body", cJSON_CreateNull());
		cJSON_AddTrueToObject(e, "body_dropped");
		char *s = cJSON_PrintUnformatted(e);
		cJSON_Delete(e);
		if (!s)
			continue;
		F.bytes -= en->len;
		free(en->json);
		en->json = s;
		en->len = strlen(s);
		en->has_body = 0;
		F.bytes += en->len;
	}
}

static void log_commit(cJSON *e)
{
	char *s = cJSON_PrintUnformatted(e);
	int has_body = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "body"));
	cJSON_Delete(e);
	if (!s)
		return;
	if (F.count == LOG_MAX_ENTRIES) {
		struct entry *old = entry_at(0);
		F.bytes -= old->len;
		free(old->json);
		old->json = NULL;
		F.head = (F.head + 1) % LOG_MAX_ENTRIES;
		F.count--;
		F.first_n++;
		if (F.body_cursor)
			F.body_cursor--;
	}
	struct entry *en = entry_at(F.count++);
	en->json = s;
	en->len = strlen(s);
	en->has_body = has_body;
	F.bytes += en->len;
	if (F.bytes > LOG_MAX_BYTES)
		log_trim_bodies();
}

__attribute__((format(printf, 2, 3))) static void violation(int conn, const char *fmt, ...)
{
	char what[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	F.violations++;
	if (load_quiet())
		F.violations_unprinted++;
	else
		fprintf(stderr, "fakediscord: violation: %s\n", what);
	char *clean = utf8_clean(what, strlen(what));
	cJSON *e = entry_new("violation");
	cJSON_AddStringToObject(e, "what", clean);
	if (conn)
		cJSON_AddNumberToObject(e, "conn", conn);
	free(clean);
	log_commit(e);
}

static char *log_since(uint64_t since)
{
	struct buf b = { 0 };
	char head[64];
	snprintf(head, sizeof head, "{\"next\":%llu,\"entries\":[",
	         (unsigned long long)(F.first_n + F.count));
	buf_str(&b, head);
	size_t i = since > F.first_n ? (size_t)(since - F.first_n) : 0;
	for (int first = 1; i < F.count; i++, first = 0) {
		if (!first)
			buf_str(&b, ",");
		struct entry *en = entry_at(i);
		buf_add(&b, en->json, en->len, SIZE_MAX / 2);
	}
	buf_str(&b, "]}");
	return b.p;
}

/* ---------------------------------------------------------------------------------------- */
/* Records: interactions, messages, commands */

#define MAX_INTERACTIONS 100000
#define MAX_MESSAGES     50000
#define DEAD_PER_MESSAGE 4 /* bodies of dropped messages freed with each new one */
#define MAX_CMDSETS      256

struct interaction {
	char *id;
	char *token;
	char channel[32];
	char message[32]; /* the clicked message, for components */
	int type;
	int acked;
	int ack_type;
	char original[32]; /* the message the callback made or updated */
	int64_t dispatched;
	int64_t delivered;
	uint32_t load; /* the load generator's channel + 1, or 0 */
};

/* A file on a message, as uploaded. */
struct attachment {
	char id[32];
	char *filename;
	char content_type[128];
	size_t size;
	char sha1[41];     /* hex, of the bytes */
	int width, height; /* a PNG's (from its IHDR chunk); 0 otherwise */
};

struct message {
	char id[32];
	char channel[32];
	char *owner; /* interaction token for followups and originals */
	cJSON *obj;
	struct attachment *att; /* the message's files, all of them */
	int natt;
	int loading; /* a deferred response (callback type 5) not edited yet */
};

struct cmdset {
	char key[192];
	cJSON *list;
};

/* An open-addressing index of record positions by a string key (-1: empty slot). */
struct index {
	int32_t *slot;
	size_t cap; /* a power of two, at least twice the records it indexes */
};

static struct {
	struct interaction *in;
	size_t nin, capin;
	struct message *msg;
	size_t nmsg, capmsg;
	struct cmdset sets[MAX_CMDSETS];
	size_t nsets;
	uint64_t next_id;
	struct index by_id, by_token, msg_by_id;
	cJSON **dead; /* bodies of the messages let go of, freed a few at a time */
	size_t ndead, capdead;
} R;

static uint64_t fnv1a(const char *s, uint64_t h)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static const char *key_in_id(size_t i)
{
	return R.in[i].id;
}

static const char *key_in_token(size_t i)
{
	return R.in[i].token;
}

static const char *key_msg_id(size_t i)
{
	return R.msg[i].id;
}

/* Position of the record with this key, or -1. */
static long index_find(const struct index *x, const char *(*key)(size_t), const char *k)
{
	if (!x->cap)
		return -1;
	for (size_t h = fnv1a(k, 14695981039346656037ull) & (x->cap - 1);;
	     h = (h + 1) & (x->cap - 1)) {
		int32_t at = x->slot[h];
		if (at < 0)
			return -1;
		if (!strcmp(key((size_t)at), k))
			return at;
	}
}

/* Indexes record i; a record with the same key is replaced (the newest wins). */
static void index_put(struct index *x, const char *(*key)(size_t), size_t i, size_t max)
{
	if (!x->cap) {
		x->cap = 1024;
		while (x->cap < 2 * max)
			x->cap *= 2;
		x->slot = xcalloc(x->cap, sizeof *x->slot);
		memset(x->slot, 0xff, x->cap * sizeof *x->slot);
	}
	const char *k = key(i);
	for (size_t h = fnv1a(k, 14695981039346656037ull) & (x->cap - 1);;
	     h = (h + 1) & (x->cap - 1)) {
		int32_t at = x->slot[h];
		if (at < 0 || !strcmp(key((size_t)at), k)) {
			x->slot[h] = (int32_t)i;
			return;
		}
	}
}

/* Rebuilds an index after its records moved. */
static void index_rebuild(struct index *x, const char *(*key)(size_t), size_t n, size_t max)
{
	if (x->cap)
		memset(x->slot, 0xff, x->cap * sizeof *x->slot);
	for (size_t i = 0; i < n; i++)
		index_put(x, key, i, max);
}

static void index_free(struct index *x)
{
	free(x->slot);
	x->slot = NULL;
	x->cap = 0;
}

static void new_snowflake(char *out, size_t size)
{
	/* Discord epoch milliseconds << 22, plus a counter: increasing, unique, realistic. */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t ms =
	    (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 - 1420070400000ull;
	uint64_t id = ms << 22;
	if (id <= R.next_id)
		id = R.next_id + 1;
	R.next_id = id;
	snprintf(out, size, "%llu", (unsigned long long)id);
}

static struct interaction *interaction_find(const char *id)
{
	long i = index_find(&R.by_id, key_in_id, id);
	return i < 0 ? NULL : &R.in[i];
}

static struct interaction *interaction_by_token(const char *token)
{
	long i = index_find(&R.by_token, key_in_token, token);
	return i < 0 ? NULL : &R.in[i];
}

static void interaction_free(struct interaction *it)
{
	free(it->id);
	free(it->token);
}

static struct interaction *interaction_add(const char *id, const char *token)
{
	if (R.nin == MAX_INTERACTIONS) {
		size_t drop = MAX_INTERACTIONS / 2;
		for (size_t i = 0; i < drop; i++)
			interaction_free(&R.in[i]);
		memmove(R.in, R.in + drop, (R.nin - drop) * sizeof *R.in);
		R.nin -= drop;
		index_rebuild(&R.by_id, key_in_id, R.nin, MAX_INTERACTIONS);
		index_rebuild(&R.by_token, key_in_token, R.nin, MAX_INTERACTIONS);
	}
	R.in = room_for_one(R.in, &R.capin, R.nin, sizeof *R.in);
	struct interaction *it = &R.in[R.nin++];
	memset(it, 0, sizeof *it);
	it->id = xstrdup(id);
	it->token = xstrdup(token);
	index_put(&R.by_id, key_in_id, R.nin - 1, MAX_INTERACTIONS);
	index_put(&R.by_token, key_in_token, R.nin - 1, MAX_INTERACTIONS);
	return it;
}

static struct message *message_find(const char *id)
{
	long i = index_find(&R.msg_by_id, key_msg_id, id);
	return i < 0 ? NULL : &R.msg[i];
}

static void attachments_free(struct attachment *a, int n)
{
	for (int i = 0; i < n; i++)
		free(a[i].filename);
	free(a);
}

static void message_free(struct message *m)
{
	free(m->owner);
	cJSON_Delete(m->obj);
	attachments_free(m->att, m->natt);
}

static void message_remove(struct message *m)
{
	size_t i = (size_t)(m - R.msg);
	message_free(m);
	memmove(R.msg + i, R.msg + i + 1, (R.nmsg - i - 1) * sizeof *R.msg);
	R.nmsg--;
	index_rebuild(&R.msg_by_id, key_msg_id, R.nmsg, MAX_MESSAGES);
}

static void iso_now(char *out, size_t size)
{
	static time_t last;
	static char secs[32];
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (ts.tv_sec != last || !secs[0]) {
		struct tm tm;
		gmtime_r(&ts.tv_sec, &tm);
		strftime(secs, sizeof secs, "%Y-%m-%dT%H:%M:%S", &tm);
		last = ts.tv_sec;
	}
	snprintf(out, size, "%s.%06ld+00:00", secs, ts.tv_nsec / 1000);
}

/* The fields a message takes from a request; its attachments are set apart (attachments_apply). */
static const char *const message_fields[] = { "content", "embeds",     "components",
	                                      "flags",   "tts",        "allowed_mentions",
	                                      "poll",    "sticker_ids" };

/* Copies the message fields of body into obj. */
static void message_apply(cJSON *obj, const cJSON *body)
{
	for (size_t i = 0; i < sizeof message_fields / sizeof message_fields[0]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(body, message_fields[i]);
		if (!v)
			continue;
		cJSON *copy = cJSON_IsNull(v) ? NULL : cJSON_Duplicate(v, 1);
		if (!strcmp(message_fields[i], "allowed_mentions") ||
		    !strcmp(message_fields[i], "sticker_ids") ||
		    !strcmp(message_fields[i], "tts")) {
			cJSON_Delete(copy);
			continue;
		}
		if (!copy) {
			const char *f = message_fields[i];
			copy = !strcmp(f, "content") ? cJSON_CreateString("")
			       : !strcmp(f, "flags") ? cJSON_CreateNumber(0)
			                             : cJSON_CreateArray();
		}
		if (cJSON_GetObjectItemCaseSensitive(obj, message_fields[i]))
			cJSON_ReplaceItemInObjectCaseSensitive(obj, message_fields[i], copy);
		else
			cJSON_AddItemToObject(obj, message_fields[i], copy);
	}
}

/* Stores a message; body may be NULL for a message only known by id. */
static struct message *message_add(const char *id, const char *channel, const char *owner,
                                   const cJSON *body, int webhook)
{
	/* Freeing 25,000 bodies at once took the fake some 250 ms, every
	 * answer of the bot in flight meanwhile reported as that much slower:
	 * they go a few with each new message instead. */
	for (int k = 0; k < DEAD_PER_MESSAGE && R.ndead; k++)
		cJSON_Delete(R.dead[--R.ndead]);
	if (R.nmsg == MAX_MESSAGES) {
		size_t drop = MAX_MESSAGES / 2;
		if (R.ndead + drop > R.capdead) {
			size_t cap = R.ndead + drop;
			cJSON **n = realloc(R.dead, cap * sizeof *n);
			if (!n) {
				fprintf(stderr, "fakediscord: out of memory\n");
				exit(2);
			}
			R.dead = n;
			R.capdead = cap;
		}
		for (size_t i = 0; i < drop; i++) {
			R.dead[R.ndead++] = R.msg[i].obj;
			R.msg[i].obj = NULL;
			message_free(&R.msg[i]);
		}
		memmove(R.msg, R.msg + drop, (R.nmsg - drop) * sizeof *R.msg);
		R.nmsg -= drop;
		index_rebuild(&R.msg_by_id, key_msg_id, R.nmsg, MAX_MESSAGES);
	}
	R.msg = room_for_one(R.msg, &R.capmsg, R.nmsg, sizeof *R.msg);
	struct message *m = &R.msg[R.nmsg++];
	memset(m, 0, sizeof *m);
	copy_str(m->id, sizeof m->id, id);
	copy_str(m->channel, sizeof m->channel, channel);
	index_put(&R.msg_by_id, key_msg_id, R.nmsg - 1, MAX_MESSAGES);
	m->owner = owner ? xstrdup(owner) : NULL;
	char ts[64];
	iso_now(ts, sizeof ts);
	cJSON *o = m->obj = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddNumberToObject(o, "type", 0);
	cJSON_AddStringToObject(o, "channel_id", channel);
	cJSON *author = cJSON_AddObjectToObject(o, "author");
	cJSON_AddStringToObject(author, "id", F.app_id);
	cJSON_AddStringToObject(author, "username", "rlyeh");
	cJSON_AddStringToObject(author, "discriminator", "0");
	cJSON_AddBoolToObject(author, "bot", 1);
	cJSON_AddStringToObject(o, "content", "");
	cJSON_AddArrayToObject(o, "embeds");
	cJSON_AddArrayToObject(o, "components");
	cJSON_AddArrayToObject(o, "attachments");
	cJSON_AddArrayToObject(o, "mentions");
	cJSON_AddArrayToObject(o, "mention_roles");
	cJSON_AddFalseToObject(o, "tts");
	cJSON_AddFalseToObject(o, "mention_everyone");
	cJSON_AddFalseToObject(o, "pinned");
	cJSON_AddStringToObject(o, "timestamp", ts);
	cJSON_AddNullToObject(o, "edited_timestamp");
	cJSON_AddNumberToObject(o, "flags", 0);
	if (webhook) {
		cJSON_AddStringToObject(o, "webhook_id", F.app_id);
		cJSON_AddStringToObject(o, "application_id", F.app_id);
	}
	if (body) {
		message_apply(o, body);
		load_table(channel, id, o);
	}
	return m;
}

static void message_edit(struct message *m, const cJSON *body)
{
	char ts[64];
	iso_now(ts, sizeof ts);
	message_apply(m->obj, body);
	cJSON_ReplaceItemInObjectCaseSensitive(m->obj, "edited_timestamp", cJSON_CreateString(ts));
	load_table(m->channel, m->id, m->obj);
}

/* Remembers a message that the fake never saw created (a clicked message). */
static void message_known(const char *id, const char *channel)
{
	if (!message_find(id))
		message_add(id, channel, NULL, NULL, 0);
}

/* ---------------------------------------------------------------------------------------- */
/* Users and guilds seen in dispatches; interactions completed as Discord sends them */

#define MAX_USERS  100000
#define MAX_GUILDS 1024
#define ID_LEN     24 /* a snowflake's digits and the NUL, with room to spare */
/* What the fake lets members and itself do in a channel: VIEW_CHANNEL, SEND_MESSAGES,
 * EMBED_LINKS, ATTACH_FILES, READ_MESSAGE_HISTORY, USE_EXTERNAL_EMOJIS,
 * USE_APPLICATION_COMMANDS; members also CREATE_INSTANT_INVITE and ADD_REACTIONS (neither
 * ADMINISTRATOR nor MANAGE_CHANNELS: a test gives those itself). */
#define APP_PERMISSIONS    "2147863552"
#define MEMBER_PERMISSIONS "2147863617"
#define MEMBER_JOINED_AT   "2025-01-01T00:00:00.000000+00:00"

struct kuser {
	char id[ID_LEN];
	cJSON *obj;
};

static struct {
	struct kuser *u;
	size_t n;
	struct index by_id;
	char guild[MAX_GUILDS][ID_LEN];
	int nguilds;
} U;

static const char *key_user(size_t i)
{
	return U.u[i].id;
}

static const cJSON *user_known(const char *id)
{
	long i = index_find(&U.by_id, key_user, id);
	return i < 0 ? NULL : U.u[i].obj;
}

/* Remembers a user object (the newest one of an id wins); forgets them all when full. */
static void user_remember(const cJSON *user)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(user, "id");
	if (!cJSON_IsString(id) || strlen(id->valuestring) >= ID_LEN)
		return;
	long at = index_find(&U.by_id, key_user, id->valuestring);
	if (at >= 0 && cJSON_Compare(U.u[at].obj, user, 1))
		return;
	if (at >= 0) {
		cJSON_Delete(U.u[at].obj);
		U.u[at].obj = cJSON_Duplicate(user, 1);
		return;
	}
	if (!U.u)
		U.u = xcalloc(MAX_USERS, sizeof *U.u);
	if (U.n == MAX_USERS) {
		for (size_t i = 0; i < U.n; i++)
			cJSON_Delete(U.u[i].obj);
		U.n = 0;
		index_rebuild(&U.by_id, key_user, 0, MAX_USERS);
	}
	struct kuser *k = &U.u[U.n++];
	copy_str(k->id, sizeof k->id, id->valuestring);
	k->obj = cJSON_Duplicate(user, 1);
	index_put(&U.by_id, key_user, U.n - 1, MAX_USERS);
}

/* Remembers a guild id for READY (the oldest forgotten past MAX_GUILDS). */
static void guild_remember(const char *id)
{
	if (strlen(id) >= ID_LEN)
		return;
	for (int i = 0; i < U.nguilds; i++)
		if (!strcmp(U.guild[i], id))
			return;
	if (U.nguilds == MAX_GUILDS) {
		memmove(U.guild[0], U.guild[1], (MAX_GUILDS - 1) * sizeof U.guild[0]);
		U.nguilds--;
	}
	copy_str(U.guild[U.nguilds++], ID_LEN, id);
}

/* The shard a guild's events go to: (guild_id >> 22) % count (a DM: shard 0). */
static int guild_shard(const char *gid, int count)
{
	unsigned long long id = gid ? strtoull(gid, NULL, 10) : 0;
	return count > 0 ? (int)((id >> 22) % (unsigned long long)count) : 0;
}

/* Guilds of the bot that shard [id, count] receives (count 0: unsharded, all). */
static int guilds_on_shard(int id, int count)
{
	int n = 0;
	for (int i = 0; i < U.nguilds; i++)
		n += count < 1 || guild_shard(U.guild[i], count) == id;
	return n;
}

static void users_free(void)
{
	for (size_t i = 0; i < U.n; i++)
		cJSON_Delete(U.u[i].obj);
	free(U.u);
	U.u = NULL;
	U.n = 0;
	index_free(&U.by_id);
}

/* Adds o[key] = v unless o has the key already (v is then dropped). */
static void put(cJSON *o, const char *key, cJSON *v)
{
	if (cJSON_GetObjectItemCaseSensitive(o, key))
		cJSON_Delete(v);
	else
		cJSON_AddItemToObject(o, key, v);
}

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The fields of a user object (Discord's "User Structure") that u lacks. */
static void user_complete(cJSON *u)
{
	const char *id = str_of(u, "id");
	char name[ID_LEN + 8];
	if (!id)
		return;
	snprintf(name, sizeof name, "user%s", id);
	put(u, "username", cJSON_CreateString(name));
	put(u, "discriminator", cJSON_CreateString("0"));
	put(u, "global_name", cJSON_CreateNull());
	put(u, "avatar", cJSON_CreateNull());
	put(u, "public_flags", cJSON_CreateNumber(0));
	put(u, "flags", cJSON_CreateNumber(0));
	put(u, "avatar_decoration_data", cJSON_CreateNull());
	put(u, "collectibles", cJSON_CreateNull());
	put(u, "primary_guild", cJSON_CreateNull());
	user_remember(u);
}

/* The fields of a guild member object (with permissions, as in an interaction) m lacks. */
static void member_complete(cJSON *m)
{
	user_complete(cJSON_GetObjectItemCaseSensitive(m, "user"));
	put(m, "roles", cJSON_CreateArray());
	put(m, "joined_at", cJSON_CreateString(MEMBER_JOINED_AT));
	put(m, "deaf", cJSON_CreateFalse());
	put(m, "mute", cJSON_CreateFalse());
	put(m, "flags", cJSON_CreateNumber(0));
	put(m, "pending", cJSON_CreateFalse());
	put(m, "permissions", cJSON_CreateString(MEMBER_PERMISSIONS));
	put(m, "nick", cJSON_CreateNull());
	put(m, "avatar", cJSON_CreateNull());
	put(m, "banner", cJSON_CreateNull());
	put(m, "premium_since", cJSON_CreateNull());
	put(m, "communication_disabled_until", cJSON_CreateNull());
	put(m, "avatar_decoration_data", cJSON_CreateNull());
}

/* The partial channel object of an interaction in channel cid (of guild gid, or a DM with
 * user). */
static cJSON *channel_partial(const char *cid, const char *gid, const cJSON *user)
{
	cJSON *c = cJSON_CreateObject();
	char name[ID_LEN + 8];
	cJSON_AddStringToObject(c, "id", cid);
	cJSON_AddNumberToObject(c, "type", gid ? 0 : 1); /* GUILD_TEXT, DM */
	cJSON_AddNullToObject(c, "last_message_id");
	cJSON_AddNumberToObject(c, "flags", 0);
	if (!gid) {
		cJSON *r = cJSON_AddArrayToObject(c, "recipients");
		if (user)
			cJSON_AddItemToArray(r, cJSON_Duplicate(user, 1));
		return c;
	}
	snprintf(name, sizeof name, "table-%s", cid);
	cJSON_AddStringToObject(c, "guild_id", gid);
	cJSON_AddStringToObject(c, "name", name);
	cJSON_AddStringToObject(c, "permissions", MEMBER_PERMISSIONS);
	cJSON_AddNullToObject(c, "topic");
	cJSON_AddNullToObject(c, "parent_id");
	cJSON_AddNumberToObject(c, "position", 0);
	cJSON_AddFalseToObject(c, "nsfw");
	cJSON_AddNumberToObject(c, "rate_limit_per_user", 0);
	cJSON_AddNullToObject(c, "last_pin_timestamp");
	return c;
}

/* d["message"] (a component's message, maybe partial) becomes the message as the fake stores
 * it, with the fields d gave on top. */
static void interaction_message(cJSON *d, const char *channel)
{
	cJSON *given = cJSON_GetObjectItemCaseSensitive(d, "message");
	const char *id = str_of(given, "id"), *mch = str_of(given, "channel_id");
	if (!cJSON_IsObject(given) || !id || (!mch && !channel))
		return;
	message_known(id, mch ? mch : channel);
	const struct message *m = message_find(id);
	if (!m)
		return;
	cJSON *full = cJSON_Duplicate(m->obj, 1);
	const cJSON *f;
	cJSON_ArrayForEach(f, given)
	{
		if (cJSON_GetObjectItemCaseSensitive(full, f->string))
			cJSON_ReplaceItemInObjectCaseSensitive(full, f->string,
			                                       cJSON_Duplicate(f, 1));
		else
			cJSON_AddItemToObject(full, f->string, cJSON_Duplicate(f, 1));
	}
	cJSON_ReplaceItemInObjectCaseSensitive(d, "message", full);
}

/* Completes an INTERACTION_CREATE's d with every field of Discord's Interaction object that it
 * lacks (receiving-and-responding, "Interaction Structure"): in a guild (guild_id given) a
 * guild member, else a user (a DM with the bot). */
static void interaction_complete(cJSON *d)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(d, "type");
	const char *gid = str_of(d, "guild_id"), *cid = str_of(d, "channel_id");
	cJSON *member = cJSON_GetObjectItemCaseSensitive(d, "member");
	cJSON *user = cJSON_GetObjectItemCaseSensitive(d, "user");
	int ping = cJSON_IsNumber(type) && type->valueint == 1;
	if (!cJSON_IsObject(d))
		return;
	put(d, "application_id", cJSON_CreateString(F.app_id));
	put(d, "version", cJSON_CreateNumber(1));
	if (!cid && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(d, "channel")))
		cid = str_of(cJSON_GetObjectItemCaseSensitive(d, "channel"), "id");
	if (cid)
		put(d, "channel_id", cJSON_CreateString(cid));
	if (gid) {
		guild_remember(gid);
		cJSON *g = cJSON_CreateObject();
		cJSON_AddStringToObject(g, "id", gid);
		cJSON_AddStringToObject(
		    g, "locale", str_of(d, "guild_locale") ? str_of(d, "guild_locale") : "en-US");
		cJSON_AddArrayToObject(g, "features");
		put(d, "guild", g);
		if (cJSON_IsObject(member))
			member_complete(member);
		user = cJSON_GetObjectItemCaseSensitive(member, "user");
	} else if (cJSON_IsObject(user)) {
		user_complete(user);
	}
	if (cid)
		put(d, "channel", channel_partial(cid, gid, user));
	interaction_message(d, cid);
	put(d, "app_permissions", cJSON_CreateString(APP_PERMISSIONS));
	if (!ping)
		put(d, "locale", cJSON_CreateString("en-US"));
	if (gid)
		put(d, "guild_locale", cJSON_CreateString("en-US"));
	put(d, "entitlements", cJSON_CreateArray());
	cJSON *owners = cJSON_CreateObject();
	cJSON_AddStringToObject(owners, "0", gid ? gid : "0"); /* GUILD_INSTALL */
	put(d, "authorizing_integration_owners", owners);
	put(d, "context", cJSON_CreateNumber(gid ? 0 : 1)); /* GUILD, BOT_DM */
	put(d, "attachment_size_limit", cJSON_CreateNumber(MAX_FILE_BYTES));
}

static struct cmdset *cmdset_get(const char *key, int create)
{
	for (size_t i = 0; i < R.nsets; i++)
		if (!strcmp(R.sets[i].key, key))
			return &R.sets[i];
	if (!create)
		return NULL;
	if (R.nsets == MAX_CMDSETS) {
		cJSON_Delete(R.sets[0].list);
		memmove(R.sets, R.sets + 1, (R.nsets - 1) * sizeof R.sets[0]);
		R.nsets--;
	}
	struct cmdset *c = &R.sets[R.nsets++];
	copy_str(c->key, sizeof c->key, key);
	c->list = cJSON_CreateArray();
	return c;
}

static void records_free(void)
{
	for (size_t i = 0; i < R.nin; i++)
		interaction_free(&R.in[i]);
	free(R.in);
	for (size_t i = 0; i < R.nmsg; i++)
		message_free(&R.msg[i]);
	free(R.msg);
	while (R.ndead)
		cJSON_Delete(R.dead[--R.ndead]);
	free(R.dead);
	for (size_t i = 0; i < R.nsets; i++)
		cJSON_Delete(R.sets[i].list);
	index_free(&R.by_id);
	index_free(&R.by_token);
	index_free(&R.msg_by_id);
}

/* Called for every INTERACTION_CREATE the test dispatches. */
static void interaction_dispatched(const cJSON *d)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(d, "id");
	const cJSON *token = cJSON_GetObjectItemCaseSensitive(d, "token");
	if (!cJSON_IsString(id) || !cJSON_IsString(token))
		return;
	struct interaction *it = interaction_find(id->valuestring);
	if (it)
		return; /* a dispatch sent again: the first answer still counts */
	it = interaction_add(id->valuestring, token->valuestring);
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(d, "type");
	const cJSON *channel = cJSON_GetObjectItemCaseSensitive(d, "channel_id");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(d, "message");
	const cJSON *mid = cJSON_GetObjectItemCaseSensitive(msg, "id");
	const cJSON *mch = cJSON_GetObjectItemCaseSensitive(msg, "channel_id");
	it->type = cJSON_IsNumber(type) ? type->valueint : 0;
	it->dispatched = now_us();
	if (cJSON_IsString(channel))
		copy_str(it->channel, sizeof it->channel, channel->valuestring);
	if (cJSON_IsString(mid)) {
		copy_str(it->message, sizeof it->message, mid->valuestring);
		message_known(mid->valuestring,
		              cJSON_IsString(mch) ? mch->valuestring : it->channel);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Validation of what the bot sends */

struct problems {
	char text[1024];
	size_t len;
	int n;
};

__attribute__((format(printf, 2, 3))) static void problem(struct problems *p, const char *fmt, ...)
{
	p->n++;
	if (p->len + 4 >= sizeof p->text)
		return;
	if (p->len) {
		memcpy(p->text + p->len, "; ", 2);
		p->len += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(p->text + p->len, sizeof p->text - p->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		p->len +=
		    (size_t)n < sizeof p->text - p->len ? (size_t)n : sizeof p->text - p->len - 1;
}

/* Length check of an optional string field; returns its length or 0. */
static size_t check_str(struct problems *p, const cJSON *o, const char *what, const char *field,
                        size_t min, size_t max, int required)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, field);
	if (!v || cJSON_IsNull(v)) {
		if (required)
			problem(p, "%s.%s is missing", what, field);
		return 0;
	}
	if (!cJSON_IsString(v)) {
		problem(p, "%s.%s is not a string", what, field);
		return 0;
	}
	size_t n = utf8_len(v->valuestring);
	if (n < min || n > max)
		problem(p, "%s.%s has %zu characters (%zu to %zu allowed)", what, field, n, min,
		        max);
	return n;
}

static void check_embeds(struct problems *p, const cJSON *embeds)
{
	if (!cJSON_IsArray(embeds)) {
		problem(p, "embeds is not an array");
		return;
	}
	int n = cJSON_GetArraySize(embeds);
	if (n > 10)
		problem(p, "%d embeds (at most 10)", n);
	size_t total = 0;
	int i = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, embeds)
	{
		char what[32];
		snprintf(what, sizeof what, "embeds[%d]", i++);
		if (!cJSON_IsObject(e)) {
			problem(p, "%s is not an object", what);
			continue;
		}
		total += check_str(p, e, what, "title", 0, 256, 0);
		total += check_str(p, e, what, "description", 0, 4096, 0);
		const cJSON *footer = cJSON_GetObjectItemCaseSensitive(e, "footer");
		if (cJSON_IsObject(footer))
			total += check_str(p, footer, "embed footer", "text", 1, 2048, 1);
		const cJSON *author = cJSON_GetObjectItemCaseSensitive(e, "author");
		if (cJSON_IsObject(author))
			total += check_str(p, author, "embed author", "name", 1, 256, 1);
		const cJSON *color = cJSON_GetObjectItemCaseSensitive(e, "color");
		if (color && !cJSON_IsNull(color) &&
		    (!cJSON_IsNumber(color) || color->valuedouble < 0 ||
		     color->valuedouble > 0xffffff))
			problem(p, "%s.color is not a 24-bit integer", what);
		const cJSON *fields = cJSON_GetObjectItemCaseSensitive(e, "fields");
		if (!fields || cJSON_IsNull(fields))
			continue;
		if (!cJSON_IsArray(fields)) {
			problem(p, "%s.fields is not an array", what);
			continue;
		}
		if (cJSON_GetArraySize(fields) > 25)
			problem(p, "%s has %d fields (at most 25)", what,
			        cJSON_GetArraySize(fields));
		const cJSON *f;
		int k = 0;
		cJSON_ArrayForEach(f, fields)
		{
			char fw[96];
			snprintf(fw, sizeof fw, "%s.fields[%d]", what, k++);
			total += check_str(p, f, fw, "name", 1, 256, 1);
			total += check_str(p, f, fw, "value", 1, 1024, 1);
		}
	}
	if (total > 6000)
		problem(p, "the embeds have %zu characters (at most 6000)", total);
}

static void check_custom_id(struct problems *p, const cJSON *c, const char *what, const char **seen,
                            int *nseen)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "custom_id");
	if (!cJSON_IsString(id)) {
		problem(p, "%s has no custom_id", what);
		return;
	}
	size_t n = strlen(id->valuestring);
	if (n < 1 || n > 100)
		problem(p, "%s.custom_id has %zu characters (1 to 100)", what, n);
	for (int i = 0; i < *nseen; i++)
		if (!strcmp(seen[i], id->valuestring))
			problem(p, "custom_id \"%.100s\" is used twice", id->valuestring);
	if (*nseen < 25)
		seen[(*nseen)++] = id->valuestring;
}

static void check_components(struct problems *p, const cJSON *rows)
{
	if (!cJSON_IsArray(rows)) {
		problem(p, "components is not an array");
		return;
	}
	if (cJSON_GetArraySize(rows) > 5)
		problem(p, "%d action rows (at most 5)", cJSON_GetArraySize(rows));
	const char *seen[25];
	int nseen = 0, r = 0;
	const cJSON *row;
	cJSON_ArrayForEach(row, rows)
	{
		char what[64];
		snprintf(what, sizeof what, "components[%d]", r++);
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(row, "type");
		const cJSON *items = cJSON_GetObjectItemCaseSensitive(row, "components");
		if (!cJSON_IsNumber(type) || type->valueint != 1) {
			problem(p, "%s is not an action row (type 1)", what);
			continue;
		}
		if (!cJSON_IsArray(items) || cJSON_GetArraySize(items) < 1 ||
		    cJSON_GetArraySize(items) > 5) {
			problem(p, "%s needs 1 to 5 components", what);
			continue;
		}
		int k = 0, n = cJSON_GetArraySize(items);
		const cJSON *c;
		cJSON_ArrayForEach(c, items)
		{
			char cw[128];
			snprintf(cw, sizeof cw, "%s.components[%d]", what, k++);
			const cJSON *ct = cJSON_GetObjectItemCaseSensitive(c, "type");
			int t = cJSON_IsNumber(ct) ? ct->valueint : -1;
			if (t == 2) {
				const cJSON *style = cJSON_GetObjectItemCaseSensitive(c, "style");
				int s = cJSON_IsNumber(style) ? style->valueint : -1;
				if (s < 1 || s > 5)
					problem(p, "%s.style must be 1 to 5", cw);
				check_str(p, c, cw, "label", 0, 80, 0);
				const cJSON *off = cJSON_GetObjectItemCaseSensitive(c, "disabled");
				if (off && !cJSON_IsBool(off))
					problem(p, "%s.disabled must be a boolean", cw);
				if (!cJSON_GetObjectItemCaseSensitive(c, "label") &&
				    !cJSON_GetObjectItemCaseSensitive(c, "emoji"))
					problem(p, "%s has neither label nor emoji", cw);
				if (s == 5) {
					check_str(p, c, cw, "url", 1, 512, 1);
					if (cJSON_GetObjectItemCaseSensitive(c, "custom_id"))
						problem(p, "%s: a link button has no custom_id",
						        cw);
				} else {
					check_custom_id(p, c, cw, seen, &nseen);
				}
			} else if (t == 3 || (t >= 5 && t <= 8)) {
				if (n != 1)
					problem(p, "%s: a select menu must be alone in its row",
					        cw);
				check_custom_id(p, c, cw, seen, &nseen);
				const cJSON *opts = cJSON_GetObjectItemCaseSensitive(c, "options");
				if (t == 3 &&
				    (!cJSON_IsArray(opts) || cJSON_GetArraySize(opts) < 1 ||
				     cJSON_GetArraySize(opts) > 25))
					problem(p, "%s needs 1 to 25 options", cw);
			} else {
				problem(p, "%s has an unsupported type %d", cw, t);
			}
		}
	}
}

/* Mentions (Message, "Allowed Mentions Object"): <@id> and <@!id> name users, <@&id> roles,
 * @everyone and @here everyone, in the content. Without allowed_mentions all of them notify;
 * with it, the types in its parse and the ids in its users and roles (at most 100 each; a type
 * both in parse and given ids is a validation error; ids the content does not mention are
 * ignored). */
#define MAX_MENTION_IDS 100

static int attachment_id(const cJSON *id, char *out, size_t size);
static int contains_string(const cJSON *v, const char *s);

static const char *const mention_types[] = { "roles", "users", "everyone" };

static int snowflake_ok(const cJSON *v)
{
	char id[ID_LEN];
	return attachment_id(v, id, sizeof id);
}

static void check_allowed_mentions(struct problems *p, const cJSON *am)
{
	if (!am || cJSON_IsNull(am))
		return;
	if (!cJSON_IsObject(am)) {
		problem(p, "allowed_mentions is not an object");
		return;
	}
	const cJSON *parse = cJSON_GetObjectItemCaseSensitive(am, "parse"), *v;
	if (parse && !cJSON_IsNull(parse) && !cJSON_IsArray(parse))
		problem(p, "allowed_mentions.parse is not an array");
	cJSON_ArrayForEach(v, (cJSON_IsArray(parse) ? parse : NULL))
	{
		int known = 0;
		for (size_t i = 0; i < sizeof mention_types / sizeof mention_types[0]; i++)
			known |= cJSON_IsString(v) && !strcmp(v->valuestring, mention_types[i]);
		if (!known)
			problem(p,
			        "allowed_mentions.parse has %.40s (roles, users and everyone are "
			        "allowed)",
			        cJSON_IsString(v) ? v->valuestring : "a value that is no string");
	}
	for (size_t i = 0; i < 2; i++) {
		const char *kind = mention_types[i];
		const cJSON *ids = cJSON_GetObjectItemCaseSensitive(am, kind);
		if (!ids || cJSON_IsNull(ids))
			continue;
		if (!cJSON_IsArray(ids)) {
			problem(p, "allowed_mentions.%s is not an array", kind);
			continue;
		}
		if (cJSON_GetArraySize(ids) > MAX_MENTION_IDS)
			problem(p, "allowed_mentions.%s has %d ids (at most %d)", kind,
			        cJSON_GetArraySize(ids), MAX_MENTION_IDS);
		cJSON_ArrayForEach(v, ids)
		{
			if (!snowflake_ok(v)) {
				problem(p, "allowed_mentions.%s holds something that is no id",
				        kind);
				break;
			}
		}
		if (cJSON_GetArraySize(ids) > 0 && contains_string(parse, kind))
			problem(p,
			        "allowed_mentions: parse [\"%s\"] and %s [ids] are mutually "
			        "exclusive",
			        kind, kind);
	}
	const cJSON *replied = cJSON_GetObjectItemCaseSensitive(am, "replied_user");
	if (replied && !cJSON_IsNull(replied) && !cJSON_IsBool(replied))
		problem(p, "allowed_mentions.replied_user is not a boolean");
}

/* Whether the id list (strings or numbers) has id. */
static int id_listed(const cJSON *list, const char *id)
{
	const cJSON *v;
	cJSON_ArrayForEach(v, (cJSON_IsArray(list) ? list : NULL))
	{
		char have[ID_LEN];
		if (attachment_id(v, have, sizeof have) && !strcmp(have, id))
			return 1;
	}
	return 0;
}

/* Whom a message with this content and allowed_mentions notifies. */
struct pings {
	cJSON *users; /* ids */
	cJSON *roles; /* ids */
	int everyone;
};

static void pings_compute(struct pings *pg, const char *content, const cJSON *am)
{
	int given = cJSON_IsObject(am);
	const cJSON *parse = given ? cJSON_GetObjectItemCaseSensitive(am, "parse") : NULL;
	int all_users = !given || contains_string(parse, "users");
	int all_roles = !given || contains_string(parse, "roles");
	pg->users = cJSON_CreateArray();
	pg->roles = cJSON_CreateArray();
	pg->everyone = 0;
	for (const char *s = content ? content : ""; *s; s++) {
		if (*s == '@' && (!strncmp(s + 1, "everyone", 8) || !strncmp(s + 1, "here", 4)))
			pg->everyone = !given || contains_string(parse, "everyone");
		if (s[0] != '<' || s[1] != '@')
			continue;
		const char *q = s + 2;
		int role = *q == '&';
		q += *q == '&' || *q == '!';
		size_t n = strspn(q, "0123456789");
		if (!n || n >= ID_LEN || q[n] != '>')
			continue;
		char id[ID_LEN];
		memcpy(id, q, n);
		id[n] = '\0';
		cJSON *into = role ? pg->roles : pg->users;
		int allowed =
		    role
		        ? all_roles || id_listed(cJSON_GetObjectItemCaseSensitive(am, "roles"), id)
		        : all_users || id_listed(cJSON_GetObjectItemCaseSensitive(am, "users"), id);
		if (allowed && !contains_string(into, id) &&
		    cJSON_GetArraySize(into) < MAX_MENTION_IDS)
			cJSON_AddItemToArray(into, cJSON_CreateString(id));
	}
}

/* Sets a created message's mentions, mention_roles and mention_everyone: the user objects
 * the fake knows (or {id}). */
static void pings_show(struct message *m, const struct pings *pg)
{
	cJSON *users = cJSON_CreateArray();
	const cJSON *v;
	cJSON_ArrayForEach(v, pg->users)
	{
		const cJSON *known = user_known(v->valuestring);
		cJSON *u = known ? cJSON_Duplicate(known, 1) : cJSON_CreateObject();
		if (!known)
			cJSON_AddStringToObject(u, "id", v->valuestring);
		cJSON_AddItemToArray(users, u);
	}
	cJSON_ReplaceItemInObjectCaseSensitive(m->obj, "mentions", users);
	cJSON_ReplaceItemInObjectCaseSensitive(m->obj, "mention_roles",
	                                       cJSON_Duplicate(pg->roles, 1));
	cJSON_ReplaceItemInObjectCaseSensitive(m->obj, "mention_everyone",
	                                       cJSON_CreateBool(pg->everyone));
}

/* A message body (create or edit) that comes with `files` files. */
static void check_message(struct problems *p, const cJSON *m, int creating, int flags_ok, int files)
{
	if (!cJSON_IsObject(m)) {
		problem(p, "the message is not a JSON object");
		return;
	}
	size_t clen = check_str(p, m, "message", "content", 0, 2000, 0);
	const cJSON *flags = cJSON_GetObjectItemCaseSensitive(m, "flags");
	if (flags && !cJSON_IsNull(flags)) {
		if (!cJSON_IsNumber(flags) || (flags->valueint != 0 && flags->valueint != 64))
			problem(p, "flags must be absent, 0 or 64");
		else if (flags->valueint == 64 && !flags_ok)
			problem(p, "flags 64 (ephemeral) only exists for interaction responses");
	}
	const cJSON *embeds = cJSON_GetObjectItemCaseSensitive(m, "embeds");
	if (embeds && !cJSON_IsNull(embeds))
		check_embeds(p, embeds);
	const cJSON *comps = cJSON_GetObjectItemCaseSensitive(m, "components");
	if (comps && !cJSON_IsNull(comps))
		check_components(p, comps);
	check_allowed_mentions(p, cJSON_GetObjectItemCaseSensitive(m, "allowed_mentions"));
	if (creating && !clen && !files && cJSON_GetArraySize(embeds) == 0 &&
	    cJSON_GetArraySize(comps) == 0 && !cJSON_GetObjectItemCaseSensitive(m, "poll") &&
	    !cJSON_GetObjectItemCaseSensitive(m, "sticker_ids"))
		problem(p, "an empty message (no content, embeds or components)");
}

static void check_callback(struct problems *p, const cJSON *body, int itype, int files)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(body, "type");
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(body, "data");
	if (!cJSON_IsObject(body) || !cJSON_IsNumber(type)) {
		problem(p, "the callback is not {\"type\":T,\"data\":...}");
		return;
	}
	int t = type->valueint;
	int component = itype == 3 || itype == 5;
	switch (t) {
	case 1:
		if (itype != 1)
			problem(p, "type 1 (PONG) only answers a PING");
		break;
	case 4:
	case 7:
		if (t == 7 && !component)
			problem(p,
			        "type 7 only answers a component or modal interaction (this is "
			        "type %d)",
			        itype);
		if (itype == 4)
			problem(p, "an autocomplete interaction is answered with type 8");
		if (!cJSON_IsObject(data))
			problem(p, "type %d needs data", t);
		else
			check_message(p, data, t == 4, 1, files);
		break;
	case 5:
	case 6:
		if (t == 6 && !component)
			problem(p, "type 6 only answers a component interaction");
		if (itype == 4)
			problem(p, "an autocomplete interaction is answered with type 8");
		if (data && !cJSON_IsNull(data))
			check_message(p, data, 0, 1, 0);
		break;
	case 8: {
		if (itype != 4)
			problem(p, "type 8 only answers an autocomplete interaction");
		const cJSON *choices = cJSON_GetObjectItemCaseSensitive(data, "choices");
		if (!cJSON_IsArray(choices) || cJSON_GetArraySize(choices) > 25)
			problem(p, "type 8 needs data.choices with at most 25 choices");
		break;
	}
	case 9:
		if (itype == 4 || itype == 5)
			problem(p, "a modal cannot answer interaction type %d", itype);
		check_str(p, data, "data", "custom_id", 1, 100, 1);
		check_str(p, data, "data", "title", 1, 45, 1);
		if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(data, "components")))
			problem(p, "a modal needs components");
		break;
	default:
		problem(p, "callback type %d is not one of 1, 4, 5, 6, 7, 8, 9", t);
	}
	/* files go with a message: only types 4 and 7 carry one */
	if (files && t != 4 && t != 7)
		problem(p, "callback type %d carries no files", t);
}

static const char *const locales[] = {
	"id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr",    "hr",    "it", "lt",
	"hu", "nl", "no", "pl",    "pt-BR", "ro",    "fi",     "sv-SE", "vi",    "tr", "cs",
	"el", "bg", "ru", "uk",    "hi",    "th",    "zh-CN",  "ja",    "zh-TW", "ko"
};

static int is_locale(const char *s)
{
	for (size_t i = 0; i < sizeof locales / sizeof locales[0]; i++)
		if (!strcmp(s, locales[i]))
			return 1;
	return 0;
}

static int is_command_name(const char *s)
{
	size_t n = strlen(s);
	if (n < 1 || n > 32)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' ||
		      *s == '_'))
			return 0;
	return 1;
}

static void check_localizations(struct problems *p, const cJSON *o, const char *what,
                                const char *field, int names)
{
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(o, field);
	if (!l || cJSON_IsNull(l))
		return;
	if (!cJSON_IsObject(l)) {
		problem(p, "%s.%s is not an object", what, field);
		return;
	}
	const cJSON *v;
	cJSON_ArrayForEach(v, l)
	{
		if (!is_locale(v->string))
			problem(p, "%s.%s: \"%.20s\" is not a Discord locale", what, field,
			        v->string);
		if (!cJSON_IsString(v))
			problem(p, "%s.%s.%.20s is not a string", what, field, v->string);
		else if (names && !is_command_name(v->valuestring))
			problem(p, "%s.%s.%.20s: \"%.40s\" is not a valid name", what, field,
			        v->string, v->valuestring);
		else if (!names && (utf8_len(v->valuestring) < 1 || utf8_len(v->valuestring) > 100))
			problem(p, "%s.%s.%.20s must have 1 to 100 characters", what, field,
			        v->string);
	}
}

static void check_options(struct problems *p, const cJSON *opts, const char *what, int depth)
{
	if (!opts || cJSON_IsNull(opts))
		return;
	if (!cJSON_IsArray(opts)) {
		problem(p, "%s.options is not an array", what);
		return;
	}
	if (cJSON_GetArraySize(opts) > 25)
		problem(p, "%s has %d options (at most 25)", what, cJSON_GetArraySize(opts));
	int optional_seen = 0, i = 0;
	const cJSON *o;
	cJSON_ArrayForEach(o, opts)
	{
		char ow[128];
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
		snprintf(ow, sizeof ow, "%s.%.32s", what,
		         cJSON_IsString(name) ? name->valuestring : "?");
		i++;
		if (!cJSON_IsString(name) || !is_command_name(name->valuestring))
			problem(p, "%s: option %d has no valid name (1-32 of -_a-z0-9)", what, i);
		check_str(p, o, ow, "description", 1, 100, 1);
		check_localizations(p, o, ow, "name_localizations", 1);
		check_localizations(p, o, ow, "description_localizations", 0);
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
		int t = cJSON_IsNumber(type) ? type->valueint : -1;
		if (t < 1 || t > 11)
			problem(p, "%s.type must be 1 to 11", ow);
		int required = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "required"));
		if (t > 2) {
			if (required && optional_seen)
				problem(p, "%s: a required option after an optional one", ow);
			if (!required)
				optional_seen = 1;
		}
		const cJSON *choices = cJSON_GetObjectItemCaseSensitive(o, "choices");
		if (cJSON_IsArray(choices) && cJSON_GetArraySize(choices) > 25)
			problem(p, "%s has more than 25 choices", ow);
		const cJSON *sub = cJSON_GetObjectItemCaseSensitive(o, "options");
		if (sub && (t == 1 || t == 2) && depth < 2)
			check_options(p, sub, ow, depth + 1);
		else if (sub && !cJSON_IsNull(sub))
			problem(p, "%s: only subcommands have options", ow);
	}
}

static void check_command(struct problems *p, const cJSON *c, int index)
{
	char what[64];
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
	snprintf(what, sizeof what, "command %.32s",
	         cJSON_IsString(name) ? name->valuestring : "?");
	if (!cJSON_IsObject(c)) {
		problem(p, "command %d is not an object", index);
		return;
	}
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(c, "type");
	int t = type && !cJSON_IsNull(type) ? (cJSON_IsNumber(type) ? type->valueint : -1) : 1;
	if (t < 1 || t > 4)
		problem(p, "%s: type must be 1 to 4", what);
	if (t == 1) {
		if (!cJSON_IsString(name) || !is_command_name(name->valuestring))
			problem(p, "command %d: the name must be 1-32 characters of -_a-z0-9",
			        index);
		check_str(p, c, what, "description", 1, 100, 1);
		check_localizations(p, c, what, "name_localizations", 1);
		check_localizations(p, c, what, "description_localizations", 0);
		check_options(p, cJSON_GetObjectItemCaseSensitive(c, "options"), what, 0);
	} else {
		check_str(p, c, what, "name", 1, 32, 1);
		check_localizations(p, c, what, "name_localizations", 0);
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(c, "description");
		if (cJSON_IsString(d) && d->valuestring[0])
			problem(p, "%s: user and message commands have no description", what);
	}
}

static void check_commands(struct problems *p, const cJSON *list)
{
	if (!cJSON_IsArray(list)) {
		problem(p, "a bulk overwrite is a JSON array of commands");
		return;
	}
	if (cJSON_GetArraySize(list) > 100)
		problem(p, "%d commands (at most 100)", cJSON_GetArraySize(list));
	int i = 0;
	const cJSON *c;
	cJSON_ArrayForEach(c, list)
	{
		check_command(p, c, i);
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
		const cJSON *o;
		int k = 0;
		cJSON_ArrayForEach(o, list)
		{
			if (k++ >= i)
				break;
			const cJSON *on = cJSON_GetObjectItemCaseSensitive(o, "name");
			if (cJSON_IsString(name) && cJSON_IsString(on) &&
			    !strcmp(name->valuestring, on->valuestring))
				problem(p, "command %.32s is defined twice", name->valuestring);
		}
		i++;
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Files: multipart/form-data bodies (RFC 7578) and the attachments of messages
 *
 * Discord's reference ("Uploading Files"): a request with files has a multipart/form-data body;
 * the JSON goes in the part "payload_json", each file in a part "files[n]" whose
 * Content-Disposition has a filename and a unique name, n being the placeholder id that the
 * JSON's "attachments" array ([{"id": n, "filename": ...}]) refers to. Creating a message, the
 * array lists the files to attach; editing one, it lists every attachment the message keeps, old
 * and new, and an old one left out is removed; without the array an edit appends the files. An
 * embed names an attachment as "attachment://filename"; only .jpg, .jpeg, .png, .webp and .gif
 * may be used so. Message objects list "any attached files that are not referenced in embeds or
 * components". The fake requires payload_json (the bot always sends its JSON so). */

struct form_part {
	char name[64];
	char filename[MAX_FILENAME + 1];
	int has_filename;
	char ctype[128];
	int has_ctype;
	const char *data; /* into the request's body */
	size_t len;
};

struct form {
	struct form_part part[MAX_FORM_PARTS];
	int nparts;
	const struct form_part *payload; /* "payload_json", or NULL */
};

static const unsigned char png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

static const char *mem_find(const char *p, size_t len, const char *needle, size_t n)
{
	for (size_t i = 0; n <= len && i <= len - n; i++)
		if (p[i] == needle[0] && !memcmp(p + i, needle, n))
			return p + i;
	return NULL;
}

/* Reads the next parameter at *pp ("; key=value", the value a token or a quoted string) and
 * moves past it. Returns 1, 0 at the end, -1 when malformed or too long. */
static int param_next(const char **pp, char *key, size_t ksize, char *val, size_t vsize)
{
	const char *p = *pp;
	size_t k = 0, n = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return 0;
	if (*p != ';')
		return -1;
	for (p++; *p == ' ' || *p == '\t'; p++)
		;
	for (; *p && *p != '=' && *p != ';' && *p != ' ' && *p != '\t'; p++) {
		if (k + 1 >= ksize)
			return -1;
		key[k++] = *p;
	}
	key[k] = '\0';
	if (!k || *p != '=')
		return -1;
	p++;
	if (*p == '"') {
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1])
				p++;
			if (n + 1 >= vsize)
				return -1;
			val[n++] = *p;
		}
		if (*p != '"')
			return -1;
		p++;
	} else {
		for (; *p && *p != ';' && *p != ' ' && *p != '\t'; p++) {
			if (n + 1 >= vsize)
				return -1;
			val[n++] = *p;
		}
		if (!n)
			return -1;
	}
	val[n] = '\0';
	*pp = p;
	return 1;
}

/* Whether a Content-Type is multipart/form-data. */
static int is_form_type(const char *ctype)
{
	return !strncasecmp(ctype, "multipart/form-data", 19) &&
	       (ctype[19] == '\0' || ctype[19] == ';' || ctype[19] == ' ');
}

/* The boundary of a multipart/form-data Content-Type: 1 to 70 characters of RFC 2046's bchars,
 * not ending in a space. Returns 0, or -1 when there is none. */
static int form_boundary(const char *ctype, char *out, size_t size)
{
	const char *p = ctype + 19;
	char key[32];
	int rc;

	while ((rc = param_next(&p, key, sizeof key, out, size)) == 1) {
		if (strcasecmp(key, "boundary"))
			continue;
		size_t n = strlen(out);
		if (n < 1 || n > 70 || out[n - 1] == ' ' ||
		    strspn(out, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		                "'()+_,-./:=? ") != n)
			return -1;
		return 0;
	}
	return -1;
}

/* Reads the headers of a part starting at p (Content-Disposition: form-data with a name and
 * maybe a filename; Content-Type) and sets *data to where its content starts. Returns 0, or -1
 * with the reason in err. */
static int part_head(const char *p, const char *end, struct form_part *pt, const char **data,
                     char *err, size_t errsize)
{
	size_t avail = (size_t)(end - p);
	const char *hend, *line, *nl;
	int disposition = 0;

	if (avail >= 2 && !memcmp(p, "\r\n", 2)) {
		snprintf(err, errsize, "a part without headers");
		return -1;
	}
	hend = mem_find(p, avail < MAX_PART_HEAD + 4 ? avail : MAX_PART_HEAD + 4, "\r\n\r\n", 4);
	if (!hend) {
		snprintf(err, errsize, "part headers that do not end within %d bytes",
		         MAX_PART_HEAD);
		return -1;
	}
	for (line = p; line < hend + 2; line = nl + 2) {
		char h[MAX_PART_HEAD + 8], key[32];
		nl = mem_find(line, (size_t)(hend + 2 - line), "\r\n", 2);
		size_t ll = (size_t)(nl - line);
		if (memchr(line, '\0', ll)) {
			snprintf(err, errsize, "a NUL in part headers");
			return -1;
		}
		memcpy(h, line, ll);
		h[ll] = '\0';
		char *colon = strchr(h, ':');
		if (!colon) {
			snprintf(err, errsize, "a part header without ':': %.60s", h);
			return -1;
		}
		*colon = '\0';
		const char *v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		if (!strcasecmp(h, "Content-Disposition")) {
			if (strncasecmp(v, "form-data", 9) ||
			    (v[9] && v[9] != ';' && v[9] != ' ')) {
				snprintf(err, errsize,
				         "a part's disposition is not form-data: %.60s", v);
				return -1;
			}
			const char *q = v + 9;
			char val[MAX_FILENAME + 1];
			int rc;
			while ((rc = param_next(&q, key, sizeof key, val, sizeof val)) == 1) {
				if (!strcasecmp(key, "name")) {
					if (strlen(val) >= sizeof pt->name) {
						snprintf(err, errsize, "a part name over %zu bytes",
						         sizeof pt->name - 1);
						return -1;
					}
					copy_str(pt->name, sizeof pt->name, val);
				} else if (!strcasecmp(key, "filename")) {
					copy_str(pt->filename, sizeof pt->filename, val);
					pt->has_filename = 1;
				}
			}
			if (rc < 0) {
				snprintf(err, errsize, "a malformed Content-Disposition: %.80s", v);
				return -1;
			}
			disposition = 1;
		} else if (!strcasecmp(h, "Content-Type")) {
			if (strlen(v) >= sizeof pt->ctype) {
				snprintf(err, errsize, "a part Content-Type over %zu bytes",
				         sizeof pt->ctype - 1);
				return -1;
			}
			copy_str(pt->ctype, sizeof pt->ctype, v);
			pt->has_ctype = 1;
		}
	}
	if (!disposition || !pt->name[0]) {
		snprintf(err, errsize, "a part without Content-Disposition: form-data; name=...");
		return -1;
	}
	*data = hend + 4;
	return 0;
}

/* Splits a multipart/form-data body into f: the first delimiter line (after a preamble, if
 * any), then parts, each ending in CRLF and a delimiter, the last one in the close delimiter.
 * Returns 0, or -1 with the reason in err (f is then partly filled). */
static int form_parse(const char *ctype, const char *body, size_t len, struct form *f, char *err,
                      size_t errsize)
{
	char boundary[80], delim[84];
	const char *end = body + len, *p, *q;
	size_t dl;

	memset(f, 0, sizeof *f);
	if (form_boundary(ctype, boundary, sizeof boundary) < 0) {
		snprintf(err, errsize, "no valid boundary in Content-Type \"%.100s\"", ctype);
		return -1;
	}
	dl = (size_t)snprintf(delim, sizeof delim, "\r\n--%s", boundary);
	if (len >= dl - 2 && !memcmp(body, delim + 2, dl - 2))
		p = body + dl - 2;
	else if ((q = mem_find(body, len, delim, dl)))
		p = q + dl;
	else {
		snprintf(err, errsize, "no line with the boundary");
		return -1;
	}
	for (;;) {
		if (end - p >= 2 && !memcmp(p, "--", 2))
			return 0; /* the close delimiter; an epilogue may follow */
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (end - p < 2 || memcmp(p, "\r\n", 2)) {
			snprintf(err, errsize, "a boundary line that does not end in CRLF");
			return -1;
		}
		p += 2;
		if (f->nparts == MAX_FORM_PARTS) {
			snprintf(err, errsize, "more than %d parts", MAX_FORM_PARTS);
			return -1;
		}
		struct form_part *pt = &f->part[f->nparts];
		const char *data;
		if (part_head(p, end, pt, &data, err, errsize) < 0)
			return -1;
		q = mem_find(data, (size_t)(end - data), delim, dl);
		if (!q) {
			snprintf(err, errsize, "part \"%s\" does not end in a boundary line",
			         pt->name);
			return -1;
		}
		for (int i = 0; i < f->nparts; i++)
			if (!strcmp(f->part[i].name, pt->name)) {
				snprintf(err, errsize, "two parts named \"%s\"", pt->name);
				return -1;
			}
		pt->data = data;
		pt->len = (size_t)(q - data);
		if (!strcmp(pt->name, "payload_json"))
			f->payload = pt;
		f->nparts++;
		p = q + dl;
	}
}

/* How many parts of f are not payload_json (0 when there is no form). */
static int form_files(const struct form *f)
{
	return f ? f->nparts - (f->payload != NULL) : 0;
}

/* Writes the n of a part named "files[n]" (digits, no leading zero) to out. Returns 1, or 0
 * when the name is not of that form. */
static int file_placeholder(const char *name, char *out, size_t size)
{
	if (strncmp(name, "files[", 6))
		return 0;
	size_t n = strspn(name + 6, "0123456789");
	if (!n || n >= size || strcmp(name + 6 + n, "]") || (n > 1 && name[6] == '0'))
		return 0;
	memcpy(out, name + 6, n);
	out[n] = '\0';
	return 1;
}

/* Writes an attachment request's id (a snowflake string, or a whole number) in decimal to out.
 * Returns 1, or 0 when it is neither. */
static int attachment_id(const cJSON *id, char *out, size_t size)
{
	if (cJSON_IsString(id)) {
		const char *s = id->valuestring;
		size_t n = strspn(s, "0123456789");
		if (!n || s[n] || n >= size || (n > 1 && s[0] == '0'))
			return 0;
		copy_str(out, size, s);
		return 1;
	}
	if (cJSON_IsNumber(id) && id->valuedouble >= 0 && id->valuedouble < 9007199254740992.0 &&
	    id->valuedouble == (double)(int64_t)id->valuedouble) {
		snprintf(out, size, "%lld", (long long)id->valuedouble);
		return 1;
	}
	return 0;
}

static int ends_with_ci(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcasecmp(s + n - k, suffix);
}

/* What a message's attachments become: each one kept (an index into the message's) or new (a
 * file part of the request). */
struct planned {
	int keep; /* index into the message's attachments, or -1 */
	const struct form_part *file;
	const char *filename;
};

struct plan {
	int change; /* the request sets the attachments; else they stay as they are */
	struct planned a[MAX_FILES];
	int n;
	int too_large; /* a file over MAX_FILE_BYTES (413) */
};

static void plan_add(struct plan *pl, int keep, const struct form_part *file, const char *filename)
{
	if (pl->n == MAX_FILES)
		return; /* over the limit: a problem already */
	pl->a[pl->n++] = (struct planned){ .keep = keep, .file = file, .filename = filename };
}

/* Checks the file parts of a form (NULL: none) and the "attachments" of body against the
 * message m (NULL when creating one), and plans the attachments that the message will have. */
static void plan_attachments(struct problems *p, struct plan *pl, const struct form *form,
                             const cJSON *body, const struct message *m)
{
	const struct form_part *files[MAX_FORM_PARTS];
	char ids[MAX_FORM_PARTS][24];
	int nfiles = 0, used[MAX_FORM_PARTS] = { 0 };

	memset(pl, 0, sizeof *pl);
	for (int i = 0; form && i < form->nparts; i++) {
		const struct form_part *pt = &form->part[i];
		if (pt == form->payload) {
			if (pt->has_ctype && strncasecmp(pt->ctype, "application/json", 16))
				problem(p, "payload_json has Content-Type %.60s", pt->ctype);
			continue;
		}
		if (!file_placeholder(pt->name, ids[nfiles], sizeof ids[0])) {
			problem(p, "form field \"%.40s\" is neither payload_json nor files[n]",
			        pt->name);
			continue;
		}
		if (!pt->has_filename || !pt->filename[0])
			problem(p, "%s has no filename in its Content-Disposition", pt->name);
		if (pt->len > MAX_FILE_BYTES)
			pl->too_large = 1;
		if ((ends_with_ci(pt->filename, ".png") ||
		     (pt->has_ctype && !strcasecmp(pt->ctype, "image/png"))) &&
		    (pt->len < sizeof png_signature ||
		     memcmp(pt->data, png_signature, sizeof png_signature)))
			problem(p, "%s (%.60s, %.40s) does not start with the PNG signature",
			        pt->name, pt->filename,
			        pt->has_ctype ? pt->ctype : "no Content-Type");
		files[nfiles++] = pt;
	}
	if (nfiles > MAX_FILES)
		problem(p, "%d files (at most %d)", nfiles, MAX_FILES);

	const cJSON *list = cJSON_GetObjectItemCaseSensitive(body, "attachments");
	if (!list || cJSON_IsNull(list)) {
		/* no list: the files join what the message has */
		for (int i = 0; m && i < m->natt; i++)
			plan_add(pl, i, NULL, m->att[i].filename);
		for (int k = 0; k < nfiles; k++)
			plan_add(pl, -1, files[k], files[k]->filename);
		if ((m ? m->natt : 0) + nfiles > MAX_FILES)
			problem(p, "the message would have %d attachments (at most %d)",
			        (m ? m->natt : 0) + nfiles, MAX_FILES);
		pl->change = nfiles > 0;
		return;
	}
	pl->change = 1;
	if (!cJSON_IsArray(list)) {
		problem(p, "attachments is not an array");
		return;
	}
	if (cJSON_GetArraySize(list) > MAX_FILES)
		problem(p, "%d attachments (at most %d)", cJSON_GetArraySize(list), MAX_FILES);
	char seen[MAX_FILES][24];
	int nseen = 0, i = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, list)
	{
		char id[24];
		int at = i++;
		if (!cJSON_IsObject(e) ||
		    !attachment_id(cJSON_GetObjectItemCaseSensitive(e, "id"), id, sizeof id)) {
			problem(p, "attachments[%d] has no id (a snowflake or a number)", at);
			continue;
		}
		int twice = 0;
		for (int k = 0; k < nseen; k++)
			twice |= !strcmp(seen[k], id);
		if (twice) {
			problem(p, "attachments[%d]: id %s is listed twice", at, id);
			continue;
		}
		if (nseen < MAX_FILES)
			copy_str(seen[nseen++], sizeof seen[0], id);
		const cJSON *fn = cJSON_GetObjectItemCaseSensitive(e, "filename");
		if (fn && !cJSON_IsNull(fn) &&
		    (!cJSON_IsString(fn) || !fn->valuestring[0] ||
		     strlen(fn->valuestring) > MAX_FILENAME)) {
			problem(p, "attachments[%d].filename is not a name of 1 to %d bytes", at,
			        MAX_FILENAME);
			fn = NULL;
		}
		int file = -1, old = -1;
		for (int k = 0; k < nfiles; k++)
			if (!strcmp(ids[k], id))
				file = k;
		for (int k = 0; file < 0 && m && k < m->natt; k++)
			if (!strcmp(m->att[k].id, id))
				old = k;
		if (file >= 0) {
			used[file] = 1;
			plan_add(pl, -1, files[file],
			         cJSON_IsString(fn) ? fn->valuestring : files[file]->filename);
		} else if (old >= 0) {
			plan_add(pl, old, NULL, m->att[old].filename);
		} else {
			problem(p, "attachments[%d]: id %s is no files[%s] of this request%s", at,
			        id, id, m ? " and no attachment of the message" : "");
		}
	}
	for (int k = 0; k < nfiles; k++)
		if (!used[k])
			problem(p,
			        "files[%s] is not listed in attachments: it would not be attached",
			        ids[k]);
}

/* Checks every "attachment://name" string within v (embeds, or components) against the
 * attachments the message will have. */
static void check_refs(struct problems *p, const cJSON *v, const struct plan *pl, const char *what)
{
	if (cJSON_IsString(v) && !strncmp(v->valuestring, "attachment://", 13)) {
		const char *name = v->valuestring + 13;
		int found = 0;
		for (int i = 0; i < pl->n; i++)
			found |= !strcmp(pl->a[i].filename, name);
		if (!found)
			problem(p, "%s refer to %.120s, which is no attachment of the message",
			        what, v->valuestring);
		else if (!strcmp(what, "embeds") && !ends_with_ci(name, ".png") &&
		         !ends_with_ci(name, ".jpg") && !ends_with_ci(name, ".jpeg") &&
		         !ends_with_ci(name, ".webp") && !ends_with_ci(name, ".gif"))
			problem(p,
			        "embeds use %.120s: only .jpg, .jpeg, .png, .webp and .gif may be",
			        v->valuestring);
		return;
	}
	const cJSON *c;
	cJSON_ArrayForEach(c, v)
	{
		check_refs(p, c, pl, what);
	}
}

/* Plans the attachments of the message that body creates (m NULL) or edits, and checks the
 * references of its embeds and components (the body's, or the message's own when the body
 * leaves them). */
static void plan_check(struct problems *p, struct plan *pl, const struct form *form,
                       const cJSON *body, const struct message *m)
{
	static const char *const fields[] = { "embeds", "components" };

	plan_attachments(p, pl, form, body, m);
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(body, fields[i]);
		if ((!v || cJSON_IsNull(v)) && m)
			v = cJSON_GetObjectItemCaseSensitive(m->obj, fields[i]);
		if (v && !cJSON_IsNull(v))
			check_refs(p, v, pl, fields[i]);
	}
}

static void sha1_hex(const void *data, size_t len, char out[41])
{
	unsigned char md[20];
	lws_SHA1(data, len, md);
	for (int i = 0; i < 20; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static int contains_string(const cJSON *v, const char *s)
{
	if (cJSON_IsString(v))
		return !strcmp(v->valuestring, s);
	const cJSON *c;
	cJSON_ArrayForEach(c, v)
	{
		if (contains_string(c, s))
			return 1;
	}
	return 0;
}

/* Rebuilds the "attachments" of m's object: its files that its embeds and components do not
 * use, as Discord's attachment objects. */
static void attachments_show(struct message *m)
{
	cJSON *list = cJSON_CreateArray();
	const cJSON *embeds = cJSON_GetObjectItemCaseSensitive(m->obj, "embeds");
	const cJSON *comps = cJSON_GetObjectItemCaseSensitive(m->obj, "components");
	for (int i = 0; i < m->natt; i++) {
		const struct attachment *a = &m->att[i];
		char ref[MAX_FILENAME + 16], url[MAX_FILENAME + 160];
		snprintf(ref, sizeof ref, "attachment://%s", a->filename);
		if (contains_string(embeds, ref) || contains_string(comps, ref))
			continue;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "id", a->id);
		cJSON_AddStringToObject(o, "filename", a->filename);
		cJSON_AddNumberToObject(o, "size", (double)a->size);
		snprintf(url, sizeof url, "https://cdn.discordapp.com/attachments/%s/%s/%s",
		         m->channel, a->id, a->filename);
		cJSON_AddStringToObject(o, "url", url);
		snprintf(url, sizeof url, "https://media.discordapp.net/attachments/%s/%s/%s",
		         m->channel, a->id, a->filename);
		cJSON_AddStringToObject(o, "proxy_url", url);
		cJSON_AddStringToObject(o, "content_type", a->content_type);
		if (a->width > 0 && a->height > 0) {
			cJSON_AddNumberToObject(o, "width", a->width);
			cJSON_AddNumberToObject(o, "height", a->height);
		}
		cJSON_AddItemToArray(list, o);
	}
	cJSON_ReplaceItemInObjectCaseSensitive(m->obj, "attachments", list);
}

/* Gives m the attachments planned (when the request sets them), then shows them. */
static void attachments_apply(struct message *m, const struct plan *pl)
{
	if (pl->change) {
		struct attachment *a = xcalloc((size_t)pl->n + 1, sizeof *a);
		for (int i = 0; i < pl->n; i++) {
			const struct planned *pa = &pl->a[i];
			if (pa->keep >= 0) {
				a[i] = m->att[pa->keep];
				a[i].filename = xstrdup(m->att[pa->keep].filename);
				continue;
			}
			const struct form_part *f = pa->file;
			const unsigned char *b = (const unsigned char *)f->data;
			new_snowflake(a[i].id, sizeof a[i].id);
			a[i].filename = utf8_clean(pa->filename, strlen(pa->filename));
			copy_str(a[i].content_type, sizeof a[i].content_type,
			         f->has_ctype ? f->ctype : "application/octet-stream");
			utf8_fix(a[i].content_type);
			a[i].size = f->len;
			sha1_hex(f->data, f->len, a[i].sha1);
			if (f->len >= 24 && !memcmp(b, png_signature, 8) &&
			    !memcmp(b + 12, "IHDR", 4)) {
				uint32_t w = (uint32_t)b[16] << 24 | (uint32_t)b[17] << 16 |
				             (uint32_t)b[18] << 8 | b[19];
				uint32_t h = (uint32_t)b[20] << 24 | (uint32_t)b[21] << 16 |
				             (uint32_t)b[22] << 8 | b[23];
				a[i].width = w > INT32_MAX ? 0 : (int)w;
				a[i].height = h > INT32_MAX ? 0 : (int)h;
			}
		}
		attachments_free(m->att, m->natt);
		m->att = a;
		m->natt = pl->n;
	}
	attachments_show(m);
}

/* ---------------------------------------------------------------------------------------- */
/* Gateway: outgoing frames */

static void log_close(struct conn *c, int code, const char *by);

static void conn_request_write(struct conn *c)
{
	if (c->wsi)
		lws_callback_on_writable(c->wsi);
}

static void q_push(struct conn *c, struct qitem *it)
{
	if (c->qcount >= OUT_MAX_ITEMS || c->qbytes + it->len > OUT_MAX_BYTES) {
		free(it->data);
		free(it);
		if (!c->closing) {
			violation(c->id, "the client does not read its gateway connection");
			c->closing = 1;
			log_close(c, -1, "server");
			struct qitem *ab = xcalloc(1, sizeof *ab);
			ab->kind = Q_ABRUPT;
			/* bypass the limits for the final item */
			if (c->qtail)
				c->qtail->next = ab;
			else
				c->qhead = ab;
			c->qtail = ab;
			c->qcount++;
		}
		conn_request_write(c);
		return;
	}
	if (c->qtail)
		c->qtail->next = it;
	else
		c->qhead = it;
	c->qtail = it;
	c->qcount++;
	c->qbytes += it->len;
	conn_request_write(c);
}

/* Queues one message, deflated through the connection's stream for zlib-stream; a load
 * generator dispatch carries its channel and interaction to time the write. */
static void q_text_load(struct conn *c, const char *text, size_t len, uint32_t load, uint64_t iid)
{
	struct qitem *it = xcalloc(1, sizeof *it);
	it->kind = Q_FRAME;
	it->load = load;
	it->load_iid = iid;
	if (c->zlib) {
		size_t cap = len / 2 + 1024;
		unsigned char *out = xcalloc(1, LWS_PRE + cap);
		c->zs.next_in = (Bytef *)(uintptr_t)text;
		c->zs.avail_in = (uInt)len;
		size_t used = 0;
		for (;;) {
			c->zs.next_out = out + LWS_PRE + used;
			c->zs.avail_out = (uInt)(cap - used);
			int r = deflate(&c->zs, Z_SYNC_FLUSH);
			used = cap - c->zs.avail_out;
			if (r != Z_OK && r != Z_BUF_ERROR)
				break;
			if (c->zs.avail_out > 0 && c->zs.avail_in == 0)
				break;
			cap *= 2;
			unsigned char *n = realloc(out, LWS_PRE + cap);
			if (!n) {
				fprintf(stderr, "fakediscord: out of memory\n");
				exit(2);
			}
			out = n;
		}
		it->data = out;
		it->len = used;
		it->binary = 1;
	} else {
		it->data = xcalloc(1, LWS_PRE + len + 1);
		memcpy(it->data + LWS_PRE, text, len);
		it->len = len;
	}
	q_push(c, it);
}

static void q_text(struct conn *c, const char *text, size_t len)
{
	q_text_load(c, text, len, 0, 0);
}

static void log_close(struct conn *c, int code, const char *by)
{
	if (c->close_logged)
		return;
	c->close_logged = 1;
	cJSON *e = entry_new("gw_close");
	cJSON_AddNumberToObject(e, "conn", c->id);
	if (code >= 0)
		cJSON_AddNumberToObject(e, "code", code);
	else
		cJSON_AddNullToObject(e, "code");
	cJSON_AddStringToObject(e, "by", by);
	log_commit(e);
}

static void session_invalidate(struct session *s, const char *why)
{
	if (!s || !s->valid)
		return;
	s->valid = 0;
	copy_str(s->why_invalid, sizeof s->why_invalid, why);
}

static void conn_detach(struct conn *c)
{
	if (c->sess && c->sess->conn == c)
		c->sess->conn = NULL;
	c->sess = NULL;
	c->authed = 0;
}

/* Closes a connection from the server side: code < 0 drops it without a close frame. */
static void conn_close(struct conn *c, int code)
{
	if (c->closing)
		return;
	c->closing = 1;
	log_close(c, code, "server");
	if (code == 4007 || code == 4009 || code == 4004 || code >= 4010)
		session_invalidate(c->sess,
		                   code == 4009 ? "closed with 4009" : "closed with a code");
	struct qitem *it = xcalloc(1, sizeof *it);
	it->kind = code < 0 ? Q_ABRUPT : Q_CLOSE;
	it->code = code;
	q_push(c, it);
}

__attribute__((format(printf, 3, 4))) static void conn_fail(struct conn *c, int code,
                                                            const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	violation(c->id, "%s (closed with %d)", what, code);
	conn_close(c, code);
}

/* Sends {"op","d","s","t"}; takes ownership of d. */
static void send_op(struct conn *c, int op, cJSON *d, int64_t s, const char *t)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddNumberToObject(m, "op", op);
	cJSON_AddItemToObject(m, "d", d ? d : cJSON_CreateNull());
	if (s >= 0)
		cJSON_AddNumberToObject(m, "s", (double)s);
	else
		cJSON_AddNullToObject(m, "s");
	if (t)
		cJSON_AddStringToObject(m, "t", t);
	else
		cJSON_AddNullToObject(m, "t");
	char *text = cJSON_PrintUnformatted(m);
	cJSON_Delete(m);
	if (!text)
		return;
	cJSON *e = entry_new("gw_out");
	cJSON_AddNumberToObject(e, "conn", c->id);
	cJSON_AddNumberToObject(e, "op", op);
	if (t)
		cJSON_AddStringToObject(e, "t", t);
	else
		cJSON_AddNullToObject(e, "t");
	if (s >= 0)
		cJSON_AddNumberToObject(e, "s", (double)s);
	else
		cJSON_AddNullToObject(e, "s");
	log_commit(e);
	q_text(c, text, strlen(text));
	free(text);
}

/* ---------------------------------------------------------------------------------------- */
/* Gateway: sessions and dispatches */

static void random_hex(char *out, size_t nbytes)
{
	unsigned char raw[32];
	if (nbytes > sizeof raw)
		nbytes = sizeof raw;
	int fd = open("/dev/urandom", O_RDONLY);
	ssize_t got = fd >= 0 ? read(fd, raw, nbytes) : -1;
	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)nbytes) {
		uint64_t x = (uint64_t)now_us() ^ (uint64_t)getpid() << 32;
		for (size_t i = 0; i < nbytes; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			raw[i] = (unsigned char)(x >> 56);
		}
	}
	for (size_t i = 0; i < nbytes; i++)
		sprintf(out + 2 * i, "%02x", raw[i]);
}

static struct session *session_new(void)
{
	struct session *s = xcalloc(1, sizeof *s);
	random_hex(s->id, 16);
	s->valid = 1;
	s->next = F.sessions;
	F.sessions = s;
	F.nsessions++;
	return s;
}

static struct session *session_find(const char *id)
{
	for (struct session *s = F.sessions; s; s = s->next)
		if (!strcmp(s->id, id))
			return s;
	return NULL;
}

/* The URL arguments joined with '&' (lws keeps each urldecoded as one fragment). */
static void copy_query(struct lws *wsi, char *out, size_t size)
{
	size_t used = 0;
	char frag[MAX_QUERY];
	out[0] = '\0';
	for (int i = 0; i < 64; i++) {
		int n = lws_hdr_copy_fragment(wsi, frag, sizeof frag, WSI_TOKEN_HTTP_URI_ARGS, i);
		if (n < 0)
			break;
		if (used + (size_t)n + 2 > size)
			break;
		if (used)
			out[used++] = '&';
		memcpy(out + used, frag, (size_t)n);
		used += (size_t)n;
		out[used] = '\0';
	}
}

static int conn_live(const struct conn *c)
{
	return c && c->wsi && c->authed && !c->closing;
}

/* Builds the text of a dispatch. */
static char *dispatch_text(const char *t, int64_t s, const cJSON *d)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddNumberToObject(m, "op", 0);
	/* an object is referred to, not copied */
	cJSON_AddItemToObject(m, "d",
	                      !d                  ? cJSON_CreateObject()
	                      : cJSON_IsObject(d) ? cJSON_CreateObjectReference(d->child)
	                                          : cJSON_Duplicate(d, 1));
	cJSON_AddNumberToObject(m, "s", (double)s);
	cJSON_AddStringToObject(m, "t", t);
	char *text = cJSON_PrintUnformatted(m);
	cJSON_Delete(m);
	return text;
}

static void deliver(struct conn *c, const char *t, int64_t s, const char *text, int replay,
                    const char *iid)
{
	struct interaction *it = iid && iid[0] ? interaction_find(iid) : NULL;
	if (it)
		it->delivered = now_us();
	cJSON *e = entry_new("gw_out");
	cJSON_AddNumberToObject(e, "conn", c->id);
	cJSON_AddNumberToObject(e, "op", 0);
	cJSON_AddStringToObject(e, "t", t);
	cJSON_AddNumberToObject(e, "s", (double)s);
	if (replay)
		cJSON_AddTrueToObject(e, "replay");
	log_commit(e);
	q_text(c, text, strlen(text));
}

/* Sends a dispatch with the session's next sequence number; keeps it for RESUME if asked. */
static int64_t session_dispatch(struct session *ss, const char *t, const cJSON *d, int keep,
                                const char *iid)
{
	int64_t s = ++ss->seq;
	char *text = dispatch_text(t, s, d);
	if (!text)
		return s;
	if (conn_live(ss->conn))
		deliver(ss->conn, t, s, text, 0, iid);
	if (keep) {
		if (ss->nev == MAX_EVENTS) {
			size_t drop = MAX_EVENTS / 2;
			for (size_t i = 0; i < drop; i++)
				free(ss->ev[i].json);
			memmove(ss->ev, ss->ev + drop, (ss->nev - drop) * sizeof *ss->ev);
			ss->nev -= drop;
			ss->dropped = 1;
		}
		if (ss->nev == ss->cap) {
			size_t cap = ss->cap ? ss->cap * 2 : 16;
			struct event *ev = realloc(ss->ev, cap * sizeof *ev);
			if (!ev) {
				free(text);
				return s;
			}
			ss->ev = ev;
			ss->cap = cap;
		}
		struct event *ev = &ss->ev[ss->nev++];
		ev->s = s;
		ev->json = text;
		ev->len = strlen(text);
		copy_str(ev->iid, sizeof ev->iid, iid ? iid : "");
	} else {
		free(text);
	}
	return s;
}

/* ---------------------------------------------------------------------------------------- */
/* Gateway: incoming frames */

static cJSON *redact_d(const cJSON *d)
{
	cJSON *copy = cJSON_Duplicate(d, 1);
	cJSON *tok = cJSON_GetObjectItemCaseSensitive(copy, "token");
	if (cJSON_IsString(tok))
		cJSON_ReplaceItemInObjectCaseSensitive(
		    copy, "token",
		    cJSON_CreateString(strcmp(tok->valuestring, F.token) ? "<wrong>" : "<token>"));
	return copy;
}

static void send_ready(struct conn *c)
{
	char url[128];
	snprintf(url, sizeof url, "ws://127.0.0.1:%d/resume", F.port);
	cJSON *d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "v", 10);
	cJSON *user = cJSON_AddObjectToObject(d, "user");
	cJSON_AddStringToObject(user, "id", F.app_id);
	cJSON_AddStringToObject(user, "username", "rlyeh");
	cJSON_AddStringToObject(user, "discriminator", "0");
	cJSON_AddBoolToObject(user, "bot", 1);
	cJSON_AddNullToObject(user, "global_name");
	cJSON_AddNullToObject(user, "avatar");
	cJSON_AddNumberToObject(user, "flags", 0);
	cJSON_AddBoolToObject(user, "verified", 1);
	cJSON_AddBoolToObject(user, "mfa_enabled", 0);
	cJSON *guilds = cJSON_AddArrayToObject(d, "guilds");
	int sid = c->sess->shard[0], count = c->sess->shard[1];
	for (int i = 0; i < U.nguilds; i++) {
		if (count > 0 && guild_shard(U.guild[i], count) != sid)
			continue;
		cJSON *g = cJSON_CreateObject();
		cJSON_AddStringToObject(g, "id", U.guild[i]);
		cJSON_AddTrueToObject(g, "unavailable");
		cJSON_AddItemToArray(guilds, g);
	}
	cJSON_AddStringToObject(d, "session_id", c->sess->id);
	cJSON_AddStringToObject(d, "session_type", "normal");
	cJSON_AddStringToObject(d, "resume_gateway_url", url);
	if (c->sess->shard[1] > 0) {
		cJSON *shard = cJSON_AddArrayToObject(d, "shard");
		cJSON_AddItemToArray(shard, cJSON_CreateNumber(c->sess->shard[0]));
		cJSON_AddItemToArray(shard, cJSON_CreateNumber(c->sess->shard[1]));
	}
	cJSON *app = cJSON_AddObjectToObject(d, "application");
	cJSON_AddStringToObject(app, "id", F.app_id);
	cJSON_AddNumberToObject(app, "flags", 0);
	session_dispatch(c->sess, "READY", d, 0, NULL);
	cJSON_Delete(d);
	/* Then each of its guilds becomes available (on this shard only). */
	for (int i = 0; i < U.nguilds; i++) {
		if (count > 0 && guild_shard(U.guild[i], count) != sid)
			continue;
		cJSON *g = cJSON_CreateObject();
		char name[48];
		snprintf(name, sizeof name, "guild %s", U.guild[i]);
		cJSON_AddStringToObject(g, "id", U.guild[i]);
		cJSON_AddStringToObject(g, "name", name);
		cJSON_AddBoolToObject(g, "unavailable", 0);
		cJSON_AddNumberToObject(g, "member_count", 4);
		cJSON_AddStringToObject(g, "preferred_locale", "en-US");
		cJSON_AddStringToObject(g, "joined_at", MEMBER_JOINED_AT);
		cJSON_AddArrayToObject(g, "channels");
		cJSON_AddArrayToObject(g, "threads");
		session_dispatch(c->sess, "GUILD_CREATE", g, 1, NULL);
		cJSON_Delete(g);
	}
}

/* The session that receives a guild's events: the most recently identified or resumed valid
 * session covering it (unsharded, or its shard), else the most recent one covering it even
 * if invalid (the events are lost, as on Discord), else the current one. */
static struct session *session_for_guild(const char *gid)
{
	struct session *best = NULL, *any = NULL;
	for (struct session *s = F.sessions; s; s = s->next) {
		if (s->shard[1] > 0 && guild_shard(gid, s->shard[1]) != s->shard[0])
			continue;
		if (s->valid && (!best || s->active > best->active))
			best = s;
		if (!any || s->active > any->active)
			any = s;
	}
	return best ? best : any ? any : F.current;
}

/* Logs which session a connection took up and how. */
static void log_session(struct conn *c, const char *how)
{
	cJSON *e = entry_new("gw_session");
	cJSON_AddNumberToObject(e, "conn", c->id);
	cJSON_AddStringToObject(e, "how", how);
	cJSON_AddStringToObject(e, "session", c->sess->id);
	if (c->sess->shard[1] > 0) {
		cJSON_AddNumberToObject(e, "shard", c->sess->shard[0]);
		cJSON_AddNumberToObject(e, "shards", c->sess->shard[1]);
	} else {
		cJSON_AddNullToObject(e, "shard");
	}
	log_commit(e);
}

/* Session starts come back once their reset time has passed. */
static void starts_refill(int64_t now)
{
	if (F.remaining_starts == 0 && F.starts_reset_at && now >= F.starts_reset_at) {
		F.remaining_starts = 1000;
		F.starts_reset_at = 0;
	}
}

static void on_identify(struct conn *c, const cJSON *d)
{
	if (c->authed) {
		conn_fail(c, 4005, "IDENTIFY on an identified connection");
		return;
	}
	const cJSON *tok = cJSON_GetObjectItemCaseSensitive(d, "token");
	const cJSON *intents = cJSON_GetObjectItemCaseSensitive(d, "intents");
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(d, "properties");
	if (!cJSON_IsObject(d) || !cJSON_IsString(tok) || !cJSON_IsNumber(intents)) {
		conn_fail(c, 4002, "IDENTIFY without token or intents");
		return;
	}
	if (strcmp(tok->valuestring, F.token)) {
		conn_fail(c, 4004, "IDENTIFY with a wrong token");
		return;
	}
	if (!cJSON_IsObject(props) ||
	    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(props, "os")) ||
	    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(props, "browser")) ||
	    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(props, "device")))
		violation(c->id, "IDENTIFY properties need os, browser and device strings");
	int shard_id = 0, shard_count = 0;
	const cJSON *shard = cJSON_GetObjectItemCaseSensitive(d, "shard");
	if (shard) {
		if (cJSON_GetArraySize(shard) != 2 ||
		    !cJSON_IsNumber(cJSON_GetArrayItem(shard, 0)) ||
		    !cJSON_IsNumber(cJSON_GetArrayItem(shard, 1))) {
			conn_fail(c, 4010, "IDENTIFY shard is not [shard_id, num_shards]");
			return;
		}
		shard_id = cJSON_GetArrayItem(shard, 0)->valueint;
		shard_count = cJSON_GetArrayItem(shard, 1)->valueint;
		if (shard_count < 1 || shard_id < 0 || shard_id >= shard_count) {
			conn_fail(c, 4010,
			          "IDENTIFY shard [%d, %d] is not [id, count] with id < count",
			          shard_id, shard_count);
			return;
		}
	}
	int64_t now = now_us();
	int bucket = shard_id % F.max_concurrency;
	if (F.bucket_last[bucket] && now - F.bucket_last[bucket] < 5 * LWS_US_PER_SEC) {
		violation(c->id,
		          "two IDENTIFYs within 5 s in rate-limit bucket %d (max_concurrency %d), "
		          "%lld ms apart",
		          bucket, F.max_concurrency,
		          (long long)((now - F.bucket_last[bucket]) / LWS_US_PER_MS));
		if (F.strict_starts) {
			/* Refused: the session start is not counted. */
			send_op(c, 9, cJSON_CreateFalse(), -1, NULL);
			return;
		}
	}
	F.bucket_last[bucket] = now;
	F.last_identify = now;
	F.identifies++;
	starts_refill(now);
	if (F.remaining_starts > 0)
		F.remaining_starts--;
	else
		violation(c->id, "IDENTIFY with no session starts left (1000 per day)");
	int on_shard = guilds_on_shard(shard_id, shard_count);
	if (on_shard > F.guilds_per_shard) {
		/* Sharding required: not a protocol violation, Discord's answer. */
		cJSON *e = entry_new("gw_refused");
		cJSON_AddNumberToObject(e, "conn", c->id);
		cJSON_AddNumberToObject(e, "code", 4011);
		cJSON_AddNumberToObject(e, "guilds", on_shard);
		cJSON_AddNumberToObject(e, "shard", shard_id);
		cJSON_AddNumberToObject(e, "shards", shard_count);
		log_commit(e);
		conn_close(c, 4011);
		return;
	}
	struct session *s = session_new();
	s->shard[0] = shard_id;
	s->shard[1] = shard_count;
	s->active = ++F.active_clock;
	c->sess = s;
	c->authed = 1;
	s->conn = c;
	F.current = s;
	log_session(c, "identify");
	send_ready(c);
}

static void on_resume(struct conn *c, const cJSON *d)
{
	if (c->authed) {
		conn_fail(c, 4005, "RESUME on an identified connection");
		return;
	}
	const cJSON *tok = cJSON_GetObjectItemCaseSensitive(d, "token");
	const cJSON *sid = cJSON_GetObjectItemCaseSensitive(d, "session_id");
	const cJSON *seq = cJSON_GetObjectItemCaseSensitive(d, "seq");
	if (!cJSON_IsObject(d) || !cJSON_IsString(tok) || !cJSON_IsString(sid) ||
	    !cJSON_IsNumber(seq)) {
		conn_fail(c, 4002, "RESUME needs token, session_id and seq");
		return;
	}
	if (strcmp(tok->valuestring, F.token)) {
		conn_fail(c, 4004, "RESUME with a wrong token");
		return;
	}
	struct session *s = session_find(sid->valuestring);
	if (!s || !s->valid) {
		violation(c->id, "RESUME of %s session %.40s", s ? s->why_invalid : "an unknown",
		          sid->valuestring);
		send_op(c, 9, cJSON_CreateFalse(), -1, NULL);
		return;
	}
	int64_t from = (int64_t)seq->valuedouble;
	if (from > s->seq || from < 0) {
		conn_fail(c, 4007, "RESUME with seq %lld, the session is at %lld", (long long)from,
		          (long long)s->seq);
		return;
	}
	if (s->dropped && s->nev && from + 1 < s->ev[0].s) {
		send_op(c, 9, cJSON_CreateFalse(), -1, NULL); /* cannot replay that far back */
		return;
	}
	if (s->conn && s->conn != c) {
		struct conn *old = s->conn;
		conn_detach(old);
		conn_close(old, 4000);
	}
	s->conn = c;
	c->sess = s;
	c->authed = 1;
	F.current = s;
	F.resumes++;
	s->active = ++F.active_clock;
	log_session(c, "resume");
	for (size_t i = 0; i < s->nev; i++) {
		struct event *ev = &s->ev[i];
		if (ev->s > from) {
			cJSON *m = cJSON_ParseWithLength(ev->json, ev->len);
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(m, "t");
			deliver(c, cJSON_IsString(t) ? t->valuestring : "?", ev->s, ev->json, 1,
			        ev->iid);
			cJSON_Delete(m);
		}
	}
	cJSON *empty = cJSON_CreateObject();
	session_dispatch(s, "RESUMED", empty, 0, NULL);
	cJSON_Delete(empty);
}

static void on_heartbeat(struct conn *c, const cJSON *d)
{
	F.heartbeats++;
	c->last_beat = now_us();
	c->beat_request_due = 0;
	if (!cJSON_IsNull(d) && !cJSON_IsNumber(d))
		violation(c->id, "HEARTBEAT d must be the last sequence number or null");
	if (F.withhold_acks > 0) {
		F.withhold_acks--;
		F.acks_withheld++;
		return;
	}
	send_op(c, 11, NULL, -1, NULL);
}

static int rate_exceeded(struct conn *c)
{
	int64_t now = now_us();
	if (c->nframes == RATE_FRAMES) {
		int64_t oldest = c->frames[c->frame_head];
		if (now - oldest < RATE_WINDOW_US)
			return 1;
		c->frames[c->frame_head] = now;
		c->frame_head = (c->frame_head + 1) % RATE_FRAMES;
		return 0;
	}
	c->frames[(c->frame_head + c->nframes++) % RATE_FRAMES] = now;
	return 0;
}

static void on_message(struct conn *c, const char *text, size_t len)
{
	if (rate_exceeded(c)) {
		conn_fail(c, 4008, "more than %d gateway frames within 60 s", RATE_FRAMES);
		return;
	}
	cJSON *m = utf8_valid(text, len) ? cJSON_ParseWithLength(text, len) : NULL;
	const cJSON *op = cJSON_GetObjectItemCaseSensitive(m, "op");
	if (!cJSON_IsObject(m) || !cJSON_IsNumber(op)) {
		char *clean = utf8_clean(text, len > 200 ? 200 : len);
		cJSON *e = entry_new("gw_in");
		cJSON_AddNumberToObject(e, "conn", c->id);
		cJSON_AddNullToObject(e, "op");
		cJSON_AddStringToObject(e, "raw", clean);
		log_commit(e);
		free(clean);
		cJSON_Delete(m);
		conn_fail(c, 4002, "a gateway payload that is not a UTF-8 JSON object with an op");
		return;
	}
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(m, "d");
	int o = op->valueint;
	cJSON *e = entry_new("gw_in");
	cJSON_AddNumberToObject(e, "conn", c->id);
	cJSON_AddNumberToObject(e, "op", o);
	cJSON_AddItemToObject(e, "d", d ? redact_d(d) : cJSON_CreateNull());
	log_commit(e);
	if (!c->authed && o != 1 && o != 2 && o != 6) {
		if (o == 3 || o == 4 || o == 8)
			conn_fail(c, 4003, "op %d before IDENTIFY", o);
		else
			conn_fail(c, 4001, "unknown opcode %d", o);
		cJSON_Delete(m);
		return;
	}
	switch (o) {
	case 1:
		on_heartbeat(c, d);
		break;
	case 2:
		on_identify(c, d);
		break;
	case 6:
		on_resume(c, d);
		break;
	case 3:
	case 4:
	case 8:
		break;
	default:
		conn_fail(c, 4001, "unknown opcode %d", o);
	}
	cJSON_Delete(m);
}

/* ---------------------------------------------------------------------------------------- */
/* Gateway: lws callbacks */

static struct conn *conn_open(struct lws *wsi)
{
	struct conn *c = xcalloc(1, sizeof *c);
	c->wsi = wsi;
	c->id = ++F.next_conn;
	c->last_beat = now_us();
	if (lws_hdr_copy(wsi, c->path, sizeof c->path, WSI_TOKEN_GET_URI) < 0)
		copy_str(c->path, sizeof c->path, "?");
	copy_query(wsi, c->query, sizeof c->query);
	utf8_fix(c->path);
	utf8_fix(c->query);
	c->next = F.conns;
	F.conns = c;
	return c;
}

static void conn_free(struct conn *c)
{
	for (struct conn **p = &F.conns; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
	conn_detach(c);
	while (c->qhead) {
		struct qitem *it = c->qhead;
		c->qhead = it->next;
		free(it->data);
		free(it);
	}
	if (c->zlib)
		deflateEnd(&c->zs);
	buf_free(&c->rx);
	free(c);
}

/* Writes the next queued item; returns -1 to close the connection. */
static int conn_write_one(struct conn *c)
{
	struct qitem *it = c->qhead;
	if (!it)
		return 0;
	if (it->kind == Q_CLOSE) {
		lws_close_reason(c->wsi, (enum lws_close_status)it->code, NULL, 0);
		return -1;
	}
	if (it->kind == Q_ABRUPT) {
		shutdown(lws_get_socket_fd(c->wsi), SHUT_RDWR);
		return -1;
	}
	size_t n = it->len - it->off;
	if (n > FRAGMENT)
		n = FRAGMENT;
	int start = it->off == 0, end = it->off + n == it->len;
	int flags = lws_write_ws_flags(it->binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT, start, end);
	if (lws_write(c->wsi, it->data + LWS_PRE + it->off, n, (enum lws_write_protocol)flags) <
	    (int)n)
		return -1;
	it->off += n;
	if (end) {
		if (it->load)
			load_written(it->load, it->load_iid);
		c->qhead = it->next;
		if (!c->qhead)
			c->qtail = NULL;
		c->qcount--;
		c->qbytes -= it->len;
		free(it->data);
		free(it);
	}
	return 0;
}

/* Writes queued frames while the socket takes them (a few per call, so that one busy
 * connection does not hold up the others); returns -1 to close the connection. */
static int conn_writable(struct conn *c)
{
	for (int i = 0; i < 32; i++) {
		if (conn_write_one(c) < 0)
			return -1;
		if (!c->qhead || c->qhead->kind != Q_FRAME || lws_send_pipe_choked(c->wsi))
			break;
	}
	if (c->qhead)
		lws_callback_on_writable(c->wsi);
	return 0;
}

static void conn_receive(struct conn *c, struct lws *wsi, const void *in, size_t len)
{
	if (c->closing)
		return;
	if (lws_is_first_fragment(wsi) && c->rx.len == 0)
		c->rx_bad = lws_frame_is_binary(wsi);
	if (!c->rx_bad && buf_add(&c->rx, in, len, MAX_FRAME_IN) < 0) {
		conn_fail(c, 4002, "a gateway payload over %d bytes", MAX_FRAME_IN);
		return;
	}
	if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi))
		return;
	if (c->rx_bad) {
		conn_fail(c, 4002, "a binary gateway frame with encoding=json");
		return;
	}
	on_message(c, c->rx.p ? c->rx.p : "", c->rx.len);
	c->rx.len = 0;
}

/* ---------------------------------------------------------------------------------------- */
/* HTTP */

enum { M_GET, M_POST, M_PUT, M_PATCH, M_DELETE, M_OTHER };
static const char *const method_names[] = { "GET", "POST", "PUT", "PATCH", "DELETE", "OTHER" };

struct hdr {
	char name[48];
	char value[160];
};

struct req {
	struct lws *wsi;
	int method;
	char path[MAX_PATH];
	char query[MAX_QUERY];
	char auth[512];
	char ua[512];
	char ctype[256];
	int has_auth, has_ua, has_ctype;
	struct buf body;
	size_t body_max; /* MAX_BODY, or MAX_FORM_BODY for multipart/form-data */
	int too_large;
	int multipart;        /* the body is multipart/form-data (API requests) */
	struct form *form;    /* that body taken apart, or NULL */
	char form_error[256]; /* why it could not be */
	/* response */
	int status;
	struct hdr hdrs[16];
	int nhdrs;
	unsigned char *resp; /* LWS_PRE headroom */
	size_t resp_len, resp_off, resp_cap;
	int hdr_sent;
	int handled;
	int ready;
	int shutdown_after;
	lws_sorted_usec_list_t delay;
	cJSON *ping;     /* for the log: whom a message request notified */
	int64_t arrived; /* when its headers were read */
};

struct pss {
	struct req *req;
	struct conn *conn;
};

static void req_free(struct req *r)
{
	if (!r)
		return;
	lws_sul_cancel(&r->delay);
	buf_free(&r->body);
	cJSON_Delete(r->ping);
	free(r->form);
	free(r->resp);
	free(r);
}

static void add_header(struct req *r, const char *name, const char *value)
{
	if (r->nhdrs == (int)(sizeof r->hdrs / sizeof r->hdrs[0]))
		return;
	copy_str(r->hdrs[r->nhdrs].name, sizeof r->hdrs[0].name, name);
	copy_str(r->hdrs[r->nhdrs].value, sizeof r->hdrs[0].value, value);
	r->nhdrs++;
}

static void set_body(struct req *r, int status, const char *text)
{
	size_t n = text ? strlen(text) : 0;
	r->status = status;
	if (LWS_PRE + n + 1 > r->resp_cap) {
		free(r->resp);
		r->resp_cap = LWS_PRE + n + 1 > 4096 ? LWS_PRE + n + 1 : 4096;
		r->resp = xcalloc(1, r->resp_cap);
	}
	if (n)
		memcpy(r->resp + LWS_PRE, text, n);
	r->resp[LWS_PRE + n] = '\0';
	r->resp_len = n;
}

/* Sets the response from a JSON value (consumed). */
static void set_json(struct req *r, int status, cJSON *j)
{
	char *s = j ? cJSON_PrintUnformatted(j) : NULL;
	cJSON_Delete(j);
	set_body(r, status, s ? s : "");
	free(s);
}

/* Sets the response from a JSON value that stays the caller's. */
static void set_json_of(struct req *r, int status, const cJSON *j)
{
	char *s = cJSON_PrintUnformatted(j);
	set_body(r, status, s ? s : "");
	free(s);
}

static void set_error(struct req *r, int status, const char *message, int code)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "message", message);
	cJSON_AddNumberToObject(j, "code", code);
	set_json(r, status, j);
}

static void stop_due(lws_sorted_usec_list_t *sul)
{
	(void)sul;
	F.stop = 1;
	lws_cancel_service(F.ctx);
}

/* Writes the response: headers first, then the body in pieces. */
static int http_writable(struct lws *wsi, struct req *r)
{
	if (!r || !r->ready)
		return 0;
	if (!r->hdr_sent) {
		unsigned char hbuf[LWS_PRE + 4096];
		unsigned char *start = hbuf + LWS_PRE, *p = start, *end = hbuf + sizeof hbuf - 1;
		if (lws_add_http_common_headers(wsi, (unsigned int)r->status,
		                                r->status == 204 ? NULL : "application/json",
		                                r->resp_len, &p, end))
			return -1;
		for (int i = 0; i < r->nhdrs; i++) {
			char name[64];
			snprintf(name, sizeof name, "%s:", r->hdrs[i].name);
			if (lws_add_http_header_by_name(wsi, (const unsigned char *)name,
			                                (const unsigned char *)r->hdrs[i].value,
			                                (int)strlen(r->hdrs[i].value), &p, end))
				return -1;
		}
		if (lws_finalize_write_http_header(wsi, start, &p, end))
			return -1;
		r->hdr_sent = 1;
		if (r->resp_len && lws_send_pipe_choked(wsi)) {
			lws_callback_on_writable(wsi);
			return 0;
		}
	}
	if (r->resp_off < r->resp_len) {
		size_t n = r->resp_len - r->resp_off;
		if (n > FRAGMENT)
			n = FRAGMENT;
		int final = r->resp_off + n == r->resp_len;
		if (lws_write(wsi, r->resp + LWS_PRE + r->resp_off, n,
		              final ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < (int)n)
			return -1;
		r->resp_off += n;
		if (!final) {
			lws_callback_on_writable(wsi);
			return 0;
		}
	}
	if (r->shutdown_after)
		lws_sul_schedule(F.ctx, 0, &F.stop_sul, stop_due, 100 * LWS_US_PER_MS);
	r->ready = 0;
	if (lws_http_transaction_completed(wsi))
		return -1;
	return 0;
}

/* Answers a handled request at once when the socket takes it (one trip through the event loop
 * fewer), else when it becomes writable; a delayed answer waits for its timer. */
static int http_respond(struct lws *wsi, struct req *r)
{
	if (r->ready && !lws_send_pipe_choked(wsi))
		return http_writable(wsi, r);
	if (r->ready)
		lws_callback_on_writable(wsi);
	return 0;
}

static void delay_due(lws_sorted_usec_list_t *sul)
{
	struct req *r = lws_container_of(sul, struct req, delay);
	r->ready = 1;
	lws_callback_on_writable(r->wsi);
}

/* Value of a query argument, or NULL. */
static const char *query_arg(const char *query, const char *name, char *out, size_t size)
{
	size_t nl = strlen(name);
	const char *p = query;
	while (p && *p) {
		const char *amp = strchr(p, '&');
		size_t seg = amp ? (size_t)(amp - p) : strlen(p);
		if (seg > nl && !strncmp(p, name, nl) && p[nl] == '=') {
			size_t vl = seg - nl - 1;
			if (vl >= size)
				vl = size - 1;
			memcpy(out, p + nl + 1, vl);
			out[vl] = '\0';
			return out;
		}
		p = amp ? amp + 1 : NULL;
	}
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Load generator: many channels playing at once, through the gateway and the HTTP API.
 *
 * Each channel is a table of three scripted humans (alice, bob and carol, with user ids of
 * their own) and, for a share of the channels, a computer player. The fake sends the
 * INTERACTION_CREATEs that Discord would (slash commands /open, /join, /rematch and /status;
 * clicks on the buttons the bot sent) and reads the bot's tables (embed description and
 * buttons, from callbacks, follow-ups and channel messages) to choose the next legal move for
 * the right player. A channel has one interaction in flight at a time; it acts again once
 * the callback came and a table it has not acted on is known. Latency runs from the write of
 * the dispatch frame to the callback POST.
 *
 * POST /_fake/load {"channels":N, "duration_s":S, "mode":"steady"|"burst", "rate":R (paced
 * interactions/s; 0: as fast as the answers allow), "concurrency":C (in flight at most),
 * "keep_open":bool (tables stop once their game is started), "computer":0..1 (share of the
 * tables with a computer player), "slash":0..1 (share of the Eye choices and responses typed
 * as slash commands rather than clicked), "guild":"id", "guilds":["id", ...] (up to 64; channel i
 * is in guilds[i % n], so that the tables spread over the shards; it replaces "guild"),
 * "seed":n} starts a run; {"stop":true} ends it.
 * Burst mode dispatches in the even seconds only. GET /_fake/load: running, sent, answered,
 * errors (callbacks not 2xx or private), timeouts (no callback within 5 s), elapsed_s, rate,
 * busy_s and busy_rate (burst), p50/p90/p99/p999/max/mean_ms, games_finished, games_open,
 * violations, unlogged (requests kept out of the log while the run goes on), per_s (callbacks
 * in each second), requests (the bot's API requests during the run by kind: callback, webhook
 * (followups and edits of interaction messages), channel_create, channel_edit, get (any GET),
 * other; and total) and requests_per_interaction (total / answered); doubled (callbacks
 * refused as the second answer to one interaction), games_announced (games whose buttons were
 * seen) and with ?games=1 "announced": [[game, highest move number its buttons showed], ...].
 *
 * A channel acts on its newest table: the newest message with buttons the bot made there (type 4
 * callback, followup, channel POST, or an edit that gives buttons). A table that loses its
 * buttons (PATCH or type 7 with "components": []) is frozen: the channel waits for the next
 * table (or asks /status), and a button is only clicked while its message still has it. */

/* The kinds of API request counted during a load run. */
enum { K_CALLBACK, K_WEBHOOK, K_CREATE, K_EDIT, K_GET, K_OTHER, K_KINDS };
static const char *const kind_names[K_KINDS] = { "callback",     "webhook", "channel_create",
	                                         "channel_edit", "get",     "other" };

#define LOAD_CHANNELS_MAX 100000
#define LOAD_IDS          8
#define LOAD_ID_LEN       48
#define LOAD_TIMEOUT_US   (5 * LWS_US_PER_SEC) /* no callback by then: given up */
#define LOAD_STALL_US     (2 * LWS_US_PER_SEC) /* answered but no new table by then: /status */
#define LOAD_DRAIN_US     (6 * LWS_US_PER_SEC) /* after the duration, for the answers in flight */
#define LOAD_PACE_MIN_US  (1 * LWS_US_PER_MS)  /* the pacing timer: one dispatch's time, */
#define LOAD_PACE_MAX_US  (10 * LWS_US_PER_MS) /* within these bounds */
#define LOAD_SCAN_US      (100 * LWS_US_PER_MS)
#define LOAD_SECONDS_MAX  3600
#define LOAD_GUILDS_MAX   64
#define LOAD_PROBES_MAX   3
/* Latency histogram: 1 us buckets below 10 ms, 10 us below 100 ms, 1 ms below 10 s. */
#define HIST_FINE   10000
#define HIST_MID    19000
#define HIST_COARSE 28900
#define HIST_N      (HIST_COARSE + 1)

enum { T_NONE, T_LOBBY, T_CURSE, T_EYE, T_RESPOND, T_OVER, T_OTHER };

static const char *const load_names[3] = { "alice", "bob", "carol" };

struct lchan {
	char cid[24];
	int guild; /* index in L.guild */
	uint64_t user[3];
	int computer;   /* the table gets a computer player */
	int opened;     /* /open was sent */
	int done;       /* keep_open: its game is started and left in progress */
	int broken;     /* gave up after LOAD_PROBES_MAX fruitless /status */
	int in_ready;   /* in the ready queue */
	int want_probe; /* the next interaction is a /status */
	/* the interaction in flight */
	uint64_t iid;
	int64_t queued_us, written_us;
	int probe;
	/* the newest table */
	int fresh; /* not acted on yet */
	int kind;
	int actor; /* 0..2, or -1 */
	int64_t game;
	int move;
	int lobby[3], lobby_bot;
	int nids;
	char ids[LOAD_IDS][LOAD_ID_LEN];
	char msg_id[32];
	int64_t idle_since;
	int64_t last_over; /* the newest finished game counted */
	int probes_in_row;
};

static struct {
	int active;  /* a run was started: its results can be read */
	int running; /* dispatching, or draining the answers in flight */
	int draining;
	int burst;
	int keep_open;
	int concurrency;
	double rate;
	double computer;
	double slash; /* share of the Eye choices and responses sent as slash commands */
	int64_t duration_us;
	char guild[LOAD_GUILDS_MAX][32]; /* the channels' guilds, in turn */
	int nguilds;
	int run;
	struct lchan *ch;
	int nch;
	struct index by_chan;
	int32_t *ring;
	int ring_head, ring_n;
	int next_new; /* keep_open: the next table to open */
	uint64_t rng;
	double tokens;
	int64_t paced_us;
	int64_t pace_us; /* the pacing timer's period */
	int64_t start_us, stop_us, end_us;
	uint64_t sent, answered, errors, timeouts, late, stalls, probes, unlogged, no_session;
	uint64_t answered_busy;
	uint64_t requests[K_KINDS]; /* API requests by kind (request_kind) */
	uint64_t games_finished, games_open, ndone, nbroken;
	int inflight;
	int violations_at_start;
	uint32_t *hist;
	int64_t max_us;
	double sum_us;     /* of the latencies */
	double gap_sum_us; /* from a channel's callback to the write of its next dispatch */
	uint64_t gaps;
	uint32_t per_s[LOAD_SECONDS_MAX];
	lws_sorted_usec_list_t pace, scan;
	/* The highest move number each game's buttons showed (open addressing, game 0: free). */
	int64_t *ann_game;
	int32_t *ann_move;
	size_t ann_cap, ann_n;
	uint64_t doubled; /* callbacks refused as a second answer to one interaction */
} L;

static int load_quiet(void)
{
	return L.running;
}

static const char *key_lchan(size_t i)
{
	return L.ch[i].cid;
}

static uint64_t load_random(void)
{
	L.rng ^= L.rng >> 12;
	L.rng ^= L.rng << 25;
	L.rng ^= L.rng >> 27;
	return L.rng * 2685821657736338717ull;
}

static void hist_add(int64_t us)
{
	size_t i;
	if (us < 0)
		us = 0;
	if (us < HIST_FINE)
		i = (size_t)us;
	else if (us < 100000)
		i = HIST_FINE + (size_t)(us - HIST_FINE) / 10;
	else if (us < 10000000)
		i = HIST_MID + (size_t)(us - 100000) / 1000;
	else
		i = HIST_COARSE;
	L.hist[i]++;
	L.sum_us += (double)us;
	if (us > L.max_us)
		L.max_us = us;
}

/* The smallest latency (us) that at least p of the samples do not exceed. */
static double hist_percentile(double p)
{
	uint64_t n = 0, seen = 0;
	for (size_t i = 0; i < HIST_N; i++)
		n += L.hist[i];
	if (!n)
		return 0;
	uint64_t want = (uint64_t)(p * (double)n);
	if ((double)want < p * (double)n)
		want++;
	if (!want)
		want = 1;
	for (size_t i = 0; i < HIST_N; i++) {
		seen += L.hist[i];
		if (seen < want)
			continue;
		if (i < HIST_FINE)
			return (double)i;
		if (i < HIST_MID)
			return (double)(HIST_FINE + (i - HIST_FINE) * 10 + 5);
		if (i < HIST_COARSE)
			return (double)(100000 + (i - HIST_MID) * 1000 + 500);
		return (double)L.max_us;
	}
	return (double)L.max_us;
}

static size_t ann_slot(const int64_t *games, size_t cap, int64_t game)
{
	size_t i = (size_t)((uint64_t)game * 11400714819323198485ull) & (cap - 1);
	while (games[i] && games[i] != game)
		i = (i + 1) & (cap - 1);
	return i;
}

/* Remembers that game's buttons showed move number move (the highest one stays). */
static void load_announced(int64_t game, long move)
{
	if (game <= 0 || move < 0)
		return;
	if ((L.ann_n + 1) * 2 > L.ann_cap) {
		size_t cap = L.ann_cap ? L.ann_cap * 2 : 4096;
		int64_t *g = xcalloc(cap, sizeof *g);
		int32_t *m = xcalloc(cap, sizeof *m);
		for (size_t i = 0; i < L.ann_cap; i++) {
			if (!L.ann_game[i])
				continue;
			size_t j = ann_slot(g, cap, L.ann_game[i]);
			g[j] = L.ann_game[i];
			m[j] = L.ann_move[i];
		}
		free(L.ann_game);
		free(L.ann_move);
		L.ann_game = g;
		L.ann_move = m;
		L.ann_cap = cap;
	}
	size_t i = ann_slot(L.ann_game, L.ann_cap, game);
	if (!L.ann_game[i]) {
		L.ann_game[i] = game;
		L.ann_move[i] = (int32_t)move;
		L.ann_n++;
	} else if (move > L.ann_move[i]) {
		L.ann_move[i] = (int32_t)move;
	}
}

static int load_can_act(const struct lchan *c)
{
	return !c->iid && !c->done && !c->broken && (!c->opened || c->want_probe || c->fresh);
}

static void load_ready(struct lchan *c)
{
	if (c->in_ready || !load_can_act(c))
		return;
	c->in_ready = 1;
	L.ring[(L.ring_head + L.ring_n++) % L.nch] = (int32_t)(c - L.ch);
}

/* Sends one INTERACTION_CREATE for channel c: a slash command (type 2; `what` is its name,
 * `options` its options array or NULL) or a button click (type 3; `what` is the custom_id).
 * Returns 0, or -1 when no gateway session can take it. */
static int load_send(struct lchan *c, int user, int type, const char *what, const char *options)
{
	const char *gid = L.guild[c->guild];
	struct session *ss = session_for_guild(gid);
	if (!ss || !conn_live(ss->conn)) {
		L.no_session++;
		return -1;
	}
	char iid[32], token[40], uid[ID_LEN];
	new_snowflake(iid, sizeof iid);
	snprintf(token, sizeof token, "tok%s", iid);
	snprintf(uid, sizeof uid, "%llu", (unsigned long long)c->user[user]);
	cJSON *d = cJSON_CreateObject(), *data;
	cJSON_AddStringToObject(d, "id", iid);
	cJSON_AddNumberToObject(d, "type", type);
	cJSON_AddStringToObject(d, "token", token);
	cJSON_AddStringToObject(d, "guild_id", gid);
	cJSON_AddStringToObject(d, "channel_id", c->cid);
	cJSON *u = cJSON_AddObjectToObject(cJSON_AddObjectToObject(d, "member"), "user");
	cJSON_AddStringToObject(u, "id", uid);
	cJSON_AddStringToObject(u, "username", load_names[user]);
	cJSON_AddStringToObject(u, "global_name", load_names[user]);
	data = cJSON_AddObjectToObject(d, "data");
	if (type == 2) {
		cJSON_AddStringToObject(data, "id", "77");
		cJSON_AddStringToObject(data, "name", what);
		cJSON_AddNumberToObject(data, "type", 1);
		if (options)
			cJSON_AddItemToObject(data, "options", cJSON_Parse(options));
	} else {
		cJSON_AddStringToObject(data, "custom_id", what);
		cJSON_AddNumberToObject(data, "component_type", 2);
		cJSON *m = cJSON_AddObjectToObject(d, "message");
		cJSON_AddStringToObject(m, "id", c->msg_id);
		cJSON_AddStringToObject(m, "channel_id", c->cid);
	}
	interaction_complete(d);
	char *text = dispatch_text("INTERACTION_CREATE", ++ss->seq, d);
	cJSON_Delete(d);
	if (!text)
		return -1;
	int64_t now = now_us();
	struct interaction *it = interaction_add(iid, token);
	it->type = type;
	it->dispatched = it->delivered = now;
	it->load = (uint32_t)(c - L.ch) + 1;
	copy_str(it->channel, sizeof it->channel, c->cid);
	if (type == 3)
		copy_str(it->message, sizeof it->message, c->msg_id);
	c->iid = strtoull(iid, NULL, 10);
	c->queued_us = now;
	c->written_us = 0;
	L.sent++;
	L.inflight++;
	L.unlogged++; /* the dispatch is not in the log */
	q_text_load(ss->conn, text, strlen(text), it->load, c->iid);
	free(text);
	return 0;
}

/* A button of the newest table whose custom_id has `part` (a random one of several). */
static const char *load_button(struct lchan *c, const char *part)
{
	const char *pick[LOAD_IDS];
	int n = 0;
	for (int i = 0; i < c->nids; i++)
		if (strstr(c->ids[i], part))
			pick[n++] = c->ids[i];
	return n ? pick[load_random() % (uint64_t)n] : NULL;
}

/* Sends channel c's next interaction: /open for a new channel, /status to find the table again,
 * else the move the newest table asks for. Returns 0, or -1 when it could not be sent. */
static int load_act(struct lchan *c)
{
	char opt[128];
	const char *what = NULL, *options = NULL;
	int user = 0, type = 3, probe = 0;
	if (!c->opened) {
		type = 2;
		what = "open";
	} else if (!c->want_probe) {
		switch (c->kind) {
		case T_LOBBY:
			if (!c->lobby[1]) {
				user = 1;
				what = load_button(c, ":join");
			} else if (!c->lobby[2]) {
				/* /join; a click when the games are kept open, which spares the bot
				 * a GET of the response message */
				user = 2;
				if (L.keep_open) {
					what = load_button(c, ":join");
				} else {
					type = 2;
					what = "join";
				}
			} else if (c->computer && !c->lobby_bot) {
				what = load_button(c, ":addbot");
			} else if (!(what = load_button(c, ":start"))) {
				snprintf(opt, sizeof opt,
				         "[{\"name\":\"first\",\"type\":6,\"value\":\"%llu\"}]",
				         (unsigned long long)c->user[0]);
				type = 2;
				what = "start";
				options = opt;
			}
			break;
		case T_CURSE:
		case T_EYE:
		case T_RESPOND:
			user = c->actor;
			what = user < 0             ? NULL
			       : c->kind == T_CURSE ? load_button(c, ":curse:")
			       : c->kind == T_EYE   ? load_button(c, ":eye:")
			                            : load_button(c, ":respond");
			if (what && c->kind != T_CURSE && L.slash > 0 &&
			    (double)(load_random() % 1000000) < L.slash * 1e6) {
				/* the same move typed: /eye face or /respond */
				type = 2;
				if (c->kind == T_EYE) {
					snprintf(
					    opt, sizeof opt,
					    "[{\"name\":\"face\",\"type\":3,\"value\":\"%s\"}]",
					    strrchr(what, ':') + 1);
					options = opt;
					what = "eye";
				} else {
					what = "respond";
				}
			}
			break;
		case T_OVER:
			type = 2;
			what = "rematch";
			break;
		default:
			break;
		}
	}
	if (what && type == 3) {
		/* only a button the message still has (a frozen table has none) */
		const struct message *m = message_find(c->msg_id);
		if (!m ||
		    !contains_string(cJSON_GetObjectItemCaseSensitive(m->obj, "components"), what))
			what = NULL;
	}
	if (!what) {
		user = 0;
		type = 2;
		what = "status";
		probe = 1;
	}
	if (load_send(c, user, type, what, options) < 0)
		return -1;
	c->opened = 1;
	c->fresh = 0;
	c->want_probe = 0;
	if (probe) {
		c->probe = 1;
		L.probes++;
	}
	return 0;
}

/* Dispatches what the pacing allows to the channels that are ready. */
static void load_pump(void)
{
	if (!L.running || L.draining)
		return;
	int64_t now = now_us();
	if (L.burst && ((now - L.start_us) / LWS_US_PER_SEC) % 2)
		return; /* an idle second */
	if (L.rate > 0) {
		double cap =
		    L.rate * 0.01 > 2 ? L.rate * 0.01 : 2; /* 10 ms of backlog, 2 at least */
		L.tokens += L.rate * (double)(now - L.paced_us) / 1e6;
		if (L.tokens > cap)
			L.tokens = cap;
		L.paced_us = now;
	}
	while (L.inflight < L.concurrency && (L.ring_n > 0 || L.next_new < L.nch) &&
	       (L.rate <= 0 || L.tokens >= 1)) {
		struct lchan *c;
		if (L.ring_n > 0) {
			c = &L.ch[L.ring[L.ring_head]];
			L.ring_head = (L.ring_head + 1) % L.nch;
			L.ring_n--;
			c->in_ready = 0;
		} else {
			c = &L.ch[L.next_new++];
		}
		if (!load_can_act(c))
			continue;
		if (load_act(c) < 0) {
			load_ready(c); /* no session now: try again later */
			break;
		}
		L.tokens -= 1;
	}
}

/* Parses a table (a message body with an embed) sent to channel `channel`. */
static void load_table(const char *channel, const char *mid, const cJSON *body)
{
	if (!L.running)
		return;
	long at = index_find(&L.by_chan, key_lchan, channel);
	if (at < 0)
		return;
	struct lchan *c = &L.ch[at];
	const cJSON *embeds = cJSON_GetObjectItemCaseSensitive(body, "embeds");
	const cJSON *e0 = cJSON_IsArray(embeds) ? embeds->child : NULL;
	const cJSON *desc = cJSON_GetObjectItemCaseSensitive(e0, "description");
	const char *ids[25];
	int n = 0;
	const cJSON *row, *b;
	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(body, "components"))
	{
		cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(row, "components"))
		{
			const cJSON *cid = cJSON_GetObjectItemCaseSensitive(b, "custom_id");
			/* a disabled button cannot be clicked: Discord sends nothing */
			if (cJSON_IsString(cid) && n < 25 &&
			    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "disabled")))
				ids[n++] = cid->valuestring;
		}
	}
	if (!n && !strcmp(mid, c->msg_id)) {
		/* the table acted on lost its buttons: wait for the next one */
		c->nids = 0;
		c->fresh = 0;
	}
	if (!n || !cJSON_IsString(desc))
		return;
	char *end;
	long long game = strtoll(ids[0], &end, 10);
	long move = *end == ':' ? strtol(end + 1, NULL, 10) : 0;
	if (*end == ':')
		load_announced(game, move);
	if (!c->probe && (game < c->game || (game == c->game && move < c->move)))
		return; /* older than what the channel knows */
	const char *d = desc->valuestring;
	int kind = T_OTHER, actor = -1;
	for (int i = 0; i < n; i++) {
		size_t len = strlen(ids[i]);
		if (len > 5 && !strcmp(ids[i] + len - 5, ":join"))
			kind = T_LOBBY;
	}
	if (kind == T_LOBBY) {
		for (int k = 0; k < 3; k++) {
			char bullet[32];
			snprintf(bullet, sizeof bullet, "\n\xe2\x80\xa2 %s", load_names[k]);
			c->lobby[k] = strstr(d, bullet) != NULL;
		}
		c->lobby_bot = strstr(d, " (computer,") != NULL;
	} else if (strstr(d, "Game over")) {
		kind = T_OVER;
	} else {
		for (int k = 0; k < 3 && actor < 0; k++) {
			size_t len = strlen(load_names[k]);
			if (!strncmp(d, load_names[k], len) && (d[len] == ' ' || d[len] == ','))
				actor = k;
		}
		if (strstr(d, " is the Caster"))
			kind = T_CURSE;
		else if (strstr(d, " rolled the Eye"))
			kind = T_EYE;
		else if (strstr(d, ", the Victim, responds"))
			kind = T_RESPOND;
	}
	c->game = game;
	c->move = (int)move;
	c->kind = kind;
	c->actor = actor;
	c->nids = 0;
	for (int i = 0; i < n && c->nids < LOAD_IDS; i++)
		if (strlen(ids[i]) < LOAD_ID_LEN)
			copy_str(c->ids[c->nids++], LOAD_ID_LEN, ids[i]);
	const cJSON *flags = cJSON_GetObjectItemCaseSensitive(body, "flags");
	int ephemeral = cJSON_IsNumber(flags) && flags->valueint == 64;
	/* A private table is clicked only when the channel has no live public one (a click on a
	 * private message is answered privately). */
	const struct message *pub = c->msg_id[0] ? message_find(c->msg_id) : NULL;
	if (!ephemeral || !pub ||
	    !cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(pub->obj, "components")))
		copy_str(c->msg_id, sizeof c->msg_id, mid);
	c->fresh = 1;
	if (kind == T_OVER && game > c->last_over) {
		c->last_over = game;
		L.games_finished++;
	}
	if (L.keep_open && (kind == T_CURSE || kind == T_EYE || kind == T_RESPOND) && !c->done) {
		c->done = 1;
		L.ndone++;
		L.games_open++;
	}
	load_ready(c);
}

static void load_written(uint32_t load, uint64_t iid)
{
	if (!L.running || load > (uint32_t)L.nch)
		return;
	struct lchan *c = &L.ch[load - 1];
	if (c->iid != iid)
		return;
	c->written_us = now_us();
	if (c->idle_since) {
		L.gap_sum_us += (double)(c->written_us - c->idle_since);
		L.gaps++;
	}
}

/* The callback of a load interaction came (status: the fake's answer to it). */
static void load_callback(const struct interaction *it, int status, const cJSON *body)
{
	if (it->load > (uint32_t)L.nch)
		return;
	struct lchan *c = &L.ch[it->load - 1];
	uint64_t iid = strtoull(it->id, NULL, 10);
	if (c->iid != iid) {
		L.late++; /* given up already, or answered twice */
		return;
	}
	int64_t now = now_us();
	hist_add(now - (c->written_us ? c->written_us : c->queued_us));
	L.answered++;
	int64_t sec = (now - L.start_us) / LWS_US_PER_SEC;
	if (sec >= 0 && sec < LOAD_SECONDS_MAX)
		L.per_s[sec]++;
	if (L.burst && !(sec % 2) && (!L.draining || now < L.stop_us))
		L.answered_busy++;
	L.inflight--;
	c->iid = 0;
	c->idle_since = now;
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(body, "data");
	const cJSON *flags = cJSON_GetObjectItemCaseSensitive(data, "flags");
	int bad = status < 200 || status > 299 || (cJSON_IsNumber(flags) && flags->valueint == 64);
	if (c->probe) {
		/* /status answers privately: what counts is whether it showed a table. */
		c->probe = 0;
		if (c->fresh) {
			c->probes_in_row = 0;
		} else if (++c->probes_in_row >= LOAD_PROBES_MAX) {
			c->broken = 1;
			L.nbroken++;
		} else if (status >= 200 && status <= 299) {
			c->opened = 0; /* no table in the channel: open one */
		}
	} else if (bad) {
		L.errors++;
		c->fresh = 0;
		c->want_probe = 1;
	}
	load_ready(c);
	load_pump();
}

static void load_finish(int64_t now)
{
	L.running = 0;
	L.draining = 0;
	L.end_us = now;
	lws_sul_cancel(&L.pace);
	lws_sul_cancel(&L.scan);
	fprintf(stderr,
	        "fakediscord: load run %d done: %llu sent, %llu answered, %llu errors, %llu "
	        "timeouts, %d violations (%d not printed)\n",
	        L.run, (unsigned long long)L.sent, (unsigned long long)L.answered,
	        (unsigned long long)L.errors, (unsigned long long)L.timeouts,
	        F.violations - L.violations_at_start, F.violations_unprinted);
}

static void load_pace_due(lws_sorted_usec_list_t *sul)
{
	int64_t now = now_us();
	if (!L.running)
		return;
	if (!L.draining &&
	    (now >= L.start_us + L.duration_us || L.ndone + L.nbroken >= (uint64_t)L.nch)) {
		L.draining = 1;
		L.stop_us = now;
	}
	if (L.draining && (L.inflight == 0 || now >= L.stop_us + LOAD_DRAIN_US)) {
		load_finish(now);
		return;
	}
	load_pump();
	lws_sul_schedule(F.ctx, 0, sul, load_pace_due, L.pace_us);
}

/* Gives up interactions without an answer, and resynchronises channels that wait for a table
 * that does not come. */
static void load_scan_due(lws_sorted_usec_list_t *sul)
{
	int64_t now = now_us();
	if (!L.running)
		return;
	for (int i = 0; i < L.nch; i++) {
		struct lchan *c = &L.ch[i];
		if (c->iid && now - c->queued_us > LOAD_TIMEOUT_US) {
			L.timeouts++;
			L.inflight--;
			c->iid = 0;
			c->idle_since = now;
			if (c->probe) {
				c->probe = 0;
				if (++c->probes_in_row >= LOAD_PROBES_MAX) {
					c->broken = 1;
					L.nbroken++;
					continue;
				}
			}
			c->fresh = 0;
			c->want_probe = 1;
			load_ready(c);
		} else if (!c->iid && c->opened && !c->fresh && !c->want_probe && !c->done &&
		           !c->broken && now - c->idle_since > LOAD_STALL_US) {
			L.stalls++;
			c->want_probe = 1;
			load_ready(c);
		}
	}
	load_pump();
	lws_sul_schedule(F.ctx, 0, sul, load_scan_due, LOAD_SCAN_US);
}

static void load_free(void)
{
	lws_sul_cancel(&L.pace);
	lws_sul_cancel(&L.scan);
	free(L.ch);
	free(L.ring);
	free(L.hist);
	free(L.ann_game);
	free(L.ann_move);
	L.ann_game = NULL;
	L.ann_move = NULL;
	L.ann_cap = L.ann_n = 0;
	index_free(&L.by_chan);
	L.ch = NULL;
	L.ring = NULL;
	L.hist = NULL;
	L.nch = 0;
}

static int is_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* POST /_fake/load: starts a run. */
static void ctl_load_start(struct req *r, const cJSON *b)
{
	const cJSON *stop = cJSON_GetObjectItemCaseSensitive(b, "stop");
	if (cJSON_IsTrue(stop)) {
		if (L.running && !L.draining) {
			L.draining = 1;
			L.stop_us = now_us();
		}
		set_body(r, 200, "{\"ok\":true}");
		return;
	}
	if (L.running) {
		set_body(r, 409, "{\"error\":\"a load run is going on\"}");
		return;
	}
	if (!F.current || !conn_live(F.current->conn)) {
		set_body(r, 409, "{\"error\":\"no gateway session\"}");
		return;
	}
	const cJSON *channels = cJSON_GetObjectItemCaseSensitive(b, "channels");
	const cJSON *duration = cJSON_GetObjectItemCaseSensitive(b, "duration_s");
	const cJSON *mode = cJSON_GetObjectItemCaseSensitive(b, "mode");
	const cJSON *rate = cJSON_GetObjectItemCaseSensitive(b, "rate");
	const cJSON *conc = cJSON_GetObjectItemCaseSensitive(b, "concurrency");
	const cJSON *computer = cJSON_GetObjectItemCaseSensitive(b, "computer");
	const cJSON *slash = cJSON_GetObjectItemCaseSensitive(b, "slash");
	const cJSON *guild = cJSON_GetObjectItemCaseSensitive(b, "guild");
	const cJSON *guilds = cJSON_GetObjectItemCaseSensitive(b, "guilds"), *gi;
	int guilds_ok = !guilds || (cJSON_IsArray(guilds) && cJSON_GetArraySize(guilds) >= 1 &&
	                            cJSON_GetArraySize(guilds) <= LOAD_GUILDS_MAX);
	if (guilds_ok && guilds)
		cJSON_ArrayForEach(gi, guilds) guilds_ok &= cJSON_IsString(gi) &&
		                                            is_digits(gi->valuestring) &&
		                                            strlen(gi->valuestring) <= 20;
	const cJSON *seed = cJSON_GetObjectItemCaseSensitive(b, "seed");
	int n = cJSON_IsNumber(channels) ? channels->valueint : 0;
	double dur = cJSON_IsNumber(duration) ? duration->valuedouble : 10;
	const char *m = cJSON_IsString(mode) ? mode->valuestring : "steady";
	double comp = cJSON_IsNumber(computer) ? computer->valuedouble
	              : cJSON_IsTrue(computer) ? 1
	                                       : 0;
	if (n < 1 || n > LOAD_CHANNELS_MAX || !(dur > 0 && dur <= LOAD_SECONDS_MAX) ||
	    (strcmp(m, "steady") && strcmp(m, "burst")) ||
	    (rate && (!cJSON_IsNumber(rate) || rate->valuedouble < 0)) ||
	    (conc && (!cJSON_IsNumber(conc) || conc->valueint < 1)) || comp < 0 || comp > 1 ||
	    (slash &&
	     (!cJSON_IsNumber(slash) || slash->valuedouble < 0 || slash->valuedouble > 1)) ||
	    (guild && (!cJSON_IsString(guild) || !is_digits(guild->valuestring) ||
	               strlen(guild->valuestring) > 20)) ||
	    !guilds_ok) {
		set_body(
		    r, 400,
		    "{\"error\":\"need {\\\"channels\\\":1..100000, \\\"duration_s\\\":0..3600, "
		    "\\\"mode\\\":\\\"steady\\\"|\\\"burst\\\", \\\"rate\\\":>=0, "
		    "\\\"concurrency\\\":>=1, \\\"keep_open\\\":bool, \\\"computer\\\":0..1, "
		    "\\\"slash\\\":0..1, "
		    "\\\"guild\\\":digits, \\\"guilds\\\":[1..64 ids]}\"}");
		return;
	}
	load_free();
	int run = L.run + 1;
	memset(&L, 0, sizeof L);
	L.run = run;
	L.active = 1;
	L.burst = !strcmp(m, "burst");
	L.rate = cJSON_IsNumber(rate) ? rate->valuedouble : 0;
	L.concurrency = cJSON_IsNumber(conc) ? conc->valueint : 64;
	L.keep_open = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "keep_open"));
	L.computer = comp;
	L.slash = cJSON_IsNumber(slash) ? slash->valuedouble : 0;
	L.duration_us = (int64_t)(dur * 1e6);
	if (guilds) {
		cJSON_ArrayForEach(gi, guilds)
		    copy_str(L.guild[L.nguilds++], sizeof L.guild[0], gi->valuestring);
	} else {
		copy_str(L.guild[0], sizeof L.guild[0], guild ? guild->valuestring : "500");
		L.nguilds = 1;
	}
	L.rng = cJSON_IsNumber(seed) && seed->valuedouble >= 1 ? (uint64_t)seed->valuedouble
	                                                       : (uint64_t)now_us() | 1;
	L.nch = n;
	L.ch = xcalloc((size_t)n, sizeof *L.ch);
	L.ring = xcalloc((size_t)n, sizeof *L.ring);
	L.hist = xcalloc(HIST_N, sizeof *L.hist);
	for (int i = 0; i < n; i++) {
		struct lchan *c = &L.ch[i];
		snprintf(c->cid, sizeof c->cid, "%llu",
		         700000000000000000ull + (unsigned long long)run * 1000000ull +
		             (unsigned long long)i);
		for (int k = 0; k < 3; k++)
			c->user[k] = 800000000000000000ull + (unsigned long long)run * 10000000ull +
			             (unsigned long long)i * 4 + (unsigned long long)k;
		/* Spread the computer players evenly over the channels. */
		c->computer = (int)((double)(i + 1) * comp) > (int)((double)i * comp);
		c->actor = -1;
		c->guild = i % L.nguilds;
		index_put(&L.by_chan, key_lchan, (size_t)i, (size_t)n);
	}
	/* All the tables open at once; with keep_open, a new one opens only when none of the
	 * open ones can act, so that each table is set up in one go. */
	L.next_new = L.keep_open ? 0 : n;
	for (int i = 0; i < n && !L.keep_open; i++)
		load_ready(&L.ch[i]);
	L.violations_at_start = F.violations;
	F.violations_unprinted = 0;
	L.running = 1;
	L.start_us = L.paced_us = now_us();
	fprintf(stderr, "fakediscord: load run %d: %d channels, %s, rate %g, concurrency %d%s\n",
	        L.run, n, m, L.rate, L.concurrency, L.keep_open ? ", games kept open" : "");
	L.pace_us = L.rate > 0 ? (int64_t)(1e6 / L.rate) : LOAD_PACE_MAX_US;
	if (L.pace_us < LOAD_PACE_MIN_US)
		L.pace_us = LOAD_PACE_MIN_US;
	if (L.pace_us > LOAD_PACE_MAX_US)
		L.pace_us = LOAD_PACE_MAX_US;
	lws_sul_schedule(F.ctx, 0, &L.pace, load_pace_due, L.pace_us);
	lws_sul_schedule(F.ctx, 0, &L.scan, load_scan_due, LOAD_SCAN_US);
	load_pump();
	cJSON *j = cJSON_CreateObject();
	cJSON_AddBoolToObject(j, "ok", 1);
	cJSON_AddNumberToObject(j, "run", L.run);
	set_json(r, 200, j);
}

/* GET /_fake/load: the run's counters and latency percentiles. */
static void ctl_load_status(struct req *r)
{
	cJSON *j = cJSON_CreateObject();
	int64_t now = now_us();
	int64_t end = L.running ? now : L.end_us;
	int64_t stop = L.running && !L.draining ? now : L.stop_us;
	double elapsed = L.active ? (double)(end - L.start_us) / 1e6 : 0;
	double sending = L.active ? (double)(stop - L.start_us) / 1e6 : 0;
	uint64_t open = 0;
	for (int i = 0; i < L.nch; i++)
		open += L.ch[i].kind >= T_CURSE && L.ch[i].kind <= T_RESPOND;
	cJSON_AddBoolToObject(j, "running", L.running);
	cJSON_AddNumberToObject(j, "run", L.run);
	cJSON_AddStringToObject(j, "mode", L.burst ? "burst" : "steady");
	cJSON_AddNumberToObject(j, "channels", L.nch);
	cJSON_AddNumberToObject(j, "sent", (double)L.sent);
	cJSON_AddNumberToObject(j, "answered", (double)L.answered);
	cJSON_AddNumberToObject(j, "errors", (double)L.errors);
	cJSON_AddNumberToObject(j, "timeouts", (double)L.timeouts);
	cJSON_AddNumberToObject(j, "late", (double)L.late);
	cJSON_AddNumberToObject(j, "doubled", (double)L.doubled);
	cJSON_AddNumberToObject(j, "games_announced", (double)L.ann_n);
	cJSON_AddNumberToObject(j, "stalls", (double)L.stalls);
	cJSON_AddNumberToObject(j, "probes", (double)L.probes);
	cJSON_AddNumberToObject(j, "in_flight", L.inflight);
	cJSON_AddNumberToObject(j, "elapsed_s", elapsed);
	cJSON_AddNumberToObject(j, "sending_s", sending);
	cJSON_AddNumberToObject(j, "rate", elapsed > 0 ? (double)L.answered / elapsed : 0);
	if (L.burst) {
		/* Busy seconds: the even seconds of the sending time. */
		long long periods = (long long)(sending / 2);
		double rest = sending - 2.0 * (double)periods;
		double busy = (double)periods + (rest < 1 ? rest : 1);
		cJSON_AddNumberToObject(j, "busy_s", busy);
		cJSON_AddNumberToObject(j, "busy_rate",
		                        busy > 0 ? (double)L.answered_busy / busy : 0);
	}
	cJSON_AddNumberToObject(j, "p50_ms", L.hist ? hist_percentile(0.5) / 1000 : 0);
	cJSON_AddNumberToObject(j, "p90_ms", L.hist ? hist_percentile(0.9) / 1000 : 0);
	cJSON_AddNumberToObject(j, "p99_ms", L.hist ? hist_percentile(0.99) / 1000 : 0);
	cJSON_AddNumberToObject(j, "p999_ms", L.hist ? hist_percentile(0.999) / 1000 : 0);
	cJSON_AddNumberToObject(j, "max_ms", (double)L.max_us / 1000);
	cJSON_AddNumberToObject(j, "mean_ms",
	                        L.answered ? L.sum_us / (double)L.answered / 1000 : 0);
	cJSON_AddNumberToObject(j, "gap_mean_ms",
	                        L.gaps ? L.gap_sum_us / (double)L.gaps / 1000 : 0);
	cJSON_AddNumberToObject(j, "games_finished", (double)L.games_finished);
	cJSON_AddNumberToObject(j, "games_open", (double)(L.keep_open ? L.games_open : open));
	cJSON_AddNumberToObject(j, "channels_broken", (double)L.nbroken);
	cJSON_AddNumberToObject(j, "violations", F.violations - L.violations_at_start);
	cJSON_AddNumberToObject(j, "unlogged", (double)L.unlogged);
	cJSON_AddNumberToObject(j, "no_session", (double)L.no_session);
	cJSON *reqs = cJSON_AddObjectToObject(j, "requests");
	uint64_t total = 0;
	for (int k = 0; k < K_KINDS; k++) {
		cJSON_AddNumberToObject(reqs, kind_names[k], (double)L.requests[k]);
		total += L.requests[k];
	}
	cJSON_AddNumberToObject(reqs, "total", (double)total);
	cJSON_AddNumberToObject(j, "requests_per_interaction",
	                        L.answered ? (double)total / (double)L.answered : 0);
	cJSON *per = cJSON_AddArrayToObject(j, "per_s");
	int64_t secs = (end - L.start_us) / LWS_US_PER_SEC + 1;
	for (int64_t i = 0; L.active && i < secs && i < LOAD_SECONDS_MAX; i++)
		cJSON_AddItemToArray(per, cJSON_CreateNumber(L.per_s[i]));
	if (strstr(r->query, "games=1")) {
		/* [[game, highest move its buttons showed], ...] */
		cJSON *ann = cJSON_AddArrayToObject(j, "announced");
		for (size_t i = 0; i < L.ann_cap; i++) {
			if (!L.ann_game[i])
				continue;
			cJSON *pair = cJSON_CreateArray();
			cJSON_AddItemToArray(pair, cJSON_CreateNumber((double)L.ann_game[i]));
			cJSON_AddItemToArray(pair, cJSON_CreateNumber(L.ann_move[i]));
			cJSON_AddItemToArray(ann, pair);
		}
	}
	set_json(r, 200, j);
}

/* ---------------------------------------------------------------------------------------- */
/* Control endpoints */

/* The global rate limit as Discord counts it, over every client: arrival
 * times (when a request's headers were read) of the counted requests of the
 * last two seconds, in order. Requests are handled when their body is
 * complete, so arrival times can come out of order. */
#define GLOBAL_MAX 4096
static struct {
	int64_t t[GLOBAL_MAX];
	int n;
	int peak;
	int64_t peak_at, fault_429_at;
	long requests;
} G;

/* The most counted requests in one second [t, t + 1 s) that holds `at`,
 * with t an arrival time (into *start; untouched when there are none). */
static int global_window(int64_t at, int64_t *start)
{
	int most = 0;

	for (int i = 0; i < G.n; i++) {
		int k = i;
		if (G.t[i] <= at - LWS_US_PER_SEC || G.t[i] > at)
			continue;
		while (k < G.n && G.t[k] < G.t[i] + LWS_US_PER_SEC)
			k++;
		if (k - i > most) {
			most = k - i;
			*start = G.t[i];
		}
	}
	return most;
}

/* Counts a request to `sub` (the path below /api/v10) that arrived at `at`
 * when the global limit applies to it. */
static void global_count(const char *sub, int64_t at)
{
	int64_t newest, start = at;
	int i, drop = 0, most;

	if (!strncmp(sub, "/interactions/", 14) || !strncmp(sub, "/webhooks/", 10))
		return;
	G.requests++;
	newest = G.n && G.t[G.n - 1] > at ? G.t[G.n - 1] : at;
	while (drop < G.n && G.t[drop] <= newest - 2 * LWS_US_PER_SEC)
		drop++;
	if (G.n - drop == GLOBAL_MAX)
		drop++;
	memmove(G.t, G.t + drop, sizeof G.t[0] * (size_t)(G.n - drop));
	G.n -= drop;
	for (i = G.n; i > 0 && G.t[i - 1] > at; i--)
		G.t[i] = G.t[i - 1];
	G.t[i] = at;
	G.n++;
	if ((most = global_window(at, &start)) > G.peak) {
		G.peak = most;
		G.peak_at = start;
	}
}

static void ctl_state(struct req *r)
{
	int connected = 0;
	for (struct conn *c = F.conns; c; c = c->next)
		connected |= conn_live(c);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "sessions", F.nsessions);
	cJSON_AddBoolToObject(j, "connected", connected);
	cJSON_AddNumberToObject(j, "identifies", F.identifies);
	cJSON_AddNumberToObject(j, "resumes", F.resumes);
	cJSON_AddNumberToObject(j, "seq", F.current ? (double)F.current->seq : 0);
	cJSON_AddNumberToObject(j, "violations", F.violations);
	cJSON_AddNumberToObject(j, "heartbeats", F.heartbeats);
	cJSON_AddNumberToObject(j, "acks_withheld", F.acks_withheld);
	cJSON *g = cJSON_AddObjectToObject(j, "global");
	cJSON_AddNumberToObject(g, "requests", (double)G.requests);
	cJSON_AddNumberToObject(g, "peak_per_s", G.peak);
	cJSON_AddNumberToObject(g, "peak_at_ms", (double)(G.peak_at / LWS_US_PER_MS));
	cJSON_AddNumberToObject(g, "now_ms", (double)(now_us() / LWS_US_PER_MS));
	cJSON_AddNumberToObject(g, "fault_429_at_ms", (double)(G.fault_429_at / LWS_US_PER_MS));
	cJSON *live = cJSON_AddArrayToObject(j, "live");
	for (struct conn *c = F.conns; c; c = c->next) {
		if (!conn_live(c))
			continue;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "conn", c->id);
		cJSON_AddStringToObject(o, "session", c->sess->id);
		if (c->sess->shard[1] > 0) {
			cJSON_AddNumberToObject(o, "shard", c->sess->shard[0]);
			cJSON_AddNumberToObject(o, "shards", c->sess->shard[1]);
		} else {
			cJSON_AddNullToObject(o, "shard");
		}
		cJSON_AddNumberToObject(o, "seq", (double)c->sess->seq);
		cJSON_AddItemToArray(live, o);
	}
	set_json(r, 200, j);
}

/* GET /_fake/message?id=ID: a message as stored, with every attachment's bytes described (size,
 * SHA-1, a PNG's width and height), those its embeds use included. */
static void ctl_message(struct req *r)
{
	char id[32];
	struct message *m = query_arg(r->query, "id", id, sizeof id) ? message_find(id) : NULL;
	if (!m) {
		set_body(r, 404, "{\"error\":\"no such message\"}");
		return;
	}
	cJSON *j = cJSON_CreateObject();
	cJSON_AddItemToObject(j, "message", cJSON_Duplicate(m->obj, 1));
	cJSON *list = cJSON_AddArrayToObject(j, "attachments");
	for (int i = 0; i < m->natt; i++) {
		const struct attachment *a = &m->att[i];
		cJSON *o = cJSON_CreateObject();
		char *name = utf8_clean(a->filename, strlen(a->filename));
		cJSON_AddStringToObject(o, "id", a->id);
		cJSON_AddStringToObject(o, "filename", name);
		free(name);
		name = utf8_clean(a->content_type, strlen(a->content_type));
		cJSON_AddStringToObject(o, "content_type", name);
		free(name);
		cJSON_AddNumberToObject(o, "size", (double)a->size);
		cJSON_AddStringToObject(o, "sha1", a->sha1);
		cJSON_AddNumberToObject(o, "width", a->width);
		cJSON_AddNumberToObject(o, "height", a->height);
		cJSON_AddItemToArray(list, o);
	}
	set_json(r, 200, j);
}

/* POST /_fake/chat {"channel":"id", "user":"id", "name":"…", "content":"…"}: a message a
 * person posts in a channel (what a busy channel holds besides the bot's), stored with that
 * author; answers the message. */
static void ctl_chat(struct req *r, const cJSON *body)
{
	const cJSON *ch = cJSON_GetObjectItemCaseSensitive(body, "channel"),
	            *user = cJSON_GetObjectItemCaseSensitive(body, "user"),
	            *name = cJSON_GetObjectItemCaseSensitive(body, "name"),
	            *content = cJSON_GetObjectItemCaseSensitive(body, "content");
	if (!cJSON_IsString(ch) || !is_digits(ch->valuestring) || strlen(ch->valuestring) > 20 ||
	    !cJSON_IsString(user) || !is_digits(user->valuestring) ||
	    strlen(user->valuestring) > 20 || !cJSON_IsString(name) ||
	    strlen(name->valuestring) > 32 || !cJSON_IsString(content) ||
	    utf8_len(content->valuestring) > 2000) {
		set_body(r, 400,
		         "{\"error\":\"need {\\\"channel\\\":digits, \\\"user\\\":digits, "
		         "\\\"name\\\":..32, \\\"content\\\":..2000}\"}");
		return;
	}
	char mid[32];
	new_snowflake(mid, sizeof mid);
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "content", content->valuestring);
	struct message *m = message_add(mid, ch->valuestring, NULL, b, 0);
	cJSON_Delete(b);
	cJSON *author = cJSON_CreateObject();
	cJSON_AddStringToObject(author, "id", user->valuestring);
	cJSON_AddStringToObject(author, "username", name->valuestring);
	cJSON_AddStringToObject(author, "global_name", name->valuestring);
	cJSON_AddStringToObject(author, "discriminator", "0");
	cJSON_ReplaceItemInObjectCaseSensitive(m->obj, "author", author);
	set_json_of(r, 200, m->obj);
}

/* POST /_fake/guilds {"ids": ["id", ...]}: guilds the bot is in (READY, GUILD_CREATE, the
 * recommended shard count and the 4011 threshold count them). */
static void ctl_guilds(struct req *r, const cJSON *body)
{
	const cJSON *ids = cJSON_GetObjectItemCaseSensitive(body, "ids"), *id;
	if (!cJSON_IsArray(ids)) {
		set_body(r, 400, "{\"error\":\"need {\\\"ids\\\":[guild ids]}\"}");
		return;
	}
	cJSON_ArrayForEach(id, ids)
	{
		if (!cJSON_IsString(id) || !is_digits(id->valuestring)) {
			set_body(r, 400, "{\"error\":\"ids: guild ids as strings of digits\"}");
			return;
		}
	}
	cJSON_ArrayForEach(id, ids) guild_remember(id->valuestring);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "guilds", U.nguilds);
	set_json(r, 200, j);
}

static void ctl_dispatch(struct req *r, const cJSON *body)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(body, "t");
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(body, "d");
	if (!cJSON_IsString(t) || !d) {
		set_body(r, 400, "{\"error\":\"need {\\\"t\\\":name,\\\"d\\\":payload}\"}");
		return;
	}
	if (!F.current) {
		set_body(r, 409, "{\"error\":\"no gateway session yet\"}");
		return;
	}
	cJSON *full = cJSON_Duplicate(d, 1);
	const char *id = str_of(full, "id");
	if (!strcmp(t->valuestring, "INTERACTION_CREATE")) {
		interaction_complete(full);
		interaction_dispatched(full);
	}
	int64_t s = session_dispatch(session_for_guild(str_of(full, "guild_id")), t->valuestring,
	                             full, 1, id);
	cJSON_Delete(full);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "s", (double)s);
	set_json(r, 200, j);
}

static int ctl_http_fault(const cJSON *h)
{
	const cJSON *status = cJSON_GetObjectItemCaseSensitive(h, "status");
	const cJSON *delay = cJSON_GetObjectItemCaseSensitive(h, "delay_ms");
	const cJSON *count = cJSON_GetObjectItemCaseSensitive(h, "count");
	const cJSON *retry = cJSON_GetObjectItemCaseSensitive(h, "retry_after");
	const cJSON *prefix = cJSON_GetObjectItemCaseSensitive(h, "path_prefix");
	struct hfault f = { 0 };
	f.status = cJSON_IsNumber(status) ? status->valueint : 0;
	f.delay_ms = cJSON_IsNumber(delay) ? delay->valueint : 0;
	f.count = cJSON_IsNumber(count) ? count->valueint : 1;
	f.retry_after = cJSON_IsNumber(retry) ? retry->valuedouble : 1.0;
	f.global = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "global"));
	copy_str(f.prefix, sizeof f.prefix, cJSON_IsString(prefix) ? prefix->valuestring : "/api/");
	if ((f.status && (f.status < 400 || f.status > 599)) || f.delay_ms < 0 ||
	    f.delay_ms > 60000 || (!f.status && !f.delay_ms) || f.count < 1 || f.retry_after < 0 ||
	    f.retry_after > 3600)
		return -1;
	int n = 0;
	for (int i = 0; i < F.nhfaults; i++)
		if (F.hfaults[i].count > 0)
			F.hfaults[n++] = F.hfaults[i];
	F.nhfaults = n;
	if (F.nhfaults == MAX_HFAULTS)
		return -1;
	F.hfaults[F.nhfaults++] = f;
	return 0;
}

static void send_noise(struct conn *c, size_t bytes)
{
	int64_t s = c->sess && c->authed ? ++c->sess->seq : -1;
	char head[96];
	if (s >= 0)
		snprintf(head, sizeof head, "{\"op\":0,\"t\":\"NOISE\",\"s\":%lld,\"d\":{\"x\":\"",
		         (long long)s);
	else
		snprintf(head, sizeof head, "{\"op\":0,\"t\":\"NOISE\",\"s\":null,\"d\":{\"x\":\"");
	size_t hl = strlen(head), fill = bytes > hl + 3 ? bytes - hl - 3 : 0;
	char *text = xcalloc(1, hl + fill + 5);
	memcpy(text, head, hl);
	memset(text + hl, 'a', fill);
	memcpy(text + hl + fill, "\"}}", 4);
	cJSON *e = entry_new("gw_out");
	cJSON_AddNumberToObject(e, "conn", c->id);
	cJSON_AddNumberToObject(e, "op", 0);
	cJSON_AddStringToObject(e, "t", "NOISE");
	if (s >= 0)
		cJSON_AddNumberToObject(e, "s", (double)s);
	else
		cJSON_AddNullToObject(e, "s");
	cJSON_AddNumberToObject(e, "bytes", (double)(hl + fill + 3));
	log_commit(e);
	q_text(c, text, hl + fill + 3);
	free(text);
}

static void send_malformed(struct conn *c)
{
	static const char junk[] = "not json{";
	cJSON *e = entry_new("gw_out");
	cJSON_AddNumberToObject(e, "conn", c->id);
	cJSON_AddNullToObject(e, "op");
	cJSON_AddNullToObject(e, "t");
	cJSON_AddNullToObject(e, "s");
	cJSON_AddStringToObject(e, "raw", junk);
	log_commit(e);
	q_text(c, junk, sizeof junk - 1);
}

static void ctl_fault(struct req *r, const cJSON *f)
{
	int applied = 0;
	const cJSON *close_ = cJSON_GetObjectItemCaseSensitive(f, "close");
	const cJSON *op = cJSON_GetObjectItemCaseSensitive(f, "op");
	const cJSON *http = cJSON_GetObjectItemCaseSensitive(f, "http");
	const cJSON *withhold = cJSON_GetObjectItemCaseSensitive(f, "withhold_acks");
	const cJSON *oversized = cJSON_GetObjectItemCaseSensitive(f, "oversized_frame");
	const cJSON *starts = cJSON_GetObjectItemCaseSensitive(f, "no_session_starts_ms");
	int beat = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "heartbeat_request"));
	int junk = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "malformed_frame"));
	int abrupt = cJSON_IsString(close_) && !strcmp(close_->valuestring, "abrupt");
	const cJSON *only = cJSON_GetObjectItemCaseSensitive(f, "shard");
	const cJSON *hold = cJSON_GetObjectItemCaseSensitive(f, "hello_delay_ms");
	if (hold) {
		/* With a close: the connections made in the next N ms wait that long for HELLO. */
		if (!cJSON_IsNumber(hold) || hold->valuedouble < 1 || hold->valuedouble > 30000) {
			set_body(r, 400, "{\"error\":\"hello_delay_ms: 1 to 30000\"}");
			return;
		}
		F.hello_hold_until = now_us() + (int64_t)hold->valuedouble * LWS_US_PER_MS;
	}
	int opcode = cJSON_IsNumber(op) ? op->valueint : -1;
	if (cJSON_IsNumber(starts)) {
		/* No session starts left until this many ms from now. */
		if (starts->valuedouble < 1 || starts->valuedouble > 600000) {
			set_body(r, 400, "{\"error\":\"no_session_starts_ms: 1 to 600000\"}");
			return;
		}
		F.remaining_starts = 0;
		F.starts_reset_at = now_us() + (int64_t)starts->valuedouble * LWS_US_PER_MS;
		set_body(r, 200, "{\"applied\":1}");
		return;
	}
	if (cJSON_IsObject(http)) {
		if (ctl_http_fault(http) < 0) {
			set_body(r, 400, "{\"error\":\"bad http fault\"}");
			return;
		}
		applied = 1;
	} else if (cJSON_IsNumber(withhold) && withhold->valueint > 0) {
		F.withhold_acks += withhold->valueint;
		applied = 1;
	} else if (cJSON_IsNumber(close_) &&
	           (close_->valueint < 1000 || close_->valueint > 4999 ||
	            close_->valueint == 1005 || close_->valueint == 1006 ||
	            close_->valueint == 1015)) {
		set_body(r, 400,
		         "{\"error\":\"close: \\\"abrupt\\\" or a code that can be sent\"}");
		return;
	} else if (cJSON_IsNumber(oversized) &&
	           (oversized->valuedouble < 64 || oversized->valuedouble > (32 << 20))) {
		set_body(r, 400, "{\"error\":\"oversized_frame: 64 to 32 MiB\"}");
		return;
	} else if (!abrupt && !cJSON_IsNumber(close_) && opcode != 7 && opcode != 9 && !beat &&
	           !junk && !cJSON_IsNumber(oversized)) {
		set_body(r, 400, "{\"error\":\"unknown fault\"}");
		return;
	}
	int64_t beat_due = (F.heartbeat_ms / 2 < 250 ? 250 : F.heartbeat_ms / 2);
	if (beat_due > 1000)
		beat_due = 1000;
	for (struct conn *c = F.conns; c; c = c->next) {
		if (c->closing || cJSON_IsObject(http) || cJSON_IsNumber(withhold))
			continue;
		if (cJSON_IsNumber(only) && (!c->sess || c->sess->shard[1] < 1 ||
		                             c->sess->shard[0] != only->valueint || !c->authed))
			continue;
		applied++;
		if (abrupt) {
			conn_close(c, -1);
		} else if (cJSON_IsNumber(close_)) {
			conn_close(c, close_->valueint);
		} else if (opcode == 7) {
			send_op(c, 7, NULL, -1, NULL);
		} else if (opcode == 9) {
			int resumable = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "d"));
			if (!resumable)
				session_invalidate(c->sess, "an op 9 d:false");
			conn_detach(c);
			send_op(c, 9, cJSON_CreateBool(resumable), -1, NULL);
		} else if (beat) {
			send_op(c, 1, NULL, -1, NULL);
			c->beat_request_due = now_us() + beat_due * LWS_US_PER_MS;
		} else if (junk) {
			send_malformed(c);
		} else if (cJSON_IsNumber(oversized)) {
			send_noise(c, (size_t)oversized->valuedouble);
		}
	}
	cJSON *j = cJSON_CreateObject();
	cJSON_AddBoolToObject(j, "ok", 1);
	cJSON_AddNumberToObject(j, "applied", applied);
	set_json(r, 200, j);
}

/* ---------------------------------------------------------------------------------------- */
/* API */

static void api_headers(struct req *r, const char *bucket)
{
	char v[64];
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	add_header(r, "X-RateLimit-Limit", "5");
	add_header(r, "X-RateLimit-Remaining", "4");
	snprintf(v, sizeof v, "%lld.%03ld", (long long)ts.tv_sec + 1, ts.tv_nsec / 1000000);
	add_header(r, "X-RateLimit-Reset", v);
	add_header(r, "X-RateLimit-Reset-After", "1.0");
	snprintf(v, sizeof v, "%016llx%016llx",
	         (unsigned long long)fnv1a(bucket, 14695981039346656037ull),
	         (unsigned long long)fnv1a(bucket, 1099511628211ull));
	add_header(r, "X-RateLimit-Bucket", v);
}

/* Records a violation for the request and answers 400 Invalid Form Body; 1 if it did. */
static int reject(struct req *r, const struct problems *p)
{
	if (!p->n)
		return 0;
	violation(0, "%s %s: %s", method_names[r->method], r->path, p->text);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "message", "Invalid Form Body");
	cJSON_AddNumberToObject(j, "code", 50035);
	cJSON *errors = cJSON_AddObjectToObject(j, "errors");
	cJSON_AddStringToObject(errors, "_fake", p->text);
	set_json(r, 400, j);
	return 1;
}

__attribute__((format(printf, 5, 6))) static void
refuse(struct req *r, int status, const char *message, int code, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	violation(0, "%s %s: %s", method_names[r->method], r->path, what);
	set_error(r, status, message, code);
}

/* Answers a request whose files or body break the rules: 413 for a file over the limit, else
 * 400 with the problems (reject). Returns 1 if it did. */
static int reject_upload(struct req *r, const struct problems *p, const struct plan *pl)
{
	if (pl->too_large) {
		refuse(r, 413, "Request entity too large", 40005, "a file over %u bytes",
		       MAX_FILE_BYTES);
		return 1;
	}
	return reject(r, p);
}

static int allow(struct req *r, int ok)
{
	if (!ok)
		refuse(r, 405, "405: Method Not Allowed", 0, "method not allowed");
	return ok;
}

/* The mentions of message m, which body created (notify) or edited: a creation sets them and
 * notifies; an edit keeps them and notifies no one. The log entry of the request tells whom
 * ("pinged": user ids, "pinged_roles", "pinged_everyone"). */
static void message_pings(struct req *r, struct message *m, const cJSON *body, int notify)
{
	struct pings pg;
	pings_compute(&pg, notify ? str_of(m->obj, "content") : NULL,
	              cJSON_GetObjectItemCaseSensitive(body, "allowed_mentions"));
	if (notify)
		pings_show(m, &pg);
	cJSON_Delete(r->ping);
	r->ping = cJSON_CreateObject();
	cJSON_AddItemToObject(r->ping, "pinged", pg.users);
	cJSON_AddItemToObject(r->ping, "pinged_roles", pg.roles);
	cJSON_AddBoolToObject(r->ping, "pinged_everyone", pg.everyone);
}

/* PATCH of a message (channel or webhook route): fields left out stay as they are. A deferred
 * response's first edit is its real message: that one notifies. */
static void message_patch(struct req *r, struct message *m, const cJSON *body, int flags_ok)
{
	struct problems p = { 0 };
	struct plan pl;
	check_message(&p, body, 0, flags_ok, form_files(r->form));
	plan_check(&p, &pl, r->form, body, m);
	if (reject_upload(r, &p, &pl))
		return;
	message_edit(m, body);
	attachments_apply(m, &pl);
	message_pings(r, m, body, m->loading);
	m->loading = 0;
	set_json_of(r, 200, m->obj);
}

/* An InteractionCallbackResponse (callback ?with_response=true): the interaction, and for a
 * message response (type 4, 5 or 7) its message: the one created or updated (type 4 and 7 give
 * it whole; type 5 its id, loading). */
static cJSON *callback_response(const struct interaction *it, int t, const struct message *m)
{
	cJSON *j = cJSON_CreateObject();
	cJSON *i = cJSON_AddObjectToObject(j, "interaction");
	cJSON_AddStringToObject(i, "id", it->id);
	cJSON_AddNumberToObject(i, "type", it->type);
	if (!m || (t != 4 && t != 5 && t != 7))
		return j;
	const cJSON *flags = cJSON_GetObjectItemCaseSensitive(m->obj, "flags");
	cJSON_AddStringToObject(i, "response_message_id", m->id);
	cJSON_AddBoolToObject(i, "response_message_loading", t == 5);
	cJSON_AddBoolToObject(i, "response_message_ephemeral",
	                      cJSON_IsNumber(flags) && (flags->valueint & 64));
	cJSON *res = cJSON_AddObjectToObject(j, "resource");
	cJSON_AddNumberToObject(res, "type", t);
	if (t != 5)
		cJSON_AddItemToObject(res, "message", cJSON_Duplicate(m->obj, 1));
	return j;
}

/* A boolean query string argument (reference, "Boolean Query Strings"): 1 true, 0 false (or
 * absent), -1 not a boolean. */
static int query_bool(const char *query, const char *name)
{
	char v[16];
	if (!query_arg(query, name, v, sizeof v))
		return 0;
	if (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "1"))
		return 1;
	if (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "0"))
		return 0;
	return -1;
}

static void api_answer(struct req *r, const char *id, const char *token, const cJSON *body)
{
	if (!allow(r, r->method == M_POST))
		return;
	struct interaction *it = interaction_find(id);
	if (!it) {
		refuse(r, 404, "Unknown interaction", 10062,
		       "a callback for interaction %.30s, which was never dispatched", id);
		return;
	}
	if (strcmp(it->token, token)) {
		refuse(r, 401, "Invalid Webhook Token", 50027, "the wrong interaction token");
		return;
	}
	if (it->acked) {
		if (it->load && L.running)
			L.doubled++;
		refuse(r, 400, "Interaction has already been acknowledged.", 40060,
		       "interaction %.30s answered twice", id);
		return;
	}
	int with_response = query_bool(r->query, "with_response");
	if (with_response < 0) {
		refuse(r, 400, "Invalid Form Body", 50035, "with_response is not a boolean");
		return;
	}
	int64_t age = now_us() - (it->delivered ? it->delivered : it->dispatched);
	if (age > 3 * LWS_US_PER_SEC) {
		refuse(r, 404, "Unknown interaction", 10062,
		       "interaction %.30s answered %lld ms after delivery (3 s allowed)", id,
		       (long long)(age / LWS_US_PER_MS));
		return;
	}
	struct problems p = { 0 };
	struct plan pl = { 0 };
	check_callback(&p, body, it->type, form_files(r->form));
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(body, "type");
	int t = cJSON_IsNumber(type) ? type->valueint : 0;
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(body, "data");
	struct message *target = t == 7 ? message_find(it->message) : NULL;
	if (t == 4 || t == 7)
		plan_check(&p, &pl, r->form, cJSON_IsObject(data) ? data : NULL, target);
	if (reject_upload(r, &p, &pl))
		return;
	it->acked = 1;
	it->ack_type = t;
	struct message *m = NULL;
	if (t == 4 || t == 5) {
		char mid[32];
		new_snowflake(mid, sizeof mid);
		m = message_add(mid, it->channel, it->token, cJSON_IsObject(data) ? data : NULL, 1);
		attachments_apply(m, &pl);
		copy_str(it->original, sizeof it->original, mid);
		m->loading = t == 5;
		if (t == 4)
			message_pings(r, m, data, 1);
	} else if (t == 6 || t == 7) {
		copy_str(it->original, sizeof it->original, it->message);
		if (target && t == 7 && cJSON_IsObject(data)) {
			m = target;
			message_edit(target, data);
			attachments_apply(target, &pl);
			message_pings(r, target, data, 0);
		}
	}
	if (with_response)
		set_json(r, 200, callback_response(it, t, m));
	else
		set_body(r, 204, NULL);
}

/* POST /interactions/{id}/{token}/callback; the load generator hears of its own. */
static void api_callback(struct req *r, const char *id, const char *token, const cJSON *body)
{
	api_answer(r, id, token, body);
	if (L.running) {
		const struct interaction *it = interaction_find(id);
		if (it && it->load)
			load_callback(it, r->status, body);
	}
}

/* The interaction a webhook URL belongs to, or NULL after refusing the request. */
static struct interaction *webhook_interaction(struct req *r, const char *app, const char *token)
{
	struct interaction *it = interaction_by_token(token);
	if (strcmp(app, F.app_id) || !it) {
		refuse(r, 404, "Unknown Webhook", 10015, "no interaction has this webhook");
		return NULL;
	}
	if (!it->acked) {
		refuse(r, 404, "Unknown Webhook", 10015,
		       "a webhook request before interaction %.30s was acknowledged", it->id);
		return NULL;
	}
	return it;
}

static void api_followup(struct req *r, const char *app, const char *token, const cJSON *body)
{
	if (!allow(r, r->method == M_POST))
		return;
	struct interaction *it = webhook_interaction(r, app, token);
	if (!it)
		return;
	struct problems p = { 0 };
	struct plan pl;
	check_message(&p, body, 1, 1, form_files(r->form));
	plan_check(&p, &pl, r->form, body, NULL);
	if (reject_upload(r, &p, &pl))
		return;
	char mid[32];
	new_snowflake(mid, sizeof mid);
	struct message *m = message_add(mid, it->channel, it->token, body, 1);
	attachments_apply(m, &pl);
	message_pings(r, m, body, 1);
	set_json_of(r, 200, m->obj);
}

static void api_webhook_message(struct req *r, const char *app, const char *token, const char *mid,
                                const cJSON *body)
{
	if (!allow(r, r->method == M_GET || r->method == M_PATCH || r->method == M_DELETE))
		return;
	struct interaction *it = webhook_interaction(r, app, token);
	if (!it)
		return;
	int original = !strcmp(mid, "@original");
	struct message *m = message_find(original ? it->original : mid);
	if (!m || (!original && (!m->owner || strcmp(m->owner, it->token)))) {
		refuse(r, 404, "Unknown Message", 10008, "%s of interaction %.30s does not exist",
		       original ? "the original response" : "this followup", it->id);
		return;
	}
	if (r->method == M_GET) {
		set_json_of(r, 200, m->obj);
	} else if (r->method == M_PATCH) {
		message_patch(r, m, body, 1);
	} else {
		if (original)
			it->original[0] = '\0';
		message_remove(m);
		set_body(r, 204, NULL);
	}
}

static void api_channel_messages(struct req *r, const char *cid, const cJSON *body)
{
	if (!allow(r, r->method == M_POST || r->method == M_GET))
		return;
	if (r->method == M_GET) {
		cJSON *list = cJSON_CreateArray();
		for (size_t i = R.nmsg; i-- > 0 && cJSON_GetArraySize(list) < 50;)
			if (!strcmp(R.msg[i].channel, cid))
				cJSON_AddItemToArray(list, cJSON_Duplicate(R.msg[i].obj, 1));
		set_json(r, 200, list);
		return;
	}
	struct problems p = { 0 };
	struct plan pl;
	check_message(&p, body, 1, 0, form_files(r->form));
	plan_check(&p, &pl, r->form, body, NULL);
	if (reject_upload(r, &p, &pl))
		return;
	char mid[32];
	new_snowflake(mid, sizeof mid);
	struct message *m = message_add(mid, cid, NULL, body, 0);
	attachments_apply(m, &pl);
	message_pings(r, m, body, 1);
	set_json_of(r, 200, m->obj);
}

static void api_channel_message(struct req *r, const char *cid, const char *mid, const cJSON *body)
{
	if (!allow(r, r->method == M_GET || r->method == M_PATCH || r->method == M_DELETE))
		return;
	struct message *m = message_find(mid);
	if (!m || strcmp(m->channel, cid)) {
		refuse(r, 404, "Unknown Message", 10008,
		       "message %.30s was never created in channel %.30s", mid, cid);
		return;
	}
	if (r->method == M_GET) {
		set_json_of(r, 200, m->obj);
	} else if (r->method == M_PATCH) {
		message_patch(r, m, body, 0);
	} else {
		message_remove(m);
		set_body(r, 204, NULL);
	}
}

/* A registered command: the definition plus the fields Discord adds. */
static cJSON *command_stored(const cJSON *def, const cJSON *old_list, const char *guild)
{
	cJSON *c = cJSON_Duplicate(def, 1);
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(def, "name");
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(def, "type");
	int t = cJSON_IsNumber(type) ? type->valueint : 1;
	char id[32] = "";
	const cJSON *o;
	cJSON_ArrayForEach(o, old_list)
	{
		const cJSON *on = cJSON_GetObjectItemCaseSensitive(o, "name");
		const cJSON *ot = cJSON_GetObjectItemCaseSensitive(o, "type");
		const cJSON *oid = cJSON_GetObjectItemCaseSensitive(o, "id");
		if (cJSON_IsString(name) && cJSON_IsString(on) && cJSON_IsString(oid) &&
		    !strcmp(on->valuestring, name->valuestring) &&
		    (cJSON_IsNumber(ot) ? ot->valueint : 1) == t)
			copy_str(id, sizeof id, oid->valuestring);
	}
	if (!id[0])
		new_snowflake(id, sizeof id);
	char version[32];
	new_snowflake(version, sizeof version);
	static const char *const added[] = { "id", "application_id", "version", "type",
		                             "guild_id" };
	for (size_t i = 0; i < sizeof added / sizeof added[0]; i++)
		cJSON_DeleteItemFromObjectCaseSensitive(c, added[i]);
	cJSON_AddStringToObject(c, "id", id);
	cJSON_AddStringToObject(c, "application_id", F.app_id);
	cJSON_AddStringToObject(c, "version", version);
	cJSON_AddNumberToObject(c, "type", t);
	if (guild)
		cJSON_AddStringToObject(c, "guild_id", guild);
	if (!cJSON_GetObjectItemCaseSensitive(c, "default_member_permissions"))
		cJSON_AddNullToObject(c, "default_member_permissions");
	if (!cJSON_GetObjectItemCaseSensitive(c, "nsfw"))
		cJSON_AddFalseToObject(c, "nsfw");
	return c;
}

static void api_commands(struct req *r, const char *app, const char *guild, const cJSON *body)
{
	if (!allow(r, r->method == M_GET || r->method == M_PUT || r->method == M_POST))
		return;
	if (strcmp(app, F.app_id)) {
		refuse(r, 403, "Missing Access", 50001, "application %.30s is not %s", app,
		       F.app_id);
		return;
	}
	char key[192];
	snprintf(key, sizeof key, "%s/%.40s", guild ? "guild" : "global", guild ? guild : "");
	struct cmdset *set = cmdset_get(key, r->method != M_GET);
	if (r->method == M_GET) {
		set_json(r, 200, set ? cJSON_Duplicate(set->list, 1) : cJSON_CreateArray());
		return;
	}
	struct problems p = { 0 };
	if (r->method == M_PUT)
		check_commands(&p, body);
	else
		check_command(&p, body, 0);
	if (reject(r, &p))
		return;
	if (r->method == M_PUT) {
		cJSON *list = cJSON_CreateArray();
		const cJSON *c;
		cJSON_ArrayForEach(c, body)
		{
			cJSON_AddItemToArray(list, command_stored(c, set->list, guild));
		}
		cJSON_Delete(set->list);
		set->list = list;
		set_json(r, 200, cJSON_Duplicate(list, 1));
		return;
	}
	/* POST: create or replace one command */
	cJSON *stored = command_stored(body, set->list, guild);
	const char *name = cJSON_GetObjectItemCaseSensitive(stored, "name")->valuestring;
	int i = 0, found = -1;
	const cJSON *c;
	cJSON_ArrayForEach(c, set->list)
	{
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "name");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
			found = i;
		i++;
	}
	if (found >= 0)
		cJSON_ReplaceItemInArray(set->list, found, cJSON_Duplicate(stored, 1));
	else
		cJSON_AddItemToArray(set->list, cJSON_Duplicate(stored, 1));
	set_json(r, found >= 0 ? 200 : 201, stored);
}

#define MAX_SEGS 10

/* Splits an API path (after /api/v10) at its slashes into seg (pointers into copy). */
static int path_split(const char *sub, char copy[MAX_PATH], char *seg[MAX_SEGS])
{
	int n = 0;
	char *save = NULL;
	copy_str(copy, MAX_PATH, sub);
	for (char *t = strtok_r(copy, "/", &save); t && n < MAX_SEGS;
	     t = strtok_r(NULL, "/", &save))
		seg[n++] = t;
	return n;
}

#define SEG(i, s) (n > (i) && !strcmp(seg[i], s))

/* Routes that an interaction's token authorizes, which Discord serves without the bot's
 * Authorization: the callback and the interaction's webhook (followups, @original). */
static int token_route(const char *sub)
{
	char copy[MAX_PATH], *seg[MAX_SEGS];
	int n = path_split(sub, copy, seg);
	return (n == 4 && SEG(0, "interactions") && SEG(3, "callback")) ||
	       ((n == 3 || n == 5) && SEG(0, "webhooks") && (n == 3 || SEG(3, "messages")));
}

static int request_kind(int method, const char *sub)
{
	char copy[MAX_PATH], *seg[MAX_SEGS];
	int n = path_split(sub, copy, seg);
	if (method == M_GET)
		return K_GET;
	if (n == 4 && SEG(0, "interactions") && SEG(3, "callback"))
		return K_CALLBACK;
	if (SEG(0, "webhooks"))
		return K_WEBHOOK;
	if (n == 3 && method == M_POST && SEG(0, "channels") && SEG(2, "messages"))
		return K_CREATE;
	if (n == 4 && method == M_PATCH && SEG(0, "channels") && SEG(2, "messages"))
		return K_EDIT;
	return K_OTHER;
}

static void route_api(struct req *r, const char *sub, const cJSON *json)
{
	char copy[MAX_PATH], bucket[MAX_PATH + 16];
	char *seg[MAX_SEGS];
	int n = path_split(sub, copy, seg);
	/* The bucket: the route with minor parameters replaced. */
	snprintf(bucket, sizeof bucket, "%s", method_names[r->method]);
	for (int i = 0; i < n; i++) {
		size_t used = strlen(bucket);
		int major = i == 1 || (i == 2 && !strcmp(seg[0], "webhooks"));
		snprintf(bucket + used, sizeof bucket - used, "/%s",
		         !major && (is_digits(seg[i]) || (i == 2 && n == 4)) ? ":id" : seg[i]);
	}
	api_headers(r, bucket);
	/* files go with the routes that make or edit a message */
	if (r->form &&
	    !(r->method == M_POST && ((n == 4 && SEG(0, "interactions") && SEG(3, "callback")) ||
	                              (n == 3 && SEG(0, "webhooks")) ||
	                              (n == 3 && SEG(0, "channels") && SEG(2, "messages")))) &&
	    !(r->method == M_PATCH && ((n == 5 && SEG(0, "webhooks") && SEG(3, "messages")) ||
	                               (n == 4 && SEG(0, "channels") && SEG(2, "messages"))))) {
		refuse(r, 400, "Invalid Form Body", 50035,
		       "multipart/form-data on a route that takes no files");
		return;
	}
	if (n == 2 && SEG(0, "gateway") && SEG(1, "bot")) {
		if (!allow(r, r->method == M_GET))
			return;
		char url[64];
		snprintf(url, sizeof url, "ws://127.0.0.1:%d", F.port);
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "url", url);
		int per = F.guilds_per_shard;
		cJSON_AddNumberToObject(j, "shards",
		                        U.nguilds > per ? (U.nguilds + per - 1) / per : 1);
		cJSON *l = cJSON_AddObjectToObject(j, "session_start_limit");
		int64_t now = now_us();
		starts_refill(now);
		cJSON_AddNumberToObject(l, "total", 1000);
		cJSON_AddNumberToObject(l, "remaining", F.remaining_starts);
		cJSON_AddNumberToObject(l, "reset_after",
		                        F.starts_reset_at
		                            ? (double)((F.starts_reset_at - now) / LWS_US_PER_MS)
		                            : 86400000);
		cJSON_AddNumberToObject(l, "max_concurrency", F.max_concurrency);
		set_json(r, 200, j);
	} else if (n == 1 && SEG(0, "gateway")) {
		if (!allow(r, r->method == M_GET))
			return;
		char url[64];
		snprintf(url, sizeof url, "ws://127.0.0.1:%d", F.port);
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "url", url);
		set_json(r, 200, j);
	} else if (n == 2 && (SEG(0, "users") || SEG(0, "applications")) && SEG(1, "@me")) {
		if (!allow(r, r->method == M_GET))
			return;
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "id", F.app_id);
		if (SEG(0, "users")) {
			cJSON_AddStringToObject(j, "username", "rlyeh");
			cJSON_AddStringToObject(j, "discriminator", "0");
			cJSON_AddBoolToObject(j, "bot", 1);
		} else {
			cJSON_AddStringToObject(j, "name", "rlyeh");
			cJSON_AddNumberToObject(j, "flags", 0);
		}
		set_json(r, 200, j);
	} else if (n == 4 && SEG(0, "interactions") && SEG(3, "callback")) {
		api_callback(r, seg[1], seg[2], json);
	} else if (n == 3 && SEG(0, "webhooks")) {
		api_followup(r, seg[1], seg[2], json);
	} else if (n == 5 && SEG(0, "webhooks") && SEG(3, "messages")) {
		api_webhook_message(r, seg[1], seg[2], seg[4], json);
	} else if (n == 3 && SEG(0, "channels") && SEG(2, "messages")) {
		api_channel_messages(r, seg[1], json);
	} else if (n == 4 && SEG(0, "channels") && SEG(2, "messages")) {
		api_channel_message(r, seg[1], seg[3], json);
	} else if (n == 3 && SEG(0, "applications") && SEG(2, "commands")) {
		api_commands(r, seg[1], NULL, json);
	} else if (n == 5 && SEG(0, "applications") && SEG(2, "guilds") && SEG(4, "commands")) {
		api_commands(r, seg[1], seg[3], json);
	} else {
		refuse(r, 404, "404: Not Found", 0, "unknown route");
	}
}

#undef SEG

/* The first fault rule that applies to path (a status rule or a delay rule). */
static struct hfault *hfault_take(const char *path, int status_rule)
{
	for (int i = 0; i < F.nhfaults; i++) {
		struct hfault *h = &F.hfaults[i];
		if (h->count <= 0 || (status_rule ? !h->status : !h->delay_ms))
			continue;
		if (strncmp(path, h->prefix, strlen(h->prefix)))
			continue;
		h->count--;
		return h;
	}
	return NULL;
}

static void fault_response(struct req *r, const struct hfault *h)
{
	char v[64];
	if (h->status == 429) {
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "message", "You are being rate limited.");
		cJSON_AddNumberToObject(j, "retry_after", h->retry_after);
		cJSON_AddBoolToObject(j, "global", h->global);
		set_json(r, 429, j);
		long whole = (long)h->retry_after;
		snprintf(v, sizeof v, "%ld", whole + (h->retry_after > (double)whole));
		add_header(r, "Retry-After", v);
		if (h->global) {
			G.fault_429_at = now_us();
			add_header(r, "X-RateLimit-Global", "true");
			add_header(r, "X-RateLimit-Scope", "global");
		} else {
			add_header(r, "X-RateLimit-Limit", "5");
			add_header(r, "X-RateLimit-Remaining", "0");
			snprintf(v, sizeof v, "%.3f", h->retry_after);
			add_header(r, "X-RateLimit-Reset-After", v);
			add_header(r, "X-RateLimit-Bucket", "a06de3b1f2e9d4c8b7a6f5e4d3c2b1a0");
			add_header(r, "X-RateLimit-Scope", "user");
		}
		return;
	}
	const char *reason = h->status == 500   ? "Internal Server Error"
	                     : h->status == 502 ? "Bad Gateway"
	                     : h->status == 503 ? "Service Unavailable"
	                     : h->status == 504 ? "Gateway Timeout"
	                                        : "Error";
	char msg[64];
	snprintf(msg, sizeof msg, "%d: %s", h->status, reason);
	set_error(r, h->status, msg, 0);
}

static void log_http(struct req *r, const char *kind, int delay_ms)
{
	cJSON *e = entry_new(kind);
	cJSON_AddStringToObject(e, "method", method_names[r->method]);
	cJSON_AddStringToObject(e, "path", r->path);
	cJSON_AddStringToObject(e, "query", r->query);
	cJSON *h = cJSON_AddObjectToObject(e, "headers");
	if (r->has_auth) {
		char want[600];
		snprintf(want, sizeof want, "Bot %s", F.token);
		cJSON_AddStringToObject(h, "Authorization",
		                        strcmp(r->auth, want) ? "<wrong>" : "<token>");
	}
	if (r->has_ua)
		cJSON_AddStringToObject(h, "User-Agent", r->ua);
	if (r->has_ctype)
		cJSON_AddStringToObject(h, "Content-Type", r->ctype);
	if (r->multipart) {
		/* a form: its JSON as the body (as if sent alone), its files described */
		const struct form_part *pl = r->form ? r->form->payload : NULL;
		char *body = utf8_clean(pl ? pl->data : "", pl ? pl->len : 0);
		cJSON_AddStringToObject(e, "body", body);
		free(body);
		cJSON_AddNumberToObject(e, "bytes", (double)r->body.len);
		if (r->form_error[0])
			cJSON_AddStringToObject(e, "form_error", r->form_error);
		cJSON *files = cJSON_AddArrayToObject(e, "files");
		for (int i = 0; r->form && i < r->form->nparts; i++) {
			const struct form_part *pt = &r->form->part[i];
			char sha1[41], *text;
			if (pt == pl)
				continue;
			cJSON *f = cJSON_CreateObject();
			text = utf8_clean(pt->name, strlen(pt->name));
			cJSON_AddStringToObject(f, "name", text);
			free(text);
			if (pt->has_filename) {
				text = utf8_clean(pt->filename, strlen(pt->filename));
				cJSON_AddStringToObject(f, "filename", text);
				free(text);
			}
			if (pt->has_ctype) {
				text = utf8_clean(pt->ctype, strlen(pt->ctype));
				cJSON_AddStringToObject(f, "content_type", text);
				free(text);
			}
			cJSON_AddNumberToObject(f, "size", (double)pt->len);
			sha1_hex(pt->data, pt->len, sha1);
			cJSON_AddStringToObject(f, "sha1", sha1);
			cJSON_AddItemToArray(files, f);
		}
	} else {
		char *body = utf8_clean(r->body.p ? r->body.p : "", r->body.len);
		cJSON_AddStringToObject(e, "body", body);
		free(body);
	}
	cJSON_AddNumberToObject(e, "status", r->status);
	if (delay_ms)
		cJSON_AddNumberToObject(e, "delay_ms", delay_ms);
	const cJSON *f;
	cJSON_ArrayForEach(f, r->ping)
	{
		cJSON_AddItemToObject(e, f->string, cJSON_Duplicate(f, 1));
	}
	log_commit(e);
}

/* Handles a complete request and readies the response. */
static void handle(struct req *r)
{
	cJSON *json = NULL;
	if (r->handled)
		return;
	r->handled = 1;
	int multipart = r->multipart =
	    r->has_ctype && is_form_type(r->ctype) && strncmp(r->path, "/_fake/", 7);
	char *form_error = r->form_error;
	if (multipart && !r->too_large) {
		r->form = xcalloc(1, sizeof *r->form);
		if (!r->body.len)
			copy_str(form_error, sizeof r->form_error, "an empty body");
		else if (form_parse(r->ctype, r->body.p, r->body.len, r->form, form_error,
		                    sizeof r->form_error) == 0 &&
		         r->form->payload)
			json = cJSON_ParseWithLength(r->form->payload->data, r->form->payload->len);
		if (form_error[0]) {
			free(r->form);
			r->form = NULL;
		}
	} else if (r->body.len && !r->too_large) {
		json = cJSON_ParseWithLength(r->body.p, r->body.len);
	}
	if (!strncmp(r->path, "/_fake/", 7)) {
		const char *c = r->path + 7;
		if (r->too_large)
			set_body(r, 413, "{\"error\":\"body too large\"}");
		else if (r->method == M_GET && !strcmp(c, "log")) {
			char v[32];
			const char *s = query_arg(r->query, "since", v, sizeof v);
			char *text = log_since(s ? strtoull(s, NULL, 10) : 0);
			set_body(r, 200, text);
			free(text);
		} else if (r->method == M_GET && !strcmp(c, "state"))
			ctl_state(r);
		else if (r->method == M_GET && !strcmp(c, "message"))
			ctl_message(r);
		else if (r->method == M_POST && !strcmp(c, "dispatch"))
			ctl_dispatch(r, json);
		else if (r->method == M_POST && !strcmp(c, "guilds"))
			ctl_guilds(r, json);
		else if (r->method == M_POST && !strcmp(c, "chat"))
			ctl_chat(r, json);
		else if (r->method == M_POST && !strcmp(c, "fault"))
			ctl_fault(r, json);
		else if (r->method == M_POST && !strcmp(c, "load"))
			ctl_load_start(r, json);
		else if (r->method == M_GET && !strcmp(c, "load"))
			ctl_load_status(r);
		else if (r->method == M_POST && !strcmp(c, "global_reset")) {
			G.peak = global_window(now_us(), &G.peak_at);
			set_body(r, 200, "{\"ok\":true}");
		} else if (r->method == M_POST && !strcmp(c, "shutdown")) {
			set_body(r, 200, "{\"ok\":true}");
			r->shutdown_after = 1;
		} else
			set_body(r, 404, "{\"error\":\"unknown control endpoint\"}");
		cJSON_Delete(json);
		r->ready = 1;
		return;
	}
	char want[600];
	snprintf(want, sizeof want, "Bot %s", F.token);
	const char *kind = "http";
	int delay_ms = 0;
	struct hfault *h;
	if (!strncmp(r->path, "/api/v10/", 9))
		global_count(r->path + 8, r->arrived);
	if (r->too_large) {
		api_headers(r, "global");
		refuse(r, 413, "Request entity too large", 40005, "a body over %zu bytes",
		       r->body_max);
	} else if (strncmp(r->path, "/api/v10/", 9)) {
		api_headers(r, "global");
		refuse(r, 404, "404: Not Found", 0, "not under /api/v10");
	} else if (r->has_auth ? strcmp(r->auth, want) != 0 : !token_route(r->path + 8)) {
		api_headers(r, "global");
		refuse(r, 401, "401: Unauthorized", 0, "%s Authorization header",
		       r->has_auth ? "a wrong" : "no");
	} else if ((h = hfault_take(r->path, 1))) {
		/* An injected failure: the request has no effect and is logged apart. */
		fault_response(r, h);
		kind = "http_fault";
	} else {
		if ((h = hfault_take(r->path, 0)))
			delay_ms = h->delay_ms;
		if (!r->has_ua || strncmp(r->ua, "DiscordBot (", 12))
			violation(0, "%s %s: the User-Agent is not \"DiscordBot (url, version)\"",
			          method_names[r->method], r->path);
		if (r->body.len && !multipart &&
		    (!r->has_ctype || strncmp(r->ctype, "application/json", 16)))
			violation(0, "%s %s: a body without Content-Type: application/json",
			          method_names[r->method], r->path);
		if (multipart && !r->form) {
			api_headers(r, "global");
			refuse(r, 400, "Invalid Form Body", 50035, "a malformed multipart body: %s",
			       form_error);
		} else if (multipart && !r->form->payload) {
			api_headers(r, "global");
			refuse(r, 400, "Invalid Form Body", 50035,
			       "a multipart body without a payload_json part");
		} else if ((r->body.len || multipart) && !json) {
			api_headers(r, "global");
			refuse(r, 400, "The request body contains invalid JSON.", 50109, "%s",
			       multipart ? "payload_json is not JSON" : "the body is not JSON");
		} else {
			route_api(r, r->path + 8, json);
		}
	}
	if (L.running) {
		L.unlogged++; /* a load run would fill the log: it is counted instead */
		L.requests[request_kind(r->method, r->path + 8)]++;
	} else
		log_http(r, kind, delay_ms);
	cJSON_Delete(json);
	if (delay_ms)
		lws_sul_schedule(F.ctx, 0, &r->delay, delay_due, delay_ms * LWS_US_PER_MS);
	else
		r->ready = 1;
}

static void copy_header(struct lws *wsi, enum lws_token_indexes t, char *out, size_t size,
                        int *present)
{
	int n = lws_hdr_total_length(wsi, t);
	*present = n > 0;
	if (n <= 0) {
		out[0] = '\0';
		return;
	}
	if (lws_hdr_copy(wsi, out, (int)size, t) < 0)
		copy_str(out, size, "<too long>");
}

static int http_start(struct lws *wsi, struct pss *pss, const char *path)
{
	struct req *r = pss->req;
	if (r) {
		/* The next request on a kept-alive connection: its buffers are reused. */
		lws_sul_cancel(&r->delay);
		free(r->form);
		cJSON_Delete(r->ping);
		struct buf body = r->body;
		unsigned char *resp = r->resp;
		size_t resp_cap = r->resp_cap;
		memset(r, 0, sizeof *r);
		r->body = body;
		r->body.len = 0;
		r->resp = resp;
		r->resp_cap = resp_cap;
	} else {
		r = pss->req = xcalloc(1, sizeof *r);
	}
	r->wsi = wsi;
	r->arrived = now_us();
	static const struct {
		enum lws_token_indexes t;
		int m;
	} methods[] = { { WSI_TOKEN_GET_URI, M_GET },
		        { WSI_TOKEN_POST_URI, M_POST },
		        { WSI_TOKEN_PUT_URI, M_PUT },
		        { WSI_TOKEN_PATCH_URI, M_PATCH },
		        { WSI_TOKEN_DELETE_URI, M_DELETE } };
	r->method = M_OTHER;
	for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
		if (lws_hdr_total_length(wsi, methods[i].t) > 0) {
			r->method = methods[i].m;
			break;
		}
	copy_str(r->path, sizeof r->path, path);
	copy_query(wsi, r->query, sizeof r->query);
	copy_header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION, r->auth, sizeof r->auth, &r->has_auth);
	copy_header(wsi, WSI_TOKEN_HTTP_USER_AGENT, r->ua, sizeof r->ua, &r->has_ua);
	copy_header(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE, r->ctype, sizeof r->ctype, &r->has_ctype);
	utf8_fix(r->path);
	utf8_fix(r->query);
	utf8_fix(r->ua);
	utf8_fix(r->ctype);
	char cl[32];
	int has_cl, has_te;
	char te[64];
	copy_header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, cl, sizeof cl, &has_cl);
	copy_header(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING, te, sizeof te, &has_te);
	long long length = has_cl ? atoll(cl) : 0;
	r->body_max = r->has_ctype && is_form_type(r->ctype) ? MAX_FORM_BODY : MAX_BODY;
	if (length > (long long)r->body_max)
		r->too_large = 1;
	if (length > 0 || has_te)
		return 0; /* the body follows */
	handle(r);
	return http_respond(wsi, r);
}

/* ---------------------------------------------------------------------------------------- */
/* The protocol callback: HTTP and websocket */

static void send_hello(struct conn *c)
{
	cJSON *d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "heartbeat_interval", F.heartbeat_ms);
	c->hello_due = 0;
	c->last_beat = now_us();
	send_op(c, 10, d, -1, NULL);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
	struct pss *pss = user;
	switch (reason) {
	case LWS_CALLBACK_HTTP:
		return http_start(wsi, pss, in ? (const char *)in : "/");
	case LWS_CALLBACK_HTTP_BODY:
		if (pss->req && !pss->req->too_large &&
		    buf_add(&pss->req->body, in, len, pss->req->body_max) < 0)
			pss->req->too_large = 1;
		return 0;
	case LWS_CALLBACK_HTTP_BODY_COMPLETION:
		if (pss->req) {
			handle(pss->req);
			return http_respond(wsi, pss->req);
		}
		return 0;
	case LWS_CALLBACK_HTTP_WRITEABLE:
		return http_writable(wsi, pss->req);
	case LWS_CALLBACK_CLOSED_HTTP:
	case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
		if (pss) {
			req_free(pss->req);
			pss->req = NULL;
		}
		return 0;
	case LWS_CALLBACK_ESTABLISHED: {
		struct conn *c = pss->conn = conn_open(wsi);
		char v[32];
		cJSON *e = entry_new("gw_open");
		cJSON_AddNumberToObject(e, "conn", c->id);
		cJSON_AddStringToObject(e, "path", c->path);
		cJSON_AddStringToObject(e, "query", c->query);
		log_commit(e);
		if (!query_arg(c->query, "v", v, sizeof v) || strcmp(v, "10"))
			violation(c->id, "gateway URL without v=10: %s?%s", c->path, c->query);
		if (!query_arg(c->query, "encoding", v, sizeof v) || strcmp(v, "json"))
			violation(c->id, "gateway URL without encoding=json: %s?%s", c->path,
			          c->query);
		if (query_arg(c->query, "compress", v, sizeof v) && !strcmp(v, "zlib-stream")) {
			if (deflateInit(&c->zs, Z_DEFAULT_COMPRESSION) == Z_OK)
				c->zlib = 1;
		}
		if (now_us() < F.hello_hold_until)
			c->hello_due = F.hello_hold_until;
		else
			send_hello(c);
		return 0;
	}
	case LWS_CALLBACK_RECEIVE:
		if (pss->conn)
			conn_receive(pss->conn, wsi, in, len);
		return 0;
	case LWS_CALLBACK_SERVER_WRITEABLE:
		return pss->conn ? conn_writable(pss->conn) : 0;
	case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
		if (pss->conn) {
			const unsigned char *p = in;
			int code = len >= 2 ? p[0] << 8 | p[1] : -1;
			log_close(pss->conn, code, "client");
			if (code == 1000 || code == 1001)
				session_invalidate(pss->conn->sess, "closed with 1000/1001");
			pss->conn->closing = 1;
		}
		return 0;
	case LWS_CALLBACK_CLOSED:
		if (pss->conn) {
			log_close(pss->conn, -1, "client");
			conn_free(pss->conn);
			pss->conn = NULL;
		}
		return 0;
	default:
		break;
	}
	return 0;
}

static const struct lws_protocols protocols[] = {
	{ "discord", callback, sizeof(struct pss), 4096, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

/* ---------------------------------------------------------------------------------------- */
/* Timers, signals, main */

static void tick_due(lws_sorted_usec_list_t *sul)
{
	int64_t now = now_us();
	int64_t beat_limit = (2 * (int64_t)F.heartbeat_ms + 1500) * LWS_US_PER_MS;
	for (struct conn *c = F.conns; c; c = c->next) {
		if (c->closing)
			continue;
		if (c->hello_due) {
			if (now >= c->hello_due)
				send_hello(c);
			continue;
		}
		if (c->beat_request_due && now > c->beat_request_due) {
			c->beat_request_due = 0;
			violation(c->id, "a heartbeat request (op 1) was not answered at once");
		}
		if (now - c->last_beat > beat_limit)
			conn_fail(c, 4009, "no heartbeat for %lld ms",
			          (long long)((now - c->last_beat) / LWS_US_PER_MS));
	}
	lws_sul_schedule(F.ctx, 0, sul, tick_due, TICK_US);
}

static void on_signal(int sig)
{
	(void)sig;
	F.stop = 1;
	if (F.ctx)
		lws_cancel_service(F.ctx);
}

static int write_portfile(const char *path, int port)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "%d\n", port);
	if (fclose(f) != 0)
		return -1;
	return rename(tmp, path);
}

static void usage(void)
{
	fprintf(stderr, "usage: fakediscord [--port N] [--portfile PATH] [--token TOKEN] "
	                "[--app-id ID] [--heartbeat-ms N] [--guilds-per-shard N (2500)] "
	                "[--max-concurrency N (1)] [--strict-starts 0|1]\n");
	exit(2);
}

static void free_all(void)
{
	while (F.conns)
		conn_free(F.conns);
	while (F.sessions) {
		struct session *s = F.sessions;
		F.sessions = s->next;
		for (size_t i = 0; i < s->nev; i++)
			free(s->ev[i].json);
		free(s->ev);
		free(s);
	}
	for (size_t i = 0; i < F.count; i++)
		free(entry_at(i)->json);
	free(F.ring);
	records_free();
	users_free();
	load_free();
}

int main(int argc, char **argv)
{
	F.token = "test-token";
	copy_str(F.app_id, sizeof F.app_id, "1000");
	F.heartbeat_ms = 1000;
	F.remaining_starts = 1000;
	F.guilds_per_shard = 2500;
	F.max_concurrency = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (i + 1 >= argc)
			usage();
		const char *v = argv[++i];
		if (!strcmp(a, "--port"))
			F.port = atoi(v);
		else if (!strcmp(a, "--portfile"))
			F.portfile = v;
		else if (!strcmp(a, "--token"))
			F.token = v;
		else if (!strcmp(a, "--app-id"))
			copy_str(F.app_id, sizeof F.app_id, v);
		else if (!strcmp(a, "--heartbeat-ms"))
			F.heartbeat_ms = atoi(v);
		else if (!strcmp(a, "--guilds-per-shard"))
			F.guilds_per_shard = atoi(v);
		else if (!strcmp(a, "--max-concurrency"))
			F.max_concurrency = atoi(v);
		else if (!strcmp(a, "--strict-starts"))
			F.strict_starts = atoi(v);
		else
			usage();
	}
	if (F.port < 0 || F.port > 65535 || F.heartbeat_ms <= 0 || strlen(F.token) > 400 ||
	    F.guilds_per_shard < 1 || F.max_concurrency < 1 || F.max_concurrency > 64)
		usage();
	F.ring = xcalloc(LOG_MAX_ENTRIES, sizeof *F.ring);

	struct sigaction ign;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, NULL);
	lws_set_log_level(LLL_ERR, NULL);
	struct lws_context_creation_info info;
	memset(&info, 0, sizeof info);
	info.port = F.port;
	info.iface = "127.0.0.1";
	info.protocols = protocols;
	/* A libev loop of our own (epoll): poll() over every connection would
	 * cost the load generator more than the daemon under test. Plain
	 * lws_service() when lws cannot use it (no libev plugin). */
	struct ev_loop *evloop = ev_default_loop(0);
	void *foreign[1] = { evloop };
	info.options = LWS_SERVER_OPTION_DISABLE_IPV6;
	if (evloop) {
		info.options |= LWS_SERVER_OPTION_LIBEV;
		info.foreign_loops = foreign;
	}
	info.max_http_header_data = 8192;
	info.timeout_secs = 30;
	info.keepalive_timeout = 60;
	F.ctx = lws_create_context(&info);
	if (!F.ctx && evloop) {
		info.options &= ~(uint64_t)LWS_SERVER_OPTION_LIBEV;
		info.foreign_loops = NULL;
		evloop = NULL;
		F.ctx = lws_create_context(&info);
	}
	if (!F.ctx) {
		fprintf(stderr, "fakediscord: cannot listen on 127.0.0.1:%d\n", F.port);
		return 1;
	}
	struct lws_vhost *vh = lws_get_vhost_by_name(F.ctx, "default");
	F.port = vh ? lws_get_vhost_listen_port(vh) : F.port;
	if (F.portfile && write_portfile(F.portfile, F.port) < 0) {
		fprintf(stderr, "fakediscord: cannot write %s: %s\n", F.portfile, strerror(errno));
		lws_context_destroy(F.ctx);
		return 1;
	}
	fprintf(stderr, "fakediscord: listening on 127.0.0.1:%d\n", F.port);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	lws_sul_schedule(F.ctx, 0, &F.tick, tick_due, TICK_US);
	while (!F.stop) {
		if (evloop)
			ev_run(evloop, EVRUN_ONCE);
		else if (lws_service(F.ctx, 0) < 0)
			break;
	}
	lws_sul_cancel(&F.tick);
	lws_sul_cancel(&F.stop_sul);
	lws_sul_cancel(&L.pace);
	lws_sul_cancel(&L.scan);
	lws_context_destroy(F.ctx);
	F.ctx = NULL;
	free_all();
	return 0;
}
