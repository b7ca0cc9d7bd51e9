/* SPDX-License-Identifier: MIT */
/*
 * Large O_DIRECT zero writes through io_uring.  Every request reads the same
 * zero buffer, registered once so the kernel does not pin it per request;
 * several requests stay in flight so the device is never idle between them.
 */
#include <errno.h>
#include <liburing.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

#include "context.h"
#include "engine.h"
#include "internal.h"

#define MAX_QD 64

struct writer {
	struct pa_call *c;
	struct io_uring ring;
	void *buf;
	uint64_t req;			/* bytes per request */
	bool fixed;			/* buffer registered */
	const struct pa_range *r;	/* ranges still to submit */
	size_t n;
	uint64_t pos;			/* next byte of r[0] */
	unsigned int inflight;
	int err;			/* first error; stops submission */
	struct pa_range slot[MAX_QD];	/* what each in-flight request writes */
	uint64_t sent_ns[MAX_QD];	/* when it was prepared: its latency, for pacing */
	unsigned int free_slots[MAX_QD];
	unsigned int nfree;
};

static bool next_piece(struct writer *w, struct pa_range *piece)
{
	while (w->n && w->pos >= w->r->start + w->r->len) {
		w->r++;
		w->n--;
		w->pos = w->n ? w->r->start : 0;
	}
	if (!w->n)
		return false;
	piece->start = w->pos;
	piece->len = PA_MIN(pa_pace_request(&w->c->pace, w->req, w->c->dio_align),
			    w->r->start + w->r->len - w->pos);
	w->pos += piece->len;
	return true;
}

static void prep(struct writer *w, unsigned int s)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);
	struct pa_range *p = &w->slot[s];

	if (w->fixed)
		io_uring_prep_write_fixed(sqe, w->c->dfd, w->buf, (unsigned int)p->len,
					  p->start, 0);
	else
		io_uring_prep_write(sqe, w->c->dfd, w->buf, (unsigned int)p->len, p->start);
	/* Only when needed: the prep helpers clear it, and the SQ ring is
	 * mapped by liburing's own syscalls, which ThreadSanitizer cannot
	 * see, so a store here into a ring reused at the same address by
	 * another thread looks like a race. */
	if (w->c->dio_rwf)
		sqe->rw_flags = w->c->dio_rwf;
	if (w->c->pace.idle_prio)
		sqe->ioprio = pa_pace_ioprio(&w->c->pace);
	io_uring_sqe_set_data64(sqe, s);
	w->sent_ns[s] = w->c->pace.on ? pa_now_ns() : 0;
	w->inflight++;
}

static void fill(struct writer *w)
{
	struct pa_range piece;

	while (!w->err && w->nfree && pa_pace_go(&w->c->pace, w->inflight) &&
	       next_piece(w, &piece)) {
		unsigned int s = w->free_slots[--w->nfree];

		w->slot[s] = piece;
		pa_pace_sent(&w->c->pace, piece.len);
		prep(w, s);
	}
}

/*
 * A request the kernel gave up on without writing: interrupted by a signal
 * (a busy interval timer) or cancelled with its io-wq worker.  Writing it
 * again is always right, and -ECANCELED must stay the progress callback's.
 */
static bool transient(int res)
{
	return res == -EINTR || res == -ECANCELED || res == -EAGAIN;
}

#ifdef PA_TEST_HOOKS
static int (*cqe_hook)(int res);
static int (*submit_hook)(int ret);

void pa_uring_set_cqe_hook(int (*hook)(int res))
{
	cqe_hook = hook;
}

void pa_uring_set_submit_hook(int (*hook)(int ret))
{
	submit_hook = hook;
}
#endif

/* Account one completion; a short write is resubmitted for the rest. */
static void complete(struct writer *w, unsigned int s, int res)
{
	struct pa_range *p = &w->slot[s];

#ifdef PA_TEST_HOOKS
	if (cqe_hook)
		res = cqe_hook(res);
#endif
	w->inflight--;
	if (transient(res) && !w->err) {
		prep(w, s);
		return;
	}
	if (res < 0 || (res == 0 && p->len)) {
		if (!w->err)
			w->err = res < 0 ? res : -EIO;
	} else {
		if (w->sent_ns[s])
			pa_pace_done(&w->c->pace, (uint64_t)res, pa_now_ns() - w->sent_ns[s]);
		/* Bytes written after a failure count too: the report says
		 * what the file holds. */
		if (w->err)
			pa_count(w->c, PREALLOC_METHOD_URING, (uint64_t)res);
		else if (pa_advance(w->c, PREALLOC_METHOD_URING, (uint64_t)res))
			w->err = -ECANCELED;
		p->start += (uint64_t)res;
		p->len -= (uint64_t)res;
		if (p->len && !w->err) {
			if (p->start % w->c->dio_align)
				w->err = -EIO;	/* a device that tears O_DIRECT writes */
			else {
				prep(w, s);
				return;
			}
		}
	}
	w->free_slots[w->nfree++] = s;
}

