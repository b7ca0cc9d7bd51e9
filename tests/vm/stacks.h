/* SPDX-License-Identifier: MIT */
/*
 * Building block-device stacks inside the test guests without userspace
 * tools (tests/vm/stacks.c): a GPT partition, device-mapper tables, md
 * arrays without superblocks and loop devices, through the kernel's own
 * ioctls.  Every function returns 0 or a negative errno; device paths are
 * /dev/<kernel name>, so sysfs is /sys/class/block/<basename>.
 */
#ifndef VM_STACKS_H
#define VM_STACKS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Write a GPT holding one Linux partition [@start, @start + @len) (bytes,
 * multiples of the logical block size) on @disk, make the kernel read it
 * and return the partition's path in @part.
 */
int vm_gpt_partition(const char *disk, uint64_t start, uint64_t len, char *part, size_t n);

/* Erase the GPT (both copies) and make the kernel drop the partitions. */
int vm_gpt_erase(const char *disk);

/* One line of a device-mapper table. */
struct vm_dm_target {
	uint64_t start, len;		/* 512-byte sectors */
	const char *type;		/* "linear", "striped" */
	const char *params;		/* "8:16 0", "2 128 8:16 0 259:1 0" */
};

/* Create and activate dm device @name with the table; its path in @path. */
int vm_dm_create(const char *name, const struct vm_dm_target *t, size_t nt, char *path, size_t n);
int vm_dm_remove(const char *name);
/* Send @msg to the target at sector 0 of @name (DM_TARGET_MSG). */
int vm_dm_message(const char *name, const char *msg);
/* The status line (STATUSTYPE_INFO) of @name's first target, in @buf. */
int vm_dm_status(const char *name, char *buf, size_t n);

/*
 * Assemble md array @name ("md0") of @level (0 or 1) over @devs without a
 * superblock, as `mdadm --build` does, marked clean (no resync); its path
 * in @path.
 */
int vm_md_create(const char *name, int level, const char *const *devs, size_t ndevs,
		 unsigned int chunk_kib, char *path, size_t n);
int vm_md_stop(const char *path);

/* Attach @file to a free loop device (buffered I/O); its path in @path. */
int vm_loop_attach(const char *file, char *path, size_t n);
int vm_loop_detach(const char *path);

/* "MAJ:MIN" of a block device node. */
int vm_devnum(const char *path, char *buf, size_t n);

#endif
