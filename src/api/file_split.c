/* Split collective data access (MPI-3.1 §13.4.5): the data moves in _begin, whose status
 * _end returns. One split collective at a time per file (MPI_ERR_OTHER for a second _begin
 * or an _end without its _begin). */
#include "api/file_access.h"

#include <string.h>

static int begin(MPI_File fh, const char *func)
{
    state_require_initialized(func);
    API_GET_FILE(f, fh, func);
    if (f->split)
        return file_raise(f, MPI_ERR_OTHER, func,
                          "%s has not been ended yet (one split collective at a time)",
                          f->split);
    return MPI_SUCCESS;
}

static int record(MPI_File fh, int rc, const MPI_Status *st, const char *func)
{
    io_file_t *f = io_lookup(fh);
    f->split = func;
    f->split_rc = rc;
    f->split_status = *st;
    return rc;
}

static int end(MPI_File fh, MPI_Status *status, const char *begun, const char *func)
{
    state_require_initialized(func);
    API_GET_FILE(f, fh, func);
    if (!f->split || strcmp(f->split, begun) != 0)
        return file_raise(f, MPI_ERR_OTHER, func, "no %s to end%s%s", begun,
                          f->split ? " (the one begun is " : "", f->split ? f->split : "");
    f->split = NULL;
    if (status != MPI_STATUS_IGNORE)
        *status = f->split_status;
    return f->split_rc;
}

/* Starts, moves and records; the access's own error (raised already) is also _end's. */
#define BEGIN(fh, func, call)                                                                  \
    do {                                                                                       \
        int rc_ = begin(fh, func);                                                             \
        if (rc_ != MPI_SUCCESS)                                                                \
            return rc_;                                                                        \
        MPI_Status st_;                                                                        \
        MPI_Status *status = &st_;                                                             \
        file_set_status(NULL, NULL, status, 0);                                                \
        return record(fh, (call), &st_, func);                                                 \
    } while (0)

API_EXPORT int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                           MPI_Datatype datatype)
{
    API_ENTER();
    BEGIN(fh, "MPI_File_read_at_all_begin",
          file_access_at(fh, offset, buf, count, datatype, status, 0,
                         "MPI_File_read_at_all_begin"));
}
API_WEAK_ALIAS(File_read_at_all_begin)

API_EXPORT int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    API_ENTER();
    (void)buf;
    return end(fh, status, "MPI_File_read_at_all_begin", "MPI_File_read_at_all_end");
}
API_WEAK_ALIAS(File_read_at_all_end)

API_EXPORT int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf,
                                            int count, MPI_Datatype datatype)
{
    API_ENTER();
    BEGIN(fh, "MPI_File_write_at_all_begin",
          file_access_at(fh, offset, (void *)buf, count, datatype, status, 1,
                         "MPI_File_write_at_all_begin"));
}
API_WEAK_ALIAS(File_write_at_all_begin)

API_EXPORT int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    API_ENTER();
    (void)buf;
    return end(fh, status, "MPI_File_write_at_all_begin", "MPI_File_write_at_all_end");
}
API_WEAK_ALIAS(File_write_at_all_end)

API_EXPORT int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count,
                                        MPI_Datatype datatype)
{
    API_ENTER();
    BEGIN(fh, "MPI_File_read_all_begin",
          file_access(fh, -1, buf, count, datatype, status, 0, "MPI_File_read_all_begin"));
}
API_WEAK_ALIAS(File_read_all_begin)

API_EXPORT int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    API_ENTER();
    (void)buf;
    return end(fh, status, "MPI_File_read_all_begin", "MPI_File_read_all_end");
}
API_WEAK_ALIAS(File_read_all_end)

API_EXPORT int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count,
                                         MPI_Datatype datatype)
{
    API_ENTER();
    BEGIN(fh, "MPI_File_write_all_begin",
          file_access(fh, -1, (void *)buf, count, datatype, status, 1,
                      "MPI_File_write_all_begin"));
}
API_WEAK_ALIAS(File_write_all_begin)

API_EXPORT int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    API_ENTER();
    (void)buf;
    return end(fh, status, "MPI_File_write_all_begin", "MPI_File_write_all_end");
}
API_WEAK_ALIAS(File_write_all_end)

API_EXPORT int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count,
                                            MPI_Datatype datatype)
{
    API_ENTER();
    BEGIN(fh, "MPI_File_read_ordered_begin",
          file_access_ordered(fh, buf, count, datatype, status, 0,
                              "MPI_File_read_ordered_begin"));
}
API_WEAK_ALIAS(File_read_ordered_begin)

API_EXPORT int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status)
{
    API_ENTER();
    (void)buf;
    return end(fh, status, "MPI_File_read_ordered_begin", "MPI_File_read_ordered_end");
}
API_WEAK_ALIAS(File_read_ordered_end)

API_EXPORT int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count,
                                             MPI_Datatype datatype)
{
    API_ENTER();
    BEGIN(fh, "MPI_File_write_ordered_begin",
          file_access_ordered(fh, (void *)buf, count, datatype, status, 1,
                              "MPI_File_write_ordered_begin"));
}
API_WEAK_ALIAS(File_write_ordered_begin)

API_EXPORT int PMPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    API_ENTER();
    (void)buf;
    return end(fh, status, "MPI_File_write_ordered_begin", "MPI_File_write_ordered_end");
}
API_WEAK_ALIAS(File_write_ordered_end)
