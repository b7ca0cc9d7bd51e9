/* SPDX-License-Identifier: MIT */
/* The report's verdict as a table: classified range + what ran -> report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "src/exec/report.h"

#define K 1024ull
#define FILE .target = PA_TARGET_FILE

struct row {
	const char *name;
	struct pa_plan_input in;
	struct pa_extent ext[2];	/* len 0 ends the list */
	uint64_t size, off, end;
	bool fiemap, reserved;
	uint64_t zeroed, reserved_bytes;	/* as the methods counted them */
	/* expected */
	uint64_t want_zeroed, want_reserved, kept, unknown;
	bool written, cow;
};

static const struct row rows[] = {
	{ "data kept, holes zeroed", { FILE }, { { 4 * K, 4 * K, 0 } }, 64 * K, 0, 12 * K,
	  true, true, 8 * K, 0, 8 * K, 0, 4 * K, 0, true, false },
	{ "zero-data: nothing kept", { FILE, .flags = PREALLOC_ZERO_DATA }, { { 4 * K, 4 * K, 0 } },
	  64 * K, 0, 12 * K, true, true, 12 * K, 0, 12 * K, 0, 0, 0, true, false },
	{ "SEEK_DATA only: kept data may be unwritten", { FILE }, { { 4 * K, 4 * K, 0 } },
	  64 * K, 0, 12 * K, false, true, 8 * K, 0, 8 * K, 0, 4 * K, 4 * K, false, false },
	{ "tmpfs has no FIEMAP but its data is written", { FILE, .mem_backed = true },
	  { { 4 * K, 4 * K, 0 } }, 64 * K, 0, 12 * K, false, true, 8 * K, 0, 8 * K, 0, 4 * K, 0,
	  true, false },
	{ "shared data kept: copy-on-write", { FILE }, { { 4 * K, 4 * K, PA_EXT_SHARED } },
	  64 * K, 0, 12 * K, true, true, 8 * K, 0, 8 * K, 0, 4 * K, 0, false, true },
	{ "shared data rewritten: unshared", { FILE, .flags = PREALLOC_ZERO_DATA },
	  { { 4 * K, 4 * K, PA_EXT_SHARED } }, 64 * K, 0, 12 * K, true, true, 12 * K, 0,
	  12 * K, 0, 0, 0, true, false },
	{ "keep-size beyond EOF: reserved, not written", { FILE, .flags = PREALLOC_KEEP_SIZE },
	  { { 0 } }, 4 * K, 0, 16 * K, true, true, 4 * K, 0, 4 * K, 12 * K, 0, 0, false, false },
	{ "keep-size beyond EOF, no fallocate (ext2): not even reserved",
	  { FILE, .flags = PREALLOC_KEEP_SIZE }, { { 0 } }, 4 * K, 0, 16 * K, true, false,
	  4 * K, 0, 4 * K, 0, 0, 0, false, false },
	{ "keep-size: the written last block's tail counts as zeroed",
	  { FILE, .flags = PREALLOC_KEEP_SIZE }, { { 0, 4 * K, 0 } }, 1000, 0, 16 * K, true, true,
	  0, 0, 3096, 12 * K, 1000, 0, false, false },
	{ "keep-size: written blocks past the last block (xfs's own) are only reserved",
	  { FILE, .flags = PREALLOC_KEEP_SIZE }, { { 0, 16 * K, 0 } }, 1000, 0, 16 * K, true, true,
	  0, 0, 3096, 12 * K, 1000, 0, false, false },
	{ "keep-size past the last block over written blocks: only reserved",
	  { FILE, .flags = PREALLOC_KEEP_SIZE }, { { 0, 16 * K, 0 } }, 1000, 8 * K, 16 * K, true,
	  true, 0, 0, 0, 8 * K, 0, 0, false, false },
	{ "keep-size: this call wrote the old last block, so its tail too",
	  { FILE, .flags = PREALLOC_KEEP_SIZE }, { { 0 } }, 1000, 0, 4 * K, true, true,
	  1000, 0, 4 * K, 0, 0, 0, true, false },
	{ "hugetlbfs: allocated pages are zeroed", { FILE, .mem_backed = true, .no_write = true },
	  { { 0 } }, 0, 0, 8 * K, false, true, 0, 8 * K, 8 * K, 0, 0, 0, true, false },
	{ "copy-on-write file", { FILE, .cow = true }, { { 0 } }, 0, 0, 8 * K, true, true,
	  0, 8 * K, 0, 8 * K, 0, 0, false, true },
	{ "overlay over an upper layer nobody can judge", { FILE, .cow_unknown = true },
	  { { 0 } }, 0, 0, 8 * K, true, true, 8 * K, 0, 8 * K, 0, 0, 8 * K, false, false },
};

static void table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *t = &rows[i];
		struct prealloc_report r = { .bytes_zeroed = t->zeroed,
					     .bytes_reserved = t->reserved_bytes };
		struct pa_regionlist regions = { 0 };
		struct pa_work w = { .in = &t->in, .off = t->off, .end = t->end,
				     .old_size = t->size, .bs = 4 * K, .regions = &regions };
		size_t n = 0;

		print_message("%s\n", t->name);
		while (n < 2 && t->ext[n].len)
			n++;
		assert_int_equal(pa_classify(t->ext, n, t->off, t->end, t->size, 4 * K, &regions), 0);
		pa_report_fill(&r, &w, t->fiemap, t->reserved);
		assert_int_equal(r.bytes_zeroed, t->want_zeroed);
		assert_int_equal(r.bytes_reserved, t->want_reserved);
		assert_int_equal(r.bytes_kept, t->kept);
		assert_int_equal(r.bytes_unknown, t->unknown);
		assert_int_equal(r.written, t->written);
		assert_int_equal(r.cow, t->cow);
		pa_regionlist_free(&regions);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
