/* SPDX-License-Identifier: MIT */
/*
 * Small helpers shared by src/ and probes/ (and the fuzz targets, which build
 * the decoders alone): no dependency beyond libc.  Not installed.
 */
#ifndef PREALLOC_UTIL_H
#define PREALLOC_UTIL_H

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define PA_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define PA_MIN(a, b) ((a) < (b) ? (a) : (b))
#define PA_MAX(a, b) ((a) > (b) ? (a) : (b))
#define PA_ROUND_DOWN(x, a) ((x) / (a) * (a))
#define PA_ROUND_UP(x, a) ((((x) + (a) - 1) / (a)) * (a))

/* Retry a syscall expression that returns -1 and sets errno on EINTR. */
#define PA_RETRY_EINTR(expr) ({					\
	long __r;						\
	do { __r = (long)(expr); } while (__r == -1 && errno == EINTR); \
	__r; })

/* Unaligned little-endian loads, for wire formats without a library struct. */
static inline uint16_t pa_get_le16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static inline uint32_t pa_get_le32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline uint16_t pa_get_be16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return be16toh(v);
}

static inline uint32_t pa_get_be32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static inline uint64_t pa_get_be64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

/* CLOCK_MONOTONIC in nanoseconds: durations, never wall time. */
static inline uint64_t pa_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
