/* SPDX-License-Identifier: MIT */
/*
 * Files on xfs (tests/vm/guest.h), given "xfs": the file check of
 * test-vm-ext4, then the header's promises through a context (the pool,
 * keep-size, zero-data, cancelling, reflinked and always-COW files) and a
 * realtime file beside a plain one, with FALLOC_FL_WRITE_ZEROES wherever
 * the kernel takes it (Linux 7.3 on) and the fallbacks elsewhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "prealloc-pool.h"
#include "guest.h"

/* ------------------------------------------------------------ xfs files */

/*
 * xfs takes FALLOC_FL_WRITE_ZEROES from Linux 7.3 on; the library asks the
 * kernel instead of knowing it.  These tests run when the binary is given
 * "xfs" (devices of more than 300 MB: scsi_debug dev_size_mb=512).  Where
 * the kernel takes the flag (fs_takes_flag()), the calls must use it for
 * every byte they zero; where not, fall back; either way keep every promise.
 */
static void test_xfs_sdebug(void **s) { (void)s; need_xfs(); check_fs_path(need_dev("sdebug"), "xfs", true); }
static void test_xfs_nloop(void **s) { (void)s; need_xfs(); check_fs_path(need_dev("nloop"), "xfs", true); }

/* The last notice of a context's calls: why a method was refused. */
static char notice[512];

static void keep_notice(void *data, int priority, const char *file, int line, const char *fn,
			const char *format, va_list args)
{
	(void)data, (void)file, (void)line, (void)fn;
	if (priority == LOG_NOTICE)
		vsnprintf(notice, sizeof(notice), format, args);
}

static int call_ctx(struct prealloc_ctx *ctx, int fd, uint64_t off, uint64_t len,
		    unsigned int flags, prealloc_progress_fn progress, struct prealloc_report *r)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = flags, .ctx = ctx,
				      .progress = progress };

	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	notice[0] = 0;
	return prealloc_file_ex(fd, off, len, &o, r);
}

static int cancel_at_once(uint64_t done, uint64_t total, void *data)
{
	(void)done, (void)total, (void)data;
	return 1;
}

/* What the context's probe of @fd says it learnt from the kernel. */
static void expect_asked(struct prealloc_ctx *ctx, int fd, const char *want)
{
	struct prealloc_options o = { .size = sizeof(o), .ctx = ctx };
	struct prealloc_probe *pr;
	const char *s = NULL, *why = NULL;
	int answer;

	assert_int_equal(prealloc_probe_new(fd, 0, 0, &o, &pr), 0);
	assert_int_equal(prealloc_probe_lookup(pr, "write_zeroes_asked", NULL, &s),
			 PREALLOC_FACT_STRING);
	answer = prealloc_probe_zeroing_offloaded(pr, &why);
	print_message("probe: write_zeroes_asked %s, zeroing_offloaded %d: %s\n", s, answer, why);
	assert_string_equal(s, want);
	prealloc_probe_free(pr);
}

/* Pool segments on xfs: made by the worker with the flag, written; the
 * context learnt the kernel's answer (@learnt) from the worker's call. */
static void xfs_pool(struct prealloc_ctx *ctx, const char *mnt, const char *learnt)
{
	struct prealloc_pool_config cfg = { .size = sizeof(cfg), .segment_size = 8 * MiB,
					    .target = 1, .ctx = ctx };
	struct prealloc_pool_stats st = { .size = sizeof(st) };
	struct prealloc_pool *pool;
	char dir[96], name[96];
	int fd;

	snprintf(dir, sizeof(dir), "%s/pool", mnt);
	snprintf(name, sizeof(name), "%s/wal1", mnt);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(prealloc_pool_open(dir, &cfg, &pool), 0);
	assert_int_equal(prealloc_pool_wait_ready(pool, 1, -1), 0);
	fd = prealloc_pool_take(pool, AT_FDCWD, name, 0);
	assert_true(fd >= 0);
	assert_int_equal(prealloc_pool_get_stats(pool, &st), 0);
	print_message("pool: created %llu, bytes_zeroed %llu\n", (unsigned long long)st.created,
		      (unsigned long long)st.bytes_zeroed);
	census_written(fd, 0, 8 * MiB);
	expect_asked(ctx, fd, learnt);
	close(fd);
	prealloc_pool_close(pool);
}

