/* MPI_Allreduce, MPI_Iallreduce (MPI-3.1 §5.9.6, §5.12.8); levels in coll/allreduce.c. */
#include "api/coll_red.h"

typedef struct args {
    comm_t *c;
    dtype_t *dt;
    op_t *op;
} args_t;

/* MPI_IN_PLACE as sendbuf on intra-communicators only. */
static int check(MPI_Comm comm, const void *sbuf, void *rbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, args_t *a, const char *F)
{
    API_GET_COMM(c, comm, F);
    *a = (args_t){ c, NULL, NULL };
    int rc;
    if ((rc = coll_check_count(comm, count, F, "count")) != MPI_SUCCESS ||
        (rc = coll_red_check_type_op(comm, datatype, op, &a->dt, &a->op, F)) != MPI_SUCCESS ||
        (rc = coll_red_check_sendbuf(comm, sbuf, (size_t)count, a->dt, !comm_is_inter(c), F)) ||
        (rc = coll_red_check_recvbuf(comm, rbuf, (size_t)count, a->dt, F)))
        return rc;
    return coll_red_check_alias(comm, sbuf, rbuf, (size_t)count, F);
}

static coll_call_t make_call(comm_stream_t stream, const args_t *a, const void *sendbuf,
                             void *recvbuf, int count)
{
    coll_call_t call = { .kind = COMM_OP_ALLREDUCE, .stream = stream, .comm = a->c, .sbuf = sendbuf,
                         .rbuf = recvbuf, .count = (size_t)count, .dt = a->dt, .op = a->op };
    if (a->dt)
        call.size = (size_t)count * (size_t)a->dt->size;
    return call;
}

API_EXPORT int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Allreduce";
    state_require_initialized(F);
    args_t a;
    int rc = check(comm, sendbuf, recvbuf, count, datatype, op, &a, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_BLOCKING, &a, sendbuf, recvbuf, count);
    rc = coll_start(&coll_allreduce_family, &call);
    return coll_finish_call(comm, &call, rc, F);
}
API_WEAK_ALIAS(Allreduce)

API_EXPORT int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Iallreduce";
    state_require_initialized(F);
    args_t a;
    int rc = check(comm, sendbuf, recvbuf, count, datatype, op, &a, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(COMM_NONBLOCKING, &a, sendbuf, recvbuf, count);
    rc = coll_start(&coll_allreduce_family, &call);
    return coll_finish_nb(a.c, comm, call.s, rc, request, F);
}
API_WEAK_ALIAS(Iallreduce)
