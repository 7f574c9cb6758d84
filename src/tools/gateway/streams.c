/*
 * The WAN streams of the gateway's links (link.h): reading them into the links (admitted by
 * the reorder window), writing the links' WAN frames, the links' frames forwarded to this
 * site's ranks, the per-pass work no descriptor announces (heartbeats on idle streams, the
 * silence of a cut link, batches that wait for an idle stream, credit, acknowledgements),
 * the congestion control, and the end (BYE on every stream). A stream that fails is
 * reconnect.c's.
 */
#include "gateway_int.h"

#include "rate.h"

#include "net/clock.h"
#include "net/sock.h"
#include "runtime/tunables.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum {
    END_TIMEOUT_MS = 2000,             /* SIGTERM: BYE, then wait this long for the peers */
    RATE_MS = 250,                     /* how often a link's rate is read (compression) */
    ACK_MS = 100,                      /* frames taken are acknowledged within this */
    REFUSED_THERE_WAIT_MS = 500,       /* certificate_refused: the other's line goes first */
};

static void on_stream(void *arg, int fd, short revents);

void gwd_socket_options(int fd, int wan)
{
    net_stream_options(fd, 0); /* the ranks' side keeps them alive (net/liveness.h) */
    if (!wan)
        return;
    if (gwd.congestion)  /* known to work: gwd_choose_congestion tried it */
        net_congestion_set(fd, gwd.congestion);
    /* No TCP_USER_TIMEOUT: it also aborts a connection whose peer advertises a zero window
     * that long, which is flow control doing its job (a receiving gateway that does not read
     * while its ranks do not), not a cut. Heartbeats find cuts (after_pass). */
    /* Explicit sizes (for measurements) switch the kernel's autotuning off. */
    /* at most INT_MAX each (the registry's bound) */
    net_set_buffers(fd, (int)tun_size(TUN_GW_SNDBUF), (int)tun_size(TUN_GW_RCVBUF), 1);
}

/* The WAN streams' congestion control, tried once on a socket of our own before any link is
 * up, so that a name the kernel refuses ends the job at its start. auto prefers cubic: MPI
 * traffic is bursts separated by silences (a collective, a halo exchange), and BBR (the
 * default of some kernels) paces every burst at the rate it measured on the last ones, which
 * an application that is not sending all the time keeps low: between emulated sites (5 ms,
 * 1 Gbit/s) a 128 KiB MPI_Allreduce took 11.7 ms with BBR and 8.6 ms with cubic, a 16 KiB
 * ping-pong 8.7 and 6.2 ms one way. cubic sends a burst within its window at once. */
void gwd_choose_congestion(void)
{
    const char *want = gwd.c->congestion;
    int automatic = strcmp(want, "auto") == 0;
    if (strcmp(want, "system") == 0)
        return;
    if (automatic)
        want = "cubic";
    int e = net_congestion_try(want);
    if (e == 0)
        gwd.congestion = want;
    else if (!automatic)
        gwd_fail("cannot use the TCP congestion control '%s' on its WAN streams: %s (this "
                 "kernel offers those in /proc/sys/net/ipv4/tcp_available_congestion_control; "
                 "without privileges, those in tcp_allowed_congestion_control)", want,
                 strerror(e));
}

static gw_stream_t *stream_of(const sref_t *r)
{
    return &gwd.links[r->site].st[r->stream];
}

static short stream_events(const gw_stream_t *s)
{
    return (short)((s->paused ? 0 : POLLIN) | (s->out.n ? POLLOUT : 0));
}

static void stream_update(int site, int i)
{
    gw_stream_t *s = &gwd.links[site].st[i];
    if (s->fd >= 0 && s->up)
        ev_set_events(&gwd.loop, s->fd, stream_events(s));
}

static void stream_flush(int site, int i)
{
    gw_stream_t *s = &gwd.links[site].st[i];
    if (s->fd < 0 || !s->up || !s->out.n)
        return;
    size_t before = s->out.copied;
    int nout;
    int rc = net_outq_flush(&s->out, s->fd, NULL, 0, &nout);
    if (rc < 0) {
        char why[128];
        snprintf(why, sizeof why, "stream %d: %s", i, strerror(errno));
        gwd_link_lost(site, i, why);
        return;
    }
    if (s->out.copied != before)
        s->last_tx = net_now_ms();
    stream_update(site, i);
}

