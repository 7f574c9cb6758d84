/* MPI_Allgather, MPI_Allgatherv and their I-forms (MPI-3.1 §5.7, §5.12.5); the levels
 * are in coll/allgather.c. MPI_IN_PLACE (as sendbuf, intra-communicators only) means every
 * process's block is already in its place in recvbuf; then the send arguments are ignored. */
#include "api/coll_move_args.h"

typedef struct args {
    comm_t *c;
    int inplace;
    dtype_t *st, *rt;
} args_t;

/* The checks both forms share: communicator, send side, receive buffer not in place. */
static int check_common(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        const void *recvbuf, MPI_Comm comm, args_t *a, const char *F)
{
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    *a = (args_t){ .c = c, .inplace = sendbuf == MPI_IN_PLACE };
    int rc = cm_check_not_in_place(comm, recvbuf, F, "recvbuf");
    if (rc == MPI_SUCCESS && a->inplace && comm_is_inter(c))
        rc = coll_raise_in_place(comm, F, "sendbuf (on an inter-communicator)");
    if (rc == MPI_SUCCESS && !a->inplace)
        rc = cm_check_side(comm, sendbuf, sendcount, sendtype, &a->st, F, "sendbuf",
                           "sendcount", "sendtype");
    return rc;
}

static int check(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, args_t *a,
                 const char *F)
{
    int rc = check_common(sendbuf, sendcount, sendtype, recvbuf, comm, a, F);
    if (rc == MPI_SUCCESS)
        rc = cm_check_side(comm, recvbuf, recvcount, recvtype, &a->rt, F, "recvbuf",
                           "recvcount", "recvtype");
    if (rc == MPI_SUCCESS && !a->inplace)
        rc = cm_check_aliased(comm, sendbuf, (size_t)sendcount * (size_t)a->st->size, recvbuf,
                              (size_t)recvcount * (size_t)a->rt->size, F);
    return rc;
}

/* The call as the levels see it (with MPI_IN_PLACE no send count). */
static coll_call_t make_call(comm_op_kind_t kind, comm_stream_t stream, const args_t *a,
                             const void *sendbuf, int sendcount, void *recvbuf, int recvcount,
                             const int *recvcounts, const int *displs)
{
    return (coll_call_t){ .kind = kind, .stream = stream, .comm = a->c, .sbuf = sendbuf,
                          .scount = a->inplace ? 0 : (size_t)sendcount, .stype = a->st,
                          .rbuf = recvbuf, .rcount = (size_t)recvcount, .rtype = a->rt,
                          .rcounts = recvcounts, .rdispls = displs };
}

API_EXPORT int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Allgather";
    args_t a;
    int rc = check(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &a, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_OP_ALLGATHER, COMM_BLOCKING, &a, sendbuf, sendcount, recvbuf, recvcount, NULL, NULL);
    rc = coll_start(&coll_allgather_family, &call);
    return coll_finish_call(comm, &call, rc, F);
}
API_WEAK_ALIAS(Allgather)

API_EXPORT int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Iallgather";
    args_t a;
    int rc = check(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &a, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_OP_ALLGATHER, COMM_NONBLOCKING, &a, sendbuf, sendcount, recvbuf, recvcount, NULL, NULL);
    rc = coll_start(&coll_allgather_family, &call);
    return coll_finish_nb(a.c, comm, call.s, rc, request, F);
}
API_WEAK_ALIAS(Iallgather)

/* ---- Allgatherv -------------------------------------------------------------------------- */

static int checkv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                  MPI_Comm comm, args_t *a, const char *F)
{
    int rc = check_common(sendbuf, sendcount, sendtype, recvbuf, comm, a, F);
    if (rc == MPI_SUCCESS)
        rc = cm_check_vside(comm, recvbuf, recvcounts, displs, comm_peer_size(a->c), recvtype,
                            &a->rt, F, "recvbuf", "recvcounts", "displs", "recvtype");
    return rc;
}

API_EXPORT int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Allgatherv";
    args_t a;
    int rc = checkv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                    &a, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_OP_ALLGATHERV, COMM_BLOCKING, &a, sendbuf, sendcount, recvbuf, 0, recvcounts, displs);
    rc = coll_start(&coll_allgatherv_family, &call);
    return coll_finish_call(comm, &call, rc, F);
}
API_WEAK_ALIAS(Allgatherv)

API_EXPORT int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Iallgatherv";
    args_t a;
    int rc = checkv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                    &a, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_OP_ALLGATHERV, COMM_NONBLOCKING, &a, sendbuf, sendcount, recvbuf, 0, recvcounts, displs);
    rc = coll_start(&coll_allgatherv_family, &call);
    return coll_finish_nb(a.c, comm, call.s, rc, request, F);
}
API_WEAK_ALIAS(Iallgatherv)
