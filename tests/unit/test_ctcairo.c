/* ctcairo: the drawing library is mapped by the first picture, not before.
 *
 * This program is linked without cairo (only rlyeh_board), as the daemon
 * is: /proc/self/maps shows no libcairo until a map is drawn, then it does,
 * and the picture is a PNG of the map's size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/ctgame.h"
#include "rlyeh/ctpicture.h"

/* 1 when a mapping of this process's file names `lib`. */
static int mapped(const char *lib)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int found = 0;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, lib) != NULL;
	fclose(f);
	return found;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void test_loaded_by_first_picture(void **state)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	struct game_setup setup = { .players = 3, .rounds = 200 };
	struct ctgame g;
	unsigned char *png = NULL;
	size_t len = 0;
	int w, h;

	(void)state;
	assert_false(mapped("libcairo.so"));
	assert_false(mapped("libpixman"));
	assert_int_equal(ctgame_init(&g, &setup), GAME_OK);
	assert_int_equal(ctpicture_png(&g, NULL, &png, &len), 0);
	assert_true(mapped("libcairo.so"));
	assert_true(len > 33);
	assert_memory_equal(png, sig, sizeof(sig));
	w = (int)be32(png + 16);
	h = (int)be32(png + 20);
	assert_true(w > 100 && w < 4000);
	assert_true(h > 100 && h < 4000);
	free(png);
	ctpicture_cleanup();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loaded_by_first_picture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
