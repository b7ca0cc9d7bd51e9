/* SPDX-License-Identifier: MIT */
/* Signatures on a block device, through libblkid (probes/blkid.c). */
#ifndef PREALLOC_BLKID_H
#define PREALLOC_BLKID_H

#include <stddef.h>

/*
 * Look for filesystem, RAID, crypto and partition-table signatures on the
 * block device at @devpath (opened read-only, never exclusively, so a mounted
 * device can be inspected).  Writes their names, comma-separated (e.g. "ext4"
 * or "dos,ext4"), to @buf (truncated to @len; @buf may be NULL when @len is
 * 0).  Signatures with a bad checksum count: a damaged filesystem is still
 * somebody's data.  Returns the number found (0: none), -EOPNOTSUPP when built
 * without libblkid, or another -errno.
 */
int pa_blkid_signatures(const char *devpath, char *buf, size_t len);

/* The same on an open descriptor (any access mode); its offset is not used. */
int pa_blkid_signatures_fd(int fd, char *buf, size_t len);

#endif
