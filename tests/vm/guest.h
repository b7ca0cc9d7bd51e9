/* SPDX-License-Identifier: MIT */
/*
 * What the device suites share (guest.c).  They run inside the QEMU guests
 * of tests/vm/vm.sh, against real kernel drivers.  /init exports
 * PA_VM_<NAME>=/dev/... for every device of the run (nvme512, nvme4k,
 * intelid, scsihd, sdebug, nloop) and the scsi_debug parameters; a test
 * whose device is absent is skipped.
 *
 * Ground truth is what the guest kernel itself decided (queue/ limits,
 * scsi_disk zeroing_mode), read straight from sysfs; the probes must agree
 * with it, and prealloc_file_ex() must keep its promises whichever method the
 * kernel allows.  Outside a guest (no PA_VM_DEVICES) every test skips.
 *
 * Every program takes the same arguments (the guest gives them all the
 * run's): "only=GLOB" runs the matching cases, "xfs" and "stacks" enable
 * those cases (vm_args()), "bench=MIB,ROUNDS" sizes the xfs speed
 * comparison (test-vm-speed's own).
 */
#ifndef VM_GUEST_H
#define VM_GUEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "probes/chain.h"
#include "prealloc.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define ABSENT UINT64_MAX

#ifndef FALLOC_FL_WRITE_ZEROES
#define FALLOC_FL_WRITE_ZEROES 0x80	/* <linux/falloc.h> 6.17 */
#endif

/* ------------------------------------------------------------ guest facts */

/* PA_VM_<NAME>: the device @name of this guest, or NULL. */
const char *vm_dev(const char *name);
/* The device of a test, or skip the test. */
const char *need_dev(const char *name);
/* A scsi_debug parameter of this run, -1 when not given. */
int sdebug_param(const char *key);
/* /sys/class/block/<dev>/<attr> as a string; "" when absent. */
void sys_str(const char *devpath, const char *attr, char *buf, size_t len);
/* A queue limit as the kernel applies it (ABSENT when it has none). */
uint64_t queue_attr(const char *devpath, const char *attr);
/* Will FALLOC_FL_WRITE_ZEROES succeed on this device (the kernel's view)? */
bool kernel_unmap_zeroes(const char *devpath);
/* Does the kernel have the flag at all (write_zeroes_unmap_max_hw_bytes)? */
bool kernel_has_flag(const char *devpath);
/* The report's write_zeroes of an automatic call on @devpath (@takes: the
 * kernel took the flag there). */
uint32_t wz_verdict(const char *devpath, bool takes);
/* The report says @want of the flag. */
void expect_wz(const struct prealloc_report *r, uint32_t want);

/* ------------------------------------------------------------ probes */

struct probed {
	struct pa_device devs[PA_CHAIN_MAX];
	int n;
};

/* The chain of @devpath, walked and probed as the library does. */
void probe(const char *devpath, struct probed *p);
/* The verdict of the probes must be the kernel's own. */
void check_verdict(const char *devpath, const struct probed *p);

/* ------------------------------------------------------------ I/O helpers */

/* @len zero bytes, page aligned (free()). */
void *zbuf(size_t len);
/* Write @byte over [@off, @off + @len) of @fd and fsync. */
void fill(int fd, uint64_t off, uint64_t len, uint8_t byte);
/* [@off, @off + @len) of @path reads as @byte (@direct: O_DIRECT). */
void expect_bytes(const char *path, uint64_t off, uint64_t len, uint8_t byte, bool direct);
/* prealloc_file_ex() with @flags and @method, its report in @r. */
int prealloc_m(int fd, uint64_t off, uint64_t len, unsigned int flags, unsigned int method,
	       struct prealloc_report *r);
void print_report(const char *what, const struct prealloc_report *r);
/* A new, empty file @name in @mnt, opened read-write. */
int open_new(const char *mnt, const char *name);
/* Bytes the report says the flag zeroed. */
uint64_t wz_bytes(const struct prealloc_report *r);

/* ------------------------------------------------------------ file systems */

/* /mnt/<device name>, where the mkfs_*() helpers mount @devpath. */
const char *mnt_of(const char *devpath, char *mnt, size_t len);
/* Unmount what is mounted there, if anything (lazily when busy). */
void unmount_dev(const char *devpath);
/* Run @argv (NULL-terminated, found through PATH), which must exit 0. */
void run_tool(const char *const *argv);
/* An ext4 of @size ("48M"; NULL: the whole device) on @devpath, with
 * bigalloc clusters of @cluster bytes unless 0, mounted; returns @mnt. */
const char *mkfs_mount_opts(const char *devpath, uint32_t cluster, const char *size,
			    char *mnt, size_t len);
/* An xfs over the whole of @devpath, mounted; returns @mnt. */
const char *mkfs_xfs_mount(const char *devpath, char *mnt, size_t len);
/* A 48 MiB ext4 on @devpath, mounted; returns @mnt. */
const char *mkfs_mount(const char *devpath, char *mnt, size_t len);
/* [@off, @off + @len) of @fd is written everywhere (FIEMAP). */
void census_written(int fd, uint64_t off, uint64_t len);
/* The kernel's own answer: does the filesystem at @mnt take the flag on a
 * new file? */
bool fs_takes_flag(const char *mnt);
/* Unmount whatever a test left mounted on the devices (a teardown). */
int unmount_all(void **state);

/* ------------------------------------------------------------ the checks */

/* Zeroing on the raw device @devpath: the flag exactly when the kernel
 * allows it, zeros in the range, the bytes around it kept. */
void check_raw_path(const char *devpath);
/* A file on a new ext4 or xfs (@fs) on @devpath, preallocated around data
 * and an unwritten extent (@edges: then extended unaligned): written, data
 * kept, zeros elsewhere, the flag exactly when the kernel takes it. */
void check_fs_path(const char *devpath, const char *fs, bool edges);
void check_ext4_path(const char *devpath, bool edges);

/* ------------------------------------------------------------ arguments */

/* The xfs cases run only when the program is given "xfs", the stacks
 * only with "stacks". */
extern bool run_xfs, run_stacks;
void need_xfs(void);

/* Take the arguments every program shares ("only=GLOB", "xfs", "stacks");
 * the rest is the program's own. */
void vm_args(int argc, char **argv);

#endif