static void stream_read(int site, int i);

/* The stream carries WAN frames from now on. */
static void stream_go(int site, int i)
{
    gw_stream_t *s = &gwd.links[site].st[i];
    if (gw_link_stream_open(&gwd.links[site], i) != 0)
        gwd_fail("out of memory for %s", gwd_link_text(site));
    s->last_rx = s->last_tx = net_now_ms();
    stream_update(site, i);
    stream_flush(site, i);
    if (s->sec) /* records that came with the handshake's last are in OpenSSL's buffer */
        stream_read(site, i);
}

/* A refused certificate is refused again on every attempt: the job ends now, with one line.
 * The gateway that refused it says why; the one whose certificate it was knows only the
 * alert, so it lets the other's line reach mpirun first. */
_Noreturn static void certificate_refused(int site, int i, const char *err)
{
    if (net_secure_refused(gwd.links[site].st[i].sec) == NET_SECURE_REFUSED_THERE)
        usleep(REFUSED_THERE_WAIT_MS * 1000);
    gwd_fail("%s failed: stream %d: %s", gwd_link_text(site), i, err);
}

/* One step of the stream's TLS handshake, from the loop like every other event (a gateway
 * that waited for one handshake could wait for a gateway that waits for it). */
static void stream_secure(int site, int i)
{
    gw_stream_t *s = &gwd.links[site].st[i];
    char err[700];  /* a refused certificate's reason: its serial, subject, CRL ... */
    short wants = 0;
    int rc = net_secure_step(s->sec, &wants, err, sizeof err);
    if (rc < 0) {
        if (net_secure_refused(s->sec))
            certificate_refused(site, i, err);
        char why[760];
        snprintf(why, sizeof why, "stream %d: %s", i, err);
        gwd_link_lost(site, i, why);
        return;
    }
    if (rc == 0) {
        ev_set_events(&gwd.loop, s->fd, wants);
        return;
    }
    s->securing = 0;
    stream_go(site, i);
}

void gwd_stream_up(int site, int i, int fd, int server, const unsigned char na[AUTH_NONCE],
                   const unsigned char nc[AUTH_NONCE])
{
    gw_stream_t *s = &gwd.links[site].st[i];
    s->fd = fd;
    ev_watch(&gwd.loop, fd, POLLIN, on_stream, &gwd.srefs[site * gwd.c->streams + i]);
    if (!gwd.c->encrypt) {
        stream_go(site, i);
        return;
    }
    unsigned char psk[NET_SECURE_PSK];
    char err[256];
    net_secure_psk(&gwd.keys.link, "gw-link", na, nc, psk);
    /* X.509 per site: the other gateway's certificate must name its site */
    s->sec = gwd.c->cert ? net_secure_start_x509(fd, server, gwd_site_name(site), err,
                                                 sizeof err)
                         : net_secure_start(fd, server, psk, err, sizeof err);
    OPENSSL_cleanse(psk, sizeof psk);
    if (!s->sec)
        gwd_fail("%s failed: %s", gwd_link_text(site), err);
    s->rx.sec = s->out.sec = s->sec;
    s->securing = 1;
    s->secure_by = net_now_ms() + gwd.c->timeout_ms;
    stream_secure(site, i);
}

int gwd_forward_link(int s)
{
    char err[256];
    int n = gw_link_forward(&gwd.links[s], gwd_forward, &gwd.links[s], err, sizeof err);
    if (n < 0)
        gwd_fail("%s: malformed data: %s", gwd_link_text(s), err);
    return n;
}

static void wan_deliver(int stream, const void *frame, size_t len)
{
    if (gwd.cur_bad)
        return;
    if (gw_link_take(gwd.cur_link, stream, frame, len, gwd.cur_err, sizeof gwd.cur_err) != 0)
        gwd.cur_bad = 1;
}

