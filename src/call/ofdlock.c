/* SPDX-License-Identifier: MIT */
/*
 * Range locks between processes.  Without them, calls of two processes on
 * one page zero it through direct and buffered writes at once (the kernel
 * then fails to invalidate the page cache and leaves -EIO in the file's
 * writeback state for every process's next fsync()), and one call's undo
 * releases blocks the other has written.
 *
 * Why these locks, on these bytes:
 *  - Open file description locks, not POSIX ones: the kernel drops a
 *    process's POSIX locks on any close() of the file by that process, and
 *    merges them with the application's own; an OFD lock belongs to its
 *    description alone and goes when the process dies.
 *  - On a description the call opens itself: the caller's description (or
 *    a duplicate of it) would merge ours with the application's OFD locks,
 *    and after fork() it is shared with the parent, whose calls would then
 *    not conflict with the child's.  A process forked mid-call inherits our
 *    description: the lock is released by F_UNLCK before close(), which
 *    releases it for every copy.
 *  - On a shadow of the range (pa_ofd_shadow()), not the range itself: OFD
 *    locks conflict with the application's POSIX and OFD locks on the same
 *    bytes, even those of this very process, so locking the real bytes
 *    would make a call wait forever on a record lock its own caller holds.
 *    Only a lock reaching to end of file covers the shadow.  The call
 *    never waits on such an application lock (it may be its caller's own,
 *    and an OFD lock's owner cannot be told): it goes on unordered and
 *    says -EDEADLK.  Only other calls' shadow locks make it wait.
 *  - Polled (F_OFD_SETLK) with a bounded backoff, not F_OFD_SETLKW: the
 *    waiting call must call its progress callback and be cancellable, and a
 *    library cannot own a signal to interrupt a blocked fcntl().
 */
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "src/base/util.h"
#include "src/call/ofdlock.h"
#include "src/file/reopen.h"

#define BACKOFF_MIN_NS (1 * 1000 * 1000)
#define BACKOFF_MAX_NS (50 * 1000 * 1000)	/* as the in-process lock polls */

static struct flock shadow(short type, uint64_t lo, uint64_t hi)
{
	struct flock f = { .l_type = type, .l_whence = SEEK_SET };

	f.l_start = (off_t)pa_ofd_shadow(lo);
	f.l_len = hi == UINT64_MAX ? 0 : (off_t)(pa_ofd_shadow(hi) - pa_ofd_shadow(lo));
	return f;
}

/*
 * A conflict nothing may release while we wait: a lock of the
 * application's own reaching to end of file, so below our shadow region.
 * Whose an OFD lock is cannot be told (F_OFD_GETLK gives no pid): it may
 * be the caller's own, as etcd holds one on every WAL file it
 * preallocates, and waiting on it would never end.
 */
static bool app_lock(int fd, uint64_t lo, uint64_t hi)
{
	struct flock f = shadow(F_WRLCK, lo, hi);

	return fcntl(fd, F_OFD_GETLK, &f) == 0 && f.l_type != F_UNLCK &&
	       (uint64_t)f.l_start < PA_OFD_BASE;
}

static void backoff(uint64_t *ns)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)*ns };

	nanosleep(&ts, NULL);
	*ns = PA_MIN(*ns * 2, BACKOFF_MAX_NS);
}

static int try_lock(int fd, uint64_t lo, uint64_t hi)
{
	struct flock f = shadow(F_WRLCK, lo, hi);

	if (PA_RETRY_EINTR(fcntl(fd, F_OFD_SETLK, &f)) == 0)
		return 0;
	return errno == EACCES ? -EAGAIN : -errno;
}

int pa_ofd_lock(struct pa_ofd_lock *l, int fd, const struct stat *st, uint64_t lo, uint64_t hi,
		prealloc_progress_fn fn, void *data, uint64_t total)
{
	uint64_t wait = BACKOFF_MIN_NS;
	int ret;

	l->held = false;
	l->fd = pa_reopen(fd, st, O_WRONLY);	/* F_WRLCK needs write access */
	if (l->fd < 0)
		return l->fd;
	while ((ret = try_lock(l->fd, lo, hi)) == -EAGAIN) {
		if (app_lock(l->fd, lo, hi))
			ret = -EDEADLK;
		else if (fn && fn(0, total, data))
			ret = -ECANCELED;
		if (ret != -EAGAIN)
			break;
		backoff(&wait);
	}
	l->held = ret == 0;
	if (ret)
		pa_ofd_unlock(l);
	return ret;
}

void pa_ofd_unlock(struct pa_ofd_lock *l)
{
	struct flock f = shadow(F_UNLCK, 0, UINT64_MAX);

	if (l->fd < 0)
		return;
	if (l->held)
		fcntl(l->fd, F_OFD_SETLK, &f);
	close(l->fd);
	l->fd = -1;
	l->held = false;
}
