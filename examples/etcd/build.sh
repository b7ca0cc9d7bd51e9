#!/bin/bash
# Build etcd v3.7.3 from the Go module proxy, as published (stock) or with
# its WAL segments made by libprealloc: the server module is copied out of
# the module cache into OUT_DIR/src/server, wal-segment.patch applied to
# the copy, and the binary built with a replace directive to it and the
# build tag libprealloc.  The Go binding (bindings/go) finds libprealloc
# with pkg-config, so the library must be installed (or staged, as
# bindings/lib.sh does) first.  Versions are pinned by go.mod and go.sum.
#
# usage: examples/etcd/build.sh OUT_DIR TARGET...
#   etcd        OUT_DIR/bin/etcd, patched (links libprealloc.so.1)
#   etcd-stock  OUT_DIR/bin/etcd-stock, the same etcd unchanged
#   tools       OUT_DIR/bin/etcd-load and etcd-verify
#   etcdctl     OUT_DIR/bin/etcdctl v3.7.3
#   wal-tests   OUT_DIR/bin/wal.test: etcd's own storage/wal tests, built
#               from the patched copy with the tag; run it in
#               OUT_DIR/src/server/storage/wal (its testdata/) with TMPDIR
#               on the filesystem to test
# Modules and compiled packages stay under OUT_DIR (gomod/, gocache/), so
# a second build downloads nothing and compiles little.  GOPROXY is the
# user's.  Needs Go 1.26 (etcd v3.7.3's go.mod) and patch(1).
set -euo pipefail
src=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: $0 OUT_DIR TARGET..." >&2; exit 2; }
mkdir -p "$1/bin"
out=$(cd "$1" && pwd)
shift
for target in "$@"; do
	case $target in
	etcd | etcd-stock | tools | etcdctl | wal-tests) ;;
	*) echo "$0: unknown target $target" >&2; exit 2 ;;
	esac
done

export GOMODCACHE=$out/gomod GOCACHE=$out/gocache GOTOOLCHAIN=local
export GOFLAGS="-mod=readonly -modcacherw -trimpath -buildvcs=false"

work=$out/src
rm -rf "$work"
mkdir -p "$work"
cp -r "$src/go.mod" "$src/go.sum" "$src/etcd" "$src/etcd-load" "$src/etcd-verify" "$work/"
cd "$work"

# patch_server: the patched copy of the server module, and the replace
# directives that make this build use it and the binding.
patched=
patch_server() {
	[ -z "$patched" ] || return 0
	local orig binding=$src/../../bindings/go
	binding=$(cd "$binding" && pwd)
	orig=$(go list -m -f '{{.Dir}}' go.etcd.io/etcd/server/v3)
	cp -r "$orig" server
	chmod -R u+w server
	patch -d server -p1 --quiet --no-backup-if-mismatch <"$src/wal-segment.patch"
	go mod edit -replace go.etcd.io/etcd/server/v3=./server \
		-require github.com/libprealloc/libprealloc/bindings/go@v0.0.0 \
		-replace "github.com/libprealloc/libprealloc/bindings/go=$binding"
	patched=1
}

# Stock targets first: they build against the unedited go.mod.
for target in etcd-stock tools etcdctl etcd wal-tests; do
	[[ " $* " == *" $target "* ]] || continue
	case $target in
	etcd-stock) go build -o "$out/bin/etcd-stock" ./etcd ;;
	tools) go build -o "$out/bin/" ./etcd-load ./etcd-verify ;;
	etcdctl) go build -o "$out/bin/etcdctl" go.etcd.io/etcd/etcdctl/v3 ;;
	etcd)
		patch_server
		go build -tags libprealloc -o "$out/bin/etcd" ./etcd
		;;
	wal-tests)
		patch_server
		go test -c -tags libprealloc -o "$out/bin/wal.test" go.etcd.io/etcd/server/v3/storage/wal
		;;
	esac
done
