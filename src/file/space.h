/* SPDX-License-Identifier: MIT */
/* The free-space check before a call changes anything. */
#ifndef PREALLOC_SPACE_H
#define PREALLOC_SPACE_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/vfs.h>

#include "src/file/extents.h"

struct prealloc_ctx;

/*
 * Will the blocks of @segs that are unallocated fit on the filesystem that
 * @sfs describes (on device @dev, whose sysfs is @ctx's)?  0 or -ENOSPC.  *@ret_avail is
 * the space free for this caller: 0 when nothing needs allocating,
 * UINT64_MAX when the filesystem has no fixed capacity.  On xfs a call
 * passes its @fd, whose filesystem is asked again for up to 63 ms before
 * an ENOSPC; the probe passes -1 and does not wait.
 */
int pa_space_check(struct prealloc_ctx *ctx, int fd, const struct statfs *sfs, dev_t dev,
		   const struct pa_seglist *segs, uint64_t *ret_avail);

#endif
