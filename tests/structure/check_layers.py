#!/usr/bin/env python3
"""Checks the structure of src/ against the rules in src/layers.txt (the rules live there,
as data, and nowhere else):

  - every `#include "..."` of a file goes to its own layer or to a layer its layer may use,
    and `#include <mpi.h>` only from the layers that know MPI;
  - no circle between files (an include circle between headers, or .c files that use each
    other's functions, found with nm in the object files of a build) except inside one
    declared module;
  - no source file longer than the limit, except the known long files, which may only
    shrink.

Known exceptions are listed in the data; one that no longer applies is an error too, so the
lists only shrink. One line per problem (file:line: what), exit status 1 when there is any.

Usage: check_layers.py [--src DIR] [--rules FILE] [--objects BUILD_DIR]
       check_layers.py --self-test
Without --objects the circle check covers the include graph only.
"""
import argparse
import fnmatch
import os
import re
import subprocess
import sys
import tempfile

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_EXTS = ('.c', '.h')


class Rules:
    def __init__(self):
        self.layers = {}        # name -> set of layers it may use
        self.dirs = []          # (dir prefix, layer), longest first
        self.search = []        # include directories besides the including file's and src/
        self.mpi_layers = set()
        self.modules = []       # (name, [globs])
        self.circles = []       # (line, set of files): known circles still to be broken
        self.lines_max = None
        self.long_files = {}    # path -> lines allowed
        self.exceptions = {}    # (file, header) -> line of the rule
        self.origin = {}        # rule key -> line number in the rules file


def parse_rules(path):
    r = Rules()
    errors = []
    with open(path, encoding='utf-8') as f:
        for no, raw in enumerate(f, 1):
            line = raw.split('#', 1)[0].strip()
            if not line:
                continue
            words = line.split()
            kw, args = words[0], words[1:]
            where = '%s:%d' % (path, no)
            if kw == 'layer':
                if ':' not in args or args.index(':') < 2:
                    errors.append('%s: expected "layer NAME DIR... : USES..."' % where)
                    continue
                colon = args.index(':')
                name, dirs, uses = args[0], args[1:colon], args[colon + 1:]
                if name in r.layers:
                    errors.append('%s: layer %s declared twice' % (where, name))
                r.layers[name] = set(uses)
                r.origin[('layer', name)] = no
                for d in dirs:
                    r.dirs.append((d.rstrip('/') + '/', name))
            elif kw == 'search':
                r.search.extend(args)
            elif kw == 'mpi.h':
                r.mpi_layers.update(args)
            elif kw == 'module' and len(args) >= 2:
                r.modules.append((args[0], args[1:]))
            elif kw == 'circle' and args:
                r.circles.append((no, set(args)))
            elif kw == 'circle+' and args and r.circles:
                r.circles[-1][1].update(args)
            elif kw == 'lines-max' and len(args) == 1 and args[0].isdigit():
                r.lines_max = int(args[0])
            elif kw == 'long-file' and len(args) == 2 and args[1].isdigit():
                r.long_files[args[0]] = int(args[1])
                r.origin[('long-file', args[0])] = no
            elif kw == 'exception' and len(args) == 2:
                r.exceptions[(args[0], args[1])] = no
            else:
                errors.append('%s: cannot read "%s"' % (where, line))
    for name, uses in r.layers.items():
        for u in uses:
            if u not in r.layers:
                errors.append('%s:%d: layer %s uses an undeclared layer %s'
                              % (path, r.origin[('layer', name)], name, u))
    for l in r.mpi_layers:
        if l not in r.layers:
            errors.append('%s: mpi.h names an undeclared layer %s' % (path, l))
    r.dirs.sort(key=lambda d: -len(d[0]))
    cycle = find_cycle({n: sorted(u & set(r.layers)) for n, u in r.layers.items()})
    if cycle:
        errors.append('%s: the layers use each other in a circle: %s (then none is above the '
                      'other)' % (path, ' -> '.join(cycle)))
    return r, errors


def reaches(rules, a, b):
    """Whether layer a reaches layer b through the uses of the rules (a is above b)."""
    seen, todo = set(), [a]
    while todo:
        n = todo.pop()
        for u in rules.layers.get(n, ()):
            if u == b:
                return True
            if u not in seen:
                seen.add(u)
                todo.append(u)
    return False


