# Shared by check.sh and bench.sh (sourced, bash): the staged install and
# the loop-mounted filesystems.

# Toolchains installed per user (rustup, the Go tarball) may be off PATH.
PATH=$PATH:$HOME/.cargo/bin:/usr/local/go/bin

# stage_install BUILD_DIR STAGE: install the library from BUILD_DIR under
# STAGE/root and point pkg-config and the loader at it, never the build tree.
stage_install() {
	meson install -C "$1" --no-rebuild --quiet --destdir "$2/root" >"$2/install.log" 2>&1 ||
		{ cat "$2/install.log" >&2; return 1; }
	local pc lib
	pc=$(find "$2/root" -name libprealloc.pc)
	[ -n "$pc" ] || { echo "no libprealloc.pc installed" >&2; return 1; }
	lib=$(dirname "$(find "$2/root" -name 'libprealloc.so.*' | head -n1)")
	export PKG_CONFIG_PATH=${pc%/*} PKG_CONFIG_SYSROOT_DIR=$2/root LD_LIBRARY_PATH=$lib
	# Go's build cache does not key on pkg-config's output: a package built
	# against an earlier (deleted) stage would link there.  Its cgo flags
	# are keyed: naming this stage in them rebuilds what needs it.
	export CGO_LDFLAGS="-L$lib"
}

# skip_unless_root_with NAME COMMAND...: exit 77 (skipped), saying why as
# NAME, unless run as root (loop devices) with every COMMAND installed.
skip_unless_root_with() {
	local name=$1 b
	shift
	[ "$(id -u)" = 0 ] || { echo "$name: needs root (loop devices): skipped" >&2; exit 77; }
	for b in "$@"; do
		command -v "$b" >/dev/null || { echo "$name: $b not installed: skipped" >&2; exit 77; }
	done
}

# reexec_private "$0" "$@": as root, start the script again in a private
# mount namespace, so that its loop mounts never outlive it however it ends.
reexec_private() {
	if [ "$(id -u)" = 0 ] && [ -z "${PREALLOC_BINDINGS_NS:-}" ] && command -v unshare >/dev/null; then
		PREALLOC_BINDINGS_NS=1 exec unshare --mount --propagation private "$@"
	fi
}

# mount_loops STAGE FS...: as root inside a private mount namespace (see
# reexec_private), mount each filesystem on a direct-I/O loop device at
# STAGE/FS; fills test_dirs with the mount points that worked.  The image is
# PREALLOC_LOOP_MIB (512) MiB, sparse unless PREALLOC_LOOP_FILL is set (the
# benchmark: the host file is allocated up front and mkfs does not discard
# it, so nothing under the measurement allocates on the host).  The loop device is detached while
# mounted, which makes it autoclear: it goes with the mount, and the mount
# goes when the namespace does.
test_dirs=()
mount_loops() {
	local stage=$1 mib=${PREALLOC_LOOP_MIB:-512} fs img dev opts
	shift
	[ -n "${PREALLOC_BINDINGS_NS:-}" ] || return 0
	for fs in "$@"; do
		command -v "mkfs.$fs" >/dev/null || continue
		img=$stage/$fs.img
		opts=()
		if [ -n "${PREALLOC_LOOP_FILL:-}" ]; then
			dd if=/dev/zero of="$img" bs=1M count="$mib" oflag=direct conv=fsync \
				status=none || continue
			# mkfs discards an image file, which punches it sparse again;
			# ext4 also initialises its tables now, not under a measurement.
			case $fs in
			ext4) opts=(-E nodiscard,lazy_itable_init=0,lazy_journal_init=0) ;;
			xfs|btrfs) opts=(-K) ;;
			esac
		else
			truncate -s "${mib}M" "$img"
		fi
		"mkfs.$fs" -q "${opts[@]}" "$img" >/dev/null 2>&1 || continue
		mkdir "$stage/$fs"
		dev=$(losetup --find --show --direct-io=on "$img") || continue
		mount "$dev" "$stage/$fs" || { losetup -d "$dev"; continue; }
		losetup -d "$dev"
		test_dirs+=("$stage/$fs")
	done
}

# unmount_loops: for an orderly exit (the namespace's end covers the rest).
unmount_loops() {
	local dir
	for dir in "${test_dirs[@]}"; do
		[ -n "$dir" ] && umount "$dir" 2>/dev/null || true
	done
}
