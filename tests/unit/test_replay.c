/* replay: golden scripts and every refusal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rlyeh/replay.h"

static char *read_file(const char *name, size_t *len)
{
	const char *dir = getenv("GOLDEN_DIR");
	char path[1024];
	FILE *f;
	char *buf;
	long size;

	snprintf(path, sizeof(path), "%s/replay/%s", dir ? dir : "tests/golden", name);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)size + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
	buf[size] = '\0';
	fclose(f);
	*len = (size_t)size;
	return buf;
}

/* Runs a script; returns the output (caller frees), the status in *rc. */
static char *run(const char *script, size_t len, int *rc, char *err, size_t errlen)
{
	char *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);

	assert_non_null(f);
	*rc = replay_run(script, len, f, err, errlen);
	fclose(f);
	return out;
}

static void test_golden(void **unused)
{
	static const char *const names[] = { "classic-3", "cthulhu-wins", "rival-2", "unfinished" };

	(void)unused;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char file[64], err[256];
		size_t len, wantlen;
		int rc;
		char *script, *want, *got;

		snprintf(file, sizeof(file), "%s.json", names[i]);
		script = read_file(file, &len);
		snprintf(file, sizeof(file), "%s.out", names[i]);
		want = read_file(file, &wantlen);
		got = run(script, len, &rc, err, sizeof(err));
		if (rc != 0)
			fail_msg("%s refused: %s", names[i], err);
		if (strcmp(got, want) != 0)
			fail_msg("%s: output differs\n--- got\n%s--- want\n%s", names[i], got,
			         want);
		free(script);
		free(want);
		free(got);
	}
}

struct refusal {
	const char *what;
	const char *script;
	const char *reason; /* a substring of the message */
	int lines;          /* turns printed before the refusal */
};

#define T1 "{\"victim\":1,\"curse\":\"yellow-sign\",\"response\":\"yellow-sign\"}"

