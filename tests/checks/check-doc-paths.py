#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every path of the tree that a document names exists.

Reads the Markdown files and man pages of the tree (the files git lists, or
without git every such file outside build trees; not the run history in
tests/bench/results/, which records the tree as it was, but its index) and
checks each
path that starts at a top-level folder of ours ("src/call/api.c",
"tests/vm/"; in a man page as roff writes it, "zeroing\\-plan.c") and each
relative Markdown link, with the heading its #anchor names in a Markdown
file.  A path with a wildcard must match something; one with a placeholder
in capitals ("examples/DATABASE/") is left alone, as are paths under a
build directory.

usage: check-doc-paths.py SOURCE_ROOT
"""
import glob
import os
import re
import subprocess
import sys

TOP = ('src', 'base', 'probes', 'include', 'examples', 'tests', 'doc',
       'fuzz', 'bindings', 'debian', '.ci', 'cmake')
# A link's target is relative to its file, and checked as a link.
PATH = re.compile(r'(?<![\w./$~-])(?<!\]\()((?:%s)/[\w.*+/-]*)' %
                  '|'.join(re.escape(t) for t in TOP))
LINK = re.compile(r'\]\(([^)#\s]*)(?:#([^)\s]*))?\)')
HEADING = re.compile(r'^#{1,6}\s+(.*?)\s*#*\s*$')
SKIP = ('tests/bench/results/',)
KEEP = ('tests/bench/results/README.md',)
# Build trees: meson's, dpkg-buildpackage's, cargo's, the guests' cache.
BUILT = ('build', 'obj-', '.git', 'target', '.cache')
# Made at run time, not kept in the tree.
MADE = ('tests/vm/.cache',)
# Programs are named by their source: tests/fs/test-exec is tests/fs/test-exec.c.
SOURCES = ('', '.c', '.cc', '.sh', '.py')


def is_document(path):
    return path.endswith('.md') or re.search(r'\.[1-8]$', path)


def listed(root):
    """The tree's files as git lists them, or None outside a checkout."""
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files', '-z'], capture_output=True,
                             check=True).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        return None
    return [p for p in out.split('\0') if p]


def documents(root):
    files = listed(root)
    if files is None:
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(BUILT)]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
        # debian/'s folders are dpkg-buildpackage's staging trees.
        files = [f for f in files if not f.startswith('debian/') or f.count('/') == 1]
    for f in sorted(files):
        if is_document(f) and (f in KEEP or not f.startswith(SKIP)):
            yield os.path.join(root, f)


def placeholder(path):
    """A word in capitals stands for any name: method_NAME.c, DATE-NAME.json."""
    return re.search(r'(^|[/_.-])(?!README|HACKING|RESULTS|LICENSE)[A-Z]{3,}', path)


def anchors(path):
    """The anchors GitHub gives a Markdown file's headings: lower case,
    punctuation but hyphens and underscores dropped, spaces as hyphens, a
    repeated one numbered."""
    seen, fenced = {}, False
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            if line.startswith('```'):
                fenced = not fenced
            m = None if fenced else HEADING.match(line)
            if m:
                a = re.sub(r'[^\w\- ]', '', m.group(1).lower()).replace(' ', '-')
                seen[a] = seen.get(a, -1) + 1
                yield a if seen[a] == 0 else '%s-%d' % (a, seen[a])


def exists(root, path):
    path = path.rstrip('.,:;')
    full = os.path.join(root, path)
    if any(c in path for c in '*?['):
        return bool(glob.glob(full))
    return (any(os.path.exists(full + s) for s in SOURCES)
            or path.startswith(MADE) or placeholder(path))


def main():
    root = os.path.abspath(sys.argv[1])
    stale = []
    for doc in documents(root):
        with open(doc, encoding='utf-8', errors='replace') as f:
            text = f.read()
        rel = os.path.relpath(doc, root)
        if not rel.endswith('.md'):
            text = text.replace('\\-', '-')
        for n, line in enumerate(text.split('\n'), 1):
            for m in PATH.finditer(line):
                if not exists(root, m.group(1)):
                    stale.append('%s:%d: %s' % (rel, n, m.group(1)))
            if not rel.endswith('.md'):
                continue
            for m in LINK.finditer(line):
                target, anchor = m.group(1), m.group(2)
                if re.match(r'[a-z]+:', target):
                    continue
                path = os.path.relpath(os.path.join(os.path.dirname(doc), target), root) \
                    if target else rel
                if not exists(root, path):
                    stale.append('%s:%d: link %s' % (rel, n, target))
                elif anchor and path.endswith('.md') and \
                        anchor not in anchors(os.path.join(root, path)):
                    stale.append('%s:%d: link %s#%s: no such heading' % (rel, n, target, anchor))
    for s in stale:
        print(s, file=sys.stderr)
    print('%d stale path(s)' % len(stale))
    return 1 if stale else 0


if __name__ == '__main__':
    sys.exit(main())