/* The WAN frame reader's admission (net/rx.h): the reorder window's rule, checked before
 * every frame is taken, also the first one of a fresh read (gw_link_may_read). */
static int admit_wan(void *ctx, const unsigned char *hdr, const net_frame_hdr_t *h)
{
    (void)ctx;
    (void)h;
    gw_wan_t w;
    gw_wan_parse(hdr, gwd.size, &w);
    return gw_link_may_read(gwd.cur_link, &w);
}

static void stream_read(int site, int i)
{
    gw_link_t *l = &gwd.links[site];
    gw_stream_t *s = &l->st[i];
    if (s->fd < 0 || !s->up || s->bye_in)
        return;
    gwd.cur_link = l;
    int eof = 0;
    char err[700];
    gwd.cur_bad = 0;
    int n = net_rx_run(&s->rx, s->fd, i, &gwd.wan_ops, FRAMES_PER_EVENT, &eof, err, sizeof err);
    if (gwd.cur_bad)
        gwd_fail("%s: malformed data: %s", gwd_link_text(site), gwd.cur_err);
    if (n < 0) {
        if (s->sec && net_secure_refused(s->sec) && !gwd.ending)
            certificate_refused(site, i, err); /* TLS 1.3: the connector learns it here */
        if (strstr(err, "malformed") && !gwd.ending)
            gwd_fail("%s failed: %s", gwd_link_text(site), err);
        gwd_link_lost(site, i, err);
        return;
    }
    if (eof) {
        if (!s->rx.bye && !gwd.ending)
            gwd_fail("%s failed: the other gateway closed it without BYE", gwd_link_text(site));
        s->bye_in = 1;
        ev_unwatch(&gwd.loop, s->fd);
        shutdown(s->fd, SHUT_RDWR);
        return;
    }
    s->paused = s->rx.refused;
    /* frames may be left in the buffer, which no event announces: after_pass comes back */
    s->backlog = n == FRAMES_PER_EVENT;
    if (n > 0)
        s->last_rx = gwd.conn[site].alive_at = net_now_ms();
    stream_update(site, i);
}

static void on_stream(void *arg, int fd, short revents)
{
    (void)fd;
    const sref_t *r = arg;
    gw_stream_t *s = stream_of(r);
    if (s->securing) {
        stream_secure(r->site, r->stream);
        return;
    }
    if (revents & (POLLIN | POLLERR | POLLHUP)) {
        s->last_rx = net_now_ms();
        stream_read(r->site, r->stream);
        gwd_forward_link(r->site);
    }
    if (revents & POLLOUT)
        stream_flush(r->site, r->stream);
}

/* The link's rate for the compression decision: the streams' delivery rates added up; a
 * sample limited by the sender (nothing to send) cannot lower the estimate. */
static void update_rate(gw_link_t *l)
{
    double sum = 0;
    int limited = 0;
    for (int i = 0; i < l->nst; i++) {
        int al = 0;
        if (l->st[i].up && l->st[i].fd >= 0)
            sum += gw_stream_rate(l->st[i].fd, &al);
        limited |= al;
    }
    if (!limited || sum > l->rate)
        l->rate = sum;
}

