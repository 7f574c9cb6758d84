/*
 * The message protocols over any transport (MPI-free: no handles, no error classes).
 *
 *   eager       a message up to the eager limit travels in one frame with its envelope;
 *               the receiver buffers it when no receive is posted;
 *   rendezvous  larger messages send only a request-to-send (RTS) with the size and the
 *               sender's buffer address. Once a receive matches it, the receiver either
 *               reads the data straight from the sender's memory (transport rma_readv: one
 *               copy) and answers FIN, or — when the transport cannot — answers
 *               clear-to-send (CTS) and the sender streams DATA frames that the receiver
 *               copies into place (pipelined two copies); from METAMPI_RNDV_COOP bytes on,
 *               a contiguous message is copied in chunks by both at once when the sender is
 *               inside the library: the receiver reads from the front, the sender writes
 *               from the back, claimed in a shared slot (coop.c, "cooperative copy");
 *   typed data  an op may describe non-contiguous data: count elements of a datatype layout
 *               at base buf. It is never packed into a temporary buffer: eager and DATA
 *               frames are packed straight into the transport's buffer (tr_packer_t) and
 *               unpacked straight out of the frame; the remote read uses iovecs from cursors
 *               on both sides (the sender's layout travels by one small remote read, named in
 *               the RTS). Blocks too small for iovecs to pay (average below
 *               METAMPI_DT_IOV_MIN, 256 KiB, on either side) take the CTS/DATA path;
 *   synchronous a synchronous eager message is answered with ACK when matched; a
 *               synchronous rendezvous message is matched by construction when FIN/CTS
 *               arrives.
 *
 * Matching itself is the core's business: the protocol announces each arriving message
 * (incoming callback) and the core answers, now or later, with proto_recv_matched().
 *
 * Ordering: per destination, frames leave in the order their operations were started; an
 * operation the transport cannot take at once waits in the destination's queue, and later
 * operations queue behind it. With in-order transports this gives MPI's non-overtaking rule.
 *
 * Thresholds (environment): METAMPI_EAGER_LIMIT (bytes, largest eager message),
 * METAMPI_RNDV_CHUNK (bytes per DATA frame of the two-copy path), METAMPI_DT_IOV_MIN (bytes,
 * smallest average block of typed data read by remote iovecs). See docs/p2p.md.
 */
#ifndef METAMPI_PROTO_H
#define METAMPI_PROTO_H

#include "datatype/engine/layout.h"
#include "transport/transport.h"

#include <stddef.h>
#include <stdint.h>

typedef struct proto_env {
    uint32_t ctx;   /* the communicator's context id */
    int32_t src;    /* the sender's rank in that communicator */
    int32_t tag;
} proto_env_t;

/* PROTO_CONVERSION: the message came from a peer of another architecture and an element could
 * not be represented here (proto_conversion_error() says which). */
enum proto_result { PROTO_OK = 0, PROTO_TRUNCATED = 1, PROTO_CONVERSION = 2 };

struct dt_conv;

typedef struct proto_op proto_op_t;
typedef void (*proto_done_fn)(proto_op_t *op);

/* One send or receive. The caller sets the first group, starts the op, and keeps it (and the
 * buffer) alive until done() has been called. */
