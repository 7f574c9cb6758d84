/* Nonblocking and persistent point-to-point (MPI-3.1 §3.7, §3.9): I-sends and receives,
 * *_init, MPI_Start(all). */
#include "api/api.h"

#include "api/checks.h"
#include "core/p2p.h"

#include <stdio.h>

/* Builds the request of a send or receive call after checking its arguments. */
static int make_request(req_kind_t kind, void *buf, int count, MPI_Datatype datatype, int peer,
                        int tag, MPI_Comm comm, send_mode_t mode, int persistent,
                        MPI_Request *request, request_t **out, const char *func)
{
    state_require_initialized(func);
    API_GET_COMM(c, comm, func);
    API_CHECK_PTR(request, comm, func, "request");
    p2p_data_t d;
    int rc = check_data(comm, buf, count, datatype, &d, func);
    if (rc == MPI_SUCCESS)
        rc = kind == REQ_SEND ? check_dest_tag(c, peer, tag, func)
                              : check_source_tag(c, peer, tag, func);
    if (rc != MPI_SUCCESS)
        return rc;
    request_t *r = request_new(kind, c);
    if (!r)
        return err_raise(comm, MPI_ERR_NO_MEM, func, "out of memory for a request");
    p2p_set_data(r, &d);
    r->peer = peer;
    r->tag = tag;
    r->mode = mode;
    r->persistent = persistent;
    *out = r;
    return MPI_SUCCESS;
}

static int start_checked(request_t *r, const char *func)
{
    int rc = p2p_start(r, func);
    if (rc == MPI_ERR_BUFFER)
        return raise_bsend_no_room(r->comm->handle, r->bytes, func);
    return rc;
}

static int start_new(req_kind_t kind, void *buf, int count, MPI_Datatype datatype, int peer,
                     int tag, MPI_Comm comm, send_mode_t mode, MPI_Request *request,
                     const char *func)
{
    request_t *r;
    int rc = make_request(kind, buf, count, datatype, peer, tag, comm, mode, 0, request, &r,
                          func);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = start_checked(r, func);
    if (rc != MPI_SUCCESS) {
        request_free(r);
        return rc;
    }
    *request = r->handle;
    return MPI_SUCCESS;
}

/* The small-message fast path of MPI_Isend, MPI_Irsend and MPI_Irecv (docs/p2p.md): contiguous
 * data of a predefined type to or from a real peer, checked by the fast checks (checks.h),
 * goes into a request without the general description of its data; a send leaves at once
 * when it can (p2p_start_eager). -1 when the call takes the general path (start_new), which
 * checks everything again and reports what is wrong. */
static inline __attribute__((always_inline)) int
start_fast(req_kind_t kind, const void *buf, int count, MPI_Datatype datatype, int peer, int tag,
           MPI_Comm comm, MPI_Request *request, const char *func)
{
    state_require_initialized(func);
    comm_t *c = comm_lookup(comm);
    size_t bytes;
    if (!c || !request || !check_data_fast(buf, count, datatype, &bytes) ||
        !(kind == REQ_SEND ? check_dest_tag_fast(c, peer, tag)
                           : check_source_tag_fast(c, peer, tag)))
        return -1;
    request_t *r = request_new(kind, c);
    if (!r)
        return -1;
    r->buf = (void *)buf;
    r->bytes = bytes;
    r->type = datatype;
    r->peer = peer;
    r->tag = tag;
    /* neither can fail: a standard send or a receive (MPI_ERR_BUFFER is a buffered send's) */
    int rc = kind == REQ_SEND ? p2p_start_eager(r, func) : p2p_start(r, func);
    *request = r->handle;
    return rc;
}

static int init_persistent(req_kind_t kind, void *buf, int count, MPI_Datatype datatype,
                           int peer, int tag, MPI_Comm comm, send_mode_t mode,
                           MPI_Request *request, const char *func)
{
    request_t *r;
    int rc = make_request(kind, buf, count, datatype, peer, tag, comm, mode, 1, request, &r,
                          func);
    if (rc == MPI_SUCCESS)
        *request = r->handle;
    return rc;
}

