/* Data access with explicit offsets and individual file pointers (MPI-3.1 §13.4.2-13.4.3),
 * blocking, independent and collective (two-phase aggregation, io/twophase.c). */
#include "api/file_access.h"

int file_access(MPI_File fh, MPI_Offset offset, void *buf, int count,
                       MPI_Datatype datatype, MPI_Status *status, int write, const char *func)
{
    state_require_initialized(func);
    API_GET_FILE(f, fh, func);
    int rc = file_check_not_sequential(f, func);
    if (rc == MPI_SUCCESS)
        rc = write ? file_check_writable(f, func) : file_check_readable(f, func);
    if (rc == MPI_SUCCESS)
        rc = file_check_reachable(f, func);
    if (rc != MPI_SUCCESS)
        return rc;
    int at_pointer = offset < 0;
    if (at_pointer)
        offset = f->pos;
    dtype_t *t;
    rc = file_check_data(f, count, datatype, &t, func);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t done = 0;
    MPI_Offset start = offset * f->fetype->size;
    rc = write ? io_write(f, start, buf, (size_t)count, t, &done)
               : io_read(f, start, buf, (size_t)count, t, &done);
    if (at_pointer)
        f->pos += (MPI_Offset)done / f->fetype->size;
    file_set_status(f, t, status, done);
    if (rc != MPI_SUCCESS)
        return file_raise(f, rc, func, "%s at view offset %lld failed after %zu bytes",
                          write ? "writing" : "reading", (long long)offset, done);
    return MPI_SUCCESS;
}

/* The collective forms: two-phase aggregation (io/twophase.c) outside atomic mode, unless
 * the hint romio_cb_read / romio_cb_write is "disable"; otherwise, and in a communicator of one, the independent access. A member whose
 * checks fail still takes part (with nothing), so none waits for it. */
static int access_collective(MPI_File fh, int at_pointer, MPI_Offset offset, void *buf,
                             int count, MPI_Datatype datatype, MPI_Status *status, int write,
                             const char *func)
{
    state_require_initialized(func);
    API_GET_FILE(f, fh, func);
    int hint = write ? f->hints.cb_write : f->hints.cb_read;
    if (f->atomic || f->comm->size == 1 || hint == IO_HINT_DISABLE)
        return at_pointer ? file_access(fh, -1, buf, count, datatype, status, write, func)
                          : file_access_at(fh, offset, buf, count, datatype, status, write,
                                           func);
    int rc = file_check_not_sequential(f, func);
    if (rc == MPI_SUCCESS)
        rc = write ? file_check_writable(f, func) : file_check_readable(f, func);
    if (rc == MPI_SUCCESS && !at_pointer && offset < 0)
        rc = file_raise(f, MPI_ERR_ARG, func, "negative offset %lld", (long long)offset);
    dtype_t *t = NULL;
    if (rc == MPI_SUCCESS)
        rc = file_check_data(f, count, datatype, &t, func);
    if (at_pointer)
        offset = f->pos;
    size_t done = 0;
    int all = io_collective(f, rc == MPI_SUCCESS ? offset * f->fetype->size : 0, buf,
                            rc == MPI_SUCCESS ? (size_t)count : 0, t, write, rc, &done);
    if (rc != MPI_SUCCESS)
        return rc; /* raised by the check */
    if (at_pointer)
        f->pos += (MPI_Offset)done / f->fetype->size;
    file_set_status(f, t, status, done);
    if (all != MPI_SUCCESS)
        return file_raise(f, all, func, "collective %s at view offset %lld failed",
                          write ? "write" : "read", (long long)offset);
    return MPI_SUCCESS;
}

int file_access_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                     MPI_Datatype datatype, MPI_Status *status, int write, const char *func)
{
    if (offset < 0) {
        state_require_initialized(func);
        API_GET_FILE(f, fh, func);
        return file_raise(f, MPI_ERR_ARG, func, "negative offset %lld", (long long)offset);
    }
    return file_access(fh, offset, buf, count, datatype, status, write, func);
}

