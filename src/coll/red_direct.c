/*
 * Blocking Barrier, Reduce, Allreduce, Scan and Exscan between the two members of an
 * intra-communicator,
 * straight over point-to-point: the latency path, without a schedule (and, for data that fits
 * 256 bytes, without an allocation). With two members the scheduled algorithms that the
 * tables pick (dissemination, binomial tree, recursive doubling, either scan) send exactly one
 * message each way (none back to a non-root or to scan's member 0) on the internal context
 * with the operation's tag; this
 * file sends those same messages and computes the same expression, so results are the same
 * bits whichever path a member takes. Each function declines (COLL_DECLINED, nothing
 * done, no tag taken) in every other case: more members, an inter-communicator, another
 * algorithm chosen or forced (shared memory included).
 */
#include "coll/red.h"
#include "coll/trace.h"

#include "core/p2p.h"
#include "datatype/engine/layout.h"

#include <stdlib.h>
#include <string.h>

static const char *const FUNC = "internal collective";

static int two(const comm_t *c)
{
    return c->size == 2 && !comm_is_inter(c);
}

/* c with both contexts moved to the internal one, like a schedule's view of it */
static void internal_view(comm_t *v, const comm_t *c)
{
    *v = *c;
    v->recv_ctx = c->recv_ctx + 1;
    v->send_ctx = c->send_ctx + 1;
}

static int post_recv(request_t *r, comm_t *v, void *buf, size_t count, dtype_t *dt, int peer,
                     int tag)
{
    p2p_data_t d = coll_data(buf, count, dt);
    request_init_local(r, REQ_RECV, v);
    request_set_data(r, d.buf, d.bytes, d.layout, d.count, NULL);
    r->type = d.type;
    r->peer = peer;
    r->tag = tag;
    return p2p_start(r, FUNC);
}

static int send(comm_t *v, const void *buf, size_t count, dtype_t *dt, int peer, int tag)
{
    p2p_data_t d = coll_data(buf, count, dt);
    return p2p_send_data(v, &d, peer, tag, MODE_STANDARD, FUNC);
}

/* One message each way: our data out, theirs into into (receive posted first, so large
 * messages cannot deadlock). */
static int exchange(comm_t *v, const void *out, void *into, size_t count, dtype_t *dt,
                    int peer, int tag)
{
    request_t r;
    int rc = post_recv(&r, v, into, count, dt, peer, tag);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = send(v, out, count, dt, peer, tag);
    p2p_wait(&r);
    return rc != MPI_SUCCESS ? rc : r.error;
}

/* A temporary of count elements of dt: in the caller's small buffer when it fits. */
typedef struct scratch {
    max_align_t small[256 / sizeof(max_align_t)];
    char *heap;
} scratch_t;

static void *scratch(scratch_t *sc, size_t count, dtype_t *dt)
{
    size_t span = (count - 1) * coll_extent(dt) + (size_t)(dt->true_ub - dt->true_lb);
    char *p = span <= sizeof sc->small ? (char *)sc->small : (sc->heap = malloc(span));
    return p ? p - dt->true_lb : NULL;
}

/* dst = src, count elements of dt in both (distinct buffers). */
static int local_copy(const void *src, void *dst, size_t count, dtype_t *dt)
{
    p2p_data_t a = coll_data(src, count, dt), b = coll_data(dst, count, dt);
    if (!a.layout) {
        memcpy(b.buf, a.buf, a.bytes);
        return MPI_SUCCESS;
    }
    enum { BOUNCE = 64 * 1024 };
    char *tmp = malloc(a.bytes < BOUNCE ? a.bytes : BOUNCE);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    dt_cursor_t in, out;
    dt_cursor_init(&in, a.layout, (uintptr_t)a.buf, a.count);
    dt_cursor_init(&out, b.layout, (uintptr_t)b.buf, b.count);
    for (size_t done = 0; done < a.bytes;) {
        size_t k = dt_pack(&in, tmp, a.bytes - done < BOUNCE ? a.bytes - done : BOUNCE);
        dt_unpack(&out, tmp, k);
        done += k;
    }
    free(tmp);
    return MPI_SUCCESS;
}

int red_direct_barrier(comm_t *c)
{
    if (!two(c) || red_barrier_shm(2))
        return COLL_DECLINED;
    coll_trace_note("direct", "-", 0);
    int tag = comm_next_op(c, COMM_BLOCKING, COMM_OP_BARRIER).tag;
    comm_t v;
    internal_view(&v, c);
    request_t r;
    request_init_local(&r, REQ_RECV, &v);
    r.peer = 1 - c->rank;
    r.tag = tag;
    int rc = p2p_start(&r, FUNC);
    if (rc != MPI_SUCCESS)
        return rc;
    p2p_data_t none = { 0 };
    rc = p2p_send_data(&v, &none, 1 - c->rank, tag, MODE_STANDARD, FUNC);
    p2p_wait(&r);
    return rc != MPI_SUCCESS ? rc : r.error;
}

/* red_reduce_binomial with two members: the other member sends, the root combines
 * x(root) op x(other) (commutative ops; for the others the root is 0). */
