#!/bin/bash
# SPDX-License-Identifier: MIT
# pg_prealloc in a real PostgreSQL (15 or later) cluster on a loop FSTYPE
# filesystem (root, PostgreSQL and the postgres user; skip = 77 otherwise):
#  1. under a WAL-heavy pgbench load with wal_recycle=off, no backend is
#     sampled in WALInitWrite/WALInitSync, every segment switched into was
#     one the worker installed, and every segment file that appeared in
#     pg_ls_waldir() is one it installed (its counters against the listing);
#     with the worker's segments ahead, every WAL-named file states the
#     segment size in its first page header and pg_waldump -p DATADIR
#     --start LSN (no file name: it takes the size from whichever file
#     readdir() returns first) reads the WAL;
#  2. kill -9 of the postmaster under load (the pool's worker busy making
#     segments), then recovery completes and pg_waldump reads the WAL from
#     the oldest segment to the shutdown checkpoint, and every file under a
#     segment name is full size;
#  2a. a crash right after a segment switch: the next segment is one the
#     worker installed, its first page the size stub; recovery reads it as
#     the end of WAL (invalid magic 0000, as for a zero-filled segment) and
#     the server then writes its WAL there;
#  2b. a streaming standby: no pool copied by pg_basebackup; its worker
#     installs full-size segments with the stub ahead of the walreceiver,
#     which switches into them; promoted, segments of the new timeline
#     ahead and none of the old;
#  2c. the old primary, diverged, rewound from the promoted standby with
#     pg_rewind: the source's pool is not copied (the target's own is
#     removed), the rewound server follows the new primary, and pg_waldump
#     -p --start reads both data directories;
#  3. a nearly full filesystem: the reopened pool gives ready segments back
#     to leave the free-space floor, and PostgreSQL runs on in it;
#  4. the functions dropped and the library removed from
#     shared_preload_libraries: the cluster starts and runs.
# usage: pg-test.sh FSTYPE BINDIR MODULE SQL
set -euo pipefail
# A failure names its line: every check here is a command that exits.
trap 'echo "pg-test.sh:$LINENO: failed (status $?)" >&2' ERR
FSTYPE=$1 PG_BINDIR=$2 PGP_MODULE=$3 PGP_SQL=$4
[ "$(id -u)" = 0 ] || { echo "not root: skip"; exit 77; }
id postgres >/dev/null 2>&1 || { echo "no postgres user (apt-get install postgresql-15): skip"; exit 77; }
command -v "mkfs.$FSTYPE" >/dev/null || { echo "no mkfs.$FSTYPE: skip"; exit 77; }
[ -x "$PG_BINDIR/pgbench" ] || { echo "no $PG_BINDIR/pgbench (apt-get install postgresql-15): skip"; exit 77; }
if [ -z "${PGP_NS:-}" ]; then
	exec env PGP_NS=1 unshare -m --propagation private "$0" "$@"
fi
. "$(dirname "$0")/cluster.sh"
WORK=$(mktemp -d /tmp/pgp-test.XXXXXX)
chmod 755 "$WORK"
trap cleanup EXIT
SEG=$((4 * 1024 * 1024))
AHEAD=12
P=5432

make_fs "$FSTYPE" 1536
new_cluster db $P --wal-segsize=4
with_module db
cat >> "$WORK/mnt/db/postgresql.conf" <<CONF
wal_recycle = off
pg_prealloc.segments_ahead = $AHEAD
pg_prealloc.naptime = 20ms
pg_prealloc.free_floor = 96MB
wal_log_hints = on
CONF
start db
create_ext $P
walheavy_setup $P
sampler_setup $P
until_true $P "SELECT present_ahead = $AHEAD AND plan IS NOT NULL FROM pg_prealloc"
echo "plan for pg_wal: $(q $P 'SELECT plan FROM pg_prealloc')"

segments() { q $P "SELECT count(*) FROM pg_ls_waldir() WHERE name ~ '^[0-9A-F]{24}\$'"; }
stat_of() { q $P "SELECT $1 FROM pg_prealloc"; }

# Two more rounds of the worker, so what it publishes is fresh.
rounds() {
	local r
	r=$(stat_of rounds)
	until_true $P "SELECT rounds >= $r + 2 FROM pg_prealloc"
}

