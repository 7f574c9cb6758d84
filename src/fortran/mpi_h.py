"""The one description of the C API for the Fortran bindings: include/mpi.h, read.

Every Fortran binding (the C wrappers, mpif.h, the `mpi` module) is generated from what this
module finds in mpi.h: the prototypes of MPI_X (one per line there) and the #define'd
integer constants. What cannot be read from a C prototype, because C says it in the
standard's prose, is in the small tables below: which int arguments are Fortran LOGICALs,
which indices are 1-based in Fortran, which calls are written by hand (fortran/special.c) or
left out (with the reason).
"""
import re

# int (and int *, int []) arguments that are LOGICAL in Fortran (MPI-3.1 bindings)
LOGICAL_ARGS = {"flag", "reorder", "periods", "remain_dims", "commute", "weighted", "high"}
# indices into arrays of requests: 0-based in C, 1-based in Fortran (MPI-3.1 §3.7.5)
INDEX_ARGS = {"index", "array_of_indices"}
# integer arrays that may be the sentinels MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY
WEIGHT_ARGS = {"weights", "sourceweights", "destweights"}
# void * arguments that are not choice buffers: handled by hand or not at all
NOT_CHOICE = {"attribute_val", "extra_state", "buffer_addr"}
# void * arguments through which C stores a pointer: INTEGER(KIND=MPI_ADDRESS_KIND) in Fortran
ADDRESS_OUT = {"baseptr"}

# calls whose Fortran form differs from the C one beyond the mechanical rules: in special.c,
# keyval.c and grequest.c
HANDWRITTEN = {
    "MPI_Init": "no argc/argv in Fortran",
    "MPI_Init_thread": "no argc/argv in Fortran",
    "MPI_Info_create_env": "no argc/argv in Fortran",
    "MPI_Pcontrol": "C's is variadic",
    "MPI_Buffer_detach": "the buffer address is returned through a C pointer",
    "MPI_Comm_get_attr": "attribute values are integers in Fortran, pointers in C",
    "MPI_Type_get_attr": "attribute values are integers in Fortran, pointers in C",
    "MPI_Win_get_attr": "attribute values are integers in Fortran, pointers in C",
    "MPI_Attr_get": "attribute values are integers in Fortran, pointers in C",
    # keyval.c: Fortran copy/delete callbacks through C trampolines
    "MPI_Comm_create_keyval": "Fortran callbacks (keyval.c)",
    "MPI_Type_create_keyval": "Fortran callbacks (keyval.c)",
    "MPI_Win_create_keyval": "Fortran callbacks (keyval.c)",
    "MPI_Keyval_create": "Fortran callbacks (keyval.c)",
    "MPI_Comm_set_attr": "attribute values are integers in Fortran (keyval.c)",
    "MPI_Type_set_attr": "attribute values are integers in Fortran (keyval.c)",
    "MPI_Win_set_attr": "attribute values are integers in Fortran (keyval.c)",
    "MPI_Attr_put": "attribute values are integers in Fortran (keyval.c)",
    "MPI_Grequest_start": "Fortran callbacks (grequest.c)",
    "MPI_Info_get_string": "Fortran's buflen counts no terminator (MPI-4.0 §10)",
    # spawn.c: ARGV is an array of blank-padded strings ended by a blank one
    "MPI_Comm_spawn": "Fortran arrays of blank-padded strings (spawn.c)",
    "MPI_Comm_spawn_multiple": "Fortran arrays of blank-padded strings (spawn.c)",
}
# calls with no Fortran binding here, and why (docs/fortran.md lists them)
LEFT_OUT = {
    "MPI_Status_c2f": "C-only (language interoperability)",
    "MPI_Status_f2c": "C-only (language interoperability)",
    "MPI_Register_datarep": "no trampolines yet for Fortran conversion functions",
}
# the tools information interface (MPI-3.1 §14.3) has C bindings only: its calls and constants
C_ONLY_PREFIX = "MPI_T_"
# callback types whose C and Fortran calling conventions are the same (all arguments by
# reference, MPI_Fint handles): the Fortran procedure is passed to C as it is
SAME_ABI_CALLBACKS = {"MPI_User_function", "MPI_Comm_errhandler_function",
                      "MPI_Win_errhandler_function", "MPI_File_errhandler_function"}

HANDLE_TYPES = {"MPI_Comm", "MPI_Datatype", "MPI_Errhandler", "MPI_Request", "MPI_Message",
                "MPI_Group", "MPI_Info", "MPI_Win", "MPI_Op", "MPI_File"}

