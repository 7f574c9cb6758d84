/*
 * Unit tests of a gateway's WAN link layer (tools/gateway/link.c) and its compression
 * decision (zc.c), without sockets: the WAN frames that one link queues on its streams are
 * moved to another link's receiving side in scrambled stream order, as parallel TCP streams
 * may deliver them, and what comes out is checked against what went in.
 */
#include "link.h"
#include "zc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                                              \
    do {                                                                                      \
        if (!(c)) {                                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);             \
            failures++;                                                                       \
        }                                                                                     \
    } while (0)

enum { SIZE = 16, MAXF = (4 << 20) + 256 };

static unsigned long long rng = 88172645463325252ull;
static unsigned rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)rng;
}

/* A rank frame from src to dst of body bytes whose content encodes (src, dst, number). */
static unsigned char *make_frame(int src, int dst, size_t body, unsigned num, size_t *n)
{
    *n = GW_FRAME_HDR + body;
    unsigned char *f = malloc(*n);
    gw_frame_encode(f, &(gw_frame_t){ .len = (uint32_t)body, .kind = GW_KIND_FRAME,
                                      .dst = (uint32_t)dst, .src = (uint32_t)src });
    for (size_t i = 0; i < body; i++)
        f[GW_FRAME_HDR + i] = (unsigned char)(i < 4 ? num >> (8 * i) : (num * 31 + i));
    return f;
}

/* Takes the oldest queued WAN frame of a stream (each is one segment: owned, or borrowed
 * from the frames the link keeps for resending, which is copied). */
static unsigned char *pop(net_outq_t *q, size_t *n)
{
    if (!q->n)
        return NULL;
    net_seg_t *s = &q->seg[q->first];
    unsigned char *p = s->owned;
    *n = s->len;
    if (p) {
        q->copied -= s->len;
    } else {
        p = malloc(s->len);
        memcpy(p, s->p, s->len);
        q->borrowed -= s->len;
    }
    q->first = (q->first + 1) % q->cap;
    q->n--;
    return p;
}

typedef struct sink {
    unsigned next[SIZE][SIZE];     /* expected number per (src, dst) */
    int frames, refuse_after;      /* refuse_after >= 0: say "full" after that many */
    size_t bytes;
} sink_t;

static int fwd(void *ctx, const gw_frame_t *h, unsigned char *f, size_t n, int owned,
               char *err, int errlen)
{
    (void)err;
    (void)errlen;
    sink_t *s = ctx;
    if (s->refuse_after >= 0 && s->frames >= s->refuse_after)
        return 0;
    CHECK(n == GW_FRAME_HDR + h->len);
    unsigned num = 0;
    for (int i = 0; i < 4 && i < (int)h->len; i++)
        num |= (unsigned)f[GW_FRAME_HDR + i] << (8 * i);
    CHECK(num == s->next[h->src][h->dst]); /* non-overtaking per pair */
    s->next[h->src][h->dst]++;
    int ok = 1;
    for (size_t i = 4; i < h->len; i++)
        ok &= f[GW_FRAME_HDR + i] == (unsigned char)(num * 31 + i);
    CHECK(ok);
    s->frames++;
    s->bytes += n;
    if (owned)
        free(f);
    return 1;
}

/* Moves every queued WAN frame of a to b's receiving side, picking streams at random. */
static void move_all(gw_link_t *a, gw_link_t *b)
{
    char err[256];
    for (;;) {
        int any = 0;
        for (int i = 0; i < a->nst; i++)
            any |= a->st[i].out.n > 0;
        if (!any)
            return;
        int i = (int)(rnd() % (unsigned)a->nst);
        size_t n;
        unsigned char *p = pop(&a->st[i].out, &n);
        if (!p)
            continue;
        gw_wan_t w;
        CHECK(gw_wan_parse(p, SIZE, &w) == NULL);
        CHECK(gw_link_may_read(b, &w));
        CHECK(gw_link_take(b, i, p, n, err, sizeof err) == 0);
        free(p);
    }
}

static const unsigned char INST_A[GW_INSTANCE] = { 'a' }, INST_B[GW_INSTANCE] = { 'b' };

/* Opens every stream of both links (a RESUME each way on each) and delivers the RESUMEs. */
static void open_streams(gw_link_t *a, gw_link_t *b)
{
    for (int i = 0; i < a->nst; i++)
        CHECK(gw_link_stream_open(a, i) == 0 && gw_link_stream_open(b, i) == 0);
    move_all(a, b);
    move_all(b, a);
    CHECK(a->resumed && b->resumed && gw_link_resumed(a) && gw_link_resumed(b));
}

