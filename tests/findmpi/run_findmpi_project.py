#!/usr/bin/env python3
"""Configure, build and run tests/findmpi/project against a metampi build tree.

Modes:
  hints  -- MPI_C_COMPILER / MPI_CXX_COMPILER point at <build>/bin/mpicc and mpicxx.
  path   -- no hints; only PATH has <build>/bin first. Debian's Open MPI and MPICH wrappers
            live in /usr/bin, so this proves FindMPI prefers ours when it comes first.

Passes only if FindMPI's results (include dirs, libraries, compilers, and in path mode
mpiexec) all lie inside the metampi build tree, the MPI version matches mpi.h, and both
programs print one line per rank under `<build>/bin/mpirun -n 2`.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

NP = 2


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
    args = ap.parse_args()

    build = os.path.realpath(args.build)
    bindir = os.path.join(build, "bin")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)

    env = dict(os.environ)
    configure = [args.cmake, "-S", args.project, "-B", args.work, "-G", args.generator]
    if args.mode == "hints":
        configure += [f"-DMPI_C_COMPILER={bindir}/mpicc", f"-DMPI_CXX_COMPILER={bindir}/mpicxx"]
    else:
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
        for hint in ("MPI_HOME", "I_MPI_ROOT", "MPICC", "MPICXX"):
            env.pop(hint, None)
    if args.sanitize_flags:
        # A sanitized libmpi needs instrumented programs, as any sanitizer user would set up.
        for var in ("CMAKE_C_FLAGS", "CMAKE_CXX_FLAGS", "CMAKE_EXE_LINKER_FLAGS"):
            configure.append(f"-D{var}={args.sanitize_flags}")

    found = reported_vars(run(configure, env=env))
    for name in ("MPI_C_COMPILER", "MPI_CXX_COMPILER", "MPI_C_INCLUDE_DIRS",
                 "MPI_CXX_INCLUDE_DIRS", "MPI_C_LIBRARIES", "MPI_CXX_LIBRARIES"):
        check_inside(build, name, found.get(name))
    if args.mode == "path":
        check_inside(build, "MPIEXEC_EXECUTABLE", found.get("MPIEXEC_EXECUTABLE"))
    version = mpi_version_from_header(build)
    for name in ("MPI_C_VERSION", "MPI_CXX_VERSION"):
        if found.get(name) != version:
            fail(f"FindMPI reports {name}={found.get(name)!r}, mpi.h says {version}")

    run([args.cmake, "--build", args.work], env=env)

    mpirun = os.path.join(bindir, "mpirun")
    check_rank_lines(run([mpirun, "-n", str(NP), os.path.join(args.work, "hello_c")], env=env),
                     "hello from C")
    check_rank_lines(run([mpirun, "-n", str(NP), os.path.join(args.work, "hello_cxx")], env=env),
                     "hello from C++")
    print(f"PASS: FindMPI ({args.mode}) found metampi in {build}")


if __name__ == "__main__":
    main()
