/* SPDX-License-Identifier: MIT */
/* bcachefs (BCACHEFS_SUPER_MAGIC, which older <linux/magic.h> lack). */
#include "src/fs/fs.h"

const struct pa_fs pa_fs_bcachefs = {
	.name = "bcachefs",
	.magic = { 0xca451a4e },
	.cow = PA_FS_COW_ALWAYS,
	.subvol_dev = true,
};
