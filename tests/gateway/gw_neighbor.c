/*
 * Neighbourhood exchanges across two sites, for counting what the gateways carry: on a
 * periodic 2 x (size / 2) Cartesian grid (the first half of the ranks at one site, the second
 * at the other), CALLS calls of MPI_Neighbor_alltoall with COUNT ints per block, every result
 * checked. Each call sends every member of the other site blocks from this site.
 * Prints "neighbor ok CALLS" at rank 0.
 *   gw_neighbor [CALLS [COUNT]]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int calls = argc > 1 ? atoi(argv[1]) : 10, count = argc > 2 ? atoi(argv[2]) : 4;
    int size, rank, dims[2] = { 2, 0 }, periods[2] = { 1, 1 };
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[1] = size / 2;
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    int src[4];
    for (int d = 0; d < 2; d++)
        MPI_Cart_shift(cart, d, 1, &src[2 * d], &src[2 * d + 1]);
    int *sb = malloc(4 * (size_t)count * sizeof *sb), *rb = malloc(4 * (size_t)count * sizeof *rb);
    for (int c = 0; c < calls; c++) {
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < count; i++)
                sb[k * count + i] = c * 1000000 + rank * 1000 + k * 100 + i;
        MPI_Neighbor_alltoall(sb, count, MPI_INT, rb, count, MPI_INT, cart);
        /* slot 2d gets what the negative neighbour sent along +d (its block 2d + 1) */
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < count; i++) {
                int want = c * 1000000 + src[k] * 1000 + (k ^ 1) * 100 + i;
                if (rb[k * count + i] != want) {
                    fprintf(stderr, "rank %d call %d slot %d: %d, not %d\n", rank, c, k,
                            rb[k * count + i], want);
                    MPI_Abort(MPI_COMM_WORLD, 3);
                }
            }
    }
    if (rank == 0)
        printf("neighbor ok %d\n", calls);
    free(sb);
    free(rb);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
