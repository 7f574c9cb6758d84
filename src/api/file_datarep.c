/* User data representations (MPI-3.1 §13.5.3). The mechanism: src/io/datarep.c. Errors
 * go to the handler of MPI_FILE_NULL (they belong to no file). */
#include "api/file_checks.h"

#include <string.h>

API_EXPORT int PMPI_Register_datarep(const char *datarep,
                                     MPI_Datarep_conversion_function *read_conversion_fn,
                                     MPI_Datarep_conversion_function *write_conversion_fn,
                                     MPI_Datarep_extent_function *dtype_file_extent_fn,
                                     void *extra_state)
{
    API_ENTER();
    static const char *const F = "MPI_Register_datarep";
    state_require_initialized(F);
    if (!datarep)
        return file_raise_null(MPI_ERR_ARG, F, "argument datarep is NULL");
    if (!*datarep || strlen(datarep) >= MPI_MAX_DATAREP_STRING)
        return file_raise_null(MPI_ERR_ARG, F,
                               "the name must have 1 to %d characters (MPI_MAX_DATAREP_STRING)",
                               MPI_MAX_DATAREP_STRING - 1);
    if (!dtype_file_extent_fn)
        return file_raise_null(MPI_ERR_ARG, F, "argument dtype_file_extent_fn is NULL");
    io_datarep_t rep = { .read = read_conversion_fn,
                         .write = write_conversion_fn,
                         .extent = dtype_file_extent_fn,
                         .extra = extra_state };
    strcpy(rep.name, datarep);
    int rc = io_datarep_register(&rep);
    if (rc == MPI_ERR_DUP_DATAREP)
        return file_raise_null(rc, F, "data representation '%s' exists already", datarep);
    if (rc != MPI_SUCCESS)
        return file_raise_null(rc, F, "out of memory");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Register_datarep)