/* Keep-size: beyond EOF a reservation only (the flag cannot keep the
 * size); inside EOF the flag, size unchanged.  @v: the flag's verdict. */
static void xfs_keep_size(struct prealloc_ctx *ctx, const char *mnt, uint32_t v)
{
	bool wz = v == PREALLOC_WZ_USED;
	struct prealloc_report r;
	struct stat st;
	int fd = open_new(mnt, "keep");

	assert_int_equal(call_ctx(ctx, fd, 0, 4 * MiB, PREALLOC_KEEP_SIZE, NULL, &r), 0);
	print_report("keep-size beyond EOF", &r);
	assert_int_equal(wz_bytes(&r), 0);
	expect_wz(&r, wz ? PREALLOC_WZ_KEEP_SIZE : v);
	assert_int_equal(r.bytes_reserved, 4 * MiB);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(ftruncate(fd, 8 * MiB), 0);
	assert_int_equal(call_ctx(ctx, fd, 0, 8 * MiB, PREALLOC_KEEP_SIZE, NULL, &r), 0);
	print_report("keep-size inside EOF", &r);
	assert_int_equal(wz_bytes(&r), wz ? 8 * MiB : 0);
	expect_wz(&r, v);
	assert_true(r.written);
	census_written(fd, 0, 8 * MiB);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 8 * MiB);
	close(fd);
}

/* Zero-data: the flag zeroes the data inside the range too, nothing
 * beside.  A refusal the context remembers is not asked again, and the
 * report says the same as when it was asked. */
static void xfs_zero_data(struct prealloc_ctx *ctx, const char *mnt, uint32_t v)
{
	bool wz = v == PREALLOC_WZ_USED;
	struct prealloc_report r;
	char path[96];
	int fd = open_new(mnt, "zd");

	fill(fd, 0, 4 * MiB, 0x5a);
	assert_int_equal(call_ctx(ctx, fd, MiB, 2 * MiB, PREALLOC_ZERO_DATA, NULL, &r), 0);
	print_report("zero-data", &r);
	assert_int_equal(r.bytes_zeroed, 2 * MiB);
	assert_int_equal(wz_bytes(&r), wz ? 2 * MiB : 0);
	expect_wz(&r, v);
	if (v == PREALLOC_WZ_FS_REFUSED)
		assert_false(r.refused & (1u << PREALLOC_METHOD_WRITE_ZEROES));
	census_written(fd, 0, 4 * MiB);
	close(fd);
	snprintf(path, sizeof(path), "%s/zd", mnt);
	expect_bytes(path, 0, MiB, 0x5a, false);
	expect_bytes(path, MiB, 2 * MiB, 0, false);
	expect_bytes(path, 3 * MiB, MiB, 0x5a, false);
}

/* A cancelled call is undone: size and blocks as before, space given back;
 * its report still says what it knew of the flag (@v: the verdict). */
static void xfs_cancel(struct prealloc_ctx *ctx, const char *mnt, uint32_t v)
{
	struct prealloc_report r;
	struct statfs a, b;
	struct stat st;
	int fd = open_new(mnt, "cancel");

	assert_int_equal(fsync(fd), 0);
	assert_int_equal(fstatfs(fd, &a), 0);
	assert_int_equal(call_ctx(ctx, fd, 0, 64 * MiB, 0, cancel_at_once, &r), -ECANCELED);
	print_report("cancelled", &r);
	if (v == PREALLOC_WZ_USED)	/* cancelled before or after its first chunk */
		assert_true(r.write_zeroes == PREALLOC_WZ_USED ||
			    r.write_zeroes == PREALLOC_WZ_WOULD_TRY);
	else
		expect_wz(&r, v);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_blocks, 0);
	assert_int_equal(fstatfs(fd, &b), 0);
	print_message("cancelled: free blocks %llu before, %llu after\n",
		      (unsigned long long)a.f_bfree, (unsigned long long)b.f_bfree);
	assert_true(b.f_bfree + 16 >= a.f_bfree);	/* a few metadata blocks at most */
	close(fd);
}

/*
 * A file sharing its extents with another (FICLONE): xfs gives its shared
 * blocks copy-on-write writes, so the library never zeroes them in place,
 * but 7.3 takes the flag on the rest of such a file.  Whatever the kernel
 * answers, the call keeps its promises; a refusal is the file's, so the
 * next plain file still uses the flag.  What the kernel says to the flag
 * over the shared blocks themselves is printed.
 */
