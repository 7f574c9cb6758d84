/*
 * Cooperative copy of a large contiguous rendezvous message (docs/p2p.md, "Cooperative
 * copy"). On one host the single-copy rendezvous has the receiver copy the whole message
 * (rma_readv) while the sender's core only waits for FIN. Here both copy at once:
 *
 *   sender                          receiver
 *     │ RTS size, addr ──────────────►│ match (contiguous, n = size >= METAMPI_RNDV_COOP)
 *     │◄──────── COOP rbuf, split ────│
 *     │ rma_writev [split, n)         │ rma_readv [0, split)     (at the same time)
 *     │ WDONE ───────────────────────►│ (both parts in)
 *     │◄──────────────────────── FIN ─│ (done)
 *     │ (done)                        │
 *
 * Invariants:
 *   - the receiver sends COOP only for a message it received whole (not truncated), both
 *     buffers contiguous, the peer of its own architecture, and only once a remote read from
 *     that peer has worked (peer_t.rma_ok): a peer whose transport refuses cross-memory attach
 *     never gets here and keeps the usual fallback (CTS and DATA frames);
 *   - FIN still means "the receiver is done with the sender's buffer", and it is sent only
 *     when both parts are in place, so the sender's completion (buffer reusable) and the
 *     receiver's (data in place) keep their meaning; a synchronous send is matched by
 *     construction, as with any rendezvous;
 *   - the sender writes only after COOP, i.e. after the match: a CANCEL in flight is answered
 *     "already matched" by the receiver, and a CANCEL_REPLY that says "withdrawn" for an op in
 *     OP_WAIT_FIN is a bad frame (send.c);
 *   - a sender whose transport refuses the write (TR_RMA_UNSUPPORTED) answers WDONE with
 *     result 1 and the receiver reads that part itself; any other failure ends the job with
 *     the transport's line naming the peer, reported by the rank that failed;
 *   - the frames are checked like any other (proto.c, "Checks"): ids name live operations in
 *     the right state; the split lies inside the message; the address in COOP is the
 *     receiver's own memory, which the receiver could write anyway.
 */
#include "proto/ids.h"
#include "proto/internal.h"

#include "runtime/job.h"
#include "runtime/peer_arch.h"

#include <stdio.h>
#include <string.h>

size_t proto_coop_min;

/* The receiver's part: the first half, on a page boundary (the second part then starts on a
 * page in both buffers when they do). */
static size_t coop_split(size_t n)
{
    return (n / 2) & ~(size_t)4095;
}

static void send_fin(int peer, uint64_t sreq)
{
    f_ctrl_t c = { .kind = F_FIN, .sreq = sreq };
    f_ctrl_le(&c);
    proto_send_ctrl(peer, &c, sizeof c);
}

/* Reads [from, to) of the sender's message at remote into op's buffer. */
static void read_part(proto_op_t *op, uint64_t remote, size_t from, size_t to)
{
    const transport_t *tr = proto_peers[op->peer].tr;
    char err[256];
    struct iovec li = { (char *)op->buf + from, to - from };
    struct iovec ri = { (void *)(uintptr_t)(remote + from), to - from };
    int rc = tr->rma_readv(op->peer, &li, 1, &ri, 1, err, sizeof err);
    if (rc == TR_RMA_UNSUPPORTED) {
        snprintf(err, sizeof err,
                 "rank %d refused a remote read of rank %d's memory after earlier ones had "
                 "worked (cooperative copy)",
                 proto_my_rank, op->peer);
        job_abort(1, err);
    }
    if (rc != TR_RMA_OK)
        job_abort(1, err);
}

int proto_coop_start(proto_op_t *op, const proto_msg_t *m, size_t n)
{
    const peer_t *p = &proto_peers[m->peer];
    if (!proto_coop_min || n < proto_coop_min || n != m->size || m->typed || op->layout ||
        op->prefix || !p->rma_ok || p->no_rma || !p->tr->rma_writev)
        return 0;
    if (!peer_arch_all_same() && !arch_same(peer_arch(m->peer), arch_local()))
        return 0;
    size_t split = coop_split(n);
    if (split == 0 || split >= n)
        return 0;
    op->state = OP_RECV_COOP;
    op->remote_id = m->remote_id;
    op->coop_addr = m->remote_addr;
    op->want = n;
    op->split = split;
    proto_id_open(op); /* WDONE names it */
    f_coop_t c = { .kind = F_COOP, .sreq = m->remote_id, .rreq = op->id,
                   .addr = (uintptr_t)op->buf, .offset = split };
    f_coop_le(&c);
    proto_send_ctrl(m->peer, &c, sizeof c);
    read_part(op, m->remote_addr, 0, split);
    op->got = split;
    return 1;
}

void proto_on_coop(int src, const void *frame, size_t len)
{
    f_coop_t c;
    if (len != sizeof c)
        proto_bad_frame(src, "a COOP of %zu bytes", len);
    memcpy(&c, frame, sizeof c);
    f_coop_le(&c);
    proto_op_t *op = proto_named_op(src, c.sreq, "COOP");
    if (op->state != OP_WAIT_RNDV)
        proto_bad_frame(src, "COOP for operation %#llx, which is %s", (unsigned long long)c.sreq,
                        proto_state_name(op->state));
    if (op->layout || c.offset == 0 || c.offset >= op->bytes)
        proto_bad_frame(src, "COOP splits operation %#llx (%zu %s bytes) at %llu",
                        (unsigned long long)c.sreq, op->bytes,
                        op->layout ? "typed" : "contiguous", (unsigned long long)c.offset);
    size_t off = (size_t)c.offset;
    const transport_t *tr = proto_peers[src].tr;
    char err[256];
    int rc = TR_RMA_UNSUPPORTED;
    if (tr->rma_writev) {
        struct iovec li = { (char *)op->buf + off, op->bytes - off };
        struct iovec ri = { (void *)(uintptr_t)(c.addr + off), op->bytes - off };
        rc = tr->rma_writev(src, &li, 1, &ri, 1, err, sizeof err);
        if (rc != TR_RMA_OK && rc != TR_RMA_UNSUPPORTED)
            job_abort(1, err);
    }
    op->state = OP_WAIT_FIN;
    f_ctrl_t w = { .kind = F_WDONE, .result = rc == TR_RMA_OK ? 0 : 1, .sreq = c.rreq };
    f_ctrl_le(&w);
    proto_send_ctrl(src, &w, sizeof w);
}

void proto_on_wdone(int src, const void *frame, size_t len)
{
    f_ctrl_t c = proto_ctrl_frame(src, frame, len, "a WDONE");
    proto_op_t *op = proto_named_op(src, c.sreq, "WDONE");
    if (op->state != OP_RECV_COOP)
        proto_bad_frame(src, "WDONE for operation %#llx, which is %s", (unsigned long long)c.sreq,
                        proto_state_name(op->state));
    if (c.result) /* the sender could not write its part: read it */
        read_part(op, op->coop_addr, op->split, op->want);
    op->got = op->want;
    send_fin(src, op->remote_id);
    proto_complete(op);
}