API_EXPORT int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                 MPI_Datatype datatype, MPI_Status *status)
{
    API_ENTER();
    return file_access_at(fh, offset, buf, count, datatype, status, 0, "MPI_File_read_at");
}
API_WEAK_ALIAS(File_read_at)

API_EXPORT int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                  MPI_Datatype datatype, MPI_Status *status)
{
    API_ENTER();
    return file_access_at(fh, offset, (void *)buf, count, datatype, status, 1, "MPI_File_write_at");
}
API_WEAK_ALIAS(File_write_at)

API_EXPORT int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                     MPI_Datatype datatype, MPI_Status *status)
{
    API_ENTER();
    return access_collective(fh, 0, offset, buf, count, datatype, status, 0,
                             "MPI_File_read_at_all");
}
API_WEAK_ALIAS(File_read_at_all)

API_EXPORT int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf,
                                      int count, MPI_Datatype datatype, MPI_Status *status)
{
    API_ENTER();
    return access_collective(fh, 0, offset, (void *)buf, count, datatype, status, 1,
                             "MPI_File_write_at_all");
}
API_WEAK_ALIAS(File_write_at_all)

API_EXPORT int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                              MPI_Status *status)
{
    API_ENTER();
    return file_access(fh, -1, buf, count, datatype, status, 0, "MPI_File_read");
}
API_WEAK_ALIAS(File_read)

API_EXPORT int PMPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                               MPI_Status *status)
{
    API_ENTER();
    return file_access(fh, -1, (void *)buf, count, datatype, status, 1, "MPI_File_write");
}
API_WEAK_ALIAS(File_write)

API_EXPORT int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                  MPI_Status *status)
{
    API_ENTER();
    return access_collective(fh, 1, 0, buf, count, datatype, status, 0, "MPI_File_read_all");
}
API_WEAK_ALIAS(File_read_all)

API_EXPORT int PMPI_File_write_all(MPI_File fh, const void *buf, int count,
                                   MPI_Datatype datatype, MPI_Status *status)
{
    API_ENTER();
    return access_collective(fh, 1, 0, (void *)buf, count, datatype, status, 1,
                             "MPI_File_write_all");
}
API_WEAK_ALIAS(File_write_all)

API_EXPORT int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    API_ENTER();
    static const char *const F = "MPI_File_seek";
    state_require_initialized(F);
    API_GET_FILE(f, fh, F);
    int rc = file_check_not_sequential(f, F);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Offset base;
    switch (whence) {
    case MPI_SEEK_SET:
        base = 0;
        break;
    case MPI_SEEK_CUR:
        base = f->pos;
        break;
    case MPI_SEEK_END: {
        MPI_Offset size;
        if ((rc = file_check_reachable(f, F)) != MPI_SUCCESS)
            return rc;
        if ((rc = io_get_size(f, &size)) != MPI_SUCCESS)
            return file_raise(f, rc, F, "fstat failed");
        MPI_Offset bytes = io_view_bytes_below(f, size);
        base = (bytes + f->fetype->size - 1) / f->fetype->size;
        break;
    }
    default:
        return file_raise(f, MPI_ERR_ARG, F,
                          "whence %d is none of MPI_SEEK_SET, MPI_SEEK_CUR, MPI_SEEK_END",
                          whence);
    }
    if (base + offset < 0)
        return file_raise(f, MPI_ERR_ARG, F,
                          "the pointer would move before the start of the view (to %lld)",
                          (long long)(base + offset));
    f->pos = base + offset;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_seek)

API_EXPORT int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    API_ENTER();
    static const char *const F = "MPI_File_get_position";
    state_require_initialized(F);
    API_GET_FILE(f, fh, F);
    FILE_CHECK_PTR(f, offset, F, "offset");
    int rc = file_check_not_sequential(f, F);
    if (rc != MPI_SUCCESS)
        return rc;
    *offset = f->pos;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(File_get_position)
