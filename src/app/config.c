#include "rlyeh/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/cli.h"
#include "rlyeh/log.h"
#include "rlyeh/store.h"
#include "rlyeh/text.h"

void config_default(struct config *c)
{
	char state[CONFIG_PATH_MAX - sizeof("/rlyeh.db") + 1];

	memset(c, 0, sizeof(*c));
	/* Under systemd the unit's state directory holds the database unless
	 * the file or RLYEH_DATABASE says otherwise. */
	if (store_state_dir(state, sizeof(state)) == 0)
		snprintf(c->database, sizeof(c->database), "%s/rlyeh.db", state);
	else
		text_copy(c->database, sizeof(c->database), "rlyeh.db");
	text_copy(c->api_url, sizeof(c->api_url), "https://discord.com/api/v10");
	text_copy(c->lang, sizeof(c->lang), "en");
	c->turn_timeout = 120;
	c->lobby_timeout = 86400;
	c->log_level = LOG_INFO;
}

static int fail(char *err, size_t errlen, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, const char *where, const char *fmt, ...)
{
	char reason[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s: %s", where, reason);
	return -1;
}

static int set_string(char *dst, size_t cap, const char *value, const char *where, char *err,
                      size_t errlen)
{
	if (strlen(value) >= cap)
		return fail(err, errlen, where, "value longer than %zu bytes", cap - 1);
	memcpy(dst, value, strlen(value) + 1);
	return 0;
}

static int is_snowflake(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 20)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

static int set_url(char *dst, size_t cap, const char *value, const char *ws, const char *where,
                   char *err, size_t errlen)
{
	size_t n = strlen(value);

	if (strncmp(value, "https://", 8) != 0 && strncmp(value, "http://", 7) != 0 &&
	    (!ws || (strncmp(value, "wss://", 6) != 0 && strncmp(value, "ws://", 5) != 0)))
		return fail(err, errlen, where, "expected a%s URL",
		            ws ? " ws://, wss://" : "n http(s)");
	if (n && value[n - 1] == '/')
		return fail(err, errlen, where, "remove the trailing '/'");
	return set_string(dst, cap, value, where, err, errlen);
}

static int set_bool(int *dst, const char *value, const char *where, char *err, size_t errlen)
{
	if (strcmp(value, "true") == 0 || strcmp(value, "yes") == 0 || strcmp(value, "1") == 0)
		*dst = 1;
	else if (strcmp(value, "false") == 0 || strcmp(value, "no") == 0 || strcmp(value, "0") == 0)
		*dst = 0;
	else
		return fail(err, errlen, where, "expected true or false, got '%s'", value);
	return 0;
}

/* Reads a number of shards or a shard id: digits only, at most max. */
static int shard_number(const char *s, size_t n, long long max, long long *out)
{
	long long v = 0;

	if (n == 0 || n > 6)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

int config_set_shards(struct config *c, const char *value, const char *where, char *err,
                      size_t errlen)
{
	static const char allowed[] =
	    "expected auto, A-B/N (this process runs shards A to B of N) or A/N";
	const char *slash = strchr(value, '/'), *dash;
	long long first, last, count;

	if (strcmp(value, "auto") == 0) {
		c->shard_first = c->shard_last = c->shard_count = 0;
		return 0;
	}
	if (!slash || shard_number(slash + 1, strlen(slash + 1), CONFIG_SHARD_COUNT_MAX, &count))
		return fail(err, errlen, where, "shards: '%s': %s", value, allowed);
	dash = memchr(value, '-', (size_t)(slash - value));
	if (dash ? shard_number(value, (size_t)(dash - value), CONFIG_SHARD_COUNT_MAX, &first) ||
	               shard_number(dash + 1, (size_t)(slash - dash - 1), CONFIG_SHARD_COUNT_MAX,
	                            &last)
	         : shard_number(value, (size_t)(slash - value), CONFIG_SHARD_COUNT_MAX, &first))
		return fail(err, errlen, where, "shards: '%s': %s", value, allowed);
	if (!dash)
		last = first;
	if (count < 1)
		return fail(err, errlen, where, "shards: '%s': the count N must be at least 1",
		            value);
	if (first > last)
		return fail(err, errlen, where, "shards: '%s': A must not be above B", value);
	if (last >= count)
		return fail(err, errlen, where,
		            "shards: '%s': shard ids run from 0 to N-1 (%lld here)", value,
		            count - 1);
	if (last - first + 1 > CONFIG_SHARDS_MAX)
		return fail(err, errlen, where,
		            "shards: '%s': at most %d shards in one process; run several, each "
		            "with its own A-B/N",
		            value, CONFIG_SHARDS_MAX);
	c->shard_first = (int)first;
	c->shard_last = (int)last;
	c->shard_count = (int)count;
	return 0;
}

/* Applies one key; where is "file:line" or "RLYEH_KEY". */
static int apply(struct config *c, const char *key, const char *value, const char *where, char *err,
                 size_t errlen)
{
	long long v;

	if (strcmp(key, "database") == 0) {
		if (!*value)
			return fail(err, errlen, where, "database: empty path");
		return set_string(c->database, sizeof(c->database), value, where, err, errlen);
	}
	if (strcmp(key, "api_url") == 0)
		return set_url(c->api_url, sizeof(c->api_url), value, NULL, where, err, errlen);
	if (strcmp(key, "gateway_url") == 0)
		return *value ? set_url(c->gateway_url, sizeof(c->gateway_url), value, "ws", where,
		                        err, errlen)
		              : (c->gateway_url[0] = '\0', 0);
	if (strcmp(key, "token_file") == 0)
		return set_string(c->token_file, sizeof(c->token_file), value, where, err, errlen);
	if (strcmp(key, "application_id") == 0) {
		if (*value && !is_snowflake(value))
			return fail(err, errlen, where, "application_id: expected a numeric id");
		return set_string(c->application_id, sizeof(c->application_id), value, where, err,
		                  errlen);
	}
	if (strcmp(key, "guilds") == 0) {
		char buf[CONFIG_GUILDS * 32];
		c->nguilds = 0;
		if (set_string(buf, sizeof(buf), value, where, err, errlen))
			return -1;
		for (char *save = NULL, *t = strtok_r(buf, ", ", &save); t;
		     t = strtok_r(NULL, ", ", &save)) {
			if (!is_snowflake(t))
				return fail(err, errlen, where, "guilds: '%s' is not a numeric id",
				            t);
			if (c->nguilds == CONFIG_GUILDS)
				return fail(err, errlen, where, "guilds: at most %d",
				            CONFIG_GUILDS);
			text_copy(c->guilds[c->nguilds++], sizeof(c->guilds[0]), t);
		}
		return 0;
	}
	if (strcmp(key, "language") == 0) {
		if (strcmp(value, "en") != 0 && strcmp(value, "nl") != 0)
			return fail(err, errlen, where, "language: expected en or nl");
		return set_string(c->lang, sizeof(c->lang), value, where, err, errlen);
	}
	if (strcmp(key, "turn_timeout") == 0) {
		if (cli_parse_ll(value, 0, 86400, &v))
			return fail(err, errlen, where,
			            "turn_timeout: expected 0 to 86400 seconds");
		c->turn_timeout = (int)v;
		return 0;
	}
	if (strcmp(key, "lobby_timeout") == 0) {
		if (cli_parse_ll(value, 0, 2592000, &v))
			return fail(err, errlen, where,
			            "lobby_timeout: expected 0 (never) to 2592000 seconds");
		c->lobby_timeout = (int)v;
		return 0;
	}
	if (strcmp(key, "health_port") == 0) {
		if (cli_parse_ll(value, 0, 65535, &v))
			return fail(err, errlen, where, "health_port: expected 0 (off) to 65535");
		c->health_port = (int)v;
		return 0;
	}
	if (strcmp(key, "shards") == 0)
		return config_set_shards(c, value, where, err, errlen);
	if (strcmp(key, "compress") == 0)
		return set_bool(&c->compress, value, where, err, errlen);
	if (strcmp(key, "standby") == 0)
		return set_bool(&c->standby, value, where, err, errlen);
	if (strcmp(key, "durability") == 0) {
		if (strcmp(value, "full") == 0)
			c->durability = 0;
		else if (strcmp(value, "normal") == 0)
			c->durability = 1;
		else
			return fail(err, errlen, where, "durability: expected full or normal");
		return 0;
	}
	if (strcmp(key, "log_level") == 0) {
		int level = log_level_parse(value);
		if (level < 0)
			return fail(err, errlen, where,
			            "log_level: expected error, warning, notice, info or debug");
		c->log_level = level;
		return 0;
	}
	if (strcmp(key, "token") == 0)
		return fail(err, errlen, where,
		            "the token is not read from the configuration file: set RLYEH_TOKEN "
		            "or token_file");
	return fail(err, errlen, where, "unknown key '%s'", key);
}

static const char *const env_keys[] = {
	"database", "api_url",      "gateway_url",   "token_file", "application_id", "guilds",
	"language", "turn_timeout", "compress",      "log_level",  "health_port",    "shards",
	"standby",  "durability",   "lobby_timeout", NULL,
};

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
		*--end = '\0';
	return s;
}

int config_load(struct config *c, const char *path, char *err, size_t errlen)
{
	char line[2048], where[CONFIG_PATH_MAX + 32];

	if (path) {
		FILE *f = fopen(path, "r");
		int n = 0;
		if (!f)
			return fail(err, errlen, path, "%s", strerror(errno));
		while (fgets(line, sizeof(line), f)) {
			char *eq, *key, *value;
			n++;
			snprintf(where, sizeof(where), "%s:%d", path, n);
			if (strlen(line) + 1 < sizeof(line) && !strchr(line, '\n') && !feof(f)) {
				fclose(f);
				return fail(err, errlen, where, "a NUL byte in the line");
			}
			if (!strchr(line, '\n') && !feof(f)) {
				fclose(f);
				return fail(err, errlen, where, "line longer than %zu bytes",
				            sizeof(line) - 2);
			}
			key = trim(line);
			if (!*key || *key == '#')
				continue;
			eq = strchr(key, '=');
			if (!eq) {
				fclose(f);
				return fail(err, errlen, where, "expected key = value");
			}
			*eq = '\0';
			value = trim(eq + 1);
			key = trim(key);
			if (apply(c, key, value, where, err, errlen)) {
				fclose(f);
				return -1;
			}
		}
		fclose(f);
	}
	for (int i = 0; env_keys[i]; i++) {
		char name[64];
		const char *value;
		snprintf(name, sizeof(name), "RLYEH_");
		for (size_t k = 0; env_keys[i][k] && k + 7 < sizeof(name); k++) {
			name[6 + k] = (char)toupper((unsigned char)env_keys[i][k]);
			name[7 + k] = '\0';
		}
		value = getenv(name);
		if (value && apply(c, env_keys[i], value, name, err, errlen))
			return -1;
	}
	log_set_level(c->log_level);
	return 0;
}

/* Refuses a token holding anything but printable ASCII without spaces:
 * it goes into an HTTP header and the gateway's IDENTIFY as it is. The
 * message names the offending byte's place, never the token. */
static int check_token(const char *token, const char *where, char *err, size_t errlen)
{
	for (size_t i = 0; token[i]; i++) {
		unsigned char ch = (unsigned char)token[i];
		if (ch < 0x21 || ch > 0x7e)
			return fail(err, errlen, where,
			            "the token has %s (byte 0x%02x at position %zu); a bot token "
			            "is printable ASCII without spaces",
			            ch == ' '    ? "a space"
			            : ch >= 0x80 ? "a non-ASCII byte"
			                         : "a control character",
			            ch, i + 1);
	}
	return 0;
}

/* Reads the first line of a token file into c->token. */
static int read_token_file(struct config *c, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char buf[CONFIG_TOKEN_MAX + 2];

	if (!f)
		return fail(err, errlen, path, "cannot read the token: %s", strerror(errno));
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return fail(err, errlen, path, "the token file is empty");
	}
	fclose(f);
	if (strlen(trim(buf)) >= CONFIG_TOKEN_MAX)
		return fail(err, errlen, path, "the token is too long");
	if (check_token(trim(buf), path, err, errlen))
		return -1;
	text_copy(c->token, sizeof(c->token), trim(buf));
	return c->token[0] ? 0 : fail(err, errlen, path, "the token file is empty");
}

int config_load_token(struct config *c, char *err, size_t errlen)
{
	const char *env = getenv("RLYEH_TOKEN"), *creds = getenv("CREDENTIALS_DIRECTORY");
	char path[CONFIG_PATH_MAX + 16];

	c->token[0] = '\0';
	if (env && *env) {
		if (strlen(env) >= CONFIG_TOKEN_MAX)
			return fail(err, errlen, "RLYEH_TOKEN", "the token is too long");
		if (check_token(env, "RLYEH_TOKEN", err, errlen))
			return -1;
		text_copy(c->token, sizeof(c->token), env);
		return 0;
	}
	if (c->token_file[0])
		return read_token_file(c, c->token_file, err, errlen);
	if (creds && *creds) {
		snprintf(path, sizeof(path), "%s/token", creds);
		FILE *f = fopen(path, "r");
		if (f) {
			fclose(f);
			return read_token_file(c, path, err, errlen);
		}
	}
	return 1;
}
