# SPDX-License-Identifier: MIT
"""One call's cost, this tree against an older version built beside it.

Builds --base (a tag or commit) in a git worktree under /var/tmp, builds
call-bench.c against it and against this tree's build, then alternates the
two arms (the order swapped every round) on ext4 and xfs over direct-I/O
loop devices of fully written images:

  zero    a new 1 GiB file made written: MiB/s and CPU per GiB (every
          thread of the process), written bytes and xfs's preallocation mark
  calls   per-call latency (p50, p99) of a no-op call (a written range) and
          of 1 MiB and 4 MiB appends, with the file at descriptor numbers
          10, 1,000, 10,000 and as high as the hard RLIMIT_NOFILE allows
  exec    (this tree only, --exec; --exec-only for it alone) a converted
          fallocate() of a program run under `prealloc exec --unordered`,
          interposer and supervisor, at the lowest and the highest
          descriptor number

Ratios are medians of the per-round ratios with their IQR.  Run as root from
the top of the tree:

  tests/bench/run-call-bench.py --base 9c76115 --build build \\
      --json tests/bench/results/DATE-call.jsonl --md tests/bench/results/DATE-call.md

--report-from FILE.jsonl prints the report again from the raw results.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys

from . import fs as bfs
from .markdown import table
from .stats import median_iqr
from .util import TOP, log, parse_size, run

SRC = os.path.join(TOP, 'tests/bench/call-bench.c')
KINDS = (('noop', 200), ('append1m', 200), ('append4m', 100))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--base', help='the older version: a tag or commit')
    p.add_argument('--build', default=os.path.join(TOP, 'build'),
                   help="this tree's build directory")
    p.add_argument('--rounds', type=int, default=9)
    p.add_argument('--fs', default='ext4,xfs')
    p.add_argument('--image', default='8G', help='loop image size')
    p.add_argument('--size', default='1G', help='bytes zeroed')
    p.add_argument('--fds', default='10,1000,10000,max')
    p.add_argument('--exec', action='store_true', help='also under prealloc exec')
    p.add_argument('--exec-only', action='store_true', help='only under prealloc exec')
    p.add_argument('--json', help='raw results, one JSON line per measurement')
    p.add_argument('--md', help='the report')
    p.add_argument('--report-from', help='print the report of saved raw results')
    return p.parse_args()


def build_base(rev):
    """The older version's library, built in a worktree: its build dir."""
    wt = '/var/tmp/prealloc-bench-%s' % rev
    if not os.path.isdir(wt):
        run(['git', '-C', TOP, 'worktree', 'add', '--detach', wt, rev])
    bdir = os.path.join(wt, 'build')
    if not os.path.isdir(bdir):
        run(['meson', 'setup', bdir, wt, '-Dtests=false'])
    run(['ninja', '-C', bdir])
    return wt, bdir


def compile_bench(src_dir, bdir, out):
    run(['cc', '-O2', '-Wall', '-o', out, SRC, '-I' + os.path.join(src_dir, 'include'),
         '-I' + os.path.join(bdir, 'include'), '-I' + bdir, '-L' + bdir,
         '-Wl,-rpath,' + bdir, '-lprealloc'])
    return out


def fd_numbers(spec):
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    top = min(hard, 1 << 20) - 1
    return [top if f == 'max' else int(f) for f in spec.split(',')]


def remove(path):
    if os.path.exists(path):
        os.unlink(path)


def measure(cmd, env=None):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if r.returncode:
        return {'error': r.stderr.strip() or r.returncode}
    return json.loads(r.stdout.splitlines()[-1])


def one_round(a, rnd, fs, arms, fds, out):
    order = arms if rnd % 2 == 0 else arms[::-1]
    if not a.exec_only:
        own_round(a, rnd, fs, order, fds, out)
    if a.exec or a.exec_only:
        exec_round(a, rnd, fs, dict(arms)['head'], fds, out)


