/* SPDX-License-Identifier: MIT */
/* overlayfs: statfs answers with its own type, writes go to the upper layer. */
#include <linux/magic.h>

#include "src/fs/fs.h"

const struct pa_fs pa_fs_overlay = {
	.name = "overlay",
	.magic = { OVERLAYFS_SUPER_MAGIC },
	.overlay = true,
	.subvol_dev = true,
};