int red_direct_reduce(comm_t *c, const void *sbuf, void *rbuf, size_t count, dtype_t *dt,
                      op_t *op, int root)
{
    if (!two(c) || red_reduce_shm(2) || red_reduce_choice(2, count, dt) != RED_R_BINOMIAL ||
        (!op->commute && root != 0))
        return COLL_DECLINED;
    coll_trace_note("direct", "-", count * (size_t)dt->size);
    int tag = comm_next_op(c, COMM_BLOCKING, COMM_OP_REDUCE).tag;
    if (count == 0)
        return MPI_SUCCESS;
    comm_t v;
    internal_view(&v, c);
    if (c->rank != root)
        return send(&v, sbuf, count, dt, root, tag);
    const void *in = sbuf == COLL_IN_PLACE ? rbuf : sbuf;
    scratch_t sc = { .heap = NULL };
    void *into = rbuf;
    if (in == rbuf && !(into = scratch(&sc, count, dt)))
        return MPI_ERR_NO_MEM;
    request_t r;
    int rc = post_recv(&r, &v, into, count, dt, 1 - root, tag);
    if (rc == MPI_SUCCESS) {
        p2p_wait(&r);
        rc = r.error;
    }
    if (rc == MPI_SUCCESS)
        rc = op_apply(op, in, into, count, dt);
    if (rc == MPI_SUCCESS && into != rbuf)
        rc = local_copy(into, rbuf, count, dt);
    free(sc.heap);
    return rc;
}

/* red_allreduce_rd with two members: both send their operand, both compute x0 op x1. */
int red_direct_allreduce(comm_t *c, const void *sbuf, void *rbuf, size_t count, dtype_t *dt,
                         op_t *op)
{
    if (!two(c) || red_allreduce_shm(2) ||
        red_allreduce_choice(2, count, dt, op) != RED_AR_RD)
        return COLL_DECLINED;
    coll_trace_note("direct", "-", count * (size_t)dt->size);
    int tag = comm_next_op(c, COMM_BLOCKING, COMM_OP_ALLREDUCE).tag;
    if (count == 0)
        return MPI_SUCCESS;
    comm_t v;
    internal_view(&v, c);
    const void *in = sbuf == COLL_IN_PLACE ? rbuf : sbuf;
    int me = c->rank, inplace = in == rbuf;
    scratch_t sc = { .heap = NULL };
    void *tmp = NULL;
    if ((me == 1 || inplace) && !(tmp = scratch(&sc, count, dt)))
        return MPI_ERR_NO_MEM;
    /* member 0 without MPI_IN_PLACE: x1 straight into rbuf, rbuf = x0 op rbuf */
    int rc = exchange(&v, in, tmp ? tmp : rbuf, count, dt, 1 - me, tag);
    if (rc == MPI_SUCCESS) {
        if (me == 0 && !inplace) {
            rc = op_apply(op, in, rbuf, count, dt);
        } else if (me == 0) { /* tmp = x0 op x1, then home */
            rc = op_apply(op, rbuf, tmp, count, dt);
            if (rc == MPI_SUCCESS)
                rc = local_copy(tmp, rbuf, count, dt);
        } else {
            if (!inplace)
                rc = local_copy(in, rbuf, count, dt);
            if (rc == MPI_SUCCESS)
                rc = op_apply(op, tmp, rbuf, count, dt);
        }
    }
    free(sc.heap);
    return rc;
}

/* Scan/Exscan with two members (recursive doubling and the chain alike): member 0 sends its
 * operand; member 1 receives it and computes x0 op x1 (Scan) or keeps x0 (Exscan). */
int red_direct_scan(comm_t *c, const void *sbuf, void *rbuf, size_t count, dtype_t *dt,
                    op_t *op, int excl)
{
    if (!two(c))
        return COLL_DECLINED;
    coll_trace_note("direct", "-", count * (size_t)dt->size);
    int tag = comm_next_op(c, COMM_BLOCKING, excl ? COMM_OP_EXSCAN : COMM_OP_SCAN).tag;
    if (count == 0)
        return MPI_SUCCESS;
    comm_t v;
    internal_view(&v, c);
    const void *in = sbuf == COLL_IN_PLACE ? rbuf : sbuf;
    if (c->rank == 0) {
        int rc = send(&v, in, count, dt, 1, tag);
        if (rc == MPI_SUCCESS && !excl && in != rbuf)
            rc = local_copy(in, rbuf, count, dt);
        return rc;
    }
    scratch_t sc = { .heap = NULL };
    void *into = rbuf;
    if (!excl && !(into = scratch(&sc, count, dt)))
        return MPI_ERR_NO_MEM;
    request_t r;
    int rc = post_recv(&r, &v, into, count, dt, 0, tag);
    if (rc == MPI_SUCCESS) {
        p2p_wait(&r);
        rc = r.error;
    }
    if (rc == MPI_SUCCESS && !excl && in != rbuf)
        rc = local_copy(in, rbuf, count, dt);
    if (rc == MPI_SUCCESS && !excl)
        rc = op_apply(op, into, rbuf, count, dt);
    free(sc.heap);
    return rc;
}
