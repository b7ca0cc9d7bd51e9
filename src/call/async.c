/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous preallocation: prealloc_file_ex() in background mode on a
 * thread of the library's own files (base/own_files.h), whose callouts
 * (the progress callback, the log hook) a second library thread serves,
 * with an eventfd that turns readable when the result is in, and
 * cancellation through the call's progress hook (so a cancelled call undoes
 * its work exactly like a cancelling callback).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "base/internal.h"
#include "base/own_files.h"
#include "src/call/call.h"
#include "src/call/context.h"

struct prealloc_async {
	struct pa_own_run run;		/* the call, holding our copy of the file */
	pthread_t thread;		/* serves its callouts, then posts @efd */
	int efd;			/* eventfd: readable once @done */
	struct pa_call_args args;	/* the caller's options with our progress hook */
	prealloc_progress_fn user_progress;
	void *user_data;
	struct prealloc_report rep;	/* written by the thread before @done */
	int result;
	atomic_bool cancel;
	atomic_bool done;		/* release: @result and @rep are final */
};

static int progress(uint64_t done, uint64_t total, void *data)
{
	struct prealloc_async *h = data;
	int ret = h->user_progress ? h->user_progress(done, total, h->user_data) : 0;

	return ret || atomic_load_explicit(&h->cancel, memory_order_relaxed);
}

static int call(int fd, void *arg)
{
	struct prealloc_async *h = arg;

	return atomic_load(&h->cancel) ? -ECANCELED : pa_call_run(fd, &h->args);
}

static void *worker(void *arg)
{
	struct prealloc_async *h = arg;
	uint64_t one = 1;

	h->result = pa_own_files_wait(&h->run);
	atomic_store_explicit(&h->done, true, memory_order_release);
	/* Cannot fail: the counter is far from overflowing. */
	(void)!write(h->efd, &one, sizeof(one));
	return NULL;
}

static void release(struct prealloc_async *h)
{
	prealloc_ctx_unref(h->args.opts.ctx);
	if (h->efd >= 0)
		close(h->efd);
	free(h);
}

PA_EXPORT int prealloc_async_start(int fd, uint64_t offset, uint64_t len,
				   const struct prealloc_options *opts,
				   struct prealloc_async **ret_handle)
{
	struct prealloc_async *h;
	int ret;

	if (!ret_handle)
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->efd = -1;
	/* Arguments and write access are checked here, the rest by the
	 * call on the thread. */
	h->args.fl = pa_options_load(opts, PREALLOC_BACKGROUND, &h->args.opts);
	if (!h->args.fl)
		h->args.fl = pa_check_write(fd, offset, len);
	if (h->args.fl < 0) {
		ret = h->args.fl;
		h->args.opts.ctx = NULL;	/* not referenced yet */
		goto fail;
	}
	prealloc_ctx_ref(h->args.opts.ctx);
	pa_ctx_revalidate(h->args.opts.ctx);
	h->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (h->efd < 0) {
		ret = -errno;
		goto fail;
	}
	h->args.off = offset;
	h->args.len = len;
	h->args.report = &h->rep;
	h->args.t0 = pa_now_ns();
	h->rep.size = sizeof(h->rep);
	h->user_progress = h->args.opts.progress;
	h->user_data = h->args.opts.progress_data;
	h->args.opts.progress = progress;
	h->args.opts.progress_data = h;
	ret = pa_own_files_start(&h->run, fd, call, h);
	if (ret)
		goto fail;
	ret = pa_thread_start(&h->thread, worker, h);
	if (ret) {
		/* The call's thread waits for a server: it is told to stop. */
		prealloc_async_cancel(h);
		pa_own_files_wait(&h->run);
		goto fail;
	}
	*ret_handle = h;
	return 0;
fail:
	release(h);
	return ret;
}

PA_EXPORT int prealloc_async_fd(const struct prealloc_async *h)
{
	return h ? h->efd : -EINVAL;
}

PA_EXPORT int prealloc_async_poll(const struct prealloc_async *h)
{
	if (!h)
		return -EINVAL;
	if (!atomic_load_explicit(&h->done, memory_order_acquire))
		return -EINPROGRESS;
	return h->result;
}

PA_EXPORT int prealloc_async_wait(const struct prealloc_async *h)
{
	struct pollfd p = { .fd = h ? h->efd : -1, .events = POLLIN };
	int ret;

	while ((ret = prealloc_async_poll(h)) == -EINPROGRESS)
		poll(&p, 1, -1);
	return ret;
}

PA_EXPORT int prealloc_async_cancel(struct prealloc_async *h)
{
	if (!h)
		return -EINVAL;
	atomic_store(&h->cancel, true);
	return 0;
}

PA_EXPORT int prealloc_async_report(const struct prealloc_async *h,
				    struct prealloc_report *report)
{
	if (!h || !report || report->size < offsetof(struct prealloc_report, method))
		return -EINVAL;
	if (prealloc_async_poll(h) == -EINPROGRESS)
		return -EINPROGRESS;
	memcpy((uint8_t *)report + sizeof(report->size), (const uint8_t *)&h->rep + sizeof(report->size),
	       PA_MIN((size_t)report->size, sizeof(h->rep)) - sizeof(report->size));
	return 0;
}

PA_EXPORT void prealloc_async_free(struct prealloc_async *h)
{
	if (!h)
		return;
	prealloc_async_cancel(h);
	pthread_join(h->thread, NULL);
	release(h);
}
