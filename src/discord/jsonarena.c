/* jsonarena: parsed JSON trees in a per-thread bump arena. */
#include "rlyeh/jsonarena.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define ALIGN 16 /* _Alignof(max_align_t) on the targets built for */

struct arena {
	unsigned char *base; /* JSONARENA_BLOCK bytes, or NULL before first use */
	size_t used;
	int parsing; /* allocations go to the arena */
	int live;    /* trees parsed into it and not yet deleted */
};

static _Thread_local struct arena here;
static int installed;
static pthread_key_t owner; /* frees a thread's block as the thread ends */
static pthread_once_t owner_once = PTHREAD_ONCE_INIT;
static int owner_ok;

/* The key's destructor: frees the ending thread's block. */
static void block_free(void *base)
{
	UNPOISON(base, JSONARENA_BLOCK);
	free(base);
}

static void owner_make(void)
{
	owner_ok = pthread_key_create(&owner, block_free) == 0;
}

/* Gives this thread its block, or leaves it without one (malloc then). */
static void block_get(struct arena *a)
{
	pthread_once(&owner_once, owner_make);
	if (!owner_ok || !(a->base = malloc(JSONARENA_BLOCK)))
		return;
	if (pthread_setspecific(owner, a->base)) {
		free(a->base);
		a->base = NULL;
		return;
	}
	POISON(a->base, JSONARENA_BLOCK);
}

/* cJSON's malloc hook: the arena while parsing, else malloc. */
static void *arena_malloc(size_t n)
{
	struct arena *a = &here;
	size_t want = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);

	if (a->parsing && a->base && want >= n && want <= JSONARENA_BLOCK - a->used) {
		void *p = a->base + a->used;
		a->used += want;
		UNPOISON(p, n);
		return p;
	}
	return malloc(n);
}

/* cJSON's free hook: nothing for memory of this thread's arena. */
static void arena_free(void *p)
{
	const struct arena *a = &here;

	if (a->base && (uintptr_t)p >= (uintptr_t)a->base &&
	    (uintptr_t)p < (uintptr_t)a->base + JSONARENA_BLOCK)
		return;
	free(p);
}

void jsonarena_install(void)
{
	cJSON_Hooks h = { arena_malloc, arena_free };

	if (installed)
		return;
	cJSON_InitHooks(&h);
	installed = 1;
}

/* Starts taking cJSON's allocations into this thread's arena (its block
 * got first), when the hooks are installed. */
static void arena_take(struct arena *a)
{
	if (installed && !a->base)
		block_get(a);
	a->parsing = installed;
}

cJSON *jsonarena_parse(const char *text, size_t len)
{
	struct arena *a = &here;
	int was = a->parsing;
	cJSON *root;

	arena_take(a);
	root = cJSON_ParseWithLength(text, len);
	a->parsing = was;
	if (root)
		a->live++;
	else if (a->live == 0)
		a->used = 0; /* a failed parse freed what it took */
	return root;
}

cJSON *jsonarena_object(void)
{
	struct arena *a = &here;
	cJSON *root;

	arena_take(a);
	if (!(root = cJSON_CreateObject()))
		a->parsing = 0;
	else
		a->live++;
	return root;
}

void jsonarena_built(void)
{
	here.parsing = 0;
}

void jsonarena_delete(cJSON *root)
{
	struct arena *a = &here;

	if (!root)
		return;
	cJSON_Delete(root);
	if (a->live > 0 && --a->live == 0 && a->base) {
		POISON(a->base, a->used);
		a->used = 0;
	}
}

size_t jsonarena_used(void)
{
	return here.used;
}
