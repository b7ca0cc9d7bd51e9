/* SPDX-License-Identifier: MIT */
/*
 * Test filesystems on loop devices.
 *
 * tfs_enter() puts the test process in a private mount namespace, so every
 * mount it makes disappears when it exits, however it exits; loop devices are
 * created with LO_FLAGS_AUTOCLEAR over an already-unlinked image file, so they
 * detach when the last user (the mount) goes.  Tests therefore clean up even
 * when they crash, and parallel tests never share a device or a directory.
 */
#ifndef PREALLOC_TFS_H
#define PREALLOC_TFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TFS_SKIP 77

struct tfs {
	char dir[64];		/* mount point (a fresh mkdtemp directory) */
	char dev[32];		/* /dev/loopN, or "" for tmpfs */
	char type[16];
	int loop_fd;		/* held until tfs_destroy(); valid when dev[0] */
};

/* Root, a private mount namespace and /dev/loop-control: or exit(77).
 * Call first in main(), before any thread exists. */
void tfs_enter(void);

/* tfs_enter(), then exit(77) unless @type is supported: main() of a test
 * that runs on one filesystem type. */
void tfs_enter_for(const char *type);

/* Is mkfs for @type installed and the filesystem known to the kernel? */
bool tfs_supported(const char *type);

/* A loop device of @size_mb MiB over a sparse image (direct I/O when
 * @direct), with no filesystem; the path lands in t->dev.  0 or -errno. */
int tfs_loop(struct tfs *t, uint64_t size_mb, bool direct);

/* A mounted @type ("ext4", "xfs", "btrfs" or "tmpfs") of @size_mb MiB.
 * @mkfs_opts are extra mkfs arguments (may be NULL). 0 or -errno. */
int tfs_create(struct tfs *t, const char *type, uint64_t size_mb, const char *mkfs_opts);

/* An xfs of @size_mb MiB formatted for exchange-range (ranges exchanged
 * with XFS_IOC_COMMIT_RANGE), mounted in @t: 0 or -errno. */
int tfs_create_xfs_exchange(struct tfs *t, uint64_t size_mb);

/* Unmount, detach, remove the mount point.  Safe on a zeroed struct. */
void tfs_destroy(struct tfs *t);

/* A cmocka group teardown for a group whose setup left its struct tfs in
 * *@state: tfs_destroy() it.  Returns 0. */
int tfs_group_teardown(void **state);

/* Remove @dir and everything below it (a test's scratch directory), without
 * crossing into other filesystems.  0 or -errno. */
int tfs_rmtree(const char *dir);

/* Run the shell command made from @fmt; 0 if it exits 0, else -1 (the
 * command is printed to stderr). */
int tfs_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A captured sysfs tree under @dir in which the device of @t's filesystem
 * is a partition of an NVMe namespace that advertises unmap Write Zeroes
 * (tests/probes/make-tree.sh, found through $PROBE_SCRIPTS); its root
 * ("@dir/sys") lands in @sys.  0, or -1 (the scripts are not known). */
int tfs_nvme_tree(const struct tfs *t, const char *dir, char *sys, size_t len);

/* An ext4 of @size_mb MiB in @t and, in a new directory made from the
 * mkdtemp() template @tree, its NVMe sysfs tree (tfs_nvme_tree()).  0 or -1. */
int tfs_create_nvme(struct tfs *t, uint64_t size_mb, char *tree, char *sys, size_t len);

/* Undo tfs_create_nvme(): tfs_destroy(@t), then remove @tree.  0 or -errno. */
int tfs_destroy_nvme(struct tfs *t, const char *tree);

/* /sys/block/<@t's loop>/queue/@attr as a number, or -1 (no such
 * attribute, or no loop device). */
long long tfs_queue_attr(const struct tfs *t, const char *attr);

/* What &prealloc_report.write_zeroes says of a call that could give
 * FALLOC_FL_WRITE_ZEROES bytes of @t's loop device, by its queue:
 * PREALLOC_WZ_NO_KERNEL before Linux 6.17 (no such attribute),
 * PREALLOC_WZ_DEVICE_CANNOT where the loop cannot zero by unmapping (as
 * on 6.17 to 6.18), else PREALLOC_WZ_USED. */
uint32_t tfs_wz_verdict(const struct tfs *t);

/* Descriptors open in this process (below 4096), counted without /proc:
 * for "the call left none behind" checks. */
int tfs_count_fds(void);

/* Path of @name inside the filesystem, in a static-free caller buffer. */
const char *tfs_path(const struct tfs *t, const char *name, char *buf, size_t len);

#endif
