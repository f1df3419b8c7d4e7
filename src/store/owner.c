/* owner: the shards this process owns, by advisory locks on a connection
 * of its own (include/rlyeh/owner.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/owner.h"
#include "rlyeh/store.h"

struct owner {
	struct store *st; /* the lock connection */
	struct owner_config c;
	struct owner_events h;
	char name[STORE_ID_MAX];
	int64_t epoch[OWNER_SHARDS_MAX]; /* of shard first + i; 0 not owned */
	int free_seen[OWNER_SHARDS_MAX]; /* polls in a row the lock was free */
	int warm[OWNER_SHARDS_MAX];      /* locked, waiting for another count to stop */
};

struct owner *owner_new(const char *database, const struct owner_config *c,
                        const struct owner_events *h, char *err, size_t errlen)
{
	struct owner *o;

	if (c->count < 1 || c->count > 65535 || c->first < 0 || c->last < c->first ||
	    c->last >= c->count || c->last - c->first >= OWNER_SHARDS_MAX || c->grace < 0) {
		snprintf(err, errlen, "shards %d-%d of %d: not a range of at most %d shards",
		         c->first, c->last, c->count, OWNER_SHARDS_MAX);
		return NULL;
	}
	if (!c->name || strnlen(c->name, STORE_ID_MAX) >= STORE_ID_MAX) {
		snprintf(err, errlen, "owner name missing or longer than %d bytes",
		         STORE_ID_MAX - 1);
		return NULL;
	}
	if (!(o = calloc(1, sizeof(*o)))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	o->c = *c;
	o->h = *h;
	memcpy(o->name, c->name, strlen(c->name) + 1);
	o->c.name = o->name;
	o->c.standby = c->standby && store_is_postgresql(database);
	if (store_open(database, &o->st, err, errlen)) {
		free(o);
		return NULL;
	}
	return o;
}

/* Shard i (an index from first) is no longer owned here. */
static void lose(struct owner *o, int i)
{
	o->epoch[i] = 0;
	o->free_seen[i] = 0;
	o->warm[i] = 0;
	if (o->h.lost)
		o->h.lost(o->h.ctx, o->c.first + i);
}

/* Asks for shard i, not owned here: 1 gained, 0 not, -1 error. */
static int ask(struct owner *o, int i, int64_t now)
{
	int shard = o->c.first + i, r;
	int64_t epoch = 0;

	if ((r = store_shard_lock(o->st, o->c.count, shard)) != 1) {
		o->free_seen[i] = 0;
		return r;
	}
	/* A standby has taken the lock to see it free: it gives it back until
	 * it has seen it free `grace` times in a row. */
	if (o->c.standby && !o->warm[i] && ++o->free_seen[i] <= o->c.grace)
		return store_shard_unlock(o->st, o->c.count, shard) ? -1 : 0;
	/* Processes of another shard count still run (resharding): the lock is
	 * kept, so that this set's ownership is settled and its connection up,
	 * but the shard is served only once they have stopped. */
	if ((r = store_shard_others(o->st, o->c.count)) != 0) {
		if (r < 0) {
			if (!o->warm[i])
				store_shard_unlock(o->st, o->c.count, shard);
			return -1;
		}
		if (!o->warm[i]) {
			o->warm[i] = 1;
			if (o->h.waiting)
				o->h.waiting(o->h.ctx, shard);
		}
		return 0;
	}
	if (store_shard_claim(o->st, o->c.count, shard, o->name, now, &epoch)) {
		if (!o->warm[i])
			store_shard_unlock(o->st, o->c.count, shard);
		return -1;
	}
	o->epoch[i] = epoch;
	o->warm[i] = 0;
	if (o->h.gained)
		o->h.gained(o->h.ctx, shard, epoch);
	return 1;
}

int owner_poll(struct owner *o, int64_t now)
{
	int n = o->c.last - o->c.first + 1, changed = 0, failed = 0, r;

	for (int i = 0; i < n; i++) {
		if (!o->epoch[i] && !o->warm[i])
			continue;
		r = store_shard_locked(o->st, o->c.count, o->c.first + i);
		if (r == 0) {
			changed += o->epoch[i] != 0;
			lose(o, i);
		} else if (r < 0) {
			failed = 1;
		}
	}
	for (int i = 0; i < n; i++) {
		if (o->epoch[i])
			continue;
		r = ask(o, i, now);
		if (r == 1)
			changed++;
		else if (r < 0)
			failed = 1;
	}
	return failed ? -1 : changed;
}

int64_t owner_epoch(const struct owner *o, int shard)
{
	if (shard < o->c.first || shard > o->c.last)
		return 0;
	return o->epoch[shard - o->c.first];
}

int owner_waiting(const struct owner *o)
{
	int k = 0;

	for (int i = 0; i <= o->c.last - o->c.first; i++)
		k += o->warm[i] != 0;
	return k;
}

int owner_count(const struct owner *o)
{
	int k = 0;

	for (int i = 0; i <= o->c.last - o->c.first; i++)
		k += o->epoch[i] != 0;
	return k;
}

void owner_release(struct owner *o)
{
	for (int i = 0; i <= o->c.last - o->c.first; i++) {
		if (!o->epoch[i] && !o->warm[i])
			continue;
		store_shard_unlock(o->st, o->c.count, o->c.first + i);
		lose(o, i);
	}
}

void owner_free(struct owner *o)
{
	if (!o)
		return;
	store_close(o->st);
	free(o);
}
