/* Solver benchmark of one table (tests/bench/README.md): builds the
 * equilibrium table for one size, prints its CPU seconds, statistics, the
 * chances from the start (seat 0 casting first; Cthulhu last) and, with
 * --exploit, its exploitability; with --hash, a 64-bit FNV-1a hash of the
 * table's bytes as it would be kept (cdsolve_image_write), so that two
 * builds of the solver can be shown to give the same table to the bit.
 * Not a test: it prints numbers.
 *
 * Usage: bench_cdsolve N [PER_PLAYER] [--exploit] [--hash] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rlyeh/cdsolve.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 4, pp = 0, exploit = 0, hash = 0;
	const struct cdsolve_stats *st;
	struct cdsolve_table *t;
	double c0;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--exploit") == 0)
			exploit = 1;
		else if (strcmp(argv[i], "--hash") == 0)
			hash = 1;
		else
			pp = (int)strtol(argv[i], NULL, 10);
	}
	c0 = cpu_now();
	t = cdsolve_build(n, pp, CDSOLVE_PERFECT);
	if (!t) {
		fprintf(stderr, "bench_cdsolve: no table for %d, %d\n", n, pp);
		return 1;
	}
	st = cdsolve_stats(t);
	printf("n %d pp %d cpu %.3f tau %.3g sweeps %d stages %d failed %d residual %.1e "
	       "polished %d mixed %ld rounds %d\n",
	       n, pp, cpu_now() - c0, st->tau, st->sweeps, st->stages, st->failed, st->residual,
	       st->polished, st->mixed, st->rounds);
	{
		struct game_setup setup = { .players = pp ? 2 : n, .per_player = pp };
		double v[CDICE_MAX + 1];
		struct cdice g;
		cdice_init(&g, &setup);
		cdsolve_value(t, &g, v);
		printf("start");
		for (int i = 0; i <= n; i++)
			printf(" %.9f", v[i]);
		printf("\n");
	}
	if (exploit) {
		struct cdsolve_exploit ex;
		if (cdsolve_exploit(t, &ex) != 0)
			return 1;
		printf("exploit");
		for (int d = 0; d < ex.groups; d++)
			printf(" %.2e", ex.at_start[d]);
		printf(" worst %.2e\n", ex.worst);
	}
	if (hash) {
		size_t len = cdsolve_image_size(t);
		unsigned char *buf = malloc(len);
		uint64_t h = 0xcbf29ce484222325u;
		if (!buf) {
			cdsolve_free(t);
			return 1;
		}
		cdsolve_image_write(t, buf);
		for (size_t i = 0; i < len; i++)
			h = (h ^ buf[i]) * 0x100000001b3u;
		printf("hash %016llx bytes %zu\n", (unsigned long long)h, len);
		free(buf);
	}
	cdsolve_free(t);
	return 0;
}
