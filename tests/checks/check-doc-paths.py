#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every path of the tree that a document names exists.

Reads the Markdown files and man pages of the tree (not the run history in
tests/bench/results/, which records the tree as it was) and checks each
path that starts at a top-level folder of ours ("src/call/api.c",
"tests/vm/") and each relative Markdown link.  A path with a wildcard must
match something; one with a placeholder in capitals ("examples/DATABASE/")
is left alone, as are paths under a build directory.

usage: check-doc-paths.py SOURCE_ROOT
"""
import glob
import os
import re
import sys

TOP = ('src', 'base', 'probes', 'include', 'examples', 'tests', 'doc',
       'fuzz', 'bindings', 'debian', '.ci', 'cmake')
PATH = re.compile(r'(?<![\w./$~-])((?:%s)/[\w.*+/-]*)' %
                  '|'.join(re.escape(t) for t in TOP))
LINK = re.compile(r'\]\(([^)#\s]+)(?:#[^)]*)?\)')
SKIP = ('tests/bench/results', 'build', '.git')
# Made at run time, not kept in the tree.
MADE = ('tests/vm/.cache',)
# Programs are named by their source: tests/fs/test-exec is tests/fs/test-exec.c.
SOURCES = ('', '.c', '.cc', '.sh', '.py')


def documents(root):
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs[:] = [x for x in dirs
                   if os.path.normpath(os.path.join(rel, x)) not in SKIP
                   and not x.startswith(('build', '.git', 'target'))]
        for f in files:
            if f.endswith('.md') or re.search(r'\.[1-8]$', f):
                yield os.path.join(d, f)


def placeholder(path):
    """A word in capitals stands for any name: method_NAME.c, DATE-NAME.json."""
    return re.search(r'(^|[/_.-])(?!README|HACKING|RESULTS|LICENSE)[A-Z]{3,}', path)


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
    for doc in sorted(documents(root)):
        with open(doc, encoding='utf-8') as f:
            text = f.read()
        rel = os.path.relpath(doc, root)
        for n, line in enumerate(text.split('\n'), 1):
            for m in PATH.finditer(line):
                if not exists(root, m.group(1)):
                    stale.append('%s:%d: %s' % (rel, n, m.group(1)))
            if not rel.endswith('.md'):
                continue
            for m in LINK.finditer(line):
                target = m.group(1)
                if re.match(r'[a-z]+:', target):
                    continue
                path = os.path.relpath(os.path.join(os.path.dirname(doc), target), root)
                if not exists(root, path):
                    stale.append('%s:%d: link %s' % (rel, n, target))
    for s in stale:
        print(s, file=sys.stderr)
    print('%d stale path(s)' % len(stale))
    return 1 if stale else 0


if __name__ == '__main__':
    sys.exit(main())
