/* replay: plays a stored or hand-written game script through the engine of
 * its game and reports the state after every turn.
 *
 * Cthulhu Dice ("game" absent or "cthulhu-dice"):
 *   {"variant":"classic","players":3,"first":0,"turns":[
 *   {"victim":1,"curse":"tentacle","response":"eye","response_eye":"cthulhu"}, ...]}
 * Faces: yellow-sign, tentacle, elder-sign, cthulhu, eye; an "eye" curse or
 * response carries "curse_eye" / "response_eye". Rival Cults:
 * "variant":"rival-cults","cultists":2|3 (seat i belongs to player i % 2).
 *
 * Elder Signs (what `rlyeh export` writes):
 *   {"game":"elder-signs","players":3,"first":0,"turns":[
 *   {"seat":0,"round":1,"throws":[{"draw":["library","tomb","museum"],
 *    "roll":["library:elder-sign","museum:clue","tomb:tentacle"]}, ...],
 *    "end":"retreat","banked":1,"score":1}, ...],"scores":[1,0,0],"winner":-1}
 * Kinds: library, museum, tomb; a roll is "kind:face" with the faces
 * elder-sign, clue, tentacle, in the order the engine rolls the hand
 * (Library dice, then Museum, then Tomb). Every throw after the first is a
 * continue; "end" is "retreat" (the retreat is applied) or "downed" (what
 * the last throw must have done). "round", "refill" (P1: the stash's dice
 * put back into the bag before the throw), "banked", "score", "lost",
 * "scores" and "winner" are optional and, when given, must match the game.
 *
 * CTHULHU!!! (what `rlyeh export` writes):
 *   {"game":"cthulhu","players":3,"cap":0,"moves":[
 *    1,0,17,...,{"leave":0},...],
 *    "end":"saved","winners":[1],"winner":1,"vp":[0,9,4]}
 * "players" 2-6; "cap" the round cap (C19), 0 or absent for none. "moves"
 * is the game's log in order: a number is the engine value applied
 * (ctgame_apply: a chance value, the dealer draw first, or the index of an
 * option at a decision), {"leave":seat} is that seat leaving the game
 * (ctgame_leave). The invariants (ctgame_check) are checked after every
 * move. The claimed end is optional, each field checked when given: "end"
 * ("playing" while the game goes on, "saved", "summoned", "nobody" or
 * "capped"), "winners" (the seats that won, any order), "winner" (the one
 * winning seat, -1 when nobody won, the win is shared or the cap stopped
 * the game; only for a game that ended) and "vp" (victory points per
 * seat, 0 for a seat out of the game).
 * Lines: one per completed turn,
 *   {"turn":1,"seat":1,"round":1,"moves":40,"vp":[0,0,0],"out":[],
 *    "sanctified":0,"activated":0,"result":null}
 * (the state after the move that completed it; "moves" counts the moves
 * applied so far), then, once every move applied and the claims hold, one
 * last line,
 *   {"moves":612,"turns":57,"round":20,"seat":1,"vp":[...],"out":[...],
 *    "sanctified":3,"activated":1,"result":{"end":"saved","winners":[1],
 *    "winner":1}}
 * with "result" null while the game goes on. A refused move is named by its
 * number from 1 and the engine's reason ("move 7: value 5 refused at seat
 * 0's tile placement (3 options, 0-2): not a legal choice"). */
#ifndef RLYEH_REPLAY_H
#define RLYEH_REPLAY_H

#include <stddef.h>
#include <stdio.h>

/* Largest script accepted, in bytes. */
#define REPLAY_MAX_BYTES (16u << 20)

/* Replays `text` (len bytes, need not be NUL-terminated), writing one JSON
 * line per turn to `out`. Returns 0 when every turn applied; otherwise -1
 * with a message naming the turn and the reason in err (always
 * NUL-terminated). Lines for the turns before the refused one are written,
 * nothing for the refused one or after it (a CTHULHU!!! script whose
 * claimed result is wrong gets its turn lines, not its last line). */
int replay_run(const char *text, size_t len, FILE *out, char *err, size_t errlen);

/* The script's name of a CTHULHU!!! ending (enum ctgame_end: "playing",
 * "saved", "summoned", "nobody", "capped"); "?" out of range. */
const char *replay_cthulhu_end(int end);

/* `rlyeh replay [FILE|-]`: returns the process exit status (0 ok, 1 script
 * refused, 2 usage or unreadable input). */
int replay_main(int argc, char **argv);

#endif
