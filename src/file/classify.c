/* SPDX-License-Identifier: MIT */
/*
 * Pure range classification: extents in, regions (or a census) out.  No
 * I/O here so the rules that decide what may be zeroed are tested over
 * synthetic layouts.
 */
#include <errno.h>
#include <stdlib.h>

#include "base/internal.h"
#include "src/file/extents.h"

static int grow(void **v, size_t *cap, size_t elem)
{
	size_t ncap = *cap ? *cap * 2 : 16;
	void *nv = reallocarray(*v, ncap, elem);

	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

int pa_extlist_push(struct pa_extlist *l, uint64_t start, uint64_t len, uint32_t flags)
{
	if (l->n == l->cap && grow((void **)&l->v, &l->cap, sizeof(*l->v)))
		return -ENOMEM;
	l->v[l->n++] = (struct pa_extent){ .start = start, .len = len, .flags = flags };
	return 0;
}

void pa_extlist_free(struct pa_extlist *l)
{
	free(l->v);
	*l = (struct pa_extlist){ 0 };
}

void pa_regionlist_free(struct pa_regionlist *l)
{
	free(l->v);
	*l = (struct pa_regionlist){ 0 };
}

/* Append [start, end) in @state, merging with the previous region. */
static int region_add(struct pa_regionlist *l, uint64_t start, uint64_t end, uint8_t state,
		   uint8_t shared, uint8_t allocated, uint64_t blksize)
{
	struct pa_region *last = l->n ? &l->v[l->n - 1] : NULL;

	if (start >= end)
		return 0;
	if (last && last->state == state && last->shared == shared &&
	    last->allocated == allocated && last->start + last->len == start) {
		last->len = end - last->start;
		last->blk_end = PA_ROUND_UP(end, blksize);
		return 0;
	}
	if (l->n == l->cap && grow((void **)&l->v, &l->cap, sizeof(*l->v)))
		return -ENOMEM;
	l->v[l->n++] = (struct pa_region){
		.start = start, .len = end - start,
		.blk_start = PA_ROUND_DOWN(start, blksize),
		.blk_end = PA_ROUND_UP(end, blksize),
		.state = state, .shared = shared, .allocated = allocated,
	};
	return 0;
}

/* Add [start, end) of one kind, splitting it at the old end of file. */
static int add_split_eof(struct pa_regionlist *out, uint64_t start, uint64_t end,
			 uint8_t state, uint8_t shared, uint64_t size, uint64_t blksize)
{
	uint64_t mid = PA_MAX(start, PA_MIN(end, size));
	int ret = region_add(out, start, mid, state, shared, PA_EOF_NONE, blksize);

	uint8_t backing = state == PA_REGION_HOLE ? PA_EOF_NONE :
			  state == PA_REGION_UNWRITTEN ? PA_EOF_UNWRITTEN : PA_EOF_WRITTEN;

	return ret ? ret : region_add(out, mid, end, PA_REGION_EOF, 0, backing, blksize);
}

int pa_classify(const struct pa_extent *ext, size_t n, uint64_t off, uint64_t end,
		uint64_t size, uint64_t blksize, struct pa_regionlist *out)
{
	uint64_t pos = off;
	int ret;

	for (size_t i = 0; i < n && pos < end; i++) {
		uint64_t es = ext[i].start, ee = ext[i].start + ext[i].len;
		uint8_t state = ext[i].flags & PA_EXT_UNWRITTEN ? PA_REGION_UNWRITTEN : PA_REGION_DATA;

		if (ee <= pos)
			continue;
		if (es > pos) {
			ret = add_split_eof(out, pos, PA_MIN(es, end), PA_REGION_HOLE, 0, size, blksize);
			if (ret)
				return ret;
			pos = PA_MIN(es, end);
		}
		ret = add_split_eof(out, pos, PA_MIN(ee, end), state,
				    !!(ext[i].flags & PA_EXT_SHARED), size, blksize);
		if (ret)
			return ret;
		pos = PA_MIN(ee, end);
	}
	return add_split_eof(out, pos, end, PA_REGION_HOLE, 0, size, blksize);
}

void pa_census_count(const struct pa_extlist *ext, uint64_t off, uint64_t end,
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
