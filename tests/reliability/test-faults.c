/* SPDX-License-Identifier: MIT */
/*
 * Faults (root; skip otherwise).  ENOSPC from the precheck, from a
 * fallocate() the precheck let through, and from the zero writes; EIO from a
 * device that fails past a given block, both during the direct writes and at
 * the final fdatasync(); SIGKILL in the middle of a run; a caller's signal
 * handler firing all through a run.  After a failure the file must be as it
 * was (size, bytes) and the space the call took must be free again; after a
 * SIGKILL every byte must be either the file's own data or zero, never the
 * stale 0xAA the free space was filled with.
 *
 * Quotas (EDQUOT) are not tested: they need CONFIG_QFMT_V2 for ext4's
 * quota feature or CONFIG_XFS_QUOTA; the test says so when it skips.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "prealloc.h"
#include "src/exec/method_aio.h"	/* the aio writer's hooks of test builds */
#include "tcheck.h"
#include "tfs.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)

/* A file with data at unaligned places and holes between, synced. */
static int make_file(const struct tfs *t, const char *name, uint64_t span)
{
	char path[128];
	int fd;

	fd = open(tfs_path(t, name, path, sizeof(path)), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0666);
	assert_true(fd >= 0);
	assert_int_equal(tc_write_pattern(fd, NULL, 1, 1000, 20000), 0);
	assert_int_equal(tc_write_pattern(fd, NULL, 2, span / 2 + 3, 5000), 0);
	assert_int_equal(tc_write_pattern(fd, NULL, 3, span - 7000, 7000), 0);
	assert_int_equal(fsync(fd), 0);
	return fd;
}

static void take(struct tc_before *b, int fd, const char *dir)
{
	assert_int_equal(tc_before_take(b, fd, dir), 0);
}

/*
 * The file is as it was and the space the call took is free again, but for
 * @meta_blocks of filesystem metadata (ext4 keeps an emptied extent tree
 * block until the inode is truncated to zero).
 */
static void unchanged(struct tc_before *b, int fd, unsigned int meta_blocks)
{
	uint64_t now;

	int64_t diff = tc_snap_diff(fd, &b->snap);

	if (diff) {
		struct stat st;

		fstat(fd, &st);
		print_error("file changed: size %" PRIu64 " (was %" PRIu64 "), diff %" PRId64 "\n",
			    (uint64_t)st.st_size, b->snap.size, diff);
		fail();
	}
	/* Not asserted: after a failed writeback syncfs() reports it once. */
	(void)syncfs(fd);
	now = tc_free_bytes(b->dir);
	if (now + meta_blocks * 4096ull < b->free) {
		print_error("%" PRIu64 " bytes of free space lost\n", b->free - now);
		fail();
	}
	if (now < b->free)
		print_message("%" PRIu64 " bytes of metadata kept\n", b->free - now);
	tc_snap_free(&b->snap);
}

/* Fill the filesystem with a file that grows until ENOSPC. */
static int fill_up(const char *dir, const char *name)
{
	static uint8_t buf[64 * 1024];
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	memset(buf, 0x11, sizeof(buf));
	for (size_t bs = sizeof(buf); bs >= 512;) {
		ssize_t w = write(fd, buf, bs);

		if (w < 0 && errno == ENOSPC)
			bs /= 2;
		else if (w < 0)
			break;
	}
	fsync(fd);
	close(fd);
	return 0;
}

/* --- ENOSPC -------------------------------------------------------------- */

static void test_enospc_precheck(void **state)
{
	struct tfs t;
	struct tc_before b;
	int fd;

	(void)state;
	assert_int_equal(tfs_create(&t, "ext4", 32, NULL), 0);
	fd = make_file(&t, "f", MiB);
	take(&b, fd, t.dir);
	assert_int_equal(prealloc_file(fd, 0, 64 * MiB, 0), -ENOSPC);
	assert_int_equal(prealloc_file(fd, 512 * KiB, 40 * MiB, PREALLOC_KEEP_SIZE), -ENOSPC);
	assert_int_equal(prealloc_file(fd, 100 * MiB, 40 * MiB, PREALLOC_ZERO_DATA), -ENOSPC);
	unchanged(&b, fd, 0);
	close(fd);
	tfs_destroy(&t);
}

