/* Distributed graph topologies (MPI-3.1 §7.5.4, §7.5.5). Each process keeps only its own
 * in- and out-neighbours (core/topo_dist_graph.c gathers them for MPI_Dist_graph_create). */
#include "api/api.h"
#include "api/topo_checks.h"

#include <limits.h>

/* ranks[0..n-1] are ranks of c (MPI_ERR_RANK) */
static int check_ranks(const comm_t *c, const int ranks[], long long n, const char *name,
                       const char *F)
{
    for (long long i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= c->size)
            return err_raise(c->handle, MPI_ERR_RANK, F,
                             "%s[%lld] is %d, not a rank of comm_old (size %d)", name, i,
                             ranks[i], c->size);
    return MPI_SUCCESS;
}

/* Real weights for n edges (not MPI_UNWEIGHTED): an array of non-negative integers; when
 * there are no edges anything goes (NULL, MPI_WEIGHTS_EMPTY, an array). */
static int check_weights(const comm_t *c, const int *w, long long n, const char *name,
                         const char *F)
{
    if (n == 0)
        return MPI_SUCCESS;
    if (!w || w == MPI_WEIGHTS_EMPTY)
        return err_raise(c->handle, MPI_ERR_ARG, F, "%s is %s but there are %lld edges", name,
                         w ? "MPI_WEIGHTS_EMPTY" : "NULL", n);
    for (long long i = 0; i < n; i++)
        if (w[i] < 0)
            return err_raise(c->handle, MPI_ERR_ARG, F,
                             "%s[%lld] is %d, negative (weights are non-negative)", name, i,
                             w[i]);
    return MPI_SUCCESS;
}

/* A degree and its list of ranks. */
static int check_adjacency(const comm_t *c, int degree, const int ranks[], const char *dname,
                           const char *name, const char *F)
{
    if (degree < 0)
        return err_raise(c->handle, MPI_ERR_ARG, F, "%s is negative (%d)", dname, degree);
    if (degree > 0 && !ranks)
        return err_raise(c->handle, MPI_ERR_ARG, F, "argument %s is NULL", name);
    return check_ranks(c, ranks, degree, name, F);
}

/* The new communicator (all of comm_old's processes, ranks kept) with t attached; t is
 * freed on failure. */
static int finish(MPI_Comm comm_old, comm_t *nc, topo_t *t, MPI_Comm *out, const char *F)
{
    if (!t) {
        comm_release(nc);
        return err_raise(comm_old, MPI_ERR_NO_MEM, F, "no memory for the graph");
    }
    nc->topo = t;
    *out = nc->handle;
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree,
                                               const int sources[], const int *sourceweights,
                                               int outdegree, const int destinations[],
                                               const int *destweights, MPI_Info info,
                                               int reorder, MPI_Comm *comm_dist_graph)
{
    API_ENTER();
    static const char F[] = "MPI_Dist_graph_create_adjacent";
    state_require_initialized(F);
    API_GET_COMM(c, comm_old, F);
    int rc = check_intracomm(c, F);
    if (rc == MPI_SUCCESS)
        rc = check_adjacency(c, indegree, sources, "indegree", "sources", F);
    if (rc == MPI_SUCCESS)
        rc = check_adjacency(c, outdegree, destinations, "outdegree", "destinations", F);
    if (rc != MPI_SUCCESS)
        return rc;
    /* MPI_UNWEIGHTED goes for both lists; on one alone it is accepted only when the other
     * list is empty (weights of an empty list mean nothing). */
    int unw_in = sourceweights == MPI_UNWEIGHTED, unw_out = destweights == MPI_UNWEIGHTED;
    if ((unw_in && !unw_out && outdegree > 0) || (unw_out && !unw_in && indegree > 0))
        return err_raise(comm_old, MPI_ERR_ARG, F,
                         "MPI_UNWEIGHTED is given for %s only (it goes for both or neither)",
                         unw_in ? "sourceweights" : "destweights");
    int weighted = !unw_in && !unw_out;
    if (weighted) {
        rc = check_weights(c, sourceweights, indegree, "sourceweights", F);
        if (rc == MPI_SUCCESS)
            rc = check_weights(c, destweights, outdegree, "destweights", F);
    }
    if (rc == MPI_SUCCESS)
        rc = check_info(c, info, F);
    if (rc != MPI_SUCCESS)
        return rc;
    API_CHECK_PTR(comm_dist_graph, comm_old, F, "comm_dist_graph");
    (void)reorder; /* ranks are kept, as the standard allows */
    comm_t *nc;
    rc = topo_comm_create(c, c->size, &nc);
    if (rc != MPI_SUCCESS)
        return err_raise(comm_old, rc, F, "creating the communicator failed");
    topo_t *t = topo_dist_graph_new(indegree, sources, sourceweights, outdegree, destinations,
                                    destweights, weighted);
    return finish(comm_old, nc, t, comm_dist_graph, F);
}
API_WEAK_ALIAS(Dist_graph_create_adjacent)

