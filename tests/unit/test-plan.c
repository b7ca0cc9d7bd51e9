/* SPDX-License-Identifier: MIT */
/*
 * The planner as tables: capabilities + request -> methods, and facts +
 * classified range -> the steps of a method, and what a refused method
 * leaves to the next.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "probes/caps.h"
#include "src/plan/plan.h"
#include "src/plan/steps.h"

#define WZ PREALLOC_METHOD_WRITE_ZEROES
#define ZO PREALLOC_METHOD_ZEROOUT
#define UR PREALLOC_METHOD_URING
#define AI PREALLOC_METHOD_AIO
#define BU PREALLOC_METHOD_BUFFERED
#define AL PREALLOC_METHOD_ALLOCATE
#define CW PREALLOC_CONCURRENT_WRITES
/* A file over a block device with sysfs facts, whatever its filesystem:
 * which one takes FALLOC_FL_WRITE_ZEROES is the kernel's to say. */
#define FILE_DEV .target = PA_TARGET_FILE, .device_facts = true
#define UNMAP .kernel_write_zeroes = true, .write_zeroes_unmap = PREALLOC_YES

struct row {
	const char *name;
	struct pa_plan_input in;
	int ret;
	uint8_t methods[PA_PLAN_MAX];
};

static const struct row rows[] = {
	{ "file over an unmap-zeroing device, not asked yet: try", { FILE_DEV, UNMAP,
	  .range_in_eof = false }, 0, { WZ, UR, AI, BU } },
	{ "the filesystem took the flag before", { FILE_DEV, UNMAP,
	  .write_zeroes_works = true }, 0, { WZ, UR, AI, BU } },
	{ "device cannot unmap-zero", { FILE_DEV, .kernel_write_zeroes = true,
	  .write_zeroes_unmap = PREALLOC_NO }, 0, { UR, AI, BU } },
	{ "old kernel", { FILE_DEV, .write_zeroes_unmap = PREALLOC_UNKNOWN }, 0, { UR, AI, BU } },
	{ "verdict unknown on a new kernel: try it", { FILE_DEV, .kernel_write_zeroes = true,
	  .write_zeroes_unmap = PREALLOC_UNKNOWN }, 0, { WZ, UR, AI, BU } },
	{ "the filesystem refused before", { FILE_DEV, UNMAP, .write_zeroes_refused = true },
	  0, { UR, AI, BU } },
	{ "keep-size past EOF", { FILE_DEV, UNMAP, .flags = PREALLOC_KEEP_SIZE },
	  0, { UR, AI, BU } },
	{ "keep-size inside EOF", { FILE_DEV, UNMAP, .flags = PREALLOC_KEEP_SIZE,
	  .range_in_eof = true }, 0, { WZ, UR, AI, BU } },
	{ "no block device under the file (NFS, FUSE)", { .target = PA_TARGET_FILE,
	  .kernel_write_zeroes = true, .write_zeroes_unmap = PREALLOC_UNKNOWN }, 0, { UR, AI, BU } },
	{ "btrfs copy-on-write", { .target = PA_TARGET_FILE, .cow = true, UNMAP }, 0, { AL } },
	{ "tmpfs, ramfs", { .target = PA_TARGET_FILE, .mem_backed = true }, 0, { BU } },
	{ "ext4 inline data", { FILE_DEV, UNMAP, .inline_data = true }, 0, { BU } },
	{ "forced uring on ext4 inline data", { FILE_DEV, .inline_data = true, .forced = UR },
	  -EOPNOTSUPP, { 0 } },
	{ "forced buffered on ext4 inline data", { FILE_DEV, .inline_data = true, .forced = BU },
	  0, { BU } },
	{ "hugetlbfs", { .target = PA_TARGET_FILE, .mem_backed = true, .no_write = true }, 0,
	  { AL } },
	{ "bdev, unmap-zeroing", { .target = PA_TARGET_BLOCKDEV, .device_facts = true, UNMAP,
	  .zeroout = true }, 0, { WZ, ZO, UR, AI } },
	{ "bdev, no unmap-zeroing", { .target = PA_TARGET_BLOCKDEV, .device_facts = true,
	  .kernel_write_zeroes = true, .write_zeroes_unmap = PREALLOC_NO, .zeroout = true }, 0,
	  { ZO, UR, AI } },
	{ "bdev, refused before", { .target = PA_TARGET_BLOCKDEV, .device_facts = true, UNMAP,
	  .zeroout = true, .write_zeroes_refused = true }, 0, { ZO, UR, AI } },
	{ "forced uring on ext4", { FILE_DEV, UNMAP, .forced = UR }, 0, { UR } },
	{ "forced aio on ext4", { FILE_DEV, UNMAP, .forced = AI }, 0, { AI } },
	{ "forced aio on ext4 inline data", { FILE_DEV, .inline_data = true, .forced = AI },
	  -EOPNOTSUPP, { 0 } },
	{ "io_uring refused to this process", { FILE_DEV, .unusable = 1u << UR }, 0, { AI, BU } },
	{ "io_uring and aio refused", { .target = PA_TARGET_FILE, .unusable = 1u << UR | 1u << AI },
	  0, { BU } },
	{ "bdev, io_uring refused", { .target = PA_TARGET_BLOCKDEV, .device_facts = true,
	  .zeroout = true, .unusable = 1u << UR }, 0, { ZO, AI } },
	{ "forced uring where refused: the executor refuses it",
	  { FILE_DEV, .forced = UR, .unusable = 1u << UR }, 0, { UR } },
	{ "forced write-zeroes on xfs (kernel decides)", { .target = PA_TARGET_FILE, .forced = WZ },
	  0, { WZ } },
	{ "forced allocate on btrfs", { .target = PA_TARGET_FILE, .cow = true, .forced = AL },
	  0, { AL } },
	{ "forced zeroout on a file", { FILE_DEV, .forced = ZO }, -EOPNOTSUPP, { 0 } },
	{ "forced allocate on a bdev", { .target = PA_TARGET_BLOCKDEV, .forced = AL },
	  -EOPNOTSUPP, { 0 } },
	/* Concurrent writes: zeros only by a conditional exchange. */
	{ "concurrent, xfs with exchange-range", { FILE_DEV, .commit_range = true,
	  .flags = CW }, 0, { UR, AI, BU } },
	{ "concurrent, no exchange (ext4)", { FILE_DEV, UNMAP, .flags = CW }, -EOPNOTSUPP, { 0 } },
	{ "concurrent, btrfs copy-on-write: reserved", { .target = PA_TARGET_FILE, .cow = true,
	  .flags = CW }, 0, { AL } },
	{ "concurrent, tmpfs: reserved", { .target = PA_TARGET_FILE, .mem_backed = true,
	  .flags = CW }, 0, { AL } },
	{ "concurrent, forced allocate on ext4", { FILE_DEV, .forced = AL, .flags = CW }, 0, { AL } },
	{ "concurrent, forced buffered on tmpfs", { .target = PA_TARGET_FILE, .mem_backed = true,
	  .forced = BU, .flags = CW }, -EOPNOTSUPP, { 0 } },
	{ "concurrent, keep-size past EOF on xfs", { FILE_DEV, .commit_range = true,
	  .flags = CW | PREALLOC_KEEP_SIZE }, -EOPNOTSUPP, { 0 } },
	{ "concurrent, keep-size inside EOF on xfs", { FILE_DEV, .commit_range = true,
	  .range_in_eof = true, .flags = CW | PREALLOC_KEEP_SIZE }, 0, { UR, AI, BU } },
};

