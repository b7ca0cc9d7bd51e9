/* SPDX-License-Identifier: MIT */
/*
 * A call leaves alone what the calling process owns (root; skip otherwise),
 * on ext4 and xfs: a POSIX record lock the process holds on the file is
 * still its own after the call, seen from another process (F_GETLK names
 * this process), whatever the call: every method, background, async
 * (waited for and cancelled), failed (ENOSPC), cancelled by its callback,
 * an O_APPEND descriptor, a block device, the probe on an O_PATH
 * descriptor, the census on an O_RDONLY one (tmpfs, no FIEMAP), a
 * segment of the pool while the pool works on.  The descriptor's status
 * flags and offset are as they were, a write lease is kept.
 *
 * And the library's own ordering never meets the process's locks: during
 * an async call the process's whole-file F_SETLK and lockf(F_TLOCK, 0) are
 * granted; a progress callback that takes lockf(fd, F_LOCK, 0) returns.
 *
 * Nothing waits on time: the async call is held inside its progress
 * callback by a pipe while the test takes its locks.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "prealloc.h"
#include "prealloc-pool.h"
#include "tcheck.h"
#include "tfs.h"

#define MiB (1ull << 20)
#define OFFSET 12345		/* the caller's file offset, kept */

static struct tfs t;
static const char *fs_type;

static pid_t holder(const char *path, off_t start, off_t len)
{
	int who = tc_lock_holder(path, start, len);

	assert_true(who != -2);
	return who;
}

static int set_lock(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock f = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };

	return fcntl(fd, cmd, &f);
}

/* What the caller owns before the call, to be found again after it. */
struct owned {
	char path[128];
	int fd;
	int flags;
};

/* A file with 64 KiB of data, the process's write lock on [0, 4096) and
 * its read lock from 1 MiB to the end, the offset at OFFSET. */
static void own(struct owned *o, const char *name, int oflags)
{
	static const char data[64 << 10] = { 'D' };

	tfs_path(&t, name, o->path, sizeof(o->path));
	o->fd = open(o->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | oflags, 0644);
	assert_true(o->fd >= 0);
	assert_int_equal(pwrite(o->fd, data, sizeof(data), 0), (ssize_t)sizeof(data));
	assert_int_equal(lseek(o->fd, OFFSET, SEEK_SET), OFFSET);
	assert_int_equal(set_lock(o->fd, F_SETLK, F_WRLCK, 0, 4096), 0);
	assert_int_equal(set_lock(o->fd, F_SETLK, F_RDLCK, MiB, 0), 0);
	o->flags = fcntl(o->fd, F_GETFL);
}

static void still_owned(const struct owned *o, const char *what)
{
	print_message("%s: %s\n", fs_type, what);
	assert_int_equal(holder(o->path, 0, 4096), getpid());
	assert_int_equal(holder(o->path, 8 * MiB, 0), getpid());
	assert_int_equal(holder(o->path, 8192, 4096), 0);
	assert_int_equal(fcntl(o->fd, F_GETFL), o->flags);
	assert_int_equal(lseek(o->fd, 0, SEEK_CUR), OFFSET);
}

static void disown(struct owned *o)
{
	close(o->fd);
	unlink(o->path);
}

static int call(int fd, unsigned int method, uint32_t flags, prealloc_progress_fn fn)
{
	struct prealloc_options opt = { .size = sizeof(opt), .method = method, .flags = flags,
					.progress = fn };

	return prealloc_file_ex(fd, 0, 8 * MiB, &opt, NULL);
}

static int cancel_late(uint64_t done, uint64_t total, void *data)
{
	(void)total;
	(void)data;
	return done > 0;
}

static void every_method(void **state)
{
	static const struct {
		const char *what;
		unsigned int method;
		uint32_t flags;
		prealloc_progress_fn fn;
		int ret;
	} cases[] = {
		{ "auto", PREALLOC_METHOD_AUTO, 0, NULL, 0 },
		{ "uring", PREALLOC_METHOD_URING, 0, NULL, 0 },
		{ "aio", PREALLOC_METHOD_AIO, 0, NULL, 0 },
		{ "buffered", PREALLOC_METHOD_BUFFERED, 0, NULL, 0 },
		{ "background", PREALLOC_METHOD_AUTO, PREALLOC_BACKGROUND, NULL, 0 },
		{ "cancelled by its callback", PREALLOC_METHOD_AUTO, 0, cancel_late, -ECANCELED },
	};
	struct owned o;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		own(&o, "methods", 0);
		assert_int_equal(call(o.fd, cases[i].method, cases[i].flags, cases[i].fn),
				 cases[i].ret);
		still_owned(&o, cases[i].what);
		disown(&o);
	}
}

static void failed_and_append(void **state)
{
	struct owned o;

	(void)state;
	own(&o, "enospc", 0);
	assert_int_equal(prealloc_file(o.fd, 0, 1ull << 40, 0), -ENOSPC);
	still_owned(&o, "failed with ENOSPC");
	disown(&o);

	own(&o, "append", O_APPEND);
	assert_int_equal(prealloc_file(o.fd, 0, 8 * MiB, 0), 0);
	still_owned(&o, "O_APPEND descriptor");
	disown(&o);
}

