/* SPDX-License-Identifier: MIT */
/* btrfs. */
#include <errno.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/btrfs.h>
#include <linux/magic.h>

#include "src/fs/fs.h"

const struct pa_fs pa_fs_btrfs = {
	.name = "btrfs",
	.magic = { BTRFS_SUPER_MAGIC },
	.cow = PA_FS_COW_UNLESS_NOCOW,
	.subvol_dev = true,
	/* statfs counts used bytes as the delayed references that record
	 * each extent allocated or freed are run: at the latest when the
	 * transaction commits, up to commit= seconds (30) later.  Until then a
	 * fallocate() made durable by fsync() shows as free, a file removed as
	 * used. */
	.statfs_at_commit = true,
};

/*
 * BTRFS_IOC_START_SYNC and BTRFS_IOC_WAIT_SYNC write the filesystem's
 * metadata and no file's dirty pages (1-2 ms on an idle loop device, 10 ms
 * on a saturated host).  Where a policy refuses them (seccomp, a security
 * module's ioctl rules), syncfs() commits too, after writing every dirty
 * page of the filesystem.  Elsewhere nothing waits for a commit.
 */
int pa_fs_commit(int fd)
{
	__u64 transid = 0;

	if (!pa_fs_lookup(fd)->statfs_at_commit)
		return 0;
	if (ioctl(fd, BTRFS_IOC_START_SYNC, &transid) == 0 &&
	    ioctl(fd, BTRFS_IOC_WAIT_SYNC, &transid) == 0)
		return 0;
	return syncfs(fd) < 0 ? -errno : 0;
}