int gwd_streams_after_pass(long long t)
{
    int again = 0;
    int rates = gwd.c->compression == GW_Z_AUTO && t >= gwd.rate_at;
    if (rates)
        gwd.rate_at = t + RATE_MS;
    for (int s = 0; s < gwd.c->nsites; s++) {
        if (s == gwd_my_site())
            continue;
        gw_link_t *l = &gwd.links[s];
        if (rates)
            update_rate(l);
        for (int i = 0; i < l->nst; i++) {
            gw_stream_t *st = &l->st[i];
            if (st->securing && t > st->secure_by) {
                char why[96];
                snprintf(why, sizeof why, "stream %d: the TLS handshake did not finish in %d "
                         "ms", i, gwd.c->timeout_ms);
                gwd_link_lost(s, i, why);
                break;
            }
            if (st->paused || st->backlog) { /* the window may have room now */
                stream_read(s, i);
                again |= st->backlog;
            }
        }
        if (gw_link_backlog(l) || l->part_ready)
            gwd_forward_link(s);
        if (gw_link_flush_credit(l) != 0)
            gwd_fail("out of memory for %s", gwd_link_text(s));
        /* The streams are written before the open batch is looked at: a stream that drains
         * now is idle now, and the batch that waited for it leaves in this pass (nothing
         * else would wake the loop for it: an empty queue asks for no POLLOUT). */
        for (int i = 0; i < l->nst; i++)
            stream_flush(s, i);
        if (l->batch_len && (gw_link_idle_stream(l) || l->batch_len >= GW_BATCH_MAX / 2))
            if (gw_link_flush_batch(l) != 0)
                gwd_fail("out of memory for %s", gwd_link_text(s));
        /* an acknowledgement goes with anything else going out anyway (in the same write:
         * queued after it), when enough was taken, and at the latest ACK_MS after the frames
         * it covers */
        lconn_t *c = &gwd.conn[s];
        if (l->seq_have != l->ack_sent && !c->ack_due)
            c->ack_due = t + ACK_MS;
        int ack_now = gw_link_queued(l) > 0 || l->batch_len || (c->ack_due && t >= c->ack_due);
        if (gw_link_flush_ack(l, ack_now) != 0)
            gwd_fail("out of memory for %s", gwd_link_text(s));
        if (l->seq_have == l->ack_sent)
            c->ack_due = 0;
        for (int i = 0; i < l->nst; i++) {
            gw_stream_t *st = &l->st[i];
            if (st->up && st->fd >= 0 && !st->bye_in && !st->out.n &&
                t - st->last_tx >= gwd.c->timeout_ms / 4) {
                if (gw_link_signal(l, i, GW_WAN_ACK) != 0)
                    gwd_fail("out of memory for %s", gwd_link_text(s));
            }
            stream_flush(s, i);
            if (st->paused) /* we do not read it: its silence is ours, not the link's */
                st->last_rx = t;
            if (st->up && st->fd >= 0 && !st->bye_in && t - st->last_rx > gwd.c->timeout_ms) {
                char why[96];
                snprintf(why, sizeof why, "stream %d: nothing arrived for %d ms (no heartbeat: "
                         "a cut link?)", i, gwd.c->timeout_ms);
                gwd_link_lost(s, i, why);
                break;
            }
        }
    }
    return again;
}

/* What each link carried, one line per link at the normal end: on stderr with
 * METAMPI_GW_STATS=1 (README.md, "Diagnostics"), on the report fd with --stats on (for
 * mpirun --report, docs/report.md). */
static void print_stats(void)
{
    int to_stderr = tun_bool(TUN_GW_STATS);
    if (!to_stderr && !gwd.c->stats)
        return;
    for (int s = 0; s < gwd.c->nsites; s++) {
        if (s == gwd_my_site())
            continue;
        const gw_link_t *l = &gwd.links[s];
        char line[600];
        int n = snprintf(line, sizeof line, "metampi-gateway-stats site=%s to=%s "
                         "rank_frames=%llu multis=%llu wan_frames=%llu wan_bytes=%llu "
                         "raw_bytes=%llu rank_frames_in=%llu wan_frames_in=%llu parked=%llu "
                         "credits_in=%llu breaks=%llu resent=%llu rank_read_max=%zu\n",
                         gwd_site_name(gwd_my_site()), gwd_site_name(s),
                         (unsigned long long)l->frames_out,
                         (unsigned long long)l->multi_out, (unsigned long long)l->wan_out,
                         (unsigned long long)l->bytes_out, (unsigned long long)l->raw_out,
                         (unsigned long long)l->frames_in,
                         (unsigned long long)l->wan_in, (unsigned long long)l->parks,
                         (unsigned long long)l->credits_in, (unsigned long long)l->breaks,
                         (unsigned long long)l->resent, gwd.rank_read_max);
        if (n < 0 || n >= (int)sizeof line)
            continue;
        ssize_t w = to_stderr ? write(2, line, (size_t)n) : 0;
        if (gwd.c->stats)
            w = write(gwd.c->report_fd, line, (size_t)n);
        (void)w;
    }
}

