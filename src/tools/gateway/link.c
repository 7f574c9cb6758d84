#include "link.h"

#include "link_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gw_link_init(gw_link_t *l, int site, int nstreams, uint32_t size, size_t max_frame,
                 int compression, const unsigned char *instance)
{
    memset(l, 0, sizeof *l);
    l->instance = instance;
    l->site = site;
    l->nst = nstreams;
    l->size = size;
    l->max_frame = max_frame;
    l->st = calloc((size_t)nstreams, sizeof *l->st);
    l->dst = calloc(size, sizeof *l->dst);
    l->report = malloc(size * sizeof *l->report);
    if (!l->st || !l->dst || !l->report || gw_z_init(&l->z, compression) != 0)
        return -1;
    for (int i = 0; i < nstreams; i++) {
        l->st[i].fd = -1;
        if (net_rx_init(&l->st[i].rx, GW_STREAM_RX) != 0)
            return -1;
    }
    return 0;
}

void gw_link_free(gw_link_t *l)
{
    for (int i = 0; l->st && i < l->nst; i++) {
        net_outq_free(&l->st[i].out);
        net_rx_free(&l->st[i].rx);
        net_secure_free(l->st[i].sec);
    }
    gw_resend_free(&l->kept); /* after the queues, which borrowed from it */
    free(l->st);
    for (int i = 0; i < GW_RWIN; i++)
        if (l->win[i]) {
            free(l->win[i]->data);
            free(l->win[i]);
        }
    free(l->batch);
    free(l->part);
    for (uint32_t d = 0; l->dst && d < l->size; d++)
        for (gw_parked_t *p = l->dst[d].park, *next; p; p = next) {
            next = p->next;
            free(p);
        }
    free(l->dst);
    free(l->report);
    gw_z_free(&l->z);
    memset(l, 0, sizeof *l);
}

size_t gw_link_queued(const gw_link_t *l)
{
    size_t q = l->batch_len;
    for (int i = 0; i < l->nst; i++)
        q += l->st[i].out.copied + l->st[i].out.borrowed;
    return q;
}

int gw_link_full(const gw_link_t *l)
{
    return gw_link_queued(l) >= GW_LINK_MAX || l->parked_total >= GW_PARK_TOTAL ||
           l->kept.bytes >= GW_RESEND_MAX;
}

size_t gw_link_parked(const gw_link_t *l, uint32_t dst)
{
    return l->dst[dst].parked;
}

int gw_link_idle_stream(const gw_link_t *l)
{
    for (int i = 0; i < l->nst; i++)
        if (l->st[i].up && !l->st[i].out.n)
            return 1;
    return 0;
}

int gw_link_pick_stream(gw_link_t *l)
{
    int best = -1;
    size_t best_q = 0;
    for (int k = 0; k < l->nst; k++) {
        int i = (int)((l->next_stream + (unsigned)k) % (unsigned)l->nst);
        const gw_stream_t *s = &l->st[i];
        size_t q = s->out.copied + s->out.borrowed + (s->up ? 0 : (size_t)1 << 40);
        if (best < 0 || q < best_q) {
            best = i;
            best_q = q;
        }
    }
    l->next_stream = (unsigned)(best + 1);
    return best;
}

int gw_link_queue_kept(gw_link_t *l, const gw_kept_t *k)
{
    gw_stream_t *s = &l->st[gw_link_pick_stream(l)];
    return net_outq_push(&s->out, k->buf, k->len, NULL, (net_completion_t){ 0 });
}

/* buf holds GW_WAN_HDR bytes of room, then body bytes of kind/src: numbers it, compresses it
 * when that pays, keeps it for resending, and queues it on a stream while the link is up.
 * Takes buf. */
static int emit(gw_link_t *l, unsigned char *buf, size_t body, uint8_t kind, uint32_t src)
{
    gw_wan_t w = { .len = (uint32_t)body, .raw_len = (uint32_t)body, .kind = kind,
                   .src = src, .seq = l->seq_out };
    size_t zcap = gw_z_bound(body);
    if (l->z.mode != GW_Z_OFF && body >= GW_Z_MIN) {
        unsigned char *z = malloc(GW_WAN_HDR + zcap);
        size_t c = z ? gw_z_maybe(&l->z, buf + GW_WAN_HDR, body, z + GW_WAN_HDR, zcap, l->rate)
                     : 0;
        if (c) {
            free(buf);
            buf = z;
            w.len = (uint32_t)c;
            w.flags = GW_WAN_Z;
        } else {
            free(z);
        }
    }
    gw_wan_encode(buf, &w);
    if (gw_resend_keep(&l->kept, l->seq_out, buf, GW_WAN_HDR + w.len) != 0) {
        free(buf);
        return -1;
    }
    if (l->resumed && gw_link_queue_kept(l, gw_resend_at(&l->kept, l->kept.n - 1)) != 0)
        return -1;
    l->seq_out++;
    l->wan_out++;
    l->bytes_out += GW_WAN_HDR + w.len;
    l->raw_out += GW_WAN_HDR + body;
    return 0;
}