static void table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct pa_plan p;
		size_t n = 0;

		while (n < PA_PLAN_MAX && r->methods[n])
			n++;
		print_message("%s\n", r->name);
		assert_int_equal(pa_plan(&r->in, &p), r->ret);
		if (r->ret)
			continue;
		assert_int_equal(p.n, n);
		assert_memory_equal(p.methods, r->methods, n);
		assert_non_null(p.reason);
		/* Zeros reach the file only by exchange under concurrent writes. */
		assert_int_equal(p.exchange, (r->in.flags & CW) && r->methods[0] != AL);
		if (r->in.forced == PREALLOC_METHOD_AUTO)
			assert_int_equal(r->methods[0] == WZ, pa_wz_tried(p.write_zeroes));
	}
}

/* Each verdict on FALLOC_FL_WRITE_ZEROES apart, and the plan's reason is
 * its sentence: the kernel, the device, the kernel's answer (for the
 * filesystem, the device, either), this inode, keep-size. */
static const struct {
	struct pa_plan_input in;
	unsigned int wz;		/* enum prealloc_write_zeroes */
	const char *says;		/* in the plan's reason */
} verdicts[] = {
	{ { FILE_DEV, UNMAP }, PREALLOC_WZ_WOULD_TRY, "every device under the file" },
	{ { FILE_DEV, UNMAP, .write_zeroes_works = true }, PREALLOC_WZ_USED,
	  "every device under the file" },
	{ { .target = PA_TARGET_FILE, UNMAP }, PREALLOC_WZ_NO_DEVICE_FACTS,
	  "no block device facts" },
	{ { FILE_DEV, .write_zeroes_unmap = PREALLOC_YES }, PREALLOC_WZ_NO_KERNEL,
	  "this kernel has no FALLOC_FL_WRITE_ZEROES (6.17" },
	{ { FILE_DEV, UNMAP, .write_zeroes_refused = true }, PREALLOC_WZ_FS_REFUSED,
	  "asked the kernel: refused: this filesystem" },
	{ { FILE_DEV, .kernel_write_zeroes = true, .write_zeroes_unmap = PREALLOC_NO },
	  PREALLOC_WZ_DEVICE_CANNOT, "cannot zero by unmapping" },
	{ { .target = PA_TARGET_BLOCKDEV, .device_facts = true, UNMAP,
	    .write_zeroes_refused = true }, PREALLOC_WZ_DEVICE_CANNOT, "no BLKZEROOUT" },
	{ { .target = PA_TARGET_BLOCKDEV, .device_facts = true, UNMAP, .zeroout = true,
	    .write_zeroes_refused = true }, PREALLOC_WZ_DEVICE_CANNOT,
	  "asked the kernel: refused on this device" },
	{ { .target = PA_TARGET_BLOCKDEV, .device_facts = true, .kernel_write_zeroes = true,
	    .write_zeroes_unmap = PREALLOC_NO, .zeroout = true }, PREALLOC_WZ_DEVICE_CANNOT,
	  "cannot zero by unmapping" },
	{ { FILE_DEV, .kernel_write_zeroes = true, .write_zeroes_unmap = PREALLOC_UNKNOWN,
	    .write_zeroes_refused = true }, PREALLOC_WZ_FS_OR_DEVICE,
	  "the filesystem or the device" },
	{ { FILE_DEV, UNMAP, .inline_data = true }, PREALLOC_WZ_INODE, "inline data" },
	{ { FILE_DEV, UNMAP, .flags = PREALLOC_KEEP_SIZE }, PREALLOC_WZ_KEEP_SIZE, "keep-size" },
	{ { FILE_DEV, UNMAP, .flags = PREALLOC_KEEP_SIZE, .range_in_eof = true },
	  PREALLOC_WZ_WOULD_TRY, "every device under the file" },
	{ { FILE_DEV, UNMAP, .forced = UR }, PREALLOC_WZ_NOT_WEIGHED, "forced" },
	/* A forced flag is weighed all the same: its report says why. */
	{ { FILE_DEV, UNMAP, .forced = WZ }, PREALLOC_WZ_WOULD_TRY,
	  "forced" },
	{ { FILE_DEV, .kernel_write_zeroes = true, .write_zeroes_unmap = PREALLOC_NO,
	    .forced = WZ }, PREALLOC_WZ_DEVICE_CANNOT, "forced" },
	{ { .target = PA_TARGET_FILE, .cow = true, UNMAP }, PREALLOC_WZ_NOT_WEIGHED,
	  "copy-on-write" },
	{ { .target = PA_TARGET_FILE, .mem_backed = true }, PREALLOC_WZ_NOT_WEIGHED,
	  "memory-backed" },
};

