/* SPDX-License-Identifier: MIT */
/* Public entry points: argument checks, options and report, dispatch. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/own_files.h"
#include "src/call/call.h"
#include "src/call/rangelock.h"
#include "src/call/target.h"
#include "src/call/context.h"
#include "src/exec/blockdev.h"
#include "src/exec/regular_file.h"
#include "src/file/reopen.h"

#define PREALLOC_FLAGS_ALL (PREALLOC_KEEP_SIZE | PREALLOC_ZERO_DATA | \
			    PREALLOC_NO_SYNC | PREALLOC_FORCE | PREALLOC_BACKGROUND | \
			    PREALLOC_CONCURRENT_WRITES)
/* Zeroing data others may be writing is no way to keep their writes. */
#define PREALLOC_FLAGS_EXCLUSIVE (PREALLOC_ZERO_DATA | PREALLOC_CONCURRENT_WRITES)

PA_EXPORT const char *prealloc_version(void)
{
	return PREALLOC_VERSION_STRING;
}

int pa_options_load(const struct prealloc_options *opts, uint32_t extra_flags,
		    struct prealloc_options *o)
{
	int ret = 0;
	bool bg;

	if (opts)
		ret = pa_copy_sized_in(o, sizeof(*o), opts, opts->size,
				       offsetof(struct prealloc_options, flags) + sizeof(o->flags));
	else
		memset(o, 0, sizeof(*o));
	if (ret)
		return ret;
	if ((o->flags & ~PREALLOC_FLAGS_ALL) || o->method >= PA_METHOD_COUNT ||
	    (o->flags & PREALLOC_FLAGS_EXCLUSIVE) == PREALLOC_FLAGS_EXCLUSIVE)
		return -EINVAL;
	o->size = sizeof(*o);
	o->flags |= extra_flags;
	/* Background: small requests, few in flight, so others wait less. */
	bg = o->flags & PREALLOC_BACKGROUND;
	if (!o->queue_depth)
		o->queue_depth = bg ? PA_BG_QUEUE_DEPTH : PA_DEFAULT_QUEUE_DEPTH;
	if (!o->request_bytes)
		o->request_bytes = bg ? PA_BG_REQUEST : PA_DEFAULT_REQUEST;
	return 0;
}

int pa_check_write(int fd, uint64_t off, uint64_t len)
{
	int ret = pa_check_range(off, len);

	return ret ? ret : pa_check_writable(fd);
}

/*
 * Ordinary writes want a plain descriptor: pwrite() on O_APPEND ignores the
 * offset, O_DIRECT refuses unaligned edges, O_SYNC/O_DSYNC would sync every
 * write instead of once at the end.  Databases open with all of these.
 * Without one (no /proc, a 0444 file), the caller's serves: see
 * pa_zero_buffered() for how.
 */
static void open_wfd(struct pa_job *j, int fl)
{
	j->wfd = j->fd;
	if (fl & (O_APPEND | O_DIRECT | O_DSYNC | O_SYNC)) {
		int wfd = pa_reopen(j->fd, &j->target->st, O_WRONLY);

		if (wfd >= 0)
			j->wfd = wfd;
	}
	/* Our duplicate shares the caller's status flags: no second F_GETFL. */
	if (j->wfd == j->fd) {
		j->wfd_known = j->fd;
		j->wfd_flags = fl;
	}
}

/* The bytes of @st's file a call on [off, off + len) may touch, in whole
 * pages and blocks (src/call/rangelock.h). */
static void lock_span(const struct stat *st, uint64_t off, uint64_t len, struct pa_range_lock *l)
{
	uint64_t g = PA_MAX((uint64_t)sysconf(_SC_PAGESIZE), (uint64_t)st->st_blksize);

	*l = (struct pa_range_lock){ .dev = st->st_dev, .ino = st->st_ino };
	pa_range_lock_span(off, off + len, (uint64_t)st->st_size, g, &l->lo, &l->hi);
}

/*
 * Hold @want against this process's other calls, then against other
 * processes' (src/call/proclock.c): always in this order, so the two never wait
 * for each other.  Where the second cannot be had the call goes on ordered
 * within the process only, and the report says why.
 */
static int lock_both(struct pa_call *c, const struct stat *st, const struct pa_range_lock *want,
		     uint64_t len)
{
	const struct prealloc_options *o = &c->opts;
	int ret;

	pa_proc_unlock(&c->plock);
	pa_range_unlock(&c->lock);
	c->lock = *want;
	ret = pa_range_lock(&c->lock, o->progress, o->progress_data, len);
	if (ret)
		return ret;
	ret = pa_proc_lock(&c->plock, c->job.fd, st, o->progress, o->progress_data, len);
	c->rep.lock_error = ret == -ECANCELED ? 0 : ret;
	return ret == -ECANCELED ? ret : 0;
}

/*
 * Hold the bytes of a regular file the call may touch, then look at the
 * target.  The size may have moved while we waited (a neighbour extended
 * the file): look again once held, and hold more if the call now reaches
 * past end of file.
 */
