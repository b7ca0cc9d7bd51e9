/* SPDX-License-Identifier: MIT */
/*
 * The library as a container runs it (root and loop devices; skip
 * otherwise), on ext4 and xfs: io_uring refused by a seccomp filter (EPERM,
 * as Docker's and containerd's default profiles refuse it, and ENOSYS), an
 * unprivileged user without CAP_SYS_ADMIN, /sys read-only, /sys empty with
 * /proc absent, a memory cgroup limit of 1.5 GiB.  Each runs in a child
 * process that its confinement cannot leak out of, and there: the promises
 * hold (the range written by FIEMAP, the caller's data kept, zeros
 * elsewhere, a cancel from the progress callback undone), the report and
 * the probe name the method (and why io_uring is not used, once the library
 * knows a method without it), at most 16 MiB of the range is left in the
 * page cache, and every page of the caller's data cached before the call
 * is still cached after it.  Under EPERM the async handle in background
 * mode and the pool's worker leave at most 16 MiB per call too.
 *
 * The buffered path forced, on ext4 and xfs (RWF_DONTCACHE) and btrfs
 * (which refuses it: write-back per window): the same checks, and a
 * working set read into the cache of a cgroup limited to 256 MiB stays
 * >= 99% resident across a 192 MiB call.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tassert.h"
#include "tcache.h"
#include "tcgroup.h"
#include "tcheck.h"
#include "tfs.h"
#include "tseccomp.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define CACHE_MAX (16 * MiB)	/* of a call's range, after the call */
#define NOBODY 65534

/* The caller's data: the range starts inside the first piece, keeps the
 * second, and the third ends at EOF inside a page the call writes the rest
 * of. */
static const struct {
	uint64_t off, len;
} data[] = {
	{ 0, 12 * KiB + 100 },
	{ 8 * MiB + 5, 70000 },
	{ 20 * MiB, 1234 },
};
#define NDATA (sizeof(data) / sizeof(data[0]))
#define R_OFF 5000ull
#define R_END (R_OFF + 56 * MiB + 777)

enum scene {
	S_EPERM,	/* seccomp: io_uring refused with EPERM */
	S_ENOSYS,	/* ... with ENOSYS */
	S_NOBODY,	/* setuid nobody, no capabilities */
	S_SYS_RO,	/* /sys read-only */
	S_SYS_EMPTY,	/* /sys an empty tmpfs, /proc unmounted */
	S_CGROUP,	/* memory.max 1.5 GiB */
	S_BUFFERED,	/* the buffered method forced */
	S_WORKING_SET,	/* forced buffered in a 256 MiB cgroup beside a 128 MiB working set */
};

static const char *const scene_name[] = {
	"eperm", "enosys", "nobody", "sys-ro", "sys-empty", "cgroup", "buffered", "working-set",
};

static struct tfs fs;
static const char *path(const char *scene, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s-%s", fs.dir, scene, name);
	return buf;
}

/* The file of the layout above, its pages of data read into the cache;
 * @shadow gets its expected contents after the call. */
static int make_file(const char *p, uint8_t *shadow, bool nobody)
{
	uint8_t buf[4096];
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	if (shadow)
		memset(shadow, 0, R_END);
	for (size_t i = 0; i < NDATA; i++) {
		if (tc_write_pattern(fd, shadow, (uint32_t)i + 1, data[i].off, data[i].len))
			return -EIO;
	}
	if (fsync(fd) < 0 || (nobody && fchown(fd, NOBODY, NOBODY) < 0))
		return -errno;
	for (size_t i = 0; i < NDATA; i++)
		for (uint64_t o = data[i].off; o < data[i].off + data[i].len; o += sizeof(buf))
			if (pread(fd, buf, sizeof(buf), (off_t)o) < 0)
				return -errno;
	close(fd);
	return 0;
}

/* @fd's extents from @off on, FIEMAP's own (ext4 splits them at 128 MiB). */
static struct fiemap *extents(int fd, uint64_t off)
{
	const uint32_t n = 512;
	struct fiemap *fm = calloc(1, sizeof(*fm) + n * sizeof(struct fiemap_extent));

