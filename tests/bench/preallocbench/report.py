# SPDX-License-Identifier: MIT
"""run-bench.py's markdown report, from its results (a run's or a saved --json)."""
from . import background, cache
from .markdown import f, table
from .sections import FRAG_METHODS
from .util import fmt_size


# Without io_uring: the aio method against the io_uring path and dd, its
# rival prototype beside it (tests/bench/RESULTS.md, issue 33).
DIRECT_METHODS = 'uring,aio,dd,fallocate,pwritev-threads'


def zero_table(rows):
    hdr = ['method', 'used', 'MiB/s', '×fio', '×dd', 'CPU s/GiB', 'CPU ×dd', 'written %']
    out = []
    for m, r in rows.items():
        if not r['runs']:
            out.append([m, 'n/a: ' + ', '.join(r['errors'])] + [''] * (len(hdr) - 2))
            continue
        out.append([m, r['used'] or '', f(r['mib_s']), f(r['x_fio'], '%.2f'),
                    f(r['x_dd'], '%.2f'), f(r['cpu_s_per_gib'], '%.3f'),
                    f(r['cpu_x_dd'], '%.2f'), f(r['written_pct'], '%.0f')])
    return table(hdr, out)


def frag_table(fr):
    hdr = ['layout'] + ['%s s' % m for m in FRAG_METHODS] + ['auto used', 'auto ×best',
                                                             'per-run IQR', 'written %']
    out = []
    for key, l in fr['layouts'].items():
        r = l['rows']
        q = l['x_best_iqr']
        out.append([key] + [f(r[m]['seconds'], '%.2f') for m in FRAG_METHODS] +
                   [r['auto']['used'] or '', f(l['x_best_median'], '%.2f'),
                    '%.2f-%.2f' % tuple(q) if q else '-',
                    f(min((r[m]['written_pct'] for m in FRAG_METHODS
                           if r[m]['written_pct'] is not None), default=None), '%.0f')])
    return table(hdr, out)


def direct_table(rows):
    """The direct-I/O contenders side by side: medians, IQRs, paired ratios."""
    hdr = ['method', 'MiB/s (IQR)', '×uring (IQR)', '×dd (IQR)', 'sys CPU s/GiB (IQR)',
           'sys ×uring (IQR)']
    rng = lambda q, fmt: ' (%s-%s)' % (fmt % q[0], fmt % q[1]) if q else ''
    out = []
    for m, r in rows.items():
        if not r['runs']:
            out.append([m, 'n/a: ' + ', '.join(r['errors'])] + [''] * (len(hdr) - 2))
            continue
        out.append([m, f(r['mib_s'], '%.0f') + rng(r.get('mib_s_iqr'), '%.0f'),
                    f(r['x_uring'], '%.2f') + rng(r.get('x_uring_iqr'), '%.2f'),
                    f(r['x_dd'], '%.2f') + rng(r.get('x_dd_iqr'), '%.2f'),
                    f(r['sys_s_per_gib'], '%.3f') + rng(r.get('sys_s_per_gib_iqr'), '%.3f'),
                    f(r['sys_x_uring'], '%.2f') + rng(r.get('sys_x_uring_iqr'), '%.2f')])
    return table(hdr, out)


def verdict(fstype, who, name, v, q, lim, ge):
    """A target's line: median @v (per-run IQR @q) against @lim, at least
    (@ge) or at most."""
    ok = v is not None and (v >= lim if ge else v <= lim)
    return '- %s, %s: %s: %s%s %s' % (
        fstype, who, name, f(v, '%.2f'), ' (per-run IQR %.2f-%.2f)' % tuple(q) if q else '',
        'PASS' if ok else 'MISS')


