/* SPDX-License-Identifier: MIT */
/* btrfs. */
#include <linux/magic.h>

#include "src/fs/fs.h"

const struct pa_fs pa_fs_btrfs = {
	.name = "btrfs",
	.magic = { BTRFS_SUPER_MAGIC },
	.cow = PA_FS_COW_UNLESS_NOCOW,
	.subvol_dev = true,
	/* statfs counts used bytes as the delayed references that record
	 * each extent allocated or freed are run: at the latest when the
	 * transaction commits, up to commit= seconds (30) later.  Until then a
	 * fallocate() made durable by fsync() shows as free, a file removed as
	 * used. */
	.statfs_at_commit = true,
};
