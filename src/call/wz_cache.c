/* SPDX-License-Identifier: MIT */
/*
 * FALLOC_FL_WRITE_ZEROES answers learnt by asking: a filesystem instance
 * that took the flag or refused it is not asked again.  The kernel release
 * cannot change under a running process, so per process is per kernel.  A
 * small fixed table per context is enough: a process touches few
 * filesystems, and forgetting one only costs one more syscall.
 */
#include <string.h>

#include "probes/caps.h"
#include "src/call/wz_cache.h"

/* The slot of (dev, fs_type), or -1. */
static int find_locked(const struct pa_wz_cache *wz, uint64_t dev, uint64_t fs_type)
{
	if (!dev && !fs_type)		/* an empty slot's key */
		return -1;
	for (unsigned int i = 0; i < PA_WZ_SLOTS; i++)
		if (wz->slot[i].dev == dev && wz->slot[i].fs_type == fs_type)
			return (int)i;
	return -1;
}

int pa_wz_cache_get(struct pa_wz_cache *wz, uint64_t dev, uint64_t fs_type)
{
	int i, answer = PREALLOC_UNKNOWN;

	pthread_mutex_lock(&wz->lock);
	i = find_locked(wz, dev, fs_type);
	if (i >= 0)
		answer = wz->slot[i].answer;
	pthread_mutex_unlock(&wz->lock);
	return answer;
}

bool pa_wz_cache_set(struct pa_wz_cache *wz, uint64_t dev, uint64_t fs_type, int answer)
{
	bool changed;
	int i;

	pthread_mutex_lock(&wz->lock);
	i = find_locked(wz, dev, fs_type);
	if (i < 0) {
		i = (int)(wz->next++ % PA_WZ_SLOTS);
		wz->slot[i].dev = dev;
		wz->slot[i].fs_type = fs_type;
		wz->slot[i].answer = PREALLOC_UNKNOWN;
	}
	changed = wz->slot[i].answer != answer;
	wz->slot[i].answer = answer;
	pthread_mutex_unlock(&wz->lock);
	return changed;
}

void pa_wz_cache_flush(struct pa_wz_cache *wz)
{
	pthread_mutex_lock(&wz->lock);
	memset(wz->slot, 0, sizeof(wz->slot));
	wz->next = 0;
	pthread_mutex_unlock(&wz->lock);
}
