#include "rlyeh/export.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "rlyeh/cdice.h"
#include "rlyeh/cli.h"
#include "rlyeh/ctgame.h"
#include "rlyeh/ctplay.h"
#include "rlyeh/esigns.h"
#include "rlyeh/replay.h"
#include "rlyeh/text.h"

struct job {
	FILE *f;
	char *err;
	size_t errlen;
	int rc;
};

/* Rebuilds a Cthulhu Dice game from its log and prints its complete turns. */
static int write_cdice(struct job *j, const struct store_loaded *g)
{
	const struct store_game *row = g->game;
	struct game_setup setup = { .players = row->per_player ? 2 : g->nmembers,
		                    .per_player = row->per_player,
		                    .first = row->first < 0 ? 0 : row->first };
	struct cdice s;
	char turn[256], turns[1 << 16];
	struct text all, one;
	int nturns = 0;

	if (row->first >= 0 && cdice_init(&s, &setup) != GAME_OK) {
		snprintf(j->err, j->errlen, "game %lld: bad setup", (long long)row->id);
		return 0;
	}
	text_init(&all, turns, sizeof(turns));
	text_init(&one, turn, sizeof(turn));
	for (int i = 0; row->first >= 0 && i < g->nevents; i++) {
		const struct store_event *e = &g->events[i];
		int phase = s.phase;

		if (strcmp(e->kind, "roll") != 0 && strcmp(e->kind, "choice") != 0)
			continue;
		if (cdice_apply(&s, e->value, NULL) != GAME_OK) {
			snprintf(j->err, j->errlen, "game %lld: event %lld does not apply",
			         (long long)row->id, (long long)e->seq);
			return 0;
		}
		switch (phase) {
		case CDICE_VICTIM:
			text_init(&one, turn, sizeof(turn));
			text_addf(&one, "{\"victim\":%d", e->value);
			break;
		case CDICE_CURSE:
			text_addf(&one, ",\"curse\":\"%s\"",
			          cdice_face_name(cdice_die_face(e->value)));
			break;
		case CDICE_CURSE_EYE:
			text_addf(&one, ",\"curse_eye\":\"%s\"", cdice_face_name(e->value));
			break;
		case CDICE_RESPONSE:
			text_addf(&one, ",\"response\":\"%s\"",
			          cdice_face_name(cdice_die_face(e->value)));
			break;
		default:
			text_addf(&one, ",\"response_eye\":\"%s\"", cdice_face_name(e->value));
			break;
		}
		if (s.phase == CDICE_VICTIM || s.phase == CDICE_OVER) {
			text_add(&all, nturns++ ? ",\n  " : "\n  ");
			text_add(&all, turn);
			text_add(&all, "}");
		}
	}
	if (all.truncated) {
		snprintf(j->err, j->errlen, "game %lld is too long to export", (long long)row->id);
		return 0;
	}
	fprintf(j->f, "{\"game\":\"cthulhu-dice\",");
	if (row->per_player)
		fprintf(j->f, "\"variant\":\"rival-cults\",\"cultists\":%d,", row->per_player);
	else
		fprintf(j->f, "\"variant\":\"classic\",\"players\":%d,", g->nmembers);
	fprintf(j->f, "\"first\":%d,\"turns\":[%s%s]}\n", row->first < 0 ? 0 : row->first, turns,
	        nturns ? "\n" : "");
	j->rc = 0;
	return 0;
}

/* One Elder Signs event in the turn being written: throws of draws and
 * rolls, and how the turn ended. `open` is 0 at the start of the turn, -1
 * after a throw, 3 in an empty draw list, 1 in a draw list, 2 in a roll
 * list. Returns 1 when the event ends the turn. */
static int es_event(struct text *one, const struct game_event *e, int *open)
{
	const char *kind = esigns_kind_name((enum esigns_kind)e->target);

	if (*open <= 0 && (e->kind == ESIGNS_EV_DRAW || e->kind == ESIGNS_EV_ROLL ||
	                   e->kind == ESIGNS_EV_REFILL)) {
		text_add(one, *open < 0 ? ",{" : "{");
		if (e->kind == ESIGNS_EV_REFILL)
			text_addf(one, "\"refill\":%d,", e->value);
		text_add(one, "\"draw\":[");
		*open = 3;
	}
	switch (e->kind) {
	case ESIGNS_EV_TURN:
		text_addf(one, "{\"seat\":%d,\"round\":%d,\"throws\":[", e->seat, e->target);
		*open = 0;
		return 0;
	case ESIGNS_EV_DRAW:
		text_addf(one, "%s\"%s\"", *open == 1 ? "," : "", kind);
		*open = 1;
		return 0;
	case ESIGNS_EV_ROLL:
		text_addf(one, "%s\"%s:%s\"", *open == 2 ? "," : "],\"roll\":[", kind,
		          esigns_face_name((enum esigns_face)e->value));
		*open = 2;
		return 0;
	case ESIGNS_EV_CONTINUE:
		text_add(one, "]}");
		*open = -1;
		return 0;
	case ESIGNS_EV_DOWNED:
		text_addf(one, "]}],\"end\":\"downed\",\"lost\":%d}", e->value);
		return 1;
	case ESIGNS_EV_BANK:
		text_addf(one, "]}],\"end\":\"retreat\",\"banked\":%d,\"score\":%d}", e->value,
		          e->target);
		return 1;
	default:
		return 0;
	}
}

