/* SPDX-License-Identifier: MIT */
/*
 * The planner.  Everything it may know arrives in struct pa_plan_input, so
 * the choice is a pure function with a table test, and `prealloc probe` can
 * print the same reason the engine acted on.  What each method does to
 * each piece of the range (reserving first, edges) is src/plan/steps.c's.
 */
#include <errno.h>
#include <stddef.h>

#include "probes/caps.h"
#include "base/internal.h"
#include "src/method/method.h"
#include "src/plan/plan.h"

static bool always(const struct pa_plan_input *in)
{
	(void)in;
	return true;
}

static bool files_only(const struct pa_plan_input *in)
{
	return in->target == PA_TARGET_FILE;
}

static bool write_zeroes_applies(const struct pa_plan_input *in)
{
	return pa_wz_tried(pa_plan_write_zeroes(in));
}

static bool zeroout_applies(const struct pa_plan_input *in)
{
	return in->target == PA_TARGET_BLOCKDEV && in->zeroout;
}

/* Whether a method of pa_method_order goes into an automatic plan for @in;
 * NULL: only when forced, or by the target rules of pa_plan(). */
static bool (*const applies[PA_METHOD_COUNT])(const struct pa_plan_input *in) = {
	[PREALLOC_METHOD_WRITE_ZEROES] = write_zeroes_applies,
	[PREALLOC_METHOD_ZEROOUT] = zeroout_applies,
	[PREALLOC_METHOD_URING] = always,
	[PREALLOC_METHOD_AIO] = always,
	[PREALLOC_METHOD_BUFFERED] = files_only,
};

static void add(struct pa_plan *p, unsigned int m)
{
	if (p->n < PA_PLAN_MAX)
		p->methods[p->n++] = (uint8_t)m;
}

static int plan_forced(const struct pa_plan_input *in, struct pa_plan *p)
{
	uint32_t where = in->target == PA_TARGET_BLOCKDEV ? PA_M_BDEV : PA_M_FILE;

	if (!pa_method_is(in->forced, where) ||
	    (in->inline_data && in->forced != PREALLOC_METHOD_BUFFERED))
		return -EOPNOTSUPP;
	/* The forced flag's report says why, even when it zeroes nothing. */
	if (in->forced == PREALLOC_METHOD_WRITE_ZEROES)
		p->write_zeroes = (uint8_t)pa_plan_write_zeroes(in);
	add(p, in->forced);
	p->reason = "method forced by the caller";
	return 0;
}

/*
 * Other writers in the range (PREALLOC_CONCURRENT_WRITES): fallocate()
 * never touches data, so a plan that only reserves stands; zeros must be
 * exchanged in where nobody wrote, which only a conditional exchange can
 * order against the others' writes.  0: planned; 1: plan the methods,
 * which will zero a temporary file; -EOPNOTSUPP: no way here.
 */
static int plan_concurrent(const struct pa_plan_input *in, struct pa_plan *p)
{
	bool reserve_only = in->forced == PREALLOC_METHOD_ALLOCATE ||
			    (in->forced == PREALLOC_METHOD_AUTO &&
			     (in->cow || in->mem_backed));

	if (in->target != PA_TARGET_FILE) {
		p->reason = "concurrent writes: a block device is zeroed whole";
		return -EOPNOTSUPP;
	}
	if (reserve_only) {
		add(p, PREALLOC_METHOD_ALLOCATE);
		p->reason = in->cow ? "concurrent writes, copy-on-write file: space is reserved, "
				      "which never touches data" :
			    in->mem_backed ? "concurrent writes, memory-backed filesystem: fallocate() "
					     "allocates zeroed pages and never touches data" :
			    "concurrent writes: allocation forced by the caller";
		return 0;
	}
	if (!in->commit_range) {
		p->reason = "concurrent writes: this filesystem cannot order zero writes against "
			    "other writers (no conditional range exchange: xfs formatted with "
			    "exchange-range has one): use fallocate()";
		return -EOPNOTSUPP;
	}
	if (in->unexchangeable_fd) {
		p->reason = "concurrent writes: the range exchange takes a descriptor open for "
			    "reading and writing, not appending: use fallocate() or such a "
			    "descriptor";
		return -EOPNOTSUPP;
	}
	if ((in->flags & PREALLOC_KEEP_SIZE) && !in->range_in_eof) {
		p->reason = "concurrent writes, keep-size beyond end of file: only fallocate() "
			    "can hold those blocks without exchanging the size";
		return -EOPNOTSUPP;
	}
	p->exchange = true;
	return 1;
}

