/*
 * Floating-point formats of long double, converted through their binary128 image (MPI-free).
 * Every format metampi meets maps into binary128 exactly (x87 extended: 64-bit significand,
 * same 15-bit exponent; binary64: fewer bits), so binary128 is the pivot: a value is read
 * into its image and written from it, rounding to nearest (ties to even) where the target
 * has fewer bits. Used by external32 (always binary128, big-endian) and by the conversion
 * between unlike peers (convert.h), with the byte order given explicitly.
 */
#ifndef METAMPI_DATATYPE_ENGINE_LDOUBLE_H
#define METAMPI_DATATYPE_ENGINE_LDOUBLE_H

#include <stddef.h>
#include <stdint.h>

/* A binary128 value as (hi, lo) 64-bit halves: sign, 15-bit exponent, 112-bit fraction. */
typedef struct dt_quad {
    uint64_t hi, lo;
} dt_quad_t;

/* Results of the conversions below. */
enum {
    DT_LD_OK = 0,
    DT_LD_OVERFLOW = 1,   /* a finite value beyond the target's range (written as infinity) */
    DT_LD_UNSUPPORTED = 2 /* the format cannot be converted (IBM double-double) */
};

/* Reads the long double at p in format fmt (ARCH_LDBL_* of util/arch.h), stored big-endian
 * when big (x87 extended is little-endian by definition; big is ignored for it). */
int dt_ld_read(int fmt, int big, const unsigned char *p, dt_quad_t *q);
/* Writes q at p in format fmt and byte order big, filling size bytes (x87 pads to 12 or 16
 * bytes with zeros). */
int dt_ld_write(int fmt, int big, dt_quad_t q, unsigned char *p, size_t size);

/* binary128 images in their big-endian byte form (external32's). */
void dt_quad_store_be(unsigned char *p, dt_quad_t q);
dt_quad_t dt_quad_load_be(const unsigned char *p);

#endif
