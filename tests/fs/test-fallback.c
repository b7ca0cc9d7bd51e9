/* SPDX-License-Identifier: MIT */
/*
 * The kernel has the last word.  Under a captured sysfs tree that says the
 * file's device is an NVMe namespace that can unmap-zero, the planner picks
 * FALLOC_FL_WRITE_ZEROES on ext4 and on xfs alike (which filesystem takes
 * it is the kernel's to say); the real loop device refuses it, the call
 * falls back and still ends fully written, and the next call on that
 * filesystem does not ask again.  A refusal the inode explains (an xfs
 * file sharing extents through reflink) is not held against the
 * filesystem: the next file asks again.  Where no block device is under
 * the file (overlayfs) the flag is never tried, and the probe says no.
 *
 * Where a seccomp profile refuses io_uring (Docker's default, containerd's
 * RuntimeDefault: EPERM; ENOSYS elsewhere), a forked child of a process
 * that used io_uring learns so: the call writes through Linux AIO, the
 * probe says why with the errno, and a forced uring is refused; with AIO
 * refused too, the writes go buffered.  The parent also wrote through
 * Linux AIO and kept its context for its next call: the child, which has
 * none of its parent's contexts, sets up its own.  A setup that fails for
 * want of memory is no refusal: a forced call says ENOMEM, an automatic one
 * goes on.  Where the filesystem has no direct
 * I/O (ext4 data=journal: statx says so), the direct methods forced are
 * refused before anything changes.
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
#include <syslog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include "prealloc.h"
#include "prealloc-pool.h"
#include "tassert.h"
#include "tfs.h"
#include "tseccomp.h"

#define M (1024ull * 1024)
#define WZ_BIT (1u << PREALLOC_METHOD_WRITE_ZEROES)

struct fs {
	struct tfs t;
	char tree[64];
	char sys[256];
	struct prealloc_ctx *ctx;
	char log[1024];		/* the last notice */
};

static struct fs fs_ext4 = { .tree = "/tmp/prealloc-tree-XXXXXX" };
static struct fs fs_xfs = { .tree = "/tmp/prealloc-tree-XXXXXX" };

static void keep_notice(void *data, int priority, const char *file, int line, const char *fn,
			const char *format, va_list args)
{
	struct fs *f = data;

	(void)file, (void)line, (void)fn;
	if (priority == LOG_NOTICE)
		vsnprintf(f->log, sizeof(f->log), format, args);
}