static void verdict_names_the_cause(void **state)
{
	uint32_t seen = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(verdicts) / sizeof(verdicts[0]); i++) {
		const char *name = prealloc_write_zeroes_name(verdicts[i].wz);
		struct pa_plan p;

		print_message("%s: %s\n", name, verdicts[i].says);
		assert_int_equal(pa_plan(&verdicts[i].in, &p), 0);
		assert_int_equal(p.write_zeroes, verdicts[i].wz);
		assert_int_equal(pa_plan_write_zeroes(&verdicts[i].in) == verdicts[i].wz ||
				 verdicts[i].wz == PREALLOC_WZ_NOT_WEIGHED ||
				 verdicts[i].wz == PREALLOC_WZ_INODE, true);
		assert_non_null(strstr(p.reason, verdicts[i].says));
		/* A file's reason is the verdict's sentence when it is not tried. */
		if (verdicts[i].in.target == PA_TARGET_FILE && p.write_zeroes > PREALLOC_WZ_WOULD_TRY &&
		    p.write_zeroes != PREALLOC_WZ_INODE && !verdicts[i].in.forced)
			assert_string_equal(p.reason, pa_wz_verdict(p.write_zeroes)->sentence);
		seen |= 1u << verdicts[i].wz;
	}
	/* Every verdict has a row, a name and a sentence. */
	for (unsigned int v = 0; pa_wz_verdict(v); v++) {
		assert_true(seen & (1u << v));
		assert_string_equal(prealloc_write_zeroes_name(v), pa_wz_verdict(v)->name);
		assert_non_null(pa_wz_verdict(v)->sentence);
	}
	assert_null(prealloc_write_zeroes_name(PREALLOC_WZ_KEEP_SIZE + 1));
}

