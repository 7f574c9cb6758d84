/* Status queries (MPI-3.1 §3.2.5, §4.1.11, §12.3): counts and elements of a status, and
 * setting them. Datatypes are predefined in this issue, so elements equal count. */
#include "api/api.h"

#include "api/checks.h"
#include "datatype/predefined.h"

#include <limits.h>

/* Whole elements of type in the status's byte count, or -1 when not a whole number. */
static long long elements(const MPI_Status *status, MPI_Datatype t)
{
    long long size = (long long)dtype_predefined_size(t);
    long long bytes = status->metampi_count;
    return bytes % size ? -1 : bytes / size;
}

/* The whole elements of datatype in *status (-1: not a whole number), after the checks that
 * the count queries share. */
static int count_elements(const MPI_Status *status, MPI_Datatype datatype, const void *count,
                          long long *n, const char *func)
{
    state_require_initialized(func);
    API_CHECK_PTR(status, MPI_COMM_WORLD, func, "status");
    API_CHECK_PTR(count, MPI_COMM_WORLD, func, "count");
    int rc = check_datatype(MPI_COMM_WORLD, datatype, func);
    if (rc == MPI_SUCCESS)
        *n = elements(status, datatype);
    return rc;
}

static int get_count(const MPI_Status *status, MPI_Datatype datatype, int *count,
                     const char *func)
{
    long long n;
    int rc = count_elements(status, datatype, count, &n, func);
    if (rc == MPI_SUCCESS)
        *count = n < 0 || n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return rc;
}

API_EXPORT int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    return get_count(status, datatype, count, "MPI_Get_count");
}
API_WEAK_ALIAS(Get_count)

API_EXPORT int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    return get_count(status, datatype, count, "MPI_Get_elements");
}
API_WEAK_ALIAS(Get_elements)

API_EXPORT int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
                                   MPI_Count *count)
{
    long long n;
    int rc = count_elements(status, datatype, count, &n, "MPI_Get_elements_x");
    if (rc == MPI_SUCCESS)
        *count = n < 0 ? MPI_UNDEFINED : n;
    return rc;
}
API_WEAK_ALIAS(Get_elements_x)

static int set_elements(MPI_Status *status, MPI_Datatype datatype, MPI_Count count,
                        const char *func)
{
    state_require_initialized(func);
    API_CHECK_PTR(status, MPI_COMM_WORLD, func, "status");
    int rc = check_datatype(MPI_COMM_WORLD, datatype, func);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, func, "negative count %lld", count);
    status->metampi_count = count * (long long)dtype_predefined_size(datatype);
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return set_elements(status, datatype, count, "MPI_Status_set_elements");
}
API_WEAK_ALIAS(Status_set_elements)

API_EXPORT int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype,
                                          MPI_Count count)
{
    return set_elements(status, datatype, count, "MPI_Status_set_elements_x");
}
API_WEAK_ALIAS(Status_set_elements_x)

API_EXPORT int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    static const char *const F = "MPI_Status_set_cancelled";
    state_require_initialized(F);
    API_CHECK_PTR(status, MPI_COMM_WORLD, F, "status");
    status->metampi_cancelled = flag != 0;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Status_set_cancelled)

