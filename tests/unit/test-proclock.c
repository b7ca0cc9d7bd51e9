/* SPDX-License-Identifier: MIT */
/*
 * Who holds a file's flock(), read from /proc/locks lines (fmemopen): lines
 * are matched by device and inode, by inode alone only where stat() gives
 * another device than /proc/locks; holders of calls are waited for, any
 * other holder is foreign; waiters and record locks are no holders.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "src/call/proclock.h"
#include "tassert.h"

#define CALLS_PID 600		/* a process whose calls hold files */

static bool calls_only(long pid)
{
	return pid == CALLS_PID;
}

static long scan(const char *text, uint64_t dev, uint64_t ino, bool by_dev)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	long pid;

	assert_non_null(f);
	pid = pa_flock_foreign(f, dev, ino, by_dev, calls_only);
	fclose(f);
	return pid;
}

static void by_device_and_inode(void **state)
{
	const uint64_t dev = makedev(7, 0);
	/* Another filesystem's file of the same inode number, flock()ed by a
	 * process without calls: not this file's holder. */
	const char *decoy = "1: FLOCK  ADVISORY  WRITE 500 07:01:12 0 EOF\n";

	(void)state;
	assert_int_equal(scan(decoy, dev, 12, true), 0);
	assert_int_equal(scan(decoy, dev, 12, false), 500);
	assert_int_equal(scan("1: FLOCK  ADVISORY  WRITE 700 07:00:12 0 EOF\n", dev, 12, true), 700);
	assert_int_equal(scan("1: FLOCK  ADVISORY  WRITE 700 07:00:13 0 EOF\n", dev, 12, true), 0);
	/* Major and minor are hex. */
	assert_int_equal(scan("1: FLOCK  ADVISORY  WRITE 700 103:0a:12 0 EOF\n",
			      makedev(259, 10), 12, true), 700);
}

static void who_is_waited_for(void **state)
{
	const uint64_t dev = makedev(8, 2);

	(void)state;
	assert_int_equal(scan("1: FLOCK  ADVISORY  WRITE 600 08:02:99 0 EOF\n", dev, 99, true), 0);
	/* A holder in another pid namespace is shown as pid 0: unnamed. */
	assert_int_equal(scan("1: FLOCK  ADVISORY  WRITE 0 08:02:99 0 EOF\n", dev, 99, true), -1);
	/* The calls' holder first, then a foreign shared holder. */
	assert_int_equal(scan("1: FLOCK  ADVISORY  READ 600 08:02:99 0 EOF\n"
			      "2: FLOCK  ADVISORY  READ 701 08:02:99 0 EOF\n", dev, 99, true), 701);
}

static void not_holders(void **state)
{
	const uint64_t dev = makedev(8, 2);

	(void)state;
	/* A waiter ("->") holds nothing; record locks never meet flock(). */
	assert_int_equal(scan("1: FLOCK  ADVISORY  WRITE 600 08:02:99 0 EOF\n"
			      "1: -> FLOCK  ADVISORY  WRITE 702 08:02:99 0 EOF\n"
			      "2: POSIX  ADVISORY  WRITE 703 08:02:99 0 EOF\n"
			      "3: OFDLCK ADVISORY  READ  -1 08:02:99 0 EOF\n", dev, 99, true), 0);
	assert_int_equal(scan("", dev, 99, true), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(by_device_and_inode),
		cmocka_unit_test(who_is_waited_for),
		cmocka_unit_test(not_holders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
