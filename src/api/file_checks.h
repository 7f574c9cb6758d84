/*
 * Argument checks of the I/O calls (src/api/file_*.c). An error is raised on the file's
 * error handler (MPI_ERRORS_RETURN unless set, MPI-3.1 §13.7); errors of MPI_File_open and
 * MPI_File_delete and bad file handles on the handler of MPI_FILE_NULL.
 */
#ifndef METAMPI_API_FILE_CHECKS_H
#define METAMPI_API_FILE_CHECKS_H

#include "api/api.h"
#include "io/file.h"

/* Raises errclass on f's handler. */
int file_raise(const io_file_t *f, int errclass, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Raises errclass on the handler of MPI_FILE_NULL. */
int file_raise_null(int errclass, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define API_GET_FILE(var, fh, func)                                                            \
    io_file_t *var = io_lookup(fh);                                                            \
    if (!var)                                                                                  \
        return file_raise_null(MPI_ERR_FILE, func,                                             \
                               (fh) == MPI_FILE_NULL ? "file is MPI_FILE_NULL%s"               \
                                                     : "invalid file handle%s", "");

#define FILE_CHECK_PTR(f, ptr, func, argname)                                                  \
    do {                                                                                       \
        if (!(ptr))                                                                            \
            return file_raise(f, MPI_ERR_ARG, func, "argument %s is NULL", argname);           \
    } while (0)

/* The file was opened for writing (else MPI_ERR_READ_ONLY) / reading (else MPI_ERR_ACCESS),
 * the classes MPICH and Open MPI give. */
int file_check_writable(const io_file_t *f, const char *func);
int file_check_readable(const io_file_t *f, const char *func);
/* Not opened with MPI_MODE_SEQUENTIAL (explicit offsets, individual pointers, sizes):
 * else MPI_ERR_UNSUPPORTED_OPERATION. */
/* Independent access needs the file open here (io/sites.c: metampi_file_sites=root opens it
 * at rank 0's site only): MPI_ERR_UNSUPPORTED_OPERATION otherwise. */
int file_check_reachable(const io_file_t *f, const char *func);
int file_check_not_sequential(const io_file_t *f, const char *func);

/* A live, committed datatype handle: *t is set; else MPI_ERR_TYPE naming argname. */
int file_check_type(const io_file_t *f, MPI_Datatype h, dtype_t **t, const char *argname,
                    const char *func);
/* A read or write's (buf, count, datatype): count >= 0, a committed type whose data is a
 * whole number of etypes of the view (MPI_ERR_TYPE), and for "external32" a type whose
 * external32 size is its native one (MPI_ERR_UNSUPPORTED_DATAREP). */
int file_check_data(const io_file_t *f, int count, MPI_Datatype datatype, dtype_t **t,
                    const char *func);
/* Fills status (unless MPI_STATUS_IGNORE) for `stream_bytes` of the view's stream moved
 * with elements of t: the status counts the native bytes of the whole elements they hold
 * (the same number unless the file's representation resizes t; t NULL: as they are). */
void file_set_status(io_file_t *f, dtype_t *t, MPI_Status *status, size_t stream_bytes);

#endif
