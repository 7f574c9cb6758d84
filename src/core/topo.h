/*
 * Process topologies (MPI-3.1 §7) carried by a communicator: Cartesian grids, graphs and
 * distributed graphs. Neighbourhood collectives (collectives chapter) read the neighbour
 * lists from here.
 */
#ifndef METAMPI_TOPO_H
#define METAMPI_TOPO_H

#include <mpi.h>

typedef struct topo {
    int kind;                        /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* Cartesian */
    int ndims;
    int *dims, *periods, *coords;    /* coords of this process */
    /* graph */
    int nnodes, nedges;
    int *index, *edges;
    /* distributed graph: this process's neighbours in the order given */
    int indegree, outdegree;
    int *sources, *sourceweights, *destinations, *destweights;
    int weighted;
} topo_t;

void topo_free(topo_t *t);
/* A copy (MPI_Comm_dup keeps the topology); NULL on no memory. */
topo_t *topo_copy(const topo_t *t);

#endif
