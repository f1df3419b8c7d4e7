#include "rlyeh/analyze.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rlyeh/cli.h"
#include "rlyeh/solve.h"

static const char usage[] =
    "Usage: rlyeh analyze [--random]\n"
    "Cthulhu Dice from the solved tables: for 2-6 cultists and Rival Cults 2x2\n"
    "and 2x3, seat 0 casting first, each seat's chance of winning under the\n"
    "solver's profile (a logit equilibrium, see README \"rlyeh analyze\"), Cthulhu's\n"
    "chance and the expected number of complete turns, all exact (no\n"
    "sampling); then what each solve took.\n"
    "  --random  the uniform \"random\" policy instead of perfect play\n";

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int analyze_main(int argc, char **argv)
{
	static const int sizes[][2] = {
		{ 2, 0 }, { 3, 0 }, { 4, 0 }, { 5, 0 }, { 6, 0 }, { 4, 2 }, { 6, 3 },
	};
	enum solve_profile profile = SOLVE_PERFECT;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--random") == 0) {
			profile = SOLVE_RANDOM;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		} else {
			return cli_usage_error("analyze", "unknown argument '%s'", argv[i]);
		}
	}
	printf("| table | seat 0 | seat 1 | seat 2 | seat 3 | seat 4 | seat 5 | Cthulhu | turns |"
	       " states | sweeps | residual | solve s | MB kept | MB peak |\n");
	printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	       " --- | --- |\n");
	for (size_t c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++) {
		int n = sizes[c][0], pp = sizes[c][1];
		struct game_setup setup = { .players = pp ? 2 : n, .per_player = pp };
		double start = now_seconds(), v[CDICE_MAX + 1], secs;
		struct solve_table *t = solve_build(n, pp, profile);
		const struct solve_stats *st;
		struct cdice g;

		secs = now_seconds() - start;
		if (!t) {
			fprintf(stderr, "rlyeh analyze: out of memory for %d cultists\n", n);
			return 1;
		}
		st = solve_stats(t);
		cdice_init(&g, &setup);
		solve_value(t, &g, v);
		if (pp)
			printf("| rival %dx%d |", 2, pp);
		else
			printf("| %d cultists |", n);
		for (int i = 0; i < 6; i++)
			printf(i < n ? " %.4f |" : " |", i < n ? v[i] : 0.0);
		printf(" %.4f | %.2f | %ld | %d | %.1e | %.2f | %.1f | %.1f |\n", v[n],
		       solve_length(t, &g), st->states, st->sweeps, st->residual, secs,
		       (double)st->bytes_kept / 1e6, (double)st->bytes_peak / 1e6);
		solve_free(t);
	}
	return 0;
}