/* ---- steps ---- */

#define K 1024ull
#define RS PREALLOC_ACTION_RESERVE
#define ZE PREALLOC_ACTION_ZERO
#define ED PREALLOC_ACTION_WRITE_EDGES
#define SY PREALLOC_ACTION_SYNC
#define STEPS_MAX 8

struct step_row {
	const char *name;
	struct pa_plan_input in;
	struct pa_extent ext[2];	/* data extents; len 0 ends the list */
	uint64_t size, off, end;
	bool piecewise;
	unsigned int method;
	struct pa_step want[STEPS_MAX];	/* action 0 ends the list */
};

#define STEP(a, m, s, l) { .start = (s), .len = (l), .action = (a), .method = (m) }
#define XFS .target = PA_TARGET_FILE
#define NOSYNC PREALLOC_NO_SYNC

static const struct step_row step_rows[] = {
	{ "auto uring: a middle under 256 KiB is written buffered whole", { XFS, .flags = NOSYNC },
	  { { 0 } }, 1024 * K, 4 * K, 132 * K, false, UR,
	  { STEP(RS, UR, 4 * K, 128 * K), STEP(ED, BU, 4 * K, 128 * K) } },
	{ "forced uring: every aligned middle direct, the edges buffered",
	  { XFS, .forced = UR }, { { 0 } }, 0, 100, 10100, false, UR,
	  { STEP(RS, UR, 100, 10000), STEP(ZE, UR, 4 * K, 4 * K), STEP(ED, BU, 100, 3996),
	    STEP(ED, BU, 8 * K, 1908), STEP(SY, 0, 100, 10000) } },
	{ "auto aio: shaped as uring, a large middle direct", { XFS, .flags = NOSYNC },
	  { { 0 } }, 1024 * K, 4 * K + 1, 516 * K, false, AI,
	  { STEP(RS, AI, 4 * K + 1, 512 * K - 1), STEP(ZE, AI, 8 * K, 508 * K),
	    STEP(ED, BU, 4 * K + 1, 4 * K - 1) } },
	{ "forced aio: every aligned middle direct, the edges buffered",
	  { XFS, .forced = AI }, { { 0 } }, 0, 100, 10100, false, AI,
	  { STEP(RS, AI, 100, 10000), STEP(ZE, AI, 4 * K, 4 * K), STEP(ED, BU, 100, 3996),
	    STEP(ED, BU, 8 * K, 1908), STEP(SY, 0, 100, 10000) } },
	{ "write-zeroes: holes only, data kept, nothing reserved", { FILE_DEV, .flags = NOSYNC },
	  { { 8 * K, 8 * K, 0 } }, 1024 * K, 0, 32 * K, false, WZ,
	  { STEP(ZE, WZ, 0, 8 * K), STEP(ZE, WZ, 16 * K, 16 * K) } },
	{ "zero-data: write-zeroes over the data too", { FILE_DEV, .flags = NOSYNC |
	  PREALLOC_ZERO_DATA }, { { 8 * K, 8 * K, 0 } }, 1024 * K, 0, 32 * K, false, WZ,
	  { STEP(ZE, WZ, 0, 8 * K), STEP(ZE, WZ, 8 * K, 8 * K), STEP(ZE, WZ, 16 * K, 16 * K) } },
	{ "keep-size beyond EOF: reserved, only the part inside EOF zeroed",
	  { FILE_DEV, .flags = NOSYNC | PREALLOC_KEEP_SIZE, .forced = WZ }, { { 0 } },
	  4 * K, 0, 16 * K, false, WZ, { STEP(RS, WZ, 0, 16 * K), STEP(ZE, WZ, 0, 4 * K) } },
	{ "piecewise: only the holes reserved, then the size",
	  { XFS, .flags = NOSYNC }, { { 8 * K, 8 * K, 0 } }, 16 * K, 0, 32 * K, true, BU,
	  { STEP(RS, BU, 0, 8 * K), STEP(RS, BU, 16 * K, 16 * K), STEP(RS, BU, 32 * K - 1, 1),
	    STEP(ZE, BU, 0, 8 * K), STEP(ZE, BU, 16 * K, 16 * K) } },
	{ "inline data: buffered, never fallocate()", { FILE_DEV, .inline_data = true,
	  .flags = NOSYNC }, { { 0, 60, 0 } }, 60, 0, 100, false, BU,
	  { STEP(ZE, BU, 60, 40) } },
	{ "allocate with zero-data: holes by fallocate(), data written",
	  { XFS, .cow = true, .flags = NOSYNC | PREALLOC_ZERO_DATA }, { { 4 * K, 4 * K, 0 } },
	  1024 * K, 0, 12 * K, false, AL,
	  { STEP(RS, AL, 0, 12 * K), STEP(ZE, AL, 0, 4 * K), STEP(ZE, BU, 4 * K, 4 * K),
	    STEP(ZE, AL, 8 * K, 4 * K) } },
	{ "xfs not marked preallocated: the writes allocate, nothing reserved",
	  { XFS, .reserve_marks = true, .flags = NOSYNC }, { { 0 } }, 0, 0, 512 * K, false, UR,
	  { STEP(ZE, UR, 0, 512 * K) } },
	{ "xfs not marked: keep-size beyond EOF is still reserved",
	  { XFS, .reserve_marks = true, .flags = NOSYNC | PREALLOC_KEEP_SIZE }, { { 0 } },
	  4 * K, 0, 16 * K, false, BU, { STEP(RS, BU, 0, 16 * K), STEP(ZE, BU, 0, 4 * K) } },
	{ "xfs not marked: allocate reserves, as it must",
	  { XFS, .reserve_marks = true, .cow = true, .flags = NOSYNC }, { { 0 } },
	  0, 0, 12 * K, false, AL, { STEP(RS, AL, 0, 12 * K), STEP(ZE, AL, 0, 12 * K) } },
	{ "block device: the whole range, one method", { .target = PA_TARGET_BLOCKDEV,
	  .flags = PREALLOC_ZERO_DATA }, { { 0 } }, 0, 512, 8 * K, false, ZO,
	  { STEP(ZE, ZO, 512, 7680), STEP(SY, 0, 512, 7680) } },
};

