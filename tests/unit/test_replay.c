/* replay: golden scripts of both games and every refusal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <cjson/cJSON.h>

#include "rlyeh/ctgame.h"
#include "rlyeh/replay.h"
#include "rlyeh/rng.h"

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
	static const char *const names[] = { "classic-3",     "cthulhu-wins", "rival-2",
		                             "unfinished",    "es-tiebreak",  "es-refill",
		                             "es-unfinished", "ct-capped",    "ct-summoned" };

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

/* CTHULHU!!!: a table of 2 (the round cap and the claims left to each
 * case), and the first moves of its game: the dealer (seat 1, so seat 0
 * plays first) and the six cards of the deal. */
#define CT0     "{\"game\":\"cthulhu\","
#define CT2     CT0 "\"players\":2,"
#define CT_DEAL "1,0,0,0,0,0,0"

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
	  "\"game\" must be \"cthulhu-dice\", \"elder-signs\" or \"cthulhu\"", 0 },
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
	/* CTHULHU!!!: 2 players; move 1 draws the dealer (seat 1, so seat 0
	 * plays first), moves 2-7 deal the hands, and seat 0 then leaves in
	 * its first turn, which ends it (turn line 1). */
	{ "ct: players missing", CT0 "\"moves\":[]}", "\"players\" is missing", 0 },
	{ "ct: seven players", "{\"game\":\"cthulhu\",\"players\":7,\"moves\":[]}",
	  "\"players\" must be an integer from 2 to 6", 0 },
	{ "ct: a cap too high", CT2 "\"cap\":10001,\"moves\":[]}",
	  "\"cap\" must be an integer from 0 to 10000", 0 },
	{ "ct: a Cthulhu Dice key", CT2 "\"first\":0,\"moves\":[]}", "unknown key \"first\"", 0 },
	{ "ct: turns instead of moves", CT2 "\"turns\":[]}", "unknown key \"turns\"", 0 },
	{ "ct: moves missing", CT0 "\"players\":2}", "\"moves\" must be an array", 0 },
	{ "ct: moves not an array", CT2 "\"moves\":{}}", "\"moves\" must be an array", 0 },
	{ "ct: an unknown end", CT2 "\"moves\":[],\"end\":\"won\"}",
	  "\"end\" must be \"playing\", \"saved\", \"summoned\", \"nobody\" or \"capped\"", 0 },
	{ "ct: winners not seats", CT2 "\"moves\":[],\"winners\":[2]}",
	  "\"winners\" must list seats from 0 to 1", 0 },
	{ "ct: a winner twice", CT2 "\"moves\":[],\"winners\":[1,1]}",
	  "\"winners\" lists seat 1 twice", 0 },
	{ "ct: vp of the wrong length", CT2 "\"moves\":[],\"vp\":[0]}",
	  "\"vp\" must list 2 victory points", 0 },
	{ "ct: a move not a number", CT2 "\"moves\":[1,\"0\"]}",
	  "move 2: a move must be a whole number or {\"leave\":seat}", 0 },
	{ "ct: a fractional move", CT2 "\"moves\":[1,0.5]}",
	  "move 2: a move must be a whole number", 0 },
	{ "ct: an illegal dealer", CT2 "\"moves\":[2]}",
	  "move 1: value 2 refused at the dealer draw (2 values, 0-1): not a legal choice", 0 },
	{ "ct: a negative value", CT2 "\"moves\":[1,-1]}",
	  "move 2: value -1 refused at the card draw (50 values, 0-49): not a legal choice", 0 },
	{ "ct: a card beyond the deck", CT2 "\"moves\":[1,0,0,0,0,0,45]}",
	  "move 7: value 45 refused at the card draw (45 values, 0-44)", 0 },
	{ "ct: a leave before the deal", CT2 "\"moves\":[1,{\"leave\":0}]}",
	  "move 2: seat 0 cannot leave before the deal is done", 0 },
	{ "ct: a leave of a seat not at the table", CT2 "\"moves\":[" CT_DEAL ",{\"leave\":2}]}",
	  "move 8: \"leave\" must be an integer from 0 to 1", 0 },
	{ "ct: a leave with another key", CT2 "\"moves\":[" CT_DEAL ",{\"leave\":0,\"why\":1}]}",
	  "move 8: unknown key \"why\"", 0 },
	{ "ct: a seat leaving twice", CT2 "\"moves\":[" CT_DEAL ",{\"leave\":0},{\"leave\":0}]}",
	  "move 9: seat 0 cannot leave: it is out of the game", 1 },
	{ "ct: a move after the end", CT2 "\"moves\":[" CT_DEAL ",{\"leave\":0},{\"leave\":1},0]}",
	  "move 10: the game already ended (nobody) after move 9", 1 },
	{ "ct: a wrong end", CT2 "\"moves\":[" CT_DEAL ",{\"leave\":0}],\"end\":\"nobody\"}",
	  "\"end\" is \"nobody\" but the game is \"playing\"", 1 },
	{ "ct: a winner of an unfinished game", CT2 "\"moves\":[" CT_DEAL "],\"winner\":-1}",
	  "\"winner\" is -1 but the game is not over", 0 },
	{ "ct: wrong winners",
	  CT2 "\"moves\":[" CT_DEAL ",{\"leave\":0},{\"leave\":1}],\"winners\":[1]}",
	  "\"winners\" are [1] but the winners are []", 1 },
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

