/* SPDX-License-Identifier: MIT */
/*
 * A second, O_DIRECT descriptor for the caller's file, so the caller's
 * descriptor keeps its flags, and the alignment direct I/O needs (statx,
 * src/statx.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "engine.h"
#include "internal.h"
#include "statx.h"

/*
 * STATX_DIOALIGN (Linux 6.1).  Returns false when the kernel or filesystem
 * does not say; true with zero alignments when it says "no direct I/O".
 */
static bool dio_align_statx(int fd, uint32_t *ret_off, uint32_t *ret_mem)
{
	struct pa_statx_limits l;

	if (pa_statx_limits(fd, &l) < 0 || !l.have_dio)
		return false;
	*ret_off = l.dio_offset_align;
	*ret_mem = l.dio_mem_align;
	return true;
}

int pa_open_direct(struct pa_call *c, uint32_t logical_block_size)
{
	uint32_t off_align = 0, mem_align = 0;
	char path[32];
	int dfd;

	if (c->dfd >= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", c->fd);
	dfd = open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	if (dio_align_statx(dfd, &off_align, &mem_align) && !off_align) {
		close(dfd);
		return -EINVAL;
	}
	c->dfd = dfd;
	c->dio_align = off_align ? off_align : PA_MAX(logical_block_size, 512u);
	c->dio_mem_align = mem_align ? mem_align : c->dio_align;
	return 0;
}
