/* SPDX-License-Identifier: MIT */
/*
 * The plan executor, one for files and block devices: try the planner's
 * methods in order and hand the work to the next one when a method is
 * refused.  "Refused" has one meaning everywhere: -EOPNOTSUPP, which the
 * kernel returns for a mode or command the file or device cannot do, and
 * which the methods return for refusals of their own (no O_DIRECT, no
 * io_uring).  Any other error is the call's result, never hidden by a
 * fallback.
 */
#include <errno.h>

#include "engine.h"

bool pa_refused(int err)
{
	return err == -EOPNOTSUPP;
}

int pa_run_plan(struct pa_call *c, const struct pa_plan *p, pa_method_fn run, void *job)
{
	int ret = -EOPNOTSUPP;

	for (unsigned int i = 0; i < p->n; i++) {
		unsigned int m = p->methods[i];

		pa_step(c, PREALLOC_STEP_ZERO, m);
		ret = run(job, m);
		/* A forced method stands alone: its refusal is the answer. */
		if (!pa_refused(ret) || c->opts.method != PREALLOC_METHOD_AUTO)
			return ret;
		pa_method_refused(c, m);
	}
	return ret;
}
