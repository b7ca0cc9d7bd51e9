/* SPDX-License-Identifier: MIT */
/*
 * Block-device targets: make [off, off + len) of a raw device read as zeros.
 *
 * Every block of a device already exists, so "preallocating" it means zeroing
 * it, which destroys what is there.  Hence, before anything is written: the
 * caller must ask for it (PREALLOC_ZERO_DATA), the range must be logical-block
 * aligned and inside the device, the device must not be mounted or claimed by
 * anyone else (we claim it ourselves with O_EXCL for the duration, so nobody
 * can mount it behind our back either), and without PREALLOC_FORCE it must
 * carry no filesystem, RAID or partition-table signature.
 *
 * A caller that holds the device open with O_EXCL itself is refused too: the
 * kernel cannot tell its claim from a mount's.
 *
 * Methods, cheapest first, as the planner orders them: FALLOC_FL_WRITE_ZEROES
 * (the device unmaps; no bandwidth), BLKZEROOUT (Write Zeroes without unmap,
 * or the kernel's own zero-page writes), O_DIRECT zero writes through
 * io_uring.  All three leave no stale page cache: fallocate and BLKZEROOUT
 * truncate the range from the page cache, direct writes invalidate it.
 *
 * On failure or cancel the part already zeroed stays zeroed: a device has no
 * "old size" to restore and the old bytes are gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/fs.h>

#include "blkid.h"
#include "engine.h"
#include "internal.h"

/* Bytes per BLKZEROOUT or fallocate call: the unit of progress and cancel. */
#define CHUNK_MIN	(64ull << 20)
#define CHUNK_MAX	(1ull << 30)

struct bdev {
	struct pa_call *c;
	int xfd;		/* our O_EXCL descriptor: the claim */
	uint32_t lbs;		/* logical block size */
	uint64_t size;		/* bytes */
	uint64_t chunk;
	uint64_t off, len;	/* the request */
	uint64_t base;		/* c->done before the first method */
};

static int geometry(int fd, struct bdev *b)
{
	int lbs;

	if (ioctl(fd, BLKSSZGET, &lbs) < 0 || ioctl(fd, BLKGETSIZE64, &b->size) < 0)
		return -errno;
	if (lbs < 512)
		return -EIO;
	b->lbs = (uint32_t)lbs;
	return 0;
}

static bool range_ok(const struct bdev *b, uint64_t off, uint64_t len)
{
	return off % b->lbs == 0 && len % b->lbs == 0 && len <= b->size &&
	       off <= b->size - len;
}

/*
 * Claim the device exclusively, as mount does.  The kernel refuses while a
 * filesystem, a dm/md holder, another O_EXCL opener, or (for a whole disk) a
 * mounted partition holds it: -EBUSY.
 */
static int claim(const struct pa_call *c)
{
	return pa_reopen(c->fd, &c->target.st, O_WRONLY | O_EXCL);
}

/*
 * -EEXIST when the device carries a signature.  Without libblkid, or
 * without a read-only descriptor of our own (the caller's may be write-only,
 * and probing moves the file offset), the device cannot be shown to be
 * blank, so it is treated as signed: only PREALLOC_FORCE zeroes it.
 */
static int check_signatures(const struct pa_call *c)
{
	int rfd, n;

	if (c->opts.flags & PREALLOC_FORCE)
		return 0;
	rfd = pa_reopen(c->fd, &c->target.st, O_RDONLY | O_NONBLOCK);
	if (rfd < 0)
		return -EEXIST;
	n = pa_blkid_signatures_fd(rfd, NULL, 0);
	close(rfd);
	if (n == -EOPNOTSUPP || n > 0)
		return -EEXIST;
	return n;
}

/*
 * Large enough for full-size Write Zeroes commands, small enough to report
 * progress and cancel promptly.  Without Write Zeroes the kernel writes zero
 * pages at disk bandwidth, so the smallest chunk is used.
 */
static uint64_t chunk_bytes(const struct pa_caps *caps, uint32_t lbs)
{
	uint64_t wz = caps ? caps->write_zeroes_max_bytes : 0;
	uint64_t chunk = wz ? PA_MIN(PA_MAX(wz, CHUNK_MIN), CHUNK_MAX) : CHUNK_MIN;

	return PA_MAX(PA_ROUND_DOWN(chunk, lbs), (uint64_t)lbs);
}