static const struct refusal refusals[] = {
	{ "malformed JSON", "{\"players\":3,", "malformed JSON", 0 },
	{ "empty input", "", "malformed JSON", 0 },
	{ "not an object", "[1,2]", "must be a JSON object", 0 },
	{ "unknown top-level key", "{\"players\":3,\"turns\":[],\"speed\":1}",
	  "unknown key \"speed\"", 0 },
	{ "duplicate key", "{\"players\":3,\"players\":4,\"turns\":[]}",
	  "duplicate key \"players\"", 0 },
	{ "another game", "{\"game\":\"chess\",\"players\":3,\"turns\":[]}", "\"game\" must be",
	  0 },
	{ "unknown variant", "{\"variant\":\"solo\",\"players\":3,\"turns\":[]}",
	  "unknown variant \"solo\"", 0 },
	{ "players missing", "{\"turns\":[]}", "\"players\" is missing", 0 },
	{ "one player", "{\"players\":1,\"turns\":[]}",
	  "\"players\" must be an integer from 2 to 12", 0 },
	{ "thirteen players", "{\"players\":13,\"turns\":[]}", "from 2 to 12", 0 },
	{ "players as a string", "{\"players\":\"3\",\"turns\":[]}", "must be an integer", 0 },
	{ "fractional players", "{\"players\":2.5,\"turns\":[]}", "must be an integer", 0 },
	{ "rival cults with three players",
	  "{\"variant\":\"rival-cults\",\"players\":3,\"cultists\":2,\"turns\":[]}",
	  "played by 2 players", 0 },
	{ "rival cults without cultists", "{\"variant\":\"rival-cults\",\"turns\":[]}",
	  "needs \"cultists\"", 0 },
	{ "rival cults with four cultists",
	  "{\"variant\":\"rival-cults\",\"cultists\":4,\"turns\":[]}", "from 2 to 3", 0 },
	{ "cultists in classic", "{\"players\":3,\"cultists\":2,\"turns\":[]}",
	  "only for rival-cults", 0 },
	{ "first caster absent", "{\"players\":3,\"first\":3,\"turns\":[]}", "\"first\" must be",
	  0 },
	{ "turns missing", "{\"players\":3}", "\"turns\" must be an array", 0 },
	{ "turns not an array", "{\"players\":3,\"turns\":{}}", "\"turns\" must be an array", 0 },
	{ "turn not an object", "{\"players\":3,\"turns\":[" T1 ",7]}",
	  "turn 2: a turn must be an object", 1 },
	{ "unknown turn key",
	  "{\"players\":3,\"turns\":[{\"victim\":1,\"curse\":\"eye\",\"curse_eye\":\"tentacle\","
	  "\"response\":\"tentacle\",\"bonus\":1}]}",
	  "turn 1: unknown key \"bonus\"", 0 },
	{ "victim missing", "{\"players\":3,\"turns\":[{\"curse\":\"eye\",\"response\":\"eye\"}]}",
	  "turn 1: \"victim\" is missing", 0 },
	{ "victim not an integer",
	  "{\"players\":3,\"turns\":[{\"victim\":1.5,\"curse\":\"eye\",\"response\":\"eye\"}]}",
	  "turn 1: \"victim\" must be an integer", 0 },
	{ "curse missing", "{\"players\":3,\"turns\":[{\"victim\":1,\"response\":\"tentacle\"}]}",
	  "turn 1: \"curse\" is missing", 0 },
	{ "response missing",
	  "{\"players\":3,\"turns\":[" T1 ",{\"victim\":2,\"curse\":\"tentacle\"}]}",
	  "turn 2: \"response\" is missing", 1 },
	{ "unknown face",
	  "{\"players\":3,\"turns\":[{\"victim\":1,\"curse\":\"tentacles\",\"response\":\"eye\"}]}",
	  "turn 1: \"curse\": unknown face \"tentacles\"", 0 },
	{ "face not a string",
	  "{\"players\":3,\"turns\":[{\"victim\":1,\"curse\":3,\"response\":\"eye\"}]}",
	  "turn 1: \"curse\" must be a face name", 0 },
	{ "eye without a choice",
	  "{\"players\":3,\"turns\":[{\"victim\":1,\"curse\":\"eye\",\"response\":\"tentacle\"}]}",
	  "turn 1: curse is eye but \"curse_eye\" is missing", 0 },
	{ "response eye without a choice",
	  "{\"players\":3,\"turns\":[{\"victim\":1,\"curse\":\"tentacle\",\"response\":\"eye\"}]}",
	  "turn 1: response is eye but \"response_eye\" is missing", 0 },
	{ "eye choice for another face",
	  "{\"players\":3,\"turns\":[{\"victim\":1,\"curse\":\"tentacle\",\"curse_eye\":"
	  "\"cthulhu\","
	  "\"response\":\"tentacle\"}]}",
	  "turn 1: \"curse_eye\" given but curse is tentacle, not eye", 0 },
	{ "R8: the eye choosing the eye",
	  "{\"players\":3,\"turns\":[{\"victim\":1,\"curse\":\"tentacle\",\"response\":\"eye\","
	  "\"response_eye\":\"eye\"}]}",
	  "turn 1: \"response_eye\": the Eye cannot choose the Eye (R8)", 0 },
	{ "the caster as victim",
	  "{\"players\":3,\"turns\":[" T1 ",{\"victim\":1,\"curse\":"
	  "\"tentacle\",\"response\":\"tentacle\"}]}",
	  "turn 2: the Caster (seat 1) cannot be the victim", 1 },
	{ "R4: a mad victim",
	  "{\"players\":4,\"turns\":[" T1 ",{\"victim\":2,\"curse\":\"cthulhu\",\"response\":"
	  "\"cthulhu\"},{\"victim\":1,\"curse\":\"tentacle\",\"response\":\"tentacle\"}]}",
	  "turn 3: victim 1 is mad and cannot be chosen (R4)", 2 },
	{ "a victim not at the table",
	  "{\"players\":3,\"turns\":[{\"victim\":5,\"curse\":\"tentacle\",\"response\":"
	  "\"tentacle\"}]}",
	  "turn 1: victim 5 is not at the table", 0 },
	{ "a turn after the end",
	  "{\"players\":2,\"turns\":[{\"victim\":1,\"curse\":\"eye\",\"curse_eye\":\"cthulhu\","
	  "\"response\":\"eye\",\"response_eye\":\"cthulhu\"},{\"victim\":0,\"curse\":\"eye\","
	  "\"curse_eye\":\"cthulhu\",\"response\":\"tentacle\"},"
	  "{\"victim\":1,\"curse\":\"tentacle\",\"response\":\"tentacle\"}]}",
	  "turn 3: the game already ended after turn 2", 2 },
};

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_refusals(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct refusal *c = &refusals[i];
		char err[256];
		int rc;
		char *out = run(c->script, strlen(c->script), &rc, err, sizeof(err));

		if (rc != -1)
			fail_msg("%s: accepted", c->what);
		if (!strstr(err, c->reason))
			fail_msg("%s: message \"%s\" lacks \"%s\"", c->what, err, c->reason);
		if (count_lines(out) != c->lines)
			fail_msg("%s: %d lines printed, want %d", c->what, count_lines(out),
			         c->lines);
		free(out);
	}
}

/* The script need not be NUL-terminated: parsing stops at len. */
static void test_length_bounded(void **unused)
{
	const char text[] = "{\"players\":2,\"turns\":[]}GARBAGE";
	char err[256];
	int rc;
	char *out;

	(void)unused;
	out = run(text, strlen("{\"players\":2,\"turns\":[]}"), &rc, err, sizeof(err));
	assert_int_equal(rc, 0);
	assert_string_equal(out, "");
	free(out);
	out = run(text, strlen(text), &rc, err, sizeof(err));
	assert_int_equal(rc, -1);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_length_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
