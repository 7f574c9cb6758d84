/*
 * The gateway's connections before they are proven (net/gw_wire.h, net/handshake.h):
 *   - accepted on its one listener, from this site's ranks and from the other sites' gateways
 *     that dial their links to us (the lower sites, or unreachable ones), under the flood defences of net/accept.h (at most PENDING_MAX unproven at
 *     once, the oldest evicted after EVICT_GRACE_MS, each must prove its key within
 *     HELLO_TIMEOUT_MS, out of descriptors one is shed): the gateway reads exactly one HELLO,
 *     and a HELLO that does not prove the key of its role, a rank that is not at this site or
 *     is already connected, a gateway of another layout are logged (at most NET_NOTES_MAX a
 *     minute) and closed; the job goes on;
 *   - opened by us, the streams of the links we dial (to the higher sites, unless one is
 *     unreachable: [site] reachable = no, config.h): retried every RETRY_MS
 *     while the other gateway does not listen or closes the attempt in its handshake (it may
 *     be evicting in a flood), for CONNECT_TIMEOUT_MS; each step must be answered within
 *     OPEN_STEP_MS (at most the link timeout), else it is tried again: in a flood the other
 *     gateway's accept queue overflows, and its kernel, having dropped our ACK, may offer the
 *     connection again only seconds later; a gateway whose kernel takes our connections while
 *     its process answers none of them for the link timeout is stopped or hung, and that ends
 *     the job;
 *   - opened by us again after the link broke (reconnect.c): every failure is retried, after
 *     REDIAL_MIN_MS doubling up to REDIAL_MAX_MS, each step bounded by REDIAL_STEP_MS (a lost
 *     SYN is not waited for: the kernel would send the next one only after 1 s, then 3 s),
 *     until the link's outage limit ends the job — except a refused connection: the other
 *     gateway's host answers and nothing listens, so that gateway is gone.
 * The HELLO of a link's stream names the link's generation (net/gw_wire.h): the accepting
 * gateway replaces the streams of an older generation with it (reconnect.c).
 */
#include "gateway_int.h"

#include "net/clock.h"
#include "net/sock.h"
#include "runtime/tunables.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum {
    HELLO_TIMEOUT_MS = 10000,          /* an accepted connection must prove the key by then */
    PENDING_MAX = 256,                 /* unproven accepted connections kept at once; beyond, */
    EVICT_GRACE_MS = 250,              /* the oldest goes once it had this long to answer */
    RETRY_MS = 100,                    /* between attempts to open a stream */
    REDIAL_MIN_MS = 100,               /* a reconnection's attempts: the first wait, */
    REDIAL_MAX_MS = 500,               /* doubling up to this */
    REDIAL_STEP_MS = 1000,             /* each step's answer (SYN, CHALLENGE, WELCOME) */
    OPEN_STEP_MS = 2000,               /* the same in the first opening (or the link timeout) */
};

static void on_hs(void *arg, int fd, short revents);

static void hs_free(hs_t *h, int close_fd)
{
    for (hs_t **p = &gwd.hs; *p; p = &(*p)->next)
        if (*p == h) {
            *p = h->next;
            break;
        }
    if (h->stream < 0)
        net_pending_remove(&gwd.acc, &h->pending);
    if (h->fd >= 0) {
        ev_unwatch(&gwd.loop, h->fd);
        if (close_fd)
            close(h->fd);
    }
    free(h);
}

/* An accepted connection evicted in a flood, or silent past its deadline (a flood's, or a
 * rank's that will retry): not worth a line. */
static void drop_quietly(void *ctx, net_pending_t *p, enum net_drop_why why)
{
    (void)ctx;
    (void)why;
    hs_free(p->owner, 1);
}

/* At most NET_NOTES_MAX dropped-connection lines a minute, then a summary. */
static int note_allowed(void)
{
    int held;
    int may = net_notes_take(&gwd.notes, net_now_ms(), &held);
    if (held)
        gwd_note("dropped %d more connections in the last %d s (no valid hello, or no "
                 "descriptor for them)", held, NET_NOTES_WINDOW_MS / 1000);
    return may;
}

/* A connection whose HELLO did not prove the key, or came from where it may not. */
static void hs_drop(hs_t *h, const char *why)
{
    if (note_allowed()) {
        char a[NET_ADDR_TEXT];
        net_addr_text((const struct sockaddr *)&h->from, a, sizeof a);
        gwd_note("dropped a connection from %s: %s", a, why);
    }
    hs_free(h, 1);
}

/* The handshake's small messages go into a fresh socket's empty buffer whole. */
static int write_all(hs_t *h, const void *p, size_t n)
{
    return net_hs_send(&h->io, h->fd, p, n) == 1 ? 0 : -1;
}

