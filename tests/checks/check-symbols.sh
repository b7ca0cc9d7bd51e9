#!/bin/sh
# The headers, the version map and the shared library's exports must agree:
# a function declared but not exported, or exported but not declared, fails.
# Also: nothing but functions is exported (no data symbol, no internal pa_*
# name), and every export is bound to a LIBPREALLOC_ version node.
# usage: check-symbols.sh HEADER... MAP LIBRARY
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
while [ $# -gt 2 ]; do
	grep -oE '\bprealloc_[a-z_]+\(' "$1" | tr -d '(' >>"$tmp/declared"
	shift
done
sort -u "$tmp/declared" >"$tmp/header"
grep -oE '^[[:space:]]+prealloc_[a-z_]+;' "$1" | tr -d ' \t;' | sort -u >"$tmp/map"
nm -D --defined-only "$2" >"$tmp/nm"
awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' "$tmp/nm" | sort -u >"$tmp/lib"
status=0
for pair in "header map" "map lib"; do
	set -- $pair
	if ! diff -u "$tmp/$1" "$tmp/$2"; then
		echo "symbols differ between $1 and $2" >&2
		status=1
	fi
done
# Version-node markers are absolute symbols named like the node; the rest
# must be functions of a LIBPREALLOC_ node.
if awk '!($2 == "A" && $3 ~ /^LIBPREALLOC_/) && !($2 == "T" && $3 ~ /@@?LIBPREALLOC_/)' \
	"$tmp/nm" | grep .; then
	echo "exports above are data, unversioned or outside LIBPREALLOC_ nodes" >&2
	status=1
fi
[ "$status" = 0 ] && echo "1 passed, 0 failed"
exit $status
