#include "gateway.h"

#include "evloop.h"
#include "link.h"
#include "origins.h"
#include "rate.h"
#include "transport/gw/wire.h"
#include "transport/tcp/outq.h"
#include "transport/tcp/rx.h"
#include "transport/tcp/wire.h"
#include "runtime/fdlimit.h"
#include "runtime/tunables.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum {
    RANK_MAX_FRAME = (4 << 20) + 256,  /* = the gw transport's max_frame */
    RANK_RX = 256 << 10,
    FRAMES_PER_EVENT = 64,
    HELLO_TIMEOUT_MS = 10000,          /* an accepted connection must prove the key by then */
    PENDING_MAX = 256,                 /* unproven accepted connections kept at once; beyond, */
    EVICT_GRACE_MS = 250,              /* the oldest goes once it had this long to answer */
    NOTE_WINDOW_MS = 60000,            /* at most NOTES_MAX dropped-connection lines per window */
    NOTES_MAX = 10,
    CONNECT_TIMEOUT_MS = 60000,        /* the other gateway must listen by then */
    RETRY_MS = 100,
    END_TIMEOUT_MS = 2000,             /* SIGTERM: BYE, then wait this long for the peers */
    RATE_MS = 250,                     /* how often a link's rate is read (compression) */
};

enum hs_state { HS_NONE, HS_CONNECTING, HS_CHALLENGE, HS_WELCOME };

/* A connection whose HELLO has not been read yet (we accepted it), or a stream we open. */
typedef struct hs {
    int fd, state;
    int site, stream;               /* our stream being opened; -1 for an accepted one */
    unsigned char na[AUTH_NONCE], nc[AUTH_NONCE];
    unsigned char in[GW_HELLO_LEN];
    size_t got;
    long long deadline, retry_at;   /* accepted: its HELLO's; ours: the last try's, the next */
    long long step_deadline;        /* ours: the other gateway's answer to this step */
    long long t_accept;
    struct sockaddr_in from;
    struct hs *next;
    struct hs *qnext;               /* accepted ones: the FIFO, oldest first */
    int last_errno;
} hs_t;

typedef struct rconn {
    int rank, fd;
    int bye, gone;                  /* said BYE / its connection ended */
    int blocked;                    /* not read: its next frame's link is full */
    int backlog;                    /* frames may wait in rx */
    tcp_rx_t rx;
    tcp_outq_t out;
    gw_origins_t from;              /* the link each byte of out came from (its credit) */
} rconn_t;

typedef struct sref {
    int site, stream;
} sref_t;

static struct {
    const gw_config_t *c;
    gw_keys_t keys;                 /* derived from the job key (runtime/auth.h) */
    ev_loop_t loop;
    int lfd, sigfd;
    uint32_t size;
    gw_link_t *links;               /* nsites; links[own site] unused */
    sref_t *srefs;                  /* nsites * streams */
    hs_t *hs;                       /* handshakes in progress */
    hs_t *acc, *acc_tail;           /* the accepted ones among them, oldest first */
    int nacc;
    long long note_window;          /* dropped-connection lines: this window's start, */
    int notes, notes_held;          /* lines written in it, lines held back */
    long long last_pass;            /* when the loop last ran (a suspended gateway) */
    rconn_t *ranks;                 /* per rank of the job; used for this site's */
    unsigned char *stopped;         /* per rank of the job: our ranks were told STOP for it */
    uint32_t *stopped_list, nstopped; /* those ranks */
    tcp_rx_ops_t rank_ops, wan_ops;
    rconn_t *cur;                   /* the rank being read (deliver callback) */
    gw_link_t *cur_link;            /* the link being read */
    char cur_err[256];
    int cur_bad;
    int ending;
    long long rate_at;
    long long t_start;
    int links_checked;              /* the links the lower sites open are all up */
    const char *congestion;         /* the WAN streams' TCP congestion control; NULL: the
                                     * kernel's default */
} g;

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *site_name(int s)
{
    return g.c->names[s];
}

/* One line "<prefix><message>\n" on fd, written at once. */
static void vline(int fd, const char *prefix, const char *fmt, va_list ap)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "%s", prefix);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    size_t l = strlen(line);
    line[l++] = '\n';
    ssize_t w = write(fd, line, l);
    (void)w;
}

/* The one-line report, then exit 1. */
static _Noreturn void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void fail(const char *fmt, ...)
{
    char prefix[128];
    snprintf(prefix, sizeof prefix, "gateway of site %s: ", site_name(g.c->site));
    va_list ap;
    va_start(ap, fmt);
    vline(g.c->report_fd, prefix, fmt, ap);
    va_end(ap);
    _exit(1);
}

/* A diagnostic that does not end the job (a stranger's connection). */
static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    char prefix[128];
    snprintf(prefix, sizeof prefix, "metampi-gateway (site %s): ", site_name(g.c->site));
    va_list ap;
    va_start(ap, fmt);
    vline(2, prefix, fmt, ap);
    va_end(ap);
}

