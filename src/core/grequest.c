#include "core/grequest.h"

#include "core/lock.h"

#include <stdlib.h>

request_t *grequest_start(comm_t *comm, const grequest_t *fns)
{
    grequest_t *g = malloc(sizeof *g);
    if (!g)
        return NULL;
    request_t *r = request_new(REQ_GREQ, comm);
    if (!r) {
        free(g);
        return NULL;
    }
    *g = *fns;
    r->greq = g;
    r->active = 1;
    status_set_empty(&r->status);
    return r;
}

int grequest_complete(request_t *r)
{
    /* release: the thread that waits in the progress engine sees the flag, and everything
     * the completing thread wrote before it */
    __atomic_store_n(&r->complete, 1, __ATOMIC_RELEASE);
    /* with threads, the waiter may sleep in the kernel or on the condition variable: wake
     * it now rather than at its safety timeout */
    if (core_lock_on)
        core_lock_notify();
    return r->user_freed ? grequest_release(r) : MPI_SUCCESS;
}

int grequest_query(request_t *r, MPI_Status *status)
{
    status_set_empty(status);
    const grequest_t *g = r->greq;
    return g->query_fn ? g->query_fn(g->extra_state, status) : MPI_SUCCESS;
}

int grequest_release(request_t *r)
{
    const grequest_t *g = r->greq;
    int err = g->free_fn ? g->free_fn(g->extra_state) : MPI_SUCCESS;
    request_free(r);
    return err;
}

int grequest_cancel(request_t *r)
{
    const grequest_t *g = r->greq;
    return g->cancel_fn ? g->cancel_fn(g->extra_state, r->complete != 0) : MPI_SUCCESS;
}
