/* SPDX-License-Identifier: MIT */
/* ext4, and ext2/ext3 through the ext4 driver. */
#include <linux/magic.h>

#include "src/fs/fs.h"

const struct pa_fs pa_fs_ext4 = {
	.name = "ext4",
	.magic = { EXT4_SUPER_MAGIC },
	/* ext2/ext3 and indirect-block files have no extents, so no
	 * fallocate(); a small file may hold its bytes in the inode. */
	.ext_inode_flags = true,
	/* /sys/fs/ext4/DEV/reserved_clusters, about 2% of the volume up to
	 * 4096 clusters, is kept from root too. */
	.reserved_clusters = true,
};
