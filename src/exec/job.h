/* SPDX-License-Identifier: MIT */
/*
 * What the executor is given, and all it sees of a call: the target as the
 * call found it, the descriptors it holds, the request's options, and where
 * the results go (the report, the progress callback, the log, the
 * context's memory of write-zeroes answers).  src/call/ fills one per call
 * and acts on what it holds afterwards (closes the descriptors, sends the
 * report).
 */
#ifndef PREALLOC_JOB_H
#define PREALLOC_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "prealloc.h"
#include "probes/caps.h"
#include "src/exec/pace.h"
#include "src/plan/plan.h"

struct pa_log;

/* What is known about an open target before planning (src/call/target.c). */
struct pa_target {
	struct prealloc_ctx *ctx;	/* the context whose caches are used; NULL: default */
	struct stat st;
	struct statfs sfs;		/* a file's filesystem; zero for a block device */
	uint64_t dev;			/* st_dev of a file, st_rdev of a block device */
	uint64_t fs_type;		/* statfs f_type; 0 for a block device */
	uint64_t fs_block;		/* filesystem block size (logical block size of a bdev) */
	const struct pa_caps *caps;	/* NULL when no block device backs the file */
	struct pa_plan_input in;	/* the planner's input for this target */
};

/*
 * Every descriptor here is the call's own, in the file table of the thread
 * the call runs on (base/own_files.h), held for its whole duration: a
 * caller that closes or dup2()s over its descriptor number mid-call cannot
 * redirect the work to another file, and closing ours drops none of the
 * caller's record locks.
 */
struct pa_job {
	int fd;				/* our copy of the caller's descriptor */
	int wfd;			/* buffered writes: fd, or fd reopened without
					 * O_APPEND/O_DIRECT/O_SYNC when it has them */
	int wfd_known;			/* the wfd whose status flags wfd_flags holds */
	int wfd_flags;			/* fcntl(wfd, F_GETFL), or -errno */
	int dfd;			/* our O_DIRECT descriptor, or -1 */
	int dio_rwf;			/* RWF_* flags for writes through dfd */
	bool dontcache_refused;		/* pwritev2() refused RWF_DONTCACHE (src/exec/dontcache.c) */
	const char *wz_refuser;		/* who refused FALLOC_FL_WRITE_ZEROES, for the log */
	uint32_t dio_align;		/* file offset and length alignment for O_DIRECT */
	uint32_t dio_mem_align;		/* buffer alignment for O_DIRECT */
	const struct pa_target *target;
	const struct prealloc_options *opts;	/* the caller's, completed with defaults;
						 * its progress callback may cancel */
	struct prealloc_report *rep;	/* full-size: the byte counts, the verdicts */
	uint64_t done;			/* progress */
	uint64_t total;
	struct pa_pace pace;		/* background mode and max_rate (src/exec/pace.c) */
	struct pa_log *log;		/* the context's log hook */
	const char *sysfs;		/* the context's sysfs root */
	/* The context's memory of FALLOC_FL_WRITE_ZEROES answers per (device,
	 * filesystem) (src/call/context.c): what it holds, and what the
	 * kernel just answered. */
	int (*wz_answer)(struct prealloc_ctx *ctx, uint64_t dev, uint64_t fs_type);
	void (*wz_remember)(struct prealloc_ctx *ctx, uint64_t dev, uint64_t fs_type, int answer);
};

/*
 * Enter @phase of the call (an &enum prealloc_phase), running @method (0 for
 * none): what the report names as failed_phase/failed_method if the call
 * fails before the next one.  A "step" is only ever a step of the plan
 * (src/plan/steps.h, prealloc_probe_step()).
 */
static inline void pa_phase(struct prealloc_report *rep, uint32_t phase, uint32_t method)
{
	rep->failed_phase = phase;
	rep->failed_method = method;
}

#endif
