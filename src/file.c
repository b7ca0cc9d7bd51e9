/* SPDX-License-Identifier: MIT */
/*
 * Regular files: classify the range, check the space, run the plan with
 * fallback, sync, and undo everything the call allocated if anything fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "extents.h"
#include "internal.h"
#include "mutant.h"
#include "space.h"
#include "undo.h"

#define WZ_CHUNK (1ull << 30)	/* progress and cancelling granularity */
/* Smallest aligned middle worth a direct write (tests/bench, fragmented). */
#define DIRECT_MIN (256ull << 10)

struct file_job {
	struct pa_call *c;
	uint64_t off, end, old_size;
	uint64_t bs;			/* filesystem block size */
	struct pa_seglist segs;
	struct pa_undo undo;		/* the file before the call */
	bool fiemap;			/* segs come from FIEMAP, not SEEK_DATA */
	bool inline_data;		/* ext4 keeps the data in the inode */
	bool piecewise;			/* reserve hole by hole: the range exceeds free space */
	bool reserved;			/* fallocate() was tried */
	bool reserve_refused;		/* ... and the filesystem has none */
	bool touched;			/* something may have changed: undo on failure */
};

static bool keep_size(const struct file_job *j)
{
	return j->c->opts.flags & PREALLOC_KEEP_SIZE;
}

/* Does this segment get zeroed (rather than kept or only reserved)? */
static bool seg_zeroed(const struct file_job *j, const struct pa_seg *s)
{
	if (s->state == PA_SEG_DATA)
		return j->c->opts.flags & PREALLOC_ZERO_DATA;
	/* Written blocks cannot exist beyond EOF without extending it. */
	return !(s->state == PA_SEG_EOF && keep_size(j));
}

static int classify(struct file_job *j)
{
	struct pa_extlist ext = { 0 };
	int ret = pa_extents_read(j->c->fd, j->off, j->end, &ext, &j->fiemap);

	if (!ret)
		ret = pa_classify(ext.v, ext.n, j->off, j->end, j->old_size, j->bs, &j->segs);
	pa_extlist_free(&ext);
	return ret;
}

/* Fail fast with ENOSPC before changing anything (src/space.c). */
static int check_space(struct file_job *j)
{
	uint64_t avail;
	int ret = pa_space_check(&j->c->target.sfs, j->c->target.st.st_dev, &j->segs, &avail);

	/* Allocated space is not reserved again (xfs would count it, and
	 * fail near full): reserve hole by hole when the range exceeds what
	 * is free. */
	j->piecewise = j->end - j->off > avail;
	return ret;
}

static int falloc(int fd, int mode, uint64_t start, uint64_t len)
{
	return PA_RETRY_EINTR(fallocate(fd, mode, (off_t)start, (off_t)len)) < 0 ? -errno : 0;
}

/* fallocate() the range, or only its unallocated pieces when the whole
 * range exceeds free space. */
static int reserve(struct file_job *j)
{
	int mode = keep_size(j) ? FALLOC_FL_KEEP_SIZE : 0, fd = j->c->fd, ret = 0;
	struct stat st;

	if (j->reserved)
		return j->reserve_refused ? -EOPNOTSUPP : 0;
	/* Set first: a failed fallocate() may have allocated part of it. */
	j->reserved = j->touched = true;
	if (!j->piecewise)
		ret = falloc(fd, mode, j->off, j->end - j->off);
	for (size_t i = 0; i < j->segs.n && j->piecewise && !ret; i++)
		if (pa_seg_fresh(&j->segs.v[i]))
			ret = falloc(fd, mode, j->segs.v[i].start, j->segs.v[i].len);
	/* The size, when the last piece was allocated already. */
	if (!ret && j->piecewise && !mode && fstat(fd, &st) == 0 &&
	    (uint64_t)st.st_size < j->end)
		ret = falloc(fd, 0, j->end - 1, 1);
	j->reserve_refused = ret == -EOPNOTSUPP;
	if (ret)
		pa_step(j->c, PREALLOC_STEP_RESERVE, j->c->rep.failed_method);
	return ret;
}

