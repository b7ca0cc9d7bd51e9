#!/bin/bash
# SPDX-License-Identifier: MIT
# pg_prealloc under pgbench (issue 27; results in RESULTS.md).  Root, with
# postgresql-15 and a build of pg_prealloc.  Not run by `meson test`.
#
# Each run: a fresh direct-I/O loop filesystem and initdb, max_wal_size=16GB,
# checkpoint_timeout=30min, synchronous_commit=on; `pgbench -i -s SCALE`
# (timed), then `pgbench -c 8 -j 2 -T SECONDS -M prepared -l` with
# pg_stat_activity sampled every ~10 ms for WALInitWrite/WALInitSync.
# Arms (each also with wal_recycle=off where it says norecycle):
#   stock, stock-norecycle, initzero-off (wal_init_zero=off, wal_recycle=off),
#   ceiling (the next 100 segments zero-filled by hand before -i and before
#   the run, wal_recycle=off), prealloc, prealloc-norecycle.
# Workloads: tpcb (built-in), walheavy (50 rows of 2 KiB hex per
# transaction).  Runs alternate arms; the report gives medians, and ratios to
# stock with the same recycling (prealloc to stock; the rest to
# stock-norecycle).
#
# usage: pg-bench.sh BUILD_DIR OUT_DIR
#   env: FS="ext4 xfs" RUNS=5 SECONDS_RUN=120 SCALE=50 ARMS="..." WORKLOADS="..."
#        IMG_MB=16384
set -euo pipefail
BUILD=$(realpath "$1") OUT=$(realpath -m "$2")
ROOT=$(dirname "$(realpath "$0")")/../..
PG_BINDIR=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
PGP_MODULE=$BUILD/examples/postgresql/pg_prealloc.so
PGP_SQL=$ROOT/examples/postgresql/pg_prealloc--1.0.sql
FS=${FS:-ext4 xfs} RUNS=${RUNS:-5} SECONDS_RUN=${SECONDS_RUN:-120} SCALE=${SCALE:-50}
ARMS=${ARMS:-stock stock-norecycle initzero-off ceiling prealloc prealloc-norecycle}
WORKLOADS=${WORKLOADS:-tpcb walheavy} IMG_MB=${IMG_MB:-16384}
[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 1; }
[ -f "$PGP_MODULE" ] || { echo "no $PGP_MODULE" >&2; exit 1; }
if [ -z "${PGP_NS:-}" ]; then
	exec env PGP_NS=1 unshare -m --propagation private "$0" "$@"
fi
. "$ROOT/examples/postgresql/tests/cluster.sh"
mkdir -p "$OUT"
P=5432 DIRECT=1

configure() {	# ARM
	local conf=$WORK/mnt/db/postgresql.conf
	cat >> "$conf" <<CONF
max_wal_size = 16GB
synchronous_commit = on
CONF
	case $1 in *norecycle | initzero-off | ceiling) echo "wal_recycle = off" >> "$conf" ;; esac
	case $1 in initzero-off) echo "wal_init_zero = off" >> "$conf" ;; esac
	case $1 in prealloc*) with_module db ;; esac
}

# The next 100 segments of the current timeline, zero-filled and fsync'ed
# by hand with the server stopped.
handmade() {
	local redo tli seg i name
	redo=$(pg pg_controldata "$WORK/mnt/db" | sed -n "s/^Latest checkpoint's REDO WAL file: *//p")
	tli=${redo:0:8} seg=$((16#${redo:8:16}))
	for i in $(seq 1 100); do
		name=$(printf '%s%08X%08X' "$tli" $(((seg + i) >> 32)) $(((seg + i) & 0xFFFFFFFF)))
		[ -e "$WORK/mnt/db/pg_wal/$name" ] && continue
		dd if=/dev/zero of="$WORK/mnt/db/pg_wal/$name" bs=1M count=16 conv=fsync status=none
		chown postgres: "$WORK/mnt/db/pg_wal/$name"
		chmod 600 "$WORK/mnt/db/pg_wal/$name"
	done
}

warm() {	# ARM: what the arm does before a timed phase
	case $1 in
	ceiling) stop db; handmade; start db ;;
	prealloc*) until_true $P "SELECT present_ahead = segments_ahead FROM pg_prealloc" ;;
	esac
}

