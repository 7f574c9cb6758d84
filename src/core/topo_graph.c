/* Graph and distributed-graph topologies: construction and neighbour lists (see topo_ops.h). */
#include "core/topo_ops.h"

#include <stdlib.h>
#include <string.h>

/* A malloc'd copy of n ints (a block even for n == 0: NULL means no memory). */
static int *copy_ints(const int *a, int n)
{
    int *c = malloc(n > 0 ? (size_t)n * sizeof *c : 1);
    if (c && n > 0)
        memcpy(c, a, (size_t)n * sizeof *c);
    return c;
}

topo_t *topo_graph_new(int nnodes, const int index[], const int edges[])
{
    topo_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->kind = MPI_GRAPH;
    t->nnodes = nnodes;
    t->nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    t->index = copy_ints(index, nnodes);
    t->edges = copy_ints(edges, t->nedges);
    if (!t->index || !t->edges) {
        topo_free(t);
        return NULL;
    }
    return t;
}

void topo_graph_neighbors(const topo_t *t, int rank, const int **first, int *count)
{
    int start = rank == 0 ? 0 : t->index[rank - 1];
    *first = t->edges + start;
    *count = t->index[rank] - start;
}

topo_t *topo_dist_graph_new(int indegree, const int sources[], const int *sourceweights,
                            int outdegree, const int destinations[], const int *destweights,
                            int weighted)
{
    topo_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->kind = MPI_DIST_GRAPH;
    t->indegree = indegree;
    t->outdegree = outdegree;
    t->weighted = weighted;
    t->sources = copy_ints(sources, indegree);
    t->destinations = copy_ints(destinations, outdegree);
    int ok = t->sources && t->destinations;
    if (weighted) {
        t->sourceweights = copy_ints(sourceweights, indegree);
        t->destweights = copy_ints(destweights, outdegree);
        ok = ok && t->sourceweights && t->destweights;
    }
    if (!ok) {
        topo_free(t);
        return NULL;
    }
    return t;
}
