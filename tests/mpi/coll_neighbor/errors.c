/* Error classes of the neighbourhood collectives (MPI_ERRORS_RETURN on every communicator):
 * a communicator without topology (MPI_ERR_TOPOLOGY), MPI_COMM_NULL and inter-communicators
 * (MPI_ERR_COMM), MPI_IN_PLACE (MPI_ERR_BUFFER), negative counts (MPI_ERR_COUNT), null and
 * uncommitted datatypes (MPI_ERR_TYPE), NULL buffers, count/displacement/type arrays and
 * requests, receive buffers smaller than the data (MPI_ERR_TRUNCATE, also for a process that
 * is its own neighbour); MPI_DATATYPE_NULL for empty alltoallw blocks is accepted; every
 * communicator still works after the errors. Checks where MPICH 4.0 returns success, another
 * class, or crashes are under #ifdef METAMPI. */
#include "nbr.h"

static int rank, size;

static int cls(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

#define EXPECT(call, klass) CHECK_RC(cls(call), klass)

/* All ten functions on comm with otherwise valid arguments must fail with klass. */
static void all_fail(MPI_Comm comm, int klass)
{
    int sb[64] = { 0 }, rb[64], counts[16] = { 0 }, displs[16] = { 0 };
    MPI_Aint wd[16] = { 0 };
    MPI_Datatype wt[16];
    MPI_Request req = MPI_REQUEST_NULL;
    for (int i = 0; i < 16; i++)
        wt[i] = MPI_INT;
    EXPECT(MPI_Neighbor_allgather(sb, 1, MPI_INT, rb, 1, MPI_INT, comm), klass);
    EXPECT(MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, comm), klass);
    EXPECT(MPI_Ineighbor_allgather(sb, 1, MPI_INT, rb, 1, MPI_INT, comm, &req), klass);
    EXPECT(MPI_Ineighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, comm, &req), klass);
#ifndef METAMPI
    /* MPICH 4.0 checks the arrays of the v and w forms against degrees it did not set when
     * the communicator has no topology (MPI_ERR_COUNT, or success, at random) */
    if (klass == MPI_ERR_TOPOLOGY)
        return;
#endif
    EXPECT(MPI_Neighbor_allgatherv(sb, 1, MPI_INT, rb, counts, displs, MPI_INT, comm), klass);
    EXPECT(MPI_Neighbor_alltoallv(sb, counts, displs, MPI_INT, rb, counts, displs, MPI_INT,
                                  comm), klass);
    EXPECT(MPI_Neighbor_alltoallw(sb, counts, wd, wt, rb, counts, wd, wt, comm), klass);
    EXPECT(MPI_Ineighbor_allgatherv(sb, 1, MPI_INT, rb, counts, displs, MPI_INT, comm, &req),
           klass);
    EXPECT(MPI_Ineighbor_alltoallv(sb, counts, displs, MPI_INT, rb, counts, displs, MPI_INT,
                                   comm, &req), klass);
    EXPECT(MPI_Ineighbor_alltoallw(sb, counts, wd, wt, rb, counts, wd, wt, comm, &req), klass);
    CHECK(req == MPI_REQUEST_NULL);
}

