/* SPDX-License-Identifier: MIT */
/*
 * Undo of a failed call on a regular file.  The call may have allocated only
 * blocks that were holes (or unallocated beyond EOF) when it started, and may
 * have changed only the size, upwards, to at most the end of its range.  Undo
 * punches those blocks, cuts the size back if it is still one the call set,
 * and never truncates up.  ext4 punches nothing beyond EOF: there a truncate
 * to the current size frees what the call left beyond it, and the file's own
 * earlier reservation beyond EOF is then reserved again (on btrfs, after a
 * commit when the filesystem is full).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/internal.h"
#include "src/file/undo.h"
#include "src/fs/fs.h"

/* Is anything allocated in [start, end)? */
static bool allocated(int fd, uint64_t start, uint64_t end)
{
	struct pa_extlist ext = { 0 };
	bool fiemap, any;

	any = pa_extents_read(fd, start, end, &ext, &fiemap) != 0 || ext.n > 0;
	pa_extlist_free(&ext);
	return any;
}

int pa_undo_record(struct pa_undo *u, int fd, uint64_t off, uint64_t end,
		   uint64_t old_size, uint64_t bs, bool may_resize)
{
	bool fiemap;

	*u = (struct pa_undo){ .off = off, .end = end, .old_size = old_size, .bs = bs,
			       .may_resize = may_resize };
	/* Inside EOF punching works everywhere and the size stays: no truncate. */
	if (end <= old_size)
		return 0;
	u->eof_hole = old_size % bs && !allocated(fd, PA_ROUND_DOWN(old_size, bs), old_size);
	return pa_extents_read(fd, PA_ROUND_UP(old_size, bs), PA_MAX_END, &u->beyond, &fiemap);
}

void pa_undo_free(struct pa_undo *u)
{
	pa_extlist_free(&u->beyond);
}

/* Keep the first error the undo meets: the report says the file may not
 * be as it was. */
static void note(int *err, int ret)
{
	if (ret < 0 && !*err)
		*err = -errno;
}

static int reserve(int fd, uint64_t s, uint64_t e)
{
	return PA_RETRY_EINTR(fallocate(fd, FALLOC_FL_KEEP_SIZE, (off_t)s, (off_t)(e - s)));
}

/* Reserve again what the file had beyond EOF (a truncate freed it).  On a
 * full btrfs the blocks the truncate freed were durable, so they come back
 * only when the transaction commits: commit, then try again. */
static void reserve_again(const struct pa_undo *u, int fd, uint64_t from, int *err)
{
	bool committed = false;

	for (size_t i = 0; i < u->beyond.n; i++) {
		uint64_t s = PA_MAX(u->beyond.v[i].start, from);
		uint64_t e = u->beyond.v[i].start + u->beyond.v[i].len;
		int ret;

		if (s >= e)
			continue;
		ret = reserve(fd, s, e);
		if (ret < 0 && errno == ENOSPC && !committed) {
			committed = true;
			if (pa_fs_commit(fd) == 0)
				ret = reserve(fd, s, e);
		}
		note(err, ret);
	}
}

/* Do the bytes [start, end) read zero? */
static bool reads_zero(int fd, uint64_t start, uint64_t end)
{
	uint8_t buf[4096];

	while (start < end) {
		ssize_t n = pread(fd, buf, PA_MIN(sizeof(buf), end - start), (off_t)start);

		if (n <= 0)
			return false;
		for (ssize_t i = 0; i < n; i++)
			if (buf[i])
				return false;
		start += (uint64_t)n;
	}
	return true;
}

/*
 * Growing the size makes btrfs write zeros into the rest of the old last
 * block, allocating it when it was a hole.  Give it back when its bytes
 * inside EOF still read zero, as a hole does.  (A writer putting non-zero
 * bytes there between the check and the punch would lose them: the window
 * is two syscalls, and only on a failed call that had grown the file.)
 */
static void release_eof_block(const struct pa_undo *u, int fd, int *err)
{
	uint64_t blk = PA_ROUND_DOWN(u->old_size, u->bs);

	if (allocated(fd, blk, u->old_size) && reads_zero(fd, blk, u->old_size))
		note(err, PA_RETRY_EINTR(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
						   (off_t)blk, (off_t)u->bs)));
}

int pa_undo_run(const struct pa_undo *u, const struct pa_regionlist *regions, int fd, bool sync)
{
	const int punch = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	uint64_t size, lo, hi, eof_blk;
	bool cut = false, left = false;
	struct stat st;
	int err = 0;

	if (fstat(fd, &st) < 0)
		return -errno;
	size = (uint64_t)st.st_size;
	/* Nobody else may write into the range, so a size inside it, above
	 * the old one, was set by this call. */
	if (u->may_resize && size > u->old_size && size <= u->end) {
		int ret = PA_RETRY_EINTR(ftruncate(fd, (off_t)u->old_size));

		note(&err, ret);
		cut = ret == 0;
		if (cut)
			size = u->old_size;
	}
	eof_blk = PA_ROUND_UP(size, u->bs);
	/* A block the range shares with bytes outside it is released only if
	 * those bytes are beyond EOF: no one else's data can be there. */
	lo = PA_ROUND_DOWN(u->off, u->bs);
	if (lo < size)
		lo = PA_ROUND_UP(u->off, u->bs);
	hi = u->end >= size ? PA_ROUND_UP(u->end, u->bs) : PA_ROUND_DOWN(u->end, u->bs);
	for (size_t i = 0; i < regions->n; i++) {
		const struct pa_region *s = &regions->v[i];
		uint64_t ps = PA_MAX(s->blk_start, lo), pe = PA_MIN(s->blk_end, hi);

		/* A block shared with data or an extent that was there before
		 * (the old EOF's partial block) is not the call's to release. */
		if (i > 0 && !pa_region_fresh(&regions->v[i - 1]))
			ps = PA_MAX(ps, PA_ROUND_UP(s->start, u->bs));
		if (i + 1 < regions->n && !pa_region_fresh(&regions->v[i + 1]))
			pe = PA_MIN(pe, PA_ROUND_DOWN(s->start + s->len, u->bs));

		if (cut)	/* the truncate freed everything past its block */
			pe = PA_MIN(pe, eof_blk);
		if (!pa_region_fresh(s) || ps >= pe)
			continue;
		note(&err, PA_RETRY_EINTR(fallocate(fd, punch, (off_t)ps, (off_t)(pe - ps))));
		if (pe > eof_blk && allocated(fd, PA_MAX(ps, eof_blk), pe))
			left = true;
	}
	/* Same-size truncate: frees every block beyond EOF, ours included. */
	if (left && fstat(fd, &st) == 0 && (uint64_t)st.st_size == size) {
		int ret = PA_RETRY_EINTR(ftruncate(fd, (off_t)size));

		note(&err, ret);
		cut |= ret == 0;
	}
	if (cut)
		reserve_again(u, fd, eof_blk, &err);
	if (u->eof_hole && size == u->old_size)
		release_eof_block(u, fd, &err);
	/* The call's changes may be durable already (the journal commits
	 * fallocate()); so must their undoing be, before "as it was" holds. */
	if (sync)
		note(&err, PA_RETRY_EINTR(fsync(fd)));
	return err;
}
