/* SPDX-License-Identifier: MIT */
/*
 * The step builder: every decision about a piece of the range (whether it
 * is reserved, which method zeroes it, which bytes are written buffered
 * around it) is taken here, from struct pa_work alone.
 */
#include <errno.h>
#include <stdlib.h>

#include "base/internal.h"
#include "src/method/method.h"
#include "src/plan/steps.h"

/* Smallest aligned middle worth a direct write (tests/bench, fragmented):
 * on a fragmented file one small direct write per hole costs far more
 * than the page cache does. */
#define DIRECT_MIN (256ull << 10)

static bool keep_size(const struct pa_work *w)
{
	return w->in->flags & PREALLOC_KEEP_SIZE;
}

static bool is_file(const struct pa_work *w)
{
	return w->in->target == PA_TARGET_FILE;
}

bool pa_region_zeroed(const struct pa_work *w, const struct pa_region *s)
{
	if (s->state == PA_REGION_DATA)
		return w->in->flags & PREALLOC_ZERO_DATA;
	/* Keep-size beyond EOF is reserved, never written: no write lands
	 * there without extending the file. */
	return !(s->state == PA_REGION_EOF && keep_size(w));
}

int pa_todo_init(const struct pa_work *w, struct pa_todo **ret, size_t *ret_n)
{
	size_t n = 0, cap = w->regions ? w->regions->n : 1;
	struct pa_todo *t = calloc(cap ? cap : 1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	if (!w->regions)
		t[n++] = (struct pa_todo){ w->off, w->end - w->off, true };
	for (size_t i = 0; w->regions && i < w->regions->n; i++) {
		const struct pa_region *s = &w->regions->v[i];

		if (pa_region_zeroed(w, s))
			t[n++] = (struct pa_todo){ s->start, s->len, s->state == PA_REGION_DATA };
	}
	*ret = t;
	*ret_n = n;
	return 0;
}

static int push(struct pa_steps *s, uint8_t action, unsigned int m, uint64_t start,
		uint64_t len, size_t todo)
{
	if (!len)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct pa_step *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct pa_step){ start, len, (uint32_t)todo, action, (uint8_t)m };
	return 0;
}

/*
 * Methods that write into reserved space reserve first; so does keep-size
 * beyond EOF whatever writes the rest.  Never on ext4 inline data:
 * fallocate() there loses the next write at umount (a kernel bug).  Not on
 * an xfs file fallocate() has not marked preallocated, where the writes
 * can allocate: the mark is for good, and a failed call would leave it,
 * and with it every later append's speculative preallocation beyond EOF.
 */
static bool needs_reserve(const struct pa_work *w, uint32_t mflags)
{
	bool beyond = keep_size(w) && w->end > w->old_size;

	if (!is_file(w) || w->reserved || w->in->inline_data)
		return false;
	if (w->in->reserve_marks && (mflags & PA_M_WRITES) && !beyond)
		return false;
	return (mflags & PA_M_RESERVE) || beyond;
}

/* Keep-size blocks beyond EOF are reserved even when allocated, unless the
 * file keeps them: they may be xfs's speculative preallocation, which it
 * trims at the next close unless a fallocate() marked the file preallocated. */
static bool reserve_region(const struct pa_work *w, const struct pa_region *s)
{
	return pa_region_fresh(s) ||
	       (s->state == PA_REGION_EOF && keep_size(w) && !w->in->eof_blocks_kept);
}

/* fallocate() the range, or only the pieces that need it (and the new
 * size) when the whole range exceeds free space: allocated space is not
 * reserved again (xfs would count it, and fail near full), except xfs's
 * own blocks beyond EOF, which only a reservation keeps. */
static int reserve_steps(const struct pa_work *w, unsigned int m, struct pa_steps *out)
{
	const uint8_t r = PREALLOC_ACTION_RESERVE;
	int ret = 0;

	if (!w->piecewise)
		return push(out, r, m, w->off, w->end - w->off, 0);
	for (size_t i = 0; i < w->regions->n && !ret; i++)
		if (reserve_region(w, &w->regions->v[i]))
			ret = push(out, r, m, w->regions->v[i].start, w->regions->v[i].len, 0);
	if (!ret && !keep_size(w) && w->end > w->old_size)
		ret = push(out, r, m, w->end - 1, 1, 0);
	return ret;
}

/* Alignment and smallest middle of the writes of a method with @mflags;
 * the rest goes buffered.
 * Direct writes also keep to whole pages, so buffered and direct writes of
 * one call never share a page; forced, a direct method takes every aligned
 * middle. */
