/* SPDX-License-Identifier: MIT */
/*
 * The table of zeroing methods (src/exec/method.h): one row per method, what
 * it is and how it runs; its code is in its own file (src/exec/zero.c for the
 * simple ones, src/exec/method_uring.c, src/exec/method_aio.c).
 */
#include "base/internal.h"
#include "src/call/call.h"
#include "src/call/progress.h"
#include "src/exec/method.h"
#include "src/exec/method_aio.h"
#include "src/exec/method_uring.h"
#include "src/exec/zero.h"

static bool always(const struct pa_plan_input *in)
{
	(void)in;
	return true;
}

static bool files_only(const struct pa_plan_input *in)
{
	return in->target == PA_TARGET_FILE;
}

static bool write_zeroes_applies(const struct pa_plan_input *in)
{
	return pa_wz_tried(pa_plan_write_zeroes(in));
}

static bool zeroout_applies(const struct pa_plan_input *in)
{
	return in->target == PA_TARGET_BLOCKDEV && in->zeroout;
}

static int write_zeroes(struct pa_call *c, const struct pa_range *r, size_t n, uint64_t chunk)
{
	(void)n;
	return pa_zero_write_zeroes(c, r->start, r->len, chunk);
}

static int zeroout(struct pa_call *c, const struct pa_range *r, size_t n, uint64_t chunk)
{
	(void)n;
	return pa_zero_out(c, r->start, r->len, chunk);
}

static int uring(struct pa_call *c, const struct pa_range *r, size_t n, uint64_t chunk)
{
	(void)chunk;
	return pa_zero_uring(c, r, n);
}

static int aio(struct pa_call *c, const struct pa_range *r, size_t n, uint64_t chunk)
{
	(void)chunk;
	return pa_zero_aio(c, r, n);
}

static int buffered(struct pa_call *c, const struct pa_range *r, size_t n, uint64_t chunk)
{
	(void)n;
	(void)chunk;
	return pa_zero_buffered(c, r->start, r->len);
}

/* fallocate() zeroed it when the step reserved it. */
static int allocate(struct pa_call *c, const struct pa_range *r, size_t n, uint64_t chunk)
{
	(void)n;
	(void)chunk;
	return pa_advance(c, PREALLOC_METHOD_ALLOCATE, r->len);
}

#define ANY (PA_M_FILE | PA_M_BDEV)

static const struct pa_method methods[PA_METHOD_COUNT] = {
	[PREALLOC_METHOD_WRITE_ZEROES] = { "write-zeroes", ANY, write_zeroes_applies,
					   write_zeroes },
	[PREALLOC_METHOD_ZEROOUT] = { "zeroout", PA_M_BDEV, zeroout_applies, zeroout },
	[PREALLOC_METHOD_URING] = { "uring", ANY | PA_M_RESERVE | PA_M_WRITES | PA_M_DIRECT |
					     PA_M_BATCH, always, uring, pa_uring_usable },
	[PREALLOC_METHOD_AIO] = { "aio", ANY | PA_M_RESERVE | PA_M_WRITES | PA_M_DIRECT |
					 PA_M_BATCH, always, aio, pa_aio_usable },
	[PREALLOC_METHOD_BUFFERED] = { "buffered", ANY | PA_M_RESERVE | PA_M_WRITES | PA_M_WHOLE,
				       files_only, buffered },
	[PREALLOC_METHOD_ALLOCATE] = { "allocate", PA_M_FILE | PA_M_RESERVE | PA_M_WHOLE, NULL,
				       allocate },
};

const uint8_t pa_method_order[] = {
	PREALLOC_METHOD_WRITE_ZEROES,
	PREALLOC_METHOD_ZEROOUT,
	PREALLOC_METHOD_URING,
	PREALLOC_METHOD_AIO,
	PREALLOC_METHOD_BUFFERED,
};
const size_t pa_method_order_n = PA_ARRAY_SIZE(pa_method_order);

const struct pa_method *pa_method(unsigned int m)
{
	return m < PA_METHOD_COUNT && methods[m].name ? &methods[m] : NULL;
}

bool pa_method_is(unsigned int m, uint32_t flags)
{
	const struct pa_method *row = pa_method(m);

	return row && (row->flags & flags) == flags;
}

uint32_t pa_methods_unusable(struct prealloc_ctx *ctx)
{
	uint32_t bits = 0;

	for (unsigned int m = 0; m < PA_METHOD_COUNT; m++)
		if (methods[m].usable && methods[m].usable(ctx, NULL, 0))
			bits |= 1u << m;
	return bits;
}