static void addr_text(const struct sockaddr_in *a, char *out, size_t cap)
{
    char ip[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
    snprintf(out, cap, "%s:%u", ip, (unsigned)ntohs(a->sin_port));
}

/* "the WAN link to site B (10.0.2.1:7000)" */
static const char *link_text(int s)
{
    static char b[256];
    char a[64];
    gw_config_addr_text(g.c, s, a, sizeof a);
    snprintf(b, sizeof b, "the WAN link to site %s (%s)", site_name(s), a);
    return b;
}

static int my_site(void)
{
    return g.c->site;
}

/* ---- socket set-up ----------------------------------------------------------------------- */

static void socket_options(int fd, int wan)
{
    int one = 1;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (!wan)
        return;
    if (g.congestion)  /* known to work: choose_congestion tried it */
        setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, g.congestion,
                   (socklen_t)strlen(g.congestion));
    /* No TCP_USER_TIMEOUT: it also aborts a connection whose peer advertises a zero window
     * that long, which is flow control doing its job (a receiving gateway that does not read
     * while its ranks do not), not a cut. Heartbeats find cuts (after_pass). */
    /* Explicit sizes (for measurements) switch the kernel's autotuning off. */
    const tun_id_t sizes[2] = { TUN_GW_SNDBUF, TUN_GW_RCVBUF };
    const int opts[2] = { SO_SNDBUFFORCE, SO_RCVBUFFORCE };
    for (int i = 0; i < 2; i++) {
        int n = (int)tun_size(sizes[i]); /* at most INT_MAX (the registry's bound) */
        if (n > 0)
            setsockopt(fd, SOL_SOCKET, opts[i], &n, sizeof n);
    }
}

/* The WAN streams' congestion control, tried once on a socket of our own before any link is
 * up, so that a name the kernel refuses ends the job at its start. auto prefers cubic: MPI
 * traffic is bursts separated by silences (a collective, a halo exchange), and BBR (the
 * default of some kernels) paces every burst at the rate it measured on the last ones, which
 * an application that is not sending all the time keeps low: between emulated sites (5 ms,
 * 1 Gbit/s) a 128 KiB MPI_Allreduce took 11.7 ms with BBR and 8.6 ms with cubic, a 16 KiB
 * ping-pong 8.7 and 6.2 ms one way. cubic sends a burst within its window at once. */
static void choose_congestion(void)
{
    const char *want = g.c->congestion;
    int automatic = strcmp(want, "auto") == 0;
    if (strcmp(want, "system") == 0)
        return;
    if (automatic)
        want = "cubic";
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        fail("cannot open a socket: %s", strerror(errno));
    int rc = setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, want, (socklen_t)strlen(want));
    int e = errno;
    close(fd);
    if (rc == 0)
        g.congestion = want;
    else if (!automatic)
        fail("cannot use the TCP congestion control '%s' on its WAN streams: %s (this kernel "
             "offers those in /proc/sys/net/ipv4/tcp_available_congestion_control; without "
             "privileges, those in tcp_allowed_congestion_control)", want, strerror(e));
}

static void on_stream(void *arg, int fd, short revents);
static void on_rank(void *arg, int fd, short revents);
static void on_hs(void *arg, int fd, short revents);

/* ---- streams ------------------------------------------------------------------------------ */

static gw_stream_t *stream_of(const sref_t *r)
{
    return &g.links[r->site].st[r->stream];
}

static short stream_events(const gw_stream_t *s)
{
    return (short)((s->paused ? 0 : POLLIN) | (s->out.n ? POLLOUT : 0));
}

static void stream_update(int site, int i)
{
    gw_stream_t *s = &g.links[site].st[i];
    if (s->fd >= 0 && s->up)
        ev_set_events(&g.loop, s->fd, stream_events(s));
}

static void stream_flush(int site, int i)
{
    gw_stream_t *s = &g.links[site].st[i];
    if (s->fd < 0 || !s->up || !s->out.n)
        return;
    size_t before = s->out.copied;
    int nout;
    int rc = tcp_outq_flush(&s->out, s->fd, NULL, 0, &nout);
    if (rc < 0) {
        if (g.ending)
            return;
        fail("%s failed: %s", link_text(site), strerror(errno));
    }
    if (s->out.copied != before)
        s->last_tx = now_ms();
    stream_update(site, i);
}

static void stream_up(int site, int i, int fd)
{
    gw_stream_t *s = &g.links[site].st[i];
    s->fd = fd;
    s->up = 1;
    s->last_rx = s->last_tx = now_ms();
    ev_watch(&g.loop, fd, stream_events(s), on_stream, &g.srefs[site * g.c->streams + i]);
    stream_flush(site, i);
}

/* ---- forwarding to this site's ranks ----------------------------------------------------- */

/* Credits n bytes that left rank ctx's queue to the link that brought them. */
static void credit_back(void *ctx, int link, size_t n)
{
    gw_link_delivered(&g.links[link], (uint32_t)((rconn_t *)ctx)->rank, n);
}

static void rank_flush(rconn_t *r)
{
    if (r->fd < 0 || !r->out.n)
        return;
    int nout;
    size_t before = r->out.copied + r->out.borrowed;
    if (tcp_outq_flush(&r->out, r->fd, NULL, 0, &nout) < 0) {
        /* the rank is gone; the launcher reports it. What was queued for it is dropped. */
        r->gone = 1;
        tcp_outq_free(&r->out);
        gw_origins_take_all(&r->from, credit_back, r);
    } else {
        gw_origins_take(&r->from, before - (r->out.copied + r->out.borrowed), credit_back, r);
    }
    if (r->fd >= 0 && !r->gone)
        ev_set_events(&g.loop, r->fd,
                      (short)((r->blocked || r->bye ? 0 : POLLIN) | (r->out.n ? POLLOUT : 0)));
}

