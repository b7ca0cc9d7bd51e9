#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The benchmarks' reports, without running a benchmark: the statistics on
known numbers, the guest report of a saved console (testdata/), and the
full reports' tables against the raw results they were copied from: each
run's report (results/DATE-NAME.md, linked from RESULTS.md's summary) sits
beside its raw results (results/DATE-NAME.json, .jsonl, .log.xz), and a
table there that its raw file no longer gives fails here."""
import io
import json
import os
import re
import shlex
import sys
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from preallocbench import calls, etcd, guest, pgbench, stats  # noqa: E402
from preallocbench.cli import parse_args  # noqa: E402
from preallocbench.report import report  # noqa: E402


def path(*p):
    return os.path.join(HERE, *p)


def table_rows(text):
    return [line for line in text.split('\n') if line.startswith('| ') and '---' not in line]


class Stats(unittest.TestCase):
    def test_ab_table(self):
        runs = [{'round': r, 'arm': a, 'x': x, 'n': 3}
                for r, a, x in [(1, 's', 2.0), (1, 'e', 1.0), (2, 'e', 3.0), (2, 's', 3.0),
                                (3, 's', 9.0)]]
        pairs = stats.round_pairs(runs, 'arm', 's', 'e')
        self.assertEqual(len(pairs), 2)
        table = stats.ab_table(pairs, 's', 'e', [('x', 'x', '{:.1f}'.format, True),
                                                 ('n', 'n', '{:.0f}'.format, False)])
        self.assertEqual(table.split('\n')[2:], [
            '| s (median of 2) | 2.5 | 3 |', '| e (median of 2) | 2.0 | 3 |',
            '| e / s, median [IQR] of per-round ratios | 0.75 [0.62, 0.88] |  |'])

    def test_paired(self):
        runs = {'a': [{'error': 0, 'x': 2.0}, {'error': 0, 'x': 3.0}, {'error': 1, 'x': 9.0}],
                'b': [{'error': 0, 'x': 1.0}, {'error': 0, 'x': 1.0}, {'error': 0, 'x': 1.0}]}
        self.assertEqual(stats.paired_all(runs, 'a', 'b', 'x'), [2.0, 3.0])
        self.assertEqual(stats.paired(runs, 'a', 'b', 'x'), 2.5)
        self.assertEqual(stats.iqr(runs, 'a', 'b', 'x'), [2.25, 2.75])
        self.assertEqual(stats.med(runs['a'], 'x'), 2.5)

    def test_median_iqr(self):
        self.assertEqual(stats.median_iqr([]), '-')
        self.assertEqual(stats.median_iqr([1.234]), '1.23')
        self.assertEqual(stats.median_iqr([1, 2, 3, 4, 5]), '3.00 [2.00, 4.00]')


def report_text(name):
    """The report results/NAME, where RESULTS.md links a run's tables."""
    with open(path('results', name)) as f:
        return f.read()


class Reports(unittest.TestCase):
    def assert_in_report(self, text, name):
        rows = table_rows(text)
        self.assertTrue(rows)
        report_md = report_text(name)
        for row in rows:
            self.assertIn(row, report_md)

    def test_linked(self):
        """Every report checked below is linked from RESULTS.md."""
        with open(path('RESULTS.md')) as f:
            results = f.read()
        for name in ('2026-11-27-seeds-7.3.md', '2026-11-27-zero.md', '2026-11-27-cache.md',
                     '2026-11-27-bg.md', '2026-11-27-etcd.md', '2026-11-27-pgbench.md',
                     '2026-11-27-pgbench-ahead2.md', '2026-12-06-call.md'):
            self.assertIn('](results/%s)' % name, results)

    def test_guest(self):
        with open(path('testdata', 'guest-console.log')) as f:
            got = guest.report(f)
        with open(path('testdata', 'guest-report.txt')) as f:
            self.assertEqual(got, f.read().rstrip('\n').split('\n'))

    def test_seeds_7_3(self):
        for name in ('2026-11-27-seeds-7.3-1cpu.log.xz', '2026-11-27-seeds-7.3-2cpu.log.xz'):
            trials = guest.parse(guest.read_console(path('results', name)))[1]
            self.assert_in_report('\n'.join(guest.ratio_table(trials)[2:]),
                                  '2026-11-27-seeds-7.3.md')

    def run_bench_report(self, name):
        with open(path('results', name)) as f:
            results = json.load(f)
        return report(parse_args(shlex.split(results['command'])[1:]), results)

    def test_zero(self):
        md = self.run_bench_report('2026-11-27-zero.json')
        direct = re.findall(r'\| method \| MiB/s \(IQR\).*?\n\n', md, re.S)
        self.assertEqual(len(direct), 2)
        for t in direct:
            self.assert_in_report(t, '2026-11-27-zero.md')

    def test_cache(self):
        md = self.run_bench_report('2026-11-27-cache.json')
        self.assert_in_report(md.split('### Page cache after a call')[1], '2026-11-27-cache.md')

    def test_background(self):
        md = self.run_bench_report('2026-11-27-bg.json')
        report_md = report_text('2026-11-27-bg.md')
        for row in ('| ext4 | mq-deadline | background-aio | 1.32 (1.10-1.72) |',
                    '| xfs | bfq | background (uring) | 1.18 (1.05-1.37) |'):
            self.assertIn(row, report_md)
        self.assertIn('| background-aio | 1.32 | 1.10-1.72 |', md)
        self.assertIn('| background | 1.18 | 1.05-1.37 |', md)

    def test_etcd(self):
        for name in ('2026-11-27-etcd.jsonl', '2026-11-27-etcd-seq-s.jsonl',
                     '2026-11-27-etcd-quiet.jsonl', '2026-11-27-etcd-quiet-l.jsonl'):
            out = io.StringIO()
            with redirect_stdout(out):
                etcd.report(path('results', name))
            self.assert_in_report(out.getvalue(), '2026-11-27-etcd.md')

    def test_call(self):
        with open(path('results', '2026-12-06-call.jsonl')) as f:
            lines = [json.loads(line) for line in f]
        self.assert_in_report(calls.report([r for r in lines if 'round' in r], lines[0]),
                              '2026-12-06-call.md')

    def test_pgbench(self):
        for name in ('2026-11-27-pgbench.jsonl', '2026-11-27-pgbench-ahead2.jsonl'):
            self.assert_in_report('\n'.join(pgbench.report(path('results', name))),
                                  name.replace('.jsonl', '.md'))


if __name__ == '__main__':
    unittest.main()
