/* The bot: the tables kept between commands (packed slots found by channel,
 * the batch's undo). */
#include "rlyeh/bot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/i18n.h"
#include "rlyeh/play.h"
#include "rlyeh/playlog.h"
#include "rlyeh/records.h"
#include "rlyeh/rng.h"
#include "rlyeh/text.h"

#include "bot_int.h"

#define MEMBER_INTS 5

/* Bytes the packed form of m[0..nm-1] takes. */
static uint32_t members_size(const struct store_member *m, int nm)
{
	size_t n = 0;

	for (int i = 0; i < nm; i++)
		n += strnlen(m[i].player, sizeof(m[i].player) - 1) +
		     strnlen(m[i].name, sizeof(m[i].name) - 1) +
		     strnlen(m[i].policy, sizeof(m[i].policy) - 1) + 3 +
		     MEMBER_INTS * sizeof(int32_t);
	return (uint32_t)n;
}

static unsigned char *put_str(unsigned char *p, const char *s, size_t size)
{
	size_t n = strnlen(s, size - 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p + n + 1;
}

static const unsigned char *get_str(const unsigned char *p, char *s, size_t size)
{
	size_t n = strnlen((const char *)p, size - 1);

	memcpy(s, p, n);
	s[n] = '\0';
	return p + strlen((const char *)p) + 1;
}

/* Writes the packed form of m[0..nm-1] at p (members_size bytes). */
static void pack_members(const struct store_member *m, int nm, unsigned char *p)
{
	for (int i = 0; i < nm; i++) {
		int32_t v[MEMBER_INTS] = { m[i].strikes, m[i].autopilot, m[i].place, m[i].cthulhu,
			                   m[i].prefs };
		p = put_str(p, m[i].player, sizeof(m[i].player));
		p = put_str(p, m[i].name, sizeof(m[i].name));
		p = put_str(p, m[i].policy, sizeof(m[i].policy));
		memcpy(p, v, sizeof(v));
		p += sizeof(v);
	}
}

/* Reads nm packed members at p into m (zero-filled past each string). */
static void unpack_members(const unsigned char *p, int nm, struct store_member *m)
{
	for (int i = 0; i < nm; i++) {
		int32_t v[MEMBER_INTS];
		memset(&m[i], 0, sizeof(m[i]));
		p = get_str(p, m[i].player, sizeof(m[i].player));
		p = get_str(p, m[i].name, sizeof(m[i].name));
		p = get_str(p, m[i].policy, sizeof(m[i].policy));
		memcpy(v, p, sizeof(v));
		p += sizeof(v);
		m[i].strikes = v[0];
		m[i].autopilot = v[1];
		m[i].place = v[2];
		m[i].cthulhu = v[3];
		m[i].prefs = v[4];
	}
}

static size_t blob_size(const struct slot *s)
{
	return s->slen + s->mlen + (s->has_state ? s->game->ops->state_size : 0);
}

const char *bot_table_slot_server(const struct slot *s)
{
	return (const char *)s->blob;
}

const char *bot_table_slot_channel(const struct slot *s)
{
	return bot_table_slot_server(s) + strlen(bot_table_slot_server(s)) + 1;
}

/* Bytes the packed strings of row take. */
static uint32_t row_strings_size(const struct store_game *r)
{
	return (uint32_t)(strnlen(r->server, sizeof(r->server) - 1) +
	                  strnlen(r->channel, sizeof(r->channel) - 1) +
	                  strnlen(r->game, sizeof(r->game) - 1) +
	                  strnlen(r->lang, sizeof(r->lang) - 1) +
	                  strnlen(r->owner, sizeof(r->owner) - 1) + 5);
}

/* The numbers of a game row, kept as they are in struct slot. */
/* clang-format off */
#define ROW_NUMBERS(X) \
	X(id) X(per_player) X(state) X(seed) X(rng[0]) X(rng[1]) X(rng[2]) X(rng[3]) \
	X(first) X(moves) X(winner) X(created_at) X(started_at) X(finished_at) \
	X(deadline) X(series_of) X(note) X(revision)
/* clang-format on */

/* Keeps row in s: its numbers in the fields, its strings at s->blob. */
static void pack_row(const struct store_game *r, struct slot *s)
{
	unsigned char *p = s->blob;

#define TO_SLOT(f) s->f = r->f;
	ROW_NUMBERS(TO_SLOT)
#undef TO_SLOT
	p = put_str(p, r->server, sizeof(r->server));
	p = put_str(p, r->channel, sizeof(r->channel));
	p = put_str(p, r->game, sizeof(r->game));
	p = put_str(p, r->lang, sizeof(r->lang));
	put_str(p, r->owner, sizeof(r->owner));
}

/* The row kept in s. */
static void unpack_row(const struct slot *s, struct store_game *r)
{
	const unsigned char *p = s->blob;

	memset(r, 0, sizeof(*r));
#define TO_ROW(f) r->f = s->f;
	ROW_NUMBERS(TO_ROW)
#undef TO_ROW
	p = get_str(p, r->server, sizeof(r->server));
	p = get_str(p, r->channel, sizeof(r->channel));
	p = get_str(p, r->game, sizeof(r->game));
	p = get_str(p, r->lang, sizeof(r->lang));
	get_str(p, r->owner, sizeof(r->owner));
}

/* ---- tables ---- */

static uint64_t channel_hash(const char *server, const char *channel)
{
	return text_hash(text_hash(text_hash(TEXT_HASH_SEED, server), "\xff"), channel);
}

struct slot *bot_table_find_slot(const struct bot *b, const char *server, const char *channel)
{
	struct slot *s;

	if (!b->nbuckets)
		return NULL;
	s = b->buckets[channel_hash(server, channel) & (b->nbuckets - 1)];
	for (; s; s = s->next)
		if (strcmp(bot_table_slot_channel(s), channel) == 0 &&
		    strcmp(bot_table_slot_server(s), server) == 0)
			return s;
	return NULL;
}

/* Copies a kept table into its full working form. */
void bot_table_expand(const struct slot *s, struct table *t)
{
	unpack_row(s, &t->row);
	t->game = s->game;
	t->seq = s->seq;
	t->last_at = s->last_at;
	t->remind = s->remind;
	t->pending = s->pending;
	t->nm = s->nm;
	if (s->nm)
		unpack_members(s->blob + s->slen, s->nm, t->m);
	if (s->has_state)
		memcpy(t->state, s->blob + s->slen + s->mlen, s->game->ops->state_size);
}

/* The channel's table, expanded into the bot's view (valid until the next
 * call), or NULL. */
struct table *bot_table_find(struct bot *b, const char *server, const char *channel)
{
	struct slot *s = bot_table_find_slot(b, server, channel);

	if (!s)
		return NULL;
	bot_table_expand(s, &b->view);
	return &b->view;
}

int bot_table_is_open(const struct table *t)
{
	return t && (t->row.state == STORE_LOBBY || t->row.state == STORE_PLAYING);
}

/* Doubles the hash table; -1 when memory is short (nothing changed). */
static int grow(struct bot *b)
{
	size_t n = b->nbuckets ? b->nbuckets * 2 : 64;
	struct slot **nb = calloc(n, sizeof(*nb));

	if (!nb)
		return -1;
	for (size_t i = 0; i < b->nbuckets; i++) {
		for (struct slot *s = b->buckets[i], *next; s; s = next) {
			size_t k =
			    channel_hash(bot_table_slot_server(s), bot_table_slot_channel(s)) &
			    (n - 1);
			next = s->next;
			s->next = nb[k];
			nb[k] = s;
		}
	}
	free(b->buckets);
	b->buckets = nb;
	b->nbuckets = n;
	return 0;
}

/* When a kept table next wants bot_tick (0: never): a game's reminder, when
 * one is due before its deadline, else its deadline; a lobby's expiry; when
 * a finished or aborted table is let go of (cfg: lobby_timeout_ms,
 * finished_keep_ms; 0 never). */
int64_t bot_table_slot_wake(const struct bot *b, const struct slot *s)
{
	if (s->state == STORE_LOBBY)
		return b->cfg.lobby_timeout_ms > 0 ? s->last_at + b->cfg.lobby_timeout_ms : 0;
	if (s->state != STORE_PLAYING)
		return b->cfg.finished_keep_ms > 0 ? s->last_at + b->cfg.finished_keep_ms : 0;
	if (s->pending) /* the first later pass after a pause for the command's
	                   own answer to go out first, the next ones at once */
		return (s->last_at > 0 ? s->last_at : 1) + (s->held ? 0 : PASS_GAP_MS);
	return s->remind > 0 && s->remind < s->deadline ? s->remind : s->deadline;
}

/* Notes that a table's deadline changed from `before` to `after`. */
void bot_table_deadline_moved(struct bot *b, int64_t before, int64_t after)
{
	if (b->earliest < 0)
		return;
	if (before && before == b->earliest)
		b->earliest = -1; /* recomputed when asked */
	else if (after && (b->earliest == 0 || after < b->earliest))
		b->earliest = after;
}

/* Inside a batch, keeps the channel's table as it is now so that a failed
 * commit can put it back (once per channel and batch). Returns 0, or -1
 * when memory is short or the batch is full (nothing kept). */
int bot_table_remember(struct bot *b, const char *server, const char *channel)
{
	struct slot *s = bot_table_find_slot(b, server, channel);
	struct undo *u;

	if (!b->batch)
		return 0;
	for (int i = 0; i < b->nundo; i++)
		if (strcmp(bot_table_slot_channel(&b->undo[i].copy), channel) == 0 &&
		    strcmp(bot_table_slot_server(&b->undo[i].copy), server) == 0)
			return 0;
	if (b->nundo == BATCH_MAX)
		return -1;
	u = &b->undo[b->nundo];
	memset(u, 0, sizeof(*u));
	if (!s) {
		/* only the names, to find the slot the batch creates */
		size_t ls = strlen(server) + 1, lc = strlen(channel) + 1;
		if (!(u->copy.blob = malloc(ls + lc)))
			return -1;
		memcpy(u->copy.blob, server, ls);
		memcpy(u->copy.blob + ls, channel, lc);
		u->copy.slen = (uint32_t)(ls + lc);
		b->nundo++;
		return 0;
	}
	u->existed = 1;
	u->copy = *s;
	u->copy.next = NULL;
	u->copy.held = NULL; /* the slot's own: an undo keeps it */
	if (!(u->copy.blob = malloc(blob_size(s))))
		return -1;
	memcpy(u->copy.blob, s->blob, blob_size(s));
	b->nundo++;
	return 0;
}

/* Removes the channel's slot from the hash and frees it. */
static void drop_slot(struct bot *b, const char *server, const char *channel)
{
	struct slot **p;

	if (!b->nbuckets)
		return;
	p = &b->buckets[channel_hash(server, channel) & (b->nbuckets - 1)];
	for (; *p; p = &(*p)->next) {
		struct slot *s = *p;
		if (strcmp(bot_table_slot_channel(s), channel) == 0 &&
		    strcmp(bot_table_slot_server(s), server) == 0) {
			*p = s->next;
			free(s->blob);
			free(s->held);
			free(s);
			b->nslots--;
			return;
		}
	}
}

/* Puts back, newest first, every table the batch changed, and forgets
 * the batch's copies. */
void bot_table_undo_batch(struct bot *b)
{
	for (int i = b->nundo - 1; i >= 0; i--) {
		struct undo *u = &b->undo[i];
		struct slot *s = bot_table_find_slot(b, bot_table_slot_server(&u->copy),
		                                     bot_table_slot_channel(&u->copy));
		if (!u->existed) {
			drop_slot(b, bot_table_slot_server(&u->copy),
			          bot_table_slot_channel(&u->copy));
			free(u->copy.blob);
			continue;
		}
		if (!s) { /* cannot happen: slots are only dropped here */
			free(u->copy.blob);
			continue;
		}
		free(s->blob);
		u->copy.next = s->next;
		u->copy.held = s->held;
		*s = u->copy;
	}
	b->nundo = 0;
	b->earliest = -1;
}

/* Forgets the batch's copies after its commit. */
void bot_table_forget_batch(struct bot *b)
{
	for (int i = 0; i < b->nundo; i++)
		free(b->undo[i].copy.blob);
	b->nundo = 0;
}

/* Puts a copy of t in the bot, replacing the channel's previous table.
 * Returns 0, or -1 when memory is short (nothing changed). */
int bot_table_keep(struct bot *b, const struct table *t)
{
	struct slot *s = bot_table_find_slot(b, t->row.server, t->row.channel);
	size_t state_size = t->game && t->row.state != STORE_LOBBY ? t->game->ops->state_size : 0;
	uint32_t slen = row_strings_size(&t->row), mlen = members_size(t->m, t->nm);
	unsigned char *blob = malloc(slen + mlen + state_size);
	int64_t before = 0;

	if (!blob)
		return -1;
	if (!s) {
		if ((b->nslots + 1 > b->nbuckets && grow(b)) || !(s = calloc(1, sizeof(*s)))) {
			free(blob);
			return -1;
		}
		size_t k = channel_hash(t->row.server, t->row.channel) & (b->nbuckets - 1);
		s->next = b->buckets[k];
		b->buckets[k] = s;
		b->nslots++;
	} else {
		before = bot_table_slot_wake(b, s);
	}
	free(s->blob);
	s->blob = blob;
	s->game = t->game;
	s->seq = t->seq;
	s->last_at = t->last_at;
	s->remind = t->row.state == STORE_PLAYING ? t->remind : 0;
	s->pending = t->row.state == STORE_PLAYING ? t->pending : 0;
	s->nm = t->nm;
	s->slen = slen;
	s->mlen = mlen;
	s->has_state = state_size > 0;
	pack_row(&t->row, s);
	pack_members(t->m, t->nm, blob + slen);
	if (state_size)
		memcpy(blob + slen + mlen, t->state, state_size);
	bot_table_deadline_moved(b, before, bot_table_slot_wake(b, s));
	return 0;
}

int bot_table_member_index(const struct table *t, const char *user)
{
	for (int i = 0; i < t->nm; i++)
		if (t->m[i].player[0] && strcmp(t->m[i].player, user) == 0)
			return i;
	return -1;
}

int bot_table_humans(const struct table *t)
{
	int n = 0;

	for (int i = 0; i < t->nm; i++)
		n += t->m[i].player[0] != '\0';
	return n;
}

struct play_ctx bot_table_ctx_of(const struct table *t, int lang)
{
	return (struct play_ctx){ .row = &t->row, .m = t->m, .nm = t->nm, .lang = lang };
}

int bot_table_lang(const struct table *t)
{
	return i18n_lang(t->row.lang);
}
