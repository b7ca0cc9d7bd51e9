/* SPDX-License-Identifier: MIT */
/*
 * Names prepared ahead (prealloc_pool_prepare; root, skip otherwise):
 * installed by the worker, taken while being installed, with the caller's
 * directory descriptor closed, closed before taken, installs that fail on
 * the caller's name or directory, names removed or replaced before the take.
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
#include <linux/fs.h>

#include "pool-fixture.h"
#include "tfs.h"

/* prepare @name in the watched directory and wait for its install. */
static void prepare_installed(struct prealloc_pool *p, int dfd, struct watch *w, const char *name)
{
	assert_int_equal(prealloc_pool_prepare(p, dfd, name, 0), 0);
	wait_moved_to(w, name);
}

/* A pool over a new directory, opened as *@dfd and watched for @mask. */
static struct prealloc_pool *watched_pool(char *dir, size_t len, uint64_t seg, uint32_t target,
					  int *dfd, struct watch *w, uint32_t mask)
{
	struct prealloc_pool *p = open_pool(new_dir(dir, len), seg, target, 1);

	*dfd = open_dir(dir);
	watch_start(w, dir, mask);
	return p;
}

/* A pool (target 1) over a new directory, opened as *@dfd, in which each of
 * the NULL-terminated @names is prepared and installed. */
static struct prealloc_pool *pool_installed(char *dir, size_t len, int *dfd,
					    const char *const *names)
{
	struct prealloc_pool *p;
	struct watch w;

	p = watched_pool(dir, len, SEG, 1, dfd, &w, IN_MOVED_TO);
	for (; *names; names++)
		prepare_installed(p, *dfd, &w, *names);
	close(w.in);
	return p;
}

static void prepare_bad_arguments(void **state)
{
	struct tfs tmp = { .loop_fd = -1 };
	struct prealloc_pool *p;
	char dir[128];
	int dfd, ofd;

	(void)state;
	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 0, 1);
	dfd = open_dir(dir);
	assert_int_equal(prealloc_pool_prepare(NULL, dfd, "x", 0), -EINVAL);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "x", 1), -EINVAL);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "x", 1u << 31), -EINVAL);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "", 0), -EINVAL);
	assert_int_equal(prealloc_pool_prepare(p, dfd, NULL, 0), -EINVAL);
	assert_int_equal(prealloc_pool_prepare(p, dfd, ".prealloc-ready-000001", 0), -EINVAL);
	assert_int_equal(prealloc_pool_prepare(p, AT_FDCWD, "/x/.prealloc-tmp-1", 0), -EINVAL);
	assert_int_equal(prealloc_pool_prepare(p, -1, "x", 0), -EBADF);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "missing-dir/x", 0), -ENOENT);
	/* Another filesystem: refused at once, not left to the worker. */
	if (tfs_create(&tmp, "tmpfs", 16, NULL) == 0) {
		ofd = open(tmp.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		assert_int_equal(prealloc_pool_prepare(p, ofd, "x", 0), -EXDEV);
		close(ofd);
		tfs_destroy(&tmp);
	}
	prealloc_pool_close(p);
	/* Nothing was queued: nothing installed, nothing made. */
	assert_int_equal(list(dir, "", NULL, 0), 2);	/* "." and ".." */
	close(dfd);
	assert_int_equal(tfs_rmtree(dir), 0);
}

