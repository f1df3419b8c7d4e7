/* The cost of one map picture (ctpicture_png), outside any table: a seeded
 * 3-player game of baseline players is played, and at every POSITIONS-th
 * value its map is drawn as the table shows it (the area in play, the
 * players' names, English), once each in order (a new map every time but
 * where the picture shows no change since the last position), then each
 * twice in a row, the second drawing timed (the same map again). Prints the
 * microseconds per picture of both and the mean PNG size. Built by tests/bench/boardpic.sh against
 * this tree and against another (it uses only ctpicture_png, ctpicture_marks_init and the engine),
 * never by CMake or ctest. Usage: boardpng [SEED] [PICTURES] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rlyeh/ctgame.h"
#include "rlyeh/ctpicture.h"
#include "rlyeh/rng.h"

#define MAX_PICTURES 400

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static struct ctgame pos[MAX_PICTURES];

/* Draws every position once (again = 0), or twice in a row timing the
 * second drawing (again = 1); returns microseconds per timed picture,
 * *bytes the mean PNG size. */
static double pass(int n, const struct ctpicture_marks *mk, int again, double *bytes)
{
	double spent = 0, total = 0;

	for (int i = 0; i < n; i++) {
		for (int k = 0; k <= again; k++) {
			unsigned char *png;
			size_t len;
			double start = now_us();
			if (ctpicture_png(&pos[i], mk, &png, &len) < 0) {
				fprintf(stderr, "ctpicture_png failed\n");
				exit(1);
			}
			if (k == again) {
				spent += now_us() - start;
				total += (double)len;
			}
			free(png);
		}
	}
	*bytes = total / n;
	return spent / n;
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
	int want = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 100, n = 0;
	struct game_setup setup = { .players = 3, .rounds = 200 };
	static const char *const names[] = { "alice", "bob", "carol" };
	struct ctpicture_marks mk;
	struct ctgame g;
	struct game_step st;
	struct rng rng;
	double b1, b2, first, second;

	if (want < 1 || want > MAX_PICTURES)
		want = 100;
	if (ctgame_init(&g, &setup) != GAME_OK)
		return 1;
	rng_seed(&rng, seed);
	for (int v = 0; n < want; v++) {
		ctgame_step(&g, &st);
		if (st.node == GAME_NODE_OVER) {
			ctgame_init(&g, &setup);
			continue;
		}
		if (v % 5 == 0)
			pos[n++] = g;
		ctgame_apply(&g,
		             st.node == GAME_NODE_CHANCE ? (int)rng_below(&rng, (uint32_t)st.count)
		                                         : ctgame_policy_baseline(&g, &st, &rng),
		             NULL);
	}
	ctpicture_marks_init(&mk);
	for (int s = 0; s < 3; s++)
		mk.names[s] = names[s];
	mk.lang = "en";
	first = pass(n, &mk, 0, &b1);
	second = pass(n, &mk, 1, &b2);
	printf("pictures=%d new_map_us=%.0f same_map_us=%.0f png_bytes=%.0f\n", n, first, second,
	       b1);
	ctpicture_cleanup();
	return 0;
}
