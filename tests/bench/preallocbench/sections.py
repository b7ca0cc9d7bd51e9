# SPDX-License-Identifier: MIT
"""run-bench.py's sections zero, frag, overwrite, probe, scale and sweep
(background and cache have modules of their own)."""
import os
import statistics

from .stats import iqr, med, paired
from .util import GIB, fmt_size, log, rotated


ZERO_METHODS = ['fio', 'auto', 'dd', 'uring', 'aio', 'pwritev-threads', 'pg-zeros', 'buffered',
                'allocate', 'posix-fallocate', 'fallocate', 'write-zeroes', 'zeroout']


def section_zero(b, fs, res):
    a = b.a
    path = os.path.join(fs.mnt, 'prealloc-bench.dat')
    samples = {m: [] for m in a.methods}
    for r in range(a.runs):
        for m in rotated(a.methods, r):
            s = b.prep(m, a.size, path)
            if m == 'fio':
                s['wall_mib_s'], s['mib_s'] = s.get('mib_s'), s.get('fio_mib_s')
            if s.get('cpu_sys') is not None:
                s['sys_s_per_gib'] = s['cpu_sys'] * GIB / a.size
            samples[m].append(s)
            log('  [%s zero run %d] %-15s %s' % (fs.fstype, r + 1, m, short(s)))
            if os.path.exists(path):
                os.unlink(path)
    rows = {}
    for m, ss in samples.items():
        ok = [s for s in ss if s.get('error') == 0]
        row = {'runs': len(ok), 'used': ok[0].get('used') if ok else None,
               'errors': sorted({s.get('error_str') or str(s.get('error'))
                                 for s in ss if s.get('error') != 0})}
        for k in ('mib_s', 'cpu_s_per_gib', 'sys_s_per_gib', 'seconds', 'written_pct',
                  'wall_mib_s'):
            row[k] = med(ok, k)
            if k in ('mib_s', 'sys_s_per_gib') and len(ok) >= 2:
                q = statistics.quantiles([s[k] for s in ok], n=4, method='inclusive')
                row[k + '_iqr'] = [q[0], q[2]]
        for k, ref, key in (('x_fio', 'fio', 'mib_s'), ('x_dd', 'dd', 'mib_s'),
                            ('cpu_x_dd', 'dd', 'cpu_s_per_gib'),
                            ('x_uring', 'uring', 'mib_s'),
                            ('sys_x_uring', 'uring', 'sys_s_per_gib')):
            row[k] = paired(samples, m, ref, key)
            row[k + '_iqr'] = iqr(samples, m, ref, key)
        rows[m] = row
    res['zero'] = {'size': a.size, 'runs': a.runs, 'rows': rows, 'samples': samples}
    return rows


FRAG_LAYOUTS = [('4K', '8K'), ('64K', '1M')]


FRAG_METHODS = ['auto', 'buffered', 'uring']


def section_frag(b, fs, res):
    """Fragmented files: DATA bytes at the start of every EVERY bytes, holes
    between.  auto against the best forced method, per run."""
    a = b.a
    path = os.path.join(fs.mnt, 'prealloc-bench-frag.dat')
    out = {}
    for data, every in FRAG_LAYOUTS:
        key = '%s every %s' % (data, every)
        samples = {m: [] for m in FRAG_METHODS}
        for r in range(a.frag_runs):
            for m in rotated(FRAG_METHODS, r):
                # Settle the previous sample's deletion (xfs frees a
                # fragmented file's extents in the background).
                os.sync()
                s = b._json([b.exe, 'frag', '--data', data, '--every', every, m,
                             str(a.frag_size), path])
                samples[m].append(s)
                log('  [%s frag %s run %d] %-9s %s' % (fs.fstype, key, r + 1, m, short(s)))
        # Per run: auto's time over the faster forced method of that run.
        x_best = []
        for i in range(a.frag_runs):
            run_s = {m: samples[m][i] for m in FRAG_METHODS}
            if all(x.get('error') == 0 for x in run_s.values()):
                best = min(run_s[m]['seconds'] for m in FRAG_METHODS if m != 'auto')
                x_best.append(run_s['auto']['seconds'] / best)
        rows = {}
        for m, ss in samples.items():
            ok = [x for x in ss if x.get('error') == 0]
            rows[m] = {'runs': len(ok), 'used': ok[0].get('used') if ok else None,
                       'seconds': med(ok, 'seconds'), 'written_pct': med(ok, 'written_pct')}
        q = statistics.quantiles(x_best, n=4, method='inclusive') if len(x_best) > 1 else None
        out[key] = {'rows': rows, 'samples': samples, 'x_best': x_best,
                    'x_best_median': statistics.median(x_best) if x_best else None,
                    'x_best_iqr': [q[0], q[2]] if q else None}
    res['frag'] = {'size': a.frag_size, 'runs': a.frag_runs, 'layouts': out}


