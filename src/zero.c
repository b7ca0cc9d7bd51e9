/* SPDX-License-Identifier: MIT */
/* Progress accounting and the simple zeroing methods. */
#include <errno.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine.h"
#include "internal.h"

#define ZBUF	(64u << 10)
#define ZIOV	16		/* 1 MiB per pwritev() */

static const uint8_t zeros[ZBUF];

void pa_count(struct pa_call *c, unsigned int method, uint64_t bytes)
{
	c->rep.bytes_by_method[method] += bytes;
	if (method != PREALLOC_METHOD_ALLOCATE)
		c->rep.bytes_zeroed += bytes;
	else
		c->rep.bytes_reserved += bytes;
	c->done += bytes;
}

int pa_advance(struct pa_call *c, unsigned int method, uint64_t bytes)
{
	pa_count(c, method, bytes);
	if (c->opts.progress && c->opts.progress(c->done, c->total, c->opts.progress_data))
		return -ECANCELED;
	return 0;
}

void pa_method_refused(struct pa_call *c, unsigned int method)
{
	c->rep.refused |= 1u << method;
	if (method == PREALLOC_METHOD_WRITE_ZEROES)
		pa_wz_set_refused(c->target.ctx, c->target.dev, c->target.fs_type);
}

int pa_zero_buffered(struct pa_call *c, uint64_t start, uint64_t len)
{
	struct iovec iov[ZIOV];
	uint64_t end = start + len;

	while (start < end) {
		uint64_t n = PA_MIN(end - start, (uint64_t)ZBUF * ZIOV);
		int cnt = 0;
		ssize_t w;

		for (uint64_t left = n; left; cnt++) {
			iov[cnt].iov_base = (void *)zeros;
			iov[cnt].iov_len = PA_MIN(left, ZBUF);
			left -= iov[cnt].iov_len;
		}
		w = PA_PACED(&c->pace, n, PA_RETRY_EINTR(pwritev(c->wfd, iov, cnt, (off_t)start)));
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		start += (uint64_t)w;
		if (pa_advance(c, PREALLOC_METHOD_BUFFERED, (uint64_t)w))
			return -ECANCELED;
	}
	return 0;
}

int pa_zero_write_zeroes(struct pa_call *c, uint64_t start, uint64_t len, uint64_t chunk)
{
	uint64_t end = start + len;

	chunk = pa_pace_chunk(&c->pace, chunk ? chunk : len);
	while (start < end) {
		uint64_t n = PA_MIN(end - start, chunk);

		if (PA_PACED(&c->pace, n, PA_RETRY_EINTR(fallocate(c->wfd, FALLOC_FL_WRITE_ZEROES,
								   (off_t)start, (off_t)n))) < 0)
			return -errno;
		start += n;
		if (pa_advance(c, PREALLOC_METHOD_WRITE_ZEROES, n))
			return -ECANCELED;
	}
	return 0;
}
