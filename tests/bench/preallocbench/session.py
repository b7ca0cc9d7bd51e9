# SPDX-License-Identifier: MIT
"""What every runner does first (checks, namespace, the results' header) and
last (the raw results to --json, the report to stdout and --md)."""
import json
import os
import shlex
import signal
import sys

from .fs import enter_namespace, machine_info


def start(a, prog):
    """What every bench run checks and sets up first; the results' header."""
    if not os.access(a.bench, os.X_OK):
        sys.exit('%s: %s: not found; build it: ninja -C build-bench' % (prog, a.bench))
    if not a.dir:
        if os.geteuid() != 0:
            sys.exit('%s: loop filesystems need root (or use --dir DIR)' % prog)
        enter_namespace()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    return {'command': ' '.join(shlex.quote(x) for x in sys.argv),
            'machine': machine_info(a.bench), 'fs': []}


def show(a, md):
    """The report to stdout and --md."""
    print(md)
    if a.md:
        with open(a.md, 'w') as fm:
            fm.write(md.rstrip('\n') + '\n')


def save(a, results, md):
    """Raw results to --json, the report as show() does."""
    with open(a.json, 'w') as fj:
        json.dump(results, fj, indent=1, default=str)
    show(a, md)
