/* The Discord adapter: the daemon's loop (replies, live messages, batches). */
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

/* ---- the daemon ---- */

static void keep_live(struct app *a, struct chan *c);
static void keep_dirty(struct app *a);

int64_t discord_loop_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int in_set(const uint64_t *set, uint64_t v)
{
	for (uint64_t h = rng_mix(v);; h++) {
		uint64_t slot = set[h % DEDUP_SLOTS];
		if (slot == v)
			return 1;
		if (slot == 0)
			return 0;
	}
}

/* 1 when interaction id was seen before (then it is not applied again);
 * otherwise remembers it. Two generations of DEDUP_SLOTS / 2 ids each: when
 * the newer fills, it becomes the older and the oldest is forgotten, so the
 * last DEDUP_SLOTS / 2 to DEDUP_SLOTS ids are always remembered. */
static int seen_before(struct app *a, const char *id)
{
	uint64_t v = strtoull(id, NULL, 10), h;

	if (v == 0)
		return 0;
	if (in_set(a->seen[0], v) || in_set(a->seen[1], v))
		return 1;
	if (a->seen_n == DEDUP_SLOTS / 2) {
		memcpy(a->seen[1], a->seen[0], sizeof(a->seen[0]));
		memset(a->seen[0], 0, sizeof(a->seen[0]));
		a->seen_n = 0;
	}
	for (h = rng_mix(v); a->seen[0][h % DEDUP_SLOTS]; h++)
		;
	a->seen[0][h % DEDUP_SLOTS] = v;
	a->seen_n++;
	return 0;
}

static size_t chan_hash(const char *channel, size_t nbuckets)
{
	return (size_t)(text_hash(TEXT_HASH_SEED, channel) & (nbuckets - 1));
}

/* The key under which a channel's live message outlives a restart. */
static void live_key(const char *channel, char *key, size_t cap)
{
	snprintf(key, cap, "live:%s", channel);
}

/* Reads back what the daemon knew of c's live message when it last stopped
 * (persist_live), so that the next one takes that one's buttons off too;
 * nothing when none was kept or the value does not read. */
static void restore_live(struct app *a, struct chan *c)
{
	char key[64], value[1024], id[SNOWFLAKE_MAX], token[512];
	long long at;
	int original;

	live_key(c->channel, key, sizeof(key));
	if (!a->st || store_setting_get(a->st, key, value, sizeof(value)) || !value[0])
		return;
	token[0] = '\0';
	if (sscanf(value, "%20s %lld %d %511s", id, &at, &original, token) < 3 ||
	    (!discord_out_is_snowflake(id) && strcmp(id, "-") != 0))
		return;
	c->stored = 1;
	c->open = c->made = 1;
	text_copy(c->msg_id, sizeof(c->msg_id), discord_out_is_snowflake(id) ? id : "");
	c->original = original != 0;
	c->token_at = at;
	c->token = token[0] ? strdup(token) : NULL;
}

/* The channel's record, made when new (at most CHANNELS_MAX); NULL when
 * memory is short or there are too many. Records never move. */
static struct chan *chan_get(struct app *a, const char *channel)
{
	struct chan *c;

	if (a->nbuckets) {
		for (c = a->chans[chan_hash(channel, a->nbuckets)]; c; c = c->next)
			if (strcmp(c->channel, channel) == 0)
				return c;
	}
	if (a->nchans >= CHANNELS_MAX || strlen(channel) >= SNOWFLAKE_MAX)
		return NULL;
	if (a->nchans + 1 > a->nbuckets) {
		size_t n = a->nbuckets ? a->nbuckets * 2 : 64;
		struct chan **nb = calloc(n, sizeof(*nb));
		if (!nb)
			return NULL;
		for (size_t i = 0; i < a->nbuckets; i++) {
			for (struct chan *x = a->chans[i], *next; x; x = next) {
				size_t k = chan_hash(x->channel, n);
				next = x->next;
				x->next = nb[k];
				nb[k] = x;
			}
		}
		free(a->chans);
		a->chans = nb;
		a->nbuckets = n;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	text_copy(c->channel, sizeof(c->channel), channel);
	c->next = a->chans[chan_hash(channel, a->nbuckets)];
	a->chans[chan_hash(channel, a->nbuckets)] = c;
	a->nchans++;
	restore_live(a, c);
	return c;
}

/* Replaces *dst with a copy of src (NULL clears it); keeps the old one
 * when memory is short. */
static void set_str(char **dst, const char *src)
{
	char *copy = src ? strdup(src) : NULL;

	if (src && !copy)
		return;
	free(*dst);
	*dst = copy;
}

/* Frees a held follow-up's copies. */
static void later_free(struct later *l)
{
	free(l->path);
	free(l->body);
	free(l->files);
	free(l->token);
}

/* Frees a pending entry's held follow-ups. */
void discord_loop_release_later(struct pending *p)
{
	for (int i = 0; i < p->nlater; i++)
		later_free(&p->later[i]);
	free(p->later);
	p->later = NULL;
	p->nlater = 0;
}

/* Copies files[0..n-1] into one block: the array, then each file's name,
 * content type, filename and bytes. NULL when n is 0 or memory is short. */
static struct rest_file *copy_files(const struct rest_file *files, int n)
{
	size_t size = (size_t)n * sizeof(*files);
	struct rest_file *out;
	char *at;

