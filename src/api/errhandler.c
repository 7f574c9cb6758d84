/* Error handlers and error strings (MPI-3.1 §8.3–8.4). */
#include "api/api.h"

#include <stdio.h>
#include <string.h>

static int is_predefined_errhandler(MPI_Errhandler e)
{
    return e == MPI_ERRORS_ARE_FATAL || e == MPI_ERRORS_RETURN;
}

API_EXPORT int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    state_require_initialized("MPI_Comm_set_errhandler");
    API_GET_COMM(c, comm, "MPI_Comm_set_errhandler");
    if (!is_predefined_errhandler(errhandler))
        return err_raise(comm, MPI_ERR_ARG, "MPI_Comm_set_errhandler",
                         errhandler == MPI_ERRHANDLER_NULL ? "error handler is MPI_ERRHANDLER_NULL"
                                                           : "invalid error handler 0x%x",
                         (unsigned)errhandler);
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_set_errhandler)

API_EXPORT int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    state_require_initialized("MPI_Comm_get_errhandler");
    API_GET_COMM(c, comm, "MPI_Comm_get_errhandler");
    API_CHECK_PTR(errhandler, comm, "MPI_Comm_get_errhandler", "errhandler");
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_get_errhandler)

/* Predefined handlers live as long as MPI; freeing a handle to one only nulls the handle. */
API_EXPORT int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    state_require_initialized("MPI_Errhandler_free");
    API_CHECK_PTR(errhandler, MPI_COMM_WORLD, "MPI_Errhandler_free", "errhandler");
    if (!is_predefined_errhandler(*errhandler))
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Errhandler_free",
                         "invalid error handler 0x%x", (unsigned)*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Errhandler_free)

/* MPI_Error_string and MPI_Error_class need no state: callable at any time (as MPI-4 allows). */
API_EXPORT int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    const char *name = err_class_name(errorcode), *text = err_class_text(errorcode);
    if (!string || !resultlen || !name) {
        if (state.phase != STATE_INITIALIZED)
            err_fatal(MPI_ERR_ARG, "MPI_Error_string", "invalid arguments");
        if (!name)
            return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_string",
                             "%d is not an error code", errorcode);
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_string", "argument %s is NULL",
                         !string ? "string" : "resultlen");
    }
    int n = snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", name, text);
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Error_string)

API_EXPORT int PMPI_Error_class(int errorcode, int *errorclass)
{
    if (!errorclass || !err_class_name(errorcode)) {
        if (state.phase != STATE_INITIALIZED)
            err_fatal(MPI_ERR_ARG, "MPI_Error_class", "invalid arguments");
        if (!errorclass)
            return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_class",
                             "argument errorclass is NULL");
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_class",
                         "%d is not an error code", errorcode);
    }
    *errorclass = errorcode; /* our error codes are the classes themselves */
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Error_class)