/* The methods for @in, the first to try first. */
static int plan_methods(const struct pa_plan_input *in, struct pa_plan *p)
{
	const char *why;
	bool wz;

	/* Keep-size promises the space beyond EOF reserved: never succeed
	 * having reserved nothing. */
	if (in->target == PA_TARGET_FILE && in->no_fallocate &&
	    (in->flags & PREALLOC_KEEP_SIZE) && !in->range_in_eof) {
		p->reason = "keep-size beyond end of file: this file cannot hold blocks beyond "
			    "end of file (no fallocate(): ext2/ext3 or an ext4 file without extents)";
		return -EOPNOTSUPP;
	}
	if (in->forced != PREALLOC_METHOD_AUTO)
		return plan_forced(in, p);

	if (in->target == PA_TARGET_FILE) {
		if (in->cow) {
			add(p, PREALLOC_METHOD_ALLOCATE);
			p->reason = "copy-on-write file: overwrites never go in place, so space is reserved, not written";
			return 0;
		}
		if (in->mem_backed && in->no_write) {
			add(p, PREALLOC_METHOD_ALLOCATE);
			p->reason = "hugetlbfs: pages come from fallocate() and are zeroed";
			return 0;
		}
		if (in->inline_data) {
			/* fallocate() on an inline file loses the next write
			 * at umount (a kernel bug): never reach it. */
			add(p, PREALLOC_METHOD_BUFFERED);
			p->reason = "ext4 inline data: the inode holds the bytes, so buffered writes only";
			p->write_zeroes = PREALLOC_WZ_INODE;
			return 0;
		}
		if (in->mem_backed) {
			/* Written pages, so SEEK_DATA (and verify) see them:
			 * tmpfs shows allocated, unwritten pages as holes. */
			add(p, PREALLOC_METHOD_BUFFERED);
			p->reason = "memory-backed filesystem: zero pages written through the page cache";
			return 0;
		}
	}

	for (size_t i = 0; i < pa_method_order_n; i++) {
		unsigned int m = pa_method_order[i];

		if (applies[m] && applies[m](in) && !(in->unusable & (1u << m)))
			add(p, m);
	}
	p->write_zeroes = (uint8_t)pa_plan_write_zeroes(in);
	wz = pa_wz_tried(p->write_zeroes);
	why = pa_wz_sentence(in, p->write_zeroes);
	if (in->target == PA_TARGET_BLOCKDEV)
		p->reason = wz ? "every device of the chain can zero by unmapping" :
			    in->zeroout ? why : "no BLKZEROOUT: direct zero writes";
	else
		p->reason = wz ? "every device under the file can zero by unmapping" : why;
	return 0;
}

int pa_plan(const struct pa_plan_input *in, struct pa_plan *p)
{
	int ret;

	*p = (struct pa_plan){ 0 };
	if (in->flags & PREALLOC_CONCURRENT_WRITES) {
		ret = plan_concurrent(in, p);
		if (ret <= 0)
			return ret;
	}
	ret = plan_methods(in, p);
	if (!ret && p->exchange)
		p->reason = "concurrent writes: zeros are written to a temporary file and exchanged "
			    "in only where, and while, the file is unchanged (XFS_IOC_COMMIT_RANGE)";
	return ret;
}
