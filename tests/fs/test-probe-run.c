/* SPDX-License-Identifier: MIT */
/*
 * The probe shows what the call does: for every filesystem, method, flag
 * and request shape (small, unaligned, over data, holes and end of file),
 * the steps prealloc_probe_step() lists cover, method by method, exactly
 * the bytes prealloc_file_ex() then reports in bytes_by_method, and the
 * call fails where the probe says it will.  The tool prints both: `prealloc
 * probe --json` and `prealloc run --json` agree on bytes_by_method.
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
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/fs.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tfs.h"

#define K 1024ull
#define M (1024ull * 1024)

/* Data at [0, 64K) and [1M, 1M + 10000) (the end of file), a hole between. */
#define EOF_AT (M + 10000)

struct req {
	uint64_t off, len;
};

static const struct req reqs[] = {
	{ 0, 1 },			/* one byte of data */
	{ 100, 5000 },			/* small, unaligned, over data */
	{ 4 * K, 8 * K },		/* inside the data, aligned */
	{ 70 * K, 8 * K },		/* a small hole */
	{ 60000, 2 * M },		/* data, hole, data, end of file */
	{ EOF_AT, 3 * M + 123 },	/* from the end of file */
	{ 5 * M + 1, M },		/* beyond it, leaving a gap */
};

static const uint32_t methods[] = {
	PREALLOC_METHOD_AUTO, PREALLOC_METHOD_WRITE_ZEROES, PREALLOC_METHOD_ZEROOUT,
	PREALLOC_METHOD_URING, PREALLOC_METHOD_BUFFERED, PREALLOC_METHOD_ALLOCATE,
	PREALLOC_METHOD_AIO,
};

static const uint32_t flag_sets[] = { 0, PREALLOC_ZERO_DATA, PREALLOC_KEEP_SIZE };

static int layout(const struct tfs *t)
{
	static char buf[64 * 1024];
	char path[256];
	int fd;

	tfs_path(t, "f", path, sizeof(path));
	unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	memset(buf, 0x5a, sizeof(buf));
	assert_int_equal(pwrite(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	assert_int_equal(pwrite(fd, buf, 10000, M), 10000);
	assert_int_equal(fsync(fd), 0);
	return fd;
}

/* The probe's bytes per method (zero and edge steps), its sync, or its error. */
static int probe(int fd, const struct req *q, const struct prealloc_options *o, uint64_t *bytes,
		 bool *sync)
{
	struct prealloc_probe *p;
	uint32_t action, method;
	uint64_t off, len;
	int ret;

	assert_int_equal(prealloc_probe_new(fd, q->off, q->len, o, &p), 0);
	memset(bytes, 0, PREALLOC_METHOD_SLOTS * sizeof(*bytes));
	*sync = false;
	for (unsigned int i = 0; (ret = prealloc_probe_step(p, i, &action, &method, &off, &len)) == 0;
	     i++) {
		assert_non_null(prealloc_action_name(action));
		assert_true(off >= q->off && off + len <= q->off + q->len);
		if (action == PREALLOC_ACTION_ZERO || action == PREALLOC_ACTION_WRITE_EDGES)
			bytes[method] += len;
		*sync |= action == PREALLOC_ACTION_SYNC;
	}
	prealloc_probe_free(p);
	return ret == -ENOENT ? 0 : ret;
}

static uint32_t most(const uint64_t *bytes)
{
	uint32_t best = PREALLOC_METHOD_AUTO;

	for (uint32_t m = 1; m < PREALLOC_METHOD_SLOTS; m++)
		if (bytes[m] > bytes[best])
			best = m;
	return best;
}

/* One request on @fd: probe, run, compare.  1 when compared, 0 when the
 * kernel refused the method while running (what the probe cannot know). */
static int check_fd(int fd, const char *what, const struct req *q, uint32_t flags,
		    uint32_t method)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = flags, .method = method };
	struct prealloc_report r = { .size = sizeof(r) };
	uint64_t bytes[PREALLOC_METHOD_SLOTS];
	int want, got;
	bool sync;

	want = probe(fd, q, &o, bytes, &sync);
	got = prealloc_file_ex(fd, q->off, q->len, &o, &r);
	print_message("%s [%llu, +%llu) flags %#x %s: probe %d, run %d\n", what,
		      (unsigned long long)q->off, (unsigned long long)q->len, flags,
		      prealloc_method_name(method), want, got);
	if (want == 0 && got == -EOPNOTSUPP && r.failed_phase == PREALLOC_PHASE_ZERO &&
	    method != PREALLOC_METHOD_AUTO)
		return 0;
	assert_int_equal(got, want);
	if (got)
		return 1;
	assert_int_equal(r.refused, 0);
	assert_true(sync == !(flags & PREALLOC_NO_SYNC));
	for (uint32_t m = 1; m < PREALLOC_METHOD_SLOTS; m++)
		assert_int_equal(r.bytes_by_method[m], bytes[m]);
	assert_int_equal(r.method, most(bytes));
	return 1;
}