static void init_pair(gw_link_t *a, gw_link_t *b, int streams, int z)
{
    CHECK(gw_link_init(a, 1, streams, SIZE, MAXF, z, INST_A) == 0);
    CHECK(gw_link_init(b, 0, streams, SIZE, MAXF, z, INST_B) == 0);
    open_streams(a, b);
}

/* A link for feeding frames by hand: as after its stream's RESUME. */
static void init_fed(gw_link_t *l, int z)
{
    CHECK(gw_link_init(l, 0, 1, SIZE, MAXF, z, INST_B) == 0);
    l->st[0].up = l->st[0].resumed = l->resumed = 1;
}

/* Many ranks, small and large frames, scrambled streams: everything arrives, in order per
 * pair, once. */
static void test_order(int streams, int z)
{
    gw_link_t a, b;
    init_pair(&a, &b, streams, z);
    sink_t s = { .refuse_after = -1 };
    unsigned sent[SIZE][SIZE] = { { 0 } };
    char err[256];
    size_t total = 0;
    for (int k = 0; k < 600; k++) {
        int src = (int)(rnd() % 8), dst = 8 + (int)(rnd() % 8);
        size_t body = rnd() % 10 == 0 ? 70000 + rnd() % 900000 : 4 + rnd() % 3000;
        size_t n;
        unsigned char *f = make_frame(src, dst, body, sent[src][dst]++, &n);
        CHECK(gw_link_send(&a, f, n) == 0);
        total += n;
        free(f);
        if (rnd() % 4 == 0)
            CHECK(gw_link_flush_batch(&a) == 0);
        if (rnd() % 8 == 0) {
            move_all(&a, &b);
            CHECK(gw_link_forward(&b, fwd, &s, err, sizeof err) >= 0);
        }
    }
    CHECK(gw_link_flush_batch(&a) == 0);
    move_all(&a, &b);
    CHECK(gw_link_forward(&b, fwd, &s, err, sizeof err) >= 0);
    CHECK(s.frames == 600 && s.bytes == total);
    CHECK(b.seq_in == a.seq_out && b.held == 0 && !gw_link_backlog(&b));
    for (int i = 0; i < SIZE; i++)
        for (int j = 0; j < SIZE; j++)
            CHECK(s.next[i][j] == sent[i][j]);
    gw_link_free(&a);
    gw_link_free(&b);
}

/* Frames sent without a flush in between leave as one WAN frame; a frame that would overflow
 * the batch starts the next one. */
static void test_coalescing(void)
{
    gw_link_t a, b;
    init_pair(&a, &b, 2, GW_Z_OFF);
    for (unsigned k = 0; k < 50; k++) {
        size_t n;
        unsigned char *f = make_frame(1, 9, 100, k, &n);
        gw_link_send(&a, f, n);
        free(f);
    }
    CHECK(a.seq_out == 0 && a.batch_len == 50 * (GW_FRAME_HDR + 100));
    gw_link_flush_batch(&a);
    CHECK(a.seq_out == 1 && a.batch_len == 0);
    gw_link_flush_batch(&a); /* nothing open: nothing sent */
    CHECK(a.seq_out == 1);
    /* 5 frames of 60 KiB: 4 fit a 256 KiB batch, the 5th opens the next */
    for (unsigned k = 0; k < 5; k++) {
        size_t n;
        unsigned char *f = make_frame(2, 9, 60 << 10, k, &n);
        gw_link_send(&a, f, n);
        free(f);
    }
    CHECK(a.seq_out == 2);
    gw_link_flush_batch(&a);
    CHECK(a.seq_out == 3);
    gw_link_free(&a);
    gw_link_free(&b);
}

/* A rank's MULTI: its frames make one BATCH of their own, after the open batch (order), and
 * the receiving link splits it into the frames as sent. The parsers refuse what a gateway
 * must not take: a MULTI from a rank other than its frames', a MULTI where only frames may
 * come (what the gateway sends a rank), frames too large for one, a MULTI too large. */
