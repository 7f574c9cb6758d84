/*
 * How an MPI collective call is written (src/api/coll_*.c): check every argument with the
 * helpers below (each raises the right class on comm in the name of F and returns it), fill
 * a coll_call_t and hand it to the level dispatcher (coll/level.h), which begins the schedule
 * when a level needs one and has the first level that takes the call build it; then finish
 * it: coll_finish_call() runs it to completion (blocking form; a call the direct level served
 * has no schedule), coll_finish_nb() starts it and returns a request (I-form):
 *
 *     coll_call_t call = { .kind = COMM_OP_BCAST, .stream = COMM_BLOCKING, .comm = c, ... };
 *     int rc = coll_start(&coll_bcast_family, &call);
 *     return coll_finish_call(comm, &call, rc, F);  (or coll_finish_nb(c, comm, call.s, rc, req, F))
 *
 * For the I-forms, check the request pointer before beginning (coll_check_request).
 */
#ifndef METAMPI_API_COLL_API_H
#define METAMPI_API_COLL_API_H

#include "api/api.h"
#include "coll/coll.h"

/* a valid, committed datatype (predefined or derived): *out */
int coll_check_type(MPI_Comm comm, MPI_Datatype t, dtype_t **out, const char *func,
                    const char *arg);
/* count >= 0 */
int coll_check_count(MPI_Comm comm, int count, const char *func, const char *arg);
/* count >= 0, valid committed type (*out), and a non-NULL buffer when count > 0 and the type
 * is predefined (derived types may address absolute memory from MPI_BOTTOM) */
int coll_check_buf(MPI_Comm comm, const void *buf, int count, MPI_Datatype t, dtype_t **out,
                   const char *func, const char *arg);
/* n counts, the array non-NULL (when n > 0) and every entry >= 0 */
int coll_check_counts(MPI_Comm comm, const int *counts, int n, const char *func,
                      const char *arg);
/* an array argument that must not be NULL (displacements, ...) when n > 0 */
int coll_check_array(MPI_Comm comm, const void *array, int n, const char *func,
                     const char *arg);
/* root: 0..size-1 on an intra-communicator; MPI_ROOT, MPI_PROC_NULL or 0..remote size-1 on
 * an inter-communicator */
int coll_check_root(const comm_t *c, MPI_Comm comm, int root, const char *func);
/* a valid op for a collective reduction on type dt (not MPI_REPLACE/MPI_NO_OP, defined on
 * the type per MPI-3.1 §5.9.2): *out */
int coll_check_op(MPI_Comm comm, MPI_Op op, dtype_t *dt, op_t **out, const char *func);
/* an intra-communicator (MPI_Scan, MPI_Exscan, neighbourhood collectives, ...) */
int coll_check_intra(const comm_t *c, MPI_Comm comm, const char *func);
/* MPI_IN_PLACE given where the standard does not allow it */
int coll_raise_in_place(MPI_Comm comm, const char *func, const char *arg);
/* request != NULL */
int coll_check_request(MPI_Comm comm, const MPI_Request *request, const char *func);

/* A new schedule for the next collective operation on c in stream (COMM_BLOCKING for the
 * blocking form, COMM_NONBLOCKING for the I-form: core/comm.h), of kind (COMM_OP_BCAST for
 * MPI_Bcast and MPI_Ibcast, ...); NULL when out of memory. */
icoll_sched_t *coll_begin(comm_t *c, comm_stream_t stream, comm_op_kind_t kind);
/* Blocking form: runs s (unless building failed: rc) and raises any error on comm. s may be
 * NULL (then rc is MPI_ERR_NO_MEM). */
int coll_finish(MPI_Comm comm, icoll_sched_t *s, int rc, const char *func);
/* Blocking form after coll_start(call): coll_finish of its schedule, or for a call the direct
 * level served (no schedule) its trace line and rc raised on comm. */
int coll_finish_call(MPI_Comm comm, const coll_call_t *call, int rc, const char *func);
/* I-form: starts s and sets *request to a new request that completes with it. */
int coll_finish_nb(comm_t *c, MPI_Comm comm, icoll_sched_t *s, int rc, MPI_Request *request,
                   const char *func);

#endif