def own_round(a, rnd, fs, order, fds, out):
    path = lambda name: os.path.join(fs.mnt, name)
    for arm, bench in order:
        p = path('zero-%s' % arm)
        res = measure([bench, 'zero', p, str(parse_size(a.size))])
        remove(p)
        out({'round': rnd, 'fs': fs.fstype, 'arm': arm, 'test': 'zero', **res})
    for kind, count in KINDS:
        for fd in fds:
            for arm, bench in order:
                p = path('calls-%s' % arm)
                res = measure([bench, 'calls', p, kind, str(count), str(fd)])
                remove(p)
                out({'round': rnd, 'fs': fs.fstype, 'arm': arm, 'test': kind, 'fd': fd,
                     **res})


def exec_round(a, rnd, fs, head, fds, out):
    path = lambda name: os.path.join(fs.mnt, name)
    tool = os.path.join(a.build, 'src/tool/prealloc')
    env = dict(os.environ, PREALLOC_EXEC_PRELOAD=os.path.join(a.build,
                                                              'src/tool/libprealloc-exec.so'))
    for mode in ('preload', 'seccomp'):
        for fd in (fds[0], fds[-1]):
            p = path('exec')
            # Vouched for (--unordered): the program writes nothing while it
            # fallocate()s, and ext4 could not order the zeros.
            res = measure([tool, 'exec', '--quiet', '--mode', mode, '--unordered', '*', '--',
                           head, 'calls', p, 'fallocate1m', '100', str(fd)], env)
            remove(p)
            out({'round': rnd, 'fs': fs.fstype, 'arm': 'exec-' + mode, 'test': 'fallocate1m',
                 'fd': fd, **res})


def ok(r):
    return 'error' not in r


def by_round(runs, **match):
    """{round: {arm: run}} of the runs matching @match."""
    got = {}
    for r in runs:
        if ok(r) and all(r.get(k) == v for k, v in match.items()):
            got.setdefault(r['round'], {})[r['arm']] = r
    return got


def ratios(rounds, key, num='head', den='base'):
    return [g[num][key] / g[den][key] for g in rounds.values()
            if num in g and den in g and g[den].get(key)]


def med(rounds, arm, key, scale=1.0):
    v = [g[arm][key] * scale for g in rounds.values() if arm in g and key in g[arm]]
    return statistics.median(v) if v else None


def zero_table(runs, size):
    rows = []
    for fs in sorted({r['fs'] for r in runs}):
        g = by_round(runs, fs=fs, test='zero')
        for r in g.values():
            for x in r.values():
                x['mibs'] = size / (1 << 20) / (x['ns'] / 1e9)
                x['cpu_ms_gib'] = x['cpu_ns'] / 1e6 / (size / (1 << 30))
        flagged = sum(1 for r in g.values() if 'head' in r and r['head']['xflags'] & 2)
        full = sum(1 for r in g.values() if 'head' in r and r['head']['written'] == size)
        rows.append([fs, '%.0f' % med(g, 'base', 'mibs'), '%.0f' % med(g, 'head', 'mibs'),
                     median_iqr(ratios(g, 'mibs')),
                     '%.1f / %.1f' % (med(g, 'base', 'cpu_ms_gib'), med(g, 'head', 'cpu_ms_gib')),
                     median_iqr(ratios(g, 'cpu_ms_gib')),
                     '%d of %d' % (full, len(g)), '%d of %d' % (flagged, len(g))])
    return table(['fs', 'base MiB/s', 'head MiB/s', 'head / base MiB/s',
                  'CPU ms/GiB base / head', 'head / base CPU', 'head fully written',
                  'head FS_XFLAG_PREALLOC'], rows)


def calls_table(runs):
    rows = []
    for fs in sorted({r['fs'] for r in runs}):
        for kind, _ in KINDS:
            for fd in sorted({r['fd'] for r in runs if r['test'] == kind}):
                g = by_round(runs, fs=fs, test=kind, fd=fd)
                if not g:
                    continue
                rows.append([fs, kind, str(fd),
                             '%.3f / %.3f' % (med(g, 'base', 'p50_ns', 1e-6),
                                              med(g, 'head', 'p50_ns', 1e-6)),
                             median_iqr(ratios(g, 'p50_ns')),
                             '%.3f / %.3f' % (med(g, 'base', 'p99_ns', 1e-6),
                                              med(g, 'head', 'p99_ns', 1e-6)),
                             median_iqr(ratios(g, 'p99_ns'))])
    return table(['fs', 'call', 'fd', 'p50 ms base / head', 'head / base p50',
                  'p99 ms base / head', 'head / base p99'], rows)


