#!/bin/bash
# Debian's MariaDB (/usr/sbin/mariadbd, unchanged) bare against the same
# binary under `prealloc exec` with the options of the shipped drop-in
# (examples/exec/mariadb.conf; the interposer: mariadbd is dynamically
# linked), loaded by sysbench, on ext4 on a direct-I/O loop device (root).
#
# Where MariaDB 10.11 fallocates (strace -f -e trace=fallocate): at start,
# when the configured redo log size differs from the file's (always here:
# mariadb-install-db makes a 96 MiB ib_logfile0), it creates ib_logfile101
# with one fallocate(mode 0) of the whole log and renames it to
# ib_logfile0; ibtmp1 gets 12 MiB at every start; ibdata1 grows by 64 MiB
# (innodb_autoextend_increment); each .ibd grows by 16 KiB-1 MiB calls.  With
# innodb_flush_log_at_trx_commit=1 every commit is an O_DIRECT pwrite of the
# log tail and an fdatasync of ib_logfile0, so while the log is on its first
# pass the stock server writes into unwritten extents and each fdatasync
# pays ext4's conversion and a journal commit; under exec the log was
# written at creation.
#
# Each run: a fresh ext4 (same size every run, its image file filled and
# mkfs'd without discard so the host file stays allocated), a fresh data
# directory (mariadb-install-db, stock in both arms: the log, ibtmp1 and the
# tables' growth are made by the measured server), mariadbd started bare or
# under `prealloc exec --log` with --innodb-log-file-size=LOG_SIZE
# --innodb-flush-log-at-trx-commit=1 --skip-networking, sysbench prepare,
# then sysbench run for SECONDS.  Recorded per run: transactions/s, latency
# avg/p50/p95 (from sysbench's histogram) and p99 (sysbench's own), the
# deltas over the run of InnoDB's Innodb_data_fsyncs (the log's fdatasyncs
# are counted there: 10.11 has no Innodb_os_log_fsyncs), Innodb_os_log_written
# and the LSN, jbd2 commits of the loop device (/proc/fs/jbd2/*/info),
# unwritten blocks of ib_logfile0 after start (filefrag), whether the run
# stayed within the log's first pass, and for the exec arm the calls
# converted and their time.  Then the server is shut down cleanly.  The
# arms alternate stock, exec, exec, stock, ... (who goes first swaps every
# round).  Prints medians per arm and median [IQR] of the per-round ratios
# exec / stock.
#
# usage: exec-sysbench.sh BUILD_DIR [ROUNDS (5)] [SECONDS (60)]
#   PREALLOC_MDB_LOG_SIZE (1G), PREALLOC_MDB_TEST (oltp_write_only),
#   PREALLOC_MDB_THREADS (4), PREALLOC_MDB_TABLES (4),
#   PREALLOC_MDB_TABLE_SIZE (50000), PREALLOC_MDB_LOOP_MIB (3072),
#   PREALLOC_MDB_RAW (also copy the JSON lines there), PREALLOC_MDB_EXEC_ARGS
#   (more options for prealloc exec after the drop-in's, split on blanks:
#   e.g. --path GLOB).
# Raw lines go to stderr.  Exit 77 without root, MariaDB or sysbench.
set -euo pipefail
src=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=bindings/lib.sh
. "$src/bindings/lib.sh"
# shellcheck source=examples/exec/dropin.sh
. "$src/examples/exec/dropin.sh"
dropin_options "$src/examples/exec/mariadb.conf"
skip_unless_root_with exec-sysbench.sh /usr/sbin/mariadbd mariadb-install-db mariadb mariadb-admin \
	sysbench mkfs.ext4 filefrag
