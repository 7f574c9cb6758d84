#include "api/coll_move_args.h"

int cm_check_side(MPI_Comm comm, const void *buf, int count, MPI_Datatype type, dtype_t **out,
                  const char *func, const char *bufname, const char *countname,
                  const char *typename)
{
    int rc = coll_check_count(comm, count, func, countname);
    if (rc == MPI_SUCCESS)
        rc = coll_check_type(comm, type, out, func, typename);
    if (rc == MPI_SUCCESS && count > 0 && !buf && (*out)->predefined)
        rc = err_raise(comm, MPI_ERR_BUFFER, func, "%s is NULL but %s is %d", bufname,
                       countname, count);
    return rc;
}

int cm_check_vside(MPI_Comm comm, const void *buf, const int *counts, const int *displs, int n,
                   MPI_Datatype type, dtype_t **out, const char *func, const char *bufname,
                   const char *countsname, const char *displsname, const char *typename)
{
    int rc = coll_check_counts(comm, counts, n, func, countsname);
    if (rc == MPI_SUCCESS)
        rc = coll_check_array(comm, displs, n, func, displsname);
    if (rc == MPI_SUCCESS)
        rc = coll_check_type(comm, type, out, func, typename);
    if (rc == MPI_SUCCESS && !buf && (*out)->predefined)
        for (int i = 0; i < n; i++)
            if (counts[i] > 0)
                return err_raise(comm, MPI_ERR_BUFFER, func, "%s is NULL but %s[%d] is %d",
                                 bufname, countsname, i, counts[i]);
    return rc;
}

int cm_check_not_in_place(MPI_Comm comm, const void *buf, const char *func, const char *arg)
{
    return buf == MPI_IN_PLACE ? coll_raise_in_place(comm, func, arg) : MPI_SUCCESS;
}

int cm_check_aliased(MPI_Comm comm, const void *sbuf, size_t sbytes, const void *rbuf,
                     size_t rbytes, const char *func)
{
    if (sbuf && sbuf == rbuf && sbytes && rbytes)
        return err_raise(comm, MPI_ERR_BUFFER, func,
                         "sendbuf and recvbuf are the same buffer (MPI_IN_PLACE says that)");
    return MPI_SUCCESS;
}
