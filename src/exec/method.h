/* SPDX-License-Identifier: MIT */
/*
 * The zeroing methods as one table, indexed by enum prealloc_method: the
 * planner (src/plan/plan.c), the step builder (src/plan/steps.c), the probe
 * (src/call/probe_plan.c) and the executor (src/exec/exec.c) read a method's row and
 * never its name, so a new method is its own file and one row of
 * src/exec/method.c.
 */
#ifndef PREALLOC_METHOD_H
#define PREALLOC_METHOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/plan/plan.h"

struct pa_call;
struct pa_range;
struct prealloc_ctx;

enum pa_method_flags {
	PA_M_FILE = 1u << 0,	/* may be forced on a regular file */
	PA_M_BDEV = 1u << 1,	/* ... on a block device */
	PA_M_RESERVE = 1u << 2,	/* writes into reserved space: fallocate() first */
	PA_M_DIRECT = 1u << 3,	/* O_DIRECT writes through c->dfd, direct alignment */
	PA_M_WHOLE = 1u << 4,	/* zeroes whole pieces: no aligned middle, no edges */
	PA_M_BATCH = 1u << 5,	/* takes a run of consecutive zero steps at once */
	PA_M_WRITES = 1u << 6,	/* its writes allocate holes themselves: reserving
				 * first only keeps the blocks together */
};

struct pa_method {
	const char *name;		/* prealloc_method_name() */
	uint32_t flags;			/* enum pa_method_flags */
	/* In an automatic plan for @in, in the order of pa_method_order?
	 * NULL: only when forced, or by the planner's target rules. */
	bool (*applies)(const struct pa_plan_input *in);
	/* Zero @n ranges (1 unless PA_M_BATCH); @chunk: bytes per call for
	 * offloaded methods.  -EOPNOTSUPP before the first write is a refusal
	 * (src/exec/exec.c): the next method of the plan gets the rest. */
	int (*zero)(struct pa_call *c, const struct pa_range *r, size_t n, uint64_t chunk);
	/* Does this process let the method work at all (seccomp, a sysctl,
	 * the kernel, the build)?  0, or -EOPNOTSUPP with the evidence in
	 * @why; learnt once per process.  NULL: always. */
	int (*usable)(struct prealloc_ctx *ctx, char *why, size_t len);
};

/* @m's row, or NULL for a value no method has (AUTO, unknown). */
const struct pa_method *pa_method(unsigned int m);

/* Does @m's row have every flag of @flags?  False for an unknown @m. */
bool pa_method_is(unsigned int m, uint32_t flags);

/* A bit (1 << method) for each method this process cannot use
 * (struct pa_plan_input.unusable). */
uint32_t pa_methods_unusable(struct prealloc_ctx *ctx);

/* The methods an automatic plan considers, cheapest first. */
extern const uint8_t pa_method_order[];
extern const size_t pa_method_order_n;

#endif
