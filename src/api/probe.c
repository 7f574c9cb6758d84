/* Probing and matched receives (MPI-3.1 §3.8): Probe, Iprobe, Mprobe, Improbe, Mrecv,
 * Imrecv. */
#include "api/api.h"

#include "api/checks.h"
#include "core/message.h"
#include "core/p2p.h"

/* Probe, Iprobe (matched 0) and Mprobe, Improbe (matched 1: take the message into a handle). */
static int probe(int source, int tag, MPI_Comm comm, int *flag, int matched,
                 MPI_Message *message, MPI_Status *status, int wait, const char *func)
{
    state_require_initialized(func);
    API_GET_COMM(c, comm, func);
    if (!wait)
        API_CHECK_PTR(flag, comm, func, "flag");
    if (matched)
        API_CHECK_PTR(message, comm, func, "message");
    int rc = check_source_tag(c, source, tag, func);
    if (rc != MPI_SUCCESS)
        return rc;
    if (flag)
        *flag = 1;
    if (source == MPI_PROC_NULL) {
        if (message)
            *message = MPI_MESSAGE_NO_PROC;
        status_report_proc_null(status);
        return MPI_SUCCESS;
    }
    if (!matched) {
        if (wait)
            p2p_probe(c, source, tag, status);
        else
            p2p_iprobe(c, source, tag, flag, status);
        return MPI_SUCCESS;
    }
    unexpected_t *u = wait ? p2p_mprobe(c, source, tag, status)
                           : p2p_improbe(c, source, tag, status);
    if (!u) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    *message = message_new(u, c);
    if (*message == MPI_MESSAGE_NULL)
        return err_raise(comm, MPI_ERR_NO_MEM, func, "out of memory for a message handle");
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    API_ENTER();
    return probe(source, tag, comm, NULL, 0, NULL, status, 1, "MPI_Probe");
}
API_WEAK_ALIAS(Probe)

API_EXPORT int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    API_ENTER();
    return probe(source, tag, comm, flag, 0, NULL, status, 0, "MPI_Iprobe");
}
API_WEAK_ALIAS(Iprobe)

API_EXPORT int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                           MPI_Status *status)
{
    API_ENTER();
    return probe(source, tag, comm, NULL, 1, message, status, 1, "MPI_Mprobe");
}
API_WEAK_ALIAS(Mprobe)

API_EXPORT int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag,
                            MPI_Message *message, MPI_Status *status)
{
    API_ENTER();
    return probe(source, tag, comm, flag, 1, message, status, 0, "MPI_Improbe");
}
API_WEAK_ALIAS(Improbe)

/* Takes the message behind *message for a matched receive into request r's buffer. Sets
 * *u NULL for MPI_MESSAGE_NO_PROC. */
static int take_message(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                        unexpected_t **u, comm_t **c, p2p_data_t *d, const char *func)
{
    API_CHECK_PTR(message, MPI_COMM_WORLD, func, "message");
    *u = NULL;
    *c = NULL;
    if (*message == MPI_MESSAGE_NO_PROC)
        return check_data(MPI_COMM_WORLD, buf, count, datatype, d, func);
    if (*message == MPI_MESSAGE_NULL)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, func, "message is MPI_MESSAGE_NULL");
    comm_t *mc;
    unexpected_t *m = message_take(*message, &mc);
    if (!m)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, func,
                         "message (0x%x) is not a valid message handle", (unsigned)*message);
    int rc = check_data(mc->handle, buf, count, datatype, d, func);
    if (rc != MPI_SUCCESS) {
        *message = message_new(m, mc); /* an error loses nothing: the handle stays valid */
        comm_release(mc);
        return rc;
    }
    *u = m;
    *c = mc;
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                          MPI_Status *status)
{
    API_ENTER();
    static const char *const F = "MPI_Mrecv";
    state_require_initialized(F);
    unexpected_t *u;
    comm_t *c;
    p2p_data_t d;
    int rc = take_message(buf, count, datatype, message, &u, &c, &d, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!u) {
        *message = MPI_MESSAGE_NULL;
        status_report_proc_null(status);
        return MPI_SUCCESS;
    }
    request_t r;
    request_init_local(&r, REQ_RECV, c);
    request_set_data(&r, d.buf, d.bytes, d.layout, d.count, NULL);
    r.type = d.type;
    r.active = 1;
    r.op.buf = d.buf;
    r.op.bytes = d.bytes;
    r.op.layout = d.layout;
    r.op.count = d.count;
    match_deliver(&r, u);
    p2p_wait(&r);
    status_report(status, &r.status);
    if (r.error == MPI_ERR_TRUNCATE)
        rc = err_raise(c->handle, r.error, F,
                       "message of %zu bytes from rank %d (tag %d) truncated to the %zu "
                       "bytes of the receive buffer",
                       r.op.msg_bytes, r.status.MPI_SOURCE, r.status.MPI_TAG, d.bytes);
    else
        rc = r.error;
    comm_release(c);
    return rc;
}
API_WEAK_ALIAS(Mrecv)

API_EXPORT int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                           MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Imrecv";
    state_require_initialized(F);
    API_CHECK_PTR(request, MPI_COMM_WORLD, F, "request");
    unexpected_t *u;
    comm_t *c;
    p2p_data_t d;
    int rc = take_message(buf, count, datatype, message, &u, &c, &d, F);
    if (rc != MPI_SUCCESS)
        return rc;
    request_t *r = request_new(REQ_RECV, c ? c : comm_lookup(MPI_COMM_WORLD));
    if (u) {
        if (!r)
            *message = message_new(u, c);
        comm_release(c); /* the request (or the message again) holds its own reference */
    }
    if (!r)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, F, "out of memory for a request");
    p2p_set_data(r, &d);
    r->op.buf = d.buf;
    r->op.bytes = d.bytes;
    r->op.layout = d.layout;
    r->op.count = d.count;
    r->active = 1;
    *request = r->handle;
    *message = MPI_MESSAGE_NULL;
    if (!u) {
        request_complete_empty(r, MPI_PROC_NULL);
        return MPI_SUCCESS;
    }
    match_deliver(r, u);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Imrecv)