static void test_multi(void)
{
    gw_link_t a, b;
    init_pair(&a, &b, 2, GW_Z_OFF);
    size_t n;
    unsigned char *f = make_frame(3, 9, 200, 0, &n);
    CHECK(gw_link_send(&a, f, n) == 0); /* the open batch */
    free(f);
    unsigned char *body = malloc(GW_MULTI_MAX);
    size_t len = 0;
    for (unsigned k = 0; k < 3; k++) { /* to 9 (after the open batch's), 10 and 11 */
        f = make_frame(3, 9 + (int)k, k ? 50000 : 1000, k ? 0 : 1, &n);
        memcpy(body + len, f, n);
        len += n;
        free(f);
    }
    unsigned char hdr[GW_FRAME_HDR];
    gw_frame_t h = { .len = (uint32_t)len, .kind = GW_KIND_MULTI, .dst = 9, .src = 3 }, p;
    gw_frame_encode(hdr, &h);
    CHECK(gw_rank_frame_parse(hdr, MAXF, SIZE, &p) == NULL && p.kind == GW_KIND_MULTI);
    CHECK(gw_frame_parse(hdr, MAXF, SIZE, &p) != NULL); /* never towards a rank */
    for (size_t at = 0; at < len; at += GW_FRAME_HDR + p.len)
        CHECK(gw_multi_next(body + at, len - at, SIZE, 3, &p) == NULL);
    CHECK(gw_multi_next(body, len, SIZE, 4, &p) != NULL); /* another sender's frames */
    CHECK(gw_multi_next(body, GW_FRAME_HDR + 10, SIZE, 3, &p) != NULL); /* cut short */
    CHECK(gw_link_send_multi(&a, body, len) == 0);
    CHECK(a.seq_out == 2 && a.batch_len == 0); /* the open batch, then the MULTI's */
    move_all(&a, &b);
    sink_t s = { .refuse_after = -1 };
    char err[256];
    CHECK(gw_link_forward(&b, fwd, &s, err, sizeof err) == 4);
    CHECK(s.next[3][9] == 2 && s.next[3][10] == 1 && s.next[3][11] == 1);
    /* limits: an inner frame above GW_MULTI_ITEM_MAX, a MULTI above GW_MULTI_MAX */
    f = make_frame(3, 9, GW_MULTI_ITEM_MAX, 0, &n);
    CHECK(gw_multi_next(f, n, SIZE, 3, &p) != NULL);
    free(f);
    h.len = GW_MULTI_MAX + 1;
    gw_frame_encode(hdr, &h);
    CHECK(gw_rank_frame_parse(hdr, MAXF, SIZE, &p) != NULL);
    free(body);
    gw_link_free(&a);
    gw_link_free(&b);
}

/* A large frame is cut into pieces spread over the streams and put together again; the
 * open batch goes first (the sender's order). */
static void test_striping(void)
{
    gw_link_t a, b;
    init_pair(&a, &b, 4, GW_Z_OFF);
    size_t n;
    unsigned char *f = make_frame(3, 12, 10, 0, &n);
    gw_link_send(&a, f, n);
    free(f);
    f = make_frame(3, 12, 1 << 20, 1, &n);
    gw_link_send(&a, f, n);
    free(f);
    CHECK(a.seq_out == 1 + (n + GW_PIECE - 1) / GW_PIECE);
    for (int i = 0; i < 4; i++)
        CHECK(a.st[i].out.n >= 1); /* striped over every stream */
    sink_t s = { .refuse_after = -1 };
    char err[256];
    move_all(&a, &b);
    CHECK(gw_link_forward(&b, fwd, &s, err, sizeof err) == 2);
    CHECK(s.next[3][12] == 2);
    gw_link_free(&a);
    gw_link_free(&b);
}

/* Bounds: the link's queue limit, the reorder window (frames and bytes), and a destination
 * that refuses: forwarding stops and resumes where it stopped. */
static void test_bounds(void)
{
    gw_link_t a, b;
    init_pair(&a, &b, 1, GW_Z_OFF);
    size_t n = 0;
    int k = 0;
    while (!gw_link_full(&a) && k < 100) { /* to different ranks: within their credit */
        unsigned char *f = make_frame(0, 8 + k % 8, 2 << 20, 0, &n);
        gw_link_send(&a, f, n);
        free(f);
        k++;
    }
    CHECK(k == (GW_LINK_MAX + (int)n - 1) / (int)n);
    CHECK(gw_link_queued(&a) < GW_LINK_MAX + n);
    /* the receiving window: the next frame always, far ones never */
    gw_wan_t w = { .kind = GW_WAN_BATCH, .raw_len = 100, .len = 100, .seq = 0 };
    CHECK(gw_link_may_read(&b, &w));
    w.seq = GW_RWIN;
    CHECK(!gw_link_may_read(&b, &w));
    w.seq = 5;
    w.raw_len = GW_REORDER_MAX + 1;
    CHECK(!gw_link_may_read(&b, &w));
    w.seq = 0;
    CHECK(gw_link_may_read(&b, &w)); /* the next one even when it is large */
    /* a destination that refuses */
    sink_t s = { .refuse_after = 3 };
    char err[256];
    move_all(&a, &b);
    CHECK(gw_link_forward(&b, fwd, &s, err, sizeof err) == 3);
    CHECK(gw_link_backlog(&b) || b.part_ready);
    s.refuse_after = -1;
    CHECK(gw_link_forward(&b, fwd, &s, err, sizeof err) == k - 3);
    CHECK(b.held == 0);
    gw_link_free(&a);
    gw_link_free(&b);
}

