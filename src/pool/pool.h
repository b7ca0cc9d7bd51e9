/* SPDX-License-Identifier: MIT */
/* The ready-segment pool's state, shared by its files. */
#ifndef PREALLOC_POOL_H
#define PREALLOC_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "internal.h"

#define PA_POOL_TMP_PREFIX ".prealloc-tmp-"
#define PA_POOL_READY_PREFIX ".prealloc-ready-"

/* Sequence numbers in ascending order: the oldest segment first. */
struct pa_seqs {
	uint32_t *v;
	uint32_t n, cap;
};

struct pa_recycled {
	uint32_t seq;		/* its temporary name */
	bool zero;
};

struct pa_prepared;		/* prepare.c */

struct prealloc_pool {
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* the worker sleeps here */
	pthread_cond_t changed;		/* prealloc_pool_wait_ready() sleeps here */
	pthread_t worker;
	pid_t pid;			/* the owner: a forked child is not */
	int dirfd;
	dev_t dev;
	ino_t ino;
	struct prealloc_pool_config cfg;
	uint64_t floor;

	/* Under lock. */
	struct pa_seqs ready;
	struct pa_recycled *rq;		/* recycled segments waiting for the worker */
	uint32_t nrq, rq_cap, rq_reserved;
	struct pa_prepared *prep;	/* prepared names, oldest first */
	uint32_t next_seq;
	uint32_t target;		/* lowered after ENOSPC */
	bool stop;			/* also read without lock by the progress callback */
	bool idle;			/* the worker sleeps with nothing to do */
	bool backoff;			/* ENOSPC seen: do not raise target until the next tick */
	bool space_limited;		/* the last round stopped short for lack of space */
	uint64_t kicks;			/* wait_ready() requests for a fresh round */
	uint64_t idle_after;		/* kicks seen by the last round that went idle */
	struct prealloc_pool_stats st;
};

/* How a segment is zeroed. */
enum pa_pool_pace {
	PA_POOL_CALLER,		/* a miss: the caller waits; full speed */
	PA_POOL_URGENT,		/* the worker with none ready: full speed */
	PA_POOL_QUIET,		/* the worker with one ready anyway: beside the commits */
};

/* What making a segment did. */
struct pa_fill {
	uint64_t zeroed;	/* bytes made to read zero (&prealloc_report) */
	bool cow;		/* copy-on-write: allocated and durable, not written */
};

/* What pa_pool_hand_out() did. */
struct pa_hand_out {
	bool hit;		/* a ready segment went out */
	bool made;		/* none was ready: one was made (@fill) */
	bool moved;		/* the rename happened: a failure is a directory sync's */
	bool kept;		/* the rename failed, the segment is back in the pool */
	struct pa_fill fill;
};

/* store.c: segments on disk. */
void pa_pool_name(char *buf, size_t len, bool ready, uint32_t seq);
int pa_pool_make(struct prealloc_pool *p, uint32_t seq, enum pa_pool_pace pace,
		 struct pa_fill *f);
int pa_pool_refill(struct prealloc_pool *p, uint32_t seq, bool zero, enum pa_pool_pace pace,
		   struct pa_fill *f);
int pa_pool_publish(struct prealloc_pool *p, uint32_t seq);
int pa_pool_move(struct prealloc_pool *p, const char *from, int dirfd, const char *to,
		 bool *ret_renamed);
int pa_pool_move_in(struct prealloc_pool *p, int dirfd, const char *from, const char *to);
int pa_pool_remove(struct prealloc_pool *p, bool ready, uint32_t seq);
int pa_pool_scan(struct prealloc_pool *p);
int pa_pool_avail(const struct prealloc_pool *p, uint64_t *ret_avail);
int pa_pool_same_fs(const struct prealloc_pool *p, int dirfd, const char *name);
bool pa_pool_out_of_space(int err);

/* pool.c: the ready list, argument checks, handing a segment out. */
int pa_seqs_add(struct pa_seqs *s, uint32_t seq);
uint32_t pa_seqs_pop_oldest(struct pa_seqs *s);
void pa_pool_kick(struct prealloc_pool *p);
int pa_pool_check_caller(const struct prealloc_pool *p);
bool pa_pool_bad_name(const char *name);
int pa_pool_name_free(int dirfd, const char *name);
int pa_pool_hand_out(struct prealloc_pool *p, int dirfd, const char *name, int oflags,
		     enum pa_pool_pace pace, struct pa_hand_out *o);

/* prepare.c: names prepared ahead. */
bool pa_pool_install_next(struct prealloc_pool *p);
bool pa_pool_take_prepared(struct prealloc_pool *p, int dirfd, const char *name, int oflags,
			   int *ret);
void pa_pool_prep_free(struct prealloc_pool *p);

/* worker.c */
void *pa_pool_worker(void *arg);
void pa_pool_failed(struct prealloc_pool *p, int err);
int pa_pool_adopt(struct prealloc_pool *p, uint32_t seq, uint64_t *counter,
		  const struct pa_fill *f);
void pa_pool_count_fill(struct prealloc_pool *p, const struct pa_fill *f);

#endif
