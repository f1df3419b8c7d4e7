#include "rlyeh/solvecache.h"

#include <pthread.h>
#include <stdatomic.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* [n][per_player]; tables live until the process exits. */
static _Atomic(const struct solve_table *) tables[SOLVE_MAX_CULTISTS + 1][4];

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
	if (!t) {
		t = solve_build(n, per_player, SOLVE_PERFECT);
		atomic_store_explicit(&tables[n][per_player], t, memory_order_release);
	}
	pthread_mutex_unlock(&lock);
	return t;
}

void solvecache_install(void)
{
	solve_set_provider(solvecache_get);
}
