/* SPDX-License-Identifier: MIT */
/*
 * A file table of the library's own.
 *
 * POSIX drops every record lock a process holds on a file when the
 * process closes any descriptor of that file: the kernel removes the locks
 * whose owner is the file table the close() goes through.  The library
 * must open the caller's file again (O_DIRECT, no O_APPEND, a description
 * to order calls between processes) and close what it opened; through the
 * process's table, each close would take the caller's fcntl() locks with
 * it (SQLite's, InnoDB's).  So whatever the library opens it opens on a
 * thread whose table is its own (close_range(CLOSE_RANGE_UNSHARE), Linux
 * 5.9, allowed where unshare() is not), holding a copy of the caller's
 * descriptor alone: its closes release nothing of the caller's, and a
 * fork() of the application mid-call inherits none of them.
 *
 * The application's code the call runs (progress callbacks, log hooks)
 * needs the application's descriptors and thread: it is sent back to the
 * waiting thread as a callout.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/own_files.h"

static __thread struct pa_own_run *self;

/*
 * ThreadSanitizer keeps one table of descriptors per process: descriptors
 * of the same number in two threads' own tables look to it like one
 * descriptor raced on.  Under it the threads keep the process's table
 * (what it checks is the threads, not the caller's locks).
 */
#if defined(__SANITIZE_THREAD__)
#define SHARED_TABLE 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SHARED_TABLE 1
#endif
#endif
#ifndef SHARED_TABLE
#define SHARED_TABLE 0
#endif

/* Our table: a copy of [0, @fd] (nothing above is copied), then only @fd
 * (-1: empty).  Closing the copies below flushes nothing the caller loses:
 * the caller's descriptions stay open in its own table, and the owner
 * whose locks a close removes is this table.  The caller's file is then
 * *@own.  Under ThreadSanitizer, a duplicate in the process's table. */
static int own_table(int fd, int *own)
{
	*own = fd;
	if (SHARED_TABLE) {
		*own = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : -1;
		return fd >= 0 && *own < 0 ? -errno : 0;
	}
	if (close_range((unsigned int)fd + 1, ~0U, CLOSE_RANGE_UNSHARE) < 0) {
		if (unshare(CLONE_FILES) < 0)
			return -errno;
		(void)close_range((unsigned int)fd + 1, ~0U, 0);
	}
	if (fd > 0)
		(void)close_range(0, (unsigned int)fd - 1, 0);
	return 0;
}

static void *serve(void *arg)
{
	struct pa_own_run *r = arg;
	int fd, ret = own_table(r->fd, &fd);

	pthread_mutex_lock(&r->m);
	r->state = ret;
	pthread_cond_broadcast(&r->cv);
	/* The work starts once someone serves its callouts. */
	while (!ret && !r->waiting)
		pthread_cond_wait(&r->cv, &r->m);
	pthread_mutex_unlock(&r->m);
	if (ret)
		return NULL;
	self = r;
	ret = r->fn(fd, r->arg);
	/* Every last close here, before the caller goes on. */
	if (SHARED_TABLE)
		close(fd);
	else
		(void)close_range(0, ~0U, 0);
	pthread_mutex_lock(&r->m);
	r->ret = ret;
	r->done = true;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->m);
	return NULL;
}

int pa_own_files_start(struct pa_own_run *r, int fd, int (*fn)(int fd, void *arg), void *arg)
{
	int ret;

	*r = (struct pa_own_run){ .fd = fd, .fn = fn, .arg = arg, .state = 1 };
	pthread_mutex_init(&r->m, NULL);
	pthread_cond_init(&r->cv, NULL);
	ret = pa_thread_start(&r->thread, serve, r);
	if (!ret) {
		pthread_mutex_lock(&r->m);
		while (r->state == 1)
			pthread_cond_wait(&r->cv, &r->m);
		ret = r->state;
		pthread_mutex_unlock(&r->m);
		if (ret)
			pthread_join(r->thread, NULL);
	}
	if (ret) {
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->m);
	}
	return ret;
}

int pa_own_files_wait(struct pa_own_run *r)
{
	pthread_mutex_lock(&r->m);
	r->caller = pthread_self();
	r->waiting = true;
	pthread_cond_broadcast(&r->cv);
	while (!r->done) {
		void (*fn)(void *) = r->out_fn;

		if (!fn) {
			pthread_cond_wait(&r->cv, &r->m);
			continue;
		}
		pthread_mutex_unlock(&r->m);
		fn(r->out_arg);
		pthread_mutex_lock(&r->m);
		r->out_fn = NULL;
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->m);
	pthread_join(r->thread, NULL);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->m);
	return r->ret;
}

