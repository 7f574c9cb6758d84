#!/usr/bin/env python3
"""Generates mpif.h and the source of the `mpi` module from mpi.h (usage: gen_fortran.py
mpi.h mpif.h mpi.f90). See docs/fortran.md.

mpif.h: every integer constant of mpi.h with the value C uses (handles as their Fortran
integers), the Fortran-only ones, the sentinels in their COMMON blocks, the types of the
functions. Written so it is valid fixed and free form (statements from column 7, at most 72
columns, no continuation lines, comments starting with '!').

mpi.f90: the module `mpi`, the same declarations and an explicit interface for every call
the wrappers provide, so a call with a wrong number or type of arguments does not compile;
choice buffers take any type and rank (!GCC$ ATTRIBUTES NO_ARG_CHECK with TYPE(*)).
"""
import sys

import gen_wrappers
import mpi_h

FORTRAN_ONLY = [("MPI_SOURCE", 1), ("MPI_TAG", 2), ("MPI_ERROR", 3),
                ("MPI_ADDRESS_KIND", 8), ("MPI_OFFSET_KIND", 8), ("MPI_COUNT_KIND", 8),
                ("MPI_INTEGER_KIND", 4)]
C_ONLY = {"MPI_F_SOURCE", "MPI_F_TAG", "MPI_F_ERROR", "MPI_F_STATUS_SIZE"}
# MPI-3.1 §17.1.2: choice buffers are addresses (no array descriptors), and nothing makes
# the buffers of nonblocking calls ASYNCHRONOUS for the compiler
LOGICAL_CONSTANTS = [("MPI_SUBARRAYS_SUPPORTED", False), ("MPI_ASYNC_PROTECTS_NONBLOCKING", False)]
# (declaration, variable, COMMON block)
SENTINELS = [("INTEGER", "MPI_BOTTOM", "MPI_FORTRAN_BOTTOM"),
             ("INTEGER", "MPI_IN_PLACE", "MPI_FORTRAN_IN_PLACE"),
             ("INTEGER", "MPI_STATUS_IGNORE(MPI_STATUS_SIZE)", "MPI_FORTRAN_STATUS_IGNORE"),
             ("INTEGER", "MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)",
              "MPI_FORTRAN_STATUSES_IGNORE"),
             ("INTEGER", "MPI_UNWEIGHTED", "MPI_FORTRAN_UNWEIGHTED"),
             ("INTEGER", "MPI_WEIGHTS_EMPTY", "MPI_FORTRAN_WEIGHTS_EMPTY"),
             ("INTEGER", "MPI_ERRCODES_IGNORE(1)", "MPI_FORTRAN_ERRCODES_IGNORE"),
             ("CHARACTER*1", "MPI_ARGV_NULL(1)", "MPI_FORTRAN_ARGV_NULL"),
             ("CHARACTER*1", "MPI_ARGVS_NULL(1,1)", "MPI_FORTRAN_ARGVS_NULL")]

