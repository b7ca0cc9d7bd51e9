/* SPDX-License-Identifier: MIT */
/*
 * What of a file the page cache holds, as fincore(1) tells it: mincore()
 * over a shared read-only mapping, which reads nothing into the cache.
 */
#ifndef PREALLOC_TCACHE_H
#define PREALLOC_TCACHE_H

#include <stdint.h>

/* Bytes of the whole pages overlapping [off, off + len) of @fd that are
 * cached now (the part beyond EOF counts none), or -errno.  @fd must be
 * open for reading. */
int64_t tcache_resident(int fd, uint64_t off, uint64_t len);

/* One byte per page of [0, len) of @fd into @vec (bit 0: cached), @vec
 * holding (len + page - 1) / page bytes.  0 or -errno. */
int tcache_pages(int fd, uint64_t len, uint8_t *vec);

#endif
