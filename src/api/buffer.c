/* The buffer of buffered sends (MPI-3.1 §3.6.1): MPI_Buffer_attach, MPI_Buffer_detach. */
#include "api/api.h"

#include "core/bsend.h"

API_EXPORT int PMPI_Buffer_attach(void *buffer, int size)
{
    API_ENTER();
    static const char *const F = "MPI_Buffer_attach";
    state_require_initialized(F);
    if (size < 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F, "negative size %d", size);
    if (size > 0 && !buffer)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_BUFFER, F, "buffer is NULL but size is %d",
                         size);
    if (bsend_attach(buffer, (size_t)size) != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_BUFFER, F,
                         "a buffer is already attached (detach it first)");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Buffer_attach)

/* buffer_addr is really a void ** (MPI-3.1 §3.6.1: the C binding keeps void * for
 * compatibility). */
API_EXPORT int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    API_ENTER();
    static const char *const F = "MPI_Buffer_detach";
    state_require_initialized(F);
    API_CHECK_PTR(buffer_addr, MPI_COMM_WORLD, F, "buffer_addr");
    API_CHECK_PTR(size, MPI_COMM_WORLD, F, "size");
    void *buf;
    size_t n;
    bsend_detach(&buf, &n);
    *(void **)buffer_addr = buf;
    *size = (int)n;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Buffer_detach)
