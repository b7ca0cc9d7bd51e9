/* SPDX-License-Identifier: MIT */
/*
 * The report names the phase that failed (and the method running then), so a
 * caller can say why without guessing from the errno: out of space before
 * anything was written, a block device in use, one carrying a signature, a
 * request the target does not take, a method the storage refuses.
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
#include <unistd.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tfs.h"

#define M (1024ull * 1024)

/* Run prealloc_file_ex() with a report whose step fields hold garbage. */
static int run(int fd, uint64_t off, uint64_t len, uint32_t flags, uint32_t method,
	       struct prealloc_report *r)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = flags, .method = method };

	memset(r, 0xA5, sizeof(*r));
	r->size = sizeof(*r);
	return prealloc_file_ex(fd, off, len, &o, r);
}

/* An empty file on a fresh @type filesystem of @mb MiB in @t; the test is
 * skipped when the filesystem cannot be made. */
static int new_file(struct tfs *t, const char *type, unsigned int mb)
{
	char path[256];
	int fd;

	if (tfs_create(t, type, mb, NULL) < 0)
		skip();
	fd = open(tfs_path(t, "f", path, sizeof(path)), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	return fd;
}

/* A failed call left @fd as @before was: size and allocation. */
static void check_unchanged(int fd, const struct stat *before)
{
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, before->st_size);
	assert_int_equal(st.st_blocks, before->st_blocks);
}

static void phase_names(void **state)
{
	(void)state;
	for (unsigned int s = PREALLOC_PHASE_NONE; s <= PREALLOC_PHASE_SYNC; s++)
		assert_non_null(prealloc_phase_name(s));
	assert_string_equal(prealloc_phase_name(PREALLOC_PHASE_SPACE_CHECK), "space-check");
	assert_null(prealloc_phase_name(PREALLOC_PHASE_SYNC + 1));
	assert_null(prealloc_phase_name((enum prealloc_phase)-1));
}

static void file_steps(void **state)
{
	struct prealloc_report r;
	struct tfs t = { 0 };
	struct stat st;
	int fd;

	(void)state;
	fd = new_file(&t, "ext4", 64);

	/* Success clears what the caller's struct held. */
	assert_int_equal(run(fd, 0, M, 0, 0, &r), 0);
	assert_int_equal(r.failed_phase, PREALLOC_PHASE_NONE);
	assert_int_equal(r.failed_method, PREALLOC_METHOD_AUTO);

	assert_int_equal(fstat(fd, &st), 0);

	/* Too big for the volume: refused by the space check, nothing written. */
	assert_int_equal(run(fd, 0, 1024 * M, 0, 0, &r), -ENOSPC);
	assert_int_equal(r.failed_phase, PREALLOC_PHASE_SPACE_CHECK);
	assert_int_equal(r.failed_method, PREALLOC_METHOD_AUTO);
	check_unchanged(fd, &st);

	/* A forced method no file can take: refused with the request. */
	assert_int_equal(run(fd, 0, M, 0, PREALLOC_METHOD_ZEROOUT, &r), -EOPNOTSUPP);
	assert_int_equal(r.failed_phase, PREALLOC_PHASE_REQUEST);
	check_unchanged(fd, &st);

	/* Arguments rejected before any work leave the report alone. */
	assert_int_equal(run(fd, 0, 0, 0, 0, &r), -EINVAL);
	assert_int_equal(r.failed_phase, 0xA5A5A5A5u);
	close(fd);
	tfs_destroy(&t);
}

/* xfs has no FALLOC_FL_WRITE_ZEROES: forced, the kernel refuses it while
 * zeroing, and the report names the method. */
static void refused_method(void **state)
{
	struct prealloc_report r;
	struct tfs t = { 0 };
	struct stat st;
	int fd;

	(void)state;
	if (!tfs_supported("xfs"))
		skip();
	fd = new_file(&t, "xfs", 300);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(run(fd, 0, M, 0, PREALLOC_METHOD_WRITE_ZEROES, &r), -EOPNOTSUPP);
	assert_int_equal(r.failed_phase, PREALLOC_PHASE_ZERO);
	assert_int_equal(r.failed_method, PREALLOC_METHOD_WRITE_ZEROES);
	/* Failed while zeroing: the space reserved for it given back. */
	check_unchanged(fd, &st);
	close(fd);
	tfs_destroy(&t);
}

static void blockdev_steps(void **state)
{
	struct prealloc_report r;
	struct tfs mounted = { 0 }, bare = { 0 };
	uint8_t magic[2];
	int fd;

	(void)state;
	if (tfs_create(&mounted, "ext4", 32, NULL) < 0 || tfs_loop(&bare, 32, false) < 0)
		skip();

	/* Mounted: the exclusive claim fails. */
	fd = open(mounted.dev, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(run(fd, 0, M, PREALLOC_ZERO_DATA, 0, &r), -EBUSY);
	assert_int_equal(r.failed_phase, PREALLOC_PHASE_CLAIM);
	close(fd);

	fd = open(bare.dev, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	/* Without ZERO_DATA, or misaligned: the request does not suit a device. */
	assert_int_equal(run(fd, 0, M, 0, 0, &r), -EINVAL);
	assert_int_equal(r.failed_phase, PREALLOC_PHASE_REQUEST);
	assert_int_equal(run(fd, 1, M, PREALLOC_ZERO_DATA, 0, &r), -EINVAL);
	assert_int_equal(r.failed_phase, PREALLOC_PHASE_REQUEST);
	assert_int_equal(run(fd, 0, M, PREALLOC_ZERO_DATA, 0, &r), 0);
	assert_int_equal(r.failed_phase, PREALLOC_PHASE_NONE);

	/* A filesystem on it: the signature check refuses without FORCE. */
	assert_int_equal(tfs_sh("mkfs.ext4 -q -F %s >/dev/null 2>&1", bare.dev), 0);
	assert_int_equal(run(fd, 0, M, PREALLOC_ZERO_DATA, 0, &r), -EEXIST);
	assert_int_equal(r.failed_phase, PREALLOC_PHASE_SIGNATURES);
	/* Refused before any write: the superblock's magic is still there. */
	assert_int_equal(pread(fd, magic, 2, 1080), 2);
	assert_int_equal(magic[0], 0x53);
	assert_int_equal(magic[1], 0xef);
	close(fd);
	tfs_destroy(&bare);
	tfs_destroy(&mounted);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(phase_names),
		cmocka_unit_test(file_steps),
		cmocka_unit_test(refused_method),
		cmocka_unit_test(blockdev_steps),
	};

	tfs_enter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
