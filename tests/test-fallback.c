/* SPDX-License-Identifier: MIT */
/*
 * The kernel has the last word.  Under a captured sysfs tree that says the
 * file's device is an NVMe namespace that can unmap-zero, the planner picks
 * FALLOC_FL_WRITE_ZEROES; the real loop device refuses it, the call falls
 * back and still ends fully written, and the next call does not ask again.
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
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tfs.h"

#define M (1024ull * 1024)
#define WZ_BIT (1u << PREALLOC_METHOD_WRITE_ZEROES)

static struct tfs t;
static char tree[] = "/tmp/prealloc-tree-XXXXXX";

static void prealloc_and_check(const char *name, uint32_t want_refused)
{
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_census c = { .size = sizeof(c) };
	char path[256];
	int fd = open(tfs_path(&t, name, path, sizeof(path)), O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(prealloc_file_ex(fd, 100, 8 * M, NULL, &r), 0);
	assert_int_equal(r.refused, want_refused);
	assert_int_equal(r.method, PREALLOC_METHOD_URING);
	assert_int_equal(r.written, 1);
	assert_int_equal(prealloc_verify(fd, 0, 8 * M + 100, &c), 0);
	assert_int_equal(c.written_bytes, 8 * M + 100);
	close(fd);
}

static void kernel_refusal_falls_back_once(void **state)
{
	(void)state;
	prealloc_and_check("first", WZ_BIT);	/* planned, refused, fell back */
	prealloc_and_check("second", 0);	/* remembered: not tried again */
}

static int setup(void **state)
{
	char sys[256];

	(void)state;
	if (tfs_create_nvme(&t, 64, tree, sys, sizeof(sys)))
		return -1;
	return setenv("PREALLOC_SYSFS_ROOT", sys, 1);
}

static int teardown(void **state)
{
	(void)state;
	return tfs_destroy_nvme(&t, tree);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kernel_refusal_falls_back_once),
	};

	tfs_enter_for("ext4");
	return cmocka_run_group_tests(tests, setup, teardown);
}