/* A copy of s (the caller frees) with the first `from` replaced by `to`. */
static char *replace_once(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	size_t head, len;
	char *out;

	if (!at)
		fail_msg("\"%s\" is not in the script", from);
	head = (size_t)(at - s);
	len = strlen(s) - strlen(from) + strlen(to);
	out = malloc(len + 1);
	assert_non_null(out);
	memcpy(out, s, head);
	strcpy(out + head, to);
	strcat(out, at + strlen(from));
	return out;
}

/* A CTHULHU!!! script built by hand replays to its end: the dealer, the
 * deal, then both seats leave (B37: nobody wins); the turn the first leave
 * ends is a line, the end the last one. */
static void test_ct_hand_built(void **unused)
{
	static const char script[] =
	    CT2 "\"cap\":5,\"moves\":[" CT_DEAL ",{\"leave\":0},{\"leave\":1}],\"end\":\"nobody\","
	        "\"winners\":[],\"vp\":[0,0]}";
	static const char want[] =
	    "{\"turn\":1,\"seat\":0,\"round\":1,\"moves\":8,\"vp\":[0,0],\"out\":[0],"
	    "\"sanctified\":0,\"activated\":0,\"result\":null}\n"
	    "{\"moves\":9,\"turns\":1,\"round\":1,\"seat\":1,\"vp\":[0,0],\"out\":[0,1],"
	    "\"sanctified\":0,\"activated\":0,\"result\":{\"end\":\"nobody\",\"winners\":[],"
	    "\"winner\":-1}}\n";
	char err[256];
	int rc;
	char *out;

	(void)unused;
	out = run(script, strlen(script), &rc, err, sizeof(err));
	if (rc)
		fail_msg("refused: %s", err);
	assert_string_equal(out, want);
	free(out);
}

struct ct_claim {
	const char *file, *from, *to; /* the golden script, what is changed */
	const char *reason;           /* a substring of the message */
	int lines;                    /* lines printed before the refusal */
};

/* The claims of the golden scripts (exported from stored games) are
 * checked: a wrong end, winners, winner or VP is refused after the turn
 * lines, without the last line; so are a move the engine refuses and a
 * seat not at the table leaving, with the turns before them. */
static void test_ct_claims(void **unused)
{
	static const struct ct_claim cases[] = {
		{ "ct-capped", "\"end\":\"capped\"", "\"end\":\"saved\"",
		  "\"end\" is \"saved\" but the game ended \"capped\"", 7 },
		{ "ct-capped", "\"vp\":[0,6,21]", "\"vp\":[0,6,20]",
		  "\"vp\": seat 2 has 21, not 20", 7 },
		{ "ct-capped", "\"winners\":[]", "\"winners\":[],\"winner\":2",
		  "\"winner\" is 2 but the game gives -1", 7 },
		{ "ct-summoned", "\"winner\":2", "\"winner\":1",
		  "\"winner\" is 1 but the game gives 2", 15 },
		{ "ct-summoned", "\"winners\":[2]", "\"winners\":[1]",
		  "\"winners\" are [1] but the winners are [2]", 15 },
		{ "ct-summoned", "\"end\":\"summoned\"", "\"end\":\"playing\"",
		  "\"end\" is \"playing\" but the game ended \"summoned\"", 15 },
		{ "ct-summoned", "{\"leave\":0}", "{\"leave\":3}",
		  "move 60: \"leave\" must be an integer from 0 to 2", 2 },
		{ "ct-summoned", ",64,", ",99,",
		  "move 24: value 99 refused at the relic draw (80 values, 0-79): not a legal "
		  "choice",
		  0 },
		{ "ct-summoned", ",25,3,4,23,", ",25,3,9,23,",
		  "move 40: value 9 refused at seat 2's site byakhee (9 options, 0-8): not a legal "
		  "choice",
		  1 },
		{ "ct-capped", "{\"leave\":0},\n  0,", "{\"leave\":0},\n  0,{\"leave\":0},",
		  "move 88: seat 0 cannot leave: it is out of the game", 3 },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ct_claim *c = &cases[i];
		char file[64], err[256];
		size_t len;
		int rc;
		char *script, *changed, *out;

		snprintf(file, sizeof(file), "%s.json", c->file);
		script = read_file(file, &len);
		changed = replace_once(script, c->from, c->to);
		out = run(changed, strlen(changed), &rc, err, sizeof(err));
		if (rc != -1)
			fail_msg("%s with %s: accepted", c->file, c->to);
		if (!strstr(err, c->reason))
			fail_msg("%s with %s: message \"%s\" lacks \"%s\"", c->file, c->to, err,
			         c->reason);
		if (count_lines(out) != c->lines)
			fail_msg("%s with %s: %d lines printed, want %d", c->file, c->to,
			         count_lines(out), c->lines);
		free(out);
		free(changed);
		free(script);
	}
}

