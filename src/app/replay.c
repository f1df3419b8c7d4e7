#include "rlyeh/replay.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/cdice.h"
#include "rlyeh/cli.h"
#include "rlyeh/ctgame.h"
#include "rlyeh/esigns.h"

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

/* The "turns" array of the script; NULL (with err) when it is not one. */
static const cJSON *get_turns(const cJSON *root, char *err, size_t errlen)
{
	const cJSON *turns = cJSON_GetObjectItemCaseSensitive(root, "turns");

	if (!cJSON_IsArray(turns)) {
		fail(err, errlen, "\"turns\" must be an array");
		return NULL;
	}
	return turns;
}

/* Refuses turn n of a game that ended with the turn before it. */
static int ended(int n, char *err, size_t errlen)
{
	return fail(err, errlen, "turn %d: the game already ended after turn %d", n, n - 1);
}

/* ---- Cthulhu Dice ---- */

struct cd_turn {
	int victim;
	int face[2]; /* curse, response */
	int eye[2];  /* chosen face after an Eye, or -1 */
};

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

static int cd_setup(const cJSON *root, struct game_setup *setup, char *err, size_t errlen)
{
	static const char *const keys[] = { "game",  "variant", "players", "cultists",
		                            "first", "turns",   NULL };
	const cJSON *variant = cJSON_GetObjectItemCaseSensitive(root, "variant");
	int rival = 0, players = 0, cultists = 0, first = 0, rc, seats;

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

static int cd_parse_turn(const cJSON *obj, int n, struct cd_turn *t, char *err, size_t errlen)
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
static int cd_apply_turn(struct cdice *g, int n, const struct cd_turn *t, char *err, size_t errlen)
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

static void cd_print_turn(FILE *out, const struct cdice *g, int n, int caster,
                          const struct cd_turn *t)
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

/* Plays a Cthulhu Dice script. */
static int replay_cdice(const cJSON *root, FILE *out, char *err, size_t errlen)
{
	struct game_setup setup;
	struct cdice g;
	const cJSON *turns, *it;
	int n = 0;

	if (cd_setup(root, &setup, err, errlen))
		return -1;
	if (cdice_init(&g, &setup) != GAME_OK)
		return fail(err, errlen, "invalid table");
	if (!(turns = get_turns(root, err, errlen)))
		return -1;
	cJSON_ArrayForEach(it, turns)
	{
		struct cd_turn t = { 0 };
		struct cdice next = g;

		n++;
		if (g.phase == CDICE_OVER)
			return ended(n, err, errlen);
		if (cd_parse_turn(it, n, &t, err, errlen) ||
		    cd_apply_turn(&next, n, &t, err, errlen))
			return -1;
		cd_print_turn(out, &next, n, g.caster, &t);
		g = next;
	}
	return 0;
}

/* ---- Elder Signs ---- */

/* Throws one turn may hold: more than export can write in one turn (about
 * 35 fit its 4 KiB turn). */
#define ES_MAX_THROWS 64

struct es_throw {
	int refill; /* dice the stash put back before the draws (P1), or -1 */
	int ndraw, nroll;
	uint8_t draw[ESIGNS_HAND]; /* the kinds drawn */
	uint8_t kind[ESIGNS_HAND]; /* the kind and face of each die rolled */
	uint8_t face[ESIGNS_HAND];
};

struct es_turn {
	int seat, round, tiebreak;
	int nthrow;
	int downed; /* the throw (from 1) that downed the seat, 0 when it retreated */
	int points; /* banked, or lost when downed */
	struct es_throw th[ES_MAX_THROWS];
};

/* The script's setup, and the scores and winner it claims (checked once
 * every turn has been played). */
struct es_script {
	struct game_setup setup;
	int has_scores, has_winner, winner;
	int scores[ESIGNS_MAX];
};

static int es_setup(const cJSON *root, struct es_script *sc, char *err, size_t errlen)
{
	static const char *const keys[] = { "game",   "players", "first", "turns",
		                            "scores", "winner",  NULL };
	const cJSON *scores = cJSON_GetObjectItemCaseSensitive(root, "scores"), *it;
	int players = 0, first = 0, rc, s = 0;

	memset(sc, 0, sizeof(*sc));
	if (check_keys(root, keys, "", err, errlen))
		return -1;
	rc = get_int(root, "players", ESIGNS_MIN, ESIGNS_MAX, &players, "", err, errlen);
	if (rc <= 0)
		return rc < 0 ? -1 : fail(err, errlen, "\"players\" is missing");
	if (get_int(root, "first", 0, players - 1, &first, "", err, errlen) < 0)
		return -1;
	sc->setup = (struct game_setup){ .players = players, .first = first };
	if (scores) {
		if (!cJSON_IsArray(scores) || cJSON_GetArraySize(scores) != players)
			return fail(err, errlen, "\"scores\" must list %d scores, one per seat",
			            players);
		cJSON_ArrayForEach(it, scores)
		{
			double d = it->valuedouble;
			if (!cJSON_IsNumber(it) || d != floor(d) || d < 0 || d > INT_MAX)
				return fail(err, errlen, "\"scores\": seat %d: not a score", s);
			sc->scores[s++] = (int)d;
		}
		sc->has_scores = 1;
	}
	rc = get_int(root, "winner", -1, players - 1, &sc->winner, "", err, errlen);
	if (rc < 0)
		return -1;
	sc->has_winner = rc;
	return 0;
}

/* The member `key` of a throw: an array of min to 3 dice. */
static const cJSON *es_dice(const cJSON *obj, const char *key, int min, const char *where,
                            char *err, size_t errlen)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < min ||
	    cJSON_GetArraySize(a) > ESIGNS_HAND) {
		fail(err, errlen, "%s\"%s\" must be an array of %d to %d dice", where, key, min,
		     ESIGNS_HAND);
		return NULL;
	}
	return a;
}

