/* SPDX-License-Identifier: MIT */
/*
 * One prealloc_file_ex() call: its state, progress accounting and the zeroing
 * methods.  The methods are shared by regular files and block devices.
 */
#ifndef PREALLOC_ENGINE_H
#define PREALLOC_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "prealloc.h"

#define PA_DEFAULT_QUEUE_DEPTH	4
#define PA_DEFAULT_REQUEST	(4u << 20)

#include "probes/caps.h"
#include "src/call/ofdlock.h"
#include "src/call/pace.h"
#include "src/plan/plan.h"
#include "src/call/rangelock.h"
#include "src/file/reopen.h"
#include "src/plan/steps.h"

/* What is known about an open target before planning (src/call/target.c). */
struct pa_target {
	struct prealloc_ctx *ctx;	/* the context whose caches are used; NULL: default */
	struct stat st;
	struct statfs sfs;		/* a file's filesystem; zero for a block device */
	uint64_t dev;			/* st_dev of a file, st_rdev of a block device */
	uint64_t fs_type;		/* statfs f_type; 0 for a block device */
	uint64_t fs_block;		/* filesystem block size (logical block size of a bdev) */
	const struct pa_caps *caps;	/* NULL when no block device backs the file */
	struct pa_plan_input in;	/* the planner's input for this target */
};

/* fstat/fstatfs/probe @fd and fill the planner input for a request with
 * @flags and @method at [off, off + len), with the caches of @ctx (NULL:
 * the default context).  0 or -errno. */
int pa_target_open(struct prealloc_ctx *ctx, int fd, uint64_t off, uint64_t len,
		   uint32_t flags, uint32_t method, struct pa_target *t);
void pa_target_close(struct pa_target *t);

/* statfs f_type of the upper layer under overlayfs descriptor @fd: where
 * its data is written.  0 when it cannot be told (src/call/overlay.c). */
uint64_t pa_overlay_upper_fs(int fd);

/* "ext4", "xfs", "btrfs", "tmpfs", ... or NULL for an unknown f_type. */
const char *pa_fs_name(uint64_t fs_type);

/*
 * Every descriptor here is the call's own, held for its whole duration: a
 * caller that closes or dup2()s over its descriptor number mid-call cannot
 * redirect the work to another file.
 */
struct pa_call {
	int fd;				/* our duplicate of the caller's descriptor */
	int wfd;			/* buffered writes: fd, or fd reopened without
					 * O_APPEND/O_DIRECT/O_SYNC when it has them */
	int wfd_known;			/* the wfd whose status flags wfd_flags holds */
	int wfd_flags;			/* fcntl(wfd, F_GETFL), or -errno */
	int dfd;			/* our O_DIRECT descriptor, or -1 */
	int dio_rwf;			/* RWF_* flags for writes through dfd */
	bool dontcache_refused;		/* pwritev2() refused RWF_DONTCACHE (src/exec/dontcache.c) */
	struct pa_target target;	/* filled before dispatch (src/call/api.c) */
	uint32_t dio_align;		/* file offset and length alignment for O_DIRECT */
	uint32_t dio_mem_align;		/* buffer alignment for O_DIRECT */
	struct prealloc_options opts;	/* the caller's, completed with defaults */
	struct prealloc_report rep;	/* full-size; copied out at the end */
	uint64_t done;			/* progress */
	uint64_t total;
	struct pa_pace pace;		/* background mode and max_rate (src/call/pace.c) */
	struct pa_range_lock lock;	/* the bytes of a file the call may touch */
	struct pa_ofd_lock olock;	/* the same bytes against other processes */
};

/* Copy and check the caller's size-prefixed options (unknown flags, method);
 * zero fields are left zero.  0, -EINVAL or -E2BIG (src/call/api.c). */
int pa_options_copy(const struct prealloc_options *opts, struct prealloc_options *o);

/* The checks of a call that writes [off, off + len) of @fd, in this order:
 * options (copied into @o, no defaults), range, write access.  @fd's
 * status flags, or -errno (-EINVAL, -E2BIG, -EFBIG, -EBADF; src/call/api.c). */
int pa_check_call(int fd, uint64_t off, uint64_t len, const struct prealloc_options *opts,
		  struct prealloc_options *o);

