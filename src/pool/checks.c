/* SPDX-License-Identifier: MIT */
/* Checks the pool's public calls share: the calling process, the names. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "src/pool/pool.h"

int pa_pool_check_caller(const struct prealloc_pool *p)
{
	if (!p)
		return -EINVAL;
	return getpid() == p->pid ? 0 : -ECHILD;
}

/* The pool's own names are refused: a segment taken under one would be
 * removed or adopted again by the next prealloc_pool_open(). */
static bool pool_name(const char *name)
{
	const char *base = strrchr(name, '/');

	return strncmp(base ? base + 1 : name, PA_POOL_PREFIX, strlen(PA_POOL_PREFIX)) == 0;
}

bool pa_pool_bad_name(const char *name)
{
	return !name || !*name || pool_name(name);
}

/* 0 if @name (checked with pa_pool_bad_name() before) does not exist. */
int pa_pool_name_free(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	return errno == ENOENT ? 0 : -errno;
}
