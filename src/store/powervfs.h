/* powervfs: a test hook of the SQLite store that lets a harness simulate a
 * power cut on a running daemon. Private to src/store. */
#ifndef RLYEH_POWERVFS_H
#define RLYEH_POWERVFS_H

#include <stddef.h>

/* Makes a VFS over the default one the process's default, once: every
 * write to a database, write-ahead log or rollback journal is preceded by a
 * record appended to the file at undo_path (created 0600, kept open) with
 * the bytes and the size it replaces, written with write(2) before the real
 * write; an xSync of a file appends a record that forgets that file's
 * earlier records, and the undo file is emptied whenever no file has a
 * record left. Applying the remaining records newest first to the files
 * gives the disk as a power cut would have left it. Record layout (host
 * byte order): 'W', u32 path length, path, i64 offset, i64 old size,
 * u32 n, n old bytes; 'S', u32 path length, path. Each sync of a tracked
 * file first sleeps sync_us microseconds (0: none), a slow disk: the window
 * in which a commit is written but not yet durable. Returns 0 (also when
 * already installed, whatever the arguments), or -1 with err set and
 * nothing installed. */
int powervfs_install(const char *undo_path, long sync_us, char *err, size_t errlen);

#endif
