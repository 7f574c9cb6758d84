/* MPI_Gather, MPI_Gatherv and their I-forms (MPI-3.1 §5.5, §5.12.3); the levels are in
 * coll/gather.c. The receive arguments count at the root only (MPI_ROOT on an
 * inter-communicator), the send arguments everywhere else; arguments that do not count are
 * not checked and reach the builder as 0 / NULL. */
#include "api/coll_move_args.h"

typedef struct args {
    comm_t *c;
    int send, recv;     /* the send / receive arguments count here */
    dtype_t *st, *rt;
} args_t;

/* Which sides count at this process, and the checks both forms share except the receive
 * side (a count or counts and displacements). */
static int check_common(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        const void *recvbuf, int root, MPI_Comm comm, args_t *a, const char *F)
{
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    *a = (args_t){ .c = c };
    int rc = coll_check_root(c, comm, root, F);
    if (rc != MPI_SUCCESS)
        return rc;
    int inter = comm_is_inter(c);
    a->recv = inter ? root == MPI_ROOT : c->rank == root;
    a->send = inter ? root != MPI_ROOT && root != MPI_PROC_NULL : 1;
    if (a->recv && (rc = cm_check_not_in_place(comm, recvbuf, F, "recvbuf")) != MPI_SUCCESS)
        return rc;
    if (a->send && sendbuf == MPI_IN_PLACE) {
        if (!a->recv || inter)
            return coll_raise_in_place(comm, F, "sendbuf");
        a->send = 0; /* the root's block is already in place */
    }
    if (a->send)
        rc = cm_check_side(comm, sendbuf, sendcount, sendtype, &a->st, F, "sendbuf",
                           "sendcount", "sendtype");
    return rc;
}

static int check(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, args_t *a,
                 const char *F)
{
    int rc = check_common(sendbuf, sendcount, sendtype, recvbuf, root, comm, a, F);
    if (rc == MPI_SUCCESS && a->recv)
        rc = cm_check_side(comm, recvbuf, recvcount, recvtype, &a->rt, F, "recvbuf",
                           "recvcount", "recvtype");
    if (rc == MPI_SUCCESS && a->send && a->recv)
        rc = cm_check_aliased(comm, sendbuf, (size_t)sendcount * (size_t)a->st->size, recvbuf,
                              (size_t)recvcount * (size_t)a->rt->size, F);
    return rc;
}

/* The call as the levels see it: arguments that do not count here as 0 / NULL. */
static coll_call_t make_call(comm_op_kind_t kind, comm_stream_t stream, const args_t *a,
                             const void *sendbuf, int sendcount, void *recvbuf, int recvcount,
                             const int *recvcounts, const int *displs, int root)
{
    return (coll_call_t){ .kind = kind, .stream = stream, .comm = a->c,
                          .sbuf = a->send || a->recv ? sendbuf : NULL,
                          .scount = a->send ? (size_t)sendcount : 0, .stype = a->st,
                          .rbuf = recvbuf, .rcount = a->recv ? (size_t)recvcount : 0,
                          .rtype = a->rt, .rcounts = recvcounts, .rdispls = displs,
                          .root = root };
}

API_EXPORT int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Gather";
    args_t a;
    int rc = check(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &a, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_OP_GATHER, COMM_BLOCKING, &a, sendbuf, sendcount, recvbuf,
                                 recvcount, NULL, NULL, root);
    rc = coll_start(&coll_gather_family, &call);
    return coll_finish_call(comm, &call, rc, F);
}
API_WEAK_ALIAS(Gather)

API_EXPORT int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Igather";
    args_t a;
    int rc = check(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &a, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_OP_GATHER, COMM_NONBLOCKING, &a, sendbuf, sendcount,
                                 recvbuf, recvcount, NULL, NULL, root);
    rc = coll_start(&coll_gather_family, &call);
    return coll_finish_nb(a.c, comm, call.s, rc, request, F);
}
API_WEAK_ALIAS(Igather)

/* ---- Gatherv ----------------------------------------------------------------------------- */

static int checkv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                  MPI_Comm comm, args_t *a, const char *F)
{
    int rc = check_common(sendbuf, sendcount, sendtype, recvbuf, root, comm, a, F);
    if (rc == MPI_SUCCESS && a->recv)
        rc = cm_check_vside(comm, recvbuf, recvcounts, displs, comm_peer_size(a->c), recvtype,
                            &a->rt, F, "recvbuf", "recvcounts", "displs", "recvtype");
    return rc;
}

API_EXPORT int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Gatherv";
    args_t a;
    int rc = checkv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                    comm, &a, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_OP_GATHERV, COMM_BLOCKING, &a, sendbuf, sendcount, recvbuf,
                                 0, recvcounts, displs, root);
    rc = coll_start(&coll_gatherv_family, &call);
    return coll_finish_call(comm, &call, rc, F);
}
API_WEAK_ALIAS(Gatherv)

API_EXPORT int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, int root, MPI_Comm comm,
                             MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Igatherv";
    args_t a;
    int rc = checkv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                    comm, &a, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_OP_GATHERV, COMM_NONBLOCKING, &a, sendbuf, sendcount,
                                 recvbuf, 0, recvcounts, displs, root);
    rc = coll_start(&coll_gatherv_family, &call);
    return coll_finish_nb(a.c, comm, call.s, rc, request, F);
}
API_WEAK_ALIAS(Igatherv)
