#!/bin/bash
# SPDX-License-Identifier: MIT
# PostgreSQL's own test suites with pg_prealloc loaded, against the same
# suites without it (root, the postgres user, Perl's IPC::Run; not run by
# `meson test`: hours of CPU).
#
# Builds PostgreSQL from a source tree (or a Debian .dsc, unpacked first)
# with --enable-tap-tests --enable-cassert into WORKDIR (kept: a second run,
# also one for other SUITES at the same time, reuses the build), builds
# pg_prealloc against it with meson, and runs each
# suite with TEMP_CONFIG adding, in mode "with":
#     shared_preload_libraries = '<the module, by path>'
#     pg_prealloc.segments_ahead = $PGP_AHEAD
# and in both modes wal_recycle = off (every segment new: the worker's case).
# TAP suites run one test file at a time with PG_TEST_NOCLEAN, so that after
# each file, before its data directories are removed:
#   - the worker's log lines are counted: servers where it installed
#     segments ("installing WAL segments ahead"), and the segments that the
#     workers that exited cleanly had installed;
#   - pg_waldump -p DATADIR --timeline TLI --start LSN -n 1 (LSN: the
#     latest checkpoint's, from pg_controldata; TLI: the timeline recovery
#     reads that segment from) runs on every data directory the file left:
#     no file name, so pg_waldump takes the segment size from whichever
#     WAL-named file readdir() returns first.
# One line per suite and mode goes to WORKDIR/results-MAJOR.txt.
# Exit status: 1 when a suite failed in a mode, a suite that started servers
# with pg_prealloc loaded never saw the worker install a segment, or
# pg_waldump -p failed on a data directory other than at a zero-filled
# segment (PostgreSQL's own: every one the worker installs states the
# segment size; counted as zero_segment_dirs); 77 when it cannot run here
# (not root, no postgres user, no IPC::Run).
#
# usage: pg-suites.sh SOURCE WORKDIR
#   SOURCE: an unpacked PostgreSQL source tree or a .dsc (apt-get source)
#   env: MODES="with without"  PGP_AHEAD=4 (segments ahead per server; the
#        default of up to 64 would fill the disk with ~100 data directories)
#        SUITES="recovery pg_basebackup pg_rewind pg_waldump pg_verifybackup
#        subscription regress"  JOBS=$(nproc)
set -euo pipefail
SOURCE=$(realpath "$1") WORK=$(realpath -m "$2")
ROOT=$(realpath "$(dirname "$0")/../../..")
MODES=${MODES:-with without} PGP_AHEAD=${PGP_AHEAD:-4} JOBS=${JOBS:-$(nproc)}
SUITES=${SUITES:-recovery pg_basebackup pg_rewind pg_waldump pg_verifybackup subscription regress}
[ "$(id -u)" = 0 ] || { echo "run as root: skip" >&2; exit 77; }
id postgres >/dev/null 2>&1 || { echo "no postgres user: skip" >&2; exit 77; }
perl -MIPC::Run -e 1 2>/dev/null || { echo "needs libipc-run-perl: skip" >&2; exit 77; }

as_pg() { runuser -u postgres -- "$@"; }
log() { echo "$(date +%T) $*" >&2; }

# PostgreSQL, built once in $WORK/src, and installed only into its temporary
# installation (tmp_install), which the suites run from.  Not "make install":
# Debian's patches put $libdir under /usr/lib/postgresql/MAJOR whatever the
# prefix, where the distribution's server lives.
build_postgres() {
	mkdir -p "$WORK"
	chown postgres: "$WORK"
	if [ ! -d "$WORK/src" ]; then
		case $SOURCE in
		*.dsc) dpkg-source -x --no-check "$SOURCE" "$WORK/src" >/dev/null ;;
		*) cp -a "$SOURCE/." "$WORK/src" ;;
		esac
		chown -R postgres: "$WORK/src"
	fi
	if [ ! -f "$WORK/src/config.status" ]; then
		log "configure"
		as_pg sh -c "cd '$WORK/src' && ./configure --prefix='$WORK/inst' --enable-tap-tests \
			--enable-cassert --enable-debug --without-icu" > "$WORK/configure.log" 2>&1
	fi
	if [ ! -d "$WORK/src/tmp_install" ]; then
		log "make (log: $WORK/make.log)"
		as_pg make -C "$WORK/src" -j"$JOBS" -s > "$WORK/make.log" 2>&1
		as_pg make -C "$WORK/src" -s temp-install >> "$WORK/make.log" 2>&1
	fi
	BIN=$WORK/src/tmp_install$WORK/inst/bin	# the --prefix above
}

