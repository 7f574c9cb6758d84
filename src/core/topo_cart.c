/* Cartesian topologies: construction and row-major coordinate math (see topo_ops.h). */
#include "core/topo_ops.h"

#include <stdlib.h>

long long topo_cart_size(int ndims, const int dims[], long long limit)
{
    long long n = 1;
    for (int i = 0; i < ndims; i++) {
        n *= dims[i];
        if (n > limit)
            return -1;
    }
    return n;
}

/* n ints (a zero-dimensional grid still gets blocks: NULL means no memory) */
static int *alloc_ints(int n)
{
    return malloc(n > 0 ? (size_t)n * sizeof(int) : 1);
}

topo_t *topo_cart_new(int ndims, const int dims[], const int periods[], int rank)
{
    topo_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->kind = MPI_CART;
    t->ndims = ndims;
    t->dims = alloc_ints(ndims);
    t->periods = alloc_ints(ndims);
    t->coords = alloc_ints(ndims);
    if (!t->dims || !t->periods || !t->coords) {
        topo_free(t);
        return NULL;
    }
    for (int i = 0; i < ndims; i++) {
        t->dims[i] = dims[i];
        t->periods[i] = periods[i] != 0;
    }
    topo_cart_coords(t, rank, t->coords);
    return t;
}

void topo_cart_coords(const topo_t *t, int rank, int coords[])
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

/* The coordinate c along a dimension of size d, wrapped when periodic; -1 past the border of
 * a non-periodic one. c is a long long: coordinate + displacement may overflow an int. */
static long long along(long long c, int d, int periodic)
{
    if (c >= 0 && c < d)
        return c;
    return periodic ? ((c % d) + d) % d : -1;
}

int topo_cart_rank(const topo_t *t, const int coords[])
{
    int rank = 0;
    for (int i = 0; i < t->ndims; i++) {
        long long c = along(coords[i], t->dims[i], t->periods[i]);
        if (c < 0)
            return -1;
        rank = rank * t->dims[i] + (int)c;
    }
    return rank;
}

void topo_cart_shift(const topo_t *t, int direction, int disp, int *source, int *dest)
{
    int stride = 1;
    for (int i = direction + 1; i < t->ndims; i++)
        stride *= t->dims[i];
    int c = t->coords[direction], d = t->dims[direction], periodic = t->periods[direction];
    /* this process's rank with its coordinate along direction set to 0 */
    int base = topo_cart_rank(t, t->coords) - c * stride;
    long long to = along((long long)c + disp, d, periodic);
    long long from = along((long long)c - disp, d, periodic);
    *dest = to < 0 ? MPI_PROC_NULL : base + (int)to * stride;
    *source = from < 0 ? MPI_PROC_NULL : base + (int)from * stride;
}
