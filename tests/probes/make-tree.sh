#!/bin/sh
# Build a fake sysfs root in which MAJ:MIN is partition nvme0n1p1 of the
# nvme-loop namespace captured on 6.18 (DLFEAT 0x09, write_zeroes_unmap_max_*
# = 1044480): a device that advertises unmap Write Zeroes.
#   make-tree.sh MAJ:MIN OUTDIR
#   PREALLOC_SYSFS_ROOT=OUTDIR/sys prealloc probe FILE-ON-MAJ:MIN
# Use the st_dev of a real file (e.g. `stat -c %Hd:%Ld FILE`) to make the
# library believe that file lives on such a partition.
set -eu

dev=${1:?usage: make-tree.sh MAJ:MIN OUTDIR}
out=${2:?usage: make-tree.sh MAJ:MIN OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
disk=sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1

mkdir -p "$out"
tar -C "$out" -xJf "$here/fixtures/sysfs/nvme-loop-over-scsi-debug-6.18.tar.xz"
# The namespace itself is 259:1; move it out of the way if that is our number.
if [ "$dev" = "259:1" ]; then
	rm "$out/sys/dev/block/259:1"
	echo 259:4095 > "$out/$disk/dev"
	ln -s ../../devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1 "$out/sys/dev/block/259:4095"
fi
part="$out/$disk/nvme0n1p1"
mkdir -p "$part"
echo "$dev" > "$part/dev"
echo 1 > "$part/partition"
echo 2048 > "$part/start"
echo $(( $(cat "$out/$disk/size") - 2048 )) > "$part/size"
echo 0 > "$part/ro"
rm -f "$out/sys/dev/block/$dev"
ln -s ../../devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1/nvme0n1p1 "$out/sys/dev/block/$dev"
echo "$out/sys"
