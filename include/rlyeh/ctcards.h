/* ctcards: what the printed things of the CTHULHU!!! board game say, for
 * players who see only their names: every event card kind (E01..E32),
 * tile (T01..T30), relic type and square kind of the map, each with a
 * short text (at most CTCARDS_SHORT bytes: a select menu's option
 * description) and a long one (the whole rule, under CTCARDS_LONG bytes),
 * in the bot's languages (enum i18n_lang). And the thing a player names
 * by typing, in either language. All of it is public (§12.1: the cards'
 * texts and every discard are face up). */
#ifndef RLYEH_CTCARDS_H
#define RLYEH_CTCARDS_H

#include "rlyeh/text.h"

#define CTCARDS_SHORT 100 /* bytes of a short text, at most */
#define CTCARDS_LONG  600 /* bytes of a long text, fewer than this */

/* The kinds of things, and how many each has. */
enum ctcards_kind {
	CTCARDS_CARD,   /* event card kinds, 0..31 = E01..E32 */
	CTCARDS_TILE,   /* tiles, 0..29 = T01..T30 */
	CTCARDS_TYPE,   /* relic types, 0..4 (enum ctgame_type) */
	CTCARDS_SQUARE, /* square kinds of the map (enum ctcards_square) */
	CTCARDS_KINDS,
};

enum ctcards_square {
	CTCARDS_STREET,
	CTCARDS_INTERIOR,
	CTCARDS_ENTRANCE,
	CTCARDS_BLOCKED,
	CTCARDS_OPEN,       /* an open street: where the next tile may go */
	CTCARDS_ACTIVATED,  /* an activated Ritual Site */
	CTCARDS_SANCTIFIED, /* a sanctified Ritual Site, gone from the map */
	CTCARDS_SQUARES,
};

struct ctcards_ref {
	int kind; /* enum ctcards_kind */
	int id;
};

/* How many things of `kind` there are (0 for an unknown kind). */
int ctcards_count(int kind);

/* The name of a thing in lang: a static string, "?" when it does not
 * exist. Cards, tiles and types have ctnames' names. */
const char *ctcards_name(int kind, int id, int lang);

/* Appends to out the short text (at most CTCARDS_SHORT bytes) or the long
 * one (fewer than CTCARDS_LONG bytes) of a thing in lang; nothing when it
 * does not exist. */
void ctcards_short(int kind, int id, int lang, struct text *out);
void ctcards_long(int kind, int id, int lang, struct text *out);

/* Finds the thing a player typed: a name in either language or an id
 * ("E01", "T26"), without regard to case, accents, spaces or punctuation,
 * a leading article left out ("the", "de", "het"); failing an exact
 * match, a unique beginning of a name, then a unique part of one. Returns
 * 1 with *found set; -1 when several things match, with up to `max` of
 * them in sugg[]; 0 when nothing matches, with up to `max` things whose
 * names are nearest in spelling (none when nothing is near) in sugg[]. The
 * number of suggestions is set in *nsugg either way. */
int ctcards_find(const char *typed, struct ctcards_ref *found, struct ctcards_ref *sugg, int max,
                 int *nsugg);

/* The things a name being typed may become, for completion: those with a
 * name (in either language) or id that begins with what is typed, then
 * those with one that holds it, each in ctcards' order (cards, tiles,
 * types, squares), keys compared as ctcards_find does; everything in that
 * order for "". Writes up to max to out and returns their number. */
int ctcards_complete(const char *typed, struct ctcards_ref *out, int max);

#endif
