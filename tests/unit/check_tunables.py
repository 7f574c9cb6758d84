#!/usr/bin/env python3
"""Every METAMPI_* environment variable goes through the registry (src/runtime/tunables.def).

Fails, with one line per finding, when
  - a METAMPI_* name in src/, include/, tests/, bench/, examples/, scripts/, README.md,
    docs/ or the top CMakeLists.txt is not registered (a variable read around the registry, a misspelt variable in a
    test, a document about a variable that does not exist) -- names that are not environment
    variables are recognised and skipped: C macros (#define: header guards, mpi.h's
    METAMPI_SITE), CMake variables (set/option/${...}/-D) and the prefixes of a family
    (METAMPI_COLL_<NAME>);
  - a getenv() in src/ other than the registry's may read a METAMPI_* variable: a literal
    METAMPI_* argument, or an argument that is not a literal and not one of ARGUMENTS below;
  - a registered variable is used nowhere in src/ (neither TUN_<ID> nor its name in a string
    outside the registry, nor in the compiler wrappers' CMakeLists.txt), i.e. the entry is
    stale.
"""
import argparse
import os
import re
import subprocess
import sys

NAME = re.compile(r"\bMETAMPI_[A-Z0-9_]+")
# getenv arguments that are names of other variables (not METAMPI_*), each with its reason
ARGUMENTS = {
    "name": "runtime/pmi_client.c: PMI_* names; net/auth.c: a key, which its owner takes "
            "and erases (never cached)",
    "spec": "tools/launch/jobenv.c: a -x NAME given to mpirun, forwarded as is",
    "s": "tools/mpirun/multihost.c: a -x NAME given to mpirun, forwarded as is",
    "var": "tools/launch/binding.c: HWLOC_PLUGINS_BLACKLIST",
}
# names that are neither registered variables nor macros/CMake variables, with the reason
NOT_VARIABLES = {
    "METAMPI_TEST_KEY": "tests/unit/test_auth.c: a variable of auth_key_take_env's own test",
    "METAMPI_NO_SUCH_VARIABLE": "tests/unit/test_tunables.c: not registered, on purpose",
    "METAMPI_COLL_NO_SUCH_KNOB": "tests/unit/test_tunables.c: not registered, on purpose",
}
REGISTRY = ("src/runtime/tunables.def", "src/runtime/tunables.c")
SCANNED_DIRS = ("src", "include", "tests", "bench", "examples", "scripts", "docs")
SKIP_DIRS = {"__pycache__", ".git"}
TEXT_SUFFIXES = (".c", ".h", ".def", ".in", ".txt", ".cmake", ".py", ".sh", ".md", ".ini")


def files(root):
    for top in SCANNED_DIRS:
        for d, subdirs, names in os.walk(os.path.join(root, top)):
            subdirs[:] = [s for s in subdirs if s not in SKIP_DIRS]
            for n in names:
                if n.endswith(TEXT_SUFFIXES) or n == "CMakeLists.txt":
                    yield os.path.join(d, n)
    yield os.path.join(root, "README.md")
    yield os.path.join(root, "Makefile")
    yield os.path.join(root, "CMakeLists.txt")


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def not_variables(texts):
    """Names defined as C macros or CMake variables anywhere."""
    out = set()
    for path, text in texts.items():
        out.update(re.findall(r"#\s*(?:define|ifndef|ifdef)\s+(METAMPI_[A-Z0-9_]+)", text))
        if path.endswith(("CMakeLists.txt", ".cmake")) or os.path.basename(path) == "Makefile":
            out.update(re.findall(r"\b(?:set|option)\(\s*(METAMPI_[A-Z0-9_]+)", text))
            out.update(re.findall(r"\bfile\(\s*GLOB\s+(METAMPI_[A-Z0-9_]+)", text))
            out.update(re.findall(r"\bfind_program\(\s*(METAMPI_[A-Z0-9_]+)", text))
            out.update(re.findall(r"\$\{(METAMPI_[A-Z0-9_]+)\}", text))
        out.update(re.findall(r"-D(METAMPI_[A-Z0-9_]+)", text))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--names-from", required=True, help="metampi-tunables-doc")
    ap.add_argument("--root", required=True)
    a = ap.parse_args()
    registered = set(subprocess.run([a.names_from, "--names"], check=True, capture_output=True,
                                    text=True).stdout.split())
    texts = {p: read(p) for p in files(a.root) if os.path.isfile(p)}
    skip = not_variables(texts) | set(NOT_VARIABLES)
    problems = []

    for path, text in sorted(texts.items()):
        rel = os.path.relpath(path, a.root)
        for lineno, line in enumerate(text.splitlines(), 1):
            for m in NAME.finditer(line):
                n = m.group(0)
                if n.endswith("_") or n in skip or n in registered:
                    continue
                problems.append("%s:%d: %s is not in the registry (src/runtime/tunables.def)"
                                % (rel, lineno, n))

    src = {p: t for p, t in texts.items()
           if os.path.relpath(p, a.root).startswith("src" + os.sep) and p.endswith((".c", ".h"))}
    for path, text in sorted(src.items()):
        rel = os.path.relpath(path, a.root)
        if rel in REGISTRY:
            continue
        for lineno, line in enumerate(text.splitlines(), 1):
            for m in re.finditer(r"\b(?:secure_)?getenv\(\s*([^()]*?)\s*\)", line):
                arg = m.group(1)
                literal = re.fullmatch(r'"([^"]*)"', arg)
                if (literal and literal.group(1).startswith("METAMPI_")) or \
                        (not literal and arg not in ARGUMENTS):
                    problems.append("%s:%d: getenv(%s) reads around the registry "
                                    "(src/runtime/tunables.h)" % (rel, lineno, arg))

    used = "\n".join(t for p, t in src.items() if os.path.relpath(p, a.root) not in REGISTRY)
    used_ids = set(re.findall(r"\bTUN_[A-Z0-9_]+\b", used))
    used_names = set(re.findall(r'"(METAMPI_[A-Z0-9_]+)', used))
    wrappers = read(os.path.join(a.root, "src", "tools", "wrappers", "CMakeLists.txt"))
    used_names.update(re.findall(r"\bMETAMPI_[A-Z0-9_]+\b", wrappers))
    for n in sorted(registered):
        ident = "TUN_" + n[len("METAMPI_"):]
        if ident not in used_ids and n not in used_names:
            problems.append("src/runtime/tunables.def: %s is read nowhere in src/ (neither %s "
                            "nor \"%s\" is used)" % (n, ident, n))

    for p in problems:
        print(p)
    if problems:
        print("%d problem(s); docs/tunables.md says how to add a variable" % len(problems))
        return 1
    print("%d variables registered; every METAMPI_* name found is one of them" % len(registered))
    return 0


if __name__ == "__main__":
    sys.exit(main())
