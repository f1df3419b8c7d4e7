#include "rlyeh/gateway.h"

#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "rlyeh/jsonarena.h"
#include "rlyeh/log.h"
#include "rlyeh/rng.h"
#include "rlyeh/text.h"

#define URL_MAX      512
#define OUT_MAX      8
#define ZOMBIE_CODE  4901 /* our close code for a zombied connection: resumable */
#define STOP_CODE    4900 /* our close code at shutdown: resumable, not 1000/1001 */
#define IDENTIFY_GAP (5500 * LWS_US_PER_MS) /* 5 s, with a margin for the way there */

enum next_step {
	NEXT_RESUME,
	NEXT_IDENTIFY,
	NEXT_STOP,
};

struct frame {
	size_t len;
	int heartbeat;
	int identify;
	unsigned char buf[LWS_PRE + GATEWAY_MAX_SEND];
};

struct gateway {
	struct lws_context *ctx;
	struct lws *wsi;
	struct gateway_handler h;
	char url[URL_MAX];
	char resume_url[URL_MAX];
	char token[256];
	char protocol[64];
	char name[32]; /* for the log: "gateway", or "gateway shard I" */
	int shard_id, shard_count;
	int turn; /* a turn to identify was given and not used yet */
	int compress;
	int state;
	int fatal;
	long reconnects;
	int attempt;

	char session_id[128];
	int64_t seq; /* -1: none yet */
	int acked;
	long interval_ms;
	int close_code;      /* set when we decided to close */
	enum next_step next; /* after the connection closes */
	int peer_code;       /* the server's close code, 0 when none */

	struct frame out[OUT_MAX];
	int nout;
	lws_usec_t sends[GATEWAY_SEND_WINDOW]; /* ring of send times */
	int send_head;
	lws_usec_t last_identify;
	lws_usec_t beat_sent;  /* when the unanswered beat was written; 0 none */
	lws_usec_t latency_us; /* the last beat's time to its ACK; -1 none yet */

	unsigned char *msg; /* the message being received */
	size_t msglen, msgcap;
	z_stream z;
	int zinit;

	lws_sorted_usec_list_t beat;
	lws_sorted_usec_list_t retry;
	struct rng rng;
};

int gateway_close_action(int code)
{
	switch (code) {
	case 4004: /* authentication failed */
	case 4010: /* invalid shard */
	case 4011: /* sharding required */
	case 4012: /* invalid API version */
	case 4013: /* invalid intents */
	case 4014: /* disallowed intents */
		return 2;
	case 4007: /* invalid seq */
	case 4009: /* session timed out */
		return 1;
	default:
		return 0;
	}
}

static lws_usec_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (lws_usec_t)ts.tv_sec * LWS_US_PER_SEC + ts.tv_nsec / 1000;
}

static void set_state(struct gateway *g, int state, const char *why)
{
	g->state = state;
	if (g->h.state)
		g->h.state(g->h.ctx, state, why);
}

struct gateway *gateway_new(struct lws_context *ctx, const struct gateway_config *cfg,
                            const struct gateway_handler *h)
{
	struct gateway *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->ctx = ctx;
	g->h = *h;
	text_copy(g->url, sizeof(g->url), cfg->url);
	text_copy(g->token, sizeof(g->token), cfg->token);
	text_copy(g->protocol, sizeof(g->protocol), cfg->protocol_name);
	g->compress = cfg->compress;
	g->shard_id = cfg->shard_id;
	g->shard_count = cfg->shard_count > 0 ? cfg->shard_count : 0;
	if (g->shard_count)
		snprintf(g->name, sizeof(g->name), "gateway shard %d", g->shard_id);
	else
		text_copy(g->name, sizeof(g->name), "gateway");
	g->latency_us = -1;
	g->seq = -1;
	g->next = NEXT_IDENTIFY;
	rng_seed(&g->rng, (uint64_t)now_us() ^ ((uint64_t)(uintptr_t)g << 16));
	return g;
}

