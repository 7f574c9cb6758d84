/*
 * Predefined datatypes. Their handles encode their size (see mpi.h), so the hot path needs no
 * table lookup; the table here gives names and validates handles.
 */
#ifndef METAMPI_DATATYPE_PREDEFINED_H
#define METAMPI_DATATYPE_PREDEFINED_H

#include <mpi.h>
#include <stddef.h>

#define DTYPE_PREDEFINED_MASK 0xfe000000u
#define DTYPE_PREDEFINED_TAG  0x0e000000u

/* Nonzero when t is one of the predefined datatypes of mpi.h. */
int dtype_is_predefined(MPI_Datatype t);

/* Size in bytes of a predefined datatype. */
static inline size_t dtype_predefined_size(MPI_Datatype t)
{
    return ((unsigned)t >> 8) & 0xffu;
}

/* "MPI_INT", ...; "MPI_DATATYPE_NULL"; "datatype" for anything else */
const char *dtype_name(MPI_Datatype t);

#endif