# The Fortran arguments of the hand-written calls (special.c, spawn.c, keyval.c, grequest.c):
# (name, kind, array); array 3 is spawn_multiple's ARRAY_OF_ARGV(COUNT, *)
SPECIAL = {
    "MPI_Init": [],
    "MPI_Init_thread": [("required", "int", 0), ("provided", "int", 0)],
    "MPI_Info_create_env": [("info", "handle", 0)],
    "MPI_Info_get_string": [("info", "handle", 0), ("key", "string_in", 0),
                            ("buflen", "int", 0), ("value", "string_out", 0),
                            ("flag", "logical", 0)],
    "MPI_Buffer_detach": [("buffer_addr", "choice", 0), ("size", "int", 0)],
    "MPI_Comm_get_attr": [("comm", "handle", 0), ("comm_keyval", "int", 0),
                          ("attribute_val", "aint", 0), ("flag", "logical", 0)],
    "MPI_Type_get_attr": [("datatype", "handle", 0), ("type_keyval", "int", 0),
                          ("attribute_val", "aint", 0), ("flag", "logical", 0)],
    "MPI_Win_get_attr": [("win", "handle", 0), ("win_keyval", "int", 0),
                         ("attribute_val", "aint", 0), ("flag", "logical", 0)],
    "MPI_Attr_get": [("comm", "handle", 0), ("keyval", "int", 0), ("attribute_val", "int", 0),
                     ("flag", "logical", 0)],
    "MPI_Comm_create_keyval": [("comm_copy_attr_fn", "callback", 0),
                               ("comm_delete_attr_fn", "callback", 0),
                               ("comm_keyval", "int", 0), ("extra_state", "aint", 0)],
    "MPI_Type_create_keyval": [("type_copy_attr_fn", "callback", 0),
                               ("type_delete_attr_fn", "callback", 0),
                               ("type_keyval", "int", 0), ("extra_state", "aint", 0)],
    "MPI_Win_create_keyval": [("win_copy_attr_fn", "callback", 0),
                              ("win_delete_attr_fn", "callback", 0),
                              ("win_keyval", "int", 0), ("extra_state", "aint", 0)],
    "MPI_Keyval_create": [("copy_fn", "callback", 0), ("delete_fn", "callback", 0),
                          ("keyval", "int", 0), ("extra_state", "int", 0)],
    "MPI_Comm_set_attr": [("comm", "handle", 0), ("comm_keyval", "int", 0),
                          ("attribute_val", "aint", 0)],
    "MPI_Type_set_attr": [("datatype", "handle", 0), ("type_keyval", "int", 0),
                          ("attribute_val", "aint", 0)],
    "MPI_Win_set_attr": [("win", "handle", 0), ("win_keyval", "int", 0),
                         ("attribute_val", "aint", 0)],
    "MPI_Attr_put": [("comm", "handle", 0), ("keyval", "int", 0), ("attribute_val", "int", 0)],
    "MPI_Comm_spawn": [("command", "string_in", 0), ("argv", "string_in", 1),
                       ("maxprocs", "int", 0), ("info", "handle", 0), ("root", "int", 0),
                       ("comm", "handle", 0), ("intercomm", "handle", 0),
                       ("array_of_errcodes", "int", 1)],
    "MPI_Comm_spawn_multiple": [("count", "int", 0), ("array_of_commands", "string_in", 1),
                                ("array_of_argv", "string_in", 3),
                                ("array_of_maxprocs", "int", 1), ("array_of_info", "handle", 1),
                                ("root", "int", 0), ("comm", "handle", 0),
                                ("intercomm", "handle", 0), ("array_of_errcodes", "int", 1)],
    "MPI_Grequest_start": [("query_fn", "callback", 0), ("free_fn", "callback", 0),
                           ("cancel_fn", "callback", 0), ("extra_state", "aint", 0),
                           ("request", "handle", 0)],
}
# the predefined Fortran callbacks of the keyvals (keyval.c)
CALLBACKS = ["MPI_COMM_NULL_COPY_FN", "MPI_COMM_DUP_FN", "MPI_COMM_NULL_DELETE_FN",
             "MPI_TYPE_NULL_COPY_FN", "MPI_TYPE_DUP_FN", "MPI_TYPE_NULL_DELETE_FN",
             "MPI_WIN_NULL_COPY_FN", "MPI_WIN_DUP_FN", "MPI_WIN_NULL_DELETE_FN",
             "MPI_NULL_COPY_FN", "MPI_DUP_FN", "MPI_NULL_DELETE_FN"]


class SimpleArg:
    def __init__(self, name, kind, array):
        self.name, self.kind, self.array = name, kind, array


def constants(c_constants):
    result = [(n, v) for n, v in c_constants.items()
              if n not in C_ONLY and not n.startswith(mpi_h.C_ONLY_PREFIX)]
    return result + FORTRAN_ONLY


def fixed_form(line):
    assert len(line) <= 72, "mpif.h line longer than 72 columns: " + line
    return line + "\n"


def write_mpif(path, c_constants, calls):
    with open(path, "w", encoding="utf-8") as out:
        out.write("! mpif.h: metampi's Fortran declarations, generated from mpi.h by\n"
                  "! src/fortran/gen_fortran.py. Valid fixed and free form.\n")
        for name, value in constants(c_constants):
            out.write(fixed_form("      INTEGER %s" % name))
            out.write(fixed_form("      PARAMETER (%s=%d)" % (name, value)))
        for name, value in LOGICAL_CONSTANTS:
            out.write(fixed_form("      LOGICAL %s" % name))
            out.write(fixed_form("      PARAMETER (%s=%s)" % (name, ".TRUE." if value
                                                              else ".FALSE.")))
        for decl, var, block in SENTINELS:
            out.write(fixed_form("      %s %s" % (decl, var)))
            out.write(fixed_form("      COMMON /%s/ %s" % (block, var.split("(")[0])))
        for name in CALLBACKS:
            out.write(fixed_form("      EXTERNAL %s" % name))
        for f in calls:
            if f.ret == "double":
                out.write(fixed_form("      DOUBLE PRECISION %s, P%s" % (f.name.upper(),
                                                                          f.name.upper())))
                out.write(fixed_form("      EXTERNAL %s, P%s" % (f.name.upper(),
                                                                 f.name.upper())))
            elif f.ret == "MPI_Aint":
                out.write(fixed_form("      INTEGER(KIND=MPI_ADDRESS_KIND) %s" %
                                     f.name.upper()))
                out.write(fixed_form("      EXTERNAL %s" % f.name.upper()))


# an argument's dimensions by its `array`: scalar, array, ranges(3, *), ARRAY_OF_ARGV(COUNT, *)
DIMS = {0: "", 1: "(*)", 2: "(3, *)", 3: "(count, *)"}


