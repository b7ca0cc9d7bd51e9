/* SPDX-License-Identifier: MIT */
/*
 * Moving one ready segment under a WAL segment name, with the size stub.
 *
 * pg_waldump -p DIR without a file name takes the segment size from the
 * xlp_seg_size of the first WAL-named file readdir() returns: a zero-filled
 * segment stops it ("header specifies 0 bytes").  So each segment gets, on
 * its first page, a long page header whose xlp_seg_size and xlp_xlog_blcksz
 * are set and everything else zero, xlp_magic included.  Every WAL reader
 * (recovery, walsender, pg_waldump, pg_rewind) checks xlp_magic first, so to
 * all of them the page is still one never written, as in a zero-filled
 * segment: recovery ends there, a standby retries the page from another
 * source.  A fully valid header would not do: recovery would accept the page
 * and then fail the record on it, which a standby can only retry from the
 * start of a record that began in the previous segment.
 *
 * The stub is written before the segment gets its name (PostgreSQL may open
 * and write a named segment at any moment): the pool hands a segment out
 * under PGP_STAGED in its own directory, the stub is written and synced
 * there, and under ControlFileLock (see ahead.c) the staged file is renamed
 * under the WAL name with RENAME_NOREPLACE and pg_wal fsync()ed, as
 * PostgreSQL's durable_rename() would.  The stub is the same for every
 * segment, so a staged file whose name was taken meanwhile waits for the
 * next one.
 */
#include "pg_prealloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>

#include "access/xlog.h"
#include "storage/lwlock.h"

/* Writes the stub into the staged segment and syncs it. */
static int stub(int fd)
{
	XLogLongPageHeaderData h;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size != wal_segment_size)
		return -EUCLEAN;
	memset(&h, 0, sizeof(h));
	h.xlp_seg_size = wal_segment_size;
	h.xlp_xlog_blcksz = XLOG_BLCKSZ;
	if (pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return errno ? -errno : -EIO;
	return fdatasync(fd) < 0 ? -errno : 0;
}

/* A staged segment with its stub, from an earlier call, an earlier run of
 * the worker (stubbed again: it may have crashed before the sync) or the
 * pool (-EAGAIN: none ready). */
static int stage(struct pgp_install *in, struct prealloc_pool *pool)
{
	int fd, ret;

	if (in->staged)
		return 0;
	fd = openat(in->pooldir, PGP_STAGED, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno != ENOENT)
		return -errno;
	if (fd < 0)
		fd = prealloc_pool_take(pool, in->pooldir, PGP_STAGED, PREALLOC_POOL_TAKE_NOWAIT);
	if (fd < 0)
		return fd;
	ret = stub(fd);
	close(fd);
	if (ret == -EUCLEAN)	/* not one of ours: make room for one */
		ret = unlinkat(in->pooldir, PGP_STAGED, 0) < 0 ? -errno : -EAGAIN;
	in->staged = ret == 0;
	return ret;
}

int pgp_install(struct pgp_install *in, struct prealloc_pool *pool, int waldir, const char *name,
		const struct pgp_walpos *p, XLogSegNo seg)
{
	int ret;

	ret = stage(in, pool);
	if (ret)
		return ret;
	LWLockAcquire(ControlFileLock, LW_EXCLUSIVE);
	if (!pgp_wal_may_install(p, seg))
		ret = -EBUSY;
	else if (renameat2(in->pooldir, PGP_STAGED, waldir, name, RENAME_NOREPLACE) < 0)
		ret = -errno;
	if (ret == 0) {
		in->staged = false;
		/* Durable before any backend can write WAL into it. */
		if (fsync(waldir) < 0)
			ret = -errno;
	}
	LWLockRelease(ControlFileLock);
	if (ret == -EEXIST)
		return 0;
	if (ret < 0)
		return ret;
	(void)fsync(in->pooldir);	/* the staged name gone for good too */
	return 1;
}
