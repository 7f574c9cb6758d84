/* Language interoperability (MPI-3.1 §17.2.4-17.2.5): handle and status conversion between
 * C and Fortran.
 *
 * Handles are 32-bit integers (mpi.h), the same values in both languages: c2f is the
 * identity. f2c returns the value when it is a live handle of the kind (predefined handles
 * included) and the kind's null handle otherwise, as MPICH and Open MPI do, so a stale or
 * foreign integer never becomes a handle that crashes a later call. */
#include "api/api.h"

#include "core/errhandler.h"
#include "core/group.h"
#include "core/info.h"
#include "core/message.h"
#include "core/op.h"
#include "core/request.h"
#include "datatype/dtype.h"
#include "io/file.h"

#include <string.h>

_Static_assert(sizeof(MPI_Status) == MPI_STATUS_SIZE * sizeof(MPI_Fint),
               "MPI_STATUS_SIZE must cover MPI_Status word for word");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
               "MPI_F_SOURCE/TAG/ERROR must index the public fields");

/* The conversions of one kind: c2f, and f2c returning `value` when `valid` holds. */
#define API_HANDLE_CONVERSION(Kind, type, null, valid)                                         \
    API_EXPORT MPI_Fint PMPI_##Kind##_c2f(type handle) { return (MPI_Fint)handle; }           \
    API_WEAK_ALIAS(Kind##_c2f)                                                                 \
    API_EXPORT type PMPI_##Kind##_f2c(MPI_Fint value)                                          \
    {                                                                                          \
        API_ENTER();                                                                           \
        type handle = (type)value;                                                             \
        return handle != (null) && (valid) ? handle : (null);                                  \
    }                                                                                          \
    API_WEAK_ALIAS(Kind##_f2c)

API_HANDLE_CONVERSION(Comm, MPI_Comm, MPI_COMM_NULL, comm_lookup_pending(handle) != NULL)
API_HANDLE_CONVERSION(Type, MPI_Datatype, MPI_DATATYPE_NULL, dtype_lookup_user(handle) != NULL)
API_HANDLE_CONVERSION(Group, MPI_Group, MPI_GROUP_NULL, group_lookup(handle) != NULL)
API_HANDLE_CONVERSION(Request, MPI_Request, MPI_REQUEST_NULL, request_lookup(handle) != NULL)
API_HANDLE_CONVERSION(Op, MPI_Op, MPI_OP_NULL, op_lookup(handle) != NULL)
API_HANDLE_CONVERSION(Info, MPI_Info, MPI_INFO_NULL, info_lookup(handle) != NULL)
API_HANDLE_CONVERSION(Errhandler, MPI_Errhandler, MPI_ERRHANDLER_NULL,
                      errhandler_is_valid(handle))
API_HANDLE_CONVERSION(File, MPI_File, MPI_FILE_NULL, io_lookup(handle) != NULL)
API_HANDLE_CONVERSION(Message, MPI_Message, MPI_MESSAGE_NULL,
                      handle == MPI_MESSAGE_NO_PROC || message_exists(handle))

API_EXPORT int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    API_ENTER();
    static const char *const F = "MPI_Status_c2f";
    if (!c_status)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                         "c_status is NULL (MPI_STATUS_IGNORE cannot be converted)");
    if (!f_status || f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                         "f_status is %s (an ignored status cannot be converted)",
                         f_status ? "MPI_F_STATUS(ES)_IGNORE" : "NULL");
    memcpy(f_status, c_status, sizeof *c_status);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Status_c2f)

API_EXPORT int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    API_ENTER();
    static const char *const F = "MPI_Status_f2c";
    if (!f_status || f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                         "f_status is %s (an ignored status cannot be converted)",
                         f_status ? "MPI_F_STATUS(ES)_IGNORE" : "NULL");
    if (!c_status)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                         "c_status is NULL (MPI_STATUS_IGNORE cannot be converted)");
    memcpy(c_status, f_status, sizeof *c_status);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Status_f2c)
