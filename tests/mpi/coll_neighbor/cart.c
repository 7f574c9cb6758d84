/* Neighbourhood collectives on Cartesian communicators (MPI-3.1 §7.6): 1-D and 2-D grids over
 * all ranks, periodic, not and mixed; the degenerate cases where one process is both
 * neighbours of a dimension — periodic extent 1 (itself) and 2 (the other process) — alone
 * and mixed with ordinary dimensions; a 3-D grid with two extents of 1; 18 dimensions (36
 * neighbours, more than the builders keep on the stack); a zero-dimensional grid (no
 * neighbours); grids smaller than MPI_COMM_WORLD; a duplicate. Every collective is checked
 * with nbr.h (block s of a sender lands in block s ^ 1 of the receiver). */
#include "nbr.h"

static int rank, size;

static void grid(MPI_Comm base, int ndims, const int *dims, const int *periods)
{
    MPI_Comm cart;
    CHECK_RC(MPI_Cart_create(base, ndims, dims, periods, 0, &cart), MPI_SUCCESS);
    if (cart == MPI_COMM_NULL)
        return;
    nbr_check_all(cart);
    MPI_Comm_free(&cart);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    nbr_types();

    /* 1-D rings and lines over every rank (extents 1 and 2 at np 1 and 2) */
    for (int p = 0; p < 2; p++)
        grid(MPI_COMM_WORLD, 1, &size, &p);

    /* 2-D from MPI_Dims_create, every combination of periods */
    int d2[2] = { 0, 0 };
    MPI_Dims_create(size, 2, d2);
    for (int p = 0; p < 4; p++) {
        int per[2] = { p & 1, p >> 1 };
        grid(MPI_COMM_WORLD, 2, d2, per);
    }

    /* a process alone in a periodic dimension: both neighbours are itself */
    int one = 1, yes = 1;
    grid(MPI_COMM_SELF, 1, &one, &yes);

    /* extent 2, periodic: the two neighbours are the same other process */
    if (size >= 2) {
        int two = 2;
        grid(MPI_COMM_WORLD, 1, &two, &yes);
        int dims[2] = { 2, size / 2 }, per[2] = { 1, 0 };
        grid(MPI_COMM_WORLD, 2, dims, per);
        per[1] = 1;
        grid(MPI_COMM_WORLD, 2, dims, per);
        int dims3[3] = { size / 2, 2, 1 }, per3[3] = { 1, 1, 1 };
        grid(MPI_COMM_WORLD, 3, dims3, per3);
    }

    /* extents 1 around an ordinary dimension, periodic and not */
    for (int p = 0; p < 2; p++) {
        int dims[3] = { 1, size, 1 }, per[3] = { 1, p, 1 };
        grid(MPI_COMM_WORLD, 3, dims, per);
        per[0] = per[2] = 0;
        grid(MPI_COMM_WORLD, 3, dims, per);
    }

    /* more neighbours than the builders keep on the stack: 18 dimensions, all but one of
     * extent 1 (periodic or not) */
    {
        int dims[18], per[18];
        for (int i = 0; i < 18; i++) {
            dims[i] = i == 9 ? size : 1;
            per[i] = i % 3 != 0;
        }
        grid(MPI_COMM_WORLD, 18, dims, per);
    }

    /* no dimension at all: no neighbours */
    grid(MPI_COMM_SELF, 0, NULL, NULL);

    /* a grid of fewer processes than MPI_COMM_WORLD (the others get MPI_COMM_NULL) */
    if (size > 2) {
        int n = size - 1, per = 1;
        grid(MPI_COMM_WORLD, 1, &n, &per);
    }

    /* duplicates keep the topology */
    MPI_Comm cart, dup;
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 2, d2, (int[]){ 1, 0 }, 0, &cart), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_dup(cart, &dup), MPI_SUCCESS);
    nbr_check_all(dup);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&cart);

    nbr_types_free();
    MPI_Finalize();
    return 0;
}