	for (int i = 0; i < n; i++)
		size += strlen(files[i].name) + 1 + strlen(files[i].filename) + 1 +
		        (files[i].content_type ? strlen(files[i].content_type) + 1 : 0) +
		        files[i].len;
	if (n == 0 || !(out = malloc(size)))
		return NULL;
	at = (char *)(out + n);
	for (int i = 0; i < n; i++) {
		const char *strs[3] = { files[i].name, files[i].filename, files[i].content_type };
		const char **dst[3] = { &out[i].name, &out[i].filename, &out[i].content_type };
		for (int k = 0; k < 3; k++) {
			*dst[k] = NULL;
			if (!strs[k])
				continue;
			memcpy(at, strs[k], strlen(strs[k]) + 1);
			*dst[k] = at;
			at += strlen(strs[k]) + 1;
		}
		memcpy(at, files[i].data, files[i].len);
		out[i].data = at;
		out[i].len = files[i].len;
		at += files[i].len;
	}
	return out;
}

/* A new tag and its slot (tag % PENDING_SLOTS): the slot freed last, else
 * one never used, else (every slot in flight) the slot of the sequence
 * number, whose request's answer is then ignored. */
static uint64_t pending_tag(struct app *a)
{
	uint64_t seq = ++a->next_tag;
	size_t slot;

	if (a->npend_free)
		slot = a->pend_free[--a->npend_free];
	else if (a->pend_used < PENDING_SLOTS)
		slot = (size_t)a->pend_used++;
	else
		slot = seq % PENDING_SLOTS;
	return seq * PENDING_SLOTS + slot;
}

/* Submits a request with files[0..nfiles-1] (none: a JSON body as before)
 * for purpose pu; the body, the files and pu's strings are borrowed. A
 * follow-up made while its interaction's callback is still unanswered is
 * held (copied) and submitted once the callback is accepted. */
static void submit_files(struct app *a, int method, const char *path, const char *body,
                         const struct rest_file *files, int nfiles, const struct purpose *pu)
{
	/* Interaction endpoints (the callback, and the webhook of the
	 * interaction's token: follow-ups, @original) are not bound by the
	 * global limit. */
	struct rest_request rq = { .method = method,
		                   .path = path,
		                   .body = body,
		                   .body_len = body ? strlen(body) : 0,
		                   .exempt_global = pu->kind == TAG_CALLBACK ||
		                                    strncmp(path, "/webhooks/", 10) == 0,
		                   .files = nfiles ? files : NULL,
		                   .nfiles = nfiles };
	struct pending *p;

	if (pu->kind == TAG_FOLLOWUP && a->hold &&
	    a->pend[a->hold % PENDING_SLOTS].tag == a->hold) {
		/* Discord wants the initial response first: send it after. */
		struct pending *cb = &a->pend[a->hold % PENDING_SLOTS];
		struct later *more = realloc(cb->later, (size_t)(cb->nlater + 1) * sizeof(*more));
		if (more) {
			struct later *l = &more[cb->nlater];
			cb->later = more;
			memset(l, 0, sizeof(*l));
			l->path = strdup(path);
			l->body = body ? strdup(body) : NULL;
			l->files = copy_files(files, nfiles);
			l->nfiles = l->files ? nfiles : 0;
			l->pu = *pu;
			text_copy(l->channel, sizeof(l->channel), pu->channel ? pu->channel : "");
			l->pu.channel = l->channel;
			l->token = pu->token ? strdup(pu->token) : NULL;
			l->pu.token = l->token;
			if (l->path && (!body || l->body) && l->nfiles == nfiles &&
			    (!pu->token || l->token))
				cb->nlater++;
			else
				later_free(l);
		}
		return;
	}
	rq.tag = pending_tag(a);
	p = &a->pend[rq.tag % PENDING_SLOTS];
	discord_loop_release_later(p);
	free(p->token);
	memset(p, 0, sizeof(*p));
	p->tag = rq.tag;
	p->kind = pu->kind;
	p->started_us = pu->kind == TAG_CALLBACK ? a->arrived_us : 0;
	p->sent = discord_loop_now_ms();
	p->live = pu->live;
	p->original = pu->original;
	text_copy(p->channel, sizeof(p->channel), pu->channel ? pu->channel : "");
	p->token = pu->token ? strdup(pu->token) : NULL;
	if (pu->kind == TAG_CALLBACK)
		a->hold = rq.tag;
	if (rest_submit(a->rest, &rq))
		log_msg(LOG_WARN, "http: queue full, a request to %s was dropped",
		        pu->kind == TAG_CALLBACK ? "/interactions/…" : "the API");
}

/* Submits a request without files; the body is borrowed. */
static void submit(struct app *a, int method, const char *path, const char *body,
                   const struct purpose *pu)
{
	submit_files(a, method, path, body, NULL, 0, pu);
}

static size_t prompt_slot(const char *id)
{
	return (size_t)(text_hash(TEXT_HASH_SEED, id) % PROMPT_SLOTS);
}

/* Remembers the prompts of m's buttons (nothing when memory is short). */
static void remember_prompts(struct app *a, const struct msg *m)
{
	for (int i = 0; i < m->nbuttons; i++) {
		const struct msg_button *b = &m->buttons[i];
		struct prompt_slot *slot;
		if (b->prompt < 1 || b->prompt > m->nprompts || b->prompt > MSG_PROMPTS_MAX)
			continue;
		if (!a->prompts && !(a->prompts = calloc(PROMPT_SLOTS, sizeof(*a->prompts))))
			return;
		slot = &a->prompts[prompt_slot(b->id)];
		text_copy(slot->id, sizeof(slot->id), b->id);
		slot->p = m->prompts[b->prompt - 1];
	}
}

/* The prompt remembered for the button `id`, or NULL. */
static const struct msg_prompt *recall_prompt(struct app *a, const char *id)
{
	const struct prompt_slot *slot = a->prompts ? &a->prompts[prompt_slot(id)] : NULL;

	return slot && strcmp(slot->id, id) == 0 ? &slot->p : NULL;
}

/* Sends the messages m[0..n-1] as one body of `type` (discord_response_json
 * with `flags`) with their pictures, for purpose pu, and remembers their
 * prompts. */
static void send_msgs(struct app *a, int method, const char *path, int type,
                      const struct msg *const *m, int n, int flags, const struct purpose *pu)
{
	struct rest_file files[REST_MAX_FILES];
	char *body = discord_response_json(type, m, n, flags);
	int nfiles = discord_response_files(m, n, files);

	if (!body)
		return;
	for (int i = 0; i < n; i++)
		remember_prompts(a, m[i]);
	submit_files(a, method, path, body, files, nfiles, pu);
	free(body);
}

/* An edit that takes a message's buttons and menus off; its text, embeds and
 * files stay (an edit leaves out what it does not name). */
static const char freeze_body[] = "{\"components\":[]}";

/* Takes the buttons off message `id` of `channel`, through the webhook of
 * the interaction `token` made it with while that token lasts (no global
 * limit) and the application id is known (a process that took a shard over
 * by RESUME learns it from its first interaction), else through the channel. */
static void freeze_message(struct app *a, const char *channel, const char *id, const char *token,
                           int64_t token_at, int original, int64_t now)
{
	struct purpose pu = { .kind = TAG_OTHER, .channel = channel };
	char path[768];

	if (token && a->app_id[0] && now - token_at < TOKEN_LIFE_MS &&
	    (original || discord_out_is_snowflake(id)))
		snprintf(path, sizeof(path), "/webhooks/%s/%s/messages/%s", a->app_id, token,
		         original ? "@original" : id);
	else if (discord_out_is_snowflake(id))
		snprintf(path, sizeof(path), "/channels/%s/messages/%s", channel, id);
	else
		return;
	submit(a, REST_PATCH, path, freeze_body, &pu);
}

/* Begins the channel's next live message: takes the buttons off the one
 * before (at once when it exists; else on_response does once the request
 * that makes it is answered), unless the message `clicked` has just lost
 * them by the answer to a click. Returns the new one's number. */
static uint64_t next_live(struct app *a, struct chan *c, const char *clicked, int64_t now)
{
	if (clicked) {
		text_copy(c->clicked, sizeof(c->clicked), clicked);
		if (c->msg_id[0] && strcmp(c->msg_id, clicked) == 0)
			c->open = 0;
	}
	if (c->open && c->made)
		freeze_message(a, c->channel, c->msg_id, c->token, c->token_at, c->original, now);
	c->open = 0;
	c->made = 0;
	c->msg_id[0] = '\0';
	set_str(&c->token, NULL);
	c->original = 0;
	return ++c->live;
}

/* Notes that the channel's live message number `live` is being made from
 * m[0..n-1] by the interaction `token` (NULL: a channel post). */
static void made_live(struct chan *c, const struct msg *const *m, int n, const char *token,
                      int original, int64_t now)
{
	c->open = 0;
	for (int i = 0; i < n; i++)
		c->open |= m[i]->nbuttons > 0 || msg_has_select(m[i]);
	set_str(&c->token, token);
	c->token_at = now;
	c->original = original;
}

/* Posts public messages m[0..n-1] of one channel (a timeout, a reminder) as
 * its new live message, taking the buttons off the one before. */
static void post_live(struct app *a, const char *channel, const struct msg *const *m, int n,
                      int64_t now)
{
	struct chan *c = chan_get(a, channel);
	struct purpose pu = { .kind = TAG_OTHER, .channel = channel };
	char path[128];

	if (!discord_out_is_snowflake(channel))
		return;
	if (c) {
		pu.live = next_live(a, c, NULL, now);
		made_live(c, m, n, NULL, 0, now);
	}
	snprintf(path, sizeof(path), "/channels/%s/messages", channel);
	send_msgs(a, REST_POST, path, 0, m, n, 0, &pu);
}

/* Answers one interaction with the bot's messages. Whatever the channel is
 * told becomes one new live message (the table last), and the live message
 * before it loses its buttons: two requests. For a click on a channel
 * message, the callback (type 7) takes that message's buttons off and a
 * follow-up posts the new one; otherwise the callback (type 4) is the new
 * one and an edit freezes the old. Private replies follow, ephemeral. */
static void respond(struct app *a, const struct discord_req *r, struct msg_list *out)
{
	const struct msg *pub[MSG_LIST_MAX];
	char path[768];
	int npub = 0, answered = 0;
	int64_t now = discord_loop_now_ms();

	for (int i = 0; i < out->n; i++)
		if (out->m[i].audience == MSG_CHANNEL)
			pub[npub++] = &out->m[i];
	if (npub) {
		struct chan *c = chan_get(a, r->channel);
		int click = (r->type == 3 || (r->type == 5 && r->message_id[0])) &&
		            !r->message_private && r->message_id[0];
		struct purpose pu = { .kind = TAG_CALLBACK,
			              .channel = r->channel,
			              .token = r->token };
		if (c)
			pu.live = next_live(a, c, click ? r->message_id : NULL, now);
		if (click) {
			struct purpose cb = { .kind = TAG_CALLBACK, .channel = r->channel };
			snprintf(path, sizeof(path), "/interactions/%s/%s/callback", r->id,
			         r->token);
			submit(a, REST_POST, path, "{\"type\":7,\"data\":{\"components\":[]}}",
			       &cb);
			snprintf(path, sizeof(path), "/webhooks/%s/%s", a->app_id, r->token);
			pu.kind = TAG_FOLLOWUP;
			send_msgs(a, REST_POST, path, 0, pub, npub, 0, &pu);
		} else {
			snprintf(path, sizeof(path),
			         "/interactions/%s/%s/callback?with_response=true", r->id,
			         r->token);
			pu.original = 1;
			send_msgs(a, REST_POST, path, 4, pub, npub, 0, &pu);
		}
		if (c)
			made_live(c, pub, npub, r->token, pu.original, now);
		answered = 1;
	}
	for (int i = 0; i < out->n; i++) {
		const struct msg *m = &out->m[i];
		struct purpose pu = { .kind = answered ? TAG_FOLLOWUP : TAG_CALLBACK,
			              .channel = r->channel };
		if (m->audience != MSG_PRIVATE || strcmp(m->user, r->user) != 0)
			continue;
		if (!answered)
			snprintf(path, sizeof(path), "/interactions/%s/%s/callback", r->id,
			         r->token);
		else
			snprintf(path, sizeof(path), "/webhooks/%s/%s", a->app_id, r->token);
		send_msgs(a, REST_POST, path, answered ? 0 : 4, &m, 1, DISCORD_EPHEMERAL, &pu);
		answered = 1;
	}
	if (!answered) {
		static struct msg ok = { .kind = MSG_INFO, .text = "\xe2\x9c\x93" };
		const struct msg *okp = &ok;
		struct purpose pu = { .kind = TAG_CALLBACK, .channel = r->channel };
		snprintf(path, sizeof(path), "/interactions/%s/%s/callback", r->id, r->token);
		send_msgs(a, REST_POST, path, 4, &okp, 1, DISCORD_EPHEMERAL, &pu);
	}
}

/* Posts body as r's whole answer (its callback, with no follow-ups); body
 * is freed here, NULL (memory short) sends nothing. */
static void answer_alone(struct app *a, const struct discord_req *r, char *body)
{
	struct purpose pu = { .kind = TAG_CALLBACK, .channel = r->channel };
	char path[768];

	if (!body)
		return;
	snprintf(path, sizeof(path), "/interactions/%s/%s/callback", r->id, r->token);
	submit(a, REST_POST, path, body, &pu);
	a->hold = 0;
	free(body);
}

/* Answers a click on a button that asks for text with its modal. */
static void ask(struct app *a, const struct discord_req *r)
{
	answer_alone(a, r,
	             discord_modal_json(r->button, recall_prompt(a, r->button), r->button_label));
}

/* Answers an autocomplete interaction with the choices for the channel's
 * table; nothing is written. */
static void complete(struct app *a, const struct discord_req *r)
{
	answer_alone(a, r,
	             discord_autocomplete_json(r, bot_channel_game(a->bot, r->server, r->channel)));
}

/* Answers an interaction that could not be read or came while stopping. */
static void respond_error(struct app *a, const cJSON *d, const char *text)
{
	const char *id = discord_in_str(d, "id"), *token = discord_in_str(d, "token");
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(d, "type");
	char path[768], *body;
	static struct msg m;
	const struct msg *mp = &m;

	if (!id || !token || strlen(id) > 32 || strlen(token) > 500)
		return;
	snprintf(path, sizeof(path), "/interactions/%s/%s/callback", id, token);
	if (cJSON_IsNumber(type) && type->valuedouble == 4) {
		/* autocomplete is answered with choices only: none */
		submit(a, REST_POST, path, "{\"type\":8,\"data\":{\"choices\":[]}}",
		       &(struct purpose){ .kind = TAG_CALLBACK });
		return;
	}
	memset(&m, 0, sizeof(m));
	m.kind = MSG_ERROR;
	text_copy(m.text, sizeof(m.text), text);
	body = discord_response_json(4, &mp, 1, 1);
	submit(a, REST_POST, path, body, &(struct purpose){ .kind = TAG_CALLBACK });
	free(body);
}

static void tick_due(lws_sorted_usec_list_t *sul);

/* Schedules bot_tick at the bot's next deadline. */
void discord_loop_schedule_tick(struct app *a)
{
	int64_t at = bot_next_deadline(a->bot), wait;

	lws_sul_cancel(&a->tick);
	if (!at)
		return;
	wait = at - discord_loop_now_ms();
	if (wait < 0)
		wait = 0;
	lws_sul_schedule(a->ctx, 0, &a->tick, tick_due, wait * LWS_US_PER_MS);
}

/* Commits the open batch, then sends every held reply in arrival order (or,
 * when the commit failed, a private refusal instead of each). */
void discord_loop_flush(struct app *a)
{
	int ok;

	if (!a->batching)
		return;
	a->batching = 0;
	ok = bot_batch_end(a->bot) == 0;
	if (!ok)
		log_msg(LOG_ERR, "the commit of %d interactions failed: %s", a->nbatch,
		        store_errmsg(a->st));
	a->metrics.commits++;
	for (int i = 0; i < a->nbatch; i++) {
		struct held *h = &a->batch[i];
		if (!ok) {
			log_msg(LOG_ERR, "interaction %s: the commit failed; refused", h->r.id);
			msg_clear(&h->out);
			bot_batch_refusal(a->bot, &h->r.req, &h->out);
		}
		a->arrived_us = h->arrived_us;
		a->hold = 0;
		respond(a, &h->r, &h->out);
		a->hold = 0;
		/* A message is some 20 KiB: 32 slots keeping theirs would hold
		 * megabytes between batches. */
		msg_free(&h->out);
	}
	a->nbatch = 0;
	a->batch_msgs = 0;
	keep_dirty(a);
	discord_loop_schedule_tick(a);
}

/* With a batch open, services what is already readable (no waiting) as long
 * as each pass adds interactions to it, so that the interactions that came
 * together are committed together (up to BATCH_MAX interactions or
 * BATCH_MSGS replies, for GATHER_US at most). Returns 0, or -1 when the
 * event loop failed. */
int discord_loop_gather(struct app *a)
{
	lws_usec_t until = lws_now_usecs() + GATHER_US;

	for (int pass = 0;
	     pass < BATCH_MAX && a->batching && a->nbatch < BATCH_MAX && a->batch_msgs < BATCH_MSGS;
	     pass++) {
		int before = a->nbatch;

		if (lws_service(a->ctx, -1) < 0)
			return -1;
		if (a->nbatch <= before || lws_now_usecs() >= until)
			break;
	}
	return 0;
}

static void tick_due(lws_sorted_usec_list_t *sul)
{
	struct app *a = lws_container_of(sul, struct app, tick);
	int64_t now = discord_loop_now_ms();

	discord_loop_flush(a);
	msg_clear(&a->out);
	bot_tick(a->bot, now, &a->out);
	for (int i = 0; i < a->out.n; i++)
		if (a->out.m[i].kind == MSG_TABLE)
			log_msg(LOG_INFO, "timeout: game %lld, channel %s: the computer moved",
			        (long long)a->out.m[i].game, a->out.m[i].channel);
	/* Each table's public messages, its table last, as one live message. */
	for (int i = 0; i < a->out.n;) {
		const struct msg *run[MSG_LIST_MAX];
		const char *channel = a->out.m[i].channel;
		int n = 0;
		for (; i < a->out.n && strcmp(a->out.m[i].channel, channel) == 0; i++) {
			if (a->out.m[i].audience == MSG_CHANNEL)
				run[n++] = &a->out.m[i];
			if (a->out.m[i].kind == MSG_TABLE) {
				i++;
				break;
			}
		}
		if (n && channel[0])
			post_live(a, channel, run, n, now);
	}
	discord_loop_schedule_tick(a);
}

static void on_interaction(struct app *a, const cJSON *d)
{
	struct discord_req r;
	struct held *h;
	long errors;
	char err[128];
	const char *id = discord_in_str(d, "id");

	if (id && seen_before(a, id)) {
		log_msg(LOG_INFO, "interaction %s: seen before, not applied again", id);
		return;
	}
	if (a->owner && id) {
		/* Recorded with the command's writes: the next owner of the shard,
		 * sent it again after a RESUME, leaves it alone. */
		int fresh;
		if (!a->batching) {
			bot_batch_begin(a->bot);
			a->batching = 1;
		}
		fresh = store_in_transaction(a->st) || !store_begin(a->st)
		            ? store_interaction_mark(a->st, id, discord_loop_now_ms())
		            : -1;
		if (fresh == 0) {
			log_msg(LOG_INFO, "interaction %s: taken up before, not applied again", id);
			return;
		}
		if (fresh < 0)
			log_msg(LOG_WARN, "interaction %s: not recorded: %s", id,
			        store_errmsg(a->st));
	}
	if (!a->app_id[0]) {
		const char *app = discord_in_str(d, "application_id");
		if (app && strlen(app) < sizeof(a->app_id))
			text_copy(a->app_id, sizeof(a->app_id), app);
	}
	a->arrived_us = lws_now_usecs();
	if (discord_parse_interaction(d, &r, err, sizeof(err))) {
		a->metrics.unreadable++;
		log_msg(LOG_WARN, "interaction %s refused: %s", id ? id : "?", err);
		respond_error(a, d, "That could not be read; nothing changed.");
		return;
	}
	if (r.type == 4) {
		complete(a, &r);
		log_msg(LOG_DEBUG, "interaction %s: /%s %s completed for user %s", r.id,
		        cmd_word(&r.req.cmd), r.focus_option, r.user);
		return;
	}
	if (a->stopping) {
		respond_error(a, d, "The bot is restarting; try again in a moment.");
		return;
	}
	if (r.prompt) {
		/* Nothing happens before the text comes (a modal submission). */
		ask(a, &r);
		log_msg(LOG_INFO, "interaction %s: /%s by user %s asks for its text", r.id,
		        cmd_word(&r.req.cmd), r.user);
		return;
	}
	metrics_count(&a->metrics, &r.req.cmd);
	if (!a->batching) {
		bot_batch_begin(a->bot);
		a->batching = 1;
	}
	h = &a->batch[a->nbatch++];
	h->r = r;
	h->r.req.server = h->r.server;
	h->r.req.channel = h->r.channel;
	h->r.req.user = h->r.user;
	h->r.req.name = h->r.name;
	h->r.req.locale = h->r.locale[0] ? h->r.locale : NULL;
	h->arrived_us = a->arrived_us;
	msg_clear(&h->out);
	errors = bot_store_errors(a->bot);
	bot_handle(a->bot, &h->r.req, discord_loop_now_ms(), &h->out);
	if (bot_store_errors(a->bot) != errors)
		log_msg(LOG_WARN, "interaction %s: not stored, refused: %s", r.id,
		        store_errmsg(a->st));
	{
		int64_t game = 0;
		for (int i = 0; i < h->out.n && !game; i++)
			game = h->out.m[i].game;
		log_msg(LOG_INFO,
		        "interaction %s: /%s by user %s, guild %s, channel %s, game %lld%s", r.id,
		        cmd_word(&r.req.cmd), r.user, r.server, r.channel, (long long)game,
		        h->out.n && h->out.m[0].kind == MSG_ERROR ? ", refused" : "");
	}
	msg_fit(&h->out);
	a->batch_msgs += h->out.n;
	if (a->nbatch == BATCH_MAX || a->batch_msgs >= BATCH_MSGS)
		discord_loop_flush(a);
}

/* A 64-bit FNV-1a fingerprint, in hex. */
static void fingerprint(const char *s, char out[17])
{
	snprintf(out, 17, "%016llx", (unsigned long long)text_hash(TEXT_HASH_SEED, s));
}

/* Registers the slash commands by bulk overwrite, globally or for the
 * configured guilds, when their definitions changed since the last time. */
static void register_commands(struct app *a)
{
	char *json = discord_commands_json(), fp[17], stored[64], key[64], path[256];

	if (!json)
		return;
	fingerprint(json, fp);
	for (int i = 0; i <= a->cfg.nguilds; i++) {
		if (i == a->cfg.nguilds && a->cfg.nguilds > 0)
			break;
		if (a->cfg.nguilds) {
			snprintf(key, sizeof(key), "commands:%s", a->cfg.guilds[i]);
			snprintf(path, sizeof(path), "/applications/%s/guilds/%s/commands",
			         a->app_id, a->cfg.guilds[i]);
		} else {
			snprintf(key, sizeof(key), "commands:global");
			snprintf(path, sizeof(path), "/applications/%s/commands", a->app_id);
		}
		if (store_setting_get(a->st, key, stored, sizeof(stored)) == 0 &&
		    strcmp(stored, fp) == 0) {
			log_msg(LOG_INFO, "commands: %s unchanged, not registered again", key);
			continue;
		}
		submit(a, REST_PUT, path, json,
		       &(struct purpose){ .kind = TAG_REGISTER, .channel = key, .token = fp });
		log_msg(LOG_INFO, "commands: registering (%s)", key);
	}
	free(json);
}

void discord_loop_on_dispatch(void *ctx, int shard, const char *t, const cJSON *d, int64_t seq)
{
	struct app *a = ctx;

	(void)seq;
	if (strcmp(t, "READY") == 0) {
		const cJSON *app = cJSON_GetObjectItemCaseSensitive(d, "application");
		const char *id = app ? discord_in_str(app, "id") : NULL;
		if (!a->app_id[0] && id && strlen(id) < sizeof(a->app_id))
			text_copy(a->app_id, sizeof(a->app_id), id);
		log_msg(LOG_NOTICE, "gateway: shard %d ready (application %s)", shard, a->app_id);
		if (!a->registered && a->app_id[0]) {
			a->registered = 1;
			register_commands(a);
		}
	} else if (strcmp(t, "INTERACTION_CREATE") == 0) {
		/* a shard still waiting for the old shard count is theirs to answer */
		if (a->owner && shard >= a->own_first && shard - a->own_first < CONFIG_SHARDS_MAX &&
		    !a->own_epoch[shard - a->own_first])
			return;
		on_interaction(a, d);
	}
}

void discord_loop_on_state(void *ctx, int shard, int state, const char *why)
{
	struct app *a = ctx;

	log_msg(state == GATEWAY_STOPPED ? LOG_NOTICE : LOG_INFO, "gateway: shard %d %s", shard,
	        why);
	if (state == GATEWAY_READY && !a->notified_ready && shards_ready(a->shards)) {
		a->notified_ready = 1;
		sd_notifyf(0, "READY=1\nSTATUS=gateway %s, %d games in progress", why,
		           bot_open_games(a->bot));
	} else {
		sd_notifyf(0, "STATUS=gateway %s, %d games in progress", why,
		           bot_open_games(a->bot));
	}
}

/* Re-reads what can change without a restart: the log level and the turn
 * timeout. A bad file is refused and everything stays as it was. */
void discord_loop_reload(struct app *a)
{
	struct config c;
	char err[512];

	sd_notify(0, "RELOADING=1");
	config_default(&c);
	if (config_load(&c, a->config_path, err, sizeof(err))) {
		log_msg(LOG_ERR, "reload refused: %s", err);
		log_set_level(a->cfg.log_level);
	} else {
		a->cfg.log_level = c.log_level;
		a->cfg.turn_timeout = c.turn_timeout;
		bot_set_turn_timeout(a->bot, (int64_t)c.turn_timeout * 1000);
		log_msg(LOG_NOTICE, "reloaded: log level %d, turn timeout %d s", c.log_level,
		        c.turn_timeout);
	}
	sd_notify(0, "READY=1");
}

void discord_response_message_id(const char *body, char *id)
{
	cJSON *root = body ? jsonarena_parse(body, strlen(body)) : NULL;
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(root, "interaction"),
	            *res = cJSON_GetObjectItemCaseSensitive(root, "resource");
	const char *s = in ? discord_in_str(in, "response_message_id") : discord_in_str(root, "id");

	if (!s && res)
		s = discord_in_str(cJSON_GetObjectItemCaseSensitive(res, "message"), "id");
	id[0] = '\0';
	if (s && discord_out_is_snowflake(s))
		text_copy(id, SNOWFLAKE_MAX, s);
	jsonarena_delete(root);
}

/* The request p making a live message was answered: while that message is
 * the channel's newest, the channel notes that it exists (and its id, when
 * the body tells it); one already replaced loses its buttons now (the answer
 * to a click took them off the clicked one already). */
static void live_made(struct app *a, const struct pending *p, const char *body)
{
	struct chan *c = chan_get(a, p->channel);
	char id[SNOWFLAKE_MAX];

	discord_response_message_id(body, id);
	if (!c)
		return;
	if (c->live == p->live) {
		c->made = 1;
		text_copy(c->msg_id, sizeof(c->msg_id), id);
		if (a->owner && !c->dirty) {
			if (a->ndirty == DIRTY_MAX)
				keep_dirty(a);
			if (a->ndirty < DIRTY_MAX) {
				c->dirty = 1;
				a->dirty[a->ndirty++] = c;
			}
		}
	} else if (!id[0] || strcmp(c->clicked, id) != 0) {
		freeze_message(a, p->channel, id, p->token, p->sent, p->original,
		               discord_loop_now_ms());
	}
}

/* Handles one finished HTTP request. */
static void on_response(struct app *a, struct rest_response *resp)
{
	struct pending *p = &a->pend[resp->tag % PENDING_SLOTS];
	int ok = resp->status >= 200 && resp->status < 300;

	if (p->tag != resp->tag) {
		rest_response_free(resp);
		return;
	}
	if (!ok)
		log_msg(resp->status >= 500 || resp->status == 0 ? LOG_ERR : LOG_WARN,
		        "http: request %llu (kind %d) failed: %ld %s",
		        (unsigned long long)resp->tag, p->kind, resp->status, resp->error);
	if (p->kind == TAG_CALLBACK && p->nlater) {
		struct later *later = p->later;
		int n = p->nlater;
		p->later = NULL;
		p->nlater = 0;
		uint64_t hold = a->hold;
		a->hold = 0;
		for (int i = 0; i < n; i++) {
			if (ok)
				submit_files(a, REST_POST, later[i].path, later[i].body,
				             later[i].files, later[i].nfiles, &later[i].pu);
			later_free(&later[i]);
		}
		a->hold = hold;
		free(later);
		if (!ok)
			log_msg(LOG_WARN, "http: %d follow-ups dropped with their failed callback",
			        n);
	}
	if (ok && p->kind == TAG_CALLBACK && p->started_us) {
		a->handled_us = lws_now_usecs();
		metrics_latency(&a->metrics, (double)(a->handled_us - p->started_us) / 1e6);
	}
	if (ok && p->kind == TAG_REGISTER) {
		store_setting_put(a->st, p->channel, p->token ? p->token : "");
		log_msg(LOG_INFO, "commands: registered (%s)", p->channel);
	}
	if (ok && p->live)
		live_made(a, p, resp->body);
	p->tag = 0;
	free(p->token);
	p->token = NULL;
	a->pend_free[a->npend_free++] = (uint16_t)(resp->tag % PENDING_SLOTS);
	rest_response_free(resp);
}

void discord_loop_drain(struct app *a)
{
	struct rest_response resp;

	while (rest_poll(a->rest, &resp))
		on_response(a, &resp);
	keep_dirty(a);
}

/* Keeps, for channel c whose live message still has buttons, what it takes
 * to freeze it from another process or after a restart: "<id or -> <token_at>
 * <original> [<token>]" under "live:<channel>" (restore_live); clears a value
 * kept before once the live message has none. A write that fails is logged
 * and leaves the stored value as it was. */
static void keep_live(struct app *a, struct chan *c)
{
	char key[64], value[1024];
	int keep = c->open && c->made && (c->msg_id[0] || (c->original && c->token));

	if (!a->st || (!keep && !c->stored))
		return;
	value[0] = '\0';
	if (keep)
		snprintf(value, sizeof(value), "%s %lld %d %s", c->msg_id[0] ? c->msg_id : "-",
		         (long long)c->token_at, c->original,
		         c->token && strlen(c->token) < 512 ? c->token : "");
	live_key(c->channel, key, sizeof(key));
	if (store_setting_put(a->st, key, value)) {
		log_msg(LOG_WARN, "the live table of channel %s could not be kept", c->channel);
		return;
	}
	c->stored = keep;
}

/* Keeps the live messages made since the last call (live_made), in one
 * transaction, outside the bot's batch: a failed write must not refuse its
 * moves. Inside that batch it does nothing (flush calls it again after the
 * commit). */
static void keep_dirty(struct app *a)
{
	int own;

	if (!a->ndirty || store_in_transaction(a->st))
		return;
	own = store_begin(a->st) == 0;
	for (int i = 0; i < a->ndirty; i++) {
		a->dirty[i]->dirty = 0;
		keep_live(a, a->dirty[i]);
	}
	a->ndirty = 0;
	if (own && store_commit(a->st)) {
		log_msg(LOG_WARN, "live tables not kept: %s", store_errmsg(a->st));
		store_rollback(a->st);
	}
}

/* Keeps the live message of every channel (keep_live) at a clean stop. A
 * single process stopped by SIGKILL keeps none (the buttons of those
 * messages are refused as stale); a process owning its shards through the
 * database keeps each one as it is made (live_made), so that the process
 * taking a shard over takes those buttons off. */
void discord_loop_persist_live(struct app *a)
{
	for (size_t i = 0; i < a->nbuckets; i++)
		for (struct chan *c = a->chans[i]; c; c = c->next)
			keep_live(a, c);
}
