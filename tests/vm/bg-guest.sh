#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Background mode beside a foreground, inside the 6.18 guest (the shape of
# the FALLOC_FL_WRITE_ZEROES cover letter's experiment).
# Run by vm.sh as the guest's /bin/vm-test (busybox sh), through the host's
# report (tests/bench/run-vm-bench.py), see README.md:
#
#   tests/bench/run-vm-bench.py -- \
#     tests/vm/vm.sh run --kernel 6.18 --devices sdebug,nloop --mem 2048 \
#       --sdebug "dev_size_mb=512 lbpu=1 lbpws=1 lbprz=1 ndelay=10000" \
#       --timeout 3600 \
#       --extra /usr/bin/fio,/usr/bin/dd,$PWD/build/src/tool/prealloc \
#       -- tests/vm/bg-guest.sh --prealloc $PWD/build/src/tool/prealloc
#
# For each file system (--fs) and device (the unmap-zeroing scsi_debug disk,
# the nvme-loop namespace over a second one): mkfs, mount, lay out the
# foreground file (written),
# then for each round and fio job, in an order that rotates with the round,
# one trial per contender:
#
#   none    undisturbed
#   auto    prealloc run --background --json --length FILL FILE  (the library
#           picks the method: the kernel flag where the device unmap-zeroes)
#   uring   the same with --method uring (zero writes)
#   dd      dd if=/dev/zero of=FILE bs=1M count=FILL/1M oflag=direct
#
# The foreground runs RAMP + T seconds (fio measures the last T); the
# contender starts START seconds after fio (by default about a second into
# the measured part, so a contender that finishes within a second is still
# measured) and is stopped when fio ends (SIGTERM: prealloc cancels, undoes
# and prints its report; dd is killed).  It runs once (the whole length:
# "active s" in the summary says for how long); with --repeat it starts
# again, on a new file, until stopped, which adds process start, file
# removal and allocation to every run.
# Between trials the contender's file is removed, the file system trimmed and
# the caches dropped.  Absolute numbers in an emulated guest mean little; the
# ratios to the same round's undisturbed trial are the result.
#
# Output, for the host (tests/bench/run-vm-bench.py) to read: BGBENCH lines
# (what ran where, for a person), a BGCONFIG line, and per trial a BGTRIAL
# line of key=value pairs, then BGFIO with fio's JSON report and BGREPORT
# with each of prealloc's --json reports, each on one line as the tools
# wrote them: the guest reads none of them, the host's Python does and
# prints the BGRAW lines and the summary.  Exit 0 when every trial ran
# (whatever the numbers), 77 outside the guest or without fio, 1 when the
# harness failed (mkfs, mount, fio).

set -u

PREALLOC=""
FIO=/usr/bin/fio
DD=/usr/bin/dd
ROUNDS=5
T=10
START=2
RAMP=1
FGMB=32
FILL=95
REPEAT=0
DEVICES="sdebug nloop"
FSES="ext4"
JOBS="randw seqw"
CONTENDERS="none auto uring dd"

usage() {
	cat <<-EOF
	usage: bg-guest.sh --prealloc PATH [options]
	  --prealloc PATH    the prealloc tool (required; pass it to vm.sh --extra too)
	  --fio PATH         fio (default $FIO)
	  --dd PATH          coreutils dd (default $DD)
	  --rounds R         rounds per device and job (default $ROUNDS)
	  --time T           foreground seconds measured (default $T)
	  --start S          contender starts S s after fio (default $START)
	  --ramp S           fio ramp_time, not measured (default $RAMP)
	  --fg-size MIB      foreground file (default $FGMB)
	  --fill PCT         contender length, % of the free space after layout (default $FILL)
	  --repeat           contenders start again when done, until stopped
	  --devices LIST     of: sdebug nloop (default "$DEVICES")
	  --fs LIST          of: ext4 xfs, made on each device in turn (default "$FSES";
	                     xfs wants a disk over 300 MB: scsi_debug dev_size_mb=512)
	  --jobs LIST        of: randw seqw (default "$JOBS")
	  --contenders LIST  of: none auto uring dd (default "$CONTENDERS"; none is always run)
	EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	--prealloc) PREALLOC=$2; shift 2 ;;
	--fio) FIO=$2; shift 2 ;;
	--dd) DD=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--time) T=$2; shift 2 ;;
	--start) START=$2; shift 2 ;;
	--ramp) RAMP=$2; shift 2 ;;
	--fg-size) FGMB=$2; shift 2 ;;
	--fill) FILL=$2; shift 2 ;;
	--repeat) REPEAT=1; shift ;;
	--devices) DEVICES=$2; shift 2 ;;
	--fs) FSES=$2; shift 2 ;;
	--jobs) JOBS=$2; shift 2 ;;
	--contenders) CONTENDERS=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "bg-guest: unknown option $1" >&2; usage >&2; exit 2 ;;
	esac
done
case " $CONTENDERS " in *" none "*) ;; *) CONTENDERS="none $CONTENDERS" ;; esac

if [ -z "${PA_VM_KERNEL:-}" ]; then
	echo "bg-guest: not inside a vm.sh guest (no PA_VM_KERNEL); skipped"
	exit 77
