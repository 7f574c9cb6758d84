/*
 * Receiver-makes-right conversion (MPI-free; docs/heterogeneity-conversion.md): a byte stream
 * that a peer of another architecture packed from its native representation is unpacked into
 * this process's typed memory, converting every basic element on the way (byte order, sizes
 * of C types, long double formats). There is no pass besides the unpack: each element is read
 * from the stream and written converted into place.
 *
 * The sender packed the *same type signature* (MPI's type matching rule), so the receiver's
 * own layout, read with the sender's element sizes, describes the stream. Streams arrive in
 * fragments cut at any byte (DATA frames, pipeline chunks): the converter keeps the bytes of a
 * split element until the rest arrives.
 *
 * What a basic type is, the layer above says (it knows the MPI types): dt_conv_set_basics()
 * registers, per basic index (the numbers layouts record), its kind and which C type's size
 * it follows. The datatype layer does so at dtype_init.
 */
#ifndef METAMPI_DATATYPE_ENGINE_CONVERT_H
#define METAMPI_DATATYPE_ENGINE_CONVERT_H

#include "datatype/engine/layout.h"
#include "util/arch.h"

#include <stddef.h>
#include <stdint.h>

typedef enum {
    DT_CV_BYTES,   /* bytes copied as they are (characters, MPI_BYTE, MPI_PACKED, 1-byte ints) */
    DT_CV_SINT,    /* two's complement integer: sign-extended or checked when narrowed */
    DT_CV_UINT,    /* unsigned integer: zero-extended or checked when narrowed */
    DT_CV_BOOL,    /* a C or C++ bool: any non-zero value is true (1) */
    DT_CV_FLOAT,   /* IEEE binary32/64/128 of a fixed width: byte order only */
    DT_CV_LDOUBLE  /* long double: the architectures' formats (ldouble.h) */
} dt_cv_kind_t;

/* One basic type: `parts` values of the kind (2 for complex types), each of the size of C
 * type `ctype` (an arch_type_t) on the architecture in question, or of `fixed` bytes
 * everywhere when ctype is -1 (int32_t, MPI_INTEGER, binary128 REAL16, ...). */
typedef struct dt_cv_basic {
    const char *name;     /* "MPI_LONG": for error reports */
    uint8_t kind;         /* dt_cv_kind_t */
    uint8_t parts;
    int8_t ctype;
    uint8_t fixed;
} dt_cv_basic_t;

/* The most basic types the converter knows (basic indices 1..DT_CV_MAX_BASIC). */
#define DT_CV_MAX_BASIC 63

/* Registers table[1..n] (index 0 unused; n <= DT_CV_MAX_BASIC) for basic indices 1..n; the
 * table stays owned by the caller and must outlive every conversion. */
void dt_conv_set_basics(const dt_cv_basic_t *table, int n);
/* Bytes of one element of basic type `basic` on architecture a; 0 when unknown. */
size_t dt_conv_basic_size(int basic, const arch_desc_t *a);

/* Why an element could not be represented (the first one is kept). */
typedef enum {
    DT_CV_FIT = 0,
    DT_CV_INT_RANGE,      /* an integer beyond the receiver's width (stored truncated) */
    DT_CV_FLOAT_RANGE,    /* a long double beyond the receiver's range (stored as infinity) */
    DT_CV_NO_FORMAT,      /* a long double format metampi cannot convert (stored as NaN) */
    DT_CV_NO_TYPE         /* a basic type the table does not know (bytes copied) */
} dt_cv_why_t;

/* A conversion in progress: the receiver's cursor plus the piece being filled. Private
 * fields; a plain struct so it can live on the stack for one-frame messages. */
typedef struct dt_conv {
    dt_cursor_t cur;          /* the receiver's typed buffer (native stream) */
    const arch_desc_t *from;  /* the sender's architecture */
    const arch_desc_t *to;    /* this process's (arch_local()) */
    uintptr_t addr;           /* next element of the current piece */
    size_t elems;             /* elements left in the current piece */
    int basic;                /* its basic type */
    unsigned nsize, fsize;    /* its size here and in the stream */
    size_t npart;             /* bytes of a split foreign element held in part */
    unsigned char part[32];
    uint64_t in;              /* stream bytes consumed */
    uint64_t elements;        /* basic elements written */
    int why;                  /* dt_cv_why_t of the first failure */
    int why_basic;            /* its basic type */
    uint64_t why_elem;        /* its index among the basic elements of the stream */
    uint8_t fsz[DT_CV_MAX_BASIC + 1], nsz[DT_CV_MAX_BASIC + 1]; /* element sizes per basic
                               * type in the stream and here (0: unknown) */
} dt_conv_t;

/* A conversion of a stream written on architecture from into count elements of l at base. */
void dt_conv_init(dt_conv_t *cv, const arch_desc_t *from, const dt_layout_t *l,
                  uintptr_t base, size_t count);
/* Consumes the next n bytes of the stream (any cut); returns the bytes taken, fewer only when
 * the receiver's buffer is full. */
size_t dt_conv_unpack(dt_conv_t *cv, const void *src, size_t n);
/* A stream converted into a stream rather than into a typed buffer: cv from
 * dt_conv_init(cv, from, l, 0, count), where every basic type of l has the same size on both
 * architectures (dt_conv_sizes_alike), so each element keeps its offset. Converts the next n
 * bytes (whole elements) of from's stream at in into this architecture's at out; returns the
 * bytes converted. (One-sided data, converted before the target applies it to its window.) */
size_t dt_conv_restream(dt_conv_t *cv, const void *in, void *out, size_t n);
/* 1 when every basic type of l has the same size in a's representation as here. */
int dt_conv_sizes_alike(const dt_layout_t *l, const arch_desc_t *a);
/* Bytes of the receiver's packed stream written so far (whole elements only). */
size_t dt_conv_native_bytes(const dt_conv_t *cv);
/* 0 when every element converted exactly (up to the rounding of floating point); else the
 * dt_cv_why_t of the first failure, described in buf ("MPI_LONG value 5000000000 (element
 * 3) does not fit in 4 bytes"). */
int dt_conv_failure(const dt_conv_t *cv, char *buf, size_t len);

/* Bytes that count elements of l take in architecture a's packed stream; UINT64_MAX on
 * overflow or an unknown basic type. */
uint64_t dt_conv_stream_size(const dt_layout_t *l, const arch_desc_t *a, size_t count);
/* Whole elements of l and basic elements in the first bytes of a's packed stream of l
 * (MPI_Get_count / MPI_Get_elements of a message from a): *whole is -1 when bytes is not a
 * whole number of elements, *basic is -1 when bytes ends inside a basic element. */
void dt_conv_stream_count(const dt_layout_t *l, const arch_desc_t *a, uint64_t bytes,
                          long long *whole, long long *basic);

/* The kernels (convert_kernels.c), exposed for the benchmark: n values of size bytes each
 * (2, 4, 8 or 16) from in to out with their bytes reversed. */
void dt_swap_bytes(void *out, const void *in, size_t size, size_t n);

#endif