int gw_link_flush_batch(gw_link_t *l)
{
    if (!l->batch_len)
        return 0;
    unsigned char *b = l->batch;
    size_t n = l->batch_len;
    l->batch = NULL;
    l->batch_len = 0;
    return emit(l, b, n, GW_WAN_BATCH, 0);
}

/* Puts rank frame f[0..n) on the link (credit already taken): into the open batch, or cut
 * into pieces. 0, or -1 out of memory. */
static int transmit(gw_link_t *l, const unsigned char *f, size_t n)
{
    if (n <= GW_BATCH_FRAME_MAX) {
        if (l->batch_len + n > GW_BATCH_MAX && gw_link_flush_batch(l) != 0)
            return -1;
        if (!l->batch && !(l->batch = malloc(GW_WAN_HDR + GW_BATCH_MAX)))
            return -1;
        memcpy(l->batch + GW_WAN_HDR + l->batch_len, f, n);
        l->batch_len += n;
        return 0;
    }
    /* ordering: the rank's earlier small frames are in the open batch */
    if (gw_link_flush_batch(l) != 0)
        return -1;
    gw_frame_t h;
    gw_frame_parse(f, l->max_frame, l->size, &h);
    for (size_t off = 0; off < n; off += GW_PIECE) {
        size_t k = n - off < GW_PIECE ? n - off : GW_PIECE;
        unsigned char *p = malloc(GW_WAN_HDR + k);
        if (!p)
            return -1;
        memcpy(p + GW_WAN_HDR, f + off, k);
        if (emit(l, p, k, GW_WAN_PIECE, h.src) != 0)
            return -1;
    }
    return 0;
}

static uint32_t frame_dst(const gw_link_t *l, const unsigned char *f)
{
    gw_frame_t h;
    gw_frame_parse(f, l->max_frame, l->size, &h);
    return h.dst;
}

/* Whether n more bytes for d fit its credit (a frame larger than the credit goes alone). */
static int has_credit(const gw_dst_t *d, size_t n)
{
    return d->owed == 0 || d->owed + n <= GW_CREDIT;
}

static int park(gw_link_t *l, gw_dst_t *d, const unsigned char *f, size_t n)
{
    gw_parked_t *p = malloc(sizeof *p + n);
    if (!p)
        return -1;
    p->next = NULL;
    p->n = n;
    memcpy(p->f, f, n);
    if (d->park_tail)
        d->park_tail->next = p;
    else
        d->park = p;
    d->park_tail = p;
    d->parked += n;
    l->parked_total += n;
    l->parks++;
    return 0;
}

/* Sends d's parked frames, oldest first, while its credit lasts. 0, or -1 out of memory. */
static int unpark(gw_link_t *l, gw_dst_t *d)
{
    while (d->park && has_credit(d, d->park->n)) {
        gw_parked_t *p = d->park;
        d->owed += p->n;
        if (transmit(l, p->f, p->n) != 0)
            return -1;
        d->park = p->next;
        if (!d->park)
            d->park_tail = NULL;
        d->parked -= p->n;
        l->parked_total -= p->n;
        free(p);
    }
    return 0;
}

int gw_link_send(gw_link_t *l, const unsigned char *f, size_t n)
{
    l->frames_out++;
    gw_dst_t *d = &l->dst[frame_dst(l, f)];
    if (d->park || !has_credit(d, n)) /* behind its earlier frames: the pair's order */
        return park(l, d, f, n);
    d->owed += n;
    return transmit(l, f, n);
}

_Static_assert((long)GW_MULTI_ITEM_MAX == (long)GW_BATCH_FRAME_MAX &&
                   (long)GW_MULTI_MAX <= (long)GW_BATCH_MAX,
               "a MULTI is one batch");

