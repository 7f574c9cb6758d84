/* MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw and their I-forms (MPI-3.1 §5.8, §5.12.6); the
 * levels are in coll/alltoall.c. MPI_IN_PLACE (as sendbuf, intra-communicators only):
 * the data sent is taken from recvbuf, laid out as the receive arguments say, and the send
 * arguments are ignored. */
#include "api/coll_move_args.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct args {
    comm_t *c;
    int inplace, n;     /* n: peers (the remote group's size on an inter-communicator) */
    dtype_t *st, *rt;
    dtype_t **sts, **rts; /* Alltoallw */
} args_t;

static int check_common(const void *sendbuf, const void *recvbuf, MPI_Comm comm, args_t *a,
                        const char *F)
{
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    *a = (args_t){ .c = c, .inplace = sendbuf == MPI_IN_PLACE, .n = comm_peer_size(c) };
    int rc = cm_check_not_in_place(comm, recvbuf, F, "recvbuf");
    if (rc == MPI_SUCCESS && a->inplace && comm_is_inter(c))
        rc = coll_raise_in_place(comm, F, "sendbuf (on an inter-communicator)");
    return rc;
}

static int check(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, args_t *a,
                 const char *F)
{
    int rc = check_common(sendbuf, recvbuf, comm, a, F);
    if (rc == MPI_SUCCESS && !a->inplace)
        rc = cm_check_side(comm, sendbuf, sendcount, sendtype, &a->st, F, "sendbuf",
                           "sendcount", "sendtype");
    if (rc == MPI_SUCCESS)
        rc = cm_check_side(comm, recvbuf, recvcount, recvtype, &a->rt, F, "recvbuf",
                           "recvcount", "recvtype");
    if (rc == MPI_SUCCESS && !a->inplace)
        rc = cm_check_aliased(comm, sendbuf, (size_t)sendcount * (size_t)a->st->size, recvbuf,
                              (size_t)recvcount * (size_t)a->rt->size, F);
    return rc;
}

/* The calls as the levels see them (with MPI_IN_PLACE no send count). */
static coll_call_t uniform_call(comm_stream_t stream, const args_t *a, const void *sendbuf,
                                int sendcount, void *recvbuf, int recvcount)
{
    return (coll_call_t){ .kind = COMM_OP_ALLTOALL, .stream = stream, .comm = a->c,
                          .sbuf = sendbuf, .scount = a->inplace ? 0 : (size_t)sendcount,
                          .stype = a->st, .rbuf = recvbuf, .rcount = (size_t)recvcount,
                          .rtype = a->rt };
}
static coll_call_t counts_call(comm_op_kind_t kind, comm_stream_t stream, const args_t *a,
                               const void *sendbuf, const int *sendcounts, const int *sdispls,
                               void *recvbuf, const int *recvcounts, const int *rdispls)
{
    return (coll_call_t){ .kind = kind, .stream = stream, .comm = a->c, .sbuf = sendbuf,
                          .stype = a->st, .scounts = sendcounts, .sdispls = sdispls,
                          .stypes = a->sts, .rbuf = recvbuf, .rtype = a->rt,
                          .rcounts = recvcounts, .rdispls = rdispls, .rtypes = a->rts };
}

API_EXPORT int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Alltoall";
    args_t a;
    int rc = check(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &a, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = uniform_call(COMM_BLOCKING, &a, sendbuf, sendcount, recvbuf, recvcount);
    rc = coll_start(&coll_alltoall_family, &call);
    return coll_finish_call(comm, &call, rc, F);
}
API_WEAK_ALIAS(Alltoall)

API_EXPORT int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Ialltoall";
    args_t a;
    int rc = check(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &a, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = uniform_call(COMM_NONBLOCKING, &a, sendbuf, sendcount, recvbuf, recvcount);
    rc = coll_start(&coll_alltoall_family, &call);
    return coll_finish_nb(a.c, comm, call.s, rc, request, F);
}
API_WEAK_ALIAS(Ialltoall)

/* ---- Alltoallv --------------------------------------------------------------------------- */

static int checkv(const void *sendbuf, const int *sendcounts, const int *sdispls,
                  MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                  const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm, args_t *a,
                  const char *F)
{
    int rc = check_common(sendbuf, recvbuf, comm, a, F);
    if (rc == MPI_SUCCESS && !a->inplace)
        rc = cm_check_vside(comm, sendbuf, sendcounts, sdispls, a->n, sendtype, &a->st, F,
                            "sendbuf", "sendcounts", "sdispls", "sendtype");
    if (rc == MPI_SUCCESS)
        rc = cm_check_vside(comm, recvbuf, recvcounts, rdispls, a->n, recvtype, &a->rt, F,
                            "recvbuf", "recvcounts", "rdispls", "recvtype");
    return rc;
}

API_EXPORT int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Alltoallv";
    args_t a;
    int rc = checkv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                    recvtype, comm, &a, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = counts_call(COMM_OP_ALLTOALLV, COMM_BLOCKING, &a, sendbuf, sendcounts, sdispls, recvbuf,
                                   recvcounts, rdispls);
    rc = coll_start(&coll_alltoallv_family, &call);
    return coll_finish_call(comm, &call, rc, F);
}
API_WEAK_ALIAS(Alltoallv)

