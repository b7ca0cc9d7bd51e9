#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Man pages from the kernel-doc comments of a C header.

usage: kernel-doc-man.py HEADER [HEADER...] OUTDIR VERSION

Every /** ... */ block followed by a declaration becomes a page: functions
(and documented macros) go to OUTDIR/man3/NAME.3, structs, enums and
typedefs to OUTDIR/man3type/NAME.3type (man 3type NAME), and
OUTDIR/man3/libprealloc.3 gives the overview from the first header's opening
comment.  Further headers (included by the first) add their pages.  A block the parser
does not understand is an error, so a malformed comment fails the build
instead of shipping a broken page.

Comment syntax (the subset of the kernel's kernel-doc the header uses):
    name() - short description            (or: struct name - ..., enum, typedef)
    @param: text, continued on lines indented with a tab
    <blank line>
    free text paragraphs
    Returns: text
    Since: version
Inline: @param, &struct name, &enum name, &name.field, %CONSTANT, func().
"""
import os
import re
import shutil
import sys

SECTION_RE = re.compile(r'^(Returns|Since|Return|Note|Notes):\s*(.*)$')
HEAD_RE = re.compile(r'^(?:(struct|enum|typedef)\s+)?([A-Za-z_]\w*)(\(\))?\s+-\s+(.*)$')


class DocError(Exception):
    pass


def roff_escape(text):
    text = text.replace('\\', '\\e')
    return text


def inline(text):
    """kernel-doc inline markup to roff font changes."""
    text = roff_escape(text)
    text = re.sub(r'&(struct|enum)\s+([A-Za-z_]\w*)', r'\\fB\1 \2\\fR', text)
    text = re.sub(r'&([A-Za-z_][\w.]*\w)', r'\\fB\1\\fR', text)
    text = re.sub(r'(?<!\\)%([A-Za-z_]\w*)', r'\\fB\1\\fR', text)
    text = re.sub(r'@([A-Za-z_]\w*(?:->\w+)*)', r'\\fI\1\\fR', text)
    text = re.sub(r'\b([A-Za-z_]\w*)\(\)', r'\\fB\1\\fR()', text)
    text = re.sub(r'(?<![\w*])\*(\w[\w ]*\w)\*(?![\w*])', r'\\fI\1\\fR', text)
    return minus(text)


def minus(text):
    """Minus signs (-EINVAL, -1, -errno), not hyphens: they must survive copy
    and paste."""
    return re.sub(r'(?<![\w\\-])-(?=[A-Z0-9]|errno)', r'\\-', text)


def para_lines(text):
    """A paragraph as roff lines; a leading dot or quote must not be a request."""
    out = []
    for line in text.split('\n'):
        line = line.strip()
        if line.startswith(('.', "'")):
            line = '\\&' + line
        out.append(line)
    return out


def parse_block(body, decl, lineno, macro=False):
    lines = []
    for raw in body.split('\n'):
        s = raw.strip()
        if s.startswith('*'):
            s = raw.split('*', 1)[1]
            s = s[1:] if s.startswith(' ') else s
        else:
            s = raw
        lines.append(s.rstrip())
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        raise DocError('line %d: empty kernel-doc comment' % lineno)
    m = HEAD_RE.match(lines[0].strip())
    if not m:
        raise DocError('line %d: first line is not "name() - description": %r'
                       % (lineno, lines[0]))
    kind, name, parens, short = m.groups()
    if not kind:
        if not parens:
            raise DocError('line %d: %s: a function name takes "()"' % (lineno, name))
        kind = 'function'
    doc = {'kind': kind, 'name': name, 'short': short, 'params': [],
           'body': [], 'sections': {}, 'decl': decl.strip(), 'line': lineno}
    i = 1
    # Parameters / members: "@name: text" with tab-indented continuations.
    while i < len(lines):
        line = lines[i]
        pm = re.match(r'^@(\w+|\.\.\.):\s*(.*)$', line)
        if pm:
            doc['params'].append([pm.group(1), pm.group(2)])
        elif line.startswith('\t') and doc['params']:
            doc['params'][-1][1] += ' ' + line.strip()
        elif not line.strip():
            if doc['params']:
                i += 1
                break
        else:
            break
        i += 1
    # Free text and sections.
    current = None
    para = []

    def flush():
        if para:
            text = '\n'.join(para)
            if current:
                doc['sections'][current] += ('\n\n' if doc['sections'][current] else '') + text
            else:
                doc['body'].append(text)
            para.clear()

    for line in lines[i:]:
        sm = SECTION_RE.match(line.strip())
        if sm:
            flush()
            current = 'Returns' if sm.group(1) == 'Return' else sm.group(1)
            doc['sections'].setdefault(current, '')
            if sm.group(2):
                para.append(sm.group(2))
        elif not line.strip():
            flush()
            if current in ('Since',):
                current = None
        else:
            para.append(line.strip())
    flush()
    if kind == 'function' and not macro:
        if 'Returns' not in doc['sections'] and not doc['decl'].startswith('void '):
            raise DocError('line %d: %s(): no "Returns:" section' % (lineno, name))
        if 'Since' not in doc['sections']:
            raise DocError('line %d: %s(): no "Since:" section' % (lineno, name))
        declared = re.findall(r'\b(\w+)\s*\(', doc['decl'])
        if name not in declared:
            raise DocError('line %d: comment for %s() precedes a declaration of %s'
                           % (lineno, name, declared[:1]))
        pnames = [p[0] for p in doc['params']]
        decl_params = param_names(doc['decl'], name)
        if pnames != decl_params:
            raise DocError('line %d: %s(): documented parameters %s, declared %s'
                           % (lineno, name, pnames, decl_params))
    return doc


def split_top(text):
    """Split on commas outside parentheses."""
    parts, depth, cur = [], 0, ''
    for c in text:
        if c == '(':
            depth += 1
        elif c == ')':
            depth -= 1
        if c == ',' and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += c
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def param_names(decl, name):
    """Parameter names of function @name in @decl ('...' for varargs)."""
    start = re.search(r'\b%s\s*\(' % re.escape(name), decl).end()
    depth, end = 1, start
    while depth and end < len(decl):
        depth += {'(': 1, ')': -1}.get(decl[end], 0)
        end += 1
    names = []
    for arg in split_top(decl[start:end - 1]):
        if arg in ('void', '...'):
            if arg == '...':
                names.append('...')
            continue
        fp = re.search(r'\(\s*\*\s*(\w+)\s*\)', arg)  # int (*fn)(void *)
        m = fp or re.search(r'(\w+)\s*(?:\[[^]]*\])?\s*$', arg)
        names.append(m.group(1) if m else arg)
    return names


def parse_header(text):
    docs = []
    for m in re.finditer(r'/\*\*(?!\*)(.*?)\*/', text, re.S):
        lineno = text.count('\n', 0, m.start()) + 1
        rest = text[m.end():]
        if rest.lstrip().startswith('#define'):
            # A macro: the #define and its continuation lines; documented like a
            # function (NAME() - ...), without a parameter check.
            lines = []
            for line in rest.lstrip().split('\n'):
                lines.append(line)
                if not line.endswith('\\'):
                    break
            docs.append(parse_block(m.group(1), '\n'.join(lines), lineno, macro=True))
            continue
        # The declaration: up to ';' outside braces.
        depth, end = 0, None
        for j, c in enumerate(rest):
            if c == '{':
                depth += 1
            elif c == '}':
                depth -= 1
            elif c == ';' and depth == 0:
                end = j + 1
                break
        if end is None:
            raise DocError('line %d: no declaration after the comment' % lineno)
        docs.append(parse_block(m.group(1), rest[:end], lineno))
    return docs


def overview(text):
    """The header's first plain comment: title line and paragraphs."""
    # The first multi-line plain comment (a one-line SPDX tag is not it).
    body = next((m.group(1) for m in re.finditer(r'/\*(?!\*)(.*?)\*/', text, re.S)
                 if '\n' in m.group(1)), None)
    if body is None:
        raise DocError('no overview comment at the top of the header')
    lines = [re.sub(r'^\s*\* ?', '', l).rstrip() for l in body.split('\n')]
    while lines and not lines[0]:
        lines.pop(0)
    title = lines[0]
    paras, cur = [], []
    for l in lines[1:]:
        if l:
            cur.append(l)
        elif cur:
            paras.append(' '.join(cur))
            cur = []
    if cur:
        paras.append(' '.join(cur))
    return title, paras


def th(name, section, version):
    return ['.\\" Generated by doc/kernel-doc-man.py from include/prealloc.h; do not edit.',
            '.TH %s %s "" "libprealloc %s" "libprealloc Manual"' % (name.upper(), section, version),
            '.nh']  # identifiers must not be hyphenated


def refs(doc, names):
    """Pages this one points to: types and functions it mentions."""
    text = ' '.join([doc['short'], doc['decl']] + [p[1] for p in doc['params']] +
                    doc['body'] + list(doc['sections'].values()))
    seen = []
    for word in re.findall(r'\b(prealloc_\w+)', text):
        if word in names and word != doc['name'] and word not in seen:
            seen.append(word)
    return seen


def synopsis(decl):
    """@decl as the page shows it: tabs expanded, without PREALLOC_WUR (and
    its width taken off the continuation lines aligned after it)."""
    lines = [l.expandtabs(8) for l in decl.split('\n')]
    m = re.match(r'PREALLOC_WUR\s+', lines[0])
    if not m:
        return '\n'.join(lines)
    cut = m.end()
    return '\n'.join([lines[0][cut:]] + [l[cut:] if l[:cut].isspace() else l for l in lines[1:]])


def render(doc, names, version):
    kind, name = doc['kind'], doc['name']
    section = '3' if kind == 'function' else '3type'
    out = th(name, section, version)
    out += ['.SH NAME', '%s \\- %s' % (name, minus(roff_escape(doc['short'])))]
    out += ['.SH SYNOPSIS', '.nf', '.B #include <prealloc.h>', '.PP']
    for line in synopsis(doc['decl']).split('\n'):
        out.append('\\&' + roff_escape(line))
    out += ['.fi']
    out += ['.SH DESCRIPTION']
    if doc['params']:
        for pname, ptext in doc['params']:
            out += ['.TP', '.I %s' % pname if kind in ('function', 'typedef', 'struct')
                    else '.B %s' % pname]
            out += para_lines(inline(ptext))
        out.append('.PP')
    for i, p in enumerate(doc['body']):
        if i:
            out.append('.PP')
        out += para_lines(inline(p))
    if not doc['params'] and not doc['body']:
        out += para_lines(inline(doc['short']))
    for sec, title in (('Returns', 'RETURN VALUE'), ('Note', 'NOTES'), ('Notes', 'NOTES')):
        if sec in doc['sections']:
            out.append('.SH ' + title)
            for i, p in enumerate(doc['sections'][sec].split('\n\n')):
                if i:
                    out.append('.PP')
                out += para_lines(inline(p))
    if 'Since' in doc['sections']:
        out += ['.SH VERSIONS', 'Since libprealloc %s.' % roff_escape(doc['sections']['Since'].strip())]
    see = ['%s (%s)' % (r, '3' if names[r] == 'function' else '3type') for r in refs(doc, names)]
    see.append('libprealloc (3)')
    out += ['.SH SEE ALSO']
    out += [',\n'.join('.BR ' + s for s in see)]
    return '\n'.join(out) + '\n'


def render_overview(text, docs, version):
    title, paras = overview(text)
    short = title.split(' - ', 1)[-1].replace('*', '')
    out = th('libprealloc', '3', version)
    out += ['.SH NAME', 'libprealloc \\- %s' % roff_escape(short),
            '.SH SYNOPSIS', '.nf', '.B #include <prealloc.h>', '.PP',
            '.B cc ... $(pkg-config \\-\\-cflags \\-\\-libs libprealloc)', '.fi',
            '.SH DESCRIPTION']
    for i, p in enumerate(paras):
        if i:
            out.append('.PP')
        out += para_lines(inline(p))
    for kind, heading in (('function', 'FUNCTIONS'), (None, 'TYPES')):
        out.append('.SH ' + heading)
        for d in docs:
            if (d['kind'] == 'function') == (kind == 'function'):
                sect = '3' if d['kind'] == 'function' else '3type'
                out += ['.TP', '.BR %s (%s)' % (d['name'], sect)]
                out += para_lines(inline(d['short']))
    out += ['.SH SEE ALSO', '.BR libprealloc (7),', '.BR prealloc (1)']
    return '\n'.join(out) + '\n'


def main(argv):
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    headers, outdir, version = argv[1:-2], argv[-2], argv[-1]
    docs, names, first = [], {}, None
    for header in headers:
        with open(header, encoding='utf-8') as f:
            text = f.read()
        first = first or text
        try:
            more = parse_header(text)
        except DocError as e:
            sys.stderr.write('%s: %s\n' % (header, e))
            return 1
        for d in more:
            if d['name'] in names:
                sys.stderr.write('%s: %s documented twice\n' % (header, d['name']))
                return 1
            names[d['name']] = d['kind']
        docs += more
    header, text = headers[0], first
    for sub in ('man3', 'man3type'):  # only ours: OUTDIR holds other files
        path = os.path.join(outdir, sub)
        if os.path.isdir(path):
            shutil.rmtree(path)
        os.makedirs(path)
    for d in docs:
        sub, ext = ('man3', '3') if d['kind'] == 'function' else ('man3type', '3type')
        with open(os.path.join(outdir, sub, '%s.%s' % (d['name'], ext)), 'w',
                  encoding='utf-8') as f:
            f.write(render(d, names, version))
    try:
        page = render_overview(text, docs, version)
    except DocError as e:
        sys.stderr.write('%s: %s\n' % (header, e))
        return 1
    with open(os.path.join(outdir, 'man3', 'libprealloc.3'), 'w', encoding='utf-8') as f:
        f.write(page)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
