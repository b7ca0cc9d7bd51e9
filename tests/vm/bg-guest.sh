#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Background mode beside a foreground, inside the 6.18 guest (the shape of
# the FALLOC_FL_WRITE_ZEROES cover letter's experiment).
# Run by vm.sh as the guest's /bin/vm-test (busybox sh), see README.md:
#
#   tests/vm/vm.sh run --kernel 6.18 --devices sdebug,nloop --mem 2048 \
#       --sdebug "dev_size_mb=512 lbpu=1 lbpws=1 lbprz=1 ndelay=10000" \
#       --timeout 3600 \
#       --extra /usr/bin/fio,/usr/bin/dd,$PWD/build/examples/prealloc \
#       -- tests/vm/bg-guest.sh --prealloc $PWD/build/examples/prealloc
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
# Output: BGRAW lines (one per trial), BGBENCH lines (the summary).  Exit 0
# when every trial ran (whatever the numbers), 77 outside the guest or
# without fio, 1 when the harness failed (mkfs, mount, fio).

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
RESULTS=$W/results
mkdir -p $MNT $W
: >$RESULTS
HARNESS_FAILED=0

now() { cut -d' ' -f1 /proc/uptime; }
say() { echo "BGBENCH $*"; }
fail() { echo "BGBENCH harness failure: $*"; HARNESS_FAILED=1; }

# Flatten JSON (one document, any layout) into "path value" lines:
# {"a":{"b":[1,{"c":"x"}]}} gives "a.b.0 1" and "a.b.1.c x".
FLATTEN='
function cur(   p) {
	if (d == 0) return ""
	p = path[d]
	if (p != "") p = p "."
	return kind[d] == "{" ? p key[d] : p idx[d]
}
{ s = s $0 "\n" }
END {
	i = index(s, "{"); if (i == 0) exit
	n = length(s); d = 0
	while (i <= n) {
		c = substr(s, i, 1)
		if (c == "{" || c == "[") {
			p = cur(); d++; kind[d] = c; idx[d] = 0; path[d] = p; has[d] = 0; i++
		} else if (c == "}" || c == "]") {
			d--; i++; if (d == 0) exit
		} else if (c == ",") {
			if (kind[d] == "[") idx[d]++
			has[d] = 0; i++
		} else if (c == ":" || c == " " || c == "\n" || c == "\t" || c == "\r") {
			i++
		} else if (c == "\"") {
			j = i + 1; t = ""
			while (j <= n) {
				c = substr(s, j, 1)
				if (c == "\\") { t = t substr(s, j, 2); j += 2; continue }
				if (c == "\"") break
				t = t c; j++
			}
			i = j + 1
			if (kind[d] == "{" && !has[d]) { key[d] = t; has[d] = 1 }
			else print cur() " " t
		} else {
			j = i
			while (j <= n && index(",}] \n\t\r", substr(s, j, 1)) == 0) j++
			print cur() " " substr(s, i, j - i); i = j
		}
	}
}'
flatten() { awk "$FLATTEN" "$1"; }
# KEY FLATFILE: the value at KEY, or "-".
jget() { awk -v k="$1" '$1 == k { v = substr($0, length(k) + 2); found = 1; exit } END { print found ? v : "-" }' "$2"; }

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

