/* SPDX-License-Identifier: MIT */
/*
 * Atomic write limits of a file: statx(STATX_WRITE_ATOMIC), 6.11+.  The
 * installed headers may predate the fields (glibc 2.36, linux-libc-dev 6.1),
 * so the request goes through the raw syscall and the fields are read at
 * their fixed offsets in the kernel's struct statx.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/stat.h>

#include "caps.h"

#define PA_STATX_WRITE_ATOMIC 0x00010000U	/* want/got the atomic write limits */
#define PA_STATX_ATTR_WRITE_ATOMIC 0x00400000	/* the file supports them */
/* Offsets of stx_atomic_write_unit_min, _unit_max, _segments_max. */
#define PA_STX_AW_UNIT_MIN 0xa8
#define PA_STX_AW_UNIT_MAX 0xac
#define PA_STX_AW_SEGMENTS_MAX 0xb0

static uint32_t field32(const struct statx *stx, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)stx + off, sizeof(v));
	return v;
}

int pa_file_atomic_get(int fd, struct pa_file_atomic *ret)
{
	struct statx stx;

	_Static_assert(sizeof(stx) >= PA_STX_AW_SEGMENTS_MAX + 4, "struct statx too small");
	if (fd < 0 || !ret)
		return -EINVAL;
	memset(&stx, 0, sizeof(stx));
	memset(ret, 0, sizeof(*ret));
	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH, PA_STATX_WRITE_ATOMIC, &stx) < 0)
		return -errno;
	if (!(stx.stx_mask & PA_STATX_WRITE_ATOMIC))
		return -EOPNOTSUPP;
	if (stx.stx_attributes & PA_STATX_ATTR_WRITE_ATOMIC) {
		ret->unit_min = field32(&stx, PA_STX_AW_UNIT_MIN);
		ret->unit_max = field32(&stx, PA_STX_AW_UNIT_MAX);
		ret->segments_max = field32(&stx, PA_STX_AW_SEGMENTS_MAX);
	}
	return 0;
}
