/*
 * One WAN link of a gateway: the connection to another site's gateway, made of N TCP streams
 * (transport/gw/wire.h has the WAN frames). This module is the link's logic without sockets
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
 * Flow control (no buffer grows without bound):
 *   - the sender stops reading a rank whose next frame goes to a link holding GW_LINK_MAX
 *     bytes or more (gw_link_full), so a link holds at most that plus one frame;
 *   - the receiver reads a stream's next WAN frame only when gw_link_may_read says so: the
 *     next frame to forward always (it is at the head of its stream, behind frames already
 *     forwarded), others while the window has room; a stream left unread stops its sender by
 *     TCP's own flow control;
 *   - forwarding stops at a frame whose destination rank's queue is full (the callback says
 *     0) and resumes when called again.
 * No cycle of waits: a rank's library reads its gateway connection whenever it is inside MPI,
 * so a full rank queue drains without waiting for the link; the frame the window needs next
 * is always read; and a gateway always reads its ranks' frames for links that have room.
 */
#ifndef GATEWAY_LINK_H
#define GATEWAY_LINK_H

#include "transport/gw/wire.h"
#include "transport/tcp/outq.h"
#include "transport/tcp/rx.h"
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
};

typedef struct gw_stream {
    int fd;                       /* -1 until connected */
    int up;                       /* the handshake is done: frames may be written */
    int bye_in;                   /* the peer said BYE on it */
    int paused;                   /* not read: the reorder window is full */
    tcp_outq_t out;
    tcp_rx_t rx;
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
    /* sending */
    uint64_t seq_out;
    unsigned char *batch;         /* GW_WAN_HDR + GW_BATCH_MAX bytes; NULL: no open batch */
    size_t batch_len;             /* body bytes in it */
    unsigned next_stream;
    /* receiving */
    uint64_t seq_in;              /* the next to forward */
    gw_rframe_t *win[GW_RWIN];
    size_t held;
    unsigned char *part;          /* the large frame being put together, header first */
    size_t part_len, part_got;
    uint32_t part_src;
    int part_ready;               /* complete, waiting for room at its destination */
    /* counters */
    uint64_t wan_out, wan_in, frames_out, frames_in, bytes_out, multi_out;
} gw_link_t;

/* The gateway's forwarding callback: the rank frame f[0..n) (header and body) for its
 * destination. owned: f is a malloc'ed buffer the callee takes (frees) when it returns 1.
 * 1 taken, 0 the destination is full (offer it again later), -1 the frame is not acceptable
 * (err says why). */
typedef int (*gw_fwd_fn)(void *ctx, const gw_frame_t *h, unsigned char *f, size_t n, int owned,
                         char *err, int errlen);

/* 0, or -1 out of memory (or zstd). */
int gw_link_init(gw_link_t *l, int site, int nstreams, uint32_t size, size_t max_frame,
                 int compression);
void gw_link_free(gw_link_t *l);

/* Bytes waiting in the streams' queues and the open batch. */
size_t gw_link_queued(const gw_link_t *l);
int gw_link_full(const gw_link_t *l);
/* Sends one rank frame f[0..n) (header and body, already checked). 0, or -1 out of memory. */
int gw_link_send(gw_link_t *l, const unsigned char *f, size_t n);
/* Sends the inner frames of a MULTI (body[0..n), checked: gw_multi_next) as one BATCH of
 * their own, after the open batch. 0, or -1 out of memory. */
int gw_link_send_multi(gw_link_t *l, const unsigned char *body, size_t n);
/* Closes the open batch (if any) into a WAN frame. 0, or -1 out of memory. */
int gw_link_flush_batch(gw_link_t *l);
/* Nonzero when some up stream's queue is empty (its socket is idle). */
int gw_link_idle_stream(const gw_link_t *l);
/* Queues a BYE (or a heartbeat) on stream i. 0, or -1 out of memory. */
int gw_link_signal(gw_link_t *l, int i, int kind);

/* Whether the WAN frame whose header is w may be read now (see Flow control). */
int gw_link_may_read(const gw_link_t *l, const gw_wan_t *w);
/* A WAN frame (header and body, as a stream brought it). 0, or -1 with err (a protocol
 * violation: sequence number out of the window or repeated, a bad compressed body). */
int gw_link_take(gw_link_t *l, const unsigned char *wan, size_t n, char *err, int errlen);
/* Forwards what is in order. Returns the rank frames forwarded, or -1 with err. */
int gw_link_forward(gw_link_t *l, gw_fwd_fn fwd, void *ctx, char *err, int errlen);
/* Nonzero while received frames wait to be forwarded. */
int gw_link_backlog(const gw_link_t *l);

#endif