/* Drop CAP_SYS_RESOURCE: root can no longer use ext4's reserved blocks
 * (the reserve belongs to another uid), but the precheck, seeing uid 0,
 * still counts them, so fallocate() fails part way. */
static int drop_sys_resource(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	data[CAP_SYS_RESOURCE / 32].effective &= ~(1u << (CAP_SYS_RESOURCE % 32));
	data[CAP_SYS_RESOURCE / 32].permitted &= ~(1u << (CAP_SYS_RESOURCE % 32));
	return syscall(SYS_capset, &hdr, data) < 0 ? -errno : 0;
}

/* Run prealloc_file() in a child; returns its negated result. */
static int child_prealloc(int fd, uint64_t off, uint64_t len, unsigned int flags,
			  bool drop_caps)
{
	int st;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int ret;

		if (drop_caps && drop_sys_resource())
			_exit(200);
		ret = prealloc_file(fd, off, len, flags);
		_exit(ret <= 0 && ret > -200 ? -ret : 201);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_true(WEXITSTATUS(st) < 200);
	return -WEXITSTATUS(st);
}

static void remount_with(struct tfs *t, const char *tune)
{
	char cmd[256];

	assert_int_equal(umount2(t->dir, 0), 0);
	snprintf(cmd, sizeof(cmd), "tune2fs %s %s >/dev/null 2>&1", tune, t->dev);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(mount(t->dev, t->dir, "ext4", 0, NULL), 0);
}

static void test_enospc_after_precheck(void **state)
{
	struct tfs t;
	struct tc_before b;
	uint64_t need;
	int fd;

	(void)state;
	/* Half the blocks reserved, for a uid that is not ours. */
	assert_int_equal(tfs_create(&t, "ext4", 64, "-b 4096 -m 50"), 0);
	remount_with(&t, "-u 4242 -g 4242");
	fd = make_file(&t, "f", MiB);
	take(&b, fd, t.dir);
	/* More than the unreserved space, less than all free space. */
	need = b.free * 3 / 4;
	assert_int_equal(child_prealloc(fd, 0, need, 0, true), -ENOSPC);
	unchanged(&b, fd, 1);
	take(&b, fd, t.dir);
	assert_int_equal(child_prealloc(fd, 4 * MiB + 17, need, PREALLOC_KEEP_SIZE, true),
			 -ENOSPC);
	unchanged(&b, fd, 1);
	/* The filesystem is still fine for what does fit. */
	assert_int_equal(child_prealloc(fd, 0, b.free / 4, 0, true), 0);
	close(fd);
	tfs_destroy(&t);
}

/* Progress callback that fills the filesystem on its first call, so the
 * rest of the zero writes run out of space. */
struct filler {
	const char *dir;
	int calls;
};

static int fill_on_first_call(uint64_t done, uint64_t total, void *data)
{
	struct filler *f = data;

	(void)done;
	(void)total;
	if (f->calls++ == 0)
		fill_up(f->dir, "filler");
	return 0;
}

/* ext2-style (indirect) files have no fallocate(): the zero writes allocate
 * as they go, and fail when another file takes the space. */
