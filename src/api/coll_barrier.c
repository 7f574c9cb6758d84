/* MPI_Barrier, MPI_Ibarrier (MPI-3.1 §5.3, §5.12.1); algorithms in coll/barrier.c. */
#include "api/coll_api.h"
#include "coll/red.h"
#include "coll/trace.h"

static int check(MPI_Comm comm, comm_t **out, const char *F)
{
    API_GET_COMM(c, comm, F);
    *out = c;
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Barrier(MPI_Comm comm)
{
    static const char *const F = "MPI_Barrier";
    state_require_initialized(F);
    comm_t *c = NULL;
    int rc = check(comm, &c, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = red_direct_barrier(c)) != COLL_DECLINED && coll_trace_level())
        coll_trace_emit(F, c, NULL);
    if (rc != COLL_DECLINED)
        return rc == MPI_SUCCESS ? rc : coll_finish(comm, NULL, rc, F);
    icoll_sched_t *s = coll_begin(c, COMM_BLOCKING, COMM_OP_BARRIER);
    rc = s ? coll_barrier(s, c) : MPI_ERR_NO_MEM;
    return coll_finish(comm, s, rc, F);
}
API_WEAK_ALIAS(Barrier)

API_EXPORT int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    static const char *const F = "MPI_Ibarrier";
    state_require_initialized(F);
    comm_t *c = NULL;
    int rc = check(comm, &c, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    icoll_sched_t *s = coll_begin(c, COMM_NONBLOCKING, COMM_OP_BARRIER);
    rc = s ? coll_barrier(s, c) : MPI_ERR_NO_MEM;
    return coll_finish_nb(c, comm, s, rc, request, F);
}
API_WEAK_ALIAS(Ibarrier)
