/* SPDX-License-Identifier: MIT */
/* NFS, every version. */
#include <linux/magic.h>

#include "src/fs/fs.h"

const struct pa_fs pa_fs_nfs = {
	.name = "nfs",
	.magic = { NFS_SUPER_MAGIC },
	.flock_record_lock = true,
};
