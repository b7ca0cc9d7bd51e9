#!/bin/bash
# Debian's etcd-server (/usr/bin/etcd, unchanged) bare against the same
# binary under `prealloc exec` with the options of the shipped drop-in
# (examples/exec/etcd.conf; Go: the seccomp supervisor converts its mode-0
# fallocate() of each 64 MB WAL segment into written extents), on ext4 on a
# direct-I/O loop device (root).  Each run starts a fresh member
# (--metrics extensive --logger zap) on an empty data directory and puts
# PREALLOC_EXEC_BENCH_PUTS values of PREALLOC_EXEC_BENCH_VALUE bytes in
# sequence from one client (etcd-load put; the default 3200 x 64 KiB
# crosses 3 segment boundaries).  Per run: puts/s (etcd-load's),
# etcd_disk_wal_fsync_duration_seconds p50/p99 from /metrics (interpolated
# inside the bucket, as Prometheus' histogram_quantile:
# preallocbench/etcd.py), the segments cut, and for the exec arm the calls
# the supervisor converted and their time (--log).  The arms alternate,
# who goes first swapping every round; prints a markdown table of medians
# and of the median [IQR] of per-round ratios exec / stock.
#
# usage: examples/etcd/bench/exec-bench.sh BUILD_DIR [RAW.jsonl]
#   PREALLOC_EXEC_BENCH_ROUNDS (7), PREALLOC_EXEC_BENCH_PUTS (3200),
#   PREALLOC_EXEC_BENCH_VALUE (65536), PREALLOC_EXEC_BENCH_PERF=1 also
#   counts, system-wide during the load, jbd2 commits and ext4's
#   conversions of unwritten extents (perf stat on tracepoints).
#   Raw lines go to stderr and, if given, RAW.jsonl.
set -euo pipefail
src=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=bindings/lib.sh
. "$src/bindings/lib.sh"
# shellcheck source=examples/etcd/lib.sh
. "$src/examples/etcd/lib.sh"
# shellcheck source=examples/exec/dropin.sh
. "$src/examples/exec/dropin.sh"
dropin_options "$src/examples/exec/etcd.conf"
stock=/usr/bin/etcd
[ "$(id -u)" = 0 ] || { echo "exec-bench.sh: needs root (loop devices)" >&2; exit 77; }
[ -x "$stock" ] || { echo "exec-bench.sh: etcd-server not installed" >&2; exit 77; }
go_usable || { echo "exec-bench.sh: needs Go 1.26 or later (the load tool)" >&2; exit 77; }
reexec_private "$0" "$@"
build=$(cd "${1:-$src/build}" && pwd)
rawout=${2:-}
rounds=${PREALLOC_EXEC_BENCH_ROUNDS:-7}
puts=${PREALLOC_EXEC_BENCH_PUTS:-3200}
vsize=${PREALLOC_EXEC_BENCH_VALUE:-65536}
perf=${PREALLOC_EXEC_BENCH_PERF:-}