/* Queues a payload; heartbeats (heartbeat 1) bypass the part of the send
 * window kept for them; heartbeat 2 marks an IDENTIFY, timed when written. Returns 0, or -1 when it
 * is too large, the queue is full or the send limit would be passed. */
static int send_json(struct gateway *g, const char *json, int heartbeat)
{
	size_t len = strlen(json);
	lws_usec_t oldest = g->sends[g->send_head];
	struct frame *f;

	if (len > GATEWAY_MAX_SEND || g->nout == OUT_MAX || !g->wsi)
		return -1;
	/* 120 per 60 s, with 5 of them kept for heartbeats. */
	if (heartbeat != 1 && oldest && now_us() - oldest < 60 * LWS_US_PER_SEC) {
		int recent = 0;
		for (int i = 0; i < GATEWAY_SEND_WINDOW; i++)
			recent += g->sends[i] && now_us() - g->sends[i] < 60 * LWS_US_PER_SEC;
		if (recent >= GATEWAY_SEND_WINDOW - 5)
			return -1;
	}
	f = &g->out[g->nout++];
	memcpy(f->buf + LWS_PRE, json, len);
	f->len = len;
	f->heartbeat = heartbeat;
	f->identify = heartbeat == 2;
	lws_callback_on_writable(g->wsi);
	return 0;
}

static void send_heartbeat(struct gateway *g)
{
	char json[64];

	if (g->seq >= 0)
		snprintf(json, sizeof(json), "{\"op\":1,\"d\":%lld}", (long long)g->seq);
	else
		snprintf(json, sizeof(json), "{\"op\":1,\"d\":null}");
	send_json(g, json, 1);
}

/* Asks lws to close the connection with `code`, then do `next`. */
static void close_with(struct gateway *g, int code, enum next_step next)
{
	g->close_code = code;
	g->next = next;
	lws_sul_cancel(&g->beat);
	if (g->wsi)
		lws_callback_on_writable(g->wsi);
}

static void beat_due(lws_sorted_usec_list_t *sul)
{
	struct gateway *g = lws_container_of(sul, struct gateway, beat);

	if (!g->wsi)
		return;
	if (!g->acked) {
		log_msg(LOG_WARN, "%s: no heartbeat ACK since the last beat; reconnecting",
		        g->name);
		close_with(g, ZOMBIE_CODE, g->session_id[0] ? NEXT_RESUME : NEXT_IDENTIFY);
		return;
	}
	g->acked = 0;
	send_heartbeat(g);
	lws_sul_schedule(g->ctx, 0, &g->beat, beat_due, g->interval_ms * LWS_US_PER_MS);
}

static void connect_now(struct gateway *g);

static void retry_due(lws_sorted_usec_list_t *sul)
{
	connect_now(lws_container_of(sul, struct gateway, retry));
}

/* Schedules the next connection after a capped, jittered backoff. */
static void schedule_reconnect(struct gateway *g, lws_usec_t at_least)
{
	lws_usec_t delay = 0;

	if (g->attempt > 0) {
		int shift = g->attempt - 1 < 6 ? g->attempt - 1 : 6;
		lws_usec_t base = (lws_usec_t)LWS_US_PER_SEC << shift; /* 1 s .. 64 s */
		if (base > 60 * LWS_US_PER_SEC)
			base = 60 * LWS_US_PER_SEC;
		delay =
		    base / 2 + (lws_usec_t)rng_below(&g->rng, (uint32_t)(base / 2 / 1000)) * 1000;
	}
	if (delay < at_least)
		delay = at_least;
	g->attempt++;
	g->reconnects++;
	set_state(g, GATEWAY_WAITING, "reconnecting");
	lws_sul_schedule(g->ctx, 0, &g->retry, retry_due, delay);
}