one_run() {	# FS ARM WORKLOAD RUN
	local fs=$1 arm=$2 wl=$3 run=$4 t0 t1 samples script=() res
	WORK=$(mktemp -d /tmp/pgp-bench.XXXXXX)
	chmod 755 "$WORK"
	trap cleanup EXIT
	make_fs "$fs" "$IMG_MB"
	new_cluster db $P
	configure "$arm"
	start db
	case $arm in prealloc*) create_ext $P ;; esac
	sampler_setup $P
	walheavy_setup $P
	warm "$arm"
	t0=$(date +%s.%N)
	pg pgbench -i -q -s "$SCALE" -h "$SOCK" -p $P postgres >/dev/null 2>&1
	t1=$(date +%s.%N)
	warm "$arm"
	[ "$wl" = walheavy ] && script=(-f "$WORK/walheavy.sql")
	q $P "SELECT walinit_samples($((SECONDS_RUN * 100)))" > "$WORK/samples" &
	local sampler=$!
	(cd "$LOGS" && pg pgbench -n -c 8 -j 2 -T "$SECONDS_RUN" -M prepared -l \
		-h "$SOCK" -p $P "${script[@]}" postgres > "$WORK/pgbench.out" 2>&1)
	wait $sampler
	samples=$(cat "$WORK/samples")
	res=$(python3 - "$LOGS" "$WORK/pgbench.out" <<'PY'
import glob, re, sys, json
lat = []
for f in glob.glob(sys.argv[1] + '/pgbench_log.*'):
    for line in open(f):
        lat.append(int(line.split()[2]))
lat.sort()
out = open(sys.argv[2]).read()
tps = float(re.search(r'tps = ([0-9.]+)', out).group(1))
pct = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] / 1000.0 if lat else 0
print(json.dumps({'tps': tps, 'p50': pct(.5), 'p99': pct(.99), 'p999': pct(.999),
                  'max': lat[-1] / 1000.0 if lat else 0}))
PY
)
	echo "{\"fs\": \"$fs\", \"arm\": \"$arm\", \"workload\": \"$wl\", \"run\": $run," \
	     "\"init_s\": $(awk "BEGIN { print $t1 - $t0 }"), \"walinit_samples\": $samples, \"r\": $res}" \
		>> "$OUT/pg-bench.jsonl"
	cleanup
}

for fs in $FS; do
	for wl in $WORKLOADS; do
		for run in $(seq "$RUNS"); do
			for arm in $ARMS; do	# alternating: one of each arm per round
				echo "$fs $wl run $run: $arm" >&2
				one_run "$fs" "$arm" "$wl" "$run"
			done
		done
	done
done

# Medians per (fs, workload, arm), ratios to stock with the same recycling.
python3 - "$OUT/pg-bench.jsonl" > "$OUT/pg-bench.md" <<'PY'
import json, sys, statistics as st
rows = [json.loads(l) for l in open(sys.argv[1])]
key = lambda r: (r['fs'], r['workload'], r['arm'])
groups = {}
for r in rows:
    groups.setdefault(key(r), []).append(r)
med = lambda g, f: st.median(f(r) for r in g)
def base(arm):
    return 'stock' if arm in ('stock', 'prealloc') else 'stock-norecycle'
print('| fs | workload | arm | runs | init s | tps | tps / stock | p50 ms | p99 ms | p99.9 ms | max ms | max / stock | WALInit samples |')
print('|---|---|---|---|---|---|---|---|---|---|---|---|---|')
for (fs, wl, arm), g in sorted(groups.items()):
    b = groups.get((fs, wl, base(arm)), g)
    tps, btps = med(g, lambda r: r['r']['tps']), med(b, lambda r: r['r']['tps'])
    mx, bmx = med(g, lambda r: r['r']['max']), med(b, lambda r: r['r']['max'])
    print(f"| {fs} | {wl} | {arm} | {len(g)} | {med(g, lambda r: r['init_s']):.1f} | {tps:.0f} | "
          f"{tps / btps:.2f} | {med(g, lambda r: r['r']['p50']):.2f} | {med(g, lambda r: r['r']['p99']):.2f} | "
          f"{med(g, lambda r: r['r']['p999']):.2f} | {mx:.1f} | {mx / bmx:.2f} | "
          f"{med(g, lambda r: r['walinit_samples']):.0f} |")
PY
cat "$OUT/pg-bench.md"
