/* SPDX-License-Identifier: MIT */
/*
 * Byte-range locks between the calls of different processes on one file:
 * open file description locks on a description of the call's own
 * (src/call/ofdlock.c).  Taken after the in-process lock (src/call/rangelock.h) on
 * the same bytes, released before it.
 */
#ifndef PREALLOC_OFDLOCK_H
#define PREALLOC_OFDLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "prealloc.h"

/*
 * The bytes of the file that stand for offset @x of it in our locks: a
 * shadow region from 2^62, one byte per 4 KiB, beyond any data a file can
 * hold on ext4 and beyond what applications lock for their records (a lock
 * there meets ours only if it reaches to end of file).  Pages and blocks
 * are multiples of 4 KiB, so whole granules map to whole bytes and two
 * spans overlap exactly when their shadows do.
 */
#define PA_OFD_BASE (1ull << 62)
#define PA_OFD_UNIT 4096u
static inline uint64_t pa_ofd_shadow(uint64_t x)
{
	return PA_OFD_BASE + x / PA_OFD_UNIT;
}

struct pa_ofd_lock {
	int fd;				/* our own description of the file; -1 */
	bool held;
};

/*
 * Hold [@lo, @hi) (@hi UINT64_MAX: to the end; multiples of PA_OFD_UNIT)
 * of the regular file @fd (@st its fstat()) against other descriptions'
 * calls, waiting while another holds any of it; @fn (may be NULL) is
 * called with (0, @total, @data) while waiting, non-zero cancels.
 * 0 held, -ECANCELED; or the reason the bytes cannot be held, with
 * nothing held: the reopen's error (-ENOENT without /proc, -EACCES, ...),
 * -ENOLCK or -EINVAL (no OFD locks on this filesystem), -EDEADLK (an
 * application lock, POSIX or OFD, reaches to end of file and so covers the
 * shadow region: it may be the caller's own, and waiting would never end).
 */
int pa_ofd_lock(struct pa_ofd_lock *l, int fd, const struct stat *st, uint64_t lo, uint64_t hi,
		prealloc_progress_fn fn, void *data, uint64_t total);

/* Release @l and close its description; safe on a lock never taken (@l->fd
 * -1 or a closed lock). */
void pa_ofd_unlock(struct pa_ofd_lock *l);

#endif