static void connect_now(struct gateway *g)
{
	struct lws_client_connect_info i;
	char buf[URL_MAX], path[URL_MAX + 64];
	const char *prot, *ads, *p;
	int port;

	if (g->state == GATEWAY_STOPPED)
		return;
	if (g->next == NEXT_IDENTIFY) {
		g->session_id[0] = '\0';
		g->seq = -1;
	}
	/* A new session waits for its turn from the owner's queue, or (without
	 * one) at most once per 5 s. */
	if (g->next == NEXT_IDENTIFY && g->h.identify_turn) {
		if (!g->turn) {
			set_state(g, GATEWAY_WAITING, "waiting for its turn to identify");
			g->h.identify_turn(g->h.ctx);
			return;
		}
		g->turn = 0;
	} else if (g->next == NEXT_IDENTIFY && g->last_identify &&
	           now_us() - g->last_identify < IDENTIFY_GAP) {
		lws_sul_schedule(g->ctx, 0, &g->retry, retry_due,
		                 IDENTIFY_GAP - (now_us() - g->last_identify));
		return;
	}
	text_copy(buf, sizeof(buf),
	          g->next == NEXT_RESUME && g->resume_url[0] ? g->resume_url : g->url);
	if (lws_parse_uri(buf, &prot, &ads, &port, &p)) {
		log_msg(LOG_ERR, "%s: bad URL", g->name);
		g->fatal = GATEWAY_EXIT_REJECTED;
		set_state(g, GATEWAY_STOPPED, "bad gateway URL");
		return;
	}
	snprintf(path, sizeof(path), "/%s%s?v=10&encoding=json%s", p,
	         p[0] && p[strlen(p) - 1] != '/' ? "/" : "",
	         g->compress ? "&compress=zlib-stream" : "");
	if (strcmp(path, "//?v=10&encoding=json") == 0)
		snprintf(path, sizeof(path), "/?v=10&encoding=json");
	memset(&i, 0, sizeof(i));
	i.context = g->ctx;
	i.address = ads;
	i.port = port;
	i.path = path;
	i.host = ads;
	i.origin = ads;
	i.ssl_connection = strcmp(prot, "wss") == 0 ? LCCSCF_USE_SSL : 0;
	i.local_protocol_name = g->protocol;
	i.userdata = g;
	i.pwsi = &g->wsi;
	g->close_code = 0;
	g->peer_code = 0;
	g->nout = 0;
	g->msglen = 0;
	set_state(g, GATEWAY_CONNECTING, g->next == NEXT_RESUME ? "resuming" : "connecting");
	if (!lws_client_connect_via_info(&i)) {
		g->wsi = NULL;
		schedule_reconnect(g, 0);
	}
}

void gateway_set_session(struct gateway *g, const char *session_id, int64_t seq,
                         const char *resume_url)
{
	text_copy(g->session_id, sizeof(g->session_id), session_id ? session_id : "");
	g->seq = g->session_id[0] && seq >= 0 ? seq : -1;
	text_copy(g->resume_url, sizeof(g->resume_url),
	          g->session_id[0] && resume_url ? resume_url : "");
	if (!g->session_id[0])
		g->seq = -1;
}

void gateway_get_session(const struct gateway *g, char *session_id, size_t sid_cap, int64_t *seq,
                         char *resume_url, size_t url_cap)
{
	if (session_id)
		text_copy(session_id, sid_cap, g->session_id);
	if (seq)
		*seq = g->seq;
	if (resume_url)
		text_copy(resume_url, url_cap, g->resume_url);
}

void gateway_start(struct gateway *g)
{
	g->next = g->session_id[0] ? NEXT_RESUME : NEXT_IDENTIFY;
	connect_now(g);
}

void gateway_identify_turn(struct gateway *g)
{
	if (g->state != GATEWAY_WAITING || g->wsi)
		return;
	lws_sul_cancel(&g->retry);
	g->turn = 1;
	connect_now(g);
}

