#!/bin/sh
# The public headers compile cleanly, with every warning an error, in each C
# and C++ mode a consumer may use (C99 and C11 -pedantic-errors, GNU C,
# C++11 to C++20), both for code written for 0.4 (the old names:
# enum prealloc_step, PREALLOC_STEP_*, failed_step, prealloc_step_name())
# and for code using the new ones; an old name and its new one are the same
# value and the same bytes.
# usage: check-header.sh INCLUDE_DIR BUILD_INCLUDE_DIR CC [CXX]
set -eu
inc=$1 binc=$2 cc=$3 cxx=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/use.h" <<'C'
#include <stddef.h>
#include <prealloc.h>

#if defined(__cplusplus)
#define PA_ASSERT(c, m) static_assert(c, #m)
#else
#define PA_ASSERT(c, m) typedef char pa_assert_##m[(c) ? 1 : -1]
#endif

PA_ASSERT(offsetof(struct prealloc_report, failed_phase) ==
	  offsetof(struct prealloc_report, failed_step), same_offset);
PA_ASSERT(sizeof(((struct prealloc_report *)0)->failed_step) == 4, same_size);
PA_ASSERT((int)PREALLOC_STEP_SYNC == (int)PREALLOC_PHASE_SYNC, same_value);

/* Code written for 0.4. */
int old_names(const struct prealloc_report *r);
int old_names(const struct prealloc_report *r)
{
	enum prealloc_step s = (enum prealloc_step)r->failed_step;
	const char *n = prealloc_step_name(s);

	return s == PREALLOC_STEP_SPACE_CHECK && n != NULL;
}

/* Code written for 0.5. */
int new_names(struct prealloc_report *r);
int new_names(struct prealloc_report *r)
{
	enum prealloc_phase p = (enum prealloc_phase)r->failed_phase;
	const char *n = prealloc_phase_name(p);

	r->failed_phase = PREALLOC_PHASE_NONE;
	return p == PREALLOC_PHASE_ZERO && n != NULL;
}
C
status=0 n=0
try() { # COMPILER LANG FLAGS...
	c=$1 lang=$2
	shift 2
	n=$((n + 1))
	if ! "$c" -x "$lang" -c -o "$tmp/use.o" -I"$inc" -I"$binc" -Wall -Wextra -Werror "$@" \
		"$tmp/use.h" 2>"$tmp/err"; then
		echo "$c $lang $*: the header does not compile:" >&2
		head -n 20 "$tmp/err" >&2
		status=1
	fi
}
# As a source file, not a header: the -x languages below.
for std in c99 c11 c17; do
	try "$cc" c -std=$std -pedantic-errors
done
try "$cc" c -std=gnu11
try "$cc" c -std=gnu99 -Wpedantic
if [ -n "$cxx" ] && command -v "$cxx" >/dev/null; then
	for std in c++11 c++17 c++20; do
		try "$cxx" c++ -std=$std -pedantic-errors
	done
else
	echo "no C++ compiler: the C++ modes are not checked" >&2
fi
[ "$status" = 0 ] && echo "$n modes, 1 passed, 0 failed"
exit $status
