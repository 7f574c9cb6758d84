#!/usr/bin/env python3
"""Configure, build and run tests/findmpi/project against a metampi build tree.

Modes:
  hints  -- MPI_<LANG>_COMPILER point at <build>/bin/mpicc, mpicxx, mpifort.
  path   -- no hints; only PATH has <build>/bin first. Debian's Open MPI and MPICH wrappers
            live in /usr/bin, so this proves FindMPI prefers ours when it comes first.

--languages C,CXX (project/) or C,Fortran (project_fortran/: also mpif.h and the mpi and
mpi_f08 modules must be found) names the components the project asks for.

Passes only if FindMPI's results (include dirs, libraries, compilers, and in path mode
mpiexec) all lie inside the metampi build tree, the MPI version matches mpi.h, and every
program prints one line per rank under `<build>/bin/mpirun -n 2`.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

NP = 2
# per language: the wrapper, the program, what it prints
LANGUAGES = {"C": ("mpicc", "hello_c", "hello from C"),
             "CXX": ("mpicxx", "hello_cxx", "hello from C++"),
             "Fortran": ("mpifort", "hello_fortran", "hello from Fortran")}


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def run(cmd, env=None, timeout=90):
    print("+", " ".join(cmd), flush=True)
    try:
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        fail(f"timed out after {timeout}s: {' '.join(cmd)}")
    except OSError as e:
        fail(f"cannot run {cmd[0]}: {e}")
    print(proc.stdout, end="", flush=True)
    if proc.returncode != 0:
        fail(f"exit status {proc.returncode}: {' '.join(cmd)}")
    return proc.stdout


def mpi_version_from_header(build):
    text = open(os.path.join(build, "include", "mpi.h")).read()
    major = re.search(r"#define\s+MPI_VERSION\s+(\d+)", text).group(1)
    minor = re.search(r"#define\s+MPI_SUBVERSION\s+(\d+)", text).group(1)
    return f"{major}.{minor}"


def reported_vars(configure_output):
    """The "findmpi-project: NAME=value" lines printed by the project."""
    found = {}
    for m in re.finditer(r"findmpi-project: (\w+)=(.*)", configure_output):
        found[m.group(1)] = m.group(2).strip()
    return found


def check_inside(build, name, value):
    if not value:
        fail(f"FindMPI left {name} empty")
    for path in value.split(";"):
        real = os.path.realpath(path)
        if os.path.commonpath([real, build]) != build:
            fail(f"{name} contains {path}, which is not in the metampi build tree {build}")


def check_rank_lines(output, prefix):
    got = sorted(re.findall(rf"^{re.escape(prefix)}: rank (\d+) of (\d+)$", output, re.M))
    want = sorted((str(r), str(NP)) for r in range(NP))
    if got != want:
        fail(f"expected one '{prefix}: rank r of {NP}' line per rank, got {got}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmake", required=True)
    ap.add_argument("--generator", required=True)
    ap.add_argument("--build", required=True, help="metampi build tree")
    ap.add_argument("--project", required=True)
    ap.add_argument("--work", required=True, help="scratch dir, recreated")
    ap.add_argument("--mode", choices=["hints", "path"], required=True)
    ap.add_argument("--sanitize-flags", default="")
    ap.add_argument("--languages", default="C,CXX")
    args = ap.parse_args()
    languages = args.languages.split(",")

    build = os.path.realpath(args.build)
    bindir = os.path.join(build, "bin")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)

    env = dict(os.environ)
    configure = [args.cmake, "-S", args.project, "-B", args.work, "-G", args.generator]
    if args.mode == "hints":
        configure += [f"-DMPI_{lang}_COMPILER={bindir}/{LANGUAGES[lang][0]}"
                      for lang in languages]
    else:
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
        for hint in ("MPI_HOME", "I_MPI_ROOT", "MPICC", "MPICXX", "MPIFC", "MPIF90", "MPIF77"):
            env.pop(hint, None)
    if args.sanitize_flags:
        # A sanitized libmpi needs instrumented programs, as any sanitizer user would set up.
        for var in [f"CMAKE_{lang}_FLAGS" for lang in languages] + ["CMAKE_EXE_LINKER_FLAGS"]:
            configure.append(f"-D{var}={args.sanitize_flags}")

    found = reported_vars(run(configure, env=env))
    for lang in languages:
        for what in ("COMPILER", "INCLUDE_DIRS", "LIBRARIES"):
            check_inside(build, f"MPI_{lang}_{what}", found.get(f"MPI_{lang}_{what}"))
    if "Fortran" in languages:
        for name in ("MPI_Fortran_HAVE_F77_HEADER", "MPI_Fortran_HAVE_F90_MODULE",
                     "MPI_Fortran_HAVE_F08_MODULE"):
            if found.get(name) not in ("TRUE", "ON", "1", "YES"):
                fail(f"FindMPI reports {name}={found.get(name)!r}")
    if args.mode == "path":
        check_inside(build, "MPIEXEC_EXECUTABLE", found.get("MPIEXEC_EXECUTABLE"))
    version = mpi_version_from_header(build)
    for name in [f"MPI_{lang}_VERSION" for lang in languages]:
        if found.get(name) != version:
            fail(f"FindMPI reports {name}={found.get(name)!r}, mpi.h says {version}")

    run([args.cmake, "--build", args.work], env=env)

    mpirun = os.path.join(bindir, "mpirun")
    for lang in languages:
        _, program, prefix = LANGUAGES[lang]
        check_rank_lines(run([mpirun, "-n", str(NP), os.path.join(args.work, program)], env=env),
                         prefix)
    print(f"PASS: FindMPI ({args.mode}, {args.languages}) found metampi in {build}")


if __name__ == "__main__":
    main()
