/* SPDX-License-Identifier: MIT */
/* hugetlbfs. */
#include <linux/magic.h>

#include "src/fs/fs.h"

const struct pa_fs pa_fs_hugetlbfs = {
	.name = "hugetlbfs",
	.magic = { HUGETLBFS_MAGIC },
	.mem_backed = true,
	.no_write = true,
};
