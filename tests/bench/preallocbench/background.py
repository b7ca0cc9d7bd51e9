# SPDX-License-Identifier: MIT
"""Section 'background' of run-bench.py: preallocation beside a foreground.

A foreground fio job runs for --bg-seconds on a file of its own; --bg-delay
seconds in, a contender starts preallocating a fresh --bg-size file on the
same filesystem.  Foreground jobs:

  sync  4 KiB O_DIRECT random overwrites, fdatasync after each (psync, QD 1)
  bw    1 MiB O_DIRECT sequential overwrites, io_uring QD 4

Contenders: none (undisturbed), prealloc default, prealloc --background,
prealloc --background --method aio (background-aio: without io_uring),
prealloc --rate R (fixed caps, no adaptation; rate-R-REQ-QD also sets the
request size and queue depth, e.g. the shape background mode uses while
others are active), fio-R-REQ (fio --rate R with REQ-byte writes), dd
oflag=direct, ionice -c3 dd, and the paired writer fio-paired: fio --rate at
the average rate prealloc --background reached beside the same foreground in
the same run (it always runs right after it), in background mode's busy shape
(256 KiB O_DIRECT writes, one at a time).  The fixed-rate rows trace the
frontier: foreground cost against background throughput.

The contender's throughput is the bytes of its file in written extents
(FIEMAP, `prealloc verify`) over the time from its start to its end or to the
end of the foreground, whichever comes first; a contender still running then
is stopped (prealloc: frozen, counted, then cancelled with SIGTERM so that its
--json report, with the background mechanisms that applied, still comes out;
others: killed).  Its solo throughput is measured the same way with no
foreground (window --bg-solo-seconds).  Every run visits every contender
(order rotating); the figures are medians of per-run ratios to the
undisturbed foreground of the same run (the mean of two undisturbed runs, one
first or wherever the rotation puts it, one half-way).

The whole section runs once per --bg-schedulers entry, that I/O scheduler set
on the filesystem's device for all of it (undisturbed runs included) and the
device's own restored afterwards: every ratio is to an undisturbed foreground
under the same scheduler.
"""
import json
import math
import os
import signal
import statistics
import subprocess
import time

from .markdown import table
from .util import GIB, MIB, log, rotated

