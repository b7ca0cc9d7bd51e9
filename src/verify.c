/* SPDX-License-Identifier: MIT */
/* prealloc_verify(): a census of extent states, the proof of the result. */
#include <errno.h>
#include <linux/magic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "extents.h"
#include "internal.h"

static void count(const struct pa_extlist *ext, uint64_t off, uint64_t end,
		  struct prealloc_census *c)
{
	uint64_t pos = off;

	for (size_t i = 0; i < ext->n && pos < end; i++) {
		uint64_t s = PA_MAX(ext->v[i].start, pos);
		uint64_t e = PA_MIN(ext->v[i].start + ext->v[i].len, end);

		if (e <= s)
			continue;
		c->hole_bytes += s - pos;
		if (ext->v[i].flags & PA_EXT_UNWRITTEN)
			c->unwritten_bytes += e - s;
		else
			c->written_bytes += e - s;
		if (ext->v[i].flags & PA_EXT_SHARED)
			c->shared_bytes += e - s;
		pos = e;
	}
	c->hole_bytes += end - pos;
}

#define PAGES_WINDOW (1ull << 30)	/* bytes mapped at a time */

/* Count the pages of [off, end) (inside one window) that are in memory. */
static int count_window(int fd, uint64_t off, uint64_t end, uint64_t pg,
			struct prealloc_census *c)
{
	uint64_t base = PA_ROUND_DOWN(off, pg), maplen = PA_ROUND_UP(end, pg) - base;
	unsigned char *vec = malloc((size_t)(maplen / pg));
	void *map;
	int ret = 0;

	if (!vec)
		return -ENOMEM;
	map = mmap(NULL, (size_t)maplen, PROT_READ, MAP_SHARED, fd, (off_t)base);
	if (map == MAP_FAILED || mincore(map, (size_t)maplen, vec) < 0)
		ret = -errno;
	for (uint64_t i = 0; i < maplen / pg && !ret; i++) {
		uint64_t s = PA_MAX(base + i * pg, off), e = PA_MIN(base + (i + 1) * pg, end);

		if (vec[i] & 1)
			c->written_bytes += e - s;
		else
			c->hole_bytes += e - s;
	}
	if (map != MAP_FAILED)
		munmap(map, (size_t)maplen);
	free(vec);
	return ret;
}

/*
 * tmpfs has no FIEMAP and SEEK_DATA skips allocated pages nobody wrote, yet
 * an allocated page is a written page of zeros: count the pages in memory.
 * (A page swapped out counts as a hole.)  -errno when it cannot map.
 */
static int count_pages(int fd, uint64_t off, uint64_t end, struct prealloc_census *c)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	int ret = 0;

	*c = (struct prealloc_census){ 0 };
	for (uint64_t s = off; s < end && !ret; s = PA_ROUND_DOWN(s, PAGES_WINDOW) + PAGES_WINDOW)
		ret = count_window(fd, s, PA_MIN(end, PA_ROUND_DOWN(s, PAGES_WINDOW) + PAGES_WINDOW),
				   pg, c);
	return ret;
}

/* Without FIEMAP, data from SEEK_DATA may be unwritten extents: unknown,
 * unless memory holds it (ramfs has no other state). */
static void seek_census(struct prealloc_census *c, bool mem)
{
	if (!mem) {
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
	bool fiemap, mem;
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
	mem = sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC;
	ret = pa_extents_read(fd, offset, offset + len, &ext, &fiemap);
	/* A descriptor that cannot be mapped (write-only) falls back to SEEK_DATA. */
	if (ret == 0 && (fiemap || sfs.f_type != TMPFS_MAGIC ||
			 count_pages(fd, offset, offset + len, &c) != 0)) {
		c = (struct prealloc_census){ 0 };
		count(&ext, offset, offset + len, &c);
		if (!fiemap)
			seek_census(&c, mem);
	}
	if (ret == 0) {
		c.fiemap = fiemap;
		c.size = census->size;
		memcpy(census, &c, PA_MIN((size_t)census->size, sizeof(c)));
	}
	pa_extlist_free(&ext);
	return ret;
}
