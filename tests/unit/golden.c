/* golden: text against golden files (see golden.h). */
#include "golden.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* The file at path, at most max bytes, as a new string; "" when it cannot
 * be read. */
static char *slurp(const char *path, size_t max)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(max + 1);
	size_t n;

	assert_non_null(buf);
	if (!f) {
		buf[0] = '\0';
		return buf;
	}
	n = fread(buf, 1, max, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

void golden_check(const char *folder, const char *name, const char *got, const char *update,
                  size_t max)
{
	char path[512];
	const char *dir = getenv("GOLDEN_DIR");

	assert_non_null(dir);
	snprintf(path, sizeof path, "%s/%s/%s", dir, folder, name);
	if (getenv(update)) {
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		fputs(got, f);
		fclose(f);
	}
	char *want = slurp(path, max);
	if (strcmp(want, got) != 0) {
		size_t i = 0;
		while (want[i] && want[i] == got[i])
			i++;
		fail_msg("%s differs at byte %zu: got \"%.60s\"", path, i, got + i);
	}
	free(want);
}
