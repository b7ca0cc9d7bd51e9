#!/bin/sh
# debian/libprealloc1.symbols from src/libprealloc.map: a symbol of node
# LIBPREALLOC_X.Y came with version X.Y.  After a node or a symbol is added
# to the map:  debian/symbols.sh >debian/libprealloc1.symbols
# The package build (dpkg-gensymbols -c4) fails when the file and the
# library differ; `meson test debian-symbols` (--check) fails first.
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
	echo "1 passed, 0 failed"
else
	gen
fi
