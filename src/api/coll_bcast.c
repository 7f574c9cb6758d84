/* MPI_Bcast and MPI_Ibcast (MPI-3.1 §5.4, §5.12.2); the levels are in coll/bcast.c. */
#include "api/coll_move_args.h"

/* On an inter-communicator the buffer is significant at the root (MPI_ROOT) and in the
 * other group, not at MPI_PROC_NULL processes (*dt stays NULL there). */
static int check(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 comm_t **cp, dtype_t **dt, const char *F)
{
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    *cp = c;
    *dt = NULL;
    int rc = coll_check_root(c, comm, root, F);
    if (rc != MPI_SUCCESS || (comm_is_inter(c) && root == MPI_PROC_NULL))
        return rc;
    rc = cm_check_not_in_place(comm, buffer, F, "buffer");
    if (rc == MPI_SUCCESS)
        rc = cm_check_side(comm, buffer, count, datatype, dt, F, "buffer", "count", "datatype");
    return rc;
}

static coll_call_t bcast_call(comm_stream_t stream, comm_t *c, void *buffer, int count,
                              dtype_t *dt, int root)
{
    coll_call_t call = { .kind = COMM_OP_BCAST, .stream = stream, .comm = c, .buf = buffer,
                         .count = (size_t)count, .dt = dt, .root = root };
    if (dt && !comm_is_inter(c))
        call.size = (size_t)count * (size_t)dt->size;
    return call;
}

API_EXPORT int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                          MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Bcast";
    comm_t *c;
    dtype_t *dt;
    int rc = check(buffer, count, datatype, root, comm, &c, &dt, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = bcast_call(COMM_BLOCKING, c, buffer, count, dt, root);
    rc = coll_start(&coll_bcast_family, &call);
    return coll_finish_call(comm, &call, rc, F);
}
API_WEAK_ALIAS(Bcast)

API_EXPORT int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
                           MPI_Comm comm, MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Ibcast";
    comm_t *c;
    dtype_t *dt;
    int rc = check(buffer, count, datatype, root, comm, &c, &dt, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = bcast_call(COMM_NONBLOCKING, c, buffer, count, dt, root);
    rc = coll_start(&coll_bcast_family, &call);
    return coll_finish_nb(c, comm, call.s, rc, request, F);
}
API_WEAK_ALIAS(Ibcast)