/* @r's range classified, and the facts of its steps. */
static void work_of(const struct step_row *r, struct pa_regionlist *regions, struct pa_work *w)
{
	size_t n = 0;

	while (n < 2 && r->ext[n].len)
		n++;
	*w = (struct pa_work){ .in = &r->in, .off = r->off, .end = r->end, .old_size = r->size,
			       .bs = r->in.target == PA_TARGET_FILE ? 4 * K : 512,
			       .direct_align = 4 * K, .piecewise = r->piecewise };
	if (r->in.target == PA_TARGET_FILE) {
		assert_int_equal(pa_classify(r->ext, n, r->off, r->end, r->size, w->bs, regions), 0);
		w->regions = regions;
	}
}

static void steps_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(step_rows) / sizeof(step_rows[0]); i++) {
		const struct step_row *r = &step_rows[i];
		struct pa_regionlist regions = { 0 };
		struct pa_steps s = { 0 };
		struct pa_todo *todo;
		struct pa_work w;
		size_t n = 0, nt;

		print_message("%s\n", r->name);
		work_of(r, &regions, &w);
		assert_int_equal(pa_todo_init(&w, &todo, &nt), 0);
		assert_int_equal(pa_steps_build(&w, r->method, todo, nt, &s), 0);
		while (n < STEPS_MAX && r->want[n].action)
			n++;
		assert_int_equal(s.n, n);
		for (size_t k = 0; k < n; k++) {
			assert_int_equal(s.v[k].action, r->want[k].action);
			assert_int_equal(s.v[k].method, r->want[k].method);
			assert_int_equal(s.v[k].start, r->want[k].start);
			assert_int_equal(s.v[k].len, r->want[k].len);
		}
		pa_steps_free(&s);
		free(todo);
		pa_regionlist_free(&regions);
	}
}

