/* SPDX-License-Identifier: MIT */
/* The caller's log hook (src/call/log.h). */
#include <stdarg.h>

#include "src/call/log.h"

void pa_log_set_fn(struct pa_log *l, prealloc_log_fn fn, void *data)
{
	/* The write lock waits for running hooks: once this returns, the old
	 * hook is never called again and its data may be freed. */
	pthread_rwlock_wrlock(&l->lock);
	l->fn = fn;
	l->data = data;
	pthread_rwlock_unlock(&l->lock);
}

void pa_log_set_priority(struct pa_log *l, int priority)
{
	__atomic_store_n(&l->priority, priority, __ATOMIC_RELAXED);
}

void pa_log_emit(struct pa_log *l, int priority, const char *file, int line,
		 const char *func, const char *format, ...)
{
	va_list ap;

	if (priority > __atomic_load_n(&l->priority, __ATOMIC_RELAXED))
		return;
	pthread_rwlock_rdlock(&l->lock);
	if (l->fn) {
		va_start(ap, format);
		l->fn(l->data, priority, file, line, func, format, ap);
		va_end(ap);
	}
	pthread_rwlock_unlock(&l->lock);
}
