/* Argument checks of the I/O calls. */
#include "api/file_checks.h"

#include <stdarg.h>
#include <stdio.h>

int file_raise(const io_file_t *f, int errclass, const char *func, const char *fmt, ...)
{
    char detail[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return err_raise_on(f->errhandler, f->handle, errclass, func, "%s (file %s)", detail,
                        f->path);
}

int file_raise_null(int errclass, const char *func, const char *fmt, ...)
{
    char detail[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return err_raise_on(io_default_errhandler(), MPI_FILE_NULL, errclass, func, "%s", detail);
}

int file_check_writable(const io_file_t *f, const char *func)
{
    if (f->amode & MPI_MODE_RDONLY)
        return file_raise(f, MPI_ERR_READ_ONLY, func,
                          "the file was opened with MPI_MODE_RDONLY: it cannot be written");
    return MPI_SUCCESS;
}

int file_check_readable(const io_file_t *f, const char *func)
{
    if (f->amode & MPI_MODE_WRONLY)
        return file_raise(f, MPI_ERR_ACCESS, func,
                          "the file was opened with MPI_MODE_WRONLY: it cannot be read");
    return MPI_SUCCESS;
}

int file_check_not_sequential(const io_file_t *f, const char *func)
{
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return file_raise(f, MPI_ERR_UNSUPPORTED_OPERATION, func,
                          "the file was opened with MPI_MODE_SEQUENTIAL");
    return MPI_SUCCESS;
}

int file_check_reachable(const io_file_t *f, const char *func)
{
    if (f->fd < 0)
        return file_raise(f, MPI_ERR_UNSUPPORTED_OPERATION, func,
                          "the file lives on the file system of site %d (metampi_file_sites="
                          "root) and this rank is at site %d: only collective data access "
                          "reaches it from here (docs/io.md)",
                          f->site[0], f->site[f->comm->rank]);
    return MPI_SUCCESS;
}

int file_check_type(const io_file_t *f, MPI_Datatype h, dtype_t **t, const char *argname,
                    const char *func)
{
    dtype_t *dt = dtype_lookup_user(h);
    if (!dt)
        return file_raise(f, MPI_ERR_TYPE, func,
                          h == MPI_DATATYPE_NULL ? "%s is MPI_DATATYPE_NULL"
                                                 : "%s is no datatype handle",
                          argname);
    if (!dt->committed)
        return file_raise(f, MPI_ERR_TYPE, func, "%s (0x%x) is not committed", argname,
                          (unsigned)h);
    *t = dt;
    return MPI_SUCCESS;
}

int file_check_data(const io_file_t *f, int count, MPI_Datatype datatype, dtype_t **t,
                    const char *func)
{
    if (count < 0)
        return file_raise(f, MPI_ERR_COUNT, func, "negative count %d", count);
    int rc = file_check_type(f, datatype, t, "datatype", func);
    if (rc != MPI_SUCCESS)
        return rc;
    /* the bytes it fills in the view's stream: in the file's representation */
    MPI_Count each = io_rep_size(&f->rep, *t);
    if (each < 0)
        return file_raise(f, MPI_ERR_UNSUPPORTED_DATAREP, func,
                          "the extent function of data representation '%s' failed for a basic "
                          "type of the datatype",
                          f->datarep);
    long long bytes = (long long)count * each;
    if (bytes % f->fetype->size)
        return file_raise(f, MPI_ERR_TYPE, func,
                          "%d elements of the datatype hold %lld bytes in data representation "
                          "'%s', not a whole number of etypes of %lld bytes",
                          count, bytes, f->datarep, (long long)f->fetype->size);
    return MPI_SUCCESS;
}

void file_set_status(io_file_t *f, dtype_t *t, MPI_Status *status, size_t stream_bytes)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    size_t bytes = stream_bytes;
    if (t && (f->rep.external32 || f->rep.user)) {
        MPI_Count each = io_rep_size(&f->rep, t);
        bytes = each > 0 ? stream_bytes / (size_t)each * (size_t)t->size : 0;
    }
    status->MPI_SOURCE = MPI_PROC_NULL;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = MPI_SUCCESS;
    status->metampi_cancelled = 0;
    status->metampi_count = (long long)bytes;
}