/* The receiving side delivers everything forwarded so far, and its CREDIT frames go back to
 * the sending side. */
static void credit_back(gw_link_t *a, gw_link_t *b)
{
    for (uint32_t d = 0; d < SIZE; d++)
        if (b->dst[d].held)
            gw_link_delivered(b, d, b->dst[d].held);
    CHECK(gw_link_flush_credit(b) == 0);
    move_all(b, a);
}

/* Credit per destination: frames for a rank that does not take them wait at the sending
 * link once GW_CREDIT bytes are out (in order, parked), while frames for other ranks go on;
 * the receiver never holds more than the credit for it, and the parked frames leave as its
 * credit comes back. A MULTI with a frame for that rank is split into its frames. */
static void test_credit(void)
{
    gw_link_t a, b;
    init_pair(&a, &b, 2, GW_Z_OFF);
    sink_t s = { .refuse_after = -1 };
    char err[256];
    size_t n, sent = 0;
    unsigned num = 0;
    while (sent < 3 * (size_t)GW_CREDIT) { /* 24 MiB for rank 9, none delivered */
        unsigned char *f = make_frame(1, 9, 40000, num++, &n);
        CHECK(gw_link_send(&a, f, n) == 0);
        free(f);
        sent += n;
    }
    CHECK(gw_link_flush_batch(&a) == 0);
    CHECK(a.dst[9].owed <= GW_CREDIT && a.dst[9].owed + n > GW_CREDIT);
    CHECK(gw_link_parked(&a, 9) == sent - a.dst[9].owed && a.parks == num - a.dst[9].owed / n);
    /* rank 10's frames, also in a MULTI with one for rank 11, pass the parked ones */
    unsigned char *f = make_frame(1, 10, 100, 0, &n);
    CHECK(gw_link_send(&a, f, n) == 0);
    free(f);
    unsigned char body[2 * (GW_FRAME_HDR + 100)];
    f = make_frame(1, 10, 100, 1, &n);
    memcpy(body, f, n);
    free(f);
    f = make_frame(1, 11, 100, 0, &n);
    memcpy(body + n, f, n);
    free(f);
    CHECK(gw_link_send_multi(&a, body, sizeof body) == 0 && a.multi_out == 1);
    move_all(&a, &b);
    CHECK(gw_link_forward(&b, fwd, &s, err, sizeof err) > 0);
    CHECK(s.next[1][10] == 2 && s.next[1][11] == 1);
    CHECK(b.dst[9].held == a.dst[9].owed && b.dst[9].held <= GW_CREDIT);
    /* a MULTI with a frame for rank 9 (no credit): its frames one by one, 9's parked */
    f = make_frame(1, 9, 100, num++, &n);
    memcpy(body, f, n);
    free(f);
    f = make_frame(1, 11, 100, 1, &n);
    memcpy(body + n, f, n);
    free(f);
    size_t parked = gw_link_parked(&a, 9);
    CHECK(gw_link_send_multi(&a, body, sizeof body) == 0 && a.multi_out == 1);
    CHECK(gw_link_parked(&a, 9) == parked + n);
    CHECK(gw_link_flush_batch(&a) == 0);
    move_all(&a, &b);
    CHECK(gw_link_forward(&b, fwd, &s, err, sizeof err) == 1 && s.next[1][11] == 2);
    /* credit in pieces: a report only once GW_CREDIT_REPORT bytes are due */
    gw_link_delivered(&b, 9, GW_CREDIT_REPORT - 1);
    CHECK(gw_link_flush_credit(&b) == 0 && b.st[0].out.n + b.st[1].out.n == 0);
    gw_link_delivered(&b, 9, 1);
    CHECK(gw_link_flush_credit(&b) == 0 && b.st[0].out.n + b.st[1].out.n == 1);
    move_all(&b, &a);
    CHECK(a.credits_in == 1 && gw_link_parked(&a, 9) < parked + n);
    /* the rest, round after round, until rank 9 has all of its frames, in order */
    for (int round = 0; round < 20 && (gw_link_parked(&a, 9) || a.dst[9].owed); round++) {
        CHECK(gw_link_flush_batch(&a) == 0);
        move_all(&a, &b);
        CHECK(gw_link_forward(&b, fwd, &s, err, sizeof err) >= 0);
        CHECK(b.dst[9].held <= GW_CREDIT);
        credit_back(&a, &b);
    }
    CHECK(s.next[1][9] == num && gw_link_parked(&a, 9) == 0 && a.parked_total == 0);
    CHECK(a.dst[9].owed == 0 && b.dst[9].held == 0 && b.dst[9].delivered == b.dst[9].reported);
    /* large frames: the second would pass the credit and waits until the first is credited */
    for (unsigned k = 0; k < 2; k++) {
        f = make_frame(2, 12, 4 << 20, k, &n);
        CHECK(gw_link_send(&a, f, n) == 0 && gw_link_parked(&a, 12) == k * n);
        free(f);
    }
    move_all(&a, &b);
    CHECK(gw_link_forward(&b, fwd, &s, err, sizeof err) == 1);
    credit_back(&a, &b);
    CHECK(gw_link_parked(&a, 12) == 0);
    move_all(&a, &b);
    CHECK(gw_link_forward(&b, fwd, &s, err, sizeof err) == 1 && s.next[2][12] == 2);
    gw_link_free(&a);
    gw_link_free(&b);
}