static void xfs_reflink(struct prealloc_ctx *ctx, const char *mnt, uint32_t v)
{
	bool wz = v == PREALLOC_WZ_USED;
	struct prealloc_report r;
	int src = open_new(mnt, "orig"), fd = open_new(mnt, "clone");
	char path[96];

	fill(src, 0, 64 * KiB, 0x5a);
	assert_int_equal(ioctl(fd, FICLONE, src), 0);
	close(src);
	assert_int_equal(call_ctx(ctx, fd, MiB, 8 * MiB, 0, NULL, &r), 0);
	print_report("reflinked file", &r);
	print_message("reflinked file: %s\n", notice[0] ? notice : "no notice");
	assert_true(r.written);
	census_written(fd, MiB, 8 * MiB);
	if (wz && (r.refused & (1u << PREALLOC_METHOD_WRITE_ZEROES))) {
		assert_non_null(strstr(notice, "shares extents with another (reflink)"));
		expect_wz(&r, PREALLOC_WZ_INODE);
	} else {
		assert_int_equal(wz_bytes(&r), wz ? 8 * MiB : 0);
		expect_wz(&r, v);
	}
	/* The kernel's own answer over shared blocks (printed); the other file
	 * must keep its data whatever it is. */
	print_message("reflinked file: FALLOC_FL_WRITE_ZEROES over its shared blocks: %s\n",
		      fallocate(fd, FALLOC_FL_WRITE_ZEROES, 0, 64 * KiB) ? strerror(errno) : "works");
	close(fd);
	snprintf(path, sizeof(path), "%s/orig", mnt);
	expect_bytes(path, 0, 64 * KiB, 0x5a, false);
	fd = open_new(mnt, "after-clone");
	assert_int_equal(call_ctx(ctx, fd, 0, 8 * MiB, 0, NULL, &r), 0);
	print_report("plain file after it", &r);
	assert_int_equal(wz_bytes(&r), wz ? 8 * MiB : 0);
	expect_wz(&r, v);
	close(fd);
}

/* xfs's always_cow debug knob (kernels with CONFIG_XFS_DEBUG only). */
static void xfs_always_cow(struct prealloc_ctx *ctx, const char *mnt, bool wz)
{
	const char *knob = "/sys/fs/xfs/debug/always_cow";
	struct prealloc_report r;
	FILE *f = fopen(knob, "we");
	int fd;

	if (!f) {
		print_message("%s: absent (no CONFIG_XFS_DEBUG): always-COW inodes not tested\n", knob);
		return;
	}
	fputs("1", f);
	fclose(f);
	fd = open_new(mnt, "always-cow");
	assert_int_equal(call_ctx(ctx, fd, 0, 8 * MiB, 0, NULL, &r), 0);
	print_report("always_cow", &r);
	f = fopen(knob, "we");
	assert_non_null(f);
	fputs("0", f);
	fclose(f);
	if (wz && (r.refused & (1u << PREALLOC_METHOD_WRITE_ZEROES))) {
		assert_non_null(strstr(notice, "always_cow"));
		expect_wz(&r, PREALLOC_WZ_INODE);
	}
	close(fd);
}

/* The header's promises on xfs, with the flag where the kernel takes it. */
static void check_xfs_calls(const char *devpath)
{
	struct prealloc_ctx *ctx;
	char mnt[64];
	uint32_t v;
	bool wz;
	int fd;

	mkfs_xfs_mount(devpath, mnt, sizeof(mnt));
	wz = kernel_unmap_zeroes(devpath) && fs_takes_flag(mnt);
	v = wz_verdict(devpath, wz);
	assert_int_equal(prealloc_ctx_new(NULL, 0, &ctx), 0);
	assert_int_equal(prealloc_ctx_set_log_fn(ctx, keep_notice, NULL), 0);
	assert_int_equal(prealloc_ctx_set_log_priority(ctx, LOG_NOTICE), 0);
	fd = open_new(mnt, "first");
	expect_asked(ctx, fd, "not asked");
	close(fd);
	/* A device that cannot unmap-zero is never asked. */
	xfs_pool(ctx, mnt, wz ? "works" : kernel_unmap_zeroes(devpath) ? "refused" : "not asked");
	xfs_keep_size(ctx, mnt, v);
	xfs_zero_data(ctx, mnt, v);
	xfs_cancel(ctx, mnt, v);
	xfs_reflink(ctx, mnt, v);
	xfs_always_cow(ctx, mnt, wz);
	prealloc_ctx_unref(ctx);
	assert_int_equal(umount(mnt), 0);
}

