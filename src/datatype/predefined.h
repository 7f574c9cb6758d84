/*
 * Predefined datatypes. The single-element ones have handles 0x0e00SSII that encode their
 * size SS (see mpi.h), so the hot path needs no table lookup; II is the *basic index* by
 * which layouts and the external32 conversion know the element type. The table here gives
 * names, alignments and external32 sizes, and validates handles. The pair types of
 * MINLOC/MAXLOC (MPI_2INT, ...) are predefined structs with derived-kind handles
 * (0x0c000001..): their objects are built by dtype.c from the description here.
 */
#ifndef METAMPI_DATATYPE_PREDEFINED_H
#define METAMPI_DATATYPE_PREDEFINED_H

#include <mpi.h>
#include <stddef.h>

#define DTYPE_PREDEFINED_MASK 0xfe000000u
#define DTYPE_PREDEFINED_TAG  0x0e000000u

/* Nonzero when t is one of the single-element predefined datatypes of mpi.h. */
int dtype_is_predefined(MPI_Datatype t);

/* Size in bytes of a single-element predefined datatype. */
static inline size_t dtype_predefined_size(MPI_Datatype t)
{
    return ((unsigned)t >> 8) & 0xffu;
}

/* "MPI_INT", "MPI_2INT", ...; "MPI_DATATYPE_NULL"; "datatype" for anything else */
const char *dtype_name(MPI_Datatype t);

/* How a basic type is represented in external32 (MPI-3.1 §13.5.2): big-endian, sizes fixed
 * by the standard. */
typedef enum {
    EXT32_COPY,     /* one byte, copied as is (bytes, characters, booleans) */
    EXT32_SINT,     /* two's complement signed integer */
    EXT32_UINT,     /* unsigned integer */
    EXT32_FLOAT,    /* IEEE 754 binary32/binary64, same width natively */
    EXT32_LDOUBLE,  /* long double: IEEE 754 binary128 in external32 */
    EXT32_COMPLEX,  /* two EXT32_FLOAT parts */
    EXT32_LDCOMPLEX /* two EXT32_LDOUBLE parts */
} ext32_kind_t;

typedef struct dtype_basic_info {
    MPI_Datatype handle;
    const char *name;
    int align;         /* the C type's alignment */
    int ext32_size;    /* bytes in external32 */
    ext32_kind_t ext32_kind;
} dtype_basic_info_t;

/* Basic indices run from 1 to DTYPE_NBASIC. */
#define DTYPE_NBASIC 54
/* The basic type with index `basic`, or NULL when there is none. */
const dtype_basic_info_t *dtype_basic(int basic);

/* A pair type: {first, index} laid out as the C struct { first a; index b; }. The index is
 * MPI_INT for C's pairs, the value's own type for Fortran's (MPI_2REAL, ...). */
typedef struct dtype_pair_info {
    MPI_Datatype handle;
    const char *name;
    MPI_Datatype first;
    MPI_Datatype index;  /* the index's type */
    MPI_Aint int_disp;  /* offsetof(struct, b): where the index is */
    MPI_Aint extent;    /* sizeof(struct) */
} dtype_pair_info_t;

/* Tells the converter between unlike architectures (engine/convert.h) what every basic type
 * is (convert_table.c; dtype_init calls it). */
void dtype_conv_register(void);

/* The pair types, in handle order (pair i has handle 0x0c000000 | (i + 1)). */
extern const dtype_pair_info_t dtype_pairs[];

#endif
