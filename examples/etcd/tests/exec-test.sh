#!/bin/bash
# Debian's etcd-server, unchanged, under `prealloc exec` (Go: the seccomp
# supervisor) with the options of the shipped drop-in
# (examples/exec/etcd.conf), on loop-mounted ext4 as root, else in the temp
# dir:
#  1. a member takes puts across a segment cut: every WAL segment and the
#     one made ahead are fully written (FIEMAP), every call the supervisor
#     saw was converted (--log); kill -9, restart, every acknowledged put
#     reads back;
#  2. crash rounds (PREALLOC_EXEC_ROUNDS, default 20), seeded: kill -9 of
#     etcd mid-load from 1-4 clients or right after a cut, the same checks
#     (examples/etcd/lib.sh, crash_round);
#  3. etcdctl check perf --load s passes under it.
# The load tools are examples/etcd's (built from the module proxy, cached
# under BUILD_DIR/examples/etcd).
# usage: exec-test.sh BUILD_DIR [SANITIZE]; exit 77 without etcd-server or
# Go 1.26, and in a sanitizer build (the main run covers it).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
[ "${2:-none}" = none ] || { echo "sanitizer build ($2): skipped"; exit 77; }
# shellcheck source=bindings/lib.sh
. "$here/../../bindings/lib.sh"
# shellcheck source=examples/etcd/lib.sh
. "$here/lib.sh"
# shellcheck source=examples/exec/dropin.sh
. "$here/../exec/dropin.sh"
dropin_options "$here/../exec/etcd.conf"
stock=/usr/bin/etcd
[ -x "$stock" ] && command -v etcdctl >/dev/null ||
	{ echo "etcd or etcdctl not installed (apt-get install etcd-server etcd-client): skipped"; exit 77; }
go_usable || { echo "Go 1.26 or later not installed (the load tools; https://go.dev/dl/): skipped"; exit 77; }
reexec_private "$0" "$@"

scratch=$(mktemp -d /tmp/prealloc-exec-etcd-XXXXXX)
trap 'etcd_kill 2>/dev/null; unmount_loops 2>/dev/null; rm -rf "$scratch"' EXIT
etcd_pid= exec_pid=
SECONDS=0
etcd_build "$build" tools
PREALLOC_LOOP_MIB=1024 mount_loops "$scratch" ext4
dir=${test_dirs[0]:-$scratch}
echo "== on ${test_dirs[0]:-the temp dir}, $("$stock" --version | head -n1)"

# The stock binary as the drop-in starts it: prealloc exec in front.
tools=$etcd_bin
etcd_bin=$scratch/bin
mkdir "$etcd_bin"
ln -s "$tools/etcd-load" "$tools/etcd-verify" "$etcd_bin/"
cat >"$etcd_bin/etcd" <<WRAP
#!/bin/sh
exec "$prealloc_tool" exec $(printf '%q ' "${dropin_opts[@]}")--quiet --log "$scratch/exec.log" -- "$stock" --logger zap "\$@"
WRAP
chmod +x "$etcd_bin/etcd"

# every_call_converted: the supervisor converted each call it saw (the
# log's other lines say what etcd did with the files afterwards).
every_call_converted() {
	local n
	n=$(grep -c '"outcome":"converted"' "$scratch/exec.log")
	[ "$n" -gt 0 ] && [ "$n" = "$(grep -c '"outcome":' "$scratch/exec.log")" ] ||
		{ echo "not every call converted:" >&2; cat "$scratch/exec.log" >&2; return 1; }
}

echo "== start, puts across a cut, every segment written"
etcd_args=(--snapshot-count 1000)
etcd_start "$etcd_bin/etcd" "$dir/data" "$dir/etcd.log" "${etcd_args[@]}"
"$etcd_bin/etcd-load" put -endpoint "$etcd_url" -log "$dir/acked-0.log" -tag 0 \
	-count 1200 -value-size 65536 -wal-dir "$dir/data/member/wal" >/dev/null
wal=$dir/data/member/wal
ls -l "$wal"
[ "$(find "$wal" -name '*.wal' | wc -l)" -ge 2 ] || { echo "no segment cut" >&2; exit 1; }
mapfile -t files < <(find "$wal" -name '*.wal' -o -name '*.tmp')
verify_written "${files[@]}"
every_call_converted
etcd_kill
etcd_start "$etcd_bin/etcd" "$dir/data" "$dir/etcd.log" "${etcd_args[@]}"
"$etcd_bin/etcd-load" check -endpoint "$etcd_url" -log "$dir/acked-0.log" -value-size 65536 -clear 0

echo "== crash rounds"
RANDOM=46
for ((r = 1; r <= ${PREALLOC_EXEC_ROUNDS:-20}; r++)); do
	crash_round "$dir" "$r" "$( ((r % 2)) && echo load || echo cut)"
done
every_call_converted

echo "== etcdctl check perf"
ETCDCTL_API=3 etcdctl --endpoints "$etcd_url" check perf --load s | tail -n 4 |
	tee "$scratch/perf.txt"
grep -q 'PASS' "$scratch/perf.txt" && ! grep -q 'FAIL' "$scratch/perf.txt"
etcd_stop
echo "etcd under prealloc exec: all passed in ${SECONDS}s ($(grep -c '"outcome":' "$scratch/exec.log") calls converted)"
