# SPDX-License-Identifier: MIT
"""The guest benchmark's report (tests/vm/bg-guest.sh, tests/vm/README.md).

The guest prints, per trial, a BGTRIAL line of key=value pairs, a BGFIO line
with fio's JSON report and a BGREPORT line per prealloc --json report; this
reads them from the console and prints a BGRAW line per trial and, per device
and foreground job, the BGBENCH summary: medians (range) over the rounds of
the foreground beside each contender and of its ratios to the same round's
undisturbed foreground.
"""
import json
import lzma
import shlex
import statistics

from .util import MIB

LABEL = {'none': 'undisturbed', 'auto': 'prealloc auto', 'uring': 'prealloc uring', 'dd': 'dd'}
JOB = {'randw': 'random 4 KiB writes + fdatasync, QD1',
       'seqw': 'sequential 1 MiB writes, libaio QD4'}


def pairs(line):
    """The key=value pairs after a line's tag."""
    return dict(w.split('=', 1) for w in shlex.split(line)[1:])


def parse(lines):
    """The guest's configuration and trials from its console lines."""
    config, trials = {}, []
    for line in lines:
        tag, _, rest = line.rstrip('\n').partition(' ')
        if tag == 'BGCONFIG':
            config = pairs(line)
        elif tag == 'BGTRIAL':
            trials.append(dict(pairs(line), reports=[]))
        elif tag == 'BGFIO' and trials:
            trials[-1]['fio'] = json.loads(rest)
        elif tag == 'BGREPORT' and trials:
            trials[-1]['reports'].append(json.loads(rest))
    return config, [measure(t) for t in trials]


def measure(t):
    """One trial's foreground figures and its contender's bytes, methods and
    state (prealloc: from its reports, one per run)."""
    job = t['fio']['jobs'][0]
    w = job['write']
    out = {'dev': t['dev'], 'job': t['job'], 'round': int(t['round']), 'c': t['contender'],
           'bw': w['bw_bytes'], 'iops': w['iops'],
           'p99': w['clat_ns'].get('percentile', {}).get('99.000000'),
           'sp99': job.get('sync', {}).get('lat_ns', {}).get('percentile', {}).get('99.000000')
           if t['job'] == 'randw' else None,
           'bytes': int(t['contender_bytes']), 'secs_s': t['contender_s'],
           'secs': float(t['contender_s']),
           'method': t['method'], 'state': t['state'], 'by': '-'}
    if t['contender'] not in ('none', 'dd'):
        contender_reports(out, t)
    if 'runs' in t:
        out['state'] += ', %s runs' % t['runs']
    out['mib_s'] = float('%.1f' % (out['bytes'] / MIB / out['secs'] if out['secs'] > 0 else 0))
    return out


def contender_reports(out, t):
    methods = []
    for r in t['reports']:
        out['bytes'] += r.get('bytes_zeroed', 0)
        if r.get('method', '-') not in methods:
            methods.append(r.get('method', '-'))
        if r.get('error') not in (None, 'Operation canceled'):
            out['state'] = 'failed: %s' % r['error']
    out['method'] = '+'.join(methods) or 'none'
    if t['reports']:
        last = t['reports'][-1]
        out['by'] = ','.join('%s=%s' % (k, v) for k, v in
                             last.get('bytes_by_method', {}).items() if v) or '-'
        if last.get('background'):
            out['method'] += ' bg=' + '+'.join(last['background'])
    else:
        out['state'] = 'failed: no report: %s' % t['err']


def raw_line(x):
    return ('BGRAW dev=%s job=%s round=%d contender=%s bw_MiBs=%.2f iops=%s p99_us=%.0f '
            'sync_p99_us=%s contender_bytes=%d contender_s=%s contender_MiBs=%.1f '
            'state="%s" method="%s" bytes_by_method=%s' % (
                x['dev'], x['job'], x['round'], x['c'], x['bw'] / MIB, x['iops'],
                x['p99'] / 1000, '-' if x['sp99'] is None else '%.0f' % (x['sp99'] / 1000),
                x['bytes'], x['secs_s'], x['mib_s'], x['state'], x['method'], x['by']))


def rng(v, fmt):
    """Median (lowest-highest), or '-'."""
    if not v:
        return '-'
    return (fmt + ' (' + fmt + '-' + fmt + ')') % (statistics.median(v), min(v), max(v))


def ratios(mine, undisturbed, key):
    return [mine[r][key] / undisturbed[r][key] for r in sorted(mine)
            if r in undisturbed and mine[r][key] is not None and undisturbed[r][key]]


def group_trials(trials):
    """{(device, job): {contender: {round: trial}}}, in trial order."""
    groups = {}
    for x in trials:
        groups.setdefault((x['dev'], x['job']), {}).setdefault(x['c'], {})[x['round']] = x
    return groups


