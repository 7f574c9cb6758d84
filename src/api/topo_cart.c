/* Cartesian topologies (MPI-3.1 §7.5.1, §7.5.2, §7.5.5, §7.5.6, §7.5.7). */
#include "api/api.h"
#include "api/topo_checks.h"

#include <stdlib.h>

/* Attaches a new Cartesian topology to nc (when the process is in it) and returns its
 * handle through *out; nc is released when there is no memory for the topology. */
static int attach_cart(MPI_Comm parent, comm_t *nc, int ndims, const int dims[],
                       const int periods[], MPI_Comm *out, const char *func)
{
    *out = MPI_COMM_NULL;
    if (!nc)
        return MPI_SUCCESS;
    nc->topo = topo_cart_new(ndims, dims, periods, nc->rank);
    if (!nc->topo) {
        comm_release(nc);
        return err_raise(parent, MPI_ERR_NO_MEM, func, "no memory for the topology");
    }
    *out = nc->handle;
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[],
                                const int periods[], int reorder, MPI_Comm *comm_cart)
{
    API_ENTER();
    static const char F[] = "MPI_Cart_create";
    state_require_initialized(F);
    API_GET_COMM(c, comm_old, F);
    int nnodes, rc = check_intracomm(c, F);
    if (rc == MPI_SUCCESS)
        rc = check_cart(c, ndims, dims, periods, F, &nnodes);
    if (rc != MPI_SUCCESS)
        return rc;
    API_CHECK_PTR(comm_cart, comm_old, F, "comm_cart");
    (void)reorder; /* ranks are kept, as the standard allows */
    comm_t *nc;
    rc = topo_comm_create(c, nnodes, &nc);
    if (rc != MPI_SUCCESS)
        return err_raise(comm_old, rc, F, "creating the communicator failed");
    return attach_cart(comm_old, nc, ndims, dims, periods, comm_cart, F);
}
API_WEAK_ALIAS(Cart_create)

API_EXPORT int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    API_ENTER();
    static const char F[] = "MPI_Cart_sub";
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    const topo_t *t;
    int rc = check_topo(c, MPI_CART, F, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    if (t->ndims > 0)
        API_CHECK_PTR(remain_dims, comm, F, "remain_dims");
    API_CHECK_PTR(newcomm, comm, F, "newcomm");
    int *dims = malloc(t->ndims > 0 ? (size_t)t->ndims * 2 * sizeof(int) : 1);
    if (!dims)
        return err_raise(comm, MPI_ERR_NO_MEM, F, "no memory for the sub-grid");
    int *periods = dims + t->ndims;
    /* Processes that agree on the dropped coordinates share a sub-grid (the color); within
     * it the row-major index of the kept coordinates is the rank (the key). */
    int color = 0, key = 0, k = 0;
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            key = key * t->dims[i] + t->coords[i];
            dims[k] = t->dims[i];
            periods[k++] = t->periods[i];
        } else {
            color = color * t->dims[i] + t->coords[i];
        }
    }
    comm_t *nc;
    rc = comm_split(c, color, key, &nc);
    if (rc != MPI_SUCCESS)
        rc = err_raise(comm, rc, F, "creating the communicator failed");
    else
        rc = attach_cart(comm, nc, k, dims, periods, newcomm, F);
    free(dims);
    return rc;
}
API_WEAK_ALIAS(Cart_sub)

API_EXPORT int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                             int *newrank)
{
    API_ENTER();
    static const char F[] = "MPI_Cart_map";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    int nnodes, rc = check_intracomm(c, F);
    if (rc == MPI_SUCCESS)
        rc = check_cart(c, ndims, dims, periods, F, &nnodes);
    if (rc != MPI_SUCCESS)
        return rc;
    API_CHECK_PTR(newrank, comm, F, "newrank");
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Cart_map)

API_EXPORT int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    API_ENTER();
    static const char F[] = "MPI_Cartdim_get";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    const topo_t *t;
    int rc = check_topo(c, MPI_CART, F, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    API_CHECK_PTR(ndims, comm, F, "ndims");
    *ndims = t->ndims;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Cartdim_get)

API_EXPORT int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[],
                             int coords[])
{
    API_ENTER();
    static const char F[] = "MPI_Cart_get";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    const topo_t *t;
    int rc = check_topo(c, MPI_CART, F, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    if (maxdims < t->ndims)
        return err_raise(comm, MPI_ERR_ARG, F, "maxdims %d is less than the %d dimensions",
                         maxdims, t->ndims);
    if (t->ndims > 0) {
        API_CHECK_PTR(dims, comm, F, "dims");
        API_CHECK_PTR(periods, comm, F, "periods");
        API_CHECK_PTR(coords, comm, F, "coords");
    }
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = t->coords[i];
    }
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Cart_get)

API_EXPORT int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    API_ENTER();
    static const char F[] = "MPI_Cart_rank";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    const topo_t *t;
    int rc = check_topo(c, MPI_CART, F, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    if (t->ndims > 0)
        API_CHECK_PTR(coords, comm, F, "coords");
    API_CHECK_PTR(rank, comm, F, "rank");
    int r = topo_cart_rank(t, coords);
    if (r < 0) {
        int i = 0;
        while (coords[i] >= 0 && coords[i] < t->dims[i])
            i++;
        return err_raise(comm, MPI_ERR_RANK, F,
                         "coords[%d] is %d, outside the non-periodic dimension 0..%d", i,
                         coords[i], t->dims[i] - 1);
    }
    *rank = r;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Cart_rank)

API_EXPORT int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    API_ENTER();
    static const char F[] = "MPI_Cart_coords";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    const topo_t *t;
    int rc = check_topo(c, MPI_CART, F, &t);
    if (rc == MPI_SUCCESS)
        rc = check_rank(c, rank, "rank", F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (maxdims < t->ndims)
        return err_raise(comm, MPI_ERR_ARG, F, "maxdims %d is less than the %d dimensions",
                         maxdims, t->ndims);
    if (t->ndims > 0)
        API_CHECK_PTR(coords, comm, F, "coords");
    topo_cart_coords(t, rank, coords);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Cart_coords)

API_EXPORT int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
                               int *rank_dest)
{
    API_ENTER();
    static const char F[] = "MPI_Cart_shift";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    const topo_t *t;
    int rc = check_topo(c, MPI_CART, F, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    if (direction < 0 || direction >= t->ndims)
        return err_raise(comm, MPI_ERR_ARG, F,
                         "direction %d is not a dimension of the grid (0..%d)", direction,
                         t->ndims - 1);
    API_CHECK_PTR(rank_source, comm, F, "rank_source");
    API_CHECK_PTR(rank_dest, comm, F, "rank_dest");
    topo_cart_shift(t, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Cart_shift)

API_EXPORT int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    API_ENTER();
    static const char F[] = "MPI_Dims_create";
    state_require_initialized(F);
    if (nnodes <= 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                         "nnodes is %d (must be positive)", nnodes);
    if (ndims < 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_DIMS, F, "negative number of dimensions %d",
                         ndims);
    if (ndims > 0)
        API_CHECK_PTR(dims, MPI_COMM_WORLD, F, "dims");
    for (int i = 0; i < ndims; i++)
        if (dims[i] < 0)
            return err_raise(MPI_COMM_WORLD, MPI_ERR_DIMS, F,
                             "dims[%d] is %d (entries are 0 or a fixed positive extent)", i,
                             dims[i]);
    if (topo_dims_create(nnodes, ndims, dims) != 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_DIMS, F,
                         "no grid of %d points has the fixed extents given in dims", nnodes);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Dims_create)