static void test_enospc_during_writes(void **state)
{
	static const unsigned int methods[] = {
		PREALLOC_METHOD_AUTO, PREALLOC_METHOD_BUFFERED, PREALLOC_METHOD_URING,
		PREALLOC_METHOD_AIO,
	};
	struct tfs t;
	char path[128];

	(void)state;
	assert_int_equal(tfs_create(&t, "ext4", 64, "-b 4096 -O ^extent,^64bit"), 0);
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		struct filler f = { .dir = t.dir };
		struct prealloc_options o = {
			.size = sizeof(o), .method = methods[i], .request_bytes = 256 * KiB,
			.progress = fill_on_first_call, .progress_data = &f,
		};
		struct tc_before b;
		int fd = make_file(&t, "f", 2 * MiB), ret;

		take(&b, fd, t.dir);
		ret = prealloc_file_ex(fd, 0, 24 * MiB, &o, NULL);
		print_message("method %s: %d after %d progress calls\n",
			      prealloc_method_name(methods[i]), ret, f.calls);
		assert_int_equal(ret, -ENOSPC);
		assert_true(f.calls > 0);
		unlink(tfs_path(&t, "filler", path, sizeof(path)));
		unchanged(&b, fd, 0);
		close(fd);
		unlink(tfs_path(&t, "f", path, sizeof(path)));
	}
	tfs_destroy(&t);
}

/* --- EIO: a device that fails past a given byte --------------------------- */

static void set_loop_limit(const struct tfs *t, uint64_t limit)
{
	struct loop_info64 info;

	assert_int_equal(ioctl(t->loop_fd, LOOP_GET_STATUS64, &info), 0);
	info.lo_sizelimit = limit;
	assert_int_equal(ioctl(t->loop_fd, LOOP_SET_STATUS64, &info), 0);
}

/*
 * Fill the low part of a fresh ext4 (metadata and journal live there), then
 * cut the loop device short: blocks allocated from now on lie past the end
 * of the device and every write to them fails with EIO, while the metadata
 * the undo needs stays writable.
 */
static void test_eio(void **state)
{
	static const unsigned int methods[] = { PREALLOC_METHOD_URING, PREALLOC_METHOD_BUFFERED,
						PREALLOC_METHOD_AIO };
	struct tfs t;
	char path[128];

	(void)state;
	assert_int_equal(tfs_create(&t, "ext4", 128, "-b 4096 -E nodiscard"), 0);
	{
		int ffd = open(tfs_path(&t, "low", path, sizeof(path)),
			       O_RDWR | O_CREAT | O_CLOEXEC, 0600);

		assert_true(ffd >= 0);
		assert_int_equal(fallocate(ffd, 0, 0, (off_t)(tc_free_bytes(t.dir) - 40 * MiB)), 0);
		assert_int_equal(fsync(ffd), 0);
		close(ffd);
	}
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		struct prealloc_options o = { .size = sizeof(o), .method = methods[i] };
		struct tc_before b;
		int fd = make_file(&t, "f", 64 * KiB), ret;

		take(&b, fd, t.dir);
		set_loop_limit(&t, 96 * MiB);
		ret = prealloc_file_ex(fd, 0, 24 * MiB, &o, NULL);
		print_message("method %s: %d\n", prealloc_method_name(methods[i]), ret);
		assert_int_equal(ret, -EIO);
		set_loop_limit(&t, 0);
		unchanged(&b, fd, 1);
		close(fd);
		unlink(tfs_path(&t, "f", path, sizeof(path)));
	}
	tfs_destroy(&t);
}

/* --- ENOSPC from a thin device ------------------------------------------------ */

/* Attach @img_fd to a free loop device (buffered, autoclear). 0 or -errno. */
static int attach_loop(int img_fd, char *dev, size_t devlen, int *ret_fd)
{
	struct loop_config cfg = { .fd = (uint32_t)img_fd,
				   .info.lo_flags = LO_FLAGS_AUTOCLEAR };
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC), nr, fd;

	if (ctl < 0)
		return -errno;
	for (int tries = 0; tries < 64; tries++) {
		nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (nr < 0)
			break;
		snprintf(dev, devlen, "/dev/loop%d", nr);
		fd = open(dev, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			break;
		if (ioctl(fd, LOOP_CONFIGURE, &cfg) == 0) {
			close(ctl);
			*ret_fd = fd;
			return 0;
		}
		close(fd);
		if (errno != EBUSY)
			break;
	}
	close(ctl);
	return -EBUSY;
}

