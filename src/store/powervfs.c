/* powervfs: the power-cut test VFS (see powervfs.h). The real syncs are
 * kept: the records, not the disk, decide what a simulated cut keeps. */
#include "powervfs.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#define FILES_MAX    16
#define PATH_MAX_LEN 4096

struct tracked {
	char *path;
	int pending; /* records since its last sync */
};

static struct {
	sqlite3_vfs vfs;
	sqlite3_vfs *real;
	pthread_mutex_t lock;
	int fd; /* the undo file; -1 before install */
	long sync_us;
	struct tracked files[FILES_MAX];
	int nfiles;
} pv = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

struct pfile {
	sqlite3_file base;
	struct tracked *t; /* NULL: not tracked (temporary files) */
	sqlite3_file *real;
};

/* Writes all of buf to the undo file: 0, or -1. */
static int put(const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(pv.fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Appends one record: type, path, and for 'W' the offset, old size and
 * old bytes. One write(2) for the whole record. Lock held. */
static int record(char type, const char *path, int64_t off, int64_t oldsize, const void *old,
                  uint32_t n)
{
	uint32_t plen = (uint32_t)strlen(path);
	size_t size = 1 + 4 + plen + (type == 'W' ? 8 + 8 + 4 + (size_t)n : 0);
	unsigned char *buf = malloc(size), *p = buf;
	int rc;

	if (!buf)
		return -1;
	*p++ = (unsigned char)type;
	memcpy(p, &plen, 4);
	p += 4;
	memcpy(p, path, plen);
	p += plen;
	if (type == 'W') {
		memcpy(p, &off, 8);
		p += 8;
		memcpy(p, &oldsize, 8);
		p += 8;
		memcpy(p, &n, 4);
		p += 4;
		if (n)
			memcpy(p, old, n);
	}
	rc = put(buf, size);
	free(buf);
	return rc;
}

/* Forgets t's records: a sync record, and the undo file emptied when no
 * file has one left. Lock held. */
static int forget(struct tracked *t)
{
	int any = 0;

	if (!t->pending)
		return 0;
	t->pending = 0;
	for (int i = 0; i < pv.nfiles; i++)
		any |= pv.files[i].pending != 0;
	if (!any)
		return ftruncate(pv.fd, 0) ? -1 : 0;
	return record('S', t->path, 0, 0, NULL, 0);
}

/* Records what [off, off+len) of p holds within its size, and the size,
 * before p is written or truncated there. Lock held. */
static int remember(struct pfile *p, sqlite3_int64 off, sqlite3_int64 len)
{
	sqlite3_int64 size = 0;
	unsigned char *old = NULL;
	uint32_t n = 0;
	int rc;

	if (p->real->pMethods->xFileSize(p->real, &size) != SQLITE_OK)
		return -1;
	if (off < size) {
		n = (uint32_t)(off + len <= size ? len : size - off);
		if (!(old = malloc(n)))
			return -1;
		if (p->real->pMethods->xRead(p->real, old, (int)n, off) != SQLITE_OK) {
			free(old);
			return -1;
		}
	}
	rc = record('W', p->t->path, off, size, old, n);
	free(old);
	if (rc == 0)
		p->t->pending++;
	return rc;
}

static int pv_close(sqlite3_file *f)
{
	struct pfile *p = (struct pfile *)f;
	return p->real->pMethods ? p->real->pMethods->xClose(p->real) : SQLITE_OK;
}

static int pv_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
	struct pfile *p = (struct pfile *)f;
	return p->real->pMethods->xRead(p->real, buf, n, off);
}

static int pv_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
	struct pfile *p = (struct pfile *)f;
	int rc;

	if (!p->t)
		return p->real->pMethods->xWrite(p->real, buf, n, off);
	pthread_mutex_lock(&pv.lock);
	if (remember(p, off, n))
		rc = SQLITE_IOERR_WRITE;
	else
		rc = p->real->pMethods->xWrite(p->real, buf, n, off);
	pthread_mutex_unlock(&pv.lock);
	return rc;
}

static int pv_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	struct pfile *p = (struct pfile *)f;
	sqlite3_int64 old = 0;
	int rc;

	if (!p->t)
		return p->real->pMethods->xTruncate(p->real, size);
	pthread_mutex_lock(&pv.lock);
	if (p->real->pMethods->xFileSize(p->real, &old) != SQLITE_OK ||
	    (old != size && remember(p, size, old > size ? old - size : 0)))
		rc = SQLITE_IOERR_TRUNCATE;
	else
		rc = p->real->pMethods->xTruncate(p->real, size);
	pthread_mutex_unlock(&pv.lock);
	return rc;
}

static int pv_sync(sqlite3_file *f, int flags)
{
	struct pfile *p = (struct pfile *)f;
	int rc;

	if (p->t && pv.sync_us > 0) {
		struct timespec d = { pv.sync_us / 1000000, pv.sync_us % 1000000 * 1000 };
		while (nanosleep(&d, &d) && errno == EINTR)
			;
	}
	rc = p->real->pMethods->xSync(p->real, flags);
	if (rc != SQLITE_OK || !p->t)
		return rc;
	pthread_mutex_lock(&pv.lock);
	if (forget(p->t))
		rc = SQLITE_IOERR_FSYNC;
	pthread_mutex_unlock(&pv.lock);
	return rc;
}

static int pv_size(sqlite3_file *f, sqlite3_int64 *size)
{
	struct pfile *p = (struct pfile *)f;
	return p->real->pMethods->xFileSize(p->real, size);
}

static int pv_lock(sqlite3_file *f, int level)
{
	struct pfile *p = (struct pfile *)f;
	return p->real->pMethods->xLock(p->real, level);
}