/* The same on a fresh copy of the layout in @t. */
static int check(const struct tfs *t, const struct req *q, uint32_t flags, uint32_t method)
{
	int fd = layout(t), ret = check_fd(fd, t->type, q, flags, method);

	close(fd);
	return ret;
}

/* The "bytes_by_method" object of the tool's JSON for @args, into @obj. */
__attribute__((format(printf, 3, 4)))
static void tool_bytes(char *obj, size_t len, const char *fmt, ...)
{
	char args[512], cmd[1024], out[8192];
	const char *b, *e;
	va_list ap;
	size_t n;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "'%s' %s", getenv("PREALLOC_TOOL"), args);
	f = popen(cmd, "r");
	assert_non_null(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	assert_int_equal(pclose(f), 0);
	b = strstr(out, "\"bytes_by_method\":{");
	assert_non_null(b);
	e = strchr(b, '}');
	assert_non_null(e);
	snprintf(obj, len, "%.*s", (int)(e - b + 1), b);
}

/* The tool, for the request over data, hole and end of file. */
static void tool_probe_equals_run(const struct tfs *t)
{
	static const char *const names[] = { "auto", "uring", "buffered", "aio" };
	const struct req *q = &reqs[4];
	char path[256], probed[512], ran[512];

	tfs_path(t, "f", path, sizeof(path));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		close(layout(t));
		tool_bytes(probed, sizeof(probed), "probe --json -o %llu -l %llu -m %s %s",
			   (unsigned long long)q->off, (unsigned long long)q->len, names[i], path);
		tool_bytes(ran, sizeof(ran), "run --json -o %llu -l %llu -m %s %s",
			   (unsigned long long)q->off, (unsigned long long)q->len, names[i], path);
		print_message("%s %s: probe %s, run %s\n", t->type, names[i], probed, ran);
		assert_string_equal(probed, ran);
	}
}

static void probe_equals_run(const char *type, unsigned int mb)
{
	struct tfs t = { 0 };
	unsigned int compared = 0, n = 0;

	if (!tfs_supported(type) || tfs_create(&t, type, mb, NULL) < 0)
		skip();
	for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); m++)
		for (size_t f = 0; f < sizeof(flag_sets) / sizeof(flag_sets[0]); f++)
			for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++, n++)
				compared += (unsigned int)check(&t, &reqs[i], flag_sets[f] |
								(n % 2 ? PREALLOC_NO_SYNC : 0),
								methods[m]);
	/* Most cases run to the end; a forced method the kernel refuses may not. */
	assert_true(compared * 2 > n);
	tool_probe_equals_run(&t);
	tfs_destroy(&t);
}

static void ext4(void **state)
{
	(void)state;
	probe_equals_run("ext4", 64);
}

static void xfs(void **state)
{
	(void)state;
	probe_equals_run("xfs", 300);
}

static void btrfs(void **state)
{
	(void)state;
	probe_equals_run("btrfs", 128);
}

static void tmpfs(void **state)
{
	(void)state;
	probe_equals_run("tmpfs", 64);
}

/* An append-only file: the probe fails where the call does. */
static void append_only(void **state)
{
	struct tfs t = { 0 };
	int fd, attr = 0;

	(void)state;
	if (tfs_create(&t, "ext4", 64, NULL) < 0)
		skip();
	fd = layout(&t);
	assert_int_equal(ioctl(fd, FS_IOC_GETFLAGS, &attr), 0);
	attr |= FS_APPEND_FL;
	assert_int_equal(ioctl(fd, FS_IOC_SETFLAGS, &attr), 0);
	check_fd(fd, "append-only", &reqs[4], 0, PREALLOC_METHOD_AUTO);
	assert_int_equal(probe(fd, &reqs[4], NULL, (uint64_t[PREALLOC_METHOD_SLOTS]){ 0 },
			       (bool[1]){ false }), -EPERM);
	attr &= ~FS_APPEND_FL;
	assert_int_equal(ioctl(fd, FS_IOC_SETFLAGS, &attr), 0);
	close(fd);
	tfs_destroy(&t);
}

/* A block device: whole logical blocks, zero-data only, one method. */
static void block_device(void **state)
{
	static const struct req dev_reqs[] = { { 0, M }, { 4 * K, 8 * M }, { 512, 512 },
					       { 100, 4 * K } };
	struct tfs t = { 0 };
	int fd;

	(void)state;
	if (tfs_loop(&t, 32, false) < 0)
		skip();
	fd = open(t.dev, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); m++)
		for (size_t i = 0; i < sizeof(dev_reqs) / sizeof(dev_reqs[0]); i++) {
			check_fd(fd, "bdev", &dev_reqs[i], PREALLOC_ZERO_DATA, methods[m]);
			check_fd(fd, "bdev", &dev_reqs[i], 0, methods[m]);	/* -EINVAL */
		}
	close(fd);
	tfs_destroy(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ext4),
		cmocka_unit_test(xfs),
		cmocka_unit_test(btrfs),
		cmocka_unit_test(tmpfs),
		cmocka_unit_test(append_only),
		cmocka_unit_test(block_device),
	};

	tfs_enter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
