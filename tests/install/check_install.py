#!/usr/bin/env python3
"""Install metampi into a scratch prefix and use it the way users and build systems do.

Covers: the installed file set; building C and C++ programs with the installed wrappers
(one-step and separate compile/link) and with pkg-config; that those programs depend on the
install prefix, not on the build tree; running them with the installed mpirun; the wrapper
queries other tools parse; autoconf-style link probes (what exists links, what does not
exist does not, and mpi.h declares exactly what libmpi defines); and that the prefix still
works after being moved, also through a symlink to a wrapper.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys

NP = 3
HERE = os.path.dirname(os.path.abspath(__file__))

HELLO_C = r"""#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank = -1, size = -1;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("hello from %s: rank %d of %d\n", argc > 1 ? argv[1] : "C", rank, size);
    return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}
"""

HELLO_CXX = r"""#include <mpi.h>
#include <iostream>
int main(int argc, char **argv)
{
    int rank = -1, size = -1;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::cout << "hello from C++: rank " << rank << " of " << size << std::endl;
    return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}
"""

INSTALLED_FILES = ["bin/mpicc", "bin/mpicxx", "bin/mpirun", "bin/mpiexec", "include/mpi.h",
                   "lib/libmpi.so", "lib/pkgconfig/metampi.pc"]

failures = []


def fail(msg):
    """Records a failure and continues, so one run reports every broken aspect."""
    print(f"FAIL: {msg}", flush=True)
    failures.append(msg)


def run(cmd, env=None, timeout=60, check=True):
    """Runs cmd; returns (exit status, combined output). A failure to run counts as status 127."""
    print("+", " ".join(shlex.quote(c) for c in cmd), flush=True)
    try:
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=timeout)
        status, out = proc.returncode, proc.stdout
    except subprocess.TimeoutExpired:
        status, out = 124, f"timed out after {timeout}s"
    except OSError as e:
        status, out = 127, str(e)
    if out.strip():
        print(out.rstrip(), flush=True)
    if check and status != 0:
        fail(f"exit status {status}: {' '.join(cmd)}")
    return status, out


def check_files(prefix):
    for rel in INSTALLED_FILES:
        if not os.path.exists(os.path.join(prefix, rel)):
            fail(f"not installed: {rel}")
    for rel in ("bin/mpicc", "bin/mpicxx", "bin/mpirun"):
        path = os.path.join(prefix, rel)
        if os.path.exists(path) and not os.access(path, os.X_OK):
            fail(f"not executable: {rel}")


def build_programs(prefix, work, tag):
    """Builds the test programs with prefix's wrappers and pkg-config; returns {name: argv}."""
    src_c = os.path.join(work, "hello.c")
    src_cxx = os.path.join(work, "hello.cxx")
    out = os.path.join(work, tag)
    os.makedirs(out, exist_ok=True)
    mpicc, mpicxx = os.path.join(prefix, "bin/mpicc"), os.path.join(prefix, "bin/mpicxx")
    programs = {}

    if run([mpicc, src_c, "-o", f"{out}/hello_c"])[0] == 0:
        programs["mpicc"] = [f"{out}/hello_c", "C"]
    if run([mpicxx, src_cxx, "-o", f"{out}/hello_cxx"])[0] == 0:
        programs["mpicxx"] = [f"{out}/hello_cxx"]
    # As make does it: compile-only must not link, then link the object alone.
    if (run([mpicc, "-c", src_c, "-o", f"{out}/hello.o"])[0] == 0
            and run([mpicc, f"{out}/hello.o", "-o", f"{out}/hello_2step"])[0] == 0):
        programs["mpicc -c + link"] = [f"{out}/hello_2step", "C (2-step)"]

    # A user -L/-rpath naming another MPI's directory must not shadow metampi's libmpi.
    decoy = os.path.join(work, "decoy")
    if run([mpicc, src_c, f"-L{decoy}", f"-Wl,-rpath,{decoy}", "-o", f"{out}/hello_decoy"])[0] == 0:
        programs["mpicc -L<other libmpi>"] = [f"{out}/hello_decoy", "C (decoy -L)"]

    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib/pkgconfig"))
    status, flags = run(["pkg-config", "--cflags", "--libs", "metampi"], env=env)
    if status == 0:
        cc = run([mpicc, "-showme:command"])[1].strip()
        cmd = shlex.split(cc) + [src_c, "-o", f"{out}/hello_pc"] + shlex.split(flags)
        if run(cmd)[0] == 0:
            programs["pkg-config"] = [f"{out}/hello_pc", "C (pkg-config)"]
    return programs