# 1. Load, once every one of the next segments is the worker's: switch past
# those PostgreSQL made at start-up before the worker ran.
q $P "CHECKPOINT; CREATE TABLE warm (x int)"
for i in $(seq 10); do
	rounds
	[ "$(stat_of "installed_ahead = $AHEAD")" = t ] && break
	q $P "INSERT INTO warm VALUES (1); SELECT pg_switch_wal()" >/dev/null
done
[ "$(stat_of "installed_ahead = $AHEAD")" = t ]
files0=$(segments) inst0=$(stat_of installed) sw0=$(stat_of switched_installed)
miss0=$(stat_of misses)
q $P "SELECT walinit_samples(500)" > "$WORK/samples" &
sampler=$!
pg pgbench -n -h "$SOCK" -p $P -c 2 -j 2 -t 100 -f "$WORK/walheavy.sql" postgres \
	> "$WORK/pgbench.out" 2>&1 || { cat "$WORK/pgbench.out"; exit 1; }
wait $sampler
samples=$(cat "$WORK/samples")
files1=$(segments) inst1=$(stat_of installed) sw1=$(stat_of switched_installed)
miss1=$(stat_of misses)
echo "switched into $((sw1 - sw0)) installed segments, $((miss1 - miss0)) others;" \
     "$((files1 - files0)) new files, $((inst1 - inst0)) installed; WALInit samples: $samples;" \
     "pool empty $(stat_of pool_empty) times"
[ $((sw1 - sw0)) -ge 3 ]		# the load crossed segments
[ "$miss1" = "$miss0" ]
[ $((files1 - files0)) = $((inst1 - inst0)) ]
[ "$samples" = 0 ]

# pg_waldump -p DATADIR --start LSN reads the WAL.  With "all": every
# WAL-named file says how large a segment is, so pg_waldump finds the size
# whichever it looks at first (PostgreSQL's own zero-filled segments ahead
# would not: only where all those ahead are the worker's).
waldump_check() {
	local f sz lsn tli n=0
	for f in "$1"/pg_wal/*; do
		[[ $(basename "$f") =~ ^[0-9A-F]{24}$ ]] || continue
		sz=$(od -An -t u4 -j 32 -N 4 "$f" | tr -d ' ')
		[ "${2:-}" != all ] || [ "$sz" = $SEG ] ||
			{ echo "$f: xlp_seg_size $sz"; return 1; }
		n=$((n + 1))
	done
	lsn=$(pg pg_controldata "$1" | sed -n 's/^Latest checkpoint location: *//p')
	tli=$(pg pg_controldata "$1" | sed -n "s/^Latest checkpoint's TimeLineID: *//p")
	pg pg_waldump -p "$1" --timeline "$tli" --start "$lsn" -n 1 > "$WORK/waldump" 2>&1 ||
		{ cat "$WORK/waldump"; return 1; }
	echo "pg_waldump -p $(basename "$1") --start $lsn: ok, $n segment files"
}
q $P "CHECKPOINT"
waldump_check "$WORK/mnt/db" all

# 2. kill -9 of the postmaster under load.
pm=$(head -1 "$WORK/mnt/db/postmaster.pid")
pg pgbench -n -h "$SOCK" -p $P -c 2 -j 2 -T 60 -f "$WORK/walheavy.sql" postgres \
	> /dev/null 2>&1 &
load=$!
until_true $P "SELECT switched_installed >= $((sw1 + 2)) FROM pg_prealloc"
children=$(pgrep -P "$pm" || true)
kill -9 "$pm"
kill "$load" 2>/dev/null || true
wait "$load" || true
for c in $children; do	# they go once they notice: the next start needs that
	for i in $(seq 600); do kill -0 "$c" 2>/dev/null || break; sleep 0.1; done
	! kill -0 "$c" 2>/dev/null
done
start db
grep -q "database system was interrupted" "$LOGS/db.log" ||
	{ echo "no crash recovery after kill -9"; exit 1; }
until_true $P "SELECT rounds > 0 AND worker_pid > 0 FROM pg_prealloc"
q $P "SELECT count(*) FROM walheavy" >/dev/null
stop db
first=$(ls "$WORK/mnt/db/pg_wal" | grep -E '^[0-9A-F]{24}$' | head -1)
last_ckpt=$(pg pg_controldata "$WORK/mnt/db" | sed -n 's/^Latest checkpoint location: *//p')
pg pg_waldump -p "$WORK/mnt/db/pg_wal" -e "$last_ckpt" "$first" > "$WORK/waldump" 2>&1 ||
	{ tail "$WORK/waldump"; exit 1; }
