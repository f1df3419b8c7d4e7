/* vfsshim: an sqlite3_vfs over the process's default one that passes every
 * call through, except that the writes, truncations and syncs of the files
 * a hook chose to track go to hooks first. The power-cut VFS (powervfs.c)
 * and the power-loss test are built on it. Private to src/store and its
 * tests. */
#ifndef RLYEH_VFSSHIM_H
#define RLYEH_VFSSHIM_H

#include <sqlite3.h>

/* What an opened file is, for the hooks. */
enum vfsshim_kind { VFSSHIM_DB, VFSSHIM_WAL, VFSSHIM_JOURNAL };

/* One open file: the real file and what the open hook returned for it
 * (NULL: not tracked, every call goes straight to the real file). */
struct vfsshim_file {
	sqlite3_file base;
	sqlite3_file *real;
	void *track;
};

/* The hooks. open_track is asked for every main database, write-ahead log
 * and rollback journal opened, with its path: it returns the tracking data
 * (kept in vfsshim_file.track) or NULL with *refuse set to refuse the open
 * (SQLITE_CANTOPEN) or clear to leave the file untracked. write, truncate
 * and sync are called for tracked files only and do the real call
 * themselves (vfsshim_real), or fail it with an SQLite error code. delete
 * is called for every deletion and does or refuses it. All hooks run on
 * SQLite's threads: they lock what they share. */
struct vfsshim_hooks {
	void *(*open_track)(const char *path, enum vfsshim_kind kind, int *refuse);
	int (*write)(struct vfsshim_file *f, const void *buf, int n, sqlite3_int64 off);
	int (*truncate)(struct vfsshim_file *f, sqlite3_int64 size);
	int (*sync)(struct vfsshim_file *f, int flags);
	int (*delete)(sqlite3_vfs *real, const char *path, int dirsync);
};

/* Registers, as the process's default, a VFS named name (kept by pointer)
 * over the current default VFS with the given hooks (kept by pointer).
 * Memory-mapped reads are declined so that every page is read through
 * xRead. One shim per process: returns SQLITE_OK, or SQLITE_MISUSE when a
 * shim is already installed, or another SQLite error code, with nothing
 * registered. Not thread-safe: call it before opening databases. */
int vfsshim_install(const char *name, const struct vfsshim_hooks *hooks);

/* The VFS the shim wraps; NULL before vfsshim_install. */
sqlite3_vfs *vfsshim_real(void);

/* Reads what [off, off + len) of f holds within its current size into a
 * new buffer: *bytes (NULL when nothing of the range exists yet; the
 * caller frees it) of *n bytes, and the size into *size. Returns 0, or -1
 * with nothing allocated. */
int vfsshim_old_bytes(struct vfsshim_file *f, sqlite3_int64 off, sqlite3_int64 len,
                      sqlite3_int64 *size, unsigned char **bytes, int *n);

#endif
