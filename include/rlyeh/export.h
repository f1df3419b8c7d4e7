/* export: writes a stored game as a `rlyeh replay` script. */
#ifndef RLYEH_EXPORT_H
#define RLYEH_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "rlyeh/store.h"

/* Writes game `id` of st as a replay script (one JSON object and a newline)
 * to f. Cthulhu Dice and Elder Signs: only complete turns are written.
 * CTHULHU!!!: every move of the log ("roll" and "choice" values, "leave"
 * of a seat as {"leave":seat}), a line per completed turn, then the end,
 * winners and VP they lead to, and the stored winner of a finished game
 * (the format: replay.h). A game still in the lobby has no turns or
 * moves. Returns 0, or -1 with the reason in err (nothing written). */
int export_game(struct store *st, int64_t id, FILE *f, char *err, size_t errlen);

/* `rlyeh export GAME [--db PATH]`: returns the process exit status. */
int export_main(int argc, char **argv);

/* The database path used when --db is not given (see rlyeh console --help). */
void export_default_db(char *buf, size_t cap);

#endif
