/* SPDX-License-Identifier: MIT */
/*
 * FALLOC_FL_WRITE_ZEROES verdicts learnt the hard way: a (device, filesystem)
 * pair that answered EOPNOTSUPP is not asked again.  A small fixed table per
 * context is enough: a process touches few filesystems, and forgetting one
 * only costs one more failed syscall.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "context.h"
#include "engine.h"

bool pa_wz_refused(struct prealloc_ctx *ctx, uint64_t dev, uint64_t fs_type)
{
	struct pa_wz_cache *wz = &pa_ctx(ctx)->wz;
	bool found = false;

	pthread_mutex_lock(&wz->lock);
	for (unsigned int i = 0; i < PA_WZ_SLOTS && !found; i++)
		found = wz->slot[i].dev == dev && wz->slot[i].fs_type == fs_type &&
			(dev || fs_type);
	pthread_mutex_unlock(&wz->lock);
	return found;
}

void pa_wz_set_refused(struct prealloc_ctx *ctx, uint64_t dev, uint64_t fs_type)
{
	struct pa_wz_cache *wz = &pa_ctx(ctx)->wz;

	if (pa_wz_refused(ctx, dev, fs_type))
		return;
	pthread_mutex_lock(&wz->lock);
	wz->slot[wz->next % PA_WZ_SLOTS].dev = dev;
	wz->slot[wz->next % PA_WZ_SLOTS].fs_type = fs_type;
	wz->next++;
	pthread_mutex_unlock(&wz->lock);
}

void pa_wz_cache_flush(struct pa_wz_cache *wz)
{
	pthread_mutex_lock(&wz->lock);
	memset(wz->slot, 0, sizeof(wz->slot));
	wz->next = 0;
	pthread_mutex_unlock(&wz->lock);
}
