/* Fuzzes the configuration reader: each input is written to an unlinked
 * file in /tmp (reached as /proc/self/fd/N, so nothing is left behind) and
 * read by config_load; then the same bytes are read as a token file by
 * config_load_token. The RLYEH_* variables are cleared first so only the
 * input decides. An accepted configuration must hold values in their
 * documented ranges; a refusal must come with a reason. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rlyeh/config.h"
#include "rlyeh/log.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const vars[] = {
		"RLYEH_DATABASE",        "RLYEH_API_URL",        "RLYEH_GATEWAY_URL",
		"RLYEH_TOKEN_FILE",      "RLYEH_APPLICATION_ID", "RLYEH_GUILDS",
		"RLYEH_LANGUAGE",        "RLYEH_TURN_TIMEOUT",   "RLYEH_COMPRESS",
		"RLYEH_LOG_LEVEL",       "RLYEH_HEALTH_PORT",    "RLYEH_TOKEN",
		"CREDENTIALS_DIRECTORY",
	};
	char name[] = "/tmp/rlyeh-fuzz-config.XXXXXX";

	(void)argc;
	(void)argv;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
	fd = mkstemp(name);
	if (fd < 0 || unlink(name))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

static void check_string(const char *s, size_t cap)
{
	if (!memchr(s, '\0', cap))
		abort();
}

static void check(const struct config *c)
{
	check_string(c->database, sizeof(c->database));
	check_string(c->api_url, sizeof(c->api_url));
	check_string(c->gateway_url, sizeof(c->gateway_url));
	check_string(c->token_file, sizeof(c->token_file));
	check_string(c->application_id, sizeof(c->application_id));
	check_string(c->lang, sizeof(c->lang));
	if (c->nguilds < 0 || c->nguilds > CONFIG_GUILDS)
		abort();
	for (int i = 0; i < c->nguilds; i++)
		check_string(c->guilds[i], sizeof(c->guilds[i]));
	if (!c->database[0] || strncmp(c->api_url, "http", 4) != 0)
		abort();
	if (strcmp(c->lang, "en") != 0 && strcmp(c->lang, "nl") != 0)
		abort();
	if (c->turn_timeout < 0 || c->turn_timeout > 86400 || c->health_port < 0 ||
	    c->health_port > 65535 || (c->compress != 0 && c->compress != 1) ||
	    c->log_level < LOG_ERR || c->log_level > LOG_DEBUG)
		abort();
	if (c->shard_count && (c->shard_first < 0 || c->shard_first > c->shard_last ||
	                       c->shard_last >= c->shard_count ||
	                       c->shard_last - c->shard_first >= CONFIG_SHARDS_MAX))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c;
	char err[512];
	int rc;

	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	config_default(&c);
	err[0] = '\0';
	if (config_load(&c, path, err, sizeof(err)) == 0)
		check(&c);
	else if (!err[0] || !memchr(err, '\0', sizeof(err)))
		abort();

	config_default(&c);
	snprintf(c.token_file, sizeof(c.token_file), "%s", path);
	err[0] = '\0';
	rc = config_load_token(&c, err, sizeof(err));
	if (rc == 0 && (!c.token[0] || !memchr(c.token, '\0', sizeof(c.token))))
		abort();
	if (rc != 0 && (rc != -1 || !err[0]))
		abort();
	log_set_level(LOG_INFO);
	return 0;
}
