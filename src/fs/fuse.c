/* SPDX-License-Identifier: MIT */
/* FUSE. */
#include <linux/magic.h>

#include "src/fs/fs.h"

const struct pa_fs pa_fs_fuse = {
	.name = "fuse",
	.magic = { FUSE_SUPER_MAGIC },
};
