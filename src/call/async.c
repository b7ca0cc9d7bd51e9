/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous preallocation: prealloc_file_ex() in background mode on a
 * thread the library owns, with an eventfd that turns readable when the
 * result is in, and cancellation through the call's progress hook (so a
 * cancelled call undoes its work exactly like a cancelling callback).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "src/base/internal.h"
#include "src/call/call.h"
#include "src/file/reopen.h"

struct prealloc_async {
	pthread_t thread;
	int fd;				/* our duplicate of the caller's descriptor */
	int efd;			/* eventfd: readable once @done */
	uint64_t off, len;
	struct prealloc_options opts;	/* the caller's, with our progress hook */
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

static void *worker(void *arg)
{
	struct prealloc_async *h = arg;
	uint64_t one = 1;

	h->rep.size = sizeof(h->rep);
	h->result = atomic_load(&h->cancel) ? -ECANCELED :
		    prealloc_file_ex(h->fd, h->off, h->len, &h->opts, &h->rep);
	atomic_store_explicit(&h->done, true, memory_order_release);
	/* Cannot fail: the counter is far from overflowing. */
	(void)!write(h->efd, &one, sizeof(one));
	return NULL;
}

static void release(struct prealloc_async *h)
{
	prealloc_ctx_unref(h->opts.ctx);
	if (h->efd >= 0)
		close(h->efd);
	if (h->fd >= 0)
		close(h->fd);
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
	h->fd = h->efd = -1;
	/* Arguments and write access are checked here, the rest by the
	 * call on the thread. */
	ret = pa_options_load(opts, PREALLOC_BACKGROUND, &h->opts);
	if (!ret)
		ret = pa_check_write(fd, offset, len);
	if (ret < 0) {
		h->opts.ctx = NULL;	/* not referenced yet */
		goto fail;
	}
	prealloc_ctx_ref(h->opts.ctx);
	h->fd = pa_dup(fd);
	if (h->fd < 0) {
		ret = h->fd;
		goto fail;
	}
	h->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (h->efd < 0) {
		ret = -errno;
		goto fail;
	}
	h->off = offset;
	h->len = len;
	h->user_progress = h->opts.progress;
	h->user_data = h->opts.progress_data;
	h->opts.progress = progress;
	h->opts.progress_data = h;
	ret = pa_thread_start(&h->thread, worker, h);
	if (ret)
		goto fail;
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
