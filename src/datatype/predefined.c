#include "datatype/predefined.h"

#define T(h) { h, #h }
static const struct {
    MPI_Datatype handle;
    const char *name;
} predefined[] = {
    T(MPI_CHAR), T(MPI_SIGNED_CHAR), T(MPI_UNSIGNED_CHAR), T(MPI_BYTE), T(MPI_WCHAR),
    T(MPI_SHORT), T(MPI_UNSIGNED_SHORT), T(MPI_INT), T(MPI_UNSIGNED), T(MPI_LONG),
    T(MPI_UNSIGNED_LONG), T(MPI_LONG_LONG_INT), T(MPI_UNSIGNED_LONG_LONG), T(MPI_FLOAT),
    T(MPI_DOUBLE), T(MPI_LONG_DOUBLE), T(MPI_C_BOOL), T(MPI_INT8_T), T(MPI_INT16_T),
    T(MPI_INT32_T), T(MPI_INT64_T), T(MPI_UINT8_T), T(MPI_UINT16_T), T(MPI_UINT32_T),
    T(MPI_UINT64_T), T(MPI_C_COMPLEX), T(MPI_C_FLOAT_COMPLEX), T(MPI_C_DOUBLE_COMPLEX),
    T(MPI_C_LONG_DOUBLE_COMPLEX), T(MPI_AINT), T(MPI_OFFSET), T(MPI_COUNT), T(MPI_CXX_BOOL),
    T(MPI_CXX_FLOAT_COMPLEX), T(MPI_CXX_DOUBLE_COMPLEX), T(MPI_CXX_LONG_DOUBLE_COMPLEX),
};
#undef T

#define NPREDEFINED (sizeof predefined / sizeof predefined[0])

/* Index i of the table holds the predefined type whose handle ends in i + 1. */
int dtype_is_predefined(MPI_Datatype t)
{
    unsigned idx = (unsigned)t & 0xffu;
    return ((unsigned)t & DTYPE_PREDEFINED_MASK) == DTYPE_PREDEFINED_TAG && idx >= 1 &&
           idx <= NPREDEFINED && predefined[idx - 1].handle == t;
}

const char *dtype_name(MPI_Datatype t)
{
    if (t == MPI_DATATYPE_NULL)
        return "MPI_DATATYPE_NULL";
    return dtype_is_predefined(t) ? predefined[((unsigned)t & 0xffu) - 1].name : "datatype";
}
