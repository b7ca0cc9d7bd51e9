#!/bin/sh
# Build examples/zeroing-plan.c the way a CMake project would: with
# find_package(libprealloc 0.3 REQUIRED) and the imported targets, shared
# and static, then run both.  Against a staged install (`meson install
# --destdir`, found through CMAKE_PREFIX_PATH), or with --system against
# the library installed on the machine (the Debian packages, .ci/debian.sh).
# A version newer than the one installed must not be found.
# usage: check-cmake.sh SOURCE_DIR SANITIZE BUILD_DIR|--system
set -eu
src=$1
if [ "$2" != none ]; then
	echo "sanitizer build ($2): a plain program cannot link it; skipped"
	exit 77
fi
command -v cmake >/dev/null || { echo "cmake not installed: skipped"; exit 77; }
tmp=$(mktemp -d /tmp/prealloc-cmake-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if [ "$3" = --system ]; then
	prefix=
else
	meson install -C "$3" --no-rebuild --quiet --destdir "$tmp/stage" >"$tmp/log" 2>&1 ||
		{ cat "$tmp/log" >&2; exit 1; }
	prefix=$tmp/stage$(meson introspect "$3" --buildoptions |
		python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
fi
configure() {
	cmake -S "$src/tests/checks/cmake" -B "$tmp/$1" -DCMAKE_PREFIX_PATH="$prefix" \
		-DEXAMPLE="$src/examples/zeroing-plan.c" -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" \
		-DWANT="$2" >"$tmp/log" 2>&1
}
configure build 0.3 || { cat "$tmp/log" >&2; exit 1; }
cmake --build "$tmp/build" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
if configure newer 99.0; then
	echo "find_package(libprealloc 99.0) found the installed library" >&2
	exit 1
fi
grep -q 'libpreallocConfig.cmake, version: ' "$tmp/log" ||
	{ cat "$tmp/log" >&2; echo "no version mismatch reported for 99.0" >&2; exit 1; }

lib=
[ -z "$prefix" ] || lib=$(dirname "$(find "$prefix" -name 'libprealloc.so.*' | head -n1)")
for exe in zeroing-plan zeroing-plan-static; do
	out=$(LD_LIBRARY_PATH="$lib" "$tmp/build/$exe" "$src/meson.build")
	echo "$exe: $out"
	case $out in
	*"zeroing offloaded: "*"1 GiB: "*) ;;
	*) echo "$exe: unexpected output" >&2; exit 1 ;;
	esac
done
# The shared one loads the library asked for, the static one none.
want=${lib:-/}
LD_LIBRARY_PATH="$lib" ldd "$tmp/build/zeroing-plan" | grep "libprealloc.so.1 => $want" >/dev/null ||
	{ echo "zeroing-plan did not load libprealloc.so.1 from ${lib:-the system}" >&2; exit 1; }
if ldd "$tmp/build/zeroing-plan-static" | grep -q libprealloc; then
	echo "zeroing-plan-static loads libprealloc.so" >&2
	exit 1
fi
echo "1 passed, 0 failed"
