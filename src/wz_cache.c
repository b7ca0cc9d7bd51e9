/* SPDX-License-Identifier: MIT */
/*
 * FALLOC_FL_WRITE_ZEROES verdicts learnt the hard way: a (device, filesystem)
 * pair that answered EOPNOTSUPP is not asked again.  A small fixed table is
 * enough: a process touches few filesystems, and forgetting one only costs
 * one more failed syscall.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine.h"

#define WZ_SLOTS 32

static struct {
	uint64_t dev, fs_type;
} wz_refused[WZ_SLOTS];
static unsigned int wz_next;
static pthread_mutex_t wz_lock = PTHREAD_MUTEX_INITIALIZER;

bool pa_wz_refused(uint64_t dev, uint64_t fs_type)
{
	bool found = false;

	pthread_mutex_lock(&wz_lock);
	for (unsigned int i = 0; i < WZ_SLOTS && !found; i++)
		found = wz_refused[i].dev == dev && wz_refused[i].fs_type == fs_type &&
			(dev || fs_type);
	pthread_mutex_unlock(&wz_lock);
	return found;
}

void pa_wz_set_refused(uint64_t dev, uint64_t fs_type)
{
	if (pa_wz_refused(dev, fs_type))
		return;
	pthread_mutex_lock(&wz_lock);
	wz_refused[wz_next % WZ_SLOTS].dev = dev;
	wz_refused[wz_next % WZ_SLOTS].fs_type = fs_type;
	wz_next++;
	pthread_mutex_unlock(&wz_lock);
}
