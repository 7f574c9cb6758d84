/*
 * One WAN link of a gateway: the connection to another site's gateway, made of N TCP streams
 * (net/gw_wire.h has the WAN frames). This module is the link's logic without sockets
 * (gateway.c does the I/O): what goes into which stream's queue, and what comes out, in which
 * order. Tests drive it by moving queued bytes between two links.
 *
 * Sending. A rank frame (header and body, as the rank sent it) of at most GW_BATCH_FRAME_MAX
 * bytes is appended to the link's open BATCH; a larger one closes the open batch and is cut
 * into PIECEs of GW_PIECE bytes. The frames of a rank's MULTI close the open batch and make
 * a BATCH of their own (gw_link_send_multi). gw_link_flush_batch closes the open batch: the gateway calls
 * it at the end of each pass of its loop when a stream's socket is idle, and when a busy
 * stream drains, so a lone message leaves at once (no timer) and what arrives while the
 * sockets are busy is coalesced into one WAN frame (up to GW_BATCH_MAX). Each closed WAN frame
 * gets the link's next sequence number, may be compressed (zc.h), and goes to the stream
 * with the fewest queued bytes (within a stream, sequence numbers increase).
 *
 * Receiving. gw_link_take stores a WAN frame in the reorder window (GW_RWIN frames, at most
 * GW_REORDER_MAX bytes held); gw_link_forward hands the rank frames to the gateway in
 * sequence order: the frames of each batch, and each large frame once its last piece is in.
 * The pieces of one frame are consecutive (the sender cuts a whole frame at once), so one
 * frame at a time is put together.
 *
 * Flow control (no buffer grows without bound), per destination rank so that a rank that
 * stays outside MPI holds up only the frames for itself:
 *   - credit: the sender sends rank frames for rank d over the link while the bytes it sent
 *     for d and has not had credited (owed) stay within GW_CREDIT (a frame that would pass
 *     it waits, unless nothing is owed: a frame larger than the credit goes alone); the
 *     receiver forwards every frame at once — its queue for d holds at most GW_CREDIT per
 *     link, which it checks (gw_link_forward) — and credits the bytes back as the gateway
 *     writes them to d's socket (gw_link_delivered), in CREDIT frames (gw_link_flush_credit)
 *     once GW_CREDIT_REPORT bytes are due. GW_CREDIT - GW_CREDIT_REPORT holds the largest
 *     frame, so the credit left unreported never stops a frame;
 *   - parking: frames waiting for credit are kept per destination, in order (gw_link_parked);
 *     the gateway tells its ranks to stop sending to d once GW_PARK_STOP bytes wait and to
 *     go on at GW_PARK_GO, so that only what its ranks had queued before they heard STOP
 *     comes in after it (the library's queue bounds that per rank);
 *   - the sender stops reading a rank whose next frame goes to a link holding GW_LINK_MAX
 *     bytes in its queues or GW_PARK_TOTAL parked (gw_link_full), so a link holds at most
 *     that plus one frame each. Only there does one destination hold up the others: when
 *     ranks had more than GW_PARK_TOTAL queued for destinations without credit;
 *   - the receiver reads a stream's next WAN frame only when gw_link_may_read says so: the
 *     next frame to forward always (it is at the head of its stream, behind frames already
 *     forwarded), others while the window has room; a stream left unread stops its sender by
 *     TCP's own flow control. The window fills only while streams overtake each other: no
 *     rank holds up forwarding.
 * No cycle of waits: a rank's library reads its gateway connection whenever it is inside MPI,
 * so its queue drains and its credit returns without waiting for any link; the frame the
 * window needs next is always read; and a gateway always reads its ranks' frames for links
 * that have room.
 *
 * Reconnection. Every BATCH and PIECE is kept (resend.h) until the other gateway acknowledges
 * it: ACK frames carry the receiver's `seq_have` (every frame below it is in its window or
 * forwarded), at least every GW_ACK_FRAMES frames or GW_ACK_BYTES bytes, with any other
 * frame the receiver sends anyway, and as the heartbeat of an idle stream. When a stream
 * breaks, the gateway closes every stream of the link and calls gw_link_break: the streams'
 * queues and readers are emptied (a frame half read is gone), the window keeps only its
 * contiguous prefix (what an acknowledgement may have covered), and every rank's credit total
 * is due again (a CREDIT may have been lost: its totals make the next one good). A stream
 * opened again starts with a RESUME in each direction (gw_link_stream_open): our instance,
 * the other's as we know it, and our seq_have. The first RESUME of the other gateway after a
 * break acknowledges what it has, and the kept frames from there on go out again, in order,
 * before any new one (gw_link_resumed tells the gateway); frames made while the link is down
 * are only kept. The kept bytes count towards the link's bound (GW_RESEND_MAX): a link down
 * for long stops taking rank frames (the ranks wait in MPI; nothing is dropped). A RESUME
 * from another instance, or one that acknowledges less than before, is a violation: the
 * other gateway is not the one the link was opened with, and its state is lost.
 */
