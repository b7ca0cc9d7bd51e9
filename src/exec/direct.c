/* SPDX-License-Identifier: MIT */
/*
 * A second, O_DIRECT descriptor for the caller's file, so the caller's
 * descriptor keeps its flags, and the alignment direct I/O needs (statx,
 * src/file/statx.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/log.h"
#include "src/exec/direct.h"
#include "src/file/reopen.h"
#include "src/file/statx.h"

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

static uint64_t page_align(uint64_t dio_align)
{
	long page = sysconf(_SC_PAGESIZE);

	return PA_MAX(dio_align, page > 0 ? (uint64_t)page : 4096u);
}

uint64_t pa_direct_align(const struct pa_job *j)
{
	return page_align(j->dio_align);
}

/* What pa_open_direct() will learn, from the descriptor at hand. */
uint64_t pa_direct_align_fd(int fd, uint32_t logical_block_size)
{
	uint32_t off_align = 0, mem_align = 0;

	if (!dio_align_statx(fd, &off_align, &mem_align))
		off_align = PA_MAX(logical_block_size, 512u);
	return off_align ? page_align(off_align) : 0;
}

bool pa_direct_reachable(int fd)
{
	char path[32];
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0 && (fl & O_DIRECT))
		return true;
	snprintf(path, sizeof(path), "/proc/thread-self/fd/%d", fd);
	return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0;
}

/*
 * Without a reopened descriptor, a caller's descriptor that is O_DIRECT
 * already serves (a duplicate of it: ours to close).  Its O_APPEND, if any,
 * is overridden per write; its O_SYNC only costs time.
 */
static int caller_direct(struct pa_job *j)
{
	int fl = fcntl(j->fd, F_GETFL);

	if (fl < 0 || !(fl & O_DIRECT))
		return -EOPNOTSUPP;
	j->dio_rwf = fl & O_APPEND ? PA_RWF_NOAPPEND : 0;
	return pa_dup(j->fd);
}

/* Direct I/O is refused for the reason @why: tell the log, -EOPNOTSUPP. */
static int refuse_direct(const struct pa_job *j, const char *why, int err)
{
	pa_log_to(j->log, LOG_NOTICE, "O_DIRECT refused: %s%s%s\n", why,
		  err ? ": " : "", err ? strerror(-err) : "");
	return -EOPNOTSUPP;
}

int pa_open_direct(struct pa_job *j, uint32_t logical_block_size)
{
	uint32_t off_align = 0, mem_align = 0;
	int dfd, err;

	if (j->dfd >= 0)
		return 0;
	j->dio_rwf = 0;
	dfd = pa_reopen(j->fd, &j->target->st, O_WRONLY | O_DIRECT);
	if (dfd == -EINVAL)
		return refuse_direct(j, "the filesystem has no direct I/O", 0);
	err = dfd;
	if (dfd < 0)
		dfd = caller_direct(j);
	if (dfd < 0)
		return refuse_direct(j, "cannot reopen the file with it and the caller's "
				     "descriptor is not O_DIRECT", err);
	if (dio_align_statx(dfd, &off_align, &mem_align) && !off_align) {
		close(dfd);
		return refuse_direct(j, "statx reports no direct I/O alignment", 0);
	}
	j->dfd = dfd;
	j->dio_align = off_align ? off_align : PA_MAX(logical_block_size, 512u);
	j->dio_mem_align = mem_align ? mem_align : j->dio_align;
	return 0;
}
