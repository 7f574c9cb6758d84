/*
 * The neighbourhood of a process in a communicator's topology, as the neighbourhood
 * collectives see it (MPI-3.1 §7.6). The builders are declared in coll/coll.h; this is what
 * the API layer needs besides them: how many blocks each side of the call has.
 */
#ifndef METAMPI_COLL_NEIGHBOR_H
#define METAMPI_COLL_NEIGHBOR_H

#include "core/comm.h"

/* The number of source (indeg) and destination (outdeg) neighbours of this process in c's
 * topology: 2 * ndims for a Cartesian grid (MPI_PROC_NULL neighbours included), the node's
 * neighbour count (both) for a graph, the in- and out-degree for a distributed graph.
 * Returns 0, or -1 when c carries no topology. */
int coll_neighbor_degrees(const comm_t *c, int *indeg, int *outdeg);

#endif
