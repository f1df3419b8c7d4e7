/* ctfold: the CTHULHU!!! board game's narration folded for a table
 * message. Where cttext tells each engine event as a line of its own,
 * ctfold tells a run of events (the applies of one command, a computer's
 * whole turn, a stored log) in few lines: a walk as one line of squares, a
 * fight with its rolls, totals, kill and relics as one line, the weapon once
 * per fight, the figures of an enemy move in one line, a deal's cards as
 * "Everyone draws 3 cards", a tile with its placing and arrivals as one line.
 * Every die value, public card, relic taken or lost, tile placed and figure
 * moved stays in the text; only the relics' cosmetic names (§13) are left out.
 * Nothing names a card from a hand (C4). */
#ifndef RLYEH_CTFOLD_H
#define RLYEH_CTFOLD_H

#include "rlyeh/ctgame.h"
#include "rlyeh/game.h"
#include "rlyeh/text.h"

#define CTFOLD_BUDGET 1800 /* bytes of a fold told in full, at most (a table message's) */

/* Appends to out the events ev[0..n-1], in the order they happened, folded
 * into lines, each ended by "\n". `g` is the state after the last of them
 * (squares are named by its map; a tile keeps its cell once placed),
 * names[seat] the seats' names, lang an enum i18n_lang. The events of any
 * number of applies may be given at once, and the text of one call never
 * depends on another: a log viewer (/log) may call it on any stretch of a
 * game's events, a turn at a time or a command's at a time. When out fills,
 * it is truncated (out->truncated) at a line's end or within a line. A fold
 * longer than CTFOLD_BUDGET is told compact instead: without the counts
 * the seats' status lines show anyway (hearts, bullets and sanity after a
 * change, the squares left after a walk, the movement total right after
 * its roll); every die, card, relic, tile and move stays. */
void ctfold_tell(const struct ctgame *g, const struct game_event *ev, int n,
                 const char *const *names, int lang, struct text *out);

#endif
