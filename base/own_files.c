/* SPDX-License-Identifier: MIT */
/*
 * Work where the library's descriptors live.
 *
 * POSIX drops every record lock a process holds on a file when the
 * process closes any descriptor of that file: the kernel removes the locks
 * whose owner is the file table the close() goes through.  The library
 * must open the caller's file again (O_DIRECT, no O_APPEND, a description
 * to order calls between processes) and close what it opened; through the
 * process's table, each close would take the caller's fcntl() locks with
 * it (SQLite's, InnoDB's).  So a call runs on a thread of the library's
 * own table (base/workers.c), which receives the caller's descriptor: its
 * closes release nothing of the caller's, and a fork() of the application
 * mid-call inherits none of them.  Where that table cannot be reached
 * from the caller's thread, the call gets a thread of its own, with a
 * table copied from the process's up to the caller's descriptor.
 *
 * The application's code the call runs (progress callbacks, log hooks)
 * needs the application's descriptors and thread: it is sent back to the
 * waiting thread as a callout.  The two threads meet on one word, a futex:
 * every hand-over is one store and one wake, and the worker's last touch
 * of the waiter's frame is the store that says it is done.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/own_files.h"

/* Where the work is: pa_own_run.state.  A negative value: a thread of
 * its own could not make its table (-errno). */
enum {
	QUEUED,		/* sent to the workers, not yet taken on */
	TABLE,		/* a thread of its own is making its table */
	NO_SERVER,	/* nobody serves callouts yet: the work waits */
	RUNNING,
	CALLOUT,	/* out_fn waits for the caller's thread */
	DONE,		/* ret is final; the frame is the waiter's again */
};

static __thread struct pa_own_run *self;