static int forward(void *ctx, const gw_frame_t *h, unsigned char *f, size_t n, int owned,
                   char *err, int errlen)
{
    gw_link_t *l = ctx;
    if (g.c->rank_site[h->dst] != my_site() || g.c->rank_site[h->src] != l->site) {
        snprintf(err, (size_t)errlen, "a frame from rank %u to rank %u does not belong on it",
                 h->src, h->dst);
        return -1;
    }
    rconn_t *r = &g.ranks[h->dst];
    if (r->gone || r->bye) { /* its process is gone or finished: nobody will read it */
        if (owned)
            free(f);
        gw_link_delivered(l, h->dst, n);
        return 1;
    }
    /* no bound here: the link's credit for this rank bounds what it forwards (link.h) */
    int rc;
    if (owned) {
        rc = tcp_outq_push(&r->out, f, n, f, (tcp_completion_t){ 0 });
    } else {
        struct iovec v = { f, n };
        rc = tcp_outq_push_copy(&r->out, &v, 1, 0);
    }
    if (rc == 0)
        rc = gw_origins_push(&r->from, l->site, n);
    if (rc != 0) {
        snprintf(err, (size_t)errlen, "out of memory forwarding a %zu-byte frame", n);
        return -1;
    }
    return 1;
}

static int forward_link(int s)
{
    char err[256];
    int n = gw_link_forward(&g.links[s], forward, &g.links[s], err, sizeof err);
    if (n < 0)
        fail("%s: malformed data: %s", link_text(s), err);
    return n;
}

/* ---- reading a WAN stream ----------------------------------------------------------------- */

static void wan_deliver(int stream, const void *frame, size_t len)
{
    (void)stream;
    if (g.cur_bad)
        return;
    if (gw_link_take(g.cur_link, frame, len, g.cur_err, sizeof g.cur_err) != 0)
        g.cur_bad = 1;
}

/* The WAN frame reader's admission (tcp/rx.h): the reorder window's rule, checked before
 * every frame is taken, also the first one of a fresh read (gw_link_may_read). */
static int admit_wan(void *ctx, const unsigned char *hdr, const tcp_frame_hdr_t *h)
{
    (void)ctx;
    (void)h;
    gw_wan_t w;
    gw_wan_parse(hdr, g.size, &w);
    return gw_link_may_read(g.cur_link, &w);
}

static void stream_read(int site, int i)
{
    gw_link_t *l = &g.links[site];
    gw_stream_t *s = &l->st[i];
    if (s->fd < 0 || !s->up || s->bye_in)
        return;
    g.cur_link = l;
    int eof = 0;
    char err[256];
    g.cur_bad = 0;
    int n = tcp_rx_run(&s->rx, s->fd, i, &g.wan_ops, FRAMES_PER_EVENT, &eof, err, sizeof err);
    if (g.cur_bad)
        fail("%s: malformed data: %s", link_text(site), g.cur_err);
    if (n < 0) {
        if (g.ending)
            return;
        fail("%s failed: %s", link_text(site), strstr(err, "malformed") ? err : strerror(errno));
    }
    if (eof) {
        if (!s->rx.bye && !g.ending)
            fail("%s failed: the other gateway closed it without BYE", link_text(site));
        s->bye_in = 1;
        ev_unwatch(&g.loop, s->fd);
        shutdown(s->fd, SHUT_RDWR);
        return;
    }
    s->paused = s->rx.refused;
    /* frames may be left in the buffer, which no event announces: after_pass comes back */
    s->backlog = n == FRAMES_PER_EVENT;
    if (n > 0)
        s->last_rx = now_ms();
    stream_update(site, i);
}

static void on_stream(void *arg, int fd, short revents)
{
    (void)fd;
    const sref_t *r = arg;
    gw_stream_t *s = stream_of(r);
    if (revents & (POLLIN | POLLERR | POLLHUP)) {
        s->last_rx = now_ms();
        stream_read(r->site, r->stream);
        forward_link(r->site);
    }
    if (revents & POLLOUT)
        stream_flush(r->site, r->stream);
}

/* ---- reading this site's ranks ------------------------------------------------------------ */

/* Tells every rank of this site to stop sending to rank `about` (STOP) or to go on (GO); the
 * frames leave with the next flush of each rank's queue (after_pass). */
static void tell_ranks(uint8_t kind, uint32_t about)
{
    for (uint32_t r = 0; r < g.size; r++) {
        rconn_t *rc = &g.ranks[r];
        if (g.c->rank_site[r] != my_site() || rc->gone || rc->bye)
            continue;
        unsigned char f[GW_FRAME_HDR];
        gw_frame_encode(f, &(gw_frame_t){ .kind = kind, .dst = r, .src = about });
        struct iovec v = { f, sizeof f };
        if (tcp_outq_push_copy(&rc->out, &v, 1, 0) != 0 ||
            gw_origins_push(&rc->from, -1, sizeof f) != 0)
            fail("out of memory");
    }
}

/* STOP for rank d once the link holds GW_PARK_STOP bytes for it waiting for credit; GO when
 * they are down to GW_PARK_GO (go_if_unparked). */
static void stop_if_parked(const gw_link_t *l, uint32_t d)
{
    if (g.stopped[d] || gw_link_parked(l, d) < GW_PARK_STOP)
        return;
    g.stopped[d] = 1;
    g.stopped_list[g.nstopped++] = d;
    tell_ranks(GW_KIND_STOP, d);
}

static void go_if_unparked(void)
{
    for (uint32_t i = 0; i < g.nstopped;) {
        uint32_t d = g.stopped_list[i];
        if (gw_link_parked(&g.links[g.c->rank_site[d]], d) > GW_PARK_GO) {
            i++;
            continue;
        }
        g.stopped[d] = 0;
        g.stopped_list[i] = g.stopped_list[--g.nstopped];
        tell_ranks(GW_KIND_GO, d);
    }
}

