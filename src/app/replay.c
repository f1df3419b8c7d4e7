#include "rlyeh/replay.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/cdice.h"
#include "rlyeh/cli.h"

struct turn {
	int victim;
	int face[2]; /* curse, response */
	int eye[2];  /* chosen face after an Eye, or -1 */
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Refuses keys outside `allowed` (NULL-terminated) and repeated keys. */
static int check_keys(const cJSON *obj, const char *const *allowed, const char *where, char *err,
                      size_t errlen)
{
	for (const cJSON *a = obj->child; a; a = a->next) {
		int known = 0;
		for (const char *const *k = allowed; *k; k++)
			known |= strcmp(a->string, *k) == 0;
		if (!known)
			return fail(err, errlen, "%sunknown key \"%.40s\"", where, a->string);
		for (const cJSON *b = obj->child; b != a; b = b->next)
			if (strcmp(a->string, b->string) == 0)
				return fail(err, errlen, "%sduplicate key \"%.40s\"", where,
				            a->string);
	}
	return 0;
}

/* Reads an optional integer member; returns 1 when present and valid, 0
 * when absent, -1 (with err) when not an integer in [min, max]. */
static int get_int(const cJSON *obj, const char *key, int min, int max, int *out, const char *where,
                   char *err, size_t errlen)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	double d;

	if (!it)
		return 0;
	d = it->valuedouble;
	if (!cJSON_IsNumber(it) || d != floor(d) || d < min || d > max)
		return fail(err, errlen, "%s\"%s\" must be an integer from %d to %d", where, key,
		            min, max);
	*out = (int)d;
	return 1;
}

/* Reads an optional face member; same returns as get_int. */
static int get_face(const cJSON *obj, const char *key, int *out, const char *where, char *err,
                    size_t errlen)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	int f;

	if (!it)
		return 0;
	if (!cJSON_IsString(it))
		return fail(err, errlen, "%s\"%s\" must be a face name", where, key);
	f = cdice_face_parse(it->valuestring);
	if (f < 0)
		return fail(err, errlen,
		            "%s\"%s\": unknown face \"%.40s\" (yellow-sign, tentacle, "
		            "elder-sign, cthulhu, eye)",
		            where, key, it->valuestring);
	*out = f;
	return 1;
}

static int parse_setup(const cJSON *root, struct game_setup *setup, char *err, size_t errlen)
{
	static const char *const keys[] = { "game",  "variant", "players", "cultists",
		                            "first", "turns",   NULL };
	const cJSON *game = cJSON_GetObjectItemCaseSensitive(root, "game");
	const cJSON *variant = cJSON_GetObjectItemCaseSensitive(root, "variant");
	int rival = 0, players = 0, cultists = 0, first = 0, rc, seats;

	if (game && !cJSON_IsString(game))
		return fail(err, errlen, "\"game\" must be \"cthulhu-dice\"");
	if (game && strcmp(game->valuestring, "cthulhu-dice") != 0)
		return fail(err, errlen,
		            "\"game\" must be \"cthulhu-dice\": replay plays Cthulhu Dice "
		            "scripts only, not \"%.40s\"",
		            game->valuestring);
	if (check_keys(root, keys, "", err, errlen))
		return -1;
	if (variant) {
		if (!cJSON_IsString(variant))
			return fail(err, errlen, "\"variant\" must be a string");
		if (strcmp(variant->valuestring, "rival-cults") == 0)
			rival = 1;
		else if (strcmp(variant->valuestring, "classic") != 0)
			return fail(err, errlen,
			            "unknown variant \"%.40s\" (classic or rival-cults)",
			            variant->valuestring);
	}
	rc = get_int(root, "players", CDICE_MIN, CDICE_MAX, &players, "", err, errlen);
	if (rc < 0)
		return -1;
	if (rival) {
		if (rc && players != 2)
			return fail(err, errlen, "rival-cults is played by 2 players, not %d",
			            players);
		players = 2;
		rc = get_int(root, "cultists", 2, 3, &cultists, "", err, errlen);
		if (rc <= 0)
			return rc < 0 ? -1
			              : fail(err, errlen, "rival-cults needs \"cultists\": 2 or 3");
		seats = 2 * cultists;
	} else {
		if (!rc)
			return fail(err, errlen, "\"players\" is missing");
		if (cJSON_GetObjectItemCaseSensitive(root, "cultists"))
			return fail(err, errlen, "\"cultists\" is only for rival-cults");
		seats = players;
	}
	if (get_int(root, "first", 0, seats - 1, &first, "", err, errlen) < 0)
		return -1;
	*setup = (struct game_setup){ .players = players, .per_player = cultists, .first = first };
	return 0;
}

