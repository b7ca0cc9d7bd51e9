/* SPDX-License-Identifier: MIT */
/* The filesystems the library knows, by statfs f_type. */
#include <sys/vfs.h>

#include "base/util.h"
#include "src/fs/fs.h"

/* What the library assumes of a filesystem it does not know: overwrites
 * in place, a device below, no other fact set. */
const struct pa_fs pa_fs_unknown = {
	.name = NULL,
};

const struct pa_fs *const pa_fs_table[] = {
	&pa_fs_ext4,
	&pa_fs_xfs,
	&pa_fs_btrfs,
	&pa_fs_tmpfs,
	&pa_fs_ramfs,
	&pa_fs_hugetlbfs,
	&pa_fs_f2fs,
	&pa_fs_nfs,
	&pa_fs_cifs,
	&pa_fs_smbfs,
	&pa_fs_fuse,
	&pa_fs_overlay,
	&pa_fs_zfs,
	&pa_fs_bcachefs,
	NULL,
};

static bool has_magic(const struct pa_fs *fs, uint32_t magic)
{
	for (size_t i = 0; i < PA_ARRAY_SIZE(fs->magic) && fs->magic[i]; i++)
		if (fs->magic[i] == magic)
			return true;
	return false;
}

/* Magics are 32-bit; f_type is a signed word that some libcs and
 * compat paths sign-extend, so only the low 32 bits are compared. */
const struct pa_fs *pa_fs_of(uint64_t f_type)
{
	uint32_t magic = (uint32_t)f_type;

	for (size_t i = 0; magic && pa_fs_table[i]; i++)
		if (has_magic(pa_fs_table[i], magic))
			return pa_fs_table[i];
	return &pa_fs_unknown;
}

const struct pa_fs *pa_fs_lookup(int fd)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs) < 0)
		return &pa_fs_unknown;
	return pa_fs_of((uint64_t)sfs.f_type);
}

const char *pa_fs_name(uint64_t f_type)
{
	return pa_fs_of(f_type)->name;
}