def declaration(a):
    """The Fortran declaration of dummy argument a in an interface body."""
    n = a.name
    dims = DIMS[a.array]
    if a.kind == "choice":
        return ["!GCC$ ATTRIBUTES NO_ARG_CHECK :: %s" % n, "type(*), dimension(*) :: %s" % n]
    if a.kind == "callback":
        return ["external :: %s" % n]
    if a.kind in ("string_in", "string_out"):
        return ["character(len=*) :: %s%s" % (n, dims)]
    if a.kind == "status":
        return ["integer :: %s(MPI_STATUS_SIZE%s)" % (n, ", *" if a.array else "")]
    if a.kind == "logical":
        return ["logical :: %s%s" % (n, dims)]
    if a.kind == "aint":
        return ["integer(kind=MPI_ADDRESS_KIND) :: %s%s" % (n, dims)]
    if a.kind == "count":
        return ["integer(kind=MPI_COUNT_KIND) :: %s%s" % (n, dims)]
    return ["integer :: %s%s" % (n, dims)]


def free_form(line, indent):
    """line, continued with '&' so no line passes 100 columns."""
    out, rest = [], line
    while len(indent) + len(rest) > 100:
        cut = rest.rfind(", ", 0, 100 - len(indent) - 2) + 1
        out.append(indent + rest[:cut] + " &")
        rest = "    " + rest[cut:].lstrip()
    return out + [indent + rest]


def interface(name, ret, args, profiled):
    fname = ("P" if profiled else "") + name.upper()
    names = [a.name for a in args] + (["ierror"] if ret == "int" else [])
    kind = {"int": "subroutine", "double": "function", "MPI_Aint": "function"}[ret]
    head = {"int": "subroutine", "double": "double precision function",
            "MPI_Aint": "integer(kind=MPI_ADDRESS_KIND) function"}[ret]
    lines = ["%s %s(%s)" % (head, fname, ", ".join(names)),
             "  import :: MPI_ADDRESS_KIND, MPI_COUNT_KIND, MPI_STATUS_SIZE",
             "  implicit none"]
    for a in args:
        lines += ["  " + d for d in declaration(a)]
    if ret == "int":
        lines.append("  integer :: ierror")
    lines.append("end %s %s" % (kind, fname))
    return lines


def sizeof_procedure(optional):
    """MPI_SIZEOF (MPI-3.1 §17.1.9): the bytes of x's type, any intrinsic type, any rank;
    optional: "optional, " for mpi_f08's IERROR."""
    return ("  subroutine MPI_SIZEOF(x, size, ierror)\n"
            "    class(*), intent(in) :: x(..)\n"
            "    integer, intent(out) :: size\n"
            "    integer, %sintent(out) :: ierror\n"
            "    size = int(storage_size(x) / 8)\n"
            "%s"
            "  end subroutine MPI_SIZEOF\n"
            % (optional, "    if (present(ierror)) ierror = MPI_SUCCESS\n" if optional
               else "    ierror = MPI_SUCCESS\n"))


def write_module(path, c_constants, calls):
    with open(path, "w", encoding="utf-8") as out:
        out.write("! The module `mpi`, generated from mpi.h by src/fortran/gen_fortran.py.\n"
                  "module mpi\n  implicit none\n")
        for name, value in constants(c_constants):
            out.write("  integer, parameter :: %s = %d\n" % (name, value))
        for name, value in LOGICAL_CONSTANTS:
            out.write("  logical, parameter :: %s = %s\n" % (name, ".true." if value
                                                                else ".false."))
        for decl, var, block in SENTINELS:
            out.write("  %s :: %s\n" % (decl.replace("*", "(len=") + ")"
                                         if "*" in decl else decl, var))
            out.write("  common /%s/ %s\n" % (block, var.split("(")[0]))
        for name in CALLBACKS:
            out.write("  external :: %s\n" % name)
        out.write("  interface\n")
        for name, ret, args in calls:
            if name == "MPI_Pcontrol":  # no IERROR (MPI-3.1 §14.2.4)
                lines = ["subroutine MPI_PCONTROL(level)", "  integer :: level",
                         "end subroutine MPI_PCONTROL"]
                out.write("".join("    %s\n" % line for line in lines))
                continue
            for profiled in (False, True):
                for line in interface(name, ret, args, profiled):
                    out.write("".join("%s\n" % part for part in free_form(line, "    ")))
        out.write("  end interface\ncontains\n")
        out.write(sizeof_procedure(""))
        out.write("end module mpi\n")


def main():
    functions, c_constants = mpi_h.read(sys.argv[1])
    generated = gen_wrappers.covered(functions)
    calls = [(f.name, f.ret, f.args) for f in generated]
    calls += [(n, "int", [SimpleArg(*a) for a in args]) for n, args in SPECIAL.items()]
    calls.append(("MPI_Pcontrol", "int", []))
    write_mpif(sys.argv[2], c_constants, generated)
    write_module(sys.argv[3], c_constants, calls)


if __name__ == "__main__":
    main()
