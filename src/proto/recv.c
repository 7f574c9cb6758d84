/* The receiving side of the protocols: announcing arrived messages to the core, delivering a
 * matched message (copy, remote read, or CTS then DATA), and answering CANCEL. */
#include "proto/ids.h"
#include "proto/internal.h"

#include "datatype/engine/convert.h"
#include "datatype/engine/packed_arch.h"
#include "runtime/job.h"
#include "runtime/peer_arch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void proto_on_match_frame(int src, const void *frame, size_t len)
{
    const char *f = frame;
    f_match_t h;
    if (len < sizeof h)
        proto_bad_frame(src, "a message header of %zu bytes", len);
    memcpy(&h, f, sizeof h);
    f_match_le(&h);
    proto_msg_t m = { .env = { h.ctx, h.src, h.tag }, .peer = src, .kind = h.kind };
    if (h.kind == F_EAGER) {
        m.size = len - sizeof h;
        m.data = f + sizeof h;
    } else if (h.kind == F_EAGER_SYNC) {
        f_eager_sync_t s;
        if (len < sizeof s)
            proto_bad_frame(src, "a synchronous message header of %zu bytes", len);
        memcpy(&s, f, sizeof s);
        f_eager_sync_le(&s);
        m.remote_id = s.sreq;
        m.size = len - sizeof s;
        m.data = f + sizeof s;
    } else {
        f_rts_typed_t r = { .layout_len = 0 };
        if (len != sizeof r.r && len != sizeof r)
            proto_bad_frame(src, "an RTS of %zu bytes", len);
        memcpy(&r, f, len);
        f_rts_typed_le(&r);
        if (r.r.size > INT64_MAX) /* MPI counts it in MPI_Count */
            proto_bad_frame(src, "an RTS for a message of %llu bytes",
                            (unsigned long long)r.r.size);
        m.size = r.r.size;
        m.remote_id = r.r.sreq;
        m.remote_addr = r.r.addr;
        m.typed = len == sizeof r;
        m.layout_addr = r.layout_addr;
        m.layout_len = r.layout_len;
        m.count = r.count;
    }
    proto_up.incoming(&m);
}

static void reply(int peer, uint8_t kind, uint64_t sreq, uint8_t result)
{
    f_ctrl_t c = { .kind = kind, .result = result, .sreq = sreq };
    f_ctrl_le(&c);
    proto_send_ctrl(peer, &c, sizeof c);
}

/* Completes a receive: a receive of MPI_PACKED whose header went first (packed_prefix) gets
 * its buffer back, the header counted among the bytes placed. */
static void recv_done(proto_op_t *op)
{
    if (__builtin_expect(op->prefix != 0, 0)) {
        op->buf = (char *)op->buf - op->prefix;
        op->bytes += op->prefix;
        if (op->prefix == PACKED_ARCH_HEADER)
            op->got += op->prefix;
        op->prefix = 0;
    }
    proto_complete(op);
}

/* A layout the receiver reads from the sender is no bigger than this (a sanity bound: real
 * layouts take bytes to a few MiB, for indexed types of many blocks). */
#define REMOTE_LAYOUT_MAX ((uint64_t)1 << 30)
/* Iovecs per side and remote read call. */
enum { RMA_BATCH = 1024 };

/* Cuts iov[0..*n) to its first `bytes` bytes. */
static void iov_trim(struct iovec *iov, int *n, size_t bytes)
{
    int k = 0;
    for (; k < *n && bytes; k++) {
        if (iov[k].iov_len > bytes)
            iov[k].iov_len = bytes;
        bytes -= iov[k].iov_len;
    }
    *n = k;
}

/* Reads the first n bytes of message m into op by remote iovecs: the receiver's from op's
 * cursor (or its contiguous buffer), the sender's from a cursor over the sender's layout,
 * read from its memory first (or its contiguous buffer). TR_RMA_OK, or TR_RMA_UNSUPPORTED
 * (the caller falls back to DATA frames, which rewrite whatever was read). */
