/*
 * Neighbourhood collectives (MPI-3.1 §7.6–7.7): MPI_Neighbor_allgather(v), alltoall(v,w) and
 * their I-forms. Each blocking call and its I-form share one function (nb selects the form):
 * the checks, the builder of coll/neighbor.c, then coll_finish or coll_finish_nb.
 *
 * Checks, in order: the communicator (an intra-communicator, MPI_ERR_COMM otherwise; with a
 * Cartesian, graph or distributed-graph topology, MPI_ERR_TOPOLOGY otherwise); the request
 * pointer of an I-form; MPI_IN_PLACE, which no neighbourhood collective allows
 * (MPI_ERR_BUFFER); counts (MPI_ERR_COUNT) and count arrays (MPI_ERR_ARG when NULL),
 * displacement and type arrays (MPI_ERR_ARG when NULL) — arrays have one entry per
 * destination (send side) or source (receive side) neighbour, so a process without
 * neighbours may pass NULL; datatypes (MPI_ERR_TYPE: null, invalid or not committed); a NULL
 * buffer where data of a predefined type would be read or written (MPI_ERR_BUFFER).
 * MPI_Neighbor_alltoallw checks the type of a block only when its count is nonzero, as MPICH
 * does (programs pass MPI_DATATYPE_NULL for empty blocks), and a NULL buffer only at
 * displacement 0 (MPI_BOTTOM with absolute displacements is allowed).
 */
#include "api/coll_api.h"
#include "coll/neighbor.h"

#include <stdio.h>
#include <stdlib.h>

/* c is an intra-communicator with a topology; *indeg, *outdeg its neighbour counts here */
static int check_comm(const comm_t *c, MPI_Comm comm, const char *F, int *indeg, int *outdeg)
{
    int rc = coll_check_intra(c, comm, F);
    if (rc == MPI_SUCCESS && coll_neighbor_degrees(c, indeg, outdeg) != 0)
        rc = err_raise(comm, MPI_ERR_TOPOLOGY, F,
                       "the communicator has no Cartesian, graph or distributed-graph "
                       "topology");
    return rc;
}

static int check_request(MPI_Comm comm, int nb, const MPI_Request *request, const char *F)
{
    return nb ? coll_check_request(comm, request, F) : MPI_SUCCESS;
}

static int check_not_in_place(MPI_Comm comm, const void *sendbuf, const void *recvbuf,
                              const char *F)
{
    if (sendbuf == MPI_IN_PLACE)
        return coll_raise_in_place(comm, F, "sendbuf");
    if (recvbuf == MPI_IN_PLACE)
        return coll_raise_in_place(comm, F, "recvbuf");
    return MPI_SUCCESS;
}

/* buf is not NULL when data of the predefined type dt would be read or written (used) */
static int check_buf(MPI_Comm comm, const void *buf, int used, const dtype_t *dt,
                     const char *F, const char *arg)
{
    if (used && !buf && dt->predefined)
        return err_raise(comm, MPI_ERR_BUFFER, F,
                         "%s is NULL but data of a predefined type would be %s there", arg,
                         arg[0] == 's' ? "read from" : "written");
    return MPI_SUCCESS;
}

static int any_positive(const int *counts, int n)
{
    for (int i = 0; i < n; i++)
        if (counts[i] > 0)
            return 1;
    return 0;
}

static int finish(comm_t *c, MPI_Comm comm, icoll_sched_t *s, int rc, int nb,
                  MPI_Request *request, const char *F)
{
    return nb ? coll_finish_nb(c, comm, s, rc, request, F) : coll_finish(comm, s, rc, F);
}

/* ---- allgather, alltoall: one count and type per side -------------------------------- */

typedef int (*uniform_fn)(icoll_sched_t *, comm_t *, const void *, size_t, dtype_t *, void *,
                          size_t, dtype_t *);

static int uniform(uniform_fn build, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, int nb,
                   MPI_Request *request, const char *F)
{
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    int indeg = 0, outdeg = 0, rc;
    dtype_t *st = NULL, *rt = NULL;
    if ((rc = check_comm(c, comm, F, &indeg, &outdeg)) ||
        (rc = check_request(comm, nb, request, F)) ||
        (rc = check_not_in_place(comm, sendbuf, recvbuf, F)) ||
        (rc = coll_check_count(comm, sendcount, F, "sendcount")) ||
        (rc = coll_check_type(comm, sendtype, &st, F, "sendtype")) ||
        (rc = check_buf(comm, sendbuf, outdeg > 0 && sendcount > 0, st, F, "sendbuf")) ||
        (rc = coll_check_count(comm, recvcount, F, "recvcount")) ||
        (rc = coll_check_type(comm, recvtype, &rt, F, "recvtype")) ||
        (rc = check_buf(comm, recvbuf, indeg > 0 && recvcount > 0, rt, F, "recvbuf")))
        return rc;
    comm_op_kind_t kind =
        build == coll_neighbor_allgather ? COMM_OP_NEIGHBOR_ALLGATHER : COMM_OP_NEIGHBOR_ALLTOALL;
    icoll_sched_t *s = coll_begin(c, nb ? COMM_NONBLOCKING : COMM_BLOCKING, kind);
    rc = s ? build(s, c, sendbuf, (size_t)sendcount, st, recvbuf, (size_t)recvcount, rt)
           : MPI_ERR_NO_MEM;
    return finish(c, comm, s, rc, nb, request, F);
}

