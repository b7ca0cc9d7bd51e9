/* SPDX-License-Identifier: MIT */
/*
 * A seccomp filter that refuses io_uring, as container runtimes' default
 * profiles do (Docker 25+, containerd 2.0's RuntimeDefault: EPERM) or a
 * kernel or profile without it does (ENOSYS), Linux AIO with it where a
 * test wants both refused, and the write-back a buffered write would start
 * of its own, or one ioctl.  Shared by the container tests, the fallback
 * test, the pool's worker test and the power-loss harness's pool
 * (tests/vm/crash-pool.c).
 */
#ifndef PREALLOC_TSECCOMP_H
#define PREALLOC_TSECCOMP_H

#include <stdbool.h>

/* From now on io_uring_setup(), io_uring_enter() and io_uring_register()
 * (with @aio, io_setup() and io_submit() too) fail with @err in every
 * thread of this process (the library's kept ones too) and every thread
 * and child they start (the filter cannot be removed); checked by calling io_uring_setup().  0, -ENOSYS on an
 * architecture the filter does not know, or -errno. */
int tsec_refuse(int err, bool aio);

/* From now on each system call of @nr (@n of them, at most 8) fails with
 * @err, every other is allowed: a profile written call by call.  0,
 * -ENOSYS on an architecture the filter does not know, or -errno. */
int tsec_refuse_calls(const int *nr, unsigned int n, int err);

/* From now on ioctl() with request @cmd alone fails with @err: a profile
 * or security module that allows a file's ioctls but not that one.  0,
 * -ENOSYS on an architecture the filter does not know, or -errno. */
int tsec_refuse_ioctl(unsigned int cmd, int err);

/* tsec_refuse(@err, false). */
int tsec_refuse_io_uring(int err);

/* From now on io_submit() alone fails with @err: a profile that lets a
 * process set up Linux AIO contexts but not use them.  0, -ENOSYS on an
 * architecture the filter does not know, or -errno. */
int tsec_refuse_io_submit(int err);

/* From now on, as tsec_refuse() does, pwritev2() with RWF_DONTCACHE fails
 * with EOPNOTSUPP (a kernel before 6.14) and sync_file_range() with EPERM
 * (a profile without it): buffered writes start no write-back of their own
 * and stay dirty in the page cache until a data sync or the kernel's
 * flusher.  0, -ENOSYS on an architecture the filter does not know, or
 * -errno. */
int tsec_refuse_writeback(void);

#endif