def make_decoy_libmpi(work):
    """work/decoy/libmpi.so: another library called libmpi, as /usr/lib/<triplet> holds Debian's."""
    decoy = os.path.join(work, "decoy")
    os.makedirs(decoy)
    src = os.path.join(decoy, "decoy.c")
    with open(src, "w") as f:
        f.write("int decoy_libmpi_marker;\n")
    if run(["cc", "-shared", "-fPIC", src, "-o", os.path.join(decoy, "libmpi.so")])[0] != 0:
        sys.exit(1)


def check_links_into(prefix, binary):
    """The program must load libmpi from prefix (rpath), not from the build tree."""
    status, out = run(["ldd", binary])
    m = re.search(r"libmpi\.so\S*\s+=>\s+(\S+)", out)
    if status != 0 or not m:
        fail(f"{binary}: ldd does not resolve libmpi")
        return
    lib = os.path.realpath(m.group(1))
    if os.path.commonpath([lib, os.path.realpath(prefix)]) != os.path.realpath(prefix):
        fail(f"{binary} loads {lib}, outside the prefix {prefix}")


def run_programs(prefix, programs):
    mpirun = os.path.join(prefix, "bin/mpirun")
    for how, argv in programs.items():
        check_links_into(prefix, argv[0])
        label = argv[1] if len(argv) > 1 else "C++"
        status, out = run([mpirun, "-n", str(NP)] + argv)
        got = sorted(re.findall(rf"^hello from {re.escape(label)}: rank (\d+) of (\d+)$",
                                out, re.M))
        want = sorted((str(r), str(NP)) for r in range(NP))
        if status == 0 and got != want:
            fail(f"program built with {how}: expected ranks {want}, got {got}")


def query(wrapper, *args):
    status, out = run([wrapper] + list(args))
    lines = out.splitlines()
    if status == 0 and len(lines) != 1:
        fail(f"{os.path.basename(wrapper)} {' '.join(args)}: expected one line, got {lines}")
    return lines[0] if lines else ""


def check_queries(prefix, wrapper):
    inc, lib = os.path.join(prefix, "include"), os.path.join(prefix, "lib")
    compile_flags = [f"-I{inc}"]
    link_flags = [f"-L{lib}", f"-Wl,-rpath,{lib}", "-lmpi"]
    name = os.path.basename(wrapper)
    compiler = query(wrapper, "-showme:command")

    def expect(args, present, absent, starts_with_compiler):
        words = shlex.split(query(wrapper, *args))
        for w in present:
            if w not in words:
                fail(f"{name} {' '.join(args)}: missing {w} in {words}")
        for w in absent:
            if w in words:
                fail(f"{name} {' '.join(args)}: unexpected {w} in {words}")
        if starts_with_compiler and words[:len(shlex.split(compiler))] != shlex.split(compiler):
            fail(f"{name} {' '.join(args)}: does not start with the compiler {compiler!r}")

    for q in ("-show", "-showme", "-link-info", "-link_info"):
        expect([q], compile_flags + link_flags, [], True)
    for q in ("-compile-info", "-compile_info"):
        expect([q], compile_flags, link_flags, True)
    expect(["-showme:compile"], compile_flags, link_flags, False)
    expect(["-showme:link"], link_flags, compile_flags, False)
    expect(["-show", "-c", "x.c"], compile_flags + ["-c", "x.c"], link_flags, True)
    expect(["-show", "x.c", "-o", "x"], compile_flags + ["x.c", "-o", "x"] + link_flags, [], True)
    # Our -L precedes the user's (no shadowing); -lmpi follows the user's objects.
    words = shlex.split(query(wrapper, "-show", "-L/elsewhere", "x.o"))
    if not (words.index(f"-L{lib}") < words.index("-L/elsewhere") < words.index("x.o")
            < words.index("-lmpi")):
        fail(f"{name} -show -L/elsewhere x.o: wrong order {words}")
    for q, want in (("-showme:incdirs", inc), ("-showme:libdirs", lib), ("-showme:libs", "mpi")):
        got = shlex.split(query(wrapper, q))
        if got != [want]:
            fail(f"{name} {q}: expected {want!r}, got {got}")
    if "metampi" not in query(wrapper, "-showme:version"):
        fail(f"{name} -showme:version does not name metampi")
    if run([wrapper, "-showme:no-such-query"], check=False)[0] == 0:
        fail(f"{name} accepts an unknown -showme: query")


