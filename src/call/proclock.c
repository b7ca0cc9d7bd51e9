/* SPDX-License-Identifier: MIT */
/*
 * Locks between processes.  Without them, calls of two processes on one
 * page zero it through direct and buffered writes at once (the kernel then
 * fails to invalidate the page cache and leaves -EIO in the file's
 * writeback state for every process's next fsync()), and one call's undo
 * releases blocks the other has written.
 *
 * Why flock(), on a description of the process's own:
 *  - The application's own record locks must never meet ours: a process
 *    never conflicts with its own POSIX locks, and SQLite, InnoDB and
 *    lockf(fd, F_LOCK, 0) rely on it.  Any fcntl() lock of ours, OFD or
 *    POSIX, on whatever bytes, would meet a whole-file lock of the
 *    application's: its F_SETLK would fail while a call runs, and a
 *    progress callback taking one would never return.  flock() locks live
 *    apart from fcntl() locks on local filesystems (not on NFS and SMB,
 *    where we take none).  The price: the whole file, not the call's bytes.
 *  - One description per file for all of the process's calls on it, kept
 *    in the library's table that outlives calls (pa_workers_kept_run()) while
 *    any of them runs: calls of one process (ordered between themselves by
 *    the in-process lock) never wait for each other here, a progress
 *    callback's own call included.  Not the caller's description: that
 *    would share the lock with the application's own flock(), and after
 *    fork() with the child.  Closing ours releases nothing of the
 *    application's.
 *  - Whose flock() holds the file, /proc/locks tells (its pid).  The call
 *    waits only for another process that holds files for its calls: its
 *    table's keeper bears a name of its own (PA_KEPT_THREAD_NAME) while
 *    it holds any, and calls end.  One of its own process is the
 *    application's (the process's calls share ours), one of a process
 *    without that name an application's (flock(1) around a command, a
 *    backup tool): waiting might never end, so the call goes on unordered
 *    and says -EDEADLK; so it does when /proc/locks cannot say.
 *  - Polled (LOCK_NB) with a bounded backoff: the waiting call must call its
 *    progress callback and be cancellable, and a library cannot own a
 *    signal to interrupt a blocked flock().
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/workers.h"
#include "base/util.h"
#include "src/call/proclock.h"
#include "src/file/reopen.h"
#include "src/fs/fs.h"

#define BACKOFF_MIN_NS (1 * 1000 * 1000)
#define BACKOFF_MAX_NS (50 * 1000 * 1000)	/* as the in-process lock polls */

/* A file this process holds, in the kept table. */
struct held {
	uint64_t dev, ino;
	int fd;
	unsigned int calls;
	struct held *next;
};

static struct held *held;		/* touched by kept-table jobs only */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* A fork()ed child has neither the kept table nor the calls that held
 * those files: it holds nothing. */
static void forget_in_child(void)
{
	held = NULL;
}

static void register_atfork(void)
{
	pthread_atfork(NULL, NULL, forget_in_child);
}

/* What a kept-table job is given: the file, by a path that table can open. */
struct lock_req {
	char path[64];
	const struct stat *st;
	uint64_t dev, ino;
	bool by_dev;			/* /proc/locks names st_dev (pa_flock_foreign()) */
};

/* Does process @pid hold files for calls of its own: has it the kept
 * table's keeper (base/workers.h), by its name?  A holder without
 * one holds an application's flock(), not a call's. */
