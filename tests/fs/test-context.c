/* SPDX-License-Identifier: MIT */
/*
 * Contexts own their descriptors: none outlives a released context; a process
 * that closes every descriptor after fork() and opens something else on the
 * watch's number does not get that file polled, read, moved or closed by the
 * library; without /proc nothing fails and nothing leaks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tfs.h"

#define GIB (1ull << 30)
#define VICTIM "victim's bytes"
/* The captured namespace can unmap-zero and no call asked the kernel yet:
 * the probe would try the flag, the answer unknown until then. */
#define WOULD_TRY PREALLOC_UNKNOWN

static char tmpdir[] = "/var/tmp/prealloc-ctx-XXXXXX";
static char file[256], root[160];
static struct tfs ext4;
static int fd = -1;

#define sh(...) assert_int_equal(tfs_sh(__VA_ARGS__), 0)

/* The descriptor open on a .../mountinfo file other than @skip, or -1. */
static int watch_fd(int skip)
{
	char link[64], target[256];
	ssize_t n;

	for (int i = 0; i < 4096; i++) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", i);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (i != skip && strstr(target, "/mountinfo"))
			return i;
	}
	return -1;
}

static int offloaded(struct prealloc_ctx *ctx)
{
	struct prealloc_options o = { .size = sizeof(o), .ctx = ctx };
	struct prealloc_probe *p;
	int r = prealloc_probe_new(fd, 0, GIB, &o, &p);

	if (r < 0)
		return r;
	r = prealloc_probe_zeroing_offloaded(p, NULL);
	prealloc_probe_free(p);
	return r;
}

/* Make the captured namespace claim (or deny) unmap zeroing. */
static void set_unmap(const char *bytes)
{
	sh("cd '%s' && for f in devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1/queue/"
	   "write_zeroes_unmap_max*bytes; do echo %s > $f; done", root, bytes);
}

static void no_fd_outlives_ctx(void **state)
{
	struct prealloc_options o = { .size = sizeof(o) };
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_ctx *ctx;
	struct prealloc_probe *held;
	int n0;

	(void)state;
	assert_true(offloaded(NULL) >= 0);	/* the default context's watch, once */
	/* The socket to the library's workers, made by the first call, kept. */
	assert_int_equal(prealloc_file(fd, 0, 4096, 0), 0);
	n0 = tfs_count_fds();
	assert_int_equal(prealloc_ctx_new(NULL, 0, &ctx), 0);
	assert_int_equal(tfs_count_fds(), n0);	/* nothing opened before it is needed */
	o.ctx = ctx;
	assert_int_equal(prealloc_file_ex(fd, 0, 1 << 20, &o, &r), 0);
	assert_int_equal(tfs_count_fds(), n0 + 1);	/* the context's mount-table watch */
	assert_int_equal(prealloc_probe_new(fd, 0, GIB, &o, &held), 0);
	assert_ptr_equal(prealloc_ctx_unref(ctx), ctx);	/* the probe holds it */
	assert_int_equal(tfs_count_fds(), n0 + 1);
	prealloc_probe_free(held);
	assert_int_equal(tfs_count_fds(), n0);

	/* A flush closes the watch too; the context works on. */
	assert_int_equal(prealloc_ctx_new(NULL, 0, &ctx), 0);
	assert_true(offloaded(ctx) >= 0);
	assert_int_equal(tfs_count_fds(), n0 + 1);
	assert_int_equal(prealloc_ctx_flush(ctx), 0);
	assert_int_equal(tfs_count_fds(), n0);
	assert_true(offloaded(ctx) >= 0);
	assert_null(prealloc_ctx_unref(ctx));
	assert_int_equal(tfs_count_fds(), n0);
}

static int child_status(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/*
 * closefrom() after fork, then a file of the child's own on the number the
 * watch had: the library must notice the number is no longer its watch
 * (so it sees the device changed under it) and leave the file alone.
 */
static void closefrom_after_fork(void **state)
{
	struct prealloc_ctx *ctx;
	char victim[160];
	pid_t pid;
	int w, dflt;

	(void)state;
	snprintf(victim, sizeof(victim), "%s/victim", tmpdir);
	assert_true(offloaded(NULL) >= 0);
	dflt = watch_fd(-1);			/* the default context's */
	assert_int_equal(prealloc_ctx_new(root, 0, &ctx), 0);
	assert_int_equal(offloaded(ctx), WOULD_TRY);	/* cached, watched */
	w = watch_fd(dflt);
	assert_true(w >= 0);
	set_unmap("0");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[sizeof(VICTIM)];
		struct stat a, b;
		int v;

		closefrom(3);
		v = open(victim, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (v < 0 || write(v, VICTIM, sizeof(VICTIM)) != sizeof(VICTIM))
			_exit(10);
		if (v != w && (dup2(v, w) != w || close(v) < 0))
			_exit(11);
		fd = open(file, O_RDWR | O_CLOEXEC);	/* the file we probe, anew */
		if (fd < 0)
			_exit(17);
		if (lseek(w, 5, SEEK_SET) != 5 || fstat(w, &a) < 0)
			_exit(12);
		/* Polling the victim would say "no change" and keep the stale record. */
		if (offloaded(ctx) != PREALLOC_NO)
			_exit(13);
		prealloc_ctx_unref(ctx);
		if (fcntl(w, F_GETFD) < 0 || fstat(w, &b) < 0 || a.st_ino != b.st_ino)
			_exit(14);	/* closed or replaced */
		if (lseek(w, 0, SEEK_CUR) != 5)
			_exit(15);	/* read or moved */
		if (pread(w, buf, sizeof(buf), 0) != sizeof(buf) || memcmp(buf, VICTIM, sizeof(buf)))
			_exit(16);	/* changed */
		_exit(0);
	}
	assert_int_equal(child_status(pid), 0);
	prealloc_ctx_unref(ctx);
}

/* Fork without closing anything: the child watches its own mount table
 * (not the parent's) and the inherited watch does not leak. */
static void fork_keeps_fds(void **state)
{
	struct prealloc_ctx *ctx;
	pid_t pid;

	(void)state;
	assert_int_equal(prealloc_ctx_new(root, 0, &ctx), 0);
	assert_int_equal(offloaded(ctx), WOULD_TRY);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char link[64], target[256], want[64];
		int n0, w;
		ssize_t n;

		if (offloaded(NULL) < 0)	/* the default context renews its watch too */
			_exit(9);
		n0 = tfs_count_fds();
		if (offloaded(ctx) != WOULD_TRY || tfs_count_fds() != n0)
			_exit(10);
		w = watch_fd(-1);
		snprintf(link, sizeof(link), "/proc/self/fd/%d", w);
		n = w < 0 ? -1 : readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			_exit(11);
		target[n] = 0;
		snprintf(want, sizeof(want), "/proc/%d/mountinfo", (int)getpid());
		if (strcmp(target, want))
			_exit(12);
		prealloc_ctx_unref(ctx);
		if (tfs_count_fds() != n0 - 1)
			_exit(13);
		_exit(0);
	}
	assert_int_equal(child_status(pid), 0);
	prealloc_ctx_unref(ctx);
}

