#!/bin/sh
# The header, the version map and the shared library's exports must agree:
# a function declared but not exported, or exported but not declared, fails.
# usage: check-symbols.sh HEADER MAP LIBRARY
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -oE '\bprealloc_[a-z_]+\(' "$1" | tr -d '(' | sort -u >"$tmp/header"
grep -oE '^[[:space:]]+prealloc_[a-z_]+;' "$2" | tr -d ' \t;' | sort -u >"$tmp/map"
nm -D --defined-only "$3" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort -u >"$tmp/lib"
status=0
for pair in "header map" "map lib"; do
	set -- $pair
	if ! diff -u "$tmp/$1" "$tmp/$2"; then
		echo "symbols differ between $1 and $2" >&2
		status=1
	fi
done
[ "$status" = 0 ] && echo "1 passed, 0 failed"
exit $status
