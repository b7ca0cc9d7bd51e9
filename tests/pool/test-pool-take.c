/* SPDX-License-Identifier: MIT */
/*
 * The pool's take (root; skip otherwise): argument checks, hits and misses,
 * the names and directories a segment is taken under, takes that must not
 * wait (NOWAIT), a forked child's pool, the descriptor's open flags and a
 * context in the configuration.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/wait.h>

#include "pool-fixture.h"
#include "tfs.h"

/* Extents of the whole file (FIEMAP): the segment was reserved in one go. */
static unsigned int extents(int fd)
{
	struct fiemap fm = { .fm_length = FIEMAP_MAX_OFFSET, .fm_flags = FIEMAP_FLAG_SYNC };

	assert_int_equal(ioctl(fd, FS_IOC_FIEMAP, &fm), 0);
	return fm.fm_mapped_extents;
}

static void bad_arguments(void **state)
{
	struct prealloc_pool_config c = { .size = sizeof(c), .segment_size = SEG, .target = 1 };
	struct prealloc_pool_stats s = { .size = 8 };
	struct prealloc_pool *p = NULL, *q = NULL;
	struct { struct prealloc_pool_config c; uint64_t extra; } big = { c, 1 };
	char dir[128], file[160];
	int dfd;

	(void)state;
	new_dir(dir, sizeof(dir));
	assert_int_equal(prealloc_pool_open(NULL, &c, &p), -EINVAL);
	assert_int_equal(prealloc_pool_open(dir, NULL, &p), -EINVAL);
	assert_int_equal(prealloc_pool_open(dir, &c, NULL), -EINVAL);
	c.size = 4;
	assert_int_equal(prealloc_pool_open(dir, &c, &p), -EINVAL);
	c.size = sizeof(c);
	big.c.size = sizeof(big);
	assert_int_equal(prealloc_pool_open(dir, &big.c, &p), -E2BIG);
	c.flags = 2;
	assert_int_equal(prealloc_pool_open(dir, &c, &p), -EINVAL);
	c.flags = 0;
	c.segment_size = 0;
	assert_int_equal(prealloc_pool_open(dir, &c, &p), -EINVAL);
	c.segment_size = SEG;
	c.target = PREALLOC_POOL_MAX_TARGET + 1;
	assert_int_equal(prealloc_pool_open(dir, &c, &p), -EINVAL);
	c.target = 1;
	snprintf(file, sizeof(file), "%s/missing", dir);
	assert_int_equal(prealloc_pool_open(file, &c, &p), -ENOENT);
	assert_null(p);

	assert_int_equal(prealloc_pool_open(dir, &c, &p), 0);
	assert_int_equal(prealloc_pool_open(dir, &c, &q), -EBUSY);	/* one pool per directory */
	assert_null(q);
	dfd = open_dir(dir);
	assert_int_equal(prealloc_pool_take(NULL, dfd, "x", 0), -EINVAL);
	assert_int_equal(prealloc_pool_take(p, dfd, "", 0), -EINVAL);
	assert_int_equal(prealloc_pool_take(p, dfd, NULL, 0), -EINVAL);
	assert_int_equal(prealloc_pool_take(p, dfd, "x", 1u << 1), -EINVAL);
	assert_int_equal(prealloc_pool_take(p, dfd, ".prealloc-tmp-999999", 0), -EINVAL);
	assert_int_equal(prealloc_pool_take(p, AT_FDCWD, "/x/.prealloc-ready-1", 0), -EINVAL);
	assert_int_equal(prealloc_pool_recycle(p, dfd, "x", PREALLOC_KEEP_SIZE), -EINVAL);
	assert_int_equal(prealloc_pool_recycle(p, dfd, "missing", 0), -ENOENT);
	/* The 0.2 name of the zero flag is still accepted; other bits are not. */
	assert_int_equal(prealloc_pool_recycle(p, dfd, "missing", PREALLOC_ZERO_DATA), -ENOENT);
	assert_int_equal(prealloc_pool_recycle(p, dfd, "missing", 1u << 0), -EINVAL);
	assert_int_equal(prealloc_pool_recycle(p, AT_FDCWD, dir, 0), -EINVAL);	/* a directory */
	/* A file with another link: its bytes are not only the caller's. */
	assert_int_equal(close(openat(dfd, "linked", O_RDWR | O_CREAT | O_EXCL, 0600)), 0);
	assert_int_equal(linkat(dfd, "linked", dfd, "link", 0), 0);
	assert_int_equal(prealloc_pool_recycle(p, dfd, "link", 0), -EINVAL);
	assert_int_equal(faccessat(dfd, "link", F_OK, 0), 0);
	/* The pool's own segments are not the caller's to give back. */
	assert_int_equal(prealloc_pool_recycle(p, dfd, ".prealloc-tmp-000001", 0), -EINVAL);
	assert_int_equal(prealloc_pool_recycle(p, dfd, ".prealloc-ready-000001", 0), -EINVAL);
	assert_int_equal(prealloc_pool_wait_ready(p, 2, -1), -EINVAL);	/* above target */
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -2), -EINVAL);
	assert_int_equal(prealloc_pool_get_stats(p, &s), -EINVAL);
	assert_int_equal(prealloc_pool_get_stats(p, NULL), -EINVAL);
	assert_int_equal(prealloc_pool_get_stats(NULL, &s), -EINVAL);
	prealloc_pool_close(p);
	prealloc_pool_close(NULL);
	close(dfd);
}