def layer_of(rules, rel):
    for d, name in rules.dirs:
        if rel.startswith(d):
            return name
    return None


def source_files(root):
    """Paths (relative to root's parent, e.g. src/core/comm.c) of every .c and .h under root."""
    base = os.path.dirname(os.path.abspath(root))
    out = []
    for d, subdirs, files in os.walk(root):
        subdirs.sort()
        for f in sorted(files):
            if f.endswith(SOURCE_EXTS):
                out.append(os.path.relpath(os.path.join(d, f), base))
    return base, out


def resolve(base, rel, name, rules, src_dir):
    """The file an #include "name" in rel means, as the compiler finds it: beside rel, then
    under src/, then in the search directories; a list of all candidates in that order."""
    here = os.path.normpath(os.path.join(os.path.dirname(rel), name))
    if os.path.isfile(os.path.join(base, here)):
        return [here]
    found = []
    for d in [src_dir] + rules.search:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(base, p)) and p not in found:
            found.append(p)
    return found


# ---- graphs -------------------------------------------------------------------------------

def find_cycle(graph):
    """Some cycle of graph (node -> iterable of nodes) as a list of nodes, or None."""
    state = {}
    for start in sorted(graph):
        if start in state:
            continue
        stack = [(start, iter(sorted(graph.get(start, ()))))]
        path = [start]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                path.pop()
                state[node] = 2
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(sorted(graph.get(nxt, ())))))
    return None


def strongly_connected(graph):
    """The strongly connected components of graph with more than one node (Tarjan,
    iterative), each a sorted list."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    n = stack.pop()
                    on.discard(n)
                    comp.append(n)
                    if n == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def shortest_cycle_in(graph, comp):
    """A shortest cycle through comp[0] inside comp, as a list of nodes (first == last)."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    for node in queue:
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                path = [node]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return [start] + path[::-1][1:] + [start] if len(path) > 1 else [start, start]
            if nxt in members and nxt not in prev:
                prev[nxt] = node
                queue.append(nxt)
    return comp


# ---- the uses of functions between .c files (nm) ------------------------------------------

NM_DEFINED = set('TDBRVWGSui')


def object_sources(build, project):
    """(object file, source path relative to project) for every object of the build: CMake
    names an object <dir>/CMakeFiles/<target>.dir/<source relative to dir, '..' as '__'>.o,
    where <dir> is the source directory of the CMakeLists.txt (relative to the build)."""
    out = []
    for d, subdirs, files in os.walk(build):
        for f in files:
            if not f.endswith('.o'):
                continue
            obj = os.path.join(d, f)
            rel = os.path.relpath(obj, build).split(os.sep)
            if 'CMakeFiles' not in rel:
                continue
            k = rel.index('CMakeFiles')
            if k + 2 >= len(rel) or not rel[k + 1].endswith('.dir'):
                continue
            parts = ['..' if p == '__' else p for p in rel[k + 2:]]
            src = os.path.normpath(os.path.join(*(rel[:k] + parts)))[:-2]
            if os.path.isfile(os.path.join(project, src)):
                out.append((obj, src))
    return out


def function_uses(build, project, files):
    """Edges a.c -> b.c where a's object refers to a global symbol defined by b's object
    alone among the sources of src/ (a symbol several files define, such as main, names no
    single file and gives no edge)."""
    wanted = set(files)
    source_of = {obj: src for obj, src in object_sources(build, project) if src in wanted}
    objs = sorted(source_of)
    defined, undefined = {}, {}
    for k in range(0, len(objs), 200):
        # -A: every line starts with "object: " (nm -P -A prints "obj: sym kind ...")
        res = subprocess.run(['nm', '-P', '-A'] + objs[k:k + 200], capture_output=True,
                             text=True)
        for line in res.stdout.splitlines():
            head, _, rest = line.partition(': ')
            w = rest.split()
            src = source_of.get(head)
            if src is None or len(w) < 2:
                continue
            sym, kind = w[0], w[1]
            if kind == 'U':
                undefined.setdefault(src, set()).add(sym)
            elif kind in NM_DEFINED:
                defined.setdefault(sym, set()).add(src)
    edges = {}
    for src, syms in undefined.items():
        for s in syms:
            owners = defined.get(s, set())
            if len(owners) == 1:
                (owner,) = owners
                if owner != src:
                    edges.setdefault(src, set()).add(owner)
    return edges, bool(undefined)


