/* gateway: the Discord gateway client over libwebsockets (shared/design/
 * discord.md): HELLO, heartbeats with jitter, IDENTIFY (intents 0), READY,
 * sequence tracking, RESUME, zombie detection, op 1/7/9, the documented close
 * codes (4010/4011 with what to set), the shard in IDENTIFY, reconnection with capped exponential
 * backoff and jitter, the send limit (120 per 60 s) and payload cap (4096 bytes), optional
 * zlib-stream.
 *
 * It runs on the caller's lws context: the caller's protocol callback passes
 * every callback of the gateway's connection to gateway_callback(). */
#ifndef RLYEH_GATEWAY_H
#define RLYEH_GATEWAY_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

struct lws;
struct lws_context;
struct gateway;

#define GATEWAY_MAX_MESSAGE (4u << 20) /* largest payload accepted, inflated */
#define GATEWAY_MAX_SEND    4096
#define GATEWAY_SEND_WINDOW 120 /* sends per 60 s */

enum gateway_state {
	GATEWAY_IDLE,
	GATEWAY_CONNECTING,
	GATEWAY_HELLO, /* connected, waiting for HELLO */
	GATEWAY_IDENTIFYING,
	GATEWAY_RESUMING,
	GATEWAY_READY,
	GATEWAY_WAITING, /* waiting to reconnect */
	GATEWAY_STOPPED, /* closed for good (fatal close code or gateway_stop) */
};

/* Exit statuses for fatal close codes. */
#define GATEWAY_EXIT_AUTH     3 /* 4004: authentication failed (bad token) */
#define GATEWAY_EXIT_REJECTED 4 /* 4010-4014: shard, version or intents refused */

struct gateway_handler {
	void *ctx;
	/* A dispatch (op 0): t, its data, its sequence number. */
	void (*dispatch)(void *ctx, const char *t, const cJSON *d, int64_t seq);
	/* The connection state changed; why is a short English reason. */
	void (*state)(void *ctx, int state, const char *why);
	/* Optional: the client needs a new session and asks for a turn to
	 * IDENTIFY (its state is then GATEWAY_WAITING); the owner answers, now
	 * or later, with gateway_identify_turn(). Without it, new sessions are
	 * spaced 5 s apart by the client itself. */
	void (*identify_turn)(void *ctx);
};

struct gateway_config {
	const char *url; /* ws:// or wss:// base, from GET /gateway/bot or configuration */
	const char *token;
	int compress;              /* ask for zlib-stream */
	const char *protocol_name; /* the name of the caller's lws protocol */
	int shard_id, shard_count; /* IDENTIFY's "shard": [id, count]; count 0: none */
};

/* Creates a client on `ctx` (borrowed); strings are copied. NULL when memory
 * is short. */
struct gateway *gateway_new(struct lws_context *ctx, const struct gateway_config *cfg,
                            const struct gateway_handler *h);

/* Before gateway_start: the session to RESUME (another process's, read
 * from the store), as if this client had made it; an empty session_id
 * forgets any. Strings are copied (cut to fit). If Discord no longer allows
 * the resume (op 9 false, close 4007/4009), the client identifies anew. */
void gateway_set_session(struct gateway *g, const char *session_id, int64_t seq,
                         const char *resume_url);

/* The session as it is now: session_id ("" before READY), the last
 * sequence number (-1 none) and resume_gateway_url; each out may be NULL. */
void gateway_get_session(const struct gateway *g, char *session_id, size_t sid_cap, int64_t *seq,
                         char *resume_url, size_t url_cap);

/* Connects (or reconnects); the handler hears of every change. */
void gateway_start(struct gateway *g);

/* Gives the client the turn it asked for (identify_turn): it connects and
 * identifies. A client that no longer waits for a turn ignores it. */
void gateway_identify_turn(struct gateway *g);

/* Closes with a resumable code (not 1000/1001) and stops reconnecting. */
void gateway_stop(struct gateway *g);

/* The lws callback for the gateway's connection; returns what lws expects. */
int gateway_callback(struct gateway *g, struct lws *wsi, int reason, void *in, size_t len);

int gateway_state(const struct gateway *g);

/* 0, or GATEWAY_EXIT_AUTH / GATEWAY_EXIT_REJECTED after a fatal close. */
int gateway_fatal(const struct gateway *g);

/* Reconnections since the start (for metrics). */
long gateway_reconnects(const struct gateway *g);

/* The last heartbeat's time to its ACK in seconds, or -1 before the
 * first ACK. */
double gateway_latency(const struct gateway *g);

/* Handles one whole payload as if it had just been received (the path
 * every incoming message takes; also the fuzzing entry point). */
void gateway_receive(struct gateway *g, const char *text, size_t len);

/* Handles the bytes of one whole received websocket message as the
 * connection's receive path does: capped at GATEWAY_MAX_MESSAGE, and with
 * zlib-stream appended to the stream and inflated at each flush marker (the
 * stream is set up on first use). Returns 0, or -1 when the message was
 * refused and the connection closed to start again (tests, fuzzing). */
int gateway_receive_message(struct gateway *g, const void *data, size_t len);

/* Frees the client (closing nothing: call after the context is destroyed or
 * the connection closed). NULL is a no-op. */
void gateway_free(struct gateway *g);

/* The reaction to a close code: 0 resume, 1 new session, 2 stop for good. */
int gateway_close_action(int code);

#endif