/* Argument errors on a ring (every process has two neighbours, or is both its own). */
static void argument_errors(MPI_Comm ring)
{
    int sb[8] = { 0 }, rb[8], c2[2] = { 1, 1 }, d2[2] = { 0, 1 }, bad[2] = { 1, -1 };
    MPI_Aint wd[2] = { 0, sizeof(int) };
    MPI_Datatype wt[2] = { MPI_INT, MPI_INT }, wnull[2] = { MPI_INT, MPI_DATATYPE_NULL };
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Datatype loose;
    MPI_Type_contiguous(2, MPI_INT, &loose); /* never committed */

    /* counts */
    EXPECT(MPI_Neighbor_allgather(sb, -1, MPI_INT, rb, 1, MPI_INT, ring), MPI_ERR_COUNT);
    EXPECT(MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, -2, MPI_INT, ring), MPI_ERR_COUNT);
    EXPECT(MPI_Ineighbor_allgather(sb, -1, MPI_INT, rb, 1, MPI_INT, ring, &req), MPI_ERR_COUNT);
    EXPECT(MPI_Neighbor_allgatherv(sb, 1, MPI_INT, rb, bad, d2, MPI_INT, ring), MPI_ERR_COUNT);
    EXPECT(MPI_Neighbor_alltoallv(sb, bad, d2, MPI_INT, rb, c2, d2, MPI_INT, ring),
           MPI_ERR_COUNT);
    EXPECT(MPI_Ineighbor_alltoallv(sb, c2, d2, MPI_INT, rb, bad, d2, MPI_INT, ring, &req),
           MPI_ERR_COUNT);
    EXPECT(MPI_Neighbor_alltoallw(sb, bad, wd, wt, rb, c2, wd, wt, ring), MPI_ERR_COUNT);

    /* datatypes */
    EXPECT(MPI_Neighbor_allgather(sb, 1, MPI_DATATYPE_NULL, rb, 1, MPI_INT, ring),
           MPI_ERR_TYPE);
    EXPECT(MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, loose, ring), MPI_ERR_TYPE);
    EXPECT(MPI_Ineighbor_alltoall(sb, 1, loose, rb, 1, MPI_INT, ring, &req), MPI_ERR_TYPE);
    EXPECT(MPI_Neighbor_allgatherv(sb, 1, MPI_INT, rb, c2, d2, MPI_DATATYPE_NULL, ring),
           MPI_ERR_TYPE);
    EXPECT(MPI_Neighbor_alltoallv(sb, c2, d2, loose, rb, c2, d2, MPI_INT, ring), MPI_ERR_TYPE);
    EXPECT(MPI_Neighbor_alltoallw(sb, c2, wd, wnull, rb, c2, wd, wt, ring), MPI_ERR_TYPE);
    wt[0] = loose;
    EXPECT(MPI_Ineighbor_alltoallw(sb, c2, wd, wt, rb, c2, wd, wnull, ring, &req),
           MPI_ERR_TYPE);
    wt[0] = MPI_INT;
    CHECK(req == MPI_REQUEST_NULL);

    /* NULL buffers where data would be read or written */
    EXPECT(MPI_Neighbor_allgather(NULL, 1, MPI_INT, rb, 1, MPI_INT, ring), MPI_ERR_BUFFER);
    EXPECT(MPI_Neighbor_alltoall(sb, 1, MPI_INT, NULL, 1, MPI_INT, ring), MPI_ERR_BUFFER);
    EXPECT(MPI_Neighbor_alltoallv(NULL, c2, d2, MPI_INT, rb, c2, d2, MPI_INT, ring),
           MPI_ERR_BUFFER);
    EXPECT(MPI_Neighbor_alltoallw(sb, c2, wd, wt, NULL, c2, wd, wt, ring), MPI_ERR_BUFFER);

    /* the request of an I-form */
    EXPECT(MPI_Ineighbor_allgather(sb, 1, MPI_INT, rb, 1, MPI_INT, ring, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Ineighbor_alltoallw(sb, c2, wd, wt, rb, c2, wd, wt, ring, NULL), MPI_ERR_ARG);

#ifdef METAMPI
    /* MPI_IN_PLACE is not allowed (MPICH 4.0 does not check it) */
    EXPECT(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, rb, 1, MPI_INT, ring),
           MPI_ERR_BUFFER);
    EXPECT(MPI_Neighbor_alltoall(sb, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, ring),
           MPI_ERR_BUFFER);
    EXPECT(MPI_Ineighbor_alltoallv(MPI_IN_PLACE, c2, d2, MPI_INT, rb, c2, d2, MPI_INT, ring,
                                   &req), MPI_ERR_BUFFER);
    EXPECT(MPI_Neighbor_alltoallw(MPI_IN_PLACE, c2, wd, wt, rb, c2, wd, wt, ring),
           MPI_ERR_BUFFER);
    /* NULL arrays (MPICH 4.0 dereferences them) */
    EXPECT(MPI_Neighbor_allgatherv(sb, 1, MPI_INT, rb, NULL, d2, MPI_INT, ring), MPI_ERR_ARG);
    EXPECT(MPI_Neighbor_allgatherv(sb, 1, MPI_INT, rb, c2, NULL, MPI_INT, ring), MPI_ERR_ARG);
    EXPECT(MPI_Neighbor_alltoallv(sb, c2, NULL, MPI_INT, rb, c2, d2, MPI_INT, ring),
           MPI_ERR_ARG);
    EXPECT(MPI_Ineighbor_alltoallv(sb, c2, d2, MPI_INT, rb, NULL, d2, MPI_INT, ring, &req),
           MPI_ERR_ARG);
    EXPECT(MPI_Neighbor_alltoallw(sb, c2, wd, NULL, rb, c2, wd, wt, ring), MPI_ERR_ARG);
    EXPECT(MPI_Neighbor_alltoallw(sb, c2, wd, wt, rb, c2, NULL, wt, ring), MPI_ERR_ARG);
    CHECK(req == MPI_REQUEST_NULL);