/* Protocol violations are errors, not crashes. */
static void test_violations(void)
{
    gw_link_t b;
    init_fed(&b, GW_Z_OFF);
    char err[256];
    size_t n;
    unsigned char *f = make_frame(1, 9, 20, 0, &n);
    unsigned char wan[GW_WAN_HDR + 64];
    gw_wan_encode(wan, &(gw_wan_t){ .kind = GW_WAN_BATCH, .len = (uint32_t)n,
                                    .raw_len = (uint32_t)n, .seq = GW_RWIN });
    memcpy(wan + GW_WAN_HDR, f, n);
    CHECK(gw_link_take(&b, 0, wan, GW_WAN_HDR + n, err, sizeof err) == -1); /* beyond window */
    gw_wan_encode(wan, &(gw_wan_t){ .kind = GW_WAN_BATCH, .len = (uint32_t)n,
                                    .raw_len = (uint32_t)n, .seq = 0 });
    CHECK(gw_link_take(&b, 0, wan, GW_WAN_HDR + n, err, sizeof err) == 0);
    CHECK(gw_link_take(&b, 0, wan, GW_WAN_HDR + n, err, sizeof err) == -1); /* repeated */
    CHECK(strstr(err, "out of order") != NULL);
    /* a batch whose frame runs past its end */
    gw_wan_encode(wan, &(gw_wan_t){ .kind = GW_WAN_BATCH, .len = (uint32_t)n - 1,
                                    .raw_len = (uint32_t)n - 1, .seq = 1 });
    CHECK(gw_link_take(&b, 0, wan, GW_WAN_HDR + n - 1, err, sizeof err) == 0);
    sink_t s = { .refuse_after = -1 };
    CHECK(gw_link_forward(&b, fwd, &s, err, sizeof err) == -1);
    /* a compressed body that is not zstd */
    gw_link_t c;
    init_fed(&c, GW_Z_AUTO);
    gw_wan_encode(wan, &(gw_wan_t){ .kind = GW_WAN_BATCH, .flags = GW_WAN_Z, .len = 20,
                                    .raw_len = 4000, .seq = 0 });
    CHECK(gw_link_take(&c, 0, wan, GW_WAN_HDR + 20, err, sizeof err) == -1);
    /* credit for bytes never sent */
    gw_wan_encode(wan, &(gw_wan_t){ .kind = GW_WAN_CREDIT, .len = 8, .raw_len = 8 });
    memcpy(wan + GW_WAN_HDR, "\x09\0\0\0\x10\0\0\0", 8);
    CHECK(gw_link_take(&c, 0, wan, GW_WAN_HDR + 8, err, sizeof err) == -1);
    CHECK(strstr(err, "never sent") != NULL);
    /* frames for a rank beyond its credit (the receiver does not deliver any) */
    gw_link_t d;
    init_fed(&d, GW_Z_OFF);
    unsigned char *big = malloc(GW_WAN_HDR + 3 * GW_BATCH_MAX);
    size_t at = GW_WAN_HDR;
    int rc = 0;
    sink_t fresh = { .refuse_after = -1 };
    for (unsigned k = 0; rc >= 0 && k < GW_CREDIT / (60 << 10) + 2; k++) {
        unsigned char *g = make_frame(1, 9, 60 << 10, k, &n);
        memcpy(big + GW_WAN_HDR, g, n);
        free(g);
        at = GW_WAN_HDR + n;
        gw_wan_encode(big, &(gw_wan_t){ .kind = GW_WAN_BATCH, .len = (uint32_t)n,
                                        .raw_len = (uint32_t)n, .seq = k });
        CHECK(gw_link_take(&d, 0, big, at, err, sizeof err) == 0);
        rc = gw_link_forward(&d, fwd, &fresh, err, sizeof err);
    }
    CHECK(rc == -1 && strstr(err, "beyond its credit") != NULL);
    free(big);
    free(f);
    gw_link_free(&b);
    gw_link_free(&c);
    gw_link_free(&d);
}

