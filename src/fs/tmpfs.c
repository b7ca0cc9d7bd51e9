/* SPDX-License-Identifier: MIT */
/* tmpfs (shmem, memfd). */
#include <linux/magic.h>

#include "src/fs/fs.h"

const struct pa_fs pa_fs_tmpfs = {
	.name = "tmpfs",
	.magic = { TMPFS_MAGIC },
	.mem_backed = true,
	/* No unwritten extents; allocated pages never written show as
	 * holes, which is why a call writes them. */
	.seek_data_written = true,
};