static void accepted_hello(hs_t *h)
{
    gw_hello_t m;
    const char *bad = gw_hello_parse(h->io.in, &gwd.keys, h->na, &m);
    if (bad) {
        hs_drop(h, bad);
        return;
    }
    int fd = h->fd;
    if (m.role == GW_ROLE_RANK) {
        /* a: its job-wide number; b: the numbers it knows of, at most ours (grow.c) */
        if (m.b > gwd.size || m.a >= m.b || gwd.c->rank_site[m.a] != gwd_my_site()) {
            hs_drop(h, "a hello from a rank that is not at this site");
            return;
        }
        rconn_t *r = &gwd.ranks[m.a];
        if (r->fd >= 0 || r->bye || r->gone) {
            hs_drop(h, "a second connection of the same rank");
            return;
        }
        unsigned char w[GW_WELCOME_LEN];
        gw_welcome_encode(w, &gwd.keys.rank, (uint32_t)gwd_my_site(), m.nonce, h->na);
        if (write_all(h, w, sizeof w) != 0) {
            hs_free(h, 1);
            return;
        }
        hs_free(h, 0);
        if (gwd_rank_up(r, fd) != 0)
            close(fd);
        return;
    }
    int from = (int)(m.a & 0xffff), nsites = (int)(m.a >> 16);
    int stream = (int)(m.b & 0xff), nst = (int)((m.b >> 8) & 0xff);
    if (nsites != gwd.c->nsites || from >= nsites || from == gwd_my_site() ||
        gw_config_dialer(gwd.c, from, gwd_my_site()) != from || nst != gwd.c->streams ||
        stream >= nst) {
        hs_drop(h, "a hello from a gateway of another layout");
        return;
    }
    if (!gwd_link_generation(from, m.b >> 16)) {
        hs_drop(h, "a WAN stream of an older generation of its link");
        return;
    }
    gw_stream_t *s = &gwd.links[from].st[stream];
    if (s->fd >= 0 || s->bye_in) {
        hs_drop(h, "a second connection of the same WAN stream");
        return;
    }
    unsigned char w[GW_WELCOME_LEN];
    gw_welcome_encode(w, &gwd.keys.link, (uint32_t)gwd_my_site(), m.nonce, h->na);
    if (write_all(h, w, sizeof w) != 0) {
        hs_free(h, 1);
        return;
    }
    unsigned char na[AUTH_NONCE];
    memcpy(na, h->na, sizeof na);
    hs_free(h, 0);
    gwd_socket_options(fd, 1);
    gwd_stream_up(from, stream, fd, 1, na, m.nonce);
}

static void try_connect(hs_t *h);

/* A reconnection refused: the other gateway's host answers, and nothing listens there. */
static _Noreturn void gone(const hs_t *h)
{
    gwd_fail("%s failed: it broke (%s), and its gateway is gone: connecting again was refused",
             gwd_link_text(h->site), gwd.conn[h->site].cause);
}

/* strerror(e), and for an address of a family this host cannot reach, that it is the family. */
static const char *connect_cause(int e, const net_addr_t *to)
{
    static char b[192];
    if (e != ENETUNREACH && e != EAFNOSUPPORT && e != EADDRNOTAVAIL)
        return strerror(e);
    snprintf(b, sizeof b, "%s (this gateway's host, site %s, has no %s route or address: give "
             "the sites' gateways addresses of a family both reach)", strerror(e),
             gwd_site_name(gwd_my_site()), net_addr_family_name(net_addr_family(to)));
    return b;
}

static void connect_failed(hs_t *h, const char *why)
{
    long long t = net_now_ms();
    if (!h->again && t >= h->deadline)
        gwd_fail("cannot open %s: %s", gwd_link_text(h->site), why);
    if (h->again)
        gwd_attempt_failed(h->site, why);
    if (h->fd >= 0) {
        ev_unwatch(&gwd.loop, h->fd);
        close(h->fd);
        h->fd = -1;
    }
    h->state = HS_NONE;
    h->io.got = 0;
    h->retry_at = t + (h->again ? net_retry_failed(&h->retry, t) : RETRY_MS);
}

/* A step's deadline: OPEN_STEP_MS (at most the link timeout), REDIAL_STEP_MS in a
 * reconnection. */
static long long step_deadline(const hs_t *h)
{
    int open_ms = gwd.c->timeout_ms < OPEN_STEP_MS ? gwd.c->timeout_ms : OPEN_STEP_MS;
    return net_now_ms() + (h->again ? REDIAL_STEP_MS : open_ms);
}

/* Our connection is taken: the CHALLENGE is awaited (its silence counted from now on). */
static void enter_challenge(hs_t *h)
{
    h->state = HS_CHALLENGE;
    h->step_deadline = step_deadline(h);
    if (!h->silent_since)
        h->silent_since = net_now_ms();
}

