/* MPI_Barrier, MPI_Ibarrier (MPI-3.1 §5.3, §5.12.1); the levels are in coll/barrier.c. */
#include "api/coll_api.h"

static int check(MPI_Comm comm, comm_t **out, const char *F)
{
    API_GET_COMM(c, comm, F);
    *out = c;
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Barrier(MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Barrier";
    state_require_initialized(F);
    comm_t *c = NULL;
    int rc = check(comm, &c, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = { .kind = COMM_OP_BARRIER, .stream = COMM_BLOCKING, .comm = c };
    rc = coll_start(&coll_barrier_family, &call);
    return coll_finish_call(comm, &call, rc, F);
}
API_WEAK_ALIAS(Barrier)

API_EXPORT int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Ibarrier";
    state_require_initialized(F);
    comm_t *c = NULL;
    int rc = check(comm, &c, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = { .kind = COMM_OP_BARRIER, .stream = COMM_NONBLOCKING, .comm = c };
    rc = coll_start(&coll_barrier_family, &call);
    return coll_finish_nb(c, comm, call.s, rc, request, F);
}
API_WEAK_ALIAS(Ibarrier)
