#!/bin/bash
# etcd v3.7.3 stock against etcd built with libprealloc (examples/etcd),
# on ext4 and xfs on direct-I/O loop devices (root).  Each run starts a
# fresh member (--metrics extensive) on an empty data directory and puts
# one load:
#   seq  one clientv3 client putting PREALLOC_ETCD_BENCH_PUTS values of
#        PREALLOC_ETCD_BENCH_VALUE bytes in sequence (etcd-load put); the
#        default 3200 x 64 KiB crosses 3 segment boundaries;
#   s, l etcdctl check perf --load s|l (60 s each, etcd's own check).
# For each run: puts per second (etcd-load's, or the throughput check perf
# prints), put latency p99 (etcd-load's, exact; for check perf the server's
# grpc_server_handling_seconds for Put), etcd_disk_wal_fsync_duration_seconds
# p50/p99 from /metrics, and the segments cut.  Histogram quantiles are
# interpolated linearly inside their bucket, as Prometheus'
# histogram_quantile does.  Stock and patched alternate, who goes first
# swapping every round; prints markdown tables of medians and of the
# median [IQR] of per-round ratios (patched / stock).
#
# usage: examples/etcd/bench/etcd-bench.sh BUILD_DIR
#   PREALLOC_ETCD_BENCH_ROUNDS (7), PREALLOC_ETCD_BENCH_LOADS ("seq s l"),
#   PREALLOC_ETCD_BENCH_FS ("ext4 xfs"), PREALLOC_ETCD_BENCH_PUTS (3200),
#   PREALLOC_ETCD_BENCH_VALUE (65536).  Raw lines go to stderr.
set -euo pipefail
src=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=bindings/lib.sh
. "$src/bindings/lib.sh"
# shellcheck source=examples/etcd/lib.sh
. "$src/examples/etcd/lib.sh"
[ "$(id -u)" = 0 ] || { echo "etcd-bench.sh: needs root (loop devices)" >&2; exit 77; }
go_usable || { echo "etcd-bench.sh: needs Go 1.26 or later" >&2; exit 77; }
reexec_private "$0" "$@"
build=$(cd "${1:-$src/build}" && pwd)
rounds=${PREALLOC_ETCD_BENCH_ROUNDS:-7}
read -r -a loads <<<"${PREALLOC_ETCD_BENCH_LOADS:-seq s l}"
read -r -a fss <<<"${PREALLOC_ETCD_BENCH_FS:-ext4 xfs}"
puts=${PREALLOC_ETCD_BENCH_PUTS:-3200}
vsize=${PREALLOC_ETCD_BENCH_VALUE:-65536}

scratch=$(mktemp -d /tmp/prealloc-etcd-bench-XXXXXX)
etcd_pid=
trap 'etcd_kill 2>/dev/null; unmount_loops; rm -rf "$scratch"' EXIT
etcd_build "$build" etcd etcd-stock tools etcdctl
PREALLOC_LOOP_MIB=2048 PREALLOC_LOOP_FILL=1 mount_loops "$scratch" "${fss[@]}"
[ ${#test_dirs[@]} = ${#fss[@]} ] || { echo "could not mount ${fss[*]}" >&2; exit 1; }

# The figures and the report: tests/bench/preallocbench/etcd.py.
bench_py() { PYTHONPATH="$src/tests/bench" python3 -m preallocbench.etcd "$@"; }

# one_run DIR VARIANT LOAD: a fresh member, the load, its metrics; prints
# the run's line for the summary.
one_run() {
	local dir=$1 variant=$2 load=$3 bin=$etcd_bin/etcd out segs
	[ "$variant" = stock ] && bin=$etcd_bin/etcd-stock
	rm -rf "$dir/data"
	sync -f "$dir"
	etcd_start "$bin" "$dir/data" "$dir/etcd-$variant.log" --metrics extensive
	case $load in
	seq)
		out=$("$etcd_bin/etcd-load" put -endpoint "$etcd_url" -log "$dir/acked.log" \
			-count "$puts" -value-size "$vsize" -wal-dir "$dir/data/member/wal")
		rm -f "$dir/acked.log"
		;;
	*)
		# Its verdict lines follow a progress bar; exit 1 is a failed
		# check (too slow for the load), not a failed run.
		out=$("$etcd_bin/etcdctl" --endpoints "$etcd_url" check perf --load "$load" 2>&1 |
			tr '\n' ' ' | grep -oE '(PASS|FAIL): .*') || true
		;;
	esac
	segs=$(find "$dir/data/member/wal" -name '*.wal' | wc -l)
	curl -sf "$etcd_metrics" >"$scratch/metrics"
	etcd_stop
	bench_py run "${dir##*/}" "$round" "$variant" "$load" \
		"$((segs - 1))" "$out" <"$scratch/metrics"
}

raw=$scratch/raw.jsonl
: >"$raw"
for ((round = 0; round < rounds; round++)); do
	variants=(stock patched)
	((round % 2 == 0)) || variants=(patched stock)
	for dir in "${test_dirs[@]}"; do
		for load in "${loads[@]}"; do
			for variant in "${variants[@]}"; do
				one_run "$dir" "$variant" "$load" | tee -a "$raw" >&2
			done
		done
	done
done
echo "$rounds alternating rounds; seq: $puts puts of $vsize bytes from one client."
echo "Quantiles of histograms interpolated linearly within the bucket."
echo
bench_py report "$raw"