/* Parses the kind name in s[0..n-1]; -1 (with err) when unknown. */
static int es_kind(const char *s, size_t n, const char *where, char *err, size_t errlen)
{
	char name[16];
	int k = -1;

	if (n < sizeof(name)) {
		memcpy(name, s, n);
		name[n] = '\0';
		k = esigns_kind_parse(name);
	}
	if (k < 0)
		fail(err, errlen, "%sunknown kind \"%.*s\" (library, museum, tomb)", where,
		     n > 40 ? 40 : (int)n, s);
	return k;
}

static int es_parse_throw(const cJSON *obj, struct es_throw *t, const char *where, char *err,
                          size_t errlen)
{
	static const char *const keys[] = { "refill", "draw", "roll", NULL };
	const cJSON *draw, *roll, *it;

	if (!cJSON_IsObject(obj))
		return fail(err, errlen, "%sa throw must be an object", where);
	if (check_keys(obj, keys, where, err, errlen))
		return -1;
	t->refill = -1;
	if (get_int(obj, "refill", 0, ESIGNS_DICE, &t->refill, where, err, errlen) < 0)
		return -1;
	draw = es_dice(obj, "draw", 0, where, err, errlen);
	roll = draw ? es_dice(obj, "roll", 1, where, err, errlen) : NULL;
	if (!roll)
		return -1;
	t->ndraw = t->nroll = 0;
	cJSON_ArrayForEach(it, draw)
	{
		int k;

		if (!cJSON_IsString(it))
			return fail(err, errlen, "%s\"draw\" must list kinds, like \"library\"",
			            where);
		k = es_kind(it->valuestring, strlen(it->valuestring), where, err, errlen);
		if (k < 0)
			return -1;
		t->draw[t->ndraw++] = (uint8_t)k;
	}
	cJSON_ArrayForEach(it, roll)
	{
		const char *s = cJSON_IsString(it) ? it->valuestring : NULL;
		const char *colon = s ? strchr(s, ':') : NULL;
		int k, f;

		if (!colon)
			return fail(err, errlen,
			            "%s\"roll\" must list kind:face, like \"library:clue\"", where);
		k = es_kind(s, (size_t)(colon - s), where, err, errlen);
		if (k < 0)
			return -1;
		f = esigns_face_parse(colon + 1);
		if (f < 0)
			return fail(err, errlen,
			            "%sunknown face \"%.40s\" (elder-sign, clue, tentacle)", where,
			            colon + 1);
		t->kind[t->nroll] = (uint8_t)k;
		t->face[t->nroll++] = (uint8_t)f;
	}
	return 0;
}

/* The dice of every kind in one place (esigns_bag, esigns_hand, ...). */
static int es_dice_in(const struct esigns *g, int (*where)(const struct esigns *, enum esigns_kind))
{
	int n = 0;

	for (int k = 0; k < ESIGNS_KINDS; k++)
		n += where(g, (enum esigns_kind)k);
	return n;
}

/* Applies `value` (which the caller has checked against the node); the
 * value of event `kind` in what it caused, -1 when it caused none, -2 when
 * the engine refused it. */
static int es_apply(struct esigns *g, int value, int kind)
{
	struct game_events ev = { 0 };
	int found = -1;

	if (esigns_apply(g, value, &ev) != GAME_OK)
		return -2;
	for (int i = 0; i < ev.n; i++)
		if (ev.ev[i].kind == kind)
			found = ev.ev[i].value;
	return found;
}

/* Throw k (from 0) of turn t: the continue that starts it (k > 0), its
 * draws and its rolls. */