static int rma_get(proto_op_t *op, const proto_msg_t *m, size_t n)
{
    const transport_t *tr = proto_peers[m->peer].tr;
    char err[256];
    void *blob = NULL;
    const dt_layout_t *rl = NULL;
    dt_cursor_t rc;
    int rcode = TR_RMA_OK;
    if (m->typed) {
        uint64_t want;
        if (m->layout_len < 8 || m->layout_len > REMOTE_LAYOUT_MAX)
            proto_bad_frame(m->peer, "an RTS names a datatype layout of %llu bytes",
                            (unsigned long long)m->layout_len);
        blob = malloc((size_t)m->layout_len);
        if (!blob)
            job_abort(1, "out of memory for a sender's datatype layout");
        struct iovec li = { blob, (size_t)m->layout_len };
        struct iovec ri = { (void *)(uintptr_t)m->layout_addr, (size_t)m->layout_len };
        rcode = tr->rma_readv(m->peer, &li, 1, &ri, 1, err, sizeof err);
        if (rcode == TR_RMA_OK) {
            rl = dt_layout_check(blob, (size_t)m->layout_len);
            if (!rl || __builtin_mul_overflow((uint64_t)dt_layout_size(rl), m->count, &want) ||
                want != m->size) {
                free(blob);
                proto_bad_frame(m->peer, "the datatype layout an RTS names is inconsistent");
            }
            dt_cursor_init(&rc, rl, (uintptr_t)m->remote_addr, (size_t)m->count);
        }
    }
    struct iovec liov[RMA_BATCH], riov[RMA_BATCH];
    dt_cursor_t lc;
    if (op->layout)
        dt_cursor_init(&lc, op->layout, (uintptr_t)op->buf, op->count);
    for (size_t done = 0; rcode == TR_RMA_OK && done < n;) {
        size_t rbytes, lbytes;
        int nr = 1, nl = 1;
        if (rl) {
            nr = dt_iov(&rc, riov, RMA_BATCH, n - done, &rbytes);
        } else {
            riov[0] = (struct iovec){ (void *)(uintptr_t)(m->remote_addr + done), n - done };
            rbytes = n - done;
        }
        if (op->layout) {
            nl = dt_iov(&lc, liov, RMA_BATCH, rbytes, &lbytes);
        } else {
            liov[0] = (struct iovec){ (char *)op->buf + done, rbytes };
            lbytes = rbytes;
        }
        if (lbytes < rbytes) { /* our side ran out of iovecs first */
            iov_trim(riov, &nr, lbytes);
            if (rl)
                dt_cursor_seek(&rc, done + lbytes);
        }
        rcode = tr->rma_readv(m->peer, liov, nl, riov, nr, err, sizeof err);
        done += lbytes;
    }
    free(blob);
    if (rcode < 0)
        job_abort(1, err);
    return rcode;
}

/* Asks the sender of m's rendezvous for n bytes as DATA frames to op. */
static void send_cts(const proto_msg_t *m, const proto_op_t *op, size_t n)
{
    f_cts_t c = { .kind = F_CTS, .sreq = m->remote_id, .rreq = op->id, .bytes = n };
    f_cts_le(&c);
    proto_send_ctrl(m->peer, &c, sizeof c);
}

/* Rendezvous: one copy by remote read when the transport can and the blocks on both sides
 * are big enough for iovecs; else ask for DATA frames. */
static void recv_rendezvous(proto_op_t *op, const proto_msg_t *m, size_t n)
{
    peer_t *p = &proto_peers[m->peer];
    int iovs_pay = (!m->typed || m->layout_addr) && (!op->layout || proto_iov_worthy(op->layout));
    if (!p->no_rma && p->tr->rma_readv && iovs_pay) {
        if (proto_coop_start(op, m, n))
            return; /* done: copied, FIN sent (coop.c) */
        if ((n ? rma_get(op, m, n) : TR_RMA_OK) == TR_RMA_OK) {
            if (n)
                p->rma_ok = 1;
            op->got = n;
            reply(m->peer, F_FIN, m->remote_id, 0);
            recv_done(op);
            return;
        }
        p->no_rma = 1;
    }
    op->state = OP_RECV_STREAM;
    op->want = n;
    if (n) { /* DATA frames will name it */
        proto_id_open(op);
        if (op->layout)
            proto_stream_cursor(op);
    }
    send_cts(m, op, n);
    if (n == 0)
        recv_done(op);
}

