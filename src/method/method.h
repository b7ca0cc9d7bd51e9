/* SPDX-License-Identifier: MIT */
/*
 * What each zeroing method is, as one table indexed by enum prealloc_method:
 * its name, what it needs and what it can do, and the order an automatic
 * plan considers them in.  The planner (src/plan/) and the step builder
 * read a method's row, never its name; the executor keeps its own table of
 * the code that runs it (src/exec/ops.h).  Below both: nothing above base/.
 */
#ifndef PREALLOC_METHOD_H
#define PREALLOC_METHOD_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pa_method_flags {
	PA_M_FILE = 1u << 0,	/* may be forced on a regular file */
	PA_M_BDEV = 1u << 1,	/* ... on a block device */
	PA_M_RESERVE = 1u << 2,	/* writes into reserved space: fallocate() first */
	PA_M_DIRECT = 1u << 3,	/* O_DIRECT writes through its own descriptor, direct alignment */
	PA_M_WHOLE = 1u << 4,	/* zeroes whole pieces: no aligned middle, no edges */
	PA_M_BATCH = 1u << 5,	/* takes a run of consecutive zero steps at once */
	PA_M_WRITES = 1u << 6,	/* its writes allocate holes themselves: reserving
				 * first only keeps the blocks together */
};

struct pa_method {
	const char *name;		/* prealloc_method_name() */
	uint32_t flags;			/* enum pa_method_flags */
};

/* @m's row, or NULL for a value no method has (AUTO, unknown). */
const struct pa_method *pa_method(unsigned int m);

/* Does @m's row have every flag of @flags?  False for an unknown @m. */
bool pa_method_is(unsigned int m, uint32_t flags);

/* The methods an automatic plan considers, cheapest first. */
extern const uint8_t pa_method_order[];
extern const size_t pa_method_order_n;

/*
 * Does @err say the method cannot work here, so the next one should try?
 * "Refused" has one meaning everywhere: -EOPNOTSUPP, which the kernel
 * returns for a mode or command the file or device cannot do, and which
 * the methods return for refusals of their own (no O_DIRECT, no io_uring).
 */
static inline bool pa_refused(int err)
{
	return err == -EOPNOTSUPP;
}

#endif