static void prepare_then_take(void **state)
{
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	char dir[128], sub[160];
	struct watch w;
	int dfd, dfd2, fd;
	ino_t ino;

	(void)state;
	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 2, 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 2, -1), 0);
	dfd = open_dir(dir);
	watch_start(&w, dir, IN_MOVED_TO);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "wal-1", 0), 0);
	/* Queued, being installed or installed: a second prepare is refused. */
	assert_int_equal(prealloc_pool_prepare(p, dfd, "wal-1", 0), -EEXIST);
	wait_moved_to(&w, "wal-1");
	ino = inode_of(dfd, "wal-1");
	/* Installed and not taken: still refused, and take is not fooled by
	 * the name existing. */
	assert_int_equal(prealloc_pool_prepare(p, dfd, "wal-1", 0), -EEXIST);
	fd = prealloc_pool_take(p, dfd, "wal-1", 0);
	check_taken(fd, dfd, "wal-1", SEG);
	assert_int_equal(inode_of(dfd, "wal-1"), ino);	/* the installed one, not moved again */
	close(fd);
	s = stats(p);
	assert_int_equal(s.prepared, 1);
	assert_int_equal(s.hits, 1);
	assert_int_equal(s.misses, 0);
	/* Taken: the name is the caller's; both calls now see it exists. */
	assert_int_equal(prealloc_pool_prepare(p, dfd, "wal-1", 0), -EEXIST);
	assert_int_equal(prealloc_pool_take(p, dfd, "wal-1", 0), -EEXIST);

	/* A name in a subdirectory, taken through another descriptor of the
	 * directory it was prepared relative to. */
	assert_int_equal(mkdirat(dfd, "sub", 0755), 0);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_true(inotify_add_watch(w.in, sub, IN_MOVED_TO) >= 0);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "sub/wal-2", 0), 0);
	wait_moved_to(&w, "wal-2");
	dfd2 = open_dir(dir);
	fd = prealloc_pool_take(p, dfd2, "sub/wal-2", 0);
	check_taken(fd, dfd, "sub/wal-2", SEG);
	close(fd);
	s = stats(p);
	assert_int_equal(s.prepared, 2);
	assert_int_equal(s.hits, 2);
	assert_int_equal(s.misses, 0);
	close(w.in);
	prealloc_pool_close(p);
	close(dfd2);
	close(dfd);
	assert_int_equal(tfs_rmtree(dir), 0);
}

/* The caller's directory descriptor is closed at once; the worker still
 * installs, and take through another descriptor of it is served. */
static void prepare_dirfd_closed(void **state)
{
	struct prealloc_pool *p;
	char dir[128];
	struct watch w;
	int dfd, dfd2;

	(void)state;
	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 1, 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);
	watch_start(&w, dir, IN_MOVED_TO);
	dfd = open_dir(dir);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "wal-c", 0), 0);
	close(dfd);
	wait_moved_to(&w, "wal-c");
	close(w.in);
	dfd2 = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	take_checked(p, dfd2, "wal-c", SEG);
	assert_int_equal(stats(p).prepared, 1);
	assert_int_equal(stats(p).hits, 1);
	assert_int_equal(stats(p).misses, 0);
	prealloc_pool_close(p);
	close(dfd2);
	assert_int_equal(tfs_rmtree(dir), 0);
}

/* None ready (a target 0 pool): the worker makes one for the install. */
static void prepare_none_ready(void **state)
{
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	char dir[128];
	struct watch w;
	int dfd;

	(void)state;
	p = watched_pool(dir, sizeof(dir), SEG, 0, &dfd, &w, IN_MOVED_TO);
	prepare_installed(p, dfd, &w, "wal-0");
	take_checked(p, dfd, "wal-0", SEG);
	s = stats(p);
	assert_int_equal(s.prepared, 1);
	assert_int_equal(s.created, 1);
	assert_int_equal(s.hits, 1);
	assert_int_equal(s.misses, 0);
	assert_int_equal(s.ready, 0);
	assert_int_equal(list(dir, ".prealloc-", NULL, 0), 0);
	prealloc_pool_close(p);

	/* A pool that has none yet (just opened, growing): same outcome. */
	p = open_pool(dir, SEG, 2, 1);
	prepare_installed(p, dfd, &w, "wal-1");
	take_checked(p, dfd, "wal-1", SEG);
	assert_int_equal(stats(p).prepared, 1);
	assert_int_equal(stats(p).misses, 0);
	close(w.in);
	prealloc_pool_close(p);
	close(dfd);
	assert_int_equal(tfs_rmtree(dir), 0);
}

/* take of a name whose install is under way waits for it.  A target 0 pool
 * makes nothing but the installs' segments, so a temporary segment created
 * after prepare says the install has begun: the take must be a hit, the
 * installed segment. */
static void take_while_installing(void **state)
{
	const uint64_t seg = 32 * MiB;
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	struct watch w;
	char dir[128], name[32];
	int dfd;

	(void)state;
	p = watched_pool(dir, sizeof(dir), seg, 0, &dfd, &w, IN_CREATE);
	for (unsigned int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "wal-%u", i);
		assert_int_equal(prealloc_pool_prepare(p, dfd, name, 0), 0);
		wait_tmp_created(&w);
		take_checked(p, dfd, name, seg);
		s = stats(p);
		assert_int_equal(s.hits, i + 1);
		assert_int_equal(s.misses, 0);
		assert_int_equal(s.prepared, i + 1);
		assert_int_equal(s.created, i + 1);
		/* Nothing else made: no segment left over in the pool. */
		assert_int_equal(list(dir, ".prealloc-", NULL, 0), 0);
	}
	close(w.in);
	/* Taken right after prepare: still queued (withdrawn, a miss in the
	 * caller), or being installed or installed (a hit), as the threads
	 * run.  Whichever: one segment under the name, the one handed out. */
	for (unsigned int i = 3; i < 6; i++) {
		snprintf(name, sizeof(name), "wal-%u", i);
		assert_int_equal(prealloc_pool_prepare(p, dfd, name, 0), 0);
		take_checked(p, dfd, name, seg);
		assert_int_equal(list(dir, ".prealloc-", NULL, 0), 0);
	}
	s = stats(p);
	assert_int_equal(s.hits + s.misses, 6);
	/* A hit here is an install (none is ever ready), a miss a withdrawn
	 * request taken in the caller. */
	assert_int_equal(s.prepared, s.hits);
	assert_int_equal(s.created, s.prepared);
	prealloc_pool_close(p);
	close(dfd);
	assert_int_equal(tfs_rmtree(dir), 0);
}