def direct_targets(fs):
    """Issue 33: without io_uring, aio >= 0.95x uring and >= 1.0x dd, system
    CPU per GiB <= 1.5x uring's."""
    a = fs.get('zero', {}).get('rows', {}).get('aio')
    if not a or not a['runs']:
        return []
    out = []
    for name, key, lim, ge in (('throughput >= 0.95x uring', 'x_uring', 0.95, True),
                               ('throughput >= 1.0x dd', 'x_dd', 1.0, True),
                               ('system CPU/GiB <= 1.5x uring', 'sys_x_uring', 1.5, False)):
        out.append(verdict(fs['fstype'], 'aio', name, a.get(key), a.get(key + '_iqr'),
                           lim, ge))
    return out


def overwrite_table(rows):
    hdr = ['file prepared by', 'written %', 'extents', 'rand IOPS', '×dd', '×fallocate',
           'seq IOPS', '×dd', '×fallocate']
    out = []
    for m, r in rows.items():
        out.append([m, f(r['written_pct'], '%.0f'), f(r['extents'], '%.0f'),
                    f(r['rand_iops'], '%.0f'),
                    f(r['rand_x_dd'], '%.2f'), f(r['rand_x_falloc'], '%.2f'),
                    f(r['seq_iops'], '%.0f'), f(r['seq_x_dd'], '%.2f'),
                    f(r['seq_x_falloc'], '%.2f')])
    return table(hdr, out)


def targets(fs):
    z = fs.get('zero', {}).get('rows', {}).get('auto', {})
    o = fs.get('overwrite', {}).get('rows', {}).get('auto', {})
    checks = []
    if fs['fstype'] == 'ext4' and z:
        checks += [('zeroing >= 0.9x fio ceiling', z, 'x_fio', 0.9, True),
                   ('zeroing >= 1.0x dd', z, 'x_dd', 1.0, True),
                   ('CPU/GiB <= 0.5x dd', z, 'cpu_x_dd', 0.5, False)]
    if o:
        checks += [('rand overwrite IOPS >= 0.9x dd-zeroed', o, 'rand_x_dd', 0.9, True),
                   ('rand overwrite IOPS >= 1.8x fallocate(0)', o, 'rand_x_falloc', 1.8, True),
                   ('(seq O_DSYNC IOPS vs dd-zeroed)', o, 'seq_x_dd', 0.9, True),
                   ('(seq O_DSYNC IOPS vs fallocate(0))', o, 'seq_x_falloc', 1.8, True)]
    for key, l in fs.get('frag', {}).get('layouts', {}).items():
        checks.append(('fragmented %s: time <= 1.1x best forced method' % key,
                       {'x': l['x_best_median'], 'x_iqr': l['x_best_iqr']}, 'x', 1.1, False))
    return [verdict(fs['fstype'], 'prealloc auto', name, row.get(key), row.get(key + '_iqr'),
                    lim, ge) for name, row, key, lim, ge in checks]


def scale_table(scale):
    methods = list(next(iter(scale.values())).keys()) if scale else []
    hdr = ['size'] + ['%s s' % m for m in methods] + ['%s MiB/s' % m for m in methods]
    out = []
    for size, row in scale.items():
        out.append([size] + [f(row[m]['seconds'], '%.3f') for m in methods] +
                   [f(row[m]['fio_mib_s'] if m == 'fio' else row[m]['mib_s']) for m in methods])
    return table(hdr, out)


def sweep_table(a, grid, key, fmt):
    hdr = ['qd \\ req'] + [fmt_size(r) for r in a.sweep_req]
    out = []
    for qd in a.sweep_qd:
        out.append([str(qd)] + [f(grid['%d/%s' % (qd, fmt_size(r))][key], fmt)
                                for r in a.sweep_req])
    return table(hdr, out)