void gateway_stop(struct gateway *g)
{
	lws_sul_cancel(&g->retry);
	if (g->wsi) {
		close_with(g, STOP_CODE, NEXT_STOP);
	} else {
		lws_sul_cancel(&g->beat);
		set_state(g, GATEWAY_STOPPED, "stopped");
	}
}

int gateway_state(const struct gateway *g)
{
	return g->state;
}

int gateway_fatal(const struct gateway *g)
{
	return g->fatal;
}

long gateway_reconnects(const struct gateway *g)
{
	return g->reconnects;
}

double gateway_latency(const struct gateway *g)
{
	return g->latency_us < 0 ? -1.0 : (double)g->latency_us / 1e6;
}

void gateway_free(struct gateway *g)
{
	if (!g)
		return;
	if (g->zinit)
		inflateEnd(&g->z);
	free(g->msg);
	free(g);
}

static void identify(struct gateway *g)
{
	cJSON *root = cJSON_CreateObject(), *d = cJSON_AddObjectToObject(root, "d");
	cJSON *props;
	char *json;

	cJSON_AddNumberToObject(root, "op", 2);
	cJSON_AddStringToObject(d, "token", g->token);
	cJSON_AddNumberToObject(d, "intents", 0);
	props = cJSON_AddObjectToObject(d, "properties");
	cJSON_AddStringToObject(props, "os", "linux");
	cJSON_AddStringToObject(props, "browser", "rlyeh");
	cJSON_AddStringToObject(props, "device", "rlyeh");
	if (g->shard_count) {
		cJSON *shard = cJSON_AddArrayToObject(d, "shard");
		cJSON_AddItemToArray(shard, cJSON_CreateNumber(g->shard_id));
		cJSON_AddItemToArray(shard, cJSON_CreateNumber(g->shard_count));
	}
	json = cJSON_PrintUnformatted(root);
	if (json && send_json(g, json, 2) == 0) {
		g->last_identify = now_us();
		set_state(g, GATEWAY_IDENTIFYING, "identifying");
	}
	free(json);
	cJSON_Delete(root);
}

static void resume(struct gateway *g)
{
	cJSON *root = cJSON_CreateObject(), *d = cJSON_AddObjectToObject(root, "d");
	char *json;

	cJSON_AddNumberToObject(root, "op", 6);
	cJSON_AddStringToObject(d, "token", g->token);
	cJSON_AddStringToObject(d, "session_id", g->session_id);
	cJSON_AddNumberToObject(d, "seq", (double)g->seq);
	json = cJSON_PrintUnformatted(root);
	if (json && send_json(g, json, 0) == 0)
		set_state(g, GATEWAY_RESUMING, "resuming");
	free(json);
	cJSON_Delete(root);
}

#define BEAT_MAX_MS 3600000            /* longest heartbeat interval taken from HELLO */
#define SEQ_MAX     9007199254740992.0 /* 2^53: the largest sequence number taken */

