/*
 * Framed streams: what a byte stream between two processes carries after its handshake, and
 * the types its reader (rx.h) and writer (outq.h) share with the layer above.
 *
 * A frame is an opaque byte string sent whole. On the stream it follows a header; the plain
 * header (NET_FRAME_HDR bytes, little-endian) is
 *   u32 len | u8 head_len | u8 kind | u16 0
 * then len bytes, whose first head_len bytes are the frame's *head* (what its sender gave as
 * the first piece; 0 when the body is not to be placed, see net_place_fn). Kind BYE (len 0)
 * says the sender closes the stream on purpose: an end of stream after it is no failure.
 * Other formats (the gateways' frames, which name their source and destination) are read by
 * the same reader through their own header parser; BYE is NET_KIND_BYE in every format.
 *
 * Every parser is a pure function over the bytes received (tests/fuzz drives them).
 */
#ifndef METAMPI_NET_FRAME_H
#define METAMPI_NET_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

enum {
    NET_FRAME_HDR = 8,
    NET_HEAD_MAX = 255,
};

enum { NET_KIND_FRAME = 0, NET_KIND_BYE = 1 };

typedef struct net_frame_hdr {
    uint32_t len;       /* bytes after the header */
    uint8_t head_len;   /* the first head_len of them are the frame's head */
    uint8_t kind;       /* NET_KIND_*, or a format's own kinds */
    int32_t src;        /* set by parsers: the frame's source when its header names one (a
                         * stream that carries many senders' frames), else -1 */
} net_frame_hdr_t;

void net_frame_hdr_encode(unsigned char out[NET_FRAME_HDR], const net_frame_hdr_t *h);
/* NULL when in is a valid plain frame header for frames of at most max_len bytes (fills *h),
 * else what is wrong with it. */
const char *net_frame_hdr_parse(const unsigned char in[NET_FRAME_HDR], size_t max_len,
                                net_frame_hdr_t *h);

/* ---- what the reader and the writer share with the layer above -------------------------- */

/* A whole frame from src arrived: frame points into the reader's memory, valid only during
 * the call. */
typedef void (*net_deliver_fn)(int src, const void *frame, size_t len);

/* Where a placed body goes: next() hands out up to max iovecs for the next bytes of the body,
 * at most `bytes` of them, and returns how many it filled (at least one, covering at least one
 * byte); done() is called once all of the body is in place. */
typedef struct net_sink {
    int (*next)(void *ctx, struct iovec *iov, int max, size_t bytes);
    void (*done)(void *ctx);
    void *ctx;
} net_sink_t;

/* Placement: asked about a frame whose body (after its head) is large. 1 when the body is to
 * be read through *sink (which it fills), 0 to receive the frame whole. */
typedef int (*net_place_fn)(int src, const void *head, size_t head_len, size_t body_len,
                            net_sink_t *sink);

/* The last len bytes of an outgoing frame, written by pack(ctx, dst, n) straight into the
 * writer's buffer once the frame is taken (possibly in several calls; n bytes each). */
typedef struct net_packer {
    size_t (*pack)(void *ctx, void *dst, size_t n);
    void *ctx;
    size_t len;
} net_packer_t;

#endif
