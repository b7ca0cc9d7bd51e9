/* SPDX-License-Identifier: MIT */
/*
 * Descriptors of the library's own in a file table of its own
 * (base/own_files.c): what lets it open and close the caller's file
 * without dropping the caller's record locks.
 */
#ifndef PREALLOC_OWN_FILES_H
#define PREALLOC_OWN_FILES_H

#include <pthread.h>
#include <stdbool.h>

/* One piece of work on a thread of the library's own, and its callouts. */
struct pa_own_run {
	int fd;				/* the caller's file in our table */
	int (*fn)(int fd, void *arg);
	void *arg;
	pthread_t thread;
	pthread_t caller;		/* the thread that serves the callouts */
	pthread_mutex_t m;
	pthread_cond_t cv;
	void (*out_fn)(void *);		/* a callout waiting for the caller */
	void *out_arg;
	int state;			/* 1 starting, 0 table made, or -errno */
	bool waiting;			/* pa_own_files_wait() serves callouts */
	int ret;			/* @fn's result once @done */
	bool done;
};

/*
 * Start @fn(@fd', @arg) on a library thread (every signal blocked) whose
 * file table holds the caller's descriptor @fd alone, as @fd', and return
 * once it does: from then on the caller may close @fd.  The thread closes
 * every descriptor left in its table, @fd' included, before @fn's result
 * is posted.  Callouts it makes (pa_callout()) run on the thread that calls
 * pa_own_files_wait(), which must follow a 0.  0, or -errno (no thread, or
 * the kernel refuses both close_range(CLOSE_RANGE_UNSHARE) and
 * unshare(CLONE_FILES)): nothing started.
 */
int pa_own_files_start(struct pa_own_run *r, int fd, int (*fn)(int fd, void *arg), void *arg);

/* Serve @r's callouts on this thread until @fn returns; its result. */
int pa_own_files_wait(struct pa_own_run *r);

/*
 * Start, then wait: @fn's result, or why it could not start.  From a
 * thread that is already the library's own (inside @fn), @fn(@fd, @arg)
 * simply runs there: @fd is then already a descriptor of its table.
 */
int pa_own_files_run(int fd, int (*fn)(int fd, void *arg), void *arg);

/*
 * Run @fn(@arg) on the application's thread: the one serving this
 * thread's callouts, or this one when it is not the library's.  Progress
 * callbacks and log hooks are the application's code: they run where its
 * descriptors, its thread-local state and its signal handling are.
 */
void pa_callout(void (*fn)(void *arg), void *arg);

/* The application's thread on whose behalf this one runs (itself if it is
 * the application's): the owner of a call's in-process locks. */
pthread_t pa_caller_thread(void);

/*
 * Run @fn(@arg) on the process's thread whose file table outlives calls
 * (empty at first, then whatever jobs leave in it): for descriptions that
 * must stay open between calls, and be closed where no lock of the
 * caller's can go with them.  One job at a time; a job must not run
 * another.  @fn's result, or -errno when the thread cannot be had.
 */
int pa_kept_files_run(int (*fn)(void *arg), void *arg);

/* The name of that thread (/proc/PID/task/TID/comm): another process
 * tells by it that this one holds files there. */
#define PA_KEPT_THREAD_NAME "prealloc-keep"

/* Called by a job whose table now holds nothing: the thread ends after it
 * (the next job starts another), so none of ours outlives the calls. */
void pa_kept_files_done(void);

#endif
