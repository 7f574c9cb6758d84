/*
 * Argument checks shared by the data-movement collectives (coll_bcast.c, coll_gather.c,
 * coll_scatter.c, coll_allgather.c, coll_alltoall.c). Each raises the right class on comm in
 * the name of func, with a message naming the argument, and returns it (MPI_SUCCESS when the
 * argument is fine).
 */
#ifndef METAMPI_API_COLL_MOVE_ARGS_H
#define METAMPI_API_COLL_MOVE_ARGS_H

#include "api/coll_api.h"
#include "coll/direct.h"

/* One side of a collective, (buf, count, type): count >= 0 (MPI_ERR_COUNT), a valid
 * committed type (MPI_ERR_TYPE, *out), buf not NULL when count > 0 with a predefined type
 * (MPI_ERR_BUFFER; a derived type may address absolute memory from MPI_BOTTOM). names:
 * "buf,count,type" argument names as the function's prototype spells them. */
int cm_check_side(MPI_Comm comm, const void *buf, int count, MPI_Datatype type, dtype_t **out,
                  const char *func, const char *bufname, const char *countname,
                  const char *typename);
/* A v-form side over n peers: counts (each >= 0) and displacements (not NULL), the type, and
 * buf not NULL when some count > 0 with a predefined type. */
int cm_check_vside(MPI_Comm comm, const void *buf, const int *counts, const int *displs, int n,
                   MPI_Datatype type, dtype_t **out, const char *func, const char *bufname,
                   const char *countsname, const char *displsname, const char *typename);
/* MPI_IN_PLACE where the standard does not allow it (MPI_ERR_BUFFER). */
int cm_check_not_in_place(MPI_Comm comm, const void *buf, const char *func, const char *arg);
/* The send and receive buffers of one process are the same memory while both carry data
 * (MPI_ERR_BUFFER: MPI_IN_PLACE is the way to say that). */
int cm_check_aliased(MPI_Comm comm, const void *sbuf, size_t sbytes, const void *rbuf,
                     size_t rbytes, const char *func);

#endif
