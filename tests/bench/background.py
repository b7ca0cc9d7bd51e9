# SPDX-License-Identifier: MIT
"""Section 'background' of run-bench.py: preallocation beside a foreground.

A foreground fio job runs for --bg-seconds on a file of its own; --bg-delay
seconds in, a contender starts preallocating a fresh --bg-size file on the
same filesystem.  Foreground jobs:

  sync  4 KiB O_DIRECT random overwrites, fdatasync after each (psync, QD 1)
  bw    1 MiB O_DIRECT sequential overwrites, io_uring QD 4

Contenders: none (undisturbed), prealloc default, prealloc --background,
prealloc --rate R (fixed caps, no adaptation; rate-R-REQ-QD also sets the
request size and queue depth, e.g. the shape background mode uses while
others are active), fio-R-REQ (fio --rate R with REQ-byte writes), dd
oflag=direct, ionice -c3 dd, and fio --rate at the average rate prealloc
--background reached beside the same foreground in the same run (it always
runs right after it).  The fixed-rate rows trace the frontier: foreground
cost against background throughput.

The contender's throughput is the bytes of its file in written extents
(FIEMAP, `prealloc verify`) over the time from its start to its end or to the
end of the foreground, whichever comes first; a contender still running then
is killed.  Its solo throughput is measured the same way with no foreground
(window --bg-solo-seconds).  Every run visits every contender (order rotating); the
figures are medians of per-run ratios to the undisturbed foreground of the
same run (the mean of two undisturbed runs, one first or wherever the
rotation puts it, one half-way).
"""
import json
import os
import signal
import statistics
import subprocess
import time

MIB = 1 << 20
GIB = 1 << 30
FG_JOBS = ('sync', 'bw')
# The targets beside the sync foreground: (label, name, key, test); 'share'
# is throughput beside the foreground over background mode's solo throughput.
SYNC_TARGETS = [('IOPS', 'fg IOPS >= 0.9x', 'iops', lambda v: v >= 0.9),
                ('p99', 'fg p99 <= 1.5x', 'p99_us', lambda v: v <= 1.5),
                ('p99.9', 'fg p99.9 <= 3x', 'p999_us', lambda v: v <= 3),
                ('progress', 'bg >= 0.1x solo', 'share', lambda v: v >= 0.1)]


def fio_fg(job, path, seconds, out):
    # --thread: fio's job processes would setsid() and escape a kill.
    common = ['fio', '--thread', '--name=fg-' + job, '--filename=' + path, '--direct=1',
              '--time_based', '--runtime=%g' % seconds, '--output-format=json',
              '--output=' + out, '--percentile_list=99:99.9', '--randrepeat=0']
    if job == 'sync':
        return common + ['--rw=randwrite', '--bs=4k', '--ioengine=psync', '--fdatasync=1',
                         '--size=512M']
    return common + ['--rw=write', '--bs=1M', '--ioengine=io_uring', '--iodepth=4',
                     '--size=1G']


def parse_fg(out):
    with open(out) as f:
        j = json.load(f)['jobs'][0]
    w = j['write']
    pc = w['clat_ns'].get('percentile', {})
    r = {'iops': w['iops'], 'mib_s': w['bw_bytes'] / MIB, 'bytes': w['io_bytes'],
         'p99_us': pc.get('99.000000', 0) / 1000, 'p999_us': pc.get('99.900000', 0) / 1000}
    spc = j.get('sync', {}).get('lat_ns', {}).get('percentile', {})
    if spc:
        r['sync_p99_us'] = spc.get('99.000000', 0) / 1000
        r['sync_p999_us'] = spc.get('99.900000', 0) / 1000
    return r