/*
 * ext4 on a loop device whose image lives on a small tmpfs: the filesystem
 * sees plenty of free space, but blocks never written before need tmpfs
 * pages, and there are none left.  The metadata and the journal are backed
 * up front, so only the new data blocks fail, the way a thin
 * provisioned volume fails: during the direct writes, or at the final
 * fdatasync() when the zeros went through the page cache.
 */
static void test_enospc_thin(void **state)
{
	static const unsigned int methods[] = { PREALLOC_METHOD_BUFFERED, PREALLOC_METHOD_URING,
						PREALLOC_METHOD_AIO };
	struct tfs back, t = { .loop_fd = -1 };
	char img[128], cmd[256], path[128];
	int ifd;

	(void)state;
	assert_int_equal(tfs_create(&back, "tmpfs", 40, NULL), 0);
	ifd = open(tfs_path(&back, "img", img, sizeof(img)), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(ifd >= 0);
	assert_int_equal(ftruncate(ifd, 128 * MiB), 0);
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F -b 4096 -E nodiscard,lazy_itable_init=0,"
		 "lazy_journal_init=0 %s >/dev/null 2>&1", img);
	assert_int_equal(system(cmd), 0);
	/* Back the metadata and the journal (the first 25 MiB at 4 KiB blocks)
	 * for good: a failed metadata write would abort the journal. */
	assert_int_equal(fallocate(ifd, 0, 0, 25 * MiB), 0);
	assert_int_equal(attach_loop(ifd, t.dev, sizeof(t.dev), &t.loop_fd), 0);
	close(ifd);
	unlink(img);	/* the loop device holds it */
	strcpy(t.dir, "/tmp/prealloc-thin-XXXXXX");
	assert_non_null(mkdtemp(t.dir));
	assert_int_equal(mount(t.dev, t.dir, "ext4", 0, NULL), 0);
	strcpy(t.type, "ext4");

	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		struct prealloc_options o = { .size = sizeof(o), .method = methods[i] };
		struct tc_before b;
		int fd = make_file(&t, "f", 256 * KiB), ret;

		take(&b, fd, t.dir);
		/* Leave the backing tmpfs 2 MiB: far less than the writes need. */
		assert_int_equal(fill_up(back.dir, "filler"), 0);
		{
			int ffd = open(tfs_path(&back, "filler", path, sizeof(path)),
				       O_RDWR | O_CLOEXEC);
			off_t sz = lseek(ffd, 0, SEEK_END);

			assert_true(ffd >= 0 && sz > (off_t)(2 * MiB));
			assert_int_equal(ftruncate(ffd, sz - (off_t)(2 * MiB)), 0);
			close(ffd);
		}
		ret = prealloc_file_ex(fd, 0, 24 * MiB, &o, NULL);
		print_message("method %s: %d\n", prealloc_method_name(methods[i]), ret);
		assert_true(ret == -ENOSPC || ret == -EIO);
		unchanged(&b, fd, 1);
		close(fd);
		unlink(tfs_path(&t, "f", path, sizeof(path)));
	}
	tfs_destroy(&t);
	tfs_destroy(&back);
}

/* --- SIGKILL in the middle ------------------------------------------------ */

struct killer {
	int to_parent;		/* write end: "half done" */
};

static int stop_at_half(uint64_t done, uint64_t total, void *data)
{
	struct killer *k = data;
	char c = 'h';

	if (done * 2 >= total && k->to_parent >= 0) {
		(void)!write(k->to_parent, &c, 1);
		k->to_parent = -1;
		pause();	/* until the parent's SIGKILL */
	}
	return 0;
}

