/* SPDX-License-Identifier: MIT */
/*
 * The pool's worker meeting the worst (root; skip otherwise): SIGKILLed
 * and power cut mid-segment (the next open finds only complete segments),
 * the free-space floor holding while every segment is taken (also where
 * btrfs's commit ioctl is refused) and giving space back, ENOSPC creating a
 * segment.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <linux/btrfs.h>

#include "pool-fixture.h"
#include "tassert.h"
#include "tfs.h"
#include "tseccomp.h"

/* Have @dir's filesystem catch up: syncfs() commits btrfs's transaction
 * (its statfs counts blocks allocated or freed only then) and has xfs free
 * what it frees in the background. */
static void settle(const char *dir)
{
	int fd = open_dir(dir);

	assert_int_equal(syncfs(fd), 0);
	close(fd);
}

/* Free space once the filesystem has caught up. */
static uint64_t avail(const char *dir)
{
	struct statvfs sv;

	settle(dir);
	assert_int_equal(statvfs(dir, &sv), 0);
	return (uint64_t)sv.f_bavail * sv.f_frsize;
}

#define CRASH_SEG (64 * MiB)

#define KILLS 4

/* Child: run a pool until killed. */
static void run_pool_forever(const char *dir)
{
	struct prealloc_pool_config c = { .size = sizeof(c), .segment_size = CRASH_SEG,
					  .target = 8, .free_floor = 1 };
	struct prealloc_pool *p;

	if (prealloc_pool_open(dir, &c, &p))
		_exit(3);
	for (;;)
		pause();
}

static void killed_mid_segment(void **state)
{
	unsigned long seqs[64];
	unsigned int mid = 0, n;
	struct prealloc_pool *p;
	char dir[128];
	int dfd;

	(void)state;
	new_dir(dir, sizeof(dir));
	for (unsigned int k = 1; k <= KILLS; k++) {
		struct watch w;
		int st;
		pid_t pid;

		watch_start(&w, dir, IN_CREATE);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			run_pool_forever(dir);
		/* The k-th segment of this run is being made: kill it there. */
		for (unsigned int i = 0; i < k; i++)
			wait_tmp_created(&w);
		assert_int_equal(kill(pid, SIGKILL), 0);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFSIGNALED(st));
		mid += list(dir, TMP_PREFIX, NULL, 0) > 0;
		close(w.in);
	}
	/* At least one kill landed while a segment was half made (the window is
	 * the whole zeroing of 64 MiB; the kill follows its creation at once). */
	assert_true(mid > 0);

	/* Restart: leftovers gone, every segment still there is complete. */
	p = open_pool(dir, CRASH_SEG, 0, 1);
	assert_int_equal(list(dir, TMP_PREFIX, NULL, 0), 0);
	n = list(dir, READY_PREFIX, seqs, 64);
	assert_int_equal(stats(p).ready, n);
	dfd = open_dir(dir);
	for (unsigned int i = 0; i < n; i++) {
		char name[32];
		int fd;

		snprintf(name, sizeof(name), "seg-%u", i);
		fd = prealloc_pool_take(p, dfd, name, 0);
		check_segment(fd, CRASH_SEG, true);
		close(fd);
	}
	assert_int_equal(stats(p).misses, 0);
	prealloc_pool_close(p);
	close(dfd);
}

/*
 * A power cut, as near as a test gets: the filesystem is shut down without
 * flushing its log (FS_IOC_SHUTDOWN, NOLOGFLUSH: what is not on disk is
 * lost, as in xfstests' godown), then mounted again.  Segments published
 * before the cut (renamed, directory synced) must be there and complete;
 * nothing else may look ready.
 */
#define PA_FS_IOC_SHUTDOWN _IOR('X', 125, uint32_t)

#define PA_SHUTDOWN_NOLOGFLUSH 2u

