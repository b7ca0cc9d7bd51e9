/* SPDX-License-Identifier: MIT */
/* The pool's lock: waking the worker, and the one way to do I/O from a round
 * of work that holds the lock. */
#include "src/pool/pool.h"

/* New work for the worker: it is not idle any more until it says so. */
void pa_pool_kick(struct prealloc_pool *p)
{
	p->idle = false;
	pthread_cond_signal(&p->wake);
}

/* Called and returning with the lock held: run @io without it (the disk
 * work of a round that decided under the lock), adding its time to *@ns when
 * @ns is not NULL. */
int pa_pool_unlocked(struct prealloc_pool *p, pa_pool_io_fn io, void *arg, uint64_t *ns)
{
	uint64_t t0 = pa_now_ns();
	int ret;

	pthread_mutex_unlock(&p->lock);
	ret = io(p, arg);
	pthread_mutex_lock(&p->lock);
	if (ns)
		*ns += pa_now_ns() - t0;
	return ret;
}
