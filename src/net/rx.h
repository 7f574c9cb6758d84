/*
 * The incoming side of one connection: reads the byte stream and cuts it into frames
 * (frame.h's plain format, or another header format the ops name: the gateway transport's
 * frames, which carry their source and destination, and the gateways' WAN frames). A frame
 * that fits the buffer is delivered in place (zero-copy: the pointer is into the buffer,
 * valid during the call); a frame whose body the layer above places (net_place_fn) is read
 * straight into the iovecs it names, with no copy between; a larger frame is read into a
 * buffer of its own.
 *
 * Invariant: between calls the state is one of
 *   HDR     the next byte in the buffer (or on the socket) starts a frame header;
 *   PLACED  body_left bytes of a placed body are still to be read into the sink;
 *   BIG     a frame larger than the buffer is being read into `big`.
 */
#ifndef METAMPI_NET_RX_H
#define METAMPI_NET_RX_H

#include "net/frame.h"
#include "net/secure.h"

#include <stddef.h>
#include <sys/uio.h>

enum { NET_RX_IOV = 64 };

typedef struct net_rx {
    unsigned char *buf;
    size_t cap, start, end;     /* buffered, unprocessed bytes: [start, end) */
    int state;
    net_frame_hdr_t h;
    net_sink_t sink;            /* PLACED */
    size_t body_left;
    struct iovec iov[NET_RX_IOV];
    int niov, iovi;
    unsigned char *big;         /* BIG */
    size_t big_got;
    int bye;                    /* the peer said BYE */
    int refused;                /* the last run stopped at a frame admit() refused */
    net_secure_t *sec;          /* not NULL: the stream is read through TLS (secure.h); the
                                 * owner's, set after net_rx_init */
} net_rx_t;

/* Parses a frame header of hdr_len bytes: NULL when valid for frames of at most max_len
 * bytes (fills *h; h->src >= 0 names the frame's source), else what is wrong with it. ctx is
 * the ops' hdr_ctx (what the parser checks against, e.g. the job size). */
typedef const char *(*net_hdr_parse_fn)(const unsigned char *in, size_t max_len,
                                        net_frame_hdr_t *h, const void *ctx);

typedef struct net_rx_ops {
    net_deliver_fn deliver;
    net_place_fn place;         /* NULL: nothing is placed */
    size_t place_min;           /* smallest body offered to place */
    size_t max_frame;
    /* The header format; both 0/NULL: the plain one (net_frame_hdr_parse). A frame whose
     * header names its source (h.src >= 0) is delivered and placed from that source, not
     * from the connection's. Kind NET_KIND_BYE (no body) is the sender's BYE in every
     * format. */
    size_t hdr_len;             /* at most NET_RX_HDR_MAX */
    net_hdr_parse_fn parse_hdr;
    const void *hdr_ctx;        /* parse_hdr's ctx */
    const char *peer;           /* what src names in messages ("rank", "stream"); NULL: "peer" */
    int with_header;            /* deliver each frame with its header in front (a relay,
                                 * which forwards the bytes as they came; len includes it) */
    /* Admission (NULL: every frame is taken): asked about each frame, with its raw and
     * parsed header, before any byte of it is consumed — on every path, whether the header
     * was in the buffer before the call or has just been read. 0 leaves that frame (and all
     * after it) where it is: net_rx_run returns, sets `refused`, and the next call asks
     * again. BYE is not asked about. */
    int (*admit)(void *ctx, const unsigned char *hdr, const net_frame_hdr_t *h);
    void *admit_ctx;
} net_rx_ops_t;

enum { NET_RX_HDR_MAX = 64 };

/* 0, or -1 when out of memory. */
int net_rx_init(net_rx_t *rx, size_t cap);
void net_rx_free(net_rx_t *rx);

/* Reads what fd has and handles up to budget frames from src. Returns the frames
 * handled; -1 with a message in err on a socket error or a malformed frame. *eof is set when
 * the peer closed its end (a frame cut short by it is an error). */
int net_rx_run(net_rx_t *rx, int fd, int src, const net_rx_ops_t *ops, int budget, int *eof,
               char *err, int errlen);

/* Nonzero while a frame has been started but not finished (its body is still arriving). */
int net_rx_midframe(const net_rx_t *rx);

/* The same parser over bytes already in memory, for the fuzz target: feeds data (as if read
 * from a socket in pieces of at most `piece` bytes) and handles every frame, up to the first
 * that admit() refuses. -1 with err on a malformed stream, else the frames handled. Placed
 * bodies are copied into the sink. */
int net_rx_feed(net_rx_t *rx, const void *data, size_t len, size_t piece, int src,
                const net_rx_ops_t *ops, char *err, int errlen);

#endif
