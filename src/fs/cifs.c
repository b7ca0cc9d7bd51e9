/* SPDX-License-Identifier: MIT */
/* The SMB client (cifs.ko): CIFS and SMB2/3 mounts. */
#include "src/fs/fs.h"

/* The kernel's CIFS_SUPER_MAGIC and SMB2_SUPER_MAGIC, which older
 * <linux/magic.h> lack. */
const struct pa_fs pa_fs_cifs = {
	.name = "cifs",
	.magic = { 0xFF534D42u, 0xFE534D42u },
	.flock_record_lock = true,
};
