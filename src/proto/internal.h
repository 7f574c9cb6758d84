/*
 * State shared by the protocol's files (proto.c: peers, queues, dispatch; send.c: the
 * sending side; recv.c: the receiving side). Not visible above proto/.
 */
#ifndef METAMPI_PROTO_INTERNAL_H
#define METAMPI_PROTO_INTERNAL_H

#include "proto/proto.h"
#include "proto/wire.h"

#include <string.h>

/* Operation states */
enum {
    OP_IDLE = 0,
    OP_SEND_FIRST,     /* the first frame (EAGER, EAGER_SYNC or RTS) is not yet handed over */
    OP_WAIT_ACK,       /* synchronous eager sent: waiting for ACK */
    OP_WAIT_RNDV,      /* RTS sent: waiting for FIN or CTS */
    OP_STREAM,         /* CTS received: DATA frames to send */
    OP_STREAM_DRAIN,   /* all DATA handed over; the transport still reads some from buf */
    OP_CTRL,           /* a control frame owned by proto, freed once handed over */
    OP_RECV_STREAM,    /* receiver: CTS sent, DATA frames expected */
    OP_WAIT_FIN,       /* sender: COOP answered (its claimed chunks written): waiting for FIN */
    OP_DONE,
};

/* Per destination world rank. Invariant: qhead != NULL iff the peer is on the active list;
 * while qhead != NULL every new frame to the peer queues behind it. */
typedef struct peer {
    const transport_t *tr;
    proto_op_t *qhead, *qtail;
    int no_rma;            /* the transport refused remote reads from this peer */
    int rma_ok;            /* a remote read from this peer succeeded (cooperative copy may
                            * follow: proto/coop.c) */
    size_t eager_limit;    /* largest eager payload */
    size_t chunk;          /* DATA payload per frame */
} peer_t;

extern peer_t *proto_peers;
extern proto_upcalls_t proto_up;
extern int proto_my_rank;
/* Smallest average block (bytes) of typed data worth reading by remote iovecs. */
extern size_t proto_iov_min;

/* Whether count elements of l have blocks big enough for remote iovecs to pay. */
static inline int proto_iov_worthy(const dt_layout_t *l)
{
    size_t blocks = dt_layout_blocks(l);
    return blocks && dt_layout_size(l) / blocks >= proto_iov_min;
}

/* METAMPI_RNDV_COOP: smallest message copied cooperatively (0: never). */
extern size_t proto_coop_min;

/* Cooperative copy (coop.c). proto_coop_start: for a matched contiguous rendezvous message m
 * of n bytes into op, when it applies (n == m's size, at least proto_coop_min, both sides
 * contiguous, a remote read from the peer has worked, its transport also writes and offers a
 * shared slot): sends COOP, copies every chunk the sender does not claim, waits for the ones
 * it claimed, sends FIN, completes op and returns 1; else 0 and nothing happened.
 * proto_on_coop (sender, COOP) claims and writes chunks while any are left. */
int proto_coop_start(proto_op_t *op, const proto_msg_t *m, size_t n);
void proto_on_coop(int src, const void *frame, size_t len);

/* Sends what op still has to send to its peer now, or queues it (keeping order). */
void proto_emit_or_queue(proto_op_t *op);
/* Sends a control frame (FIN, ACK, CANCEL, CANCEL_REPLY, CTS) to peer, queuing it when the
 * path is full. */
void proto_send_ctrl(int peer, const void *frame, size_t len);
/* A cursor over op's typed data for a DATA stream (op->cur); ends the job when out of
 * memory. Freed by proto_complete. */
void proto_stream_cursor(proto_op_t *op);
/* Marks op done and runs its callback — or, while a CANCEL of it is in flight, notes that
 * it finished and leaves the rest to the CANCEL_REPLY. */
void proto_complete(proto_op_t *op);
/* Ends op for good: closes its wire id, marks it done and runs its callback (which may free
 * it). */
void proto_finish(proto_op_t *op);

/* Frame handlers, by side */
void proto_on_match_frame(int src, const void *frame, size_t len);   /* EAGER*, RTS */
void proto_on_data(int src, const void *frame, size_t len);
void proto_on_cancel(int src, const void *frame, size_t len);
/* The transports' placement upcall (transport.h): DATA bodies go straight into the receive
 * buffer, contiguous or by iovecs of a typed one whose blocks are large enough. */
int proto_place(int src, const void *head, size_t head_len, size_t body_len, tr_sink_t *sink);
void proto_on_sender_reply(int src, const void *frame, size_t len);  /* CTS FIN ACK C_REPLY */
/* Hands over as much of op as the transport takes: 1 all sent, 0 blocked, -1 failed.
 * Never completes op: the caller takes op out of any queue first, then calls
 * proto_after_sent(), which moves it to its next state (and may complete it). */
int proto_send_pending(proto_op_t *op, char *err, int errlen);
void proto_after_sent(proto_op_t *op);

/* The live operation that id names in a frame (kind: its name, for the report) from src, and
 * it is src's own; ends the job (proto_bad_frame) otherwise. The caller checks that its
 * state accepts the frame. */
proto_op_t *proto_named_op(int src, uint64_t id, const char *kind);
/* An op state's name, for reports. */
const char *proto_state_name(int state);

/* The control frame (f_ctrl_t: FIN, ACK, CANCEL, CANCEL_REPLY) that src sent, in host
 * order; a frame of another length ends the job (what: "a CANCEL", for the report). */
static inline f_ctrl_t proto_ctrl_frame(int src, const void *frame, size_t len,
                                        const char *what)
{
    f_ctrl_t c;
    if (len != sizeof c)
        proto_bad_frame(src, "%s of %zu bytes", what, len);
    memcpy(&c, frame, sizeof c);
    f_ctrl_le(&c);
    return c;
}

#endif