API_EXPORT int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount,
                                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                       MPI_Datatype recvtype, MPI_Comm comm)
{
    API_ENTER();
    return uniform(coll_neighbor_allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, comm, 0, NULL, "MPI_Neighbor_allgather");
}
API_WEAK_ALIAS(Neighbor_allgather)

API_EXPORT int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount,
                                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                        MPI_Datatype recvtype, MPI_Comm comm,
                                        MPI_Request *request)
{
    API_ENTER();
    return uniform(coll_neighbor_allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, comm, 1, request, "MPI_Ineighbor_allgather");
}
API_WEAK_ALIAS(Ineighbor_allgather)

API_EXPORT int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm)
{
    API_ENTER();
    return uniform(coll_neighbor_alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, comm, 0, NULL, "MPI_Neighbor_alltoall");
}
API_WEAK_ALIAS(Neighbor_alltoall)

API_EXPORT int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount,
                                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                       MPI_Datatype recvtype, MPI_Comm comm,
                                       MPI_Request *request)
{
    API_ENTER();
    return uniform(coll_neighbor_alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, comm, 1, request, "MPI_Ineighbor_alltoall");
}
API_WEAK_ALIAS(Ineighbor_alltoall)

/* ---- allgatherv ---------------------------------------------------------------------- */

static int allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                      MPI_Comm comm, int nb, MPI_Request *request, const char *F)
{
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    int indeg = 0, outdeg = 0, rc;
    dtype_t *st = NULL, *rt = NULL;
    if ((rc = check_comm(c, comm, F, &indeg, &outdeg)) ||
        (rc = check_request(comm, nb, request, F)) ||
        (rc = check_not_in_place(comm, sendbuf, recvbuf, F)) ||
        (rc = coll_check_count(comm, sendcount, F, "sendcount")) ||
        (rc = coll_check_type(comm, sendtype, &st, F, "sendtype")) ||
        (rc = check_buf(comm, sendbuf, outdeg > 0 && sendcount > 0, st, F, "sendbuf")) ||
        (rc = coll_check_counts(comm, recvcounts, indeg, F, "recvcounts")) ||
        (rc = coll_check_array(comm, displs, indeg, F, "displs")) ||
        (rc = coll_check_type(comm, recvtype, &rt, F, "recvtype")) ||
        (rc = check_buf(comm, recvbuf, any_positive(recvcounts, indeg), rt, F, "recvbuf")))
        return rc;
    icoll_sched_t *s =
        coll_begin(c, nb ? COMM_NONBLOCKING : COMM_BLOCKING, COMM_OP_NEIGHBOR_ALLGATHERV);
    rc = s ? coll_neighbor_allgatherv(s, c, sendbuf, (size_t)sendcount, st, recvbuf,
                                      recvcounts, displs, rt)
           : MPI_ERR_NO_MEM;
    return finish(c, comm, s, rc, nb, request, F);
}

API_EXPORT int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount,
                                        MPI_Datatype sendtype, void *recvbuf,
                                        const int recvcounts[], const int displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm)
{
    API_ENTER();
    return allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                      0, NULL, "MPI_Neighbor_allgatherv");
}
API_WEAK_ALIAS(Neighbor_allgatherv)

API_EXPORT int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount,
                                         MPI_Datatype sendtype, void *recvbuf,
                                         const int recvcounts[], const int displs[],
                                         MPI_Datatype recvtype, MPI_Comm comm,
                                         MPI_Request *request)
{
    API_ENTER();
    return allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                      1, request, "MPI_Ineighbor_allgatherv");
}
API_WEAK_ALIAS(Ineighbor_allgatherv)

/* ---- alltoallv ----------------------------------------------------------------------- */

static int alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, int nb,
                     MPI_Request *request, const char *F)
{
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    int indeg = 0, outdeg = 0, rc;
    dtype_t *st = NULL, *rt = NULL;
    if ((rc = check_comm(c, comm, F, &indeg, &outdeg)) ||
        (rc = check_request(comm, nb, request, F)) ||
        (rc = check_not_in_place(comm, sendbuf, recvbuf, F)) ||
        (rc = coll_check_counts(comm, sendcounts, outdeg, F, "sendcounts")) ||
        (rc = coll_check_array(comm, sdispls, outdeg, F, "sdispls")) ||
        (rc = coll_check_type(comm, sendtype, &st, F, "sendtype")) ||
        (rc = check_buf(comm, sendbuf, any_positive(sendcounts, outdeg), st, F, "sendbuf")) ||
        (rc = coll_check_counts(comm, recvcounts, indeg, F, "recvcounts")) ||
        (rc = coll_check_array(comm, rdispls, indeg, F, "rdispls")) ||
        (rc = coll_check_type(comm, recvtype, &rt, F, "recvtype")) ||
        (rc = check_buf(comm, recvbuf, any_positive(recvcounts, indeg), rt, F, "recvbuf")))
        return rc;
    icoll_sched_t *s =
        coll_begin(c, nb ? COMM_NONBLOCKING : COMM_BLOCKING, COMM_OP_NEIGHBOR_ALLTOALLV);
    rc = s ? coll_neighbor_alltoallv(s, c, sendbuf, sendcounts, sdispls, st, recvbuf, recvcounts,
                                     rdispls, rt)
           : MPI_ERR_NO_MEM;
    return finish(c, comm, s, rc, nb, request, F);
}

