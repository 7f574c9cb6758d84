/* Point-to-point, blocking standard mode (MPI-3.1 chapter 3; the rest of it is the next issue). */
#include "api/api.h"

#include "core/p2p.h"
#include "datatype/predefined.h"

#include <limits.h>

/* Validates datatype for func; only predefined datatypes exist in this issue. */
static int check_datatype(MPI_Comm comm, MPI_Datatype t, const char *func)
{
    if (t == MPI_DATATYPE_NULL)
        return err_raise(comm, MPI_ERR_TYPE, func, "datatype is MPI_DATATYPE_NULL");
    if (!dtype_is_predefined(t))
        return err_raise(comm, MPI_ERR_TYPE, func, "invalid datatype handle 0x%x", (unsigned)t);
    return MPI_SUCCESS;
}

/* Validates a (buf, count, datatype) triple for func. */
static int check_buffer(MPI_Comm comm, const void *buf, int count, MPI_Datatype t,
                        const char *func)
{
    if (count < 0)
        return err_raise(comm, MPI_ERR_COUNT, func, "negative count %d", count);
    int rc = check_datatype(comm, t, func);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count > 0 && !buf)
        return err_raise(comm, MPI_ERR_BUFFER, func, "buffer is NULL but count is %d", count);
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm)
{
    static const char *const F = "MPI_Send";
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    int rc = check_buffer(comm, buf, count, datatype, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (dest < 0 || dest >= c->size)
        return err_raise(comm, MPI_ERR_RANK, F, "invalid rank %d in a communicator of size %d",
                         dest, c->size);
    if (tag < 0 || tag > INT_MAX)
        return err_raise(comm, MPI_ERR_TAG, F, "invalid tag %d (tags are 0..MPI_TAG_UB)", tag);
    size_t bytes = (size_t)count * dtype_predefined_size(datatype);
    rc = p2p_send(c, buf, bytes, dest, tag, F);
    return rc == MPI_SUCCESS ? rc : err_raise(comm, rc, F, "send to rank %d failed", dest);
}
API_WEAK_ALIAS(Send)

API_EXPORT int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm comm, MPI_Status *status)
{
    static const char *const F = "MPI_Recv";
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    int rc = check_buffer(comm, buf, count, datatype, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (source == MPI_PROC_NULL) {
        /* MPI-3.1 §3.11: source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0 */
        if (status) {
            status->MPI_SOURCE = MPI_PROC_NULL;
            status->MPI_TAG = MPI_ANY_TAG;
            status->MPI_ERROR = MPI_SUCCESS;
            status->metampi_cancelled = 0;
            status->metampi_count = 0;
        }
        return MPI_SUCCESS;
    }
    if (source != MPI_ANY_SOURCE && (source < 0 || source >= c->size))
        return err_raise(comm, MPI_ERR_RANK, F, "invalid rank %d in a communicator of size %d",
                         source, c->size);
    if (tag != MPI_ANY_TAG && tag < 0)
        return err_raise(comm, MPI_ERR_TAG, F, "invalid tag %d (tags are 0..MPI_TAG_UB or "
                         "MPI_ANY_TAG)", tag);
    size_t capacity = (size_t)count * dtype_predefined_size(datatype);
    MPI_Status local;
    MPI_Status *st = status ? status : &local;
    size_t msg_bytes;
    rc = p2p_recv(c, buf, capacity, source, tag, st, &msg_bytes);
    if (rc == MPI_ERR_TRUNCATE)
        return err_raise(comm, rc, F,
                         "message of %zu bytes from rank %d (tag %d) truncated to the %zu "
                         "bytes of the receive buffer",
                         msg_bytes, st->MPI_SOURCE, st->MPI_TAG, capacity);
    return rc;
}
API_WEAK_ALIAS(Recv)

API_EXPORT int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    static const char *const F = "MPI_Get_count";
    state_require_initialized(F);
    API_CHECK_PTR(status, MPI_COMM_WORLD, F, "status");
    API_CHECK_PTR(count, MPI_COMM_WORLD, F, "count");
    int rc = check_datatype(MPI_COMM_WORLD, datatype, F);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t size = dtype_predefined_size(datatype);
    long long bytes = status->metampi_count;
    if (bytes % (long long)size != 0 || bytes / (long long)size > INT_MAX)
        *count = MPI_UNDEFINED;
    else
        *count = (int)(bytes / (long long)size);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Get_count)
