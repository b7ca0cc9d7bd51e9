/* SPDX-License-Identifier: MIT */
/* What is known about an open target before planning (src/call/target.c):
 * struct pa_target, which the executor reads (src/exec/job.h). */
#ifndef PREALLOC_TARGET_H
#define PREALLOC_TARGET_H

#include <stdint.h>

#include "prealloc.h"
#include "src/exec/job.h"

/* fstat/fstatfs/probe @fd and fill the planner input for a request with
 * @flags and @method at [off, off + len), with the caches of @ctx (NULL:
 * the default context).  0 or -errno. */
int pa_target_open(struct prealloc_ctx *ctx, int fd, uint64_t off, uint64_t len,
		   uint32_t flags, uint32_t method, struct pa_target *t);
void pa_target_close(struct pa_target *t);

#endif
