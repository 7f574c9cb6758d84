#!/usr/bin/env python3
"""Generates the source of the module `mpi_f08` from mpi.h (usage: gen_f08.py mpi.h
mpi_f08.f90). See docs/fortran.md.

Handles are BIND(C) derived types of one INTEGER (type(MPI_Comm) ... with component
MPI_VAL), MPI_Status a BIND(C) type laid out as C's struct, IERROR is OPTIONAL. A BIND(C)
type of one integer passed by reference is, to C, an MPI_Fint *: so every call is a BIND(C)
interface to the very wrapper the `mpi` module calls (gen_wrappers.py; they accept an
absent IERROR). Calls with CHARACTER arguments are module procedures that pass the lengths
explicitly to the same wrapper (BIND(C) has no hidden lengths). == and /= compare handles.
"""
import sys

import gen_fortran
import gen_wrappers
import mpi_h

F08_TYPE = {"MPI_Comm": "MPI_Comm", "MPI_Datatype": "MPI_Datatype",
            "MPI_Errhandler": "MPI_Errhandler", "MPI_Request": "MPI_Request",
            "MPI_Message": "MPI_Message", "MPI_Group": "MPI_Group", "MPI_Info": "MPI_Info",
            "MPI_Win": "MPI_Win", "MPI_Op": "MPI_Op", "MPI_File": "MPI_File"}
# MPI-1's deprecated attribute calls (MPI_Attr_get/put, MPI_Keyval_create)
NOT_IN_F08 = {"MPI_SOURCE", "MPI_TAG", "MPI_ERROR", "MPI_Attr_get", "MPI_Attr_put",
              "MPI_Keyval_create"}
# the abstract interface of each callback argument of the hand-written calls
CALLBACK_INTERFACES = {
    "comm_copy_attr_fn": "MPI_Comm_copy_attr_function",
    "comm_delete_attr_fn": "MPI_Comm_delete_attr_function",
    "type_copy_attr_fn": "MPI_Type_copy_attr_function",
    "type_delete_attr_fn": "MPI_Type_delete_attr_function",
    "win_copy_attr_fn": "MPI_Win_copy_attr_function",
    "win_delete_attr_fn": "MPI_Win_delete_attr_function",
    "query_fn": "MPI_Grequest_query_function", "free_fn": "MPI_Grequest_free_function",
    "cancel_fn": "MPI_Grequest_cancel_function"}
F08_SENTINELS = [("integer", "MPI_BOTTOM", "MPI_FORTRAN_BOTTOM"),
                 ("integer", "MPI_IN_PLACE", "MPI_FORTRAN_IN_PLACE"),
                 ("type(MPI_Status)", "MPI_STATUS_IGNORE", "MPI_FORTRAN_STATUS_IGNORE"),
                 ("type(MPI_Status)", "MPI_STATUSES_IGNORE(1)", "MPI_FORTRAN_STATUSES_IGNORE"),
                 ("integer", "MPI_UNWEIGHTED(1)", "MPI_FORTRAN_UNWEIGHTED"),
                 ("integer", "MPI_WEIGHTS_EMPTY(1)", "MPI_FORTRAN_WEIGHTS_EMPTY"),
                 ("integer", "MPI_ERRCODES_IGNORE(1)", "MPI_FORTRAN_ERRCODES_IGNORE"),
                 ("character(len=1)", "MPI_ARGV_NULL(1)", "MPI_FORTRAN_ARGV_NULL"),
                 ("character(len=1)", "MPI_ARGVS_NULL(1,1)", "MPI_FORTRAN_ARGVS_NULL")]


def handle_type(a):
    base = a.ctype.replace("const", "").replace("*", "").strip()
    return F08_TYPE[base]


def declaration(a, for_c):
    """The declaration of dummy a; for_c: in the BIND(C) interface of a string call."""
    n = a.name
    dims = gen_fortran.DIMS[a.array]
    if a.kind == "handle":
        return ["type(%s) :: %s%s" % (handle_type(a), n, dims)]
    if a.kind == "status":
        return ["type(MPI_Status) :: %s%s" % (n, "(*)" if a.array else "")]
    if a.kind in ("string_in", "string_out"):
        return ["character(kind=c_char) :: %s(*)" % n if for_c
                else "character(len=*) :: %s%s" % (n, dims)]
    if a.kind == "callback":
        return ["type(c_funptr), value :: %s" % n if for_c
                else "procedure(%s) :: %s" % (a.ctype.replace("*", "").strip(), n)]
    return gen_fortran.declaration(a)


def needs_procedure(args):
    """Calls a BIND(C) interface cannot express: CHARACTER lengths, Fortran callbacks."""
    return any(a.kind in ("string_in", "string_out", "callback") for a in args)


