/* solvecache: the process-wide cache of solved Cthulhu Dice tables
 * (solve.h), built on first use and kept until exit.
 *
 * One table per cultist count (2..SOLVE_MAX_CULTISTS) and variant (classic,
 * Rival Cults 2x2 and 2x3), at most 7 tables, 17 MB for all of them. A
 * table is built once, under a mutex, by the first thread that needs it;
 * others needing the same table wait; readers of a built table take no
 * lock. Kept on disk when solvecache_set_dir names a directory: the
 * largest tables (6 cultists) take seconds to build, see README
 * "rlyeh analyze". */
#ifndef RLYEH_SOLVECACHE_H
#define RLYEH_SOLVECACHE_H

#include "rlyeh/solve.h"

/* The table for n cultists and variant (per_player 0, 2 or 3), built now
 * if needed (see solvecache_background); NULL beyond SOLVE_MAX_CULTISTS or
 * when memory runs out. Thread-safe. */
const struct solve_table *solvecache_get(int n, int per_player);

/* From now on solvecache_get never builds on the calling thread: it starts
 * the table's build on a thread of its own and returns NULL until the table
 * is ready (the "solver" policy then plays as "heuristic"). For servers,
 * whose event loop must not stop for the seconds a 6-cultist table takes. */
void solvecache_background(void);

/* Keeps tables as files solve-N-P.bin in dir (NULL or "": nowhere, the
 * default): a table found there is read instead of solved again, and a
 * table solved is written there. A file that is not a valid table of this
 * program is ignored (and replaced). */
void solvecache_set_dir(const char *dir);

/* solvecache_set_dir with the directory that holds `file` (the database). */
void solvecache_beside(const char *file);

/* Installs solvecache_get as the provider of the "solver" policy
 * (solve_set_provider). Call once at startup, before threads play. */
void solvecache_install(void);

#endif