/* Ending: a stream whose TLS handshake is still under way here may already be up at the
 * other gateway (TLS 1.3's two ends finish at different times), which then expects its BYE
 * like on any other stream: the handshake is finished first (until the deadline), so that
 * the BYE can go. */
static void finish_handshake(gw_stream_t *st, long long until)
{
    while (st->securing && net_now_ms() < until) {
        char err[256];
        short wants = 0;
        int rc = net_secure_step(st->sec, &wants, err, sizeof err);
        if (rc < 0)
            return; /* the other end reports what it saw */
        if (rc > 0) {
            st->securing = 0;
            st->up = 1;
            return;
        }
        struct pollfd p = { .fd = st->fd, .events = wants };
        poll(&p, 1, 10);
    }
}

void gwd_end_links(void)
{
    gwd.ending = 1;
    long long until = net_now_ms() + END_TIMEOUT_MS;
    for (int s = 0; s < gwd.c->nsites; s++) {
        if (s == gwd_my_site())
            continue;
        gw_link_t *l = &gwd.links[s];
        for (int i = 0; i < l->nst; i++)
            if (l->st[i].fd >= 0)
                finish_handshake(&l->st[i], until);
        gw_link_flush_batch(l);
        for (int i = 0; i < l->nst; i++)
            if (l->st[i].up && l->st[i].fd >= 0)
                gw_link_signal(l, i, GW_WAN_BYE);
    }
    for (int s = 0; s < gwd.c->nsites; s++) {
        if (s == gwd_my_site())
            continue;
        gw_link_t *l = &gwd.links[s];
        for (int i = 0; i < l->nst; i++) {
            gw_stream_t *st = &l->st[i];
            if (!st->up || st->fd < 0)
                continue;
            net_outq_drain(&st->out, st->fd, until);
            shutdown(st->fd, SHUT_WR);
        }
    }
    /* the peers' own end of stream, so no socket is reset with data in flight */
    for (int s = 0; s < gwd.c->nsites; s++) {
        if (s == gwd_my_site())
            continue;
        gw_link_t *l = &gwd.links[s];
        for (int i = 0; i < l->nst; i++) {
            gw_stream_t *st = &l->st[i];
            if (st->up && st->fd >= 0 && !st->bye_in)
                net_drain_to_eof(st->fd, until);
        }
    }
    print_stats();
}

void gwd_streams_init(void)
{
    const gw_config_t *c = gwd.c;
    gwd.wan_ops = (net_rx_ops_t){ .deliver = wan_deliver, .max_frame = GW_WAN_MAX,
                                  .hdr_len = GW_WAN_HDR, .parse_hdr = gw_wan_parse_rx,
                                  .hdr_ctx = &gwd.size, .with_header = 1, .admit = admit_wan,
                                  .peer = "stream" };
    gwd.links = calloc((size_t)c->nsites, sizeof *gwd.links);
    gwd.conn = calloc((size_t)c->nsites, sizeof *gwd.conn);
    gwd.srefs = calloc((size_t)(c->nsites * c->streams), sizeof *gwd.srefs);
    if (!gwd.links || !gwd.conn || !gwd.srefs || auth_nonce(gwd.instance) != 0)
        gwd_fail("out of memory, or no randomness for its instance");
    for (int s = 0; s < c->nsites; s++) {
        for (int i = 0; i < c->streams; i++)
            gwd.srefs[s * c->streams + i] = (sref_t){ s, i };
        if (s == gwd_my_site())
            continue;
        if (gw_link_init(&gwd.links[s], s, c->streams, gwd.size, RANK_MAX_FRAME,
                         c->compression, gwd.instance) != 0)
            gwd_fail("out of memory for %s", gwd_link_text(s));
    }
}

/* This gateway was not running (stopped, or the whole job suspended): the silence of the
 * links is its own, not theirs. */
void gwd_streams_clocks_restart(long long now)
{
    for (int s = 0; s < gwd.c->nsites; s++) {
        for (int i = 0; s != gwd_my_site() && i < gwd.links[s].nst; i++)
            gwd.links[s].st[i].last_rx = now;
        gwd.conn[s].alive_at = now;
    }
}
