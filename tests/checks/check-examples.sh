#!/bin/sh
# The tool and the examples use the library as any program would: every
# src/tool/*.c and examples/*.c includes only system headers, <prealloc.h>,
# <prealloc-pool.h> and its own folder's headers (nothing else of src/, nothing
# of base/ or probes/; the RocksDB plugin in examples/rocksdb/ likewise, with
# RocksDB's headers), and the tool is linked against the shared library, not
# the static archive.
# usage: check-examples.sh SOURCE_ROOT TOOL
set -eu
root=$1
tool=$2
status=0
for f in "$root"/src/tool/*.c "$root"/src/tool/*.h "$root"/examples/*.c \
	 "$root"/examples/rocksdb/*.cc "$root"/examples/rocksdb/*.h; do
	[ -f "$f" ] || continue
	grep -hoE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<][^">]+[">]' "$f" |
	sed -E 's/.*include[[:space:]]*//' | while read -r inc; do
		name=${inc#?}
		name=${name%?}
		case $inc in
		'<prealloc.h>' | '"prealloc.h"' | '<prealloc-pool.h>') continue ;;
		\"*) [ -f "${f%/*}/$name" ] && continue ;;
		esac
		# A system header must not be one of the library's own.
		if [ -f "$root/$name" ] ||
		   [ -n "$(find "$root/src" "$root/base" "$root/probes" -name "${name##*/}" -print -quit)" ] ||
		   [ "$name" = config.h ] || case $inc in \"*) true ;; *) false ;; esac; then
			echo "$f: internal header $inc" >&2
			exit 1
		fi
	done || status=1
done
if ! readelf -d "$tool" | grep -q 'NEEDED.*\[libprealloc\.so'; then
	echo "$tool is not linked against libprealloc.so" >&2
	status=1
fi
if nm "$tool" | grep -qE ' [Tt] (prealloc_file_ex|pa_[a-z_]+)$'; then
	echo "$tool carries a copy of the library" >&2
	status=1
fi
[ "$status" = 0 ] && echo "1 passed, 0 failed"
exit $status
