# SPDX-License-Identifier: MIT
"""Markdown tables of the reports."""


def f(v, fmt='%.1f'):
    return '-' if v is None else fmt % v


def table(header, rows):
    lines = ['| ' + ' | '.join(header) + ' |', '|' + '---|' * len(header)]
    lines += ['| ' + ' | '.join(r) + ' |' for r in rows]
    return '\n'.join(lines)
