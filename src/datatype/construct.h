/*
 * Building datatype objects (the library side of the MPI type constructors). No MPI argument
 * checks here: callers pass validated counts and live types. Every function returns
 * MPI_SUCCESS, MPI_ERR_NO_MEM, or MPI_ERR_ARG when a bound or the size of the new type does
 * not fit MPI_Aint / MPI_Count; a new type has refs 1, no handle and is not committed.
 */
#ifndef METAMPI_DATATYPE_CONSTRUCT_H
#define METAMPI_DATATYPE_CONSTRUCT_H

#include "datatype/dtype.h"

/* A zeroed object with a handle and room for its envelope (NULL: out of memory). The caller
 * sets the combiner, fills ints/addrs and types (dtype_set_type) and calls dtype_derive();
 * on failure dtype_release() frees it with what it holds. */
dtype_t *dtype_alloc(int nints, int naddrs, int ntypes);
/* Stores old as t's i-th envelope type (its handle) and retains it. */
void dtype_set_type(dtype_t *t, int i, dtype_t *old);
/* Computes size, bounds, markers, alignment and element counts from the envelope (one of
 * the walkable combiners of dtype.h) or, when set, from equiv. */
int dtype_derive(dtype_t *t);

/* dtype_alloc + copies of the arrays (types retained) + dtype_derive. */
int dtype_create(int combiner, int nints, const int *ints, int naddrs, const MPI_Aint *addrs,
                 int ntypes, dtype_t *const *types, dtype_t **out);
/* A type with the typemap of equiv and the envelope given (DUP, SUBARRAY, DARRAY, copies
 * for MPI_Type_get_contents). */
int dtype_create_alias(dtype_t *equiv, int combiner, int nints, const int *ints, int naddrs,
                       const MPI_Aint *addrs, int ntypes, dtype_t *const *types,
                       dtype_t **out);

/* Shorthands for the library's own pieces. */
int dtype_contiguous(MPI_Count count, dtype_t *old, dtype_t **out);
int dtype_hvector(int count, int blocklength, MPI_Aint stride, dtype_t *old, dtype_t **out);
int dtype_resized(dtype_t *old, MPI_Aint lb, MPI_Aint extent, dtype_t **out);
int dtype_struct(int count, const int *blocklengths, const MPI_Aint *disps,
                 dtype_t *const *types, dtype_t **out);

/* MPI_Type_create_subarray / MPI_Type_create_darray on checked arguments. */
int dtype_subarray(int ndims, const int *sizes, const int *subsizes, const int *starts,
                   int order, dtype_t *old, dtype_t **out);
int dtype_darray(int size, int rank, int ndims, const int *gsizes, const int *distribs,
                 const int *dargs, const int *psizes, int order, dtype_t *old,
                 dtype_t **out);

/* Compiles t (if it has no layout yet) and marks it committed. */
int dtype_commit(dtype_t *t);
/* t's layout, compiling it first when t was never committed (queries on uncommitted
 * types); NULL when out of memory. */
const dt_layout_t *dtype_layout(dtype_t *t);

/* Turns a reference the caller holds into a user handle (user_refs) and stores the handle. */
void dtype_publish(dtype_t *t, MPI_Datatype *handle);
/* MPI_Type_free of one user handle: when it is the last, runs the attributes' delete
 * callbacks first. Returns MPI_SUCCESS or a callback's error (nothing freed then). */
int dtype_unpublish(dtype_t *t);

#endif