int pa_own_files_run(int fd, int (*fn)(int fd, void *arg), void *arg)
{
	struct pa_own_run r;
	int ret;

	if (self)
		return fn(fd, arg);
	ret = pa_own_files_start(&r, fd, fn, arg);
	return ret ? ret : pa_own_files_wait(&r);
}

void pa_callout(void (*fn)(void *arg), void *arg)
{
	struct pa_own_run *r = self;

	if (!r) {
		fn(arg);
		return;
	}
	pthread_mutex_lock(&r->m);
	r->out_fn = fn;
	r->out_arg = arg;
	pthread_cond_broadcast(&r->cv);
	while (r->out_fn)
		pthread_cond_wait(&r->cv, &r->m);
	pthread_mutex_unlock(&r->m);
}

pthread_t pa_caller_thread(void)
{
	return self ? self->caller : pthread_self();
}

/*
 * The process's one table that outlives calls: a library thread that
 * serves one job at a time for as long as its table holds something (a
 * job says when it holds nothing more: pa_kept_files_done()), so that a
 * process whose calls have ended has no thread of ours left.  A fork()ed
 * child has no such thread, nor the table.
 */
struct job {
	int (*fn)(void *arg);
	void *arg;
	int ret;
	bool done;
	bool ended;			/* the thread ends after it: join it */
	pthread_t thread;
};

static struct {
	pthread_mutex_t m;
	pthread_cond_t cv;
	int state;			/* 0 not started, 1 serving, or -errno */
	struct job *job;		/* posted, not done */
	bool ending;			/* the job said the table holds nothing */
} kept = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, NULL, false };

static pthread_once_t kept_once = PTHREAD_ONCE_INIT;

static void kept_reset_in_child(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

	kept.m = m;
	kept.cv = cv;
	kept.state = 0;
	kept.job = NULL;
}

static void kept_register_atfork(void)
{
	pthread_atfork(NULL, NULL, kept_reset_in_child);
}

static void *keep(void *unused)
{
	int none, ret = own_table(-1, &none);

	(void)unused;
	prctl(PR_SET_NAME, PA_KEPT_THREAD_NAME);
	pthread_mutex_lock(&kept.m);
	kept.state = ret ? ret : 1;
	pthread_cond_broadcast(&kept.cv);
	while (!ret) {			/* 1 once the table holds nothing */
		struct job *j = kept.job;

		if (!j) {
			pthread_cond_wait(&kept.cv, &kept.m);
			continue;
		}
		j->ret = j->fn(j->arg);
		j->done = true;
		kept.job = NULL;
		if (kept.ending) {
			kept.ending = false;
			kept.state = 0;		/* the next job starts a thread */
			j->ended = true;
			j->thread = pthread_self();
			ret = 1;
		}
		pthread_cond_broadcast(&kept.cv);
	}
	pthread_mutex_unlock(&kept.m);
	return NULL;
}

void pa_kept_files_done(void)
{
	kept.ending = true;		/* under kept.m: called by a job */
}

/* Start the thread once; caller holds kept.m.  1 serving, 2 starting for
 * another caller (wait on kept.cv), or -errno. */
static int kept_start_locked(void)
{
	pthread_t t;
	int ret;

	if (kept.state)
		return kept.state;
	ret = pa_thread_start(&t, keep, NULL);
	if (ret)
		return ret;		/* tried again by the next job */
	kept.state = 2;			/* starting: its first answer comes */
	while (kept.state == 2)
		pthread_cond_wait(&kept.cv, &kept.m);
	if (kept.state < 0) {		/* no table of its own: it ended */
		pthread_mutex_unlock(&kept.m);
		pthread_join(t, NULL);
		pthread_mutex_lock(&kept.m);
	}
	return kept.state;
}

int pa_kept_files_run(int (*fn)(void *arg), void *arg)
{
	struct job j = { .fn = fn, .arg = arg };
	int ret;

	pthread_once(&kept_once, kept_register_atfork);
	pthread_mutex_lock(&kept.m);
	/* The thread may be starting for another caller, or end while we
	 * wait for another job: ask again. */
	while ((ret = kept_start_locked()) == 2 || (ret == 1 && kept.job))
		pthread_cond_wait(&kept.cv, &kept.m);
	if (ret == 1) {
		kept.job = &j;
		pthread_cond_broadcast(&kept.cv);
		while (!j.done)
			pthread_cond_wait(&kept.cv, &kept.m);
		ret = j.ret;
	}
	pthread_mutex_unlock(&kept.m);
	/* Gone before we return: a process whose calls ended has no thread
	 * of ours when it forks. */
	if (j.ended)
		pthread_join(j.thread, NULL);
	return ret;
}
