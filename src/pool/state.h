/* SPDX-License-Identifier: MIT */
/*
 * The pool's state: ready segments, recycled ones waiting for the worker,
 * the target and the counters, and what the worker should do next.  No I/O
 * and no lock here: the caller holds the pool's lock.
 */
#ifndef PREALLOC_POOL_STATE_H
#define PREALLOC_POOL_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include <prealloc-pool.h>

/* Sequence numbers in ascending order: the oldest segment first. */
struct pa_seqs {
	uint32_t *v;
	uint32_t n, cap;
};

struct pa_recycled {
	uint32_t seq;		/* its temporary name */
	bool zero;
};

/* What making a segment did. */
struct pa_fill {
	uint64_t zeroed;	/* bytes made to read zero (&prealloc_report) */
	uint64_t allocated;	/* bytes it may have allocated: at most its size */
	bool cow;		/* copy-on-write: allocated and durable, not written */
};

struct pa_state {
	struct pa_seqs ready;
	struct pa_recycled *rq;		/* recycled segments waiting for the worker */
	uint32_t nrq, rq_cap, rq_reserved;
	uint32_t next_seq;
	uint32_t target;		/* lowered after ENOSPC */
	uint32_t max_target;		/* the configured one */
	bool backoff;			/* ENOSPC seen: do not raise target until the next tick */
	bool space_limited;		/* the last round stopped short for lack of space */
	/* Where statfs counts what is allocated or freed only once the
	 * filesystem settles (pa_store_settle()): bytes the pool allocated and
	 * freed since it last did, which free space may not show yet. */
	bool counts_late;
	uint64_t unseen_alloc, unseen_freed;
	struct prealloc_pool_stats st;
};

/* The worker's next piece of work. */
enum pa_work {
	PA_WORK_NONE,
	PA_WORK_RECYCLE,	/* make the oldest recycled segment ready */
	PA_WORK_GIVE_BACK,	/* below the floor: remove the oldest ready one */
	PA_WORK_GROW,		/* make a new segment */
	PA_WORK_SETTLE,		/* the answer hangs on what free space does not show
				 * yet: have the filesystem count it, then look again */
};

void pa_state_init(struct pa_state *s, uint32_t target);
void pa_state_free(struct pa_state *s);
int pa_seqs_add(struct pa_seqs *s, uint32_t seq);
uint32_t pa_seqs_pop_oldest(struct pa_seqs *s);
uint32_t pa_state_new_seq(struct pa_state *s);
int pa_state_reserve_recycle(struct pa_state *s, uint32_t *seq);
void pa_state_recycled(struct pa_state *s, uint32_t seq, bool zero, bool arrived);
struct pa_recycled pa_state_next_recycled(struct pa_state *s);
void pa_state_count_fill(struct pa_state *s, const struct pa_fill *f);
void pa_state_gave_back(struct pa_state *s, uint64_t bytes);
void pa_state_settled(struct pa_state *s, uint64_t alloc, uint64_t freed);
void pa_state_failed(struct pa_state *s, int err, bool stopping);
enum pa_work pa_state_next_work(struct pa_state *s, bool avail_known, uint64_t avail,
				uint64_t floor, uint64_t seg);
bool pa_out_of_space(int err);

#endif
