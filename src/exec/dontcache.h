/* SPDX-License-Identifier: MIT */
/*
 * Buffered zero writes that leave the page cache as they found it
 * (src/exec/dontcache.c): what a call writes is free space, not the caller's
 * working set, and must not evict it.
 */
#ifndef PREALLOC_DONTCACHE_H
#define PREALLOC_DONTCACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

struct pa_job;

/* One run of buffered writes from @start upwards through one descriptor:
 * where its write-back was started and its pages dropped so far. */
struct pa_dc {
	int fd;
	uint64_t pg;		/* page size */
	uint64_t kicked;	/* write-back started up to here */
	uint64_t dropped;	/* whole pages dropped up to here */
	bool off;		/* the file has no write-back to start (-EINVAL & co.) */
};

void pa_dc_begin(struct pa_dc *d, int fd, uint64_t start);

/* pwritev2(@fd, @iov, @cnt, @off, @rwf) with RWF_DONTCACHE until the
 * kernel refuses it (EOPNOTSUPP), which the job remembers: -1 and errno
 * like pwritev2(). */
ssize_t pa_dc_pwritev(struct pa_job *j, int fd, const struct iovec *iov, int cnt, uint64_t off,
		      int rwf);

/* The run has written up to @end: without RWF_DONTCACHE, start write-back
 * of each full window and drop the one before it.  0 or -errno (a
 * write-back error, which is the call's). */
int pa_dc_wrote(struct pa_job *j, struct pa_dc *d, uint64_t end);

/* The run stops at @end with result @ret: on success wait for the rest
 * and drop it.  The run's result. */
int pa_dc_end(struct pa_job *j, struct pa_dc *d, uint64_t end, int ret);

#endif
