#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Manual benchmark for block-device targets (issue 4), root only:
# zero 512 MiB of a direct-I/O loop device with the library (auto, forced
# uring, forced zeroout) and with dd over the same range, alternating, then
# check that the range reads zero and the MiB after it is unchanged.
#
# usage: tests/bench/blockdev-bench.sh BUILD/src/tool/prealloc [RUNS]
# Prints one line per run and the median of each column, in milliseconds
# (whole command, the library's final fdatasync included; dd as in the issue,
# without conv=fsync).
set -eu
TOOL=$1
RUNS=${2:-7}
IMG=$(mktemp /var/tmp/prealloc-bdbench-XXXXXX)
PAT=$IMG.pattern
truncate -s 1G "$IMG"
L=$(losetup --show -f --direct-io=on "$IMG")
trap 'losetup -d "$L"; rm -f "$IMG" "$PAT"' EXIT
Q=/sys/block/${L#/dev/}/queue
echo "# $L: write_zeroes_max_bytes=$(cat $Q/write_zeroes_max_bytes)" \
     "write_zeroes_unmap_max_bytes=$(cat $Q/write_zeroes_unmap_max_bytes 2>/dev/null || echo absent)"
head -c $((513 << 20)) /dev/urandom > "$PAT"

prep() {	# non-zero data over the range and the MiB after it
	dd if="$PAT" of="$L" bs=4M oflag=direct iflag=fullblock status=none
	blockdev --flushbufs "$L"
}
check() {
	cmp -s -n $((512 << 20)) "$L" /dev/zero || { echo "range not zero after $1"; exit 1; }
	cmp -s -i $((512 << 20)) -n $((1 << 20)) "$L" "$PAT" ||
		{ echo "bytes after the range changed by $1"; exit 1; }
}
ms() {
	local s
	s=$(date +%s%N)
	"$@" >/dev/null
	echo $((($(date +%s%N) - s) / 1000000))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A col
names="auto uring zeroout dd"
for i in $(seq "$RUNS"); do
	line="run $i"
	for n in $names; do
		prep
		case $n in
		dd) t=$(ms dd if=/dev/zero of="$L" bs=2M count=256 oflag=direct status=none) ;;
		*) t=$(ms "$TOOL" run --zero-data --force --method "$n" --length 512M "$L") ;;
		esac
		check "$n"
		col[$n]+="$t "
		line+=" $n=$t"
	done
	echo "$line"
done
for n in $names; do
	echo "median $n: $(echo ${col[$n]} | tr ' ' '\n' | median) ms"
done
