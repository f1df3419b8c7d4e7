/* The Discord adapter: start-up, signals, the HTTP endpoints and discord_main. */
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
#include "rlyeh/jsonarena.h"
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

#include "discord_int.h"

static volatile sig_atomic_t stop_signal, reload_signal;
static struct lws_context *signal_ctx;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_signal = 1;
	else
		stop_signal = 1;
	if (signal_ctx)
		lws_cancel_service(signal_ctx);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Looks every TRIM_MS whether the daemon is quiet (no interaction answered
 * for QUIET_MS) and then gives back what a burst of interactions (their
 * replies held until a commit, requests in flight) left free: the store's
 * page cache (2 MiB; the next interactions read their pages again) and the
 * free pages of the heap, which a long quiet would otherwise keep
 * resident. While interactions come, nothing is given back: pages handed
 * back would be faulted in again at once (measured: 4 % of the CPU). */
static void trim_due(lws_sorted_usec_list_t *sul)
{
	struct app *a = lws_container_of(sul, struct app, trim);

	if (lws_now_usecs() - a->handled_us >= QUIET_MS * LWS_US_PER_MS) {
		store_release_memory(a->st);
		malloc_trim(0);
	}
	lws_sul_schedule(a->ctx, 0, &a->trim, trim_due, TRIM_MS * LWS_US_PER_MS);
}

/* Keeps the heap's free memory while the daemon works: glibc would give the
 * top of a heap back as soon as 128 KiB of it were free and map blocks
 * above a threshold of its own, and a busy daemon then faults the same
 * pages in again at every batch (measured: about 8 % of its CPU). What is
 * free goes back when the daemon is quiet instead (trim_due). Blocks of
 * HEAP_MMAP_MIN and more are still mapped apart (a solved table). */
static void heap_setup(void)
{
	(void)mallopt(M_TRIM_THRESHOLD, HEAP_TRIM_MIN);
	(void)mallopt(M_MMAP_THRESHOLD, HEAP_MMAP_MIN);
}

/* Tells systemd the loop is alive, at half the watchdog period. */
static void watchdog_due(lws_sorted_usec_list_t *sul)
{
	struct app *a = lws_container_of(sul, struct app, watchdog);

	sd_notify(0, "WATCHDOG=1");
	lws_sul_schedule(a->ctx, 0, &a->watchdog, watchdog_due, (lws_usec_t)a->watchdog_us / 2);
}

/* Answers GET /healthz (gateway state, database writable) and /metrics on
 * the local health port. */
static int health_request(struct app *a, struct lws *wsi, struct http_session *hs, const char *uri)
{
	unsigned char head[LWS_PRE + 1024], *start = head + LWS_PRE, *p = start,
	                                    *end = head + sizeof(head) - 1;
	const char *type = "application/json";
	unsigned status = 200;
	struct text tx;
	long w = 0, tm = 0;
	/* Room for the counters, and each shard's lines. */
	size_t cap = 16384 + (size_t)shards_owned(a->shards) * 384;

	hs->body = malloc(cap);
	if (!hs->body)
		return -1;
	text_init(&tx, hs->body, cap);
	if (strcmp(uri, "/healthz") == 0) {
		char stamp[32];
		int ready = shards_ready(a->shards);
		int writable, owned = shards_owned(a->shards);
		/* A process owning its shards through the database that owns none
		 * now waits to take one over: healthy, but not serving. */
		int standby = a->owner && owned == 0;
		snprintf(stamp, sizeof(stamp), "%lld", (long long)discord_loop_now_ms());
		writable = store_setting_put(a->st, "health", stamp) == 0;
		status = (ready || standby) && writable ? 200 : 503;
		text_addf(&tx, "{\"gateway\":\"%s\",\"shards\":%d,\"shards_not_ready\":",
		          standby ? "standby"
		          : ready ? "ready"
		                  : "not ready",
		          owned);
		shards_not_ready_json(a->shards, &tx);
		text_addf(&tx, ",\"database\":\"%s\",\"games\":%d}\n",
		          writable ? "writable" : "failing", bot_open_games(a->bot));
	} else if (strcmp(uri, "/metrics") == 0) {
		struct metrics_gauges g = { 0 };
		struct metrics_shard sh[CONFIG_SHARDS_MAX];
		rest_stats(a->rest, &w, &tm);
		g.nshards = shards_gauges(a->shards, sh, CONFIG_SHARDS_MAX);
		g.shards = sh;
		g.shards_owned = shards_owned(a->shards);
		g.standby = a->owner && g.shards_owned == 0;
		g.gateway_ready = shards_ready(a->shards) && !g.standby;
		g.gateway_state = GATEWAY_READY;
		for (int i = 0; i < g.nshards; i++) {
			if (g.gateway_state == GATEWAY_READY)
				g.gateway_state = sh[i].state;
			g.reconnects += sh[i].reconnects;
		}
		if (!g.nshards)
			g.gateway_state = 0;
		g.games = bot_open_games(a->bot);
		g.rate_limited_waits = w;
		g.too_many = tm;
		g.db_errors = bot_store_errors(a->bot);
		metrics_render(&a->metrics, &g, &tx);
		type = "text/plain; version=0.0.4";
	} else {
		status = 404;
		text_add(&tx, "{\"error\":\"not found\"}\n");
	}
	hs->len = tx.len;
	if (lws_add_http_common_headers(wsi, status, type, hs->len, &p, end) ||
	    lws_finalize_write_http_header(wsi, start, &p, end))
		return 1;
	lws_callback_on_writable(wsi);
	return 0;
}

