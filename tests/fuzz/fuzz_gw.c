/*
 * Fuzz target: everything another process can make a site gateway or a rank in gateway mode
 * parse (net/gw_wire.c, tools/gateway/link.c, net/rx.c with the gateway formats). The
 * first input byte picks the parser, the second how a stream is cut into reads:
 *   0  a gateway's HELLO (ranks and other gateways connect to it) and a rank's WELCOME;
 *   1  the rank frames a rank reads from its gateway (header with ranks, placement, STOP
 *      and GO);
 *   2  the rank frames a gateway reads from a rank (relayed with their headers; MULTI frames
 *      taken apart as the gateway checks them);
 *   3  a WAN stream: frames into a link's reorder window as the gateway admits them,
 *      forwarded in order (batches, pieces, compressed bodies), and CREDIT frames.
 * Invariants checked: nothing accepted breaks the limits its parser promises (ASan catches
 * reads and writes outside the buffers).
 */
#include "link.h"
#include "net/gw_wire.h"
#include "net/rx.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { SIZE = 8, MAXF = 1 << 16 };

static const uint32_t size = SIZE;
static volatile unsigned char checksum;
static unsigned char body[MAXF];
static size_t placed, body_len;

static void deliver(int src, const void *frame, size_t len)
{
    if (src < 0 || src >= SIZE || len == 0 || len > MAXF + GW_FRAME_HDR)
        abort();
    for (size_t i = 0; i < len; i++)
        checksum ^= ((const unsigned char *)frame)[i];
}

/* As a rank takes its gateway's frame (header in front): STOP and GO for the transport, the
 * rest for the protocol. */
static void rank_deliver(int src, const void *frame, size_t len)
{
    const unsigned char *p = frame;
    if (len < GW_FRAME_HDR || src < 0 || src >= SIZE)
        abort();
    uint8_t kind = gw_frame_kind(p);
    if (kind == GW_KIND_STOP || kind == GW_KIND_GO) {
        if (len != GW_FRAME_HDR)
            abort();
        return;
    }
    deliver(src, p + GW_FRAME_HDR, len - GW_FRAME_HDR);
}

/* As the gateway takes a rank's frame (header in front): a MULTI's inner frames checked one
 * by one, each within the MULTI and its limits. */
static void relay_deliver(int src, const void *frame, size_t len)
{
    gw_frame_t h, f;
    const unsigned char *p = frame;
    if (len < GW_FRAME_HDR || gw_rank_frame_parse(p, MAXF, SIZE, &h) != NULL ||
        len != GW_FRAME_HDR + h.len || (int)h.src != src)
        abort();
    if (h.kind != GW_KIND_MULTI) {
        deliver(src, frame, len);
        return;
    }
    for (size_t at = GW_FRAME_HDR; at < len; at += GW_FRAME_HDR + f.len) {
        if (gw_multi_next(p + at, len - at, SIZE, (uint32_t)src, &f) != NULL)
            return; /* the gateway drops the rank's connection */
        if (f.kind != GW_KIND_FRAME || GW_FRAME_HDR + f.len > GW_MULTI_ITEM_MAX ||
            f.len > len - at - GW_FRAME_HDR || f.src != (uint32_t)src)
            abort();
        for (size_t i = 0; i < GW_FRAME_HDR + f.len; i++)
            checksum ^= p[at + i];
    }
}

static int next(void *ctx, struct iovec *iov, int max, size_t bytes)
{
    (void)ctx;
    (void)max;
    size_t k = bytes < 777 ? bytes : 777;
    if (placed + k > body_len || k == 0)
        abort();
    iov[0] = (struct iovec){ body + placed, k };
    placed += k;
    return 1;
}

static void done(void *ctx)
{
    (void)ctx;
    if (placed != body_len)
        abort();
}

static int place(int src, const void *head, size_t head_len, size_t len, net_sink_t *sink)
{
    if (src < 0 || src >= SIZE || !head_len || ((const unsigned char *)head)[0] != 'P' ||
        len > sizeof body)
        return 0;
    placed = 0;
    body_len = len;
    *sink = (net_sink_t){ next, done, NULL };
    return 1;
}