/* What the other gateway answered is not what it should be: the end at the first opening
 * (a gateway of another job or layout), one more failed attempt in a reconnection (the
 * handshake runs in clear: a byte changed in transit looks the same). */
static void answer_bad(hs_t *h, const char *bad)
{
    if (h->again)
        connect_failed(h, bad);
    else
        gwd_fail("cannot open %s: %s", gwd_link_text(h->site), bad);
}

/* Our stream's handshake, one step per event; the acceptor's: the HELLO. */
static void on_hs(void *arg, int fd, short revents)
{
    (void)fd;
    (void)revents;
    hs_t *h = arg;
    if (h->stream < 0) { /* accepted: its HELLO */
        int rc = net_hs_read(&h->io, h->fd, GW_HELLO_LEN);
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
            if (h->again && soerr == ECONNREFUSED)
                gone(h);
            connect_failed(h, connect_cause(soerr, &gwd.c->addr[h->site]));
            return;
        }
        enter_challenge(h);
        ev_set_events(&gwd.loop, h->fd, POLLIN);
    }
    if (h->state == HS_CHALLENGE) {
        int rc = net_hs_read(&h->io, h->fd, GW_CHALLENGE_LEN);
        if (rc == 0)
            return;
        h->silent_since = 0; /* an answer or a close: its process runs */
        if (rc < 0) {
            connect_failed(h, h->io.last_errno ? strerror(h->io.last_errno)
                                                : "the other side closed it at once");
            return;
        }
        const char *bad = gw_challenge_parse(h->io.in, h->na);
        if (bad) {
            answer_bad(h, bad);
            return;
        }
        if (auth_nonce(h->nc) != 0)
            gwd_fail("no randomness for a nonce");
        unsigned char hello[GW_HELLO_LEN];
        gw_hello_encode(hello, &gwd.keys.link, GW_ROLE_LINK,
                        (uint32_t)gwd_my_site() | (uint32_t)gwd.c->nsites << 16,
                        (uint32_t)h->stream | (uint32_t)gwd.c->streams << 8 |
                            (h->gen & 0xffff) << 16,
                        h->na, h->nc);
        if (write_all(h, hello, sizeof hello) != 0) {
            connect_failed(h, "cannot send the hello");
            return;
        }
        h->io.got = 0;
        h->state = HS_WELCOME;
        h->step_deadline = step_deadline(h);
    }
    if (h->state == HS_WELCOME) {
        int rc = net_hs_read(&h->io, h->fd, GW_WELCOME_LEN);
        if (rc == 0)
            return;
        if (rc < 0) { /* it may evict unproven connections in a flood: try again */
            connect_failed(h, "the other gateway closed it during the handshake (does it "
                           "have the same job key?)");
            return;
        }
        const char *bad = gw_welcome_parse(h->io.in, &gwd.keys.link, h->nc, h->na,
                                           (uint32_t)h->site);
        if (bad) {
            answer_bad(h, bad);
            return;
        }
        int site = h->site, stream = h->stream, sfd = h->fd;
        unsigned char na[AUTH_NONCE], nc[AUTH_NONCE];
        memcpy(na, h->na, sizeof na);
        memcpy(nc, h->nc, sizeof nc);
        hs_free(h, 0);
        gwd_stream_up(site, stream, sfd, 0, na, nc);
    }
}

/* METAMPI_GW_LINK_VIA=IP:PORT: the links are opened through a relay there (the handshake
 * and TLS still prove the other gateway, so a relay learns and changes nothing unnoticed). */
static void link_via(net_addr_t *to)
{
    const char *via = tun_string(TUN_GW_LINK_VIA);
    if (!via || !*via)
        return;
    const char *why = gw_addr_parse(via, to);
    if (why)
        gwd_fail("METAMPI_GW_LINK_VIA='%s' is not IPv4:PORT or [IPv6]:PORT: %s", via, why);
}

static void try_connect(hs_t *h)
{
    net_addr_t to = gwd.c->addr[h->site];
    link_via(&to);
    if (!h->again && net_host_has_family(net_addr_family(&to)) == 0)
        gwd_fail("cannot open %s: this gateway's host (site %s) has no %s address (give the "
                 "sites' gateways addresses of a family both have)", gwd_link_text(h->site),
                 gwd_site_name(gwd_my_site()), net_addr_family_name(net_addr_family(&to)));
    h->fd = net_socket_for(&to, 0);
    if (h->fd < 0)
        gwd_fail("cannot open %s: %s", gwd_link_text(h->site), connect_cause(errno, &to));
    gwd_socket_options(h->fd, 1);
    int rc = connect(h->fd, &to.u.sa, to.len);
    if (rc != 0 && errno != EINPROGRESS) {
        int e = errno;
        if (h->again && e == ECONNREFUSED)
            gone(h);
        if (!h->again && e == EAFNOSUPPORT)
            gwd_fail("cannot open %s: %s", gwd_link_text(h->site), connect_cause(e, &to));
        connect_failed(h, connect_cause(e, &to));
        return;
    }
    if (rc == 0)
        enter_challenge(h);
    else {
        h->state = HS_CONNECTING;
        h->step_deadline = step_deadline(h);
    }
    ev_watch(&gwd.loop, h->fd, rc == 0 ? POLLIN : POLLOUT, on_hs, h);
}

