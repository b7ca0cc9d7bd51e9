/* SPDX-License-Identifier: MIT */
/*
 * The ready-segment pool's handle, shared by its files: the public calls
 * (pool.c, checks.c), handing a segment out (hand_out.c), names prepared
 * ahead (prepare.c), the worker (worker.c) and the lock (lock.c).  The state
 * (state.h) is under the lock; the store (store.h) is called without it.
 * Calls go one way (no cycle): pool.c calls the worker, the worker
 * prepare.c, both hand_out.c, and all of them lock.c, checks.c, state.c and
 * store.c, which call nothing of the pool's.
 */
#ifndef PREALLOC_POOL_H
#define PREALLOC_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/pool/state.h"
#include "src/pool/store.h"

struct pa_prepared;		/* prepare.c */

struct prealloc_pool {
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* the worker sleeps here */
	pthread_cond_t changed;		/* prealloc_pool_wait_ready() sleeps here */
	pthread_t worker;
	pid_t pid;			/* the owner: a forked child is not */
	struct prealloc_pool_config cfg;
	struct pa_store store;
	uint64_t floor;

	/* Under lock. */
	struct pa_state s;
	struct pa_prepared *prep;	/* prepared names, oldest first */
	bool stop;			/* also read without lock by the progress callback */
	bool idle;			/* the worker sleeps with nothing to do */
	uint64_t kicks;			/* wait_ready() requests for a fresh round */
	uint64_t idle_after;		/* kicks seen by the last round that went idle */
};

/* What pa_pool_hand_out() did (@nowait: what it was asked). */
struct pa_hand_out {
	bool nowait;		/* none ready: -EAGAIN instead of making one */
	bool hit;		/* a ready segment went out */
	bool made;		/* none was ready: one was made (@fill) */
	bool moved;		/* the rename happened: a failure is a directory sync's */
	bool kept;		/* the rename failed, the segment is back in the pool */
	struct pa_fill fill;
};

/* I/O from a round of work that holds the lock. */
typedef int (*pa_pool_io_fn)(struct prealloc_pool *p, void *arg);

/* lock.c */
void pa_pool_kick(struct prealloc_pool *p);
int pa_pool_unlocked(struct prealloc_pool *p, pa_pool_io_fn io, void *arg, uint64_t *ns);

/* checks.c */
int pa_pool_check_caller(const struct prealloc_pool *p);
bool pa_pool_bad_name(const char *name);
int pa_pool_name_free(int dirfd, const char *name);

/* hand_out.c */
int pa_pool_hand_out(struct prealloc_pool *p, int dirfd, const char *name, int oflags,
		     enum pa_pool_pace pace, struct pa_hand_out *o);
int pa_pool_adopt(struct prealloc_pool *p, uint32_t seq, uint64_t *counter,
		  const struct pa_fill *f);

/* prepare.c: names prepared ahead. */
bool pa_pool_install_next(struct prealloc_pool *p);
bool pa_pool_take_prepared(struct prealloc_pool *p, int dirfd, const char *name, int oflags,
			   int *ret);
void pa_pool_prep_free(struct prealloc_pool *p);

/* worker.c */
void *pa_pool_worker(void *arg);

#endif
