#include "datatype/predefined.h"

#include "datatype/dtype.h"

#include <complex.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

/* MPI-3.1 Table 13.2 gives the external32 sizes; MPI_WCHAR is 2 bytes there. */
#define T(h, ctype, ext, kind) { h, #h, (int)alignof(ctype), ext, kind }
static const dtype_basic_info_t basics[DTYPE_NBASIC] = {
    T(MPI_CHAR, char, 1, EXT32_COPY),
    T(MPI_SIGNED_CHAR, signed char, 1, EXT32_COPY),
    T(MPI_UNSIGNED_CHAR, unsigned char, 1, EXT32_COPY),
    T(MPI_BYTE, unsigned char, 1, EXT32_COPY),
    T(MPI_WCHAR, wchar_t, 2, EXT32_UINT),
    T(MPI_SHORT, short, 2, EXT32_SINT),
    T(MPI_UNSIGNED_SHORT, unsigned short, 2, EXT32_UINT),
    T(MPI_INT, int, 4, EXT32_SINT),
    T(MPI_UNSIGNED, unsigned, 4, EXT32_UINT),
    T(MPI_LONG, long, 4, EXT32_SINT),
    T(MPI_UNSIGNED_LONG, unsigned long, 4, EXT32_UINT),
    T(MPI_LONG_LONG_INT, long long, 8, EXT32_SINT),
    T(MPI_UNSIGNED_LONG_LONG, unsigned long long, 8, EXT32_UINT),
    T(MPI_FLOAT, float, 4, EXT32_FLOAT),
    T(MPI_DOUBLE, double, 8, EXT32_FLOAT),
    T(MPI_LONG_DOUBLE, long double, 16, EXT32_LDOUBLE),
    T(MPI_C_BOOL, _Bool, 1, EXT32_COPY),
    T(MPI_INT8_T, int8_t, 1, EXT32_COPY),
    T(MPI_INT16_T, int16_t, 2, EXT32_SINT),
    T(MPI_INT32_T, int32_t, 4, EXT32_SINT),
    T(MPI_INT64_T, int64_t, 8, EXT32_SINT),
    T(MPI_UINT8_T, uint8_t, 1, EXT32_COPY),
    T(MPI_UINT16_T, uint16_t, 2, EXT32_UINT),
    T(MPI_UINT32_T, uint32_t, 4, EXT32_UINT),
    T(MPI_UINT64_T, uint64_t, 8, EXT32_UINT),
    T(MPI_C_COMPLEX, float _Complex, 8, EXT32_COMPLEX),
    T(MPI_C_FLOAT_COMPLEX, float _Complex, 8, EXT32_COMPLEX),
    T(MPI_C_DOUBLE_COMPLEX, double _Complex, 16, EXT32_COMPLEX),
    T(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, 32, EXT32_LDCOMPLEX),
    T(MPI_AINT, MPI_Aint, 8, EXT32_SINT),
    T(MPI_OFFSET, MPI_Offset, 8, EXT32_SINT),
    T(MPI_COUNT, MPI_Count, 8, EXT32_SINT),
    T(MPI_CXX_BOOL, bool, 1, EXT32_COPY),
    T(MPI_CXX_FLOAT_COMPLEX, float _Complex, 8, EXT32_COMPLEX),
    T(MPI_CXX_DOUBLE_COMPLEX, double _Complex, 16, EXT32_COMPLEX),
    T(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex, 32, EXT32_LDCOMPLEX),
    T(MPI_PACKED, unsigned char, 1, EXT32_COPY),
    /* Fortran (gfortran's types): LOGICAL is a 4-byte integer 0/1, REAL(16) binary128 */
    T(MPI_INTEGER, int32_t, 4, EXT32_SINT),
    T(MPI_REAL, float, 4, EXT32_FLOAT),
    T(MPI_DOUBLE_PRECISION, double, 8, EXT32_FLOAT),
    T(MPI_COMPLEX, float _Complex, 8, EXT32_COMPLEX),
    T(MPI_DOUBLE_COMPLEX, double _Complex, 16, EXT32_COMPLEX),
    T(MPI_LOGICAL, int32_t, 4, EXT32_SINT),
    T(MPI_CHARACTER, char, 1, EXT32_COPY),
    T(MPI_INTEGER1, int8_t, 1, EXT32_COPY),
    T(MPI_INTEGER2, int16_t, 2, EXT32_SINT),
    T(MPI_INTEGER4, int32_t, 4, EXT32_SINT),
    T(MPI_INTEGER8, int64_t, 8, EXT32_SINT),
    T(MPI_REAL4, float, 4, EXT32_FLOAT),
    T(MPI_REAL8, double, 8, EXT32_FLOAT),
    T(MPI_REAL16, _Float128, 16, EXT32_FLOAT),
    T(MPI_COMPLEX8, float _Complex, 8, EXT32_COMPLEX),
    T(MPI_COMPLEX16, double _Complex, 16, EXT32_COMPLEX),
    T(MPI_COMPLEX32, _Float128, 32, EXT32_COMPLEX),
};
#undef T

#define PAIR(h, first, ctype)                                                                  \
    { h, #h, first, MPI_INT, offsetof(struct { ctype a; int b; }, b),                          \
      sizeof(struct { ctype a; int b; }) }
/* Fortran's pairs: two values of one type, the index the second (MPI-3.1 §5.9.4) */
#define FPAIR(h, first, ctype) { h, #h, first, first, sizeof(ctype), 2 * sizeof(ctype) }
const dtype_pair_info_t dtype_pairs[DTYPE_NPAIRS] = {
    PAIR(MPI_FLOAT_INT, MPI_FLOAT, float),
    PAIR(MPI_DOUBLE_INT, MPI_DOUBLE, double),
    PAIR(MPI_LONG_INT, MPI_LONG, long),
    PAIR(MPI_2INT, MPI_INT, int),
    PAIR(MPI_SHORT_INT, MPI_SHORT, short),
    PAIR(MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, long double),
    FPAIR(MPI_2REAL, MPI_REAL, float),
    FPAIR(MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, double),
    FPAIR(MPI_2INTEGER, MPI_INTEGER, int32_t),
};
#undef PAIR
#undef FPAIR

/* Index i of the table holds the predefined type whose handle ends in i + 1. */
int dtype_is_predefined(MPI_Datatype t)
{
    unsigned idx = (unsigned)t & 0xffu;
    return ((unsigned)t & DTYPE_PREDEFINED_MASK) == DTYPE_PREDEFINED_TAG && idx >= 1 &&
           idx <= DTYPE_NBASIC && basics[idx - 1].handle == t;
}

const dtype_basic_info_t *dtype_basic(int basic)
{
    return basic >= 1 && basic <= DTYPE_NBASIC ? &basics[basic - 1] : NULL;
}

const char *dtype_name(MPI_Datatype t)
{
    if (t == MPI_DATATYPE_NULL)
        return "MPI_DATATYPE_NULL";
    if (dtype_is_predefined(t))
        return basics[((unsigned)t & 0xffu) - 1].name;
    for (int i = 0; i < DTYPE_NPAIRS; i++)
        if (dtype_pairs[i].handle == t)
            return dtype_pairs[i].name;
    return "datatype";
}
