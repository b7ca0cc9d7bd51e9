#!/bin/bash
# Crash rounds of etcd built with libprealloc, run by hand (root): on each
# filesystem (a direct-I/O loop device), ROUNDS rounds alternating kill -9
# mid-load (after a random number of acknowledged puts from 1-4 clients)
# and right after a segment cut; after each kill the segments must be fully
# written and etcd-verify pass before the restart (WAL CRCs and snapshot
# entry by wal.Verify, every segment's tail zero after its last record,
# bbolt's check of the backend), and after it every acknowledged put must
# read back with its revision (lib.sh, crash_round).  Seeded: the same SEED
# draws the same clients and kill points.
#
# usage: examples/etcd/tests/etcd-crash.sh BUILD_DIR [ROUNDS [SEED [FS...]]]
#   ROUNDS 20, SEED 1, FS ext4 xfs.  Prints one line per round and
#   "crash: N rounds, 0 acknowledged puts lost" at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bindings/lib.sh
. "$here/../../bindings/lib.sh"
# shellcheck source=examples/etcd/lib.sh
. "$here/lib.sh"
[ "$(id -u)" = 0 ] || { echo "etcd-crash.sh: needs root (loop devices)" >&2; exit 77; }
go_usable || { echo "etcd-crash.sh: needs Go 1.26 or later" >&2; exit 77; }
reexec_private "$0" "$@"
build=$(cd "$1" && pwd)
rounds=${2:-20}
seed=${3:-1}
shift $(($# < 3 ? $# : 3))
fss=("$@")
[ ${#fss[@]} -gt 0 ] || fss=(ext4 xfs)

scratch=$(mktemp -d /tmp/prealloc-etcd-crash-XXXXXX)
etcd_pid=
trap 'etcd_kill 2>/dev/null; unmount_loops; rm -rf "$scratch"' EXIT
etcd_build "$build" etcd tools
PREALLOC_LOOP_MIB=1536 mount_loops "$scratch" "${fss[@]}"
[ ${#test_dirs[@]} = ${#fss[@]} ] || { echo "could not mount ${fss[*]}" >&2; exit 1; }

etcd_args=(--snapshot-count 1000)
total=0
for dir in "${test_dirs[@]}"; do
	RANDOM=$seed
	echo "== ${dir##*/}, seed $seed"
	etcd_start "$etcd_bin/etcd" "$dir/data" "$dir/etcd.log" "${etcd_args[@]}"
	for ((r = 1; r <= rounds; r++)); do
		modes=(load cut)
		crash_round "$dir" "$r" "${modes[r % 2]}"
		total=$((total + 1))
	done
	etcd_stop
done
echo "crash: $total rounds, 0 acknowledged puts lost"
