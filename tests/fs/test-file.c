/* SPDX-License-Identifier: MIT */
/*
 * The promises of DESIGN.md section 2 on real filesystems: data kept at
 * unaligned offsets next to holes and unwritten extents (inside and beyond
 * EOF), zeros elsewhere, written state by FIEMAP, size semantics.
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
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include <unistd.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tfs.h"

#define K 1024ull
#define M (1024ull * 1024)

struct fs_case {
	const char *type;
	struct tfs t;
	bool fiemap_states;	/* unwritten extents visible and conversion meaningful */
	bool cow;
	int n;
};

/* The file as the test expects it: contents and size. */
struct model {
	uint8_t *buf;
	uint64_t size;
};

static struct fs_case *fs;	/* the group's filesystem */

static int open_new(const char *name, struct model *m, uint64_t cap)
{
	char path[256];

	m->buf = calloc(1, cap);
	m->size = 0;
	return open(tfs_path(&fs->t, name, path, sizeof(path)), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

static void put_data(int fd, struct model *m, uint64_t off, uint64_t len, uint8_t seed)
{
	uint8_t *p = m->buf + off;

	for (uint64_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7 + 1) | 1;	/* never zero */
	assert_int_equal(pwrite(fd, p, len, (off_t)off), (ssize_t)len);
	if (off + len > m->size)
		m->size = off + len;
}

static void put_unwritten(int fd, struct model *m, uint64_t off, uint64_t len, bool keep)
{
	assert_int_equal(fallocate(fd, keep ? FALLOC_FL_KEEP_SIZE : 0, (off_t)off, (off_t)len), 0);
	if (!keep && off + len > m->size)
		m->size = off + len;
}

static void check_contents(int fd, const struct model *m)
{
	struct stat st;
	uint8_t *got;

	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal((uint64_t)st.st_size, m->size);
	got = malloc(m->size + 1);
	assert_int_equal(pread(fd, got, m->size, 0), (ssize_t)m->size);
	for (uint64_t i = 0; i < m->size; i++)
		if (got[i] != m->buf[i])
			fail_msg("%s: byte %llu is %#x, want %#x", fs->type,
				 (unsigned long long)i, got[i], m->buf[i]);
	free(got);
}

/* What the report says of FALLOC_FL_WRITE_ZEROES after an automatic call
 * with whole blocks to zero on this group's filesystem: not weighed on a
 * copy-on-write or memory-backed one, else what the loop device allows. */
static uint32_t auto_wz(void)
{
	if (fs->cow || !fs->t.dev[0])
		return PREALLOC_WZ_NOT_WEIGHED;
	return tfs_wz_verdict(&fs->t);
}

static void check_written(int fd, uint64_t off, uint64_t len, const struct prealloc_report *r)
{
	struct prealloc_census c = { .size = sizeof(c) };

	assert_int_equal(r->cow, fs->cow);
	assert_int_equal(r->written, !fs->cow);
	assert_int_equal(prealloc_verify(fd, off, len, &c), 0);
	if (fs->fiemap_states) {
		assert_int_equal(c.hole_bytes, 0);
		assert_int_equal(c.unwritten_bytes, 0);
		assert_int_equal(c.written_bytes, len);
	}
}

/* Data at unaligned offsets, holes, unwritten extents inside and past EOF. */
static void mixed_layout(void **state)
{
	struct prealloc_report r = { .size = sizeof(r) };
	struct model m;
	int fd = open_new("mixed", &m, 16 * M);
	uint64_t off = 1000, len = 9 * M + 123;

	(void)state;
	put_data(fd, &m, 5000, 100, 1);
	put_unwritten(fd, &m, 64 * K, 256 * K, false);
	put_data(fd, &m, 200 * K + 17, 10000, 2);		/* inside the unwritten extent */
	put_data(fd, &m, 1 * M + 4095, 2, 3);			/* straddles a block edge */
	put_data(fd, &m, 3 * M - 1, 1, 4);			/* old EOF, unaligned */
	put_unwritten(fd, &m, 4 * M, 2 * M, true);		/* past EOF, keep size */
	assert_int_equal(prealloc_file_ex(fd, off, len, NULL, &r), 0);
	m.size = off + len;
	check_contents(fd, &m);
	check_written(fd, off, len, &r);
	assert_int_equal(r.bytes_kept + r.bytes_zeroed + r.bytes_reserved, len);
	assert_int_equal(r.write_zeroes, auto_wz());
	if (!fs->cow)
		assert_int_equal(r.bytes_reserved, 0);
	close(fd);
	free(m.buf);
}

/* Data before the range and beyond its end are not the call's business. */
static void range_inside_file(void **state)
{
	struct prealloc_report r = { .size = sizeof(r) };
	struct model m;
	int fd = open_new("inside", &m, 8 * M);

	(void)state;
	put_data(fd, &m, 0, 10, 5);
	put_data(fd, &m, 6 * M, 4 * K, 6);	/* beyond the range, sets EOF */
	assert_int_equal(prealloc_file_ex(fd, 1 * M + 512, 2 * M, NULL, &r), 0);
	check_contents(fd, &m);
	check_written(fd, 1 * M + 512, 2 * M, &r);
	close(fd);
	free(m.buf);
}

static void keep_size(void **state)
{
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_census c = { .size = sizeof(c) };
	struct model m;
	int fd = open_new("keep", &m, 4 * M);

	(void)state;
	put_data(fd, &m, 0, 100 * K + 3, 7);
	assert_int_equal(prealloc_file_ex(fd, 0, 2 * M, &(struct prealloc_options){
		.size = sizeof(struct prealloc_options), .flags = PREALLOC_KEEP_SIZE }, &r), 0);
	check_contents(fd, &m);		/* size unchanged */
	assert_int_equal(r.written, 0);
	/* The device's reason comes before keep-size's (test-fallback has
	 * keep-size over a device that can). */
	assert_int_equal(r.write_zeroes, auto_wz());
	assert_true(r.bytes_reserved >= 2 * M - 104 * K);
	assert_int_equal(prealloc_verify(fd, 0, 2 * M, &c), 0);
	if (fs->fiemap_states)
		assert_int_equal(c.hole_bytes, 0);	/* reserved */
	close(fd);
	free(m.buf);
}

/*
 * Appending writes make xfs preallocate beyond EOF on its own, and it trims
 * that space at the next close unless a fallocate() marked the file
 * preallocated: a keep-size call over such blocks must still reserve them.
 */
static void keep_size_over_eof_blocks(void **state)
{
	struct prealloc_census before = { .size = sizeof(before) }, c = { .size = sizeof(c) };
	const uint64_t off = 6 * M + 64 * K, len = M;
	char path[256];
	struct model m;
	int fd = open_new("appended", &m, 8 * M);

	(void)state;
	for (uint64_t o = 0; o < 6 * M; o += 128 * K)
		put_data(fd, &m, o, 128 * K, (uint8_t)o);
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(prealloc_verify(fd, off, len, &before), 0);
	/* The case itself: xfs's own blocks there before the call. */
	if (!strcmp(fs->type, "xfs"))
		assert_true(before.hole_bytes < len);
	assert_int_equal(prealloc_file(fd, off, len, PREALLOC_KEEP_SIZE), 0);
	close(fd);
	fd = open(tfs_path(&fs->t, "appended", path, sizeof(path)), O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	check_contents(fd, &m);
	assert_int_equal(prealloc_verify(fd, off, len, &c), 0);
	if (fs->fiemap_states)
		assert_int_equal(c.hole_bytes, 0);
	print_message("%s: %llu of %llu bytes allocated beyond EOF before the call\n", fs->type,
		      (unsigned long long)(len - before.hole_bytes), (unsigned long long)len);
	close(fd);
	free(m.buf);
}

static void zero_data(void **state)
{
	struct prealloc_report r = { .size = sizeof(r) };
	struct model m;
	int fd = open_new("zerodata", &m, 4 * M);

	(void)state;
	put_data(fd, &m, 0, 3 * M, 8);
	assert_int_equal(prealloc_file_ex(fd, 4097, 1 * M, &(struct prealloc_options){
		.size = sizeof(struct prealloc_options), .flags = PREALLOC_ZERO_DATA }, &r), 0);
	memset(m.buf + 4097, 0, 1 * M);
	check_contents(fd, &m);
	assert_int_equal(r.bytes_kept, 0);
	assert_int_equal(r.bytes_zeroed, 1 * M);
	close(fd);
	free(m.buf);
}

/* Each method alone keeps the same promises. */
static void forced_methods(void **state)
{
	static const unsigned int methods[] = {
		PREALLOC_METHOD_URING, PREALLOC_METHOD_BUFFERED, PREALLOC_METHOD_AIO,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		struct prealloc_options o = { .size = sizeof(o), .method = methods[i],
					      .queue_depth = 3, .request_bytes = 1 * M + 512 };
		struct prealloc_report r = { .size = sizeof(r) };
		struct model m;
		int fd = open_new(prealloc_method_name(methods[i]), &m, 8 * M);

		put_data(fd, &m, 3 * M + 5, 1000, 9);
		assert_int_equal(prealloc_file_ex(fd, 1, 7 * M, &o, &r), 0);
		m.size = 7 * M + 1;
		check_contents(fd, &m);
		assert_int_equal(r.method, methods[i]);
		assert_int_equal(r.write_zeroes, PREALLOC_WZ_NOT_WEIGHED);	/* forced */
		if (!fs->cow) {
			assert_int_equal(r.written, 1);
			check_written(fd, 1, 7 * M, &r);
		}
		close(fd);
		free(m.buf);
	}
}

/* allocate = fallocate(0): the baseline that leaves unwritten extents. */
static void forced_allocate_is_not_written(void **state)
{
	struct prealloc_options o = { .size = sizeof(o), .method = PREALLOC_METHOD_ALLOCATE };
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_census c = { .size = sizeof(c) };
	struct model m;
	int fd = open_new("allocate", &m, 4 * M);

	(void)state;
	assert_int_equal(prealloc_file_ex(fd, 0, 4 * M, &o, &r), 0);
	m.size = 4 * M;
	check_contents(fd, &m);
	assert_int_equal(prealloc_verify(fd, 0, 4 * M, &c), 0);
	if (fs->fiemap_states) {
		assert_int_equal(r.written, 0);
		assert_int_equal(c.unwritten_bytes, 4 * M);
	}
	close(fd);
	free(m.buf);
}

/* No device here can unmap-zero: forcing the kernel flag fails cleanly,
 * and the report says why: the loop device (or, before 6.17, the kernel);
 * with no device facts, the filesystem or the device: tmpfs, and btrfs,
 * whose files have an anonymous device number. */
static void forced_write_zeroes_refused(void **state)
{
	struct prealloc_options o = { .size = sizeof(o), .method = PREALLOC_METHOD_WRITE_ZEROES };
	struct prealloc_report r = { .size = sizeof(r) };
	struct model m;
	struct stat st;
	int fd = open_new("wz", &m, 1 * M);

	(void)state;
	put_data(fd, &m, 0, 100, 10);
	assert_int_equal(prealloc_file_ex(fd, 0, 1 * M, &o, &r), -EOPNOTSUPP);
	assert_int_equal(r.failed_method, PREALLOC_METHOD_WRITE_ZEROES);
	assert_int_equal(r.write_zeroes, fs->t.dev[0] && !fs->cow ? tfs_wz_verdict(&fs->t) :
								    PREALLOC_WZ_FS_OR_DEVICE);
	check_contents(fd, &m);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true((uint64_t)st.st_blocks * 512 <= 64 * K);
	close(fd);
	free(m.buf);
}

/* A second call finds everything written and does nothing. */
static void idempotent(void **state)
{
	struct prealloc_report r = { .size = sizeof(r) };
	struct model m;
	int fd = open_new("again", &m, 2 * M);

	(void)state;
	assert_int_equal(prealloc_file(fd, 0, 2 * M, 0), 0);
	assert_int_equal(prealloc_file_ex(fd, 0, 2 * M, NULL, &r), 0);
	/* Without FIEMAP (tmpfs) allocated pages look like holes: re-allocated. */
	if (fs->fiemap_states) {
		assert_int_equal(r.bytes_zeroed, 0);
		assert_int_equal(r.bytes_kept, 2 * M);
	}
	close(fd);
	free(m.buf);
}

/* Reflinked data is kept, and the report says overwrites will not go in place. */
static void shared_extents(void **state)
{
	struct prealloc_report r = { .size = sizeof(r) };
	struct model m, clone_m;
	int fd = open_new("orig", &m, 2 * M), clone = open_new("clone", &clone_m, 2 * M);

	(void)state;
	put_data(fd, &m, 0, 1 * M, 12);
	assert_int_equal(fsync(fd), 0);
	if (ioctl(clone, FICLONE, fd) < 0) {
		close(clone);
		close(fd);
		free(m.buf);
		free(clone_m.buf);
		skip();		/* no reflink here (ext4, tmpfs) */
	}
	memcpy(clone_m.buf, m.buf, 1 * M);
	clone_m.size = 1 * M;
	assert_int_equal(prealloc_file_ex(clone, 0, 2 * M, NULL, &r), 0);
	clone_m.size = 2 * M;
	check_contents(clone, &clone_m);
	assert_int_equal(r.cow, 1);
	assert_int_equal(r.written, 0);
	assert_int_equal(r.bytes_kept, 1 * M);
	close(clone);
	close(fd);
	free(m.buf);
	free(clone_m.buf);
}

static int progress_cancel(uint64_t done, uint64_t total, void *data)
{
	(void)total;
	return done >= *(uint64_t *)data;
}

/* A cancelled call undoes itself: size and space as before. */
static void cancel_undoes(void **state)
{
	uint64_t stop = 2 * M;
	struct prealloc_options o = { .size = sizeof(o), .progress = progress_cancel,
				      .progress_data = &stop, .request_bytes = 1 * M };
	struct model m;
	struct stat st;
	int fd;

	(void)state;
	if (fs->cow)
		skip();		/* reservation only: one step, nothing to cancel */
	fd = open_new("cancel", &m, 1 * M);
	put_data(fd, &m, 0, 5000, 11);
	assert_int_equal(prealloc_file_ex(fd, 0, 32 * M, &o, NULL), -ECANCELED);
	check_contents(fd, &m);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true((uint64_t)st.st_blocks * 512 <= 64 * K);
	close(fd);
	free(m.buf);
}

static int group_setup(void **state)
{
	int ret = tfs_create(&fs->t, fs->type, strcmp(fs->type, "xfs") == 0 ? 320 : 256, NULL);

	(void)state;
	if (ret)
		print_error("cannot create %s: %s\n", fs->type, strerror(-ret));
	return ret;
}

static int group_teardown(void **state)
{
	(void)state;
	tfs_destroy(&fs->t);
	return 0;
}

int main(void)
{
	static struct fs_case cases[] = {
		{ .type = "ext4", .fiemap_states = true },
		{ .type = "xfs", .fiemap_states = true },
		{ .type = "btrfs", .cow = true },
		{ .type = "tmpfs" },
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mixed_layout),
		cmocka_unit_test(range_inside_file),
		cmocka_unit_test(keep_size),
		cmocka_unit_test(keep_size_over_eof_blocks),
		cmocka_unit_test(zero_data),
		cmocka_unit_test(forced_methods),
		cmocka_unit_test(forced_allocate_is_not_written),
		cmocka_unit_test(forced_write_zeroes_refused),
		cmocka_unit_test(idempotent),
		cmocka_unit_test(cancel_undoes),
		cmocka_unit_test(shared_extents),
	};
	int failed = 0;

	tfs_enter();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fs = &cases[i];
		if (!tfs_supported(fs->type)) {
			print_message("skip %s: not available here\n", fs->type);
			continue;
		}
		failed += cmocka_run_group_tests_name(fs->type, tests, group_setup, group_teardown);
	}
	return failed ? 1 : 0;
}