/* Rebuilds an Elder Signs game from its log and prints its complete
 * turns: per turn the seat, its throws (the kinds drawn, then each die's
 * kind and face) and how it ended; then the scores. */
static int write_esigns(struct job *j, const struct store_loaded *g)
{
	const struct store_game *row = g->game;
	struct game_setup setup = { .players = g->nmembers,
		                    .first = row->first < 0 ? 0 : row->first };
	struct game_events ev;
	struct esigns s;
	char turn[4096], turns[1 << 16];
	struct text all, one;
	int nturns = 0, open = 0, started = row->first >= 0;

	if (started && esigns_init(&s, &setup) != GAME_OK) {
		snprintf(j->err, j->errlen, "game %lld: bad setup", (long long)row->id);
		return 0;
	}
	text_init(&all, turns, sizeof(turns));
	text_init(&one, turn, sizeof(turn));
	for (int i = 0; started && i < g->nevents; i++) {
		const struct store_event *e = &g->events[i];

		if (strcmp(e->kind, "roll") != 0 && strcmp(e->kind, "choice") != 0)
			continue;
		ev.n = 0;
		if (esigns_apply(&s, e->value, &ev) != GAME_OK) {
			snprintf(j->err, j->errlen, "game %lld: event %lld does not apply",
			         (long long)row->id, (long long)e->seq);
			return 0;
		}
		for (int k = 0; k < ev.n; k++) {
			if (ev.ev[k].kind == ESIGNS_EV_TURN)
				text_init(&one, turn, sizeof(turn));
			if (es_event(&one, &ev.ev[k], &open)) {
				text_add(&all, nturns++ ? ",\n  " : "\n  ");
				text_add(&all, turn);
			}
		}
	}
	if (all.truncated || one.truncated) {
		snprintf(j->err, j->errlen, "game %lld is too long to export", (long long)row->id);
		return 0;
	}
	fprintf(j->f, "{\"game\":\"elder-signs\",\"players\":%d,\"first\":%d,\"turns\":[%s%s],",
	        g->nmembers, setup.first, turns, nturns ? "\n" : "");
	fprintf(j->f, "\"scores\":[");
	for (int p = 0; p < g->nmembers; p++)
		fprintf(j->f, "%s%ld", p ? "," : "", started ? esigns_score(&s, p) : 0L);
	fprintf(j->f, "],\"winner\":%d}\n", started ? s.winner : -1);
	j->rc = 0;
	return 0;
}

/* Plays the moves of a started CTHULHU!!! game's log on g (already set
 * up); with f, writes them as the items of the "moves" array, a line per
 * completed turn. Returns the moves applied, or -1 (with err) when one
 * does not apply. */
static int ct_moves(struct job *j, const struct store_loaded *g, struct ctgame *s, FILE *f)
{
	struct game_events ev;
	int n = 0, brk = 0; /* brk: the last move written completed a turn */

	for (int i = 0; i < g->nevents; i++) {
		const struct store_event *e = &g->events[i];
		uint32_t turns = s->turns;
		int rc = play_log_apply(&ctplay, s, e, &ev);

		if (rc < 0) {
			snprintf(j->err, j->errlen, "game %lld: event %lld does not apply",
			         (long long)g->game->id, (long long)e->seq);
			return -1;
		}
		if (!rc)
			continue;
		if (f && n)
			fputs(brk ? ",\n  " : ",", f);
		if (f && strcmp(e->kind, "leave") == 0)
			fprintf(f, "{\"leave\":%d}", e->value);
		else if (f)
			fprintf(f, "%d", e->value);
		brk = s->turns != turns;
		n++;
	}
	return n;
}

/* Writes a CTHULHU!!! game: the table (players, the round cap of its
 * settings), every move of its log, and once started the end, winners and
 * VP the moves lead to; "winner" is the store's, for a finished game. The
 * log is played once to check it before anything is written. */
