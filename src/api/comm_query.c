/* Communicator queries: size, rank (MPI-3.1 §6.4). */
#include "api/api.h"

#include "runtime/job.h"

#include <limits.h>

API_EXPORT int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    API_ENTER();
    state_require_initialized("MPI_Comm_size");
    API_GET_COMM_LOCAL(c, comm, "MPI_Comm_size");
    API_CHECK_PTR(size, comm, "MPI_Comm_size", "size");
    *size = c->size;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_size)

API_EXPORT int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    API_ENTER();
    state_require_initialized("MPI_Comm_rank");
    API_GET_COMM_LOCAL(c, comm, "MPI_Comm_rank");
    API_CHECK_PTR(rank, comm, "MPI_Comm_rank", "rank");
    *rank = c->rank;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_rank)