/* Whether the body of a MULTI from rank src to ranks of site `site` holds only whole frames
 * from src to ranks of that site; else what is wrong (in g.cur_err). */
static int multi_ok(const unsigned char *body, size_t n, int src, int site)
{
    for (size_t at = 0; at < n;) {
        gw_frame_t f;
        const char *bad = gw_multi_next(body + at, n - at, g.size, (uint32_t)src, &f);
        if (!bad && g.c->rank_site[f.dst] != site)
            bad = "MULTI: inner frames for different sites";
        if (bad) {
            snprintf(g.cur_err, sizeof g.cur_err, "a malformed MULTI frame (%s)", bad);
            return 0;
        }
        at += GW_FRAME_HDR + f.len;
    }
    return 1;
}

static void rank_deliver(int src, const void *frame, size_t len)
{
    if (g.cur_bad)
        return;
    const unsigned char *f = frame;
    gw_frame_t h;
    gw_rank_frame_parse(f, RANK_MAX_FRAME, g.size, &h);
    int site = g.c->rank_site[h.dst];
    if ((int)src != g.cur->rank || site == my_site()) {
        snprintf(g.cur_err, sizeof g.cur_err, "a frame from rank %u to rank %u", h.src, h.dst);
        g.cur_bad = 1;
        return;
    }
    int multi = h.kind == GW_KIND_MULTI;
    if (multi && !multi_ok(f + GW_FRAME_HDR, len - GW_FRAME_HDR, src, site)) {
        g.cur_bad = 1;
        return;
    }
    gw_link_t *l = &g.links[site];
    for (int i = 0; i < l->nst; i++)
        if (l->st[i].bye_in)
            return; /* that site's gateway is ending, and so is the job: nobody reads it */
    if ((multi ? gw_link_send_multi(l, f + GW_FRAME_HDR, len - GW_FRAME_HDR)
               : gw_link_send(l, f, len)) != 0)
        fail("out of memory for %s", link_text(l->site));
    if (!multi) {
        stop_if_parked(l, h.dst);
        return;
    }
    for (size_t at = GW_FRAME_HDR; at < len;) {
        gw_frame_t in;
        gw_multi_next(f + at, len - at, g.size, (uint32_t)src, &in);
        stop_if_parked(l, in.dst);
        at += GW_FRAME_HDR + in.len;
    }
}

/* The rank's connection ends: nothing more is written to it, and what was queued for it is
 * dropped (its credit returns to the links). */
static void rank_close(rconn_t *r)
{
    if (r->fd >= 0) {
        ev_unwatch(&g.loop, r->fd);
        close(r->fd);
        r->fd = -1;
    }
    tcp_rx_free(&r->rx);
    tcp_outq_free(&r->out);
    gw_origins_take_all(&r->from, credit_back, r);
}

static void rank_read(rconn_t *r)
{
    if (r->fd < 0 || r->gone || r->bye)
        return;
    g.cur = r;
    int eof = 0;
    char err[256];
    g.cur_bad = 0;
    /* admit_rank leaves a frame unread whose link is full: blocked */
    int n = tcp_rx_run(&r->rx, r->fd, r->rank, &g.rank_ops, FRAMES_PER_EVENT, &eof, err,
                       sizeof err);
    r->blocked = r->rx.refused;
    r->backlog = n == FRAMES_PER_EVENT;
    if (g.cur_bad || (n < 0 && strstr(err, "malformed"))) {
        note("rank %d sent %s; its connection is closed", r->rank, g.cur_bad ? g.cur_err : err);
        r->gone = 1;
        rank_close(r);
        return;
    }
    if (n < 0 || (eof && !r->rx.bye)) { /* the rank died: the launcher says so */
        r->gone = 1;
        rank_close(r);
        return;
    }
    if (eof || r->rx.bye) {
        r->bye = 1;
        /* what is queued for it goes out, then the connection ends */
        rank_flush(r);
        shutdown(r->fd, SHUT_WR);
        if (eof)
            rank_close(r);
        return;
    }
    ev_set_events(&g.loop, r->fd,
                  (short)((r->blocked ? 0 : POLLIN) | (r->out.n ? POLLOUT : 0)));
}

/* The rank frame reader's admission (tcp/rx.h): a frame for another site is read only while
 * its link is not full. */
