/* SPDX-License-Identifier: MIT */
/*
 * The pool's state and the worker's decisions over it: lists and counters
 * only, no I/O, no lock (the caller holds the pool's).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "src/pool/state.h"

void pa_state_init(struct pa_state *s, uint32_t target)
{
	s->target = target;
	s->max_target = target;
}

void pa_state_free(struct pa_state *s)
{
	free(s->ready.v);
	free(s->rq);
}

int pa_seqs_add(struct pa_seqs *s, uint32_t seq)
{
	uint32_t i;

	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 16;
		uint32_t *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	for (i = s->n; i > 0 && s->v[i - 1] > seq; i--)
		s->v[i] = s->v[i - 1];
	s->v[i] = seq;
	s->n++;
	return 0;
}

uint32_t pa_seqs_pop_oldest(struct pa_seqs *s)
{
	uint32_t seq = s->v[0];

	memmove(s->v, s->v + 1, --s->n * sizeof(*s->v));
	return seq;
}

/* A sequence number for a new name. */
uint32_t pa_state_new_seq(struct pa_state *s)
{
	return s->next_seq++;
}

/* Room in the queue reserved, so that the push after the rename cannot
 * fail. */
int pa_state_reserve_recycle(struct pa_state *s, uint32_t *seq)
{
	uint32_t want = s->nrq + s->rq_reserved + 1;

	if (want > s->rq_cap) {
		struct pa_recycled *v = realloc(s->rq, want * 2 * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->rq = v;
		s->rq_cap = want * 2;
	}
	s->rq_reserved++;
	*seq = pa_state_new_seq(s);
	return 0;
}

/* The reservation ends: @arrived says the segment is in the pool. */
void pa_state_recycled(struct pa_state *s, uint32_t seq, bool zero, bool arrived)
{
	s->rq_reserved--;
	if (arrived)
		s->rq[s->nrq++] = (struct pa_recycled){ .seq = seq, .zero = zero };
}

struct pa_recycled pa_state_next_recycled(struct pa_state *s)
{
	struct pa_recycled r = s->rq[0];

	memmove(s->rq, s->rq + 1, --s->nrq * sizeof(*s->rq));
	return r;
}

void pa_state_count_fill(struct pa_state *s, const struct pa_fill *f)
{
	s->st.bytes_zeroed += f->zeroed;
	s->st.cow_segments += f->cow;
	if (s->counts_late)
		s->unseen_alloc += f->allocated;
}

/* A ready segment of @bytes removed to keep the floor (or tried: counting
 * too much freed only costs a settle). */
void pa_state_gave_back(struct pa_state *s, uint64_t bytes)
{
	s->st.removed++;
	if (s->counts_late)
		s->unseen_freed += bytes;
}

/* The filesystem settled: free space now shows what was unseen when the
 * settle began (@alloc, @freed); what was counted since may not be. */
void pa_state_settled(struct pa_state *s, uint64_t alloc, uint64_t freed)
{
	s->unseen_alloc -= alloc;
	s->unseen_freed -= freed;
}

bool pa_out_of_space(int err)
{
	return err == -ENOSPC || err == -EDQUOT;
}

/* A failure of the worker: out of space lowers the target to what the pool
 * holds; anything else is kept for the counters.  No retry before the next
 * tick or wait_ready() either way.  -ECANCELED while @stopping is the close
 * abandoning a segment, no failure. */
void pa_state_failed(struct pa_state *s, int err, bool stopping)
{
	if (err == -ECANCELED && stopping)
		return;
	s->backoff = true;
	if (pa_out_of_space(err)) {
		s->st.enospc++;
		s->target = PA_MIN(s->target, s->ready.n);
	} else {
		s->st.last_error = err;
	}
}

/* Does free space @avail leave @floor once @seg more is allocated? */
static bool fits(uint64_t avail, uint64_t floor, uint64_t seg)
{
	return avail >= floor && avail - floor >= seg;
}

/*
 * In this order: recycled segments; giving space back while free space is
 * below @floor, oldest ready segment first; growing to the target while free
 * space stays above the floor (and the target back up to the configured one).
 * Free space is @avail from statfs (unless unknown: neither grow nor give
 * back), less what the pool allocated and plus what it freed that statfs may
 * not show yet (counts_late); PA_WORK_SETTLE when the answer hangs on those.
 * PA_WORK_NONE when there is nothing to do, with space_limited saying whether
 * space was the reason.
 */
enum pa_work pa_state_next_work(struct pa_state *s, bool avail_known, uint64_t avail,
				uint64_t floor, uint64_t seg)
{
	uint64_t low = 0, high = 0;	/* free space once statfs shows all, at worst and best */
	bool room;

	if (s->nrq)
		return PA_WORK_RECYCLE;
	if (avail_known) {
		low = avail > s->unseen_alloc ? avail - s->unseen_alloc : 0;
		high = avail + s->unseen_freed;
		if (high < floor && s->ready.n)
			return PA_WORK_GIVE_BACK;
		if (low < floor && s->ready.n && !s->backoff)
			return PA_WORK_SETTLE;
	}
	room = fits(low, floor, seg);
	if (s->ready.n < s->target && room && !s->backoff)
		return PA_WORK_GROW;
	while (s->ready.n >= s->target && s->target < s->max_target && room && !s->backoff) {
		s->target++;
		if (s->ready.n < s->target)
			return PA_WORK_GROW;
	}
	if (s->ready.n < s->max_target && !room && fits(high, floor, seg) && !s->backoff)
		return PA_WORK_SETTLE;
	s->space_limited = s->ready.n < s->max_target && (!room || s->target < s->max_target);
	return PA_WORK_NONE;
}