static void take_hits_and_names(void **state)
{
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	char dir[128], sub[160], other[64];
	struct tfs tmp = { .loop_fd = -1 };
	int dfd, sfd, fd, ofd;
	struct stat a, b;

	(void)state;
	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 3, 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 3, -1), 0);
	s = stats(p);
	assert_true(s.ready >= 3);
	assert_int_equal(s.target, 3);
	assert_true(s.created >= 3);
	/* Copy-on-write segments are reserved, not zeroed. */
	assert_true(s.bytes_zeroed + s.cow_segments * SEG >= 3 * SEG);
	assert_true(s.worker_ns > 0);
	assert_int_equal(s.hits + s.misses, 0);

	dfd = open_dir(dir);
	fd = prealloc_pool_take(p, dfd, "000001", 0);	/* the pool's own directory */
	check_segment(fd, SEG, true);
	assert_true(extents(fd) <= 2);	/* one reservation on a roomy filesystem */
	assert_int_equal(fstatat(dfd, "000001", &a, 0), 0);
	assert_int_equal(fstat(fd, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);
	/* An existing name is refused and the segment stays ready. */
	assert_int_equal(prealloc_pool_take(p, dfd, "000001", 0), -EEXIST);
	close(fd);

	/* Another directory of the same filesystem, by path relative to dfd. */
	snprintf(sub, sizeof(sub), "%s/wal", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	fd = prealloc_pool_take(p, dfd, "wal/000002", 0);
	check_segment(fd, SEG, true);
	close(fd);
	sfd = open_dir(sub);
	fd = prealloc_pool_take(p, sfd, "000003", 0);
	check_segment(fd, SEG, true);
	close(fd);
	close(sfd);

	/* Another filesystem: -EXDEV, and the segment is still in the pool. */
	assert_int_equal(prealloc_pool_wait_ready(p, 3, -1), 0);
	if (tfs_create(&tmp, "tmpfs", 16, NULL) == 0) {
		ofd = open(tmp.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		snprintf(other, sizeof(other), "x");
		assert_int_equal(prealloc_pool_take(p, ofd, other, 0), -EXDEV);
		assert_true(stats(p).ready >= 3);
		close(ofd);
		tfs_destroy(&tmp);
	}
	s = stats(p);
	assert_int_equal(s.hits, 3);
	assert_int_equal(s.misses, 0);
	prealloc_pool_close(p);

	/* Ready segments survive a close and are adopted by the next open. */
	p = open_pool(dir, SEG, 0, 1);
	assert_true(stats(p).ready >= 3);
	assert_int_equal(stats(p).ready, list(dir, READY_PREFIX, NULL, 0));
	assert_int_equal(list(dir, TMP_PREFIX, NULL, 0), 0);
	prealloc_pool_close(p);
	close(dfd);
}

static void take_miss(void **state)
{
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	char dir[128];
	int dfd, fd;

	(void)state;
	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 0, 1);	/* no worker growth */
	dfd = open_dir(dir);
	fd = prealloc_pool_take(p, dfd, "seg", 0);
	check_segment(fd, SEG, true);
	close(fd);
	s = stats(p);
	assert_int_equal(s.hits, 0);
	assert_int_equal(s.misses, 1);
	assert_true(s.foreground_wait_ns > 0);
	assert_int_equal(s.created, 0);
	assert_int_equal(s.ready, 0);
	/* Nothing but the taken segment is left. */
	assert_int_equal(list(dir, ".prealloc-", NULL, 0), 0);
	prealloc_pool_close(p);
	close(dfd);
}

/* NOWAIT hands out what is ready and, when nothing is, fails without making
 * one, leaving the name absent and the counters alone. */
static void take_nowait(void **state)
{
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	char dir[128];
	int dfd, fd;

	(void)state;
	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 1, 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);
	prealloc_pool_close(p);
	p = open_pool(dir, SEG, 0, 1);	/* one ready, no refill */
	dfd = open_dir(dir);
	fd = prealloc_pool_take(p, dfd, "first", PREALLOC_POOL_TAKE_NOWAIT);
	check_segment(fd, SEG, true);
	close(fd);
	assert_int_equal(prealloc_pool_take_ex(p, dfd, "second", PREALLOC_POOL_TAKE_NOWAIT, O_DSYNC),
			 -EAGAIN);
	assert_int_equal(faccessat(dfd, "second", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	assert_int_equal(errno, ENOENT);
	s = stats(p);
	assert_int_equal(s.hits, 1);
	assert_int_equal(s.misses, 0);
	assert_int_equal(s.foreground_wait_ns, 0);
	assert_int_equal(list(dir, ".prealloc-", NULL, 0), 0);
	prealloc_pool_close(p);
	close(dfd);
}

static void forked_child(void **state)
{
	struct prealloc_pool *p;
	char dir[128];
	int st;
	pid_t pid;

	(void)state;
	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 1, 1);
	/* Fork with the worker idle: what a busy worker had allocated would be
	 * unreachable in the child, and valgrind would say so. */
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct prealloc_pool_stats s = { .size = sizeof(s) };
		bool ok = prealloc_pool_take(p, AT_FDCWD, "/nonexistent/x", 0) == -ECHILD &&
			  prealloc_pool_get_stats(p, &s) == -ECHILD &&
			  prealloc_pool_prepare(p, AT_FDCWD, "/nonexistent/x", 0) == -ECHILD &&
			  prealloc_pool_wait_ready(p, 1, -1) == -ECHILD;

		prealloc_pool_close(p);	/* frees the child's copy only */
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(prealloc_pool_get_stats(p, &(struct prealloc_pool_stats){ .size = 16 }), 0);
	prealloc_pool_close(p);
}

/* take_ex() with @oflags: the descriptor has them (or O_DIRECT is refused
 * and the name stays free), and the segment is complete. */
static void take_with(struct prealloc_pool *p, int dfd, const char *name, int oflags)
{
	int fd = prealloc_pool_take_ex(p, dfd, name, 0, oflags), rfd;
	void *buf = NULL;

	if (fd == -EINVAL && (oflags & O_DIRECT)) {
		assert_int_equal(faccessat(dfd, name, F_OK, AT_SYMLINK_NOFOLLOW), -1);
		return;
	}
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & (oflags | O_ACCMODE), oflags | O_RDWR);
	assert_int_equal(fcntl(fd, F_GETFD), FD_CLOEXEC);
	assert_int_equal(posix_memalign(&buf, 4096, 4096), 0);
	memset(buf, 0, 4096);
	assert_int_equal(pwrite(fd, buf, 4096, 0), 4096);	/* aligned: also O_DIRECT */
	free(buf);
	close(fd);
	rfd = openat(dfd, name, O_RDONLY | O_CLOEXEC);	/* not O_DIRECT: any buffer */
	check_segment(rfd, SEG, true);
	close(rfd);
}