stop_contender() {	# NAME: stop it, then set c_bytes c_secs c_method c_by c_state
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
	if [ "$1" = dd ]; then
		[ -e $W/c.dd ] || : >$W/c.dd
		[ "$c_state" = stopped ] && [ -e $CFILE ] && stat -c %s $CFILE >>$W/c.dd
		c_bytes=$(awk '{ s += $1 } END { printf "%d", s }' $W/c.dd)
		c_method=dd
		[ "$(tail -n1 $W/c.rc)" = 0 ] || [ "$c_state" = stopped ] ||
			c_state="failed: $(tail -n1 $W/c.err)"
	else
		# One JSON report per run: sum the bytes, collect the methods.
		c_bytes=0; c_method=""
		: >$W/c.flat
		while read -r line; do
			echo "$line" >$W/c.one
			flatten $W/c.one >$W/c.flat
			b=$(jget bytes_zeroed $W/c.flat)
			[ "$b" = - ] || c_bytes=$((c_bytes + b))
			m=$(jget method $W/c.flat)
			case " $c_method " in *" $m "*) ;; *) c_method="${c_method:+$c_method+}$m" ;; esac
			err=$(jget error $W/c.flat)
			[ "$err" = - ] || [ "$err" = "Operation canceled" ] || c_state="failed: $err"
		done <$W/c.out
		[ -n "$c_method" ] || c_method=none
		# The last report's evidence: bytes per method, background bits.
		c_by=$(awk '$1 ~ /^bytes_by_method\./ && $2 != 0 { sub(/^bytes_by_method\./, "", $1); printf "%s%s=%s", sep, $1, $2; sep = "," }' $W/c.flat)
		c_bg=$(awk '$1 ~ /^background\./ { printf "%s%s", sep, $2; sep = "+" }' $W/c.flat)
		c_method="$c_method${c_bg:+ bg=$c_bg}"
		[ -s $W/c.out ] || c_state="failed: no report: $(tail -n1 $W/c.err 2>/dev/null)"
	fi
	[ $REPEAT = 1 ] && c_state="$c_state, $c_runs runs"
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
	c_bytes=0 c_secs=0 c_method=- c_by=- c_state=-
	[ "$c" = none ] || stop_contender "$c"
	if [ $frc != 0 ] || [ ! -s $W/fio.json ]; then
		fail "$dname $job round $round beside $c: fio exited $frc: $(tail -n3 $W/fio.err | tr '\n' ' ')"
		return 1
	fi
	flatten $W/fio.json >$W/fio.flat
	bw=$(jget jobs.0.write.bw_bytes $W/fio.flat)
	iops=$(jget jobs.0.write.iops $W/fio.flat)
	p99=$(jget jobs.0.write.clat_ns.percentile.99.000000 $W/fio.flat)
	mean=$(jget jobs.0.write.lat_ns.mean $W/fio.flat)
	sp99=$(jget jobs.0.sync.lat_ns.percentile.99.000000 $W/fio.flat)
	[ "$job" = randw ] || sp99=-
	cmibs=$(awk -v b="$c_bytes" -v s="$c_secs" 'BEGIN { printf "%.1f", (s > 0 ? b / 1048576 / s : 0) }')
	# Tab-separated: dev job round contender bw iops p99 mean sp99 cbytes csecs cmibs state method
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$dname" "$job" "$round" \
		"$c" "$bw" "$iops" "$p99" "$mean" "$sp99" "$c_bytes" "$c_secs" "$cmibs" "$c_state" \
		"$c_method" >>$RESULTS
	[ -n "$c_by" ] || c_by=-
	echo "BGRAW dev=$dname job=$job round=$round contender=$c bw_MiBs=$(awk -v b="$bw" 'BEGIN { printf "%.2f", b / 1048576 }') iops=$iops p99_us=$(awk -v p="$p99" 'BEGIN { printf "%.0f", p / 1000 }') sync_p99_us=$sp99 contender_bytes=$c_bytes contender_s=$c_secs contender_MiBs=$cmibs state=\"$c_state\" method=\"$c_method\" bytes_by_method=$c_by"
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

# ------------------------------------------------------------ summary