# pg_prealloc against that PostgreSQL, loaded by path (no install needed).
build_module() {
	local b=$WORK/pg_prealloc-build
	if [ ! -f "$b/build.ninja" ]; then
		PATH=$BIN:$PATH meson setup "$b" "$ROOT" -Dpostgresql=enabled \
			> "$WORK/meson.log" 2>&1
	fi
	ninja -C "$b" examples/postgresql/pg_prealloc.so >> "$WORK/meson.log" 2>&1
	MODULE=$b/examples/postgresql/pg_prealloc.so
	chmod -R a+rX "$b"
	printf "wal_recycle = off\n" > "$WORK/without.conf"
	cat > "$WORK/with.conf" <<-CONF
	wal_recycle = off
	shared_preload_libraries = '$MODULE'
	pg_prealloc.segments_ahead = $PGP_AHEAD
	CONF
	chmod 644 "$WORK"/*.conf
}

suite_dir() {
	case $1 in
	recovery | subscription | regress) echo "$WORK/src/src/test/$1" ;;
	*) echo "$WORK/src/src/bin/$1" ;;
	esac
}

# The timeline recovery reads the segment holding LSN from, roughly as
# XLogFileReadAnyTLI does (which also weighs where each timeline begins):
# the newest one (with its history file) whose copy of that segment is in
# pg_wal.  A server promoted and stopped before its first checkpoint keeps
# its latest checkpoint on the old timeline, whose copy of the switch
# segment became a ".partial".
read_tli() {	# DATADIR TLI LSN SEGSIZE
	local per seg f t best=$2
	per=$((0x100000000 / $4))
	seg=$(((16#${3%/*} * 0x100000000 + 16#${3#*/}) / $4))
	for f in "$1"/pg_wal/????????"$(printf '%08X%08X' $((seg / per)) $((seg % per)))"; do
		[ -f "$f" ] || continue	# no match: the pattern itself
		t=${f##*/}
		t=$((16#${t:0:8}))
		if [ "$t" -gt "$best" ] && [ -f "$1/pg_wal/$(printf %08X "$t").history" ]; then
			best=$t
		fi
	done
	echo "$best"
}

# The WAL-named files in DATADIR's pg_wal that say 0 bytes per segment:
# zero-filled segments PostgreSQL made itself (every one the worker installs
# states the size), which pg_waldump -p stops at if readdir() returns one
# first.
zero_segments() {	# DATADIR
	local f
	for f in "$1"/pg_wal/*; do
		[[ ${f##*/} =~ ^[0-9A-F]{24}$ ]] || continue
		[ "$(od -An -t u4 -j 32 -N 4 "$f" | tr -d ' ')" != 0 ] || echo -n "${f##*/} "
	done
}