	if (!fm)
		return NULL;
	*fm = (struct fiemap){ .fm_start = off, .fm_length = FIEMAP_MAX_OFFSET - off,
			       .fm_flags = FIEMAP_FLAG_SYNC, .fm_extent_count = n };
	if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0 || fm->fm_mapped_extents == n) {
		free(fm);
		return NULL;
	}
	return fm;
}

/* Is every byte of [off, end) in extents neither unwritten nor delayed? */
static bool written(int fd, uint64_t off, uint64_t end)
{
	struct fiemap *fm = extents(fd, off);
	uint64_t at = off;

	for (uint32_t i = 0; fm && i < fm->fm_mapped_extents && at < end; i++) {
		const struct fiemap_extent *e = &fm->fm_extents[i];

		if (e->fe_logical > at ||
		    (e->fe_flags & (FIEMAP_EXTENT_UNWRITTEN | FIEMAP_EXTENT_DELALLOC)))
			break;
		if (e->fe_logical + e->fe_length > at)
			at = e->fe_logical + e->fe_length;
	}
	free(fm);
	return at >= end;
}

/* The allocated byte ranges of @fd and whether each is unwritten, adjacent
 * ones alike merged, into @v (at most @n): their count, or -1. */
struct alloc {
	uint64_t start, end;
	bool unwritten;
};

static int allocation(int fd, struct alloc *v, int n)
{
	struct fiemap *fm = extents(fd, 0);
	int k = 0;

	for (uint32_t i = 0; fm && i < fm->fm_mapped_extents && k >= 0; i++) {
		const struct fiemap_extent *e = &fm->fm_extents[i];
		bool u = e->fe_flags & FIEMAP_EXTENT_UNWRITTEN;

		if (k && v[k - 1].end == e->fe_logical && v[k - 1].unwritten == u)
			v[k - 1].end += e->fe_length;
		else if (k < n)
			v[k++] = (struct alloc){ e->fe_logical, e->fe_logical + e->fe_length, u };
		else
			k = -1;
	}
	if (!fm)
		k = -1;
	free(fm);
	return k;
}

/* Pages holding the caller's data that were cached: still cached? */
static void data_pages_kept(int fd, const uint8_t *before)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint8_t *now = malloc(R_END / pg + 1);

	expect_msg(now && tcache_pages(fd, R_END, now) == 0, "mincore");
	for (size_t i = 0; now && i < NDATA; i++)
		for (uint64_t p = data[i].off / pg; p * pg < data[i].off + data[i].len; p++)
			expect_msg(!(before[p] & 1) || (now[p] & 1),
			      "page %" PRIu64 " of the caller's data was cached and is not", p);
	free(now);
}

/* Does the probe say @text, in its plan's reason or any fact? */
static bool probe_says(const struct prealloc_probe *p, const char *text)
{
	const char *why = prealloc_probe_plan_reason(p), *s;

	if (why && strstr(why, text))
		return true;
	for (unsigned int i = 0; prealloc_probe_fact(p, i, NULL, NULL, &s) >= 0; i++)
		if (s && strstr(s, text))
			return true;
	return false;
}

static bool plan_lists(const struct prealloc_probe *p, int m)
{
	int got;

	for (unsigned int i = 0; (got = prealloc_probe_plan(p, i)) >= 0; i++)
		if (got == m)
			return true;
	return false;
}

/* The method of the probe's first zero step: what the call tries first. */
static uint32_t zero_method(const struct prealloc_probe *p)
{
	uint32_t action, m;

	for (unsigned int i = 0; prealloc_probe_step(p, i, &action, &m, NULL, NULL) == 0; i++)
		if (action == PREALLOC_ACTION_ZERO)
			return m;
	return PREALLOC_METHOD_AUTO;
}

static const char *refusal_text(int err)
{
	return err == EPERM ? "io_uring_setup refused: EPERM (a seccomp profile?)" :
	       "io_uring_setup refused: ENOSYS (no io_uring in this kernel, or a seccomp profile)";
}

/*
 * The method the report and the probe name.  Refused io_uring (@refusal:
 * its errno): the method without it ("aio" where the library has it, with
 * the probe saying why; else the buffered writes, after a refusal).
 * Without /proc (@refusal ENOENT) no O_DIRECT descriptor can be opened
 * (src/file/reopen.c): buffered writes, and the probe's steps say so.
 */
