#!/bin/sh
# Build examples/zeroing-plan.c the way a user would: against the library
# installed (staged with `meson install --destdir`) and found through its
# libprealloc.pc, then run it; and the staged tool's exec loads the staged
# interposer.
# usage: check-install.sh BUILD_DIR SOURCE_DIR CC SANITIZE
set -eu
build=$1
src=$2
cc=$3
if [ "$4" != none ]; then
	echo "sanitizer build ($4): a plain program cannot link it; skipped"
	exit 77
fi
dest=$(mktemp -d /tmp/prealloc-install-XXXXXX)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --no-rebuild --quiet --destdir "$dest" >"$dest.log" 2>&1 ||
	{ cat "$dest.log" >&2; rm -f "$dest.log"; exit 1; }
rm -f "$dest.log"
pc=$(find "$dest" -name libprealloc.pc)
[ -n "$pc" ] || { echo "no libprealloc.pc installed" >&2; exit 1; }
export PKG_CONFIG_PATH="${pc%/*}" PKG_CONFIG_SYSROOT_DIR="$dest"
flags=$(pkg-config --cflags --libs libprealloc)
# shellcheck disable=SC2086
"$cc" -Wall -Wextra -Werror -o "$dest/zeroing-plan" "$src/examples/zeroing-plan.c" $flags
lib=$(dirname "$(find "$dest" -name 'libprealloc.so.*' | head -n1)")
out=$(LD_LIBRARY_PATH="$lib" "$dest/zeroing-plan" "$src/meson.build")
echo "$out"
case $out in
*"zeroing offloaded: "*"1 GiB: "*) ;;
*) echo "unexpected output" >&2; exit 1 ;;
esac
# It ran against the staged library, not one found elsewhere.
LD_LIBRARY_PATH="$lib" ldd "$dest/zeroing-plan" | grep -q "libprealloc.so.* => $lib/" ||
	{ echo "did not load the staged libprealloc" >&2; exit 1; }
# The staged `prealloc exec` (a prefix moved elsewhere) finds the staged
# interposer, relative to itself.
tool=$(find "$dest" -path '*/bin/prealloc' -type f)
if [ -n "$tool" ]; then
	LD_LIBRARY_PATH="$lib" "$tool" exec --quiet --mode preload -- cat /proc/self/maps |
		grep -q "$dest/.*libprealloc-exec.so" ||
		{ echo "the staged prealloc exec did not load the staged interposer" >&2; exit 1; }
fi
echo "1 passed, 0 failed"
