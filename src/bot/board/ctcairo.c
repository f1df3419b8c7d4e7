/* ctcairo: cairo loaded at the first picture (see ctcairo.h). */
#include "ctcairo.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

struct ctcairo_fns ctcairo_fn;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_int loaded;

/* The symbol `name` of handle h as a function pointer into *out; 0, or -1
 * when it is missing (reported). */
static int take(void *h, const char *name, void (**out)(void))
{
	void *p = dlsym(h, name);

	if (!p) {
		fprintf(stderr, "<3>pictures: %s has no %s: maps are drawn without pictures\n",
		        CTCAIRO_SONAME, name);
		return -1;
	}
	/* POSIX: a function's address from dlsym may be converted so. */
	*(void **)out = p;
	return 0;
}

static void load(void)
{
	struct ctcairo_fns fn;
	void *h = dlopen(CTCAIRO_SONAME, RTLD_NOW | RTLD_LOCAL);
	int bad = 0;

	if (!h) {
		fprintf(stderr, "<3>pictures: %s: maps are drawn without pictures\n", dlerror());
		return;
	}
#define CTCAIRO_TAKE(name) bad |= take(h, "cairo_" #name, (void (**)(void)) & fn.name);
	CTCAIRO_FUNCTIONS(CTCAIRO_TAKE)
#undef CTCAIRO_TAKE
	bad |= take(h, CTCAIRO_FC_FINI, &fn.fc_fini);
	if (bad) {
		dlclose(h);
		return;
	}
	ctcairo_fn = fn;
	loaded = 1;
}

int ctcairo_load(void)
{
	(void)pthread_once(&once, load);
	return loaded ? 0 : -1;
}

int ctcairo_loaded(void)
{
	return loaded;
}
