/* SPDX-License-Identifier: MIT */
/*
 * The executor's side of each zeroing method, indexed by enum
 * prealloc_method: the code that zeroes with it and whether this process
 * may use it.  What a method is (its name, its flags, the order) is
 * src/method/method.h's; a new method is a row of each table.
 */
#ifndef PREALLOC_OPS_H
#define PREALLOC_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "src/exec/job.h"
#include "src/plan/steps.h"

struct pa_log;

struct pa_method_ops {
	/* Zero @n ranges (1 unless PA_M_BATCH); @chunk: bytes per call for
	 * offloaded methods.  -EOPNOTSUPP before the first write is a refusal
	 * (src/exec/exec.c): the next method of the plan gets the rest. */
	int (*zero)(struct pa_job *j, const struct pa_range *r, size_t n, uint64_t chunk);
	/* Does this process let the method work at all (seccomp, a sysctl,
	 * the kernel, the build)?  0, or -EOPNOTSUPP with the evidence in
	 * @why; learnt once per process, logged through @log then.  NULL:
	 * always. */
	int (*usable)(struct pa_log *log, char *why, size_t len);
};

/* @m's ops, or NULL for a value no method has (AUTO, unknown). */
const struct pa_method_ops *pa_method_ops(unsigned int m);

/* A bit (1 << method) for each method this process cannot use
 * (struct pa_plan_input.unusable). */
uint32_t pa_methods_unusable(struct pa_log *log);

#endif
