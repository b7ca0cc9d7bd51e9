# SPDX-License-Identifier: MIT
"""pg-bench.sh's figures: one run's from pgbench's output and per-transaction
logs, and the report of all runs (pg-bench.jsonl, a line per run).

  python3 -m preallocbench.pgbench run LOG_DIR PGBENCH_OUT   one run, JSON
  python3 -m preallocbench.pgbench report RUNS.jsonl         markdown tables

Medians per (fs, workload, arm); ratios are medians of per-round ratios (the
arms of a round ran back to back) to stock with the same recycling, and, for
the arms without recycling, to the hand-made ceiling.
"""
import glob
import json
import re
import statistics
import sys

from .stats import median_iqr


def run(log_dir, pgbench_out):
    """tps and the latency percentiles (ms) of one run."""
    lat = []
    for path in glob.glob(log_dir + '/pgbench_log.*'):
        with open(path) as f:
            lat += [int(line.split()[2]) for line in f]
    lat.sort()
    with open(pgbench_out) as f:
        tps = float(re.search(r'tps = ([0-9.]+)', f.read()).group(1))

    def pct(p):
        return lat[min(len(lat) - 1, int(p * len(lat)))] / 1000.0 if lat else 0
    return {'tps': tps, 'p50': pct(.5), 'p99': pct(.99), 'p999': pct(.999),
            'max': lat[-1] / 1000.0 if lat else 0}


def ratio(g, b, f):
    if b is None:
        return '-'
    return median_iqr([f(g[k]) / f(b[k]) for k in g if k in b and f(b[k])])


def walinit(r):
    w = r.get('waits')
    if w is None:
        return r['walinit_samples']
    return w.get('IO:WALInitWrite', 0) + w.get('IO:WALInitSync', 0)


def tps(r):
    return r['r']['tps']


def mx(r):
    return r['r']['max']


def init(r):
    return r['init_s']


def med(g, f):
    return statistics.median(f(r) for r in g.values())


def report(path):
    with open(path) as f:
        rows = [json.loads(line) for line in f]
    groups = {}
    for r in rows:
        groups.setdefault((r['fs'], r['workload'], r['arm']), {})[r['run']] = r
    out = ['| fs | workload | arm | runs | init s | init / stock | tps | tps / stock [IQR] | '
           'tps / ceiling [IQR] | p50 ms | p99 ms | p99.9 ms | max ms | max / stock | '
           'WALInit samples |',
           '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|']
    for (fs, wl, arm), g in sorted(groups.items()):
        recycles = arm in ('stock', 'prealloc')
        b = groups.get((fs, wl, 'stock' if recycles else 'stock-norecycle'))
        c = None if recycles else groups.get((fs, wl, 'ceiling'))
        out.append(f"| {fs} | {wl} | {arm} | {len(g)} | {med(g, init):.1f} | "
                   f"{ratio(g, b, init)} | {med(g, tps):.0f} | {ratio(g, b, tps)} | "
                   f"{ratio(g, c, tps)} | {med(g, lambda r: r['r']['p50']):.2f} | "
                   f"{med(g, lambda r: r['r']['p99']):.2f} | "
                   f"{med(g, lambda r: r['r']['p999']):.2f} | {med(g, mx):.1f} | "
                   f"{ratio(g, b, mx)} | {med(g, walinit):.0f} |")
    return out + profile(groups)


WAIT_COLS = ['CPU', 'LWLock:WALWrite', 'IO:WALSync', 'IO:WALWrite', 'IO:WALInit*', 'other']


def wait_col(ev):
    if ev in WAIT_COLS:
        return ev
    return 'IO:WALInit*' if ev.startswith('IO:WALInit') else 'other'


def profile(groups):
    """Where the time goes: the client backends' samples by wait event (share
    of all samples, summed over the runs), the machine's CPU and the worker's."""
    prof = {k: g for k, g in groups.items() if all('waits' in r for r in g.values())}
    if not prof:
        return []
    out = ['', '| fs | workload | arm | ' + ' | '.join(WAIT_COLS) + ' | CPU busy | worker CPU s |',
           '|---|---|---|' + '---|' * len(WAIT_COLS) + '---|---|']
    for (fs, wl, arm), g in sorted(prof.items()):
        n = {c: 0 for c in WAIT_COLS}
        for r in g.values():
            for ev, k in r['waits'].items():
                n[wait_col(ev)] += k
        tot = sum(n.values()) or 1
        out.append(f"| {fs} | {wl} | {arm} | " +
                   ' | '.join(f"{100 * n[c] / tot:.0f}%" for c in WAIT_COLS) +
                   f" | {100 * med(g, lambda r: r['cpu_busy']):.0f}% | "
                   f"{med(g, lambda r: r['worker_cpu_s']):.1f} |")
    return out


def main(argv):
    if argv[:1] == ['run'] and len(argv) == 3:
        print(json.dumps(run(argv[1], argv[2])))
    elif argv[:1] == ['report'] and len(argv) == 2:
        print('\n'.join(report(argv[1])))
    else:
        sys.exit('usage: python3 -m preallocbench.pgbench run LOG_DIR OUT | report RUNS.jsonl')


if __name__ == '__main__':
    main(sys.argv[1:])
