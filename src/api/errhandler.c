/* Error handlers, error classes, codes and strings (MPI-3.1 §8.3–8.5). Handler objects:
 * core/errhandler.c; classes and codes, raising: core/errors.c. */
#include "api/api.h"

#include "core/errhandler.h"

#include <stdio.h>
#include <string.h>

API_EXPORT int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                                           MPI_Errhandler *errhandler)
{
    API_ENTER();
    state_require_initialized("MPI_Comm_create_errhandler");
    API_CHECK_PTR(comm_errhandler_fn, MPI_COMM_WORLD, "MPI_Comm_create_errhandler",
                  "comm_errhandler_fn");
    API_CHECK_PTR(errhandler, MPI_COMM_WORLD, "MPI_Comm_create_errhandler", "errhandler");
    if (errhandler_create(comm_errhandler_fn, errhandler) != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Comm_create_errhandler",
                         "out of memory for an error handler");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_create_errhandler)

API_EXPORT int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    API_ENTER();
    state_require_initialized("MPI_Comm_set_errhandler");
    API_GET_COMM_LOCAL(c, comm, "MPI_Comm_set_errhandler");
    if (!errhandler_is_valid(errhandler))
        return err_raise(comm, MPI_ERR_ARG, "MPI_Comm_set_errhandler",
                         errhandler == MPI_ERRHANDLER_NULL ? "error handler is MPI_ERRHANDLER_NULL"
                                                           : "invalid error handler 0x%x",
                         (unsigned)errhandler);
    errhandler_retain(errhandler);
    errhandler_release(c->errhandler);
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_set_errhandler)

/* The returned handle is a new reference, for MPI_Errhandler_free (MPI-3.1 §8.3.1). */
API_EXPORT int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    API_ENTER();
    state_require_initialized("MPI_Comm_get_errhandler");
    API_GET_COMM_LOCAL(c, comm, "MPI_Comm_get_errhandler");
    API_CHECK_PTR(errhandler, comm, "MPI_Comm_get_errhandler", "errhandler");
    errhandler_retain(c->errhandler);
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_get_errhandler)

/* Predefined handlers live as long as MPI; freeing a handle to one only nulls the handle.
 * A user handler lives on while communicators use it. */
API_EXPORT int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    API_ENTER();
    state_require_initialized("MPI_Errhandler_free");
    API_CHECK_PTR(errhandler, MPI_COMM_WORLD, "MPI_Errhandler_free", "errhandler");
    if (!errhandler_is_valid(*errhandler))
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Errhandler_free",
                         *errhandler == MPI_ERRHANDLER_NULL ? "error handler is MPI_ERRHANDLER_NULL"
                                                            : "invalid error handler 0x%x",
                         (unsigned)*errhandler);
    errhandler_release(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Errhandler_free)

API_EXPORT int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    API_ENTER();
    state_require_initialized("MPI_Comm_call_errhandler");
    API_GET_COMM_LOCAL(c, comm, "MPI_Comm_call_errhandler");
    err_call_handler(c->handle, errorcode, "MPI_Comm_call_errhandler");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_call_errhandler)

API_EXPORT int PMPI_Add_error_class(int *errorclass)
{
    API_ENTER();
    state_require_initialized("MPI_Add_error_class");
    API_CHECK_PTR(errorclass, MPI_COMM_WORLD, "MPI_Add_error_class", "errorclass");
    if (err_add_class(errorclass) != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Add_error_class",
                         "out of memory for an error class");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Add_error_class)

API_EXPORT int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    API_ENTER();
    state_require_initialized("MPI_Add_error_code");
    API_CHECK_PTR(errorcode, MPI_COMM_WORLD, "MPI_Add_error_code", "errorcode");
    if (!err_is_class(errorclass))
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_code",
                         "%d is not an error class", errorclass);
    if (err_add_code(errorclass, errorcode) != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Add_error_code",
                         "out of memory for an error code");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Add_error_code)

API_EXPORT int PMPI_Add_error_string(int errorcode, const char *string)
{
    API_ENTER();
    state_require_initialized("MPI_Add_error_string");
    API_CHECK_PTR(string, MPI_COMM_WORLD, "MPI_Add_error_string", "string");
    /* MPI-3.1 §8.5: erroneous for the predefined codes (<= MPI_ERR_LASTCODE) */
    if (!err_user_string(errorcode))
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_string",
                         "%d is not a user-defined error code or class", errorcode);
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_string",
                         "string is longer than MPI_MAX_ERROR_STRING - 1 characters");
    if (err_set_string(errorcode, string) != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Add_error_string",
                         "out of memory for an error string");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Add_error_string)

/* MPI_Error_string and MPI_Error_class need no state: callable at any time (as MPI-4 allows).
 * User-defined codes exist only between MPI_Init and MPI_Finalize. */
API_EXPORT int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    API_ENTER();
    const char *name = err_class_name(errorcode), *text = err_class_text(errorcode);
    const char *user = err_user_string(errorcode);
    if (!string || !resultlen || (!name && !user)) {
        if (state.phase != STATE_INITIALIZED)
            err_fatal(MPI_ERR_ARG, "MPI_Error_string", "invalid arguments");
        if (!name && !user)
            return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_string",
                             "%d is not an error code", errorcode);
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_string", "argument %s is NULL",
                         !string ? "string" : "resultlen");
    }
    int n = name ? snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", name, text)
                 : snprintf(string, MPI_MAX_ERROR_STRING, "%s", user);
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Error_string)

API_EXPORT int PMPI_Error_class(int errorcode, int *errorclass)
{
    API_ENTER();
    int cls = err_code_class(errorcode);
    if (!errorclass || cls < 0) {
        if (state.phase != STATE_INITIALIZED)
            err_fatal(MPI_ERR_ARG, "MPI_Error_class", "invalid arguments");
        if (!errorclass)
            return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_class",
                             "argument errorclass is NULL");
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_class",
                         "%d is not an error code", errorcode);
    }
    *errorclass = cls;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Error_class)
