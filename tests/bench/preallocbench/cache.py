# SPDX-License-Identifier: MIT
"""Section 'cache' of run-bench.py: the page cache a call leaves, and a
working set's residency in a memory cgroup across a call.

  left     `prealloc run --length --cache-size --method M` on a fresh file,
           for every method the tool accepts (its --help lists them), auto
           with io_uring refused (`kernel.io_uring_disabled=2`), and
           `dd oflag=direct bs=1M`: the file's pages left in the cache after
           it (fincore) and the system CPU of the process (wait4).  With
           --tool-before, forced buffered through that tool too (an older
           build: the "before" row).
  cgroup   a memory cgroup limited to --cache-cg-limit (v2, else v1's memory
           hierarchy), in it a --cache-ws file read into the cache (the
           database's working set), then a --cache-ws call on a new file:
           the working set's resident bytes after it (fincore).  Contenders:
           auto, auto under io_uring_disabled=2, forced buffered (and the
           older tool's).

Runs alternate (the order rotates every run).  kernel.io_uring_disabled is
host-wide: it is set only around each contender that needs it and restored
right after, whatever happens (also on SIGTERM and SIGINT).
"""
import os
import re
import signal
import statistics
import subprocess
import time

from .markdown import table
from .util import MIB, log, rotated

SYSCTL = '/proc/sys/kernel/io_uring_disabled'


def tool_methods(tool):
    """The methods `prealloc run --help` lists, auto first."""
    out = subprocess.run([tool, 'run', '--help'], stdout=subprocess.PIPE, text=True).stdout
    m = re.search(r'--method M\s+(.*)', out)
    names = re.split(r',\s*|\s+or\s+', m.group(1).strip()) if m else ['auto']
    return [n for n in names if n]


class NoUring:
    """kernel.io_uring_disabled=2 for the duration of a with-block."""

    def __enter__(self):
        with open(SYSCTL) as f:
            self.old = f.read().strip()
        self.handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
        for s in self.handlers:
            signal.signal(s, self._signal)
        self._set('2')
        return self

    def _set(self, v):
        with open(SYSCTL, 'w') as f:
            f.write(v)

    def _signal(self, sig, frame):
        self._set(self.old)
        raise SystemExit(128 + sig)

    def __exit__(self, *exc):
        self._set(self.old)
        for s, h in self.handlers.items():
            signal.signal(s, h)
        return False


def resident(path):
    """Bytes of @path in the page cache (fincore)."""
    out = subprocess.run(['fincore', '--bytes', '--noheadings', '--output', 'RES', path],
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    return int(out.split()[0])


def timed(cmd, cgroup_procs=None):
    """Run @cmd (in the cgroup whose cgroup.procs is given); exit status,
    system CPU seconds, wall seconds."""
    def enter():
        if cgroup_procs:
            with open(cgroup_procs, 'w') as f:
                f.write(str(os.getpid()))
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         preexec_fn=enter)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, ru.ru_stime, time.monotonic() - t0