static int parse_turn(const cJSON *obj, int n, struct turn *t, char *err, size_t errlen)
{
	static const char *const keys[] = { "victim",   "curse",        "curse_eye",
		                            "response", "response_eye", NULL };
	static const char *const roll[2] = { "curse", "response" };
	static const char *const eye[2] = { "curse_eye", "response_eye" };
	char where[32];
	int rc;

	snprintf(where, sizeof(where), "turn %d: ", n);
	if (!cJSON_IsObject(obj))
		return fail(err, errlen, "%sa turn must be an object", where);
	if (check_keys(obj, keys, where, err, errlen))
		return -1;
	rc = get_int(obj, "victim", 0, CDICE_MAX - 1, &t->victim, where, err, errlen);
	if (rc <= 0)
		return rc < 0 ? -1 : fail(err, errlen, "%s\"victim\" is missing", where);
	for (int i = 0; i < 2; i++) {
		rc = get_face(obj, roll[i], &t->face[i], where, err, errlen);
		if (rc <= 0)
			return rc < 0 ? -1
			              : fail(err, errlen, "%s\"%s\" is missing", where, roll[i]);
		t->eye[i] = -1;
		rc = get_face(obj, eye[i], &t->eye[i], where, err, errlen);
		if (rc < 0)
			return -1;
		if (t->face[i] == CDICE_EYE && !rc)
			return fail(err, errlen, "%s%s is eye but \"%s\" is missing", where,
			            roll[i], eye[i]);
		if (t->face[i] != CDICE_EYE && rc)
			return fail(err, errlen, "%s\"%s\" given but %s is %s, not eye", where,
			            eye[i], roll[i], cdice_face_name((enum cdice_face)t->face[i]));
		if (rc && t->eye[i] == CDICE_EYE)
			return fail(err, errlen, "%s\"%s\": the Eye cannot choose the Eye (R8)",
			            where, eye[i]);
	}
	return 0;
}

/* Applies one parsed turn to g; on error g may be partly changed (the
 * caller works on a copy). */
static int apply_turn(struct cdice *g, int n, const struct turn *t, char *err, size_t errlen)
{
	if (t->victim >= g->n)
		return fail(err, errlen, "turn %d: victim %d is not at the table (seats 0-%d)", n,
		            t->victim, g->n - 1);
	if (t->victim == g->caster)
		return fail(err, errlen, "turn %d: the Caster (seat %d) cannot be the victim", n,
		            t->victim);
	if (g->sanity[t->victim] == 0)
		return fail(err, errlen, "turn %d: victim %d is mad and cannot be chosen (R4)", n,
		            t->victim);
	if (cdice_victim(g, t->victim, NULL) != GAME_OK)
		return fail(err, errlen, "turn %d: victim %d refused", n, t->victim);
	for (int i = 0; i < 2; i++) {
		if (cdice_roll(g, (enum cdice_face)t->face[i], NULL) != GAME_OK)
			return fail(err, errlen, "turn %d: roll refused", n);
		if (t->face[i] == CDICE_EYE && cdice_eye(g, (enum cdice_face)t->eye[i], NULL))
			return fail(err, errlen, "turn %d: eye choice refused", n);
	}
	return 0;
}

static void print_turn(FILE *out, const struct cdice *g, int n, int caster, const struct turn *t)
{
	struct game_result r;
	int first = 1;

	fprintf(out, "{\"turn\":%d,\"caster\":%d,\"victim\":%d,\"curse\":\"%s\",", n, caster,
	        t->victim, cdice_face_name((enum cdice_face)t->face[0]));
	if (t->eye[0] >= 0)
		fprintf(out, "\"curse_eye\":\"%s\",", cdice_face_name((enum cdice_face)t->eye[0]));
	fprintf(out, "\"response\":\"%s\",", cdice_face_name((enum cdice_face)t->face[1]));
	if (t->eye[1] >= 0)
		fprintf(out, "\"response_eye\":\"%s\",",
		        cdice_face_name((enum cdice_face)t->eye[1]));
	fputs("\"sanity\":[", out);
	for (int i = 0; i < g->n; i++)
		fprintf(out, "%s%d", i ? "," : "", g->sanity[i]);
	fprintf(out, "],\"pool\":%d,\"mad\":[", g->pool);
	for (int i = 0; i < g->n; i++) {
		if (g->sanity[i] == 0) {
			fprintf(out, "%s%d", first ? "" : ",", i);
			first = 0;
		}
	}
	fputs("],\"result\":", out);
	cdice_result(g, &r);
	if (!r.over)
		fputs("null", out);
	else if (r.winner < 0)
		fputs("{\"winner\":\"cthulhu\"}", out);
	else if (g->per_player)
		fprintf(out, "{\"winner\":%d,\"player\":%d}", r.winner, r.player);
	else
		fprintf(out, "{\"winner\":%d}", r.winner);
	fputs("}\n", out);
}