static void power_cut_mid_segment(void **state)
{
	unsigned long seqs[64];
	uint32_t how = PA_SHUTDOWN_NOLOGFLUSH;
	struct prealloc_pool *p;
	struct watch w;
	int dfd, st;
	unsigned int n;
	struct tfs t;
	pid_t pid;

	(void)state;
	assert_int_equal(tfs_create(&t, pool_fstype, 512, NULL), 0);
	watch_start(&w, t.dir, IN_CREATE);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		run_pool_forever(t.dir);
	/* Two segments published, the third under way: cut. */
	for (unsigned int i = 0; i < 3; i++)
		wait_tmp_created(&w);
	dfd = open(t.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ioctl(dfd, PA_FS_IOC_SHUTDOWN, &how) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		close(dfd);
		close(w.in);
		tfs_destroy(&t);
		skip();
	}
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	close(dfd);
	close(w.in);
	assert_int_equal(umount2(t.dir, 0), 0);
	assert_int_equal(mount(t.dev, t.dir, pool_fstype, 0, NULL), 0);

	/* Before any pool open cleans up: every ready name is complete. */
	n = list(t.dir, READY_PREFIX, seqs, 64);
	assert_true(n >= 2);
	dfd = open(t.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (unsigned int i = 0; i < n; i++) {
		char name[48];
		int fd;

		snprintf(name, sizeof(name), READY_PREFIX "%06lu", seqs[i]);
		fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
		check_segment(fd, CRASH_SEG, true);
		close(fd);
	}
	p = open_pool(t.dir, CRASH_SEG, 0, 1);
	assert_int_equal(stats(p).ready, n);
	assert_int_equal(list(t.dir, TMP_PREFIX, NULL, 0), 0);
	prealloc_pool_close(p);
	close(dfd);
	tfs_destroy(&t);
}

#define TK_SEG (8 * MiB)
#define TK_FLOOR (64 * MiB)

/* The application on a nearly full filesystem: each segment taken as soon as
 * it is ready, until the worker stops short.  What the last wait returned, or
 * a take's failure other than -EAGAIN (the worker gave that one back first);
 * the count in *@taken. */
static int take_until_short(struct prealloc_pool *p, int dfd, unsigned int *taken)
{
	int ret;

	while ((ret = prealloc_pool_wait_ready(p, 1, -1)) == 0) {
		char name[32];
		int fd;

		snprintf(name, sizeof(name), "wal-%u", *taken);
		fd = prealloc_pool_take(p, dfd, name, PREALLOC_POOL_TAKE_NOWAIT);
		if (fd < 0 && fd != -EAGAIN)
			return fd;
		if (fd >= 0) {
			close(fd);
			(*taken)++;
		}
	}
	return ret;
}

/* What take_until_short() must leave, once the filesystem has caught up:
 * free space at the floor or less than a segment above it. */
static void check_left(const char *dir)
{
	uint64_t left = avail(dir);

	assert_msg(left >= TK_FLOOR && left < TK_FLOOR + TK_SEG,
		   "%s: %llu bytes left, floor %llu", pool_fstype, (unsigned long long)left,
		   (unsigned long long)TK_FLOOR);
}

/*
 * Every segment taken as soon as it is ready: none is left to give back, so
 * the floor holds only if the worker never grew past it.  On btrfs statfs
 * counts an allocation only once its transaction commits; trusted as it
 * stood, it let the worker grow a segment past the floor, or give back the
 * one it had just made.
 */
static void floor_holds_all_taken(void **state)
{
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	unsigned int taken = 0;
	struct tfs t;
	int dfd;

	(void)state;
	assert_int_equal(tfs_create(&t, pool_fstype, 320, NULL), 0);
	dfd = open_dir(t.dir);
	p = open_pool(t.dir, TK_SEG, 64, TK_FLOOR);
	assert_int_equal(take_until_short(p, dfd, &taken), -ENOSPC);
	check_left(t.dir);
	s = stats(p);
	assert_int_equal(s.ready, 0);
	assert_int_equal(s.removed, 0);
	assert_int_equal(s.misses, 0);
	assert_int_equal(s.created, taken);
	assert_int_equal(s.last_error, 0);
	/* A round on the settled count adds nothing. */
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), -ENOSPC);
	assert_int_equal(stats(p).created, taken);
	prealloc_pool_close(p);
	close(dfd);
	tfs_destroy(&t);
}

/* The program run again with "--commit-refused DIR": take_until_short()
 * over a pool in DIR with the commit ioctl refused.  0 when the pool settled
 * the other way (syncfs()) with no failure, 77 without a filter. */