static int fs_open(struct fs *f, const char *name)
{
	char path[256];

	return open(tfs_path(&f->t, name, path, sizeof(path)), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
}

/* prealloc_file_ex() over [1 MiB + 100, 9 MiB + 100) of @name (past a clone's data): io_uring did it,
 * the flag was asked (@want_refused) or not, the report says why it was
 * not used (@want_wz), every byte is written. */
static void prealloc_and_check(struct fs *f, const char *name, uint32_t want_refused,
			       uint32_t want_wz)
{
	struct prealloc_options o = { .size = sizeof(o), .ctx = f->ctx };
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_census c = { .size = sizeof(c) };
	int fd = fs_open(f, name);

	assert_true(fd >= 0);
	f->log[0] = 0;
	assert_int_equal(prealloc_file_ex(fd, M + 100, 8 * M, &o, &r), 0);
	assert_int_equal(r.refused, want_refused);
	assert_string_equal(prealloc_write_zeroes_name(r.write_zeroes),
			    prealloc_write_zeroes_name(want_wz));
	assert_int_equal(r.method, PREALLOC_METHOD_URING);
	assert_int_equal(r.written, 1);
	assert_int_equal(prealloc_verify(fd, M + 100, 8 * M, &c), 0);
	assert_int_equal(c.written_bytes, 8 * M);
	close(fd);
}

/* A forced aio call over [0, 8 MiB) of @name: the process then keeps an
 * AIO context for its next call. */
static void prealloc_aio(struct fs *f, const char *name)
{
	struct prealloc_options o = { .size = sizeof(o), .ctx = f->ctx,
				      .method = PREALLOC_METHOD_AIO };
	struct prealloc_report r = { .size = sizeof(r) };
	int fd = fs_open(f, name);

	assert_true(fd >= 0);
	assert_int_equal(prealloc_file_ex(fd, 0, 8 * M, &o, &r), 0);
	assert_int_equal(r.method, PREALLOC_METHOD_AIO);
	assert_int_equal(r.write_zeroes, PREALLOC_WZ_NOT_WEIGHED);	/* forced */
	close(fd);
}

/* Before the kernel is asked: keep-size beyond end of file is never given
 * the flag, whatever the device can; a range with no whole block to zero
 * gives it nothing, and the report says it would have been tried. */
static void keep_size_and_no_block_not_asked(void **state)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = PREALLOC_KEEP_SIZE,
				      .ctx = fs_ext4.ctx };
	struct prealloc_report r = { .size = sizeof(r) };
	int fd = fs_open(&fs_ext4, "keep");
	char path[256];

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(prealloc_ctx_flush(fs_ext4.ctx), 0);	/* nothing asked yet */
	assert_int_equal(prealloc_file_ex(fd, 0, 4 * M, &o, &r), 0);
	assert_int_equal(r.refused, 0);
	assert_int_equal(r.write_zeroes, PREALLOC_WZ_KEEP_SIZE);
	o.flags = 0;
	assert_int_equal(prealloc_file_ex(fd, 10, 100, &o, &r), 0);
	assert_int_equal(r.refused, 0);
	assert_int_equal(r.bytes_by_method[PREALLOC_METHOD_BUFFERED], 100);
	assert_int_equal(r.write_zeroes, PREALLOC_WZ_WOULD_TRY);
	close(fd);
	unlink(tfs_path(&fs_ext4.t, "keep", path, sizeof(path)));
}

static void kernel_refusal_falls_back_once(void **state)
{
	(void)state;
	/* Planned, refused, fell back; then remembered: not tried again, and
	 * the report says the same either way. */
	prealloc_and_check(&fs_ext4, "first", WZ_BIT, PREALLOC_WZ_FS_REFUSED);
	assert_non_null(strstr(fs_ext4.log, "write-zeroes refused by the filesystem on this kernel"));
	prealloc_and_check(&fs_ext4, "second", 0, PREALLOC_WZ_FS_REFUSED);
}

/* xfs is asked like ext4; a reflinked file's refusal is the file's. */
static void xfs_asked_reflink_apart(void **state)
{
	(void)state;
	if (!fs_xfs.ctx)
		skip();
	assert_int_equal(tfs_sh("cd '%s' && head -c 65536 /dev/urandom > orig && "
				"cp --reflink=always orig clone", fs_xfs.t.dir), 0);
	prealloc_and_check(&fs_xfs, "clone", WZ_BIT, PREALLOC_WZ_INODE);
	assert_non_null(strstr(fs_xfs.log, "shares extents with another (reflink)"));
	/* The filesystem asked again. */
	prealloc_and_check(&fs_xfs, "first", WZ_BIT, PREALLOC_WZ_FS_REFUSED);
	assert_non_null(strstr(fs_xfs.log, "refused by the filesystem on this kernel"));
	prealloc_and_check(&fs_xfs, "second", 0, PREALLOC_WZ_FS_REFUSED);
}

/* Overlayfs has an anonymous device number: no block device to ask for,
 * so the flag is never tried, and the probe says no, not "unknown". */
