/*
 * The "external32" data representation (MPI-3.1 §13.5.2): big-endian, IEEE floating point,
 * the fixed sizes of Table 13.2 (MPI_LONG is 4 bytes, MPI_LONG_DOUBLE 16, ...), no gaps.
 * Conversion runs per basic element, walking the typemap with the layout's cursor.
 */
#ifndef METAMPI_DATATYPE_EXTERNAL32_H
#define METAMPI_DATATYPE_EXTERNAL32_H

#include "datatype/dtype.h"

#include <stddef.h>

/* n elements of the basic type `basic` (a predefined.h index) from native to external32
 * (encode) or back (decode). Return 0, or -1 when a value does not fit the destination's
 * width (e.g. a 64-bit long beyond the 32 bits of external32's MPI_LONG); every element is
 * still written (the value truncated to the destination width). */
int ext32_encode(int basic, const void *native, void *ext, size_t n);
int ext32_decode(int basic, const void *ext, void *native, size_t n);

/* count elements of the committed type t at base, to or from the count * t->ext32_size bytes
 * at buf. Return MPI_SUCCESS or MPI_ERR_CONVERSION (a value did not fit). */
int ext32_pack(const dtype_t *t, const void *base, size_t count, void *buf);
int ext32_unpack(const dtype_t *t, const void *buf, size_t count, void *base);

#endif