static int take_commit_refused(const char *dir)
{
	struct prealloc_pool_config c = { .size = sizeof(c), .segment_size = TK_SEG,
					  .target = 64, .free_floor = TK_FLOOR };
	struct prealloc_pool_stats s = { .size = sizeof(s) };
	struct prealloc_pool *p;
	unsigned int taken = 0;
	uint64_t transid = 0;
	int dfd, ret;

	if (tsec_refuse_ioctl(BTRFS_IOC_START_SYNC, EPERM))
		return TFS_SKIP;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!expect_msg(dfd >= 0 && ioctl(dfd, BTRFS_IOC_START_SYNC, &transid) < 0 &&
			errno == EPERM, "the filter refuses BTRFS_IOC_START_SYNC") ||
	    !expect_msg(prealloc_pool_open(dir, &c, &p) == 0, "open"))
		return 1;
	ret = take_until_short(p, dfd, &taken);
	expect_msg(ret == -ENOSPC, "%d", ret);
	expect_msg(prealloc_pool_get_stats(p, &s) == 0, "stats");
	expect_msg(taken > 0 && s.removed == 0 && s.created == taken && s.last_error == 0,
		   "%llu made, %u taken, %llu given back, last error %d",
		   (unsigned long long)s.created, taken, (unsigned long long)s.removed,
		   s.last_error);
	prealloc_pool_close(p);
	close(dfd);
	return tassert_failures ? 1 : 0;
}

