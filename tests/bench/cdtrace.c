/* cdtrace N [PER_PLAYER]: follows the tracing homotopy (cdsolve_trace) for
 * the table of N cultists (PER_PLAYER 2 or 3: Rival Cults) and prints its
 * seeds on stdout as C initialisers { key, support }; progress, the time
 * and the exploitability of the profile polished from them on stderr.
 * Exit status 1 when the path or the polish does not get there. */
#include "rlyeh/cdsolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct progress {
	double t0;
	long shown;
};

static void report(void *arg, double lambda, long events, long mixed)
{
	struct progress *p = arg;

	if (events >= p->shown + 25 || lambda == 0) {
		fprintf(stderr, "cdtrace: lambda %.9f, %ld events, %ld mixed, %.0f s\n", lambda,
		        events, mixed, now() - p->t0);
		p->shown = events;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, per_player = argc > 2 ? atoi(argv[2]) : 0;
	struct progress p = { now(), 0 };
	struct cdsolve_seed *seeds;
	struct cdsolve_exploit ex;
	struct cdsolve_table *t;
	const struct cdsolve_stats *st;
	long count;
	double worst = 0;

	if (n < 2 || n > CDSOLVE_MAX_CULTISTS) {
		fprintf(stderr, "usage: cdtrace N [PER_PLAYER]\n");
		return 2;
	}
	if (!(t = cdsolve_trace(n, per_player, report, &p, &seeds, &count))) {
		fprintf(stderr, "cdtrace: out of memory\n");
		return 1;
	}
	st = cdsolve_stats(t);
	if (cdsolve_exploit(t, &ex) == 0)
		for (int s = 0; s < ex.groups; s++)
			worst = ex.at_start[s] > worst ? ex.at_start[s] : worst;
	fprintf(stderr,
	        "cdtrace: %s, %ld seeds, polished %d (%ld mixed), %.0f s; a seat gains at most "
	        "%.1e from the start, %.1e anywhere\n",
	        seeds ? "lambda 0 reached" : "the path stopped", count, st->polished, st->mixed,
	        now() - p.t0, worst, ex.worst);
	if (!seeds || !st->polished) {
		free(seeds);
		cdsolve_free(t);
		return 1;
	}
	printf("/* The seeds of %d cultists%s: build-release/tests/cdtrace %d%s */\n", n,
	       per_player ? " (Rival Cults)" : "", n, per_player ? " PER_PLAYER" : "");
	for (long i = 0; i < count; i++)
		printf("{ %lu, 0x%x },\n", (unsigned long)seeds[i].key, seeds[i].support);
	free(seeds);
	cdsolve_free(t);
	return 0;
}
