/*
 * Generalized requests (MPI-3.1 §12.2): requests whose operation the program itself carries
 * out, with three callbacks the library calls at fixed points.
 *
 * Protocol: grequest_start makes an active, incomplete request (kind REQ_GREQ) that no
 * transport ever advances; grequest_complete marks it complete. The completion call that
 * reports it (Wait/Test and their any/some/all forms) calls grequest_query for its status and
 * then grequest_release (free_fn, then the request is freed). MPI_Request_get_status calls
 * only grequest_query. MPI_Request_free on a complete request releases it at once; on an
 * incomplete one it marks it user_freed, and grequest_complete releases it. MPI_Cancel calls
 * grequest_cancel, which tells cancel_fn whether the request is complete. A waiting rank
 * sleeps in the progress engine as for any other request (no transport is involved, so
 * nothing wakes it early: it polls and sleeps like other idle waits). The callbacks run
 * without the core lock (core_lock_callout_begin).
 */
#ifndef METAMPI_GREQUEST_H
#define METAMPI_GREQUEST_H

#include "core/request.h"

#include <mpi.h>

typedef int grequest_query_fn(void *extra_state, MPI_Status *status);
typedef int grequest_free_fn(void *extra_state);
typedef int grequest_cancel_fn(void *extra_state, int complete);

/* The program's side of one generalized request (request_t.greq). NULL callbacks are
 * skipped. */
typedef struct grequest {
    grequest_query_fn *query_fn;
    grequest_free_fn *free_fn;
    grequest_cancel_fn *cancel_fn;
    void *extra_state;
} grequest_t;

/* A new active, incomplete generalized request on comm (its errors' communicator); NULL when
 * out of memory. */
request_t *grequest_start(comm_t *comm, const grequest_t *fns);
/* Marks r complete (MPI_Grequest_complete); a request the program already freed is released
 * here, and free_fn's error code returned. */
int grequest_complete(request_t *r);
/* The status of the complete request r: empty, then as query_fn sets it. Returns query_fn's
 * error code. */
int grequest_query(request_t *r, MPI_Status *status);
/* Calls free_fn and frees r and its handle. Returns free_fn's error code. */
int grequest_release(request_t *r);
/* Calls cancel_fn with r's completion. Returns its error code. */
int grequest_cancel(request_t *r);

#endif
