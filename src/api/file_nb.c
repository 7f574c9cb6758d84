/* Nonblocking data access (MPI-3.1 §13.4.2-13.4.4, and MPI-3.1's iread_all / iwrite_all /
 * iread_at_all / iwrite_at_all) and split collectives (§13.4.5).
 *
 * Both move the data in the starting call (allowed: an operation may complete before its
 * wait, and a split collective's data may move in its _begin): the request comes back
 * complete with the status, and the _end call returns the status its _begin left. An
 * asynchronous engine (aio or a progress thread) is later work (docs/io.md). */
#include "api/file_access.h"

#include "core/request.h"

/* A complete request carrying st; on an error (already raised), MPI_REQUEST_NULL. */
static int give_request(MPI_File fh, int rc, const MPI_Status *st, MPI_Request *request,
                        const char *func)
{
    if (rc != MPI_SUCCESS) {
        *request = MPI_REQUEST_NULL;
        return rc;
    }
    io_file_t *f = io_lookup(fh);
    /* MPI_Request_free may drop it and MPI_Cancel leaves it to complete (MPI-3.1 §13.6.1,
     * §3.8.4); the access is already done anyway */
    request_t *r = request_new(REQ_IO, f->comm);
    if (!r)
        return file_raise(f, MPI_ERR_NO_MEM, func, "out of memory for a request");
    r->active = 1;
    request_complete_internal(r, MPI_SUCCESS);
    r->status = *st;
    *request = r->handle;
    return MPI_SUCCESS;
}

/* The request pointer is checked before anything moves. */
#define START(fh, request, func, call)                                                         \
    do {                                                                                       \
        state_require_initialized(func);                                                       \
        API_GET_FILE(f_, fh, func);                                                            \
        FILE_CHECK_PTR(f_, request, func, "request");                                          \
        MPI_Status st_;                                                                        \
        MPI_Status *status = &st_;                                                             \
        int rc_ = (call);                                                                      \
        return give_request(fh, rc_, &st_, request, func);                                     \
    } while (0)

API_EXPORT int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                  MPI_Datatype datatype, MPI_Request *request)
{
    API_ENTER();
    START(fh, request, "MPI_File_iread_at",
          file_access_at(fh, offset, buf, count, datatype, status, 0, "MPI_File_iread_at"));
}
API_WEAK_ALIAS(File_iread_at)

API_EXPORT int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                   MPI_Datatype datatype, MPI_Request *request)
{
    API_ENTER();
    START(fh, request, "MPI_File_iwrite_at",
          file_access_at(fh, offset, (void *)buf, count, datatype, status, 1,
                         "MPI_File_iwrite_at"));
}
API_WEAK_ALIAS(File_iwrite_at)

API_EXPORT int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                      MPI_Datatype datatype, MPI_Request *request)
{
    API_ENTER();
    START(fh, request, "MPI_File_iread_at_all",
          file_access_at(fh, offset, buf, count, datatype, status, 0,
                         "MPI_File_iread_at_all"));
}
API_WEAK_ALIAS(File_iread_at_all)

API_EXPORT int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf,
                                       int count, MPI_Datatype datatype, MPI_Request *request)
{
    API_ENTER();
    START(fh, request, "MPI_File_iwrite_at_all",
          file_access_at(fh, offset, (void *)buf, count, datatype, status, 1,
                         "MPI_File_iwrite_at_all"));
}
API_WEAK_ALIAS(File_iwrite_at_all)

API_EXPORT int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                               MPI_Request *request)
{
    API_ENTER();
    START(fh, request, "MPI_File_iread",
          file_access(fh, -1, buf, count, datatype, status, 0, "MPI_File_iread"));
}
API_WEAK_ALIAS(File_iread)

API_EXPORT int PMPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                MPI_Request *request)
{
    API_ENTER();
    START(fh, request, "MPI_File_iwrite",
          file_access(fh, -1, (void *)buf, count, datatype, status, 1, "MPI_File_iwrite"));
}
API_WEAK_ALIAS(File_iwrite)

API_EXPORT int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                   MPI_Request *request)
{
    API_ENTER();
    START(fh, request, "MPI_File_iread_all",
          file_access(fh, -1, buf, count, datatype, status, 0, "MPI_File_iread_all"));
}
API_WEAK_ALIAS(File_iread_all)

API_EXPORT int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count,
                                    MPI_Datatype datatype, MPI_Request *request)
{
    API_ENTER();
    START(fh, request, "MPI_File_iwrite_all",
          file_access(fh, -1, (void *)buf, count, datatype, status, 1, "MPI_File_iwrite_all"));
}
API_WEAK_ALIAS(File_iwrite_all)

API_EXPORT int PMPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                      MPI_Request *request)
{
    API_ENTER();
    START(fh, request, "MPI_File_iread_shared",
          file_access_shared(fh, buf, count, datatype, status, 0, "MPI_File_iread_shared"));
}
API_WEAK_ALIAS(File_iread_shared)

API_EXPORT int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count,
                                       MPI_Datatype datatype, MPI_Request *request)
{
    API_ENTER();
    START(fh, request, "MPI_File_iwrite_shared",
          file_access_shared(fh, (void *)buf, count, datatype, status, 1,
                             "MPI_File_iwrite_shared"));
}
API_WEAK_ALIAS(File_iwrite_shared)
