/* SPDX-License-Identifier: MIT */
/*
 * The device chain under a device number, read from sysfs (probes/sysfs.c):
 * the device holding the file first, then the devices below it (partition ->
 * disk, dm/md -> slaves, loop -> the device holding its backing file,
 * recursively).  Transport details (NVMe, SCSI) hang
 * off each device.  Filled once by the probes, then read-only.
 */
#ifndef PREALLOC_CHAIN_H
#define PREALLOC_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "prealloc.h"
#include "probes/nvme.h"
#include "probes/scsi.h"

/* Value of a queue attribute the kernel does not have (e.g. before 6.17). */
#define PA_Q_ABSENT UINT64_MAX

/* The queue/ attributes we read, in the order of pa_queue_attr_names[]. */
enum pa_queue_attr {
	PA_Q_LOGICAL_BLOCK_SIZE,
	PA_Q_PHYSICAL_BLOCK_SIZE,
	PA_Q_MINIMUM_IO_SIZE,
	PA_Q_OPTIMAL_IO_SIZE,
	PA_Q_WRITE_ZEROES_MAX_BYTES,
	PA_Q_WRITE_ZEROES_UNMAP_MAX_HW_BYTES,
	PA_Q_WRITE_ZEROES_UNMAP_MAX_BYTES,
	PA_Q_DISCARD_GRANULARITY,
	PA_Q_DISCARD_MAX_BYTES,
	PA_Q_DISCARD_MAX_HW_BYTES,
	PA_Q_ROTATIONAL,
	PA_Q_ZONED,		/* 0 none, 1 host-aware, 2 host-managed */
	PA_Q_DAX,
	PA_Q_ATOMIC_WRITE_UNIT_MIN_BYTES,	/* 6.11+; 0 = no atomic writes */
	PA_Q_ATOMIC_WRITE_UNIT_MAX_BYTES,
	PA_Q_ATOMIC_WRITE_MAX_BYTES,
	PA_Q_ATOMIC_WRITE_BOUNDARY_BYTES,
	PA_Q_NR,
};

/* sysfs names ("logical_block_size", ...) indexed by enum pa_queue_attr. */
extern const char *const pa_queue_attr_names[PA_Q_NR];

/* "none", "host-aware", "host-managed" for a PA_Q_ZONED value, or NULL. */
const char *pa_zoned_name(uint64_t v);

enum pa_dev_role {
	PA_ROLE_DISK,
	PA_ROLE_PARTITION,
	PA_ROLE_LOOP,
	PA_ROLE_DM,
	PA_ROLE_MD,
};

/* "disk", "partition", "loop", "dm", "md". */
const char *pa_role_name(int role);

enum pa_transport {
	PA_TRANSPORT_NONE,
	PA_TRANSPORT_NVME,
	PA_TRANSPORT_SCSI,
};

struct pa_device {
	dev_t dev;
	char name[40];			/* kernel name: sda1, nvme0n1, loop0, dm-0 */
	uint8_t role;			/* enum pa_dev_role */
	uint8_t transport;		/* enum pa_transport */
	uint8_t depth;			/* 0 for the top device */
	int parent;			/* index of the device above, -1 for the top; under a
					 * loop device: the device holding its backing file */
	uint64_t queue[PA_Q_NR];	/* PA_Q_ABSENT when missing or unreadable */
	uint64_t size_sectors;		/* `size`, 512-byte units */
	uint64_t part_start;		/* partition: `start`, 512-byte units */
	char dm_name[64];		/* dm: dm/name */
	char md_level[16];		/* md: md/level */
	char backing_file[256];		/* loop: loop/backing_file ("" if none) */
	int loop_dio;			/* loop: loop/dio, -1 unknown */
	union {				/* filled by the transport's prober */
		struct pa_nvme_info nvme;	/* PA_TRANSPORT_NVME */
		struct pa_scsi_info scsi;	/* PA_TRANSPORT_SCSI */
	};
};

/* Most devices one chain may hold; deeper or wider stacks are cut (-E2BIG). */
#define PA_CHAIN_MAX 16

/*
 * Walk the chain under @dev in the sysfs tree at @root into @devs (at most
 * @max entries).  Returns the number of devices, -ENOENT when @dev is not a
 * block device known to sysfs, -E2BIG when the stack does not fit.  Only
 * sysfs is read here; transport probes are separate (pa_chain_probe_transports).
 */
int pa_chain_walk(const char *root, dev_t dev, struct pa_device *devs, size_t max);

/*
 * Fill the nvme/scsi details of every device.  @real_root says whether
 * device nodes may be opened (false for a captured tree).  Never fails:
 * what cannot be learnt is recorded as unknown with its reason.
 */
void pa_chain_probe_transports(const char *root, bool real_root,
			       struct pa_device *devs, size_t n);

/*
 * Can the whole chain zero by unmapping?  Returns enum prealloc_answer, sets
 * *@kernel_wz when the top device has the 6.17 unmap attributes, and writes
 * the attribute or field that decided it to @evidence.  Pure.
 */
int pa_chain_verdict(const struct pa_device *devs, size_t n, bool *kernel_wz,
		     char *evidence, size_t len);

#endif
