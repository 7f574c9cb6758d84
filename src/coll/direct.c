#include "coll/direct.h"

#include "coll/move.h"
#include "coll/trace.h"
#include "core/p2p.h"

#include <stdlib.h>
#include <string.h>

static const char *const FUNC = "internal collective";

/* Two members of an intra-communicator: the case this file serves. */
static int two(const comm_t *c)
{
    return c->size == 2 && !comm_is_inter(c);
}

/* c with both contexts moved to the internal one, as a schedule's view (core/schedule.c) */
static void internal_view(comm_t *v, const comm_t *c)
{
    *v = *c;
    v->recv_ctx = c->recv_ctx + 1;
    v->send_ctx = c->send_ctx + 1;
}

static void post(request_t *r, req_kind_t kind, comm_t *v, const p2p_data_t *d, int peer,
                 int tag)
{
    request_init_local(r, kind, v);
    request_set_data(r, d->buf, d->bytes, d->layout, d->count, NULL);
    r->type = d->type;
    r->peer = peer;
    r->tag = tag;
    p2p_start(r, FUNC);
}

static int wait_for(request_t *r, int rc)
{
    p2p_wait(r);
    return rc != MPI_SUCCESS ? rc : r->error;
}

/* Local copy between typed buffers (what icoll_sched_copy_data does in a schedule). */
static int local_copy(const p2p_data_t *src, const p2p_data_t *dst)
{
    size_t n = src->bytes;
    if (n > dst->bytes)
        return MPI_ERR_TRUNCATE;
    if (n == 0)
        return MPI_SUCCESS;
    if (!src->layout && !dst->layout) {
        memcpy(dst->buf, src->buf, n);
        return MPI_SUCCESS;
    }
    dt_cursor_t in, out;
    if (!src->layout) {
        dt_cursor_init(&out, dst->layout, (uintptr_t)dst->buf, dst->count);
        dt_unpack(&out, src->buf, n);
        return MPI_SUCCESS;
    }
    dt_cursor_init(&in, src->layout, (uintptr_t)src->buf, src->count);
    if (!dst->layout) {
        dt_pack(&in, dst->buf, n);
        return MPI_SUCCESS;
    }
    dt_cursor_init(&out, dst->layout, (uintptr_t)dst->buf, dst->count);
    enum { BOUNCE = 64 * 1024 };
    char *tmp = malloc(n < BOUNCE ? n : BOUNCE);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    for (size_t done = 0; done < n;) {
        size_t k = dt_pack(&in, tmp, n - done < BOUNCE ? n - done : BOUNCE);
        dt_unpack(&out, tmp, k);
        done += k;
    }
    free(tmp);
    return MPI_SUCCESS;
}

/* One block of count elements of dt in an array at buf. */
static p2p_data_t block(const void *buf, int i, size_t count, dtype_t *dt)
{
    return mv_typed(coll_at(buf, (size_t)i * count, dt), count, dt);
}

int coll_direct_bcast(comm_t *c, void *buf, size_t count, dtype_t *dt, int root)
{
    if (!two(c))
        return COLL_DECLINED;
    /* the shared area's two-member broadcast is asked before this level (table.c) */
    p2p_data_t d = mv_typed(buf, count, dt);
    coll_trace_note("direct", "-", d.bytes);
    int tag = comm_next_op(c, COMM_BLOCKING, COMM_OP_BCAST).tag;
    if (!d.bytes)
        return MPI_SUCCESS;
    comm_t v;
    internal_view(&v, c);
    if (c->rank == root)
        return p2p_send_data(&v, &d, 1 - root, tag, MODE_STANDARD, FUNC);
    MPI_Status st;
    size_t got;
    return p2p_recv_data(&v, &d, root, tag, &st, &got);
}

int coll_direct_gather(comm_t *c, const void *sbuf, size_t scount, dtype_t *stype, void *rbuf,
                       size_t rcount, dtype_t *rtype, int root)
{
    if (!two(c))
        return COLL_DECLINED;
    coll_trace_note("direct", "-", c->rank == root ? rcount * (size_t)rtype->size
                                                   : scount * (size_t)stype->size);
    int tag = comm_next_op(c, COMM_BLOCKING, COMM_OP_GATHER).tag;
    comm_t v;
    internal_view(&v, c);
    if (c->rank != root) {
        p2p_data_t d = mv_typed(sbuf, scount, stype);
        return d.bytes ? p2p_send_data(&v, &d, root, tag, MODE_STANDARD, FUNC) : MPI_SUCCESS;
    }
    p2p_data_t r = block(rbuf, 1 - root, rcount, rtype);
    request_t req;
    if (r.bytes)
        post(&req, REQ_RECV, &v, &r, 1 - root, tag);
    int rc = MPI_SUCCESS;
    if (sbuf != COLL_IN_PLACE) {
        p2p_data_t from = mv_typed(sbuf, scount, stype), to = block(rbuf, root, rcount, rtype);
        rc = local_copy(&from, &to);
    }
    return r.bytes ? wait_for(&req, rc) : rc;
}

