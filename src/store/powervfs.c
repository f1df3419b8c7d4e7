/* powervfs: the power-cut test VFS (see powervfs.h). The real syncs are
 * kept: the records, not the disk, decide what a simulated cut keeps. */
#include "powervfs.h"

#include "vfsshim.h"

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
	pthread_mutex_t lock;
	int fd; /* the undo file; -1 before install */
	long sync_us;
	struct tracked files[FILES_MAX];
	int nfiles;
} pv = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

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

/* Records what [off, off+len) of f holds within its size, and the size,
 * before f is written or truncated there. Lock held. */
static int remember(struct vfsshim_file *f, sqlite3_int64 off, sqlite3_int64 len)
{
	struct tracked *t = f->track;
	sqlite3_int64 size;
	unsigned char *old;
	int n, rc;

	if (vfsshim_old_bytes(f, off, len, &size, &old, &n))
		return -1;
	rc = record('W', t->path, off, size, old, (uint32_t)n);
	free(old);
	if (rc == 0)
		t->pending++;
	return rc;
}

static int pv_write(struct vfsshim_file *f, const void *buf, int n, sqlite3_int64 off)
{
	int rc;

	pthread_mutex_lock(&pv.lock);
	if (remember(f, off, n))
		rc = SQLITE_IOERR_WRITE;
	else
		rc = f->real->pMethods->xWrite(f->real, buf, n, off);
	pthread_mutex_unlock(&pv.lock);
	return rc;
}

static int pv_truncate(struct vfsshim_file *f, sqlite3_int64 size)
{
	sqlite3_int64 old = 0;
	int rc;

	pthread_mutex_lock(&pv.lock);
	if (f->real->pMethods->xFileSize(f->real, &old) != SQLITE_OK ||
	    (old != size && remember(f, size, old > size ? old - size : 0)))
		rc = SQLITE_IOERR_TRUNCATE;
	else
		rc = f->real->pMethods->xTruncate(f->real, size);
	pthread_mutex_unlock(&pv.lock);
	return rc;
}

static int pv_sync(struct vfsshim_file *f, int flags)
{
	int rc;

	if (pv.sync_us > 0) {
		struct timespec d = { pv.sync_us / 1000000, pv.sync_us % 1000000 * 1000 };
		while (nanosleep(&d, &d) && errno == EINTR)
			;
	}
	rc = f->real->pMethods->xSync(f->real, flags);
	if (rc != SQLITE_OK)
		return rc;
	pthread_mutex_lock(&pv.lock);
	if (forget(f->track))
		rc = SQLITE_IOERR_FSYNC;
	pthread_mutex_unlock(&pv.lock);
	return rc;
}

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

/* Tracks every database, log and journal; refuses to open one it cannot
 * track. */
static void *pv_open_track(const char *path, enum vfsshim_kind kind, int *refuse)
{
	struct tracked *t;

	(void)kind;
	pthread_mutex_lock(&pv.lock);
	t = track(path);
	pthread_mutex_unlock(&pv.lock);
	*refuse = !t;
	return t;
}

/* A deleted file's records are forgotten: the harness restores file
 * contents, not directory entries. */
static int pv_delete(sqlite3_vfs *real, const char *name, int dirsync)
{
	int rc = real->xDelete(real, name, dirsync);

	if (rc != SQLITE_OK)
		return rc;
	pthread_mutex_lock(&pv.lock);
	for (int i = 0; i < pv.nfiles; i++)
		if (strcmp(pv.files[i].path, name) == 0 && forget(&pv.files[i]))
			rc = SQLITE_IOERR_DELETE;
	pthread_mutex_unlock(&pv.lock);
	return rc;
}

static const struct vfsshim_hooks pv_hooks = {
	.open_track = pv_open_track,
	.write = pv_write,
	.truncate = pv_truncate,
	.sync = pv_sync,
	.delete = pv_delete,
};

int powervfs_install(const char *undo_path, long sync_us, char *err, size_t errlen)
{
	int rc = 0;

	pthread_mutex_lock(&pv.lock);
	if (pv.fd >= 0)
		goto out;
	pv.fd = open(undo_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	if (pv.fd < 0) {
		snprintf(err, errlen, "%s: %s", undo_path, strerror(errno));
		rc = -1;
		goto out;
	}
	pv.sync_us = sync_us;
	if (vfsshim_install("rlyeh-powervfs", &pv_hooks) != SQLITE_OK) {
		snprintf(err, errlen, "power-cut test VFS: cannot register");
		close(pv.fd);
		pv.fd = -1;
		rc = -1;
	}
out:
	pthread_mutex_unlock(&pv.lock);
	return rc;
}