#ifndef GATEWAY_LINK_H
#define GATEWAY_LINK_H

#include "net/gw_wire.h"
#include "net/outq.h"
#include "net/rx.h"
#include "resend.h"
#include "zc.h"

#include <stddef.h>
#include <stdint.h>

enum {
    GW_BATCH_FRAME_MAX = 64 << 10,
    GW_BATCH_MAX = 256 << 10,
    GW_PIECE = 256 << 10,
    GW_RWIN = 4096,
    GW_REORDER_MAX = 16 << 20,
    GW_LINK_MAX = 8 << 20,
    GW_STREAM_RX = 1 << 20,
    GW_CREDIT = 8 << 20,
    GW_CREDIT_REPORT = GW_CREDIT / 4,
    GW_PARK_STOP = 1 << 20,
    GW_PARK_GO = GW_PARK_STOP / 2,
    GW_PARK_TOTAL = 64 << 20,
    GW_RESEND_MAX = 32 << 20,     /* frames kept for resending; then the link is full */
    GW_ACK_FRAMES = 64,           /* an ACK after at most this many frames taken, */
    GW_ACK_BYTES = 2 << 20,       /* or this many bytes */
};

_Static_assert((long)GW_CREDIT - GW_CREDIT_REPORT >= (long)GW_WAN_MAX,
               "the credit never left unreported leaves room for the largest frame");

/* A rank frame waiting for credit. */
typedef struct gw_parked {
    struct gw_parked *next;
    size_t n;
    unsigned char f[];
} gw_parked_t;

/* What a link keeps per rank of the job (used for the ranks of the two sites it joins). */
typedef struct gw_dst {
    /* sending, for a rank of the remote site */
    size_t owed;                  /* bytes sent to it, not yet credited */
    uint32_t credited;            /* the last credit total (mod 2^32) the other side sent */
    gw_parked_t *park, *park_tail;
    size_t parked;                /* bytes in park */
    /* receiving, for a rank of this site */
    size_t held;                  /* bytes forwarded to it from this link, not yet delivered */
    uint64_t delivered, reported; /* bytes delivered in all; the total last credited back */
    int listed;                   /* in the link's report list */
} gw_dst_t;

typedef struct gw_stream {
    int fd;                       /* -1 until connected */
    int up;                       /* the handshake is done, our RESUME queued: frames may be
                                   * written */
    int resumed;                  /* the other gateway's RESUME came on it */
    int bye_in;                   /* the peer said BYE on it */
    int paused;                   /* not read: the reorder window is full */
    int backlog;                  /* frames may be left in rx (the reader's budget ran out) */
    net_outq_t out;
    net_rx_t rx;
    net_secure_t *sec;            /* TLS on fd (net/secure.h); NULL: plain */
    int securing;                 /* its TLS handshake is under way (up is 0) */
    long long secure_by;          /* ms: when that handshake must be done */
    long long last_rx, last_tx;   /* ms: bytes last read / written */
} gw_stream_t;

typedef struct gw_rframe {
    uint8_t kind;
    uint32_t src;
    size_t len, off;              /* body bytes; forwarded so far */
    unsigned char *data;
} gw_rframe_t;

typedef struct gw_link {
    int site;                     /* the remote site */
    int nst;
    gw_stream_t *st;
    uint32_t size;                /* ranks in the job */
    size_t max_frame;             /* the largest rank frame body */
    double rate;                  /* the link's measured bytes/s (0: unknown), for zc */
    gw_z_t z;
    /* reconnection */
    const unsigned char *instance; /* ours (GW_INSTANCE bytes; the gateway's) */
    unsigned char peer[GW_INSTANCE];
    int peer_known;               /* the other gateway's instance, from its first RESUME */
    int resumed;                  /* its RESUME came since the last break: frames go out */
    int just_resumed;             /* ... in this pass (gw_link_resumed) */
    gw_resend_t kept;             /* frames sent, not acknowledged */
    uint64_t ack_sent;            /* seq_have when we last acknowledged */
    size_t ack_bytes;             /* bytes taken since */
    /* sending */
    uint64_t seq_out;
    unsigned char *batch;         /* GW_WAN_HDR + GW_BATCH_MAX bytes; NULL: no open batch */
    size_t batch_len;             /* body bytes in it */
    unsigned next_stream;
    /* receiving */
    uint64_t seq_in;              /* the next to forward */
    uint64_t seq_have;            /* every frame below it is forwarded or in the window */
    gw_rframe_t *win[GW_RWIN];
    size_t held;
    unsigned char *part;          /* the large frame being put together, header first */
    size_t part_len, part_got;
    uint32_t part_src;
    int part_ready;               /* complete, waiting for room at its destination */
    /* flow control per destination */
    gw_dst_t *dst;                /* size entries */
    size_t parked_total;
    uint32_t *report;             /* ranks whose credit is due, nreport of them */
    uint32_t nreport;
    /* counters */
    uint64_t wan_out, wan_in, frames_out, frames_in, bytes_out, multi_out, parks, credits_in;
    uint64_t raw_out;             /* bytes_out as they would be without compression */
    uint64_t breaks, resent;      /* reconnections; frames sent again after them */
} gw_link_t;

