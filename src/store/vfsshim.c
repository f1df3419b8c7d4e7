/* vfsshim: the pass-through VFS under the power-cut hooks (see vfsshim.h). */
#include "vfsshim.h"

#include <stdlib.h>
#include <string.h>

static struct {
	sqlite3_vfs vfs;
	sqlite3_vfs *real; /* NULL before install */
	const struct vfsshim_hooks *hooks;
} shim;

#define REAL(f) (((struct vfsshim_file *)(f))->real)

static int vs_close(sqlite3_file *f)
{
	sqlite3_file *r = REAL(f);
	return r->pMethods ? r->pMethods->xClose(r) : SQLITE_OK;
}

static int vs_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
	return REAL(f)->pMethods->xRead(REAL(f), buf, n, off);
}

static int vs_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
	struct vfsshim_file *p = (struct vfsshim_file *)f;
	if (!p->track)
		return p->real->pMethods->xWrite(p->real, buf, n, off);
	return shim.hooks->write(p, buf, n, off);
}

static int vs_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	struct vfsshim_file *p = (struct vfsshim_file *)f;
	if (!p->track)
		return p->real->pMethods->xTruncate(p->real, size);
	return shim.hooks->truncate(p, size);
}

static int vs_sync(sqlite3_file *f, int flags)
{
	struct vfsshim_file *p = (struct vfsshim_file *)f;
	if (!p->track)
		return p->real->pMethods->xSync(p->real, flags);
	return shim.hooks->sync(p, flags);
}

static int vs_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int vs_lock(sqlite3_file *f, int level)
{
	return REAL(f)->pMethods->xLock(REAL(f), level);
}

static int vs_unlock(sqlite3_file *f, int level)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), level);
}

static int vs_reserved(sqlite3_file *f, int *out)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int vs_control(sqlite3_file *f, int op, void *arg)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int vs_sector(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int vs_device(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

static int vs_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **out)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), region, size, extend, out);
}

static int vs_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}

static void vs_shm_barrier(sqlite3_file *f)
{
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}

static int vs_shm_unmap(sqlite3_file *f, int del)
{
	return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}

/* No memory-mapped pages: every read goes through xRead. */
static int vs_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **out)
{
	(void)f;
	(void)off;
	(void)n;
	*out = NULL;
	return SQLITE_OK;
}

static int vs_unfetch(sqlite3_file *f, sqlite3_int64 off, void *page)
{
	(void)f;
	(void)off;
	(void)page;
	return SQLITE_OK;
}

static const sqlite3_io_methods vs_methods = {
	3,           vs_close,       vs_read,      vs_write,   vs_truncate, vs_sync,   vs_size,
	vs_lock,     vs_unlock,      vs_reserved,  vs_control, vs_sector,   vs_device, vs_shm_map,
	vs_shm_lock, vs_shm_barrier, vs_shm_unmap, vs_fetch,   vs_unfetch,
};

static int vs_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	struct vfsshim_file *p = (struct vfsshim_file *)f;
	int rc, refuse = 0;

	(void)vfs;
	memset(p, 0, sizeof(*p));
	p->real = (sqlite3_file *)&p[1];
	rc = shim.real->xOpen(shim.real, name, p->real, flags, out);
	if (rc != SQLITE_OK) {
		p->base.pMethods = NULL;
		return rc;
	}
	p->base.pMethods = &vs_methods;
	if (name && (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL))) {
		enum vfsshim_kind kind = flags & SQLITE_OPEN_MAIN_DB ? VFSSHIM_DB
		                         : flags & SQLITE_OPEN_WAL   ? VFSSHIM_WAL
		                                                     : VFSSHIM_JOURNAL;
		p->track = shim.hooks->open_track(name, kind, &refuse);
		if (!p->track && refuse) {
			p->real->pMethods->xClose(p->real);
			p->base.pMethods = NULL;
			return SQLITE_CANTOPEN;
		}
	}
	return SQLITE_OK;
}

static int vs_delete(sqlite3_vfs *vfs, const char *name, int dirsync)
{
	(void)vfs;
	return shim.hooks->delete (shim.real, name, dirsync);
}

int vfsshim_install(const char *name, const struct vfsshim_hooks *hooks)
{
	sqlite3_vfs *real;
	int rc;

	if (shim.real)
		return SQLITE_MISUSE;
	if (!(real = sqlite3_vfs_find(NULL)))
		return SQLITE_ERROR;
	shim.vfs = *real;
	shim.vfs.zName = name;
	shim.vfs.szOsFile = (int)sizeof(struct vfsshim_file) + real->szOsFile;
	shim.vfs.xOpen = vs_open;
	shim.vfs.xDelete = vs_delete;
	shim.vfs.pNext = NULL;
	shim.hooks = hooks;
	shim.real = real;
	rc = sqlite3_vfs_register(&shim.vfs, 1);
	if (rc != SQLITE_OK)
		shim.real = NULL;
	return rc;
}

sqlite3_vfs *vfsshim_real(void)
{
	return shim.real;
}

int vfsshim_old_bytes(struct vfsshim_file *f, sqlite3_int64 off, sqlite3_int64 len,
                      sqlite3_int64 *size, unsigned char **bytes, int *n)
{
	*bytes = NULL;
	*n = 0;
	*size = 0;
	if (f->real->pMethods->xFileSize(f->real, size) != SQLITE_OK)
		return -1;
	if (off >= *size || len <= 0)
		return 0;
	*n = (int)(off + len <= *size ? len : *size - off);
	if (!(*bytes = malloc((size_t)*n)))
		return -1;
	if (f->real->pMethods->xRead(f->real, *bytes, *n, off) != SQLITE_OK) {
		free(*bytes);
		*bytes = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}