/* The ends as scripts name them (enum ctgame_end). */
static const char *const end_names[] = { "playing", "saved", "summoned", "nobody", "capped" };

/* Games played here, move by move, straight on the engine. */
#define CT_MOVES 30000
#define CT_TURNS 3000

struct ct_played {
	int n, value[CT_MOVES], leave[CT_MOVES], count[CT_MOVES]; /* count: 0 for a leave */
	int turns, turn_moves[CT_TURNS], turn_seat[CT_TURNS], turn_round[CT_TURNS];
	int turn_vp[CT_TURNS][CTGAME_MAX];
	struct ctgame g; /* the end */
};

/* Plays game i: 2-6 players, the baseline policy without a cap or the
 * random one with a cap of 1-4 rounds; in every third game seats leave
 * now and then (sometimes all of them: B37). Records every move and, for
 * each completed turn, its seat, round, the moves so far and the VP. */
static void ct_play(int i, struct ct_played *p)
{
	struct game_setup setup = { .players = 2 + i % 5, .rounds = i % 2 ? 1 + i % 4 : 0 };
	struct rng r;

	memset(p, 0, sizeof(*p));
	rng_seed(&r, (uint64_t)i + 1);
	assert_int_equal(ctgame_init(&p->g, &setup), GAME_OK);
	while (p->g.end == CE_PLAYING) {
		struct game_step st;
		int seat = p->g.seat, round = p->g.round, turns = (int)p->g.turns;
		int leaver = (int)rng_below(&r, (uint32_t)p->g.n);

		if (p->n >= CT_MOVES)
			fail_msg("game %d: longer than %d moves", i, CT_MOVES);
		ctgame_step(&p->g, &st);
		if (i % 3 == 2 && rng_below(&r, 120) == 0 &&
		    ctgame_leave(&p->g, leaver, NULL) == GAME_OK) {
			p->leave[p->n] = 1;
			p->value[p->n] = leaver;
		} else {
			int v = st.node == GAME_NODE_CHANCE ? (int)rng_below(&r, (uint32_t)st.count)
			        : i % 2                     ? ctgame_policy_random(&p->g, &st, &r)
			                : ctgame_policy_baseline(&p->g, &st, &r);
			assert_int_equal(ctgame_apply(&p->g, v, NULL), GAME_OK);
			p->value[p->n] = v;
			p->count[p->n] = st.count;
		}
		p->n++;
		if ((int)p->g.turns == turns)
			continue;
		assert_int_equal((int)p->g.turns, turns + 1);
		assert_true(p->turns < CT_TURNS);
		p->turn_moves[p->turns] = p->n;
		p->turn_seat[p->turns] = seat;
		p->turn_round[p->turns] = round;
		for (int s = 0; s < p->g.n; s++)
			p->turn_vp[p->turns][s] = ctgame_vp(&p->g, s);
		p->turns++;
	}
}

/* The script of a played game with its moves and its claims; the move
 * numbered `bad` from 0 (or none, -1) replaced by its node's count, one
 * past the legal values. The caller frees it. */
static char *ct_script(const struct ct_played *p, int bad)
{
	struct game_result r;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	ctgame_result(&p->g, &r);
	fprintf(f, "{\"game\":\"cthulhu\",\"players\":%d,\"cap\":%d,\"moves\":[", p->g.n, p->g.cap);
	for (int k = 0; k < p->n; k++) {
		if (p->leave[k])
			fprintf(f, "%s{\"leave\":%d}", k ? "," : "", p->value[k]);
		else
			fprintf(f, "%s%d", k ? "," : "", k == bad ? p->count[k] : p->value[k]);
	}
	fprintf(f, "],\"end\":\"%s\",\"winners\":[", end_names[p->g.end]);
	for (int s = 0, first = 1; s < p->g.n; s++) {
		if (p->g.winners >> s & 1) {
			fprintf(f, "%s%d", first ? "" : ",", s);
			first = 0;
		}
	}
	fprintf(f, "],\"winner\":%d,\"vp\":[", r.winner);
	for (int s = 0; s < p->g.n; s++)
		fprintf(f, "%s%d", s ? "," : "", ctgame_vp(&p->g, s));
	fputs("]}", f);
	fclose(f);
	return text;
}