API_EXPORT int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[],
                               const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                               const int recvcounts[], const int rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Ialltoallv";
    args_t a;
    int rc = checkv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                    recvtype, comm, &a, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_call_t call = counts_call(COMM_OP_ALLTOALLV, COMM_NONBLOCKING, &a, sendbuf, sendcounts, sdispls,
                                   recvbuf, recvcounts, rdispls);
    rc = coll_start(&coll_alltoallv_family, &call);
    return coll_finish_nb(a.c, comm, call.s, rc, request, F);
}
API_WEAK_ALIAS(Ialltoallv)

/* ---- Alltoallw --------------------------------------------------------------------------- */

/* One side of Alltoallw: counts, byte displacements and one type per peer; a type counts
 * only where its count is positive (out[i] is NULL elsewhere). */
static int check_wside(MPI_Comm comm, const void *buf, const int *counts, const int *displs,
                       const MPI_Datatype *types, int n, dtype_t **out, const char *F,
                       const char *bufname, const char *countsname, const char *displsname,
                       const char *typesname)
{
    int rc = coll_check_counts(comm, counts, n, F, countsname);
    if (rc == MPI_SUCCESS)
        rc = coll_check_array(comm, displs, n, F, displsname);
    if (rc == MPI_SUCCESS)
        rc = coll_check_array(comm, types, n, F, typesname);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        out[i] = NULL;
        if (counts[i] == 0)
            continue;
        char name[48];
        snprintf(name, sizeof name, "%s[%d]", typesname, i);
        rc = coll_check_type(comm, types[i], &out[i], F, name);
        if (rc == MPI_SUCCESS && !buf && out[i]->predefined)
            rc = err_raise(comm, MPI_ERR_BUFFER, F, "%s is NULL but %s[%d] is %d", bufname,
                           countsname, i, counts[i]);
    }
    return rc;
}

enum { W_STACK = 64 };

/* Checks, with the translated types in a->sts / a->rts (in stack, or allocated when there
 * are more than W_STACK peers: wdone() frees them). */
static int checkw(const void *sendbuf, const int *sendcounts, const int *sdispls,
                  const MPI_Datatype *sendtypes, void *recvbuf, const int *recvcounts,
                  const int *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm, args_t *a,
                  dtype_t **stack, const char *F)
{
    int rc = check_common(sendbuf, recvbuf, comm, a, F);
    if (rc != MPI_SUCCESS)
        return rc;
    int n = a->n;
    dtype_t **t = n <= W_STACK ? stack : malloc(2 * (size_t)n * sizeof *t);
    if (!t)
        return err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory");
    a->sts = t;
    a->rts = t + n;
    if (!a->inplace)
        rc = check_wside(comm, sendbuf, sendcounts, sdispls, sendtypes, n, a->sts, F, "sendbuf",
                         "sendcounts", "sdispls", "sendtypes");
    if (rc == MPI_SUCCESS)
        rc = check_wside(comm, recvbuf, recvcounts, rdispls, recvtypes, n, a->rts, F,
                         "recvbuf", "recvcounts", "rdispls", "recvtypes");
    return rc;
}

static void wdone(args_t *a, dtype_t **stack)
{
    if (a->sts && a->sts != stack)
        free(a->sts);
}

API_EXPORT int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf,
                              const int recvcounts[], const int rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    API_ENTER();
    static const char *const F = "MPI_Alltoallw";
    args_t a = { 0 };
    dtype_t *stack[2 * W_STACK];
    int rc = checkw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                    recvtypes, comm, &a, stack, F);
    if (rc != MPI_SUCCESS) {
        wdone(&a, stack);
        return rc;
    }
    coll_call_t call = counts_call(COMM_OP_ALLTOALLW, COMM_BLOCKING, &a, sendbuf, sendcounts, sdispls, recvbuf,
                                   recvcounts, rdispls);
    rc = coll_start(&coll_alltoallw_family, &call);
    wdone(&a, stack); /* the builder read the types; the schedule holds them */
    return coll_finish_call(comm, &call, rc, F);
}
API_WEAK_ALIAS(Alltoallw)

API_EXPORT int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[],
                               const int sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const int recvcounts[], const int rdispls[],
                               const MPI_Datatype recvtypes[], MPI_Comm comm,
                               MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Ialltoallw";
    args_t a = { 0 };
    dtype_t *stack[2 * W_STACK];
    int rc = checkw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                    recvtypes, comm, &a, stack, F);
    if (rc == MPI_SUCCESS)
        rc = coll_check_request(comm, request, F);
    if (rc != MPI_SUCCESS) {
        wdone(&a, stack);
        return rc;
    }
    coll_call_t call = counts_call(COMM_OP_ALLTOALLW, COMM_NONBLOCKING, &a, sendbuf, sendcounts, sdispls,
                                   recvbuf, recvcounts, rdispls);
    rc = coll_start(&coll_alltoallw_family, &call);
    wdone(&a, stack);
    return coll_finish_nb(a.c, comm, call.s, rc, request, F);
}
API_WEAK_ALIAS(Ialltoallw)
