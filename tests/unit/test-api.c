/* SPDX-License-Identifier: MIT */
/* Argument validation of the public API; needs no privileges. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tfs.h"

static char dir[] = "/var/tmp/prealloc-api-XXXXXX";

static int open_tmp(const char *name, int flags)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, flags | O_CREAT | O_CLOEXEC, 0600);
}

/*
 * The public structs' layout is ABI: fields never move, new ones are only
 * appended.  A change here is an incompatible change (SONAME bump).
 */
#define AT(type, field, off) _Static_assert(offsetof(type, field) == (off), #type "." #field)
AT(struct prealloc_options, size, 0);
AT(struct prealloc_options, flags, 4);
AT(struct prealloc_options, method, 8);
AT(struct prealloc_options, queue_depth, 12);
AT(struct prealloc_options, request_bytes, 16);
AT(struct prealloc_options, progress, 24);
AT(struct prealloc_options, progress_data, 32);
AT(struct prealloc_options, max_rate, 40);
AT(struct prealloc_options, ctx, 48);
AT(struct prealloc_report, size, 0);
AT(struct prealloc_report, written, 4);
AT(struct prealloc_report, cow, 5);
AT(struct prealloc_report, method, 8);
AT(struct prealloc_report, refused, 12);
AT(struct prealloc_report, bytes_zeroed, 16);
AT(struct prealloc_report, bytes_kept, 24);
AT(struct prealloc_report, bytes_reserved, 32);
AT(struct prealloc_report, elapsed_ns, 40);
AT(struct prealloc_report, bytes_by_method, 48);
_Static_assert(sizeof(((struct prealloc_report *)0)->bytes_by_method) == 16 * 8,
	       "bytes_by_method never grows");
AT(struct prealloc_report, failed_phase, 176);
AT(struct prealloc_report, failed_step, 176);	/* its old name, the same bytes */
_Static_assert(sizeof(((struct prealloc_report *)0)->failed_phase) == 4 &&
	       sizeof(((struct prealloc_report *)0)->failed_step) == 4,
	       "failed_step is failed_phase");
AT(struct prealloc_report, failed_method, 180);
AT(struct prealloc_report, bytes_unknown, 184);
AT(struct prealloc_report, background, 192);
AT(struct prealloc_report, bytes_per_sec, 200);
AT(struct prealloc_report, undo_error, 208);
AT(struct prealloc_census, size, 0);
AT(struct prealloc_census, fiemap, 4);
AT(struct prealloc_census, written_bytes, 8);
AT(struct prealloc_census, unwritten_bytes, 16);
AT(struct prealloc_census, hole_bytes, 24);
AT(struct prealloc_census, shared_bytes, 32);
AT(struct prealloc_census, unknown_bytes, 40);

static void bad_flags_and_ranges(void **state)
{
	int fd = open_tmp("a", O_RDWR);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(prealloc_file(fd, 0, 4096, 1u << 31), -EINVAL);
	assert_int_equal(prealloc_file(fd, 0, 4096, 1u << 6), -EINVAL);
	assert_int_equal(prealloc_file(fd, 0, 4096, PREALLOC_CONCURRENT_WRITES | PREALLOC_ZERO_DATA),
			 -EINVAL);
	assert_int_equal(prealloc_file(fd, 0, 0, 0), -EINVAL);
	assert_int_equal(prealloc_file(fd, INT64_MAX, 1, 0), -EFBIG);
	assert_int_equal(prealloc_file(fd, 1, UINT64_MAX, 0), -EFBIG);
	assert_int_equal(prealloc_file(fd, UINT64_MAX, 1, 0), -EFBIG);
	/* Nothing above may have touched the file. */
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_blocks, 0);
	close(fd);
}

static void bad_descriptors(void **state)
{
	int ro = open_tmp("b", O_RDONLY), pathfd, fifo_fd, sv[2], nul;
	char fifo[128];

	(void)state;
	assert_int_equal(prealloc_file(-1, 0, 4096, 0), -EBADF);
	assert_int_equal(prealloc_file(1000000, 0, 4096, 0), -EBADF);
	assert_true(ro >= 0);
	assert_int_equal(prealloc_file(ro, 0, 4096, 0), -EBADF);
	close(ro);
	assert_int_equal(prealloc_file(ro, 0, 4096, 0), -EBADF);	/* closed */
	pathfd = open(dir, O_PATH | O_CLOEXEC);
	assert_int_equal(prealloc_file(pathfd, 0, 4096, 0), -EBADF);
	close(pathfd);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	fifo_fd = open(fifo, O_RDWR | O_CLOEXEC);
	assert_int_equal(prealloc_file(fifo_fd, 0, 4096, 0), -ESPIPE);
	close(fifo_fd);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(prealloc_file(sv[0], 0, 4096, 0), -ENODEV);
	close(sv[0]);
	close(sv[1]);
	nul = open("/dev/null", O_WRONLY | O_CLOEXEC);
	assert_int_equal(prealloc_file(nul, 0, 4096, 0), -ENODEV);
	close(nul);
}