static int fwd(void *ctx, const gw_frame_t *h, unsigned char *f, size_t n, int owned,
               char *err, int errlen)
{
    (void)ctx;
    (void)err;
    (void)errlen;
    if (n != GW_FRAME_HDR + h->len || h->dst >= SIZE || h->src >= SIZE)
        abort();
    for (size_t i = 0; i < n; i++)
        checksum ^= f[i];
    if (owned)
        free(f);
    return 1;
}

static gw_link_t *fuzz_link;
static int link_failed;

/* As the gateway admits a WAN frame: the window's rule (a gateway reads nothing else). */
static int wan_admit(void *ctx, const unsigned char *hdr, const net_frame_hdr_t *h)
{
    (void)ctx;
    (void)h;
    gw_wan_t w;
    if (gw_wan_parse(hdr, SIZE, &w) != NULL)
        abort(); /* the reader asks only about valid headers */
    return gw_link_may_read(fuzz_link, &w);
}

static void wan_deliver(int src, const void *frame, size_t len)
{
    (void)src;
    char err[256];
    if (link_failed)
        return; /* the gateway would have ended the job */
    gw_wan_t w;
    if (gw_wan_parse(frame, SIZE, &w) == NULL && (w.kind == GW_WAN_BATCH || w.kind == GW_WAN_PIECE) &&
        (w.seq < fuzz_link->seq_in || w.seq - fuzz_link->seq_in >= GW_RWIN))
        abort(); /* admitted outside the window */
    if (gw_link_take(fuzz_link, 0, frame, len, err, sizeof err) != 0 ||
        gw_link_forward(fuzz_link, fwd, NULL, err, sizeof err) < 0)
        link_failed = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t sz)
{
    if (sz < 2)
        return 0;
    static const auth_key_t key = { { 1, 2, 3, 4, 5, 6, 7, 8 } };
    const uint8_t *in = data + 2;
    size_t n = sz - 2, piece = 1 + (size_t)data[1] * 37;
    char err[256];
    switch (data[0] % 4) {
    case 0: {
        unsigned char na[AUTH_NONCE] = { 9 }, nc[AUTH_NONCE] = { 7 }, buf[GW_HELLO_LEN];
        memset(buf, 0, sizeof buf);
        memcpy(buf, in, n < sizeof buf ? n : sizeof buf);
        gw_hello_t h;
        const gw_keys_t keys = { key, key };
        if (!gw_hello_parse(buf, &keys, na, &h) && h.role != GW_ROLE_RANK &&
            h.role != GW_ROLE_LINK)
            abort();
        gw_welcome_parse(buf, &key, nc, na, 1);
        break;
    }
    case 1:
    case 2: {
        net_rx_t rx;
        if (net_rx_init(&rx, 4096) != 0)
            return 0;
        int relay = data[0] % 4 == 2;
        net_rx_ops_t ops = { .deliver = relay ? relay_deliver : rank_deliver,
                             .place = relay ? NULL : place, .place_min = 64, .max_frame = MAXF,
                             .hdr_len = GW_FRAME_HDR,
                             .parse_hdr = relay ? gw_rank_frame_parse_rx : gw_frame_parse_rx,
                             .hdr_ctx = &size, .with_header = 1 };
        net_rx_feed(&rx, in, n, piece, 0, &ops, err, sizeof err);
        net_rx_free(&rx);
        break;
    }
    default: {
        gw_link_t l;
        static const unsigned char instance[GW_INSTANCE] = { 5 };
        if (gw_link_init(&l, 1, 1, SIZE, MAXF, GW_Z_AUTO, instance) != 0) {
            gw_link_free(&l);
            return 0;
        }
        /* as after the stream's RESUME (a RESUME in the input is then a second one) */
        l.st[0].resumed = l.st[0].up = l.resumed = 1;
        fuzz_link = &l;
        link_failed = 0;
        net_rx_ops_t ops = { .deliver = wan_deliver, .max_frame = 1 << 20,
                             .hdr_len = GW_WAN_HDR, .parse_hdr = gw_wan_parse_rx,
                             .hdr_ctx = &size, .with_header = 1, .admit = wan_admit };
        net_rx_feed(&l.st[0].rx, in, n, piece, 0, &ops, err, sizeof err);
        gw_link_free(&l);
        break;
    }
    }
    return 0;
}

