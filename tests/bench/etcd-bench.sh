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
# usage: tests/bench/etcd-bench.sh BUILD_DIR
#   PREALLOC_ETCD_BENCH_ROUNDS (7), PREALLOC_ETCD_BENCH_LOADS ("seq s l"),
#   PREALLOC_ETCD_BENCH_FS ("ext4 xfs"), PREALLOC_ETCD_BENCH_PUTS (3200),
#   PREALLOC_ETCD_BENCH_VALUE (65536).  Raw lines go to stderr.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
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
	python3 "$scratch/summary.py" run "${dir##*/}" "$round" "$variant" "$load" \
		"$((segs - 1))" "$out" <"$scratch/metrics"
}

cat >"$scratch/summary.py" <<'PY'
import json, re, statistics, sys
from collections import defaultdict

def quantile(q, buckets):
    """histogram_quantile: linear inside the bucket holding the q-th rank."""
    buckets = sorted(buckets)
    total = buckets[-1][1]
    if total == 0:
        return float("nan")
    rank, lo, below = q * total, 0.0, 0.0
    for le, count in buckets:
        if count >= rank:
            if le == float("inf"):
                return lo
            return lo + (le - lo) * (rank - below) / max(count - below, 1e-12)
        lo, below = le, count
    return lo

def histogram(text, name, match=""):
    b = defaultdict(float)
    for line in text.splitlines():
        if line.startswith(name + "_bucket{") and match in line:
            le = re.search(r'le="([^"]+)"', line).group(1)
            b[float(le)] += float(line.rsplit(" ", 1)[1])
    return list(b.items())

def run(fs, rnd, variant, load, segs, out):
    text = sys.stdin.read()
    fsync = histogram(text, "etcd_disk_wal_fsync_duration_seconds")
    r = {"fs": fs, "round": int(rnd), "variant": variant, "load": load,
         "segments": int(segs),
         "fsync_p50_ms": quantile(0.50, fsync) * 1e3,
         "fsync_p99_ms": quantile(0.99, fsync) * 1e3}
    if load == "seq":
        o = json.loads(out)
        r.update(puts_per_s=o["puts_per_s"], put_p99_ms=o["p99_ms"])
    else:
        m = re.search(r"Throughput[^0-9]*([0-9]+) writes/s", out)
        r["puts_per_s"] = float(m.group(1)) if m else float("nan")
        put = histogram(text, "grpc_server_handling_seconds", 'grpc_method="Put"')
        r["put_p99_ms"] = quantile(0.99, put) * 1e3 if put else float("nan")
        r["check_perf"] = out.strip()
    print(json.dumps(r))

def summary(path):
    runs = [json.loads(l) for l in open(path)]
    by = defaultdict(dict)
    for r in runs:
        by[r["fs"], r["load"], r["round"]][r["variant"]] = r
    keys = ["puts_per_s", "put_p99_ms", "fsync_p50_ms", "fsync_p99_ms"]
    def q(xs):
        qs = statistics.quantiles(xs, n=4, method="inclusive")
        return f"{statistics.median(xs):.2f} [{qs[0]:.2f}, {qs[2]:.2f}]"
    print("| fs | load | rounds | segments cut (stock / patched) | puts/s stock / patched | put p99 ms | WAL fsync p50 ms | WAL fsync p99 ms |")
    print("|---|---|---|---|---|---|---|---|")
    groups = sorted({(f, l) for f, l, _ in by})
    for f, l in groups:
        pairs = [v for (ff, ll, _), v in sorted(by.items()) if (ff, ll) == (f, l) and len(v) == 2]
        med = lambda var, k: statistics.median(p[var][k] for p in pairs)
        cells = [f"{med('stock', k):.2f} / {med('patched', k):.2f}" for k in keys]
        print(f"| {f} | {l} | {len(pairs)} | {med('stock', 'segments'):.0f} / {med('patched', 'segments'):.0f} | " + " | ".join(cells) + " |")
    print("\nRatios patched / stock, per round, median [IQR]:\n")
    print("| fs | load | puts/s | put p99 | WAL fsync p50 | WAL fsync p99 |")
    print("|---|---|---|---|---|---|")
    for f, l in groups:
        pairs = [v for (ff, ll, _), v in sorted(by.items()) if (ff, ll) == (f, l) and len(v) == 2]
        cells = [q([p["patched"][k] / p["stock"][k] for p in pairs]) for k in keys]
        print(f"| {f} | {l} | " + " | ".join(cells) + " |")

if sys.argv[1] == "run":
    run(*sys.argv[2:])
else:
    summary(sys.argv[2])
PY

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
python3 "$scratch/summary.py" summary "$raw"