/* Without /proc: no watch, no caching, no failure, no leak. */
static void without_proc(void **state)
{
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct prealloc_ctx *ctx;
		int n0;

		/* Our own mount namespace: the parent keeps its /proc. */
		if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    umount2("/proc", MNT_DETACH) < 0)
			_exit(10);
		if (access("/proc/self/mountinfo", F_OK) == 0)
			_exit(11);
		if (offloaded(NULL) < 0)	/* drops the inherited default watch */
			_exit(12);
		n0 = tfs_count_fds();
		if (prealloc_ctx_new(root, 0, &ctx) < 0)
			_exit(17);
		if (offloaded(ctx) != WOULD_TRY || offloaded(ctx) != WOULD_TRY)
			_exit(13);
		set_unmap("0");
		if (offloaded(ctx) != PREALLOC_NO)	/* nothing was cached */
			_exit(14);
		if (offloaded(NULL) < 0 || tfs_count_fds() != n0)
			_exit(15);
		prealloc_ctx_unref(ctx);
		_exit(tfs_count_fds() == n0 ? 0 : 16);
	}
	assert_int_equal(child_status(pid), 0);
}

struct racer {
	struct prealloc_ctx *ctx;
	bool flusher;
	int bad;
};

static void *race(void *arg)
{
	struct racer *r = arg;

	for (int i = 0; i < 200; i++) {
		if (r->flusher)
			r->bad += prealloc_ctx_flush(r->ctx) != 0;
		else
			r->bad += offloaded(r->ctx) != WOULD_TRY;
	}
	return NULL;
}

/* Probes and flushes of one context from several threads at once. */
static void threads_share_ctx(void **state)
{
	struct racer r[4];
	pthread_t th[4];
	struct prealloc_ctx *ctx;
	int n0 = tfs_count_fds();

	(void)state;
	assert_int_equal(prealloc_ctx_new(root, 0, &ctx), 0);
	for (int i = 0; i < 4; i++) {
		r[i] = (struct racer){ .ctx = ctx, .flusher = i == 0 };
		assert_int_equal(pthread_create(&th[i], NULL, race, &r[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(r[i].bad, 0);
	}
	assert_null(prealloc_ctx_unref(ctx));
	assert_int_equal(tfs_count_fds(), n0);
}

static int setup(void **state)
{
	const char *scripts = getenv("PROBE_SCRIPTS");
	struct stat st;

	(void)state;
	/* The verdicts these tests watch need a file on ext4. */
	if (!scripts || !mkdtemp(tmpdir) || tfs_create(&ext4, "ext4", 64, NULL))
		return -1;
	tfs_path(&ext4, "f", file, sizeof(file));
	fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	snprintf(root, sizeof(root), "%s/nvme/sys", tmpdir);
	sh("sh '%s/make-tree.sh' %u:%u '%s/nvme' >/dev/null", scripts, major(st.st_dev),
	   minor(st.st_dev), tmpdir);
	return 0;
}

/* Each test starts from a namespace that claims unmap zeroing. */
static int claim_unmap(void **state)
{
	(void)state;
	set_unmap("1044480");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (fd >= 0)
		close(fd);
	tfs_destroy(&ext4);
	return tfs_rmtree(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(no_fd_outlives_ctx, claim_unmap),
		cmocka_unit_test_setup(closefrom_after_fork, claim_unmap),
		cmocka_unit_test_setup(fork_keeps_fds, claim_unmap),
		cmocka_unit_test_setup(without_proc, claim_unmap),
		cmocka_unit_test_setup(threads_share_ctx, claim_unmap),
	};

	tfs_enter_for("ext4");	/* root, a private mount namespace, loop devices */
	return cmocka_run_group_tests(tests, setup, teardown);
}