static void check_method(const struct prealloc_report *r, const struct prealloc_probe *p,
			 int refusal, uint32_t forced)
{
	const uint32_t uring = 1u << PREALLOC_METHOD_URING;
	int aio = prealloc_method_from_name("aio"), first = prealloc_probe_plan(p, 0);

	if (forced) {
		expect_msg(r->method == forced && first == (int)forced, "forced %s: ran %s, probe %d",
		      prealloc_method_name(forced), prealloc_method_name(r->method), first);
		return;
	}
	if (refusal == ENOENT) {
		expect_msg(r->method == PREALLOC_METHOD_BUFFERED && (r->refused & uring),
		      "no /proc: ran %s, refused 0x%x", prealloc_method_name(r->method), r->refused);
		expect_msg(zero_method(p) == PREALLOC_METHOD_BUFFERED, "no /proc: the probe zeroes with %s",
		      prealloc_method_name(zero_method(p)));
		return;
	}
	if (!refusal) {
		expect_msg(r->method == (uint32_t)first, "ran %s, the probe planned %d",
		      prealloc_method_name(r->method), first);
		expect_msg(!(r->refused & uring), "io_uring refused");
		expect_msg(!probe_says(p, "io_uring_setup refused"), "the probe says io_uring is refused");
		return;
	}
	if (aio >= 0) {
		expect_msg(r->method == (uint32_t)aio, "io_uring refused: ran %s, not aio",
		      prealloc_method_name(r->method));
		expect_msg(plan_lists(p, aio), "the probe does not plan aio");
		expect_msg(probe_says(p, refusal_text(refusal)), "the probe does not say \"%s\"",
		      refusal_text(refusal));
	} else {
		expect_msg(r->method == PREALLOC_METHOD_BUFFERED && (r->refused & uring),
		      "io_uring refused: ran %s, refused 0x%x", prealloc_method_name(r->method),
		      r->refused);
		expect_msg(plan_lists(p, PREALLOC_METHOD_BUFFERED), "the probe does not plan buffered");
	}
}

static void check_call(const char *p, const uint8_t *shadow, int refusal, uint32_t forced)
{
	struct prealloc_options o = { .size = sizeof(o), .method = forced };
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_probe *probe = NULL;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint8_t *before = malloc(R_END / pg + 1);
	int fd = open(p, O_RDWR | O_CLOEXEC), ret;
	int64_t res;
	struct stat st;

	expect_msg(fd >= 0 && before, "open %s: %s", p, strerror(errno));
	if (fd < 0 || !before)
		return;
	expect_msg(tcache_pages(fd, R_END, before) == 0, "mincore before");
	expect_msg(prealloc_probe_new(fd, R_OFF, R_END - R_OFF, &o, &probe) == 0, "probe");
	ret = prealloc_file_ex(fd, R_OFF, R_END - R_OFF, &o, &r);
	expect_msg(ret == 0, "call: %s", strerror(-ret));
	if (probe)
		check_method(&r, probe, refusal, forced);
	/* The cache first: reading the contents fills it. */
	res = tcache_resident(fd, R_OFF, R_END - R_OFF);
	expect_msg(res >= 0 && (uint64_t)res <= CACHE_MAX, "%" PRId64 " MiB of the range cached after %s",
	      res >> 20, prealloc_method_name(r.method));
	data_pages_kept(fd, before);
	expect_msg(fstat(fd, &st) == 0 && (uint64_t)st.st_size == R_END, "size");
	expect_msg(written(fd, R_OFF, R_END), "the range is not all written (FIEMAP)");
	expect_msg(tc_compare(fd, shadow, R_END) == -1, "contents differ at %" PRId64,
	      tc_compare(fd, shadow, R_END));
	prealloc_probe_free(probe);
	free(before);
	close(fd);
}

static int cancel_now(uint64_t done, uint64_t total, void *arg)
{
	(void)done;
	(void)total;
	(void)arg;
	return 1;
}

/* A cancel from the progress callback: the file as it was, bytes, size
 * and allocation (FIEMAP: ext4 may keep an extent-tree block the
 * reservation grew, which st_blocks would count). */
