/*
 * This site's ranks at the gateway: their frames read onto the links (a frame for a full link
 * is left unread: TCP backpressure on that rank alone), MULTI frames checked and sent on as
 * one batch, the links' frames written to them with the credit they return, STOP and GO when
 * frames for a rank wait for its credit (link.h, "Flow control"). A rank whose connection
 * ends without BYE is the launcher's to report; frames for it are dropped from then on.
 */
#include "gateway_int.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { RANK_RX = 256 << 10 };

/* Credits n bytes that left rank ctx's queue to the link that brought them. */
static void credit_back(void *ctx, int link, size_t n)
{
    gw_link_delivered(&gwd.links[link], (uint32_t)((rconn_t *)ctx)->rank, n);
}

static void rank_flush(rconn_t *r)
{
    if (r->fd < 0 || !r->out.n)
        return;
    int nout;
    size_t before = r->out.copied + r->out.borrowed;
    if (net_outq_flush(&r->out, r->fd, NULL, 0, &nout) < 0) {
        /* the rank is gone; the launcher reports it. What was queued for it is dropped. */
        r->gone = 1;
        net_outq_free(&r->out);
        gw_origins_take_all(&r->from, credit_back, r);
    } else {
        gw_origins_take(&r->from, before - (r->out.copied + r->out.borrowed), credit_back, r);
    }
    if (r->fd >= 0 && !r->gone)
        ev_set_events(&gwd.loop, r->fd,
                      (short)((r->blocked || r->bye ? 0 : POLLIN) | (r->out.n ? POLLOUT : 0)));
}

int gwd_forward(void *ctx, const gw_frame_t *h, unsigned char *f, size_t n, int owned,
                char *err, int errlen)
{
    gw_link_t *l = ctx;
    if (gwd.c->rank_site[h->dst] != gwd_my_site() || gwd.c->rank_site[h->src] != l->site) {
        snprintf(err, (size_t)errlen, "a frame from rank %u to rank %u does not belong on it",
                 h->src, h->dst);
        return -1;
    }
    rconn_t *r = &gwd.ranks[h->dst];
    if (r->gone || r->bye) { /* its process is gone or finished: nobody will read it */
        if (owned)
            free(f);
        gw_link_delivered(l, h->dst, n);
        return 1;
    }
    /* no bound here: the link's credit for this rank bounds what it forwards (link.h) */
    int rc;
    if (owned) {
        rc = net_outq_push(&r->out, f, n, f, (net_completion_t){ 0 });
    } else {
        struct iovec v = { f, n };
        rc = net_outq_push_copy(&r->out, &v, 1, 0);
    }
    if (rc == 0)
        rc = gw_origins_push(&r->from, l->site, n);
    if (rc != 0) {
        snprintf(err, (size_t)errlen, "out of memory forwarding a %zu-byte frame", n);
        return -1;
    }
    return 1;
}

/* Tells every rank of this site to stop sending to rank `about` (STOP) or to go on (GO); the
 * frames leave with the next flush of each rank's queue (after_pass). */
static void tell_ranks(uint8_t kind, uint32_t about)
{
    for (uint32_t r = 0; r < gwd.size; r++) {
        rconn_t *rc = &gwd.ranks[r];
        if (gwd.c->rank_site[r] != gwd_my_site() || rc->gone || rc->bye)
            continue;
        unsigned char f[GW_FRAME_HDR];
        gw_frame_encode(f, &(gw_frame_t){ .kind = kind, .dst = r, .src = about });
        struct iovec v = { f, sizeof f };
        if (net_outq_push_copy(&rc->out, &v, 1, 0) != 0 ||
            gw_origins_push(&rc->from, -1, sizeof f) != 0)
            gwd_fail("out of memory");
    }
}

/* STOP for rank d once the link holds GW_PARK_STOP bytes for it waiting for credit; GO when
 * they are down to GW_PARK_GO (gwd_go_if_unparked). */
static void stop_if_parked(const gw_link_t *l, uint32_t d)
{
    if (gwd.stopped[d] || gw_link_parked(l, d) < GW_PARK_STOP)
        return;
    gwd.stopped[d] = 1;
    gwd.stopped_list[gwd.nstopped++] = d;
    tell_ranks(GW_KIND_STOP, d);
}

