/* SPDX-License-Identifier: MIT */
/*
 * The kernel's answers to FALLOC_FL_WRITE_ZEROES per filesystem instance
 * (device number and filesystem type; 0 for a block device), learnt by
 * asking (src/call/wz_cache.c).  The functions take the cache, not its context.
 */
#ifndef PREALLOC_WZ_CACHE_H
#define PREALLOC_WZ_CACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define PA_WZ_SLOTS 32

struct pa_wz_cache {
	pthread_mutex_t lock;
	struct {
		uint64_t dev, fs_type;
		int answer;		/* enum prealloc_answer: PREALLOC_YES worked, PREALLOC_NO refused */
	} slot[PA_WZ_SLOTS];
	unsigned int next;
};

#define PA_WZ_CACHE_INIT { .lock = PTHREAD_MUTEX_INITIALIZER }

/* What (dev, fs_type) answered: PREALLOC_YES, PREALLOC_NO, or PREALLOC_UNKNOWN (not asked). */
int pa_wz_cache_get(struct pa_wz_cache *wz, uint64_t dev, uint64_t fs_type);
/* Remember @answer (PREALLOC_YES or PREALLOC_NO) for (dev, fs_type); false if it was
 * already the one remembered. */
bool pa_wz_cache_set(struct pa_wz_cache *wz, uint64_t dev, uint64_t fs_type, int answer);
void pa_wz_cache_flush(struct pa_wz_cache *wz);

#endif
