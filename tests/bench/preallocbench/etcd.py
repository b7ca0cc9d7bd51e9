# SPDX-License-Identifier: MIT
"""etcd-bench.sh's figures: one run's from etcd's /metrics (stdin) and its
load's output, and the report of all runs (a JSON line per run).

  python3 -m preallocbench.etcd run FS ROUND VARIANT LOAD SEGMENTS OUTPUT < metrics
  python3 -m preallocbench.etcd report RUNS.jsonl

Histogram quantiles are interpolated linearly inside their bucket, as
Prometheus' histogram_quantile does; ratios are patched over stock per round,
median [IQR].
"""
import json
import re
import statistics
import sys
from collections import defaultdict

from .stats import median_iqr

KEYS = ['puts_per_s', 'put_p99_ms', 'fsync_p50_ms', 'fsync_p99_ms']


def quantile(q, buckets):
    """histogram_quantile: linear inside the bucket holding the q-th rank."""
    buckets = sorted(buckets)
    total = buckets[-1][1]
    if total == 0:
        return float("nan")
    rank, lo, below = q * total, 0.0, 0.0
    for le, count in buckets:
        if count >= rank:
            if le == float("inf"):
                return lo
            return lo + (le - lo) * (rank - below) / max(count - below, 1e-12)
        lo, below = le, count
    return lo


def histogram(text, name, match=""):
    b = defaultdict(float)
    for line in text.splitlines():
        if line.startswith(name + "_bucket{") and match in line:
            le = re.search(r'le="([^"]+)"', line).group(1)
            b[float(le)] += float(line.rsplit(" ", 1)[1])
    return list(b.items())


def run(fs, rnd, variant, load, segs, out):
    text = sys.stdin.read()
    fsync = histogram(text, "etcd_disk_wal_fsync_duration_seconds")
    r = {"fs": fs, "round": int(rnd), "variant": variant, "load": load,
         "segments": int(segs),
         "fsync_p50_ms": quantile(0.50, fsync) * 1e3,
         "fsync_p99_ms": quantile(0.99, fsync) * 1e3}
    if load == "seq":
        o = json.loads(out)
        r.update(puts_per_s=o["puts_per_s"], put_p99_ms=o["p99_ms"])
    else:
        m = re.search(r"Throughput[^0-9]*([0-9]+) writes/s", out)
        r["puts_per_s"] = float(m.group(1)) if m else float("nan")
        put = histogram(text, "grpc_server_handling_seconds", 'grpc_method="Put"')
        r["put_p99_ms"] = quantile(0.99, put) * 1e3 if put else float("nan")
        r["check_perf"] = out.strip()
    print(json.dumps(r))


def report(path):
    with open(path) as f:
        runs = [json.loads(line) for line in f]
    by = defaultdict(dict)
    for r in runs:
        by[r["fs"], r["load"], r["round"]][r["variant"]] = r
    groups = sorted({(f, lo) for f, lo, _ in by})

    def rounds(f, lo):
        return [v for (ff, ll, _), v in sorted(by.items()) if (ff, ll) == (f, lo) and len(v) == 2]
    print("| fs | load | rounds | segments cut (stock / patched) | puts/s stock / patched | "
          "put p99 ms | WAL fsync p50 ms | WAL fsync p99 ms |")
    print("|---|---|---|---|---|---|---|---|")
    for f, lo in groups:
        pairs = rounds(f, lo)

        def med(var, k):
            return statistics.median(p[var][k] for p in pairs)
        cells = [f"{med('stock', k):.2f} / {med('patched', k):.2f}" for k in KEYS]
        print(f"| {f} | {lo} | {len(pairs)} | {med('stock', 'segments'):.0f} / "
              f"{med('patched', 'segments'):.0f} | " + " | ".join(cells) + " |")
    print("\nRatios patched / stock, per round, median [IQR]:\n")
    print("| fs | load | puts/s | put p99 | WAL fsync p50 | WAL fsync p99 |")
    print("|---|---|---|---|---|---|")
    for f, lo in groups:
        cells = [median_iqr([p["patched"][k] / p["stock"][k] for p in rounds(f, lo)])
                 for k in KEYS]
        print(f"| {f} | {lo} | " + " | ".join(cells) + " |")


def main(argv):
    if argv[:1] == ['run'] and len(argv) == 7:
        run(*argv[1:])
    elif argv[:1] == ['report'] and len(argv) == 2:
        report(argv[1])
    else:
        sys.exit('usage: python3 -m preallocbench.etcd run FS ROUND VARIANT LOAD SEGS OUT '
                 '| report RUNS.jsonl')


if __name__ == '__main__':
    main(sys.argv[1:])
