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

#include "base/creds.h"
#include "base/workers.h"

/* One piece of work on a thread of the library's table, and its callouts. */
struct pa_own_run {
	struct pa_work_item item;	/* first: what a worker runs */
	int fd;				/* the caller's descriptor, or -1 */
	int (*fn)(int fd, void *arg);
	void *arg;
	bool pooled;			/* a kept worker runs it, else @thread */
	pthread_t thread;		/* a thread of its own, with a table of its own */
	pthread_t caller;		/* the thread that serves the callouts */
	void (*out_fn)(void *);		/* a callout waiting for the caller */
	void *out_arg;
	struct pa_creds creds;		/* the caller's thread's, which the work takes on */
	int ret;			/* @fn's result once done */
	int go;				/* where the work starts: a server or none yet */
	_Atomic int state;		/* base/own_files.c: where the work is (a futex) */
};

/*
 * Start @fn(@fd', @arg) where the library's descriptors live: on a kept
 * worker (base/workers.h) that has taken on this thread's credentials,
 * @fd' the caller's descriptor @fd received there; where none can be had
 * from this thread, or none can take on its credentials, on a thread of
 * its own (every signal blocked, this thread's credentials) whose table
 * holds @fd alone, at its number.
 * Returns once @fd' is ours: from then on the caller may close @fd.
 * @fd' and whatever @fn opened are closed before @fn's result is posted.
 * Callouts @fn makes (pa_callout()) run on the thread that calls
 * pa_own_files_wait(), which must follow a 0.  0, or -errno (no thread,
 * or the kernel refuses both close_range(CLOSE_RANGE_UNSHARE) and
 * unshare(CLONE_FILES)): nothing started.
 */
int pa_own_files_start(struct pa_own_run *r, int fd, int (*fn)(int fd, void *arg), void *arg);

/* Serve @r's callouts on this thread until @fn returns; its result. */
int pa_own_files_wait(struct pa_own_run *r);

/*
 * Start, then wait, with this thread's cancellation disabled (the work
 * uses this frame until it ends): @fn's result, or why it could not
 * start.  From a thread that is already the library's own (inside @fn),
 * @fn(@fd, @arg) simply runs there: @fd is then already ours.
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

#endif
