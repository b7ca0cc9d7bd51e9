#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Run test binaries inside a QEMU guest booted from a stock Debian kernel, with
# a chosen set of storage devices, and return their exit status.
#
#   vm.sh fetch [SERIES...]                 download and cache kernels only
#   vm.sh run [options] -- BINARY [ARGS...] boot, run BINARY as root, power off
#   vm.sh run [options] -- BINARY,BINARY... [ARGS...]
#                                           the same with several binaries, run
#                                           one after another, each with ARGS
#
# run options:
#   --kernel SERIES     6.1 (bookworm), 6.12 (bookworm-security), 6.18 or 7.3
#                       (trixie-backports); default 6.18
#   --devices LIST      comma-separated: nvme512 nvme4k intelid scsihd sdebug
#                       nloop (see README.md); default nvme512
#   --sdebug PARAMS     scsi_debug module parameters (space separated), used
#                       when LIST has sdebug or nloop
#   --timeout SECONDS   kill the guest after this long (default 300)
#   --log FILE          keep the serial console log there as well
#   --accel ACCEL       tcg (default), kvm, or auto (kvm when /dev/kvm is usable)
#   --extra FILES       comma-separated host files (tools such as fio, dd) put in
#                       the guest at the same absolute paths, with their shared
#                       libraries; may be given more than once
#   --mem MIB           guest memory (default 1024)
#   --smp N             guest CPUs (default 1)
#   --qemu SOURCE       system (default: qemu-system-x86_64 on PATH) or
#                       backports (bookworm-backports' QEMU, unpacked into the
#                       cache on first use: README.md "Crash points", 6.1)
#
# Environment: PREALLOC_VM_CACHE (cache directory, default tests/vm/.cache),
# PREALLOC_VM_OFFLINE=1 (never touch the network), PREALLOC_VM_KVER_<series>
# (exact kernel ABI name, e.g. PREALLOC_VM_KVER_6_18=6.18.15+deb13-amd64).
#
# Exit: the guest binary's status (0 pass, 77 skip, other fail; of several,
# the first failure's, else 0 when one passed, else 77), 77 when this
# machine cannot run guests (no QEMU and no way to install it, or no kernel in
# the cache and no route to the Debian archive), 99 on harness errors.  A
# status counts only when the isa-debug-exit code and the marker line on the
# serial console agree.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${PREALLOC_VM_CACHE:-$HERE/.cache}
MIRROR=${PREALLOC_VM_MIRROR:-http://deb.debian.org}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
MARKER=PREALLOC-VM-RESULT
SKIP=77
HARD=99

# Kernel ABI names the device fixtures were captured from; the newest of the series
# is used when the archive no longer has them.
declare -A PIN=([6.1]=6.1.0-56-amd64 [6.12]=6.12.117+deb12-amd64 [6.18]=6.18.15+deb13-amd64
	[7.3]=7.3.4+deb13-amd64)
declare -A PATTERN=(
	[6.1]='^linux-image-6\.1\.0-[0-9]+-amd64$'
	[6.12]='^linux-image-6\.12\.[0-9]+\+deb12-amd64$'
	[6.18]='^linux-image-6\.18\.[0-9]+\+deb13-amd64$'
	[7.3]='^linux-image-7\.3\.[0-9]+\+deb13-amd64$'
)

# Modules wanted in every guest; dependencies come from modules.dep.  Names
# that are built in or absent on a kernel are skipped.
MODULES="virtio_pci virtio_scsi sd_mod sg nvme configfs nvme-fabrics nvmet nvme-loop
	 crc32c_generic crc32c-intel crc32c-cryptoapi ext4 loop dm-mod md-mod raid0 raid1
	 dm-log-writes dm-snapshot xfs"

log() { printf 'vm.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit "$HARD"; }
skip() { log "skip: $*"; exit "$SKIP"; }

# e2fsck, mkfs.xfs and xfs_repair for the crash test (crash.c).
FSTOOLS=$(for t in e2fsck mkfs.xfs xfs_repair; do
	p=$(command -v "$t" || echo "/sbin/$t"); [ -x "$p" ] && readlink -f "$p"; done)

# ---------------------------------------------------------------- host tools

need_host_tools() {
	local missing=()
	command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
	command -v depmod >/dev/null || missing+=(kmod)
	[ -x /bin/busybox ] && file -L /bin/busybox | grep -q 'statically linked' ||
		missing+=(busybox-static)
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "${PREALLOC_VM_OFFLINE:-0}" = 1 ] && skip "missing ${missing[*]} (offline)"
	[ "$(id -u)" = 0 ] || skip "missing ${missing[*]} and not root to install them"
	log "installing ${missing[*]}"
	(flock 9; DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}" >&2) 9>"$CACHE/.apt-install.lock" ||
		skip "cannot install ${missing[*]}"
}

# ------------------------------------------------------------ private apt

APTDIR=$CACHE/apt
apt_opts() {
	printf '%s\n' \
		-o "Dir::Etc::SourceList=$APTDIR/sources.list" \
		-o "Dir::Etc::SourceParts=$APTDIR/empty" \
		-o "Dir::Etc::Preferences=$APTDIR/empty/none" \
		-o "Dir::Etc::PreferencesParts=$APTDIR/empty" \
		-o "Dir::State=$APTDIR/state" \
		-o "Dir::State::status=$APTDIR/state/status" \
		-o "Dir::Cache=$APTDIR/cache" \
		-o "APT::Architecture=amd64" \
		-o "APT::Architectures::=amd64" \
		-o "Acquire::Languages=none" \
		-o "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false" \
		-o "Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false" \
		-o "Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false" \
		-o "Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false" \
		-o "Acquire::Retries=2" \
		-o "APT::Sandbox::User=root" \
		-o "Acquire::http::Timeout=20"
}

apt_private() {
	local cmd=$1; shift
	local -a o; mapfile -t o < <(apt_opts)
	"$cmd" "${o[@]}" "$@"
}

apt_update() {
	mkdir -p "$APTDIR/empty" "$APTDIR/state/lists/partial" "$APTDIR/cache/archives/partial"
	touch "$APTDIR/state/status"
	cat >"$APTDIR/sources.list" <<-EOF
	deb [signed-by=$KEYRING] $MIRROR/debian bookworm main
	deb [signed-by=$KEYRING] $MIRROR/debian-security bookworm-security main
	deb [signed-by=$KEYRING] $MIRROR/debian trixie-backports main
	deb [signed-by=$KEYRING] $MIRROR/debian bookworm-backports main
	EOF
	# Refresh at most once a day, and when the sources changed; kernels
	# already cached never need it.
	if cmp -s "$APTDIR/sources.list" "$APTDIR/state/sources.listed" &&
	   [ -n "$(find "$APTDIR/state/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null)" ]; then
		return 0
	fi
	[ "${PREALLOC_VM_OFFLINE:-0}" = 1 ] && return 1
	[ -r "$KEYRING" ] || { log "no $KEYRING (package debian-archive-keyring)"; return 1; }
	log "apt-get update (private lists in $APTDIR)"
	# Recorded only when every list came: a missing one is tried again.
	if apt_private apt-get -q -o APT::Update::Error-Mode=any update >&2; then
		cp "$APTDIR/sources.list" "$APTDIR/state/sources.listed"
	fi
	[ -n "$(find "$APTDIR/state/lists" -maxdepth 1 -name '*_Packages*' 2>/dev/null)" ]
}

# Pick the kernel package: the pinned ABI if the archive still has it, else
# the newest of the series.
resolve_kver() {
	local series=$1 var=PREALLOC_VM_KVER_${1//./_} want names
	want=${!var:-${PIN[$series]}}
	names=$(apt_private apt-cache pkgnames linux-image- 2>/dev/null | grep -E "${PATTERN[$series]}" || true)
	if grep -qx "linux-image-$want" <<<"$names"; then
		echo "$want"
		return 0
	fi
	[ -n "$names" ] || return 1
	log "linux-image-$want is gone from the archive; using the newest $series"
	sort -V <<<"$names" | tail -n1 | sed 's/^linux-image-//'
}

# ------------------------------------------------------------ kernels

kdir() { echo "$CACHE/kernel-$1"; }

fetch_kernel() {
	local series=$1 dir tmp kver deb moddir pkgs
	dir=$(kdir "$series")
	[ -f "$dir/ready" ] && return 0
	rm -rf "$CACHE"/.fetch.* "$CACHE"/.stage.*	# left by an interrupted run
	[ -n "${PATTERN[$series]:-}" ] || die "unknown kernel series '$series' (6.1, 6.12, 6.18, 7.3)"
	apt_update || { log "cannot reach $MIRROR for the kernel lists"; return 1; }
	kver=$(resolve_kver "$series") || { log "no $series kernel in the archive lists"; return 1; }
	log "fetching linux-image-$kver"
	rm -rf "$dir"
	tmp=$(mktemp -d "$CACHE/.fetch.XXXXXX")
	# 7.3 splits the image: linux-image-* only depends on linux-binary-*
	# (the kernel) and linux-modules-*.
	pkgs="linux-image-$kver $(apt_private apt-cache pkgnames "linux-" 2>/dev/null |
		grep -xE "linux-(binary|modules)-${kver//+/\\+}" | tr '\n' ' ')"
	if ! (cd "$tmp" && apt_private apt-get -q download $pkgs >&2); then
		rm -rf "$tmp"
		log "apt-get download $pkgs failed"
		return 1
	fi
	mkdir -p "$tmp/root"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$tmp/root" ||
			{ rm -rf "$tmp"; log "cannot unpack $deb"; return 1; }
		rm -f "$deb"
	done
	# 6.18 ships modules under usr/lib; depmod -b wants lib/modules.
	if [ ! -d "$tmp/root/lib/modules/$kver" ]; then
		moddir=$tmp/root/usr/lib/modules/$kver
		[ -d "$moddir" ] || die "no modules directory in linux-image-$kver"
		mkdir -p "$tmp/root/lib" && ln -s ../usr/lib/modules "$tmp/root/lib/modules" ||
			die "cannot link the modules of linux-image-$kver"
	fi
	depmod -b "$tmp/root" "$kver" || die "depmod failed for $kver"
	# 7.3 has no boot/: the kernel is beside its modules.
	if [ ! -f "$tmp/root/boot/vmlinuz-$kver" ] && [ -f "$tmp/root/usr/lib/modules/$kver/vmlinuz" ]; then
		mkdir -p "$tmp/root/boot" &&
			ln -s ../usr/lib/modules/"$kver"/vmlinuz "$tmp/root/boot/vmlinuz-$kver"
	fi
	[ -f "$tmp/root/boot/vmlinuz-$kver" ] || die "no vmlinuz in linux-image-$kver"
	echo "$kver" >"$tmp/kver"
	touch "$tmp/ready"
	mv "$tmp" "$dir"
}

# ------------------------------------------------------------ QEMU

# bookworm-backports' QEMU, unpacked, never installed: under TCG, bookworm's
# QEMU 7.2 now and then leaves an NVMe request uncompleted, and the 6.1
# kernel does not survive the controller reset that follows (README.md,
# "Crash points").  Its libraries are bookworm's.
QEMU_PKGS="qemu-system-x86 qemu-system-common qemu-system-data seabios"
qdir() { echo "$CACHE/qemu-backports"; }

fetch_qemu() {
	local dir tmp p missing
	dir=$(qdir)
	[ -f "$dir/ready" ] && return 0
	apt_update || { log "cannot reach $MIRROR for the package lists"; return 1; }
	log "fetching QEMU from bookworm-backports"
	tmp=$(mktemp -d "$CACHE/.fetch.XXXXXX")
	if ! (cd "$tmp" && apt_private apt-get -q download \
		$(for p in $QEMU_PKGS; do echo "$p/bookworm-backports"; done) >&2); then
		rm -rf "$tmp"
		log "apt-get download of bookworm-backports' QEMU failed"
		return 1
	fi
	for p in "$tmp"/*.deb; do
		dpkg-deb -x "$p" "$tmp/root" || { rm -rf "$tmp"; log "cannot unpack $p"; return 1; }
	done
	rm -f "$tmp"/*.deb
	missing=$(ldd "$tmp/root/usr/bin/qemu-system-x86_64" | awk '/not found/ { print $1 }')
	if [ -n "$missing" ]; then
		rm -rf "$tmp"
		log "bookworm-backports' QEMU needs" $missing
		return 1
	fi
	if ! "$tmp/root/usr/bin/qemu-system-x86_64" --version >"$tmp/version"; then
		rm -rf "$tmp"
		log "bookworm-backports' QEMU does not run here"
		return 1
	fi
	touch "$tmp/ready"
	rm -rf "$dir"
	mv "$tmp" "$dir"
}

get_qemu() {
	local rc=0
	with_cache_lock fetch_qemu || rc=$?
	[ $rc = 0 ] && return 0
	[ $rc = "$HARD" ] && exit "$HARD"
	skip "no QEMU from bookworm-backports (above why)"
}

# The QEMU command for SOURCE (system, or backports once get_qemu is done),
# one word per line.
qemu_cmd() {
	local dir
	dir=$(qdir)/root/usr
	case $1 in
	system) echo qemu-system-x86_64 ;;
	backports) printf '%s\n' "$dir/bin/qemu-system-x86_64" -L "$dir/share/qemu" -L "$dir/share/seabios" ;;
	esac
}

# Under a lock: parallel runs share the cache.
with_cache_lock() {
	mkdir -p "$CACHE"
	(flock 9; "$@") 9>"$CACHE/.lock"
}

get_kernel() {
	local series=$1 rc=0
	with_cache_lock fetch_kernel "$series" || rc=$?
	[ $rc = 0 ] && return 0
	[ $rc = "$HARD" ] && exit "$HARD"
	skip "kernel $series is neither cached in $CACHE nor downloadable"
}

# ------------------------------------------------------------ initramfs

# Module files (relative to the modules dir) for the wanted names, in load
# order: dependencies first.
module_order() {
	local mdir=$1; shift
	awk -v want="$*" '
		function norm(s) { gsub(/-/, "_", s); return s }
		function base(p,  n) { n = split(p, a, "/"); p = a[n]; sub(/\.ko(\.(xz|zst|gz))?$/, "", p); return norm(p) }
		function visit(p,  n, i, d) {
			if (p in done) return
			done[p] = 1
			n = split(deps[p], d, " ")
			for (i = n; i >= 1; i--) visit(d[i])
			print p
		}
		{ p = $1; sub(/:$/, "", p); deps[p] = ""; for (i = 2; i <= NF; i++) deps[p] = deps[p] " " $i; byname[base(p)] = p }
		END { n = split(want, w, " "); for (i = 1; i <= n; i++) if (norm(w[i]) in byname) visit(byname[norm(w[i])]) }
	' "$mdir/modules.dep"
}

copy_with_libs() {	# FILE STAGE: FILE at its own path, plus its shared libraries
	local f=$1 stage=$2 lib
	mkdir -p "$stage$(dirname "$f")"
	cp -L "$f" "$stage$f"
	for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true); do
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}

mkcpio() {	# STAGE OUT
	(cd "$1" && find . | LC_ALL=C sort | busybox cpio -o -H newc -R 0:0 2>/dev/null) >"$2"
}

# The per-kernel part of the initramfs: busybox, /init, modules, mke2fs.
build_base() {
	local series=$1 dir kver mdir stage m
	dir=$(kdir "$series")
	kver=$(cat "$dir/kver")
	local out=$dir/base.cpio stamp
	stamp=$(cat "$HERE/init.sh" "${BASH_SOURCE[0]}" /bin/busybox /sbin/mke2fs $FSTOOLS |
		md5sum | cut -c1-16)
	[ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ] && return 0
	log "building the $series initramfs base"
	mdir=$dir/root/lib/modules/$kver
	stage=$(mktemp -d "$CACHE/.stage.XXXXXX")
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,mnt,run,lib/modules}
	cp /bin/busybox "$stage/bin/busybox"
	cp "$HERE/init.sh" "$stage/init"
	chmod 755 "$stage/init"
	: >"$stage/lib/modules/order"
	for m in $(module_order "$mdir" $MODULES scsi_debug); do
		local name; name=$(basename "$m"); name=${name%.xz}; name=${name%.zst}
		case $m in
		*.xz) xz -dc "$mdir/$m" >"$stage/lib/modules/$name" ;;
		*.zst) zstd -qdc "$mdir/$m" >"$stage/lib/modules/$name" ;;
		*) cp "$mdir/$m" "$stage/lib/modules/$name" ;;
		esac
		# scsi_debug is loaded by /init with the run's parameters.
		[ "$name" = scsi_debug.ko ] || echo "$name" >>"$stage/lib/modules/order"
	done
	[ -f "$stage/lib/modules/scsi_debug.ko" ] || die "no scsi_debug module in $kver"
	# e2fsprogs' mke2fs (busybox's has no -t/-E), out of busybox's way.
	copy_with_libs "$(readlink -f /sbin/mke2fs)" "$stage"
	mkdir -p "$stage/usr/local/sbin"
	mv "$stage$(readlink -f /sbin/mke2fs)" "$stage/usr/local/sbin/mke2fs"
	ln -s mke2fs "$stage/usr/local/sbin/mkfs.ext4"
	cp /etc/mke2fs.conf "$stage/etc/"
	# The crash test's checkers and mkfs.xfs (each with its libraries).
	for m in $FSTOOLS; do
		copy_with_libs "$m" "$stage"
	done
	printf 'root:x:0:0::/:/bin/sh\nnobody:x:65534:65534::/:/bin/false\n' >"$stage/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$stage/etc/group"
	mkcpio "$stage" "$out.tmp"
	rm -rf "$stage"
	mv "$out.tmp" "$out"
	echo "$stamp" >"$out.stamp"
}

# ------------------------------------------------------------ run

qemu_devices() {	# RUNDIR DEVICE...: print QEMU arguments, one per line
	local run=$1 d scsi=0; shift
	local drive="format=raw,discard=unmap,cache=none,aio=threads"
	for d in "$@"; do
		case $d in
		nvme512|nvme4k|intelid)
			truncate -s 256M "$run/$d.img"
			printf '%s\n' -drive "if=none,id=$d,file=$run/$d.img,$drive"
			case $d in
			nvme512) printf '%s\n' -device "nvme,serial=$d,drive=$d" ;;
			nvme4k) printf '%s\n' -device "nvme,serial=$d,drive=$d,logical_block_size=4096,physical_block_size=4096" ;;
			intelid) printf '%s\n' -device "nvme,serial=$d,drive=$d,use-intel-id=on" ;;
			esac ;;
		scsihd)
			truncate -s 256M "$run/$d.img"
			[ $scsi = 1 ] || printf '%s\n' -device virtio-scsi-pci,id=scsi0
			scsi=1
			printf '%s\n' -drive "if=none,id=$d,file=$run/$d.img,$drive" \
				-device "scsi-hd,bus=scsi0.0,drive=$d,serial=$d" ;;
		cdata|cscratch|clog|ccow)	# the crash test's disks (crash.c)
			# NVMe, not virtio-blk: under TCG, QEMU now and then never
			# completes a request; the NVMe driver times it out (30 s),
			# aborts, resets and goes on, virtio-blk waits for ever.
			local size=768M	# full runs' files (crash.c FULL_ENTRIES)
			[ "$d" = clog ] && size=2G
			[ "$d" = ccow ] && size=256M
			truncate -s $size "$run/$d.img"
			printf '%s\n' -drive "if=none,id=$d,file=$run/$d.img,$drive" \
				-device "nvme,serial=$d,drive=$d" ;;
		sdebug|nloop) ;;	# created in the guest
		*) die "unknown device '$d'" ;;
		esac
	done
}

cmd_run() {
	local series=6.18 devices=nvme512 sdebug="dev_size_mb=64 lbpu=1 lbpws=1 lbprz=1"
	local timeout=300 logfile="" accel=tcg mem=1024 smp=1 extra="" qemu=system f
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) series=$2; shift 2 ;;
		--devices) devices=$2; shift 2 ;;
		--sdebug) sdebug=$2; shift 2 ;;
		--timeout) timeout=$2; shift 2 ;;
		--log) logfile=$2; shift 2 ;;
		--accel) accel=$2; shift 2 ;;
		--extra) extra="$extra,$2"; shift 2 ;;
		--mem) mem=$2; shift 2 ;;
		--smp) smp=$2; shift 2 ;;
		--qemu) qemu=$2; shift 2 ;;
		--) shift; break ;;
		*) die "unknown option '$1'" ;;
		esac
	done
	[ $# -ge 1 ] || die "no binary to run (vm.sh run [options] -- BINARY[,BINARY...] [ARGS...])"
	local -a bins
	local bin
	IFS=, read -r -a bins <<<"$1"; shift
	[ ${#bins[@]} -ge 1 ] || die "no binary to run"
	for bin in "${bins[@]}"; do
		[ -x "$bin" ] || die "$bin is not an executable"
	done
	[ -n "${PATTERN[$series]:-}" ] || die "unknown kernel series '$series' (6.1, 6.12, 6.18, 7.3)"
	[[ $mem =~ ^[0-9]+$ ]] && [ "$mem" -ge 256 ] || die "--mem $mem: a number of MiB, at least 256"
	[[ $smp =~ ^[1-9][0-9]*$ ]] || die "--smp $smp: a number of CPUs"
	case $qemu in system|backports) ;; *) die "--qemu $qemu: system or backports" ;; esac
	for f in ${extra//,/ }; do
		[ -f "$f" ] || die "--extra $f is not a file"
		case $f in /*) ;; *) die "--extra $f: give an absolute path (the guest gets the same one)" ;; esac
	done

	mkdir -p "$CACHE"
	need_host_tools
	get_kernel "$series"
	[ "$qemu" = backports ] && get_qemu
	with_cache_lock build_base "$series"

	local dir kver
	dir=$(kdir "$series")
	kver=$(cat "$dir/kver")
	run=$(mktemp -d "${TMPDIR:-/tmp}/prealloc-vm.XXXXXX")
	trap 'rm -rf "$run"' EXIT

	# Per-run payload: the binaries, their libraries, the run's configuration.
	# One binary is the guest's /bin/vm-test; several are /bin/vm-tests/<name>,
	# run in the order given.
	local stage=$run/stage a tests=""
	mkdir -p "$stage/bin" "$stage/etc"
	for bin in "${bins[@]}"; do
		copy_with_libs "$(readlink -f "$bin")" "$stage"
		rm "$stage$(readlink -f "$bin")"
	done
	if [ ${#bins[@]} = 1 ]; then
		cp -L "${bins[0]}" "$stage/bin/vm-test"
		tests=/bin/vm-test
	else
		mkdir -p "$stage/bin/vm-tests"
		for bin in "${bins[@]}"; do
			[ ! -e "$stage/bin/vm-tests/${bin##*/}" ] || die "two binaries named ${bin##*/}"
			cp -L "$bin" "$stage/bin/vm-tests/${bin##*/}"
			tests="$tests /bin/vm-tests/${bin##*/}"
		done
	fi
	# --extra: host tools at their own paths, with their libraries.
	for f in ${extra//,/ }; do
		copy_with_libs "$f" "$stage"
	done
	{
		echo "VM_DEVICES='${devices//,/ }'"
		echo "VM_SDEBUG='$sdebug'"
		echo "VM_TESTS='${tests# }'"
		# Quoted twice: /etc/vm.conf is sourced, then /init evals VM_ARGS.
		a=""; [ $# -gt 0 ] && a=$(printf '%q ' "$@")
		printf 'VM_ARGS=%q\n' "$a"
	} >"$stage/etc/vm.conf"
	mkcpio "$stage" "$run/payload.cpio"
	cat "$dir/base.cpio" "$run/payload.cpio" >"$run/initrd"

	local -a qargs qemu_argv
	mapfile -t qemu_argv < <(qemu_cmd "$qemu")
	mapfile -t qargs < <(qemu_devices "$run" ${devices//,/ })
	# auto: KVM when this user can open /dev/kvm, else TCG.
	if [ "$accel" = auto ]; then
		accel=tcg
		[ -r /dev/kvm ] && [ -w /dev/kvm ] && accel=kvm
	fi
	local -a cpu=()
	[ "$accel" = kvm ] && cpu=(-cpu host,-arch-capabilities)	# the default model faults under nested KVM
	# The crash test's hours of NVMe I/O under TCG: guests whose one vCPU
	# had halted were seen never to run again; with idle=poll it never
	# halts (README "Crash points").
	local idle=""
	case ",$devices," in *,cdata,*) idle="idle=poll" ;; esac
	# no_timer_check: under TCG on a loaded host the kernel's check of the
	# IO-APIC timer can miss its ticks and panic at boot (seen on 6.1).
	local rc=0 t0 boot
	# A guest kernel that panics before the test's verdict (seen once: a
	# double fault under TCG on a loaded host, in jbd2's recovery of a
	# crash image the same run had mounted a hundred times) is booted once
	# more; a panic the test provokes comes back and fails.
	for boot in 1 2; do
		t0=$SECONDS
		log "booting $kver ($accel, ${qemu_argv[0]}) with ${devices} (log: ${logfile:-stdout})"
		set +e
		timeout --foreground -k 10 "$timeout" "${qemu_argv[@]}" \
			-accel "$accel" "${cpu[@]}" -smp "$smp" -m "$mem" -nographic -nodefaults \
			-no-user-config -serial stdio -monitor none -no-reboot \
			-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
			-kernel "$dir/root/boot/vmlinuz-$kver" -initrd "$run/initrd" \
			-append "console=ttyS0 panic=-1 quiet loglevel=4 no_timer_check $idle rdinit=/init" \
			"${qargs[@]}" </dev/null | tee "$run/console.log"
		rc=${PIPESTATUS[0]}
		set -e
		[ -n "$logfile" ] && cp "$run/console.log" "$logfile"
		log "guest ran $((SECONDS - t0)) s, qemu status $rc"
		[ "$boot" = 1 ] && ! grep -q "^$MARKER rc=" "$run/console.log" &&
			grep -q 'Kernel panic - not syncing' "$run/console.log" || break
		log "the guest kernel panicked before the test's verdict: booting it once more"
	done

	# isa-debug-exit makes QEMU exit with (v << 1) | 1; /init writes v = rc + 1.
	local marker qrc
	marker=$(tr -d '\r' <"$run/console.log" | sed -n "s/^$MARKER rc=\([0-9]*\)$/\1/p" | tail -n1)
	[ "$rc" = 124 ] || [ "$rc" = 137 ] && die "guest timed out after $timeout s"
	[ -n "$marker" ] || die "no '$MARKER' line on the console (qemu status $rc)"
	[ $((rc & 1)) = 1 ] && [ "$rc" -ge 3 ] || die "qemu status $rc is not an isa-debug-exit code (marker says $marker)"
	qrc=$(((rc >> 1) - 1))
	[ "$qrc" = "$marker" ] || die "isa-debug-exit says $qrc but the console says $marker"
	return "$marker"
}

cmd_fetch() {
	local s
	mkdir -p "$CACHE"
	[ $# -gt 0 ] || set -- 6.1 6.12 6.18 7.3
	need_host_tools
	for s in "$@"; do get_kernel "$s"; log "kernel $s: $(cat "$(kdir "$s")/kver")"; done
}

case ${1:-} in
fetch) shift; cmd_fetch "$@" ;;
run) shift; cmd_run "$@" ;;
*) sed -n '4,41p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