def report(a, results):
    m = results['machine']
    lines = ['# prealloc-bench %s' % m['date'], '',
             'Command: `%s`' % results['command'], '',
             'Machine: %d CPUs (%s), %.1f GiB RAM, kernel %s, %s.' % (
                 m['nproc'], m['cpu'], m['mem_gib'], m['kernel'], m['fio'] or 'no fio'), '']
    for fs in results['fs']:
        info = fs['info']
        lines += ['## %s on %s' % (fs['fstype'], info['source']), '',
                  'Mount options `%s`; %s' % (info['options'], ', '.join(
                      '%s=%s' % (k, v) for k, v in info.items()
                      if k not in ('source', 'fstype', 'options'))), '']
        if 'zero' in fs:
            z = fs['zero']
            lines += ['MiB/s is bytes / wall time from open() to a durable file (fdatasync '
                      'included); fio\'s is its own reported bandwidth.  CPU is user+sys of '
                      'the process and its threads (getrusage, or wait4 for dd and fio); '
                      'loop-device and other kernel workers are charged to nobody.  '
                      'Ratios are medians of per-run ratios.', '']
            lines += ['### Zeroing a fresh %s file (median of %d runs)'
                      % (fmt_size(z['size']), z['runs']), '',
                      zero_table(z['rows']), '']
            if 'uring' in z['rows'] and 'aio' in z['rows']:
                lines += ['### Without io_uring: direct writes side by side (median of %d '
                          'alternating runs; IQRs of the runs and of the per-run ratios)'
                          % z['runs'], '',
                          'sys CPU is the system time of the process and its threads '
                          '(io_uring\'s workers included).', '',
                          direct_table({m: r for m, r in z['rows'].items()
                                        if m in DIRECT_METHODS.split(',')}), '']
        if 'overwrite' in fs:
            o = fs['overwrite']
            lines += ['### 4 KiB O_DIRECT overwrites afterwards: rand + fdatasync each, '
                      'seq O_DSYNC (%s files, %d ops each in %d turns, median of %d runs)'
                      % (fmt_size(o['size']), o['ops'], o['rounds'], o['runs']), '',
                      overwrite_table(o['rows']), '']
        if 'frag' in fs:
            fr = fs['frag']
            lines += ['### Fragmented %s files (median of %d alternating runs)'
                      % (fmt_size(fr['size']), fr['runs']), '',
                      'Seconds of prealloc_file_ex() over the whole file, which holds '
                      'data at the start of every block of the layout and holes between '
                      '(synced before timing).  auto ×best: per run, auto\'s time over '
                      'the faster of forced buffered and forced uring; median.', '',
                      frag_table(fr), '']
        if 'background' in fs:
            g = fs['background']
            lines += ['### Preallocating %s beside a foreground (%g s fio runs, contender '
                      'from %g s; median of %d alternating runs)' % (
                          fmt_size(g['size']), g['seconds'], a.bg_delay, g['runs']), '']
            lines += background.report_background(g)
        if 'cache' in fs:
            lines += ['### Page cache after a call, and a working set beside it', '']
            lines += cache.report_cache(fs['cache'])
        t = targets(fs) + direct_targets(fs)
        if 'background' in fs:
            t += background.targets_background(fs['fstype'], fs['background'])
        if t:
            lines += ['### Targets', ''] + t + ['']
        if 'probe' in fs:
            p = fs['probe']
            lines += ['### Probe cost', '',
                      'pa_caps_get(): cold %s µs, first after invalidate %s µs (median), '
                      'cached %s µs (median).' % (f(p.get('cold_us')), f(p.get('first_us')),
                                                   f(p.get('cached_us'), '%.2f')), '']
        if 'scale' in fs:
            lines += ['### Scaling (median of %d runs)' % a.scale_runs, '',
                      scale_table(fs['scale']), '',
                      'Seconds are the wall time of the whole contender (for fio including '
                      'its start-up); fio MiB/s is fio\'s own bandwidth.', '']
        if 'sweep' in fs:
            lines += ['### io_uring queue depth × request size, %s file, MiB/s '
                      '(median of %d runs)' % (fmt_size(a.sweep_size), a.sweep_runs), '',
                      sweep_table(a, fs['sweep']['grid'], 'mib_s', '%.0f'), '',
                      'Per-run ratio to the current default (qd %d, %s), median:'
                      % (a.default_qd, fmt_size(a.default_req)), '',
                      sweep_table(a, fs['sweep']['grid'], 'x_default', '%.2f'), '']
    return '\n'.join(lines)
