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

#include "fuzz_gateway.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct lws_context *ctx;

static void on_dispatch(void *unused, const char *t, const cJSON *d, int64_t seq)
{
	(void)unused;
	(void)seq;
	(void)d; /* may be NULL: a dispatch without "d" */
	if (!t)
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	ctx = fuzz_gateway_context();
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
	struct gateway_handler h = { .dispatch = on_dispatch, .state = fuzz_gateway_on_state };
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
