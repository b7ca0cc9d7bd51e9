#!/bin/bash
# Build and test the Rust and Go bindings against libprealloc *installed*
# in a staging prefix and found through its libprealloc.pc, never the build
# tree.  As root, the tests run on loop-mounted ext4 and xfs in a private
# mount namespace (gone when the script ends); otherwise in the temp dir.
#
# usage: bindings/check.sh [BUILD_DIR [SANITIZE]]
#   BUILD_DIR: a built meson build directory (the meson test 'bindings'
#   passes its own); without it the script sets up build-bindings/.
# Exit 77 (skipped) without cargo or go, or for a sanitizer build.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-}
sanitize=${2:-none}

# Toolchains installed per user (rustup, the Go tarball) may be off PATH.
PATH=$PATH:$HOME/.cargo/bin:/usr/local/go/bin
for tool in cargo go; do
	command -v "$tool" >/dev/null || { echo "$tool not installed: skipped"; exit 77; }
done
if [ "$sanitize" != none ]; then
	echo "sanitizer build ($sanitize): a plain program cannot link it; skipped"
	exit 77
fi

# As root, start again in a private mount namespace so that the loop
# mounts below never outlive the script, whatever way it ends.
if [ "$(id -u)" = 0 ] && [ -z "${PREALLOC_BINDINGS_NS:-}" ] && command -v unshare >/dev/null; then
	PREALLOC_BINDINGS_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi

if [ -z "$build" ]; then
	build=$src/build-bindings
	[ -d "$build" ] || meson setup "$build" -Dwerror=true >/dev/null
	ninja -C "$build" >/dev/null
fi

stage=$(mktemp -d /tmp/prealloc-bindings-XXXXXX)
mounts=()
cleanup() {
	for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || true; done
	rm -rf "$stage"
}
trap cleanup EXIT

meson install -C "$build" --no-rebuild --quiet --destdir "$stage/root" >"$stage/install.log" 2>&1 ||
	{ cat "$stage/install.log" >&2; exit 1; }
pc=$(find "$stage/root" -name libprealloc.pc)
[ -n "$pc" ] || { echo "no libprealloc.pc installed" >&2; exit 1; }
lib=$(dirname "$(find "$stage/root" -name 'libprealloc.so.*' | head -n1)")
export PKG_CONFIG_PATH=${pc%/*} PKG_CONFIG_SYSROOT_DIR=$stage/root LD_LIBRARY_PATH=$lib
# Compiled artefacts live with the build directory, so reruns are quick.
export CARGO_TARGET_DIR=$build/bindings/cargo-target
export RUSTDOCFLAGS=-Dwarnings

# Loop-mounted filesystems for the tests (as root, with the tools).
test_dirs=()
if [ -n "${PREALLOC_BINDINGS_NS:-}" ]; then
	for fs in ext4 xfs; do
		command -v "mkfs.$fs" >/dev/null || continue
		truncate -s 512M "$stage/$fs.img"
		"mkfs.$fs" -q "$stage/$fs.img" >/dev/null 2>&1 || continue
		mkdir "$stage/$fs"
		mount -o loop "$stage/$fs.img" "$stage/$fs" || continue
		mounts+=("$stage/$fs")
		test_dirs+=("$stage/$fs")
	done
fi
[ ${#test_dirs[@]} -gt 0 ] || test_dirs=("")

step() {
	echo "== $*"
	"$@"
}

cd "$src/bindings/rust"
step cargo fmt --all --check
step cargo clippy --workspace --all-targets -- -D warnings
step cargo doc --workspace --no-deps --quiet
for dir in "${test_dirs[@]}"; do
	echo "== tests on ${dir:-the temp dir}"
	PREALLOC_TEST_DIR=$dir step cargo test --workspace --quiet
done

cd "$src/bindings/go"
unformatted=$(gofmt -l .)
[ -z "$unformatted" ] || { echo "gofmt: $unformatted" >&2; exit 1; }
step go vet ./...
for dir in "${test_dirs[@]}"; do
	echo "== tests on ${dir:-the temp dir}"
	PREALLOC_TEST_DIR=$dir step go test -race -count=1 ./...
done
echo "bindings: all passed"