static int write_cthulhu(struct job *j, const struct store_loaded *g)
{
	const struct store_game *row = g->game;
	struct ctplay_settings set;
	struct game_setup setup;
	struct ctgame s;
	int started = row->first >= 0, n = 0;

	ctplay_settings(row->per_player, &set);
	setup = (struct game_setup){ .players = g->nmembers,
		                     .rounds = set.cap,
		                     .revision = row->revision };
	if (started && ctgame_init(&s, &setup) != GAME_OK) {
		snprintf(j->err, j->errlen, "game %lld: bad setup", (long long)row->id);
		return 0;
	}
	if (started && (n = ct_moves(j, g, &s, NULL)) < 0)
		return 0;
	if (n != (started ? row->moves : 0)) {
		snprintf(j->err, j->errlen, "game %lld: %d moves logged, %d expected",
		         (long long)row->id, n, row->moves);
		return 0;
	}
	fprintf(j->f, "{\"game\":\"cthulhu\",\"players\":%d,\"cap\":%d,", g->nmembers, set.cap);
	if (setup.revision)
		fprintf(j->f, "\"revision\":%d,", setup.revision);
	fprintf(j->f, "\"moves\":[%s", n ? "\n  " : "");
	if (started) {
		ctgame_init(&s, &setup);
		ct_moves(j, g, &s, j->f);
	}
	fprintf(j->f, "%s]", n ? "\n" : "");
	if (started) {
		fprintf(j->f, ",\"end\":\"%s\",\"winners\":[", replay_cthulhu_end(s.end));
		for (int p = 0, k = 0; p < s.n; p++)
			if (s.winners >> p & 1)
				fprintf(j->f, "%s%d", k++ ? "," : "", p);
		fputs("],\"vp\":[", j->f);
		for (int p = 0; p < s.n; p++)
			fprintf(j->f, "%s%d", p ? "," : "", ctgame_vp(&s, p));
		fputs("]", j->f);
	}
	if (row->state == STORE_FINISHED)
		fprintf(j->f, ",\"winner\":%d", row->winner);
	fputs("}\n", j->f);
	j->rc = 0;
	return 0;
}

/* Writes the game in the form of its kind. */
static int write_game(void *ctx, const struct store_loaded *g)
{
	struct job *j = ctx;

	if (strcmp(g->game->game, cdice_ops.name) == 0)
		return write_cdice(j, g);
	if (strcmp(g->game->game, esigns_ops.name) == 0)
		return write_esigns(j, g);
	if (strcmp(g->game->game, ctgame_ops.name) == 0)
		return write_cthulhu(j, g);
	snprintf(j->err, j->errlen, "game %lld is %s, which export does not know",
	         (long long)g->game->id, g->game->game);
	return 0;
}

int export_game(struct store *st, int64_t id, FILE *f, char *err, size_t errlen)
{
	struct job j = { .f = f, .err = err, .errlen = errlen, .rc = -1 };

	err[0] = '\0';
	if (store_game_load(st, id, write_game, &j)) {
		snprintf(err, errlen, "%s", store_errmsg(st));
		return -1;
	}
	return j.rc;
}

void export_default_db(char *buf, size_t cap)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");

	if (xdg && xdg[0] == '/')
		snprintf(buf, cap, "%s/rlyeh/rlyeh.db", xdg);
	else if (home && home[0] == '/')
		snprintf(buf, cap, "%s/.local/share/rlyeh/rlyeh.db", home);
	else
		snprintf(buf, cap, "rlyeh.db");
}

static const char usage[] =
    "Usage: rlyeh export GAME [--db PATH]\n"
    "Write stored game number GAME as a replay script (see rlyeh replay --help) to\n"
    "standard output. A Cthulhu Dice or Elder Signs game is written by its complete\n"
    "turns, Elder Signs as {\"game\":\"elder-signs\",...} with throws and scores; a\n"
    "CTHULHU!!! game as {\"game\":\"cthulhu\",\"players\":N,\"cap\":C,\"moves\":[...]}\n"
    "with every move of its log (engine values, {\"leave\":seat}) and the end,\n"
    "winners and VP they lead to (\"winner\": the stored one, once finished).\n"
    "\n"
    "  --db PATH   database (default as rlyeh console)\n"
    "  --help      this text\n";

int export_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char dbpath[4096], err[512];
	const char *db = NULL;
	struct store *st;
	long long id;
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			db = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return cli_usage_error("export", "unknown option");
		}
	}
	if (optind != argc - 1 || cli_parse_ll(argv[optind], 1, INT64_MAX, &id))
		return cli_usage_error("export", "expected one game number");
	if (!db) {
		export_default_db(dbpath, sizeof(dbpath));
		db = dbpath;
	}
	if (store_open(db, &st, err, sizeof(err))) {
		fprintf(stderr, "rlyeh export: %s: %s\n", db, err);
		return 1;
	}
	rc = export_game(st, id, stdout, err, sizeof(err));
	store_close(st);
	if (rc) {
		fprintf(stderr, "rlyeh export: %s\n", err);
		return 1;
	}
	return 0;
}