/* The name appears after prepare, while the worker makes the segment for it
 * (a target 0 pool: a temporary segment is the install's).  Ours is created
 * with O_EXCL: when it succeeds, the install's rename comes later and must
 * fail.  A run where the install wins is a plain hit; try another name. */
static void name_taken_before_install(void)
{
	const uint64_t seg = 32 * MiB;
	struct prealloc_pool_stats s0, s;
	struct prealloc_pool *p;
	struct watch w;
	char dir[128], name[32];
	struct stat st;
	int dfd, fd = -1;

	p = watched_pool(dir, sizeof(dir), seg, 0, &dfd, &w, IN_CREATE);
	for (unsigned int i = 0; fd < 0; i++) {
		if (i == 10)
			fail_msg("the install always renamed before the name was created");
		snprintf(name, sizeof(name), "late-%u", i);
		s0 = stats(p);
		assert_int_equal(prealloc_pool_prepare(p, dfd, name, 0), 0);
		wait_tmp_created(&w);
		fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0) {
			assert_int_equal(errno, EEXIST);
			take_checked(p, dfd, name, seg);
			fd = -1;
		}
	}
	close(w.in);
	/* take waits for the install, then takes as usual: the name exists. */
	assert_int_equal(prealloc_pool_take(p, dfd, name, 0), -EEXIST);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_ino, inode_of(dfd, name));	/* ours, left alone */
	close(fd);
	/* The segment made for it is kept, and the failure is not the pool's:
	 * no error recorded (nor the back-off that comes with one). */
	s = stats(p);
	assert_int_equal(s.created, s0.created + 1);
	assert_int_equal(s.prepared, s0.prepared);
	assert_int_equal(s.ready, 1);
	assert_int_equal(s.last_error, 0);
	assert_int_equal(s.enospc, 0);
	assert_int_equal(list(dir, READY_PREFIX, NULL, 0), 1);
	assert_int_equal(list(dir, TMP_PREFIX, NULL, 0), 0);
	/* ... and the next take is served with it. */
	take_checked(p, dfd, "next", seg);
	s = stats(p);
	assert_int_equal(s.hits, s0.hits + 1);
	assert_int_equal(s.misses, s0.misses);
	assert_int_equal(s.ready, 0);
	prealloc_pool_close(p);
	close(dfd);
	assert_int_equal(tfs_rmtree(dir), 0);
}

static int set_immutable(int fd, bool on)
{
	int flags;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		return -errno;
	flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
	return ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0 ? -errno : 0;
}

/* The name's directory refuses the rename (immutable: -EPERM, also for
 * root), deterministically: the install's hit is put back. */
static void directory_refuses_install(void)
{
	struct prealloc_pool_stats s0, s;
	struct prealloc_pool *p;
	struct watch w;
	char dir[128];
	int dfd, sub;

	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 1, 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);
	dfd = open_dir(dir);
	assert_int_equal(mkdirat(dfd, "frozen", 0755), 0);
	sub = openat(dfd, "frozen", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(sub >= 0);
	assert_int_equal(set_immutable(sub, true), 0);
	watch_start(&w, dir, IN_CLOSE_WRITE);
	s0 = stats(p);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "frozen/x", 0), 0);
	/* The install opened the ready segment and closed it once its rename
	 * failed; take waits for the rest and takes as usual: refused too. */
	wait_event(&w, IN_CLOSE_WRITE, READY_PREFIX, strlen(READY_PREFIX));
	close(w.in);
	assert_int_equal(prealloc_pool_take(p, dfd, "frozen/x", 0), -EPERM);
	s = stats(p);
	assert_int_equal(s.ready, 1);		/* still in the pool */
	assert_int_equal(s.prepared, s0.prepared);
	assert_int_equal(s.hits, s0.hits);
	assert_int_equal(s.misses, s0.misses);
	assert_int_equal(s.last_error, 0);
	assert_int_equal(list(dir, READY_PREFIX, NULL, 0), 1);
	/* Writable again: a plain hit, and the pool refills. */
	assert_int_equal(set_immutable(sub, false), 0);
	take_checked(p, dfd, "frozen/x", SEG);
	assert_int_equal(stats(p).hits, s0.hits + 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);
	assert_int_equal(stats(p).last_error, 0);
	prealloc_pool_close(p);
	close(sub);
	close(dfd);
	assert_int_equal(tfs_rmtree(dir), 0);
}

