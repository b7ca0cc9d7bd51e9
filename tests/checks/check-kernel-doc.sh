#!/bin/sh
# The man page generator over small headers: every kind of declaration it
# claims to handle gets a page that renders cleanly, and comments that do not
# match their declaration fail the build instead of shipping a wrong page.
# usage: check-kernel-doc.sh GENERATOR
set -eu
gen=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "$*" >&2; status=1; }

cat >"$tmp/good.h" <<'H'
/*
 * libx - a test library
 *
 * Text of the overview.
 */
/**
 * x_call() - call back, with a -EINVAL on bad input
 * @fn: callback; see &struct x_thing and %X_CONST
 * @data: for @fn
 * @...: more
 *
 * Longer text.
 * .starting with a dot
 *
 * Returns: 0 or -errno.
 *
 * Since: 0.2
 */
int x_call(int (*fn)(void *data), void *data, ...);

/**
 * struct x_thing - a thing
 * @size: its size
 */
struct x_thing {
	unsigned int size;
};

/**
 * x_must() - a result not to ignore
 * @a: first
 * @b: second
 *
 * Returns: 0.
 *
 * Since: 0.3
 */
PREALLOC_WUR int x_must(int a,
			int b);

/**
 * X_MACRO() - a macro
 *
 * Since: 0.2
 */
#define X_MACRO(a) \
	((a) + 1)
H
if ! python3 "$gen" "$tmp/good.h" "$tmp/out" 1.0; then
	fail "good header refused"
else
	for page in man3/x_call.3 man3/x_must.3 man3type/x_thing.3type man3/X_MACRO.3 \
		    man3/libprealloc.3; do
		[ -f "$tmp/out/$page" ] || fail "missing page $page"
	done
	# The attribute macro is not shown; what was aligned after it still is.
	grep -q WUR "$tmp/out/man3/x_must.3" && fail "PREALLOC_WUR shown in the synopsis"
	grep -qx '\\&           int b);' "$tmp/out/man3/x_must.3" ||
		fail "continuation line not realigned"
	grep -q '^\\&\.starting' "$tmp/out/man3/x_call.3" || fail "a leading dot is not escaped"
	grep -q '\\-EINVAL' "$tmp/out/man3/x_call.3" || fail "-EINVAL is not a minus sign"
	if command -v man >/dev/null; then
		for page in "$tmp"/out/*/*; do
			w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
			[ -z "$w" ] || fail "$page: $w"
		done
	fi
fi

# Each bad header must be refused with a message naming the problem.
bad() {
	name=$1 want=$2
	cat >"$tmp/$name.h"
	if python3 "$gen" "$tmp/$name.h" "$tmp/bad" 1.0 2>"$tmp/err"; then
		fail "$name: accepted"
	elif ! grep -q "$want" "$tmp/err"; then
		fail "$name: message '$(cat "$tmp/err")' lacks '$want'"
	fi
}
bad no-since 'no "Since:"' <<'H'
/**
 * x_f() - f
 * @a: a
 *
 * Returns: 0
 */
int x_f(int a);
H
bad params 'documented parameters' <<'H'
/**
 * x_f() - f
 * @a: a
 *
 * Returns: 0
 *
 * Since: 1
 */
int x_f(int a, int b);
H
bad wrong-decl 'precedes a declaration' <<'H'
/**
 * x_f() - f
 *
 * Returns: 0
 *
 * Since: 1
 */
int x_g(void);
H
bad no-dash 'first line' <<'H'
/**
 * x_f: f
 */
int x_f(void);
H
[ "$status" = 0 ] && echo "1 passed, 0 failed"
exit $status
