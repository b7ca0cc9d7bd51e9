/* SPDX-License-Identifier: MIT */
/*
 * Range classification: which bytes of a request hold data (kept), and which
 * are holes, unwritten extents or beyond end of file (to be zeroed).
 * pa_classify() is pure; pa_extents_read() does the I/O.
 */
#ifndef PREALLOC_EXTENTS_H
#define PREALLOC_EXTENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One extent as the filesystem reports it (FIEMAP or SEEK_DATA). */
struct pa_extent {
	uint64_t start;
	uint64_t len;
	uint32_t flags;		/* PA_EXT_* */
};

#define PA_EXT_UNWRITTEN	(1u << 0)
#define PA_EXT_SHARED		(1u << 1)

struct pa_extlist {
	struct pa_extent *v;
	size_t n, cap;
};

enum pa_region_state {
	PA_REGION_DATA,		/* written extent inside EOF: keep */
	PA_REGION_UNWRITTEN,	/* unwritten extent inside EOF: reads zero */
	PA_REGION_HOLE,		/* no extent inside EOF: reads zero */
	PA_REGION_EOF,		/* at or beyond the old end of file */
};

/* A region: a stretch of the requested range in one state (the extent
 * map's word; a "segment" is the pool's file).  Holes keep their whole
 * filesystem blocks in [blk_start, blk_end) so a failure can punch exactly
 * the blocks the call allocated. */
struct pa_region {
	uint64_t start;
	uint64_t len;
	uint64_t blk_start;
	uint64_t blk_end;
	uint8_t state;		/* enum pa_region_state */
	uint8_t shared;
	uint8_t allocated;	/* PA_REGION_EOF: enum pa_eof_alloc */
};

/* What backs a PA_REGION_EOF region: nothing, an unwritten extent (a
 * keep-size reservation, or xfs's speculative preallocation) or a written
 * one (the rest of the old last block, or xfs's speculative blocks). */
enum pa_eof_alloc {
	PA_EOF_NONE,
	PA_EOF_UNWRITTEN,
	PA_EOF_WRITTEN,
};

struct pa_regionlist {
	struct pa_region *v;
	size_t n, cap;
};

/* Blocks a call may allocate: unallocated when it started. */
static inline bool pa_region_fresh(const struct pa_region *s)
{
	return s->state == PA_REGION_HOLE ||
	       (s->state == PA_REGION_EOF && s->allocated == PA_EOF_NONE);
}

int pa_extlist_push(struct pa_extlist *l, uint64_t start, uint64_t len, uint32_t flags);
void pa_extlist_free(struct pa_extlist *l);
void pa_regionlist_free(struct pa_regionlist *l);

/*
 * Split [off, end) of a file of @size bytes with block size @blksize into
 * regions from @ext (sorted, non-overlapping).  Bytes covered by no extent
 * are holes; bytes at or beyond @size are PA_REGION_EOF whatever their extent.
 * Returns 0 or -ENOMEM.
 */
int pa_classify(const struct pa_extent *ext, size_t n, uint64_t off, uint64_t end,
		uint64_t size, uint64_t blksize, struct pa_regionlist *out);

struct prealloc_census;

/* Add the bytes of [@off, @end) by state to @c (holes where no extent of
 * @ext, sorted, lies). */
void pa_census_count(const struct pa_extlist *ext, uint64_t off, uint64_t end,
		     struct prealloc_census *c);

/*
 * Read the extents overlapping [off, end): FIEMAP with FIEMAP_FLAG_SYNC, or
 * SEEK_DATA/SEEK_HOLE when FIEMAP is not supported (*ret_fiemap = false;
 * unwritten extents then show as holes or data as the filesystem decides).
 */
int pa_extents_read(int fd, uint64_t off, uint64_t end, struct pa_extlist *out,
		    bool *ret_fiemap);

#endif
