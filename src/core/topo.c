/* Life cycle of the topology a communicator carries (the topology API is in api/topo*.c). */
#include "core/topo.h"

#include <stdlib.h>
#include <string.h>

void topo_free(topo_t *t)
{
    if (!t)
        return;
    free(t->dims);
    free(t->periods);
    free(t->coords);
    free(t->index);
    free(t->edges);
    free(t->sources);
    free(t->sourceweights);
    free(t->destinations);
    free(t->destweights);
    free(t);
}

/* A copy of n ints (NULL stays NULL); *ok cleared when out of memory. */
static int *copy_ints(const int *src, int n, int *ok)
{
    if (!src)
        return NULL;
    int *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
    if (!d) {
        *ok = 0;
        return NULL;
    }
    memcpy(d, src, (size_t)n * sizeof *d);
    return d;
}

topo_t *topo_copy(const topo_t *t)
{
    topo_t *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    *c = *t;
    int ok = 1;
    c->dims = copy_ints(t->dims, t->ndims, &ok);
    c->periods = copy_ints(t->periods, t->ndims, &ok);
    c->coords = copy_ints(t->coords, t->ndims, &ok);
    c->index = copy_ints(t->index, t->nnodes, &ok);
    c->edges = copy_ints(t->edges, t->nedges, &ok);
    c->sources = copy_ints(t->sources, t->indegree, &ok);
    c->sourceweights = copy_ints(t->sourceweights, t->indegree, &ok);
    c->destinations = copy_ints(t->destinations, t->outdegree, &ok);
    c->destweights = copy_ints(t->destweights, t->outdegree, &ok);
    if (!ok) {
        topo_free(c);
        return NULL;
    }
    return c;
}
