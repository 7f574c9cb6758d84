/*
 * A grid of collective calls for the selection regression test (check_select.py): every
 * collective, blocking and nonblocking, at sizes on both sides of every threshold of the
 * selection table (docs/coll.md), with contiguous and gapped layouts, a commutative and a
 * non-commutative op, both ends as root, MPI_IN_PLACE, on the world, on the world with its
 * ranks interleaved (evens, then odds: hosts and sites no longer hold consecutive ranks) and on
 * an inter-communicator of the two halves. Results are not checked here (the collective tests
 * do that); what counts is the sequence of calls, the same at every rank and in every run, whose
 * choices METAMPI_COLL_SELECT_DEBUG prints.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXB = 4 << 20 };

static char *sbuf, *rbuf;
static MPI_Datatype gap_char, gap_int; /* one element every second slot */
static MPI_Op noncomm;
static int low_half; /* on the inter-communicator: in the first half of the world */

/* The root argument on an inter-communicator: the first half's member 0 is the root (r = 0)
 * or the second half's (r = 1). */
static int inter_root(int rank, int r)
{
    if (low_half == !r)
        return rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
    return 0;
}

static void minus(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = a[i] - b[i];
}

static void wait_if(int nb, MPI_Request *r)
{
    if (nb)
        MPI_Wait(r, MPI_STATUS_IGNORE);
}

/* ---- data movement ------------------------------------------------------------------- */

static void bcasts(MPI_Comm c, int inter, int rank, int size, int nb)
{
    static const int bytes[] = { 0, 8, 2049, 16384, 524288, 1048580 };
    for (size_t i = 0; i < sizeof bytes / sizeof *bytes; i++)
        for (int gap = 0; gap < 2; gap++)
            for (int r = 0; r < 2; r++) {
                int root = r ? size - 1 : 0;
                if (inter)
                    root = inter_root(rank, r);
                MPI_Request q;
                MPI_Datatype t = gap ? gap_char : MPI_CHAR;
                if (nb)
                    MPI_Ibcast(rbuf, bytes[i], t, root, c, &q);
                else
                    MPI_Bcast(rbuf, bytes[i], t, root, c);
                wait_if(nb, &q);
            }
}

static void rooted(MPI_Comm c, int inter, int rank, int size, int rsize, int nb)
{
    static const int block[] = { 0, 8, 16384 };
    int *counts = malloc((size_t)rsize * sizeof *counts);
    int *displs = malloc((size_t)rsize * sizeof *displs);
    for (size_t i = 0; i < sizeof block / sizeof *block; i++)
        for (int gap = 0; gap < 2; gap++)
            for (int r = 0; r < 2; r++) {
                int root = r ? size - 1 : 0, in_place = !inter && gap == 0 && rank == root;
                if (inter)
                    root = inter_root(rank, r);
                MPI_Datatype t = gap ? gap_char : MPI_CHAR;
                MPI_Request q;
                const void *s = in_place ? MPI_IN_PLACE : sbuf;
                if (nb)
                    MPI_Igather(s, block[i], t, rbuf, block[i], t, root, c, &q);
                else
                    MPI_Gather(s, block[i], t, rbuf, block[i], t, root, c);
                wait_if(nb, &q);
                void *d = in_place ? MPI_IN_PLACE : rbuf;
                if (nb)
                    MPI_Iscatter(sbuf, block[i], t, d, block[i], t, root, c, &q);
                else
                    MPI_Scatter(sbuf, block[i], t, d, block[i], t, root, c);
                wait_if(nb, &q);
                for (int k = 0; k < rsize; k++) {
                    counts[k] = block[i] + k % 3;
                    displs[k] = k * (block[i] + 2);
                }
                int mine = block[i] + rank % 3;
                if (nb)
                    MPI_Igatherv(sbuf, mine, t, rbuf, counts, displs, t, root, c, &q);
                else
                    MPI_Gatherv(sbuf, mine, t, rbuf, counts, displs, t, root, c);
                wait_if(nb, &q);
                if (nb)
                    MPI_Iscatterv(sbuf, counts, displs, t, rbuf, mine, t, root, c, &q);
                else
                    MPI_Scatterv(sbuf, counts, displs, t, rbuf, mine, t, root, c);
                wait_if(nb, &q);
            }
    free(counts);
    free(displs);
}

