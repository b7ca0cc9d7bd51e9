/* SPDX-License-Identifier: MIT */
/*
 * What the direct zero writers (src/exec/method_uring.c, src/exec/method_aio.c)
 * share: one zero buffer, the ranges cut into requests of up to
 * j->opts->request_bytes under the pacer, a slot per request in flight, and
 * the accounting of each completion (progress, cancel, short writes, the
 * first error).  A writer only sends a slot's request and reaps completions.
 */
#ifndef PREALLOC_DIRECT_WRITER_H
#define PREALLOC_DIRECT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/plan/steps.h"

#define PA_DW_MAX_QD 64

struct pa_job;

struct pa_dw {
	struct pa_job *j;
	unsigned int method;		/* counted in the report as */
	void *buf;			/* at least req bytes of zeros, page aligned */
	uint64_t buf_len;		/* all of it (a kept buffer may be larger) */
	uint64_t req;			/* bytes per request */
	unsigned int qd;		/* slots */
	const struct pa_range *r;	/* ranges still to send */
	size_t n;
	uint64_t pos;			/* next byte of r[0] */
	uint64_t cut;			/* bytes at the end of the last range: the tail's */
	struct pa_range tail;		/* sent first and alone (pa_dw_init()), or empty */
	bool tail_sent;			/* then nothing more until it completed */
	unsigned int inflight;		/* slots sent and not yet completed */
	int err;			/* first error; stops sending */
	struct pa_range slot[PA_DW_MAX_QD];	/* what each slot writes */
	uint64_t sent_ns[PA_DW_MAX_QD];	/* when it was sent: its latency, for pacing */
	unsigned int free_slots[PA_DW_MAX_QD];
	unsigned int nfree;
	/* The writer's: queue slot @s's request (w->slot[s]) for the kernel. */
	void (*send)(struct pa_dw *w, unsigned int s);
};

/* Set @w up to write @n ranges (each aligned to j->dio_align, in order)
 * with j->opts->queue_depth slots, counted as @method.  0 or -ENOMEM. */
int pa_dw_init(struct pa_dw *w, struct pa_job *j, unsigned int method,
	       const struct pa_range *r, size_t n);

/* Send requests into free slots while the pacer and the first error allow. */
void pa_dw_fill(struct pa_dw *w);

/* Account slot @s's completion with result @res (bytes or -errno): a
 * short write or a transient failure (-EINTR, -ECANCELED, -EAGAIN) is sent
 * again, unless an error stopped the writer. */
void pa_dw_complete(struct pa_dw *w, unsigned int s, int res);

/* @n slots queued and never taken by the kernel: free again. */
void pa_dw_unsent(struct pa_dw *w, unsigned int n);

/* Is @w's zero buffer the one this thread keeps (so it outlives @w)? */
bool pa_dw_buf_kept(const struct pa_dw *w);

/* Done with @w; its zero buffer is kept for this thread's next writer. */
void pa_dw_free(struct pa_dw *w);

#endif