def contenders(a, with_dd):
    """(name, command maker, io_uring refused) of the section."""
    out = []
    for m in tool_methods(a.tool):
        out.append((m, lambda n, p, m=m: [a.tool, 'run', '--method', m, '--length', n, p], False))
    out.append(('auto, io_uring_disabled=2',
                lambda n, p: [a.tool, 'run', '--length', n, p], True))
    if a.tool_before:
        out.append(('buffered (before)',
                    lambda n, p: [a.tool_before, 'run', '--method', 'buffered',
                                  '--length', n, p], False))
    if with_dd:
        out.append(('dd oflag=direct bs=1M',
                    lambda n, p: ['dd', 'if=/dev/zero', 'of=' + p, 'bs=1M',
                                  'count=%d' % (int(n) // MIB), 'oflag=direct',
                                  'status=none'], False))
    return out


def run_one(cmd, refused, cgroup_procs=None):
    if refused:
        with NoUring():
            return timed(cmd, cgroup_procs)
    return timed(cmd, cgroup_procs)


def fresh(path, mnt):
    """Remove @path and let the filesystem take its blocks back first (xfs
    frees a deleted file's blocks in the background; the next call's
    free-space check would fail)."""
    if os.path.exists(path):
        os.unlink(path)
    subprocess.run(['sync', '-f', mnt], check=True)


def section_left(a, fs):
    path = os.path.join(fs.mnt, 'prealloc-bench-cache.dat')
    cs = contenders(a, True)
    samples = {c[0]: [] for c in cs}
    n = str(a.cache_size)
    for r in range(a.cache_runs):
        for name, make, refused in rotated(cs, r):
            fresh(path, fs.mnt)
            rc, sys_s, wall = run_one(make(n, path), refused)
            s = {'rc': rc, 'sys_s': sys_s, 'wall_s': wall,
                 'left': resident(path) if rc == 0 else None}
            samples[name].append(s)
            log('  [%s cache run %d] %-26s rc %d, %s MiB left, sys %.2f s' % (
                fs.fstype, r + 1, name, rc, s['left'] // MIB if s['left'] is not None
                else '-', sys_s))
    if os.path.exists(path):
        os.unlink(path)
    return samples


class Cgroup:
    """A memory cgroup limited to @limit bytes (v2, else v1)."""

    def __init__(self, limit):
        self.limit, self.path = limit, None

    def __enter__(self):
        name = 'prealloc-bench-%d' % os.getpid()
        try:
            with open('/sys/fs/cgroup/cgroup.controllers') as f:
                v2 = 'memory' in f.read().split()
        except OSError:
            v2 = False
        if v2:
            with open('/sys/fs/cgroup/cgroup.subtree_control', 'r+') as f:
                if 'memory' not in f.read().split():
                    f.write('+memory')
            self.path, knob = '/sys/fs/cgroup/' + name, 'memory.max'
        else:
            own = [line.split(':', 2)[2].strip() for line in open('/proc/self/cgroup')
                   if line.split(':')[1] == 'memory'][0]
            self.path = '/sys/fs/cgroup/memory%s/%s' % (own.rstrip('/'), name)
            knob = 'memory.limit_in_bytes'
        os.mkdir(self.path)
        with open(os.path.join(self.path, knob), 'w') as f:
            f.write(str(self.limit))
        self.procs = os.path.join(self.path, 'cgroup.procs')
        return self

    def __exit__(self, *exc):
        for _ in range(50):	# its last process may still be exiting
            try:
                os.rmdir(self.path)
                break
            except OSError:
                time.sleep(0.1)
        return False


def section_cgroup(a, fs):
    ws = os.path.join(fs.mnt, 'prealloc-bench-ws.dat')
    path = os.path.join(fs.mnt, 'prealloc-bench-cg.dat')
    subprocess.run(['dd', 'if=/dev/urandom', 'of=' + ws, 'bs=1M', 'count=%d' % (a.cache_ws // MIB),
                    'conv=fsync', 'status=none'], check=True)
    cs = [c for c in contenders(a, False)
          if c[0] in ('auto', 'auto, io_uring_disabled=2', 'buffered', 'buffered (before)')]
    samples = {c[0]: [] for c in cs}
    n = str(a.cache_ws)
    with Cgroup(a.cache_cg_limit) as cg:
        for r in range(a.cache_runs):
            for name, make, refused in rotated(cs, r):
                fresh(path, fs.mnt)
                fd = os.open(ws, os.O_RDONLY)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                os.close(fd)
                timed(['cat', ws], cg.procs)		# the working set, charged to the group
                before = resident(ws)
                rc, sys_s, wall = run_one(make(n, path), refused, cg.procs)
                s = {'rc': rc, 'before': before, 'after': resident(ws), 'sys_s': sys_s}
                samples[name].append(s)
                log('  [%s cgroup run %d] %-26s rc %d, working set %d -> %d MiB' % (
                    fs.fstype, r + 1, name, rc, before // MIB, s['after'] // MIB))
    for p in (path, ws):
        if os.path.exists(p):
            os.unlink(p)
    return samples


def section_cache(b, fs, res):
    a = b.a
    res['cache'] = {'size': a.cache_size, 'ws': a.cache_ws, 'limit': a.cache_cg_limit,
                    'runs': a.cache_runs, 'left': section_left(a, fs),
                    'cgroup': section_cgroup(a, fs)}


def _med(ss, key, scale=1, fmt='%.0f'):
    v = [s[key] / scale for s in ss if s.get('rc') == 0 and s.get(key) is not None]
    if not v:
        return 'refused' if ss and all(s.get('rc') == 3 for s in ss) else '-'
    if len(v) < 2:
        return fmt % v[0]
    return (fmt + ' (%s-%s)') % (statistics.median(v), fmt % min(v), fmt % max(v))


def report_cache(c):
    rows = [[name, _med(ss, 'left', MIB), _med(ss, 'sys_s', 1, '%.2f'),
             _med(ss, 'wall_s', 1, '%.2f')] for name, ss in c['left'].items()]
    cg = [[name, _med(ss, 'before', MIB), _med(ss, 'after', MIB),
           _med([dict(s, pct=100.0 * s['after'] / s['before']) for s in ss if s['before']],
                'pct', 1, '%.1f')]
          for name, ss in c['cgroup'].items()]
    return [
        '#### Page cache left by a %d MiB call (median of %d alternating runs; range)'
        % (c['size'] // MIB, c['runs']), '',
        table(['contender', 'left in cache, MiB (fincore)', 'system CPU, s', 'wall, s'], rows),
        '',
        '#### A %d MiB working set in a memory cgroup of %d MiB across a %d MiB call '
        '(median of %d alternating runs; range)'
        % (c['ws'] // MIB, c['limit'] // MIB, c['ws'] // MIB, c['runs']), '',
        table(['contender', 'resident before, MiB', 'after, MiB', 'after, %'], cg), '']