API_EXPORT int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                                      const int degrees[], const int destinations[],
                                      const int *weights, MPI_Info info, int reorder,
                                      MPI_Comm *comm_dist_graph)
{
    API_ENTER();
    static const char F[] = "MPI_Dist_graph_create";
    state_require_initialized(F);
    API_GET_COMM(c, comm_old, F);
    int rc = check_intracomm(c, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (n < 0)
        return err_raise(comm_old, MPI_ERR_ARG, F, "n is negative (%d)", n);
    if (n > 0) {
        API_CHECK_PTR(sources, comm_old, F, "sources");
        API_CHECK_PTR(degrees, comm_old, F, "degrees");
    }
    long long nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return err_raise(comm_old, MPI_ERR_ARG, F, "degrees[%d] is negative (%d)", i,
                             degrees[i]);
        nedges += degrees[i];
    }
    if (nedges > INT_MAX)
        return err_raise(comm_old, MPI_ERR_ARG, F,
                         "the degrees add up to %lld edges (at most INT_MAX)", nedges);
    rc = check_ranks(c, sources, n, "sources", F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (nedges > 0)
        API_CHECK_PTR(destinations, comm_old, F, "destinations");
    rc = check_ranks(c, destinations, nedges, "destinations", F);
    int weighted = weights != MPI_UNWEIGHTED;
    if (rc == MPI_SUCCESS && weighted)
        rc = check_weights(c, weights, nedges, "weights", F);
    if (rc == MPI_SUCCESS)
        rc = check_info(c, info, F);
    if (rc != MPI_SUCCESS)
        return rc;
    API_CHECK_PTR(comm_dist_graph, comm_old, F, "comm_dist_graph");
    (void)reorder; /* ranks are kept, as the standard allows */
    comm_t *nc;
    rc = topo_comm_create(c, c->size, &nc);
    if (rc != MPI_SUCCESS)
        return err_raise(comm_old, rc, F, "creating the communicator failed");
    topo_t *t;
    rc = topo_dist_graph_exchange(nc, n, sources, degrees, destinations, weights, weighted,
                                  &t);
    if (rc != MPI_SUCCESS) {
        comm_release(nc);
        return err_raise(comm_old, rc, F, "exchanging the edges failed");
    }
    return finish(comm_old, nc, t, comm_dist_graph, F);
}
API_WEAK_ALIAS(Dist_graph_create)

API_EXPORT int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
                                               int *weighted)
{
    API_ENTER();
    static const char F[] = "MPI_Dist_graph_neighbors_count";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    const topo_t *t;
    int rc = check_topo(c, MPI_DIST_GRAPH, F, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    API_CHECK_PTR(indegree, comm, F, "indegree");
    API_CHECK_PTR(outdegree, comm, F, "outdegree");
    API_CHECK_PTR(weighted, comm, F, "weighted");
    *indegree = t->indegree;
    *outdegree = t->outdegree;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Dist_graph_neighbors_count)

/* Copies a neighbour list (and its weights, when the graph has them and the caller wants
 * them: MPI_UNWEIGHTED as the output array declines them). */
static int copy_list(const comm_t *c, const topo_t *t, int max, int degree, const int *ranks,
                     const int *w, int out[], int *outw, const char *maxname,
                     const char *name, const char *wname, const char *F)
{
    if (max < degree)
        return err_raise(c->handle, MPI_ERR_ARG, F, "%s %d is less than the degree %d",
                         maxname, max, degree);
    if (degree == 0)
        return MPI_SUCCESS;
    if (!out)
        return err_raise(c->handle, MPI_ERR_ARG, F, "argument %s is NULL", name);
    int want_w = t->weighted && outw != MPI_UNWEIGHTED;
    if (want_w && (!outw || outw == MPI_WEIGHTS_EMPTY))
        return err_raise(c->handle, MPI_ERR_ARG, F,
                         "%s is %s but the graph is weighted (MPI_UNWEIGHTED declines the "
                         "weights)", wname, outw ? "MPI_WEIGHTS_EMPTY" : "NULL");
    for (int i = 0; i < degree; i++) {
        out[i] = ranks[i];
        if (want_w)
            outw[i] = w[i];
    }
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                                         int *sourceweights, int maxoutdegree,
                                         int destinations[], int *destweights)
{
    API_ENTER();
    static const char F[] = "MPI_Dist_graph_neighbors";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    const topo_t *t;
    int rc = check_topo(c, MPI_DIST_GRAPH, F, &t);
    if (rc == MPI_SUCCESS)
        rc = copy_list(c, t, maxindegree, t->indegree, t->sources, t->sourceweights, sources,
                       sourceweights, "maxindegree", "sources", "sourceweights", F);
    if (rc == MPI_SUCCESS)
        rc = copy_list(c, t, maxoutdegree, t->outdegree, t->destinations, t->destweights,
                       destinations, destweights, "maxoutdegree", "destinations",
                       "destweights", F);
    return rc;
}
API_WEAK_ALIAS(Dist_graph_neighbors)
