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
        return file_raise(f, MPI_ERR_ACCESS, func,
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
