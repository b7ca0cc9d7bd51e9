/* SPDX-License-Identifier: MIT */
/* The simple zeroing methods, and who refused write-zeroes. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/internal.h"
#include "src/exec/direct.h"
#include "src/exec/dontcache.h"
#include "src/exec/progress.h"
#include "src/exec/wz_inode.h"
#include "src/exec/zero.h"
#include "src/method/method.h"

#define ZBUF	(64u << 10)
#define ZIOV	16		/* 1 MiB per pwritev() */
#define ZALIGN	4096u		/* good for direct I/O too */

static const uint8_t zeros[ZBUF] __attribute__((aligned(ZALIGN)));

/*
 * Why FALLOC_FL_WRITE_ZEROES was refused, and who refused it (*@by, for the
 * log): what sysfs or an earlier answer said already (a forced call); the
 * file, when its inode explains it or its filesystem took the flag before;
 * otherwise the filesystem (or the block device), which this context then
 * does not ask again, whether the call was automatic or forced.
 */
static enum prealloc_write_zeroes wz_refusal(const struct pa_job *j, const char **by)
{
	const struct pa_target *t = j->target;
	bool file = t->in.target == PA_TARGET_FILE;
	enum prealloc_write_zeroes v = pa_plan_write_zeroes(&t->in);

	if (!pa_wz_tried(v) && v != PREALLOC_WZ_NO_DEVICE_FACTS && v != PREALLOC_WZ_KEEP_SIZE)
		goto out;
	if (file && (*by = pa_wz_inode_refusal(j->fd, t, j->sysfs)))
		return PREALLOC_WZ_INODE;
	if (file && j->wz_answer(t->ctx, t->dev, t->fs_type) == PREALLOC_YES) {
		*by = "this file (its filesystem took the flag before)";
		return PREALLOC_WZ_INODE;
	}
	j->wz_remember(t->ctx, t->dev, t->fs_type, PREALLOC_NO);
	if (!file)
		v = PREALLOC_WZ_DEVICE_CANNOT;
	else if (t->in.write_zeroes_unmap == PREALLOC_UNKNOWN)
		v = PREALLOC_WZ_FS_OR_DEVICE;
	else
		v = PREALLOC_WZ_FS_REFUSED;
out:
	*by = pa_wz_verdict(v)->refused_by;
	return v;
}

/* Zeros to [start, start + len) of @fd in pwritev() calls of up to 1 MiB;
 * @buffered ones leave the page cache as they found it (src/exec/dontcache.c). */
static int zero_pwrite(struct pa_job *j, int fd, int rwf, bool buffered, uint64_t start,
		       uint64_t len)
{
	struct iovec iov[ZIOV];
	uint64_t end = start + len;
	struct pa_dc dc;
	int ret = 0;

	pa_dc_begin(&dc, fd, start);
	while (start < end && !ret) {
		/* No more per write than the pacer allows (a cap's window). */
		uint64_t n = PA_MIN(end - start,
				    pa_pace_request(&j->pace, (uint64_t)ZBUF * ZIOV, 4096));
		int cnt = 0;
		ssize_t w;

		for (uint64_t left = n; left; cnt++) {
			iov[cnt].iov_base = (void *)zeros;
			iov[cnt].iov_len = PA_MIN(left, ZBUF);
			left -= iov[cnt].iov_len;
		}
		w = PA_PACED(&j->pace, n, PA_RETRY_EINTR(buffered ?
			pa_dc_pwritev(j, fd, iov, cnt, start, rwf) :
			pwritev2(fd, iov, cnt, (off_t)start, rwf)));
		if (w <= 0) {
			ret = w < 0 ? -errno : -EIO;
			break;
		}
		start += (uint64_t)w;
		ret = buffered ? pa_dc_wrote(j, &dc, start) : 0;
		if (!ret && pa_advance(j, PREALLOC_METHOD_BUFFERED, (uint64_t)w))
			ret = -ECANCELED;
	}
	return buffered ? pa_dc_end(j, &dc, start, ret) : ret;
}

/*
 * Zero [start, start + len) through a shared mapping of @fd: the one way to
 * write less than a direct-I/O block through an O_DIRECT descriptor (it
 * must be open for reading too).  The blocks are allocated first, which also
 * extends the size over the range, so the page fault has nothing left to
 * fail on: a failed fault is SIGBUS, not an errno.
 */
