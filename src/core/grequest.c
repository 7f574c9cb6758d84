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

/* The callbacks run without the core lock (core_lock_callout_begin: they may wait for a lock
 * of the program's that a thread entering MPI holds). What they need of r is read before;
 * r itself is the caller's: the thread that completes or frees a request is the only one
 * that may (MPI-3.1 §12.4.2), and grequest_release frees it only after free_fn returned. */
int grequest_query(request_t *r, MPI_Status *status)
{
    status_set_empty(status);
    const grequest_t *g = r->greq;
    if (!g->query_fn)
        return MPI_SUCCESS;
    grequest_query_fn *fn = g->query_fn;
    void *extra = g->extra_state;
    int levels = core_lock_callout_begin();
    int err = fn(extra, status);
    core_lock_callout_end(levels);
    return err;
}

int grequest_release(request_t *r)
{
    const grequest_t *g = r->greq;
    int err = MPI_SUCCESS;
    if (g->free_fn) {
        grequest_free_fn *fn = g->free_fn;
        void *extra = g->extra_state;
        int levels = core_lock_callout_begin();
        err = fn(extra);
        core_lock_callout_end(levels);
    }
    request_free(r);
    return err;
}

/* cancel_fn may complete r (MPI_Grequest_complete), and then the thread waiting for r may
 * report and free it before cancel_fn returns: r is not touched after the call. */
int grequest_cancel(request_t *r)
{
    const grequest_t *g = r->greq;
    if (!g->cancel_fn)
        return MPI_SUCCESS;
    grequest_cancel_fn *fn = g->cancel_fn;
    void *extra = g->extra_state;
    int complete = r->complete != 0;
    int levels = core_lock_callout_begin();
    int err = fn(extra, complete);
    core_lock_callout_end(levels);
    return err;
}