# The clean stop's checkpoint is the latest, at last_ckpt itself: -e stops
# before it, and the end-of-recovery checkpoint may have removed the
# segments of any earlier one.
pg pg_waldump -p "$WORK/mnt/db/pg_wal" --start "$last_ckpt" -n 1 > "$WORK/waldump-ckpt" 2>&1 &&
	grep -q "CHECKPOINT_SHUTDOWN" "$WORK/waldump-ckpt" ||
	{ echo "no shutdown checkpoint at $last_ckpt:"; cat "$WORK/waldump-ckpt"; exit 1; }
echo "pg_waldump read $(wc -l < "$WORK/waldump") records from $first to $last_ckpt"
short=$(find "$WORK/mnt/db/pg_wal" -maxdepth 1 -regextype egrep -regex '.*/[0-9A-F]{24}' \
	! -size ${SEG}c)
[ -z "$short" ] || { echo "not full size: $short"; exit 1; }

# 2a. A crash right after a segment switch.
start db
until_true $P "SELECT present_ahead = $AHEAD FROM pg_prealloc"
q $P "INSERT INTO warm VALUES (5)"
next=$(q $P "SELECT pg_walfile_name(pg_current_wal_insert_lsn() + $SEG)")
q $P "SELECT pg_switch_wal()" >/dev/null
stop db immediate
magic=$(od -An -t x2 -N 2 "$WORK/mnt/db/pg_wal/$next" | tr -d ' ')
size=$(od -An -t u4 -j 32 -N 4 "$WORK/mnt/db/pg_wal/$next" | tr -d ' ')
[ "$magic" = 0000 ] && [ "$size" = $SEG ]
start db
grep -qE "invalid magic number 0000 in (log|WAL) segment $next" "$LOGS/db.log"
q $P "INSERT INTO warm VALUES (6)"
[ "$(q $P "SELECT count(*) FROM warm WHERE x IN (5, 6)")" = 2 ]
echo "crash after a switch: recovery ended at the stub of $next, writes went on there"
stop db

