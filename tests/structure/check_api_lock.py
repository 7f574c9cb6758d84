#!/usr/bin/env python3
"""Every MPI function takes the core lock first (src/api/api.h, API_ENTER; docs/threads.md).

Finds each `API_EXPORT <type> PMPI_<name>(...)` definition in src/api/*.c (also inside
macros) and fails when the first statement of its body is not API_ENTER(). The exceptions are
the functions that touch no library state: MPI_Wtime, MPI_Wtick and the *_c2f conversions.
"""
import argparse
import pathlib
import re
import sys

EXEMPT = re.compile(r"^(Wtime|Wtick|\w+_c2f|\w+##_c2f|##\w*_c2f)$")
DEF = re.compile(r"API_EXPORT\s+[\w\s\*]+?\bPMPI_([\w#]+)\s*\(([^;{]*?)\)\s*(?:\\\s*)*\{")


def problems(text, path):
    out = []
    for m in DEF.finditer(text):
        name = m.group(1)
        if EXEMPT.match(name) or name.endswith("_c2f"):
            continue
        body = text[m.end():m.end() + 200]
        first = body.lstrip(" \t\\\n")
        if not first.startswith("API_ENTER();"):
            line = text.count("\n", 0, m.start()) + 1
            out.append(f"{path}:{line}: PMPI_{name} does not start with API_ENTER()")
    return out


def self_test():
    good = "API_EXPORT int PMPI_Send(int a)\n{\n    API_ENTER();\n    return 0;\n}\n"
    bad = "API_EXPORT int PMPI_Recv(int a)\n{\n    return 0;\n}\n"
    macro = ("#define X(N) \\\n    API_EXPORT int PMPI_##N(int a) \\\n    { \\\n"
             "        return 0; \\\n    }\n")
    exempt = "API_EXPORT double PMPI_Wtime(void)\n{\n    return 0;\n}\n"
    assert problems(good, "g") == []
    assert len(problems(bad, "b")) == 1
    assert len(problems(macro, "m")) == 1
    assert problems(exempt, "e") == []
    print("check_api_lock self-test: ok")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    found = []
    count = 0
    for p in sorted(pathlib.Path(a.src, "api").glob("*.c")):
        text = p.read_text()
        count += len(DEF.findall(text))
        found += problems(text, p)
    for f in found:
        print(f)
    if found:
        print(f"{len(found)} MPI function(s) without the core lock (docs/threads.md)")
        return 1
    print(f"{count} MPI function definitions checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