/* The integer member `key` of a line, or fails. */
static int line_int(const cJSON *line, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(line, key);

	if (!cJSON_IsNumber(it))
		fail_msg("a line without \"%s\"", key);
	return it->valueint;
}

/* Item k of the array member `key` of a line, an integer, or fails. */
static int line_item(const cJSON *line, const char *key, int k)
{
	const cJSON *it = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(line, key), k);

	if (!cJSON_IsNumber(it))
		fail_msg("a line without \"%s\"[%d]", key, k);
	return it->valueint;
}

/* Games played straight on the engine replay from their scripts: a line
 * per completed turn with the seat, round, move count and VP the engine
 * had then; the last line with its end and winners; the claims accepted.
 * The same script with one move out of range is refused with that move's
 * number, after the lines of the turns completed before it. */
static void test_ct_played(void **unused)
{
	static struct ct_played p;
	int ends[CE_CAPPED + 1] = { 0 };

	(void)unused;
	for (int i = 0; i < 30; i++) {
		char err[256], want[64];
		int rc, lines = 0, bad, before = 0, winners = 0;
		char *script, *out, *line, *next;
		const cJSON *res;
		cJSON *last = NULL;
		struct game_result r;

		ct_play(i, &p);
		ends[p.g.end]++;
		script = ct_script(&p, -1);
		out = run(script, strlen(script), &rc, err, sizeof(err));
		if (rc)
			fail_msg("game %d refused: %s", i, err);
		for (line = out; *line; line = next + 1) {
			cJSON *j;
			next = strchr(line, '\n');
			assert_non_null(next);
			*next = '\0';
			j = cJSON_Parse(line);
			if (!j)
				fail_msg("game %d: line %d is not JSON: %s", i, lines + 1, line);
			if (lines < p.turns) {
				assert_int_equal(line_int(j, "turn"), lines + 1);
				assert_int_equal(line_int(j, "seat"), p.turn_seat[lines]);
				assert_int_equal(line_int(j, "round"), p.turn_round[lines]);
				assert_int_equal(line_int(j, "moves"), p.turn_moves[lines]);
				for (int s = 0; s < p.g.n; s++)
					assert_int_equal(line_item(j, "vp", s),
					                 p.turn_vp[lines][s]);
				cJSON_Delete(j);
			} else {
				assert_null(last);
				last = j;
			}
			lines++;
		}
		assert_int_equal(lines, p.turns + 1);
		assert_non_null(last);
		assert_int_equal(line_int(last, "moves"), p.n);
		assert_int_equal(line_int(last, "turns"), (int)p.g.turns);
		res = cJSON_GetObjectItemCaseSensitive(last, "result");
		assert_true(cJSON_IsObject(res));
		ctgame_result(&p.g, &r);
		assert_int_equal(line_int(res, "winner"), r.winner);
		assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(res, "end")),
		                    end_names[p.g.end]);
		for (int k = 0; k < cJSON_GetArraySize(cJSON_GetObjectItem(res, "winners")); k++)
			winners |= 1 << line_item(res, "winners", k);
		assert_int_equal(winners, p.g.winners);
		for (int s = 0; s < p.g.n; s++)
			assert_int_equal(line_item(last, "vp", s), ctgame_vp(&p.g, s));
		cJSON_Delete(last);
		free(out);
		free(script);

		/* one move made illegal: a choice or chance value one past the last */
		bad = (int)(((unsigned)i * 2654435761u) % (unsigned)p.n);
		while (p.leave[bad])
			bad = (bad + 1) % p.n;
		for (int t = 0; t < p.turns && p.turn_moves[t] <= bad; t++)
			before++;
		script = ct_script(&p, bad);
		out = run(script, strlen(script), &rc, err, sizeof(err));
		assert_int_equal(rc, -1);
		snprintf(want, sizeof(want), "move %d: value %d refused at ", bad + 1,
		         p.count[bad]);
		if (!strstr(err, want) || !strstr(err, "not a legal choice"))
			fail_msg("game %d: \"%s\" lacks \"%s\"", i, err, want);
		assert_int_equal(count_lines(out), before);
		free(out);
		free(script);
	}
	/* these 30 games (fixed seeds) reach every end */
	for (int e = CE_SAVED; e <= CE_CAPPED; e++)
		if (!ends[e])
			fail_msg("no game ended %s", end_names[e]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),        cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_es_throw_cap),  cmocka_unit_test(test_length_bounded),
		cmocka_unit_test(test_ct_hand_built), cmocka_unit_test(test_ct_claims),
		cmocka_unit_test(test_ct_played),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