# 2b. A streaming standby: pg_basebackup leaves the pool out; the standby's
# worker installs segments of timeline 1 ahead of its walreceiver, which
# writes into them; once promoted it installs segments of the new timeline,
# and PostgreSQL has removed those it had installed on the old one.
S=5433
start db
pg pg_basebackup -h "$SOCK" -p $P -D "$WORK/mnt/standby" -R -X stream -c fast
[ ! -e "$WORK/mnt/standby/pg_wal/pgsql_tmp_prealloc" ]
echo "port = $S" >> "$WORK/mnt/standby/postgresql.conf"
start standby
q $P "INSERT INTO warm VALUES (2)"
until_true $S "SELECT count(*) FILTER (WHERE x = 2) = 1 FROM warm"
until_true $S "SELECT timeline = 1 AND installed_ahead = $AHEAD FROM pg_prealloc"
read -r sw miss < <(q $S "SELECT switched_installed, misses FROM pg_prealloc" | tr '|' ' ')
q $P "SELECT pg_switch_wal()" >/dev/null
q $P "INSERT INTO warm VALUES (7)"
until_true $S "SELECT switched_installed > $sw FROM pg_prealloc"
[ "$(q $S "SELECT misses FROM pg_prealloc")" = "$miss" ]
# Only full-size files under a segment name, and those it installed and the
# walreceiver has not reached yet still carry the stub.
stubs=0
for f in "$WORK/mnt/standby/pg_wal/"*; do
	[[ ${f##*/} =~ ^[0-9A-F]{24}$ ]] || continue
	[ "$(stat -c %s "$f")" = $SEG ] || { echo "$f: not full size"; exit 1; }
	[ "$(od -An -t x2 -N 2 "$f" | tr -d ' ')$(od -An -t u4 -j 32 -N 4 "$f" | tr -d ' ')" \
		!= "0000$SEG" ] || stubs=$((stubs + 1))
done
[ "$stubs" -ge $((AHEAD - 1)) ]
echo "standby: $AHEAD segments of timeline 1 ahead of the walreceiver, which switched into one"
pg pg_ctl -w -D "$WORK/mnt/standby" promote >/dev/null
until_true $S "SELECT timeline = 2 AND present_ahead = $AHEAD AND installed > 0 FROM pg_prealloc"
cur=$(q $S "SELECT pg_walfile_name(pg_current_wal_insert_lsn())")
ahead() {	# TLI: segment files of that timeline after the current one
	ls "$WORK/mnt/standby/pg_wal" | grep -E "^$1[0-9A-F]{16}\$" |
		awk -v c="${cur:8}" 'substr($0, 9) > c' | wc -l
}
echo "promoted: timeline 2 at $cur, ahead: $(ahead 00000002) of timeline 2," \
     "$(ahead 00000001) of timeline 1"
[ "$(ahead 00000002)" = $AHEAD ]
[ "$(ahead 00000001)" = 0 ]

# 2c. The old primary diverges, is stopped and rewound from the new one
# (which needs the WAL since the divergence kept).
q $P "ALTER SYSTEM SET wal_keep_size = '256MB'"
q $P "SELECT pg_reload_conf()" >/dev/null
q $P "INSERT INTO warm VALUES (3); SELECT pg_switch_wal()" >/dev/null
stop db
pool_files() { find "$1/pg_wal/pgsql_tmp_prealloc" -type f 2>/dev/null | wc -l; }
echo "before pg_rewind: $(pool_files "$WORK/mnt/db") pool files in the target," \
     "$(pool_files "$WORK/mnt/standby") in the source"
[ "$(pool_files "$WORK/mnt/standby")" -gt 0 ]
pg pg_rewind -D "$WORK/mnt/db" --source-server="host=$SOCK port=$S dbname=postgres" -R \
	> "$WORK/rewind.log" 2>&1 || { cat "$WORK/rewind.log"; exit 1; }
[ ! -e "$WORK/mnt/db/pg_wal/pgsql_tmp_prealloc" ]
echo "port = $P" >> "$WORK/mnt/db/postgresql.conf"	# pg_rewind copied the source's
start db
q $S "INSERT INTO warm VALUES (4)"
until_true $P "SELECT count(*) FILTER (WHERE x = 4) = 1 AND count(*) FILTER (WHERE x = 3) = 0 FROM warm"
[ "$(q $P "SELECT pg_is_in_recovery()")" = t ]
echo "pg_rewind: pool not copied, the target's removed; the rewound server follows"
stop db
stop standby
waldump_check "$WORK/mnt/db"
waldump_check "$WORK/mnt/standby"
rm -rf "$WORK/mnt/db"
mv "$WORK/mnt/standby" "$WORK/mnt/db"
sed -i '/^port = /d; /^primary_conninfo/d' "$WORK/mnt/db/postgresql.conf" "$WORK/mnt/db/postgresql.auto.conf"
echo "port = $P" >> "$WORK/mnt/db/postgresql.conf"

# 3. Nearly full: 8 MiB below the floor (96 MiB) with the cluster stopped.
# The reopened pool gives ready segments back until the floor is free
# again, and PostgreSQL runs on in it.
# Space freed behind our back (xfs trims speculative preallocation and
# frees deleted files in the background; PostgreSQL removes old segments at
# start) is taken again until the pool has had to give some back.
avail() { sync -f "$WORK/mnt"; df -B1 --output=avail "$WORK/mnt" | tail -1; }
filler=$WORK/mnt/filler
top_up() {
	local a
	a=$(avail)
	[ "$a" -le $((88 << 20)) ] ||
		fallocate -o "$(stat -c %s "$filler" 2>/dev/null || echo 0)" -l $((a - (88 << 20))) "$filler"
}
top_up
start db
until_true $P "SELECT rounds > 0 FROM pg_prealloc"
for _ in $(seq 20); do
	rounds
	[ "$(stat_of removed)" -lt 2 ] || break
	top_up
done
rounds
a=$(avail)
echo "nearly full: $((a >> 20)) MiB available with the floor at 96 MiB;" \
     "pool ready $(stat_of pool_ready), removed $(stat_of removed)"
[ "$a" -ge $((96 << 20)) ]
[ "$(stat_of removed)" -ge 2 ]
pg pgbench -n -h "$SOCK" -p $P -c 2 -j 2 -t 20 -f "$WORK/walheavy.sql" postgres >/dev/null
q $P "SELECT 1" >/dev/null
stop db
rm "$filler"

# 4. Without the library.
start db
q $P "DROP VIEW pg_prealloc; DROP FUNCTION pg_prealloc_stats()"
stop db
sed -i '/^shared_preload_libraries/d' "$WORK/mnt/db/postgresql.conf"
start db
pg pgbench -n -h "$SOCK" -p $P -c 2 -j 2 -t 20 -f "$WORK/walheavy.sql" postgres >/dev/null
stop db
echo "ok"