struct proto_op {
    /* set by the caller */
    proto_env_t env;      /* send: the envelope; receive: set to the matched envelope */
    int peer;             /* send: destination world rank; receive: set to the source's */
    int sync;             /* send: complete only once a receive has matched */
    void *buf;            /* send: the data; receive: where it goes (typed: the base) */
    size_t bytes;         /* send: message size; receive: capacity of buf (packed bytes) */
    const dt_layout_t *layout; /* NULL: buf holds bytes contiguous bytes; else buf holds count
                           * elements of this layout (bytes = count * size), kept alive by
                           * the caller until done() */
    size_t count;
    proto_done_fn done;
    /* results, valid when done() runs */
    size_t msg_bytes;     /* receive: the size of the matched message */
    size_t got;           /* receive: bytes placed in buf (min(msg_bytes, bytes)) */
    int result;           /* PROTO_OK or PROTO_TRUNCATED */
    int cancelled;        /* send: withdrawn before any receive matched it */
    /* protocol state */
    int state;
    int cancel_pending;   /* a CANCEL is in flight: completion waits for its reply */
    int finished_early;   /* completion arrived while cancel_pending */
    uint64_t id;          /* this op's wire id while a peer's frame may name it, else 0
                           * (ids.h) */
    uint64_t remote_id;   /* the peer's op id (sreq or rreq), echoed, never dereferenced */
    size_t sent;          /* send: bytes of DATA handed to the transport */
    size_t want;          /* send: bytes the receiver asked for in CTS; receive: bytes
                           * expected (DATA stream) */
    proto_op_t *qnext;    /* in a destination's outgoing queue */
    char ctrl[40];        /* control frames: the frame itself (op allocated by proto) */
    size_t ctrl_len;
    dt_cursor_t *cur;     /* typed data streamed in DATA frames: where packing or unpacking
                           * continues (allocated by proto for the stream only) */
    unsigned zc_pending;  /* send: DATA frames the transport still reads from buf (send_zc) */
    unsigned prefix;      /* receive of MPI_PACKED from a peer of another architecture: the
                           * header's bytes before buf, which the data follow (set when
                           * matched; buf and bytes are the user's again when done() runs;
                           * in zc_pending's padding: MPI_BSEND_OVERHEAD covers a request) */
    size_t placing;       /* receive: bytes of the DATA body being placed (tr_sink_t) */
    struct dt_conv *conv; /* receive from a peer of another architecture: the conversion of
                           * its DATA stream (set when matched, allocated by proto) */
};

/* What the protocol announces to the core for each arriving message. */
typedef struct proto_msg {
    proto_env_t env;
    int peer;             /* world rank of the sender */
    int kind;             /* internal: eager, synchronous eager or RTS */
    uint64_t size;        /* message bytes */
    uint64_t remote_id, remote_addr;
    const void *data;     /* eager payload; valid only during incoming() unless the core
                           * copies it (and then points data at its copy) */
    /* RTS of typed data: the sender's layout (address and length in its memory; 0 when its
     * blocks are too small to be read as iovecs) and element count */
    int typed;
    uint64_t layout_addr, layout_len, count;
} proto_msg_t;

/* The core's side: a message arrived (incoming) and a sender withdraws an unmatched message
 * (withdraw: return 1 when the core removed it from its unexpected messages, 0 when it had
 * already been matched). */
typedef struct proto_upcalls {
    void (*incoming)(const proto_msg_t *m);
    int (*withdraw)(int peer, uint32_t ctx, uint64_t remote_id); /* ctx: the message's */
    /* Asked only for a message from a peer of another architecture (receiver makes right,
     * docs/heterogeneity-conversion.md): the receive op's typed view, count elements of *l
     * at *base, whose basic types the converter reads the sender's bytes as. 0, or -1 when
     * the receive holds raw bytes (copied unconverted), or 1 when it holds MPI_PACKED bytes
     * of the user's point-to-point receive, which MPI_Unpack reads later: they stay the
     * sender's, behind a header naming its architecture (datatype/engine/packed_arch.h). */
    int (*typemap)(proto_op_t *op, const dt_layout_t **l, uintptr_t *base, size_t *count);
} proto_upcalls_t;

/* Bootstrap, mirroring the transports' phases (a job-wide barrier between each). */
int proto_open(const tr_boot_t *boot, const proto_upcalls_t *up, char *err, int errlen);
/* The job now has boot->size ranks: the new ones are processes of other parts, reached by
 * the transports that grow (transport.h, "Growing"). 0, or -1 (err). */
int proto_grow(const tr_boot_t *boot, char *err, int errlen);
int proto_connect(char *err, int errlen);
int proto_ready(char *err, int errlen);
void proto_close(void);

