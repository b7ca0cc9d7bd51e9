/* SPDX-License-Identifier: MIT */
/*
 * The context: every piece of state the library keeps between calls and
 * everything it takes from the environment (the sysfs root, the capabilities
 * cache with its mount-table watch, the write-zeroes refusal memory, the
 * caller's log hook).  Calls without a context use a static default one.
 */
#ifndef PREALLOC_CONTEXT_H
#define PREALLOC_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "prealloc.h"
#include "probes/caps.h"
#include "base/sysfs_root.h"
#include "base/log.h"
#include "src/call/wz_cache.h"

struct prealloc_ctx {
	unsigned int refs;		/* the default context is never freed */
	struct pa_sysfs_root sysfs;	/* where every sysfs reader looks */
	struct pa_caps_cache caps;
	struct pa_wz_cache wz;
	struct pa_log log;
};

/* @ctx, or the default context when NULL. */
struct prealloc_ctx *pa_ctx(struct prealloc_ctx *ctx);

/* @ctx's log hook (NULL: the default context's), for what runs below the call. */
static inline struct pa_log *pa_ctx_log(struct prealloc_ctx *ctx)
{
	return &pa_ctx(ctx)->log;
}

/* Look at @ctx's mount table and sysfs root (pa_caps_cache_revalidate()):
 * once per call, on the caller's thread, before anything is looked up. */
static inline void pa_ctx_revalidate(struct prealloc_ctx *ctx)
{
	pa_caps_cache_revalidate(&pa_ctx(ctx)->caps);
}

/* The sysfs root @ctx (NULL: the default context) reads now. */
const char *pa_ctx_sysfs(struct prealloc_ctx *ctx);

/* What the kernel answered to FALLOC_FL_WRITE_ZEROES on (dev, fs_type) in
 * @ctx (NULL: the default context): PREALLOC_YES it worked, PREALLOC_NO it refused for
 * the filesystem or device, PREALLOC_UNKNOWN not asked yet; and remember an
 * answer, so later calls need not ask (over src/call/wz_cache.c). */
int pa_wz_answer(struct prealloc_ctx *ctx, uint64_t dev, uint64_t fs_type);
void pa_wz_remember(struct prealloc_ctx *ctx, uint64_t dev, uint64_t fs_type, int answer);
#ifdef PA_TEST_HOOKS
/* Test builds: pa_caps_cache_get() and pa_caps_cache_invalidate() on the
 * default context's cache. */
int pa_caps_get(dev_t dev, const struct pa_caps **ret);
void pa_caps_invalidate(dev_t dev);
#endif

/* uname(2)'s release, the kernel the answers come from. */
void pa_kernel_release(char *buf, size_t len);

#endif
