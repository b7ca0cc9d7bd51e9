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

#include "probes/blkid.h"
#include "base/internal.h"
#include "src/exec/blockdev.h"
#include "src/exec/direct.h"
#include "src/exec/exec.h"
#include "src/file/reopen.h"
#include "src/method/method.h"
#include "src/plan/steps.h"

/* Bytes per BLKZEROOUT or fallocate call: the unit of progress and cancel. */
#define CHUNK_MIN	(64ull << 20)
#define CHUNK_MAX	(1ull << 30)

struct bdev {
	int xfd;		/* our O_EXCL descriptor: the claim */
	uint32_t lbs;		/* logical block size */
	uint64_t size;		/* bytes */
	uint64_t off, len;	/* the request */
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
static int claim(const struct pa_job *j)
{
	return pa_reopen(j->fd, &j->target->st, O_WRONLY | O_EXCL);
}

/*
 * -EEXIST when the device carries a signature.  Without libblkid, or
 * without a read-only descriptor of our own (the caller's may be write-only,
 * and probing moves the file offset), the device cannot be shown to be
 * blank, so it is treated as signed: only PREALLOC_FORCE zeroes it.
 */
static int check_signatures(const struct pa_job *j)
{
	int rfd, n;

	if (j->opts->flags & PREALLOC_FORCE)
		return 0;
	rfd = pa_reopen(j->fd, &j->target->st, O_RDONLY | O_NONBLOCK);
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

/* Direct writes need the device's direct-I/O alignment, which may exceed
 * its logical block: refused when what is left is not aligned to it. */
static int prepare(struct pa_job *j, struct pa_exec *x, unsigned int m)
{
	int ret;

	if (!pa_method_is(m, PA_M_DIRECT))
		return 0;
	ret = pa_open_direct(j, (uint32_t)x->w.bs);
	for (size_t i = 0; i < x->ntodo && !ret; i++)
		if (x->todo[i].start % j->dio_align || x->todo[i].len % j->dio_align)
			ret = -EOPNOTSUPP;
	x->w.direct_align = x->w.bs;
	return ret;
}

/* The steps' facts: the whole range, in chunks sized for the device. */
static int exec_init(struct pa_job *j, const struct bdev *b, struct pa_exec *x)
{
	*x = (struct pa_exec){ .prepare = prepare,
			       .chunk = chunk_bytes(j->target->caps, b->lbs) };
	x->w = (struct pa_work){ .in = &j->target->in, .off = b->off, .end = b->off + b->len,
				 .bs = b->lbs };
	return pa_todo_init(&x->w, &x->todo, &x->ntodo);
}

/* Checks that need no claim; nothing is written if any fails. */
static int check_request(struct pa_job *j, uint64_t off, uint64_t len, struct bdev *b)
{
	int ret;

	/* PREALLOC_KEEP_SIZE is ignored: a device's size never changes. */
	if (!(j->opts->flags & PREALLOC_ZERO_DATA))
		return -EINVAL;
	ret = geometry(j->fd, b);
	if (ret)
		return ret;
	return range_ok(b, off, len) ? 0 : -EINVAL;
}

int pa_blockdev_prealloc(struct pa_job *j, uint64_t off, uint64_t len)
{
	struct bdev b = { .xfd = -1, .off = off, .len = len };
	struct pa_exec x = { 0 };
	struct pa_plan p;
	int wfd = j->wfd;
	int ret;

	pa_phase(j->rep, PREALLOC_PHASE_REQUEST, 0);
	ret = check_request(j, off, len, &b);
	if (!ret)
		ret = pa_plan(&j->target->in, &p);
	if (!ret)
		ret = exec_init(j, &b, &x);
	if (!ret)
		ret = pa_exec_prepare(j, &x, &p);
	if (ret)
		goto out;
	pa_phase(j->rep, PREALLOC_PHASE_CLAIM, 0);
	b.xfd = claim(j);
	if (b.xfd < 0) {
		ret = b.xfd;
		goto out;
	}
	pa_phase(j->rep, PREALLOC_PHASE_SIGNATURES, 0);
	ret = check_signatures(j);
	if (ret)
		goto out;
	j->wfd = x.sync_fd = b.xfd;	/* every write goes through the claim */
	j->total = len;
	ret = pa_exec_run(j, &x, &p);
	j->rep->written = !ret;
out:
	pa_exec_free(&x);
	j->wfd = wfd;
	if (b.xfd >= 0)
		close(b.xfd);
	return ret;
}