[ $# -ge 1 ] || { echo "usage: exec-sysbench.sh BUILD_DIR [ROUNDS] [SECONDS]" >&2; exit 2; }
reexec_private "$0" "$@"
build=$(cd "$1" && pwd)
rounds=${2:-5} secs=${3:-60}
logsize=${PREALLOC_MDB_LOG_SIZE:-1G}
test=${PREALLOC_MDB_TEST:-oltp_write_only}
threads=${PREALLOC_MDB_THREADS:-4} tables=${PREALLOC_MDB_TABLES:-4}
tsize=${PREALLOC_MDB_TABLE_SIZE:-50000} loopmib=${PREALLOC_MDB_LOOP_MIB:-3072}
rawout=${PREALLOC_MDB_RAW:-}
read -r -a more_args <<<"${PREALLOC_MDB_EXEC_ARGS:-}"
exec_args=("${dropin_opts[@]}" "${more_args[@]}")
tool=$build/src/tool/prealloc
export PREALLOC_EXEC_PRELOAD=$build/src/tool/libprealloc-exec.so LD_LIBRARY_PATH=$build
[ -x "$tool" ] && [ -f "$PREALLOC_EXEC_PRELOAD" ] ||
	{ echo "exec-sysbench.sh: no $tool or $PREALLOC_EXEC_PRELOAD" >&2; exit 1; }

scratch=$(mktemp -d /tmp/prealloc-exec-mariadb-bench-XXXXXX)
chmod 755 "$scratch"
bg_pid= mdb_pid= sock=
# stop: the server shut down cleanly (kill -9 after 120 s); waits for it and
# for prealloc exec in front of it.
stop() {
	[ -n "$bg_pid" ] || return 0
	mariadb-admin -S "$sock" shutdown >/dev/null 2>&1 || true
	for _ in $(seq 1200); do
		kill -0 "$bg_pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$bg_pid" 2>/dev/null; then
		echo "server $mdb_pid did not stop: kill -9" >&2
		[ -z "$mdb_pid" ] || kill -KILL "$mdb_pid" 2>/dev/null || true
		kill -KILL "$bg_pid" 2>/dev/null || true
	fi
	wait "$bg_pid" 2>/dev/null || true
	bg_pid= mdb_pid=
}
trap 'stop || true; unmount_loops 2>/dev/null; rm -rf "$scratch"' EXIT


# status: InnoDB's counters of interest as one JSON object.
status() {
	mariadb -S "$sock" -N -B -e "show global status where Variable_name in
		('Innodb_data_fsyncs','Innodb_os_log_written','Innodb_log_writes',
		 'Innodb_lsn_current','Innodb_data_written','Innodb_log_waits',
		 'Innodb_os_log_fsyncs','Innodb_data_pending_fsyncs')" |
		python3 -c 'import json,sys; print(json.dumps({k: int(v) for k, v in (l.split() for l in sys.stdin)}))'
}
# jbd2_commits DIR: transactions the journal of DIR's filesystem committed.
jbd2_commits() {
	local dev
	dev=$(basename "$(findmnt -no SOURCE "$1")")
	read -r n _ <"/proc/fs/jbd2/$dev-8/info"
	echo "$n"
}
# unwritten FILE: blocks of FILE in unwritten extents.
unwritten() {
	filefrag -v "$1" | awk '/unwritten/ { sub(":", "", $6); n += $6 } END { print n + 0 }'
}

# one_run ARM ROUND: a fresh filesystem, data directory and server, the
# load, one JSON line.
run_no=0
one_run() {
	local arm=$1 round=$2 stage dir data t0 t1 t2 t3 unw jb0 jb1 s0 s1 s2 rc=0
	run_no=$((run_no + 1))
	stage=$scratch/run$run_no
	mkdir "$stage"
	PREALLOC_LOOP_MIB=$loopmib PREALLOC_LOOP_FILL=1 mount_loops "$stage" ext4
	dir=${test_dirs[-1]}
	[ "$dir" = "$stage/ext4" ] || { echo "could not mount ext4 on a loop device" >&2; exit 1; }
	data=$dir/data sock=$dir/sock
	chown mysql: "$dir"
	mariadb-install-db --user=mysql --datadir="$data" --auth-root-authentication-method=normal \
		--skip-test-db >"$stage/install.log" 2>&1 || { cat "$stage/install.log" >&2; exit 1; }
	sync -f "$dir"
	local srv=(/usr/sbin/mariadbd --user=mysql --datadir="$data" --socket="$sock"
		--pid-file="$dir/mariadbd.pid" --skip-networking --innodb-log-file-size="$logsize"
		--innodb-flush-log-at-trx-commit=1)
	rm -f "$scratch/exec.log"
	t0=$(date +%s.%N)
	if [ "$arm" = exec ]; then
		"$tool" exec --quiet --log "$scratch/exec.log" "${exec_args[@]}" -- "${srv[@]}" >"$stage/server.log" 2>&1 &
	else
		"${srv[@]}" >"$stage/server.log" 2>&1 &
	fi
	bg_pid=$!
	for _ in $(seq 1200); do
		mariadb -S "$sock" -e 'select 1' >/dev/null 2>&1 && break
		kill -0 "$bg_pid" 2>/dev/null || break
		sleep 0.05
	done
	mariadb -S "$sock" -e 'select 1' >/dev/null 2>&1 ||
		{ echo "the $arm server did not start:" >&2; tail -n 20 "$stage/server.log" >&2; exit 1; }
	t1=$(date +%s.%N)
	if [ "$arm" = exec ]; then mdb_pid=$(pgrep -P "$bg_pid" -x mariadbd); else mdb_pid=$bg_pid; fi
	unw=$(unwritten "$data/ib_logfile0")
	s0=$(status)
	mariadb -S "$sock" -e 'create database sbtest'
	local sb=(sysbench "$test" --db-driver=mysql --mysql-socket="$sock" --mysql-user=root
		--tables="$tables" --table-size="$tsize" --threads="$threads")
	"${sb[@]}" prepare >"$stage/prepare.txt"
	t2=$(date +%s.%N)
	s1=$(status)
	jb0=$(jbd2_commits "$dir")
	"${sb[@]}" --time="$secs" --report-interval=0 --percentile=99 --histogram=on run \
		>"$stage/run.txt" 2>&1 || rc=$?
	jb1=$(jbd2_commits "$dir")
	s2=$(status)
	t3=$(date +%s.%N)
	[ "$rc" = 0 ] || { echo "sysbench run failed ($rc):" >&2; tail -n 20 "$stage/run.txt" >&2; exit 1; }
	stop
	[ "$arm" = stock ] || [ -s "$scratch/exec.log" ] ||
		{ echo "exec arm: no call reached the interposer" >&2; exit 1; }
	python3 - "$arm" "$round" "$stage/run.txt" "$scratch/exec.log" "$t0" "$t1" "$t2" "$t3" \
		"$unw" "$jb0" "$jb1" "$s0" "$s1" "$s2" "$logsize" <<'PY'
import json, re, sys
arm, rnd, run, log, t0, t1, t2, t3, unw, jb0, jb1, s0, s1, s2, logsize = sys.argv[1:]
text = open(run).read()
num = lambda pat: float(re.search(pat, text).group(1))
# The histogram: "value  |***  count" lines, value the bucket's upper end in ms.
hist = [(float(v), int(c)) for v, c in
        re.findall(r"^\s*([0-9.]+)\s+\|\**\s+(\d+)\s*$", text, re.M)]
total = sum(c for _, c in hist)
def pct(p):
    acc = 0
    for v, c in hist:
        acc += c
        if acc >= p / 100 * total:
            return v
s0, s1, s2 = json.loads(s0), json.loads(s1), json.loads(s2)
d = lambda k: s2.get(k, 0) - s1.get(k, 0)
trx = int(num(r"transactions:\s+(\d+)"))
unit = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
lsz = int(logsize[:-1]) * unit[logsize[-1]] if logsize[-1] in unit else int(logsize)
r = {"arm": arm, "round": int(rnd),
     "tps": num(r"transactions:\s+\d+\s+\(([0-9.]+) per sec"),
     "trx": trx,
     "avg_ms": num(r"avg:\s+([0-9.]+)"),
     "p50_ms": pct(50), "p95_ms": pct(95),
     "p99_ms": num(r"99th percentile:\s+([0-9.]+)"),
     "max_ms": num(r"max:\s+([0-9.]+)"),
     "fsyncs": d("Innodb_data_fsyncs"),
     "fsyncs_per_trx": d("Innodb_data_fsyncs") / trx,
     "log_writes": d("Innodb_log_writes"),
     "log_bytes": d("Innodb_os_log_written"),
     "jbd2_commits": int(jb1) - int(jb0),
     "jbd2_per_trx": (int(jb1) - int(jb0)) / trx,
     "log_unwritten_mib_at_start": int(unw) * 4096 / (1 << 20),
     # first pass: the LSN, from the log's creation at start to the run's
     # end, advanced by less than the log holds.
     "log_first_pass": s2["Innodb_lsn_current"] - s0["Innodb_lsn_current"] < lsz - 12288,
     "lsn_start_prepare_run": [s0["Innodb_lsn_current"], s1["Innodb_lsn_current"],
                               s2["Innodb_lsn_current"]],
     "start_s": float(t1) - float(t0), "prepare_s": float(t2) - float(t1),
     "run_wall_s": float(t3) - float(t2)}
if arm == "exec":
    calls = [c for c in map(json.loads, open(log)) if "outcome" in c]
    conv = [c for c in calls if c["outcome"] == "converted"]
    r["exec_calls"] = len(calls)
    r["exec_converted"] = len(conv)
    r["exec_fell_back"] = sum(c["outcome"] == "fell-back" for c in calls)
    r["exec_converted_calls"] = [[c["path"].rsplit("/data/", 1)[-1], c["length"],
                                  round(c["elapsed_ns"] / 1e6, 2)] for c in conv]
print(json.dumps(r))
PY
	umount "$dir"
	rm -f "$stage/ext4.img"
}

raw=$scratch/raw.jsonl
: >"$raw"
for ((round = 0; round < rounds; round++)); do
	arms=(stock exec)
	((round % 2 == 0)) || arms=(exec stock)
	for arm in "${arms[@]}"; do
		one_run "$arm" "$round" >"$scratch/line"
		tee -a "$raw" <"$scratch/line" >&2
	done
done
[ -z "$rawout" ] || cp "$raw" "$rawout"

echo "$(/usr/sbin/mariadbd --version | sed 's/ *for .*//'), $(sysbench --version); $test," \
	"$tables tables x $tsize rows, $threads threads, $secs s per run;"
echo "innodb_log_file_size=$logsize, innodb_flush_log_at_trx_commit=1; ext4 on a" \
	"$loopmib MiB direct-I/O loop device, fresh per run; $rounds rounds, arms alternating" \
	"stock/exec, exec/stock, ...${exec_args[*]:+; exec arm: prealloc exec ${exec_args[*]}}"
echo
PYTHONPATH="$src/tests/bench" python3 - "$raw" <<'PY'
import json, statistics, sys
from preallocbench.stats import ab_table, round_pairs
pairs = round_pairs([json.loads(line) for line in open(sys.argv[1])], "arm", "stock", "exec")
med = lambda arm, k: statistics.median(p[arm][k] for p in pairs)
fmt = lambda x: f"{x:.3f}" if x < 1 else f"{x:.2f}"
print(ab_table(pairs, "stock", "exec", [(k, n, fmt, True) for k, n in [
    ("tps", "trx/s"), ("p99_ms", "lat p99 ms"), ("p95_ms", "lat p95 ms"),
    ("avg_ms", "lat avg ms"), ("fsyncs_per_trx", "fsyncs/trx"),
    ("jbd2_per_trx", "jbd2 commits/trx"), ("start_s", "start s")]]))
fp = [p[a]["log_first_pass"] for p in pairs for a in ("stock", "exec")]
print(f"\nruns within the redo log's first pass: {sum(fp)} of {len(fp)}; "
      f"ib_logfile0 unwritten after start, MiB (median): stock "
      f"{med('stock', 'log_unwritten_mib_at_start'):.0f}, exec "
      f"{med('exec', 'log_unwritten_mib_at_start'):.0f}")
conv = [c for p in pairs for c in p["exec"]["exec_converted_calls"]]
if conv:
    byfile = {}
    for f, n, ms in conv:
        f = "*.ibd" if f.endswith(".ibd") else f
        byfile.setdefault(f, []).append((n, ms))
    print("exec arm, calls converted per run (median "
          f"{statistics.median(p['exec']['exec_converted'] for p in pairs):.0f}; "
          f"fell back: {sum(p['exec']['exec_fell_back'] for p in pairs)}):")
    for f, v in sorted(byfile.items()):
        print(f"  {f}: {len(v)} calls in all, {statistics.median(n for n, _ in v) / 2**20:.0f} MiB "
              f"median, {statistics.median(ms for _, ms in v):.1f} ms median, "
              f"{max(ms for _, ms in v):.1f} ms max")
PY
