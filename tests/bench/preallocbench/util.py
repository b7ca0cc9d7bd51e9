# SPDX-License-Identifier: MIT
"""Small helpers every runner shares: sizes, logging, commands, rotation."""
import os
import subprocess
import sys

# The top of the source tree, where ninja builds build/ and build-bench/.
TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../..'))

MIB = 1 << 20


GIB = 1 << 30


def parse_size(s):
    s = s.strip().upper()
    mult = {'K': 1 << 10, 'M': MIB, 'G': GIB, 'T': 1 << 40}
    if s and s[-1] in mult:
        return int(s[:-1]) * mult[s[-1]]
    return int(s)


def fmt_size(n):
    for unit, m in (('G', GIB), ('M', MIB), ('K', 1024)):
        if n % m == 0:
            return '%d%s' % (n // m, unit)
    return str(n)


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, **kw).stdout


def rotated(items, r):
    r %= len(items)
    return items[r:] + items[:r]