static void sized_structs(void **state)
{
	struct {
		struct prealloc_options o;
		uint64_t future;
	} big = { .o = { .size = sizeof(big) } };
	struct prealloc_options small = { .size = 4 };
	struct prealloc_report r = { .size = 4 };
	struct prealloc_census cs = { .size = 4 };
	int fd = open_tmp("c", O_RDWR);

	(void)state;
	assert_int_equal(prealloc_file_ex(fd, 0, 4096, &small, NULL), -EINVAL);
	big.future = 1;
	assert_int_equal(prealloc_file_ex(fd, 0, 4096, &big.o, NULL), -E2BIG);
	big.future = 0;
	assert_int_equal(prealloc_file_ex(fd, 0, 4096, &big.o, NULL), 0);
	assert_int_equal(prealloc_file_ex(fd, 0, 4096, NULL, &r), -EINVAL);
	big.o.method = PREALLOC_METHOD_AIO + 1;
	assert_int_equal(prealloc_file_ex(fd, 0, 4096, &big.o, NULL), -EINVAL);
	assert_int_equal(prealloc_verify(fd, 0, 4096, NULL), -EINVAL);
	assert_int_equal(prealloc_verify(fd, 0, 4096, &cs), -EINVAL);
	cs.size = sizeof(cs);
	assert_int_equal(prealloc_verify(fd, 0, 0, &cs), -EINVAL);
	assert_int_equal(prealloc_verify(fd, INT64_MAX, 2, &cs), -EFBIG);
	close(fd);
}

/* A garbage size is refused, not followed through memory; 4096 is the
 * documented bound. */
static void insane_struct_sizes(void **state)
{
	static union {
		struct prealloc_options o;
		uint8_t bytes[4097];
	} big;
	struct prealloc_options o = { .size = 0xFFFFFFFF };
	struct prealloc_report r = { .size = 0xFFFFFFFF };
	int fd = open_tmp("g", O_RDWR);

	(void)state;
	assert_int_equal(prealloc_file_ex(fd, 0, 4096, &o, NULL), -E2BIG);
	assert_int_equal(prealloc_file_ex(fd, 0, 4096, NULL, &r), -E2BIG);
	big.o.size = 4096;
	assert_int_equal(prealloc_file_ex(fd, 0, 4096, &big.o, NULL), 0);
	big.o.size = 4097;
	assert_int_equal(prealloc_file_ex(fd, 0, 4096, &big.o, NULL), -E2BIG);
	close(fd);
}

/* An old caller's report is filled only as far as it knows it. */
static void short_report(void **state)
{
	struct {
		struct prealloc_report r;
		uint8_t canary[16];
	} buf;
	size_t known = offsetof(struct prealloc_report, bytes_kept);
	int fd = open_tmp("d", O_RDWR);

	(void)state;
	memset(&buf, 0xA5, sizeof(buf));
	buf.r.size = (uint32_t)known;
	assert_int_equal(prealloc_file_ex(fd, 0, 8192, NULL, &buf.r), 0);
	assert_int_equal(buf.r.size, known);
	assert_int_not_equal(buf.r.method, PREALLOC_METHOD_AUTO);
	assert_int_equal(buf.r.bytes_zeroed, 8192);
	for (size_t i = known; i < sizeof(buf); i++)
		assert_int_equal(((uint8_t *)&buf)[i], 0xA5);
	close(fd);
}

/* The caller's offset and flags are the caller's: an O_APPEND descriptor
 * must not make the zeros land at the end. */
static void descriptor_untouched(void **state)
{
	int fd = open_tmp("e", O_RDWR | O_APPEND);
	struct stat st;
	char buf[4];

	(void)state;
	assert_int_equal(write(fd, "data", 4), 4);
	assert_int_equal(lseek(fd, 2, SEEK_SET), 2);
	assert_int_equal(prealloc_file(fd, 0, 1 << 20, 0), 0);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 2);
	assert_int_equal(fcntl(fd, F_GETFL) & O_APPEND, O_APPEND);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 1 << 20);
	assert_int_equal(pread(fd, buf, 4, 0), 4);
	assert_memory_equal(buf, "data", 4);
	close(fd);
}

