/* SPDX-License-Identifier: MIT */
/*
 * Out of space: a request that cannot fit fails before anything is written
 * and leaves size, content and free space as they were; one that just fits
 * fills the volume, written.
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
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tfs.h"

#define M (1024ull * 1024)

static struct tfs t;
static const char *fstype;

static uint64_t free_bytes(int fd)
{
	struct statfs s;

	assert_int_equal(fsync(fd), 0);
	assert_int_equal(fstatfs(fd, &s), 0);
	return (uint64_t)s.f_bfree * (uint64_t)s.f_bsize;
}

static int open_file(const char *name)
{
	char path[256];

	return open(tfs_path(&t, name, path, sizeof(path)), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

static void fill(int fd, uint64_t off, uint64_t len, uint8_t v)
{
	uint8_t *b = malloc(len);

	memset(b, v, len);
	assert_int_equal(pwrite(fd, b, len, (off_t)off), (ssize_t)len);
	free(b);
}

static void expect_unchanged(int fd, uint64_t size, uint64_t free_before)
{
	struct stat st;
	uint8_t *b = malloc(size + 1);

	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal((uint64_t)st.st_size, size);
	assert_int_equal(pread(fd, b, size + 1, 0), (ssize_t)size);
	for (uint64_t i = 0; i < size; i++)
		assert_int_equal(b[i], 0x5a);
	assert_int_equal(free_bytes(fd), free_before);
	free(b);
}

static void too_big(void **state)
{
	int fd = open_file("big");
	uint64_t before;

	(void)state;
	fill(fd, 0, 1 * M + 100, 0x5a);
	before = free_bytes(fd);
	assert_int_equal(prealloc_file(fd, 0, before * 2, 0), -ENOSPC);
	expect_unchanged(fd, 1 * M + 100, before);
	/* Keep-size reservations are counted the same way. */
	assert_int_equal(prealloc_file(fd, 0, before * 2, PREALLOC_KEEP_SIZE), -ENOSPC);
	expect_unchanged(fd, 1 * M + 100, before);
	/* Existing data does not need space: only the holes are counted. */
	assert_int_equal(prealloc_file(fd, 0, 1 * M + 100, 0), 0);
	close(fd);
}

static void just_fits(void **state)
{
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_census c = { .size = sizeof(c) };
	int fd = open_file("fits");
	/* Leave room for the extent tree and the journal's reservations. */
	uint64_t len = free_bytes(fd) - 2 * M;
	char path[256];

	(void)state;
	assert_int_equal(prealloc_file_ex(fd, 0, len, NULL, &r), 0);
	assert_int_equal(r.written, 1);
	assert_int_equal(prealloc_verify(fd, 0, len, &c), 0);
	assert_int_equal(c.written_bytes, len);
	assert_true(free_bytes(fd) < 4 * M);
	close(fd);
	unlink(tfs_path(&t, "fits", path, sizeof(path)));
}

/*
 * A database drops an old segment to make room for the next one: the
 * deleted file's blocks are free to the allocator even when statfs does not
 * count them yet (xfs frees them in the background).  Each round would fail
 * on that count: the space a round needs is only there with the blocks of
 * the file deleted just before it.
 */
static void room_of_a_deleted_file(void **state)
{
	int dir = open(t.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	uint64_t len = (free_bytes(dir) - 8 * M) / 4 * 3 & ~(M - 1);
	char path[256];

	(void)state;
	close(dir);
	tfs_path(&t, "segment", path, sizeof(path));
	for (int round = 0; round < 8; round++) {
		int fd = open_file("segment");

		assert_true(fd >= 0);
		assert_int_equal(prealloc_file(fd, 0, len, 0), 0);
		close(fd);
		assert_int_equal(unlink(path), 0);
	}
}

static int group_setup(void **state)
{
	(void)state;
	return tfs_create(&t, fstype, strcmp(fstype, "xfs") == 0 ? 320 : 64, NULL);
}

static int group_teardown(void **state)
{
	(void)state;
	tfs_destroy(&t);
	return 0;
}

int main(void)
{
	static const char *const types[] = { "ext4", "xfs" };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(too_big),
		cmocka_unit_test(just_fits),
		cmocka_unit_test(room_of_a_deleted_file),
	};
	int failed = 0;

	tfs_enter();
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		fstype = types[i];
		if (tfs_supported(fstype))
			failed += cmocka_run_group_tests_name(fstype, tests, group_setup,
							      group_teardown);
	}
	return failed ? 1 : 0;
}
