/* SPDX-License-Identifier: MIT */
/* A job's progress (src/exec/progress.h). */
#include <errno.h>

#include "src/exec/progress.h"

void pa_count(struct pa_job *j, unsigned int method, uint64_t bytes)
{
	j->rep->bytes_by_method[method] += bytes;
	if (method != PREALLOC_METHOD_ALLOCATE)
		j->rep->bytes_zeroed += bytes;
	else
		j->rep->bytes_reserved += bytes;
	j->done += bytes;
}

int pa_advance(struct pa_job *j, unsigned int method, uint64_t bytes)
{
	const struct prealloc_options *o = j->opts;

	pa_count(j, method, bytes);
	if (o->progress && o->progress(j->done, j->total, o->progress_data))
		return -ECANCELED;
	return 0;
}