/*
 * A realtime file: xfs with its realtime section on the 4 KiB NVMe disk
 * (which cannot unmap-zero) in 64 KiB realtime extents, over the
 * unmap-zeroing scsi_debug disk.  The data device says yes, so the flag is
 * tried; the kernel refuses it for the realtime file, the call falls back
 * and says it was the file, and a plain file of the same filesystem still
 * gets the flag.
 */
static void test_xfs_realtime(void **state)
{
	const char *devpath = need_dev("sdebug"), *rt = need_dev("nvme4k");
	char rtopt[96], mnt[64], path[96];
	/* 4 KiB sectors: the realtime disk's logical blocks. */
	const char *argv[] = { "mkfs.xfs", "-f", "-q", "-s", "size=4096", "-r", rtopt, devpath,
			       NULL };
	struct prealloc_report r;
	struct prealloc_ctx *ctx;
	struct fsxattr fa;
	bool wz;
	int fd;

	(void)state;
	need_xfs();
	snprintf(rtopt, sizeof(rtopt), "rtdev=%s,extsize=65536", rt);
	run_tool(argv);
	snprintf(rtopt, sizeof(rtopt), "rtdev=%s", rt);
	mkdir(mnt_of(devpath, mnt, sizeof(mnt)), 0755);
	assert_int_equal(mount(devpath, mnt, "xfs", 0, rtopt), 0);
	wz = kernel_unmap_zeroes(devpath) && fs_takes_flag(mnt);
	assert_int_equal(prealloc_ctx_new(NULL, 0, &ctx), 0);
	assert_int_equal(prealloc_ctx_set_log_fn(ctx, keep_notice, NULL), 0);
	assert_int_equal(prealloc_ctx_set_log_priority(ctx, LOG_NOTICE), 0);
	fd = open_new(mnt, "rt");
	assert_int_equal(ioctl(fd, FS_IOC_FSGETXATTR, &fa), 0);
	fa.fsx_xflags |= FS_XFLAG_REALTIME;
	assert_int_equal(ioctl(fd, FS_IOC_FSSETXATTR, &fa), 0);
	assert_int_equal(call_ctx(ctx, fd, 0, 8 * MiB, 0, NULL, &r), 0);
	print_report("realtime file", &r);
	print_message("realtime file: %s\n", notice[0] ? notice : "no notice");
	assert_true(r.written);
	census_written(fd, 0, 8 * MiB);
	if (r.refused & (1u << PREALLOC_METHOD_WRITE_ZEROES)) {
		assert_non_null(strstr(notice, "on xfs's realtime device"));
		expect_wz(&r, PREALLOC_WZ_INODE);
	}
	if (wz)		/* 7.3: the flag is tried and refused for this file alone */
		expect_wz(&r, PREALLOC_WZ_INODE);
	close(fd);
	snprintf(path, sizeof(path), "%s/rt", mnt);
	expect_bytes(path, 0, 8 * MiB, 0, false);
	fd = open_new(mnt, "plain");
	assert_int_equal(call_ctx(ctx, fd, 0, 8 * MiB, 0, NULL, &r), 0);
	print_report("plain file beside it", &r);
	assert_int_equal(wz_bytes(&r), wz ? 8 * MiB : 0);
	expect_wz(&r, wz_verdict(devpath, wz));
	close(fd);
	prealloc_ctx_unref(ctx);
	assert_int_equal(umount(mnt), 0);
}

static void test_xfs_calls_sdebug(void **s) { (void)s; need_xfs(); check_xfs_calls(need_dev("sdebug")); }
static void test_xfs_calls_nloop(void **s) { (void)s; need_xfs(); check_xfs_calls(need_dev("nloop")); }

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_xfs_sdebug, unmount_all),
		cmocka_unit_test_teardown(test_xfs_nloop, unmount_all),
		cmocka_unit_test_teardown(test_xfs_calls_sdebug, unmount_all),
		cmocka_unit_test_teardown(test_xfs_calls_nloop, unmount_all),
		cmocka_unit_test_teardown(test_xfs_realtime, unmount_all),
	};

	vm_args(argc, argv);
	return cmocka_run_group_tests_name("test-vm-xfs", tests, NULL, unmount_all);
}
