#!/bin/sh
# Every function the shared library exports has a section 3 page; every page
# (generated ones, prealloc.1 and the hand-written PAGE...) renders with man -l
# without a warning; every option the tool's and its commands' --help list
# appears in prealloc.1.
# usage: check-man.sh LIBRARY MANDIR PREALLOC.1 TOOL [PAGE...]
# Exit 77 (skip) for the rendering part only, when man(1) is missing.
set -eu
lib=$1 mandir=$2 page1=$3 tool=$4
shift 4
status=0
for sym in $(nm -D --defined-only "$lib" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }'); do
	if [ ! -f "$mandir/man3/$sym.3" ]; then
		echo "exported $sym has no page $mandir/man3/$sym.3" >&2
		status=1
	fi
done
# The options of the tool and of each command its --help lists.
cmds=$("$tool" --help | awk '/^Commands:/ { f = 1; next } f && /^ [a-z]/ { print $1 } /^$/ { f = 0 }')
opts=$( { "$tool" --help; for c in $cmds; do "$tool" "$c" --help; done; } |
	grep -oE -- '--[a-z][a-z-]*' | sort -u)
[ -n "$cmds" ] || { echo "no commands found in $tool --help" >&2; status=1; }
for opt in $opts; do
	esc=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
	if ! grep -q -- "$esc" "$page1"; then
		echo "prealloc --help lists $opt, $page1 does not" >&2
		status=1
	fi
done
[ "$status" = 0 ] || exit 1
if ! command -v man >/dev/null; then
	echo "man(1) not installed: rendering not checked" >&2
	exit 77
fi
n=0
for page in "$mandir"/man3/*.3 "$mandir"/man3type/*.3type "$page1" "$@"; do
	warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null) || warn="man failed: $warn"
	if [ -n "$warn" ]; then
		echo "$page: $warn" >&2
		status=1
	fi
	n=$((n + 1))
done
[ "$n" -gt 2 ] || { echo "no pages found in $mandir" >&2; exit 1; }
[ "$status" = 0 ] && echo "$n pages, 1 passed, 0 failed"
exit $status