def declared_functions(header):
    text = open(header).read()
    return set(re.findall(r"^\s*(?:int|double|MPI_\w+)\s+(P?MPI_\w+)\s*\(", text, re.M))


def declared_variables(header):
    text = open(header).read()
    return set(re.findall(r"^extern\s+[\w\s\*]+?\b(P?MPI_\w+)\s*;", text, re.M))


def defined_symbols(library, types):
    """The MPI_/PMPI_ names libmpi exports with an nm type in types (T W i: code, B D: data)."""
    status, out = run(["nm", "-D", "--defined-only", library], check=False)
    if status != 0:
        fail(f"nm cannot read {library}")
    return {fields[-1] for fields in (line.split() for line in out.splitlines())
            if len(fields) >= 2 and fields[-2] in types and re.match(r"P?MPI_\w+$", fields[-1])}


def check_probes(prefix):
    """Build systems must detect exactly what exists."""
    env = dict(os.environ, CC=os.path.join(prefix, "bin/mpicc"))
    probe = ["sh", os.path.join(HERE, "ac_check_func.sh")]
    declared = declared_functions(os.path.join(prefix, "include/mpi.h"))
    for func in ("MPI_Init", "MPI_Send"):
        if run(probe + [func], env=env, check=False)[0] != 0:
            fail(f"AC_CHECK_FUNC({func}) with CC=mpicc: not found")
    # Whether MPI_Win_create links must follow mpi.h: it lands with the RMA chapter.
    for func in ("MPI_Win_create", "MPI_Metampi_no_such_function"):
        links = run(probe + [func], env=env, check=False)[0] == 0
        if links != (func in declared):
            fail(f"AC_CHECK_FUNC({func}) says {'yes' if links else 'no'}, "
                 f"but mpi.h {'declares' if func in declared else 'does not declare'} it")
    library = os.path.join(prefix, "lib/libmpi.so")
    defined = defined_symbols(library, "TWi")
    if declared - defined:
        fail(f"declared in mpi.h but not defined in libmpi.so: {sorted(declared - defined)}")
    if defined - declared:
        fail(f"defined in libmpi.so but not declared in mpi.h: {sorted(defined - declared)}")
    variables = declared_variables(os.path.join(prefix, "include/mpi.h"))
    data = defined_symbols(library, "BD")
    if variables != data:
        fail(f"variables of mpi.h {sorted(variables)} differ from libmpi.so's {sorted(data)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmake", required=True)
    ap.add_argument("--build", required=True, help="metampi build tree")
    ap.add_argument("--work", required=True, help="scratch dir, recreated")
    args = ap.parse_args()

    work = os.path.realpath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    with open(os.path.join(work, "hello.c"), "w") as f:
        f.write(HELLO_C)
    with open(os.path.join(work, "hello.cxx"), "w") as f:
        f.write(HELLO_CXX)

    make_decoy_libmpi(work)
    prefix = os.path.join(work, "prefix")
    if run([args.cmake, "--install", args.build, "--prefix", prefix])[0] != 0:
        sys.exit(1)
    check_files(prefix)
    for wrapper in ("mpicc", "mpicxx"):
        check_queries(prefix, os.path.join(prefix, "bin", wrapper))
    run_programs(prefix, build_programs(prefix, work, "installed"))
    check_probes(prefix)

    # Relocation: the old location must vanish so nothing can silently keep using it.
    moved = os.path.join(work, "moved", "prefix")
    os.makedirs(os.path.dirname(moved))
    os.rename(prefix, moved)
    for wrapper in ("mpicc", "mpicxx"):
        check_queries(moved, os.path.join(moved, "bin", wrapper))
    run_programs(moved, build_programs(moved, work, "moved"))
    # Reached through a symlink (as with update-alternatives), the wrapper still finds its prefix.
    linkdir = os.path.join(work, "linkbin")
    os.makedirs(linkdir)
    os.symlink(os.path.join(moved, "bin/mpicc"), os.path.join(linkdir, "mpicc"))
    got = query(os.path.join(linkdir, "mpicc"), "-showme:incdirs")
    if got != os.path.join(moved, "include"):
        fail(f"mpicc via symlink: -showme:incdirs is {got!r}")

    if failures:
        print(f"\n{len(failures)} failure(s):", *failures, sep="\n  ")
        sys.exit(1)
    print("PASS: installed and relocated metampi works")


if __name__ == "__main__":
    main()
