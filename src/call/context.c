/* SPDX-License-Identifier: MIT */
/* Contexts: creation, references, flush, release and the log hook (kmod_new()'s shape). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

#include "base/internal.h"
#include "src/call/context.h"

static struct prealloc_ctx default_ctx = {
	.refs = 1,
	.sysfs = PA_SYSFS_ROOT_INIT,
	.caps = PA_CAPS_CACHE_INIT(&default_ctx.sysfs),
	.wz = PA_WZ_CACHE_INIT,
	.log = PA_LOG_INIT,
};

struct prealloc_ctx *pa_ctx(struct prealloc_ctx *ctx)
{
	return ctx ? ctx : &default_ctx;
}

const char *pa_ctx_sysfs(struct prealloc_ctx *ctx)
{
	return pa_sysfs_root_path(&pa_ctx(ctx)->sysfs);
}

int pa_wz_answer(struct prealloc_ctx *ctx, uint64_t dev, uint64_t fs_type)
{
	return pa_wz_cache_get(&pa_ctx(ctx)->wz, dev, fs_type);
}

void pa_wz_remember(struct prealloc_ctx *ctx, uint64_t dev, uint64_t fs_type, int answer)
{
	char kernel[sizeof(((struct utsname *)0)->release)];

	if (!pa_wz_cache_set(&pa_ctx(ctx)->wz, dev, fs_type, answer))
		return;
	pa_kernel_release(kernel, sizeof(kernel));
	pa_log_to(&pa_ctx(ctx)->log, LOG_DEBUG,
		  "write-zeroes %s on device %u:%u (filesystem 0x%llx, Linux %s): "
		  "not asked there again until prealloc_ctx_flush()\n",
		  answer == PREALLOC_YES ? "works" : "refused", major((dev_t)dev),
		  minor((dev_t)dev), (unsigned long long)fs_type, kernel);
}

void pa_kernel_release(char *buf, size_t len)
{
	struct utsname u;

	snprintf(buf, len, "%s", uname(&u) == 0 ? u.release : "(unknown release)");
}

#ifdef PA_TEST_HOOKS
int pa_caps_get(dev_t dev, const struct pa_caps **ret)
{
	pa_caps_cache_revalidate(&default_ctx.caps);
	return pa_caps_cache_get(&default_ctx.caps, dev, ret);
}

void pa_caps_invalidate(dev_t dev)
{
	pa_caps_cache_invalidate(&default_ctx.caps, dev);
}
#endif

PA_EXPORT int prealloc_ctx_new(const char *sysfs_root, unsigned int flags,
			       struct prealloc_ctx **ret)
{
	struct prealloc_ctx *ctx;

	if (!ret || flags || (sysfs_root && !*sysfs_root))
		return -EINVAL;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	if (pa_sysfs_root_init(&ctx->sysfs, sysfs_root) < 0) {
		free(ctx);
		return -ENOMEM;
	}
	pa_caps_cache_init(&ctx->caps, &ctx->sysfs);
	ctx->wz = (struct pa_wz_cache)PA_WZ_CACHE_INIT;
	ctx->log = (struct pa_log)PA_LOG_INIT;
	ctx->refs = 1;
	*ret = ctx;
	return 0;
}

PA_EXPORT struct prealloc_ctx *prealloc_ctx_ref(struct prealloc_ctx *ctx)
{
	if (ctx)
		__atomic_add_fetch(&ctx->refs, 1, __ATOMIC_RELAXED);
	return ctx;
}

PA_EXPORT struct prealloc_ctx *prealloc_ctx_unref(struct prealloc_ctx *ctx)
{
	if (!ctx)
		return NULL;
	if (__atomic_sub_fetch(&ctx->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return ctx;
	pa_caps_cache_fini(&ctx->caps);
	pthread_mutex_destroy(&ctx->wz.lock);
	pthread_rwlock_destroy(&ctx->log.lock);
	pa_sysfs_root_fini(&ctx->sysfs);
	free(ctx);
	return NULL;
}

PA_EXPORT int prealloc_ctx_flush(struct prealloc_ctx *ctx)
{
	ctx = pa_ctx(ctx);
	pa_caps_cache_flush(&ctx->caps);
	pa_wz_cache_flush(&ctx->wz);
	return 0;
}

PA_EXPORT int prealloc_ctx_set_log_fn(struct prealloc_ctx *ctx, prealloc_log_fn fn, void *data)
{
	/* The default context is shared by every user in the process: no hook. */
	if (!ctx)
		return -EINVAL;
	pa_log_set_fn(&ctx->log, fn, data);
	return 0;
}

PA_EXPORT int prealloc_ctx_set_log_priority(struct prealloc_ctx *ctx, int priority)
{
	if (!ctx || priority < LOG_EMERG || priority > LOG_DEBUG)
		return -EINVAL;
	pa_log_set_priority(&ctx->log, priority);
	return 0;
}
