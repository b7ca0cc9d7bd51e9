/* SPDX-License-Identifier: MIT */
/*
 * Hostile input through the API and the tool (root; skip otherwise): bad
 * descriptors, file types and attributes, read-only mounts, ranges past the
 * largest file size, unknown flags and methods, options and report structs
 * of the wrong size, garbage on the command line.  Each must fail with its
 * own errno or exit code and leave the file (contents, size, free space)
 * exactly as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tcheck.h"
#include "tfs.h"

#define MiB (1ull << 20)

static struct tfs ext4;
static struct tfs xfs;
static bool have_xfs;

#define RW -1	/* make_file(): keep the read-write descriptor */

/* A file with 3 data ranges and a hole, open read-write or reopened with
 * @reopen flags. */
static int make_file(const struct tfs *t, const char *name, int reopen)
{
	char path[128];
	int fd;

	tfs_path(t, name, path, sizeof(path));
	unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(tc_write_pattern(fd, NULL, 1, 100, 5000), 0);
	assert_int_equal(tc_write_pattern(fd, NULL, 2, 70000, 3), 0);
	assert_int_equal(tc_write_pattern(fd, NULL, 3, 200000, 9000), 0);
	assert_int_equal(fsync(fd), 0);
	if (reopen != RW) {
		close(fd);
		fd = open(path, reopen | O_CLOEXEC);
		assert_true(fd >= 0);
	}
	return fd;
}

/* Nothing changed: bytes, size and (after a sync) free blocks. */
static void take(struct tc_before *b, int fd, const char *dir)
{
	assert_int_equal(tc_before_take(b, fd, dir), 0);
}

static void unchanged(struct tc_before *b, int fd)
{
	assert_int_equal(tc_snap_diff(fd, &b->snap), 0);
	assert_int_equal(syncfs(fd), 0);
	/* More may be free: xfs trims its speculative preallocation. */
	assert_true(tc_free_bytes(b->dir) >= b->free);
	tc_snap_free(&b->snap);
}

/* prealloc_file() on @fd fails with @err and changes nothing. */
static void refused(int fd, const char *dir, uint64_t off, uint64_t len,
		    unsigned int flags, int err)
{
	struct tc_before b;

	take(&b, fd, dir);
	assert_int_equal(prealloc_file(fd, off, len, flags), err);
	unchanged(&b, fd);
}

