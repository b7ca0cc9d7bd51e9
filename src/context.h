/* SPDX-License-Identifier: MIT */
/*
 * The context: every piece of state the library keeps between calls (the
 * capabilities cache with its mount-table watch, and the write-zeroes
 * refusal memory).  Calls without a context use a static default one.
 */
#ifndef PREALLOC_CONTEXT_H
#define PREALLOC_CONTEXT_H

#include <pthread.h>
#include <stdint.h>

#include "caps.h"
#include "prealloc.h"

#define PA_WZ_SLOTS 32

/* (device, filesystem) pairs that refused FALLOC_FL_WRITE_ZEROES (src/wz_cache.c). */
struct pa_wz_cache {
	pthread_mutex_t lock;
	struct {
		uint64_t dev, fs_type;
	} slot[PA_WZ_SLOTS];
	unsigned int next;
};

#define PA_WZ_CACHE_INIT { .lock = PTHREAD_MUTEX_INITIALIZER }

struct prealloc_ctx {
	unsigned int refs;		/* the default context is never freed */
	struct pa_caps_cache caps;
	struct pa_wz_cache wz;
};

/* @ctx, or the default context when NULL. */
struct prealloc_ctx *pa_ctx(struct prealloc_ctx *ctx);

void pa_wz_cache_flush(struct pa_wz_cache *wz);

#endif
