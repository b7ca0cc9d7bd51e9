/* SPDX-License-Identifier: MIT */
/*
 * Decoding a block device's sysfs `stat`.  The 17-field line is this
 * project's build machine's /sys/block/vda/stat (Linux 6.18, captured
 * 2026-11-23); the 15- and 11-field lines are the same counters cut where
 * Linux 4.18-5.4 and older kernels end (Documentation/block/stat.rst).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "src/exec/devstat.h"

#define V618 " 1929657   112472 870337052  2862573 94490736  6022962 20019652557 49351189" \
	     "        0  7879524 53958022   457514       78 2357564408   406065 24457194  1338193\n"
#define V504 " 1929657   112472 870337052  2862573 94490736  6022962 20019652557 49351189" \
	     "        0  7879524 53958022   457514       78 2357564408   406065\n"
#define V417 " 1929657   112472 870337052  2862573 94490736  6022962 20019652557 49351189" \
	     "        0  7879524 53958022\n"

static void check(const char *line, uint64_t flushes)
{
	struct pa_devstat s;

	assert_true(pa_devstat_parse(line, &s));
	assert_int_equal(s.reads, 1929657);
	assert_int_equal(s.write_bytes, 20019652557ull * 512);
	/* Field 16, not 17 (the flushes' milliseconds). */
	assert_int_equal(s.flushes, flushes);
}

static void kernels(void **state)
{
	(void)state;
	check(V618, 24457194);
	check(V504, 0);
	check(V417, 0);
	/* Fields a later kernel may add are ignored. */
	check(" 1929657 112472 870337052 2862573 94490736 6022962 20019652557 49351189 0 "
	      "7879524 53958022 457514 78 2357564408 406065 24457194 1338193 7 8 9\n", 24457194);
}

static void not_stat(void **state)
{
	static const char *const bad[] = {
		"", "\n", "1 2 3 4 5 6 7 8 9 10\n", "1 2 3 4 5 6 7 8 9 10 x11\n",
		"1 2 3 4 5 6 7 8 9 10 11x\n", "-1 2 3 4 5 6 7 8 9 10 11\n",
	};
	struct pa_devstat s;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(pa_devstat_parse(bad[i], &s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kernels),
		cmocka_unit_test(not_stat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
