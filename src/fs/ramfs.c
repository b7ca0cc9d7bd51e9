/* SPDX-License-Identifier: MIT */
/* ramfs. */
#include <linux/magic.h>

#include "src/fs/fs.h"

const struct pa_fs pa_fs_ramfs = {
	.name = "ramfs",
	.magic = { RAMFS_MAGIC },
	.mem_backed = true,
	.seek_data_written = true,
};