/* ---- messages from a peer of another architecture ----------------------------------------
 * Receiver makes right (docs/heterogeneity-conversion.md): the sender sent its native packed
 * bytes; they pass through the converter into the receive buffer, eagerly from the frame or
 * from DATA frames (never by remote read or placement, which would land unconverted bytes).
 * Sizes in the protocol (message size, CTS bytes, DATA offsets) are the sender's; op->got
 * becomes the receiver's bytes when the conversion ends. */

static char conversion_error[512];

const char *proto_conversion_error(void)
{
    return conversion_error;
}

/* Ends a converted receive: the bytes placed, and the first element that did not fit. */
static void converted(proto_op_t *op, dt_conv_t *cv)
{
    char why[300], from[96], to[96];
    if (dt_conv_failure(cv, why, sizeof why)) {
        op->result = PROTO_CONVERSION;
        snprintf(conversion_error, sizeof conversion_error,
                 "message from rank %d, %s, to rank %d, %s: %s", op->peer,
                 arch_describe(peer_arch(op->peer), from, sizeof from), proto_my_rank,
                 arch_describe(arch_local(), to, sizeof to), why);
    }
    op->got = dt_conv_native_bytes(cv);
}

static void stream_converted(proto_op_t *op)
{
    converted(op, op->conv);
    free(op->conv);
    op->conv = NULL;
    proto_complete(op);
}

/* A receive of MPI_PACKED from a peer of another architecture: its bytes stay the sender's,
 * and MPI_Unpack learns whose they are from the header naming the sender, written first; the
 * message lands after it by the usual paths, and recv_done gives the buffer back. An empty
 * message gets no header (nothing to unpack); a buffer too small for the header receives
 * nothing (truncated). */
static void packed_prefix(proto_op_t *op, const proto_msg_t *m, const arch_desc_t *from)
{
    if (m->size == 0)
        return;
    size_t h = PACKED_ARCH_HEADER;
    if (op->bytes < h)
        h = op->bytes;
    else
        packed_arch_write_of(from, op->buf);
    op->buf = (char *)op->buf + h;
    op->bytes -= h;
    op->prefix = (unsigned)h;
    op->msg_bytes = m->size + PACKED_ARCH_HEADER; /* what the receive needs */
}

/* Delivers m into op when its sender's architecture differs from ours; 0 when it does not
 * (or op holds raw or packed bytes) and the usual paths apply. */
static int recv_converted(proto_op_t *op, const proto_msg_t *m)
{
    const arch_desc_t *from = peer_arch(m->peer);
    const dt_layout_t *l;
    uintptr_t base;
    size_t count;
    if (arch_same(from, arch_local()))
        return 0;
    int view = proto_up.typemap(op, &l, &base, &count);
    if (view == 1)
        packed_prefix(op, m, from);
    if (view != 0)
        return 0;
    uint64_t cap = dt_conv_stream_size(l, from, count);
    size_t n = m->size < cap ? (size_t)m->size : (size_t)cap;
    op->result = m->size > cap ? PROTO_TRUNCATED : PROTO_OK;
    if (m->kind == F_RTS) {
        if (!(op->conv = malloc(sizeof *op->conv)))
            job_abort(1, "out of memory for a conversion");
        dt_conv_init(op->conv, from, l, base, count);
        op->state = OP_RECV_STREAM;
        op->want = n;
        if (n)
            proto_id_open(op);
        send_cts(m, op, n);
        if (n == 0)
            stream_converted(op);
        return 1;
    }
    dt_conv_t cv;
    dt_conv_init(&cv, from, l, base, count);
    dt_conv_unpack(&cv, m->data, n);
    converted(op, &cv);
    if (m->kind == F_EAGER_SYNC)
        reply(m->peer, F_ACK, m->remote_id, 0);
    proto_complete(op);
    return 1;
}