/* Handles one whole payload. */
static void on_payload(struct gateway *g, const char *text, size_t len)
{
	cJSON *root = jsonarena_parse(text, len);
	const cJSON *op, *d, *s, *t;

	if (!root || !cJSON_IsObject(root)) {
		log_msg(LOG_WARN, "%s: a payload that is not a JSON object was ignored", g->name);
		jsonarena_delete(root);
		return;
	}
	op = cJSON_GetObjectItemCaseSensitive(root, "op");
	d = cJSON_GetObjectItemCaseSensitive(root, "d");
	s = cJSON_GetObjectItemCaseSensitive(root, "s");
	t = cJSON_GetObjectItemCaseSensitive(root, "t");
	if (!cJSON_IsNumber(op)) {
		jsonarena_delete(root);
		return;
	}
	switch (op->valueint) {
	case 10: { /* HELLO */
		const cJSON *iv = cJSON_GetObjectItemCaseSensitive(d, "heartbeat_interval");
		double ms = cJSON_IsNumber(iv) ? iv->valuedouble : 41250;
		long interval = ms < 100 ? 100 : ms > BEAT_MAX_MS ? BEAT_MAX_MS : (long)ms;
		g->interval_ms = interval;
		g->acked = 1;
		/* First beat after interval * jitter, jitter in [0, 1). */
		lws_sul_schedule(g->ctx, 0, &g->beat, beat_due,
		                 (lws_usec_t)rng_below(&g->rng, (uint32_t)interval) *
		                     LWS_US_PER_MS);
		if (g->next == NEXT_RESUME && g->session_id[0])
			resume(g);
		else
			identify(g);
		break;
	}
	case 11: /* ACK */
		g->acked = 1;
		if (g->beat_sent) {
			g->latency_us = now_us() - g->beat_sent;
			g->beat_sent = 0;
		}
		break;
	case 1: /* the server asks for a beat now */
		send_heartbeat(g);
		break;
	case 7: /* RECONNECT */
		log_msg(LOG_INFO, "%s: asked to reconnect", g->name);
		close_with(g, ZOMBIE_CODE, NEXT_RESUME);
		break;
	case 9: /* INVALID SESSION */
		if (cJSON_IsTrue(d) && g->session_id[0]) {
			log_msg(LOG_INFO, "%s: session invalid but resumable", g->name);
			close_with(g, ZOMBIE_CODE, NEXT_RESUME);
		} else {
			log_msg(LOG_INFO, "%s: session invalid; identifying anew in 1-5 s",
			        g->name);
			g->session_id[0] = '\0';
			g->seq = -1;
			g->attempt = 0;
			close_with(g, ZOMBIE_CODE, NEXT_IDENTIFY);
		}
		break;
	case 0: { /* DISPATCH */
		int64_t seq = cJSON_IsNumber(s) && s->valuedouble >= 0 && s->valuedouble <= SEQ_MAX
		                  ? (int64_t)s->valuedouble
		                  : -1;
		if (seq > g->seq)
			g->seq = seq;
		if (cJSON_IsString(t)) {
			if (strcmp(t->valuestring, "READY") == 0) {
				const cJSON *sid =
				    cJSON_GetObjectItemCaseSensitive(d, "session_id");
				const cJSON *ru =
				    cJSON_GetObjectItemCaseSensitive(d, "resume_gateway_url");
				if (cJSON_IsString(sid))
					text_copy(g->session_id, sizeof(g->session_id),
					          sid->valuestring);
				if (cJSON_IsString(ru))
					text_copy(g->resume_url, sizeof(g->resume_url),
					          ru->valuestring);
				g->attempt = 0;
				set_state(g, GATEWAY_READY, "ready");
			} else if (strcmp(t->valuestring, "RESUMED") == 0) {
				g->attempt = 0;
				set_state(g, GATEWAY_READY, "resumed");
			}
			if (g->h.dispatch)
				g->h.dispatch(g->h.ctx, t->valuestring, d, seq);
		}
		break;
	}
	default:
		break;
	}
	jsonarena_delete(root);
}

void gateway_receive(struct gateway *g, const char *text, size_t len)
{
	on_payload(g, text, len);
}

/* Appends received bytes to the message buffer; -1 past the cap. */
static int append(struct gateway *g, const void *in, size_t len)
{
	if (len == 0) /* an empty frame: the buffer may not exist yet */
		return 0;
	if (g->msglen + len > GATEWAY_MAX_MESSAGE)
		return -1;
	if (g->msglen + len > g->msgcap) {
		size_t cap = g->msgcap ? g->msgcap : 16384;
		unsigned char *bigger;
		while (cap < g->msglen + len)
			cap *= 2;
		bigger = realloc(g->msg, cap);
		if (!bigger)
			return -1;
		g->msg = bigger;
		g->msgcap = cap;
	}
	memcpy(g->msg + g->msglen, in, len);
	g->msglen += len;
	return 0;
}

/* zlib-stream: inflates a completed message (ending in 00 00 ff ff) through
 * the connection's one stream. Returns 0, or -1 on a corrupt stream. */
