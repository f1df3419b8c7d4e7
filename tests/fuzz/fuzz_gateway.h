/* What the gateway harnesses (fuzz_gateway.c, fuzz_zlib.c) share: an lws
 * context that is real but never serviced and has no listener, so nothing
 * touches the network, and the check of every state change. */
#ifndef RLYEH_FUZZ_GATEWAY_H
#define RLYEH_FUZZ_GATEWAY_H

#include <libwebsockets.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/gateway.h"
#include "rlyeh/log.h"

#define PROTOCOL "rlyeh-gateway"

static int fuzz_gateway_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
                                 void *in, size_t len)
{
	return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocols fuzz_gateway_protocols[] = {
	{ PROTOCOL, fuzz_gateway_callback, 0, 0, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

/* The gateway's state callback: aborts on a state out of range or a missing
 * reason. */
static void fuzz_gateway_on_state(void *unused, int state, const char *why)
{
	(void)unused;
	if (state < GATEWAY_IDLE || state > GATEWAY_STOPPED || !why)
		abort();
}

/* Quiets the logs and returns the context; aborts when it cannot be made. */
static struct lws_context *fuzz_gateway_context(void)
{
	struct lws_context_creation_info info;
	struct lws_context *ctx;

	log_set_level(LOG_ERR);
	lws_set_log_level(0, NULL);
	memset(&info, 0, sizeof(info));
	info.port = CONTEXT_PORT_NO_LISTEN;
	info.protocols = fuzz_gateway_protocols;
	ctx = lws_create_context(&info);
	if (!ctx)
		abort();
	return ctx;
}

#endif