void proto_recv_matched(proto_op_t *op, const proto_msg_t *m)
{
    op->env = m->env;
    op->peer = m->peer;
    op->msg_bytes = m->size;
    op->cancel_pending = 0;
    op->got = 0;
    op->id = 0;
    op->cur = NULL;
    op->conv = NULL;
    op->prefix = 0;
    /* one predictable branch in a job of one architecture */
    if (__builtin_expect(!peer_arch_all_same(), 0) && recv_converted(op, m))
        return;
    size_t n = m->size < op->bytes ? (size_t)m->size : op->bytes;
    op->result = m->size > op->bytes ? PROTO_TRUNCATED : PROTO_OK;
    if (m->kind == F_RTS) {
        recv_rendezvous(op, m, n);
        return;
    }
    if (op->layout) {
        dt_cursor_t c;
        dt_cursor_init(&c, op->layout, (uintptr_t)op->buf, op->count);
        dt_unpack(&c, m->data, n);
    } else if (n) {
        memcpy(op->buf, m->data, n);
    }
    op->got = n;
    if (m->kind == F_EAGER_SYNC)
        reply(m->peer, F_ACK, m->remote_id, 0);
    recv_done(op);
}

/* The receive that DATA frame d from src (body of n bytes) continues. */
static proto_op_t *data_op(int src, const f_data_t *d, size_t n)
{
    proto_op_t *op = proto_named_op(src, d->rreq, "DATA");
    if (op->state != OP_RECV_STREAM)
        proto_bad_frame(src, "DATA for operation %#llx, which is %s",
                        (unsigned long long)d->rreq, proto_state_name(op->state));
    if (d->offset != op->got || n > op->want - op->got)
        proto_bad_frame(src,
                        "DATA of %zu bytes at offset %llu for operation %#llx, which has %zu of "
                        "%zu bytes",
                        n, (unsigned long long)d->offset, (unsigned long long)d->rreq, op->got,
                        op->want);
    return op;
}

void proto_on_data(int src, const void *frame, size_t len)
{
    f_data_t d;
    if (len < sizeof d)
        proto_bad_frame(src, "a DATA frame of %zu bytes", len);
    memcpy(&d, frame, sizeof d);
    f_data_le(&d);
    size_t n = len - sizeof d;
    proto_op_t *op = data_op(src, &d, n);
    if (op->conv) {
        dt_conv_unpack(op->conv, (const char *)frame + sizeof d, n);
        op->got += n;
        if (op->got == op->want)
            stream_converted(op);
        return;
    }
    if (!op->layout) {
        memcpy((char *)op->buf + d.offset, (const char *)frame + sizeof d, n);
    } else {
        if (op->cur->pos != d.offset)
            dt_cursor_seek(op->cur, (size_t)d.offset);
        dt_unpack(op->cur, (const char *)frame + sizeof d, n);
    }
    op->got += n;
    if (op->got == op->want)
        recv_done(op);
}

/* The DATA body being placed continues at op->got + op->placing. */
static int place_next(void *ctx, struct iovec *iov, int max, size_t bytes)
{
    proto_op_t *op = ctx;
    if (!op->layout) {
        iov[0] = (struct iovec){ (char *)op->buf + op->got + op->placing, bytes };
        op->placing += bytes;
        return 1;
    }
    size_t covered;
    int n = dt_iov(op->cur, iov, max, bytes, &covered);
    op->placing += covered;
    return n;
}

static void place_done(void *ctx)
{
    proto_op_t *op = ctx;
    op->got += op->placing;
    op->placing = 0;
    if (op->got == op->want)
        recv_done(op);
}

int proto_place(int src, const void *head, size_t head_len, size_t body_len, tr_sink_t *sink)
{
    f_data_t d;
    if (head_len != sizeof d || *(const uint8_t *)head != F_DATA)
        return 0;
    memcpy(&d, head, sizeof d);
    f_data_le(&d);
    proto_op_t *op = data_op(src, &d, body_len);
    if (op->conv)
        return 0; /* converted from the whole frame */
    if (op->layout && !proto_iov_worthy(op->layout))
        return 0; /* small blocks: unpacked from the whole frame */
    if (op->layout && op->cur->pos != d.offset)
        dt_cursor_seek(op->cur, (size_t)d.offset);
    op->placing = 0;
    *sink = (tr_sink_t){ place_next, place_done, op };
    return 1;
}

void proto_on_cancel(int src, const void *frame, size_t len)
{
    f_ctrl_t c = proto_ctrl_frame(src, frame, len, "a CANCEL");
    reply(src, F_CANCEL_REPLY, c.sreq, (uint8_t)proto_up.withdraw(src, c.ctx, c.sreq));
}