static int inflate_message(struct gateway *g)
{
	unsigned char *outbuf;
	size_t outcap = 65536, outlen = 0;
	int rc = Z_OK;

	outbuf = malloc(outcap);
	if (!outbuf)
		return -1;
	g->z.next_in = g->msg;
	g->z.avail_in = (uInt)g->msglen;
	while (g->z.avail_in > 0 || rc == Z_BUF_ERROR) {
		if (outlen == outcap) {
			unsigned char *bigger;
			if (outcap * 2 > GATEWAY_MAX_MESSAGE) {
				free(outbuf);
				return -1;
			}
			bigger = realloc(outbuf, outcap * 2);
			if (!bigger) {
				free(outbuf);
				return -1;
			}
			outbuf = bigger;
			outcap *= 2;
		}
		g->z.next_out = outbuf + outlen;
		g->z.avail_out = (uInt)(outcap - outlen);
		rc = inflate(&g->z, Z_SYNC_FLUSH);
		outlen = outcap - g->z.avail_out;
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			free(outbuf);
			return -1;
		}
		if (rc == Z_BUF_ERROR && g->z.avail_in == 0)
			break;
	}
	g->msglen = 0;
	on_payload(g, (const char *)outbuf, outlen);
	free(outbuf);
	return 0;
}

/* Takes received bytes; `last` when they end a websocket message. A whole
 * message is handled (with zlib-stream: once the stream reaches a flush
 * marker, inflated through the connection's one stream). Past the size cap
 * or on a corrupt stream, the connection is closed to start again. Returns
 * 0, or -1 when it closed the connection. */
static int received(struct gateway *g, const void *in, size_t len, int last)
{
	if (append(g, in, len)) {
		log_msg(LOG_WARN, "%s: a payload over %u bytes; reconnecting", g->name,
		        GATEWAY_MAX_MESSAGE);
		g->msglen = 0;
		close_with(g, ZOMBIE_CODE, g->session_id[0] ? NEXT_RESUME : NEXT_IDENTIFY);
		return -1;
	}
	if (!last)
		return 0;
	if (g->compress) {
		if (g->msglen < 4 || memcmp(g->msg + g->msglen - 4, "\x00\x00\xff\xff", 4))
			return 0;
		if (inflate_message(g)) {
			log_msg(LOG_WARN, "%s: corrupt compressed stream; reconnecting", g->name);
			g->msglen = 0;
			close_with(g, ZOMBIE_CODE, g->session_id[0] ? NEXT_RESUME : NEXT_IDENTIFY);
			return -1;
		}
	} else {
		size_t n = g->msglen;
		g->msglen = 0;
		on_payload(g, (const char *)g->msg, n);
	}
	return 0;
}

int gateway_receive_message(struct gateway *g, const void *data, size_t len)
{
	if (g->compress && !g->zinit) {
		memset(&g->z, 0, sizeof(g->z));
		if (inflateInit(&g->z) != Z_OK)
			return -1;
		g->zinit = 1;
	}
	return received(g, data, len, 1);
}

/* Says why the server's close code ends the session for good, and what to
 * do about it. */
static void log_fatal(const struct gateway *g)
{
	int n = g->shard_count ? g->shard_count : 1;

	switch (g->peer_code) {
	case 4004:
		log_msg(LOG_ERR,
		        "%s: closed with code 4004 (authentication failed): check the token",
		        g->name);
		break;
	case 4010:
		log_msg(LOG_ERR,
		        "%s: closed with code 4010 (invalid shard): shard [%d, %d] was refused; "
		        "set shards = auto, or A-B/N with B below N",
		        g->name, g->shard_id, n);
		break;
	case 4011:
		log_msg(LOG_ERR,
		        "%s: closed with code 4011 (sharding required): the bot is in too many "
		        "guilds for %d shard(s): set shards = auto or a bigger count than %d",
		        g->name, n, n);
		break;
	default:
		log_msg(LOG_ERR,
		        "%s: closed with code %d (the gateway refused this client): not "
		        "reconnecting",
		        g->name, g->peer_code);
		break;
	}
}

