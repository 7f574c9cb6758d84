#include "core/state.h"

#include "core/errors.h"

lib_state_t state;

void state_require_initialized(const char *func)
{
    if (state.phase == STATE_INITIALIZED)
        return;
    if (state.phase == STATE_FINALIZED)
        err_fatal(MPI_ERR_OTHER, func, "called after MPI_Finalize");
    err_fatal(MPI_ERR_OTHER, func, "called before MPI_Init");
}
