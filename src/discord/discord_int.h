/* discord_int: what the files of the Discord adapter (include/rlyeh/discord.h)
 * share: its limits, the daemon's state (struct app and what it holds) and
 * the functions one of its files calls in another. Private to src/discord:
 * discord_in.c reads interactions, discord_cmds.c defines the slash
 * commands, discord_out.c writes messages, discord_loop.c runs the daemon's
 * loop, discord_shared.c shares limits and shards with the other processes
 * through PostgreSQL, and discord.c starts it all (discord_main). */
#ifndef RLYEH_DISCORD_INT_H
#define RLYEH_DISCORD_INT_H

#include "rlyeh/discord.h"

#include <errno.h>
#include <getopt.h>
#include <libwebsockets.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "rlyeh/cdsolvecache.h"
#include "rlyeh/cli.h"
#include "rlyeh/cmd.h"
#include "rlyeh/config.h"
#include "rlyeh/console.h"
#include "rlyeh/gateway.h"
#include "rlyeh/i18n.h"
#include "rlyeh/limits.h"
#include "rlyeh/log.h"
#include "rlyeh/metrics.h"
#include "rlyeh/owner.h"
#include "rlyeh/play.h"
#include "rlyeh/rest.h"
#include "rlyeh/rng.h"
#include "rlyeh/shards.h"
#include "rlyeh/store.h"
#include "rlyeh/text.h"

#define USER_AGENT      "DiscordBot (https://github.com/rlyeh-bot/rlyeh, " RLYEH_VERSION ")"
#define PROTOCOL        "rlyeh-gateway"
#define DEDUP_SLOTS     8192
#define CHANNELS_MAX    65536
#define PENDING_SLOTS   8192
#define MANAGE_CHANNELS (1ULL << 4)
#define ADMINISTRATOR   (1ULL << 3)
#define TOKEN_LIFE_MS   (14LL * 60 * 1000) /* interaction tokens last 15 minutes */
#define CONTENT_MAX     2000
#define TRIM_MS         1000       /* between two looks whether memory can go back */
#define HEAP_TRIM_MIN   (64 << 20) /* free top of a heap kept while busy */
#define HEAP_MMAP_MIN   (4 << 20)  /* blocks this big are mapped apart */
#define QUIET_MS        500        /* no answer for this long: free memory goes back */
#define BATCH_MAX       64         /* interactions committed together at most */
#define BATCH_MSGS      160        /* replies (~20 KB each) held for a commit at most, about */
#define GATHER_US       20000      /* time spent gathering readable interactions into a batch */
#define SNOWFLAKE_MAX   DISCORD_SNOWFLAKE_MAX /* 64-bit integers: 20 digits at most */

_Static_assert(PENDING_SLOTS <= 65536, "a slot is a uint16_t in pend_free");
_Static_assert(MSG_PROMPT_TEXT <= CMD_ARG_MAX - 1, "a prompt's text is one command argument");
/* ---- the daemon ---- */

enum tag_kind {
	TAG_GATEWAY_BOT = 1,
	TAG_REGISTER,
	TAG_CALLBACK,
	TAG_FOLLOWUP,
	TAG_OTHER,
};

/* What a request is for, kept with it until it is answered. */
struct purpose {
	int kind;            /* enum tag_kind */
	const char *channel; /* the channel it is about, or NULL */
	/* TAG_REGISTER: the fingerprint of the definitions; a live message
	 * made by an interaction: its token (to take the buttons off later) */
	const char *token;
	uint64_t live; /* it makes the channel's live message number `live`; 0: not one */
	int original;  /* that message is the interaction's original response */
};

#define DIRTY_MAX 256 /* channels whose live message waits to be kept */

/* What the adapter knows of a channel's live message: the newest public
 * message the bot posted there, holding the table, the last moves and the
 * buttons of the moment. Every new one takes the buttons off the one
 * before (it keeps its text). */
struct chan {
	char channel[SNOWFLAKE_MAX];
	uint64_t live;               /* the number of the newest live message, 0: none yet */
	int open;                    /* it has buttons or a menu to take off */
	int made;                    /* the request making it was answered: it exists */
	char msg_id[SNOWFLAKE_MAX];  /* its id once known, else "" */
	char *token;                 /* the interaction that made it, or NULL (a channel post) */
	int64_t token_at;            /* when */
	int original;                /* it is that interaction's original response */
	char clicked[SNOWFLAKE_MAX]; /* the message a click's answer took the buttons off last */
	int stored;                  /* the store holds a value for it (restore_live, keep_live) */
	int dirty;                   /* in app.dirty: to be kept (keep_dirty) */
	struct chan *next;           /* in its hash bucket */
};