static int es_throw(struct esigns *g, struct es_turn *t, int k, const char *where, char *err,
                    size_t errlen)
{
	struct es_throw *th = &t->th[k];
	int moved = -1, dice;

	if (k > 0) {
		if (t->downed)
			return fail(err, errlen,
			            "%sthe seat was downed in throw %d and cannot continue", where,
			            t->downed);
		moved = es_apply(g, ESIGNS_CONTINUE, ESIGNS_EV_REFILL);
		if (moved < -1)
			return fail(err, errlen, "%sthe seat cannot continue", where);
	}
	if (th->refill >= 0 && th->refill != moved)
		return moved < 0 ? fail(err, errlen,
		                        "%s\"refill\" is %d but no dice went back into the bag",
		                        where, th->refill)
		                 : fail(err, errlen,
		                        "%s\"refill\" is %d but %d dice went back into the bag",
		                        where, th->refill, moved);
	th->refill = moved;
	for (int i = 0; i < th->ndraw; i++) {
		int v = esigns_kind_draw(g, (enum esigns_kind)th->draw[i]);

		if (g->phase != ESIGNS_DRAW)
			return fail(err, errlen, "%sdraw %d: the hand is full (%d dice)", where,
			            i + 1, es_dice_in(g, esigns_hand));
		if (v < 0)
			return fail(err, errlen, "%sdraw %d: the bag holds no %s die", where, i + 1,
			            esigns_kind_name((enum esigns_kind)th->draw[i]));
		es_apply(g, v, -1);
	}
	if (esigns_rolling(g) < 0)
		return fail(err, errlen,
		            "%sthe hand holds %d dice: it draws up to %d before rolling (the "
		            "bag holds %d)",
		            where, es_dice_in(g, esigns_hand), ESIGNS_HAND,
		            es_dice_in(g, esigns_bag));
	dice = es_dice_in(g, esigns_hand);
	if (th->nroll != dice)
		return fail(err, errlen, "%sthe throw rolls %d dice but the hand holds %d", where,
		            th->nroll, dice);
	for (int i = 0; i < th->nroll; i++) {
		enum esigns_kind kind = (enum esigns_kind)esigns_rolling(g);
		int v = esigns_face_die(kind, (enum esigns_face)th->face[i]), lost;

		if (th->kind[i] != kind)
			return fail(err, errlen,
			            "%sroll %d: the next die is a %s die, not a %s die (the hand "
			            "rolls library, museum, tomb dice in that order)",
			            where, i + 1, esigns_kind_name(kind),
			            esigns_kind_name((enum esigns_kind)th->kind[i]));
		if (v < 0)
			return fail(err, errlen, "%sroll %d: a %s die has no %s face", where, i + 1,
			            esigns_kind_name(kind),
			            esigns_face_name((enum esigns_face)th->face[i]));
		lost = es_apply(g, v, ESIGNS_EV_DOWNED);
		if (lost >= 0) {
			t->downed = k + 1;
			t->points = lost;
		}
	}
	return 0;
}

/* How turn t ended: "retreat" applies the retreat, "downed" must be what
 * happened; "banked", "score" and "lost", when given, must match. */
static int es_end(struct esigns *g, const cJSON *obj, struct es_turn *t, const char *where,
                  char *err, size_t errlen)
{
	const cJSON *end = cJSON_GetObjectItemCaseSensitive(obj, "end");
	int retreat, banked = 0, score = 0, lost = 0, has[3];

	if (!cJSON_IsString(end) ||
	    (strcmp(end->valuestring, "retreat") != 0 && strcmp(end->valuestring, "downed") != 0))
		return fail(err, errlen, "%s\"end\" must be \"retreat\" or \"downed\"", where);
	retreat = end->valuestring[0] == 'r';
	if ((has[0] = get_int(obj, "banked", 0, INT_MAX, &banked, where, err, errlen)) < 0 ||
	    (has[1] = get_int(obj, "score", 0, INT_MAX, &score, where, err, errlen)) < 0 ||
	    (has[2] = get_int(obj, "lost", 0, INT_MAX, &lost, where, err, errlen)) < 0)
		return -1;
	if (retreat && has[2])
		return fail(err, errlen, "%s\"lost\" is for a downed turn", where);
	if (!retreat && (has[0] || has[1]))
		return fail(err, errlen, "%s\"%s\" is for a retreat", where,
		            has[0] ? "banked" : "score");
	if (retreat && t->downed)
		return fail(err, errlen, "%s\"end\" is retreat but the seat was downed in throw %d",
		            where, t->downed);
	if (!retreat && !t->downed)
		return fail(err, errlen,
		            "%s\"end\" is downed but the seat was not (%d Tentacles): it retreats "
		            "or continues",
		            where, es_dice_in(g, esigns_pile));
	if (retreat)
		t->points = es_apply(g, ESIGNS_RETREAT, ESIGNS_EV_BANK);
	if (retreat && has[0] && banked != t->points)
		return fail(err, errlen, "%s\"banked\" is %d but the seat banks %d", where, banked,
		            t->points);
	if (retreat && has[1] && score != esigns_score(g, t->seat))
		return fail(err, errlen, "%s\"score\" is %d but the seat has %ld", where, score,
		            esigns_score(g, t->seat));
	if (!retreat && has[2] && lost != t->points)
		return fail(err, errlen, "%s\"lost\" is %d but the seat loses %d", where, lost,
		            t->points);
	return 0;
}

