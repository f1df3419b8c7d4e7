#include "rlyeh/cdsolvecache.h"
#include "rlyeh/store.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIR_MAX   4096
#define IMAGE_MAX (64L << 20) /* bytes of a table file read at most */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* [n][per_player]; tables live until the process exits. */
static _Atomic(struct cdsolve_table *) tables[CDSOLVE_MAX_CULTISTS + 1][4];
static int background;                            /* under lock */
static int building[CDSOLVE_MAX_CULTISTS + 1][4]; /* under lock: a thread builds it */
static char cache_dir[DIR_MAX];                   /* under lock; "" none */

/* The table kept at path for (n, per_player), or NULL. */
static struct cdsolve_table *load(const char *path, int n, int per_player)
{
	FILE *f = fopen(path, "rb");
	struct cdsolve_table *t = NULL;
	char *buf = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && len <= IMAGE_MAX &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len)) &&
	    fread(buf, 1, (size_t)len, f) == (size_t)len)
		t = cdsolve_image_read(buf, (size_t)len, n, per_player);
	free(buf);
	fclose(f);
	return t;
}

/* Writes t to path through a temporary file and a rename, so that a reader
 * never sees half a table; failures leave no file (the cache is optional). */
static void save(const struct cdsolve_table *t, const char *path)
{
	size_t len = cdsolve_image_size(t);
	char *buf = malloc(len), tmp[DIR_MAX + 64];
	FILE *f;
	int ok;

	if (!buf)
		return;
	cdsolve_image_write(t, buf);
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	f = fopen(tmp, "wb");
	ok = f && fwrite(buf, 1, len, f) == len && fflush(f) == 0 && fsync(fileno(f)) == 0;
	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok || rename(tmp, path) != 0)
		unlink(tmp);
	free(buf);
}

/* The table kept in dir for (n, per_player), or NULL (dir "": none). */
static struct cdsolve_table *load_kept(int n, int per_player, const char *dir)
{
	char path[DIR_MAX + 32];

	if (!dir[0])
		return NULL;
	snprintf(path, sizeof(path), "%s/solve-%d-%d.bin", dir, n, per_player);
	return load(path, n, per_player);
}

/* Loads the table from dir when it is there, else builds it and keeps it
 * there. dir "" keeps nothing on disk. */
static struct cdsolve_table *load_or_build(int n, int per_player, const char *dir)
{
	char path[DIR_MAX + 32];
	struct cdsolve_table *t = load_kept(n, per_player, dir);

	if (t)
		return t;
	t = cdsolve_build(n, per_player, CDSOLVE_PERFECT);
	if (t && dir[0]) {
		snprintf(path, sizeof(path), "%s/solve-%d-%d.bin", dir, n, per_player);
		save(t, path);
	}
	return t;
}

struct build_job {
	int n, per_player;
	char dir[DIR_MAX];
};

static void *build_main(void *arg)
{
	struct build_job job = *(struct build_job *)arg;
	struct cdsolve_table *t;

	free(arg);
	t = load_or_build(job.n, job.per_player, job.dir);
	pthread_mutex_lock(&lock);
	atomic_store_explicit(&tables[job.n][job.per_player], t, memory_order_release);
	/* after a failure (memory), the next cdsolvecache_get tries again */
	building[job.n][job.per_player] = 0;
	pthread_mutex_unlock(&lock);
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
	memcpy(job->dir, cache_dir, sizeof(job->dir));
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

const struct cdsolve_table *cdsolvecache_get(int n, int per_player)
{
	struct cdsolve_table *t;

	if (n < CDICE_MIN || n > CDSOLVE_MAX_CULTISTS || per_player < 0 || per_player > 3)
		return NULL;
	t = atomic_load_explicit(&tables[n][per_player], memory_order_acquire);
	if (t)
		return t;
	pthread_mutex_lock(&lock);
	t = atomic_load_explicit(&tables[n][per_player], memory_order_relaxed);
	if (!t && !building[n][per_player]) {
		/* A kept table is read at once (8.6 MB, milliseconds); a small
		 * one is solved at once; only a large one goes to a thread. */
		if (background && n > CDSOLVECACHE_AT_ONCE_MAX &&
		    !(t = load_kept(n, per_player, cache_dir)))
			start_build(n, per_player);
		else if (!t)
			t = load_or_build(n, per_player, cache_dir);
		atomic_store_explicit(&tables[n][per_player], t, memory_order_release);
	}
	pthread_mutex_unlock(&lock);
	return t;
}

int cdsolvecache_pending(int n, int per_player)
{
	int pending;

	if (n < CDICE_MIN || n > CDSOLVE_MAX_CULTISTS || per_player < 0 || per_player > 3)
		return 0;
	pthread_mutex_lock(&lock);
	pending = building[n][per_player];
	pthread_mutex_unlock(&lock);
	return pending;
}

void cdsolvecache_clear(void)
{
	pthread_mutex_lock(&lock);
	for (int n = 0; n <= CDSOLVE_MAX_CULTISTS; n++)
		for (int p = 0; p < 4; p++) {
			cdsolve_free(atomic_load_explicit(&tables[n][p], memory_order_relaxed));
			atomic_store_explicit(&tables[n][p], NULL, memory_order_relaxed);
			building[n][p] = 0;
		}
	background = 0;
	pthread_mutex_unlock(&lock);
}

void cdsolvecache_set_dir(const char *dir)
{
	pthread_mutex_lock(&lock);
	if (!dir || strlen(dir) >= sizeof(cache_dir))
		cache_dir[0] = '\0';
	else
		memcpy(cache_dir, dir, strlen(dir) + 1);
	pthread_mutex_unlock(&lock);
}

void cdsolvecache_beside(const char *database)
{
	char dir[DIR_MAX];

	if (store_folder(database, dir, sizeof(dir)) == 0)
		cdsolvecache_set_dir(dir);
}

void cdsolvecache_background(void)
{
	pthread_mutex_lock(&lock);
	background = 1;
	pthread_mutex_unlock(&lock);
}

void cdsolvecache_install(void)
{
	cdsolve_set_provider(cdsolvecache_get);
}