/* Installs that fail because of the caller's name or directory: take then
 * takes as usual and says what the name says; the segment stays in the pool
 * and the pool's own error state is untouched. */
static void prepare_install_fails(void **state)
{
	(void)state;
	name_taken_before_install();
	directory_refuses_install();
}

/* An installed name removed or replaced by the caller before the take. */
static void prepared_name_changed(void **state)
{
	struct prealloc_pool *p;
	char dir[128];
	int dfd, fd;

	(void)state;
	p = pool_installed(dir, sizeof(dir), &dfd, (const char *const[]){ "gone", "replaced", NULL });
	/* Removed: take makes it anew (a plain take). */
	assert_int_equal(unlinkat(dfd, "gone", 0), 0);
	take_checked(p, dfd, "gone", SEG);
	/* Removed and another file created under the name (the freed inode
	 * number could be the new file's, were the segment not held open):
	 * refused, and that file left alone. */
	assert_int_equal(unlinkat(dfd, "replaced", 0), 0);
	fd = openat(dfd, "replaced", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(prealloc_pool_take(p, dfd, "replaced", 0), -ESTALE);
	fd = openat(dfd, "replaced", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(lseek(fd, 0, SEEK_END), 0);
	close(fd);
	assert_int_equal(stats(p).prepared, 2);
	/* Said once, then forgotten: the name is the caller's file. */
	assert_int_equal(prealloc_pool_take(p, dfd, "replaced", 0), -EEXIST);
	/* Once it is removed, the name can be prepared again. */
	assert_int_equal(unlinkat(dfd, "replaced", 0), 0);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "replaced", 0), 0);
	take_checked(p, dfd, "replaced", SEG);
	prealloc_pool_close(p);
	close(dfd);
	assert_int_equal(tfs_rmtree(dir), 0);
}

/* Close leaves an installed, untaken name as a complete segment; a request
 * still queued is dropped (or its install abandoned): never half a segment
 * under a name. */
static void close_with_prepared(void **state)
{
	const uint64_t big = 64 * MiB;
	struct prealloc_pool *p;
	char dir[128];
	int dfd, fd;

	(void)state;
	p = pool_installed(dir, sizeof(dir), &dfd, (const char *const[]){ "kept", NULL });
	prealloc_pool_close(p);
	/* Close abandons or finishes what the worker was making: no
	 * temporary left behind (checked before an open would clean up). */
	assert_int_equal(list(dir, TMP_PREFIX, NULL, 0), 0);
	fd = openat(dfd, "kept", O_RDONLY | O_CLOEXEC);
	check_segment(fd, SEG, true);
	close(fd);

	/* Closed right after prepare, the worker making a big segment. */
	p = open_pool(dir, big, 0, 1);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "maybe", 0), 0);
	prealloc_pool_close(p);
	assert_int_equal(list(dir, TMP_PREFIX, NULL, 0), 0);
	fd = openat(dfd, "maybe", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		check_segment(fd, big, true);
		close(fd);
	} else {
		assert_int_equal(errno, ENOENT);
	}
	/* The next open leaves the installed names alone. */
	p = open_pool(dir, SEG, 0, 1);
	assert_int_equal(faccessat(dfd, "kept", F_OK, 0), 0);
	prealloc_pool_close(p);
	close(dfd);
	assert_int_equal(tfs_rmtree(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(prepare_bad_arguments),
		cmocka_unit_test(prepare_then_take),
		cmocka_unit_test(prepare_dirfd_closed),
		cmocka_unit_test(prepare_none_ready),
		cmocka_unit_test(take_while_installing),
		cmocka_unit_test(prepare_install_fails),
		cmocka_unit_test(prepared_name_changed),
		cmocka_unit_test(close_with_prepared),
	};

	return POOL_RUN(tests);
}