API_EXPORT int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                       const int sdispls[], MPI_Datatype sendtype,
                                       void *recvbuf, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype,
                                       MPI_Comm comm)
{
    API_ENTER();
    return alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                     recvtype, comm, 0, NULL, "MPI_Neighbor_alltoallv");
}
API_WEAK_ALIAS(Neighbor_alltoallv)

API_EXPORT int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                        const int sdispls[], MPI_Datatype sendtype,
                                        void *recvbuf, const int recvcounts[],
                                        const int rdispls[], MPI_Datatype recvtype,
                                        MPI_Comm comm, MPI_Request *request)
{
    API_ENTER();
    return alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                     recvtype, comm, 1, request, "MPI_Ineighbor_alltoallv");
}
API_WEAK_ALIAS(Ineighbor_alltoallv)

/* ---- alltoallw ----------------------------------------------------------------------- */

/* One side of MPI_Neighbor_alltoallw: n blocks (counts, byte displacements, types) at buf;
 * out[i] is the type of block i (NULL for an empty block). side is "send" or "recv". */
static int check_wside(MPI_Comm comm, const void *buf, const int counts[],
                       const MPI_Aint displs[], const MPI_Datatype types[], int n,
                       dtype_t **out, const char *F, const char *side, const char *dname)
{
    char arg[48];
    snprintf(arg, sizeof arg, "%scounts", side);
    int rc = coll_check_counts(comm, counts, n, F, arg);
    if (rc == MPI_SUCCESS)
        rc = coll_check_array(comm, displs, n, F, dname);
    snprintf(arg, sizeof arg, "%stypes", side);
    if (rc == MPI_SUCCESS)
        rc = coll_check_array(comm, types, n, F, arg);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        out[i] = NULL;
        if (counts[i] == 0)
            continue;
        snprintf(arg, sizeof arg, "%stypes[%d]", side, i);
        rc = coll_check_type(comm, types[i], &out[i], F, arg);
        snprintf(arg, sizeof arg, "%sbuf", side);
        if (rc == MPI_SUCCESS)
            rc = check_buf(comm, buf, displs[i] == 0, out[i], F, arg);
    }
    return rc;
}

static int alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                     int nb, MPI_Request *request, const char *F)
{
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    int indeg = 0, outdeg = 0, rc;
    if ((rc = check_comm(c, comm, F, &indeg, &outdeg)) ||
        (rc = check_request(comm, nb, request, F)) ||
        (rc = check_not_in_place(comm, sendbuf, recvbuf, F)))
        return rc;
    size_t n = (size_t)indeg + (size_t)outdeg;
    dtype_t **types = malloc((n ? n : 1) * sizeof *types);
    if (!types)
        return err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory");
    dtype_t **st = types, **rt = types + outdeg;
    if ((rc = check_wside(comm, sendbuf, sendcounts, sdispls, sendtypes, outdeg, st, F, "send",
                          "sdispls")) ||
        (rc = check_wside(comm, recvbuf, recvcounts, rdispls, recvtypes, indeg, rt, F, "recv",
                          "rdispls"))) {
        free(types);
        return rc;
    }
    icoll_sched_t *s =
        coll_begin(c, nb ? COMM_NONBLOCKING : COMM_BLOCKING, COMM_OP_NEIGHBOR_ALLTOALLW);
    rc = s ? coll_neighbor_alltoallw(s, c, sendbuf, sendcounts, sdispls, st, recvbuf, recvcounts,
                                     rdispls, rt)
           : MPI_ERR_NO_MEM;
    free(types); /* the schedule holds the types it uses */
    return finish(c, comm, s, rc, nb, request, F);
}

API_EXPORT int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                       const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                       void *recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                       MPI_Comm comm)
{
    API_ENTER();
    return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                     recvtypes, comm, 0, NULL, "MPI_Neighbor_alltoallw");
}
API_WEAK_ALIAS(Neighbor_alltoallw)

API_EXPORT int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                        const MPI_Aint sdispls[],
                                        const MPI_Datatype sendtypes[], void *recvbuf,
                                        const int recvcounts[], const MPI_Aint rdispls[],
                                        const MPI_Datatype recvtypes[], MPI_Comm comm,
                                        MPI_Request *request)
{
    API_ENTER();
    return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                     recvtypes, comm, 1, request, "MPI_Ineighbor_alltoallw");
}
API_WEAK_ALIAS(Ineighbor_alltoallw)