/* Count @bytes done by @method in the report, without telling anyone. */
void pa_count(struct pa_call *c, unsigned int method, uint64_t bytes);

/* Copy and check the caller's options (size-prefixed), defaults filled in:
 * 0, -EINVAL or -E2BIG (src/call/api.c). */
int pa_get_options(const struct prealloc_options *opts, struct prealloc_options *o);

/* Enter @step of the call, running @method (0 for none): what the report
 * names as failed_step/failed_method if the call fails before the next one. */
static inline void pa_step(struct pa_call *c, uint32_t step, uint32_t method)
{
	c->rep.failed_step = step;
	c->rep.failed_method = method;
}

/* Count @bytes done by @method and call the progress callback: -ECANCELED
 * if it asks to stop. */
int pa_advance(struct pa_call *c, unsigned int method, uint64_t bytes);

/* Does @err say the method cannot work here, so the next one should try
 * (src/exec/exec.c)?  The one definition for files and block devices. */
bool pa_refused(int err);

/* One run of a plan's steps (src/exec/exec.c), for a file or a block device. */
struct pa_exec {
	struct pa_work w;		/* the facts the steps are built from */
	struct pa_todo *todo;		/* what is still to be zeroed */
	size_t ntodo;
	struct pa_steps steps;		/* the current method's steps */
	int sync_fd;			/* the descriptor fdatasync() reports for */
	uint64_t chunk;			/* bytes per write-zeroes or BLKZEROOUT call */
	/* Make method @m ready (O_DIRECT, x->w.direct_align): -EOPNOTSUPP
	 * refuses it before any of its steps runs.  NULL: nothing to do. */
	int (*prepare)(struct pa_call *c, struct pa_exec *x, unsigned int m);
	unsigned int first;		/* the plan's first method that was not refused */
	unsigned int prepared;		/* ... which pa_exec_prepare() made ready */
	bool started;			/* a step ran: the target may have changed */
	bool reserve_refused;		/* fallocate() is not supported here */
	bool unkeepable;		/* ... and keep-size space beyond EOF was asked */
	size_t failed;			/* the step that failed ... */
	uint64_t failed_done;		/* ... after counting this many bytes */
};

/* Before anything changes: make the first of @p's methods ready that is
 * not refused (a forced method alone: its refusal is the answer).  0 or
 * -errno. */
int pa_exec_prepare(struct pa_call *c, struct pa_exec *x, const struct pa_plan *p);

/* Run @p's methods from the prepared one through @x's steps, falling back on a refusal when the
 * caller forced no method.  The last method's result. */
int pa_exec_run(struct pa_call *c, struct pa_exec *x, const struct pa_plan *p);
void pa_exec_free(struct pa_exec *x);

/* Note that @method was refused here (EOPNOTSUPP) before falling back: in
 * the report, and for write-zeroes in the per-(device, fs) memory. */
void pa_method_refused(struct pa_call *c, unsigned int method);

/* Direct writes never cover less than a page: a direct write into a page
 * that the page cache also holds (a sub-page block written buffered by the
 * same call) fails to invalidate it (-EIO, and the caller's fsync too). */
uint64_t pa_direct_align(const struct pa_call *c);

/* The same for a descriptor not opened yet with O_DIRECT, from statx (the
 * probe): 0 when the filesystem says it has no direct I/O. */
uint64_t pa_direct_align_fd(int fd, uint32_t logical_block_size);

/* Would pa_open_direct() find a descriptor for @fd: /proc/self/fd reopens
 * it for writing, or @fd is O_DIRECT itself?  For the probe, which opens
 * nothing for writing. */
bool pa_direct_reachable(int fd);

/* Open c->dfd: the same file with O_DIRECT (pa_reopen(), else the caller's
 * own descriptor if it is O_DIRECT) and learn the alignment (statx
 * STATX_DIOALIGN, else the logical block size).  -EOPNOTSUPP when direct
 * I/O is not possible here (filesystem refuses it, no way to reopen). */
int pa_open_direct(struct pa_call *c, uint32_t logical_block_size);

/* O_DIRECT zero writes of @n ranges (each aligned to c->dio_align) through
 * io_uring, keeping c->opts.queue_depth requests of up to
 * c->opts.request_bytes in flight.  Stops at the first error. */
