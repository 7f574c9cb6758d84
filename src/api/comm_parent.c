/* MPI_Comm_get_parent (MPI-3.1 §10.3.2). Every process of a metampi job is started by mpirun
 * and enters through MPI_Init (there is no MPI_Comm_spawn yet), and for such a process the
 * standard's answer is MPI_COMM_NULL. When spawning lands, a spawned child answers with the
 * inter-communicator to its parents instead. */
#include "api/api.h"

API_EXPORT int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    API_ENTER();
    static const char *const F = "MPI_Comm_get_parent";
    state_require_initialized(F);
    API_CHECK_PTR(parent, MPI_COMM_WORLD, F, "parent");
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_get_parent)
