/* SPDX-License-Identifier: MIT */
/*
 * The uring method: large O_DIRECT zero writes through io_uring from the
 * zero buffer of src/exec/direct_writer.c, registered once so the kernel does
 * not pin it per request.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/log.h"
#include "base/sysfs_read.h"
#include "base/workers.h"
#include "src/exec/direct_writer.h"
#include "src/exec/method_uring.h"
#include "src/exec/refusal.h"

/*
 * A ring kept by a worker for its next call (base/workers.h), with the
 * zero buffer it has registered: setting a ring up, pinning the buffer and
 * starting the ring's io-wq worker each cost more than a small call's
 * writes.  Any other thread sets one up for the call and ends it after.
 */
struct kept_ring {
	struct io_uring ring;
	unsigned int entries;
	const void *reg;		/* the buffer registered, or NULL */
	uint64_t reg_len;
};

#define RING_MIN_ENTRIES 8		/* the default queue depth and a background one */

static void ring_free(void *p)
{
	struct kept_ring *k = p;

	io_uring_queue_exit(&k->ring);
	free(k);
}

/* The worker's ring of at least @entries, kept or new (kept unless this
 * thread is no worker): 0 or -errno. */
static int ring_get(unsigned int entries, struct kept_ring **ret)
{
	struct pa_kept *slot = pa_worker_kept(PA_SLOT_RING);
	struct kept_ring *k = slot ? slot->p : NULL;
	int err;

	if (k && k->entries >= entries) {
		*ret = k;
		return 0;
	}
	if (k) {
		ring_free(k);
		slot->p = NULL;
	}
	entries = PA_MAX(entries, RING_MIN_ENTRIES);
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	err = io_uring_queue_init(entries, &k->ring, 0);
	if (err < 0) {
		free(k);
		return err;
	}
	k->entries = entries;
	if (slot)
		*slot = (struct pa_kept){ .p = k, .free = ring_free };
	*ret = k;
	return 0;
}

/* Done with the call's ring: kept by the worker, else ended. */
static void ring_put(struct kept_ring *k, bool keep)
{
	struct pa_kept *slot = pa_worker_kept(PA_SLOT_RING);

	if (keep && slot && slot->p == k)
		return;
	if (slot && slot->p == k)
		slot->p = NULL;
	ring_free(k);
}

/* The writer's zero buffer registered with the ring (once per buffer);
 * registration can fail on RLIMIT_MEMLOCK, and unregistered writes work
 * too.  Whether it is. */
static bool ring_register(struct kept_ring *k, void *buf, uint64_t len)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	if (k->reg == buf && k->reg_len == len)
		return true;
	if (k->reg)
		io_uring_unregister_buffers(&k->ring);
	k->reg = io_uring_register_buffers(&k->ring, &iov, 1) == 0 ? buf : NULL;
	k->reg_len = len;
	return k->reg;
}

struct writer {
	struct pa_dw w;			/* first: the send callback's cast */
	struct kept_ring *k;
	struct io_uring *ring;		/* &k->ring */
	bool fixed;			/* buffer registered */
	bool taken;			/* io_uring_enter() has taken a request */
	int refused;			/* io_uring_enter() refused before it took one */
};

