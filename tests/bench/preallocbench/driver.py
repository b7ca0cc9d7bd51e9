# SPDX-License-Identifier: MIT
"""The drivers of one measurement: prealloc-bench (tests/bench/prealloc-bench.c),
dd and fio, each one JSON line per sample."""
import json
import os
import subprocess

from .util import MIB


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
