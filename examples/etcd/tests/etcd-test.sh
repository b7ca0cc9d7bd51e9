#!/bin/bash
# etcd v3.7.3 built with libprealloc (examples/etcd/build.sh against a
# staged install), on loop-mounted ext4 as root, else in the temp dir:
#  1. etcd's own storage/wal tests, built from the patched copy with the
#     tag, pass there (their segments come from libprealloc);
#  2. a member starts, takes puts across a segment cut, and every WAL
#     segment and the segment made ahead (0.tmp/1.tmp) is fully written
#     (prealloc verify: FIEMAP); kill -9, etcd-verify passes, it restarts
#     and every acknowledged put reads back;
#  3. two crash rounds, seeded (tests/etcd-crash.sh does 20 per
#     filesystem): kill -9 mid-load from 1-4 clients and right after a
#     cut, the same checks (lib.sh, crash_round);
#  4. (root) a filesystem without room for the next segment: the pipeline
#     reports ENOSPC the way etcd reports fallocate's, and the member keeps
#     serving.
# Modules and compiled packages are kept under BUILD_DIR/examples/etcd.
# usage: etcd-test.sh BUILD_DIR [SANITIZE]; exit 77 without Go 1.26.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
sanitize=${2:-none}
# shellcheck source=bindings/lib.sh
. "$here/../../bindings/lib.sh"
# shellcheck source=examples/etcd/lib.sh
. "$here/lib.sh"
go_usable || { echo "Go 1.26 or later not installed (https://go.dev/dl/): skipped"; exit 77; }
if [ "$sanitize" != none ]; then
	echo "sanitizer build ($sanitize): a Go program cannot link it; skipped"
	exit 77
fi
reexec_private "$0" "$@"

scratch=$(mktemp -d /tmp/prealloc-etcd-XXXXXX)
trap 'etcd_kill 2>/dev/null; unmount_loops; rm -rf "$scratch"' EXIT
etcd_pid=
SECONDS=0
etcd_build "$build" etcd tools wal-tests
echo "== built in ${SECONDS}s"
PREALLOC_LOOP_MIB=1024 mount_loops "$scratch" ext4
dir=${test_dirs[0]:-$scratch}
echo "== on ${test_dirs[0]:-the temp dir}"

echo "== etcd's storage/wal tests, patched"
mkdir "$dir/tmp"
(cd "$build/examples/etcd/src/server/storage/wal" &&	# its testdata/
	TMPDIR=$dir/tmp "$etcd_bin/wal.test" -test.count=1 | tail -n 1)
rm -rf "$dir/tmp"

echo "== start, puts across a cut, every segment written"
etcd_args=(--snapshot-count 1000)
etcd_start "$etcd_bin/etcd" "$dir/data" "$dir/etcd.log" "${etcd_args[@]}"
"$etcd_bin/etcd-load" put -endpoint "$etcd_url" -log "$dir/acked-0.log" -tag 0 \
	-count 1200 -value-size 65536 -wal-dir "$dir/data/member/wal"
wal=$dir/data/member/wal
ls -l "$wal"
mapfile -t files < <(find "$wal" -name '*.wal' -o -name '*.tmp')
[ "$(find "$wal" -name '*.wal' | wc -l)" -ge 2 ] || { echo "no segment cut" >&2; exit 1; }
verify_written "${files[@]}"
etcd_kill
"$etcd_bin/etcd-verify" "$dir/data"
etcd_start "$etcd_bin/etcd" "$dir/data" "$dir/etcd.log" "${etcd_args[@]}"
"$etcd_bin/etcd-load" check -endpoint "$etcd_url" -log "$dir/acked-0.log" -value-size 65536 -clear 0

echo "== crash rounds"
RANDOM=36
crash_round "$dir" 1 load
crash_round "$dir" 2 cut
etcd_stop

if [ ${#test_dirs[@]} -gt 0 ]; then
	echo "== no room for the next segment"
	rm -rf "$dir/data"
	# Leave 100 MiB, reserved blocks included (root may use them): room
	# for the first segment, not for the one made ahead.
	fallocate -l "$(python3 -c 'import os, sys; s = os.statvfs(sys.argv[1]); print(s.f_bfree * s.f_frsize - (100 << 20))' "$dir")" "$dir/fill"
	etcd_start "$etcd_bin/etcd" "$dir/data" "$dir/enospc.log"
	"$etcd_bin/etcd-load" put -endpoint "$etcd_url" -log "$dir/acked-e.log" -count 10 >/dev/null
	grep 'failed to preallocate space when creating a new WAL' "$dir/enospc.log" |
		grep -q 'no space left on device' || { echo "no ENOSPC from the pipeline" >&2; exit 1; }
	"$etcd_bin/etcd-load" check -endpoint "$etcd_url" -log "$dir/acked-e.log"
	etcd_stop
fi
echo "etcd: all passed in ${SECONDS}s"
