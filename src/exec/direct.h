/* SPDX-License-Identifier: MIT */
/* The call's O_DIRECT descriptor and its alignment (src/exec/direct.c). */
#ifndef PREALLOC_DIRECT_H
#define PREALLOC_DIRECT_H

#include <stdbool.h>
#include <stdint.h>

#include "src/exec/job.h"

/* Direct writes never cover less than a page: a direct write into a page
 * that the page cache also holds (a sub-page block written buffered by the
 * same call) fails to invalidate it (-EIO, and the caller's fsync too). */
uint64_t pa_direct_align(const struct pa_job *j);

/* The same for a descriptor not opened yet with O_DIRECT, from statx (the
 * probe): 0 when the filesystem says it has no direct I/O. */
uint64_t pa_direct_align_fd(int fd, uint32_t logical_block_size);

/* Would pa_open_direct() find a descriptor for @fd: /proc/thread-self/fd
 * reopens it for writing, or @fd is O_DIRECT itself?  For the probe, which
 * opens nothing for writing. */
bool pa_direct_reachable(int fd);

/* Open j->dfd: the same file with O_DIRECT (pa_reopen(), else the caller's
 * own descriptor if it is O_DIRECT) and learn the alignment (statx
 * STATX_DIOALIGN, else the logical block size).  -EOPNOTSUPP when direct
 * I/O is not possible here (filesystem refuses it, no way to reopen). */
int pa_open_direct(struct pa_job *j, uint32_t logical_block_size);

#endif
