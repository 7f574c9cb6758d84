/*
 * The datatype compiler's entry with an explicit handle resolver (dt_compile uses
 * dtype_lookup). Unit tests build dtype_t trees by hand and resolve their own handles.
 */
#ifndef METAMPI_DATATYPE_COMPILE_H
#define METAMPI_DATATYPE_COMPILE_H

#include "datatype/dtype.h"

typedef dtype_t *(*dt_lookup_fn)(MPI_Datatype h);

/* Compiles the construction tree of t into a new layout (NULL when out of memory, or when a
 * size or address computation overflows). The caller owns it (dt_layout_free). */
dt_layout_t *dt_compile_tree(const dtype_t *t, dt_lookup_fn lookup);

#endif
