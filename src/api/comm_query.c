/* Communicator queries: size, rank, predefined attributes (MPI-3.1 §6.4, §8.1.2). */
#include "api/api.h"

#include "runtime/job.h"

#include <limits.h>

API_EXPORT int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    state_require_initialized("MPI_Comm_size");
    API_GET_COMM(c, comm, "MPI_Comm_size");
    API_CHECK_PTR(size, comm, "MPI_Comm_size", "size");
    *size = c->size;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_size)

API_EXPORT int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    state_require_initialized("MPI_Comm_rank");
    API_GET_COMM(c, comm, "MPI_Comm_rank");
    API_CHECK_PTR(rank, comm, "MPI_Comm_rank", "rank");
    *rank = c->rank;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_rank)

/* Values of the predefined attributes. MPI_Comm_get_attr returns a pointer to them
 * (MPI-3.1 §8.1.2: "the attribute value is a pointer to an int"). */
static int attr_tag_ub = INT_MAX;
static int attr_host = MPI_PROC_NULL;     /* no process is distinguished as the host */
static int attr_io = MPI_ANY_SOURCE;      /* every process can do I/O */
static int attr_wtime_is_global = 0;      /* clocks of different ranks are not synchronised */
static int attr_universe_size;
static int attr_lastusedcode = MPI_ERR_LASTCODE;
static int attr_appnum;

API_EXPORT int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    state_require_initialized("MPI_Comm_get_attr");
    API_GET_COMM(c, comm, "MPI_Comm_get_attr");
    API_CHECK_PTR(attribute_val, comm, "MPI_Comm_get_attr", "attribute_val");
    API_CHECK_PTR(flag, comm, "MPI_Comm_get_attr", "flag");
    int *value;
    switch (comm_keyval) {
    case MPI_TAG_UB: value = &attr_tag_ub; break;
    case MPI_HOST: value = &attr_host; break;
    case MPI_IO: value = &attr_io; break;
    case MPI_WTIME_IS_GLOBAL: value = &attr_wtime_is_global; break;
    case MPI_UNIVERSE_SIZE:
        /* absent when the process manager does not know it (MPI-3.1 §10.5.1) */
        value = job.universe_size > 0 ? &attr_universe_size : NULL;
        attr_universe_size = job.universe_size;
        break;
    case MPI_LASTUSEDCODE: value = &attr_lastusedcode; break;
    case MPI_APPNUM: value = &attr_appnum; attr_appnum = job.appnum; break;
    default:
        return err_raise(comm, MPI_ERR_KEYVAL, "MPI_Comm_get_attr", "invalid keyval %d",
                         comm_keyval);
    }
    /* MPI-3.1 §8.1.2: the predefined attributes are attached to MPI_COMM_WORLD only. */
    if (c->handle != MPI_COMM_WORLD || !value) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    *(int **)attribute_val = value;
    *flag = 1;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_get_attr)