static void allgathers(MPI_Comm c, int inter, int rank, int rsize, int nb)
{
    static const int block[] = { 0, 8, 131072, 262144 };
    int *counts = malloc((size_t)rsize * sizeof *counts);
    int *displs = malloc((size_t)rsize * sizeof *displs);
    for (size_t i = 0; i < sizeof block / sizeof *block; i++)
        for (int gap = 0; gap < 2; gap++)
            for (int in_place = 0; in_place < 2 - inter; in_place++) {
                MPI_Datatype t = gap ? gap_char : MPI_CHAR;
                MPI_Request q;
                const void *s = in_place ? MPI_IN_PLACE : sbuf;
                if (nb)
                    MPI_Iallgather(s, block[i], t, rbuf, block[i], t, c, &q);
                else
                    MPI_Allgather(s, block[i], t, rbuf, block[i], t, c);
                wait_if(nb, &q);
                for (int k = 0; k < rsize; k++) {
                    counts[k] = block[i] / 4 + k % 2;
                    displs[k] = k * (block[i] / 4 + 1);
                }
                if (nb)
                    MPI_Iallgatherv(s, block[i] / 4 + rank % 2, t, rbuf, counts, displs, t, c, &q);
                else
                    MPI_Allgatherv(s, block[i] / 4 + rank % 2, t, rbuf, counts, displs, t, c);
                wait_if(nb, &q);
            }
    free(counts);
    free(displs);
}

static void alltoalls(MPI_Comm c, int inter, int rsize, int nb)
{
    static const int block[] = { 0, 8, 256, 257, 65536 };
    int *counts = malloc((size_t)rsize * sizeof *counts);
    int *displs = malloc((size_t)rsize * sizeof *displs);
    int *bdispls = malloc((size_t)rsize * sizeof *bdispls);
    MPI_Datatype *types = malloc((size_t)rsize * sizeof *types);
    for (size_t i = 0; i < sizeof block / sizeof *block; i++)
        for (int gap = 0; gap < 2; gap++)
            for (int in_place = 0; in_place < 2 - inter; in_place++) {
                MPI_Datatype t = gap ? gap_char : MPI_CHAR;
                MPI_Request q;
                const void *s = in_place ? MPI_IN_PLACE : sbuf;
                if (nb)
                    MPI_Ialltoall(s, block[i], t, rbuf, block[i], t, c, &q);
                else
                    MPI_Alltoall(s, block[i], t, rbuf, block[i], t, c);
                wait_if(nb, &q);
                for (int k = 0; k < rsize; k++) {
                    counts[k] = block[i];
                    displs[k] = k * block[i];
                    bdispls[k] = k * block[i] * (gap ? 2 : 1);
                    types[k] = t;
                }
                if (nb)
                    MPI_Ialltoallv(s, counts, displs, t, rbuf, counts, displs, t, c, &q);
                else
                    MPI_Alltoallv(s, counts, displs, t, rbuf, counts, displs, t, c);
                wait_if(nb, &q);
                if (nb)
                    MPI_Ialltoallw(s, counts, bdispls, types, rbuf, counts, bdispls, types, c, &q);
                else
                    MPI_Alltoallw(s, counts, bdispls, types, rbuf, counts, bdispls, types, c);
                wait_if(nb, &q);
            }
    free(counts);
    free(displs);
    free(bdispls);
    free(types);
}

/* ---- synchronisation and reductions ------------------------------------------------------ */

static void reductions(MPI_Comm c, int inter, int rank, int size, int rsize, int nb)
{
    static const int count[] = { 0, 1, 4, 1024, 4096, 16384, 65536, 262145 };
    MPI_Request q;
    if (nb)
        MPI_Ibarrier(c, &q);
    else
        MPI_Barrier(c);
    wait_if(nb, &q);
    for (size_t i = 0; i < sizeof count / sizeof *count; i++)
        for (int v = 0; v < 3; v++) { /* int sum, gapped int sum, non-commutative */
            MPI_Datatype t = v == 1 ? gap_int : MPI_INT;
            MPI_Op op = v == 2 ? noncomm : MPI_SUM;
            for (int r = 0; r < 2; r++) {
                int root = r ? size - 1 : 0, in_place = !inter && r && rank == root;
                if (inter)
                    root = inter_root(rank, r);
                const void *s = in_place ? MPI_IN_PLACE : sbuf;
                if (nb)
                    MPI_Ireduce(s, rbuf, count[i], t, op, root, c, &q);
                else
                    MPI_Reduce(s, rbuf, count[i], t, op, root, c);
                wait_if(nb, &q);
            }
            for (int in_place = 0; in_place < 2 - inter; in_place++) {
                const void *s = in_place ? MPI_IN_PLACE : sbuf;
                if (nb)
                    MPI_Iallreduce(s, rbuf, count[i], t, op, c, &q);
                else
                    MPI_Allreduce(s, rbuf, count[i], t, op, c);
                wait_if(nb, &q);
                int each = count[i] / 8 + (count[i] > 0);
                if (inter && size != rsize) /* both groups' vectors must be alike */
                    continue;
                if (nb)
                    MPI_Ireduce_scatter_block(s, rbuf, each, t, op, c, &q);
                else
                    MPI_Reduce_scatter_block(s, rbuf, each, t, op, c);
                wait_if(nb, &q);
                int counts[64];
                for (int k = 0; k < size && k < 64; k++)
                    counts[k] = each + (inter ? 0 : k % 2);
                if (nb)
                    MPI_Ireduce_scatter(s, rbuf, counts, t, op, c, &q);
                else
                    MPI_Reduce_scatter(s, rbuf, counts, t, op, c);
                wait_if(nb, &q);
                if (inter || count[i] > 4096)
                    continue;
                if (nb)
                    MPI_Iscan(s, rbuf, count[i], t, op, c, &q);
                else
                    MPI_Scan(s, rbuf, count[i], t, op, c);
                wait_if(nb, &q);
                if (nb)
                    MPI_Iexscan(s, rbuf, count[i], t, op, c, &q);
                else
                    MPI_Exscan(s, rbuf, count[i], t, op, c);
                wait_if(nb, &q);
            }
        }
}

