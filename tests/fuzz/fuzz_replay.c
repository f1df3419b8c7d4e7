/* Fuzzes replay scripts: each input is a script as raw bytes (not
 * NUL-terminated) for replay_run. Every line it writes must be a JSON
 * object for the next turn, but for the last line of a CTHULHU!!! script,
 * which may be its final line (no "turn", a "result"); a refusal must come
 * with a reason, success without one. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Checks that out[0..len-1] holds JSON lines for turns 1, 2, ..., the last
 * one possibly the final line of a CTHULHU!!! script. */
static void check_lines(const char *out, size_t len)
{
	const char *p = out, *end = out + len;
	int turn = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		cJSON *line, *t;

		if (!nl)
			abort();
		line = cJSON_ParseWithLength(p, (size_t)(nl - p));
		t = cJSON_GetObjectItemCaseSensitive(line, "turn");
		if (!cJSON_IsObject(line))
			abort();
		if (!t && nl + 1 == end && cJSON_GetObjectItemCaseSensitive(line, "result") &&
		    cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(line, "moves"))) {
			cJSON_Delete(line);
			return; /* the final line */
		}
		if (!cJSON_IsNumber(t) || t->valueint != ++turn)
			abort();
		cJSON_Delete(line);
		p = nl + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256], *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	int rc;

	if (!f)
		return 0;
	rc = replay_run((const char *)data, size, f, err, sizeof(err));
	if (fclose(f))
		abort();
	if (!memchr(err, '\0', sizeof(err)) || (rc == 0) != (err[0] == '\0') ||
	    (rc != 0 && rc != -1))
		abort();
	check_lines(out, len);
	free(out);
	return 0;
}
