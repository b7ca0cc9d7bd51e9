/* SPDX-License-Identifier: MIT */
/* Regular-file targets (src/exec/regular_file.c). */
#ifndef PREALLOC_REGULAR_FILE_H
#define PREALLOC_REGULAR_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "src/exec/job.h"
#include "src/file/extents.h"
#include "src/plan/steps.h"

struct pa_log;

/* Preallocate [off, off + len) of the call's file.  0 or -errno. */
int pa_file_prealloc(struct pa_job *j, uint64_t off, uint64_t len);

/* The facts of a file's range for its steps, shared with the
 * probe: -EPERM for an append-only or immutable file; classify
 * [w->off, w->end) of @fd into @regions (*@ret_fiemap: from FIEMAP); check the
 * space and choose piecewise reservation. */
int pa_file_check_attrs(int fd);
int pa_file_classify(int fd, struct pa_work *w, struct pa_regionlist *regions, bool *ret_fiemap);
int pa_file_space(const struct pa_target *t, const char *sysfs, struct pa_log *log, int fd,
		  struct pa_work *w);

#endif