static void add_frame(unsigned char *s, size_t *n, int dst, int src, const char *body_text,
                      size_t len)
{
    gw_frame_encode(s + *n, &(gw_frame_t){ .len = (uint32_t)len, .head_len = 1,
                                           .dst = (uint32_t)dst, .src = (uint32_t)src });
    *n += GW_FRAME_HDR;
    for (size_t i = 0; i < len; i++)
        s[(*n)++] = (unsigned char)body_text[i % strlen(body_text)];
}

/* A HELLO, a rank stream (a frame, STOP, a frame to place, GO, BYE), a gateway's rank stream
 * with a MULTI, a WAN stream (a batch of two frames, a large frame in two pieces, a
 * heartbeat, a CREDIT, BYE). */
void fuzz_make_seeds(void (*add)(const void *data, size_t size))
{
    static const auth_key_t key = { { 1, 2, 3, 4, 5, 6, 7, 8 } };
    unsigned char s[4096], na[AUTH_NONCE] = { 9 }, nc[AUTH_NONCE] = { 7 };
    s[0] = 0;
    s[1] = 3;
    gw_hello_encode(s + 2, &key, GW_ROLE_LINK, 1 | 2 << 16, 0 | 1 << 16, na, nc);
    add(s, 2 + GW_HELLO_LEN);
    size_t n = 2;
    s[0] = 1;
    add_frame(s, &n, 1, 2, "EAGER", 40);
    gw_frame_encode(s + n, &(gw_frame_t){ .kind = GW_KIND_STOP, .dst = 1, .src = 4 });
    n += GW_FRAME_HDR;
    add_frame(s, &n, 1, 3, "P", 300);
    gw_frame_encode(s + n, &(gw_frame_t){ .kind = GW_KIND_GO, .dst = 1, .src = 4 });
    n += GW_FRAME_HDR;
    gw_frame_encode(s + n, &(gw_frame_t){ .kind = GW_KIND_BYE });
    n += GW_FRAME_HDR;
    add(s, n);
    s[0] = 2;
    add(s, n);
    /* a rank's MULTI of two frames, then a frame */
    n = 2;
    unsigned char multi[256];
    size_t mn = 0;
    add_frame(multi, &mn, 5, 2, "M1", 20);
    add_frame(multi, &mn, 6, 2, "M2", 35);
    gw_frame_encode(s + n, &(gw_frame_t){ .len = (uint32_t)mn, .kind = GW_KIND_MULTI, .dst = 5,
                                          .src = 2 });
    n += GW_FRAME_HDR;
    memcpy(s + n, multi, mn);
    n += mn;
    add_frame(s, &n, 5, 2, "F", 10);
    add(s, n);
    n = 2;
    s[0] = 3;
    unsigned char batch[512];
    size_t bn = 0;
    add_frame(batch, &bn, 1, 5, "ab", 30);
    add_frame(batch, &bn, 2, 6, "cd", 50);
    gw_wan_encode(s + n, &(gw_wan_t){ .kind = GW_WAN_BATCH, .len = (uint32_t)bn,
                                      .raw_len = (uint32_t)bn, .seq = 0 });
    n += GW_WAN_HDR;
    memcpy(s + n, batch, bn);
    n += bn;
    add(s, n);
    add(s, 2 + GW_WAN_HDR + 10); /* cut short */
    gw_wan_encode(s + n, &(gw_wan_t){ .kind = GW_WAN_ACK, .seq = 1 });
    n += GW_WAN_HDR;
    gw_wan_encode(s + n, &(gw_wan_t){ .kind = GW_WAN_CREDIT, .len = 16, .raw_len = 16 });
    n += GW_WAN_HDR;
    memset(s + n, 0, 16); /* credit for 0 bytes to ranks 0 and 0 */
    n += 16;
    gw_wan_encode(s + n, &(gw_wan_t){ .kind = GW_WAN_BYE });
    n += GW_WAN_HDR;
    add(s, n);
}