static void neighbours(MPI_Comm world, int size, int nb)
{
    int dims[1] = { size }, periods[1] = { 1 };
    MPI_Comm cart;
    MPI_Cart_create(world, 1, dims, periods, 0, &cart);
    int counts[2] = { 64, 64 }, displs[2] = { 0, 64 };
    MPI_Aint bdispls[2] = { 0, 64 };
    MPI_Datatype types[2] = { MPI_CHAR, MPI_CHAR };
    MPI_Request q;
    if (nb) {
        MPI_Ineighbor_allgather(sbuf, 64, MPI_CHAR, rbuf, 64, MPI_CHAR, cart, &q);
        wait_if(nb, &q);
        MPI_Ineighbor_allgatherv(sbuf, 64, MPI_CHAR, rbuf, counts, displs, MPI_CHAR, cart, &q);
        wait_if(nb, &q);
        MPI_Ineighbor_alltoall(sbuf, 64, MPI_CHAR, rbuf, 64, MPI_CHAR, cart, &q);
        wait_if(nb, &q);
        MPI_Ineighbor_alltoallv(sbuf, counts, displs, MPI_CHAR, rbuf, counts, displs, MPI_CHAR,
                                cart, &q);
        wait_if(nb, &q);
        MPI_Ineighbor_alltoallw(sbuf, counts, bdispls, types, rbuf, counts, bdispls, types,
                                cart, &q);
        wait_if(nb, &q);
    } else {
        MPI_Neighbor_allgather(sbuf, 64, MPI_CHAR, rbuf, 64, MPI_CHAR, cart);
        MPI_Neighbor_allgatherv(sbuf, 64, MPI_CHAR, rbuf, counts, displs, MPI_CHAR, cart);
        MPI_Neighbor_alltoall(sbuf, 64, MPI_CHAR, rbuf, 64, MPI_CHAR, cart);
        MPI_Neighbor_alltoallv(sbuf, counts, displs, MPI_CHAR, rbuf, counts, displs, MPI_CHAR,
                               cart);
        MPI_Neighbor_alltoallw(sbuf, counts, bdispls, types, rbuf, counts, bdispls, types, cart);
    }
    MPI_Comm_free(&cart);
}

static void everything(MPI_Comm c, int inter)
{
    int rank, size, rsize;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    rsize = size;
    if (inter)
        MPI_Comm_remote_size(c, &rsize);
    for (int nb = 0; nb < 2; nb++) {
        bcasts(c, inter, rank, size, nb);
        rooted(c, inter, rank, size, rsize, nb);
        allgathers(c, inter, rank, rsize, nb);
        alltoalls(c, inter, rsize, nb);
        reductions(c, inter, rank, size, rsize, nb);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sbuf = calloc(MAXB, 1);
    rbuf = calloc(MAXB, 1);
    MPI_Type_create_resized(MPI_CHAR, 0, 2, &gap_char);
    MPI_Type_commit(&gap_char);
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &gap_int);
    MPI_Type_commit(&gap_int);
    MPI_Op_create(minus, 0, &noncomm);

    everything(MPI_COMM_WORLD, 0);
    for (int nb = 0; nb < 2; nb++)
        neighbours(MPI_COMM_WORLD, size, nb);
    if (size >= 3) { /* evens, then odds */
        MPI_Comm mixed;
        MPI_Comm_split(MPI_COMM_WORLD, 0, (rank % 2) * size + rank, &mixed);
        everything(mixed, 0);
        MPI_Comm_free(&mixed);
    }
    if (size >= 2) {
        MPI_Comm half, inter;
        low_half = rank < size / 2;
        MPI_Comm_split(MPI_COMM_WORLD, low_half, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank < size / 2 ? size / 2 : 0, 7, &inter);
        everything(inter, 1);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    MPI_Op_free(&noncomm);
    MPI_Type_free(&gap_char);
    MPI_Type_free(&gap_int);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
