/* SPDX-License-Identifier: MIT */
/* Regular-file targets (src/exec/regular_file.c). */
#ifndef PREALLOC_REGULAR_FILE_H
#define PREALLOC_REGULAR_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "src/call/call.h"
#include "src/call/target.h"
#include "src/file/extents.h"
#include "src/plan/steps.h"

/* Preallocate [off, off + len) of the call's file.  0 or -errno. */
int pa_file_prealloc(struct pa_call *c, uint64_t off, uint64_t len);

/* The facts of a file's range for its steps, shared with the
 * probe: -EPERM for an append-only or immutable file; classify
 * [w->off, w->end) of @fd into @segs (*@ret_fiemap: from FIEMAP); check the
 * space and choose piecewise reservation. */
int pa_file_check_attrs(int fd);
int pa_file_classify(int fd, struct pa_work *w, struct pa_seglist *segs, bool *ret_fiemap);
int pa_file_space(const struct pa_target *t, int fd, struct pa_work *w);

#endif
