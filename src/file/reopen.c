/* SPDX-License-Identifier: MIT */
/*
 * Reopening the caller's file with status flags of our own (O_DIRECT on,
 * O_APPEND/O_SYNC off) without touching the caller's open file description,
 * whose flags other threads rely on.  Linux offers only /proc/thread-self/fd
 * for this, which may be missing (a mount namespace without /proc) or
 * refused (a file created 0444 by a caller who still holds it O_RDWR):
 * every user of this helper has a slower way to go on without it.
 *
 * A new description is only ever opened, and so closed, in a file table of
 * the library's own (base/own_files.h): a close in the process's table
 * drops the caller's record locks on the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/own_files.h"
#include "base/sysfs_read.h"
#include "base/sysfs_root.h"
#include "src/file/reopen.h"

int pa_dup(int fd)
{
	int own = fcntl(fd, F_DUPFD_CLOEXEC, 3);

	return own < 0 ? -errno : own;
}

int pa_check_writable(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	if ((fl & O_PATH) == O_PATH || (fl & O_ACCMODE) == O_RDONLY)
		return -EBADF;
	return fl;
}

bool pa_same_file(int fd, const struct stat *st)
{
	struct stat now;

	if (fstat(fd, &now) < 0)
		return false;
	/* Any node of the same block device is the same device. */
	if (S_ISBLK(st->st_mode))
		return S_ISBLK(now.st_mode) && now.st_rdev == st->st_rdev;
	return now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

/*
 * Without /proc a block device can still be opened by name: sysfs gives
 * its kernel name, devtmpfs the node (identity is checked by the caller).
 * The node is this machine's, so is the sysfs asked: a context's captured
 * tree describes another machine's devices.
 */
static int open_blockdev(const struct stat *st, int flags)
{
	char dir[64], name[64], node[80];
	int fd;

	if (pa_sysfs_dev_link(PA_SYSFS_MACHINE, st->st_rdev, dir, sizeof(dir)) < 0 ||
	    pa_sysfs_uevent(dir, "DEVNAME", name, sizeof(name)) < 0 ||
	    snprintf(node, sizeof(node), "/dev/%s", name) >= (int)sizeof(node))
		return -ENOENT;
	fd = open(node, flags | O_CLOEXEC | O_NOCTTY);
	return fd < 0 ? -errno : fd;
}

bool pa_leased(int fd)
{
	int lease = fcntl(fd, F_GETLEASE);

	return lease >= 0 && lease != F_UNLCK;
}

int pa_reopen(int fd, const struct stat *st, int flags)
{
	struct stat own;
	char path[40];
	int nfd;

	if (!st) {
		if (fstat(fd, &own) < 0)
			return -errno;
		st = &own;
	}
	if (pa_leased(fd))
		return -EBUSY;
	/* This thread's table: ours, where the number is our copy's. */
	snprintf(path, sizeof(path), "/proc/thread-self/fd/%d", fd);
	nfd = open(path, flags | O_CLOEXEC | O_NOCTTY);
	if (nfd < 0 && errno == ENOENT && S_ISBLK(st->st_mode))
		nfd = open_blockdev(st, flags);
	else if (nfd < 0)
		nfd = -errno;
	if (nfd < 0)
		return nfd;
	/* /proc mounted from another namespace, not procfs at all, or a
	 * device node that is another device. */
	if (!pa_same_file(nfd, st)) {
		close(nfd);
		return -ESTALE;
	}
	return nfd;
}

struct reopened {
	const struct stat *st;
	int flags;
	int (*fn)(int rfd, void *arg);
	void *arg;
};

static int run_reopened(int fd, void *arg)
{
	const struct reopened *r = arg;
	int rfd = pa_reopen(fd, r->st, r->flags), ret;

	ret = r->fn(rfd, r->arg);
	if (rfd >= 0)
		close(rfd);
	return ret;
}

int pa_with_reopened(int fd, const struct stat *st, int flags, int (*fn)(int rfd, void *arg),
		     void *arg)
{
	struct reopened r = { .st = st, .flags = flags, .fn = fn, .arg = arg };

	return pa_own_files_run(fd, run_reopened, &r);
}