/* A one-entry ring, set up and closed: what seccomp or the sysctl say. */
static int setup_probe(void)
{
	struct io_uring_params p = { 0 };
	int fd = (int)syscall(__NR_io_uring_setup, 1, &p);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* The refusal and, when the host turned io_uring off, the sysctl's say. */
static void describe(int err, char *buf, size_t len)
{
	char v[8];
	size_t used;

	pa_refusal_describe("io_uring_setup", "io_uring", err, buf, len);
	used = strlen(buf);
	if (pa_sysfs_read_str("/proc/sys/kernel", "io_uring_disabled", v, sizeof(v)) == 0 &&
	    (!strcmp(v, "1") || !strcmp(v, "2")))
		snprintf(buf + used, len - used, "; kernel.io_uring_disabled = %s", v);
}

/* Refusals learnt for the process: by a probe of io_uring_setup(), or by a
 * call's io_uring_enter(). */
static struct pa_refusable refusable = {
	.method = "uring", .what = "io_uring", .setup = "io_uring_setup",
	.submit = "io_uring_enter", .probe = setup_probe, .describe = describe,
};

static void send_write(struct pa_dw *dw, unsigned int s)
{
	struct writer *w = (struct writer *)dw;
	struct io_uring_sqe *sqe = io_uring_get_sqe(w->ring);
	const struct pa_range *p = &dw->slot[s];
	struct pa_job *j = dw->j;

	if (w->fixed)
		io_uring_prep_write_fixed(sqe, j->dfd, dw->buf, (unsigned int)p->len, p->start, 0);
	else
		io_uring_prep_write(sqe, j->dfd, dw->buf, (unsigned int)p->len, p->start);
	/* Only when needed: the prep helpers clear it, and the SQ ring is
	 * mapped by liburing's own syscalls, which ThreadSanitizer cannot
	 * see, so a store here into a ring reused at the same address by
	 * another thread looks like a race. */
	if (j->dio_rwf)
		sqe->rw_flags = j->dio_rwf;
	if (j->pace.idle_prio)
		sqe->ioprio = pa_pace_ioprio(&j->pace);
	io_uring_sqe_set_data64(sqe, s);
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

static void complete(struct writer *w, struct io_uring_cqe *cqe)
{
	int res = cqe->res;

#ifdef PA_TEST_HOOKS
	if (cqe_hook)
		res = cqe_hook(res);
#endif
	pa_dw_complete(&w->w, (unsigned int)io_uring_cqe_get_data64(cqe), res);
	io_uring_cqe_seen(w->ring, cqe);
}

/*
 * After a failed submit: wait for every write the kernel took before
 * returning, so undo never races a write still landing.  SQEs it did not
 * take are never submitted (w->err stops sending and resubmission) and go
 * with the ring.
 */
static int drain(struct writer *w)
{
	unsigned int queued = PA_MIN(io_uring_sq_ready(w->ring), w->w.inflight);
	struct io_uring_cqe *cqe;

	pa_dw_unsent(&w->w, queued);
	while (w->w.inflight) {
		int ret = io_uring_wait_cqe(w->ring, &cqe);

		if (ret == -EINTR || ret == -EAGAIN)
			continue;
		if (ret < 0)
			break;	/* the ring itself is broken: nothing more to learn */
		complete(w, cqe);
	}
	return w->w.err;
}

static int run(struct writer *w)
{
	struct io_uring_cqe *cqe;
	int ret;

	for (;;) {
		pa_dw_fill(&w->w);
		if (!w->w.inflight)
			return w->w.err;
		ret = io_uring_submit_and_wait(w->ring, 1);
#ifdef PA_TEST_HOOKS
		if (submit_hook)
			ret = submit_hook(ret);
#endif
		w->taken |= ret > 0;
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY) {
			/* A profile that allows io_uring_setup() but not
			 * io_uring_enter(): nothing was written, let the caller
			 * fall back as when the setup is refused. */
			if ((ret == -EPERM || ret == -ENOSYS) && !w->taken) {
				w->refused = ret;
				ret = -EOPNOTSUPP;
			}
			if (!w->w.err)
				w->w.err = ret;
			return drain(w);
		}
		while (io_uring_peek_cqe(w->ring, &cqe) == 0)
			complete(w, cqe);
	}
}

static int writer_init(struct writer *w, struct pa_job *j, const struct pa_range *r, size_t n)
{
	int ret = pa_dw_init(&w->w, j, PREALLOC_METHOD_URING, r, n);

	if (ret)
		return ret;
	w->w.send = send_write;
	ret = ring_get(w->w.qd, &w->k);
	if (ret < 0) {
		pa_dw_free(&w->w);
		/* io_uring disabled (sysctl, seccomp), its rings not granted
		 * (-ENOMEM: RLIMIT_MEMLOCK of an unprivileged caller), or no
		 * memory for them right now. */
		return pa_setup_failed(j->log, "io_uring", "io_uring_queue_init", ret,
				       j->opts->method != PREALLOC_METHOD_AUTO);
	}
	w->ring = &w->k->ring;
	w->fixed = ring_register(w->k, w->w.buf, w->w.buf_len);
	return 0;
}

/* The ring kept for the next call when nothing of this one is left in it
 * (no request unsent, no completion unread), without the registration of
 * a buffer that is not kept. */
static void writer_end(struct writer *w)
{
	bool clean = !w->w.inflight && !io_uring_sq_ready(w->ring) && !io_uring_cq_ready(w->ring);

	if (clean && !pa_dw_buf_kept(&w->w) && w->k->reg) {
		io_uring_unregister_buffers(w->ring);
		w->k->reg = NULL;
	}
	ring_put(w->k, clean);
	pa_dw_free(&w->w);
}

int pa_zero_uring(struct pa_job *j, const struct pa_range *r, size_t n)
{
	struct writer w = { 0 };
	int ret;

	if (!n)
		return 0;
	ret = writer_init(&w, j, r, n);
	if (ret)
		return ret;
	ret = run(&w);
	writer_end(&w);
	if (w.refused)
		pa_refusable_submit_refused(&refusable, j->log, w.refused);
	return ret;
}

int pa_uring_usable(struct pa_log *log, char *why, size_t len)
{
	return pa_refusable_usable(&refusable, log, why, len);
}
