/* The communicator behind a topology constructor (see topo_ops.h). */
#include "core/topo_ops.h"

int topo_comm_create(comm_t *parent, int nnodes, comm_t **out)
{
    /* Ranks are kept: the first nnodes processes in their old order. comm_split never copies
     * the parent's topology, so the caller's is the only one attached. */
    return comm_split(parent, parent->rank < nnodes ? 0 : MPI_UNDEFINED, parent->rank, out);
}