static bool holds_for_calls(long pid)
{
	char path[64], comm[32];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	d = opendir(path);
	while (d && !found && (e = readdir(d))) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task/%.20s/comm", pid, e->d_name);
		f = fopen(path, "re");
		found = f && fgets(comm, sizeof(comm), f) &&
			!strncmp(comm, PA_KEPT_THREAD_NAME, strlen(PA_KEPT_THREAD_NAME));
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/* One FLOCK line of /proc/locks on inode @ino: its holder and whether it
 * names device @dev too ("PID MAJ:MIN:INO": MAJ and MIN in hex). */
static bool flock_line(const char *line, uint64_t dev, uint64_t ino, long *pid, bool *same_dev)
{
	unsigned int maj, min;
	unsigned long long i;
	char kind[16];

	if (sscanf(line, "%*[^:]: %15s %*s %*s %ld %x:%x:%llu", kind, pid, &maj, &min, &i) != 5 ||
	    strcmp(kind, "FLOCK") || i != ino)
		return false;
	*same_dev = maj == major((dev_t)dev) && min == minor((dev_t)dev);
	return true;
}

long pa_flock_foreign(FILE *locks, uint64_t dev, uint64_t ino, bool by_dev,
		      bool (*waits_for)(long pid))
{
	long pid, foreign = 0;
	char *line = NULL;
	bool same_dev;
	size_t n = 0;

	while (!foreign && getline(&line, &n, locks) > 0)
		if (flock_line(line, dev, ino, &pid, &same_dev) && (same_dev || !by_dev) &&
		    !waits_for(pid))
			foreign = pid > 0 ? pid : -1;
	free(line);
	return foreign;
}

/* Worth waiting for: another process's calls hold it, and calls end. */
static bool calls_of_another(long pid)
{
	return pid > 0 && pid != (long)getpid() && holds_for_calls(pid);
}

/* pa_flock_foreign() of this moment's /proc/locks; -1 without it. */
static long foreign_holder(uint64_t dev, uint64_t ino, bool by_dev)
{
	FILE *f = fopen("/proc/locks", "re");
	long pid;

	if (!f)
		return -1;
	pid = pa_flock_foreign(f, dev, ino, by_dev, calls_of_another);
	fclose(f);
	return pid;
}

/* flock() @fd: 0, -EAGAIN while calls of other processes hold it, or
 * -EDEADLK when a holder not worth waiting for does, twice running (a
 * holder seen between its release and its thread's end looks foreign). */
static int try_flock(int fd, uint64_t dev, uint64_t ino, bool by_dev)
{
	long last = 0, pid;

	for (;;) {
		if (PA_RETRY_EINTR(flock(fd, LOCK_EX | LOCK_NB)) == 0)
			return 0;
		if (errno != EWOULDBLOCK)
			return -errno;
		pid = foreign_holder(dev, ino, by_dev);
		if (!pid)
			return -EAGAIN;
		if (pid == last)
			return -EDEADLK;
		last = pid;
	}
}

static struct held **find(uint64_t dev, uint64_t ino)
{
	struct held **h = &held;

	while (*h && ((*h)->dev != dev || (*h)->ino != ino))
		h = &(*h)->next;
	return h;
}

/* On the kept table: join the process's hold, or take it.  -EAGAIN while
 * another process holds the file.  The keeper is named before the flock()
 * is taken: a process meeting it unnamed would not wait. */
static int take(void *arg)
{
	const struct lock_req *j = arg;
	struct held **h = find(j->dev, j->ino), *n = NULL;
	int fd, ret;

	if (*h) {
		(*h)->calls++;
		return 0;
	}
	fd = open(j->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	ret = fd < 0 ? -errno : pa_same_file(fd, j->st) ? 0 : -ESTALE;
	if (!ret && !held)
		pa_workers_mark(true);
	if (!ret)
		ret = try_flock(fd, j->dev, j->ino, j->by_dev);
	if (!ret && !(n = malloc(sizeof(*n))))
		ret = -ENOMEM;
	if (!ret) {
		*n = (struct held){ .dev = j->dev, .ino = j->ino, .fd = fd, .calls = 1 };
		*h = n;
		return 0;
	}
	if (fd >= 0)
		close(fd);
	if (!held)
		pa_workers_mark(false);
	return ret;
}

/* On the kept table: leave the hold; the last call releases it. */
static int drop(void *arg)
{
	const struct lock_req *j = arg;
	struct held **h = find(j->dev, j->ino), *o = *h;

	if (o && --o->calls == 0) {
		*h = o->next;
		close(o->fd);		/* releases the flock() */
		free(o);
		if (!held)
			pa_workers_mark(false);
	}
	return 0;
}

static void backoff(uint64_t *ns)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)*ns };

	nanosleep(&ts, NULL);
	*ns = PA_MIN(*ns * 2, BACKOFF_MAX_NS);
}

int pa_proc_lock(struct pa_proc_lock *l, int fd, const struct stat *st,
		 prealloc_progress_fn fn, void *data, uint64_t total)
{
	const struct pa_fs *fs = pa_fs_lookup(fd);
	struct lock_req j = { .st = st, .dev = st->st_dev, .ino = st->st_ino,
			      .by_dev = !fs->subvol_dev };
	uint64_t wait = BACKOFF_MIN_NS;
	int ret;

	*l = (struct pa_proc_lock){ .dev = j.dev, .ino = j.ino };
	pthread_once(&once, register_atfork);
	if (fs->flock_record_lock)	/* NFS, SMB: it would meet the application's */
		return -EOPNOTSUPP;
	if (pa_leased(fd))
		return -EBUSY;
	/* Our copy of the caller's descriptor, in this thread's table. */
	snprintf(j.path, sizeof(j.path), "/proc/%d/task/%d/fd/%d", getpid(), gettid(), fd);
	while ((ret = pa_workers_kept_run(take, &j)) == -EAGAIN) {
		if (fn && fn(0, total, data))
			return -ECANCELED;
		backoff(&wait);
	}
	l->held = ret == 0;
	return ret;
}

void pa_proc_unlock(struct pa_proc_lock *l)
{
	struct lock_req j = { .dev = l->dev, .ino = l->ino };

	if (l->held)
		pa_workers_kept_run(drop, &j);
	l->held = false;
}
