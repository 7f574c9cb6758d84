#!/usr/bin/env python3
"""Checks that the documentation points at things that exist. In every .md file of the
project (build trees and hidden folders left out):

  - a relative link or image, [text](path) or [text](path#anchor), names an existing file,
    and an anchor names a heading of that file (GitHub's rule: lower case, punctuation
    dropped, spaces as '-');
  - a path in backquotes that starts at the top of the project (`src/core/p2p.c`,
    `tests/structure/`) or at src/ (`core/p2p.c`) names an existing file or folder;
    `{a,b}` alternatives and `*` are expanded, and a path without an extension may name a
    .c or .h file (`core/wan_stats` for the pair).

One line per broken reference (file:line: what), exit status 1 when there is any.

Usage: check_links.py [--root DIR] [--self-test]
"""
import argparse
import glob
import os
import re
import sys
import tempfile

LINK_RE = re.compile(r'!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')
CODE_RE = re.compile(r'`([^`\s]+)`')
FENCE_RE = re.compile(r'^\s*(```|~~~)')
HEADING_RE = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
BRACES_RE = re.compile(r'\{([^{}]*)\}')
# where a backquoted path starts: the project's top-level folders that are in the repository
TOP = ('src', 'tests', 'docs', 'bench', 'examples', 'scripts', 'include')


def markdown_files(root):
    out = []
    for d, subdirs, files in os.walk(root):
        subdirs[:] = sorted(s for s in subdirs if not s.startswith('.') and
                            not os.path.exists(os.path.join(d, s, 'CMakeCache.txt')))
        out.extend(os.path.join(d, f) for f in sorted(files) if f.endswith('.md'))
    return out


def slug(heading):
    """GitHub's anchor of a heading."""
    text = re.sub(r'`|\*\*|__', '', heading).strip().lower()
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)
    text = ''.join(c for c in text if c.isalnum() or c in ' -_')
    return text.replace(' ', '-')


def anchors(path, cache):
    if path not in cache:
        found, count = set(), {}
        in_fence = False
        with open(path, encoding='utf-8') as f:
            for line in f:
                if FENCE_RE.match(line):
                    in_fence = not in_fence
                    continue
                m = None if in_fence else HEADING_RE.match(line)
                if m:
                    s = slug(m.group(2))
                    n = count.get(s, 0)
                    count[s] = n + 1
                    found.add(s if n == 0 else '%s-%d' % (s, n))
        cache[path] = found
    return cache[path]


def expand(path):
    m = BRACES_RE.search(path)
    if not m:
        return [path]
    out = []
    for alt in m.group(1).split(','):
        out.extend(expand(path[:m.start()] + alt + path[m.end():]))
    return out


def path_exists(root, path):
    for p in expand(path):
        full = os.path.join(root, p.rstrip('/'))
        if '*' in p:
            if not glob.glob(full):
                return False
        elif not (os.path.exists(full) or
                  (not os.path.splitext(p)[1] and not p.endswith('/') and
                   (os.path.exists(full + '.c') or os.path.exists(full + '.h')))):
            return False
    return True


def repository_paths(root, md, token):
    """The paths (relative to root) a backquoted token may name, or [] when it is no path of
    the repository (a command, a build-tree path, a word with a slash). A path that does not
    start at the top may be relative to the .md file, to its top folder or to src/."""
    token = token.rstrip('.,;:)')
    if token.startswith('./'):
        return []
    if not re.fullmatch(r'[A-Za-z0-9_.{},*/-]+', token) or '/' not in token:
        return []
    first = token.split('/', 1)[0]
    if first in TOP:
        return [token]
    if not first or not os.path.isdir(os.path.join(root, 'src', first)):
        return []
    here = os.path.relpath(os.path.dirname(md), root)
    top = here.split(os.sep)[0]
    return [os.path.normpath(os.path.join(d, token)) for d in (here, top) if d != '.'] + \
        ['src/' + token]


def check(root):
    problems = []
    cache = {}
    for md in markdown_files(root):
        rel = os.path.relpath(md, root)
        in_fence = False
        with open(md, encoding='utf-8') as f:
            lines = f.readlines()
        for no, line in enumerate(lines, 1):
            if FENCE_RE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            for target in LINK_RE.findall(line):
                if re.match(r'[a-z][a-z0-9+.-]*:', target):   # http:, https:, mailto:
                    continue
                file_part, _, anchor = target.partition('#')
                dest = os.path.normpath(os.path.join(os.path.dirname(md), file_part)) \
                    if file_part else md
                if not os.path.exists(dest):
                    problems.append('%s:%d: link to %s: no such file' % (rel, no, file_part))
                elif anchor and dest.endswith('.md') and anchor not in anchors(dest, cache):
                    problems.append('%s:%d: link to %s: no heading with the anchor #%s'
                                    % (rel, no, target, anchor))
            for token in CODE_RE.findall(line):
                paths = repository_paths(root, md, token)
                if paths and not any(path_exists(root, p) for p in paths):
                    problems.append('%s:%d: `%s`: no such file or folder in the repository'
                                    % (rel, no, token))
    return problems


def self_test():
    files = {
        'src/core/p2p.c': '', 'src/core/p2p.h': '', 'docs/a.md': '# Title\n## The `x` part\n',
        'bench/core/prog.c': '', 'bench/README.md': '`core/prog.c` `core/p2p.c`\n',
        'docs/b.md': ('[ok](a.md) [ok](a.md#title) [ok](a.md#the-x-part) [ok](#b)\n'
                      '# B\n'
                      '`src/core/p2p.c` `core/p2p.{h,c}` `core/p2p` `src/core/` `core/*.c`\n'
                      '`build/x/y` `./run` `send/receive` `https://x/y`\n'
                      '```\n[not a link](nowhere.md) `src/none.c`\n```\n'
                      '[bad](c.md) [bad](a.md#nope) `src/core/gone.c` `core/p2p.{h,x}`\n'),
    }
    want = ['docs/b.md:8: link to c.md: no such file',
            'docs/b.md:8: link to a.md#nope: no heading with the anchor #nope',
            'docs/b.md:8: `src/core/gone.c`: no such file or folder in the repository',
            'docs/b.md:8: `core/p2p.{h,x}`: no such file or folder in the repository']
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in files.items():
            p = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, 'w') as f:
                f.write(text)
        got = check(tmp)
    ok = got == want
    if not ok:
        print('self-test: expected\n  %s\ngot\n  %s' % ('\n  '.join(want), '\n  '.join(got)))
    print('self-test: %s' % ('ok' if ok else 'FAILED'))
    return 0 if ok else 1


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--root', default=os.path.dirname(os.path.dirname(here)))
    ap.add_argument('--self-test', action='store_true')
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    problems = check(a.root)
    for p in problems:
        print(p)
    if problems:
        print('%d broken reference%s in the documentation'
              % (len(problems), '' if len(problems) == 1 else 's'))
        return 1
    print('documentation of %s: every link and path exists' % a.root)
    return 0


if __name__ == '__main__':
    sys.exit(main())
