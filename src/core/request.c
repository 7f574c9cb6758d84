#include "core/request.h"

#include "core/request_cache.h"
#include "datatype/dtype.h"
#include "util/handles.h"

#include <stdlib.h>
#include <string.h>

/* Handles are REQUEST_KIND | index, in a handle table (util/handles.h: chunks that never
 * move, so request_lookup reads it without a lock while another thread adds a request); index
 * 0 is MPI_REQUEST_NULL. A spare request keeps its index (core/request_cache.h), so handles
 * stay small and the table stays as dense as the requests in flight at the peak. */
#define REQUEST_KIND 0x18000000u

handle_table_t request_table = HANDLE_TABLE_INIT(REQUEST_KIND, 1);

void status_set_empty(MPI_Status *st)
{
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    st->metampi_cancelled = 0;
    st->metampi_count = 0;
}

/* Field by field rather than memset: this runs once per message and the op's frame buffer
 * and the status need no clearing (the protocol and completion write them before use). */
void status_report(MPI_Status *dst, const MPI_Status *src)
{
    if (dst) {
        int keep = dst->MPI_ERROR;
        *dst = *src;
        dst->MPI_ERROR = keep;
    }
}

void status_report_proc_null(MPI_Status *dst)
{
    MPI_Status st;
    status_set_empty(&st);
    st.MPI_SOURCE = MPI_PROC_NULL;
    status_report(dst, &st);
}

void request_init_local(request_t *r, req_kind_t kind, comm_t *comm)
{
    proto_op_t *op = &r->op;
    op->state = 0;
    op->cancel_pending = op->finished_early = op->cancelled = 0;
    op->result = 0;
    op->got = op->msg_bytes = 0;
    op->qnext = NULL;
    op->layout = NULL;
    op->cur = NULL;
    op->done = request_op_done;
    r->kind = kind;
    r->complete = 0;
    r->active = r->persistent = r->user_freed = r->posted = 0;
    r->error = MPI_SUCCESS;
    r->handle = MPI_REQUEST_NULL;
    r->comm = comm;
    r->buf = NULL;
    r->bytes = 0;
    r->layout = NULL;
    r->count = 0;
    r->dtype = NULL;
    r->type = 0;
    r->peer = r->tag = 0;
    r->mode = MODE_STANDARD;
    r->greq = NULL;
    r->pair = NULL;
    r->next = NULL;
}

/* Spares come from the calling thread's cache (core/request_cache.h): a pop and the store
 * that publishes the request in its slot; the pool and malloc only when the cache is empty. */
request_t *request_new(req_kind_t kind, comm_t *comm)
{
    req_cache_t *c = &req_cache;
    request_t *r = c->head;
    if (__builtin_expect(r != NULL, 1)) {
        c->head = r->next;
        c->room++;
    } else if (!(r = req_cache_refill())) {
        return NULL;
    }
    int h = r->handle; /* the spare's reserved slot */
    request_init_local(r, kind, comm);
    comm_retain(comm);
    r->handle = h;
    handle_publish(&request_table, h, r);
    return r;
}

request_t *request_lookup(MPI_Request h)
{
    return handle_get(&request_table, h);
}

void request_set_data(request_t *r, void *buf, size_t bytes, const dt_layout_t *layout,
                      size_t count, struct dtype *dtype)
{
    r->buf = buf;
    r->bytes = bytes;
    r->layout = layout;
    r->count = count;
    if (dtype) {
        dtype_retain(dtype);
        r->dtype = dtype;
    }
}

void request_free(request_t *r)
{
    if (r->dtype) {
        dtype_release(r->dtype);
        r->dtype = NULL;
    }
    free(r->greq);
    r->greq = NULL;
    if (r->handle != MPI_REQUEST_NULL) {
        handle_withdraw(&request_table, r->handle); /* the spare keeps the slot */
        comm_release(r->comm);
        req_cache_t *c = &req_cache;
        if (__builtin_expect(c->room > 0, 1)) {
            r->next = c->head;
            c->head = r;
            c->room--;
        } else {
            req_cache_overflow(r);
        }
    }
}

void request_finalize(void)
{
    req_cache_finalize();
}

void request_op_done(proto_op_t *op)
{
    request_t *r = (request_t *)op;
    MPI_Status *st = &r->status;
    st->MPI_ERROR = MPI_SUCCESS;
    if (r->kind == REQ_RECV) {
        st->MPI_SOURCE = op->env.src;
        st->MPI_TAG = op->env.tag;
        st->metampi_count = (long long)op->got;
        st->metampi_cancelled = 0;
        r->error = op->result == PROTO_TRUNCATED    ? MPI_ERR_TRUNCATE
                   : op->result == PROTO_CONVERSION ? MPI_ERR_CONVERSION
                                                    : MPI_SUCCESS;
    } else {
        st->MPI_SOURCE = MPI_ANY_SOURCE;
        st->MPI_TAG = MPI_ANY_TAG;
        st->metampi_count = 0;
        st->metampi_cancelled = op->cancelled;
        r->error = MPI_SUCCESS;
    }
    r->complete = 1;
    if (r->user_freed)
        request_free(r);
}

void request_complete_internal(request_t *r, int err)
{
    status_set_empty(&r->status);
    r->error = err;
    r->complete = 1;
    if (r->user_freed)
        request_free(r);
}

void request_complete_empty(request_t *r, int source)
{
    status_set_empty(&r->status);
    r->status.MPI_SOURCE = source;
    r->error = MPI_SUCCESS;
    r->complete = 1;
}
