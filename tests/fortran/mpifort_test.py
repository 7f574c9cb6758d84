#!/usr/bin/env python3
"""mpifort, mpif90 and mpif77 as users meet them, in the build tree and in an install prefix
(`cmake --install` into a scratch directory): their -show/-showme answers (the style of
mpicc's), the F77 (mpif.h), `use mpi` and `use mpi_f08` test programs built by them and run under mpirun,
and `use mpi`'s compile-time checks through mpifort.

usage: mpifort_test.py --cmake CMAKE --build BUILD --source TESTS_FORTRAN_DIR --work DIR
"""
import argparse
import os
import shutil
import subprocess
import sys

failures = []


def fail(msg):
    print("FAIL: " + msg, flush=True)
    failures.append(msg)


def run(cmd, timeout=120, cwd=None):
    print("+ " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout, cwd=cwd)
    print(proc.stdout, end="", flush=True)
    return proc.returncode, proc.stdout


def check_queries(prefix):
    fort = os.path.join(prefix, "bin", "mpifort")
    inc, lib = os.path.join(prefix, "include"), os.path.join(prefix, "lib")
    rc, libs = run([fort, "-showme:libs"])
    if rc != 0 or libs.strip() != "mpifort mpi":
        fail("mpifort -showme:libs says %r, expected 'mpifort mpi'" % libs.strip())
    rc, link = run([fort, "-showme:link"])
    if not link.strip().endswith("-L%s -Wl,-rpath,%s -lmpifort -lmpi" % (lib, lib)):
        fail("mpifort -showme:link: %r" % link.strip())
    rc, show = run([fort, "-show", "prog.f90", "-o", "prog"])
    words = show.split()
    if rc != 0 or "-I" + inc not in words or words[-2:] != ["-lmpifort", "-lmpi"] or \
            words.index("prog.f90") > words.index("-lmpifort"):
        fail("mpifort -show: %r" % show.strip())
    rc, show = run([fort, "-c", "-show", "prog.f90"])
    if "-lmpi" in show or "-I" + inc not in show.split():
        fail("mpifort -c -show links or lacks the include directory: %r" % show.strip())
    for name in ("mpif90", "mpif77"):
        rc, version = run([os.path.join(prefix, "bin", name), "-showme:version"])
        if rc != 0 or "Language: Fortran" not in version or name not in version:
            fail("%s -showme:version: %r" % (name, version.strip()))
    rc, out = run([fort, "-showme:nonsense"])
    if rc == 0:
        fail("mpifort -showme:nonsense succeeded")


def build_and_run(prefix, source, work, tag):
    bindir = os.path.join(prefix, "bin")
    programs = [("mpif77", "f77_basic.f", ["-fallow-argument-mismatch", "-w"], "f77 basic: ok"),
                ("mpifort", "f77_basic.f", ["-fallow-argument-mismatch", "-w"], "f77 basic: ok"),
                ("mpif90", "use_mpi.f90", [], "use mpi: ok"),
                ("mpifort", "use_mpi.f90", [], "use mpi: ok"),
                ("mpifort", "use_mpi_f08.f90", [], "use mpi_f08: ok")]
    for wrapper, src, flags, expect in programs:
        exe = os.path.join(work, "%s_%s_%s" % (tag, wrapper, src.split(".")[0]))
        # the module file lands in the current directory: build each in its own
        obj_dir = exe + ".d"
        os.makedirs(obj_dir, exist_ok=True)
        rc, out = run([os.path.join(bindir, wrapper)] + flags +
                      [os.path.join(source, src), "-o", exe], cwd=obj_dir)
        if rc != 0:
            fail("%s %s does not build (%s)" % (wrapper, src, tag))
            continue
        rc, out = run([os.path.join(bindir, "mpirun"), "-n", "2", exe], timeout=60)
        if rc != 0 or expect not in out:
            fail("%s built by %s does not run (%s)" % (src, wrapper, tag))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmake", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    a.source = os.path.realpath(a.source)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    prefix = os.path.join(a.work, "prefix")
    rc, _ = run([a.cmake, "--install", a.build, "--prefix", prefix])
    if rc != 0:
        sys.exit("FAIL: cmake --install")
    for f in ("bin/mpifort", "bin/mpif90", "bin/mpif77", "include/mpif.h", "include/mpi.mod",
              "include/mpi_f08.mod", "lib/libmpifort.so"):
        if not os.path.exists(os.path.join(prefix, f)):
            fail("not installed: " + f)
    for tag, where in (("build", os.path.realpath(a.build)), ("install", prefix)):
        check_queries(where)
        build_and_run(where, a.source, a.work, tag)
    rc, _ = run([sys.executable, os.path.join(a.source, "compile_fail.py"), "--fc",
                 os.path.join(prefix, "bin", "mpifort"), "--work",
                 os.path.join(a.work, "compile_fail")])
    if rc != 0:
        fail("use mpi's compile-time checks through the installed mpifort")
    if failures:
        sys.exit("%d failure(s)" % len(failures))
    print("PASS: mpifort, mpif90, mpif77")


if __name__ == "__main__":
    main()
