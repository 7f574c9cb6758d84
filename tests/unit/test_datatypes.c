/* Predefined datatype handles: the size each encodes is the C type's size, every handle is
 * recognised, and handles of other kinds or garbage are not. The predefined objects: bounds
 * of every single-element type, and the pair types laid out as their C structs. */
#include "datatype/dtype.h"
#include "datatype/predefined.h"

#include <stddef.h>

#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

static int failures;

static void expect_type(MPI_Datatype t, size_t size, const char *name)
{
    if (!dtype_is_predefined(t) || dtype_predefined_size(t) != size ||
        strcmp(dtype_name(t), name) != 0) {
        fprintf(stderr, "FAIL %s: predefined=%d size=%zu (want %zu) name=%s\n", name,
                dtype_is_predefined(t), dtype_predefined_size(t), size, dtype_name(t));
        failures++;
    }
}

#define TYPE(h, ctype) expect_type(h, sizeof(ctype), #h)

static void check_pair(MPI_Datatype h, size_t extent, size_t int_disp, size_t size,
                       const char *name)
{
    dtype_t *t = dtype_lookup(h);
    if (!t || !t->predefined || t->lb != 0 || t->ub != (MPI_Aint)extent ||
        t->size != (MPI_Count)size || t->true_ub != (MPI_Aint)(int_disp + sizeof(int)) ||
        strcmp(t->name, name) != 0 || !t->committed || t->combiner != MPI_COMBINER_STRUCT ||
        t->nelems != 2) {
        fprintf(stderr, "FAIL %s: pair object\n", name);
        failures++;
    }
}

int main(void)
{
    TYPE(MPI_CHAR, char); TYPE(MPI_SIGNED_CHAR, signed char);
    TYPE(MPI_UNSIGNED_CHAR, unsigned char); TYPE(MPI_BYTE, unsigned char);
    TYPE(MPI_WCHAR, wchar_t); TYPE(MPI_SHORT, short); TYPE(MPI_UNSIGNED_SHORT, unsigned short);
    TYPE(MPI_INT, int); TYPE(MPI_UNSIGNED, unsigned); TYPE(MPI_LONG, long);
    TYPE(MPI_UNSIGNED_LONG, unsigned long); TYPE(MPI_LONG_LONG_INT, long long);
    TYPE(MPI_UNSIGNED_LONG_LONG, unsigned long long); TYPE(MPI_FLOAT, float);
    TYPE(MPI_DOUBLE, double); TYPE(MPI_LONG_DOUBLE, long double); TYPE(MPI_C_BOOL, _Bool);
    TYPE(MPI_INT8_T, int8_t); TYPE(MPI_INT16_T, int16_t); TYPE(MPI_INT32_T, int32_t);
    TYPE(MPI_INT64_T, int64_t); TYPE(MPI_UINT8_T, uint8_t); TYPE(MPI_UINT16_T, uint16_t);
    TYPE(MPI_UINT32_T, uint32_t); TYPE(MPI_UINT64_T, uint64_t);
    TYPE(MPI_C_COMPLEX, float _Complex); TYPE(MPI_C_FLOAT_COMPLEX, float _Complex);
    TYPE(MPI_C_DOUBLE_COMPLEX, double _Complex);
    TYPE(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex);
    TYPE(MPI_AINT, MPI_Aint); TYPE(MPI_OFFSET, MPI_Offset); TYPE(MPI_COUNT, MPI_Count);
    TYPE(MPI_CXX_BOOL, bool); TYPE(MPI_CXX_FLOAT_COMPLEX, float _Complex);
    TYPE(MPI_CXX_DOUBLE_COMPLEX, double _Complex);
    TYPE(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex);
    TYPE(MPI_PACKED, unsigned char);

    if (MPI_LONG_LONG != MPI_LONG_LONG_INT) {
        fprintf(stderr, "FAIL MPI_LONG_LONG is not MPI_LONG_LONG_INT\n");
        failures++;
    }
    const MPI_Datatype bad[] = {MPI_DATATYPE_NULL, (MPI_Datatype)MPI_COMM_WORLD,
                                (MPI_Datatype)MPI_ERRORS_RETURN, 0, -1, 0x0e000400,
                                0x0e000425, 0x0e0004ff, (MPI_Datatype)(MPI_INT + 0x100)};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (dtype_is_predefined(bad[i])) {
            fprintf(stderr, "FAIL 0x%x taken for a predefined datatype\n", (unsigned)bad[i]);
            failures++;
        }
    }
    /* the pair types are not single elements */
    const MPI_Datatype pairs[] = {MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT,
                                  MPI_SHORT_INT, MPI_LONG_DOUBLE_INT};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (dtype_is_predefined(pairs[i]) || strcmp(dtype_name(pairs[i]), "datatype") == 0) {
            fprintf(stderr, "FAIL pair type 0x%x\n", (unsigned)pairs[i]);
            failures++;
        }

    if (dtype_init(NULL) != 0) {
        fprintf(stderr, "FAIL dtype_init\n");
        return 1;
    }
    for (int b = 1; b <= DTYPE_NBASIC; b++) {
        dtype_t *t = dtype_lookup(dtype_basic(b)->handle);
        if (!t || t->basic != b || t->size != (MPI_Count)dtype_predefined_size(t->handle) ||
            t->lb != 0 || t->ub != t->size || !t->committed || !t->layout) {
            fprintf(stderr, "FAIL basic object %d\n", b);
            failures++;
        }
    }
#define PAIR(h, ctype, first)                                                                  \
    check_pair(h, sizeof(struct { ctype a; int b; }), offsetof(struct { ctype a; int b; }, b),  \
               sizeof(ctype) + sizeof(int), #h)
    PAIR(MPI_FLOAT_INT, float, MPI_FLOAT);
    PAIR(MPI_DOUBLE_INT, double, MPI_DOUBLE);
    PAIR(MPI_LONG_INT, long, MPI_LONG);
    PAIR(MPI_2INT, int, MPI_INT);
    PAIR(MPI_SHORT_INT, short, MPI_SHORT);
    PAIR(MPI_LONG_DOUBLE_INT, long double, MPI_LONG_DOUBLE);
    if (dtype_lookup(MPI_DATATYPE_NULL) || dtype_lookup(0x0c00000a) ||
        dtype_lookup(MPI_INT + 0x100) || dtype_lookup((MPI_Datatype)MPI_COMM_WORLD)) {
        fprintf(stderr, "FAIL an invalid handle found an object\n");
        failures++;
    }
    dtype_finalize();

    if (failures)
        return 1;
    printf("datatypes: ok\n");
    return 0;
}