/* A follow-up held until its interaction's callback is accepted, with copies
 * of its files (names and bytes in one block) and of its purpose. */
struct later {
	char *path;
	char *body;
	struct rest_file *files;
	int nfiles;
	struct purpose pu;
	char channel[SNOWFLAKE_MAX]; /* pu.channel's copy */
	char *token;                 /* pu.token's copy */
};

/* The prompt of a button sent, remembered to answer a click on it with its
 * modal (direct-mapped by the button's id; an entry overwritten, or lost in a
 * restart, gives the modal discord_modal_json makes without one). */
#define PROMPT_SLOTS 1024
struct prompt_slot {
	char id[MSG_BUTTON_ID];
	struct msg_prompt p;
};

struct pending {
	uint64_t tag;
	struct later *later; /* callbacks: follow-ups to send once accepted */
	int nlater;
	int kind;
	int64_t started_us; /* callbacks: when the interaction arrived */
	char channel[64];
	char *token;   /* as struct purpose's */
	int64_t sent;  /* when it was submitted (ms): how old its token is */
	uint64_t live; /* as struct purpose's */
	int original;  /* as struct purpose's */
};

/* An interaction whose replies wait for its batch's commit. */
struct held {
	struct discord_req r;
	int64_t arrived_us;
	struct msg_list out;
};

struct app {
	struct config cfg;
	struct store *st;
	struct bot *bot;
	struct rest *rest;
	struct shards *shards;
	struct lws_context *ctx;
	char app_id[32];
	char gateway_url[CONFIG_URL_MAX];
	int recommended_shards;         /* GET /gateway/bot's shards; 0 unknown */
	int max_concurrency;            /* session starts per 5 s (buckets) */
	long starts_left, starts_total; /* session_start_limit; < 0 unknown */
	long starts_reset_ms;           /* its reset_after */
	int registered;
	int stopping;
	uint64_t next_tag;
	struct msg_list out;
	lws_sorted_usec_list_t tick;
	lws_sorted_usec_list_t watchdog;
	uint64_t watchdog_us;
	lws_sorted_usec_list_t trim;
	int64_t handled_us; /* when the last interaction was answered (lws_now_usecs) */
	/* With PostgreSQL: the limits shared with the other processes. */
	struct limits *limits;
	lws_sorted_usec_list_t shared;
	int64_t next_beat;
	int global_total; /* the whole global limit, shared by the live processes */
	int live;         /* processes running, as the last beat saw */
	const char *config_path;
	int notified_ready;
	uint64_t seen[2][DEDUP_SLOTS]; /* recent interaction ids: newer, older */
	int seen_n;
	struct chan **chans; /* hash buckets */
	size_t nchans, nbuckets;
	/* Requests in flight, found by tag: a tag is a sequence number times
	 * PENDING_SLOTS plus its slot. Slots are reused newest freed first, so
	 * that the pages touched follow the requests in flight at most rather
	 * than the whole table (calloc'd: the rest stays unmapped). */
	struct pending pend[PENDING_SLOTS];
	uint16_t pend_free[PENDING_SLOTS]; /* freed slots, newest on top */
	int npend_free;
	int pend_used; /* slots ever used: pend[pend_used..] are untouched */
	struct metrics metrics;
	int64_t arrived_us; /* the interaction being handled */
	struct held *batch; /* interactions handled, replies held until the commit */
	int nbatch;
	int batch_msgs;              /* the replies the batch holds */
	int batching;                /* a bot batch is open */
	uint64_t hold;               /* the callback that follow-ups wait for, or 0 */
	struct prompt_slot *prompts; /* PROMPT_SLOTS, made when a prompt is first sent */
	/* With PostgreSQL and shards = A-B/N: the shards owned here (owner.h),
	 * each shard's epoch (0 not owned) and the seq of its saved session. */
	struct owner *owner;
	lws_sorted_usec_list_t own;
	int own_first, own_count;
	int64_t own_epoch[CONFIG_SHARDS_MAX];
	int64_t own_saved_seq[CONFIG_SHARDS_MAX];
	/* connected while processes of another shard count still run */
	unsigned char own_waiting[CONFIG_SHARDS_MAX];
	/* Channels whose new live message is still to be kept (keep_dirty). */
	struct chan *dirty[DIRTY_MAX];
	int ndirty;
};

