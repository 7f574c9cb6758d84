#include "net/gw_wire.h"

#include "net/bytes.h"
#include "net/handshake.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

/* The gateways' kinds of connection (net/handshake.h): words role, a, b / verdict, site; the
 * challenge is the TCP transport's. One profile per role: the role picks the label (and the
 * key) of the HELLO's proof. */
static const net_hs_profile_t RANK = {
    .challenge = "MMPItcp1", .hello = "MMPIgwhl", .answer = "MMPIgwwl",
    .hello_words = 3, .answer_words = 2, .hello_label = "gw-rank", .answer_label = "gw-acc",
};
static const net_hs_profile_t LINK = {
    .challenge = "MMPItcp1", .hello = "MMPIgwhl", .answer = "MMPIgwwl",
    .hello_words = 3, .answer_words = 2, .hello_label = "gw-link", .answer_label = "gw-acc",
};
/* a HELLO of no known role (made only to be refused) */
static const net_hs_profile_t NONE = {
    .challenge = "MMPItcp1", .hello = "MMPIgwhl", .answer = "MMPIgwwl",
    .hello_words = 3, .answer_words = 2, .hello_label = "gw-none", .answer_label = "gw-acc",
};

_Static_assert((int)GW_CHALLENGE_LEN == (int)NET_HS_CHALLENGE_LEN, "the handshake's challenge");
_Static_assert((int)GW_HELLO_LEN == NET_HS_MAGIC + 3 * 4 + AUTH_NONCE + AUTH_MAC, "3 words");
_Static_assert((int)GW_WELCOME_LEN == NET_HS_MAGIC + 2 * 4 + AUTH_MAC, "2 words");

static const net_hs_profile_t *profile(uint32_t role)
{
    return role == GW_ROLE_RANK ? &RANK : role == GW_ROLE_LINK ? &LINK : NULL;
}

static uint64_t pair(uint32_t a, uint32_t b)
{
    return (uint64_t)a | (uint64_t)b << 32;
}

void gw_challenge_encode(unsigned char out[GW_CHALLENGE_LEN],
                         const unsigned char na[AUTH_NONCE])
{
    net_hs_challenge(&RANK, out, na);
}

const char *gw_challenge_parse(const unsigned char in[GW_CHALLENGE_LEN],
                               unsigned char na[AUTH_NONCE])
{
    return net_hs_challenge_parse(&RANK, in, na) ? "not a metampi gateway (bad challenge)"
                                                 : NULL;
}

void gw_hello_encode(unsigned char out[GW_HELLO_LEN], const auth_key_t *k, uint32_t role,
                     uint32_t a, uint32_t b, const unsigned char na[AUTH_NONCE],
                     const unsigned char nc[AUTH_NONCE])
{
    const net_hs_profile_t *p = profile(role);
    const uint32_t w[3] = { role, a, b };
    net_hs_hello(p ? p : &NONE, out, k, w, na, nc, pair(a, b));
}

const char *gw_hello_parse(const unsigned char in[GW_HELLO_LEN], const gw_keys_t *k,
                           const unsigned char na[AUTH_NONCE], gw_hello_t *h)
{
    uint32_t w[3];
    if (net_hs_hello_parse(&RANK, in, w, h->nonce) != 0)
        return "not a metampi gateway hello";
    h->role = w[0];
    h->a = w[1];
    h->b = w[2];
    const net_hs_profile_t *p = profile(h->role);
    if (!p)
        return "hello of an unknown role";
    const auth_key_t *key = h->role == GW_ROLE_RANK ? &k->rank : &k->link;
    if (!net_hs_hello_proves(p, in, key, na, pair(h->a, h->b)))
        return "wrong job key";
    return NULL;
}

void gw_welcome_encode(unsigned char out[GW_WELCOME_LEN], const auth_key_t *k, uint32_t site,
                       const unsigned char nc[AUTH_NONCE], const unsigned char na[AUTH_NONCE])
{
    const uint32_t w[2] = { 0, site };
    net_hs_answer(&RANK, out, k, w, nc, na, pair(site, 0));
}

