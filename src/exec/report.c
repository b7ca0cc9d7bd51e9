/* SPDX-License-Identifier: MIT */
/* The report's verdict on a file's range, from the range's classification
 * and what the run did: no I/O, tested with a table (tests/unit/test-report.c). */
#include "base/internal.h"
#include "src/exec/report.h"

/* Bytes of EOF region @s inside the old last block. */
static uint64_t in_last_block(const struct pa_work *w, const struct pa_region *s)
{
	uint64_t blk_end = PA_ROUND_UP(w->old_size, w->bs);

	return s->start < blk_end ? PA_MIN(s->len, blk_end - s->start) : 0;
}

/*
 * Bytes of EOF region @i inside the old last block when this call wrote
 * that block's part inside EOF: extent state is per block, so the tail
 * beyond EOF is written zeros now too, whatever it was before (as FIEMAP,
 * and so prealloc_verify(), will say).
 */
static uint64_t eof_tail_written(const struct pa_work *w, bool fiemap, size_t i)
{
	const struct pa_region *s = &w->regions->v[i], *prev = i ? &w->regions->v[i - 1] : NULL;

	/* Without FIEMAP nothing beyond EOF shows as written (SEEK_DATA). */
	if (!fiemap || !prev || s->start != w->old_size ||
	    prev->start + prev->len != s->start || !pa_region_zeroed(w, prev))
		return 0;
	return in_last_block(w, s);
}

/*
 * Keep-size beyond EOF: the rest of a written last block is written zeros
 * already; the rest is reserved, not written, if the filesystem reserves at
 * all (ext2 and indirect-block ext4 files do not).  Written blocks past the
 * last block are xfs's speculative preallocation, which xfs may trim and
 * the next fallocate() allocate again unwritten: reserved, not written.
 * Bytes neither written nor reserved.
 */
static uint64_t beyond_eof(struct prealloc_report *r, const struct pa_work *w, bool fiemap,
			   bool reserved)
{
	uint64_t unreserved = 0;

	for (size_t i = 0; i < w->regions->n; i++) {
		const struct pa_region *s = &w->regions->v[i];
		uint64_t tail, rest;

		if (s->state != PA_REGION_EOF || pa_region_zeroed(w, s))
			continue;
		tail = s->allocated == PA_EOF_WRITTEN ? in_last_block(w, s) :
							 eof_tail_written(w, fiemap, i);
		rest = s->len - tail;
		r->bytes_zeroed += tail;
		if (s->allocated != PA_EOF_NONE || reserved)
			r->bytes_reserved += rest;
		else
			unreserved += rest;
	}
	return unreserved;
}

void pa_report_fill(struct prealloc_report *r, const struct pa_work *w, bool fiemap,
		    bool reserved)
{
	const struct pa_plan_input *in = w->in;
	uint64_t unreserved;

	r->bytes_kept = 0;
	/* Reflinked data is copied on its next overwrite: not written in place
	 * (unless this call rewrote it, which unshared it). */
	r->cow = in->cow;
	for (size_t i = 0; i < w->regions->n; i++) {
		const struct pa_region *s = &w->regions->v[i];

		if (!pa_region_zeroed(w, s)) {
			r->bytes_kept += s->state == PA_REGION_DATA ? s->len : 0;
			r->cow |= s->shared;
		}
	}
	if (in->no_write) {
		/* A hugetlbfs page is zeroed when fallocate() allocates it. */
		r->bytes_zeroed += r->bytes_reserved;
		r->bytes_reserved = 0;
	}
	unreserved = beyond_eof(r, w, fiemap, reserved);
	/* SEEK_DATA cannot tell written data from unwritten extents; nobody
	 * can tell whether an unknown upper layer overwrites in place. */
	if (!fiemap && !in->mem_backed)
		r->bytes_unknown = r->bytes_kept;
	if (in->cow_unknown)
		r->bytes_unknown = w->end - w->off;
	r->written = !r->cow && r->bytes_reserved == 0 && unreserved == 0 &&
		     r->bytes_unknown == 0;
}
