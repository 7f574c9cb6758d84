#include "api/coll_red.h"

int coll_red_check_type_op(MPI_Comm comm, MPI_Datatype datatype, MPI_Op op, dtype_t **dt,
                           op_t **o, const char *func)
{
    int rc = coll_check_type(comm, datatype, dt, func, "datatype");
    return rc != MPI_SUCCESS ? rc : coll_check_op(comm, op, *dt, o, func);
}

int coll_red_check_sendbuf(MPI_Comm comm, const void *sbuf, size_t count, const dtype_t *dt,
                           int in_place_ok, const char *func)
{
    if (sbuf == MPI_IN_PLACE)
        return in_place_ok ? MPI_SUCCESS : coll_raise_in_place(comm, func, "sendbuf");
    if (!sbuf && count > 0 && dt->predefined && dt->size > 0)
        return err_raise(comm, MPI_ERR_BUFFER, func, "sendbuf is NULL but holds %zu elements",
                         count);
    return MPI_SUCCESS;
}

int coll_red_check_recvbuf(MPI_Comm comm, const void *rbuf, size_t count, const dtype_t *dt,
                           const char *func)
{
    if (rbuf == MPI_IN_PLACE)
        return coll_raise_in_place(comm, func, "recvbuf");
    if (!rbuf && count > 0 && dt->predefined && dt->size > 0)
        return err_raise(comm, MPI_ERR_BUFFER, func, "recvbuf is NULL but holds %zu elements",
                         count);
    return MPI_SUCCESS;
}

int coll_red_check_alias(MPI_Comm comm, const void *sbuf, const void *rbuf, size_t count,
                         const char *func)
{
    if (count > 0 && sbuf == rbuf && sbuf != MPI_IN_PLACE)
        return err_raise(comm, MPI_ERR_BUFFER, func,
                         "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
    return MPI_SUCCESS;
}
