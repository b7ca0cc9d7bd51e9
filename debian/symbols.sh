#!/bin/sh
# debian/libprealloc1.symbols from src/libprealloc.map: a symbol of node
# LIBPREALLOC_X.Y came with version X.Y.  After a node or a symbol is added
# to the map:  debian/symbols.sh >debian/libprealloc1.symbols
# and, if the node is newer than debian/changelog's version, add an entry
# for it (dch -v X.Y.0).  The package build (dpkg-gensymbols -c4) fails when
# the file and the library differ; `meson test debian-symbols` (--check)
# fails first, on either.
# usage: debian/symbols.sh [--check]
set -eu
dir=$(dirname "$0")
gen() {
	echo "libprealloc.so.1 libprealloc1 #MINVER#"
	echo "* Build-Depends-Package: libprealloc-dev"
	awk '/^LIBPREALLOC_[0-9.]+ *\{/ { node = $1; ver = substr(node, 13); global = 0
	                                  print " " node "@" node " " ver; next }
	     /global:/ { global = 1; next }
	     /local:/ { global = 0; next }
	     /^}/ { node = ""; next }
	     node != "" && global && /^[ \t]+[a-z_0-9]+;/ {
	             gsub(/[ \t;]/, ""); print " " $0 "@" node " " ver }' \
		"$dir/../src/libprealloc.map" | LC_ALL=C sort
}
if [ "${1:-}" = --check ]; then
	gen | diff -u "$dir/libprealloc1.symbols" - ||
		{ echo "debian/libprealloc1.symbols is stale: debian/symbols.sh >debian/libprealloc1.symbols" >&2; exit 1; }
	# A package older than its newest symbol would make its users depend on
	# a libprealloc1 that does not exist: a new node needs a changelog entry.
	newest=$(gen | awk 'NR > 2 { print $2 }' | sort -V | tail -n1)
	package=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$dir/changelog")
	[ "$(printf '%s\n%s\n' "$newest" "$package" | sort -V | tail -n1)" = "$package" ] ||
		{ echo "symbols of $newest, but debian/changelog is at $package: add an entry (dch -v $newest.0)" >&2; exit 1; }
	echo "1 passed, 0 failed"
else
	gen
fi
