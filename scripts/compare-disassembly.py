#!/usr/bin/env python3
"""Compares the machine code of two builds of libmpi.so function by function (objdump -d),
with what differs between any two builds anyway normalised away: instruction addresses,
call and jump targets' offsets, %rip-relative displacements, comments. Used to show what a
feature compiled in costs where it is off (docs/threads.md, "What thread support costs a
single-threaded program": a build with and one without -DMETAMPI_THREADS=OFF).

Usage: compare-disassembly.py A/libmpi.so B/libmpi.so [FUNCTION ...]
Prints how many functions both have and how many are identical, then for each FUNCTION its
instruction count in A and B and whether they are identical; with -v also the diff."""
import difflib
import re
import subprocess
import sys


def functions(lib):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", lib], capture_output=True,
                         text=True, check=True).stdout
    funcs, name = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            name = m.group(1)
            funcs[name] = []
        elif name and line.strip():
            ins = re.sub(r"^\s*[0-9a-f]+:\s*", "", line)
            ins = re.sub(r"#.*", "", ins)
            ins = re.sub(r"[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>", r"<\1>", ins)
            ins = re.sub(r"-?0x[0-9a-f]+\(%rip\)", "X(%rip)", ins)
            funcs[name].append(ins.strip())
    return funcs


def main(argv):
    verbose = "-v" in argv
    argv = [a for a in argv if a != "-v"]
    if len(argv) < 2:
        sys.exit(__doc__)
    a, b = functions(argv[0]), functions(argv[1])
    common = set(a) & set(b)
    same = sum(a[f] == b[f] for f in common)
    print(f"functions in both: {len(common)}, identical: {same}, differ: {len(common) - same}")
    for f in argv[2:]:
        if f not in a or f not in b:
            print(f"{f}: in A {f in a}, in B {f in b}")
            continue
        print(f"{f}: A {len(a[f])} instructions, B {len(b[f])}, "
              f"{'identical' if a[f] == b[f] else 'differ'}")
        if verbose and a[f] != b[f]:
            sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(a[f], b[f], "A", "B",
                                                                         lineterm="", n=1))


if __name__ == "__main__":
    main(sys.argv[1:])