/* The same where a policy refuses the commit ioctl: syncfs() commits. */
static void floor_holds_commit_refused(void **state)
{
	struct tfs t;
	int st;
	pid_t pid;

	(void)state;
	if (strcmp(pool_fstype, "btrfs") != 0)
		skip();
	assert_int_equal(tfs_create(&t, pool_fstype, 320, NULL), 0);
	/* A new program: the filter stays in it, and no thread of this one
	 * follows into the child. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl("/proc/self/exe", "test-pool-worker", "--commit-refused", t.dir,
		      (char *)NULL);
		_exit(3);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == TFS_SKIP) {
		tfs_destroy(&t);
		skip();
	}
	assert_int_equal(WEXITSTATUS(st), 0);
	check_left(t.dir);
	tfs_destroy(&t);
}

/* Fill @dir's filesystem with a file until @left bytes are available. */
static int fill_to(const char *dir, const char *name, uint64_t left)
{
	char path[192];
	uint64_t a = avail(dir);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_true(a > left);
	assert_int_equal(fallocate(fd, 0, 0, (off_t)(a - left)), 0);
	/* Counted before the worker looks: btrfs shows it once committed.  There
	 * a fallocate() this large leaves a data block group empty, which btrfs
	 * deletes in the background, its space uncounted meanwhile (the worker
	 * then gives back a segment more, and grows it again): deleted now. */
	if (strcmp(pool_fstype, "btrfs") == 0)
		assert_int_equal(tfs_sh("btrfs balance start -dusage=0 %s >/dev/null", dir), 0);
	settle(dir);
	return fd;
}

static void floor_gives_space_back(void **state)
{
	const uint64_t seg = 8 * MiB, floor = 64 * MiB;
	unsigned long before[16], after[16];
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	struct tfs t;
	int dfd, filler, fd;
	unsigned int nb, na;

	(void)state;
	assert_int_equal(tfs_create(&t, pool_fstype, 400, NULL), 0);
	p = open_pool(t.dir, seg, 8, floor);
	assert_int_equal(prealloc_pool_wait_ready(p, 8, -1), 0);
	nb = list(t.dir, READY_PREFIX, before, 16);
	assert_int_equal(nb, 8);

	/* Someone else eats the space: 20 MiB below the floor.  A take (a hit,
	 * the oldest segment) sends the worker round: it gives space back and
	 * does not grow again.  Just enough: btrfs shows each removal only once
	 * committed, and read as it stood, statfs had every ready segment go. */
	dfd = open(t.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	filler = fill_to(t.dir, "filler", floor - 20 * MiB);
	fd = prealloc_pool_take(p, dfd, "wal-1", 0);
	check_segment(fd, seg, true);
	close(fd);
	assert_int_equal(prealloc_pool_wait_ready(p, 8, -1), -ENOSPC);
	assert_true(avail(t.dir) >= floor);	/* the floor holds */
	s = stats(p);
	assert_int_equal(s.removed, 3);		/* 24 MiB for 20 */
	assert_int_equal(s.hits, 1);
	na = list(t.dir, READY_PREFIX, after, 16);
	assert_int_equal(na, s.ready);
	assert_int_equal(na, nb - 1 - 3);
	/* Oldest first: the ones left are the newest. */
	for (unsigned int i = 0; i < na; i++)
		assert_int_equal(after[i], before[nb - na + i]);

	/* A ready segment is still handed out, as a hit. */
	fd = prealloc_pool_take(p, dfd, "wal-2", 0);
	check_segment(fd, seg, true);
	close(fd);
	assert_int_equal(stats(p).hits, 2);
	/* Not growing below the floor: what it was, less the one taken. */
	assert_int_equal(prealloc_pool_wait_ready(p, 8, -1), -ENOSPC);
	assert_int_equal(stats(p).ready, na - 1);

	/* Space comes back: so does the pool.  (Cut before the unlink: xfs
	 * frees an unlinked file's blocks later, in the background.) */
	assert_int_equal(ftruncate(filler, 0), 0);
	close(filler);
	assert_int_equal(unlinkat(dfd, "filler", 0), 0);
	settle(t.dir);
	assert_int_equal(prealloc_pool_wait_ready(p, 8, -1), 0);
	prealloc_pool_close(p);
	close(dfd);
	tfs_destroy(&t);
}

/* ext4 with few inodes: the worker meets a real ENOSPC creating a segment. */
static void enospc_in_worker(void **state)
{
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	unsigned int files = 0;
	char name[32];
	struct tfs t;
	int dfd, fd, fd2;

	(void)state;
	if (strcmp(pool_fstype, "ext4") != 0)
		skip();
	assert_int_equal(tfs_create(&t, "ext4", 128, "-N 64"), 0);
	dfd = open(t.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (;; files++) {
		snprintf(name, sizeof(name), "f%u", files);
		fd = openat(dfd, name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0)
			break;
		close(fd);
	}
	assert_int_equal(errno, ENOSPC);
	assert_true(files >= 2);
	/* Inodes for two segments. */
	assert_int_equal(unlinkat(dfd, "f0", 0), 0);
	assert_int_equal(unlinkat(dfd, "f1", 0), 0);

	p = open_pool(t.dir, SEG, 4, 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 4, -1), -ENOSPC);
	s = stats(p);
	assert_int_equal(s.ready, 2);
	assert_int_equal(s.target, 2);	/* shrunk */
	assert_true(s.enospc >= 1);
	assert_int_equal(s.last_error, 0);

	/* Never a failed take while a segment is ready. */
	fd = prealloc_pool_take(p, dfd, "wal-1", 0);
	check_segment(fd, SEG, true);
	fd2 = prealloc_pool_take(p, dfd, "wal-2", 0);
	check_segment(fd2, SEG, true);
	assert_int_equal(stats(p).hits, 2);
	/* None ready and no inode: now the take fails, and says why. */
	assert_int_equal(prealloc_pool_take(p, dfd, "wal-3", 0), -ENOSPC);
	close(fd);
	close(fd2);

	/* Inodes back: the target grows back. */
	for (unsigned int i = 2; i < 8; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		assert_int_equal(unlinkat(dfd, name, 0), 0);
	}
	assert_int_equal(prealloc_pool_wait_ready(p, 4, -1), 0);
	assert_int_equal(stats(p).target, 4);
	prealloc_pool_close(p);
	close(dfd);
	tfs_destroy(&t);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(killed_mid_segment),
		cmocka_unit_test(power_cut_mid_segment),
		cmocka_unit_test(floor_holds_all_taken),
		cmocka_unit_test(floor_holds_commit_refused),
		cmocka_unit_test(floor_gives_space_back),
		cmocka_unit_test(enospc_in_worker),
	};

	if (argc == 3 && strcmp(argv[1], "--commit-refused") == 0)
		return take_commit_refused(argv[2]);
	return POOL_RUN(tests);
}