void gwd_go_if_unparked(void)
{
    for (uint32_t i = 0; i < gwd.nstopped;) {
        uint32_t d = gwd.stopped_list[i];
        if (gw_link_parked(&gwd.links[gwd.c->rank_site[d]], d) > GW_PARK_GO) {
            i++;
            continue;
        }
        gwd.stopped[d] = 0;
        gwd.stopped_list[i] = gwd.stopped_list[--gwd.nstopped];
        tell_ranks(GW_KIND_GO, d);
    }
}

/* Whether the body of a MULTI from rank src to ranks of site `site` holds only whole frames
 * from src to ranks of that site; else what is wrong (in gwd.cur_err). */
static int multi_ok(const unsigned char *body, size_t n, int src, int site)
{
    for (size_t at = 0; at < n;) {
        gw_frame_t f;
        const char *bad = gw_multi_next(body + at, n - at, gwd.size, (uint32_t)src, &f);
        if (!bad && gwd.c->rank_site[f.dst] != site)
            bad = "MULTI: inner frames for different sites";
        if (bad) {
            snprintf(gwd.cur_err, sizeof gwd.cur_err, "a malformed MULTI frame (%s)", bad);
            return 0;
        }
        at += GW_FRAME_HDR + f.len;
    }
    return 1;
}

static void rank_deliver(int src, const void *frame, size_t len)
{
    if (gwd.cur_bad)
        return;
    const unsigned char *f = frame;
    gw_frame_t h;
    gw_rank_frame_parse(f, RANK_MAX_FRAME, gwd.size, &h);
    int site = gwd.c->rank_site[h.dst];
    if ((int)src != gwd.cur->rank || site == gwd_my_site()) {
        snprintf(gwd.cur_err, sizeof gwd.cur_err, "a frame from rank %u to rank %u", h.src, h.dst);
        gwd.cur_bad = 1;
        return;
    }
    int multi = h.kind == GW_KIND_MULTI;
    if (multi && !multi_ok(f + GW_FRAME_HDR, len - GW_FRAME_HDR, src, site)) {
        gwd.cur_bad = 1;
        return;
    }
    gw_link_t *l = &gwd.links[site];
    for (int i = 0; i < l->nst; i++)
        if (l->st[i].bye_in)
            return; /* that site's gateway is ending, and so is the job: nobody reads it */
    if ((multi ? gw_link_send_multi(l, f + GW_FRAME_HDR, len - GW_FRAME_HDR)
               : gw_link_send(l, f, len)) != 0)
        gwd_fail("out of memory for %s", gwd_link_text(l->site));
    if (!multi) {
        stop_if_parked(l, h.dst);
        return;
    }
    for (size_t at = GW_FRAME_HDR; at < len;) {
        gw_frame_t in;
        gw_multi_next(f + at, len - at, gwd.size, (uint32_t)src, &in);
        stop_if_parked(l, in.dst);
        at += GW_FRAME_HDR + in.len;
    }
}

/* The rank's connection ends: nothing more is written to it, and what was queued for it is
 * dropped (its credit returns to the links). */
static void rank_close(rconn_t *r)
{
    if (r->fd >= 0) {
        ev_unwatch(&gwd.loop, r->fd);
        close(r->fd);
        r->fd = -1;
    }
    net_rx_free(&r->rx);
    net_outq_free(&r->out);
    gw_origins_take_all(&r->from, credit_back, r);
}

/* What rank_read may still take in this event (admit_rank), whether that ran out, and the
 * bytes of the frames it began. */
static size_t read_left, read_taken;
static int read_budget_out;

/* Reads what a rank sent, up to FRAMES_PER_EVENT frames or RANK_BYTES_PER_EVENT bytes (the
 * first frame always). Without the byte bound one event took 64 frames of 1 MiB — a burst
 * the rank's and the kernel's buffers hold — and the WAN streams went unwritten, and the
 * link idle, for the 70 ms the gateway spent copying them (docs/sites.md, "Flow control").
 * Returns the frames it handled. */
