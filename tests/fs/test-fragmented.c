/* SPDX-License-Identifier: MIT */
/*
 * Fragmented files (tests/bench, section frag, has the timings): auto must
 * not issue one small direct write per hole.  Small holes go to the page
 * cache whole, large ones keep direct I/O for their page-aligned middle, and
 * either way the file ends written with its data intact.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tcheck.h"
#include "tfs.h"

#define KiB 1024ull
#define MiB (1024 * KiB)

static struct tfs t;

/* A @size file with @data bytes of 'D' at the start of every @every bytes. */
static int layout(const char *name, uint64_t size, uint64_t data, uint64_t every)
{
	static uint8_t buf[64 * KiB];
	char path[256];
	int fd = open(tfs_path(&t, name, path, sizeof(path)),
		      O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	memset(buf, 'D', sizeof(buf));
	for (uint64_t off = 0; off < size; off += every)
		assert_int_equal(pwrite(fd, buf, data, (off_t)off), (ssize_t)data);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	assert_int_equal(fsync(fd), 0);
	return fd;
}

/* Written, the data kept where layout() put it, zeros elsewhere. */
static void check(int fd, uint64_t size, uint64_t data, uint64_t every)
{
	struct prealloc_census cs = { .size = sizeof(cs) };
	uint8_t *img = malloc(size);

	assert_non_null(img);
	for (uint64_t off = 0; off < size; off++)
		img[off] = off % every < data ? 'D' : 0;
	assert_int_equal(prealloc_verify(fd, 0, size, &cs), 0);
	assert_int_equal(cs.written_bytes, size);
	assert_int_equal(tc_compare(fd, img, size), -1);
	free(img);
}

static void small_holes_buffered(void **state)
{
	struct prealloc_report r = { .size = sizeof(r) };
	int fd = layout("small", 16 * MiB, 4 * KiB, 8 * KiB);

	(void)state;
	assert_int_equal(prealloc_file_ex(fd, 0, 16 * MiB, NULL, &r), 0);
	assert_int_equal(r.bytes_by_method[PREALLOC_METHOD_URING], 0);
	assert_int_equal(r.bytes_by_method[PREALLOC_METHOD_BUFFERED], 8 * MiB);
	assert_int_equal(r.bytes_kept, 8 * MiB);
	check(fd, 16 * MiB, 4 * KiB, 8 * KiB);
	close(fd);
}

static void large_holes_direct(void **state)
{
	struct prealloc_report r = { .size = sizeof(r) };
	int fd = layout("large", 16 * MiB, 64 * KiB, MiB);

	(void)state;
	assert_int_equal(prealloc_file_ex(fd, 0, 16 * MiB, NULL, &r), 0);
	/* Every 960 KiB hole is page aligned: all of it direct. */
	assert_int_equal(r.bytes_by_method[PREALLOC_METHOD_URING], 16 * 960 * KiB);
	assert_int_equal(r.bytes_by_method[PREALLOC_METHOD_BUFFERED], 0);
	assert_int_equal(r.bytes_kept, 16 * 64 * KiB);
	check(fd, 16 * MiB, 64 * KiB, MiB);
	close(fd);
}

static int setup(void **state)
{
	*state = &t;
	return tfs_create(&t, "ext4", 128, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(small_holes_buffered),
		cmocka_unit_test(large_holes_direct),
	};

	tfs_enter_for("ext4");
	return cmocka_run_group_tests(tests, setup, tfs_group_teardown);
}
