/* Files as objects (MPI-3.1 §13.2.5-13.2.8, §13.7): access mode, group, hints, error
 * handlers. */
#include "api/file_checks.h"

#include "core/errhandler.h"
#include "core/group.h"
#include "core/icoll.h"

API_EXPORT int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    API_ENTER();
    static const char *const F = "MPI_File_get_amode";
    state_require_initialized(F);
    API_GET_FILE(f, fh, F);
    FILE_CHECK_PTR(f, amode, F, "amode");
    *amode = f->amode;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_get_amode)

API_EXPORT int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    API_ENTER();
    static const char *const F = "MPI_File_get_group";
    state_require_initialized(F);
    API_GET_FILE(f, fh, F);
    FILE_CHECK_PTR(f, group, F, "group");
    group_retain(f->comm->group);
    MPI_Group h = group_publish(f->comm->group);
    if (h == MPI_GROUP_NULL) {
        group_release(f->comm->group);
        return file_raise(f, MPI_ERR_NO_MEM, F, "out of memory for a group handle");
    }
    *group = h;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_get_group)

/* Collective. The hints are merged into those already set (as ROMIO does); MPI_File_get_info
 * returns them with the values in use of those metampi acts on (io/hints.c, docs/io.md). */
API_EXPORT int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    API_ENTER();
    static const char *const F = "MPI_File_set_info";
    state_require_initialized(F);
    API_GET_FILE(f, fh, F);
    info_t *i = info_lookup(info);
    if (!i && info != MPI_INFO_NULL)
        return file_raise(f, MPI_ERR_INFO, F, "invalid info handle 0x%x", (unsigned)info);
    /* collective (rank 0's values are taken): the members return together */
    int rc = io_hints_set(f, i);
    return rc == MPI_SUCCESS ? rc : file_raise(f, rc, F, "cannot set the hints");
}
API_WEAK_ALIAS(File_set_info)

API_EXPORT int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    API_ENTER();
    static const char *const F = "MPI_File_get_info";
    state_require_initialized(F);
    API_GET_FILE(f, fh, F);
    FILE_CHECK_PTR(f, info_used, F, "info_used");
    info_t *copy = info_copy(f->info);
    if (!copy || !info_publish(copy)) {
        if (copy)
            info_destroy(copy);
        return file_raise(f, MPI_ERR_NO_MEM, F, "out of memory for an info object");
    }
    *info_used = info_handle(copy);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_get_info)

API_EXPORT int PMPI_File_create_errhandler(MPI_File_errhandler_function *fn,
                                           MPI_Errhandler *errhandler)
{
    API_ENTER();
    static const char *const F = "MPI_File_create_errhandler";
    state_require_initialized(F);
    API_CHECK_PTR(fn, MPI_COMM_WORLD, F, "file_errhandler_fn");
    API_CHECK_PTR(errhandler, MPI_COMM_WORLD, F, "errhandler");
    if (errhandler_create((errhandler_fn *)fn, errhandler) != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, F, "out of memory for a handler");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_create_errhandler)

/* On MPI_FILE_NULL: the handler of files opened later and of errors that belong to no file
 * (MPI-3.1 §13.7). */
API_EXPORT int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    API_ENTER();
    static const char *const F = "MPI_File_set_errhandler";
    state_require_initialized(F);
    io_file_t *f = NULL;
    if (file != MPI_FILE_NULL && !(f = io_lookup(file)))
        return file_raise_null(MPI_ERR_FILE, F, "invalid file handle 0x%x", (unsigned)file);
    if (!errhandler_is_valid(errhandler)) {
        const char *what = errhandler == MPI_ERRHANDLER_NULL
                               ? "error handler is MPI_ERRHANDLER_NULL"
                               : "invalid error handler handle";
        return f ? file_raise(f, MPI_ERR_ARG, F, "%s", what)
                 : file_raise_null(MPI_ERR_ARG, F, "%s", what);
    }
    if (!f) {
        io_set_default_errhandler(errhandler);
        return MPI_SUCCESS;
    }
    errhandler_retain(errhandler);
    errhandler_release(f->errhandler);
    f->errhandler = errhandler;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_set_errhandler)

API_EXPORT int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    API_ENTER();
    static const char *const F = "MPI_File_get_errhandler";
    state_require_initialized(F);
    io_file_t *f = NULL;
    if (file != MPI_FILE_NULL && !(f = io_lookup(file)))
        return file_raise_null(MPI_ERR_FILE, F, "invalid file handle 0x%x", (unsigned)file);
    if (!errhandler)
        return f ? file_raise(f, MPI_ERR_ARG, F, "argument errhandler is NULL")
                 : file_raise_null(MPI_ERR_ARG, F, "argument errhandler is NULL");
    MPI_Errhandler eh = f ? f->errhandler : io_default_errhandler();
    errhandler_retain(eh);
    *errhandler = eh;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_get_errhandler)

API_EXPORT int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    API_ENTER();
    static const char *const F = "MPI_File_call_errhandler";
    state_require_initialized(F);
    io_file_t *f = NULL;
    if (fh != MPI_FILE_NULL && !(f = io_lookup(fh)))
        return file_raise_null(MPI_ERR_FILE, F, "invalid file handle 0x%x", (unsigned)fh);
    err_call_handler_on(f ? f->errhandler : io_default_errhandler(), fh, errorcode, F);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_call_errhandler)

/* Collective: the same flag everywhere (MPI_ERR_NOT_SAME otherwise). In atomic mode every
 * access holds a byte-range lock over its span (io/rw.c). */
API_EXPORT int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    API_ENTER();
    static const char *const F = "MPI_File_set_atomicity";
    state_require_initialized(F);
    API_GET_FILE(f, fh, F);
    int v[2] = { flag != 0, -(flag != 0) };
    int rc = icoll_allreduce_int(f->comm, v, 2, ICOLL_MAX);
    if (rc == MPI_SUCCESS && v[0] != -v[1])
        rc = MPI_ERR_NOT_SAME;
    if (rc != MPI_SUCCESS)
        return file_raise(f, rc, F, "the members passed different flags (this one %d)", flag);
    f->atomic = flag != 0;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_set_atomicity)

API_EXPORT int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    API_ENTER();
    static const char *const F = "MPI_File_get_atomicity";
    state_require_initialized(F);
    API_GET_FILE(f, fh, F);
    FILE_CHECK_PTR(f, flag, F, "flag");
    *flag = f->atomic;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_get_atomicity)
