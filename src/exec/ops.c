/* SPDX-License-Identifier: MIT */
/*
 * The executor's table of zeroing methods (src/exec/ops.h): for each, the
 * code in its own file (src/exec/zero.c for the simple ones,
 * src/exec/method_uring.c, src/exec/method_aio.c).
 */
#include "base/internal.h"
#include "src/exec/method_aio.h"
#include "src/exec/method_uring.h"
#include "src/exec/ops.h"
#include "src/exec/progress.h"
#include "src/exec/zero.h"

static int write_zeroes(struct pa_job *j, const struct pa_range *r, size_t n, uint64_t chunk)
{
	(void)n;
	return pa_zero_write_zeroes(j, r->start, r->len, chunk);
}

static int zeroout(struct pa_job *j, const struct pa_range *r, size_t n, uint64_t chunk)
{
	(void)n;
	return pa_zero_out(j, r->start, r->len, chunk);
}

static int uring(struct pa_job *j, const struct pa_range *r, size_t n, uint64_t chunk)
{
	(void)chunk;
	return pa_zero_uring(j, r, n);
}

static int aio(struct pa_job *j, const struct pa_range *r, size_t n, uint64_t chunk)
{
	(void)chunk;
	return pa_zero_aio(j, r, n);
}

static int buffered(struct pa_job *j, const struct pa_range *r, size_t n, uint64_t chunk)
{
	(void)n;
	(void)chunk;
	return pa_zero_buffered(j, r->start, r->len);
}

/* fallocate() zeroed it when the step reserved it. */
static int allocate(struct pa_job *j, const struct pa_range *r, size_t n, uint64_t chunk)
{
	(void)n;
	(void)chunk;
	return pa_advance(j, PREALLOC_METHOD_ALLOCATE, r->len);
}

static const struct pa_method_ops ops[PA_METHOD_COUNT] = {
	[PREALLOC_METHOD_WRITE_ZEROES] = { write_zeroes },
	[PREALLOC_METHOD_ZEROOUT] = { zeroout },
	[PREALLOC_METHOD_URING] = { uring, pa_uring_usable },
	[PREALLOC_METHOD_AIO] = { aio, pa_aio_usable },
	[PREALLOC_METHOD_BUFFERED] = { buffered },
	[PREALLOC_METHOD_ALLOCATE] = { allocate },
};

const struct pa_method_ops *pa_method_ops(unsigned int m)
{
	return m < PA_METHOD_COUNT && ops[m].zero ? &ops[m] : NULL;
}

uint32_t pa_methods_unusable(struct pa_log *log)
{
	uint32_t bits = 0;

	for (unsigned int m = 0; m < PA_METHOD_COUNT; m++)
		if (ops[m].usable && ops[m].usable(log, NULL, 0))
			bits |= 1u << m;
	return bits;
}