#define SEND_CALL(Name, mode, start)                                                          \
    API_EXPORT int PMPI_##Name(const void *buf, int count, MPI_Datatype datatype, int dest,   \
                               int tag, MPI_Comm comm, MPI_Request *request)                  \
    {                                                                                          \
        API_ENTER();                                                                           \
        return start(REQ_SEND, (void *)buf, count, datatype, dest, tag, comm, mode, request,  \
                     "MPI_" #Name);                                                            \
    }                                                                                          \
    API_WEAK_ALIAS(Name)

/* Ready mode may behave as standard mode (as MPI_Rsend does): both take the fast path. */
#define FAST_SEND_CALL(Name, mode)                                                            \
    API_EXPORT int PMPI_##Name(const void *buf, int count, MPI_Datatype datatype, int dest,   \
                               int tag, MPI_Comm comm, MPI_Request *request)                  \
    {                                                                                          \
        API_ENTER();                                                                           \
        int rc = start_fast(REQ_SEND, buf, count, datatype, dest, tag, comm, request,         \
                            "MPI_" #Name);                                                     \
        if (rc >= 0)                                                                           \
            return rc;                                                                         \
        return start_new(REQ_SEND, (void *)buf, count, datatype, dest, tag, comm, mode,       \
                         request, "MPI_" #Name);                                               \
    }                                                                                          \
    API_WEAK_ALIAS(Name)

FAST_SEND_CALL(Isend, MODE_STANDARD)
SEND_CALL(Ibsend, MODE_BUFFERED, start_new)
SEND_CALL(Issend, MODE_SYNC, start_new)
FAST_SEND_CALL(Irsend, MODE_READY)
SEND_CALL(Send_init, MODE_STANDARD, init_persistent)
SEND_CALL(Bsend_init, MODE_BUFFERED, init_persistent)
SEND_CALL(Ssend_init, MODE_SYNC, init_persistent)
SEND_CALL(Rsend_init, MODE_READY, init_persistent)

API_EXPORT int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm comm, MPI_Request *request)
{
    API_ENTER();
    int rc = start_fast(REQ_RECV, buf, count, datatype, source, tag, comm, request, "MPI_Irecv");
    if (rc >= 0)
        return rc;
    return start_new(REQ_RECV, buf, count, datatype, source, tag, comm, MODE_STANDARD, request,
                     "MPI_Irecv");
}
API_WEAK_ALIAS(Irecv)

API_EXPORT int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                              MPI_Comm comm, MPI_Request *request)
{
    API_ENTER();
    return init_persistent(REQ_RECV, buf, count, datatype, source, tag, comm, MODE_STANDARD,
                           request, "MPI_Recv_init");
}
API_WEAK_ALIAS(Recv_init)

/* A persistent request that may be started: exists and is inactive. */
static int check_startable(MPI_Request h, request_t **out, const char *func, const char *arg)
{
    request_t *r = request_lookup(h);
    if (!r)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, func,
                         h == MPI_REQUEST_NULL ? "%s is MPI_REQUEST_NULL"
                                               : "%s is not a valid request handle", arg);
    if (!r->persistent)
        return err_raise(r->comm->handle, MPI_ERR_REQUEST, func,
                         "%s is not a persistent request", arg);
    if (r->active)
        return err_raise(r->comm->handle, MPI_ERR_REQUEST, func,
                         "%s is already active (started and not yet completed)", arg);
    *out = r;
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Start(MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Start";
    state_require_initialized(F);
    API_CHECK_PTR(request, MPI_COMM_WORLD, F, "request");
    request_t *r;
    int rc = check_startable(*request, &r, F, "request");
    return rc == MPI_SUCCESS ? start_checked(r, F) : rc;
}
API_WEAK_ALIAS(Start)

API_EXPORT int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    API_ENTER();
    static const char *const F = "MPI_Startall";
    state_require_initialized(F);
    if (count < 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, F, "negative count %d", count);
    if (count > 0)
        API_CHECK_PTR(array_of_requests, MPI_COMM_WORLD, F, "array_of_requests");
    /* all are checked before any starts, so an error starts nothing */
    for (int i = 0; i < count; i++) {
        request_t *r;
        char arg[48];
        snprintf(arg, sizeof arg, "array_of_requests[%d]", i);
        int rc = check_startable(array_of_requests[i], &r, F, arg);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    for (int i = 0; i < count; i++) {
        int rc = start_checked(request_lookup(array_of_requests[i]), F);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Startall)
