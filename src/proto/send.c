/* The sending side of the protocols: first frame (EAGER, EAGER_SYNC or RTS), DATA streaming
 * after CTS, the replies that complete a send, and withdrawal (cancel). */
#include "proto/ids.h"
#include "proto/internal.h"

#include "runtime/job.h"

#include <stdio.h>
#include <string.h>

static int is_eager(const proto_op_t *op)
{
    return op->bytes <= proto_peers[op->peer].eager_limit;
}

int proto_send_now(const proto_env_t *env, int peer, const void *data, size_t bytes,
                   char *err, int errlen)
{
    peer_t *p = &proto_peers[peer];
    if (p->qhead || bytes > p->eager_limit || !p->tr)
        return 0;
    f_match_t h = { .kind = F_EAGER, .ctx = env->ctx, .src = env->src, .tag = env->tag };
    f_match_le(&h);
    struct iovec iov[2] = { { &h, sizeof h }, { (void *)data, bytes } };
    return p->tr->send(peer, iov, bytes ? 2 : 1, NULL, err, errlen);
}

/* The transport's packer for typed data: ctx is a cursor at the frame's payload offset. */
static size_t pack_cursor(void *ctx, void *dst, size_t n)
{
    return dt_pack(ctx, dst, n);
}

int proto_send_now_typed(const proto_env_t *env, int peer, const void *base,
                         const dt_layout_t *l, size_t count, size_t bytes, char *err,
                         int errlen)
{
    peer_t *p = &proto_peers[peer];
    if (p->qhead || bytes > p->eager_limit || !p->tr)
        return 0;
    f_match_t h = { .kind = F_EAGER, .ctx = env->ctx, .src = env->src, .tag = env->tag };
    f_match_le(&h);
    struct iovec iov = { &h, sizeof h };
    dt_cursor_t c;
    dt_cursor_init(&c, l, (uintptr_t)base, count);
    tr_packer_t pk = { pack_cursor, &c, bytes };
    return p->tr->send(peer, &iov, 1, &pk, err, errlen);
}

/* Sends header hdr (hdr[0]) followed by n bytes of op's data from packed offset off: an iovec
 * of contiguous data, or typed data packed into the frame by the transport. */
static int send_payload(proto_op_t *op, const transport_t *tr, struct iovec *hdr, size_t off,
                        size_t n, char *err, int errlen)
{
    if (!op->layout) {
        hdr[1] = (struct iovec){ (char *)op->buf + off, n };
        return tr->send(op->peer, hdr, n ? 2 : 1, NULL, err, errlen);
    }
    dt_cursor_t local, *c = op->cur;
    if (!c) { /* a single frame: a cursor for this attempt */
        c = &local;
        dt_cursor_init(c, op->layout, (uintptr_t)op->buf, op->count);
    }
    if (c->pos != off)
        dt_cursor_seek(c, off);
    tr_packer_t pk = { pack_cursor, c, n };
    return tr->send(op->peer, hdr, 1, n ? &pk : NULL, err, errlen);
}

int proto_send_start(proto_op_t *op, char *err, int errlen)
{
    if (!proto_peers[op->peer].tr) {
        snprintf(err, (size_t)errlen, "no transport reaches rank %d", op->peer);
        return -1;
    }
    op->state = OP_SEND_FIRST;
    op->cancelled = op->cancel_pending = op->finished_early = 0;
    op->sent = op->want = 0;
    op->zc_pending = 0;
    op->cur = NULL;
    op->id = 0;
    if (!is_eager(op) || op->sync) /* a reply will name it */
        proto_id_open(op);
    proto_emit_or_queue(op);
    return 0;
}