static void no_block_device_not_asked(void **state)
{
	struct prealloc_options o = { .size = sizeof(o), .ctx = fs_ext4.ctx };
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_probe *p;
	char opts[640], dir[4][160], path[192];
	static const char *const names[] = { "lower", "upper", "work", "merged" };
	const char *why = NULL;
	int fd;

	(void)state;
	for (int i = 0; i < 4; i++) {
		tfs_path(&fs_ext4.t, names[i], dir[i], sizeof(dir[i]));
		assert_int_equal(mkdir(dir[i], 0755), 0);
	}
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", dir[0], dir[1], dir[2]);
	if (mount("overlay", dir[3], "overlay", 0, opts) < 0)
		skip();
	snprintf(path, sizeof(path), "%s/f", dir[3]);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(prealloc_probe_new(fd, 0, M, &o, &p), 0);
	assert_int_equal(prealloc_probe_zeroing_offloaded(p, &why), PREALLOC_NO);
	assert_non_null(strstr(why, "no block device under this file"));
	assert_int_equal(prealloc_probe_plan(p, 0), PREALLOC_METHOD_URING);
	prealloc_probe_free(p);
	assert_int_equal(prealloc_file_ex(fd, 0, M, &o, &r), 0);
	assert_int_equal(r.write_zeroes, PREALLOC_WZ_NO_DEVICE_FACTS);
	close(fd);
	assert_int_equal(umount2(dir[3], 0), 0);
}

static int fs_setup(struct fs *f, const char *type, uint64_t mb)
{
	if (!mkdtemp(f->tree) || tfs_create(&f->t, type, mb, NULL) ||
	    tfs_nvme_tree(&f->t, f->tree, f->sys, sizeof(f->sys)) ||
	    prealloc_ctx_new(f->sys, 0, &f->ctx))
		return -1;
	return prealloc_ctx_set_log_fn(f->ctx, keep_notice, f);
}

static void fs_teardown(struct fs *f)
{
	prealloc_ctx_unref(f->ctx);
	f->ctx = NULL;
	tfs_destroy(&f->t);
	tfs_rmtree(f->tree);
}

struct refusal_case {
	bool aio;			/* Linux AIO refused too */
	bool submit;			/* io_submit() alone refused too */
	int err;
	unsigned int method;		/* what the call writes with */
	const char *fact, *why;		/* the probe's reason */
};

#define CHILD_NO_SECCOMP 254	/* a kernel without seccomp filters */
#define CHILD_CHECK(cond) do { if (!expect_msg(cond, "in the child")) return __LINE__; } while (0)

/* Run @child(@arg) in a forked child, which returns 0 or the line of its
 * first failed check: skip where seccomp filters cannot be had, fail
 * naming @what and that line. */
static void in_child(int (*child)(const void *arg), const void *arg, const char *what)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child(arg));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == CHILD_NO_SECCOMP)
		skip();
	if (WEXITSTATUS(st))
		fail_msg("%s: check at test-fallback.c:%d failed in the child", what,
			 WEXITSTATUS(st));
}

/* In the child: 0, or the line of the first check that failed. */
static int refused_child(const struct refusal_case *k)
{
	struct prealloc_options forced = { .size = sizeof(forced),
					   .method = PREALLOC_METHOD_URING };
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_census c = { .size = sizeof(c) };
	struct prealloc_probe *p;
	const char *why = NULL;
	char path[256];
	int fd;

	if (tsec_refuse(k->err, k->aio) || (k->submit && tsec_refuse_io_submit(k->err)))
		return CHILD_NO_SECCOMP;
	fd = open(tfs_path(&fs_ext4.t, "refused", path, sizeof(path)),
		  O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(prealloc_probe_new(fd, 0, 8 * M, NULL, &p) == 0);
	CHILD_CHECK(prealloc_probe_lookup(p, k->fact, NULL, &why) == PREALLOC_FACT_STRING);
	CHILD_CHECK(strstr(why, k->why));
	for (unsigned int i = 0; prealloc_probe_plan(p, i) >= 0; i++)
		CHILD_CHECK(prealloc_probe_plan(p, i) != PREALLOC_METHOD_URING);
	prealloc_probe_free(p);
	CHILD_CHECK(prealloc_file_ex(fd, 0, M, &forced, &r) == -EOPNOTSUPP);
	CHILD_CHECK(lseek(fd, 0, SEEK_END) == 0);
	for (uint64_t off = 0; off < 16 * M; off += 8 * M) {	/* the second remembers */
		CHILD_CHECK(prealloc_file_ex(fd, off, 8 * M, NULL, &r) == 0);
		CHILD_CHECK(r.method == k->method);
		CHILD_CHECK(r.bytes_by_method[k->method] == 8 * M);
	}
	CHILD_CHECK(prealloc_verify(fd, 0, 16 * M, &c) == 0 && c.written_bytes == 16 * M);
	close(fd);
	return 0;
}

static void run_refused(const struct refusal_case *k)
{
	char path[256];
	pid_t pid;
	int st;

	/* Valgrind's core exits at a seccomp filter's first denial. */
	if (RUNNING_ON_VALGRIND)
		skip();
	/* This process uses io_uring first: the child must learn anew. */
	prealloc_and_check(&fs_ext4, "parent", 0, PREALLOC_WZ_FS_REFUSED);
	prealloc_aio(&fs_ext4, "parent-aio");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(refused_child(k));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	unlink(tfs_path(&fs_ext4.t, "refused", path, sizeof(path)));
	unlink(tfs_path(&fs_ext4.t, "parent", path, sizeof(path)));
	unlink(tfs_path(&fs_ext4.t, "parent-aio", path, sizeof(path)));
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == CHILD_NO_SECCOMP)
		skip();
	if (WEXITSTATUS(st))
		fail_msg("check at test-fallback.c:%d failed in the child", WEXITSTATUS(st));
}