/* A /healthz or /metrics answer being written. */
struct http_session {
	char *body;
	size_t len;
};

#define SHARED_POLL_MS 100

/* ---- discord_in.c ---- */

/* obj's member `key` when it is a string (owned by obj), else NULL. */
const char *discord_in_str(const cJSON *obj, const char *key);

/* ---- discord_out.c ---- */

/* 1 when s is a snowflake: 1 to 20 digits. */
int discord_out_is_snowflake(const char *s);

/* ---- discord_loop.c ---- */

/* The wall clock in milliseconds since the epoch. */
int64_t discord_loop_now_ms(void);

/* Frees a pending entry's held follow-ups. */
void discord_loop_release_later(struct pending *p);

/* Schedules bot_tick at the bot's next deadline. */
void discord_loop_schedule_tick(struct app *a);

/* Commits the open batch, then sends every held reply in arrival order (or,
 * when the commit failed, a private refusal instead of each). */
void discord_loop_flush(struct app *a);

/* With a batch open, services what is already readable (no waiting) as long
 * as each pass adds interactions to it, so that the interactions that came
 * together are committed together (up to BATCH_MAX interactions or
 * BATCH_MSGS replies, for GATHER_US at most). Returns 0, or -1 when the
 * event loop failed. */
int discord_loop_gather(struct app *a);

/* shards' dispatch callback (ctx: the struct app): READY registers the
 * commands once, INTERACTION_CREATE is handled unless its shard is still
 * another process's; other events are ignored. */
void discord_loop_on_dispatch(void *ctx, int shard, const char *t, const cJSON *d, int64_t seq);

/* shards' state callback (ctx: the struct app): logs the change and tells
 * systemd (READY=1 once every shard is ready, else STATUS). */
void discord_loop_on_state(void *ctx, int shard, int state, const char *why);

/* Re-reads what can change without a restart: the log level and the turn
 * timeout. A bad file is refused and everything stays as it was. */
void discord_loop_reload(struct app *a);

/* Handles every REST response waiting, then keeps the live messages made
 * meanwhile (keep_dirty). */
void discord_loop_drain(struct app *a);

/* Keeps the live message of every channel (keep_live) at a clean stop. A
 * single process stopped by SIGKILL keeps none (the buttons of those
 * messages are refused as stale); a process owning its shards through the
 * database keeps each one as it is made (live_made), so that the process
 * taking a shard over takes those buttons off. */
void discord_loop_persist_live(struct app *a);

/* ---- discord_shared.c ---- */

/* Beats and resets this process's share of the global limit. */
void discord_shared_beat(struct app *a);

/* Every SHARED_POLL_MS: holds the requests when another process got a
 * global 429, announces this one's, and beats every LIMITS_BEAT_MS and when
 * another process started. */
void discord_shared_due(lws_sorted_usec_list_t *sul);

/* shards' may_identify: the IDENTIFY bucket shared by the processes. */
int discord_shared_identify(void *ctx, int shard, int bucket, int64_t *wait_us);

/* Saves shard `shard`'s gateway session when its seq moved (fenced by its
 * epoch: a process that lost the shard writes nothing). */
void discord_shared_own_save_session(struct app *a, int shard);

/* owner's gained callback (ctx: the struct app): loads the shard's games
 * (on failure it is logged and the shard stays unowned here), records its
 * epoch and resumes or starts its gateway session. */
void discord_shared_own_gained(void *ctx, int shard, int64_t epoch);

/* Resharding: the shard's lock is had, but processes of another shard count
 * still run it; its connection starts (a new session) so that the switch is
 * quick, and its interactions are left to them until own_gained. */
void discord_shared_own_waits(void *ctx, int shard);

/* owner's lost callback (ctx: the struct app): stops the shard's session
 * and drops its games from memory. */
void discord_shared_own_lost(void *ctx, int shard);

/* Every OWN_POLL_MS: commits the batch, saves the owned shards' sessions,
 * forgets interactions older than INTERACTIONS_KEPT_MS and polls ownership;
 * schedules itself again. */
void discord_shared_own_due(lws_sorted_usec_list_t *sul);

#endif
