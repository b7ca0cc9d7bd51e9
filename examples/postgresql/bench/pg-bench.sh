#!/bin/bash
# SPDX-License-Identifier: MIT
# pg_prealloc under pgbench (issue 27; results in RESULTS.md).  Root, with
# postgresql-15 and a build of pg_prealloc.  Not run by `meson test`.
#
# Each run: a fresh direct-I/O loop filesystem and initdb, max_wal_size=16GB,
# checkpoint_timeout=30min, synchronous_commit=on; `pgbench -i -s SCALE`
# (timed), then `pgbench -c 8 -j 2 -T SECONDS -M prepared -l` with the
# active client backends' wait events sampled every ~10 ms from
# pg_stat_activity ("CPU" when none), the machine's CPU busy share from
# /proc/stat and the pg_prealloc worker's CPU time over the run.
# Arms (each also with wal_recycle=off where it says norecycle):
#   stock, stock-norecycle, initzero-off (wal_init_zero=off, wal_recycle=off),
#   ceiling (the next 100 segments zero-filled by hand before -i and before
#   the run, wal_recycle=off), prealloc, prealloc-norecycle, and
#   prealloc2-norecycle (pg_prealloc.segments_ahead = 2: installed only as
#   far ahead as PostgreSQL itself goes, the rest kept ready in the pool).
# Workloads: tpcb (built-in), walheavy (50 rows of 2 KiB hex per
# transaction).  Runs alternate arms; the report gives medians, and ratios to
# stock with the same recycling (prealloc to stock; the rest to
# stock-norecycle).
#
# usage: pg-bench.sh BUILD_DIR OUT_DIR
#   env: FS="ext4 xfs" RUNS=5 SECONDS_RUN=120 SCALE=50 ARMS="..." WORKLOADS="..."
#        IMG_MB=16384; ARMS_TPCB, ARMS_WALHEAVY: the arms of one workload
#        (default ARMS), to bound the matrix
set -euo pipefail
BUILD=$(realpath "$1") OUT=$(realpath -m "$2")
ROOT=$(dirname "$(realpath "$0")")/../../..
PG_BINDIR=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
PGP_MODULE=$BUILD/examples/postgresql/pg_prealloc.so
PGP_SQL=$ROOT/examples/postgresql/pg_prealloc--1.0.sql
FS=${FS:-ext4 xfs} RUNS=${RUNS:-5} SECONDS_RUN=${SECONDS_RUN:-120} SCALE=${SCALE:-50}
ARMS=${ARMS:-stock stock-norecycle initzero-off ceiling prealloc prealloc-norecycle}
WORKLOADS=${WORKLOADS:-tpcb walheavy} IMG_MB=${IMG_MB:-16384}
ARMS_TPCB=${ARMS_TPCB:-$ARMS} ARMS_WALHEAVY=${ARMS_WALHEAVY:-$ARMS}
[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 1; }
[ -f "$PGP_MODULE" ] || { echo "no $PGP_MODULE" >&2; exit 1; }
if [ -z "${PGP_NS:-}" ]; then
	exec env PGP_NS=1 unshare -m --propagation private "$0" "$@"
fi
. "$ROOT/examples/postgresql/tests/cluster.sh"
mkdir -p "$OUT"
P=5432 DIRECT=1

# The benchmarks' Python package (tests/bench/preallocbench): MODULE ARGS...
bench_py() { PYTHONPATH="$ROOT/tests/bench" python3 -m "preallocbench.$1" "${@:2}"; }

# Wait events of the active client backends in N samples ~10 ms apart, as
# a JSON object of counts ("CPU": running, no wait event).
wait_sampler_setup() {
	q "$1" "CREATE OR REPLACE FUNCTION wait_samples(n int) RETURNS json AS \$\$
BEGIN
	CREATE TEMP TABLE IF NOT EXISTS ws (ev text);
	FOR i IN 1..n LOOP
		PERFORM pg_stat_clear_snapshot();
		INSERT INTO ws SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU')
		  FROM pg_stat_activity
		 WHERE backend_type = 'client backend' AND state = 'active' AND pid <> pg_backend_pid();
		PERFORM pg_sleep(0.01);
	END LOOP;
	RETURN coalesce((SELECT json_object_agg(ev, c) FROM (SELECT ev, count(*) c FROM ws GROUP BY ev) s), '{}');
END \$\$ LANGUAGE plpgsql"
}

