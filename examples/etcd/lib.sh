# Shared by the etcd test, crash and benchmark scripts (sourced, bash): a
# one-member etcd cluster on loopback ports, started, killed and restarted.
# Needs etcd-load (examples/etcd/build.sh tools) at $etcd_bin/etcd-load.

# free_port: a TCP port on 127.0.0.1 that nobody listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# etcd_start BINARY DATA_DIR LOG [ARGS...]: start a member in DATA_DIR and
# wait until it serves linearizable reads; sets etcd_pid, etcd_url and
# etcd_metrics.  The ports are picked once per data directory (a member
# restarts on the ports it was created with).  BINARY may put a parent in
# front of etcd (`prealloc exec`, which passes signals on): etcd_pid is then
# etcd itself, the one to kill -9, and exec_pid the parent to stop and reap.
declare -A etcd_ports=()
etcd_start() {
	local bin=$1 dir=$2 log=$3 client peer metrics
	shift 3
	[ -n "${etcd_ports[$dir]:-}" ] || etcd_ports[$dir]="$(free_port) $(free_port) $(free_port)"
	read -r client peer metrics <<<"${etcd_ports[$dir]}"
	etcd_url=http://127.0.0.1:$client
	etcd_metrics=http://127.0.0.1:$metrics/metrics
	peer=http://127.0.0.1:$peer
	"$bin" --name m --data-dir "$dir" --log-outputs "$log" \
		--listen-client-urls "$etcd_url" --advertise-client-urls "$etcd_url" \
		--listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" \
		--initial-cluster "m=$peer" --listen-metrics-urls "http://127.0.0.1:$metrics" "$@" &
	exec_pid=$!
	etcd_pid=$exec_pid
	"$etcd_bin/etcd-load" wait -endpoint "$etcd_url" ||
		{ echo "etcd did not come up; its log:" >&2; tail -n 20 "$log" >&2; return 1; }
	etcd_pid=$(pgrep -P "$exec_pid" -x etcd) || etcd_pid=$exec_pid
}

# etcd_kill: SIGKILL the member (if it still runs) and reap it.
etcd_kill() {
	kill -KILL "$etcd_pid" 2>/dev/null || true
	wait "${exec_pid:-}" 2>/dev/null || true
}

# etcd_stop: a clean shutdown.  etcd ends itself with the SIGTERM it
# handled, so 143 is success.
etcd_stop() {
	local rc=0
	kill -TERM "${exec_pid:-}"
	wait "${exec_pid:-}" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 143 ]
}

# etcd_build BUILD_DIR TARGET...: install libprealloc from the meson
# BUILD_DIR into a stage under BUILD_DIR/examples/etcd (bindings/lib.sh),
# where the binding finds it with pkg-config, and build the targets there
# (build.sh).  Sets etcd_bin and prealloc_tool, the staged prealloc(1).
# The test and the scripts share that directory: a lock held until the
# caller exits makes them take turns.
etcd_build() {
	local build=$1 out
	shift
	out=$build/examples/etcd
	mkdir -p "$out"
	exec {etcd_lock}>"$out/lock"
	flock "$etcd_lock"
	rm -rf "$out/stage"
	mkdir -p "$out/stage"
	stage_install "$build" "$out/stage"
	"$(dirname "${BASH_SOURCE[0]}")/build.sh" "$out" "$@"
	etcd_bin=$out/bin
	prealloc_tool=$(find "$out/stage/root" -path '*/bin/prealloc' -type f)
}

# go_usable: Go is installed and new enough for etcd v3.7.3 (go 1.26).
go_usable() {
	local v
	command -v go >/dev/null || return 1
	v=$(go env GOVERSION) || return 1
	[ "$(printf '%s\n' go1.26 "$v" | sort -V | head -n1)" = go1.26 ]
}

# verify_written FILE...: prealloc(1) finds every byte of each FILE
# written (FIEMAP: allocated, no unwritten extent, no hole).
verify_written() {
	local f
	for f in "$@"; do
		"$prealloc_tool" verify "$f" >/dev/null ||
			{ echo "not fully written: $f" >&2; "$prealloc_tool" verify "$f" >&2; return 1; }
	done
}

# crash_round DIR ROUND MODE: with the member of DIR/data running, put
# 64 KiB values from 1-4 clients (logging each acknowledged put) and
# SIGKILL the server mid-load (MODE load: after a random number of
# acknowledged puts) or right after a segment cut (MODE cut: the first
# acknowledged put in a new segment); then, before it restarts, every
# segment but the newest and every segment made ahead (*.tmp) must be fully
# written, and etcd-verify must pass (WAL CRCs, zero tails, backend);
# restart, every acknowledged put must read back, and the round's keys are
# deleted and compacted away.  Draws its numbers from $RANDOM (seed it).
crash_round() {
	local dir=$1 round=$2 mode=$3 clients kill out segs tmps
	local wal=$dir/data/member/wal log=$dir/acked-$round.log
	clients=$((1 + RANDOM % 4))
	case $mode in
	load) kill=(-kill-after-puts $((50 + RANDOM % 1400))) ;;
	cut) kill=(-kill-after-cut 1) ;;
	esac
	out=$("$etcd_bin/etcd-load" put -endpoint "$etcd_url" -log "$log" -tag "$round" \
		-clients "$clients" -count $((1600 / clients)) -value-size 65536 \
		-wal-dir "$wal" -kill-pid "$etcd_pid" "${kill[@]}")
	etcd_kill
	echo "round $round ($mode, $clients clients): $out"
	[[ $out == *'"killed":true'* ]] || { echo "round $round: the load ended before the kill" >&2; return 1; }
	mapfile -t segs < <(find "$wal" -name '*.wal' | sort)
	mapfile -t tmps < <(find "$wal" -name '*.tmp')
	verify_written "${segs[@]:0:${#segs[@]}-1}" "${tmps[@]}"
	"$etcd_bin/etcd-verify" "$dir/data"
	etcd_start "$etcd_bin/etcd" "$dir/data" "$dir/etcd.log" "${etcd_args[@]}"
	"$etcd_bin/etcd-load" check -endpoint "$etcd_url" -log "$log" -value-size 65536 -clear "$round"
}
