/* limits: the limits one bot token keeps across every process that runs it
 * on one PostgreSQL database (shared/design/discord.md):
 *
 * - the global rate limit (50 requests/s outside interaction routes): each
 *   process keeps to a share of it, limits_share(total, live), where `live`
 *   is the number of processes that said within LIMITS_DEAD_MS that they run
 *   (table rlyeh_process, one row per process, its beat in the database's
 *   clock). A process beats every LIMITS_BEAT_MS, one round trip, and
 *   recomputes its share then: no round trip per request.
 *   A process that starts says so (NOTIFY rlyeh_joined), so that the others
 *   beat at once rather than up to LIMITS_BEAT_MS later.
 * - a global 429: the process that gets one announces it with
 *   NOTIFY rlyeh_global_429, '<retry_after_ms>'; every process LISTENs on
 *   its own connection and holds its counted requests as long.
 * - IDENTIFY: max_concurrency buckets (shard_id % max_concurrency) shared by
 *   all processes; table rlyeh_identify keeps the time of each bucket's last
 *   IDENTIFY, and a turn is taken in one statement that locks the row, so
 *   two processes never start sessions in one bucket within the gap.
 *
 * With SQLite (one process) none of this is used. The calls block for one
 * round trip to the database; limits_poll never blocks. */
#ifndef RLYEH_LIMITS_H
#define RLYEH_LIMITS_H

#include <stddef.h>

#define LIMITS_BEAT_MS  2000  /* how often a process beats and recomputes its share */
#define LIMITS_DEAD_MS  10000 /* a process silent this long no longer counts */
#define LIMITS_GAP_MS   5500  /* between two IDENTIFYs of one bucket: 5 s and the way there */
#define LIMITS_HEADROOM 20    /* percent of the global limit several processes leave free */

/* The requests per second one of `live` processes may send when together
 * they may send `total`. One process alone (live <= 1) has it all. Several
 * leave a fifth of it free, LIMITS_HEADROOM: each one's requests keep to its
 * share as they leave, but reach Discord bunched (a process or the network
 * pausing lets requests of more than one second arrive within one), and the
 * processes' overshoots add up (two at 25/s each were measured at up to 54
 * in one second; two at 22/s, on a machine loaded 4 times over, up to 57).
 * So: total * 8 / 10 / live, rounded down, at least 1 (more processes than
 * that many requests overshoot). total < 1 gives 1. */
int limits_share(int total, int live);

struct limits;

/* Connects to the PostgreSQL database `uri`, makes the two tables when they
 * are missing and LISTENs for global 429s. `name` (may be NULL) goes into
 * this process's row for people reading the table; the row's key is unique
 * to this connection. Returns NULL with the reason in err on failure. */
struct limits *limits_open(const char *uri, const char *name, char *err, size_t errlen);

/* Deletes this process's row (so the others' shares grow at their next
 * beat) and closes the connection. NULL is a no-op. */
void limits_close(struct limits *l);

/* Says this process runs and forgets processes silent for LIMITS_DEAD_MS.
 * Sets *live to the processes that run, this one included. Returns 0, or -1
 * (*live untouched) when the database cannot be reached; the connection is
 * then opened again at the next call. */
int limits_beat(struct limits *l, int *live);

/* Tells every other process that a global 429 asked to wait retry_after_ms.
 * Returns 0 or -1. */
int limits_global_429(struct limits *l, long retry_after_ms);

/* Reads what arrived on the connection without blocking: the longest wait
 * (ms) that other processes announced since the last call, 0 when none, -1
 * when the connection is lost (limits_beat opens it again). Sets *joined
 * (may be NULL) to 1 when another process started meanwhile (and leaves it
 * alone otherwise): a beat then gives the new share at once. */
long limits_poll(struct limits *l, int *joined);

/* Asks for the IDENTIFY turn of `bucket` (>= 0), which is free when no
 * process took it in the last gap_ms. Returns 1 when this process got it
 * (the bucket is then taken from now on), 0 when not, *wait_ms (may be
 * NULL) then being how long until it frees, -1 when the database cannot be
 * reached. */
int limits_identify(struct limits *l, int bucket, long gap_ms, long *wait_ms);

/* The last error's text, owned by l. */
const char *limits_errmsg(const struct limits *l);

#endif