def section_overwrite(b, fs, res):
    """Prepare one file per contender, then overwrite them all in turns."""
    a = b.a
    runs = []
    for r in range(a.ow_runs):
        order = rotated(a.ow_methods, r)
        paths, preps = [], {}
        for m in order:
            path = os.path.join(fs.mnt, 'prealloc-bench-ow-%s.dat' % m)
            preps[m] = b.prep(m, a.ow_size, path)
            if preps[m].get('error') == 0:
                paths.append(path)
        run_ = {'prep': preps}
        for mode in ('rand', 'seq'):
            out = b.overwrite(paths, mode)
            per = {os.path.basename(x['path'])[len('prealloc-bench-ow-'):-4]: x
                   for x in out.get('files', [])}
            run_[mode] = {m: per.get(m, {'error': -1}) for m in order}
            log('  [%s overwrite run %d %s] %s' % (
                fs.fstype, r + 1, mode, ' '.join('%s=%.0f' % (m, x.get('iops', 0))
                                                  for m, x in run_[mode].items())))
        for path in paths:
            os.unlink(path)
        runs.append(run_)
    rows = {}
    for m in a.ow_methods:
        row = {'written_pct': med([x['prep'][m] for x in runs], 'written_pct'),
               'extents': med([x['prep'][m] for x in runs], 'extents')}
        for mode in ('rand', 'seq'):
            samples = {k: [x[mode][k] for x in runs] for k in a.ow_methods}
            row[mode + '_iops'] = med(samples[m], 'iops')
            for k, ref in (('_x_dd', 'dd'), ('_x_falloc', 'fallocate')):
                row[mode + k] = paired(samples, m, ref, 'iops')
                row[mode + k + '_iqr'] = iqr(samples, m, ref, 'iops')
        rows[m] = row
    res['overwrite'] = {'size': a.ow_size, 'runs': a.ow_runs, 'ops': a.ops,
                        'rounds': a.rounds, 'rows': rows, 'samples': runs}
    return rows


def short(s):
    if s.get('error') != 0:
        return 'error %s %s' % (s.get('error'), s.get('error_str') or '')
    return '%8.1f MiB/s cpu %.3f s/GiB' % (s.get('mib_s') or 0, s.get('cpu_s_per_gib') or 0)


def section_probe(b, fs, res):
    path = os.path.join(fs.mnt, 'prealloc-bench.probe')
    with open(path, 'w'):
        pass
    p = b.probe(path)
    os.unlink(path)
    res['probe'] = p
    log('  [%s] probe %s' % (fs.fstype, p))
    return p


def section_scale(b, fs, res):
    a = b.a
    path = os.path.join(fs.mnt, 'prealloc-bench.dat')
    out = {}
    for size in a.scale_sizes:
        samples = {m: [] for m in a.scale_methods}
        for r in range(a.scale_runs):
            for m in rotated(a.scale_methods, r):
                s = b.prep(m, size, path)
                samples[m].append(s)
                log('  [%s scale %s run %d] %-6s %s' % (fs.fstype, fmt_size(size), r + 1,
                                                       m, short(s)))
                if os.path.exists(path):
                    os.unlink(path)
        out[fmt_size(size)] = {m: {'seconds': med(ss, 'seconds'), 'mib_s': med(ss, 'mib_s'),
                                   'fio_mib_s': med(ss, 'fio_mib_s'),
                                   'cpu_s_per_gib': med(ss, 'cpu_s_per_gib')}
                               for m, ss in samples.items()}
    res['scale'] = out
    return out


def section_sweep(b, fs, res):
    a = b.a
    path = os.path.join(fs.mnt, 'prealloc-bench.dat')
    combos = [(qd, req) for qd in a.sweep_qd for req in a.sweep_req]
    samples = {c: [] for c in combos}
    for r in range(a.sweep_runs):
        for qd, req in rotated(combos, r * 7):
            s = b.prep('uring', a.sweep_size, path, qd=qd, req=req)
            samples[(qd, req)].append(s)
            log('  [%s sweep run %d] qd %2d req %-4s %s' % (fs.fstype, r + 1, qd,
                                                           fmt_size(req), short(s)))
            if os.path.exists(path):
                os.unlink(path)
    named = {'%d/%s' % (qd, fmt_size(req)): ss for (qd, req), ss in samples.items()}
    default = '%d/%s' % (a.default_qd, fmt_size(a.default_req))
    grid = {k: {'mib_s': med(ss, 'mib_s'), 'cpu_s_per_gib': med(ss, 'cpu_s_per_gib'),
                'x_default': paired(named, k, default, 'mib_s')}
            for k, ss in named.items()}
    res['sweep'] = {'size': a.sweep_size, 'runs': a.sweep_runs, 'default': default,
                    'grid': grid}
    return grid