SUMMARY='
function med(list,   n, a, i, j, x) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]; a[j + 1] = x }
	lo = a[1]; hi = a[n]
	if (n == 0) return "-"
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function rng(list, fmt,   m) { m = med(list); if (m == "-") return "-"; return sprintf(fmt " (" fmt "-" fmt ")", m, lo, hi) }
function ratio(a, b) { return (a == "-" || b == "-" || b + 0 == 0) ? "" : a / b }
BEGIN { FS = "\t" }
{
	k = $1 SUBSEP $2
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	bw[k, $4, $3] = $5; iops[k, $4, $3] = $6; p99[k, $4, $3] = $7; mean[k, $4, $3] = $8; sp[k, $4, $3] = $9
	cm[k, $4, $3] = $12; cs[k, $4, $3] = $11; st[k, $4, $3] = $13; me[k, $4, $3] = $14
	if ($3 > maxr) maxr = $3
}
END {
	nc = split(contenders, cl, " ")
	label["none"] = "undisturbed"; label["auto"] = "prealloc auto"
	label["uring"] = "prealloc uring"; label["dd"] = "dd"
	for (o = 1; o <= nk; o++) {
		k = order[o]; split(k, kk, SUBSEP); dev = kk[1]; job = kk[2]
		b = ""; io = ""; pp = ""; s = ""; n = 0
		for (r = 1; r <= maxr; r++) if ((k, "none", r) in bw) {
			b = b " " bw[k, "none", r] / 1048576; io = io " " iops[k, "none", r]
			pp = pp " " p99[k, "none", r] / 1000; n++
			if (sp[k, "none", r] != "-") s = s " " sp[k, "none", r] / 1000
		}
		jl = job == "randw" ? "random 4 KiB writes + fdatasync, QD1" : "sequential 1 MiB writes, libaio QD4"
		print "BGBENCH"
		print "BGBENCH " dev " / " jl " (" job "): " n " rounds of " T " s"
		printf "BGBENCH   undisturbed: %s MiB/s, %s IOPS, write p99 %s us%s\n", rng(b, "%.2f"), rng(io, "%.0f"), rng(pp, "%.0f"), s == "" ? "" : ", fdatasync p99 " rng(s, "%.0f") " us"
		printf "BGBENCH   %-15s %-8s %-20s %-20s %-20s %-21s %-9s %s\n", "beside", "MiB/s", "bw ratio", "p99 ratio", "sync p99 ratio", "contender MiB/s", "active s", "contender: finished before the foreground / method"
		cover = ""
		for (ci = 1; ci <= nc; ci++) {
			c = cl[ci]
			rb = ""; rp = ""; rs = ""; ab = ""; cmb = ""; cse = ""; sts = ""; mes = ""; nrun = 0; ndone = 0
			for (r = 1; r <= maxr; r++) {
				if (!((k, c, r) in bw)) continue
				ab = ab " " bw[k, c, r] / 1048576
				if (c == "none") continue
				x = ratio(bw[k, c, r], bw[k, "none", r]); if (x != "") rb = rb " " x
				x = ratio(p99[k, c, r], p99[k, "none", r]); if (x != "") rp = rp " " x
				x = ratio(sp[k, c, r], sp[k, "none", r]); if (x != "") rs = rs " " x
				cmb = cmb " " cm[k, c, r]; cse = cse " " cs[k, c, r]
				nrun++; if (st[k, c, r] ~ /^done/) ndone++
				else if (st[k, c, r] !~ /^stopped/ && index(sts, st[k, c, r] ";") == 0) sts = sts st[k, c, r] ";"
				if (index(mes, me[k, c, r] ";") == 0) mes = mes me[k, c, r] ";"
			}
			if (ab == "") continue
			mab = med(ab)
			cover = cover sprintf("%s%.2f MiB/s %s", cover == "" ? "" : " vs ", mab, c == "none" ? "undisturbed" : "beside " label[c])
			if (c == "none") continue
			sub(/;$/, "", mes)
			sts = sprintf("done in %d/%d", ndone, nrun) (sts == "" ? "" : "; " sts)
			sub(/;$/, "", sts)
			printf "BGBENCH   %-15s %-8.2f %-20s %-20s %-20s %-21s %-9.1f %s / %s\n", label[c], mab, rng(rb, "%.3f"), rng(rp, "%.2f"), rs == "" ? "-" : rng(rs, "%.2f"), rng(cmb, "%.1f"), med(cse), sts, mes
		}
		print "BGBENCH   as the cover letter puts it: " cover
	}
}'

# ------------------------------------------------------------ main

say "kernel $PA_VM_KERNEL, scsi_debug $PA_VM_SDEBUG_PARAMS, $(awk '/MemTotal|MemAvailable/ { printf "%s %d MiB ", $1, $2 / 1024 }' /proc/meminfo)"
say "fio $("$FIO" --version), $("$PREALLOC" --version 2>&1 | head -n1), rounds $ROUNDS, T $T s (ramp $RAMP s), contender starts at $START s, fill $FILL%, repeat $REPEAT"
say "contenders: $CONTENDERS; jobs: $JOBS; devices: $DEVICES; file systems: $FSES"
t_begin=$(now)
for fs in $FSES; do
	for d in $DEVICES; do
		bench_device "$d" "$fs" || true
	done
done
say "trials took $(awk -v a="$t_begin" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }') s of guest time"
awk -v contenders="$CONTENDERS" -v T="$T" "$SUMMARY" $RESULTS
[ $HARNESS_FAILED = 0 ] || { echo "BGBENCH harness failed (see the lines above)"; exit 1; }
exit 0