static int open_locked(struct pa_call *c, uint64_t off, uint64_t len)
{
	struct pa_range_lock want;
	struct stat st;
	int ret;

	if (fstat(c->job.fd, &st) < 0)
		return -errno;
	while (S_ISREG(st.st_mode)) {
		lock_span(&st, off, len, &want);
		if (c->lock.held && c->lock.lo <= want.lo && want.hi <= c->lock.hi)
			break;
		ret = lock_both(c, &st, &want, len);
		if (ret)
			return ret;
		if (fstat(c->job.fd, &st) < 0)
			return -errno;
	}
	return pa_target_open(c->opts.ctx, c->job.fd, off, len, c->opts.flags, c->opts.method,
			      &c->target);
}

static void call_end(struct pa_call *c, struct prealloc_report *report, uint64_t t0)
{
	unsigned int best = PREALLOC_METHOD_AUTO;

	pa_proc_unlock(&c->plock);
	pa_range_unlock(&c->lock);
	if (c->job.wfd >= 0 && c->job.wfd != c->job.fd)
		close(c->job.wfd);
	if (c->job.dfd >= 0)
		close(c->job.dfd);
	pa_target_close(&c->target);
	if (!report)
		return;
	for (unsigned int m = 1; m < PA_METHOD_COUNT; m++)
		if (c->rep.bytes_by_method[m] > c->rep.bytes_by_method[best])
			best = m;
	c->rep.method = best;
	c->rep.elapsed_ns = pa_now_ns() - t0;
	c->rep.background = c->job.pace.applied;
	if (c->rep.elapsed_ns)
		c->rep.bytes_per_sec = (uint64_t)((double)c->rep.bytes_zeroed * 1e9 /
						  (double)c->rep.elapsed_ns);
	c->rep.size = report->size;
	memcpy(report, &c->rep, PA_MIN((size_t)report->size, sizeof(c->rep)));
}

/* The caller's progress callback, called on the caller's thread. */
struct progress_out {
	prealloc_progress_fn fn;
	void *data;
	uint64_t done, total;
	int ret;
};

static void progress_callout(void *arg)
{
	struct progress_out *p = arg;

	p->ret = p->fn(p->done, p->total, p->data);
}

static int progress_relay(uint64_t done, uint64_t total, void *data)
{
	struct progress_out *p = data;

	p->done = done;
	p->total = total;
	pa_callout(progress_callout, p);
	return p->ret;
}

/* What the executor is given (src/exec/job.h): the call's descriptor, its
 * target, options and report, and the context's log and memory. */
static void job_init(struct pa_call *c, int fd)
{
	struct prealloc_ctx *ctx = c->opts.ctx;

	c->job = (struct pa_job){ .fd = fd, .wfd = -1, .wfd_known = -1, .dfd = -1,
				  .target = &c->target, .opts = &c->opts, .rep = &c->rep,
				  .log = pa_ctx_log(ctx), .sysfs = pa_ctx_sysfs(ctx),
				  .wz_answer = pa_wz_answer, .wz_remember = pa_wz_remember };
}

int pa_call_run(int fd, void *args)
{
	const struct pa_call_args *a = args;
	struct pa_call c = { .opts = a->opts };
	struct progress_out out = { .fn = a->opts.progress, .data = a->opts.progress_data };
	struct pa_job *j = &c.job;
	int ret;

	if (out.fn) {
		c.opts.progress = progress_relay;
		c.opts.progress_data = &out;
	}
	job_init(&c, fd);
	pa_phase(&c.rep, PREALLOC_PHASE_TARGET, 0);
	ret = open_locked(&c, a->off, a->len);
	if (!ret)
		open_wfd(j, a->fl);
	if (!ret)
		pa_pace_init(&j->pace, j->log, j->sysfs, c.opts.flags, c.opts.max_rate,
			     c.target.dev);
	if (!ret)
		ret = S_ISBLK(c.target.st.st_mode) ? pa_blockdev_prealloc(j, a->off, a->len) :
						     pa_file_prealloc(j, a->off, a->len);
	if (!ret)
		pa_phase(&c.rep, PREALLOC_PHASE_NONE, 0);
	call_end(&c, a->report, a->t0);
	return ret;
}

PA_EXPORT int prealloc_file_ex(int fd, uint64_t offset, uint64_t len,
			       const struct prealloc_options *opts,
			       struct prealloc_report *report)
{
	struct pa_call_args a = { .off = offset, .len = len, .report = report,
				  .t0 = pa_now_ns() };

	if (report && report->size < offsetof(struct prealloc_report, method))
		return -EINVAL;
	if (report && report->size > PA_STRUCT_SIZE_MAX)
		return -E2BIG;
	a.fl = pa_options_load(opts, 0, &a.opts);
	if (!a.fl)
		a.fl = pa_check_write(fd, offset, len);
	if (a.fl < 0)
		return a.fl;
	pa_ctx_revalidate(a.opts.ctx);
	return pa_own_files_run(fd, pa_call_run, &a);
}

PA_EXPORT int prealloc_file(int fd, uint64_t offset, uint64_t len, unsigned int flags)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = flags };

	return prealloc_file_ex(fd, offset, len, &o, NULL);
}
