/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tcache.h"

int tcache_pages(int fd, uint64_t len, uint8_t *vec)
{
	void *p;
	int ret;

	if (!len)
		return 0;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	ret = mincore(p, len, vec) < 0 ? -errno : 0;
	munmap(p, len);
	return ret;
}

int64_t tcache_resident(int fd, uint64_t off, uint64_t len)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), first = off / pg, end;
	struct stat st;
	uint8_t *vec;
	int64_t n = 0;
	int ret;

	if (fstat(fd, &st) < 0)
		return -errno;
	end = off + len < (uint64_t)st.st_size ? off + len : (uint64_t)st.st_size;
	if (end <= off)
		return 0;
	vec = malloc((end + pg - 1) / pg);
	if (!vec)
		return -ENOMEM;
	ret = tcache_pages(fd, end, vec);
	for (uint64_t i = first; !ret && i < (end + pg - 1) / pg; i++)
		n += vec[i] & 1;
	free(vec);
	return ret ? ret : n * (int64_t)pg;
}
