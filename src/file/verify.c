/* SPDX-License-Identifier: MIT */
/* prealloc_verify(): a census of extent states, the proof of the result. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "base/internal.h"
#include "src/file/extents.h"
#include "src/fs/fs.h"

/*
 * Without FIEMAP, data from SEEK_DATA may be unwritten extents: unknown.
 * In memory (tmpfs, ramfs) data is written; tmpfs shows pages allocated but
 * never written as holes, and prealloc_file() writes its pages for that.
 */
static void seek_census(struct prealloc_census *c, bool written_only)
{
	if (!written_only) {
		c->unknown_bytes = c->written_bytes;
		c->written_bytes = 0;
	}
}

PA_EXPORT int prealloc_verify(int fd, uint64_t offset, uint64_t len,
			      struct prealloc_census *census)
{
	struct prealloc_census c = { 0 };
	struct pa_extlist ext = { 0 };
	struct statfs sfs;
	struct stat st;
	bool fiemap, written_only;
	int ret;

	if (!census || census->size < offsetof(struct prealloc_census, written_bytes))
		return -EINVAL;
	ret = pa_check_range(offset, len);
	if (ret)
		return ret;
	if (fstat(fd, &st) < 0 || fstatfs(fd, &sfs) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	written_only = pa_fs_of((uint64_t)sfs.f_type)->seek_data_written;
	ret = pa_extents_read(fd, offset, offset + len, &ext, &fiemap);
	if (ret == 0) {
		pa_census_count(&ext, offset, offset + len, &c);
		if (!fiemap)
			seek_census(&c, written_only);
		c.fiemap = fiemap;
		c.size = census->size;
		memcpy(census, &c, PA_MIN((size_t)census->size, sizeof(c)));
	}
	pa_extlist_free(&ext);
	return ret;
}
