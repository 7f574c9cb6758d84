/*
 * Fuzz target: the TCP transport's frame stream (net/rx.c) as a peer could send
 * it after the handshake. The first input byte picks how the stream is cut into reads; the
 * rest is the stream. Frames whose head starts with 'P' are offered for placement and
 * placed into a scratch body through iovecs of varying size (as proto does for DATA), the
 * others are delivered whole. Every delivered or placed frame is checked against the header
 * that announced it (lengths add up, nothing is written outside the buffers: ASan).
 */
#include "net/rx.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static unsigned char body[1 << 16];
static volatile unsigned char checksum; /* keeps the reads of delivered frames */
static size_t placed, body_len, iov_step;
static int done_calls, frames;

static void deliver(int src, const void *frame, size_t len)
{
    (void)src;
    if (len == 0 || len > (1 << 16))
        abort(); /* the header check must have refused it */
    for (size_t i = 0; i < len; i++) /* every byte of the frame must be readable */
        checksum ^= ((const unsigned char *)frame)[i];
    frames++;
}

static int next(void *ctx, struct iovec *iov, int max, size_t bytes)
{
    (void)ctx;
    int n = 0;
    while (n < max && bytes && placed < body_len) {
        size_t k = iov_step < bytes ? iov_step : bytes;
        iov[n++] = (struct iovec){ body + placed, k };
        placed += k;
        bytes -= k;
    }
    if (n == 0)
        abort(); /* asked for more than the body */
    return n;
}

static void done(void *ctx)
{
    (void)ctx;
    if (placed != body_len)
        abort();
    done_calls++;
    frames++;
}

static int place(int src, const void *head, size_t head_len, size_t len, net_sink_t *sink)
{
    (void)src;
    if (head_len == 0 || ((const unsigned char *)head)[0] != 'P' || len > sizeof body)
        return 0;
    placed = 0;
    body_len = len;
    iov_step = 1 + ((const unsigned char *)head)[head_len - 1] % 4096;
    *sink = (net_sink_t){ next, done, NULL };
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t piece = 1 + (size_t)data[0] * 37;
    net_rx_t rx;
    if (net_rx_init(&rx, 4096) != 0)
        return 0;
    net_rx_ops_t ops = { .deliver = deliver, .place = place, .place_min = 64,
                         .max_frame = 1 << 16 };
    char err[256];
    net_rx_feed(&rx, data + 1, size - 1, piece, 3, &ops, err, sizeof err);
    net_rx_free(&rx);
    return 0;
}

/* A stream of a whole frame, a frame to place, a frame cut across reads, and a BYE. */
void fuzz_make_seeds(void (*add)(const void *data, size_t size))
{
    unsigned char s[1 + 3 * NET_FRAME_HDR + 8 + 200 + NET_FRAME_HDR];
    size_t n = 0;
    s[n++] = 3; /* read size */
    net_frame_hdr_encode(s + n, &(net_frame_hdr_t){ .len = 8, .head_len = 4 });
    n += NET_FRAME_HDR;
    memcpy(s + n, "EAGRdata", 8);
    n += 8;
    net_frame_hdr_encode(s + n, &(net_frame_hdr_t){ .len = 100, .head_len = 2 });
    n += NET_FRAME_HDR;
    s[n] = 'P';
    s[n + 1] = 200;
    memset(s + n + 2, 'b', 98);
    n += 100;
    net_frame_hdr_encode(s + n, &(net_frame_hdr_t){ .len = 100, .head_len = 0 });
    n += NET_FRAME_HDR;
    memset(s + n, 'c', 100);
    n += 100;
    net_frame_hdr_encode(s + n, &(net_frame_hdr_t){ .kind = NET_KIND_BYE });
    n += NET_FRAME_HDR;
    add(s, n);
    s[0] = 255;
    add(s, n);
}