scratch=$(mktemp -d /tmp/prealloc-exec-etcd-bench-XXXXXX)
etcd_pid= exec_pid=
trap 'etcd_kill 2>/dev/null; unmount_loops; rm -rf "$scratch"' EXIT
etcd_build "$build" tools
PREALLOC_LOOP_MIB=2048 PREALLOC_LOOP_FILL=1 mount_loops "$scratch" ext4
[ ${#test_dirs[@]} = 1 ] || { echo "could not mount ext4" >&2; exit 1; }
dir=${test_dirs[0]}

# The exec arm: the stock binary with prealloc exec in front, as the
# drop-in starts it.
cat >"$scratch/etcd-exec" <<WRAP
#!/bin/sh
exec "$prealloc_tool" exec $(printf '%q ' "${dropin_opts[@]}")--quiet --log "$scratch/exec.log" -- "$stock" "\$@"
WRAP
chmod +x "$scratch/etcd-exec"

# figures VARIANT SEGMENTS LOAD_OUTPUT PERF_FILE: the run's JSON line.
figures() {
	PYTHONPATH="$src/tests/bench" python3 - "$round" "$@" "$scratch/exec.log" \
		"$scratch/metrics" <<'PY'
import json, sys
from preallocbench.etcd import histogram, quantile
rnd, variant, segs, out, perf, log, metrics = sys.argv[1:]
text = open(metrics).read()
fsync = histogram(text, "etcd_disk_wal_fsync_duration_seconds")
count = max(c for _, c in fsync)
o = json.loads(out)
r = {"round": int(rnd), "variant": variant, "segments": int(segs),
     "puts_per_s": o["puts_per_s"], "put_p99_ms": o["p99_ms"],
     "fsync_p50_ms": quantile(0.50, fsync) * 1e3,
     "fsync_p99_ms": quantile(0.99, fsync) * 1e3, "fsyncs": int(count)}
if variant == "exec":
    calls = [c for c in map(json.loads, open(log)) if "outcome" in c]
    conv = [c for c in calls if c["outcome"] == "converted"]
    r["exec_calls"] = len(calls)
    r["exec_converted"] = len(conv)
    r["exec_convert_ms"] = sorted(c["elapsed_ns"] / 1e6 for c in conv)
if perf:
    for line in open(perf):
        f = line.split(",")
        if len(f) > 2 and f[0].strip().isdigit():
            r[f[2].split(":")[-1]] = int(f[0])
print(json.dumps(r))
PY
}

# one_run VARIANT: a fresh member, the load, its figures.
one_run() {
	local variant=$1 bin=$stock out segs perfpid=
	[ "$variant" = exec ] && bin=$scratch/etcd-exec
	rm -rf "$dir/data" "$scratch/exec.log" "$scratch/perf"
	sync -f "$dir"
	etcd_start "$bin" "$dir/data" "$dir/etcd-$variant.log" --metrics extensive --logger zap
	if [ -n "$perf" ]; then
		perf stat -a -x, -o "$scratch/perf" -e jbd2:jbd2_start_commit \
			-e ext4:ext4_ext_handle_unwritten_extents -e ext4:ext4_sync_file_enter \
			-e ext4:ext4_fallocate_enter sleep 1000000 2>/dev/null &
		perfpid=$!
	fi
	out=$("$etcd_bin/etcd-load" put -endpoint "$etcd_url" -log "$dir/acked.log" \
		-count "$puts" -value-size "$vsize" -wal-dir "$dir/data/member/wal")
	if [ -n "$perfpid" ]; then
		# perf stat writes its counts when the command it runs is killed.
		pkill -INT -P "$perfpid" -x sleep || true
		wait "$perfpid" || true
	fi
	rm -f "$dir/acked.log"
	segs=$(find "$dir/data/member/wal" -name '*.wal' | wc -l)
	curl -sf "$etcd_metrics" >"$scratch/metrics"
	etcd_stop
	figures "$variant" "$((segs - 1))" "$out" "${perfpid:+$scratch/perf}"
}

raw=$scratch/raw.jsonl
: >"$raw"
for ((round = 0; round < rounds; round++)); do
	variants=(stock exec)
	((round % 2 == 0)) || variants=(exec stock)
	for variant in "${variants[@]}"; do
		one_run "$variant" | tee -a "$raw" >&2
	done
done
[ -z "$rawout" ] || cp "$raw" "$rawout"

echo "$("$stock" --version | head -n1), ext4 on a direct-I/O loop device; $rounds alternating rounds;"
echo "$puts puts of $vsize bytes from one client.  Quantiles of histograms interpolated linearly within the bucket."
echo
PYTHONPATH="$src/tests/bench" python3 - "$raw" <<'PY'
import json, statistics, sys
from preallocbench.stats import ab_table, round_pairs
pairs = round_pairs([json.loads(line) for line in open(sys.argv[1])], "variant", "stock", "exec")
f2, f0 = "{:.2f}".format, "{:.0f}".format
print(ab_table(pairs, "stock", "exec", [
    ("puts_per_s", "puts/s", f2, True), ("put_p99_ms", "put p99 ms", f2, True),
    ("fsync_p50_ms", "WAL fsync p50 ms", f2, True), ("fsync_p99_ms", "WAL fsync p99 ms", f2, True),
    ("segments", "segments cut", f0, False), ("fsyncs", "WAL fsyncs", f0, False)]))
conv = [ms for p in pairs for ms in p["exec"]["exec_convert_ms"]]
if conv:
    print(f"\nexec arm: {statistics.median(p['exec']['exec_converted'] for p in pairs):.0f} "
          f"calls converted per run (median), each taking {statistics.median(conv):.1f} ms "
          f"median, {max(conv):.1f} ms max ({len(conv)} calls in all).")
PY
