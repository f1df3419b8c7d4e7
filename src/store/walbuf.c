/* walbuf: one write per commit to a write-ahead log (see walbuf.h). */
#include "walbuf.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#define FRAME_HEADER 24 /* bytes of a WAL frame's header */
#define FIRST_GROW   (64 * 1024)

struct walbuf_file {
	sqlite3_file base;
	sqlite3_file *real; /* follows this struct in the same allocation */
	int wal;            /* 1: a WAL file, whose writes are held */
	unsigned char *buf; /* what is held: len bytes for offset `at` */
	int len, cap;
	sqlite3_int64 at;
	int commit_next; /* the last write held was a commit frame's header */
};

static struct {
	sqlite3_vfs vfs;
	sqlite3_vfs *real;
	int rc;
} wb;

static pthread_once_t wb_once = PTHREAD_ONCE_INIT;

#define REAL(f) (((struct walbuf_file *)(f))->real)

/* Writes what f holds to the file, in calls of at most WALBUF_WRITE_MAX bytes,
 * and holds nothing any more, whatever the outcome. Returns the first
 * failed write's code, or SQLITE_OK. */
static int flush(struct walbuf_file *p)
{
	int rc = SQLITE_OK;

	for (int done = 0; done < p->len && rc == SQLITE_OK; done += WALBUF_WRITE_MAX) {
		int n = p->len - done < WALBUF_WRITE_MAX ? p->len - done : WALBUF_WRITE_MAX;
		rc = p->real->pMethods->xWrite(p->real, p->buf + done, n, p->at + done);
	}
	p->len = 0;
	p->commit_next = 0;
	return rc;
}

/* Room for n more bytes in p->buf (within WALBUF_CAP); 0, or -1 when
 * memory is short (the buffer is unchanged). */
static int room(struct walbuf_file *p, int n)
{
	int cap = p->cap ? p->cap : FIRST_GROW;
	unsigned char *buf;

	if (p->len + n <= p->cap)
		return 0;
	while (cap < p->len + n)
		cap *= 2;
	if (cap > WALBUF_CAP)
		cap = WALBUF_CAP;
	if (!(buf = realloc(p->buf, (size_t)cap)))
		return -1;
	p->buf = buf;
	p->cap = cap;
	return 0;
}

static int wb_write(sqlite3_file *f, const void *data, int n, sqlite3_int64 off)
{
	struct walbuf_file *p = (struct walbuf_file *)f;
	int rc, commit;

	if (!p->wal)
		return p->real->pMethods->xWrite(p->real, data, n, off);
	if (p->len > 0 && (off != p->at + p->len || p->len + n > WALBUF_CAP) &&
	    (rc = flush(p)) != SQLITE_OK)
		return rc;
	if (n > WALBUF_WRITE_MAX || room(p, n)) {
		/* Written at once, after what is held, which may be its frame's
		 * header. */
		if ((rc = flush(p)) != SQLITE_OK)
			return rc;
		return p->real->pMethods->xWrite(p->real, data, n, off);
	}
	if (p->len == 0)
		p->at = off;
	memcpy(p->buf + p->len, data, (size_t)n);
	p->len += n;
	commit = p->commit_next;
	p->commit_next = n == FRAME_HEADER && off > 0 &&
	                 (((const unsigned char *)data)[4] | ((const unsigned char *)data)[5] |
	                  ((const unsigned char *)data)[6] | ((const unsigned char *)data)[7]);
	return commit ? flush(p) : SQLITE_OK;
}

static int wb_close(sqlite3_file *f)
{
	struct walbuf_file *p = (struct walbuf_file *)f;
	int rc = flush(p), rc2 = SQLITE_OK;

	if (p->real->pMethods)
		rc2 = p->real->pMethods->xClose(p->real);
	free(p->buf);
	p->buf = NULL;
	p->cap = 0;
	return rc != SQLITE_OK ? rc : rc2;
}

static int wb_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
	int rc = flush((struct walbuf_file *)f);
	return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xRead(REAL(f), buf, n, off);
}

static int wb_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	int rc = flush((struct walbuf_file *)f);
	return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xTruncate(REAL(f), size);
}

static int wb_sync(sqlite3_file *f, int flags)
{
	int rc = flush((struct walbuf_file *)f);
	return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int wb_size(sqlite3_file *f, sqlite3_int64 *size)
{
	int rc = flush((struct walbuf_file *)f);
	return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int wb_lock(sqlite3_file *f, int level)
{
	int rc = flush((struct walbuf_file *)f);
	return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xLock(REAL(f), level);
}

static int wb_unlock(sqlite3_file *f, int level)
{
	int rc = flush((struct walbuf_file *)f);
	return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xUnlock(REAL(f), level);
}

static int wb_reserved(sqlite3_file *f, int *out)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int wb_control(sqlite3_file *f, int op, void *arg)
{
	int rc = flush((struct walbuf_file *)f);
	return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int wb_sector(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int wb_device(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

static int wb_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **out)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), region, size, extend, out);
}

static int wb_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}

static void wb_shm_barrier(sqlite3_file *f)
{
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}

static int wb_shm_unmap(sqlite3_file *f, int del)
{
	return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}

static int wb_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **out)
{
	int rc = flush((struct walbuf_file *)f);
	return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xFetch(REAL(f), off, n, out);
}

static int wb_unfetch(sqlite3_file *f, sqlite3_int64 off, void *page)
{
	return REAL(f)->pMethods->xUnfetch(REAL(f), off, page);
}

static const sqlite3_io_methods wb_methods = {
	3,           wb_close,       wb_read,      wb_write,   wb_truncate, wb_sync,   wb_size,
	wb_lock,     wb_unlock,      wb_reserved,  wb_control, wb_sector,   wb_device, wb_shm_map,
	wb_shm_lock, wb_shm_barrier, wb_shm_unmap, wb_fetch,   wb_unfetch,
};

/* Opens the real file in the same allocation (the VFS under this one must
 * give io_methods of version 3, as SQLite's own do); a WAL file's writes
 * are held, every other file's calls pass through. */
static int wb_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	struct walbuf_file *p = (struct walbuf_file *)f;
	int rc;

	(void)vfs;
	memset(p, 0, sizeof(*p));
	p->real = (sqlite3_file *)&p[1];
	rc = wb.real->xOpen(wb.real, name, p->real, flags, out);
	if (rc != SQLITE_OK) {
		p->base.pMethods = NULL;
		return rc;
	}
	p->wal = (flags & SQLITE_OPEN_WAL) != 0;
	p->base.pMethods = &wb_methods;
	return SQLITE_OK;
}

static void wb_init(void)
{
	sqlite3_vfs *real = sqlite3_vfs_find(NULL);

	if (!real) {
		wb.rc = SQLITE_ERROR;
		return;
	}
	wb.vfs = *real;
	wb.vfs.zName = WALBUF_NAME;
	wb.vfs.szOsFile = (int)sizeof(struct walbuf_file) + real->szOsFile;
	wb.vfs.xOpen = wb_open;
	wb.vfs.pNext = NULL;
	wb.real = real;
	wb.rc = sqlite3_vfs_register(&wb.vfs, 0);
}

int walbuf_register(void)
{
	(void)pthread_once(&wb_once, wb_init);
	return wb.rc;
}
