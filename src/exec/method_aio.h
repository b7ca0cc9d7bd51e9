/* SPDX-License-Identifier: MIT */
/* The aio method (src/exec/method_aio.c). */
#ifndef PREALLOC_METHOD_AIO_H
#define PREALLOC_METHOD_AIO_H

#include <stddef.h>

#include "prealloc.h"
#include "src/exec/job.h"
#include "src/plan/steps.h"

/* The same zero writes through Linux AIO; -EOPNOTSUPP
 * before any write when io_setup() is refused or libaio was not built in. */
int pa_zero_aio(struct pa_job *j, const struct pa_range *r, size_t n);
int pa_aio_usable(struct pa_log *log, char *why, size_t len);
#ifdef PA_TEST_HOOKS
/* Test builds: @hook sees each completion's (io_event) result first and
 * may replace it; each io_submit()'s result, after the kernel took the
 * requests, likewise.  NULL to stop. */
void pa_aio_set_event_hook(int (*hook)(int res));
void pa_aio_set_submit_hook(int (*hook)(int ret));
#endif

#endif
