/* Graph topologies (MPI-3.1 §7.5.3, §7.5.5, §7.5.7). Every process holds the whole graph. */
#include "api/api.h"
#include "api/topo_checks.h"

API_EXPORT int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[],
                                 const int edges[], int reorder, MPI_Comm *comm_graph)
{
    API_ENTER();
    static const char F[] = "MPI_Graph_create";
    state_require_initialized(F);
    API_GET_COMM(c, comm_old, F);
    int rc = check_intracomm(c, F);
    if (rc == MPI_SUCCESS)
        rc = check_graph(c, nnodes, index, edges, F);
    if (rc != MPI_SUCCESS)
        return rc;
    API_CHECK_PTR(comm_graph, comm_old, F, "comm_graph");
    (void)reorder; /* ranks are kept, as the standard allows */
    comm_t *nc;
    rc = topo_comm_create(c, nnodes, &nc);
    if (rc != MPI_SUCCESS)
        return err_raise(comm_old, rc, F, "creating the communicator failed");
    *comm_graph = MPI_COMM_NULL;
    if (!nc)
        return MPI_SUCCESS;
    nc->topo = topo_graph_new(nnodes, index, edges);
    if (!nc->topo) {
        comm_release(nc);
        return err_raise(comm_old, MPI_ERR_NO_MEM, F, "no memory for the graph");
    }
    *comm_graph = nc->handle;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Graph_create)

API_EXPORT int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                              int *newrank)
{
    API_ENTER();
    static const char F[] = "MPI_Graph_map";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    int rc = check_intracomm(c, F);
    if (rc == MPI_SUCCESS)
        rc = check_graph(c, nnodes, index, edges, F);
    if (rc != MPI_SUCCESS)
        return rc;
    API_CHECK_PTR(newrank, comm, F, "newrank");
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Graph_map)

API_EXPORT int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    API_ENTER();
    static const char F[] = "MPI_Graphdims_get";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    const topo_t *t;
    int rc = check_topo(c, MPI_GRAPH, F, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    API_CHECK_PTR(nnodes, comm, F, "nnodes");
    API_CHECK_PTR(nedges, comm, F, "nedges");
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Graphdims_get)

API_EXPORT int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[],
                              int edges[])
{
    API_ENTER();
    static const char F[] = "MPI_Graph_get";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    const topo_t *t;
    int rc = check_topo(c, MPI_GRAPH, F, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    if (maxindex < t->nnodes)
        return err_raise(comm, MPI_ERR_ARG, F, "maxindex %d is less than the %d nodes",
                         maxindex, t->nnodes);
    if (maxedges < t->nedges)
        return err_raise(comm, MPI_ERR_ARG, F, "maxedges %d is less than the %d edges",
                         maxedges, t->nedges);
    if (t->nnodes > 0)
        API_CHECK_PTR(index, comm, F, "index");
    if (t->nedges > 0)
        API_CHECK_PTR(edges, comm, F, "edges");
    for (int i = 0; i < t->nnodes; i++)
        index[i] = t->index[i];
    for (int i = 0; i < t->nedges; i++)
        edges[i] = t->edges[i];
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Graph_get)

API_EXPORT int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    API_ENTER();
    static const char F[] = "MPI_Graph_neighbors_count";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    const topo_t *t;
    int rc = check_topo(c, MPI_GRAPH, F, &t);
    if (rc == MPI_SUCCESS)
        rc = check_rank(c, rank, "rank", F);
    if (rc != MPI_SUCCESS)
        return rc;
    API_CHECK_PTR(nneighbors, comm, F, "nneighbors");
    const int *first;
    topo_graph_neighbors(t, rank, &first, nneighbors);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Graph_neighbors_count)

API_EXPORT int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    API_ENTER();
    static const char F[] = "MPI_Graph_neighbors";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    const topo_t *t;
    int rc = check_topo(c, MPI_GRAPH, F, &t);
    if (rc == MPI_SUCCESS)
        rc = check_rank(c, rank, "rank", F);
    if (rc != MPI_SUCCESS)
        return rc;
    const int *first;
    int count;
    topo_graph_neighbors(t, rank, &first, &count);
    if (maxneighbors < count)
        return err_raise(comm, MPI_ERR_ARG, F,
                         "maxneighbors %d is less than the %d neighbours of rank %d",
                         maxneighbors, count, rank);
    if (count > 0)
        API_CHECK_PTR(neighbors, comm, F, "neighbors");
    for (int i = 0; i < count; i++)
        neighbors[i] = first[i];
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Graph_neighbors)