static void take_open_flags(void **state)
{
	struct prealloc_pool *p;
	char dir[128];
	struct watch w;
	int dfd;

	(void)state;
	dfd = open_dir(new_dir(dir, sizeof(dir)));
	p = open_pool(dir, SEG, 2, 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 2, -1), 0);
	assert_int_equal(prealloc_pool_take_ex(p, dfd, "x", 0, O_APPEND), -EINVAL);
	assert_int_equal(prealloc_pool_take_ex(p, dfd, "x", 0, O_WRONLY), -EINVAL);
	assert_int_equal(prealloc_pool_take_ex(p, dfd, "x", 0, O_CREAT | O_DSYNC), -EINVAL);
	assert_int_equal(prealloc_pool_take_ex(p, dfd, "x", 1u << 1, O_DSYNC), -EINVAL);
	assert_int_equal(prealloc_pool_take_ex(NULL, dfd, "x", 0, O_DSYNC), -EINVAL);
	assert_int_equal(faccessat(dfd, "x", F_OK, 0), -1);
	assert_int_equal(stats(p).ready, 2);
	take_with(p, dfd, "hit-dsync", O_DSYNC);		/* hits */
	take_with(p, dfd, "hit-direct", O_DIRECT);
	prealloc_pool_close(p);
	close(dfd);

	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 0, 1);	/* none ready */
	dfd = open_dir(dir);
	take_with(p, dfd, "miss-sync", O_SYNC);			/* misses */
	take_with(p, dfd, "miss-direct", O_DIRECT | O_DSYNC);
	assert_int_equal(stats(p).misses, 2);
	watch_start(&w, dir, IN_MOVED_TO);			/* a prepared name */
	assert_int_equal(prealloc_pool_prepare(p, dfd, "prepared", 0), 0);
	wait_moved_to(&w, "prepared");
	take_with(p, dfd, "prepared", O_DSYNC);
	assert_int_equal(stats(p).hits, 1);
	close(w.in);
	prealloc_pool_close(p);
	close(dfd);
}

