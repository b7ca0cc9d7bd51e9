/* SPDX-License-Identifier: MIT */
/* The planner as a table: capabilities + request -> methods. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "caps.h"
#include "plan.h"

#define WZ PREALLOC_METHOD_WRITE_ZEROES
#define ZO PREALLOC_METHOD_ZEROOUT
#define UR PREALLOC_METHOD_URING
#define BU PREALLOC_METHOD_BUFFERED
#define AL PREALLOC_METHOD_ALLOCATE
#define FILE_EXT4 .target = PA_TARGET_FILE, .fs_write_zeroes = true
#define UNMAP .kernel_write_zeroes = true, .write_zeroes_unmap = PA_YES

struct row {
	const char *name;
	struct pa_plan_input in;
	int ret;
	uint8_t methods[PA_PLAN_MAX];
	bool reserve;
};

static const struct row rows[] = {
	{ "ext4 over unmap-zeroing device", { FILE_EXT4, UNMAP, .range_in_eof = false },
	  0, { WZ, UR, BU }, false },
	{ "ext4, device cannot unmap-zero", { FILE_EXT4, .kernel_write_zeroes = true,
	  .write_zeroes_unmap = PA_NO }, 0, { UR, BU }, true },
	{ "ext4, old kernel", { FILE_EXT4, .write_zeroes_unmap = PA_UNKNOWN }, 0, { UR, BU }, true },
	{ "ext4, verdict unknown on a new kernel: try it", { FILE_EXT4, .kernel_write_zeroes = true,
	  .write_zeroes_unmap = PA_UNKNOWN }, 0, { WZ, UR, BU }, false },
	{ "ext4, refused before", { FILE_EXT4, UNMAP, .write_zeroes_refused = true },
	  0, { UR, BU }, true },
	{ "ext4, keep-size past EOF", { FILE_EXT4, UNMAP, .flags = PREALLOC_KEEP_SIZE },
	  0, { UR, BU }, true },
	{ "ext4, keep-size inside EOF", { FILE_EXT4, UNMAP, .flags = PREALLOC_KEEP_SIZE,
	  .range_in_eof = true }, 0, { WZ, UR, BU }, false },
	{ "xfs over unmap-zeroing device", { .target = PA_TARGET_FILE, UNMAP }, 0, { UR, BU }, true },
	{ "btrfs copy-on-write", { .target = PA_TARGET_FILE, .cow = true, UNMAP }, 0, { AL }, false },
	{ "tmpfs, ramfs", { .target = PA_TARGET_FILE, .mem_backed = true }, 0, { BU }, true },
	{ "ext4 inline data", { FILE_EXT4, UNMAP, .inline_data = true }, 0, { BU }, false },
	{ "forced uring on ext4 inline data", { FILE_EXT4, .inline_data = true, .forced = UR },
	  -EOPNOTSUPP, { 0 }, false },
	{ "forced buffered on ext4 inline data", { FILE_EXT4, .inline_data = true, .forced = BU },
	  0, { BU }, false },
	{ "hugetlbfs", { .target = PA_TARGET_FILE, .mem_backed = true, .no_write = true }, 0,
	  { AL }, false },
	{ "bdev, unmap-zeroing", { .target = PA_TARGET_BLOCKDEV, UNMAP, .zeroout = true },
	  0, { WZ, ZO, UR }, false },
	{ "bdev, no unmap-zeroing", { .target = PA_TARGET_BLOCKDEV, .kernel_write_zeroes = true,
	  .write_zeroes_unmap = PA_NO, .zeroout = true }, 0, { ZO, UR }, false },
	{ "forced uring on ext4", { FILE_EXT4, UNMAP, .forced = UR }, 0, { UR }, true },
	{ "forced write-zeroes on xfs (kernel decides)", { .target = PA_TARGET_FILE, .forced = WZ },
	  0, { WZ }, false },
	{ "forced allocate on btrfs", { .target = PA_TARGET_FILE, .cow = true, .forced = AL },
	  0, { AL }, false },
	{ "forced zeroout on a file", { FILE_EXT4, .forced = ZO }, -EOPNOTSUPP, { 0 }, false },
	{ "forced allocate on a bdev", { .target = PA_TARGET_BLOCKDEV, .forced = AL },
	  -EOPNOTSUPP, { 0 }, false },
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
		assert_int_equal(p.reserve, r->reserve);
		assert_non_null(p.reason);
	}
}

static void reason_names_the_cause(void **state)
{
	struct pa_plan_input in = { FILE_EXT4, .kernel_write_zeroes = true,
				    .write_zeroes_unmap = PA_NO };
	struct pa_plan p;

	(void)state;
	assert_int_equal(pa_plan(&in, &p), 0);
	assert_non_null(strstr(p.reason, "cannot zero by unmapping"));
	in.kernel_write_zeroes = false;
	assert_int_equal(pa_plan(&in, &p), 0);
	assert_non_null(strstr(p.reason, "6.17"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table),
		cmocka_unit_test(reason_names_the_cause),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
