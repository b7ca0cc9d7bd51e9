/* SPDX-License-Identifier: MIT */
/* smbfs, the SMB client before cifs (removed in Linux 2.6.37). */
#include <linux/magic.h>

#include "src/fs/fs.h"

const struct pa_fs pa_fs_smbfs = {
	.name = "smbfs",
	.magic = { SMB_SUPER_MAGIC },
	.flock_record_lock = true,
};