/* A database's descriptor: O_DIRECT|O_DSYNC, with unaligned edges to write. */
static void direct_sync_descriptor(void **state)
{
	int fd = open_tmp("f", O_RDWR | O_DIRECT | O_DSYNC);
	struct prealloc_census c = { .size = sizeof(c) };
	char buf[512];

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(prealloc_file(fd, 1000, 3 << 20, 0), 0);
	assert_int_equal(fcntl(fd, F_GETFL) & (O_DIRECT | O_DSYNC), O_DIRECT | O_DSYNC);
	assert_int_equal(prealloc_verify(fd, 0, 1000 + (3 << 20), &c), 0);
	/* The edge block [0, 4096) touches the range: written too. */
	assert_int_equal(c.written_bytes, 1000 + (3 << 20));
	close(fd);
	fd = open_tmp("f", O_RDONLY);
	assert_int_equal(pread(fd, buf, sizeof(buf), 1000), sizeof(buf));
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0);
	close(fd);
}

static void names_and_version(void **state)
{
	char want[32];

	(void)state;
	for (int m = 0; m <= PREALLOC_METHOD_AIO; m++)
		assert_int_equal(prealloc_method_from_name(prealloc_method_name(m)), m);
	assert_string_equal(prealloc_method_name(PREALLOC_METHOD_AIO), "aio");
	assert_null(prealloc_method_name(PREALLOC_METHOD_AIO + 1));
	assert_null(prealloc_method_name(PREALLOC_METHOD_SLOTS));
	assert_int_equal(prealloc_method_from_name("dd"), -EINVAL);
	assert_int_equal(prealloc_method_from_name(NULL), -EINVAL);
	assert_string_equal(prealloc_background_name(PREALLOC_BG_PACED), "paced");
	assert_string_equal(prealloc_background_name(PREALLOC_BG_IDLE_PRIO), "idle-ioprio");
	assert_string_equal(prealloc_background_name(PREALLOC_BG_ADAPTED), "adapted");
	assert_null(prealloc_background_name(0));
	assert_null(prealloc_background_name(PREALLOC_BG_PACED | PREALLOC_BG_ADAPTED));
	assert_null(prealloc_background_name(PREALLOC_BG_ADAPTED << 1));
	assert_string_equal(prealloc_write_zeroes_name(PREALLOC_WZ_NOT_WEIGHED), "not-weighed");
	assert_string_equal(prealloc_write_zeroes_name(PREALLOC_WZ_FS_REFUSED), "fs-refused");
	assert_string_equal(prealloc_write_zeroes_name(PREALLOC_WZ_KEEP_SIZE), "keep-size");
	assert_null(prealloc_write_zeroes_name(PREALLOC_WZ_KEEP_SIZE + 1));
	assert_string_equal(prealloc_phase_name(PREALLOC_PHASE_NONE), "none");
	assert_string_equal(prealloc_phase_name(PREALLOC_PHASE_SPACE_CHECK), "space-check");
	assert_string_equal(prealloc_phase_name(PREALLOC_PHASE_SYNC), "sync");
	assert_null(prealloc_phase_name(PREALLOC_PHASE_SYNC + 1));
	/* The old names: the same values, the same words. */
	for (int p = 0; p <= PREALLOC_PHASE_SYNC + 1; p++) {
		const char *a = prealloc_phase_name(p), *b = prealloc_step_name(p);

		assert_true(a == b || (a && b && !strcmp(a, b)));
	}
	assert_int_equal(PREALLOC_STEP_SPACE_CHECK, PREALLOC_PHASE_SPACE_CHECK);
	assert_int_equal(PREALLOC_STEP_SYNC, PREALLOC_PHASE_SYNC);
	{
		struct prealloc_report r = { .size = sizeof(r) };

		r.failed_phase = PREALLOC_PHASE_ZERO;
		assert_int_equal(r.failed_step, PREALLOC_STEP_ZERO);
		r.failed_step = PREALLOC_STEP_CLAIM;
		assert_int_equal(r.failed_phase, PREALLOC_PHASE_CLAIM);
	}
	snprintf(want, sizeof(want), "%d.%d.", PREALLOC_VERSION_MAJOR, PREALLOC_VERSION_MINOR);
	assert_memory_equal(prealloc_version(), want, strlen(want));
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return tfs_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bad_flags_and_ranges),
		cmocka_unit_test(bad_descriptors),
		cmocka_unit_test(sized_structs),
		cmocka_unit_test(insane_struct_sizes),
		cmocka_unit_test(short_report),
		cmocka_unit_test(descriptor_untouched),
		cmocka_unit_test(direct_sync_descriptor),
		cmocka_unit_test(names_and_version),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
