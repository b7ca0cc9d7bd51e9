/* SPDX-License-Identifier: MIT */
/* A job's progress: the report's byte counts and the caller's progress
 * callback (src/exec/progress.c). */
#ifndef PREALLOC_PROGRESS_H
#define PREALLOC_PROGRESS_H

#include <stdint.h>

#include "src/exec/job.h"

/* Count @bytes done by @method in the report, without telling anyone. */
void pa_count(struct pa_job *j, unsigned int method, uint64_t bytes);

/* Count @bytes done by @method and call the progress callback: -ECANCELED
 * if it asks to stop. */
int pa_advance(struct pa_job *j, unsigned int method, uint64_t bytes);

#endif