static void test_bad_fds(void **state)
{
	int fd, sp[2];
	char fifo[128];

	(void)state;
	assert_int_equal(prealloc_file(-1, 0, 4096, 0), -EBADF);
	assert_int_equal(prealloc_file(-12345, 0, 4096, 0), -EBADF);
	fd = make_file(&ext4, "closed", RW);
	close(fd);
	assert_int_equal(prealloc_file(fd, 0, 4096, 0), -EBADF);

	/* Read-only and O_PATH descriptors: EBADF, as fallocate(2) says. */
	fd = make_file(&ext4, "rdonly", O_RDONLY);
	refused(fd, ext4.dir, 0, MiB, 0, -EBADF);
	close(fd);
	fd = make_file(&ext4, "opath", O_PATH);
	assert_int_equal(prealloc_file(fd, 0, MiB, 0), -EBADF);
	close(fd);

	/* A directory can only be opened read-only (or O_PATH). */
	fd = open(ext4.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(prealloc_file(fd, 0, 4096, 0), -EBADF);
	close(fd);

	tfs_path(&ext4, "fifo", fifo, sizeof(fifo));
	assert_int_equal(mkfifo(fifo, 0600), 0);
	fd = open(fifo, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(prealloc_file(fd, 0, 4096, 0), -ESPIPE);
	close(fd);
	unlink(fifo);

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	assert_int_equal(prealloc_file(sp[0], 0, 4096, 0), -ENODEV);
	close(sp[0]);
	close(sp[1]);

	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(prealloc_file(fd, 0, 4096, 0), -ENODEV);
	assert_int_equal(prealloc_file(fd, 0, 4096, PREALLOC_ZERO_DATA), -ENODEV);
	close(fd);
}

/* O_APPEND works, writes at the asked offsets, and leaves the descriptor's
 * offset and flags alone. */
static void test_append_fd(void **state)
{
	int fd = make_file(&ext4, "append", O_RDWR | O_APPEND);
	struct tc_snap s;
	uint8_t *want;
	off_t pos;

	(void)state;
	assert_int_equal(tc_snap_take(fd, &s), 0);
	pos = lseek(fd, 1234, SEEK_SET);
	assert_int_equal(pos, 1234);
	assert_int_equal(prealloc_file(fd, 0, 2 * MiB, 0), 0);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 1234);
	assert_true(fcntl(fd, F_GETFL) & O_APPEND);
	want = calloc(1, 2 * MiB);
	assert_non_null(want);
	memcpy(want, s.data, s.size);
	assert_int_equal(tc_compare(fd, want, 2 * MiB), -1);
	{
		struct stat st;

		assert_int_equal(fstat(fd, &st), 0);
		assert_int_equal(st.st_size, 2 * MiB);
	}
	free(want);
	tc_snap_free(&s);
	close(fd);
}

static void set_attr(int fd, int attr, bool on)
{
	int a = 0;

	assert_int_equal(ioctl(fd, FS_IOC_GETFLAGS, &a), 0);
	a = on ? a | attr : a & ~attr;
	assert_int_equal(ioctl(fd, FS_IOC_SETFLAGS, &a), 0);
}

static void test_immutable_append_only(void **state)
{
	int fd = make_file(&ext4, "immutable", RW);

	(void)state;
	set_attr(fd, FS_IMMUTABLE_FL, true);
	refused(fd, ext4.dir, 0, 4 * MiB, 0, -EPERM);
	refused(fd, ext4.dir, 0, 4096, PREALLOC_ZERO_DATA, -EPERM);
	refused(fd, ext4.dir, 300000, 4096, PREALLOC_KEEP_SIZE, -EPERM);
	set_attr(fd, FS_IMMUTABLE_FL, false);
	close(fd);

	/* fallocate(0) works on an append-only file but nothing could undo
	 * it; a descriptor opened before chattr +a could punch nothing. */
	fd = make_file(&ext4, "append-only", RW);
	set_attr(fd, FS_APPEND_FL, true);
	refused(fd, ext4.dir, 0, 4 * MiB, 0, -EPERM);
	refused(fd, ext4.dir, 1000000, 4096, PREALLOC_KEEP_SIZE, -EPERM);
	{
		/* Also through an O_APPEND descriptor, the only kind it allows. */
		char path[128];
		int afd = open(tfs_path(&ext4, "append-only", path, sizeof(path)),
			       O_WRONLY | O_APPEND | O_CLOEXEC);

		struct tc_before b;

		assert_true(afd >= 0);
		take(&b, fd, ext4.dir);
		assert_int_equal(prealloc_file(afd, 0, 4 * MiB, 0), -EPERM);
		unchanged(&b, fd);
		close(afd);
	}
	set_attr(fd, FS_APPEND_FL, false);
	close(fd);
}

static void test_ranges(void **state)
{
	int fd = make_file(&ext4, "ranges", RW);
	const uint64_t max = (uint64_t)INT64_MAX;

	(void)state;
	refused(fd, ext4.dir, 0, 0, 0, -EINVAL);
	refused(fd, ext4.dir, 12345, 0, PREALLOC_KEEP_SIZE, -EINVAL);
	refused(fd, ext4.dir, max, 1, 0, -EFBIG);
	refused(fd, ext4.dir, max - 10, 11, 0, -EFBIG);
	refused(fd, ext4.dir, 1, max, 0, -EFBIG);
	refused(fd, ext4.dir, 0, UINT64_MAX, 0, -EFBIG);
	refused(fd, ext4.dir, UINT64_MAX, UINT64_MAX, 0, -EFBIG);
	refused(fd, ext4.dir, 1ull << 63, 4096, 0, -EFBIG);
	/* Inside loff_t but past ext4's largest file (16 TiB at 4 KiB blocks). */
	refused(fd, ext4.dir, 1ull << 50, 4096, 0, -EFBIG);
	refused(fd, ext4.dir, 1ull << 50, 4096, PREALLOC_KEEP_SIZE, -EFBIG);
	/* Fits the file size, not the filesystem: the precheck says so. */
	refused(fd, ext4.dir, 0, 1ull << 40, 0, -ENOSPC);
	refused(fd, ext4.dir, 4096, 1ull << 40, PREALLOC_KEEP_SIZE, -ENOSPC);
	refused(fd, ext4.dir, 1ull << 40, 1ull << 30, 0, -ENOSPC);
	close(fd);
	if (have_xfs) {
		fd = make_file(&xfs, "ranges", RW);
		/* xfs files reach loff_t's end: the last block is fine. */
		refused(fd, xfs.dir, max - 4095, 4096, 0, -EFBIG);
		assert_int_equal(prealloc_file(fd, max - 4096, 4096, 0), 0);
		assert_int_equal(lseek(fd, 0, SEEK_END), (off_t)max);
		assert_int_equal(ftruncate(fd, 209000), 0);
		refused(fd, xfs.dir, 1ull << 62, 1ull << 40, 0, -ENOSPC);
		close(fd);
	}
}

static void test_flags_methods(void **state)
{
	struct prealloc_options o = { .size = sizeof(o) };
	int fd = make_file(&ext4, "flags", RW);
	struct tc_before b;

	(void)state;
	refused(fd, ext4.dir, 0, MiB, 1u << 6, -EINVAL);
	refused(fd, ext4.dir, 0, MiB, PREALLOC_CONCURRENT_WRITES | PREALLOC_ZERO_DATA, -EINVAL);
	/* No way to order zeros on ext4: the distinct error, nothing changed. */
	refused(fd, ext4.dir, 0, MiB, PREALLOC_CONCURRENT_WRITES, -EOPNOTSUPP);
	refused(fd, ext4.dir, 0, MiB, 1u << 31, -EINVAL);
	refused(fd, ext4.dir, 0, MiB, ~0u, -EINVAL);
	take(&b, fd, ext4.dir);
	o.method = PREALLOC_METHOD_AIO + 1;
	assert_int_equal(prealloc_file_ex(fd, 0, MiB, &o, NULL), -EINVAL);
	o.method = 0xffffffffu;
	assert_int_equal(prealloc_file_ex(fd, 0, MiB, &o, NULL), -EINVAL);
	/* A method that cannot work on a regular file is refused, not faked. */
	o.method = PREALLOC_METHOD_ZEROOUT;
	assert_int_equal(prealloc_file_ex(fd, 0, MiB, &o, NULL), -EOPNOTSUPP);
	unchanged(&b, fd);
	close(fd);
	if (have_xfs) {
		/* xfs has no FALLOC_FL_WRITE_ZEROES (6.18). */
		fd = make_file(&xfs, "flags", RW);
		take(&b, fd, xfs.dir);
		o.method = PREALLOC_METHOD_WRITE_ZEROES;
		assert_int_equal(prealloc_file_ex(fd, 0, 2 * MiB, &o, NULL), -EOPNOTSUPP);
		unchanged(&b, fd);
		close(fd);
	}
	assert_null(prealloc_method_name(PREALLOC_METHOD_AIO + 1));
	assert_null(prealloc_method_name(~0u));
	assert_int_equal(prealloc_method_from_name(NULL), -EINVAL);
	assert_int_equal(prealloc_method_from_name(""), -EINVAL);
	assert_int_equal(prealloc_method_from_name("URING"), -EINVAL);
	assert_int_equal(prealloc_method_from_name("uring "), -EINVAL);
}

/* Sized structs: too small is EINVAL, a bigger one with a non-zero tail the
 * library does not know is E2BIG; a bigger report is filled only as far as
 * the library knows it. */
static void test_struct_sizes(void **state)
{
	struct {
		struct prealloc_options o;
		uint8_t tail[64];
	} big = { 0 };
	struct {
		struct prealloc_report r;
		uint8_t tail[64];
	} rbig;
	struct prealloc_report r;
	struct prealloc_census cs;
	int fd = make_file(&ext4, "sizes", RW);
	struct tc_before b;

	(void)state;
	take(&b, fd, ext4.dir);
	big.o.size = 0;
	assert_int_equal(prealloc_file_ex(fd, 0, MiB, &big.o, NULL), -EINVAL);
	big.o.size = 4;
	assert_int_equal(prealloc_file_ex(fd, 0, MiB, &big.o, NULL), -EINVAL);
	big.o.size = sizeof(big);
	big.tail[63] = 1;
	assert_int_equal(prealloc_file_ex(fd, 0, MiB, &big.o, NULL), -E2BIG);
	big.tail[63] = 0;
	big.tail[0] = 0x80;
	assert_int_equal(prealloc_file_ex(fd, 0, MiB, &big.o, NULL), -E2BIG);
	big.tail[0] = 0;
	big.o.flags = 1u << 9;
	assert_int_equal(prealloc_file_ex(fd, 0, MiB, &big.o, NULL), -EINVAL);
	big.o.flags = 0;
	r = (struct prealloc_report){ .size = 0 };
	assert_int_equal(prealloc_file_ex(fd, 0, MiB, NULL, &r), -EINVAL);
	r.size = offsetof(struct prealloc_report, method) - 1;
	assert_int_equal(prealloc_file_ex(fd, 0, MiB, NULL, &r), -EINVAL);
	unchanged(&b, fd);

	/* Options of exactly the known fields up to flags; bigger all-zero. */
	big.o.size = offsetof(struct prealloc_options, flags) + sizeof(big.o.flags);
	assert_int_equal(prealloc_file_ex(fd, 0, 64 * 1024, &big.o, NULL), 0);
	big.o.size = sizeof(big);
	memset(&rbig, 0x5a, sizeof(rbig));
	rbig.r.size = sizeof(rbig);
	assert_int_equal(prealloc_file_ex(fd, 0, 128 * 1024, &big.o, &rbig.r), 0);
	for (size_t i = 0; i < sizeof(rbig.tail); i++)
		assert_int_equal(rbig.tail[i], 0x5a);
	assert_int_equal(rbig.r.written, 1);
	/* A short report: nothing written past its size. */
	memset(&rbig, 0x5a, sizeof(rbig));
	rbig.r.size = offsetof(struct prealloc_report, bytes_zeroed);
	assert_int_equal(prealloc_file_ex(fd, 0, 4096, NULL, &rbig.r), 0);
	for (size_t i = offsetof(struct prealloc_report, bytes_zeroed); i < sizeof(rbig); i++)
		assert_int_equal(((uint8_t *)&rbig)[i], 0x5a);

	/* prealloc_verify() */
	assert_int_equal(prealloc_verify(fd, 0, 4096, NULL), -EINVAL);
	cs = (struct prealloc_census){ .size = 0 };
	assert_int_equal(prealloc_verify(fd, 0, 4096, &cs), -EINVAL);
	cs.size = sizeof(cs);
	assert_int_equal(prealloc_verify(fd, 0, 0, &cs), -EINVAL);
	assert_int_equal(prealloc_verify(fd, 1, UINT64_MAX, &cs), -EFBIG);
	assert_int_equal(prealloc_verify(-1, 0, 4096, &cs), -EBADF);
	close(fd);
	fd = open(ext4.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(prealloc_verify(fd, 0, 4096, &cs), -EISDIR);
	close(fd);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_int_equal(prealloc_verify(fd, 0, 4096, &cs), -EINVAL);
	close(fd);
}

/* A read-only mount: the API sees a read-only descriptor; the tool cannot
 * open the file for writing. */
static void test_readonly_mount(void **state)
{
	char path[128];
	int fd;

	(void)state;
	fd = make_file(&ext4, "ro", O_RDONLY);
	tfs_path(&ext4, "ro", path, sizeof(path));
	close(fd);
	assert_int_equal(mount(NULL, ext4.dir, NULL, MS_REMOUNT | MS_RDONLY, NULL), 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(prealloc_file(fd, 0, MiB, 0), -EBADF);
	assert_int_equal(open(path, O_RDWR | O_CLOEXEC), -1);
	assert_int_equal(errno, EROFS);
	close(fd);
	assert_int_equal(mount(NULL, ext4.dir, NULL, MS_REMOUNT, NULL), 0);
}

/* --- the tool ----------------------------------------------------------- */

/* Run the tool with @argv (NULL-terminated after the program name); return
 * its exit status and its stderr in @err. */
static int tool(char *err, size_t errlen, const char *const *args)
{
	const char *prog = getenv("PREALLOC_TOOL");
	char *argv[32];
	int pfd[2], st;
	size_t n = 0, i = 0;
	pid_t pid;

	argv[i++] = (char *)prog;
	for (; args[i - 1] && i < 31; i++)
		argv[i] = (char *)args[i - 1];
	argv[i] = NULL;
	assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(devnull, STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		execv(prog, argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		ssize_t r = read(pfd[0], err + n, errlen - 1 - n);

		if (r <= 0)
			break;
		n += (size_t)r;
		if (n == errlen - 1)
			break;
	}
	err[n] = 0;
	close(pfd[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

#define TOOL(err, ...) tool((err), sizeof(err), (const char *const[]){ __VA_ARGS__, NULL })

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void test_tool_usage(void **state)
{
	static const char *const bad_sizes[] = {
		"", "abc", "-5", "+5", " 5", "5 ", "1Q", "1Z", "1EB0", "1.5M", "0x10", "1MiBx", "1KK",
		"18446744073709551616", "99999999999999999999999", "16777216T", "16P0",
		"1iB", "M", "5KiBB",
	};
	char path[128], err[4096];
	int fd;

	(void)state;
	if (!getenv("PREALLOC_TOOL"))
		skip();
	tfs_path(&ext4, "tool-new", path, sizeof(path));
	for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
		const char *z = bad_sizes[i];
		int rc[3] = {
			TOOL(err, "run", "--length", z, path),
			TOOL(err, "run", "--length", "1M", "--offset", z, path),
			TOOL(err, "verify", "--length", z, path),
		};

		if (rc[0] != 2 || rc[1] != 2 || rc[2] != 2) {
			print_error("size '%s': exit %d %d %d, want 2\n", z, rc[0], rc[1], rc[2]);
			fail();
		}
	}
	assert_int_equal(TOOL(err, "run", "--length", "0", path), 2);
	assert_int_equal(TOOL(err, "run", path), 2);
	assert_int_equal(TOOL(err, "run", "--length", "1M"), 2);
	assert_int_equal(TOOL(err, "run", "--length", "1M", path, path), 2);
	assert_int_equal(TOOL(err, "run", "--length", "1M", "--method", "fast", path), 2);
	assert_int_equal(TOOL(err, "run", "--length", "1M", "--method", "", path), 2);
	assert_int_equal(TOOL(err, "run", "--length", "1M", "--queue-depth", "0", path), 2);
	assert_int_equal(TOOL(err, "run", "--length", "1M", "--request-size", "0", path), 2);
	assert_int_equal(TOOL(err, "run", "--length", "1M", "--bogus", path), 2);
	assert_int_equal(TOOL(err, "frobnicate", path), 2);
	assert_int_equal(TOOL(err, "verify", "--length", "0", path), 2);
	assert_int_equal(TOOL(err, "verify"), 2);
	assert_int_equal(TOOL(err, "probe"), 2);
	/* Usage errors never touch the disk. */
	assert_false(exists(path));

	/* An existing file is not changed by a usage error either. */
	fd = make_file(&ext4, "tool-old", RW);
	tfs_path(&ext4, "tool-old", path, sizeof(path));
	{
		struct tc_before b;

		take(&b, fd, ext4.dir);
		assert_int_equal(TOOL(err, "run", "--length", "1Z", path), 2);
		assert_int_equal(TOOL(err, "run", "--length", "1M", "--offset", "x", path), 2);
		unchanged(&b, fd);
	}
	close(fd);
}

/* Operational errors: exit 1 and "prealloc: PATH: reason". */
static void expect_fail(const char *path, const char *reason, const char *const *args)
{
	char err[4096], prefix[256];

	assert_int_equal(tool(err, sizeof(err), args), 1);
	snprintf(prefix, sizeof(prefix), "prealloc: %s: ", path);
	if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, reason)) {
		print_error("stderr was: %s\nwanted: %s...%s\n", err, prefix, reason);
		fail();
	}
}

#define EXPECT_FAIL(path, reason, ...) \
	expect_fail((path), (reason), (const char *const[]){ __VA_ARGS__, NULL })

static void test_tool_errors(void **state)
{
	char path[128], fifo[128], big[64], msg[4096];
	struct tc_before b;
	int fd;

	(void)state;
	if (!getenv("PREALLOC_TOOL"))
		skip();
	EXPECT_FAIL("/dev/null", "No such device", "run", "--length", "1M", "/dev/null");
	EXPECT_FAIL(ext4.dir, "Is a directory", "run", "--length", "1M", ext4.dir);
	EXPECT_FAIL("/nonexistent-dir/f", "No such file", "run", "--length", "1M",
		    "/nonexistent-dir/f");
	EXPECT_FAIL("/nonexistent-dir/f", "No such file", "verify", "/nonexistent-dir/f");
	tfs_path(&ext4, "tool-fifo", fifo, sizeof(fifo));
	assert_int_equal(mkfifo(fifo, 0600), 0);
	EXPECT_FAIL(fifo, "Illegal seek", "run", "--length", "1M", fifo);
	unlink(fifo);

	fd = make_file(&ext4, "tool-err", RW);
	tfs_path(&ext4, "tool-err", path, sizeof(path));
	take(&b, fd, ext4.dir);
	snprintf(big, sizeof(big), "%" PRIu64, (uint64_t)INT64_MAX);
	EXPECT_FAIL(path, "File too large", "run", "--offset", big, "--length", "1", path);
	EXPECT_FAIL(path, "File too large", "run", "--offset", "1P", "--length", "4K", path);
	EXPECT_FAIL(path, "out of space", "run", "--length", "1T", path);
	EXPECT_FAIL(path, "out of space", "run", "--length", "1T", "--keep-size", path);
	/* "Not supported here" exits 3, apart from failures and usage errors. */
	assert_int_equal(tool(msg, sizeof(msg), (const char *const[]){ "run", "--length", "1M",
			      "--method", "zeroout", path, NULL }), 3);
	assert_non_null(strstr(msg, "not possible"));
	set_attr(fd, FS_IMMUTABLE_FL, true);
	EXPECT_FAIL(path, "Operation not permitted", "run", "--length", "8M", path);
	set_attr(fd, FS_IMMUTABLE_FL, false);
	unchanged(&b, fd);
	close(fd);

	/* Read-only mount: the tool cannot even open the file. */
	assert_int_equal(mount(NULL, ext4.dir, NULL, MS_REMOUNT | MS_RDONLY, NULL), 0);
	EXPECT_FAIL(path, "Read-only file system", "run", "--length", "8M", path);
	assert_int_equal(mount(NULL, ext4.dir, NULL, MS_REMOUNT, NULL), 0);
}

static int setup(void **state)
{
	(void)state;
	if (tfs_create(&ext4, "ext4", 64, NULL))
		return -1;
	have_xfs = tfs_supported("xfs") && tfs_create(&xfs, "xfs", 320, NULL) == 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tfs_destroy(&xfs);
	tfs_destroy(&ext4);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_fds),
		cmocka_unit_test(test_append_fd),
		cmocka_unit_test(test_immutable_append_only),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_flags_methods),
		cmocka_unit_test(test_struct_sizes),
		cmocka_unit_test(test_readonly_mount),
		cmocka_unit_test(test_tool_usage),
		cmocka_unit_test(test_tool_errors),
	};

	tfs_enter();
	return cmocka_run_group_tests(tests, setup, teardown);
}