static int pv_unlock(sqlite3_file *f, int level)
{
	struct pfile *p = (struct pfile *)f;
	return p->real->pMethods->xUnlock(p->real, level);
}

static int pv_reserved(sqlite3_file *f, int *out)
{
	struct pfile *p = (struct pfile *)f;
	return p->real->pMethods->xCheckReservedLock(p->real, out);
}

static int pv_control(sqlite3_file *f, int op, void *arg)
{
	struct pfile *p = (struct pfile *)f;
	return p->real->pMethods->xFileControl(p->real, op, arg);
}

static int pv_sector(sqlite3_file *f)
{
	struct pfile *p = (struct pfile *)f;
	return p->real->pMethods->xSectorSize(p->real);
}

static int pv_device(sqlite3_file *f)
{
	struct pfile *p = (struct pfile *)f;
	return p->real->pMethods->xDeviceCharacteristics(p->real);
}

static int pv_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **out)
{
	struct pfile *p = (struct pfile *)f;
	return p->real->pMethods->xShmMap(p->real, region, size, extend, out);
}

static int pv_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
	struct pfile *p = (struct pfile *)f;
	return p->real->pMethods->xShmLock(p->real, offset, n, flags);
}

static void pv_shm_barrier(sqlite3_file *f)
{
	struct pfile *p = (struct pfile *)f;
	p->real->pMethods->xShmBarrier(p->real);
}

static int pv_shm_unmap(sqlite3_file *f, int del)
{
	struct pfile *p = (struct pfile *)f;
	return p->real->pMethods->xShmUnmap(p->real, del);
}

/* No memory-mapped pages: every read goes through xRead. */
static int pv_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **out)
{
	(void)f;
	(void)off;
	(void)n;
	*out = NULL;
	return SQLITE_OK;
}

static int pv_unfetch(sqlite3_file *f, sqlite3_int64 off, void *page)
{
	(void)f;
	(void)off;
	(void)page;
	return SQLITE_OK;
}

static const sqlite3_io_methods pv_methods = {
	3,           pv_close,       pv_read,      pv_write,   pv_truncate, pv_sync,   pv_size,
	pv_lock,     pv_unlock,      pv_reserved,  pv_control, pv_sector,   pv_device, pv_shm_map,
	pv_shm_lock, pv_shm_barrier, pv_shm_unmap, pv_fetch,   pv_unfetch,
};

/* The tracked entry of path, added if new; NULL when the table is full or
 * memory is out. Lock held. */
static struct tracked *track(const char *path)
{
	for (int i = 0; i < pv.nfiles; i++)
		if (strcmp(pv.files[i].path, path) == 0)
			return &pv.files[i];
	if (pv.nfiles == FILES_MAX || strlen(path) > PATH_MAX_LEN)
		return NULL;
	if (!(pv.files[pv.nfiles].path = strdup(path)))
		return NULL;
	pv.files[pv.nfiles].pending = 0;
	return &pv.files[pv.nfiles++];
}

static int pv_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	struct pfile *p = (struct pfile *)f;
	int rc;

	(void)vfs;
	memset(p, 0, sizeof(*p));
	p->real = (sqlite3_file *)&p[1];
	rc = pv.real->xOpen(pv.real, name, p->real, flags, out);
	if (rc != SQLITE_OK) {
		p->base.pMethods = NULL;
		return rc;
	}
	p->base.pMethods = &pv_methods;
	if (name && (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL))) {
		pthread_mutex_lock(&pv.lock);
		p->t = track(name);
		pthread_mutex_unlock(&pv.lock);
		if (!p->t) {
			p->real->pMethods->xClose(p->real);
			p->base.pMethods = NULL;
			return SQLITE_CANTOPEN;
		}
	}
	return SQLITE_OK;
}

/* A deleted file's records are forgotten: the harness restores file
 * contents, not directory entries. */
static int pv_delete(sqlite3_vfs *vfs, const char *name, int dirsync)
{
	int rc = pv.real->xDelete(pv.real, name, dirsync);

	(void)vfs;
	if (rc != SQLITE_OK)
		return rc;
	pthread_mutex_lock(&pv.lock);
	for (int i = 0; i < pv.nfiles; i++)
		if (strcmp(pv.files[i].path, name) == 0 && forget(&pv.files[i]))
			rc = SQLITE_IOERR_DELETE;
	pthread_mutex_unlock(&pv.lock);
	return rc;
}

int powervfs_install(const char *undo_path, long sync_us, char *err, size_t errlen)
{
	int rc = 0;

	pthread_mutex_lock(&pv.lock);
	if (pv.fd >= 0)
		goto out;
	if (!(pv.real = sqlite3_vfs_find(NULL))) {
		snprintf(err, errlen, "power-cut test VFS: no default VFS");
		rc = -1;
		goto out;
	}
	pv.fd = open(undo_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	if (pv.fd < 0) {
		snprintf(err, errlen, "%s: %s", undo_path, strerror(errno));
		rc = -1;
		goto out;
	}
	pv.sync_us = sync_us;
	pv.vfs = *pv.real;
	pv.vfs.zName = "rlyeh-powervfs";
	pv.vfs.szOsFile = (int)sizeof(struct pfile) + pv.real->szOsFile;
	pv.vfs.xOpen = pv_open;
	pv.vfs.xDelete = pv_delete;
	pv.vfs.pNext = NULL;
	if (sqlite3_vfs_register(&pv.vfs, 1) != SQLITE_OK) {
		snprintf(err, errlen, "power-cut test VFS: cannot register");
		close(pv.fd);
		pv.fd = -1;
		rc = -1;
	}
out:
	pthread_mutex_unlock(&pv.lock);
	return rc;
}
