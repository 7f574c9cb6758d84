/* The receiving side of the protocols: announcing arrived messages to the core, delivering a
 * matched message (copy, remote read, or CTS then DATA), and answering CANCEL. */
#include "proto/internal.h"

#include "runtime/job.h"

#include <stdio.h>
#include <string.h>

void proto_on_match_frame(int src, const void *frame, size_t len)
{
    const char *f = frame;
    f_match_t h;
    if (len < sizeof h)
        proto_bad_frame(src, "short message header");
    memcpy(&h, f, sizeof h);
    proto_msg_t m = { .env = { h.ctx, h.src, h.tag }, .peer = src, .kind = h.kind };
    if (h.kind == F_EAGER) {
        m.size = len - sizeof h;
        m.data = f + sizeof h;
    } else if (h.kind == F_EAGER_SYNC) {
        f_eager_sync_t s;
        if (len < sizeof s)
            proto_bad_frame(src, "short synchronous header");
        memcpy(&s, f, sizeof s);
        m.remote_id = s.sreq;
        m.size = len - sizeof s;
        m.data = f + sizeof s;
    } else {
        f_rts_t r;
        if (len != sizeof r)
            proto_bad_frame(src, "RTS size");
        memcpy(&r, f, sizeof r);
        m.size = r.size;
        m.remote_id = r.sreq;
        m.remote_addr = r.addr;
    }
    proto_up.incoming(&m);
}

static void reply(int peer, uint8_t kind, uint64_t sreq, uint8_t result)
{
    f_ctrl_t c = { .kind = kind, .result = result, .sreq = sreq };
    proto_send_ctrl(peer, &c, sizeof c);
}

/* Rendezvous: one copy by remote read when the transport can; else ask for DATA frames. */
static void recv_rendezvous(proto_op_t *op, const proto_msg_t *m, size_t n)
{
    peer_t *p = &proto_peers[m->peer];
    if (!p->no_rma && p->tr->rma_read) {
        char err[256];
        int rc = n ? p->tr->rma_read(m->peer, m->remote_addr, op->buf, n, err, sizeof err)
                   : TR_RMA_OK;
        if (rc < 0)
            job_abort(1, err);
        if (rc == TR_RMA_OK) {
            op->got = n;
            reply(m->peer, F_FIN, m->remote_id, 0);
            proto_complete(op);
            return;
        }
        p->no_rma = 1;
    }
    op->state = OP_RECV_STREAM;
    op->want = n;
    f_cts_t c = { .kind = F_CTS, .sreq = m->remote_id, .rreq = (uintptr_t)op, .bytes = n };
    proto_send_ctrl(m->peer, &c, sizeof c);
    if (n == 0)
        proto_complete(op);
}

void proto_recv_matched(proto_op_t *op, const proto_msg_t *m)
{
    op->env = m->env;
    op->peer = m->peer;
    op->msg_bytes = m->size;
    op->cancel_pending = 0;
    op->got = 0;
    size_t n = m->size < op->bytes ? (size_t)m->size : op->bytes;
    op->result = m->size > op->bytes ? PROTO_TRUNCATED : PROTO_OK;
    if (m->kind == F_RTS) {
        recv_rendezvous(op, m, n);
        return;
    }
    if (n)
        memcpy(op->buf, m->data, n);
    op->got = n;
    if (m->kind == F_EAGER_SYNC)
        reply(m->peer, F_ACK, m->remote_id, 0);
    proto_complete(op);
}

void proto_on_data(int src, const void *frame, size_t len)
{
    f_data_t d;
    if (len < sizeof d)
        proto_bad_frame(src, "short DATA header");
    memcpy(&d, frame, sizeof d);
    proto_op_t *op = (proto_op_t *)(uintptr_t)d.rreq;
    size_t n = len - sizeof d;
    if (!op || op->state != OP_RECV_STREAM || op->peer != src || d.offset != op->got ||
        n > op->want - op->got)
        proto_bad_frame(src, "DATA for no receive");
    memcpy((char *)op->buf + d.offset, (const char *)frame + sizeof d, n);
    op->got += n;
    if (op->got == op->want)
        proto_complete(op);
}

void proto_on_cancel(int src, const void *frame, size_t len)
{
    f_ctrl_t c;
    if (len != sizeof c)
        proto_bad_frame(src, "CANCEL size");
    memcpy(&c, frame, sizeof c);
    reply(src, F_CANCEL_REPLY, c.sreq, (uint8_t)proto_up.withdraw(src, c.sreq));
}