static int admit_rank(void *ctx, const unsigned char *hdr, const tcp_frame_hdr_t *h)
{
    (void)ctx;
    (void)h;
    gw_frame_t f;
    gw_rank_frame_parse(hdr, RANK_MAX_FRAME, g.size, &f);
    int site = g.c->rank_site[f.dst];
    return site == my_site() || !gw_link_full(&g.links[site]);
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

/* ---- handshakes ----------------------------------------------------------------------------- */

static void hs_free(hs_t *h, int close_fd)
{
    for (hs_t **p = &g.hs; *p; p = &(*p)->next)
        if (*p == h) {
            *p = h->next;
            break;
        }
    if (h->stream < 0) {
        hs_t *prev = NULL;
        for (hs_t *q = g.acc; q; prev = q, q = q->qnext)
            if (q == h) {
                if (prev)
                    prev->qnext = h->qnext;
                else
                    g.acc = h->qnext;
                if (g.acc_tail == h)
                    g.acc_tail = prev;
                g.nacc--;
                break;
            }
    }
    if (h->fd >= 0) {
        ev_unwatch(&g.loop, h->fd);
        if (close_fd)
            close(h->fd);
    }
    free(h);
}

/* At most NOTES_MAX dropped-connection lines per window; the rest are summed up in one
 * line when the window ends (a flood must not flood stderr). */
static int note_allowed(long long t)
{
    if (t - g.note_window >= NOTE_WINDOW_MS) {
        if (g.notes_held)
            note("dropped %d more connections in the last %d s (no valid hello, or no "
                 "descriptor for them)", g.notes_held, NOTE_WINDOW_MS / 1000);
        g.note_window = t;
        g.notes = g.notes_held = 0;
    }
    if (g.notes < NOTES_MAX) {
        g.notes++;
        return 1;
    }
    g.notes_held++;
    return 0;
}

/* A connection whose HELLO did not prove the key, or came from where it may not. */
static void hs_drop(hs_t *h, const char *why)
{
    if (note_allowed(now_ms())) {
        char a[64];
        addr_text(&h->from, a, sizeof a);
        note("dropped a connection from %s: %s", a, why);
    }
    hs_free(h, 1);
}

/* Reads until h->in holds want bytes: 1 complete, 0 not yet, -1 end of stream or error. */
static int read_exact(hs_t *h, size_t want)
{
    while (h->got < want) {
        ssize_t n = read(h->fd, h->in + h->got, want - h->got);
        if (n > 0) {
            h->got += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n < 0)
            h->last_errno = errno;
        return -1;
    }
    return 1;
}

/* The handshake's small messages go into a fresh socket's empty buffer whole. */
static int write_all(int fd, const void *p, size_t n)
{
    struct iovec v = { (void *)p, n };
    return tcp_sendv(fd, &v, 1) == (long)n ? 0 : -1;
}

static void accepted_hello(hs_t *h)
{
    gw_hello_t m;
    const char *bad = gw_hello_parse(h->in, &g.keys, h->na, &m);
    if (bad) {
        hs_drop(h, bad);
        return;
    }
    int fd = h->fd;
    if (m.role == GW_ROLE_RANK) {
        if (m.b != g.size || m.a >= g.size || g.c->rank_site[m.a] != my_site()) {
            hs_drop(h, "a hello from a rank that is not at this site");
            return;
        }
        rconn_t *r = &g.ranks[m.a];
        if (r->fd >= 0 || r->bye || r->gone) {
            hs_drop(h, "a second connection of the same rank");
            return;
        }
        unsigned char w[GW_WELCOME_LEN];
        gw_welcome_encode(w, &g.keys.rank, (uint32_t)my_site(), m.nonce, h->na);
        if (write_all(fd, w, sizeof w) != 0 || tcp_rx_init(&r->rx, RANK_RX) != 0) {
            hs_free(h, 1);
            return;
        }
        hs_free(h, 0);
        r->fd = fd;
        ev_watch(&g.loop, fd, (short)(POLLIN | (r->out.n ? POLLOUT : 0)), on_rank, r);
        rank_flush(r);
        return;
    }
    int from = (int)(m.a & 0xffff), nsites = (int)(m.a >> 16);
    int stream = (int)(m.b & 0xffff), nst = (int)(m.b >> 16);
    if (nsites != g.c->nsites || from >= my_site() || nst != g.c->streams ||
        stream >= nst) {
        hs_drop(h, "a hello from a gateway of another layout");
        return;
    }
    gw_stream_t *s = &g.links[from].st[stream];
    if (s->fd >= 0 || s->bye_in) {
        hs_drop(h, "a second connection of the same WAN stream");
        return;
    }
    unsigned char w[GW_WELCOME_LEN];
    gw_welcome_encode(w, &g.keys.link, (uint32_t)my_site(), m.nonce, h->na);
    if (write_all(fd, w, sizeof w) != 0) {
        hs_free(h, 1);
        return;
    }
    hs_free(h, 0);
    socket_options(fd, 1);
    stream_up(from, stream, fd);
}

static void try_connect(hs_t *h);

static void connect_failed(hs_t *h, const char *why)
{
    long long t = now_ms();
    if (t >= h->deadline) {
        char a[64];
        gw_config_addr_text(g.c, h->site, a, sizeof a);
        fail("cannot open %s: %s", link_text(h->site), why);
    }
    if (h->fd >= 0) {
        ev_unwatch(&g.loop, h->fd);
        close(h->fd);
        h->fd = -1;
    }
    h->state = HS_NONE;
    h->got = 0;
    h->retry_at = t + RETRY_MS;
}

static void on_hs(void *arg, int fd, short revents)
{
    (void)fd;
    (void)revents;
    hs_t *h = arg;
    if (h->stream < 0) { /* accepted: its HELLO */
        int rc = read_exact(h, GW_HELLO_LEN);
        if (rc < 0)
            hs_free(h, 1); /* closed before its hello: not worth a line */
        else if (rc > 0)
            accepted_hello(h);
        return;
    }
    if (h->state == HS_CONNECTING) {
        int soerr = 0;
        socklen_t l = sizeof soerr;
        getsockopt(h->fd, SOL_SOCKET, SO_ERROR, &soerr, &l);
        if (soerr) {
            connect_failed(h, strerror(soerr));
            return;
        }
        h->state = HS_CHALLENGE;
        h->step_deadline = now_ms() + g.c->timeout_ms;
        ev_set_events(&g.loop, h->fd, POLLIN);
    }
    if (h->state == HS_CHALLENGE) {
        int rc = read_exact(h, TCP_CHALLENGE_LEN);
        if (rc == 0)
            return;
        if (rc < 0) {
            connect_failed(h, h->last_errno ? strerror(h->last_errno)
                                             : "the other side closed it at once");
            return;
        }
        const char *bad = tcp_challenge_parse(h->in, h->na);
        if (bad)
            fail("cannot open %s: %s", link_text(h->site), bad);
        if (auth_nonce(h->nc) != 0)
            fail("no randomness for a nonce");
        unsigned char hello[GW_HELLO_LEN];
        gw_hello_encode(hello, &g.keys.link, GW_ROLE_LINK,
                        (uint32_t)my_site() | (uint32_t)g.c->nsites << 16,
                        (uint32_t)h->stream | (uint32_t)g.c->streams << 16, h->na, h->nc);
        if (write_all(h->fd, hello, sizeof hello) != 0) {
            connect_failed(h, "cannot send the hello");
            return;
        }
        h->got = 0;
        h->state = HS_WELCOME;
        h->step_deadline = now_ms() + g.c->timeout_ms;
    }
    if (h->state == HS_WELCOME) {
        int rc = read_exact(h, GW_WELCOME_LEN);
        if (rc == 0)
            return;
        if (rc < 0) { /* it may evict unproven connections in a flood: try again */
            connect_failed(h, "the other gateway closed it during the handshake (does it "
                           "have the same job key?)");
            return;
        }
        const char *bad = gw_welcome_parse(h->in, &g.keys.link, h->nc, h->na,
                                           (uint32_t)h->site);
        if (bad)
            fail("cannot open %s: %s", link_text(h->site), bad);
        int site = h->site, stream = h->stream, sfd = h->fd;
        hs_free(h, 0);
        stream_up(site, stream, sfd);
    }
}

static void try_connect(hs_t *h)
{
    h->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (h->fd < 0)
        fail("cannot open %s: %s", link_text(h->site), strerror(errno));
    socket_options(h->fd, 1);
    int rc = connect(h->fd, (struct sockaddr *)&g.c->addr[h->site], sizeof g.c->addr[0]);
    if (rc != 0 && errno != EINPROGRESS) {
        connect_failed(h, strerror(errno));
        return;
    }
    h->state = rc == 0 ? HS_CHALLENGE : HS_CONNECTING;
    h->step_deadline = now_ms() + g.c->timeout_ms;
    ev_watch(&g.loop, h->fd, rc == 0 ? POLLIN : POLLOUT, on_hs, h);
}

static void drop_oldest_accepted(void)
{
    if (g.acc)
        hs_free(g.acc, 1);
}

/* Takes the waiting connections. At most PENDING_MAX stay unproven at once: beyond, the
 * oldest goes once it had EVICT_GRACE_MS to send its HELLO (a flood's idle connections make
 * room; a rank whose connection went retries), and until then the newcomers wait in the
 * kernel's queue. Out of descriptors, the oldest unproven one goes, or (none) the waiting
 * connection is taken and closed at once: a flood cannot end the job. */
static void on_listen(void *arg, int fd, short revents)
{
    (void)arg;
    (void)revents;
    for (;;) {
        if (g.nacc >= PENDING_MAX) {
            if (now_ms() < g.acc->t_accept + EVICT_GRACE_MS)
                return;
            drop_oldest_accepted();
        }
        struct sockaddr_in from;
        socklen_t fl = sizeof from;
        int c = accept4(fd, (struct sockaddr *)&from, &fl, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (c < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE) {
                if (g.acc) {
                    drop_oldest_accepted();
                    continue;
                }
                if (fdlimit_shed(fd) == 0) {
                    if (note_allowed(now_ms()))
                        note("out of descriptors: closed a connection at once");
                    continue;
                }
            }
            return; /* EAGAIN; ENOBUFS, ENOMEM: later */
        }
        hs_t *h = calloc(1, sizeof *h);
        if (!h || auth_nonce(h->na) != 0) {
            free(h);
            close(c);
            continue;
        }
        h->fd = c;
        h->stream = -1;
        h->from = from;
        h->t_accept = now_ms();
        h->deadline = h->t_accept + HELLO_TIMEOUT_MS;
        h->next = g.hs;
        g.hs = h;
        if (g.acc_tail)
            g.acc_tail->qnext = h;
        else
            g.acc = h;
        g.acc_tail = h;
        g.nacc++;
        socket_options(c, 0);
        unsigned char ch[TCP_CHALLENGE_LEN];
        tcp_challenge_encode(ch, h->na);
        if (write_all(c, ch, sizeof ch) != 0) {
            hs_free(h, 1);
            continue;
        }
        ev_watch(&g.loop, c, POLLIN, on_hs, h);
    }
}

/* ---- the loop -------------------------------------------------------------------------------- */

/* Work that no descriptor announces: frames left in buffers, waits that ended. */
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

static int after_pass(void)
{
    int again = 0;
    long long t = now_ms();
    int rates = g.c->compression == GW_Z_AUTO && t >= g.rate_at;
    if (rates)
        g.rate_at = t + RATE_MS;
    for (int s = 0; s < g.c->nsites; s++) {
        if (s == my_site())
            continue;
        gw_link_t *l = &g.links[s];
        if (rates)
            update_rate(l);
        for (int i = 0; i < l->nst; i++) {
            gw_stream_t *st = &l->st[i];
            if (st->paused || st->backlog) { /* the window may have room now */
                stream_read(s, i);
                again |= st->backlog;
            }
        }
        if (gw_link_backlog(l) || l->part_ready)
            forward_link(s);
        if (gw_link_flush_credit(l) != 0)
            fail("out of memory for %s", link_text(s));
        /* The streams are written before the open batch is looked at: a stream that drains
         * now is idle now, and the batch that waited for it leaves in this pass (nothing
         * else would wake the loop for it: an empty queue asks for no POLLOUT). */
        for (int i = 0; i < l->nst; i++)
            stream_flush(s, i);
        if (l->batch_len && (gw_link_idle_stream(l) || l->batch_len >= GW_BATCH_MAX / 2))
            if (gw_link_flush_batch(l) != 0)
                fail("out of memory for %s", link_text(s));
        for (int i = 0; i < l->nst; i++) {
            gw_stream_t *st = &l->st[i];
            if (st->up && st->fd >= 0 && !st->bye_in && !st->out.n &&
                t - st->last_tx >= g.c->timeout_ms / 4) {
                if (gw_link_signal(l, i, GW_WAN_BEAT) != 0)
                    fail("out of memory for %s", link_text(s));
            }
            stream_flush(s, i);
            if (st->paused) /* we do not read it: its silence is ours, not the link's */
                st->last_rx = t;
            if (st->up && st->fd >= 0 && !st->bye_in && t - st->last_rx > g.c->timeout_ms)
                fail("%s failed: nothing arrived for %d ms (no heartbeat: a cut link?)",
                     link_text(s), g.c->timeout_ms);
        }
    }
    go_if_unparked();
    for (int r = 0; r < (int)g.size; r++) {
        rconn_t *rc = &g.ranks[r];
        if (g.c->rank_site[r] != my_site())
            continue;
        if (rc->out.n)
            rank_flush(rc);
        if (rc->blocked || rc->backlog) { /* the link may take its next frame now */
            rank_read(rc);
            again |= rc->backlog;
        }
    }
    /* The lower sites open our links to them; one that has not done so in the time we give
     * our own links will not come: its gateway never started or died first (in a federated
     * job, mpirun --rendezvous, its part may have failed before the link was up, and we
     * would otherwise wait for ever). */
    if (!g.links_checked && t >= g.t_start + CONNECT_TIMEOUT_MS) {
        g.links_checked = 1;
        for (int s = 0; s < my_site(); s++) {
            int ranks = 0;  /* a site without ranks runs no gateway */
            for (uint32_t r = 0; r < g.size && !ranks; r++)
                ranks = g.c->rank_site[r] == s;
            for (int i = 0; ranks && i < g.links[s].nst; i++)
                if (!g.links[s].st[i].up && !g.links[s].st[i].bye_in)
                    fail("%s was not opened within %d s: the gateway of site %s never "
                         "connected", link_text(s), CONNECT_TIMEOUT_MS / 1000, site_name(s));
        }
    }
    while (g.acc && t > g.acc->deadline) /* the FIFO is in deadline order */
        hs_free(g.acc, 1); /* no hello in time: a flood's, or a rank's that will retry */
    for (hs_t *h = g.hs, *next; h; h = next) {
        next = h->next;
        if (h->stream < 0)
            continue;
        if (h->state == HS_NONE && t >= h->retry_at)
            try_connect(h);
        else if (h->state == HS_CONNECTING && t >= h->step_deadline)
            connect_failed(h, "the connection attempt timed out"); /* SYNs lost: again */
        else if (h->state != HS_NONE && t >= h->step_deadline)
            /* its kernel took the connection, its process does not answer: stopped or hung
             * (a running gateway answers at once; it is timed like a silent link) */
            fail("cannot open %s: its gateway took the connection but did not answer for "
                 "%d ms", link_text(h->site), g.c->timeout_ms);
    }
    return again;
}

/* METAMPI_GW_STATS=1: what each link carried, one line per link on stderr at the normal end
 * (README.md, "Diagnostics"). */
static void print_stats(void)
{
    if (!tun_bool(TUN_GW_STATS))
        return;
    for (int s = 0; s < g.c->nsites; s++) {
        if (s == my_site())
            continue;
        const gw_link_t *l = &g.links[s];
        char line[512];
        int n = snprintf(line, sizeof line, "metampi-gateway-stats site=%s to=%s "
                         "rank_frames=%llu multis=%llu wan_frames=%llu wan_bytes=%llu "
                         "rank_frames_in=%llu wan_frames_in=%llu parked=%llu credits_in=%llu\n",
                         site_name(my_site()), site_name(s), (unsigned long long)l->frames_out,
                         (unsigned long long)l->multi_out, (unsigned long long)l->wan_out,
                         (unsigned long long)l->bytes_out, (unsigned long long)l->frames_in,
                         (unsigned long long)l->wan_in, (unsigned long long)l->parks,
                         (unsigned long long)l->credits_in);
        ssize_t w = write(2, line, (size_t)n);
        (void)w;
    }
}

static void end_links(void)
{
    g.ending = 1;
    long long until = now_ms() + END_TIMEOUT_MS;
    for (int s = 0; s < g.c->nsites; s++) {
        if (s == my_site())
            continue;
        gw_link_t *l = &g.links[s];
        gw_link_flush_batch(l);
        for (int i = 0; i < l->nst; i++)
            if (l->st[i].up && l->st[i].fd >= 0)
                gw_link_signal(l, i, GW_WAN_BYE);
    }
    for (int s = 0; s < g.c->nsites; s++) {
        if (s == my_site())
            continue;
        gw_link_t *l = &g.links[s];
        for (int i = 0; i < l->nst; i++) {
            gw_stream_t *st = &l->st[i];
            if (!st->up || st->fd < 0)
                continue;
            while (st->out.n && now_ms() < until) {
                int nout;
                if (tcp_outq_flush(&st->out, st->fd, NULL, 0, &nout) < 0)
                    break;
                if (st->out.n) {
                    struct pollfd p = { .fd = st->fd, .events = POLLOUT };
                    poll(&p, 1, 10);
                }
            }
            shutdown(st->fd, SHUT_WR);
        }
    }
    /* the peers' own end of stream, so no socket is reset with data in flight */
    for (int s = 0; s < g.c->nsites; s++) {
        if (s == my_site())
            continue;
        gw_link_t *l = &g.links[s];
        for (int i = 0; i < l->nst; i++) {
            gw_stream_t *st = &l->st[i];
            while (st->up && st->fd >= 0 && !st->bye_in && now_ms() < until) {
                unsigned char sink[65536];
                ssize_t n = read(st->fd, sink, sizeof sink);
                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                    break;
                if (n < 0) {
                    struct pollfd p = { .fd = st->fd, .events = POLLIN };
                    poll(&p, 1, 10);
                }
            }
        }
    }
    print_stats();
}

static void on_signal(void *arg, int fd, short revents)
{
    (void)arg;
    (void)revents;
    struct signalfd_siginfo si;
    while (read(fd, &si, sizeof si) == (ssize_t)sizeof si)
        g.ending = 1;
}

static void listen_on_own_address(void)
{
    char a[64];
    gw_config_addr_text(g.c, my_site(), a, sizeof a);
    g.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1;
    if (g.lfd >= 0)
        setsockopt(g.lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (g.lfd < 0 ||
        bind(g.lfd, (struct sockaddr *)&g.c->addr[my_site()], sizeof g.c->addr[0]) != 0 ||
        listen(g.lfd, 1024) != 0)
        fail("cannot listen on its WAN address %s: %s", a, strerror(errno));
    ev_watch(&g.loop, g.lfd, POLLIN, on_listen, NULL);
}

int gateway_run(const gw_config_t *c, const auth_key_t *key)
{
    memset(&g, 0, sizeof g);
    g.t_start = now_ms();
    g.c = c;
    auth_key_t ranks;
    if (auth_derive(key, AUTH_RANKS, &ranks) != 0 ||
        auth_derive(&ranks, AUTH_RANK_GATEWAY, &g.keys.rank) != 0 ||
        auth_derive(key, AUTH_GATEWAY_LINK, &g.keys.link) != 0)
        fail("cannot derive its keys from the job key (libcrypto)");
    g.size = (uint32_t)c->size;
    signal(SIGPIPE, SIG_IGN);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL);
    g.sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    ev_init(&g.loop);
    if (g.sigfd < 0)
        fail("cannot set up its signals: %s", strerror(errno));
    ev_watch(&g.loop, g.sigfd, POLLIN, on_signal, NULL);
    g.rank_ops = (tcp_rx_ops_t){ .deliver = rank_deliver, .max_frame = RANK_MAX_FRAME,
                                 .hdr_len = GW_FRAME_HDR, .parse_hdr = gw_rank_frame_parse_rx,
                                 .hdr_ctx = &g.size, .with_header = 1, .admit = admit_rank };
    g.wan_ops = (tcp_rx_ops_t){ .deliver = wan_deliver, .max_frame = GW_WAN_MAX,
                                .hdr_len = GW_WAN_HDR, .parse_hdr = gw_wan_parse_rx,
                                .hdr_ctx = &g.size, .with_header = 1, .admit = admit_wan };
    g.links = calloc((size_t)c->nsites, sizeof *g.links);
    g.srefs = calloc((size_t)(c->nsites * c->streams), sizeof *g.srefs);
    g.ranks = calloc((size_t)c->size, sizeof *g.ranks);
    g.stopped = calloc((size_t)c->size, 1);
    g.stopped_list = calloc((size_t)c->size, sizeof *g.stopped_list);
    if (!g.links || !g.srefs || !g.ranks || !g.stopped || !g.stopped_list)
        fail("out of memory");
    for (int r = 0; r < c->size; r++) {
        g.ranks[r].rank = r;
        g.ranks[r].fd = -1;
    }
    for (int s = 0; s < c->nsites; s++) {
        for (int i = 0; i < c->streams; i++)
            g.srefs[s * c->streams + i] = (sref_t){ s, i };
        if (s == my_site())
            continue;
        if (gw_link_init(&g.links[s], s, c->streams, g.size, RANK_MAX_FRAME,
                         c->compression) != 0)
            fail("out of memory for %s", link_text(s));
    }
    fdlimit_raise(-1); /* a connection per rank of the site, the links' streams, and floods */
    fdlimit_reserve();
    choose_congestion();
    listen_on_own_address();
    /* the lower site opens each link's streams */
    for (int s = my_site() + 1; s < c->nsites; s++)
        for (int i = 0; i < c->streams; i++) {
            hs_t *h = calloc(1, sizeof *h);
            if (!h)
                fail("out of memory");
            h->fd = -1;
            h->site = s;
            h->stream = i;
            h->deadline = now_ms() + CONNECT_TIMEOUT_MS;
            h->next = g.hs;
            g.hs = h;
            try_connect(h);
        }
    int again = 0;
    g.last_pass = now_ms();
    while (!g.ending) {
        ev_run_once(&g.loop, again ? 0 : 100);
        long long t = now_ms();
        if (t - g.last_pass > g.c->timeout_ms / 2) {
            /* this gateway was not running (stopped, or the whole job suspended): the
             * silence of the links is its own, not theirs */
            for (int s = 0; s < g.c->nsites; s++)
                for (int i = 0; s != my_site() && i < g.links[s].nst; i++)
                    g.links[s].st[i].last_rx = t;
        }
        g.last_pass = t;
        if (!g.ending)
            again = after_pass();
    }
    end_links();
    return 0;
}
