/* SPDX-License-Identifier: MIT */
/*
 * Buffered zero writes that leave the page cache as they found it.
 *
 * RWF_DONTCACHE (Linux 6.14; ext4 and xfs among others) has the kernel
 * start write-back at once and drop the pages when it completes, and it
 * keeps the pages that were cached before the write.  Where it is refused
 * (EOPNOTSUPP: an older kernel, btrfs, tmpfs, FUSE), write-back is started
 * for every window of WINDOW bytes, and the window before is waited for and
 * dropped (POSIX_FADV_DONTNEED): only whole pages the call wrote, never the
 * partial pages at either end, which may hold the caller's bytes.  The
 * call's one fdatasync() still makes it durable; nothing here does.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/log.h"
#include "src/exec/dontcache.h"
#include "src/exec/job.h"

/* At most two windows of the call's pages are cached at any time. */
#define WINDOW (8ull << 20)

void pa_dc_begin(struct pa_dc *d, int fd, uint64_t start)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);

	*d = (struct pa_dc){ .fd = fd, .pg = pg, .kicked = start,
			     .dropped = PA_ROUND_UP(start, pg) };
}

ssize_t pa_dc_pwritev(struct pa_job *j, int fd, const struct iovec *iov, int cnt, uint64_t off,
		      int rwf)
{
	if (!j->dontcache_refused) {
		ssize_t w = pwritev2(fd, iov, cnt, (off_t)off, rwf | PA_RWF_DONTCACHE);

		if (w >= 0 || errno != EOPNOTSUPP)
			return w;
		j->dontcache_refused = true;
		pa_log_to(j->log, LOG_INFO, "RWF_DONTCACHE refused (EOPNOTSUPP): writing back "
			  "and dropping the page cache every %llu MiB instead\n", WINDOW >> 20);
	}
	return pwritev2(fd, iov, cnt, (off_t)off, rwf);
}

/* sync_file_range() of [s, e): 0, or the write-back error.  A file that has
 * no write-back (a pipe; a seccomp profile that denies the call) just stays
 * cached: d->off. */
static int range_sync(struct pa_dc *d, uint64_t s, uint64_t e, unsigned int flags)
{
	if (d->off || e <= s)
		return 0;
	if (PA_RETRY_EINTR(sync_file_range(d->fd, (off_t)s, (off_t)(e - s), flags)) == 0)
		return 0;
	if (errno == EINVAL || errno == ESPIPE || errno == ENOSYS || errno == EPERM ||
	    errno == EOPNOTSUPP) {
		d->off = true;
		return 0;
	}
	return -errno;
}

/* Wait until [d->dropped, @upto) is written back, then drop its whole pages. */
static int settle(struct pa_dc *d, uint64_t upto)
{
	const unsigned int wait = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				  SYNC_FILE_RANGE_WAIT_AFTER;
	uint64_t e = PA_ROUND_DOWN(upto, d->pg);
	int ret;

	if (e <= d->dropped)
		return 0;
	ret = range_sync(d, d->dropped, e, wait);
	if (!ret && !d->off)
		posix_fadvise(d->fd, (off_t)d->dropped, (off_t)(e - d->dropped),
			      POSIX_FADV_DONTNEED);
	d->dropped = e;
	return ret;
}

int pa_dc_wrote(struct pa_job *j, struct pa_dc *d, uint64_t end)
{
	uint64_t prev = d->kicked;
	int ret;

	if (!j->dontcache_refused || end - d->kicked < WINDOW)
		return 0;
	ret = range_sync(d, d->kicked, end, SYNC_FILE_RANGE_WRITE);
	d->kicked = end;
	return ret ? ret : settle(d, prev);
}

int pa_dc_end(struct pa_job *j, struct pa_dc *d, uint64_t end, int ret)
{
	if (!j->dontcache_refused)
		return ret;
	/* A failed call is undone: no waiting, the clean pages go. */
	if (ret) {
		if (!d->off && PA_ROUND_DOWN(end, d->pg) > d->dropped)
			posix_fadvise(d->fd, (off_t)d->dropped,
				      (off_t)(PA_ROUND_DOWN(end, d->pg) - d->dropped),
				      POSIX_FADV_DONTNEED);
		return ret;
	}
	return settle(d, end);
}
