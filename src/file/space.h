/* SPDX-License-Identifier: MIT */
/* The free-space check before a call changes anything. */
#ifndef PREALLOC_SPACE_H
#define PREALLOC_SPACE_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/vfs.h>

#include "src/file/extents.h"

/*
 * Will the blocks of @regions that are unallocated fit on the filesystem that
 * @sfs describes (on device @dev, under the sysfs at @sysfs)?  0 or -ENOSPC,
 * which the caller reports.  *@ret_avail is the space free for this caller:
 * 0 when nothing needs allocating, UINT64_MAX when the filesystem has no
 * fixed capacity; *@ret_need the bytes the range needs.  On xfs a call
 * passes its @fd, whose filesystem is asked again for up to 63 ms before
 * an ENOSPC; the probe passes -1 and does not wait.
 */
int pa_space_check(const char *sysfs, int fd, const struct statfs *sfs, dev_t dev,
		   const struct pa_regionlist *regions, uint64_t *ret_avail, uint64_t *ret_need);

#endif