/* Parses turn n and plays it on g. */
static int es_turn(struct esigns *g, const cJSON *obj, int n, struct es_turn *t, char *err,
                   size_t errlen)
{
	static const char *const keys[] = { "seat",   "round", "throws", "end",
		                            "banked", "score", "lost",   NULL };
	const cJSON *throws, *it;
	char where[48];
	int round = 0, rc;

	snprintf(where, sizeof(where), "turn %d: ", n);
	if (!cJSON_IsObject(obj))
		return fail(err, errlen, "%sa turn must be an object", where);
	if (check_keys(obj, keys, where, err, errlen))
		return -1;
	rc = get_int(obj, "seat", 0, g->n - 1, &t->seat, where, err, errlen);
	if (rc <= 0)
		return rc < 0 ? -1 : fail(err, errlen, "%s\"seat\" is missing", where);
	if (t->seat != esigns_turn_seat(g))
		return fail(err, errlen, "%sit is seat %d's turn, not seat %d's%s", where,
		            esigns_turn_seat(g), t->seat,
		            esigns_in(g, t->seat) ? "" : " (it no longer plays)");
	t->round = esigns_round(g);
	t->tiebreak = esigns_tiebreak(g);
	rc = get_int(obj, "round", 1, INT_MAX, &round, where, err, errlen);
	if (rc < 0)
		return -1;
	if (rc && round != t->round)
		return fail(err, errlen, "%s\"round\" is %d but round %d is being played", where,
		            round, t->round);
	throws = cJSON_GetObjectItemCaseSensitive(obj, "throws");
	if (!cJSON_IsArray(throws) || !throws->child || cJSON_GetArraySize(throws) > ES_MAX_THROWS)
		return fail(err, errlen, "%s\"throws\" must be an array of 1 to %d throws", where,
		            ES_MAX_THROWS);
	t->nthrow = 0;
	t->downed = 0;
	cJSON_ArrayForEach(it, throws)
	{
		char at[64];

		snprintf(at, sizeof(at), "turn %d, throw %d: ", n, t->nthrow + 1);
		if (es_parse_throw(it, &t->th[t->nthrow], at, err, errlen) ||
		    es_throw(g, t, t->nthrow, at, err, errlen))
			return -1;
		t->nthrow++;
	}
	return es_end(g, obj, t, where, err, errlen);
}

static void es_print_turn(FILE *out, const struct esigns *g, int n, const struct es_turn *t)
{
	struct game_result r;
	int first = 1;

	fprintf(out, "{\"turn\":%d,\"seat\":%d,\"round\":%d,", n, t->seat, t->round);
	if (t->tiebreak)
		fprintf(out, "\"tiebreak\":%d,", t->tiebreak);
	fputs("\"throws\":[", out);
	for (int k = 0; k < t->nthrow; k++) {
		const struct es_throw *th = &t->th[k];

		fputs(k ? ",{" : "{", out);
		if (th->refill >= 0)
			fprintf(out, "\"refill\":%d,", th->refill);
		fputs("\"draw\":[", out);
		for (int i = 0; i < th->ndraw; i++)
			fprintf(out, "%s\"%s\"", i ? "," : "",
			        esigns_kind_name((enum esigns_kind)th->draw[i]));
		fputs("],\"roll\":[", out);
		for (int i = 0; i < th->nroll; i++)
			fprintf(out, "%s\"%s:%s\"", i ? "," : "",
			        esigns_kind_name((enum esigns_kind)th->kind[i]),
			        esigns_face_name((enum esigns_face)th->face[i]));
		fputs("]}", out);
	}
	if (t->downed)
		fprintf(out, "],\"end\":\"downed\",\"lost\":%d,\"scores\":[", t->points);
	else
		fprintf(out, "],\"end\":\"retreat\",\"banked\":%d,\"score\":%ld,\"scores\":[",
		        t->points, esigns_score(g, t->seat));
	for (int s = 0; s < g->n; s++)
		fprintf(out, "%s%ld", s ? "," : "", esigns_score(g, s));
	fputs("],\"out\":[", out);
	for (int s = 0; s < g->n; s++) {
		if (!esigns_in(g, s)) {
			fprintf(out, "%s%d", first ? "" : ",", s);
			first = 0;
		}
	}
	esigns_result(g, &r);
	if (r.over)
		fprintf(out, "],\"result\":{\"winner\":%d}}\n", r.winner);
	else
		fputs("],\"result\":null}\n", out);
}

