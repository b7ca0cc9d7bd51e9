/* SPDX-License-Identifier: MIT */
/*
 * The crash test's log replay and its reordering (logwrites.h, reorder.h),
 * on the host: a dm-log-writes log written here in the kernel's format
 * (drivers/md/dm-log-writes.c: super, then per entry a header sector and its
 * data), replayed onto a file standing in for the scratch disk.  Each subset
 * state ro_write() leaves must equal the image computed independently: the
 * bytes before the group, then only the chosen entries in log order.
 */
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "logwrites.h"
#include "reorder.h"

#define SS 512u
#define DEV_SECTORS 64u

struct wentry {
	uint64_t sector, nr, flags;
	uint8_t fill;	/* the data: every byte this value */
	const char *mark;
};

static void put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

/* A log of @n entries in a temporary file; its descriptor. */
static int write_log(const struct wentry *w, int n)
{
	char path[] = "/tmp/test-reorder-log.XXXXXX";
	uint8_t sec[SS];
	uint32_t ss = htole32(SS);
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	memset(sec, 0, SS);
	put64(sec, 0x6a736677736872ULL);
	put64(sec + 8, 1);
	put64(sec + 16, (uint64_t)n);
	memcpy(sec + 24, &ss, sizeof(ss));
	assert_int_equal(write(fd, sec, SS), SS);
	for (int i = 0; i < n; i++) {
		memset(sec, 0, SS);
		put64(sec, w[i].sector);
		put64(sec + 8, w[i].nr);
		put64(sec + 16, w[i].flags);
		if (w[i].mark) {
			put64(sec + 24, strlen(w[i].mark));
			memcpy(sec + 32, w[i].mark, strlen(w[i].mark));
		}
		assert_int_equal(write(fd, sec, SS), SS);
		if (w[i].flags & (LW_MARK | LW_DISCARD))
			continue;
		memset(sec, w[i].fill, SS);
		for (uint64_t s = 0; s < w[i].nr; s++)
			assert_int_equal(write(fd, sec, SS), SS);
	}
	return fd;
}

static int open_dev(void)
{
	char path[] = "/tmp/test-reorder-dev.XXXXXX";
	int fd = mkstemp(path);
	uint8_t img[DEV_SECTORS * SS];

	assert_true(fd >= 0);
	unlink(path);
	for (unsigned int i = 0; i < sizeof(img); i++)
		img[i] = (uint8_t)(i / SS);	/* each sector its own old byte */
	assert_int_equal(write(fd, img, sizeof(img)), sizeof(img));
	return fd;
}

static void read_dev(int fd, uint8_t *img)
{
	assert_int_equal(pread(fd, img, DEV_SECTORS * SS, 0), DEV_SECTORS * SS);
}

/* What @w does to @img (a discard reads zeros). */
static void apply_model(uint8_t *img, const struct wentry *w)
{
	if (w->flags & LW_MARK)
		return;
	memset(img + w->sector * SS, w->flags & LW_DISCARD ? 0 : w->fill, w->nr * SS);
}

/* A FUA write, then a flush's group (overlapping writes and a discard),
 * the flush (device-mapper sends a flush's data as a write after it), a FUA
 * write, a mark, and the end mark. */
static const struct wentry LOG[] = {
	{ 2, 1, LW_FUA, 0xf0, NULL },
	{ 4, 4, 0, 0xa1, NULL },
	{ 6, 4, 0, 0xa2, NULL },
	{ 5, 2, LW_DISCARD, 0, NULL },
	{ 20, 8, LW_METADATA, 0xa3, NULL },
	{ 7, 1, 0, 0xa4, NULL },
	{ 0, 0, LW_FLUSH, 0, NULL },
	{ 30, 1, LW_FUA, 0xc0, NULL },
	{ 0, 0, LW_MARK, 0, "A7" },
	{ 0, 0, LW_MARK, 0, "dm-log-writes-end" },
};
#define NLOG ((int)(sizeof(LOG) / sizeof(LOG[0])))
#define GROUP_FIRST 1
#define GROUP_N 5

