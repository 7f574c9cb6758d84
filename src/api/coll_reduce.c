/* MPI_Reduce, MPI_Ireduce (MPI-3.1 §5.9.1, §5.12.7); levels in coll/reduce.c. */
#include "api/coll_red.h"

typedef struct args {
    comm_t *c;
    dtype_t *dt;
    op_t *op;
} args_t;

/* Significant arguments: intra-communicator, all but recvbuf at non-roots (MPI_IN_PLACE as
 * sendbuf only at the root); inter-communicator, recvbuf/count/datatype/op at MPI_ROOT,
 * sendbuf/count/datatype/op in the other group, only root at MPI_PROC_NULL. */
static int check(MPI_Comm comm, const void *sbuf, void *rbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, int root, args_t *a, const char *F)
{
    API_GET_COMM(c, comm, F);
    *a = (args_t){ c, NULL, NULL };
    int rc = coll_check_root(c, comm, root, F), inter = comm_is_inter(c);
    if (rc != MPI_SUCCESS || (inter && root == MPI_PROC_NULL))
        return rc;
    if ((rc = coll_check_count(comm, count, F, "count")) != MPI_SUCCESS ||
        (rc = coll_red_check_type_op(comm, datatype, op, &a->dt, &a->op, F)) != MPI_SUCCESS)
        return rc;
    int is_root = inter ? root == MPI_ROOT : root == c->rank;
    if (!(inter && is_root) &&
        (rc = coll_red_check_sendbuf(comm, sbuf, (size_t)count, a->dt, !inter && is_root, F)))
        return rc;
    if (is_root && (rc = coll_red_check_recvbuf(comm, rbuf, (size_t)count, a->dt, F)))
        return rc;
    if (is_root && !inter)
        return coll_red_check_alias(comm, sbuf, rbuf, (size_t)count, F);
    return MPI_SUCCESS;
}

static coll_call_t make_call(comm_stream_t stream, const args_t *a, const void *sendbuf,
                             void *recvbuf, int count, int root)
{
    coll_call_t call = { .kind = COMM_OP_REDUCE, .stream = stream, .comm = a->c, .sbuf = sendbuf,
                         .rbuf = recvbuf, .count = (size_t)count, .dt = a->dt, .op = a->op, .root = root };
    if (a->dt)
        call.size = (size_t)count * (size_t)a->dt->size;
    return call;
}

API_EXPORT int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, int root, MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Reduce";
    state_require_initialized(F);
    args_t a;
    int rc = check(comm, sendbuf, recvbuf, count, datatype, op, root, &a, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_BLOCKING, &a, sendbuf, recvbuf, count, root);
    rc = coll_start(&coll_reduce_family, &call);
    return coll_finish_call(comm, &call, rc, F);
}
API_WEAK_ALIAS(Reduce)

API_EXPORT int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                            MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Ireduce";
    state_require_initialized(F);
    args_t a;
    int rc = check(comm, sendbuf, recvbuf, count, datatype, op, root, &a, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_NONBLOCKING, &a, sendbuf, recvbuf, count, root);
    rc = coll_start(&coll_reduce_family, &call);
    return coll_finish_nb(a.c, comm, call.s, rc, request, F);
}
API_WEAK_ALIAS(Ireduce)
