/* SPDX-License-Identifier: MIT */
/*
 * The aio method: O_DIRECT zero writes through Linux AIO (io_submit), for
 * where io_uring is refused (container seccomp profiles, hardened hosts,
 * kernel.io_uring_disabled) and Linux AIO is not.  The writes are those of
 * src/exec/direct_writer.c, as the uring method's; AIO has no registered
 * buffers, so the kernel pins the zero buffer per request.  A call's AIO
 * context is handed on to the next call rather than destroyed.
 */
#include <errno.h>
#include <pthread.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "base/internal.h"
#include "base/log.h"
#include "src/exec/direct_writer.h"
#include "src/exec/method_aio.h"
#include "src/exec/refusal.h"

#if HAVE_LIBAIO
#include <libaio.h>

/* <linux/aio_abi.h> clashes with <libaio.h>; its value: */
#ifndef IOCB_FLAG_IOPRIO
#define IOCB_FLAG_IOPRIO (1 << 1)
#endif

/*
 * Contexts kept from one call for the next.  io_destroy() waits out two
 * RCU grace periods even for an idle context (28-36 ms on a 6.18 host with
 * 2 CPUs: longer than writing 64 MiB, and all of this method's gap to
 * io_uring, whose rings are torn down in the background), so a call that
 * succeeded leaves its context here, with nothing in flight and no event
 * unread; the kernel frees those still here when the process exits.  A
 * few, for calls running at once; each holds its events of fs.aio-max-nr.
 */
#define IDLE_MAX 4

struct idle_ctx {
	io_context_t ctx;
	unsigned int nr;		/* the events it was set up for */
};

static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static struct idle_ctx idle[IDLE_MAX];
static unsigned int nidle;
static pid_t idle_pid;			/* whose they are */
static pthread_once_t idle_once = PTHREAD_ONCE_INIT;

/* A child has none of its parent's contexts (they belong to the parent's
 * address space), and another thread may have held the lock mid-fork.  A
 * child forked without the handler (a raw clone(), _Fork()) is told apart
 * by its pid. */
static void forget_in_child(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

	idle_lock = m;
	nidle = 0;
}

/* Under idle_lock: the kept contexts, none when they are a parent's. */
static void own_idle(void)
{
	if (idle_pid != getpid())
		nidle = 0;
	idle_pid = getpid();
}

static void register_atfork(void)
{
	pthread_atfork(NULL, NULL, forget_in_child);
}