/* Takes (sign 1) or gives back (-1) the credit for the first `count` inner frames of a MULTI
 * body; with sign 1, stops at the first frame whose destination has frames parked or no
 * credit for it, and returns how many it took. */
static size_t multi_credit(gw_link_t *l, const unsigned char *body, size_t n, int sign,
                           size_t count)
{
    size_t k = 0;
    for (size_t at = 0; at < n && k < count; k++) {
        gw_frame_t h;
        gw_frame_parse(body + at, l->max_frame, l->size, &h);
        size_t m = GW_FRAME_HDR + h.len;
        gw_dst_t *d = &l->dst[h.dst];
        if (sign < 0) {
            d->owed -= m;
        } else {
            if (d->park || !has_credit(d, m))
                break;
            d->owed += m;
        }
        at += m;
    }
    return k;
}

int gw_link_send_multi(gw_link_t *l, const unsigned char *body, size_t n)
{
    size_t frames = 0;
    for (size_t at = 0; at < n; frames++) {
        gw_frame_t h;
        gw_frame_parse(body + at, l->max_frame, l->size, &h);
        at += GW_FRAME_HDR + h.len;
    }
    size_t took = multi_credit(l, body, n, 1, frames);
    if (took != frames) {
        /* some destination waits for credit: each frame on its own, in order per pair */
        multi_credit(l, body, n, -1, took);
        for (size_t at = 0; at < n;) {
            gw_frame_t h;
            gw_frame_parse(body + at, l->max_frame, l->size, &h);
            if (gw_link_send(l, body + at, GW_FRAME_HDR + h.len) != 0)
                return -1;
            at += GW_FRAME_HDR + h.len;
        }
        return 0;
    }
    /* the open batch first (the sender's order), then a batch of exactly these frames: each
     * fits a batch (GW_MULTI_ITEM_MAX = GW_BATCH_FRAME_MAX), all of them one (GW_MULTI_MAX =
     * GW_BATCH_MAX), so transmit closes none in between */
    if (gw_link_flush_batch(l) != 0)
        return -1;
    l->multi_out++;
    for (size_t at = 0; at < n;) {
        gw_frame_t h;
        gw_frame_parse(body + at, l->max_frame, l->size, &h);
        l->frames_out++;
        if (transmit(l, body + at, GW_FRAME_HDR + h.len) != 0)
            return -1;
        at += GW_FRAME_HDR + h.len;
    }
    return gw_link_flush_batch(l);
}

/* ---- receiving ------------------------------------------------------------------------- */

int gw_link_may_read(const gw_link_t *l, const gw_wan_t *w)
{
    if (w->kind != GW_WAN_BATCH && w->kind != GW_WAN_PIECE)
        return 1;
    if (w->seq == l->seq_in)
        return 1;
    return w->seq > l->seq_in && w->seq - l->seq_in < GW_RWIN &&
           l->held + w->raw_len <= GW_REORDER_MAX;
}

