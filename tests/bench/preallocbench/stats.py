# SPDX-License-Identifier: MIT
"""Paired-run statistics: medians, and per-run ratios with their IQRs.

Contenders run alternating (the order rotates every run), so the ratio of two
contenders' results within one run cancels the machine's drift better than a
ratio of medians.
"""
import statistics


def med(samples, key):
    v = [s[key] for s in samples if s.get('error') == 0 and s.get(key) is not None]
    return statistics.median(v) if v else None


def paired_all(samples, m, ref, key):
    """Per-run ratios samples[m][r][key] / samples[ref][r][key]: each run's
    contenders ran close together, so the ratio cancels the machine's drift
    better than a ratio of medians."""
    out = []
    for s, t in zip(samples.get(m, []), samples.get(ref, [])):
        if s.get('error') == 0 and t.get('error') == 0 and s.get(key) and t.get(key):
            out.append(s[key] / t[key])
    return out


def paired(samples, m, ref, key):
    v = paired_all(samples, m, ref, key)
    return statistics.median(v) if v else None


def iqr(samples, m, ref, key):
    v = paired_all(samples, m, ref, key)
    if len(v) < 2:
        return None
    q = statistics.quantiles(v, n=4, method='inclusive')
    return [q[0], q[2]]


def median_iqr(v):
    """'median [q1, q3]' of @v, for the tables of per-round ratios."""
    if len(v) < 2:
        return '%.2f' % v[0] if v else '-'
    q = statistics.quantiles(v, n=4, method='inclusive')
    return '%.2f [%.2f, %.2f]' % (statistics.median(v), q[0], q[2])


def round_pairs(runs, arm_key, a, b):
    """The rounds of @runs (dicts with 'round' and @arm_key) that hold both
    arms @a and @b, in round order, each as {arm: run}."""
    by = {}
    for r in runs:
        by.setdefault(r['round'], {})[r[arm_key]] = r
    return [v for _, v in sorted(by.items()) if a in v and b in v]


def ab_table(pairs, a, b, columns):
    """A markdown table of two arms: each arm's medians, then the median
    [IQR] of the per-round ratios @b / @a.  @columns: (field, label, fmt,
    ratio), fmt a function of the median, ratio False for a column shown
    without one (a count)."""
    med = lambda arm, k: statistics.median(p[arm][k] for p in pairs)
    rows = ['| | ' + ' | '.join(c[1] for c in columns) + ' |',
            '|---|' + '---|' * len(columns)]
    for arm in (a, b):
        rows.append('| %s (median of %d) | ' % (arm, len(pairs)) +
                    ' | '.join(c[2](med(arm, c[0])) for c in columns) + ' |')
    rows.append('| %s / %s, median [IQR] of per-round ratios | ' % (b, a) +
                ' | '.join(median_iqr([p[b][c[0]] / p[a][c[0]] for p in pairs if p[a][c[0]]])
                           if c[3] else '' for c in columns) + ' |')
    return '\n'.join(rows)
