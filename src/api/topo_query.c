/* MPI_Topo_test (MPI-3.1 §7.5.5). */
#include "api/api.h"
#include "core/topo.h"

API_EXPORT int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    API_ENTER();
    static const char F[] = "MPI_Topo_test";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    API_CHECK_PTR(status, comm, F, "status");
    *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Topo_test)