/* What flow control adds to the wire: STOP and GO only from a gateway to a rank, never in a
 * batch or from a rank; CREDIT headers checked. */
static void test_flow_wire(void)
{
    unsigned char hdr[GW_WAN_HDR];
    gw_frame_t p;
    net_frame_hdr_t t;
    uint32_t size = SIZE;
    gw_frame_encode(hdr, &(gw_frame_t){ .kind = GW_KIND_STOP, .dst = 3, .src = 9 });
    CHECK(gw_frame_parse_rx(hdr, MAXF, &t, &size) == NULL && t.src == 9 && t.len == 0);
    CHECK(gw_frame_kind(hdr) == GW_KIND_STOP);
    CHECK(gw_frame_parse(hdr, MAXF, SIZE, &p) != NULL);      /* not in a batch */
    CHECK(gw_rank_frame_parse(hdr, MAXF, SIZE, &p) != NULL); /* not from a rank */
    gw_frame_encode(hdr, &(gw_frame_t){ .kind = GW_KIND_GO, .len = 1, .dst = 3, .src = 9 });
    CHECK(gw_frame_parse_rx(hdr, MAXF, &t, &size) != NULL);  /* with a body */
    gw_frame_encode(hdr, &(gw_frame_t){ .kind = GW_KIND_GO, .dst = 3, .src = SIZE });
    CHECK(gw_frame_parse_rx(hdr, MAXF, &t, &size) != NULL);  /* about no rank */
    gw_wan_t w;
    gw_wan_encode(hdr, &(gw_wan_t){ .kind = GW_WAN_CREDIT, .len = 16, .raw_len = 16 });
    CHECK(gw_wan_parse(hdr, SIZE, &w) == NULL);
    gw_wan_encode(hdr, &(gw_wan_t){ .kind = GW_WAN_CREDIT, .len = 12, .raw_len = 12 });
    CHECK(gw_wan_parse(hdr, SIZE, &w) != NULL);               /* not whole entries */
    gw_wan_encode(hdr, &(gw_wan_t){ .kind = GW_WAN_CREDIT, .len = 8, .raw_len = 8, .seq = 4 });
    CHECK(gw_wan_parse(hdr, SIZE, &w) != NULL);               /* numbered */
}

/* The decision: compressible data is compressed, incompressible data switches it off for a
 * while (no sample is taken then), and a fast link makes a modest gain not worth it. */
static void test_compression(void)
{
    CHECK(gw_z_pays(0.5, 500e6, 125e6));
    CHECK(!gw_z_pays(0.95, 5e9, 1e6));       /* does not shrink enough */
    CHECK(!gw_z_pays(0.5, 200e6, 125e6));    /* 100 MB/s saved < 125 MB/s of link */
    CHECK(gw_z_pays(0.5, 200e6, 0));         /* link rate unknown: the ratio decides */
    gw_z_t z;
    CHECK(gw_z_init(&z, GW_Z_AUTO) == 0);
    size_t n = 256 << 10;
    unsigned char *src = malloc(n), *dst = malloc(gw_z_bound(n)), *back = malloc(n);
    for (size_t i = 0; i < n; i++)
        src[i] = (unsigned char)("metacomputing "[i % 14]);
    size_t c = gw_z_maybe(&z, src, n, dst, gw_z_bound(n), 0);
    CHECK(c > 0 && c < n / 10);
    CHECK(gw_z_decompress(&z, dst, c, back, n) == 0 && memcmp(src, back, n) == 0);
    CHECK(gw_z_decompress(&z, dst, c, back, n - 1) == -1);
    for (size_t i = 0; i < n; i++)
        src[i] = (unsigned char)rnd();
    uint64_t tried = z.tried;
    CHECK(gw_z_maybe(&z, src, n, dst, gw_z_bound(n), 0) == 0);
    CHECK(z.tried == tried + 1 && z.skip == GW_Z_BACKOFF_MIN);
    CHECK(gw_z_maybe(&z, src, n, dst, gw_z_bound(n), 0) == 0);
    CHECK(z.tried == tried + 1); /* skipped without trying */
    while (z.skip)
        gw_z_maybe(&z, src, n, dst, gw_z_bound(n), 0);
    gw_z_maybe(&z, src, n, dst, gw_z_bound(n), 0); /* a second failing sample: longer off */
    CHECK(z.skip == 2 * GW_Z_BACKOFF_MIN);
    CHECK(gw_z_maybe(&z, src, 100, dst, gw_z_bound(n), 0) == 0); /* small frames: never */
    gw_z_free(&z);
    CHECK(gw_z_init(&z, GW_Z_OFF) == 0);
    memset(src, 0, n);
    CHECK(gw_z_maybe(&z, src, n, dst, gw_z_bound(n), 0) == 0);
    gw_z_free(&z);
    free(src);
    free(dst);
    free(back);
}

