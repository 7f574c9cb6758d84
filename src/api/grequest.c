/* Generalized requests (MPI-3.1 §12.2): MPI_Grequest_start, MPI_Grequest_complete. The
 * completion calls (completion.c) call the callbacks; core/grequest.h has the protocol. Their
 * errors are raised on MPI_COMM_WORLD, as for other requests that belong to no
 * communicator. */
#include "api/api.h"

#include "core/grequest.h"

API_EXPORT int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                                   MPI_Grequest_free_function *free_fn,
                                   MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                                   MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Grequest_start";
    state_require_initialized(F);
    API_CHECK_PTR(request, MPI_COMM_WORLD, F, "request");
    comm_t *world = comm_lookup(MPI_COMM_WORLD);
    grequest_t fns = { query_fn, free_fn, cancel_fn, extra_state };
    request_t *r = grequest_start(world, &fns);
    if (!r)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, F,
                         "no memory for a generalized request");
    *request = r->handle;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Grequest_start)

API_EXPORT int PMPI_Grequest_complete(MPI_Request request)
{
    API_ENTER();
    static const char *const F = "MPI_Grequest_complete";
    state_require_initialized(F);
    request_t *r = request_lookup(request);
    if (!r)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, F,
                         "request (0x%x) is %s", (unsigned)request,
                         request == MPI_REQUEST_NULL ? "MPI_REQUEST_NULL"
                                                     : "not a valid request handle");
    if (r->kind != REQ_GREQ)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, F,
                         "request (0x%x) is not a generalized request", (unsigned)request);
    if (r->complete)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, F,
                         "the generalized request (0x%x) is already complete",
                         (unsigned)request);
    int err = grequest_complete(r);
    if (err != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, err, F,
                         "the free_fn of the generalized request (freed before it completed) "
                         "returned error %d",
                         err);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Grequest_complete)
