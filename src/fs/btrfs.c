/* SPDX-License-Identifier: MIT */
/* btrfs. */
#include <linux/magic.h>

#include "src/fs/fs.h"

const struct pa_fs pa_fs_btrfs = {
	.name = "btrfs",
	.magic = { BTRFS_SUPER_MAGIC },
	.cow = PA_FS_COW_UNLESS_NOCOW,
	.subvol_dev = true,
};
