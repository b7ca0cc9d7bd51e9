/* SPDX-License-Identifier: MIT */
/*
 * (device, filesystem) pairs that refused FALLOC_FL_WRITE_ZEROES
 * (src/wz_cache.c).  The functions take the cache, not its context.
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
	} slot[PA_WZ_SLOTS];
	unsigned int next;
};

#define PA_WZ_CACHE_INIT { .lock = PTHREAD_MUTEX_INITIALIZER }

/* Has (dev, fs_type) refused? */
bool pa_wz_cache_has(struct pa_wz_cache *wz, uint64_t dev, uint64_t fs_type);
/* Remember that (dev, fs_type) refused; false if it was already known. */
bool pa_wz_cache_add(struct pa_wz_cache *wz, uint64_t dev, uint64_t fs_type);
void pa_wz_cache_flush(struct pa_wz_cache *wz);

#endif
