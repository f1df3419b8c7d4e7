/* Fuzzes the zlib-stream receive path of the gateway: each input is cut
 * into up to three websocket messages (at offsets taken from its first two
 * bytes) that go, in turn, through one connection's inflate stream, as
 * gateway_receive_message does with what the server sends. What inflates is
 * handled as a payload (JSON, ops, dispatches). The lws context is real but
 * never serviced and has no listener: nothing touches the network. */
#include <libwebsockets.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/gateway.h"
#include "rlyeh/log.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PROTOCOL "rlyeh-gateway"

static struct lws_context *ctx;

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
	return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocols protocols[] = {
	{ PROTOCOL, callback, 0, 0, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

static void on_dispatch(void *unused, const char *t, const cJSON *d, int64_t seq)
{
	(void)unused;
	(void)seq;
	(void)d; /* may be NULL: a dispatch without "d" */
	if (!t)
		abort();
}

static void on_state(void *unused, int state, const char *why)
{
	(void)unused;
	if (state < GATEWAY_IDLE || state > GATEWAY_STOPPED || !why)
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct lws_context_creation_info info;

	(void)argc;
	(void)argv;
	log_set_level(LOG_ERR);
	lws_set_log_level(0, NULL);
	memset(&info, 0, sizeof(info));
	info.port = CONTEXT_PORT_NO_LISTEN;
	info.protocols = protocols;
	ctx = lws_create_context(&info);
	if (!ctx)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gateway_config cfg = {
		.url = "wss://gateway.invalid",
		.token = "token",
		.compress = 1,
		.protocol_name = PROTOCOL,
	};
	struct gateway_handler h = { .dispatch = on_dispatch, .state = on_state };
	struct gateway *g;
	size_t cut[2], from = 0;

	if (size < 2)
		return 0;
	cut[0] = 2 + (size > 2 ? data[0] % (size - 1) : 0);
	cut[1] = cut[0] + (size > cut[0] ? data[1] % (size - cut[0] + 1) : 0);
	if (cut[0] > size)
		cut[0] = size;
	if (cut[1] > size)
		cut[1] = size;
	g = gateway_new(ctx, &cfg, &h);
	if (!g)
		abort();
	from = 2;
	for (int i = 0; i < 3; i++) {
		size_t to = i < 2 ? cut[i] : size;
		if (to < from)
			continue;
		if (gateway_receive_message(g, data + from, to - from) < 0)
			break;
		from = to;
	}
	gateway_stop(g);
	if (gateway_state(g) != GATEWAY_STOPPED)
		abort();
	gateway_free(g);
	return 0;
}