static void seccomp_eperm_writes_aio(void **state)
{
	const struct refusal_case k = { false, false, EPERM, PREALLOC_METHOD_AIO,
		"uring_refused", "io_uring_setup refused: EPERM (a seccomp profile?)" };

	(void)state;
	run_refused(&k);
}

/* io_setup() allowed, io_submit() refused: the first call finds out with
 * nothing written and falls back, the next ones remember. */
static void seccomp_io_submit_writes_buffered(void **state)
{
	const struct refusal_case k = { false, true, EPERM, PREALLOC_METHOD_BUFFERED,
		"uring_refused", "io_uring_setup refused: EPERM (a seccomp profile?)" };

	(void)state;
	run_refused(&k);
}

static void seccomp_enosys_writes_aio(void **state)
{
	const struct refusal_case k = { false, false, ENOSYS, PREALLOC_METHOD_AIO,
		"uring_refused",
		"io_uring_setup refused: ENOSYS (no io_uring in this kernel, "
		"or a seccomp profile)" };

	(void)state;
	run_refused(&k);
}

static void seccomp_no_aio_writes_buffered(void **state)
{
	const struct refusal_case k = { true, false, EPERM, PREALLOC_METHOD_BUFFERED,
		"aio_refused", "io_setup refused: EPERM (a seccomp profile?)" };

	(void)state;
	run_refused(&k);
}

/*
 * A profile written call by call refuses each system call of a method
 * alone (src/exec/refusal.h lists them): every call and a pool's segment
 * still succeed, written, by the method @method.  A refusal found only
 * once a call uses the method (io_uring_enter(), io_submit()) leaves
 * nothing written: the call goes on with the next method, the process
 * remembers it, and the probe names the refused call (@why).
 */
struct one_call_case {
	const char *what;
	int nr[2];
	unsigned int n;
	unsigned int method;
	const char *fact, *why;
};

