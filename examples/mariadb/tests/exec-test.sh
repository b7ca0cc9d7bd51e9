#!/bin/bash
# Debian's MariaDB, unchanged, under `prealloc exec` (mariadbd is dynamically
# linked: the interposer) with the options of the shipped drop-in
# (examples/exec/mariadb.conf), on loop-mounted ext4 as root:
#  1. the server starts on a fresh data directory: its redo log and the
#     files InnoDB extends (ibtmp1, the tables' .ibd) are converted
#     (--log: every call converted, none passed or fell back) and fully
#     written (FIEMAP);
#  2. InnoDB's own record locks on its files (F_SETLK on ibdata1, the redo
#     log) are still the server's (/proc/locks), the lock 0.4 dropped;
#  3. sysbench oltp_insert loads it for 10 s; kill -9; it restarts under
#     prealloc exec, recovers, and holds every row it held before.
# usage: exec-test.sh BUILD_DIR [SANITIZE]; exit 77 without root, MariaDB or
# sysbench, or in a sanitizer build (its interposer needs its runtime first).
set -euo pipefail
build=$(cd "$1" && pwd)
[ "${2:-none}" = none ] || { echo "sanitizer build ($2): the interposer cannot load: skipped"; exit 77; }
here=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=bindings/lib.sh
. "$here/bindings/lib.sh"
# shellcheck source=examples/exec/dropin.sh
. "$here/examples/exec/dropin.sh"
dropin_options "$here/examples/exec/mariadb.conf"
[ "$(id -u)" = 0 ] || { echo "needs root: skipped"; exit 77; }
for b in /usr/sbin/mariadbd mariadb-install-db sysbench mariadb; do
	command -v "$b" >/dev/null ||
		{ echo "$b not installed (apt-get install mariadb-server sysbench): skipped"; exit 77; }
done
reexec_private "$0" "$@"
tool=$build/src/tool/prealloc
# The tool as built finds its interposer beside itself.

scratch=$(mktemp -d /tmp/prealloc-exec-mariadb-XXXXXX)
chmod 755 "$scratch"
exec_pid=
# stop: kill -9 the server (prealloc exec then ends with it).
stop() {
	[ -n "$exec_pid" ] || return 0
	kill -KILL "$(pgrep -P "$exec_pid" -x mariadbd)" 2>/dev/null || true
	wait "$exec_pid" 2>/dev/null || true
	exec_pid=
}
trap 'stop || true; unmount_loops 2>/dev/null; rm -rf "$scratch"' EXIT
PREALLOC_LOOP_MIB=1024 mount_loops "$scratch" ext4
dir=${test_dirs[0]:?no loop-mounted ext4}
data=$dir/data sock=$dir/sock log=$scratch/exec.log
chown mysql: "$dir"
mariadb-install-db --user=mysql --datadir="$data" --auth-root-authentication-method=normal \
	--skip-test-db >"$scratch/install.log" 2>&1 || { cat "$scratch/install.log"; exit 1; }

# start: the stock server under prealloc exec; waits until it answers.
start() {
	"$tool" exec "${dropin_opts[@]}" --quiet --log "$log" -- /usr/sbin/mariadbd --user=mysql --datadir="$data" \
		--socket="$sock" --skip-networking --innodb-log-file-size=128M \
		--innodb-flush-log-at-trx-commit=1 >>"$scratch/server.log" 2>&1 &
	exec_pid=$!
	for _ in $(seq 600); do
		mariadb -S "$sock" -e 'select 1' >/dev/null 2>&1 && return 0
		kill -0 "$exec_pid" 2>/dev/null || break
		sleep 0.1
	done
	tail -n 20 "$scratch/server.log" >&2
	return 1
}

echo "== start under prealloc exec"
start
pid=$(pgrep -P "$exec_pid" -x mariadbd)
mariadb -S "$sock" -e 'create database sbtest'
sb=(sysbench oltp_insert --db-driver=mysql --mysql-socket="$sock" --mysql-user=root
    --tables=2 --table-size=10000 --threads=4)
"${sb[@]}" prepare >/dev/null
"${sb[@]}" --time=10 --report-interval=0 run | grep -E 'transactions:|queries:'

echo "== every call converted and written"
[ -s "$log" ] || { echo "no call reached the interposer" >&2; exit 1; }
! grep -q '"outcome":"fell-back"\|"outcome":"passed"' "$log" ||
	{ echo "a call was not converted:" >&2; grep 'fell-back\|passed' "$log" >&2; exit 1; }
# Each converted range, as long as its file is still there (ibtmp1 goes).
python3 - "$log" <<'PY' | while read -r f off len; do
import json, sys
for line in open(sys.argv[1]):
    c = json.loads(line)
    if c.get("outcome") == "converted":
        print(c["path"], c["offset"], c["length"])
PY
	[ -e "$f" ] || continue
	"$tool" verify --offset "$off" --length "$len" "$f"
done
echo "$(grep -c '"outcome":"converted"' "$log") calls converted"

echo "== InnoDB's record locks are the server's"
ino=$(stat -c %i "$data/ibdata1")
grep -E "POSIX +ADVISORY +WRITE +$pid [0-9a-f:]+:$ino " /proc/locks ||
	{ echo "no POSIX lock of mariadbd ($pid) on ibdata1 (inode $ino):" >&2; cat /proc/locks >&2; exit 1; }

echo "== kill -9, recovery, every row"
rows=$(mariadb -S "$sock" -N -e 'select (select count(*) from sbtest.sbtest1) + (select count(*) from sbtest.sbtest2)')
stop
start
after=$(mariadb -S "$sock" -N -e 'select (select count(*) from sbtest.sbtest1) + (select count(*) from sbtest.sbtest2)')
echo "rows before kill -9: $rows, after recovery: $after"
[ "$rows" = "$after" ] && [ "$rows" -gt 0 ]
mariadb -S "$sock" -e 'check table sbtest.sbtest1, sbtest.sbtest2' | grep -v 'status.*OK' | grep -q 'sbtest' && exit 1
stop
echo "mariadb under prealloc exec: all passed"