FG_JOBS = ('sync', 'bw')
FG_SIZE = {'sync': 512 * MIB, 'bw': GIB}
# The paired writer: fio at background mode's achieved rate, in the shape
# background mode uses while others use the device (256 KiB, QD 1).
PAIRED = 'fio-paired'
BUSY_REQ = '256K'
# Schedulers that honour IOPRIO_CLASS_IDLE: background mode's idle-priority
# path applies there, so its targets are against undisturbed, not the frontier.
IDLE_SCHEDS = ('mq-deadline', 'bfq')
# prealloc_background_name()'s names, in bit order (others found are added).
BITS = ('paced', 'idle-ioprio', 'adapted')
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
              '--output=' + out, '--percentile_list=99:99.9', '--randrepeat=0',
              '--size=%d' % FG_SIZE[job]]
    if job == 'sync':
        return common + ['--rw=randwrite', '--bs=4k', '--ioengine=psync', '--fdatasync=1']
    return common + ['--rw=write', '--bs=1M', '--ioengine=io_uring', '--iodepth=4']


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
        for match, build in self.CONTENDERS:
            if name == match or (match.endswith('-') and name.startswith(match)):
                return build(self, name, rate)
        raise ValueError(name)

    def _dd(self):
        size = self.a.bg_size
        return ['dd', 'if=/dev/zero', 'of=' + self.target, 'bs=2M',
                'count=%d' % (size // (2 * MIB)), 'oflag=direct', 'conv=fsync', 'status=none']

    def _run(self, *opts):
        # prealloc's --json report names the background mechanisms applied.
        return [self.a.tool, 'run', '--json'] + list(opts) + ['--length', str(self.a.bg_size),
                                                              self.target]

    def _rate(self, name, rate):
        # rate-R or rate-R-REQ-QD: a fixed cap, optionally with the
        # request size and queue depth background mode uses when busy.
        r = name[5:].split('-')
        shape = ['--request-size', r[1], '--queue-depth', r[2]] if len(r) == 3 else []
        return self._run('--rate', r[0], *shape)

    def _fio_named(self, name, rate):
        # fio-R-REQ: fio --rate R with REQ-byte O_DIRECT writes, one at a time.
        r, req = name[4:].split('-')
        return self.fio_rate(r.lower(), req)

    # The contenders, by name (a name ending in '-' takes a suffix), in the
    # order they are matched: (name, builder(self, name, rate) -> argv).
    CONTENDERS = [
        ('default', lambda self, name, rate: self._run()),
        ('background', lambda self, name, rate: self._run('--background')),
        # Background mode without io_uring: the aio method, paced alike.
        ('background-aio', lambda self, name, rate: self._run('--background', '--method', 'aio')),
        ('rate-', _rate),
        (PAIRED, lambda self, name, rate: self.fio_rate('%dk' % max(1, int(rate / 1024)),
                                                        BUSY_REQ)),
        ('fio-', _fio_named),
        ('dd', lambda self, name, rate: self._dd()),
        ('ionice-dd', lambda self, name, rate: ['ionice', '-c3'] + self._dd()),
    ]

    def fio_rate(self, rate, req):
        return ['fio', '--thread', '--name=bg', '--filename=' + self.target, '--rw=write',
                '--bs=' + req, '--direct=1', '--ioengine=psync', '--size=%d' % self.a.bg_size,
                '--end_fsync=1', '--rate=' + rate, '--output=/dev/null']

    def reap(self, p, tool, done):
        """Wait for the contender; from prealloc, the background bits of its
        --json report ('bits'; absent if the tool does not print them)."""
        if tool and not done:
            os.killpg(p.pid, signal.SIGTERM)
            os.killpg(p.pid, signal.SIGCONT)
        try:
            out = p.communicate(timeout=60)[0]
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out = p.communicate()[0]
        try:
            rep = json.loads(out.strip().splitlines()[-1]) if tool else {}
        except (ValueError, IndexError):
            rep = {}
        return {'bits': rep['background']} if 'background' in rep else {}

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
        res, p = {'error': 0}, None
        if name != 'none':
            cmd = self.contender_cmd(name, rate)
            tool = cmd[0] == a.tool
            t0 = time.monotonic()
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE if tool else subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True, text=True)
            while p.poll() is None and time.monotonic() < t_end:
                time.sleep(0.01)
            t1 = time.monotonic()
            done = p.poll() is not None
            if not done:
                # Frozen, prealloc keeps its file for the count below (a
                # cancelled run undoes it); the rest need no report.
                os.killpg(p.pid, signal.SIGSTOP if tool else signal.SIGKILL)
                if not tool:
                    p.wait()  # its last write done before the count
            res.update(bg_bytes=self.written(), bg_seconds=t1 - t0, bg_finished=done)
        if fg:
            fg.wait()
            try:
                res.update(parse_fg(out))
            except (OSError, ValueError, KeyError, IndexError) as e:
                res = {'error': -1, 'error_str': str(e)}
            if os.path.exists(out):
                os.unlink(out)
        if p:
            # After the foreground: the cancelled run's undo is not measured.
            res.update(self.reap(p, tool, done))
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


def sched_file(fs):
    """The I/O scheduler attribute of the block device under @fs (its
    disk's, for a partition), or None."""
    dev = getattr(fs, 'dev', None) or subprocess.run(
        ['findmnt', '-n', '-o', 'SOURCE', '-T', fs.mnt], stdout=subprocess.PIPE,
        text=True).stdout.strip()
    d = '/sys/class/block/' + os.path.basename(os.path.realpath(dev))
    if os.path.exists(d + '/partition'):
        d += '/..'
    path = os.path.join(d, 'queue', 'scheduler')
    return path if os.path.exists(path) else None


def sched_read(path):
    """(active scheduler, offered ones) from @path: "[none] mq-deadline"."""
    with open(path) as f:
        words = f.read().split()
    return next((w[1:-1] for w in words if w.startswith('[')), None), [w.strip('[]') for w in words]


def sched_set(path, name):
    with open(path, 'w') as f:
        f.write(name)
    if sched_read(path)[0] != name:
        raise OSError('%s: %s did not take' % (path, name))


def section_background(b, fs, res):
    """The section under each --bg-schedulers scheduler in turn ('current':
    whatever is set, untouched; so is a device without the attribute)."""
    a = b.a
    bench = BgBench(a, fs)
    jobs = [j for j in FG_JOBS if j in a.bg_jobs]
    # Lay the foreground files out once, written (the case the seeds measure).
    for job in jobs:
        subprocess.run([a.tool, 'run', '--length', str(FG_SIZE[job]), bench.fg[job]],
                       check=True, stdout=subprocess.DEVNULL)
    path = sched_file(fs)
    orig, offered = sched_read(path) if path else (None, [])
    # A bio-based device ("none" without brackets) or one this user may not
    # change: its scheduler stays as it is.
    if path and (orig is None or not os.access(path, os.W_OK)):
        path = None
    bg = res['background'] = {'runs': a.bg_runs, 'seconds': a.bg_seconds, 'size': a.bg_size,
                              'device_scheduler': orig, 'schedulers': {}, 'skipped': {}}
    for name in a.bg_schedulers if path else ['current']:
        if name != 'current' and name not in offered:
            bg['skipped'][name] = why = 'not offered (%s)' % ' '.join(offered)
            log('  [%s bg] scheduler %s skipped: %s' % (fs.fstype, name, why))
            continue
        try:
            if name != 'current':
                sched_set(path, name)
            key = (sched_read(path)[0] if path else None) or 'unknown'
            log('  [%s bg] scheduler %s' % (fs.fstype, key))
            bg['schedulers'][key] = sched_run(bench, fs, jobs, key)
        finally:
            if name != 'current':
                try:
                    sched_set(path, orig)
                except OSError as e:
                    log('  [%s bg] restoring scheduler %s failed: %s' % (fs.fstype, orig, e))
    bg['restored'] = sched_read(path)[0] if path else None
    return bg


def sched_run(bench, fs, jobs, sched):
    """What the section stored before it ran per scheduler."""
    a = bench.a
    names = [n for n in ['default', 'background', 'background-aio'] +
             ['rate-' + r for r in a.bg_rates] +
             ['fio-' + r for r in a.bg_fio_rates] + ['dd', 'ionice-dd']
             if not a.bg_contenders or n in a.bg_contenders]
    tag = '%s %s' % (fs.fstype, sched)
    out = {job: [] for job in jobs}
    solo = []
    for r in range(a.bg_runs):
        srun = {}
        for name in rotated(names, r):
            srun[name] = bench.trial(None, name)
            log('  [%s bg solo run %d] %-12s %8.1f MiB/s %s' % (
                tag, r + 1, name, srun[name].get('bg_mib_s', 0),
                ','.join(srun[name].get('bits', []))))
        solo.append(srun)
        for job in jobs:
            run = {}
            order = rotated(['none'] + names, r)
            # A second undisturbed run half-way: the reference is their mean,
            # closer in time to every contender than one run would be.
            order.insert(len(order) // 2 + 1, 'none-2')
            for name in order:
                run[name] = bench.trial(job, 'none' if name == 'none-2' else name)
                done = [name]
                if name == 'background' and a.bg_fio_rate and run[name].get('bg_bytes'):
                    rate = run[name]['bg_bytes'] / max(run[name].get('bg_seconds', 1), 1e-3)
                    run[PAIRED] = dict(bench.trial(job, PAIRED, rate), rate=rate)
                    done.append(PAIRED)
                for n in done:
                    s = run[n]
                    log('  [%s bg %s run %d] %-12s iops %6.0f MiB/s %7.1f p99 %7.0f p99.9 %7.0f'
                        ' us  bg %7.1f MiB/s %s' % (tag, job, r + 1, n, s.get('iops', 0),
                                                    s.get('mib_s', 0), s.get('p99_us', 0),
                                                    s.get('p999_us', 0), s.get('bg_mib_s', 0),
                                                    ','.join(s.get('bits', []))))
            out[job].append(run)
    rows = {}
    for job in jobs:
        rows[job] = {}
        for name in ['none', 'none-2'] + names + [PAIRED]:
            row = {k: ratios(out[job], name, k) for k in
                   ('iops', 'mib_s', 'p99_us', 'p999_us', 'sync_p99_us', 'sync_p999_us')}
            ok = [x[name] for x in out[job] if x.get(name, {}).get('error') == 0]
            for k in ('iops', 'mib_s', 'p99_us', 'p999_us', 'bg_mib_s'):
                v = [s[k] for s in ok if s.get(k) is not None]
                row['abs_' + k] = statistics.median(v) if v else None
            # Background throughput beside the foreground / solo, per run.
            v = []
            for x, s in zip(out[job], solo):
                solo_name = 'background' if name == PAIRED else name
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
    return {'runs': a.bg_runs, 'seconds': a.bg_seconds, 'size': a.bg_size,
            'rows': rows, 'solo': solo_rows, 'samples': {'fg': out, 'solo': solo}}


def _f(v, fmt='%.2f'):
    return '-' if v is None else fmt % v


def by_scheduler(bg):
    """{scheduler: section results}; a run saved before the section ran per
    scheduler had its results at the top, on the loop device's default."""
    return bg['schedulers'] if 'schedulers' in bg else {'none': bg}


def paired_name(g):
    """The paired writer's name: 'fio-rate' (1 MiB writes) in older runs."""
    fg = g['samples']['fg']
    return next((n for n in (PAIRED, 'fio-rate')
                 if any(n in x for runs in fg.values() for x in runs)), None)


def _iqr(v, fmt='%.2f'):
    q = quartiles(v)
    return (fmt + '-' + fmt) % (q[0], q[2]) if q else '-'


def _med(v, fmt='%.2f'):
    return _f(statistics.median(v) if v else None, fmt)


def pairs(g, job):
    """Per run, background against the paired writer beside @job."""
    w = paired_name(g)
    out = []
    for x in g['samples']['fg'].get(job, []):
        b, p = x.get('background', {}), x.get(w, {})
        if b.get('error') == 0 and p.get('error') == 0 and b.get('p99_us') and p.get('p99_us') \
                and b.get('iops') and p.get('iops'):
            out.append({'p99_x': b['p99_us'] / p['p99_us'], 'iops_x': b['iops'] / p['iops'],
                        'bg_mib_s': b.get('bg_mib_s'), 'w_mib_s': p.get('bg_mib_s'),
                        'w_x': p['bg_mib_s'] / b['bg_mib_s'] if b.get('bg_mib_s') and
                        p.get('bg_mib_s') is not None else None})
    return out


def kof(v, test):
    return sum(1 for x in v if test(x))


def report_background(bg):
    scheds = by_scheduler(bg)
    lines = ['Skipped scheduler %s: %s.' % (n, why) for n, why in bg.get('skipped', {}).items()]
    if 'schedulers' in bg:
        lines += ['Schedulers set on the device in turn (its own, `%s`, restored after: `%s`).'
                  % (bg.get('device_scheduler'), bg.get('restored'))]
    lines += [''] if lines else []
    lines += undisturbed_table(scheds) + mechanism_table(scheds) + \
        paired_table(scheds)
    for name, g in scheds.items():
        lines += ['#### Scheduler %s' % name, ''] + report_sched(g)
    return lines


def undisturbed_table(scheds):
    out = []
    for name, g in scheds.items():
        for job, runs in g['samples']['fg'].items():
            u = [x[n] for x in runs for n in ('none', 'none-2') if x.get(n, {}).get('error') == 0]
            col = {k: [s[k] for s in u if s.get(k)] for k in
                   ('iops', 'mib_s', 'p99_us', 'p999_us', 'sync_p99_us')}
            out.append([name, job, str(len(u)), _med(col['iops'], '%.0f'),
                        _iqr(col['iops'], '%.0f'), _med(col['mib_s'], '%.0f'),
                        _med(col['p99_us'], '%.0f'), _iqr(col['p99_us'], '%.0f'),
                        _med(col['p999_us'], '%.0f'), _med(col['sync_p99_us'], '%.0f')])
    return ['#### The undisturbed foreground under each scheduler', '',
            'Every undisturbed run (`none` and `none-2`) of the scheduler: median and IQR of '
            'the absolute figures.  The ratios below are to these, under the same scheduler; '
            'across schedulers compare these absolutes, not ratios.  A ratio above 1 needs '
            'no contender effect: the reference of a run is the mean of its two undisturbed '
            'runs, so `none` and `none-2` straddle 1 by construction and their IQR is the '
            'noise floor; and IOPS × and p99 × are medians of separate per-run ratios, not '
            'reciprocals.', '',
            table(['scheduler', 'fg', 'runs', 'IOPS', 'IOPS IQR', 'MiB/s', 'p99 µs', 'p99 IQR',
                   'p99.9 µs', 'fdatasync p99 µs'], out), '']


def bit_counts(trials):
    """'paced 9/9, idle-ioprio 0/9, ...' over the trials with a report."""
    rep = [t['bits'] for t in trials if 'bits' in t]
    names = list(BITS) + sorted({b for r in rep for b in r} - set(BITS))
    return [kof(rep, lambda r, b=b: b in r) for b in names], names, len(rep)


def mechanism_table(scheds):
    out = []
    for name, g in scheds.items():
        beside = [('alone', g['samples']['solo'])] + list(g['samples']['fg'].items())
        for where, runs in beside:
            trials = [x['background'] for x in runs if 'background' in x]
            if not trials:
                continue
            k, names, n = bit_counts(trials)
            out.append([name, where, '%d of %d' % (n, len(trials))] +
                       ['%d/%d' % (c, n) if n else '-' for c in k])
    if not out:
        return []
    return ['#### Mechanisms background mode\'s report claimed', '',
            'Runs whose `prealloc run --background --json` report set each bit (`paced`: '
            'requests held back by the pacer; `idle-ioprio`: io_uring writes sent with '
            'IOPRIO_CLASS_IDLE to a scheduler that honours it; `adapted`: the rate lowered '
            'at least once for other I/O).  "reports": trials that printed a report with the '
            'bits (none in runs saved before the bench asked for them).', '',
            table(['scheduler', 'beside', 'reports'] + list(names), out), '']


# Per-run comparisons of background mode with its paired writer.
P99_LE = lambda x: x['p99_x'] <= 1  # noqa: E731
IOPS_GE = lambda x: x['iops_x'] >= 1  # noqa: E731
BOTH = lambda x: P99_LE(x) and IOPS_GE(x)  # noqa: E731


def paired_table(scheds):
    out = []
    for name, g in scheds.items():
        w = paired_name(g)
        for job in g['samples']['fg']:
            v = pairs(g, job)
            if not v:
                continue
            out.append([name, job, w, str(len(v)), '%d' % kof(v, P99_LE),
                        '%d' % kof(v, IOPS_GE), '%d' % kof(v, BOTH),
                        _med([x['p99_x'] for x in v]), _iqr([x['p99_x'] for x in v]),
                        _med([x['iops_x'] for x in v]), _iqr([x['iops_x'] for x in v]),
                        _med([x['bg_mib_s'] for x in v if x['bg_mib_s'] is not None], '%.0f'),
                        _med([x['w_mib_s'] for x in v if x['w_mib_s'] is not None], '%.0f'),
                        _med([x['w_x'] for x in v if x['w_x'] is not None])])
    if not out:
        return []
    return ['#### Background mode against the paired fixed-rate writer', '',
            'Per run, right after background mode beside the same foreground: '
            '`%s` = fio --rate at background mode\'s achieved rate in that run, %s O_DIRECT '
            'writes one at a time (psync), background mode\'s shape while others use the '
            'device (`fio-rate`, in runs saved before, wrote 1 MiB).  Counts are runs where '
            'background mode\'s foreground p99 <= the writer\'s, IOPS >= the writer\'s, and '
            'both; ratios are background / writer per run (median, IQR); the MiB/s columns '
            '(medians) and the writer\'s per-run rate over background mode\'s (median) show '
            'whether the two ran at equal throughput.' % (PAIRED, BUSY_REQ), '',
            table(['scheduler', 'fg', 'writer', 'runs', 'p99 <=', 'IOPS >=', 'both',
                   'p99 ×', 'p99 × IQR', 'IOPS ×', 'IOPS × IQR', 'background MiB/s',
                   'writer MiB/s', 'writer rate ×'], out), '']


def report_sched(bg):
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
        rows, runs = bg['rows'][job], bg['samples']['fg'][job]
        hdr = ['contender', 'fg IOPS ×', 'IOPS IQR', 'fg MiB/s ×', 'fg p99 ×', 'p99 IQR',
               'fg p99.9 ×']
        if job == 'sync':
            hdr += ['fdatasync p99 ×', 'fdatasync p99.9 ×']
        hdr += ['bg MiB/s', 'bg × solo']
        out = []
        for n, r in rows.items():
            line = [n, _f(r['iops']), _iqr(run_ratios(runs, n, 'iops')), _f(r['mib_s']),
                    _f(r['p99_us']), _iqr(run_ratios(runs, n, 'p99_us')), _f(r['p999_us'])]
            if job == 'sync':
                line += [_f(r['sync_p99_us']), _f(r['sync_p999_us'])]
            line += [_f(r['abs_bg_mib_s'], '%.0f'), _f(r['bg_x_solo'])]
            out.append(line)
        none = rows.get('none', {})
        lines += ['##### Foreground: %s' % title, '',
                  'Undisturbed (median): %s IOPS, %s MiB/s, write latency p99 %s µs, '
                  'p99.9 %s µs.  IQRs are over the per-run ratios.' % (
                      _f(none.get('abs_iops'), '%.0f'), _f(none.get('abs_mib_s'), '%.0f'),
                      _f(none.get('abs_p99_us'), '%.0f'), _f(none.get('abs_p999_us'), '%.0f')),
                  '', table(hdr, out), '']
    if 'sync' in bg['rows'] and any('background' in s for s in bg['samples']['solo']):
        lines += frontier_table(bg)
    return lines


def frontier_table(bg):
    out = []
    for r in frontier(bg):
        q = r['p99_q']
        met = 'all' if len(r['meets']) == len(SYNC_TARGETS) else ', '.join(r['meets'])
        out.append([r['name'], _f(r['mib_s'], '%.0f'), _f(r['share']), _f(r['iops']),
                    _f(r['p99_us']), '%.2f-%.2f' % (q[0], q[2]) if q else '-',
                    _f(r['p999_us']), '(finished early)' if r['early'] else met or 'none'])
    return ['##### Frontier: the sync foreground\'s cost by background throughput', '',
            'Each contender\'s throughput beside the foreground as a share of background '
            'mode\'s solo throughput in the same run (median of per-run ratios), by share; '
            'p99 IQR is over the per-run ratios; "meets" lists the earlier sync targets '
            '(IOPS >= 0.9x, p99 <= 1.5x, p99.9 <= 3x, progress >= 0.1x) the row would meet '
            'in background mode\'s place ("finished early": done before the foreground in '
            'most runs, so its figures average over time it was not there).', '',
            table(['contender', 'bg MiB/s', '× background solo', 'fg IOPS ×', 'fg p99 ×',
                   'p99 IQR', 'fg p99.9 ×', 'meets'], out), '']


def _pass(ok):
    return 'PASS' if ok else 'MISS'


def targets_background(fstype, bg):
    out = []
    for name, g in by_scheduler(bg).items():
        out += sched_targets('%s (scheduler %s)' % (fstype, name), name, g)
    return out


def sched_targets(where, sched, g):
    """The targets beside the fdatasync foreground: against undisturbed
    where idle priority applies, else against the paired writer (>= 7 of 9
    runs, the same share of fewer)."""
    b = g['rows'].get('sync', {}).get('background', {})
    runs = g['samples']['fg'].get('sync', [])
    pre = '- %s, background beside the fdatasync foreground: ' % where
    out = []
    if sched in IDLE_SCHEDS:
        for name, k, ok in (('fg IOPS >= 0.95x undisturbed', 'iops', lambda v: v >= 0.95),
                            ('fg p99 <= 1.2x undisturbed', 'p99_us', lambda v: v <= 1.2)):
            v = b.get(k)
            out.append(pre + '%s: %s (per-run IQR %s) %s' % (
                name, _f(v), _iqr(run_ratios(runs, 'background', k)),
                _pass(v is not None and ok(v))))
        least = 0.2
    else:
        v = pairs(g, 'sync')
        n = len(v)
        need = math.ceil(7 * n / 9)
        note = '' if n >= 9 else '; fewer than 9 runs: indicative only'
        for name, test in (('p99 <= paired writer\'s', P99_LE),
                           ('IOPS >= paired writer\'s', IOPS_GE), ('both', BOTH)):
            k = kof(v, test)
            out.append(pre + '%s in %d of %d runs (needs %d%s) %s' % (
                name, k, n, need, note, _pass(n and k >= need)))
        least = 0.1
    v = b.get('bg_x_solo')
    out.append(pre + 'progress: bg >= %gx solo: %s %s' % (least, _f(v),
                                                          _pass(v is not None and v >= least)))
    # Extras, where their rows ran.
    x = g['solo'].get('background', {}).get('x_default')
    if x is not None:
        out.append(pre + 'idle: background >= 0.8x default: %s %s' % (_f(x), _pass(x >= 0.8)))
    for job in g['rows']:
        b, o = g['rows'][job].get('background'), g['rows'][job].get('ionice-dd')
        if not o or not b:
            continue
        better = all(b.get(k) is not None and o.get(k) is not None and
                     (b[k] >= o[k] if k in ('iops', 'mib_s') else b[k] <= o[k])
                     for k in ('iops', 'mib_s', 'p99_us', 'p999_us'))
        faster = (b.get('abs_bg_mib_s') or 0) >= (o.get('abs_bg_mib_s') or 0)
        out.append('- %s, %s foreground: background at least as good as ionice-dd on every '
                   'foreground figure: %s; at equal or higher bg throughput: %s' % (
                       where, job, _pass(better), _pass(faster)))
    return out
