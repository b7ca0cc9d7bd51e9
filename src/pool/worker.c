/* SPDX-License-Identifier: MIT */
/*
 * The pool's worker thread.  One segment at a time, in this order of
 * priority: names prepared with prealloc_pool_prepare() (prepare.c);
 * recycled segments waiting to be made ready again; giving space
 * back while free space is below the floor (oldest ready segment first);
 * growing to the target while free space stays above the floor.  Otherwise it
 * sleeps until there is work, a waiter asks for a fresh look, or a tick
 * passes (free space changes without telling anyone).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "pool.h"

#define PA_POOL_TICK_NS 1000000000ull

/* A failure of the worker: out of space lowers the target to what the pool
 * holds; anything else is kept for the counters.  No retry before the next
 * tick or wait_ready() either way. */
void pa_pool_failed(struct prealloc_pool *p, int err)
{
	if (err == -ECANCELED && __atomic_load_n(&p->stop, __ATOMIC_RELAXED))
		return;
	p->backoff = true;
	if (pa_pool_out_of_space(err)) {
		p->st.enospc++;
		p->target = PA_MIN(p->target, p->ready.n);
	} else {
		p->st.last_error = err;
	}
}

/* Under lock: a published segment joins the ready list. */
static int add_ready(struct prealloc_pool *p, uint32_t seq)
{
	int ret = pa_seqs_add(&p->ready, seq);

	if (!ret)
		pthread_cond_broadcast(&p->changed);
	return ret;
}

/* Under lock: what making a segment did, in the counters. */
void pa_pool_count_fill(struct prealloc_pool *p, const struct pa_fill *f)
{
	p->st.bytes_zeroed += f->zeroed;
	p->st.cow_segments += f->cow;
}

/* A complete segment under its temporary name becomes ready (counted in
 * @counter with @f, when not NULL, at the same moment), or is removed.
 * Called without the lock. */
int pa_pool_adopt(struct prealloc_pool *p, uint32_t seq, uint64_t *counter,
		  const struct pa_fill *f)
{
	int ret = pa_pool_publish(p, seq);

	if (ret) {
		pa_pool_remove(p, false, seq);
		return ret;
	}
	pthread_mutex_lock(&p->lock);
	ret = add_ready(p, seq);
	if (!ret && counter) {
		(*counter)++;
		pa_pool_count_fill(p, f);
	}
	pthread_mutex_unlock(&p->lock);
	if (ret)
		pa_pool_remove(p, true, seq);
	return ret;
}

/* The steps below are called and return with the lock held, and drop it
 * around the disk work. */

/* Full speed when nothing is ready: the next take would be a miss. */
static enum pa_pool_pace pace_now(const struct prealloc_pool *p)
{
	return p->ready.n ? PA_POOL_QUIET : PA_POOL_URGENT;
}

static void grow_one(struct prealloc_pool *p)
{
	uint32_t seq = p->next_seq++;
	struct pa_fill f = { 0 };
	uint64_t t0 = pa_now_ns();
	enum pa_pool_pace pace = pace_now(p);
	int fd, ret;

	pthread_mutex_unlock(&p->lock);
	fd = pa_pool_make(p, seq, pace, &f);
	ret = fd < 0 ? fd : 0;
	if (fd >= 0) {
		close(fd);
		ret = pa_pool_adopt(p, seq, &p->st.created, &f);
	}
	pthread_mutex_lock(&p->lock);
	p->st.worker_ns += pa_now_ns() - t0;
	if (ret)
		pa_pool_failed(p, ret);
}

static void recycle_one(struct prealloc_pool *p)
{
	struct pa_recycled r = p->rq[0];
	struct pa_fill f = { 0 };
	uint64_t t0 = pa_now_ns();
	enum pa_pool_pace pace = pace_now(p);
	int ret;

	memmove(p->rq, p->rq + 1, --p->nrq * sizeof(*p->rq));
	pthread_mutex_unlock(&p->lock);
	ret = pa_pool_refill(p, r.seq, r.zero, pace, &f);
	if (!ret)
		ret = pa_pool_adopt(p, r.seq, &p->st.recycled, &f);
	pthread_mutex_lock(&p->lock);
	p->st.worker_ns += pa_now_ns() - t0;
	if (ret)
		pa_pool_failed(p, ret);
}

/* Below the floor: the oldest ready segment goes. */
static void give_back_one(struct prealloc_pool *p)
{
	uint32_t seq = pa_seqs_pop_oldest(&p->ready);
	int ret;

	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	ret = pa_pool_remove(p, true, seq);
	pthread_mutex_lock(&p->lock);
	p->st.removed++;
	if (ret)
		p->st.last_error = ret;
}

/* One step of work; false when there is nothing to do. */
static bool step(struct prealloc_pool *p)
{
	uint64_t avail = UINT64_MAX, seg = p->cfg.segment_size;
	bool room;

	if (pa_pool_install_next(p))
		return true;
	if (p->nrq) {
		recycle_one(p);
		return true;
	}
	/* Unknown free space: neither grow nor give back. */
	if (pa_pool_avail(p, &avail) < 0)
		avail = 0;
	else if (avail < p->floor && p->ready.n) {
		give_back_one(p);
		return true;
	}
	room = avail >= p->floor && avail - p->floor >= seg;
	if (p->ready.n < p->target && room && !p->backoff) {
		grow_one(p);
		return true;
	}
	if (p->ready.n >= p->target && p->target < p->cfg.target && room && !p->backoff) {
		p->target++;
		return true;
	}
	p->space_limited = p->ready.n < p->cfg.target && (!room || p->target < p->cfg.target);
	return false;
}

/* Sleep until kicked or a tick passes; a tick ends the ENOSPC back-off. */
static void sleep_tick(struct prealloc_pool *p)
{
	struct timespec ts;
	uint64_t t;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + PA_POOL_TICK_NS;
	ts.tv_sec = (time_t)(t / 1000000000ull);
	ts.tv_nsec = (long)(t % 1000000000ull);
	while (p->idle && !p->stop)
		if (pthread_cond_timedwait(&p->wake, &p->lock, &ts) == ETIMEDOUT) {
			p->idle = false;
			p->backoff = false;
		}
}

void *pa_pool_worker(void *arg)
{
	struct prealloc_pool *p = arg;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		uint64_t seen = p->kicks;

		if (step(p))
			continue;
		p->idle = true;
		p->idle_after = seen;
		pthread_cond_broadcast(&p->changed);
		sleep_tick(p);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}
