#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Benchmark libprealloc against what databases do today.

Sets up ext4 and xfs on direct-I/O loop devices (root; backing files under
/var/tmp, in a private mount namespace so nothing outlives the script), or
uses --dir.  Contenders run alternating (the order rotates every run) and
medians are reported.  Sections:

  zero       zeroing a fresh --size file: prealloc auto, forced methods (aio
             beside uring, and its rival pwritev-threads: `--sections zero
             --methods uring,aio,dd,fallocate,pwritev-threads`),
             dd, pg_pwrite_zeros loop, posix_fallocate, fallocate(0), fio
             ceiling
  overwrite  one --ow-size file per contender, then 4 KiB O_DIRECT random
             overwrites + fdatasync and O_DSYNC sequential writes, the files
             taking turns
  probe      pa_caps_get(): first (after invalidate) and cached
  scale      zeroing time at --scale-sizes (auto, dd, fio)
  sweep      io_uring queue depth x request size (forced uring)
  background preallocating beside a foreground fio job (background.py)
  cache      the page cache a call leaves per method, and a working set's
             residency in a memory cgroup across a call (cache.py)

Only the Python standard library is used.  See tests/bench/RESULTS.md.
"""
import argparse
import json
import os
import platform
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import background
import cache

NS_MARK = 'PREALLOC_BENCH_NS'
# fio, auto and dd stay neighbours in every rotation: their ratios are paired.
ZERO_METHODS = ['fio', 'auto', 'dd', 'uring', 'aio', 'pwritev-threads', 'pg-zeros', 'buffered',
                'allocate', 'posix-fallocate', 'fallocate', 'write-zeroes', 'zeroout']
# Without io_uring: the aio method against the io_uring path and dd, its
# rival prototype beside it (tests/bench/RESULTS.md, issue 33).
DIRECT_METHODS = 'uring,aio,dd,fallocate,pwritev-threads'

MIB = 1 << 20
GIB = 1 << 30


def parse_size(s):
    s = s.strip().upper()
    mult = {'K': 1 << 10, 'M': MIB, 'G': GIB, 'T': 1 << 40}
    if s and s[-1] in mult:
        return int(s[:-1]) * mult[s[-1]]
    return int(s)


def fmt_size(n):
    for unit, m in (('G', GIB), ('M', MIB), ('K', 1024)):
        if n % m == 0:
            return '%d%s' % (n // m, unit)
    return str(n)


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, **kw).stdout


# ---- environment -----------------------------------------------------------

def machine_info(bench):
    mem = 0
    with open('/proc/meminfo') as f:
        for line in f:
            if line.startswith('MemTotal:'):
                mem = int(line.split()[1]) * 1024
    cpu = ''
    with open('/proc/cpuinfo') as f:
        for line in f:
            if line.startswith('model name'):
                cpu = line.split(':', 1)[1].strip()
                break
    fio = shutil.which('fio')
    return {
        'nproc': os.cpu_count(),
        'mem_gib': round(mem / GIB, 1),
        'cpu': cpu,
        'kernel': platform.release(),
        'fio': run(['fio', '--version']).strip() if fio else None,
        'bench': bench,
        'date': time.strftime('%Y-%m-%d %H:%M:%S %z'),
    }


def fs_info(path):
    out = run(['findmnt', '-n', '-o', 'SOURCE,FSTYPE,OPTIONS', '-T', path]).split()
    info = {'source': out[0], 'fstype': out[1], 'options': out[2] if len(out) > 2 else ''}
    base = os.path.basename(info['source'])
    if base.startswith('loop'):
        sysq = '/sys/block/%s' % base
        for attr in ('loop/dio', 'queue/write_zeroes_max_bytes',
                     'queue/write_zeroes_unmap_max_bytes', 'queue/logical_block_size'):
            try:
                with open(os.path.join(sysq, attr)) as f:
                    info[attr.split('/')[-1]] = f.read().strip()
            except OSError:
                pass
        host = run(['findmnt', '-n', '-o', 'SOURCE,FSTYPE', '-T', '/var/tmp']).split()
        info['backing'] = '/var/tmp on %s (%s)' % (host[0], host[1])
    return info


class LoopFs:
    """A filesystem on a direct-I/O loop device over a fully written image."""

    def __init__(self, fstype, size):
        self.fstype, self.size = fstype, size
        self.image = self.dev = self.mnt = None
        self.autoclear = False

    def __enter__(self):
        fd, self.image = tempfile.mkstemp(prefix='prealloc-bench-%s-' % self.fstype,
                                          suffix='.img', dir='/var/tmp')
        os.close(fd)
        # Write the image once so the host filesystem's block allocation does
        # not favour whichever contender runs second.
        run(['dd', 'if=/dev/zero', 'of=' + self.image, 'bs=4M',
             'count=%d' % (self.size // (4 * MIB)), 'oflag=direct', 'conv=fsync',
             'status=none'])
        self.dev = run(['losetup', '--find', '--show', '--direct-io=on', self.image]).strip()
        if self.fstype == 'ext4':
            # No lazy init: ext4lazyinit would write in the background while
            # we measure.  No discard: keep the image written.
            run(['mkfs.ext4', '-q', '-F', '-E',
                 'nodiscard,lazy_itable_init=0,lazy_journal_init=0', self.dev])
        elif self.fstype == 'xfs':
            run(['mkfs.xfs', '-q', '-f', '-K', self.dev])
        else:
            run(['mkfs.' + self.fstype, '-q', '-f', self.dev])
        self.mnt = tempfile.mkdtemp(prefix='prealloc-bench-mnt-')
        run(['mount', '-t', self.fstype, self.dev, self.mnt])
        # Detach now: the kernel marks the busy device autoclear, so it goes
        # away with the mount even if we are killed.
        run(['losetup', '-d', self.dev])
        self.autoclear = True
        os.unlink(self.image)
        self.image = None
        return self

    def __exit__(self, *exc):
        if self.mnt:
            # A killed io_uring user's ring may hold the mount a moment longer.
            for _ in range(50):
                if subprocess.run(['umount', self.mnt], stderr=subprocess.DEVNULL).returncode == 0:
                    break
                time.sleep(0.1)
            os.rmdir(self.mnt)
        if self.dev and not self.autoclear:
            subprocess.run(['losetup', '-d', self.dev], stderr=subprocess.DEVNULL)
        if self.image:
            os.unlink(self.image)
        return False


class DirFs:
    """A directory given on the command line."""

    def __init__(self, path):
        self.mnt = os.path.abspath(path)
        self.fstype = fs_info(self.mnt)['fstype']

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# ---- one measurement -------------------------------------------------------

class Bench:
    def __init__(self, args):
        self.a = args
        self.exe = args.bench

    def _json(self, cmd):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = p.stdout.strip().splitlines()
        if not line:
            return {'error': -1, 'error_str': p.stderr.strip() or 'no output'}
        return json.loads(line[-1])

    def prep(self, method, size, path, qd=0, req=0):
        """Prepare a fresh file; returns the sample dict."""
        if os.path.exists(path):
            os.unlink(path)
        if method == 'dd':
            cmd = ['dd', 'if=/dev/zero', 'of=' + path, 'bs=2M',
                   'count=%d' % (size // (2 * MIB)), 'oflag=direct', 'conv=fsync',
                   'status=none']
            r = self._json([self.exe, 'exec', '--bytes', str(size), '--'] + cmd)
        elif method == 'fio':
            r = self.fio(size, path)
        else:
            cmd = [self.exe, 'prep']
            if qd:
                cmd += ['--qd', str(qd)]
            if req:
                cmd += ['--req', str(req)]
            r = self._json(cmd + [method, str(size), path])
        if method in ('dd', 'fio') and r.get('error') == 0:
            c = self._json([self.exe, 'census', path])
            r['written_pct'], r['extents'] = c.get('written_pct'), c.get('extents')
        r['method'] = method
        return r

    def fio(self, size, path):
        out = path + '.fio.json'
        cmd = ['fio', '--name=ceiling', '--filename=' + path, '--rw=write', '--bs=1M',
               '--iodepth=16', '--ioengine=io_uring', '--direct=1', '--size=%d' % size,
               '--end_fsync=1', '--output-format=json', '--output=' + out]
        r = self._json([self.exe, 'exec', '--bytes', str(size), '--'] + cmd)
        try:
            with open(out) as f:
                job = json.load(f)['jobs'][0]
            r['fio_mib_s'] = job['write']['bw_bytes'] / MIB
        except (OSError, ValueError, KeyError, IndexError):
            r['fio_mib_s'] = None
        if os.path.exists(out):
            os.unlink(out)
        return r

    def overwrite(self, paths, mode):
        if not paths:
            return {'error': -1, 'files': []}
        return self._json([self.exe, 'overwrite', '--mode', mode, '--ops', str(self.a.ops),
                           '--rounds', str(self.a.rounds)] + paths)

    def probe(self, path):
        return self._json([self.exe, 'probe', path])


def med(samples, key):
    v = [s[key] for s in samples if s.get('error') == 0 and s.get(key) is not None]
    return statistics.median(v) if v else None


def rotated(items, r):
    r %= len(items)
    return items[r:] + items[:r]


# ---- sections --------------------------------------------------------------

def paired_all(samples, m, ref, key):
    """Per-run ratios samples[m][r][key] / samples[ref][r][key]: each run's
    contenders ran close together, so the ratio cancels the machine's drift
    better than a ratio of medians."""
    out = []
    for s, t in zip(samples.get(m, []), samples.get(ref, [])):
        if s.get('error') == 0 and t.get('error') == 0 and s.get(key) and t.get(key):
            out.append(s[key] / t[key])
    return out


def paired(samples, m, ref, key):
    v = paired_all(samples, m, ref, key)
    return statistics.median(v) if v else None


def iqr(samples, m, ref, key):
    v = paired_all(samples, m, ref, key)
    if len(v) < 2:
        return None
    q = statistics.quantiles(v, n=4, method='inclusive')
    return [q[0], q[2]]


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


# ---- output ----------------------------------------------------------------

def f(v, fmt='%.1f'):
    return '-' if v is None else fmt % v


def table(header, rows):
    lines = ['| ' + ' | '.join(header) + ' |', '|' + '---|' * len(header)]
    lines += ['| ' + ' | '.join(r) + ' |' for r in rows]
    return '\n'.join(lines)


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
        v, q = a.get(key), a.get(key + '_iqr')
        ok = v is not None and (v >= lim if ge else v <= lim)
        out.append('- %s, aio: %s: %s%s %s' % (
            fs['fstype'], name, f(v, '%.2f'),
            ' (per-run IQR %.2f-%.2f)' % tuple(q) if q else '', 'PASS' if ok else 'MISS'))
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
    out = []
    for name, row, key, lim, ge in checks:
        v, q = row.get(key), row.get(key + '_iqr')
        ok = v is not None and (v >= lim if ge else v <= lim)
        out.append('- %s, prealloc auto: %s: %s%s %s' % (
            fs['fstype'], name, f(v, '%.2f'),
            ' (per-run IQR %.2f-%.2f)' % tuple(q) if q else '', 'PASS' if ok else 'MISS'))
    return out


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
            lines += background.report_background(g, table)
        if 'cache' in fs:
            lines += ['### Page cache after a call, and a working set beside it', '']
            lines += cache.report_cache(fs['cache'], table)
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


# ---- main ------------------------------------------------------------------

def parse_args(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--bench', default=os.path.join(here, '../../build-bench/tests/bench/prealloc-bench'),
                   help='the prealloc-bench executable')
    p.add_argument('--dir', help='use this directory instead of loop filesystems')
    p.add_argument('--fs', default='ext4,xfs', help='loop filesystems (default ext4,xfs)')
    p.add_argument('--sections',
                   default='zero,overwrite,probe,scale,sweep,frag,background,cache')
    p.add_argument('--scale-fs', default='ext4', help='filesystems for scale and sweep')
    p.add_argument('--size', default='1G', help='file size for the zero section')
    p.add_argument('--runs', type=int, default=7)
    p.add_argument('--methods', default=','.join(ZERO_METHODS))
    p.add_argument('--ow-size', default='256M', help='file size for the overwrite section')
    p.add_argument('--ow-methods', default='auto,dd,pg-zeros,fio,allocate,posix-fallocate,'
                   'fallocate')
    p.add_argument('--ow-runs', type=int, default=9)
    p.add_argument('--ops', type=int, default=2000, help='overwrites per file and mode')
    p.add_argument('--rounds', type=int, default=20, help='turns the files take')
    p.add_argument('--scale-sizes', default='256M,1G,4G')
    p.add_argument('--scale-methods', default='auto,dd,fio')
    p.add_argument('--scale-runs', type=int, default=3)
    p.add_argument('--sweep-size', default='1G')
    p.add_argument('--sweep-qd', default='1,2,4,8,16')
    p.add_argument('--sweep-req', default='1M,2M,4M,8M,16M')
    p.add_argument('--sweep-runs', type=int, default=5)
    p.add_argument('--default-qd', type=int, default=4, help='PA_DEFAULT_QUEUE_DEPTH')
    p.add_argument('--default-req', default='4M', help='PA_DEFAULT_REQUEST')
    p.add_argument('--frag-size', default='1G', help='file size for the frag section')
    p.add_argument('--frag-runs', type=int, default=7)
    p.add_argument('--tool', default=os.path.join(here, '../../build-bench/examples/prealloc'),
                   help='the prealloc tool (background section)')
    p.add_argument('--bg-size', default='2G', help='background section: bytes to preallocate')
    p.add_argument('--bg-seconds', type=float, default=6, help='foreground run length')
    p.add_argument('--bg-solo-seconds', type=float, default=3,
                   help='window of a contender alone')
    p.add_argument('--bg-delay', type=float, default=1, help='contender start, s into it')
    p.add_argument('--bg-rates', default='64M,256M,150M-256K-1,250M-256K-1,300M-256K-1',
                   help='prealloc --rate contenders R or R-REQ-QD')
    p.add_argument('--bg-fio-rates', default='250M-256K',
                   help='fio --rate contenders R-REQ (e.g. 256M-256K): the frontier')
    # Wall time of the background section, both filesystems: about 3 h 10 min
    # by default (9 runs x 3 schedulers x ~3.5 min per run and filesystem);
    # about 30 min with --bg-contenders background --bg-jobs sync, which
    # keeps what the background targets need (undisturbed x2, background, the
    # paired writer, background alone): ~33 s per run and filesystem.
    p.add_argument('--bg-runs', type=int, default=9)
    p.add_argument('--bg-jobs', default='sync,bw', help='foreground jobs: sync,bw')
    p.add_argument('--bg-contenders', default='',
                   help='only these (default, background, rate-N, fio-R-REQ, dd, ionice-dd)')
    p.add_argument('--bg-no-fio-rate', dest='bg_fio_rate', action='store_false',
                   help='skip the paired writer (fio-paired) after background')
    p.add_argument('--bg-schedulers', default='none,mq-deadline,bfq',
                   help='I/O schedulers to run the section under, each set on the device '
                   'in turn and the device\'s own restored after; \'current\': leave it')
    p.add_argument('--cache-size', default='2G', help='cache section: bytes per call')
    p.add_argument('--cache-ws', default='1G',
                   help='cache section: the working set, and the call beside it')
    p.add_argument('--cache-cg-limit', default='1536M', help='cache section: memory cgroup limit')
    p.add_argument('--cache-runs', type=int, default=2)
    p.add_argument('--tool-before', help='cache section: an older build\'s prealloc tool, '
                   'measured with --method buffered too')
    p.add_argument('--json', default='bench.json', help='write all results here')
    p.add_argument('--md', help='also write the markdown report here')
    p.add_argument('--report-from', metavar='JSON', help='only print the report of a saved run')
    a = p.parse_args(argv)
    a.bench = os.path.abspath(a.bench)
    a.tool = os.path.abspath(a.tool)
    a.tool_before = os.path.abspath(a.tool_before) if a.tool_before else None
    a.cache_size = parse_size(a.cache_size)
    a.cache_ws = parse_size(a.cache_ws)
    a.cache_cg_limit = parse_size(a.cache_cg_limit)
    a.bg_size = parse_size(a.bg_size)
    a.bg_rates = a.bg_rates.split(',') if a.bg_rates else []
    a.bg_jobs = a.bg_jobs.split(',')
    a.bg_fio_rates = a.bg_fio_rates.split(',') if a.bg_fio_rates else []
    a.bg_contenders = a.bg_contenders.split(',') if a.bg_contenders else []
    a.bg_schedulers = a.bg_schedulers.split(',')
    a.json = os.path.abspath(a.json)
    a.md = os.path.abspath(a.md) if a.md else None
    a.size = parse_size(a.size)
    a.ow_size = parse_size(a.ow_size)
    a.ow_methods = a.ow_methods.split(',')
    a.sweep_size = parse_size(a.sweep_size)
    a.frag_size = parse_size(a.frag_size)
    a.methods = a.methods.split(',')
    a.sections = a.sections.split(',')
    a.scale_methods = a.scale_methods.split(',')
    a.scale_sizes = [parse_size(s) for s in a.scale_sizes.split(',')]
    a.sweep_qd = [int(x) for x in a.sweep_qd.split(',')]
    a.sweep_req = [parse_size(x) for x in a.sweep_req.split(',')]
    a.default_req = parse_size(a.default_req)
    for s in [a.size, a.sweep_size, a.ow_size] + a.scale_sizes:
        if s % (2 * MIB):
            p.error('sizes must be multiples of 2 MiB (dd bs=2M)')
    return a


def fs_size(a):
    """The loop filesystems' size: the most any section asked for lays out
    at once, and 2 GiB to spare."""
    need = {'zero': [a.size], 'overwrite': [a.ow_size * len(a.ow_methods)],
            'scale': a.scale_sizes, 'sweep': [a.sweep_size], 'frag': [a.frag_size],
            'background': [a.bg_size + sum(background.FG_SIZE.get(j, 0) for j in a.bg_jobs)],
            'cache': [a.cache_size, 2 * a.cache_ws]}
    return max(x for s in a.sections for x in need.get(s, [0])) + 2 * GIB


def enter_namespace():
    """Re-exec in a private mount namespace: our mounts die with us."""
    if os.environ.get(NS_MARK):
        return
    os.environ[NS_MARK] = '1'
    os.execvp('unshare', ['unshare', '--mount', '--propagation', 'private',
                          sys.executable] + sys.argv)


def bench_fs(b, fs, results):
    a = b.a
    entry = {'fstype': fs.fstype, 'info': fs_info(fs.mnt)}
    results['fs'].append(entry)
    log('== %s at %s: %s' % (fs.fstype, fs.mnt, entry['info']))
    if 'zero' in a.sections:
        section_zero(b, fs, entry)
    if 'overwrite' in a.sections:
        section_overwrite(b, fs, entry)
    if 'probe' in a.sections:
        section_probe(b, fs, entry)
    if 'frag' in a.sections:
        section_frag(b, fs, entry)
    scale_here = a.dir or fs.fstype in a.scale_fs.split(',')
    if 'scale' in a.sections and scale_here:
        section_scale(b, fs, entry)
    if 'sweep' in a.sections and scale_here:
        section_sweep(b, fs, entry)
    if 'background' in a.sections:
        background.section_background(b, fs, entry, log, rotated)
    if 'cache' in a.sections:
        cache.section_cache(b, fs, entry, log, rotated)


def start(a, prog):
    """What every bench run checks and sets up first; the results' header."""
    if not os.access(a.bench, os.X_OK):
        sys.exit('%s: %s: not found; build it: ninja -C build-bench' % (prog, a.bench))
    if not a.dir:
        if os.geteuid() != 0:
            sys.exit('%s: loop filesystems need root (or use --dir DIR)' % prog)
        enter_namespace()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    return {'command': ' '.join(shlex.quote(x) for x in sys.argv),
            'machine': machine_info(a.bench), 'fs': []}


