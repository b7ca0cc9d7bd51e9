/* SPDX-License-Identifier: MIT */
/*
 * Randomized layouts (root; skip otherwise).  Each case builds a file from
 * random operations -- unaligned data writes, holes, unwritten extents inside
 * and beyond EOF, zeroed ranges, truncates -- mirrored into a shadow image of
 * the expected contents, then preallocates a random unaligned range with
 * random flags and checks every promise: data kept, zeros elsewhere (nothing
 * stale: the free space was filled with 0xAA first), size semantics, the
 * report, and the written state by FIEMAP on ext4 and xfs.
 *
 *   PREALLOC_RANDOM_SEED=N   base seed (default: random, always printed)
 *   PREALLOC_RANDOM_CASES=N  cases per filesystem (default 300)
 *   PREALLOC_RANDOM_FS=ext4  run one filesystem type only
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tassert.h"
#include "tcheck.h"
#include "tfs.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define DEFAULT_CASES 300
#define PA_MINU(a, b) ((a) < (b) ? (a) : (b))
#define PA_MAXU(a, b) ((a) > (b) ? (a) : (b))

static uint64_t base_seed;
static unsigned int ncases = DEFAULT_CASES;

static bool chance(struct tc_rng *r, unsigned int percent)
{
	return tc_below(r, 100) < percent;
}

/* A random offset or length: unaligned, sector- or block-aligned. */
static uint64_t pick(struct tc_rng *r, uint64_t lo, uint64_t hi)
{
	uint64_t v = lo + tc_below(r, hi - lo + 1);
	unsigned int k = (unsigned int)tc_below(r, 10);

	if (k < 3)
		v = v / 4096 * 4096;
	else if (k < 4)
		v = v / 512 * 512;
	return v < lo ? lo : v;
}

/* One case: its file, the expected image and a log of what was done. */
struct kase {
	struct tc_rng r;
	const struct tfs *fs;
	unsigned int idx;
	int fd;
	uint64_t span;		/* layout ops stay inside [0, span) */
	uint64_t cap;		/* shadow size: every end stays below it */
	uint8_t *shadow;	/* expected contents; zero beyond size */
	uint64_t size;
	char log[2048];
	size_t loglen;
};

