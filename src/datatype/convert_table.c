/*
 * What each predefined basic type is to the converter between unlike architectures
 * (datatype/engine/convert.h): its kind, and whether its width follows a C type of the
 * architecture (MPI_LONG: long) or is fixed by its definition (MPI_INT32_T, Fortran's
 * INTEGER as gfortran has it). Registered with the engine by dtype_init.
 */
#include "datatype/predefined.h"

#include "datatype/engine/convert.h"

#include <stdint.h>

typedef struct {
    MPI_Datatype handle;
    uint8_t kind, parts;
    int8_t ctype;
    uint8_t fixed;
} conv_row_t;

#define C(h, kind, ctype) { h, kind, 1, ctype, 0 }
#define CX(h, kind, ctype) { h, kind, 2, ctype, 0 }
#define F(h, kind, bytes) { h, kind, 1, -1, bytes }
#define FX(h, kind, bytes) { h, kind, 2, -1, bytes }
static const conv_row_t rows[] = {
    F(MPI_CHAR, DT_CV_BYTES, 1), F(MPI_SIGNED_CHAR, DT_CV_BYTES, 1),
    F(MPI_UNSIGNED_CHAR, DT_CV_BYTES, 1), F(MPI_BYTE, DT_CV_BYTES, 1),
    F(MPI_PACKED, DT_CV_BYTES, 1), F(MPI_CHARACTER, DT_CV_BYTES, 1),
    F(MPI_INT8_T, DT_CV_BYTES, 1), F(MPI_UINT8_T, DT_CV_BYTES, 1),
    F(MPI_INTEGER1, DT_CV_BYTES, 1),
    C(MPI_WCHAR, DT_CV_UINT, ARCH_WCHAR),
    C(MPI_SHORT, DT_CV_SINT, ARCH_SHORT), C(MPI_UNSIGNED_SHORT, DT_CV_UINT, ARCH_SHORT),
    C(MPI_INT, DT_CV_SINT, ARCH_INT), C(MPI_UNSIGNED, DT_CV_UINT, ARCH_INT),
    C(MPI_LONG, DT_CV_SINT, ARCH_LONG), C(MPI_UNSIGNED_LONG, DT_CV_UINT, ARCH_LONG),
    C(MPI_LONG_LONG_INT, DT_CV_SINT, ARCH_LONG_LONG),
    C(MPI_UNSIGNED_LONG_LONG, DT_CV_UINT, ARCH_LONG_LONG),
    C(MPI_FLOAT, DT_CV_FLOAT, ARCH_FLOAT), C(MPI_DOUBLE, DT_CV_FLOAT, ARCH_DOUBLE),
    C(MPI_LONG_DOUBLE, DT_CV_LDOUBLE, ARCH_LONG_DOUBLE),
    C(MPI_C_BOOL, DT_CV_BOOL, ARCH_BOOL), C(MPI_CXX_BOOL, DT_CV_BOOL, ARCH_BOOL),
    F(MPI_INT16_T, DT_CV_SINT, 2), F(MPI_INT32_T, DT_CV_SINT, 4), F(MPI_INT64_T, DT_CV_SINT, 8),
    F(MPI_UINT16_T, DT_CV_UINT, 2), F(MPI_UINT32_T, DT_CV_UINT, 4),
    F(MPI_UINT64_T, DT_CV_UINT, 8),
    CX(MPI_C_COMPLEX, DT_CV_FLOAT, ARCH_FLOAT), CX(MPI_C_FLOAT_COMPLEX, DT_CV_FLOAT, ARCH_FLOAT),
    CX(MPI_C_DOUBLE_COMPLEX, DT_CV_FLOAT, ARCH_DOUBLE),
    CX(MPI_C_LONG_DOUBLE_COMPLEX, DT_CV_LDOUBLE, ARCH_LONG_DOUBLE),
    CX(MPI_CXX_FLOAT_COMPLEX, DT_CV_FLOAT, ARCH_FLOAT),
    CX(MPI_CXX_DOUBLE_COMPLEX, DT_CV_FLOAT, ARCH_DOUBLE),
    CX(MPI_CXX_LONG_DOUBLE_COMPLEX, DT_CV_LDOUBLE, ARCH_LONG_DOUBLE),
    /* MPI_Aint holds an address (a pointer's width); MPI_Offset and MPI_Count are long long */
    C(MPI_AINT, DT_CV_SINT, ARCH_POINTER), C(MPI_OFFSET, DT_CV_SINT, ARCH_LONG_LONG),
    C(MPI_COUNT, DT_CV_SINT, ARCH_LONG_LONG),
    /* Fortran, as gfortran defines its kinds on every target: fixed widths */
    F(MPI_INTEGER, DT_CV_SINT, 4), F(MPI_REAL, DT_CV_FLOAT, 4),
    F(MPI_DOUBLE_PRECISION, DT_CV_FLOAT, 8), FX(MPI_COMPLEX, DT_CV_FLOAT, 4),
    FX(MPI_DOUBLE_COMPLEX, DT_CV_FLOAT, 8), F(MPI_LOGICAL, DT_CV_SINT, 4),
    F(MPI_INTEGER2, DT_CV_SINT, 2), F(MPI_INTEGER4, DT_CV_SINT, 4),
    F(MPI_INTEGER8, DT_CV_SINT, 8), F(MPI_REAL4, DT_CV_FLOAT, 4), F(MPI_REAL8, DT_CV_FLOAT, 8),
    F(MPI_REAL16, DT_CV_FLOAT, 16), FX(MPI_COMPLEX8, DT_CV_FLOAT, 4),
    FX(MPI_COMPLEX16, DT_CV_FLOAT, 8), FX(MPI_COMPLEX32, DT_CV_FLOAT, 16),
};
#undef C
#undef CX
#undef F
#undef FX

_Static_assert(sizeof rows / sizeof rows[0] == DTYPE_NBASIC, "every basic type has a row");

static dt_cv_basic_t table[DTYPE_NBASIC + 1];

void dtype_conv_register(void)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int basic = (int)((unsigned)rows[i].handle & 0xffu);
        table[basic] = (dt_cv_basic_t){ dtype_basic(basic)->name, rows[i].kind, rows[i].parts,
                                        rows[i].ctype, rows[i].fixed };
    }
    dt_conv_set_basics(table, DTYPE_NBASIC);
}
