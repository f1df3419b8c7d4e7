/* cdtrace N [PER_PLAYER] [--state FILE]: follows the tracing homotopy
 * (cdsolve_trace) for the table of N cultists (PER_PLAYER 2 or 3: Rival
 * Cults) and prints its seeds on stdout as C initialisers { key, support };
 * progress, the time and the exploitability of the profile polished from
 * them on stderr. With --state, the path goes on from FILE when it holds
 * a state of this build, and FILE is replaced by the path's state every
 * STATE_EVERY events, so a run that is stopped loses at most that much.
 * Exit status 1 when the path or the polish does not get there. */
#include "rlyeh/cdsolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STATE_EVERY 100        /* events */
#define STATE_MAX   (1L << 30) /* bytes of a state file read */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct progress {
	double t0;
	long shown;
	const char *file; /* where states go, or NULL */
};

/* Replaces p->file by the state (through a temporary file, synced and
 * renamed, so the file is always a whole state); complains on stderr when
 * it cannot, the old file then as it was. */
static void keep_state(const struct progress *p, const void *state, size_t len)
{
	char tmp[4096];
	FILE *f;
	int ok;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", p->file) >= sizeof(tmp) ||
	    !(f = fopen(tmp, "wb"))) {
		fprintf(stderr, "cdtrace: cannot write %s.tmp\n", p->file);
		return;
	}
	ok = fwrite(state, 1, len, f) == len && fflush(f) == 0 && fsync(fileno(f)) == 0;
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, p->file) != 0) {
		fprintf(stderr, "cdtrace: cannot write %s\n", p->file);
		remove(tmp);
	}
}

/* The contents of file (caller frees) and their length into *len; NULL
 * when it cannot be read or is larger than STATE_MAX. */
static void *read_state(const char *file, size_t *len)
{
	FILE *f = fopen(file, "rb");
	char *buf = NULL;
	long size;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && size <= STATE_MAX &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)size)) &&
	    fread(buf, 1, (size_t)size, f) != (size_t)size) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = buf ? (size_t)size : 0;
	return buf;
}

static void report(void *arg, double lambda, long events, long mixed, const void *state, size_t len)
{
	struct progress *p = arg;

	if (state && p->file)
		keep_state(p, state, len);
	if (events / 25 != p->shown / 25 || lambda == 0) {
		fprintf(stderr, "cdtrace: lambda %.9f, %ld events, %ld mixed, %.0f s\n", lambda,
		        events, mixed, now() - p->t0);
		p->shown = events;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, per_player = 0;
	struct progress p = { now(), 0, NULL };
	struct cdsolve_trace_run run = { report, &p, STATE_EVERY, NULL, 0 };
	void *resume = NULL;
	struct cdsolve_seed *seeds;
	struct cdsolve_exploit ex;
	struct cdsolve_table *t;
	const struct cdsolve_stats *st;
	long count;
	double worst = 0;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--state") == 0 && i + 1 < argc)
			p.file = argv[++i];
		else if (i == 2 && (strcmp(argv[i], "2") == 0 || strcmp(argv[i], "3") == 0))
			per_player = atoi(argv[i]);
		else
			n = 0;
	}
	if (n < 2 || n > CDSOLVE_MAX_CULTISTS) {
		fprintf(stderr, "usage: cdtrace N [PER_PLAYER] [--state FILE]\n");
		return 2;
	}
	if (p.file && (resume = read_state(p.file, &run.resume_len)) != NULL) {
		run.resume = resume;
		fprintf(stderr, "cdtrace: going on from %s (%zu bytes) if it is this trace's\n",
		        p.file, run.resume_len);
	}
	t = cdsolve_trace(n, per_player, &run, &seeds, &count);
	free(resume);
	if (!t) {
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
