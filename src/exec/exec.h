/* SPDX-License-Identifier: MIT */
/*
 * The plan executor (src/exec/exec.c), one for files and block devices: the
 * contract of src/exec/ with src/exec/job.h, whose methods it runs through
 * src/exec/ops.h.
 */
#ifndef PREALLOC_EXEC_H
#define PREALLOC_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/exec/job.h"
#include "src/plan/plan.h"
#include "src/plan/steps.h"

/* One run of a plan's steps, for a file or a block device. */
struct pa_exec {
	struct pa_work w;		/* the facts the steps are built from */
	struct pa_todo *todo;		/* what is still to be zeroed */
	size_t ntodo;
	struct pa_steps steps;		/* the current method's steps */
	int sync_fd;			/* the descriptor fdatasync() reports for */
	uint64_t chunk;			/* bytes per write-zeroes or BLKZEROOUT call */
	/* Make method @m ready (O_DIRECT, x->w.direct_align): -EOPNOTSUPP
	 * refuses it before any of its steps runs.  NULL: nothing to do. */
	int (*prepare)(struct pa_job *j, struct pa_exec *x, unsigned int m);
	unsigned int first;		/* the plan's first method that was not refused */
	unsigned int prepared;		/* ... which pa_exec_prepare() made ready */
	bool started;			/* a step ran: the target may have changed */
	bool reserve_refused;		/* fallocate() is not supported here */
	bool unkeepable;		/* ... and keep-size space beyond EOF was asked */
	size_t failed;			/* the step that failed ... */
	uint64_t failed_done;		/* ... after counting this many bytes */
};

/* The report's write_zeroes as @p's verdict, before any method runs. */
void pa_exec_verdict(struct pa_job *j, const struct pa_plan *p);

/* Before anything changes: make the first of @p's methods ready that is
 * not refused (a forced method alone: its refusal is the answer), the
 * report's write_zeroes starting as @p's verdict.  0 or -errno. */
int pa_exec_prepare(struct pa_job *j, struct pa_exec *x, const struct pa_plan *p);

/* Run @p's methods from the prepared one through @x's steps, falling back on a refusal when the
 * caller forced no method.  The last method's result. */
int pa_exec_run(struct pa_job *j, struct pa_exec *x, const struct pa_plan *p);
void pa_exec_free(struct pa_exec *x);

#endif