# F08's callback interfaces (MPI-3.1 §17.1.4 ABSTRACT INTERFACEs): the C convention
ABSTRACT = """abstract interface
  subroutine MPI_User_function(invec, inoutvec, len, datatype)
    import
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
  end subroutine MPI_User_function
  subroutine MPI_Comm_errhandler_function(comm, error_code)
    import
    type(MPI_Comm) :: comm
    integer :: error_code
  end subroutine MPI_Comm_errhandler_function
  subroutine MPI_Win_errhandler_function(win, error_code)
    import
    type(MPI_Win) :: win
    integer :: error_code
  end subroutine MPI_Win_errhandler_function
  subroutine MPI_File_errhandler_function(file, error_code)
    import
    type(MPI_File) :: file
    integer :: error_code
  end subroutine MPI_File_errhandler_function
""" + "".join("""  subroutine MPI_%(K)s_copy_attr_function(old%(k)s, %(k)s_keyval, extra_state, &
      attribute_val_in, attribute_val_out, flag, ierror)
    import
    type(MPI_%(T)s) :: old%(k)s
    integer :: %(k)s_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
  end subroutine MPI_%(K)s_copy_attr_function
  subroutine MPI_%(K)s_delete_attr_function(%(k)s, %(k)s_keyval, attribute_val, extra_state, &
      ierror)
    import
    type(MPI_%(T)s) :: %(k)s
    integer :: %(k)s_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
  end subroutine MPI_%(K)s_delete_attr_function
""" % {"K": K, "k": K.lower(), "T": T} for K, T in (("Comm", "Comm"), ("Type", "Datatype"),
                                                   ("Win", "Win"))) + """  subroutine MPI_Grequest_query_function(extra_state, status, ierror)
    import
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Status) :: status
    integer :: ierror
  end subroutine MPI_Grequest_query_function
  subroutine MPI_Grequest_free_function(extra_state, ierror)
    import
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
  end subroutine MPI_Grequest_free_function
  subroutine MPI_Grequest_cancel_function(extra_state, complete, ierror)
    import
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
  end subroutine MPI_Grequest_cancel_function
end interface"""

# The predefined keyval callbacks as module procedures of their abstract interfaces
PREDEFINED_CALLBACKS = "".join("""subroutine MPI_%(K)s_NULL_COPY_FN(old%(k)s, %(k)s_keyval, extra_state, &
    attribute_val_in, attribute_val_out, flag, ierror)
  type(MPI_%(T)s) :: old%(k)s
  integer :: %(k)s_keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
  logical :: flag
  flag = .false.
  ierror = MPI_SUCCESS
end subroutine MPI_%(K)s_NULL_COPY_FN
subroutine MPI_%(K)s_DUP_FN(old%(k)s, %(k)s_keyval, extra_state, attribute_val_in, &
    attribute_val_out, flag, ierror)
  type(MPI_%(T)s) :: old%(k)s
  integer :: %(k)s_keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
  logical :: flag
  attribute_val_out = attribute_val_in
  flag = .true.
  ierror = MPI_SUCCESS
end subroutine MPI_%(K)s_DUP_FN
subroutine MPI_%(K)s_NULL_DELETE_FN(%(k)s, %(k)s_keyval, attribute_val, extra_state, ierror)
  type(MPI_%(T)s) :: %(k)s
  integer :: %(k)s_keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
  ierror = MPI_SUCCESS
end subroutine MPI_%(K)s_NULL_DELETE_FN
""" % {"K": K.upper(), "k": K.lower(), "T": T} for K, T in (("Comm", "Comm"), ("Type", "Datatype"),
                                                          ("Win", "Win")))


def bind_c_interface(fname, cname, ret, args, with_lengths):
    names = [a.name for a in args] + (["ierror"] if ret == "int" else [])
    strings = [a for a in args if a.kind in ("string_in", "string_out")]
    if with_lengths:
        names += [a.name + "_len" for a in strings]
    head = {"int": "subroutine", "double": "function", "MPI_Aint": "function"}[ret]
    result = {"int": "", "double": " result(r)", "MPI_Aint": " result(r)"}[ret]
    lines = ['%s %s(%s) bind(C, name="%s")%s' % (head, fname, ", ".join(names), cname, result),
             "  import", "  implicit none"]
    for a in args:
        lines += ["  " + d for d in declaration(a, True)]
    if ret == "int":
        lines.append("  integer, optional :: ierror")
    elif ret == "double":
        lines.append("  real(c_double) :: r")
    else:
        lines.append("  integer(kind=MPI_ADDRESS_KIND) :: r")
    for a in strings if with_lengths else []:
        lines.append("  integer(c_size_t), value :: %s_len" % a.name)
    lines.append("end %s %s" % (head, fname))
    return lines


