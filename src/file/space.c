/* SPDX-License-Identifier: MIT */
/*
 * Will the blocks a call must allocate fit?  Asked of the statfs taken when
 * the target was opened (src/call/target.c), before anything is changed, so a
 * request that cannot fit fails with ENOSPC having done nothing.  On xfs
 * the count is taken again before an ENOSPC (below).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "base/creds.h"
#include "base/internal.h"
#include "base/sysfs_read.h"
#include "base/sysfs_root.h"
#include "src/file/space.h"
#include "src/fs/fs.h"

/*
 * Bytes ext4 keeps from everyone, root included (reserved_clusters, about 2%
 * of the volume up to 4096 clusters), which statfs counts as free.
 */
static uint64_t ext4_reserved_bytes(const char *root, dev_t dev, uint64_t bsize)
{
	char path[PATH_MAX], link[256], *name;
	uint64_t n;
	ssize_t len;

	if (pa_sysfs_dev_link(root, dev, path, sizeof(path)) < 0)
		return 0;
	len = readlink(path, link, sizeof(link) - 1);
	if (len <= 0)
		return 0;
	link[len] = 0;
	name = strrchr(link, '/');
	snprintf(path, sizeof(path), "%s/fs/ext4/%.40s", root, name ? name + 1 : link);
	return pa_sysfs_read_u64(path, "reserved_clusters", &n) == 0 ? n * bsize : 0;
}

/* The check against one statfs: 0 or -ENOSPC, the bytes free and needed. */
static int fits(const char *sysfs, const struct statfs *sfs, dev_t dev,
		const struct pa_regionlist *regions, uint64_t *ret_avail, uint64_t *ret_need)
{
	uint64_t need = 0, nfresh = 0, avail, spare, bs;
	bool root;

	*ret_avail = UINT64_MAX;
	*ret_need = 0;
	for (size_t i = 0; i < regions->n; i++) {
		if (pa_region_fresh(&regions->v[i])) {
			need += regions->v[i].blk_end - regions->v[i].blk_start;
			nfresh++;
		}
	}
	if (!need) {
		*ret_avail = 0;		/* nothing fresh: reserve piece by piece */
		return 0;
	}
	/* No fixed capacity (tmpfs size=0, ramfs, memfd): it answers itself. */
	if (sfs->f_blocks == 0)
		return 0;
	/* Block counts are in fragment units (FUSE may report them apart). */
	bs = (uint64_t)(sfs->f_frsize ? sfs->f_frsize : sfs->f_bsize);
	/* The blocks ext4 reserves for root are the caller's as the kernel
	 * checks it (fsuid 0 or CAP_SYS_RESOURCE, of the thread that writes:
	 * this one, with the caller's credentials); not its own reserve. */
	root = pa_creds_may_use_reserved();
	avail = (uint64_t)(root ? sfs->f_bfree : sfs->f_bavail) * bs;
	if (pa_fs_of((uint64_t)sfs->f_type)->reserved_clusters && root) {
		spare = ext4_reserved_bytes(sysfs, dev, bs);
		avail = avail > spare ? avail - spare : 0;
		/* Extent tree: a leaf of 340 extents of at most 32767 blocks. */
		need += ((need / bs) / 32767 + nfresh) / 340 * bs + 2 * bs;
	}
	*ret_avail = avail;
	*ret_need = need;
	return need <= avail ? 0 : -ENOSPC;
}

/*
 * xfs frees a deleted file's blocks in the background, and statfs only
 * starts that work: right after an unlink (a database dropping an old
 * segment to make room for the next) the blocks count as used.  Before an
 * ENOSPC, a call (@fd >= 0; the probe does not wait) counts again a few
 * times, 1 to 32 ms apart (63 ms at most).
 */
#define XFS_RECOUNTS 6

int pa_space_check(const char *sysfs, int fd, const struct statfs *sfs0, dev_t dev,
		   const struct pa_regionlist *regions, uint64_t *ret_avail, uint64_t *ret_need)
{
	struct statfs sfs = *sfs0;
	int ret = fits(sysfs, &sfs, dev, regions, ret_avail, ret_need);

	for (int i = 0; ret == -ENOSPC && pa_fs_of((uint64_t)sfs.f_type)->frees_late &&
			fd >= 0 && i < XFS_RECOUNTS; i++) {
		struct timespec ts = { 0, 1000000L << i };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		if (fstatfs(fd, &sfs) < 0)
			break;
		ret = fits(sysfs, &sfs, dev, regions, ret_avail, ret_need);
	}
	return ret;
}
