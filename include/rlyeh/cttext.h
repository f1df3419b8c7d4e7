/* cttext: the CTHULHU!!! board game in words, for the table: each engine
 * event as one line and each option of a decision as a label, in the bot's
 * languages (enum i18n_lang), with the names of cards, tiles and relics from
 * ctnames. Squares are written as global coordinates "gx,gy" (§3.2).
 * Nothing here names a card from a hand (C4): a card drawn is told as "a
 * card". */
#ifndef RLYEH_CTTEXT_H
#define RLYEH_CTTEXT_H

#include <stddef.h>

#include "rlyeh/ctgame.h"
#include "rlyeh/game.h"
#include "rlyeh/text.h"

/* Writes square `sq` of g's map as "gx,gy" into buf[cap]. */
void cttext_square(const struct ctgame *g, int sq, char *buf, size_t cap);

/* Appends the line telling event e (no newline) to out; `g` is the state
 * after the apply that produced it, names[seat] the seats' names. */
void cttext_event(const struct ctgame *g, const struct game_event *e, const char *const *names,
                  int lang, struct text *out);

/* Appends the label of option o of g's pending decision to out (C6's form
 * for tile options: "#n cell (tx,ty) ρ° exits N E …"); st is that decision
 * as ctgame_step describes it, so a list of labels reads the node once. */
void cttext_option(const struct ctgame *g, const struct game_step *st,
                   const struct ctgame_option *o, const char *const *names, int lang,
                   struct text *out);

/* Appends seat's line of the status message (C3): hearts, bullets, sanity
 * s/S, cards in hand (a count), the VP it would score now (§14: from its
 * relics and sites, both public), relics per type, weapons and items in play
 * with the uses left, sites held, whether it played its card this round. */
void cttext_seat(const struct ctgame *g, int seat, int lang, struct text *out);

/* Appends seat's colour and number as the map's pawns show them: seats 1..6
 * are red, blue, green, orange, purple and brown ("🔴 1"). */
void cttext_pawn(int seat, struct text *out);

/* Appends the effects lasting through the turn in progress (an Elder Sign,
 * Steady Nerves, Jammed Action, a turn without movement) as one line, and
 * returns 1; returns 0 with nothing written when there are none. Each comes
 * from a card played face up: nothing hidden is told. */
int cttext_effects(const struct ctgame *g, int lang, struct text *out);

/* Appends the piles' sizes, the sites resolved and the supplies (C3). */
void cttext_piles(const struct ctgame *g, int lang, struct text *out);

#endif
