/* Fuzzes gateway payloads: each input is one received message, handed to
 * gateway_receive as raw bytes (not NUL-terminated), first on a gateway with
 * no session, then on one that has seen READY (so RESUME, op 9 "resumable"
 * and sequence tracking are reached). Dispatches of INTERACTION_CREATE also
 * go through discord_parse_interaction, as in the daemon. The lws context
 * is real but never serviced and has no listener: nothing touches the
 * network. */
#include <libwebsockets.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/discord.h"
#include "rlyeh/gateway.h"

#include "fuzz_gateway.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct lws_context *ctx;
static const char ready[] = "{\"op\":0,\"s\":1,\"t\":\"READY\",\"d\":{\"session_id\":\"s1\","
                            "\"resume_gateway_url\":\"wss://resume.invalid\"}}";

static void on_dispatch(void *unused, const char *t, const cJSON *d, int64_t seq)
{
	struct discord_req r;
	char err[128];

	(void)unused;
	(void)seq;
	if (strcmp(t, "INTERACTION_CREATE") != 0)
		return;
	if (discord_parse_interaction(d, &r, err, sizeof(err)) == 0) {
		if (r.req.cmd.kind < 0 || r.req.cmd.kind >= CMD_COUNT || r.req.cmd.nargs < 0 ||
		    r.req.cmd.nargs > CMD_ARGS_MAX)
			abort();
	} else if (!memchr(err, '\0', sizeof(err))) {
		abort();
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	ctx = fuzz_gateway_context();
	return 0;
}

/* Feeds the input to a new gateway, after `prime` when not NULL; the
 * gateway's timers are cancelled before it is freed. */
static void run(const uint8_t *data, size_t size, const char *prime)
{
	struct gateway_config cfg = {
		.url = "wss://gateway.invalid",
		.token = "token",
		.compress = 0,
		.protocol_name = PROTOCOL,
	};
	struct gateway_handler h = { .dispatch = on_dispatch, .state = fuzz_gateway_on_state };
	struct gateway *g = gateway_new(ctx, &cfg, &h);

	if (!g)
		abort();
	if (prime)
		gateway_receive(g, prime, strlen(prime));
	gateway_receive(g, (const char *)data, size);
	gateway_stop(g);
	if (gateway_state(g) != GATEWAY_STOPPED)
		abort();
	gateway_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run(data, size, NULL);
	run(data, size, ready);
	return 0;
}
