/* SPDX-License-Identifier: MIT */
/*
 * statx() for the limits direct and atomic writes need.  <linux/stat.h>, not
 * <sys/stat.h>: glibc 2.36 has no stx_dio_* fields.  The atomic-write fields
 * (Linux 6.11) are newer than Debian 12's kernel headers too: they sit in
 * what those headers call __spare3, at the offsets the kernel ABI fixed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/stat.h>

#include "src/file/statx.h"

#ifndef STATX_WRITE_ATOMIC
#define STATX_WRITE_ATOMIC 0x00010000U
#endif

/* Byte offsets in struct statx (include/uapi/linux/stat.h, 6.16). */
#define STX_ATOMIC_WRITE_UNIT_MIN	0xa8
#define STX_ATOMIC_WRITE_UNIT_MAX	0xac
#define STX_ATOMIC_WRITE_SEGMENTS_MAX	0xb0
#define STX_ATOMIC_WRITE_UNIT_MAX_OPT	0xb8

_Static_assert(sizeof(struct statx) == 0x100, "struct statx is 256 bytes");
_Static_assert(offsetof(struct statx, stx_dio_offset_align) == 0x9c, "statx layout");

static uint32_t field32(const struct statx *stx, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)stx + off, sizeof(v));
	return v;
}

int pa_statx_limits(int fd, struct pa_statx_limits *ret)
{
	struct statx stx;

	memset(&stx, 0, sizeof(stx));
	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_DIOALIGN | STATX_WRITE_ATOMIC, &stx) < 0)
		return -errno;
	memset(ret, 0, sizeof(*ret));
	ret->have_dio = stx.stx_mask & STATX_DIOALIGN;
	if (ret->have_dio) {
		ret->dio_offset_align = stx.stx_dio_offset_align;
		ret->dio_mem_align = stx.stx_dio_mem_align;
	}
	ret->have_atomic = stx.stx_mask & STATX_WRITE_ATOMIC;
	if (ret->have_atomic) {
		ret->atomic_unit_min = field32(&stx, STX_ATOMIC_WRITE_UNIT_MIN);
		ret->atomic_unit_max = field32(&stx, STX_ATOMIC_WRITE_UNIT_MAX);
		ret->atomic_segments_max = field32(&stx, STX_ATOMIC_WRITE_SEGMENTS_MAX);
		ret->atomic_unit_max_opt = field32(&stx, STX_ATOMIC_WRITE_UNIT_MAX_OPT);
	}
	return 0;
}