/*
 * After a failed submit: wait for every write the kernel took before
 * returning, so undo never races a write still landing.  SQEs it did not
 * take are never submitted (w->err stops fill() and resubmission) and go
 * with the ring.
 */
static int drain(struct writer *w)
{
	unsigned int taken = w->inflight - PA_MIN(io_uring_sq_ready(&w->ring), w->inflight);
	struct io_uring_cqe *cqe;

	while (taken) {
		int ret = io_uring_wait_cqe(&w->ring, &cqe);

		if (ret == -EINTR || ret == -EAGAIN)
			continue;
		if (ret < 0)
			break;	/* the ring itself is broken: nothing more to learn */
		complete(w, (unsigned int)io_uring_cqe_get_data64(cqe), cqe->res);
		io_uring_cqe_seen(&w->ring, cqe);
		taken--;
	}
	return w->err;
}

static int run(struct writer *w)
{
	struct io_uring_cqe *cqe;
	int ret;

	for (;;) {
		fill(w);
		if (!w->inflight)
			return w->err;
		ret = io_uring_submit_and_wait(&w->ring, 1);
#ifdef PA_TEST_HOOKS
		if (submit_hook)
			ret = submit_hook(ret);
#endif
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY) {
			if (!w->err)
				w->err = ret;
			return drain(w);
		}
		while (io_uring_peek_cqe(&w->ring, &cqe) == 0) {
			complete(w, (unsigned int)io_uring_cqe_get_data64(cqe), cqe->res);
			io_uring_cqe_seen(&w->ring, cqe);
		}
	}
}

static int writer_init(struct writer *w, struct pa_call *c, const struct pa_range *r, size_t n)
{
	unsigned int qd = PA_MIN(PA_MAX(c->opts.queue_depth, 1u), (unsigned int)MAX_QD);
	uint64_t a = pa_direct_align(c), work = 0;
	struct iovec iov;
	int ret;

	w->c = c;
	w->r = r;
	w->n = n;
	w->pos = n ? r->start : 0;
	for (size_t i = 0; i < n; i++)
		work += r[i].len;
	/* Whole pages, below 2 GiB (the length is 32 bits), and no more than
	 * the work needs: a huge request_bytes must not map a huge buffer. */
	w->req = PA_MIN(PA_MAX(c->opts.request_bytes, a), 1ull << 30);
	w->req = PA_MIN(PA_ROUND_DOWN(w->req, a), PA_ROUND_UP(work, a));
	w->buf = mmap(NULL, w->req, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->buf == MAP_FAILED)
		return -ENOMEM;
	ret = io_uring_queue_init(qd, &w->ring, 0);
	if (ret < 0) {
		munmap(w->buf, w->req);
		/* io_uring disabled (sysctl, seccomp) or its rings not granted
		 * (-ENOMEM: RLIMIT_MEMLOCK of an unprivileged caller): nothing
		 * was written, let the caller fall back. */
		pa_log(c->target.ctx, LOG_NOTICE, "io_uring refused: io_uring_queue_init: %s\n",
		       strerror(-ret));
		return -EOPNOTSUPP;
	}
	iov = (struct iovec){ .iov_base = w->buf, .iov_len = w->req };
	/* Registration can fail on RLIMIT_MEMLOCK; unregistered writes work too. */
	w->fixed = io_uring_register_buffers(&w->ring, &iov, 1) == 0;
	for (unsigned int i = 0; i < qd; i++)
		w->free_slots[w->nfree++] = i;
	return 0;
}

int pa_zero_uring(struct pa_call *c, const struct pa_range *r, size_t n)
{
	struct writer w = { 0 };
	int ret;

	if (!n)
		return 0;
	ret = writer_init(&w, c, r, n);
	if (ret)
		return ret;
	ret = run(&w);
	io_uring_queue_exit(&w.ring);
	munmap(w.buf, w.req);
	return ret;
}
