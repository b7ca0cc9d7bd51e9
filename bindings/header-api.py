#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The public API's data, read from the installed headers: every struct and
its fields, every enum and its values, every numeric PREALLOC_ constant.
The bindings' tests compare themselves with this list, so a field or value
added to <prealloc.h>, <prealloc-pool.h> or <prealloc-common.h> without
being added to a binding fails its test.

usage: header-api.py [--cflags FLAGS] --list | --c | --values | --rust

The headers are the ones the C compiler finds for #include <prealloc.h>
with FLAGS (pkg-config --cflags libprealloc): their paths are taken from the
preprocessor's line markers, so the list is of the header a build uses.
  --list    one item a line: "struct S", "field S F", "alias S F PRIMARY"
            (F is another name of PRIMARY: an anonymous union of the two),
            "enum E", "value E V", "const C"
  --c       a C table of every struct's size, every field's offset and size,
            every value (prealloc-sys's layout test compiles it)
  --values  that table compiled and run: "NAME NUMBER" lines
  --rust    the same table from Rust declarations (prealloc-sys)
Names in the tables: "sizeof S", "S.F" (offset), "sizeof S.F", "V".
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

HEADERS = ('prealloc.h', 'prealloc-pool.h', 'prealloc-common.h')
# Macros that are not values of the API.
NOT_CONSTS = {'PREALLOC_WUR', 'PREALLOC_ANON_UNION'}


def cc():
    return shlex.split(os.environ.get('CC', 'cc'))


def find_headers(cflags):
    out = subprocess.run(cc() + cflags + ['-E', '-x', 'c', '-'], input='#include <prealloc.h>\n',
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    paths = {}
    for m in re.finditer(r'^# \d+ "([^"]+)"', out, re.M):
        base = os.path.basename(m.group(1))
        if base in HEADERS:
            paths.setdefault(base, m.group(1))
    missing = [h for h in HEADERS if h not in paths]
    if missing:
        sys.exit('header-api.py: the compiler did not read %s' % ', '.join(missing))
    return [paths[h] for h in HEADERS]


def strip_comments(text):
    return re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)


def split_members(body):
    """Top-level ';'-separated members of a struct body; an anonymous union's
    members come back as one list."""
    out, depth, cur = [], 0, ''
    for c in body:
        if c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
        if c == ';' and depth == 0:
            if cur.strip():
                out.append(cur.strip())
            cur = ''
        else:
            cur += c
    return out


def member_name(decl):
    m = re.search(r'\(\s*\*\s*(\w+)\s*\)', decl) or re.search(r'(\w+)\s*(?:\[[^]]*\])?\s*$', decl)
    if not m:
        raise ValueError('cannot read the member %r' % decl)
    return m.group(1)


def parse(paths):
    items = []
    for path in paths:
        with open(path, encoding='utf-8') as f:
            text = strip_comments(f.read())
        for m in re.finditer(r'\b(struct|enum)\s+(prealloc_\w+)\s*\{(.*?)\}\s*;', text, re.S):
            kind, name, body = m.groups()
            if kind == 'enum':
                items.append(('enum', name))
                for v in body.split(','):
                    v = v.strip()
                    if v:
                        items.append(('value', name, re.match(r'\w+', v).group(0)))
                continue
            # A struct: its body again, with nested braces (the union).
            start = m.start(3)
            depth, end = 1, start
            while depth:
                depth += {'{': 1, '}': -1}.get(text[end], 0)
                end += 1
            items.append(('struct', name))
            for decl in split_members(text[start:end - 1]):
                u = re.match(r'(?:PREALLOC_ANON_UNION|(?:__extension__\s+)?union)\s*\{(.*)\}$',
                             decl, re.S)
                if u:
                    names = [member_name(d) for d in split_members(u.group(1))]
                    items.append(('field', name, names[0]))
                    items += [('alias', name, n, names[0]) for n in names[1:]]
                else:
                    items.append(('field', name, member_name(decl)))
        for m in re.finditer(r'^#define\s+(PREALLOC_\w+)[ \t]+(\S[^\n]*)$', text, re.M):
            if m.group(1) not in NOT_CONSTS and re.match(r'[(\d]', m.group(2)):
                items.append(('const', m.group(1)))
    return items


def entries(items):
    """(table name, C expression, Rust expression) for every item."""
    out = []
    for it in items:
        if it[0] == 'struct':
            out.append(('sizeof ' + it[1], 'sizeof(struct %s)' % it[1], 'size_of::<%s>()' % it[1]))
        elif it[0] in ('field', 'alias'):
            s, f = it[1], it[2]
            rf = it[3] if it[0] == 'alias' else f  # Rust has one name: the primary
            out.append(('%s.%s' % (s, f), 'offsetof(struct %s, %s)' % (s, f),
                        'offset_of!(%s, %s)' % (s, rf)))
            out.append(('sizeof %s.%s' % (s, f), 'sizeof(((struct %s *)0)->%s)' % (s, f),
                        'field_size(|s: &%s| &s.%s)' % (s, rf)))
        elif it[0] in ('value', 'const'):
            n = it[-1]
            out.append((n, '(unsigned long long)(%s)' % n, n))
    return out


def c_table(items):
    lines = ['/* Generated by bindings/header-api.py from the installed headers. */',
             '#include <stddef.h>', '#include <prealloc.h>', '',
             'struct pa_layout_entry {', '\tconst char *name;', '\tunsigned long long value;',
             '};', '', 'static const struct pa_layout_entry entries[] = {']
    lines += ['\t{ "%s", %s },' % (n, c) for n, c, _ in entries(items)]
    lines += ['};', '',
              'const struct pa_layout_entry *prealloc_sys_layout(size_t *count);',
              'const struct pa_layout_entry *prealloc_sys_layout(size_t *count)', '{',
              '\t*count = sizeof(entries) / sizeof(entries[0]);', '\treturn entries;', '}']
    return '\n'.join(lines) + '\n'


def rust_table(items):
    lines = ['// Generated by bindings/header-api.py from the installed headers.',
             'fn from_rust() -> BTreeMap<String, u64> {', '    let mut t = BTreeMap::new();']
    lines += ['    t.insert("%s".to_owned(), (%s) as u64);' % (n, r) for n, _, r in entries(items)]
    lines += ['    t', '}']
    return '\n'.join(lines) + '\n'


def values(items, cflags):
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, 't.c'), os.path.join(tmp, 't')
        with open(src, 'w') as f:
            f.write(c_table(items) + '\n#include <stdio.h>\nint main(void)\n{\n'
                    '\tsize_t n;\n\tconst struct pa_layout_entry *e = prealloc_sys_layout(&n);\n\n'
                    '\tfor (size_t i = 0; i < n; i++)\n'
                    '\t\tprintf("%s %llu\\n", e[i].name, e[i].value);\n\treturn 0;\n}\n')
        subprocess.run(cc() + cflags + ['-o', exe, src], check=True)
        return subprocess.run([exe], stdout=subprocess.PIPE, text=True, check=True).stdout


def main(argv):
    cflags, mode = [], None
    args = argv[1:]
    while args:
        a = args.pop(0)
        if a == '--cflags' and args:
            cflags = shlex.split(args.pop(0))
        elif a in ('--list', '--c', '--values', '--rust'):
            mode = a
        else:
            mode = None
            break
    if not mode:
        sys.stderr.write(__doc__)
        return 2
    items = parse(find_headers(cflags))
    if mode == '--list':
        sys.stdout.write(''.join(' '.join(it) + '\n' for it in items))
    elif mode == '--c':
        sys.stdout.write(c_table(items))
    elif mode == '--rust':
        sys.stdout.write(rust_table(items))
    else:
        sys.stdout.write(values(items, cflags))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