static void async_calls(void **state)
{
	struct prealloc_options opt = { .size = sizeof(opt) };
	struct prealloc_async *h;
	struct owned o;

	(void)state;
	own(&o, "async", 0);
	assert_int_equal(prealloc_async_start(o.fd, 0, 8 * MiB, &opt, &h), 0);
	assert_int_equal(prealloc_async_wait(h), 0);
	prealloc_async_free(h);
	still_owned(&o, "async, waited for");

	assert_int_equal(prealloc_async_start(o.fd, 8 * MiB, 8 * MiB, &opt, &h), 0);
	assert_int_equal(prealloc_async_cancel(h), 0);
	assert_true(prealloc_async_wait(h) == -ECANCELED || prealloc_async_poll(h) == 0);
	prealloc_async_free(h);
	still_owned(&o, "async, cancelled");
	disown(&o);
}

/* An async call held in its progress callback until the test has taken
 * its own locks. */
struct gate {
	int in[2], out[2];
	bool passed;
};

static int hold_at_gate(uint64_t done, uint64_t total, void *data)
{
	struct gate *g = data;
	char b = 0;

	(void)total;
	if (g->passed || !done)
		return 0;
	g->passed = true;
	if (write(g->in[1], &b, 1) != 1 || read(g->out[0], &b, 1) != 1)
		return 1;
	return 0;
}