/* Drops every frame queued on a's streams (lost with a broken stream). */
static void lose_all(gw_link_t *a)
{
    for (int i = 0; i < a->nst; i++) {
        size_t n;
        unsigned char *p;
        while ((p = pop(&a->st[i].out, &n)))
            free(p);
    }
}

/* Moves the first k queued frames of stream i of a to b (in order). */
static void move_some(gw_link_t *a, gw_link_t *b, int i, int k)
{
    char err[256];
    size_t n;
    unsigned char *p;
    while (k-- > 0 && (p = pop(&a->st[i].out, &n))) {
        CHECK(gw_link_take(b, i, p, n, err, sizeof err) == 0);
        free(p);
    }
}

/* Streams break in the middle of traffic (some frames arrived, some were lost, an ACK and a
 * CREDIT were lost too), are opened again, and everything arrives once, in order per pair;
 * the credit lost is made good; acknowledged frames are no longer kept. */
static void test_reconnect(int streams)
{
    gw_link_t a, b;
    init_pair(&a, &b, streams, GW_Z_OFF);
    sink_t s = { .refuse_after = -1 };
    unsigned num[SIZE] = { 0 };
    char err[256];
    for (int round = 0; round < 6; round++) {
        for (int k = 0; k < 150; k++) { /* within the receiver's window (not forwarded) */
            int dst = 8 + (int)(rnd() % 8);
            size_t body = rnd() % 10 ? 4 + rnd() % 3000 : (100 << 10) + rnd() % (200 << 10);
            size_t n;
            unsigned char *f = make_frame(1, dst, body, num[dst]++, &n);
            CHECK(gw_link_send(&a, f, n) == 0);
            free(f);
            if (rnd() % 16 == 0)
                CHECK(gw_link_flush_batch(&a) == 0);
        }
        CHECK(gw_link_flush_batch(&a) == 0);
        /* some frames arrive and are forwarded and credited, an ACK comes back */
        for (int i = 0; i < streams; i++)
            move_some(&a, &b, i, (int)(rnd() % 40));
        CHECK(gw_link_forward(&b, fwd, &s, err, sizeof err) >= 0);
        for (uint32_t d = 8; d < SIZE; d++)
            if (b.dst[d].held)
                gw_link_delivered(&b, d, b.dst[d].held);
        CHECK(gw_link_flush_ack(&b, 1) == 0 && gw_link_flush_credit(&b) == 0);
        if (round % 2)
            move_all(&b, &a); /* the ACK and the CREDIT arrive */
        size_t kept = a.kept.n;
        /* the rest is lost with the streams; b's ACK and CREDIT too, every other round */
        lose_all(&a);
        lose_all(&b);
        CHECK(gw_link_break(&a) == 0 && gw_link_break(&b) == 0);
        open_streams(&a, &b);
        CHECK(a.kept.n <= kept);
        move_all(&a, &b);
        CHECK(gw_link_forward(&b, fwd, &s, err, sizeof err) >= 0);
        for (uint32_t d = 8; d < SIZE; d++)
            if (b.dst[d].held)
                gw_link_delivered(&b, d, b.dst[d].held);
        CHECK(gw_link_flush_ack(&b, 1) == 0 && gw_link_flush_credit(&b) == 0);
        move_all(&b, &a);
        CHECK(a.kept.n == 0 && a.kept.bytes == 0); /* all acknowledged */
        /* parked frames go out as the credit comes back */
        for (int more = 0; more < 50 && a.parked_total; more++) {
            CHECK(gw_link_flush_batch(&a) == 0);
            move_all(&a, &b);
            CHECK(gw_link_forward(&b, fwd, &s, err, sizeof err) >= 0);
            for (uint32_t d = 8; d < SIZE; d++)
                if (b.dst[d].held)
                    gw_link_delivered(&b, d, b.dst[d].held);
            for (uint32_t d = 8; d < SIZE; d++)
                if (b.dst[d].delivered != b.dst[d].reported && !b.dst[d].listed) {
                    b.dst[d].listed = 1;
                    b.report[b.nreport++] = d;
                }
            CHECK(gw_link_flush_credit(&b) == 0);
            move_all(&b, &a);
        }
        CHECK(a.parked_total == 0);
    }
    for (uint32_t d = 8; d < SIZE; d++)
        CHECK(s.next[1][d] == num[d]);
    CHECK(b.seq_in == a.seq_out && a.breaks == 6 && b.breaks == 6 && a.resent > 0);
    gw_link_free(&a);
    gw_link_free(&b);
}

