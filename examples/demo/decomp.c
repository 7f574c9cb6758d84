#include "decomp.h"

#include <stdio.h>

static void block(int g, int p, int c, int *n, int *off)
{
    int base = g / p, extra = g % p;
    *n = base + (c < extra);
    *off = c * base + (c < extra ? c : extra);
}

/* The layer at index `at` of dimension dim (the whole interior of the other two). */
static MPI_Datatype face(const decomp_t *d, int dim, int at)
{
    int sizes[3], subsizes[3], starts[3];
    for (int e = 0; e < 3; e++) {
        sizes[e] = d->n[e] + 2;
        subsizes[e] = e == dim ? 1 : d->n[e];
        starts[e] = e == dim ? at : 1;
    }
    MPI_Datatype t;
    MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

int decomp_create(MPI_Comm comm, const int grid[3], decomp_t *d, char *err, size_t errlen)
{
    int size, periods[3] = { 0, 0, 0 };
    MPI_Comm_size(comm, &size);
    *d = (decomp_t){ .cart = MPI_COMM_NULL, .dims = { 0, 0, 0 } };
    MPI_Dims_create(size, 3, d->dims);
    for (int e = 0; e < 3; e++) {
        d->grid[e] = grid[e];
        if (grid[e] < d->dims[e]) {
            snprintf(err, errlen,
                     "--grid %dx%dx%d is too small for %d ranks split %dx%dx%d (every rank "
                     "needs at least one point in each dimension)",
                     grid[0], grid[1], grid[2], size, d->dims[0], d->dims[1], d->dims[2]);
            return -1;
        }
    }
    MPI_Cart_create(comm, 3, d->dims, periods, 0, &d->cart);
    MPI_Comm_size(d->cart, &d->size);
    MPI_Comm_rank(d->cart, &d->rank);
    MPI_Cart_coords(d->cart, d->rank, 3, d->coords);
    for (int e = 0; e < 3; e++) {
        block(grid[e], d->dims[e], d->coords[e], &d->n[e], &d->off[e]);
        MPI_Cart_shift(d->cart, e, 1, &d->nbr[e][LO], &d->nbr[e][HI]);
    }
    for (int e = 0; e < 3; e++) {
        d->send[e][LO] = face(d, e, 1);
        d->send[e][HI] = face(d, e, d->n[e]);
        d->recv[e][LO] = face(d, e, 0);
        d->recv[e][HI] = face(d, e, d->n[e] + 1);
    }
    return 0;
}

void decomp_free(decomp_t *d)
{
    if (d->cart == MPI_COMM_NULL)
        return;
    for (int e = 0; e < 3; e++)
        for (int s = 0; s < 2; s++) {
            MPI_Type_free(&d->send[e][s]);
            MPI_Type_free(&d->recv[e][s]);
        }
    MPI_Comm_free(&d->cart);
}
