/* SPDX-License-Identifier: MIT */
/*
 * The tests' one assertion vocabulary beside cmocka's assert_*(): a checked
 * condition that also says why, in the words of the case (a seed to replay,
 * the step of a stream, the filesystem).
 *
 *   assert_msg(cond, fmt, ...)  inside a cmocka case: the case fails and
 *                               stops there, as assert_true() would.
 *   expect_msg(cond, fmt, ...)  where a failure must not leave the code
 *                               (a forked child, a stream that cleans up,
 *                               a program that is not a cmocka group): it
 *                               counts in tassert_failures and evaluates to
 *                               cond, so the caller decides what follows.
 *
 * Both print "file:line: [context: ]cond: message" to stderr, context being
 * tassert_context when set (a filesystem's name, say).
 */
#ifndef PREALLOC_TASSERT_H
#define PREALLOC_TASSERT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static const char *tassert_context __attribute__((unused));
static unsigned int tassert_failures __attribute__((unused));

static inline void __attribute__((format(printf, 4, 5), unused))
tassert_report(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: %s%s%s: ", file, line, tassert_context ? tassert_context : "",
		tassert_context ? ": " : "", cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define assert_msg(cond, ...)								\
	do {										\
		if (!(cond)) {								\
			tassert_report(__FILE__, __LINE__, #cond, __VA_ARGS__);		\
			fail();								\
		}									\
	} while (0)

#define expect_msg(cond, ...)								\
	({										\
		bool tassert_ok = (cond);						\
		if (!tassert_ok) {							\
			tassert_report(__FILE__, __LINE__, #cond, __VA_ARGS__);		\
			tassert_failures++;						\
		}									\
		tassert_ok;								\
	})

#endif