static void connection_gone(struct gateway *g, const char *why)
{
	int action;

	g->wsi = NULL;
	g->beat_sent = 0;
	lws_sul_cancel(&g->beat);
	if (g->zinit) {
		inflateEnd(&g->z);
		g->zinit = 0;
	}
	if (g->close_code == 0 && g->peer_code) {
		action = gateway_close_action(g->peer_code);
		if (action == 2) {
			g->fatal = g->peer_code == 4004 ? GATEWAY_EXIT_AUTH : GATEWAY_EXIT_REJECTED;
			log_fatal(g);
			set_state(g, GATEWAY_STOPPED, "refused");
			return;
		}
		g->next = action == 1 || !g->session_id[0] ? NEXT_IDENTIFY : NEXT_RESUME;
		log_msg(LOG_NOTICE, "%s: closed by the server with code %d; %s", g->name,
		        g->peer_code,
		        g->next == NEXT_RESUME ? "resuming" : "starting a new session");
	} else if (g->close_code == 0) {
		g->next = g->session_id[0] ? NEXT_RESUME : NEXT_IDENTIFY;
		log_msg(LOG_NOTICE, "%s: connection lost (%s); %s", g->name, why,
		        g->next == NEXT_RESUME ? "resuming" : "reconnecting");
	}
	if (g->next == NEXT_STOP) {
		set_state(g, GATEWAY_STOPPED, "stopped");
		return;
	}
	if (g->next == NEXT_IDENTIFY && g->close_code == ZOMBIE_CODE)
		/* After an invalid session: wait 1-5 s. */
		schedule_reconnect(g,
		                   (lws_usec_t)(1000 + rng_below(&g->rng, 4001)) * LWS_US_PER_MS);
	else
		schedule_reconnect(g, 0);
}

int gateway_callback(struct gateway *g, struct lws *wsi, int reason, void *in, size_t len)
{
	switch (reason) {
	case LWS_CALLBACK_CLIENT_ESTABLISHED:
		g->wsi = wsi;
		set_state(g, GATEWAY_HELLO, "connected");
		if (g->compress) {
			memset(&g->z, 0, sizeof(g->z));
			if (inflateInit(&g->z) != Z_OK)
				return -1;
			g->zinit = 1;
		}
		break;
	case LWS_CALLBACK_CLIENT_RECEIVE:
		received(g, in, len,
		         lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi));
		break;
	case LWS_CALLBACK_CLIENT_WRITEABLE:
		if (g->close_code) {
			lws_close_reason(wsi, (enum lws_close_status)g->close_code, NULL, 0);
			return -1;
		}
		if (g->nout > 0) {
			struct frame *f = &g->out[0];
			if (lws_write(wsi, f->buf + LWS_PRE, f->len, LWS_WRITE_TEXT) < (int)f->len)
				return -1;
			g->sends[g->send_head] = now_us();
			if (f->identify)
				g->last_identify = now_us();
			if (f->heartbeat == 1)
				g->beat_sent = now_us();
			g->send_head = (g->send_head + 1) % GATEWAY_SEND_WINDOW;
			memmove(&g->out[0], &g->out[1], (size_t)(g->nout - 1) * sizeof(g->out[0]));
			g->nout--;
			if (g->nout > 0)
				lws_callback_on_writable(wsi);
		}
		break;
	case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
		if (len >= 2) {
			const unsigned char *p = in;
			g->peer_code = (p[0] << 8) | p[1];
		}
		break;
	case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
		log_msg(LOG_WARN, "%s: cannot connect: %s", g->name,
		        in ? (const char *)in : "unknown error");
		connection_gone(g, "connection error");
		break;
	case LWS_CALLBACK_CLIENT_CLOSED:
		connection_gone(g, "closed");
		break;
	default:
		break;
	}
	return 0;
}