/* The "scores" and "winner" the script claims against the game played. */
static int es_check_result(const struct esigns *g, const struct es_script *sc, char *err,
                           size_t errlen)
{
	struct game_result r;

	esigns_result(g, &r);
	for (int s = 0; sc->has_scores && s < g->n; s++)
		if (sc->scores[s] != esigns_score(g, s))
			return fail(err, errlen,
			            "\"scores\": seat %d has %ld after the turns, not %d", s,
			            esigns_score(g, s), sc->scores[s]);
	if (sc->has_winner && sc->winner != r.winner)
		return r.over ? fail(err, errlen, "\"winner\" is %d but seat %d won", sc->winner,
		                     r.winner)
		              : fail(err, errlen, "\"winner\" is %d but the game is not over (-1)",
		                     sc->winner);
	return 0;
}

/* Plays an Elder Signs script. */
static int replay_esigns(const cJSON *root, FILE *out, char *err, size_t errlen)
{
	struct es_script sc;
	struct esigns g;
	struct es_turn t = { 0 };
	const cJSON *turns, *it;
	int n = 0;

	if (es_setup(root, &sc, err, errlen))
		return -1;
	if (esigns_init(&g, &sc.setup) != GAME_OK)
		return fail(err, errlen, "invalid table");
	if (!(turns = get_turns(root, err, errlen)))
		return -1;
	cJSON_ArrayForEach(it, turns)
	{
		struct esigns next = g;

		n++;
		if (g.phase == ESIGNS_OVER)
			return ended(n, err, errlen);
		if (es_turn(&next, it, n, &t, err, errlen))
			return -1;
		es_print_turn(out, &next, n, &t);
		g = next;
	}
	return es_check_result(&g, &sc, err, errlen);
}

/* ---- CTHULHU!!! ---- */

/* The largest round cap ctgame_init takes (C19). */
#define CT_CAP_MAX 10000

/* Names of the ends (enum ctgame_end), as scripts and lines write them. */
static const char *const ct_ends[] = { "playing", "saved", "summoned", "nobody", "capped" };

/* Names of the chance nodes (enum ctgame_roll) and of the choice nodes
 * (enum ctgame_ask from CA_AUTOMATIC), for the messages of a refusal. */
static const char *const ct_rolls[] = { "dealer draw", "die roll", "tile draw", "card draw",
	                                "relic draw" };
static const char *const ct_asks[] = { "automatic card", "play point",  "tile placement",
	                               "site removal",   "tokens",      "site byakhee",
	                               "weapon",         "failed roll", "move",
	                               "figure",         "destination", "re-seeding",
	                               "relic loss",     "discard",     "target",
	                               "square",         "relic taking" };

_Static_assert(sizeof(ct_ends) / sizeof(ct_ends[0]) == CE_CAPPED + 1, "an end without a name");

const char *replay_cthulhu_end(int end)
{
	return end >= 0 && end <= CE_CAPPED ? ct_ends[end] : "?";
}
_Static_assert(sizeof(ct_rolls) / sizeof(ct_rolls[0]) == CTGAME_ROLL_RELIC + 1,
               "a chance node without a name");
_Static_assert(sizeof(ct_asks) / sizeof(ct_asks[0]) == CA_RELIC_TAKE - CA_AUTOMATIC + 1,
               "a decision without a name");

/* The setup a script gives and what it claims about the end; has_* 0 when
 * a claim is not given. */
struct ct_script {
	struct game_setup setup;
	int has_end, end;
	int has_winners, winners; /* bitmask of seats */
	int has_winner, winner;
	int has_vp, vp[CTGAME_MAX];
};

/* Completed turns still to print: the seat and round of the turns started
 * (by CV_TURN), in a ring indexed by turn number. One move ends at most a
 * few turns, far fewer than the ring holds. */
#define CT_RING 16

struct ct_turns {
	int started, printed; /* turns started, turn lines written */
	int seat[CT_RING], round[CT_RING];
};

/* Reads `key`, an optional array of seats, into a bitmask; same returns as
 * get_int. */
static int ct_seats(const cJSON *root, const char *key, int players, int *mask, char *err,
                    size_t errlen)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key), *it;

	if (!a)
		return 0;
	if (!cJSON_IsArray(a))
		return fail(err, errlen, "\"%s\" must be an array of seats", key);
	*mask = 0;
	cJSON_ArrayForEach(it, a)
	{
		double d = it->valuedouble;
		if (!cJSON_IsNumber(it) || d != floor(d) || d < 0 || d >= players)
			return fail(err, errlen, "\"%s\" must list seats from 0 to %d", key,
			            players - 1);
		if (*mask >> (int)d & 1)
			return fail(err, errlen, "\"%s\" lists seat %d twice", key, (int)d);
		*mask |= 1 << (int)d;
	}
	return 1;
}