const char *gw_welcome_parse(const unsigned char in[GW_WELCOME_LEN], const auth_key_t *k,
                             const unsigned char nc[AUTH_NONCE],
                             const unsigned char na[AUTH_NONCE], uint32_t expect)
{
    uint32_t w[2];
    if (net_hs_answer_parse(&RANK, in, w) != 0)
        return "not a metampi gateway welcome";
    uint32_t verdict = w[0], site = w[1];
    if (!net_hs_answer_proves(&RANK, in, k, nc, na, pair(site, verdict)))
        return "the gateway does not know the job key";
    if (verdict != 0)
        return "unknown verdict";
    if (site != expect)
        return "the gateway of another site answered";
    return NULL;
}

void gw_frame_encode(unsigned char out[GW_FRAME_HDR], const gw_frame_t *f)
{
    net_put32(out, f->len);
    out[4] = f->head_len;
    out[5] = f->kind;
    out[6] = out[7] = 0;
    net_put32(out + 8, f->dst);
    net_put32(out + 12, f->src);
}

uint8_t gw_frame_kind(const unsigned char in[GW_FRAME_HDR])
{
    return in[5];
}

/* Which kinds besides FRAME and BYE a parser takes: MULTI from a rank, STOP and GO from a
 * gateway. */
enum { KINDS_PLAIN, KINDS_FROM_RANK, KINDS_TO_RANK };

static const char *frame_parse(const unsigned char in[GW_FRAME_HDR], size_t max_len,
                               uint32_t size, int kinds, gw_frame_t *f)
{
    f->len = net_get32(in);
    f->head_len = in[4];
    f->kind = in[5];
    f->dst = net_get32(in + 8);
    f->src = net_get32(in + 12);
    if (in[6] || in[7])
        return "frame header: reserved bytes set";
    if (f->kind == GW_KIND_BYE)
        return f->len || f->head_len || f->dst || f->src ? "frame header: BYE with a body"
                                                         : NULL;
    if (kinds == KINDS_TO_RANK && (f->kind == GW_KIND_STOP || f->kind == GW_KIND_GO)) {
        if (f->len || f->head_len)
            return "frame header: a STOP or GO with a body";
        if (f->dst >= size || f->src >= size || f->dst == f->src)
            return "frame header: rank out of range";
        return NULL;
    }
    if (kinds == KINDS_FROM_RANK && f->kind == GW_KIND_MULTI) {
        if (f->head_len)
            return "frame header: a MULTI with a head";
        if (f->len < GW_FRAME_HDR + 1 || f->len > GW_MULTI_MAX)
            return "frame header: a MULTI's length out of range";
    } else if (f->kind != GW_KIND_FRAME) {
        return "frame header: unknown kind";
    }
    if (f->len == 0)
        return "frame header: empty frame";
    if (f->len > max_len)
        return "frame header: frame larger than the maximum";
    if (f->head_len > f->len)
        return "frame header: head longer than the frame";
    if (f->dst >= size || f->src >= size)
        return "frame header: rank out of range";
    if (f->dst == f->src)
        return "frame header: a frame to its own sender";
    return NULL;
}

const char *gw_frame_parse(const unsigned char in[GW_FRAME_HDR], size_t max_len,
                           uint32_t size, gw_frame_t *f)
{
    return frame_parse(in, max_len, size, KINDS_PLAIN, f);
}

const char *gw_rank_frame_parse(const unsigned char in[GW_FRAME_HDR], size_t max_len,
                                uint32_t size, gw_frame_t *f)
{
    return frame_parse(in, max_len, size, KINDS_FROM_RANK, f);
}

static const char *parse_rx(const unsigned char *in, size_t max_len, net_frame_hdr_t *h,
                            const void *ctx, int kinds)
{
    gw_frame_t f;
    const char *bad = frame_parse(in, max_len, *(const uint32_t *)ctx, kinds, &f);
    h->len = f.len;
    h->head_len = f.head_len;
    h->kind = f.kind;
    h->src = f.kind != GW_KIND_BYE ? (int32_t)f.src : -1;
    return bad;
}

const char *gw_frame_parse_rx(const unsigned char *in, size_t max_len, net_frame_hdr_t *h,
                              const void *ctx)
{
    return parse_rx(in, max_len, h, ctx, KINDS_TO_RANK);
}

const char *gw_rank_frame_parse_rx(const unsigned char *in, size_t max_len, net_frame_hdr_t *h,
                                   const void *ctx)
{
    return parse_rx(in, max_len, h, ctx, KINDS_FROM_RANK);
}

