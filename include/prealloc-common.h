/* SPDX-License-Identifier: MIT */
/*
 * What <prealloc.h> and <prealloc-pool.h> both need: the ABI check, the
 * version macros, the attribute of results that must be looked at, the
 * anonymous union of a renamed field, and the opaque context.  Included by
 * both, so neither includes the other's declarations to get these; not
 * meant to be included on its own.
 */
#ifndef LIBPREALLOC_COMMON_H
#define LIBPREALLOC_COMMON_H

#if defined(__SIZEOF_POINTER__) && (__SIZEOF_POINTER__ != 8 || __SIZEOF_LONG__ != 8)
#error "libprealloc: the ABI is LP64-only"
#endif

#include <prealloc-version.h>

/*
 * Marks functions whose result must be looked at: ignoring it is a bug.  It
 * is on every call whose result is the answer or says whether the outputs
 * were set: constructors, I/O calls, lookups and getters (names too).  Not
 * on the lifetime calls (ref, unref, free, close) nor on the requests whose
 * failure leaves the caller's course unchanged (prealloc_async_cancel(),
 * prealloc_ctx_flush(), prealloc_pool_prepare(): the take of the name does
 * the work then) or the setters of the log hook.
 */
#if defined(__GNUC__) || defined(__clang__)
#define PREALLOC_WUR __attribute__((warn_unused_result))
#else
#define PREALLOC_WUR
#endif

/*
 * Opens a member that is an anonymous union: one field with two names (a
 * new name and the old one it replaces), the same bytes.  Anonymous unions
 * are C11 and C++; GCC and clang take them in every mode, and with
 * __extension__ without a -Wpedantic warning in C99 and C89 too.  Another
 * compiler needs C11 or C++.
 */
#if defined(__GNUC__) || defined(__clang__)
#define PREALLOC_ANON_UNION __extension__ union
#elif defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L)
#define PREALLOC_ANON_UNION union
#else
#error "libprealloc: <prealloc.h> needs C11, C++, GCC or clang (an anonymous union)"
#endif

/* A library context (prealloc_ctx_new() in <prealloc.h>). */
struct prealloc_ctx;

#endif /* LIBPREALLOC_COMMON_H */