static int zero_mapped(struct pa_job *j, int fd, uint64_t start, uint64_t len)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t ms = PA_ROUND_DOWN(start, pg), me = PA_ROUND_UP(start + len, pg);
	struct stat st;
	uint8_t *p;

	if (!len)
		return 0;
	if (PA_RETRY_EINTR(fallocate(fd, 0, (off_t)start, (off_t)len)) < 0 &&
	    errno != EOPNOTSUPP)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (start + len > (uint64_t)st.st_size)
		return -EINVAL;
	p = mmap(NULL, me - ms, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)ms);
	if (p == MAP_FAILED)
		return errno == EACCES ? -EINVAL : -errno;	/* write-only */
	memset(p + (start - ms), 0, len);
	munmap(p, me - ms);
	return pa_advance(j, PREALLOC_METHOD_BUFFERED, len) ? -ECANCELED : 0;
}

/* j->wfd is the caller's O_DIRECT descriptor (no other could be opened):
 * whole pages written direct, partial ones through the page cache. */
static int zero_direct(struct pa_job *j, uint64_t start, uint64_t len)
{
	uint64_t end = start + len, a, ms, me;
	int ret = pa_open_direct(j, 512);

	if (ret)
		return ret;
	a = pa_direct_align(j);
	ms = PA_ROUND_UP(start, a);
	me = PA_ROUND_DOWN(end, a);
	if (me <= ms || j->dio_mem_align > ZALIGN)
		return zero_mapped(j, j->wfd, start, len);
	ret = zero_pwrite(j, j->dfd, j->dio_rwf, false, ms, me - ms);
	if (!ret)
		ret = zero_mapped(j, j->wfd, start, ms - start);
	if (!ret)
		ret = zero_mapped(j, j->wfd, me, end - me);
	return ret;
}

/* Status flags of j->wfd, learnt once per descriptor (the block-device
 * path swaps in its own). */
static int wfd_flags(struct pa_job *j)
{
	if (j->wfd_known != j->wfd) {
		j->wfd_flags = fcntl(j->wfd, F_GETFL);
		if (j->wfd_flags < 0)
			j->wfd_flags = -errno;
		j->wfd_known = j->wfd;
	}
	return j->wfd_flags;
}

int pa_zero_buffered(struct pa_job *j, uint64_t start, uint64_t len)
{
	int fl = wfd_flags(j);

	if (fl < 0)
		return fl;
	if (fl & O_DIRECT)
		return zero_direct(j, start, len);
	return zero_pwrite(j, j->wfd, fl & O_APPEND ? PA_RWF_NOAPPEND : 0, true, start, len);
}

static int zeroout_op(int fd, uint64_t start, uint64_t len)
{
	uint64_t r[2] = { start, len };

	if (PA_RETRY_EINTR(ioctl(fd, BLKZEROOUT, r)) == 0)
		return 0;
	return errno == ENOTTY ? -EOPNOTSUPP : -errno;
}

static int write_zeroes_op(int fd, uint64_t start, uint64_t len)
{
	return PA_RETRY_EINTR(fallocate(fd, FALLOC_FL_WRITE_ZEROES, (off_t)start,
					(off_t)len)) == 0 ? 0 : -errno;
}

/* @op over [start, start + len) in paced chunks, counted as @method: the
 * kernel zeroes, so only progress and cancelling need the chunks. */
static int zero_chunks(struct pa_job *j, unsigned int method, uint64_t start, uint64_t len,
		       uint64_t chunk, int (*op)(int fd, uint64_t start, uint64_t len))
{
	uint64_t end = start + len;
	int ret;

	chunk = pa_pace_chunk(&j->pace, chunk ? chunk : len);
	while (start < end) {
		uint64_t n = PA_MIN(end - start, chunk);

		if ((ret = PA_PACED(&j->pace, n, op(j->wfd, start, n))) < 0)
			return ret;
		start += n;
		if (pa_advance(j, method, n))
			return -ECANCELED;
	}
	return 0;
}

/* With a block device's claim held in j->wfd, the kernel truncates the
 * range from the page cache (dirty pages included) instead of merely
 * trying to invalidate it. */
int pa_zero_out(struct pa_job *j, uint64_t start, uint64_t len, uint64_t chunk)
{
	return zero_chunks(j, PREALLOC_METHOD_ZEROOUT, start, len, chunk, zeroout_op);
}

/* A range the kernel zeroed is its answer for the filesystem: it works;
 * a refusal before any is the answer for the file or the filesystem, a
 * forced call's too. */
int pa_zero_write_zeroes(struct pa_job *j, uint64_t start, uint64_t len, uint64_t chunk)
{
	int ret = zero_chunks(j, PREALLOC_METHOD_WRITE_ZEROES, start, len, chunk, write_zeroes_op);

	if (j->rep->bytes_by_method[PREALLOC_METHOD_WRITE_ZEROES]) {
		j->rep->write_zeroes = PREALLOC_WZ_USED;
		j->wz_remember(j->target->ctx, j->target->dev, j->target->fs_type, PREALLOC_YES);
	} else if (pa_refused(ret)) {
		j->rep->write_zeroes = wz_refusal(j, &j->wz_refuser);
	}
	return ret;
}
