/* SPDX-License-Identifier: MIT */
/* The simple zeroing methods (src/exec/zero.c). */
#ifndef PREALLOC_ZERO_H
#define PREALLOC_ZERO_H

#include <stdint.h>

#include "src/exec/job.h"

/* Ordinary zero writes to [start, start + len) through j->wfd.  When wfd
 * is the caller's own O_APPEND descriptor, each write says RWF_NOAPPEND
 * (Linux 6.9); when it is the caller's O_DIRECT one, the page-aligned part
 * is written direct and the partial pages through a shared mapping. */
int pa_zero_buffered(struct pa_job *j, uint64_t start, uint64_t len);

/* ioctl(BLKZEROOUT) through j->wfd in chunks of @chunk (paced). */
int pa_zero_out(struct pa_job *j, uint64_t start, uint64_t len, uint64_t chunk);

/* fallocate(FALLOC_FL_WRITE_ZEROES) in chunks, so progress and cancelling
 * work on large ranges.  -EOPNOTSUPP when the kernel or device cannot:
 * the report then says why, and a refusal the file's inode does not
 * explain is remembered for its filesystem (or block device). */
int pa_zero_write_zeroes(struct pa_job *j, uint64_t start, uint64_t len, uint64_t chunk);

#endif
