/* SPDX-License-Identifier: MIT */
/* OpenZFS (out of tree: its magic is in no kernel header). */
#include "src/fs/fs.h"

const struct pa_fs pa_fs_zfs = {
	.name = "zfs",
	.magic = { 0x2fc12fc1 },
	.cow = PA_FS_COW_ALWAYS,
};
