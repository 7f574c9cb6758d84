/*
 * Argument checks shared by the reduction collectives' API files (coll_reduce.c,
 * coll_allreduce.c, coll_reduce_scatter.c, coll_scan.c). Each raises the right error class
 * on comm in the name of func and returns it (MPI_SUCCESS when the argument is fine).
 */
#ifndef METAMPI_API_COLL_RED_H
#define METAMPI_API_COLL_RED_H

#include "api/coll_api.h"

/* a valid committed datatype (*dt) and an op defined on it for collective reductions (*o) */
int coll_red_check_type_op(MPI_Comm comm, MPI_Datatype datatype, MPI_Op op, dtype_t **dt,
                           op_t **o, const char *func);
/* sendbuf of count elements: MPI_IN_PLACE only where in_place_ok; not NULL when it must
 * address data (count > 0 and a predefined type; derived types may start at MPI_BOTTOM) */
int coll_red_check_sendbuf(MPI_Comm comm, const void *sbuf, size_t count, const dtype_t *dt,
                           int in_place_ok, const char *func);
/* recvbuf of count elements: never MPI_IN_PLACE; not NULL when it must address data */
int coll_red_check_recvbuf(MPI_Comm comm, const void *rbuf, size_t count, const dtype_t *dt,
                           const char *func);
/* sendbuf and recvbuf are not the same memory (use MPI_IN_PLACE), when there is data */
int coll_red_check_alias(MPI_Comm comm, const void *sbuf, const void *rbuf, size_t count,
                         const char *func);

#endif
