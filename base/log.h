/* SPDX-License-Identifier: MIT */
/*
 * The caller's log hook (prealloc_ctx_set_log_fn(), kmod_set_log_fn()'s
 * shape): the library never prints, it hands messages to the hook.  A
 * context holds one (src/call/context.h); what runs below the call is
 * given a pointer to it.
 */
#ifndef PREALLOC_LOG_H
#define PREALLOC_LOG_H

#include <pthread.h>
#include <syslog.h>

#include "prealloc.h"

struct pa_log {
	pthread_rwlock_t lock;	/* held for reading while the hook runs */
	prealloc_log_fn fn;	/* NULL: silent */
	void *data;
	int priority;		/* deliver messages up to this syslog priority */
};

#define PA_LOG_INIT { .lock = PTHREAD_RWLOCK_INITIALIZER, .priority = LOG_INFO }

/* Replace the hook; returns once no call of the old one is running. */
void pa_log_set_fn(struct pa_log *l, prealloc_log_fn fn, void *data);
void pa_log_set_priority(struct pa_log *l, int priority);

/* Hand one message to the hook, if there is one and @priority passes. */
__attribute__((format(printf, 6, 7)))
void pa_log_emit(struct pa_log *l, int priority, const char *file, int line,
		 const char *func, const char *format, ...);

/* Log through @l, as from here: what a layer below the context is given. */
#define pa_log_to(l, priority, ...) \
	pa_log_emit((l), (priority), __FILE__, __LINE__, __func__, __VA_ARGS__)

#endif