static void check_cancel(const char *p, uint32_t forced)
{
	struct prealloc_options o = { .size = sizeof(o), .method = forced,
				      .progress = cancel_now };
	struct alloc a0[16], a[16];
	int fd = open(p, O_RDWR | O_CLOEXEC), ret, n0, n;
	struct tc_snap s;

	expect_msg(fd >= 0, "open %s: %s", p, strerror(errno));
	if (fd < 0)
		return;
	expect_msg(fsync(fd) == 0 && tc_snap_take(fd, &s) == 0, "snapshot");
	n0 = allocation(fd, a0, 16);
	ret = prealloc_file_ex(fd, R_OFF, R_END - R_OFF, &o, NULL);
	expect_msg(ret == -ECANCELED, "cancel: %s", strerror(-ret));
	n = allocation(fd, a, 16);
	expect_msg(tc_snap_diff(fd, &s) == 0, "not undone: bytes or size differ at %" PRId64,
	      tc_snap_diff(fd, &s) - 1);
	expect_msg(n0 >= 0 && n == n0, "not undone: %d allocated ranges (were %d)", n, n0);
	for (int i = 0; n == n0 && i < n; i++)
		expect_msg(a[i].start == a0[i].start && a[i].end == a0[i].end &&
		      a[i].unwritten == a0[i].unwritten, "not undone: allocated range %d differs", i);
	tc_snap_free(&s);
	close(fd);
}

/* The async handle in background mode: a 64 MiB call leaves <= 16 MiB. */
static void check_async(const char *p)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = PREALLOC_BACKGROUND };
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_async *h = NULL;
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int64_t res;

	expect_msg(fd >= 0 && prealloc_async_start(fd, 0, 64 * MiB, &o, &h) == 0, "async start");
	if (!h)
		return;
	expect_msg(prealloc_async_wait(h) == 0 && prealloc_async_report(h, &r) == 0, "async");
	res = tcache_resident(fd, 0, 64 * MiB);
	expect_msg(res >= 0 && (uint64_t)res <= CACHE_MAX, "async %s: %" PRId64 " MiB cached",
	      prealloc_method_name(r.method), res >> 20);
	prealloc_async_free(h);
	close(fd);
}

/* The pool's worker: two ready 48 MiB segments, <= 16 MiB cached each. */
static void check_pool(const char *dir)
{
	struct prealloc_pool_config cfg = { .size = sizeof(cfg), .segment_size = 48 * MiB,
					    .target = 2 };
	struct prealloc_pool *pool = NULL;
	struct dirent *e;
	unsigned int seen = 0;
	DIR *d;

	expect_msg(mkdir(dir, 0755) == 0 && prealloc_pool_open(dir, &cfg, &pool) == 0, "pool open");
	if (!pool)
		return;
	expect_msg(prealloc_pool_wait_ready(pool, 2, 120000) == 0, "pool not ready");
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC);
		struct stat st;
		int64_t res;

		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    (uint64_t)st.st_size == cfg.segment_size) {
			res = tcache_resident(fd, 0, cfg.segment_size);
			expect_msg(res >= 0 && (uint64_t)res <= CACHE_MAX, "segment %s: %" PRId64
			      " MiB cached", e->d_name, res >> 20);
			seen++;
		}
		if (fd >= 0)
			close(fd);
	}
	if (d)
		closedir(d);
	expect_msg(seen >= 2, "%u ready segments found", seen);
	prealloc_pool_close(pool);
}

/* --- confinement ------------------------------------------------------------ */

static int drop_to_nobody(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct cap[2];

	if (setgroups(0, NULL) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
	    setresuid(NOBODY, NOBODY, NOBODY) < 0)
		return -errno;
	/* From root to another user: the kernel clears every capability. */
	if (syscall(SYS_capget, &hdr, cap) < 0)
		return -errno;
	return cap[0].effective || cap[0].permitted || cap[1].effective ? -EPERM : 0;
}

/* A mount namespace of the child's own, so nothing it mounts leaks out. */
static int private_mounts(void)
{
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;
	return 0;
}

