/* SPDX-License-Identifier: MIT */
/*
 * Durability mutants for the power-loss test (tests/vm/crash.c): each one
 * removes one durability measure, so the test can show it would notice.  Only
 * the test archive built with -DPA_MUTANTS has them; everywhere else
 * pa_mutant() is the constant false and the guarded code always runs.
 */
#ifndef PA_MUTANT_H
#define PA_MUTANT_H

#include <stdbool.h>

enum pa_mutant {
	PA_MUTANT_DATA_SYNC,	/* the fdatasync() that ends prealloc_file() */
	PA_MUTANT_POOL_SYNC,	/* the pool's data sync before a segment's rename */
	PA_MUTANT_DIR_SYNC,	/* the directory fsync()s after a take or install */
};

#ifdef PA_MUTANTS
/* True when $PREALLOC_CRASH_MUTANT (read once) names @m. */
bool pa_mutant(enum pa_mutant m);
#else
static inline bool pa_mutant(enum pa_mutant m)
{
	(void)m;
	return false;
}
#endif

#endif
