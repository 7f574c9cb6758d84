/* MPI_Reduce_scatter, MPI_Reduce_scatter_block and their I-forms (MPI-3.1 §5.10, §5.12.9);
 * the levels are in coll/reduce_scatter.c. */
#include "api/coll_red.h"

typedef struct args {
    comm_t *c;
    dtype_t *dt;
    op_t *op;
} args_t;

/* Reduce_scatter: recvcounts, an entry per member of the local group; the block form
 * (block): recvcount for every member. sendbuf holds their sum; MPI_IN_PLACE on
 * intra-communicators only. */
static int check(MPI_Comm comm, const void *sbuf, void *rbuf, const int *rcounts, int rcount,
                 int block, MPI_Datatype datatype, MPI_Op op, args_t *a, const char *F)
{
    API_GET_COMM(c, comm, F);
    *a = (args_t){ c, NULL, NULL };
    int rc = block ? coll_check_count(comm, rcount, F, "recvcount")
                   : coll_check_counts(comm, rcounts, c->size, F, "recvcounts");
    if (rc != MPI_SUCCESS ||
        (rc = coll_red_check_type_op(comm, datatype, op, &a->dt, &a->op, F)) != MPI_SUCCESS)
        return rc;
    size_t total = 0, mine = block ? (size_t)rcount : (size_t)rcounts[c->rank];
    for (int i = 0; i < c->size; i++)
        total += block ? (size_t)rcount : (size_t)rcounts[i];
    if ((rc = coll_red_check_sendbuf(comm, sbuf, total, a->dt, !comm_is_inter(c), F)) ||
        (rc = coll_red_check_recvbuf(comm, rbuf, mine, a->dt, F)))
        return rc;
    return coll_red_check_alias(comm, sbuf, rbuf, mine, F);
}

static coll_call_t make_call(comm_op_kind_t kind, comm_stream_t stream, const args_t *a,
                             const void *sendbuf, void *recvbuf, const int *recvcounts,
                             int recvcount)
{
    return (coll_call_t){ .kind = kind, .stream = stream, .comm = a->c, .sbuf = sendbuf,
                          .rbuf = recvbuf, .rcounts = recvcounts, .count = (size_t)recvcount,
                          .dt = a->dt, .op = a->op };
}

API_EXPORT int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Reduce_scatter";
    state_require_initialized(F);
    args_t a;
    int rc = check(comm, sendbuf, recvbuf, recvcounts, 0, 0, datatype, op, &a, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_OP_REDUCE_SCATTER, COMM_BLOCKING, &a, sendbuf, recvbuf, recvcounts, 0);
    rc = coll_start(&coll_reduce_scatter_family, &call);
    return coll_finish_call(comm, &call, rc, F);
}
API_WEAK_ALIAS(Reduce_scatter)

API_EXPORT int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                    MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Ireduce_scatter";
    state_require_initialized(F);
    args_t a;
    int rc = check(comm, sendbuf, recvbuf, recvcounts, 0, 0, datatype, op, &a, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_OP_REDUCE_SCATTER, COMM_NONBLOCKING, &a, sendbuf, recvbuf, recvcounts, 0);
    rc = coll_start(&coll_reduce_scatter_family, &call);
    return coll_finish_nb(a.c, comm, call.s, rc, request, F);
}
API_WEAK_ALIAS(Ireduce_scatter)

API_EXPORT int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Reduce_scatter_block";
    state_require_initialized(F);
    args_t a;
    int rc = check(comm, sendbuf, recvbuf, NULL, recvcount, 1, datatype, op, &a, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_OP_REDUCE_SCATTER_BLOCK, COMM_BLOCKING, &a, sendbuf, recvbuf, NULL, recvcount);
    rc = coll_start(&coll_reduce_scatter_family, &call);
    return coll_finish_call(comm, &call, rc, F);
}
API_WEAK_ALIAS(Reduce_scatter_block)

API_EXPORT int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                          MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Ireduce_scatter_block";
    state_require_initialized(F);
    args_t a;
    int rc = check(comm, sendbuf, recvbuf, NULL, recvcount, 1, datatype, op, &a, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_OP_REDUCE_SCATTER_BLOCK, COMM_NONBLOCKING, &a, sendbuf, recvbuf, NULL, recvcount);
    rc = coll_start(&coll_reduce_scatter_family, &call);
    return coll_finish_nb(a.c, comm, call.s, rc, request, F);
}
API_WEAK_ALIAS(Ireduce_scatter_block)
