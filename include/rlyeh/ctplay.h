/* ctplay: the CTHULHU!!! board game at the table (rules §15, C1-C19): the
 * struct play_game the bot plays it through (play.h), and the table's
 * settings.
 *
 * The settings of C1 are fixed when the table is opened ("/open cthulhu
 * quick:30 enemies:manual …") and kept in the game row's per_player field,
 * packed: bits 0-9 the round cap (0: none), bit 10 manual enemy control,
 * bit 11 placement confirmation off, bits 12-17 the reaction window
 * (0: default, else seconds + 1), bits 18-24 the quick timeout (0: default,
 * else seconds / 5), bits 25-30 the decision timeout (0: default, else
 * seconds / 10). So 0 is "every default". */
#ifndef RLYEH_CTPLAY_H
#define RLYEH_CTPLAY_H

#include "rlyeh/play.h"

#define CTPLAY_CAP_MAX      1000 /* round cap, at most */
#define CTPLAY_WINDOW_MAX   60   /* reaction window, seconds */
#define CTPLAY_QUICK_MAX    635  /* quick timeout, seconds (a multiple of 5) */
#define CTPLAY_DECISION_MAX 630  /* decision timeout, seconds (a multiple of 10) */

/* A member's preferences (store_member.prefs): reaction windows passed
 * without asking (C14, /autopass), the weapon of every combat roll asked
 * instead of taken by standing preference (C11, /weapon ask). */
#define CTPLAY_PREF_AUTOPASS   1
#define CTPLAY_PREF_ASK_WEAPON 2

/* A table's settings; a timeout of -1 stands for the default (the
 * decision timeout: the bot's configured turn timeout; quick 45 s and the
 * window 20 s, each at most the decision timeout). */
struct ctplay_settings {
	int decision_s, quick_s; /* -1 default, else seconds */
	int window_s;            /* -1 default, 0 off, else seconds */
	int manual;              /* enemy control: 1 manual, 0 auto */
	int confirm;             /* placement confirmation: 1 on */
	int cap;                 /* round cap, 0 none */
};

/* The settings packed in a game row's per_player value. */
void ctplay_settings(int packed, struct ctplay_settings *out);

/* Reads one /open word ("quick:30", "enemies=manual", Dutch keys too) into
 * *packed. Returns 0, or -1 when the word is not a setting or its value is
 * out of range (*packed unchanged then). */
int ctplay_setting(const char *word, int *packed);

#endif