const char *gw_multi_next(const unsigned char *p, size_t left, uint32_t size, uint32_t sender,
                          gw_frame_t *f)
{
    const char *bad = gw_batch_next(p, left, GW_MULTI_ITEM_MAX - GW_FRAME_HDR, size, f);
    if (bad)
        return bad;
    if (f->src != sender)
        return "MULTI: an inner frame of another sender";
    return NULL;
}

const char *gw_batch_next(const unsigned char *p, size_t left, size_t max_len, uint32_t size,
                          gw_frame_t *f)
{
    if (left < GW_FRAME_HDR)
        return "batch: a frame header cut short";
    const char *bad = gw_frame_parse(p, max_len, size, f);
    if (bad)
        return bad;
    if (f->kind != GW_KIND_FRAME)
        return "batch: a BYE inside a batch";
    if (f->len > left - GW_FRAME_HDR)
        return "batch: a frame longer than the rest of the batch";
    return NULL;
}

void gw_wan_encode(unsigned char out[GW_WAN_HDR], const gw_wan_t *w)
{
    net_put32(out, w->len);
    out[4] = w->kind;
    out[5] = w->flags;
    out[6] = out[7] = 0;
    net_put32(out + 8, w->raw_len);
    net_put32(out + 12, w->src);
    net_put32(out + 16, (uint32_t)w->seq);
    net_put32(out + 20, (uint32_t)(w->seq >> 32));
}

const char *gw_wan_parse(const unsigned char in[GW_WAN_HDR], uint32_t size, gw_wan_t *w)
{
    w->len = net_get32(in);
    w->kind = in[4];
    w->flags = in[5];
    w->raw_len = net_get32(in + 8);
    w->src = net_get32(in + 12);
    w->seq = (uint64_t)net_get32(in + 16) | (uint64_t)net_get32(in + 20) << 32;
    if (in[6] || in[7])
        return "WAN frame header: reserved bytes set";
    if (w->kind == GW_WAN_BYE)
        return w->len || w->flags || w->raw_len || w->src || w->seq
                   ? "WAN frame header: a BYE with a body"
                   : NULL;
    if (w->kind == GW_WAN_ACK)
        return w->len || w->flags || w->raw_len || w->src ? "WAN frame header: an ACK with a body"
                                                           : NULL;
    if (w->kind == GW_WAN_RESUME)
        return w->flags || w->src || w->len != GW_RESUME_LEN || w->raw_len != GW_RESUME_LEN
                   ? "WAN frame header: a malformed RESUME"
                   : NULL;
    if (w->kind == GW_WAN_CREDIT)
        return w->flags || w->src || w->seq || w->raw_len != w->len || w->len == 0 ||
                       w->len > GW_CREDIT_MAX || w->len % GW_CREDIT_ENTRY
                   ? "WAN frame header: a malformed CREDIT"
                   : NULL;
    if (w->kind != GW_WAN_BATCH && w->kind != GW_WAN_PIECE)
        return "WAN frame header: unknown kind";
    if (w->flags & ~GW_WAN_Z)
        return "WAN frame header: unknown flags";
    if (w->len == 0 || w->len > GW_WAN_MAX)
        return "WAN frame header: length out of range";
    if (w->raw_len == 0 || w->raw_len > GW_WAN_MAX)
        return "WAN frame header: decompressed length out of range";
    if (!(w->flags & GW_WAN_Z) && w->raw_len != w->len)
        return "WAN frame header: lengths differ without compression";
    if (w->kind == GW_WAN_BATCH ? w->src != 0 : w->src >= size)
        return "WAN frame header: bad source rank";
    if (w->kind == GW_WAN_BATCH && w->raw_len < GW_FRAME_HDR)
        return "WAN frame header: a batch shorter than a frame header";
    return NULL;
}

const char *gw_wan_parse_rx(const unsigned char *in, size_t max_len, net_frame_hdr_t *h,
                            const void *ctx)
{
    gw_wan_t w;
    const char *bad = gw_wan_parse(in, *(const uint32_t *)ctx, &w);
    h->len = w.len;
    h->head_len = 0;
    h->kind = w.kind;
    h->src = -1;
    if (!bad && w.len > max_len)
        bad = "WAN frame header: longer than the reader takes";
    return bad;
}

const char *gw_addr_parse(const char *s, net_addr_t *a)
{
    return net_addr_parse(s, NET_ADDR_NUMERIC, 0, a, NULL, 0);
}
