#!/bin/bash
# Debian's Prometheus 2.42 (/usr/bin/prometheus, unchanged): what the device
# under its storage writes over a run, bare, under `prealloc exec` with its
# defaults, and under the options of the shipped drop-in
# (examples/exec/prometheus.conf), on ext4 (where exec has no way to order
# its zeros, so converts nothing by default) and on xfs formatted with
# exchange-range (where it converts, ordered), each on a direct-I/O loop
# device of its own (root); and, to show what recognising speculative
# preallocation alone saves, every call vouched for (--unordered '*': each
# converted, ordered or not, until its pattern is learnt).  Each run: a
# fresh filesystem; Prometheus
# scraping itself every second with 1-minute blocks
# (--storage.tsdb.min-block-duration=1m --storage.tsdb.max-block-duration=1m),
# so the head is compacted into a block about every minute, each block's
# chunk file made with fallocate(0, 512 MiB) and cut to what it holds; two
# snapshots through the admin API (at 1/2 and 3/4 of the run), each a block
# of its own; SIGTERM at the end.  Device writes: the sectors the loop
# device wrote (/sys/block/loopN/stat) from the mount to the filesystem
# synced after the server ended.  Per run one JSON line (stderr): the MiB
# written, and for the exec arms the calls converted, passed and why, and
# the bytes thrown away per pattern (--log); then a table.
#
# usage: examples/exec/bench/prometheus.sh BUILD_DIR [SECONDS (140)]
#   PREALLOC_PROM_FS ("ext4 xfs-exchange"), PREALLOC_PROM_ARMS ("stock exec
#   exec-conf exec-unordered"; dry-run: --dry-run, its summary's pattern
#   lines in the JSON line), PREALLOC_PROM_RAW (also copy the JSON lines
#   there).  Exit 77 without root or prometheus.
set -euo pipefail
src=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=bindings/lib.sh
. "$src/bindings/lib.sh"
# shellcheck source=examples/exec/dropin.sh
. "$src/examples/exec/dropin.sh"
dropin_options "$src/examples/exec/prometheus.conf"
skip_unless_root_with prometheus.sh /usr/bin/prometheus curl mkfs.ext4 mkfs.xfs xfs_db
[ $# -ge 1 ] || { echo "usage: prometheus.sh BUILD_DIR [SECONDS]" >&2; exit 2; }
reexec_private "$0" "$@"
build=$(cd "$1" && pwd)
secs=${2:-140}
read -r -a filesystems <<<"${PREALLOC_PROM_FS:-ext4 xfs-exchange}"
read -r -a arms <<<"${PREALLOC_PROM_ARMS:-stock exec exec-conf exec-unordered}"
tool=$build/src/tool/prealloc
port=$((20000 + $$ % 20000))

scratch=$(mktemp -d /tmp/prealloc-exec-prometheus-XXXXXX)
prom_pid=
trap '[ -z "$prom_pid" ] || kill -KILL "$prom_pid" 2>/dev/null; umount "$scratch/mnt" 2>/dev/null || true; rm -rf "$scratch"' EXIT
cat >"$scratch/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: self
    static_configs:
      - targets: ['127.0.0.1:$port']
YML

# new_fs FS: a fresh FS on a sparse 4 GiB image's direct-I/O loop device,
# mounted on $scratch/mnt; its device name in $dev.  xfs-exchange: xfs
# formatted for exchange-range (xfsprogs 6.10's -i exchange=1; an older one
# formats without it and the superblock's incompat bit 0x40 is set by hand).
new_fs() {
	local img=$scratch/fs.img v
	rm -f "$img"
	truncate -s 4G "$img"
	case $1 in
	ext4) mkfs.ext4 -q -F "$img" ;;
	xfs-exchange)
		mkfs.xfs -q -f -i exchange=1 "$img" 2>/dev/null || {
			mkfs.xfs -q -f "$img"
			v=$(xfs_db -c 'sb 0' -c 'p features_incompat' "$img" | sed 's/.*= //')
			xfs_db -x -c 'sb 0' -c "write -d features_incompat $((v | 0x40))" "$img" >/dev/null
		} ;;
	esac
	dev=$(losetup --find --show --direct-io=on "$img")
	mkdir -p "$scratch/mnt"
	mount "$dev" "$scratch/mnt"
	losetup -d "$dev"
	dev=${dev#/dev/}
}

# written: bytes the loop device has written, the filesystem synced first.
written() {
	sync -f "$scratch/mnt"
	echo $(($(awk '{ print $7 }' "/sys/block/$dev/stat") * 512))
}