static void own_locks_during_async(void **state)
{
	struct gate g = { 0 };
	struct prealloc_options opt = { .size = sizeof(opt), .progress = hold_at_gate,
					.progress_data = &g };
	struct prealloc_async *h;
	char path[128], b = 0;
	int fd;

	(void)state;
	assert_int_equal(pipe2(g.in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(g.out, O_CLOEXEC), 0);
	fd = open(tfs_path(&t, "during", path, sizeof(path)), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0644);
	assert_true(fd >= 0);
	assert_int_equal(prealloc_async_start(fd, 0, 16 * MiB, &opt, &h), 0);
	assert_int_equal(read(g.in[0], &b, 1), 1);	/* the call is running */
	assert_int_equal(set_lock(fd, F_SETLK, F_WRLCK, 0, 0), 0);
	assert_int_equal(set_lock(fd, F_SETLK, F_UNLCK, 0, 0), 0);
	assert_int_equal(lockf(fd, F_TLOCK, 0), 0);
	assert_int_equal(write(g.out[1], &b, 1), 1);
	assert_int_equal(prealloc_async_wait(h), 0);
	prealloc_async_free(h);
	assert_int_equal(holder(path, 0, 0), getpid());	/* lockf()'s lock, still */
	for (int i = 0; i < 2; i++) {
		close(g.in[i]);
		close(g.out[i]);
	}
	close(fd);
	unlink(path);
}

struct lockf_cb {
	int fd;
	unsigned int calls;
};

static int take_lockf(uint64_t done, uint64_t total, void *data)
{
	struct lockf_cb *l = data;

	(void)done;
	(void)total;
	if (l->calls++ == 0 && lockf(l->fd, F_LOCK, 0) < 0)
		return 1;
	return 0;
}

static void lockf_in_callback(void **state)
{
	struct lockf_cb l;
	struct prealloc_options opt = { .size = sizeof(opt), .progress = take_lockf,
					.progress_data = &l };
	char path[128];

	(void)state;
	l = (struct lockf_cb){ .fd = open(tfs_path(&t, "cb", path, sizeof(path)),
					  O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) };
	assert_true(l.fd >= 0);
	assert_int_equal(prealloc_file_ex(l.fd, 0, 8 * MiB, &opt, NULL), 0);
	assert_true(l.calls > 0);
	assert_int_equal(holder(path, 0, 0), getpid());
	close(l.fd);
	unlink(path);
}

static void probe_and_verify(void **state)
{
	struct prealloc_options opt = { .size = sizeof(opt) };
	struct prealloc_census c = { .size = sizeof(c) };
	struct prealloc_probe *p;
	struct owned o;
	struct tfs mem = { 0 };
	char path[128];
	int pfd;

	(void)state;
	own(&o, "probe", 0);
	pfd = open(o.path, O_PATH | O_CLOEXEC);
	assert_true(pfd >= 0);
	assert_int_equal(prealloc_probe_new(pfd, 0, 8 * MiB, &opt, &p), 0);
	prealloc_probe_free(p);
	close(pfd);
	still_owned(&o, "probe on an O_PATH descriptor");
	disown(&o);

	/* tmpfs: no FIEMAP, the census seeks on a description of its own. */
	assert_int_equal(tfs_create(&mem, "tmpfs", 64, NULL), 0);
	o.fd = open(tfs_path(&mem, "v", o.path, sizeof(o.path)),
		    O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	assert_true(o.fd >= 0);
	assert_int_equal(set_lock(o.fd, F_SETLK, F_WRLCK, 0, 0), 0);
	snprintf(path, sizeof(path), "%s", o.path);
	pfd = open(path, O_RDONLY | O_CLOEXEC);
	assert_int_equal(lseek(pfd, OFFSET, SEEK_SET), OFFSET);
	assert_int_equal(prealloc_verify(pfd, 0, MiB, &c), 0);
	assert_int_equal(lseek(pfd, 0, SEEK_CUR), OFFSET);
	assert_int_equal(holder(path, 0, 0), getpid());
	close(pfd);
	close(o.fd);
	tfs_destroy(&mem);
}

static void block_device(void **state)
{
	struct tfs loop = { 0 };
	struct owned o = { 0 };

	(void)state;
	assert_int_equal(tfs_loop(&loop, 64, true), 0);
	snprintf(o.path, sizeof(o.path), "%s", loop.dev);
	o.fd = open(o.path, O_RDWR | O_CLOEXEC);
	assert_true(o.fd >= 0);
	assert_int_equal(lseek(o.fd, OFFSET, SEEK_SET), OFFSET);
	assert_int_equal(set_lock(o.fd, F_SETLK, F_WRLCK, 0, 4096), 0);
	assert_int_equal(set_lock(o.fd, F_SETLK, F_RDLCK, MiB, 0), 0);
	o.flags = fcntl(o.fd, F_GETFL);
	assert_int_equal(prealloc_file(o.fd, 0, 8 * MiB, PREALLOC_ZERO_DATA | PREALLOC_FORCE), 0);
	still_owned(&o, "block device");
	close(o.fd);
	tfs_destroy(&loop);
}

/* A lease breaks when another description of the file is opened: a call
 * on a leased descriptor opens none, and the lease stays. */
static void lease_kept(void **state)
{
	char path[128];
	int fd;

	(void)state;
	fd = open(tfs_path(&t, "leased", path, sizeof(path)),
		  O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_SETLEASE, F_WRLCK), 0);
	assert_int_equal(prealloc_file(fd, 0, 8 * MiB, 0), 0);
	assert_int_equal(fcntl(fd, F_GETLEASE), F_WRLCK);
	assert_int_equal(fcntl(fd, F_SETLEASE, F_UNLCK), 0);
	close(fd);
	unlink(path);
}

/* A segment taken from the pool keeps its lock while the pool makes,
 * hands out and takes back others. */
static void pool_segment(void **state)
{
	struct prealloc_pool_config cfg = { .size = sizeof(cfg), .segment_size = 4 * MiB,
					    .target = 2 };
	struct prealloc_pool *pool;
	char dir[128], path[160];
	int dfd, fd, fd2;

	(void)state;
	tfs_path(&t, "pool", dir, sizeof(dir));
	assert_int_equal(mkdir(dir, 0755), 0);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(prealloc_pool_open(dir, &cfg, &pool), 0);
	fd = prealloc_pool_take(pool, dfd, "wal-1", 0);
	assert_true(fd >= 0);
	assert_int_equal(set_lock(fd, F_SETLK, F_WRLCK, 0, 0), 0);
	assert_int_equal(prealloc_pool_wait_ready(pool, 2, -1), 0);
	fd2 = prealloc_pool_take(pool, dfd, "wal-2", 0);
	assert_true(fd2 >= 0);
	close(fd2);
	assert_int_equal(prealloc_pool_recycle(pool, dfd, "wal-2", 0), 0);
	assert_int_equal(prealloc_pool_prepare(pool, dfd, "wal-3", 0), 0);
	assert_int_equal(prealloc_pool_wait_ready(pool, 2, -1), 0);
	snprintf(path, sizeof(path), "%s/wal-1", dir);
	assert_int_equal(holder(path, 0, 0), getpid());
	prealloc_pool_close(pool);
	assert_int_equal(holder(path, 0, 0), getpid());
	close(fd);
	close(dfd);
	tfs_rmtree(dir);
}

static int group_setup(void **state)
{
	(void)state;
	return tfs_create(&t, fs_type, 512, NULL) ? -1 : 0;
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
		cmocka_unit_test(every_method),
		cmocka_unit_test(failed_and_append),
		cmocka_unit_test(async_calls),
		cmocka_unit_test(own_locks_during_async),
		cmocka_unit_test(lockf_in_callback),
		cmocka_unit_test(probe_and_verify),
		cmocka_unit_test(block_device),
		cmocka_unit_test(lease_kept),
		cmocka_unit_test(pool_segment),
	};
	int failed = 0;

	tfs_enter();
	signal(SIGIO, SIG_IGN);		/* a broken lease would say so: not here */
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		fs_type = types[i];
		if (!tfs_supported(fs_type))
			continue;
		failed += cmocka_run_group_tests_name(fs_type, tests, group_setup, group_teardown);
	}
	return failed ? 1 : 0;
}
