# SPDX-License-Identifier: MIT
"""RocksDB's db_bench with and without libprealloc-rocksdb.so.

Debian's db_bench (rocksdb-tools), unmodified, on ext4 and xfs over
direct-I/O loop devices like run-bench.py (root, private mount namespace), or
--dir.  Arms: default (RocksDB's own WALs: fallocate KEEP_SIZE, appends into
unwritten extents); prealloc (the same, with the plugin LD_PRELOADed and
--fs_uri=prealloc); recycle (RocksDB's recycle_log_file_num=4, which it only
keeps under kSkipAnyCorruptedRecords).  Every arm reads the same options file
but for those two options (a small write_buffer_size, so that WALs switch
often).  Each run visits every arm, the order rotating by one; medians and
per-run ratios to the default over --runs runs.  Only the Python standard
library is used.  Results: tests/bench/RESULTS.md.
"""
import argparse
import os
import re
import shutil
import subprocess
import tempfile

from .fs import filesystems, fs_info
from .markdown import f, table
from .session import save, start
from .stats import iqr, med, paired
from .util import TOP, log, rotated

ARMS = ['default', 'prealloc', 'recycle']
OPTIONS = """[Version]
  rocksdb_version=7.8.3
  options_file_version=1.1
[DBOptions]
  create_if_missing=true
%s
[CFOptions "default"]
  write_buffer_size=%d
[TableOptions/BlockBasedTable "default"]
"""
RECYCLE = '  recycle_log_file_num=4\n  wal_recovery_mode=kSkipAnyCorruptedRecords'


def options_file(a, d, arm):
    path = os.path.join(d, 'options-%s.ini' % arm)
    with open(path, 'w') as f:
        f.write(OPTIONS % (RECYCLE if arm == 'recycle' else '', a.write_buffer))
    return path


def parse(out):
    """ops/s, the write percentiles (--histogram) and the WAL sync
    percentiles (--statistics) from db_bench's output."""
    r = {}
    m = re.search(r'^\w+\s*:\s*[\d.]+ micros/op (\d+) ops/sec', out, re.M)
    if m:
        r['ops'] = int(m.group(1))
    m = re.search(r'^Percentiles: P50: ([\d.]+) P75: [\d.]+ P99: ([\d.]+)', out, re.M)
    if m:
        r['write_p50'], r['write_p99'] = float(m.group(1)), float(m.group(2))
    m = re.search(r'^rocksdb\.wal\.file\.sync\.micros P50 : ([\d.]+) P95 : [\d.]+ '
                  r'P99 : ([\d.]+)', out, re.M)
    if m:
        r['sync_p50'], r['sync_p99'] = float(m.group(1)), float(m.group(2))
    return r


def one_run(a, fs, bench, arm, tmp):
    db = tempfile.mkdtemp(prefix='db-%s-' % arm, dir=fs.mnt)
    env = dict(os.environ)
    cmd = [a.bench, '--benchmarks=' + bench, '--sync=1', '--num=%d' % a.num,
           '--value_size=%d' % a.value_size, '--histogram=1', '--statistics=1',
           '--db=' + db, '--options_file=' + options_file(a, tmp, arm)]
    if arm == 'prealloc':
        env['LD_PRELOAD'] = a.plugin
        cmd.append('--fs_uri=prealloc')
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    r = {'arm': arm, 'error': p.returncode}
    r.update(parse(p.stdout))
    if p.returncode or 'ops' not in r:
        r['error'] = r['error'] or 1
        r['output'] = p.stdout[-2000:]
    # What the arm really did: RocksDB's own account of its options, and
    # the plugin's pool beside the WALs.
    with open(os.path.join(db, 'LOG')) as f:
        m = re.search(r'Options\.recycle_log_file_num: (\d+)', f.read())
    r['recycle_log_file_num'] = int(m.group(1)) if m else None
    r['pool_dir'] = os.path.isdir(os.path.join(db, '.libprealloc-wal'))
    shutil.rmtree(db)
    return r


def bench_fs(a, fs):
    entry = {'fstype': fs.fstype, 'info': fs_info(fs.mnt), 'rows': {}}
    tmp = tempfile.mkdtemp(prefix='rocksdb-bench-')
    try:
        for bench in a.benchmarks:
            samples = {arm: [] for arm in a.arms}
            for r in range(a.runs):
                for arm in rotated(a.arms, r):
                    s = one_run(a, fs, bench, arm, tmp)
                    log('%s %s %s run %d: %s' % (fs.fstype, bench, arm, r,
                           {k: v for k, v in s.items() if k != 'output'}))
                    samples[arm].append(s)
            entry['rows'][bench] = {arm: row(samples, arm) for arm in a.arms}
            entry.setdefault('samples', {})[bench] = samples
    finally:
        shutil.rmtree(tmp)
    return entry


