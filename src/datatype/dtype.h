/*
 * Datatype objects: predefined and derived types, their handles, bounds, envelopes (how they
 * were built), names and attributes. The packed-stream machinery lives in layout.h; a type
 * gets its layout when committed (dt_compile).
 *
 * Life cycle (reference counted): a derived type is referenced by its user handle (until
 * MPI_Type_free), by every type built from it, and by every pending operation that uses it,
 * so MPI_Type_free while a send or receive is in flight is safe. Predefined types are never
 * freed.
 */
#ifndef METAMPI_DATATYPE_DTYPE_H
#define METAMPI_DATATYPE_DTYPE_H

#include "core/attr.h"
#include "datatype/layout.h"

#include <mpi.h>

typedef struct dtype {
    MPI_Datatype handle;
    int refs;
    int committed;             /* predefined types are always committed */
    int predefined;
    MPI_Count size;            /* bytes of data in one element */
    MPI_Aint lb, ub;           /* bounds of the typemap, with markers and resizing */
    MPI_Aint true_lb, true_ub; /* bounds of the data alone */
    int basic;                 /* predefined: index of the basic type (low byte of handle) */
    /* envelope (MPI_Type_get_envelope / MPI_Type_get_contents) */
    int combiner;
    int nints, naddrs, ntypes;
    int *ints;
    MPI_Aint *addrs;
    MPI_Datatype *types;       /* referenced (refs) by this type */
    char name[MPI_MAX_OBJECT_NAME];
    attr_list_t attrs;
    dt_layout_t *layout;       /* set by commit; NULL before */
} dtype_t;

/* The type behind a handle (predefined or derived), or NULL for MPI_DATATYPE_NULL, freed and
 * invalid handles. */
dtype_t *dtype_lookup(MPI_Datatype h);
void dtype_retain(dtype_t *t);
/* Drops a reference; the last one frees the type (its layout, envelope, attributes). */
void dtype_release(dtype_t *t);

/* Compiles t (committed or being committed) into its layout (datatype engine, compile.c).
 * Returns 0, or -1 when out of memory. */
int dt_compile(dtype_t *t);

#endif