/* Reads the setup and the claimed result of a CTHULHU!!! script. */
static int ct_setup(const cJSON *root, struct ct_script *sc, char *err, size_t errlen)
{
	static const char *const keys[] = { "game", "players", "cap",    "revision", "moves",
		                            "end",  "winners", "winner", "vp",       NULL };
	const cJSON *end = cJSON_GetObjectItemCaseSensitive(root, "end");
	const cJSON *vp = cJSON_GetObjectItemCaseSensitive(root, "vp"), *it;
	int players = 0, cap = 0, revision = 0, rc, s = 0;

	memset(sc, 0, sizeof(*sc));
	if (check_keys(root, keys, "", err, errlen))
		return -1;
	rc = get_int(root, "players", CTGAME_MIN, CTGAME_MAX, &players, "", err, errlen);
	if (rc <= 0)
		return rc < 0 ? -1 : fail(err, errlen, "\"players\" is missing");
	if (get_int(root, "cap", 0, CT_CAP_MAX, &cap, "", err, errlen) < 0)
		return -1;
	/* C14: a game begun under secret hands says so; older ones do not */
	if (get_int(root, "revision", 0, CTGAME_REV_SECRET, &revision, "", err, errlen) < 0)
		return -1;
	sc->setup = (struct game_setup){ .players = players, .rounds = cap, .revision = revision };
	if (end) {
		sc->end = -1;
		for (int e = 0; cJSON_IsString(end) && e <= CE_CAPPED; e++)
			if (strcmp(end->valuestring, ct_ends[e]) == 0)
				sc->end = e;
		if (sc->end < 0)
			return fail(err, errlen,
			            "\"end\" must be \"playing\", \"saved\", \"summoned\", "
			            "\"nobody\" or \"capped\"");
		sc->has_end = 1;
	}
	rc = ct_seats(root, "winners", players, &sc->winners, err, errlen);
	if (rc < 0)
		return -1;
	sc->has_winners = rc;
	rc = get_int(root, "winner", -1, players - 1, &sc->winner, "", err, errlen);
	if (rc < 0)
		return -1;
	sc->has_winner = rc;
	if (vp) {
		if (!cJSON_IsArray(vp) || cJSON_GetArraySize(vp) != players)
			return fail(err, errlen, "\"vp\" must list %d victory points, one per seat",
			            players);
		cJSON_ArrayForEach(it, vp)
		{
			double d = it->valuedouble;
			if (!cJSON_IsNumber(it) || d != floor(d) || d < 0 || d > INT_MAX)
				return fail(err, errlen, "\"vp\": seat %d: not a number of points",
				            s);
			sc->vp[s++] = (int)d;
		}
		sc->has_vp = 1;
	}
	return 0;
}

/* Writes the seats of bitmask `mask` as a JSON array to buf (room for
 * every seat: 16 bytes). */
static void ct_mask_text(int mask, char *buf, size_t cap)
{
	size_t n = 0;

	n += (size_t)snprintf(buf, cap, "[");
	for (int s = 0; s < CTGAME_MAX && n < cap; s++)
		if (mask >> s & 1)
			n += (size_t)snprintf(buf + n, cap - n, "%s%d", n > 1 ? "," : "", s);
	if (n < cap)
		snprintf(buf + n, cap - n, "]");
}

/* The state part of a line: VP per seat, the seats out, sites sanctified
 * and activated, and the result (null while the game goes on). */
static void ct_print_state(FILE *out, const struct ctgame *g)
{
	struct game_result r;
	char winners[16];
	int first = 1;

	fputs("\"vp\":[", out);
	for (int s = 0; s < g->n; s++)
		fprintf(out, "%s%d", s ? "," : "", ctgame_vp(g, s));
	fputs("],\"out\":[", out);
	for (int s = 0; s < g->n; s++) {
		if (g->p[s].out) {
			fprintf(out, "%s%d", first ? "" : ",", s);
			first = 0;
		}
	}
	fprintf(out, "],\"sanctified\":%d,\"activated\":%d,\"result\":", g->sanctified,
	        g->activated);
	ctgame_result(g, &r);
	if (!r.over) {
		fputs("null}\n", out);
		return;
	}
	ct_mask_text(g->winners, winners, sizeof(winners));
	fprintf(out, "{\"end\":\"%s\",\"winners\":%s,\"winner\":%d}}\n", ct_ends[g->end], winners,
	        r.winner);
}

/* Notes the turns the events started, and writes a line for every turn
 * completed by now (the state after the move that completed it). */