def row(samples, arm):
    out = {'ok_runs': sum(1 for s in samples[arm] if s['error'] == 0),
           'recycle_log_file_num': [s.get('recycle_log_file_num') for s in samples[arm]][-1],
           'pool_dir': any(s.get('pool_dir') for s in samples[arm])}
    for k in ('ops', 'write_p50', 'write_p99', 'sync_p50', 'sync_p99'):
        out[k] = med(samples[arm], k)
        out['x_' + k] = paired(samples, arm, 'default', k)
        out['iqr_' + k] = iqr(samples, arm, 'default', k)
    return out


def ratio(r, k):
    q = r['iqr_' + k]
    return '%s%s' % (f(r['x_' + k], '%.2f'),
                     ' (%.2f–%.2f)' % tuple(q) if q and r['x_' + k] is not None else '')


def report(a, results):
    m = results['machine']
    lines = ['# RocksDB db_bench: default WALs, libprealloc-rocksdb, recycle_log_file_num', '',
             'Command: `%s`; %s, %s CPUs, %s GiB, kernel %s, %s.  Load average %s at the '
             'start, %s at the end (db_bench\'s own included).' % (
                 results['command'], m['cpu'], m['nproc'], m['mem_gib'], m['kernel'],
                 m['date'], results['load'], results['load_end']), '',
             'db_bench %s, --sync=1 --num=%d --value_size=%d, write_buffer_size %d in an '
             'options file shared by all arms.  Medians of %d alternating runs; ratios (×) '
             'are medians of per-run ratios to the default arm, IQR in brackets.  '
             'Latencies in µs: write = db_bench\'s per-write histogram, WAL sync = '
             'rocksdb.wal.file.sync.micros.' % (
                 a.bench, a.num, a.value_size, a.write_buffer, a.runs), '']
    hdr = ['arm', 'ops/s', '× ops', 'write p50', 'write p99', '× write p99',
           'WAL sync p50', 'WAL sync p99', '× sync p99', 'recycle_log_file_num', 'pool']
    for fs in results['fs']:
        lines += ['## %s on %s' % (fs['fstype'], fs['info']['source']), '']
        for bench, rows in fs['rows'].items():
            out = []
            for arm, r in rows.items():
                out.append([arm, f(r['ops'], '%.0f'), ratio(r, 'ops'),
                            f(r['write_p50'], '%.0f'), f(r['write_p99'], '%.0f'),
                            ratio(r, 'write_p99'), f(r['sync_p50'], '%.0f'),
                            f(r['sync_p99'], '%.0f'), ratio(r, 'sync_p99'),
                            str(r['recycle_log_file_num']), 'yes' if r['pool_dir'] else 'no'])
            lines += ['### %s --sync=1 (%s ok runs per arm)' % (
                bench, '/'.join(str(r['ok_runs']) for r in rows.values())), '',
                table(hdr, out), '']
    return '\n'.join(lines)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--bench', default=shutil.which('db_bench') or '/usr/bin/db_bench')
    p.add_argument('--plugin', default=os.path.join(
        TOP, 'build/examples/rocksdb/libprealloc-rocksdb.so'))
    p.add_argument('--dir', help='use this directory instead of loop filesystems')
    p.add_argument('--fs', default='ext4,xfs')
    p.add_argument('--arms', default=','.join(ARMS))
    p.add_argument('--benchmarks', default='fillrandom,fillseq')
    p.add_argument('--runs', type=int, default=7)
    p.add_argument('--num', type=int, default=20000, help='keys per run')
    p.add_argument('--value-size', type=int, default=400)
    p.add_argument('--write-buffer', type=int, default=2 << 20)
    p.add_argument('--json', default='bench-rocksdb.json')
    p.add_argument('--md')
    a = p.parse_args()
    a.plugin = os.path.abspath(a.plugin)
    a.arms = a.arms.split(',')
    a.benchmarks = a.benchmarks.split(',')
    return a


def main():
    a = parse_args()
    if not os.path.exists(a.plugin):
        raise SystemExit('run-rocksdb-bench: %s: not found; build it' % a.plugin)
    results = start(a, 'run-rocksdb-bench')
    results['load'] = open('/proc/loadavg').read().split()[0]
    for fs in filesystems(a, 2 << 30):
        results['fs'].append(bench_fs(a, fs))
    results['load_end'] = open('/proc/loadavg').read().split()[0]
    save(a, results, report(a, results))


if __name__ == '__main__':
    main()
