/* SPDX-License-Identifier: MIT */
/* Range classification over synthetic extent lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "src/file/extents.h"

#define K 1024ull
#define D PA_REGION_DATA
#define U PA_REGION_UNWRITTEN
#define H PA_REGION_HOLE
#define E PA_REGION_EOF

struct want {
	uint64_t start, len;
	uint8_t state;
	uint64_t blk_start, blk_end;
	uint8_t allocated;
};

static void check(const struct pa_extent *ext, size_t n, uint64_t off, uint64_t end,
		  uint64_t size, const struct want *w, size_t nw)
{
	struct pa_regionlist regions = { 0 };

	assert_int_equal(pa_classify(ext, n, off, end, size, 4 * K, &regions), 0);
	assert_int_equal(regions.n, nw);
	for (size_t i = 0; i < nw; i++) {
		assert_int_equal(regions.v[i].start, w[i].start);
		assert_int_equal(regions.v[i].len, w[i].len);
		assert_int_equal(regions.v[i].state, w[i].state);
		assert_int_equal(regions.v[i].blk_start, w[i].blk_start);
		assert_int_equal(regions.v[i].blk_end, w[i].blk_end);
		assert_int_equal(regions.v[i].allocated, w[i].allocated);
	}
	pa_regionlist_free(&regions);
}

static void empty_file(void **state)
{
	(void)state;
	/* Everything is beyond EOF; unaligned ends keep whole blocks. */
	check(NULL, 0, 100, 10000, 0,
	      (struct want[]){ { 100, 9900, E, 0, 12 * K, 0 } }, 1);
}

static void data_hole_unwritten_eof(void **state)
{
	const struct pa_extent ext[] = {
		{ 0, 8 * K, 0 },
		{ 16 * K, 4 * K, PA_EXT_UNWRITTEN },
		{ 24 * K, 16 * K, PA_EXT_UNWRITTEN },	/* keep-size prealloc past EOF */
	};

	(void)state;
	check(ext, 3, 1000, 48 * K, 30 * K, (struct want[]){
		{ 1000, 8 * K - 1000, D, 0, 8 * K, 0 },
		{ 8 * K, 8 * K, H, 8 * K, 16 * K, 0 },
		{ 16 * K, 4 * K, U, 16 * K, 20 * K, 0 },
		{ 20 * K, 4 * K, H, 20 * K, 24 * K, 0 },
		{ 24 * K, 6 * K, U, 24 * K, 32 * K, 0 },
		{ 30 * K, 10 * K, E, 28 * K, 40 * K, PA_EOF_UNWRITTEN },
		{ 40 * K, 8 * K, E, 40 * K, 48 * K, 0 },
	}, 7);
}

static void written_beyond_eof_is_eof(void **state)
{
	/* Post-EOF blocks never hold file data, whatever their extent says;
	 * a written one is remembered as such (nothing to reserve there). */
	const struct pa_extent ext[] = { { 0, 64 * K, 0 } };

	(void)state;
	check(ext, 1, 0, 64 * K, 10 * K, (struct want[]){
		{ 0, 10 * K, D, 0, 12 * K, 0 },
		{ 10 * K, 54 * K, E, 8 * K, 64 * K, PA_EOF_WRITTEN },
	}, 2);
}

static void extents_outside_range_and_merge(void **state)
{
	/* Extents straddling the range are clipped; adjacent same-state ones merge. */
	const struct pa_extent ext[] = {
		{ 0, 8 * K, 0 },
		{ 8 * K, 8 * K, 0 },
		{ 16 * K, 8 * K, PA_EXT_SHARED },
		{ 100 * K, 4 * K, 0 },
	};
	struct pa_regionlist regions = { 0 };

	(void)state;
	check(ext, 4, 4 * K, 20 * K, 1024 * K, (struct want[]){
		{ 4 * K, 12 * K, D, 4 * K, 16 * K, 0 },
		{ 16 * K, 4 * K, D, 16 * K, 20 * K, 0 },
	}, 2);
	assert_int_equal(pa_classify(ext, 4, 4 * K, 20 * K, 1024 * K, 4 * K, &regions), 0);
	assert_int_equal(regions.v[1].shared, 1);
	pa_regionlist_free(&regions);
}

static void range_inside_one_hole(void **state)
{
	const struct pa_extent ext[] = { { 0, 4 * K, 0 }, { 64 * K, 4 * K, 0 } };

	(void)state;
	/* Unaligned range inside a hole: the whole blocks are the hole's. */
	check(ext, 2, 5000, 9000, 68 * K, (struct want[]){
		{ 5000, 4000, H, 4 * K, 12 * K, 0 },
	}, 1);
}

static void unsorted_overlap_never_zeroes_data(void **state)
{
	/* A data extent reported twice (overlap) must stay data. */
	const struct pa_extent ext[] = { { 0, 8 * K, 0 }, { 4 * K, 8 * K, PA_EXT_UNWRITTEN } };

	(void)state;
	check(ext, 2, 0, 12 * K, 12 * K, (struct want[]){
		{ 0, 8 * K, D, 0, 8 * K, 0 },
		{ 8 * K, 4 * K, U, 8 * K, 12 * K, 0 },
	}, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_file),
		cmocka_unit_test(data_hole_unwritten_eof),
		cmocka_unit_test(written_beyond_eof_is_eof),
		cmocka_unit_test(extents_outside_range_and_merge),
		cmocka_unit_test(range_inside_one_hole),
		cmocka_unit_test(unsorted_overlap_never_zeroes_data),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