static void ct_turn_lines(FILE *out, const struct ctgame *g, const struct game_events *ev,
                          struct ct_turns *t, int moves)
{
	for (int i = 0; i < ev->n; i++) {
		if (ev->ev[i].kind != CV_TURN)
			continue;
		t->seat[t->started % CT_RING] = ev->ev[i].seat;
		t->round[t->started % CT_RING] = ev->ev[i].target;
		t->started++;
	}
	while (t->printed < (int)g->turns && t->printed < t->started) {
		int k = t->printed++ % CT_RING;
		fprintf(out, "{\"turn\":%d,\"seat\":%d,\"round\":%d,\"moves\":%d,", t->printed,
		        t->seat[k], t->round[k], moves);
		ct_print_state(out, g);
	}
}

/* Describes the node g waits at, for a refusal: "seat 1's move (3
 * options, 0-2)". */
static void ct_node_text(const struct ctgame *g, char *buf, size_t cap)
{
	struct game_step st;

	ctgame_step(g, &st);
	if (st.node == GAME_NODE_CHANCE)
		snprintf(buf, cap, "the %s (%d values, 0-%d)",
		         st.kind >= 0 && st.kind <= CTGAME_ROLL_RELIC ? ct_rolls[st.kind] : "draw",
		         st.count, st.count - 1);
	else if (st.node == GAME_NODE_CHOICE)
		snprintf(buf, cap, "seat %d's %s (%d options, 0-%d)", st.seat,
		         st.kind >= CA_AUTOMATIC && st.kind <= CA_RELIC_TAKE
		             ? ct_asks[st.kind - CA_AUTOMATIC]
		             : "choice",
		         st.count, st.count - 1);
	else
		snprintf(buf, cap, "the end");
}

/* Applies move n (an engine value, or {"leave":seat}) to g. */
static int ct_move(struct ctgame *g, const cJSON *it, int n, struct game_events *ev, char *err,
                   size_t errlen)
{
	static const char *const keys[] = { "leave", NULL };
	char where[32], node[96];
	double d = it->valuedouble;
	int rc, seat = 0;

	snprintf(where, sizeof(where), "move %d: ", n);
	ev->n = 0;
	if (g->end != CE_PLAYING)
		return fail(err, errlen, "%sthe game already ended (%s) after move %d", where,
		            ct_ends[g->end], n - 1);
	if (cJSON_IsObject(it)) {
		if (check_keys(it, keys, where, err, errlen))
			return -1;
		rc = get_int(it, "leave", 0, g->n - 1, &seat, where, err, errlen);
		if (rc <= 0)
			return rc < 0 ? -1 : fail(err, errlen, "%s\"leave\" is missing", where);
		rc = ctgame_leave(g, seat, ev);
		if (rc == GAME_EPHASE)
			return fail(err, errlen, "%sseat %d cannot leave before the deal is done",
			            where, seat);
		if (rc != GAME_OK)
			return fail(err, errlen, "%sseat %d cannot leave: it is out of the game",
			            where, seat);
		return 0;
	}
	if (!cJSON_IsNumber(it) || d != floor(d) || d < INT_MIN || d > INT_MAX)
		return fail(err, errlen, "%sa move must be a whole number or {\"leave\":seat}",
		            where);
	ct_node_text(g, node, sizeof(node));
	rc = ctgame_apply(g, (int)d, ev);
	if (rc != GAME_OK)
		return fail(err, errlen, "%svalue %d refused at %s: %s", where, (int)d, node,
		            game_strerror(rc));
	return 0;
}

/* The end, winners, winner and VP the script claims against the game
 * played. */
static int ct_check_result(const struct ctgame *g, const struct ct_script *sc, char *err,
                           size_t errlen)
{
	struct game_result r;
	char a[16], b[16];

	ctgame_result(g, &r);
	if (sc->has_end && sc->end != g->end)
		return fail(err, errlen, "\"end\" is \"%s\" but the game %s \"%s\"",
		            ct_ends[sc->end], r.over ? "ended" : "is", ct_ends[g->end]);
	if (sc->has_winners && sc->winners != g->winners) {
		ct_mask_text(sc->winners, a, sizeof(a));
		ct_mask_text(g->winners, b, sizeof(b));
		return fail(err, errlen, "\"winners\" are %s but the winners are %s%s", a, b,
		            r.over ? "" : " (the game is not over)");
	}
	if (sc->has_winner && !r.over)
		return fail(err, errlen, "\"winner\" is %d but the game is not over", sc->winner);
	if (sc->has_winner && sc->winner != r.winner)
		return fail(err, errlen, "\"winner\" is %d but the game gives %d", sc->winner,
		            r.winner);
	for (int s = 0; sc->has_vp && s < g->n; s++)
		if (sc->vp[s] != ctgame_vp(g, s))
			return fail(err, errlen, "\"vp\": seat %d has %d, not %d", s,
			            ctgame_vp(g, s), sc->vp[s]);
	return 0;
}

/* Plays a CTHULHU!!! script: every move, the invariants after each, a line
 * per completed turn, then the claimed result checked and the final line. */