/* A context in the config: the pool holds its own reference (the caller's
 * is dropped at once), and a 0.2-sized config is still accepted. */
static void config_context(void **state)
{
	struct prealloc_pool_config c = { .size = sizeof(c), .segment_size = SEG, .target = 1,
					  .free_floor = 1 };
	struct prealloc_pool *p;
	char dir[128];
	int dfd, fd;

	(void)state;
	dfd = open_dir(new_dir(dir, sizeof(dir)));
	assert_int_equal(prealloc_ctx_new(NULL, 0, &c.ctx), 0);
	assert_int_equal(prealloc_pool_open(dir, &c, &p), 0);
	assert_non_null(prealloc_ctx_unref(c.ctx));	/* the pool's reference */
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);
	fd = prealloc_pool_take(p, dfd, "a", 0);
	check_segment(fd, SEG, true);
	close(fd);
	prealloc_pool_close(p);

	c.ctx = NULL;
	c.size = offsetof(struct prealloc_pool_config, ctx);
	assert_int_equal(prealloc_pool_open(dir, &c, &p), 0);
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);
	prealloc_pool_close(p);
	close(dfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bad_arguments),
		cmocka_unit_test(take_hits_and_names),
		cmocka_unit_test(take_miss),
		cmocka_unit_test(take_nowait),
		cmocka_unit_test(forked_child),
		cmocka_unit_test(take_open_flags),
		cmocka_unit_test(config_context),
	};

	return POOL_RUN(tests);
}
