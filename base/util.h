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

/* Unaligned loads in a given byte order, for wire formats without a library
 * struct or helper: pa_get_le16(p), pa_get_be32(p), ... */
#define PA_DEFINE_GET(name, type, to_cpu)			\
	static inline type name(const void *p)			\
	{							\
		type v;						\
		memcpy(&v, p, sizeof(v));			\
		return to_cpu(v);				\
	}
PA_DEFINE_GET(pa_get_le16, uint16_t, le16toh)
PA_DEFINE_GET(pa_get_le32, uint32_t, le32toh)
PA_DEFINE_GET(pa_get_be16, uint16_t, be16toh)
PA_DEFINE_GET(pa_get_be32, uint32_t, be32toh)
PA_DEFINE_GET(pa_get_be64, uint64_t, be64toh)
#undef PA_DEFINE_GET

/* CLOCK_MONOTONIC in nanoseconds: durations, never wall time. */
static inline uint64_t pa_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A CLOCK_MONOTONIC time in nanoseconds as the timespec of absolute waits. */
static inline struct timespec pa_ns_ts(uint64_t t)
{
	return (struct timespec){ .tv_sec = (time_t)(t / 1000000000ull),
				  .tv_nsec = (long)(t % 1000000000ull) };
}

#endif
