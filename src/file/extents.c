/* SPDX-License-Identifier: MIT */
/* Reading a file's extent map: FIEMAP, or SEEK_DATA/SEEK_HOLE without it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>

#include "base/internal.h"
#include "src/file/extents.h"
#include "src/file/reopen.h"

#define FIEMAP_BATCH 256

/* Flags that do not describe plain on-disk data are treated as data:
 * nothing we cannot classify is ever zeroed. */
static uint32_t ext_flags(uint32_t fe_flags)
{
	uint32_t f = 0;

	if (fe_flags & FIEMAP_EXTENT_UNWRITTEN)
		f |= PA_EXT_UNWRITTEN;
	if (fe_flags & FIEMAP_EXTENT_SHARED)
		f |= PA_EXT_SHARED;
	return f;
}

static int read_fiemap(int fd, uint64_t off, uint64_t end, struct pa_extlist *out)
{
	size_t sz = sizeof(struct fiemap) + FIEMAP_BATCH * sizeof(struct fiemap_extent);
	struct fiemap *fm = malloc(sz);
	uint64_t pos = off;
	bool first = true;
	int ret = 0;

	if (!fm)
		return -ENOMEM;
	while (pos < end) {
		memset(fm, 0, sz);	/* all of it: memcheck cannot see the kernel fill extents */
		fm->fm_start = pos;
		fm->fm_length = end - pos;
		/* Sync once: resolves delayed allocation and dirty unwritten pages. */
		fm->fm_flags = first ? FIEMAP_FLAG_SYNC : 0;
		fm->fm_extent_count = FIEMAP_BATCH;
		first = false;
		if (PA_RETRY_EINTR(ioctl(fd, FS_IOC_FIEMAP, fm)) < 0) {
			ret = -errno;
			break;
		}
		if (fm->fm_mapped_extents == 0)
			break;
		for (uint32_t i = 0; i < fm->fm_mapped_extents; i++) {
			struct fiemap_extent *fe = &fm->fm_extents[i];

			ret = pa_extlist_push(out, fe->fe_logical, fe->fe_length,
					      ext_flags(fe->fe_flags));
			if (ret)
				goto out;
			pos = fe->fe_logical + fe->fe_length;
			if (fe->fe_flags & FIEMAP_EXTENT_LAST)
				goto out;
		}
	}
out:
	free(fm);
	return ret;
}

static int seek_regions(int fd, uint64_t off, uint64_t end, struct pa_extlist *out)
{
	uint64_t pos = off;
	int ret;

	while (pos < end) {
		off_t d = lseek(fd, (off_t)pos, SEEK_DATA), h;

		if (d < 0)
			return errno == ENXIO ? 0 : -errno;
		h = lseek(fd, d, SEEK_HOLE);
		if (h < 0)
			return -errno;
		ret = pa_extlist_push(out, (uint64_t)d, (uint64_t)(h - d), 0);
		if (ret)
			return ret;
		pos = (uint64_t)h;
	}
	return 0;
}

/*
 * Without FIEMAP: data regions from SEEK_DATA/SEEK_HOLE, all "written".
 * Seeking moves the file offset, which belongs to the caller: seek on a
 * descriptor of our own (@sfd, or -errno when there is none).
 */
struct seek_args {
	int fd;
	uint64_t off, end;
	struct pa_extlist *out;
};

static int seek_own(int sfd, void *arg)
{
	const struct seek_args *a = arg;
	struct stat st;
	uint64_t end;

	if (sfd >= 0)
		return seek_regions(sfd, a->off, a->end, a->out);
	/*
	 * No descriptor of our own (no /proc): seeking the caller's would
	 * move an offset its other threads share.  Call everything inside
	 * EOF data: kept, never zeroed, and reported as of unknown state.
	 */
	if (fstat(a->fd, &st) < 0)
		return -errno;
	end = PA_MIN(a->end, (uint64_t)st.st_size);
	return end > a->off ? pa_extlist_push(a->out, a->off, end - a->off, 0) : 0;
}

static int read_seek(int fd, uint64_t off, uint64_t end, struct pa_extlist *out)
{
	struct seek_args a = { .fd = fd, .off = off, .end = end, .out = out };

	if (PA_RETRY_EINTR(fdatasync(fd)) < 0 && errno != EINVAL && errno != EROFS)
		return -errno;
	return pa_with_reopened(fd, NULL, O_RDONLY, seek_own, &a);
}

int pa_extents_read(int fd, uint64_t off, uint64_t end, struct pa_extlist *out,
		    bool *ret_fiemap)
{
	int ret = read_fiemap(fd, off, end, out);

	*ret_fiemap = true;
	if (ret != -EOPNOTSUPP && ret != -ENOTTY)
		return ret;
	pa_extlist_free(out);
	*ret_fiemap = false;
	return read_seek(fd, off, end, out);
}
