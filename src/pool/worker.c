/* SPDX-License-Identifier: MIT */
/*
 * The pool's worker thread.  One segment at a time: names prepared with
 * prealloc_pool_prepare() first (prepare.c), then what pa_state_next_work()
 * picks (recycle, give space back, grow, or first have the filesystem count
 * what free space does not show yet).  Otherwise it sleeps until there
 * is work, a waiter asks for a fresh look, or a tick passes (free space
 * changes without telling anyone).  It holds the lock except around the disk
 * work (pa_pool_unlocked).
 */
#include <errno.h>
#include <unistd.h>

#include "src/pool/pool.h"

#define PA_POOL_TICK_NS 1000000000ull

/* Full speed when nothing is ready: the next take would be a miss. */
static enum pa_pool_pace pace_now(const struct prealloc_pool *p)
{
	return p->s.ready.n ? PA_POOL_QUIET : PA_POOL_URGENT;
}

/* A segment to make, new or recycled. */
struct pa_make_job {
	uint32_t seq;
	bool recycled;
	bool zero;			/* recycled: zero every byte */
	enum pa_pool_pace pace;
};

/* Make or refill the segment under its temporary name and publish it. */
static int make_io(struct prealloc_pool *p, void *arg)
{
	const struct pa_make_job *j = arg;
	struct pa_fill f = { 0 };
	int fd, ret;

	if (j->recycled) {
		ret = pa_store_refill(&p->store, j->seq, j->zero, j->pace, &f);
	} else {
		fd = pa_store_make(&p->store, j->seq, j->pace, &f);
		if (fd < 0)
			return fd;
		close(fd);
		ret = 0;
	}
	if (ret)
		return ret;
	return pa_pool_adopt(p, j->seq, j->recycled ? &p->s.st.recycled : &p->s.st.created, &f);
}

static void make_one(struct prealloc_pool *p, struct pa_make_job *j)
{
	int ret;

	j->pace = pace_now(p);
	ret = pa_pool_unlocked(p, make_io, j, &p->s.st.worker_ns);
	if (ret)
		pa_state_failed(&p->s, ret, p->stop);
}

static int remove_io(struct prealloc_pool *p, void *arg)
{
	return pa_store_remove(&p->store, true, *(const uint32_t *)arg);
}

/* Below the floor: the oldest ready segment goes. */
static void give_back_one(struct prealloc_pool *p)
{
	uint32_t seq = pa_seqs_pop_oldest(&p->s.ready);
	int ret;

	pthread_cond_broadcast(&p->changed);
	ret = pa_pool_unlocked(p, remove_io, &seq, NULL);
	pa_state_gave_back(&p->s, p->cfg.segment_size);
	if (ret)
		p->s.st.last_error = ret;
}

static int settle_io(struct prealloc_pool *p, void *arg)
{
	(void)arg;
	return pa_store_settle(&p->store);
}

/* Have the filesystem count what the pool allocated and freed: what was
 * unseen when the settle began shows in free space once it ends.  If it
 * fails, statfs is taken as it stands (the failure in last_error): counted
 * on, the unseen bytes would keep the pool from growing for good. */
static void settle(struct prealloc_pool *p)
{
	uint64_t alloc = p->s.unseen_alloc, freed = p->s.unseen_freed;
	int ret = pa_pool_unlocked(p, settle_io, NULL, NULL);

	if (ret)
		pa_state_failed(&p->s, ret, p->stop);
	pa_state_settled(&p->s, alloc, freed);
}

/* One round of work, under lock; false when there is nothing to do. */
static bool work_round(struct prealloc_pool *p)
{
	struct pa_make_job j = { 0 };
	struct pa_recycled r;
	uint64_t avail = 0;
	bool known;

	if (pa_pool_install_next(p))
		return true;
	known = pa_store_avail(&p->store, &avail) == 0;
	switch (pa_state_next_work(&p->s, known, avail, p->floor, p->cfg.segment_size)) {
	case PA_WORK_RECYCLE:
		r = pa_state_next_recycled(&p->s);
		j = (struct pa_make_job){ .seq = r.seq, .recycled = true, .zero = r.zero };
		break;
	case PA_WORK_GIVE_BACK:
		give_back_one(p);
		return true;
	case PA_WORK_SETTLE:
		settle(p);
		return true;
	case PA_WORK_GROW:
		j.seq = pa_state_new_seq(&p->s);
		break;
	case PA_WORK_NONE:
	default:
		return false;
	}
	make_one(p, &j);
	return true;
}

/* Sleep until kicked or a tick passes; a tick ends the ENOSPC back-off. */
static void sleep_tick(struct prealloc_pool *p)
{
	struct timespec ts = pa_ns_ts(pa_now_ns() + PA_POOL_TICK_NS);

	while (p->idle && !p->stop)
		if (pthread_cond_timedwait(&p->wake, &p->lock, &ts) == ETIMEDOUT) {
			p->idle = false;
			p->s.backoff = false;
		}
}

void *pa_pool_worker(void *arg)
{
	struct prealloc_pool *p = arg;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		uint64_t seen = p->kicks;

		if (work_round(p))
			continue;
		p->idle = true;
		p->idle_after = seen;
		pthread_cond_broadcast(&p->changed);
		sleep_tick(p);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}