static int sys_read_only(void)
{
	struct mount_attr a = { .attr_set = MOUNT_ATTR_RDONLY };
	struct statvfs sv;

	if (syscall(SYS_mount_setattr, -1, "/sys", AT_RECURSIVE, &a, sizeof(a)) < 0)
		return -errno;
	return statvfs("/sys", &sv) == 0 && (sv.f_flag & ST_RDONLY) ? 0 : -EPROTO;
}

static int sys_empty_no_proc(void)
{
	if (mount("none", "/sys", "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") < 0 ||
	    umount2("/proc", MNT_DETACH) < 0)
		return -errno;
	return access("/proc/self", F_OK) == 0 || access("/sys/block", F_OK) == 0 ? -EPROTO : 0;
}

static int confine(enum scene s)
{
	switch (s) {
	case S_EPERM:
		return tsec_refuse_io_uring(EPERM);
	case S_ENOSYS:
		return tsec_refuse_io_uring(ENOSYS);
	case S_NOBODY:
		return drop_to_nobody();
	case S_SYS_RO:
		return private_mounts() ?: sys_read_only();
	case S_SYS_EMPTY:
		return private_mounts() ?: sys_empty_no_proc();
	default:
		return 0;
	}
}

/* --- the working set ------------------------------------------------------- */

#define WS_SIZE (128 * MiB)
#define WS_CALL (192 * MiB)

static int64_t read_all(int fd, uint64_t len)
{
	static uint8_t buf[1 << 20];

	for (uint64_t o = 0; o < len; o += sizeof(buf))
		if (pread(fd, buf, sizeof(buf), (off_t)o) != (ssize_t)sizeof(buf))
			return -EIO;
	return tcache_resident(fd, 0, len);
}

/* In the child, inside the 256 MiB group: read the working set, then a
 * buffered call of more than the group has left beside it. */
static void check_working_set(const char *ws, const char *p)
{
	struct prealloc_options o = { .size = sizeof(o), .method = PREALLOC_METHOD_BUFFERED };
	int wfd = open(ws, O_RDONLY | O_CLOEXEC);
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), ret;
	int64_t before, after, res;

	expect_msg(wfd >= 0 && fd >= 0, "open");
	if (wfd < 0 || fd < 0)
		return;
	before = read_all(wfd, WS_SIZE);
	expect_msg(before >= (int64_t)(WS_SIZE * 99 / 100), "working set %" PRId64 " MiB cached to start",
	      before >> 20);
	ret = prealloc_file_ex(fd, 0, WS_CALL, &o, NULL);
	expect_msg(ret == 0, "call: %s", strerror(-ret));
	after = tcache_resident(wfd, 0, WS_SIZE);
	res = tcache_resident(fd, 0, WS_CALL);
	expect_msg(after >= before * 99 / 100, "working set %" PRId64 " MiB -> %" PRId64 " MiB resident",
	      before >> 20, after >> 20);
	expect_msg(res >= 0 && (uint64_t)res <= CACHE_MAX, "%" PRId64 " MiB of the call cached", res >> 20);
	close(wfd);
	close(fd);
}