static void killed_run(const struct tfs *t, unsigned int method, uint64_t len)
{
	uint64_t span = 4 * MiB, size;
	uint8_t *want, *got;
	struct stat st;
	int fd = make_file(t, "victim", span), pfd[2];
	char c;
	pid_t pid;

	want = calloc(1, len);
	assert_non_null(want);
	tc_pattern(want + 1000, 1, 1000, 20000);
	tc_pattern(want + span / 2 + 3, 2, span / 2 + 3, 5000);
	tc_pattern(want + span - 7000, 3, span - 7000, 7000);
	assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct killer k = { .to_parent = pfd[1] };
		struct prealloc_options o = {
			.size = sizeof(o), .method = method,
			.progress = stop_at_half, .progress_data = &k,
		};

		close(pfd[0]);
		/* Either way it never got to half way. */
		_exit(prealloc_file_ex(fd, 0, len, &o, NULL) ? 2 : 1);
	}
	close(pfd[1]);
	assert_int_equal(read(pfd[0], &c, 1), 1);
	assert_int_equal(kill(pid, SIGKILL), 0);
	{
		int wst;

		assert_int_equal(waitpid(pid, &wst, 0), pid);
		assert_true(WIFSIGNALED(wst) && WTERMSIG(wst) == SIGKILL);
	}
	close(pfd[0]);
	/* Whatever size the file has now, every byte is data or zero. */
	assert_int_equal(fstat(fd, &st), 0);
	size = (uint64_t)st.st_size;
	assert_true(size >= span && size <= len);
	got = malloc(size);
	assert_non_null(got);
	assert_int_equal(tc_read(fd, got, size), (int64_t)size);
	assert_int_equal(tc_find_stale(got, size), -1);
	for (uint64_t i = 0; i < size; i++)
		if (got[i] != want[i]) {
			print_error("byte %" PRIu64 " is %#x, want %#x\n", i, got[i], want[i]);
			fail();
		}
	print_message("method %s: killed at half way, size %" PRIu64 " of %" PRIu64 "\n",
		      prealloc_method_name(method), size, len);
	free(got);
	free(want);
	close(fd);
}

static void test_sigkill(void **state)
{
	struct tfs t;
	char path[128];

	(void)state;
	assert_int_equal(tfs_create(&t, "ext4", 256, "-E nodiscard"), 0);
	assert_int_equal(tc_fill_stale(t.dir, 0), 0);
	killed_run(&t, PREALLOC_METHOD_AUTO, 160 * MiB);
	unlink(tfs_path(&t, "victim", path, sizeof(path)));
	assert_int_equal(tc_fill_stale(t.dir, 0), 0);
	killed_run(&t, PREALLOC_METHOD_BUFFERED, 160 * MiB);
	tfs_destroy(&t);
}

/* --- a caller's signal handler --------------------------------------------- */

static volatile sig_atomic_t ticks;

static void on_alarm(int sig)
{
	(void)sig;
	ticks++;
}

static void test_signal_storm(void **state)
{
	static const unsigned int methods[] = {
		PREALLOC_METHOD_AUTO, PREALLOC_METHOD_BUFFERED, PREALLOC_METHOD_URING,
		PREALLOC_METHOD_AIO,
	};
	/* No SA_RESTART: every slow syscall the timer hits returns EINTR. */
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval it = { { 0, 500 }, { 0, 500 } }, off = { 0 };
	struct tfs t;
	char path[128];

	(void)state;
	assert_int_equal(tfs_create(&t, "ext4", 256, NULL), 0);
	assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		struct prealloc_options o = { .size = sizeof(o), .method = methods[i],
					      .request_bytes = 128 * KiB };
		uint64_t span = 4 * MiB, len = 96 * MiB;
		uint8_t *want = calloc(1, len);
		int fd = make_file(&t, "f", span), ret;

		assert_non_null(want);
		tc_pattern(want + 1000, 1, 1000, 20000);
		tc_pattern(want + span / 2 + 3, 2, span / 2 + 3, 5000);
		tc_pattern(want + span - 7000, 3, span - 7000, 7000);
		ticks = 0;
		assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
		ret = prealloc_file_ex(fd, 0, len, &o, NULL);
		assert_int_equal(setitimer(ITIMER_REAL, &off, NULL), 0);
		print_message("method %s: %d with %d signals\n", prealloc_method_name(methods[i]),
			      ret, (int)ticks);
		assert_int_equal(ret, 0);
		assert_int_equal(lseek(fd, 0, SEEK_END), (off_t)len);
		assert_int_equal(tc_compare(fd, want, len), -1);
		close(fd);
		unlink(tfs_path(&t, "f", path, sizeof(path)));
		free(want);
	}
	sigaction(SIGALRM, &old, NULL);
	tfs_destroy(&t);
}

