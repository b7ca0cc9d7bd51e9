/* SPDX-License-Identifier: MIT */
/*
 * Exchanging a range of a file with a temporary file's, only if the file
 * did not change (xfs: XFS_IOC_START_COMMIT, XFS_IOC_COMMIT_RANGE, Linux
 * 6.13; src/file/exchange.c), and the temporary file itself.
 */
#ifndef PREALLOC_EXCHANGE_H
#define PREALLOC_EXCHANGE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

/* What XFS_IOC_START_COMMIT saw of the file: opaque to us. */
struct pa_commit {
	uint64_t freshness[6];
};

/* Flags of an exchange (xfs_fs.h's XFS_EXCHANGE_RANGE_*). */
#define PA_XCHG_TO_EOF		(1ull << 0)	/* to both ends; the sizes too */
#define PA_XCHG_DSYNC		(1ull << 1)	/* durable on return */
#define PA_XCHG_DRY_RUN		(1ull << 2)	/* checks, flushes; changes nothing */
#define PA_XCHG_FILE1_WRITTEN	(1ull << 3)	/* only where the temporary file is written */

/* Is the filesystem of @fd formatted to exchange ranges (the xfs geometry's
 * exchange-range flag)?  False where it cannot say. */
bool pa_exchange_formatted(int fd);

/* Note what the file @fd is now: 0, or -errno (-ENOTTY, -EOPNOTSUPP: this
 * kernel cannot commit ranges). */
int pa_commit_start(int fd, struct pa_commit *c);

/* Exchange [@off, @off + @len) of @fd with the same bytes of @tmp, with
 * @flags, if @fd is still as pa_commit_start() saw it: 0, -EBUSY (it
 * changed: nothing was exchanged), or -errno. */
int pa_commit_range(int fd, const struct pa_commit *c, int tmp, uint64_t off, uint64_t len,
		    uint64_t flags);

/* A new unnamed file (O_TMPFILE, read-write) in the directory of the file
 * that @fd, described by @st, is, on its filesystem: the descriptor, or
 * -errno: -ENOENT (no /proc, or the file has no name left), -EXDEV (the
 * directory is on another filesystem), what open() said.  On a thread of
 * the library's own files only (base/own_files.h). */
int pa_tmpfile_beside(int fd, const struct stat *st);

#endif