def filesystems(a, size):
    """The --dir directory, or a @size loop filesystem of each --fs type in
    turn (unmounted when the caller moves on or fails)."""
    if a.dir:
        with DirFs(a.dir) as fs:
            yield fs
    else:
        for fstype in a.fs.split(','):
            with LoopFs(fstype, size) as fs:
                yield fs


def show(a, md):
    """The report to stdout and --md."""
    print(md)
    if a.md:
        with open(a.md, 'w') as fm:
            fm.write(md.rstrip('\n') + '\n')


def save(a, results, md):
    """Raw results to --json, the report as show() does."""
    with open(a.json, 'w') as fj:
        json.dump(results, fj, indent=1, default=str)
    show(a, md)


def main():
    a = parse_args()
    if a.report_from:
        # The report again from a saved --json (e.g. after changing it),
        # with the options that run was given.
        with open(a.report_from) as fj:
            results = json.load(fj)
        show(a, report(parse_args(shlex.split(results['command'])[1:]), results))
        return
    results = start(a, 'run-bench')
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(129))
    b = Bench(a)
    log('machine: %s' % results['machine'])
    for fs in filesystems(a, fs_size(a)):
        bench_fs(b, fs, results)
    save(a, results, report(a, results))
    log('raw results: %s' % a.json)


if __name__ == '__main__':
    main()
