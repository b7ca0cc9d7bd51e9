/* SPDX-License-Identifier: MIT */
/*
 * libprealloc's log hook runs in whatever thread does the work, the pool's
 * own included, and ereport() is for the backend's thread only.  So the
 * hook formats each line into a small queue and the worker's loop reports
 * it.  A full queue drops lines and says how many.
 */
#include "pg_prealloc.h"

#include <pthread.h>
#include <stdio.h>
#include <syslog.h>

#define PGP_LOGQ_LEN 32
#define PGP_LOGQ_LINE 256

static struct {
	pthread_mutex_t lock;
	unsigned int head, count, dropped;
	int prio[PGP_LOGQ_LEN];
	char line[PGP_LOGQ_LEN][PGP_LOGQ_LINE];
} q = { .lock = PTHREAD_MUTEX_INITIALIZER };

void pgp_logq_hook(void *data, int priority, const char *file, int line, const char *fn,
		   const char *format, va_list args)
{
	unsigned int slot;

	(void)data;
	(void)file;
	(void)line;
	(void)fn;
	pthread_mutex_lock(&q.lock);
	if (q.count == PGP_LOGQ_LEN) {
		q.dropped++;
	} else {
		slot = (q.head + q.count++) % PGP_LOGQ_LEN;
		q.prio[slot] = priority;
		vsnprintf(q.line[slot], PGP_LOGQ_LINE, format, args);
	}
	pthread_mutex_unlock(&q.lock);
}

/* syslog priorities to ereport levels: warnings and worse are WARNING
 * (nothing of the library's is an ERROR for PostgreSQL), notices LOG, the
 * rest DEBUG1. */
static int level_of(int priority)
{
	if (priority <= LOG_WARNING)
		return WARNING;
	return priority == LOG_NOTICE ? LOG : DEBUG1;
}

void pgp_logq_drain(void)
{
	char line[PGP_LOGQ_LINE];
	unsigned int dropped;
	size_t len;
	int prio;

	for (;;) {
		pthread_mutex_lock(&q.lock);
		if (!q.count) {
			pthread_mutex_unlock(&q.lock);
			break;
		}
		prio = q.prio[q.head];
		memcpy(line, q.line[q.head], sizeof(line));
		q.head = (q.head + 1) % PGP_LOGQ_LEN;
		q.count--;
		pthread_mutex_unlock(&q.lock);
		len = strlen(line);
		if (len && line[len - 1] == '\n')
			line[len - 1] = '\0';
		ereport(level_of(prio), (errmsg("pg_prealloc: libprealloc: %s", line)));
	}
	pthread_mutex_lock(&q.lock);
	dropped = q.dropped;
	q.dropped = 0;
	pthread_mutex_unlock(&q.lock);
	if (dropped)
		ereport(LOG, (errmsg("pg_prealloc: %u library messages dropped", dropped)));
}
