/* SPDX-License-Identifier: MIT */
/*
 * Byte-range locks between the calls of one process on one file: calls
 * whose pages overlap, or that both reach past end of file, run one after
 * the other (src/call/rangelock.c).
 */
#ifndef PREALLOC_RANGELOCK_H
#define PREALLOC_RANGELOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "prealloc.h"
#include "base/util.h"

/* A range of one file held by one call; lives in the call's frame. */
struct pa_range_lock {
	uint64_t dev, ino;
	uint64_t lo, hi;		/* [lo, hi); hi UINT64_MAX: to the end */
	pthread_t owner;
	struct pa_range_lock *next;
	bool held;
};

/*
 * The bytes a call on [@off, @end) of a file of @size may touch, in whole
 * granules of @g (a power of two: the page or the block, the larger): a
 * direct write of one call and a buffered write of another must never meet
 * in a page.  A call reaching past end of file also holds everything from
 * the old end of file on: it moves the size, and its undo cuts the size
 * back and (on ext4) truncates what lies beyond it.
 */
static inline void pa_range_lock_span(uint64_t off, uint64_t end, uint64_t size, uint64_t g,
				      uint64_t *lo, uint64_t *hi)
{
	*lo = PA_ROUND_DOWN(off, g);
	*hi = end > UINT64_MAX - g ? UINT64_MAX : PA_ROUND_UP(end, g);
	if (end > size) {
		*lo = PA_MIN(*lo, PA_ROUND_DOWN(size, g));
		*hi = UINT64_MAX;
	}
}

/*
 * Wait until no other call holds a range of the file (@l->dev, @l->ino)
 * overlapping [@l->lo, @l->hi), then hold it.  While waiting, @fn (may be
 * NULL) is called now and then with (0, @total, @data); non-zero cancels.
 * 0, -ECANCELED, or -EDEADLK when this thread holds an overlapping range
 * already (a progress callback calling back into the library).
 */
int pa_range_lock(struct pa_range_lock *l, prealloc_progress_fn fn, void *data, uint64_t total);

/* Release @l if held; wakes the waiters.  Safe on a lock never taken. */
void pa_range_unlock(struct pa_range_lock *l);

#endif
