#include "rlyeh/solvecache.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* [n][per_player]; tables live until the process exits. */
static _Atomic(const struct solve_table *) tables[SOLVE_MAX_CULTISTS + 1][4];
static int background;                          /* under lock */
static int building[SOLVE_MAX_CULTISTS + 1][4]; /* under lock */

struct build_job {
	int n, per_player;
};

static void *build_main(void *arg)
{
	struct build_job job = *(struct build_job *)arg;
	const struct solve_table *t;

	free(arg);
	t = solve_build(job.n, job.per_player, SOLVE_PERFECT);
	atomic_store_explicit(&tables[job.n][job.per_player], t, memory_order_release);
	return NULL;
}

/* Starts a detached thread building table (n, per_player), once; under
 * lock. When it cannot start, the next call tries again. */
static void start_build(int n, int per_player)
{
	struct build_job *job;
	pthread_attr_t attr;
	pthread_t thread;
	sigset_t all, old;

	if (building[n][per_player] || !(job = malloc(sizeof(*job))))
		return;
	job->n = n;
	job->per_player = per_player;
	if (pthread_attr_init(&attr) != 0) {
		free(job);
		return;
	}
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* signals go to the caller's threads */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&thread, &attr, build_main, job) == 0)
		building[n][per_player] = 1;
	else
		free(job);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

const struct solve_table *solvecache_get(int n, int per_player)
{
	const struct solve_table *t;

	if (n < CDICE_MIN || n > SOLVE_MAX_CULTISTS || per_player < 0 || per_player > 3)
		return NULL;
	t = atomic_load_explicit(&tables[n][per_player], memory_order_acquire);
	if (t)
		return t;
	pthread_mutex_lock(&lock);
	t = atomic_load_explicit(&tables[n][per_player], memory_order_relaxed);
	if (!t && background)
		start_build(n, per_player);
	else if (!t) {
		t = solve_build(n, per_player, SOLVE_PERFECT);
		atomic_store_explicit(&tables[n][per_player], t, memory_order_release);
	}
	pthread_mutex_unlock(&lock);
	return t;
}

void solvecache_background(void)
{
	pthread_mutex_lock(&lock);
	background = 1;
	pthread_mutex_unlock(&lock);
}

void solvecache_install(void)
{
	solve_set_provider(solvecache_get);
}
