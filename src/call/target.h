/* SPDX-License-Identifier: MIT */
/* What is known about an open target before planning (src/call/target.c). */
#ifndef PREALLOC_TARGET_H
#define PREALLOC_TARGET_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "prealloc.h"
#include "probes/caps.h"
#include "src/plan/plan.h"

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

/* fstat/fstatfs/probe @fd and fill the planner input for a request with
 * @flags and @method at [off, off + len), with the caches of @ctx (NULL:
 * the default context).  0 or -errno. */
int pa_target_open(struct prealloc_ctx *ctx, int fd, uint64_t off, uint64_t len,
		   uint32_t flags, uint32_t method, struct pa_target *t);
void pa_target_close(struct pa_target *t);

#endif
