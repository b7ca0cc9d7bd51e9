/* SPDX-License-Identifier: MIT */
/*
 * xfs's conditional range exchange, and the temporary file it exchanges
 * with.  The structures are the kernel's ABI (xfs_fs.h), which no
 * installed header carries yet.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/internal.h"
#include "src/file/exchange.h"

struct xfs_commit_range {
	int32_t file1_fd;
	uint32_t pad;
	uint64_t file1_offset;
	uint64_t file2_offset;
	uint64_t length;
	uint64_t flags;
	uint64_t file2_freshness[6];
};

/* The leading part of struct xfs_fsop_geom (256 bytes in all). */
struct xfs_fsop_geom {
	uint32_t blocksize, rtextsize, agblocks, agcount, logblocks, sectsize;
	uint32_t inodesize, imaxpct;
	uint64_t datablocks, rtblocks, rtextents, logstart;
	unsigned char uuid[16];
	uint32_t sunit, swidth;
	int32_t version;
	uint32_t flags;
	uint8_t rest[256 - 96];
};

_Static_assert(sizeof(struct xfs_fsop_geom) == 256, "xfs_fsop_geom v5");

#define XFS_IOC_FSGEOMETRY	_IOR('X', 126, struct xfs_fsop_geom)
#define XFS_IOC_START_COMMIT	_IOR('X', 130, struct xfs_commit_range)
#define XFS_IOC_COMMIT_RANGE	_IOW('X', 131, struct xfs_commit_range)
#define XFS_FSOP_GEOM_FLAGS_EXCHANGE_RANGE (1u << 24)

bool pa_exchange_formatted(int fd)
{
	struct xfs_fsop_geom g = { 0 };

	return ioctl(fd, XFS_IOC_FSGEOMETRY, &g) == 0 &&
	       (g.flags & XFS_FSOP_GEOM_FLAGS_EXCHANGE_RANGE);
}

int pa_commit_start(int fd, struct pa_commit *c)
{
	struct xfs_commit_range r = { 0 };

	if (ioctl(fd, XFS_IOC_START_COMMIT, &r) < 0)
		return -errno;
	memcpy(c->freshness, r.file2_freshness, sizeof(c->freshness));
	return 0;
}

int pa_commit_range(int fd, const struct pa_commit *c, int tmp, uint64_t off, uint64_t len,
		    uint64_t flags)
{
	struct xfs_commit_range r = { .file1_fd = tmp, .file1_offset = off, .file2_offset = off,
				      .length = len, .flags = flags };

	memcpy(r.file2_freshness, c->freshness, sizeof(r.file2_freshness));
	return PA_RETRY_EINTR(ioctl(fd, XFS_IOC_COMMIT_RANGE, &r)) < 0 ? -errno : 0;
}

/* The directory of the file @fd is, by its name in /proc. */
static int dir_of(int fd, char *dir, size_t size)
{
	static const char deleted[] = " (deleted)";
	char link[64];
	ssize_t n;
	size_t l;

	snprintf(link, sizeof(link), "/proc/thread-self/fd/%d", fd);
	n = readlink(link, dir, size - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	dir[n] = '\0';
	l = (size_t)n;
	/* An unlinked file, or not a path at all ("anon_inode:..."). */
	if (dir[0] != '/' || (l >= sizeof(deleted) - 1 &&
			      !strcmp(dir + l - (sizeof(deleted) - 1), deleted)))
		return -ENOENT;
	*(strrchr(dir, '/') == dir ? dir + 1 : strrchr(dir, '/')) = '\0';
	return 0;
}

int pa_tmpfile_beside(int fd, const struct stat *st)
{
	char dir[PATH_MAX];
	struct stat tst;
	int ret = dir_of(fd, dir, sizeof(dir)), tmp;

	if (ret)
		return ret;
	tmp = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (tmp < 0)
		return -errno;
	if (fstat(tmp, &tst) < 0 || tst.st_dev != st->st_dev) {
		close(tmp);
		return -EXDEV;
	}
	return tmp;
}