/* A RESUME of another instance (a gateway that restarted), or one that acknowledges less
 * than before, is refused; data before a stream's RESUME too. */
static void test_resume_identity(void)
{
    gw_link_t a, b;
    init_pair(&a, &b, 1, GW_Z_OFF);
    char err[256];
    size_t n;
    unsigned char *f = make_frame(1, 9, 20, 0, &n);
    CHECK(gw_link_send(&a, f, n) == 0 && gw_link_flush_batch(&a) == 0);
    free(f);
    move_all(&a, &b);
    CHECK(gw_link_flush_ack(&b, 1) == 0);
    move_all(&b, &a);
    CHECK(a.kept.acked == 1 && a.kept.n == 0);
    CHECK(gw_link_break(&a) == 0 && gw_link_break(&b) == 0);
    /* b forgets everything, as a restarted gateway would */
    gw_link_t c;
    CHECK(gw_link_init(&c, 0, 1, SIZE, MAXF, GW_Z_OFF, (const unsigned char *)"another gateway") == 0);
    CHECK(gw_link_stream_open(&c, 0) == 0);
    size_t m;
    unsigned char *p = pop(&c.st[0].out, &m);
    CHECK(gw_link_take(&a, 0, p, m, err, sizeof err) == -1 && strstr(err, "restarted") != NULL);
    free(p);
    /* the same instance acknowledging less than it did */
    gw_link_t d;
    CHECK(gw_link_init(&d, 0, 1, SIZE, MAXF, GW_Z_OFF, INST_B) == 0);
    CHECK(gw_link_stream_open(&d, 0) == 0);
    p = pop(&d.st[0].out, &m);
    CHECK(gw_link_take(&a, 0, p, m, err, sizeof err) == -1 && strstr(err, "lost") != NULL);
    free(p);
    /* a frame before the RESUME */
    unsigned char wan[GW_WAN_HDR];
    gw_wan_encode(wan, &(gw_wan_t){ .kind = GW_WAN_ACK, .seq = 0 });
    CHECK(gw_link_take(&b, 0, wan, sizeof wan, err, sizeof err) == -1 &&
          strstr(err, "before the stream's RESUME") != NULL);
    /* an acknowledgement of frames never sent */
    CHECK(gw_link_stream_open(&a, 0) == 0 && gw_link_stream_open(&b, 0) == 0);
    move_all(&a, &b);
    move_all(&b, &a);
    gw_wan_encode(wan, &(gw_wan_t){ .kind = GW_WAN_ACK, .seq = 5 });
    CHECK(gw_link_take(&a, 0, wan, sizeof wan, err, sizeof err) == -1 &&
          strstr(err, "never sent") != NULL);
    gw_link_free(&a);
    gw_link_free(&b);
    gw_link_free(&c);
    gw_link_free(&d);
}

/* While the link is down, frames are only kept; the kept bytes bound the link (it is full,
 * and its ranks wait: nothing is dropped). */
static void test_resend_bound(void)
{
    gw_link_t a, b;
    init_pair(&a, &b, 1, GW_Z_OFF);
    CHECK(gw_link_break(&a) == 0 && gw_link_break(&b) == 0);
    size_t n;
    unsigned k = 0;
    for (; !gw_link_full(&a) && k < 1000; k++) {
        unsigned char *f = make_frame(1, 8 + (int)(k % 8), 1 << 20, k / 8, &n);
        CHECK(gw_link_send(&a, f, n) == 0);
        free(f);
    }
    CHECK(gw_link_full(&a) && a.kept.bytes >= GW_RESEND_MAX && k < 1000);
    CHECK(a.st[0].out.n == 0); /* nothing queued on a broken stream */
    gw_link_free(&a);
    gw_link_free(&b);
}

int main(void)
{
    test_order(1, GW_Z_OFF);
    test_order(3, GW_Z_OFF);
    test_order(4, GW_Z_ON);
    test_order(2, GW_Z_AUTO);
    test_coalescing();
    test_multi();
    test_striping();
    test_bounds();
    test_credit();
    test_violations();
    test_flow_wire();
    test_compression();
    test_reconnect(1);
    test_reconnect(3);
    test_resume_identity();
    test_resend_bound();
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    else
        printf("link: all checks passed\n");
    return failures != 0;
}
