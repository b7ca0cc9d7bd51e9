#!/bin/bash
# The bindings' segment benchmark against today's calls: Rust
# (bindings/rust/bench: fs4's allocate vs prealloc::file) and Go
# (bindings/go/bench, testing.B: etcd's fileutil.Preallocate vs
# prealloc.Preallocate), on loop-mounted ext4 and xfs.  Root only; never
# run by the tests.  Then the bindings' own cost: a 1 GiB file made by the
# C tool, the Rust example and the Go command, timed as whole processes.
# Methods alternate within each round; prints markdown tables of medians
# and interquartile ranges of per-round ratios.
#
# usage: bindings/bench.sh [BUILD_DIR]
#   PREALLOC_BENCH_ROUNDS (5), PREALLOC_BENCH_WRITES (1000 per round),
#   PREALLOC_BENCH_SEGMENT (67108864 bytes), PREALLOC_BENCH_BIG (1073741824
#   bytes), PREALLOC_BENCH_BIG_ROUNDS (9)
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
big=${PREALLOC_BENCH_BIG:-1073741824}
big_rounds=${PREALLOC_BENCH_BIG_ROUNDS:-9}

stage=$(mktemp -d /tmp/prealloc-bench-XXXXXX)
trap 'unmount_loops; rm -rf "$stage"' EXIT
stage_install "$build" "$stage"
PREALLOC_LOOP_MIB=$((2 * big / 1048576 + 512)) PREALLOC_LOOP_FILL=1 mount_loops "$stage" ext4 xfs
export CARGO_TARGET_DIR=$build/bindings/cargo-target-bench

(cd "$src/bindings/rust/bench" && cargo bench -q --no-run)
(cd "$src/bindings/go/bench" && go test -c -o "$stage/gobench" .)
(cd "$src/bindings/rust" && cargo build -q --release --example wal_segment)
(cd "$src/bindings/go" && go build -o "$stage/wal-segment" ./cmd/wal-segment)
tool=$(find "$stage/root" -path '*/bin/prealloc' -type f | head -n1)
[ -x "$tool" ] || { echo "bench.sh: no prealloc tool in the staged install" >&2; exit 1; }

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
: >"$raw"
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

# The same 1 GiB call through each language, whole processes, a fresh
# file every time (removed and synced away outside the timing).  The arms:
# language -> its command, %s standing for the file's path (paths without
# blanks: the stage's and the mounts').
declare -A big_arm=(
	[c]="$tool run --length $big %s"
	[rust]="$CARGO_TARGET_DIR/release/examples/wal_segment %s $big"
	[go]="$stage/wal-segment %s $big"
)
langs=(c rust go)	# the order they take turns in
one_big() { # LANG PATH
	local cmd
	# shellcheck disable=SC2059
	read -ra cmd <<<"$(printf "${big_arm[$1]}" "$2")"
	"${cmd[@]}" >/dev/null
}
big_raw=$stage/big.txt
: >"$big_raw"
for dir in "${test_dirs[@]}"; do
	for ((r = 0; r < big_rounds; r++)); do
		for ((i = 0; i < 3; i++)); do
			lang=${langs[(r + i) % 3]}
			t0=$(date +%s%N)
			one_big "$lang" "$dir/big-$lang"
			t1=$(date +%s%N)
			rm "$dir/big-$lang" && sync -f "$dir"
			echo "${dir##*/} $r $lang $((t1 - t0))" >>"$big_raw"
		done
	done
done

cat "$raw" "$big_raw" >&2	# the raw figures, for the record
python3 - "$raw" "$rounds" "$writes" "$big_raw" "$big" <<'PY'
import statistics, sys
from collections import defaultdict
runs = defaultdict(list)
for line in open(sys.argv[1]):
    lang, fs, method, *kv = line.split()
    vals = dict(x.split("=") for x in kv)
    runs[lang, fs, method].append((float(vals["prepare_ns"]), float(vals["write_sync_ns"])))
def q(xs, d=2):
    qs = statistics.quantiles(xs, n=4, method="inclusive")
    return f"{statistics.median(xs):.{d}f} [{qs[0]:.{d}f}, {qs[2]:.{d}f}]"
if runs:
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

big = defaultdict(dict)
for line in open(sys.argv[4]):
    fs, r, lang, ns = line.split()
    big[fs, r][lang] = int(ns) / 1e6
print(f"\n{int(sys.argv[5]) >> 20} MiB through each language, whole processes; "
      f"ratio = binding's time / C tool's in the same round.\n")
print("| fs | rounds | C tool ms | Rust ms | Go ms | Rust / C, median [IQR] | Go / C, median [IQR] |")
print("|---|---|---|---|---|---|---|")
for fs in sorted({fs for fs, _ in big}):
    rs = [v for (f, _), v in big.items() if f == fs]
    ms = lambda lang: statistics.median(v[lang] for v in rs)
    ratio = lambda lang: q([v[lang] / v["c"] for v in rs], 3)
    print(f"| {fs} | {len(rs)} | {ms('c'):.0f} | {ms('rust'):.0f} | {ms('go'):.0f} "
          f"| {ratio('rust')} | {ratio('go')} |")
PY
