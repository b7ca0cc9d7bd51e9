# SPDX-License-Identifier: MIT
"""Where the benchmarks run: ext4 and xfs on direct-I/O loop devices in a
private mount namespace (root), or a directory given with --dir."""
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

from .util import GIB, MIB, run


NS_MARK = 'PREALLOC_BENCH_NS'


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


def enter_namespace():
    """Re-exec in a private mount namespace: our mounts die with us."""
    if os.environ.get(NS_MARK):
        return
    os.environ[NS_MARK] = '1'
    os.execvp('unshare', ['unshare', '--mount', '--propagation', 'private',
                          sys.executable] + sys.argv)


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
