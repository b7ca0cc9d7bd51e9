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

# shellcheck source=bindings/lib.sh
. "$src/bindings/lib.sh"
command -v cargo >/dev/null || { echo "cargo not installed (Rust 1.90 or later: https://rustup.rs): skipped"; exit 77; }
command -v go >/dev/null || { echo "go not installed (Go 1.22 or later: https://go.dev/dl/): skipped"; exit 77; }
if [ "$sanitize" != none ]; then
	echo "sanitizer build ($sanitize): a plain program cannot link it; skipped"
	exit 77
fi

reexec_private "$0" "$@"

if [ -z "$build" ]; then
	build=$src/build-bindings
	[ -d "$build" ] || meson setup "$build" -Dwerror=true >/dev/null
	ninja -C "$build" >/dev/null
fi
build=$(cd "$build" && pwd)

stage=$(mktemp -d /tmp/prealloc-bindings-XXXXXX)
trap 'unmount_loops; rm -rf "$stage"' EXIT
stage_install "$build" "$stage"
# Compiled artefacts live with the build directory, so reruns are quick.
export CARGO_TARGET_DIR=$build/bindings/cargo-target
export RUSTDOCFLAGS=-Dwarnings

# Loop-mounted filesystems for the tests (as root, with the tools).
mount_loops "$stage" ext4 xfs
[ ${#test_dirs[@]} -gt 0 ] || test_dirs=("")

step() {
	echo "== $*"
	"$@"
}

cd "$src/bindings/rust"
step cargo fmt --all --check
# --all-features: prealloc-sys's layout-test, the layout check consumers
# never build.
step cargo clippy --workspace --all-targets --all-features -- -D warnings
step cargo doc --workspace --no-deps --quiet
# As docs.rs builds them: without the C library.
echo "== docs without libprealloc (docs.rs)"
env -u PKG_CONFIG_PATH DOCS_RS=1 CARGO_TARGET_DIR="$CARGO_TARGET_DIR/docs-rs" \
	cargo doc --workspace --no-deps --quiet
for dir in "${test_dirs[@]}"; do
	echo "== tests on ${dir:-the temp dir}"
	PREALLOC_TEST_DIR=$dir step cargo test --workspace --all-features --quiet
done
# The crates as crates.io would take them (packaged and built alone, the
# second against the first as packaged; nothing is uploaded).
step cargo publish --workspace --dry-run --allow-dirty --quiet

cd "$src/bindings/go"
unformatted=$(gofmt -l .)
[ -z "$unformatted" ] || { echo "gofmt: $unformatted" >&2; exit 1; }
step go vet ./...
# An example for every exported type (pkg.go.dev shows them with the type).
missing=$(cd prealloc && comm -23 <(go doc -short . | awk '$1 == "type" { print $2 }' | sort) \
	<(grep -ho '^func Example[A-Za-z]*' ./*_test.go | sed 's/^func Example//' | sort -u))
[ -z "$missing" ] || { echo "no example for the exported types:" $missing >&2; exit 1; }
for dir in "${test_dirs[@]}"; do
	echo "== tests on ${dir:-the temp dir}"
	PREALLOC_TEST_DIR=$dir step go test -race -count=1 ./...
done
echo "bindings: all passed"
