/* SPDX-License-Identifier: MIT */
/* A call's progress (src/call/progress.h). */
#include <errno.h>

#include "src/call/progress.h"

void pa_count(struct pa_call *c, unsigned int method, uint64_t bytes)
{
	c->rep.bytes_by_method[method] += bytes;
	if (method != PREALLOC_METHOD_ALLOCATE)
		c->rep.bytes_zeroed += bytes;
	else
		c->rep.bytes_reserved += bytes;
	c->done += bytes;
}

int pa_advance(struct pa_call *c, unsigned int method, uint64_t bytes)
{
	pa_count(c, method, bytes);
	if (c->opts.progress && c->opts.progress(c->done, c->total, c->opts.progress_data))
		return -ECANCELED;
	return 0;
}
