/* SPDX-License-Identifier: MIT */
/*
 * What the pool finds in its directory (root; skip otherwise): FIFOs,
 * devices, directories, symbolic and hard links under its names, left alone
 * and never blocked on; copy-on-write segments on btrfs (with and without
 * chattr +C) adopted by the next open; the tool's pool command filling and
 * inspecting a directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "pool-fixture.h"

/*
 * btrfs: without +C on the directory a segment is allocated and durable but
 * not written (overwrites go to new blocks anyway), with +C it is written as
 * on ext4.  Either way the worker's segments are adopted again by the next
 * open: creation and adoption agree.
 */
static void cow_pool(bool nocow)
{
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	char dir[128];
	int dfd, attr = 0;

	dfd = open_dir(new_dir(dir, sizeof(dir)));
	if (nocow) {	/* chattr +C: new files inherit it */
		assert_int_equal(ioctl(dfd, FS_IOC_GETFLAGS, &attr), 0);
		attr |= FS_NOCOW_FL;
		assert_int_equal(ioctl(dfd, FS_IOC_SETFLAGS, &attr), 0);
	}
	p = open_pool(dir, SEG, 3, 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 3, -1), 0);
	s = stats(p);
	assert_int_equal(s.cow_segments, nocow ? 0 : s.created);
	assert_true(nocow ? s.bytes_zeroed >= 3 * SEG : s.bytes_zeroed == 0);
	prealloc_pool_close(p);

	p = open_pool(dir, SEG, 0, 1);
	s = stats(p);
	assert_int_equal(s.ready, 3);
	assert_int_equal(s.cow_segments, nocow ? 0 : 3);
	for (int i = 0; i < 3; i++) {
		struct prealloc_census cs = { .size = sizeof(cs) };
		char name[16];
		int fd;

		snprintf(name, sizeof(name), "wal-%d", i);
		fd = prealloc_pool_take(p, dfd, name, 0);
		check_segment(fd, SEG, true);
		assert_int_equal(file_cow(fd), !nocow);
		assert_int_equal(prealloc_verify(fd, 0, SEG, &cs), 0);
		assert_int_equal(cs.written_bytes, nocow ? SEG : 0);
		close(fd);
	}
	close(dfd);
	assert_int_equal(stats(p).hits, 3);	/* every one adopted */
	prealloc_pool_close(p);
}

static void cow_segments_adopted(void **state)
{
	(void)state;
	if (strcmp(pool_fstype, "btrfs") != 0)
		skip();
	for (int nocow = 0; nocow <= 1; nocow++)	/* the default, then chattr +C */
		cow_pool(nocow);
}

/* Things under the pool's names that the pool cannot have made.  Sequence 0
 * and 1 are what a fresh pool would make first: it must step past them. */
static const struct foreign {
	const char *name;
	mode_t type;
} foreign[] = {
	{ READY_PREFIX "000000", S_IFIFO },	/* open() would block */
	{ TMP_PREFIX "000001", S_IFDIR },	/* unlink() would fail */
	{ READY_PREFIX "000999", S_IFIFO },
	{ TMP_PREFIX "000998", S_IFIFO },
	{ READY_PREFIX "000997", S_IFLNK },	/* to a complete segment-sized file */
	{ READY_PREFIX "000996", S_IFDIR },
	{ READY_PREFIX "000995", S_IFCHR },
	{ READY_PREFIX "000994", S_IFREG },	/* a hard link to "data" */
	{ TMP_PREFIX "000993", S_IFREG },	/* a hard link to "data" */
};

static void make_foreign(int dfd)
{
	int fd = openat(dfd, "data", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	/* A complete segment by content: only its links make it not the pool's. */
	assert_true(fd >= 0);
	assert_int_equal(prealloc_file(fd, 0, SEG, 0), 0);
	close(fd);
	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		const char *n = foreign[i].name;
		int ret;

		switch (foreign[i].type) {
		case S_IFIFO: ret = mkfifoat(dfd, n, 0600); break;
		case S_IFDIR: ret = mkdirat(dfd, n, 0700); break;
		case S_IFLNK: ret = symlinkat("data", dfd, n); break;
		case S_IFCHR: ret = mknodat(dfd, n, S_IFCHR | 0600, makedev(1, 3)); break;
		default: ret = linkat(dfd, "data", dfd, n, 0); break;
		}
		assert_int_equal(ret, 0);
	}
}

