/* discord: the Discord adapter — slash commands and buttons in, messages out
 * — and `rlyeh run`, the daemon. */
#ifndef RLYEH_DISCORD_H
#define RLYEH_DISCORD_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "rlyeh/bot.h"

/* Strings a bot_req built from an interaction points into. */
struct discord_req {
	struct bot_req req;
	char id[32];     /* the interaction's id */
	char token[512]; /* the interaction's token (a secret: never logged) */
	int type;        /* 2 command, 3 component */
	char server[64], channel[64], user[64], name[STORE_NAME_MAX], locale[16];
	char message_id[32]; /* component: the message clicked */
};

/* Maps an INTERACTION_CREATE's data to a bot request. Returns 0, or -1
 * with the reason in err (the interaction is then answered with an error
 * and nothing else happens). */
int discord_parse_interaction(const cJSON *d, struct discord_req *out, char *err, size_t errlen);

/* The slash-command definitions, for bulk overwrite: a JSON array the
 * caller frees. */
char *discord_commands_json(void);

/* The body of an interaction response of `type` (4 message, 7 update) with
 * the messages *m[0..n-1] (events become the content, the last table its
 * embed and buttons); type 0 gives a bare message body (followups, channel
 * messages). `ephemeral` adds flags 64. Caller frees. */
char *discord_response_json(int type, const struct msg *const *m, int n, int ephemeral);

/* `rlyeh run [--config FILE]`: returns the process exit status. */
int discord_main(int argc, char **argv);

#endif
