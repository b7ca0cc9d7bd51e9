#!/bin/bash
# The bindings' segment benchmark against today's calls: Rust
# (bindings/rust/bench: fs4's allocate vs prealloc::file) and Go
# (bindings/go/bench, testing.B: etcd's fileutil.Preallocate vs
# prealloc.Preallocate), on loop-mounted ext4 and xfs.  Root only; never
# run by the tests.  Methods alternate within each round; prints a
# markdown table of medians and interquartile ranges of per-round ratios.
#
# usage: bindings/bench.sh [BUILD_DIR]
#   PREALLOC_BENCH_ROUNDS (5), PREALLOC_BENCH_WRITES (1000 per round),
#   PREALLOC_BENCH_SEGMENT (67108864 bytes)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bindings/lib.sh
. "$src/bindings/lib.sh"
[ "$(id -u)" = 0 ] || { echo "bench.sh: needs root (loop devices)" >&2; exit 77; }
reexec_private "$0" "$@"
build=$(cd "${1:-$src/build}" && pwd)
rounds=${PREALLOC_BENCH_ROUNDS:-5}
writes=${PREALLOC_BENCH_WRITES:-1000}
export PREALLOC_BENCH_SEGMENT=${PREALLOC_BENCH_SEGMENT:-67108864}

stage=$(mktemp -d /tmp/prealloc-bench-XXXXXX)
trap 'unmount_loops; rm -rf "$stage"' EXIT
stage_install "$build" "$stage"
mount_loops "$stage" ext4 xfs
export CARGO_TARGET_DIR=$build/bindings/cargo-target-bench

(cd "$src/bindings/rust/bench" && cargo bench -q --no-run)
(cd "$src/bindings/go/bench" && go test -c -o "$stage/gobench" .)

rust_round() { # METHOD DIR
	(cd "$src/bindings/rust/bench" &&
		cargo bench -q --bench segment -- "$1" "$2" "$PREALLOC_BENCH_SEGMENT" "$writes")
}

go_round() { # METHOD DIR
	local prep ws
	prep=$(PREALLOC_BENCH_DIR=$2 "$stage/gobench" -test.run '^$' \
		-test.bench "^BenchmarkPrepare/$1\$" -test.benchtime 3x | awk '/ns\/op/ { print $3 }')
	ws=$(PREALLOC_BENCH_DIR=$2 "$stage/gobench" -test.run '^$' \
		-test.bench "^BenchmarkWriteSync/$1\$" -test.benchtime "${writes}x" | awk '/ns\/op/ { print $3 }')
	echo "prepare_ns=$prep write_sync_ns=$ws"
}

raw=$stage/raw.txt
for dir in "${test_dirs[@]}"; do
	fs=${dir##*/}
	for ((r = 0; r < rounds; r++)); do
		# Who goes first swaps every round, so neither inherits the
		# other's writeback more often.
		rust=(fs4 prealloc) go=(etcd prealloc)
		((r % 2 == 0)) || rust=(prealloc fs4) go=(prealloc etcd)
		for m in "${rust[@]}"; do echo "rust $fs $m $(rust_round $m "$dir")" >>"$raw"; done
		for m in "${go[@]}"; do echo "go $fs $m $(go_round $m "$dir")" >>"$raw"; done
	done
done

python3 - "$raw" "$rounds" "$writes" <<'PY'
import statistics, sys
from collections import defaultdict
runs = defaultdict(list)
for line in open(sys.argv[1]):
    lang, fs, method, *kv = line.split()
    vals = dict(x.split("=") for x in kv)
    runs[lang, fs, method].append((float(vals["prepare_ns"]), float(vals["write_sync_ns"])))
def q(xs):
    qs = statistics.quantiles(xs, n=4, method="inclusive")
    return f"{statistics.median(xs):.2f} [{qs[0]:.2f}, {qs[2]:.2f}]"
print(f"{sys.argv[2]} alternating rounds; {sys.argv[3]} synced 4 KiB writes per round.\n")
print("| lang | fs | baseline | prepare ms: baseline / binding | write+sync per s: baseline / binding | write+sync rate ratio (binding/baseline), median [IQR] |")
print("|---|---|---|---|---|---|")
for (lang, fs, method), base in sorted(runs.items()):
    if method == "prealloc":
        continue
    mine = runs[lang, fs, "prealloc"]
    prep = lambda rs: statistics.median(r[0] for r in rs) / 1e6
    rate = lambda rs: statistics.median(1e9 / r[1] for r in rs)
    ratios = [b[1] / m[1] for b, m in zip(base, mine)]
    print(f"| {lang} | {fs} | {method} | {prep(base):.2f} / {prep(mine):.1f} "
          f"| {rate(base):.0f} / {rate(mine):.0f} | {q(ratios)} |")
PY