/* BLKZEROOUT through our exclusive descriptor: with the claim held, the
 * kernel truncates the range from the page cache (dirty pages included)
 * instead of merely trying to invalidate it. */
static int zeroout(struct pa_call *c, const struct bdev *b, uint64_t start, uint64_t len)
{
	uint64_t end = start + len, chunk = pa_pace_chunk(&c->pace, b->chunk);

	while (start < end) {
		uint64_t r[2] = { start, PA_MIN(end - start, chunk) };

		if (PA_PACED(&c->pace, r[1], PA_RETRY_EINTR(ioctl(b->xfd, BLKZEROOUT, r))) < 0)
			return errno == ENOTTY ? -EOPNOTSUPP : -errno;
		start += r[1];
		if (pa_advance(c, PREALLOC_METHOD_ZEROOUT, r[1]))
			return -ECANCELED;
	}
	return 0;
}

static int direct_writes(struct pa_call *c, const struct bdev *b, uint64_t start, uint64_t len)
{
	struct pa_range r = { start, len };
	int ret = pa_open_direct(c, b->lbs);

	if (ret)
		return ret;
	/* A device whose direct-I/O alignment exceeds its logical block. */
	if (start % c->dio_align || len % c->dio_align)
		return -EOPNOTSUPP;
	return pa_zero_uring(c, &r, 1);
}

/*
 * A refused method hands what is left of the range to the next one.
 * Methods count their bytes through pa_advance(), so c->done tells where a
 * refused method stopped: fallocate and BLKZEROOUT go in order, and the
 * io_uring writer (whose completions do not) is refused only before its
 * first write (O_DIRECT open, ring setup).
 */
static int run_method(void *job, unsigned int m)
{
	const struct bdev *b = job;
	struct pa_call *c = b->c;
	uint64_t done = c->done - b->base, start = b->off + done, len = b->len - done;

	switch (m) {
	case PREALLOC_METHOD_WRITE_ZEROES:
		return pa_zero_write_zeroes(c, start, len, b->chunk);
	case PREALLOC_METHOD_ZEROOUT:
		return zeroout(c, b, start, len);
	case PREALLOC_METHOD_URING:
		return direct_writes(c, b, start, len);
	case PREALLOC_METHOD_BUFFERED:
		return pa_zero_buffered(c, start, len);
	default:
		return -EOPNOTSUPP;
	}
}

/* The planner's order for this device, from what api.c learnt of it. */
static int plan(struct pa_call *c, struct bdev *b, struct pa_plan *p)
{
	b->chunk = chunk_bytes(c->target.caps, b->lbs);
	return pa_plan(&c->target.in, p);
}

/* Checks that need no claim; nothing is written if any fails. */
static int check_request(struct pa_call *c, uint64_t off, uint64_t len, struct bdev *b)
{
	int ret;

	/* PREALLOC_KEEP_SIZE is ignored: a device's size never changes. */
	if (!(c->opts.flags & PREALLOC_ZERO_DATA))
		return -EINVAL;
	ret = geometry(c->fd, b);
	if (ret)
		return ret;
	return range_ok(b, off, len) ? 0 : -EINVAL;
}

int pa_blockdev_prealloc(struct pa_call *c, uint64_t off, uint64_t len)
{
	struct bdev b = { .c = c, .xfd = -1, .off = off, .len = len };
	struct pa_plan p;
	int wfd = c->wfd;
	int ret;

	pa_step(c, PREALLOC_STEP_REQUEST, 0);
	ret = check_request(c, off, len, &b);
	if (ret)
		return ret;
	ret = plan(c, &b, &p);
	if (ret)
		return ret;
	pa_step(c, PREALLOC_STEP_CLAIM, 0);
	b.xfd = claim(c);
	if (b.xfd < 0)
		return b.xfd;
	pa_step(c, PREALLOC_STEP_SIGNATURES, 0);
	ret = check_signatures(c);
	if (ret)
		goto out;
	c->wfd = b.xfd;		/* buffered writes go through the claim too */
	c->total = len;
	b.base = c->done;
	ret = pa_run_plan(c, &p, run_method, &b);
	if (!ret)
		pa_step(c, PREALLOC_STEP_SYNC, 0);
	if (!ret && !(c->opts.flags & PREALLOC_NO_SYNC) && fdatasync(b.xfd) < 0)
		ret = -errno;
	c->rep.written = !ret;
out:
	c->wfd = wfd;
	close(b.xfd);
	return ret;
}