def summary(config, trials):
    """The BGBENCH lines of each device and foreground job, in trial order."""
    contenders = config['contenders'].split()
    out = []
    for (dev, job), g in group_trials(trials).items():
        none = g.get('none', {})
        und = [none[r] for r in sorted(none)]
        sync = [x['sp99'] / 1000 for x in und if x['sp99'] is not None]
        out += ['BGBENCH', 'BGBENCH %s / %s (%s): %d rounds of %s s' % (
                    dev, JOB[job], job, len(und), config['time']),
                'BGBENCH   undisturbed: %s MiB/s, %s IOPS, write p99 %s us%s' % (
                    rng([x['bw'] / MIB for x in und], '%.2f'),
                    rng([x['iops'] for x in und], '%.0f'),
                    rng([x['p99'] / 1000 for x in und], '%.0f'),
                    ', fdatasync p99 %s us' % rng(sync, '%.0f') if sync else ''),
                'BGBENCH   %-15s %-8s %-20s %-20s %-20s %-21s %-9s %s' % (
                    'beside', 'MiB/s', 'bw ratio', 'p99 ratio', 'sync p99 ratio',
                    'contender MiB/s', 'active s',
                    'contender: finished before the foreground / method')]
        cover = []
        for c in contenders:
            mine = g.get(c)
            if not mine:
                continue
            xs = [mine[r] for r in sorted(mine)]
            mab = statistics.median([x['bw'] / MIB for x in xs])
            cover.append('%.2f MiB/s %s' % (mab, 'undisturbed' if c == 'none'
                                             else 'beside ' + LABEL[c]))
            if c != 'none':
                out.append(contender_line(c, xs, mine, none, mab))
        out.append('BGBENCH   as the cover letter puts it: ' + ' vs '.join(cover))
    return out


def contender_line(c, xs, mine, none, mab):
    states, methods = [], []
    for x in xs:
        if not x['state'].startswith(('done', 'stopped')) and x['state'] not in states:
            states.append(x['state'])
        if x['method'] not in methods:
            methods.append(x['method'])
    done = sum(1 for x in xs if x['state'].startswith('done'))
    rs = ratios(mine, none, 'sp99')
    return 'BGBENCH   %-15s %-8.2f %-20s %-20s %-20s %-21s %-9.1f %s / %s' % (
        LABEL[c], mab, rng(ratios(mine, none, 'bw'), '%.3f'),
        rng(ratios(mine, none, 'p99'), '%.2f'), rng(rs, '%.2f'),
        rng([x['mib_s'] for x in xs], '%.1f'), statistics.median([x['secs'] for x in xs]),
        'done in %d/%d' % (done, len(xs)) + ('; ' + ';'.join(states) if states else ''),
        ';'.join(methods))


def quartiles(v, fmt):
    """'median | q1-q3' of per-round ratios (quartiles interpolated)."""
    if len(v) < 2:
        return (fmt + ' | -') % v[0] if v else '- | -'
    q = statistics.quantiles(v, n=4, method='inclusive')
    return (fmt + ' | ' + fmt + '-' + fmt) % (statistics.median(v), q[0], q[2])


def ratio_table(trials):
    """Markdown rows of each contender's per-round ratios to the same
    round's undisturbed trial: median and IQR of bandwidth and p99,
    median fdatasync p99 and the contender's median active seconds."""
    out = ['| device/fs | foreground | beside | bw x | bw x IQR | p99 x | p99 x IQR '
           '| fdatasync p99 x | active s |', '|---|---|---|---|---|---|---|---|---|']
    for (dev, job), g in group_trials(trials).items():
        none = g.get('none', {})
        for c in [c for c in LABEL if c in g and c != 'none']:
            sp = ratios(g[c], none, 'sp99')
            out.append('| %s | %s | %s | %s | %s | %s | %.1f |' % (
                dev, job, LABEL[c], quartiles(ratios(g[c], none, 'bw'), '%.3f'),
                quartiles(ratios(g[c], none, 'p99'), '%.2f'),
                '%.2f' % statistics.median(sp) if sp else '-',
                statistics.median([x['secs'] for x in g[c].values()])))
    return out


def report(lines, table=False):
    """The BGRAW and BGBENCH lines of a guest's console output, and with
    @table the ratio table after them."""
    config, trials = parse(lines)
    if not trials:
        return []
    out = [raw_line(x) for x in trials] + summary(config, trials)
    return out + [''] + ratio_table(trials) if table else out


def read_console(path):
    """A saved console's lines (xz-compressed when the name ends in .xz)."""
    opener = lzma.open if path.endswith('.xz') else open
    with opener(path, 'rt', errors='replace') as f:
        return f.readlines()
