/* SPDX-License-Identifier: MIT */
/* The uring method (src/exec/method_uring.c). */
#ifndef PREALLOC_METHOD_URING_H
#define PREALLOC_METHOD_URING_H

#include <stddef.h>

#include "prealloc.h"
#include "src/exec/job.h"
#include "src/plan/steps.h"

/* O_DIRECT zero writes of @n ranges (each aligned to j->dio_align) through
 * io_uring, keeping j->opts->queue_depth requests of up to
 * j->opts->request_bytes in flight.  Stops at the first error. */
int pa_zero_uring(struct pa_job *j, const struct pa_range *r, size_t n);
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
 * off); asked once per process (src/exec/refusal.h), logged through @log then. */
int pa_uring_usable(struct pa_log *log, char *why, size_t len);

#endif