static uint64_t method_align(const struct pa_work *w, uint32_t mflags, uint64_t *min)
{
	*min = 1;
	if (!(mflags & PA_M_DIRECT))
		return w->bs;
	if (is_file(w) && w->in->forced == PREALLOC_METHOD_AUTO)
		*min = DIRECT_MIN;
	return PA_MAX(w->direct_align, w->bs);
}

static void middle(const struct pa_todo *t, uint64_t a, uint64_t min, struct pa_range *r)
{
	uint64_t ms = PA_ROUND_UP(t->start, a), me = PA_ROUND_DOWN(t->start + t->len, a);

	*r = me > ms && me - ms >= min ? (struct pa_range){ ms, me - ms } :
					 (struct pa_range){ t->start, 0 };
}

/* Block-aligned methods (not PA_M_WHOLE): the middles first, so a refused
 * method has written nothing; then the edges, buffered. */
static int aligned_steps(const struct pa_work *w, unsigned int m, uint32_t mflags,
			 const struct pa_todo *t, size_t n, struct pa_steps *out)
{
	const uint8_t e = PREALLOC_ACTION_WRITE_EDGES;
	uint64_t min, a = method_align(w, mflags, &min);
	struct pa_range r;
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		middle(&t[i], a, min, &r);
		ret = push(out, PREALLOC_ACTION_ZERO, m, r.start, r.len, i);
	}
	for (size_t i = 0; i < n && !ret; i++) {
		middle(&t[i], a, min, &r);
		ret = push(out, e, PREALLOC_METHOD_BUFFERED, t[i].start, r.start - t[i].start, i);
		if (!ret)
			ret = push(out, e, PREALLOC_METHOD_BUFFERED, r.start + r.len,
				   t[i].start + t[i].len - r.start - r.len, i);
	}
	return ret;
}

/* Buffered writes zero everything; allocation zeroes holes by itself and
 * writes only the data the caller asked to zero. */
static int whole_steps(unsigned int m, const struct pa_todo *t, size_t n, struct pa_steps *out)
{
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		unsigned int mi = t[i].data ? PREALLOC_METHOD_BUFFERED : m;

		ret = push(out, PREALLOC_ACTION_ZERO, mi, t[i].start, t[i].len, i);
	}
	return ret;
}

int pa_steps_build(const struct pa_work *w, unsigned int method, const struct pa_todo *todo,
		   size_t n, struct pa_steps *out)
{
	const struct pa_method *desc = pa_method(method);
	uint32_t mflags = desc ? desc->flags : 0;	/* read once, passed down */
	int ret = 0;

	out->n = 0;
	if (needs_reserve(w, mflags))
		ret = reserve_steps(w, method, out);
	if (ret)
		return ret;
	if (mflags & PA_M_WHOLE)
		ret = whole_steps(method, todo, n, out);
	else
		ret = aligned_steps(w, method, mflags, todo, n, out);
	if (!ret && !(w->in->flags & PREALLOC_NO_SYNC))
		ret = push(out, PREALLOC_ACTION_SYNC, 0, w->off, w->end - w->off, 0);
	return ret;
}

static int by_start(const void *a, const void *b)
{
	const struct pa_step *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The undone part of steps @k.. as pieces, adjacent bytes of one piece merged. */
int pa_todo_remaining(const struct pa_steps *s, size_t k, uint64_t done,
		      struct pa_todo **todo, size_t *n)
{
	struct pa_step *rest = calloc(s->n ? s->n : 1, sizeof(*rest));
	struct pa_todo *t = calloc(s->n ? s->n : 1, sizeof(*t));
	size_t nr = 0, nt = 0;

	if (!rest || !t) {
		free(rest);
		free(t);
		return -ENOMEM;
	}
	for (size_t i = k; i < s->n; i++) {
		uint64_t d = i == k ? PA_MIN(done, s->v[i].len) : 0;

		if (s->v[i].action == PREALLOC_ACTION_ZERO ||
		    s->v[i].action == PREALLOC_ACTION_WRITE_EDGES)
			if (s->v[i].len > d)
				rest[nr++] = (struct pa_step){ s->v[i].start + d, s->v[i].len - d,
							       s->v[i].todo, 0, 0 };
	}
	qsort(rest, nr, sizeof(*rest), by_start);
	for (size_t i = 0; i < nr; i++) {
		struct pa_todo *last = nt ? &t[nt - 1] : NULL;

		if (last && i && rest[i - 1].todo == rest[i].todo &&
		    last->start + last->len == rest[i].start)
			last->len += rest[i].len;
		else
			t[nt++] = (struct pa_todo){ rest[i].start, rest[i].len,
						    (*todo)[rest[i].todo].data };
	}
	free(rest);
	free(*todo);
	*todo = t;
	*n = nt;
	return 0;
}

void pa_steps_free(struct pa_steps *s)
{
	free(s->v);
	*s = (struct pa_steps){ 0 };
}