int gw_link_backlog(const gw_link_t *l)
{
    return l->win[l->seq_in % GW_RWIN] != NULL;
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A CREDIT body b[0..n) (whole entries: gw_wan_parse). */
static int take_credit(gw_link_t *l, const unsigned char *b, size_t n, char *err, int errlen)
{
    l->credits_in++;
    for (size_t at = 0; at < n; at += GW_CREDIT_ENTRY) {
        uint32_t rank = get32(b + at), total = get32(b + at + 4);
        if (rank >= l->size) {
            snprintf(err, (size_t)errlen, "credit for rank %u of %u", rank, l->size);
            return -1;
        }
        gw_dst_t *d = &l->dst[rank];
        /* A total: unsigned arithmetic mod 2^32 gives what it grew by (owed stays far below
         * 2^31); one that did not grow, or "shrank", is an older CREDIT overtaken by a newer
         * one on another stream, or sent again after a reconnection. */
        uint32_t bytes = total - d->credited;
        if (bytes == 0 || bytes > UINT32_MAX / 2)
            continue;
        if (bytes > d->owed) {
            snprintf(err, (size_t)errlen, "credit for %u bytes to rank %u, which were never "
                     "sent", bytes, rank);
            return -1;
        }
        d->credited = total;
        d->owed -= bytes;
        if (unpark(l, d) != 0) {
            snprintf(err, (size_t)errlen, "out of memory sending parked frames");
            return -1;
        }
    }
    return 0;
}

void gw_link_delivered(gw_link_t *l, uint32_t dst, size_t n)
{
    gw_dst_t *d = &l->dst[dst];
    d->held -= n;
    d->delivered += n;
    if (d->delivered - d->reported >= GW_CREDIT_REPORT && !d->listed) {
        d->listed = 1;
        l->report[l->nreport++] = dst;
    }
}

int gw_link_flush_credit(gw_link_t *l)
{
    while (l->resumed && l->nreport) {
        uint32_t k = l->nreport < GW_CREDIT_MAX / GW_CREDIT_ENTRY
                         ? l->nreport
                         : GW_CREDIT_MAX / GW_CREDIT_ENTRY;
        size_t body = (size_t)k * GW_CREDIT_ENTRY;
        unsigned char *b = malloc(GW_WAN_HDR + body);
        if (!b)
            return -1;
        gw_wan_encode(b, &(gw_wan_t){ .len = (uint32_t)body, .raw_len = (uint32_t)body,
                                      .kind = GW_WAN_CREDIT });
        for (uint32_t i = 0; i < k; i++) {
            gw_dst_t *d = &l->dst[l->report[l->nreport - 1 - i]];
            put32(b + GW_WAN_HDR + i * GW_CREDIT_ENTRY, l->report[l->nreport - 1 - i]);
            put32(b + GW_WAN_HDR + i * GW_CREDIT_ENTRY + 4, (uint32_t)d->delivered);
            d->reported = d->delivered;
            d->listed = 0;
        }
        l->nreport -= k;
        gw_stream_t *s = &l->st[gw_link_pick_stream(l)];
        if (net_outq_push(&s->out, b, GW_WAN_HDR + body, b, (net_completion_t){ 0 }) != 0) {
            free(b);
            return -1;
        }
    }
    return 0;
}

int gw_link_take(gw_link_t *l, int i, const unsigned char *wan, size_t n, char *err,
                 int errlen)
{
    gw_wan_t w;
    const char *bad = n < GW_WAN_HDR ? "a WAN frame cut short" : gw_wan_parse(wan, l->size, &w);
    if (!bad && n != GW_WAN_HDR + w.len)
        bad = "a WAN frame of the wrong length";
    if (bad) {
        snprintf(err, (size_t)errlen, "%s", bad);
        return -1;
    }
    if (w.kind == GW_WAN_RESUME)
        return gw_link_take_resume(l, i, &w, wan + GW_WAN_HDR, err, errlen);
    if (!l->st[i].resumed) {
        snprintf(err, (size_t)errlen, "a WAN frame before the stream's RESUME");
        return -1;
    }
    if (w.kind == GW_WAN_CREDIT)
        return take_credit(l, wan + GW_WAN_HDR, w.len, err, errlen);
    if (w.kind == GW_WAN_ACK)
        return gw_link_take_ack(l, w.seq, err, errlen);
    if (w.kind != GW_WAN_BATCH && w.kind != GW_WAN_PIECE)
        return 0; /* BYE: the reader saw it */
    if (w.seq < l->seq_in || w.seq - l->seq_in >= GW_RWIN || l->win[w.seq % GW_RWIN]) {
        snprintf(err, (size_t)errlen, "WAN frame %llu out of order (expected %llu..%llu, once)",
                 (unsigned long long)w.seq, (unsigned long long)l->seq_in,
                 (unsigned long long)(l->seq_in + GW_RWIN - 1));
        return -1;
    }
    gw_rframe_t *r = malloc(sizeof *r);
    unsigned char *d = malloc(w.raw_len);
    if (!r || !d) {
        free(r);
        free(d);
        snprintf(err, (size_t)errlen, "out of memory for a %u-byte WAN frame", w.raw_len);
        return -1;
    }
    if (w.flags & GW_WAN_Z) {
        if (gw_z_decompress(&l->z, wan + GW_WAN_HDR, w.len, d, w.raw_len) != 0) {
            free(r);
            free(d);
            snprintf(err, (size_t)errlen, "WAN frame %llu: a bad compressed body",
                     (unsigned long long)w.seq);
            return -1;
        }
    } else {
        memcpy(d, wan + GW_WAN_HDR, w.len);
    }
    *r = (gw_rframe_t){ .kind = w.kind, .src = w.src, .len = w.raw_len, .data = d };
    l->win[w.seq % GW_RWIN] = r;
    l->held += w.raw_len;
    l->wan_in++;
    l->ack_bytes += w.raw_len;
    while (l->seq_have - l->seq_in < GW_RWIN && l->win[l->seq_have % GW_RWIN])
        l->seq_have++;
    return 0;
}

/* Appends piece r to the frame being put together. 0, or -1 with err. */
static int add_piece(gw_link_t *l, gw_rframe_t *r, char *err, int errlen)
{
    if (!l->part) {
        gw_frame_t h;
        const char *bad = r->len < GW_FRAME_HDR ? "a first piece shorter than a frame header"
                                                : gw_frame_parse(r->data, l->max_frame,
                                                                 l->size, &h);
        if (!bad && (h.kind != GW_KIND_FRAME || h.src != r->src))
            bad = "a first piece that does not start its rank's frame";
        if (!bad && GW_FRAME_HDR + h.len <= GW_BATCH_FRAME_MAX)
            bad = "a small frame sent in pieces";
        if (bad) {
            snprintf(err, (size_t)errlen, "%s", bad);
            return -1;
        }
        l->part_len = GW_FRAME_HDR + h.len;
        l->part_got = 0;
        l->part_src = r->src;
        if (!(l->part = malloc(l->part_len))) {
            snprintf(err, (size_t)errlen, "out of memory for a %zu-byte frame", l->part_len);
            return -1;
        }
    } else if (r->src != l->part_src) {
        snprintf(err, (size_t)errlen, "a piece of rank %u inside rank %u's frame", r->src,
                 l->part_src);
        return -1;
    }
    if (r->len > l->part_len - l->part_got) {
        snprintf(err, (size_t)errlen, "pieces longer than their frame");
        return -1;
    }
    memcpy(l->part + l->part_got, r->data, r->len);
    l->part_got += r->len;
    l->part_ready = l->part_got == l->part_len;
    return 0;
}

/* Whether the sender kept to dst's credit with n more bytes (held grows only while the
 * sender's owed is at least as large: see Flow control). */
static int within_credit(const gw_link_t *l, uint32_t dst, size_t n, char *err, int errlen)
{
    size_t held = l->dst[dst].held;
    if (held == 0 || held + n <= GW_CREDIT)
        return 1;
    snprintf(err, (size_t)errlen, "frames for rank %u beyond its credit (%zu bytes held, "
             "%zu more)", dst, held, n);
    return 0;
}

int gw_link_forward(gw_link_t *l, gw_fwd_fn fwd, void *ctx, char *err, int errlen)
{
    int frames = 0;
    for (;;) {
        if (l->part_ready) {
            gw_frame_t h;
            gw_frame_parse(l->part, l->max_frame, l->size, &h);
            if (!within_credit(l, h.dst, l->part_len, err, errlen))
                return -1;
            l->dst[h.dst].held += l->part_len; /* before: fwd may report it delivered */
            int rc = fwd(ctx, &h, l->part, l->part_len, 1, err, errlen);
            if (rc != 1)
                l->dst[h.dst].held -= l->part_len;
            if (rc < 0)
                return -1;
            if (rc == 0)
                return frames;
            l->part = NULL;
            l->part_ready = 0;
            l->frames_in++;
            frames++;
        }
        gw_rframe_t *r = l->win[l->seq_in % GW_RWIN];
        if (!r)
            return frames;
        if (r->kind == GW_WAN_PIECE) {
            if (add_piece(l, r, err, errlen) != 0)
                return -1;
            r->off = r->len;
        }
        while (r->off < r->len) {
            gw_frame_t h;
            const char *bad = gw_batch_next(r->data + r->off, r->len - r->off, l->max_frame,
                                            l->size, &h);
            if (bad) {
                snprintf(err, (size_t)errlen, "%s", bad);
                return -1;
            }
            size_t n = GW_FRAME_HDR + h.len;
            if (!within_credit(l, h.dst, n, err, errlen))
                return -1;
            l->dst[h.dst].held += n;
            int rc = fwd(ctx, &h, r->data + r->off, n, 0, err, errlen);
            if (rc != 1)
                l->dst[h.dst].held -= n;
            if (rc < 0)
                return -1;
            if (rc == 0)
                return frames;
            r->off += n;
            l->frames_in++;
            frames++;
        }
        l->win[l->seq_in % GW_RWIN] = NULL;
        l->held -= r->len;
        l->seq_in++;
        free(r->data);
        free(r);
    }
}
