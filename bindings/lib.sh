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

# reexec_private "$0" "$@": as root, start the script again in a private
# mount namespace, so that its loop mounts never outlive it however it ends.
reexec_private() {
	if [ "$(id -u)" = 0 ] && [ -z "${PREALLOC_BINDINGS_NS:-}" ] && command -v unshare >/dev/null; then
		PREALLOC_BINDINGS_NS=1 exec unshare --mount --propagation private "$@"
	fi
}

# mount_loops STAGE FS...: as root inside a private mount namespace (see
# reexec_private), mount each filesystem on a loop device at STAGE/FS;
# fills test_dirs with the mount points that worked.  The mounts, and with
# them the autoclear loop devices, go when the namespace does.
test_dirs=()
mount_loops() {
	local stage=$1 fs
	shift
	[ -n "${PREALLOC_BINDINGS_NS:-}" ] || return 0
	for fs in "$@"; do
		command -v "mkfs.$fs" >/dev/null || continue
		truncate -s 512M "$stage/$fs.img"
		"mkfs.$fs" -q "$stage/$fs.img" >/dev/null 2>&1 || continue
		mkdir "$stage/$fs"
		mount -o loop "$stage/$fs.img" "$stage/$fs" || continue
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
