#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run the guest benchmark (tests/vm/bg-guest.sh under tests/vm/vm.sh) and
report it: the console passes through, then the BGRAW and BGBENCH lines
and a markdown table of the per-round ratios with their IQRs
(preallocbench/guest.py).  The exit status is the command's.

  run-vm-bench.py [--log FILE] -- tests/vm/vm.sh run ... -- tests/vm/bg-guest.sh ...
  run-vm-bench.py --from FILE      the report again from a saved console log
  run-vm-bench.py --table FILE     the table alone, from a saved console log
(a saved log may be xz-compressed: FILE.xz)
"""
import argparse
import subprocess
import sys

from preallocbench.guest import parse, ratio_table, read_console, report


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--from', dest='saved', metavar='FILE', help='a saved console log')
    p.add_argument('--table', metavar='FILE', help='the ratio table of a saved console log')
    p.add_argument('--log', metavar='FILE', help='keep the console log here too')
    p.add_argument('command', nargs='*', help='the vm.sh command line')
    a = p.parse_args()
    if a.table:
        print('\n'.join(ratio_table(parse(read_console(a.table))[1])))
        return 0
    if a.saved:
        print('\n'.join(report(read_console(a.saved), table=True)))
        return 0
    if not a.command:
        p.error('a command, or --from FILE')
    lines = []
    with subprocess.Popen(a.command, stdout=subprocess.PIPE, text=True,
                          errors='replace') as proc:
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            lines.append(line)
    if a.log:
        with open(a.log, 'w') as f:
            f.writelines(lines)
    print('\n'.join(report(lines, table=True)))
    return proc.returncode


sys.exit(main())
