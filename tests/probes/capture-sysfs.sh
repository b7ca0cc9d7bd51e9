#!/bin/sh
# Capture the sysfs subtrees of block devices into a small fake-root tar that
# PREALLOC_SYSFS_ROOT can point at (after extraction), named after the kernel:
#   capture-sysfs.sh OUTDIR [MAJ:MIN ...]
# Without MAJ:MIN it captures vda (if present) and a loop device it attaches
# to a scratch file for the occasion (needs root; detached again).
# Kept: the device's top-level attributes, queue/ (not iosched/), loop/, dm/,
# md/, slaves/ links, partitions, and the SCSI device's vpd_pg* pages.
# Skipped as large or irrelevant: mq/, power/, trace/, integrity/, holders/.
set -eu

out=${1:?usage: capture-sysfs.sh OUTDIR [MAJ:MIN ...]}
shift
tmp=$(mktemp -d)
loopdev=
cleanup() {
	[ -n "$loopdev" ] && losetup -d "$loopdev"
	rm -rf "$tmp"
}
trap cleanup EXIT

# Copy the readable regular files of directory $1 (no recursion) to $2.
copy_files() {
	mkdir -p "$2"
	for f in "$1"/*; do
		[ -f "$f" ] && [ -r "$f" ] || continue
		case ${f##*/} in uevent|stat|inflight|events*|diskseq) continue ;; esac
		cat "$f" > "$2/${f##*/}" 2>/dev/null || rm -f "$2/${f##*/}"
	done
}

# Relative path from directory $1 to path $2 (both absolute, under /sys).
relpath() {
	python3 -c 'import os,sys; print(os.path.relpath(sys.argv[2], sys.argv[1]))' "$1" "$2"
}

capture_dev() {
	src=$(readlink -f "/sys/dev/block/$1")
	dst="$tmp$src"
	copy_files "$src" "$dst"
	for sub in queue loop dm md; do
		[ -d "$src/$sub" ] && copy_files "$src/$sub" "$dst/$sub"
	done
	mkdir -p "$tmp/sys/dev/block"
	ln -sfn "$(relpath "$tmp/sys/dev/block" "$dst")" "$tmp/sys/dev/block/$1"
	if [ -d "$src/slaves" ]; then
		mkdir -p "$dst/slaves"
		for s in "$src"/slaves/*; do
			[ -e "$s" ] || continue
			t=$(readlink -f "$s")
			ln -sfn "$(relpath "$dst/slaves" "$tmp$t")" "$dst/slaves/${s##*/}"
			capture_dev "$(cat "$s/dev")"
		done
	fi
	if [ -e "$src/device/scsi_level" ]; then
		d=$(readlink -f "$src/device")
		copy_files "$d" "$tmp$d"
		ln -sfn "$(relpath "$dst" "$tmp$d")" "$dst/device"
	fi
	for p in "$src"/*/partition; do
		[ -e "$p" ] || continue
		pd=${p%/partition}
		copy_files "$pd" "$tmp$pd"
		ln -sfn "$(relpath "$tmp/sys/dev/block" "$tmp$pd")" "$tmp/sys/dev/block/$(cat "$pd/dev")"
	done
	if [ -e "$src/partition" ]; then
		capture_dev "$(cat "$src/../dev")"
	fi
}

if [ $# -eq 0 ]; then
	[ -e /sys/block/vda/dev ] && set -- "$(cat /sys/block/vda/dev)"
	truncate -s 64M "$tmp/loop.img"
	loopdev=$(losetup -f --show "$tmp/loop.img")
	set -- "$@" "$(cat "/sys/class/block/${loopdev#/dev/}/dev")"
fi
for d in "$@"; do
	capture_dev "$d"
done

mkdir -p "$out"
name="$out/sysfs-$(uname -r).tar.xz"
tar -C "$tmp" -cJf "$name" --sort=name --owner=0 --group=0 sys
echo "$name: $*"