static int send_first(proto_op_t *op, const transport_t *tr, char *err, int errlen)
{
    f_match_t m = { .ctx = op->env.ctx, .src = op->env.src, .tag = op->env.tag };
    struct iovec iov[2];
    if (!is_eager(op)) {
        m.kind = F_RTS;
        f_rts_typed_t h = { .r = { .m = m, .size = op->bytes, .sreq = op->id,
                                   .addr = (uintptr_t)op->buf } };
        size_t len = sizeof h.r;
        if (op->layout) {
            /* the receiver may read the layout and then the data by iovecs, if ours pay */
            size_t llen;
            const void *lb = dt_layout_bytes(op->layout, &llen);
            if (proto_iov_worthy(op->layout)) {
                h.layout_addr = (uintptr_t)lb;
                h.layout_len = llen;
            }
            h.count = op->count;
            len = sizeof h;
        }
        f_rts_typed_le(&h);
        iov[0] = (struct iovec){ &h, len };
        return tr->send(op->peer, iov, 1, NULL, err, errlen);
    }
    if (!op->sync) {
        m.kind = F_EAGER;
        f_match_le(&m);
        iov[0] = (struct iovec){ &m, sizeof m };
        return send_payload(op, tr, iov, 0, op->bytes, err, errlen);
    }
    m.kind = F_EAGER_SYNC;
    f_eager_sync_t h = { .m = m, .sreq = op->id };
    f_eager_sync_le(&h);
    iov[0] = (struct iovec){ &h, sizeof h };
    return send_payload(op, tr, iov, 0, op->bytes, err, errlen);
}

static void zc_sent(void *ctx)
{
    proto_op_t *op = ctx;
    if (--op->zc_pending == 0 && op->state == OP_STREAM_DRAIN)
        proto_complete(op);
}

/* A DATA frame of at most n bytes from offset op->sent that the transport reads straight
 * from op's buffer (contiguous, or iovecs of a typed buffer whose blocks pay). 1 taken (*n is
 * what it holds), 0 full, -1 failed. */
static int send_data_zc(proto_op_t *op, const peer_t *p, size_t *n, char *err, int errlen)
{
    enum { ZC_IOV = 64 };
    f_data_t h = { .kind = F_DATA, .rreq = op->remote_id, .offset = op->sent };
    f_data_le(&h);
    struct iovec iov[1 + ZC_IOV] = { { &h, sizeof h } };
    int niov = 2;
    dt_cursor_t probe; /* op's cursor moves only when the frame is taken */
    if (!op->layout) {
        iov[1] = (struct iovec){ (char *)op->buf + op->sent, *n };
    } else {
        if (op->cur->pos != op->sent)
            dt_cursor_seek(op->cur, op->sent);
        probe = *op->cur;
        niov = 1 + dt_iov(&probe, iov + 1, ZC_IOV, *n, n);
    }
    int rc = p->tr->send_zc(op->peer, iov, niov, zc_sent, op, err, errlen);
    if (rc == 1) {
        op->zc_pending++;
        if (op->layout)
            *op->cur = probe;
    }
    return rc;
}

/* DATA frames of up to one chunk each, until the receiver's `want` bytes are handed over. */
static int send_stream(proto_op_t *op, const peer_t *p, char *err, int errlen)
{
    int zc = p->tr->send_zc && (!op->layout || proto_iov_worthy(op->layout));
    while (op->sent < op->want) {
        size_t n = op->want - op->sent;
        if (n > p->chunk)
            n = p->chunk;
        if (zc) {
            int rc = send_data_zc(op, p, &n, err, errlen);
            if (rc != 1)
                return rc;
            op->sent += n;
            continue;
        }
        f_data_t h = { .kind = F_DATA, .rreq = op->remote_id, .offset = op->sent };
        f_data_le(&h);
        struct iovec iov[2] = { { &h, sizeof h } };
        int rc = send_payload(op, p->tr, iov, op->sent, n, err, errlen);
        if (rc != 1)
            return rc;
        op->sent += n;
    }
    return 1;
}

int proto_send_pending(proto_op_t *op, char *err, int errlen)
{
    const peer_t *p = &proto_peers[op->peer];
    switch (op->state) {
    case OP_SEND_FIRST:
        return send_first(op, p->tr, err, errlen);
    case OP_STREAM:
        return send_stream(op, p, err, errlen);
    case OP_CTRL: {
        struct iovec iov = { op->ctrl, op->ctrl_len };
        return p->tr->send(op->peer, &iov, 1, NULL, err, errlen);
    }
    default:
        snprintf(err, (size_t)errlen, "internal error: queued operation in state %d", op->state);
        return -1;
    }
}

void proto_after_sent(proto_op_t *op)
{
    if (op->state == OP_SEND_FIRST) {
        if (!is_eager(op))
            op->state = OP_WAIT_RNDV;
        else if (op->sync)
            op->state = OP_WAIT_ACK;
        else
            proto_complete(op);
    } else if (op->state == OP_STREAM) {
        if (op->zc_pending)
            op->state = OP_STREAM_DRAIN; /* zc_sent completes it */
        else
            proto_complete(op);
    }
}

