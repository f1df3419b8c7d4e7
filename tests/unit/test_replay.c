/* replay: golden scripts of both games and every refusal. */
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
	static const char *const names[] = { "classic-3",    "cthulhu-wins", "rival-2",
		                             "unfinished",   "es-tiebreak",  "es-refill",
		                             "es-unfinished" };

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

/* Elder Signs: 2 or 3 players; turns that bank 1 (three Library dice: an
 * Elder Sign and two Clues), are downed (three Tomb Tentacles) or bank 16
 * (five throws of Elder Signs empty the bag, the stash refills it). */
#define ES            "{\"game\":\"elder-signs\",\"players\":2,\"turns\":["
#define ES3           "{\"game\":\"elder-signs\",\"players\":3,\"turns\":["
#define LIB3          "\"draw\":[\"library\",\"library\",\"library\"]"
#define TOMB3         "\"draw\":[\"tomb\",\"tomb\",\"tomb\"]"
#define ROLL(a, b, c) "\"roll\":[\"" a "\",\"" b "\",\"" c "\"]"
#define SIGN1         ROLL("library:elder-sign", "library:clue", "library:clue")
#define CLUES         ROLL("library:clue", "library:clue", "library:clue")
#define DOWN3         ROLL("tomb:tentacle", "tomb:tentacle", "tomb:tentacle")
#define SEAT(s)       "{\"seat\":" #s ",\"throws\":["
#define ES_ONE(s)     SEAT(s) "{" LIB3 "," SIGN1 "}],\"end\":\"retreat\"}"
#define ES_DOWN(s)    SEAT(s) "{" TOMB3 "," DOWN3 "}],\"end\":\"downed\"}"
#define SIGNS(k)      ROLL(k ":elder-sign", k ":elder-sign", k ":elder-sign")
#define ES_BIG(s, refill)                                                                          \
	SEAT(s)                                                                                    \
	"{" LIB3 "," SIGNS("library") "},{" LIB3 "," SIGNS(                                        \
	    "library") "},"                                                                        \
	               "{\"draw\":[\"library\",\"library\",\"museum\"]," ROLL(                     \
	                   "library:elder-sign", "library:elder-sign",                             \
	                   "museum:elder-sign") "},"                                               \
	                                        "{\"draw\":[\"museum\",\"museum\",\"museum\"]"     \
	                                        "," SIGNS(                                         \
	                                            "museum") "},"                                 \
	                                                      "{" TOMB3 "," SIGNS(                 \
	                                                          "tomb") "},{\"refill\":" #refill \
	                                                                  "," LIB3 "," ROLL(       \
	                                                                      "library:clue",      \
	                                                                      "library:clue",      \
	                                                                      "library:elder-"     \
	                                                                      "sign") "}],"        \
	                                                                              "\"end\":"   \
	                                                                              "\"retreat"  \
	                                                                              "\"}"

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
	{ "game not a string", "{\"game\":1,\"players\":3,\"turns\":[]}",
	  "\"game\" must be \"cthulhu-dice\" or \"elder-signs\"", 0 },
	/* Elder Signs */
	{ "es: players missing", "{\"game\":\"elder-signs\",\"turns\":[]}",
	  "\"players\" is missing", 0 },
	{ "es: thirteen players", "{\"game\":\"elder-signs\",\"players\":13,\"turns\":[]}",
	  "\"players\" must be an integer from 2 to 12", 0 },
	{ "es: a Cthulhu Dice key",
	  "{\"game\":\"elder-signs\",\"variant\":\"classic\","
	  "\"players\":2,\"turns\":[]}",
	  "unknown key \"variant\"", 0 },
	{ "es: first seat absent",
	  "{\"game\":\"elder-signs\",\"players\":2,\"first\":2,"
	  "\"turns\":[]}",
	  "\"first\" must be an integer from 0 to 1", 0 },
	{ "es: scores of the wrong length", ES "],\"scores\":[0]}", "\"scores\" must list 2 scores",
	  0 },
	{ "es: a score not a number", ES "],\"scores\":[0,\"1\"]}",
	  "\"scores\": seat 1: not a score", 0 },
	{ "es: winner absent", ES "],\"winner\":2}", "\"winner\" must be an integer from -1 to 1",
	  0 },
	{ "es: turn not an object", ES ES_ONE(0) ",7]}", "turn 2: a turn must be an object", 1 },
	{ "es: unknown turn key", ES "{\"seat\":0,\"bonus\":1}]}", "turn 1: unknown key \"bonus\"",
	  0 },
	{ "es: seat missing", ES "{\"throws\":[{" LIB3 "," SIGN1 "}],\"end\":\"retreat\"}]}",
	  "turn 1: \"seat\" is missing", 0 },
	{ "es: the wrong seat", ES ES_ONE(0) "," ES_ONE(0) "]}",
	  "turn 2: it is seat 1's turn, not seat 0's", 1 },
	{ "es: a seat out of the tie-break",
	  ES3 ES_BIG(0, 15) "," ES_DOWN(1) "," ES_BIG(2, 15) "," ES_ONE(1) "]}",
	  "turn 4: it is seat 0's turn, not seat 1's (it no longer plays)", 3 },
	{ "es: the wrong round", ES "{\"seat\":0,\"round\":2,\"throws\":[]}]}",
	  "turn 1: \"round\" is 2 but round 1 is being played", 0 },
	{ "es: no throws", ES SEAT(0) "],\"end\":\"retreat\"}]}",
	  "turn 1: \"throws\" must be an array of 1 to 64 throws", 0 },
	{ "es: throw not an object", ES SEAT(0) "[]],\"end\":\"retreat\"}]}",
	  "turn 1, throw 1: a throw must be an object", 0 },
	{ "es: unknown throw key", ES SEAT(0) "{" LIB3 "," SIGN1 ",\"dice\":3}]}]}",
	  "turn 1, throw 1: unknown key \"dice\"", 0 },
	{ "es: four dice drawn",
	  ES SEAT(0) "{\"draw\":[\"tomb\",\"tomb\",\"tomb\",\"tomb\"]," DOWN3 "}]}]}",
	  "turn 1, throw 1: \"draw\" must be an array of 0 to 3 dice", 0 },
	{ "es: nothing rolled", ES SEAT(0) "{" LIB3 ",\"roll\":[]}]}]}",
	  "turn 1, throw 1: \"roll\" must be an array of 1 to 3 dice", 0 },
	{ "es: unknown kind", ES SEAT(0) "{\"draw\":[\"crypt\"]," SIGN1 "}]}]}",
	  "turn 1, throw 1: unknown kind \"crypt\" (library, museum, tomb)", 0 },
	{ "es: kind not a string", ES SEAT(0) "{\"draw\":[0]," SIGN1 "}]}]}",
	  "turn 1, throw 1: \"draw\" must list kinds", 0 },
	{ "es: unknown face",
	  ES SEAT(0) "{" LIB3 "," ROLL("library:rune", "library:clue", "library:clue") "}]}]}",
	  "turn 1, throw 1: unknown face \"rune\" (elder-sign, clue, tentacle)", 0 },
	{ "es: a roll without its kind",
	  ES SEAT(0) "{" LIB3 "," ROLL("clue", "library:clue", "library:clue") "}]}]}",
	  "turn 1, throw 1: \"roll\" must list kind:face", 0 },
	{ "es: a draw of a kind the bag does not hold",
	  ES SEAT(0) "{" TOMB3 "," ROLL("tomb:elder-sign", "tomb:elder-sign",
	                                "tomb:clue") "},{\"draw\":[\"tomb\",\"library\"]," SIGN1
	                                             "}],\"end\":\"retreat\"}]}",
	  "turn 1, throw 2: draw 1: the bag holds no tomb die", 0 },
	{ "es: a draw into a full hand",
	  ES SEAT(0) "{" LIB3 "," CLUES "},{\"draw\":[\"library\"]," CLUES
	             "}],\"end\":\"retreat\"}]}",
	  "turn 1, throw 2: draw 1: the hand is full (3 dice)", 0 },
	{ "es: a roll before the hand is full",
	  ES SEAT(0) "{\"draw\":[\"library\",\"library\"],"
	             "\"roll\":[\"library:clue\",\"library:clue\"]}],\"end\":\"retreat\"}]}",
	  "turn 1, throw 1: the hand holds 2 dice: it draws up to 3 before rolling (the bag "
	  "holds 13)",
	  0 },
	{ "es: fewer rolls than dice",
	  ES SEAT(0) "{" LIB3 ",\"roll\":[\"library:clue\",\"library:clue\"]}],"
	             "\"end\":\"retreat\"}]}",
	  "turn 1, throw 1: the throw rolls 2 dice but the hand holds 3", 0 },
	{ "es: rolls out of order",
	  ES SEAT(0) "{\"draw\":[\"tomb\",\"library\",\"museum\"]," ROLL(
	      "tomb:clue", "library:clue", "museum:clue") "}],\"end\":\"retreat\"}]}",
	  "turn 1, throw 1: roll 1: the next die is a library die, not a tomb die", 0 },
	{ "es: continuing after downed",
	  ES SEAT(0) "{" TOMB3 "," DOWN3 "},{" LIB3 "," SIGN1 "}],\"end\":\"retreat\"}]}",
	  "turn 1, throw 2: the seat was downed in throw 1 and cannot continue", 0 },
	{ "es: retreating after downed", ES SEAT(0) "{" TOMB3 "," DOWN3 "}],\"end\":\"retreat\"}]}",
	  "turn 1: \"end\" is retreat but the seat was downed in throw 1", 0 },
	{ "es: downed without three Tentacles",
	  ES SEAT(0) "{" LIB3 "," ROLL("library:tentacle", "library:tentacle",
	                               "library:clue") "}],\"end\":\"downed\"}]}",
	  "turn 1: \"end\" is downed but the seat was not (2 Tentacles)", 0 },
	{ "es: end missing", ES SEAT(0) "{" LIB3 "," SIGN1 "}]}]}",
	  "turn 1: \"end\" must be \"retreat\" or \"downed\"", 0 },
	{ "es: banked wrong",
	  ES SEAT(0) "{" LIB3 "," SIGN1 "}],\"end\":\"retreat\",\"banked\":2}]}",
	  "turn 1: \"banked\" is 2 but the seat banks 1", 0 },
	{ "es: score wrong",
	  ES ES_ONE(0) "," ES_ONE(1) "," SEAT(0) "{" LIB3 "," SIGN1
	                                         "}],\"end\":\"retreat\",\"score\":1}]}",
	  "turn 3: \"score\" is 1 but the seat has 2", 2 },
	{ "es: lost wrong", ES SEAT(0) "{" TOMB3 "," DOWN3 "}],\"end\":\"downed\",\"lost\":1}]}",
	  "turn 1: \"lost\" is 1 but the seat loses 0", 0 },
	{ "es: lost on a retreat",
	  ES SEAT(0) "{" LIB3 "," SIGN1 "}],\"end\":\"retreat\",\"lost\":0}]}",
	  "turn 1: \"lost\" is for a downed turn", 0 },
	{ "es: banked on a downed turn",
	  ES SEAT(0) "{" TOMB3 "," DOWN3 "}],\"end\":\"downed\",\"banked\":0}]}",
	  "turn 1: \"banked\" is for a retreat", 0 },
	{ "es: a refill that did not happen",
	  ES SEAT(0) "{\"refill\":3," LIB3 "," SIGN1 "}],\"end\":\"retreat\"}]}",
	  "turn 1, throw 1: \"refill\" is 3 but no dice went back into the bag", 0 },
	{ "es: a refill of the wrong count", ES ES_BIG(0, 14) "]}",
	  "turn 1, throw 6: \"refill\" is 14 but 15 dice went back into the bag", 0 },
	{ "es: scores that disagree", ES ES_ONE(0) "],\"scores\":[2,0]}",
	  "\"scores\": seat 0 has 1 after the turns, not 2", 1 },
	{ "es: a winner of an unfinished game", ES ES_ONE(0) "],\"winner\":0}",
	  "\"winner\" is 0 but the game is not over (-1)", 1 },
	{ "es: the wrong winner", ES ES_BIG(0, 15) "," ES_DOWN(1) "],\"winner\":1}",
	  "\"winner\" is 1 but seat 0 won", 2 },
	{ "es: a turn after the end", ES ES_BIG(0, 15) "," ES_DOWN(1) "," ES_ONE(0) "]}",
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

/* An Elder Signs turn holds up to 64 throws (here: three Clues kept, rolled
 * again and again); one more is refused. */
static void test_es_throw_cap(void **unused)
{
	static const char head[] = ES SEAT(0) "{" LIB3 "," CLUES "}";
	static const char again[] = ",{\"draw\":[]," CLUES "}";
	static const char tail[] = "],\"end\":\"retreat\",\"banked\":0}]}";
	char script[sizeof(head) + 64 * sizeof(again) + sizeof(tail)], err[256];
	int rc;
	char *out;

	(void)unused;
	for (int throws = 64; throws <= 65; throws++) {
		strcpy(script, head);
		for (int i = 1; i < throws; i++)
			strcat(script, again);
		strcat(script, tail);
		out = run(script, strlen(script), &rc, err, sizeof(err));
		if (throws == 64) {
			assert_int_equal(rc, 0);
			assert_non_null(strstr(out, "\"end\":\"retreat\",\"banked\":0"));
		} else {
			assert_int_equal(rc, -1);
			assert_string_equal(
			    err, "turn 1: \"throws\" must be an array of 1 to 64 throws");
		}
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
		cmocka_unit_test(test_es_throw_cap),
		cmocka_unit_test(test_length_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