static void note(struct kase *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct kase *k, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (k->loglen >= sizeof(k->log) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(k->log + k->loglen, sizeof(k->log) - k->loglen, fmt, ap);
	va_end(ap);
	if (n > 0)
		k->loglen = PA_MINU(k->loglen + (size_t)n, sizeof(k->log) - 1);
}

/* What replays case @k, with the log of what it did. */
static const char *replay(const struct kase *k)
{
	static char msg[sizeof(k->log) + 256];

	snprintf(msg, sizeof(msg),
		 "on %s\n  replay: PREALLOC_RANDOM_SEED=%#" PRIx64 " PREALLOC_RANDOM_FS=%s "
		 "PREALLOC_RANDOM_CASES=%u\n  case %u: %s", k->fs->type, base_seed, k->fs->type,
		 k->idx + 1, k->idx, k->log);
	return msg;
}

static void set_zero(struct kase *k, uint64_t off, uint64_t end)
{
	if (end > off)
		memset(k->shadow + off, 0, end - off);
}

static void op_write(struct kase *k, unsigned int tag)
{
	uint64_t off = pick(&k->r, 0, k->span - 1);
	uint64_t len = pick(&k->r, 1, PA_MINU(k->span - off, k->span / 4 + 1));

	if (!len)
		len = 1;
	note(k, "write(%" PRIu64 ",%" PRIu64 ") ", off, len);
	assert_msg(tc_write_pattern(k->fd, k->shadow, tag, off, len) == 0, "%s", replay(k));
	if (off + len > k->size)
		k->size = off + len;
}

/* fallocate() with @mode: unwritten extents read zero, so the image changes
 * only where the mode zeroes data or the size grows. */
static void op_fallocate(struct kase *k, int mode, const char *name)
{
	uint64_t off = pick(&k->r, 0, k->span - 1);
	uint64_t len = pick(&k->r, 1, k->span - off);
	uint64_t end;

	if (!len)
		len = 1;
	end = off + len;
	note(k, "%s(%" PRIu64 ",%" PRIu64 ") ", name, off, len);
	if (fallocate(k->fd, mode, (off_t)off, (off_t)len) < 0) {
		/* tmpfs has no ZERO_RANGE: nothing happened. */
		assert_msg(errno == EOPNOTSUPP, "%s", replay(k));
		note(k, "=EOPNOTSUPP ");
		return;
	}
	if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
		set_zero(k, off, PA_MINU(end, k->size));
	if (!(mode & FALLOC_FL_KEEP_SIZE) && end > k->size)
		k->size = end;
}

static void op_truncate(struct kase *k)
{
	uint64_t sz = pick(&k->r, 0, k->span);

	note(k, "truncate(%" PRIu64 ") ", sz);
	assert_msg(ftruncate(k->fd, (off_t)sz) == 0, "%s", replay(k));
	if (sz < k->size)
		set_zero(k, sz, k->size);
	k->size = sz;
}

static void build_layout(struct kase *k)
{
	unsigned int nops = (unsigned int)tc_below(&k->r, 7);

	for (unsigned int i = 0; i < nops; i++) {
		switch (tc_below(&k->r, 10)) {
		case 0: case 1: case 2: case 3:
			op_write(k, i + 1);
			break;
		case 4:
			op_fallocate(k, FALLOC_FL_KEEP_SIZE, "falloc_keep");
			break;
		case 5:
			op_fallocate(k, 0, "falloc");
			break;
		case 6:
			op_fallocate(k, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, "punch");
			break;
		case 7:
			op_fallocate(k, FALLOC_FL_ZERO_RANGE |
				     (chance(&k->r, 50) ? FALLOC_FL_KEEP_SIZE : 0), "zero_range");
			break;
		case 8:
			op_truncate(k);
			break;
		default:
			note(k, "fsync ");
			assert_msg(fsync(k->fd) == 0, "%s", replay(k));
			break;
		}
	}
}

static bool is_type(const struct kase *k, const char *type)
{
	return strcmp(k->fs->type, type) == 0;
}

static void random_options(struct kase *k, struct prealloc_options *o)
{
	*o = (struct prealloc_options){ .size = sizeof(*o) };
	if (chance(&k->r, 30))
		o->flags |= PREALLOC_KEEP_SIZE;
	if (chance(&k->r, 25))
		o->flags |= PREALLOC_ZERO_DATA;
	if (chance(&k->r, 15))
		o->flags |= PREALLOC_NO_SYNC;
	if (chance(&k->r, 10))
		o->method = PREALLOC_METHOD_BUFFERED;
	else if (chance(&k->r, 10))
		o->method = PREALLOC_METHOD_URING;
	else if (chance(&k->r, 10))
		o->method = PREALLOC_METHOD_AIO;
	if (chance(&k->r, 30)) {
		o->queue_depth = (uint32_t)(1 + tc_below(&k->r, 8));
		o->request_bytes = pick(&k->r, 4 * KiB, 2 * MiB);
	}
}

/* Written-state checks: FIEMAP where the filesystem can show it. */
static void check_census(struct kase *k, uint64_t off, uint64_t end)
{
	struct prealloc_census cs = { .size = sizeof(cs) };

	if (end <= off || !(is_type(k, "ext4") || is_type(k, "xfs")))
		return;
	assert_msg(prealloc_verify(k->fd, off, end - off, &cs) == 0, "%s", replay(k));
	assert_msg(cs.fiemap == 1, "%s", replay(k));
	assert_msg(cs.written_bytes == end - off, "%s", replay(k));
	assert_msg(cs.unwritten_bytes == 0 && cs.hole_bytes == 0, "%s", replay(k));
}

static void run_case(struct kase *k)
{
	struct prealloc_report rep = { .size = sizeof(rep) };
	struct prealloc_options o;
	uint64_t off, len, end, old_size, new_size;
	bool keep, cow = is_type(k, "btrfs"), want_written;
	struct stat st;
	int ret;

	build_layout(k);
	if (chance(&k->r, 50))
		assert_msg(fsync(k->fd) == 0, "%s", replay(k));
	random_options(k, &o);
	off = pick(&k->r, 0, k->span + k->span / 2);
	len = pick(&k->r, 1, k->span);
	if (!len)
		len = 1;
	end = off + len;
	keep = o.flags & PREALLOC_KEEP_SIZE;
	old_size = k->size;
	note(k, "| prealloc(%" PRIu64 ",%" PRIu64 ", flags=%#x method=%s qd=%u req=%" PRIu64
	     ") size=%" PRIu64, off, len, o.flags, prealloc_method_name(o.method),
	     o.queue_depth, o.request_bytes, old_size);

	assert_msg(fstat(k->fd, &st) == 0 && (uint64_t)st.st_size == old_size, "%s", replay(k));
	ret = prealloc_file_ex(k->fd, off, len, &o, &rep);
	note(k, " -> %d", ret);
	assert_msg(ret == 0, "%s", replay(k));

	if (o.flags & PREALLOC_ZERO_DATA)
		set_zero(k, off, PA_MINU(end, old_size));
	new_size = keep || end <= old_size ? old_size : end;
	assert_msg(fstat(k->fd, &st) == 0, "%s", replay(k));
	assert_msg((uint64_t)st.st_size == new_size, "%s", replay(k));
	assert_msg(tc_compare(k->fd, k->shadow, new_size) < 0, "%s", replay(k));

	want_written = !cow && !(keep && end > old_size);
	assert_msg(rep.size == sizeof(rep), "%s", replay(k));
	/* Keep-size ending inside the old last block: written if that block
	 * is (FIEMAP decides; the report must agree with it). */
	if (keep && end > old_size && end <= (old_size | 65535) + 1 && !cow) {
		struct prealloc_census c = { .size = sizeof(c) };

		assert_msg(prealloc_verify(k->fd, off, len, &c) == 0, "%s", replay(k));
		want_written = c.written_bytes == len;
	}
	assert_msg(rep.written == want_written, "%s", replay(k));
	assert_msg(rep.cow == cow, "%s", replay(k));
	if (o.flags & PREALLOC_ZERO_DATA)
		assert_msg(rep.bytes_kept == 0, "%s", replay(k));
	assert_msg(rep.bytes_kept <= len && rep.bytes_zeroed <= len, "%s", replay(k));
	if (want_written)
		check_census(k, off, end);
	else if (!cow)
		check_census(k, off, PA_MINU(end, old_size));
	k->size = new_size;
}

static void run_fs(const char *type)
{
	const char *only = getenv("PREALLOC_RANDOM_FS");
	struct tfs t;
	uint64_t span_max = 0;

	if (only && strcmp(only, type) != 0)
		skip();
	if (!tfs_supported(type)) {
		print_message("skip: %s not supported here\n", type);
		skip();
	}
	assert_int_equal(tfs_create(&t, type, 320, NULL), 0);
	assert_int_equal(tc_fill_stale(t.dir, 128 * MiB), 0);

	for (unsigned int i = 0; i < ncases; i++) {
		struct kase k = { .fs = &t, .idx = i };
		char path[128];

		k.r.s = tc_mix(base_seed + i);
		switch (tc_below(&k.r, 10)) {
		case 0: case 1: case 2: case 3: k.span = 64 * KiB; break;
		case 4: case 5: case 6: case 7: k.span = 1 * MiB; break;
		default: k.span = 6 * MiB; break;
		}
		span_max = PA_MAXU(span_max, k.span);
		k.cap = 3 * k.span;
		k.shadow = calloc(1, k.cap);
		assert_non_null(k.shadow);
		snprintf(path, sizeof(path), "%s/case-%u", t.dir, i);
		k.fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		assert_true(k.fd >= 0);
		run_case(&k);
		close(k.fd);
		unlink(path);
		free(k.shadow);
	}
	print_message("%s: %u cases, spans up to %" PRIu64 " KiB\n", type, ncases,
		      (uint64_t)(span_max / KiB));
	tfs_destroy(&t);
}

static void test_random_ext4(void **state) { (void)state; run_fs("ext4"); }
static void test_random_xfs(void **state) { (void)state; run_fs("xfs"); }
static void test_random_btrfs(void **state) { (void)state; run_fs("btrfs"); }
static void test_random_tmpfs(void **state) { (void)state; run_fs("tmpfs"); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_ext4),
		cmocka_unit_test(test_random_xfs),
		cmocka_unit_test(test_random_btrfs),
		cmocka_unit_test(test_random_tmpfs),
	};
	const char *s;

	tfs_enter();
	s = getenv("PREALLOC_RANDOM_SEED");
	if (s && *s)
		base_seed = strtoull(s, NULL, 0);
	else if (getrandom(&base_seed, sizeof(base_seed), 0) != sizeof(base_seed))
		base_seed = (uint64_t)getpid();
	s = getenv("PREALLOC_RANDOM_CASES");
	if (s && *s)
		ncases = (unsigned int)strtoul(s, NULL, 0);
	printf("test-random: PREALLOC_RANDOM_SEED=%#" PRIx64 " PREALLOC_RANDOM_CASES=%u\n",
	       base_seed, ncases);
	fflush(stdout);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
