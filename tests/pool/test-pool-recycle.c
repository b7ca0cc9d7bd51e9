/* SPDX-License-Identifier: MIT */
/*
 * Segments given back (prealloc_pool_recycle; root, skip otherwise): with
 * and without zeroing, cut and grown to the segment size, kept beyond the
 * pool's target.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "pool-fixture.h"
#include "tcheck.h"

/* Take until the segment with inode @ino comes out (it was recycled after
 * the ones ready then, and the worker serves recycled segments first). */
static int take_inode(struct prealloc_pool *p, int dfd, ino_t ino, uint32_t target)
{
	char name[32];

	for (unsigned int i = 0; i < target + 2; i++) {
		struct stat st;
		int fd;

		assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);
		snprintf(name, sizeof(name), "again-%lu-%u", (unsigned long)ino, i);
		fd = prealloc_pool_take(p, dfd, name, 0);
		assert_true(fd >= 0);
		assert_int_equal(fstat(fd, &st), 0);
		if (st.st_ino == ino)
			return fd;
		close(fd);
	}
	fail_msg("recycled segment never came back");
	return -1;
}

static void recycle_one(bool zero, uint64_t new_size)
{
	struct prealloc_pool_stats s0;
	struct prealloc_pool *p;
	uint8_t *expect = calloc(1, SEG);
	char dir[128];
	struct stat st;
	int dfd, fd;

	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 2, 1);
	dfd = open_dir(dir);
	fd = prealloc_pool_take(p, dfd, "used", 0);
	assert_true(fd >= 0);
	assert_int_equal(tc_write_pattern(fd, expect, 7, 4096, SEG / 2), 0);
	if (new_size != SEG)	/* a segment the database cut or grew */
		assert_int_equal(ftruncate(fd, (off_t)new_size), 0);
	assert_int_equal(fstat(fd, &st), 0);
	close(fd);
	s0 = stats(p);
	assert_int_equal(prealloc_pool_recycle(p, dfd, "used", zero ? PREALLOC_POOL_RECYCLE_ZERO : 0),
			 0);
	assert_int_equal(faccessat(dfd, "used", F_OK, 0), -1);	/* gone at once */
	fd = take_inode(p, dfd, st.st_ino, 2);
	check_segment(fd, SEG, zero);
	if (new_size < SEG)
		memset(expect + new_size, 0, SEG - new_size);
	if (!zero)	/* old bytes kept (up to the cut), the rest zero */
		assert_int_equal(tc_compare(fd, expect, SEG), -1);
	close(fd);
	assert_int_equal(stats(p).recycled, s0.recycled + 1);
	prealloc_pool_close(p);
	close(dfd);
	free(expect);
}

static void recycle_zeroed(void **state)
{
	(void)state;
	recycle_one(true, SEG);
}

static void recycle_kept(void **state)
{
	(void)state;
	recycle_one(false, SEG);
}

/* Recycled segments are kept even when the pool is at its target. */
static void recycle_beyond_target(void **state)
{
	struct prealloc_pool *p;
	char dir[128];
	struct stat st;
	int dfd, fd;

	(void)state;
	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 1, 1);
	dfd = open_dir(dir);
	fd = prealloc_pool_take(p, dfd, "used", 0);
	assert_int_equal(fstat(fd, &st), 0);
	close(fd);
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);	/* at target again */
	assert_int_equal(prealloc_pool_recycle(p, dfd, "used", 0), 0);
	fd = take_inode(p, dfd, st.st_ino, 1);
	check_segment(fd, SEG, true);	/* it was never written: still zero */
	close(fd);
	assert_int_equal(stats(p).recycled, 1);
	prealloc_pool_close(p);
	close(dfd);
}

static void recycle_cut_and_grown(void **state)
{
	(void)state;
	recycle_one(false, SEG / 4);	/* grown back: the tail written, zero */
	recycle_one(true, SEG * 2);	/* cut to the segment size */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(recycle_zeroed),
		cmocka_unit_test(recycle_kept),
		cmocka_unit_test(recycle_cut_and_grown),
		cmocka_unit_test(recycle_beyond_target),
	};

	return POOL_RUN(tests);
}