fi
for t in "$FIO" "$DD" "$PREALLOC"; do
	[ -n "$t" ] && [ -x "$t" ] && continue
	echo "bg-guest: '$t' is missing in the guest (vm.sh --extra; --prealloc is required)"
	exit 77
done

MNT=/mnt/bg
W=/tmp/bg
FG=$MNT/fg
CFILE=$MNT/contender
mkdir -p $MNT $W
HARNESS_FAILED=0

now() { cut -d' ' -f1 /proc/uptime; }
say() { echo "BGBENCH $*"; }
fail() { echo "BGBENCH harness failure: $*"; HARNESS_FAILED=1; }

# A key=value pair's value, double-quoted for the host's shlex (quotes,
# backslashes, dollars and backquotes dropped).
q() { printf '"%s"' "$(printf %s "$1" | tr -d '"\\$`' | tr '\n' ' ')"; }

rotate() {	# K WORD...: the words rotated left K times
	k=$1; shift
	while [ "$k" -gt 0 ]; do x=$1; shift; set -- "$@" "$x"; k=$((k - 1)); done
	echo "$@"
}

# ------------------------------------------------------------ contenders

contender_cmd() {	# NAME LENGTH
	case $1 in
	auto) echo "$PREALLOC run --background --json --length $2 $CFILE" ;;
	uring) echo "$PREALLOC run --background --json --method uring --length $2 $CFILE" ;;
	dd) echo "$DD if=/dev/zero of=$CFILE bs=1M count=$(($2 / 1048576)) oflag=direct" ;;
	esac
}

# Run the contender in the background: $W/c.pid holds the running command's
# pid, c.out its reports (one per run), c.dd the bytes of each finished dd,
# c.end the time it ended by itself (without --repeat).
start_contender() {	# NAME LENGTH
	rm -f $W/c.*
	cmd=$(contender_cmd "$1" "$2")
	c_t0=$(now)
	(
		while :; do
			$cmd >>$W/c.out 2>>$W/c.err &
			echo $! >$W/c.pid
			wait $!
			echo $? >>$W/c.rc
			[ -e $W/c.stop ] && break
			[ "$1" = dd ] && stat -c %s $CFILE >>$W/c.dd
			if [ $REPEAT = 0 ]; then now >$W/c.end; break; fi
			rm -f $CFILE
		done
	) 2>/dev/null &
	c_wrap=$!
}

stop_contender() {	# NAME: stop it, then set c_bytes (dd) c_secs c_runs c_state c_err
	c_t1=$(now)
	touch $W/c.stop
	n=0	# TERM for a minute (prealloc undoes its work), then KILL
	while kill -0 $c_wrap 2>/dev/null; do
		sig=TERM
		[ $n -ge 600 ] && sig=KILL
		[ -s $W/c.pid ] && kill -$sig "$(cat $W/c.pid)" 2>/dev/null
		n=$((n + 1))
		sleep 0.1
	done
	wait $c_wrap 2>/dev/null
	end=$c_t1
	[ -s $W/c.end ] && end=$(cat $W/c.end)
	c_secs=$(awk -v a="$c_t0" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
	c_runs=$(cat $W/c.rc 2>/dev/null | wc -l)
	c_state=stopped
	[ -s $W/c.end ] && c_state=done
	c_err=$(tail -n1 $W/c.err 2>/dev/null)
	if [ "$1" = dd ]; then
		[ -e $W/c.dd ] || : >$W/c.dd
		[ "$c_state" = stopped ] && [ -e $CFILE ] && stat -c %s $CFILE >>$W/c.dd
		c_bytes=$(awk '{ s += $1 } END { printf "%d", s }' $W/c.dd)
		c_method=dd
		[ "$(tail -n1 $W/c.rc)" = 0 ] || [ "$c_state" = stopped ] ||
			c_state="failed: $(tail -n1 $W/c.err)"
	else
		c_bytes=0 c_method=""	# the host adds up the reports (BGREPORT)
	fi
	rm -f $CFILE
}

# ------------------------------------------------------------ trials

fio_job() {	# JOB: its fio arguments
	case $1 in
	randw) echo "--name=randw --rw=randwrite --bs=4k --ioengine=psync --iodepth=1 --fdatasync=1" ;;
	seqw) echo "--name=seqw --rw=write --bs=1M --ioengine=libaio --iodepth=4" ;;
	esac
}

trial() {	# DEVICE JOB ROUND CONTENDER LENGTH
	dname=$1 job=$2 round=$3 c=$4 len=$5
	rm -f $CFILE
	sync
	fstrim $MNT 2>/dev/null
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
	rm -f $W/fio.json $W/fio.err
	# shellcheck disable=SC2046
	timeout $((RAMP + T + 120)) "$FIO" $(fio_job "$job") --filename=$FG --size=${FGMB}M \
		--direct=1 --time_based --runtime="$T" --ramp_time="$RAMP" --overwrite=1 \
		--fallocate=none --randrepeat=0 --norandommap --clocksource=clock_gettime \
		--percentile_list=50:99:99.9 --disk_util=0 --output-format=json \
		--output=$W/fio.json >$W/fio.err 2>&1 &
	fpid=$!
	if [ "$c" != none ]; then
		sleep "$START"
		start_contender "$c" "$len"
	fi
	wait $fpid
	frc=$?
	c_bytes=0 c_secs=0 c_method=- c_state=- c_err= runs=
	[ "$c" = none ] || stop_contender "$c"
	[ "$c" = none ] || [ $REPEAT = 0 ] || runs=" runs=$c_runs"
	if [ $frc != 0 ] || [ ! -s $W/fio.json ]; then
		fail "$dname $job round $round beside $c: fio exited $frc: $(tail -n3 $W/fio.err | tr '\n' ' ')"
		return 1
	fi
	echo "BGTRIAL dev=$dname job=$job round=$round contender=$c contender_bytes=$c_bytes contender_s=$c_secs method=$c_method state=$(q "$c_state") err=$(q "$c_err")$runs"
	printf 'BGFIO '; tr -d '\n' <$W/fio.json; echo
	[ "$c" = none ] || [ "$c" = dd ] || sed 's/^/BGREPORT /' $W/c.out
}

# ------------------------------------------------------------ devices

bench_device() {	# NAME FS
	name=$1 fs=$2
	eval "dev=\${PA_VM_$(echo "$name" | tr a-z A-Z):-}"
	if [ -z "$dev" ]; then
		say "device $name: not in this guest (vm.sh --devices); skipped"
		return 0
	fi
	disk=${dev#/dev/}
	q=/sys/block/$disk/queue
	sched=$(sed 's/.*\[\(.*\)\].*/\1/' $q/scheduler 2>/dev/null)
	# A multipath head is bio-based: no scheduler of its own.
	[ -n "$sched" ] || sched="none (no queue/scheduler: bio-based)"
	extra=""
	[ "$name" = nloop ] && extra=" over ${PA_VM_NLOOP_BACKING:-?}"
	say "device $name = $dev$extra: scheduler $sched, write_zeroes_unmap_max_bytes $(cat $q/write_zeroes_unmap_max_bytes 2>/dev/null || echo -), write_zeroes_max_bytes $(cat $q/write_zeroes_max_bytes 2>/dev/null || echo -), $(($(cat /sys/block/$disk/size) / 2048)) MiB"
	case $fs in
	ext4) mkfs.ext4 -q -F -m 0 -E lazy_itable_init=0,lazy_journal_init=0 "$dev" ;;
	xfs) mkfs.xfs -f -q "$dev" ;;
	*) echo "unknown file system $fs" ;;
	esac >$W/mkfs.log 2>&1 || { fail "mkfs.$fs $dev: $(tail -n2 $W/mkfs.log)"; return 1; }
	mount -t "$fs" "$dev" $MNT || { fail "mount $dev"; return 1; }
	"$DD" if=/dev/zero of=$FG bs=1M count="$FGMB" oflag=direct conv=fsync 2>/dev/null ||
		{ fail "laying out $FG"; umount $MNT; return 1; }
	sync
	avail=$(df -k $MNT | awk 'NR == 2 { print $4 }')
	len=$((avail / 100 * FILL / 1024 * 1048576))
	say "device $name: $fs, foreground file $FGMB MiB (written), free $((avail / 1024)) MiB, contender length $((len / 1048576)) MiB ($FILL%)"
	# What the library plans for a request of that size (the contender's
	# is a new file beside it, same file system and device).
	"$PREALLOC" probe --length "$len" $FG 2>&1 | head -n 4 | sed 's/^/BGBENCH   probe: /'
	ncont=$(echo $CONTENDERS | wc -w)
	r=1
	while [ $r -le "$ROUNDS" ]; do
		for job in $JOBS; do
			for c in $(rotate $(((r - 1) % ncont)) $CONTENDERS); do
				trial "$name/$fs" "$job" $r "$c" "$len"
			done
		done
		r=$((r + 1))
	done
	umount $MNT || fail "umount $dev"
}

# ------------------------------------------------------------ main

say "kernel $PA_VM_KERNEL, scsi_debug $PA_VM_SDEBUG_PARAMS, $(awk '/MemTotal|MemAvailable/ { printf "%s %d MiB ", $1, $2 / 1024 }' /proc/meminfo)"
say "fio $("$FIO" --version), $("$PREALLOC" --version 2>&1 | head -n1), rounds $ROUNDS, T $T s (ramp $RAMP s), contender starts at $START s, fill $FILL%, repeat $REPEAT"
say "contenders: $CONTENDERS; jobs: $JOBS; devices: $DEVICES; file systems: $FSES"
echo "BGCONFIG contenders=$(q "$CONTENDERS") time=$T"
t_begin=$(now)
for fs in $FSES; do
	for d in $DEVICES; do
		bench_device "$d" "$fs" || true
	done
done
say "trials took $(awk -v a="$t_begin" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }') s of guest time"
[ $HARNESS_FAILED = 0 ] || { echo "BGBENCH harness failed (see the lines above)"; exit 1; }
exit 0
