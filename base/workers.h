/* SPDX-License-Identifier: MIT */
/*
 * The library's file table and the threads that share it (base/workers.c):
 * kept from call to call, so that a call starts no thread and copies no
 * table of the caller's.
 */
#ifndef PREALLOC_WORKERS_H
#define PREALLOC_WORKERS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * ThreadSanitizer keeps one table of descriptors per process: descriptors
 * of the same number in two threads' own tables look to it like one
 * descriptor raced on.  Under it the library's threads keep the process's
 * table (what it checks is the threads, not the caller's locks).
 */
#if defined(__SANITIZE_THREAD__)
#define PA_SHARED_TABLE 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PA_SHARED_TABLE 1
#endif
#endif
#ifndef PA_SHARED_TABLE
#define PA_SHARED_TABLE 0
#endif

/*
 * Give this thread a file table of its own holding the process's
 * descriptor @keep alone, at the same number (-1: empty), made with
 * close_range(CLOSE_RANGE_UNSHARE) (Linux 5.9; allowed by container
 * profiles that refuse unshare()), else unshare(CLONE_FILES).  What is
 * copied is [0, @keep]: the cost grows with @keep.  0 or -errno.
 */
int pa_own_table(int keep);

/* A piece of work a worker runs: embedded first in the submitter's own
 * struct.  @run gets the submitted descriptor as a descriptor of the
 * library's table (the worker closes nothing of it), -1 when none was
 * submitted, or -errno when one was and could not be received. */
struct pa_work_item {
	void (*run)(struct pa_work_item *w, int fd);
};

/*
 * Hand @w to a worker, with the caller's descriptor @fd (-1: none) sent
 * over the process's socket to the library's table (SCM_RIGHTS: the same
 * open file description, so the caller may close @fd once this returns).
 * A worker is set aside for it first, started if none is free.  0, or
 * -errno and nothing was sent: the pool is not to be had from this thread
 * (no socket, one not in this thread's table, no thread to be had), and
 * the caller runs @w some other way.
 */
int pa_workers_submit(struct pa_work_item *w, int fd);

/*
 * What a worker keeps from one call to the next (src/exec/: its zero
 * buffer, its io_uring ring): a slot each, its @free called when the
 * worker ends.  On any other thread there is none: keep nothing there.
 */
enum pa_worker_slot {
	PA_SLOT_ZEROS,
	PA_SLOT_RING,
	PA_SLOT_COUNT,
};

struct pa_kept {
	void *p;
	void (*free)(void *p);
};

/* This worker's slot @s, or NULL on a thread that is not a worker. */
struct pa_kept *pa_worker_kept(enum pa_worker_slot s);

/*
 * Run @fn(@arg) on a thread of the library's table, one such job at a
 * time: for descriptions that must outlive a call (and be closed where no
 * lock of the caller's can go with them).  On such a thread it simply
 * runs there; from any other, the keeper runs it.  @fn's result, or
 * -errno when the table cannot be had.
 */
int pa_workers_kept_run(int (*fn)(void *arg), void *arg);

/* A call runs on a thread of its own that may use pa_workers_kept_run():
 * the table must outlive it (+1 when it starts, -1 when it ends). */
void pa_workers_hold(int delta);

#ifdef PA_TEST_HOOKS
/* Test builds: how long a worker, then the keeper, waits unused before it
 * ends (from the next table the keeper makes). */
void pa_workers_set_idle_ns(uint64_t ns);
#endif

/* The keeper thread's name (/proc/PID/task/TID/comm) while the table holds
 * files for calls, and a second after: another process tells by it that
 * the flock() it meets is a call's, which ends.  Not longer: an
 * application's flock() in a process that called the library a while ago
 * is not worth waiting for. */
#define PA_KEPT_THREAD_NAME "prealloc-keep"
#define PA_KEEPER_THREAD_NAME "prealloc-table"	/* the rest of its life */

/* A kept job (pa_workers_kept_run()): the table holds files for calls
 * (@holding), or no longer.  Names the keeper, and names it back a second
 * after the last file is let go: the gap between one call and the next
 * would otherwise show a process busy with calls as an application
 * holding its own flock(). */
void pa_workers_mark(bool holding);

#endif