static int health_write(struct lws *wsi, struct http_session *hs)
{
	unsigned char *buf;
	int rc;

	if (!hs || !hs->body)
		return -1;
	buf = malloc(LWS_PRE + hs->len + 1);
	if (!buf)
		return -1;
	memcpy(buf + LWS_PRE, hs->body, hs->len);
	rc = lws_write(wsi, buf + LWS_PRE, hs->len, LWS_WRITE_HTTP_FINAL);
	free(buf);
	free(hs->body);
	hs->body = NULL;
	if (rc < (int)hs->len)
		return -1;
	return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
	struct lws_context *ctx = wsi ? lws_get_context(wsi) : signal_ctx;
	struct app *a = ctx ? lws_context_user(ctx) : NULL;
	int rc;

	if (reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED) {
		if (a) {
			discord_loop_drain(a);
			if (reload_signal) {
				reload_signal = 0;
				discord_loop_reload(a);
			}
			if (stop_signal && !a->stopping) {
				a->stopping = 1;
				log_msg(LOG_NOTICE, "stopping: closing the gateway");
				shards_stop(a->shards);
			}
		}
		return 0;
	}
	if (a && shards_callback(a->shards, user, wsi, (int)reason, in, len, &rc))
		return rc;
	if (a && reason == LWS_CALLBACK_HTTP)
		return health_request(a, wsi, user, in);
	if (a && reason == LWS_CALLBACK_HTTP_WRITEABLE)
		return health_write(wsi, user);
	if (reason == LWS_CALLBACK_HTTP_DROP_PROTOCOL || reason == LWS_CALLBACK_CLOSED_HTTP) {
		struct http_session *hs = user;
		if (hs) {
			free(hs->body);
			hs->body = NULL;
		}
	}
	return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static void wake(void *ctx)
{
	lws_cancel_service(ctx);
}

static const struct lws_protocols protocols[] = {
	{ PROTOCOL, callback, sizeof(struct http_session), 65536, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

/* Asks GET /gateway/bot for the URL, waiting for the answer (before the
 * event loop runs). Returns 0, or an exit status. */
static int find_gateway(struct app *a)
{
	for (int attempt = 0; attempt < 5; attempt++) {
		struct rest_response resp;
		struct rest_request rq = { .method = REST_GET, .path = "/gateway/bot", .tag = 1 };
		int got = 0;

		if (rest_submit(a->rest, &rq))
			return 1;
		for (int i = 0; i < 3000 && !(got = rest_poll(a->rest, &resp)); i++)
			sleep_ms(10);
		if (!got)
			continue;
		if (resp.status == 401 || resp.status == 403) {
			log_msg(LOG_ERR, "the API refused the token (HTTP %ld): check it",
			        resp.status);
			rest_response_free(&resp);
			return GATEWAY_EXIT_AUTH;
		}
		if (resp.status == 200 && resp.body) {
			cJSON *j = cJSON_Parse(resp.body);
			const char *url = j ? discord_in_str(j, "url") : NULL;
			const cJSON *lim =
			    j ? cJSON_GetObjectItemCaseSensitive(j, "session_start_limit") : NULL;
			const cJSON *rem =
			    lim ? cJSON_GetObjectItemCaseSensitive(lim, "remaining") : NULL;
			const cJSON *reset =
			    lim ? cJSON_GetObjectItemCaseSensitive(lim, "reset_after") : NULL;
			const cJSON *total =
			    lim ? cJSON_GetObjectItemCaseSensitive(lim, "total") : NULL;
			const cJSON *mc =
			    lim ? cJSON_GetObjectItemCaseSensitive(lim, "max_concurrency") : NULL;
			const cJSON *shards =
			    j ? cJSON_GetObjectItemCaseSensitive(j, "shards") : NULL;
			if (url && strlen(url) < sizeof(a->gateway_url) && !a->cfg.gateway_url[0])
				text_copy(a->gateway_url, sizeof(a->gateway_url), url);
			if (cJSON_IsNumber(shards) && shards->valuedouble >= 1 &&
			    shards->valuedouble <= CONFIG_SHARD_COUNT_MAX)
				a->recommended_shards = (int)shards->valuedouble;
			if (cJSON_IsNumber(mc) && mc->valuedouble >= 1 && mc->valuedouble <= 1024)
				a->max_concurrency = (int)mc->valuedouble;
			if (cJSON_IsNumber(rem) && rem->valuedouble >= 0 && cJSON_IsNumber(reset) &&
			    reset->valuedouble >= 0) {
				a->starts_left =
				    rem->valuedouble < 1e9 ? (long)rem->valuedouble : -1;
				a->starts_total = cJSON_IsNumber(total) &&
				                          total->valuedouble >= 1 &&
				                          total->valuedouble < 1e9
				                      ? (long)total->valuedouble
				                      : -1;
				/* A day at most: a longer wait is not believed. */
				a->starts_reset_ms = reset->valuedouble < 86400000
				                         ? (long)reset->valuedouble
				                         : 86400000;
			}
			if (a->starts_left == 0)
				log_msg(LOG_WARN, "no session starts left; waiting %.0f s",
				        (double)a->starts_reset_ms / 1000);
			cJSON_Delete(j);
			rest_response_free(&resp);
			if (a->gateway_url[0])
				return 0;
		} else {
			log_msg(LOG_WARN, "GET /gateway/bot: %ld %s", resp.status, resp.error);
			rest_response_free(&resp);
		}
		sleep_ms(1000L << attempt);
	}
	log_msg(LOG_ERR, "cannot reach the API to find the gateway");
	return 1;
}

/* Decides the shards run here: the configured range, or (auto) all of
 * those GET /gateway/bot recommends. Returns 0, or an exit status after
 * saying why. */
static int plan_shards(struct app *a, struct shards_config *sc)
{
	int count = a->cfg.shard_count ? a->cfg.shard_count
	                               : (a->recommended_shards ? a->recommended_shards : 1);

	if (a->cfg.shard_count) {
		sc->first = a->cfg.shard_first;
		sc->last = a->cfg.shard_last;
	} else if (count > CONFIG_SHARDS_MAX) {
		log_msg(LOG_ERR,
		        "shards = auto: Discord recommends %d shards, more than one process runs "
		        "(%d): run several processes, each with shards = A-B/%d",
		        count, CONFIG_SHARDS_MAX, count);
		return 1;
	} else {
		sc->first = 0;
		sc->last = count - 1;
	}
	sc->count = count;
	sc->max_concurrency = a->max_concurrency;
	sc->remaining = a->starts_left;
	sc->total = a->starts_total;
	sc->reset_after_ms = a->starts_reset_ms;
	if (a->recommended_shards > count)
		log_msg(
		    LOG_WARN,
		    "Discord recommends %d shards; %d are configured (shards = auto follows the "
		    "recommendation)",
		    a->recommended_shards, count);
	log_msg(LOG_NOTICE, "shards %d-%d of %d here (%d session starts per 5 s)", sc->first,
	        sc->last, count, sc->max_concurrency);
	return 0;
}

static const char usage[] =
    "Usage: rlyeh run [--config FILE] [--shards auto|A-B/N]\n"
    "Run the bot on Discord: connect to the gateway, answer slash commands and\n"
    "buttons, keep games in the database. Stops cleanly on SIGTERM or SIGINT.\n"
    "\n"
    "  --config FILE   configuration (see config/rlyeh.conf); RLYEH_<KEY> variables\n"
    "                  override it\n"
    "  --shards SPEC   gateway shards run here (key shards): auto, as many as\n"
    "                  Discord recommends; A-B/N, shards A to B of N; A/N, one.\n"
    "                  With PostgreSQL each shard is owned by one process at a\n"
    "                  time: the others wait and take it over if its owner dies\n"
    "  --help          this text\n"
    "\n"
    "The token comes from $RLYEH_TOKEN, the file named by token_file, or\n"
    "$CREDENTIALS_DIRECTORY/token — never from the command line. Without a\n"
    "token, in a terminal, the game is played there instead (as rlyeh console).\n"
    "Exit status: 0 stopped cleanly, 1 error, 2 usage or no token (not in a\n"
    "terminal),\n"
    "3 the token was refused (gateway close 4004), 4 the gateway refused the\n"
    "client (close 4010-4014: 4010 a shard id not below the count, 4011 too\n"
    "many guilds for the shard count), 5 the database is damaged (nothing\n"
    "written; put a backup back with rlyeh restore).\n";

static const char no_token[] =
    "rlyeh run: no bot token.\n"
    "Create an application at https://discord.com/developers/applications, add a bot,\n"
    "copy its token, and give it to rlyeh as RLYEH_TOKEN in the environment or in a file\n"
    "named by token_file in the configuration (with systemd: LoadCredential=token:...).\n"
    "Without a token, rlyeh run in a terminal plays there instead (as rlyeh console).\n";

int discord_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "shards", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lws_context_creation_info info;
	struct rest_config rc = { 0 };
	struct shards_config sc = { 0 };
	struct shards_handler sh = { 0 };
	struct bot_config bc;
	struct app *a;
	const char *config_path = NULL, *shards_opt = NULL;
	char err[512], shown[512];
	int opt, status = 0, rcode;
	uint64_t seed;

	jsonarena_install();
	heap_setup();
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			config_path = optarg;
			break;
		case 's':
			shards_opt = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return cli_usage_error("run", "unknown option");
		}
	}
	if (optind < argc)
		return cli_usage_error("run", "unexpected argument '%s'", argv[optind]);
	a = calloc(1, sizeof(*a));
	if (!a)
		return 1;
	config_default(&a->cfg);
	if (config_load(&a->cfg, config_path, err, sizeof(err)) ||
	    (shards_opt && config_set_shards(&a->cfg, shards_opt, "--shards", err, sizeof(err)))) {
		fprintf(stderr, "rlyeh run: %s\n", err);
		free(a);
		return 2;
	}
	/* No core file, no ptrace by the same user: the token is in memory. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	rcode = config_load_token(&a->cfg, err, sizeof(err));
	if (rcode > 0 && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
		/* Someone trying it out: the same bot, in this terminal. */
		static char *console_argv[] = { "console", NULL };
		fputs("rlyeh run: no bot token, so the game is played here, in this terminal (a "
		      "local channel).\nGive rlyeh a token to run it on Discord (rlyeh run "
		      "--help).\n",
		      stderr);
		free(a);
		return console_main(1, console_argv);
	}
	if (rcode) {
		if (rcode < 0)
			fprintf(stderr, "rlyeh run: %s\n", err);
		else
			fputs(no_token, stderr);
		free(a);
		return 2;
	}
	/* The event loop must not stop while a solver table is built; tables
	 * solved once are kept beside the database. */
	cdsolvecache_background();
	cdsolvecache_beside(a->cfg.database);
	store_describe(a->cfg.database, shown, sizeof(shown));
	{
		char why[2048];
		int damaged = store_check_start(a->cfg.database, why, sizeof(why));
		if (damaged) {
			log_msg(LOG_ERR, "%s", why);
			free(a);
			return damaged > 0 ? 5 : 1;
		}
	}
	if (store_open(a->cfg.database, &a->st, err, sizeof(err)) ||
	    store_set_durability(a->st, a->cfg.durability)) {
		log_msg(LOG_ERR, "database %s: %s", shown, a->st ? store_errmsg(a->st) : err);
		store_close(a->st);
		free(a);
		return 1;
	}
	if (store_checkpoint_background(a->st))
		log_msg(LOG_WARN, "database %s: %s; checkpoints stay in commits", shown,
		        store_errmsg(a->st));
	a->batch = calloc(BATCH_MAX, sizeof(*a->batch));
	if (!a->batch) {
		log_msg(LOG_ERR, "out of memory");
		store_close(a->st);
		free(a);
		return 1;
	}
	bot_config_default(&bc);
	if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = (uint64_t)discord_loop_now_ms() ^ (uint64_t)getpid();
	bc.seed = seed;
	bc.turn_timeout_ms = (int64_t)a->cfg.turn_timeout * 1000;
	bc.lobby_timeout_ms = (int64_t)a->cfg.lobby_timeout * 1000;
	bc.lang = a->cfg.lang;
	text_copy(a->app_id, sizeof(a->app_id), a->cfg.application_id);
	memset(&info, 0, sizeof(info));
	info.port = a->cfg.health_port ? a->cfg.health_port : CONTEXT_PORT_NO_LISTEN;
	info.iface = a->cfg.health_port ? "127.0.0.1" : NULL;
	info.protocols = protocols;
	info.options = LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
	info.user = a;
	lws_set_log_level(LLL_ERR, NULL);
	a->ctx = lws_create_context(&info);
	if (!a->ctx) {
		log_msg(LOG_ERR, "cannot create the event loop");
		status = 1;
		goto out;
	}
	rc.base_url = a->cfg.api_url;
	rc.token = a->cfg.token;
	rc.user_agent = USER_AGENT;
	a->rest = rest_start(&rc, wake, a->ctx);
	if (!a->rest) {
		status = 1;
		goto out;
	}
	a->global_total = rest_share(a->rest);
	if (store_is_postgresql(a->cfg.database)) {
		a->limits = limits_open(a->cfg.database, "rlyeh", err, sizeof(err));
		if (!a->limits) {
			log_msg(LOG_ERR, "shared limits: %s", err);
			status = 1;
			goto out;
		}
		a->live = 1;
		discord_shared_beat(a);
		a->next_beat = discord_loop_now_ms() + LIMITS_BEAT_MS;
		lws_sul_schedule(a->ctx, 0, &a->shared, discord_shared_due,
		                 SHARED_POLL_MS * LWS_US_PER_MS);
	}
	a->max_concurrency = 1;
	a->starts_left = a->starts_total = -1;
	if (a->cfg.gateway_url[0])
		text_copy(a->gateway_url, sizeof(a->gateway_url), a->cfg.gateway_url);
	if ((!a->cfg.gateway_url[0] || a->cfg.shard_count == 0) && (status = find_gateway(a)) != 0)
		goto out;
	if ((status = plan_shards(a, &sc)) != 0)
		goto out;
	/* On PostgreSQL every process owns its shards through the database,
	 * shards = auto too (then all of them are wanted here). */
	if (store_is_postgresql(a->cfg.database))
		bc.shards = sc.count;
	a->bot = bot_new(a->st, &bc, err, sizeof(err));
	if (!a->bot) {
		log_msg(LOG_ERR, "cannot resume the stored games: %s", err);
		status = 1;
		goto out;
	}
	sc.gw.url = a->gateway_url;
	sc.gw.token = a->cfg.token;
	sc.gw.compress = a->cfg.compress;
	sc.gw.protocol_name = PROTOCOL;
	sh.ctx = a;
	sh.dispatch = discord_loop_on_dispatch;
	sh.state = discord_loop_on_state;
	sc.managed = bc.shards > 0;
	sh.may_identify = a->limits ? discord_shared_identify : NULL;
	a->shards = shards_new(a->ctx, &sc, &sh);
	if (!a->shards) {
		status = 1;
		goto out;
	}
	if (sc.managed) {
		struct owner_config oc = { .count = sc.count,
			                   .first = sc.first,
			                   .last = sc.last,
			                   .standby = a->cfg.standby,
			                   .grace = 2 };
		struct owner_events oe = { .ctx = a,
			                   .gained = discord_shared_own_gained,
			                   .lost = discord_shared_own_lost,
			                   .waiting = discord_shared_own_waits };
		char host[32] = "", name[STORE_ID_MAX];
		if (gethostname(host, sizeof(host) - 1))
			host[0] = '\0';
		snprintf(name, sizeof(name), "%s:%ld", host, (long)getpid());
		oc.name = name;
		a->own_first = sc.first;
		a->own_count = sc.count;
		a->owner = owner_new(a->cfg.database, &oc, &oe, err, sizeof(err));
		if (!a->owner) {
			log_msg(LOG_ERR, "shard ownership: %s", err);
			status = 1;
			goto out;
		}
		log_msg(LOG_NOTICE, "shards %d-%d of %d: owned through the database%s", sc.first,
		        sc.last, sc.count, a->cfg.standby ? " (standby)" : "");
	}
	signal_ctx = a->ctx;
	{
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sa.sa_handler = SIG_IGN;
		sigaction(SIGPIPE, &sa, NULL);
	}
	a->config_path = config_path;
	if (sd_watchdog_enabled(0, &a->watchdog_us) > 0 && a->watchdog_us > 0)
		lws_sul_schedule(a->ctx, 0, &a->watchdog, watchdog_due,
		                 (lws_usec_t)a->watchdog_us / 2);
	log_msg(LOG_NOTICE, "rlyeh %s: %d games resumed; connecting", RLYEH_VERSION,
	        bot_open_games(a->bot));
	shards_start(a->shards);
	if (a->owner)
		discord_shared_own_due(&a->own);
	lws_sul_schedule(a->ctx, 0, &a->trim, trim_due, TRIM_MS * LWS_US_PER_MS);
	discord_loop_schedule_tick(a);
	while (shards_running(a->shards)) {
		if (lws_service(a->ctx, 0) < 0 || discord_loop_gather(a) < 0)
			break;
		discord_loop_flush(a);
		if (reload_signal) {
			reload_signal = 0;
			discord_loop_reload(a);
		}
		if (stop_signal && !a->stopping) {
			a->stopping = 1;
			sd_notify(0, "STOPPING=1");
			lws_sul_cancel(&a->own);
			for (int i = 0;
			     a->owner && a->own_first + i < a->own_count && i < CONFIG_SHARDS_MAX;
			     i++)
				discord_shared_own_save_session(a, a->own_first + i);
			shards_stop(a->shards);
		}
	}
	discord_loop_flush(a);
	status = shards_fatal(a->shards);
	/* Finish the replies in flight, then leave. */
	/* The gateway is closed: only the HTTP worker is left, polled here
	 * (the event loop could block until its next timer), 5 s at most. */
	for (int i = 0; i < 500 && rest_pending(a->rest) > 0; i++) {
		discord_loop_drain(a);
		sleep_ms(10);
	}
	discord_loop_drain(a);