#endif
    MPI_Type_free(&loose);
}

/* Receive blocks smaller than what arrives: MPI_ERR_TRUNCATE where it arrives (everywhere on
 * a ring); the communicator works afterwards. */
static void truncation(MPI_Comm ring)
{
    int sb[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, rb[8], c2[2] = { 1, 1 }, c4[2] = { 2, 2 };
    int d2[2] = { 0, 4 };
    MPI_Request req;
#ifndef METAMPI
    /* MPICH 4.0 reports success (and truncated data) */
    nbr_check_all(ring);
    return;
#endif
    EXPECT(MPI_Neighbor_allgather(sb, 2, MPI_INT, rb, 1, MPI_INT, ring), MPI_ERR_TRUNCATE);
    EXPECT(MPI_Neighbor_alltoallv(sb, c4, d2, MPI_INT, rb, c2, d2, MPI_INT, ring),
           MPI_ERR_TRUNCATE);
    CHECK_RC(MPI_Ineighbor_alltoall(sb, 3, MPI_INT, rb, 2, MPI_INT, ring, &req), MPI_SUCCESS);
    EXPECT(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
    CHECK(req == MPI_REQUEST_NULL);
    nbr_check_all(ring);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    nbr_types();

    /* no topology */
    all_fail(MPI_COMM_WORLD, MPI_ERR_TOPOLOGY);
    MPI_Comm dup;
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    all_fail(dup, MPI_ERR_TOPOLOGY);
    MPI_Comm_free(&dup);
    all_fail(MPI_COMM_NULL, MPI_ERR_COMM);
#ifdef METAMPI
    if (size >= 2) { /* an inter-communicator (MPICH 4.0 answers MPI_ERR_TOPOLOGY) */
        MPI_Comm half, inter;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 5, &inter);
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        all_fail(inter, MPI_ERR_COMM);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
#endif

    MPI_Comm ring;
    int yes = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &yes, 0, &ring);
    MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
    argument_errors(ring);
    truncation(ring);

    /* MPI_DATATYPE_NULL for empty w blocks is fine; the ring still works */
    int sb[2] = { rank, rank }, rb[2] = { -1, -1 }, c2[2] = { 0, 1 }, r2[2] = { 1, 0 };
    MPI_Aint wd[2] = { 0, sizeof(int) };
    MPI_Datatype st[2] = { MPI_DATATYPE_NULL, MPI_INT }, rt[2] = { MPI_INT, MPI_DATATYPE_NULL };
    /* block 1 goes to the positive neighbour, whose block 0 receives it */
    CHECK_RC(MPI_Neighbor_alltoallw(sb, c2, wd, st, rb, r2, wd, rt, ring), MPI_SUCCESS);
#ifndef METAMPI
    if (size > 2) /* MPICH 4.0 pairs the blocks of a ring of 1 or 2 the pre-errata way */
#endif
        CHECK(rb[0] == (rank + size - 1) % size && rb[1] == -1);
    nbr_check_all(ring);
    MPI_Comm_free(&ring);

    nbr_types_free();
    MPI_Finalize();
    return 0;
}
