/* The converter's element loops (convert_kernels.c; internal to convert.c and the benchmark). */
#ifndef METAMPI_DATATYPE_ENGINE_CONVERT_KERNELS_H
#define METAMPI_DATATYPE_ENGINE_CONVERT_KERNELS_H

#include "datatype/engine/convert.h"

/* n elements of basic type e: fsize bytes each at in, written by architecture from, into
 * nsize bytes each at out in architecture to's representation. Every element is written.
 * Returns DT_CV_FIT, or the dt_cv_why_t of the first element that could not be represented
 * (its index in *bad). */
int dt_conv_run(const dt_cv_basic_t *e, const arch_desc_t *from, const arch_desc_t *to,
                const unsigned char *in, size_t fsize, unsigned char *out, size_t nsize,
                size_t n, size_t *bad);

#endif