int coll_direct_scatter(comm_t *c, const void *sbuf, size_t scount, dtype_t *stype, void *rbuf,
                        size_t rcount, dtype_t *rtype, int root)
{
    if (!two(c))
        return COLL_DECLINED;
    coll_trace_note("direct", "-", c->rank == root ? scount * (size_t)stype->size
                                                   : rcount * (size_t)rtype->size);
    int tag = comm_next_op(c, COMM_BLOCKING, COMM_OP_SCATTER).tag;
    comm_t v;
    internal_view(&v, c);
    if (c->rank != root) {
        p2p_data_t d = mv_typed(rbuf, rcount, rtype);
        MPI_Status st;
        size_t got;
        return d.bytes ? p2p_recv_data(&v, &d, root, tag, &st, &got) : MPI_SUCCESS;
    }
    p2p_data_t d = block(sbuf, 1 - root, scount, stype);
    int rc = d.bytes ? p2p_send_data(&v, &d, 1 - root, tag, MODE_STANDARD, FUNC) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && rbuf != COLL_IN_PLACE) {
        p2p_data_t from = block(sbuf, root, scount, stype), to = mv_typed(rbuf, rcount, rtype);
        rc = local_copy(&from, &to);
    }
    return rc;
}

/* The exchange of one block each way, then the own block copied (from != NULL). The receive
 * is posted first, so a blocking rendezvous send cannot wait for a receive that is not
 * there: each member reads the other's data while it waits. */
static int exchange(comm_t *c, comm_op_kind_t kind, const p2p_data_t *out, const p2p_data_t *in,
                    const p2p_data_t *from, const p2p_data_t *to)
{
    int tag = comm_next_op(c, COMM_BLOCKING, kind).tag, other = 1 - c->rank;
    comm_t v;
    internal_view(&v, c);
    request_t req;
    if (in->bytes)
        post(&req, REQ_RECV, &v, in, other, tag);
    int rc = out->bytes ? p2p_send_data(&v, out, other, tag, MODE_STANDARD, FUNC)
                        : MPI_SUCCESS;
    if (from) {
        int crc = local_copy(from, to);
        if (rc == MPI_SUCCESS)
            rc = crc;
    }
    return in->bytes ? wait_for(&req, rc) : rc;
}

int coll_direct_allgather(comm_t *c, const void *sbuf, size_t scount, dtype_t *stype,
                          void *rbuf, size_t rcount, dtype_t *rtype)
{
    if (!two(c))
        return COLL_DECLINED;
    coll_trace_note("direct", "-", 2 * rcount * (size_t)rtype->size);
    int me = c->rank;
    p2p_data_t mine = block(rbuf, me, rcount, rtype), in = block(rbuf, 1 - me, rcount, rtype);
    if (sbuf == COLL_IN_PLACE)
        return exchange(c, COMM_OP_ALLGATHER, &mine, &in, NULL, NULL);
    p2p_data_t out = mv_typed(sbuf, scount, stype);
    return exchange(c, COMM_OP_ALLGATHER, &out, &in, &out, &mine);
}

int coll_direct_alltoall(comm_t *c, const void *sbuf, size_t scount, dtype_t *stype,
                         void *rbuf, size_t rcount, dtype_t *rtype)
{
    if (!two(c) || sbuf == COLL_IN_PLACE)
        return COLL_DECLINED;
    coll_trace_note("direct", "-", rcount * (size_t)rtype->size);
    int me = c->rank;
    p2p_data_t out = block(sbuf, 1 - me, scount, stype), in = block(rbuf, 1 - me, rcount, rtype);
    p2p_data_t from = block(sbuf, me, scount, stype), to = block(rbuf, me, rcount, rtype);
    return exchange(c, COMM_OP_ALLTOALL, &out, &in, &from, &to);
}