# ---- the check --------------------------------------------------------------------------

def count_lines(path):
    with open(path, 'rb') as f:
        return f.read().count(b'\n')


def check(src, rules_path, build=None):
    rules, problems = parse_rules(rules_path)
    if problems:
        return problems
    base, files = source_files(src)
    src_dir = os.path.relpath(os.path.abspath(src), base)
    used_exceptions = set()
    graph = {}
    for rel in files:
        layer = layer_of(rules, rel)
        if layer is None:
            problems.append('%s: in no layer of %s' % (rel, rules_path))
            continue
        with open(os.path.join(base, rel), encoding='utf-8', errors='replace') as f:
            lines = f.readlines()
        for no, line in enumerate(lines, 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            kind, name = m.groups()
            if kind == '<':
                if name == 'mpi.h' and layer not in rules.mpi_layers:
                    problems.append('%s:%d: layer %s includes <mpi.h>, but only %s may know MPI'
                                    % (rel, no, layer, ', '.join(sorted(rules.mpi_layers))))
                continue
            found = resolve(base, rel, name, rules, src_dir)
            if not found:
                if name != 'mpi.h':
                    problems.append('%s:%d: cannot find "%s"' % (rel, no, name))
                elif layer not in rules.mpi_layers:
                    problems.append('%s:%d: layer %s includes mpi.h, but only %s may know MPI'
                                    % (rel, no, layer, ', '.join(sorted(rules.mpi_layers))))
                continue
            if len(found) > 1:
                problems.append('%s:%d: "%s" may mean %s (name it with its directory)'
                                % (rel, no, name, ' or '.join(found)))
                continue
            target = found[0]
            graph.setdefault(rel, set()).add(target)
            to = layer_of(rules, target)
            if to is None or to == layer or to in rules.layers[layer]:
                continue
            shown = os.path.relpath(target, src_dir)
            if (rel, shown) in rules.exceptions:
                used_exceptions.add((rel, shown))
                continue
            if reaches(rules, to, layer):
                problems.append('%s:%d: layer %s includes %s of layer %s above it'
                                % (rel, no, layer, shown, to))
            else:
                problems.append('%s:%d: layer %s includes %s of layer %s, which it may not use '
                                '(%s: layer %s)' % (rel, no, layer, shown, to, rules_path, layer))
    for (f, h), no in sorted(rules.exceptions.items(), key=lambda e: e[1]):
        if (f, h) not in used_exceptions:
            problems.append('%s:%d: exception %s %s no longer needed: remove it'
                            % (rules_path, no, f, h))

    # circles
    have_uses = False
    if build:
        uses, have_uses = function_uses(build, base, files)
        for a, bs in uses.items():
            graph.setdefault(a, set()).update(bs)
    seen_circles = set()
    for comp in strongly_connected(graph):
        if any(all(any(fnmatch.fnmatchcase(f, g) for g in globs) for f in comp)
               for _, globs in rules.modules):
            continue
        known = [no for no, members in rules.circles if set(comp) <= members]
        if known:
            seen_circles.update(known)
            continue
        cyc = shortest_cycle_in(graph, comp)
        problems.append('circle of %d files: %s%s' % (
            len(comp), ' -> '.join(cyc),
            '' if len(comp) == len(cyc) - 1 else ' (and %s)' % ', '.join(
                f for f in comp if f not in cyc)))
    if build and have_uses:
        for no, members in rules.circles:
            if no not in seen_circles:
                problems.append('%s:%d: the known circle of %s is gone: remove its lines'
                                % (rules_path, no, ', '.join(sorted(members))))
    if build and not have_uses:
        problems.append('%s: no object files of %s/ found (build first, or leave out --objects)'
                        % (build, src_dir))

    # file lengths
    if rules.lines_max is not None:
        for rel in files:
            n = count_lines(os.path.join(base, rel))
            allowed = rules.long_files.get(rel)
            if allowed is None and n > rules.lines_max:
                problems.append('%s: %d lines, more than %d: split it along its seams'
                                % (rel, n, rules.lines_max))
            elif allowed is not None and n > allowed:
                problems.append('%s: %d lines, more than the %d it had (%s:%d): known long '
                                'files only shrink' % (rel, n, allowed, rules_path,
                                                      rules.origin[('long-file', rel)]))
            elif allowed is not None and n <= rules.lines_max:
                problems.append('%s:%d: %s has %d lines now, within %d: remove its long-file '
                                'line' % (rules_path, rules.origin[('long-file', rel)], rel, n,
                                          rules.lines_max))
        for rel in rules.long_files:
            if rel not in files:
                problems.append('%s:%d: long-file %s does not exist: remove its line'
                                % (rules_path, rules.origin[('long-file', rel)], rel))
    return problems


# ---- the overview's copy of the rules ----------------------------------------------------

def check_doc(rules_path, doc):
    """The table of layers under the heading "The layer rules" of doc must say what the rules
    say: each layer's folder and the layers it may include."""
    rules, problems = parse_rules(rules_path)
    if problems:
        return problems
    with open(doc, encoding='utf-8') as f:
        lines = f.read().split('\n')
    try:
        start = next(i for i, l in enumerate(lines) if l.startswith('## The layer rules'))
    except StopIteration:
        return ['%s: no section "The layer rules"' % doc]
    rows = {}
    for no, l in enumerate(lines[start + 1:], start + 2):
        if l.startswith('## '):
            break
        cells = [c.strip() for c in l.strip().strip('|').split('|')] if l.startswith('|') else []
        if len(cells) != 3 or cells[0] in ('layer', '') or set(cells[0]) <= set('-'):
            continue
        folder = cells[1].replace('`', '').split()[0].rstrip('/')
        uses = set() if cells[2] in ('nothing', '—', '-') else \
            {u.strip() for u in cells[2].split(',')}
        rows[cells[0]] = (no, folder, uses)
    folders = {}
    for d, name in rules.dirs:
        folders.setdefault(name, []).append(d.rstrip('/'))
    for name, uses in sorted(rules.layers.items()):
        if name not in rows:
            problems.append('%s: the layer table has no row for layer %s (%s)'
                            % (doc, name, rules_path))
            continue
        no, folder, said = rows[name]
        if folder not in folders.get(name, []):
            problems.append('%s:%d: layer %s is in %s, not %s (%s)'
                            % (doc, no, name, ' '.join(folders.get(name, [])), folder, rules_path))
        if said != uses:
            problems.append('%s:%d: layer %s may include %s, not %s (%s)'
                            % (doc, no, name, ', '.join(sorted(uses)) or 'nothing',
                               ', '.join(sorted(said)) or 'nothing', rules_path))
    for name in sorted(set(rows) - set(rules.layers)):
        problems.append('%s:%d: layer %s is not in %s' % (doc, rows[name][0], name, rules_path))
    return problems


# ---- self test ----------------------------------------------------------------------------

SELF_TEST_RULES = """
layer top  src/top  : mid low
layer mid  src/mid  : low
layer low  src/low  :
layer side src/side : low
mpi.h top
module pair src/mid/a.h src/mid/b.h
circle src/top/p.c src/top/q.c
lines-max 5
long-file src/low/long.c 7
long-file src/low/short.c 7
long-file src/low/gone.c 9
exception src/side/s.c mid/x.h
exception src/side/s.c mid/a.h
"""

SELF_TEST_FILES = {
    'src/top/t.c': '#include "mid/x.h"\n#include <mpi.h>\n',
    'src/mid/x.h': '#include "low/y.h"\n',
    'src/low/y.h': '#include "mid/x.h"\n#include <mpi.h>\n',
    'src/low/long.c': '\n' * 6,
    'src/low/short.c': '\n' * 2,
    'src/low/z.c': '\n' * 6,
    'src/side/s.c': '#include "mid/x.h"\n#include "top/t.h"\n#include "nowhere.h"\n',
    'src/top/t.h': '',
    'src/mid/a.h': '#include "mid/b.h"\n',
    'src/mid/b.h': '#include "mid/a.h"\n',
    # u.c and v.c call each other: a circle only the objects show
    'src/low/u.c': 'int v(void);\nint u(void) { return v(); }\n',
    'src/low/v.c': 'int u(void);\nint v(void) { return u(); }\n',
}

# Every problem the check must report, by its start, and nothing else.
SELF_TEST_EXPECT = [
    'src/low/y.h:1: layer low includes mid/x.h of layer mid above it',
    'src/low/y.h:2: layer low includes <mpi.h>, but only top may know MPI',
    'src/side/s.c:2: layer side includes top/t.h of layer top, which it may not use',
    'src/side/s.c:3: cannot find "nowhere.h"',
    'layers.txt:13: exception src/side/s.c mid/a.h no longer needed',
    'circle of 2 files: src/low/y.h -> src/mid/x.h -> src/low/y.h',
    'circle of 2 files: src/low/u.c -> src/low/v.c -> src/low/u.c',
    'layers.txt:7: the known circle of src/top/p.c, src/top/q.c is gone',
    'src/low/z.c: 6 lines, more than 5',
    'layers.txt:10: src/low/short.c has 2 lines now, within 5',
    'layers.txt:11: long-file src/low/gone.c does not exist',
]


def self_test():
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in SELF_TEST_FILES.items():
            p = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, 'w') as f:
                f.write(text)
        # objects where CMake puts them: <build>/src/CMakeFiles/<target>.dir/<source>.o
        build = os.path.join(tmp, 'build')
        for name in ('u', 'v'):
            obj = os.path.join(build, 'src', 'CMakeFiles', 't.dir', 'low', name + '.c.o')
            os.makedirs(os.path.dirname(obj), exist_ok=True)
            subprocess.run(['cc', '-c', '-o', obj, os.path.join(tmp, 'src', 'low', name + '.c')],
                           check=True)
        rules = os.path.join(tmp, 'layers.txt')
        with open(rules, 'w') as f:
            f.write(SELF_TEST_RULES.lstrip('\n'))
        got = [p.replace(tmp + os.sep, '') for p in check(os.path.join(tmp, 'src'), rules, build)]
        for want in SELF_TEST_EXPECT:
            if not any(p.startswith(want) for p in got):
                print('self-test: missing: %s' % want)
                ok = False
        for p in got:
            if not any(p.startswith(want) for want in SELF_TEST_EXPECT):
                print('self-test: unexpected: %s' % p)
                ok = False
        # the overview's table: one row wrong, one missing
        doc = os.path.join(tmp, 'overview.md')
        with open(doc, 'w') as f:
            f.write('# x\n## The layer rules\n\n| layer | folder | may include |\n|---|---|---|\n'
                    '| top | `src/top/` | mid, low |\n| mid | `src/mid/` | nothing |\n'
                    '| low | `src/low/` | nothing |\n## Next\n| side | `src/side/` | x |\n')
        got = check_doc(rules, doc)
        for want in ('overview.md:7: layer mid may include low, not nothing',
                     'overview.md: the layer table has no row for layer side'):
            if not any(p.replace(tmp + os.sep, '').startswith(want) for p in got):
                print('self-test: missing: %s (got %s)' % (want, got))
                ok = False
        if len(got) != 2:
            print('self-test: layer table: %s' % got)
            ok = False
        # the rules themselves: a circle of layers, an unknown layer
        with open(rules, 'w') as f:
            f.write('layer a src/a : b\nlayer b src/b : a c\n')
        got = check(os.path.join(tmp, 'src'), rules)
        for want in ('the layers use each other in a circle: a -> b -> a',
                     'layer b uses an undeclared layer c'):
            if not any(want in p for p in got):
                print('self-test: bad rules not reported: %s (got %s)' % (want, got))
                ok = False
    print('self-test: %s' % ('ok' if ok else 'FAILED'))
    return 0 if ok else 1


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    project = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--src', default=os.path.join(project, 'src'))
    ap.add_argument('--rules', default=None, help='default: SRC/layers.txt')
    ap.add_argument('--objects', metavar='BUILD_DIR',
                    help='a build tree: also find circles of function uses between .c files')
    ap.add_argument('--doc', metavar='MD', help='a document whose table of layers must agree '
                    '(docs/ARCHITECTURE.md, "The layer rules")')
    ap.add_argument('--self-test', action='store_true')
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    rules = a.rules or os.path.join(a.src, 'layers.txt')
    problems = check(a.src, rules, a.objects)
    if a.doc:
        problems += check_doc(rules, a.doc)
    for p in problems:
        print(p)
    if problems:
        print('%d problem%s with the structure of %s (rules: %s)'
              % (len(problems), '' if len(problems) == 1 else 's', a.src, rules))
        return 1
    print('structure of %s: layers, circles and file lengths as %s says' % (a.src, rules))
    return 0


if __name__ == '__main__':
    sys.exit(main())
