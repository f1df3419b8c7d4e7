/* owner: which gateway shards this process owns, decided with the other
 * processes on the same database (store.h "shards").
 *
 * An owner keeps its own store connection (the lock connection), apart from
 * the one the bot writes with, so that the locks live exactly as long as it
 * does; nothing else runs on it. owner_poll, called about once a second,
 * asks for each shard this process may run:
 *   - held: is the lock still held (a lost connection loses every lock)?
 *     If not, the shard is lost (events.lost) and is asked for again from
 *     the next poll on;
 *   - not held: it tries the lock; once had, it claims the shard's next
 *     epoch (store_shard_claim) and reports events.gained with it.
 * A standby (owner_config.standby) asks for a free shard only after seeing
 * it free in `grace` polls in a row, so that the processes meant to run a
 * shard get it first when all start together; with grace 0 it asks at
 * once.
 *
 * Resharding: while other connections hold shard locks of another count
 * (the processes of the old count still run), a shard whose lock is had is
 * kept locked but not claimed (events.waiting); it is claimed and gained
 * at the first poll after they have all stopped.
 *
 * On SQLite every shard is had at the first poll (one process owns all). */
#ifndef RLYEH_OWNER_H
#define RLYEH_OWNER_H

#include <stddef.h>
#include <stdint.h>

#define OWNER_SHARDS_MAX 128 /* shards one process may run */

struct owner;

struct owner_config {
	int count;        /* N, 1..65535 */
	int first, last;  /* the shards this process may run, first..last of N */
	int standby;      /* 1: take a shard only after `grace` free polls */
	int grace;        /* polls a free shard is seen free before a standby asks */
	const char *name; /* who is asking, e.g. "host:pid" (up to 63 bytes) */
};

struct owner_events {
	void *ctx;
	/* Shard `shard` is now owned here with epoch `epoch` (its game writes
	 * are fenced with it). */
	void (*gained)(void *ctx, int shard, int64_t epoch);
	/* Shard `shard` is no longer owned here: stop its connection and drop
	 * its games, without writing them. */
	void (*lost)(void *ctx, int shard);
	/* Shard `shard`'s lock is held here but processes of another shard
	 * count still run: its connection may start, its games must wait;
	 * gained (or lost) follows. May be NULL. */
	void (*waiting)(void *ctx, int shard);
};

/* Opens the lock connection to `database` and checks c (up to
 * OWNER_SHARDS_MAX shards, in range). Owns nothing yet. NULL with err set
 * on failure. The events are copied. */
struct owner *owner_new(const char *database, const struct owner_config *c,
                        const struct owner_events *h, char *err, size_t errlen);

/* One round, at time `now` (ms, for the records): reports each shard lost,
 * gained or waiting. Returns how many were gained or lost here, or -1 on an error of the
 * database (the shards held stay held; the next poll asks again). */
int owner_poll(struct owner *o, int64_t now);

/* The epoch of shard `shard` when owned here, else 0. */
int64_t owner_epoch(const struct owner *o, int shard);

/* How many shards are locked here but wait for another count's processes
 * to stop (events.waiting). */
int owner_waiting(const struct owner *o);

/* How many shards are owned here. */
int owner_count(const struct owner *o);

/* Gives every shard back (a clean stop: the standbys take them at once),
 * reporting each lost. */
void owner_release(struct owner *o);

/* Closes the lock connection (which gives back every lock) and frees o;
 * NULL is a no-op. Reports nothing. */
void owner_free(struct owner *o);

#endif
