/*
 * The domain decomposition: the global grid of interior points split into blocks over a
 * 3-D Cartesian communicator (MPI_Dims_create + MPI_Cart_create, not periodic). Each rank
 * holds its block with one layer of ghost points around it; the ghost layer on the edge of
 * the domain stays 0 (the Dirichlet boundary), the others are copies of the neighbours'
 * outermost layers, sent as derived datatypes (subarrays of the local array: no packing
 * in the program).
 *
 * Block sizes differ by at most one point per dimension: dimension d of the grid, G points
 * over P ranks, gives the rank at coordinate c  G/P + (c < G%P)  points starting at
 * c*(G/P) + min(c, G%P).
 */
#ifndef DEMO_DECOMP_H
#define DEMO_DECOMP_H

#include <mpi.h>
#include <stddef.h>

enum { LO = 0, HI = 1 };

typedef struct decomp {
    MPI_Comm cart;
    int size, rank;
    int grid[3];              /* global interior points */
    int dims[3], coords[3];
    int n[3];                 /* local interior points */
    int off[3];               /* global index of the first local interior point */
    int nbr[3][2];            /* cart rank of the neighbour below/above, or MPI_PROC_NULL */
    /* faces of the local array (ghosts included): the outermost interior layer sent to the
     * neighbour on that side, the ghost layer received from it */
    MPI_Datatype send[3][2], recv[3][2];
} decomp_t;

/* Index of local point (i, j, k), 0..n+1 each (0 and n+1 are ghosts); k is contiguous. */
static inline size_t decomp_at(const decomp_t *d, int i, int j, int k)
{
    return ((size_t)i * (size_t)(d->n[1] + 2) + (size_t)j) * (size_t)(d->n[2] + 2) + (size_t)k;
}

static inline size_t decomp_points(const decomp_t *d)
{
    return (size_t)(d->n[0] + 2) * (size_t)(d->n[1] + 2) * (size_t)(d->n[2] + 2);
}

/* Collective over comm. 0, or -1 with the reason in err (the same at every rank) when the
 * grid has fewer points than ranks in some dimension. */
int decomp_create(MPI_Comm comm, const int grid[3], decomp_t *d, char *err, size_t errlen);
void decomp_free(decomp_t *d);

#endif
