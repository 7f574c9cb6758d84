#include "api/topo_checks.h"

#include "core/errors.h"

/* The communicator for a message: its name, or a description when it has none. */
static const char *name_of(const comm_t *c)
{
    return c->name[0] ? c->name : "the communicator";
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case MPI_CART: return "a Cartesian";
    case MPI_GRAPH: return "a graph";
    case MPI_DIST_GRAPH: return "a distributed graph";
    }
    return "an unknown";
}

int check_intracomm(const comm_t *c, const char *func)
{
    if (comm_is_inter(c))
        return err_raise(c->handle, MPI_ERR_COMM, func,
                         "%s is an inter-communicator (topologies need an intra-communicator)",
                         name_of(c));
    return MPI_SUCCESS;
}

int check_topo(const comm_t *c, int kind, const char *func, const topo_t **t)
{
    *t = c->topo;
    if (!c->topo)
        return err_raise(c->handle, MPI_ERR_TOPOLOGY, func,
                         "%s has no topology (%s one is needed)", name_of(c),
                         kind_name(kind));
    if (c->topo->kind != kind)
        return err_raise(c->handle, MPI_ERR_TOPOLOGY, func, "%s has %s topology, not %s one",
                         name_of(c), kind_name(c->topo->kind), kind_name(kind));
    return MPI_SUCCESS;
}

int check_cart(const comm_t *c, int ndims, const int dims[], const int periods[],
               const char *func, int *nnodes)
{
    if (ndims < 0)
        return err_raise(c->handle, MPI_ERR_DIMS, func, "negative number of dimensions %d",
                         ndims);
    if (ndims > 0 && !dims)
        return err_raise(c->handle, MPI_ERR_ARG, func, "argument dims is NULL");
    if (ndims > 0 && !periods)
        return err_raise(c->handle, MPI_ERR_ARG, func, "argument periods is NULL");
    for (int i = 0; i < ndims; i++)
        if (dims[i] <= 0)
            return err_raise(c->handle, MPI_ERR_DIMS, func,
                             "dims[%d] is %d (extents must be positive)", i, dims[i]);
    long long n = topo_cart_size(ndims, dims, c->size);
    if (n < 0)
        return err_raise(c->handle, MPI_ERR_DIMS, func,
                         "the grid has more points than the %d processes of %s", c->size,
                         name_of(c));
    *nnodes = (int)n;
    return MPI_SUCCESS;
}

int check_graph(const comm_t *c, int nnodes, const int index[], const int edges[],
                const char *func)
{
    if (nnodes < 0 || nnodes > c->size)
        return err_raise(c->handle, MPI_ERR_ARG, func,
                         "nnodes is %d (must be 0..%d, the size of %s)", nnodes, c->size,
                         name_of(c));
    if (nnodes == 0)
        return MPI_SUCCESS;
    if (!index)
        return err_raise(c->handle, MPI_ERR_ARG, func, "argument index is NULL");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i == 0 ? 0 : index[i - 1]))
            return err_raise(c->handle, MPI_ERR_ARG, func,
                             "index[%d] is %d, less than the previous entry (index holds "
                             "running degree totals)", i, index[i]);
    if (index[nnodes - 1] > 0 && !edges)
        return err_raise(c->handle, MPI_ERR_ARG, func, "argument edges is NULL");
    for (int i = 0; i < index[nnodes - 1]; i++)
        if (edges[i] < 0 || edges[i] >= nnodes)
            return err_raise(c->handle, MPI_ERR_ARG, func,
                             "edges[%d] is %d, not a node of the graph (0..%d)", i, edges[i],
                             nnodes - 1);
    return MPI_SUCCESS;
}

int check_rank(const comm_t *c, int rank, const char *what, const char *func)
{
    if (rank < 0 || rank >= c->size)
        return err_raise(c->handle, MPI_ERR_RANK, func,
                         "%s %d is not a rank of %s (size %d)", what, rank,
                         name_of(c), c->size);
    return MPI_SUCCESS;
}

int check_info(const comm_t *c, MPI_Info info, const char *func)
{
    if (info != MPI_INFO_NULL && !info_lookup(info))
        return err_raise(c->handle, MPI_ERR_INFO, func, "invalid info handle 0x%x",
                         (unsigned)info);
    return MPI_SUCCESS;
}
