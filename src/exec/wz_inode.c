/* SPDX-License-Identifier: MIT */
/*
 * When the kernel refuses FALLOC_FL_WRITE_ZEROES (EOPNOTSUPP) on a file
 * whose device can zero by unmapping, the refusal is the file's own or its
 * filesystem's.  What the inode says tells them apart: a refusal it
 * explains says nothing about the other files of the filesystem, so only
 * an unexplained one is remembered for the filesystem (src/exec/zero.c).
 */
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sysfs_read.h"
#include "src/exec/job.h"
#include "src/exec/wz_inode.h"
#include "src/file/extents.h"
#include "src/fs/fs.h"

/* Any extent of the file shared with another (FIEMAP's flag): xfs gives
 * such a file copy-on-write writes, which the flag cannot make in place. */
static bool shares_extents(int fd)
{
	struct pa_extlist l = { 0 };
	struct stat st;
	bool fiemap = false, shared = false;

	if (fstat(fd, &st) < 0 || st.st_size <= 0 ||
	    pa_extents_read(fd, 0, (uint64_t)st.st_size, &l, &fiemap) < 0)
		goto out;
	for (size_t i = 0; i < l.n && !shared; i++)
		shared = l.v[i].flags & PA_EXT_SHARED;
out:
	pa_extlist_free(&l);
	return shared;
}

/* The debug knob that makes every file of @fs copy-on-write (xfs on
 * kernels built with CONFIG_XFS_DEBUG only), under the context's sysfs. */
static bool always_cow(const char *sysfs, const struct pa_fs *fs)
{
	char dir[PATH_MAX];
	uint64_t v = 0;

	return snprintf(dir, sizeof(dir), "%s/fs/%s/debug", sysfs, fs->name) < (int)sizeof(dir) &&
	       pa_sysfs_read_u64(dir, "always_cow", &v) == 0 && v != 0;
}

const char *pa_wz_inode_refusal(int fd, const struct pa_target *t, const char *sysfs)
{
	const struct pa_fs *fs = pa_fs_of(t->fs_type);
	struct fsxattr fa;

	if (t->in.no_fallocate)
		return "this file, which has no extents (ext2/ext3, or an ext4 file without them)";
	if (fs->realtime && ioctl(fd, FS_IOC_FSGETXATTR, &fa) == 0 &&
	    (fa.fsx_xflags & FS_XFLAG_REALTIME))
		return "this file, which is on xfs's realtime device";
	if (fs->always_cow_knob && always_cow(sysfs, fs))
		return "this file, which xfs copies on write (always_cow is set)";
	if (shares_extents(fd))
		return "this file, which shares extents with another (reflink)";
	return NULL;
}