# busy and total jiffies of all CPUs
cpu_jiffies() { awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; print t - $5 - $6, t }' /proc/stat; }

# utime + stime of the pg_prealloc worker, its threads included (0 without
# one), in jiffies; it has no database connection, so it is found by title.
worker_jiffies() {
	local pid
	pid=$(pgrep -u postgres -f 'pg_prealloc worker' | head -n1 || true)
	[ -n "$pid" ] && awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0
}

configure() {	# ARM
	local conf=$WORK/mnt/db/postgresql.conf
	cat >> "$conf" <<CONF
max_wal_size = 16GB
synchronous_commit = on
CONF
	case $1 in *norecycle | initzero-off | ceiling) echo "wal_recycle = off" >> "$conf" ;; esac
	case $1 in initzero-off) echo "wal_init_zero = off" >> "$conf" ;; esac
	case $1 in prealloc*) with_module db ;; esac
	case $1 in prealloc2*) echo "pg_prealloc.segments_ahead = 2" >> "$conf" ;; esac
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
	local fs=$1 arm=$2 wl=$3 run=$4 t0 t1 waits script=() res cpu0 cpu1 wk0 wk1
	WORK=$(mktemp -d /tmp/pgp-bench.XXXXXX)
	chmod 755 "$WORK"
	trap cleanup EXIT
	make_fs "$fs" "$IMG_MB"
	new_cluster db $P
	configure "$arm"
	start db
	case $arm in prealloc*) create_ext $P ;; esac
	wait_sampler_setup $P
	walheavy_setup $P
	warm "$arm"
	t0=$(date +%s.%N)
	pg pgbench -i -q -s "$SCALE" -h "$SOCK" -p $P postgres >/dev/null 2>&1
	t1=$(date +%s.%N)
	warm "$arm"
	[ "$wl" = walheavy ] && script=(-f "$WORK/walheavy.sql")
	q $P "SELECT wait_samples($((SECONDS_RUN * 100)))" > "$WORK/waits" &
	local sampler=$!
	read -r -a cpu0 < <(cpu_jiffies)
	wk0=$(worker_jiffies)
	(cd "$LOGS" && pg pgbench -n -c 8 -j 2 -T "$SECONDS_RUN" -M prepared -l \
		-h "$SOCK" -p $P "${script[@]}" postgres > "$WORK/pgbench.out" 2>&1)
	read -r -a cpu1 < <(cpu_jiffies)
	wk1=$(worker_jiffies)
	wait $sampler
	waits=$(cat "$WORK/waits")
	res=$(bench_py pgbench run "$LOGS" "$WORK/pgbench.out")
	echo "{\"fs\": \"$fs\", \"arm\": \"$arm\", \"workload\": \"$wl\", \"run\": $run," \
	     "\"init_s\": $(awk "BEGIN { print $t1 - $t0 }"), \"waits\": $waits," \
	     "\"cpu_busy\": $(awk "BEGIN { print ($((cpu1[0] - cpu0[0]))) / ($((cpu1[1] - cpu0[1])) + 1e-9) }")," \
	     "\"worker_cpu_s\": $(awk "BEGIN { print ($wk1 - $wk0) / $(getconf CLK_TCK) }"), \"r\": $res}" \
		>> "$OUT/pg-bench.jsonl"
	cleanup
}

for fs in $FS; do
	for run in $(seq "$RUNS"); do
		for wl in $WORKLOADS; do
			arms=$ARMS_TPCB
			[ "$wl" = walheavy ] && arms=$ARMS_WALHEAVY
			# One of each arm per round, the first one later each
			# round: no arm always follows the same one.
			read -r -a arms <<< "$arms"
			arms=("${arms[@]:$(((run - 1) % ${#arms[@]}))}" "${arms[@]:0:$(((run - 1) % ${#arms[@]}))}")
			for arm in "${arms[@]}"; do
				echo "$fs $wl run $run: $arm" >&2
				one_run "$fs" "$arm" "$wl" "$run"
			done
		done
	done
done

# Medians and per-round ratios (preallocbench/pgbench.py).
bench_py pgbench report "$OUT/pg-bench.jsonl" > "$OUT/pg-bench.md"
cat "$OUT/pg-bench.md"