static int rank_read(rconn_t *r)
{
    if (r->fd < 0 || r->gone || r->bye)
        return 0;
    gwd.cur = r;
    int eof = 0;
    char err[256];
    gwd.cur_bad = 0;
    /* admit_rank leaves a frame unread whose link is full (blocked), or once the event's
     * bytes are read (backlog: the next pass comes back for it) */
    read_left = RANK_BYTES_PER_EVENT;
    read_taken = 0;
    read_budget_out = 0;
    int n = net_rx_run(&r->rx, r->fd, r->rank, &gwd.rank_ops, FRAMES_PER_EVENT, &eof, err,
                       sizeof err);
    if (read_taken > gwd.rank_read_max)
        gwd.rank_read_max = read_taken;
    r->blocked = r->rx.refused && !read_budget_out;
    r->backlog = n == FRAMES_PER_EVENT || read_budget_out;
    if (gwd.cur_bad || (n < 0 && strstr(err, "malformed"))) {
        gwd_note("rank %d sent %s; its connection is closed", r->rank,
                 gwd.cur_bad ? gwd.cur_err : err);
        r->gone = 1;
        rank_close(r);
        return 0;
    }
    if (n < 0 || (eof && !r->rx.bye)) { /* the rank died: the launcher says so */
        r->gone = 1;
        rank_close(r);
        return 0;
    }
    if (eof || r->rx.bye) {
        r->bye = 1;
        /* what is queued for it goes out, then the connection ends */
        rank_flush(r);
        shutdown(r->fd, SHUT_WR);
        if (eof)
            rank_close(r);
        return n;
    }
    ev_set_events(&gwd.loop, r->fd,
                  (short)((r->blocked ? 0 : POLLIN) | (r->out.n ? POLLOUT : 0)));
    return n;
}

/* The rank frame reader's admission (net/rx.h): a frame for another site is read only while
 * its link is not full, and none once this event's bytes are read (rank_read). */
static int admit_rank(void *ctx, const unsigned char *hdr, const net_frame_hdr_t *h)
{
    (void)ctx;
    if (!read_left) {
        read_budget_out = 1;
        return 0;
    }
    gw_frame_t f;
    gw_rank_frame_parse(hdr, RANK_MAX_FRAME, gwd.size, &f);
    int site = gwd.c->rank_site[f.dst];
    if (site != gwd_my_site() && gw_link_full(&gwd.links[site]))
        return 0;
    size_t whole = GW_FRAME_HDR + (size_t)h->len;
    read_left = whole < read_left ? read_left - whole : 0;
    read_taken += whole;
    return 1;
}

static void on_rank(void *arg, int fd, short revents)
{
    (void)fd;
    rconn_t *r = arg;
    if (r->bye && (revents & (POLLIN | POLLHUP | POLLERR))) {
        rank_close(r); /* after its BYE, only its end of stream can come */
        return;
    }
    if (revents & POLLOUT)
        rank_flush(r);
    if (r->fd >= 0 && (revents & (POLLIN | POLLERR | POLLHUP)))
        rank_read(r);
}

int gwd_ranks_after_pass(void)
{
    int again = 0;
    for (int r = 0; r < (int)gwd.size; r++) {
        rconn_t *rc = &gwd.ranks[r];
        if (gwd.c->rank_site[r] != gwd_my_site())
            continue;
        if (rc->out.n)
            rank_flush(rc);
        /* the link may take its next frame now. Frames read here went into the links after
         * this pass looked at them (streams, open batch): the next pass must come at once,
         * not after the loop's 100 ms timeout (gateway.Local.test_windows) */
        if ((rc->blocked || rc->backlog) && rank_read(rc) > 0)
            again = 1;
        again |= rc->backlog;
    }
    return again;
}

int gwd_rank_up(rconn_t *r, int fd)
{
    if (net_rx_init(&r->rx, RANK_RX) != 0)
        return -1;
    r->fd = fd;
    ev_watch(&gwd.loop, fd, (short)(POLLIN | (r->out.n ? POLLOUT : 0)), on_rank, r);
    rank_flush(r);
    return 0;
}

void gwd_ranks_init(void)
{
    const gw_config_t *c = gwd.c;
    gwd.rank_ops = (net_rx_ops_t){ .deliver = rank_deliver, .max_frame = RANK_MAX_FRAME,
                                 .hdr_len = GW_FRAME_HDR, .parse_hdr = gw_rank_frame_parse_rx,
                                 .hdr_ctx = &gwd.size, .with_header = 1, .admit = admit_rank,
                                 .peer = "rank" };
    gwd.ranks = calloc((size_t)c->size, sizeof *gwd.ranks);
    gwd.stopped = calloc((size_t)c->size, 1);
    gwd.stopped_list = calloc((size_t)c->size, sizeof *gwd.stopped_list);
    if (!gwd.ranks || !gwd.stopped || !gwd.stopped_list)
        gwd_fail("out of memory");
    for (int r = 0; r < c->size; r++) {
        gwd.ranks[r].rank = r;
        gwd.ranks[r].fd = -1;
    }
}