/* The gateway's forwarding callback: the rank frame f[0..n) (header and body) for its
 * destination. owned: f is a malloc'ed buffer the callee takes (frees) when it returns 1.
 * 1 taken (its n bytes count as held for the destination until gw_link_delivered, which the
 * callee may call at once), 0 the destination is full (offer it again later: the gateway
 * never says so, credit bounds its queues), -1 the frame is not acceptable (err says why). */
typedef int (*gw_fwd_fn)(void *ctx, const gw_frame_t *h, unsigned char *f, size_t n, int owned,
                         char *err, int errlen);

/* 0, or -1 out of memory (or zstd). instance: our gateway's (GW_INSTANCE bytes, kept by the
 * caller). */
int gw_link_init(gw_link_t *l, int site, int nstreams, uint32_t size, size_t max_frame,
                 int compression, const unsigned char *instance);
void gw_link_free(gw_link_t *l);

/* Bytes waiting in the streams' queues and the open batch. */
size_t gw_link_queued(const gw_link_t *l);
/* Nonzero when the link's queues or its parked frames are at their bound (Flow control):
 * it takes no more rank frames. */
int gw_link_full(const gw_link_t *l);
/* Bytes of rank frames for dst waiting for its credit. */
size_t gw_link_parked(const gw_link_t *l, uint32_t dst);
/* Sends one rank frame f[0..n) (header and body, already checked), or parks it until dst has
 * credit. 0, or -1 out of memory. */
int gw_link_send(gw_link_t *l, const unsigned char *f, size_t n);
/* Sends the inner frames of a MULTI (body[0..n), checked: gw_multi_next) as one BATCH of
 * their own, after the open batch, when every destination has credit for them and nothing
 * parked; else each as gw_link_send does. 0, or -1 out of memory. */
int gw_link_send_multi(gw_link_t *l, const unsigned char *body, size_t n);
/* Closes the open batch (if any) into a WAN frame. 0, or -1 out of memory. */
int gw_link_flush_batch(gw_link_t *l);
/* Nonzero when some up stream's queue is empty (its socket is idle). */
int gw_link_idle_stream(const gw_link_t *l);
/* Queues a BYE, or an ACK (the heartbeat), on stream i. 0, or -1 out of memory. */
int gw_link_signal(gw_link_t *l, int i, int kind);
/* Queues an ACK when one is due (Reconnection), or when `now` and anything was taken since
 * the last. 0, or -1 out of memory. */
int gw_link_flush_ack(gw_link_t *l, int now);

/* Reconnection. Stream i is open (its handshakes done): our RESUME is its first frame, and
 * it may carry frames. 0, or -1 out of memory. */
int gw_link_stream_open(gw_link_t *l, int i);
/* Every stream of the link is gone (the caller closed them): see Reconnection. 0, or -1 out
 * of memory. */
int gw_link_break(gw_link_t *l);
/* Nonzero once after the other gateway's first RESUME since a break (or since the start). */
int gw_link_resumed(gw_link_t *l);

/* Whether the WAN frame whose header is w may be read now (see Flow control). */
int gw_link_may_read(const gw_link_t *l, const gw_wan_t *w);
/* A WAN frame (header and body, as stream i brought it): stored in the window, or, a CREDIT,
 * applied (which may send parked frames), an ACK or RESUME (Reconnection). 0, or -1 with
 * err (a protocol violation: sequence number out of the window or repeated, a bad compressed
 * body, credit for bytes not sent, a frame before the stream's RESUME, an acknowledgement of
 * frames never sent, a RESUME of another instance). */
int gw_link_take(gw_link_t *l, int i, const unsigned char *wan, size_t n, char *err,
                 int errlen);
/* Forwards what is in order. Returns the rank frames forwarded, or -1 with err (also a
 * frame for a rank beyond its credit). */
int gw_link_forward(gw_link_t *l, gw_fwd_fn fwd, void *ctx, char *err, int errlen);
/* Nonzero while received frames wait to be forwarded. */
int gw_link_backlog(const gw_link_t *l);
/* The gateway has written (or dropped) n more bytes of the frames this link forwarded to
 * rank dst: they are credited back to the sender (gw_link_flush_credit). */
void gw_link_delivered(gw_link_t *l, uint32_t dst, size_t n);
/* Queues a CREDIT frame for the ranks whose credit is due (if any) on the stream with the
 * fewest queued bytes. 0, or -1 out of memory. */
int gw_link_flush_credit(gw_link_t *l);

#endif
