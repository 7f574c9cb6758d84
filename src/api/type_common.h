/*
 * Shared pieces of the datatype calls (type_*.c, pack.c, status.c). Datatype calls without a
 * communicator argument raise their errors on MPI_COMM_WORLD (MPI-3.1 §8.3).
 */
#ifndef METAMPI_API_TYPE_COMMON_H
#define METAMPI_API_TYPE_COMMON_H

#include "api/api.h"
#include "datatype/construct.h"
#include "datatype/dtype.h"

/* Raises MPI_ERR_TYPE for a handle dtype_lookup refused; argname names the argument. */
int raise_bad_type(MPI_Comm comm, MPI_Datatype h, const char *func, const char *argname);

/* Looks up the datatype handle h, raising MPI_ERR_TYPE on comm when it is not a live type. */
#define API_GET_TYPE(var, h, comm, func, argname)                                              \
    dtype_t *var = dtype_lookup_user(h);                                                            \
    if (!var)                                                                                  \
        return raise_bad_type(comm, h, func, argname);

/* MPI_ERR_TYPE unless t is committed (communication and packing need committed types). */
#define API_CHECK_COMMITTED(t, comm, func)                                                     \
    do {                                                                                       \
        if (!(t)->committed)                                                                   \
            return err_raise(comm, MPI_ERR_TYPE, func, "datatype 0x%x is not committed",       \
                             (unsigned)(t)->handle);                                           \
    } while (0)

/* Derives t's typemap, gives it a handle in *newtype and returns MPI_SUCCESS, or releases t
 * and raises what went wrong (a type too large for MPI_Aint, no memory). */
int type_finish(dtype_t *t, MPI_Datatype *newtype, const char *func);
/* Raises the class a construct.h function returned. */
int raise_construct(int rc, const char *func);
/* MPI_Finalize: drops the types MPI_Type_create_f90_* cached (type_f90.c), which a program
 * must not free itself. */
void type_f90_finalize(void);

#endif