/* The send that a reply of this kind from src names, in the state that takes the reply. */
static proto_op_t *sender_op(int src, uint64_t sreq, int state, const char *kind)
{
    proto_op_t *op = proto_named_op(src, sreq, kind);
    if (op->state != state)
        proto_bad_frame(src, "%s for operation %#llx, which is %s", kind,
                        (unsigned long long)sreq, proto_state_name(op->state));
    return op;
}

void proto_on_sender_reply(int src, const void *frame, size_t len)
{
    uint8_t kind = *(const uint8_t *)frame;
    if (kind == F_CTS) {
        f_cts_t c;
        if (len != sizeof c)
            proto_bad_frame(src, "a CTS of %zu bytes", len);
        memcpy(&c, frame, sizeof c);
        f_cts_le(&c);
        proto_op_t *op = sender_op(src, c.sreq, OP_WAIT_RNDV, "CTS");
        if (c.bytes > op->bytes)
            proto_bad_frame(src, "CTS asks for %llu bytes of a %zu-byte message",
                            (unsigned long long)c.bytes, op->bytes);
        op->remote_id = c.rreq;
        op->want = c.bytes;
        op->sent = 0;
        op->state = OP_STREAM;
        if (op->want == 0) {
            proto_complete(op);
            return;
        }
        if (op->layout)
            proto_stream_cursor(op);
        proto_emit_or_queue(op);
        return;
    }
    f_ctrl_t c;
    if (len != sizeof c)
        proto_bad_frame(src, "a control frame (kind %u) of %zu bytes", kind, len);
    memcpy(&c, frame, sizeof c);
    f_ctrl_le(&c);
    if (kind == F_FIN) {
        proto_op_t *op = proto_named_op(src, c.sreq, "FIN");
        if (op->state != OP_WAIT_RNDV && op->state != OP_WAIT_FIN) /* FIN, or COOP then FIN */
            proto_bad_frame(src, "FIN for operation %#llx, which is %s",
                            (unsigned long long)c.sreq, proto_state_name(op->state));
        proto_complete(op);
    } else if (kind == F_ACK) {
        proto_complete(sender_op(src, c.sreq, OP_WAIT_ACK, "ACK"));
    } else {
        proto_op_t *op = proto_named_op(src, c.sreq, "CANCEL_REPLY");
        if (!op->cancel_pending)
            proto_bad_frame(src, "CANCEL_REPLY for operation %#llx, which asked for no cancel",
                            (unsigned long long)c.sreq);
        /* Withdrawn means never matched: no reply to the first frame has come, and nothing
         * of the op is queued or still read by a transport. */
        if (c.result && (op->finished_early ||
                         (op->state != OP_WAIT_ACK && op->state != OP_WAIT_RNDV)))
            proto_bad_frame(src, "CANCEL_REPLY withdraws operation %#llx, which was matched",
                            (unsigned long long)c.sreq);
        op->cancel_pending = 0;
        if (c.result)
            op->cancelled = 1;
        if (c.result || op->finished_early)
            proto_finish(op);
    }
}

/* Takes op out of its destination's queue (it is there: nothing of it was sent). */
static void unqueue(proto_op_t *op)
{
    peer_t *p = &proto_peers[op->peer];
    proto_op_t *prev = NULL;
    for (proto_op_t *q = p->qhead; q; prev = q, q = q->qnext) {
        if (q != op)
            continue;
        if (prev)
            prev->qnext = q->qnext;
        else
            p->qhead = q->qnext;
        if (p->qtail == q)
            p->qtail = prev;
        return;
    }
}

int proto_cancel_send(proto_op_t *op)
{
    switch (op->state) {
    case OP_SEND_FIRST: /* never left this rank: withdraw locally */
        unqueue(op);
        op->cancelled = 1;
        proto_finish(op);
        return 1;
    case OP_WAIT_ACK:
    case OP_WAIT_RNDV:
        if (!op->cancel_pending) {
            op->cancel_pending = 1;
            f_ctrl_t c = { .kind = F_CANCEL, .ctx = op->env.ctx, .sreq = op->id };
            f_ctrl_le(&c);
            proto_send_ctrl(op->peer, &c, sizeof c);
        }
        return 1;
    case OP_STREAM: /* matched: it completes normally */
    case OP_STREAM_DRAIN:
    case OP_WAIT_FIN:
        return 1;
    default:
        return 0;
    }
}
