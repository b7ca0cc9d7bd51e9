/* SPDX-License-Identifier: MIT */
/*
 * Reopening the caller's file with status flags of our own (O_DIRECT on,
 * O_APPEND/O_SYNC off) without touching the caller's open file description,
 * whose flags other threads rely on.  Linux offers only /proc/self/fd for
 * this, which may be missing (a mount namespace without /proc) or refused
 * (a file created 0444 by a caller who still holds it O_RDWR): every user
 * of this helper has a slower way to go on without it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reopen.h"

bool pa_same_file(int fd, const struct stat *st)
{
	struct stat now;

	return fstat(fd, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

int pa_reopen(int fd, const struct stat *st, int flags)
{
	struct stat own;
	char path[32];
	int nfd;

	if (!st) {
		if (fstat(fd, &own) < 0)
			return -errno;
		st = &own;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	nfd = open(path, flags | O_CLOEXEC | O_NOCTTY);
	if (nfd < 0)
		return -errno;
	/* /proc mounted from another namespace, or not procfs at all. */
	if (!pa_same_file(nfd, st)) {
		close(nfd);
		return -ESTALE;
	}
	return nfd;
}
