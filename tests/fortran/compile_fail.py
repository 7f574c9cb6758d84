#!/usr/bin/env python3
"""`use mpi` and `use mpi_f08` give every call an explicit interface: a call with a wrong
number of arguments or a wrong non-buffer type (in mpi_f08 also an INTEGER for a handle)
must not compile, while the same call written correctly (with buffers of any type and rank,
and the sentinels) must.

usage: compile_fail.py --fc COMPILER [--flag F]... --work DIR
"""
import argparse
import os
import subprocess
import sys

GOOD = """program good
  use mpi
  implicit none
  integer :: ierr, i, status(MPI_STATUS_SIZE)
  double precision :: x(3, 2)
  complex :: z
  call MPI_INIT(ierr)
  call MPI_SEND(x, 6, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, ierr)
  call MPI_SEND(z, 1, MPI_COMPLEX, 0, 1, MPI_COMM_WORLD, ierr)
  call MPI_SEND(i, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, ierr)
  call MPI_RECV(x(1, 2), 3, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, status, ierr)
  call MPI_ALLREDUCE(MPI_IN_PLACE, x, 6, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_BCAST(MPI_BOTTOM, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_FINALIZE(ierr)
end program good
"""

GOOD_F08 = """program good_f08
  use mpi_f08
  implicit none
  integer :: i
  type(MPI_Status) :: status
  double precision :: x(3, 2)
  call MPI_Init()
  call MPI_Send(x, 6, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD)
  call MPI_Recv(i, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, status)
  call MPI_Allreduce(MPI_IN_PLACE, x, 6, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Finalize()
end program good_f08
"""

# (name, the faulty call, what gfortran must say)
BAD = [
    ("missing_ierror", "call MPI_SEND(x, 6, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD)",
     "Missing actual argument"),
    ("extra_argument",
     "call MPI_BARRIER(MPI_COMM_WORLD, ierr, ierr)", "More actual than formal arguments"),
    ("real_count", "call MPI_SEND(x, 6.0, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, ierr)",
     "Type mismatch"),
    ("f08_integer_handle", "call MPI_Send(x, 6, MPI_DOUBLE_PRECISION, 0, 1, 1)", "Type mismatch"),
    ("f08_integer_status", "call MPI_Recv(i, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, i)",
     "Type mismatch"),
    ("status_too_small",
     "call MPI_RECV(x, 6, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, ierr, ierr)",
     "Rank mismatch"),
]


def compile_one(fc, flags, work, name, source):
    path = os.path.join(work, name + ".f90")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    proc = subprocess.run(fc + flags + ["-c", path, "-o", os.path.join(work, name + ".o")],
                          cwd=work, capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fc", required=True)
    p.add_argument("--flag", action="append", default=[])
    p.add_argument("--work", required=True)
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    fc = a.fc.split()
    for name, good in (("good", GOOD), ("good_f08", GOOD_F08)):
        rc, out = compile_one(fc, a.flag, a.work, name, good)
        if rc != 0:
            sys.exit("FAIL the correct program %s does not compile:\n%s" % (name, out))
    failures = 0
    for name, call, message in BAD:
        if name.startswith("f08_"):
            source = GOOD_F08.replace("  call MPI_Finalize()", "  %s\n  call MPI_Finalize()" % call)
        else:
            source = GOOD.replace("  call MPI_FINALIZE(ierr)",
                                  "  %s\n  call MPI_FINALIZE(ierr)" % call)
        rc, out = compile_one(fc, a.flag, a.work, name, source)
        if rc == 0:
            print("FAIL %s compiled: %s" % (name, call))
            failures += 1
        elif message not in out:
            print("FAIL %s: no '%s' in the compiler's output:\n%s" % (name, message, out))
            failures += 1
        else:
            print("ok %s does not compile (%s)" % (name, message))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