/* A kept context of at least @nr events, or a new one: 0 or -errno. */
static int ctx_get(unsigned int nr, struct idle_ctx *got)
{
	pthread_once(&idle_once, register_atfork);
	pthread_mutex_lock(&idle_lock);
	own_idle();
	for (unsigned int i = 0; i < nidle; i++) {
		if (idle[i].nr >= nr) {
			*got = idle[i];
			idle[i] = idle[--nidle];
			pthread_mutex_unlock(&idle_lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&idle_lock);
	*got = (struct idle_ctx){ .ctx = 0, .nr = nr };
	return io_setup((int)nr, &got->ctx);
}

/* Keep @c for a later call, or destroy it: when it may still have a
 * request in flight (io_destroy() waits for it), or with enough kept. */
static void ctx_put(const struct idle_ctx *c, bool idle_now)
{
	if (idle_now) {
		pthread_mutex_lock(&idle_lock);
		own_idle();
		if (nidle < IDLE_MAX) {
			idle[nidle++] = *c;
			pthread_mutex_unlock(&idle_lock);
			return;
		}
		pthread_mutex_unlock(&idle_lock);
	}
	io_destroy(c->ctx);
}

struct writer {
	struct pa_dw w;			/* first: the send callback's cast */
	struct idle_ctx ctx;
	struct iocb cb[PA_DW_MAX_QD];
	struct iocb *queued[PA_DW_MAX_QD];	/* sent, not yet taken by io_submit */
	unsigned int nqueued;
	bool taken;			/* the kernel took a request of this call */
	int refused;			/* io_submit() refused before it took one */
};

static void send_write(struct pa_dw *dw, unsigned int s)
{
	struct writer *w = (struct writer *)dw;
	struct iocb *cb = &w->cb[s];
	const struct pa_range *p = &dw->slot[s];
	struct pa_job *j = dw->j;

	io_prep_pwrite(cb, j->dfd, dw->buf, p->len, (long long)p->start);
	cb->aio_rw_flags = (unsigned int)j->dio_rwf;
	if (j->pace.idle_prio) {
		cb->u.c.flags |= IOCB_FLAG_IOPRIO;
		cb->aio_reqprio = (short)pa_pace_ioprio(&j->pace);
	}
	cb->data = (void *)(uintptr_t)s;
	w->queued[w->nqueued++] = cb;
}

#ifdef PA_TEST_HOOKS
static int (*event_hook)(int res);
static int (*submit_hook)(int ret);

void pa_aio_set_event_hook(int (*hook)(int res))
{
	event_hook = hook;
}

void pa_aio_set_submit_hook(int (*hook)(int ret))
{
	submit_hook = hook;
}
#endif

static void complete(struct writer *w, const struct io_event *ev)
{
	int res = (int)(long)ev->res;

#ifdef PA_TEST_HOOKS
	if (event_hook)
		res = event_hook(res);
#endif
	pa_dw_complete(&w->w, (unsigned int)(uintptr_t)ev->data, res);
}

/* Completions of requests the kernel took (at least one): false when the
 * context itself is broken, and nothing more can be learnt. */
static bool reap(struct writer *w)
{
	struct io_event ev[PA_DW_MAX_QD];
	int got;

	do
		got = io_getevents(w->ctx.ctx, 1, PA_DW_MAX_QD, ev, NULL);
	while (got == -EINTR);
	if (got < 0 && !w->w.err)
		w->w.err = got;
	for (int i = 0; i < got; i++)
		complete(w, &ev[i]);
	return got >= 0;
}

/* io_submit() what is queued.  Requests it did not take stay queued while
 * others are in flight (-EAGAIN: resources, they free up); any other
 * failure stops the writer, the requests it did not take are never sent. */
static void submit(struct writer *w)
{
	int ret = io_submit(w->ctx.ctx, w->nqueued, w->queued), taken = PA_MAX(ret, 0);

#ifdef PA_TEST_HOOKS
	if (submit_hook)
		ret = submit_hook(ret);
#endif
	w->nqueued -= (unsigned int)taken;
	memmove(w->queued, w->queued + taken, w->nqueued * sizeof(*w->queued));
	w->taken |= taken > 0;
	if (ret >= 0 || ret == -EINTR || (ret == -EAGAIN && w->w.inflight > w->nqueued))
		return;
	/* A profile that allows io_setup() but not io_submit(): nothing was
	 * written, let the caller fall back as when io_setup() is refused. */
	if ((ret == -EPERM || ret == -ENOSYS) && !w->taken) {
		w->refused = ret;
		ret = -EOPNOTSUPP;
	}
	if (!w->w.err)
		w->w.err = ret;
}

/*
 * Until every write the kernel took has completed, so undo never races a
 * write still landing and a kept context holds no event of this call;
 * after an error nothing is sent again.
 */
static int run(struct writer *w)
{
	for (;;) {
		pa_dw_fill(&w->w);
		if (w->nqueued)
			submit(w);
		if (w->w.err && w->nqueued) {	/* never sent */
			pa_dw_unsent(&w->w, w->nqueued);
			w->nqueued = 0;
		}
		if (!w->w.inflight)
			return w->w.err;
		if (w->w.inflight > w->nqueued && !reap(w))
			return w->w.err;
	}
}

static int writer_init(struct writer *w, struct pa_job *j, const struct pa_range *r, size_t n)
{
	int ret = pa_dw_init(&w->w, j, PREALLOC_METHOD_AIO, r, n);

	if (ret)
		return ret;
	w->w.send = send_write;
	ret = ctx_get(w->w.qd, &w->ctx);
	if (ret < 0) {
		pa_dw_free(&w->w);
		/* Refused (seccomp, no CONFIG_AIO), or fs.aio-max-nr reached
		 * (-EAGAIN: others' contexts, which may end). */
		return pa_setup_failed(j->log, "Linux AIO", "io_setup", ret,
				       j->opts->method != PREALLOC_METHOD_AUTO);
	}
	return 0;
}

/*
 * What seccomp or the kernel say to io_setup() for no events: -EINVAL, the
 * call allowed and nothing set up.  A real context would cost every
 * process's first call an io_destroy() (the kept contexts, above).
 */
static int setup_probe(void)
{
	io_context_t ctx = 0;
	int ret = io_setup(0, &ctx);

	if (!ret)
		io_destroy(ctx);	/* no Linux does this */
	return ret == -EINVAL ? 0 : ret;
}

/* Refusals learnt for the process: by a probe of io_setup(), or by a
 * call's io_submit(). */
static struct pa_refusable refusable = {
	.method = "aio", .what = "Linux AIO", .setup = "io_setup", .submit = "io_submit",
	.probe = setup_probe,
};

int pa_zero_aio(struct pa_job *j, const struct pa_range *r, size_t n)
{
	struct writer w = { 0 };
	int ret;

	if (!n)
		return 0;
	ret = writer_init(&w, j, r, n);
	if (ret)
		return ret;
	ret = run(&w);
	ctx_put(&w.ctx, !w.w.inflight && !w.refused);
	pa_dw_free(&w.w);
	if (w.refused)
		pa_refusable_submit_refused(&refusable, j->log, w.refused);
	return ret;
}

int pa_aio_usable(struct pa_log *log, char *why, size_t len)
{
	return pa_refusable_usable(&refusable, log, why, len);
}

#else

int pa_zero_aio(struct pa_job *j, const struct pa_range *r, size_t n)
{
	(void)j;
	(void)r;
	(void)n;
	return -EOPNOTSUPP;
}

int pa_aio_usable(struct pa_log *log, char *why, size_t len)
{
	(void)log;
	if (why && len)
		snprintf(why, len, "built without libaio");
	return -EOPNOTSUPP;
}

#ifdef PA_TEST_HOOKS
void pa_aio_set_event_hook(int (*hook)(int res))
{
	(void)hook;
}

void pa_aio_set_submit_hook(int (*hook)(int ret))
{
	(void)hook;
}
#endif
#endif
