/* SPDX-License-Identifier: MIT */
/* Library-owned threads (the async worker, the pool worker). */
#include <pthread.h>
#include <signal.h>

#include "base/internal.h"

int pa_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int ret;

	/* The thread inherits this mask, so no signal reaches it even before
	 * its first instruction: the caller's handlers never run on it and
	 * its system calls are not interrupted. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -ret;
}