def string_procedure(fname, helper, args):
    """A module procedure fname calling the BIND(C) interface helper with the lengths."""
    names = [a.name for a in args]
    lines = ["subroutine %s(%s, ierror)" % (fname, ", ".join(names))]
    for a in args:
        lines += ["  " + d for d in declaration(a, False)]
    lines.append("  integer, optional :: ierror")
    lengths = ["len(%s, kind=c_size_t)" % a.name for a in args
               if a.kind in ("string_in", "string_out")]
    actual = ["c_funloc(%s)" % a.name if a.kind == "callback" else a.name for a in args]
    lines.append("  call %s(%s)" % (helper, ", ".join(actual + ["ierror"] + lengths)))
    lines.append("end subroutine %s" % fname)
    return lines


def write(path, functions, constants, handle_types):
    calls = [(f.name, f.ret, f.args) for f in gen_wrappers.covered(functions)
             if f.name not in NOT_IN_F08]
    calls += [(n, "int", [gen_fortran.SimpleArg(*a) for a in args])
              for n, args in gen_fortran.SPECIAL.items() if n not in NOT_IN_F08]
    for name, _, args in calls:  # the special calls' handles and callbacks get F08 types
        for a in args:
            if a.kind == "handle" and not hasattr(a, "ctype"):
                a.ctype = {"comm": "MPI_Comm", "datatype": "MPI_Datatype", "win": "MPI_Win",
                           "info": "MPI_Info", "request": "MPI_Request",
                           "intercomm": "MPI_Comm", "array_of_info": "MPI_Info"}[a.name]
            if a.kind == "callback" and not hasattr(a, "ctype"):
                a.ctype = CALLBACK_INTERFACES[a.name]
    interfaces, procedures = [], []
    for name, ret, args in calls:
        strings = needs_procedure(args)
        for prefix in ("", "P"):
            fname = prefix + name
            cname = prefix.lower() + "mpi_" + name[4:].lower() + "_"
            if not strings:
                interfaces += bind_c_interface(fname, cname, ret, args, False)
                continue
            helper = "metampi_c_" + fname.lower()  # public: BIND(C) names cannot be private
            interfaces += bind_c_interface(helper, cname, ret, args, True)
            procedures += string_procedure(fname, helper, args)
    out = ["! The module `mpi_f08`, generated from mpi.h by src/fortran/gen_f08.py.",
           "module mpi_f08",
           "  use, intrinsic :: iso_c_binding, only: c_char, c_double, c_size_t, c_long_long, &",
           "                                         c_ptr, c_funptr, c_funloc",
           "  implicit none",
           "  private :: c_char, c_double, c_size_t, c_long_long, c_funptr, c_funloc"]
    for t in sorted(set(F08_TYPE.values())):
        out += ["  type, bind(C) :: %s" % t, "    integer :: MPI_VAL", "  end type %s" % t]
    out += ["  type, bind(C) :: MPI_Status",
            "    integer :: MPI_SOURCE, MPI_TAG, MPI_ERROR",
            "    integer :: metampi_cancelled",
            "    integer(c_long_long) :: metampi_count",
            "  end type MPI_Status"]
    for name, value in gen_fortran.constants(constants):
        if name in NOT_IN_F08:
            continue
        if name in handle_types:
            t = F08_TYPE[handle_types[name]]
            out.append("  type(%s), parameter :: %s = %s(%d)" % (t, name, t, value))
        else:
            out.append("  integer, parameter :: %s = %d" % (name, value))
    out += ["  logical, parameter :: %s = %s" % (n, ".true." if v else ".false.")
            for n, v in gen_fortran.LOGICAL_CONSTANTS]
    out += ["  " + line for line in ABSTRACT.split("\n")]
    for decl, var, block in F08_SENTINELS:
        out += ["  %s :: %s" % (decl, var), "  common /%s/ %s" % (block, var.split("(")[0])]
    for op, suffix in (("==", "eq"), ("/=", "ne")):
        out.append("  interface operator(%s)" % op)
        out += ["    module procedure metampi_%s_%s" % (t.lower(), suffix)
                for t in sorted(set(F08_TYPE.values()))]
        out.append("  end interface")
    out.append("  interface")
    for line in interfaces:
        out += gen_fortran.free_form("    " + line, "")
    out += ["  end interface", "contains"]
    out += gen_fortran.sizeof_procedure("optional, ").rstrip("\n").split("\n")
    out += ["  " + line for line in PREDEFINED_CALLBACKS.rstrip("\n").split("\n")]
    for t in sorted(set(F08_TYPE.values())):
        for suffix, op in (("eq", "=="), ("ne", "/=")):
            f = "metampi_%s_%s" % (t.lower(), suffix)
            out += ["  elemental logical function %s(a, b)" % f,
                    "    type(%s), intent(in) :: a, b" % t,
                    "    %s = a%%MPI_VAL %s b%%MPI_VAL" % (f, op),
                    "  end function %s" % f]
    for line in procedures:
        out += gen_fortran.free_form("  " + line, "")
    out.append("end module mpi_f08")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def main():
    functions, constants, handle_types = mpi_h.read_typed(sys.argv[1])
    write(sys.argv[2], functions, constants, handle_types)


if __name__ == "__main__":
    main()
