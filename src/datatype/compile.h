/*
 * The datatype compiler: a type's construction tree becomes a layout. Handles in the tree
 * are resolved by the caller's function: dtype.c passes dtype_lookup, unit tests build
 * dtype_t trees by hand and resolve their own handles.
 */
#ifndef METAMPI_DATATYPE_COMPILE_H
#define METAMPI_DATATYPE_COMPILE_H

#include "datatype/dtype.h"

typedef dtype_t *(*dt_lookup_fn)(MPI_Datatype h);

/* Compiles the construction tree of t into a new layout (NULL when out of memory, or when a
 * size or address computation overflows). The caller owns it (dt_layout_free). */
dt_layout_t *dt_compile_tree(const dtype_t *t, dt_lookup_fn lookup);

#endif