/* Bytes to be zeroed (data, holes, ...), or to be only reserved. */
static uint64_t count_bytes(const struct file_job *j, bool zeroed, bool data)
{
	uint64_t n = 0;

	for (size_t i = 0; i < j->segs.n; i++) {
		const struct pa_seg *s = &j->segs.v[i];

		if ((s->state == PA_SEG_DATA) == data && seg_zeroed(j, s) == zeroed)
			n += s->len;
	}
	return n;
}

/* Reservation only; data the caller asked to zero is still zero-written. */
static int run_allocate(struct file_job *j)
{
	int ret = reserve(j);

	if (ret)
		return ret;
	ret = pa_advance(j->c, PREALLOC_METHOD_ALLOCATE, count_bytes(j, true, false));
	for (size_t i = 0; i < j->segs.n && !ret; i++) {
		const struct pa_seg *s = &j->segs.v[i];

		if (s->state == PA_SEG_DATA && seg_zeroed(j, s)) {
			j->touched = true;
			ret = pa_zero_buffered(j->c, s->start, s->len);
		}
	}
	return ret;
}

/* Zero every segment that gets zeroed with one method. */
static int zero_each(struct file_job *j, int (*zero)(struct pa_call *, uint64_t, uint64_t))
{
	for (size_t i = 0; i < j->segs.n; i++) {
		const struct pa_seg *s = &j->segs.v[i];
		int ret;

		if (!seg_zeroed(j, s))
			continue;
		j->touched = true;
		ret = zero(j->c, s->start, s->len);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The @a-aligned middle of segment @s, or false if it has none of at least
 * @min bytes (then the whole segment is written buffered).
 */
static bool middle(const struct pa_seg *s, uint64_t a, uint64_t min, struct pa_range *ret)
{
	uint64_t ms = PA_ROUND_UP(s->start, a), me = PA_ROUND_DOWN(s->start + s->len, a);

	*ret = (struct pa_range){ ms, me > ms ? me - ms : 0 };
	return me > ms && me - ms >= min;
}

/* pwrite() zeros to what middle() leaves of each zeroed segment. */
static int write_edges(struct file_job *j, uint64_t a, uint64_t min)
{
	int ret = 0;

	for (size_t i = 0; i < j->segs.n && !ret; i++) {
		const struct pa_seg *s = &j->segs.v[i];
		uint64_t end = s->start + s->len;
		struct pa_range m;

		if (!seg_zeroed(j, s))
			continue;
		if (!middle(s, a, min, &m))
			ret = pa_zero_buffered(j->c, s->start, s->len);
		else if (!(ret = pa_zero_buffered(j->c, s->start, m.start - s->start)))
			ret = pa_zero_buffered(j->c, m.start + m.len, end - m.start - m.len);
	}
	return ret;
}

/*
 * Methods that need whole aligned blocks: the kernel flag (ext4 leaves
 * partial blocks unwritten) and io_uring direct writes.  Direct writes are
 * also aligned to the page (pa_direct_align()) and the filesystem block, so
 * buffered and direct writes of one call never share a page.  Unless uring
 * is forced, a segment whose middle is smaller than DIRECT_MIN goes buffered
 * whole: on a fragmented file one small direct write per hole costs far
 * more than the page cache does.
 * The middles go first, so a refused method has written nothing; the
 * rest follows with pwrite().
 */
static int run_aligned(struct file_job *j, unsigned int m)
{
	struct pa_call *c = j->c;
	const struct pa_caps *caps = c->target.caps;
	uint64_t a = j->bs, min = 1;
	struct pa_range *mid;
	size_t n = 0;
	int ret = 0;

	if (m == PREALLOC_METHOD_URING) {
		ret = pa_open_direct(c, caps ? caps->logical_block_size : 512);
		if (ret)
			return ret;
		a = PA_MAX(pa_direct_align(c), j->bs);
		if (c->opts.method == PREALLOC_METHOD_AUTO)
			min = DIRECT_MIN;
	}
	mid = calloc(j->segs.n ? j->segs.n : 1, sizeof(*mid));
	if (!mid)
		return -ENOMEM;
	for (size_t i = 0; i < j->segs.n; i++)
		if (seg_zeroed(j, &j->segs.v[i]) && middle(&j->segs.v[i], a, min, &mid[n]))
			n++;
	j->touched = true;
	if (m == PREALLOC_METHOD_URING)
		ret = pa_zero_uring(c, mid, n);
	for (size_t i = 0; i < n && !ret && m == PREALLOC_METHOD_WRITE_ZEROES; i++)
		ret = pa_zero_write_zeroes(c, mid[i].start, mid[i].len, WZ_CHUNK);
	if (!ret)
		ret = write_edges(j, a, min);
	free(mid);
	return ret;
}

static int run_method(void *job, unsigned int m)
{
	struct file_job *j = job;

	/* Write-zeroes allocates by itself; the writes need the room.  Without
	 * fallocate the writes still allocate; ENOSPC then comes from a write
	 * and is undone like any failure. */
	if ((m == PREALLOC_METHOD_URING || m == PREALLOC_METHOD_BUFFERED) && !j->reserved) {
		int ret = reserve(j);

		if (ret && !pa_refused(ret))
			return ret;
	}
	switch (m) {
	case PREALLOC_METHOD_WRITE_ZEROES:
	case PREALLOC_METHOD_URING:
		return run_aligned(j, m);
	case PREALLOC_METHOD_BUFFERED:
		return zero_each(j, pa_zero_buffered);
	case PREALLOC_METHOD_ALLOCATE:
		return run_allocate(j);
	default:
		return -EOPNOTSUPP;
	}
}

/* A forced method's refusal is decided before anything is changed: a file
 * without O_DIRECT (the planner refuses the rest, inline data included). */
static int check_forced(struct file_job *j, const struct pa_plan *plan)
{
	struct pa_call *c = j->c;
	const struct pa_caps *caps = c->target.caps;
	int ret;

	if (c->opts.method == PREALLOC_METHOD_AUTO)
		return 0;
	if (plan->methods[0] != PREALLOC_METHOD_URING)
		return 0;
	ret = pa_open_direct(c, caps ? caps->logical_block_size : 512);
	return ret == -EINVAL ? -EOPNOTSUPP : ret;
}

static int run_plan(struct file_job *j, const struct pa_plan *plan)
{
	/* Keep-size beyond EOF is reserved whatever writes the rest. */
	if (plan->reserve || (keep_size(j) && j->end > j->old_size)) {
		int ret = reserve(j);

		if (ret && !pa_refused(ret))
			return ret;
	}
	return pa_run_plan(j->c, plan, run_method, j);
}

/*
 * Bytes of EOF segment @i inside the old last block when this call wrote
 * that block's part inside EOF: extent state is per block, so the tail
 * beyond EOF is written zeros now too, whatever it was before (as FIEMAP,
 * and so prealloc_verify(), will say).
 */
static uint64_t eof_tail_written(const struct file_job *j, size_t i)
{
	const struct pa_seg *s = &j->segs.v[i], *prev = i ? &j->segs.v[i - 1] : NULL;
	uint64_t blk_end = PA_ROUND_UP(j->old_size, j->bs);

	/* Without FIEMAP nothing beyond EOF shows as written (SEEK_DATA). */
	if (!j->fiemap || !prev || s->start != j->old_size ||
	    prev->start + prev->len != s->start ||
	    !seg_zeroed(j, prev))
		return 0;
	return PA_MIN(s->len, blk_end - s->start);
}

static void fill_report(struct file_job *j)
{
	struct prealloc_report *r = &j->c->rep;
	const struct pa_plan_input *in = &j->c->target.in;
	bool reserves = j->reserved && !j->reserve_refused;
	uint64_t unreserved = 0;

	r->bytes_kept = count_bytes(j, false, true);
	/* Reflinked data is copied on its next overwrite: not written in place
	 * (unless this call rewrote it, which unshared it). */
	r->cow = in->cow;
	for (size_t i = 0; i < j->segs.n; i++)
		r->cow |= j->segs.v[i].shared && !seg_zeroed(j, &j->segs.v[i]);
	if (in->no_write) {
		/* A hugetlbfs page is zeroed when fallocate() allocates it. */
		r->bytes_zeroed += r->bytes_reserved;
		r->bytes_reserved = 0;
	}
	/*
	 * Keep-size beyond EOF: the rest of a written last block is written
	 * zeros already; the rest is reserved, not written, if the filesystem
	 * reserves at all (ext2 and indirect-block ext4 files do not).
	 */
	for (size_t i = 0; i < j->segs.n; i++) {
		const struct pa_seg *s = &j->segs.v[i];

		uint64_t tail, rest;

		if (s->state != PA_SEG_EOF || seg_zeroed(j, s))
			continue;
		tail = s->allocated == PA_EOF_WRITTEN ? s->len : eof_tail_written(j, i);
		rest = s->len - tail;
		r->bytes_zeroed += tail;
		if (s->allocated == PA_EOF_UNWRITTEN || reserves)
			r->bytes_reserved += rest;
		else
			unreserved += rest;
	}
	/* SEEK_DATA cannot tell written data from unwritten extents; nobody
	 * can tell whether an unknown upper layer overwrites in place. */
	if (!j->fiemap && !in->mem_backed)
		r->bytes_unknown = r->bytes_kept;
	if (in->cow_unknown)
		r->bytes_unknown = j->end - j->off;
	r->written = !r->cow && r->bytes_reserved == 0 && unreserved == 0 &&
		     r->bytes_unknown == 0;
}

/*
 * Append-only files accept fallocate(0) but refuse the punch and truncate
 * that would undo it, and zero writes at an offset: refuse them (and
 * immutable files) before anything is allocated.
 */
static int check_attrs(int fd)
{
	const uint64_t deny = STATX_ATTR_APPEND | STATX_ATTR_IMMUTABLE;
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, 0, &stx) < 0)
		return 0;
	return stx.stx_attributes & stx.stx_attributes_mask & deny ? -EPERM : 0;
}