def flat_table(runs):
    """Each arm's cost at the highest descriptor number over its cost at the
    lowest, per round."""
    rows = []
    fds = sorted({r['fd'] for r in runs if 'fd' in r})
    lo, hi = fds[0], fds[-1]
    for fs in sorted({r['fs'] for r in runs}):
        for kind in [k for k, _ in KINDS] + ['fallocate1m']:
            for arm in ('base', 'head', 'exec-preload', 'exec-seccomp'):
                g = {}
                for r in runs:
                    if ok(r) and r['fs'] == fs and r['test'] == kind and r['arm'] == arm:
                        g.setdefault(r['round'], {})[r['fd']] = r
                v = [x[hi]['p50_ns'] / x[lo]['p50_ns'] for x in g.values() if lo in x and hi in x]
                if v:
                    rows.append([fs, kind, arm, median_iqr(v)])
    return table(['fs', 'call', 'arm', 'p50 at fd %d / at fd %d' % (hi, lo)], rows)


def report(runs, meta):
    size = meta.get('size', 1 << 30)
    n = len({r['round'] for r in runs})
    errors = [r for r in runs if not ok(r)]
    out = ['# One call: %s against %s (%s)' % (meta.get('head_rev', 'head'), meta['base'],
                                              meta.get('date', '')), '',
           'Machine: %s.  %d rounds, the arms alternating; ratios are medians of the '
           'per-round ratios [IQR].  Loop devices with direct I/O over fully written '
           '%s images.' % (meta.get('machine', ''), n, meta.get('image', '')), '']
    if any(r['test'] == 'zero' for r in runs if ok(r)):  # not --exec-only
        out += ['## Zeroing a new %d MiB file (auto)' % (size >> 20), '',
                zero_table(runs, size), '', '## Per-call latency', '', calls_table(runs), '']
    out += ['## Flat in the descriptor number', '', flat_table(runs), '']
    if errors:
        out += ['## Errors', ''] + ['- %s' % json.dumps(e) for e in errors] + ['']
    return '\n'.join(out)


def main():
    a = parse_args()
    if a.report_from:
        with open(a.report_from) as f:
            lines = [json.loads(line) for line in f]
        print(report([r for r in lines if 'round' in r], lines[0]))
        return
    if not a.base:
        sys.exit('--base is needed')
    bfs.enter_namespace()
    wt, bdir = build_base(a.base)
    arms = [('base', compile_bench(wt, bdir, '/var/tmp/call-bench-base')),
            ('head', compile_bench(TOP, a.build, '/var/tmp/call-bench-head'))]
    fds = fd_numbers(a.fds)
    m = bfs.machine_info('call-bench')
    meta = {'base': a.base, 'head_rev': run(['git', '-C', TOP, 'rev-parse', '--short',
                                                'HEAD']).strip(),
            'date': m['date'], 'size': parse_size(a.size), 'image': a.image,
            'machine': '%d CPUs (%s), kernel %s' % (m['nproc'], m['cpu'], m['kernel'])}
    runs = []
    jf = open(a.json, 'w') if a.json else None

    def out(r):
        runs.append(r)
        log(json.dumps(r))
        if jf:
            jf.write(json.dumps(r) + '\n')
            jf.flush()

    if jf:
        jf.write(json.dumps(meta) + '\n')
    for fstype in a.fs.split(','):
        with bfs.LoopFs(fstype, parse_size(a.image)) as fs:
            for rnd in range(a.rounds):
                one_round(a, rnd, fs, arms, fds, out)
    text = report(runs, meta)
    print(text)
    if a.md:
        with open(a.md, 'w') as f:
            f.write(text)