PROTO = re.compile(r"^(int|double|MPI_Aint) (MPI_\w+)\((.*)\);$")
DEFINE = re.compile(r"^#define (MPI_\w+|METAMPI_\w+)\s+(.+?)\s*(/\*.*)?$")


class Arg:
    """One C parameter and what it is in Fortran.

    kind: int | logical | handle | aint | count | choice | status | string_in | string_out
          | callback; array: 0 scalar, 1 array, 2 ranges(3,*); out: written by the call."""

    def __init__(self, ctype, name, array):
        self.ctype, self.name = ctype, name
        base = ctype.replace("const ", "").strip()
        self.const = ctype.startswith("const")
        pointer = base.endswith("*")
        base = base.rstrip("* ").strip()
        self.array = 2 if array == "[][3]" else 1 if array == "[]" else 0
        self.out = False
        if base in SAME_ABI_CALLBACKS:
            self.kind = "callback"
            return
        if base == "char":
            self.kind = "string_in" if self.const else "string_out"
            self.array = 0
            return
        if base == "void" and pointer and name in ADDRESS_OUT:
            self.kind, self.out, self.by_pointer = "aint", True, True
            return
        if base == "void" and pointer:
            self.kind = "opaque" if name in NOT_CHOICE else "choice"
            return
        if base == "MPI_Status":
            self.kind = "status"
            self.out = not self.const
            return
        if name in WEIGHT_ARGS and pointer:  # const int *weights: an array
            self.array = 1
            pointer = False
        self.kind = {"int": "int", "MPI_Aint": "aint", "MPI_Count": "count",
                     "MPI_Offset": "count", "MPI_Fint": "fint"}.get(base)
        if base in HANDLE_TYPES:
            self.kind = "handle"
        if self.kind is None:
            self.kind = "unknown:" + base
            return
        if self.kind == "int" and name in LOGICAL_ARGS:
            self.kind = "logical"
        self.out = pointer and not self.const
        self.by_pointer = pointer or self.array > 0


class Function:
    def __init__(self, ret, name, params):
        self.ret, self.name = ret, name
        self.args = []
        if params.strip() not in ("void", ""):
            for p in params.split(","):
                p = p.strip()
                m = re.match(r"^(.*?)(\w+)(\[\]\[3\]|\[\])?$", p)
                if not m:
                    self.args.append(Arg("unknown", p, None))
                    continue
                self.args.append(Arg(m.group(1).strip(), m.group(2), m.group(3)))

    def problem(self):
        """None when the mechanical rules cover the call, else why not."""
        for a in self.args:
            if a.kind.startswith("unknown"):
                return "argument %s of C type %s" % (a.name, a.ctype)
            if a.kind == "opaque":
                return "argument %s is not a buffer" % a.name
            if a.kind == "fint":
                return "C-only"
        return None


def read(path):
    """(functions, constants): the MPI_X prototypes, and {name: int value} of mpi.h."""
    functions, constants, _ = read_typed(path)
    return functions, constants


def read_typed(path):
    """read(), and {name: handle type} of the constants that are handles (((MPI_Comm)0x...)
    and the names defined as one of them)."""
    functions, constants, handle_types = [], {}, {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        m = PROTO.match(line)
        if m and not m.group(2).startswith("PMPI_"):
            functions.append(Function(m.group(1), m.group(2), m.group(3)))
            continue
        m = DEFINE.match(line)
        if m:
            value = constant_value(m.group(2), constants)
            if value is not None:
                constants[m.group(1)] = value
                cast = re.match(r"^\(\((MPI_\w+)\)", m.group(2).strip())
                if cast and cast.group(1) in HANDLE_TYPES:
                    handle_types[m.group(1)] = cast.group(1)
                elif m.group(2).strip() in handle_types:
                    handle_types[m.group(1)] = handle_types[m.group(2).strip()]
    return functions, constants, handle_types


def constant_value(text, known):
    """The integer a #define's text stands for: 12, (-3), 0x2c000001, ((MPI_Comm)0x04...),
    or another constant's name; None for pointers and anything else."""
    text = text.strip()
    m = re.match(r"^\(\((MPI_\w+)\)\s*(-?(?:0x[0-9a-fA-F]+|\d+))\)$", text)
    if m:
        return int(m.group(2), 0)
    m = re.match(r"^\(?(-?(?:0x[0-9a-fA-F]+|\d+))\)?$", text)
    if m:
        return int(m.group(1), 0)
    if re.match(r"^MPI_\w+$", text) and text in known:
        return known[text]
    return None
