/* Blocking point-to-point (MPI-3.1 §3.2–3.4, §3.10): the four send modes, receive,
 * send-receive. */
#include "api/api.h"

#include "api/checks.h"
#include "core/p2p.h"

#include <stdint.h>
#include <stdlib.h>

static int blocking_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, send_mode_t mode, const char *func)
{
    state_require_initialized(func);
    API_GET_COMM(c, comm, func);
    p2p_data_t d;
    int rc = check_data(comm, buf, count, datatype, &d, func);
    if (rc == MPI_SUCCESS)
        rc = check_dest_tag(c, dest, tag, func);
    if (rc != MPI_SUCCESS || dest == MPI_PROC_NULL)
        return rc;
    rc = p2p_send_data(c, &d, dest, tag, mode, func);
    if (rc == MPI_ERR_BUFFER)
        return raise_bsend_no_room(comm, d.bytes, func);
    return rc;
}

API_EXPORT int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm)
{
    API_ENTER();
    return blocking_send(buf, count, datatype, dest, tag, comm, MODE_STANDARD, "MPI_Send");
}
API_WEAK_ALIAS(Send)

API_EXPORT int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm)
{
    API_ENTER();
    return blocking_send(buf, count, datatype, dest, tag, comm, MODE_BUFFERED, "MPI_Bsend");
}
API_WEAK_ALIAS(Bsend)

API_EXPORT int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm)
{
    API_ENTER();
    return blocking_send(buf, count, datatype, dest, tag, comm, MODE_SYNC, "MPI_Ssend");
}
API_WEAK_ALIAS(Ssend)

/* Ready mode: the standard lets it behave as a standard send, which is always correct. */
API_EXPORT int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm)
{
    API_ENTER();
    return blocking_send(buf, count, datatype, dest, tag, comm, MODE_READY, "MPI_Rsend");
}
API_WEAK_ALIAS(Rsend)

static int recv_checked(comm_t *c, const p2p_data_t *d, int source, int tag,
                        MPI_Status *status, const char *func)
{
    if (source == MPI_PROC_NULL) {
        status_report_proc_null(status);
        return MPI_SUCCESS;
    }
    MPI_Status local;
    MPI_Status *st = status ? status : &local;
    size_t msg_bytes;
    int rc = p2p_recv_data(c, d, source, tag, st, &msg_bytes);
    if (rc == MPI_ERR_TRUNCATE)
        return err_raise(c->handle, rc, func,
                         "message of %zu bytes from rank %d (tag %d) truncated to the %zu "
                         "bytes of the receive buffer",
                         msg_bytes, st->MPI_SOURCE, st->MPI_TAG, d->bytes);
    if (rc == MPI_ERR_CONVERSION)
        return err_raise(c->handle, rc, func, "%s", proto_conversion_error());
    return rc;
}

API_EXPORT int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm comm, MPI_Status *status)
{
    API_ENTER();
    static const char *const F = "MPI_Recv";
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    p2p_data_t d;
    int rc = check_data(comm, buf, count, datatype, &d, F);
    if (rc == MPI_SUCCESS)
        rc = check_source_tag(c, source, tag, F);
    if (rc != MPI_SUCCESS)
        return rc;
    return recv_checked(c, &d, source, tag, status, F);
}
API_WEAK_ALIAS(Recv)

/* Starts the send half, receives, then completes the send (no deadlock between two ranks
 * exchanging with each other, whatever the message sizes). */
static int sendrecv(comm_t *c, const p2p_data_t *sd, int dest, int stag, const p2p_data_t *rd,
                    int source, int rtag, MPI_Status *status, const char *func)
{
    request_t s;
    request_init_local(&s, REQ_SEND, c);
    request_set_data(&s, sd->buf, sd->bytes, sd->layout, sd->count, NULL);
    s.peer = dest;
    s.tag = stag;
    p2p_start(&s, func);
    int rc = recv_checked(c, rd, source, rtag, status, func);
    p2p_wait(&s);
    return rc;
}

API_EXPORT int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             int dest, int sendtag, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                             MPI_Status *status)
{
    API_ENTER();
    static const char *const F = "MPI_Sendrecv";
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    p2p_data_t sd, rd;
    int rc = check_data(comm, sendbuf, sendcount, sendtype, &sd, F);
    if (rc == MPI_SUCCESS)
        rc = check_dest_tag(c, dest, sendtag, F);
    if (rc == MPI_SUCCESS)
        rc = check_data(comm, recvbuf, recvcount, recvtype, &rd, F);
    if (rc == MPI_SUCCESS)
        rc = check_source_tag(c, source, recvtag, F);
    if (rc != MPI_SUCCESS)
        return rc;
    return sendrecv(c, &sd, dest, sendtag, &rd, source, recvtag, status, F);
}
API_WEAK_ALIAS(Sendrecv)

API_EXPORT int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                                     int sendtag, int source, int recvtag, MPI_Comm comm,
                                     MPI_Status *status)
{
    API_ENTER();
    static const char *const F = "MPI_Sendrecv_replace";
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    p2p_data_t d, sd;
    void *copy;
    int rc = check_replace(comm, c, buf, count, datatype, dest, sendtag, source, recvtag, &d, &sd,
                           &copy, F);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = sendrecv(c, &sd, dest, sendtag, &d, source, recvtag, status, F);
    free(copy);
    return rc;
}
API_WEAK_ALIAS(Sendrecv_replace)
