/* SPDX-License-Identifier: MIT */
/*
 * The capabilities record: everything the planner may know about the storage
 * under a device number, built once by the probes and cached.  Records are
 * immutable once published; holders keep a reference.
 */
#ifndef PREALLOC_CAPS_H
#define PREALLOC_CAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum pa_tristate {
	PA_UNKNOWN = -1,
	PA_NO = 0,
	PA_YES = 1,
};

struct pa_device;	/* one device of the chain; see probes/chain.h */

struct pa_caps {
	dev_t dev;			/* st_dev of a file, st_rdev of a block device */
	/* Can every device of the chain zero by unmapping (FALLOC_FL_WRITE_ZEROES)? */
	int write_zeroes_unmap;		/* enum pa_tristate */
	char evidence[192];		/* which attribute or field decided it */
	bool kernel_write_zeroes;	/* queue/write_zeroes_unmap_max_hw_bytes exists (6.17+) */
	uint32_t logical_block_size;	/* of the top device; 512 if unknown */
	uint32_t physical_block_size;
	uint64_t write_zeroes_max_bytes;	/* of the top device; 0 = no Write Zeroes */
	uint64_t size_bytes;		/* of the top device (partition size for a partition) */
	bool rotational;
	/* Atomic writes of the top device (queue/atomic_write_*, 6.11+); 0 when
	 * the device has none or the kernel does not say.  For a partition these
	 * are its disk's: the kernel also wants the partition start aligned. */
	uint32_t atomic_write_unit_min;
	uint32_t atomic_write_unit_max;
	uint32_t atomic_write_max_bytes;
	uint32_t atomic_write_boundary;
	size_t ndevices;		/* chain, top device first */
	const struct pa_device *devices;
};

/* Atomic write limits of an open file (statx STATX_WRITE_ATOMIC, 6.11+). */
struct pa_file_atomic {
	uint32_t unit_min;		/* bytes; 0 = no atomic writes on this file */
	uint32_t unit_max;
	uint32_t segments_max;
};

/* Fill @ret for @fd; -EOPNOTSUPP when the kernel or filesystem cannot say. */
int pa_file_atomic_get(int fd, struct pa_file_atomic *ret);

/*
 * Return the record for @dev (cached), taking a reference.  Never fails for
 * lack of privilege: what cannot be read is PA_UNKNOWN.  -ENOENT when @dev is
 * not a block device known to sysfs (tmpfs, NFS, ...): the caller plans
 * without device facts.
 */
int pa_caps_get(dev_t dev, const struct pa_caps **ret);
void pa_caps_put(const struct pa_caps *caps);

/* Drop cached records (all when dev == 0), e.g. after a remount. */
void pa_caps_invalidate(dev_t dev);

#endif