/* A method refused part way hands the rest of its pieces, edges included,
 * to the next; a reservation made is not made again. */
static void refused_leaves_the_rest(void **state)
{
	struct pa_plan_input in = { FILE_DEV, .forced = UR };
	struct pa_work w = { .in = &in, .off = 100, .end = 300 * K, .old_size = 1024 * K,
			     .bs = 4 * K, .direct_align = 4 * K };
	struct pa_todo *todo = calloc(2, sizeof(*todo));
	struct pa_steps s = { 0 };
	size_t n = 2;

	(void)state;
	assert_non_null(todo);
	todo[0] = (struct pa_todo){ 100, 100 * K, false };
	todo[1] = (struct pa_todo){ 200 * K, 100 * K, false };
	/* zero [4K, 100K), zero [200K, 300K), edges [100, 4K), [100K, 100K + 100) */
	assert_int_equal(pa_steps_build(&w, WZ, todo, n, &s), 0);
	assert_int_equal(s.n, 5);
	assert_true(s.v[0].action == ZE && s.v[0].start == 4 * K);
	/* Refused 8 KiB into the first middle. */
	assert_int_equal(pa_todo_remaining(&s, 0, 8 * K, &todo, &n), 0);
	assert_int_equal(n, 3);
	assert_true(todo[0].start == 100 && todo[0].len == 4 * K - 100);
	assert_true(todo[1].start == 12 * K && todo[1].len == 100 * K + 100 - 12 * K);
	assert_true(todo[2].start == 200 * K && todo[2].len == 100 * K);
	w.reserved = true;
	assert_int_equal(pa_steps_build(&w, UR, todo, n, &s), 0);
	assert_int_equal(s.v[0].action, ZE);
	assert_true(s.v[0].start == 12 * K && s.v[0].len == 88 * K);
	pa_steps_free(&s);
	free(todo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table),
		cmocka_unit_test(verdict_names_the_cause),
		cmocka_unit_test(steps_table),
		cmocka_unit_test(refused_leaves_the_rest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