int pa_file_prealloc(struct pa_call *c, uint64_t off, uint64_t len)
{
	struct file_job j = { .c = c, .off = off, .end = off + len };
	struct pa_plan plan;
	int ret;

	j.old_size = (uint64_t)c->target.st.st_size;
	j.bs = c->target.fs_block;
	j.inline_data = c->target.in.inline_data;
	pa_step(c, PREALLOC_STEP_REQUEST, 0);
	ret = check_attrs(c->fd);
	if (!ret)
		ret = pa_plan(&c->target.in, &plan);
	if (ret)
		return ret;
	pa_step(c, PREALLOC_STEP_CLASSIFY, 0);
	ret = classify(&j);
	if (ret)
		goto out;
	c->total = count_bytes(&j, true, false) + count_bytes(&j, true, true);
	pa_step(c, PREALLOC_STEP_SPACE_CHECK, 0);
	ret = check_space(&j);
	if (ret)
		goto out;
	pa_step(c, PREALLOC_STEP_REQUEST, c->opts.method);
	ret = check_forced(&j, &plan);
	if (ret)
		goto out;
	pa_step(c, PREALLOC_STEP_CLASSIFY, 0);
	ret = pa_undo_record(&j.undo, c->fd, off, j.end, j.old_size, j.bs, !keep_size(&j));
	if (ret)
		goto out;
	/* Inline data: the bytes beyond EOF of a keep-size call stay holes. */
	if (j.inline_data)
		j.reserved = j.reserve_refused = true;
	ret = run_plan(&j, &plan);
	if (!ret)
		pa_step(c, PREALLOC_STEP_SYNC, 0);
	if (!ret && !(c->opts.flags & PREALLOC_NO_SYNC) && !pa_mutant(PA_MUTANT_DATA_SYNC) &&
	    PA_RETRY_EINTR(fdatasync(c->fd)) < 0)
		ret = -errno;
	if (ret && j.touched)
		pa_undo_run(&j.undo, &j.segs, c->fd);
	else if (!ret)
		fill_report(&j);
out:
	pa_undo_free(&j.undo);
	pa_seglist_free(&j.segs);
	return ret;
}
