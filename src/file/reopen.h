/* SPDX-License-Identifier: MIT */
/* The one way the library reopens a caller's descriptor (src/file/reopen.c). */
#ifndef PREALLOC_REOPEN_H
#define PREALLOC_REOPEN_H

#include <stdbool.h>
#include <sys/stat.h>

/* Is @fd the file @st describes (same st_dev and st_ino)? */
bool pa_same_file(int fd, const struct stat *st);

/* Does @fd's description hold a lease?  Any open of the file by another
 * description breaks it: the caller's would be, were we to open one. */
bool pa_leased(int fd);

/* The file @fd refers to, opened anew with @flags (O_CLOEXEC added) through
 * /proc/thread-self/fd and checked to be the file @st describes, or @fd's
 * own file when @st is NULL (src/file/reopen.c).  Only on a thread of the
 * library's own files (base/own_files.h), where closing it is safe.
 * The new descriptor, or -errno: -ENOENT (no /proc), -EACCES (the file's
 * mode forbids it), -ESTALE (not the same file), -EBUSY (@fd's description
 * holds a lease, which an open would break), ... */
int pa_reopen(int fd, const struct stat *st, int flags);

/* From any thread: @fn(@rfd, @arg) with @rfd pa_reopen(@fd, @st, @flags)
 * (-errno when it failed), on a thread of the library's own files, then
 * @rfd closed there.  @fn's result, or why no such thread could be had. */
int pa_with_reopened(int fd, const struct stat *st, int flags, int (*fn)(int rfd, void *arg),
		     void *arg);

/* A close-on-exec duplicate of @fd numbered 3 or above (never a standard
 * stream number a closefrom()ed process may reuse), or -errno. */
int pa_dup(int fd);

/* @fd's status flags if it is open for writing; -EBADF if not (O_PATH,
 * read-only), or -errno. */
int pa_check_writable(int fd);

#endif