/* Written by the parent, out of the cache: the child's reads charge it. */
static void make_working_set(const char *ws)
{
	static uint8_t buf[1 << 20];
	int fd = open(ws, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	memset(buf, 0x5a, sizeof(buf));
	for (uint64_t o = 0; o < WS_SIZE; o += sizeof(buf))
		assert_int_equal(pwrite(fd, buf, sizeof(buf), (off_t)o), (ssize_t)sizeof(buf));
	assert_int_equal(fdatasync(fd), 0);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
}

/* --- the child and its parent ---------------------------------------------- */

static int child(enum scene s)
{
	const char *n = scene_name[s];
	uint32_t forced = s == S_BUFFERED || s == S_WORKING_SET ? PREALLOC_METHOD_BUFFERED : 0;
	int refusal = s == S_EPERM ? EPERM : s == S_ENOSYS ? ENOSYS : s == S_SYS_EMPTY ? ENOENT : 0;
	int ret;
	uint8_t *shadow = malloc(R_END);
	char a[128], c[128], x[128];

	tassert_context = fs.type;
	if (s == S_WORKING_SET) {
		free(shadow);
		if ((ret = confine(s)) != 0)
			return 1;
		check_working_set(path(n, "ws", x, sizeof(x)), path(n, "b", c, sizeof(c)));
		unlink(x);
		unlink(c);
		return tassert_failures ? 1 : 0;
	}
	if (!shadow || make_file(path(n, "a", a, sizeof(a)), shadow, s == S_NOBODY) ||
	    make_file(path(n, "c", c, sizeof(c)), NULL, s == S_NOBODY)) {
		fprintf(stderr, "%s: cannot make the files\n", n);
		return 1;
	}
	ret = confine(s);
	if (ret == -ENOSYS || ret == -EINVAL) {
		fprintf(stderr, "%s: cannot confine here (%s): skipped\n", n, strerror(-ret));
		return TFS_SKIP;
	}
	if (ret) {
		fprintf(stderr, "%s: confining failed: %s\n", n, strerror(-ret));
		return 1;
	}
	check_call(a, shadow, refusal, forced);
	check_cancel(c, forced);
	if (s == S_EPERM) {
		check_async(path(n, "async", x, sizeof(x)));
		unlink(x);
		check_pool(path(n, "pool", x, sizeof(x)));
		tfs_rmtree(x);
	}
	unlink(a);
	unlink(c);
	free(shadow);
	return tassert_failures ? 1 : 0;
}

/* Run @s in a child; a memory cgroup of @limit bytes around it unless 0.
 * Its exit status. */
static int run_child(enum scene s, uint64_t limit)
{
	struct tcg g = { "" };
	int go[2], st = 0, ret;
	char b = 0;
	pid_t pid;

	if (limit && (ret = tcg_create(&g, scene_name[s], limit)) != 0) {
		if (ret == -ENOENT)
			return TFS_SKIP;
		fail_msg("memory cgroup: %s", strerror(-ret));
	}
	assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(1);
		_exit(child(s));
	}
	close(go[0]);
	ret = limit ? tcg_enter(&g, pid) : 0;
	b = ret == 0;
	assert_int_equal(write(go[1], &b, 1), 1);
	close(go[1]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(tcg_destroy(&g), 0);
	assert_int_equal(ret, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A case: its scene and the memory cgroup limit around it (0: none). */
struct scase {
	enum scene s;
	uint64_t limit;
};

static void scene_test(void **state)
{
	const struct scase *c = *state;
	int st;

	if (c->s == S_WORKING_SET) {
		char ws[128];

		make_working_set(path(scene_name[S_WORKING_SET], "ws", ws, sizeof(ws)));
	}
	st = run_child(c->s, c->limit);
	if (st == TFS_SKIP)
		skip();
	if (st)
		fail_msg("%s on %s: the child failed (%d)", scene_name[c->s], fs.type, st);
}

static const char *group_type;	/* the filesystem of the group setup() makes */

static int setup(void **state)
{
	(void)state;
	if (!tfs_supported(group_type))
		return -1;
	return tfs_create(&fs, group_type, 768, NULL) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	tfs_destroy(&fs);
	return 0;
}

#define CASE(name, scene, limit) \
	{ name, scene_test, NULL, NULL, &(struct scase){ scene, limit } }

int main(void)
{
	const struct CMUnitTest all[] = {
		CASE("seccomp_eperm", S_EPERM, 0),
		CASE("seccomp_enosys", S_ENOSYS, 0),
		CASE("unprivileged", S_NOBODY, 0),
		CASE("sys_read_only", S_SYS_RO, 0),
		CASE("sys_empty_no_proc", S_SYS_EMPTY, 0),
		CASE("memory_cgroup", S_CGROUP, 1536 * MiB),
		CASE("buffered", S_BUFFERED, 0),
		CASE("working_set", S_WORKING_SET, 256 * MiB),
	};
	/* btrfs refuses RWF_DONTCACHE: the write-back path. */
	const struct CMUnitTest cow[] = { all[6], all[7] };
	int ret = 0;

	tfs_enter();
	group_type = "ext4";
	ret |= cmocka_run_group_tests_name("ext4", all, setup, teardown);
	group_type = "xfs";
	ret |= cmocka_run_group_tests_name("xfs", all, setup, teardown);
	group_type = "btrfs";
	ret |= cmocka_run_group_tests_name("btrfs", cow, setup, teardown);
	return ret;
}