int replay_run(const char *text, size_t len, FILE *out, char *err, size_t errlen)
{
	struct game_setup setup;
	struct cdice g;
	const cJSON *turns, *it;
	const char *end = NULL;
	cJSON *root;
	int n = 0, rc = -1;

	err[0] = '\0';
	if (len > REPLAY_MAX_BYTES)
		return fail(err, errlen, "script larger than %u bytes", REPLAY_MAX_BYTES);
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (!root) {
		size_t at = end && end >= text ? (size_t)(end - text) : 0;
		return fail(err, errlen, "malformed JSON near byte %zu", at);
	}
	while ((size_t)(end - text) < len && strchr(" \t\r\n", *end) && *end)
		end++;
	if ((size_t)(end - text) < len) {
		fail(err, errlen, "malformed JSON: trailing characters at byte %zu",
		     (size_t)(end - text));
		goto out;
	}
	if (!cJSON_IsObject(root)) {
		fail(err, errlen, "the script must be a JSON object");
		goto out;
	}
	if (parse_setup(root, &setup, err, errlen))
		goto out;
	if (cdice_init(&g, &setup) != GAME_OK) {
		fail(err, errlen, "invalid table");
		goto out;
	}
	turns = cJSON_GetObjectItemCaseSensitive(root, "turns");
	if (!cJSON_IsArray(turns)) {
		fail(err, errlen, "\"turns\" must be an array");
		goto out;
	}
	cJSON_ArrayForEach(it, turns)
	{
		struct turn t = { 0 };
		struct cdice next = g;

		n++;
		if (g.phase == CDICE_OVER) {
			fail(err, errlen, "turn %d: the game already ended after turn %d", n,
			     n - 1);
			goto out;
		}
		if (parse_turn(it, n, &t, err, errlen) || apply_turn(&next, n, &t, err, errlen))
			goto out;
		print_turn(out, &next, n, g.caster, &t);
		g = next;
	}
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
}

static const char usage[] =
    "Usage: rlyeh replay [FILE|-]\n"
    "Replay a Cthulhu Dice game script (JSON, from FILE or standard input) and print\n"
    "one JSON line per turn: turn, caster, victim, the faces, sanity, pool, mad seats\n"
    "and result (null while the game goes on).\n"
    "\n"
    "Script: {\"variant\":\"classic\",\"players\":3,\"first\":0,\"turns\":[\n"
    "          {\"victim\":1,\"curse\":\"tentacle\",\"response\":\"eye\",\n"
    "           \"response_eye\":\"cthulhu\"}, ...]}\n"
    "Faces: yellow-sign tentacle elder-sign cthulhu eye; an eye carries curse_eye or\n"
    "response_eye. Rival Cults: \"variant\":\"rival-cults\",\"cultists\":2 or 3.\n"
    "\n"
    "Exit status: 0 replayed, 1 script refused (the reason and turn on stderr),\n"
    "2 usage or unreadable input.\n";

/* Reads all of `f` up to REPLAY_MAX_BYTES + 1 bytes into a new buffer the
 * caller frees; NULL on a read or allocation failure. */
static char *slurp(FILE *f, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);

	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0 || n > REPLAY_MAX_BYTES)
			break;
		if (n == cap) {
			char *bigger = realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				return NULL;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	if (buf && ferror(f)) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

int replay_main(int argc, char **argv)
{
	const char *path = NULL;
	char err[256];
	FILE *f = stdin;
	size_t len = 0;
	char *text;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (argv[i][0] == '-' && argv[i][1] != '\0')
			return cli_usage_error("replay", "unknown option '%s'", argv[i]);
		if (path)
			return cli_usage_error("replay", "one script at a time");
		path = argv[i];
	}
	if (path && strcmp(path, "-") != 0) {
		f = fopen(path, "rb");
		if (!f) {
			fprintf(stderr, "rlyeh replay: %s: %s\n", path, strerror(errno));
			return 2;
		}
	}
	text = slurp(f, &len);
	if (f != stdin)
		fclose(f);
	if (!text) {
		fprintf(stderr, "rlyeh replay: cannot read %s\n", path ? path : "standard input");
		return 2;
	}
	rc = replay_run(text, len, stdout, err, sizeof(err));
	free(text);
	fflush(stdout);
	if (rc) {
		fprintf(stderr, "rlyeh replay: %s\n", err);
		return 1;
	}
	return 0;
}
