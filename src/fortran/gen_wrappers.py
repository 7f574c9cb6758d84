#!/usr/bin/env python3
"""Generates the Fortran-callable C wrappers of every MPI_X that mpi.h declares (usage:
gen_wrappers.py mpi.h out.c). See docs/fortran.md.

For each call two bodies, mpi_x_ (calling MPI_X, so a C tool interposing MPI_X sees Fortran's
calls too) and pmpi_x_ (calling PMPI_X), each also exported as mpi_x__ (-fsecond-underscore)
and MPI_X (upper case, no underscore). Arguments arrive by reference, ierror last, the
lengths of CHARACTER arguments hidden after it (size_t, gfortran >= 8). IERROR may be absent
(NULL): mpi_f08's is OPTIONAL, and its BIND(C) interfaces call these same wrappers.
"""
import sys

import mpi_h

def c_param(a):
    """The wrapper's C parameter for argument a."""
    if a.kind == "choice":
        return "void *%s" % a.name
    if a.kind == "callback":
        return "%s *%s" % (a.ctype.replace("*", "").strip(), a.name)
    if a.kind in ("string_in", "string_out"):
        return "%schar *%s" % ("const " if a.kind == "string_in" else "", a.name)
    if a.kind in ("aint", "count") and a.name != "baseptr":
        return "%s *%s" % ("MPI_Aint" if a.kind == "aint" else "MPI_Count", a.name)
    if a.name == "baseptr":
        return "MPI_Aint *%s" % a.name
    return "MPI_Fint *%s" % a.name


def c_value(f, a):
    """The expression the wrapper passes to the C call for argument a."""
    n = a.name
    if a.kind == "choice":
        return "F_BUFFER(%s)" % n
    if a.kind == "callback":
        return n
    if a.kind == "string_in":
        return "c_" + n
    if a.kind == "string_out":
        return "c_" + n
    if a.kind == "status":
        return ("F_STATUSES(%s)" if a.array else "F_STATUS(%s)") % n
    if a.name in mpi_h.WEIGHT_ARGS:
        return "F_WEIGHTS(%s)" % n
    if a.name == "baseptr":
        return "(void *)%s" % n
    if a.array == 2:
        return "(int (*)[3])%s" % n
    if a.out or a.array:
        if a.kind == "handle":
            base = a.ctype.replace("const", "").replace("*", "").strip()
            return "(%s%s *)%s" % ("const " if a.const else "", base, n)
        return n
    if f.name == "MPI_Info_get" and n == "valuelen":
        return "fstring_clamp(*valuelen, value_len)"
    return "*" + n


def body(f, callee):
    """The statements of one wrapper, calling `callee` (MPI_X or PMPI_X)."""
    lines = []
    strings_in = [a for a in f.args if a.kind == "string_in"]
    strings_out = [a for a in f.args if a.kind == "string_out"]
    for a in strings_in:
        lines.append("char *c_%s = fstring_in(%s, %s_len);" % (a.name, a.name, a.name))
    if strings_in:
        cond = " || ".join("!c_%s" % a.name for a in strings_in)
        frees = " ".join("free(c_%s);" % a.name for a in strings_in)
        lines.append("if (%s) {" % cond)
        if len(strings_in) > 1:
            lines.append("    %s" % frees)
        lines.append('    F_RETURN(ierror, fstring_no_memory("%s"));' % f.name)
        lines.append("    return;")
        lines.append("}")
    for a in strings_out:
        lines.append("char c_%s[FSTRING_OUT_MAX] = \"\";" % a.name)
    call = "%s(%s)" % (callee, ", ".join(c_value(f, a) for a in f.args))
    if f.ret != "int":
        lines.append("return %s;" % call)
        return lines
    lines.append("int rc = %s;" % call)
    for a in strings_in:
        lines.append("free(c_%s);" % a.name)
    for a in strings_out:
        lines.append("fstring_out(c_%s, %s, %s_len);" % (a.name, a.name, a.name))
    for a in f.args:
        if a.kind == "logical" and a.out and not a.array:
            lines.append("*%s = *%s != 0; /* gfortran's .TRUE. is 1 */" % (a.name, a.name))
    for a in f.args:
        if a.name == "index" and a.out and not a.array:
            lines.append("if (rc == MPI_SUCCESS && *index >= 0)")
            lines.append("    (*index)++; /* 1-based in Fortran */")
        if a.name == "array_of_indices":
            lines.append("if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)")
            lines.append("    for (int i = 0; i < *outcount; i++)")
            lines.append("        array_of_indices[i]++; /* 1-based in Fortran */")
    lines.append("F_RETURN(ierror, rc);")
    return lines


def emit(f, out):
    params = [c_param(a) for a in f.args]
    if f.ret == "int":
        params.append("MPI_Fint *ierror")
    params += ["size_t %s_len" % a.name for a in f.args
               if a.kind in ("string_in", "string_out")]
    ret = {"int": "void", "double": "double", "MPI_Aint": "MPI_Aint"}[f.ret]
    plist = ", ".join(params) if params else "void"
    for prefix, callee in (("mpi", f.name), ("pmpi", "P" + f.name)):
        lower = prefix + "_" + f.name[4:].lower()
        out.write("F_EXPORT %s %s_(%s)\n{\n" % (ret, lower, plist))
        for line in body(f, callee):
            out.write("    %s\n" % line)
        out.write("}\n")
        out.write("F_ALIASES(%s, %s)\n\n" % (lower, lower.upper()))


def covered(functions):
    """The calls the mechanical rules cover, in mpi.h's order."""
    result = []
    for f in functions:
        if not f.name[4:5].isupper() or f.name[5:6].isupper():
            continue  # MPI_COMM_DUP_FN and the other predefined callbacks: not MPI calls
        if f.name in mpi_h.HANDWRITTEN or f.name in mpi_h.LEFT_OUT or f.name.endswith(
                ("_c2f", "_f2c")) or f.name.startswith(mpi_h.C_ONLY_PREFIX):
            continue
        problem = f.problem()
        if problem:
            sys.exit("gen_wrappers: %s: %s; describe it in mpi_h.py (HANDWRITTEN or LEFT_OUT)"
                     % (f.name, problem))
        result.append(f)
    return result


def main():
    functions, _ = mpi_h.read(sys.argv[1])
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        out.write("/* Generated by src/fortran/gen_wrappers.py from mpi.h: do not edit. */\n")
        out.write('#include "fortran/fortran.h"\n\n#include <stdlib.h>\n\n')
        for f in covered(functions):
            emit(f, out)


if __name__ == "__main__":
    main()