/* --- failures injected into the aio writer --------------------------------- */

#define INJ_SHORT 1	/* a completion reports half its bytes */

static struct {
	bool submit;		/* into io_submit()'s result, else a completion's */
	int res;
	unsigned int at, seen;
} inj;

static int inject(bool submit, int res)
{
	if (res <= 0 || submit != inj.submit || inj.seen++ != inj.at)
		return res;
	return inj.res == INJ_SHORT ? res / 2 : inj.res;
}

static int inject_event(int res)
{
	return inject(false, res);
}

static int inject_submit(int ret)
{
	return inject(true, ret);
}

/* The third completion or submit fails, is short or interrupted (after the
 * kernel took the requests): the call fails and the file is as it was, or
 * it writes the rest again and succeeds. */
static void test_aio_injected(void **state)
{
	static const struct {
		const char *name;
		bool submit;
		int res, want;
	} cases[] = {
		{ "short write", false, INJ_SHORT, 0 },
		{ "EINTR", false, -EINTR, 0 },
		{ "EIO", false, -EIO, -EIO },
		{ "ENOSPC", false, -ENOSPC, -ENOSPC },
		{ "io_submit EIO", true, -EIO, -EIO },
		{ "io_submit EAGAIN", true, -EAGAIN, 0 },
	};
	struct tfs t;
	char path[128];

	(void)state;
	assert_int_equal(tfs_create(&t, "ext4", 64, NULL), 0);
	pa_aio_set_event_hook(inject_event);
	pa_aio_set_submit_hook(inject_submit);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct prealloc_options o = { .size = sizeof(o), .method = PREALLOC_METHOD_AIO,
					      .queue_depth = 4, .request_bytes = 256 * KiB };
		struct prealloc_report r = { .size = sizeof(r) };
		struct prealloc_census c = { .size = sizeof(c) };
		struct tc_before b;
		int fd = make_file(&t, "f", 2 * MiB), ret;

		take(&b, fd, t.dir);
		inj.submit = cases[i].submit;
		inj.res = cases[i].res;
		inj.at = 2;
		inj.seen = 0;
		ret = prealloc_file_ex(fd, 0, 16 * MiB, &o, &r);
		print_message("%s: %d\n", cases[i].name, ret);
		assert_true(inj.seen > inj.at);
		assert_int_equal(ret, cases[i].want);
		if (ret) {
			assert_int_equal(r.failed_method, PREALLOC_METHOD_AIO);
			unchanged(&b, fd, 1);
		} else {
			uint8_t *want = calloc(1, 16 * MiB);	/* the data kept, zeros */

			assert_non_null(want);
			memcpy(want, b.snap.data, b.snap.size);
			assert_int_equal(tc_compare(fd, want, 16 * MiB), -1);
			free(want);
			tc_snap_free(&b.snap);
			assert_int_equal(r.method, PREALLOC_METHOD_AIO);
			assert_true(r.bytes_by_method[PREALLOC_METHOD_AIO] > 0);
			assert_int_equal(prealloc_verify(fd, 0, 16 * MiB, &c), 0);
			assert_int_equal(c.written_bytes, 16 * MiB);
		}
		close(fd);
		unlink(tfs_path(&t, "f", path, sizeof(path)));
	}
	pa_aio_set_event_hook(NULL);
	pa_aio_set_submit_hook(NULL);
	tfs_destroy(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enospc_precheck),
		cmocka_unit_test(test_enospc_after_precheck),
		cmocka_unit_test(test_enospc_during_writes),
		cmocka_unit_test(test_eio),
		cmocka_unit_test(test_enospc_thin),
		cmocka_unit_test(test_sigkill),
		cmocka_unit_test(test_signal_storm),
		cmocka_unit_test(test_aio_injected),
	};

	tfs_enter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
