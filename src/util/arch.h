/*
 * The architecture descriptor: what a rank's data looks like in memory, so that ranks of
 * different architectures in one job (issue 19) can tell whether their bytes mean the same.
 *
 * Every rank publishes its descriptor at startup in the fixed ARCH_WIRE_SIZE-byte form below
 * (independent of the byte order and sizes of the machine that wrote it). Two ranks whose
 * descriptors are arch_same() exchange native bytes exactly as in a job of one architecture;
 * only unlike peers pay for conversion.
 *
 * Wire form (byte offsets): 0 version (ARCH_VERSION), 1 byte order (ARCH_LITTLE/ARCH_BIG),
 * 2 float format, 3 long double format, 4.. sizes (one byte each, in arch_size_t order),
 * then alignments (same order), then the machine name (NUL-padded, ARCH_NAME_MAX bytes).
 * The name is for reports only: it takes no part in arch_same().
 */
#ifndef METAMPI_UTIL_ARCH_H
#define METAMPI_UTIL_ARCH_H

#include <stddef.h>
#include <stdint.h>

#define ARCH_VERSION 1

enum { ARCH_LITTLE = 0, ARCH_BIG = 1 };
/* float/double: IEEE 754 binary32/binary64 is the only format metampi runs on (checked at
 * build time); the field exists so a descriptor from another format is refused, not misread. */
enum { ARCH_FLOAT_IEEE = 1 };
/* long double formats: the representations in use on Linux targets */
enum {
    ARCH_LDBL_DOUBLE = 1,     /* long double is binary64 (arm32, some embedded ABIs) */
    ARCH_LDBL_X87 = 2,        /* x87 80-bit extended in 12 or 16 bytes (i386, x86-64) */
    ARCH_LDBL_BINARY128 = 3,  /* IEEE binary128 (s390x, aarch64, riscv64) */
    ARCH_LDBL_DOUBLE_DOUBLE = 4 /* IBM double-double (ppc64 with the IBM ABI) */
};

/* The C types whose size and alignment matter for the predefined MPI datatypes. */
typedef enum {
    ARCH_SHORT, ARCH_INT, ARCH_LONG, ARCH_LONG_LONG, ARCH_POINTER, ARCH_FLOAT, ARCH_DOUBLE,
    ARCH_LONG_DOUBLE, ARCH_BOOL, ARCH_WCHAR, ARCH_NTYPES
} arch_type_t;

#define ARCH_NAME_MAX 12
#define ARCH_WIRE_SIZE (4 + 2 * ARCH_NTYPES + ARCH_NAME_MAX)

typedef struct arch_desc {
    uint8_t version, byte_order, float_format, ldbl_format;
    uint8_t size[ARCH_NTYPES];
    uint8_t align[ARCH_NTYPES];
    char name[ARCH_NAME_MAX + 1];   /* "x86_64", "s390x", ...; NUL-terminated */
} arch_desc_t;

/* This process's descriptor (computed once; the pointer stays valid). */
const arch_desc_t *arch_local(void);

/* The fixed wire form of d into out[ARCH_WIRE_SIZE]. */
void arch_encode(const arch_desc_t *d, uint8_t out[ARCH_WIRE_SIZE]);
/* Reads a wire form. 0, or -1 when the version is unknown or a field is out of range. */
int arch_decode(const uint8_t in[ARCH_WIRE_SIZE], arch_desc_t *d);

/* 1 when data of a and b have the same representation (same byte order, formats, sizes). */
int arch_same(const arch_desc_t *a, const arch_desc_t *b);

/* "s390x (big-endian, long 8 B, long double binary128)" into buf; returns buf. */
char *arch_describe(const arch_desc_t *d, char *buf, size_t len);

#endif
