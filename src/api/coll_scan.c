/* MPI_Scan, MPI_Exscan and their I-forms (MPI-3.1 §5.11, §5.12.10-11): intra-communicators
 * only; algorithms in coll/scan.c. */
#include "api/coll_red.h"
#include "coll/red.h"
#include "coll/trace.h"

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

typedef int (*builder_t)(icoll_sched_t *, comm_t *, const void *, void *, size_t, dtype_t *,
                         op_t *);

static int blocking(builder_t b, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                    MPI_Op op, MPI_Comm comm, const char *F)
{
    state_require_initialized(F);
    args_t a;
    int rc = check(comm, sbuf, rbuf, count, dt, op, &a, F);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = red_direct_scan(a.c, sbuf, rbuf, (size_t)count, a.dt, a.op, b == coll_exscan);
    if (rc != COLL_DECLINED && coll_trace_level())
        coll_trace_emit(F, a.c, NULL);
    if (rc != COLL_DECLINED)
        return rc == MPI_SUCCESS ? rc : coll_finish(comm, NULL, rc, F);
    icoll_sched_t *s =
        coll_begin(a.c, COMM_BLOCKING, b == coll_exscan ? COMM_OP_EXSCAN : COMM_OP_SCAN);
    rc = s ? b(s, a.c, sbuf, rbuf, (size_t)count, a.dt, a.op) : MPI_ERR_NO_MEM;
    return coll_finish(comm, s, rc, F);
}

static int nonblocking(builder_t b, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                       MPI_Op op, MPI_Comm comm, MPI_Request *request, const char *F)
{
    state_require_initialized(F);
    args_t a;
    int rc = check(comm, sbuf, rbuf, count, dt, op, &a, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    icoll_sched_t *s =
        coll_begin(a.c, COMM_NONBLOCKING, b == coll_exscan ? COMM_OP_EXSCAN : COMM_OP_SCAN);
    rc = s ? b(s, a.c, sbuf, rbuf, (size_t)count, a.dt, a.op) : MPI_ERR_NO_MEM;
    return coll_finish_nb(a.c, comm, s, rc, request, F);
}

API_EXPORT int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm)
{
    return blocking(coll_scan, sendbuf, recvbuf, count, datatype, op, comm, "MPI_Scan");
}
API_WEAK_ALIAS(Scan)

API_EXPORT int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return blocking(coll_exscan, sendbuf, recvbuf, count, datatype, op, comm, "MPI_Exscan");
}
API_WEAK_ALIAS(Exscan)

API_EXPORT int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return nonblocking(coll_scan, sendbuf, recvbuf, count, datatype, op, comm, request,
                       "MPI_Iscan");
}
API_WEAK_ALIAS(Iscan)

API_EXPORT int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                            MPI_Request *request)
{
    return nonblocking(coll_exscan, sendbuf, recvbuf, count, datatype, op, comm, request,
                       "MPI_Iexscan");
}
API_WEAK_ALIAS(Iexscan)
