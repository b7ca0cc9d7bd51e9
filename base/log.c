/* SPDX-License-Identifier: MIT */
/* The caller's log hook (base/log.h). */
#include <stdarg.h>

#include "base/own_files.h"
#include "base/log.h"

/* One message, handed to the hook on the application's thread. */
struct message {
	struct pa_log *l;
	int priority;
	const char *file, *func, *format;
	int line;
	va_list *ap;	/* the emitting thread waits in pa_log_emit() */
};

static void deliver(void *arg)
{
	struct message *m = arg;
	va_list ap;

	pthread_rwlock_rdlock(&m->l->lock);
	if (m->l->fn) {
		va_copy(ap, *m->ap);
		m->l->fn(m->l->data, m->priority, m->file, m->line, m->func, m->format, ap);
		va_end(ap);
	}
	pthread_rwlock_unlock(&m->l->lock);
}

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
	struct message m = { .l = l, .priority = priority, .file = file, .func = func,
			     .format = format, .line = line };
	va_list ap;

	if (priority > __atomic_load_n(&l->priority, __ATOMIC_RELAXED))
		return;
	va_start(ap, format);
	m.ap = &ap;
	pa_callout(deliver, &m);
	va_end(ap);
}
