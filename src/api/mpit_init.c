/* MPI_T_init_thread and MPI_T_finalize (MPI-3.1 §14.3.4). */
#include "api/api.h"
#include "api/mpit.h"

API_EXPORT int PMPI_T_init_thread(int required, int *provided)
{
    if (!provided || required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return MPI_T_ERR_INVALID;
    mpit_lock_always();
    mpit_count_add(1);
    mpit_leave(MPI_SUCCESS);
    /* every MPI_T call takes mpit_lock, whatever the MPI library's own level */
    *provided = required;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(T_init_thread)

API_EXPORT int PMPI_T_finalize(void)
{
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (mpit_count_add(-1) == 0) {
        mpit_pvar_release();
        mpit_cvar_release();
    }
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_finalize)
