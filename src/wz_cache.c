/* SPDX-License-Identifier: MIT */
/*
 * FALLOC_FL_WRITE_ZEROES verdicts learnt the hard way: a (device, filesystem)
 * pair that answered EOPNOTSUPP is not asked again.  A small fixed table per
 * context is enough: a process touches few filesystems, and forgetting one
 * only costs one more failed syscall.
 */
#include <string.h>

#include "wz_cache.h"

static bool has_locked(const struct pa_wz_cache *wz, uint64_t dev, uint64_t fs_type)
{
	if (!dev && !fs_type)		/* an empty slot's key */
		return false;
	for (unsigned int i = 0; i < PA_WZ_SLOTS; i++)
		if (wz->slot[i].dev == dev && wz->slot[i].fs_type == fs_type)
			return true;
	return false;
}

bool pa_wz_cache_has(struct pa_wz_cache *wz, uint64_t dev, uint64_t fs_type)
{
	bool found;

	pthread_mutex_lock(&wz->lock);
	found = has_locked(wz, dev, fs_type);
	pthread_mutex_unlock(&wz->lock);
	return found;
}

bool pa_wz_cache_add(struct pa_wz_cache *wz, uint64_t dev, uint64_t fs_type)
{
	bool added;

	pthread_mutex_lock(&wz->lock);
	added = !has_locked(wz, dev, fs_type);
	if (added) {
		wz->slot[wz->next % PA_WZ_SLOTS].dev = dev;
		wz->slot[wz->next % PA_WZ_SLOTS].fs_type = fs_type;
		wz->next++;
	}
	pthread_mutex_unlock(&wz->lock);
	return added;
}

void pa_wz_cache_flush(struct pa_wz_cache *wz)
{
	pthread_mutex_lock(&wz->lock);
	memset(wz->slot, 0, sizeof(wz->slot));
	wz->next = 0;
	pthread_mutex_unlock(&wz->lock);
}
