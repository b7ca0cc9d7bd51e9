/* SPDX-License-Identifier: MIT */
/* Contexts: creation, references, flush and release (kmod_new()'s shape). */
#include <errno.h>
#include <stdlib.h>

#include "context.h"
#include "internal.h"

static struct prealloc_ctx default_ctx = {
	.refs = 1,
	.caps = PA_CAPS_CACHE_INIT,
	.wz = PA_WZ_CACHE_INIT,
};

struct prealloc_ctx *pa_ctx(struct prealloc_ctx *ctx)
{
	return ctx ? ctx : &default_ctx;
}

int pa_caps_get(dev_t dev, const struct pa_caps **ret)
{
	return pa_caps_cache_get(&default_ctx.caps, dev, ret);
}

void pa_caps_invalidate(dev_t dev)
{
	pa_caps_cache_invalidate(&default_ctx.caps, dev);
}

PA_EXPORT int prealloc_ctx_new(const char *sysfs_root, unsigned int flags,
			       struct prealloc_ctx **ret)
{
	struct prealloc_ctx *ctx;
	int r;

	if (!ret || flags || (sysfs_root && !*sysfs_root))
		return -EINVAL;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	r = pa_caps_cache_init(&ctx->caps, sysfs_root);
	if (r < 0) {
		free(ctx);
		return r;
	}
	ctx->wz = (struct pa_wz_cache)PA_WZ_CACHE_INIT;
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