int pa_zero_uring(struct pa_call *c, const struct pa_range *r, size_t n);
#ifdef PA_TEST_HOOKS
/* Test builds: @hook sees each completion's result first and may replace
 * it (a signal-interrupted or cancelled request on demand); NULL to stop. */
void pa_uring_set_cqe_hook(int (*hook)(int res));
/* Test builds: @hook sees each submit's result (after the kernel took the
 * requests) and may replace it (a failure on demand); NULL to stop. */
void pa_uring_set_submit_hook(int (*hook)(int ret));
#endif

/* Is io_uring usable in this process?  0, or -EOPNOTSUPP with the reason
 * and its evidence in @why ("io_uring_setup refused: EPERM (a seccomp
 * profile?)", "; kernel.io_uring_disabled = 2" when the host turned it
 * off); asked once per process (src/exec/refusal.h), logged through @ctx then. */
int pa_uring_usable(struct prealloc_ctx *ctx, char *why, size_t len);

/* The same zero writes through Linux AIO (src/exec/method_aio.c); -EOPNOTSUPP
 * before any write when io_setup() is refused or libaio was not built in. */
int pa_zero_aio(struct pa_call *c, const struct pa_range *r, size_t n);
int pa_aio_usable(struct prealloc_ctx *ctx, char *why, size_t len);
#ifdef PA_TEST_HOOKS
/* Test builds: @hook sees each completion's (io_event) result first and
 * may replace it; each io_submit()'s result, after the kernel took the
 * requests, likewise.  NULL to stop. */
void pa_aio_set_event_hook(int (*hook)(int res));
void pa_aio_set_submit_hook(int (*hook)(int ret));
#endif

/* Ordinary zero writes to [start, start + len) through c->wfd.  When wfd
 * is the caller's own O_APPEND descriptor, each write says RWF_NOAPPEND
 * (Linux 6.9); when it is the caller's O_DIRECT one, the page-aligned part
 * is written direct and the partial pages through a shared mapping. */
int pa_zero_buffered(struct pa_call *c, uint64_t start, uint64_t len);

/* ioctl(BLKZEROOUT) through c->wfd in chunks of @chunk (paced). */
int pa_zero_out(struct pa_call *c, uint64_t start, uint64_t len, uint64_t chunk);

/* fallocate(FALLOC_FL_WRITE_ZEROES) in chunks, so progress and cancelling
 * work on large ranges.  -EOPNOTSUPP when the kernel or device cannot. */
int pa_zero_write_zeroes(struct pa_call *c, uint64_t start, uint64_t len, uint64_t chunk);

/* Block devices (src/exec/blockdev.c). */
int pa_blockdev_prealloc(struct pa_call *c, uint64_t off, uint64_t len);

/* Regular files (src/exec/regular_file.c). */
int pa_file_prealloc(struct pa_call *c, uint64_t off, uint64_t len);

/* The facts of a file's range for its steps (src/exec/regular_file.c), shared with the
 * probe: -EPERM for an append-only or immutable file; classify
 * [w->off, w->end) of @fd into @segs (*@ret_fiemap: from FIEMAP); check the
 * space and choose piecewise reservation. */
int pa_file_check_attrs(int fd);
int pa_file_classify(int fd, struct pa_work *w, struct pa_seglist *segs, bool *ret_fiemap);
int pa_file_space(const struct pa_target *t, struct pa_work *w);

/* What the kernel answered to FALLOC_FL_WRITE_ZEROES on (dev, fs_type) in
 * @ctx (NULL: the default context): PA_YES it worked, PA_NO it refused for
 * the filesystem or device, PA_UNKNOWN not asked yet; and remember an
 * answer, so later calls need not ask (src/call/context.c, over src/exec/wz_cache.c). */
int pa_wz_answer(struct prealloc_ctx *ctx, uint64_t dev, uint64_t fs_type);
void pa_wz_remember(struct prealloc_ctx *ctx, uint64_t dev, uint64_t fs_type, int answer);
/* What @t's inode says about a FALLOC_FL_WRITE_ZEROES refusal on @fd, as
 * "this file, which ...", or NULL when it explains nothing (src/exec/wz_inode.c). */
const char *pa_wz_inode_refusal(int fd, const struct pa_target *t);
/* uname(2)'s release, the kernel the answers come from. */
void pa_kernel_release(char *buf, size_t len);

#endif