out:
	signal_ctx = NULL;
	lws_sul_cancel(&a->tick);
	lws_sul_cancel(&a->own);
	owner_free(a->owner); /* its connection closes: the standbys take over */
	lws_sul_cancel(&a->watchdog);
	lws_sul_cancel(&a->trim);
	lws_sul_cancel(&a->shared);
	limits_close(a->limits);
	rest_stop(a->rest, 2000);
	if (a->ctx)
		lws_context_destroy(a->ctx);
	shards_free(a->shards);
	bot_free(a->bot);
	if (!bc.shards)
		discord_loop_persist_live(
		    a); /* else each was kept as made, and may be another's now */
	store_checkpoint(a->st);
	store_close(a->st);
	msg_free(&a->out);
	for (int i = 0; a->batch && i < BATCH_MAX; i++)
		msg_free(&a->batch[i].out);
	free(a->batch);
	for (int i = 0; i < PENDING_SLOTS; i++) {
		discord_loop_release_later(&a->pend[i]);
		free(a->pend[i].token);
	}
	for (size_t i = 0; i < a->nbuckets; i++) {
		for (struct chan *c = a->chans[i], *next; c; c = next) {
			next = c->next;
			free(c->token);
			free(c);
		}
	}
	free(a->chans);
	free(a->prompts);
	log_msg(LOG_NOTICE, "stopped (exit status %d)", status);
	free(a);
	return status;
}