static int one_call_child(const void *arg)
{
	const struct one_call_case *k = arg;
	struct prealloc_pool_config cfg = { .size = sizeof(cfg), .segment_size = 4 * M,
					    .target = 1 };
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_census c = { .size = sizeof(c) };
	struct prealloc_pool *pool;
	struct prealloc_probe *p;
	const char *why = NULL;
	char path[256], dir[256];
	int fd, dfd;

	if (tsec_refuse_calls(k->nr, k->n, EPERM))
		return CHILD_NO_SECCOMP;
	fd = open(tfs_path(&fs_ext4.t, "one-call", path, sizeof(path)),
		  O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHILD_CHECK(fd >= 0);
	for (uint64_t off = 0; off < 16 * M; off += 8 * M) {	/* the second remembers */
		CHILD_CHECK(prealloc_file_ex(fd, off, 8 * M, NULL, &r) == 0);
		CHILD_CHECK(r.method == k->method);
	}
	CHILD_CHECK(prealloc_verify(fd, 0, 16 * M, &c) == 0 && c.written_bytes == 16 * M);
	CHILD_CHECK(prealloc_probe_new(fd, 0, 8 * M, NULL, &p) == 0);
	if (k->fact) {
		CHILD_CHECK(prealloc_probe_lookup(p, k->fact, NULL, &why) ==
			    PREALLOC_FACT_STRING);
		CHILD_CHECK(strstr(why, k->why));
	}
	prealloc_probe_free(p);
	close(fd);
	unlink(path);

	tfs_path(&fs_ext4.t, "one-call-pool", dir, sizeof(dir));
	CHILD_CHECK(mkdir(dir, 0755) == 0);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHILD_CHECK(dfd >= 0 && prealloc_pool_open(dir, &cfg, &pool) == 0);
	CHILD_CHECK(prealloc_pool_wait_ready(pool, 1, -1) == 0);
	fd = prealloc_pool_take(pool, dfd, "segment", 0);
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(prealloc_verify(fd, 0, 4 * M, &c) == 0 && c.written_bytes == 4 * M);
	close(fd);
	prealloc_pool_close(pool);
	close(dfd);
	CHILD_CHECK(tfs_rmtree(dir) == 0);
	return 0;
}

static void seccomp_one_call_each(void **state)
{
	static const struct one_call_case cases[] = {
		{ "io_uring_setup", { __NR_io_uring_setup }, 1, PREALLOC_METHOD_AIO,
		  "uring_refused", "io_uring_setup refused: EPERM" },
		{ "io_uring_enter", { __NR_io_uring_enter }, 1, PREALLOC_METHOD_AIO,
		  "uring_refused", "io_uring_enter refused: EPERM" },
		{ "io_uring_register", { __NR_io_uring_register }, 1, PREALLOC_METHOD_URING },
		{ "io_uring_enter, io_submit", { __NR_io_uring_enter, __NR_io_submit }, 2,
		  PREALLOC_METHOD_BUFFERED, "aio_refused", "io_submit refused: EPERM" },
		{ "io_uring_enter, io_setup", { __NR_io_uring_enter, __NR_io_setup }, 2,
		  PREALLOC_METHOD_BUFFERED, "aio_refused", "io_setup refused: EPERM" },
		{ "io_setup", { __NR_io_setup }, 1, PREALLOC_METHOD_URING },
		{ "io_submit", { __NR_io_submit }, 1, PREALLOC_METHOD_URING },
		{ "io_getevents", { __NR_io_getevents }, 1, PREALLOC_METHOD_URING },
		{ "sync_file_range", { __NR_sync_file_range }, 1, PREALLOC_METHOD_URING },
	};

	(void)state;
	if (RUNNING_ON_VALGRIND)	/* its core exits at a filter's first denial */
		skip();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		in_child(one_call_child, &cases[i], cases[i].what);
}

/*
 * A setup that fails for want of resources (io_uring_setup() or io_setup()
 * answering ENOMEM, as under memory pressure) is no refusal: a forced call
 * gets the error itself with the file unchanged, an automatic one goes on
 * with the next method, and the process does not remember it.
 */
struct enomem_case {
	const char *what;
	int nr;
	unsigned int forced, next;
};

static int setup_enomem_child(const void *arg)
{
	const struct enomem_case *k = arg;
	struct prealloc_options o = { .size = sizeof(o), .method = k->forced };
	struct prealloc_report r = { .size = sizeof(r) };
	struct stat st;
	char path[256];
	int fd;

	if (tsec_refuse_calls(&k->nr, 1, ENOMEM))
		return CHILD_NO_SECCOMP;
	fd = open(tfs_path(&fs_ext4.t, "enomem", path, sizeof(path)),
		  O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(prealloc_file_ex(fd, 0, 8 * M, &o, &r) == -ENOMEM);
	CHILD_CHECK(fstat(fd, &st) == 0 && st.st_size == 0 && st.st_blocks == 0);
	for (uint64_t off = 0; off < 16 * M; off += 8 * M) {	/* nothing was remembered */
		CHILD_CHECK(prealloc_file_ex(fd, off, 8 * M, NULL, &r) == 0);
		CHILD_CHECK(r.method == k->next);
	}
	close(fd);
	unlink(path);
	return 0;
}

static void setup_enomem_no_refusal(void **state)
{
	static const struct enomem_case cases[] = {
		{ "io_uring_setup ENOMEM", __NR_io_uring_setup, PREALLOC_METHOD_URING,
		  PREALLOC_METHOD_AIO },
		{ "io_setup ENOMEM", __NR_io_setup, PREALLOC_METHOD_AIO, PREALLOC_METHOD_URING },
	};

	(void)state;
	if (RUNNING_ON_VALGRIND)	/* its core exits at a filter's first denial */
		skip();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		in_child(setup_enomem_child, &cases[i], cases[i].what);
}

static void no_direct_io_refuses_direct_methods(void **state)
{
	static const unsigned int direct[] = { PREALLOC_METHOD_URING, PREALLOC_METHOD_AIO };
	struct prealloc_report r = { .size = sizeof(r) };
	char path[256];
	struct stat st;
	int fd;

	(void)state;
	assert_int_equal(umount2(fs_ext4.t.dir, 0), 0);
	assert_int_equal(mount(fs_ext4.t.dev, fs_ext4.t.dir, "ext4", 0, "data=journal"), 0);
	fd = open(tfs_path(&fs_ext4.t, "journalled", path, sizeof(path)), O_RDWR | O_CREAT | O_CLOEXEC,
		  0644);
	assert_true(fd >= 0);
	for (size_t i = 0; i < sizeof(direct) / sizeof(direct[0]); i++) {
		struct prealloc_options o = { .size = sizeof(o), .method = direct[i] };

		assert_int_equal(prealloc_file_ex(fd, 0, 4 * M, &o, &r), -EOPNOTSUPP);
		assert_int_equal(fstat(fd, &st), 0);
		assert_int_equal(st.st_size, 0);
		assert_int_equal(st.st_blocks, 0);
	}
	assert_int_equal(prealloc_file_ex(fd, 0, 4 * M, NULL, &r), 0);
	assert_int_equal(r.method, PREALLOC_METHOD_BUFFERED);
	close(fd);
	unlink(path);
	assert_int_equal(umount2(fs_ext4.t.dir, 0), 0);
	assert_int_equal(mount(fs_ext4.t.dev, fs_ext4.t.dir, "ext4", 0, NULL), 0);
}

static int setup(void **state)
{
	(void)state;
	if (fs_setup(&fs_ext4, "ext4", 64))
		return -1;
	/* mkfs.xfs wants more than 300 MB; the image is sparse. */
	if (tfs_supported("xfs") && fs_setup(&fs_xfs, "xfs", 320))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fs_teardown(&fs_ext4);
	if (fs_xfs.ctx)
		fs_teardown(&fs_xfs);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keep_size_and_no_block_not_asked),
		cmocka_unit_test(kernel_refusal_falls_back_once),
		cmocka_unit_test(seccomp_eperm_writes_aio),
		cmocka_unit_test(seccomp_enosys_writes_aio),
		cmocka_unit_test(seccomp_io_submit_writes_buffered),
		cmocka_unit_test(seccomp_no_aio_writes_buffered),
		cmocka_unit_test(seccomp_one_call_each),
		cmocka_unit_test(setup_enomem_no_refusal),
		cmocka_unit_test(no_direct_io_refuses_direct_methods),
		cmocka_unit_test(xfs_asked_reflink_apart),
		cmocka_unit_test(no_block_device_not_asked),
	};

	tfs_enter_for("ext4");
	return cmocka_run_group_tests(tests, setup, teardown);
}
