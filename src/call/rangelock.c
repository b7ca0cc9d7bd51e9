/* SPDX-License-Identifier: MIT */
/*
 * Range locks between the calls of this process, whatever their context,
 * thread or async handle: one list of held ranges under one mutex.  Calls
 * are few and long (each does I/O), so a list beats anything cleverer.
 *
 * Without them, overlapping calls zero each other's pages through direct
 * and buffered writes at once (the kernel then fails to invalidate the page
 * cache and leaves -EIO in the file's writeback state, for the caller's
 * next fsync() to find), and one call's undo releases blocks another has
 * written, or cuts the size back under a neighbour that extended it.
 */
#include <errno.h>
#include <time.h>

#include "base/own_files.h"
#include "src/call/rangelock.h"

/* How often a waiting call asks its progress callback whether to go on. */
#define WAIT_POLL_NS (50 * 1000 * 1000)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t released = PTHREAD_COND_INITIALIZER;
static struct pa_range_lock *held;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* A child has only the forking thread: the other holders are gone, and the
 * mutex may have been taken by one of them mid-fork. */
static void reset_in_child(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;

	lock = m;
	released = c;
	held = NULL;
}

static void register_atfork(void)
{
	pthread_atfork(NULL, NULL, reset_in_child);
}

static bool overlaps(const struct pa_range_lock *a, const struct pa_range_lock *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->lo < b->hi && b->lo < a->hi;
}

/* The holder of a range overlapping @l, or NULL. */
static const struct pa_range_lock *conflict(const struct pa_range_lock *l)
{
	for (const struct pa_range_lock *h = held; h; h = h->next)
		if (overlaps(h, l))
			return h;
	return NULL;
}

static void wait_a_while(void)
{
	struct timespec ts = pa_ns_ts(pa_now_ns() + WAIT_POLL_NS);

	pthread_cond_clockwait(&released, &lock, CLOCK_MONOTONIC, &ts);
}

int pa_range_lock(struct pa_range_lock *l, prealloc_progress_fn fn, void *data, uint64_t total)
{
	const struct pa_range_lock *h;
	int ret = 0;

	pthread_once(&once, register_atfork);
	l->owner = pa_caller_thread();
	l->held = false;
	pthread_mutex_lock(&lock);
	while ((h = conflict(l))) {
		if (pthread_equal(h->owner, l->owner)) {
			ret = -EDEADLK;
			break;
		}
		/* The callback runs unlocked: it may take its own locks. */
		pthread_mutex_unlock(&lock);
		if (fn && fn(0, total, data))
			return -ECANCELED;
		pthread_mutex_lock(&lock);
		if (conflict(l))
			wait_a_while();
	}
	if (!ret) {
		l->next = held;
		held = l;
		l->held = true;
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

void pa_range_unlock(struct pa_range_lock *l)
{
	if (!l->held)
		return;
	pthread_mutex_lock(&lock);
	/* After fork() the child's list no longer has it: nothing to do. */
	for (struct pa_range_lock **p = &held; *p; p = &(*p)->next)
		if (*p == l) {
			*p = l->next;
			break;
		}
	l->held = false;
	pthread_cond_broadcast(&released);
	pthread_mutex_unlock(&lock);
}

