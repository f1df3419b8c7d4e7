/* cdsolvecache: the process-wide cache of solved Cthulhu Dice tables
 * (cdsolve.h), built on first use and kept until exit.
 *
 * One table per cultist count (2..CDSOLVE_MAX_CULTISTS) and variant (classic,
 * Rival Cults 2x2 and 2x3), at most 7 tables, 17 MB for all of them. A
 * table is built once, under a mutex, by the first thread that needs it;
 * others needing the same table wait; readers of a built table take no
 * lock. Kept on disk when cdsolvecache_set_dir names a directory: tables
 * of 4 or more cultists take seconds to build, see docs/cli.md, "rlyeh
 * analyze". */
#ifndef RLYEH_CDSOLVECACHE_H
#define RLYEH_CDSOLVECACHE_H

#include "rlyeh/cdsolve.h"

/* Tables of at most this many cultists are solved on the calling thread
 * even in background mode: measured (Release, CPU seconds of one thread;
 * the solver is optimised in every build type) 2 cultists under 1 ms, 3:
 * 0.04 s, 4: 0.9 s, Rival Cults 2x2: 0.25 s, 5: 1.7 s, 6 (and 2x3): 5-7 s;
 * reading a kept table takes at most 7 ms (6 cultists). */
#define CDSOLVECACHE_AT_ONCE_MAX 3

/* The table for n cultists and variant (per_player 0, 2 or 3): the one in
 * memory, else the one kept on disk (cdsolvecache_set_dir), else solved now.
 * In background mode (cdsolvecache_background) a table of more than
 * CDSOLVECACHE_AT_ONCE_MAX cultists that is not on disk is solved on a
 * thread of its own instead, and NULL is returned until it is ready. NULL
 * also beyond CDSOLVE_MAX_CULTISTS or when memory runs out (a later call
 * tries again). Thread-safe. */
const struct cdsolve_table *cdsolvecache_get(int n, int per_player);

/* 1 while the table for n cultists and variant is being solved on a thread
 * of its own (so a NULL from cdsolvecache_get means "not yet"), else 0.
 * Thread-safe. */
int cdsolvecache_pending(int n, int per_player);

/* From now on cdsolvecache_get never solves a large table on the calling
 * thread (see cdsolvecache_get); the "solver" policy plays as "heuristic"
 * until it is ready. For servers, whose event loop must not stop for the
 * seconds a 6-cultist table takes. */
void cdsolvecache_background(void);

/* Frees every table and leaves background mode, as at start (the
 * directory stays). For tests: no thread may be reading a table or solving
 * one. */
void cdsolvecache_clear(void);

/* Keeps tables as files solve-N-P.bin in dir (NULL or "": nowhere, the
 * default): a table found there is read instead of solved again, and a
 * table solved is written there. A file that is not a valid table of this
 * program is ignored (and replaced). */
void cdsolvecache_set_dir(const char *dir);

/* cdsolvecache_set_dir with store_folder(database): the folder of an SQLite
 * database, the state directory for PostgreSQL. Nothing changes when that
 * folder's name is too long. */
void cdsolvecache_beside(const char *database);

/* Installs cdsolvecache_get as the provider of the "solver" policy
 * (cdsolve_set_provider). Call once at startup, before threads play. */
void cdsolvecache_install(void);

#endif
