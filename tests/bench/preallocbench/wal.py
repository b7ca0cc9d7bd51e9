# SPDX-License-Identifier: MIT
"""WAL commit latency: the ready-segment pool against what databases do.

Sets up ext4 and xfs on direct-I/O loop devices like run-bench.py (root,
private mount namespace), or uses --dir.  Every run visits every mode, the
order rotating by one each run; each mode writes --segments segments of 16 MiB
with 8 KiB records, fdatasync per commit (wal-bench.c says what each mode
does).  Percentiles are over the commits of all runs of a mode together;
throughput ratios are medians of per-run ratios.  Only the Python standard
library is used.  Results: tests/bench/RESULTS.md.
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile

from .fs import filesystems, fs_info
from .markdown import f, table
from .session import save, start
from .stats import iqr, med, paired
from .util import TOP, log, rotated

MODES = ['pool', 'pool-prepare', 'pool-full-speed', 'dd', 'pg-zeros', 'fallocate', 'keep-size', 'append']


def pct(v, p):
    return v[int((len(v) - 1) * p)] / 1e3 if v else None


def summary(lat):
    v = sorted(lat)
    return {'n': len(v), 'p50_us': pct(v, 0.5), 'p99_us': pct(v, 0.99),
            'p999_us': pct(v, 0.999), 'max_us': v[-1] / 1e3 if v else None}


def one_run(a, fs, mode, r):
    d = tempfile.mkdtemp(prefix='wal-%s-' % mode, dir=fs.mnt)
    raw = os.path.join(fs.mnt, 'raw-%s-%d.txt' % (mode, r))
    cmd = [a.bench, '--segments', str(a.segments), '--window', str(a.window),
           '--raw', raw, mode, d]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = {'mode': mode, 'error': p.returncode, 'stderr': p.stderr.strip()}
    if p.stdout.strip():
        out.update(json.loads(p.stdout.strip().splitlines()[-1]))
    lat = {'all': [], 'steady': [], 'switch': []}
    if os.path.exists(raw):
        with open(raw) as f:
            for i, line in enumerate(f):
                ns, win = line.split()
                k = i % (a.per_segment)
                lat['all'].append(int(ns))
                if win == '1':
                    lat['switch'].append(int(ns))
                elif k >= a.window:
                    lat['steady'].append(int(ns))
        os.unlink(raw)
    shutil.rmtree(d)
    # Give the space back now: xfs frees unlinked blocks in the background.
    subprocess.run(['sync'])
    return out, lat


def bench_fs(a, fs):
    runs = {m: [] for m in a.modes}
    lat = {m: {'all': [], 'steady': [], 'switch': []} for m in a.modes}
    for r in range(a.runs):
        for m in rotated(a.modes, r):
            out, l = one_run(a, fs, m, r)
            runs[m].append(out)
            for k in l:
                lat[m][k] += l[k]
            log('  [%s run %d] %-10s %s' % (fs.fstype, r + 1, m, short(out)))
    rows = {}
    for m in a.modes:
        ok = [x for x in runs[m] if x.get('error') == 0]
        row = {k: summary(lat[m][k]) for k in lat[m]}
        row['steady_cps'] = med(ok, 'steady_cps')
        for k, ref in (('x_dd', 'dd'), ('x_fallocate', 'fallocate')):
            row[k] = paired(runs, m, ref, 'steady_cps')
            row[k + '_iqr'] = iqr(runs, m, ref, 'steady_cps')
        row['misses'] = (sum(x.get('pool', {}).get('misses', 0) for x in ok)
                         if m.startswith('pool') else None)
        switch_ratios(row, ok)
        w = [x['pool']['worker_ms_per_segment'] for x in ok if 'pool' in x]
        row['worker_ms'] = sorted(w)[len(w) // 2] if w else None
        row['runs'] = len(ok)
        rows[m] = row
    return {'fstype': fs.fstype, 'info': fs_info(fs.mnt), 'rows': rows, 'samples': runs}


def switch_ratios(row, ok):
    """The switch targets run by run: a run's switch p99.9 is nearly its
    maximum, so pooled over runs one stall of the machine decides them."""
    for k, num, den in (('sw_p999_x', ('switch', 'p999_us'), ('steady', 'p999_us')),
                        ('sw_max_x', ('switch', 'max_us'), ('steady', 'p99_us'))):
        v = sorted(x[num[0]][num[1]] / x[den[0]][den[1]] for x in ok if x[den[0]][den[1]])
        row[k] = v[len(v) // 2] if v else None
        row[k + '_runs'] = v


def short(o):
    if o.get('error'):
        return 'error %s %s' % (o.get('error'), o.get('stderr', ''))
    s, w = o['steady'], o['switch']
    return ('%6.0f commits/s steady p99 %7.0f us, switch p999 %7.0f max %7.0f us%s' % (
        o['steady_cps'], s['p99_us'], w['p999_us'], w['max_us'],
        ' misses %d' % o['pool']['misses'] if 'pool' in o else ''))


def targets(fs):
    return [line for m in fs['rows'] if m.startswith('pool') or m == 'dd'
            for line in targets_of(fs, m)]


def targets_of(fs, mode):
    p = fs['rows'][mode]
    st, sw = p['steady'], p['switch']
    checks = [
        ('switch p99.9 <= 1.2x steady p99.9', 'sw_p999_x', sw['p999_us'] / st['p999_us'], 1.2),
        ('switch max <= 3x steady p99', 'sw_max_x', sw['max_us'] / st['p99_us'], 3.0),
    ]
    out = ['- %s, %s: %s: %s (median of runs; runs %s; pooled %.2f) %s' % (
        fs['fstype'], mode, n, f(p[k], '%.2f'), ' '.join('%.2f' % x for x in p[k + '_runs']),
        pooled, 'PASS' if p[k] is not None and p[k] <= lim else 'MISS')
        for n, k, pooled, lim in checks]
    if mode == 'dd':
        return [line + ' (control: no work at the switch)' for line in out]
    for key, lim, name in (('x_dd', 0.95, 'dd-zeroed'), ('x_fallocate', 1.8, 'fallocate(0)')):
        v, q = p.get(key), p.get(key + '_iqr')
        out.append('- %s, %s: steady commits/s >= %.2fx %s: %s%s %s' % (
            fs['fstype'], mode, lim, name, f(v, '%.2f'),
            ' (per-run IQR %.2f-%.2f)' % tuple(q) if q else '',
            'PASS' if v is not None and v >= lim else 'MISS'))
    out.append('- %s, %s: making a segment took the worker %s ms (median of runs)' % (
        fs['fstype'], mode, f(p['worker_ms'], '%.0f')))
    out.append('- %s, %s: misses once warm: %s %s' % (
        fs['fstype'], mode, p['misses'], 'PASS' if p['misses'] == 0 else 'MISS'))
    return out


def report(a, results):
    m = results['machine']
    lines = ['# wal-bench %s' % m['date'], '', 'Command: `%s`' % results['command'], '',
             'Machine: %d CPUs (%s), %.1f GiB RAM, kernel %s; load average at start %s.' % (
                 m['nproc'], m['cpu'], m['mem_gib'], m['kernel'], results['load']), '']
    hdr = ['mode', 'commits/s', '×dd', '×fallocate', 'p50 µs', 'p99 µs', 'p99.9 µs',
           'max µs', 'switch p50', 'switch p99.9', 'switch max']
    for fs in results['fs']:
        lines += ['## %s on %s' % (fs['fstype'], fs['info']['source']), '']
        out = []
        for mode, r in fs['rows'].items():
            s, w = r['steady'], r['switch']
            out.append([mode, f(r['steady_cps'], '%.0f'), f(r['x_dd'], '%.2f'),
                        f(r['x_fallocate'], '%.2f'), f(s['p50_us'], '%.0f'),
                        f(s['p99_us'], '%.0f'), f(s['p999_us'], '%.0f'),
                        f(s['max_us'], '%.0f'), f(w['p50_us'], '%.0f'),
                        f(w['p999_us'], '%.0f'), f(w['max_us'], '%.0f')])
        lines += [table(hdr, out), '',
                  'Steady state: %d commits per mode (past the first %d of each segment); '
                  'around switches: %d (the first %d commits of each new segment, the '
                  'first one paying for the switch).' % (
                      fs['rows'][a.modes[0]]['steady']['n'], a.window,
                      fs['rows'][a.modes[0]]['switch']['n'], a.window), '',
                  '### Targets', ''] + targets(fs) + ['']
    return '\n'.join(lines)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--bench', default=os.path.join(TOP, 'build-bench/tests/bench/wal-bench'))
    p.add_argument('--dir', help='use this directory instead of loop filesystems')
    p.add_argument('--fs', default='ext4,xfs')
    p.add_argument('--modes', default=','.join(MODES))
    p.add_argument('--runs', type=int, default=3)
    p.add_argument('--segments', type=int, default=4, help='16 MiB segments per run')
    p.add_argument('--window', type=int, default=16, help='commits after a switch')
    p.add_argument('--json', default='bench-wal.json')
    p.add_argument('--md')
    p.add_argument('--report-from', metavar='JSON', help='only print the report of a saved run')
    a = p.parse_args()
    a.bench = os.path.abspath(a.bench)
    a.modes = a.modes.split(',')
    a.per_segment = (16 << 20) // 8192
    return a


def main():
    a = parse_args()
    if a.report_from:
        # The report again from a saved --json (e.g. after changing it).
        with open(a.report_from) as f:
            results = json.load(f)
        for fs in results['fs']:
            for m, row in fs['rows'].items():
                switch_ratios(row, [x for x in fs['samples'][m] if x.get('error') == 0])
        a.modes = list(results['fs'][0]['rows'])
        print(report(a, results) + '\nLoad average at the end: %s.\n' % results['load_end'])
        return
    results = start(a, 'run-wal-bench')
    results['load'] = open('/proc/loadavg').read().split()[0]
    size = (a.segments + 4) * (16 << 20) * 2 + (1 << 30)
    for fs in filesystems(a, size):
        results['fs'].append(bench_fs(a, fs))
    results['load_end'] = open('/proc/loadavg').read().split()[0]
    save(a, results, report(a, results) + '\nLoad average at the end: %s.\n' % results['load_end'])


if __name__ == '__main__':
    main()