/* Starts a send. done() runs once the buffer may be reused (and, for sync, once matched) —
 * possibly before proto_send_start returns. Returns 0, or -1 with a message when the
 * destination cannot be reached. */
int proto_send_start(proto_op_t *op, char *err, int errlen);

/* The eager fast path: sends env+data to peer at once when that needs no operation state
 * (fits eagerly, nothing queued ahead, room in the transport). Returns 1 when sent, 0 when
 * the caller must use proto_send_start, -1 on a transport failure (message in err). */
int proto_send_now(const proto_env_t *env, int peer, const void *data, size_t bytes,
                   char *err, int errlen);

/* proto_send_now for count elements of layout l at base (bytes = count * size): packed
 * straight into the transport's frame. */
int proto_send_now_typed(const proto_env_t *env, int peer, const void *base,
                         const dt_layout_t *l, size_t count, size_t bytes, char *err,
                         int errlen);

/* Delivers the matched message m into op (buf, bytes, layout, count set). done() runs when the data is in
 * place, possibly before this returns. */
void proto_recv_matched(proto_op_t *op, const proto_msg_t *m);

/* Asks to withdraw a started send that may not have been matched yet. done() runs later,
 * with op->cancelled set when the withdrawal succeeded. Returns 0 when op was already done. */
int proto_cancel_send(proto_op_t *op);

/* The frames sent until proto_group_end may travel as one unit where a transport bundles
 * them (transport.h, "Groups"); nothing else changes. proto_group_end: 0, or -1 with a
 * message in err when a transport failed. */
void proto_group_begin(void);
int proto_group_end(char *err, int errlen);
/* Nonzero when the frames to peer travel through a transport that bundles groups. */
int proto_bundles(int peer);

/* One pass: transports' progress, then queued frames. Returns the number of events, or -1
 * with a message in err. */
int proto_progress(char *err, int errlen);
/* Nonzero while frames wait in outgoing queues, ours or the transports' (MPI_Finalize drains
 * them). */
int proto_has_queued(void);

/* Sleeping (see transport.h): announce, then the caller polls once more, then waits on the
 * descriptors, then ends the sleep. */
void proto_prepare_sleep(void);
void proto_end_sleep(void);
int proto_pollfds(struct pollfd *fds, int max);
/* Wakes world rank peer if it sleeps (transport.h, "Waking"), after a store of what it may
 * wait for. Nothing when its transport cannot sleep or wake. */
void proto_wake(int peer);

/* Copies bytes of world rank peer's memory at remote into local with the transport's remote
 * read (single copy, no message; the caller arranges that the peer keeps the memory
 * valid). 0 when done, 1 when the transport cannot read that peer's memory (nothing copied),
 * -1 with a message in err. */
int proto_rma_read(int peer, void *local, const void *remote, size_t bytes, char *err,
                   int errlen);
/* The other direction: copies local into peer's memory at remote (same results). */
int proto_rma_write(int peer, const void *local, void *remote, size_t bytes, char *err,
                    int errlen);
/* The same between one local buffer and nremote pieces of the peer's memory (in order; their
 * lengths add up to the local buffer's). */
int proto_rma_readv(int peer, void *local, const struct iovec *remote, int nremote, char *err,
                    int errlen);
int proto_rma_writev(int peer, const void *local, const struct iovec *remote, int nremote,
                     char *err, int errlen);

/* A frame from rank src that breaks the protocol (also a message whose envelope the core
 * finds wrong): ends the job with one line naming the peer, the transport its frames come
 * through, and what is wrong (proto.c, "Checks"). */
_Noreturn void proto_bad_frame(int src, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The last PROTO_CONVERSION's description: sender and receiver (ranks, architectures), the
 * type and element that could not be represented. */
const char *proto_conversion_error(void);

/* Largest message sent eagerly to peer (bytes). */
size_t proto_eager_limit(int peer);

#endif
