/* MPI_Scan, MPI_Exscan and their I-forms (MPI-3.1 §5.11, §5.12.10-11): intra-communicators
 * only; the levels are in coll/scan.c. */
#include "api/coll_red.h"

typedef struct args {
    comm_t *c;
    dtype_t *dt;
    op_t *op;
} args_t;

static int check(MPI_Comm comm, const void *sbuf, void *rbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, args_t *a, const char *F)
{
    API_GET_COMM(c, comm, F);
    *a = (args_t){ c, NULL, NULL };
    int rc;
    if ((rc = coll_check_intra(c, comm, F)) != MPI_SUCCESS ||
        (rc = coll_check_count(comm, count, F, "count")) != MPI_SUCCESS ||
        (rc = coll_red_check_type_op(comm, datatype, op, &a->dt, &a->op, F)) != MPI_SUCCESS ||
        (rc = coll_red_check_sendbuf(comm, sbuf, (size_t)count, a->dt, 1, F)) ||
        (rc = coll_red_check_recvbuf(comm, rbuf, (size_t)count, a->dt, F)))
        return rc;
    return coll_red_check_alias(comm, sbuf, rbuf, (size_t)count, F);
}

static coll_call_t make_call(comm_op_kind_t kind, comm_stream_t stream, const args_t *a,
                             const void *sbuf, void *rbuf, int count)
{
    return (coll_call_t){ .kind = kind, .stream = stream, .comm = a->c, .sbuf = sbuf,
                          .rbuf = rbuf, .count = (size_t)count, .dt = a->dt, .op = a->op,
                          .size = (size_t)count * (size_t)a->dt->size };
}

static int blocking(comm_op_kind_t kind, const void *sbuf, void *rbuf, int count,
                    MPI_Datatype dt, MPI_Op op, MPI_Comm comm, const char *F)
{
    state_require_initialized(F);
    args_t a;
    int rc = check(comm, sbuf, rbuf, count, dt, op, &a, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(kind, COMM_BLOCKING, &a, sbuf, rbuf, count);
    rc = coll_start(&coll_scan_family, &call);
    return coll_finish_call(comm, &call, rc, F);
}

static int nonblocking(comm_op_kind_t kind, const void *sbuf, void *rbuf, int count,
                       MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *request,
                       const char *F)
{
    state_require_initialized(F);
    args_t a;
    int rc = check(comm, sbuf, rbuf, count, dt, op, &a, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = make_call(kind, COMM_NONBLOCKING, &a, sbuf, rbuf, count);
    rc = coll_start(&coll_scan_family, &call);
    return coll_finish_nb(a.c, comm, call.s, rc, request, F);
}

API_EXPORT int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm)
{
    API_ENTER();
    return blocking(COMM_OP_SCAN, sendbuf, recvbuf, count, datatype, op, comm, "MPI_Scan");
}
API_WEAK_ALIAS(Scan)

API_EXPORT int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    API_ENTER();
    return blocking(COMM_OP_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm, "MPI_Exscan");
}
API_WEAK_ALIAS(Exscan)

API_EXPORT int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    API_ENTER();
    return nonblocking(COMM_OP_SCAN, sendbuf, recvbuf, count, datatype, op, comm, request,
                       "MPI_Iscan");
}
API_WEAK_ALIAS(Iscan)

API_EXPORT int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                            MPI_Request *request)
{
    API_ENTER();
    return nonblocking(COMM_OP_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm, request,
                       "MPI_Iexscan");
}
API_WEAK_ALIAS(Iexscan)
