/* SPDX-License-Identifier: MIT */
/* f2fs. */
#include <linux/magic.h>

#include "src/fs/fs.h"

const struct pa_fs pa_fs_f2fs = {
	.name = "f2fs",
	.magic = { F2FS_SUPER_MAGIC },
};
