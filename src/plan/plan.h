/* SPDX-License-Identifier: MIT */
/*
 * The planner: a pure function from what is known about the target and the
 * request to an ordered list of methods.  No I/O; tested with a table.
 */
#ifndef PREALLOC_PLAN_H
#define PREALLOC_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "prealloc.h"

enum pa_target_kind {
	PA_TARGET_FILE,
	PA_TARGET_BLOCKDEV,
};

struct pa_plan_input {
	uint8_t target;			/* enum pa_target_kind */
	bool cow;			/* copy-on-write file: overwrites never go in place */
	bool cow_unknown;		/* overlayfs whose upper layer cannot be judged */
	bool inline_data;		/* ext4 inline data: buffered writes, never fallocate() */
	bool eof_blocks_kept;		/* allocated blocks beyond EOF stay (false: xfs may trim them) */
	bool reserve_marks;		/* fallocate() would mark the file preallocated for
					 * good (xfs, not marked yet) */
	bool no_fallocate;		/* ext2/3 file: nothing can be reserved beyond EOF */
	bool commit_range;		/* ranges exchange only while the file is unchanged
					 * (xfs formatted with exchange-range) */
	bool unexchangeable_fd;		/* ... but not through this descriptor: not open
					 * for reading and writing, or appending */
	bool mem_backed;		/* tmpfs/ramfs/hugetlbfs: no device below */
	bool no_write;			/* hugetlbfs: no write(), fallocate() zeroes pages */
	bool device_facts;		/* a block device's capabilities record was found */
	int write_zeroes_unmap;		/* enum prealloc_answer from the capabilities record */
	bool kernel_write_zeroes;	/* the kernel knows the flag (6.17+) */
	/* The kernel's answer for this filesystem instance (or block device)
	 * in this context; neither: not asked yet. */
	bool write_zeroes_refused;
	bool write_zeroes_works;
	bool zeroout;			/* block device with BLKZEROOUT */
	uint32_t flags;			/* enum prealloc_flags */
	uint32_t forced;		/* enum prealloc_method; AUTO = choose */
	bool range_in_eof;		/* offset + len <= current size */
	uint32_t unusable;		/* 1 << method: refused to this process (no io_uring) */
};

#define PA_PLAN_MAX 6

struct pa_plan {
	uint8_t methods[PA_PLAN_MAX];	/* try in order; the next on EOPNOTSUPP */
	uint8_t n;
	uint8_t write_zeroes;		/* enum prealloc_write_zeroes; 0: not weighed */
	bool exchange;			/* concurrent writes: the methods zero a temporary
					 * file, exchanged in where the file is unchanged */
	const char *reason;		/* one sentence for `prealloc probe` */
};

/* What each &enum prealloc_write_zeroes is called and says
 * (src/plan/write_zeroes.c). */
struct pa_wz_verdict {
	const char *name;		/* prealloc_write_zeroes_name() */
	const char *sentence;		/* the probe's and the plan's reason */
	const char *refused_by;		/* a refusal's refuser, for the log; or NULL */
};

/* @v's row, or NULL for an unknown value. */
const struct pa_wz_verdict *pa_wz_verdict(unsigned int v);

/* The probe's and the plan's sentence for verdict @v on @in: the row's, but
 * a block device's refusal says it was asked. */
const char *pa_wz_sentence(const struct pa_plan_input *in, unsigned int v);

/* The planner's verdict on FALLOC_FL_WRITE_ZEROES for @in: %PREALLOC_WZ_USED
 * (the kernel took it here before) or %PREALLOC_WZ_WOULD_TRY (not asked
 * yet) when it may be tried, else why not. */
enum prealloc_write_zeroes pa_plan_write_zeroes(const struct pa_plan_input *in);

/* May FALLOC_FL_WRITE_ZEROES be tried, by verdict @v? */
static inline bool pa_wz_tried(unsigned int v)
{
	return v == PREALLOC_WZ_USED || v == PREALLOC_WZ_WOULD_TRY;
}

/* Returns 0, or -EOPNOTSUPP when a forced method cannot apply to this
 * target or the request cannot be met here at all (*@out->reason says). */
int pa_plan(const struct pa_plan_input *in, struct pa_plan *out);

#endif
