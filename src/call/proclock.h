/* SPDX-License-Identifier: MIT */
/*
 * Calls of different processes on one file, one after the other: flock()
 * on a description the process keeps while any of its calls runs on the
 * file (src/call/proclock.c).  Taken after the in-process lock
 * (src/call/rangelock.h), released before it.
 */
#ifndef PREALLOC_PROCLOCK_H
#define PREALLOC_PROCLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "prealloc.h"

struct pa_proc_lock {
	uint64_t dev, ino;
	bool held;
};

/*
 * Hold the regular file @fd (@st its fstat()) against other processes'
 * calls, waiting while one holds it; @fn (may be NULL) is called with
 * (0, @total, @data) while waiting, non-zero cancels.  Calls of this
 * process share the hold.  0 held, -ECANCELED; or why the file cannot be
 * held, with nothing held: the reopen's error (-ENOENT without /proc,
 * -EACCES), -EBUSY (@fd's description holds a lease, which an open would
 * break), -EOPNOTSUPP (NFS and SMB, where flock() is a record lock and
 * would meet the application's), or -EDEADLK (a flock() not of a call of
 * another process holds the file: the application's own, one of a process
 * without the library, or one /proc/locks cannot name: waiting might never
 * end).
 */
int pa_proc_lock(struct pa_proc_lock *l, int fd, const struct stat *st,
		 prealloc_progress_fn fn, void *data, uint64_t total);

/* Release @l; safe on a lock never taken. */
void pa_proc_unlock(struct pa_proc_lock *l);

/*
 * From /proc/locks as @locks reads it: a holder of a flock() on the file
 * (@dev, @ino) not worth waiting for, or 0 when every holder is one
 * @waits_for() says is (another process's calls, which end).  The pid, or
 * -1 for a holder /proc/locks cannot name (another pid namespace).  Lines
 * name the filesystem's device and the inode; @by_dev false where stat()
 * gives another device (a btrfs subvolume's): by inode alone then, which
 * may take another filesystem's holder of that inode number for this
 * file's, so the call goes on unordered (-EDEADLK) rather than wait.
 */
long pa_flock_foreign(FILE *locks, uint64_t dev, uint64_t ino, bool by_dev,
		      bool (*waits_for)(long pid));

#endif
