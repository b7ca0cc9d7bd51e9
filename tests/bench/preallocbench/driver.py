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
        arm = self.ARMS.get(method, self.ARM_DEFAULT)
        r = arm['run'](self, method, size, path, qd, req)
        if arm['census'] and r.get('error') == 0:
            c = self._json([self.exe, 'census', path])
            r['written_pct'], r['extents'] = c.get('written_pct'), c.get('extents')
        r['method'] = method
        return r

    def _dd(self, method, size, path, qd, req):
        cmd = ['dd', 'if=/dev/zero', 'of=' + path, 'bs=2M',
               'count=%d' % (size // (2 * MIB)), 'oflag=direct', 'conv=fsync',
               'status=none']
        return self._json([self.exe, 'exec', '--bytes', str(size), '--'] + cmd)

    def _fio(self, method, size, path, qd, req):
        return self.fio(size, path)

    def _prep(self, method, size, path, qd, req):
        """prealloc-bench prep: the library's methods and the C contenders."""
        cmd = [self.exe, 'prep']
        if qd:
            cmd += ['--qd', str(qd)]
        if req:
            cmd += ['--req', str(req)]
        return self._json(cmd + [method, str(size), path])

    # The arms run outside prealloc-bench prep, by name ('census': their
    # written extents counted afterwards, as prep counts its own); every
    # other name is prep's (ARM_DEFAULT).
    ARMS = {
        'dd': {'run': _dd, 'census': True},
        'fio': {'run': _fio, 'census': True},
    }
    ARM_DEFAULT = {'run': _prep, 'census': False}

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
