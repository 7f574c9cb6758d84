/* MPI_Scatter, MPI_Scatterv and their I-forms (MPI-3.1 §5.6, §5.12.4); the levels are in
 * coll/scatter.c. The send arguments count at the root only (MPI_ROOT on an
 * inter-communicator), the receive arguments everywhere else; arguments that do not count
 * are not checked and reach the builder as 0 / NULL. */
#include "api/coll_move_args.h"

typedef struct args {
    comm_t *c;
    int send, recv;     /* the send / receive arguments count here */
    dtype_t *st, *rt;
} args_t;

/* Which sides count at this process, and the checks of the receive side. */
static int check_common(const void *sendbuf, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, args_t *a,
                        const char *F)
{
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    *a = (args_t){ .c = c };
    int rc = coll_check_root(c, comm, root, F);
    if (rc != MPI_SUCCESS)
        return rc;
    int inter = comm_is_inter(c);
    a->send = inter ? root == MPI_ROOT : c->rank == root;
    a->recv = inter ? root != MPI_ROOT && root != MPI_PROC_NULL : 1;
    if (a->send && (rc = cm_check_not_in_place(comm, sendbuf, F, "sendbuf")) != MPI_SUCCESS)
        return rc;
    if (a->recv && recvbuf == MPI_IN_PLACE) {
        if (!a->send || inter)
            return coll_raise_in_place(comm, F, "recvbuf");
        a->recv = 0; /* the root's block stays where it is */
    }
    if (a->recv)
        rc = cm_check_side(comm, recvbuf, recvcount, recvtype, &a->rt, F, "recvbuf",
                           "recvcount", "recvtype");
    return rc;
}

static int check(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, args_t *a,
                 const char *F)
{
    int rc = check_common(sendbuf, recvbuf, recvcount, recvtype, root, comm, a, F);
    if (rc == MPI_SUCCESS && a->send)
        rc = cm_check_side(comm, sendbuf, sendcount, sendtype, &a->st, F, "sendbuf",
                           "sendcount", "sendtype");
    if (rc == MPI_SUCCESS && a->send && a->recv)
        rc = cm_check_aliased(comm, sendbuf, (size_t)sendcount * (size_t)a->st->size, recvbuf,
                              (size_t)recvcount * (size_t)a->rt->size, F);
    return rc;
}

/* The call as the levels see it: arguments that do not count here as 0 / NULL. */
static coll_call_t make_call(comm_op_kind_t kind, comm_stream_t stream, const args_t *a,
                             const void *sendbuf, int sendcount, const int *sendcounts,
                             const int *displs, void *recvbuf, int recvcount, int root)
{
    return (coll_call_t){ .kind = kind, .stream = stream, .comm = a->c,
                          .sbuf = a->send ? sendbuf : NULL,
                          .scount = a->send ? (size_t)sendcount : 0, .stype = a->st,
                          .scounts = sendcounts, .sdispls = displs,
                          .rbuf = a->send || a->recv ? recvbuf : NULL,
                          .rcount = a->recv ? (size_t)recvcount : 0, .rtype = a->rt,
                          .root = root };
}

API_EXPORT int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Scatter";
    args_t a;
    int rc = check(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &a, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_OP_SCATTER, COMM_BLOCKING, &a, sendbuf, sendcount, NULL,
                                 NULL, recvbuf, recvcount, root);
    rc = coll_start(&coll_scatter_family, &call);
    return coll_finish_call(comm, &call, rc, F);
}
API_WEAK_ALIAS(Scatter)

API_EXPORT int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Iscatter";
    args_t a;
    int rc = check(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &a, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_OP_SCATTER, COMM_NONBLOCKING, &a, sendbuf, sendcount, NULL,
                                 NULL, recvbuf, recvcount, root);
    rc = coll_start(&coll_scatter_family, &call);
    return coll_finish_nb(a.c, comm, call.s, rc, request, F);
}
API_WEAK_ALIAS(Iscatter)

/* ---- Scatterv ---------------------------------------------------------------------------- */

static int checkv(const void *sendbuf, const int *sendcounts, const int *displs,
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, args_t *a, const char *F)
{
    int rc = check_common(sendbuf, recvbuf, recvcount, recvtype, root, comm, a, F);
    if (rc == MPI_SUCCESS && a->send)
        rc = cm_check_vside(comm, sendbuf, sendcounts, displs, comm_peer_size(a->c), sendtype,
                            &a->st, F, "sendbuf", "sendcounts", "displs", "sendtype");
    return rc;
}

API_EXPORT int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                             MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Scatterv";
    args_t a;
    int rc = checkv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                    comm, &a, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_OP_SCATTERV, COMM_BLOCKING, &a, sendbuf, 0, sendcounts,
                                 displs, recvbuf, recvcount, root);
    rc = coll_start(&coll_scatterv_family, &call);
    return coll_finish_call(comm, &call, rc, F);
}
API_WEAK_ALIAS(Scatterv)

API_EXPORT int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                              MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm,
                              MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Iscatterv";
    args_t a;
    int rc = checkv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                    comm, &a, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_OP_SCATTERV, COMM_NONBLOCKING, &a, sendbuf, 0, sendcounts,
                                 displs, recvbuf, recvcount, root);
    rc = coll_start(&coll_scatterv_family, &call);
    return coll_finish_nb(a.c, comm, call.s, rc, request, F);
}
API_WEAK_ALIAS(Iscatterv)