class BgBench:
    def __init__(self, a, fs):
        self.a, self.fs = a, fs
        self.target = os.path.join(fs.mnt, 'prealloc-bench-bg.dat')
        self.fg = {j: os.path.join(fs.mnt, 'prealloc-bench-fg-%s.dat' % j) for j in FG_JOBS}

    def contender_cmd(self, name, rate):
        a, size = self.a, self.a.bg_size
        dd = ['dd', 'if=/dev/zero', 'of=' + self.target, 'bs=2M', 'count=%d' % (size // (2 * MIB)),
              'oflag=direct', 'conv=fsync', 'status=none']
        if name == 'default':
            return [a.tool, 'run', '--length', str(size), self.target]
        if name == 'background':
            return [a.tool, 'run', '--background', '--length', str(size), self.target]
        if name.startswith('rate-'):
            # rate-R or rate-R-REQ-QD: a fixed cap, optionally with the
            # request size and queue depth background mode uses when busy.
            r = name[5:].split('-')
            shape = ['--request-size', r[1], '--queue-depth', r[2]] if len(r) == 3 else []
            return [a.tool, 'run', '--rate', r[0]] + shape + ['--length', str(size), self.target]
        if name.startswith('fio-') and name != 'fio-rate':
            # fio-R-REQ: fio --rate R with REQ-byte O_DIRECT writes, one at a time.
            r, req = name[4:].split('-')
            return self.fio_rate(r.lower(), req)
        if name == 'dd':
            return dd
        if name == 'ionice-dd':
            return ['ionice', '-c3'] + dd
        if name == 'fio-rate':
            return self.fio_rate('%dk' % max(1, int(rate / 1024)), '1M')
        raise ValueError(name)

    def fio_rate(self, rate, req):
        return ['fio', '--thread', '--name=bg', '--filename=' + self.target, '--rw=write',
                '--bs=' + req, '--direct=1', '--ioengine=psync', '--size=%d' % self.a.bg_size,
                '--end_fsync=1', '--rate=' + rate, '--output=/dev/null']

    def written(self):
        if not os.path.exists(self.target):
            return 0
        p = subprocess.run([self.a.tool, 'verify', '--json', self.target],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            return json.loads(p.stdout)['written_bytes']
        except (ValueError, KeyError):
            return 0

    def trial(self, job, name, rate=None):
        """One foreground run (job None: the contender alone) beside one
        contender (name 'none': undisturbed)."""
        a = self.a
        if os.path.exists(self.target):
            os.unlink(self.target)
        subprocess.run(['sync'])
        out = self.target + '.fg.json'
        fg = None
        # The contender's window ends with the foreground (or as long after
        # its start when alone).
        t_end = time.monotonic() + a.bg_seconds
        if job:
            fg = subprocess.Popen(fio_fg(job, self.fg[job], a.bg_seconds, out),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(a.bg_delay)
        else:
            t_end += a.bg_solo_seconds - a.bg_seconds
        res = {'error': 0}
        if name != 'none':
            t0 = time.monotonic()
            p = subprocess.Popen(self.contender_cmd(name, rate), stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
            while p.poll() is None and time.monotonic() < t_end:
                time.sleep(0.01)
            t1 = time.monotonic()
            done = p.poll() is not None
            if not done:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            res.update(bg_bytes=self.written(), bg_seconds=t1 - t0, bg_finished=done)
        if fg:
            fg.wait()
            try:
                res.update(parse_fg(out))
            except (OSError, ValueError, KeyError, IndexError) as e:
                res = {'error': -1, 'error_str': str(e)}
            if os.path.exists(out):
                os.unlink(out)
        if 'bg_bytes' in res:
            res['bg_mib_s'] = res['bg_bytes'] / MIB / max(res['bg_seconds'], 1e-3)
        if os.path.exists(self.target):
            os.unlink(self.target)
        time.sleep(0.5)
        return res


def reference(run, key):
    v = [run[n][key] for n in ('none', 'none-2')
         if run.get(n, {}).get('error') == 0 and run[n].get(key)]
    return statistics.mean(v) if v else None


def run_ratios(runs, name, key):
    """Per run: @name's @key over the same run's undisturbed reference."""
    v = []
    for r in runs:
        s, t = r.get(name, {}), reference(r, key)
        if s.get('error') == 0 and s.get(key) and t:
            v.append(s[key] / t)
    return v


def ratios(runs, name, key):
    v = run_ratios(runs, name, key)
    return statistics.median(v) if v else None


def quartiles(v):
    return statistics.quantiles(v, n=4, method='inclusive') if len(v) > 1 else None


def frontier(bg):
    """The sync foreground's cost against each contender's throughput, as a
    share of what background mode reached alone in the same run (the
    progress target's denominator): the frontier the targets sit on."""
    runs, solo = bg['samples']['fg'].get('sync', []), bg['samples']['solo']
    names = [n for n in bg['rows'].get('sync', {}) if not n.startswith('none')]
    out = []
    for name in names:
        share = [x[name]['bg_mib_s'] / s['background']['bg_mib_s']
                 for x, s in zip(runs, solo)
                 if x.get(name, {}).get('bg_mib_s') is not None and
                 s.get('background', {}).get('bg_mib_s')]
        done = [x[name].get('bg_finished') for x in runs if name in x]
        r = bg['rows']['sync'][name]
        # One that finished before the foreground did hurt it only part of
        # the time its figures average over: not a point of the frontier.
        row = {'name': name, 'share': statistics.median(share) if share else None,
               'early': done.count(True) > len(done) / 2,
               'p99_q': quartiles(run_ratios(runs, name, 'p99_us')),
               'mib_s': r['abs_bg_mib_s'], 'iops': r['iops'], 'p99_us': r['p99_us'],
               'p999_us': r['p999_us']}
        row['meets'] = [] if row['early'] else [label for label, _, k, ok in SYNC_TARGETS
                                                if row.get(k) is not None and ok(row[k])]
        out.append(row)
    return sorted(out, key=lambda r: r['share'] or 0)


def section_background(b, fs, res, log, rotated):
    a = b.a
    bench = BgBench(a, fs)
    names = [n for n in ['default', 'background'] + ['rate-' + r for r in a.bg_rates] +
             ['fio-' + r for r in a.bg_fio_rates] + ['dd', 'ionice-dd']
             if not a.bg_contenders or n in a.bg_contenders]
    jobs = [j for j in FG_JOBS if j in a.bg_jobs]
    # Lay the foreground files out once, written (the case the seeds measure).
    for job, size in (('sync', 512 * MIB), ('bw', GIB)):
        subprocess.run([a.tool, 'run', '--length', str(size), bench.fg[job]], check=True,
                       stdout=subprocess.DEVNULL)
    out = {job: [] for job in jobs}
    solo = []
    for r in range(a.bg_runs):
        srun = {}
        for name in rotated(names, r):
            srun[name] = bench.trial(None, name)
            log('  [%s bg solo run %d] %-12s %8.1f MiB/s' % (
                fs.fstype, r + 1, name, srun[name].get('bg_mib_s', 0)))
        solo.append(srun)
        for job in jobs:
            run = {}
            order = rotated(['none'] + names, r)
            # A second undisturbed run half-way: the reference is their mean,
            # closer in time to every contender than one run would be.
            order.insert(len(order) // 2 + 1, 'none-2')
            for name in order:
                run[name] = bench.trial(job, 'none' if name == 'none-2' else name)
                if name == 'background':
                    rate = run[name].get('bg_bytes', 0) / max(run[name].get('bg_seconds', 1), 1e-3)
                    run['fio-rate'] = bench.trial(job, 'fio-rate', rate) if a.bg_fio_rate else {}
                    run['fio-rate']['rate'] = rate
                for n in [name] + (['fio-rate'] if name == 'background' and a.bg_fio_rate else []):
                    s = run[n]
                    log('  [%s bg %s run %d] %-12s iops %6.0f MiB/s %7.1f p99 %7.0f p99.9 %7.0f'
                        ' us  bg %7.1f MiB/s' % (fs.fstype, job, r + 1, n, s.get('iops', 0),
                                                 s.get('mib_s', 0), s.get('p99_us', 0),
                                                 s.get('p999_us', 0), s.get('bg_mib_s', 0)))
            out[job].append(run)
    rows = {}
    for job in jobs:
        rows[job] = {}
        for name in ['none', 'none-2'] + names + ['fio-rate']:
            row = {k: ratios(out[job], name, k) for k in
                   ('iops', 'mib_s', 'p99_us', 'p999_us', 'sync_p99_us', 'sync_p999_us')}
            ok = [x[name] for x in out[job] if x.get(name, {}).get('error') == 0]
            for k in ('iops', 'mib_s', 'p99_us', 'p999_us', 'bg_mib_s'):
                v = [s[k] for s in ok if s.get(k) is not None]
                row['abs_' + k] = statistics.median(v) if v else None
            # Background throughput beside the foreground / solo, per run.
            v = []
            for x, s in zip(out[job], solo):
                solo_name = 'background' if name == 'fio-rate' else name
                if name in x and solo_name in s and s[solo_name].get('bg_mib_s') and \
                        x[name].get('bg_mib_s') is not None:
                    v.append(x[name]['bg_mib_s'] / s[solo_name]['bg_mib_s'])
            row['bg_x_solo'] = statistics.median(v) if v else None
            if ok:
                rows[job][name] = row
    solo_rows = {}
    for name in names:
        v = [s[name]['bg_mib_s'] for s in solo if s.get(name, {}).get('bg_mib_s')]
        x = [s[name]['bg_mib_s'] / s['default']['bg_mib_s'] for s in solo
             if s.get(name, {}).get('bg_mib_s') and s.get('default', {}).get('bg_mib_s')]
        solo_rows[name] = {'mib_s': statistics.median(v) if v else None,
                           'x_default': statistics.median(x) if x else None}
    res['background'] = {'runs': a.bg_runs, 'seconds': a.bg_seconds, 'size': a.bg_size,
                         'rows': rows, 'solo': solo_rows,
                         'samples': {'fg': out, 'solo': solo}}
    return rows


def _f(v, fmt='%.2f'):
    return '-' if v is None else fmt % v


def report_background(bg, table):
    lines = []
    s = bg['solo']
    lines += ['Alone on the idle device (MiB/s over the same window, median; × default '
              'is the median of per-run ratios):', '',
              table(['contender', 'MiB/s', '× default'],
                    [[n, _f(r['mib_s'], '%.0f'), _f(r['x_default'])] for n, r in s.items()]),
              '']
    for job, title in (('sync', '4 KiB O_DIRECT random overwrite + fdatasync (QD 1)'),
                       ('bw', '1 MiB O_DIRECT sequential overwrite (io_uring QD 4)')):
        if job not in bg['rows']:
            continue
        rows = bg['rows'][job]
        hdr = ['contender', 'fg IOPS ×', 'fg MiB/s ×', 'fg p99 ×', 'fg p99.9 ×']
        if job == 'sync':
            hdr += ['fdatasync p99 ×', 'fdatasync p99.9 ×']
        hdr += ['bg MiB/s', 'bg × solo']
        out = []
        for n, r in rows.items():
            line = [n, _f(r['iops']), _f(r['mib_s']), _f(r['p99_us']), _f(r['p999_us'])]
            if job == 'sync':
                line += [_f(r['sync_p99_us']), _f(r['sync_p999_us'])]
            line += [_f(r['abs_bg_mib_s'], '%.0f'), _f(r['bg_x_solo'])]
            out.append(line)
        none = rows.get('none', {})
        lines += ['#### Foreground: %s' % title, '',
                  'Undisturbed (median): %s IOPS, %s MiB/s, write latency p99 %s µs, '
                  'p99.9 %s µs.' % (_f(none.get('abs_iops'), '%.0f'),
                                    _f(none.get('abs_mib_s'), '%.0f'),
                                    _f(none.get('abs_p99_us'), '%.0f'),
                                    _f(none.get('abs_p999_us'), '%.0f')), '',
                  table(hdr, out), '']
    if 'sync' in bg['rows'] and any('background' in s for s in bg['samples']['solo']):
        lines += frontier_table(bg, table)
    return lines


def frontier_table(bg, table):
    out = []
    for r in frontier(bg):
        q = r['p99_q']
        met = 'all' if len(r['meets']) == len(SYNC_TARGETS) else ', '.join(r['meets'])
        out.append([r['name'], _f(r['mib_s'], '%.0f'), _f(r['share']), _f(r['iops']),
                    _f(r['p99_us']), '%.2f-%.2f' % (q[0], q[2]) if q else '-',
                    _f(r['p999_us']), '(finished early)' if r['early'] else met or 'none'])
    return ['#### Frontier: the sync foreground\'s cost by background throughput', '',
            'Each contender\'s throughput beside the foreground as a share of background '
            'mode\'s solo throughput in the same run (median of per-run ratios), by share; '
            'p99 IQR is over the per-run ratios; "meets" lists the four sync targets the '
            'row would meet in background mode\'s place ("finished early": done before '
            'the foreground in most runs, so its figures average over time it was not '
            'there).', '',
            table(['contender', 'bg MiB/s', '× background solo', 'fg IOPS ×', 'fg p99 ×',
                   'p99 IQR', 'fg p99.9 ×', 'meets'], out), '']


def targets_background(fstype, bg):
    b = bg['rows'].get('sync', {}).get('background', {})
    b = dict(b, share=b.get('bg_x_solo'))
    checks = [(name, b.get(k), ok) for _, name, k, ok in SYNC_TARGETS]
    checks.append(('idle: background >= 0.8x default', bg['solo'].get('background', {})
                   .get('x_default'), lambda v: v >= 0.8))
    out = ['- %s, background beside the fdatasync foreground: %s: %s %s' % (
        fstype, name, _f(v), 'PASS' if v is not None and ok(v) else 'MISS')
        for name, v, ok in checks]
    for job in bg['rows']:
        b = bg['rows'][job].get('background', {})
        for other in ('fio-rate', 'ionice-dd'):
            o = bg['rows'][job].get(other)
            if not o or not b:
                continue
            better = all(b.get(k) is not None and o.get(k) is not None and
                         (b[k] >= o[k] if k in ('iops', 'mib_s') else b[k] <= o[k])
                         for k in ('iops', 'mib_s', 'p99_us', 'p999_us'))
            faster = (b.get('abs_bg_mib_s') or 0) >= (o.get('abs_bg_mib_s') or 0)
            out.append('- %s, %s foreground: background at least as good as %s on every '
                       'foreground figure: %s; at equal or higher bg throughput: %s' % (
                           fstype, job, other, 'PASS' if better else 'MISS',
                           'PASS' if faster else 'MISS'))
    return out
