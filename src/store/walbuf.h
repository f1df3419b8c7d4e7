/* walbuf: an sqlite3_vfs that gathers a transaction's writes to a
 * write-ahead log into one write. SQLite writes each WAL frame as two
 * writes (its 24-byte header, then the page), so a commit of 50 pages is
 * 100 system calls; through this VFS it is one (or one per WALBUF_CAP
 * bytes). Private to src/store.
 *
 * What is held back, and until when: writes to a WAL file that follow
 * each other in the file are kept in memory, up to WALBUF_CAP bytes. They
 * reach the file, in one write at their offset, when the page of a commit
 * frame (a frame header whose "database size" field is not 0) has been
 * added, and before anything else is done with that file (a sync, a read,
 * its size, a truncation, a file control, closing it) or a write elsewhere
 * in it. So every commit is in the file before the write of its last frame
 * returns, as without this VFS: another connection, which learns of a
 * commit from the WAL index only after that, reads the same bytes, a
 * process killed after a commit loses nothing, and the sync of
 * synchronous=FULL syncs everything. A failed write of what was held is the
 * failure of the call that made it (SQLite then rolls the transaction
 * back); nothing of it is kept. Files other than WAL files pass straight
 * through. */
#ifndef RLYEH_WALBUF_H
#define RLYEH_WALBUF_H

#define WALBUF_NAME "rlyeh-walbuf"
#define WALBUF_CAP  (256 * 1024) /* bytes of a WAL held at most */
/* Bytes a write at most: SQLite's unix VFS writes under 128 KiB a call. */
#define WALBUF_WRITE_MAX (120 * 1024)

/* Registers, once per process and not as the default, the VFS named
 * WALBUF_NAME over the VFS that is the default at the first call (so a
 * test VFS installed before it stays under it). Returns SQLITE_OK (also
 * when already registered) or an SQLite error code, with nothing
 * registered. Thread-safe. */
int walbuf_register(void);

#endif