static int replay_cthulhu(const cJSON *root, FILE *out, char *err, size_t errlen)
{
	const cJSON *moves = cJSON_GetObjectItemCaseSensitive(root, "moves"), *it;
	struct ct_turns turns = { 0 };
	struct game_events ev;
	struct ct_script sc;
	struct ctgame g;
	char why[256];
	int n = 0, broken;

	if (ct_setup(root, &sc, err, errlen))
		return -1;
	if (!cJSON_IsArray(moves))
		return fail(err, errlen, "\"moves\" must be an array");
	if (ctgame_init(&g, &sc.setup) != GAME_OK)
		return fail(err, errlen, "invalid table");
	cJSON_ArrayForEach(it, moves)
	{
		n++;
		if (ct_move(&g, it, n, &ev, err, errlen))
			return -1;
		broken = ctgame_check(&g, why, sizeof(why));
		if (broken)
			return fail(err, errlen, "move %d: invariant %d broken: %s", n, broken,
			            why);
		ct_turn_lines(out, &g, &ev, &turns, n);
	}
	if (ct_check_result(&g, &sc, err, errlen))
		return -1;
	fprintf(out, "{\"moves\":%d,\"turns\":%u,\"round\":%d,\"seat\":%d,", n, (unsigned)g.turns,
	        g.round, g.seat);
	ct_print_state(out, &g);
	return 0;
}

int replay_run(const char *text, size_t len, FILE *out, char *err, size_t errlen)
{
	const char *end = NULL;
	const cJSON *game;
	cJSON *root;
	int rc = -1;

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
	game = cJSON_GetObjectItemCaseSensitive(root, "game");
	if (!game || (cJSON_IsString(game) && strcmp(game->valuestring, cdice_ops.name) == 0))
		rc = replay_cdice(root, out, err, errlen);
	else if (cJSON_IsString(game) && strcmp(game->valuestring, esigns_ops.name) == 0)
		rc = replay_esigns(root, out, err, errlen);
	else if (cJSON_IsString(game) && strcmp(game->valuestring, ctgame_ops.name) == 0)
		rc = replay_cthulhu(root, out, err, errlen);
	else if (cJSON_IsString(game))
		fail(err, errlen,
		     "\"game\" must be \"cthulhu-dice\", \"elder-signs\" or \"cthulhu\", not "
		     "\"%.40s\"",
		     game->valuestring);
	else
		fail(err, errlen,
		     "\"game\" must be \"cthulhu-dice\", \"elder-signs\" or \"cthulhu\"");
out:
	cJSON_Delete(root);
	return rc;
}

static const char usage[] =
    "Usage: rlyeh replay [FILE|-]\n"
    "Replay a game script (JSON, from FILE or standard input) and print one JSON\n"
    "line per turn with the state after it and the result (null while the game\n"
    "goes on).\n"
    "\n"
    "Cthulhu Dice: {\"variant\":\"classic\",\"players\":3,\"first\":0,\"turns\":[\n"
    "          {\"victim\":1,\"curse\":\"tentacle\",\"response\":\"eye\",\n"
    "           \"response_eye\":\"cthulhu\"}, ...]}\n"
    "Faces: yellow-sign tentacle elder-sign cthulhu eye; an eye carries curse_eye or\n"
    "response_eye. Rival Cults: \"variant\":\"rival-cults\",\"cultists\":2 or 3.\n"
    "\n"
    "Elder Signs (as rlyeh export writes it): {\"game\":\"elder-signs\",\"players\":3,\n"
    "  \"first\":0,\"turns\":[{\"seat\":0,\"throws\":[{\"draw\":[\"library\",\"tomb\",\n"
    "  \"museum\"],\"roll\":[\"library:elder-sign\",\"museum:clue\",\"tomb:tentacle\"]},\n"
    "  ...],\"end\":\"retreat\"}, ...]}\n"
    "Kinds: library museum tomb; faces: elder-sign clue tentacle. Each throw after\n"
    "the first continues the turn; \"end\" is \"retreat\" or \"downed\". round, refill,\n"
    "banked, score, lost, scores and winner are checked when given.\n"
    "\n"
    "CTHULHU!!! (as rlyeh export writes it): {\"game\":\"cthulhu\",\"players\":3,\"cap\":0,\n"
    "  \"moves\":[2,0,4,1,{\"leave\":1},...],\"end\":\"saved\",\"winners\":[0],\n"
    "  \"winner\":0,\"vp\":[9,4,0]}\n"
    "A move is the engine value applied (a chance value, or the index of an option\n"
    "at a decision) or a seat leaving. The invariants are checked after every move;\n"
    "one line per completed turn, then a last line with the result (end: saved,\n"
    "summoned, nobody or capped). end (or playing), winners, winner and vp are\n"
    "checked when given.\n"
    "\n"
    "Exit status: 0 replayed, 1 script refused (the reason and the turn or move on\n"
    "stderr),\n"
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