/* Takes the waiting connections (net_accept: the cap, the grace, shedding). */
static void on_listen(void *arg, int fd, short revents)
{
    (void)arg;
    (void)revents;
    for (;;) {
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        long long now = net_now_ms();
        int c = net_accept(&gwd.acc, fd, (struct sockaddr *)&from, &fl, now);
        if (c == NET_ACCEPT_SHED) {
            if (note_allowed())
                gwd_note("out of descriptors: closed a connection at once");
            continue;
        }
        if (c < 0)
            return;
        hs_t *h = calloc(1, sizeof *h);
        if (!h || auth_nonce(h->na) != 0) {
            free(h);
            close(c);
            continue;
        }
        h->fd = c;
        h->stream = -1;
        h->from = from;
        h->next = gwd.hs;
        gwd.hs = h;
        net_pending_push(&gwd.acc, &h->pending, h, now);
        gwd_socket_options(c, 0);
        unsigned char ch[GW_CHALLENGE_LEN];
        gw_challenge_encode(ch, h->na);
        if (write_all(h, ch, sizeof ch) != 0) {
            hs_free(h, 1);
            continue;
        }
        ev_watch(&gwd.loop, c, POLLIN, on_hs, h);
    }
}

void gwd_hs_init(void)
{
    gwd.acc = (net_acceptor_t){ .max = PENDING_MAX, .grace_ms = EVICT_GRACE_MS,
                                .hello_ms = HELLO_TIMEOUT_MS, .drop = drop_quietly };
}

void gwd_listen(void)
{
    char a[64];
    gw_config_addr_text(gwd.c, gwd_my_site(), a, sizeof a);
    net_addr_t addr = gwd.c->addr[gwd_my_site()];
    gwd.lfd = net_listen(&addr, 1024, 1);
    if (gwd.lfd < 0)
        gwd_fail("cannot listen on its WAN address %s: %s", a, strerror(errno));
    ev_watch(&gwd.loop, gwd.lfd, POLLIN, on_listen, NULL);
}

/* Starts opening stream i of the link to site s (in its generation). */
static void dial(int s, int i, int again)
{
    hs_t *h = calloc(1, sizeof *h);
    if (!h)
        gwd_fail("out of memory");
    h->fd = -1;
    h->site = s;
    h->stream = i;
    h->gen = gwd.conn[s].gen;
    h->again = again;
    h->retry = (net_retry_t){ .min_ms = REDIAL_MIN_MS, .max_ms = REDIAL_MAX_MS };
    h->deadline = net_now_ms() + CONNECT_TIMEOUT_MS;
    h->next = gwd.hs;
    gwd.hs = h;
    try_connect(h);
}

void gwd_open_links(void)
{
    for (int s = 0; s < gwd.c->nsites; s++)
        for (int i = 0; s != gwd_my_site() && gwd_dials(s) && i < gwd.c->streams; i++)
            dial(s, i, 0);
}

void gwd_redial(int site)
{
    for (hs_t *h = gwd.hs, *next; h; h = next) {
        next = h->next;
        if (h->stream >= 0 && h->site == site)
            hs_free(h, 1);
    }
    for (int i = 0; i < gwd.c->streams; i++)
        dial(site, i, 1);
}

void gwd_hs_after_pass(long long t)
{
    net_pending_expire(&gwd.acc, t);
    for (hs_t *h = gwd.hs, *next; h; h = next) {
        next = h->next;
        if (h->stream < 0)
            continue;
        if (h->state == HS_NONE && t >= h->retry_at)
            try_connect(h);
        else if (h->state == HS_CONNECTING && t >= h->step_deadline)
            connect_failed(h, "the connection attempt timed out"); /* SYNs lost: again */
        else if (h->state != HS_NONE && t >= h->step_deadline) {
            /* its kernel took our connections for the link timeout, its process answered
             * none: stopped or hung (timed like a silent link) */
            if (!h->again && h->state == HS_CHALLENGE &&
                t - h->silent_since >= gwd.c->timeout_ms)
                gwd_fail("cannot open %s: its gateway took the connection but did not answer "
                         "for %d ms", gwd_link_text(h->site), gwd.c->timeout_ms);
            connect_failed(h, "no answer in the handshake");
        }
    }
}