# one_run FS ARM: a fresh FS, Prometheus stock or under exec, its JSON line.
one_run() {
	local fs=$1 arm=$2 before after url=http://127.0.0.1:$port cmd=(/usr/bin/prometheus)
	new_fs "$fs"
	rm -f "$scratch/exec.log"
	case $arm in
	exec) cmd=("$tool" exec --log "$scratch/exec.log" -- "${cmd[@]}") ;;
	exec-conf) cmd=("$tool" exec "${dropin_opts[@]}" --log "$scratch/exec.log" -- "${cmd[@]}") ;;
	exec-unordered) cmd=("$tool" exec --unordered '*' --log "$scratch/exec.log" -- "${cmd[@]}") ;;
	dry-run) cmd=("$tool" exec --dry-run --log "$scratch/exec.log" -- "${cmd[@]}") ;;
	esac
	before=$(written)
	"${cmd[@]}" --config.file="$scratch/prometheus.yml" --storage.tsdb.path="$scratch/mnt/data" \
		--web.listen-address="127.0.0.1:$port" --web.enable-admin-api \
		--storage.tsdb.min-block-duration=1m --storage.tsdb.max-block-duration=1m \
		>"$scratch/server.log" 2>&1 &
	prom_pid=$!
	for _ in $(seq 300); do
		curl -sf "$url/-/ready" >/dev/null && break
		sleep 0.1
	done
	sleep $((secs / 2))
	curl -sf -XPOST "$url/api/v1/admin/tsdb/snapshot" >/dev/null
	sleep $((secs / 4))
	curl -sf -XPOST "$url/api/v1/admin/tsdb/snapshot" >/dev/null
	sleep $((secs - secs / 2 - secs / 4))
	kill -TERM "$prom_pid"
	wait "$prom_pid" || true
	prom_pid=
	after=$(written)
	python3 - "$fs" "$arm" "$before" "$after" "$scratch/exec.log" "$scratch/mnt/data" \
		"$scratch/server.log" <<'PY'
import collections, json, os, sys
fs, arm, before, after, log, data, server = sys.argv[1:]
r = {"fs": fs, "arm": arm, "written_mib": round((int(after) - int(before)) / 2**20, 1),
     "blocks": sum(1 for d in os.listdir(data) if d.startswith("01"))}
if os.path.exists(log):
    lines = [json.loads(l) for l in open(log)]
    calls = [c for c in lines if "outcome" in c]
    r["converted"] = sum(c["outcome"] == "converted" for c in calls)
    r["passed"] = dict(collections.Counter(c["why"] for c in calls if c["outcome"] == "passed"))
    r["paths"] = sorted({c["pattern"] for c in calls})
    r["thrown_mib"] = round(sum(e["thrown"] for e in lines if e.get("event") in ("cut", "unlinked"))
                            / 2**20, 1)
if arm == "dry-run":
    r["summary"] = [l.rstrip() for l in open(server, errors="replace")
                    if l.startswith("prealloc exec:   */") or l.startswith("prealloc exec: to ")
                    or l.startswith("prealloc exec: no way")]
print(json.dumps(r))
PY
	umount "$scratch/mnt"
}

raw=$scratch/raw.jsonl
: >"$raw"
for fs in "${filesystems[@]}"; do
	for arm in "${arms[@]}"; do
		one_run "$fs" "$arm" | tee -a "$raw" >&2
	done
done
[ -z "${PREALLOC_PROM_RAW:-}" ] || cp "$raw" "$PREALLOC_PROM_RAW"

echo "$(/usr/bin/prometheus --version 2>&1 | head -n1); $secs s per run, 1 s self-scrape,"
echo "1-minute blocks, 2 snapshots; exec-conf: prealloc exec ${dropin_opts[*]};"
echo "exec-unordered: prealloc exec --unordered '*'"
echo
python3 - "$raw" <<'PY'
import json, sys
print("| filesystem | arm | device writes MiB | blocks | converted | passed (why) | thrown away MiB |")
print("|---|---|---|---|---|---|---|")
for line in open(sys.argv[1]):
    r = json.loads(line)
    passed = ", ".join(f"{n} {w}" for w, n in r.get("passed", {}).items()) or "-"
    print(f"| {r['fs']} | {r['arm']} | {r['written_mib']} | {r['blocks']} | {r.get('converted', '-')} "
          f"| {passed} | {r.get('thrown_mib', '-')} |")
PY