# pg_waldump -p on each data directory under DIR: "ok fail zero" counts
# (zero: directories holding one of PostgreSQL's zero-filled segments); the
# failures' messages go to $FAILS.
waldump_dirs() {
	local d c z tli lsn ok=0 fail=0 zero=0
	# Servers' data directories (not base backups: no WAL of their own).
	for d in $(find "$1" -name pg_control -path '*/pgdata/global/*' 2>/dev/null); do
		d=${d%/global/pg_control}
		c=$("$BIN/pg_controldata" "$d")
		lsn=$(sed -n 's/^Latest checkpoint location: *//p' <<< "$c")
		tli=$(read_tli "$d" "$(sed -n "s/^Latest checkpoint's TimeLineID: *//p" <<< "$c")" \
			"$lsn" "$(sed -n 's/^Bytes per WAL segment: *//p' <<< "$c")")
		if as_pg "$BIN/pg_waldump" -p "$d" --timeline "$tli" --start "$lsn" -n 1 \
			> /dev/null 2> "$ERR"; then
			ok=$((ok + 1))
		else
			fail=$((fail + 1))
			echo "$d: $(cat "$ERR")" >> "$FAILS"
		fi
		z=$(zero_segments "$d")
		[ -z "$z" ] || { zero=$((zero + 1)); echo "zero-filled in $d: $z" >> "$FAILS"; }
	done
	echo "$ok $fail $zero"
}

# What the workers logged under DIR: "servers segments".
worker_lines() {
	local n s
	n=$(grep -rh "pg_prealloc: installing WAL segments ahead" "$1" 2>/dev/null | wc -l)
	s=$(grep -rhoE "pg_prealloc: worker exiting, [0-9]+ segments" "$1" 2>/dev/null |
		awk '{ s += $4 } END { print s + 0 }')
	echo "$n $s"
}

# One TAP suite, file by file: "files tests failed_files servers segments
# waldump_ok waldump_fail zero_segment_dirs".
run_tap() {	# MODE DIR
	local dir=$2 t out files=0 tests=0 failed=() w c z n ok=0 fail=0 zero=0 srv=0 seg=0
	as_pg make -C "$dir" -s checkprep > /dev/null 2>&1	# its EXTRA_INSTALL
	for t in "$dir"/t/*.pl; do
		t=t/$(basename "$t")
		rm -rf "$dir/tmp_check"
		out=$(as_pg env TEMP_CONFIG="$WORK/$1.conf" PG_TEST_NOCLEAN=1 NO_TEMP_INSTALL=1 \
			PROVE_TESTS="$t" make -C "$dir" check 2>&1) || true
		files=$((files + 1))
		n=$(sed -n 's/^Files=1, Tests=\([0-9]*\),.*/\1/p' <<< "$out")
		tests=$((tests + ${n:-0}))
		grep -qE '^Result: (PASS|NOTESTS)' <<< "$out" || { failed+=("$t"); echo "$out" > "$RESULTS_DIR/$1-$(basename "$dir")-$(basename "$t").log"; }
		read -r w c < <(worker_lines "$dir/tmp_check/log")
		srv=$((srv + w)) seg=$((seg + c))
		read -r w c z < <(waldump_dirs "$dir/tmp_check")
		ok=$((ok + w)) fail=$((fail + c)) zero=$((zero + z))
	done
	rm -rf "$dir/tmp_check"
	echo "files=$files tests=$tests failed=${#failed[@]} (${failed[*]:-}) servers_installing=$srv segments_at_exit=$seg waldump_ok=$ok waldump_fail=$fail zero_segment_dirs=$zero"
}

run_regress() {	# MODE
	local dir out res w c
	dir=$(suite_dir regress)
	out=$(as_pg env TEMP_CONFIG="$WORK/$1.conf" NO_TEMP_INSTALL=1 make -C "$dir" check 2>&1) || true
	res=$(grep -E 'tests (passed|failed)|failed \(ignoring|All [0-9]+ tests' <<< "$out" | tail -1)
	grep -qE '^ *All [0-9]+ tests passed' <<< "$out" || cp "$dir/regression.diffs" "$RESULTS_DIR/$1-regress.diffs" 2>/dev/null || true
	read -r w c < <(worker_lines "$dir/log")
	echo "$res servers_installing=$w segments_at_exit=$c"
}

# 0 when SUITE's line LINE says it passed (and, loaded, saw installs).
verdict() {	# SUITE LINE
	[[ ! $2 =~ NO-INSTALLS ]] || return 1
	if [ "$1" = regress ]; then
		[[ $2 =~ All\ [0-9]+\ tests\ passed ]]
	else
		[[ $2 =~ failed=0\  && ! $2 =~ tests=0\  ]]
	fi
}

build_postgres
build_module
MAJOR=$("$BIN/pg_config" --version | sed 's/^PostgreSQL \([0-9]*\).*/\1/')
RESULTS_DIR=$WORK/results-$MAJOR
mkdir -p "$RESULTS_DIR"
# This run's own (another may run other suites on the same build).
FAILS=$(mktemp "$RESULTS_DIR/waldump-failures.XXXXXX")
ERR=$(mktemp "$RESULTS_DIR/waldump-stderr.XXXXXX")
log "PostgreSQL $MAJOR, module $MODULE, pg_waldump failures: $FAILS"
status=0
for mode in $MODES; do
	for s in $SUITES; do
		log "$mode: $s"
		echo "== $mode $s" >> "$FAILS"
		if [ "$s" = regress ]; then
			r=$(run_regress "$mode")
		else
			r=$(run_tap "$mode" "$(suite_dir "$s")")
		fi
		# Loaded but never installing would test nothing (pg_waldump's
		# option tests on 15 start no server).
		[ "$mode" != with ] || [[ ! $r =~ servers_installing=0 ]] ||
			[[ $r =~ waldump_ok=0\ waldump_fail=0 ]] || r="$r NO-INSTALLS"
		echo "PostgreSQL $MAJOR $mode $s: $r" | tee -a "$WORK/results-$MAJOR.txt"
		verdict "$s" "$r" || status=1
	done
done
# A zero-filled segment stops pg_waldump -p with or without pg_prealloc
# ("0 bytes"): PostgreSQL's own, counted in zero_segment_dirs.  That the
# worker's segments carry the size is asserted where only its segments are
# ahead (pg-test.sh) and by PostgreSQL's own pg_waldump suite.
if grep '^/' "$FAILS" | grep -vE '(specifies|\() ?0 bytes'; then
	echo "pg_waldump -p failed on the data directories above" >&2
	status=1
fi
exit $status
