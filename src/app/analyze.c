#include "rlyeh/analyze.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rlyeh/cdsolve.h"
#include "rlyeh/cli.h"

static const char usage[] =
    "Usage: rlyeh analyze [--random]\n"
    "Cthulhu Dice from the solved tables: for 2-6 cultists and Rival Cults 2x2\n"
    "and 2x3, seat 0 casting first, each seat's chance of winning under the\n"
    "solver's profile (the logit equilibrium traced towards temperature 0, and\n"
    "polished into an exact equilibrium where that path allows, see docs/cli.md,\n"
    "\"rlyeh analyze\"), Cthulhu's chance and the expected number of complete\n"
    "turns, all exact (no sampling); then what each solve took (wall clock and\n"
    "CPU seconds, one thread) and how many decisions the polished profile mixes\n"
    "(-: not polished, the logit profile at tau). A\n"
    "second table gives the profile's exploitability: what each seat (each\n"
    "player in Rival Cults) gains from the start by an exact best response\n"
    "to the others, and the largest gain over every position.\n"
    "  --random  the uniform \"random\" policy instead of perfect play\n";

static double clock_seconds(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wall-clock seconds. */
static double now_seconds(void)
{
	return clock_seconds(CLOCK_MONOTONIC);
}

/* Seconds of CPU this process has used (one thread: the solve's own
 * time, whatever else the machine runs). */
static double cpu_seconds(void)
{
	return clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

int analyze_main(int argc, char **argv)
{
	static const int sizes[][2] = {
		{ 2, 0 }, { 3, 0 }, { 4, 0 }, { 5, 0 }, { 6, 0 }, { 4, 2 }, { 6, 3 },
	};
	enum cdsolve_profile profile = CDSOLVE_PERFECT;
	struct cdsolve_table *tables[sizeof(sizes) / sizeof(sizes[0])] = { 0 };
	double secs[sizeof(sizes) / sizeof(sizes[0])], cpu[sizeof(sizes) / sizeof(sizes[0])];
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--random") == 0) {
			profile = CDSOLVE_RANDOM;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		} else {
			return cli_usage_error("analyze", "unknown argument '%s'", argv[i]);
		}
	}
	printf(
	    "| table | seat 0 | seat 1 | seat 2 | seat 3 | seat 4 | seat 5 | Cthulhu | turns |"
	    " states | tau | sweeps | residual | solve s | CPU s | MB kept | MB peak | mixed |\n");
	printf(
	    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	    " --- | --- | --- | --- |\n");
	for (size_t c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++) {
		int n = sizes[c][0], pp = sizes[c][1];
		struct game_setup setup = { .players = pp ? 2 : n, .per_player = pp };
		double start = now_seconds(), start_cpu = cpu_seconds(), v[CDICE_MAX + 1];
		const struct cdsolve_stats *st;
		struct cdice g;

		tables[c] = cdsolve_build(n, pp, profile);
		secs[c] = now_seconds() - start;
		cpu[c] = cpu_seconds() - start_cpu;
		if (!tables[c]) {
			fprintf(stderr, "rlyeh analyze: out of memory for %d cultists\n", n);
			rc = 1;
			break;
		}
		st = cdsolve_stats(tables[c]);
		cdice_init(&g, &setup);
		cdsolve_value(tables[c], &g, v);
		if (pp)
			printf("| rival %dx%d |", 2, pp);
		else
			printf("| %d cultists |", n);
		for (int i = 0; i < 6; i++)
			printf(i < n ? " %.4f |" : " |", i < n ? v[i] : 0.0);
		printf(" %.4f | %.2f | %ld | %.2g | %d | %.1e | %.2f | %.2f | %.1f | %.1f |", v[n],
		       cdsolve_length(tables[c], &g), st->states, st->tau, st->sweeps, st->residual,
		       secs[c], cpu[c], (double)st->bytes_kept / 1e6, (double)st->bytes_peak / 1e6);
		if (st->polished)
			printf(" %ld |\n", st->mixed);
		else
			printf(" - |\n");
		fflush(stdout);
	}
	if (rc == 0) {
		printf(
		    "\n| table | exploitability from the start (by seat; Rival Cults: by player) |"
		    " worst over every position | BR sweeps | BR residual | exploit s |\n");
		printf("| --- | --- | --- | --- | --- | --- |\n");
	}
	for (size_t c = 0; rc == 0 && c < sizeof(sizes) / sizeof(sizes[0]); c++) {
		struct cdsolve_exploit ex;
		double start = now_seconds();

		if (cdsolve_exploit(tables[c], &ex) != 0) {
			fprintf(stderr, "rlyeh analyze: out of memory\n");
			rc = 1;
			break;
		}
		if (sizes[c][1])
			printf("| rival %dx%d |", 2, sizes[c][1]);
		else
			printf("| %d cultists |", sizes[c][0]);
		for (int d = 0; d < ex.groups; d++)
			printf("%s%.1e", d ? " / " : " ", ex.at_start[d]);
		printf(" | %.1e | %d | %.1e | %.2f |\n", ex.worst, ex.sweeps, ex.residual,
		       now_seconds() - start);
		fflush(stdout);
	}
	for (size_t c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++)
		cdsolve_free(tables[c]);
	return rc;
}