/* In a child under alarm(), so that a scan that blocks fails the test
 * instead of hanging it: open, fill, close and reopen the pool.  The exit
 * status says which step failed. */
static void open_twice(const char *dir)
{
	struct prealloc_pool_stats s = { .size = sizeof(s) };
	struct prealloc_pool *p;
	struct prealloc_pool_config c = { .size = sizeof(c), .segment_size = SEG, .target = 2,
					  .free_floor = 1 };

	alarm(30);	/* seconds of work at most, even under sanitizers */
	if (prealloc_pool_open(dir, &c, &p))
		_exit(2);
	if (prealloc_pool_wait_ready(p, 2, -1) || prealloc_pool_get_stats(p, &s) ||
	    s.ready != 2 || s.last_error || s.misses)
		_exit(3);
	prealloc_pool_close(p);
	c.target = 0;
	if (prealloc_pool_open(dir, &c, &p))
		_exit(4);
	if (prealloc_pool_get_stats(p, &s) || s.ready != 2)
		_exit(5);
	prealloc_pool_close(p);
	_exit(0);
}

static void foreign_names_left_alone(void **state)
{
	struct stat st;
	char dir[128];
	int dfd, ws;
	pid_t pid;

	(void)state;
	dfd = open_dir(new_dir(dir, sizeof(dir)));
	make_foreign(dfd);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		open_twice(dir);
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	if (WIFSIGNALED(ws))
		fail_msg("the pool hung or crashed (signal %d)", WTERMSIG(ws));
	assert_int_equal(WEXITSTATUS(ws), 0);
	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		assert_int_equal(fstatat(dfd, foreign[i].name, &st, AT_SYMLINK_NOFOLLOW), 0);
		assert_int_equal(st.st_mode & S_IFMT, foreign[i].type);
	}
	assert_int_equal(fstatat(dfd, "data", &st, 0), 0);
	assert_int_equal(st.st_nlink, 3);
	assert_int_equal((uint64_t)st.st_size, SEG);
	/* The two the pool made, and the six foreign ready names. */
	assert_int_equal(list(dir, READY_PREFIX, NULL, 0), 2 + 6);
	close(dfd);
}

static int tool(const char *args)
{
	const char *exe = getenv("PREALLOC_TOOL");
	char cmd[512];
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s >/dev/null 2>&1", exe, args);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void tool_fills_and_inspects(void **state)
{
	char dir[128], args[256];

	(void)state;
	if (!getenv("PREALLOC_TOOL"))
		skip();
	new_dir(dir, sizeof(dir));
	snprintf(args, sizeof(args), "pool %s --segment-size 4M --count 3 --free-floor 1", dir);
	assert_int_equal(tool(args), 0);
	assert_int_equal(list(dir, READY_PREFIX, NULL, 0), 3);
	assert_int_equal(list(dir, TMP_PREFIX, NULL, 0), 0);
	snprintf(args, sizeof(args), "pool %s --segment-size 4M --json", dir);	/* inspect */
	assert_int_equal(tool(args), 0);
	assert_int_equal(list(dir, READY_PREFIX, NULL, 0), 3);
	snprintf(args, sizeof(args), "pool %s --count 3", dir);	/* no segment size */
	assert_int_equal(tool(args), 2);
	snprintf(args, sizeof(args), "pool %s/missing --segment-size 4M", dir);
	assert_int_equal(tool(args), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(foreign_names_left_alone),
		cmocka_unit_test(cow_segments_adopted),
		cmocka_unit_test(tool_fills_and_inspects),
	};

	return POOL_RUN(tests);
}
