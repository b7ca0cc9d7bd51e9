/* SPDX-License-Identifier: MIT */
/*
 * The file patterns of `prealloc exec` (src/tool/exec-pattern.c), a table:
 * files a program makes alike share one, each pattern matches its path
 * with fnmatch() as --exclude and --unordered use it, and what names no
 * file in a directory, or does not fit, has none.
 */
#include <fnmatch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "src/tool/exec-pattern.h"

static const struct {
	const char *path, *pattern;
} cases[] = {
	/* Prometheus: a block's chunk files as it makes them (then renamed),
	 * head compaction and snapshots alike. */
	{ "/var/lib/prometheus/01HX5.tmp-for-creation/chunks/000001.tmp", "*/chunks/*.tmp" },
	{ "/p/snapshots/20261206T0000Z-1a2b/01HY7/chunks/000002.tmp", "*/chunks/*.tmp" },
	{ "/var/lib/prometheus/01HX5/chunks/000001", "*/chunks/*" },
	/* etcd: the segment made ahead, and the segments. */
	{ "/var/lib/etcd/member/wal/0.tmp", "*/wal/*.tmp" },
	{ "/var/lib/etcd/member/wal/0000000000000001-0000000000000400.wal", "*/wal/*-*.wal" },
	/* InnoDB. */
	{ "/var/lib/mysql/ib_logfile101", "*/mysql/ib_logfile*" },
	{ "/var/lib/mysql/sbtest/sbtest12.ibd", "*/sbtest/sbtest*.ibd" },
	{ "/srv/data1/t.ibd", "*/data*/t.ibd" },
	/* Unlinked before the call, as /proc shows it. */
	{ "/d/seg7 (deleted)", "*/d/seg*" },
	/* fnmatch()'s specials are escaped, so the pattern matches the name. */
	{ "/d/a*b?[c]\\e", "*/d/a\\*b\\?\\[c\\]\\\\e" },
	{ "/f12", "/f*" },
	/* No file in a directory. */
	{ "", "" },
	{ "relative/f", "" },
	{ "anon_inode:[eventfd]", "" },
	{ "/", "" },
	{ "/d/", "" },
};

static void table(void **state)
{
	char buf[EXEC_PATTERN_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool ok = exec_pattern_of(cases[i].path, buf, sizeof(buf));
		size_t n = strlen(cases[i].path);

		assert_string_equal(buf, cases[i].pattern);
		assert_int_equal(ok, cases[i].pattern[0] != '\0');
		if (ok && (n < 10 || strcmp(cases[i].path + n - 10, " (deleted)")))
			assert_int_equal(fnmatch(buf, cases[i].path, 0), 0);
	}
}

/* A pattern that does not fit is none, never one cut short. */
static void too_long(void **state)
{
	const char *path = "/var/lib/prometheus/chunks/000001";
	char buf[EXEC_PATTERN_MAX];

	(void)state;
	assert_true(exec_pattern_of(path, buf, sizeof("*/chunks/*")));
	assert_string_equal(buf, "*/chunks/*");
	assert_false(exec_pattern_of(path, buf, sizeof("*/chunks/*") - 1));
	assert_string_equal(buf, "");
	assert_false(exec_pattern_of(path, buf, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table),
		cmocka_unit_test(too_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
