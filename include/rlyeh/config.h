/* config: the daemon's configuration — a file of "key = value" lines ('#'
 * starts a comment), then environment variables RLYEH_<KEY> (upper case)
 * over it. Unknown keys and bad values are refused with the file, the line
 * and the reason. The token is never read from the file or the command line:
 * it comes from $RLYEH_TOKEN, or the file named by token_file, or
 * $CREDENTIALS_DIRECTORY/token (a systemd credential). */
#ifndef RLYEH_CONFIG_H
#define RLYEH_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#define CONFIG_PATH_MAX        1024
#define CONFIG_URL_MAX         512
#define CONFIG_TOKEN_MAX       256
#define CONFIG_GUILDS          16
#define CONFIG_SHARDS_MAX      128 /* shards one process runs */
#define CONFIG_SHARD_COUNT_MAX 65536

struct config {
	char database[CONFIG_PATH_MAX];
	char api_url[CONFIG_URL_MAX];     /* ends with /api/v10 */
	char gateway_url[CONFIG_URL_MAX]; /* "" : ask GET /gateway/bot */
	char token_file[CONFIG_PATH_MAX];
	char application_id[32];        /* "" : learnt from READY */
	char guilds[CONFIG_GUILDS][32]; /* register commands here; none: globally */
	int nguilds;
	char lang[8];
	int turn_timeout;  /* seconds, 0 = none */
	int lobby_timeout; /* seconds a lobby may stay untouched before it is closed, 0 = never */
	int compress;      /* zlib-stream transport compression */
	int log_level;     /* enum log_level */
	int health_port;   /* /healthz and /metrics on 127.0.0.1; 0 off */
	/* shards = auto (shard_count 0: the count GET /gateway/bot recommends,
	 * all of them here) or A-B/N (shards A..B of N; A/N one). */
	int shard_first, shard_last, shard_count;
	/* standby = on: with PostgreSQL, take a shard of the range only when it
	 * has been free for 2 s (its owner died); off: take it at once. */
	int standby;
	/* durability = full (0, the default): each commit is synced to the
	 * disk; normal (1): a power cut may lose the last commits (SQLite; see
	 * store_set_durability). */
	int durability;
	char token[CONFIG_TOKEN_MAX]; /* filled by config_load_token */
};

/* Sets the defaults. The database is rlyeh.db in the first directory of
 * $STATE_DIRECTORY when systemd sets it (and the path fits), else rlyeh.db
 * in the working directory. */
void config_default(struct config *c);

/* Reads `path` over c (path NULL: nothing), then the environment. Returns
 * 0, or -1 with "file:line: reason" in err (c partly updated then). */
int config_load(struct config *c, const char *path, char *err, size_t errlen);

/* Applies a shards value (as the key "shards" of the file) to c; `where`
 * names its origin in the message. Returns 0, or -1 with the reason in err
 * (c unchanged then). */
int config_set_shards(struct config *c, const char *value, const char *where, char *err,
                      size_t errlen);

/* Reads the token (see above). Returns 0, 1 when there is none, or -1 with
 * the reason in err (never the token itself): a token that is too long or
 * holds a space or a control character (it could not be sent in an HTTP
 * header) is refused. */
int config_load_token(struct config *c, char *err, size_t errlen);

#endif
