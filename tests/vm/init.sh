#!/bin/busybox sh
# SPDX-License-Identifier: MIT
#
# /init of the test guests (see vm.sh): load the drivers, create the devices
# named in /etc/vm.conf, export their paths as PA_VM_* variables, run
# /bin/vm-test (or the several programs VM_TESTS names, one after another),
# print "PREALLOC-VM-RESULT rc=N" and exit QEMU through isa-debug-exit with
# N + 1.

/bin/busybox --install -s
export PATH=/usr/local/sbin:/sbin:/bin:/usr/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
ln -sf /proc/mounts /etc/mtab
. /etc/vm.conf

finish() {
	rc=$1
	[ "$rc" -gt 125 ] && rc=125
	sync
	echo
	echo "PREALLOC-VM-RESULT rc=$rc"
	printf "\\$(printf %o $((rc + 1)))" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
	poweroff -f
}

has() { case " $VM_DEVICES " in *" $1 "*) return 0 ;; esac; return 1; }

for m in $(cat /lib/modules/order); do
	insmod /lib/modules/$m 2>/dev/null || echo "init: insmod $m failed (ignored)"
done

ndebug=0
has sdebug && ndebug=$((ndebug + 1))
has nloop && ndebug=$((ndebug + 1))
if [ $ndebug -gt 0 ]; then
	insmod /lib/modules/scsi_debug.ko $VM_SDEBUG add_host=$ndebug per_host_store=1 ||
		{ echo "init: insmod scsi_debug $VM_SDEBUG failed"; finish 99; }
fi

# scsi_debug disks ordered by H:C:T:L.
sdebug_disks() {
	for b in /sys/block/sd*; do
		[ -e "$b/device/model" ] || continue
		case $(cat $b/device/model) in scsi_debug*) ;; *) continue ;; esac
		echo "$(basename $(readlink $b/device)) ${b##*/}"
	done | sort | while read -r hctl d; do echo $d; done
}

# First disk of a QEMU scsi-hd.
scsihd_disk() {
	for b in /sys/block/sd*; do
		[ "$(cat $b/device/vendor 2>/dev/null)" = "QEMU    " ] && { echo ${b##*/}; return; }
	done
}

# Namespace block device of the NVMe controller whose serial (or, for
# fabrics, transport) is $1.
nvme_disk() {
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/serial" ] || continue
		s=$(cat $c/serial); s=${s%% *}
		t=$(cat $c/transport)
		[ "$s" = "$1" ] || [ "$t" = "$1" ] || continue
		for ns in $c/nvme*n*; do
			[ -e "$ns" ] || continue
			echo ${ns##*/} | sed 's/c[0-9]*n/n/'
			return
		done
	done
}

found() {	# NAME: path of the device, or nothing
	case $1 in
	nvme512|nvme4k|intelid|cdata|clog|cscratch|ccow) d=$(nvme_disk $1) ;;
	nloop) d=$(nvme_disk loop) ;;
	scsihd) d=$(scsihd_disk) ;;
	sdebug) d=$(sdebug_disks | head -n1) ;;
	esac
	[ -n "$d" ] && [ -b /dev/$d ] && echo /dev/$d
}

wait_for() {	# NAME: poll until the device appears (TCG probes slowly)
	i=0
	while [ $i -lt 300 ]; do
		d=$(found $1) && { echo $d; return 0; }
		sleep 0.2
		i=$((i + 1))
	done
	echo "init: device $1 did not appear" >&2
	return 1
}

if has nloop; then
	[ -f /lib/modules/nvme-loop.ko ] || { echo "init: this kernel has no nvme-loop module"; finish 99; }
	backing=/dev/$(sdebug_disks | tail -n1)
	i=0
	while [ "$(sdebug_disks | wc -l)" -lt $ndebug ] && [ $i -lt 300 ]; do
		sleep 0.2; i=$((i + 1)); backing=/dev/$(sdebug_disks | tail -n1)
	done
	mount -t configfs none /sys/kernel/config
	S=/sys/kernel/config/nvmet/subsystems/zt
	P=/sys/kernel/config/nvmet/ports/1
	mkdir $S && echo 1 >$S/attr_allow_any_host && mkdir $S/namespaces/1 &&
		echo $backing >$S/namespaces/1/device_path &&
		echo 1 >$S/namespaces/1/enable && mkdir $P && echo loop >$P/addr_trtype &&
		ln -s $S $P/subsystems/zt &&
		echo "transport=loop,nqn=zt" >/dev/nvme-fabrics ||
		{ echo "init: nvmet loop setup over $backing failed"; finish 99; }
	# A second controller of the same subsystem: with native multipath
	# (nvme_core.multipath=Y, Debian's default) the namespace head gets
	# two paths.
	echo "transport=loop,nqn=zt,duplicate_connect" >/dev/nvme-fabrics ||
		{ echo "init: second nvme-loop path failed"; finish 99; }
	export PA_VM_NLOOP_BACKING=$backing PA_VM_NLOOP_PATHS=2
fi

for n in $VM_DEVICES; do
	d=$(wait_for $n) || finish 99
	v=PA_VM_$(echo $n | tr a-z A-Z)
	export $v=$d
	echo "init: $n = $d"
done
# The second nvme-loop path is scanned asynchronously: wait for it too.  The
# head nvmeSnN has the hidden paths nvmeSc<ctrl>nN (6.12 has no multipath/
# directory on the head yet).
if has nloop; then
	h=${PA_VM_NLOOP##*/}
	i=0
	while [ "$(ls -d /sys/class/block/${h%n*}c*n${h##*n} 2>/dev/null | wc -l)" -lt 2 ]; do
		[ $i -lt 300 ] || { echo "init: no second path under $PA_VM_NLOOP"; finish 99; }
		sleep 0.2; i=$((i + 1))
	done
fi
export PA_VM_DEVICES="$VM_DEVICES" PA_VM_SDEBUG_PARAMS="$VM_SDEBUG" PA_VM_KERNEL=$(uname -r)

cd /tmp
# Each program with the run's arguments; the status is the first failure's,
# else 0 when one passed, else 77 (all skipped).
rc=77
for t in ${VM_TESTS:-/bin/vm-test}; do
	[ "$t" = /bin/vm-test ] || echo "init: running ${t##*/}"
	eval "$t $VM_ARGS"
	r=$?
	[ "$t" = /bin/vm-test ] || echo "init: ${t##*/} rc=$r"
	case $r in
	0) [ $rc = 77 ] && rc=0 ;;
	77) ;;
	*) { [ $rc = 0 ] || [ $rc = 77 ]; } && rc=$r ;;
	esac
done
finish $rc