static void replay_and_reorder(void **state)
{
	uint8_t before[DEV_SECTORS * SS], want[DEV_SECTORS * SS], got[DEV_SECTORS * SS];
	struct ro_group *g = calloc(1, sizeof(*g));
	uint64_t masks[64], seed = 1;
	struct lw_log log;
	struct lw_entry e;
	int lfd = write_log(LOG, NLOG), dev = open_dev(), copy = open_dev(), n, i = 0;
	char path[32];

	(void)state;
	assert_non_null(g);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", lfd);
	assert_int_equal(lw_open(&log, path), 0);
	assert_int_equal(log.super.nr_entries, NLOG);
	while (!lw_next(&log, &e)) {
		assert_int_equal(e.sector, LOG[i].sector);
		assert_int_equal(e.flags, LOG[i].flags);
		if (LOG[i].mark)
			assert_string_equal(e.mark, LOG[i].mark);
		assert_int_equal(ro_plain(&e), i >= GROUP_FIRST && i < GROUP_FIRST + GROUP_N);
		if (e.flags & LW_FLUSH)
			break;	/* the group is complete: check its subsets */
		if (i == GROUP_FIRST)
			read_dev(dev, before);	/* the state the group started from */
		if (ro_plain(&e))
			assert_int_equal(ro_add(g, &e, SS, dev), 0);
		assert_int_equal(lw_apply(&log, &e, dev), 0);
		i++;
	}
	assert_int_equal(i, GROUP_FIRST + GROUP_N);
	assert_int_equal(g->n, GROUP_N);
	assert_false(g->overflow);

	n = ro_subsets(g->n, masks, 64, &seed);
	assert_int_equal(n, (1 << GROUP_N) - 2);
	for (int k = 0; k < n; k++) {
		read_dev(dev, got);
		assert_int_equal(pwrite(copy, got, sizeof(got), 0), sizeof(got));
		assert_int_equal(ro_write(g, &log, masks[k], copy), 0);
		memcpy(want, before, sizeof(want));
		for (int j = 0; j < GROUP_N; j++)
			if (masks[k] >> j & 1)
				apply_model(want, &LOG[GROUP_FIRST + j]);
		read_dev(copy, got);
		assert_memory_equal(got, want, sizeof(want));
	}
	ro_reset(g);
	assert_int_equal(g->n, 0);
	free(g);
	lw_close(&log);
	close(lfd);
	close(dev);
	close(copy);
}

static void subsets_all_then_sampled(void **state)
{
	uint64_t masks[16], seed = 0x1234;
	int n;

	(void)state;
	assert_int_equal(ro_subsets(1, masks, 16, &seed), 0);
	assert_int_equal(ro_subsets(4, masks, 14, &seed), 14);	/* 2^4 - 2: all */
	for (int i = 0; i < 14; i++)
		assert_int_equal(masks[i], (uint64_t)i + 1);
	for (int b = 0; b < 4; b++) {
		int bits = (int[]){ 5, 10, 63, 64 }[b];

		n = ro_subsets(bits, masks, 16, &seed);
		assert_int_equal(n, 16);
		for (int i = 0; i < n; i++) {
			uint64_t full = bits == 64 ? ~0ull : (1ull << bits) - 1;

			assert_true(masks[i] != 0 && masks[i] != full && !(masks[i] & ~full));
			for (int j = 0; j < i; j++)
				assert_true(masks[i] != masks[j]);
		}
	}
}

static void overflow_keeps_nothing_more(void **state)
{
	struct ro_group *g = calloc(1, sizeof(*g));
	struct lw_entry e = { .sector = 0, .nr_sectors = 1 };
	int dev = open_dev();

	(void)state;
	assert_non_null(g);
	for (int i = 0; i < RO_MAX; i++)
		assert_int_equal(ro_add(g, &e, SS, dev), 0);
	assert_false(g->overflow);
	assert_int_equal(ro_add(g, &e, SS, dev), 0);
	assert_true(g->overflow);
	assert_int_equal(g->n, RO_MAX);
	ro_reset(g);
	assert_false(g->overflow);
	e.nr_sectors = RO_MAX_BYTES / SS + 1;	/* one entry over the byte cap */
	assert_int_equal(ro_add(g, &e, SS, dev), 0);
	assert_true(g->overflow);
	assert_int_equal(g->n, 0);
	ro_reset(g);
	free(g);
	close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(replay_and_reorder),
		cmocka_unit_test(subsets_all_then_sampled),
		cmocka_unit_test(overflow_keeps_nothing_more),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
