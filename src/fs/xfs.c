/* SPDX-License-Identifier: MIT */
/* xfs. */
#include <linux/magic.h>

#include "src/fs/fs.h"

const struct pa_fs pa_fs_xfs = {
	.name = "xfs",
	.magic = { XFS_SUPER_MAGIC },
	/* Blocks beyond EOF of a file fallocate() has not marked may be its
	 * speculative preallocation, trimmed at the next close. */
	.marks_prealloc = true,
	.realtime = true,
	/* /sys/fs/xfs/debug/always_cow (CONFIG_XFS_DEBUG kernels only). */
	.always_cow_knob = true,
	/* Freed by background inode work, which statfs only starts. */
	.frees_late = true,
	/* Linux 6.13, on a filesystem with exchange-range (mkfs.xfs -i
	 * exchange=1, which needs reflink): the geometry says. */
	.commit_range = true,
};
