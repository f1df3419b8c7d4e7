/* playlog: a game's log told again. A stored game (its row, members and
 * events, as store_game_load gives them) is replayed from its seed through
 * its engine, and every move is narrated as the table told it (a game that
 * folds its narration, play.h: fold, has the moves of each command folded
 * together), so that a player can read back what scrolled past (/log). Pages count back from
 * the newest: page 1 holds the last lines. Nothing here writes anything. */
#ifndef RLYEH_PLAYLOG_H
#define RLYEH_PLAYLOG_H

#include <stddef.h>

#include "rlyeh/play.h"
#include "rlyeh/store.h"

#define PLAYLOG_PAGE        1800      /* bytes of narration on one page, at most */
#define PLAYLOG_BYTES       (1 << 20) /* narration kept, at most: older lines are dropped */
#define PLAYLOG_FOLD_EVENTS 512 /* events of one command folded together, at most (as bot.c) */
#define PLAYLOG_FOLD_TEXT   (1 << 15) /* bytes of their folded text, at most (as bot.c) */

/* Replays game `g` of kind `game` and writes page `page` (1 = the newest
 * lines, 2 the ones before…) of its narration, in language `lang`, into
 * out (at most PLAYLOG_PAGE bytes, whole lines). Sets *pages to the number
 * of pages (0 when no move was made yet) and *dropped to 1 when the oldest
 * lines were left out to stay within PLAYLOG_BYTES. Returns 0; -1 when a
 * stored move does not apply to the game (out unchanged); -2 out of
 * memory; -3 when `page` is past the last page (*pages set). */
int playlog_page(const struct play_game *game, const struct store_loaded *g, int lang, int page,
                 struct text *out, int *pages, int *dropped);

#endif
