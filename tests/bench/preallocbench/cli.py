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
import shlex
import signal
import sys

from . import background, cache
from .driver import Bench
from .fs import filesystems, fs_info
from .report import report
from .sections import (ZERO_METHODS, section_frag, section_overwrite, section_probe,
                       section_scale, section_sweep, section_zero)
from .session import save, show, start
from .util import GIB, MIB, TOP, log, parse_size


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--bench', default=os.path.join(TOP, 'build-bench/tests/bench/prealloc-bench'),
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
    p.add_argument('--tool', default=os.path.join(TOP, 'build-bench/src/tool/prealloc'),
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
        background.section_background(b, fs, entry)
    if 'cache' in a.sections:
        cache.section_cache(b, fs, entry)





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