static void wait_while(_Atomic int *word, int v)
{
	while (atomic_load_explicit(word, memory_order_acquire) == v)
		syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

/* The wake needs the address only: it may be a frame its waiter has left
 * already (a private futex is never read by a wake). */
static void wake(_Atomic int *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void set(_Atomic int *word, int v)
{
	atomic_store_explicit(word, v, memory_order_release);
	wake(word);
}

/* @fn on @fd, ours, once someone serves its callouts: posted. */
static void work(struct pa_own_run *r, int fd)
{
	int ret = fd;

	wait_while(&r->state, NO_SERVER);
	if (fd >= 0 || r->fd < 0) {	/* else sent, not received (base/workers.h) */
		self = r;
		ret = r->fn(fd, r->arg);
		self = NULL;
	}
	r->ret = ret;
}

/* A worker could not take on the caller's credentials: @ret, and the
 * work goes to a thread of the caller's own. */
#define NOT_HERE INT_MIN

/* On a kept worker, with the caller's thread's credentials for the work:
 * what @fn opened it closed; the received copy too, before the caller
 * goes on. */
static void run_pooled(struct pa_work_item *w, int fd)
{
	struct pa_own_run *r = (struct pa_own_run *)w;
	struct pa_creds saved;
	int took = pa_creds_take(&r->creds, &saved);

	if (took >= 0) {
		/* Taken on: a starter waits for that, a waiter for more. */
		if (r->go == NO_SERVER)
			set(&r->state, r->go);
		else
			atomic_store_explicit(&r->state, r->go, memory_order_release);
		work(r, fd);
	} else {
		r->ret = NOT_HERE;
	}
	if (fd >= 0)
		close(fd);
	if (took > 0)
		pa_creds_restore(&saved);
	set(&r->state, DONE);
}

/* A thread's own table holding @fd alone (pa_own_table()), the caller's
 * file then *@own; under ThreadSanitizer a duplicate in the process's. */
static int thread_table(int fd, int *own)
{
	*own = fd;
	if (!PA_SHARED_TABLE)
		return pa_own_table(fd);
	*own = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : -1;
	return fd >= 0 && *own < 0 ? -errno : 0;
}

static void *run_alone(void *arg)
{
	struct pa_own_run *r = arg;
	int fd, ret = thread_table(r->fd, &fd);

	set(&r->state, ret ? ret : r->go);
	if (ret)
		return NULL;
	/* Its kept descriptions (pa_workers_kept_run()) outlive this call's
	 * every use of them. */
	pa_workers_hold(1);
	work(r, fd);
	/* Every last close here, before the caller goes on. */
	if (PA_SHARED_TABLE && fd >= 0)
		close(fd);
	else if (!PA_SHARED_TABLE)
		(void)close_range(0, ~0U, 0);
	pa_workers_hold(-1);
	set(&r->state, DONE);
	return NULL;
}

static int start_alone(struct pa_own_run *r)
{
	int ret;

	atomic_store(&r->state, TABLE);
	ret = pa_thread_start(&r->thread, run_alone, r);
	if (ret)
		return ret;
	wait_while(&r->state, TABLE);
	ret = atomic_load_explicit(&r->state, memory_order_acquire);
	if (ret < 0) {
		pthread_join(r->thread, NULL);
		return ret;
	}
	return 0;
}

/* @waiter: this thread waits (it serves the callouts from the start), or
 * false: pa_own_files_wait() will say who does. */
static int start(struct pa_own_run *r, int fd, int (*fn)(int fd, void *arg), void *arg,
		 bool waiter)
{
	int ret;

	*r = (struct pa_own_run){ .item.run = run_pooled, .fd = fd, .fn = fn, .arg = arg,
				  .caller = pthread_self(), .go = waiter ? RUNNING : NO_SERVER };
	atomic_init(&r->state, QUEUED);
	ret = pa_creds_read(&r->creds);
	if (!ret)
		ret = pa_workers_submit(&r->item, fd);
	r->pooled = !ret;
	/* Without a waiter @fd must be ours before this returns. */
	if (r->pooled && !waiter) {
		wait_while(&r->state, QUEUED);
		r->pooled = atomic_load_explicit(&r->state, memory_order_acquire) != DONE;
	}
	/* -EBADF: @fd is not a descriptor; anything else, not the pool. */
	if (!r->pooled && ret != -EBADF)
		ret = start_alone(r);
	return ret;
}

int pa_own_files_start(struct pa_own_run *r, int fd, int (*fn)(int fd, void *arg), void *arg)
{
	return start(r, fd, fn, arg, false);
}

int pa_own_files_wait(struct pa_own_run *r)
{
	int v;

	/* From NO_SERVER only: a thread that started the work as its waiter
	 * may be serving a callout already (the work reads @caller). */
	if (r->go == NO_SERVER) {
		r->caller = pthread_self();
		v = NO_SERVER;
		if (atomic_compare_exchange_strong(&r->state, &v, RUNNING))
			wake(&r->state);
	}
	for (;;) {
		v = atomic_load_explicit(&r->state, memory_order_acquire);
		if (v == DONE && r->pooled && r->ret == NOT_HERE) {
			/* No worker could be this thread: a thread of its own,
			 * @fd being still open (a waiter's). */
			r->pooled = false;
			if ((v = start_alone(r)))
				return v;
		} else if (v == DONE) {
			break;
		} else if (v == CALLOUT) {
			r->out_fn(r->out_arg);
			set(&r->state, RUNNING);
		} else {
			wait_while(&r->state, v);
		}
	}
	if (!r->pooled)
		pthread_join(r->thread, NULL);
	return r->ret;
}

int pa_own_files_run(int fd, int (*fn)(int fd, void *arg), void *arg)
{
	struct pa_own_run r;
	int ret, cancel;

	if (self)
		return fn(fd, arg);
	/* The work uses this frame until it ends: no cancellation may
	 * unwind it (the waits below are cancellation points). */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	ret = start(&r, fd, fn, arg, true);
	if (!ret)
		ret = pa_own_files_wait(&r);
	pthread_setcancelstate(cancel, NULL);
	return ret;
}

void pa_callout(void (*fn)(void *arg), void *arg)
{
	struct pa_own_run *r = self;

	if (!r) {
		fn(arg);
		return;
	}
	r->out_fn = fn;
	r->out_arg = arg;
	set(&r->state, CALLOUT);
	wait_while(&r->state, CALLOUT);
}

pthread_t pa_caller_thread(void)
{
	return self ? self->caller : pthread_self();
}
