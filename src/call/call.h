/* SPDX-License-Identifier: MIT */
/*
 * One prealloc_file_ex() call: what it holds for its whole duration, its
 * options and the phase it is in (src/call/api.c).  The contract of src/call/.
 */
#ifndef PREALLOC_CALL_H
#define PREALLOC_CALL_H

#include <stdint.h>

#include "prealloc.h"
#include "src/call/proclock.h"
#include "src/call/rangelock.h"
#include "src/call/target.h"
#include "src/exec/job.h"

#define PA_DEFAULT_QUEUE_DEPTH	4
#define PA_DEFAULT_REQUEST	(4u << 20)

struct pa_call {
	struct pa_job job;		/* what the executor is given (src/exec/job.h) */
	struct pa_target target;	/* filled before dispatch (src/call/api.c) */
	struct prealloc_options opts;	/* the caller's, completed with defaults */
	struct prealloc_report rep;	/* full-size; copied out at the end */
	struct pa_range_lock lock;	/* the bytes of a file the call may touch */
	struct pa_proc_lock plock;	/* the file against other processes */
};

/*
 * The one options loader (src/call/api.c): copy the caller's size-prefixed
 * @opts (NULL: all defaults) into @o, check them (unknown flags, method),
 * add @extra_flags (the async call's PREALLOC_BACKGROUND) and fill in the
 * defaults, background ones for a background call.  @o's size is then
 * sizeof(*@o).  0, -EINVAL or -E2BIG.
 */
int pa_options_load(const struct prealloc_options *opts, uint32_t extra_flags,
		    struct prealloc_options *o);

/* The checks of a call that writes [off, off + len) of @fd, after its
 * options: range, then write access.  @fd's status flags, or -errno
 * (-EINVAL, -EFBIG, -EBADF; src/call/api.c). */
int pa_check_write(int fd, uint64_t off, uint64_t len);

/* A prealloc_file_ex() call whose arguments are checked, for pa_call_run(). */
struct pa_call_args {
	int fl;				/* its status flags (pa_check_write()) */
	uint64_t off, len;
	struct prealloc_options opts;	/* loaded (pa_options_load()) */
	struct prealloc_report *report;	/* may be NULL */
	uint64_t t0;			/* when the call began */
};

/*
 * The call itself on @fd, the caller's file in the table of a thread that
 * is the library's own (pa_own_files_run(); src/call/api.c): the progress
 * callback is sent back to the caller's thread.  0 or -errno, the report
 * filled in.
 */
int pa_call_run(int fd, void *args);

#endif
